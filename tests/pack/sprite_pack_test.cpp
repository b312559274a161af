// Format 7 sprites in packs: frame placements and names, timed and reversed sprite clips
// round-trip through the writer and Pack::open; a pack that says 1 to 6 but holds a
// version 7 field, or whose version 7 fields do not fit their frames, is refused; the
// older golden packs open with none; the committed sprites_v7.anpk plays to its hash.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "animpack/schema/pack_generated.h"
#include "fixtures/sprites_v7_golden_run.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
namespace fb = animpack::schema;

// A 64 x 32 sheet: frame 0 untrimmed, 1 trimmed, 2 trimmed and rotated, 3 untrimmed, 4
// with its pivot outside its box; every frame but 4 named. Clips: "idle" timed (100, 250
// ms, loop), "run" timed, reversed, ping-pong with a 1 ms frame, "legacy" at 12 fps.
CookedPack sprites_v7_pack() {
  std::vector<AtlasFrame> frames(5);
  const auto plain = [](PixelRect r) {
    AtlasFrame f;
    f.rect = r;
    f.placement.source = {r.width, r.height};
    f.placement.trimmed = {0, 0, r.width, r.height};
    f.placement.pivot_x = static_cast<float>(r.width) * 0.5f;
    f.placement.pivot_y = static_cast<float>(r.height) * 0.5f;
    return f;
  };
  frames[0] = plain({0, 0, 16, 16});
  frames[0].name = "idle 0";
  frames[1].rect = {16, 0, 10, 12};
  frames[1].placement = {{16, 16}, {3, 2, 10, 12}, false, 8.0f, 15.0f};
  frames[1].name = "idle 1";
  frames[2].rect = {32, 0, 12, 10};  // drawn 10 x 12, stored turned
  frames[2].placement = {{16, 16}, {1, 4, 10, 12}, true, 8.0f, 16.0f};
  frames[2].name = "run 0";
  frames[3] = plain({48, 0, 16, 16});
  frames[3].name = "run 1";
  frames[4] = plain({0, 16, 16, 16});
  frames[4].placement.pivot_x = -4.5f;
  frames[4].placement.pivot_y = 20.0f;
  std::vector<SpriteClip> clips;
  clips.push_back(*SpriteClip::create_timed("idle", {0, 1}, {100, 250}, Playback::kLoop, false,
                                            {{"blink", 1}}));
  clips.push_back(*SpriteClip::create_timed("run", {2, 3, 4}, {1, 80, 120}, Playback::kPingPong,
                                            true, {{"step", 0}, {"land", 2}}));
  clips.push_back(*SpriteClip::create("legacy", {0, 3}, 12.0f, Playback::kOnce, {{"end", 1}}));
  CookedSheet sheet;
  sheet.source_file = "hero.json";
  sheet.sheet = *SpriteSheet::create(*Atlas::create({64, 32}, std::move(frames)), std::move(clips));
  for (int i = 0; i < 64 * 32; ++i) {
    sheet.rgba.insert(sheet.rgba.end(),
                      {static_cast<uint8_t>(i / 64 * 8), static_cast<uint8_t>(i % 64 * 4), 0, 255});
  }
  CookedPack pack;
  pack.sheets.push_back(std::move(sheet));
  return pack;
}

template <typename T>
void patch(std::vector<uint8_t>& bytes, const void* at, T value) {
  ASSERT_NE(at, nullptr);
  std::memcpy(bytes.data() + (static_cast<const uint8_t*>(at) - bytes.data()), &value,
              sizeof value);
}

template <typename T>
void patch_field(std::vector<uint8_t>& bytes, const void* table, flatbuffers::voffset_t field,
                 T value) {
  patch(bytes, static_cast<const flatbuffers::Table*>(table)->GetAddressOf(field), value);
}

void expect_refused(const std::vector<uint8_t>& bytes, const std::string& what) {
  auto pack = Pack::from_bytes(bytes);
  ASSERT_FALSE(pack) << "accepted; wanted: " << what;
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  EXPECT_NE(std::string(pack.error().message()).find(what), std::string::npos)
      << pack.error().message() << "\nwanted: " << what;
}

const fb::SpriteSheet* sheet_of(const std::vector<uint8_t>& b) {
  return fb::GetAssetPack(b.data())->sprite_sheets()->Get(0);
}

