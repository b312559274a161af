// Images: PNG bytes decode back to the same pixels (stb_image), unwritable paths are
// kIo, blits clip, and the label font draws its glyphs.
#include "animpack/tracer/image.h"

#include <gtest/gtest.h>
#include <stb/stb_image.h>

#include <filesystem>

namespace animpack::trace {
namespace {

TEST(Image, PngBytesDecodeToTheSamePixels) {
  Image img(7, 5, {1, 2, 3, 255});
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x < 7; ++x) {
      img.set(x, y,
              {static_cast<uint8_t>(x * 30), static_cast<uint8_t>(y * 50), 77,
               static_cast<uint8_t>(x == 3 ? 128 : 255)});
    }
  }
  const std::vector<uint8_t> png = encode_png(img);
  ASSERT_FALSE(png.empty());
  int w = 0, h = 0, n = 0;
  stbi_uc* back = stbi_load_from_memory(png.data(), static_cast<int>(png.size()), &w, &h, &n, 4);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(w, 7);
  EXPECT_EQ(h, 5);
  EXPECT_EQ(std::vector<uint8_t>(back, back + 7 * 5 * 4), img.rgba);
  stbi_image_free(back);
}

TEST(Image, WritesPngFilesAndReportsPathsItCannotWrite) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string path = (dir / "animpack_tracer_image_test.png").string();
  ASSERT_TRUE(write_png(Image(4, 4), path));
  EXPECT_GT(std::filesystem::file_size(path), 8u);
  std::filesystem::remove(path);
  auto r = write_png(Image(4, 4), (dir / "no_such_dir_animpack" / "x.png").string());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kIo);
  auto empty = write_png(Image(), path);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code(), ErrorCode::kInvalidArgument);
}

TEST(Image, BlitsAndFillsClippedToTheImage) {
  Image dst(4, 4, {0, 0, 0, 255});
  const Image src(3, 3, {9, 9, 9, 255});
  blit(dst, src, 2, -1);  // only its lower-left 2 x 2 lands
  int painted = 0;
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) painted += dst.at(x, y).r == 9;
  }
  EXPECT_EQ(painted, 4);
  EXPECT_EQ(dst.at(3, 1).r, 9);
  EXPECT_EQ(dst.at(3, 2).r, 0);
  fill_rect(dst, -5, -5, 6, 6, {5, 5, 5, 255});
  EXPECT_EQ(dst.at(0, 0).r, 5);
  EXPECT_EQ(dst.at(1, 1).r, 0);
}

TEST(Image, DrawsLabelsInTheFiveBySevenFont) {
  Image img(12, 7, {0, 0, 0, 255});
  draw_text(img, 0, 0, "1l", {255, 255, 255, 255});  // 'l' draws as 'L'
  // '1': 00100 / 01100 / 00100 x4 / 01110.
  const char* one[7] = {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."};
  const char* ell[7] = {"#....", "#....", "#....", "#....", "#....", "#....", "#####"};
  for (int y = 0; y < 7; ++y) {
    for (int x = 0; x < 5; ++x) {
      EXPECT_EQ(img.at(x, y).r == 255, one[y][x] == '#') << x << "," << y;
      EXPECT_EQ(img.at(6 + x, y).r == 255, ell[y][x] == '#') << x << "," << y;
    }
    EXPECT_EQ(img.at(5, y).r, 0);  // the gap
  }
  EXPECT_EQ(text_width("1l"), 11);
  EXPECT_EQ(text_width("ABC", 2), 34);
  EXPECT_EQ(text_width(""), 0);
  Image big(20, 20, {0, 0, 0, 255});
  draw_text(big, 0, 0, "~", {255, 255, 255, 255}, 2);  // unknown: a box, twice the size
  EXPECT_EQ(big.at(0, 0).r, 255);
  EXPECT_EQ(big.at(9, 13).r, 255);
  EXPECT_EQ(big.at(4, 4).r, 0);
}

}  // namespace
}  // namespace animpack::trace
