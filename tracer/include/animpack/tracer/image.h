// RGBA8 images for the tracer's output: PNG encoding (stb_image_write), blits, filled
// rectangles and a tiny built-in 5x7 bitmap font for labels.
//
//   animpack::trace::Image sheet(640, 200, {24, 26, 32, 255});
//   animpack::trace::blit(sheet, frame.color, 0, 12);
//   animpack::trace::draw_text(sheet, 2, 2, "0 WALK", {230, 230, 230, 255});
//   if (auto r = animpack::trace::write_png(sheet, "out.png"); !r) report(r.error());
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/result.h"

namespace animpack::trace {

struct Rgba {
  uint8_t r = 0, g = 0, b = 0, a = 255;
};

// width x height RGBA8 pixels, rows top to bottom.
struct Image {
  Image() = default;
  // Filled with `fill`. Sizes below 0 count as 0.
  Image(int width, int height, Rgba fill = {0, 0, 0, 255});

  Rgba at(int x, int y) const;     // precondition: inside
  void set(int x, int y, Rgba c);  // ignores pixels outside

  int width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

// The PNG bytes of the image (empty if stb fails or the image is empty).
std::vector<uint8_t> encode_png(const Image& image);
// Writes the image as PNG: kInvalidArgument for an empty image, kIo (naming the path)
// when the file cannot be written.
[[nodiscard]] Result<void> write_png(const Image& image, const std::string& path);

// Copies `src` into `dst` with its top-left at (x, y), clipped to dst.
void blit(Image& dst, const Image& src, int x, int y);
// Fills the rectangle, clipped to the image.
void fill_rect(Image& image, int x, int y, int width, int height, Rgba color);

// The 5x7 font: digits, letters (lower case drawn as upper case), space and
// . , : ; - + _ / ( ) [ ] # = ! ? '; anything else draws as a box. Each character
// advances 6 * scale pixels; a line is 7 * scale pixels high.
inline constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kGlyphAdvance = 6;
// Draws `text` with its top-left at (x, y), clipped to the image; scale >= 1 enlarges.
void draw_text(Image& image, int x, int y, std::string_view text, Rgba color, int scale = 1);
// The width draw_text takes for `text` (without the trailing gap).
int text_width(std::string_view text, int scale = 1);

}  // namespace animpack::trace
