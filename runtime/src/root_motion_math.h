// Double-precision vectors, quaternions and affine transforms for root motion: the baker
// (root_motion.cpp) and Animator::set_root_motion. Private to the runtime (built with
// -ffp-contract=off), + - * / and det:: only, so every platform gives the same bits.
#pragma once

#include <cstddef>
#include <vector>

#include "animpack/math.h"
#include "animpack/scalar.h"
#include "animpack/skeleton.h"

namespace animpack::rm {

struct D3 {
  double x = 0, y = 0, z = 0;
};
struct DQuat {
  double x = 0, y = 0, z = 0, w = 1;
};
// A 3x3 matrix, c[col] its columns.
struct D33 {
  D3 c[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
};
// p -> l p + t.
struct DAffine {
  D33 l;
  D3 t;
};

inline D3 d3(Vec3 v) { return {v.x, v.y, v.z}; }
inline DQuat dq(Quat q) { return {q.x, q.y, q.z, q.w}; }
inline D3 add(D3 a, D3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline D3 sub(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline D3 scale(D3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
inline double dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline D3 cross(D3 a, D3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline D3 normalize(D3 a) {
  const double n = det::sqrt(dot(a, a));
  return n > 0.0 ? scale(a, 1.0 / n) : a;
}

inline D3 mul(const D33& m, D3 v) {
  return add(add(scale(m.c[0], v.x), scale(m.c[1], v.y)), scale(m.c[2], v.z));
}
inline D33 mul(const D33& a, const D33& b) {
  D33 r;
  for (int i = 0; i < 3; ++i) r.c[i] = mul(a, b.c[i]);
  return r;
}
inline D33 transpose(const D33& m) {
  D33 r;
  r.c[0] = {m.c[0].x, m.c[1].x, m.c[2].x};
  r.c[1] = {m.c[0].y, m.c[1].y, m.c[2].y};
  r.c[2] = {m.c[0].z, m.c[1].z, m.c[2].z};
  return r;
}
// The inverse (the identity for a singular matrix: a skeleton's matrices are checked).
inline D33 inverse(const D33& m) {
  const D3 r0 = cross(m.c[1], m.c[2]);
  const D3 r1 = cross(m.c[2], m.c[0]);
  const D3 r2 = cross(m.c[0], m.c[1]);
  const double det = dot(m.c[0], r0);
  if (det == 0.0) return D33{};
  D33 rows;
  rows.c[0] = scale(r0, 1.0 / det);
  rows.c[1] = scale(r1, 1.0 / det);
  rows.c[2] = scale(r2, 1.0 / det);
  return transpose(rows);
}

inline DAffine mul(const DAffine& a, const DAffine& b) {
  return {mul(a.l, b.l), add(mul(a.l, b.t), a.t)};
}

inline DQuat mul(DQuat a, DQuat b) {
  return {
      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
inline DQuat conjugate(DQuat q) { return {-q.x, -q.y, -q.z, q.w}; }
inline DQuat normalize(DQuat q) {
  const double n = det::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  return n > 0.0 ? DQuat{q.x / n, q.y / n, q.z / n, q.w / n} : DQuat{};
}

// The rotation matrix of a unit quaternion.
inline D33 rotation(DQuat q) {
  const double x = q.x, y = q.y, z = q.z, w = q.w;
  D33 r;
  r.c[0] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)};
  r.c[1] = {2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)};
  r.c[2] = {2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)};
  return r;
}

inline DAffine from_parts(D3 t, DQuat q, D3 s) {
  DAffine a;
  a.l = rotation(normalize(q));
  a.l.c[0] = scale(a.l.c[0], s.x);
  a.l.c[1] = scale(a.l.c[1], s.y);
  a.l.c[2] = scale(a.l.c[2], s.z);
  a.t = t;
  return a;
}
inline DAffine from_trs(const Trs& trs) {
  return from_parts(d3(trs.translation), dq(trs.rotation), d3(trs.scale));
}
inline DAffine from_mat4(const Mat4& m) {
  DAffine a;
  for (int c = 0; c < 3; ++c) a.l.c[c] = {m.m[c * 4 + 0], m.m[c * 4 + 1], m.m[c * 4 + 2]};
  a.t = {m.m[12], m.m[13], m.m[14]};
  return a;
}

// The rest global of `joint`'s parent: the root matrix times the rest locals above it.
inline DAffine parent_rest_global(const Skeleton& skeleton, int joint) {
  const auto parents = skeleton.parents();
  const auto rest = skeleton.rest_pose();
  std::vector<int> chain;  // ancestors, nearest first
  for (int j = parents[static_cast<size_t>(joint)]; j >= 0; j = parents[static_cast<size_t>(j)]) {
    chain.push_back(j);
  }
  DAffine g = from_mat4(skeleton.root());
  for (size_t i = chain.size(); i-- > 0;) g = mul(g, from_trs(rest[static_cast<size_t>(chain[i])]));
  return g;
}

// `up` (object space) in the frame of a (its rotation, found by Gram-Schmidt on its
// columns, undone), unit: the axis a local rotation turns about to turn about `up`.
inline D3 local_axis(const D33& a, D3 up) {
  const D3 x = normalize(a.c[0]);
  const D3 y = normalize(sub(a.c[1], scale(x, dot(x, a.c[1]))));
  const D3 z = cross(x, y);
  return normalize(D3{dot(x, up), dot(y, up), dot(z, up)});
}

// The twist of unit q about unit `axis` (swing-twist by projection), with its angle in
// (-pi, pi] (right-handed about axis); the identity for a half-turn swing.
inline DQuat twist(DQuat q, D3 axis, double* angle) {
  double p = q.x * axis.x + q.y * axis.y + q.z * axis.z;
  double w = q.w;
  if (w < 0.0) {
    p = -p;
    w = -w;
  }
  const double n = det::sqrt(p * p + w * w);
  if (!(n > 0.0)) {
    *angle = 0.0;
    return DQuat{};
  }
  *angle = 2.0 * det::atan2(p, w);
  return DQuat{axis.x * p / n, axis.y * p / n, axis.z * p / n, w / n};
}

// v turned by `angle` radians about unit `axis` (right-handed; Rodrigues).
inline D3 rotate_about(D3 v, D3 axis, double angle) {
  if (angle == 0.0) return v;
  const double c = det::cos(angle), s = det::sin(angle);
  const D3 along = scale(axis, dot(axis, v) * (1.0 - c));
  return add(add(scale(v, c), scale(cross(axis, v), s)), along);
}

}  // namespace animpack::rm
