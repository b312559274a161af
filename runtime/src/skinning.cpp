#include "animpack/skinning.h"

namespace animpack {

Result<void> skin(const SkinInput& in, std::span<const Mat4> palette, const SkinOutput& out) {
  const size_t n = in.positions.size();
  const bool normals = !in.normals.empty();
  const bool tangents = !in.tangents.empty();
  if (in.joints.size() != n || in.weights.size() != n || out.positions.size() != n ||
      (normals && (in.normals.size() != n || out.normals.size() != n)) ||
      (tangents && (in.tangents.size() != n || out.tangents.size() != n))) {
    return Error::make(ErrorCode::kSizeMismatch,
                       "skin streams differ in length (%zu positions, %zu joints, %zu weights)", n,
                       in.joints.size(), in.weights.size());
  }
  const size_t joint_count = palette.size();
  for (size_t v = 0; v < n; ++v) {
    const JointIndices& j = in.joints[v];
    if (j.j[0] >= joint_count || j.j[1] >= joint_count || j.j[2] >= joint_count ||
        j.j[3] >= joint_count) {
      return Error::make(ErrorCode::kBadJointIndex,
                         "vertex %zu names joint %u, %u, %u or %u of a %zu-joint palette", v,
                         unsigned{j.j[0]}, unsigned{j.j[1]}, unsigned{j.j[2]}, unsigned{j.j[3]},
                         joint_count);
    }
  }
  for (size_t v = 0; v < n; ++v) {
    const JointIndices& j = in.joints[v];
    const float w[4] = {in.weights[v].x, in.weights[v].y, in.weights[v].z, in.weights[v].w};
    // m = w0 P[j0] + w1 P[j1] + w2 P[j2] + w3 P[j3], upper 3x4 (12 floats: columns 0..3).
    float m[12];
    const float* p0 = palette[j.j[0]].m;
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 3; ++r) m[c * 3 + r] = p0[c * 4 + r] * w[0];
    }
    for (int i = 1; i < 4; ++i) {
      const float* p = palette[j.j[i]].m;
      for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 3; ++r) m[c * 3 + r] = m[c * 3 + r] + p[c * 4 + r] * w[i];
      }
    }
    const Vec3 p = in.positions[v];
    out.positions[v] = {m[0] * p.x + m[3] * p.y + m[6] * p.z + m[9],
                        m[1] * p.x + m[4] * p.y + m[7] * p.z + m[10],
                        m[2] * p.x + m[5] * p.y + m[8] * p.z + m[11]};
    if (normals) {
      const Vec3 nv = in.normals[v];
      out.normals[v] = normalize(Vec3{m[0] * nv.x + m[3] * nv.y + m[6] * nv.z,
                                      m[1] * nv.x + m[4] * nv.y + m[7] * nv.z,
                                      m[2] * nv.x + m[5] * nv.y + m[8] * nv.z});
    }
    if (tangents) {
      const Vec4 t = in.tangents[v];
      const Vec3 tv =
          normalize(Vec3{m[0] * t.x + m[3] * t.y + m[6] * t.z, m[1] * t.x + m[4] * t.y + m[7] * t.z,
                         m[2] * t.x + m[5] * t.y + m[8] * t.z});
      out.tangents[v] = {tv.x, tv.y, tv.z, t.w};
    }
  }
  return ok();
}

}  // namespace animpack
