// State machines (graph.h): GraphDef validation, blend space weights and the
// StateMachine driving an Animator. The 2D weights are freeform gradient bands (the
// scheme of Unity's "Freeform Directional/Cartesian" and Godot's BlendSpace2D, after
// Johansen, "Automated Semi-Procedural Animation for Character Locomotion", 2009).
#include "animpack/graph.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "animpack/limits.h"

namespace animpack {
namespace {

// Names in messages are cut to this many characters (Error holds 120).
constexpr int kNameChars = 24;

bool finite(double v) { return std::isfinite(v); }
bool in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }  // false for NaN

bool valid_playback(Playback p) { return static_cast<uint8_t>(p) <= 2; }

// x clamped to [0, 1]; NaN gives 0.
double clamp01(double x) {
  if (!(x > 0.0)) return 0.0;
  return x < 1.0 ? x : 1.0;
}

// round(seconds * rate) ticks, as Animator::crossfade counts a fade.
int64_t fade_ticks(double seconds, int32_t rate) {
  return clamp_to_int64(std::round(seconds * static_cast<double>(rate)), 0, 1000000000);
}

// A name's first kNameChars characters, for "%.*s".
int name_chars(std::string_view name) {
  return name.size() < static_cast<size_t>(kNameChars) ? static_cast<int>(name.size()) : kNameChars;
}

// a + b without overflow (b >= 0).
int64_t add_ticks(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

Error bad(const char* format, ...) __attribute__((format(printf, 1, 2)));
Error bad(const char* format, ...) {
  char text[Error::kMaxMessage];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return Error::make(ErrorCode::kBadGraph, "%s", text);
}

bool is_float_parameter(const GraphDef& g, int32_t p) {
  return p >= 0 && static_cast<size_t>(p) < g.parameters.size() &&
         g.parameters[static_cast<size_t>(p)].kind == ParameterKind::kFloat;
}

Result<void> check_state(const GraphDef& g, const Rig& rig, size_t si) {
  const StateDef& s = g.states[si];
  const int n = kNameChars;
  const char* name = s.name.c_str();
  const int clips = rig.clip_count();
  if (s.name.empty()) return bad("state %zu has no name", si);
  for (size_t k = 0; k < si; ++k) {
    if (g.states[k].name == s.name)
      return bad("states %zu and %zu are both '%.*s'", k, si, n, name);
  }
  if (s.clip >= 0) {
    if (s.clip >= clips) {
      return bad("state %zu '%.*s': clip %d out of range (%d clips)", si, n, name, s.clip, clips);
    }
    if (rig.clips()[static_cast<size_t>(s.clip)].additive() != AdditiveReference::kNone) {
      return bad("state %zu '%.*s': clip %d is additive (states play ordinary clips)", si, n, name,
                 s.clip);
    }
    if (!s.points.empty() || s.x_parameter != -1 || s.y_parameter != -1) {
      return bad("state %zu '%.*s': plays a clip and has blend points or blend parameters", si, n,
                 name);
    }
  } else if (s.clip != -1) {
    return bad("state %zu '%.*s': clip %d is neither a clip nor -1", si, n, name, s.clip);
  } else {
    const size_t count = s.points.size();
    if (count < 2 || count > static_cast<size_t>(kMaxBlendPoints)) {
      return bad("state %zu '%.*s': a blend space of %zu points (2 to %d)", si, n, name, count,
                 kMaxBlendPoints);
    }
    if (!is_float_parameter(g, s.x_parameter)) {
      return bad("state %zu '%.*s': x parameter %d is not a float parameter", si, n, name,
                 s.x_parameter);
    }
    const bool two_d = s.y_parameter != -1;
    if (two_d && !is_float_parameter(g, s.y_parameter)) {
      return bad("state %zu '%.*s': y parameter %d is not a float parameter", si, n, name,
                 s.y_parameter);
    }
    for (size_t p = 0; p < count; ++p) {
      const BlendPoint& bp = s.points[p];
      if (bp.clip >= clips) {
        return bad("state %zu '%.*s': point %zu: clip %u out of range (%d clips)", si, n, name, p,
                   bp.clip, clips);
      }
      if (rig.clips()[bp.clip].additive() != AdditiveReference::kNone) {
        return bad("state %zu '%.*s': point %zu: clip %u is additive", si, n, name, p, bp.clip);
      }
      if (!finite(bp.x) || (two_d && !finite(bp.y))) {
        return bad("state %zu '%.*s': point %zu is not finite", si, n, name, p);
      }
      for (size_t q = 0; q < p; ++q) {
        const BlendPoint& o = s.points[q];
        if (o.x == bp.x && (!two_d || o.y == bp.y)) {
          return bad("state %zu '%.*s': points %zu and %zu coincide", si, n, name, q, p);
        }
      }
    }
  }
  if (!in_range(s.speed, 0.0, kMaxSpeed)) {
    return bad("state %zu '%.*s': speed %g is not in [0, %g]", si, n, name,
               static_cast<double>(s.speed), static_cast<double>(kMaxSpeed));
  }
  if (s.speed_parameter != -1 && !is_float_parameter(g, s.speed_parameter)) {
    return bad("state %zu '%.*s': speed parameter %d is not a float parameter", si, n, name,
               s.speed_parameter);
  }
  if (!valid_playback(s.playback)) {
    return bad("state %zu '%.*s': playback %u is unknown", si, n, name,
               static_cast<unsigned>(s.playback));
  }
  if (!in_range(s.start, 0.0, kMaxStartSeconds)) {
    return bad("state %zu '%.*s': start %g is not in [0, %g]", si, n, name, s.start,
               kMaxStartSeconds);
  }
  return ok();
}

Result<void> check_transition(const GraphDef& g, size_t ti) {
  const TransitionDef& t = g.transitions[ti];
  const auto states = static_cast<int32_t>(g.states.size());
  if (t.from < -1 || t.from >= states) {
    return bad("transition %zu: from-state %d out of range (%d states)", ti, t.from, states);
  }
  if (t.to < 0 || t.to >= states) {
    return bad("transition %zu: to-state %d out of range (%d states)", ti, t.to, states);
  }
  // From here on the message names the transition by its states.
  const int n = kNameChars / 2;
  const char* from = t.from == -1 ? "*" : g.states[static_cast<size_t>(t.from)].name.c_str();
  const char* to = g.states[static_cast<size_t>(t.to)].name.c_str();
  if (!in_range(t.fade, 0.0, kMaxFadeSeconds)) {
    return bad("transition %zu (%.*s -> %.*s): fade %g is not in [0, %g]", ti, n, from, n, to,
               t.fade, kMaxFadeSeconds);
  }
  if (t.conditions.size() > static_cast<size_t>(kMaxTransitionConditions)) {
    return bad("transition %zu (%.*s -> %.*s): %zu conditions (at most %d)", ti, n, from, n, to,
               t.conditions.size(), kMaxTransitionConditions);
  }
  for (size_t ci = 0; ci < t.conditions.size(); ++ci) {
    const ConditionDef& c = t.conditions[ci];
    const double v = c.value;
    if (c.kind == ConditionKind::kExitTime) {
      if (c.parameter != -1) {
        return bad("transition %zu (%.*s -> %.*s): condition %zu: exit_time has parameter %d", ti,
                   n, from, n, to, ci, c.parameter);
      }
      if (!(finite(v) && v >= 0.0)) {
        return bad("transition %zu (%.*s -> %.*s): condition %zu: exit_time %g is not >= 0", ti, n,
                   from, n, to, ci, v);
      }
      continue;
    }
    ParameterKind want = ParameterKind::kFloat;
    switch (c.kind) {
      case ConditionKind::kAbove:
      case ConditionKind::kBelow:
        want = ParameterKind::kFloat;
        if (!finite(v)) {
          return bad("transition %zu (%.*s -> %.*s): condition %zu: threshold is not finite", ti, n,
                     from, n, to, ci);
        }
        break;
      case ConditionKind::kIs:
        want = ParameterKind::kBool;
        if (v != 0.0 && v != 1.0) {
          return bad("transition %zu (%.*s -> %.*s): condition %zu: is %g (0 or 1)", ti, n, from, n,
                     to, ci, v);
        }
        break;
      case ConditionKind::kTrigger:
        want = ParameterKind::kTrigger;
        break;
      default:
        return bad("transition %zu (%.*s -> %.*s): condition %zu: kind %u is unknown", ti, n, from,
                   n, to, ci, static_cast<unsigned>(c.kind));
    }
    if (c.parameter < 0 || static_cast<size_t>(c.parameter) >= g.parameters.size()) {
      return bad("transition %zu (%.*s -> %.*s): condition %zu: parameter %d out of range", ti, n,
                 from, n, to, ci, c.parameter);
    }
    const ParameterDef& p = g.parameters[static_cast<size_t>(c.parameter)];
    if (p.kind != want) {
      return bad("transition %zu (%.*s -> %.*s): condition %zu: %s on %s parameter '%.*s'", ti, n,
                 from, n, to, ci, condition_kind_name(c.kind), parameter_kind_name(p.kind), n,
                 p.name.c_str());
    }
  }
  return ok();
}

Result<void> check_layer(const GraphDef& g, const Rig& rig, size_t li) {
  const LayerDef& l = g.layers[li];
  const int clips = rig.clip_count();
  if (l.mode != LayerMode::kOverride && l.mode != LayerMode::kAdditive) {
    return bad("layer %zu: mode %u is unknown", li, static_cast<unsigned>(l.mode));
  }
  if (l.clip >= clips) return bad("layer %zu: clip %u out of range (%d clips)", li, l.clip, clips);
  const Clip& clip = rig.clips()[l.clip];
  const int n = kNameChars;
  const bool additive = clip.additive() != AdditiveReference::kNone;
  if (additive != (l.mode == LayerMode::kAdditive)) {
    return bad("layer %zu '%.*s': an %s layer of an %s clip", li, n, clip.name().c_str(),
               l.mode == LayerMode::kAdditive ? "additive" : "override",
               additive ? "additive" : "ordinary");
  }
  if (!in_range(l.weight, 0.0, 1.0)) {
    return bad("layer %zu '%.*s': weight %g is not in [0, 1]", li, n, clip.name().c_str(),
               static_cast<double>(l.weight));
  }
  if (l.weight_parameter != -1 && !is_float_parameter(g, l.weight_parameter)) {
    return bad("layer %zu '%.*s': weight parameter %d is not a float parameter", li, n,
               clip.name().c_str(), l.weight_parameter);
  }
  const int joints = rig.skeleton().joint_count();
  if (!l.mask.empty() && l.mask.size() != static_cast<size_t>(joints)) {
    return bad("layer %zu '%.*s': mask of %zu weights for %d joints", li, n, clip.name().c_str(),
               l.mask.size(), joints);
  }
  for (size_t j = 0; j < l.mask.size(); ++j) {
    if (!in_range(l.mask[j], 0.0, 1.0)) {
      return bad("layer %zu '%.*s': mask weight of joint %zu is not in [0, 1]", li, n,
                 clip.name().c_str(), j);
    }
  }
  if (!in_range(l.speed, 0.0, kMaxSpeed)) {
    return bad("layer %zu '%.*s': speed %g is not in [0, %g]", li, n, clip.name().c_str(),
               static_cast<double>(l.speed), static_cast<double>(kMaxSpeed));
  }
  if (!valid_playback(l.playback)) {
    return bad("layer %zu '%.*s': playback %u is unknown", li, n, clip.name().c_str(),
               static_cast<unsigned>(l.playback));
  }
  return ok();
}

// What a parameter drives, as bits (StateMachine's range checks).
constexpr uint8_t kDrivesSpeed = 1;
constexpr uint8_t kDrivesWeight = 2;

// The uses of each float parameter: speeds and layer weights.
void parameter_uses(const GraphDef& g, std::vector<uint8_t>& out) {
  out.assign(g.parameters.size(), 0);
  for (const StateDef& s : g.states) {
    if (s.speed_parameter >= 0) out[static_cast<size_t>(s.speed_parameter)] |= kDrivesSpeed;
  }
  for (const LayerDef& l : g.layers) {
    if (l.weight_parameter >= 0) out[static_cast<size_t>(l.weight_parameter)] |= kDrivesWeight;
  }
}

}  // namespace

const char* parameter_kind_name(ParameterKind kind) {
  switch (kind) {
    case ParameterKind::kFloat:
      return "float";
    case ParameterKind::kBool:
      return "bool";
    case ParameterKind::kTrigger:
      return "trigger";
  }
  return "unknown";
}

const char* condition_kind_name(ConditionKind kind) {
  switch (kind) {
    case ConditionKind::kAbove:
      return "above";
    case ConditionKind::kBelow:
      return "below";
    case ConditionKind::kIs:
      return "is";
    case ConditionKind::kTrigger:
      return "trigger";
    case ConditionKind::kExitTime:
      return "exit_time";
  }
  return "unknown";
}

Result<void> GraphDef::validate(const Rig& rig) const {
  if (parameters.size() > static_cast<size_t>(kMaxGraphParameters)) {
    return bad("%zu parameters (at most %d)", parameters.size(), kMaxGraphParameters);
  }
  if (states.size() > static_cast<size_t>(kMaxGraphStates)) {
    return bad("%zu states (at most %d)", states.size(), kMaxGraphStates);
  }
  if (transitions.size() > static_cast<size_t>(kMaxGraphTransitions)) {
    return bad("%zu transitions (at most %d)", transitions.size(), kMaxGraphTransitions);
  }
  if (layers.size() > static_cast<size_t>(kMaxGraphLayers)) {
    return bad("%zu layers (at most %d)", layers.size(), kMaxGraphLayers);
  }
  const int n = kNameChars;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const ParameterDef& p = parameters[i];
    const char* name = p.name.c_str();
    if (p.name.empty()) return bad("parameter %zu has no name", i);
    for (size_t k = 0; k < i; ++k) {
      if (parameters[k].name == p.name) {
        return bad("parameters %zu and %zu are both '%.*s'", k, i, n, name);
      }
    }
    const double d = p.default_value;
    switch (p.kind) {
      case ParameterKind::kFloat:
        if (!(finite(p.min) && finite(p.max) && p.min <= p.max)) {
          return bad("parameter %zu '%.*s': range [%g, %g] is not finite with min <= max", i, n,
                     name, static_cast<double>(p.min), static_cast<double>(p.max));
        }
        if (!in_range(d, p.min, p.max)) {
          return bad("parameter %zu '%.*s': default %g is not in [%g, %g]", i, n, name, d,
                     static_cast<double>(p.min), static_cast<double>(p.max));
        }
        break;
      case ParameterKind::kBool:
        if (d != 0.0 && d != 1.0) {
          return bad("parameter %zu '%.*s': bool default %g (0 or 1)", i, n, name, d);
        }
        break;
      case ParameterKind::kTrigger:
        if (d != 0.0) return bad("parameter %zu '%.*s': trigger default %g (0)", i, n, name, d);
        break;
      default:
        return bad("parameter %zu '%.*s': kind %u is unknown", i, n, name,
                   static_cast<unsigned>(p.kind));
    }
  }
  for (size_t i = 0; i < states.size(); ++i) {
    if (Result<void> r = check_state(*this, rig, i); !r) return r;
  }
  for (size_t i = 0; i < transitions.size(); ++i) {
    if (Result<void> r = check_transition(*this, i); !r) return r;
  }
  for (size_t i = 0; i < layers.size(); ++i) {
    if (Result<void> r = check_layer(*this, rig, i); !r) return r;
  }
  // A float driving a speed or a layer weight starts within that use's range.
  std::vector<uint8_t> uses;
  parameter_uses(*this, uses);
  for (size_t i = 0; i < parameters.size(); ++i) {
    const double d = parameters[i].default_value;
    const char* name = parameters[i].name.c_str();
    if ((uses[i] & kDrivesSpeed) != 0 && !in_range(d, 0.0, kMaxSpeed)) {
      return bad("parameter %zu '%.*s' drives a speed: default %g is not in [0, %g]", i, n, name, d,
                 static_cast<double>(kMaxSpeed));
    }
    if ((uses[i] & kDrivesWeight) != 0 && !in_range(d, 0.0, 1.0)) {
      return bad("parameter %zu '%.*s' drives a layer weight: default %g is not in [0, 1]", i, n,
                 name, d);
    }
  }
  return ok();
}

