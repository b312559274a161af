// Sprite tools' data files (atlas_data.h): the corpus's Aseprite beetle (two exports), the
// Kenney Starling XML and the ShoeBox XML; TexturePacker-style JSON with rotated, trimmed
// frames and pivots, written here; and one block per rule a bad file breaks, each at its
// line:col and JSON pointer.
#include "animpack/compiler/atlas_data.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "fixtures/test_data.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

fs::path corpus(const char* rel) { return fs::path(ANIMPACK_CORPUS_DIR) / "atlases" / rel; }

std::string issues_of(const AtlasDataResult& r) {
  std::string s;
  for (const AtlasDataIssue& i : r.issues) {
    s += std::string(i.error ? "error " : "warning ") + std::to_string(i.line) + ":" +
         std::to_string(i.col) + " " + i.pointer + " " + i.message + "\n";
  }
  return s;
}

// The one error a bad file must give: at `pointer` (JSON) and line:col.
void expect_one_error(const AtlasDataResult& r, const std::string& pointer, int line, int col) {
  EXPECT_FALSE(r.data);
  ASSERT_EQ(r.issues.size(), 1u) << issues_of(r);
  EXPECT_TRUE(r.issues[0].error);
  EXPECT_EQ(r.issues[0].pointer, pointer) << issues_of(r);
  EXPECT_EQ(r.issues[0].line, line) << issues_of(r);
  EXPECT_EQ(r.issues[0].col, col) << issues_of(r);
}

// A small TexturePacker-style hash: frame "a" plain, frame "b" rotated and trimmed with a
// pivot. `b_extra` goes into frame b's object, `meta_extra` into meta.
std::string packer_json(const std::string& b_frame = R"({"x": 10, "y": 0, "w": 20, "h": 30})",
                        const std::string& b_extra = "", const std::string& meta_extra = "") {
  return "{\"frames\": {\n"
         "  \"a\": {\"frame\": {\"x\": 0, \"y\": 0, \"w\": 10, \"h\": 10}},\n"
         "  \"b\": {\"frame\": " +
         b_frame +
         ", \"rotated\": true, \"trimmed\": true,\n"
         "        \"spriteSourceSize\": {\"x\": 2, \"y\": 3, \"w\": 20, \"h\": 30},\n"
         "        \"sourceSize\": {\"w\": 24, \"h\": 36}, \"pivot\": {\"x\": 0.5, \"y\": 1}" +
         b_extra +
         "}\n"
         "},\n"
         "\"meta\": {\"app\": \"https://www.codeandweb.com/texturepacker\", \"image\": "
         "\"sheet.png\",\n"
         "  \"size\": {\"w\": 64, \"h\": 32}" +
         meta_extra + "}}\n";
}

// An Aseprite-style array of three 8x8 frames in a 24x8 image, with `tags` and `slices`.
std::string aseprite_json(const std::string& tags, const std::string& slices = "[]",
                          const std::string& duration1 = "100") {
  return "{ \"frames\": [\n"
         "  {\"filename\": \"f0\", \"frame\": {\"x\": 0, \"y\": 0, \"w\": 8, \"h\": 8}, "
         "\"duration\": 100},\n"
         "  {\"filename\": \"f1\", \"frame\": {\"x\": 8, \"y\": 0, \"w\": 8, \"h\": 8}, "
         "\"duration\": " +
         duration1 +
         "},\n"
         "  {\"filename\": \"f2\", \"frame\": {\"x\": 16, \"y\": 0, \"w\": 8, \"h\": 8}, "
         "\"duration\": 300}\n"
         " ],\n"
         " \"meta\": {\"app\": \"http://www.aseprite.org/\", \"image\": \"s.png\", "
         "\"size\": {\"w\": 24, \"h\": 8},\n"
         "  \"frameTags\": " +
         tags +
         ",\n"
         "  \"slices\": " +
         slices + "}}\n";
}

