// glTF reader: the nodes stage (local transforms, children and parents, loops, depth, the
// skin/mesh pairing of each node) and the scenes stage (roots, the default scene, skinned
// nodes whose joints lie outside their scene) (glTF 2.0 "Nodes and Hierarchy", "Scenes").

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "reader_internal.h"

namespace animpack::gltf_internal {

namespace {

// Whether m is T * R * S: last row (0 0 0 1) and, recomposed from its decomposition, the
// same matrix within float precision. A zero scale keeps the check to the last row.
bool is_trs_matrix(const Mat4& m, const Trs& trs) {
  if (m.m[3] != 0 || m.m[7] != 0 || m.m[11] != 0 || m.m[15] != 1) return false;
  if (trs.scale.x == 0 || trs.scale.y == 0 || trs.scale.z == 0) return true;
  const Mat4 back = to_matrix(trs);
  float largest = 1;
  for (int k = 0; k < 16; ++k) largest = std::max(largest, std::fabs(m.m[k]));
  for (int k = 0; k < 16; ++k) {
    if (!(std::fabs(back.m[k] - m.m[k]) <= 1e-4f * largest)) return false;
  }
  return true;
}

void read_node(Reader& r, const json& obj, const std::string& at, GltfNode* out) {
  GltfNode& node = *out;
  node.name = get_name(r.issues, obj, at);
  node.mesh =
      get_index(r.issues, obj, at, "mesh", r.doc.meshes.size(), Need::kOptional).value_or(-1);
  node.skin = get_index(r.issues, obj, at, "skin", r.skin_count, Need::kOptional).value_or(-1);
  if (find(obj, "skin") && !find(obj, "mesh")) {
    r.issues.error(ptr(at, "skin"), "UNSATISFIED_DEPENDENCY",
                   "Dependency failed. 'mesh' must be defined.");
  }
  if (std::optional<std::vector<int>> children =
          get_index_list(r.issues, obj, at, "children", r.node_valid.size(), Need::kOptional)) {
    for (int c : *children) {
      if (c >= 0) node.children.push_back(c);
    }
  }

  // node.weights: the instance's morph weights, one per target of its mesh (read first).
  if (find(obj, "weights")) {
    std::optional<std::vector<float>> weights =
        get_float_list(r.issues, obj, at, "weights", Need::kOptional);
    if (!find(obj, "mesh")) {
      r.issues.error(ptr(at, "weights"), "UNSATISFIED_DEPENDENCY",
                     "Dependency failed. 'mesh' must be defined.");
    } else if (weights && node.mesh >= 0) {
      const size_t targets =
          static_cast<size_t>(r.doc.meshes[static_cast<size_t>(node.mesh)].morph_targets);
      if (weights->size() != targets) {
        r.issues.error(ptr(at, "weights"), "NODE_WEIGHTS_INVALID",
                       "The length of weights array (" + std::to_string(weights->size()) +
                           ") does not match the number of morph targets (" +
                           std::to_string(targets) + ").");
      } else {
        node.weights = std::move(*weights);
      }
    }
  }

  double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1}, m[16];
  const bool has_t = get_numbers(r.issues, obj, at, "translation", 3, t);
  const bool has_r = get_numbers(r.issues, obj, at, "rotation", 4, q);
  const bool has_s = get_numbers(r.issues, obj, at, "scale", 3, s);
  node.has_matrix = get_numbers(r.issues, obj, at, "matrix", 16, m);
  const auto finite = [&](const char* key, const double* v, size_t n) {
    bool ok = true;
    for (size_t k = 0; k < n; ++k) {
      if (!std::isfinite(to_float(v[k]))) {
        r.issues.error(idx(ptr(at, key), k), "VALUE_NOT_IN_RANGE",
                       "Value " + num(v[k]) + " is out of range.");
        ok = false;
      }
    }
    return ok;
  };
  if (node.has_matrix) {
    if (find(obj, "translation") || find(obj, "rotation") || find(obj, "scale")) {
      r.issues.error(ptr(at, "matrix"), "NODE_MATRIX_TRS",
                     "A node can have either a matrix or any combination of "
                     "translation/rotation/scale (TRS) properties.");
    }
    if (finite("matrix", m, 16)) {
      for (int k = 0; k < 16; ++k) node.matrix.m[k] = static_cast<float>(m[k]);
      node.local = decompose(node.matrix);
      if (!is_trs_matrix(node.matrix, node.local)) {
        r.issues.error(ptr(at, "matrix"), "NODE_MATRIX_NON_TRS",
                       "Matrix must be decomposable to TRS.");
      }
    }
    return;
  }
  if (has_t && finite("translation", t, 3)) {
    node.local.translation = {static_cast<float>(t[0]), static_cast<float>(t[1]),
                              static_cast<float>(t[2])};
  }
  if (has_r && finite("rotation", q, 4)) {
    node.local.rotation = {static_cast<float>(q[0]), static_cast<float>(q[1]),
                           static_cast<float>(q[2]), static_cast<float>(q[3])};
    const double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (std::fabs(len - 1.0) > kUnitLengthThreshold) {
      r.issues.error(ptr(at, "rotation"), "ROTATION_NON_UNIT",
                     "Rotation quaternion must be normalized (length " + num(len) + ").");
    }
  }
  if (has_s && finite("scale", s, 3)) {
    node.local.scale = {static_cast<float>(s[0]), static_cast<float>(s[1]),
                        static_cast<float>(s[2])};
  }
  node.matrix = to_matrix(node.local);
}

// Marks every node that lies on a cycle of children (Tarjan's strongly connected
// components, iterative so deep hierarchies cannot exhaust the stack).
std::vector<bool> nodes_on_cycles(const std::vector<GltfNode>& nodes) {
  const size_t n = nodes.size();
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<bool> on_stack(n, false), on_cycle(n, false);
  std::vector<int> stack;
  std::vector<std::pair<int, size_t>> work;  // node, next child position
  int counter = 0;
  for (size_t start = 0; start < n; ++start) {
    if (index[start] >= 0) continue;
    work.push_back({static_cast<int>(start), 0});
    while (!work.empty()) {
      auto& [v, next] = work.back();
      const size_t vi = static_cast<size_t>(v);
      if (next == 0 && index[vi] < 0) {
        index[vi] = low[vi] = counter++;
        stack.push_back(v);
        on_stack[vi] = true;
      }
      if (next < nodes[vi].children.size()) {
        const int w = nodes[vi].children[next++];
        const size_t wi = static_cast<size_t>(w);
        if (w == v) on_cycle[vi] = true;  // its own child
        if (index[wi] < 0) {
          work.push_back({w, 0});
        } else if (on_stack[wi]) {
          low[vi] = std::min(low[vi], index[wi]);
        }
        continue;
      }
      if (low[vi] == index[vi]) {  // vi is the root of a component: pop it
        std::vector<int> component;
        int w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[static_cast<size_t>(w)] = false;
          component.push_back(w);
        } while (w != v);
        if (component.size() > 1) {
          for (int c : component) on_cycle[static_cast<size_t>(c)] = true;
        }
      }
      const int finished = v;
      work.pop_back();
      if (!work.empty()) {
        const size_t parent = static_cast<size_t>(work.back().first);
        low[parent] = std::min(low[parent], low[static_cast<size_t>(finished)]);
      }
    }
  }
  return on_cycle;
}

