// A mesh's clips from its clip sources (Step 5; scene.h's SceneClipSource,
// docs/scene-format.md "Clip sources"): each source's animations selected by glob patterns,
// named, cut by time range, and bound to the mesh's rig by joint name or retargeted from
// another mesh's skeleton (retarget.h). cook.cpp loads the files (each once) and keeps the
// order of meshes; this is what a source means.
//
//   animpack::Clip jump = animpack::cut_clip(take, 1.2f, 2.0f);   // keys resampled at both ends
//   bool walk = animpack::glob_match("Walk*", "Walk_fast");      // true
//
//   struct Host : animpack::ClipSourceHost { ... };                // files, meshes, diagnostics
//   animpack::MeshClips clips = animpack::make_mesh_clips(scene, mesh, own_pool, host);
//
// The cooker's codes for clip sources (E0222 to E0230, W0227) are reported at the scene key
// they are about, through the host.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/clip.h"
#include "animpack/compiler/diagnostics.h"
#include "animpack/compiler/retarget.h"
#include "animpack/compiler/scene.h"
#include "animpack/rig.h"

namespace animpack {

// Whether `name` matches `pattern` as a whole: `*` matches any run of characters (none
// included), `?` exactly one byte, every other byte itself (case-sensitive). Cost at most
// |pattern| x |name| steps.
bool glob_match(std::string_view pattern, std::string_view name);

// The part of `clip` from `from` to `to` seconds as a clip of its own named `name`,
// starting at 0 and lasting exactly to - from: every channel (weights channels included)
// gets a key at each cut end with the value the runtime samples there (STEP: the key at or
// before; LINEAR: lerp, rotations by the runtime's slerp; CUBICSPLINE: the Hermite segment's
// value and per-second tangent, so that the cut follows the same cubic), and keeps the keys
// strictly between them, shifted by -from. Where the source holds a value (before its first
// key, after its last) the cut's tangents there are 0. Events within [from, to] are kept,
// shifted; the additive reference is kept. Preconditions: 0 <= from < to, finite.
Clip cut_clip(const Clip& clip, std::string name, float from, float to);

// The animations a source selects among `names` (in their order): those matching an
// `include` pattern (every one without `include`), less those matching an `exclude`
// pattern.
struct ClipSelection {
  std::vector<size_t> selected;         // indices into names, ascending
  std::vector<size_t> include_matches;  // per include pattern: the names it matched
};
ClipSelection select_animations(std::span<const std::string> names, const SceneClipSource& source);

// Clips and the rig they animate: what a clip source draws from. A file's pool is its
// import's rig; a mesh's pool (retarget_from without `file`) the clips its own sources made.
struct ClipPool {
  const Rig* rig = nullptr;  // skeleton, morph sets and clips; never null in a pool
  // Per clip of rig: the glTF animation it came from in `file` (-1 when none).
  std::vector<int> animations;
  std::string file;  // for messages: the file as the scene names it (or "mesh 'x'")
};

// What make_mesh_clips needs from the cooker.
class ClipSourceHost {
 public:
  virtual ~ClipSourceHost() = default;
  // The pool of a source's `file` (relative to the scene's folder), read and imported once
  // per cook whoever names it; nullptr after the host reported why at `pos` (E0201).
  virtual const ClipPool* file_pool(const std::string& file, SourcePos pos,
                                    const SceneMesh& mesh) = 0;
  // Whether mesh `name`'s file loaded (it has been reported where not).
  virtual bool mesh_loaded(const std::string& name) = 0;
  // The rig of mesh `name`'s own file (its skeleton and morph sets), nullptr when it did
  // not load or has no rig.
  virtual const Rig* mesh_rig(const std::string& name) = 0;
  // The clips mesh `name`'s sources made (made before this mesh's: see clip_source_order),
  // nullptr when it has none to give (no rig, or its clips failed: reported there).
  virtual const ClipPool* mesh_clips(const std::string& name) = 0;
  virtual void report(std::string_view code, Severity severity, SourcePos pos,
                      std::string message) = 0;
};

// A mesh's clips, in the order its sources give them.
struct MeshClips {
  std::vector<Clip> clips;
  std::vector<int> source_animations;  // per clip: ClipPool::animations of its source
  bool ok = true;                      // false after an error was reported
};

// Makes `mesh`'s clips from its sources (mesh.has_clips), reporting every problem at its
// key through `host`. `own` is the pool of the mesh's own file, nullptr when it has no rig
// (then nothing can move it: E0229 for a source that brings clips, E0222 for one that takes
// the file's own).
MeshClips make_mesh_clips(const Scene& scene, const SceneMesh& mesh, const ClipPool* own,
                          ClipSourceHost& host);

// Mesh indices of `scene` in the order their clips are made: a mesh whose source takes
// another mesh's clips (retarget_from without `file`) after that mesh; otherwise document
// order. Edges of a cycle (E0174, the reader's) are ignored.
std::vector<size_t> clip_source_order(const Scene& scene);

// E0230 for every `humanoid` joint `rig` lacks (nullptr: the mesh has no rig, so every one).
// True when all are joints.
bool check_humanoid(const SceneMesh& mesh, const Rig* rig, ClipSourceHost& host);

// The mesh's humanoid map as retarget.h takes it.
HumanoidMap humanoid_map(const SceneMesh& mesh);

}  // namespace animpack
