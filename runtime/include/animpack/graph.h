// State machines: parameters, states that play a clip or a 1D/2D blend space, transitions
// with conditions and fades, and layers (masked overrides, additive) over them, driving
// one Animator. Deterministic by tick and allocation-free after create().
//
//   animpack::GraphDef graph = ...;            // from a pack (ObjectAnimationInfo::graph)
//   auto animator = animpack::Animator::create(&rig, 60, {.events = animpack::EventPolicy::kLead});
//   auto machine = animpack::StateMachine::create(&graph, &*animator, /*tick=*/0);
//   for (int64_t tick = 0; tick < 600; ++tick) {
//     (void)machine->set_float("speed", gait_speed(tick));
//     if (jumped(tick)) (void)machine->fire_trigger("jump");
//     machine->update(tick);                   // at most one transition, then weights
//     for (const animpack::AnimEvent& e : animator->advance(tick)) handle(e);
//     animator->evaluate(tick);
//   }
//
// The rules (docs/runtime.md, "State machines"):
// - Parameters are floats (a default and an optional [min, max] range), bools and
//   triggers. A trigger, once fired, stays set until a transition that fires on it
//   consumes it (or reset_trigger()); a transition that does not fire leaves it set.
// - The machine starts in states[0] at the tick given to create(). A state plays its
//   clip, or its blend space as a synced mix (Animator::crossfade_synced) weighted by
//   blend_weights_1d/2d at its parameters, at its speed (or its speed parameter's value)
//   with its playback and start.
// - update(tick) evaluates the transitions in written order against the parameters and
//   the current state's passes at that tick; the first whose conditions all hold fires
//   (at most one per tick, also when update() or play_state() ran already at that
//   tick): the target state is crossfaded in over round(fade * rate) ticks from that
//   tick, and the triggers its conditions name are consumed. A transition from any state
//   (from = -1) never fires into the current state; one from a state to itself does
//   (it restarts the state). kAbove and kBelow are strict; kExitTime compares
//   Animator::passes() of the current state's first layer (if something else removed
//   that layer from the animator, exit time never holds).
// - No interruption: while a fade is in progress (its target not yet fully in), no
//   transition fires; conditions are evaluated again from the tick the fade completes, so
//   a trigger fired during a fade fires its transition then (it stays set).
// - Parameter changes reach the animator in update(tick), from that tick: the current
//   state's blend weights and speed, and the layers' weights. The older mixes fading out
//   keep the weights and speed they had when the fade into the current state started.
// - Layers are overlays (Animator::add_overlay) started at create()'s tick on their own
//   clocks, in written order, over whatever the states play.
// - Events follow the animator's EventPolicy; create it with kLead (as ScenePlayer does)
//   so that only the state fading in fires, a blend space fires its heaviest clip's
//   marks only, and overlays fire while their weight is above 0.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/animator.h"
#include "animpack/clip.h"
#include "animpack/result.h"
#include "animpack/rig.h"

