// The glTF import stage (import_gltf.h). Implements, from Khronos glTF 2.0 (2.0.1):
// "Meshes" (primitive modes: the triangle strip and fan index formulas, and the winding
// rule that a negative determinant of the node's world matrix makes triangles clockwise),
// "Transformations" (world = parent world * local), "Skins" (the skinned node's transform
// is ignored; joint matrices are world(joint) * inverseBindMatrix) and "Animations".

#include "animpack/compiler/import_gltf.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "animpack/compiler/mesh_generate.h"
#include "import_internal.h"

namespace animpack {
namespace {

using namespace import_detail;  // NOLINT(build/namespaces): this stage's own helpers

std::string primitive_pointer(size_t mesh, size_t primitive) {
  return idx(idx("/meshes", mesh) + "/primitives", primitive);
}

// Bit-for-bit equal matrices (two skins' inverse binds of one joint).
bool same_matrix(const Mat4& a, const Mat4& b) { return bits_equal(a.m, b.m, 16); }

// ---------------------------------------------------------------------------------------
// The scene walk

struct SceneWalk {
  std::vector<int> order;   // walked nodes, depth first in child order (parents first)
  std::vector<int> parent;  // per node: its parent in the walk, -1 for a root or unwalked
  std::vector<bool> walked;
  std::vector<Mat4> world;  // per walked node: its rest world matrix
};

SceneWalk walk_scene(const GltfDocument& doc) {
  const size_t n = doc.nodes.size();
  SceneWalk w;
  w.parent.assign(n, -1);
  w.walked.assign(n, false);
  w.world.assign(n, Mat4{});
  // Iterative, so deep hierarchies cannot exhaust the stack; a node reached twice (only
  // possible in a document with errors) is walked once.
  std::vector<std::pair<int, int>> stack;  // (node, parent)
  for (auto it = doc.roots.rbegin(); it != doc.roots.rend(); ++it) stack.push_back({*it, -1});
  while (!stack.empty()) {
    const auto [node, parent] = stack.back();
    stack.pop_back();
    if (node < 0 || static_cast<size_t>(node) >= n || w.walked[static_cast<size_t>(node)]) {
      continue;
    }
    const size_t u = static_cast<size_t>(node);
    w.walked[u] = true;
    w.parent[u] = parent;
    w.order.push_back(node);
    w.world[u] = parent < 0 ? doc.nodes[u].matrix
                            : mul_affine(w.world[static_cast<size_t>(parent)], doc.nodes[u].matrix);
    const std::vector<int>& children = doc.nodes[u].children;
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back({*it, node});
  }
  return w;
}

// ---------------------------------------------------------------------------------------
// The import

class Importer {
 public:
  Importer(const GltfDocument& doc, const ImportOptions& options, ImportedModel* out)
      : doc_(doc), out_(out), issues_(&out->issues), walk_(walk_scene(doc)), options_(options) {
    joint_of_.assign(doc.nodes.size(), -1);
  }

  void run() {
    collect_skins();
    bool have_rig = false;
    if (!skins_.empty()) {
      have_rig = build_skin_joints();
      if (!have_rig) return;
    } else if (animates_scene() || has_morph_nodes()) {
      build_node_joints();
      have_rig = true;
    }
    if (have_rig && joints_.size() > kGltfMaxSkinJoints) {
      issues_.error(skins_.size() == 1 ? idx("/skins", static_cast<size_t>(skins_[0]))
                    : skins_.empty()   ? "/nodes"
                                       : "/skins",
                    "RIG_TOO_MANY_JOINTS",
                    "The rig has " + std::to_string(joints_.size()) + " joints; at most " +
                        std::to_string(kGltfMaxSkinJoints) + " are taken.");
      return;
    }
    if (have_rig) build_morph_sets();
    build_parts();
    reduce_influences();
    check_finite();
    std::vector<Clip> clips = build_clips();
    if (!have_rig || !out_->ok()) return;

    auto skeleton = Skeleton::create(std::move(joints_), std::move(inverse_binds_), root_);
    const std::string at = skins_.size() == 1 ? idx("/skins", static_cast<size_t>(skins_[0]))
                           : skins_.empty()   ? ""
                                              : "/skins";
    if (!skeleton) {
      issues_.error(at, "RIG_INVALID",
                    std::string("The skeleton is refused: ") + skeleton.error().message() + ".");
      return;
    }
    auto rig = Rig::create(std::move(*skeleton), std::move(clips), std::move(morph_sets_));
    if (!rig) {
      issues_.error(at, "RIG_INVALID",
                    std::string("The rig is refused: ") + rig.error().message() + ".");
      return;
    }
    CookedRig cooked;
    cooked.rig = std::move(*rig);
    cooked.joint_source_nodes = std::move(joint_nodes_);
    cooked.clip_source_animations = std::move(clip_sources_);
    cooked.morph_source_nodes = std::move(morph_nodes_);
    cooked.node_rig = skins_.empty();
    out_->rig = std::move(cooked);
  }

