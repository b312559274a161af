// Morph targets (glTF 2.0 "Morph Targets"): per-vertex position, normal and tangent
// deltas blended by weights, applied before skinning (the order glTF and three.js use).
//
//   // A rig's morph sets: one per glTF node whose mesh has targets (rig.h).
//   for (const animpack::MorphSet& set : rig.morph_sets())
//     std::printf("%s: %zu targets\n", set.name.c_str(), set.target_names.size());
//   // The weights the pose holds (Animator::morph_weights(), flat over every set):
//   std::span<const float> w = animator.morph_weights().subspan(set.first, set.size());
//   // Morph a part on the CPU (skin() does the same before skinning when given deltas):
//   animpack::MorphInput in{positions, normals, tangents, deltas, w};
//   animpack::apply_morph(in, out);
//
// The arithmetic, which gl/'s vertex stage repeats in the same order:
//   p = base + sum over t = 0, 1, ... of weight[t] * delta_p[t][v]   (left to right)
// and the same for the normal and the tangent's xyz (the tangent's w is kept). Normals and
// tangents are not renormalised by the morph itself; skin() renormalises after skinning,
// apply_morph() renormalises when asked (MorphInput::normalize), as an unskinned draw
// needs, the streams some non-zero weight moved (so untouched streams keep their bits). A
// weight of exactly 0 contributes nothing (its product is not added), so a pose at
// all-zero weights gives the base vertex bit for bit.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "animpack/math.h"
#include "animpack/result.h"

namespace animpack {

// Bounds (docs/pack-format.md, "Limits"): targets of one morph set (and of one part), and
// weights of one rig (the sum over its sets). glTF sets no limit; real faces use 50-150.
inline constexpr uint32_t kMaxMorphTargets = 256;
inline constexpr uint32_t kMaxRigMorphWeights = 4096;
// Weights a game sets (Animator::set_morph_weight) and a pack's default weights are finite
// and within [-kMaxMorphWeight, kMaxMorphWeight] (glTF allows weights outside [0, 1]).
inline constexpr float kMaxMorphWeight = 1000.0f;

// The weights of one glTF node (the mesh instance its parts belong to). Every part of
// that node's mesh has exactly size() targets.
struct MorphSet {
  std::string name;                       // the node's name ("node_<index>" when unnamed)
  std::vector<std::string> target_names;  // one per target (extras.targetNames, else
                                          // "target_<i>"), unique within the set
  std::vector<float> default_weights;     // one per target: node.weights, mesh.weights, or 0
  int joint = -1;      // the rig joint of the node when it is one (node rigs): layer masks
                       // weigh the set by this joint's mask weight; -1: mask weight 1
  uint32_t first = 0;  // where its weights start in a flat weight array (Rig::create sets it)
  uint32_t size() const { return static_cast<uint32_t>(target_names.size()); }
};

// One part's deltas, target-major: target t's delta of vertex v is [t * vertex_count + v].
// normals and tangents are empty when no target has them (a target without one reads 0).
struct MorphDeltas {
  uint32_t targets = 0;
  std::span<const Vec3> positions;  // targets * vertex_count, or empty (no POSITION deltas)
  std::span<const Vec3> normals;    // targets * vertex_count, or empty
  std::span<const Vec3> tangents;   // targets * vertex_count, or empty (xyz deltas)
};

struct MorphInput {
  std::span<const Vec3> positions;  // the base vertices
  std::span<const Vec3> normals;    // empty or one per position
  std::span<const Vec4> tangents;   // empty or one per position
  MorphDeltas deltas;
  std::span<const float> weights;  // deltas.targets weights
  bool normalize = true;           // renormalise normals and tangents' xyz a non-zero weight moved
};

struct MorphOutput {
  std::span<Vec3> positions;  // one per input position
  std::span<Vec3> normals;    // when the input has normals
  std::span<Vec4> tangents;   // when the input has tangents
};

// Morphs every vertex by the rule at the top. Fails with kSizeMismatch when the stream
// lengths disagree (deltas not targets * vertices, weights not targets); on failure
// nothing outside the output is written.
[[nodiscard]] Result<void> apply_morph(const MorphInput& input, const MorphOutput& output);

}  // namespace animpack
