// FBX and Collada (and other formats Assimp reads) through Debian's Assimp (Step 5): the
// same ImportedModel import_gltf gives, so the rest of the cooker does not care where a
// model came from. docs/assimp.md lists what Assimp 5.2 loses or changes and what we do
// about it.
//
//   animpack::ImportedModel model =
//       animpack::import_assimp("models/hero.fbx", "hero", "models/hero.fbx");
//   for (const animpack::ImportIssue& issue : model.issues) report(issue);
//
// What is built: the skeleton (every node that is a bone or lies between bones, parents
// first, names from the nodes), skinned parts (up to 8 influences, weights renormalised),
// static parts baked into model space, and one clip per animation with LINEAR keys
// (Assimp keeps no interpolation), times converted from ticks to seconds exactly once
// (key / ticks_per_second, in double, then rounded to float; 25 ticks a second when the
// file gives none). Materials: base colour factor (and opacity) and texture only (embedded
// or an image file beside the model, PNG or JPEG; one that cannot be read is dropped with
// an ASSIMP_LOSSY warning). Every Assimp failure (an unreadable file, a post-process step that
// fails, an exception or a null scene) is an ASSIMP_* issue, never a crash: the file's
// header and size are checked before Assimp sees it (kAssimpMaxFileBytes), and Assimp first
// reads the file in a process of its own (the program animpack-assimp-trial, see
// find_assimp_trial_program) limited to kAssimpMaxSeconds and kAssimpMaxMemoryBytes, so a
// file on which Assimp hangs, aborts (Debian's build keeps its assertions) or crashes is an
// ASSIMP_READ_FAILED saying so; only a file that trial read is read again here.
//
// Besides the ASSIMP_* codes, the import uses these codes of kImportIssueCodes with the
// same meaning: PRIMITIVE_NO_POSITION, PRIMITIVE_NOT_TRIANGLES, SKIN_JOINT_NOT_IN_SCENE,
// SKIN_IBM_SINGULAR, SKIN_VERTEX_NO_WEIGHT, ANIMATION_CHANNEL_OUTSIDE_RIG, ANIMATION_EMPTY,
// ANIMATION_DUPLICATE_NAME, RIG_INVALID, RIG_TOO_MANY_JOINTS, NORMALS_GENERATED and
// VALUE_NOT_FINITE. An issue's `pointer` is a path into Assimp's aiScene ("/meshes/2",
// "/animations/0/channels/5", "/materials/1", "/nodes/<index in the walk>"), or "" for the
// file as a whole. Parts: source_mesh is the aiMesh index, source_primitive its slot in
// its node's mMeshes, source_vertices[i] == i (Assimp keeps no source vertex index);
// source_node, CookedRig::joint_source_nodes and "/nodes/N" count nodes in the walk
// (depth first from mRootNode in child order, 0 the root); clip_source_animations are
// aiAnimation indices.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "animpack/compiler/import_gltf.h"

namespace animpack {

// Files larger than this are refused before Assimp reads them (ASSIMP_FILE_TOO_LARGE).
inline constexpr uint64_t kAssimpMaxFileBytes = uint64_t{512} << 20;
// The trial read's limits: wall-clock and CPU seconds, and address space (not applied
// under AddressSanitizer, which reserves terabytes of shadow memory).
inline constexpr int kAssimpMaxSeconds = 120;
inline constexpr uint64_t kAssimpMaxMemoryBytes = uint64_t{8} << 30;

// Every code import_assimp emits (docs/gltf-issues.md lists them with the import codes).
inline constexpr GltfCodeInfo kAssimpIssueCodes[] = {
    {"ASSIMP_READ_FAILED",
     "Assimp could not read the file (no scene, an exception, or its trial read in a process "
     "of its own crashed, aborted, ran out of time or memory, or could not be started); the "
     "message gives its reason."},
    {"ASSIMP_FILE_TOO_LARGE", "The file is larger than kAssimpMaxFileBytes (512 MiB)."},
    {"ASSIMP_NO_MESHES", "The file has no triangle mesh."},
    {"ASSIMP_LOSSY",
     "Something Assimp does not deliver was dropped (warning; the message "
     "says what, docs/assimp.md why)."},
};

bool is_assimp_issue_code(std::string_view code);

// The trial read's program and where it is looked for, in this order:
// 1. the path in the environment variable ANIMPACK_ASSIMP_TRIAL, when set (and only there);
// 2. animpack-assimp-trial beside the running program (/proc/self/exe);
// 3. ../libexec/animpack/animpack-assimp-trial from the running program's folder (as
//    installed: the relative path from the install's bin to its libexec);
// 4. the one this build made, where it made it.
// The first that is an executable regular file is the result; none gives an empty `path`
// and `looked` naming each place tried.
inline constexpr const char* kAssimpTrialEnvironment = "ANIMPACK_ASSIMP_TRIAL";
struct AssimpTrialProgram {
  std::filesystem::path path;
  std::string looked;  // "a, b (not executable), c" when nothing was found
};
AssimpTrialProgram find_assimp_trial_program();

// Reads `file` with Assimp and builds the model `mesh_name` (source_file as the scene
// names it). options.max_influences below 8 reduces each vertex to its largest weights,
// renormalised, with one INFLUENCES_REDUCED note (pointer ""), as import_gltf does. Never
// throws (beyond std::bad_alloc); problems are in the result's issues.
ImportedModel import_assimp(const std::filesystem::path& file, std::string_view mesh_name,
                            std::string_view source_file, const ImportOptions& options = {});

}  // namespace animpack
