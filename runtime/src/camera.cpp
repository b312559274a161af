#include "animpack/camera.h"

#include "animpack/scalar.h"

namespace animpack {

namespace {

// Camera basis: right, up, back (the view's +x, +y, +z in world space).
void basis(const Camera& c, Vec3* right, Vec3* up, Vec3* back) {
  *back = normalize(c.eye - c.target);
  *right = normalize(cross(c.up, *back));
  *up = cross(*back, *right);
}

float tan_half(float fov) {
  float s, co;
  det::sincos(fov * 0.5f, &s, &co);
  return s / co;
}

}  // namespace

Mat4 view_matrix(const Camera& c) {
  Vec3 r, u, b;
  basis(c, &r, &u, &b);
  Mat4 m;
  m.m[0] = r.x;
  m.m[4] = r.y;
  m.m[8] = r.z;
  m.m[12] = -dot(r, c.eye);
  m.m[1] = u.x;
  m.m[5] = u.y;
  m.m[9] = u.z;
  m.m[13] = -dot(u, c.eye);
  m.m[2] = b.x;
  m.m[6] = b.y;
  m.m[10] = b.z;
  m.m[14] = -dot(b, c.eye);
  m.m[3] = 0;
  m.m[7] = 0;
  m.m[11] = 0;
  m.m[15] = 1;
  return m;
}

Mat4 projection_matrix(const Camera& c, float aspect) {
  Mat4 p;
  const float n = c.near_plane, f = c.far_plane;
  for (float& v : p.m) v = 0.0f;
  if (c.orthographic) {
    const float h = c.ortho_height * 0.5f, w = h * aspect;
    p.m[0] = 1.0f / w;
    p.m[5] = 1.0f / h;
    p.m[10] = -2.0f / (f - n);
    p.m[14] = -(f + n) / (f - n);
    p.m[15] = 1.0f;
    return p;
  }
  const float t = tan_half(c.fov_y);
  p.m[0] = 1.0f / (t * aspect);
  p.m[5] = 1.0f / t;
  p.m[10] = -(f + n) / (f - n);
  p.m[11] = -1.0f;
  p.m[14] = -2.0f * f * n / (f - n);
  return p;
}

void camera_ray(const Camera& c, float aspect, float ndc_x, float ndc_y, Vec3* out_origin,
                Vec3* out_direction) {
  Vec3 r, u, b;
  basis(c, &r, &u, &b);
  if (c.orthographic) {
    const float h = c.ortho_height * 0.5f, w = h * aspect;
    *out_origin = c.eye + r * (ndc_x * w) + u * (ndc_y * h);
    *out_direction = b * -1.0f;
    return;
  }
  const float t = tan_half(c.fov_y);
  *out_origin = c.eye;
  *out_direction = normalize(r * (ndc_x * t * aspect) + u * (ndc_y * t) - b);
}

}  // namespace animpack
