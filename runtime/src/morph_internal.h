// Private to the runtime: the morph steps apply_morph() (morph.cpp) and skin()
// (skinning.cpp) share, so that both morph with the same operations in the same order.
#pragma once

#include <cstddef>
#include <span>

#include "animpack/math.h"
#include "animpack/morph.h"
#include "animpack/result.h"

namespace animpack {

// kSizeMismatch unless weights has deltas.targets entries and every non-empty delta
// stream deltas.targets * vertices.
Result<void> morph_check(const MorphDeltas& deltas, std::span<const float> weights,
                         size_t vertices);

namespace morph {

// out[v] += weight[t] * deltas[t * out.size() + v] for t = 0, 1, ... in order, skipping
// weights of exactly 0. Returns whether any product was added.
bool add_deltas(std::span<Vec3> out, std::span<const Vec3> deltas, std::span<const float> weights);
// The same on the tangents' xyz (w kept).
bool add_tangent_deltas(std::span<Vec4> out, std::span<const Vec3> deltas,
                        std::span<const float> weights);

}  // namespace morph
}  // namespace animpack
