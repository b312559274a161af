// glTF reader: morph targets (glTF 2.0 "Morph Targets"): each primitive's targets
// (POSITION, NORMAL and TANGENT deltas; sparse accessors are applied with every accessor),
// their formats and counts against the base attributes, the same target count across a
// mesh's primitives, mesh.weights and extras.targetNames. node.weights is read with the
// nodes (nodes_scenes.cpp) and weights channels with the animations (animations.cpp).

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "animpack/morph.h"
#include "reader_internal.h"

namespace animpack::gltf_internal {

namespace {

static_assert(kGltfMaxMorphTargets == kMaxMorphTargets,
              "a mesh the reader takes fits one morph set of the runtime");

// Whether a target attribute's format is allowed: VEC3 FLOAT; KHR_mesh_quantization adds
// BYTE and SHORT (normalised or not) for POSITION, normalised BYTE and SHORT for NORMAL
// and TANGENT (whose deltas have no w).
bool target_format_ok(const Reader& r, std::string_view semantic, const GltfAccessor& a) {
  using T = GltfComponentType;
  if (a.type != GltfAccessorType::kVec3) return false;
  if (a.component_type == T::kFloat) return true;
  if (!r.mesh_quantization || !is_one_of(a.component_type, {T::kByte, T::kShort})) return false;
  return semantic == "POSITION" || a.normalized;
}

// 0, 1, 2 for the deltas the reader delivers; -1 for any other semantic.
int delta_slot(std::string_view semantic) {
  if (semantic == "POSITION") return 0;
  if (semantic == "NORMAL") return 1;
  if (semantic == "TANGENT") return 2;
  return -1;
}

}  // namespace

void read_primitive_targets(Reader& r, const json& obj, const std::string& at,
                            const json& attributes, GltfPrimitive* prim) {
  const json* targets = get_array(r.issues, obj, at, "targets", Need::kOptional);
  if (!targets) return;
  const std::string tat = ptr(at, "targets");
  if (targets->size() > kGltfMaxMorphTargets) {
    r.issues.error(tat, "MESH_TOO_MANY_MORPH_TARGETS",
                   "The primitive has " + std::to_string(targets->size()) +
                       " morph targets; at most " + std::to_string(kGltfMaxMorphTargets) +
                       " are taken.");
    return;
  }
  const size_t errors_before = r.issues.errors();
  std::vector<std::array<int, 3>> chosen(targets->size(), {-1, -1, -1});  // accessor per slot
  for (size_t k = 0; k < targets->size(); ++k) {
    const std::string kat = idx(tat, k);
    const json* target = element_object(r, *targets, k, kat);
    if (!target) continue;
    for (const auto& [semantic, value] : target->items()) {
      const std::string p = ptr(kat, semantic);
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
      const json* base = find(attributes, semantic.c_str());
      if (!base) {
        r.issues.error(p, "MESH_PRIMITIVE_MORPH_TARGET_NO_BASE_ACCESSOR",
                       "The mesh primitive does not define the attribute " + in_quotes(semantic) +
                           " this target displaces.");
        continue;
      }
      const GltfAccessor* a = r.accessor(static_cast<int>(index));
      if (!a) continue;
      const int slot = delta_slot(semantic);
      if (slot < 0) {
        if (!r.extra_target_attributes_reported) {
          r.extra_target_attributes_reported = true;
          r.issues.warning(p, "MESH_PRIMITIVE_MORPH_TARGET_EXTRA_ATTRIBUTE",
                           semantic +
                               " deltas are ignored: only POSITION, NORMAL and TANGENT deltas "
                               "are read (reported once per file).");
        }
        continue;
      }
      if (!target_format_ok(r, semantic, *a)) {
        r.issues.error(p, "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
                       "Invalid accessor format " + format_of(*a) + " for a morph target's " +
                           semantic + " (VEC3 FLOAT).");
        continue;
      }
      const GltfAccessor* b =
          base->is_number_unsigned() && base->get<uint64_t>() < r.doc.accessors.size()
              ? r.accessor(static_cast<int>(base->get<uint64_t>()))
              : nullptr;
      if (b && b->count != a->count) {
        r.issues.error(p, "MESH_PRIMITIVE_MORPH_TARGET_INVALID_ATTRIBUTE_COUNT",
                       "Base accessor has different count: " + std::to_string(a->count) +
                           " deltas here, " + std::to_string(b->count) + " vertices in the " +
                           semantic + " attribute.");
        continue;
      }
      if (need_data(r, static_cast<int>(index), p)) {
        chosen[k][static_cast<size_t>(slot)] = static_cast<int>(index);
      }
    }
  }
  if (r.issues.errors() != errors_before) return;
  prim->targets.resize(targets->size());
  for (size_t k = 0; k < targets->size(); ++k) {
    GltfMorphTarget& t = prim->targets[k];
    const std::string kat = idx(tat, k);
    std::vector<Vec3>* streams[3] = {&t.positions, &t.normals, &t.tangents};
    for (size_t slot = 0; slot < 3; ++slot) {
      const int index = chosen[k][slot];
      if (index >= 0) {
        *streams[slot] = copy_vec3(r, r.doc.accessors[static_cast<size_t>(index)], kat);
      }
    }
  }
}

void read_mesh_morphs(Reader& r, const json& obj, const std::string& at,
                      const std::vector<int>& target_counts, GltfMesh* mesh) {
  const json* primitives = find(obj, "primitives");
  const int count = target_counts.empty() ? 0 : target_counts[0];
  for (size_t p = 1; p < target_counts.size(); ++p) {
    if (target_counts[p] == count) continue;
    const std::string pat = idx(ptr(at, "primitives"), p);
    const bool has_targets =
        primitives && (*primitives)[p].is_object() && (*primitives)[p].contains("targets");
    r.issues.error(has_targets ? ptr(pat, "targets") : pat, "MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT",
                   "All primitives must have the same number of morph targets: " +
                       std::to_string(target_counts[p]) + " here, " + std::to_string(count) +
                       " in primitive 0.");
  }
  mesh->morph_targets = count;
  mesh->weights.assign(static_cast<size_t>(count), 0.0f);
  if (find(obj, "weights")) {
    if (std::optional<std::vector<float>> weights =
            get_float_list(r.issues, obj, at, "weights", Need::kOptional)) {
      if (weights->size() != static_cast<size_t>(count)) {
        r.issues.error(ptr(at, "weights"), "MESH_INVALID_WEIGHTS_COUNT",
                       "The length of weights array (" + std::to_string(weights->size()) +
                           ") does not match the number of morph targets (" +
                           std::to_string(count) + ").");
      } else {
        mesh->weights = std::move(*weights);
      }
    }
  }
  // extras.targetNames: a de facto convention (Blender, three.js), not part of glTF;
  // anything but one string per target is a warning and gives no names.
  const json* extras = find(obj, "extras");
  const json* names = extras && extras->is_object() ? find(*extras, "targetNames") : nullptr;
  if (!names) return;
  const bool strings =
      names->is_array() && names->size() == static_cast<size_t>(count) &&
      std::all_of(names->begin(), names->end(), [](const json& n) { return n.is_string(); });
  if (!strings) {
    r.issues.warning(ptr(ptr(at, "extras"), "targetNames"), "MESH_TARGET_NAMES_INVALID",
                     "extras.targetNames is not an array of " + std::to_string(count) +
                         " strings (one per morph target); the targets keep no names.");
    return;
  }
  for (const json& n : *names) mesh->target_names.push_back(n.get<std::string>());
}

}  // namespace animpack::gltf_internal
