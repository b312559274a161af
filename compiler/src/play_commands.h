// `animpack play` and `animpack pose`: a pack's scene stepped by the runtime's ScenePlayer
// from the command line, and one object's pose at one tick as JSON for comparison with
// other glTF implementations. cli/play.cpp parses the command lines into PlayCommandOptions and
// PoseCommandOptions and calls play_command / pose_command; the library functions below are what
// the tests call.
//
//   animpack::Result<animpack::Pack> pack = animpack::Pack::open("scene.anpk");
//   animpack::ScriptParse script = animpack::parse_script(text, "moves.txt");
//   if (!script.error.empty()) return fail(script.error);
//   std::string report;
//   animpack::Result<uint64_t> hash = animpack::run_play(*pack, {240, 60}, script.commands,
//                                                        &report);
//   animpack::Result<std::string> json = animpack::pose_json(*pack, "walker", 30, 60);
//
// The play script: one command per line, `TICK OBJECT COMMAND ARGS`, `#` starts a comment.
//   TICK OBJECT play CLIP [OPTION...]       ScenePlayer::animate(OBJECT, CLIP)...done()
//   TICK OBJECT fade CLIP SECONDS [OPTION...]   the same with .fade(SECONDS)
//   TICK OBJECT blend CLIP WEIGHT           ScenePlayer::blend_clip: a layer over what plays
//   TICK OBJECT stop                        ScenePlayer::stop_animation
//   TICK OBJECT set NAME VALUE              ScenePlayer::set_parameter: VALUE a number (a
//                                           float parameter) or true / false (a bool)
//   TICK OBJECT trigger NAME                ScenePlayer::fire_trigger
//   TICK OBJECT state NAME [SECONDS]        ScenePlayer::play_state, fading over SECONDS
//   TICK OBJECT ik_target SOLVER X Y Z      ScenePlayer::set_ik_target (object space)
//   TICK OBJECT ik_clear SOLVER             ScenePlayer::clear_ik_target
//   TICK OBJECT ik_pole SOLVER X Y Z        ScenePlayer::set_ik_pole
//   TICK OBJECT ik_weight SOLVER WEIGHT     ScenePlayer::set_ik_weight
//   TICK OBJECT ik_ground SOLVER HEIGHT [NX NY NZ]   ScenePlayer::set_ik_ground (a foot
//                                           solver; the normal defaults to the mesh's up)
// OPTION: `speed S`, `start SECONDS`, `loop`, `once`, `ping_pong`, `blend CLIP WEIGHT`
// (repeatable), `fade SECONDS`. Commands run in Game::tick of their tick, in line order
// within a tick. Unknown clips, parameters, states and solvers are the player's refusals
// (reported at their tick), not script errors; an unknown object, command or option or a
// malformed number is.
//
// pose and preview (cli/play.cpp, cli/preview.cpp) set up a state machine with `--set NAME=VALUE`
// (repeatable) and `--state STATE` for their --object, applied at tick 0 before it is
// stepped: MachineSettings, apply_settings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "animpack/clip.h"
#include "animpack/math.h"
#include "animpack/pack.h"
#include "animpack/result.h"
#include "animpack/scene_player.h"

