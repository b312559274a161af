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
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "animpack/compiler/mesh_generate.h"

namespace animpack {
namespace {

std::string idx(std::string_view base, size_t i) {
  std::string out(base);
  out += '/';
  out += std::to_string(i);
  return out;
}

std::string primitive_pointer(size_t mesh, size_t primitive) {
  return idx(idx("/meshes", mesh) + "/primitives", primitive);
}

// Collects issues in the order found.
class Issues {
 public:
  explicit Issues(std::vector<ImportIssue>* out) : out_(out) {}
  void error(std::string pointer, std::string code, std::string message) {
    out_->push_back({std::move(pointer), std::move(code), std::move(message), true, false});
  }
  void warning(std::string pointer, std::string code, std::string message) {
    out_->push_back({std::move(pointer), std::move(code), std::move(message), false, false});
  }
  void note(std::string pointer, std::string code, std::string message) {
    out_->push_back({std::move(pointer), std::move(code), std::move(message), false, true});
  }

 private:
  std::vector<ImportIssue>* out_;
};

// ---------------------------------------------------------------------------------------
// Matrices

// The determinant of the upper 3x3 block (column-major m[c*4+r]).
float det3(const Mat4& m) {
  const float* a = m.m;
  return a[0] * (a[5] * a[10] - a[9] * a[6]) + a[4] * (a[9] * a[2] - a[1] * a[10]) +
         a[8] * (a[1] * a[6] - a[5] * a[2]);
}

// The inverse transpose of the upper 3x3 block (translation zero): what normals take.
// A singular block gives the block itself (normals are then as good as they get).
Mat4 normal_matrix(const Mat4& m) {
  Mat4 linear = m;
  linear.m[12] = linear.m[13] = linear.m[14] = 0.0f;
  bool ok = false;
  const Mat4 inv = inverse_affine(linear, &ok);
  if (!ok) return linear;
  Mat4 out;
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r < 3; ++r) out.m[c * 4 + r] = inv.m[r * 4 + c];
  }
  return out;
}

// Puts a part's vertices through `m` (positions as points, normals by the inverse
// transpose, tangents as vectors), flipping winding and tangent handedness when `mirror`.
void transform_part(CookedPart& part, const Mat4& m, bool mirror) {
  for (Vec3& p : part.positions) p = transform_point(m, p);
  const Mat4 n = normal_matrix(m);
  for (Vec3& v : part.normals) v = normalize(transform_vector(n, v));
  for (Vec4& t : part.tangents) {
    const Vec3 d = normalize(transform_vector(m, {t.x, t.y, t.z}));
    t = {d.x, d.y, d.z, mirror ? -t.w : t.w};
  }
  if (mirror) {
    for (size_t i = 0; i + 2 < part.indices.size(); i += 3) {
      std::swap(part.indices[i + 1], part.indices[i + 2]);
    }
  }
}

bool same_matrix(const Mat4& a, const Mat4& b) { return bits_equal(a.m, b.m, 16); }

// Two skins are one when they have the same joints and the same inverse binds.
bool same_skin(const GltfSkin& a, const GltfSkin& b) {
  if (a.joints != b.joints || a.inverse_binds.size() != b.inverse_binds.size()) return false;
  for (size_t i = 0; i < a.inverse_binds.size(); ++i) {
    if (!same_matrix(a.inverse_binds[i], b.inverse_binds[i])) return false;
  }
  return true;
}

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
// Primitives