namespace animpack {

// Bounds of one state machine (the cooker uses the same; docs/scene-format.md, "Limits").
inline constexpr int kMaxGraphParameters = 64;
inline constexpr int kMaxGraphStates = 256;
inline constexpr int kMaxGraphTransitions = 1024;
inline constexpr int kMaxTransitionConditions = 8;
inline constexpr int kMaxGraphLayers = kMaxOverlays;

enum class ParameterKind : uint8_t { kFloat = 0, kBool = 1, kTrigger = 2 };
const char* parameter_kind_name(ParameterKind kind);  // "float", "bool", "trigger"

struct ParameterDef {
  std::string name;
  ParameterKind kind = ParameterKind::kFloat;
  float default_value = 0.0f;  // float: within [min, max]; bool: 0 or 1; trigger: 0
  float min = -std::numeric_limits<float>::max();  // float only; min <= max
  float max = std::numeric_limits<float>::max();
};

// One point of a blend space: a clip at (x, y) of its parameters (y unused in 1D).
struct BlendPoint {
  uint16_t clip = 0;
  float x = 0.0f;
  float y = 0.0f;
};

struct StateDef {
  std::string name;
  int32_t clip = -1;               // the clip it plays, or -1: a blend space
  std::vector<BlendPoint> points;  // a blend space's points: 2 to kMaxBlendPoints, distinct
  int32_t x_parameter = -1;        // a blend space's float parameter on x
  int32_t y_parameter = -1;        // a 2D blend space's float parameter on y; -1: 1D
  float speed = 1.0f;              // in [0, kMaxSpeed]
  int32_t speed_parameter = -1;    // a float parameter whose value is the speed, or -1
  Playback playback = Playback::kLoop;
  double start = 0.0;  // seconds into the clip (a blend space: of its clock), [0, kMaxStartSeconds]
};

enum class ConditionKind : uint8_t {
  kAbove = 0,     // float parameter > value
  kBelow = 1,     // float parameter < value
  kIs = 2,        // bool parameter == (value != 0)
  kTrigger = 3,   // trigger parameter is set (consumed when the transition fires)
  kExitTime = 4,  // the from-state has played at least `value` passes (0.9: 90% of its
                  // first; 2: two whole passes); Animator::passes()
};
// "above", "below", "is", "trigger", "exit_time".
const char* condition_kind_name(ConditionKind kind);

struct ConditionDef {
  ConditionKind kind = ConditionKind::kAbove;
  int32_t parameter = -1;  // -1 for kExitTime
  float value = 0.0f;
};

struct TransitionDef {
  int32_t from = -1;  // a state, or -1: any state
  int32_t to = 0;
  std::vector<ConditionDef> conditions;  // all must hold; at most kMaxTransitionConditions
  double fade = 0.0;                     // seconds in [0, kMaxFadeSeconds]
};

struct LayerDef {
  uint16_t clip = 0;  // an ordinary clip (override) or an additive one (additive)
  LayerMode mode = LayerMode::kOverride;
  float weight = 1.0f;            // in [0, 1]
  int32_t weight_parameter = -1;  // a float parameter whose value is the weight, or -1
  std::vector<float> mask;        // one weight per joint, or empty: every joint
  float speed = 1.0f;
  Playback playback = Playback::kLoop;
};

struct GraphDef {
  std::vector<ParameterDef> parameters;
  std::vector<StateDef> states;  // states[0] is where the machine starts; may be empty
  std::vector<TransitionDef> transitions;
  std::vector<LayerDef> layers;

  // Checks every index, kind and range against `rig` and the limits above: parameter
  // names unique and not empty, kinds known, float ranges finite with min <= max,
  // defaults in range (a bool's 0 or 1, a trigger's 0); state names unique and not
  // empty, a clip (and then no points or blend parameters) or 2 to kMaxBlendPoints
  // points, finite and distinct (1D: no equal x; 2D: no equal (x, y)), with x (and for
  // 2D y) float parameters, clips in range and ordinary; conditions of known kinds on
  // parameters of the right kind (kExitTime: none, value finite and >= 0; kAbove and
  // kBelow: a finite threshold; kIs: value 0 or 1); fades, speeds, starts and playbacks
  // in range; speed parameters floats whose default is in [0, kMaxSpeed]; layer clips of
  // the layer's mode, weights in [0, 1], weight parameters floats whose default is in
  // [0, 1], masks of joint_count() weights in [0, 1]. kBadGraph naming what fails (the
  // state, transition or layer by index and name).
  [[nodiscard]] Result<void> validate(const Rig& rig) const;
  // The index of a parameter or state by name, or -1.
  int find_parameter(std::string_view name) const;
  int find_state(std::string_view name) const;
};

// Blend space weights, one per point into `out` (out.size() == points.size(); otherwise
// `out` is all 0), summing to 1; deterministic (+, -, *, / and comparisons only).
// 1D: points sorted by x or not; between the two points around x their clips blend
// linearly; below the lowest or above the highest that point alone; at a point exactly
// that point alone (weight 1, others 0; the first of coincident points). A NaN x gives
// the first point alone.
void blend_weights_1d(std::span<const BlendPoint> points, float x, std::span<float> out);
// 2D, freeform gradient bands: point i's raw weight is the smallest over j != i of
// clamp(1 - dot(p - p_i, p_j - p_i) / |p_j - p_i|^2, 0, 1), then weights are normalised.
// At a point exactly that point alone; continuous in (x, y). Computed in double (no
// overflow for any float input). The nearest point's raw weight is always at least 1/2
// (the query lies on its side of every bisector), so the sum is at least 1/2; should it
// still not be positive and finite (a NaN query), the nearest point by squared distance
// (the first of equals; the first point for NaN) gets weight 1. Coincident points (which
// validate refuses) do not bound each other.
void blend_weights_2d(std::span<const BlendPoint> points, float x, float y, std::span<float> out);

class StateMachine {
 public:
  StateMachine() = default;
  StateMachine(StateMachine&&) = default;
  StateMachine& operator=(StateMachine&&) = default;

