// `animpack play` and `animpack pose`: the command lines of the play_commands library
// (compiler/src/play_commands.h: run_play, pose_json), parsed here. See docs/cli.md.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "animpack/compiler/diagnostics.h"
#include "commands.h"
#include "play_commands.h"

namespace animpack::cli {
namespace {

const char* const kPlayUsage =
    "usage: animpack play PACK.anpk --ticks N [--rate R] [--script FILE]\n"
    "\n"
    "Opens the pack, sets up its scene with the runtime's ScenePlayer (every object's\n"
    "[object.animation] playing from tick 0) and steps ticks 0 to N-1. For each tick with\n"
    "events, refused calls or script commands it prints the events, the refusals and each\n"
    "animated object's pose (a hash of its palette bits, or its sprite frame); then a\n"
    "summary with a hash of the whole run.\n"
    "\n"
    "  --ticks N       how many ticks to step (1 or more)\n"
    "  --rate R        ticks per second (default 60)\n"
    "  --script FILE   a regular file, one `TICK OBJECT COMMAND ARGS` per line:\n"
    "                    TICK OBJECT play CLIP [OPTION...]\n"
    "                    TICK OBJECT fade CLIP SECONDS [OPTION...]\n"
    "                    TICK OBJECT blend CLIP WEIGHT\n"
    "                    TICK OBJECT stop\n"
    "                    TICK OBJECT set NAME VALUE      (a number, or true / false)\n"
    "                    TICK OBJECT trigger NAME\n"
    "                    TICK OBJECT state NAME [SECONDS]\n"
    "                    TICK OBJECT ik_target SOLVER X Y Z  (object space)\n"
    "                    TICK OBJECT ik_clear SOLVER\n"
    "                    TICK OBJECT ik_pole SOLVER X Y Z\n"
    "                    TICK OBJECT ik_weight SOLVER WEIGHT\n"
    "                    TICK OBJECT ik_ground SOLVER HEIGHT [NX NY NZ]\n"
    "                  OPTION: speed S, start SECONDS, loop, once, ping_pong,\n"
    "                  blend CLIP WEIGHT, fade SECONDS; # starts a comment\n"
    "\n"
    "Objects whose root motion policy is accumulate give the motion they took over the run\n"
    "(in their frame at tick 0, turned by their yaw as they go) before the summary.\n"
    "\n"
    "Exit status: 0 clean, 1 a bad pack or script or any refused call (the report and its\n"
    "summary printed all the same), 2 usage or I/O failure.\n";

const char* const kPoseUsage =
    "usage: animpack pose PACK.anpk --object NAME --tick T [--fraction F] [--rate R]\n"
    "                     [--json] [--set PARAMETER=VALUE]... [--state STATE]\n"
    "\n"
    "Plays the scene from tick 0 (the object's own [object.animation]) and prints the\n"
    "object's pose at tick T: each joint's glTF node, local translation, rotation (x y z w)\n"
    "and scale, world matrix and palette matrix (column-major), and each part's vertex\n"
    "positions (morphed, then CPU-skinned or placed by its node) in the source accessor's\n"
    "order, with each morph set's weights and a morphed part's morphed positions. With\n"
    "--json, as one JSON object whose floats round-trip (%.9g). An object with states is\n"
    "stepped from tick 0 (T at most 1000000), with --set and --state applied at tick 0,\n"
    "and so is one whose root motion policy is accumulate: it also prints the motion taken\n"
    "up to T. The pose is after the object's IK solvers.\n"
    "\n"
    "  --object NAME   the scene object\n"
    "  --tick T        the tick (0 or more)\n"
    "  --fraction F    the pose at T + F, F in [0, 1): the sub-tick pose a frame rendered\n"
    "                  between ticks T and T + 1 shows (default 0: the tick's)\n"
    "  --rate R        ticks per second (default 60)\n"
    "  --json          JSON instead of text\n"
    "  --set P=V       sets state machine parameter P at tick 0: a number (float), true or\n"
    "                  false (bool; true fires a trigger); repeatable, in order\n"
    "  --state STATE   starts the state machine in STATE at tick 0\n";

// --fraction's value: a number in [0, 1) (also as a float).
CLI::Validator fraction() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double f = text.empty() ? -1.0 : std::strtod(text.c_str(), &end);
        if (end != nullptr && *end == '\0' && f >= 0.0 && f < 1.0 && static_cast<float>(f) < 1.0f)
          return "";
        return "--fraction takes a number in [0, 1), not '" + printable(text) + "'";
      },
      "[0,1)");
}

}  // namespace

// --set P=V (repeatable, in order) and --state STATE into *settings, checked as given.
void add_machine_options(CLI::App* sub, MachineSettings* settings) {
  sub->add_option_function<std::vector<std::string>>(
         "--set",
         [settings](const std::vector<std::string>& values) {
           for (const std::string& v : values) {
             MachineSettings::Parameter p;
             std::string error;
             if (parse_setting(v, &p, &error)) settings->parameters.push_back(std::move(p));
           }
         })
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            MachineSettings::Parameter p;
            std::string error;
            return parse_setting(text, &p, &error) ? std::string() : error;
          },
          "PARAMETER=VALUE"));
  sub->add_option("--state", settings->state)
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return text.empty() ? "--state takes a state name" : "";
          },
          "STATE"));
}

void add_play_commands(CLI::App& app, int* status) {
  {
    CLI::App* sub =
        add_command(app, "play", "step the scene: events and poses per tick", kPlayUsage);
    auto o = std::make_shared<PlayCommandOptions>();
    auto positional = std::make_shared<std::vector<std::string>>();
    auto ticks = std::make_shared<int64_t>(-1);
    sub->add_option("PACK", *positional);
    sub->add_option("--ticks", *ticks)->check(whole_number("--ticks", 1, 100000000));
    sub->add_option("--rate", o->rate)->check(whole_number("--rate", 1, 100000));
    sub->add_option("--script", o->script);
    on_run(sub, status, [sub, o, positional, ticks] {
      if (positional->size() != 1) {
        return usage_error(
            *sub, "needs one PACK.anpk (" + std::to_string(positional->size()) + " given)");
      }
      if (*ticks < 0) return usage_error(*sub, "--ticks N is needed");
      o->pack = positional->front();
      o->ticks = *ticks;
      return play_command(*o);
    });
  }
  CLI::App* sub =
      add_command(app, "pose", "one object's joints and vertices at a tick", kPoseUsage);
  auto o = std::make_shared<PoseCommandOptions>();
  auto positional = std::make_shared<std::vector<std::string>>();
  auto tick = std::make_shared<int64_t>(-1);
  sub->add_option("PACK", *positional);
  sub->add_option("--object", o->object);
  sub->add_option("--tick", *tick)->check(whole_number("--tick", 0, 100000000));
  sub->add_option("--fraction", o->fraction)->check(fraction());
  sub->add_option("--rate", o->rate)->check(whole_number("--rate", 1, 100000));
  sub->add_flag("--json", o->json);
  add_machine_options(sub, &o->settings);
  on_run(sub, status, [sub, o, positional, tick] {
    if (positional->size() != 1) {
      return usage_error(*sub,
                         "needs one PACK.anpk (" + std::to_string(positional->size()) + " given)");
    }
    if (o->object.empty()) return usage_error(*sub, "--object NAME is needed");
    if (*tick < 0) return usage_error(*sub, "--tick T is needed");
    o->pack = positional->front();
    o->tick = *tick;
    return pose_command(*o);
  });
}

}  // namespace animpack::cli
