// `animpack play` and `animpack pose` (see play_commands.h).
#include "play_commands.h"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "animpack/compiler/diagnostics.h"
#include "animpack/morph.h"
#include "animpack/root_motion.h"
#include "animpack/scalar.h"
#include "animpack/scene_player.h"
#include "animpack/skinning.h"

namespace animpack {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitErrors = 1;
constexpr int kExitUsage = 2;
constexpr uintmax_t kMaxScriptBytes = 64u << 20;  // a play script of at most 64 MiB

struct Fnv {
  uint64_t h = 0xcbf29ce484222325ull;
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) {
      h ^= b[i];
      h *= 0x100000001b3ull;
    }
  }
  template <typename T>
  void value(const T& v) {
    bytes(&v, sizeof v);
  }
};

[[gnu::format(printf, 2, 3)]] void appendf(std::string* out, const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof buf) {
    out->append(buf, static_cast<size_t>(n));
    return;
  }
  std::string big(static_cast<size_t>(n) + 1, '\0');
  va_start(args, format);
  std::vsnprintf(big.data(), big.size(), format, args);
  va_end(args);
  big.resize(static_cast<size_t>(n));
  out->append(big);
}

std::string sv(std::string_view s) { return std::string(s); }

bool parse_int(std::string_view text, int64_t lo, int64_t hi, int64_t* out) {
  const std::string s(text);
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_double(std::string_view text, double* out) {
  const std::string s(text);
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// A parameter value: true / false, or a finite number that fits a float.
struct ParsedValue {
  bool is_bool = false;
  bool flag = false;
  float number = 0.0f;
};

bool parse_value(std::string_view text, ParsedValue* out) {
  if (text == "true" || text == "false") {
    out->is_bool = true;
    out->flag = text == "true";
    return true;
  }
  double v = 0;
  if (!parse_double(text, &v) || !(std::fabs(v) <= static_cast<double>(FLT_MAX))) return false;
  out->is_bool = false;
  out->number = static_cast<float>(v);
  return true;
}

// ------------------------------------------------------------------------- the script

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// The script game: runs each tick's commands in Game::tick.
class ScriptGame : public Game {
 public:
  ScriptGame(const std::vector<ScriptCommand>& commands, std::vector<ObjectId> ids)
      : commands_(commands), ids_(std::move(ids)) {}

  void tick(ScenePlayer& player, int64_t tick) override {
    ran_ = 0;
    while (next_ < commands_.size() && commands_[next_].tick < tick) ++next_;
    for (; next_ < commands_.size() && commands_[next_].tick == tick; ++next_, ++ran_) {
      const ScriptCommand& c = commands_[next_];
      const ObjectId id = ids_[next_];
      switch (c.kind) {
        case ScriptCommand::Kind::kStop:
          (void)player.stop_animation(id);
          break;
        case ScriptCommand::Kind::kBlend:
          (void)player.blend_clip(id, c.clip, c.weight);
          break;
        case ScriptCommand::Kind::kSet:
          if (c.flag) {
            (void)player.set_parameter(id, c.name, *c.flag);
          } else {
            (void)player.set_parameter(id, c.name, c.value);
          }
          break;
        case ScriptCommand::Kind::kTrigger:
          (void)player.fire_trigger(id, c.name);
          break;
        case ScriptCommand::Kind::kState:
          (void)player.play_state(id, c.name, c.seconds);
          break;
        case ScriptCommand::Kind::kIkTarget:
          (void)player.set_ik_target(id, c.name, c.point);
          break;
        case ScriptCommand::Kind::kIkClear:
          (void)player.clear_ik_target(id, c.name);
          break;
        case ScriptCommand::Kind::kIkPole:
          (void)player.set_ik_pole(id, c.name, c.point);
          break;
        case ScriptCommand::Kind::kIkWeight:
          (void)player.set_ik_weight(id, c.name, c.value);
          break;
        case ScriptCommand::Kind::kIkGround: {
          // No normal given: flat ground, the object's mesh's up.
          Vec3 normal{0, 1, 0};
          const int mesh = id.value < player.pack().objects().size()
                               ? player.pack().objects()[id.value].mesh
                               : -1;
          if (mesh >= 0) normal = player.pack().meshes()[static_cast<size_t>(mesh)].up;
          (void)player.set_ik_ground(id, c.name, c.value, c.has_point ? c.point : normal);
          break;
        }
        case ScriptCommand::Kind::kPlay:
        case ScriptCommand::Kind::kFade: {
          Animate a = player.animate(id, c.clip);
          for (const auto& [clip, weight] : c.blends) a.blend(clip, weight);
          if (c.fade) a.fade(*c.fade);
          if (c.speed) a.speed(*c.speed);
          if (c.start != 0.0) a.start(c.start);
          if (c.playback) a.playback(*c.playback);
          (void)a.done();
          break;
        }
      }
    }
  }
  // How many commands the latest tick ran.
  size_t ran() const { return ran_; }

 private:
  const std::vector<ScriptCommand>& commands_;
  std::vector<ObjectId> ids_;  // one per command
  size_t next_ = 0;
  size_t ran_ = 0;
};

// ------------------------------------------------------------------------- root motion

// Adds `d`'s translation, turned by `yaw` (1/kYawUnitsPerTurn turns, right-handed about the
// unit axis `up`: Rodrigues' rotation), to (*x, *y, *z), in object units. Double and the
// runtime's own sin and cos, so the sum is the same on every platform.
void add_turned(double* x, double* y, double* z, Vec3 up, int64_t yaw, const RootMotionDelta& d) {
  constexpr double kUnit = static_cast<double>(kRootMotionUnitsPerMetre);
  const double vx = static_cast<double>(d.x) / kUnit, vy = static_cast<double>(d.y) / kUnit,
               vz = static_cast<double>(d.z) / kUnit;
  const double a =
      2.0 * det::kPi *
      (static_cast<double>(yaw % kYawUnitsPerTurn) / static_cast<double>(kYawUnitsPerTurn));
  const double c = det::cos(a), s = det::sin(a);
  const double kx = up.x, ky = up.y, kz = up.z;
  const double k_dot_v = kx * vx + ky * vy + kz * vz;
  const double cx = ky * vz - kz * vy, cy = kz * vx - kx * vz, cz = kx * vy - ky * vx;
  *x += vx * c + cx * s + kx * k_dot_v * (1.0 - c);
  *y += vy * c + cy * s + ky * k_dot_v * (1.0 - c);
  *z += vz * c + cz * s + kz * k_dot_v * (1.0 - c);
}

// ------------------------------------------------------------------------- JSON

// A JSON string (diagnostics.h's json_escape: control characters escaped; the pack's
// strings are UTF-8, Pack::open checks it).
void json_string(std::string* out, std::string_view s) {
  out->push_back('"');
  out->append(json_escape(s));
  out->push_back('"');
}

// Callers check std::isfinite first (pose_finite): JSON has no nan or inf.
void json_float(std::string* out, float v) { appendf(out, "%.9g", static_cast<double>(v)); }

void json_floats(std::string* out, const float* v, int n) {
  out->push_back('[');
  for (int i = 0; i < n; ++i) {
    if (i > 0) out->append(", ");
    json_float(out, v[i]);
  }
  out->push_back(']');
}

}  // namespace

ScriptParse parse_script(std::string_view text, std::string_view name) {
  ScriptParse out;
  uint32_t line_no = 0;
  size_t pos = 0;
  auto fail = [&](const std::string& message) {
    out.commands.clear();
    out.error = sv(name) + ":" + std::to_string(line_no) + ": " + message;
    return out;
  };
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    const std::vector<std::string_view> w = words(line);
    if (w.empty()) continue;
    if (w.size() < 3) return fail("expected `TICK OBJECT COMMAND ARGS`");
    ScriptCommand c;
    c.line = line_no;
    if (!parse_int(w[0], 0, INT64_MAX / 2, &c.tick)) {
      return fail("tick '" + sv(w[0]) + "' is not a whole number, 0 or more");
    }
    c.object = sv(w[1]);
    const std::string_view command = w[2];
    size_t i = 3;
    auto need = [&](size_t n) { return i + n <= w.size(); };
    auto number = [&](std::string_view what, double* v) -> bool { return parse_double(what, v); };
    if (command == "stop") {
      c.kind = ScriptCommand::Kind::kStop;
    } else if (command == "set") {
      c.kind = ScriptCommand::Kind::kSet;
      if (!need(2)) return fail("set takes NAME VALUE");
      c.name = sv(w[i]);
      ParsedValue v;
      if (!parse_value(w[i + 1], &v)) {
        return fail("value '" + sv(w[i + 1]) + "' is neither a number nor true or false");
      }
      if (v.is_bool) {
        c.flag = v.flag;
      } else {
        c.value = v.number;
      }
      i += 2;
    } else if (command == "trigger") {
      c.kind = ScriptCommand::Kind::kTrigger;
      if (!need(1)) return fail("trigger takes a NAME");
      c.name = sv(w[i++]);
    } else if (command == "state") {
      c.kind = ScriptCommand::Kind::kState;
      if (!need(1)) return fail("state takes NAME [SECONDS]");
      c.name = sv(w[i++]);
      if (need(1)) {
        if (!number(w[i], &c.seconds)) return fail("seconds '" + sv(w[i]) + "' is not a number");
        ++i;
      }
    } else if (command.substr(0, 3) == "ik_") {
      // ik_target, ik_clear, ik_pole, ik_weight, ik_ground: a SOLVER, then numbers.
      auto floats = [&](size_t n, float* values) {
        for (size_t k = 0; k < n; ++k) {
          double v = 0;
          if (!number(w[i + k], &v) || !(std::fabs(v) <= static_cast<double>(FLT_MAX)))
            return false;
          values[k] = static_cast<float>(v);
        }
        return true;
      };
      float v[4] = {};
      if (command == "ik_target" || command == "ik_pole") {
        c.kind =
            command == "ik_target" ? ScriptCommand::Kind::kIkTarget : ScriptCommand::Kind::kIkPole;
        if (!need(4)) return fail(sv(command) + " takes SOLVER X Y Z");
        c.name = sv(w[i++]);
        if (!floats(3, v)) return fail(sv(command) + " takes SOLVER X Y Z (numbers)");
        c.point = {v[0], v[1], v[2]};
        i += 3;
      } else if (command == "ik_clear") {
        c.kind = ScriptCommand::Kind::kIkClear;
        if (!need(1)) return fail("ik_clear takes a SOLVER");
        c.name = sv(w[i++]);
      } else if (command == "ik_weight") {
        c.kind = ScriptCommand::Kind::kIkWeight;
        if (!need(2)) return fail("ik_weight takes SOLVER WEIGHT");
        c.name = sv(w[i++]);
        if (!floats(1, v)) return fail("weight '" + sv(w[i]) + "' is not a number");
        c.value = v[0];
        ++i;
      } else if (command == "ik_ground") {
        c.kind = ScriptCommand::Kind::kIkGround;
        if (!need(2)) return fail("ik_ground takes SOLVER HEIGHT [NX NY NZ]");
        c.name = sv(w[i++]);
        if (!floats(1, v)) return fail("height '" + sv(w[i]) + "' is not a number");
        c.value = v[0];
        ++i;
        if (i < w.size()) {
          if (!need(3) || !floats(3, v + 1))
            return fail("ik_ground takes SOLVER HEIGHT [NX NY NZ] (numbers)");
          c.point = {v[1], v[2], v[3]};
          c.has_point = true;
          i += 3;
        }
      } else {
        return fail("unknown command '" + sv(command) +
                    "' (ik_target, ik_clear, ik_pole, ik_weight, ik_ground)");
      }
    } else if (command == "blend") {
      c.kind = ScriptCommand::Kind::kBlend;
      double weight = 0;
      if (!need(2)) return fail("blend takes CLIP WEIGHT");
      c.clip = sv(w[i]);
      if (!number(w[i + 1], &weight)) return fail("weight '" + sv(w[i + 1]) + "' is not a number");
      c.weight = static_cast<float>(weight);
      i += 2;
    } else if (command == "play" || command == "fade") {
      c.kind = command == "play" ? ScriptCommand::Kind::kPlay : ScriptCommand::Kind::kFade;
      if (!need(1)) return fail(sv(command) + " takes a CLIP");
      c.clip = sv(w[i++]);
      if (c.kind == ScriptCommand::Kind::kFade) {
        double seconds = 0;
        if (!need(1) || !number(w[i], &seconds)) return fail("fade takes CLIP SECONDS");
        c.fade = seconds;
        ++i;
      }
      while (i < w.size()) {
        const std::string_view opt = w[i++];
        double v = 0;
        if (opt == "loop") {
          c.playback = Playback::kLoop;
        } else if (opt == "once") {
          c.playback = Playback::kOnce;
        } else if (opt == "ping_pong") {
          c.playback = Playback::kPingPong;
        } else if (opt == "speed" || opt == "start" || opt == "fade") {
          if (!need(1) || !number(w[i], &v)) return fail(sv(opt) + " takes a number");
          ++i;
          if (opt == "speed") c.speed = static_cast<float>(v);
          if (opt == "start") c.start = v;
          if (opt == "fade") c.fade = v;
        } else if (opt == "blend") {
          if (!need(2) || !number(w[i + 1], &v)) return fail("blend takes CLIP WEIGHT");
          c.blends.emplace_back(sv(w[i]), static_cast<float>(v));
          i += 2;
        } else {
          return fail("unknown option '" + sv(opt) +
                      "' (speed, start, loop, once, ping_pong, blend, fade)");
        }
      }
    } else {
      return fail("unknown command '" + sv(command) +
                  "' (play, fade, blend, stop, set, trigger, state, ik_target, ik_clear, "
                  "ik_pole, ik_weight, ik_ground)");
    }
    if (i < w.size()) return fail("unexpected '" + sv(w[i]) + "'");
    out.commands.push_back(std::move(c));
  }
  std::stable_sort(out.commands.begin(), out.commands.end(),
                   [](const ScriptCommand& a, const ScriptCommand& b) { return a.tick < b.tick; });
  return out;
}

