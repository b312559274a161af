// Pieces of the glTF import stage that work on one part or primitive (import_internal.h).
// Implements, from Khronos glTF 2.0 (2.0.1), "Meshes": the triangle strip and fan index
// formulas and the winding rule (a negative determinant of the node's world matrix makes
// triangles clockwise, so placing a part by such a matrix flips its winding).

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "import_internal.h"

namespace animpack::import_detail {
namespace {

// The inverse transpose of the upper 3x3 block (translation zero): what normals take.
// A singular block gives the block itself (normals are then as good as they get).
Mat4 normal_matrix(const Mat4& m) {
  Mat4 linear = m;
  linear.m[12] = linear.m[13] = linear.m[14] = 0.0f;
  bool ok = false;
  const Mat4 inv = inverse_affine(linear, &ok);
  if (!ok) return linear;
  Mat4 out;
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r < 3; ++r) out.m[c * 4 + r] = inv.m[r * 4 + c];
  }
  return out;
}

}  // namespace

// The determinant of the upper 3x3 block (column-major m[c*4+r]).
float det3(const Mat4& m) {
  const float* a = m.m;
  return a[0] * (a[5] * a[10] - a[9] * a[6]) + a[4] * (a[9] * a[2] - a[1] * a[10]) +
         a[8] * (a[1] * a[6] - a[5] * a[2]);
}

// Puts a part's vertices through `m` (positions as points, normals by the inverse
// transpose, tangents as vectors), flipping winding and tangent handedness when `mirror`.
// Morph deltas move with them (import_gltf.h, "Morph targets"): position and tangent
// deltas by m's 3x3, normal deltas by the inverse transpose, normal and tangent deltas
// divided by the length of their vertex's moved base vector.
void transform_part(CookedPart& part, const Mat4& m, bool mirror) {
  for (Vec3& p : part.positions) p = transform_point(m, p);
  const Mat4 n = normal_matrix(m);
  std::vector<float> normal_scale(part.normals.size(), 1.0f);
  std::vector<float> tangent_scale(part.tangents.size(), 1.0f);
  for (size_t v = 0; v < part.normals.size(); ++v) {
    const Vec3 moved = transform_vector(n, part.normals[v]);
    const float len = length(moved);
    if (len > 0.0f && std::isfinite(len)) normal_scale[v] = 1.0f / len;
    part.normals[v] = normalize(moved);
  }
  for (size_t v = 0; v < part.tangents.size(); ++v) {
    Vec4& t = part.tangents[v];
    const Vec3 moved = transform_vector(m, {t.x, t.y, t.z});
    const float len = length(moved);
    if (len > 0.0f && std::isfinite(len)) tangent_scale[v] = 1.0f / len;
    const Vec3 d = normalize(moved);
    t = {d.x, d.y, d.z, mirror ? -t.w : t.w};
  }
  for (CookedMorphTarget& target : part.morph_targets) {
    for (Vec3& d : target.positions) d = transform_vector(m, d);
    for (size_t v = 0; v < target.normals.size(); ++v) {
      const float k = v < normal_scale.size() ? normal_scale[v] : 1.0f;
      target.normals[v] = transform_vector(n, target.normals[v]) * k;
    }
    for (size_t v = 0; v < target.tangents.size(); ++v) {
      const float k = v < tangent_scale.size() ? tangent_scale[v] : 1.0f;
      target.tangents[v] = transform_vector(m, target.tangents[v]) * k;
    }
  }
  if (mirror) {
    for (size_t i = 0; i + 2 < part.indices.size(); i += 3) {
      std::swap(part.indices[i + 1], part.indices[i + 2]);
    }
  }
}

// The primitive's triangles as an index list; false (nothing built) for point and line
// modes. *out_incomplete tells that a TRIANGLES list had a partial triangle at its end.
bool triangle_list(const GltfPrimitive& prim, std::vector<uint32_t>* out, bool* out_incomplete) {
  std::vector<uint32_t> source;
  if (prim.indexed) {
    source = prim.indices;
  } else {
    source.resize(prim.vertex_count);
    for (uint32_t i = 0; i < prim.vertex_count; ++i) source[i] = i;
  }
  *out_incomplete = false;
  out->clear();
  const auto add = [&](uint32_t a, uint32_t b, uint32_t c) {
    if (a == b || b == c || a == c) return;  // strips and fans use these as restarts
    out->insert(out->end(), {a, b, c});
  };
  switch (prim.mode) {
    case GltfPrimitiveMode::kTriangles:
      *out_incomplete = source.size() % 3 != 0;
      source.resize(source.size() / 3 * 3);
      *out = std::move(source);
      return true;
    case GltfPrimitiveMode::kTriangleStrip:
      // glTF 2.0: p_i = {v_i, v_(i + (1 + i % 2)), v_(i + (2 - i % 2))}.
      for (size_t i = 0; i + 2 < source.size(); ++i) {
        if (i % 2 == 0) {
          add(source[i], source[i + 1], source[i + 2]);
        } else {
          add(source[i], source[i + 2], source[i + 1]);
        }
      }
      return true;
    case GltfPrimitiveMode::kTriangleFan:
      // glTF 2.0: p_i = {v_(i + 1), v_(i + 2), v_0}.
      for (size_t i = 0; i + 2 < source.size(); ++i) {
        add(source[i + 1], source[i + 2], source[0]);
      }
      return true;
    default:
      return false;
  }
}

