// The BVH against the brute-force reference: the same closest hit (triangle, distance
// and barycentrics, bit for bit) on random soups, meshes with shared edges and ties,
// piles of identical triangles, with filters; any-hit; non-finite triangles.
#include "animpack/tracer/bvh.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace animpack::trace {
namespace {

std::vector<Triangle> soup(int count, uint32_t seed, float spread, float size) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-spread, spread), off(-size, size);
  std::vector<Triangle> tris;
  for (int i = 0; i < count; ++i) {
    const Vec3 c{pos(rng), pos(rng), pos(rng)};
    tris.push_back({c + Vec3{off(rng), off(rng), off(rng)}, c + Vec3{off(rng), off(rng), off(rng)},
                    c + Vec3{off(rng), off(rng), off(rng)}});
  }
  return tris;
}

// An n x n grid of unit quads in the z = 0 plane, each split into two triangles.
std::vector<Triangle> grid(int n) {
  std::vector<Triangle> tris;
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      const float fx = static_cast<float>(x), fy = static_cast<float>(y);
      const Vec3 a{fx, fy, 0}, b{fx + 1, fy, 0}, c{fx + 1, fy + 1, 0}, d{fx, fy + 1, 0};
      tris.push_back({a, b, c});
      tris.push_back({a, c, d});
    }
  }
  return tris;
}

std::vector<Ray> rays(int count, uint32_t seed, float spread) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-spread, spread), dir(-1, 1);
  std::vector<Ray> out;
  for (int i = 0; i < count; ++i) {
    const Vec3 origin{pos(rng) * 2, pos(rng) * 2, pos(rng) * 2};
    const Vec3 at{pos(rng) * 0.5f, pos(rng) * 0.5f, pos(rng) * 0.5f};
    out.push_back({origin, at - origin});
  }
  return out;
}

void expect_same(const Bvh& bvh, std::span<const Triangle> tris, const Ray& ray,
                 const HitFilter* filter = nullptr) {
  Hit a, b;
  const bool ha = bvh.closest(ray, &a, filter);
  const bool hb = closest_hit_brute_force(tris, ray, &b, filter);
  ASSERT_EQ(ha, hb);
  if (!ha) return;
  EXPECT_EQ(a.triangle, b.triangle);
  EXPECT_TRUE(bits_equal(&a.t, &b.t, 1));
  EXPECT_TRUE(bits_equal(&a.u, &b.u, 1));
  EXPECT_TRUE(bits_equal(&a.v, &b.v, 1));
  EXPECT_EQ(bvh.any(ray, filter), true);
}

TEST(Bvh, AnEmptyTreeHitsNothing) {
  const Bvh bvh = Bvh::build({});
  Hit h;
  EXPECT_FALSE(bvh.closest({{0, 0, 1}, {0, 0, -1}}, &h));
  EXPECT_FALSE(bvh.any({{0, 0, 1}, {0, 0, -1}}));
  EXPECT_FALSE(bvh.bounds().valid());
  EXPECT_EQ(bvh.stats().nodes, 0u);
}

TEST(Bvh, FindsTheSameClosestHitAsBruteForceOnARandomSoup) {
  const std::vector<Triangle> tris = soup(1000, 1, 5.0f, 0.8f);
  const Bvh bvh = Bvh::build(tris);
  const BvhStats s = bvh.stats();
  EXPECT_EQ(s.triangles, 1000u);
  EXPECT_LE(s.max_leaf_triangles, 4u);
  EXPECT_LE(s.depth, static_cast<uint32_t>(Bvh::kMaxDepth));
  int hit_count = 0;
  for (const Ray& ray : rays(1000, 2, 5.0f)) {
    expect_same(bvh, tris, ray);
    Hit h;
    hit_count += bvh.closest(ray, &h);
  }
  EXPECT_GT(hit_count, 300);  // the test means something
}

TEST(Bvh, BreaksTiesOnSharedEdgesAndVerticesByLowestIndexLikeBruteForce) {
  const std::vector<Triangle> tris = grid(8);
  const Bvh bvh = Bvh::build(tris);
  int ties = 0;
  for (int y = 0; y <= 8; ++y) {
    for (int x = 0; x <= 8; ++x) {
      // Straight down through every grid vertex, and through every diagonal's middle.
      for (Vec3 at : {Vec3{static_cast<float>(x), static_cast<float>(y), 0},
                      Vec3{x + 0.5f, y + 0.5f, 0}, Vec3{x + 0.5f, static_cast<float>(y), 0}}) {
        const Ray ray{{at.x, at.y, 3}, {0, 0, -1}};
        expect_same(bvh, tris, ray);
        ++ties;
      }
    }
  }
  EXPECT_EQ(ties, 243);
  Hit h;
  ASSERT_TRUE(bvh.closest({{1, 1, 3}, {0, 0, -1}}, &h));
  EXPECT_EQ(h.triangle, 0u);  // vertex (1, 1) is a corner of triangles 0, 1, 3, 16, 18, 19
}