  // A machine for `graph` driving `animator` (both outlive it; the animator's rig is the
  // one the graph indexes). Validates the graph (kBadGraph), allocates everything, and at
  // `tick` starts states[0] (if any) and the layers.
  static Result<StateMachine> create(const GraphDef* graph, Animator* animator, int64_t tick);

  // Parameters, by name (kUnknownParameter; kWrongParameterKind for the wrong kind;
  // kBadParameterValue for a float that is not finite, outside its range, outside
  // [0, kMaxSpeed] where it drives a speed or outside [0, 1] where it drives a layer
  // weight). Values take effect in the next update() (at its tick). Nothing changes on
  // an error.
  Result<void> set_float(std::string_view name, float value);
  Result<void> set_bool(std::string_view name, bool value);
  Result<void> fire_trigger(std::string_view name);
  Result<void> reset_trigger(std::string_view name);
  // A parameter's value: a float's value, a bool's 0 or 1, a trigger's 1 while set.
  Result<float> value(std::string_view name) const;

  // Runs tick `tick`: at most one transition (see the rules), then parameter changes.
  // Call it once per tick, before the animator's advance(tick). A state started by a
  // transition starts with the parameters' current values.
  void update(int64_t tick);

  // Goes to `state` at `tick`, fading over `seconds` (as a transition; kUnknownState,
  // kInvalidArgument for a fade out of range). Allowed during a fade: it replaces it.
  // No transition fires at the same tick after it; transitions_fired() does not count it.
  Result<void> play_state(std::string_view state, double seconds, int64_t tick);

  // The current state (the one playing or fading in), its name, and whether a fade into
  // it is still in progress at `tick`.
  int state() const { return state_; }
  std::string_view state_name() const;
  bool fading(int64_t tick) const;
  // The current state's first layer in the animator (a synced mix's layers follow it as
  // consecutive ids, one per point); for clip_time(), passes() and tools.
  LayerId state_layer() const { return state_layer_; }
  // The layer of graph layer `layer` (an overlay; LayerId{} when out of range).
  LayerId overlay(size_t layer) const {
    return layer < overlays_.size() ? overlays_[layer] : LayerId{};
  }
  // The current state's blend weights (one per point; empty for a clip state).
  std::span<const float> blend_weights() const;
  // Transitions fired since create() (a counter for tests and tools).
  uint64_t transitions_fired() const { return fired_; }
  const GraphDef& graph() const { return *graph_; }

 private:
  const GraphDef* graph_ = nullptr;
  Animator* animator_ = nullptr;
  int state_ = -1;
  uint64_t fired_ = 0;
  // Starts `state` at `tick`: fade < 0 is create()'s start (play / an instant synced
  // mix), else a crossfade over `fade` seconds.
  Result<void> start_state(int state, double fade, int64_t tick);
  Result<int> find(std::string_view name, ParameterKind kind) const;
  bool holds(const ConditionDef& condition) const;  // any kind but kExitTime
  float layer_weight(size_t layer) const;
  float state_speed(const StateDef& state) const;
  void compute_weights(const StateDef& state, std::span<float> out) const;

  // Everything is sized at create().
  std::vector<float> values_;   // one per parameter
  std::vector<float> lo_, hi_;  // one per parameter: what set_float accepts
  std::vector<uint8_t> uses_;   // one per parameter: drives a speed (1), a layer weight (2)
  std::vector<float> weights_;  // kMaxBlendPoints: blend weights of the current state
  size_t weight_count_ = 0;     // the current state's points (0: a clip state)
  float applied_speed_ = 1.0f;  // the current state's speed as the animator has it
  LayerId state_layer_;         // the current state's (first) layer
  int64_t fade_end_ = 0;        // the tick the fade into the current state completes
  bool fired_once_ = false;     // a transition or play_state() has run, at fired_tick_
  int64_t fired_tick_ = 0;
  std::vector<LayerId> overlays_;     // one per graph layer
  std::vector<float> layer_weights_;  // one per graph layer, as the animator has it
};

}  // namespace animpack
