// glTF reader: the skins stage (joints, common root, skeleton, inverse bind matrices) and
// the skinning data check: JOINTS_n/WEIGHTS_n of every primitive against the skins used
// with its mesh (joint range, duplicates, negative weights, weight sums) (glTF 2.0
// "Skins", "Skinned Mesh Attributes").

#include <algorithm>
#include <cmath>
#include <string>

#include "reader_internal.h"

namespace animpack::gltf_internal {

namespace {

// The nodes that are ancestors-or-self of every joint (glTF-Validator's "common roots").
std::vector<bool> common_roots(const std::vector<GltfNode>& nodes, const std::vector<int>& joints) {
  std::vector<uint32_t> hits(nodes.size(), 0);
  std::vector<uint32_t> seen_by(nodes.size(), UINT32_MAX);
  uint32_t valid_joints = 0;
  for (size_t j = 0; j < joints.size(); ++j) {
    if (joints[j] < 0) continue;
    ++valid_joints;
    // Walk up; seen_by stops the walk on a cycle, and the depth limit (a deeper hierarchy
    // is an error, NODE_HIERARCHY_TOO_DEEP) keeps the walks linear in the joints.
    size_t steps = 0;
    for (int v = joints[j];
         v >= 0 && seen_by[static_cast<size_t>(v)] != j && steps++ <= kGltfMaxNodeDepth;
         v = nodes[static_cast<size_t>(v)].parent) {
      seen_by[static_cast<size_t>(v)] = static_cast<uint32_t>(j);
      ++hits[static_cast<size_t>(v)];
    }
  }
  std::vector<bool> out(nodes.size(), false);
  for (size_t v = 0; v < nodes.size(); ++v) out[v] = valid_joints > 0 && hits[v] == valid_joints;
  return out;
}

void read_skin(Reader& r, const json& obj, const std::string& at, GltfSkin* out) {
  GltfSkin& skin = *out;
  skin.name = get_name(r.issues, obj, at);
  const size_t errors_before = r.issues.errors();
  const std::optional<std::vector<int>> joints =
      get_index_list(r.issues, obj, at, "joints", r.doc.nodes.size(), Need::kRequired);
  const std::optional<int> skeleton =
      get_index(r.issues, obj, at, "skeleton", r.doc.nodes.size(), Need::kOptional);
  const std::optional<int> ibm =
      get_index(r.issues, obj, at, "inverseBindMatrices", r.doc.accessors.size(), Need::kOptional);
  if (!joints) return;
  const size_t joint_count = joints->size();
  if (joint_count > kGltfMaxSkinJoints) {
    r.issues.error(ptr(at, "joints"), "SKIN_TOO_MANY_JOINTS",
                   "The skin has " + std::to_string(joint_count) + " joints; at most " +
                       std::to_string(kGltfMaxSkinJoints) + " are taken.");
    return;
  }

  // Joints without a common root are only a warning: glTF 2.0.1 does not require one and
  // the Asset Generator's positive Animation_Skin_06 has two root joints; a rig then has
  // several roots under the scene.
  const std::vector<bool> roots = common_roots(r.doc.nodes, *joints);
  if (std::find(roots.begin(), roots.end(), true) == roots.end()) {
    r.issues.warning(ptr(at, "joints"), "SKIN_NO_COMMON_ROOT", "Joints do not have a common root.");
  } else if (skeleton && !roots[static_cast<size_t>(*skeleton)]) {
    r.issues.error(ptr(at, "skeleton"), "SKIN_SKELETON_INVALID",
                   "Skeleton node is not a common root.");
  }

  std::vector<Mat4> binds(joint_count);  // identities
  if (ibm) {
    const std::string p = ptr(at, "inverseBindMatrices");
    if (const GltfAccessor* a = r.accessor(*ibm)) {
      if (r.view_stride(*a) != 0) {
        r.issues.error(p, "SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE",
                       "bufferView.byteStride must not be defined for buffer views used by inverse "
                       "bind matrices accessors.");
      }
      if (a->type != GltfAccessorType::kMat4 || a->component_type != GltfComponentType::kFloat ||
          a->normalized) {
        r.issues.error(
            p, "SKIN_IBM_INVALID_FORMAT",
            "Invalid IBM accessor format " + format_of(*a) + ". Must be one of ('{MAT4, FLOAT}').");
      } else if (a->count < joint_count) {
        r.issues.error(p, "INVALID_IBM_ACCESSOR_COUNT",
                       "IBM accessor must have at least " + std::to_string(joint_count) +
                           " elements. Found " + std::to_string(a->count) + ".");
      } else if (need_data(r, *ibm, p)) {
        if (a->count > joint_count) {
          r.issues.warning(p, "INVALID_IBM_ACCESSOR_COUNT",
                           "IBM accessor has " + std::to_string(a->count) + " elements for " +
                               std::to_string(joint_count) + " joints; the rest are ignored.");
        }
        size_t bad = 0, first = 0;
        for (size_t e = 0; e < a->count; ++e) {
          const float* f = &a->floats[e * 16];
          if (f[3] != 0 || f[7] != 0 || f[11] != 0 || f[15] != 1) {
            if (bad++ == 0) first = e;
          }
        }
        if (bad > 0) {
          r.issues.error(p, "ACCESSOR_INVALID_IBM",
                         "Inverse bind matrix " + std::to_string(first) +
                             " is not affine: its last row must be (0, 0, 0, 1) (" +
                             std::to_string(bad) + " in all).");
        }
        for (size_t j = 0; j < joint_count; ++j) {
          std::copy_n(&a->floats[j * 16], 16, binds[j].m);
        }
        skin.has_inverse_binds = true;
      }
    }
  }
  if (r.issues.errors() != errors_before) return;
  skin.joints = *joints;
  skin.skeleton = skeleton.value_or(-1);
  skin.inverse_binds = std::move(binds);
}

}  // namespace

void read_skins(Reader& r) {
  const json* array = top_array(r, "skins");
  if (!array) return;
  r.doc.skins.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/skins", i);
    if (const json* obj = element_object(r, *array, i, at)) read_skin(r, *obj, at, &r.doc.skins[i]);
  }
}

