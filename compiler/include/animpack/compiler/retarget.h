// Clips from one skeleton played on another (Step 5): pairing joints by name or through
// humanoid maps, binding clips of another file to a rig by joint name, and retargeting.
//
//   animpack::JointPairing pairing =
//       animpack::pair_joints(source_rig.skeleton(), target_rig.skeleton(), {}, {});
//   for (const animpack::Clip& clip : source_rig.clips()) {
//     animpack::RetargetedClip r = animpack::retarget_clip(
//         clip, source_rig.skeleton(), target_rig.skeleton(), pairing, {});
//     if (r.ok) clips.push_back(std::move(r.clip));
//   }
//
// Pairing (pair_joints), in three passes, each pairing only joints still unpaired on both
// sides: (1) a humanoid map (bone -> joint name) given for both rigs pairs the joints mapped
// to one bone; a map given for one rig only pairs its joints with the other rig's joint
// whose canonical name is the bone's; (2) joints of equal names, each name once per rig;
// (3) joints of equal canonical names (canonical_joint_name: rig prefixes removed, then
// lower case, separators ' ', '_', '-', '.', ':' and '|' removed), each canonical name once
// among the rest of each rig; a name two joints share is left unpaired with the reason.
// A rig prefix ("mixamorig", "armature", "bip01", "bip001", "def", "rig", "valvebiped",
// "bip", any case) is removed where it ends a word: before a separator or, camel case,
// before an upper-case letter that follows a lower-case one ("mixamorigHips"), so that
// "RightArm" keeps its "rig"; several are removed in turn ("Armature|mixamorig:Hips").
//
// Retargeting (retarget_clip): a rotation keeps its turn relative to each rig's rest pose,
// measured in the model frame: with S and T the two joints' rest global rotations (the
// root matrix's rotation times the rest local rotations down the chain) and s and t their
// rest local rotations, a source key q becomes
//   t * (T^-1 * S) * (s^-1 * q) * (S^-1 * T)
// (the source delta from rest, carried into the target joint's rest frame). The hips
// joint's translation keys are carried through the model frame and scaled by the ratio of
// the rigs' hip heights (rest global height along `up`): p' = Pt^-1 * ratio * Ps * p with
// Ps and Pt the rest global matrices of the two hips' parents (the root matrix for a root).
// Other translation and all scale keys of paired joints are kept only when both rigs' rest
// values are equal, within 1e-5 of their length (else the target's rest holds, with a
// note). Channels of joints without a pair are dropped (listed in the result). The maps are
// linear (affine for the hips, whose tangents take the linear part), so cubic tangents go
// through them exactly. When a pair's rest local and global rotations (for the hips'
// translation: the parents' rest matrices, and a hip ratio of 1) are bitwise equal, keys
// are copied unchanged: retargeting a rig onto itself is bit-identical to not
// retargeting. kWeights channels address morph sets, not joints: they are copied unchanged
// when the caller says both rigs' morph sets match (RetargetOptions::morph_sets_match),
// else dropped with a note. docs/retargeting.md explains the method.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "animpack/clip.h"
#include "animpack/math.h"
#include "animpack/skeleton.h"

namespace animpack {

// Standard humanoid bone names a `humanoid` map may use (snake_case, Unity's humanoid set).
inline constexpr std::string_view kHumanoidBones[] = {
    "hips",
    "spine",
    "chest",
    "upper_chest",
    "neck",
    "head",
    "jaw",
    "left_eye",
    "right_eye",
    "left_shoulder",
    "left_upper_arm",
    "left_lower_arm",
    "left_hand",
    "right_shoulder",
    "right_upper_arm",
    "right_lower_arm",
    "right_hand",
    "left_upper_leg",
    "left_lower_leg",
    "left_foot",
    "left_toes",
    "right_upper_leg",
    "right_lower_leg",
    "right_foot",
    "right_toes",
};

// Whether `bone` is one of kHumanoidBones.
bool is_humanoid_bone(std::string_view bone);

// A humanoid map: (bone, joint name) pairs.
using HumanoidMap = std::vector<std::pair<std::string, std::string>>;

// The name pairing compares: see the header comment. "mixamorig:LeftArm" and "Left_Arm"
// both give "leftarm".
std::string canonical_joint_name(std::string_view name);

struct JointPairing {
  std::vector<int> target_of;              // per source joint: its target joint, or -1
  std::vector<std::string> how;            // per source joint: "name", "humanoid:<bone>", ""
  std::vector<std::string> reason;         // per source joint: why it is unpaired, or ""
  std::vector<int> unpaired_targets;       // target joints no source joint pairs with
  int source_hips = -1, target_hips = -1;  // the humanoid "hips" pair, else the paired
                                           // root-most joints (retarget_clip takes the
                                           // root-most paired joint the clip translates)
};

// Pairs the joints of `source` with those of `target` (see the header comment). Maps may
// be empty; names in them that are not joints of their rig are ignored here (the scene
// check reports them).
JointPairing pair_joints(const Skeleton& source, const Skeleton& target,
                         const HumanoidMap& source_map, const HumanoidMap& target_map);

// The exact pairing for clips of another file made for the same skeleton: joints with
// equal names (no canonical folding, no maps).
JointPairing pair_joints_by_name(const Skeleton& source, const Skeleton& target);

struct RetargetOptions {
  bool retarget = true;  // false: only renumber joints (pair_joints_by_name's use)
  Vec3 up{0, 1, 0};      // the rigs' up axis (hip heights)
  // kWeights channels are copied unchanged (set index and width) when true: the caller
  // knows both rigs have the same morph sets; when false they are dropped with a note.
  bool morph_sets_match = false;
};

struct RetargetedClip {
  bool ok = false;
  std::string error;                // when !ok: why (no joint in common, a value not finite)
  Clip clip;                        // the source clip's name, events and additive reference
  std::vector<int> dropped_joints;  // source joints whose channels were dropped
  std::vector<std::string> notes;   // rest values that differed, the hip ratio used
};

// Rewrites `clip` (animating `source`) for `target` by `pairing`. !ok with an error when
// no channel survives (no joint in common) or a value is not finite.
RetargetedClip retarget_clip(const Clip& clip, const Skeleton& source, const Skeleton& target,
                             const JointPairing& pairing, const RetargetOptions& options);

}  // namespace animpack
