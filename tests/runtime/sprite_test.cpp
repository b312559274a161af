// Sprite atlases, clips and the sprite player (animpack/sprite.h). Expected values are
// worked out by hand: at 60 ticks a second and 12 fps a step lasts 5 ticks, so step s
// begins at tick 5 s (at speed 1 from tick 0).
#include "animpack/sprite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace animpack {
namespace {

constexpr int32_t kRate = 60;
constexpr float kFps = 12.0f;

// The value of a Result that the test expects to succeed.
template <typename T>
T must(Result<T> r) {
  if (!r) {
    ADD_FAILURE() << r.error().message();
    std::abort();
  }
  return std::move(*r);
}

// A 128 x 64 atlas of 32 x 32 cells: 4 columns, 2 rows, frames 0..7.
Atlas eight_cells() { return must(Atlas::grid({128, 64}, {32, 32}, 8)); }

SpriteClip clip(std::string name, std::vector<uint32_t> frames, Playback playback,
                std::vector<FrameEvent> events = {}) {
  return must(
      SpriteClip::create(std::move(name), std::move(frames), kFps, playback, std::move(events)));
}

SpriteSheet sheet_of(std::vector<SpriteClip> clips) {
  return must(SpriteSheet::create(eight_cells(), std::move(clips)));
}

SpritePlayer player_of(const SpriteSheet& sheet, uint32_t event_capacity = 0) {
  return must(SpritePlayer::create(&sheet, kRate, event_capacity));
}

std::vector<int64_t> steps_of(std::span<const SpriteEvent> events) {
  std::vector<int64_t> steps;
  for (const SpriteEvent& e : events) steps.push_back(e.step);
  return steps;
}

std::vector<int64_t> ticks_of(std::span<const SpriteEvent> events) {
  std::vector<int64_t> ticks;
  for (const SpriteEvent& e : events) ticks.push_back(e.tick);
  return ticks;
}

std::vector<std::string> names_of(std::span<const SpriteEvent> events) {
  std::vector<std::string> names;
  for (const SpriteEvent& e : events) names.emplace_back(e.name);
  return names;
}

SpritePlayOptions options(float speed, double start) {
  SpritePlayOptions o;
  o.speed = speed;
  o.start = start;
  return o;
}
SpritePlayOptions at_speed(float speed) { return options(speed, 0.0); }
SpritePlayOptions from_start(double start) { return options(1.0f, start); }
SpritePlayOptions with_playback(Playback playback) {
  SpritePlayOptions o;
  o.playback = playback;
  return o;
}

template <typename T>
ErrorCode code_of(const Result<T>& r) {
  return r ? ErrorCode::kOk : r.error().code();
}

// ------------------------------------------------------------------------------ Atlas

TEST(Atlas, GridCutsLeftToRightThenTopToBottom) {
  const Atlas atlas = must(Atlas::grid({96, 64}, {32, 32}, 5));
  ASSERT_EQ(atlas.frame_count(), 5u);
  const uint32_t expected[5][2] = {{0, 0}, {32, 0}, {64, 0}, {0, 32}, {32, 32}};
  for (uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(atlas.frames()[i].x, expected[i][0]) << i;
    EXPECT_EQ(atlas.frames()[i].y, expected[i][1]) << i;
    EXPECT_EQ(atlas.frames()[i].width, 32u);
    EXPECT_EQ(atlas.frames()[i].height, 32u);
  }
  EXPECT_EQ(atlas.size().width, 96u);
  EXPECT_EQ(atlas.size().height, 64u);
}

TEST(Atlas, GridLeavesSpacingBetweenCellsAndAMarginAround) {
  // 100 x 60 with 20 px cells, 4 px apart, 2 px margin: columns at 2, 26, 50, 74
  // (74 + 20 = 94 <= 98), rows at 2, 26 (26 + 20 = 46 <= 58): 8 cells.
  const Atlas atlas = must(Atlas::grid({100, 60}, {20, 20}, 8, {4, 2}));
  const uint32_t expected[8][2] = {{2, 2},  {26, 2},  {50, 2},  {74, 2},
                                   {2, 26}, {26, 26}, {50, 26}, {74, 26}};
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(atlas.frames()[i].x, expected[i][0]) << i;
    EXPECT_EQ(atlas.frames()[i].y, expected[i][1]) << i;
  }
  EXPECT_EQ(code_of(Atlas::grid({100, 60}, {20, 20}, 9, {4, 2})), ErrorCode::kBadAtlas);
}

TEST(Atlas, GridRefusesMoreCellsThanFit) {
  EXPECT_EQ(code_of(Atlas::grid({96, 64}, {32, 32}, 7)), ErrorCode::kBadAtlas);
}

