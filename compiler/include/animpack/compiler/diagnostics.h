// Cooker diagnostics (STYLE E3): every problem the cooker finds becomes a Diagnostic with a
// stable code from kDiagnosticCodes, a severity, a file and a 1-based line and column. A
// stage reports into a DiagnosticSink and carries on (nothing exits midway); the sink
// sorts them into source order, keeping notes with the diagnostic they belong to, and prints
// them in one of four formats (gcc, github, json, sarif), gcc optionally in colour.
//
//   animpack::DiagnosticSink sink;
//   sink.add_source("scene.toml", text);                       // for the source line
//   sink.report("E0202", "scene.toml", 14, 9, "mesh walker has no clip Jog");
//   sink.sort();
//   std::fputs(animpack::format_diagnostics(sink, animpack::DiagnosticFormat::kGcc).c_str(),
//              stderr);
//   return sink.has_errors() ? 1 : 0;
//
// prints
//
//   scene.toml:14:9: error: mesh walker has no clip Jog [E0202]
//      14 | clip = "Jog"
//         |        ^
//
// Columns count Unicode code points (as toml++ does), a tab as one. docs/diagnostics.md is
// diagnostic_codes_markdown() verbatim; a test holds them equal.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace animpack {

// How bad a diagnostic is. Only errors fail a cook.
enum class Severity { kError, kWarning, kNote };

// "error", "warning", "note".
const char* severity_name(Severity severity);

// One finding. line and col are 1-based; 0 when unknown (a whole-file problem such as a
// file that cannot be read has line 0 and col 0; a whole-line one has col 0).
struct Diagnostic {
  std::string code;  // a code of kDiagnosticCodes, e.g. "E0102"
  Severity severity = Severity::kError;
  std::string file;  // the path as the user gave it (not made absolute)
  int line = 0;
  int col = 0;
  std::string message;  // one sentence for people, no trailing period; tests assert codes
  // Where in a JSON file (a glTF) the problem lies: an RFC 6901 JSON pointer such as
  // "/animations/0/samplers/0", or "" (none: the place is file:line:col). The message says
  // it too, for the gcc and github formats; json and sarif also give it as a field.
  std::string pointer = {};
  // The code of the tool that found the problem when it was not the cooker's own check:
  // the glTF reader's or the import's issue code (kGltfIssueCodes, e.g.
  // "ACCESSOR_TOO_LONG"), or "". Also at the end of the message, in brackets.
  std::string source_code = {};
  // For a note that says more about another diagnostic: that diagnostic's index in
  // DiagnosticSink::diagnostics() (always lower than the note's own; sort() keeps it right).
  // -1 for every other diagnostic, standalone notes included.
  int parent = -1;
};

// A stable diagnostic code and what it means. The table below is the single source of the
// codes: the cooker reports only these, tests assert on them, and docs/diagnostics.md is
// generated from it (diagnostic_codes_markdown()).
struct DiagnosticCode {
  std::string_view code;         // "E0102": E = error, W = warning; never reused
  Severity severity;             // the severity the code is always reported with
  std::string_view title;        // a few words
  std::string_view explanation;  // the rule, and where the diagnostic points
};

