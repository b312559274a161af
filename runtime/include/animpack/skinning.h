// CPU linear blend skinning: the reference the GPU vertex stage is held to.
//
//   animpack::SkinInput in{positions, normals, tangents, joints, weights};
//   animpack::SkinOutput out{skinned_positions, skinned_normals, skinned_tangents};
//   if (auto r = animpack::skin(in, animator.palette(), out); !r) report(r.error());
//
// Each vertex blends its four palette matrices by its weights, summed in joint order
// 0, 1, 2, 3 exactly as the GL vertex stage does (the upper 3x4 block; palette matrices
// are affine), then transforms the position (w = 1), the normal and the tangent's xyz
// (w = 0), renormalising the normal and tangent; the tangent's w (handedness) is kept.
// Weights are used as given (the cooker normalises them to sum to one).
// Eight influences (format 5): with joints1/weights1 given, influences 4 to 7 follow in
// the same sum (0, 1, ..., 7); a weight of exactly 0 adds nothing, so a vertex whose
// second set weighs 0 skins bit for bit as with four.
// Morph targets (morph.h): with input.morph given, each vertex is first morphed by
// apply_morph's rule (without renormalising), then skinned.
// skin() allocates nothing; it uses up to 12 KiB of stack (a packed copy of at most 256
// palette matrices) besides its own frame.
#pragma once

#include <cstdint>
#include <span>

#include "animpack/math.h"
#include "animpack/morph.h"
#include "animpack/result.h"

namespace animpack {

// Four joint indices of one vertex.
struct JointIndices {
  uint16_t j[4] = {0, 0, 0, 0};
};

// The vertex streams to skin. normals and tangents may be empty (not skinned); when
// given they have one entry per position, as do joints and weights.
struct SkinInput {
  std::span<const Vec3> positions;
  std::span<const Vec3> normals;
  std::span<const Vec4> tangents;
  std::span<const JointIndices> joints;
  std::span<const Vec4> weights;
  // Influences 5 to 8 (JOINTS_1/WEIGHTS_1): empty, or one per position each.
  std::span<const JointIndices> joints1 = {};
  std::span<const Vec4> weights1 = {};
  // Morph targets applied before skinning: deltas.targets == 0 for none; otherwise
  // morph_weights has deltas.targets entries.
  MorphDeltas morph = {};
  std::span<const float> morph_weights = {};
};

// Where skinned streams go: positions always; normals and tangents when the input has
// them (empty otherwise). Each has one entry per input position.
struct SkinOutput {
  std::span<Vec3> positions;
  std::span<Vec3> normals;
  std::span<Vec4> tangents;
};

// Skins every vertex. Fails with kSizeMismatch when stream lengths disagree and with
// kBadJointIndex (naming the vertex) when a joint index is outside the palette; on
// failure the output is unspecified but nothing outside it is written.
[[nodiscard]] Result<void> skin(const SkinInput& input, std::span<const Mat4> palette,
                                const SkinOutput& output);

}  // namespace animpack