TEST(AtlasData, ReadsTheAsepriteBeetleHashWithDurationsAndBothTags) {
  const AtlasDataResult r =
      read_atlas_data(corpus("excalibur-aseprite-beetle/example/beetle.json"));
  ASSERT_TRUE(r.data) << issues_of(r);
  EXPECT_TRUE(r.issues.empty()) << issues_of(r);
  const AtlasData& d = *r.data;
  EXPECT_EQ(d.format, AtlasDataFormat::kAsepriteJson);
  EXPECT_EQ(d.image, "beetle.png");
  EXPECT_EQ(d.image_size.width, 128u);
  EXPECT_EQ(d.image_size.height, 128u);
  ASSERT_EQ(d.frames.size(), 3u);
  // The hash's order is the file's (not sorted), each with its 500 ms.
  EXPECT_EQ(d.frames[0].name, "beetle 0.aseprite");
  EXPECT_EQ(d.frames[2].name, "beetle 2.aseprite");
  EXPECT_EQ(d.frames[1].rect.x, 64u);
  EXPECT_EQ(d.frames[2].rect.y, 64u);
  EXPECT_EQ(d.frames[2].rect.width, 64u);
  for (const AtlasDataFrame& f : d.frames) EXPECT_EQ(f.duration_ms, 500u);
  EXPECT_EQ(d.frames[0].pointer, "/frames/beetle 0.aseprite");
  EXPECT_EQ(d.frames[0].line, 2);
  EXPECT_EQ(d.frames[1].line, 10);
  // Untrimmed: the source is the frame, the pivot its centre.
  EXPECT_EQ(d.frames[0].placement.source.width, 64u);
  EXPECT_FALSE(d.frames[0].placement.rotated);
  EXPECT_EQ(d.frames[0].placement.pivot_x, 32.0f);
  ASSERT_EQ(d.tags.size(), 2u);
  EXPECT_EQ(d.tags[0].name, "Loop");
  EXPECT_EQ(d.tags[0].from, 0u);
  EXPECT_EQ(d.tags[0].to, 2u);
  EXPECT_EQ(d.tags[0].direction, AtlasTagDirection::kPingPong);
  EXPECT_EQ(d.tags[1].name, "Animation 2");
  EXPECT_EQ(d.tags[1].from, 1u);
  EXPECT_EQ(d.tags[1].direction, AtlasTagDirection::kReverse);
  EXPECT_EQ(d.tags[1].pointer, "/meta/frameTags/1");
  EXPECT_EQ(d.tags[1].line, 36);
}

TEST(AtlasData, ReadsTheOlderBeetleExportWithOneTag) {
  const AtlasDataResult r =
      read_atlas_data(corpus("excalibur-aseprite-beetle/test-unit/beetle.json"));
  ASSERT_TRUE(r.data) << issues_of(r);
  EXPECT_EQ(r.data->format, AtlasDataFormat::kAsepriteJson);  // "http://www.aseprite.org/"
  EXPECT_EQ(r.data->frames.size(), 3u);
  ASSERT_EQ(r.data->tags.size(), 1u);
  EXPECT_EQ(r.data->tags[0].direction, AtlasTagDirection::kPingPong);
}

TEST(AtlasData, ReadsTheKenneyStarlingXmlInFileOrder) {
  const AtlasDataResult r = read_atlas_data(
      corpus("kenney-toon-characters-maleAdventurer/character_maleAdventurer_sheet.starling-xml"));
  ASSERT_TRUE(r.data) << issues_of(r);
  const AtlasData& d = *r.data;
  EXPECT_EQ(d.format, AtlasDataFormat::kStarlingXml);
  EXPECT_EQ(d.image, "character_maleAdventurer_sheet.png");
  EXPECT_EQ(d.image_size.width, 0u);  // Starling states no size
  ASSERT_EQ(d.frames.size(), 45u);
  EXPECT_EQ(d.frames[0].name, "idle");
  EXPECT_EQ(d.frames[0].line, 2);
  EXPECT_EQ(d.frames[0].col, 2);  // its '<', after a tab
  EXPECT_EQ(d.frames[9].name, "back");
  EXPECT_EQ(d.frames[9].rect.y, 128u);
  EXPECT_EQ(d.frames[9].rect.width, 96u);
  EXPECT_EQ(d.frames[9].rect.height, 128u);
  EXPECT_EQ(d.frames[9].placement.pivot_y, 64.0f);
  EXPECT_TRUE(d.frames[9].pointer.empty());
  int walks = 0;
  for (const AtlasDataFrame& f : d.frames) walks += f.name.rfind("walk", 0) == 0;
  EXPECT_EQ(walks, 8);
}