int GraphDef::find_parameter(std::string_view name) const {
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int GraphDef::find_state(std::string_view name) const {
  for (size_t i = 0; i < states.size(); ++i) {
    if (states[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

void blend_weights_1d(std::span<const BlendPoint> points, float x, std::span<float> out) {
  for (float& w : out) w = 0.0f;
  if (points.empty() || out.size() != points.size()) return;
  // The nearest point at or below x and the nearest above (first of equals).
  int lo = -1;
  int hi = -1;
  for (size_t i = 0; i < points.size(); ++i) {
    const float p = points[i].x;
    if (p == x) {
      out[i] = 1.0f;
      return;
    }
    if (p < x && (lo < 0 || p > points[static_cast<size_t>(lo)].x)) lo = static_cast<int>(i);
    if (p > x && (hi < 0 || p < points[static_cast<size_t>(hi)].x)) hi = static_cast<int>(i);
  }
  if (lo < 0 && hi < 0) {  // x is NaN
    out[0] = 1.0f;
  } else if (lo < 0) {
    out[static_cast<size_t>(hi)] = 1.0f;
  } else if (hi < 0) {
    out[static_cast<size_t>(lo)] = 1.0f;
  } else {
    const double a = points[static_cast<size_t>(lo)].x;
    const double b = points[static_cast<size_t>(hi)].x;
    const double t = (static_cast<double>(x) - a) / (b - a);  // in (0, 1)
    out[static_cast<size_t>(hi)] = static_cast<float>(t);
    out[static_cast<size_t>(lo)] = static_cast<float>(1.0 - t);
  }
}

namespace {

// Point i's raw gradient band weight at (px, py) (graph.h), in double.
double band_weight(std::span<const BlendPoint> points, size_t i, double px, double py) {
  const double ix = points[i].x;
  const double iy = points[i].y;
  const double vx = px - ix;
  const double vy = py - iy;
  double w = 1.0;
  for (size_t j = 0; j < points.size(); ++j) {
    if (j == i) continue;
    const double ex = static_cast<double>(points[j].x) - ix;
    const double ey = static_cast<double>(points[j].y) - iy;
    const double len2 = ex * ex + ey * ey;
    if (!(len2 > 0.0)) continue;  // a coincident point (validate refuses them)
    const double band = clamp01(1.0 - (vx * ex + vy * ey) / len2);
    if (band < w) w = band;
  }
  return w;
}

}  // namespace

void blend_weights_2d(std::span<const BlendPoint> points, float x, float y, std::span<float> out) {
  for (float& w : out) w = 0.0f;
  if (points.empty() || out.size() != points.size()) return;
  const double px = x;
  const double py = y;
  const size_t count = points.size();
  double sum = 0.0;
  for (size_t i = 0; i < count; ++i) sum += band_weight(points, i, px, py);
  if (sum > 0.0 && finite(sum)) {
    for (size_t i = 0; i < count; ++i) {
      out[i] = static_cast<float>(band_weight(points, i, px, py) / sum);
    }
    return;
  }
  // Degenerate (a NaN query): the nearest point by squared distance, first of equals.
  size_t best = 0;
  double best_d2 = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const double dx = px - static_cast<double>(points[i].x);
    const double dy = py - static_cast<double>(points[i].y);
    const double d2 = dx * dx + dy * dy;
    if (i == 0 || d2 < best_d2) {
      best = i;
      best_d2 = d2;
    }
  }
  out[best] = 1.0f;
}

Result<StateMachine> StateMachine::create(const GraphDef* graph, Animator* animator, int64_t tick) {
  if (graph == nullptr || animator == nullptr || animator->rig() == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "a state machine needs a graph and an animator");
  }
  if (Result<void> r = graph->validate(*animator->rig()); !r) return r.error();
  StateMachine m;
  m.graph_ = graph;
  m.animator_ = animator;
  const size_t params = graph->parameters.size();
  m.values_.resize(params);
  m.lo_.resize(params);
  m.hi_.resize(params);
  parameter_uses(*graph, m.uses_);
  for (size_t i = 0; i < params; ++i) {
    const ParameterDef& p = graph->parameters[i];
    m.values_[i] = p.default_value;
    float lo = p.min;
    float hi = p.max;
    if ((m.uses_[i] & kDrivesSpeed) != 0) {
      lo = lo > 0.0f ? lo : 0.0f;
      hi = hi < kMaxSpeed ? hi : kMaxSpeed;
    }
    if ((m.uses_[i] & kDrivesWeight) != 0) {
      lo = lo > 0.0f ? lo : 0.0f;
      hi = hi < 1.0f ? hi : 1.0f;
    }
    m.lo_[i] = lo;
    m.hi_[i] = hi;
  }
  m.weights_.assign(static_cast<size_t>(kMaxBlendPoints), 0.0f);
  m.overlays_.assign(graph->layers.size(), LayerId{});
  m.layer_weights_.assign(graph->layers.size(), 0.0f);
  if (!graph->states.empty()) {
    if (Result<void> r = m.start_state(0, -1.0, tick); !r) return r.error();
  }
  for (size_t i = 0; i < graph->layers.size(); ++i) {
    const LayerDef& l = graph->layers[i];
    const float w = m.layer_weight(i);
    LayerOptions options;
    options.weight = w;
    options.mask = l.mask;
    options.mode = l.mode;
    PlayOptions play;
    play.speed = l.speed;
    play.playback = l.playback;
    Result<LayerId> id = animator->add_overlay(l.clip, options, tick, play);
    if (!id) {
      for (size_t k = 0; k < i; ++k) (void)animator->remove_overlay(m.overlays_[k]);
      return id.error();
    }
    m.overlays_[i] = *id;
    m.layer_weights_[i] = w;
  }
  return m;
}

float StateMachine::layer_weight(size_t layer) const {
  const LayerDef& l = graph_->layers[layer];
  return l.weight_parameter >= 0 ? values_[static_cast<size_t>(l.weight_parameter)] : l.weight;
}

float StateMachine::state_speed(const StateDef& s) const {
  return s.speed_parameter >= 0 ? values_[static_cast<size_t>(s.speed_parameter)] : s.speed;
}

void StateMachine::compute_weights(const StateDef& s, std::span<float> out) const {
  const float x = values_[static_cast<size_t>(s.x_parameter)];
  if (s.y_parameter < 0) {
    blend_weights_1d(s.points, x, out);
  } else {
    blend_weights_2d(s.points, x, values_[static_cast<size_t>(s.y_parameter)], out);
  }
}

Result<void> StateMachine::start_state(int state, double fade, int64_t tick) {
  const StateDef& s = graph_->states[static_cast<size_t>(state)];
  PlayOptions options;
  options.speed = state_speed(s);
  options.start = s.start;
  options.playback = s.playback;
  const double seconds = fade < 0.0 ? 0.0 : fade;
  Result<LayerId> id = Error(ErrorCode::kInvalidArgument);
  float weights[kMaxBlendPoints] = {};
  const size_t count = s.points.size();
  if (s.clip >= 0) {
    const auto clip = static_cast<uint16_t>(s.clip);
    id = fade < 0.0 ? animator_->play(clip, tick, options)
                    : animator_->crossfade(clip, seconds, tick, options);
  } else {
    compute_weights(s, std::span<float>(weights, count));
    BlendEntry entries[kMaxBlendPoints];
    for (size_t i = 0; i < count; ++i) entries[i] = {s.points[i].clip, weights[i]};
    id = animator_->crossfade_synced(std::span<const BlendEntry>(entries, count), seconds, tick,
                                     options);
  }
  if (!id) return id.error();
  state_ = state;
  state_layer_ = *id;
  for (size_t i = 0; i < count; ++i) weights_[i] = weights[i];
  weight_count_ = count;
  applied_speed_ = options.speed;
  fade_end_ = add_ticks(tick, fade_ticks(seconds, animator_->tick_rate()));
  return ok();
}

Result<int> StateMachine::find(std::string_view name, ParameterKind kind) const {
  const int i = graph_ == nullptr ? -1 : graph_->find_parameter(name);
  const int n = kNameChars;
  if (i < 0) {
    return Error::make(ErrorCode::kUnknownParameter, "no parameter '%.*s' in this state machine",
                       name_chars(name), name.data());
  }
  const ParameterDef& p = graph_->parameters[static_cast<size_t>(i)];
  if (p.kind != kind) {
    return Error::make(ErrorCode::kWrongParameterKind, "parameter '%.*s' is a %s, not a %s", n,
                       p.name.c_str(), parameter_kind_name(p.kind), parameter_kind_name(kind));
  }
  return i;
}

Result<void> StateMachine::set_float(std::string_view name, float value) {
  Result<int> i = find(name, ParameterKind::kFloat);
  if (!i) return i.error();
  const auto k = static_cast<size_t>(*i);
  if (!in_range(value, lo_[k], hi_[k])) {
    const ParameterDef& p = graph_->parameters[k];
    const char* use = (uses_[k] & kDrivesWeight) != 0  ? " (it drives a layer weight)"
                      : (uses_[k] & kDrivesSpeed) != 0 ? " (it drives a speed)"
                                                       : "";
    return Error::make(ErrorCode::kBadParameterValue, "parameter '%.*s': %g is not in [%g, %g]%s",
                       kNameChars, p.name.c_str(), static_cast<double>(value),
                       static_cast<double>(lo_[k]), static_cast<double>(hi_[k]), use);
  }
  values_[k] = value;
  return ok();
}

Result<void> StateMachine::set_bool(std::string_view name, bool value) {
  Result<int> i = find(name, ParameterKind::kBool);
  if (!i) return i.error();
  values_[static_cast<size_t>(*i)] = value ? 1.0f : 0.0f;
  return ok();
}

Result<void> StateMachine::fire_trigger(std::string_view name) {
  Result<int> i = find(name, ParameterKind::kTrigger);
  if (!i) return i.error();
  values_[static_cast<size_t>(*i)] = 1.0f;
  return ok();
}

Result<void> StateMachine::reset_trigger(std::string_view name) {
  Result<int> i = find(name, ParameterKind::kTrigger);
  if (!i) return i.error();
  values_[static_cast<size_t>(*i)] = 0.0f;
  return ok();
}

Result<float> StateMachine::value(std::string_view name) const {
  const int i = graph_ == nullptr ? -1 : graph_->find_parameter(name);
  if (i < 0) {
    return Error::make(ErrorCode::kUnknownParameter, "no parameter '%.*s' in this state machine",
                       name_chars(name), name.data());
  }
  return values_[static_cast<size_t>(i)];
}

bool StateMachine::holds(const ConditionDef& c) const {
  const float v = c.parameter >= 0 ? values_[static_cast<size_t>(c.parameter)] : 0.0f;
  switch (c.kind) {
    case ConditionKind::kAbove:
      return v > c.value;
    case ConditionKind::kBelow:
      return v < c.value;
    case ConditionKind::kIs:
      return (v != 0.0f) == (c.value != 0.0f);
    case ConditionKind::kTrigger:
      return v != 0.0f;
    case ConditionKind::kExitTime:
      return false;  // needs the tick: see update()
  }
  return false;
}

void StateMachine::update(int64_t tick) {
  if (graph_ == nullptr) return;
  bool started = false;
  // At most one transition per tick (also when update() runs twice for one tick), none
  // while a fade is in progress.
  if (state_ >= 0 && !fading(tick) && !(fired_once_ && tick == fired_tick_)) {
    for (const TransitionDef& t : graph_->transitions) {
      if (t.from >= 0 ? t.from != state_ : t.to == state_) continue;
      bool all = true;
      for (const ConditionDef& c : t.conditions) {
        if (c.kind == ConditionKind::kExitTime) {
          Result<double> passes = animator_->passes(state_layer_, tick);
          all = passes && *passes >= static_cast<double>(c.value);
        } else {
          all = holds(c);
        }
        if (!all) break;
      }
      if (!all) continue;
      // A validated graph's states always start; if the animator refuses (it was driven
      // by someone else), the transition does not fire.
      if (!start_state(t.to, t.fade, tick)) break;
      for (const ConditionDef& c : t.conditions) {
        if (c.kind == ConditionKind::kTrigger) values_[static_cast<size_t>(c.parameter)] = 0.0f;
      }
      ++fired_;
      fired_once_ = true;
      fired_tick_ = tick;
      started = true;
      break;
    }
  }
  // Parameter changes since the last update, for the current state (the older mixes
  // fading out keep what they had when their fade started) and the layers.
  if (state_ >= 0 && !started) {
    const StateDef& s = graph_->states[static_cast<size_t>(state_)];
    if (s.clip < 0) {
      float weights[kMaxBlendPoints];
      const std::span<float> now(weights, weight_count_);
      compute_weights(s, now);
      bool changed = false;
      for (size_t i = 0; i < weight_count_; ++i) changed = changed || weights[i] != weights_[i];
      if (changed && animator_->set_blend_weights(state_layer_, now, tick)) {
        for (size_t i = 0; i < weight_count_; ++i) weights_[i] = weights[i];
      }
    }
    const float speed = state_speed(s);
    if (speed != applied_speed_ && animator_->set_speed(state_layer_, speed, tick)) {
      applied_speed_ = speed;
    }
  }
  for (size_t i = 0; i < overlays_.size(); ++i) {
    const float w = layer_weight(i);
    if (w != layer_weights_[i] && animator_->set_weight(overlays_[i], w)) layer_weights_[i] = w;
  }
}

Result<void> StateMachine::play_state(std::string_view state, double seconds, int64_t tick) {
  const int s = graph_ == nullptr ? -1 : graph_->find_state(state);
  if (s < 0) {
    return Error::make(ErrorCode::kUnknownState, "no state '%.*s' in this state machine",
                       name_chars(state), state.data());
  }
  if (!in_range(seconds, 0.0, kMaxFadeSeconds)) {
    return Error::make(ErrorCode::kInvalidArgument, "fade of %g seconds is not in [0, %g]", seconds,
                       kMaxFadeSeconds);
  }
  if (Result<void> r = start_state(s, seconds, tick); !r) return r;
  fired_once_ = true;
  fired_tick_ = tick;
  return ok();
}

std::string_view StateMachine::state_name() const {
  if (graph_ == nullptr || state_ < 0) return {};
  return graph_->states[static_cast<size_t>(state_)].name;
}

bool StateMachine::fading(int64_t tick) const { return state_ >= 0 && tick < fade_end_; }

std::span<const float> StateMachine::blend_weights() const {
  return {weights_.data(), weight_count_};
}

}  // namespace animpack
