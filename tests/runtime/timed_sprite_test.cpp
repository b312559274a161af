// Timed and reversed sprite clips (SpriteClip::create_timed, the rule at the top of
// animpack/sprite.h) and atlases with placements (Atlas::create). Expected ticks are
// worked out by hand: position i starts at tick round(C_i * rate / 1000), C_i the
// milliseconds before it, rounding half up.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "animpack/limits.h"
#include "animpack/sprite.h"

namespace animpack {
namespace {

template <typename T>
T must(Result<T> r) {
  if (!r) {
    ADD_FAILURE() << r.error().message();
    std::abort();
  }
  return std::move(*r);
}

template <typename T>
ErrorCode code_of(const Result<T>& r) {
  return r ? ErrorCode::kOk : r.error().code();
}

// A 128 x 64 atlas of 32 x 32 cells: frames 0..7.
Atlas eight_cells() { return must(Atlas::grid({128, 64}, {32, 32}, 8)); }

SpriteClip timed(std::vector<uint32_t> frames, std::vector<uint32_t> ms, Playback playback,
                 bool reverse = false, std::vector<FrameEvent> events = {}) {
  return must(SpriteClip::create_timed("c", std::move(frames), std::move(ms), playback, reverse,
                                       std::move(events)));
}

SpriteSheet sheet_of(SpriteClip clip) {
  return must(SpriteSheet::create(eight_cells(), {std::move(clip)}));
}

// The atlas frames shown at ticks 0..count-1 after play(0) at speed 1.
std::vector<uint32_t> frames_over(const SpriteSheet& sheet, int32_t rate, int64_t count,
                                  const SpritePlayOptions& o = {}) {
  SpritePlayer player = must(SpritePlayer::create(&sheet, rate));
  EXPECT_TRUE(player.play(uint16_t{0}, 0, o));
  std::vector<uint32_t> out;
  for (int64_t t = 0; t < count; ++t) out.push_back(player.frame(t));
  return out;
}

struct Fired {
  int64_t tick, step;
  uint16_t event;
  bool operator==(const Fired&) const = default;
};

std::vector<Fired> fired(std::span<const SpriteEvent> events) {
  std::vector<Fired> out;
  for (const SpriteEvent& e : events) out.push_back({e.tick, e.step, e.event});
  return out;
}

// ------------------------------------------------------------------------ SpriteClip

TEST(TimedSpriteClip, KeepsDurationsReverseAndTheAverageRate) {
  const SpriteClip c = timed({0, 1, 2, 3}, {100, 100, 200, 100}, Playback::kLoop, true);
  EXPECT_EQ(std::vector<uint32_t>(c.durations_ms().begin(), c.durations_ms().end()),
            (std::vector<uint32_t>{100, 100, 200, 100}));
  EXPECT_TRUE(c.reverse());
  EXPECT_FLOAT_EQ(c.fps(), 8.0f);  // 4 frames in 500 ms
}

TEST(TimedSpriteClip, RefusesADurationsListOfAnotherLength) {
  EXPECT_EQ(code_of(SpriteClip::create_timed("c", {0, 1}, {100}, Playback::kLoop, false)),
            ErrorCode::kInvalidArgument);
}

TEST(TimedSpriteClip, RefusesAZeroDuration) {
  EXPECT_EQ(code_of(SpriteClip::create_timed("c", {0, 1}, {100, 0}, Playback::kLoop, false)),
            ErrorCode::kInvalidArgument);
}

TEST(TimedSpriteClip, RefusesAFrameLongerThanTheLimit) {
  EXPECT_EQ(
      code_of(SpriteClip::create_timed("c", {0}, {kMaxSpriteFrameMs + 1}, Playback::kLoop, false)),
      ErrorCode::kInvalidArgument);
}

TEST(TimedSpriteClip, RefusesAClipLongerThanTheLimit) {
  const uint32_t frames = static_cast<uint32_t>(kMaxSpriteClipMs / kMaxSpriteFrameMs) + 1;
  EXPECT_EQ(code_of(SpriteClip::create_timed("c", std::vector<uint32_t>(frames, 0),
                                             std::vector<uint32_t>(frames, kMaxSpriteFrameMs),
                                             Playback::kLoop, false)),
            ErrorCode::kInvalidArgument);
}

TEST(TimedSpriteClip, RefusesNoFrames) {
  EXPECT_EQ(code_of(SpriteClip::create_timed("c", {}, {}, Playback::kLoop, false)),
            ErrorCode::kBadFrame);
}

// ------------------------------------------------------------------- Atlas::create

AtlasFrame trimmed_frame() {
  AtlasFrame f;
  f.rect = {10, 20, 30, 40};
  f.placement.source = {64, 64};
  f.placement.trimmed = {5, 6, 30, 40};
  f.placement.pivot_x = 32;
  f.placement.pivot_y = 60;
  f.name = "hero 0.aseprite";
  return f;
}

TEST(AtlasCreate, KeepsPlacementsAndNames) {
  AtlasFrame rotated = trimmed_frame();
  rotated.placement.rotated = true;
  rotated.placement.trimmed = {0, 0, 40, 30};
  const Atlas atlas = must(Atlas::create({128, 128}, {trimmed_frame(), rotated}));
  EXPECT_TRUE(atlas.has_placements());
  EXPECT_EQ(atlas.name(0), "hero 0.aseprite");
  const SpriteDraw d = must(atlas.draw(1));
  EXPECT_TRUE(d.placement.rotated);
  EXPECT_EQ(d.placement.trimmed.width, 40u);
  EXPECT_FLOAT_EQ(d.uv.u0, 10.0f / 128.0f);
  EXPECT_EQ(must(atlas.placement(0)).trimmed.x, 5u);
}

TEST(AtlasCreate, DefaultPlacementsStoreNone) {
  AtlasFrame f;
  f.rect = {0, 0, 16, 8};
  f.placement.source = {16, 8};
  f.placement.trimmed = {0, 0, 16, 8};
  f.placement.pivot_x = 8;
  f.placement.pivot_y = 4;
  const Atlas atlas = must(Atlas::create({32, 32}, {f}));
  EXPECT_FALSE(atlas.has_placements());
  EXPECT_EQ(atlas.name(0), "");
}

TEST(AtlasCreate, RefusesATrimmedBoxOutsideTheSource) {
  AtlasFrame f = trimmed_frame();
  f.placement.trimmed.x = 40;  // 40 + 30 > 64
  EXPECT_EQ(code_of(Atlas::create({128, 128}, {f})), ErrorCode::kBadAtlas);
}

TEST(AtlasCreate, RefusesATrimmedSizeThatIsNotTheRects) {
  AtlasFrame f = trimmed_frame();
  f.placement.rotated = true;  // the rect would have to be 40 x 30
  EXPECT_EQ(code_of(Atlas::create({128, 128}, {f})), ErrorCode::kBadAtlas);
}

TEST(AtlasCreate, RefusesAZeroSource) {
  AtlasFrame f = trimmed_frame();
  f.placement.source = {0, 64};
  EXPECT_EQ(code_of(Atlas::create({128, 128}, {f})), ErrorCode::kBadAtlas);
}

TEST(AtlasCreate, RefusesAPivotNotFinite) {
  AtlasFrame f = trimmed_frame();
  f.placement.pivot_x = std::numeric_limits<float>::infinity();
  EXPECT_EQ(code_of(Atlas::create({128, 128}, {f})), ErrorCode::kBadAtlas);
}

// ------------------------------------------------------------------ the tick rule

TEST(TimedSpritePlayer, AFrameOf100MsAt60HzLastsSixTicks) {
  const SpriteSheet sheet = sheet_of(timed({3, 5}, {100, 100}, Playback::kLoop));
  EXPECT_EQ(frames_over(sheet, 60, 13),
            (std::vector<uint32_t>{3, 3, 3, 3, 3, 3, 5, 5, 5, 5, 5, 5, 3}));
}

TEST(TimedSpritePlayer, FrameStartsRoundHalfUpSoTheTotalIsKept) {
  // C = 0, 33, 50, 100, 125 ms; * 60 / 1000 = 0, 1.98, 3, 6, 7.5 ticks -> 0, 2, 3, 6, 8.
  const SpriteSheet sheet = sheet_of(timed({0, 1, 2, 3}, {33, 17, 50, 25}, Playback::kLoop));
  EXPECT_EQ(frames_over(sheet, 60, 10), (std::vector<uint32_t>{0, 0, 1, 2, 2, 2, 3, 3, 0, 0}));
}

// The frame at tick k by the integer tick rule alone, for a forward kLoop clip.
uint32_t frame_by_ticks(const std::vector<uint32_t>& ms, int64_t rate, int64_t k) {
  std::vector<int64_t> starts{0};
  int64_t c = 0;
  for (uint32_t d : ms) {
    c += d;
    starts.push_back((c * rate + 500) / 1000);
  }
  if (starts.back() == 0) starts.back() = 1;
  const int64_t r = k % starts.back();
  uint32_t frame = 0;
  for (size_t i = 0; i < ms.size(); ++i) {
    if (starts[i] <= r) frame = static_cast<uint32_t>(i);
  }
  return frame;
}

TEST(TimedSpritePlayer, TheTimeRuleAtSpeedOneIsTheTickRule) {
  uint32_t seed = 99;
  auto next = [&seed](uint32_t bound) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % bound;
  };
  const int32_t rates[] = {24, 30, 60, 144, 1000, 44100};
  for (int round = 0; round < 60; ++round) {
    const uint32_t n = 1 + next(8);
    std::vector<uint32_t> frames(n), ms(n);
    for (uint32_t i = 0; i < n; ++i) {
      frames[i] = i;
      ms[i] = 1 + next(next(2) == 0 ? 40 : 400);
    }
    const int32_t rate = rates[next(6)];
    const SpriteSheet sheet = sheet_of(timed(frames, ms, Playback::kLoop));
    SpritePlayer player = must(SpritePlayer::create(&sheet, rate));
    ASSERT_TRUE(player.play(uint16_t{0}, 0));  // speed 1.0f, start 0: the time rule
    for (int64_t k = 0; k < 400; ++k)
      ASSERT_EQ(player.frame(k), frame_by_ticks(ms, rate, k)) << "round " << round << " " << k;
    for (int64_t k = int64_t{1} << 40; k < (int64_t{1} << 40) + 50; ++k)
      ASSERT_EQ(player.frame(k), frame_by_ticks(ms, rate, k)) << "round " << round << " " << k;
  }
}

TEST(TimedSpritePlayer, OneMsFramesAt30HzAreEnteredButNeverShown) {
  // C = 0, 1, 2, 102, 103 ms -> ticks 0, 0, 0, 3, 3: frames 0, 1 and 3 last 0 ticks.
  const SpriteSheet sheet = sheet_of(timed({4, 5, 6, 7}, {1, 1, 100, 1}, Playback::kLoop, false,
                                           {{"a", 0}, {"b", 1}, {"c", 2}, {"d", 3}}));
  EXPECT_EQ(frames_over(sheet, 30, 4), (std::vector<uint32_t>{6, 6, 6, 6}));
  SpritePlayer player = must(SpritePlayer::create(&sheet, 30));
  ASSERT_TRUE(player.play(uint16_t{0}, 0));
  EXPECT_EQ(fired(player.advance(0)), (std::vector<Fired>{{0, 0, 0}, {0, 1, 1}, {0, 2, 2}}));
  EXPECT_TRUE(player.advance(2).empty());
  EXPECT_EQ(fired(player.advance(3)),
            (std::vector<Fired>{{3, 3, 3}, {3, 4, 0}, {3, 5, 1}, {3, 6, 2}}));
}

TEST(TimedSpritePlayer, AClipShorterThanHalfATickLastsOneTick) {
  // 1 + 1 ms at 30 Hz rounds to 0 ticks: the last frame lasts one tick, a pass a tick.
  const SpriteSheet sheet =
      sheet_of(timed({4, 5}, {1, 1}, Playback::kLoop, false, {{"a", 0}, {"b", 1}}));
  SpritePlayer player = must(SpritePlayer::create(&sheet, 30));
  ASSERT_TRUE(player.play(uint16_t{0}, 0));
  EXPECT_EQ(player.frame(0), 5u);
  EXPECT_EQ(player.frame(7), 5u);
  EXPECT_EQ(player.advance(0).size(), 2u);
  EXPECT_EQ(fired(player.advance(1)), (std::vector<Fired>{{1, 2, 0}, {1, 3, 1}}));
}

TEST(TimedSpritePlayer, HugeDurationsKeepExactTicks) {
  // Nearly a day (3599999 ms, then 23 hours of one hour) at 2^31 - 1 ticks a second.
  std::vector<uint32_t> ms(24, kMaxSpriteFrameMs);
  ms[0] = kMaxSpriteFrameMs - 1;
  std::vector<uint32_t> atlas_frames(24);
  for (uint32_t i = 0; i < 24; ++i) atlas_frames[i] = i % 8;
  const SpriteSheet sheet = sheet_of(timed(atlas_frames, ms, Playback::kLoop));
  SpritePlayer player = must(SpritePlayer::create(&sheet, std::numeric_limits<int32_t>::max()));
  ASSERT_TRUE(player.play(uint16_t{0}, 0));
  // Frame 1 starts at round(3599999 * 2147483647 / 1000) = round(7730938981716.353).
  EXPECT_EQ(player.step(7730938981715), 0);
  EXPECT_EQ(player.step(7730938981716), 1);
  // The clip: round(86399999 * 2147483647 / 1000) = round(185542584953316.353) ticks.
  EXPECT_EQ(player.step(185542584953315), 23);
  EXPECT_EQ(player.step(185542584953316), 24);
  EXPECT_EQ(player.frame(185542584953316), 0u);
}

// ----------------------------------------------------------------------- playbacks

TEST(TimedSpritePlayer, OnceHoldsTheLastFrameAndEntersNothingAfter) {
  // 0, 6, 18 ticks at 60 Hz.
  const SpriteSheet sheet =
      sheet_of(timed({4, 5}, {100, 200}, Playback::kOnce, false, {{"end", 1}}));
  SpritePlayer player = must(SpritePlayer::create(&sheet, 60));
  ASSERT_TRUE(player.play(uint16_t{0}, 0));
  EXPECT_EQ(player.frame(5), 4u);
  EXPECT_EQ(player.frame(6), 5u);
  EXPECT_EQ(player.frame(18), 5u);
  EXPECT_EQ(player.frame(100000), 5u);
  EXPECT_EQ(fired(player.advance(100000)), (std::vector<Fired>{{6, 1, 0}}));
  EXPECT_TRUE(player.advance(200000).empty());
}

TEST(TimedSpritePlayer, PingPongGivesEachFrameItsLengthBothWays) {
  // 0, 6, 18, 36 ticks out; back: frame 1 for 12 ticks (36..48), then frame 0 again.
  const SpriteSheet sheet = sheet_of(timed({4, 5, 6}, {100, 200, 300}, Playback::kPingPong));
  SpritePlayer player = must(SpritePlayer::create(&sheet, 60));
  ASSERT_TRUE(player.play(uint16_t{0}, 0));
  const std::pair<int64_t, uint32_t> expected[] = {{0, 4},  {5, 4},  {6, 5},  {17, 5}, {18, 6},
                                                   {35, 6}, {36, 5}, {47, 5}, {48, 4}, {53, 4},
                                                   {54, 5}, {66, 6}, {84, 5}, {96, 4}};
  for (const auto& [tick, frame] : expected) EXPECT_EQ(player.frame(tick), frame) << tick;
  EXPECT_EQ(player.step(47), 3);
  EXPECT_EQ(player.step(48), 4);
}

TEST(TimedSpritePlayer, ReversePlaysTheFramesLastToFirstWithEventsOnTheirFrames) {
  // Play order: clip frames 2, 1, 0 lasting 300, 200, 100 ms: ticks 0, 18, 30, 36.
  const SpriteSheet sheet = sheet_of(
      timed({4, 5, 6}, {100, 200, 300}, Playback::kLoop, true, {{"first", 0}, {"last", 2}}));
  SpritePlayer player = must(SpritePlayer::create(&sheet, 60));
  ASSERT_TRUE(player.play(uint16_t{0}, 0));
  EXPECT_EQ(player.frame(0), 6u);
  EXPECT_EQ(player.frame(17), 6u);
  EXPECT_EQ(player.frame(18), 5u);
  EXPECT_EQ(player.frame(30), 4u);
  EXPECT_EQ(player.frame(36), 6u);
  // "last" (clip frame 2) plays first, "first" (clip frame 0) at step 2.
  EXPECT_EQ(fired(player.advance(0)), (std::vector<Fired>{{0, 0, 1}}));
  EXPECT_EQ(fired(player.advance(40)), (std::vector<Fired>{{30, 2, 0}, {36, 3, 1}}));
}

TEST(TimedSpritePlayer, ReversePingPongTurnsAtTheFirstFrame) {
  // Play order 2, 1, 0: ticks 0, 18, 30, 36; back: clip frame 1 for 12 ticks (36..48).
  const SpriteSheet sheet =
      sheet_of(timed({4, 5, 6}, {100, 200, 300}, Playback::kPingPong, true, {{"mid", 1}}));
  SpritePlayer player = must(SpritePlayer::create(&sheet, 60));
  ASSERT_TRUE(player.play(uint16_t{0}, 0));
  const std::pair<int64_t, uint32_t> expected[] = {{0, 6},  {18, 5}, {30, 4}, {35, 4},
                                                   {36, 5}, {47, 5}, {48, 6}, {66, 5}};
  for (const auto& [tick, frame] : expected) EXPECT_EQ(player.frame(tick), frame) << tick;
  EXPECT_EQ(fired(player.advance(70)), (std::vector<Fired>{{18, 1, 0}, {36, 3, 0}, {66, 5, 0}}));
}

// -------------------------------------------------------------- speed, start, setters

TEST(TimedSpritePlayer, StartAndSpeedFollowTheTimeRule) {
  // 100 ms frames at 60 Hz; start 0.1 s = 6 ticks in; double speed: 2 clip ticks a tick.
  const SpriteSheet sheet = sheet_of(timed({4, 5, 6}, {100, 100, 100}, Playback::kLoop));
  EXPECT_EQ(frames_over(sheet, 60, 4, {1.0f, 0.1, std::nullopt}),
            (std::vector<uint32_t>{5, 5, 5, 5}));
  EXPECT_EQ(frames_over(sheet, 60, 7, {2.0f, 0.0, std::nullopt}),
            (std::vector<uint32_t>{4, 4, 4, 5, 5, 5, 6}));
  EXPECT_EQ(frames_over(sheet, 60, 2, {0.0f, 0.25, std::nullopt}),
            (std::vector<uint32_t>{6, 6}));  // speed 0 holds 15 ticks in
}

TEST(TimedSpritePlayer, SetSpeedMidFrameKeepsTheFrameAndGoesOnFromThere) {
  const SpriteSheet sheet = sheet_of(timed({4, 5}, {100, 100}, Playback::kLoop));
  SpritePlayer player = must(SpritePlayer::create(&sheet, 60));
  ASSERT_TRUE(player.play(uint16_t{0}, 0));
  ASSERT_TRUE(player.set_speed(2.0f, 3));  // clip tick 3, then 2 a tick: 6 at tick 4.5
  EXPECT_EQ(player.frame(3), 4u);
  EXPECT_EQ(player.frame(4), 4u);
  EXPECT_EQ(player.frame(5), 5u);
  EXPECT_EQ(player.step(5), 1);
  ASSERT_TRUE(player.set_speed(0.5f, 5));  // clip tick 7, then half a tick a tick
  EXPECT_EQ(player.frame(14), 5u);         // 7 + 4.5 = 11.5
  EXPECT_EQ(player.frame(15), 4u);         // 12: the next pass
}

TEST(TimedSpritePlayer, SetStartJumpsToTheFrameHoldingThatTime) {
  const SpriteSheet sheet =
      sheet_of(timed({4, 5, 6}, {100, 200, 100}, Playback::kLoop, false, {{"b", 1}}));
  SpritePlayer player = must(SpritePlayer::create(&sheet, 60));
  ASSERT_TRUE(player.play(uint16_t{0}, 0));
  (void)player.advance(0);
  ASSERT_TRUE(player.set_start(0.25, 10));  // 15 clip ticks: frame 1 (6..18)
  EXPECT_EQ(player.frame(10), 5u);
  EXPECT_EQ(fired(player.advance(10)), (std::vector<Fired>{{10, 1, 0}}));
  EXPECT_EQ(player.frame(13), 6u);
}

TEST(TimedSpritePlayer, SetPlaybackKeepsTheStepAndItsFraction) {
  // Loop steps 3.. show frames 0, 1, 2; ping-pong step 3 shows frame 1 (back), 12 ticks.
  const SpriteSheet sheet = sheet_of(timed({4, 5, 6}, {100, 200, 300}, Playback::kLoop));
  SpritePlayer player = must(SpritePlayer::create(&sheet, 60));
  ASSERT_TRUE(player.play(uint16_t{0}, 0));
  EXPECT_EQ(player.step(39), 3);  // loop: 36 + 3 ticks into frame 0 (6 ticks long)
  ASSERT_TRUE(player.set_playback(Playback::kPingPong, 39));
  EXPECT_EQ(player.step(39), 3);
  EXPECT_EQ(player.frame(39), 5u);  // half of 12 ticks: 6 left
  EXPECT_EQ(player.frame(44), 5u);
  EXPECT_EQ(player.frame(45), 4u);  // step 4
  EXPECT_EQ(player.step(45), 4);
}

TEST(TimedSpritePlayer, EventsFromALongSkipFireAtMost64PassesAtTheirTicks) {
  // 0, 6, 18 ticks; "b" enters at 6 + 18 k.
  const SpriteSheet sheet = sheet_of(timed({4, 5}, {100, 200}, Playback::kLoop, false, {{"b", 1}}));
  SpritePlayer player = must(SpritePlayer::create(&sheet, 60));
  ASSERT_TRUE(player.play(uint16_t{0}, 0));
  EXPECT_TRUE(player.advance(0).empty());
  const std::vector<Fired> got = fired(player.advance(10000000));
  ASSERT_EQ(got.size(), static_cast<size_t>(kSpriteMaxRepeats));
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].tick, 6 + 18 * static_cast<int64_t>(k));
    EXPECT_EQ(got[k].step, 1 + 2 * static_cast<int64_t>(k));
  }
  EXPECT_EQ(player.dropped_events(), 0u);
}

