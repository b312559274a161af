// The scene file (docs/scene-format.md): `[[mesh]]` tables naming glTF files (with events
// on their clips) and `[[object]]` tables placing objects with their `[object.animation]`
// (a clip, a blend, a sprite, or a state machine with parameters, states, transitions and
// layers), read from TOML with the source position of every key, and checked for every
// rule the file alone can decide: unknown keys, kinds, names, ranges, the sprite/skeletal
// split, and a state machine's names, parameter kinds and ranges. Checks that need the
// assets (a clip of a glTF, a joint of its rig, a frame of an atlas) are the cooker's
// (E02xx).
//
//   animpack::DiagnosticSink sink;
//   animpack::Scene scene = animpack::read_scene("assets/demo/scene.toml", sink);
//   sink.sort();
//   std::fputs(animpack::format_diagnostics(sink, animpack::DiagnosticFormat::kGcc).c_str(),
//              stderr);
//   if (sink.has_errors()) return 1;
//   for (const animpack::SceneObject& object : scene.objects)
//     if (object.animation && !object.animation->sprite)
//       load_gltf(scene.folder / find_mesh(scene, object.mesh)->file);
//
// Positions are those of the KEY (`clip_pos` is where `clip` is written, not its value),
// and for array elements those of each element; {0, 0} means the key is absent (and the
// member holds its default). The reader never throws: after a TOML syntax error (E0001) it
// returns an empty Scene; otherwise it reports every problem it finds in one pass and
// returns what it could read (a value with an error keeps its default).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/animator.h"
#include "animpack/clip.h"
#include "animpack/compiler/diagnostics.h"
#include "animpack/graph.h"
#include "animpack/ik.h"
#include "animpack/limits.h"
#include "animpack/math.h"
#include "animpack/root_motion.h"