TEST(Atlas, GridRefusesACellLargerThanTheImage) {
  EXPECT_EQ(code_of(Atlas::grid({16, 16}, {32, 8}, 1)), ErrorCode::kBadAtlas);
}

TEST(Atlas, GridRefusesAMarginThatLeavesNoRoom) {
  EXPECT_EQ(code_of(Atlas::grid({64, 64}, {32, 32}, 1, {0, 17})), ErrorCode::kBadAtlas);
}

TEST(Atlas, GridRefusesAZeroCell) {
  EXPECT_EQ(code_of(Atlas::grid({64, 64}, {0, 32}, 1)), ErrorCode::kBadAtlas);
  EXPECT_EQ(code_of(Atlas::grid({64, 64}, {32, 0}, 1)), ErrorCode::kBadAtlas);
}

TEST(Atlas, GridRefusesAZeroImage) {
  EXPECT_EQ(code_of(Atlas::grid({0, 64}, {32, 32}, 1)), ErrorCode::kBadAtlas);
}

TEST(Atlas, GridRefusesZeroCells) {
  EXPECT_EQ(code_of(Atlas::grid({64, 64}, {32, 32}, 0)), ErrorCode::kBadAtlas);
}

TEST(Atlas, RectsKeepTheirOrder) {
  const Atlas atlas = must(Atlas::rects({64, 32}, {{40, 0, 24, 32}, {0, 8, 10, 10}}));
  ASSERT_EQ(atlas.frame_count(), 2u);
  EXPECT_EQ(atlas.frames()[0].x, 40u);
  EXPECT_EQ(atlas.frames()[1].y, 8u);
  EXPECT_EQ(atlas.frames()[1].width, 10u);
}

TEST(Atlas, RectsRefuseARectOutsideTheImage) {
  // x + width = 129 > 128.
  EXPECT_EQ(code_of(Atlas::rects({128, 64}, {{0, 0, 8, 8}, {100, 0, 29, 10}})),
            ErrorCode::kBadAtlas);
  // y + height = 65 > 64.
  EXPECT_EQ(code_of(Atlas::rects({128, 64}, {{0, 60, 8, 5}})), ErrorCode::kBadAtlas);
  // Far outside: no wrap-around in x + width.
  EXPECT_EQ(code_of(Atlas::rects({128, 64}, {{0xffffffffu, 0, 2, 2}})), ErrorCode::kBadAtlas);
}

TEST(Atlas, RectsRefuseAnEmptyRect) {
  EXPECT_EQ(code_of(Atlas::rects({128, 64}, {{0, 0, 0, 8}})), ErrorCode::kBadAtlas);
}

TEST(Atlas, RectsRefuseNoRects) {
  EXPECT_EQ(code_of(Atlas::rects({128, 64}, {})), ErrorCode::kBadAtlas);
}

TEST(Atlas, UvIsThePixelRectOverTheImageSize) {
  // Frame 5 of the 4 x 2 grid: column 1, row 1, pixels (32, 32) to (64, 64) of 128 x 64.
  const UvRect uv = must(eight_cells().uv(5));
  EXPECT_EQ(uv.u0, 0.25f);
  EXPECT_EQ(uv.v0, 0.5f);
  EXPECT_EQ(uv.u1, 0.5f);
  EXPECT_EQ(uv.v1, 1.0f);
  // (10, 16) + 20 x 8 in 40 x 32.
  const UvRect r = must(must(Atlas::rects({40, 32}, {{10, 16, 20, 8}})).uv(0));
  EXPECT_EQ(r.u0, 0.25f);
  EXPECT_EQ(r.v0, 0.5f);
  EXPECT_EQ(r.u1, 0.75f);
  EXPECT_EQ(r.v1, 0.75f);
}

TEST(Atlas, UvRefusesAFrameOutsideTheAtlas) {
  EXPECT_EQ(code_of(eight_cells().uv(8)), ErrorCode::kBadFrame);
}

// ------------------------------------------------------------------------- SpriteClip

TEST(SpriteClip, RefusesNoFrames) {
  EXPECT_EQ(code_of(SpriteClip::create("walk", {}, kFps, Playback::kLoop)), ErrorCode::kBadFrame);
}

TEST(SpriteClip, RefusesAnEventPastItsFrames) {
  EXPECT_EQ(code_of(SpriteClip::create("walk", {0, 1}, kFps, Playback::kLoop, {{"step", 2}})),
            ErrorCode::kBadFrame);
}

