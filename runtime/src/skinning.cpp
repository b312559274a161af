#include "animpack/skinning.h"

#include <cmath>

#include "kernels.h"

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
  using kernel::v4;
  const Mat4* pal = palette.data();
  auto norm3 = [](v4 x) -> Vec3 {
    // normalize(Vec3): len = sqrt(dot), zero stays zero, v * (1 / len)
    const Vec3 r{x[0], x[1], x[2]};
    const float len = std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    if (len == 0.0f) return r;
    const float inv = 1.0f / len;
    return {r.x * inv, r.y * inv, r.z * inv};
  };
  for (size_t v = 0; v < n; ++v) {
    const JointIndices& j = in.joints[v];
    const Vec4 w = in.weights[v];
    const float* p0 = pal[j.j[0]].m;
    const float* p1 = pal[j.j[1]].m;
    const float* p2 = pal[j.j[2]].m;
    const float* p3 = pal[j.j[3]].m;
    v4 c[4];
    for (int k = 0; k < 4; ++k) {
      c[k] = kernel::load4(p0 + 4 * k) * w.x;
      c[k] = c[k] + kernel::load4(p1 + 4 * k) * w.y;
      c[k] = c[k] + kernel::load4(p2 + 4 * k) * w.z;
      c[k] = c[k] + kernel::load4(p3 + 4 * k) * w.w;
    }
    const Vec3 p = in.positions[v];
    const v4 op = c[0] * p.x + c[1] * p.y + c[2] * p.z + c[3];
    out.positions[v] = {op[0], op[1], op[2]};
    if (normals) {
      const Vec3 nv = in.normals[v];
      out.normals[v] = norm3(c[0] * nv.x + c[1] * nv.y + c[2] * nv.z);
    }
    if (tangents) {
      const Vec4 t = in.tangents[v];
      const Vec3 tv = norm3(c[0] * t.x + c[1] * t.y + c[2] * t.z);
      out.tangents[v] = {tv.x, tv.y, tv.z, t.w};
    }
  }
  return ok();
}

}  // namespace animpack
