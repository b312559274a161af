// The scene player's state machines (format 3 packs, tests/fixtures/graph_fixture.h):
// parameters set by the game drive transitions at the tick they act at; parameter errors
// are values kept in animation_errors(); play calls are refused on objects with states
// and taken by objects with layers only; Animate's masked and additive layers pose as an
// Animator driven by hand; overlays fire their marks only while weighted.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/scene_player.h"
#include "fixtures/graph_fixture.h"
#include "fixtures/graph_golden_run.h"

namespace animpack {
namespace {

constexpr ObjectId kHero{0}, kLayered{1}, kPlain{2};

bool same_palette(std::span<const Mat4> a, std::span<const Mat4> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!bits_equal(a[i].m, b[i].m, 16)) return false;
  }
  return true;
}

Pack open(const CookedPack& cooked) {
  Result<Pack> pack = Pack::from_bytes(write_pack(cooked));
  EXPECT_TRUE(pack) << pack.error().message();
  return pack ? std::move(*pack) : Pack();
}

class ScenePlayerGraph : public ::testing::Test {
 protected:
  void SetUp() override {
    pack_ = open(fixture::make_graph_pack());
    auto p = ScenePlayer::create(&pack_, 60);
    ASSERT_TRUE(p) << p.error().message();
    player_.emplace(std::move(*p));
  }
  Pack pack_;
  std::optional<ScenePlayer> player_;
};

// Records each tick's state of the hero, and runs `at` inside Game::tick.
struct Recorder : Game {
  std::function<void(ScenePlayer&, int64_t)> at;
  std::vector<std::string> states;
  void tick(ScenePlayer& p, int64_t t) override {
    if (at) at(p, t);
  }
  void record(const ScenePlayer& p) { states.emplace_back(p.state(kHero)); }
};

TEST_F(ScenePlayerGraph, ObjectsWithAGraphGetAStateMachineOverALeadAnimator) {
  ScenePlayer& p = *player_;
  ASSERT_NE(p.state_machine(kHero), nullptr);
  ASSERT_NE(p.state_machine(kLayered), nullptr);
  EXPECT_EQ(p.state_machine(kPlain), nullptr);
  EXPECT_EQ(p.state_machine(ObjectId{}), nullptr);
  EXPECT_EQ(p.state(kHero), "locomotion");  // the first state, from tick 0
  EXPECT_EQ(p.state(kLayered), "");         // layers only: no state
  EXPECT_EQ(p.state(kPlain), "");
  EXPECT_EQ(&p.state_machine(kHero)->graph(), &*pack_.objects()[0].animation.graph);
  EXPECT_EQ(*p.parameter(kHero, "speed"), 0.0f);
  EXPECT_EQ(*p.parameter(kHero, "grounded"), 1.0f);
  // The layers are overlays from tick 0: the hero's two, the layered object's one.
  EXPECT_EQ(*p.animator(kHero)->layer_clip(p.state_machine(kHero)->overlay(1)),
            fixture::kBreatheClip);
  EXPECT_TRUE(p.animator(kLayered)->layer_clip(p.state_machine(kLayered)->overlay(0)));
}

TEST_F(ScenePlayerGraph, SetParameterDrivesTransitions) {
  ScenePlayer& p = *player_;
  Recorder game;
  game.at = [](ScenePlayer& sp, int64_t t) {
    if (t == 10) {
      ASSERT_TRUE(sp.fire_trigger(kHero, "jump"));  // seen by tick 10
    }
  };
  for (int t = 0; t < 200; ++t) {
    p.step(&game);
    game.record(p);
  }
  // Tick 10: locomotion -> jump on the trigger, which it consumes.
  EXPECT_EQ(game.states[9], "locomotion");
  EXPECT_EQ(game.states[10], "jump");
  // jump (Rotate, 2 s, once) -> locomotion at exit time 0.95: 1.9 s = 114 ticks after 10.
  EXPECT_EQ(game.states[123], "jump");
  EXPECT_EQ(game.states[124], "locomotion");
  EXPECT_EQ(*p.parameter(kHero, "jump"), 0.0f) << "consumed by the transition";
  EXPECT_EQ(p.state_machine(kHero)->transitions_fired(), 2u);

  // A value set between steps acts at play_tick(): any -> strafe when speed > 5 and
  // grounded, on the very next tick.
  ASSERT_TRUE(p.set_parameter(kHero, "speed", 5.5f));
  EXPECT_EQ(p.state(kHero), "locomotion") << "nothing acts before the step";
  p.step();
  EXPECT_EQ(p.state(kHero), "strafe");
  // strafe has no way out but the any-state transition, which never fires into itself;
  // a trigger no transition takes stays set.
  ASSERT_TRUE(p.fire_trigger(kHero, "jump"));
  for (int t = 0; t < 30; ++t) p.step();
  EXPECT_EQ(p.state(kHero), "strafe");
  EXPECT_EQ(*p.parameter(kHero, "jump"), 1.0f);
  EXPECT_EQ(p.state_machine(kHero)->transitions_fired(), 3u);
  // A bool: grounded false keeps strafe from being entered again after play_state.
  ASSERT_TRUE(p.set_parameter(kHero, "grounded", false));
  ASSERT_TRUE(p.play_state(kHero, "locomotion", 0.0));
  EXPECT_EQ(p.state(kHero), "locomotion");
  p.step();
  EXPECT_EQ(p.state(kHero), "locomotion") << "no transition on the tick play_state acts at";
  p.step();
  EXPECT_EQ(p.state(kHero), "jump") << "the trigger left set fires locomotion -> jump";
  for (int t = 0; t < 150; ++t) p.step();
  EXPECT_EQ(p.state(kHero), "locomotion") << "exit time, and grounded false holds it there";
}