TEST(SpritePack, RoundTripsPlacementsNamesDurationsAndReverse) {
  const CookedPack cooked = sprites_v7_pack();
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->format_version(), 7u);
  const SpriteSheet& want = cooked.sheets[0].sheet;
  const SpriteSheet& got = pack->sprite_sheets()[0];
  ASSERT_EQ(got.atlas().frame_count(), 5u);
  EXPECT_TRUE(got.atlas().has_placements());
  for (uint32_t f = 0; f < 5; ++f) {
    const FramePlacement a = *want.atlas().placement(f);
    const FramePlacement b = *got.atlas().placement(f);
    EXPECT_EQ(a.source.width, b.source.width) << f;
    EXPECT_EQ(a.source.height, b.source.height) << f;
    EXPECT_EQ(a.trimmed.x, b.trimmed.x) << f;
    EXPECT_EQ(a.trimmed.y, b.trimmed.y) << f;
    EXPECT_EQ(a.trimmed.width, b.trimmed.width) << f;
    EXPECT_EQ(a.trimmed.height, b.trimmed.height) << f;
    EXPECT_EQ(a.rotated, b.rotated) << f;
    EXPECT_EQ(a.pivot_x, b.pivot_x) << f;
    EXPECT_EQ(a.pivot_y, b.pivot_y) << f;
    EXPECT_EQ(want.atlas().name(f), got.atlas().name(f)) << f;
  }
  ASSERT_EQ(got.clips().size(), 3u);
  for (size_t c = 0; c < 3; ++c) {
    const SpriteClip& a = want.clips()[c];
    const SpriteClip& b = got.clips()[c];
    EXPECT_EQ(std::vector<uint32_t>(a.durations_ms().begin(), a.durations_ms().end()),
              std::vector<uint32_t>(b.durations_ms().begin(), b.durations_ms().end()));
    EXPECT_EQ(a.reverse(), b.reverse());
    EXPECT_EQ(a.fps(), b.fps());
    EXPECT_EQ(a.playback(), b.playback());
  }
}

TEST(SpritePack, ASheetWithoutVersion7DataStoresNoVersion7Fields) {
  CookedPack cooked = sprites_v7_pack();
  std::vector<SpriteClip> clips{*SpriteClip::create("run", {0, 1}, 12.0f, Playback::kLoop)};
  cooked.sheets[0].sheet =
      *SpriteSheet::create(*Atlas::grid({64, 32}, {16, 16}, 8), std::move(clips));
  const std::vector<uint8_t> bytes = write_pack(cooked);
  EXPECT_EQ(sheet_of(bytes)->placements(), nullptr);
  EXPECT_EQ(sheet_of(bytes)->frame_names(), nullptr);
  EXPECT_EQ(sheet_of(bytes)->clips()->Get(0)->durations_ms(), nullptr);
  EXPECT_TRUE(Pack::from_bytes(bytes));
}

TEST(SpritePack, RefusesVersion7FieldsInAnOlderPack) {
  const std::vector<uint8_t> good = write_pack(sprites_v7_pack());
  ASSERT_TRUE(Pack::from_bytes(good));
  std::vector<uint8_t> b = good;
  patch_field<uint32_t>(b, fb::GetAssetPack(b.data()), fb::AssetPack::VT_FORMAT_VERSION, 6);
  expect_refused(b, "format 6 has no frame placements or names");
}

TEST(SpritePack, RefusesATimedClipInAnOlderPack) {
  CookedPack cooked = sprites_v7_pack();
  std::vector<SpriteClip> clips{
      *SpriteClip::create_timed("run", {0, 1}, {50, 60}, Playback::kLoop, false)};
  cooked.sheets[0].sheet =
      *SpriteSheet::create(*Atlas::grid({64, 32}, {16, 16}, 8), std::move(clips));
  std::vector<uint8_t> b = write_pack(cooked);
  ASSERT_TRUE(Pack::from_bytes(b));
  patch_field<uint32_t>(b, fb::GetAssetPack(b.data()), fb::AssetPack::VT_FORMAT_VERSION, 5);
  expect_refused(b, "sprite sheet 0 clip 0: format 5 has no timed or reversed clips");
}