// The primitive's triangles as an index list; false (nothing built) for point and line
// modes. *out_incomplete tells that a TRIANGLES list had a partial triangle at its end.
bool triangle_list(const GltfPrimitive& prim, std::vector<uint32_t>* out, bool* out_incomplete) {
  std::vector<uint32_t> source;
  if (prim.indexed) {
    source = prim.indices;
  } else {
    source.resize(prim.vertex_count);
    for (uint32_t i = 0; i < prim.vertex_count; ++i) source[i] = i;
  }
  *out_incomplete = false;
  out->clear();
  const auto add = [&](uint32_t a, uint32_t b, uint32_t c) {
    if (a == b || b == c || a == c) return;  // strips and fans use these as restarts
    out->insert(out->end(), {a, b, c});
  };
  switch (prim.mode) {
    case GltfPrimitiveMode::kTriangles:
      *out_incomplete = source.size() % 3 != 0;
      source.resize(source.size() / 3 * 3);
      *out = std::move(source);
      return true;
    case GltfPrimitiveMode::kTriangleStrip:
      // glTF 2.0: p_i = {v_i, v_(i + (1 + i % 2)), v_(i + (2 - i % 2))}.
      for (size_t i = 0; i + 2 < source.size(); ++i) {
        if (i % 2 == 0) {
          add(source[i], source[i + 1], source[i + 2]);
        } else {
          add(source[i], source[i + 2], source[i + 1]);
        }
      }
      return true;
    case GltfPrimitiveMode::kTriangleFan:
      // glTF 2.0: p_i = {v_(i + 1), v_(i + 2), v_0}.
      for (size_t i = 0; i + 2 < source.size(); ++i) {
        add(source[i + 1], source[i + 2], source[0]);
      }
      return true;
    default:
      return false;
  }
}

const char* mode_name(GltfPrimitiveMode mode) {
  switch (mode) {
    case GltfPrimitiveMode::kPoints:
      return "POINTS";
    case GltfPrimitiveMode::kLines:
      return "LINES";
    case GltfPrimitiveMode::kLineLoop:
      return "LINE_LOOP";
    case GltfPrimitiveMode::kLineStrip:
      return "LINE_STRIP";
    default:
      return "a triangle mode";
  }
}

// ---------------------------------------------------------------------------------------
// The import

class Importer {
 public:
  Importer(const GltfDocument& doc, ImportedModel* out)
      : doc_(doc), out_(out), issues_(&out->issues), walk_(walk_scene(doc)) {
    joint_of_.assign(doc.nodes.size(), -1);
  }

