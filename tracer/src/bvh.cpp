// Binned SAH build: Ingo Wald, "On fast Construction of SAH-based Bounding Volume
// Hierarchies", IEEE Symposium on Interactive Ray Tracing 2007 (section 3: centroids
// binned along their widest axis, one sweep over the bins). Traversal: depth first, nearer child
// first, with a stack of kMaxDepth entries.
#include "animpack/tracer/bvh.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace animpack::trace {

namespace {

float axis(Vec3 v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : v.z); }

bool finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// Box tests against the best hit so far are padded by this factor, so that a triangle
// whose computed distance rounds a little below its box's computed entry is still
// tested (the BVH must agree with brute force, ties included).
constexpr float kBoxPad = 1.0f + 0x1p-12f;

float padded(float t) { return t * kBoxPad; }

// Whether hit (t, index) beats the best (best_t, best_index): closer, or as close with a
// lower index.
bool better(float t, uint32_t index, float best_t, uint32_t best_index) {
  return t < best_t || (t == best_t && index < best_index);
}

}  // namespace

bool is_finite(const Triangle& t) { return finite(t.a) && finite(t.b) && finite(t.c); }

struct Bvh::Builder {
  struct Ref {
    Aabb box;
    Vec3 centroid;
    uint32_t index = 0;
  };

  const BvhOptions& options;
  std::span<const Triangle> input;
  std::vector<Ref> refs;
  Bvh* out = nullptr;

  void build_node(uint32_t node, uint32_t begin, uint32_t end, int depth) {
    Aabb box, centroids;
    for (uint32_t i = begin; i < end; ++i) {
      box.merge(refs[i].box);
      centroids.grow(refs[i].centroid);
    }
    out->nodes_[node].box = box;
    const uint32_t count = end - begin;
    const uint32_t max_leaf = static_cast<uint32_t>(std::max(1, options.max_leaf_size));

    // The cheapest binned split.
    int best_axis = -1, best_bin = 0;
    float best_cost = kInfinity;
    const Vec3 ce = centroids.extent();
    // Wald (2007) bins along the axis where the centroids spread widest only.
    const int widest = ce.x >= ce.y ? (ce.x >= ce.z ? 0 : 2) : (ce.y >= ce.z ? 1 : 2);
    for (int k = widest; k == widest && count > 1; ++k) {
      const float extent = axis(ce, k);
      if (!(extent > 0.0f)) continue;
      const float scale = static_cast<float>(kBins) / extent;
      const float lo = axis(centroids.lo, k);
      Aabb bin_box[kBins];
      uint32_t bin_count[kBins] = {};
      for (uint32_t i = begin; i < end; ++i) {
        const int b = bin_of(refs[i].centroid, k, lo, scale);
        bin_box[b].merge(refs[i].box);
        ++bin_count[b];
      }
      // Sweep from the right, then from the left: cost of splitting after bin b.
      float right_area[kBins];
      uint32_t right_count[kBins];
      Aabb acc;
      uint32_t n = 0;
      for (int b = kBins - 1; b > 0; --b) {
        acc.merge(bin_box[b]);
        n += bin_count[b];
        right_area[b] = acc.half_area();
        right_count[b] = n;
      }
      acc = Aabb{};
      n = 0;
      for (int b = 0; b < kBins - 1; ++b) {
        acc.merge(bin_box[b]);
        n += bin_count[b];
        const uint32_t rn = right_count[b + 1];
        if (n == 0 || rn == 0) continue;
        const float cost =
            acc.half_area() * static_cast<float>(n) + right_area[b + 1] * static_cast<float>(rn);
        if (cost < best_cost) {
          best_cost = cost;
          best_axis = k;
          best_bin = b;
        }
      }
    }
    const float parent_area = box.half_area();
    const float split_cost =
        best_axis < 0
            ? kInfinity
            : options.traversal_cost + (parent_area > 0.0f ? best_cost / parent_area : best_cost);
    const bool can_leaf = count <= max_leaf;
    if (count <= 1 || (can_leaf && split_cost >= static_cast<float>(count))) {
      make_leaf(node, begin, count);
      return;
    }

    uint32_t mid;
    if (best_axis < 0 || depth >= kMaxDepth / 2) {
      // No split plane separates the centroids (all equal), or the tree grows deep
      // (pathological input): halve by count, which bounds the depth by log2(n).
      if (can_leaf && best_axis < 0) {
        make_leaf(node, begin, count);
        return;
      }
      mid = begin + count / 2;
    } else {
      const float lo = axis(centroids.lo, best_axis);
      const float scale = static_cast<float>(kBins) / axis(ce, best_axis);
      const auto split = std::partition(
          refs.begin() + begin, refs.begin() + end,
          [&](const Ref& r) { return bin_of(r.centroid, best_axis, lo, scale) <= best_bin; });
      mid = static_cast<uint32_t>(split - refs.begin());
      if (mid == begin || mid == end) mid = begin + count / 2;  // rounding; never empty
    }
    // The first child is node + 1: it is appended right here, before anything else.
    const uint32_t left = static_cast<uint32_t>(out->nodes_.size());
    out->nodes_.emplace_back();
    build_node(left, begin, mid, depth + 1);
    const uint32_t right = static_cast<uint32_t>(out->nodes_.size());
    out->nodes_.emplace_back();
    out->nodes_[node].first = right;
    out->nodes_[node].count = 0;
    build_node(right, mid, end, depth + 1);
  }

