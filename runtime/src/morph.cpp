// Morph targets on the CPU (animpack/morph.h): base + sum of weight x delta, target by
// target, the rule gl/'s vertex stage repeats.
#include "animpack/morph.h"

#include <algorithm>
#include <cstddef>

#include "kernels.h"
#include "morph_internal.h"

namespace animpack {

Result<void> morph_check(const MorphDeltas& deltas, std::span<const float> weights,
                         size_t vertices) {
  const size_t want = static_cast<size_t>(deltas.targets) * vertices;
  const auto fits = [&](size_t size) { return size == 0 || size == want; };
  if (weights.size() != deltas.targets || !fits(deltas.positions.size()) ||
      !fits(deltas.normals.size()) || !fits(deltas.tangents.size())) {
    return Error::make(ErrorCode::kSizeMismatch,
                       "morph streams differ: %u targets of %zu vertices, %zu weights and %zu "
                       "position, %zu normal and %zu tangent deltas",
                       deltas.targets, vertices, weights.size(), deltas.positions.size(),
                       deltas.normals.size(), deltas.tangents.size());
  }
  return ok();
}

namespace morph {

bool add_deltas(std::span<Vec3> out, std::span<const Vec3> deltas, std::span<const float> weights) {
  if (deltas.empty()) return false;
  const size_t n = out.size();
  bool moved = false;
  for (size_t t = 0; t < weights.size(); ++t) {
    const float w = weights[t];
    if (w == 0.0f) continue;  // exactly nothing: the product is not added
    moved = true;
    const Vec3* d = deltas.data() + t * n;
    for (size_t v = 0; v < n; ++v) {
      out[v].x = out[v].x + w * d[v].x;
      out[v].y = out[v].y + w * d[v].y;
      out[v].z = out[v].z + w * d[v].z;
    }
  }
  return moved;
}

bool add_tangent_deltas(std::span<Vec4> out, std::span<const Vec3> deltas,
                        std::span<const float> weights) {
  if (deltas.empty()) return false;
  const size_t n = out.size();
  bool moved = false;
  for (size_t t = 0; t < weights.size(); ++t) {
    const float w = weights[t];
    if (w == 0.0f) continue;
    moved = true;
    const Vec3* d = deltas.data() + t * n;
    for (size_t v = 0; v < n; ++v) {
      out[v].x = out[v].x + w * d[v].x;
      out[v].y = out[v].y + w * d[v].y;
      out[v].z = out[v].z + w * d[v].z;
    }
  }
  return moved;
}

}  // namespace morph

Result<void> apply_morph(const MorphInput& in, const MorphOutput& out) {
  const size_t n = in.positions.size();
  const bool normals = !in.normals.empty();
  const bool tangents = !in.tangents.empty();
  if (out.positions.size() != n ||
      (normals && (in.normals.size() != n || out.normals.size() != n)) ||
      (tangents && (in.tangents.size() != n || out.tangents.size() != n))) {
    return Error::make(ErrorCode::kSizeMismatch,
                       "morph streams differ in length (%zu positions, %zu normals, %zu tangents)",
                       n, in.normals.size(), in.tangents.size());
  }
  if (Result<void> r = morph_check(in.deltas, in.weights, n); !r) return r;
  std::copy(in.positions.begin(), in.positions.end(), out.positions.begin());
  (void)morph::add_deltas(out.positions, in.deltas.positions, in.weights);
  if (normals) {
    std::copy(in.normals.begin(), in.normals.end(), out.normals.begin());
    const bool moved = morph::add_deltas(out.normals, in.deltas.normals, in.weights);
    if (in.normalize && moved) {
      for (Vec3& v : out.normals) kernel::store3(v, kernel::normalize3(kernel::load3(v)));
    }
  }
  if (tangents) {
    std::copy(in.tangents.begin(), in.tangents.end(), out.tangents.begin());
    const bool moved = morph::add_tangent_deltas(out.tangents, in.deltas.tangents, in.weights);
    if (in.normalize && moved) {
      for (Vec4& v : out.tangents) {
        const kernel::v4 x = kernel::normalize3(kernel::v4{v.x, v.y, v.z, 0.0f});
        v = {x[0], x[1], x[2], v.w};
      }
    }
  }
  return ok();
}

}  // namespace animpack
