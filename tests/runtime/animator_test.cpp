// The Animator: plays, blends, crossfades, playbacks, speed changes, events, refusals.
// The fixture's clips are documented in tests/fixtures/fixture.h.
#include "animpack/animator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "fixtures/fixture.h"

namespace animpack {
namespace {

constexpr int kRate = 60;

// "<number><separator><name>", built with appends (g++ 12 -O3 warns falsely on the
// operator+ chain, GCC bug 105651).
std::string label(int64_t number, const char* separator, std::string_view name) {
  std::string s = std::to_string(number);
  s.append(separator);
  s.append(name);
  return s;
}

class AnimatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto a = Animator::create(&rig_, kRate);
    ASSERT_TRUE(a) << a.error().message();
    animator_ = std::move(*a);
  }
  uint16_t clip(const char* name) { return *rig_.find_clip(name); }
  const Trs& joint(int64_t tick, int j) {
    animator_.evaluate(tick);
    return animator_.locals()[static_cast<size_t>(j)];
  }
  // "tick:name" for each event of every advance over [from, to].
  std::vector<std::string> events(int64_t from, int64_t to) {
    std::vector<std::string> out;
    for (int64_t t = from; t <= to; ++t) {
      for (const AnimEvent& e : animator_.advance(t)) {
        out.push_back(label(e.tick, ":", e.name));
      }
    }
    return out;
  }

  Rig rig_ = fixture::make_rig();
  Animator animator_;
};

void expect_vec(Vec3 v, float x, float y, float z, float eps = 1e-6f) {
  EXPECT_NEAR(v.x, x, eps);
  EXPECT_NEAR(v.y, y, eps);
  EXPECT_NEAR(v.z, z, eps);
}

TEST_F(AnimatorTest, HoldsTheRestPoseWithNothingToPlay) {
  animator_.evaluate(100);
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(animator_.locals()[j].translation, rig_.skeleton().rest_pose()[j].translation);
  }
  EXPECT_TRUE(animator_.advance(100).empty());
}

TEST_F(AnimatorTest, PlaysAClipByTickAtTheTickRate) {
  ASSERT_TRUE(animator_.play("Step", 0));
  expect_vec(joint(15, 0).translation, 0, 0, 0);  // 0.25 s
  expect_vec(joint(30, 0).translation, 1, 0, 0);  // 0.5 s
  expect_vec(joint(61, 0).translation, 0, 0, 0);  // looped to 1/60 s
}

TEST_F(AnimatorTest, ALoopWrapsAtTheClipDuration) {
  const LayerId id = *animator_.play("Linear", 0);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 150), 0.5);  // 2.5 s into a 2 s clip
  expect_vec(joint(150, 0).translation, 0, 1, 0);
}

TEST_F(AnimatorTest, OnceHoldsTheLastPose) {
  PlayOptions once;
  once.playback = Playback::kOnce;
  ASSERT_TRUE(animator_.play("Linear", 0, once));
  expect_vec(joint(180, 0).translation, 0, 0, 0);
  expect_vec(joint(180, 3).scale, 2, 2, 2);
  expect_vec(joint(1000, 3).scale, 2, 2, 2);
}

TEST_F(AnimatorTest, PingPongRunsToTheEndAndBack) {
  PlayOptions pp;
  pp.playback = Playback::kPingPong;
  const LayerId id = *animator_.play("Linear", 0, pp);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 90), 1.5);   // forward
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 150), 1.5);  // 2.5 s: back from 2 to 1.5
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 240), 0.0);  // 4 s: back at the start
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 270), 0.5);  // forward again
  expect_vec(joint(150, 3).scale, 1.75f, 1.75f, 1.75f);
}

TEST_F(AnimatorTest, ClipTimeIsOffsetPlusTicksTimesSpeedOverRate) {
  PlayOptions o;
  o.speed = 2.0f;
  o.start = 0.25;
  const LayerId id = *animator_.play("Linear", 10, o);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 10), 0.25);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 25), 0.75);  // 0.25 + 15 * 2 / 60
}

TEST_F(AnimatorTest, SpeedChangeIsRebasedSoClipTimeNeverJumps) {
  const LayerId id = *animator_.play("Linear", 0);
  ASSERT_TRUE(animator_.set_speed(id, 2.0f, 30));
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 30), 0.5);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 45), 1.0);
  ASSERT_TRUE(animator_.set_speed(id, 0.0f, 45));  // paused
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 1000), 1.0);
}

TEST_F(AnimatorTest, SetStartPutsTheLayerAtThatClipTime) {
  const LayerId id = *animator_.play("Linear", 0);
  ASSERT_TRUE(animator_.set_start(id, 1.25, 40));
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 40), 1.25);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 55), 1.5);
}

