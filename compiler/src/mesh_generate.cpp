// Flat normals and MikkTSpace tangents for parts that lack them (mesh_generate.h).
//
// Specifications: glTF 2.0 (2.0.1), "Meshes" (flat normals when NORMAL is missing;
// tangents "using default MikkTSpace algorithms"), and Morten S. Mikkelsen, "Simulation of
// Wrinkled Surfaces Revisited" (2008) with the rules of the reference implementation
// mikktspace.c (genTangSpaceDefault, angular threshold 180 degrees), written here anew.
// Where this one may differ from the reference, see docs/pack-format.md, "Generated
// streams": triangles only (no quads), no sub-group split (with the default threshold the
// reference splits a group only where two corners' tangents are exactly opposite), corners
// no group reaches get a unit vector orthogonal to the normal instead of (1, 0, 0), and
// a vertex whose corners get different tangents is split into one vertex per tangent.
#include "animpack/compiler/mesh_generate.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "animpack/scalar.h"

namespace animpack {
namespace {

// ---------------------------------------------------------------------------------------
// Vertex copies

// Appends a copy of vertex v of `from` to `to`, stream by stream (every per-vertex stream
// the part has, so that unwelding or splitting keeps them all consistent).
void copy_vertex(const CookedPart& from, size_t v, CookedPart& to) {
  to.positions.push_back(from.positions[v]);
  if (!from.normals.empty()) to.normals.push_back(from.normals[v]);
  if (!from.tangents.empty()) to.tangents.push_back(from.tangents[v]);
  if (!from.joints.empty()) to.joints.push_back(from.joints[v]);
  if (!from.weights.empty()) to.weights.push_back(from.weights[v]);
  if (!from.source_vertices.empty()) to.source_vertices.push_back(from.source_vertices[v]);
  if (!from.texcoords0.empty()) to.texcoords0.push_back(from.texcoords0[v]);
  if (!from.texcoords1.empty()) to.texcoords1.push_back(from.texcoords1[v]);
  if (!from.colors.empty()) to.colors.push_back(from.colors[v]);
}

// The same part with its vertex streams emptied (everything else kept).
CookedPart without_vertices(const CookedPart& part) {
  CookedPart out;
  out.source_node = part.source_node;
  out.source_mesh = part.source_mesh;
  out.source_primitive = part.source_primitive;
  out.joint = part.joint;
  out.material = part.material;
  out.normals_generated = part.normals_generated;
  out.tangents_generated = part.tangents_generated;
  return out;
}

// ---------------------------------------------------------------------------------------
// Small float vector helpers (the compiler's own, in float as the reference computes)

Vec3 add(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3 sub(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 scale(float s, Vec3 v) { return {s * v.x, s * v.y, s * v.z}; }
float dot3(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
float len3(Vec3 v) { return std::sqrt(dot3(v, v)); }
bool same(Vec3 a, Vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
// The reference's NotZero: |x| above the smallest normal float.
bool not_zero(float x) { return std::fabs(x) > std::numeric_limits<float>::min(); }
// v / |v|, a zero vector kept (the reference's NormalizeSafe).
Vec3 normalize_safe(Vec3 v) {
  const float l = len3(v);
  return l != 0.0f ? scale(1.0f / l, v) : v;
}
// v without its component along the unit n, then unit (zero stays zero).
Vec3 project(Vec3 v, Vec3 n) { return normalize_safe(sub(v, scale(dot3(n, v), n))); }

// A unit vector orthogonal to the unit n: the axis least aligned with n, made orthogonal;
// +x when n is zero or not finite.
Vec3 any_orthogonal(Vec3 n) {
  const float ax = std::fabs(n.x), ay = std::fabs(n.y), az = std::fabs(n.z);
  if (!(ax + ay + az > 0.0f) || !std::isfinite(ax + ay + az)) return {1, 0, 0};
  const Vec3 axis = ax <= ay && ax <= az ? Vec3{1, 0, 0} : ay <= az ? Vec3{0, 1, 0} : Vec3{0, 0, 1};
  return project(axis, n);
}

// ---------------------------------------------------------------------------------------
// MikkTSpace

// A float's bits with -0 read as +0, so that welding compares values.
uint32_t key_bits(float f) {
  if (f == 0.0f) f = 0.0f;
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

struct Triangle {
  std::array<uint32_t, 3> weld{};            // welded vertex ids of the corners
  std::array<int, 3> neighbour{-1, -1, -1};  // across edge k (corner k to corner k + 1)
  std::array<int, 3> group{-1, -1, -1};      // group of corner k
  Vec3 os, ot;                               // unit first-order derivatives (signed)
  float mag_s = 0, mag_t = 0;
  bool preserving = false;  // orientation preserving (positive uv area)
  bool any = true;          // "group with any": degenerate uv derivatives
  bool degenerate = false;  // two corners share a position: left out
};

struct Group {
  uint32_t weld = 0;  // the vertex the group is around
  bool preserving = false;
  std::vector<int> triangles;
};

// The corner of triangle t at welded vertex w, or -1.
int corner_of(const Triangle& t, uint32_t w) {
  for (int k = 0; k < 3; ++k) {
    if (t.weld[static_cast<size_t>(k)] == w) return k;
  }
  return -1;
}

// Adds triangle `index` to group g and grows it through the neighbours around g's vertex
// (the reference's AssignRecur, with an explicit stack).
void grow_group(std::vector<Triangle>& tris, std::vector<Group>& groups, int g, int first) {
  std::vector<int> stack{first};
  while (!stack.empty()) {
    const int index = stack.back();
    stack.pop_back();
    Triangle& t = tris[static_cast<size_t>(index)];
    Group& group = groups[static_cast<size_t>(g)];
    const int k = corner_of(t, group.weld);
    if (k < 0) continue;
    const size_t uk = static_cast<size_t>(k);
    if (t.group[uk] >= 0) continue;  // in this group already, or in another
    if (t.any && t.group[0] < 0 && t.group[1] < 0 && t.group[2] < 0) {
      t.preserving = group.preserving;  // the first group it joins decides
    }
    if (t.preserving != group.preserving) continue;
    group.triangles.push_back(index);
    t.group[uk] = g;
    const int right = t.neighbour[uk];
    const int left = t.neighbour[k > 0 ? uk - 1 : 2];
    // Pushed so that neighbour[k] is visited first, as the reference recurses.
    if (left >= 0) stack.push_back(left);
    if (right >= 0) stack.push_back(right);
  }
}

}  // namespace

void generate_flat_normals(CookedPart& part) {
  const size_t tri_count = part.indices.size() / 3;
  // CookedPart's rule (indices < positions.size()) broken: a programmer error upstream;
  // leave the part as it is rather than read outside it.
  for (size_t c = 0; c < 3 * tri_count; ++c) {
    if (part.indices[c] >= part.positions.size()) return;
  }
  CookedPart out = without_vertices(part);
  Vec3 previous{0, 0, 1};
  for (size_t t = 0; t < tri_count; ++t) {
    const uint32_t i0 = part.indices[3 * t], i1 = part.indices[3 * t + 1],
                   i2 = part.indices[3 * t + 2];
    // The face normal in double: cross(p1 - p0, p2 - p0), counter-clockwise front.
    const Vec3 p0 = part.positions[i0], p1 = part.positions[i1], p2 = part.positions[i2];
    const double ax = double{p1.x} - p0.x, ay = double{p1.y} - p0.y, az = double{p1.z} - p0.z;
    const double bx = double{p2.x} - p0.x, by = double{p2.y} - p0.y, bz = double{p2.z} - p0.z;
    const double nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
    const double len = std::sqrt(nx * nx + ny * ny + nz * nz);
    Vec3 n = previous;  // degenerate: the nearest good triangle before it, or +z
    if (len > 0.0 && std::isfinite(len)) {
      n = {static_cast<float>(nx / len), static_cast<float>(ny / len),
           static_cast<float>(nz / len)};
      previous = n;
    }
    for (uint32_t v : {i0, i1, i2}) {
      copy_vertex(part, v, out);
      out.normals.push_back(n);
      out.indices.push_back(static_cast<uint32_t>(out.indices.size()));
    }
  }
  out.normals_generated = true;
  part = std::move(out);
}

bool generate_tangents(CookedPart& part, int uv_set) {
  if (uv_set != 0 && uv_set != 1) return false;
  const std::vector<Vec2>& uvs = uv_set == 0 ? part.texcoords0 : part.texcoords1;
  const size_t vertex_count = part.positions.size();
  if (part.normals.size() != vertex_count || uvs.size() != vertex_count || vertex_count == 0) {
    return false;
  }
  const size_t tri_count = part.indices.size() / 3;
  for (size_t c = 0; c < 3 * tri_count; ++c) {
    if (part.indices[c] >= vertex_count) return false;
  }

  // Weld by value: vertices with the same position, normal and uv are one.
  std::vector<uint32_t> weld_of(vertex_count);
  std::vector<uint32_t> weld_vertex;  // a part vertex of each welded id
  {
    std::map<std::array<uint32_t, 8>, uint32_t> ids;
    for (size_t v = 0; v < vertex_count; ++v) {
      const Vec3 p = part.positions[v], n = part.normals[v];
      const Vec2 t = uvs[v];
      const std::array<uint32_t, 8> key = {key_bits(p.x), key_bits(p.y), key_bits(p.z),
                                           key_bits(n.x), key_bits(n.y), key_bits(n.z),
                                           key_bits(t.x), key_bits(t.y)};
      const auto [it, added] = ids.emplace(key, static_cast<uint32_t>(weld_vertex.size()));
      if (added) weld_vertex.push_back(static_cast<uint32_t>(v));
      weld_of[v] = it->second;
    }
  }
  const auto position = [&](uint32_t w) { return part.positions[weld_vertex[w]]; };
  const auto uv = [&](uint32_t w) { return uvs[weld_vertex[w]]; };
  const auto normal = [&](uint32_t w) { return normalize_safe(part.normals[weld_vertex[w]]); };

  // Per triangle: derivatives, orientation, degeneracy.
  std::vector<Triangle> tris(tri_count);
  for (size_t f = 0; f < tri_count; ++f) {
    Triangle& t = tris[f];
    for (size_t k = 0; k < 3; ++k) t.weld[k] = weld_of[part.indices[3 * f + k]];
    const Vec3 v1 = position(t.weld[0]), v2 = position(t.weld[1]), v3 = position(t.weld[2]);
    t.degenerate = same(v1, v2) || same(v1, v3) || same(v2, v3);
    if (t.degenerate) continue;
    const Vec2 t1 = uv(t.weld[0]), t2 = uv(t.weld[1]), t3 = uv(t.weld[2]);
    const float t21x = t2.x - t1.x, t21y = t2.y - t1.y;
    const float t31x = t3.x - t1.x, t31y = t3.y - t1.y;
    const Vec3 d1 = sub(v2, v1), d2 = sub(v3, v1);
    const float area = t21x * t31y - t21y * t31x;
    const Vec3 os = sub(scale(t31y, d1), scale(t21y, d2));
    const Vec3 ot = add(scale(-t31x, d1), scale(t21x, d2));
    t.preserving = area > 0;
    if (not_zero(area)) {
      const float abs_area = std::fabs(area);
      const float len_os = len3(os), len_ot = len3(ot);
      const float sign = t.preserving ? 1.0f : -1.0f;
      if (not_zero(len_os)) t.os = scale(sign / len_os, os);
      if (not_zero(len_ot)) t.ot = scale(sign / len_ot, ot);
      t.mag_s = len_os / abs_area;
      t.mag_t = len_ot / abs_area;
      if (not_zero(t.mag_s) && not_zero(t.mag_t)) t.any = false;
    }
  }

  // Neighbours: triangle f's edge (a, b) pairs with the first unpaired triangle having the
  // edge (b, a). Degenerate triangles take no part.
  {
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<int, int>>> edges;
    for (size_t f = 0; f < tri_count; ++f) {
      if (tris[f].degenerate) continue;
      for (int k = 0; k < 3; ++k) {
        const uint32_t a = tris[f].weld[static_cast<size_t>(k)];
        const uint32_t b = tris[f].weld[static_cast<size_t>((k + 1) % 3)];
        edges[{a, b}].push_back({static_cast<int>(f), k});
      }
    }
    for (size_t f = 0; f < tri_count; ++f) {
      if (tris[f].degenerate) continue;
      for (int k = 0; k < 3; ++k) {
        if (tris[f].neighbour[static_cast<size_t>(k)] >= 0) continue;
        const uint32_t a = tris[f].weld[static_cast<size_t>(k)];
        const uint32_t b = tris[f].weld[static_cast<size_t>((k + 1) % 3)];
        const auto it = edges.find({b, a});
        if (it == edges.end()) continue;
        for (const auto& [t, e] : it->second) {
          if (t == static_cast<int>(f)) continue;
          int& back = tris[static_cast<size_t>(t)].neighbour[static_cast<size_t>(e)];
          if (back >= 0) continue;
          back = static_cast<int>(f);
          tris[f].neighbour[static_cast<size_t>(k)] = t;
          break;
        }
      }
    }
  }

  // Groups: the corners around one welded vertex connected through shared edges, of one
  // orientation; started only by triangles with good derivatives.
  std::vector<Group> groups;
  for (size_t f = 0; f < tri_count; ++f) {
    for (size_t k = 0; k < 3; ++k) {
      Triangle& t = tris[f];
      if (t.degenerate || t.any || t.group[k] >= 0) continue;
      const int g = static_cast<int>(groups.size());
      groups.push_back({t.weld[k], t.preserving, {static_cast<int>(f)}});
      t.group[k] = g;
      const int right = t.neighbour[k];
      const int left = t.neighbour[k > 0 ? k - 1 : 2];
      if (right >= 0) grow_group(tris, groups, g, right);
      if (left >= 0) grow_group(tris, groups, g, left);
    }
  }

  // Each group's tangent: the corner-angle weighted sum of its good triangles' projected
  // derivatives at the group's vertex.
  std::vector<Vec3> group_tangent(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const Group& group = groups[g];
    const Vec3 n = normal(group.weld);
    Vec3 sum;
    for (int index : group.triangles) {
      const Triangle& t = tris[static_cast<size_t>(index)];
      if (t.any) continue;
      const int k = corner_of(t, group.weld);
      const Vec3 os = project(t.os, n);
      const Vec3 p0 = position(t.weld[static_cast<size_t>((k + 2) % 3)]);
      const Vec3 p1 = position(t.weld[static_cast<size_t>(k)]);
      const Vec3 p2 = position(t.weld[static_cast<size_t>((k + 1) % 3)]);
      const Vec3 e1 = project(sub(p0, p1), n), e2 = project(sub(p2, p1), n);
      float cosine = dot3(e1, e2);
      cosine = cosine > 1.0f ? 1.0f : cosine < -1.0f ? -1.0f : cosine;
      // acos(c) as det::atan2(sqrt(1 - c^2), c): the same bits on every platform (the
      // C library's acos differs between libraries), so the cooked pack does too.
      const double c = cosine;
      const float angle = static_cast<float>(det::atan2(std::sqrt(1.0 - c * c), c));
      sum = add(sum, scale(angle, os));
    }
    group_tangent[g] = normalize_safe(sum);
  }

  // Per corner: its group's tangent (or, for a degenerate triangle, that of a good corner
  // of the same welded vertex), made orthogonal to the normal and unit; w from the
  // orientation. glTF's v runs down the image while MikkTSpace's bitangent follows +v, so
  // w is the reference's sign negated: bitangent = w * cross(n, t) points up the image
  // (towards -v), as glTF's normal textures expect.
  std::vector<Vec4> corner(3 * tri_count);
  std::vector<int> good_corner_of_weld(weld_vertex.size(), -1);
  for (size_t f = 0; f < tri_count; ++f) {
    for (size_t k = 0; k < 3; ++k) {
      const Triangle& t = tris[f];
      if (t.degenerate) continue;
      const Vec3 n = normal(t.weld[k]);
      const int g = t.group[k];
      Vec3 tangent = g >= 0 ? group_tangent[static_cast<size_t>(g)] : Vec3{};
      tangent = project(tangent, n);
      bool preserving = g >= 0 ? groups[static_cast<size_t>(g)].preserving : false;
      if (!(len3(tangent) > 0.5f)) {
        tangent = any_orthogonal(n);
        preserving = false;
      }
      corner[3 * f + k] = {tangent.x, tangent.y, tangent.z, preserving ? -1.0f : 1.0f};
      if (good_corner_of_weld[t.weld[k]] < 0) {
        good_corner_of_weld[t.weld[k]] = static_cast<int>(3 * f + k);
      }
    }
  }
  for (size_t f = 0; f < tri_count; ++f) {
    if (!tris[f].degenerate) continue;
    for (size_t k = 0; k < 3; ++k) {
      const int good = good_corner_of_weld[tris[f].weld[k]];
      if (good >= 0) {
        corner[3 * f + k] = corner[static_cast<size_t>(good)];
      } else {
        const Vec3 t = any_orthogonal(normal(tris[f].weld[k]));
        corner[3 * f + k] = {t.x, t.y, t.z, 1.0f};
      }
    }
  }

  // One vertex per distinct tangent: the first corner's keeps the vertex, others get a
  // copy of it (every stream) appended. Vertices no triangle uses get the fallback.
  CookedPart source = part;
  source.tangents.clear();  // replaced
  CookedPart out = source;
  out.tangents.assign(vertex_count, Vec4{});
  std::vector<std::vector<std::pair<Vec4, uint32_t>>> seen(vertex_count);
  const auto bits_of = [](const Vec4& v) {
    std::array<uint32_t, 4> b;
    std::memcpy(b.data(), &v, 16);
    return b;
  };
  for (size_t c = 0; c < 3 * tri_count; ++c) {
    const uint32_t v = part.indices[c];
    std::vector<std::pair<Vec4, uint32_t>>& list = seen[v];
    uint32_t target = std::numeric_limits<uint32_t>::max();
    for (const auto& [tangent, index] : list) {
      if (bits_of(tangent) == bits_of(corner[c])) target = index;
    }
    if (target == std::numeric_limits<uint32_t>::max()) {
      if (list.empty()) {
        target = v;
        out.tangents[v] = corner[c];
      } else {
        target = static_cast<uint32_t>(out.positions.size());
        copy_vertex(source, v, out);
        out.tangents.push_back(corner[c]);
      }
      list.push_back({corner[c], target});
    }
    out.indices[c] = target;
  }
  for (size_t v = 0; v < vertex_count; ++v) {
    if (!seen[v].empty()) continue;
    const Vec3 t = any_orthogonal(normalize_safe(part.normals[v]));
    out.tangents[v] = {t.x, t.y, t.z, 1.0f};
  }
  out.tangents_generated = true;
  part = std::move(out);
  return true;
}

}  // namespace animpack