// Every code, in ascending order. E00xx: files and TOML; E01xx: the scene's structure and
// values (the scene reader, scene.h); E02xx/W02xx: checks against the assets the scene
// names (the cooker); W03xx: warnings passed through from other tools; E09xx: internal
// errors (cooker bugs).
inline constexpr DiagnosticCode kDiagnosticCodes[] = {
    // Files and TOML.
    {"E0001", Severity::kError, "TOML syntax error",
     "The file is not valid TOML 1.0 (toml++ 3.3). Reported at the parser's line and column; "
     "the parser stops at the first syntax error, so nothing else in the file is checked."},
    {"E0002", Severity::kError, "cannot read file",
     "The scene file could not be opened or read: it is missing, not a regular file (a "
     "folder, FIFO or device) or larger than the limit (docs/scene-format.md, Limits). "
     "Reported at line 0 (the whole file)."},
    {"E0003", Severity::kError, "internal error",
     "The cooker failed in a way it does not expect (out of memory, or a bug: please report "
     "it). Nothing is written. Reported at the scene file, line 0."},
    // Scene structure (the scene reader).
    {"E0101", Severity::kError, "unknown key",
     "A key the table does not take (docs/scene-format.md lists every key). Reported at the "
     "key; the message suggests a known key when one is a close spelling."},
    {"E0102", Severity::kError, "wrong kind of value",
     "A value of the wrong TOML kind: a string where a number belongs, a float where an "
     "integer belongs, a table where an array belongs. Integers are accepted wherever a "
     "number (float) belongs. Reported at the key, or at the array element."},
    {"E0103", Severity::kError, "missing required key",
     "A required key is absent: a mesh's `name` or `file`, an object's `name`, the `mesh` of "
     "an object that is not a sprite, a blend entry's `clip` or `weight`, an event's `name`, "
     "`clip` and `time` or `frame`, a sprite clip's `from` or `to`, a parameter's `type`, a "
     "blend point's `clip` or `at`, a transition's `from` or `to`, the `parameter` of an "
     "`above`, `below` or `is` condition, a layer's `clip`, a mask table's `joint`, root "
     "motion's `policy`, an IK solver's `kind` or `joints`. Not "
     "reported when an unknown key of the same table was taken for a misspelling of it "
     "(E0101). Reported at the table's header or inline table; for a sprite clip and a "
     "parameter, at NAME."},
    {"E0104", Severity::kError, "duplicate mesh name",
     "Two `[[mesh]]` tables have the same `name`. Reported at the later `name`."},
    {"E0105", Severity::kError, "duplicate object name",
     "Two `[[object]]` tables have the same `name`. Reported at the later `name`."},
    {"E0106", Severity::kError, "unknown mesh",
     "An object's `mesh` names no `[[mesh]]` of the scene. Reported at `mesh`."},
    {"E0107", Severity::kError, "wrong file extension",
     "A mesh `file` and a clip source's `file` must end in .gltf, .glb, .fbx or .dae, a "
     "sprite `atlas` in .png, or .json or .xml for a sprite tool's data file (any letter "
     "case). Reported at the key."},
    {"E0108", Severity::kError, "Windows absolute path",
     "Asset paths are relative to the scene file's folder, or POSIX absolute paths (as build "
     "systems pass them; the pack records them relative to the scene's folder, so it does not "
     "depend on where it was cooked); a path that starts with `\\` or a drive letter (`C:`) "
     "would name a file nobody meant and is refused. Reported at the key."},
    {"E0109", Severity::kError, "empty string",
     "A name, mesh, file, atlas, clip, parameter, state or joint name (a humanoid map's "
     "included), an `include` or `exclude` pattern or a `rename` name is the empty string. "
     "Reported at the key or element."},
    {"E0110", Severity::kError, "unsupported format",
     "The top-level `format` is not 1, the only version of the scene format so far. Reported "
     "at `format`."},
    {"E0111", Severity::kError, "wrong number of elements",
     "`position` and `scale` take 3 numbers, `rotation` 4, `grid` 2 integers and each rect "
     "of `rects` 4 integers; a mesh's `up` and `forward` and an IK solver's `target`, `pole`, "
     "`forward` and `up` 3 numbers. Reported at the key, or at the rect."},
    {"E0112", Severity::kError, "number out of range",
     "A float that is nan or inf or does not fit a 32-bit float, or an integer that does not "
     "fit a 32-bit signed integer. Reported at the key or element."},
    {"E0113", Severity::kError, "weight not positive",
     "A blend entry's `weight` must be greater than 0 (weights are shared out by their sum). "
     "Reported at `weight`."},
    {"E0114", Severity::kError, "negative speed",
     "An animation's `speed` must be 0 or more (0 holds the start pose). Reported at `speed`."},
    {"E0115", Severity::kError, "negative start",
     "An animation's `start` (seconds into the clip) must be 0 or more. Reported at `start`."},
    {"E0116", Severity::kError, "unknown playback",
     "`playback` must be \"loop\", \"once\" or \"ping_pong\". Reported at `playback`."},
    {"E0117", Severity::kError, "sprite key on a skeletal animation",
     "`atlas`, `grid`, `rects`, `spacing`, `margin`, `fps`, `clips` and an event's `frame` "
     "belong to sprite animations; an animation without `atlas` is skeletal. Reported at "
     "the key."},
    {"E0118", Severity::kError, "skeletal key on a sprite animation",
     "`blend`, `playback` (a sprite clip takes its own), `parameters`, `states`, "
     "`transitions`, `layers`, `root_motion`, `ik` and an event's `time` belong to skeletal "
     "animations; an "
     "animation with `atlas` is a sprite. Reported at the key."},
    {"E0119", Severity::kError, "both clip and blend",
     "A skeletal animation plays one `clip` or one `blend`, not both. Reported at whichever "
     "of the two comes later in the file."},
    {"E0120", Severity::kError, "both grid and rects",
     "A sprite atlas is cut by `grid` or by `rects`, not both. Reported at whichever comes "
     "later in the file."},
    {"E0121", Severity::kError, "neither grid nor rects",
     "A sprite animation needs `grid` or `rects` to cut its atlas into frames. Reported at "
     "the `animation` key."},
    {"E0122", Severity::kError, "grid not positive",
     "`grid` columns and rows must be greater than 0. Reported at the element."},
    {"E0123", Severity::kError, "bad rect",
     "A rect [x, y, w, h] needs x and y 0 or more and w and h greater than 0. Reported at the "
     "element."},
    {"E0124", Severity::kError, "negative spacing or margin",
     "`spacing` and `margin` are pixels, 0 or more. Reported at the key."},
    {"E0125", Severity::kError, "spacing or margin without grid",
     "`spacing` and `margin` apply to a `grid` only; with `rects` they are refused. Reported "
     "at the key."},
    {"E0126", Severity::kError, "fps not positive",
     "A sprite animation's or sprite clip's `fps` must be greater than 0. Reported at `fps`."},
    {"E0127", Severity::kError, "sprite clip without fps",
     "A sprite clip has no `fps` of its own and its animation has none to inherit (with an "
     "atlas data file: and its frames have no durations; the cooker checks that one). "
     "Reported at the clip's name in its table header, or at `atlas` for a data file's tag."},
    {"E0128", Severity::kError, "negative event time",
     "A skeletal event's `time` (seconds into its clip) must be 0 or more. Reported at "
     "`time`."},
    {"E0129", Severity::kError, "negative event frame",
     "A sprite event's `frame` (an index within its clip) must be 0 or more. Reported at "
     "`frame`."},
    {"E0130", Severity::kError, "bad sprite clip range",
     "A sprite clip's `from` and `to` are atlas frames, 0 or more, with `from` <= `to`. "
     "Reported at `from` or `to`."},
    {"E0131", Severity::kError, "unknown sprite clip",
     "A sprite animation's `clip`, or an event's `clip`, names no "
     "`[object.animation.clips.NAME]` of the same animation (with an atlas data file, nor a "
     "tag of the file: the cooker checks that one). Reported at `clip`."},
    {"E0132", Severity::kError, "rotation not a unit quaternion",
     "`rotation` is a quaternion [x, y, z, w] whose length must be 1 within 1e-3. Reported at "
     "`rotation`."},
    {"E0133", Severity::kError, "zero scale",
     "No component of `scale` may be 0. Reported at the element."},
    {"E0134", Severity::kError, "empty array",
     "`blend`, `rects`, a transition's `when`, a layer's `mask` and root motion's "
     "`extract` and `feet` need at least one entry (leave `when`, `mask`, `extract` or "
     "`feet` out instead). Reported at the key."},
    {"E0135", Severity::kError, "over a scene limit",
     "A scene may have at most 4096 `[[mesh]]` and 65536 `[[object]]` tables; an animation "
     "or a mesh at most 4096 `events`; an animation at most 4 `blend` entries (what the "
     "runtime mixes) and 1024 sprite clips; a `speed` (of an animation, state or layer) of "
     "at most 8, a `start` of at most 3600 s and a `fade` of at most 3600 s; a sprite atlas "
     "at most 16384 frames (grid columns x rows, or `rects`), and its clips together at most "
     "65536 frames; a state machine at most 64 parameters, 256 states, 1024 transitions of "
     "at most 8 conditions each (`when` entries and `exit_time`) and 8 layers; a blend space "
     "at most 16 points; a `mask` at most 1024 entries; a mesh's `clips` at most 1024 "
     "sources, each `include`, `exclude` and `rename` at most 1024 entries; root motion's "
     "`feet` at most 8 joints; "
     "an animation at most 16 `ik` solvers. docs/scene-format.md lists every "
     "limit. Reported at the key, or at the first table past the limit."},
    {"E0136", Severity::kError, "unknown parameter type",
     "A parameter's `type` must be \"float\", \"bool\" or \"trigger\". Reported at `type`."},
    {"E0137", Severity::kError, "parameter default outside its range",
     "A float parameter's `min` must not be above its `max`, and its `default` must lie in "
     "[min, max]. Reported at `max`, or at `default`."},
    {"E0138", Severity::kError, "key not taken by the parameter's type",
     "`min` and `max` belong to float parameters only, and a trigger takes no `default` (it "
     "starts unset). Reported at the key."},
    {"E0139", Severity::kError, "state plays neither or both of clip and points",
     "A state plays a `clip` or a blend space (`points`): exactly one of them. Reported at "
     "whichever of the two comes later, or at the state's NAME when it has neither."},
    {"E0140", Severity::kError, "bad blend space",
     "A blend space's `points` need at least 2 entries (one clip is a `clip` state), no two "
     "at the same `at`. Reported at `points`, or at the later point's `at`."},
    {"E0141", Severity::kError, "blend point of the wrong dimension",
     "A point's `at` is a number in a 1D blend space and [x, y] in a 2D one (a state with "
     "`blend_parameter_y`). Reported at `at`."},
    {"E0142", Severity::kError, "blend parameter missing or misplaced",
     "A blend space (`points`) needs `blend_parameter`; `blend_parameter_y` needs "
     "`blend_parameter`; neither applies to a state that plays a `clip`. Reported at "
     "`points`, or at the blend parameter key."},
    {"E0143", Severity::kError, "both a value and its parameter",
     "A layer takes `weight` or `weight_parameter`, a state `speed` or `speed_parameter`, not "
     "both. Reported at whichever comes later."},
    {"E0144", Severity::kError, "reference without additive",
     "A layer's `reference` applies to an additive layer only (`additive = true`). Reported "
     "at `reference`."},
    {"E0145", Severity::kError, "key decided by the states",
     "With `states`, the animation's own `clip`, `blend`, `speed`, `playback` and `start` are "
     "refused: each state says what it plays. Reported at the key."},
    {"E0146", Severity::kError, "state machine key without states",
     "`parameters` and `transitions` belong to a state machine and need `states` (layers do "
     "not). Reported at the key."},
    {"E0147", Severity::kError, "unknown state",
     "A transition's `from` or `to` names no state of the animation (the message suggests a "
     "close spelling); `\"*\"` (any state) is taken in `from` only, and no state may be "
     "named `*`. Reported at `from` or `to`, or at the state's NAME."},
    {"E0148", Severity::kError, "unknown parameter",
     "A condition's `parameter` or `trigger`, a state's `blend_parameter`, "
     "`blend_parameter_y` or `speed_parameter`, or a layer's `weight_parameter` names no "
     "parameter of [object.animation.parameters] (the message suggests a close spelling). "
     "Reported at the key."},
    {"E0149", Severity::kError, "parameter of the wrong kind",
     "`above` and `below` test a float parameter, `is` a bool and `trigger` a trigger; blend, "
     "speed and weight parameters are floats. Reported at the key naming the parameter."},
    {"E0150", Severity::kError, "bad condition",
     "A `when` entry makes exactly one test: `{ parameter, above }`, `{ parameter, below }`, "
     "`{ parameter, is }` or `{ trigger }` (which takes no `parameter`). Reported at the "
     "entry, at its second test, or at the superfluous `parameter`."},
    {"E0151", Severity::kError, "parameter range too wide",
     "A `weight_parameter` drives a weight in [0, 1] and a `speed_parameter` a speed in "
     "[0, 8]: the parameter must declare `min` and `max` within that range. Reported at the "
     "key naming the parameter."},
    {"E0152", Severity::kError, "exit time not positive",
     "A transition's `exit_time` (passes of the from-state: 0.9 is 90% of its first pass, 2 "
     "two whole passes) must be greater than 0. Reported at `exit_time`."},
    {"E0153", Severity::kError, "negative fade",
     "A transition's `fade` (seconds) must be 0 or more. Reported at `fade`."},
    {"E0154", Severity::kError, "weight outside [0, 1]",
     "A layer's `weight` and a mask entry's `weight` lie in [0, 1]. Reported at `weight`."},
    {"E0155", Severity::kError, "unknown additive reference",
     "A layer's `reference` must be \"first_frame\" or \"rest_pose\". Reported at "
     "`reference`."},
    {"E0156", Severity::kError, "unknown root motion policy",
     "Root motion's `policy` must be \"off\", \"in_place\" or \"accumulate\". Reported at "
     "`policy`."},
    {"E0157", Severity::kError, "bad root motion extract",
     "Each element of root motion's `extract` is \"horizontal\", \"vertical\" or \"yaw\", "
     "each at most once. Reported at the element."},
    {"E0158", Severity::kError, "root motion rate out of range",
     "Root motion's `rate` (track samples a second) is an integer in [1, 1000]. Reported at "
     "`rate`."},
    {"E0159", Severity::kError, "bad root motion feet",
     "Root motion's `feet` name each joint at most once (reported at the later element), "
     "and take the horizontal travel from foot contact, so `extract` must have "
     "\"horizontal\" (reported at `feet`)."},
    {"E0160", Severity::kError, "mesh axis not a unit vector",
     "A mesh's `up` and `forward` are unit vectors: length 1 within 1e-4 (they are not "
     "normalised). Reported at the key."},
    {"E0161", Severity::kError, "mesh axes not perpendicular",
     "A mesh's `up` and `forward` must be perpendicular: their dot product 0 within 1e-4 (a "
     "default axis, [0, 1, 0] or [0, 0, 1], counts as given). Reported at the later of the "
     "two."},
    {"E0162", Severity::kError, "unknown IK kind",
     "An IK solver's `kind` must be \"two_bone\", \"aim\", \"chain\" or \"foot\". Reported "
     "at `kind`."},
    {"E0163", Severity::kError, "wrong number of IK joints",
     "An IK solver's `joints` are 3 for two_bone and foot ({upper, middle, end}, {thigh, "
     "shin, foot}), 1 for aim and 2 to 32 for chain. Reported at `joints`."},
    {"E0164", Severity::kError, "duplicate IK solver name",
     "The IK solvers of an object have distinct names (a solver without `name` is named for "
     "its last joint). Reported at the later `name`, or at its `joints`."},
    {"E0165", Severity::kError, "IK key not taken by the kind",
     "`target` belongs to two_bone, aim and chain solvers (a foot's ground is the game's), "
     "`pole` to two_bone, foot and aim solvers, `soften` to two_bone and foot, "
     "`twist` to two_bone, `forward`, `up` and `max_angle` to aim, `iterations` to chain and "
     "`hips` to foot. Reported at the key, naming the kinds that take it."},
    {"E0166", Severity::kError, "IK value out of range",
     "An IK solver's `weight` lies in [0, 1], `soften` in (0, 1], `twist` in [-180, 180] "
     "degrees, `max_angle` in (0, 180] degrees and `iterations` in [1, 64]. Reported at the "
     "key."},
    {"E0167", Severity::kError, "IK pole is zero",
     "An IK solver's `pole` is a direction: it must not be the zero vector (leave it out to "
     "keep the pose's bend plane). Reported at `pole`."},
    {"E0168", Severity::kError, "bad aim axes",
     "An aim solver's `forward` and `up` are unit vectors (length 1 within 1e-4; reported at "
     "the key) and not parallel (reported at the later of the two; a default axis counts as "
     "given)."},
    {"E0169", Severity::kError, "cut without both ends",
     "A clip source's cut takes both `from` and `to` (seconds into the animation), or "
     "neither. Reported at the one given."},
    {"E0170", Severity::kError, "bad cut range",
     "A cut's `from` is 0 or more and its `to` later than `from`, at most 3600 s (the "
     "longest clip) and at least 0.0001 s (the shortest) after `from`. Reported at `from` or "
     "`to`."},
    {"E0171", Severity::kError, "cut without a name",
     "A cut (`from`, `to`) is a clip of its own and needs a `name`. Reported at the clip "
     "source."},
    {"E0172", Severity::kError, "both name and rename",
     "A clip source names its one animation with `name`, or several with `rename`, not "
     "both. Reported at whichever comes later."},
    {"E0173", Severity::kError, "bad retarget_from",
     "A clip source's `retarget_from` names the `[[mesh]]` whose skeleton its clips were made "
     "for: another mesh of the scene (the message suggests a close spelling), never the "
     "source's own mesh. Reported at `retarget_from`."},
    {"E0174", Severity::kError, "meshes take each other's clips",
     "A clip source with `retarget_from` and no `file` takes the other mesh's clips, which "
     "must be made first; meshes that take each other's clips that way in a cycle have none "
     "to start from. Reported at the `retarget_from` that closes the cycle."},
    {"E0175", Severity::kError, "bad max_influences",
     "A mesh's `max_influences` is 4 (each vertex keeps its four largest weights, "
     "renormalised) or 8 (the default: every influence of JOINTS_0/1 and WEIGHTS_0/1). "
     "Reported at `max_influences`."},
    {"E0176", Severity::kError, "unknown humanoid bone",
     "A key of a mesh's `humanoid` map is a standard bone name (docs/scene-format.md lists "
     "them: `hips`, `spine`, `chest`, `left_upper_arm`, ...; the message suggests a close "
     "spelling). Reported at the key."},
    {"E0177", Severity::kError, "joint named by two humanoid bones",
     "Each joint of a mesh's `humanoid` map stands for one bone. Reported at the later "
     "bone."},
    {"E0178", Severity::kError, "clip name given twice",
     "The `name` and `rename` values of one mesh's clip sources name its clips, and a "
     "mesh's clip names are unique. Reported at the later one."},
    {"E0181", Severity::kError, "bad compression",
     "`compression` (at the top level, the scene's default, or in a [[mesh]]) is \"exact\" "
     "(every key as the file gives it, the default) or \"lossy\" (fewer, quantised keys "
     "within `tolerance` at `distance`; the message suggests a close spelling). Reported at "
     "`compression`."},
    {"E0182", Severity::kError, "bad tolerance or distance",
     "A lossy clip's `tolerance` (the largest error allowed at a joint's virtual vertices, "
     "default 0.001) is a number of metres from 0.000001 to 1, and `distance` (how far from "
     "each joint those vertices lie, default 0.1) from 0.001 to 100. Reported at the key."},
    {"E0190", Severity::kError, "sprite key not for this atlas",
     "An atlas data file (.json, .xml) gives the frames, so `grid`, `rects`, `spacing` and "
     "`margin` are refused; a PNG atlas has no frame names, so a clip's `frames` and "
     "`prefix` are refused; a data file's clip gives its frames one way: `from` and `to`, "
     "`frames` or `prefix`. Reported at the key (the later one for a clip's frames)."},
    // Checks against the assets (the cooker), and two the scene reader can already make.
    {"E0201", Severity::kError, "glTF does not load",
     "The mesh's glTF or GLB file (or a buffer file it names) is missing, is not a regular "
     "file (a folder, FIFO or device), is larger than the limit, or is not a usable glTF 2.0 "
     "file. Reported at the mesh's `file`, or at a clip source's `file`."},
    {"E0202", Severity::kError, "no such clip in mesh",
     "A skeletal `clip`, a blend entry's `clip`, or the `clip` of a state, a blend point or "
     "a layer is not an animation of the object's mesh (the message suggests a close "
     "spelling). Reported at `clip`."},
    {"E0203", Severity::kError, "event clip not in mesh",
     "A skeletal event's `clip` is not an animation of the object's mesh (for an event on a "
     "`[[mesh]]`, of that mesh). Reported at the event's `clip`."},
    {"W0204", Severity::kWarning, "event time past clip end",
     "A skeletal event's `time` (of an object's or a mesh's event) is later than its clip's "
     "duration; it would never fire and is dropped. Reported at `time`."},
    {"E0205", Severity::kError, "atlas missing or not PNG",
     "A sprite `atlas` (or the image its data file names) is missing, is not a regular file (a "
     "folder, FIFO or device), is "
     "larger than the limit, or does not decode as a PNG. Reported at `atlas`."},
    {"E0206", Severity::kError, "frame outside atlas image",
     "A `grid` does not fit the atlas image (with its spacing and margin), or a rect of "
     "`rects` lies outside it. Reported at `grid` or at the rect."},
    {"E0207", Severity::kError, "clip frame not in atlas",
     "A sprite clip's `from` or `to` is not a frame of the atlas (frames count from 0). "
     "Reported at `from` or `to`."},
    {"E0208", Severity::kError, "event frame not in its clip",
     "A sprite event's `frame` is an index within its clip (0 to to - from); it is past the "
     "clip's last frame. The scene reader checks this. Reported at `frame`."},
    {"E0209", Severity::kError, "sprite and content both",
     "An object shows a sprite (its animation has an `atlas`) or `content`, not both. The "
     "scene reader checks this. Reported at `content`."},
    {"E0210", Severity::kError, "asset over a limit",
     "A sprite atlas is larger than 8192 pixels on a side or 16777216 pixels in all, or what "
     "the pack would hold (vertex streams, keys, each distinct atlas once) passes 1 GiB. "
     "Checked before the pixels are decoded or the pack is built. glTF limits (joints, "
     "hierarchy depth, animations) are E0201 in the glTF file. docs/scene-format.md lists "
     "every limit. Reported at the `atlas` or mesh `file` that goes over."},
    {"E0211", Severity::kError, "unknown joint in mask",
     "A layer's `mask` names a joint the object's mesh rig does not have (the message "
     "suggests a close spelling among the rig's joint names). Reported at the mask entry: "
     "the string, or the `joint` key of its table."},
    {"W0212", Severity::kWarning, "state never entered",
     "A state other than the first (where the machine starts) that no transition leads to, "
     "from another state or from `\"*\"`: it can never play, except by a game's "
     "play_state. The scene reader checks this. Reported at the state's NAME."},
    {"E0213", Severity::kError, "root motion or IK without a rig",
     "`root_motion` and `ik` move the joints of a rig, and the object's mesh has none (no "
     "skin and no animated nodes). Reported at `root_motion` or at the `[[object.animation."
     "ik]]` table, with a note at the mesh's `[[mesh]]`."},
    {"W0214", Severity::kWarning, "clip moves a joint above the root joint",
     "A clip of the mesh animates the translation or rotation of a joint above root motion's "
     "`joint`; root motion takes those joints at rest, so that motion is not seen. One per "
     "clip, naming the clip and the joint. Reported at `joint`, or at `root_motion` when the "
     "joint is the default."},
    {"E0215", Severity::kError, "unknown joint",
     "Root motion's `joint` or a `feet` entry, an IK solver's `joints` entry or `hips` names "
     "a joint the object's mesh rig does not have (the message suggests a close spelling). "
     "Reported at the key or the element."},
    {"E0216", Severity::kError, "foot joint at or above the root joint",
     "A `feet` joint must lie below root motion's `joint`, not be it or one of the joints "
     "above it (those are held). Reported at the element."},
    {"E0217", Severity::kError, "IK joints do not form a chain",
     "Each joint of an IK solver's `joints` must be the parent of the next. Reported at the "
     "later joint of the pair, naming both."},
    {"E0218", Severity::kError, "zero-length bone",
     "A joint of an IK chain after its first lies less than 1e-6 object units from its "
     "parent in the rest pose: the bone that ends at it has no length or direction to solve. "
     "Reported at the joint."},
    {"E0219", Severity::kError, "bad hips",
     "A foot solver's `hips` must be an ancestor of its thigh (not the thigh); without "
     "`hips` the thigh's parent is taken, so the thigh must have one. Reported at `hips`, or "
     "at the thigh."},
    {"E0220", Severity::kError, "foot solvers with different hips",
     "The foot solvers of one object lower one hips joint together, so they must all have "
     "the same `hips`. Reported at the later solver's `hips` (or its thigh)."},
    {"E0221", Severity::kError, "root motion does not bake",
     "A clip's root motion does not fit the track's fixed-point units (at most 32767 object "
     "units of travel and 127 turns in one pass), or cannot be baked. Reported at "
     "`root_motion`, naming the clip."},
    {"E0222", Severity::kError, "clip source selects nothing",
     "An `include` pattern of a clip source matches no animation of its file (the message "
     "suggests a close name; reported at the pattern), or the source selects no animation at "
     "all: its file has none, or `exclude` removes every one (reported at the source's "
     "`file`, or at the source)."},
    {"E0223", Severity::kError, "name takes one animation",
     "A clip source's `name` (and a cut) takes exactly one animation; the source selects "
     "several (or its file has several and no `include` picks one). Reported at `name`, "
     "listing what was selected."},
    {"E0224", Severity::kError, "rename of an animation not taken",
     "A key of a clip source's `rename` is not among the animations the source selects (the "
     "message suggests a close name). Reported at the key."},
    {"E0225", Severity::kError, "cut past the animation's end",
     "A cut's `from` must lie before the end of its animation and its `to` at or before it "
     "(the message gives the animation's length). Reported at `from` or `to`."},
    {"E0226", Severity::kError, "clip name taken",
     "A clip source gives the mesh a clip whose name an earlier one has (an animation's own "
     "name, a `name` or a `rename`; names the scene gives twice are E0178). Reported at the "
     "`name` or `rename` key that gave it, or at the clip source."},
    {"W0227", Severity::kWarning, "clip joints not in the mesh",
     "The animations a clip source takes from another file animate joints (or morph "
     "targets' nodes) the mesh does not have, paired by name; their channels are dropped. "
     "One per source, listing the joints. Reported at the source's `file`. The same code "
     "carries retargeting's notes (severity note, not counted as warnings): joints the "
     "target lacks, rest values that differ, the hip ratio."},
    {"E0228", Severity::kError, "clips do not bind",
     "The animations of a clip source have no joint (and no morph target node) in common "
     "with the mesh, or retargeting them fails (a value that is not finite). Reported at the "
     "source's `file`, or at `retarget_from`, or at the source."},
    {"E0229", Severity::kError, "clips for a mesh without a rig",
     "A mesh whose file has no skin and no animated nodes has no joints for clips of other "
     "files or meshes to move. Reported at the clip source."},
    {"E0230", Severity::kError, "unknown humanoid joint",
     "A value of a mesh's `humanoid` map names a joint its rig does not have (the message "
     "suggests a close spelling). Reported at the bone's key."},
    {"W0235", Severity::kWarning, "lossy clip kept exact",
     "A clip of a mesh with `compression = \"lossy\"` whose quantised keys alone are over "
     "the mesh's `tolerance` (a very small tolerance, or a very large rig) is kept exact, "
     "as the file gives it. One per clip, naming the clip and the error measured. Reported "
     "at the mesh's `compression` (or the scene's). The same code carries the cook's report "
     "of each lossy mesh (severity note, not counted as warnings): its clips, keys before "
     "and after, and the largest error measured against the tolerance."},
    {"E0240", Severity::kError, "bad atlas data file",
     "A sprite `atlas` data file (Aseprite or TexturePacker JSON, Starling XML) is missing, "
     "over its limit, not well-formed, or breaks a rule of its format: a value of the wrong "
     "type, a frame outside the image, a trimmed box not inside its source size, a duration "
     "that is not a whole number of 1 to 3600000 ms, a tag whose `from` is after `to` or "
     "past the frames, an unknown tag direction, a frame or tag name given twice, no image "
     "(docs/scene-format.md, Atlas data files). Reported in the data file at the value's "
     "line and column, with its JSON pointer, and a note at the scene's `atlas`; a file that "
     "cannot be read is reported at `atlas`."},
    {"E0241", Severity::kError, "sprite clip does not fit the data file",
     "A sprite clip of an animation whose atlas is a data file names a frame the file does "
     "not have, or a `prefix` no frame name starts with (reported at the name or `prefix`), "
     "names a tag of the file and also gives frames (`from`/`to`, `frames`, `prefix`: the "
     "tag gives them; reported at the key), or names no tag and gives no frames (reported "
     "at the clip's name)."},
    {"E0242", Severity::kError, "atlas image does not match its data file",
     "The image an atlas data file names is not the size the file states (reported at "
     "`atlas`), or a frame of a file that states no size (Starling XML) lies outside the "
     "image (reported in the data file at the frame, with a note at `atlas`). An image "
     "that is missing or not a PNG is E0205 at `atlas`."},
    {"W0243", Severity::kWarning, "atlas data file warning",
     "Something in an atlas data file that the cooker passes over: a slice that gives a "
     "frame a pivot an earlier slice already gave (the first one is kept), an element of a "
     "Starling <TextureAtlas> that is not a <SubTexture>. Reported in the data file."},
    // Passed through from other tools.
    {"W0301", Severity::kWarning, "glTF warning",
     "A warning from reading a glTF file, passed through with its own message. Reported at "
     "the mesh's `file`. The same code carries the import's notes (severity note, not "
     "counted as warnings): a stream the cooker generated, such as flat normals for a "
     "primitive without NORMAL or tangents for a normal map (NORMALS_GENERATED, "
     "TANGENTS_GENERATED in gltf-issues.md), naming the mesh and the primitive."},
    // Internal errors: a bug in the cooker, never the input's fault.
    {"E0901", Severity::kError, "internal error: the pack does not open",
     "Before writing, the cooker opens the pack it built (Pack::open's checks) and plays it "
     "for a few ticks; a pack that fails is never written. It also checks each state "
     "machine it built (GraphDef::validate against the rig) and each rig it rebuilt with "
     "mesh events or additive clips. Every scene the cooker accepts must make a pack that "
     "opens, so this is a cooker bug: please report it with the scene. Reported at line 0 "
     "of the scene file."},
};