TEST(AtlasData, ReadsShoeBoxXmlWithTabsAndNegativeZeroOffsets) {
  const AtlasDataResult r =
      read_atlas_data(corpus("kenney-topdown-shooter/Spritesheet/spritesheet_characters.xml"));
  ASSERT_TRUE(r.data) << issues_of(r);
  EXPECT_EQ(r.data->image, "sprites.png");  // as the file says (not the PNG's name)
  ASSERT_EQ(r.data->frames.size(), 54u);
  const AtlasDataFrame& f = r.data->frames[0];
  EXPECT_EQ(f.name, "hitman1_gun.png");
  EXPECT_EQ(f.rect.x, 164u);
  EXPECT_EQ(f.rect.width, 49u);
  EXPECT_EQ(f.placement.trimmed.x, 0u);  // frameX="-0"
  EXPECT_EQ(f.placement.source.width, 49u);
}

TEST(AtlasData, ReadsTexturePackerRotatedTrimmedFramesWithPivots) {
  const AtlasDataResult r = parse_atlas_data(packer_json(), "sheet.json");
  ASSERT_TRUE(r.data) << issues_of(r);
  const AtlasData& d = *r.data;
  EXPECT_EQ(d.format, AtlasDataFormat::kTexturePackerJson);
  ASSERT_EQ(d.frames.size(), 2u);
  EXPECT_FALSE(d.frames[0].duration_ms);
  const AtlasDataFrame& b = d.frames[1];
  // Drawn 20x30, stored turned: 30 wide, 20 high in the image.
  EXPECT_EQ(b.rect.x, 10u);
  EXPECT_EQ(b.rect.width, 30u);
  EXPECT_EQ(b.rect.height, 20u);
  EXPECT_TRUE(b.placement.rotated);
  EXPECT_EQ(b.placement.source.width, 24u);
  EXPECT_EQ(b.placement.source.height, 36u);
  EXPECT_EQ(b.placement.trimmed.x, 2u);
  EXPECT_EQ(b.placement.trimmed.y, 3u);
  EXPECT_EQ(b.placement.trimmed.width, 20u);
  EXPECT_EQ(b.placement.trimmed.height, 30u);
  EXPECT_EQ(b.placement.pivot_x, 12.0f);  // 0.5 of the source width
  EXPECT_EQ(b.placement.pivot_y, 36.0f);
  // What the runtime takes.
  std::vector<AtlasFrame> frames;
  for (const AtlasDataFrame& f : d.frames) frames.push_back({f.rect, f.placement, f.name});
  auto atlas = Atlas::create({64, 32}, frames);
  ASSERT_TRUE(atlas) << atlas.error().message();
  EXPECT_EQ(atlas->name(1), "b");
}

TEST(AtlasData, ReadsStarlingTrimmedRotatedFramesWithPivots) {
  const AtlasDataResult r = parse_atlas_data(
      "<?xml version=\"1.0\"?>\n<TextureAtlas imagePath=\"s.png\" width=\"64\" height=\"64\">\n"
      "  <SubTexture name=\"r\" x=\"4\" y=\"0\" width=\"30\" height=\"20\" frameX=\"-2\" "
      "frameY=\"-3\" frameWidth=\"24\" frameHeight=\"36\" rotated=\"true\" pivotX=\"12\" "
      "pivotY=\"35.5\"/>\n"
      "</TextureAtlas>\n",
      "s.xml");
  ASSERT_TRUE(r.data) << issues_of(r);
  const AtlasDataFrame& f = r.data->frames[0];
  EXPECT_EQ(r.data->image_size.width, 64u);
  EXPECT_EQ(f.rect.width, 30u);  // as stored
  EXPECT_TRUE(f.placement.rotated);
  EXPECT_EQ(f.placement.trimmed.x, 2u);
  EXPECT_EQ(f.placement.trimmed.y, 3u);
  EXPECT_EQ(f.placement.trimmed.width, 20u);  // as drawn
  EXPECT_EQ(f.placement.trimmed.height, 30u);
  EXPECT_EQ(f.placement.pivot_y, 35.5f);
  EXPECT_EQ(f.line, 3);
  EXPECT_EQ(f.col, 3);
}