const char* mode_name(GltfPrimitiveMode mode) {
  switch (mode) {
    case GltfPrimitiveMode::kPoints:
      return "POINTS";
    case GltfPrimitiveMode::kLines:
      return "LINES";
    case GltfPrimitiveMode::kLineLoop:
      return "LINE_LOOP";
    case GltfPrimitiveMode::kLineStrip:
      return "LINE_STRIP";
    case GltfPrimitiveMode::kTriangles:
      return "TRIANGLES";
    case GltfPrimitiveMode::kTriangleStrip:
      return "TRIANGLE_STRIP";
    case GltfPrimitiveMode::kTriangleFan:
      return "TRIANGLE_FAN";
  }
  return "TRIANGLES";
}

InfluenceReduction reduce_part_influences(CookedPart& part, size_t keep) {
  InfluenceReduction out;
  const size_t count = part.weights.size();
  if (part.joints.size() != count || count == 0) return out;
  const bool eight = part.joints1.size() == count && part.weights1.size() == count;
  for (size_t v = 0; v < count; ++v) {
    const Vec4 a = part.weights[v];
    const Vec4 b = eight ? part.weights1[v] : Vec4{0, 0, 0, 0};
    const std::array<float, 8> w = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    std::array<uint16_t, 8> j{};
    for (size_t k = 0; k < 4; ++k) {
      j[k] = part.joints[v].j[k];
      if (eight) j[k + 4] = part.joints1[v].j[k];
    }
    // The slots kept: the `keep` largest non-zero weights.
    std::array<size_t, 8> order = {0, 1, 2, 3, 4, 5, 6, 7};
    std::stable_sort(order.begin(), order.end(), [&w](size_t x, size_t y) { return w[x] > w[y]; });
    std::array<bool, 8> kept{};
    bool dropped = false;
    for (size_t r = 0; r < 8; ++r) {
      if (w[order[r]] == 0.0f) continue;
      if (r < keep) {
        kept[order[r]] = true;
      } else {
        dropped = true;
        out.largest_dropped = std::max(out.largest_dropped, static_cast<double>(w[order[r]]));
      }
    }
    // A vertex that already fits is left bit for bit as it is; the others are packed
    // into the first slots in their own order.
    bool fits = !dropped;
    for (size_t k = keep; k < 8; ++k) fits = fits && !kept[k];
    if (fits) continue;
    std::array<float, 8> out_w{};
    std::array<uint16_t, 8> out_j{};
    size_t at = 0;
    double sum = 0.0;
    for (size_t k = 0; k < 8; ++k) {
      if (!kept[k]) continue;
      out_w[at] = w[k];
      out_j[at] = j[k];
      sum += static_cast<double>(w[k]);
      ++at;
    }
    if (at == 0) continue;  // no weight at all (SKIN_VERTEX_NO_WEIGHT said so)
    if (dropped) {
      ++out.changed;
      for (size_t k = 0; k < at; ++k) out_w[k] = static_cast<float>(out_w[k] / sum);
    }
    part.weights[v] = {out_w[0], out_w[1], out_w[2], out_w[3]};
    part.joints[v] = JointIndices{{out_j[0], out_j[1], out_j[2], out_j[3]}};
    if (eight) {
      part.weights1[v] = {out_w[4], out_w[5], out_w[6], out_w[7]};
      part.joints1[v] = JointIndices{{out_j[4], out_j[5], out_j[6], out_j[7]}};
    }
  }
  const bool second_used = std::any_of(
      part.weights1.begin(), part.weights1.end(),
      [](const Vec4& x) { return x.x != 0.0f || x.y != 0.0f || x.z != 0.0f || x.w != 0.0f; });
  if (!second_used) {
    part.joints1.clear();
    part.weights1.clear();
  }
  return out;
}

}  // namespace animpack::import_detail