// The entry of kDiagnosticCodes with this code, or nullptr.
const DiagnosticCode* find_diagnostic_code(std::string_view code);

// Collects diagnostics and the text of the files they point into. Not thread-safe.
class DiagnosticSink {
 public:
  // Remembers the text of `file` so that the GCC format can print the offending line.
  // A second call for the same file replaces the text.
  void add_source(std::string file, std::string text);
  // The text given for `file`, or nullptr.
  const std::string* source(std::string_view file) const;

  // Adds a diagnostic as it is and returns its index in diagnostics(). A `parent` that is
  // not the index of an earlier diagnostic is made -1.
  size_t add(Diagnostic diagnostic);
  // Adds a diagnostic with the severity kDiagnosticCodes gives `code` and returns its
  // index. `code` must be in the table (asserted; an unknown code is reported as an error).
  size_t report(std::string_view code, std::string_view file, int line, int col,
                std::string message);
  // Adds a note that belongs to diagnostic `parent` (an index add() or report() returned):
  // it is printed right after it (after its earlier notes) in every format, and in SARIF it
  // is one of the parent's relatedLocations. Returns the note's index. A `parent` that is
  // not an earlier index gives a standalone note.
  size_t add_note(size_t parent, std::string_view code, std::string_view file, int line, int col,
                  std::string message);

