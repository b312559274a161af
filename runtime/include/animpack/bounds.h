// Boxes, and the conservative bounds of a posed mesh computed from per-joint boxes,
// without skinning a vertex.
//
//   const animpack::MeshBounds& bounds = pack.mesh_bounds(mesh);
//   animpack::Box model_box = animpack::posed_bounds(bounds, animator.palette());
//   animpack::Box world_box = animpack::transform_box(model_box, object_model);
//   // or, for a scene object at the player's tick:
//   animpack::Result<animpack::Box> box = player.world_bounds(object);
//
// Why it holds every vertex: a skinned vertex is sum_k w_k P_k v with weights >= 0 summing
// to one, a convex combination of the points P_k v; each P_k v = palette[k] * frame_k *
// (inverse(frame_k) v) lies in the transformed box of joint k, so the vertex lies in the
// convex hull of those boxes, hence in the box around them. A margin covers rounding:
// every side is pushed out by kBoundsMargin times the largest coordinate magnitude of the
// box (plus kBoundsMinMargin). The cooker computes the joint boxes in double precision and
// rounds them outwards (docs/pack-format.md, "Bounds").
// Eight influences and morph targets (format 5): the sum runs over all eight influences,
// and a morphing vertex's joint boxes hold the whole box its deltas reach for weights
// within [min(0, lowest default or keyed), max(1, highest default or keyed)] per target,
// so the argument above holds for every pose the rig's clips play (mixed, crossfaded or
// masked). Weights a game sets outside that range (set_morph_weight, additive layers on
// weights) are the game's business: the bounds do not cover those poses.
#pragma once

#include <cstdint>
#include <span>

#include "animpack/math.h"

namespace animpack {

// An axis-aligned box. The default one is empty (lo > hi) and grows to hold points.
struct Box {
  Vec3 lo{3.4e38f, 3.4e38f, 3.4e38f};
  Vec3 hi{-3.4e38f, -3.4e38f, -3.4e38f};

  // False for the empty box.
  bool valid() const { return lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z; }
  // Grows the box to hold p / b (NaN coordinates are ignored).
  void grow(Vec3 p);
  void merge(const Box& b);
  // Whether p lies inside or on the box.
  bool contains(Vec3 p) const {
    return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z;
  }
};

// Relative and absolute margins posed_bounds() adds on every side.
inline constexpr float kBoundsMargin = 1.0f / 16384.0f;
inline constexpr float kBoundsMinMargin = 1e-6f;

// One joint's box, in its frame (see the top of this file).
struct JointBounds {
  uint16_t joint = 0;
  Mat4 frame;  // bind space <- joint frame: inverse(inverse bind); identity for node rigs
  Vec3 lo, hi;
};

// A mesh's bounds as the pack stores them (Pack::mesh_bounds).
struct MeshBounds {
  Box bind;                             // every part at rest, in the mesh's space
  Box fixed;                            // parts no joint moves (empty when there are none)
  std::span<const JointBounds> joints;  // ascending joint indices
};

// The box of m * corner over the 8 corners of b; the empty box stays empty.
Box transform_box(const Box& b, const Mat4& m);
// Pushes every side out by the margins above.
Box with_margin(const Box& b);

// The model-space box of a mesh posed by `palette` (the Animator's palette: a joint's
// global matrix times its inverse bind; node rigs: the joint's global matrix): fixed, plus
// every joint box transformed by palette[joint] * frame, with the margin. An empty
// palette gives the bind box. A joint outside the palette is skipped (its box cannot be
// placed): callers pass the palette of the mesh's own rig.
Box posed_bounds(const MeshBounds& bounds, std::span<const Mat4> palette);

}  // namespace animpack