TEST(AtlasData, ReadsTheArrayFormAndEveryTagDirection) {
  const AtlasDataResult r =
      parse_atlas_data(aseprite_json(R"([{"name": "a", "from": 0, "to": 2, "direction": "forward"},
    {"name": "b", "from": 0, "to": 1, "direction": "reverse"},
    {"name": "c", "from": 1, "to": 2, "direction": "pingpong"},
    {"name": "d", "from": 2, "to": 2, "direction": "pingpong_reverse"},
    {"name": "e", "from": 0, "to": 0}])"),
                       "s.json");
  ASSERT_TRUE(r.data) << issues_of(r);
  EXPECT_EQ(r.data->frames[1].name, "f1");
  EXPECT_EQ(r.data->frames[2].duration_ms, 300u);
  EXPECT_EQ(r.data->frames[1].pointer, "/frames/1");
  ASSERT_EQ(r.data->tags.size(), 5u);
  EXPECT_EQ(r.data->tags[0].direction, AtlasTagDirection::kForward);
  EXPECT_EQ(r.data->tags[1].direction, AtlasTagDirection::kReverse);
  EXPECT_EQ(r.data->tags[2].direction, AtlasTagDirection::kPingPong);
  EXPECT_EQ(r.data->tags[3].direction, AtlasTagDirection::kPingPongReverse);
  EXPECT_EQ(r.data->tags[4].direction, AtlasTagDirection::kForward);  // the default
}

TEST(AtlasData, SlicePivotsSetTheFramesTheirKeysCover) {
  // Key at frame 0 with a pivot, key at frame 2 without: frames 0 and 1 get it.
  const AtlasDataResult r = parse_atlas_data(aseprite_json("[]", R"([{"name": "feet", "keys": [
        {"frame": 0, "bounds": {"x": 1, "y": 2, "w": 4, "h": 4}, "pivot": {"x": 2, "y": 3}},
        {"frame": 2, "bounds": {"x": 1, "y": 2, "w": 4, "h": 4}}]},
      {"name": "late", "keys": [
        {"frame": 1, "bounds": {"x": 0, "y": 0, "w": 1, "h": 1}, "pivot": {"x": 0, "y": 0}}]}])"),
                                             "s.json");
  ASSERT_TRUE(r.data) << issues_of(r);
  EXPECT_EQ(r.data->frames[0].placement.pivot_x, 3.0f);
  EXPECT_EQ(r.data->frames[0].placement.pivot_y, 5.0f);
  EXPECT_EQ(r.data->frames[1].placement.pivot_x, 3.0f);
  EXPECT_EQ(r.data->frames[2].placement.pivot_x, 4.0f);  // the centre
  // The later slice's pivot on frame 1 is passed over, with a warning.
  ASSERT_EQ(r.issues.size(), 1u) << issues_of(r);
  EXPECT_FALSE(r.issues[0].error);
  EXPECT_EQ(r.issues[0].pointer, "/meta/slices/1/keys/0");
}

// --- Bad files: one block per rule. ---

TEST(AtlasData, RefusesJsonThatIsNotAnObject) {
  expect_one_error(parse_atlas_data("[1, 2]", "x.json"), "", 1, 1);
}

TEST(AtlasData, RefusesBrokenJsonAtItsLineAndColumn) {
  const AtlasDataResult r = parse_atlas_data("{\"frames\": {\n  \"a\": {,}\n}}", "x.json");
  ASSERT_EQ(r.issues.size(), 1u) << issues_of(r);
  EXPECT_EQ(r.issues[0].line, 2);
  EXPECT_EQ(r.issues[0].col, 9);
}

TEST(AtlasData, RefusesAFileThatIsNeitherJsonNorXml) {
  const AtlasDataResult r = parse_atlas_data("frames: 3", "x.json");
  EXPECT_FALSE(r.data);
  ASSERT_EQ(r.issues.size(), 1u);
}

TEST(AtlasData, RefusesAFrameOutsideTheImage) {
  // Rotated: 30 wide stored at x 40 passes the 64-pixel image.
  expect_one_error(
      parse_atlas_data(packer_json(R"({"x": 40, "y": 0, "w": 20, "h": 30})"), "x.json"),
      "/frames/b/frame", 3, 18);
}