 private:
  const GltfNode& node(int n) const { return doc_.nodes[static_cast<size_t>(n)]; }
  bool valid_node(int n) const { return n >= 0 && static_cast<size_t>(n) < doc_.nodes.size(); }
  int joint_of(int n) const { return valid_node(n) ? joint_of_[static_cast<size_t>(n)] : -1; }
  bool walked(int n) const { return valid_node(n) && walk_.walked[static_cast<size_t>(n)]; }
  int walk_parent(int n) const { return walk_.parent[static_cast<size_t>(n)]; }
  const Mat4& world(int n) const { return walk_.world[static_cast<size_t>(n)]; }
  const GltfMesh* mesh_of(int n) const {
    const int m = node(n).mesh;
    return m >= 0 && static_cast<size_t>(m) < doc_.meshes.size()
               ? &doc_.meshes[static_cast<size_t>(m)]
               : nullptr;
  }
  const GltfSkin* skin_of(int n) const {
    const int s = node(n).skin;
    return s >= 0 && static_cast<size_t>(s) < doc_.skins.size()
               ? &doc_.skins[static_cast<size_t>(s)]
               : nullptr;
  }

  // VALUE_NOT_FINITE for what the pack would get from overflowing arithmetic (glTF's
  // values are finite, their products need not be): world matrices at rest, rest poses,
  // inverse binds and rest palettes of the joints, vertices placed in model space.
  void check_finite() {
    for (int n : walk_.order) {
      if (!finite(world(n))) {
        issues_.error(idx("/nodes", static_cast<size_t>(n)), "VALUE_NOT_FINITE",
                      "The node's world matrix at rest is not finite (its transform or its "
                      "ancestors' overflow a float).");
        break;
      }
    }
    for (size_t j = 0; j < joints_.size(); ++j) {
      const size_t n = static_cast<size_t>(joint_nodes_[j]);
      const bool bind_ok = j >= inverse_binds_.size() || finite(inverse_binds_[j]);
      const bool palette_ok = j >= inverse_binds_.size() ||
                              finite(mul_affine(world(joint_nodes_[j]), inverse_binds_[j]));
      if (!finite(joints_[j].rest) || !bind_ok || !palette_ok) {
        issues_.error(
            bind_skin_[j] >= 0 && !bind_ok
                ? idx("/skins", static_cast<size_t>(bind_skin_[j])) + "/inverseBindMatrices"
                : idx("/nodes", n),
            "VALUE_NOT_FINITE",
            std::string("Joint ") + std::to_string(j) + "'s " +
                (!finite(joints_[j].rest) ? "rest pose"
                 : !bind_ok               ? "inverse bind matrix"
                                          : "rest palette (world x inverse bind)") +
                " is not finite.");
        break;
      }
    }
    // The rest palette, for the vertices as the runtime places them at rest.
    std::vector<Mat4> palette(joints_.size());
    for (size_t j = 0; j < joints_.size(); ++j) {
      palette[j] = j < inverse_binds_.size() ? mul_affine(world(joint_nodes_[j]), inverse_binds_[j])
                                             : world(joint_nodes_[j]);
    }
    const auto placed_finite = [&palette](const CookedPart& part, size_t v) {
      if (!part.joints.empty() && v < part.weights.size()) {
        const bool eight = v < part.joints1.size() && v < part.weights1.size();
        const Vec4 w0 = part.weights[v];
        const Vec4 w1 = eight ? part.weights1[v] : Vec4{0, 0, 0, 0};
        const float w[8] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w};
        Vec3 sum{0, 0, 0};
        for (int k = 0; k < 8; ++k) {
          const size_t j = k < 4 ? part.joints[v].j[k] : eight ? part.joints1[v].j[k - 4] : 0;
          if (w[k] == 0.0f || j >= palette.size()) continue;
          const Vec3 p = transform_point(palette[j], part.positions[v]);
          sum = Vec3{sum.x + w[k] * p.x, sum.y + w[k] * p.y, sum.z + w[k] * p.z};
        }
        return finite(sum);
      }
      if (part.joint >= 0 && static_cast<size_t>(part.joint) < palette.size()) {
        return finite(transform_point(palette[static_cast<size_t>(part.joint)], part.positions[v]));
      }
      return true;
    };
    for (const CookedPart& part : out_->mesh.parts) {
      bool ok = std::all_of(part.positions.begin(), part.positions.end(),
                            [](const Vec3& v) { return finite(v); }) &&
                std::all_of(part.normals.begin(), part.normals.end(),
                            [](const Vec3& v) { return finite(v); });
      for (size_t v = 0; ok && v < part.positions.size(); ++v) ok = placed_finite(part, v);
      if (!ok) {
        issues_.error(primitive_pointer(static_cast<size_t>(part.source_mesh),
                                        static_cast<size_t>(part.source_primitive)),
                      "VALUE_NOT_FINITE",
                      "A vertex of the primitive is not finite once placed in the model's space "
                      "(at rest, skinned or carried by its joint).");
        break;
      }
    }
  }

  // Every float of a plain struct of floats (Vec3, Trs, Mat4) is finite.
  template <typename T>
  static bool finite(const T& value) {
    static_assert(sizeof(T) % sizeof(float) == 0);
    float f[sizeof(T) / sizeof(float)];
    std::memcpy(f, &value, sizeof f);
    return std::all_of(std::begin(f), std::end(f), [](float x) { return std::isfinite(x); });
  }

