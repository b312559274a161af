#include "animpack/tracer/framing.h"

#include <algorithm>
#include <cmath>

namespace animpack::trace {

Camera frame_box(const Box& input, int width, int height, const FramingOptions& options) {
  Box box = input;
  const bool finite = std::isfinite(box.lo.x) && std::isfinite(box.lo.y) &&
                      std::isfinite(box.lo.z) && std::isfinite(box.hi.x) &&
                      std::isfinite(box.hi.y) && std::isfinite(box.hi.z);
  if (!box.valid() || !finite) box = {{-1, -1, -1}, {1, 1, 1}};  // the unit box
  animpack::FramingOptions shared;
  shared.view = options.view;
  shared.up = options.up;
  shared.fov_y = std::clamp(options.fov_y, 0.05f, 3.0f);
  shared.orthographic = options.orthographic;
  shared.margin = std::isfinite(options.margin) ? std::max(options.margin, 1.0f) : 1.0f;
  if (!(std::isfinite(options.view.x) && std::isfinite(options.view.y) &&
        std::isfinite(options.view.z)) ||
      length(options.view) == 0.0f) {
    shared.view = {0, 0, 1};
  }
  const float aspect =
      static_cast<float>(std::max(width, 1)) / static_cast<float>(std::max(height, 1));
  Result<Camera> camera = animpack::camera_for_box(box, aspect, shared);
  return camera ? *camera : Camera{};
}

Camera frame_box(const Aabb& box, int width, int height, const FramingOptions& options) {
  Box b;
  if (box.valid()) {
    b.lo = box.lo;
    b.hi = box.hi;
  }
  return frame_box(b, width, height, options);
}

}  // namespace animpack::trace
