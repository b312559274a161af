#include "frame_writer.h"

#include <stb/stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace animpack::samples {

Frame::Frame(int width, int height, Vec3 lo, Vec3 hi)
    : width_(width),
      height_(height),
      lo_(lo),
      hi_(hi),
      rgba_(static_cast<size_t>(width) * static_cast<size_t>(height) * 4),
      depth_(static_cast<size_t>(width) * static_cast<size_t>(height)) {
  clear();
}

void Frame::clear(Rgb background) {
  background_ = background;
  for (size_t i = 0; i < depth_.size(); ++i) {
    rgba_[i * 4 + 0] = background.r;
    rgba_[i * 4 + 1] = background.g;
    rgba_[i * 4 + 2] = background.b;
    rgba_[i * 4 + 3] = 255;
    depth_[i] = -std::numeric_limits<float>::infinity();
  }
}

void Frame::draw(std::span<const Vec3> positions, std::span<const Vec3> normals,
                 std::span<const uint32_t> indices, Rgb color) {
  const float sx = static_cast<float>(width_) / (hi_.x - lo_.x);
  const float sy = static_cast<float>(height_) / (hi_.y - lo_.y);
  auto to_screen = [&](Vec3 p) { return Vec3{(p.x - lo_.x) * sx, (hi_.y - p.y) * sy, p.z}; };
  for (size_t t = 0; t + 2 < indices.size(); t += 3) {
    const uint32_t i0 = indices[t], i1 = indices[t + 1], i2 = indices[t + 2];
    if (i0 >= positions.size() || i1 >= positions.size() || i2 >= positions.size()) continue;
    const Vec3 a = to_screen(positions[i0]), b = to_screen(positions[i1]),
               c = to_screen(positions[i2]);
    const float area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
    if (area == 0.0f) continue;
    Vec3 n = normals.empty() ? Vec3{0, 0, 1} : normalize(normals[i0] + normals[i1] + normals[i2]);
    const float light = 0.35f + 0.65f * std::fabs(dot(n, normalize(Vec3{0.3f, 0.4f, 1.0f})));
    const int x0 = std::max(0, static_cast<int>(std::floor(std::min({a.x, b.x, c.x}))));
    const int x1 = std::min(width_ - 1, static_cast<int>(std::ceil(std::max({a.x, b.x, c.x}))));
    const int y0 = std::max(0, static_cast<int>(std::floor(std::min({a.y, b.y, c.y}))));
    const int y1 = std::min(height_ - 1, static_cast<int>(std::ceil(std::max({a.y, b.y, c.y}))));
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        const float px = static_cast<float>(x) + 0.5f, py = static_cast<float>(y) + 0.5f;
        const float w0 = ((b.x - px) * (c.y - py) - (b.y - py) * (c.x - px)) / area;
        const float w1 = ((c.x - px) * (a.y - py) - (c.y - py) * (a.x - px)) / area;
        const float w2 = 1.0f - w0 - w1;
        if (w0 < 0 || w1 < 0 || w2 < 0) continue;
        const float z = w0 * a.z + w1 * b.z + w2 * c.z;
        const size_t i =
            static_cast<size_t>(y) * static_cast<size_t>(width_) + static_cast<size_t>(x);
        if (z <= depth_[i]) continue;
        depth_[i] = z;
        rgba_[i * 4 + 0] = static_cast<uint8_t>(static_cast<float>(color.r) * light);
        rgba_[i * 4 + 1] = static_cast<uint8_t>(static_cast<float>(color.g) * light);
        rgba_[i * 4 + 2] = static_cast<uint8_t>(static_cast<float>(color.b) * light);
      }
    }
  }
}

void Frame::blit(std::span<const uint8_t> rgba, uint32_t image_width, uint32_t x, uint32_t y,
                 uint32_t w, uint32_t h, Vec3 center, float height) {
  if (w == 0 || h == 0) return;
  const float sx = static_cast<float>(width_) / (hi_.x - lo_.x);
  const float sy = static_cast<float>(height_) / (hi_.y - lo_.y);
  const float world_w = height * static_cast<float>(w) / static_cast<float>(h);
  const int px0 = static_cast<int>(std::floor((center.x - world_w / 2 - lo_.x) * sx));
  const int py0 = static_cast<int>(std::floor((hi_.y - (center.y + height / 2)) * sy));
  const int pw = std::max(1, static_cast<int>(world_w * sx));
  const int ph = std::max(1, static_cast<int>(height * sy));
  for (int j = 0; j < ph; ++j) {
    const int py = py0 + j;
    if (py < 0 || py >= height_) continue;
    for (int i = 0; i < pw; ++i) {
      const int px = px0 + i;
      if (px < 0 || px >= width_) continue;
      const size_t u = x + static_cast<uint32_t>(i) * w / static_cast<uint32_t>(pw);
      const size_t v = y + static_cast<uint32_t>(j) * h / static_cast<uint32_t>(ph);
      const size_t src = (v * image_width + u) * 4;
      if (src + 3 >= rgba.size()) continue;
      const uint32_t a = rgba[src + 3];
      if (a == 0) continue;
      const size_t dst =
          (static_cast<size_t>(py) * static_cast<size_t>(width_) + static_cast<size_t>(px));
      if (center.z < depth_[dst]) continue;
      depth_[dst] = center.z;
      for (int c = 0; c < 3; ++c) {
        rgba_[dst * 4 + static_cast<size_t>(c)] =
            static_cast<uint8_t>((rgba[src + static_cast<size_t>(c)] * a +
                                  rgba_[dst * 4 + static_cast<size_t>(c)] * (255 - a)) /
                                 255);
      }
    }
  }
}

bool Frame::write_png(const std::string& path) const {
  if (!stbi_write_png(path.c_str(), width_, height_, 4, rgba_.data(), width_ * 4)) {
    std::fprintf(stderr, "error: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

int Frame::covered() const {
  int n = 0;
  for (float d : depth_) n += d != -std::numeric_limits<float>::infinity();
  return n;
}

}  // namespace animpack::samples
