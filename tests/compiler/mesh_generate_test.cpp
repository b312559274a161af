// Generated streams (mesh_generate.h): flat normals that unweld every stream consistently,
// and MikkTSpace tangents (+u direction, w = -1 on mirrored uvs, unit and orthogonal to the
// normal), on parts built here.
#include "animpack/compiler/mesh_generate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <vector>

#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"

namespace animpack {
namespace {

constexpr float kTolerance = 1e-5f;

float dot_of(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 xyz(Vec4 v) { return {v.x, v.y, v.z}; }

::testing::AssertionResult near3(Vec3 a, Vec3 b, float tolerance = kTolerance) {
  if (std::fabs(a.x - b.x) <= tolerance && std::fabs(a.y - b.y) <= tolerance &&
      std::fabs(a.z - b.z) <= tolerance) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "(" << a.x << ", " << a.y << ", " << a.z << ") vs ("
                                       << b.x << ", " << b.y << ", " << b.z << ")";
}

// Every tangent is finite, unit and orthogonal to its vertex's normal within 1e-5, with
// w = +1 or -1.
void expect_unit_orthogonal(const CookedPart& part) {
  ASSERT_EQ(part.tangents.size(), part.positions.size());
  for (size_t v = 0; v < part.tangents.size(); ++v) {
    const Vec4 t = part.tangents[v];
    ASSERT_TRUE(std::isfinite(t.x) && std::isfinite(t.y) && std::isfinite(t.z)) << v;
    EXPECT_NEAR(std::sqrt(dot_of(xyz(t), xyz(t))), 1.0f, kTolerance) << v;
    const Vec3 n = part.normals[v];
    const float nl = std::sqrt(dot_of(n, n));
    EXPECT_NEAR(dot_of(xyz(t), n) / nl, 0.0f, kTolerance) << v;
    EXPECT_TRUE(t.w == 1.0f || t.w == -1.0f) << v;
  }
}

// A quad in the xy plane facing +z, x in [x0, x1], y in [0, 1], with u running from u0 at
// x0 to u1 at x1 and v = 1 - y (glTF: v down the image, so +y is up the image).
void add_quad(CookedPart& part, float x0, float x1, float u0, float u1) {
  const uint32_t base = static_cast<uint32_t>(part.positions.size());
  const Vec3 p[4] = {{x0, 0, 0}, {x1, 0, 0}, {x1, 1, 0}, {x0, 1, 0}};
  const Vec2 uv[4] = {{u0, 1}, {u1, 1}, {u1, 0}, {u0, 0}};
  for (int k = 0; k < 4; ++k) {
    part.positions.push_back(p[k]);
    part.normals.push_back({0, 0, 1});
    part.texcoords0.push_back(uv[k]);
    part.source_vertices.push_back(base + static_cast<uint32_t>(k));
  }
  for (uint32_t i : {0u, 1u, 2u, 0u, 2u, 3u}) part.indices.push_back(base + i);
}

TEST(GenerateTangents, FlatQuadTangentFollowsPlusU) {
  CookedPart part;
  add_quad(part, 0, 2, 0, 1);
  ASSERT_TRUE(generate_tangents(part, 0));
  EXPECT_TRUE(part.tangents_generated);
  ASSERT_EQ(part.positions.size(), 4u);  // nothing to split
  for (const Vec4& t : part.tangents) {
    EXPECT_TRUE(near3(xyz(t), {1, 0, 0}));
    EXPECT_EQ(t.w, 1.0f);  // bitangent w * cross(n, t) = +y: up the image, -v
  }
  expect_unit_orthogonal(part);
}

TEST(GenerateTangents, UsesTheAskedUvSet) {
  CookedPart part;
  add_quad(part, 0, 1, 0, 1);
  // TEXCOORD_1: u runs along +y instead.
  part.texcoords1 = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
  ASSERT_TRUE(generate_tangents(part, 1));
  for (const Vec4& t : part.tangents) EXPECT_TRUE(near3(xyz(t), {0, 1, 0}));
  expect_unit_orthogonal(part);
}

TEST(GenerateTangents, MirroredUvHalfGetsMinusOneAndTheSeamSplits) {
  // Two quads sharing the edge x = 0, the right one with its uvs mirrored (u = 1 on the
  // seam on both sides, so the seam vertices weld by value).
  CookedPart part;
  add_quad(part, -1, 0, 0, 1);
  add_quad(part, 0, 1, 1, 0);
  // Weld the seam in the index buffer as a tool would: right quad's x = 0 corners use the
  // left quad's x = 0 vertices (same position, normal, uv).
  for (uint32_t& i : part.indices) {
    if (i == 4) i = 1;  // (0, 0)
    if (i == 7) i = 2;  // (0, 1)
  }
  const size_t before = part.positions.size();
  ASSERT_TRUE(generate_tangents(part, 0));
  // The two seam vertices carry two tangents each: each gets one copy.
  EXPECT_EQ(part.positions.size(), before + 2);
  ASSERT_EQ(part.source_vertices.size(), part.positions.size());
  ASSERT_EQ(part.texcoords0.size(), part.positions.size());
  for (size_t c = 0; c < part.indices.size(); ++c) {
    const Vec4 t = part.tangents[part.indices[c]];
    if (c < 6) {
      EXPECT_TRUE(near3(xyz(t), {1, 0, 0})) << c;
      EXPECT_EQ(t.w, 1.0f) << c;
    } else {
      EXPECT_TRUE(near3(xyz(t), {-1, 0, 0})) << c;  // +u runs towards -x
      EXPECT_EQ(t.w, -1.0f) << c;                   // the bitangent still points to +y
    }
    // Bitangent = w * cross(n, t): +y on both halves.
    const Vec3 n = part.normals[part.indices[c]];
    const Vec3 b{t.w * (n.y * t.z - n.z * t.y), t.w * (n.z * t.x - n.x * t.z),
                 t.w * (n.x * t.y - n.y * t.x)};
    EXPECT_TRUE(near3(b, {0, 1, 0})) << c;
  }
  // A split copy keeps its source vertex and its uv.
  for (size_t v = before; v < part.positions.size(); ++v) {
    const uint32_t src = part.source_vertices[v];
    EXPECT_TRUE(src == 1 || src == 2) << src;
    EXPECT_TRUE(near3(part.positions[v], part.positions[src], 0));
    EXPECT_EQ(part.texcoords0[v].x, part.texcoords0[src].x);
    EXPECT_EQ(part.texcoords0[v].y, part.texcoords0[src].y);
  }
  expect_unit_orthogonal(part);
}

TEST(GenerateTangents, WithoutUvsOrNormalsReturnsFalseAndChangesNothing) {
  CookedPart part;
  add_quad(part, 0, 1, 0, 1);
  part.texcoords0.clear();
  const CookedPart copy = part;
  EXPECT_FALSE(generate_tangents(part, 0));
  EXPECT_FALSE(generate_tangents(part, 1));
  EXPECT_FALSE(generate_tangents(part, 2));
  EXPECT_TRUE(part.tangents.empty());
  EXPECT_FALSE(part.tangents_generated);
  EXPECT_EQ(part.positions.size(), copy.positions.size());
  EXPECT_EQ(part.indices, copy.indices);
  EXPECT_EQ(part.source_vertices, copy.source_vertices);

  CookedPart no_normals;
  add_quad(no_normals, 0, 1, 0, 1);
  no_normals.normals.clear();
  EXPECT_FALSE(generate_tangents(no_normals, 0));
  EXPECT_TRUE(no_normals.tangents.empty());
  EXPECT_EQ(no_normals.texcoords0.size(), 4u);
}

TEST(GenerateTangents, DegenerateTrianglesStillGetUnitOrthogonalTangents) {
  CookedPart part;
  add_quad(part, 0, 1, 0, 1);
  // A triangle with two corners at one position, sharing vertex 2 with the quad.
  part.positions.push_back({0.5f, 2, 0});
  part.normals.push_back({0, 0, 1});
  part.texcoords0.push_back({0.5f, -1});
  part.source_vertices.push_back(4);
  for (uint32_t i : {2u, 4u, 4u}) part.indices.push_back(i);
  // A triangle whose uvs are all equal (no derivatives), alone.
  for (int k = 0; k < 3; ++k) {
    part.positions.push_back({5.0f + static_cast<float>(k), static_cast<float>(k % 2), 1});
    part.normals.push_back({0, 0.6f, 0.8f});
    part.texcoords0.push_back({0.25f, 0.25f});
    part.source_vertices.push_back(5 + static_cast<uint32_t>(k));
    part.indices.push_back(5 + static_cast<uint32_t>(k));
  }
  ASSERT_TRUE(generate_tangents(part, 0));
  expect_unit_orthogonal(part);
  // The degenerate triangle's shared corner takes the quad's tangent.
  EXPECT_TRUE(near3(xyz(part.tangents[part.indices[6]]), {1, 0, 0}));
  // The uv-less triangle: any unit vector orthogonal to its normal, w = +1.
  for (size_t c = 9; c < 12; ++c) EXPECT_EQ(part.tangents[part.indices[c]].w, 1.0f);
}

// A UV sphere (welded, shared seam positions with different uvs, poles), with normals from
// the positions: every tangent unit and orthogonal, pointing along +u (east) away from the
// poles.
TEST(GenerateTangents, SphereTangentsAreUnitOrthogonalAndFollowU) {
  CookedPart part;
  constexpr int kRings = 12, kSegments = 24;
  const double pi = 3.14159265358979323846;
  for (int r = 0; r <= kRings; ++r) {
    for (int s = 0; s <= kSegments; ++s) {
      const double theta = pi * r / kRings, phi = 2 * pi * s / kSegments;
      // u grows with phi (east, about +y), v grows downwards (from the north pole).
      const Vec3 p{static_cast<float>(std::sin(theta) * std::cos(phi)),
                   static_cast<float>(std::cos(theta)),
                   static_cast<float>(-std::sin(theta) * std::sin(phi))};
      part.positions.push_back(p);
      part.normals.push_back(p);
      part.texcoords0.push_back(
          {static_cast<float>(s) / kSegments, static_cast<float>(r) / kRings});
      part.source_vertices.push_back(static_cast<uint32_t>(part.source_vertices.size()));
    }
  }
  const auto at = [&](int r, int s) { return static_cast<uint32_t>(r * (kSegments + 1) + s); };
  for (int r = 0; r < kRings; ++r) {
    for (int s = 0; s < kSegments; ++s) {
      // Counter-clockwise seen from outside.
      for (uint32_t i :
           {at(r, s), at(r + 1, s), at(r + 1, s + 1), at(r, s), at(r + 1, s + 1), at(r, s + 1)}) {
        part.indices.push_back(i);
      }
    }
  }
  ASSERT_TRUE(generate_tangents(part, 0));
  expect_unit_orthogonal(part);
  for (size_t v = 0; v < part.positions.size(); ++v) {
    const Vec3 p = part.positions[v];
    const float ring = std::sqrt(p.x * p.x + p.z * p.z);
    if (ring < 0.3f) continue;                    // near the poles the east direction turns fast
    const Vec3 east{p.z / ring, 0, -p.x / ring};  // d p / d phi, normalised
    EXPECT_GT(dot_of(xyz(part.tangents[v]), east), 0.95f) << v;
    EXPECT_EQ(part.tangents[v].w, 1.0f) << v;
  }
}

// A welded cube (8 corners, 12 triangles, outward counter-clockwise) with every stream.
CookedPart cube() {
  CookedPart part;
  for (int k = 0; k < 8; ++k) {
    const float x = (k & 1) ? 1.0f : -1.0f, y = (k & 2) ? 1.0f : -1.0f, z = (k & 4) ? 1.0f : -1.0f;
    part.positions.push_back({x, y, z});
    part.texcoords0.push_back({0.1f * static_cast<float>(k), 0.2f});
    part.texcoords1.push_back({0.3f, 0.05f * static_cast<float>(k)});
    part.colors.push_back({0.1f * static_cast<float>(k), 0.5f, 0.25f, 1.0f});
    JointIndices j;
    j.j[0] = static_cast<uint16_t>(k % 3);
    j.j[1] = static_cast<uint16_t>(k % 2 + 3);
    part.joints.push_back(j);
    part.weights.push_back({0.75f, 0.25f, 0, 0});
    part.source_vertices.push_back(100 + static_cast<uint32_t>(k));
  }
  // Faces as quads (a, b, c, d counter-clockwise from outside) split into two triangles.
  const uint32_t faces[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                                {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
  for (const auto& f : faces) {
    for (int i : {0, 1, 2, 0, 2, 3}) part.indices.push_back(f[i]);
  }
  return part;
}

TEST(GenerateFlatNormals, CubeGetsItsFaceNormalsAndEveryStreamUnweldsConsistently) {
  const CookedPart before = cube();
  CookedPart part = before;
  part.material = 3;
  generate_flat_normals(part);
  EXPECT_TRUE(part.normals_generated);
  EXPECT_EQ(part.material, 3);
  const size_t n = before.indices.size();
  ASSERT_EQ(part.positions.size(), n);
  ASSERT_EQ(part.normals.size(), n);
  ASSERT_EQ(part.texcoords0.size(), n);
  ASSERT_EQ(part.texcoords1.size(), n);
  ASSERT_EQ(part.colors.size(), n);
  ASSERT_EQ(part.joints.size(), n);
  ASSERT_EQ(part.weights.size(), n);
  ASSERT_EQ(part.source_vertices.size(), n);
  EXPECT_TRUE(part.tangents.empty());
  const Vec3 face_normals[6] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
  for (size_t c = 0; c < n; ++c) {
    EXPECT_EQ(part.indices[c], c);
    const uint32_t src = before.indices[c];
    EXPECT_TRUE(near3(part.positions[c], before.positions[src], 0));
    EXPECT_TRUE(near3(part.normals[c], face_normals[c / 6], 0)) << c;
    EXPECT_EQ(part.texcoords0[c].x, before.texcoords0[src].x);
    EXPECT_EQ(part.texcoords0[c].y, before.texcoords0[src].y);
    EXPECT_EQ(part.texcoords1[c].x, before.texcoords1[src].x);
    EXPECT_EQ(part.texcoords1[c].y, before.texcoords1[src].y);
    EXPECT_EQ(std::memcmp(&part.colors[c], &before.colors[src], sizeof(Vec4)), 0);
    EXPECT_EQ(std::memcmp(&part.joints[c], &before.joints[src], sizeof(JointIndices)), 0);
    EXPECT_EQ(std::memcmp(&part.weights[c], &before.weights[src], sizeof(Vec4)), 0);
    EXPECT_EQ(part.source_vertices[c], before.source_vertices[src]);
  }
}

TEST(GenerateFlatNormals, ThenTangentsGiveFaceTangents) {
  CookedPart part = cube();
  // One uv square per face: corners a, b, c, d of each face at (0,1) (1,1) (1,0) (0,0).
  generate_flat_normals(part);
  const Vec2 square[6] = {{0, 1}, {1, 1}, {1, 0}, {0, 1}, {1, 0}, {0, 0}};
  for (size_t c = 0; c < part.texcoords0.size(); ++c) part.texcoords0[c] = square[c % 6];
  ASSERT_TRUE(generate_tangents(part, 0));
  expect_unit_orthogonal(part);
  // Each face's tangent runs from its corner a to corner b: +u.
  for (size_t c = 0; c < part.indices.size(); ++c) {
    const size_t face = c / 6;
    const Vec3 a = part.positions[face * 6], b = part.positions[face * 6 + 1];
    const Vec3 ab{(b.x - a.x) / 2, (b.y - a.y) / 2, (b.z - a.z) / 2};
    EXPECT_TRUE(near3(xyz(part.tangents[part.indices[c]]), ab)) << c;
    EXPECT_EQ(part.tangents[part.indices[c]].w, 1.0f) << c;
  }
}

TEST(GenerateFlatNormals, DegenerateTriangleTakesThePreviousNormal) {
  CookedPart part;
  part.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 2, 2}};
  part.source_vertices = {0, 1, 2, 3, 4};
  // Degenerate first (no triangle before it: +z), then a good one facing -y... then a
  // degenerate one (two corners at one point), then a zero-area line.
  part.indices = {4, 4, 4, 0, 3, 1, 0, 1, 1, 0, 4, 4};
  // Triangle 1: (0,0,0) (0,0,1) (1,0,0): cross((0,0,1), (1,0,0)) = (0, 1, 0).
  generate_flat_normals(part);
  ASSERT_EQ(part.normals.size(), 12u);
  for (size_t c = 0; c < 3; ++c) EXPECT_TRUE(near3(part.normals[c], {0, 0, 1}, 0));
  for (size_t c = 3; c < 12; ++c) EXPECT_TRUE(near3(part.normals[c], {0, 1, 0}, 0)) << c;
  for (const Vec3& v : part.normals) EXPECT_TRUE(std::isfinite(v.x + v.y + v.z));
}

// Against an exporter's MikkTSpace: Blender's glTF exporter writes TANGENT from MikkTSpace
// (its own mikktspace.c). 03_animated_cube (blender-io-roundtrip) has TEXCOORD_0 and
// TANGENT: with the file's tangents removed, ours agree in direction and in w for every
// vertex. TEXCOORD_0 is read here from the JSON and the .bin (float VEC2, tightly packed).
TEST(GenerateTangents, AgreeWithBlendersOnTheRoundtripCube) {
  namespace fs = std::filesystem;
  const fs::path file = fs::path(ANIMPACK_CORPUS_DIR) /
                        "gltf/blender-io-roundtrip/03_animated_cube/03_animated_cube.gltf";
  std::ifstream in(file);
  ASSERT_TRUE(in.good()) << file;
  const nlohmann::json j = nlohmann::json::parse(in);
  const GltfDocument doc = read_gltf(file);
  ASSERT_TRUE(doc.ok());
  ImportedModel model = import_gltf(doc, "cube", "03_animated_cube.gltf");
  ASSERT_TRUE(model.ok());
  ASSERT_EQ(model.mesh.parts.size(), 1u);
  CookedPart& part = model.mesh.parts[0];
  ASSERT_EQ(part.tangents.size(), part.positions.size());

  const nlohmann::json& prim = j["meshes"][0]["primitives"][0];
  const nlohmann::json& acc = j["accessors"][prim["attributes"]["TEXCOORD_0"].get<size_t>()];
  ASSERT_EQ(acc["componentType"], 5126);
  const nlohmann::json& view = j["bufferViews"][acc["bufferView"].get<size_t>()];
  ASSERT_FALSE(view.contains("byteStride") && view["byteStride"] != 8);
  std::ifstream bin(file.parent_path() / j["buffers"][0]["uri"].get<std::string>(),
                    std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(bin),
                                std::istreambuf_iterator<char>()};
  const size_t offset = view.value("byteOffset", size_t{0}) + acc.value("byteOffset", size_t{0});
  const size_t count = acc["count"];
  ASSERT_LE(offset + count * 8, bytes.size());
  std::vector<Vec2> uv(count);
  std::memcpy(uv.data(), bytes.data() + offset, count * 8);
  // The import fills TEXCOORD_0 itself: it must be the file's values, per source vertex.
  ASSERT_EQ(part.texcoords0.size(), part.source_vertices.size());
  for (size_t v = 0; v < part.source_vertices.size(); ++v) {
    ASSERT_EQ(part.texcoords0[v].x, uv[part.source_vertices[v]].x) << v;
    ASSERT_EQ(part.texcoords0[v].y, uv[part.source_vertices[v]].y) << v;
  }

  const std::vector<Vec4> blender = part.tangents;  // one per source vertex (no reorder)
  part.tangents.clear();
  ASSERT_TRUE(generate_tangents(part, 0));
  expect_unit_orthogonal(part);
  EXPECT_EQ(part.positions.size(), blender.size());  // Blender's seams are ours: no split
  for (size_t v = 0; v < part.positions.size(); ++v) {
    const Vec4 theirs = blender[part.source_vertices[v]];
    EXPECT_GT(dot_of(xyz(part.tangents[v]), xyz(theirs)), 0.999f) << v;
    EXPECT_EQ(part.tangents[v].w, theirs.w) << v;
  }
}

}  // namespace
}  // namespace animpack
