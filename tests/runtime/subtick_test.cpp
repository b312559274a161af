// Sub-tick poses (Animator::evaluate(tick, fraction), ScenePlayer::evaluate_render): the
// pose at a fraction of a tick past a tick, for rendering faster than the tick rate.
// Fraction 0 is the tick's pose bit for bit, motion runs on monotonically between two
// ticks, fades run on too, bad fractions are refused, nothing the ticks do is disturbed,
// and golden hashes over sub-tick poses pin the bits (this suite runs in the aarch64
// cross build too: scripts/cross_aarch64.sh).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "animpack/animator.h"
#include "animpack/camera.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "fixtures/fixture.h"
#include "fixtures/fnv.h"
#include "fixtures/player_golden_run.h"
#include "runtime/golden_run.h"

namespace animpack {
namespace {

constexpr float kFractions[] = {0.25f, 0.5f, 0.75f};

// FNV-1a 64 of the golden run's palettes at tick + 0.25, 0.5 and 0.75 of every tick.
constexpr uint64_t kSubTickGoldenHash = 0x52a4ccb7c3cc397b;
// The same over the scene player's golden run (240 ticks, every object's palette).
constexpr uint64_t kPlayerSubTickGoldenHash = 0xd9a265b15032f317;

bool same_bits(std::span<const Mat4> a, std::span<const Mat4> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}
bool same_bits(std::span<const Trs> a, std::span<const Trs> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

// ------------------------------------------------------------------------ Animator

TEST(SubTickPose, FractionZeroGivesTheGoldenRunBitForBit) {
  golden::SubTicks sub;
  sub.zero_fraction = true;
  const uint64_t h = golden::scripted_run(sub);
  EXPECT_EQ(h, golden::kGoldenHash) << "got 0x" << std::hex << h;
}

TEST(SubTickPose, FractionZeroGivesTheTickLocalsGlobalsAndPalette) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  Animator b = std::move(*Animator::create(&rig, 60));
  for (Animator* x : {&a, &b}) {
    ASSERT_TRUE(x->play("Linear", 0));
    ASSERT_TRUE(x->crossfade("Rotate", 0.5, 7));
    ASSERT_TRUE(x->blend("Cubic", 0.3f, 9));
  }
  for (int64_t t = 0; t < 60; ++t) {
    (void)a.advance(t);
    (void)b.advance(t);
    a.evaluate(t);
    ASSERT_TRUE(b.evaluate(t, 0.0f));
    EXPECT_TRUE(same_bits(a.locals(), b.locals())) << t;
    EXPECT_TRUE(same_bits(a.globals(), b.globals())) << t;
    EXPECT_TRUE(same_bits(a.palette(), b.palette())) << t;
    ASSERT_TRUE(b.evaluate(t, -0.0f));  // -0 is 0
    EXPECT_TRUE(same_bits(a.palette(), b.palette())) << t;
  }
}

TEST(SubTickPose, SubTickPosesLeaveTheGoldenRunUndisturbed) {
  uint64_t sub_hash = 0;
  golden::SubTicks sub;
  sub.fractions = kFractions;
  sub.hash = &sub_hash;
  const uint64_t h = golden::scripted_run(sub);
  EXPECT_EQ(h, golden::kGoldenHash) << "got 0x" << std::hex << h;
}

TEST(SubTickPose, GoldenRunAtQuarterTicksHashesToTheGoldenValue) {
  uint64_t sub_hash = 0;
  golden::SubTicks sub;
  sub.fractions = kFractions;
  sub.hash = &sub_hash;
  (void)golden::scripted_run(sub);
  EXPECT_EQ(sub_hash, kSubTickGoldenHash) << "got 0x" << std::hex << sub_hash;
  uint64_t again = 0;
  sub.hash = &again;
  (void)golden::scripted_run(sub);
  EXPECT_EQ(again, sub_hash);
}

// "Linear" moves the root from y = 0 to y = 2 over its first second: linearly in time.
TEST(SubTickPose, MotionBetweenTwoTicksIsMonotoneAndBetweenThem) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Linear", 0));
  for (int64_t t = 0; t < 59; ++t) {
    (void)a.advance(t);
    a.evaluate(t + 1);
    const float next = a.locals()[0].translation.y;
    a.evaluate(t);
    float last = a.locals()[0].translation.y;
    const float at_tick = last;
    for (int i = 1; i < 10; ++i) {
      const float f = static_cast<float>(i) / 10.0f;
      ASSERT_TRUE(a.evaluate(t, f));
      const float y = a.locals()[0].translation.y;
      EXPECT_GT(y, last) << t << " + " << f;
      EXPECT_LT(y, next) << t << " + " << f;
      // y = 2 * (t + f) / 60, to float precision.
      EXPECT_NEAR(y, 2.0f * (static_cast<float>(t) + f) / 60.0f, 1e-5f) << t << " + " << f;
      last = y;
    }
    EXPECT_GT(next, at_tick);
  }
}

// A crossfade's weight runs on between ticks too: from a still y = 0 to a still y = 2
// over 10 ticks, the pose at 3.5 ticks is 35% of the way.
TEST(SubTickPose, CrossfadeWeightRunsOnBetweenTicks) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  PlayOptions still;
  still.speed = 0.0f;
  ASSERT_TRUE(a.play("Linear", 0, still));
  still.start = 1.0;
  ASSERT_TRUE(a.crossfade("Linear", 10.0 / 60.0, 0, still));
  (void)a.advance(0);
  ASSERT_TRUE(a.evaluate(0, 0.5f));
  EXPECT_NEAR(a.locals()[0].translation.y, 0.1f, 1e-6f);  // 0.05 of the fade
  (void)a.advance(3);
  ASSERT_TRUE(a.evaluate(3, 0.5f));
  EXPECT_NEAR(a.locals()[0].translation.y, 0.7f, 1e-6f);
  EXPECT_EQ(a.mix_count(), 2);
  (void)a.advance(9);
  ASSERT_TRUE(a.evaluate(9, 0.999f));
  EXPECT_LT(a.locals()[0].translation.y, 2.0f);
  EXPECT_EQ(a.mix_count(), 2) << "a sub-tick pose retires nothing";
  (void)a.advance(10);
  EXPECT_EQ(a.mix_count(), 1);
}

