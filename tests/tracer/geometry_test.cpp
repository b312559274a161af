// The watertight ray/triangle test and the conservative ray/box test: hits, misses,
// edges, vertices, both sides, the ray's range, and degenerate triangles.
#include "animpack/tracer/geometry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace animpack::trace {
namespace {

bool hits(const Ray& ray, Vec3 a, Vec3 b, Vec3 c, TriangleHit* out = nullptr) {
  TriangleHit h;
  const bool hit = intersect_triangle(PreparedRay(ray), a, b, c, ray.t_max, &h);
  if (out) *out = h;
  return hit;
}

constexpr Vec3 kA{-1, -1, 0}, kB{1, -1, 0}, kC{-1, 1, 0};

TEST(RayTriangle, HitsTheInteriorAtItsDistanceAndBarycentrics) {
  TriangleHit h;
  ASSERT_TRUE(hits({{-0.5f, -0.5f, 5}, {0, 0, -1}}, kA, kB, kC, &h));
  EXPECT_FLOAT_EQ(h.t, 5.0f);
  EXPECT_FLOAT_EQ(h.u, 0.25f);  // weight of b
  EXPECT_FLOAT_EQ(h.v, 0.25f);  // weight of c
  // A direction that is not unit length: t is in its units.
  ASSERT_TRUE(hits({{-0.5f, -0.5f, 5}, {0, 0, -2}}, kA, kB, kC, &h));
  EXPECT_FLOAT_EQ(h.t, 2.5f);
}

TEST(RayTriangle, MissesOutsideTheTriangle) {
  EXPECT_FALSE(hits({{0.5f, 0.5f, 5}, {0, 0, -1}}, kA, kB, kC));   // past the hypotenuse
  EXPECT_FALSE(hits({{-1.5f, 0, 5}, {0, 0, -1}}, kA, kB, kC));     // left of it
  EXPECT_FALSE(hits({{-0.5f, -0.5f, 5}, {0, 1, 0}}, kA, kB, kC));  // parallel to its plane
}

TEST(RayTriangle, CountsEdgesAndVerticesAsInside) {
  EXPECT_TRUE(hits({{0, -1, 5}, {0, 0, -1}}, kA, kB, kC));  // on edge ab
  EXPECT_TRUE(hits({{0, 0, 5}, {0, 0, -1}}, kA, kB, kC));   // on the hypotenuse
  EXPECT_TRUE(hits({{-1, 1, 5}, {0, 0, -1}}, kA, kB, kC));  // on vertex c
  EXPECT_TRUE(hits({{1, -1, 5}, {0, 0, -1}}, kA, kB, kC));  // on vertex b
}

TEST(RayTriangle, IsTwoSided) {
  TriangleHit front, back;
  ASSERT_TRUE(hits({{-0.5f, -0.5f, 5}, {0, 0, -1}}, kA, kB, kC, &front));
  ASSERT_TRUE(hits({{-0.5f, -0.5f, -5}, {0, 0, 1}}, kA, kB, kC, &back));
  EXPECT_EQ(front.t, back.t);
  EXPECT_EQ(front.u, back.u);
}

TEST(RayTriangle, KeepsToTheRaysRange) {
  Ray ray{{-0.5f, -0.5f, 5}, {0, 0, -1}};
  ray.t_max = 4.9f;
  EXPECT_FALSE(hits(ray, kA, kB, kC));
  ray.t_max = 5.0f;
  EXPECT_TRUE(hits(ray, kA, kB, kC));  // the range is closed
  ray = {{-0.5f, -0.5f, 5}, {0, 0, -1}};
  ray.t_min = 5.5f;
  EXPECT_FALSE(hits(ray, kA, kB, kC));
  EXPECT_FALSE(hits({{-0.5f, -0.5f, 5}, {0, 0, 1}}, kA, kB, kC));  // behind the origin
}

TEST(RayTriangle, NeverHitsDegenerateTriangles) {
  const Ray down{{0, 0, 5}, {0, 0, -1}};
  EXPECT_FALSE(hits(down, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}));    // a point
  EXPECT_FALSE(hits(down, {-1, 0, 0}, {1, 0, 0}, {0, 0, 0}));   // collinear, on the ray
  EXPECT_FALSE(hits(down, {-1, 0, 0}, {1, 0, 0}, {1, 0, 0}));   // repeated vertex
  EXPECT_FALSE(hits(down, {0, -1, 4}, {0, 1, 4}, {0, 0, -4}));  // edge-on: holds the ray
  const float nan = std::nanf("");
  EXPECT_FALSE(hits(down, {nan, 0, 0}, {1, 0, 0}, {0, 1, 0}));
  EXPECT_FALSE(hits(down, kA, kB, {nan, nan, nan}));
}

