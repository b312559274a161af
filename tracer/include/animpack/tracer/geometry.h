// Rays, boxes and the watertight ray/triangle test the tracer is built on.
//
//   animpack::trace::Ray ray{{0, 0, 5}, {0, 0, -1}};
//   animpack::trace::PreparedRay prepared(ray);
//   animpack::trace::TriangleHit hit;
//   if (animpack::trace::intersect_triangle(prepared, {-1, -1, 0}, {1, -1, 0}, {0, 1, 0}, &hit))
//     std::printf("t = %g\n", hit.t);   // 5
//
// The triangle test is "Watertight Ray/Triangle Intersection" (Sven Woop, Carsten
// Benthin, Ingo Wald, JCGT 2(1), 2013): a ray through an edge or a vertex shared by two
// triangles hits at least one of them, never neither, so a closed mesh has no cracks and
// a silhouette has no holes. Edges and vertices count as inside. Triangles are
// two-sided. Degenerate triangles (zero area, repeated or collinear vertices) and
// non-finite ones are never hit.
#pragma once

#include <cstdint>
#include <limits>

#include "animpack/math.h"

namespace animpack::trace {

inline constexpr float kInfinity = std::numeric_limits<float>::infinity();

// A ray: points origin + t * direction for t in [t_min, t_max]. direction need not be
// unit length (t is then in units of |direction|) but must not be zero.
struct Ray {
  Vec3 origin;
  Vec3 direction{0, 0, -1};
  float t_min = 0.0f;
  float t_max = kInfinity;
};

// An axis-aligned box; the default one is empty (lo > hi) and grows to hold points.
struct Aabb {
  Vec3 lo{kInfinity, kInfinity, kInfinity};
  Vec3 hi{-kInfinity, -kInfinity, -kInfinity};

  // Grows the box to hold p (a NaN coordinate is ignored).
  void grow(Vec3 p) {
    lo = {p.x < lo.x ? p.x : lo.x, p.y < lo.y ? p.y : lo.y, p.z < lo.z ? p.z : lo.z};
    hi = {p.x > hi.x ? p.x : hi.x, p.y > hi.y ? p.y : hi.y, p.z > hi.z ? p.z : hi.z};
  }
  // Grows the box to hold b.
  void merge(const Aabb& b) {
    lo = {b.lo.x < lo.x ? b.lo.x : lo.x, b.lo.y < lo.y ? b.lo.y : lo.y,
          b.lo.z < lo.z ? b.lo.z : lo.z};
    hi = {b.hi.x > hi.x ? b.hi.x : hi.x, b.hi.y > hi.y ? b.hi.y : hi.y,
          b.hi.z > hi.z ? b.hi.z : hi.z};
  }
  // False for the default box (nothing grown into it).
  bool valid() const { return lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z; }
  Vec3 centre() const { return (lo + hi) * 0.5f; }
  Vec3 extent() const { return hi - lo; }
  // Half the surface area (the SAH cost measure); 0 for an invalid box.
  float half_area() const {
    if (!valid()) return 0.0f;
    const Vec3 e = extent();
    return e.x * e.y + e.y * e.z + e.z * e.x;
  }
};

// A ray with what the box and triangle tests precompute from it.
struct PreparedRay {
  explicit PreparedRay(const Ray& ray);

  Ray ray;
  Vec3 inverse;  // 1 / direction per axis (infinite where the direction is 0)
  int kx = 0, ky = 1, kz = 2;
  float sx = 0, sy = 0, sz = 0;  // the shear of the watertight test
};

// A ray's hit on one triangle (a, b, c): the point is a * (1 - u - v) + b * u + c * v.
struct TriangleHit {
  float t = kInfinity;
  float u = 0, v = 0;
};

// Intersects the prepared ray with triangle (a, b, c); true and *out_hit set when it
// hits at t in [ray.t_min, t_max] (t_max: pass ray.t_max or a closer hit so far).
// Leaves *out_hit alone on a miss.
bool intersect_triangle(const PreparedRay& ray, Vec3 a, Vec3 b, Vec3 c, float t_max,
                        TriangleHit* out_hit);

// Whether the ray meets `box` at some t in [ray.t_min, t_max], conservatively: a box the
// ray only grazes counts as met, so a box test never loses a triangle hit inside it
// (the rounding bound of Thiago Ize, "Robust BVH Ray Traversal", JCGT 2(2), 2013).
// *out_t_near is the entry distance (clamped to t_min).
bool intersect_box(const PreparedRay& ray, const Aabb& box, float t_max, float* out_t_near);

}  // namespace animpack::trace
