// The import stage on the real models of tests/data/corpus (gltf/ and asset-generator/):
// every file imports without error (but the two that use two different skins in one
// scene, which must say MESH_SEVERAL_SKINS), and what it gives agrees with the file's own
// JSON, parsed here with nlohmann_json: joints (the skin's joints plus the nodes between
// them, or every scene node for a node rig), parts, clip names, channel and key counts,
// durations; at the rest pose the palette equals world(joint) x inverse bind computed in
// double from the JSON's nodes (within 1e-5 of the size of the matrices multiplied), and
// every part lands where the glTF's rest pose puts it: skinned vertices by the skin's own
// joints and raw weights, others by their node's world matrix. Vertex streams and inverse
// binds come from the reader (whose decoding gltf_reader_tests checks against the JSON);
// node transforms, the scene walk, joint sets, names and key counts come from the JSON.

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "animpack/animator.h"
#include "animpack/compiler/import_gltf.h"
#include "animpack/skinning.h"
#include "import_support.h"

namespace animpack {
namespace {

using namespace import_test;  // NOLINT(build/namespaces): test helpers

// Every .gltf/.glb of the real-model folders.
std::vector<fs::path> real_models() {
  std::vector<fs::path> out;
  for (const char* folder : {"gltf", "asset-generator"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kCorpus / folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".gltf" || ext == ".glb") out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The files whose scene uses two different skins: "a scene mesh holds one skin".
bool uses_several_skins(const fs::path& file) {
  const std::string name = file.filename().string();
  return name == "Animation_Skin_11.gltf" || name == "multiple_roots.gltf";
}

std::string corpus_name(const fs::path& file) { return fs::relative(file, kCorpus).string(); }

struct Imported {
  GltfDocument doc;
  ImportedModel model;
  json j;
};

Imported import_file(const fs::path& file) {
  Imported out;
  out.doc = read_gltf(file);
  out.model = import_gltf(out.doc, file.stem().string(), corpus_name(file));
  out.j = json_of(file);
  return out;
}

const char* interpolation_spelling(Interpolation i) {
  switch (i) {
    case Interpolation::kStep:
      return "STEP";
    case Interpolation::kLinear:
      return "LINEAR";
    case Interpolation::kCubicSpline:
      return "CUBICSPLINE";
  }
  return "?";
}

const json& accessor(const json& j, const json& index) {
  return j["accessors"][index.get<size_t>()];
}

// The skins the walked nodes use, one per distinct (joints, inverseBindMatrices) pair.
std::vector<int> used_skins(const json& j, const JsonScene& scene) {
  std::vector<int> out;
  std::set<std::pair<std::vector<int>, int>> seen;
  for (int n : scene.order) {
    const json& node = j["nodes"][static_cast<size_t>(n)];
    if (!node.contains("mesh") || !node.contains("skin")) continue;
    const int s = node["skin"];
    const json& skin = j["skins"][static_cast<size_t>(s)];
    if (seen.insert({skin["joints"].get<std::vector<int>>(), skin.value("inverseBindMatrices", -1)})
            .second) {
      out.push_back(s);
    }
  }
  return out;
}

// The rig nodes the JSON calls for, in scene order: for a skin, its joints, the non-joint
// nodes between two joints, and the ancestors that join root joints of different parents;
// *out_between counts the nodes that are not skin joints.
std::vector<int> expected_skin_nodes(const json& j, const JsonScene& scene, int skin,
                                     int* out_between) {
  const std::vector<int> joints = j["skins"][static_cast<size_t>(skin)]["joints"];
  const std::set<int> joint_set(joints.begin(), joints.end());
  std::set<int> rig(joints.begin(), joints.end());
  for (int joint : joints) {
    std::vector<int> chain;
    int x = scene.parent[static_cast<size_t>(joint)];
    for (; x >= 0 && joint_set.count(x) == 0; x = scene.parent[static_cast<size_t>(x)]) {
      chain.push_back(x);
    }
    if (x >= 0) rig.insert(chain.begin(), chain.end());
  }
  std::vector<int> roots;
  std::set<int> root_parents;
  for (int n : rig) {
    if (rig.count(scene.parent[static_cast<size_t>(n)]) == 0) {
      roots.push_back(n);
      root_parents.insert(scene.parent[static_cast<size_t>(n)]);
    }
  }
  if (root_parents.size() > 1) {
    const auto ancestors = [&](int n) {
      std::vector<int> a;
      for (int x = scene.parent[static_cast<size_t>(n)]; x >= 0;
           x = scene.parent[static_cast<size_t>(x)]) {
        a.push_back(x);
      }
      return a;
    };
    int common = -1;
    for (int x : ancestors(roots[0])) {
      if (std::all_of(roots.begin(), roots.end(), [&](int r) {
            const std::vector<int> a = ancestors(r);
            return std::find(a.begin(), a.end(), x) != a.end();
          })) {
        common = x;
        break;
      }
    }
    for (int r : roots) {
      for (int x : ancestors(r)) {
        if (x == common) break;
        rig.insert(x);
      }
    }
  }
  std::vector<int> out;
  for (int n : scene.order) {
    if (rig.count(n) != 0) out.push_back(n);
  }
  *out_between = static_cast<int>(out.size() - joints.size());
  return out;
}

// Whether a primitive becomes a part: it has POSITION and a triangle mode.
bool imported_primitive(const json& primitive) {
  return primitive["attributes"].contains("POSITION") && primitive.value("mode", 4) >= 4;
}

// Checks everything the JSON says about the import of `file`.
void check_against_json(const fs::path& file) {
  SCOPED_TRACE(corpus_name(file));
  const Imported in = import_file(file);
  ASSERT_TRUE(in.doc.ok()) << describe(in.doc);
  const ImportedModel& model = in.model;
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  for (const ImportIssue& issue : model.issues) EXPECT_TRUE(is_import_issue_code(issue.code));
  const json& j = in.j;
  const JsonScene scene = json_scene(j);

  // The rig kind and its joints.
  const std::vector<int> skins = used_skins(j, scene);
  ASSERT_LE(skins.size(), 1u);
  const int skin = skins.empty() ? -1 : skins[0];
  bool animated = false;
  for (const json& anim : j.value("animations", json::array())) {
    for (const json& ch : anim["channels"]) {
      const json& target = ch["target"];
      animated |= target.contains("node") && target["path"] != "weights" &&
                  scene.walked[target["node"].get<size_t>()];
    }
  }
  std::vector<int> rig_nodes;
  if (skin >= 0) {
    int between = 0;
    rig_nodes = expected_skin_nodes(j, scene, skin, &between);
    EXPECT_EQ(static_cast<int>(rig_nodes.size()),
              static_cast<int>(j["skins"][static_cast<size_t>(skin)]["joints"].size()) + between);
  } else if (animated) {
    rig_nodes = scene.order;
  }
  ASSERT_EQ(model.rig.has_value(), !rig_nodes.empty());
  std::map<int, int> joint_of;  // node -> rig joint
  for (size_t k = 0; k < rig_nodes.size(); ++k) joint_of[rig_nodes[k]] = static_cast<int>(k);
  const auto joint = [&](int node) {
    const auto it = joint_of.find(node);
    return it == joint_of.end() ? -1 : it->second;
  };
  if (model.rig) {
    EXPECT_EQ(model.rig->node_rig, skin < 0);
    EXPECT_EQ(model.rig->joint_source_nodes, rig_nodes);
    const Skeleton& s = model.rig->rig.skeleton();
    ASSERT_EQ(s.joint_count(), static_cast<int>(rig_nodes.size()));
    for (size_t k = 0; k < rig_nodes.size(); ++k) {
      const json& node = j["nodes"][static_cast<size_t>(rig_nodes[k])];
      EXPECT_EQ(s.joints()[k].name, node.value("name", "node_" + std::to_string(rig_nodes[k])));
      int parent = -1;
      for (int x = scene.parent[static_cast<size_t>(rig_nodes[k])]; x >= 0 && parent < 0;
           x = scene.parent[static_cast<size_t>(x)]) {
        parent = joint(x);
      }
      EXPECT_EQ(s.parents()[k], parent) << k;
    }
  }

  // Parts: every triangle primitive with POSITION of every walked node with a mesh.
  size_t part = 0;
  for (int n : scene.order) {
    const json& node = j["nodes"][static_cast<size_t>(n)];
    if (!node.contains("mesh")) continue;
    const size_t m = node["mesh"];
    const json& primitives = j["meshes"][m]["primitives"];
    for (size_t p = 0; p < primitives.size(); ++p) {
      if (!imported_primitive(primitives[p])) continue;
      ASSERT_LT(part, model.mesh.parts.size());
      const CookedPart& got = model.mesh.parts[part++];
      EXPECT_EQ(got.source_node, n);
      EXPECT_EQ(got.source_mesh, static_cast<int>(m));
      EXPECT_EQ(got.source_primitive, static_cast<int>(p));
      const size_t count = accessor(j, primitives[p]["attributes"]["POSITION"])["count"];
      // Without NORMAL the part is unwelded for flat normals: one vertex per corner.
      const bool unwelded = !primitives[p]["attributes"].contains("NORMAL");
      EXPECT_EQ(got.normals_generated, unwelded);
      EXPECT_EQ(got.positions.size(), unwelded ? got.indices.size() : count);
      EXPECT_EQ(got.source_vertices.size(), got.positions.size());
      for (uint32_t s : got.source_vertices) ASSERT_LT(s, count);
      if (primitives[p].value("mode", 4) == 4) {
        const size_t indices = primitives[p].contains("indices")
                                   ? accessor(j, primitives[p]["indices"])["count"].get<size_t>()
                                   : count;
        EXPECT_EQ(got.indices.size(), indices / 3 * 3);
      }
      const size_t vertices = got.positions.size();
      const bool skinned =
          skin >= 0 && node.contains("skin") && primitives[p]["attributes"].contains("JOINTS_0");
      if (skinned || (skin >= 0 && !got.joints.empty())) {
        EXPECT_EQ(got.joints.size(), vertices);
        EXPECT_EQ(got.weights.size(), vertices);
        EXPECT_EQ(got.joint, -1);
      } else if (skin < 0 && animated) {
        EXPECT_EQ(got.joint, joint(n));
      } else {
        EXPECT_TRUE(got.joints.empty());
        EXPECT_EQ(got.joint, -1);
      }
    }
  }
  EXPECT_EQ(part, model.mesh.parts.size());

  // Clips: one per animation with a channel on a rig joint.
  std::vector<std::string> names;
  size_t clip = 0;
  const json animations = j.value("animations", json::array());
  for (size_t a = 0; a < animations.size(); ++a) {
    const json& anim = animations[a];
    std::vector<const json*> kept;
    for (const json& ch : anim["channels"]) {
      const json& target = ch["target"];
      if (target.contains("node") && target["path"] != "weights" && joint(target["node"]) >= 0) {
        kept.push_back(&ch);
      }
    }
    if (kept.empty() || !model.rig) continue;
    std::string name = anim.value("name", "animation_" + std::to_string(a));
    while (std::find(names.begin(), names.end(), name) != names.end()) {
      name += "_" + std::to_string(a);
    }
    names.push_back(name);
    ASSERT_LT(clip, model.rig->rig.clips().size());
    EXPECT_EQ(model.rig->clip_source_animations[clip], static_cast<int>(a));
    const Clip& got = model.rig->rig.clips()[clip++];
    EXPECT_EQ(got.name(), name);
    ASSERT_EQ(got.channels().size(), kept.size()) << name;
    double duration = 0;
    for (size_t c = 0; c < kept.size(); ++c) {
      const json& ch = *kept[c];
      const json& sampler = anim["samplers"][ch["sampler"].get<size_t>()];
      const json& input = accessor(j, sampler["input"]);
      const json& output = accessor(j, sampler["output"]);
      const Channel& g = got.channels()[c];
      const std::string path = ch["target"]["path"];
      EXPECT_EQ(g.joint, joint(ch["target"]["node"]));
      EXPECT_EQ(property_name(g.property), path);
      EXPECT_EQ(interpolation_spelling(g.interpolation), sampler.value("interpolation", "LINEAR"));
      EXPECT_EQ(g.times.size(), input["count"].get<size_t>());
      EXPECT_EQ(g.values.size(),
                output["count"].get<size_t>() * static_cast<size_t>(path == "rotation" ? 4 : 3));
      const double first = input["min"][0], last = input["max"][0];
      EXPECT_NEAR(g.times.front(), first, 1e-6 * std::max(1.0, first));
      EXPECT_NEAR(g.times.back(), last, 1e-6 * std::max(1.0, last));
      duration = std::max(duration, last);
    }
    EXPECT_NEAR(got.duration(), duration, 1e-6 * std::max(1.0, duration)) << name;
  }
  if (model.rig) {
    EXPECT_EQ(clip, model.rig->rig.clips().size());
  }

  // The rest pose: palette and where every part lands.
  std::vector<Mat4> palette;
  if (model.rig) {
    Animator animator = std::move(*Animator::create(&model.rig->rig, 60));
    animator.evaluate(0);
    palette.assign(animator.palette().begin(), animator.palette().end());
  }
  std::vector<DMat> joint_matrix;  // skin joint index -> world x IBM, from the JSON
  if (skin >= 0) {
    const GltfSkin& s = in.doc.skins[static_cast<size_t>(skin)];
    for (size_t k = 0; k < s.joints.size(); ++k) {
      const DMat& world = scene.world[static_cast<size_t>(s.joints[k])];
      const DMat ibm = dmat_of(s.inverse_binds[k]);
      joint_matrix.push_back(world * ibm);
      EXPECT_TRUE(matrices_near(palette[static_cast<size_t>(joint(s.joints[k]))],
                                joint_matrix.back(), 1e-5, std::max(max_abs(world), max_abs(ibm))))
          << "skin joint " << k;
    }
  } else if (model.rig) {
    for (size_t k = 0; k < rig_nodes.size(); ++k) {
      EXPECT_TRUE(matrices_near(palette[k], scene.world[static_cast<size_t>(rig_nodes[k])], 1e-5))
          << "node " << rig_nodes[k];
    }
  }
  for (const CookedPart& got : model.mesh.parts) {
    SCOPED_TRACE("part of node " + std::to_string(got.source_node));
    const GltfPrimitive& prim = in.doc.meshes[static_cast<size_t>(got.source_mesh)]
                                    .primitives[static_cast<size_t>(got.source_primitive)];
    const bool skinned = skin >= 0 &&
                         in.doc.nodes[static_cast<size_t>(got.source_node)].skin >= 0 &&
                         !prim.joints.empty();
    // Where the glTF puts each vertex at rest, in double.
    std::vector<std::array<double, 3>> expected(prim.positions.size());
    double scale = 1.0;
    for (size_t v = 0; v < prim.positions.size(); ++v) {
      if (skinned) {
        DMat blended{};
        double sum = 0;
        for (size_t k = 0; k < 4; ++k) sum += prim.weights[v][k];
        for (size_t k = 0; k < 4; ++k) {
          const DMat& m = joint_matrix[prim.joints[v][k]];
          for (size_t e = 0; e < 16; ++e) blended[e] += m[e] * prim.weights[v][k] / sum;
        }
        expected[v] = dpoint(blended, prim.positions[v]);
      } else {
        expected[v] = dpoint(scene.world[static_cast<size_t>(got.source_node)], prim.positions[v]);
      }
      for (double c : expected[v]) scale = std::max(scale, std::fabs(c));
    }
    // Where the import puts it.
    std::vector<Vec3> actual = got.positions;
    if (!got.joints.empty()) {
      std::vector<Vec3> normals(got.normals.size());
      std::vector<Vec4> tangents(got.tangents.size());
      ASSERT_TRUE(
          animpack::skin({got.positions, got.normals, got.tangents, got.joints, got.weights},
                         palette, {actual, normals, tangents})
              .has_value());
    } else if (got.joint >= 0) {
      for (Vec3& p : actual) p = transform_point(palette[static_cast<size_t>(got.joint)], p);
    }
    for (size_t v = 0; v < actual.size(); ++v) {
      const float* a = &actual[v].x;
      const size_t source = got.source_vertices[v];
      for (size_t c = 0; c < 3; ++c) {
        ASSERT_NEAR(a[c], expected[source][c], 1e-5 * scale)
            << "vertex " << v << " (source " << source << ") coordinate " << c;
      }
    }
  }
}

TEST(ImportGltfCorpus, EveryRealModelImportsAndAgreesWithItsJson) {
  int checked = 0;
  for (const fs::path& file : real_models()) {
    if (uses_several_skins(file)) continue;
    check_against_json(file);
    ++checked;
  }
  EXPECT_GE(checked, 60);
}

TEST(ImportGltfCorpus, SceneWithTwoDifferentSkinsIsRefused) {
  for (const char* path : {"asset-generator/Animation_Skin/Animation_Skin_11.gltf",
                           "gltf/ozz-tests/multiple_roots.gltf"}) {
    SCOPED_TRACE(path);
    const Imported in = import_file(kCorpus / path);
    ASSERT_TRUE(in.doc.ok());
    EXPECT_FALSE(in.model.ok());
    EXPECT_TRUE(has_issue(in.model, "MESH_SEVERAL_SKINS", "/skins", true));
  }
}

TEST(ImportGltfCorpus, SkinnedModelsHaveTheirJointCountsAndClips) {
  struct Expect {
    const char* path;
    int joints;
    std::vector<std::string> clips;
  };
  const Expect cases[] = {
      {"gltf/RiggedSimple/glTF/RiggedSimple.gltf", 2, {"animation_0"}},
      {"gltf/RiggedSimple/glTF-Embedded/RiggedSimple.gltf", 2, {"animation_0"}},
      {"gltf/RiggedFigure/glTF/RiggedFigure.gltf", 19, {"animation_0"}},
      {"gltf/CesiumMan/glTF-Embedded/CesiumMan.gltf", 19, {"animation_0"}},
      {"gltf/CesiumMan/glTF-Binary/CesiumMan.glb", 19, {"animation_0"}},
      {"gltf/Fox/glTF/Fox.gltf", 24, {"Survey", "Walk", "Run"}},
      {"gltf/Fox/glTF-Binary/Fox.glb", 24, {"Survey", "Walk", "Run"}},
      {"gltf/SimpleSkin/glTF/SimpleSkin.gltf", 2, {"animation_0"}},
      {"gltf/Quaternius-Alien/Alien_Scolitex.gltf", 33, {"Alien_Idle"}},
      {"gltf/blender-io-roundtrip/03_skinned_cylinder/03_skinned_cylinder.gltf",
       4,
       {"SkeletonAnimation_Root.001"}},
      {"asset-generator/Animation_Skin/Animation_Skin_09.gltf", 5, {"animation_0"}},
  };
  for (const Expect& e : cases) {
    SCOPED_TRACE(e.path);
    const Imported in = import_file(kCorpus / e.path);
    ASSERT_TRUE(in.model.ok()) << describe(in.model.issues);
    ASSERT_TRUE(in.model.rig.has_value());
    EXPECT_FALSE(in.model.rig->node_rig);
    EXPECT_EQ(in.model.rig->rig.skeleton().joint_count(), e.joints);
    std::vector<std::string> names;
    for (const Clip& c : in.model.rig->rig.clips()) names.push_back(c.name());
    EXPECT_EQ(names, e.clips);
  }
}

TEST(ImportGltfCorpus, InterpolationTestIsANodeRigKeepingEachInterpolation) {
  const Imported in = import_file(kCorpus / "gltf/InterpolationTest/glTF/InterpolationTest.gltf");
  ASSERT_TRUE(in.model.ok()) << describe(in.model.issues);
  ASSERT_TRUE(in.model.rig.has_value());
  EXPECT_TRUE(in.model.rig->node_rig);
  const Rig& rig = in.model.rig->rig;
  ASSERT_EQ(rig.clip_count(), 9);
  for (const Clip& clip : rig.clips()) {
    SCOPED_TRACE(clip.name());
    ASSERT_EQ(clip.channels().size(), 1u);
    const Channel& ch = clip.channels()[0];
    const std::string& name = clip.name();
    const Interpolation expected = name.rfind("Step", 0) == 0     ? Interpolation::kStep
                                   : name.rfind("Linear", 0) == 0 ? Interpolation::kLinear
                                                                  : Interpolation::kCubicSpline;
    EXPECT_EQ(ch.interpolation, expected);
    const Property property = name.find("Scale") != std::string::npos      ? Property::kScale
                              : name.find("Rotation") != std::string::npos ? Property::kRotation
                                                                           : Property::kTranslation;
    EXPECT_EQ(ch.property, property);
    // The reader's keys, bit for bit (cubic tangents included).
    const GltfChannel& source =
        in.doc
            .animations[static_cast<size_t>(
                in.model.rig
                    ->clip_source_animations[static_cast<size_t>(&clip - rig.clips().data())])]
            .channels[0];
    ASSERT_EQ(ch.values.size(), source.values.size());
    EXPECT_TRUE(
        bits_equal(ch.values.data(), source.values.data(), static_cast<int>(ch.values.size())));
  }
}

TEST(ImportGltfCorpus, BoxAnimatedAndAnimatedTriangleAreNodeRigs) {
  for (const char* path : {"gltf/BoxAnimated/glTF-Embedded/BoxAnimated.gltf",
                           "gltf/AnimatedTriangle/glTF/AnimatedTriangle.gltf"}) {
    SCOPED_TRACE(path);
    const Imported in = import_file(kCorpus / path);
    ASSERT_TRUE(in.model.ok()) << describe(in.model.issues);
    ASSERT_TRUE(in.model.rig.has_value());
    EXPECT_TRUE(in.model.rig->node_rig);
    EXPECT_EQ(in.model.rig->rig.clip_count(), 1);
    for (const CookedPart& part : in.model.mesh.parts) EXPECT_GE(part.joint, 0);
  }
}

TEST(ImportGltfCorpus, MorphWeightChannelsAreSkippedWithAWarning) {
  for (const char* path : {"gltf/SimpleMorph/glTF/SimpleMorph.gltf",
                           "gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
                           "gltf/MorphStressTest/glTF/MorphStressTest.gltf"}) {
    SCOPED_TRACE(path);
    const Imported in = import_file(kCorpus / path);
    ASSERT_TRUE(in.model.ok()) << describe(in.model.issues);
    EXPECT_GE(count_code(in.model, "ANIMATION_MORPH_SKIPPED"), 1);
    EXPECT_TRUE(has_issue(in.model, "ANIMATION_MORPH_SKIPPED", "/animations/0/channels/0", false));
    EXPECT_FALSE(in.model.rig.has_value());
  }
}

TEST(ImportGltfCorpus, MeshOnAJointIsSkinnedToThatJoint) {
  // Animation_Skin_04: a triangle mesh on joint1, which animates.
  const Imported in =
      import_file(kCorpus / "asset-generator/Animation_Skin/Animation_Skin_04.gltf");
  ASSERT_TRUE(in.model.ok()) << describe(in.model.issues);
  int attached = 0;
  for (const CookedPart& part : in.model.mesh.parts) {
    if (in.doc.nodes[static_cast<size_t>(part.source_node)].skin >= 0) continue;
    ++attached;
    ASSERT_FALSE(part.joints.empty());
    const int node = in.model.rig->joint_source_nodes[part.joints[0].j[0]];
    EXPECT_EQ(in.doc.nodes[static_cast<size_t>(node)].name, "joint1");
  }
  EXPECT_EQ(attached, 1);
}

TEST(ImportGltfCorpus, TwinFilesImportIdentically) {
  const std::pair<const char*, const char*> twins[] = {
      {"gltf/Fox/glTF/Fox.gltf", "gltf/Fox/glTF-Binary/Fox.glb"},
      {"gltf/RiggedSimple/glTF/RiggedSimple.gltf",
       "gltf/RiggedSimple/glTF-Embedded/RiggedSimple.gltf"},
  };
  for (const auto& [a_path, b_path] : twins) {
    SCOPED_TRACE(a_path);
    const Imported a = import_file(kCorpus / a_path), b = import_file(kCorpus / b_path);
    ASSERT_TRUE(a.model.ok() && b.model.ok());
    const Rig& x = a.model.rig->rig;
    const Rig& y = b.model.rig->rig;
    ASSERT_EQ(x.clip_count(), y.clip_count());
    for (size_t c = 0; c < x.clips().size(); ++c) {
      ASSERT_EQ(x.clips()[c].channels().size(), y.clips()[c].channels().size());
      for (size_t k = 0; k < x.clips()[c].channels().size(); ++k) {
        const Channel& p = x.clips()[c].channels()[k];
        const Channel& q = y.clips()[c].channels()[k];
        ASSERT_EQ(p.values.size(), q.values.size());
        EXPECT_TRUE(
            bits_equal(p.values.data(), q.values.data(), static_cast<int>(p.values.size())));
      }
    }
    ASSERT_EQ(a.model.mesh.parts.size(), b.model.mesh.parts.size());
    for (size_t p = 0; p < a.model.mesh.parts.size(); ++p) {
      const CookedPart& u = a.model.mesh.parts[p];
      const CookedPart& v = b.model.mesh.parts[p];
      ASSERT_EQ(u.positions.size(), v.positions.size());
      EXPECT_TRUE(bits_equal(&u.positions[0].x, &v.positions[0].x,
                             static_cast<int>(u.positions.size() * 3)));
      EXPECT_EQ(u.indices, v.indices);
    }
  }
}

}  // namespace
}  // namespace animpack
