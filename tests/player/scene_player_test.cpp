// The scene player: objects play their [object.animation] and fire their own events at
// fixed ticks; sprite cards step and switch clips; a game's blends and crossfades match
// an Animator driven by hand; refused calls are kept for one tick; the posed snapshot
// agrees with palette() and sprite_frame().
#include "animpack/scene_player.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/skeleton.h"
#include "scene_fixture.h"

namespace animpack {
namespace {

using namespace player_fixture;

// A Game from two lambdas.
struct Script : Game {
  std::function<void(ScenePlayer&, int64_t)> on_tick;
  std::function<void(ScenePlayer&, std::span<const AnimationEvent>)> on_events;
  void tick(ScenePlayer& p, int64_t t) override {
    if (on_tick) on_tick(p, t);
  }
  void animated(ScenePlayer& p, std::span<const AnimationEvent> events) override {
    if (on_events) on_events(p, events);
  }
};

struct Seen {
  int64_t tick;
  std::string object, clip, event;
  friend bool operator==(const Seen&, const Seen&) = default;
};

std::ostream& operator<<(std::ostream& os, const Seen& s) {
  return os << "{" << s.tick << " " << s.object << " " << s.clip << " " << s.event << "}";
}

std::vector<Seen> collect(ScenePlayer& p, std::span<const AnimationEvent> events) {
  std::vector<Seen> out;
  for (const AnimationEvent& e : events) {
    out.push_back(
        {e.tick, std::string(p.name(e.object)), std::string(e.clip_name), std::string(e.event)});
  }
  return out;
}

bool same_palette(std::span<const Mat4> a, std::span<const Mat4> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!bits_equal(a[i].m, b[i].m, 16)) return false;
  }
  return true;
}

ObjectId id(uint32_t index) { return ObjectId{index}; }

class Player : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = ScenePlayer::create(&pack_, 60);
    ASSERT_TRUE(p) << p.error().message();
    player_.emplace(std::move(*p));
  }
  Pack pack_ = make_pack();
  std::optional<ScenePlayer> player_;
};

TEST(ScenePlayer, CreateRefusesANullPackAndABadTickRate) {
  EXPECT_EQ(ScenePlayer::create(nullptr, 60).error().code(), ErrorCode::kInvalidArgument);
  const Pack pack = make_pack();
  EXPECT_EQ(ScenePlayer::create(&pack, 0).error().code(), ErrorCode::kBadTickRate);
  EXPECT_EQ(ScenePlayer::create(&pack, -30).error().code(), ErrorCode::kBadTickRate);
}

TEST(ScenePlayer, CreateRefusesAPackObjectPlayingBeyondTheSpeedOrStartBounds) {
  // A crafted pack's [object.animation] with a speed or start that would make advance()
  // run for ever: refused where the pack is opened or where the scene is set up.
  for (const uint32_t object : {uint32_t{kRunner}, uint32_t{kHero}}) {
    for (int field = 0; field < 2; ++field) {
      CookedPack cooked = make_cooked();
      CookedAnimation& a = cooked.objects[object].animation;
      if (field == 0) a.speed = 1e30f;
      if (field == 1) a.start = 1e19f;
      Result<Pack> pack = Pack::from_bytes(write_pack(cooked));
      if (!pack) continue;  // Pack::open's own checks refused it
      Result<ScenePlayer> player = ScenePlayer::create(&*pack, 60);
      ASSERT_FALSE(player) << object << " " << field;
      EXPECT_EQ(player.error().code(), field == 0 ? ErrorCode::kBadSpeed : ErrorCode::kBadStart);
    }
  }
}

TEST_F(Player, FindsObjectsByNameAndRefusesUnknownNames) {
  ScenePlayer& p = *player_;
  ASSERT_EQ(p.object_count(), kCount);
  EXPECT_EQ(p.find("walker")->value, kWalker);
  EXPECT_EQ(p.find("flag")->value, kFlag);
  EXPECT_EQ(p.name(id(kHero)), "hero");
  const Result<ObjectId> none = p.find("nobody");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(p.name(ObjectId{}), "");
}

