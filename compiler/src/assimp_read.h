// What the trial read (assimp_trial_main.cpp, its own process) and the cooker's read
// (import_assimp.cpp) share, so that both read a file the same way: Assimp's flags and
// properties, and the trial program's exit codes.
#pragma once

#include <assimp/config.h>
#include <assimp/postprocess.h>

#include <assimp/Importer.hpp>

// AddressSanitizer reserves terabytes of address space: no RLIMIT_AS under it.
#if defined(__SANITIZE_ADDRESS__)
#define ANIMPACK_ASSIMP_NO_RLIMIT_AS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ANIMPACK_ASSIMP_NO_RLIMIT_AS 1
#endif
#endif

namespace animpack::assimp_read {

// The post-processing a skinned character needs: triangles, at most 8 influences, the
// scene checked by Assimp itself. No JoinIdenticalVertices (vertex order stays Assimp's),
// no PreTransformVertices (it would bake the skeleton away).
inline constexpr unsigned kReadFlags =
    aiProcess_Triangulate | aiProcess_LimitBoneWeights | aiProcess_ValidateDataStructure;

inline void configure(Assimp::Importer& importer) {
  importer.SetPropertyInteger(AI_CONFIG_PP_LBW_MAX_WEIGHTS, 8);
  // Pivots become plain node transforms instead of "$AssimpFbx$" helper nodes.
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, false);
  // No placeholder meshes for skeletons without geometry.
  importer.SetPropertyBool(AI_CONFIG_IMPORT_NO_SKELETON_MESHES, true);
}

// The trial program's exit codes (a signal is reported as the signal).
inline constexpr int kTrialRead = 0;       // Assimp gave a scene
inline constexpr int kTrialUsage = 2;      // not one argument, or a limit could not be set
inline constexpr int kTrialNullScene = 3;  // no scene; Assimp's error is the last line
inline constexpr int kTrialException = 4;  // Assimp threw; what() is the last line

}  // namespace animpack::assimp_read
