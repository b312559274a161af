#include "animpack/skinning.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "morph_internal.h"

namespace animpack {
namespace {

using kernel::v4;

// Four vertices at a time and the rest one by one (skin_one), the same operations per
// vertex either way. A group reads every vertex's inputs before it writes that vertex's
// outputs (the morph path skins the output streams in place). Each vertex's blend stays
// in registers. Normals and tangents are normalised four at once, with lane i holding
// vertex i: len = sqrt((x x + y y) + z z), one vector square root and one division, then
// each coordinate times its vertex's 1 / len, a zero length keeping the vector as it is:
// normalize3's operations, lane by lane. Two ways of doing a group:
// - Positions, with or without normals (skin_group): each vertex transforms its own
//   position and normal, the lanes of its weights and coordinates broadcast with pshufd,
//   and the outputs are stored overlapping (store_overlapping4). Normals are stored
//   unnormalised and normalised in place a group later, in the same loop
//   (normalize_vec3x4). The square root and the division of a group that was stored
//   earlier depend on nothing the loop is computing, so they overlap the next group's
//   blends. (Normalising each group as it is skinned ends every group in a chain of
//   dependent operations: 4 % slower on the Intel guest of docs/performance.md. A second
//   loop after every 256 vertices, the way before, leaves that loop waiting on the square
//   root unit, which on a Zen 5 core accepts one sqrtps every 4 to 5 cycles: there it was
//   0-2 % slower.)
// - With tangents (skin_group_rows): the four blends are transposed once (GroupMatrix,
//   24 shuffles), and the positions, normals and tangents are transformed as rows, lane i
//   being vertex i: no broadcasts, 9 products for a row set instead of 12, and the
//   normalisation on rows that are already there. On the Zen 5 guest this measured
//   0.92-0.93 of the first way with tangents, but 1.03 with normals alone and 1.12 with
//   positions alone (the transposes cost more than the broadcasts they save), so those
//   keep the first way. Both give the same bits.
static_assert(sizeof(Vec3) == 12 && sizeof(Vec4) == 16 && sizeof(JointIndices) == 8);

// Raw stream pointers of one skin() call (checked lengths, n vertices each).
struct Streams {
  const Vec3* positions;
  const Vec3* normals;
  const Vec4* tangents;
  const JointIndices* joints;
  const Vec4* weights;
  const JointIndices* joints1;
  const Vec4* weights1;
  Vec3* out_positions;
  Vec3* out_normals;
  Vec4* out_tangents;
};

// 16 bytes at p (any alignment) and back.
inline v4 load_bytes(const void* p) {
  v4 r;
  std::memcpy(&r, p, 16);
  return r;
}
inline void store_bytes(void* p, v4 x) { std::memcpy(p, &x, 16); }

template <int kLane>
inline v4 broadcast(v4 x) {
#if defined(__SSE2__)
  return (v4)_mm_shuffle_epi32((__m128i)x, kLane * 0x55);
#else
  return __builtin_shufflevector(x, x, kLane, kLane, kLane, kLane);
#endif
}

// A vertex's blend of its palette entries: ((m0 w0 + m1 w1) + m2 w2) + m3 w3 per element,
// joints in order 0, 1, 2, 3, in kN vectors (a Mat4's four columns, a PackedMatrix's
// three). The weights' lanes are broadcast, each product the same IEEE multiplication
// as by the scalar weight.
template <int kN>
struct Blended {
  v4 c[kN];
};
template <typename P>
inline constexpr int kVectors = static_cast<int>(sizeof(P) / 16);
static_assert(kVectors<Mat4> == 4);

template <typename P>
inline Blended<kVectors<P>> blend_v(const P* palette, const JointIndices& j, v4 w) {
  const float* p0 = palette[j.j[0]].m;
  const float* p1 = palette[j.j[1]].m;
  const float* p2 = palette[j.j[2]].m;
  const float* p3 = palette[j.j[3]].m;
  const v4 w0 = broadcast<0>(w), w1 = broadcast<1>(w), w2 = broadcast<2>(w), w3 = broadcast<3>(w);
  Blended<kVectors<P>> b;
  for (int k = 0; k < kVectors<P>; ++k) {
    b.c[k] = kernel::load4(p0 + 4 * k) * w0;
    b.c[k] = b.c[k] + kernel::load4(p1 + 4 * k) * w1;
    b.c[k] = b.c[k] + kernel::load4(p2 + 4 * k) * w2;
    b.c[k] = b.c[k] + kernel::load4(p3 + 4 * k) * w3;
  }
  return b;
}

// Influences 4 to 7 added to the blend of 0 to 3, in order. A weight of exactly 0 leaves
// the sum as it is (selected, not added: +0 would turn a -0 sum into +0), so a vertex
// whose second set weighs 0 gets the bits of its first four. When all four are non-zero
// (the common case of a vertex with eight influences) every select would keep the sum,
// so the sums are added plainly; when all four are zero nothing changes.
template <typename P>
inline void blend_more_v(Blended<kVectors<P>>& b, const P* palette, const JointIndices& j, v4 w) {
  using kernel::v4i;
  const v4i nonzero = w != kernel::splat(0.0f);
  if (!kernel::any_lane(nonzero)) return;
  const bool all = !kernel::any_lane(~nonzero);
  const v4 ws[4] = {broadcast<0>(w), broadcast<1>(w), broadcast<2>(w), broadcast<3>(w)};
  for (int i = 0; i < 4; ++i) {
    const float* p = palette[j.j[i]].m;
    if (all) {
      for (int k = 0; k < kVectors<P>; ++k) b.c[k] = b.c[k] + kernel::load4(p + 4 * k) * ws[i];
    } else {
      const int32_t bits = nonzero[i];
      const v4i keep_sum = {bits, bits, bits, bits};
      for (int k = 0; k < kVectors<P>; ++k) {
        b.c[k] = kernel::select(keep_sum, b.c[k] + kernel::load4(p + 4 * k) * ws[i], b.c[k]);
      }
    }
  }
}

// m * (p, 1) and m * (d, 0) in lanes 0..2, summed x, y, z (then translation) in order.
inline v4 transform_point(const Blended<4>& m, v4 x, v4 y, v4 z) {
  return m.c[0] * x + m.c[1] * y + m.c[2] * z + m.c[3];
}
template <int kN>
inline v4 transform_direction(const Blended<kN>& m, v4 x, v4 y, v4 z) {
  return m.c[0] * x + m.c[1] * y + m.c[2] * z;
}

// The packed palette: the upper 3x4 block of a matrix in 12 floats, columns 0, 1 and 2
// each with one coordinate of the translation after it: (m0 m1 m2 m12), (m4 m5 m6 m13),
// (m8 m9 m10 m14). A vertex's blend is then three vectors of four products (12 where
// the columns take 16, whose lane 3 is the last row, 0 0 0 1); each element is still
// ((m0 w0 + m1 w1) + m2 w2) + m3 w3. Columns 0..2 are the blend's vectors as they are
// (lane 3 is not used), and the translation is gathered from their lanes 3.
// An entry takes 64 bytes (the last 16 unused): a joint index times 64 is one shift, where
// times 48 is a shift and a lea. Measured on the Intel guest, on top of the overlapping
// stores: positions alone 0.86 of the 48-byte entries, with normals 0.99-1.00; on the Zen
// 5 guest 0.99-1.01 (docs/performance.md).
struct alignas(64) PackedMatrix {
  float m[12];
  float unused[4];
};
template <>
inline constexpr int kVectors<PackedMatrix> = 3;
static_assert(sizeof(PackedMatrix) == 64);

// The packed palette is used when the joints that vertices name are at most
// kPackedJoints (their packed matrices are on the stack: 64 bytes a joint, 16 KiB) and
// the mesh has at least kPackedVerticesPerJoint vertices a joint (packing a matrix costs
// about what one vertex saves); otherwise the groups read the palette's columns. Both
// give the same bits. Measured in one process against the columns, the order
// alternating (docs/performance.md): on the Intel guest positions + normals 0.93-0.94,
// with tangents 0.95, positions alone 1.00-1.03; on the Zen 5 guest positions alone
// 0.87-0.90.
inline constexpr size_t kPackedJoints = 256;
inline constexpr size_t kPackedVerticesPerJoint = 4;

inline void pack_palette(const Mat4* palette, size_t count, PackedMatrix* out) {
  for (size_t j = 0; j < count; ++j) {
    const float* m = palette[j].m;
    const v4 t = kernel::load4(m + 12);
    const kernel::v4i xyz = {-1, -1, -1, 0};
    for (int k = 0; k < 3; ++k) {
      const v4 c = kernel::load4(m + 4 * k);
      const float tk = t[k];
      kernel::store4(out[j].m + 4 * k, kernel::select(xyz, c, v4{tk, tk, tk, tk}));
    }
  }
}

inline v4 transform_point(const Blended<3>& m, v4 x, v4 y, v4 z) {
#if defined(__SSE2__)
  const __m128 t01 = _mm_shuffle_ps((__m128)m.c[0], (__m128)m.c[1], _MM_SHUFFLE(3, 3, 3, 3));
  const v4 t = (v4)_mm_shuffle_ps(t01, (__m128)m.c[2], _MM_SHUFFLE(3, 3, 2, 0));
#else
  const v4 t = {m.c[0][3], m.c[1][3], m.c[2][3], 0.0f};
#endif
  return m.c[0] * x + m.c[1] * y + m.c[2] * z + t;
}

// Four consecutive Vec3s from lanes 0..2 of four vectors, 48 bytes: vectors 0, 1 and 2
// as 16-byte stores at floats 0, 3 and 6 (the lane 3 of each is overwritten by the next
// store, so the order matters), vector 3 as 8 + 4 bytes. One shuffle for four vertices,
// where storing them without overlap (16 + 8 and 8 + 16 bytes a pair) takes five, and
// nothing is written outside the 48 bytes. Measured on the Intel guest with normals, the
// raw normals and the positions stored this way: 0.96-0.98 of the pairs; on the Zen 5
// guest 0.99-1.01 (docs/performance.md).
inline void store_vec3_wide(Vec3* out, v4 a) { store_bytes(out, a); }  // 16 bytes
inline void store_vec3_last(Vec3* out, v4 a) {                         // 12 bytes
  unsigned char* p = reinterpret_cast<unsigned char*>(out);
#if defined(__SSE2__)
  _mm_storel_pi(reinterpret_cast<__m64*>(p), (__m128)a);
  _mm_store_ss(reinterpret_cast<float*>(p + 8), _mm_movehl_ps((__m128)a, (__m128)a));
#else
  std::memcpy(p, &a, 12);
#endif
}
inline void store_overlapping4(Vec3* out, const v4 a[4]) {
  for (int i = 0; i < 3; ++i) store_vec3_wide(out + i, a[i]);
  store_vec3_last(out + 3, a[3]);
}

// Rows x, y, z of four vectors (lane i = vector i).
struct Rows {
  v4 x, y, z;
};
// 1 / len of each lane's vector, len = sqrt((x x + y y) + z z), and where len == 0
// (those vectors keep their input).
struct InverseLengths {
  v4 inv;
  kernel::v4i zero;
};
inline InverseLengths inverse_lengths(const Rows& r) {
  const v4 len = kernel::sqrt4((r.x * r.x + r.y * r.y) + r.z * r.z);
  return {kernel::splat(1.0f) / len, len == kernel::splat(0.0f)};
}

// Rows x, y, z of four consecutive Vec3s loaded as 48 bytes a, b, c. With SSE2 written
// as shufps: g++ 12 compiles the same lane patterns through __builtin_shufflevector into
// scalar moves through general registers (about 20 instructions instead of six).
inline Rows rows3(v4 a, v4 b, v4 c) {
  // a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3
#if defined(__SSE2__)
  const __m128 t1 = _mm_shuffle_ps((__m128)b, (__m128)c, _MM_SHUFFLE(1, 0, 3, 2));  // x2 y2 z2 x3
  const __m128 t2 = _mm_shuffle_ps((__m128)a, (__m128)b, _MM_SHUFFLE(1, 0, 2, 1));  // y0 z0 y1 z1
  const __m128 t3 = _mm_shuffle_ps((__m128)b, (__m128)c, _MM_SHUFFLE(2, 2, 3, 3));  // y2 y2 y3 y3
  return {(v4)_mm_shuffle_ps((__m128)a, t1, _MM_SHUFFLE(3, 0, 3, 0)),
          (v4)_mm_shuffle_ps(t2, t3, _MM_SHUFFLE(2, 0, 2, 0)),
          (v4)_mm_shuffle_ps(t2, (__m128)c, _MM_SHUFFLE(3, 0, 3, 1))};
#else
  const v4 x01 = __builtin_shufflevector(a, b, 0, 3, 6, 6);  // x0 x1 x2 .
  const v4 yz0 = __builtin_shufflevector(a, b, 1, 4, 7, 7);  // y0 y1 y2 .
  const v4 zz0 = __builtin_shufflevector(a, b, 2, 5, 5, 5);  // z0 z1 . .
  return {__builtin_shufflevector(x01, c, 0, 1, 2, 5), __builtin_shufflevector(yz0, c, 0, 1, 2, 6),
          __builtin_shufflevector(zz0, c, 0, 1, 4, 7)};
#endif
}

// normalize3 of four consecutive Vec3s, in place: the lengths four at once from the
// rows, then each of the 12 floats times its vertex's 1 / len where they lie, so that
// nothing is transposed back (3 shuffles of 1 / len instead of a 10-shuffle store).
inline void normalize_vec3x4(Vec3* io) {
  unsigned char* p = reinterpret_cast<unsigned char*>(io);
  const v4 a = load_bytes(p), b = load_bytes(p + 16), c = load_bytes(p + 32);
  const InverseLengths l = inverse_lengths(rows3(a, b, c));
  // Vertex of each float: a 0 0 0 1, b 1 1 2 2, c 2 3 3 3.
  v4 na = a * __builtin_shufflevector(l.inv, l.inv, 0, 0, 0, 1);
  v4 nb = b * __builtin_shufflevector(l.inv, l.inv, 1, 1, 2, 2);
  v4 nc = c * __builtin_shufflevector(l.inv, l.inv, 2, 3, 3, 3);
  if (kernel::any_lane(l.zero)) {
    na = kernel::select(__builtin_shufflevector(l.zero, l.zero, 0, 0, 0, 1), a, na);
    nb = kernel::select(__builtin_shufflevector(l.zero, l.zero, 1, 1, 2, 2), b, nb);
    nc = kernel::select(__builtin_shufflevector(l.zero, l.zero, 2, 3, 3, 3), c, nc);
  }
  store_bytes(p, na);
  store_bytes(p + 16, nb);
  store_bytes(p + 32, nc);
}

// Vertex v + kI of a group: its position and normal are in pos and nrm (four Vec3s as
// three vectors, coordinate c of vertex i at float 3 i + c); its skinned position and
// normal (unnormalised) go to op and on[kI].
template <int kI, bool kNormals, bool kEight, typename P>
inline void skin_lane(const Streams& s, const P* palette, size_t v, const v4 pos[3],
                      const v4 nrm[3], v4 op[4], v4 on[4]) {
  constexpr int kX = 3 * kI, kY = 3 * kI + 1, kZ = 3 * kI + 2;
  auto m = blend_v(palette, s.joints[v + kI], load_bytes(s.weights + v + kI));
  if constexpr (kEight) {
    blend_more_v(m, palette, s.joints1[v + kI], load_bytes(s.weights1 + v + kI));
  }
  op[kI] = transform_point(m, broadcast<kX % 4>(pos[kX / 4]), broadcast<kY % 4>(pos[kY / 4]),
                           broadcast<kZ % 4>(pos[kZ / 4]));
  if constexpr (kNormals) {
    on[kI] = transform_direction(m, broadcast<kX % 4>(nrm[kX / 4]), broadcast<kY % 4>(nrm[kY / 4]),
                                 broadcast<kZ % 4>(nrm[kZ / 4]));
  }
}

// Vertices v .. v + 3: positions stored, normals returned unnormalised in on.
template <bool kNormals, bool kEight, typename P>
inline void skin_group(const Streams& s, const P* palette, size_t v, v4 on[4]) {
  // The positions and normals of the four first (three 16-byte loads per stream): every
  // input is read before the output it may share (morph) is written.
  v4 pos[3] = {}, nrm[3] = {};
  const unsigned char* ps = reinterpret_cast<const unsigned char*>(s.positions + v);
  for (int i = 0; i < 3; ++i) pos[i] = load_bytes(ps + 16 * i);
  if constexpr (kNormals) {
    const unsigned char* ns = reinterpret_cast<const unsigned char*>(s.normals + v);
    for (int i = 0; i < 3; ++i) nrm[i] = load_bytes(ns + 16 * i);
  }
  // Each position is stored as soon as it is known, in store_overlapping4's order
  // (store_overlapping4 after the four lanes measured 1.04 with positions alone on the
  // Intel guest: the four results wait in registers).
  v4 op[4] = {};
  Vec3* po = s.out_positions + v;
  skin_lane<0, kNormals, kEight>(s, palette, v, pos, nrm, op, on);
  store_vec3_wide(po, op[0]);
  skin_lane<1, kNormals, kEight>(s, palette, v, pos, nrm, op, on);
  store_vec3_wide(po + 1, op[1]);
  skin_lane<2, kNormals, kEight>(s, palette, v, pos, nrm, op, on);
  store_vec3_wide(po + 2, op[2]);
  skin_lane<3, kNormals, kEight>(s, palette, v, pos, nrm, op, on);
  store_vec3_last(po + 3, op[3]);
}

// Four vectors as the rows of a 4x4 matrix, transposed: out[r] lane i = lane r of v[i].
inline void transpose4x4(v4 a, v4 b, v4 c, v4 d, v4 out[4]) {
#if defined(__SSE2__)
  const __m128 ab_lo = _mm_unpacklo_ps((__m128)a, (__m128)b);  // a0 b0 a1 b1
  const __m128 cd_lo = _mm_unpacklo_ps((__m128)c, (__m128)d);  // c0 d0 c1 d1
  const __m128 ab_hi = _mm_unpackhi_ps((__m128)a, (__m128)b);  // a2 b2 a3 b3
  const __m128 cd_hi = _mm_unpackhi_ps((__m128)c, (__m128)d);  // c2 d2 c3 d3
  out[0] = (v4)_mm_movelh_ps(ab_lo, cd_lo);
  out[1] = (v4)_mm_movehl_ps(cd_lo, ab_lo);
  out[2] = (v4)_mm_movelh_ps(ab_hi, cd_hi);
  out[3] = (v4)_mm_movehl_ps(cd_hi, ab_hi);
#else
  const v4 ab_lo = __builtin_shufflevector(a, b, 0, 4, 1, 5);
  const v4 cd_lo = __builtin_shufflevector(c, d, 0, 4, 1, 5);
  const v4 ab_hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
  const v4 cd_hi = __builtin_shufflevector(c, d, 2, 6, 3, 7);
  out[0] = __builtin_shufflevector(ab_lo, cd_lo, 0, 1, 4, 5);
  out[1] = __builtin_shufflevector(ab_lo, cd_lo, 2, 3, 6, 7);
  out[2] = __builtin_shufflevector(ab_hi, cd_hi, 0, 1, 4, 5);
  out[3] = __builtin_shufflevector(ab_hi, cd_hi, 2, 3, 6, 7);
#endif
}

// A group's four blended matrices, transposed: m[k][r] lane i is element r (x, y, z) of
// column k of vertex i's blend, t[r] lane i the translation's element r.
struct GroupMatrix {
  v4 m[3][3];
  v4 t[3];
};
inline GroupMatrix transpose_blends(const Blended<3> b[4]) {
  // A PackedMatrix vector k holds column k's x, y, z and the translation's element k.
  GroupMatrix g;
  for (int k = 0; k < 3; ++k) {
    v4 r[4];
    transpose4x4(b[0].c[k], b[1].c[k], b[2].c[k], b[3].c[k], r);
    for (int e = 0; e < 3; ++e) g.m[k][e] = r[e];
    g.t[k] = r[3];
  }
  return g;
}
inline GroupMatrix transpose_blends(const Blended<4> b[4]) {
  GroupMatrix g;
  for (int k = 0; k < 4; ++k) {
    v4 r[4];
    transpose4x4(b[0].c[k], b[1].c[k], b[2].c[k], b[3].c[k], r);
    v4* dst = k < 3 ? g.m[k] : g.t;
    for (int e = 0; e < 3; ++e) dst[e] = r[e];
  }
  return g;
}

// m * (p, 1) and m * (d, 0) of four vertices at once, each element summed x, y, z (then
// the translation) in order: transform_point's and transform_direction's operations.
inline Rows point_rows(const GroupMatrix& g, const Rows& p) {
  Rows o;
  v4* out[3] = {&o.x, &o.y, &o.z};
  for (int e = 0; e < 3; ++e) {
    *out[e] = ((g.m[0][e] * p.x + g.m[1][e] * p.y) + g.m[2][e] * p.z) + g.t[e];
  }
  return o;
}
inline Rows direction_rows(const GroupMatrix& g, const Rows& d) {
  Rows o;
  v4* out[3] = {&o.x, &o.y, &o.z};
  for (int e = 0; e < 3; ++e) *out[e] = (g.m[0][e] * d.x + g.m[1][e] * d.y) + g.m[2][e] * d.z;
  return o;
}

// normalize3 of the four vectors of r, lane by lane (a zero length keeps the vector).
inline Rows normalized(const Rows& r) {
  const InverseLengths l = inverse_lengths(r);
  Rows n{r.x * l.inv, r.y * l.inv, r.z * l.inv};
  if (kernel::any_lane(l.zero)) {
    n.x = kernel::select(l.zero, r.x, n.x);
    n.y = kernel::select(l.zero, r.y, n.y);
    n.z = kernel::select(l.zero, r.z, n.z);
  }
  return n;
}

// Rows x, y, z (lane i = vertex i) as four consecutive Vec3s, 48 bytes in three stores
// (rows3 backwards).
inline void store_rows3(Vec3* out, const Rows& r) {
  unsigned char* p = reinterpret_cast<unsigned char*>(out);
#if defined(__SSE2__)
  const __m128 x = (__m128)r.x, y = (__m128)r.y, z = (__m128)r.z;
  const __m128 xy01 = _mm_unpacklo_ps(x, y);                                   // x0 y0 x1 y1
  const __m128 xy23 = _mm_unpackhi_ps(x, y);                                   // x2 y2 x3 y3
  const __m128 zx = _mm_shuffle_ps(z, x, _MM_SHUFFLE(1, 1, 0, 0));             // z0 z0 x1 x1
  const __m128 yz = _mm_shuffle_ps(y, z, _MM_SHUFFLE(1, 1, 1, 1));             // y1 y1 z1 z1
  const __m128 s = _mm_shuffle_ps(xy23, z, _MM_SHUFFLE(3, 2, 3, 2));           // x3 y3 z2 z3
  store_bytes(p, (v4)_mm_shuffle_ps(xy01, zx, _MM_SHUFFLE(2, 0, 1, 0)));       // x0 y0 z0 x1
  store_bytes(p + 16, (v4)_mm_shuffle_ps(yz, xy23, _MM_SHUFFLE(1, 0, 2, 0)));  // y1 z1 x2 y2
  store_bytes(p + 32, (v4)_mm_shuffle_ps(s, s, _MM_SHUFFLE(3, 1, 0, 2)));      // z2 x3 y3 z3
#else
  store_bytes(p, v4{r.x[0], r.y[0], r.z[0], r.x[1]});
  store_bytes(p + 16, v4{r.y[1], r.z[1], r.x[2], r.y[2]});
  store_bytes(p + 32, v4{r.z[2], r.x[3], r.y[3], r.z[3]});
#endif
}

// Vertices v .. v + 3 as rows, for a set of streams with tangents: every input of the
// four is read before an output is written. Positions and tangents (normalised, each
// with its input's w) are stored; the normals come back unnormalised, as rows.
template <bool kNormals, bool kEight, typename P>
inline Rows skin_group_rows(const Streams& s, const P* palette, size_t v) {
  Blended<kVectors<P>> b[4];
  for (int i = 0; i < 4; ++i) {
    b[i] = blend_v(palette, s.joints[v + i], load_bytes(s.weights + v + i));
    if constexpr (kEight) {
      blend_more_v(b[i], palette, s.joints1[v + i], load_bytes(s.weights1 + v + i));
    }
  }
  const GroupMatrix g = transpose_blends(b);
  const unsigned char* ps = reinterpret_cast<const unsigned char*>(s.positions + v);
  const Rows pos = rows3(load_bytes(ps), load_bytes(ps + 16), load_bytes(ps + 32));
  Rows nrm{};
  if constexpr (kNormals) {
    const unsigned char* ns = reinterpret_cast<const unsigned char*>(s.normals + v);
    nrm = rows3(load_bytes(ns), load_bytes(ns + 16), load_bytes(ns + 32));
  }
  v4 tan[4], in_tan[4];
  for (int i = 0; i < 4; ++i) in_tan[i] = load_bytes(s.tangents + v + i);
  transpose4x4(in_tan[0], in_tan[1], in_tan[2], in_tan[3], tan);  // rows x, y, z, w
  store_rows3(s.out_positions + v, point_rows(g, pos));
  const Rows t = normalized(direction_rows(g, Rows{tan[0], tan[1], tan[2]}));
  v4 out_tan[4];
  transpose4x4(t.x, t.y, t.z, tan[3], out_tan);  // each tangent with its input's w
  for (int i = 0; i < 4; ++i) store_bytes(s.out_tangents + v + i, out_tan[i]);
  if constexpr (kNormals) return direction_rows(g, nrm);
  return Rows{};
}

// Skins vertex v (the last n % 4) with the columns: a group's operations for one vertex.
// The normal and tangent come back unnormalised (lanes 0..2).
template <bool kNormals, bool kTangents, bool kEight>
inline void skin_one(const SkinInput& in, const Mat4* palette, const SkinOutput& out, size_t v,
                     v4* out_normal, v4* out_tangent) {
  Blended<4> m = blend_v(palette, in.joints[v], load_bytes(&in.weights[v]));
  if constexpr (kEight) blend_more_v(m, palette, in.joints1[v], load_bytes(&in.weights1[v]));
  const Vec3& p = in.positions[v];
  kernel::store3(out.positions[v],
                 transform_point(m, kernel::splat(p.x), kernel::splat(p.y), kernel::splat(p.z)));
  if constexpr (kNormals) {
    const Vec3& d = in.normals[v];
    *out_normal =
        transform_direction(m, kernel::splat(d.x), kernel::splat(d.y), kernel::splat(d.z));
  }
  if constexpr (kTangents) {
    const Vec4& t = in.tangents[v];
    *out_tangent =
        transform_direction(m, kernel::splat(t.x), kernel::splat(t.y), kernel::splat(t.z));
  }
}

inline void store_tangent(Vec4& out, v4 xyz, float w) { out = {xyz[0], xyz[1], xyz[2], w}; }

// Without tangents, a group's raw normals are stored when the next group has been
// skinned, and normalised kNormaliseLag vertices (one group) after they are stored:
// then the 16-byte loads of normalize_vec3x4, which straddle the overlapping stores of
// store_overlapping4, read stores that have left the store queue.
inline constexpr size_t kNormaliseLag = 4;

// Skins every vertex: groups of four, then the last n % 4 one by one.
template <bool kNormals, bool kTangents, bool kEight, typename P>
void skin_vertices(const SkinInput& in, const Mat4* palette, const P* group_palette,
                   const SkinOutput& out) {
  const size_t n = in.positions.size();
  const Streams s{in.positions.data(), in.normals.data(),  in.tangents.data(), in.joints.data(),
                  in.weights.data(),   in.joints1.data(),  in.weights1.data(), out.positions.data(),
                  out.normals.data(),  out.tangents.data()};
  const size_t grouped = n - n % 4;
  if constexpr (kTangents) {
    // A group's normals are normalised and stored after the next group is skinned.
    Rows pending{};
    for (size_t v = 0; v < grouped; v += 4) {
      const Rows raw = skin_group_rows<kNormals, kEight>(s, group_palette, v);
      if constexpr (kNormals) {
        if (v != 0) store_rows3(s.out_normals + v - 4, normalized(pending));
        pending = raw;
      }
    }
    if constexpr (kNormals) {
      if (grouped > 0) store_rows3(s.out_normals + grouped - 4, normalized(pending));
    }
  } else if constexpr (kNormals) {
    // Each group's raw normals are stored after the next group's inputs are read (a
    // store to an output 4 KiB away from an input the next group reads would otherwise
    // hold that read back).
    v4 pending[4] = {};
    for (size_t v = 0; v < grouped; v += 4) {
      v4 on[4] = {};
      skin_group<kNormals, kEight>(s, group_palette, v, on);
      if (v != 0) {
        store_overlapping4(s.out_normals + v - 4, pending);
        if (v >= 4 + kNormaliseLag) normalize_vec3x4(s.out_normals + v - 4 - kNormaliseLag);
      }
      for (int i = 0; i < 4; ++i) pending[i] = on[i];
    }
    // The last group's raw normals, then the groups the loop has not normalised yet.
    if (grouped > 0) {
      store_overlapping4(s.out_normals + grouped - 4, pending);
      const size_t from = grouped >= 4 + kNormaliseLag ? grouped - 4 - kNormaliseLag : 0;
      for (size_t v = from; v < grouped; v += 4) normalize_vec3x4(s.out_normals + v);
    }
  } else {
    for (size_t v = 0; v < grouped; v += 4) skin_group<false, kEight>(s, group_palette, v, nullptr);
  }
  for (size_t v = grouped; v < n; ++v) {
    v4 nrm, tan;
    skin_one<kNormals, kTangents, kEight>(in, palette, out, v, &nrm, &tan);
    if constexpr (kNormals) kernel::store3(out.normals[v], kernel::normalize3(nrm));
    if constexpr (kTangents)
      store_tangent(out.tangents[v], kernel::normalize3(tan), in.tangents[v].w);
  }
}

// skin_vertices with the streams given, the groups reading group_palette.
template <bool kNormals, bool kTangents, typename P>
void skin_with(const SkinInput& in, const Mat4* palette, const P* group_palette,
               const SkinOutput& out, bool eight) {
  if (eight) {
    skin_vertices<kNormals, kTangents, true>(in, palette, group_palette, out);
  } else {
    skin_vertices<kNormals, kTangents, false>(in, palette, group_palette, out);
  }
}
template <typename P>
void skin_dispatch(const SkinInput& in, const Mat4* palette, const P* group_palette,
                   const SkinOutput& out, bool eight, bool normals, bool tangents) {
  if (normals && tangents) {
    skin_with<true, true>(in, palette, group_palette, out, eight);
  } else if (normals) {
    skin_with<true, false>(in, palette, group_palette, out, eight);
  } else if (tangents) {
    skin_with<false, true>(in, palette, group_palette, out, eight);
  } else {
    skin_with<false, false>(in, palette, group_palette, out, eight);
  }
}

// The largest joint index a stream names (0 for an empty stream): the maximum of its 4 n
// indices taken as one flat run of uint16s. With SSE2 16 bytes (two vertices) at a time,
// four accumulators, each index biased by 0x8000 so that the signed pmaxsw orders them
// as unsigned values. (Written per vertex, max(max(j0, j1), max(j2, j3)), g++ 12
// de-interleaves the four indices with punpcklwd/punpckhwd first: 7.5 instructions a
// vertex, about a tenth of a skinning call with normals; this is under 2.)
uint16_t largest_index(std::span<const JointIndices> joints) {
  const size_t n = joints.size();
  uint16_t largest = 0;
  size_t v = 0;
#if defined(__SSE2__)
  const unsigned char* p = reinterpret_cast<const unsigned char*>(joints.data());
  const __m128i bias = _mm_set1_epi16(INT16_MIN);
  __m128i m[4] = {bias, bias, bias, bias};  // biased zeros
  for (; v + 8 <= n; v += 8) {
    for (int k = 0; k < 4; ++k) {
      __m128i x;
      std::memcpy(&x, p + 8 * v + 16 * k, 16);
      m[k] = _mm_max_epi16(m[k], _mm_xor_si128(x, bias));
    }
  }
  __m128i r = _mm_max_epi16(_mm_max_epi16(m[0], m[1]), _mm_max_epi16(m[2], m[3]));
  r = _mm_max_epi16(r, _mm_shuffle_epi32(r, _MM_SHUFFLE(1, 0, 3, 2)));
  r = _mm_max_epi16(r, _mm_shuffle_epi32(r, _MM_SHUFFLE(2, 3, 0, 1)));
  r = _mm_max_epi16(r, _mm_shufflelo_epi16(r, _MM_SHUFFLE(2, 3, 0, 1)));
  largest = static_cast<uint16_t>(_mm_extract_epi16(r, 0) ^ 0x8000);
#endif
  for (; v < n; ++v) {
    for (uint16_t j : joints[v].j) largest = std::max(largest, j);
  }
  return largest;
}

// The first vertex that names a joint at or past joint_count, as an error (its first four
// influences, or influences 5 to 8 when `second`); searched for only when the largest
// index is out of range.
Error bad_joint(std::span<const JointIndices> joints, size_t joint_count, bool second) {
  size_t v = 0;
  while (v + 1 < joints.size() && std::all_of(std::begin(joints[v].j), std::end(joints[v].j),
                                              [&](uint16_t j) { return j < joint_count; })) {
    ++v;
  }
  const JointIndices& j = joints[v];
  return Error::make(ErrorCode::kBadJointIndex,
                     "vertex %zu names joint %u, %u, %u or %u%s of a %zu-joint palette", v,
                     unsigned{j.j[0]}, unsigned{j.j[1]}, unsigned{j.j[2]}, unsigned{j.j[3]},
                     second ? " (influences 5 to 8)" : "", joint_count);
}

}  // namespace

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
  // The largest joint index first; only when it is out of range, the search for the
  // first vertex that names it.
  const uint16_t largest = largest_index(in.joints);
  if (n > 0 && largest >= joint_count) return bad_joint(in.joints, joint_count, false);
  const bool eight = !in.joints1.empty();
  uint16_t largest1 = 0;
  if (eight) {
    if (in.joints1.size() != n || in.weights1.size() != n) {
      return Error::make(ErrorCode::kSizeMismatch,
                         "skin streams differ in length (%zu positions, %zu joints1, %zu weights1)",
                         n, in.joints1.size(), in.weights1.size());
    }
    largest1 = largest_index(in.joints1);
    if (n > 0 && largest1 >= joint_count) return bad_joint(in.joints1, joint_count, true);
  } else if (!in.weights1.empty()) {
    return Error::make(ErrorCode::kSizeMismatch, "skin weights1 (%zu) without joints1",
                       in.weights1.size());
  }
  SkinInput src = in;
  if (in.morph.targets > 0) {
    if (Result<void> r = morph_check(in.morph, in.morph_weights, n); !r) return r;
  }
  // All-zero weights add nothing: skin the base vertices themselves.
  const bool morphs = std::any_of(in.morph_weights.begin(), in.morph_weights.end(),
                                  [](float w) { return w != 0.0f; });
  if (in.morph.targets > 0 && morphs) {
    // Morph into the output streams first (no renormalisation), then skin them in place:
    // each vertex is read before it is written.
    // A stream without deltas is skinned from the input as it is.
    if (!in.morph.positions.empty()) {
      std::copy(in.positions.begin(), in.positions.end(), out.positions.begin());
      (void)morph::add_deltas(out.positions, in.morph.positions, in.morph_weights);
      src.positions = out.positions;
    }
    if (normals && !in.morph.normals.empty()) {
      std::copy(in.normals.begin(), in.normals.end(), out.normals.begin());
      (void)morph::add_deltas(out.normals, in.morph.normals, in.morph_weights);
      src.normals = out.normals;
    }
    if (tangents && !in.morph.tangents.empty()) {
      std::copy(in.tangents.begin(), in.tangents.end(), out.tangents.begin());
      (void)morph::add_tangent_deltas(out.tangents, in.morph.tangents, in.morph_weights);
      src.tangents = out.tangents;
    }
  } else if (in.morph.targets == 0 && (!in.morph_weights.empty() || !in.morph.positions.empty() ||
                                       !in.morph.normals.empty() || !in.morph.tangents.empty())) {
    return Error::make(ErrorCode::kSizeMismatch, "skin morph streams without targets (%zu weights)",
                       in.morph_weights.size());
  }
  const Mat4* p = palette.data();
  // The packed palette (PackedMatrix) over the joints that vertices name, for every set
  // of streams. With positions alone it measured 1-3 % slower on the Intel guest (the two
  // shuffles that gather the translation cost more there than the four products and
  // three additions save) and 10-13 % faster on the Zen 5 guest (docs/performance.md).
  const size_t named = n == 0 ? 0 : size_t{std::max(largest, largest1)} + 1;
  if (named <= kPackedJoints && n / kPackedVerticesPerJoint >= named) {
    PackedMatrix packed[kPackedJoints];  // only the first `named` are written and read
    pack_palette(p, named, packed);
    skin_dispatch(src, p, static_cast<const PackedMatrix*>(packed), out, eight, normals, tangents);
  } else {
    skin_dispatch(src, p, p, out, eight, normals, tangents);
  }
  return ok();
}

}  // namespace animpack
