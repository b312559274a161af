#include "animpack/tracer/framing.h"

#include <algorithm>
#include <cmath>

namespace animpack::trace {

namespace {

Vec3 unit(Vec3 v, Vec3 fallback) {
  const float len = std::sqrt(dot(v, v));
  return len > 1e-12f && std::isfinite(len) ? v * (1.0f / len) : fallback;
}

}  // namespace

Camera frame_box(const Aabb& input, int width, int height, const FramingOptions& options) {
  Aabb box = input;
  if (!box.valid() || !std::isfinite(box.half_area())) box = {{-1, -1, -1}, {1, 1, 1}};
  Camera cam;
  const Vec3 c = box.centre();
  const Vec3 e = box.extent();
  const float aspect =
      static_cast<float>(std::max(width, 1)) / static_cast<float>(std::max(height, 1));
  const float radius = std::max(0.5f * std::sqrt(dot(e, e)), 5e-4f);
  const float margin = std::max(options.margin, 1.0f);
  const Vec3 back = unit(options.view, {0, 0, 1});  // from the target to the eye
  Vec3 right = unit(cross(options.up, back), {});
  if (dot(right, right) == 0.0f) right = unit(cross(Vec3{0, 0, -1}, back), {1, 0, 0});
  const Vec3 up = cross(back, right);
  cam.target = c;
  cam.up = up;
  // The corners relative to the centre, in the camera's frame.
  float max_x = 0, max_y = 0, max_z = 0, need = 0;
  const float fov = std::clamp(options.fov_y, 0.05f, 3.0f);
  const float tan_v = std::tan(fov * 0.5f), tan_h = tan_v * aspect;
  for (int k = 0; k < 8; ++k) {
    const Vec3 corner{k & 1 ? box.hi.x : box.lo.x, k & 2 ? box.hi.y : box.lo.y,
                      k & 4 ? box.hi.z : box.lo.z};
    const Vec3 d = corner - c;
    const float x = std::fabs(dot(d, right)), y = std::fabs(dot(d, up)), z = dot(d, back);
    max_x = std::max(max_x, x);
    max_y = std::max(max_y, y);
    max_z = std::max(max_z, std::fabs(z));
    need = std::max(need, z + x / tan_h);
    need = std::max(need, z + y / tan_v);
  }
  if (options.orthographic) {
    cam.orthographic = true;
    cam.ortho_height = std::max(2.0f * std::max(max_y, max_x / aspect), 1e-3f) * margin;
    const float distance = 2.0f * radius + 1.0f;
    cam.eye = c + back * distance;
    cam.near_plane = std::max(distance - max_z - radius * 0.5f - 0.5f, 1e-3f);
    cam.far_plane = distance + max_z + radius + 1.0f;
    return cam;
  }
  cam.fov_y = fov;
  const float distance = std::max(need * margin, max_z + radius * 0.1f);
  cam.eye = c + back * distance;
  cam.near_plane = std::max(std::min(0.02f * distance, 0.5f * (distance - max_z)), 1e-4f);
  cam.far_plane = distance + max_z + 40.0f * radius;
  return cam;
}

Camera frame_box(const Box& box, int width, int height, const FramingOptions& options) {
  Aabb a;
  if (box.valid()) {
    a.lo = box.lo;
    a.hi = box.hi;
  }
  return frame_box(a, width, height, options);
}

}  // namespace animpack::trace