  // Sorts by (file, line, col), stably: diagnostics at one place keep the order they were
  // reported in. A note with a parent moves with it and follows it (its notes in the order
  // they were added), wherever the note points; parent indices are renumbered to match.
  // Call once a stage (or the whole run) is done.
  void sort();
  // The diagnostics, in report order or, after sort(), in source order.
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  // True when any diagnostic is an error.
  bool has_errors() const { return error_count() > 0; }
  // The number of errors, and of warnings.
  size_t error_count() const;
  size_t warning_count() const;

 private:
  std::vector<Diagnostic> diagnostics_;
  std::map<std::string, std::string, std::less<>> sources_;
};

// The output formats of the command line's --format.
enum class DiagnosticFormat {
  kGcc,     // path:line:col: error: message [E0102], the source line and a caret line
  kGithub,  // ::error file=path,line=14,col=9,title=E0102::message (GitHub workflow command)
  kJson,    // one JSON object a line: file, line, column, severity, code, message, pointer,
            // source_code, parent
  kSarif,   // one SARIF 2.1.0 log (a JSON document) for all the diagnostics
};

// "gcc", "github", "json" or "sarif"; std::nullopt for anything else.
std::optional<DiagnosticFormat> parse_diagnostic_format(std::string_view name);

// How the gcc format is printed. color: ANSI escape sequences as GCC and Clang print them
// (bold path:line:col, bold red `error`, bold magenta `warning`, bold cyan `note`, a bold
// green caret); the other formats never colour.
struct DiagnosticStyle {
  bool color = false;
};

