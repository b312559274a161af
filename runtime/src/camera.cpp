#include "animpack/camera.h"

#include <cmath>

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

namespace {

bool finite3(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
float absf(float f) { return f < 0.0f ? -f : f; }
float maxf(float a, float b) { return a > b ? a : b; }
float minf(float a, float b) { return a < b ? a : b; }

}  // namespace

Result<Camera> camera_for_box(const Box& box, float aspect, const FramingOptions& options) {
  if (!box.valid() || !finite3(box.lo) || !finite3(box.hi))
    return Error::make(ErrorCode::kInvalidArgument, "camera_for_box: an empty or non-finite box");
  if (!(aspect > 0.0f) || !std::isfinite(aspect))
    return Error::make(ErrorCode::kInvalidArgument, "camera_for_box: the aspect is not positive");
  if (!(options.fov_y >= 0.05f && options.fov_y <= 3.0f) ||
      !(options.margin >= 1.0f && std::isfinite(options.margin)) || !finite3(options.view) ||
      !finite3(options.up)) {
    return Error::make(ErrorCode::kInvalidArgument, "camera_for_box: bad options");
  }
  const float view_length = length(options.view);
  if (!(view_length > 1e-12f) || !std::isfinite(view_length))
    return Error::make(ErrorCode::kInvalidArgument, "camera_for_box: a zero view direction");
  Camera cam;
  const Vec3 c = (box.lo + box.hi) * 0.5f;
  const Vec3 e = box.hi - box.lo;
  const float radius = maxf(0.5f * length(e), 5e-4f);
  const float margin = options.margin;
  const Vec3 back = options.view * (1.0f / view_length);  // from the target to the eye
  Vec3 right = normalize(cross(options.up, back));
  if (dot(right, right) == 0.0f) right = normalize(cross(Vec3{0, 0, -1}, back));
  if (dot(right, right) == 0.0f) right = {1, 0, 0};
  const Vec3 up = cross(back, right);
  cam.target = c;
  cam.up = up;
  // The corners relative to the centre, in the camera's frame.
  float max_x = 0, max_y = 0, max_z = 0, need = 0;
  const float tan_v = tan_half(options.fov_y), tan_h = tan_v * aspect;
  for (int k = 0; k < 8; ++k) {
    const Vec3 corner{k & 1 ? box.hi.x : box.lo.x, k & 2 ? box.hi.y : box.lo.y,
                      k & 4 ? box.hi.z : box.lo.z};
    const Vec3 d = corner - c;
    const float x = absf(dot(d, right)), y = absf(dot(d, up)), z = dot(d, back);
    max_x = maxf(max_x, x);
    max_y = maxf(max_y, y);
    max_z = maxf(max_z, absf(z));
    need = maxf(need, z + x / tan_h);
    need = maxf(need, z + y / tan_v);
  }
  if (options.orthographic) {
    cam.orthographic = true;
    cam.ortho_height = maxf(2.0f * maxf(max_y, max_x / aspect), 1e-3f) * margin;
    const float distance = 2.0f * radius + 1.0f;
    cam.eye = c + back * distance;
    cam.near_plane = maxf(distance - max_z - radius * 0.5f - 0.5f, 1e-3f);
    cam.far_plane = distance + max_z + radius + 1.0f;
    return cam;
  }
  cam.fov_y = options.fov_y;
  const float distance = maxf(need * margin, max_z + radius * 0.1f);
  cam.eye = c + back * distance;
  cam.near_plane = maxf(minf(0.02f * distance, 0.5f * (distance - max_z)), 1e-4f);
  cam.far_plane = distance + max_z + 40.0f * radius;
  return cam;
}

}  // namespace animpack
