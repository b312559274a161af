// The Animator plays a rig's clips by integer tick: mixes, blend layers, crossfades
// and events, deterministic and allocation-free after create().
//
//   auto animator = animpack::Animator::create(&rig, /*tick_rate=*/60);
//   animator->play_blend({{{walk, 0.7f}, {run, 0.3f}}}, /*tick=*/0);
//   for (int64_t tick = 0; tick < 600; ++tick) {
//     if (tick == 120) (void)animator->crossfade(jump, 0.25, tick);   // 15 ticks of fade
//     for (const animpack::AnimEvent& e : animator->advance(tick)) handle(e);
//     animator->evaluate(tick);
//     upload(animator->palette());
//   }
//
// Model:
// - A mix is a stack of layers. Layer 0 is sampled over the rest pose; each later layer
//   mixes over the layers before it by its weight, only on the joints and properties its
//   clip animates. play() starts one mix with one layer; blend() adds a layer to the
//   newest mix; play_blend() starts a mix whose weights are shared out by their sum.
// - crossfade() starts a new mix that fades in over round(seconds * rate) ticks while the
//   older mixes keep playing underneath; at most kMaxMixes mixes play (a fifth drops
//   the oldest). Once a mix is fully faded in, the mixes under it are retired.
// - A layer's clip time is offset + (tick - base) * speed / rate, in double, then mapped
//   by its playback: a loop wraps at the duration, once holds the last pose, ping-pong
//   runs to the end and back. set_speed rebases offset and base so time never jumps.
// - Layer and mix blending lerps translation and scale and nlerps rotation (the shorter
//   way); sampling inside a clip slerps as glTF asks.
// - evaluate(tick, fraction) poses tick + fraction (fraction in [0, 1)) for a frame
//   rendered between ticks: the same clocks and fades run on by the fraction; it advances
//   nothing (docs/runtime.md "Sub-tick poses").
// - advance(tick) returns every event whose mark play passed since the previous call, in
//   order of mix, layer, then time. Loops fire each pass, ping-pong each pass in either
//   direction, once only once; a layer started at `start` skips earlier marks but fires
//   a mark exactly at start; skipped ticks deliver each crossing, at most kMaxRepeats
//   passes per mark. A mark at an exact decimal time on a tick fires on that tick (its
//   f32 is timed as the tick time it rounds from; docs/runtime.md "Event timing"); at a
//   loop seam the end mark comes before the next pass's mark at 0.
// - Masks and additive layers (LayerOptions): a layer may carry a joint mask (layers.h),
//   its weight on joint j then being weight * mask[j] (0: the joint is left exactly as
//   below; 1: set), and may be additive: it plays an additive clip (layers.h) whose deltas
//   it adds over what is below, scaled by weight * mask[j]: translation and scale as
//   below + w * delta, rotation as below * nlerp(identity, delta, w) (the delta turned in
//   the joint's own frame; w = 1 composes the delta exactly, w = 0 changes nothing).
//   Additive clips play only in additive layers, ordinary clips only in override layers
//   (kBadClip), so play(), crossfade(), blend(), play_blend() and synced mixes take
//   ordinary clips only.
// - Overlays (add_overlay) are layers over the whole result of the mixes, in the order
//   added, each on its own clock; play(), crossfade(), play_blend() and stop_mixes() keep
//   them, stop() and remove_overlay() end them. Their events carry mix = kOverlayMix.
// - Synced mixes (crossfade_synced, set_blend_weights): the layers of a blend space. They
//   share one normalised phase: with weights w_i (shares s_i = w_i / sum w) of clips of
//   duration d_i the mix plays a cycle of D = sum s_i * d_i seconds, its clock s = offset
//   + (tick - base) * speed / rate, and layer i shows clip time s * (d_i / D) mapped by the
//   playback: every layer is at the same fraction s / D of its clip, so feet do not
//   slide. Layers of weight 0 are skipped; the first layer of non-zero weight is set over
//   the rest pose and each later one mixed in by w_i / (w_first + ... + w_i), so a mix
//   whose weight is all on one clip poses exactly that clip played alone. A weight change
//   at tick T rescales the clock so the phase never jumps (offset s(T) * D' / D, base T).
//   set_speed, set_start and set_playback on any of its layers apply to its clock (all
//   its layers); set_weight refuses them (kInvalidArgument). add_layer() adds plain
//   layers over them, up to kMaxBlendPoints layers in all.
// - Event policy (AnimatorOptions::events): kEveryLayer delivers every layer's marks (as
//   above; a synced layer of weight 0 has none); kLead, for state machines, delivers only
//   the newest mix's (the one fading in) and, in it, only the marks of its heaviest layer
//   (the largest share of the mix's result: weight times 1 - weight of every later
//   override layer, a play_blend or synced layer's weight being its weight over their
//   sum; the first of equals), plus the marks of overlays whose weight is above 0: a fade
//   or a blend space never doubles a footstep.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "animpack/clip.h"
#include "animpack/limits.h"
#include "animpack/math.h"
#include "animpack/result.h"
#include "animpack/rig.h"
#include "animpack/root_motion.h"

