// A mesh's bounds at cook time (bounds.h, docs/pack-format.md "Bounds"): the bind box, the
// box of the parts no joint moves, and one box per joint in that joint's frame, from
// which the runtime's posed_bounds() bounds any pose without skinning a vertex.
//
//   animpack::compute_mesh_bounds(mesh, mesh.rig >= 0 ? &pack.rigs[mesh.rig] : nullptr);
//   // mesh.bind_bounds, mesh.static_bounds, mesh.joint_bounds are set; write the pack.
#pragma once

#include "animpack/compiler/cooked.h"

namespace animpack {

// Sets mesh.bind_bounds, static_bounds and joint_bounds from its parts and `rig` (the
// mesh's rig, or null for a mesh without one: every part then counts as static).
// - bind_bounds: every part at rest: skinned parts' bind-space vertices as stored,
//   node-rig parts (joint >= 0, no skin) placed by their joint's rest global matrix
//   (root * ... * local, as the Animator computes it at rest), static parts as stored.
// - static_bounds: the parts with no joint and no skin, as stored (empty when none).
// - joint_bounds: for every joint that some vertex moves with (a skinned vertex with a
//   weight > 0 on it among its eight, or any vertex of a node-rig part naming it), ascending: frame
//   = inverse(inverse bind) computed in double and rounded to float (the identity when the inverse
//   bind is singular or the result is not finite), and the box of inverse(frame) * v, computed in
//   double from the float frame, over those vertices.
// - Morph targets (a part with morph_set >= 0): each vertex counts as the box of every
//   position its deltas reach with each target's weight anywhere in [min(0, lowest default
//   or keyed weight), max(1, highest default or keyed weight)] (keys of every clip of the
//   rig; a cubic spline segment widened by what its tangents can overshoot), the box's
//   corners placed as the vertex is; the joint that vertex moves with (a skinned vertex's
//   joints of both influence sets) take them all. Weights a game sets outside that range
//   (Animator::set_morph_weight, additive layers on weights) are the game's business: the
//   bounds do not hold those poses.
// Every box computed in double is rounded outwards to float (nextafter), so that it holds
// its points exactly. Non-finite positions are skipped. Joints outside the rig are
// skipped (the importer never makes them).
void compute_mesh_bounds(CookedMesh& mesh, const CookedRig* rig);

}  // namespace animpack
