// Tests of the glTF import stage (animpack/compiler/import_gltf.h) on files written here:
// - the runtime fixture (tests/fixtures) written as a skinned .glb and as a base64 .gltf
//   imports back to the same rig, clips and column, posing and skinning bit for bit;
// - a skin listing children before parents is reordered and its vertex joints remapped;
// - one small file per rule of the header (one block per invalid input, STYLE T1).

#include <gtest/gtest.h>

#include <set>

#include "animpack/animator.h"
#include "animpack/compiler/import_gltf.h"
#include "animpack/skinning.h"
#include "fixtures/fixture.h"
#include "import_support.h"

namespace animpack {
namespace {

using namespace import_test;  // NOLINT(build/namespaces): test helpers

// ---------------------------------------------------------------------------------------
// The fixture as glTF

// Writes fixture::make_rig() + fixture::make_column(): nodes 0-3 are the joints (a chain),
// node 4 the column with skin 0, one animation per clip with one sampler per channel.
// `skin_order` is the skin's joints array (node indices); JOINTS_0 indexes into it.
GltfWriter fixture_writer(const std::vector<int>& skin_order = {0, 1, 2, 3}) {
  const Rig rig = fixture::make_rig();
  const Skeleton& skeleton = rig.skeleton();
  const fixture::Column col = fixture::make_column();
  GltfWriter w;
  for (int j = 0; j < skeleton.joint_count(); ++j) {
    const Joint& joint = skeleton.joints()[static_cast<size_t>(j)];
    const Trs& t = joint.rest;
    json n = {{"name", joint.name},
              {"translation", {t.translation.x, t.translation.y, t.translation.z}},
              {"rotation", {t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w}},
              {"scale", {t.scale.x, t.scale.y, t.scale.z}}};
    if (j + 1 < skeleton.joint_count()) n["children"] = {j + 1};
    w.node(std::move(n));
  }
  std::vector<Mat4> binds;
  std::vector<uint16_t> skin_index(skin_order.size());
  for (size_t k = 0; k < skin_order.size(); ++k) {
    binds.push_back(skeleton.inverse_binds()[static_cast<size_t>(skin_order[k])]);
    skin_index[static_cast<size_t>(skin_order[k])] = static_cast<uint16_t>(k);
  }
  std::vector<uint16_t> joints;
  for (const JointIndices& ji : col.joints) {
    for (uint16_t j : ji.j) joints.push_back(skin_index[j]);
  }
  const json attributes = {{"POSITION", w.vec3s(col.positions, true)},
                           {"NORMAL", w.vec3s(col.normals, false)},
                           {"TANGENT", w.vec4s(col.tangents)},
                           {"JOINTS_0", w.u16s(joints, "VEC4")},
                           {"WEIGHTS_0", w.vec4s(col.weights)}};
  w.mesh({{"name", "column"},
          {"primitives", {{{"attributes", attributes}, {"indices", w.u32s(col.indices)}}}}});
  w.skin({{"name", "fixture"},
          {"joints", skin_order},
          {"skeleton", 0},
          {"inverseBindMatrices", w.mat4s(binds)}});
  const int column = w.node({{"name", "column"}, {"mesh", 0}, {"skin", 0}});
  for (const Clip& clip : rig.clips()) {
    std::vector<GltfWriter::Track> tracks;
    for (const Channel& ch : clip.channels()) {
      tracks.push_back({ch.joint, property_name(ch.property), interpolation_name(ch.interpolation),
                        std::vector<float>(ch.times.begin(), ch.times.end()),
                        std::vector<float>(ch.values.begin(), ch.values.end())});
    }
    w.animation(clip.name().c_str(), tracks);
  }
  w.scene({0, column});
  return w;
}

ImportedModel import_doc(const GltfDocument& doc) {
  EXPECT_TRUE(doc.ok()) << describe(doc);
  return import_gltf(doc, "model", "model.glb");
}

// CPU-skinned streams of a part.
struct Skinned {
  std::vector<Vec3> positions, normals;
  std::vector<Vec4> tangents;
};

Skinned skin_part(const CookedPart& part, std::span<const Mat4> palette) {
  Skinned out{std::vector<Vec3>(part.positions.size()), std::vector<Vec3>(part.normals.size()),
              std::vector<Vec4>(part.tangents.size())};
  const SkinInput in{part.positions, part.normals, part.tangents, part.joints, part.weights};
  const Result<void> r = skin(in, palette, {out.positions, out.normals, out.tangents});
  EXPECT_TRUE(r.has_value());
  return out;
}

std::vector<Vec3> skinned_positions(const CookedPart& part, std::span<const Mat4> palette) {
  return skin_part(part, palette).positions;
}

bool same_vec3s(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  return a.size() == b.size() && bits_equal(&a[0].x, &b[0].x, static_cast<int>(a.size() * 3));
}

TEST(ImportGltfFixture, SkinnedFileRoundTripsToTheFixtureRigBitForBit) {
  const Rig expected = fixture::make_rig();
  const fixture::Column col = fixture::make_column();
  const GltfWriter writer = fixture_writer();
  for (const bool as_glb : {true, false}) {
    SCOPED_TRACE(as_glb ? "glb" : "gltf with a base64 data URI");
    const GltfDocument doc = writer.read(as_glb);
    const ImportedModel model = import_doc(doc);
    ASSERT_TRUE(model.ok()) << describe(model.issues);
    EXPECT_TRUE(model.issues.empty()) << describe(model.issues);
    ASSERT_TRUE(model.rig.has_value());
    const CookedRig& cooked = *model.rig;
    EXPECT_FALSE(cooked.node_rig);
    EXPECT_EQ(cooked.joint_source_nodes, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(cooked.clip_source_animations, (std::vector<int>{0, 1, 2, 3}));

    // Joints: names, parents, rest, inverse binds, root.
    const Skeleton& a = cooked.rig.skeleton();
    const Skeleton& b = expected.skeleton();
    ASSERT_EQ(a.joint_count(), b.joint_count());
    EXPECT_TRUE(bits_equal(a.root().m, b.root().m, 16));
    for (size_t j = 0; j < static_cast<size_t>(a.joint_count()); ++j) {
      EXPECT_EQ(a.joints()[j].name, b.joints()[j].name);
      EXPECT_EQ(a.parents()[j], b.parents()[j]);
      EXPECT_TRUE(bits_equal(&a.rest_pose()[j].translation.x, &b.rest_pose()[j].translation.x, 10));
      EXPECT_TRUE(bits_equal(a.inverse_binds()[j].m, b.inverse_binds()[j].m, 16)) << j;
    }

    // Clips: names, channels, interpolations, times and values (tangents included).
    ASSERT_EQ(cooked.rig.clip_count(), expected.clip_count());
    for (size_t c = 0; c < expected.clips().size(); ++c) {
      const Clip& x = cooked.rig.clips()[c];
      const Clip& y = expected.clips()[c];
      EXPECT_EQ(x.name(), y.name());
      EXPECT_EQ(x.duration(), y.duration());
      ASSERT_EQ(x.channels().size(), y.channels().size());
      for (size_t k = 0; k < x.channels().size(); ++k) {
        const Channel& p = x.channels()[k];
        const Channel& q = y.channels()[k];
        EXPECT_EQ(p.joint, q.joint);
        EXPECT_EQ(p.property, q.property);
        EXPECT_EQ(p.interpolation, q.interpolation);
        ASSERT_EQ(p.times.size(), q.times.size());
        ASSERT_EQ(p.values.size(), q.values.size());
        EXPECT_TRUE(bits_equal(p.times.data(), q.times.data(), static_cast<int>(p.times.size())));
        EXPECT_TRUE(
            bits_equal(p.values.data(), q.values.data(), static_cast<int>(p.values.size())));
      }
    }

    // The column: one part, unchanged streams.
    ASSERT_EQ(model.mesh.parts.size(), 1u);
    const CookedPart& part = model.mesh.parts[0];
    EXPECT_EQ(part.source_node, 4);
    EXPECT_EQ(part.source_mesh, 0);
    EXPECT_EQ(part.source_primitive, 0);
    EXPECT_EQ(part.joint, -1);
    EXPECT_TRUE(same_vec3s(part.positions, col.positions));
    EXPECT_TRUE(same_vec3s(part.normals, col.normals));
    EXPECT_TRUE(bits_equal(&part.tangents[0].x, &col.tangents[0].x,
                           static_cast<int>(col.tangents.size() * 4)));
    EXPECT_TRUE(bits_equal(&part.weights[0].x, &col.weights[0].x,
                           static_cast<int>(col.weights.size() * 4)));
    ASSERT_EQ(part.joints.size(), col.joints.size());
    for (size_t v = 0; v < col.joints.size(); ++v) {
      for (int k = 0; k < 4; ++k) ASSERT_EQ(part.joints[v].j[k], col.joints[v].j[k]) << v;
    }
    EXPECT_EQ(part.indices, col.indices);
    for (uint32_t v = 0; v < part.source_vertices.size(); ++v) {
      ASSERT_EQ(part.source_vertices[v], v);
    }
    EXPECT_EQ(model.mesh.name, "model");
    EXPECT_EQ(model.mesh.source_file, "model.glb");
    EXPECT_EQ(model.mesh.rig, -1);

    // Posing and skinning: bit-identical palettes and vertices over 120 ticks of each clip.
    CookedPart fixture_part;
    fixture_part.positions = col.positions;
    fixture_part.normals = col.normals;
    fixture_part.tangents = col.tangents;
    fixture_part.joints = col.joints;
    fixture_part.weights = col.weights;
    Animator mine = std::move(*Animator::create(&cooked.rig, 60));
    Animator theirs = std::move(*Animator::create(&expected, 60));
    for (uint16_t clip = 0; clip < expected.clip_count(); ++clip) {
      ASSERT_TRUE(mine.play(clip, 0));
      ASSERT_TRUE(theirs.play(clip, 0));
      for (int64_t t = 0; t < 120; ++t) {
        mine.evaluate(t);
        theirs.evaluate(t);
        for (size_t j = 0; j < 4; ++j) {
          ASSERT_TRUE(bits_equal(mine.palette()[j].m, theirs.palette()[j].m, 16))
              << "clip " << clip << " tick " << t << " joint " << j;
        }
        const Skinned x = skin_part(part, mine.palette());
        const Skinned y = skin_part(fixture_part, theirs.palette());
        ASSERT_TRUE(same_vec3s(x.positions, y.positions)) << "clip " << clip << " tick " << t;
        ASSERT_TRUE(same_vec3s(x.normals, y.normals)) << "clip " << clip << " tick " << t;
        ASSERT_TRUE(
            bits_equal(&x.tangents[0].x, &y.tangents[0].x, static_cast<int>(x.tangents.size() * 4)))
            << "clip " << clip << " tick " << t;
      }
    }
  }
}

TEST(ImportGltfFixture, ChildrenFirstSkinIsReorderedParentsFirstAndVertexJointsRemapped) {
  const ImportedModel ordered = import_doc(fixture_writer({0, 1, 2, 3}).read());
  const GltfDocument doc = fixture_writer({3, 2, 1, 0}).read(false);
  ASSERT_EQ(doc.skins[0].joints, (std::vector<int>{3, 2, 1, 0}));
  EXPECT_EQ(doc.meshes[0].primitives[0].joints[0][0], 3);  // skin index of node 0
  const ImportedModel reversed = import_doc(doc);
  ASSERT_TRUE(ordered.ok() && reversed.ok()) << describe(reversed.issues);
  ASSERT_TRUE(reversed.rig.has_value());
  const Skeleton& a = reversed.rig->rig.skeleton();
  const Skeleton& b = ordered.rig->rig.skeleton();
  EXPECT_EQ(reversed.rig->joint_source_nodes, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(a.joint_count(), 4);
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(a.joints()[j].name, b.joints()[j].name);
    EXPECT_EQ(a.parents()[j], b.parents()[j]);
    EXPECT_TRUE(bits_equal(a.inverse_binds()[j].m, b.inverse_binds()[j].m, 16));
  }
  const CookedPart& pa = reversed.mesh.parts[0];
  const CookedPart& pb = ordered.mesh.parts[0];
  for (size_t v = 0; v < pa.joints.size(); ++v) {
    for (int k = 0; k < 4; ++k) ASSERT_EQ(pa.joints[v].j[k], pb.joints[v].j[k]) << v;
  }
  Animator x = std::move(*Animator::create(&reversed.rig->rig, 60));
  Animator y = std::move(*Animator::create(&ordered.rig->rig, 60));
  for (uint16_t clip = 0; clip < 4; ++clip) {
    ASSERT_TRUE(x.play(clip, 0));
    ASSERT_TRUE(y.play(clip, 0));
    for (int64_t t = 0; t < 120; t += 7) {
      x.evaluate(t);
      y.evaluate(t);
      ASSERT_TRUE(
          same_vec3s(skinned_positions(pa, x.palette()), skinned_positions(pb, y.palette())))
          << "clip " << clip << " tick " << t;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Small files, one per rule

// One triangle in the xy plane, counter-clockwise seen from +z, normals +z, tangents +x.
json triangle_attributes(GltfWriter& w, Vec3 offset = {}) {
  std::vector<Vec3> p = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  for (Vec3& v : p) v = v + offset;
  return {{"POSITION", w.vec3s(p, true)},
          {"NORMAL", w.vec3s({{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}, false)},
          {"TANGENT", w.vec4s({{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, 1}})}};
}

// The same triangle skinned: vertex v to skin joints (j0[v], j1[v]) with weights (w0, w1).
json skinned_triangle_attributes(GltfWriter& w, const std::vector<uint16_t>& joints,
                                 const std::vector<Vec4>& weights) {
  json a = triangle_attributes(w);
  a["JOINTS_0"] = w.u16s(joints, "VEC4");
  a["WEIGHTS_0"] = w.vec4s(weights);
  return a;
}

int triangle_mesh(GltfWriter& w, Vec3 offset = {}) {
  return w.mesh({{"primitives", {{{"attributes", triangle_attributes(w, offset)}}}}});
}

// A two-joint skin (nodes "j0" at y=1 with child "j1" at y=1 more), its inverse binds the
// inverses of their rest world matrices, and a skinned triangle on node "skinned".
// Returns the writer with the scene [j0, skinned] set; `j0_parent` puts j0 under a node
// "offset" translated by (5, 0, 0) instead.
GltfWriter two_joint_skin(bool j0_parent = false) {
  GltfWriter w;
  const int mesh =
      w.mesh({{"primitives",
               {{{"attributes", skinned_triangle_attributes(
                                    w, {0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0},
                                    {{1, 0, 0, 0}, {0.5f, 0.5f, 0, 0}, {1, 0, 0, 0}})}}}}});
  Mat4 ibm0, ibm1;
  ibm0.m[13] = -1;
  ibm1.m[13] = -2;
  if (j0_parent) ibm0.m[12] = ibm1.m[12] = -5;
  w.skin({{"joints", {0, 1}}, {"inverseBindMatrices", w.mat4s({ibm0, ibm1})}});
  w.node({{"name", "j0"}, {"translation", {0, 1, 0}}, {"children", {1}}});
  w.node({{"name", "j1"}, {"translation", {0, 1, 0}}});
  const int skinned = w.node({{"name", "skinned"}, {"mesh", mesh}, {"skin", 0}});
  if (j0_parent) {
    const int offset = w.node({{"name", "offset"}, {"translation", {5, 0, 0}}, {"children", {0}}});
    w.scene({offset, skinned});
  } else {
    w.scene({0, skinned});
  }
  return w;
}

// The rest palette of a rig (an Animator with nothing playing).
std::vector<Mat4> rest_palette(const Rig& rig) {
  Animator a = std::move(*Animator::create(&rig, 60));
  a.evaluate(0);
  return std::vector<Mat4>(a.palette().begin(), a.palette().end());
}

void expect_near(Vec3 a, Vec3 b, float tolerance = 1e-5f) {
  EXPECT_NEAR(a.x, b.x, tolerance);
  EXPECT_NEAR(a.y, b.y, tolerance);
  EXPECT_NEAR(a.z, b.z, tolerance);
}

TEST(ImportGltfSkin, SkinsWithTheSameJointsAndBindsCountAsOne) {
  GltfWriter w = two_joint_skin();
  w.doc["skins"].push_back(w.doc["skins"][0]);
  const int second = w.node({{"name", "second"}, {"mesh", 0}, {"skin", 1}});
  w.scene({0, 2, second});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  ASSERT_TRUE(model.rig.has_value());
  EXPECT_EQ(model.rig->rig.skeleton().joint_count(), 2);
  EXPECT_EQ(model.mesh.parts.size(), 2u);
}

TEST(ImportGltfSkin, VertexWhoseWeightsSumToZeroIsAnError) {
  GltfWriter w;
  const int mesh = w.mesh({{"primitives",
                            {{{"attributes", skinned_triangle_attributes(
                                                 w, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                                                 {{1, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}})}}}}});
  w.skin({{"joints", {0}}});
  w.node({{"name", "j0"}});
  w.node({{"mesh", mesh}, {"skin", 0}});
  w.scene({0, 1});
  const ImportedModel model = import_doc(w.read());
  EXPECT_FALSE(model.ok());
  EXPECT_TRUE(has_issue(model, "SKIN_VERTEX_NO_WEIGHT",
                        "/meshes/0/primitives/0/attributes/WEIGHTS_0", true))
      << describe(model.issues);
}

TEST(ImportGltfSkin, WeightsAreNormalisedToSumToOne) {
  GltfWriter w;
  const int mesh =
      w.mesh({{"primitives",
               {{{"attributes", skinned_triangle_attributes(
                                    w, {0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0},
                                    {{1, 1, 0, 0}, {0.2f, 0.2f, 0, 0}, {0.5f, 0, 0, 0}})}}}}});
  w.skin({{"joints", {0, 1}}});
  w.node({{"name", "j0"}, {"children", {1}}});
  w.node({{"name", "j1"}});
  w.node({{"mesh", mesh}, {"skin", 0}});
  w.scene({0, 2});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const std::vector<Vec4>& weights = model.mesh.parts[0].weights;
  for (const Vec4& v : weights) EXPECT_NEAR(v.x + v.y + v.z + v.w, 1.0f, 1e-6f);
  EXPECT_FLOAT_EQ(weights[0].x, 0.5f);
  EXPECT_FLOAT_EQ(weights[1].y, 0.5f);
  EXPECT_FLOAT_EQ(weights[2].x, 1.0f);
}

TEST(ImportGltfSkin, SecondJointSetIsKeptAndTheEightWeightsNormalisedTogether) {
  // JOINTS_1/WEIGHTS_1 name the same accessors as JOINTS_0/WEIGHTS_0: every influence
  // twice, so each of the eight normalised weights is half the file's.
  const fs::path file = kCorpus / "gltf/SimpleSkin-ramses-variants/SimpleSkin-multi-joint-set.gltf";
  const GltfDocument doc = read_gltf(file);
  const ImportedModel model = import_gltf(doc, "skin", file.string());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_EQ(count_code(model, "SKIN_INFLUENCES_DROPPED"), 0) << describe(model.issues);
  const CookedPart& part = model.mesh.parts[0];
  ASSERT_EQ(part.weights1.size(), part.weights.size());
  ASSERT_EQ(part.joints1.size(), part.joints.size());
  for (size_t v = 0; v < part.weights.size(); ++v) {
    const Vec4 a = part.weights[v], b = part.weights1[v];
    EXPECT_NEAR(a.x + a.y + a.z + a.w + b.x + b.y + b.z + b.w, 1.0f, 1e-6f);
    EXPECT_TRUE(bits_equal(&a.x, &b.x, 4)) << v;
    for (int k = 0; k < 4; ++k) EXPECT_EQ(part.joints[v].j[k], part.joints1[v].j[k]);
  }
}

TEST(ImportGltfSkin, SkinnedNodeTransformIsIgnored) {
  GltfWriter w = two_joint_skin();
  w.doc["nodes"][2]["translation"] = {10, 20, 30};
  const ImportedModel moved = import_doc(w.read());
  const ImportedModel plain = import_doc(two_joint_skin().read());
  ASSERT_TRUE(moved.ok() && plain.ok());
  EXPECT_TRUE(same_vec3s(moved.mesh.parts[0].positions, plain.mesh.parts[0].positions));
}

TEST(ImportGltfSkin, RootMatrixIsTheWorldOfTheRootJointsParent) {
  const ImportedModel model = import_doc(two_joint_skin(true).read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const Skeleton& s = model.rig->rig.skeleton();
  ASSERT_EQ(s.joint_count(), 2);
  EXPECT_EQ(model.rig->joint_source_nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(s.root().m[12], 5.0f);
  // The rest palette is the identity: world(joint) * IBM with the offset folded in.
  for (const Mat4& m : rest_palette(model.rig->rig)) {
    EXPECT_TRUE(bits_equal(m.m, Mat4{}.m, 16));
  }
}

TEST(ImportGltfSkin, NodeBetweenJointsBecomesAJointKeepingItsAnimation) {
  GltfWriter w;
  const int mesh = w.mesh({{"primitives",
                            {{{"attributes", skinned_triangle_attributes(
                                                 w, {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0},
                                                 {{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}})}}}}});
  Mat4 ibm0, ibm1;
  ibm1.m[13] = -3;
  w.skin({{"joints", {0, 2}}, {"inverseBindMatrices", w.mat4s({ibm0, ibm1})}});
  w.node({{"name", "j0"}, {"children", {1}}});
  w.node({{"name", "between"}, {"translation", {0, 2, 0}}, {"children", {2}}});
  w.node({{"name", "j1"}, {"translation", {0, 1, 0}}});
  w.node({{"mesh", mesh}, {"skin", 0}});
  const float q = 0.70710677f;
  w.animation("bend", {{1, "rotation", "LINEAR", {0, 1}, {0, 0, 0, 1, 0, 0, q, q}}});
  w.scene({0, 3});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const Skeleton& s = model.rig->rig.skeleton();
  ASSERT_EQ(s.joint_count(), 3);
  EXPECT_EQ(model.rig->joint_source_nodes, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(s.joints()[1].name, "between");
  EXPECT_EQ(s.parents()[1], 0);
  EXPECT_EQ(s.parents()[2], 1);
  EXPECT_TRUE(bits_equal(s.inverse_binds()[1].m, Mat4{}.m, 16));
  EXPECT_EQ(s.inverse_binds()[2].m[13], -3.0f);
  EXPECT_EQ(s.rest_pose()[1].translation.y, 2.0f);
  // The skin's joint 1 (node 2) is rig joint 2.
  EXPECT_EQ(model.mesh.parts[0].joints[1].j[0], 2);
  ASSERT_EQ(model.rig->rig.clip_count(), 1);
  EXPECT_EQ(model.rig->rig.clips()[0].channels()[0].joint, 1);
}

TEST(ImportGltfSkin, RootJointsWithDifferentParentsAreJoinedAtTheirLowestCommonAncestor) {
  // top (x=5) -> {a (y=1) -> j0, j1}: j0's parent is a, j1's is top; a joins the rig and
  // top's world becomes the root matrix.
  GltfWriter w;
  const int mesh = w.mesh({{"primitives",
                            {{{"attributes", skinned_triangle_attributes(
                                                 w, {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0},
                                                 {{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}})}}}}});
  w.skin({{"joints", {2, 3}}});
  w.node({{"name", "top"}, {"translation", {5, 0, 0}}, {"children", {1, 3}}});
  w.node({{"name", "a"}, {"translation", {0, 1, 0}}, {"children", {2}}});
  w.node({{"name", "j0"}});
  w.node({{"name", "j1"}, {"translation", {0, 0, 1}}});
  w.node({{"mesh", mesh}, {"skin", 0}});
  w.scene({0, 4});
  const GltfDocument doc = w.read();
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const Skeleton& s = model.rig->rig.skeleton();
  EXPECT_EQ(model.rig->joint_source_nodes, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(s.parents()[0], -1);
  EXPECT_EQ(s.parents()[1], 0);
  EXPECT_EQ(s.parents()[2], -1);
  EXPECT_EQ(s.root().m[12], 5.0f);
  EXPECT_TRUE(bits_equal(s.inverse_binds()[0].m, Mat4{}.m, 16));  // the added node
  // Skin joint 1 (node 3) is rig joint 2.
  EXPECT_EQ(model.mesh.parts[0].joints[1].j[0], 2);
  const std::vector<Mat4> palette = rest_palette(model.rig->rig);
  EXPECT_EQ(palette[2].m[12], 5.0f);
  EXPECT_EQ(palette[2].m[14], 1.0f);
}

TEST(ImportGltfSkin, RootJointsUnderDifferentSceneRootsGetAnIdentityRoot) {
  GltfWriter w;
  const int mesh = w.mesh({{"primitives",
                            {{{"attributes", skinned_triangle_attributes(
                                                 w, {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0},
                                                 {{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}})}}}}});
  w.skin({{"joints", {1, 3}}});
  w.node({{"name", "x"}, {"translation", {5, 0, 0}}, {"children", {1}}});
  w.node({{"name", "j0"}});
  w.node({{"name", "y"}, {"translation", {0, 5, 0}}, {"children", {3}}});
  w.node({{"name", "j1"}});
  w.node({{"mesh", mesh}, {"skin", 0}});
  w.scene({0, 2, 4});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const Skeleton& s = model.rig->rig.skeleton();
  EXPECT_EQ(model.rig->joint_source_nodes, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(bits_equal(s.root().m, Mat4{}.m, 16));
  EXPECT_EQ(s.parents()[1], 0);
  EXPECT_EQ(s.parents()[3], 2);
}

TEST(ImportGltfSkin, MeshUnderAJointIsSkinnedToItWhereTheSceneRestsIt) {
  // A triangle on a child of j1 (rotated, offset) and one on j1 itself; the rig's IBMs do
  // not undo the rest pose exactly, so the rest palette is not the identity.
  GltfWriter w = two_joint_skin();
  w.doc["skins"][0]["inverseBindMatrices"] = w.mat4s(
      {Mat4{}, to_matrix({{0.5f, -2, 0}, quat_from_axis_angle({1, 0, 0}, 0.3f), {2, 2, 2}})});
  const int mesh = triangle_mesh(w, {0.25f, 0.5f, 0.75f});
  const int prop = w.node({{"name", "prop"},
                           {"mesh", mesh},
                           {"translation", {1, 2, 3}},
                           {"rotation", {0, 0, 0.38268343f, 0.92387953f}},
                           {"scale", {1, 2, 1}}});
  w.doc["nodes"][1]["children"] = {prop};
  w.doc["nodes"][1]["mesh"] = mesh;
  const GltfDocument doc = w.read();
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const JsonScene scene = json_scene(w.doc);
  ASSERT_EQ(model.mesh.parts.size(), 3u);
  const std::vector<Mat4> palette = rest_palette(model.rig->rig);
  for (const CookedPart& part : model.mesh.parts) {
    if (part.source_node == 2) continue;  // the skinned triangle
    SCOPED_TRACE(part.source_node);
    EXPECT_EQ(part.joint, -1);
    ASSERT_EQ(part.joints.size(), 3u);
    EXPECT_EQ(part.joints[0].j[0], 1);  // j1
    EXPECT_EQ(part.weights[0].x, 1.0f);
    const std::vector<Vec3> skinned = skinned_positions(part, palette);
    const std::vector<Vec3>& source = doc.meshes[static_cast<size_t>(mesh)].primitives[0].positions;
    for (size_t v = 0; v < 3; ++v) {
      const auto p = dpoint(scene.world[static_cast<size_t>(part.source_node)], source[v]);
      expect_near(skinned[v],
                  {static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2])});
    }
  }
}

TEST(ImportGltfSkin, MeshOutsideTheRigIsBakedToModelSpace) {
  GltfWriter w = two_joint_skin();
  const int mesh = triangle_mesh(w);
  const int stand = w.node({{"name", "stand"}, {"mesh", mesh}, {"translation", {0, 0, -4}}});
  w.scene({0, 2, stand});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const CookedPart& part = model.mesh.parts.back();
  EXPECT_EQ(part.source_node, stand);
  EXPECT_TRUE(part.joints.empty());
  EXPECT_TRUE(part.weights.empty());
  EXPECT_EQ(part.joint, -1);
  EXPECT_EQ(part.positions[1].x, 1.0f);
  EXPECT_EQ(part.positions[1].z, -4.0f);
}

TEST(ImportGltfSkin, ChannelOutsideTheRigIsSkippedAndAnAnimationLeftEmptyIsDropped) {
  GltfWriter w = two_joint_skin();
  w.animation("moves_joint", {{1, "translation", "LINEAR", {0, 1}, {0, 1, 0, 0, 2, 0}},
                              {2, "translation", "LINEAR", {0, 1}, {0, 0, 0, 1, 0, 0}}});
  w.animation("moves_mesh_node", {{2, "translation", "LINEAR", {0, 1}, {0, 0, 0, 1, 0, 0}}});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_TRUE(has_issue(model, "ANIMATION_CHANNEL_OUTSIDE_RIG", "/animations/0/channels/1", false));
  EXPECT_TRUE(has_issue(model, "ANIMATION_CHANNEL_OUTSIDE_RIG", "/animations/1/channels/0", false));
  EXPECT_TRUE(has_issue(model, "ANIMATION_EMPTY", "/animations/1", false));
  ASSERT_EQ(model.rig->rig.clip_count(), 1);
  EXPECT_EQ(model.rig->rig.clips()[0].name(), "moves_joint");
  EXPECT_EQ(model.rig->rig.clips()[0].channels().size(), 1u);
  EXPECT_EQ(model.rig->clip_source_animations, (std::vector<int>{0}));
}

TEST(ImportGltfClips, UnnamedAndDuplicateNamesAreMadeUnique) {
  GltfWriter w = two_joint_skin();
  const GltfWriter::Track track{1, "translation", "STEP", {0, 1}, {0, 1, 0, 0, 2, 0}};
  w.animation(nullptr, {track});
  w.animation("Walk", {track});
  w.animation("Walk", {track});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  ASSERT_EQ(model.rig->rig.clip_count(), 3);
  EXPECT_EQ(model.rig->rig.clips()[0].name(), "animation_0");
  EXPECT_EQ(model.rig->rig.clips()[1].name(), "Walk");
  EXPECT_EQ(model.rig->rig.clips()[2].name(), "Walk_2");
  EXPECT_TRUE(has_issue(model, "ANIMATION_DUPLICATE_NAME", "/animations/2", false));
  EXPECT_EQ(model.rig->rig.clips()[0].channels()[0].interpolation, Interpolation::kStep);
}

TEST(ImportGltfClips, MorphWeightChannelBecomesAWeightsChannelOfTheNodesSet) {
  GltfWriter w;
  json attributes = triangle_attributes(w);
  const int target = w.vec3s({{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}, true);
  w.mesh({{"primitives", {{{"attributes", attributes}, {"targets", {{{"POSITION", target}}}}}}},
          {"weights", {0}}});
  w.node({{"name", "morph"}, {"mesh", 0}});
  w.animation("Morph", {{0, "weights", "LINEAR", {0, 1}, {0, 1}},
                        {0, "translation", "LINEAR", {0, 1}, {0, 0, 0, 0, 1, 0}}});
  w.scene({0});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_EQ(count_code(model, "ANIMATION_CHANNEL_OUTSIDE_RIG"), 0) << describe(model.issues);
  ASSERT_TRUE(model.rig.has_value());
  ASSERT_EQ(model.rig->rig.morph_sets().size(), 1u);
  EXPECT_EQ(model.rig->rig.morph_sets()[0].name, "morph");
  EXPECT_EQ(model.rig->rig.morph_sets()[0].target_names, (std::vector<std::string>{"target_0"}));
  ASSERT_EQ(model.rig->rig.clip_count(), 1);
  const Clip& clip = model.rig->rig.clips()[0];
  ASSERT_EQ(clip.channels().size(), 2u);
  const Channel& weights = clip.channels()[0];
  EXPECT_EQ(weights.property, Property::kWeights);
  EXPECT_EQ(weights.joint, 0);
  EXPECT_EQ(weights.width, 1);
  EXPECT_EQ(std::vector<float>(weights.values.begin(), weights.values.end()),
            (std::vector<float>{0, 1}));
  EXPECT_EQ(clip.channels()[1].property, Property::kTranslation);
  // The deltas as the file gives them (a node rig: node-local).
  ASSERT_EQ(model.mesh.parts[0].morph_targets.size(), 1u);
  for (const Vec3& d : model.mesh.parts[0].morph_targets[0].positions) {
    EXPECT_EQ(d, (Vec3{0, 0, 1}));
  }
  EXPECT_EQ(model.mesh.parts[0].morph_targets[0].positions.size(), 3u);
}

// ---------------------------------------------------------------------------------------
// Node rigs and static models

TEST(ImportGltfNodeRig, AnimatedNodesWithoutSkinGiveARigOfEveryWalkedNode) {
  GltfWriter w;
  const int mesh = triangle_mesh(w);
  w.node({{"name", "base"}, {"translation", {1, 0, 0}}, {"children", {1}}});
  w.node({{"name", "arm"}, {"translation", {0, 1, 0}}, {"mesh", mesh}});
  w.node({{"name", "other"}, {"mesh", mesh}, {"scale", {2, 2, 2}}});
  w.node({{"name", "not_in_scene"}, {"mesh", mesh}});
  const float q = 0.70710677f;
  w.animation("Swing",
              {{1, "rotation", "CUBICSPLINE", {0, 1}, {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
                                                       0, 0, 0, 0, 0, 0, q, q, 0, 0, 0, 0}}});
  w.scene({0, 2});
  const GltfDocument doc = w.read();
  const ImportedModel model = import_doc(doc);
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  ASSERT_TRUE(model.rig.has_value());
  EXPECT_TRUE(model.rig->node_rig);
  EXPECT_EQ(model.rig->joint_source_nodes, (std::vector<int>{0, 1, 2}));
  const Skeleton& s = model.rig->rig.skeleton();
  EXPECT_EQ(s.parents()[1], 0);
  EXPECT_EQ(s.parents()[2], -1);
  EXPECT_EQ(s.joints()[2].name, "other");
  ASSERT_EQ(model.mesh.parts.size(), 2u);
  EXPECT_EQ(model.mesh.parts[0].joint, 1);
  EXPECT_EQ(model.mesh.parts[1].joint, 2);
  // Node-local vertices, no skinning streams.
  EXPECT_TRUE(same_vec3s(model.mesh.parts[0].positions, doc.meshes[0].primitives[0].positions));
  EXPECT_TRUE(model.mesh.parts[0].joints.empty());
  // The palette entry of a joint is its node's world matrix.
  const std::vector<Mat4> palette = rest_palette(model.rig->rig);
  EXPECT_EQ(palette[1].m[12], 1.0f);
  EXPECT_EQ(palette[1].m[13], 1.0f);
  EXPECT_EQ(palette[2].m[0], 2.0f);
  const Clip& clip = model.rig->rig.clips()[0];
  EXPECT_EQ(clip.channels()[0].interpolation, Interpolation::kCubicSpline);
  EXPECT_EQ(clip.channels()[0].values.size(), 24u);
}

TEST(ImportGltfStatic, NoSkinAndNoAnimationGivesModelSpaceParts) {
  GltfWriter w;
  const int mesh = triangle_mesh(w);
  w.node({{"translation", {0, 0, 2}}, {"children", {1}}});
  w.node({{"mesh", mesh}, {"rotation", {0, 0, 0.70710677f, 0.70710677f}}});
  w.scene({0});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_FALSE(model.rig.has_value());
  ASSERT_EQ(model.mesh.parts.size(), 1u);
  const CookedPart& part = model.mesh.parts[0];
  EXPECT_EQ(part.joint, -1);
  expect_near(part.positions[1], {0, 1, 2});  // (1, 0, 0) turned 90 degrees about z
  expect_near(part.normals[0], {0, 0, 1});
  expect_near({part.tangents[0].x, part.tangents[0].y, part.tangents[0].z}, {0, 1, 0});
}

TEST(ImportGltfStatic, MirroredNodeKeepsFrontFacesCounterClockwise) {
  GltfWriter w;
  const int mesh = triangle_mesh(w);
  w.node({{"mesh", mesh}, {"scale", {-1, 1, 1}}});
  w.scene({0});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const CookedPart& part = model.mesh.parts[0];
  EXPECT_EQ(part.indices, (std::vector<uint32_t>{0, 2, 1}));
  const Vec3 a = part.positions[part.indices[0]], b = part.positions[part.indices[1]],
             c = part.positions[part.indices[2]];
  EXPECT_GT(cross(b - a, c - a).z, 0.0f);  // still counter-clockwise seen from +z
  EXPECT_EQ(part.tangents[0].w, -1.0f);
  expect_near(part.normals[0], {0, 0, 1});
}

// ---------------------------------------------------------------------------------------
// Primitives

TEST(ImportGltfPrimitives, StripAndFanBecomeTriangleListsWithGltfWinding) {
  GltfWriter w;
  // A strip zig-zagging along +x and a fan around the origin, both in the xy plane.
  const std::vector<Vec3> strip = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0},
                                   {1, 1, 0}, {2, 0, 0}, {2, 1, 0}};
  const std::vector<Vec3> fan = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {-1, 1, 0}};
  const int strip_acc = w.vec3s(strip, true), fan_acc = w.vec3s(fan, true);
  const std::vector<uint16_t> fan_indices = {0, 1, 2, 3, 4};
  w.mesh({{"primitives",
           {{{"attributes", {{"POSITION", strip_acc}}}, {"mode", 5}},
            {{"attributes", {{"POSITION", fan_acc}}},
             {"mode", 6},
             {"indices", w.u16s(fan_indices, "SCALAR")}},
            {{"attributes", {{"POSITION", strip_acc}}}}}}});
  w.node({{"mesh", 0}});
  w.scene({0});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  ASSERT_EQ(model.mesh.parts.size(), 3u);
  // glTF 2.0: strip p_i = {v_i, v_i+(1+i%2), v_i+(2-i%2)}; fan p_i = {v_i+1, v_i+2, v_0}.
  // Either way every triangle of a strip or fan faces the way its first one does. The
  // primitives have no NORMAL, so they are unwelded for flat normals: the triangles are
  // read through source_vertices.
  const auto source_triangles = [](const CookedPart& part) {
    std::vector<uint32_t> out;
    for (uint32_t i : part.indices) out.push_back(part.source_vertices[i]);
    return out;
  };
  EXPECT_EQ(source_triangles(model.mesh.parts[0]),
            (std::vector<uint32_t>{0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4}));
  EXPECT_EQ(source_triangles(model.mesh.parts[1]),
            (std::vector<uint32_t>{1, 2, 0, 2, 3, 0, 3, 4, 0}));
  EXPECT_EQ(source_triangles(model.mesh.parts[2]), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  for (size_t p = 0; p < 2; ++p) {
    const CookedPart& part = model.mesh.parts[p];
    const float first = [&] {
      const Vec3 a = part.positions[part.indices[0]], b = part.positions[part.indices[1]],
                 c = part.positions[part.indices[2]];
      return cross(b - a, c - a).z;
    }();
    for (size_t t = 0; t < part.indices.size(); t += 3) {
      const Vec3 a = part.positions[part.indices[t]], b = part.positions[part.indices[t + 1]],
                 c = part.positions[part.indices[t + 2]];
      EXPECT_GT(cross(b - a, c - a).z * first, 0.0f) << "part " << p << " triangle " << t / 3;
    }
  }
  for (size_t p = 0; p < model.mesh.parts.size(); ++p) {
    const CookedPart& part = model.mesh.parts[p];
    const std::vector<Vec3>& source = p == 1 ? fan : strip;
    EXPECT_TRUE(part.normals_generated);
    ASSERT_EQ(part.source_vertices.size(), part.positions.size());
    for (size_t v = 0; v < part.positions.size(); ++v) {
      ASSERT_LT(part.source_vertices[v], source.size());
      expect_near(part.positions[v], source[part.source_vertices[v]]);
    }
  }
}

TEST(ImportGltfPrimitives, PointsAndLinesAreSkippedWithAWarning) {
  GltfWriter w;
  const int acc = w.vec3s({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, true);
  w.mesh({{"primitives",
           {{{"attributes", {{"POSITION", acc}}}, {"mode", 0}},
            {{"attributes", {{"POSITION", acc}}}, {"mode", 1}},
            {{"attributes", {{"POSITION", acc}}}, {"mode", 3}},
            {{"attributes", {{"POSITION", acc}}}}}}});
  w.node({{"mesh", 0}});
  w.scene({0});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_EQ(count_code(model, "PRIMITIVE_NOT_TRIANGLES"), 3);
  EXPECT_TRUE(has_issue(model, "PRIMITIVE_NOT_TRIANGLES", "/meshes/0/primitives/1/mode", false));
  ASSERT_EQ(model.mesh.parts.size(), 1u);
  EXPECT_EQ(model.mesh.parts[0].source_primitive, 3);
}

TEST(ImportGltfPrimitives, PrimitiveWithoutPositionIsSkippedWithAWarning) {
  GltfWriter w;
  const int normals = w.vec3s({{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}, false);
  w.mesh({{"primitives",
           {{{"attributes", {{"NORMAL", normals}}}}, {{"attributes", triangle_attributes(w)}}}}});
  w.node({{"mesh", 0}});
  w.scene({0});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  EXPECT_TRUE(has_issue(model, "PRIMITIVE_NO_POSITION", "/meshes/0/primitives/0", false));
  ASSERT_EQ(model.mesh.parts.size(), 1u);
  EXPECT_EQ(model.mesh.parts[0].source_primitive, 1);
}

TEST(ImportGltfPrimitives, MeshUsedByTwoNodesGivesAPartForEach) {
  GltfWriter w;
  const int mesh = triangle_mesh(w);
  w.node({{"mesh", mesh}});
  w.node({{"mesh", mesh}, {"translation", {3, 0, 0}}});
  w.scene({1, 0});
  const ImportedModel model = import_doc(w.read());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  ASSERT_EQ(model.mesh.parts.size(), 2u);
  EXPECT_EQ(model.mesh.parts[0].source_node, 1);  // scene order
  EXPECT_EQ(model.mesh.parts[0].positions[0].x, 3.0f);
  EXPECT_EQ(model.mesh.parts[1].source_node, 0);
}

// ---------------------------------------------------------------------------------------
// Documents and codes

TEST(ImportGltfDocument, DocumentWithReaderErrorsIsRefused) {
  const std::string text = R"({"asset": {"version": "2.0"}, "nodes": [{"mesh": 7}]})";
  const GltfDocument doc = read_gltf(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()), ".");
  ASSERT_FALSE(doc.ok());
  const ImportedModel model = import_gltf(doc, "broken", "broken.gltf");
  EXPECT_FALSE(model.ok());
  EXPECT_TRUE(has_issue(model, "GLTF_DOCUMENT_INVALID", "", true));
  EXPECT_TRUE(model.mesh.parts.empty());
}

TEST(ImportGltfDocument, IssueCodesAreUniqueAndEveryEmittedCodeIsListed) {
  std::set<std::string_view> codes;
  for (const GltfCodeInfo& info : kImportIssueCodes) {
    EXPECT_TRUE(codes.insert(info.code).second) << info.code;
    EXPECT_FALSE(info.rule.empty());
  }
  EXPECT_TRUE(is_import_issue_code("SKIN_HELPER_JOINT"));
  EXPECT_FALSE(is_import_issue_code("NO_SUCH_CODE"));
}

}  // namespace
}  // namespace animpack