  // The skins of the scene's skinned nodes, in the order the walk meets them.
  void collect_skins() {
    for (int n : walk_.order) {
      if (!mesh_of(n) || !skin_of(n)) continue;
      const int s = node(n).skin;
      if (std::find(skins_.begin(), skins_.end(), s) == skins_.end()) skins_.push_back(s);
    }
  }

  // Whether an animation moves (translation, rotation, scale) a node of the scene.
  bool animates_scene() const {
    for (const GltfAnimation& anim : doc_.animations) {
      for (const GltfChannel& ch : anim.channels) {
        if (!ch.morph_weights && walked(ch.node)) return true;
      }
    }
    return false;
  }

  // Whether a walked node's mesh has morph targets (they need a rig for their weights).
  bool has_morph_nodes() const {
    return std::any_of(walk_.order.begin(), walk_.order.end(), [&](int n) {
      const GltfMesh* mesh = mesh_of(n);
      return mesh && mesh->morph_targets > 0;
    });
  }

  // The skins' joints, the nodes between them, and (when the root joints have different
  // parents) the ancestors that join them; their order, parents, rest pose, inverse binds
  // (helper joints where two skins disagree) and the skeleton's root matrix.
  bool build_skin_joints() {
    std::vector<bool> in_rig(doc_.nodes.size(), false), is_joint(doc_.nodes.size(), false);
    bool ok = true;
    for (int s : skins_) {
      const GltfSkin& skin = doc_.skins[static_cast<size_t>(s)];
      const std::string at = idx("/skins", static_cast<size_t>(s));
      for (size_t k = 0; k < skin.joints.size(); ++k) {
        const int j = skin.joints[k];
        if (!walked(j)) {
          issues_.error(idx(at + "/joints", k), "SKIN_JOINT_NOT_IN_SCENE",
                        "Joint node " + std::to_string(j) + " is not in the default scene.");
          ok = false;
          continue;
        }
        in_rig[static_cast<size_t>(j)] = is_joint[static_cast<size_t>(j)] = true;
      }
    }
    if (!ok) return false;
    // Non-joint nodes between a joint and the nearest joint above it.
    for (int s : skins_) {
      for (int j : doc_.skins[static_cast<size_t>(s)].joints) {
        std::vector<int> chain;
        int x = walk_parent(j);
        while (x >= 0 && !is_joint[static_cast<size_t>(x)]) {
          chain.push_back(x);
          x = walk_parent(x);
        }
        if (x >= 0) {
          for (int c : chain) in_rig[static_cast<size_t>(c)] = true;
        }
      }
    }
    // The root joints: rig nodes without a rig node above them.
    std::vector<int> roots;
    for (int n : walk_.order) {
      if (in_rig[static_cast<size_t>(n)] &&
          (walk_parent(n) < 0 || !in_rig[static_cast<size_t>(walk_parent(n))])) {
        roots.push_back(n);
      }
    }
    int common = roots.empty() ? -1 : walk_parent(roots[0]);
    const bool shared =
        std::all_of(roots.begin(), roots.end(), [&](int r) { return walk_parent(r) == common; });
    if (!shared) {
      // The lowest node above every root joint, if any; the roots' ancestors below it join
      // the rig (all of them up to the scene roots when there is none).
      const auto above = [&](int ancestor, int n) {
        for (int x = walk_parent(n); x >= 0; x = walk_parent(x)) {
          if (x == ancestor) return true;
        }
        return false;
      };
      common = -1;
      for (int x = walk_parent(roots[0]); x >= 0; x = walk_parent(x)) {
        if (std::all_of(roots.begin(), roots.end(), [&](int r) { return above(x, r); })) {
          common = x;
          break;
        }
      }
      for (int r : roots) {
        for (int x = walk_parent(r); x >= 0 && x != common; x = walk_parent(x)) {
          in_rig[static_cast<size_t>(x)] = true;
        }
      }
    }
    root_ = common >= 0 ? world(common) : Mat4{};

    for (int n : walk_.order) {
      if (!in_rig[static_cast<size_t>(n)]) continue;
      add_joint(n);
    }
    // Inverse binds from the first skin listing each joint (identity for the added nodes);
    // a later skin disagreeing gets a helper joint.
    inverse_binds_.assign(joints_.size(), Mat4{});
    bind_skin_.assign(joints_.size(), -1);
    bind_index_.assign(joints_.size(), -1);
    skin_remap_.assign(doc_.skins.size(), {});
    const size_t file_joints = joints_.size();
    for (int s : skins_) {
      const GltfSkin& skin = doc_.skins[static_cast<size_t>(s)];
      std::vector<uint16_t>& remap = skin_remap_[static_cast<size_t>(s)];
      remap.assign(skin.joints.size(), 0);
      size_t helpers = 0;
      std::string first_helper;
      for (size_t k = 0; k < skin.joints.size(); ++k) {
        const int joint = joint_of(skin.joints[k]);
        const Mat4 bind = k < skin.inverse_binds.size() ? skin.inverse_binds[k] : Mat4{};
        const size_t u = static_cast<size_t>(joint);
        if (bind_skin_[u] < 0 || same_matrix(inverse_binds_[u], bind)) {
          if (bind_skin_[u] < 0) {
            inverse_binds_[u] = bind;
            bind_skin_[u] = s;
            bind_index_[u] = static_cast<int>(k);
          }
          remap[k] = static_cast<uint16_t>(joint);
          continue;
        }
        // An earlier helper of this joint with the same bind serves this skin too.
        int helper = -1;
        for (size_t h = file_joints; h < joints_.size(); ++h) {
          if (joints_[h].parent == joint && same_matrix(inverse_binds_[h], bind)) {
            helper = static_cast<int>(h);
            break;
          }
        }
        if (helper < 0) {
          Joint extra;
          extra.name = joints_[u].name + "#skin" + std::to_string(s);
          extra.parent = static_cast<int16_t>(too_many_joints_ ? -1 : joint);
          helper = static_cast<int>(joints_.size());
          if (joints_.size() >= static_cast<size_t>(kMaxJoints)) too_many_joints_ = true;
          if (helpers++ == 0) first_helper = extra.name;
          joints_.push_back(std::move(extra));
          inverse_binds_.push_back(bind);
          bind_skin_.push_back(s);
          bind_index_.push_back(static_cast<int>(k));
          joint_nodes_.push_back(skin.joints[k]);
        }
        remap[k] = static_cast<uint16_t>(helper);
      }
      if (helpers > 0) {
        issues_.note(idx("/skins", static_cast<size_t>(s)), "SKIN_HELPER_JOINT",
                     std::to_string(helpers) +
                         " joints of the skin have inverse bind matrices "
                         "differing from an earlier skin's; their vertices use helper joints (the "
                         "first is '" +
                         first_helper + "').");
      }
    }
    return true;
  }