TEST_F(ScenePlayerGraph, ParameterErrorsAreValuesAndKept) {
  ScenePlayer& p = *player_;
  const int64_t at = p.play_tick();
  struct Case {
    Result<void> result;
    ErrorCode code;
    ObjectId object;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Case cases[] = {
      {p.set_parameter(kHero, "sped", 1.0f), ErrorCode::kUnknownParameter, kHero},
      {p.set_parameter(kHero, "jump", 1.0f), ErrorCode::kWrongParameterKind, kHero},
      {p.set_parameter(kHero, "speed", true), ErrorCode::kWrongParameterKind, kHero},
      {p.set_parameter(kHero, "grounded", 1.0f), ErrorCode::kWrongParameterKind, kHero},
      {p.set_parameter(kHero, "speed", 7.0f), ErrorCode::kBadParameterValue, kHero},
      {p.set_parameter(kHero, "speed", nan), ErrorCode::kBadParameterValue, kHero},
      {p.set_parameter(kHero, "tired", 1.5f), ErrorCode::kBadParameterValue, kHero},
      {p.fire_trigger(kHero, "speed"), ErrorCode::kWrongParameterKind, kHero},
      {p.fire_trigger(kHero, "land"), ErrorCode::kUnknownParameter, kHero},
      {p.play_state(kHero, "fly"), ErrorCode::kUnknownState, kHero},
      {p.play_state(kHero, "jump", -1.0), ErrorCode::kInvalidArgument, kHero},
      {p.set_parameter(kPlain, "speed", 1.0f), ErrorCode::kInvalidArgument, kPlain},
      {p.fire_trigger(kPlain, "jump"), ErrorCode::kInvalidArgument, kPlain},
      {p.play_state(kLayered, "jump"), ErrorCode::kUnknownState, kLayered},
      {p.set_parameter(ObjectId{7}, "speed", 1.0f), ErrorCode::kInvalidArgument, ObjectId{7}},
  };
  const std::span<const AnimationError> kept = p.animation_errors();
  ASSERT_EQ(kept.size(), std::size(cases));
  for (size_t i = 0; i < std::size(cases); ++i) {
    ASSERT_FALSE(cases[i].result) << i;
    EXPECT_EQ(cases[i].result.error().code(), cases[i].code) << i;
    EXPECT_EQ(kept[i].error.code(), cases[i].code) << i;
    EXPECT_EQ(kept[i].object, cases[i].object) << i;
    EXPECT_EQ(kept[i].tick, at) << i;
  }
  EXPECT_NE(std::string(kept[0].error.message()).find("hero"), std::string::npos)
      << kept[0].error.message();
  // Reads return their errors without keeping them; nothing changed.
  EXPECT_EQ(p.parameter(kHero, "sped").error().code(), ErrorCode::kUnknownParameter);
  EXPECT_EQ(p.parameter(kPlain, "speed").error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(p.animation_errors().size(), std::size(cases));
  EXPECT_EQ(*p.parameter(kHero, "speed"), 0.0f);
  EXPECT_EQ(p.state(kHero), "locomotion");
  // Kept through the tick they acted at, dropped when a later tick's step begins.
  p.step();
  EXPECT_EQ(p.animation_errors().size(), std::size(cases));
  p.step();
  EXPECT_TRUE(p.animation_errors().empty());
}

TEST_F(ScenePlayerGraph, PlayCallsOnAStateObjectAreRefused) {
  ScenePlayer& p = *player_;
  for (int t = 0; t < 5; ++t) p.step();
  const Animator& an = *p.animator(kHero);
  const int mixes = an.mix_count();
  const std::vector<Mat4> before(an.palette().begin(), an.palette().end());
  const Result<void> refused[] = {
      p.play_clip(kHero, "Step"),
      p.animate(kHero, "Linear").fade(0.2).done(),
      p.animate(kHero, "Step").additive("Breathe", 0.5f).done(),
      p.blend_clip(kHero, "Cubic", 0.5f),
      p.stop_animation(kHero),
  };
  for (const Result<void>& r : refused) {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(r.error().message()).find("set_parameter"), std::string::npos)
        << r.error().message();
  }
  EXPECT_EQ(p.animation_errors().size(), std::size(refused));
  EXPECT_EQ(an.mix_count(), mixes);
  EXPECT_EQ(p.state(kHero), "locomotion");
  EXPECT_TRUE(same_palette(an.palette(), before)) << "nothing changed";
  // The state machine's own calls still work.
  EXPECT_TRUE(p.play_state(kHero, "jump", 0.1));
  EXPECT_EQ(p.state(kHero), "jump");
}

// "layered" plays Linear with one overlay (Cubic, weight 0.5, mask {0, 0, 1, 1}) and no
// states: play calls replace what plays under the layer, which stays over it.
TEST_F(ScenePlayerGraph, LayersOnlyObjectTakesPlayCalls) {
  ScenePlayer& p = *player_;
  const Rig* rig = p.rig(kLayered);
  Animator hand = std::move(*Animator::create(rig, 60, {0, EventPolicy::kLead}));
  ASSERT_TRUE(hand.play(1, 0));
  const float mask[] = {0.0f, 0.0f, 1.0f, 1.0f};
  ASSERT_TRUE(hand.add_overlay(2, {0.5f, mask, LayerMode::kOverride}, 0));
  for (int64_t t = 0; t < 150; ++t) {
    if (t == 40) {
      ASSERT_TRUE(p.play_clip(kLayered, "Rotate"));
      ASSERT_TRUE(hand.play(3, t));
    }
    if (t == 90) {
      ASSERT_TRUE(p.animate(kLayered, "Step").fade(0.25).blend("Linear", 0.5f).done());
      ASSERT_TRUE(hand.crossfade(0, 0.25, t));
      ASSERT_TRUE(hand.blend(1, 0.5f, t));
    }
    p.step();
    (void)hand.advance(t);
    hand.evaluate(t);
    ASSERT_TRUE(same_palette(p.palette(kLayered), hand.palette())) << t;
  }
  EXPECT_TRUE(p.animation_errors().empty());
  // Stopping ends the play calls' mixes; the object's layer plays on over the rest pose.
  ASSERT_TRUE(p.stop_animation(kLayered));
  hand.stop_mixes();
  EXPECT_EQ(p.animator(kLayered)->mix_count(), 0);
  const Animator rest = std::move(*Animator::create(rig, 60));  // the rest pose's palette
  bool moved = false;
  for (int64_t t = 150; t < 200; ++t) {
    p.step();
    (void)hand.advance(t);
    hand.evaluate(t);
    ASSERT_TRUE(same_palette(p.palette(kLayered), hand.palette())) << t;
    moved = moved || !same_palette(p.palette(kLayered), rest.palette());
  }
  EXPECT_TRUE(moved) << "the layer still turns its joints after stop_animation";
}

// Animate::blend with a mask and Animate::additive pose as add_layer does by hand; the
// additive version is found against the first frame, else the rest pose.
TEST_F(ScenePlayerGraph, AnimateAdditiveAndMaskedLayersPoseAsAddLayer) {
  for (AdditiveReference reference :
       {AdditiveReference::kFirstFrame, AdditiveReference::kRestPose}) {
    CookedPack cooked = fixture::make_graph_pack();
    if (reference == AdditiveReference::kRestPose) {
      // Breathe as a rest-pose clip (the additive layer of the hero still plays it).
      std::vector<Clip> clips;
      for (const Clip& c : cooked.rigs[0].rig.clips()) {
        Clip copy = c.copy();
        copy.set_additive(c.additive() == AdditiveReference::kNone ? AdditiveReference::kNone
                                                                   : reference);
        clips.push_back(std::move(copy));
      }
      cooked.rigs[0].rig = *Rig::create(cooked.rigs[0].rig.skeleton(), std::move(clips));
    }
    const Pack pack = open(cooked);
    ScenePlayer p = std::move(*ScenePlayer::create(&pack, 60));
    const Rig* rig = p.rig(kPlain);
    ASSERT_EQ(rig->clips()[fixture::kBreatheClip].additive(), reference);
    Animator hand = std::move(*Animator::create(rig, 60));
    ASSERT_TRUE(hand.play(0, 0));
    const float mask[] = {1.0f, 0.25f, 0.0f, 1.0f};
    for (int64_t t = 0; t < 130; ++t) {
      if (t == 20) {
        ASSERT_TRUE(p.animate(kPlain, "Step").additive("Breathe", 0.5f).done());
        ASSERT_TRUE(hand.play(0, t));
        ASSERT_TRUE(hand.add_layer(fixture::kBreatheClip, {0.5f, {}, LayerMode::kAdditive}, t));
      }
      if (t == 70) {
        ASSERT_TRUE(p.animate(kPlain, "Linear")
                        .blend("Rotate", 0.75f, mask)
                        .additive("Breathe", 1.0f, mask)
                        .done());
        ASSERT_TRUE(hand.play(1, t));
        ASSERT_TRUE(hand.add_layer(3, {0.75f, mask, LayerMode::kOverride}, t));
        ASSERT_TRUE(hand.add_layer(fixture::kBreatheClip, {1.0f, mask, LayerMode::kAdditive}, t));
      }
      p.step();
      (void)hand.advance(t);
      hand.evaluate(t);
      ASSERT_TRUE(same_palette(p.palette(kPlain), hand.palette())) << t;
    }
    // Refusals: no additive version, a mask of the wrong size, a mask weight above 1; none
    // changes what plays.
    const float short_mask[] = {1.0f, 1.0f};
    const float big_mask[] = {1.0f, 2.0f, 1.0f, 1.0f};
    EXPECT_EQ(p.animate(kPlain, "Step").additive("Rotate", 0.5f).done().error().code(),
              ErrorCode::kUnknownClip);
    EXPECT_EQ(p.animate(kPlain, "Step").blend("Rotate", 0.5f, short_mask).done().error().code(),
              ErrorCode::kSizeMismatch);
    EXPECT_EQ(p.animate(kPlain, "Step").additive("Breathe", 0.5f, big_mask).done().error().code(),
              ErrorCode::kBadWeight);
    EXPECT_EQ(p.animate(kPlain, "Step").blend("Breathe", 0.5f).done().error().code(),
              ErrorCode::kUnknownClip)
        << "an additive clip is not an ordinary one";
    EXPECT_EQ(p.animation_errors().size(), 4u);
    p.step();
    (void)hand.advance(130);
    hand.evaluate(130);
    EXPECT_TRUE(same_palette(p.palette(kPlain), hand.palette()));
  }
}

// Overlays fire their marks while their weight is above 0 (EventPolicy::kLead): Breathe
// (weight parameter tired, "inhale" at 0.5 s, speed 0.5) is silent at tired 0.
TEST_F(ScenePlayerGraph, OverlayEventsFireOnlyWhileTheirWeightIsAboveZero) {
  ScenePlayer& p = *player_;
  auto inhales = [&](int ticks) {
    int n = 0;
    for (int t = 0; t < ticks; ++t) {
      p.step();
      for (const AnimationEvent& e : p.animation_events()) {
        if (e.object == kHero && e.event == "inhale") ++n;
      }
    }
    return n;
  };
  EXPECT_EQ(inhales(240), 0);
  ASSERT_TRUE(p.set_parameter(kHero, "tired", 1.0f));
  EXPECT_GT(inhales(240), 0);
  ASSERT_TRUE(p.set_parameter(kHero, "tired", 0.0f));
  EXPECT_EQ(inhales(240), 0);
}

// The state machines' golden run (tests/fixtures/graph_golden_run.h) over the pack the
// writer makes now: the same value as over the committed graph_v3.anpk (runtime_tests).
TEST(GraphGolden, AScriptedStateMachineGameHashesToTheGoldenValue) {
  const Pack pack = open(fixture::make_graph_pack());
  const uint64_t h = graph_golden::scripted_run(pack);
  EXPECT_EQ(h, graph_golden::kGoldenHash) << "got 0x" << std::hex << h;
  EXPECT_EQ(graph_golden::scripted_run(pack), h) << "two runs give the same bits";
}

}  // namespace
}  // namespace animpack