TEST_F(Player, RiggedObjectsGetAnimatorsAndSpriteObjectsSpritePlayers) {
  ScenePlayer& p = *player_;
  for (uint32_t o : {kWalker, kRunner, kIdler, kBox}) {
    EXPECT_NE(p.animator(id(o)), nullptr) << o;
    EXPECT_EQ(p.sprite(id(o)), nullptr) << o;
    EXPECT_FALSE(p.palette(id(o)).empty()) << o;
  }
  for (uint32_t o : {kHero, kCard, kFlag}) {
    EXPECT_EQ(p.animator(id(o)), nullptr) << o;
    EXPECT_NE(p.sprite(id(o)), nullptr) << o;
    EXPECT_TRUE(p.palette(id(o)).empty()) << o;
  }
  EXPECT_EQ(p.animator(id(kRock)), nullptr);
  EXPECT_EQ(p.sprite(id(kRock)), nullptr);
  EXPECT_EQ(p.animator(ObjectId{}), nullptr);
  EXPECT_EQ(p.animator(id(kWalker))->tick_rate(), 60);
  // Objects with events play their own rig; an object without shares the mesh rig.
  EXPECT_NE(p.rig(id(kWalker)), &pack_.rig(0));
  EXPECT_NE(p.rig(id(kRunner)), p.rig(id(kWalker)));
  EXPECT_EQ(p.rig(id(kIdler)), &pack_.rig(0));
  EXPECT_EQ(p.rig(id(kBox)), &pack_.rig(1));
}

TEST_F(Player, ObjectsPlayTheirClipsAndFireTheirOwnEventsAtFixedTicks) {
  ScenePlayer& p = *player_;
  std::vector<Seen> seen;
  for (int t = 0; t < 120; ++t) {
    p.step();
    EXPECT_EQ(p.tick(), t);
    for (const Seen& s : collect(p, p.animation_events())) {
      if (s.object == "walker" || s.object == "runner") seen.push_back(s);
    }
  }
  // runner: Step (1 s) at speed 1.5, marks step 0.25, kick 0.5 (its own), land 0.75: a
  // loop every 40 ticks. walker: Linear (top 1, mid 0.5: its own) and Rotate (start 0,
  // bend 1), 2 s each: by layer, then time.
  const std::vector<Seen> expected = {
      {0, "walker", "Rotate", "start"}, {10, "runner", "Step", "step"},
      {20, "runner", "Step", "kick"},   {30, "walker", "Linear", "mid"},
      {30, "runner", "Step", "land"},   {50, "runner", "Step", "step"},
      {60, "walker", "Linear", "top"},  {60, "walker", "Rotate", "bend"},
      {60, "runner", "Step", "kick"},   {70, "runner", "Step", "land"},
      {90, "runner", "Step", "step"},   {100, "runner", "Step", "kick"},
      {110, "runner", "Step", "land"},
  };
  EXPECT_EQ(seen, expected);
}

TEST_F(Player, ObjectsPoseAsTheirAnimationSaysFromTickZero) {
  ScenePlayer& p = *player_;
  // References: the same rigs driven by hand.
  Animator walker = std::move(*Animator::create(p.rig(id(kWalker)), 60));
  const BlendEntry blend[] = {{1, 0.7f}, {3, 0.3f}};
  ASSERT_TRUE(walker.play_blend(blend, 0));
  Animator runner = std::move(*Animator::create(p.rig(id(kRunner)), 60));
  ASSERT_TRUE(runner.play(0, 0, {1.5f, 0.0, Playback::kLoop}));
  Animator box = std::move(*Animator::create(&pack_.rig(1), 60));
  ASSERT_TRUE(box.play(0, 0, {1.0f, 0.0, Playback::kPingPong}));
  Animator rest = std::move(*Animator::create(&pack_.rig(0), 60));
  for (int64_t t = 0; t < 200; ++t) {
    p.step();
    for (Animator* a : {&walker, &runner, &box, &rest}) {
      (void)a->advance(t);
      a->evaluate(t);
    }
    ASSERT_TRUE(same_palette(p.palette(id(kWalker)), walker.palette())) << t;
    ASSERT_TRUE(same_palette(p.palette(id(kRunner)), runner.palette())) << t;
    ASSERT_TRUE(same_palette(p.palette(id(kBox)), box.palette())) << t;
    ASSERT_TRUE(same_palette(p.palette(id(kIdler)), rest.palette())) << t;
  }
}

