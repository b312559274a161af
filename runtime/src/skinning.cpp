#include "animpack/skinning.h"

#include <algorithm>
#include <cmath>

#include "kernels.h"
#include "morph_internal.h"

namespace animpack {
namespace {

using kernel::v4;

// The blended upper 3x4 block of one vertex's four palette matrices, as columns:
// ((m0 w0 + m1 w1) + m2 w2) + m3 w3 per element, joints in order 0, 1, 2, 3.
struct Blend {
  v4 c0, c1, c2, c3;
};

inline Blend blend(const Mat4* palette, const JointIndices& j, const Vec4& w) {
  const float* p0 = palette[j.j[0]].m;
  const float* p1 = palette[j.j[1]].m;
  const float* p2 = palette[j.j[2]].m;
  const float* p3 = palette[j.j[3]].m;
  v4 c[4];
  for (int k = 0; k < 4; ++k) {
    c[k] = kernel::load4(p0 + 4 * k) * w.x;
    c[k] = c[k] + kernel::load4(p1 + 4 * k) * w.y;
    c[k] = c[k] + kernel::load4(p2 + 4 * k) * w.z;
    c[k] = c[k] + kernel::load4(p3 + 4 * k) * w.w;
  }
  return {c[0], c[1], c[2], c[3]};
}

// Influences 4 to 7 added to the blend of 0 to 3, in order; a weight of exactly 0 leaves
// the sum as it is (selected, not added: +0 would turn a -0 sum into +0), so a vertex
// whose second set weighs 0 gets the bits of its first four.
inline void blend_more(Blend& b, const Mat4* palette, const JointIndices& j, const Vec4& w) {
  using kernel::v4i;
  const float ws[4] = {w.x, w.y, w.z, w.w};
  v4 c[4] = {b.c0, b.c1, b.c2, b.c3};
  for (int i = 0; i < 4; ++i) {
    const float* p = palette[j.j[i]].m;
    const int32_t bits = ws[i] != 0.0f ? -1 : 0;
    const v4i keep_sum = {bits, bits, bits, bits};
    for (int k = 0; k < 4; ++k) {
      const v4 sum = c[k] + kernel::load4(p + 4 * k) * ws[i];
      c[k] = (v4)(((v4i)sum & keep_sum) | ((v4i)c[k] & ~keep_sum));
    }
  }
  b = {c[0], c[1], c[2], c[3]};
}

// m * (p, 1) and m * (d, 0) in lanes 0..2, summed x, y, z (then translation) in order.
inline v4 skin_point(const Blend& m, const Vec3& p) {
  return m.c0 * p.x + m.c1 * p.y + m.c2 * p.z + m.c3;
}
inline v4 skin_direction(const Blend& m, float x, float y, float z) {
  return m.c0 * x + m.c1 * y + m.c2 * z;
}

// Skins vertex v; the normal and tangent come back unnormalised (lanes 0..2).
template <bool kNormals, bool kTangents, bool kEight>
inline void skin_one(const SkinInput& in, const Mat4* palette, const SkinOutput& out, size_t v,
                     v4* out_normal, v4* out_tangent) {
  Blend m = blend(palette, in.joints[v], in.weights[v]);
  if constexpr (kEight) blend_more(m, palette, in.joints1[v], in.weights1[v]);
  kernel::store3(out.positions[v], skin_point(m, in.positions[v]));
  if constexpr (kNormals) {
    const Vec3& n = in.normals[v];
    *out_normal = skin_direction(m, n.x, n.y, n.z);
  }
  if constexpr (kTangents) {
    const Vec4& t = in.tangents[v];
    *out_tangent = skin_direction(m, t.x, t.y, t.z);
  }
}

inline void store_tangent(Vec4& out, v4 xyz, float w) { out = {xyz[0], xyz[1], xyz[2], w}; }

// Skins every vertex. With tangents, four vertices at a time first, so that their
// normals and tangents are normalised together (kernel::normalize3x4: one vector
// square root and one division for four vectors); the rest, and every vertex when
// there are no tangents, one by one (kernel::normalize3). Batching measured faster
// with two streams to normalise and slightly slower with normals alone
// (docs/performance.md).
template <bool kNormals, bool kTangents, bool kEight>
void skin_vertices(const SkinInput& in, const Mat4* palette, const SkinOutput& out) {
  const size_t n = in.positions.size();
  size_t v = 0;
  if constexpr (kTangents) {
    for (; v + 4 <= n; v += 4) {
      v4 nrm[4], tan[4];
      for (size_t i = 0; i < 4; ++i) {
        skin_one<kNormals, kTangents, kEight>(in, palette, out, v + i, &nrm[i], &tan[i]);
      }
      if constexpr (kNormals) {
        kernel::normalize3x4(nrm);
        for (size_t i = 0; i < 4; ++i) kernel::store3(out.normals[v + i], nrm[i]);
      }
      kernel::normalize3x4(tan);
      for (size_t i = 0; i < 4; ++i) {
        store_tangent(out.tangents[v + i], tan[i], in.tangents[v + i].w);
      }
    }
  }
  for (; v < n; ++v) {
    v4 nrm, tan;
    skin_one<kNormals, kTangents, kEight>(in, palette, out, v, &nrm, &tan);
    if constexpr (kNormals) kernel::store3(out.normals[v], kernel::normalize3(nrm));
    if constexpr (kTangents)
      store_tangent(out.tangents[v], kernel::normalize3(tan), in.tangents[v].w);
  }
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
  // The largest joint index first (a branch-free pass the compiler vectorises); only
  // when it is out of range, the search for the first vertex that names it.
  uint16_t largest = 0;
  for (const JointIndices& j : in.joints) {
    largest = std::max(largest, std::max(std::max(j.j[0], j.j[1]), std::max(j.j[2], j.j[3])));
  }
  for (size_t v = 0; largest >= joint_count && v < n; ++v) {
    const JointIndices& j = in.joints[v];
    if (j.j[0] >= joint_count || j.j[1] >= joint_count || j.j[2] >= joint_count ||
        j.j[3] >= joint_count) {
      return Error::make(ErrorCode::kBadJointIndex,
                         "vertex %zu names joint %u, %u, %u or %u of a %zu-joint palette", v,
                         unsigned{j.j[0]}, unsigned{j.j[1]}, unsigned{j.j[2]}, unsigned{j.j[3]},
                         joint_count);
    }
  }
  const bool eight = !in.joints1.empty();
  if (eight) {
    if (in.joints1.size() != n || in.weights1.size() != n) {
      return Error::make(ErrorCode::kSizeMismatch,
                         "skin streams differ in length (%zu positions, %zu joints1, %zu weights1)",
                         n, in.joints1.size(), in.weights1.size());
    }
    uint16_t largest1 = 0;
    for (const JointIndices& j : in.joints1) {
      largest1 = std::max(largest1, std::max(std::max(j.j[0], j.j[1]), std::max(j.j[2], j.j[3])));
    }
    for (size_t v = 0; largest1 >= joint_count && v < n; ++v) {
      const JointIndices& j = in.joints1[v];
      if (j.j[0] >= joint_count || j.j[1] >= joint_count || j.j[2] >= joint_count ||
          j.j[3] >= joint_count) {
        return Error::make(ErrorCode::kBadJointIndex,
                           "vertex %zu names joint %u, %u, %u or %u (influences 5 to 8) of a "
                           "%zu-joint palette",
                           v, unsigned{j.j[0]}, unsigned{j.j[1]}, unsigned{j.j[2]},
                           unsigned{j.j[3]}, joint_count);
      }
    }
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
  if (eight) {
    if (normals && tangents) {
      skin_vertices<true, true, true>(src, p, out);
    } else if (normals) {
      skin_vertices<true, false, true>(src, p, out);
    } else if (tangents) {
      skin_vertices<false, true, true>(src, p, out);
    } else {
      skin_vertices<false, false, true>(src, p, out);
    }
  } else if (normals && tangents) {
    skin_vertices<true, true, false>(src, p, out);
  } else if (normals) {
    skin_vertices<true, false, false>(src, p, out);
  } else if (tangents) {
    skin_vertices<false, true, false>(src, p, out);
  } else {
    skin_vertices<false, false, false>(src, p, out);
  }
  return ok();
}

}  // namespace animpack