bool parse_setting(std::string_view text, MachineSettings::Parameter* out, std::string* error) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    *error = "--set takes PARAMETER=VALUE, not '" + printable(text) + "'";
    return false;
  }
  ParsedValue v;
  if (!parse_value(text.substr(eq + 1), &v)) {
    *error = "--set " + printable(text.substr(0, eq)) + ": '" + printable(text.substr(eq + 1)) +
             "' is neither a number nor true or false";
    return false;
  }
  out->name = sv(text.substr(0, eq));
  out->value = sv(text.substr(eq + 1));
  return true;
}

Result<void> apply_settings(ScenePlayer& player, ObjectId object, const MachineSettings& settings) {
  if (settings.empty()) return ok();
  const StateMachine* machine = player.state_machine(object);
  const std::string name = printable(player.name(object));
  if (machine == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "object '%s' has no state machine: --set and --state need one",
                       name.c_str());
  }
  auto flagged = [&](const char* flag, std::string_view what, const Error& e) {
    return Error::make(e.code(), "%s %s: %s", flag, printable(what).c_str(), e.message());
  };
  for (const MachineSettings::Parameter& p : settings.parameters) {
    ParsedValue v;
    const int index = machine->graph().find_parameter(p.name);
    Result<void> r = ok();
    if (!parse_value(p.value, &v)) {
      r = Error::make(ErrorCode::kInvalidArgument, "'%s' is neither a number nor true or false",
                      printable(p.value).c_str());
    } else if (index >= 0 && machine->graph().parameters[static_cast<size_t>(index)].kind ==
                                 ParameterKind::kTrigger) {
      r = v.is_bool && v.flag
              ? player.fire_trigger(object, p.name)
              : Error::make(ErrorCode::kInvalidArgument, "a trigger is fired by true, not '%s'",
                            printable(p.value).c_str());
    } else if (v.is_bool) {
      r = player.set_parameter(object, p.name, v.flag);
    } else {
      r = player.set_parameter(object, p.name, v.number);
    }
    if (!r) return flagged("--set", p.name, r.error());
  }
  if (!settings.state.empty()) {
    if (Result<void> r = player.play_state(object, settings.state, 0.0); !r)
      return flagged("--state", settings.state, r.error());
  }
  return ok();
}