TEST(AtlasData, RefusesATrimmedBoxNotInsideTheSourceSize) {
  const std::string text = packer_json();
  std::string bad = text;
  bad.replace(bad.find("\"w\": 24"), 7, "\"w\": 21");
  expect_one_error(parse_atlas_data(bad, "x.json"), "/frames/b/spriteSourceSize", 4, 29);
}

TEST(AtlasData, RefusesATrimmedSizeThatIsNotTheFrames) {
  std::string bad = packer_json();
  bad.replace(bad.find("\"w\": 20, \"h\": 30}, \"rot"), 7, "\"w\": 19");
  EXPECT_FALSE(parse_atlas_data(bad, "x.json").data);
}

TEST(AtlasData, RefusesNegativeZeroFractionalAndOverlongDurations) {
  for (const char* duration : {"-100", "0", "12.5", "3600001", "\"100\""}) {
    SCOPED_TRACE(duration);
    expect_one_error(parse_atlas_data(aseprite_json("[]", "[]", duration), "x.json"),
                     "/frames/1/duration", 3, 77);
  }
}

TEST(AtlasData, RefusesATagThatEndsBeforeItStarts) {
  expect_one_error(
      parse_atlas_data(aseprite_json(R"([{"name": "t", "from": 2, "to": 1}])"), "x.json"),
      "/meta/frameTags/0/to", 7, 48);
}

TEST(AtlasData, RefusesATagPastTheFrames) {
  expect_one_error(
      parse_atlas_data(aseprite_json(R"([{"name": "t", "from": 1, "to": 3}])"), "x.json"),
      "/meta/frameTags/0/to", 7, 48);
}

TEST(AtlasData, RefusesAnUnknownTagDirection) {
  expect_one_error(parse_atlas_data(aseprite_json(R"([{"name": "t", "from": 0, "to": 1,
    "direction": "sideways"}])"),
                                    "x.json"),
                   "/meta/frameTags/0/direction", 8, 18);
}

TEST(AtlasData, RefusesATagNameGivenTwice) {
  const AtlasDataResult r = parse_atlas_data(
      aseprite_json(R"([{"name": "t", "from": 0, "to": 1}, {"name": "t", "from": 1, "to": 2}])"),
      "x.json");
  expect_one_error(r, "/meta/frameTags/1/name", 7, 61);
}

TEST(AtlasData, RefusesAFrameNameGivenTwice) {
  // The hash form: the key repeated.
  std::string hash = packer_json();
  hash.replace(hash.find("\"b\": {"), 6, "\"a\": {");
  const AtlasDataResult r = parse_atlas_data(hash, "x.json");
  EXPECT_FALSE(r.data);
  ASSERT_GE(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].pointer, "/frames/a");
  EXPECT_EQ(r.issues[0].line, 3);
  // The array form: a filename repeated.
  std::string array = aseprite_json("[]");
  array.replace(array.find("\"f2\""), 4, "\"f0\"");
  expect_one_error(parse_atlas_data(array, "x.json"), "/frames/2", 4, 3);
}

TEST(AtlasData, RefusesAFileWithoutAnImage) {
  std::string text = packer_json();
  text.replace(text.find("\"image\": \"sheet.png\","), 21, "");
  expect_one_error(parse_atlas_data(text, "x.json"), "/meta", 7, 9);
}

TEST(AtlasData, RefusesValuesOfTheWrongType) {
  expect_one_error(parse_atlas_data(packer_json(R"("10,0,20,30")"), "x.json"), "/frames/b/frame", 3,
                   18);
  expect_one_error(parse_atlas_data(R"({"frames": 3, "meta": {"image": "a.png",
    "size": {"w": 1, "h": 1}}})",
                                    "x.json"),
                   "/frames", 1, 12);
}

TEST(AtlasData, RefusesJsonNestedTooDeep) {
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  const AtlasDataResult r = parse_atlas_data(deep, "x.json");
  EXPECT_FALSE(r.data);
  ASSERT_EQ(r.issues.size(), 1u);
}

TEST(AtlasData, RefusesMoreFramesThanTheLimit) {
  std::string text = "{\"frames\": [";
  for (size_t i = 0; i <= kMaxAtlasDataFrames; ++i) {
    text += std::string(i ? "," : "") + R"({"frame": {"x": 0, "y": 0, "w": 1, "h": 1}})";
  }
  text += R"(], "meta": {"image": "a.png", "size": {"w": 1, "h": 1}}})";
  expect_one_error(parse_atlas_data(text, "x.json"), "/frames", 1, 12);
}