// NODE_HIERARCHY_TOO_DEEP at the first node more than kGltfMaxNodeDepth levels below its
// root. Depths are memoised along each walk up, so the check is linear in the nodes;
// nodes on or under a loop (reported as NODE_LOOP) have none.
void check_depth(Reader& r, const std::vector<bool>& on_cycle) {
  const std::vector<GltfNode>& nodes = r.doc.nodes;
  constexpr int64_t kUnknown = -1, kUnderLoop = -2;
  std::vector<int64_t> depth(nodes.size(), kUnknown);
  std::vector<size_t> path;
  for (size_t i = 0; i < nodes.size(); ++i) {
    path.clear();
    int64_t base = -1;  // the depth of the node above the path (-1: above a root)
    for (int v = static_cast<int>(i); v >= 0; v = nodes[static_cast<size_t>(v)].parent) {
      const size_t u = static_cast<size_t>(v);
      if (depth[u] != kUnknown) {
        base = depth[u];
        break;
      }
      if (on_cycle[u]) {
        base = kUnderLoop;
        break;
      }
      depth[u] = kUnderLoop;  // until set below; a loop not marked stops here too
      path.push_back(u);
    }
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      depth[*it] = base == kUnderLoop ? kUnderLoop : ++base;
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (depth[i] > static_cast<int64_t>(kGltfMaxNodeDepth)) {
      r.issues.error(idx("/nodes", i), "NODE_HIERARCHY_TOO_DEEP",
                     "Node is " + std::to_string(depth[i]) + " levels below its root; at most " +
                         std::to_string(kGltfMaxNodeDepth) + " are taken.");
      return;
    }
  }
}

}  // namespace

