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
// - advance(tick) returns every event whose mark play passed since the previous call, in
//   order of mix, layer, then time. Loops fire each pass, ping-pong each pass in either
//   direction, once only once; a layer started at `start` skips earlier marks but fires
//   a mark exactly at start; skipped ticks deliver each crossing, at most kMaxRepeats
//   passes per mark. A mark at an exact decimal time on a tick fires on that tick (its
//   f32 is timed as the tick time it rounds from; docs/runtime.md "Event timing"); at a
//   loop seam the end mark comes before the next pass's mark at 0.
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

namespace animpack {

inline constexpr int kMaxMixes = 4;
inline constexpr int kMaxLayers = 4;
inline constexpr int kMaxRepeats = 64;

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

// Names a layer across ticks; 0 is never a valid id.
struct LayerId {
  uint32_t value = 0;
  friend bool operator==(LayerId a, LayerId b) { return a.value == b.value; }
};

// One event delivered by advance().
struct AnimEvent {
  int64_t tick = 0;       // the advance() tick that delivered it
  uint8_t mix = 0;        // index of the mix, oldest first, at that tick
  uint8_t layer = 0;      // index of the layer in its mix
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

  // Changes a playing layer's speed (in [0, kMaxSpeed], else kBadSpeed) from `tick`,
  // rebased so its clip time never jumps.
  Result<void> set_speed(LayerId layer, float speed, int64_t tick);
  // Puts a playing layer at `seconds` (in [0, kMaxStartSeconds], else kBadStart) into
  // its clip at `tick` (marks before it are skipped, a mark exactly there fires).
  Result<void> set_start(LayerId layer, double seconds, int64_t tick);
  // Changes a playing layer's playback from `tick`, continuing from its current clip time.
  Result<void> set_playback(LayerId layer, Playback playback, int64_t tick);
  // Changes a layer's weight (in [0, 1]).
  Result<void> set_weight(LayerId layer, float weight);
  // Stops everything: the rest pose from now on, no events.
  void stop();

  // Events whose marks play passed since the previous advance() (for a layer started
  // at tick t, the first advance at or after t includes its starting position). Retires
  // mixes under a fully faded-in one. The span views the animator's buffer and is valid
  // until the next call.
  std::span<const AnimEvent> advance(int64_t tick);

  // Computes the pose at `tick` into locals(), globals() and palette().
  void evaluate(int64_t tick);
  std::span<const Trs> locals() const { return locals_; }
  std::span<const Mat4> globals() const { return globals_; }
  std::span<const Mat4> palette() const { return palette_; }

  // The clip time (seconds, after playback mapping) a layer shows at `tick`.
  Result<double> clip_time(LayerId layer, int64_t tick) const;
  // The clip a layer plays.
  Result<uint16_t> layer_clip(LayerId layer) const;
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
    float weight = 1.0f;
    float speed = 1.0f;
    double offset = 0.0;  // unwrapped play position at base_tick, seconds
    int64_t base_tick = 0;
    double events_from = 0.0;      // events are delivered up to here (unwrapped)
    bool events_inclusive = true;  // the next delivery includes events_from itself
    uint32_t* cursors = nullptr;   // one key cursor per channel of the clip
  };
  struct Mix {
    Layer layers[kMaxLayers];
    int layer_count = 0;
    int64_t fade_start = 0;
    int32_t fade_ticks = 0;
  };

  Result<void> check_clip(uint16_t clip, const PlayOptions& options) const;
  Layer* find_layer(LayerId id, int* out_mix = nullptr);
  const Layer* find_layer(LayerId id) const;
  Layer make_layer(uint16_t clip, int64_t tick, const PlayOptions& options, float weight, int slot);
  int free_slot() const;
  void release_mix(int mix);
  double unwrapped(const Layer& layer, int64_t tick) const;
  double mapped(const Layer& layer, double u) const;
  // A clip's f32 time (mark or duration) as the double the layer's timing uses.
  double clip_seconds(float t) const;
  void sample_layer(Layer& layer, int64_t tick, std::span<Trs> pose);
  void collect_events(const Layer& layer, uint8_t mix, uint8_t layer_index, int64_t tick);

  const Rig* rig_ = nullptr;
  int32_t tick_rate_ = 60;
  Mix mixes_[kMaxMixes];
  int mix_count_ = 0;
  uint32_t next_id_ = 1;
  bool slot_used_[kMaxMixes * kMaxLayers] = {};
  std::vector<uint32_t> cursor_pool_;  // kMaxMixes * kMaxLayers * max channels
  std::vector<Trs> locals_, mix_pose_;
  std::vector<Mat4> globals_, palette_;
  std::vector<AnimEvent> events_;  // capacity fixed at create()
  size_t event_count_ = 0;
  uint64_t dropped_events_ = 0;
};

}  // namespace animpack