  // The bin of a centroid, range-checked before the conversion: finite triangles near
  // FLT_MAX give infinite centroids and extents, and then NaN here (bin 0).
  static int bin_of(Vec3 centroid, int k, float lo, float scale) {
    const float f = (axis(centroid, k) - lo) * scale;
    if (!(f >= 0.0f)) return 0;  // also NaN
    if (f >= static_cast<float>(kBins - 1)) return kBins - 1;
    return static_cast<int>(f);
  }

  void make_leaf(uint32_t node, uint32_t begin, uint32_t count) {
    out->nodes_[node].first = static_cast<uint32_t>(out->tris_.size());
    out->nodes_[node].count = count;
    for (uint32_t i = begin; i < begin + count; ++i) {
      out->tris_.push_back(input[refs[i].index]);
      out->index_.push_back(refs[i].index);
    }
  }
};

Bvh Bvh::build(std::span<const Triangle> triangles, const BvhOptions& options) {
  Bvh bvh;
  Builder b{options, triangles, {}, &bvh};
  b.refs.reserve(triangles.size());
  for (size_t i = 0; i < triangles.size(); ++i) {
    const Triangle& t = triangles[i];
    if (!is_finite(t)) continue;
    Builder::Ref r;
    r.box.grow(t.a);
    r.box.grow(t.b);
    r.box.grow(t.c);
    r.centroid = r.box.centre();
    r.index = static_cast<uint32_t>(i);
    b.refs.push_back(r);
  }
  if (b.refs.empty()) return bvh;
  bvh.nodes_.reserve(2 * b.refs.size());
  bvh.tris_.reserve(b.refs.size());
  bvh.index_.reserve(b.refs.size());
  bvh.nodes_.emplace_back();
  b.build_node(0, 0, static_cast<uint32_t>(b.refs.size()), 0);
  return bvh;
}