TEST_F(AnimatorTest, SetPlaybackContinuesFromTheCurrentClipTime) {
  const LayerId id = *animator_.play("Linear", 0);
  ASSERT_TRUE(animator_.set_playback(id, Playback::kOnce, 150));  // shows 0.5 s
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 150), 0.5);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(id, 600), 2.0);  // held at the end
}

TEST_F(AnimatorTest, StopReturnsTheRestPose) {
  ASSERT_TRUE(animator_.play("Linear", 0));
  expect_vec(joint(30, 0).translation, 0, 1, 0);
  animator_.stop();
  expect_vec(joint(30, 0).translation, 0, 0, 0);
  EXPECT_EQ(animator_.mix_count(), 0);
}

TEST_F(AnimatorTest, ABlendLayerMixesOverTheLayersBeforeItByItsWeight) {
  ASSERT_TRUE(animator_.play("Step", 0));
  ASSERT_TRUE(animator_.blend("Linear", 0.3f, 0));
  // At 0.5 s Step says (1,0,0) and Linear (0,1,0): 70% and 30%.
  expect_vec(joint(30, 0).translation, 0.7f, 0.3f, 0);
}

TEST_F(AnimatorTest, ABlendLayerOnlyTouchesWhatItsClipAnimates) {
  ASSERT_TRUE(animator_.play("Linear", 0));
  ASSERT_TRUE(animator_.blend("Rotate", 0.5f, 0));
  const Trs& root = joint(30, 0);
  expect_vec(root.translation, 0, 1, 0);  // Rotate does not move the root: Linear's alone
  // bone3's scale is Linear's alone too; its rotation is half rest, half Rotate.
  expect_vec(joint(30, 3).scale, 1.25f, 1.25f, 1.25f);
  const Quat r = joint(30, 1).rotation;
  // Rotate shows 0.25 rad at 0.5 s; nlerp half way from identity is about 0.125 rad.
  EXPECT_NEAR(r.z, 0.0624593f, 1e-4f);
}

TEST_F(AnimatorTest, PlayBlendSharesWeightsOutByTheirSum) {
  const BlendEntry a[] = {{clip("Step"), 0.7f}, {clip("Linear"), 0.3f}};
  ASSERT_TRUE(animator_.play_blend(a, 0));
  animator_.evaluate(30);
  const std::vector<Trs> first(animator_.locals().begin(), animator_.locals().end());
  expect_vec(first[0].translation, 0.7f, 0.3f, 0);

  const BlendEntry b[] = {{clip("Step"), 7.0f}, {clip("Linear"), 3.0f}};
  ASSERT_TRUE(animator_.play_blend(b, 0));
  animator_.evaluate(30);
  ASSERT_EQ(first.size(), animator_.locals().size());
  for (size_t j = 0; j < first.size(); ++j) {
    EXPECT_TRUE(bits_equal(&first[j].translation.x, &animator_.locals()[j].translation.x, 10))
        << "joint " << j << " poses the same bits";
  }
}

TEST_F(AnimatorTest, PlayBlendOfThreeEqualWeightsAveragesThem) {
  // Three translation clips built for the purpose: x = 0, 3 and 6 at all times.
  std::vector<Clip> clips;
  for (int i = 0; i < 3; ++i) {
    Clip c("c" + std::to_string(i));
    const float t[] = {0.0f};
    const float v[] = {3.0f * static_cast<float>(i), 0, 0};
    c.add_channel(0, Property::kTranslation, Interpolation::kStep, t, v);
    clips.push_back(std::move(c));
  }
  auto rig = Rig::create(fixture::make_skeleton(), std::move(clips));
  ASSERT_TRUE(rig);
  auto a = Animator::create(&*rig, kRate);
  ASSERT_TRUE(a);
  const BlendEntry e[] = {{0, 1.0f}, {1, 1.0f}, {2, 1.0f}};
  ASSERT_TRUE(a->play_blend(e, 0));
  a->evaluate(0);
  EXPECT_NEAR(a->locals()[0].translation.x, 3.0f, 1e-6f);
}

TEST_F(AnimatorTest, CrossfadeFadesInOverRoundedTicks) {
  ASSERT_TRUE(animator_.play("Step", 0));
  ASSERT_TRUE(animator_.crossfade("Linear", 0.5, 30));  // 30 ticks
  EXPECT_EQ(animator_.mix_count(), 2);
  EXPECT_FLOAT_EQ(animator_.mix_weight(1, 45), 0.5f);
  // Step at 0.75 s: (1,0,0); Linear at 0.25 s: (0,0.5,0); half each.
  expect_vec(joint(45, 0).translation, 0.5f, 0.25f, 0);
  // bone3: Step leaves the rest scale 1, Linear says 1.125.
  expect_vec(joint(45, 3).scale, 1.0625f, 1.0625f, 1.0625f);
  ASSERT_TRUE(animator_.crossfade("Rotate", 0.0251, 60));  // 1.506 ticks rounds to 2
  EXPECT_FLOAT_EQ(animator_.mix_weight(2, 61), 0.5f);
}