  // Every walked node is a joint.
  void build_node_joints() {
    for (int n : walk_.order) add_joint(n);
    inverse_binds_.assign(joints_.size(), Mat4{});
    bind_skin_.assign(joints_.size(), -1);
    bind_index_.assign(joints_.size(), -1);
    root_ = Mat4{};
  }

  // Appends node n as the next joint; its parent is the nearest joint above it.
  void add_joint(int n) {
    if (joints_.size() >= static_cast<size_t>(kMaxJoints)) {
      // Skeleton::create refuses it; keep the indices in range meanwhile.
      too_many_joints_ = true;
    }
    Joint joint;
    joint.name = node(n).name.empty() ? "node_" + std::to_string(n) : node(n).name;
    int parent = -1;
    for (int x = walk_parent(n); x >= 0; x = walk_parent(x)) {
      if (joint_of(x) >= 0) {
        parent = joint_of(x);
        break;
      }
    }
    joint.parent = static_cast<int16_t>(too_many_joints_ ? -1 : parent);
    joint.rest = node(n).local;
    joint_of_[static_cast<size_t>(n)] = static_cast<int>(joints_.size());
    joints_.push_back(std::move(joint));
    joint_nodes_.push_back(n);
  }

  // The nearest rig joint at or above node n, or -1.
  int carrying_joint(int n) const {
    for (int x = n; x >= 0; x = walk_parent(x)) {
      if (joint_of(x) >= 0) return x;
    }
    return -1;
  }

  void build_parts() {
    for (int n : walk_.order) {
      const GltfMesh* mesh = mesh_of(n);
      if (!mesh) continue;
      for (size_t p = 0; p < mesh->primitives.size(); ++p) build_part(n, p);
    }
  }

  void build_part(int n, size_t p) {
    const size_t m = static_cast<size_t>(node(n).mesh);
    const GltfPrimitive& prim = doc_.meshes[m].primitives[p];
    const std::string at = primitive_pointer(m, p);
    if (prim.positions.empty()) {
      issues_.warning(at, "PRIMITIVE_NO_POSITION",
                      "The primitive has no POSITION attribute; it is skipped.");
      return;
    }
    CookedPart part;
    bool incomplete = false;
    if (!triangle_list(prim, &part.indices, &incomplete)) {
      issues_.warning(at + "/mode", "PRIMITIVE_NOT_TRIANGLES",
                      std::string("The primitive's mode is ") + mode_name(prim.mode) +
                          "; only triangles are imported, it is skipped.");
      return;
    }
    if (incomplete) {
      issues_.warning(at + "/indices", "PRIMITIVE_INCOMPLETE_TRIANGLE",
                      "The index count is not a multiple of 3; the last indices are dropped.");
    }
    part.source_node = n;
    part.source_mesh = static_cast<int>(m);
    part.source_primitive = static_cast<int>(p);
    part.positions = prim.positions;
    part.normals = prim.normals;
    part.tangents = prim.tangents;
    part.texcoords0 = prim.texcoords0;
    part.texcoords1 = prim.texcoords1;
    part.colors = prim.colors;
    part.material = prim.material >= 0 ? model_material(prim.material) : -1;
    part.source_vertices.resize(prim.positions.size());
    for (uint32_t i = 0; i < part.source_vertices.size(); ++i) part.source_vertices[i] = i;

    const bool skinned = !skins_.empty() && skin_of(n) && !prim.joints.empty() &&
                         prim.weights.size() == prim.joints.size() &&
                         !skin_remap_[static_cast<size_t>(node(n).skin)].empty();
    // Generated streams are made in the file's own space (after the skinned part's
    // per-source-vertex weights), then placed like the file's.
    if (skinned) skin_part(part, prim, at, node(n).skin);
    const int set = morph_set_of(n);
    if (set >= 0) morph_part(part, prim, set);
    generate_streams(part, at);
    if (!skinned && !skins_.empty() && carrying_joint(n) >= 0) {
      attach_part(part, n, carrying_joint(n));
    } else if (!skinned && skins_.empty() && joint_of(n) >= 0) {
      part.joint = joint_of(n);  // node rig: node-local vertices
    } else if (!skinned) {
      transform_part(part, world(n), det3(world(n)) < 0.0f);  // static, in model space
    }
    out_->mesh.parts.push_back(std::move(part));
  }

