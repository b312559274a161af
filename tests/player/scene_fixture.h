// The scene player's test pack, written with the cooker's pack writer: every kind of
// object the player handles.
//
//   animpack::Pack pack = animpack::player_fixture::make_pack();
//   auto player = animpack::ScenePlayer::create(&pack, 60);
//
// Rigs: 0 is the shared fixture rig (tests/fixtures/fixture.h: clips Step, Linear, Cubic,
// Rotate with their events); 1 a node rig of two joints, "base" and "lid" (1 above base),
// identity inverse binds, clips "Spin" (lid rotation LINEAR about +y: 0, 90, 180 degrees
// at 0, 1, 2 s; event "open" at 1) and "Bob" (base translation LINEAR (0,0,0), (0,0.5,0),
// (0,0,0) at 0, 0.5, 1 s).
// Meshes: 0 "column" (rig 0, the skinned column), 1 "box" (rig 1, a triangle on each
// joint), 2 "rock" (no rig, one static triangle).
// Sheet 0: a 64x32 atlas cut 16x16 (8 frames); clips "run" {0,1,2,3} 12 fps loop with
// "step" on frame 1, "idle" {4,5} 4 fps ping-pong, "jump" {6,7} 8 fps once with "touch"
// on frame 1.
// Objects, in order:
//   0 walker  column at (1, 2, 3): blend Linear 0.7 + Rotate 0.3; event "mid" on Linear 0.5
//   1 runner  column: Step at speed 1.5; event "kick" on Step 0.5
//   2 idler   column, no [object.animation]: the rest pose
//   3 box     box at (0, 0, -2): Spin, ping-pong
//   4 rock    rock: static
//   5 hero    sprite, face_camera, at (0, 1, 1): run; event "land" on run frame 3
//   6 card    sprite, no clip: still frame 0
//   7 flag    sprite: idle at speed 2; event "step" on run frame 1 (already in the sheet)
#pragma once

#include <cstdint>
#include <vector>

#include "animpack/compiler/cooked.h"
#include "animpack/pack.h"

namespace animpack::player_fixture {

enum Objects : uint32_t { kWalker, kRunner, kIdler, kBox, kRock, kHero, kCard, kFlag, kCount };

// The cooked pack described above.
CookedPack make_cooked();
// make_cooked() written and opened (Pack::from_bytes); aborts the test program if the
// pack does not open.
Pack make_pack();

}  // namespace animpack::player_fixture