TEST_F(AnimatorTest, CrossfadeKeepsOlderMixPlaying) {
  ASSERT_TRUE(animator_.play("Step", 0));
  ASSERT_TRUE(animator_.crossfade("Rotate", 1.0, 10));  // fades in until tick 70
  const std::vector<std::string> got = events(0, 80);
  // The older mix keeps firing while the new one fades in; the new one fires from its
  // start; at tick 70 the old mix is retired.
  const std::vector<std::string> want = {"10:start", "15:step", "45:land", "70:bend"};
  EXPECT_EQ(got, want);
  EXPECT_EQ(animator_.mix_count(), 1);
}

TEST_F(AnimatorTest, AtMostFourMixesPlay) {
  ASSERT_TRUE(animator_.play("Step", 0));
  for (int i = 1; i <= 6; ++i) ASSERT_TRUE(animator_.crossfade("Linear", 10.0, i));
  EXPECT_EQ(animator_.mix_count(), kMaxMixes);
}

TEST_F(AnimatorTest, EventsFireOnEveryPassOfALoop) {
  ASSERT_TRUE(animator_.play("Step", 0));
  const std::vector<std::string> want = {"15:step", "45:land", "75:step", "105:land"};
  EXPECT_EQ(events(0, 119), want);
}

TEST_F(AnimatorTest, EventsOfAOnceClipFireOnlyOnce) {
  PlayOptions once;
  once.playback = Playback::kOnce;
  ASSERT_TRUE(animator_.play("Step", 0, once));
  const std::vector<std::string> want = {"15:step", "45:land"};
  EXPECT_EQ(events(0, 400), want);
}

TEST_F(AnimatorTest, PingPongEventsFireInBothDirections) {
  PlayOptions pp;
  pp.playback = Playback::kPingPong;
  ASSERT_TRUE(animator_.play("Step", 0, pp));
  const std::vector<std::string> want = {"15:step",  "45:land",  "75:land",
                                         "105:step", "135:step", "165:land"};
  EXPECT_EQ(events(0, 170), want);
}

TEST_F(AnimatorTest, PingPongFiresAMarkAtTheTurnOnce) {
  PlayOptions pp;
  pp.playback = Playback::kPingPong;
  ASSERT_TRUE(animator_.play("Rotate", 0, pp));  // "start" at 0, "bend" at 1, duration 2
  const std::vector<std::string> want = {"0:start", "60:bend", "180:bend", "240:start", "300:bend"};
  EXPECT_EQ(events(0, 300), want);
}

TEST_F(AnimatorTest, SkippedTicksDeliverEveryCrossingUpToSixtyFourPasses) {
  ASSERT_TRUE(animator_.play("Step", 0));
  EXPECT_TRUE(animator_.advance(0).empty());
  auto ten = animator_.advance(600);  // ten passes
  ASSERT_EQ(ten.size(), 20u);
  for (size_t i = 0; i < ten.size(); ++i) {
    EXPECT_EQ(ten[i].name, i % 2 == 0 ? "step" : "land") << i;
    EXPECT_EQ(ten[i].tick, 600);
  }
  auto many = animator_.advance(6000);  // ninety passes: capped
  EXPECT_EQ(many.size(), 2u * kMaxRepeats);
  for (size_t i = 1; i < many.size(); ++i) EXPECT_LT(many[i - 1].position, many[i].position);
  EXPECT_EQ(animator_.dropped_events(), 0u);
}

TEST_F(AnimatorTest, AStartOffsetSkipsTheMarksBeforeIt) {
  PlayOptions o;
  o.start = 0.5;
  ASSERT_TRUE(animator_.play("Step", 0, o));
  const std::vector<std::string> want = {"15:land", "45:step", "75:land"};
  EXPECT_EQ(events(0, 80), want);
}

TEST_F(AnimatorTest, MarksAtTheStartFireOnTheTickPlayBegins) {
  ASSERT_TRUE(animator_.play("Rotate", 10));
  const std::vector<std::string> want = {"10:start", "70:bend", "130:start", "190:bend"};
  EXPECT_EQ(events(0, 190), want);
}

TEST_F(AnimatorTest, EventsComeByMixThenLayerThenTime) {
  const BlendEntry e[] = {{clip("Step"), 1.0f}, {clip("Rotate"), 1.0f}};
  ASSERT_TRUE(animator_.play_blend(e, 0));
  ASSERT_EQ(animator_.advance(0).size(), 1u);  // Rotate's "start"
  auto got = animator_.advance(120);
  std::vector<std::string> names;
  for (const AnimEvent& ev : got) names.push_back(label(ev.layer, "", ev.name));
  const std::vector<std::string> want = {"0step", "0land", "0step", "0land", "1bend", "1start"};
  EXPECT_EQ(names, want);
}

