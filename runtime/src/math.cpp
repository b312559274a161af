// Quaternion and matrix operations. Slerp follows the glTF 2.0 specification,
// Appendix "Interpolation" (shortest path, nlerp for nearly parallel quaternions).
#include "animpack/math.h"

#include <cmath>
#include <cstring>

#include "animpack/scalar.h"
#include "kernels.h"
#include "math_inline.h"

namespace animpack {

Vec3 operator+(Vec3 a, Vec3 b) { return inl::add(a, b); }
Vec3 operator-(Vec3 a, Vec3 b) { return inl::sub(a, b); }
Vec3 operator*(Vec3 a, float s) { return inl::scale(a, s); }
float dot(Vec3 a, Vec3 b) { return inl::dot(a, b); }
Vec3 cross(Vec3 a, Vec3 b) { return inl::cross(a, b); }
Vec3 lerp(Vec3 a, Vec3 b, float t) { return inl::lerp(a, b, t); }
float dot(Quat a, Quat b) { return inl::dot(a, b); }
Quat operator*(Quat a, Quat b) { return inl::mul(a, b); }

float length(Vec3 v) { return det::sqrt(dot(v, v)); }

Vec3 normalize(Vec3 v) {
  const float len = length(v);
  if (len == 0.0f) return v;
  const float inv = 1.0f / len;
  return v * inv;
}

Quat normalize(Quat q) { return kernel::normalize_q(q); }

Quat quat_from_axis_angle(Vec3 axis, float angle) {
  float s, c;
  det::sincos(angle * 0.5f, &s, &c);
  return {axis.x * s, axis.y * s, axis.z * s, c};
}

Vec3 rotate(Quat q, Vec3 v) {
  // v + 2 w (u x v) + 2 u x (u x v), u = q.xyz
  const Vec3 u{q.x, q.y, q.z};
  const Vec3 t = cross(u, v) * 2.0f;
  return v + t * q.w + cross(u, t);
}

Quat nlerp(Quat a, Quat b, float t) { return kernel::nlerp(a, b, t); }

Quat slerp(Quat a, Quat b, float t) {
  float d = dot(a, b);
  if (d < 0.0f) {
    b = {-b.x, -b.y, -b.z, -b.w};
    d = -d;
  }
  if (t <= 0.0f) return a;
  if (t >= 1.0f) return b;
  if (d > 0.9995f) return nlerp(a, b, t);
  // theta = acos(d), formed as atan2(sin, cos) for accuracy near 0 and pi/2.
  return kernel::to_quat(kernel::slerp_wide(kernel::to_v4(a), kernel::to_v4(b), d, t));
}

Mat4 to_matrix(const Trs& trs) {
  Mat4 r;
  kernel::to_matrix(trs, r);
  return r;
}

Mat4 operator*(const Mat4& a, const Mat4& b) {
  Mat4 r;
  for (int c = 0; c < 4; ++c) {
    for (int row = 0; row < 4; ++row) {
      r.m[c * 4 + row] = a.m[0 * 4 + row] * b.m[c * 4 + 0] + a.m[1 * 4 + row] * b.m[c * 4 + 1] +
                         a.m[2 * 4 + row] * b.m[c * 4 + 2] + a.m[3 * 4 + row] * b.m[c * 4 + 3];
    }
  }
  return r;
}

Mat4 mul_affine(const Mat4& a, const Mat4& b) {
  Mat4 r;
  kernel::mul_affine(a, b, r);
  return r;
}

Vec3 transform_point(const Mat4& m, Vec3 p) {
  return {m.m[0] * p.x + m.m[4] * p.y + m.m[8] * p.z + m.m[12],
          m.m[1] * p.x + m.m[5] * p.y + m.m[9] * p.z + m.m[13],
          m.m[2] * p.x + m.m[6] * p.y + m.m[10] * p.z + m.m[14]};
}

Vec3 transform_vector(const Mat4& m, Vec3 v) {
  return {m.m[0] * v.x + m.m[4] * v.y + m.m[8] * v.z, m.m[1] * v.x + m.m[5] * v.y + m.m[9] * v.z,
          m.m[2] * v.x + m.m[6] * v.y + m.m[10] * v.z};
}

Mat4 inverse_affine(const Mat4& m, bool* out_ok) {
  const float* a = m.m;
  // Cofactors of the upper 3x3 (column-major a[c*4+r]).
  const float c00 = a[5] * a[10] - a[9] * a[6];
  const float c01 = a[9] * a[2] - a[1] * a[10];
  const float c02 = a[1] * a[6] - a[5] * a[2];
  const float det = a[0] * c00 + a[4] * c01 + a[8] * c02;
  if (det == 0.0f || !std::isfinite(det)) {
    if (out_ok) *out_ok = false;
    return Mat4{};
  }
  const float inv = 1.0f / det;
  Mat4 r;
  float* o = r.m;
  o[0] = c00 * inv;
  o[1] = c01 * inv;
  o[2] = c02 * inv;
  o[4] = (a[8] * a[6] - a[4] * a[10]) * inv;
  o[5] = (a[0] * a[10] - a[8] * a[2]) * inv;
  o[6] = (a[4] * a[2] - a[0] * a[6]) * inv;
  o[8] = (a[4] * a[9] - a[8] * a[5]) * inv;
  o[9] = (a[8] * a[1] - a[0] * a[9]) * inv;
  o[10] = (a[0] * a[5] - a[4] * a[1]) * inv;
  o[3] = o[7] = o[11] = 0.0f;
  o[12] = -(o[0] * a[12] + o[4] * a[13] + o[8] * a[14]);
  o[13] = -(o[1] * a[12] + o[5] * a[13] + o[9] * a[14]);
  o[14] = -(o[2] * a[12] + o[6] * a[13] + o[10] * a[14]);
  o[15] = 1.0f;
  if (out_ok) *out_ok = true;
  return r;
}

Trs decompose(const Mat4& m) {
  Trs out;
  const float* a = m.m;
  out.translation = {a[12], a[13], a[14]};
  Vec3 cx{a[0], a[1], a[2]}, cy{a[4], a[5], a[6]}, cz{a[8], a[9], a[10]};
  float sx = length(cx), sy = length(cy), sz = length(cz);
  if (dot(cross(cx, cy), cz) < 0.0f) sx = -sx;
  out.scale = {sx, sy, sz};
  if (sx == 0.0f || sy == 0.0f || sz == 0.0f) return out;
  cx = cx * (1.0f / sx);
  cy = cy * (1.0f / sy);
  cz = cz * (1.0f / sz);
  // Shepperd's method on the rotation matrix R = [cx cy cz].
  const float r00 = cx.x, r11 = cy.y, r22 = cz.z;
  const float trace = r00 + r11 + r22;
  Quat q;
  if (trace > 0.0f) {
    const float s = det::sqrt(trace + 1.0f) * 2.0f;
    q = {(cy.z - cz.y) / s, (cz.x - cx.z) / s, (cx.y - cy.x) / s, 0.25f * s};
  } else if (r00 > r11 && r00 > r22) {
    const float s = det::sqrt(1.0f + r00 - r11 - r22) * 2.0f;
    q = {0.25f * s, (cy.x + cx.y) / s, (cz.x + cx.z) / s, (cy.z - cz.y) / s};
  } else if (r11 > r22) {
    const float s = det::sqrt(1.0f + r11 - r00 - r22) * 2.0f;
    q = {(cy.x + cx.y) / s, 0.25f * s, (cz.y + cy.z) / s, (cz.x - cx.z) / s};
  } else {
    const float s = det::sqrt(1.0f + r22 - r00 - r11) * 2.0f;
    q = {(cz.x + cx.z) / s, (cz.y + cy.z) / s, 0.25f * s, (cx.y - cy.x) / s};
  }
  out.rotation = normalize(q);
  return out;
}

bool bits_equal(const float* a, const float* b, int count) {
  return std::memcmp(a, b, sizeof(float) * static_cast<size_t>(count)) == 0;
}

}  // namespace animpack