namespace animpack {

inline constexpr int kMaxMixes = 4;
inline constexpr int kMaxLayers = 4;
inline constexpr int kMaxRepeats = 64;
// The most clips of one synced mix (a blend space's points).
inline constexpr int kMaxBlendPoints = 16;
// The most overlays at once.
inline constexpr int kMaxOverlays = 8;
// Layer slots an Animator allocates at create(): each holds one key cursor per channel
// of the rig's largest clip and one mask weight per joint.
inline constexpr int kLayerSlots = kMaxMixes * kMaxBlendPoints + kMaxOverlays;

// How a layer plays. speed in [0, kMaxSpeed] (clip seconds per second), start in
// [0, kMaxStartSeconds] (seconds into the clip at the start tick); see limits.h.
struct PlayOptions {
  float speed = 1.0f;
  double start = 0.0;
  Playback playback = Playback::kLoop;
};

// One clip and its weight for play_blend(). Weights are positive; only ratios matter.
struct BlendEntry {
  uint16_t clip = 0;
  float weight = 1.0f;
};

// How a layer applies over what is below it.
enum class LayerMode : uint8_t {
  kOverride = 0,  // mixes its clip's values in by weight (times mask)
  kAdditive = 1,  // adds its additive clip's deltas, scaled by weight (times mask)
};

// A layer's weight, mask and mode for add_layer() and add_overlay().
struct LayerOptions {
  float weight = 1.0f;          // in [0, 1]
  std::span<const float> mask;  // one weight in [0, 1] per joint, or empty: 1 everywhere.
                                // Copied: it need not outlive the call.
  LayerMode mode = LayerMode::kOverride;
};

// Which marks advance() delivers; see the header comment.
enum class EventPolicy : uint8_t { kEveryLayer = 0, kLead = 1 };

// Names a layer across ticks; 0 is never a valid id.
struct LayerId {
  uint32_t value = 0;
  friend bool operator==(LayerId a, LayerId b) { return a.value == b.value; }
};

// AnimEvent::mix of an overlay's event (its layer is the overlay's index).
inline constexpr uint8_t kOverlayMix = 255;

// One event delivered by advance().
struct AnimEvent {
  int64_t tick = 0;       // the advance() tick that delivered it
  uint8_t mix = 0;        // index of the mix, oldest first, at that tick; kOverlayMix
  uint8_t layer = 0;      // index of the layer in its mix (of the overlay)
  uint16_t clip = 0;      // clip index in the rig
  uint16_t event = 0;     // index in the clip's events()
  std::string_view name;  // the event's name (owned by the rig's clip)
  double position = 0.0;  // the layer's unwrapped play position of the crossing, seconds
};

// Sizes fixed at create().
struct AnimatorOptions {
  // Capacity of the event buffer; 0 = enough for every mark of the rig's largest clip
  // crossed kMaxRepeats times in both ping-pong directions. Events beyond it are
  // counted in dropped_events(), never silently lost.
  uint32_t event_capacity = 0;
  EventPolicy events = EventPolicy::kEveryLayer;
};

class Animator {
 public:
  Animator() = default;
  Animator(Animator&&) = default;
  Animator& operator=(Animator&&) = default;

  // An animator for `rig` (which must outlive it) at tick_rate ticks per second (> 0,
  // else kBadTickRate). Allocates everything it will ever use; holds the rest pose.
  static Result<Animator> create(const Rig* rig, int32_t tick_rate,
                                 const AnimatorOptions& options = {});