Result<uint64_t> run_play(const Pack& pack, const PlayRun& run,
                          const std::vector<ScriptCommand>& commands, std::string* out,
                          uint64_t* out_refused) {
  if (run.ticks < 0) return Error::make(ErrorCode::kInvalidArgument, "negative tick count");
  Result<ScenePlayer> created = ScenePlayer::create(&pack, run.rate);
  if (!created) return created.error();
  ScenePlayer& player = *created;
  std::vector<ObjectId> ids;
  ids.reserve(commands.size());
  for (const ScriptCommand& c : commands) {
    Result<ObjectId> id = player.find(c.object);
    if (!id) {
      return Error::make(ErrorCode::kInvalidArgument, "script line %u: no object '%s'", c.line,
                         printable(c.object).c_str());
    }
    ids.push_back(*id);
  }
  ScriptGame game(commands, std::move(ids));
  // Accumulate objects: the motion each takes, summed in its frame at tick 0.
  struct Travel {
    ObjectId id;
    Vec3 up;
    double x = 0, y = 0, z = 0;  // object units
    int64_t yaw = 0;             // 1/kYawUnitsPerTurn turns
  };
  std::vector<Travel> travels;
  for (uint32_t o = 0; o < player.object_count(); ++o) {
    const Animator* an = player.animator(ObjectId{o});
    if (an == nullptr || an->root_motion().policy != RootMotionPolicy::kAccumulate) continue;
    travels.push_back({ObjectId{o}, an->root_motion().up});
  }
  Fnv run_hash;
  uint64_t events = 0, errors = 0;
  for (int64_t t = 0; t < run.ticks; ++t) {
    player.step(&game);
    const std::span<const AnimationEvent> evs = player.animation_events();
    // Refusals of this tick: the ones that acted at it (later ones act at the next tick).
    size_t tick_errors = 0;
    for (const AnimationError& e : player.animation_errors()) tick_errors += e.tick == t;
    for (uint32_t o = 0; o < player.object_count(); ++o) {
      const ObjectId id{o};
      for (const Mat4& m : player.palette(id)) run_hash.bytes(m.m, sizeof m.m);
      if (player.sprite(id) != nullptr) run_hash.value(player.sprite_frame(id));
    }
    for (const AnimationEvent& e : evs) {
      run_hash.value(e.tick);
      run_hash.value(e.object.value);
      run_hash.value(e.clip);
      run_hash.bytes(e.event.data(), e.event.size());
    }
    for (Travel& tr : travels) {
      Result<RootMotionDelta> d = player.take_root_motion(tr.id);
      if (!d) continue;  // cannot fail: the object accumulates
      run_hash.value(d->x);
      run_hash.value(d->y);
      run_hash.value(d->z);
      run_hash.value(d->yaw);
      add_turned(&tr.x, &tr.y, &tr.z, tr.up, tr.yaw, *d);
      tr.yaw += d->yaw;
    }
    events += evs.size();
    errors += tick_errors;
    if (evs.empty() && tick_errors == 0 && game.ran() == 0) continue;
    appendf(out, "tick %" PRId64 "\n", t);
    // Names come from the pack (and the script): printed through printable().
    for (const AnimationEvent& e : evs) {
      appendf(out, "  %s: %s (%sclip %s)\n", printable(player.name(e.object)).c_str(),
              printable(e.event).c_str(), e.sprite ? "sprite " : "",
              printable(e.clip_name).c_str());
    }
    for (const AnimationError& e : player.animation_errors()) {
      if (e.tick != t) continue;
      appendf(out, "  refused: %s: %s\n", error_code_name(e.error.code()),
              printable(e.error.message()).c_str());
    }
    for (uint32_t o = 0; o < player.object_count(); ++o) {
      const ObjectId id{o};
      const std::string name = printable(player.name(id));
      if (player.animator(id) != nullptr) {
        Fnv h;
        for (const Mat4& m : player.palette(id)) h.bytes(m.m, sizeof m.m);
        appendf(out, "  %s pose %016" PRIx64, name.c_str(), h.h);
        if (!player.state(id).empty())
          appendf(out, " state %s", printable(player.state(id)).c_str());
        appendf(out, "\n");
      } else if (player.sprite(id) != nullptr) {
        appendf(out, "  %s frame %u\n", name.c_str(), player.sprite_frame(id));
      }
    }
  }
  for (const Travel& tr : travels) {
    appendf(out,
            "%s root motion: travelled %.6f %.6f %.6f (object units, its frame at tick 0), "
            "turned %.6f turns\n",
            printable(player.name(tr.id)).c_str(), tr.x, tr.y, tr.z,
            static_cast<double>(tr.yaw) / static_cast<double>(kYawUnitsPerTurn));
  }
  appendf(out,
          "played %" PRId64 " ticks at %d Hz: %" PRIu64 " events, %" PRIu64
          " refused calls, %" PRIu64 " dropped events; run hash %016" PRIx64 "\n",
          run.ticks, run.rate, events, errors, player.dropped_events(), run_hash.h);
  if (out_refused != nullptr) *out_refused = errors;
  return run_hash.h;
}