// A ray through the shared diagonal of two triangles, or through the vertex shared by a
// fan, hits at least one of them: no cracks.
TEST(RayTriangle, IsWatertightAcrossSharedEdgesAndVertices) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> coord(-3.0f, 3.0f), dir(-1.0f, 1.0f);
  int cracks = 0;
  for (int i = 0; i < 20000; ++i) {
    // Two triangles (p, q, r) and (q, p, s) sharing the edge pq.
    const Vec3 p{coord(rng), coord(rng), coord(rng)}, q{coord(rng), coord(rng), coord(rng)};
    const Vec3 mid = lerp(p, q, std::uniform_real_distribution<float>(0, 1)(rng));
    const Vec3 side = normalize(cross(q - p, Vec3{dir(rng), dir(rng), dir(rng)}));
    const Vec3 r = mid + side, s = mid - side;
    // A ray from a random origin aimed at a point of the edge.
    const Vec3 origin{coord(rng) * 3, coord(rng) * 3, coord(rng) * 3};
    const Ray ray{origin, mid - origin};
    if (!hits(ray, p, q, r) && !hits(ray, q, p, s)) ++cracks;
  }
  EXPECT_EQ(cracks, 0);
  // A fan of 8 triangles around a vertex, rays straight at the vertex from all around.
  int fan_cracks = 0;
  for (int i = 0; i < 2000; ++i) {
    const Vec3 centre{coord(rng), coord(rng), coord(rng)};
    const Vec3 origin = centre + Vec3{dir(rng), dir(rng), 2.0f};
    const Ray aimed{origin, centre - origin};
    bool any = false;
    for (int k = 0; k < 8; ++k) {
      const float a0 = 0.785398f * static_cast<float>(k),
                  a1 = 0.785398f * static_cast<float>(k + 1);
      const Vec3 v0 = centre + Vec3{std::cos(a0), std::sin(a0), 0.1f};
      const Vec3 v1 = centre + Vec3{std::cos(a1), std::sin(a1), -0.1f};
      any = any || hits(aimed, centre, v0, v1);
    }
    if (!any) ++fan_cracks;
  }
  EXPECT_EQ(fan_cracks, 0);
}

TEST(RayBox, MeetsBoxesItCrossesAndMissesOthers) {
  Aabb box;
  box.grow({-1, -1, -1});
  box.grow({1, 1, 1});
  float t = 0;
  EXPECT_TRUE(intersect_box(PreparedRay({{0, 0, 5}, {0, 0, -1}}), box, kInfinity, &t));
  EXPECT_FLOAT_EQ(t, 4.0f);
  EXPECT_FALSE(intersect_box(PreparedRay({{2, 0, 5}, {0, 0, -1}}), box, kInfinity, &t));
  EXPECT_FALSE(intersect_box(PreparedRay({{0, 0, 5}, {0, 0, 1}}), box, kInfinity, &t));
  EXPECT_FALSE(intersect_box(PreparedRay({{0, 0, 5}, {0, 0, -1}}), box, 3.5f, &t));     // too far
  EXPECT_TRUE(intersect_box(PreparedRay({{0, 0, 0}, {0, 1, 0}}), box, kInfinity, &t));  // inside
  EXPECT_FLOAT_EQ(t, 0.0f);
}

TEST(RayBox, CountsGrazingAndParallelRaysOnTheFacesAsMeeting) {
  Aabb box;
  box.grow({-1, -1, -1});
  box.grow({1, 1, 1});
  float t = 0;
  EXPECT_TRUE(intersect_box(PreparedRay({{1, 0, 5}, {0, 0, -1}}), box, kInfinity, &t));  // face
  EXPECT_TRUE(intersect_box(PreparedRay({{1, 1, 5}, {0, 0, -1}}), box, kInfinity, &t));  // edge
  EXPECT_FALSE(intersect_box(PreparedRay({{1.001f, 0, 5}, {0, 0, -1}}), box, kInfinity, &t));
  // Flat boxes (a triangle in a plane of constant z) are still met.
  Aabb flat;
  flat.grow({-1, -1, 0});
  flat.grow({1, 1, 0});
  EXPECT_TRUE(intersect_box(PreparedRay({{0.3f, 0.2f, 5}, {0.01f, 0, -1}}), flat, kInfinity, &t));
}

}  // namespace
}  // namespace animpack::trace