  // Replaces everything playing with `clip` from `tick`. Errors: kUnknownClip,
  // kBadSpeed, kBadStart; on error nothing changes.
  Result<LayerId> play(uint16_t clip, int64_t tick, const PlayOptions& options = {});
  Result<LayerId> play(std::string_view clip, int64_t tick, const PlayOptions& options = {});

  // Starts `clip` as a new mix fading in over round(seconds * rate) ticks (0: at once)
  // with the older mixes playing underneath. Errors as play(), and kInvalidArgument for
  // seconds outside [0, kMaxFadeSeconds].
  Result<LayerId> crossfade(uint16_t clip, double seconds, int64_t tick,
                            const PlayOptions& options = {});
  Result<LayerId> crossfade(std::string_view clip, double seconds, int64_t tick,
                            const PlayOptions& options = {});

  // Adds a layer playing `clip` to the newest mix, mixed over the layers before it by
  // weight in [0, 1]. Errors: kNothingPlaying, kTooManyLayers, kBadWeight and play()'s.
  Result<LayerId> blend(uint16_t clip, float weight, int64_t tick, const PlayOptions& options = {});
  Result<LayerId> blend(std::string_view clip, float weight, int64_t tick,
                        const PlayOptions& options = {});

  // Replaces everything playing with one mix of these clips, weights shared out by
  // their sum (so {0.7, 0.3} and {7, 3} pose the same). Returns the first layer's id;
  // the others follow as consecutive ids. Errors: kInvalidArgument (no entries or more
  // than kMaxLayers), kBadWeight (a weight not positive and finite), play()'s.
  Result<LayerId> play_blend(std::span<const BlendEntry> entries, int64_t tick,
                             const PlayOptions& options = {});

  // Adds a layer with a mask and mode to the newest mix (blend() is add_layer with
  // {weight}). Errors as blend(), and kSizeMismatch for a mask that is neither empty nor
  // one weight per joint, kBadWeight for a mask weight outside [0, 1], kBadClip for an
  // additive layer whose clip is not additive or an override layer whose clip is.
  Result<LayerId> add_layer(uint16_t clip, const LayerOptions& layer, int64_t tick,
                            const PlayOptions& options = {});

  // Adds an overlay: a layer over the result of every mix (see the header comment).
  // Errors as add_layer(), and kTooManyLayers past kMaxOverlays (not kNothingPlaying:
  // overlays play over the rest pose too).
  Result<LayerId> add_overlay(uint16_t clip, const LayerOptions& layer, int64_t tick,
                              const PlayOptions& options = {});
  // Ends an overlay (kNoSuchLayer if `layer` is not one).
  Result<void> remove_overlay(LayerId layer);

  // Starts a synced mix of these clips (a blend space at these weights) fading in over
  // round(seconds * rate) ticks (0: at once) with the older mixes playing underneath, as
  // crossfade() does. Weights are 0 or more, at least one above 0; entries 1 to
  // kMaxBlendPoints. Returns the first layer's id (the others follow as consecutive ids);
  // it names the mix for set_blend_weights() and set_speed(). options.start is seconds
  // of the mix's clock. Errors: kInvalidArgument (entry count, fade), kBadWeight,
  // play()'s.
  Result<LayerId> crossfade_synced(std::span<const BlendEntry> entries, double seconds,
                                   int64_t tick, const PlayOptions& options = {});
  // New weights for the synced mix whose first layer is `first`, from `tick`, one per
  // entry it was started with (kSizeMismatch otherwise; kBadWeight as above; kNoSuchLayer
  // if `first` is not the first layer of a synced mix). The phase carries on.
  Result<void> set_blend_weights(LayerId first, std::span<const float> weights, int64_t tick);

  // Changes a playing layer's speed (in [0, kMaxSpeed], else kBadSpeed) from `tick`,
  // rebased so its clip time never jumps. For a layer of a synced mix: the mix's speed.
  Result<void> set_speed(LayerId layer, float speed, int64_t tick);
  // Puts a playing layer at `seconds` (in [0, kMaxStartSeconds], else kBadStart) into
  // its clip at `tick` (marks before it are skipped, a mark exactly there fires).
  Result<void> set_start(LayerId layer, double seconds, int64_t tick);
  // Changes a playing layer's playback from `tick`, continuing from its current clip time.
  Result<void> set_playback(LayerId layer, Playback playback, int64_t tick);
  // Changes a layer's weight (in [0, 1]).
  Result<void> set_weight(LayerId layer, float weight);
  // Stops everything, overlays too: the rest pose from now on, no events.
  void stop();
  // Stops the mixes only: the overlays play on, over the rest pose.
  void stop_mixes();