TEST(Bvh, BuildsOverFiniteTrianglesWhoseCentroidsOverflow) {
  // Corners near FLT_MAX are finite, but their sums (centroids, extents) are not: binning
  // them once converted NaN to int (found by fuzz_game; UBSan fails the old code).
  std::vector<Triangle> tris;
  for (int i = 0; i < 64; ++i) {
    const float s = (i % 2 ? 3.0e38f : -3.0e38f);
    tris.push_back({{s, s, 0}, {s, -s, 0}, {-s, s, static_cast<float>(i)}});
    tris.push_back(
        {{static_cast<float>(i), 0, 0}, {i + 1.0f, 0, 0}, {static_cast<float>(i), 1, 0}});
  }
  const Bvh bvh = Bvh::build(tris);
  EXPECT_EQ(bvh.stats().triangles, tris.size());
}

TEST(Bvh, AgreesWithBruteForceOnAPileOfIdenticalTriangles) {
  std::vector<Triangle> tris(500, Triangle{{-1, -1, 0}, {1, -1, 0}, {0, 1, 0}});
  const Bvh bvh = Bvh::build(tris);
  EXPECT_LE(bvh.stats().depth, static_cast<uint32_t>(Bvh::kMaxDepth));
  Hit h;
  ASSERT_TRUE(bvh.closest({{0, 0, 1}, {0, 0, -1}}, &h));
  EXPECT_EQ(h.triangle, 0u);
  expect_same(bvh, tris, {{0.1f, -0.2f, 1}, {0, 0.1f, -1}});
}

class EvenOnly final : public HitFilter {
 public:
  bool accept(uint32_t triangle, const TriangleHit&) const override { return triangle % 2 == 0; }
};

TEST(Bvh, SkipsHitsItsFilterRefusesAndFindsTheNextOne) {
  // A stack of squares at z = 0, 1, 2, 3, 4 seen from above: 2 triangles each.
  std::vector<Triangle> tris;
  for (int z = 0; z < 5; ++z) {
    const float fz = static_cast<float>(z);
    tris.push_back({{-1, -1, fz}, {1, -1, fz}, {1, 1, fz}});
    tris.push_back({{-1, -1, fz}, {1, 1, fz}, {-1, 1, fz}});
  }
  const Bvh bvh = Bvh::build(tris);
  const EvenOnly filter;
  Hit h;
  // (-0.5, 0.5) lies in the second triangle of each square: all odd, all refused.
  EXPECT_TRUE(bvh.closest({{-0.5f, 0.5f, 10}, {0, 0, -1}}, &h));
  EXPECT_EQ(h.triangle, 9u);
  EXPECT_FALSE(bvh.closest({{-0.5f, 0.5f, 10}, {0, 0, -1}}, &h, &filter));
  EXPECT_FALSE(bvh.any({{-0.5f, 0.5f, 10}, {0, 0, -1}}, &filter));
  // (0.5, -0.5) lies in the first (even) ones.
  ASSERT_TRUE(bvh.closest({{0.5f, -0.5f, 10}, {0, 0, -1}}, &h, &filter));
  EXPECT_EQ(h.triangle, 8u);
  for (const Ray& ray : rays(500, 3, 2.0f)) expect_same(bvh, tris, ray, &filter);
}

TEST(Bvh, AnyHitKeepsToTheRaysRange) {
  const std::vector<Triangle> tris = grid(4);
  const Bvh bvh = Bvh::build(tris);
  Ray ray{{1.3f, 2.2f, 5}, {0, 0, -1}};
  EXPECT_TRUE(bvh.any(ray));
  ray.t_max = 4.99f;
  EXPECT_FALSE(bvh.any(ray));
  ray.t_max = 5.0f;
  EXPECT_TRUE(bvh.any(ray));
}

TEST(Bvh, DropsNonFiniteTrianglesAndStillFindsTheRest) {
  std::vector<Triangle> tris = soup(200, 4, 3.0f, 0.8f);
  const float inf = std::numeric_limits<float>::infinity();
  tris[3].a.x = std::nanf("");
  tris[10].c = {inf, 0, 0};
  const Bvh bvh = Bvh::build(tris);
  EXPECT_EQ(bvh.stats().triangles, 198u);
  EXPECT_TRUE(bvh.bounds().valid());
  EXPECT_FALSE(is_finite(tris[3]));
  for (const Ray& ray : rays(500, 5, 3.0f)) expect_same(bvh, tris, ray);
}

TEST(Bvh, BuildsTheSameTreeTwice) {
  const std::vector<Triangle> tris = soup(1000, 6, 4.0f, 0.5f);
  const BvhStats a = Bvh::build(tris).stats(), b = Bvh::build(tris).stats();
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.leaves, b.leaves);
  EXPECT_EQ(a.depth, b.depth);
  EXPECT_EQ(a.nodes, 2 * a.leaves - 1);  // a full binary tree
}

}  // namespace
}  // namespace animpack::trace