namespace {

// One object's pose at one tick, ready to print.
struct PoseJoint {
  std::string name;  // a copy: the player (and its per-object rigs) goes first
  int node = -1;
  Trs local;
  Mat4 global, palette;
};
struct PosePart {
  int node = -1, mesh = -1, primitive = -1;
  std::vector<std::optional<Vec3>> positions;  // in the source accessor's order
  // Parts with morph targets: their morph set and the morphed bind-space (or node-space)
  // positions, before skinning or placing, in the same order.
  int morph_set = -1;
  std::vector<std::optional<Vec3>> morphed;
};
struct PoseMorphSet {
  std::string name;
  std::vector<std::string> targets;
  std::vector<float> weights;
};
struct Pose {
  std::string_view object;
  int64_t tick = 0;
  float fraction = 0.0f;  // of a tick after `tick` (a sub-tick pose)
  int32_t rate = 60;
  std::optional<RootMotionDelta> root_motion;  // accumulate objects: taken over ticks 0..T
  std::vector<PoseJoint> joints;
  std::vector<PosePart> parts;
  std::vector<PoseMorphSet> morph_sets;  // the mesh rig's, with the pose's weights
};

Result<Pose> compute_pose(const Pack& pack, std::string_view object, int64_t tick, int32_t rate,
                          const MachineSettings& settings, float fraction = 0.0f) {
  if (tick < 0) return Error::make(ErrorCode::kInvalidArgument, "tick %" PRId64, tick);
  if (!(fraction >= 0.0f && fraction < 1.0f)) {  // false for NaN
    return Error::make(ErrorCode::kInvalidArgument, "fraction %g is not in [0, 1)",
                       static_cast<double>(fraction));
  }
  Result<ScenePlayer> created = ScenePlayer::create(&pack, rate);
  if (!created) return created.error();
  ScenePlayer& player = *created;
  Result<ObjectId> found = player.find(object);
  if (!found) return found.error();
  const ObjectId id = *found;
  if (Result<void> r = apply_settings(player, id, settings); !r) return r.error();
  Animator* animator = player.animator(id);
  StateMachine* machine = player.state_machine(id);
  const bool states = machine != nullptr && !machine->graph().states.empty();
  const bool accumulate =
      animator != nullptr && animator->root_motion().policy == RootMotionPolicy::kAccumulate;
  // Layers only: their weights reach the animator in the first update; no transition ever
  // fires.
  if (machine != nullptr && !states) machine->update(0);
  if (states || accumulate) {
    // A state machine's transitions depend on every tick, and root motion is collected by
    // each advance: step the object as ScenePlayer::step does (update, then advance; other
    // objects do not touch it).
    if (tick > kMaxSteppedPoseTick) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "object '%s' %s: it is stepped from tick 0, so tick "
                         "%" PRId64 " is above the most, %" PRId64,
                         printable(object).c_str(),
                         states ? "has states" : "accumulates root motion", tick,
                         kMaxSteppedPoseTick);
    }
    for (int64_t t = 0; t <= tick; ++t) {
      if (states) machine->update(t);
      (void)animator->advance(t);
    }
  }
  if (animator != nullptr) {
    // Otherwise nothing scripted happens, so the object's animator (what its
    // [object.animation] started at tick 0) poses tick T directly: the same bits as
    // stepping ticks 0..T (sampling does not depend on the previous tick; events and other
    // objects do not touch the pose), in constant time for any T. Then its IK solvers, as
    // ScenePlayer::step runs them (IK starts from the evaluated pose every tick).
    // (A fraction poses tick + fraction: Animator::evaluate(tick, fraction), the same bits
    // as ScenePlayer::evaluate_render after stepping to T.)
    if (Result<void> r = animator->evaluate(tick, fraction); !r) return r.error();
    if (IkSet* ik = player.ik(id); ik != nullptr) {
      ik->apply(animator->mutable_locals(), animator->mutable_globals());
      animator->refresh_palette();
    }
  }

  const ObjectInfo& info = pack.objects()[id.value];
  const int rig_index = info.mesh >= 0 ? pack.meshes()[static_cast<size_t>(info.mesh)].rig : -1;
  Pose pose;
  pose.object = info.name;
  pose.tick = tick;
  pose.fraction = fraction;
  pose.rate = rate;
  if (accumulate) pose.root_motion = animator->take_root_motion();
  if (animator != nullptr) {
    const Skeleton& skeleton = animator->rig()->skeleton();
    for (int j = 0; j < skeleton.joint_count(); ++j) {
      const size_t k = static_cast<size_t>(j);
      pose.joints.push_back({skeleton.joints()[k].name, pack.joint_source_node(rig_index, j),
                             animator->locals()[k], animator->globals()[k],
                             animator->palette()[k]});
    }
  }
  if (info.mesh < 0) return pose;
  const MeshInfo& mesh = pack.meshes()[static_cast<size_t>(info.mesh)];
  const std::span<const Mat4> palette = player.palette(id);
  // The morph weights the pose holds (the animator's, after evaluate), else the sets'
  // defaults (an object without an animator).
  std::vector<float> weights;
  if (rig_index >= 0) {
    const Rig& rig = pack.rig(rig_index);
    if (animator != nullptr && animator->morph_weights().size() == rig.morph_weight_count()) {
      weights.assign(animator->morph_weights().begin(), animator->morph_weights().end());
    } else {
      for (const MorphSet& set : rig.morph_sets()) {
        weights.insert(weights.end(), set.default_weights.begin(), set.default_weights.end());
      }
    }
    for (const MorphSet& set : rig.morph_sets()) {
      const auto first = static_cast<std::ptrdiff_t>(set.first);
      pose.morph_sets.push_back(
          {set.name, set.target_names,
           std::vector<float>(weights.begin() + first, weights.begin() + first + set.size())});
    }
  }
  std::vector<Vec3> moved, morphed;
  // Spreads part vertices over the source accessor's order.
  auto by_source = [](const PartStreams& s, std::span<const Vec3> positions) {
    size_t count = positions.size();
    for (const uint32_t v : s.source_vertices) count = std::max<size_t>(count, size_t{v} + 1);
    std::vector<std::optional<Vec3>> out(count);
    for (size_t v = 0; v < positions.size(); ++v) {
      out[v < s.source_vertices.size() ? s.source_vertices[v] : v] = positions[v];
    }
    return out;
  };
  for (int p = 0; p < mesh.part_count; ++p) {
    const int part_index = mesh.first_part + p;
    const PartInfo& part = pack.parts()[static_cast<size_t>(part_index)];
    Result<PartStreams> s = pack.part_streams(part_index);
    if (!s) return s.error();
    std::span<const Vec3> positions = s->positions;
    // Morph first (the CPU reference's order), then skin or place.
    std::span<const float> part_weights;
    if (part.morph_set >= 0 && rig_index >= 0 &&
        static_cast<size_t>(part.morph_set) < pose.morph_sets.size()) {
      const MorphSet& set = pack.rig(rig_index).morph_sets()[static_cast<size_t>(part.morph_set)];
      part_weights = std::span<const float>(weights).subspan(set.first, set.size());
    }
    const bool is_morphed = !part_weights.empty() && s->morph.targets == part_weights.size();
    if (is_morphed) {
      morphed.resize(positions.size());
      if (Result<void> r =
              apply_morph({positions, {}, {}, s->morph, part_weights, false}, {morphed, {}, {}});
          !r) {
        return r.error();
      }
    }
    if (part.skinned && !palette.empty()) {
      moved.resize(positions.size());
      SkinInput in{positions, {}, {}, s->joints, s->weights, s->joints1, s->weights1};
      if (is_morphed) {
        in.morph = s->morph;
        in.morph_weights = part_weights;
      }
      if (Result<void> r = skin(in, palette, {moved, {}, {}}); !r) return r.error();
      positions = moved;
    } else if (part.joint >= 0 && static_cast<size_t>(part.joint) < palette.size()) {
      moved.resize(positions.size());
      const Mat4& m = palette[static_cast<size_t>(part.joint)];
      const std::span<const Vec3> base = is_morphed ? std::span<const Vec3>(morphed) : positions;
      for (size_t v = 0; v < base.size(); ++v) moved[v] = transform_point(m, base[v]);
      positions = moved;
    } else if (is_morphed) {
      positions = morphed;
    }
    PosePart out;
    out.node = part.source_node;
    out.mesh = part.source_mesh;
    out.primitive = part.source_primitive;
    out.positions = by_source(*s, positions);
    if (is_morphed) {
      out.morph_set = part.morph_set;
      out.morphed = by_source(*s, morphed);
    }
    pose.parts.push_back(std::move(out));
  }
  return pose;
}