TEST_F(AnimatorTest, SpeedChangesNeitherRepeatNorSkipMarks) {
  const LayerId id = *animator_.play("Step", 0);
  std::vector<std::string> got;
  for (int64_t t = 0; t <= 60; ++t) {
    if (t == 10) {
      ASSERT_TRUE(animator_.set_speed(id, 0.5f, t));
    }
    for (const AnimEvent& e : animator_.advance(t)) got.push_back(std::string(e.name));
  }
  // 10 ticks at speed 1 (1/6 s), then 50 ticks at speed 0.5: reaches 0.5833 s.
  const std::vector<std::string> want = {"step"};
  EXPECT_EQ(got, want);
}

TEST_F(AnimatorTest, RefusesAnUnknownClip) {
  auto r = animator_.play("Jog", 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kUnknownClip);
  EXPECT_EQ(animator_.play(uint16_t{99}, 0).error().code(), ErrorCode::kUnknownClip);
  EXPECT_EQ(animator_.crossfade("Jog", 0.2, 0).error().code(), ErrorCode::kUnknownClip);
}

TEST_F(AnimatorTest, RefusesBadWeights) {
  ASSERT_TRUE(animator_.play("Step", 0));
  EXPECT_EQ(animator_.blend("Linear", -0.1f, 0).error().code(), ErrorCode::kBadWeight);
  EXPECT_EQ(animator_.blend("Linear", 1.5f, 0).error().code(), ErrorCode::kBadWeight);
  EXPECT_EQ(animator_.blend("Linear", std::numeric_limits<float>::quiet_NaN(), 0).error().code(),
            ErrorCode::kBadWeight);
  const BlendEntry zero[] = {{clip("Step"), 1.0f}, {clip("Linear"), 0.0f}};
  EXPECT_EQ(animator_.play_blend(zero, 0).error().code(), ErrorCode::kBadWeight);
  EXPECT_EQ(animator_.mix_count(), 1) << "a refused call changes nothing";
}

TEST_F(AnimatorTest, RefusesANegativeSpeedAndStart) {
  PlayOptions o;
  o.speed = -1.0f;
  EXPECT_EQ(animator_.play("Step", 0, o).error().code(), ErrorCode::kBadSpeed);
  o.speed = 1.0f;
  o.start = -0.5;
  EXPECT_EQ(animator_.play("Step", 0, o).error().code(), ErrorCode::kBadStart);
  const LayerId id = *animator_.play("Step", 0);
  EXPECT_EQ(animator_.set_speed(id, -2.0f, 5).error().code(), ErrorCode::kBadSpeed);
}

TEST_F(AnimatorTest, RefusesBlendingOverNothingAndTooManyLayers) {
  EXPECT_EQ(animator_.blend("Step", 0.5f, 0).error().code(), ErrorCode::kNothingPlaying);
  ASSERT_TRUE(animator_.play("Step", 0));
  for (int i = 1; i < kMaxLayers; ++i) ASSERT_TRUE(animator_.blend("Linear", 0.5f, 0));
  EXPECT_EQ(animator_.blend("Linear", 0.5f, 0).error().code(), ErrorCode::kTooManyLayers);
}

TEST_F(AnimatorTest, RefusesALayerThatNoLongerPlays) {
  const LayerId old = *animator_.play("Step", 0);
  ASSERT_TRUE(animator_.play("Linear", 1));
  EXPECT_EQ(animator_.set_speed(old, 1.0f, 2).error().code(), ErrorCode::kNoSuchLayer);
  EXPECT_EQ(animator_.set_weight(LayerId{}, 0.5f).error().code(), ErrorCode::kNoSuchLayer);
}

TEST(Animator, RefusesATickRateThatIsNotPositive) {
  const Rig rig = fixture::make_rig();
  EXPECT_EQ(Animator::create(&rig, 0).error().code(), ErrorCode::kBadTickRate);
  EXPECT_EQ(Animator::create(nullptr, 60).error().code(), ErrorCode::kInvalidArgument);
}

TEST_F(AnimatorTest, PaletteIsGlobalTimesInverseBind) {
  ASSERT_TRUE(animator_.play("Rotate", 0));
  animator_.evaluate(30);
  const auto g = animator_.globals();
  const auto p = animator_.palette();
  for (size_t j = 0; j < 4; ++j) {
    const Mat4 want = mul_affine(g[j], rig_.skeleton().inverse_binds()[j]);
    EXPECT_TRUE(bits_equal(want.m, p[j].m, 16)) << j;
  }
}

}  // namespace
}  // namespace animpack
