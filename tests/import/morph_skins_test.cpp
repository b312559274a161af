// Step 5 of the import (import_gltf.h): morph targets become morph sets with kWeights
// clip channels, JOINTS_1/WEIGHTS_1 become the second influence set (ImportOptions::
// max_influences folds them), and several skins in one scene give one rig of their
// joints, with helper joints where two skins disagree on an inverse bind. The files are
// written here (GltfWriter) and read back; the morph and second-set streams are then put
// into the GltfDocument in code, as the reader delivers them, so that these tests hold
// the importer alone to its rules. Expected values are computed here, in double.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/compiler/import_gltf.h"
#include "import_support.h"

namespace animpack {
namespace {

using namespace import_test;  // NOLINT(build/namespaces): test helpers

using D3 = std::array<double, 3>;

// One triangle in the xy plane, normals +z, tangents +x.
json triangle(GltfWriter& w) {
  return {{"POSITION", w.vec3s({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, true)},
          {"NORMAL", w.vec3s({{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}, false)},
          {"TANGENT", w.vec4s({{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, 1}})}};
}

// Gives mesh m of `doc` two morph targets as the reader delivers them: target 0 moves
// positions, normals and tangents, target 1 positions only; names {"smile", ""} (the
// second unnamed) and mesh weights {0.25, 0.75}.
void add_targets(GltfDocument& doc, size_t m) {
  GltfMesh& mesh = doc.meshes[m];
  mesh.morph_targets = 2;
  mesh.weights = {0.25f, 0.75f};
  mesh.target_names = {"smile", ""};
  for (GltfPrimitive& prim : mesh.primitives) {
    const size_t n = prim.vertex_count;
    GltfMorphTarget a, b;
    for (size_t v = 0; v < n; ++v) {
      const float f = static_cast<float>(v + 1);
      a.positions.push_back({0.5f * f, -0.25f, 1.0f});
      b.positions.push_back({0.0f, 2.0f * f, -0.5f});
    }
    if (!prim.normals.empty()) a.normals.assign(n, Vec3{0.5f, 0.0f, 0.0f});
    if (!prim.tangents.empty()) a.tangents.assign(n, Vec3{0.0f, 0.5f, 0.0f});
    prim.targets = {a, b};
  }
}

// A weights channel on node `node` in a new animation named `name`.
void add_weights_animation(GltfDocument& doc, int node, const char* name,
                           Interpolation interpolation, std::vector<float> times,
                           std::vector<float> values) {
  GltfAnimation anim;
  anim.name = name;
  GltfChannel ch;
  ch.node = node;
  ch.property = Property::kWeights;
  ch.morph_weights = true;
  ch.interpolation = interpolation;
  ch.width = 2;
  ch.times = std::move(times);
  ch.values = std::move(values);
  ch.source_channel = 0;
  ch.sampler = 0;
  anim.duration = ch.times.back();
  anim.channels.push_back(std::move(ch));
  doc.animations.push_back(std::move(anim));
}

ImportedModel import_doc(const GltfDocument& doc, const ImportOptions& options = {}) {
  EXPECT_TRUE(doc.ok()) << describe(doc);
  return import_gltf(doc, "model", "model.glb", options);
}

D3 add_scaled(D3 a, double w, Vec3 d) { return {a[0] + w * d.x, a[1] + w * d.y, a[2] + w * d.z}; }
D3 to_d3(Vec3 v) { return {v.x, v.y, v.z}; }
D3 normalized(D3 v) {
  const double l = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  return {v[0] / l, v[1] / l, v[2] / l};
}
// The 3x3 of m (column-major) times v, and its inverse transpose times v.
D3 linear(const DMat& m, D3 v) {
  return {m[0] * v[0] + m[4] * v[1] + m[8] * v[2], m[1] * v[0] + m[5] * v[1] + m[9] * v[2],
          m[2] * v[0] + m[6] * v[1] + m[10] * v[2]};
}
D3 inverse_transpose(const DMat& m, D3 v) {
  // cofactor matrix / det: the inverse transpose of the 3x3.
  const double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6],
               i = m[10];
  const double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  const double C[3][3] = {{e * i - f * h, -(d * i - f * g), d * h - e * g},
                          {-(b * i - c * h), a * i - c * g, -(a * h - b * g)},
                          {b * f - c * e, -(a * f - c * d), a * e - b * d}};
  D3 out{};
  for (size_t r = 0; r < 3; ++r) out[r] = (C[r][0] * v[0] + C[r][1] * v[1] + C[r][2] * v[2]) / det;
  return out;
}

void expect_near3(D3 a, D3 b, double tolerance, const std::string& what) {
  for (size_t c = 0; c < 3; ++c) EXPECT_NEAR(a[c], b[c], tolerance) << what << " coordinate " << c;
}

// ---------------------------------------------------------------------------------------
// Morph targets

TEST(ImportGltfMorph, NodeWithTargetsBecomesAMorphSetOfANodeRig) {
  GltfWriter w;
  w.mesh({{"primitives", {{{"attributes", triangle(w)}}}}});
  w.node({{"name", "face"}, {"mesh", 0}, {"translation", {1, 2, 3}}});
  w.scene({0});
  GltfDocument doc = w.read();
  add_targets(doc, 0);
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  // No skin, no node animation: a node rig all the same, so the weights have a rig.
  ASSERT_TRUE(model.rig.has_value());
  EXPECT_TRUE(model.rig->node_rig);
  EXPECT_EQ(model.rig->morph_source_nodes, (std::vector<int>{0}));
  const std::span<const MorphSet> sets = model.rig->rig.morph_sets();
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].name, "face");
  EXPECT_EQ(sets[0].target_names, (std::vector<std::string>{"smile", "target_1"}));
  EXPECT_EQ(sets[0].default_weights, (std::vector<float>{0.25f, 0.75f}));  // mesh.weights
  EXPECT_EQ(sets[0].joint, 0);
  ASSERT_EQ(model.mesh.parts.size(), 1u);
  const CookedPart& part = model.mesh.parts[0];
  EXPECT_EQ(part.joint, 0);
  EXPECT_EQ(part.morph_set, 0);
  ASSERT_EQ(part.morph_targets.size(), 2u);
  // Node-local vertices: the file's deltas as they are.
  const GltfPrimitive& prim = doc.meshes[0].primitives[0];
  for (size_t t = 0; t < 2; ++t) {
    EXPECT_TRUE(
        bits_equal(&part.morph_targets[t].positions[0].x, &prim.targets[t].positions[0].x, 9));
  }
  EXPECT_EQ(part.morph_targets[0].normals.size(), 3u);
  EXPECT_EQ(part.morph_targets[0].tangents.size(), 3u);
  EXPECT_TRUE(part.morph_targets[1].normals.empty());
  EXPECT_EQ(model.rig->rig.find_morph_target("face/smile").value(), 0u);
}

TEST(ImportGltfMorph, NodeWeightsComeBeforeMeshWeights) {
  GltfWriter w;
  w.mesh({{"primitives", {{{"attributes", triangle(w)}}}}});
  w.node({{"name", "face"}, {"mesh", 0}});
  w.scene({0});
  GltfDocument doc = w.read();
  add_targets(doc, 0);
  doc.nodes[0].weights = {-0.5f, 2.0f};
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_EQ(model.rig->rig.morph_sets()[0].default_weights, (std::vector<float>{-0.5f, 2.0f}));
}

TEST(ImportGltfMorph, WeightsChannelsBecomeKWeightsChannelsBitForBit) {
  GltfWriter w;
  w.mesh({{"primitives", {{{"attributes", triangle(w)}}}}});
  w.node({{"name", "face"}, {"mesh", 0}});
  w.scene({0});
  GltfDocument doc = w.read();
  add_targets(doc, 0);
  add_weights_animation(doc, 0, "Smile", Interpolation::kLinear, {0, 0.5f, 1},
                        {0, 0, 1, 0.5f, 0, 1});
  add_weights_animation(doc, 0, "Blink", Interpolation::kCubicSpline, {0, 1},
                        {0, 0, 0, 0, 3, -2, 0, 0, 1, 1, 0, 0});
  add_weights_animation(doc, 0, "Snap", Interpolation::kStep, {0, 2}, {1, 0, 0, 1});
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_EQ(count_code(model, "ANIMATION_CHANNEL_OUTSIDE_RIG"), 0);
  const Rig& rig = model.rig->rig;
  ASSERT_EQ(rig.clip_count(), 3);
  for (size_t c = 0; c < 3; ++c) {
    const GltfChannel& source = doc.animations[c].channels[0];
    const Clip& clip = rig.clips()[c];
    EXPECT_EQ(clip.name(), doc.animations[c].name);
    ASSERT_EQ(clip.channels().size(), 1u);
    const Channel& ch = clip.channels()[0];
    EXPECT_EQ(ch.property, Property::kWeights);
    EXPECT_EQ(ch.joint, 0);  // the set
    EXPECT_EQ(ch.width, 2);
    EXPECT_EQ(ch.interpolation, source.interpolation);
    ASSERT_EQ(ch.values.size(), source.values.size());
    EXPECT_TRUE(
        bits_equal(ch.values.data(), source.values.data(), static_cast<int>(source.values.size())));
    ASSERT_EQ(ch.times.size(), source.times.size());
    EXPECT_TRUE(
        bits_equal(ch.times.data(), source.times.data(), static_cast<int>(source.times.size())));
    EXPECT_EQ(clip.duration(), source.times.back());
  }
}

TEST(ImportGltfMorph, WeightsChannelOnANodeOutsideTheSceneIsSkippedWithAWarning) {
  GltfWriter w;
  w.mesh({{"primitives", {{{"attributes", triangle(w)}}}}});
  w.node({{"name", "face"}, {"mesh", 0}});
  w.node({{"name", "elsewhere"}, {"mesh", 0}});
  w.scene({0});
  GltfDocument doc = w.read();
  add_targets(doc, 0);
  add_weights_animation(doc, 1, "Lost", Interpolation::kLinear, {0, 1}, {0, 0, 1, 1});
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_TRUE(has_issue(model, "ANIMATION_CHANNEL_OUTSIDE_RIG", "/animations/0/channels/0", false));
  EXPECT_TRUE(has_issue(model, "ANIMATION_EMPTY", "/animations/0", false));
  EXPECT_EQ(model.rig->rig.clip_count(), 0);
}

TEST(ImportGltfMorph, SeveralNodesInstancingOneMeshGetASetEach) {
  GltfWriter w;
  w.mesh({{"primitives", {{{"attributes", triangle(w)}}}}});
  w.node({{"name", "left"}, {"mesh", 0}});
  w.node({{"mesh", 0}, {"translation", {3, 0, 0}}});
  w.scene({0, 1});
  GltfDocument doc = w.read();
  add_targets(doc, 0);
  doc.nodes[1].weights = {1, 0};
  add_weights_animation(doc, 1, "Right", Interpolation::kLinear, {0, 1}, {0, 0, 1, 1});
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const std::span<const MorphSet> sets = model.rig->rig.morph_sets();
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].name, "left");
  EXPECT_EQ(sets[1].name, "node_1");
  EXPECT_EQ(sets[0].default_weights, (std::vector<float>{0.25f, 0.75f}));
  EXPECT_EQ(sets[1].default_weights, (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(sets[1].first, 2u);
  EXPECT_EQ(model.rig->morph_source_nodes, (std::vector<int>{0, 1}));
  ASSERT_EQ(model.mesh.parts.size(), 2u);
  EXPECT_EQ(model.mesh.parts[0].morph_set, 0);
  EXPECT_EQ(model.mesh.parts[1].morph_set, 1);
  EXPECT_EQ(model.rig->rig.clips()[0].channels()[0].joint, 1);
  // A bare target name in both sets is ambiguous; qualified, each is found.
  EXPECT_FALSE(model.rig->rig.find_morph_target("smile").has_value());
  EXPECT_EQ(model.rig->rig.find_morph_target("node_1/smile").value(), 2u);
}

TEST(ImportGltfMorph, DeltasOfAStaticPartMoveWithItsWorldMatrix) {
  // A skin rig (one joint) and a morphing node outside it: the node's part is baked into
  // model space by a rotation, a non-uniform scale and a translation.
  GltfWriter w;
  json skinned = triangle(w);
  const std::vector<uint16_t> joints(12, 0);
  skinned["JOINTS_0"] = w.u16s(joints, "VEC4");
  skinned["WEIGHTS_0"] = w.vec4s({{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}});
  w.mesh({{"primitives", {{{"attributes", skinned}}}}});
  w.mesh({{"primitives", {{{"attributes", triangle(w)}}}}});
  w.skin({{"joints", {0}}});
  w.node({{"name", "j0"}});
  w.node({{"mesh", 0}, {"skin", 0}});
  const float s = std::sqrt(0.5f);
  w.node({{"name", "face"},
          {"mesh", 1},
          {"translation", {1, 2, 3}},
          {"rotation", {0, 0, s, s}},
          {"scale", {2, 0.5, 3}}});
  w.scene({0, 1, 2});
  GltfDocument doc = w.read();
  add_targets(doc, 1);
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  ASSERT_EQ(model.mesh.parts.size(), 2u);
  const CookedPart& part = model.mesh.parts[1];
  ASSERT_TRUE(part.joints.empty());
  EXPECT_EQ(part.joint, -1);
  EXPECT_EQ(part.morph_set, 0);
  EXPECT_EQ(model.rig->rig.morph_sets()[0].joint, -1);  // a skin rig
  const json scene_json = w.doc;
  const DMat world = json_local(scene_json["nodes"][2]);
  const GltfPrimitive& prim = doc.meshes[1].primitives[0];
  // Morphing then placing (the file's rule) equals placing then morphing (the pack's).
  for (const double w0 : {0.0, 1.0, -0.7}) {
    for (const double w1 : {0.0, 0.3, 2.0}) {
      for (size_t v = 0; v < 3; ++v) {
        const std::string at = "vertex " + std::to_string(v);
        D3 file = add_scaled(add_scaled(to_d3(prim.positions[v]), w0, prim.targets[0].positions[v]),
                             w1, prim.targets[1].positions[v]);
        file = dpoint(world, {static_cast<float>(file[0]), static_cast<float>(file[1]),
                              static_cast<float>(file[2])});
        const D3 pack =
            add_scaled(add_scaled(to_d3(part.positions[v]), w0, part.morph_targets[0].positions[v]),
                       w1, part.morph_targets[1].positions[v]);
        expect_near3(pack, file, 1e-5, at + " position");
        // Normals: renormalised after the morph, as the runtime does.
        const D3 file_n = normalized(inverse_transpose(
            world, add_scaled(to_d3(prim.normals[v]), w0, prim.targets[0].normals[v])));
        const D3 pack_n =
            normalized(add_scaled(to_d3(part.normals[v]), w0, part.morph_targets[0].normals[v]));
        expect_near3(pack_n, file_n, 1e-5, at + " normal");
        const Vec4 t = prim.tangents[v];
        const D3 file_t =
            normalized(linear(world, add_scaled({t.x, t.y, t.z}, w0, prim.targets[0].tangents[v])));
        const Vec4 pt = part.tangents[v];
        const D3 pack_t =
            normalized(add_scaled({pt.x, pt.y, pt.z}, w0, part.morph_targets[0].tangents[v]));
        expect_near3(pack_t, file_t, 1e-5, at + " tangent");
      }
    }
  }
}

TEST(ImportGltfMorph, UnweldedPartDeltasFollowItsSourceVertices) {
  GltfWriter w;
  const std::vector<uint16_t> indices = {0, 1, 2, 2, 1, 3};
  w.mesh({{"primitives",
           {{{"attributes",
              {{"POSITION", w.vec3s({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, true)}}},
             {"indices", w.u16s(indices, "SCALAR")}}}}});
  w.node({{"name", "flat"}, {"mesh", 0}});
  w.scene({0});
  GltfDocument doc = w.read();
  add_targets(doc, 0);
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const CookedPart& part = model.mesh.parts[0];
  ASSERT_TRUE(part.normals_generated);
  ASSERT_EQ(part.positions.size(), 6u);
  const GltfPrimitive& prim = doc.meshes[0].primitives[0];
  for (size_t t = 0; t < 2; ++t) {
    ASSERT_EQ(part.morph_targets[t].positions.size(), 6u);
    EXPECT_TRUE(part.morph_targets[t].normals.empty());
    for (size_t v = 0; v < 6; ++v) {
      const Vec3 want = prim.targets[t].positions[part.source_vertices[v]];
      EXPECT_TRUE(bits_equal(&part.morph_targets[t].positions[v].x, &want.x, 3)) << t << " " << v;
    }
  }
}

TEST(ImportGltfMorph, DuplicateTargetNamesAreSuffixedWithAWarning) {
  GltfWriter w;
  w.mesh({{"primitives", {{{"attributes", triangle(w)}}}}});
  w.node({{"mesh", 0}});
  w.node({{"mesh", 0}});
  w.scene({0, 1});
  GltfDocument doc = w.read();
  add_targets(doc, 0);
  doc.meshes[0].target_names = {"blink", "blink"};
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_EQ(model.rig->rig.morph_sets()[0].target_names,
            (std::vector<std::string>{"blink", "blink_1"}));
  EXPECT_TRUE(
      has_issue(model, "MORPH_TARGET_NAME_DUPLICATE", "/meshes/0/extras/targetNames/1", false));
  EXPECT_EQ(count_code(model, "MORPH_TARGET_NAME_DUPLICATE"), 1);  // once per mesh
}

TEST(ImportGltfMorph, DefaultWeightOutOfRangeIsAnError) {
  GltfWriter w;
  w.mesh({{"primitives", {{{"attributes", triangle(w)}}}}});
  w.node({{"mesh", 0}});
  w.scene({0});
  GltfDocument doc = w.read();
  add_targets(doc, 0);
  doc.nodes[0].weights = {0.0f, 1e4f};
  const ImportedModel model = import_doc(doc);
  EXPECT_FALSE(model.ok());
  EXPECT_TRUE(has_issue(model, "MORPH_WEIGHT_OUT_OF_RANGE", "/nodes/0/weights/1", true))
      << describe(model.issues);
}

TEST(ImportGltfMorph, MoreTargetsThanTheRuntimeTakesIsAnError) {
  GltfWriter w;
  w.mesh({{"primitives", {{{"attributes", triangle(w)}}}}});
  w.node({{"mesh", 0}});
  w.scene({0});
  GltfDocument doc = w.read();
  GltfMesh& mesh = doc.meshes[0];
  mesh.morph_targets = static_cast<int>(kMaxMorphTargets) + 1;
  mesh.weights.assign(kMaxMorphTargets + 1, 0.0f);
  mesh.primitives[0].targets.assign(kMaxMorphTargets + 1,
                                    GltfMorphTarget{std::vector<Vec3>(3, Vec3{0, 0, 1}), {}, {}});
  const ImportedModel model = import_doc(doc);
  EXPECT_FALSE(model.ok());
  EXPECT_TRUE(has_issue(model, "MORPH_TOO_MANY_TARGETS", "/meshes/0", true))
      << describe(model.issues);
}

// ---------------------------------------------------------------------------------------
// Eight influences

// A chain of eight joints j0..j7 (each 1 up the y axis from its parent), a skin listing
// them in reverse (skin index k is node 7 - k), inverse binds the inverses of their rest
// world matrices, and a skinned triangle whose vertex v weighs the eight skin joints by
// weights[v] (four from JOINTS_0/WEIGHTS_0, four given to the document as the reader
// delivers JOINTS_1/WEIGHTS_1).
GltfDocument eight_influence_doc(const std::vector<std::array<float, 8>>& weights) {
  GltfWriter w;
  json a = triangle(w);
  std::vector<uint16_t> j0;
  std::vector<Vec4> w0;
  for (size_t v = 0; v < 3; ++v) {
    for (uint16_t k = 0; k < 4; ++k) j0.push_back(k);
    w0.push_back({weights[v][0], weights[v][1], weights[v][2], weights[v][3]});
  }
  a["JOINTS_0"] = w.u16s(j0, "VEC4");
  a["WEIGHTS_0"] = w.vec4s(w0);
  w.mesh({{"primitives", {{{"attributes", a}}}}});
  std::vector<Mat4> binds;
  for (int k = 0; k < 8; ++k) {
    Mat4 ibm;
    ibm.m[13] = -static_cast<float>(8 - k);  // node 7 - k sits at y = 8 - k
    binds.push_back(ibm);
  }
  w.skin({{"joints", {7, 6, 5, 4, 3, 2, 1, 0}}, {"inverseBindMatrices", w.mat4s(binds)}});
  for (int n = 0; n < 8; ++n) {
    json node = {{"name", "j" + std::to_string(n)}, {"translation", {0, 1, 0}}};
    if (n < 7) node["children"] = {n + 1};
    w.node(std::move(node));
  }
  w.node({{"name", "skinned"}, {"mesh", 0}, {"skin", 0}});
  w.scene({0, 8});
  GltfDocument doc = w.read();
  GltfPrimitive& prim = doc.meshes[0].primitives[0];
  prim.joint_sets = 2;
  for (size_t v = 0; v < 3; ++v) {
    prim.joints1.push_back({4, 5, 6, 7});
    prim.weights1.push_back({weights[v][4], weights[v][5], weights[v][6], weights[v][7]});
  }
  return doc;
}

// The eight (rig joint, weight) pairs of vertex v.
std::vector<std::pair<int, float>> influences(const CookedPart& part, size_t v) {
  std::vector<std::pair<int, float>> out;
  const Vec4 a = part.weights[v];
  for (int k = 0; k < 4; ++k) out.push_back({part.joints[v].j[k], (&a.x)[k]});
  if (!part.weights1.empty()) {
    const Vec4 b = part.weights1[v];
    for (int k = 0; k < 4; ++k) out.push_back({part.joints1[v].j[k], (&b.x)[k]});
  }
  return out;
}

TEST(ImportGltfSkin, EightInfluencesKeepBothSetsRemappedAndNormalisedTogether) {
  const std::vector<std::array<float, 8>> weights = {
      {1, 1, 1, 1, 1, 1, 1, 1}, {0.5f, 0, 0, 0, 0, 0, 0, 0.5f}, {0, 0, 0, 0, 0.2f, 0.2f, 0, 0}};
  const GltfDocument doc = eight_influence_doc(weights);
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_EQ(count_code(model, "SKIN_INFLUENCES_DROPPED"), 0);
  const CookedPart& part = model.mesh.parts[0];
  ASSERT_EQ(part.joints1.size(), 3u);
  ASSERT_EQ(part.weights1.size(), 3u);
  const std::vector<int>& nodes = model.rig->joint_source_nodes;
  for (size_t v = 0; v < 3; ++v) {
    double sum = 0, expected_sum = 0;
    for (float x : weights[v]) expected_sum += x;
    const auto got = influences(part, v);
    for (size_t k = 0; k < 8; ++k) {
      sum += got[k].second;
      EXPECT_NEAR(got[k].second, weights[v][k] / expected_sum, 1e-7) << v << " " << k;
      // Skin index k is node 7 - k; the rig joint names that node.
      if (got[k].second != 0.0f) {
        EXPECT_EQ(nodes[static_cast<size_t>(got[k].first)], static_cast<int>(7 - k));
      }
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  // At rest every vertex lies where the file's own skin puts it (here: where it is, each
  // joint's world x inverse bind being the identity), through the rig's palette.
  Animator animator = std::move(*Animator::create(&model.rig->rig, 60));
  animator.evaluate(0);
  for (size_t v = 0; v < 3; ++v) {
    D3 placed{0, 0, 0};
    for (const auto& [joint, weight] : influences(part, v)) {
      if (weight == 0.0f) continue;
      const D3 p =
          dpoint(dmat_of(animator.palette()[static_cast<size_t>(joint)]), part.positions[v]);
      for (size_t c = 0; c < 3; ++c) placed[c] += weight * p[c];
    }
    expect_near3(placed, to_d3(doc.meshes[0].primitives[0].positions[v]), 1e-5,
                 "vertex " + std::to_string(v));
  }
}

TEST(ImportGltfSkin, SecondSetWeighingZeroIsDroppedAndTheFirstIsAsWithFour) {
  const std::vector<std::array<float, 8>> weights = {{0.5f, 0.5f, 0, 0, 0, 0, 0, 0},
                                                     {1, 0, 0, 0, 0, 0, 0, 0},
                                                     {0.2f, 0.3f, 0.1f, 0.1f, 0, 0, 0, 0}};
  GltfDocument eight = eight_influence_doc(weights);
  GltfDocument four = eight;
  four.meshes[0].primitives[0].joints1.clear();
  four.meshes[0].primitives[0].weights1.clear();
  four.meshes[0].primitives[0].joint_sets = 1;
  const ImportedModel a = import_doc(eight), b = import_doc(four);
  ASSERT_TRUE(a.ok() && b.ok()) << describe(a.issues);
  const CookedPart& p = a.mesh.parts[0];
  const CookedPart& q = b.mesh.parts[0];
  EXPECT_TRUE(p.joints1.empty());
  EXPECT_TRUE(p.weights1.empty());
  EXPECT_TRUE(bits_equal(&p.weights[0].x, &q.weights[0].x, 12));
  for (size_t v = 0; v < 3; ++v) {
    for (int k = 0; k < 4; ++k) EXPECT_EQ(p.joints[v].j[k], q.joints[v].j[k]);
  }
}

TEST(ImportGltfSkin, MaxInfluencesFourKeepsTheFourLargestRenormalisedWithOneNote) {
  const std::vector<std::array<float, 8>> weights = {{8, 7, 6, 5, 4, 3, 2, 1},
                                                     {0.5f, 0, 0, 0, 0, 0, 0, 0.5f},
                                                     {0.1f, 0, 0, 0.2f, 0.3f, 0.4f, 0.05f, 0}};
  const GltfDocument doc = eight_influence_doc(weights);
  const ImportedModel model = import_doc(doc, ImportOptions{4});
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  ASSERT_EQ(count_code(model, "INFLUENCES_REDUCED"), 1);
  const auto note =
      std::find_if(model.issues.begin(), model.issues.end(),
                   [](const ImportIssue& i) { return i.code == "INFLUENCES_REDUCED"; });
  EXPECT_FALSE(note->error);
  EXPECT_TRUE(note->note);
  EXPECT_EQ(note->pointer, "/meshes/0/primitives/0/attributes");
  // Vertices 0 and 2 lose weights (vertex 1 has two); the largest dropped is vertex 0's
  // fifth, 4 / 36.
  EXPECT_NE(note->message.find("2 vertices"), std::string::npos) << note->message;
  char largest[32];
  std::snprintf(largest, sizeof largest, "%.6g", static_cast<double>(4.0f / 36.0f));
  EXPECT_NE(note->message.find(largest), std::string::npos) << note->message;
  const CookedPart& part = model.mesh.parts[0];
  EXPECT_TRUE(part.joints1.empty());
  EXPECT_TRUE(part.weights1.empty());
  const std::vector<int>& nodes = model.rig->joint_source_nodes;
  // Expected: the four largest skin slots, in slot order, renormalised.
  const std::vector<std::vector<size_t>> kept = {{0, 1, 2, 3}, {0, 7}, {3, 4, 5, 0}};
  for (size_t v = 0; v < 3; ++v) {
    std::vector<size_t> slots = kept[v];
    std::sort(slots.begin(), slots.end());
    double sum = 0;
    for (size_t k : slots) sum += weights[v][k];
    const auto got = influences(part, v);
    for (size_t i = 0; i < 4; ++i) {
      if (i < slots.size()) {
        EXPECT_NEAR(got[i].second, weights[v][slots[i]] / sum, 1e-6) << v << " " << i;
        EXPECT_EQ(nodes[static_cast<size_t>(got[i].first)], static_cast<int>(7 - slots[i]));
      } else {
        EXPECT_EQ(got[i].second, 0.0f);
      }
    }
  }
}

TEST(ImportGltfSkin, MaxInfluencesFourLeavesAFourInfluenceFileAlone) {
  const std::vector<std::array<float, 8>> weights = {{0.5f, 0.5f, 0, 0, 0, 0, 0, 0},
                                                     {1, 0, 0, 0, 0, 0, 0, 0},
                                                     {0.2f, 0.3f, 0.1f, 0.4f, 0, 0, 0, 0}};
  GltfDocument doc = eight_influence_doc(weights);
  const ImportedModel all = import_doc(doc);
  const ImportedModel four = import_doc(doc, ImportOptions{4});
  ASSERT_TRUE(all.ok() && four.ok());
  EXPECT_EQ(count_code(four, "INFLUENCES_REDUCED"), 0);
  EXPECT_TRUE(bits_equal(&all.mesh.parts[0].weights[0].x, &four.mesh.parts[0].weights[0].x, 12));
}

// ---------------------------------------------------------------------------------------
// Several skins

// Two joints j0 (y = 1) and its child j1 (y = 2); skin 0 lists {j0, j1} with the inverses
// of their rest world matrices; a triangle mesh skinned to skin joint 0 (vertex 0), 1
// (vertex 2) and half and half (vertex 1), on node "a" with skin 0.
GltfWriter skins_writer() {
  GltfWriter w;
  json a = triangle(w);
  a["JOINTS_0"] = w.u16s(std::vector<uint16_t>{0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0}, "VEC4");
  a["WEIGHTS_0"] = w.vec4s({{1, 0, 0, 0}, {0.5f, 0.5f, 0, 0}, {1, 0, 0, 0}});
  w.mesh({{"primitives", {{{"attributes", a}}}}});
  Mat4 ibm0, ibm1;
  ibm0.m[13] = -1;
  ibm1.m[13] = -2;
  w.skin({{"joints", {0, 1}}, {"inverseBindMatrices", w.mat4s({ibm0, ibm1})}});
  w.node({{"name", "j0"}, {"translation", {0, 1, 0}}, {"children", {1}}});
  w.node({{"name", "j1"}, {"translation", {0, 1, 0}}});
  w.node({{"name", "a"}, {"mesh", 0}, {"skin", 0}});
  return w;
}

// Where vertex v of primitive `prim` lies at rest by skin s of `w`'s JSON, in double.
D3 file_skinned(const GltfWriter& w, const GltfDocument& doc, int s, size_t v) {
  const JsonScene scene = json_scene(w.doc);
  const GltfSkin& skin = doc.skins[static_cast<size_t>(s)];
  const GltfPrimitive& prim = doc.meshes[0].primitives[0];
  D3 out{0, 0, 0};
  for (size_t k = 0; k < 4; ++k) {
    const double weight = prim.weights[v][k];
    if (weight == 0.0) continue;
    const size_t joint = prim.joints[v][k];
    const DMat m =
        scene.world[static_cast<size_t>(skin.joints[joint])] * dmat_of(skin.inverse_binds[joint]);
    const D3 p = dpoint(m, prim.positions[v]);
    for (size_t c = 0; c < 3; ++c) out[c] += weight * p[c];
  }
  return out;
}

D3 pack_skinned(const ImportedModel& model, const CookedPart& part, size_t v) {
  Animator animator = std::move(*Animator::create(&model.rig->rig, 60));
  animator.evaluate(0);
  D3 out{0, 0, 0};
  for (const auto& [joint, weight] : influences(part, v)) {
    if (weight == 0.0f) continue;
    const D3 p = dpoint(dmat_of(animator.palette()[static_cast<size_t>(joint)]), part.positions[v]);
    for (size_t c = 0; c < 3; ++c) out[c] += weight * p[c];
  }
  return out;
}

TEST(ImportGltfSkin, TwoSkinsSharingJointsAndBindsShareTheirRigJoints) {
  GltfWriter w = skins_writer();
  // Skin 1 lists the same joints the other way round, with the same binds.
  Mat4 ibm0, ibm1;
  ibm0.m[13] = -1;
  ibm1.m[13] = -2;
  w.skin({{"joints", {1, 0}}, {"inverseBindMatrices", w.mat4s({ibm1, ibm0})}});
  w.node({{"name", "b"}, {"mesh", 0}, {"skin", 1}});
  w.scene({0, 2, 3});
  const GltfDocument doc = w.read();
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_EQ(count_code(model, "SKIN_HELPER_JOINT"), 0);
  ASSERT_EQ(model.rig->rig.skeleton().joint_count(), 2);
  ASSERT_EQ(model.mesh.parts.size(), 2u);
  // Node b's vertex 0 weighs its skin's joint 0: node j1, rig joint 1.
  EXPECT_EQ(model.mesh.parts[0].joints[0].j[0], 0);
  EXPECT_EQ(model.mesh.parts[1].joints[0].j[0], 1);
  for (size_t v = 0; v < 3; ++v) {
    expect_near3(pack_skinned(model, model.mesh.parts[0], v), file_skinned(w, doc, 0, v), 1e-5,
                 "a " + std::to_string(v));
    expect_near3(pack_skinned(model, model.mesh.parts[1], v), file_skinned(w, doc, 1, v), 1e-5,
                 "b " + std::to_string(v));
  }
}

TEST(ImportGltfSkin, TwoSkinsWithDifferentBindsGetHelperJointsAndStayExact) {
  GltfWriter w = skins_writer();
  // Skin 1: the same joints with other binds (the mesh bound 3 units to the side).
  Mat4 ibm0, ibm1;
  ibm0.m[12] = ibm1.m[12] = 3;
  ibm0.m[13] = -1;
  ibm1.m[13] = -2;
  w.skin({{"joints", {0, 1}}, {"inverseBindMatrices", w.mat4s({ibm0, ibm1})}});
  w.node({{"name", "b"}, {"mesh", 0}, {"skin", 1}});
  w.scene({0, 2, 3});
  const GltfDocument doc = w.read();
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_TRUE(has_issue(model, "SKIN_HELPER_JOINT", "/skins/1", false));
  const Skeleton& skeleton = model.rig->rig.skeleton();
  ASSERT_EQ(skeleton.joint_count(), 4);
  EXPECT_EQ(skeleton.joints()[2].name, "j0#skin1");
  EXPECT_EQ(skeleton.joints()[3].name, "j1#skin1");
  EXPECT_EQ(skeleton.parents()[2], 0);
  EXPECT_EQ(skeleton.parents()[3], 1);
  EXPECT_EQ(model.rig->joint_source_nodes, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_TRUE(bits_equal(skeleton.inverse_binds()[2].m, doc.skins[1].inverse_binds[0].m, 16));
  const Trs identity;
  EXPECT_TRUE(bits_equal(&skeleton.rest_pose()[3].translation.x, &identity.translation.x, 10));
  ASSERT_EQ(model.mesh.parts.size(), 2u);
  for (size_t v = 0; v < 3; ++v) {
    expect_near3(pack_skinned(model, model.mesh.parts[0], v), file_skinned(w, doc, 0, v), 1e-5,
                 "a " + std::to_string(v));
    expect_near3(pack_skinned(model, model.mesh.parts[1], v), file_skinned(w, doc, 1, v), 1e-5,
                 "b " + std::to_string(v));
  }
}

}  // namespace
}  // namespace animpack
