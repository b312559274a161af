// Private to the runtime (not installed): the whole-pose blend behind blend_poses()
// (animpack/layers.h) and Animator::evaluate()'s mixes, four joints per register.
//
// Per joint it does exactly what Animator's blend_trs() does (kernels.h's lerp4 and
// nlerp4): translation and scale a (1 - w) + b w per component; rotation b negated when
// ((ax bx + ay by) + az bz) + aw bw < 0, then q = a (1 - w) + b w and, with
// len = sqrt(((qx qx + qy qy) + qz qz) + qw qw), the identity where len == 0 and
// q (1 / len) elsewhere. The SoA form holds one joint per lane, so each lane performs
// those IEEE operations in that order: the same bits. Negation is a sign-bit flip and
// the selections are bit masks, both exact.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "animpack/math.h"
#include "kernels.h"

namespace animpack::kernel {

static_assert(sizeof(Trs) == 40, "a Trs is ten packed floats (translation, rotation, scale)");

// blend_trs() of one joint, in place (the scalar tail and reference).
inline void blend_joint(Trs &a, const Trs &b, float w) {
  store3(a.translation, lerp4(load3(a.translation), load3(b.translation), w));
  store_q(a.rotation, nlerp4(load_q(a.rotation), load_q(b.rotation), w));
  store3(a.scale, lerp4(load3(a.scale), load3(b.scale), w));
}

// Float i of the 40-byte-per-joint block at p (memcpy: no aliasing or alignment
// assumptions).
inline v4 load_at(const unsigned char *p, int i) {
  v4 r;
  std::memcpy(&r, p + 4 * i, 16);
  return r;
}
inline void store_at(unsigned char *p, int i, v4 v) { std::memcpy(p + 4 * i, &v, 16); }

// Four joints at pa (in place) and pb: ten floats per joint, rotation at floats 3..6 of
// each.
inline void blend_joints4(unsigned char *pa, const unsigned char *pb, v4 u, v4 w) {
  // Rotations, transposed (lane j holds joint j), read before anything is written.
  const v4 a0 = load_at(pa, 3), a1 = load_at(pa, 13), a2 = load_at(pa, 23), a3 = load_at(pa, 33);
  const v4 b0 = load_at(pb, 3), b1 = load_at(pb, 13), b2 = load_at(pb, 23), b3 = load_at(pb, 33);
  const v4 a01lo = __builtin_shufflevector(a0, a1, 0, 4, 1, 5);
  const v4 a23lo = __builtin_shufflevector(a2, a3, 0, 4, 1, 5);
  const v4 a01hi = __builtin_shufflevector(a0, a1, 2, 6, 3, 7);
  const v4 a23hi = __builtin_shufflevector(a2, a3, 2, 6, 3, 7);
  const v4 ax = __builtin_shufflevector(a01lo, a23lo, 0, 1, 4, 5);
  const v4 ay = __builtin_shufflevector(a01lo, a23lo, 2, 3, 6, 7);
  const v4 az = __builtin_shufflevector(a01hi, a23hi, 0, 1, 4, 5);
  const v4 aw = __builtin_shufflevector(a01hi, a23hi, 2, 3, 6, 7);
  const v4 b01lo = __builtin_shufflevector(b0, b1, 0, 4, 1, 5);
  const v4 b23lo = __builtin_shufflevector(b2, b3, 0, 4, 1, 5);
  const v4 b01hi = __builtin_shufflevector(b0, b1, 2, 6, 3, 7);
  const v4 b23hi = __builtin_shufflevector(b2, b3, 2, 6, 3, 7);
  v4 bx = __builtin_shufflevector(b01lo, b23lo, 0, 1, 4, 5);
  v4 by = __builtin_shufflevector(b01lo, b23lo, 2, 3, 6, 7);
  v4 bz = __builtin_shufflevector(b01hi, b23hi, 0, 1, 4, 5);
  v4 bw = __builtin_shufflevector(b01hi, b23hi, 2, 3, 6, 7);
  // Translation and scale need no lane crossing: every float of the block is lerped in
  // place (the rotation floats too; they are overwritten below).
  for (int i = 0; i < 10; ++i) {
    store_at(pa, 4 * i, load_at(pa, 4 * i) * u + load_at(pb, 4 * i) * w);
  }
  // The shorter way: b = -b where the dot product is negative (a sign flip).
  const v4 d = ((ax * bx + ay * by) + az * bz) + aw * bw;
  const v4i flip = (d < splat(0.0f)) & v4i{INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN};
  bx = (v4)((v4i)bx ^ flip);
  by = (v4)((v4i)by ^ flip);
  bz = (v4)((v4i)bz ^ flip);
  bw = (v4)((v4i)bw ^ flip);
  const v4 qx = ax * u + bx * w, qy = ay * u + by * w;
  const v4 qz = az * u + bz * w, qw = aw * u + bw * w;
  const v4 len = sqrt4(((qx * qx + qy * qy) + qz * qz) + qw * qw);
  const v4 inv = splat(1.0f) / len;
  const v4i zero = len == splat(0.0f);  // these become the identity (0, 0, 0, 1)
  const v4 nx = (v4)(~zero & (v4i)(qx * inv));
  const v4 ny = (v4)(~zero & (v4i)(qy * inv));
  const v4 nz = (v4)(~zero & (v4i)(qz * inv));
  const v4 nw = (v4)((zero & (v4i)splat(1.0f)) | (~zero & (v4i)(qw * inv)));
  // Back to one rotation per register.
  const v4 xy01 = __builtin_shufflevector(nx, ny, 0, 4, 1, 5);  // x0 y0 x1 y1
  const v4 xy23 = __builtin_shufflevector(nx, ny, 2, 6, 3, 7);  // x2 y2 x3 y3
  const v4 zw01 = __builtin_shufflevector(nz, nw, 0, 4, 1, 5);  // z0 w0 z1 w1
  const v4 zw23 = __builtin_shufflevector(nz, nw, 2, 6, 3, 7);  // z2 w2 z3 w3
  store_at(pa, 3, __builtin_shufflevector(xy01, zw01, 0, 1, 4, 5));
  store_at(pa, 13, __builtin_shufflevector(xy01, zw01, 2, 3, 6, 7));
  store_at(pa, 23, __builtin_shufflevector(xy23, zw23, 0, 1, 4, 5));
  store_at(pa, 33, __builtin_shufflevector(xy23, zw23, 2, 3, 6, 7));
}

// blend_poses(): b over a by w, joint by joint (a.size() == b.size()). w >= 1 gives b
// exactly and w <= 0 (or an empty pose) leaves a as it is.
inline void blend_poses(Trs *a, const Trs *b, size_t n, float w) {
  if (w >= 1.0f) {
    std::copy(b, b + n, a);
    return;
  }
  if (w <= 0.0f) return;
  const v4 vu = splat(1.0f - w), vw = splat(w);
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    blend_joints4(reinterpret_cast<unsigned char *>(a + j),
                  reinterpret_cast<const unsigned char *>(b + j), vu, vw);
  }
  for (; j < n; ++j) blend_joint(a[j], b[j], w);
}

}  // namespace animpack::kernel
