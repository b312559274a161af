// Sprite atlas PNGs: real sheets from the corpus decode to RGBA8 and cut into the frames
// their authors describe; files that are not PNGs, truncated or corrupt are refused.
#include "animpack/compiler/atlas_import.h"

#include <gtest/gtest.h>
#include <stb/stb_image_write.h>

#include <filesystem>
#include <fstream>

#include "animpack/sprite.h"
#include "fixtures/test_data.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

fs::path corpus(const char* rel) { return fs::path(ANIMPACK_CORPUS_DIR) / rel; }

std::vector<uint8_t> file_bytes(const fs::path& p) {
  return animpack::test_data::read_test_bytes(p);
}

TEST(AtlasImport, KenneySheetCutsIntoNineByFiveCells) {
  const PngImage png = read_png(
      corpus("atlases/kenney-toon-characters-maleAdventurer/character_maleAdventurer_sheet.png"));
  ASSERT_EQ(png.error, "");
  EXPECT_EQ(png.width, 864u);
  EXPECT_EQ(png.height, 640u);
  EXPECT_EQ(png.rgba.size(), 864u * 640u * 4u);
  auto atlas = Atlas::grid({png.width, png.height}, {96, 128}, 45);
  ASSERT_TRUE(atlas);
  // Row 4 (y = 512) holds walk0..walk7: frames 36..43.
  EXPECT_EQ(atlas->frames()[36].y, 512u);
  EXPECT_EQ(atlas->frames()[36].x, 0u);
  EXPECT_FALSE(Atlas::grid({png.width, png.height}, {96, 128}, 46)) << "a 46th cell is outside";
}

TEST(AtlasImport, CrosshairSheetWithSpacingCutsTwentyByTen) {
  const PngImage png =
      read_png(corpus("atlases/kenney-crosshair-pack/crosshairs_tilesheet_white.png"));
  ASSERT_EQ(png.error, "");
  EXPECT_EQ(png.width, 1375u);
  EXPECT_EQ(png.height, 685u);
  auto atlas = Atlas::grid({png.width, png.height}, {64, 64}, 200, {5, 0});
  ASSERT_TRUE(atlas) << atlas.error().message();
  EXPECT_EQ(atlas->frames()[199].x, 19u * 69u);
  EXPECT_EQ(atlas->frames()[199].y, 9u * 69u);
}

TEST(AtlasImport, TinyPixelArtKeepsItsAlpha) {
  const PngImage png = read_png(corpus("atlases/bevy-generic-rpg/gabe-idle-run.png"));
  ASSERT_EQ(png.error, "");
  EXPECT_EQ(png.width, 168u);
  EXPECT_EQ(png.height, 24u);
  bool transparent = false, opaque = false;
  for (size_t i = 3; i < png.rgba.size(); i += 4) {
    transparent |= png.rgba[i] == 0;
    opaque |= png.rgba[i] == 255;
  }
  EXPECT_TRUE(transparent && opaque);
}

TEST(AtlasImport, PixelsRoundTripThroughAPngWeWrite) {
  const fs::path file = fs::temp_directory_path() / "animpack_atlas_roundtrip.png";
  std::vector<uint8_t> rgba;
  for (int i = 0; i < 7 * 5; ++i) {
    rgba.insert(rgba.end(), {static_cast<uint8_t>(i * 7), static_cast<uint8_t>(255 - i), 9,
                             static_cast<uint8_t>(i * 3)});
  }
  ASSERT_TRUE(stbi_write_png(file.c_str(), 7, 5, 4, rgba.data(), 7 * 4));
  const PngImage png = read_png(file);
  ASSERT_EQ(png.error, "");
  EXPECT_EQ(png.rgba, rgba);
  fs::remove(file);
}

TEST(AtlasImport, RefusesAJpegNamedPng) {
  const std::vector<uint8_t> jpeg = file_bytes(corpus("gltf/InterpolationTest/glTF/l.jpg"));
  ASSERT_GT(jpeg.size(), 100u);
  const PngImage png = decode_png(jpeg);
  EXPECT_NE(png.error.find("not a PNG"), std::string::npos) << png.error;
}

TEST(AtlasImport, RefusesATruncatedPng) {
  std::vector<uint8_t> bytes = file_bytes(corpus("atlases/kenney-food-kit/food_kenney.png"));
  ASSERT_GT(bytes.size(), 1000u);
  bytes.resize(bytes.size() / 2);
  const PngImage png = decode_png(bytes);
  EXPECT_NE(png.error.find("corrupt"), std::string::npos) << png.error;
  EXPECT_TRUE(png.rgba.empty());
}

TEST(AtlasImport, RefusesCorruptCompressedData) {
  std::vector<uint8_t> bytes = file_bytes(corpus("atlases/bevy-generic-rpg/fox-run.png"));
  ASSERT_GT(bytes.size(), 200u);
  for (size_t i = 100; i < bytes.size() - 20; i += 3) bytes[i] ^= 0x5a;  // inside IDAT
  EXPECT_NE(decode_png(bytes).error, "");
}

TEST(AtlasImport, RefusesAMissingFile) {
  const PngImage png = read_png("/nonexistent/animpack/hero.png");
  EXPECT_NE(png.error.find("/nonexistent/animpack/hero.png does not exist"), std::string::npos)
      << png.error;
}

TEST(AtlasImport, RefusesAnEmptyFile) { EXPECT_NE(decode_png({}).error, ""); }

}  // namespace
}  // namespace animpack
