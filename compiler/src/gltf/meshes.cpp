// glTF reader: the meshes stage (glTF 2.0 "Meshes"): attribute formats (widened by
// KHR_mesh_quantization), vertex counts, JOINTS_n/WEIGHTS_n pairing, indices, and the
// vertex streams copied into GltfPrimitive.

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "reader_internal.h"

namespace animpack::gltf_internal {

namespace {

// Whether an attribute's format is allowed for its semantic (glTF 2.0 "Meshes", widened
// by KHR_mesh_quantization when the file uses it).
bool attribute_format_ok(const Reader& r, std::string_view semantic, const GltfAccessor& a) {
  using T = GltfComponentType;
  const bool is_float = a.component_type == T::kFloat;
  const bool norm_small = a.normalized && is_one_of(a.component_type, {T::kByte, T::kShort});
  const bool small_int =
      is_one_of(a.component_type, {T::kByte, T::kUnsignedByte, T::kShort, T::kUnsignedShort});
  if (semantic == "POSITION") {
    return a.type == GltfAccessorType::kVec3 && (is_float || (r.mesh_quantization && small_int));
  }
  if (semantic == "NORMAL") {
    return a.type == GltfAccessorType::kVec3 && (is_float || (r.mesh_quantization && norm_small));
  }
  if (semantic == "TANGENT") {
    return a.type == GltfAccessorType::kVec4 && (is_float || (r.mesh_quantization && norm_small));
  }
  if (semantic.starts_with("JOINTS_")) {
    return a.type == GltfAccessorType::kVec4 && !a.normalized &&
           is_one_of(a.component_type, {T::kUnsignedByte, T::kUnsignedShort});
  }
  if (semantic.starts_with("WEIGHTS_")) {
    return a.type == GltfAccessorType::kVec4 &&
           (is_float ||
            (a.normalized && is_one_of(a.component_type, {T::kUnsignedByte, T::kUnsignedShort})));
  }
  if (semantic.starts_with("TEXCOORD_")) {
    const bool norm_unsigned =
        a.normalized && is_one_of(a.component_type, {T::kUnsignedByte, T::kUnsignedShort});
    return a.type == GltfAccessorType::kVec2 &&
           (is_float || norm_unsigned || (r.mesh_quantization && small_int));
  }
  if (semantic.starts_with("COLOR_")) {
    return (a.type == GltfAccessorType::kVec3 || a.type == GltfAccessorType::kVec4) &&
           (is_float ||
            (a.normalized && is_one_of(a.component_type, {T::kUnsignedByte, T::kUnsignedShort})));
  }
  return true;  // other semantics are not read
}

// The n of "JOINTS_n"/"WEIGHTS_n", or -1.
int set_index(std::string_view semantic, std::string_view prefix) {
  if (!semantic.starts_with(prefix)) return -1;
  const std::string_view digits = semantic.substr(prefix.size());
  if (digits.empty() || digits.size() > 3) return -1;
  int n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

// A decoded VEC4 accessor as Vec4s (empty when it could not be decoded).
std::vector<Vec4> copy_vec4(Reader& r, const GltfAccessor& a, const std::string& at) {
  std::vector<Vec4> out;
  if (!a.decoded || !r.charge(uint64_t{a.count} * sizeof(Vec4), at)) return out;
  out.resize(a.count);
  for (size_t v = 0; v < a.count; ++v) {
    const float* f = &a.floats[v * 4];
    out[v] = {f[0], f[1], f[2], f[3]};
  }
  return out;
}

// A decoded VEC2 accessor as Vec2s (empty when it could not be decoded).
std::vector<Vec2> copy_vec2(Reader& r, const GltfAccessor& a, const std::string& at) {
  std::vector<Vec2> out;
  if (!a.decoded || !r.charge(uint64_t{a.count} * sizeof(Vec2), at)) return out;
  out.resize(a.count);
  for (size_t v = 0; v < a.count; ++v) out[v] = {a.floats[v * 2], a.floats[v * 2 + 1]};
  return out;
}

// A decoded VEC3 or VEC4 colour accessor as RGBA (VEC3 gets alpha 1).
std::vector<Vec4> copy_color(Reader& r, const GltfAccessor& a, const std::string& at) {
  if (a.components == 4) return copy_vec4(r, a, at);
  std::vector<Vec4> out;
  if (!a.decoded || !r.charge(uint64_t{a.count} * sizeof(Vec4), at)) return out;
  out.resize(a.count);
  for (size_t v = 0; v < a.count; ++v) {
    const float* f = &a.floats[v * 3];
    out[v] = {f[0], f[1], f[2], 1.0f};
  }
  return out;
}

}  // namespace

std::vector<Vec3> copy_vec3(Reader& r, const GltfAccessor& a, const std::string& at) {
  std::vector<Vec3> out;
  if (!a.decoded || !r.charge(uint64_t{a.count} * sizeof(Vec3), at)) return out;
  out.resize(a.count);
  for (size_t v = 0; v < a.count; ++v) {
    const float* f = &a.floats[v * 3];
    out[v] = {f[0], f[1], f[2]};
  }
  return out;
}

namespace {

void read_primitive(Reader& r, const json& obj, const std::string& at, GltfPrimitive* out,
                    PrimitiveState* state, int* out_targets) {
  const size_t errors_before = r.issues.errors();
  GltfPrimitive& prim = *out;
  prim.mode = static_cast<GltfPrimitiveMode>(
      get_uint(r.issues, obj, at, "mode", Need::kOptional, 0, 6).value_or(4));
  if (const json* targets = find(obj, "targets"); targets && targets->is_array()) {
    *out_targets = static_cast<int>(targets->size());  // the mesh compares the counts
  }
  const json* attributes = get_object(r.issues, obj, at, "attributes", Need::kRequired);
  if (!attributes) return;
  const std::string attr_at = ptr(at, "attributes");

  // Resolve every attribute; POSITION (else the first usable one) sets the vertex count.
  std::optional<uint32_t> vertex_count;
  std::string count_source;
  if (const json* p = find(*attributes, "POSITION"); p && p->is_number_unsigned()) {
    const uint64_t index = p->get<uint64_t>();
    const GltfAccessor* a =
        index < r.doc.accessors.size() ? r.accessor(static_cast<int>(index)) : nullptr;
    if (a && attribute_format_ok(r, "POSITION", *a)) {
      vertex_count = a->count;
      count_source = "POSITION";
    }
  }
  int position = -1, normal = -1, tangent = -1, texcoord0 = -1, texcoord1 = -1, color0 = -1;
  std::vector<int> joints, weights;  // by set index, -1 when missing
  for (const auto& [semantic, value] : attributes->items()) {
    const std::string p = ptr(attr_at, semantic);
    if (!value.is_number_unsigned()) {
      type_mismatch(r.issues, p, value, "an accessor index");
      continue;
    }
    const uint64_t index = value.get<uint64_t>();
    if (index >= r.doc.accessors.size()) {
      r.issues.error(p, "UNRESOLVED_REFERENCE",
                     "Unresolved reference: " + std::to_string(index) + ".");
      continue;
    }
    const GltfAccessor* a = r.accessor(static_cast<int>(index));
    if (!a) continue;
    if (!attribute_format_ok(r, semantic, *a)) {
      r.issues.error(p, "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
                     "Invalid accessor format " + format_of(*a) + " for this attribute semantic.");
      continue;
    }
    if (!vertex_count) {
      vertex_count = a->count;
      count_source = semantic;
    } else if (a->count != *vertex_count) {
      r.issues.error(p, "MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT",
                     "All accessors of the same primitive must have the same count: " +
                         std::to_string(a->count) + " here, " + std::to_string(*vertex_count) +
                         " in " + count_source + ".");
      continue;
    }
    const int i = static_cast<int>(index);
    if (semantic == "POSITION") position = i;
    if (semantic == "NORMAL") normal = i;
    if (semantic == "TANGENT") tangent = i;
    if (semantic == "TEXCOORD_0") texcoord0 = i;
    if (semantic == "TEXCOORD_1") texcoord1 = i;
    if (semantic == "COLOR_0") color0 = i;
    if ((set_index(semantic, "TEXCOORD_") >= 2 || set_index(semantic, "COLOR_") >= 1) &&
        !r.extra_sets_reported) {
      r.extra_sets_reported = true;
      r.issues.warning(p, "MESH_PRIMITIVE_EXTRA_SETS",
                       semantic +
                           " is ignored: only TEXCOORD_0, TEXCOORD_1 and COLOR_0 are read "
                           "(reported once per file).");
    }
    for (auto& [list, prefix] : {std::pair{&joints, "JOINTS_"}, {&weights, "WEIGHTS_"}}) {
      const int n = set_index(semantic, prefix);
      if (n < 0) continue;
      if (list->size() <= static_cast<size_t>(n)) list->resize(static_cast<size_t>(n) + 1, -1);
      (*list)[static_cast<size_t>(n)] = i;
    }
  }
  if (position < 0 && r.issues.errors() == errors_before) {
    r.issues.warning(attr_at, "MESH_PRIMITIVE_NO_POSITION", "No POSITION attribute.");
  }

  // JOINTS_n and WEIGHTS_n must pair up, from n = 0 without gaps.
  const size_t sets = std::max(joints.size(), weights.size());
  bool pairs_ok = true;
  for (size_t n = 0; n < sets; ++n) {
    const bool has_j = n < joints.size() && joints[n] >= 0;
    const bool has_w = n < weights.size() && weights[n] >= 0;
    if (!has_j || !has_w) pairs_ok = false;
  }
  if (!pairs_ok) {
    r.issues.error(attr_at, "MESH_PRIMITIVE_JOINTS_WEIGHTS_MISMATCH",
                   "Number of JOINTS attribute semantics does not match the number of WEIGHTS (or "
                   "a set is missing).");
  }
  prim.joint_sets = static_cast<int>(joints.size());
  if (joints.size() > 2) {
    r.issues.warning(attr_at, "MESH_PRIMITIVE_EXTRA_INFLUENCES",
                     std::to_string(joints.size()) +
                         " JOINTS sets; only JOINTS_0/1 and WEIGHTS_0/1 (8 influences) are read, "
                         "influences beyond 8 are dropped.");
  }

  prim.vertex_count = vertex_count.value_or(0);
  const uint32_t vertices = prim.vertex_count;

  // The data of every attribute read or checked must be in hand.
  for (const auto& [semantic, index] : {std::pair{"POSITION", position},
                                        {"NORMAL", normal},
                                        {"TANGENT", tangent},
                                        {"TEXCOORD_0", texcoord0},
                                        {"TEXCOORD_1", texcoord1},
                                        {"COLOR_0", color0}}) {
    if (index >= 0) need_data(r, index, ptr(attr_at, semantic));
  }
  for (size_t n = 0; n < joints.size(); ++n) {
    if (joints[n] >= 0) need_data(r, joints[n], ptr(attr_at, "JOINTS_" + std::to_string(n)));
  }
  for (size_t n = 0; n < weights.size(); ++n) {
    if (weights[n] >= 0) need_data(r, weights[n], ptr(attr_at, "WEIGHTS_" + std::to_string(n)));
  }

  // Indices: unsigned integers below the vertex count.
  if (find(obj, "indices")) {
    const std::optional<int> index =
        get_index(r.issues, obj, at, "indices", r.doc.accessors.size(), Need::kOptional);
    const GltfAccessor* a = index ? r.accessor(*index) : nullptr;
    const std::string p = ptr(at, "indices");
    if (a) {
      prim.indexed = true;
      if (a->type != GltfAccessorType::kScalar || a->normalized ||
          !is_one_of(a->component_type,
                     {GltfComponentType::kUnsignedByte, GltfComponentType::kUnsignedShort,
                      GltfComponentType::kUnsignedInt})) {
        r.issues.error(p, "MESH_PRIMITIVE_INDICES_ACCESSOR_INVALID_FORMAT",
                       "Invalid indices accessor format " + format_of(*a) +
                           ". Must be a SCALAR of UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT.");
      } else if (r.view_stride(*a) != 0) {
        r.issues.error(p, "BUFFER_VIEW_INVALID_BYTE_STRIDE",
                       "Only buffer views with raw vertex data can have byteStride.");
      } else if (need_data(r, *index, p) && r.charge(uint64_t{a->count} * 4, p)) {
        size_t bad = 0;
        size_t first = 0;
        for (size_t k = 0; k < a->uints.size(); ++k) {
          if (a->uints[k] >= vertices && bad++ == 0) first = k;
        }
        if (bad > 0) {
          r.issues.error(p, "ACCESSOR_INDEX_OOB",
                         "Indices accessor element at index " + std::to_string(first) +
                             " has value " + std::to_string(a->uints[first]) +
                             " that is greater than the maximum vertex index available (" +
                             std::to_string(vertices) + ") (" + std::to_string(bad) + " in all).");
        } else {
          prim.indices = a->uints;
        }
      }
    }
  }

  // The material: an index into the materials (read before the meshes).
  if (find(obj, "material")) {
    prim.material =
        get_index(r.issues, obj, at, "material", r.doc.materials.size(), Need::kOptional)
            .value_or(-1);
  }

  read_primitive_targets(r, obj, at, *attributes, &prim);

  if (r.issues.errors() != errors_before) return;
  state->valid = true;
  state->vertex_count = vertices;
  for (size_t n = 0; n < sets; ++n) state->sets.push_back({joints[n], weights[n]});

  if (position >= 0) {
    prim.positions = copy_vec3(r, r.doc.accessors[static_cast<size_t>(position)], attr_at);
  }
  if (normal >= 0) {
    prim.normals = copy_vec3(r, r.doc.accessors[static_cast<size_t>(normal)], attr_at);
  }
  if (tangent >= 0) {
    prim.tangents = copy_vec4(r, r.doc.accessors[static_cast<size_t>(tangent)], attr_at);
  }
  if (texcoord0 >= 0) {
    prim.texcoords0 = copy_vec2(r, r.doc.accessors[static_cast<size_t>(texcoord0)], attr_at);
  }
  if (texcoord1 >= 0) {
    prim.texcoords1 = copy_vec2(r, r.doc.accessors[static_cast<size_t>(texcoord1)], attr_at);
  }
  if (color0 >= 0) {
    prim.colors = copy_color(r, r.doc.accessors[static_cast<size_t>(color0)], attr_at);
  }
  // Sets 0 and 1: influences 1 to 4 and 5 to 8.
  std::vector<std::array<uint16_t, 4>>* joint_out[2] = {&prim.joints, &prim.joints1};
  std::vector<std::array<float, 4>>* weight_out[2] = {&prim.weights, &prim.weights1};
  for (size_t n = 0; n < std::min<size_t>(sets, 2); ++n) {
    const GltfAccessor& j = r.doc.accessors[static_cast<size_t>(joints[n])];
    const GltfAccessor& w = r.doc.accessors[static_cast<size_t>(weights[n])];
    if (!j.decoded || !w.decoded || !r.charge(uint64_t{vertices} * 24, attr_at)) continue;
    joint_out[n]->resize(vertices);
    weight_out[n]->resize(vertices);
    for (size_t v = 0; v < vertices; ++v) {
      for (size_t k = 0; k < 4; ++k) {
        (*joint_out[n])[v][k] = static_cast<uint16_t>(j.uints[v * 4 + k]);  // u8/u16 only
        (*weight_out[n])[v][k] = w.floats[v * 4 + k];
      }
    }
  }
}

}  // namespace

void read_meshes(Reader& r) {
  const json* array = top_array(r, "meshes");
  if (!array) return;
  r.doc.meshes.resize(array->size());
  r.mesh_states.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/meshes", i);
    const json* obj = element_object(r, *array, i, at);
    if (!obj) continue;
    GltfMesh& mesh = r.doc.meshes[i];
    MeshState& state = r.mesh_states[i];
    mesh.name = get_name(r.issues, *obj, at);
    const json* primitives = get_array(r.issues, *obj, at, "primitives", Need::kRequired);
    if (!primitives) continue;
    mesh.primitives.resize(primitives->size());
    state.primitives.resize(primitives->size());
    std::vector<int> target_counts(primitives->size(), 0);
    for (size_t p = 0; p < primitives->size(); ++p) {
      const std::string pat = idx(ptr(at, "primitives"), p);
      const json* prim = element_object(r, *primitives, p, pat);
      if (!prim) continue;
      read_primitive(r, *prim, pat, &mesh.primitives[p], &state.primitives[p], &target_counts[p]);
      if (mesh.primitives[p].joint_sets > 0) state.has_joints = true;
    }
    read_mesh_morphs(r, *obj, at, target_counts, &mesh);
  }
}

}  // namespace animpack::gltf_internal