bool Bvh::closest(const Ray& ray, Hit* out_hit, const HitFilter* filter) const {
  if (nodes_.empty()) return false;
  const PreparedRay pr(ray);
  float best_t = ray.t_max;
  uint32_t best_index = UINT32_MAX;
  Hit best;
  struct Entry {
    uint32_t node;
    float t_near;
  };
  Entry stack[kMaxDepth];
  int sp = 0;
  float t_near = 0.0f;
  if (!intersect_box(pr, nodes_[0].box, padded(best_t), &t_near)) return false;
  uint32_t node = 0;
  for (;;) {
    const Node& n = nodes_[node];
    if (n.count > 0) {
      for (uint32_t i = n.first; i < n.first + n.count; ++i) {
        const Triangle& tri = tris_[i];
        TriangleHit h;
        if (!intersect_triangle(pr, tri.a, tri.b, tri.c, best_t, &h)) continue;
        const uint32_t index = index_[i];
        if (!better(h.t, index, best_t, best_index)) continue;
        if (filter && !filter->accept(index, h)) continue;
        best_t = h.t;
        best_index = index;
        best = {h.t, h.u, h.v, index};
      }
    } else {
      const uint32_t c0 = node + 1, c1 = n.first;
      float t0 = 0.0f, t1 = 0.0f;
      const bool hit0 = intersect_box(pr, nodes_[c0].box, padded(best_t), &t0);
      const bool hit1 = intersect_box(pr, nodes_[c1].box, padded(best_t), &t1);
      if (hit0 && hit1) {
        const bool first0 = t0 <= t1;
        stack[sp++] = first0 ? Entry{c1, t1} : Entry{c0, t0};
        node = first0 ? c0 : c1;
        continue;
      }
      if (hit0 || hit1) {
        node = hit0 ? c0 : c1;
        continue;
      }
    }
    // Pop the next node still worth visiting.
    bool found = false;
    while (sp > 0) {
      const Entry e = stack[--sp];
      if (e.t_near <= padded(best_t)) {
        node = e.node;
        found = true;
        break;
      }
    }
    if (!found) break;
  }
  if (best_index == UINT32_MAX) return false;
  *out_hit = best;
  return true;
}

bool Bvh::any(const Ray& ray, const HitFilter* filter) const {
  if (nodes_.empty()) return false;
  const PreparedRay pr(ray);
  const float t_max = ray.t_max;
  uint32_t stack[kMaxDepth];
  int sp = 0;
  float t_near = 0.0f;
  if (!intersect_box(pr, nodes_[0].box, padded(t_max), &t_near)) return false;
  uint32_t node = 0;
  for (;;) {
    const Node& n = nodes_[node];
    if (n.count > 0) {
      for (uint32_t i = n.first; i < n.first + n.count; ++i) {
        const Triangle& tri = tris_[i];
        TriangleHit h;
        if (!intersect_triangle(pr, tri.a, tri.b, tri.c, t_max, &h)) continue;
        if (!filter || filter->accept(index_[i], h)) return true;
      }
    } else {
      const uint32_t c0 = node + 1, c1 = n.first;
      const bool hit0 = intersect_box(pr, nodes_[c0].box, padded(t_max), &t_near);
      const bool hit1 = intersect_box(pr, nodes_[c1].box, padded(t_max), &t_near);
      if (hit0 && hit1) {
        stack[sp++] = c1;
        node = c0;
        continue;
      }
      if (hit0 || hit1) {
        node = hit0 ? c0 : c1;
        continue;
      }
    }
    if (sp == 0) return false;
    node = stack[--sp];
  }
}

BvhStats Bvh::stats() const {
  BvhStats s;
  s.nodes = static_cast<uint32_t>(nodes_.size());
  s.triangles = static_cast<uint32_t>(tris_.size());
  if (nodes_.empty()) return s;
  std::vector<std::pair<uint32_t, uint32_t>> stack{{0u, 1u}};
  while (!stack.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    s.depth = std::max(s.depth, depth);
    const Node& n = nodes_[node];
    if (n.count > 0) {
      ++s.leaves;
      s.max_leaf_triangles = std::max(s.max_leaf_triangles, n.count);
    } else {
      stack.push_back({node + 1, depth + 1});
      stack.push_back({n.first, depth + 1});
    }
  }
  return s;
}

bool closest_hit_brute_force(std::span<const Triangle> triangles, const Ray& ray, Hit* out_hit,
                             const HitFilter* filter) {
  const PreparedRay pr(ray);
  float best_t = ray.t_max;
  uint32_t best_index = UINT32_MAX;
  Hit best;
  for (size_t i = 0; i < triangles.size(); ++i) {
    const Triangle& tri = triangles[i];
    if (!is_finite(tri)) continue;
    TriangleHit h;
    if (!intersect_triangle(pr, tri.a, tri.b, tri.c, best_t, &h)) continue;
    const uint32_t index = static_cast<uint32_t>(i);
    if (!better(h.t, index, best_t, best_index)) continue;
    if (filter && !filter->accept(index, h)) continue;
    best_t = h.t;
    best_index = index;
    best = {h.t, h.u, h.v, index};
  }
  if (best_index == UINT32_MAX) return false;
  *out_hit = best;
  return true;
}

}  // namespace animpack::trace
