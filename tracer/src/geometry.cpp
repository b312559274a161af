// Watertight ray/triangle intersection: Sven Woop, Carsten Benthin, Ingo Wald,
// "Watertight Ray/Triangle Intersection", JCGT 2(1), 2013 (section 3, with the double
// precision fallback for edge functions that come out exactly zero).
// Conservative ray/box slabs: Thiago Ize, "Robust BVH Ray Traversal", JCGT 2(2), 2013.
#include "animpack/tracer/geometry.h"

#include <cmath>
#include <utility>

namespace animpack::trace {

namespace {

float axis(Vec3 v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : v.z); }

// 1 + 2 * gamma(3) of Ize (2013): the factor that makes the far slab distance an upper
// bound despite rounding in (hi - o) * inverse.
constexpr float kFarScale = 1.0f + 2.0f * (3.0f * 0x1p-24f) / (1.0f - 3.0f * 0x1p-24f);

}  // namespace

PreparedRay::PreparedRay(const Ray& r) : ray(r) {
  const Vec3 d = r.direction;
  inverse = {1.0f / d.x, 1.0f / d.y, 1.0f / d.z};
  const float ax = std::fabs(d.x), ay = std::fabs(d.y), az = std::fabs(d.z);
  kz = ax >= ay ? (ax >= az ? 0 : 2) : (ay >= az ? 1 : 2);
  kx = (kz + 1) % 3;
  ky = (kx + 1) % 3;
  if (axis(d, kz) < 0.0f) std::swap(kx, ky);  // keep the winding of the sheared triangle
  sx = axis(d, kx) / axis(d, kz);
  sy = axis(d, ky) / axis(d, kz);
  sz = 1.0f / axis(d, kz);
}

bool intersect_triangle(const PreparedRay& r, Vec3 a, Vec3 b, Vec3 c, float t_max,
                        TriangleHit* out_hit) {
  const Vec3 A = a - r.ray.origin, B = b - r.ray.origin, C = c - r.ray.origin;
  const float akz = axis(A, r.kz), bkz = axis(B, r.kz), ckz = axis(C, r.kz);
  const float ax = axis(A, r.kx) - r.sx * akz, ay = axis(A, r.ky) - r.sy * akz;
  const float bx = axis(B, r.kx) - r.sx * bkz, by = axis(B, r.ky) - r.sy * bkz;
  const float cx = axis(C, r.kx) - r.sx * ckz, cy = axis(C, r.ky) - r.sy * ckz;
  float u = cx * by - cy * bx;
  float v = ax * cy - ay * cx;
  float w = bx * ay - by * ax;
  if (u == 0.0f || v == 0.0f || w == 0.0f) {
    // On (or within rounding of) an edge: decide the signs exactly in double, so that the
    // two triangles sharing the edge agree.
    const double dax = ax, day = ay, dbx = bx, dby = by, dcx = cx, dcy = cy;
    const double du = dcx * dby - dcy * dbx;
    const double dv = dax * dcy - day * dcx;
    const double dw = dbx * day - dby * dax;
    if ((du < 0.0 || dv < 0.0 || dw < 0.0) && (du > 0.0 || dv > 0.0 || dw > 0.0)) return false;
    u = static_cast<float>(du);
    v = static_cast<float>(dv);
    w = static_cast<float>(dw);
  } else if ((u < 0.0f || v < 0.0f || w < 0.0f) && (u > 0.0f || v > 0.0f || w > 0.0f)) {
    return false;
  }
  const float det = u + v + w;
  if (det == 0.0f) return false;
  const float t_scaled = u * (r.sz * akz) + v * (r.sz * bkz) + w * (r.sz * ckz);
  const float inv_det = 1.0f / det;
  const float t = t_scaled * inv_det;
  if (!(t >= r.ray.t_min && t <= t_max)) return false;  // also refuses NaN
  out_hit->t = t;
  out_hit->u = v * inv_det;
  out_hit->v = w * inv_det;
  return true;
}

bool intersect_box(const PreparedRay& r, const Aabb& box, float t_max, float* out_t_near) {
  float t_near = r.ray.t_min, t_far = t_max;
  const float o[3] = {r.ray.origin.x, r.ray.origin.y, r.ray.origin.z};
  const float d[3] = {r.ray.direction.x, r.ray.direction.y, r.ray.direction.z};
  const float inv[3] = {r.inverse.x, r.inverse.y, r.inverse.z};
  const float lo[3] = {box.lo.x, box.lo.y, box.lo.z};
  const float hi[3] = {box.hi.x, box.hi.y, box.hi.z};
  for (int k = 0; k < 3; ++k) {
    if (d[k] == 0.0f) {
      if (o[k] < lo[k] || o[k] > hi[k]) return false;
      continue;
    }
    float t0 = (lo[k] - o[k]) * inv[k];
    float t1 = (hi[k] - o[k]) * inv[k];
    if (t0 > t1) std::swap(t0, t1);
    t1 *= kFarScale;
    t_near = t0 > t_near ? t0 : t_near;
    t_far = t1 < t_far ? t1 : t_far;
    if (t_near > t_far) return false;
  }
  *out_t_near = t_near;
  return true;
}

}  // namespace animpack::trace