TEST(TimedSpritePlayer, SkippingTicksFiresWhatTickByTickFires) {
  uint32_t seed = 7;
  auto next = [&seed](uint32_t bound) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % bound;
  };
  const Playback playbacks[] = {Playback::kLoop, Playback::kOnce, Playback::kPingPong};
  for (int round = 0; round < 150; ++round) {
    const uint32_t n = 1 + next(6);
    std::vector<uint32_t> frames(n), ms(n);
    for (uint32_t i = 0; i < n; ++i) {
      frames[i] = next(8);
      ms[i] = 1 + next(next(3) == 0 ? 20 : 300);
    }
    std::vector<FrameEvent> events(next(4));
    for (size_t i = 0; i < events.size(); ++i) events[i] = {"e" + std::to_string(i), next(n)};
    const SpriteSheet sheet =
        sheet_of(timed(frames, ms, playbacks[next(3)], next(2) == 0, std::move(events)));
    const int32_t rate = next(2) == 0 ? 30 : 60;
    const SpritePlayOptions o{next(2) == 0 ? 1.0f : 1.75f, next(2) == 0 ? 0.0 : 0.3, std::nullopt};
    SpritePlayer each = must(SpritePlayer::create(&sheet, rate));
    SpritePlayer skipping = each;
    ASSERT_TRUE(each.play(uint16_t{0}, 0, o));
    ASSERT_TRUE(skipping.play(uint16_t{0}, 0, o));
    std::vector<Fired> a, b;
    int64_t tick = 0;
    for (int call = 0; call < 30; ++call) {
      tick += next(9);
      const auto got = fired(skipping.advance(tick));
      b.insert(b.end(), got.begin(), got.end());
    }
    for (int64_t t = 0; t <= tick; ++t) {
      const auto got = fired(each.advance(t));
      a.insert(a.end(), got.begin(), got.end());
    }
    EXPECT_EQ(a, b) << "round " << round;
    EXPECT_EQ(each.frame(tick), skipping.frame(tick));
  }
}

}  // namespace
}  // namespace animpack