TEST_F(Player, AnObjectWithNothingToPlayHoldsTheRestPose) {
  ScenePlayer& p = *player_;
  const Skeleton& s = pack_.rig(0).skeleton();
  std::vector<Trs> locals(static_cast<size_t>(s.joint_count()));
  std::vector<Mat4> globals(locals.size()), palette(locals.size());
  ASSERT_TRUE(rest_pose(s, locals));
  ASSERT_TRUE(local_to_global(s, locals, globals));
  ASSERT_TRUE(global_to_palette(s, globals, palette));
  for (int t = 0; t < 50; ++t) p.step();
  EXPECT_TRUE(same_palette(p.palette(id(kIdler)), palette));
  EXPECT_EQ(p.animator(id(kIdler))->mix_count(), 0);
  EXPECT_TRUE(p.palette(id(kRock)).empty());
}

TEST_F(Player, ASpriteCardStepsItsFramesAndAGameSwitchesItsClip) {
  ScenePlayer& p = *player_;
  Script game;
  game.on_tick = [](ScenePlayer& sp, int64_t t) {
    if (t == 40) {
      ASSERT_TRUE(sp.play_clip(id(kHero), "jump"));
    }
  };
  std::vector<uint32_t> frames;
  std::vector<Seen> seen;
  for (int t = 0; t < 70; ++t) {
    p.step(&game);
    frames.push_back(p.sprite_frame(id(kHero)));
    for (const Seen& s : collect(p, p.animation_events())) {
      if (s.object == "hero") seen.push_back(s);
    }
    EXPECT_EQ(p.sprite_frame(id(kCard)), 0u) << "no clip: the still frame";
    EXPECT_EQ(p.sprite_frame(id(kFlag)), p.sprite(id(kFlag))->frame(t));
  }
  // run: 12 fps at 60 ticks a second, a frame every 5 ticks, frames 0 1 2 3.
  for (int t = 0; t < 40; ++t) EXPECT_EQ(frames[static_cast<size_t>(t)], (t / 5) % 4u) << t;
  // jump from tick 40: 8 fps, once: frame 6, then 7 from tick 48 (8 * 8 / 60 >= 1), held.
  for (int t = 40; t < 70; ++t) EXPECT_EQ(frames[static_cast<size_t>(t)], t < 48 ? 6u : 7u) << t;
  const std::vector<Seen> expected = {
      {5, "hero", "run", "step"},  {15, "hero", "run", "land"},   {25, "hero", "run", "step"},
      {35, "hero", "run", "land"}, {48, "hero", "jump", "touch"},
  };
  EXPECT_EQ(seen, expected);
}

TEST_F(Player, AnObjectEventTheSheetAlreadyHasFiresOnce) {
  ScenePlayer& p = *player_;
  // flag's own "step" on run frame 1 is the sheet's own: it fires once per pass.
  EXPECT_EQ(p.sprite_sheet(id(kFlag)), &pack_.sprite_sheets()[0]);
  EXPECT_NE(p.sprite_sheet(id(kHero)), &pack_.sprite_sheets()[0]);
  p.step();
  ASSERT_TRUE(p.play_clip(id(kFlag), "run"));
  int steps = 0;
  for (int t = 1; t < 21; ++t) {
    p.step();
    for (const AnimationEvent& e : p.animation_events()) steps += e.object == id(kFlag);
  }
  EXPECT_EQ(steps, 2) << "frame 1 of run is entered twice in 20 ticks at 24 fps";
}

TEST_F(Player, AClipStartedInTheCallbackPlaysFromThatTickAndItsMarksAtZeroFireOnIt) {
  ScenePlayer& p = *player_;
  Script game;
  game.on_tick = [](ScenePlayer& sp, int64_t t) {
    if (t == 37) {
      EXPECT_EQ(sp.play_tick(), 37);
      ASSERT_TRUE(sp.play_clip(id(kIdler), "Rotate"));
    }
  };
  Animator ref = std::move(*Animator::create(&pack_.rig(0), 60));
  for (int64_t t = 0; t < 40; ++t) {
    p.step(&game);
    if (t == 37) {
      ASSERT_TRUE(ref.play(3, 37));
    }
    const std::span<const AnimEvent> ref_events = ref.advance(t);
    ref.evaluate(t);
    ASSERT_TRUE(same_palette(p.palette(id(kIdler)), ref.palette())) << t;
    std::vector<std::string> idler;
    for (const AnimationEvent& e : p.animation_events()) {
      if (e.object == id(kIdler)) idler.emplace_back(e.event);
    }
    ASSERT_EQ(idler.size(), ref_events.size()) << t;
    if (t == 37) {
      EXPECT_EQ(idler, std::vector<std::string>{"start"});
    }
  }
}