namespace animpack {

// Limits of a scene file (docs/scene-format.md, "Scene and asset limits"). No real game
// comes near them; they bound the cooker's time and memory and keep every pack it writes
// one the runtime opens. Each is an E0135 at the key (or the element past the limit).
inline constexpr size_t kMaxSceneMeshes = 4096;         // [[mesh]] tables
inline constexpr size_t kMaxSceneObjects = 65536;       // [[object]] tables
inline constexpr size_t kMaxBlendEntries = kMaxLayers;  // a `blend` (what a pack may hold)
inline constexpr size_t kMaxAnimationEvents = 4096;     // `events` of one animation
inline constexpr size_t kMaxSpriteClips = 1024;         // clips of one sprite animation
inline constexpr int64_t kMaxSpriteFrames = 16384;      // grid columns x rows, or `rects`
inline constexpr int64_t kMaxSpriteClipFrames = 65536;  // sum of (to - from + 1) over clips
inline constexpr size_t kMaxMaskEntries = 1024;         // `mask` entries of one layer
// An animation's `speed`, `start` and a sprite clip's `fps` are held to the runtime's
// bounds (animpack/limits.h: kMaxSpeed, kMaxStartSeconds, kMinSpriteFps, kMaxSpriteFps), a
// transition's `fade` to kMaxFadeSeconds, and a state machine to graph.h's bounds
// (kMaxGraphParameters, kMaxGraphStates, kMaxGraphTransitions, kMaxTransitionConditions,
// kMaxGraphLayers) and a blend space to kMaxBlendPoints (animator.h).
// Root motion's `feet` (bake_root_motion takes at most 8) and an object's `ik` solvers
// (kMaxIkSolvers) are held to the runtime's bounds too.
inline constexpr size_t kMaxRootMotionFeet = 8;
// A mesh's `clips` (Step 5): sources, and patterns of one `include` or `exclude` (or
// entries of one `rename`).
inline constexpr size_t kMaxClipSources = 1024;
inline constexpr size_t kMaxClipPatterns = 1024;
inline constexpr size_t kMaxSuggestedNameLength = 64;  // longer names get no "did you mean"
// Step 6. Lossy clips' `tolerance` and `distance` (metres; E0182 outside these bounds).
inline constexpr float kMinLossyTolerance = 1e-6f;
inline constexpr float kMaxLossyTolerance = 1.0f;
inline constexpr float kMinLossyDistance = 1e-3f;
inline constexpr float kMaxLossyDistance = 100.0f;

// A place in the scene file: 1-based line and column (in code points); 0, 0 when absent.
struct SourcePos {
  int line = 0, col = 0;
  // True when the position is a real one (the key was written).
  bool known() const { return line > 0; }
  friend bool operator==(const SourcePos&, const SourcePos&) = default;
};

// One entry of `events`: a skeletal event has a `time`, a sprite event a `frame`.
struct SceneEvent {
  std::string name;
  std::string clip;
  float time = 0;     // skeletal: seconds into the clip, >= 0
  int32_t frame = 0;  // sprite: an index within the clip's frames, >= 0
  SourcePos pos;      // the inline table (the array element)
  SourcePos name_pos, clip_pos, time_pos, frame_pos;
};

// One entry of a mesh's `clips` (Step 5): where the mesh's clips come from and which.
//   clips = [{ file = "anim/Walk.glb" },                       # every animation of a file
//            { include = ["Idle*"], exclude = ["*_old"] },     # the mesh's own file
//            { file = "take.glb", include = ["Take 001"], name = "Jump", from = 1.2, to = 2.0 },
//            { file = "mixamo/Run.fbx", retarget_from = "mixamo_guy", rename = { "mixamo.com" =
//            "Run" } }]
// Without `clips` a mesh takes every animation of its own file (as before Step 5); with it,
// exactly what its entries select, in entry order (animations in file order within one).
struct SceneRename {
  std::string from, to;
  SourcePos pos;  // the key (the animation's name) in the `rename` table
};
struct SceneClipSource {
  std::string file;  // "" = the mesh's own file (or, with retarget_from, that mesh's clips)
  // Animation names to take: glob patterns (`*` any run, `?` one character, matched on the
  // whole name, case-sensitive); empty: every animation. `exclude` removes matches.
  std::vector<std::string> include, exclude;
  std::vector<SourcePos> include_pos, exclude_pos;  // one per element
  std::string name;                 // the clip's name; needs exactly one selected animation
  std::vector<SceneRename> rename;  // animation name -> clip name, for several
  // A cut (both or neither): the part of the one selected animation from `from` to `to`
  // seconds (0 <= from < to), as its own clip, keys resampled at the cut ends; needs `name`.
  bool cut = false;
  float from = 0, to = 0;
  // A [[mesh]] whose skeleton the clips were made for: they are retargeted onto this
  // mesh's (retarget.h). "" = the clips animate this mesh's skeleton (joints by name).
  std::string retarget_from;
  SourcePos pos;  // the inline table (the array element)
  SourcePos file_pos, include_pos_key, exclude_pos_key, name_pos, rename_pos, from_pos, to_pos,
      retarget_from_pos;
};

// A `[[mesh]]`: a glTF, GLB, FBX or Collada file under a name objects refer to.
struct SceneMesh {
  std::string name;
  std::string file;  // as written, relative to Scene::folder; .gltf, .glb, .fbx or .dae
  // Events on the mesh's clips (skeletal: `time`), shared by every object using the mesh;
  // in document order.
  std::vector<SceneEvent> events;
  // The mesh's up and forward axes in its own space (root motion and IK): unit within
  // 1e-4 (the reader does not normalise) and perpendicular (|dot| <= 1e-4).
  Vec3 up{0, 1, 0};
  Vec3 forward{0, 0, 1};
  // Step 5. `clips` (see SceneClipSource); has_clips false when the key is absent.
  bool has_clips = false;
  std::vector<SceneClipSource> clips;
  // `max_influences` (4 or 8, default 8): 4 keeps each vertex's four largest weights,
  // renormalised (a note says how many vertices changed and the largest weight dropped).
  int max_influences = 8;
  // `humanoid = { hips = "mixamorig:Hips", left_upper_leg = "...", ... }`: standard bone
  // names (retarget.h, kHumanoidBones) to this mesh's joint names, used to pair joints
  // when clips are retargeted to or from this mesh.
  std::vector<SceneRename> humanoid;  // from: the standard bone, to: the joint name
  SourcePos pos;                      // the `[[mesh]]` header (or the inline table)
  SourcePos name_pos, file_pos, events_pos, up_pos, forward_pos, clips_pos, max_influences_pos,
      humanoid_pos;
  // Step 6. `compression = "exact" | "lossy"` (absent: the scene's, by default exact): how
  // the pack stores the keys of the mesh rig's clips; lossy keeps quantised keys, fewer of
  // them, within `tolerance` metres at a virtual vertex `distance` metres from each joint
  // (clip_optimize.h; absent: the scene's, by default 1 mm at 10 cm).
  ClipCompression compression = ClipCompression::kExact;
  float tolerance = 0.001f;
  float distance = 0.1f;
  SourcePos compression_pos, tolerance_pos, distance_pos;
};

// One entry of a skeletal `blend`.
struct SceneBlend {
  std::string clip;
  float weight = 0;  // > 0; weights are shared out by their sum
  SourcePos pos;     // the inline table (the array element)
  SourcePos clip_pos, weight_pos;
};

// A sprite `grid = [columns, rows]`.
struct SceneGrid {
  int32_t columns = 0, rows = 0;  // > 0
  SourcePos columns_pos, rows_pos;
};

// One rect of a sprite's `rects`: pixels, x right and y down from the image's top left.
struct SceneRect {
  int32_t x = 0, y = 0, w = 0, h = 0;  // x, y >= 0; w, h > 0
  SourcePos pos;                       // the [x, y, w, h] array (the element of `rects`)
  std::array<SourcePos, 4> element_pos;
};

// An `[object.animation.clips.NAME]` table: atlas frames `from` to `to`, inclusive. With
// an atlas data file the frames may instead be named (`frames`) or picked by a name
// `prefix`, or come from the data file's tag of the same NAME (then none of the three is
// given; the cooker knows the tags).
struct SceneSpriteClip {
  std::string name;
  int32_t from = 0, to = 0;               // 0 <= from <= to
  std::vector<std::string> frame_names;   // `frames` (data files): frame names, in play order
  std::vector<SourcePos> frame_name_pos;  // one per frame name
  std::string prefix;                     // `prefix` (data files): "" when absent
  std::optional<float> fps;               // > 0; absent: the animation's fps
  std::optional<Playback> playback;       // absent: kLoop
  SourcePos pos;                          // the table (its header, or the inline table)
  SourcePos name_pos;                     // the NAME segment of the header
  SourcePos from_pos, to_pos, fps_pos, playback_pos, frames_pos, prefix_pos;
};

// One `[object.animation.parameters]` entry: `NAME = { type, default, min, max }`.
struct SceneParameter {
  std::string name;  // the key
  ParameterKind kind = ParameterKind::kFloat;
  // float: its default (0 when absent, clamped into [min, max]); bool: 0 or 1; trigger: 0.
  float default_value = 0;
  std::optional<float> min, max;  // float only; min <= max
  bool typed = false;             // `type` was read (kind is meaningful)
  SourcePos pos;                  // the table (inline table, or the header)
  SourcePos name_pos;             // the NAME key
  SourcePos type_pos, default_pos, min_pos, max_pos;
};

// One `points` entry of a blend space state: `{ clip, at }`, `at` a number (1D) or
// [x, y] (2D, with `blend_parameter_y`).
struct SceneBlendPoint {
  std::string clip;
  float x = 0, y = 0;
  bool at_ok = false;  // `at` was read with the state's number of dimensions
  SourcePos pos;       // the inline table (the array element)
  SourcePos clip_pos, at_pos;
};

// An `[object.animation.states.NAME]` table: plays `clip`, or `points` (a blend space on
// `blend_parameter`, and `blend_parameter_y` for 2D).
struct SceneState {
  std::string name;  // the NAME; never "*" (that is "any state" in a transition's `from`)
  std::string clip;  // "" for a blend space
  std::vector<SceneBlendPoint> points;  // in document order
  std::string blend_parameter, blend_parameter_y;
  float speed = 1;              // [0, kMaxSpeed]
  std::string speed_parameter;  // "" or a float parameter whose value is the speed
  Playback playback = Playback::kLoop;
  float start = 0;  // seconds, [0, kMaxStartSeconds]
  SourcePos pos;    // the table (its header, or the inline table)
  SourcePos name_pos;
  SourcePos clip_pos, points_pos, blend_parameter_pos, blend_parameter_y_pos, speed_pos,
      speed_parameter_pos, playback_pos, start_pos;
};

// One `when` entry of a transition (or its `exit_time`, kind kExitTime).
struct SceneCondition {
  ConditionKind kind = ConditionKind::kAbove;
  std::string parameter;    // the float, bool or trigger parameter; "" for kExitTime
  float value = 0;          // above/below: the bound; is: 0 or 1; exit_time: passes
  SourcePos pos;            // the inline table (for kExitTime the `exit_time` key)
  SourcePos parameter_pos;  // `parameter`, or `trigger` for kTrigger
  SourcePos test_pos;       // `above`, `below`, `is` or `trigger`
};

// One `[[object.animation.transitions]]` table.
struct SceneTransition {
  std::string from;  // a state name, or "*" (any state)
  std::string to;    // a state name
  // The `when` entries in written order, then `exit_time` (kExitTime) when given.
  std::vector<SceneCondition> conditions;
  float fade = 0;  // seconds, [0, kMaxFadeSeconds]
  SourcePos pos;   // the `[[object.animation.transitions]]` header (or the inline table)
  SourcePos from_pos, to_pos, when_pos, exit_time_pos, fade_pos;
};

// One `mask` entry: a joint name (the string form) or `{ joint, weight, subtree }`.
struct SceneMaskEntry {
  std::string joint;
  float weight = 1;     // [0, 1]
  bool subtree = true;  // also every joint below it
  SourcePos pos;        // the array element
  SourcePos joint_pos;  // `joint` (the element itself for the string form)
  SourcePos weight_pos, subtree_pos;
};

// One `[[object.animation.layers]]` table: a clip over what the states (or the
// animation's clip or blend, or the rest pose) play.
struct SceneLayer {
  std::string clip;
  float weight = 1;                  // [0, 1]
  std::string weight_parameter;      // "" or a float parameter in [0, 1]
  std::vector<SceneMaskEntry> mask;  // in document order; empty: every joint at 1
  bool additive = false;             // plays the additive version of `clip`
  AdditiveReference reference = AdditiveReference::kNone;  // additive: kFirstFrame default
  float speed = 1;                                         // [0, kMaxSpeed]
  Playback playback = Playback::kLoop;
  SourcePos pos;  // the `[[object.animation.layers]]` header (or the inline table)
  SourcePos clip_pos, weight_pos, weight_parameter_pos, mask_pos, additive_pos, reference_pos,
      speed_pos, playback_pos;
};

// `[object.animation.root_motion]`: what of the root joint's motion is taken out of the
// pose, and whether it is collected for the game (root_motion.h).
struct SceneRootMotion {
  RootMotionPolicy policy = RootMotionPolicy::kOff;
  std::string joint;                     // "" : the rig's top joint (the cooker resolves)
  uint8_t extract = kExtractHorizontal;  // `extract = ["horizontal", "vertical", "yaw"]`
  int32_t rate = 60;                     // [1, kMaxRootMotionRate]
  std::vector<std::string> feet;         // joint names: travel from foot contact (bake_root_motion)
  SourcePos pos;                         // the table (its header, or the inline table)
  SourcePos policy_pos, joint_pos, extract_pos, rate_pos, feet_pos;
  std::vector<SourcePos> extract_element_pos, feet_element_pos;
};

// One `[[object.animation.ik]]` table (ik.h). Angles in the scene are degrees.
struct SceneIk {
  std::string name;  // unique in the animation; "" -> the last joint's name
  IkKind kind = IkKind::kTwoBone;
  std::vector<std::string> joints;  // names in the mesh rig (the cooker resolves)
  std::vector<SourcePos> joint_element_pos;
  float weight = 1;               // [0, 1]
  std::optional<Vec3> target;     // object space
  std::optional<Vec3> pole;       // object space, not zero
  float soften = 1;               // (0, 1]
  float twist_degrees = 0;        // [-180, 180]
  Vec3 forward{0, 0, 1};          // aim: joint-local, unit
  Vec3 up{0, 1, 0};               // aim: joint-local, unit, not parallel to forward
  float max_angle_degrees = 180;  // aim: (0, 180]
  int32_t iterations = 8;         // chain: [1, kMaxIkIterations]
  std::string hips;               // foot: "" -> the thigh's parent
  SourcePos pos;                  // the `[[object.animation.ik]]` header (or table)
  SourcePos name_pos, kind_pos, joints_pos, weight_pos, target_pos, pole_pos, soften_pos, twist_pos,
      forward_pos, up_pos, max_angle_pos, iterations_pos, hips_pos;
};

// An `[object.animation]`. sprite is true when the table has `atlas`; then the sprite
// members apply, else the skeletal ones. clip, events, speed and start apply to both.
struct SceneAnimation {
  bool sprite = false;
  SourcePos pos;  // the `animation` key (in `[object.animation]`, the segment `animation`)

