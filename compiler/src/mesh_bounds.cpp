// Cook-time mesh bounds (mesh_bounds.h; docs/pack-format.md, "Bounds").
#include "animpack/compiler/mesh_bounds.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "animpack/skeleton.h"

namespace animpack {
namespace {

// The upper 3x4 block of an affine matrix in double, column-major like Mat4 (m[c * 4 + r]).
using DMat = std::array<double, 16>;

DMat to_double(const Mat4& m) {
  DMat d;
  for (size_t i = 0; i < 16; ++i) d[i] = static_cast<double>(m.m[i]);
  return d;
}

bool finite(const DMat& m) {
  for (double v : m) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

// The inverse of an affine matrix (last row taken as 0 0 0 1); false when singular.
bool inverse_affine_d(const DMat& a, DMat* out) {
  const double c00 = a[5] * a[10] - a[9] * a[6];
  const double c01 = a[9] * a[2] - a[1] * a[10];
  const double c02 = a[1] * a[6] - a[5] * a[2];
  const double det = a[0] * c00 + a[4] * c01 + a[8] * c02;
  if (det == 0.0 || !std::isfinite(det)) return false;
  const double inv = 1.0 / det;
  DMat o{};
  o[0] = c00 * inv;
  o[1] = c01 * inv;
  o[2] = c02 * inv;
  o[4] = (a[8] * a[6] - a[4] * a[10]) * inv;
  o[5] = (a[0] * a[10] - a[8] * a[2]) * inv;
  o[6] = (a[4] * a[2] - a[0] * a[6]) * inv;
  o[8] = (a[4] * a[9] - a[8] * a[5]) * inv;
  o[9] = (a[8] * a[1] - a[0] * a[9]) * inv;
  o[10] = (a[0] * a[5] - a[4] * a[1]) * inv;
  o[12] = -(o[0] * a[12] + o[4] * a[13] + o[8] * a[14]);
  o[13] = -(o[1] * a[12] + o[5] * a[13] + o[9] * a[14]);
  o[14] = -(o[2] * a[12] + o[6] * a[13] + o[10] * a[14]);
  o[15] = 1.0;
  if (!finite(o)) return false;
  *out = o;
  return true;
}

std::array<double, 3> apply(const DMat& m, Vec3 p) {
  const double x = p.x, y = p.y, z = p.z;
  return {m[0] * x + m[4] * y + m[8] * z + m[12], m[1] * x + m[5] * y + m[9] * z + m[13],
          m[2] * x + m[6] * y + m[10] * z + m[14]};
}

bool finite(Vec3 p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); }

// A box in double, rounded outwards to float at the end.
struct DBox {
  std::array<double, 3> lo{std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::infinity()};
  std::array<double, 3> hi{-std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
  bool any = false;

  void grow(const std::array<double, 3>& p) {
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) return;
    for (size_t k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], p[k]);
      hi[k] = std::max(hi[k], p[k]);
    }
    any = true;
  }
};

// The largest float <= v, and the smallest float >= v (v finite; beyond the float range
// the result is the largest finite float of that sign, the best a float box can do).
float round_down(double v) {
  float f = static_cast<float>(v);
  if (std::isinf(f))
    return f > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
  if (static_cast<double>(f) > v) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
  return f;
}
float round_up(double v) {
  float f = static_cast<float>(v);
  if (std::isinf(f))
    return f > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
  if (static_cast<double>(f) < v) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

void outward(const DBox& d, Vec3* out_lo, Vec3* out_hi) {
  *out_lo = {round_down(d.lo[0]), round_down(d.lo[1]), round_down(d.lo[2])};
  *out_hi = {round_up(d.hi[0]), round_up(d.hi[1]), round_up(d.hi[2])};
}

Box to_box(const DBox& d) {
  Box b;
  if (d.any) outward(d, &b.lo, &b.hi);
  return b;
}

const DMat kIdentity = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

// One joint's frame: inverse(inverse bind) in double, rounded to float; and the inverse of
// that float frame in double (what maps a bind-space vertex into the frame).
struct Frame {
  Mat4 frame;
  DMat to_frame = kIdentity;
};

Frame frame_of(const Mat4& inverse_bind) {
  Frame f;
  DMat d;
  if (!inverse_affine_d(to_double(inverse_bind), &d)) return f;
  Mat4 rounded;
  for (size_t i = 0; i < 16; ++i) rounded.m[i] = static_cast<float>(d[i]);
  rounded.m[3] = rounded.m[7] = rounded.m[11] = 0.0f;
  rounded.m[15] = 1.0f;
  DMat back;
  if (!inverse_affine_d(to_double(rounded), &back)) return f;
  f.frame = rounded;
  f.to_frame = back;
  return f;
}

}  // namespace

void compute_mesh_bounds(CookedMesh& mesh, const CookedRig* rig) {
  const int joint_count = rig != nullptr ? rig->rig.skeleton().joint_count() : 0;
  const size_t joints = static_cast<size_t>(joint_count);

  // Rest globals (node-rig parts at rest) and frames, for a rig.
  std::vector<Mat4> rest_globals(joints);
  std::vector<Frame> frames(joints);
  if (rig != nullptr) {
    const Skeleton& skeleton = rig->rig.skeleton();
    std::vector<Trs> locals(joints);
    if (!rest_pose(skeleton, locals) || !local_to_global(skeleton, locals, rest_globals)) {
      rest_globals.assign(joints, Mat4{});
    }
    for (size_t j = 0; j < joints; ++j) frames[j] = frame_of(skeleton.inverse_binds()[j]);
  }

  DBox bind, fixed;
  std::vector<DBox> boxes(joints);
  for (const CookedPart& part : mesh.parts) {
    const bool skinned = !part.joints.empty() && part.joints.size() == part.positions.size() &&
                         part.weights.size() == part.positions.size() && rig != nullptr;
    const bool node_part = !skinned && part.joint >= 0 && part.joint < joint_count;
    if (skinned) {
      for (size_t v = 0; v < part.positions.size(); ++v) {
        const Vec3 p = part.positions[v];
        if (!finite(p)) continue;
        bind.grow({p.x, p.y, p.z});
        const float w[4] = {part.weights[v].x, part.weights[v].y, part.weights[v].z,
                            part.weights[v].w};
        for (int k = 0; k < 4; ++k) {
          const uint16_t j = part.joints[v].j[k];
          if (!(w[k] > 0.0f) || j >= joints) continue;
          boxes[j].grow(apply(frames[j].to_frame, p));
        }
      }
    } else if (node_part) {
      const size_t j = static_cast<size_t>(part.joint);
      const DMat rest = to_double(rest_globals[j]);
      for (const Vec3& p : part.positions) {
        if (!finite(p)) continue;
        bind.grow(apply(rest, p));
        boxes[j].grow(apply(frames[j].to_frame, p));
      }
    } else {
      for (const Vec3& p : part.positions) {
        if (!finite(p)) continue;
        bind.grow({p.x, p.y, p.z});
        fixed.grow({p.x, p.y, p.z});
      }
    }
  }

  mesh.bind_bounds = to_box(bind);
  mesh.static_bounds = to_box(fixed);
  mesh.joint_bounds.clear();
  for (size_t j = 0; j < joints; ++j) {
    if (!boxes[j].any) continue;
    JointBounds jb;
    jb.joint = static_cast<uint16_t>(j);
    jb.frame = frames[j].frame;
    outward(boxes[j], &jb.lo, &jb.hi);
    mesh.joint_bounds.push_back(jb);
  }
}

}  // namespace animpack