  void run() {
    if (!choose_skin()) return;
    bool have_rig = false;
    if (skin_ >= 0) {
      have_rig = build_skin_joints();
      if (!have_rig) return;
    } else if (animates_scene()) {
      build_node_joints();
      have_rig = true;
    }
    if (have_rig && joints_.size() > kGltfMaxSkinJoints) {
      issues_.error(skin_ >= 0 ? idx("/skins", static_cast<size_t>(skin_)) : "/nodes",
                    "RIG_TOO_MANY_JOINTS",
                    "The rig has " + std::to_string(joints_.size()) + " joints; at most " +
                        std::to_string(kGltfMaxSkinJoints) + " are taken.");
      return;
    }
    build_parts();
    check_finite();
    std::vector<Clip> clips = build_clips();
    if (!have_rig || !out_->ok()) return;

    auto skeleton = Skeleton::create(std::move(joints_), std::move(inverse_binds_), root_);
    const std::string at = skin_ >= 0 ? idx("/skins", static_cast<size_t>(skin_)) : "";
    if (!skeleton) {
      issues_.error(at, "RIG_INVALID",
                    std::string("The skeleton is refused: ") + skeleton.error().message() + ".");
      return;
    }
    auto rig = Rig::create(std::move(*skeleton), std::move(clips));
    if (!rig) {
      issues_.error(at, "RIG_INVALID",
                    std::string("The rig is refused: ") + rig.error().message() + ".");
      return;
    }
    CookedRig cooked;
    cooked.rig = std::move(*rig);
    cooked.joint_source_nodes = std::move(joint_nodes_);
    cooked.clip_source_animations = std::move(clip_sources_);
    cooked.node_rig = skin_ < 0;
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
        issues_.error(skin_ >= 0 && !bind_ok
                          ? idx("/skins", static_cast<size_t>(skin_)) + "/inverseBindMatrices"
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
        const float w[4] = {part.weights[v].x, part.weights[v].y, part.weights[v].z,
                            part.weights[v].w};
        Vec3 sum{0, 0, 0};
        for (int k = 0; k < 4; ++k) {
          const size_t j = part.joints[v].j[k];
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

  // "A scene mesh holds one skin": finds the skin the scene's skinned nodes use.
  bool choose_skin() {
    std::vector<int> used;
    for (int n : walk_.order) {
      if (!mesh_of(n) || !skin_of(n)) continue;
      const int s = node(n).skin;
      if (skin_ < 0) skin_ = s;
      const bool known = std::any_of(used.begin(), used.end(), [&](int u) {
        return u == s ||
               same_skin(doc_.skins[static_cast<size_t>(u)], doc_.skins[static_cast<size_t>(s)]);
      });
      if (!known) used.push_back(s);
    }
    if (used.size() > 1) {
      std::string list;
      for (int s : used) list += (list.empty() ? "" : ", ") + std::to_string(s);
      issues_.error("/skins", "MESH_SEVERAL_SKINS",
                    "The scene's nodes use " + std::to_string(used.size()) + " different skins (" +
                        list + "); a scene mesh holds one skin.");
      return false;
    }
    return true;
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

  // The skin's joints, the nodes between them, and (when the root joints have different
  // parents) the ancestors that join them; their order, parents, rest pose, inverse binds
  // and the skeleton's root matrix.
  bool build_skin_joints() {
    const GltfSkin& skin = doc_.skins[static_cast<size_t>(skin_)];
    const std::string at = idx("/skins", static_cast<size_t>(skin_));
    std::vector<bool> in_rig(doc_.nodes.size(), false), is_joint(doc_.nodes.size(), false);
    bool ok = true;
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
    if (!ok) return false;
    // Non-joint nodes between a joint and the nearest joint above it.
    for (int j : skin.joints) {
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
    // Inverse binds from the skin (identity for the added nodes).
    inverse_binds_.assign(joints_.size(), Mat4{});
    skin_remap_.assign(skin.joints.size(), 0);
    for (size_t k = 0; k < skin.joints.size(); ++k) {
      const int joint = joint_of(skin.joints[k]);
      skin_remap_[k] = static_cast<uint16_t>(joint);
      if (k < skin.inverse_binds.size()) {
        inverse_binds_[static_cast<size_t>(joint)] = skin.inverse_binds[k];
      }
    }
    return true;
  }

  // Every walked node is a joint.
  void build_node_joints() {
    for (int n : walk_.order) add_joint(n);
    inverse_binds_.assign(joints_.size(), Mat4{});
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

    const bool skinned = skin_ >= 0 && skin_of(n) && !prim.joints.empty() &&
                         prim.weights.size() == prim.joints.size();
    // Generated streams are made in the file's own space (after the skinned part's
    // per-source-vertex weights), then placed like the file's.
    if (skinned) skin_part(part, prim, at);
    generate_streams(part, at);
    if (!skinned && skin_ >= 0 && carrying_joint(n) >= 0) {
      attach_part(part, n, carrying_joint(n));
    } else if (!skinned && skin_ < 0 && joint_of(n) >= 0) {
      part.joint = joint_of(n);  // node rig: node-local vertices
    } else if (!skinned) {
      transform_part(part, world(n), det3(world(n)) < 0.0f);  // static, in model space
    }
    out_->mesh.parts.push_back(std::move(part));
  }

  // Flat normals where the file has no NORMAL (glTF "Meshes": clients MUST calculate
  // them), tangents where the material has a normal texture and the file no TANGENT; each
  // a note. Runs on the file's vertices before they are placed (where coordinates are
  // the file's own, however large the node scales), so placement moves the generated
  // streams exactly as it moves the file's.
  void generate_streams(CookedPart& part, const std::string& at) {
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

  // A skinned primitive: bind-space vertices, joints renumbered to rig joints, weights
  // normalised to sum to one.
  void skin_part(CookedPart& part, const GltfPrimitive& prim, const std::string& at) {
    if (prim.joint_sets > 1) {
      issues_.warning(at + "/attributes/JOINTS_1", "SKIN_INFLUENCES_DROPPED",
                      "The primitive has " + std::to_string(prim.joint_sets) +
                          " JOINTS/WEIGHTS sets; only the 4 influences of JOINTS_0/WEIGHTS_0 "
                          "are kept.");
    }
    const size_t count = prim.joints.size();
    part.joints.resize(count);
    part.weights.resize(count);
    size_t no_weight = 0, out_of_range = 0, first_no_weight = 0, first_out = 0;
    for (size_t v = 0; v < count; ++v) {
      const std::array<float, 4>& w = prim.weights[v];
      double sum = 0.0;
      for (int k = 0; k < 4; ++k) sum += static_cast<double>(w[static_cast<size_t>(k)]);
      JointIndices& joints = part.joints[v];
      for (int k = 0; k < 4; ++k) {
        const uint16_t j = prim.joints[v][static_cast<size_t>(k)];
        if (j < skin_remap_.size()) {
          joints.j[k] = skin_remap_[j];
        } else if (w[static_cast<size_t>(k)] != 0.0f) {
          if (out_of_range++ == 0) first_out = v;
        }
      }
      if (!(sum > 0.0)) {
        if (no_weight++ == 0) first_no_weight = v;
        part.weights[v] = {1, 0, 0, 0};
        continue;
      }
      if (sum == 1.0) {
        part.weights[v] = {w[0], w[1], w[2], w[3]};
      } else {
        part.weights[v] = {static_cast<float>(w[0] / sum), static_cast<float>(w[1] / sum),
                           static_cast<float>(w[2] / sum), static_cast<float>(w[3] / sum)};
      }
    }
    if (no_weight > 0) {
      issues_.error(at + "/attributes/WEIGHTS_0", "SKIN_VERTEX_NO_WEIGHT",
                    std::to_string(no_weight) + " vertices (the first is " +
                        std::to_string(first_no_weight) + ") have weights summing to 0.");
    }
    if (out_of_range > 0) {
      issues_.error(at + "/attributes/JOINTS_0", "SKIN_VERTEX_JOINT_OOB",
                    std::to_string(out_of_range) + " influences (the first of vertex " +
                        std::to_string(first_out) + ") name a joint outside the skin's " +
                        std::to_string(skin_remap_.size()) + ".");
    }
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
      const GltfSkin& skin = doc_.skins[static_cast<size_t>(skin_)];
      const auto k = std::find(skin.joints.begin(), skin.joints.end(), j) - skin.joints.begin();
      issues_.error(idx(idx("/skins", static_cast<size_t>(skin_)) + "/inverseBindMatrices",
                        static_cast<size_t>(k)),
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
        if (ch.morph_weights) {
          issues_.warning(cat, "ANIMATION_MORPH_SKIPPED",
                          "morph weights are not supported; channel skipped");
        } else if (joint_of(ch.node) < 0) {
          issues_.warning(cat, "ANIMATION_CHANNEL_OUTSIDE_RIG",
                          "The channel moves node " + std::to_string(ch.node) +
                              ", which is not a joint of the rig; channel skipped.");
        } else {
          kept.push_back(&ch);
        }
      }
      if (kept.empty()) {
        issues_.warning(at, "ANIMATION_EMPTY",
                        "No channel of the animation moves a rig joint; animation skipped.");
        continue;
      }
      std::string name = anim.name.empty() ? "animation_" + std::to_string(a) : anim.name;
      if (names.count(name) != 0) {
        const std::string suffixed = name + "_" + std::to_string(a);
        issues_.warning(
            at, "ANIMATION_DUPLICATE_NAME",
            "An earlier clip is named '" + name + "'; this one is named '" + suffixed + "'.");
        name = suffixed;
        while (names.count(name) != 0) name += "_" + std::to_string(a);
      }
      names.insert(name);
      Clip clip(name);
      for (const GltfChannel* ch : kept) {
        clip.add_channel(static_cast<uint16_t>(joint_of(ch->node)), ch->property, ch->interpolation,
                         ch->times, ch->values);
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
  int skin_ = -1;                     // the skin used (the first node's of equal ones)
  std::vector<int> joint_of_;         // per node: its rig joint, or -1
  std::vector<uint16_t> skin_remap_;  // skin joint index -> rig joint index
  std::vector<Joint> joints_;
  std::vector<Mat4> inverse_binds_;
  std::vector<int> joint_nodes_;
  std::vector<int> clip_sources_;
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
                          std::string_view source_file) {
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
  Importer importer(doc, &out);
  importer.run();
  return out;
}

}  // namespace animpack
