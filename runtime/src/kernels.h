// Private to the runtime (not installed): inline versions of the hot math, with
// the same IEEE operations in the same order as the public functions in
// math.cpp and clip.cpp, so every result keeps its bits. Only runtime sources
// include this, and they are built with -ffp-contract=off; a public inline
// header would be compiled with the user's flags.
//
// GCC/Clang vector extensions: a v4 holds four floats and each lane of an
// arithmetic operation is one IEEE single-precision operation, exactly what the
// scalar code does per component. Sums across lanes (dot products, lengths) are
// written out lane by lane in the scalar order, ((x + y) + z) + w. Negation and
// the bit masks below are exact. Nothing here is reassociated or fused.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "animpack/clip.h"
#include "animpack/limits.h"
#include "animpack/math.h"
#include "animpack/scalar.h"
#include "animpack/skeleton.h"

namespace animpack::kernel {

typedef float v4 __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2i64 __attribute__((vector_size(16)));

inline v4 load4(const float *p) {
  v4 r;
  std::memcpy(&r, p, 16);
  return r;
}
inline void store4(float *p, v4 v) { std::memcpy(p, &v, 16); }
inline v4 splat(float f) { return v4{f, f, f, f}; }

// x, y, z of three consecutive floats at p, lane 3 unspecified; reads p[-1] .. p[2],
// so p[-1] must be readable (it is in every use below).
inline v4 load3_after(const float *p) {
  const v4 r = load4(p - 1);
  return __builtin_shufflevector(r, r, 1, 2, 3, 3);
}
// A Vec3 in lanes 0..2, lane 3 zero: an 8-byte and a 4-byte load. Reading exactly
// these 12 bytes never spans an earlier store that only partly overlaps them (which
// would stall store forwarding, as a 16-byte load over a Trs's scale would).
inline v4 load3(const Vec3 &v) {
  int64_t xy;
  std::memcpy(&xy, &v, 8);
  const v4 lo = (v4)(v2i64{xy, 0});
  const v4 hi = {v.z, 0.0f, 0.0f, 0.0f};
  return __builtin_shufflevector(lo, hi, 0, 1, 4, 5);
}
// Lanes 0..2 into a Vec3: an 8-byte and a 4-byte store.
inline void store3(Vec3 &v, v4 x) {
  const int64_t xy = ((v2i64)x)[0];
  std::memcpy(static_cast<void *>(&v), &xy, 8);  // Vec3 is trivially copyable
  v.z = x[2];
}
inline v4 load_q(const Quat &q) {
  v4 r;
  std::memcpy(&r, &q, 16);
  return r;
}
inline void store_q(Quat &q, v4 x) { std::memcpy(static_cast<void *>(&q), &x, 16); }

// ((a0 b0 + a1 b1) + a2 b2) + a3 b3, as dot(Quat, Quat).
inline float dot4(v4 a, v4 b) {
  const v4 p = a * b;
  return ((p[0] + p[1]) + p[2]) + p[3];
}

// normalize(Quat): q / |q|, a zero quaternion becomes the identity.
inline v4 normalize4(v4 q) {
  const float len = std::sqrt(dot4(q, q));
  if (len == 0.0f) return v4{0.0f, 0.0f, 0.0f, 1.0f};
  const float inv = 1.0f / len;
  return q * inv;
}

// nlerp(Quat, Quat, t): the shorter way, normalised.
inline v4 nlerp4(v4 a, v4 b, float t) {
  if (dot4(a, b) < 0.0f) b = -b;
  const float u = 1.0f - t;
  return normalize4(a * u + b * t);
}

// normalize(Vec3) of lanes 0..2 (lane 3 unspecified): len = sqrt((x x + y y) + z z),
// then v (1 / len); a vector whose length is zero comes back unchanged.
inline v4 normalize3(v4 v) {
  const float len = std::sqrt((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]);
  if (len == 0.0f) return v;
  const float inv = 1.0f / len;
  return v * inv;
}

// sqrt of each lane (one IEEE square root per lane, as std::sqrt).
inline v4 sqrt4(v4 x) {
#if defined(__SSE__)
  return (v4)_mm_sqrt_ps((__m128)x);
#else
  return v4{std::sqrt(x[0]), std::sqrt(x[1]), std::sqrt(x[2]), std::sqrt(x[3])};
#endif
}

// True when some lane of m is set.
inline bool any_lane(v4i m) {
#if defined(__SSE__)
  return _mm_movemask_ps((__m128)m) != 0;
#else
  return (m[0] | m[1] | m[2] | m[3]) != 0;
#endif
}

// Lane by lane, a where m is set and b elsewhere (bit masks: exact for every value).
inline v4 select(v4i m, v4 a, v4 b) { return (v4)((m & (v4i)a) | (~m & (v4i)b)); }

// lerp(Vec3, Vec3, t) lane by lane: a (1 - t) + b t.
inline v4 lerp4(v4 a, v4 b, float t) {
  const float u = 1.0f - t;
  return a * u + b * t;
}

// A Quat to and from a v4. The x86-64 ABI passes a Quat by value as two 8-byte
// halves in two registers; g++ spills them and reloads one 16-byte value, a load that
// store forwarding cannot serve (a stall of about 15 cycles per argument). Two 8-byte
// lane loads (movlps, movhps) let it join the halves in registers instead.
inline v4 to_v4(const Quat &q) {
#if defined(__SSE__)
  __m128 r = _mm_setzero_ps();
  r = _mm_loadl_pi(r, reinterpret_cast<const __m64 *>(&q.x));
  r = _mm_loadh_pi(r, reinterpret_cast<const __m64 *>(&q.z));
  return (v4)r;
#else
  return v4{q.x, q.y, q.z, q.w};
#endif
}
inline Quat to_quat(v4 v) { return Quat{v[0], v[1], v[2], v[3]}; }

inline Quat normalize_q(Quat q) { return to_quat(normalize4(to_v4(q))); }
inline Quat nlerp(Quat a, Quat b, float t) { return to_quat(nlerp4(to_v4(a), to_v4(b), t)); }

// Horner coefficients of scalar.cpp's kernel_sin (1/17!, -1/15!, ..., -1/3!) and
// kernel_cos (1/18!, -1/16!, ..., 1/2!), written as scalar.cpp writes them.
inline constexpr double kSinCoefficients[8] = {
    1.0 / 355687428096000.0, -1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800.0,
    1.0 / 362880.0,          -1.0 / 5040.0,          1.0 / 120.0,        -1.0 / 6.0};
inline constexpr double kCosCoefficients[9] = {1.0 / 6402373705728000.0,
                                               -1.0 / 20922789888000.0,
                                               1.0 / 87178291200.0,
                                               -1.0 / 479001600.0,
                                               1.0 / 3628800.0,
                                               -1.0 / 40320.0,
                                               1.0 / 720.0,
                                               -1.0 / 24.0,
                                               1.0 / 2.0};

// det::sin (scalar.cpp) of both lanes of x where 0 < x <= pi/2 + a little (slerp's
// arguments (1 - t) theta and t theta, theta = acos(d) <= pi/2): the same operations lane
// by lane, so the same bits. There reduce()'s k = floor(x 2/pi + 0.5) is 0 or 1, which a
// compare gives exactly, and quadrant 0 takes kernel_sin(r), quadrant 1 kernel_cos(r).
// The two polynomials run as one with per-lane coefficients: kernel_sin's Horner chain
// gets a leading step from p = 0 (0 z + 1/17! is 1/17! exactly), and subtracting a
// coefficient is adding its negation (exact); kernel_sin returns r + (r z) p and
// kernel_cos 1 - z p, that is a + b p with a = r, b = r z or a = 1, b = -z (exact).
// Returns false (out untouched) when a lane is outside (0, 3 pi/4) or NaN: call
// det::sin then. The constants are scalar.cpp's, written the same way.
inline bool sin_half_pi2(v2d x, v2d *out) {
  constexpr double kTwoOverPi = 6.36619772367581382433e-01;
  constexpr double kPio2Part1 = 1.57079632673412561417e+00;
  constexpr double kPio2Part2 = 6.07710050630396597660e-11;
  constexpr double kPio2Part2Tail = 2.02226624879595063154e-21;
  const v2d y = x * v2d{kTwoOverPi, kTwoOverPi} + v2d{0.5, 0.5};
  if (!(x[0] > 0.0 && x[1] > 0.0 && y[0] < 2.0 && y[1] < 2.0)) return false;
  const v2i64 q1 = (v2i64)(y >= v2d{1.0, 1.0});  // all ones where floor(y) = 1 (kernel_cos)
  if ((q1[0] | q1[1]) == 0) {
    // Both lanes kernel_sin (the common case: slerp's theta is mostly well under pi/4),
    // the operations of the general path below with its selections made: k = 0, so r is
    // x (x - 0 is x), and the leading step 0 z + 1/17! is 1/17!.
    const v2d z = x * x;
    v2d p = v2d{kSinCoefficients[0], kSinCoefficients[0]};
    for (int i = 1; i < 8; ++i) p = p * z + v2d{kSinCoefficients[i], kSinCoefficients[i]};
    *out = x + (x * z) * p;
    return true;
  }
  const auto pick = [q1](double cos_c, double sin_c) {
    return (v2d)((q1 & (v2i64)v2d{cos_c, cos_c}) | (~q1 & (v2i64)v2d{sin_c, sin_c}));
  };
  const v2d k = pick(1.0, 0.0);
  const v2d r = ((x - k * kPio2Part1) - k * kPio2Part2) - k * kPio2Part2Tail;
  const v2d z = r * r;
  v2d p = pick(kCosCoefficients[0], 0.0);
  for (int i = 0; i < 8; ++i) p = p * z + pick(kCosCoefficients[i + 1], kSinCoefficients[i]);
  const v2d a = (v2d)((q1 & (v2i64)v2d{1.0, 1.0}) | (~q1 & (v2i64)r));
  const v2d b = (v2d)((q1 & (v2i64)(-z)) | (~q1 & (v2i64)(r * z)));
  *out = a + b * p;
  return true;
}

// det::atan2(y, x) (scalar.cpp) of both lanes where every x and y is finite and > 0
// (slerp's theta: y = sqrt(1 - d^2), x = d): the same operations lane by lane, so the same
// bits. There atan2 is atan_nonnegative(y / x): a = y / x, inverted (1 / a) when a > 1,
// k = floor(8 a + 0.5), r = (a - k/8) / (1 + a k/8), atan(k/8) + kernel_atan(r), and
// pi/2 minus that when inverted. Returns false (out untouched) otherwise: call
// det::atan2 then. The constants are scalar.cpp's, written the same way.
inline bool atan2_positive2(v2d y, v2d x, v2d *out) {
  constexpr double kHalfPi = 1.5707963267948966;
  constexpr double kAtanEighths[9] = {
      0.0,
      0.12435499454676144,
      0.24497866312686414,
      0.35877067027057225,
      0.4636476090008061,
      0.5585993153435624,
      0.6435011087932844,
      0.7188299996216245,
      0.7853981633974483,
  };
  constexpr double kMax = 1.7976931348623157e308;
  if (!(x[0] > 0.0 && x[1] > 0.0 && y[0] > 0.0 && y[1] > 0.0 && x[0] <= kMax && x[1] <= kMax &&
        y[0] <= kMax && y[1] <= kMax)) {
    return false;
  }
  const v2d q = y / x;
  const v2i64 inverted = (v2i64)(q > v2d{1.0, 1.0});
  // The reciprocal only where a lane needs it (slerp's key pairs are mostly less than
  // 90 degrees apart, d > 1/sqrt 2, so q < 1): a division fewer on the common path.
  const v2d a = (inverted[0] | inverted[1]) == 0
                    ? q
                    : (v2d)((inverted & (v2i64)(v2d{1.0, 1.0} / q)) | (~inverted & (v2i64)q));
  const v2d f = a * v2d{8.0, 8.0} + v2d{0.5, 0.5};
  const v2d k = {std::floor(f[0]), std::floor(f[1])};  // 0..8 (a is in [0, 1])
  const v2d c = k / v2d{8.0, 8.0};
  const v2d r = (a - c) / (v2d{1.0, 1.0} + a * c);
  // kernel_atan(r): r - r^3/3 + ... + r^15/15.
  const v2d z = r * r;
  const auto splat2 = [](double d) { return v2d{d, d}; };
  v2d p = splat2(-1.0 / 15.0);
  p = p * z + splat2(1.0 / 13.0);
  p = p * z + splat2(-1.0 / 11.0);
  p = p * z + splat2(1.0 / 9.0);
  p = p * z + splat2(-1.0 / 7.0);
  p = p * z + splat2(1.0 / 5.0);
  p = p * z + splat2(-1.0 / 3.0);
  const v2d table = {kAtanEighths[clamp_to_int64(k[0], 0, 8)],
                     kAtanEighths[clamp_to_int64(k[1], 0, 8)]};
  const v2d t = table + (r + r * z * p);
  *out = (v2d)((inverted & (v2i64)(splat2(kHalfPi) - t)) | (~inverted & (v2i64)t));
  return true;
}

// The wide-angle part of slerp(): a and b (already the shorter way) with
// d = dot(a, b) in [0, 0.9995] and 0 < t < 1.
struct SlerpPair {
  v4 a, b;
  float d, t;
};
inline constexpr int kMaxSlerpBatch = 16;

// slerp() of each of n <= kMaxSlerpBatch wide pairs into out[i]: theta = acos(d),
// formed as atan2(sin, cos) in double, and each lane a w0 + b w1 in double, rounded to
// float, with w0 = sin((1 - t) theta) / sin(theta) and w1 = sin(t theta) / sin(theta).
// Staged over the pairs (every square root, then every atan2, ...) so that the pairs'
// long chains of dependent operations overlap; each pair gets exactly the operations
// it would get alone.
inline void slerp_wide(const SlerpPair *pairs, int n, v4 *out) {
  double s[kMaxSlerpBatch], theta[kMaxSlerpBatch], w0[kMaxSlerpBatch], w1[kMaxSlerpBatch];
  for (int i = 0; i < n; ++i) {
    const double dd = pairs[i].d;
    s[i] = std::sqrt(1.0 - dd * dd);  // det::sqrt is IEEE sqrt
  }
  int j = 0;
  for (; j + 1 < n; j += 2) {  // two pairs at a time (atan2_positive2: det::atan2 per lane)
    const v2d y = {s[j], s[j + 1]};
    const v2d x = {static_cast<double>(pairs[j].d), static_cast<double>(pairs[j + 1].d)};
    v2d th;
    if (!atan2_positive2(y, x, &th)) th = v2d{det::atan2(y[0], x[0]), det::atan2(y[1], x[1])};
    theta[j] = th[0];
    theta[j + 1] = th[1];
  }
  for (; j < n; ++j) theta[j] = det::atan2(s[j], static_cast<double>(pairs[j].d));
  for (int i = 0; i < n; ++i) {
    // Both sines in one go (sin_half_pi2: det::sin lane by lane; theta <= pi/2 here).
    const v2d x = {(1.0 - pairs[i].t) * theta[i], pairs[i].t * theta[i]};
    v2d sn;
    if (!sin_half_pi2(x, &sn)) sn = v2d{det::sin(x[0]), det::sin(x[1])};
    const v2d w = sn / v2d{s[i], s[i]};
    w0[i] = w[0];
    w1[i] = w[1];
  }
  for (int i = 0; i < n; ++i) {
    const v4 a = pairs[i].a, b = pairs[i].b;
    const v2d a_lo = {a[0], a[1]}, a_hi = {a[2], a[3]};
    const v2d b_lo = {b[0], b[1]}, b_hi = {b[2], b[3]};
    const v2d lo = a_lo * w0[i] + b_lo * w1[i];
    const v2d hi = a_hi * w0[i] + b_hi * w1[i];
    out[i] = v4{static_cast<float>(lo[0]), static_cast<float>(lo[1]), static_cast<float>(hi[0]),
                static_cast<float>(hi[1])};
  }
}

// One pair. Out of line, so that its callers stay small enough to inline where the
// wide path is the rare one.
[[gnu::noinline]] inline v4 slerp_wide(v4 a, v4 b, float d, float t) {
  const SlerpPair pair{a, b, d, t};
  v4 q;
  slerp_wide(&pair, 1, &q);
  return q;
}

// ---------------------------------------------------------------------------------------
// Matrices.

// The four columns of an affine matrix (last row 0 0 0 1), one per register.
struct Columns {
  v4 c0, c1, c2, c3;
};
inline Columns load_columns(const Mat4 &m) {
  return {load4(m.m), load4(m.m + 4), load4(m.m + 8), load4(m.m + 12)};
}
inline void store_columns(const Columns &c, Mat4 &r) {
  store4(r.m, c.c0);
  store4(r.m + 4, c.c1);
  store4(r.m + 8, c.c2);
  store4(r.m + 12, c.c3);
}

// Sets lane 3 of the columns (the last row) to 0 0 0 1, with bit masks rather than
// lane inserts, which cost shuffles.
inline void set_last_row(Columns &c) {
  const v4i xyz = {-1, -1, -1, 0};
  const v4i one_w = {0, 0, 0, 0x3f800000};  // 1.0f in lane 3
  c.c0 = (v4)((v4i)c.c0 & xyz);
  c.c1 = (v4)((v4i)c.c1 & xyz);
  c.c2 = (v4)((v4i)c.c2 & xyz);
  c.c3 = (v4)(((v4i)c.c3 & xyz) | one_w);
}

// a * b for affine a (as columns) and affine b, where b(k) is element k of b's
// column-major m[] (k = 0..2, 4..6, 8..10, 12..14 are used). Each element of the upper
// 3x4 block is ((a0 b0 + a1 b1) + a2 b2) (+ a3 for the translation), as operator*
// sums it; the last row is set to 0 0 0 1.
template <typename B>
inline Columns mul_affine_at(const Columns &a, const B &b) {
  Columns r;
  r.c0 = a.c0 * b(0) + a.c1 * b(1) + a.c2 * b(2);
  r.c1 = a.c0 * b(4) + a.c1 * b(5) + a.c2 * b(6);
  r.c2 = a.c0 * b(8) + a.c1 * b(9) + a.c2 * b(10);
  r.c3 = a.c0 * b(12) + a.c1 * b(13) + a.c2 * b(14) + a.c3;
  set_last_row(r);
  return r;
}

// Lane l of x in every lane. An integer shuffle (pshufd on x86), which more ports
// can run than a float shuffle; the bits move unchanged.
template <int l>
inline v4 lane(v4 x) {
  const v4i i = (v4i)x;
  return (v4)__builtin_shufflevector(i, i, l, l, l, l);
}

// mul_affine_at() of a Mat4 b: the same operations, b's elements spread from its
// columns.
inline Columns mul_affine(const Columns &a, const Mat4 &b) {
  const Columns bc = load_columns(b);
  Columns r;
  r.c0 = a.c0 * lane<0>(bc.c0) + a.c1 * lane<1>(bc.c0) + a.c2 * lane<2>(bc.c0);
  r.c1 = a.c0 * lane<0>(bc.c1) + a.c1 * lane<1>(bc.c1) + a.c2 * lane<2>(bc.c1);
  r.c2 = a.c0 * lane<0>(bc.c2) + a.c1 * lane<1>(bc.c2) + a.c2 * lane<2>(bc.c2);
  r.c3 = a.c0 * lane<0>(bc.c3) + a.c1 * lane<1>(bc.c3) + a.c2 * lane<2>(bc.c3) + a.c3;
  set_last_row(r);
  return r;
}

inline void mul_affine(const Mat4 &a, const Mat4 &b, Mat4 &r) {
  store_columns(mul_affine(load_columns(a), b), r);
}

// The matrix T * R * S (public to_matrix()).
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

// The rotation-scale block of to_matrix() for four transforms at once:
// out[k][j] = to_matrix(*t[j]).m[k / 3 * 4 + k % 3] (k = 0..8: m[0..2], m[4..6],
// m[8..10]), from the same operations lane by lane.
inline void rotation_scale4(const Trs *const t[4], float out[9][4]) {
  // Transpose the four rotations and scales into x, y, z, w and sx, sy, sz.
  const v4 q0 = load_q(t[0]->rotation), q1 = load_q(t[1]->rotation);
  const v4 q2 = load_q(t[2]->rotation), q3 = load_q(t[3]->rotation);
  const v4 q01lo = __builtin_shufflevector(q0, q1, 0, 4, 1, 5);
  const v4 q23lo = __builtin_shufflevector(q2, q3, 0, 4, 1, 5);
  const v4 q01hi = __builtin_shufflevector(q0, q1, 2, 6, 3, 7);
  const v4 q23hi = __builtin_shufflevector(q2, q3, 2, 6, 3, 7);
  const v4 x = __builtin_shufflevector(q01lo, q23lo, 0, 1, 4, 5);
  const v4 y = __builtin_shufflevector(q01lo, q23lo, 2, 3, 6, 7);
  const v4 z = __builtin_shufflevector(q01hi, q23hi, 0, 1, 4, 5);
  const v4 w = __builtin_shufflevector(q01hi, q23hi, 2, 3, 6, 7);
  const v4 s0 = load3(t[0]->scale), s1 = load3(t[1]->scale);
  const v4 s2 = load3(t[2]->scale), s3 = load3(t[3]->scale);
  const v4 s01lo = __builtin_shufflevector(s0, s1, 0, 4, 1, 5);
  const v4 s23lo = __builtin_shufflevector(s2, s3, 0, 4, 1, 5);
  const v4 s01hi = __builtin_shufflevector(s0, s1, 2, 6, 3, 7);
  const v4 s23hi = __builtin_shufflevector(s2, s3, 2, 6, 3, 7);
  const v4 sx = __builtin_shufflevector(s01lo, s23lo, 0, 1, 4, 5);
  const v4 sy = __builtin_shufflevector(s01lo, s23lo, 2, 3, 6, 7);
  const v4 sz = __builtin_shufflevector(s01hi, s23hi, 0, 1, 4, 5);
  // to_matrix(), lane by lane.
  const v4 xx = x * x, yy = y * y, zz = z * z;
  const v4 xy = x * y, xz = x * z, yz = y * z;
  const v4 wx = w * x, wy = w * y, wz = w * z;
  const v4 one = splat(1.0f), two = splat(2.0f);
  store4(out[0], (one - two * (yy + zz)) * sx);
  store4(out[1], (two * (xy + wz)) * sx);
  store4(out[2], (two * (xz - wy)) * sx);
  store4(out[3], (two * (xy - wz)) * sy);
  store4(out[4], (one - two * (xx + zz)) * sy);
  store4(out[5], (two * (yz + wx)) * sy);
  store4(out[6], (two * (xz + wy)) * sz);
  store4(out[7], (two * (yz - wx)) * sz);
  store4(out[8], (one - two * (xx + yy)) * sz);
}

// local_to_global then global_to_palette in one pass (skeleton.cpp): the same
// products in the same order, so the same bits, and a parent computed just before
// its child stays in registers. Spans are skeleton.joint_count() long.
void local_to_palette(const Skeleton &skeleton, std::span<const Trs> locals,
                      std::span<Mat4> out_globals, std::span<Mat4> out_palette);

// ---------------------------------------------------------------------------------------
// Sampling (clip.cpp holds the general sampler; these are its LINEAR fast path).

Vec4 sample_general(const Channel &ch, float t,
                    uint32_t *cursor);  // clip.cpp: every case, out of line

// Index k with times[k] <= t < times[k + 1]; 0 <= k < n - 1. Needs times[0] < t <
// times[n - 1]. *cursor is the hint and comes back as k: forward playback usually
// stays on the same key or moves to the next one; a jump of more than four keys, or a
// hint past t, is repaired by a binary search.
inline size_t find_key_fast(const float *times, size_t n, float t, uint32_t *cursor) {
  size_t k = *cursor;
  if (k < n - 1 && times[k] <= t) {
    if (!(times[k + 1] <= t)) return k;  // the common case: the same key
    while (k + 1 < n - 1 && times[k + 1] <= t) {
      ++k;
      if (k - *cursor > 4) {  // a long jump: search the rest
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

// LINEAR and strictly inside the keys: sets *out_k, *out_u (and the cursor) as the
// general sampler would and returns true; otherwise returns false and changes nothing.
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

// Translation or scale between the keys at p (x y z) and p + 3 at fraction u, s = 1 - u:
// a s + b u per lane, as lerp(). Lane 3 is unspecified.
inline v4 linear_vec3(const float *p, float u, float s) {
  const v4 a = load4(p);            // p[0..2], and p[3] (the next key) in lane 3
  const v4 b = load3_after(p + 3);  // p[3..5], reading from p[2]: never past the keys
  return a * s + b * u;
}

// The rotation keys at p (x y z w) and p + 4 of a LINEAR channel, the shorter way (b
// negated when their dot product is negative), and that dot product (then >= 0).
inline SlerpPair rotation_keys(const float *p, float u) {
  SlerpPair r{load4(p), load4(p + 4), 0.0f, u};
  r.d = dot4(r.a, r.b);
  if (r.d < 0.0f) {
    r.b = -r.b;
    r.d = -r.d;
  }
  return r;
}

// slerp() of rotation_keys() at fraction u (s = 1 - u) where it needs no
// trigonometry: the ends, and nlerp when the dot product exceeds 0.9995. Returns false
// (and leaves *out alone) for a wide pair, which needs slerp_wide().
inline bool rotation_narrow(const SlerpPair &r, float u, float s, v4 *out) {
  if (u <= 0.0f) {
    *out = r.a;
  } else if (u >= 1.0f) {
    *out = r.b;
  } else if (r.d > 0.9995f) {
    *out = normalize4(r.a * s + r.b * u);  // nlerp: the dot is already > 0
  } else {
    return false;
  }
  return true;
}

// Rotation between the keys at p and p + 4 at fraction u, s = 1 - u: slerp() (glTF).
inline v4 linear_rotation(const float *p, float u, float s) {
  const SlerpPair r = rotation_keys(p, u);
  v4 q;
  if (rotation_narrow(r, u, s, &q)) return q;
  return slerp_wide(r.a, r.b, r.d, u);
}

// The value of a LINEAR channel between keys k and k + 1 at fraction u.
inline Vec4 linear_value(const Channel &ch, size_t k, float u) {
  const float s = 1.0f - u;
  if (ch.property == Property::kRotation) {
    const v4 q = linear_rotation(ch.values.data() + 4 * k, u, s);
    return {q[0], q[1], q[2], q[3]};
  }
  const v4 v = linear_vec3(ch.values.data() + 3 * k, u, s);
  return {v[0], v[1], v[2], 0.0f};
}

// The LINEAR fast path inline; everything else out of line.
inline Vec4 sample(const Channel &ch, float t, uint32_t *cursor) {
  size_t k;
  float u;
  if (!linear_interior(ch, t, cursor, &k, &u)) return sample_general(ch, t, cursor);
  return linear_value(ch, k, u);
}

}  // namespace animpack::kernel