// A layer that starts at a later tick shows its start between the ticks before it.
TEST(SubTickPose, ALayerStartingNextTickShowsItsStart) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Linear", 5));
  (void)a.advance(4);
  a.evaluate(4);
  const std::vector<Trs> before(a.locals().begin(), a.locals().end());
  ASSERT_TRUE(a.evaluate(4, 0.75f));
  EXPECT_TRUE(same_bits(before, a.locals()));
  ASSERT_TRUE(a.evaluate(5, 0.5f));
  EXPECT_NEAR(a.locals()[0].translation.y, 2.0f * 0.5f / 60.0f, 1e-6f);
}

TEST(SubTickPose, RefusesFractionsOutsideZeroToOneAndKeepsThePose) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Rotate", 0));
  (void)a.advance(10);
  ASSERT_TRUE(a.evaluate(10, 0.5f));
  const std::vector<Mat4> kept(a.palette().begin(), a.palette().end());
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(),
                       -std::numeric_limits<float>::quiet_NaN(),
                       -0.25f,
                       -std::numeric_limits<float>::denorm_min(),
                       1.0f,
                       1.5f,
                       std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::max()};
  for (const float f : bad) {
    const Result<void> r = a.evaluate(10, f);
    ASSERT_FALSE(r) << f;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument) << f;
    EXPECT_TRUE(same_bits(kept, a.palette())) << f;
  }
  // The largest float below 1 is taken.
  EXPECT_TRUE(a.evaluate(10, 0.99999994f));
  Animator none;
  EXPECT_EQ(none.evaluate(0, 0.5f).error().code(), ErrorCode::kInvalidArgument);
}

// Events of a run with sub-tick poses between its ticks are those of the run without.
TEST(SubTickPose, DeliversNoEventsAndChangesNoneOfTheTicks) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  Animator b = std::move(*Animator::create(&rig, 60));
  for (Animator* x : {&a, &b}) {
    ASSERT_TRUE(x->play("Step", 0));
    ASSERT_TRUE(x->blend("Rotate", 0.5f, 0));
  }
  size_t events = 0;
  for (int64_t t = 0; t < 200; ++t) {
    const std::span<const AnimEvent> ea = a.advance(t);
    const std::vector<AnimEvent> copy(ea.begin(), ea.end());
    const std::span<const AnimEvent> eb = b.advance(t);
    ASSERT_EQ(copy.size(), eb.size()) << t;
    for (size_t i = 0; i < copy.size(); ++i) {
      EXPECT_EQ(copy[i].event, eb[i].event);
      EXPECT_EQ(copy[i].position, eb[i].position);
    }
    events += copy.size();
    a.evaluate(t);
    for (const float f : kFractions) ASSERT_TRUE(b.evaluate(t, f));
    b.evaluate(t);
    EXPECT_TRUE(same_bits(a.palette(), b.palette())) << t;
  }
  EXPECT_GT(events, 0u);
}