// The command line's --color: auto (the default), always, never.
enum class ColorMode { kAuto, kAlways, kNever };

// "auto", "always" or "never"; std::nullopt for anything else.
std::optional<ColorMode> parse_color_mode(std::string_view name);

// The colour rule: kAlways colours, kNever does not, and kAuto colours when the output is
// a terminal and NO_COLOR (https://no-color.org: `no_color` is its value, nullptr when
// unset) is unset or empty.
bool use_color(ColorMode mode, bool terminal, const char* no_color);

// use_color() for diagnostics written to stderr: isatty(2) and getenv("NO_COLOR").
bool use_color_on_stderr(ColorMode mode);

// One diagnostic in `format`, ending in a newline. For kGcc, `source` is the text of the
// diagnostic's file (or nullptr): when it has the line, the line follows, then a caret
// under the column (no caret when col is 0). A line past the text's end is not printed.
//   kGcc:    scene.toml:14:9: error: mesh walker has no clip Jog [E0202]
//               14 | clip = "Jog"
//                  |        ^
//   kGithub: ::error file=scene.toml,line=14,col=9,title=E0202::mesh walker has no clip Jog
//   kJson:   {"file":"scene.toml","line":14,"column":9,"severity":"error","code":"E0202",
//             "message":"mesh walker has no clip Jog","pointer":"","source_code":"",
//             "parent":null}   (on one line)
// Without a line (0), kGcc prints `path: error: ...` and kGithub leaves out line and col;
// kJson always has every key (0 for an unknown line or column, "" for no pointer or source
// code, null for no parent, else the parent's index: its line among the lines printed by
// format_diagnostics). Warnings print `warning` (GitHub `::warning`), notes `note` (GitHub
// `::notice`). kSarif gives a SARIF log holding this one diagnostic (see
// format_diagnostics). `style` applies to kGcc only.
std::string format_diagnostic(const Diagnostic& diagnostic, DiagnosticFormat format,
                              const std::string* source = nullptr, DiagnosticStyle style = {});

