// The camera model shared by gl/ and tracer/, so that a GL frame and a traced frame of
// the same pose can be compared pixel for pixel.
//
//   animpack::Camera cam;
//   cam.eye = {0, 1.5f, 6};
//   cam.target = {0, 1, 0};
//   animpack::Mat4 view = animpack::view_matrix(cam);
//   animpack::Mat4 proj = animpack::projection_matrix(cam, 16.0f / 9.0f);
//
// Right-handed, looking down -z in view space, OpenGL clip space (z in [-w, w]).
// Pixel (x, y) of a W x H image (y down from the top row) is sampled at its centre: the
// ray through NDC ((x + 0.5) / W * 2 - 1, 1 - (y + 0.5) / H * 2).
#pragma once

#include "animpack/bounds.h"
#include "animpack/math.h"
#include "animpack/result.h"

namespace animpack {

struct Camera {
  Vec3 eye{0, 0, 5};
  Vec3 target{0, 0, 0};
  Vec3 up{0, 1, 0};
  float fov_y = 0.8f;  // vertical field of view, radians (perspective)
  bool orthographic = false;
  float ortho_height = 4.0f;  // world units the image spans vertically (orthographic)
  float near_plane = 0.05f;
  float far_plane = 200.0f;
};

// World -> view (look-at).
Mat4 view_matrix(const Camera& camera);
// View -> clip for an image of aspect width / height.
Mat4 projection_matrix(const Camera& camera, float aspect);
// The world-space ray through NDC point (ndc_x, ndc_y) in [-1, 1]: origin and unit
// direction (for orthographic cameras, parallel rays from the near plane).
void camera_ray(const Camera& camera, float aspect, float ndc_x, float ndc_y, Vec3* out_origin,
                Vec3* out_direction);

// How camera_for_box() looks at a box.
struct FramingOptions {
  Vec3 view{0.3f, 0.25f, 1.0f};  // from the box's centre towards the eye (normalised)
  Vec3 up{0, 1, 0};              // the image's up; another one when parallel to view
  float fov_y = 0.7f;            // perspective, radians, 0.05 to 3
  bool orthographic = false;
  float margin = 1.08f;  // >= 1: room around the box
};

// The camera, shared by gl/ (the render sample, the viewer) and tracer/ (preview, the
// demo), that shows all of `box` in an image of aspect width / height. Perspective: the
// eye looks at the box's centre along -view, at the nearest distance from which all 8
// corners project inside the image, then `margin` times farther. Orthographic: straight
// along -view, the image as tall as the box's projection (or as wide, for the aspect)
// times `margin`. Near and far planes hold the whole box. A box of zero size is taken
// 1e-3 across. kInvalidArgument for an empty or non-finite box, an aspect not positive
// and finite, a zero or non-finite view, fov_y outside [0.05, 3] or a margin below 1 or
// not finite. Deterministic (the runtime's own math).
Result<Camera> camera_for_box(const Box& box, float aspect, const FramingOptions& options = {});

}  // namespace animpack