// ------------------------------------------------------------------------ ScenePlayer

Pack open_player_pack() {
  const auto path =
      std::filesystem::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/scene_player_v1.anpk";
  auto pack = Pack::open(path.string());
  EXPECT_TRUE(pack) << path << ": " << pack.error().message();
  return pack ? std::move(*pack) : Pack{};
}

// The scene player's golden run, rendering three sub-tick frames after each step:
// returns the run's own hash (the golden value: renders disturb nothing) and hashes the
// render frames' palettes into *render.
uint64_t player_run_with_renders(const Pack& pack, uint64_t* render) {
  fixture::Fnv sub;
  const uint64_t h = player_golden::scripted_run(
      pack, [&sub](ScenePlayer& player, const Camera& camera, int64_t t) {
        for (const float f : kFractions) {
          EXPECT_TRUE(player.evaluate_render(f));
          const Posed& frame = player.posed(&camera);
          EXPECT_EQ(frame.fraction, f);
          EXPECT_EQ(frame.tick, t);
          for (const PosedObject& o : frame.objects) {
            for (const Mat4& m : o.palette) sub.bytes(m.m, sizeof m.m);
            for (const Mat4& m : o.previous_palette) sub.bytes(m.m, sizeof m.m);
          }
        }
      });
  *render = sub.h;
  return h;
}

TEST(SubTickPlayer, RendersBetweenStepsLeaveTheGoldenRun) {
  const Pack pack = open_player_pack();
  uint64_t render = 0;
  const uint64_t h = player_run_with_renders(pack, &render);
  EXPECT_EQ(h, player_golden::kGoldenHash) << "got 0x" << std::hex << h;
}

TEST(SubTickPlayer, RenderPosesHashToTheGoldenValue) {
  const Pack pack = open_player_pack();
  uint64_t render = 0;
  (void)player_run_with_renders(pack, &render);
  EXPECT_EQ(render, kPlayerSubTickGoldenHash) << "got 0x" << std::hex << render;
}

TEST(SubTickPlayer, FractionZeroGivesTheTickPaletteAndHalfATickMoves) {
  const Pack pack = open_player_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  const ObjectId walker{player_golden::kWalker};
  for (int i = 0; i < 30; ++i) player.step();
  const std::vector<Mat4> tick(player.palette(walker).begin(), player.palette(walker).end());
  ASSERT_FALSE(tick.empty());
  ASSERT_TRUE(player.evaluate_render(0.5f));
  EXPECT_EQ(player.render_fraction(), 0.5f);
  EXPECT_FALSE(same_bits(tick, player.palette(walker))) << "the walker moves between ticks";
  ASSERT_TRUE(player.evaluate_render(0.0f));
  EXPECT_TRUE(same_bits(tick, player.palette(walker)));
  EXPECT_TRUE(same_bits(tick, player.posed().objects[walker.value].palette));
}

TEST(SubTickPlayer, TheStepAfterARenderKeepsTheTickPaletteAsPrevious) {
  const Pack pack = open_player_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  const ObjectId walker{player_golden::kWalker};
  for (int i = 0; i < 10; ++i) player.step();
  const std::vector<Mat4> tick(player.palette(walker).begin(), player.palette(walker).end());
  ASSERT_TRUE(player.evaluate_render(0.5f));
  ASSERT_TRUE(player.evaluate_render(0.75f));
  player.step();
  EXPECT_EQ(player.render_fraction(), 0.0f);
  EXPECT_EQ(player.posed().fraction, 0.0f);
  EXPECT_TRUE(same_bits(tick, player.posed().objects[walker.value].previous_palette));
}

TEST(SubTickPlayer, RefusesBadFractionsAndKeepsThePoses) {
  const Pack pack = open_player_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  const ObjectId walker{player_golden::kWalker};
  for (int i = 0; i < 10; ++i) player.step();
  ASSERT_TRUE(player.evaluate_render(0.25f));
  const std::vector<Mat4> kept(player.palette(walker).begin(), player.palette(walker).end());
  for (const float f : {std::numeric_limits<float>::quiet_NaN(), -0.5f, 1.0f, 2.0f}) {
    const Result<void> r = player.evaluate_render(f);
    ASSERT_FALSE(r) << f;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_TRUE(same_bits(kept, player.palette(walker)));
    EXPECT_EQ(player.render_fraction(), 0.25f);
  }
  EXPECT_TRUE(player.animation_errors().empty()) << "a render call is not a game call";
}

}  // namespace
}  // namespace animpack
