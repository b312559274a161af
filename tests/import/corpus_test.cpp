// The import stage on the real models of tests/data/corpus (gltf/ and asset-generator/):
// every file imports without error, and what it gives agrees with the file's own JSON,
// parsed here with nlohmann_json: joints (the union of the skins' joints plus the nodes
// between them, then helper joints, or every scene node for a node rig), morph sets (one
// per walked node whose mesh has targets), parts, clip names, channel and key counts,
// durations; at the rest pose the palette equals world(joint) x inverse bind computed in
// double from the JSON's nodes (within 1e-5 of the size of the matrices multiplied), and
// every part lands where the glTF's rest pose puts it, morphed by its default weights:
// skinned vertices by their own node's skin's joints and raw weights (all eight), others
// by their node's world matrix. Vertex streams and inverse
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

// The skins the walked nodes with a mesh use, in walk order.
std::vector<int> used_skins(const json& j, const JsonScene& scene) {
  std::vector<int> out;
  for (int n : scene.order) {
    const json& node = j["nodes"][static_cast<size_t>(n)];
    if (!node.contains("mesh") || !node.contains("skin")) continue;
    const int s = node["skin"];
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

// Whether the mesh's primitives have morph targets.
bool has_targets(const json& mesh) {
  for (const json& p : mesh["primitives"]) {
    if (p.contains("targets") && !p["targets"].empty()) return true;
  }
  return false;
}

// The walked nodes whose mesh has morph targets, in walk order (the rig's morph sets).
std::vector<int> morph_nodes(const json& j, const JsonScene& scene) {
  std::vector<int> out;
  for (int n : scene.order) {
    const json& node = j["nodes"][static_cast<size_t>(n)];
    if (node.contains("mesh") && has_targets(j["meshes"][node["mesh"].get<size_t>()])) {
      out.push_back(n);
    }
  }
  return out;
}

// The rig nodes the JSON calls for, in scene order: for a skin, its joints, the non-joint
// nodes between two joints, and the ancestors that join root joints of different parents;
// *out_between counts the nodes that are not skin joints.
std::vector<int> expected_skin_nodes(const json& j, const JsonScene& scene,
                                     const std::vector<int>& skins, int* out_between) {
  std::vector<int> joints;
  for (int skin : skins) {
    for (int joint : j["skins"][static_cast<size_t>(skin)]["joints"]) {
      if (std::find(joints.begin(), joints.end(), joint) == joints.end()) joints.push_back(joint);
    }
  }
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
  const bool skin_rig = !skins.empty();
  const std::vector<int> morphs = morph_nodes(j, scene);
  bool animated = false;
  for (const json& anim : j.value("animations", json::array())) {
    for (const json& ch : anim["channels"]) {
      const json& target = ch["target"];
      animated |= target.contains("node") && target["path"] != "weights" &&
                  scene.walked[target["node"].get<size_t>()];
    }
  }
  const bool node_rig = !skin_rig && (animated || !morphs.empty());
  std::vector<int> rig_nodes;
  if (skin_rig) {
    int between = 0;
    rig_nodes = expected_skin_nodes(j, scene, skins, &between);
    std::set<int> joints;
    for (int s : skins) {
      for (int joint : j["skins"][static_cast<size_t>(s)]["joints"]) joints.insert(joint);
    }
    EXPECT_EQ(static_cast<int>(rig_nodes.size()), static_cast<int>(joints.size()) + between);
  } else if (node_rig) {
    rig_nodes = scene.order;
  }
  ASSERT_EQ(model.rig.has_value(), !rig_nodes.empty());
  std::map<int, int> joint_of;  // node -> rig joint
  for (size_t k = 0; k < rig_nodes.size(); ++k) joint_of[rig_nodes[k]] = static_cast<int>(k);
  const auto joint = [&](int node) {
    const auto it = joint_of.find(node);
    return it == joint_of.end() ? -1 : it->second;
  };
  // The rig joint skin s's joint k uses: the node's, or its "#skin<s>" helper.
  const auto skin_joint = [&](int s, size_t k) {
    const int node = in.doc.skins[static_cast<size_t>(s)].joints[k];
    const Skeleton& sk = model.rig->rig.skeleton();
    const std::string helper =
        sk.joints()[static_cast<size_t>(joint(node))].name + "#skin" + std::to_string(s);
    for (size_t h = rig_nodes.size(); h < static_cast<size_t>(sk.joint_count()); ++h) {
      if (sk.joints()[h].name == helper) return static_cast<int>(h);
    }
    return joint(node);
  };
  if (model.rig) {
    EXPECT_EQ(model.rig->node_rig, !skin_rig);
    const Skeleton& s = model.rig->rig.skeleton();
    ASSERT_GE(s.joint_count(), static_cast<int>(rig_nodes.size()));
    if (!skin_rig) {
      EXPECT_EQ(s.joint_count(), static_cast<int>(rig_nodes.size()));
    }
    ASSERT_EQ(model.rig->joint_source_nodes.size(), static_cast<size_t>(s.joint_count()));
    for (size_t k = 0; k < rig_nodes.size(); ++k) {
      EXPECT_EQ(model.rig->joint_source_nodes[k], rig_nodes[k]);
      const json& node = j["nodes"][static_cast<size_t>(rig_nodes[k])];
      EXPECT_EQ(s.joints()[k].name, node.value("name", "node_" + std::to_string(rig_nodes[k])));
      int parent = -1;
      for (int x = scene.parent[static_cast<size_t>(rig_nodes[k])]; x >= 0 && parent < 0;
           x = scene.parent[static_cast<size_t>(x)]) {
        parent = joint(x);
      }
      EXPECT_EQ(s.parents()[k], parent) << k;
    }
    // Helper joints: children of their node's joint, named after it.
    for (size_t h = rig_nodes.size(); h < static_cast<size_t>(s.joint_count()); ++h) {
      const int node = model.rig->joint_source_nodes[h];
      EXPECT_EQ(s.parents()[h], joint(node));
      EXPECT_NE(s.joints()[h].name.find("#skin"), std::string::npos);
    }
    // Morph sets: one per walked node whose mesh has targets.
    EXPECT_EQ(model.rig->morph_source_nodes, morphs);
    const std::span<const MorphSet> sets = model.rig->rig.morph_sets();
    ASSERT_EQ(sets.size(), morphs.size());
    for (size_t k = 0; k < morphs.size(); ++k) {
      const json& node = j["nodes"][static_cast<size_t>(morphs[k])];
      const json& mesh = j["meshes"][node["mesh"].get<size_t>()];
      const size_t targets = mesh["primitives"][0]["targets"].size();
      EXPECT_EQ(sets[k].name, node.value("name", "node_" + std::to_string(morphs[k])));
      ASSERT_EQ(sets[k].size(), targets);
      std::vector<double> defaults(targets, 0.0);
      if (node.contains("weights")) {
        defaults = node["weights"].get<std::vector<double>>();
      } else if (mesh.contains("weights")) {
        defaults = mesh["weights"].get<std::vector<double>>();
      }
      for (size_t t = 0; t < targets; ++t) {
        EXPECT_EQ(sets[k].default_weights[t], static_cast<float>(defaults[t])) << t;
        const bool named = mesh.contains("extras") && mesh["extras"].contains("targetNames");
        if (named) {
          EXPECT_EQ(sets[k].target_names[t], mesh["extras"]["targetNames"][t].get<std::string>());
        } else {
          EXPECT_EQ(sets[k].target_names[t], "target_" + std::to_string(t));
        }
      }
      EXPECT_EQ(sets[k].joint, skin_rig ? -1 : joint(morphs[k]));
    }
  }
  const auto set_of = [&](int node) {
    const auto it = std::find(morphs.begin(), morphs.end(), node);
    return it == morphs.end() ? -1 : static_cast<int>(it - morphs.begin());
  };

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
          skin_rig && node.contains("skin") && primitives[p]["attributes"].contains("JOINTS_0");
      if (skinned || (skin_rig && !got.joints.empty())) {
        EXPECT_EQ(got.joints.size(), vertices);
        EXPECT_EQ(got.weights.size(), vertices);
        EXPECT_EQ(got.joint, -1);
      } else if (node_rig) {
        EXPECT_EQ(got.joint, joint(n));
      } else {
        EXPECT_TRUE(got.joints.empty());
        EXPECT_EQ(got.joint, -1);
      }
      EXPECT_EQ(got.morph_set, set_of(n));
      const size_t targets = primitives[p].value("targets", json::array()).size();
      ASSERT_EQ(got.morph_targets.size(), got.morph_set >= 0 ? targets : 0u);
      for (size_t t = 0; t < got.morph_targets.size(); ++t) {
        const json& target = primitives[p]["targets"][t];
        EXPECT_EQ(got.morph_targets[t].positions.size(),
                  target.contains("POSITION") ? vertices : 0u);
        EXPECT_EQ(got.morph_targets[t].normals.size(),
                  target.contains("NORMAL") && !unwelded ? vertices : 0u);
      }
    }
  }
  EXPECT_EQ(part, model.mesh.parts.size());

  // Clips: one per animation with a channel on a rig joint or a morph set.
  std::vector<std::string> names;
  size_t clip = 0;
  const json animations = j.value("animations", json::array());
  for (size_t a = 0; a < animations.size(); ++a) {
    const json& anim = animations[a];
    std::vector<const json*> kept;
    for (const json& ch : anim["channels"]) {
      const json& target = ch["target"];
      if (!target.contains("node")) continue;
      const bool weights = target["path"] == "weights";
      if ((weights && set_of(target["node"]) >= 0) || (!weights && joint(target["node"]) >= 0)) {
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
      const bool weights = path == "weights";
      EXPECT_EQ(g.joint, weights ? set_of(ch["target"]["node"]) : joint(ch["target"]["node"]));
      EXPECT_EQ(property_name(g.property), path);
      EXPECT_EQ(interpolation_spelling(g.interpolation), sampler.value("interpolation", "LINEAR"));
      EXPECT_EQ(g.times.size(), input["count"].get<size_t>());
      EXPECT_EQ(g.values.size(),
                output["count"].get<size_t>() * static_cast<size_t>(weights              ? 1
                                                                    : path == "rotation" ? 4
                                                                                         : 3));
      if (weights) {
        EXPECT_EQ(g.width, model.rig->rig.morph_sets()[g.joint].size());
        // The keyed weights within the output accessor's own bounds, when it gives them.
        if (output.contains("min") && output.contains("max") &&
            !output.value("normalized", false)) {
          const double lo = output["min"][0], hi = output["max"][0];
          for (float v : g.values) {
            EXPECT_GE(v, lo - 1e-6 * std::max(1.0, std::fabs(lo)));
            EXPECT_LE(v, hi + 1e-6 * std::max(1.0, std::fabs(hi)));
          }
        }
      }
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
  // Per skin: skin joint index -> world x IBM, from the JSON.
  std::map<int, std::vector<DMat>> joint_matrix;
  for (int skin : skins) {
    const GltfSkin& s = in.doc.skins[static_cast<size_t>(skin)];
    for (size_t k = 0; k < s.joints.size(); ++k) {
      const DMat& world = scene.world[static_cast<size_t>(s.joints[k])];
      const DMat ibm = dmat_of(s.inverse_binds[k]);
      joint_matrix[skin].push_back(world * ibm);
      EXPECT_TRUE(matrices_near(palette[static_cast<size_t>(skin_joint(skin, k))],
                                joint_matrix[skin].back(), 1e-5,
                                std::max(max_abs(world), max_abs(ibm))))
          << "skin " << skin << " joint " << k;
    }
  }
  if (node_rig) {
    for (size_t k = 0; k < rig_nodes.size(); ++k) {
      EXPECT_TRUE(matrices_near(palette[k], scene.world[static_cast<size_t>(rig_nodes[k])], 1e-5))
          << "node " << rig_nodes[k];
    }
  }
  for (const CookedPart& got : model.mesh.parts) {
    SCOPED_TRACE("part of node " + std::to_string(got.source_node));
    const GltfNode& gnode = in.doc.nodes[static_cast<size_t>(got.source_node)];
    const GltfPrimitive& prim = in.doc.meshes[static_cast<size_t>(got.source_mesh)]
                                    .primitives[static_cast<size_t>(got.source_primitive)];
    const bool skinned = skin_rig && gnode.skin >= 0 && !prim.joints.empty();
    std::vector<float> defaults;
    if (got.morph_set >= 0) {
      const MorphSet& set = model.rig->rig.morph_sets()[static_cast<size_t>(got.morph_set)];
      defaults = set.default_weights;
    }
    // Where the glTF puts each vertex at rest, morphed by the default weights, in double.
    std::vector<std::array<double, 3>> expected(prim.positions.size());
    double scale = 1.0;
    for (size_t v = 0; v < prim.positions.size(); ++v) {
      double base[3] = {prim.positions[v].x, prim.positions[v].y, prim.positions[v].z};
      for (size_t t = 0; t < defaults.size() && t < prim.targets.size(); ++t) {
        if (prim.targets[t].positions.empty()) continue;
        const Vec3 d = prim.targets[t].positions[v];
        base[0] += defaults[t] * static_cast<double>(d.x);
        base[1] += defaults[t] * static_cast<double>(d.y);
        base[2] += defaults[t] * static_cast<double>(d.z);
      }
      DMat m = scene.world[static_cast<size_t>(got.source_node)];
      if (skinned) {
        const std::vector<DMat>& matrices = joint_matrix[gnode.skin];
        DMat blended{};
        double sum = 0;
        const bool eight = !prim.weights1.empty();
        for (size_t k = 0; k < 8; ++k) {
          if (k >= 4 && !eight) break;
          sum += k < 4 ? prim.weights[v][k] : prim.weights1[v][k - 4];
        }
        for (size_t k = 0; k < 8; ++k) {
          if (k >= 4 && !eight) break;
          const double w = k < 4 ? prim.weights[v][k] : prim.weights1[v][k - 4];
          if (w == 0.0) continue;
          const DMat& jm = matrices[k < 4 ? prim.joints[v][k] : prim.joints1[v][k - 4]];
          for (size_t e = 0; e < 16; ++e) blended[e] += jm[e] * w / sum;
        }
        m = blended;
      }
      for (size_t row = 0; row < 3; ++row) {
        expected[v][row] =
            m[row] * base[0] + m[4 + row] * base[1] + m[8 + row] * base[2] + m[12 + row];
      }
      for (double c : expected[v]) scale = std::max(scale, std::fabs(c));
    }
    // Where the import puts it: its own deltas by the default weights, then its palette
    // (all eight influences) or its joint, in double.
    for (size_t v = 0; v < got.positions.size(); ++v) {
      Vec3 p = got.positions[v];
      for (size_t t = 0; t < got.morph_targets.size(); ++t) {
        if (got.morph_targets[t].positions.empty() || defaults[t] == 0.0f) continue;
        const Vec3 d = got.morph_targets[t].positions[v];
        p = {p.x + defaults[t] * d.x, p.y + defaults[t] * d.y, p.z + defaults[t] * d.z};
      }
      std::array<double, 3> a = {p.x, p.y, p.z};
      if (!got.joints.empty()) {
        a = {0, 0, 0};
        const bool eight = !got.weights1.empty();
        const Vec4 w0 = got.weights[v], w1 = eight ? got.weights1[v] : Vec4{0, 0, 0, 0};
        const float w[8] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w};
        for (size_t k = 0; k < 8; ++k) {
          if (w[k] == 0.0f) continue;
          const uint16_t jk = k < 4 ? got.joints[v].j[k] : got.joints1[v].j[k - 4];
          const std::array<double, 3> q = dpoint(dmat_of(palette[jk]), p);
          for (size_t c = 0; c < 3; ++c) a[c] += w[k] * q[c];
        }
      } else if (got.joint >= 0) {
        a = dpoint(dmat_of(palette[static_cast<size_t>(got.joint)]), p);
      }
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
    check_against_json(file);
    ++checked;
  }
  EXPECT_GE(checked, 60);
}

TEST(ImportGltfCorpus, SeveralSkinsGiveOneRigWithEveryVertexWhereItsOwnSkinPutsIt) {
  // check_against_json skins every vertex at rest with its node's own skin (the file's
  // joints and inverse binds, in double) and holds the import's palette to it.
  for (const char* path : {"asset-generator/Animation_Skin/Animation_Skin_11.gltf",
                           "gltf/ozz-tests/multiple_roots.gltf"}) {
    SCOPED_TRACE(path);
    const Imported in = import_file(kCorpus / path);
    ASSERT_TRUE(in.doc.ok());
    ASSERT_TRUE(in.model.ok()) << describe(in.model.issues);
    EXPECT_GE(used_skins(in.j, json_scene(in.j)).size(), 2u);
    ASSERT_TRUE(in.model.rig.has_value());
    EXPECT_FALSE(in.model.rig->node_rig);
    check_against_json(kCorpus / path);
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

TEST(ImportGltfCorpus, MorphFilesImportWithTheirWeightsClips) {
  // Every corpus file with morph targets: a set per morphing node, every weights channel
  // a kWeights channel with the reader's keys bit for bit (check_against_json holds the
  // rest, counts and key bounds, against the JSON).
  int files = 0;
  for (const fs::path& file : real_models()) {
    const json j = json_of(file);
    const JsonScene scene = json_scene(j);
    if (morph_nodes(j, scene).empty()) continue;
    ++files;
    SCOPED_TRACE(corpus_name(file));
    const Imported in = import_file(file);
    ASSERT_TRUE(in.model.ok()) << describe(in.model.issues);
    EXPECT_EQ(count_code(in.model, "ANIMATION_CHANNEL_OUTSIDE_RIG"), 0);
    ASSERT_TRUE(in.model.rig.has_value());
    const Rig& rig = in.model.rig->rig;
    EXPECT_EQ(rig.morph_sets().size(), morph_nodes(j, scene).size());
    int weights_channels = 0;
    for (size_t c = 0; c < rig.clips().size(); ++c) {
      const GltfAnimation& anim =
          in.doc.animations[static_cast<size_t>(in.model.rig->clip_source_animations[c])];
      size_t k = 0;
      for (const GltfChannel& source : anim.channels) {
        ASSERT_LT(k, rig.clips()[c].channels().size());
        const Channel& ch = rig.clips()[c].channels()[k++];
        EXPECT_EQ(ch.property == Property::kWeights, source.morph_weights);
        if (!source.morph_weights) continue;
        ++weights_channels;
        EXPECT_EQ(ch.width, source.width);
        ASSERT_EQ(ch.values.size(), source.values.size());
        EXPECT_TRUE(bits_equal(ch.values.data(), source.values.data(),
                               static_cast<int>(source.values.size())));
        EXPECT_TRUE(bits_equal(ch.times.data(), source.times.data(),
                               static_cast<int>(source.times.size())));
      }
    }
    const bool keyed =
        std::any_of(in.doc.animations.begin(), in.doc.animations.end(), [](const GltfAnimation& a) {
          return std::any_of(a.channels.begin(), a.channels.end(),
                             [](const GltfChannel& ch) { return ch.morph_weights; });
        });
    if (keyed) {
      EXPECT_GE(weights_channels, 1);
    }
  }
  EXPECT_GE(files, 5);
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