bool finite(const float* v, int n) {
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) return false;
  }
  return true;
}

// kInvalidArgument naming the first joint or part whose numbers are not all finite
// (a crafted pack can overflow a transform): JSON has no nan or inf.
Result<void> pose_finite(const Pose& pose) {
  const std::string object = printable(pose.object);
  for (const PoseJoint& j : pose.joints) {
    const float q[4] = {j.local.rotation.x, j.local.rotation.y, j.local.rotation.z,
                        j.local.rotation.w};
    if (!finite(&j.local.translation.x, 3) || !finite(q, 4) || !finite(&j.local.scale.x, 3) ||
        !finite(j.global.m, 16) || !finite(j.palette.m, 16)) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "object '%s' joint '%s' at tick %" PRId64
                         ": its pose is not finite (the pack's transforms overflow)",
                         object.c_str(), printable(j.name).c_str(), pose.tick);
    }
  }
  for (const PoseMorphSet& set : pose.morph_sets) {
    if (!set.weights.empty() && !finite(set.weights.data(), static_cast<int>(set.weights.size()))) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "object '%s' morph set '%s' at tick %" PRId64
                         ": its weights are not finite",
                         object.c_str(), printable(set.name).c_str(), pose.tick);
    }
  }
  for (const PosePart& part : pose.parts) {
    for (size_t v = 0; v < part.morphed.size(); ++v) {
      if (part.morphed[v] && !finite(&part.morphed[v]->x, 3)) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "object '%s' part of node %d vertex %zu at tick %" PRId64
                           ": its morphed position is not finite",
                           object.c_str(), part.node, v, pose.tick);
      }
    }
    for (size_t v = 0; v < part.positions.size(); ++v) {
      if (part.positions[v] && !finite(&part.positions[v]->x, 3)) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "object '%s' part of node %d vertex %zu at tick %" PRId64
                           ": its position is not finite (the pack's transforms overflow)",
                           object.c_str(), part.node, v, pose.tick);
      }
    }
  }
  return ok();
}

