// Private to the runtime (not installed): the whole-pose blend behind blend_poses()
// (animpack/layers.h) and Animator::evaluate()'s mixes, four joints per register.
//
// Per joint it does exactly what Animator's blend_trs() does (kernels.h's lerp4 and
// nlerp4): translation and scale a (1 - w) + b w per component; rotation b negated when
// ((ax bx + ay by) + az bz) + aw bw < 0, then q = a (1 - w) + b w and, with
// len = sqrt(((qx qx + qy qy) + qz qz) + qw qw), the identity where len == 0 and
// q (1 / len) elsewhere. The SoA form holds one joint per lane, so each lane performs
// those IEEE operations in that order: the same bits. The negation is applied as a
// sign-bit flip of w in the lanes that need it: (-b) w and b (-w) are the same IEEE
// product, and b holds no NaN there (its dot product compared less than zero). The
// zero-length identity is written over the lanes whose squared length is zero, and
// len == 0 exactly when len2 == 0.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Two floats at p + 4 lo and two at p + 4 hi, as one register (lo in lanes 0-1), and
// its converse. With SSE these are movsd + movhps and movlps + movhps: half of a 4x4
// transpose done by the load and store units, with no register copies.
typedef float v2 __attribute__((vector_size(8)));
inline v4 load_halves(const unsigned char *p, int lo, int hi) {
#if defined(__SSE2__)
  const __m128 l = _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double *>(p + 4 * lo)));
  return (v4)_mm_loadh_pi(l, reinterpret_cast<const __m64 *>(p + 4 * hi));
#else
  v2 l, h;
  std::memcpy(&l, p + 4 * lo, 8);
  std::memcpy(&h, p + 4 * hi, 8);
  return __builtin_shufflevector(l, h, 0, 1, 2, 3);
#endif
}
inline void store_halves(unsigned char *p, int lo, int hi, v4 v) {
#if defined(__SSE2__)
  _mm_storel_pi(reinterpret_cast<__m64 *>(p + 4 * lo), (__m128)v);
  _mm_storeh_pi(reinterpret_cast<__m64 *>(p + 4 * hi), (__m128)v);
#else
  const v2 l = __builtin_shufflevector(v, v, 0, 1), h = __builtin_shufflevector(v, v, 2, 3);
  std::memcpy(p + 4 * lo, &l, 8);
  std::memcpy(p + 4 * hi, &h, 8);
#endif
}

// Lane by lane, x where x < y, else y (minps: y where either is NaN, so a NaN in x never
// replaces a zero already in y).
inline v4 min4(v4 x, v4 y) {
#if defined(__SSE__)
  return (v4)_mm_min_ps((__m128)x, (__m128)y);
#else
  return x < y ? x : y;
#endif
}

// One group of four joints between the two passes of blend_poses: the mixed,
// not yet normalised rotations (lane j holds joint j) and their squared lengths.
struct BlendGroup {
  v4 x, y, z, w, len2;
};

// Pass 1 of four joints: the rotations of pa and pb (ten floats per joint, rotation at
// floats 3..6 of each), read and mixed transposed into g; nothing is written. least
// takes the lane-wise minimum of the squared lengths (a zero there means some joint
// of the chunk needs the identity).
inline void blend_group_mix(const unsigned char *pa, const unsigned char *pb, v4 u, v4 w,
                            BlendGroup &g, v4 &least) {
  // (x y) of joints 0 and 1, (z w) of joints 0 and 1, the same of joints 2 and 3.
  const v4 alo01 = load_halves(pa, 3, 13), ahi01 = load_halves(pa, 5, 15);
  const v4 alo23 = load_halves(pa, 23, 33), ahi23 = load_halves(pa, 25, 35);
  const v4 blo01 = load_halves(pb, 3, 13), bhi01 = load_halves(pb, 5, 15);
  const v4 blo23 = load_halves(pb, 23, 33), bhi23 = load_halves(pb, 25, 35);
  const v4 ax = __builtin_shufflevector(alo01, alo23, 0, 2, 4, 6);
  const v4 ay = __builtin_shufflevector(alo01, alo23, 1, 3, 5, 7);
  const v4 az = __builtin_shufflevector(ahi01, ahi23, 0, 2, 4, 6);
  const v4 aw = __builtin_shufflevector(ahi01, ahi23, 1, 3, 5, 7);
  const v4 bx = __builtin_shufflevector(blo01, blo23, 0, 2, 4, 6);
  const v4 by = __builtin_shufflevector(blo01, blo23, 1, 3, 5, 7);
  const v4 bz = __builtin_shufflevector(bhi01, bhi23, 0, 2, 4, 6);
  const v4 bw = __builtin_shufflevector(bhi01, bhi23, 1, 3, 5, 7);
  // The shorter way: b's weight negated where the dot product is negative.
  const v4 d = ((ax * bx + ay * by) + az * bz) + aw * bw;
  const v4i flip = (d < splat(0.0f)) & v4i{INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN};
  const v4 wb = (v4)((v4i)w ^ flip);
  g.x = ax * u + bx * wb;
  g.y = ay * u + by * wb;
  g.z = az * u + bz * wb;
  g.w = aw * u + bw * wb;
  g.len2 = ((g.x * g.x + g.y * g.y) + g.z * g.z) + g.w * g.w;
  least = min4(g.len2, least);
}

// Pass 2 of four joints: the translations and scales, then len = sqrt(len2) and
// q (1 / len) stored as po's four rotations (the zero-length lanes are blend_poses'
// to fix). Translation and scale need no lane crossing: floats 0-2, 7-12, 17-22, 27-32
// and 37-39 of the group, covered by eight blocks of four (two overlapping pairs write
// the same values twice; the rotation floats that blocks 0 and 36 also cover are
// rewritten after them). All eight blocks are loaded before the first store, and the
// group's rotations were read in pass 1, so po may be pa or pb.
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
  const v4 nx = g.x * inv, ny = g.y * inv, nz = g.z * inv, nw = g.w * inv;
  // Back to one rotation per joint: (x y) and (z w) pairs, stored by halves.
  store_halves(po, 3, 13, __builtin_shufflevector(nx, ny, 0, 4, 1, 5));
  store_halves(po, 23, 33, __builtin_shufflevector(nx, ny, 2, 6, 3, 7));
  store_halves(po, 5, 15, __builtin_shufflevector(nz, nw, 0, 4, 1, 5));
  store_halves(po, 25, 35, __builtin_shufflevector(nz, nw, 2, 6, 3, 7));
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
    v4 least = splat(1.0f);
    for (size_t k = 0; k < count; ++k) {
      const size_t o = at + k * kGroupBytes;
      blend_group_mix(pa + o, pb + o, vu, vw, pending[k], least);
    }
    for (size_t k = 0; k < count; ++k) {
      const size_t o = at + k * kGroupBytes;
      blend_group_normalise(pending[k], pa + o, pb + o, po + o, vu, vw);
    }
    if (any_lane(least == splat(0.0f))) {  // rare: the identity where len2 == 0
      for (size_t k = 0; k < count; ++k) {
        for (int j = 0; j < 4; ++j) {
          if (pending[k].len2[j] == 0.0f) out[4 * (first + k) + j].rotation = Quat{};
        }
      }
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
