// Private to the runtime (not installed): inline versions of the hot math, with
// the same IEEE operations in the same order as the public functions in
// math.cpp and clip.cpp, so every result keeps its bits. Only runtime sources
// include this, and they are built with -ffp-contract=off; a public inline
// header would be compiled with the user's flags. GCC/Clang vector extensions:
// each lane is one IEEE single-precision operation.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>

#include "animpack/clip.h"
#include "animpack/math.h"

namespace animpack::kernel {

inline Quat normalize_q(Quat q) {
  const float len = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  if (len == 0.0f) return Quat{};
  const float inv = 1.0f / len;
  return {q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}

inline Quat nlerp(Quat a, Quat b, float t) {
  if (dot(a, b) < 0.0f) b = {-b.x, -b.y, -b.z, -b.w};
  const float u = 1.0f - t;
  return normalize_q(
      Quat{a.x * u + b.x * t, a.y * u + b.y * t, a.z * u + b.z * t, a.w * u + b.w * t});
}

typedef float v4 __attribute__((vector_size(16)));
inline v4 load4(const float *p) {
  v4 r;
  std::memcpy(&r, p, 16);
  return r;
}
inline void store4(float *p, v4 v) { std::memcpy(p, &v, 16); }

inline void mul_affine(const Mat4 &a, const Mat4 &b, Mat4 &r) {
  const v4 a0 = load4(a.m), a1 = load4(a.m + 4), a2 = load4(a.m + 8), a3 = load4(a.m + 12);
  v4 c0 = a0 * b.m[0] + a1 * b.m[1] + a2 * b.m[2];
  v4 c1 = a0 * b.m[4] + a1 * b.m[5] + a2 * b.m[6];
  v4 c2 = a0 * b.m[8] + a1 * b.m[9] + a2 * b.m[10];
  v4 c3 = a0 * b.m[12] + a1 * b.m[13] + a2 * b.m[14] + a3;
  c0[3] = 0.0f;
  c1[3] = 0.0f;
  c2[3] = 0.0f;
  c3[3] = 1.0f;
  store4(r.m, c0);
  store4(r.m + 4, c1);
  store4(r.m + 8, c2);
  store4(r.m + 12, c3);
}

inline void to_matrix(const Trs &trs, Mat4 &r) {
  const Quat &q = trs.rotation;
  const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  const Vec3 &s = trs.scale;
  float *m = r.m;
  m[0] = (1.0f - 2.0f * (yy + zz)) * s.x;
  m[1] = (2.0f * (xy + wz)) * s.x;
  m[2] = (2.0f * (xz - wy)) * s.x;
  m[3] = 0.0f;
  m[4] = (2.0f * (xy - wz)) * s.y;
  m[5] = (1.0f - 2.0f * (xx + zz)) * s.y;
  m[6] = (2.0f * (yz + wx)) * s.y;
  m[7] = 0.0f;
  m[8] = (2.0f * (xz + wy)) * s.z;
  m[9] = (2.0f * (yz - wx)) * s.z;
  m[10] = (1.0f - 2.0f * (xx + yy)) * s.z;
  m[11] = 0.0f;
  m[12] = trs.translation.x;
  m[13] = trs.translation.y;
  m[14] = trs.translation.z;
  m[15] = 1.0f;
}

Vec4 sample_general(const Channel &ch, float t,
                    uint32_t *cursor);  // clip.cpp, the old body

// Index k with times[k] <= t < times[k + 1] (same result as clip.cpp find_key).
inline size_t find_key_fast(const float *times, size_t n, float t, uint32_t *cursor) {
  size_t k = *cursor;
  if (k < n - 1 && times[k] <= t) {
    if (!(times[k + 1] <= t)) return k;  // the common case: the same key
    while (k + 1 < n - 1 && times[k + 1] <= t) {
      ++k;
      if (k - *cursor > 4) {
        k = static_cast<size_t>(std::upper_bound(times + k, times + n, t) - times) - 1;
        break;
      }
    }
  } else {
    k = static_cast<size_t>(std::upper_bound(times, times + n, t) - times) - 1;
  }
  *cursor = static_cast<uint32_t>(k);
  return k;
}

// The value of a LINEAR channel between keys k and k + 1 at fraction u.
inline Vec4 linear_value(const Channel &ch, size_t k, float u) {
  if (ch.property == Property::kRotation) {
    const float *pa = ch.values.data() + 4 * k;
    const Quat a{pa[0], pa[1], pa[2], pa[3]};
    Quat b{pa[4], pa[5], pa[6], pa[7]};
    float d = dot(a, b);
    if (d < 0.0f) {
      b = {-b.x, -b.y, -b.z, -b.w};
      d = -d;
    }
    Quat q;
    if (u <= 0.0f) {
      q = a;
    } else if (u >= 1.0f) {
      q = b;
    } else if (d > 0.9995f) {
      const float s = 1.0f - u;
      q = normalize_q(
          Quat{a.x * s + b.x * u, a.y * s + b.y * u, a.z * s + b.z * u, a.w * s + b.w * u});
    } else {
      q = slerp(a, b, u);
    }
    return {q.x, q.y, q.z, q.w};
  }
  const float *pa = ch.values.data() + 3 * k;
  const float s = 1.0f - u;
  return {pa[0] * s + pa[3] * u, pa[1] * s + pa[4] * u, pa[2] * s + pa[5] * u, 0.0f};
}

// LINEAR and strictly inside the keys: sets *k, *u (and the cursor) and returns
// true.
inline bool linear_interior(const Channel &ch, float t, uint32_t *cursor, size_t *out_k,
                            float *out_u) {
  const size_t n = ch.times.size();
  const float *times = ch.times.data();
  if (ch.interpolation != Interpolation::kLinear || n == 1 || !(t > times[0]) ||
      t >= times[n - 1]) {
    return false;
  }
  const size_t k = find_key_fast(times, n, t, cursor);
  const float t0 = times[k];
  const float td = times[k + 1] - t0;
  *out_u = (t - t0) / td;
  *out_k = k;
  return true;
}

// The LINEAR fast path inline; everything else out of line.
inline Vec4 sample(const Channel &ch, float t, uint32_t *cursor) {
  const size_t n = ch.times.size();
  const float *times = ch.times.data();
  if (ch.interpolation != Interpolation::kLinear || n == 1 || !(t > times[0]) ||
      t >= times[n - 1]) {
    return sample_general(ch, t, cursor);
  }
  const size_t k = find_key_fast(times, n, t, cursor);
  const float t0 = times[k];
  const float td = times[k + 1] - t0;
  const float u = (t - t0) / td;
  if (ch.property == Property::kRotation) {
    const float *pa = ch.values.data() + 4 * k;
    const Quat a{pa[0], pa[1], pa[2], pa[3]};
    Quat b{pa[4], pa[5], pa[6], pa[7]};
    float d = dot(a, b);
    if (d < 0.0f) {
      b = {-b.x, -b.y, -b.z, -b.w};
      d = -d;
    }
    Quat q;
    if (u <= 0.0f) {
      q = a;
    } else if (u >= 1.0f) {
      q = b;
    } else if (d > 0.9995f) {
      const float s = 1.0f - u;  // nlerp(a, b, u): dot(a, b) = d > 0, no negation
      q = normalize_q(
          Quat{a.x * s + b.x * u, a.y * s + b.y * u, a.z * s + b.z * u, a.w * s + b.w * u});
    } else {
      q = slerp(a, b, u);
    }
    return {q.x, q.y, q.z, q.w};
  }
  const float *pa = ch.values.data() + 3 * k;
  const float s = 1.0f - u;
  return {pa[0] * s + pa[3] * u, pa[1] * s + pa[4] * u, pa[2] * s + pa[5] * u, 0.0f};
}

}  // namespace animpack::kernel