std::string format_json(const Pose& pose) {
  std::string out;
  out += "{\"object\": ";
  json_string(&out, pose.object);
  appendf(&out, ", \"tick\": %" PRId64 ", \"rate\": %d,", pose.tick, pose.rate);
  if (pose.fraction != 0.0f) {
    appendf(&out, " \"fraction\": %.9g,", static_cast<double>(pose.fraction));
  }
  if (const std::optional<RootMotionDelta>& d = pose.root_motion) {
    appendf(&out,
            "\n\"root_motion\": {\"x\": %" PRId64 ", \"y\": %" PRId64 ", \"z\": %" PRId64
            ", \"yaw\": %" PRId64 ", \"translation\": ",
            d->x, d->y, d->z, d->yaw);
    const Vec3 t = root_motion_translation(*d);
    json_floats(&out, &t.x, 3);
    out += ", \"yaw_radians\": ";
    json_float(&out, root_motion_yaw(*d));
    out += "},";
  }
  out += "\n\"joints\": [";
  for (size_t j = 0; j < pose.joints.size(); ++j) {
    const PoseJoint& joint = pose.joints[j];
    out += j > 0 ? ",\n  {\"name\": " : "\n  {\"name\": ";
    json_string(&out, joint.name);
    appendf(&out, ", \"node\": %d, \"translation\": ", joint.node);
    json_floats(&out, &joint.local.translation.x, 3);
    const float q[4] = {joint.local.rotation.x, joint.local.rotation.y, joint.local.rotation.z,
                        joint.local.rotation.w};
    out += ", \"rotation\": ";
    json_floats(&out, q, 4);
    out += ", \"scale\": ";
    json_floats(&out, &joint.local.scale.x, 3);
    out += ", \"global\": ";
    json_floats(&out, joint.global.m, 16);
    out += ", \"palette\": ";
    json_floats(&out, joint.palette.m, 16);
    out += "}";
  }
  out += "],";
  if (!pose.morph_sets.empty()) {
    out += "\n\"morph_weights\": [";
    for (size_t k = 0; k < pose.morph_sets.size(); ++k) {
      const PoseMorphSet& set = pose.morph_sets[k];
      out += k > 0 ? ",\n  {\"set\": " : "\n  {\"set\": ";
      json_string(&out, set.name);
      out += ", \"targets\": [";
      for (size_t t = 0; t < set.targets.size(); ++t) {
        if (t > 0) out += ", ";
        json_string(&out, set.targets[t]);
      }
      out += "], \"weights\": ";
      json_floats(&out, set.weights.data(), static_cast<int>(set.weights.size()));
      out += "}";
    }
    out += "],";
  }
  auto vertices = [&](const std::vector<std::optional<Vec3>>& list) {
    out += "[";
    for (size_t v = 0; v < list.size(); ++v) {
      if (v > 0) out += ", ";
      if (list[v]) {
        json_floats(&out, &list[v]->x, 3);
      } else {
        out += "null";
      }
    }
    out += "]";
  };
  out += "\n\"parts\": [";
  for (size_t p = 0; p < pose.parts.size(); ++p) {
    const PosePart& part = pose.parts[p];
    appendf(&out, "%s\n  {\"node\": %d, \"mesh\": %d, \"primitive\": %d, \"positions\": ",
            p > 0 ? "," : "", part.node, part.mesh, part.primitive);
    vertices(part.positions);
    if (part.morph_set >= 0) {
      appendf(&out, ", \"morph_set\": %d, \"morphed\": ", part.morph_set);
      vertices(part.morphed);
    }
    out += "}";
  }
  out += "]}\n";
  return out;
}