TEST_F(Player, CallsBetweenStepsActAtTheNextTick) {
  ScenePlayer& p = *player_;
  for (int t = 0; t < 10; ++t) p.step();
  EXPECT_EQ(p.tick(), 9);
  EXPECT_EQ(p.play_tick(), 10);
  ASSERT_TRUE(p.play_clip(id(kIdler), "Rotate"));
  p.step();
  std::vector<Seen> idler;
  for (const Seen& s : collect(p, p.animation_events())) {
    if (s.object == "idler") idler.push_back(s);
  }
  EXPECT_EQ(idler, (std::vector<Seen>{{10, "idler", "Rotate", "start"}}));
}

TEST_F(Player, AGamesBlendsAndCrossfadesMatchAReferenceAnimator) {
  ScenePlayer& p = *player_;
  Script game;
  game.on_tick = [](ScenePlayer& sp, int64_t t) {
    const ObjectId idler = id(kIdler), runner = id(kRunner);
    switch (t) {
      case 10:
        ASSERT_TRUE(sp.animate(idler, "Linear").blend("Rotate", 0.3f).done());
        break;
      case 40:
        ASSERT_TRUE(sp.animate(idler, "Cubic").fade(0.25).speed(0.5f).ping_pong().done());
        break;
      case 55:
        ASSERT_TRUE(sp.blend_clip(idler, "Step", 0.5f));
        break;
      case 70:
        sp.animate(idler, "Rotate").fade(0.5).blend("Linear", 0.25f).blend("Step", 0.5f);
        break;
      case 100:
        ASSERT_TRUE(sp.animate(idler, "Step").once().start(0.2).done());
        ASSERT_TRUE(sp.play_clip(runner, "Linear"));  // the object's speed 1.5 by default
        break;
      case 130:
        ASSERT_TRUE(sp.animate(idler, "Linear").looped().speed(2.0f).done());
        ASSERT_TRUE(sp.stop_animation(runner));
        break;
      default:
        break;
    }
  };
  Animator idler = std::move(*Animator::create(&pack_.rig(0), 60));
  Animator runner = std::move(*Animator::create(p.rig(id(kRunner)), 60));
  ASSERT_TRUE(runner.play(0, 0, {1.5f, 0.0, Playback::kLoop}));
  const uint16_t step = 0, linear = 1, cubic = 2, rotate = 3;
  for (int64_t t = 0; t < 200; ++t) {
    p.step(&game);
    switch (t) {
      case 10:
        ASSERT_TRUE(idler.play(linear, t));
        ASSERT_TRUE(idler.blend(rotate, 0.3f, t));
        break;
      case 40:
        ASSERT_TRUE(idler.crossfade(cubic, 0.25, t, {0.5f, 0.0, Playback::kPingPong}));
        break;
      case 55:
        ASSERT_TRUE(idler.blend(step, 0.5f, t));
        break;
      case 70:
        ASSERT_TRUE(idler.crossfade(rotate, 0.5, t));
        ASSERT_TRUE(idler.blend(linear, 0.25f, t));
        ASSERT_TRUE(idler.blend(step, 0.5f, t));
        break;
      case 100:
        ASSERT_TRUE(idler.play(step, t, {1.0f, 0.2, Playback::kOnce}));
        ASSERT_TRUE(runner.play(linear, t, {1.5f, 0.0, Playback::kLoop}));
        break;
      case 130:
        ASSERT_TRUE(idler.play(linear, t, {2.0f, 0.0, Playback::kLoop}));
        runner.stop();
        break;
      default:
        break;
    }
    const std::span<const AnimEvent> idler_events = idler.advance(t);
    std::vector<std::pair<uint16_t, std::string_view>> want;
    for (const AnimEvent& e : idler_events) want.emplace_back(e.clip, e.name);
    const std::span<const AnimEvent> runner_events = runner.advance(t);
    std::vector<std::pair<uint16_t, std::string_view>> want_runner;
    for (const AnimEvent& e : runner_events) want_runner.emplace_back(e.clip, e.name);
    idler.evaluate(t);
    runner.evaluate(t);
    ASSERT_TRUE(same_palette(p.palette(id(kIdler)), idler.palette())) << t;
    ASSERT_TRUE(same_palette(p.palette(id(kRunner)), runner.palette())) << t;
    std::vector<std::pair<uint16_t, std::string_view>> got, got_runner;
    for (const AnimationEvent& e : p.animation_events()) {
      if (e.object == id(kIdler)) got.emplace_back(e.clip, e.event);
      if (e.object == id(kRunner)) got_runner.emplace_back(e.clip, e.event);
    }
    ASSERT_EQ(got, want) << t;
    ASSERT_EQ(got_runner, want_runner) << t;
    ASSERT_TRUE(p.animation_errors().empty()) << t;
  }
}

