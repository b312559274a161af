// Draws skinned triangles into an RGBA image with a fixed orthographic camera and writes
// it as PNG. A stand-in for the ray tracer (tracer/) for the samples until it lands.
//
//   animpack::samples::Frame frame(320, 320, {-3, -0.5f}, {3, 5.5f});
//   frame.clear();
//   frame.draw(positions, normals, indices, {230, 140, 60});
//   frame.write_png("out/frame_0000.png");
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "animpack/math.h"

namespace animpack::samples {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

class Frame {
 public:
  // An image of width x height pixels showing the xy rectangle [lo, hi] (looking down -z).
  Frame(int width, int height, Vec3 lo, Vec3 hi);
  void clear(Rgb background = {24, 26, 32});
  // Draws triangles with a z-buffer, shaded by the normal's facing towards the viewer.
  void draw(std::span<const Vec3> positions, std::span<const Vec3> normals,
            std::span<const uint32_t> indices, Rgb color);
  // Draws an image region (RGBA8 rows of `image_width` pixels) as a camera-facing card of
  // world height `height` centred at `center`, alpha-blended, nearest-neighbour.
  void blit(std::span<const uint8_t> rgba, uint32_t image_width, uint32_t x, uint32_t y, uint32_t w,
            uint32_t h, Vec3 center, float height);
  // Writes the image; false (and a message on stderr) when it cannot.
  bool write_png(const std::string& path) const;
  // How many pixels differ from the background (for a summary line).
  int covered() const;

 private:
  int width_, height_;
  Vec3 lo_, hi_;
  Rgb background_;
  std::vector<uint8_t> rgba_;
  std::vector<float> depth_;
};

}  // namespace animpack::samples