  // The part's morph targets: the file's deltas per source vertex (each stream empty or
  // one per vertex), before generated streams and placement.
  void morph_part(CookedPart& part, const GltfPrimitive& prim, int set) {
    const size_t targets = morph_sets_[static_cast<size_t>(set)].size();
    const size_t count = part.positions.size();
    part.morph_set = set;
    part.morph_targets.assign(targets, {});
    for (size_t t = 0; t < targets && t < prim.targets.size(); ++t) {
      const GltfMorphTarget& from = prim.targets[t];
      CookedMorphTarget& to = part.morph_targets[t];
      if (from.positions.size() == count) to.positions = from.positions;
      if (from.normals.size() == count && !part.normals.empty()) to.normals = from.normals;
      if (from.tangents.size() == count && !part.tangents.empty()) to.tangents = from.tangents;
    }
  }

  // Flat normals where the file has no NORMAL (glTF "Meshes": clients MUST calculate
  // them), tangents where the material has a normal texture and the file no TANGENT; each
  // a note. Runs on the file's vertices before they are placed (where coordinates are
  // the file's own, however large the node scales), so placement moves the generated
  // streams exactly as it moves the file's.
  void generate_streams(CookedPart& part, const std::string& at) {
    // mesh_generate copies the base streams per new vertex; the second influence set and
    // the morph deltas (per source vertex until now) follow source_vertices here.
    std::vector<JointIndices> joints1 = std::move(part.joints1);
    std::vector<Vec4> weights1 = std::move(part.weights1);
    std::vector<CookedMorphTarget> targets = std::move(part.morph_targets);
    const int morph_set = part.morph_set;
    make_streams(part, at);
    // Before make_streams source_vertices[i] == i, so following it keeps the streams of
    // a part whose vertices did not change as they are.
    const auto follow = [&part](auto& stream) {
      if (stream.empty()) return;
      std::remove_reference_t<decltype(stream)> out(part.source_vertices.size());
      for (size_t i = 0; i < out.size(); ++i) {
        const size_t from = part.source_vertices[i];
        if (from < stream.size()) out[i] = stream[from];
      }
      stream = std::move(out);
    };
    follow(joints1);
    follow(weights1);
    for (CookedMorphTarget& t : targets) {
      follow(t.positions);
      follow(t.normals);
      follow(t.tangents);
    }
    if (part.normals_generated) {
      for (CookedMorphTarget& t : targets) t.normals.clear();  // no base normals to move
    }
    part.joints1 = std::move(joints1);
    part.weights1 = std::move(weights1);
    part.morph_targets = std::move(targets);
    part.morph_set = morph_set;
  }

  // The generation itself (its notes included), on the base streams.
  void make_streams(CookedPart& part, const std::string& at) {
    if (part.normals.empty()) {
      generate_flat_normals(part);
    }
    if (part.normals_generated) {
      issues_.note(at + "/attributes", "NORMALS_GENERATED",
                   "The primitive has no NORMAL; flat normals were generated (" +
                       std::to_string(part.positions.size()) + " vertices after unwelding).");
    }
    if (part.material < 0 || !part.tangents.empty()) return;
    const TextureSlot& normal_map =
        out_->materials[static_cast<size_t>(part.material)].info.normal_texture;
    if (normal_map.texture < 0) return;
    if (generate_tangents(part, normal_map.uv_set)) {
      issues_.note(at + "/attributes", "TANGENTS_GENERATED",
                   "The primitive has no TANGENT and its material has a normal texture; "
                   "MikkTSpace tangents were generated from TEXCOORD_" +
                       std::to_string(normal_map.uv_set) + ".");
    }
  }

  // The model's material for glTF material m (added on first use, its textures too).
  int model_material(int m) {
    if (material_of_.empty()) material_of_.assign(doc_.materials.size(), -1);
    int& mapped = material_of_[static_cast<size_t>(m)];
    if (mapped >= 0) return mapped;
    const GltfMaterial& source = doc_.materials[static_cast<size_t>(m)];
    CookedMaterial cooked;
    cooked.name = source.name;
    cooked.source_file = out_->mesh.source_file;
    cooked.info = source.info;
    cooked.info.name = {};
    cooked.info.source_file = {};
    cooked.info.source_material = m;
    for (auto [slot, space] : {std::pair{&cooked.info.base_color_texture, ColorSpace::kSrgb},
                               {&cooked.info.metallic_roughness_texture, ColorSpace::kLinear},
                               {&cooked.info.normal_texture, ColorSpace::kLinear},
                               {&cooked.info.occlusion_texture, ColorSpace::kLinear},
                               {&cooked.info.emissive_texture, ColorSpace::kSrgb}}) {
      if (slot->texture >= 0) slot->texture = model_texture(slot->texture, space);
    }
    mapped = static_cast<int>(out_->materials.size());
    out_->materials.push_back(std::move(cooked));
    return mapped;
  }

