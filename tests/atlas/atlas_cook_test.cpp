// Sprites whose atlas is a sprite tool's data file, through the cook (cook.h): the cooked
// SpriteSheet's frames, placements and clips (tags with their durations and directions,
// scene clips by range, names and prefix), the depfile's inputs, and each error at the
// data file's line or the scene key, with a note at `atlas`. Each test cooks a scene
// written into its own folder beside copies of the corpus's files.
#include <gtest/gtest.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "fixtures/test_data.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

fs::path corpus(const char* rel) { return fs::path(ANIMPACK_CORPUS_DIR) / "atlases" / rel; }

// A fresh folder per test.
fs::path folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("animpack_atlas_cook_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

void write_png(const fs::path& file, int w, int h) {
  const std::vector<uint8_t> rgba(static_cast<size_t>(w) * h * 4, 200);
  ASSERT_TRUE(stbi_write_png(file.c_str(), w, h, 4, rgba.data(), w * 4));
}

std::string scene(const std::string& animation) {
  return "[[object]]\nname = \"hero\"\n\n[object.animation]\n" + animation;
}

struct Found {
  std::string code, file;
  int line = 0, col = 0;
  Severity severity = Severity::kError;
};

std::vector<Found> found(const DiagnosticSink& sink) {
  std::vector<Found> out;
  for (const Diagnostic& d : sink.diagnostics()) {
    out.push_back({d.code, fs::path(d.file).filename().string(), d.line, d.col, d.severity});
  }
  return out;
}

std::string show(const DiagnosticSink& sink) {
  return format_diagnostics(sink, DiagnosticFormat::kGcc);
}

// Cooks `dir`/scene.toml.
CookOutput cook(const fs::path& dir, DiagnosticSink& sink) {
  CookOutput out = cook_scene(dir / "scene.toml", sink);
  sink.sort();
  return out;
}

fs::path beetle_folder(const std::string& name) {
  const fs::path dir = folder(name);
  fs::copy_file(corpus("excalibur-aseprite-beetle/example/beetle.json"), dir / "beetle.json");
  fs::copy_file(corpus("excalibur-aseprite-beetle/example/beetle.png"), dir / "beetle.png");
  return dir;
}

TEST(AtlasDataCook, TheAsepriteBeetleCooksItsTagsAsTimedClips) {
  const fs::path dir = beetle_folder("beetle");
  write(dir / "scene.toml", scene("atlas = \"beetle.json\"\nclip = \"Loop\"\n"
                                  "events = [{ name = \"click\", clip = \"Animation 2\", "
                                  "frame = 1 }]\n"));
  DiagnosticSink sink;
  const CookOutput out = cook(dir, sink);
  ASSERT_FALSE(sink.has_errors()) << show(sink);
  ASSERT_EQ(out.pack.sheets.size(), 1u);
  const SpriteSheet& sheet = out.pack.sheets[0].sheet;
  ASSERT_EQ(sheet.atlas().frame_count(), 3u);
  EXPECT_EQ(sheet.atlas().name(1), "beetle 1.aseprite");
  EXPECT_EQ(sheet.atlas().frames()[2].y, 64u);
  EXPECT_EQ(sheet.atlas().size().width, 128u);
  ASSERT_EQ(sheet.clips().size(), 2u);
  const SpriteClip& loop = sheet.clips()[0];
  EXPECT_EQ(loop.name(), "Loop");
  EXPECT_EQ(std::vector<uint32_t>(loop.frames().begin(), loop.frames().end()),
            (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(std::vector<uint32_t>(loop.durations_ms().begin(), loop.durations_ms().end()),
            (std::vector<uint32_t>{500, 500, 500}));
  EXPECT_EQ(loop.playback(), Playback::kPingPong);
  EXPECT_FALSE(loop.reverse());
  const SpriteClip& back = sheet.clips()[1];
  EXPECT_EQ(back.name(), "Animation 2");
  EXPECT_EQ(std::vector<uint32_t>(back.frames().begin(), back.frames().end()),
            (std::vector<uint32_t>{1, 2}));
  EXPECT_TRUE(back.reverse());
  EXPECT_EQ(back.playback(), Playback::kLoop);
  ASSERT_EQ(back.events().size(), 1u);
  EXPECT_EQ(back.events()[0].frame, 1u);
  EXPECT_EQ(out.pack.objects[0].animation.clip, 0);
  EXPECT_EQ(out.pack.objects[0].animation.sprite_sheet, 0);
  EXPECT_EQ(out.pack.sheets[0].rgba.size(), 128u * 128u * 4u);
  // The depfile lists the data file and the image it names.
  const std::string dep = make_depfile(dir / "out.anpk", out.inputs).value();
  EXPECT_NE(dep.find((dir / "beetle.json").string()), std::string::npos) << dep;
  EXPECT_NE(dep.find((dir / "beetle.png").string()), std::string::npos) << dep;
}

// From the Aseprite file to frames by tick: cooked, written (pack format 7), opened again
// and played at 60 Hz, each 500 ms frame shows for 30 ticks and the reverse tag plays its
// frames last to first.
TEST(AtlasDataCook, TheBeetlesPackPlaysItsFramesForTheirDurationsByTick) {
  const fs::path dir = beetle_folder("beetle_pack");
  write(dir / "scene.toml", scene("atlas = \"beetle.json\"\nclip = \"Loop\"\n"));
  DiagnosticSink sink;
  const CookOutput out = cook(dir, sink);
  ASSERT_FALSE(sink.has_errors()) << show(sink);
  const std::vector<uint8_t> bytes = write_pack(out.pack);
  Result<Pack> pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->format_version(), 7u);
  ASSERT_EQ(pack->sprite_sheets().size(), 1u);
  const SpriteSheet& sheet = pack->sprite_sheets()[0];
  EXPECT_EQ(sheet.atlas().name(2), "beetle 2.aseprite");
  Result<SpritePlayer> player = SpritePlayer::create(&sheet, 60);
  ASSERT_TRUE(player);
  ASSERT_TRUE(player->play("Loop", 0));  // ping-pong over frames 0 1 2
  const std::vector<std::pair<int64_t, uint32_t>> loop = {
      {0, 0}, {29, 0}, {30, 1}, {59, 1}, {60, 2}, {89, 2}, {90, 1}, {119, 1}, {120, 0}};
  for (const auto& [tick, frame] : loop) EXPECT_EQ(player->frame(tick), frame) << "tick " << tick;
  ASSERT_TRUE(player->play("Animation 2", 0));  // frames 1 2, reversed: 2 first
  const std::vector<std::pair<int64_t, uint32_t>> back = {
      {0, 2}, {29, 2}, {30, 1}, {59, 1}, {60, 2}};
  for (const auto& [tick, frame] : back) EXPECT_EQ(player->frame(tick), frame) << "tick " << tick;
  Result<SpriteDraw> draw = player->draw(30);
  ASSERT_TRUE(draw);
  EXPECT_EQ(draw->frame, 1u);
  EXPECT_EQ(draw->placement.source.width, 64u);
}

TEST(AtlasDataCook, SceneClipsOverrideATagAndAddClipsOfTheirOwn) {
  const fs::path dir = beetle_folder("override");
  write(dir / "scene.toml", scene("atlas = \"beetle.json\"\nfps = 4\n\n"
                                  "[object.animation.clips.Loop]\nplayback = \"once\"\n\n"
                                  "[object.animation.clips.pair]\nframes = [\"beetle 2.aseprite\", "
                                  "\"beetle 0.aseprite\"]\nfps = 10\n\n"
                                  "[object.animation.clips.range]\nfrom = 1\nto = 2\n\n"
                                  "[object.animation.clips.prefixed]\nprefix = \"beetle 1\"\n"));
  DiagnosticSink sink;
  const CookOutput out = cook(dir, sink);
  ASSERT_FALSE(sink.has_errors()) << show(sink);
  const SpriteSheet& sheet = out.pack.sheets[0].sheet;
  ASSERT_EQ(sheet.clips().size(), 5u);  // the two tags first, then the scene's own
  EXPECT_EQ(sheet.clips()[0].name(), "Loop");
  EXPECT_EQ(sheet.clips()[0].playback(), Playback::kOnce);
  EXPECT_EQ(sheet.clips()[0].durations_ms().size(), 3u);  // still timed by the file
  const SpriteClip& pair = sheet.clips()[2];
  EXPECT_EQ(pair.name(), "pair");
  EXPECT_EQ(std::vector<uint32_t>(pair.frames().begin(), pair.frames().end()),
            (std::vector<uint32_t>{2, 0}));
  EXPECT_TRUE(pair.durations_ms().empty());  // its own fps
  EXPECT_EQ(pair.fps(), 10.0f);
  const SpriteClip& range = sheet.clips()[3];
  EXPECT_EQ(range.frames().size(), 2u);
  EXPECT_EQ(range.durations_ms().size(), 2u);  // the frames' durations, not the animation's fps
  const SpriteClip& prefixed = sheet.clips()[4];
  ASSERT_EQ(prefixed.frames().size(), 1u);
  EXPECT_EQ(prefixed.frames()[0], 1u);
}

TEST(AtlasDataCook, TheKenneyStarlingSheetCooksClipsByPrefix) {
  const fs::path dir = folder("kenney");
  fs::copy_file(corpus("kenney-toon-characters-maleAdventurer/"
                       "character_maleAdventurer_sheet.starling-xml"),
                dir / "hero.xml");
  fs::copy_file(corpus("kenney-toon-characters-maleAdventurer/character_maleAdventurer_sheet.png"),
                dir / "character_maleAdventurer_sheet.png");
  write(dir / "scene.toml", scene("atlas = \"hero.xml\"\nfps = 12\nclip = \"walk\"\n\n"
                                  "[object.animation.clips.walk]\nprefix = \"walk\"\n"));
  DiagnosticSink sink;
  const CookOutput out = cook(dir, sink);
  ASSERT_FALSE(sink.has_errors()) << show(sink);
  const SpriteSheet& sheet = out.pack.sheets[0].sheet;
  EXPECT_EQ(sheet.atlas().frame_count(), 45u);
  ASSERT_EQ(sheet.clips().size(), 1u);
  const SpriteClip& walk = sheet.clips()[0];
  ASSERT_EQ(walk.frames().size(), 8u);
  for (uint32_t f : walk.frames()) {
    EXPECT_EQ(sheet.atlas().name(f).substr(0, 4), "walk");
    EXPECT_EQ(sheet.atlas().frames()[f].y, 512u);  // row 4
  }
  EXPECT_EQ(walk.fps(), 12.0f);
}

// TexturePacker-style data with a rotated, trimmed frame and a pivot, and no tags: the
// whole sheet is one clip "all" at the animation's fps.
TEST(AtlasDataCook, RotatedTrimmedFramesKeepTheirPlacements) {
  const fs::path dir = folder("packer");
  write_png(dir / "sheet.png", 64, 32);
  write(dir / "sheet.json",
        R"({"frames": {
  "a": {"frame": {"x": 0, "y": 0, "w": 10, "h": 10}},
  "b": {"frame": {"x": 10, "y": 0, "w": 20, "h": 30}, "rotated": true, "trimmed": true,
        "spriteSourceSize": {"x": 2, "y": 3, "w": 20, "h": 30}, "sourceSize": {"w": 24, "h": 36},
        "pivot": {"x": 0.5, "y": 1}}},
 "meta": {"app": "https://www.codeandweb.com/texturepacker", "image": "sheet.png",
          "size": {"w": 64, "h": 32}}}
)");
  write(dir / "scene.toml", scene("atlas = \"sheet.json\"\nfps = 5\nclip = \"all\"\n"));
  DiagnosticSink sink;
  const CookOutput out = cook(dir, sink);
  ASSERT_FALSE(sink.has_errors()) << show(sink);
  const Atlas& atlas = out.pack.sheets[0].sheet.atlas();
  ASSERT_TRUE(atlas.has_placements());
  EXPECT_EQ(atlas.frames()[1].width, 30u);
  const FramePlacement b = *atlas.placement(1);
  EXPECT_TRUE(b.rotated);
  EXPECT_EQ(b.source.width, 24u);
  EXPECT_EQ(b.trimmed.x, 2u);
  EXPECT_EQ(b.pivot_y, 36.0f);
  ASSERT_EQ(out.pack.sheets[0].sheet.clips().size(), 1u);
  EXPECT_EQ(out.pack.sheets[0].sheet.clips()[0].name(), "all");
  EXPECT_EQ(out.pack.sheets[0].sheet.clips()[0].frames().size(), 2u);
}