TEST(SpritePack, RefusesFewerPlacementsThanFrames) {
  std::vector<uint8_t> b = write_pack(sprites_v7_pack());
  // A vector's length is the uint32 before its first element.
  patch<uint32_t>(b, reinterpret_cast<const uint8_t*>(sheet_of(b)->placements()), 4);
  expect_refused(b, "sprite sheet 0: 4 placements for 5 frames");
}

TEST(SpritePack, RefusesFewerNamesThanFrames) {
  std::vector<uint8_t> b = write_pack(sprites_v7_pack());
  patch<uint32_t>(b, reinterpret_cast<const uint8_t*>(sheet_of(b)->frame_names()), 3);
  expect_refused(b, "sprite sheet 0: 3 frame names for 5 frames");
}

TEST(SpritePack, RefusesFewerDurationsThanFrames) {
  std::vector<uint8_t> b = write_pack(sprites_v7_pack());
  patch<uint32_t>(b, reinterpret_cast<const uint8_t*>(sheet_of(b)->clips()->Get(1)->durations_ms()),
                  2);
  expect_refused(b, "sprite sheet 0 clip 1: sprite clip 'run' has 3 frames but 2 durations");
}

TEST(SpritePack, RefusesADurationOutOfRange) {
  std::vector<uint8_t> b = write_pack(sprites_v7_pack());
  const auto* d = sheet_of(b)->clips()->Get(0)->durations_ms();
  patch<uint32_t>(b, d->data() + 1, 0);
  expect_refused(b, "sprite sheet 0 clip 0: sprite clip 'idle' frame 1 lasts 0 ms");
  patch<uint32_t>(b, d->data() + 1, kMaxSpriteFrameMs + 1);
  expect_refused(b, "frame 1 lasts 3600001 ms");
}

TEST(SpritePack, RefusesReverseWithoutDurations) {
  std::vector<uint8_t> b = write_pack(sprites_v7_pack());
  // Clip 1 "run" (the only one stored with reverse) loses its durations: its vtable's
  // slot for them is set to 0, "absent".
  const auto* clip = reinterpret_cast<const uint8_t*>(sheet_of(b)->clips()->Get(1));
  int32_t to_vtable = 0;
  std::memcpy(&to_vtable, clip, sizeof to_vtable);
  patch<uint16_t>(b, clip - to_vtable + fb::SpriteClip::VT_DURATIONS_MS, 0);
  expect_refused(b, "sprite sheet 0 clip 1: reversed without durations");
}

TEST(SpritePack, RefusesAPlacementThatDoesNotFitItsFrame) {
  const std::vector<uint8_t> good = write_pack(sprites_v7_pack());
  // FramePlacementf's bytes: source 0 and 4, trimmed 8 (x) to 20, pivot 24 and 28, rotated
  // 32, padding 33 to 35.
  static_assert(sizeof(fb::FramePlacementf) == 36);
  const size_t at = static_cast<size_t>(
      reinterpret_cast<const uint8_t*>(sheet_of(good)->placements()->Get(1)) - good.data());
  std::vector<uint8_t> b = good;
  const uint8_t* p = b.data() + at;  // b keeps its buffer: only its bytes are reassigned
  patch<uint32_t>(b, p + 8, 7);      // trimmed.x 7 + 10 > source 16
  expect_refused(b, "frame 1's trimmed box (x 7, y 2, 10 x 12) is not inside its source");
  b = good;
  patch<uint32_t>(b, p + 0, 0);
  expect_refused(b, "frame 1 has a source size of 0 x 16");
  b = good;
  patch<float>(b, p + 24, std::numeric_limits<float>::quiet_NaN());
  expect_refused(b, "frame 1's pivot is not finite");
  b = good;
  patch<uint8_t>(b, p + 32, 1);
  expect_refused(b, "frame 1 is trimmed to 10 x 12 but its pixels are 12 x 10 (rotated)");
  b = good;
  patch<uint8_t>(b, p + 33, 1);
  expect_refused(b, "sprite sheet 0 frame 1: placement padding is not zero");
}