void read_nodes(Reader& r) {
  const json* array = top_array(r, "nodes");
  if (!array) return;
  r.doc.nodes.resize(array->size());
  r.node_valid.assign(array->size(), false);
  // Skins are read after nodes (their joints are nodes); nodes only need their number.
  const json* skins = find(r.root, "skins");
  r.skin_count = skins && skins->is_array() ? skins->size() : 0;
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/nodes", i);
    const json* obj = element_object(r, *array, i, at);
    if (!obj) continue;
    const size_t errors_before = r.issues.errors();
    read_node(r, *obj, at, &r.doc.nodes[i]);
    r.node_valid[i] = r.issues.errors() == errors_before;
  }

  // Parents: the first node listing a child wins; another one is an error.
  std::vector<GltfNode>& nodes = r.doc.nodes;
  for (size_t p = 0; p < nodes.size(); ++p) {
    for (size_t k = 0; k < nodes[p].children.size(); ++k) {
      const size_t c = static_cast<size_t>(nodes[p].children[k]);
      if (c == p) continue;  // a loop, reported below
      if (nodes[c].parent < 0) {
        nodes[c].parent = static_cast<int>(p);
      } else {
        r.issues.error(idx(ptr(idx("/nodes", p), "children"), k), "NODE_PARENT_OVERRIDE",
                       "Value overrides parent of node " + std::to_string(c) + ".");
      }
    }
  }
  const std::vector<bool> on_cycle = nodes_on_cycles(nodes);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (on_cycle[i]) {
      r.issues.error(idx("/nodes", i), "NODE_LOOP", "Node is a part of a node loop.");
    }
  }
  check_depth(r, on_cycle);

  // A skin needs a skinned mesh and vice versa.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GltfNode& node = nodes[i];
    if (node.mesh < 0) continue;
    const bool skinned_mesh = r.mesh_states[static_cast<size_t>(node.mesh)].has_joints;
    if (node.skin >= 0 && !skinned_mesh) {
      r.issues.error(idx("/nodes", i), "NODE_SKIN_WITH_NON_SKINNED_MESH",
                     "Node has skin defined, but mesh has no joints data.");
    } else if (node.skin < 0 && skinned_mesh && r.node_valid[i]) {
      r.issues.warning(idx("/nodes", i), "NODE_SKINNED_MESH_WITHOUT_SKIN",
                       "Node uses skinned mesh, but has no skin defined.");
    }
  }
}

// Nodes reachable from `roots` through children (cycles are cut).
std::vector<bool> reachable(const std::vector<GltfNode>& nodes, const std::vector<int>& roots) {
  std::vector<bool> seen(nodes.size(), false);
  std::vector<int> todo;
  for (int root : roots) {
    if (root >= 0) todo.push_back(root);
  }
  while (!todo.empty()) {
    const size_t v = static_cast<size_t>(todo.back());
    todo.pop_back();
    if (seen[v]) continue;
    seen[v] = true;
    for (int c : nodes[v].children) todo.push_back(c);
  }
  return seen;
}

void read_scenes(Reader& r) {
  const std::vector<GltfNode>& nodes = r.doc.nodes;
  if (const json* array = top_array(r, "scenes")) {
    r.doc.scenes.resize(array->size());
    for (size_t i = 0; i < array->size(); ++i) {
      const std::string at = idx("/scenes", i);
      const json* obj = element_object(r, *array, i, at);
      if (!obj) continue;
      GltfScene& scene = r.doc.scenes[i];
      scene.name = get_name(r.issues, *obj, at);
      const std::optional<std::vector<int>> list =
          get_index_list(r.issues, *obj, at, "nodes", nodes.size(), Need::kOptional);
      if (!list) continue;
      for (size_t k = 0; k < list->size(); ++k) {
        const int n = (*list)[k];
        if (n < 0) continue;
        if (nodes[static_cast<size_t>(n)].parent >= 0) {
          r.issues.error(idx(ptr(at, "nodes"), k), "SCENE_NON_ROOT_NODE",
                         "Node " + std::to_string(n) + " is not a root node.");
        }
        scene.nodes.push_back(n);
      }
      // A skinned node must find its joints in the same scene.
      const std::vector<bool> in_scene = reachable(nodes, scene.nodes);
      for (size_t n = 0; n < nodes.size(); ++n) {
        if (!in_scene[n] || nodes[n].skin < 0 || nodes[n].mesh < 0) continue;
        const GltfSkin& skin = r.doc.skins[static_cast<size_t>(nodes[n].skin)];
        const bool joints_in_scene =
            std::all_of(skin.joints.begin(), skin.joints.end(),
                        [&](int j) { return j < 0 || in_scene[static_cast<size_t>(j)]; });
        if (!joints_in_scene) {
          r.issues.error(idx("/nodes", n), "NODE_SKIN_NO_SCENE",
                         "A node with a skinned mesh is used in a scene (" + std::to_string(i) +
                             ") that does not contain joint nodes.");
        }
      }
    }
  }
  r.doc.scene =
      get_index(r.issues, r.root, "", "scene", r.doc.scenes.size(), Need::kOptional).value_or(-1);
  const int chosen = r.doc.scene >= 0 ? r.doc.scene : (r.doc.scenes.empty() ? -1 : 0);
  if (chosen >= 0) {
    r.doc.roots = r.doc.scenes[static_cast<size_t>(chosen)].nodes;
  } else {
    for (size_t n = 0; n < nodes.size(); ++n) {
      if (nodes[n].parent < 0) r.doc.roots.push_back(static_cast<int>(n));
    }
  }
}

}  // namespace animpack::gltf_internal