// Every diagnostic of the sink in its current order (sort() first for source order),
// with the sink's sources for the GCC format. kSarif is one SARIF 2.1.0 log
// (docs/cli.md): one run whose tool.driver is animpack with its version and the rules
// (kDiagnosticCodes entries) the results use; one result per diagnostic that is not a
// note with a parent (ruleId, ruleIndex, level, message, a physicalLocation with the file
// as a relative URI reference and the line and column when known, the JSON pointer as a
// logicalLocation and in properties), that diagnostic's notes as its relatedLocations;
// the files as the run's artifacts. Columns are Unicode code points (columnKind).
std::string format_diagnostics(const DiagnosticSink& sink, DiagnosticFormat format,
                               DiagnosticStyle style = {});

// `path` as a URI reference for SARIF's artifactLocation.uri: every byte but ASCII letters,
// digits, `-._~/!$&'()*+,;=@` percent-encoded (so a space is %20, `:` %3A, `\` %5C).
std::string sarif_uri(std::string_view path);

// `text` with every character that is not printable written as \xNN, one for each byte:
// ASCII control characters (NUL included) except those in `keep`, DEL, the C1 controls
// U+0080..U+009F and bytes that are not UTF-8. The gcc and github formats print file
// names and messages through it, and so do `inspect`, `play`, `pose` and `preview` for
// every string from a pack, so a name with a NUL or an escape sequence cannot cut or
// garble the output. printable() of its own result is the same (backslashes are kept), so
// a message that quotes escaped names can pass through it again.
std::string printable(std::string_view text, std::string_view keep = {});

// `text` as the body of a JSON string (without the quotes): " \ and control characters
// escaped, bytes that are not UTF-8 replaced by U+FFFD.
std::string json_escape(std::string_view text);

// docs/diagnostics.md: a short header, then kDiagnosticCodes as a Markdown table.
std::string diagnostic_codes_markdown();

}  // namespace animpack