namespace animpack {

// One script line.
struct ScriptCommand {
  enum class Kind : uint8_t {
    kPlay,
    kFade,
    kBlend,
    kStop,
    kSet,
    kTrigger,
    kState,
    kIkTarget,
    kIkClear,
    kIkPole,
    kIkWeight,
    kIkGround,
  };
  int64_t tick = 0;
  uint32_t line = 0;  // 1-based line in the script
  std::string object;
  Kind kind = Kind::kPlay;
  std::string clip;
  std::optional<double> fade;  // play/fade: crossfade seconds
  float weight = 1.0f;         // blend: the layer's weight
  std::optional<float> speed;  // play/fade options
  double start = 0.0;
  std::optional<Playback> playback;
  std::vector<std::pair<std::string, float>> blends;  // play/fade: .blend(clip, weight)
  std::string name;          // set, trigger: the parameter; state: the state; ik_*: the solver
  float value = 0.0f;        // set: a float parameter's value; ik_weight: the weight;
                             // ik_ground: the height
  Vec3 point;                // ik_target: the target; ik_pole: the pole; ik_ground: the normal
  bool has_point = false;    // ik_ground: a normal was given
  std::optional<bool> flag;  // set: a bool parameter's value (then `value` is unused)
  double seconds = 0.0;      // state: the fade
};

// What `--set NAME=VALUE` (repeatable) and `--state STATE` ask of one object's state
// machine at tick 0 (animpack pose and preview).
struct MachineSettings {
  struct Parameter {
    std::string name;
    std::string value;  // a number, true or false (true on a trigger fires it)
  };
  std::vector<Parameter> parameters;  // applied in order
  std::string state;                  // empty: the machine's start state
  bool empty() const { return parameters.empty() && state.empty(); }
};

// Parses `NAME=VALUE` (one --set argument) into *out; false with a message when it has
// no `=`, an empty name or a VALUE that is neither a number nor true / false.
bool parse_setting(std::string_view text, MachineSettings::Parameter* out, std::string* error);

// Applies `settings` to `object` at player.play_tick(): each parameter by its kind (a
// float to its number, a bool to true / false, a trigger fired by true), then play_state
// (no fade). Errors: kInvalidArgument for an object without a state machine or a value
// of the wrong form for its parameter; the player's own (kUnknownParameter,
// kWrongParameterKind, kBadParameterValue, kUnknownState), the message naming the flag.
Result<void> apply_settings(ScenePlayer& player, ObjectId object, const MachineSettings& settings);

// The most ticks pose steps an object with states: its transitions depend on every tick,
// so it is stepped from tick 0 (0.2 s in Release for the worked example's hero).
inline constexpr int64_t kMaxSteppedPoseTick = 1000000;

// A parsed script: its commands ordered by tick (line order within a tick), or the first
// error as "NAME:LINE: message".
struct ScriptParse {
  std::vector<ScriptCommand> commands;
  std::string error;
};

// Parses a play script (see the top of this file); `name` prefixes error messages.
ScriptParse parse_script(std::string_view text, std::string_view name);

// How `run_play` steps.
struct PlayRun {
  int64_t ticks = 240;  // ticks 0 .. ticks - 1
  int32_t rate = 60;    // ticks per second
};

// Steps the pack's scene `run.ticks` ticks, running `commands` (objects checked by name
// first: kInvalidArgument names an unknown one), and appends the report to *out: for each
// tick with events, refused calls or commands, a "tick T" line, then its events, errors
// and the pose of every animated object (FNV-1a 64 of its palette bits, or its sprite
// frame); then, for each object whose root motion policy is accumulate, the motion it
// took over the run (take_root_motion every tick, summed in the object's frame at tick 0:
// each delta's translation turned by the yaw taken before it, about the mesh's up axis;
// and the yaw in turns); then a summary line. Returns the run's hash: FNV-1a 64 over every
// tick's palettes, sprite frames, events (tick, object, clip, event name) and root motion
// deltas (the four integers, accumulate objects only). When `out_refused` is given it is
// set to the number of refused calls the summary counts.
Result<uint64_t> run_play(const Pack& pack, const PlayRun& run,
                          const std::vector<ScriptCommand>& commands, std::string* out,
                          uint64_t* out_refused = nullptr);

// The pose of `object` at `tick` (its own [object.animation] played from tick 0 at `rate`)
// as one JSON object: {"object", "tick", "rate", "joints": [{"name", "node", "translation",
// "rotation" (x y z w), "scale", "global", "palette"}], "parts": [{"node", "mesh",
// "primitive", "positions"}]}. `node`, `mesh` and `primitive` are the source glTF's
// indices; `global` is the joint's world matrix in the glTF scene (the rig's root matrix
// included, the object's own transform not; after its IK solvers) and `palette` global x
// inverse bind, both 16 floats column-major; `positions` are each part's vertices in the
// glTF scene's space (CPU-skinned, placed by their node's joint, or static) in the source
// accessor's order, as [x, y, z] (null for an accessor vertex no part vertex comes from).
// Morph targets (pack format 5): the rig's sets come as "morph_weights": [{"set",
// "targets", "weights"}] (the pose's weights, after the clips and game overrides; absent
// without sets), and a part with a morph set adds "morph_set" (its index there) and
// "morphed": its morphed positions before skinning or placing (bind or node space), in the
// same order; its "positions" are those morphed positions skinned (morph, then skin).
// Floats print with
// %.9g, which round-trips; strings are JSON-escaped (control characters, DEL and bytes
// that are not UTF-8 as \u00NN). The object is posed at `tick` directly (constant time).
// Errors: kInvalidArgument (no such object, negative tick, a pose that is not finite:
// the message names the object and joint), the player's and the pack's (kBadPack when a
// part's streams fail their checks).
// An object with states is stepped from tick 0 with `settings` applied first (its
// machine's update and its animator's advance each tick, as ScenePlayer::step does), so
// at most kMaxSteppedPoseTick (kInvalidArgument beyond); one with layers only gets its
// machine's first update and is posed at T directly. An object whose root motion policy
// is accumulate is stepped too (advance every tick), and the JSON gets "root_motion":
// {"x", "y", "z", "yaw"} (the integers take_root_motion returns for ticks 0 to T, in
// 1/65536 object units and 2^-24 turns), "translation" (object units) and "yaw_radians".
// The pose is after the object's IK solvers (their scene targets; IkSet::apply), as
// ScenePlayer::step leaves it. `settings` on an object without a
// state machine are kInvalidArgument. `fraction` (in [0, 1), else kInvalidArgument) poses
// tick + fraction, the sub-tick pose a render between two ticks shows
// (Animator::evaluate(tick, fraction), then IK); the JSON then gets "fraction".
Result<std::string> pose_json(const Pack& pack, std::string_view object, int64_t tick, int32_t rate,
                              const MachineSettings& settings = {}, float fraction = 0.0f);

// `animpack play`: the pack at `pack` stepped `ticks` ticks (1 to 100000000) at `rate`
// ticks a second (1 to 100000), with the play script in the file `script` ("": none; a
// regular file of at most 64 MiB); the report on stdout, problems on stderr.
struct PlayCommandOptions {
  std::string pack;
  int64_t ticks = 240;
  int64_t rate = 60;
  std::string script;
};

// `animpack pose`: `object`'s pose at `tick` (0 to 100000000) + `fraction` (in [0, 1)) at
// `rate` (1 to 100000), with `settings` applied at tick 0, as text or (json) pose_json's
// JSON on stdout.
struct PoseCommandOptions {
  std::string pack;
  std::string object;
  int64_t tick = 0;
  float fraction = 0.0f;
  int64_t rate = 60;
  MachineSettings settings;
  bool json = false;
};

// The commands over options already checked against the ranges above (cli/play.cpp does).
// Exit status: 0 done, 1 the inputs have errors (a bad pack or script, an unknown object;
// for play also any refused call, the report and its summary printed all the same), 2 I/O
// failure (a missing pack or script).
int play_command(const PlayCommandOptions& options);
int pose_command(const PoseCommandOptions& options);

}  // namespace animpack
