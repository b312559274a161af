// A bounding volume hierarchy over triangles: binned SAH build, closest-hit and any-hit
// traversal, and the brute-force reference it is tested against.
//
//   std::vector<animpack::trace::Triangle> tris = ...;
//   animpack::trace::Bvh bvh = animpack::trace::Bvh::build(tris);
//   animpack::trace::Hit hit;
//   if (bvh.closest(animpack::trace::Ray{{0, 0, 5}, {0, 0, -1}}, &hit)) use(hit.triangle);
//
// Build: the binned surface area heuristic of Ingo Wald, "On fast Construction of
// SAH-based Bounding Volume Hierarchies" (IEEE Symposium on Interactive Ray Tracing,
// 2007): centroids binned into kBins bins along the axis where they spread widest, the
// cheapest split plane taken, a leaf made when splitting costs more than testing every
// triangle and at most max_leaf_size remain. Single-threaded and
// deterministic: the same triangles give the same tree.
//
// Ties: when several triangles are hit at exactly the same distance (a ray through a
// shared edge), closest() reports the one with the lowest index, as the brute-force
// reference does, so the BVH and brute force agree bit for bit on every ray.
//
// Memory: build() copies the triangles into node order (36 bytes each plus a 4-byte
// index) and makes at most 2n - 1 nodes of 32 bytes; traversal allocates nothing.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "animpack/math.h"
#include "animpack/tracer/geometry.h"

namespace animpack::trace {

// One triangle's corners.
struct Triangle {
  Vec3 a, b, c;
};

// Whether every corner of the triangle is finite (others are never hit: build() drops
// them and the brute-force reference skips them).
bool is_finite(const Triangle& triangle);

// A hit: the triangle's index in the array given to build() and the distance and
// barycentrics of TriangleHit.
struct Hit {
  float t = kInfinity;
  float u = 0, v = 0;
  uint32_t triangle = UINT32_MAX;
};

// Decides whether a hit counts (alpha-tested sprite cards: a transparent texel does
// not). Called only for hits inside the ray's range, closer than (or, for ties, as
// close as) the best so far; must be safe to call from several threads at once.
class HitFilter {
 public:
  virtual ~HitFilter() = default;
  virtual bool accept(uint32_t triangle, const TriangleHit& hit) const = 0;
};

struct BvhOptions {
  int max_leaf_size = 4;     // a node with at most this many triangles may become a leaf
  float traversal_cost = 1;  // SAH cost of visiting a node, relative to one triangle test
};

// Statistics of a built tree.
struct BvhStats {
  uint32_t nodes = 0, leaves = 0, triangles = 0, depth = 0, max_leaf_triangles = 0;
};

class Bvh {
 public:
  static constexpr int kBins = 16;
  // The deepest tree traversal supports; build() keeps under it by splitting by count.
  static constexpr int kMaxDepth = 64;

  Bvh() = default;

  // Builds the tree over `triangles` (indices in hits are indices into this span).
  static Bvh build(std::span<const Triangle> triangles, const BvhOptions& options = {});

  // The closest hit along the ray (lowest triangle index among equal distances) that the
  // filter accepts; false and *out_hit untouched when there is none.
  bool closest(const Ray& ray, Hit* out_hit, const HitFilter* filter = nullptr) const;
  // Whether anything (accepted by the filter) lies on the ray in [t_min, t_max].
  bool any(const Ray& ray, const HitFilter* filter = nullptr) const;

  // The bounds of every (finite) triangle; invalid when there are none.
  Aabb bounds() const { return nodes_.empty() ? Aabb{} : nodes_[0].box; }
  BvhStats stats() const;

 private:
  struct Node {
    Aabb box;
    uint32_t first = 0;  // leaf: first triangle in tris_; inner: index of the second child
    uint32_t count = 0;  // leaf: triangle count; inner: 0 (the first child is this + 1)
  };
  static_assert(sizeof(Node) == 32);
  struct Builder;

  std::vector<Node> nodes_;
  std::vector<Triangle> tris_;   // node order
  std::vector<uint32_t> index_;  // node order -> index given to build()
};

// The reference: tests every triangle. Same answer as Bvh::closest, bit for bit.
bool closest_hit_brute_force(std::span<const Triangle> triangles, const Ray& ray, Hit* out_hit,
                             const HitFilter* filter = nullptr);

}  // namespace animpack::trace