  // The model's texture for glTF texture t in colour space `space`, or -1 when the
  // texture has no decoded image (a texture without a source samples nothing).
  int model_texture(int t, ColorSpace space) {
    const int image = doc_.textures[static_cast<size_t>(t)].source;
    if (image < 0 || !doc_.images[static_cast<size_t>(image)].decoded) return -1;
    const auto key = std::pair{image, space};
    if (const auto it = texture_of_.find(key); it != texture_of_.end()) return it->second;
    const GltfImage& img = doc_.images[static_cast<size_t>(image)];
    CookedTexture cooked;
    cooked.source_file = out_->mesh.source_file;
    cooked.source_image = image;
    cooked.mime_type = img.mime_type;
    cooked.width = img.width;
    cooked.height = img.height;
    cooked.color_space = space;
    cooked.rgba = img.rgba;
    const int index = static_cast<int>(out_->textures.size());
    out_->textures.push_back(std::move(cooked));
    texture_of_.emplace(key, index);
    return index;
  }

  // A skinned primitive: bind-space vertices, joints of both influence sets renumbered
  // from skin s to rig joints, the eight weights normalised together to sum to one; a
  // second set that weighs 0 everywhere is dropped.
  void skin_part(CookedPart& part, const GltfPrimitive& prim, const std::string& at, int s) {
    if (prim.joint_sets > 2) {
      issues_.warning(at + "/attributes/JOINTS_2", "SKIN_INFLUENCES_DROPPED",
                      "The primitive has " + std::to_string(prim.joint_sets) +
                          " JOINTS/WEIGHTS sets; only the 8 influences of JOINTS_0/1 and "
                          "WEIGHTS_0/1 are kept.");
    }
    const std::vector<uint16_t>& remap = skin_remap_[static_cast<size_t>(s)];
    const size_t count = prim.joints.size();
    const bool eight = prim.joints1.size() == count && prim.weights1.size() == count;
    part.joints.resize(count);
    part.weights.resize(count);
    if (eight) {
      part.joints1.resize(count);
      part.weights1.resize(count);
    }
    size_t no_weight = 0, first_no_weight = 0;
    size_t out_of_range[2] = {0, 0}, first_out[2] = {0, 0};
    bool second_used = false;
    for (size_t v = 0; v < count; ++v) {
      std::array<float, 8> w{};
      std::array<uint16_t, 8> j{};
      for (size_t k = 0; k < 4; ++k) {
        w[k] = prim.weights[v][k];
        j[k] = prim.joints[v][k];
        if (eight) {
          w[k + 4] = prim.weights1[v][k];
          j[k + 4] = prim.joints1[v][k];
        }
      }
      double sum = 0.0;
      for (size_t k = 0; k < 8; ++k) sum += static_cast<double>(w[k]);
      std::array<uint16_t, 8> rig{};
      for (size_t k = 0; k < 8; ++k) {
        if (j[k] < remap.size()) {
          rig[k] = remap[j[k]];
        } else if (w[k] != 0.0f) {
          if (out_of_range[k / 4]++ == 0) first_out[k / 4] = v;
        }
      }
      part.joints[v] = JointIndices{{rig[0], rig[1], rig[2], rig[3]}};
      if (eight) part.joints1[v] = JointIndices{{rig[4], rig[5], rig[6], rig[7]}};
      if (!(sum > 0.0)) {
        if (no_weight++ == 0) first_no_weight = v;
        part.weights[v] = {1, 0, 0, 0};
        continue;
      }
      if (sum != 1.0) {
        for (float& x : w) x = static_cast<float>(x / sum);
      }
      part.weights[v] = {w[0], w[1], w[2], w[3]};
      if (eight) {
        part.weights1[v] = {w[4], w[5], w[6], w[7]};
        second_used = second_used || w[4] != 0.0f || w[5] != 0.0f || w[6] != 0.0f || w[7] != 0.0f;
      }
    }
    if (!second_used) {
      part.joints1.clear();
      part.weights1.clear();
    }
    if (no_weight > 0) {
      issues_.error(at + "/attributes/WEIGHTS_0", "SKIN_VERTEX_NO_WEIGHT",
                    std::to_string(no_weight) + " vertices (the first is " +
                        std::to_string(first_no_weight) + ") have weights summing to 0.");
    }
    for (size_t set = 0; set < 2; ++set) {
      if (out_of_range[set] == 0) continue;
      issues_.error(at + "/attributes/JOINTS_" + std::to_string(set), "SKIN_VERTEX_JOINT_OOB",
                    std::to_string(out_of_range[set]) + " influences (the first of vertex " +
                        std::to_string(first_out[set]) + ") name a joint outside the skin's " +
                        std::to_string(remap.size()) + ".");
    }
  }

