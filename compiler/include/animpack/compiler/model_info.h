// What a model file offers before anyone writes a scene for it (`animpack info MODEL`):
// its meshes and primitives, skins with their joints, animations with durations, key
// counts and interpolations, morph targets, materials and textures, rest-pose bounds, and
// the problems the cooker would report for it, as the cooker's own diagnostics.
//
//   animpack::ModelInfo info = animpack::describe_model("models/Fox.glb");
//   std::fputs(animpack::model_info_text(info).c_str(), stdout);   // or model_info_json
//   return !info.readable ? 2 : info.error_count() > 0 ? 1 : 0;
//
// A .gltf or .glb file (any other extension but .fbx and .dae too: the content decides)
// is read with our glTF reader (gltf_reader.h) and, when the reader finds no error,
// imported as a scene [[mesh]] is (import_gltf.h, default ImportOptions). What is listed
// comes from the reader, so a file with errors still lists everything the reader could
// read; the rig and the bounds come from the import and are absent when it cannot run. An
// .fbx or .dae file is imported through Assimp (import_assimp.h) and listed from the
// import: one mesh per Assimp mesh, the rig's joints as one skin, its clips as the
// animations (always LINEAR: Assimp keeps no interpolation), the import's materials and
// textures.
//
// Problems are the diagnostics `animpack cook` reports for a [[mesh]] naming the file
// (docs/diagnostics.md): each reader or import error as E0201 and each warning as W0301,
// in the model file at line 0, with the message "POINTER: MESSAGE [ISSUE_CODE]" (a
// container issue gives "byte N" for the pointer); the import's notes (generated normals
// or tangents, helper joints) as W0301 notes; a file that cannot be read at all as one
// E0201 with `readable` false. Nothing throws (beyond std::bad_alloc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "animpack/bounds.h"
#include "animpack/compiler/diagnostics.h"
#include "animpack/material.h"
#include "animpack/math.h"

namespace animpack {

// One primitive of a mesh (for Assimp files: one imported part).
struct ModelPrimitiveInfo {
  std::string mode;  // "TRIANGLES", "TRIANGLE_STRIP", ... (glTF's names); Assimp: "TRIANGLES"
  uint32_t vertices = 0;
  uint64_t triangles = 0;  // triangles it cooks to (strips and fans as lists; 0 for points, lines)
  bool indexed = false;
  std::vector<std::string> attributes;  // "POSITION", "NORMAL", "JOINTS_0", ... present
  int material = -1;                    // index in ModelInfo::materials, -1 none
  int morph_targets = 0;
};

// One mesh of the file.
struct ModelMeshInfo {
  std::string name;  // "" when the file gives none
  std::vector<ModelPrimitiveInfo> primitives;
  int morph_targets = 0;                  // targets of each primitive
  std::vector<std::string> target_names;  // extras.targetNames, or empty
  std::vector<float> weights;             // default weights (mesh.weights), or empty
  // At rest, in the model's space, as the cook places it (compute_mesh_bounds of the
  // import's parts of this mesh; morph targets widen it): absent when the import did not
  // run or the mesh has no part in the default scene.
  std::optional<Box> bounds;
};

// A skin (for Assimp files: the imported rig's joints).
struct ModelSkinInfo {
  std::string name;
  std::vector<std::string> joints;  // node names ("node_<index>" for an unnamed node)
  std::string skeleton;             // skin.skeleton's node name, "" when absent
};

// An animation: its channels' totals.
struct ModelAnimationInfo {
  std::string name;     // "" when the file gives none
  float duration = 0;   // seconds: the latest key time
  size_t channels = 0;  // channels that target a node (weights channels included)
  size_t keys = 0;      // key times over all channels
  size_t weights_channels = 0;
  // Channels per interpolation: STEP, LINEAR, CUBICSPLINE.
  size_t step = 0, linear = 0, cubic = 0;
};

// A material: the metallic-roughness factors and the textures of its slots.
struct ModelMaterialInfo {
  std::string name;
  Vec4 base_color{1, 1, 1, 1};
  float metallic = 1, roughness = 1;
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  bool double_sided = false;
  // Texture index (ModelInfo::textures) and uv set of each slot, -1 without a texture:
  // base colour, metallic-roughness, normal, occlusion, emissive.
  int textures[5] = {-1, -1, -1, -1, -1};
  int uv_sets[5] = {0, 0, 0, 0, 0};
};

// A texture: its image as the file gives it.
struct ModelTextureInfo {
  std::string name;
  int image = -1;         // index in the file's images (glTF), -1 otherwise
  std::string uri;        // the image's uri ("" for an embedded image)
  std::string mime_type;  // as written, or what the bytes are
  uint32_t width = 0;     // 0 when it was not decoded (no material of the default scene
  uint32_t height = 0;    // uses it, or the file has errors)
};

// A rig the cook would build from the file.
struct ModelRigInfo {
  bool node_rig = false;  // true: the nodes are the joints (no skin)
  int joints = 0;
  int clips = 0;
  int morph_sets = 0;
};

// One problem, as the cook reports it, with what it was made from.
struct ModelProblem {
  Diagnostic diagnostic;  // E0201 or W0301 in the model file (see the top)
  std::string pointer;    // the JSON pointer (or Assimp path, "byte N"), "" for the file
  std::string issue;      // the reader's or the import's code, e.g. "ACCESSOR_TOO_LONG"
};

// Everything `animpack info` says of one model file.
struct ModelInfo {
  std::string file;       // the path as given
  std::string format;     // "gltf", "glb", "fbx", "dae" (from the extension; else "gltf")
  std::string generator;  // asset.generator, "" when absent (glTF only)
  bool readable = true;   // false: the file could not be read at all (one E0201)
  size_t nodes = 0;
  std::vector<ModelMeshInfo> meshes;
  std::vector<ModelSkinInfo> skins;
  std::vector<ModelAnimationInfo> animations;
  std::vector<ModelMaterialInfo> materials;
  std::vector<ModelTextureInfo> textures;
  std::optional<ModelRigInfo> rig;  // absent: no rig (a static model) or no import
  std::optional<Box> bounds;        // every part at rest; absent without an import
  std::vector<ModelProblem> problems;

  size_t error_count() const;
  size_t warning_count() const;  // notes not counted
};

// Reads and describes `file` (see the top). Never throws beyond std::bad_alloc.
ModelInfo describe_model(const std::filesystem::path& file);

// The report for people: a header line, then one block per kind with one indented line
// per item (as `animpack inspect` lists a pack), then the problems in the cook's gcc
// format (docs/cli.md, "animpack info"). Names are printed through printable().
std::string model_info_text(const ModelInfo& info);

// The same as one JSON object (docs/cli.md lists the fields), with a trailing newline.
std::string model_info_json(const ModelInfo& info);

}  // namespace animpack