  // Events whose marks play passed since the previous advance() (for a layer started
  // at tick t, the first advance at or after t includes its starting position). Retires
  // mixes under a fully faded-in one. The span views the animator's buffer and is valid
  // until the next call.
  std::span<const AnimEvent> advance(int64_t tick);

  // Computes the pose at `tick` into locals(), globals() and palette().
  void evaluate(int64_t tick);
  // Computes the pose at tick + fraction, for a game that renders faster than it ticks
  // (a sub-tick pose; docs/runtime.md "Sub-tick poses"): every layer's clock runs on by
  // fraction of a tick ((tick - base + fraction) * speed / rate, in double) and crossfade
  // weights do too ((tick - fade start + fraction) / fade ticks); layer weights, masks
  // and the mixes playing are those of the latest calls, as at `tick`. fraction 0 gives
  // evaluate(tick)'s bits. It only poses: no events, no mixes retired, no root motion
  // collected (that is advance()'s), nothing allocated; evaluate(tick + 1) afterwards
  // gives the same bits as without it. fraction must be in [0, 1): NaN, a negative value
  // or 1 and above is refused (kInvalidArgument, the pose left as it was), as is an
  // animator without a rig.
  Result<void> evaluate(int64_t tick, float fraction);
  std::span<const Trs> locals() const { return locals_; }
  std::span<const Mat4> globals() const { return globals_; }
  std::span<const Mat4> palette() const { return palette_; }
  // Post-processing (IK, ik.h) of the pose evaluate() computed: change locals and keep
  // globals consistent with them (IkSet::apply does), then call refresh_palette(). The
  // next evaluate() overwrites all three.
  std::span<Trs> mutable_locals() { return locals_; }
  std::span<Mat4> mutable_globals() { return globals_; }
  // palette() = globals() x inverse binds, again.
  void refresh_palette();

  // Root motion (root_motion.h). From now on every layer holds the root joint's extracted
  // parts at its clip's first frame (kInPlace, kAccumulate) and advance() collects their
  // motion from `tracks` (kAccumulate), one per rig clip (the tracks must outlive the
  // animator; additive clips' tracks are empty; with kInPlace `tracks` may be empty). Call
  // it at setup, before playing: it allocates (a first-frame value per clip). kOff turns it
  // off. Errors: RootMotionConfig::validate's, kSizeMismatch for a track count that is
  // neither 0 (kInPlace) nor clip_count(), check_root_motion_track's; nothing changes on an
  // error.
  Result<void> set_root_motion(const RootMotionConfig& config,
                               std::span<const RootMotionTrack> tracks);
  const RootMotionConfig& root_motion() const { return root_config_; }
  // The motion collected since the previous call (kAccumulate; all zero otherwise), in the
  // object's frame at that call; starts collecting again.
  RootMotionDelta take_root_motion();

  // Morph weights (morph.h; format 5): the pose's weights of every morph set of the rig,
  // flat (Rig::morph_sets()[s] at [first, first + size())), computed by evaluate() with the
  // rest of the pose: each layer samples its clip's kWeights channels (a set its clip does
  // not animate reads the set's default weights, as a joint without channels reads its
  // rest), mixed and crossfaded by the same weights as the joints, linearly (a masked
  // layer weighs a set by its joint's mask weight, 1 for a set without a joint; an additive
  // layer adds weight x (sampled - reference)). Then the game's overrides replace the
  // weights they name. Empty for a rig without morph sets; all defaults before the first
  // evaluate().
  std::span<const float> morph_weights() const { return morph_weights_; }
  // Overrides one target's weight (by Rig::find_morph_target's name, or by flat index)
  // from the next evaluate() on, whatever the clips say (face animation driven by the
  // game). Errors: kUnknownMorphTarget (name or index), kBadWeight (not finite or outside
  // [-kMaxMorphWeight, kMaxMorphWeight]); nothing changes on an error. Allocates nothing.
  Result<void> set_morph_weight(std::string_view target, float weight);
  Result<void> set_morph_weight(uint32_t target, float weight);
  // Gives a target (or every target) back to the clips. kUnknownMorphTarget as above.
  Result<void> clear_morph_weight(std::string_view target);
  void clear_morph_weights();