  // ImportOptions::max_influences below 8 (reduce_part_influences on every part); one
  // INFLUENCES_REDUCED note for the model.
  void reduce_influences() {
    const size_t keep = static_cast<size_t>(std::clamp(options_.max_influences, 1, 8));
    if (keep == 8) return;
    InfluenceReduction all;
    int first_part = -1;
    for (size_t p = 0; p < out_->mesh.parts.size(); ++p) {
      const InfluenceReduction r = reduce_part_influences(out_->mesh.parts[p], keep);
      if (r.changed > 0 && first_part < 0) first_part = static_cast<int>(p);
      all.changed += r.changed;
      all.largest_dropped = std::max(all.largest_dropped, r.largest_dropped);
    }
    if (all.changed == 0) return;
    const CookedPart& first = out_->mesh.parts[static_cast<size_t>(first_part)];
    char largest[32];
    std::snprintf(largest, sizeof largest, "%.6g", all.largest_dropped);
    issues_.note(primitive_pointer(static_cast<size_t>(first.source_mesh),
                                   static_cast<size_t>(first.source_primitive)) +
                     "/attributes",
                 "INFLUENCES_REDUCED",
                 std::to_string(all.changed) + " vertices had more than " + std::to_string(keep) +
                     " influences and were reduced to their " + std::to_string(keep) +
                     " largest, renormalised; the largest weight dropped is " + largest + ".");
  }

  // A part on node n under (or at) rig joint node j: skinned to j alone, its vertices
  // put where the rest palette maps them to their rest world position:
  // v_bind = inverse(IBM_j) * inverse(world_j) * world_n * v, with
  // inverse(world_j) * world_n the local matrices from below j down to n.
  void attach_part(CookedPart& part, int n, int j) {
    const int joint = joint_of(j);
    Mat4 relative;
    for (int x = n; x != j; x = walk_parent(x)) relative = mul_affine(node(x).matrix, relative);
    bool invertible = false;
    const Mat4 bind = inverse_affine(inverse_binds_[static_cast<size_t>(joint)], &invertible);
    if (!invertible) {
      const size_t u = static_cast<size_t>(joint);
      issues_.error(idx(idx("/skins", static_cast<size_t>(std::max(bind_skin_[u], 0))) +
                            "/inverseBindMatrices",
                        static_cast<size_t>(std::max(bind_index_[u], 0))),
                    "SKIN_IBM_SINGULAR",
                    "The inverse bind matrix of joint node " + std::to_string(j) +
                        " is singular, so the mesh of node " + std::to_string(n) +
                        " cannot be attached to it.");
      return;
    }
    transform_part(part, mul_affine(bind, relative), det3(world(n)) < 0.0f);
    part.joints.assign(part.positions.size(),
                       JointIndices{{static_cast<uint16_t>(joint), 0, 0, 0}});
    part.weights.assign(part.positions.size(), Vec4{1, 0, 0, 0});
  }

  // One MorphSet per walked node whose mesh has morph targets, in walk order.
  void build_morph_sets() {
    set_of_.assign(doc_.nodes.size(), -1);
    std::vector<bool> named(doc_.meshes.size(), false);  // target-name warnings given
    for (int n : walk_.order) {
      const GltfMesh* mesh = mesh_of(n);
      if (!mesh || mesh->morph_targets <= 0) continue;
      const size_t m = static_cast<size_t>(node(n).mesh);
      const size_t targets = static_cast<size_t>(mesh->morph_targets);
      if (targets > kMaxMorphTargets) {
        if (!named[m]) {
          issues_.error(idx("/meshes", m), "MORPH_TOO_MANY_TARGETS",
                        "The mesh has " + std::to_string(targets) + " morph targets; at most " +
                            std::to_string(kMaxMorphTargets) + " are taken.");
        }
        named[m] = true;
        continue;
      }
      MorphSet set;
      set.name = node(n).name.empty() ? "node_" + std::to_string(n) : node(n).name;
      std::set<std::string> taken;
      for (size_t t = 0; t < targets; ++t) {
        std::string name = t < mesh->target_names.size() ? mesh->target_names[t] : "";
        if (name.empty()) name = "target_" + std::to_string(t);
        if (taken.count(name) != 0) {
          std::string suffixed = name + "_" + std::to_string(t);
          while (taken.count(suffixed) != 0) suffixed += "_" + std::to_string(t);
          if (!named[m]) {
            issues_.warning(
                idx(idx("/meshes", m) + "/extras/targetNames", t), "MORPH_TARGET_NAME_DUPLICATE",
                "An earlier target is named '" + name + "'; this one is named '" + suffixed + "'.");
          }
          name = suffixed;
        }
        taken.insert(name);
        set.target_names.push_back(std::move(name));
      }
      named[m] = true;
      const bool from_node = node(n).weights.size() == targets;
      const std::vector<float>& defaults = from_node ? node(n).weights : mesh->weights;
      set.default_weights.assign(targets, 0.0f);
      for (size_t t = 0; t < targets && t < defaults.size(); ++t) {
        const float w = defaults[t];
        if (!(w >= -kMaxMorphWeight && w <= kMaxMorphWeight)) {
          issues_.error(
              idx((from_node ? idx("/nodes", static_cast<size_t>(n)) : idx("/meshes", m)) +
                      "/weights",
                  t),
              "MORPH_WEIGHT_OUT_OF_RANGE",
              "The default weight " + std::to_string(w) + " is outside [-" +
                  std::to_string(static_cast<int>(kMaxMorphWeight)) + ", " +
                  std::to_string(static_cast<int>(kMaxMorphWeight)) + "].");
          continue;
        }
        set.default_weights[t] = w;
      }
      set.joint = skins_.empty() ? joint_of(n) : -1;
      set_of_[static_cast<size_t>(n)] = static_cast<int>(morph_sets_.size());
      morph_sets_.push_back(std::move(set));
      morph_nodes_.push_back(n);
    }
  }

