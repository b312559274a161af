// A version 4 test pack with root motion and IK, written from a hand-built CookedPack with
// the cooker's pack writer (the scene player, pack and CLI tests share it).
//
//   animpack::CookedPack cooked = animpack::motion_fixture::make_cooked();
//   animpack::Pack pack = animpack::motion_fixture::make_pack();
//
// Rig 0: the shared fixture rig (tests/fixtures/fixture.h: root, bone1..bone3 one unit
// apart up +y; clips Step, Linear, Cubic, Rotate) plus clip 4 "Walk" (root translation
// LINEAR (0,0,0) -> (0,0,2) over 1 s and root rotation LINEAR from identity to 90 degrees
// about +y: the root walks 2 units along +z and turns a quarter turn a pass) and clip 5,
// the additive version of "Rotate" (against its first frame).
// Mesh 0 "column" (rig 0, the skinned column), up +y, forward +z (glTF's, written out).
// Objects:
//   0 walker   column: Walk, looped; root motion accumulate (joint 0, horizontal and yaw,
//              60 samples a second, tracks baked with bake_root_motion, the additive
//              clip's empty); IK "arm" two_bone {bone1, bone2, bone3} with pole +z and no
//              target, "look" aim {bone3} (forward +y, up +z) at a fixed target (2, 4, 1),
//              weight 0.5
//   1 stander  column: Walk, looped; root motion in_place (horizontal), no IK
//   2 plain    column: Walk, looped; no root motion, no IK
#pragma once

#include <cstdint>

#include "animpack/compiler/cooked.h"
#include "animpack/pack.h"

namespace animpack::motion_fixture {

enum Objects : uint32_t { kWalker, kStander, kPlain, kCount };
inline constexpr uint16_t kWalkClip = 4;
inline constexpr uint16_t kAdditiveClip = 5;

// The cooked pack described above.
CookedPack make_cooked();
// make_cooked() written and opened (Pack::from_bytes); aborts the test program if the pack
// does not open.
Pack make_pack();
// The root motion config of the walker, as baked (mesh axes included).
RootMotionConfig walker_config();

}  // namespace animpack::motion_fixture