TEST(SpriteClip, RefusesFpsNotPositive) {
  EXPECT_EQ(code_of(SpriteClip::create("walk", {0}, 0.0f, Playback::kLoop)),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(code_of(SpriteClip::create("walk", {0}, -12.0f, Playback::kLoop)),
            ErrorCode::kInvalidArgument);
}

TEST(SpriteClip, RefusesFpsNotFinite) {
  EXPECT_EQ(code_of(SpriteClip::create("walk", {0}, std::numeric_limits<float>::quiet_NaN(),
                                       Playback::kLoop)),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(code_of(SpriteClip::create("walk", {0}, std::numeric_limits<float>::infinity(),
                                       Playback::kLoop)),
            ErrorCode::kInvalidArgument);
}

TEST(SpriteClip, KeepsEventsOrderedByFrame) {
  const SpriteClip c = clip("walk", {3, 4, 5}, Playback::kLoop, {{"b", 2}, {"a", 0}, {"c", 2}});
  ASSERT_EQ(c.events().size(), 3u);
  EXPECT_EQ(c.events()[0].name, "a");
  EXPECT_EQ(c.events()[1].name, "b");
  EXPECT_EQ(c.events()[2].name, "c");
  ASSERT_EQ(c.events_at(2).size(), 2u);
  EXPECT_EQ(c.events_at(2)[0].name, "b");
  EXPECT_TRUE(c.events_at(1).empty());
  EXPECT_TRUE(c.events_at(3).empty());
  EXPECT_EQ(c.name(), "walk");
  EXPECT_EQ(c.fps(), kFps);
  EXPECT_EQ(c.playback(), Playback::kLoop);
  EXPECT_EQ(c.frames()[1], 4u);
}

// ------------------------------------------------------------------------ SpriteSheet

TEST(SpriteSheet, RefusesAClipFrameOutsideTheAtlas) {
  EXPECT_EQ(code_of(SpriteSheet::create(eight_cells(), {clip("walk", {0, 8}, Playback::kLoop)})),
            ErrorCode::kBadFrame);
}

TEST(SpriteSheet, RefusesTwoClipsWithOneName) {
  EXPECT_EQ(code_of(SpriteSheet::create(eight_cells(), {clip("walk", {0}, Playback::kLoop),
                                                        clip("walk", {1}, Playback::kOnce)})),
            ErrorCode::kBadClip);
}

TEST(SpriteSheet, FindsClipsByName) {
  const SpriteSheet sheet =
      sheet_of({clip("idle", {0}, Playback::kLoop), clip("walk", {1, 2}, Playback::kLoop)});
  EXPECT_EQ(must(sheet.find_clip("walk")), 1);
  EXPECT_EQ(must(sheet.find_clip("idle")), 0);
  EXPECT_EQ(sheet.clips().size(), 2u);
  EXPECT_EQ(sheet.atlas().frame_count(), 8u);
}

TEST(SpriteSheet, RefusesAnUnknownClipName) {
  const SpriteSheet sheet = sheet_of({clip("idle", {0}, Playback::kLoop)});
  EXPECT_EQ(code_of(sheet.find_clip("run")), ErrorCode::kUnknownClip);
}

// -------------------------------------------------------------- SpritePlayer refusals

TEST(SpritePlayer, RefusesATickRateNotPositive) {
  const SpriteSheet sheet = sheet_of({clip("idle", {0}, Playback::kLoop)});
  EXPECT_EQ(code_of(SpritePlayer::create(&sheet, 0)), ErrorCode::kBadTickRate);
  EXPECT_EQ(code_of(SpritePlayer::create(&sheet, -60)), ErrorCode::kBadTickRate);
}

TEST(SpritePlayer, RefusesANullSheet) {
  EXPECT_EQ(code_of(SpritePlayer::create(nullptr, kRate)), ErrorCode::kInvalidArgument);
}

TEST(SpritePlayer, RefusesAnUnknownClip) {
  const SpriteSheet sheet = sheet_of({clip("idle", {0}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  EXPECT_EQ(code_of(player.play(uint16_t{1}, 0)), ErrorCode::kUnknownClip);
  EXPECT_EQ(code_of(player.play("run", 0)), ErrorCode::kUnknownClip);
  EXPECT_EQ(player.clip(), -1);
}

TEST(SpritePlayer, RefusesANegativeSpeed) {
  const SpriteSheet sheet = sheet_of({clip("idle", {0}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  EXPECT_EQ(code_of(player.play("idle", 0, at_speed(-1.0f))), ErrorCode::kBadSpeed);
  EXPECT_EQ(player.clip(), -1);
  ASSERT_TRUE(player.play("idle", 0));
  EXPECT_EQ(code_of(player.set_speed(-0.5f, 3)), ErrorCode::kBadSpeed);
}

TEST(SpritePlayer, RefusesASpeedNotFinite) {
  const SpriteSheet sheet = sheet_of({clip("idle", {0}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  EXPECT_EQ(code_of(player.play("idle", 0, at_speed(std::numeric_limits<float>::quiet_NaN()))),
            ErrorCode::kBadSpeed);
  EXPECT_EQ(code_of(player.play("idle", 0, at_speed(std::numeric_limits<float>::infinity()))),
            ErrorCode::kBadSpeed);
}

TEST(SpritePlayer, RefusesABadStart) {
  const SpriteSheet sheet = sheet_of({clip("idle", {0}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  EXPECT_EQ(code_of(player.play("idle", 0, from_start(-0.5))), ErrorCode::kBadStart);
  EXPECT_EQ(code_of(player.play("idle", 0, from_start(std::numeric_limits<double>::infinity()))),
            ErrorCode::kBadStart);
  EXPECT_EQ(code_of(player.play("idle", 0, from_start(std::numeric_limits<double>::quiet_NaN()))),
            ErrorCode::kBadStart);
  ASSERT_TRUE(player.play("idle", 0));
  EXPECT_EQ(code_of(player.set_start(-1.0, 3)), ErrorCode::kBadStart);
}

TEST(SpritePlayer, RefusesChangesWhenNothingPlays) {
  const SpriteSheet sheet = sheet_of({clip("idle", {0}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  EXPECT_EQ(code_of(player.set_speed(2.0f, 0)), ErrorCode::kNothingPlaying);
  EXPECT_EQ(code_of(player.set_start(0.5, 0)), ErrorCode::kNothingPlaying);
  EXPECT_EQ(code_of(player.set_playback(Playback::kOnce, 0)), ErrorCode::kNothingPlaying);
}

// ------------------------------------------------------------------ SpritePlayer steps

TEST(SpritePlayer, StepsAtTwelveFpsOnSixtyHzTicks) {
  const SpriteSheet sheet = sheet_of({clip("walk", {0, 1, 2, 3}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("walk", 0));
  EXPECT_EQ(player.step(0), 0);
  EXPECT_EQ(player.step(4), 0);  // 48/60
  EXPECT_EQ(player.step(5), 1);  // 60/60
  EXPECT_EQ(player.step(9), 1);
  EXPECT_EQ(player.step(10), 2);
  EXPECT_EQ(player.step(59), 11);  // 708/60
  EXPECT_EQ(player.step(60), 12);
  // Ticks count from the play tick.
  ASSERT_TRUE(player.play("walk", 100));
  EXPECT_EQ(player.step(100), 0);
  EXPECT_EQ(player.step(105), 1);
}

TEST(SpritePlayer, DoubleSpeedStepsTwiceAsFast) {
  const SpriteSheet sheet = sheet_of({clip("walk", {0, 1, 2, 3}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("walk", 0, at_speed(2.0f)));
  EXPECT_EQ(player.step(2), 0);  // 2 * 2 * 12 / 60 = 0.8
  EXPECT_EQ(player.step(3), 1);  // 1.2
  EXPECT_EQ(player.step(5), 2);
  EXPECT_EQ(player.step(30), 12);
}

TEST(SpritePlayer, StartOffsetBeginsInsideTheClip) {
  const SpriteSheet sheet = sheet_of({clip("walk", {0, 1, 2, 3, 4, 5}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("walk", 10, from_start(0.25)));  // 0.25 s * 12 = step 3
  EXPECT_EQ(player.step(10), 3);
  EXPECT_EQ(player.step(14), 3);  // 3 + 0.8
  EXPECT_EQ(player.step(15), 4);
  EXPECT_EQ(player.frame(10), 3u);
}

TEST(SpritePlayer, SpeedChangeRebasesWithoutAJump) {
  const SpriteSheet sheet = sheet_of({clip("walk", {0, 1, 2, 3}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("walk", 0));
  EXPECT_EQ(player.step(7), 1);  // 84/60 = 1.4
  ASSERT_TRUE(player.set_speed(2.0f, 7));
  EXPECT_EQ(player.step(7), 1);   // not 2, as speed 2 from tick 0 would give
  EXPECT_EQ(player.step(8), 1);   // 1.4 + 0.4
  EXPECT_EQ(player.step(9), 2);   // 1.4 + 0.8
  EXPECT_EQ(player.step(12), 3);  // 1.4 + 2.0
  ASSERT_TRUE(player.set_speed(0.0f, 12));
  EXPECT_EQ(player.step(12), 3);
  EXPECT_EQ(player.step(1000), 3);
}

TEST(SpritePlayer, SpeedChangeOnAStepBoundaryKeepsTheStep) {
  // 0.1 s * 12 + 244 * 12 / 60 = 1.2 + 48.8 = 50: tick 244 begins step 50. The clip
  // time there, 0.1 + 244 / 60 s, times 12 rounds to just under 50 in double.
  const SpriteSheet sheet = sheet_of({clip("walk", {0, 1, 2, 3}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("walk", 0, from_start(0.1)));
  EXPECT_EQ(player.step(243), 49);
  EXPECT_EQ(player.step(244), 50);
  ASSERT_TRUE(player.set_speed(1.0f, 244));
  EXPECT_EQ(player.step(244), 50);
  EXPECT_EQ(player.step(248), 50);
  EXPECT_EQ(player.step(249), 51);
}

TEST(SpritePlayer, SpeedChangesAtEveryTickNeverJump) {
  const SpriteSheet sheet = sheet_of({clip("walk", {0, 1, 2, 3}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("walk", 0, from_start(0.1)));
  const float speeds[] = {1.0f, 0.7f, 2.5f, 1.3f, 0.0f, 3.0f, 1.0f / 3.0f};
  for (int64_t tick = 1; tick < 5000; ++tick) {
    const int64_t before = player.step(tick);
    ASSERT_TRUE(player.set_speed(speeds[tick % 7], tick));
    ASSERT_EQ(player.step(tick), before) << "tick " << tick;
    ASSERT_GE(player.step(tick + 1), before) << "tick " << tick;
  }
}

TEST(SpritePlayer, LoopWrapsToTheFirstFrame) {
  const SpriteSheet sheet = sheet_of({clip("spin", {4, 5, 6}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("spin", 0));
  std::vector<uint32_t> frames;
  for (int64_t tick = 0; tick <= 30; tick += 5) frames.push_back(player.frame(tick));
  EXPECT_EQ(frames, (std::vector<uint32_t>{4, 5, 6, 4, 5, 6, 4}));
}

TEST(SpritePlayer, OnceHoldsTheLastFrame) {
  const SpriteSheet sheet = sheet_of({clip("fall", {4, 5, 6}, Playback::kOnce)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("fall", 0));
  std::vector<uint32_t> frames;
  for (int64_t tick : {0, 5, 10, 15, 500}) frames.push_back(player.frame(tick));
  EXPECT_EQ(frames, (std::vector<uint32_t>{4, 5, 6, 6, 6}));
}

TEST(SpritePlayer, PingPongRunsToTheEndAndBack) {
  const SpriteSheet sheet = sheet_of({clip("swing", {0, 1, 2, 3}, Playback::kPingPong)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("swing", 0));
  std::vector<uint32_t> frames;
  for (int64_t tick = 0; tick <= 50; tick += 5) frames.push_back(player.frame(tick));
  EXPECT_EQ(frames, (std::vector<uint32_t>{0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2}));
}

TEST(SpritePlayer, PingPongOfOneFrameStaysOnIt) {
  const SpriteSheet sheet = sheet_of({clip("still", {7}, Playback::kPingPong)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("still", 0));
  for (int64_t tick = 0; tick <= 50; tick += 5) EXPECT_EQ(player.frame(tick), 7u);
}

TEST(SpritePlayer, PlayOptionsOverrideTheClipsPlayback) {
  const SpriteSheet sheet = sheet_of({clip("spin", {4, 5, 6}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("spin", 0, with_playback(Playback::kOnce)));
  EXPECT_EQ(player.playback(), Playback::kOnce);
  EXPECT_EQ(player.frame(15), 6u);  // held, not wrapped to 4
}

TEST(SpritePlayer, SetPlaybackKeepsTheStepAndShowsItsNewFrame) {
  const SpriteSheet sheet = sheet_of({clip("spin", {4, 5, 6}, Playback::kLoop)});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("spin", 0));
  EXPECT_EQ(player.frame(20), 5u);  // step 4 of a loop of 3: clip frame 1
  ASSERT_TRUE(player.set_playback(Playback::kOnce, 20));
  EXPECT_EQ(player.step(20), 4);
  EXPECT_EQ(player.frame(20), 6u);  // step 4 held at the last frame
  EXPECT_EQ(player.frame(40), 6u);
  ASSERT_TRUE(player.set_playback(Playback::kPingPong, 40));
  EXPECT_EQ(player.step(40), 8);
  EXPECT_EQ(player.frame(40), 4u);  // step 8, period 4: position 0
}

TEST(SpritePlayer, SetStartJumpsAndFiresTheStepItLandsOn) {
  const SpriteSheet sheet = sheet_of({clip("spin", {4, 5, 6}, Playback::kLoop, {{"top", 0}})});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("spin", 0));
  EXPECT_EQ(player.advance(0).size(), 1u);
  EXPECT_TRUE(player.advance(12).empty());  // steps 1 and 2
  ASSERT_TRUE(player.set_start(0.0, 12));
  EXPECT_EQ(player.step(12), 0);
  EXPECT_EQ(player.frame(12), 4u);
  const auto events = player.advance(12);
  EXPECT_EQ(steps_of(events), (std::vector<int64_t>{0}));
  EXPECT_EQ(ticks_of(events), (std::vector<int64_t>{12}));
  EXPECT_EQ(player.step(17), 1);
}

// ----------------------------------------------------------------- SpritePlayer events

TEST(SpritePlayer, FiresTheFirstStepsEventsAtThePlayTick) {
  const SpriteSheet sheet = sheet_of(
      {clip("idle", {0}, Playback::kLoop), clip("spin", {4, 5, 6}, Playback::kLoop, {{"top", 0}})});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("spin", 100));
  const auto events = player.advance(100);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].tick, 100);
  EXPECT_EQ(events[0].step, 0);
  EXPECT_EQ(events[0].clip, 1);
  EXPECT_EQ(events[0].event, 0);
  EXPECT_EQ(events[0].name, "top");
  EXPECT_TRUE(player.advance(101).empty());
}

TEST(SpritePlayer, FiresEventsOncePerStepEnteringTheirFrame) {
  const SpriteSheet sheet = sheet_of({clip("spin", {4, 5, 6}, Playback::kLoop, {{"hit", 1}})});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("spin", 0));
  std::vector<int64_t> fired_at;
  for (int64_t tick = 0; tick <= 40; ++tick) {
    for (const SpriteEvent& e : player.advance(tick)) {
      EXPECT_EQ(e.tick, tick);
      fired_at.push_back(tick);
    }
  }
  // Clip frame 1 is steps 1, 4, 7: ticks 5, 20, 35.
  EXPECT_EQ(fired_at, (std::vector<int64_t>{5, 20, 35}));
}

TEST(SpritePlayer, FiresEveryPassOfALoopAcrossSkippedTicks) {
  const SpriteSheet sheet = sheet_of({clip("spin", {4, 5, 6}, Playback::kLoop, {{"hit", 1}})});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("spin", 0));
  EXPECT_TRUE(player.advance(0).empty());
  const auto events = player.advance(40);
  EXPECT_EQ(steps_of(events), (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(ticks_of(events), (std::vector<int64_t>{5, 20, 35}));
}

TEST(SpritePlayer, FiresPingPongEventsInBothDirections) {
  const SpriteSheet sheet =
      sheet_of({clip("swing", {0, 1, 2}, Playback::kPingPong, {{"end", 2}, {"mid", 1}})});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("swing", 0));
  EXPECT_TRUE(player.advance(0).empty());
  // Steps 0..8 show clip frames 0 1 2 1 0 1 2 1 0.
  const auto events = player.advance(40);
  EXPECT_EQ(steps_of(events), (std::vector<int64_t>{1, 2, 3, 5, 6, 7}));
  EXPECT_EQ(ticks_of(events), (std::vector<int64_t>{5, 10, 15, 25, 30, 35}));
  EXPECT_EQ(names_of(events), (std::vector<std::string>{"mid", "end", "mid", "mid", "end", "mid"}));
  EXPECT_EQ(events[1].event, 1);  // "end" is after "mid" in the clip's frame order
}

TEST(SpritePlayer, OnceFiresEachFrameOnlyOnce) {
  const SpriteSheet sheet = sheet_of({clip("fall", {4, 5, 6}, Playback::kOnce, {{"land", 2}})});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("fall", 0));
  std::vector<int64_t> fired_at;
  for (int64_t tick = 0; tick <= 100; ++tick) {
    for (const SpriteEvent& e : player.advance(tick)) fired_at.push_back(e.tick);
  }
  EXPECT_EQ(fired_at, (std::vector<int64_t>{10}));
  EXPECT_TRUE(player.advance(1000000).empty());
}

TEST(SpritePlayer, EventsAfterAStartOffsetSkipTheFramesBeforeIt) {
  const SpriteSheet sheet =
      sheet_of({clip("fall", {4, 5, 6}, Playback::kOnce, {{"jump", 0}, {"peak", 1}})});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("fall", 10, from_start(1.0 / 12.0 + 0.01)));  // inside step 1
  const auto events = player.advance(30);
  EXPECT_EQ(names_of(events), (std::vector<std::string>{"peak"}));
  EXPECT_EQ(ticks_of(events), (std::vector<int64_t>{10}));
}

TEST(SpritePlayer, SkippedTicksDeliverAtMost64PassesPerEvent) {
  const SpriteSheet sheet = sheet_of({clip("blink", {0, 1}, Playback::kLoop, {{"tick", 0}})});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("blink", 0));
  EXPECT_EQ(player.advance(0).size(), 1u);
  // A million ticks: steps 1..200000, clip frame 0 on every even step.
  const auto events = player.advance(1000000);
  ASSERT_EQ(events.size(), 64u);
  EXPECT_EQ(events.front().step, 2);
  EXPECT_EQ(events.front().tick, 10);
  EXPECT_EQ(events.back().step, 128);
  EXPECT_EQ(events.back().tick, 640);
  EXPECT_EQ(player.dropped_events(), 0u);
  EXPECT_TRUE(player.advance(1000005).empty());   // step 200001: clip frame 1
  EXPECT_EQ(player.advance(1000010).size(), 1u);  // step 200002: clip frame 0
}

TEST(SpritePlayer, SkippedTicksCapEachPingPongEventAt64Passes) {
  const SpriteSheet sheet =
      sheet_of({clip("swing", {0, 1, 2}, Playback::kPingPong, {{"mid", 1}, {"end", 2}})});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("swing", 0));
  // "mid" is on steps 1, 3, 5, ..: 64 passes end at step 127; "end" on 2, 6, 10, ..:
  // 64 passes end at step 254.
  const auto events = player.advance(1000000);
  ASSERT_EQ(events.size(), 128u);
  int64_t last_mid = -1, last_end = -1, previous = -1;
  for (const SpriteEvent& e : events) {
    EXPECT_GE(e.step, previous);
    previous = e.step;
    (e.name == "mid" ? last_mid : last_end) = e.step;
  }
  EXPECT_EQ(last_mid, 127);
  EXPECT_EQ(last_end, 254);
}

TEST(SpritePlayer, AGameSwitchesClips) {
  const SpriteSheet sheet =
      sheet_of({clip("idle", {0, 1}, Playback::kLoop, {{"blink", 1}}),
                clip("jump", {4, 5, 6}, Playback::kOnce, {{"takeoff", 0}, {"land", 2}})});
  SpritePlayer player = player_of(sheet);
  std::vector<std::pair<int64_t, std::string>> log;
  std::vector<uint32_t> frames;
  for (int64_t tick = 0; tick <= 40; ++tick) {
    if (tick == 0 || tick == 30) {
      ASSERT_TRUE(player.play("idle", tick));
    }
    if (tick == 12) {
      ASSERT_TRUE(player.play("jump", tick));
    }
    for (const SpriteEvent& e : player.advance(tick)) log.emplace_back(e.tick, e.name);
    frames.push_back(player.frame(tick));
  }
  const std::vector<std::pair<int64_t, std::string>> expected = {
      {5, "blink"}, {12, "takeoff"}, {22, "land"}, {35, "blink"}};
  EXPECT_EQ(log, expected);
  EXPECT_EQ(frames[4], 0u);
  EXPECT_EQ(frames[5], 1u);
  EXPECT_EQ(frames[11], 0u);  // idle step 2
  EXPECT_EQ(frames[12], 4u);  // jump step 0
  EXPECT_EQ(frames[22], 6u);
  EXPECT_EQ(frames[29], 6u);  // held
  EXPECT_EQ(frames[30], 0u);
  EXPECT_EQ(frames[35], 1u);
  EXPECT_EQ(player.clip(), 0);
}

TEST(SpritePlayer, ShowsTheStillFrameBeforePlayAndAfterStop) {
  const SpriteSheet sheet = sheet_of({clip("spin", {4, 5, 6}, Playback::kLoop, {{"top", 0}})});
  SpritePlayer player = player_of(sheet);
  EXPECT_EQ(player.clip(), -1);
  EXPECT_EQ(player.still_frame(), 0u);
  EXPECT_EQ(player.frame(10), 0u);
  EXPECT_EQ(player.step(10), 0);
  player.set_still_frame(7);
  EXPECT_EQ(player.frame(10), 7u);
  const UvRect uv = must(player.uv(10));  // column 3, row 1
  EXPECT_EQ(uv.u0, 0.75f);
  EXPECT_EQ(uv.v0, 0.5f);
  EXPECT_EQ(uv.u1, 1.0f);
  EXPECT_EQ(uv.v1, 1.0f);
  EXPECT_TRUE(player.advance(10).empty());
  ASSERT_TRUE(player.play("spin", 10));
  EXPECT_EQ(player.frame(15), 5u);
  player.stop();
  EXPECT_EQ(player.clip(), -1);
  EXPECT_EQ(player.frame(15), 7u);
  EXPECT_TRUE(player.advance(15).empty());
  player.set_still_frame(99);
  EXPECT_EQ(code_of(player.uv(15)), ErrorCode::kBadFrame);
}

TEST(SpritePlayer, NothingFiresBeforeThePlayTick) {
  const SpriteSheet sheet = sheet_of({clip("spin", {4, 5, 6}, Playback::kLoop, {{"top", 0}})});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("spin", 50, at_speed(0.0f)));
  EXPECT_TRUE(player.advance(40).empty());
  EXPECT_EQ(player.frame(40), 4u);
  EXPECT_EQ(player.advance(50).size(), 1u);
}

TEST(SpritePlayer, CountsDroppedEvents) {
  const SpriteSheet sheet =
      sheet_of({clip("burst", {3}, Playback::kLoop, {{"a", 0}, {"b", 0}, {"c", 0}})});
  SpritePlayer player = player_of(sheet, 2);
  ASSERT_TRUE(player.play("burst", 0));
  EXPECT_EQ(names_of(player.advance(0)), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(player.dropped_events(), 1u);
  EXPECT_EQ(player.advance(5).size(), 2u);
  EXPECT_EQ(player.dropped_events(), 2u);
}

TEST(SpritePlayer, AutomaticCapacityHoldsEveryCappedPass) {
  const SpriteSheet sheet =
      sheet_of({clip("burst", {3}, Playback::kLoop, {{"a", 0}, {"b", 0}, {"c", 0}})});
  SpritePlayer player = player_of(sheet);
  ASSERT_TRUE(player.play("burst", 0));
  EXPECT_EQ(player.advance(0).size(), 3u);
  EXPECT_EQ(player.advance(1000000).size(), 3u * kSpriteMaxRepeats);
  EXPECT_EQ(player.dropped_events(), 0u);
}

// The events a step-by-step walk finds for steps (last_step, step(tick)]: every step,
// capped at kSpriteMaxRepeats passes per event, each at the first tick showing its step
// (none is shown before the previous advance's tick, `previous_tick`).
std::vector<SpriteEvent> walk_steps(const SpritePlayer& player, const SpriteClip& c,
                                    Playback playback, int64_t last_step, int64_t previous_tick,
                                    int64_t tick) {
  std::vector<SpriteEvent> out;
  std::vector<int> passes(c.events().size(), 0);
  const int64_t n = static_cast<int64_t>(c.frames().size());
  int64_t entered = previous_tick;
  for (int64_t s = std::max<int64_t>(last_step + 1, 0); s <= player.step(tick); ++s) {
    if (playback == Playback::kOnce && s >= n) break;
    int64_t f = s % n;
    if (playback == Playback::kOnce) f = s;
    if (playback == Playback::kPingPong && n > 1) {
      const int64_t p = s % (2 * n - 2);
      f = p < n ? p : 2 * n - 2 - p;
    }
    while (player.step(entered) < s) ++entered;
    for (size_t i = 0; i < c.events().size(); ++i) {
      if (c.events()[i].frame != f || passes[i] == kSpriteMaxRepeats) continue;
      ++passes[i];
      out.push_back({entered, 0, static_cast<uint16_t>(i), c.events()[i].name, s});
    }
  }
  return out;
}

TEST(SpritePlayer, EventsMatchAStepByStepWalk) {
  uint32_t seed = 12345;
  auto next = [&seed](uint32_t bound) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % bound;
  };
  const Playback playbacks[] = {Playback::kLoop, Playback::kOnce, Playback::kPingPong};
  const float speeds[] = {0.5f, 1.0f, 2.0f, 3.7f, kMaxSpeed};  // up to the bound (limits.h)
  const double starts[] = {0.0, 0.25, 1.3};
  for (int round = 0; round < 300; ++round) {
    const uint32_t n = 1 + next(6);
    std::vector<uint32_t> frames(n);
    for (uint32_t& f : frames) f = next(8);
    std::vector<FrameEvent> events(next(5));
    for (size_t i = 0; i < events.size(); ++i) events[i] = {"e" + std::to_string(i), next(n)};
    const Playback playback = playbacks[next(3)];
    const SpriteSheet sheet = sheet_of({clip("c", frames, playback, events)});
    SpritePlayer player = player_of(sheet);
    const float speed = speeds[next(5)];
    const double start = starts[next(3)];
    ASSERT_TRUE(player.play(uint16_t{0}, 0, options(speed, start)));
    int64_t tick = 0, previous_tick = 0, last_step = player.step(0) - 1;
    for (int call = 0; call < 40; ++call) {
      const auto expected =
          walk_steps(player, sheet.clips()[0], playback, last_step, previous_tick, tick);
      const auto got = player.advance(tick);
      ASSERT_EQ(got.size(), expected.size()) << "round " << round << " tick " << tick;
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].step, expected[i].step) << "round " << round << " event " << i;
        EXPECT_EQ(got[i].tick, expected[i].tick) << "round " << round << " event " << i;
        EXPECT_EQ(got[i].event, expected[i].event) << "round " << round << " event " << i;
      }
      last_step = std::max(last_step, player.step(tick));
      previous_tick = tick;
      tick += next(10) == 0 ? 3000 : next(13);
    }
    EXPECT_EQ(player.dropped_events(), 0u);
  }
}

}  // namespace
}  // namespace animpack