  // Both kinds.
  std::string clip;                // the clip to play ("" when absent)
  std::vector<SceneEvent> events;  // in document order
  float speed = 1;                 // >= 0
  float start = 0;                 // seconds into the clip, >= 0
  SourcePos clip_pos, events_pos, speed_pos, start_pos;

  // Skeletal only.
  std::vector<SceneBlend> blend;  // in document order; not together with clip
  Playback playback = Playback::kLoop;
  SourcePos blend_pos, playback_pos;

  // Sprite only.
  std::string atlas;  // a PNG or a data file, as written, relative to Scene::folder
  // The atlas is a sprite tool's data file (.json: Aseprite, TexturePacker; .xml:
  // Starling), which gives the frames (no grid or rects) and the tags (clips).
  bool atlas_data = false;
  std::optional<SceneGrid> grid;       // exactly one of grid and rects
  std::vector<SceneRect> rects;        // in document order
  int32_t spacing = 0, margin = 0;     // pixels, >= 0, grid only
  std::optional<float> fps;            // > 0; the fps of clips without their own
  std::vector<SceneSpriteClip> clips;  // in document order (not toml++'s sorted order)
  SourcePos atlas_pos, grid_pos, rects_pos, spacing_pos, margin_pos, fps_pos, clips_pos;

