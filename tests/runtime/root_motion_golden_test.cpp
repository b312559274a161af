// The root motion golden run: 400 ticks of the generated walking character
// (root_motion_rig.h) with accumulated horizontal motion and yaw, a crossfade, a speed
// change, a blend and a ping-pong, hashed over every local of the pose and every
// take_root_motion() delta, and over the baked tracks (feet mode included). Runtime only,
// so it runs in the aarch64 build too (scripts/cross_aarch64.sh); the value is the same
// in Debug and Release, with g++ and clang++. A change to it is a change in root motion,
// to be made deliberately.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "animpack/animator.h"
#include "animpack/root_motion.h"
#include "fixtures/fnv.h"
#include "runtime/root_motion_rig.h"

namespace animpack {
namespace {

constexpr uint64_t kRootMotionGoldenHash = 0xb40a11d6970c5bb5;

uint64_t root_motion_run() {
  const Rig rig = root_motion_rig::make_rig();
  RootMotionConfig config;
  config.policy = RootMotionPolicy::kAccumulate;
  config.joint = root_motion_rig::kHips;
  config.extract = kExtractHorizontal | kExtractYaw;
  fixture::Fnv fnv;
  std::vector<std::vector<RootMotionSample>> baked;
  const int32_t feet[] = {root_motion_rig::kLFoot, root_motion_rig::kRFoot};
  for (const Clip& clip : rig.clips()) {
    const bool treadmill = clip.name() == "Treadmill";
    Result<std::vector<RootMotionSample>> t =
        bake_root_motion(rig.skeleton(), clip, config,
                         treadmill ? std::span<const int32_t>(feet) : std::span<const int32_t>());
    baked.push_back(t ? std::move(*t) : std::vector<RootMotionSample>{});
    for (const RootMotionSample& s : baked.back()) fnv.value(s);
  }
  const std::vector<RootMotionTrack> tracks(baked.begin(), baked.end());
  Animator a = std::move(*Animator::create(&rig, 60));
  if (!a.set_root_motion(config, tracks)) return 0;
  LayerId turn;
  for (int64_t tick = 0; tick < 400; ++tick) {
    PlayOptions o;
    switch (tick) {
      case 0:
        turn = *a.play("Turn", tick);
        break;
      case 45:
        (void)a.blend("Walk", 0.35f, tick);
        break;
      case 70:
        (void)a.set_speed(turn, 1.5f, tick);
        break;
      case 110:
        (void)a.crossfade("Treadmill", 0.4, tick);
        break;
      case 200:
        o.playback = Playback::kPingPong;
        o.speed = 0.75f;
        (void)a.crossfade("Walk", 0.5, tick, o);
        break;
      case 300: {
        const BlendEntry e[] = {{*rig.find_clip("Strafe"), 1.0f}, {*rig.find_clip("Turn"), 3.0f}};
        (void)a.crossfade_synced(e, 0.25, tick);
        break;
      }
      default:
        break;
    }
    (void)a.advance(tick);
    a.evaluate(tick);
    for (const Trs& t : a.locals()) fnv.value(t);
    if (tick % 3 == 0) fnv.value(a.take_root_motion());
  }
  return fnv.h;
}

TEST(RootMotionGolden, ScriptedRunHashesToTheGoldenValue) {
  const uint64_t h = root_motion_run();
  EXPECT_EQ(h, kRootMotionGoldenHash) << "got 0x" << std::hex << h;
}

TEST(RootMotionGolden, TwoRunsGiveTheSameBits) { EXPECT_EQ(root_motion_run(), root_motion_run()); }

}  // namespace
}  // namespace animpack