  // Node n's morph set, or -1.
  int morph_set_of(int n) const {
    return valid_node(n) && static_cast<size_t>(n) < set_of_.size()
               ? set_of_[static_cast<size_t>(n)]
               : -1;
  }

  // One clip per animation that keeps a channel.
  std::vector<Clip> build_clips() {
    std::vector<Clip> clips;
    std::set<std::string> names;
    for (size_t a = 0; a < doc_.animations.size(); ++a) {
      const GltfAnimation& anim = doc_.animations[a];
      const std::string at = idx("/animations", a);
      std::vector<const GltfChannel*> kept;
      for (const GltfChannel& ch : anim.channels) {
        const std::string cat = idx(at + "/channels", static_cast<size_t>(ch.source_channel));
        if (ch.morph_weights && morph_set_of(ch.node) < 0) {
          issues_.warning(cat, "ANIMATION_CHANNEL_OUTSIDE_RIG",
                          "The channel animates the morph weights of node " +
                              std::to_string(ch.node) +
                              ", which has no morph set in the rig; channel skipped.");
        } else if (!ch.morph_weights && joint_of(ch.node) < 0) {
          issues_.warning(cat, "ANIMATION_CHANNEL_OUTSIDE_RIG",
                          "The channel moves node " + std::to_string(ch.node) +
                              ", which is not a joint of the rig; channel skipped.");
        } else {
          kept.push_back(&ch);
        }
      }
      if (kept.empty()) {
        issues_.warning(at, "ANIMATION_EMPTY",
                        "No channel of the animation moves a rig joint or morph set; animation "
                        "skipped.");
        continue;
      }
      const std::string name = unique_clip_name(anim.name, a, at, names, issues_);
      Clip clip(name);
      for (const GltfChannel* ch : kept) {
        if (ch->morph_weights) {
          const int set = morph_set_of(ch->node);
          clip.add_weights_channel(
              static_cast<uint16_t>(set),
              static_cast<uint16_t>(morph_sets_[static_cast<size_t>(set)].size()),
              ch->interpolation, ch->times, ch->values);
        } else {
          clip.add_channel(static_cast<uint16_t>(joint_of(ch->node)), ch->property,
                           ch->interpolation, ch->times, ch->values);
        }
      }
      clips.push_back(std::move(clip));
      clip_sources_.push_back(static_cast<int>(a));
    }
    return clips;
  }

  const GltfDocument& doc_;
  ImportedModel* out_;
  Issues issues_;
  SceneWalk walk_;
  ImportOptions options_;
  std::vector<int> skins_;                         // the skins used, in walk order
  std::vector<int> joint_of_;                      // per node: its rig joint, or -1
  std::vector<std::vector<uint16_t>> skin_remap_;  // per skin: skin joint -> rig joint
  std::vector<Joint> joints_;
  std::vector<Mat4> inverse_binds_;
  std::vector<int> bind_skin_;   // per joint: the skin its inverse bind is from, or -1
  std::vector<int> bind_index_;  // per joint: its index in that skin's joints, or -1
  std::vector<int> joint_nodes_;
  std::vector<int> clip_sources_;
  std::vector<MorphSet> morph_sets_;
  std::vector<int> morph_nodes_;                          // per set: its node
  std::vector<int> set_of_;                               // per node: its morph set, or -1
  std::vector<int> material_of_;                          // glTF material -> model material
  std::map<std::pair<int, ColorSpace>, int> texture_of_;  // (image, space) -> model texture
  Mat4 root_;
  bool too_many_joints_ = false;
};

}  // namespace

bool is_import_issue_code(std::string_view code) {
  return std::any_of(std::begin(kImportIssueCodes), std::end(kImportIssueCodes),
                     [&](const GltfCodeInfo& info) { return info.code == code; });
}

bool ImportedModel::ok() const {
  return std::none_of(issues.begin(), issues.end(), [](const ImportIssue& i) { return i.error; });
}

ImportedModel import_gltf(const GltfDocument& doc, std::string_view mesh_name,
                          std::string_view source_file, const ImportOptions& options) {
  ImportedModel out;
  out.mesh.name = std::string(mesh_name);
  out.mesh.source_file = std::string(source_file);
  if (!doc.ok()) {
    out.issues.push_back({"", "GLTF_DOCUMENT_INVALID",
                          "The glTF document has errors; report the reader's issues and do not "
                          "import it.",
                          true, false});
    return out;
  }
  Importer importer(doc, options, &out);
  importer.run();
  return out;
}

}  // namespace animpack
