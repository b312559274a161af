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

// One group of four joints between the two passes of blend_poses: the mixed,
// not yet normalised rotations (lane j holds joint j) and their squared lengths.
struct BlendGroup {
  v4 x, y, z, w, len2;
};

// Pass 1 of four joints: the rotations of pa and pb (ten floats per joint, rotation at
// floats 3..6 of each), read and mixed transposed into g; nothing is written.
inline void blend_group_mix(const unsigned char *pa, const unsigned char *pb, v4 u, v4 w,
                            BlendGroup &g) {
  // Rotations, transposed (lane j holds joint j).
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
  // The shorter way: b = -b where the dot product is negative (a sign flip).
  const v4 d = ((ax * bx + ay * by) + az * bz) + aw * bw;
  const v4i flip = (d < splat(0.0f)) & v4i{INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN};
  bx = (v4)((v4i)bx ^ flip);
  by = (v4)((v4i)by ^ flip);
  bz = (v4)((v4i)bz ^ flip);
  bw = (v4)((v4i)bw ^ flip);
  g.x = ax * u + bx * w;
  g.y = ay * u + by * w;
  g.z = az * u + bz * w;
  g.w = aw * u + bw * w;
  g.len2 = ((g.x * g.x + g.y * g.y) + g.z * g.z) + g.w * g.w;
}

// Pass 2 of four joints: the translations and scales, then len = sqrt(len2) and
// q (1 / len) (the identity where len == 0) stored as po's four rotations. Translation
// and scale need no lane crossing: floats 0-2, 7-12, 17-22, 27-32 and 37-39 of the
// group, covered by eight blocks of four (two overlapping pairs write the same values
// twice; the rotation floats that blocks 0 and 36 also cover are rewritten after them).
// All eight blocks are loaded before the first store, and the group's rotations were
// read in pass 1, so po may be pa or pb.
inline void blend_group_normalise(const BlendGroup &g, const unsigned char *pa,
                                  const unsigned char *pb, unsigned char *po, v4 u, v4 w) {
  const v4 len = sqrt4(g.len2);  // started first: the blocks below overlap its latency
  {
    constexpr int kBlocks[8] = {0, 7, 9, 17, 19, 27, 29, 36};
    v4 mixed[8];
    for (int i = 0; i < 8; ++i) {
      mixed[i] = load_at(pa, kBlocks[i]) * u + load_at(pb, kBlocks[i]) * w;
    }
    for (int i = 0; i < 8; ++i) store_at(po, kBlocks[i], mixed[i]);
  }
  const v4 inv = splat(1.0f) / len;
  v4 nx = g.x * inv, ny = g.y * inv, nz = g.z * inv, nw = g.w * inv;
  const v4i zero = len == splat(0.0f);  // these become the identity (0, 0, 0, 1)
  if (any_lane(zero)) {
    nx = select(zero, splat(0.0f), nx);
    ny = select(zero, splat(0.0f), ny);
    nz = select(zero, splat(0.0f), nz);
    nw = select(zero, splat(1.0f), nw);
  }
  // Back to one rotation per register.
  const v4 xy01 = __builtin_shufflevector(nx, ny, 0, 4, 1, 5);  // x0 y0 x1 y1
  const v4 xy23 = __builtin_shufflevector(nx, ny, 2, 6, 3, 7);  // x2 y2 x3 y3
  const v4 zw01 = __builtin_shufflevector(nz, nw, 0, 4, 1, 5);  // z0 w0 z1 w1
  const v4 zw23 = __builtin_shufflevector(nz, nw, 2, 6, 3, 7);  // z2 w2 z3 w3
  store_at(po, 3, __builtin_shufflevector(xy01, zw01, 0, 1, 4, 5));
  store_at(po, 13, __builtin_shufflevector(xy01, zw01, 2, 3, 6, 7));
  store_at(po, 23, __builtin_shufflevector(xy23, zw23, 0, 1, 4, 5));
  store_at(po, 33, __builtin_shufflevector(xy23, zw23, 2, 3, 6, 7));
}

// blend_poses(): out = b over a by w, joint by joint, n joints each. out may be a or b
// (in place) or apart from both. w >= 1 gives b exactly and w <= 0 gives a exactly.
//
// Two passes over chunks of up to kBlendChunk groups of four: the first mixes the
// rotations and keeps their sums in registers' worth of stack, the second takes their
// square roots and divisions and mixes the translations and scales meanwhile. Done
// group by group, each group's division waited on its square root, which waited on its
// mix; in the second pass the groups' square roots and divisions are independent of one
// another and overlap the translation and scale mixes (5-12 % faster than mixing those
// in the first pass, measured in one process with the order alternating).
inline constexpr size_t kBlendChunk = 8;

inline void blend_poses(const Trs *a, const Trs *b, Trs *out, size_t n, float w) {
  if (w >= 1.0f) {
    if (out != b) std::copy(b, b + n, out);
    return;
  }
  if (w <= 0.0f) {
    if (out != a) std::copy(a, a + n, out);
    return;
  }
  const v4 vu = splat(1.0f - w), vw = splat(w);
  const auto *pa = reinterpret_cast<const unsigned char *>(a);
  const auto *pb = reinterpret_cast<const unsigned char *>(b);
  auto *po = reinterpret_cast<unsigned char *>(out);
  constexpr size_t kGroupBytes = 4 * sizeof(Trs);
  const size_t groups = n / 4;
  BlendGroup pending[kBlendChunk];
  for (size_t first = 0; first < groups; first += kBlendChunk) {
    const size_t count = std::min(kBlendChunk, groups - first);
    const size_t at = first * kGroupBytes;
    for (size_t k = 0; k < count; ++k) {
      const size_t o = at + k * kGroupBytes;
      blend_group_mix(pa + o, pb + o, vu, vw, pending[k]);
    }
    for (size_t k = 0; k < count; ++k) {
      const size_t o = at + k * kGroupBytes;
      blend_group_normalise(pending[k], pa + o, pb + o, po + o, vu, vw);
    }
  }
  for (size_t j = 4 * groups; j < n; ++j) {
    Trs r = a[j];
    blend_joint(r, b[j], w);
    out[j] = r;
  }
}

// In place: a = b over a by w.
inline void blend_poses(Trs *a, const Trs *b, size_t n, float w) { blend_poses(a, b, a, n, w); }

}  // namespace animpack::kernel