TEST(SpritePack, RefusesAFrameNameNotUtf8) {
  std::vector<uint8_t> b = write_pack(sprites_v7_pack());
  patch<uint8_t>(b, sheet_of(b)->frame_names()->Get(0)->data(), 0xff);
  expect_refused(b, "sprite sheet 0 frame 0: a bad name");
}

TEST(SpritePack, OlderGoldenPacksHaveNoPlacementsOrTimedClips) {
  int sheets = 0;
  for (const char* name :
       {"fixture_v1.anpk", "scene_player_v1.anpk", "textured_v2.anpk", "graph_v3.anpk",
        "character_v3.anpk", "fox_v4.anpk", "morph_v5.anpk", "clips_v6.anpk"}) {
    const fs::path path = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs" / name;
    auto pack = Pack::open(path.string());
    ASSERT_TRUE(pack) << name << ": " << pack.error().message();
    EXPECT_LT(pack->format_version(), 7u) << name;
    for (const SpriteSheet& sheet : pack->sprite_sheets()) {
      ++sheets;
      EXPECT_FALSE(sheet.atlas().has_placements()) << name;
      EXPECT_EQ(sheet.atlas().name(0), "") << name;
      for (const SpriteClip& c : sheet.clips()) {
        EXPECT_TRUE(c.durations_ms().empty()) << name;
        EXPECT_FALSE(c.reverse()) << name;
      }
    }
  }
  EXPECT_GT(sheets, 0) << "some older golden pack has a sprite sheet";
}

TEST(SpritePack, AnObjectsOwnEventsKeepItsClipsTimedAndReversed) {
  // The scene player copies a sheet to add an object's events: the copy keeps the clips'
  // durations and direction.
  CookedPack cooked = sprites_v7_pack();
  CookedObject hero;
  hero.name = "hero";
  hero.animated = true;
  hero.animation.sprite_sheet = 0;
  hero.animation.clip = 1;  // "run": reversed ping-pong, 1, 80, 120 ms
  hero.animation.events = {{"extra", 1, 0.0f, 1}};
  cooked.objects.push_back(std::move(hero));
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  auto player = ScenePlayer::create(&*pack, 60);
  ASSERT_TRUE(player) << player.error().message();
  const SpriteSheet* sheet = player->sprite_sheet(ObjectId{0});
  ASSERT_NE(sheet, nullptr);
  ASSERT_NE(sheet, &pack->sprite_sheets()[0]) << "a copy with the object's event";
  const SpriteClip& run = sheet->clips()[1];
  EXPECT_EQ(std::vector<uint32_t>(run.durations_ms().begin(), run.durations_ms().end()),
            (std::vector<uint32_t>{1, 80, 120}));
  EXPECT_TRUE(run.reverse());
  EXPECT_EQ(run.events().size(), 3u);
  // Play order 4, 3, 2 at 60 Hz: ticks 0, 7 (120 ms), 12 (200 ms), 12 (201 ms).
  EXPECT_EQ(player->sprite(ObjectId{0})->frame(0), 4u);
  EXPECT_EQ(player->sprite(ObjectId{0})->frame(7), 3u);
}

TEST(SpritePack, WritingIsByteIdenticalAcrossRuns) {
  EXPECT_EQ(write_pack(sprites_v7_pack()), write_pack(sprites_v7_pack()));
}

TEST(SpritePack, GoldenPackPlaysToItsHash) {
  const auto golden = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/sprites_v7.anpk";
  if (std::getenv("ANIMPACK_WRITE_GOLDEN") && kPackFormatVersion == 7) {
    ASSERT_EQ(write_file_atomically(golden, write_pack(sprites_v7_pack())), "");
  }
  auto stored = Pack::open(golden.string());
  ASSERT_TRUE(stored) << golden << ": " << stored.error().message();
  EXPECT_EQ(stored->format_version(), 7u);
  const uint64_t h = fixture::sprites_v7_golden_run(*stored);
  EXPECT_EQ(h, fixture::kSpritesV7GoldenHash) << "got 0x" << std::hex << h;
  auto fresh = Pack::from_bytes(write_pack(sprites_v7_pack()));
  ASSERT_TRUE(fresh) << fresh.error().message();
  EXPECT_EQ(fixture::sprites_v7_golden_run(*fresh), h)
      << "the writer's pack plays like the committed one";
}

}  // namespace
}  // namespace animpack