  // The clip time (seconds, after playback mapping) a layer shows at `tick`.
  Result<double> clip_time(LayerId layer, int64_t tick) const;
  // The clip a layer plays.
  Result<uint16_t> layer_clip(LayerId layer) const;
  // Passes a layer has played by `tick` since it started: its unwrapped play position
  // over its clip's duration (a synced mix's phase, the same for all its layers; each
  // direction of ping-pong is one pass); 1e300 for a clip of duration 0 (a still pose has
  // always played through).
  Result<double> passes(LayerId layer, int64_t tick) const;
  // How many mixes play, and how many layers the mix at `mix` has (0 if out of range).
  int mix_count() const { return mix_count_; }
  int layer_count(int mix) const;
  // The fade-in weight of mix `mix` at `tick`, in [0, 1].
  float mix_weight(int mix, int64_t tick) const;
  const Rig* rig() const { return rig_; }
  int32_t tick_rate() const { return tick_rate_; }
  uint64_t dropped_events() const { return dropped_events_; }

 private:
  struct Layer {
    uint32_t id = 0;
    uint16_t clip = 0;
    Playback playback = Playback::kLoop;
    LayerMode mode = LayerMode::kOverride;
    bool synced = false;  // one of a synced mix's layers
    float weight = 1.0f;  // what it mixes in by (a synced or play_blend layer: w_i / (w_0..w_i))
    float share = 0.0f;   // play_blend and synced layers: the weight given for it
    float speed = 1.0f;
    double offset = 0.0;  // unwrapped play position (synced: mix clock) at base_tick, seconds
    int64_t base_tick = 0;
    double ratio = 1.0;            // synced: d_i / D (clip time per second of the mix clock)
    double cycle = 0.0;            // synced: D, the mix's cycle in seconds
    double events_from = 0.0;      // events are delivered up to here (unwrapped)
    bool events_inclusive = true;  // the next delivery includes events_from itself
    int slot = 0;
    uint32_t* cursors = nullptr;  // one key cursor per channel of the clip
    const float* mask = nullptr;  // one weight per joint (in mask_pool_), or null: 1 everywhere
    bool keys_pose = false;  // its clip keys every joint's T, R and S exactly once (keys_pose())
  };
  struct Mix {
    Layer layers[kMaxBlendPoints];
    int layer_count = 0;
    int shared = 0;       // layers [0, shared) carry a share (play_blend, synced)
    bool synced = false;  // layers [0, shared) are a synced mix
    int64_t fade_start = 0;
    int32_t fade_ticks = 0;
  };

  Result<void> check_clip(uint16_t clip, const PlayOptions& options) const;
  Result<void> check_layer(uint16_t clip, const LayerOptions& layer,
                           const PlayOptions& options) const;
  Result<int32_t> fade_ticks(double seconds) const;
  Layer* find_layer(LayerId id, int* out_mix = nullptr);
  const Layer* find_layer(LayerId id) const;
  Layer make_layer(uint16_t clip, int64_t tick, const PlayOptions& options, float weight, int slot);
  void set_layer_mask(Layer& layer, const LayerOptions& options);
  int free_slot() const;
  void release_mix(int mix);
  void clear_mixes();
  Mix& push_mix(int64_t tick, int32_t fade_ticks);
  void set_synced_weights(Mix& mix, std::span<const float> weights);
  int lead_layer(const Mix& mix) const;
  // fraction: of a tick after `tick`, in [0, 1) (evaluate(tick, fraction)); 0 elsewhere.
  double clock(const Layer& layer, int64_t tick, double fraction = 0.0) const;
  double unwrapped(const Layer& layer, int64_t tick, double fraction = 0.0) const;
  // mix_weight at tick + fraction.
  float fade_weight(int mix, int64_t tick, double fraction) const;
  // evaluate(tick) at tick + fraction (fraction checked by the caller).
  void evaluate_at(int64_t tick, double fraction);
  double mapped(const Layer& layer, double u) const;
  // A clip's f32 time (mark or duration) as the double the layer's timing uses.
  double clip_seconds(float t) const;
  void sample_layer(Layer& layer, int64_t tick, std::span<Trs> pose, std::span<float> weights,
                    double fraction = 0.0);
  void sample_layer_weights(Layer& layer, float t, std::span<float> weights);
  void sample_layer_masked(Layer& layer, float t, std::span<Trs> pose);
  bool keys_pose(uint16_t clip);
  bool sets_pose(const Layer& layer) const;
  void mix_layer(Layer& layer, int64_t tick, std::span<Trs> pose, std::span<float> weights,
                 double fraction);
  void collect_events(const Layer& layer, uint8_t mix, uint8_t layer_index, int64_t tick);
  void passed(Layer& layer, int64_t tick);