TEST_F(Player, ASpriteTakesSpeedAndStartLikeItsOwnPlayer) {
  ScenePlayer& p = *player_;
  Script game;
  game.on_tick = [](ScenePlayer& sp, int64_t t) {
    if (t == 3) {
      ASSERT_TRUE(sp.animate(id(kFlag), "run").speed(0.5f).start(0.25).done());
    }
    if (t == 30) {
      ASSERT_TRUE(sp.animate(id(kFlag), "jump").looped().done());
    }
  };
  SpritePlayer ref = std::move(*SpritePlayer::create(&pack_.sprite_sheets()[0], 60));
  ASSERT_TRUE(ref.play(1, 0, {2.0f, 0.0, std::nullopt}));
  for (int64_t t = 0; t < 90; ++t) {
    p.step(&game);
    if (t == 3) {
      ASSERT_TRUE(ref.play(0, t, {0.5f, 0.25, std::nullopt}));
    }
    if (t == 30) {
      ASSERT_TRUE(ref.play(2, t, {2.0f, 0.0, Playback::kLoop}));
    }
    const std::span<const SpriteEvent> events = ref.advance(t);
    size_t got = 0;
    for (const AnimationEvent& e : p.animation_events()) got += e.object == id(kFlag);
    ASSERT_EQ(got, events.size()) << t;
    ASSERT_EQ(p.sprite_frame(id(kFlag)), ref.frame(t)) << t;
  }
}