std::string format_text(const Pose& pose) {
  std::string out;
  const auto f = [](float v) { return static_cast<double>(v); };
  if (pose.fraction != 0.0f) {
    appendf(&out, "object %s at tick %" PRId64 " + %.9g (%d Hz): %zu joints, %zu parts\n",
            printable(pose.object).c_str(), pose.tick, static_cast<double>(pose.fraction),
            pose.rate, pose.joints.size(), pose.parts.size());
  } else {
    appendf(&out, "object %s at tick %" PRId64 " (%d Hz): %zu joints, %zu parts\n",
            printable(pose.object).c_str(), pose.tick, pose.rate, pose.joints.size(),
            pose.parts.size());
  }
  if (const std::optional<RootMotionDelta>& d = pose.root_motion) {
    const Vec3 t = root_motion_translation(*d);
    appendf(&out,
            "  root motion taken: %" PRId64 " %" PRId64 " %" PRId64 " yaw %" PRId64
            " (translation %.9g %.9g %.9g, yaw %.9g rad)\n",
            d->x, d->y, d->z, d->yaw, f(t.x), f(t.y), f(t.z), f(root_motion_yaw(*d)));
  }
  for (size_t j = 0; j < pose.joints.size(); ++j) {
    const PoseJoint& joint = pose.joints[j];
    const Trs& l = joint.local;
    appendf(&out,
            "  joint %zu %s (node %d): t %.9g %.9g %.9g  r %.9g %.9g %.9g %.9g  s %.9g %.9g %.9g\n",
            j, printable(joint.name).c_str(), joint.node, f(l.translation.x), f(l.translation.y),
            f(l.translation.z), f(l.rotation.x), f(l.rotation.y), f(l.rotation.z), f(l.rotation.w),
            f(l.scale.x), f(l.scale.y), f(l.scale.z));
  }
  for (const PoseMorphSet& set : pose.morph_sets) {
    appendf(&out, "  morph set %s:", printable(set.name).c_str());
    for (size_t t = 0; t < set.targets.size() && t < set.weights.size(); ++t) {
      appendf(&out, " %s=%.9g", printable(set.targets[t]).c_str(), f(set.weights[t]));
    }
    out += "\n";
  }
  for (const PosePart& part : pose.parts) {
    Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
    for (const std::optional<Vec3>& p : part.positions) {
      if (!p) continue;
      lo = {std::min(lo.x, p->x), std::min(lo.y, p->y), std::min(lo.z, p->z)};
      hi = {std::max(hi.x, p->x), std::max(hi.y, p->y), std::max(hi.z, p->z)};
    }
    appendf(&out,
            "  part node %d mesh %d primitive %d: %zu vertices, bounds %.9g %.9g %.9g .. %.9g %.9g "
            "%.9g\n",
            part.node, part.mesh, part.primitive, part.positions.size(), f(lo.x), f(lo.y), f(lo.z),
            f(hi.x), f(hi.y), f(hi.z));
  }
  return out;
}

}  // namespace

