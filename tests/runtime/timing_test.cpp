// The Animator's and SpritePlayer's timing contract: API bounds (animpack/limits.h) that
// keep every call finite, marks at exact decimal times firing on their tick, the loop
// seam's order, and catch-up loops that stay bounded at any tick.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/limits.h"
#include "animpack/sprite.h"
#include "fixtures/fixture.h"

namespace animpack {
namespace {

// A one-joint rig with one clip "c": root translation keys at 0 and `duration`, and the
// given events.
Rig one_clip_rig(float duration, const std::vector<std::pair<std::string, float>>& events) {
  std::vector<Joint> joints(1);
  joints[0].name = "root";
  Result<Skeleton> skeleton = Skeleton::create(std::move(joints), {}, Mat4{});
  EXPECT_TRUE(skeleton);
  Clip clip("c");
  const float times[] = {0.0f, duration};
  const float values[] = {0, 0, 0, 1, 0, 0};
  clip.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, values);
  for (const auto& [name, time] : events) clip.add_event(name, time);
  std::vector<Clip> clips;
  clips.push_back(std::move(clip));
  Result<Rig> rig = Rig::create(std::move(*skeleton), std::move(clips));
  EXPECT_TRUE(rig) << (rig ? "" : rig.error().message());
  return rig ? std::move(*rig) : Rig{};
}

// "tick:name" of every event delivered by advancing each tick of [from, to].
std::vector<std::string> events(Animator& a, int64_t from, int64_t to) {
  std::vector<std::string> out;
  for (int64_t t = from; t <= to; ++t) {
    for (const AnimEvent& e : a.advance(t)) {
      std::string s = std::to_string(t);
      s.append(":");
      s.append(e.name);
      out.push_back(s);
    }
  }
  return out;
}

// --------------------------------------------------------------------- the bounds

TEST(AnimatorBounds, RefusesSpeedsAboveTheMaximum) {
  const Rig rig = fixture::make_rig();
  Animator a = *Animator::create(&rig, 60);
  PlayOptions o;
  o.speed = 1e30f;
  EXPECT_EQ(a.play("Step", 0, o).error().code(), ErrorCode::kBadSpeed);
  EXPECT_EQ(a.crossfade("Step", 0.1, 0, o).error().code(), ErrorCode::kBadSpeed);
  o.speed = kMaxSpeed * 1.001f;
  EXPECT_EQ(a.play("Step", 0, o).error().code(), ErrorCode::kBadSpeed);
  o.speed = std::numeric_limits<float>::infinity();
  EXPECT_EQ(a.play("Step", 0, o).error().code(), ErrorCode::kBadSpeed);
  o.speed = kMaxSpeed;
  const Result<LayerId> id = a.play("Step", 0, o);
  ASSERT_TRUE(id);
  EXPECT_EQ(a.set_speed(*id, 1e30f, 5).error().code(), ErrorCode::kBadSpeed);
  EXPECT_EQ(a.blend("Linear", 0.5f, 0, PlayOptions{1e30f}).error().code(), ErrorCode::kBadSpeed);
}

TEST(AnimatorBounds, RefusesStartsAboveTheMaximum) {
  const Rig rig = fixture::make_rig();
  Animator a = *Animator::create(&rig, 60);
  PlayOptions o;
  o.start = 1e19;
  EXPECT_EQ(a.play("Step", 0, o).error().code(), ErrorCode::kBadStart);
  EXPECT_EQ(a.crossfade("Step", 0.1, 0, o).error().code(), ErrorCode::kBadStart);
  o.start = kMaxStartSeconds;
  const Result<LayerId> id = a.play("Step", 0, o);
  ASSERT_TRUE(id);
  EXPECT_EQ(a.set_start(*id, 1e19, 3).error().code(), ErrorCode::kBadStart);
  EXPECT_EQ(a.crossfade("Step", 1e9, 0).error().code(), ErrorCode::kInvalidArgument);
}

TEST(AnimatorBounds, RefusesClipsShorterThanTheMinimumOrLongerThanTheMaximum) {
  std::vector<Joint> joints(1);
  Skeleton skeleton = *Skeleton::create(joints, {}, Mat4{});
  const float values[] = {0, 0, 0, 1, 0, 0};
  for (const float end : {1e-30f, kMinClipSeconds * 0.5f, kMaxClipSeconds * 1.001f}) {
    Clip clip("tiny");
    const float times[] = {0.0f, end};
    clip.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, values);
    std::vector<Clip> clips;
    clips.push_back(std::move(clip));
    const Result<Rig> rig = Rig::create(skeleton, std::move(clips));
    ASSERT_FALSE(rig) << end;
    EXPECT_EQ(rig.error().code(), ErrorCode::kBadClip);
  }
  for (const float end : {kMinClipSeconds, kMaxClipSeconds}) {
    Clip clip("fine");
    const float times[] = {0.0f, end};
    clip.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, values);
    std::vector<Clip> clips;
    clips.push_back(std::move(clip));
    EXPECT_TRUE(Rig::create(skeleton, std::move(clips))) << end;
  }
}