  // Skeletal only: a state machine and layers. With states, the states decide what plays
  // (no clip, blend, speed, playback or start); parameters and transitions need states;
  // layers do not.
  std::vector<SceneParameter> parameters;    // in document order
  std::vector<SceneState> states;            // in document order; states[0] starts
  std::vector<SceneTransition> transitions;  // in written order
  std::vector<SceneLayer> layers;            // in written order
  SourcePos parameters_pos, states_pos, transitions_pos, layers_pos;

  // Skeletal only: root motion and IK (neither makes a graph).
  std::optional<SceneRootMotion> root_motion;
  std::vector<SceneIk> ik;  // in written order; at most kMaxIkSolvers
  SourcePos root_motion_pos, ik_pos;
  // True when any of parameters, states, transitions or layers is given (the cooker makes
  // a GraphDef).
  bool has_graph() const {
    return parameters_pos.known() || states_pos.known() || transitions_pos.known() ||
           layers_pos.known();
  }
};

// An `[[object]]`.
struct SceneObject {
  std::string name;      // unique among objects
  std::string mesh;      // a SceneMesh::name; "" only for a sprite without a card mesh
  std::string material;  // "" when absent
  bool face_camera = false;
  std::string content;  // "" when absent; never together with a sprite
  Vec3 position;        // default 0, 0, 0
  Quat rotation;        // x, y, z, w; unit; default identity
  Vec3 scale{1, 1, 1};  // no component 0
  std::optional<SceneAnimation> animation;