// --- Errors. ---

TEST(AtlasDataCook, AnErrorInTheDataFileIsReportedThereWithANoteAtAtlas) {
  const fs::path dir = beetle_folder("bad_duration");
  std::string text = test_data::read_test_file(dir / "beetle.json");
  text.replace(text.find("\"duration\": 500"), 15, "\"duration\": -5");
  fs::remove(dir / "beetle.json");
  write(dir / "beetle.json", text);
  write(dir / "scene.toml", scene("atlas = \"beetle.json\"\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 2u) << show(sink);
  EXPECT_EQ(f[0].code, "E0240");
  EXPECT_EQ(f[0].file, "beetle.json");
  EXPECT_EQ(f[0].line, 8);
  EXPECT_EQ(f[0].col, 17);
  EXPECT_EQ(f[1].code, "E0240");
  EXPECT_EQ(f[1].severity, Severity::kNote);
  EXPECT_EQ(f[1].file, "scene.toml");
  EXPECT_EQ(f[1].line, 5);
  EXPECT_EQ(f[1].col, 1);
  // The caret line is the data file's.
  EXPECT_NE(show(sink).find("\"duration\": -5"), std::string::npos) << show(sink);
}

TEST(AtlasDataCook, AMissingDataFileIsReportedAtAtlas) {
  const fs::path dir = folder("missing");
  write(dir / "scene.toml", scene("atlas = \"none.json\"\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 1u) << show(sink);
  EXPECT_EQ(f[0].code, "E0240");
  EXPECT_EQ(f[0].line, 5);
}

TEST(AtlasDataCook, AnImageOfAnotherSizeThanTheDataStatesIsRefused) {
  const fs::path dir = folder("size");
  write_png(dir / "beetle.png", 64, 64);
  fs::copy_file(corpus("excalibur-aseprite-beetle/example/beetle.json"), dir / "beetle.json");
  write(dir / "scene.toml", scene("atlas = \"beetle.json\"\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 1u) << show(sink);
  EXPECT_EQ(f[0].code, "E0242");
  EXPECT_EQ(f[0].file, "scene.toml");
}

TEST(AtlasDataCook, AStarlingFrameOutsideTheImageIsReportedAtItsLine) {
  const fs::path dir = folder("outside");
  write_png(dir / "s.png", 16, 16);
  write(dir / "s.xml",
        "<TextureAtlas imagePath=\"s.png\">\n"
        "  <SubTexture name=\"a\" x=\"0\" y=\"0\" width=\"8\" height=\"8\"/>\n"
        "  <SubTexture name=\"b\" x=\"12\" y=\"0\" width=\"8\" height=\"8\"/>\n"
        "</TextureAtlas>\n");
  write(dir / "scene.toml", scene("atlas = \"s.xml\"\nfps = 2\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 2u) << show(sink);
  EXPECT_EQ(f[0].code, "E0242");
  EXPECT_EQ(f[0].file, "s.xml");
  EXPECT_EQ(f[0].line, 3);
  EXPECT_EQ(f[0].col, 3);
  EXPECT_EQ(f[1].severity, Severity::kNote);
  EXPECT_EQ(f[1].file, "scene.toml");
}

TEST(AtlasDataCook, AMissingImageIsReportedAtAtlas) {
  const fs::path dir = folder("no_image");
  fs::copy_file(corpus("excalibur-aseprite-beetle/example/beetle.json"), dir / "beetle.json");
  write(dir / "scene.toml", scene("atlas = \"beetle.json\"\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 1u) << show(sink);
  EXPECT_EQ(f[0].code, "E0205");
  EXPECT_EQ(f[0].line, 5);
}

TEST(AtlasDataCook, GridAndRectsAreRefusedWithADataFile) {
  const fs::path dir = beetle_folder("grid");
  write(dir / "scene.toml", scene("atlas = \"beetle.json\"\ngrid = [2, 2]\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 1u) << show(sink);
  EXPECT_EQ(f[0].code, "E0190");
  EXPECT_EQ(f[0].line, 6);
}

TEST(AtlasDataCook, FrameNamesAreRefusedWithAPngAtlas) {
  const fs::path dir = folder("names_png");
  write_png(dir / "a.png", 16, 16);
  write(dir / "scene.toml",
        scene("atlas = \"a.png\"\ngrid = [2, 2]\nfps = 2\n\n[object.animation.clips.x]\n"
              "from = 0\nto = 1\nprefix = \"x\"\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 1u) << show(sink);
  EXPECT_EQ(f[0].code, "E0190");
  EXPECT_EQ(f[0].line, 12);
}

TEST(AtlasDataCook, AClipGivingItsFramesTwoWaysIsRefused) {
  const fs::path dir = beetle_folder("two_ways");
  write(dir / "scene.toml", scene("atlas = \"beetle.json\"\n\n[object.animation.clips.x]\n"
                                  "from = 0\nto = 1\nprefix = \"beetle\"\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 1u) << show(sink);
  EXPECT_EQ(f[0].code, "E0190");
  EXPECT_EQ(f[0].line, 10);
}

TEST(AtlasDataCook, UnknownFrameNamesAndPrefixesAreRefusedAtTheName) {
  const fs::path dir = beetle_folder("unknown_name");
  write(dir / "scene.toml", scene("atlas = \"beetle.json\"\n\n[object.animation.clips.x]\n"
                                  "frames = [\"beetle 0.aseprite\", \"beetle 9.aseprite\"]\n\n"
                                  "[object.animation.clips.y]\nprefix = \"dragon\"\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 2u) << show(sink);
  EXPECT_EQ(f[0].code, "E0241");
  EXPECT_EQ(f[0].line, 8);
  EXPECT_EQ(f[0].col, 32);
  EXPECT_EQ(f[1].code, "E0241");
  EXPECT_EQ(f[1].line, 11);
}

TEST(AtlasDataCook, ATagsClipTakesNoFramesFromTheScene) {
  const fs::path dir = beetle_folder("tag_frames");
  write(dir / "scene.toml",
        scene("atlas = \"beetle.json\"\n\n[object.animation.clips.Loop]\nfrom = 0\nto = 1\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 1u) << show(sink);
  EXPECT_EQ(f[0].code, "E0241");
  EXPECT_EQ(f[0].line, 8);
}

TEST(AtlasDataCook, AClipThatIsNoTagAndHasNoFramesIsRefused) {
  const fs::path dir = beetle_folder("no_frames");
  write(dir / "scene.toml",
        scene("atlas = \"beetle.json\"\n\n[object.animation.clips.Lop]\nplayback = \"once\"\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 1u) << show(sink);
  EXPECT_EQ(f[0].code, "E0241");
  EXPECT_EQ(f[0].line, 7);
}

TEST(AtlasDataCook, AnUnknownClipOrEventClipIsRefused) {
  const fs::path dir = beetle_folder("unknown_clip");
  write(dir / "scene.toml", scene("atlas = \"beetle.json\"\nclip = \"Lop\"\n"
                                  "events = [{ name = \"e\", clip = \"Walk\", frame = 0 }]\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 2u) << show(sink);
  EXPECT_EQ(f[0].code, "E0131");
  EXPECT_EQ(f[0].line, 6);
  EXPECT_EQ(f[1].code, "E0131");
  EXPECT_EQ(f[1].line, 7);
}

TEST(AtlasDataCook, AnEventPastItsTagsFramesIsRefused) {
  const fs::path dir = beetle_folder("event_frame");
  write(dir / "scene.toml",
        scene("atlas = \"beetle.json\"\n"
              "events = [{ name = \"e\", clip = \"Animation 2\", frame = 2 }]\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 1u) << show(sink);
  EXPECT_EQ(f[0].code, "E0208");
  EXPECT_EQ(f[0].line, 6);
}

TEST(AtlasDataCook, AClipWithoutDurationsOrFpsIsRefused) {
  const fs::path dir = folder("no_fps");
  write_png(dir / "s.png", 16, 16);
  write(dir / "s.xml",
        "<TextureAtlas imagePath=\"s.png\">\n"
        "  <SubTexture name=\"a\" x=\"0\" y=\"0\" width=\"8\" height=\"8\"/>\n"
        "</TextureAtlas>\n");
  write(dir / "scene.toml", scene("atlas = \"s.xml\"\n\n[object.animation.clips.x]\n"
                                  "frames = [\"a\"]\n"));
  DiagnosticSink sink;
  cook(dir, sink);
  const std::vector<Found> f = found(sink);
  ASSERT_EQ(f.size(), 1u) << show(sink);
  EXPECT_EQ(f[0].code, "E0127");
  EXPECT_EQ(f[0].line, 7);
}

}  // namespace
}  // namespace animpack