Result<std::string> pose_json(const Pack& pack, std::string_view object, int64_t tick, int32_t rate,
                              const MachineSettings& settings, float fraction) {
  Result<Pose> pose = compute_pose(pack, object, tick, rate, settings, fraction);
  if (!pose) return pose.error();
  if (Result<void> r = pose_finite(*pose); !r) return r.error();
  return format_json(*pose);
}

namespace {

int open_pack(const std::string& path, std::optional<Pack>* out) {
  Result<Pack> pack = Pack::open(path);
  if (!pack) {
    std::fprintf(stderr, "animpack: %s\n", pack.error().message());
    return pack.error().code() == ErrorCode::kIo ? kExitUsage : kExitErrors;
  }
  out->emplace(std::move(*pack));
  return kExitOk;
}

}  // namespace

int play_command(const PlayCommandOptions& o) {
  std::vector<ScriptCommand> commands;
  if (!o.script.empty()) {
    // Only a regular file (a directory, FIFO or device would fail or block the read),
    // and of a bounded size.
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::status(o.script, ec);
    const bool regular = !ec && std::filesystem::is_regular_file(st);
    const uintmax_t size = regular ? std::filesystem::file_size(o.script, ec) : 0;
    if (ec || !regular) {
      std::fprintf(stderr, "animpack: cannot read %s: %s\n", printable(o.script).c_str(),
                   ec ? ec.message().c_str() : "not a regular file");
      return kExitUsage;
    }
    if (size > kMaxScriptBytes) {
      std::fprintf(stderr, "animpack: %s: the script is %ju bytes, more than %ju\n",
                   printable(o.script).c_str(), size, uintmax_t{kMaxScriptBytes});
      return kExitErrors;
    }
    std::ifstream in(o.script, std::ios::binary);
    std::stringstream text;
    if (in) text << in.rdbuf();
    if (!in || in.bad() || text.str().size() != size) {
      std::fprintf(stderr, "animpack: cannot read %s\n", printable(o.script).c_str());
      return kExitUsage;
    }
    ScriptParse parsed = parse_script(text.str(), o.script);
    if (!parsed.error.empty()) {
      std::fprintf(stderr, "animpack: %s\n", printable(parsed.error).c_str());
      return kExitErrors;
    }
    commands = std::move(parsed.commands);
  }
  std::optional<Pack> pack;
  if (const int status = open_pack(o.pack, &pack); status != kExitOk) return status;
  std::printf("play %s: %zu objects, %" PRId64 " ticks at %" PRId64 " Hz, %zu script commands\n",
              o.pack.c_str(), pack->objects().size(), o.ticks, o.rate, commands.size());
  std::string report;
  uint64_t refused = 0;
  Result<uint64_t> hash =
      run_play(*pack, {o.ticks, static_cast<int32_t>(o.rate)}, commands, &report, &refused);
  std::fputs(report.c_str(), stdout);
  if (!hash) {
    std::fprintf(stderr, "animpack: %s\n", hash.error().message());
    return kExitErrors;
  }
  if (refused > 0) {  // the report above names each refusal at its tick
    std::fprintf(stderr, "animpack: %s: %" PRIu64 " refused call(s)\n", o.pack.c_str(), refused);
    return kExitErrors;
  }
  return kExitOk;
}

int pose_command(const PoseCommandOptions& o) {
  std::optional<Pack> pack;
  if (const int status = open_pack(o.pack, &pack); status != kExitOk) return status;
  Result<Pose> pose =
      compute_pose(*pack, o.object, o.tick, static_cast<int32_t>(o.rate), o.settings, o.fraction);
  if (pose && o.json) {
    if (Result<void> r = pose_finite(*pose); !r) pose = r.error();
  }
  if (!pose) {
    std::fprintf(stderr, "animpack: %s\n", printable(pose.error().message()).c_str());
    return kExitErrors;
  }
  std::fputs((o.json ? format_json(*pose) : format_text(*pose)).c_str(), stdout);
  return kExitOk;
}

}  // namespace animpack