TEST(AtlasData, RefusesXmlWhoseRootIsNotATextureAtlas) {
  expect_one_error(parse_atlas_data("<Atlas imagePath=\"a.png\"/>", "x.xml"), "", 1, 1);
}

TEST(AtlasData, RefusesMalformedXmlAtItsLine) {
  const AtlasDataResult r =
      parse_atlas_data("<TextureAtlas imagePath=\"a.png\">\n  <SubTexture name=\"a\"\n", "x.xml");
  EXPECT_FALSE(r.data);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_GE(r.issues[0].line, 2) << issues_of(r);
}

TEST(AtlasData, RefusesStarlingFramesThatBreakTheRules) {
  const auto one = [](const std::string& sub) {
    return parse_atlas_data("<TextureAtlas imagePath=\"a.png\" width=\"64\" height=\"64\">\n" +
                                sub + "\n</TextureAtlas>",
                            "x.xml");
  };
  // Missing attribute, not a number, outside the image, a positive frameX, a bad rotated.
  expect_one_error(one(R"(<SubTexture name="a" x="0" y="0" width="8"/>)"), "", 2, 1);
  expect_one_error(one(R"(<SubTexture name="a" x="0" y="zero" width="8" height="8"/>)"), "", 2, 1);
  expect_one_error(one(R"(<SubTexture name="a" x="60" y="0" width="8" height="8"/>)"), "", 2, 1);
  expect_one_error(one(R"(<SubTexture name="a" x="0" y="0" width="8" height="8" frameX="2"
    frameY="0" frameWidth="10" frameHeight="8"/>)"),
                   "", 2, 1);
  expect_one_error(one(R"(<SubTexture name="a" x="0" y="0" width="8" height="8" frameX="-4"
    frameY="0" frameWidth="10" frameHeight="8"/>)"),
                   "", 2, 1);
  expect_one_error(one(R"(<SubTexture name="a" x="0" y="0" width="8" height="8" rotated="yes"/>)"),
                   "", 2, 1);
  // A name given twice: at the second.
  expect_one_error(one("<SubTexture name=\"a\" x=\"0\" y=\"0\" width=\"8\" height=\"8\"/>\n"
                       "<SubTexture name=\"a\" x=\"8\" y=\"0\" width=\"8\" height=\"8\"/>"),
                   "", 3, 1);
}

// Every prefix of the real files (and every one with a byte changed) gives data or an
// error, positions inside the text, and never throws.
TEST(AtlasData, NeverThrowsOnTruncatedOrCorruptFiles) {
  size_t runs = 0;
  for (const char* rel :
       {"excalibur-aseprite-beetle/example/beetle.json",
        "kenney-toon-characters-maleAdventurer/character_maleAdventurer_sheet.starling-xml"}) {
    const std::string text = test_data::read_test_file(corpus(rel));
    const auto check = [&runs](const std::string& input) {
      AtlasDataResult r;
      EXPECT_NO_THROW(r = parse_atlas_data(input, "fuzz"));
      bool error = false;
      for (const AtlasDataIssue& i : r.issues) {
        error = error || i.error;
        ASSERT_GE(i.line, 0);
        ASSERT_GE(i.col, 0);
        ASSERT_FALSE(i.message.empty());
      }
      ASSERT_NE(r.data.has_value(), error);
      ++runs;
    };
    for (size_t n = 0; n <= text.size(); n += 5) check(text.substr(0, n));
    const char replacements[] = {'"', '[', '}', ':', '\n', '-', '<', '0', '/', '>', '\x80'};
    for (size_t i = 0; i < text.size(); i += 3) {
      std::string mutated = text;
      mutated[i] = replacements[i % sizeof replacements];
      check(mutated);
    }
  }
  EXPECT_GT(runs, 1000u);
}

TEST(AtlasData, ReportsAFileThatCannotBeRead) {
  const AtlasDataResult r = read_atlas_data(fs::path(ANIMPACK_SOURCE_DIR) / "no such file.json");
  EXPECT_FALSE(r.data);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].line, 0);
  EXPECT_NE(r.issues[0].message.find("no such file.json"), std::string::npos);
}

}  // namespace
}  // namespace animpack