TEST_F(Player, RefusedCallsAppearInAnimationErrorsAndAreClearedNextTick) {
  ScenePlayer& p = *player_;
  // A twin that receives none of the refused calls poses the same: refusals change nothing.
  const Pack twin_pack = make_pack();
  ScenePlayer twin = std::move(*ScenePlayer::create(&twin_pack, 60));
  Script game;
  std::vector<ErrorCode> codes;
  game.on_tick = [&](ScenePlayer& sp, int64_t t) {
    if (t != 5) return;
    auto code = [](const Result<void>& r) { return r ? ErrorCode::kOk : r.error().code(); };
    codes = {
        code(sp.play_clip(id(kWalker), "Jog")),
        code(sp.animate(id(kWalker), "Linear").blend("Jog", 0.5f).done()),
        code(sp.animate(id(kWalker), "Linear").blend("Rotate", 1.5f).done()),
        code(sp.animate(id(kWalker), "Linear").speed(-1.0f).done()),
        code(sp.animate(id(kWalker), "Linear").start(-1.0).done()),
        code(sp.animate(id(kWalker), "Linear").fade(-0.5).done()),
        code(sp.animate(id(kWalker), "Linear")
                 .blend("Step", 0.1f)
                 .blend("Step", 0.1f)
                 .blend("Step", 0.1f)
                 .blend("Step", 0.1f)
                 .done()),
        code(sp.animate(id(kHero), "run").blend("idle", 0.5f).done()),
        code(sp.animate(id(kHero), "run").fade(0.2).done()),
        code(sp.blend_clip(id(kHero), "idle", 0.5f)),
        code(sp.play_clip(id(kHero), "fly")),
        code(sp.play_clip(id(kRock), "Step")),
        code(sp.play_clip(ObjectId{}, "Step")),
        code(sp.stop_animation(ObjectId{99})),
    };
  };
  const std::vector<ErrorCode> expected = {
      ErrorCode::kUnknownClip,     ErrorCode::kUnknownClip,     ErrorCode::kBadWeight,
      ErrorCode::kBadSpeed,        ErrorCode::kBadStart,        ErrorCode::kInvalidArgument,
      ErrorCode::kTooManyLayers,   ErrorCode::kInvalidArgument, ErrorCode::kInvalidArgument,
      ErrorCode::kInvalidArgument, ErrorCode::kUnknownClip,     ErrorCode::kInvalidArgument,
      ErrorCode::kInvalidArgument, ErrorCode::kInvalidArgument,
  };
  for (int64_t t = 0; t < 8; ++t) {
    p.step(&game);
    twin.step();
    for (uint32_t o = 0; o < kCount; ++o) {
      ASSERT_TRUE(same_palette(p.palette(id(o)), twin.palette(id(o)))) << t << " " << o;
      ASSERT_EQ(p.sprite_frame(id(o)), twin.sprite_frame(id(o))) << t << " " << o;
    }
    if (t == 5) {
      EXPECT_EQ(codes, expected);
      ASSERT_EQ(p.animation_errors().size(), expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(p.animation_errors()[i].error.code(), expected[i]) << i;
        EXPECT_EQ(p.animation_errors()[i].tick, 5);
      }
      EXPECT_EQ(p.animation_errors()[0].object, id(kWalker));
      EXPECT_EQ(p.animation_errors()[7].object, id(kHero));
    } else {
      EXPECT_TRUE(p.animation_errors().empty()) << t;
    }
  }
  // A refusal between steps acts at the next tick: kept through that tick's step.
  EXPECT_FALSE(p.play_clip(id(kRunner), "Nope"));
  ASSERT_EQ(p.animation_errors().size(), 1u);
  EXPECT_EQ(p.animation_errors()[0].tick, 8);
  p.step();
  ASSERT_EQ(p.animation_errors().size(), 1u);
  p.step();
  EXPECT_TRUE(p.animation_errors().empty());
  EXPECT_EQ(p.dropped_errors(), 0u);
}

TEST_F(Player, ABuilderAppliesItselfWhenDestroyedAndDoneReturnsTheFirstResult) {
  ScenePlayer& p = *player_;
  p.animate(id(kIdler), "Linear").blend("Rotate", 0.3f);
  const Animator& a = *p.animator(id(kIdler));
  ASSERT_EQ(a.mix_count(), 1);
  EXPECT_EQ(a.layer_count(0), 2);
  Animate call = p.animate(id(kIdler), "Nope");
  EXPECT_EQ(call.done().error().code(), ErrorCode::kUnknownClip);
  EXPECT_EQ(call.done().error().code(), ErrorCode::kUnknownClip);
  EXPECT_EQ(p.animation_errors().size(), 1u) << "applied once";
}

TEST_F(Player, StopAnimationReturnsTheRestPoseOrTheStillFrame) {
  ScenePlayer& p = *player_;
  for (int t = 0; t < 13; ++t) p.step();
  EXPECT_NE(p.sprite_frame(id(kFlag)), 4u);
  ASSERT_TRUE(p.stop_animation(id(kFlag)));
  ASSERT_TRUE(p.stop_animation(id(kWalker)));
  EXPECT_FALSE(p.stop_animation(id(kRock)));
  p.step();
  EXPECT_EQ(p.sprite_frame(id(kFlag)), 4u) << "the first frame of its clip idle";
  EXPECT_TRUE(same_palette(p.palette(id(kWalker)), p.palette(id(kIdler))));
  EXPECT_TRUE(p.animation_events().empty() || p.animation_events()[0].object != id(kWalker));
}

TEST_F(Player, TheAnimatedHookRunsOnTicksWithEventsAndItsCallsActNextTick) {
  ScenePlayer& p = *player_;
  Script game;
  std::vector<int64_t> ticks;
  game.on_events = [&](ScenePlayer& sp, std::span<const AnimationEvent> events) {
    ticks.push_back(events[0].tick);
    EXPECT_EQ(events.data(), sp.animation_events().data());
    if (events[0].tick == 10) {
      EXPECT_EQ(sp.play_tick(), 11);
      ASSERT_TRUE(sp.play_clip(id(kIdler), "Rotate"));
    }
  };
  for (int t = 0; t < 12; ++t) p.step(&game);
  EXPECT_EQ(ticks, (std::vector<int64_t>{0, 5, 10, 11}));
}