  const Rig* rig_ = nullptr;
  int32_t tick_rate_ = 60;
  EventPolicy policy_ = EventPolicy::kEveryLayer;
  Mix mixes_[kMaxMixes];
  int mix_count_ = 0;
  Layer overlays_[kMaxOverlays];
  int overlay_count_ = 0;
  uint32_t next_id_ = 1;
  static constexpr int kSlots = kLayerSlots;
  bool slot_used_[kSlots] = {};
  std::vector<uint32_t> cursor_pool_;  // kSlots * max channels
  std::vector<float> mask_pool_;       // kSlots * joints
  std::vector<Trs> locals_, mix_pose_;
  std::vector<Trs> layer_pose_;  // one layer sampled whole (mix_layer)
  std::vector<uint8_t> keyed_;   // keys_pose()'s scratch: T, R, S bits per joint
  std::vector<Mat4> globals_, palette_;
  std::vector<AnimEvent> events_;      // capacity fixed at create()
  std::vector<float> morph_weights_;   // rig morph_weight_count()
  std::vector<float> morph_defaults_;  // the sets' default weights, flat
  std::vector<float> morph_mix_;       // scratch of the same size (mixing)
  std::vector<float> morph_sample_;    // one set's sampled weights (the widest set's size)
  std::vector<float> morph_override_;  // the game's values, where morph_overridden_
  std::vector<uint8_t> morph_overridden_;
  uint32_t morph_override_count_ = 0;  // how many morph_overridden_ are set
  size_t event_count_ = 0;
  uint64_t dropped_events_ = 0;
  // Root motion (set_root_motion); the root motion helper may add members here.
  RootMotionConfig root_config_;
  std::vector<RootMotionTrack> root_tracks_;  // one per clip, or empty
  RootMotionDelta root_pending_;  // collected since take_root_motion(), in 1/65536 units
  // What holding the root needs of each clip: its first frame and what it keys.
  struct RootClip {
    Vec3 t0;                 // the root's translation at t = 0
    Quat q0_inv;             // the inverse of its rotation at t = 0
    bool hold = false;       // the pose holds a part of the root in this clip
    bool keys_root = false;  // it keys the root's translation or rotation
  };
  std::vector<RootClip> root_clips_;  // one per clip (kInPlace, kAccumulate), else empty
  float root_a_[9] = {};              // A (root_motion.h), column-major
  float root_a_inv_[9] = {};          // A^-1
  Vec3 root_up_;                      // up (object space)
  Vec3 root_axis_;                    // up in the root's parent frame (the yaw's local axis)
  // Each layer slot's track position at its previous advance (1/65536 samples), whether
  // it is set, and motion kept across a set_playback (unscaled track units).
  int64_t root_from_[kSlots] = {};
  bool root_from_set_[kSlots] = {};
  int64_t root_carry_[kSlots][4] = {};

  bool root_held(const Layer& layer) const;
  template <bool kHoldRoot, bool kMorph>
  void sample_layer_plain(Layer& layer, float t, std::span<Trs> pose);
  void hold_root(const Layer& layer, Property property, Vec4& value) const;
  int64_t root_position(const Layer& layer, int64_t tick) const;
  void root_restart(const Layer& layer, int64_t tick, bool keep_carry = false);
  void root_carry(const Layer& layer, int64_t tick);
  void collect_root_layer(const Layer& layer, int64_t tick, double share, int64_t step[4]);
  float root_weight(const Layer& layer) const;
  void collect_root_motion(int64_t tick, int full);
};

}  // namespace animpack