TEST(AnimatorBounds, AdvanceAtAnAstronomicalTickEndsAndCountsWhatItCannotResolve) {
  // The longest reach of a layer: the fastest speed at 1 tick a second, the shortest
  // clip, every playback, up to the largest tick. Each advance ends (at most
  // kMaxRepeats passes per mark) and positions double can no longer tell apart are
  // counted as dropped, not spun on.
  const Rig rig = one_clip_rig(kMinClipSeconds, {{"a", 0.0f}, {"b", kMinClipSeconds}});
  for (const Playback p : {Playback::kLoop, Playback::kPingPong, Playback::kOnce}) {
    Animator a = *Animator::create(&rig, 1);
    PlayOptions o;
    o.speed = kMaxSpeed;
    o.start = kMaxStartSeconds;
    o.playback = p;
    ASSERT_TRUE(a.play(uint16_t{0}, 0, o));
    (void)a.advance(0);
    const auto late = a.advance(std::numeric_limits<int64_t>::max() / 2);
    EXPECT_LE(late.size(), size_t{4} * kMaxRepeats);
    const auto last = a.advance(std::numeric_limits<int64_t>::max());
    EXPECT_LE(last.size(), size_t{4} * kMaxRepeats);
    if (p != Playback::kOnce) {
      EXPECT_GT(a.dropped_events(), 0u) << playback_name(p);
    }
    a.evaluate(std::numeric_limits<int64_t>::max());
    EXPECT_TRUE(std::isfinite(a.locals()[0].translation.x));
  }
}

TEST(AnimatorBounds, ALongSkipOverAShortLoopDeliversTheCappedPasses) {
  const Rig rig = one_clip_rig(kMinClipSeconds, {{"a", 0.0f}});
  Animator a = *Animator::create(&rig, 60);
  ASSERT_TRUE(a.play(uint16_t{0}, 0));
  (void)a.advance(0);
  const auto got = a.advance(60 * 3600);  // 3.6e7 passes
  EXPECT_EQ(got.size(), static_cast<size_t>(kMaxRepeats));
  EXPECT_EQ(a.dropped_events(), 0u);
}

// ------------------------------------------------------------ marks on their ticks

TEST(AnimatorTiming, MarksAtExactDecimalTimesFireOnTheirTick) {
  const float third = 1.0f / 3.0f;
  const Rig rig = one_clip_rig(1.0f, {{"a", 0.1f}, {"b", third}, {"c", 0.4f}, {"d", 0.7f}});
  {
    Animator a = *Animator::create(&rig, 60);
    PlayOptions once;
    once.playback = Playback::kOnce;
    ASSERT_TRUE(a.play(uint16_t{0}, 0, once));
    const std::vector<std::string> want = {"6:a", "20:b", "24:c", "42:d"};
    EXPECT_EQ(events(a, 0, 80), want);
  }
  {
    Animator a = *Animator::create(&rig, 30);
    ASSERT_TRUE(a.play(uint16_t{0}, 0));
    const std::vector<std::string> want = {"3:a",  "10:b", "12:c", "21:d",
                                           "33:a", "40:b", "42:c", "51:d"};
    EXPECT_EQ(events(a, 0, 59), want);
  }
  {
    Animator a = *Animator::create(&rig, 60);
    PlayOptions half;
    half.speed = 0.5f;
    ASSERT_TRUE(a.play(uint16_t{0}, 0, half));
    const std::vector<std::string> want = {"12:a", "40:b", "48:c", "84:d"};
    EXPECT_EQ(events(a, 0, 100), want);
  }
  {
    Animator a = *Animator::create(&rig, 60);
    PlayOptions pp;
    pp.playback = Playback::kPingPong;
    ASSERT_TRUE(a.play(uint16_t{0}, 0, pp));
    const std::vector<std::string> want = {"6:a",  "20:b", "24:c",  "42:d",
                                           "78:d", "96:c", "100:b", "114:a"};
    EXPECT_EQ(events(a, 0, 119), want);
  }
}

