// Pieces of the glTF import stage (import_gltf.h) that work on one part or primitive
// alone: placing a part's vertices (and morph deltas) by a matrix, primitive modes as
// triangle lists, and folding a part's influences to ImportOptions::max_influences.
// Internal to animpack_import_gltf (the Assimp import shares the issue collector).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "animpack/compiler/cooked.h"
#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"

namespace animpack::import_detail {

// "base/i": a JSON pointer (or an Assimp object path) one index deeper.
inline std::string idx(std::string_view base, size_t i) {
  std::string out(base);
  out += '/';
  out += std::to_string(i);
  return out;
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

// A clip's name for animation `index` of a file: its own (`animation_<index>` when empty),
// suffixed with _<index> (an ANIMATION_DUPLICATE_NAME warning at `pointer`) while an
// earlier clip has it; added to `taken`.
inline std::string unique_clip_name(std::string_view given, size_t index,
                                    const std::string& pointer, std::set<std::string>& taken,
                                    Issues& issues) {
  std::string name = given.empty() ? "animation_" + std::to_string(index) : std::string(given);
  if (taken.count(name) != 0) {
    const std::string suffixed = name + "_" + std::to_string(index);
    issues.warning(
        pointer, "ANIMATION_DUPLICATE_NAME",
        "An earlier clip is named '" + name + "'; this one is named '" + suffixed + "'.");
    name = suffixed;
    while (taken.count(name) != 0) name += "_" + std::to_string(index);
  }
  taken.insert(name);
  return name;
}

// The determinant of the upper 3x3 block (column-major m[c*4+r]).
float det3(const Mat4& m);

// Puts a part's vertices through `m` (positions as points, normals by the inverse
// transpose, tangents as vectors), flipping winding and tangent handedness when `mirror`.
// Morph deltas move with them (import_gltf.h, "Morph targets"): position and tangent
// deltas by m's 3x3, normal deltas by the inverse transpose, normal and tangent deltas
// divided by the length of their vertex's moved base vector.
void transform_part(CookedPart& part, const Mat4& m, bool mirror);

// The primitive's triangles as an index list; false (nothing built) for point and line
// modes. *out_incomplete tells that a TRIANGLES list had a partial triangle at its end.
bool triangle_list(const GltfPrimitive& prim, std::vector<uint32_t>* out, bool* out_incomplete);

// The glTF name of a primitive mode: "POINTS", "LINES", ..., "TRIANGLE_FAN".
const char* mode_name(GltfPrimitiveMode mode);

// What reduce_part_influences changed.
struct InfluenceReduction {
  size_t changed = 0;            // vertices that lost a non-zero weight
  double largest_dropped = 0.0;  // the largest (normalised) weight dropped
};

// Every skinned vertex of `part` keeps its `keep` (1 to 7) largest weights (ties: the
// earlier influence), moved to the first slots in their order and renormalised; a vertex
// that already fits is left bit for bit as it is. A second set left weighing 0 everywhere
// is dropped.
InfluenceReduction reduce_part_influences(CookedPart& part, size_t keep);

}  // namespace animpack::import_detail