  SourcePos pos;  // the `[[object]]` header (or the inline table)
  SourcePos name_pos, mesh_pos, material_pos, face_camera_pos, content_pos;
  SourcePos position_pos, rotation_pos, scale_pos;
  std::array<SourcePos, 3> position_element_pos;
  std::array<SourcePos, 4> rotation_element_pos;
  std::array<SourcePos, 3> scale_element_pos;
};

// A whole scene file.
struct Scene {
  std::filesystem::path file;    // the path given to read_scene / parse_scene
  std::filesystem::path folder;  // file's folder: relative asset paths start here
  int format = 1;                // the top-level `format` (only 1 so far)
  SourcePos format_pos;
  std::vector<SceneMesh> meshes;     // in document order
  std::vector<SceneObject> objects;  // in document order
  // Step 6. The top-level `compression`, `tolerance` and `distance`: the defaults of every
  // [[mesh]] that does not give its own (SceneMesh has the meaning).
  ClipCompression compression = ClipCompression::kExact;
  float tolerance = 0.001f;
  float distance = 0.1f;
  SourcePos compression_pos, tolerance_pos, distance_pos;
};

// Reads and checks the scene file. Diagnostics go to `sink` with file = file.string(), and
// the file's text is added to the sink for the caret display. A file that cannot be read
// gives E0002 at line 0 and an empty Scene. Never throws.
Scene read_scene(const std::filesystem::path& file, DiagnosticSink& sink);

// The same for text already in memory; `file_name` names it in diagnostics and gives
// Scene::file and Scene::folder.
Scene parse_scene(std::string_view text, const std::filesystem::path& file_name,
                  DiagnosticSink& sink);

// The mesh of the scene with this name (the first one, if a name is repeated), or nullptr.
const SceneMesh* find_mesh(const Scene& scene, std::string_view name);

// The candidate closest to `word` within a small edit distance (1 for words under 8
// bytes, else 2; transpositions count 1), the first of equals, or "" when none is that
// close or `word` is longer than kMaxSuggestedNameLength. For "did you mean" hints; each
// comparison costs at most kMaxSuggestedNameLength squared steps.
std::string_view closest_name(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace animpack