namespace {

// ---------------------------------------------------------------------------------------
// Stage: skinning data (JOINTS_n / WEIGHTS_n against the skins that use each mesh)

void check_influences(Reader& r, size_t mesh, size_t primitive, const PrimitiveState& state,
                      size_t max_joints) {
  const std::string at = ptr(idx(ptr(idx("/meshes", mesh), "primitives"), primitive), "attributes");
  struct Counter {
    size_t count = 0;
    size_t first_vertex = 0;
    double first_value = 0;
    void add(size_t vertex, double value) {
      if (count++ == 0) {
        first_vertex = vertex;
        first_value = value;
      }
    }
  };
  const size_t sets = state.sets.size();
  std::vector<Counter> oob(sets), duplicate(sets), negative(sets);
  Counter non_normalized;
  std::vector<uint32_t> used;
  for (const InfluenceSet& set : state.sets) {
    const GltfAccessor& j = r.doc.accessors[static_cast<size_t>(set.joints)];
    const GltfAccessor& w = r.doc.accessors[static_cast<size_t>(set.weights)];
    if (!j.decoded || !w.decoded || j.count != state.vertex_count ||
        w.count != state.vertex_count) {
      return;  // already reported
    }
  }
  for (size_t v = 0; v < state.vertex_count; ++v) {
    used.clear();
    float sum = 0;
    for (size_t s = 0; s < sets; ++s) {
      const GltfAccessor& j = r.doc.accessors[static_cast<size_t>(state.sets[s].joints)];
      const GltfAccessor& w = r.doc.accessors[static_cast<size_t>(state.sets[s].weights)];
      for (size_t k = 0; k < 4; ++k) {
        const uint32_t joint = j.uints[v * 4 + k];
        const float weight = w.floats[v * 4 + k];
        if (joint >= max_joints) {
          oob[s].add(v, joint);
          continue;
        }
        if (weight == 0) continue;
        if (std::find(used.begin(), used.end(), joint) != used.end()) {
          duplicate[s].add(v, joint);
          continue;
        }
        used.push_back(joint);
        if (weight < 0) {
          negative[s].add(v, weight);
        } else {
          sum += weight;
        }
      }
    }
    // glTF-Validator's threshold, plus float rounding of the sum itself.
    const double threshold =
        kUnitSumThresholdStep *
            static_cast<double>(std::max<size_t>((used.size() + 1) / 2, 1) - 1) +
        1e-6;
    if (std::fabs(static_cast<double>(sum) - 1.0) > threshold) non_normalized.add(v, sum);
  }
  for (size_t s = 0; s < sets; ++s) {
    const std::string jat = ptr(at, "JOINTS_" + std::to_string(s));
    const std::string wat = ptr(at, "WEIGHTS_" + std::to_string(s));
    if (oob[s].count > 0) {
      r.issues.error(jat, "ACCESSOR_JOINTS_INDEX_OOB",
                     "Joints accessor element at vertex " + std::to_string(oob[s].first_vertex) +
                         " has value " + num(oob[s].first_value) +
                         " that is greater than the maximum joint index (" +
                         std::to_string(max_joints - 1) + ") of the skins using this mesh (" +
                         std::to_string(oob[s].count) + " in all).");
    }
    if (duplicate[s].count > 0) {
      r.issues.warning(jat, "ACCESSOR_JOINTS_INDEX_DUPLICATE",
                       "Vertex " + std::to_string(duplicate[s].first_vertex) + " uses joint " +
                           num(duplicate[s].first_value) + " twice with non-zero weights (" +
                           std::to_string(duplicate[s].count) + " in all).");
    }
    if (negative[s].count > 0) {
      r.issues.error(wat, "ACCESSOR_WEIGHTS_NEGATIVE",
                     "Weights accessor element at vertex " +
                         std::to_string(negative[s].first_vertex) + " has negative value " +
                         num(negative[s].first_value) + " (" + std::to_string(negative[s].count) +
                         " in all).");
    }
  }
  if (non_normalized.count > 0) {
    r.issues.warning(ptr(at, "WEIGHTS_0"), "ACCESSOR_WEIGHTS_NON_NORMALIZED",
                     "Weights of vertex " + std::to_string(non_normalized.first_vertex) +
                         " sum to " + num(non_normalized.first_value) + ", not 1 (" +
                         std::to_string(non_normalized.count) + " vertices in all).");
  }
}

}  // namespace

void check_skinning_data(Reader& r) {
  for (size_t m = 0; m < r.doc.meshes.size(); ++m) {
    if (!r.mesh_states[m].has_joints) continue;
    // The fewest joints of any skin the mesh is used with bounds the joint indices.
    size_t max_joints = 0;
    for (const GltfNode& node : r.doc.nodes) {
      if (node.mesh != static_cast<int>(m) || node.skin < 0) continue;
      const size_t n = r.doc.skins[static_cast<size_t>(node.skin)].joints.size();
      if (n > 0 && (max_joints == 0 || n < max_joints)) max_joints = n;
    }
    if (max_joints == 0) continue;
    for (size_t p = 0; p < r.mesh_states[m].primitives.size(); ++p) {
      const PrimitiveState& state = r.mesh_states[m].primitives[p];
      if (state.valid && !state.sets.empty()) check_influences(r, m, p, state, max_joints);
    }
  }
}

}  // namespace animpack::gltf_internal
