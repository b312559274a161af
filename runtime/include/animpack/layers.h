// Joint masks and additive clips: what masked and additive layers play (animator.h,
// graph.h). Both are made once, at setup (they allocate); playing them never does.
//
//   const animpack::MaskEntry upper[] = {{"Spine2"}, {"Neck", 0.5f}};
//   auto mask = animpack::make_joint_mask(rig.skeleton(), upper);   // one weight per joint
//   auto breathe = animpack::make_additive_clip(rig.clips()[b], rig.skeleton(),
//                                               animpack::AdditiveReference::kFirstFrame);
//
// Masks. A mask is a weight in [0, 1] per joint. Entries apply in order, each setting its
// weight on its joint and (unless subtree is false) on every joint below it, so a later
// entry overrides an earlier one where they overlap ({"Spine2"}, {"Neck", 0.5} gives the
// arms 1 and the neck and head 0.5). Joints no entry covers weigh 0.
//
// Additive clips. An additive clip holds, per channel, its source clip's keys as
// differences from a reference pose: translation and scale as value - reference,
// rotation as conj(reference) * value (the delta in the joint's own frame), normalised.
// The reference is the source clip's pose at time 0 (kFirstFrame: each channel's value at
// t = 0; a joint property the clip does not animate has no channel and so no delta) or
// the skeleton's rest pose (kRestPose). A channel whose every delta is the identity
// (zero translation or scale difference, rotation (0, 0, 0, 1); for a cubic spline, every
// tangent zero too) is left out, so adding the reference pose itself changes nothing, bit
// for bit; the clip keeps its source's duration (Clip::extend_duration) all the same. Step and
// linear channels convert exactly (the delta of a linear or slerped key pair is the linear or
// slerped delta); cubic-spline tangents are transformed by the same linear map, so the Hermite
// curve of the deltas is the delta of the curve (before glTF's normalisation of
// rotations, which the reference rotation does not change).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "animpack/clip.h"
#include "animpack/morph.h"
#include "animpack/result.h"
#include "animpack/skeleton.h"

namespace animpack {

// One entry of a joint mask.
struct MaskEntry {
  std::string_view joint;  // a joint name of the skeleton
  float weight = 1.0f;     // in [0, 1]
  bool subtree = true;     // also every joint below it
};

// The mask as one weight per joint (skeleton.joint_count() entries). Errors:
// kInvalidArgument for an unknown joint name (naming it) or a weight outside [0, 1].
Result<std::vector<float>> make_joint_mask(const Skeleton& skeleton,
                                           std::span<const MaskEntry> entries);

// The additive version of `source` against `reference` (see above): the same name and
// events, Clip::additive() set to the reference. Errors: kInvalidArgument for
// AdditiveReference::kNone; kBadClip when `source` is already additive or fails
// Clip::validate against the skeleton (and morph_sets' target counts).
// Morph weights (format 5): a kWeights channel's deltas are value - reference per weight,
// the reference being its weights at t = 0 (kFirstFrame) or its set's default weights
// (kRestPose; pass the rig's morph_sets(), which a clip with weights channels needs);
// tangents are unchanged and a channel whose every delta is 0 is left out. An additive
// layer adds them, scaled by its weight (animator.h).
Result<Clip> make_additive_clip(const Clip& source, const Skeleton& skeleton,
                                AdditiveReference reference,
                                std::span<const MorphSet> morph_sets = {});

// Mixes pose b over pose a by w, joint by joint, as the Animator mixes one pose over
// another (a crossfade, a mix of layers): translation and scale lerp(a, b, w); rotation
// nlerp(a, b, w), the shorter way (b negated when dot(a, b) < 0), then normalised with
// len = sqrt(((x x + y y) + z z) + w w): the identity for len 0, else q * (1 / len).
// w >= 1 gives b exactly and w <= 0 leaves a exactly. Four joints at a time in SIMD
// lanes, each lane doing those IEEE operations in that order, so the result has the
// bits of the scalar functions (math.h's lerp and nlerp). Uses the first
// min(a.size(), b.size()) joints; allocates nothing.
void blend_poses(std::span<Trs> a, std::span<const Trs> b, float w);

// The same mix into a third pose: out = b over a by w, with the bits of the in-place
// form (which is this with out = a). out may be a or b themselves, or lie apart from
// both. Errors (out untouched): kInvalidArgument when the three sizes differ or out
// overlaps a or b without being it. Allocates nothing.
Result<void> blend_poses(std::span<const Trs> a, std::span<const Trs> b, float w,
                         std::span<Trs> out);

}  // namespace animpack