TEST_F(Player, ThePosedSnapshotMatchesPaletteAndSpriteFrame) {
  ScenePlayer& p = *player_;
  std::vector<std::vector<Mat4>> last(kCount);
  for (int t = 0; t < 75; ++t) {
    for (uint32_t o = 0; o < kCount; ++o) {
      const std::span<const Mat4> pal = p.palette(id(o));
      last[o].assign(pal.begin(), pal.end());
    }
    p.step();
    const Posed& posed = p.posed();
    EXPECT_EQ(posed.tick, t);
    ASSERT_EQ(posed.objects.size(), size_t{kCount});
    for (uint32_t o = 0; o < kCount; ++o) {
      const PosedObject& po = posed.objects[o];
      EXPECT_EQ(po.object, static_cast<int>(o));
      EXPECT_EQ(po.mesh, pack_.objects()[o].mesh);
      EXPECT_TRUE(bits_equal(po.model.m, p.model(id(o)).m, 16));
      ASSERT_TRUE(same_palette(po.palette, p.palette(id(o)))) << t << " " << o;
      EXPECT_EQ(po.palette.data(), p.palette(id(o)).data());
      if (t == 0) {
        ASSERT_TRUE(same_palette(po.previous_palette, po.palette)) << o;
      } else {
        ASSERT_TRUE(same_palette(po.previous_palette, last[o])) << t << " " << o;
      }
      EXPECT_EQ(po.sprite_frame, p.sprite_frame(id(o)));
      EXPECT_EQ(po.sprite_sheet, p.sprite(id(o)) ? 0 : -1);
    }
  }
  const Mat4 walker = p.model(id(kWalker));
  EXPECT_EQ(walker.m[12], 1.0f);
  EXPECT_EQ(walker.m[13], 2.0f);
  EXPECT_EQ(walker.m[14], 3.0f);
}

TEST_F(Player, FaceCameraObjectsTurnAboutTheirPositionToFaceTheCamera) {
  ScenePlayer& p = *player_;
  Camera camera;
  camera.eye = {5, 3, 1};  // to the hero's +x, above it
  camera.target = {0, 1, 1};
  const Posed& posed = p.posed(&camera);
  const Mat4& hero = posed.objects[kHero].model;
  // Its +z axis points at the eye, horizontally; +y stays up; the position stays.
  EXPECT_NEAR(hero.m[8], 1.0f, 1e-6f);
  EXPECT_NEAR(hero.m[9], 0.0f, 1e-6f);
  EXPECT_NEAR(hero.m[10], 0.0f, 1e-6f);
  EXPECT_EQ(hero.m[5], 1.0f);
  EXPECT_EQ(hero.m[12], 0.0f);
  EXPECT_EQ(hero.m[13], 1.0f);
  EXPECT_EQ(hero.m[14], 1.0f);
  // Others are not turned; without a camera nothing is.
  EXPECT_TRUE(bits_equal(posed.objects[kFlag].model.m, p.model(id(kFlag)).m, 16));
  EXPECT_TRUE(bits_equal(p.posed().objects[kHero].model.m, p.model(id(kHero)).m, 16));
  // An orthographic camera turns it against its view direction.
  camera.orthographic = true;
  camera.eye = {0, 1, 10};
  camera.target = {0, 1, 0};
  const Mat4& ortho = p.posed(&camera).objects[kHero].model;
  EXPECT_NEAR(ortho.m[10], 1.0f, 1e-6f);
  EXPECT_NEAR(ortho.m[8], 0.0f, 1e-6f);
}

TEST_F(Player, NodeRigPalettesAreTheNodesWorldMatrices) {
  ScenePlayer& p = *player_;
  for (int t = 0; t < 40; ++t) p.step();
  const Animator& box = *p.animator(id(kBox));
  ASSERT_EQ(p.palette(id(kBox)).size(), 2u);
  EXPECT_TRUE(same_palette(p.palette(id(kBox)), box.globals()));
  // The lid is 1 above the base, turned by Spin about +y.
  EXPECT_EQ(p.palette(id(kBox))[1].m[13], 1.0f);
}

}  // namespace
}  // namespace animpack