TEST(AnimatorTiming, ALoopOfAnExactDecimalDurationWrapsOnTheTick) {
  const Rig rig = one_clip_rig(0.4f, {{"a", 0.0f}});
  Animator a = *Animator::create(&rig, 60);
  const Result<LayerId> id = a.play(uint16_t{0}, 0);
  ASSERT_TRUE(id);
  const std::vector<std::string> want = {"0:a", "24:a", "48:a", "72:a"};
  EXPECT_EQ(events(a, 0, 80), want);
  EXPECT_EQ(*a.clip_time(*id, 24), 0.0);
  EXPECT_EQ(*a.clip_time(*id, 48), 0.0);
}

TEST(AnimatorTiming, MarksAtTheStartFireOnTheFirstTickAtDecimalStarts) {
  const Rig rig = one_clip_rig(1.0f, {{"c", 0.4f}});
  Animator a = *Animator::create(&rig, 60);
  PlayOptions o;
  o.start = 0.4;
  ASSERT_TRUE(a.play(uint16_t{0}, 10, o));
  const std::vector<std::string> want = {"10:c", "70:c"};
  EXPECT_EQ(events(a, 0, 80), want);
}

// ------------------------------------------------------------------ the loop seam

TEST(AnimatorTiming, AtALoopSeamTheEndMarkComesBeforeTheNextPassesStartMark) {
  const Rig rig = one_clip_rig(0.5f, {{"begin", 0.0f}, {"end", 0.5f}});
  Animator a = *Animator::create(&rig, 60);
  ASSERT_TRUE(a.play(uint16_t{0}, 0));
  const std::vector<std::string> want = {"0:begin", "30:end", "30:begin", "60:end", "60:begin"};
  EXPECT_EQ(events(a, 0, 60), want);
  // The same order over a skipped stretch, within one advance.
  Animator b = *Animator::create(&rig, 60);
  ASSERT_TRUE(b.play(uint16_t{0}, 0));
  (void)b.advance(0);
  std::vector<std::string> names;
  for (const AnimEvent& e : b.advance(90)) names.emplace_back(e.name);
  const std::vector<std::string> skipped = {"end", "begin", "end", "begin", "end", "begin"};
  EXPECT_EQ(names, skipped);
}

TEST(AnimatorTiming, AtAPingPongTurnTheMarksComeInPlayOrder) {
  const Rig rig = one_clip_rig(0.5f, {{"begin", 0.0f}, {"mid", 0.25f}, {"end", 0.5f}});
  Animator a = *Animator::create(&rig, 60);
  PlayOptions pp;
  pp.playback = Playback::kPingPong;
  ASSERT_TRUE(a.play(uint16_t{0}, 0, pp));
  const std::vector<std::string> want = {"0:begin",  "15:mid", "30:end", "45:mid",
                                         "60:begin", "75:mid", "90:end"};
  EXPECT_EQ(events(a, 0, 90), want);
  Animator b = *Animator::create(&rig, 60);
  ASSERT_TRUE(b.play(uint16_t{0}, 0, pp));
  (void)b.advance(0);
  std::vector<std::string> names;
  for (const AnimEvent& e : b.advance(90)) names.emplace_back(e.name);
  const std::vector<std::string> skipped = {"mid", "end", "mid", "begin", "mid", "end"};
  EXPECT_EQ(names, skipped);
}

// ------------------------------------------------------------------------ sprites

TEST(SpriteBounds, RefusesSpeedsStartsAndFrameRatesOutOfBounds) {
  EXPECT_FALSE(SpriteClip::create("fast", {0}, kMaxSpriteFps * 2.0f, Playback::kLoop, {}));
  EXPECT_FALSE(SpriteClip::create("slow", {0}, kMinSpriteFps * 0.5f, Playback::kLoop, {}));
  Atlas atlas = *Atlas::grid({16, 16}, {8, 8}, 4);
  std::vector<SpriteClip> clips;
  clips.push_back(*SpriteClip::create("run", {0, 1, 2, 3}, 12.0f, Playback::kLoop, {{"s", 1}}));
  const SpriteSheet sheet = *SpriteSheet::create(atlas, std::move(clips));
  SpritePlayer p = *SpritePlayer::create(&sheet, 60);
  SpritePlayOptions o;
  o.speed = 1e30f;
  EXPECT_EQ(p.play("run", 0, o).error().code(), ErrorCode::kBadSpeed);
  o.speed = 1.0f;
  o.start = 1e19;
  EXPECT_EQ(p.play("run", 0, o).error().code(), ErrorCode::kBadStart);
  o.start = 0.0;
  ASSERT_TRUE(p.play("run", 0, o));
  EXPECT_EQ(p.set_speed(kMaxSpeed * 2.0f, 1).error().code(), ErrorCode::kBadSpeed);
  EXPECT_EQ(p.set_start(kMaxStartSeconds * 2.0, 1).error().code(), ErrorCode::kBadStart);
}

}  // namespace
}  // namespace animpack
