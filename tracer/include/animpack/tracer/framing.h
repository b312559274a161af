// Cameras framed from boxes: the box of everything a filmstrip, contact sheet or demo
// shows (the union of ScenePlayer::world_bounds over its frames, or of
// TraceScene::bounds()), seen whole in every frame.
//
//   animpack::trace::Aabb box;
//   for (const animpack::trace::TraceScene& frame : frames) box.merge(frame.bounds());
//   animpack::Camera camera = animpack::trace::frame_box(box, 320, 240);
//
// Both are animpack::camera_for_box (camera.h, shared with gl/): perspective, the eye looks at
// the box's centre along -view at the nearest distance from which all 8 corners project
// inside the image, then `margin` times farther; orthographic, the image as tall as the
// box's projection (or as wide, for the aspect) times `margin`. Near and far planes hold
// the whole box. Here bad options are mended instead of refused (fov_y clamped to
// [0.05, 3], margin at least 1, a zero view taken as +z).
#pragma once

#include "animpack/bounds.h"
#include "animpack/camera.h"
#include "animpack/math.h"
#include "animpack/tracer/geometry.h"

namespace animpack::trace {

struct FramingOptions {
  Vec3 view{0.3f, 0.25f, 1.0f};  // from the target towards the eye (normalised here)
  Vec3 up{0, 1, 0};              // the image's up; another one when parallel to view
  float fov_y = 0.7f;            // perspective, radians, 0.05 to 3
  bool orthographic = false;
  float margin = 1.08f;  // >= 1: room around the box
};

// A camera that shows all of `box` in a width x height image. An invalid (empty) box
// frames the unit box around the origin; a box of zero size, a box 1e-3 across.
Camera frame_box(const Aabb& box, int width, int height, const FramingOptions& options = {});
// The same for a runtime box (bounds.h, ScenePlayer::world_bounds).
Camera frame_box(const Box& box, int width, int height, const FramingOptions& options = {});

}  // namespace animpack::trace
