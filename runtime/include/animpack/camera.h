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

#include "animpack/math.h"

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

}  // namespace animpack
