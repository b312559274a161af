#include "animpack/animator.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "animpack/limits.h"
#include "animpack/morph.h"
#include "kernels.h"
#include "kernels_blend.h"
#include "math_inline.h"
#include "root_motion_math.h"

namespace animpack {
namespace {

using kernel::v4;

bool valid_speed(float s) { return s >= 0.0f && s <= kMaxSpeed; }  // false for NaN
bool valid_start(double s) { return s >= 0.0 && s <= kMaxStartSeconds; }

// The largest pass index a series counts to (no int64 overflow in k + 1).
constexpr int64_t kMaxPass = int64_t{1} << 62;

// tick - base (tick >= base) as a double; the subtraction cannot overflow.
double ticks_since(int64_t tick, int64_t base) {
  return static_cast<double>(static_cast<uint64_t>(tick) - static_cast<uint64_t>(base));
}

// Mixes b over a by w: lerp for translation and scale, nlerp (shorter way) for rotation.
// w >= 1 gives b exactly and w <= 0 gives a exactly.
void blend_property(Trs& a, Property p, const Vec4& b, float w) {
  switch (p) {
    case Property::kWeights:  // morph weights are mixed apart from joints
      break;
    case Property::kTranslation:
      a.translation = inl::lerp(a.translation, Vec3{b.x, b.y, b.z}, w);
      break;
    case Property::kScale:
      a.scale = inl::lerp(a.scale, Vec3{b.x, b.y, b.z}, w);
      break;
    case Property::kRotation:
      a.rotation = kernel::nlerp(a.rotation, Quat{b.x, b.y, b.z, b.w}, w);
      break;
  }
}

// Sets a rotation to q (w >= 1) or mixes q in by w: blend_property's rotation case.
void put_rotation(Quat& rotation, v4 q, float w) {
  if (w < 1.0f) q = kernel::nlerp4(kernel::load_q(rotation), q, w);
  kernel::store_q(rotation, q);
}

// Rotations on slerp's wide path (kernel::slerp_wide: det::atan2 and det::sin, long
// chains of dependent operations), held back and run as one batch so that their
// chains overlap. Animator::sample_layer runs the batch when its layer is done, when
// it is full, and before any later channel writes one of its rotations, so every
// rotation still sees its writes in channel order.
class WideRotations {
 public:
  // Queues a wide pair (rotation_keys()) whose slerp goes to `rotation`: set, or
  // mixed in by w.
  void add(const kernel::SlerpPair& keys, Quat& rotation, float w) {
    if (count_ == kernel::kMaxSlerpBatch) run(w);
    if (count_ == 0 || &rotation > last_) last_ = &rotation;
    pairs_[count_] = keys;
    targets_[count_++] = &rotation;
  }
  // Runs the batch if it holds `rotation`, which is about to be written. Channels come
  // mostly in joint order, so a rotation after every target in the batch (one compare)
  // skips the search.
  void before_writing(const Quat& rotation, float w) {
    if (count_ == 0 || &rotation > last_) return;
    for (int i = 0; i < count_; ++i) {
      if (targets_[i] == &rotation) return run(w);
    }
  }
  // Runs and empties the batch.
  void run(float w) {
    if (count_ == 0) return;
    v4 q[kernel::kMaxSlerpBatch];
    kernel::slerp_wide(pairs_, count_, q);
    for (int i = 0; i < count_; ++i) put_rotation(*targets_[i], q[i], w);
    count_ = 0;
  }

 private:
  kernel::SlerpPair pairs_[kernel::kMaxSlerpBatch];
  Quat* targets_[kernel::kMaxSlerpBatch];
  const Quat* last_ = nullptr;  // the highest address in targets_[0, count_)
  int count_ = 0;
};

void set_property(Trs& a, Property p, const Vec4& v) {
  switch (p) {
    case Property::kWeights:  // morph weights are mixed apart from joints
      break;
    case Property::kTranslation:
      a.translation = {v.x, v.y, v.z};
      break;
    case Property::kScale:
      a.scale = {v.x, v.y, v.z};
      break;
    case Property::kRotation:
      a.rotation = {v.x, v.y, v.z, v.w};
      break;
  }
}

// Mixes the weights b over a by w as kernel::blend_poses mixes a joint: w >= 1 gives b exactly, w
// <= 0 leaves a, else a (1 - w) + b w.
void blend_weights(std::span<float> a, std::span<const float> b, float w) {
  if (w <= 0.0f) return;
  if (w >= 1.0f) {
    std::copy(b.begin(), b.end(), a.begin());
    return;
  }
  const float u = 1.0f - w;
  for (size_t i = 0; i < a.size(); ++i) a[i] = a[i] * u + b[i] * w;
}

// Adds a delta (an additive clip's value) over a by w: a + w d for translation and scale,
// a * nlerp(identity, d, w) for rotation (w >= 1: a * d exactly).
void add_property(Trs& a, Property p, const Vec4& d, float w) {
  switch (p) {
    case Property::kWeights:  // morph weights are mixed apart from joints
      break;
    case Property::kTranslation: {
      const Vec3 v{d.x, d.y, d.z};
      a.translation = inl::add(a.translation, w >= 1.0f ? v : inl::scale(v, w));
      break;
    }
    case Property::kScale: {
      const Vec3 v{d.x, d.y, d.z};
      a.scale = inl::add(a.scale, w >= 1.0f ? v : inl::scale(v, w));
      break;
    }
    case Property::kRotation: {
      Quat q{d.x, d.y, d.z, d.w};
      if (w < 1.0f) q = kernel::nlerp(Quat{}, q, w);
      a.rotation = inl::mul(a.rotation, q);
      break;
    }
  }
}

bool valid_weight(float w) { return w >= 0.0f && w <= 1.0f; }  // false for NaN

// Positions base + k * period (k_min <= k <= k_max) of one mark, in increasing order.
struct Series {
  double base = 0.0;
  double period = 0.0;  // 0: a single position
  int64_t k_min = 0;
  int64_t k_max = 0;
  int64_t k = 0;
  bool active = false;
  bool lost = false;  // stopped because double no longer tells two passes apart

  // Starts at the first position p with p > a (p >= a when inclusive).
  void start(double a, bool inclusive) {
    active = true;
    k = k_min;
    if (period > 0.0 && a > value()) {
      // One pass below the quotient, against rounding in the division; range-checked
      // (a huge position over a short period exceeds int64).
      const double q = std::floor((a - base) / period) - 1.0;
      k = clamp_to_int64(q, k_min, k_max);
    }
    // At most a few passes remain after the division; more means the positions no
    // longer move with k at this magnitude.
    for (int i = 0; i < 8 && active && before(a, inclusive); ++i) advance();
    if (before(a, inclusive)) {
      lost = lost || active || k_max == kMaxPass;  // passes after a that k cannot reach
      active = false;
    }
  }
  bool before(double a, bool inclusive) const {
    return value() < a || (!inclusive && value() == a);
  }
  double value() const { return base + static_cast<double>(k) * period; }
  void advance() {
    if (period <= 0.0 || k >= k_max) {
      active = false;
      return;
    }
    const double was = value();
    ++k;
    if (!(value() > was)) {
      active = false;
      lost = true;
    }
  }
};
}  // namespace

Result<Animator> Animator::create(const Rig* rig, int32_t tick_rate,
                                  const AnimatorOptions& options) {
  if (rig == nullptr) return Error::make(ErrorCode::kInvalidArgument, "no rig");
  if (tick_rate <= 0) {
    return Error::make(ErrorCode::kBadTickRate, "tick rate %d is not positive", tick_rate);
  }
  if (static_cast<uint8_t>(options.events) > 1) {
    return Error::make(ErrorCode::kInvalidArgument, "unknown event policy %u",
                       unsigned{static_cast<uint8_t>(options.events)});
  }
  Animator a;
  a.rig_ = rig;
  a.tick_rate_ = tick_rate;
  a.policy_ = options.events;
  const size_t joints = static_cast<size_t>(rig->skeleton().joint_count());
  a.cursor_pool_.assign(
      static_cast<size_t>(kSlots) * static_cast<size_t>(std::max(1, rig->max_channel_count())), 0u);
  a.mask_pool_.assign(static_cast<size_t>(kSlots) * std::max<size_t>(1, joints), 0.0f);
  a.locals_.assign(rig->skeleton().rest_pose().begin(), rig->skeleton().rest_pose().end());
  a.mix_pose_ = a.locals_;
  a.layer_pose_ = a.locals_;
  a.keyed_.assign(joints, 0);
  a.globals_.resize(joints);
  a.palette_.resize(joints);
  uint32_t capacity = options.event_capacity;
  if (capacity == 0) {
    capacity = static_cast<uint32_t>(std::max(16, 2 * kMaxRepeats * rig->max_event_count()));
  }
  a.events_.resize(capacity);
  // Morph weights: the sets' defaults flat, and the mixing and override buffers.
  const uint32_t weights = rig->morph_weight_count();
  if (weights > 0) {
    a.morph_defaults_.resize(weights);
    size_t widest = 0;
    for (const MorphSet& set : rig->morph_sets()) {
      std::copy(set.default_weights.begin(), set.default_weights.end(),
                a.morph_defaults_.begin() + set.first);
      widest = std::max<size_t>(widest, set.size());
    }
    a.morph_weights_ = a.morph_defaults_;
    a.morph_mix_ = a.morph_defaults_;
    a.morph_sample_.resize(widest);
    a.morph_override_.assign(weights, 0.0f);
    a.morph_overridden_.assign(weights, 0);
  }
  a.evaluate(0);
  return a;
}

Result<void> Animator::check_clip(uint16_t clip, const PlayOptions& options) const {
  if (clip >= rig_->clips().size()) {
    return Error::make(ErrorCode::kUnknownClip, "no clip %u in this rig (it has %d)",
                       unsigned{clip}, rig_->clip_count());
  }
  if (!valid_speed(options.speed)) {
    return Error::make(ErrorCode::kBadSpeed, "speed %g is not in [0, %g]",
                       static_cast<double>(options.speed), static_cast<double>(kMaxSpeed));
  }
  if (!valid_start(options.start)) {
    return Error::make(ErrorCode::kBadStart, "start %g s is not in [0, %g]", options.start,
                       kMaxStartSeconds);
  }
  if (static_cast<uint8_t>(options.playback) > 2) {
    return Error::make(ErrorCode::kInvalidArgument, "unknown playback %u",
                       unsigned{static_cast<uint8_t>(options.playback)});
  }
  return ok();
}

// An ordinary clip for play(), crossfade(), blend() and synced mixes.
Result<void> Animator::check_layer(uint16_t clip, const LayerOptions& layer,
                                   const PlayOptions& options) const {
  if (Result<void> r = check_clip(clip, options); !r) return r.error();
  if (!valid_weight(layer.weight)) {
    return Error::make(ErrorCode::kBadWeight, "layer weight %g is not in [0, 1]",
                       static_cast<double>(layer.weight));
  }
  const Clip& c = rig_->clips()[clip];
  if (layer.mode == LayerMode::kOverride) {
    if (c.additive() != AdditiveReference::kNone) {
      return Error::make(ErrorCode::kBadClip,
                         "clip %u ('%s') is additive: only an additive layer plays it",
                         unsigned{clip}, c.name().c_str());
    }
  } else if (layer.mode == LayerMode::kAdditive) {
    if (c.additive() == AdditiveReference::kNone) {
      return Error::make(ErrorCode::kBadClip,
                         "clip %u ('%s') is not additive: an additive layer plays additive clips "
                         "(make_additive_clip)",
                         unsigned{clip}, c.name().c_str());
    }
  } else {
    return Error::make(ErrorCode::kInvalidArgument, "unknown layer mode %u",
                       unsigned{static_cast<uint8_t>(layer.mode)});
  }
  const size_t joints = static_cast<size_t>(rig_->skeleton().joint_count());
  if (!layer.mask.empty() && layer.mask.size() != joints) {
    return Error::make(ErrorCode::kSizeMismatch,
                       "a mask has one weight per joint (%zu), not %zu weights", joints,
                       layer.mask.size());
  }
  for (size_t j = 0; j < layer.mask.size(); ++j) {
    if (!valid_weight(layer.mask[j])) {
      return Error::make(ErrorCode::kBadWeight, "mask weight %g of joint %zu is not in [0, 1]",
                         static_cast<double>(layer.mask[j]), j);
    }
  }
  return ok();
}

Result<int32_t> Animator::fade_ticks(double seconds) const {
  if (!(seconds >= 0.0 && seconds <= kMaxFadeSeconds)) {
    return Error::make(ErrorCode::kInvalidArgument, "fade of %g seconds is not in [0, %g]", seconds,
                       kMaxFadeSeconds);
  }
  const double ticks = std::round(seconds * static_cast<double>(tick_rate_));
  return static_cast<int32_t>(clamp_to_int64(ticks, 0, 1000000000));
}

int Animator::free_slot() const {
  for (int s = 0; s < kSlots; ++s) {
    if (!slot_used_[s]) return s;
  }
  return -1;  // unreachable: at most kMaxMixes * kMaxBlendPoints + kMaxOverlays layers exist
}

Animator::Layer Animator::make_layer(uint16_t clip, int64_t tick, const PlayOptions& options,
                                     float weight, int slot) {
  Layer l;
  l.id = next_id_++;
  if (next_id_ == 0) next_id_ = 1;
  l.clip = clip;
  l.playback = options.playback;
  l.weight = weight;
  l.speed = options.speed;
  l.offset = options.start;
  l.base_tick = tick;
  l.events_from = options.start;
  l.events_inclusive = true;
  l.slot = slot;
  slot_used_[slot] = true;
  l.cursors = cursor_pool_.data() +
              static_cast<size_t>(slot) * (cursor_pool_.size() / static_cast<size_t>(kSlots));
  l.keys_pose = keys_pose(clip);
  root_restart(l, tick);
  return l;
}

void Animator::set_layer_mask(Layer& layer, const LayerOptions& options) {
  layer.mode = options.mode;
  layer.mask = nullptr;
  const bool all_ones =
      std::all_of(options.mask.begin(), options.mask.end(), [](float w) { return w == 1.0f; });
  if (all_ones) return;  // the same as no mask
  float* dst = mask_pool_.data() +
               static_cast<size_t>(layer.slot) * (mask_pool_.size() / static_cast<size_t>(kSlots));
  std::copy(options.mask.begin(), options.mask.end(), dst);
  layer.mask = dst;
}

void Animator::release_mix(int mix) {
  Mix& m = mixes_[mix];
  for (int i = 0; i < m.layer_count; ++i) slot_used_[m.layers[i].slot] = false;
  m.layer_count = 0;
  m.shared = 0;
  m.synced = false;
}

void Animator::clear_mixes() {
  for (int m = 0; m < mix_count_; ++m) release_mix(m);
  mix_count_ = 0;
}

void Animator::stop_mixes() { clear_mixes(); }

void Animator::stop() {
  clear_mixes();
  for (int o = 0; o < overlay_count_; ++o) slot_used_[overlays_[o].slot] = false;
  overlay_count_ = 0;
}

Animator::Mix& Animator::push_mix(int64_t tick, int32_t fade) {
  if (mix_count_ == kMaxMixes) {
    release_mix(0);
    for (int m = 1; m < mix_count_; ++m) mixes_[m - 1] = mixes_[m];
    --mix_count_;
  }
  Mix& m = mixes_[mix_count_++];
  m.layer_count = 0;
  m.shared = 0;
  m.synced = false;
  m.fade_start = tick;
  m.fade_ticks = fade;
  return m;
}

Result<LayerId> Animator::play(uint16_t clip, int64_t tick, const PlayOptions& options) {
  if (Result<void> r = check_layer(clip, {}, options); !r) return r.error();
  clear_mixes();
  Mix& m = push_mix(tick, 0);
  m.layers[0] = make_layer(clip, tick, options, 1.0f, free_slot());
  m.layer_count = 1;
  return LayerId{m.layers[0].id};
}

Result<LayerId> Animator::play(std::string_view clip, int64_t tick, const PlayOptions& options) {
  Result<uint16_t> c = rig_->find_clip(clip);
  if (!c) return c.error();
  return play(*c, tick, options);
}

Result<LayerId> Animator::crossfade(uint16_t clip, double seconds, int64_t tick,
                                    const PlayOptions& options) {
  if (Result<void> r = check_layer(clip, {}, options); !r) return r.error();
  Result<int32_t> fade = fade_ticks(seconds);
  if (!fade) return fade.error();
  Mix& m = push_mix(tick, *fade);
  m.layers[0] = make_layer(clip, tick, options, 1.0f, free_slot());
  m.layer_count = 1;
  return LayerId{m.layers[0].id};
}

Result<LayerId> Animator::crossfade(std::string_view clip, double seconds, int64_t tick,
                                    const PlayOptions& options) {
  Result<uint16_t> c = rig_->find_clip(clip);
  if (!c) return c.error();
  return crossfade(*c, seconds, tick, options);
}

Result<LayerId> Animator::blend(uint16_t clip, float weight, int64_t tick,
                                const PlayOptions& options) {
  LayerOptions layer;
  layer.weight = weight;
  return add_layer(clip, layer, tick, options);
}

Result<LayerId> Animator::blend(std::string_view clip, float weight, int64_t tick,
                                const PlayOptions& options) {
  Result<uint16_t> c = rig_->find_clip(clip);
  if (!c) return c.error();
  return blend(*c, weight, tick, options);
}

Result<LayerId> Animator::add_layer(uint16_t clip, const LayerOptions& layer, int64_t tick,
                                    const PlayOptions& options) {
  if (Result<void> r = check_layer(clip, layer, options); !r) return r.error();
  if (mix_count_ == 0) {
    return Error::make(ErrorCode::kNothingPlaying, "nothing plays to blend clip '%s' over",
                       rig_->clips()[clip].name().c_str());
  }
  Mix& m = mixes_[mix_count_ - 1];
  if (m.synced ? m.layer_count == kMaxBlendPoints : m.layer_count >= kMaxLayers) {
    return Error::make(ErrorCode::kTooManyLayers, "a mix holds at most %d layers (%d synced)",
                       kMaxLayers, kMaxBlendPoints);
  }
  Layer& l = m.layers[m.layer_count++];
  l = make_layer(clip, tick, options, layer.weight, free_slot());
  set_layer_mask(l, layer);
  return LayerId{l.id};
}

Result<LayerId> Animator::add_overlay(uint16_t clip, const LayerOptions& layer, int64_t tick,
                                      const PlayOptions& options) {
  if (Result<void> r = check_layer(clip, layer, options); !r) return r.error();
  if (overlay_count_ == kMaxOverlays) {
    return Error::make(ErrorCode::kTooManyLayers, "at most %d overlays play at once", kMaxOverlays);
  }
  Layer& l = overlays_[overlay_count_++];
  l = make_layer(clip, tick, options, layer.weight, free_slot());
  set_layer_mask(l, layer);
  return LayerId{l.id};
}

Result<void> Animator::remove_overlay(LayerId layer) {
  for (int o = 0; o < overlay_count_; ++o) {
    if (overlays_[o].id != layer.value) continue;
    slot_used_[overlays_[o].slot] = false;
    for (int k = o + 1; k < overlay_count_; ++k) overlays_[k - 1] = overlays_[k];
    --overlay_count_;
    return ok();
  }
  return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not an overlay", layer.value);
}

Result<LayerId> Animator::play_blend(std::span<const BlendEntry> entries, int64_t tick,
                                     const PlayOptions& options) {
  if (entries.empty() || entries.size() > static_cast<size_t>(kMaxLayers)) {
    return Error::make(ErrorCode::kInvalidArgument, "play_blend takes 1 to %d clips, not %zu",
                       kMaxLayers, entries.size());
  }
  for (const BlendEntry& e : entries) {
    if (Result<void> r = check_layer(e.clip, {}, options); !r) return r.error();
    if (!(std::isfinite(e.weight) && e.weight > 0.0f)) {
      return Error::make(ErrorCode::kBadWeight, "blend weight %g of clip '%s' is not positive",
                         static_cast<double>(e.weight), rig_->clips()[e.clip].name().c_str());
    }
  }
  clear_mixes();
  Mix& m = push_mix(tick, 0);
  // Layer i mixes over layers 0..i-1 by w_i / (w_0 + ... + w_i): then each clip's share
  // of the result is w_i / sum(w).
  double sum = 0.0;
  for (size_t i = 0; i < entries.size(); ++i) {
    sum += static_cast<double>(entries[i].weight);
    const float w =
        i == 0 ? 1.0f : static_cast<float>(static_cast<double>(entries[i].weight) / sum);
    m.layers[i] = make_layer(entries[i].clip, tick, options, w, free_slot());
    m.layers[i].share = entries[i].weight;
  }
  m.layer_count = static_cast<int>(entries.size());
  m.shared = m.layer_count;
  return LayerId{m.layers[0].id};
}

void Animator::set_synced_weights(Mix& m, std::span<const float> weights) {
  double sum = 0.0;
  for (float w : weights) sum += static_cast<double>(w);
  // D = sum s_i d_i; all weight on clip i gives D = d_i exactly (the other terms are 0).
  double cycle = 0.0;
  for (size_t i = 0; i < weights.size(); ++i) {
    const double d = clip_seconds(rig_->clips()[m.layers[i].clip].duration());
    cycle += static_cast<double>(weights[i]) / sum * d;
  }
  double cumulative = 0.0;
  bool first = true;
  for (size_t i = 0; i < weights.size(); ++i) {
    Layer& l = m.layers[i];
    const double w = static_cast<double>(weights[i]);
    l.share = weights[i];
    if (w > 0.0) {
      cumulative += w;
      l.weight = first ? 1.0f : static_cast<float>(w / cumulative);
      first = false;
    } else {
      l.weight = 0.0f;
    }
    const double d = clip_seconds(rig_->clips()[l.clip].duration());
    l.ratio = cycle > 0.0 ? d / cycle : 1.0;
    l.cycle = cycle;
  }
}

Result<LayerId> Animator::crossfade_synced(std::span<const BlendEntry> entries, double seconds,
                                           int64_t tick, const PlayOptions& options) {
  if (entries.empty() || entries.size() > static_cast<size_t>(kMaxBlendPoints)) {
    return Error::make(ErrorCode::kInvalidArgument, "a synced mix takes 1 to %d clips, not %zu",
                       kMaxBlendPoints, entries.size());
  }
  bool any = false;
  float weights[kMaxBlendPoints];
  for (size_t i = 0; i < entries.size(); ++i) {
    const BlendEntry& e = entries[i];
    if (Result<void> r = check_layer(e.clip, {}, options); !r) return r.error();
    if (!(std::isfinite(e.weight) && e.weight >= 0.0f)) {
      return Error::make(ErrorCode::kBadWeight,
                         "blend weight %g of clip '%s' is not finite and 0 or more",
                         static_cast<double>(e.weight), rig_->clips()[e.clip].name().c_str());
    }
    any = any || e.weight > 0.0f;
    weights[i] = e.weight;
  }
  if (!any) return Error::make(ErrorCode::kBadWeight, "every weight of the synced mix is 0");
  Result<int32_t> fade = fade_ticks(seconds);
  if (!fade) return fade.error();
  Mix& m = push_mix(tick, *fade);
  for (size_t i = 0; i < entries.size(); ++i) {
    m.layers[i] = make_layer(entries[i].clip, tick, options, 1.0f, free_slot());
    m.layers[i].synced = true;
  }
  m.layer_count = static_cast<int>(entries.size());
  m.shared = m.layer_count;
  m.synced = true;
  set_synced_weights(m, {weights, entries.size()});
  // Event positions are clip times: the start is seconds of the mix clock.
  for (int i = 0; i < m.layer_count; ++i) {
    m.layers[i].events_from = m.layers[i].offset * m.layers[i].ratio;
    root_restart(m.layers[i], tick);
  }
  return LayerId{m.layers[0].id};
}

Result<void> Animator::set_blend_weights(LayerId first, std::span<const float> weights,
                                         int64_t tick) {
  Mix* mix = nullptr;
  for (int m = 0; m < mix_count_; ++m) {
    if (mixes_[m].synced && mixes_[m].layer_count > 0 && mixes_[m].layers[0].id == first.value) {
      mix = &mixes_[m];
    }
  }
  if (mix == nullptr) {
    return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not the first layer of a synced mix",
                       first.value);
  }
  if (weights.size() != static_cast<size_t>(mix->shared)) {
    return Error::make(ErrorCode::kSizeMismatch, "the synced mix has %d clips, not %zu weights",
                       mix->shared, weights.size());
  }
  bool any = false;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!(std::isfinite(weights[i]) && weights[i] >= 0.0f)) {
      return Error::make(ErrorCode::kBadWeight,
                         "blend weight %g of entry %zu is not finite and 0 "
                         "or more",
                         static_cast<double>(weights[i]), i);
    }
    any = any || weights[i] > 0.0f;
  }
  if (!any) return Error::make(ErrorCode::kBadWeight, "every weight of the synced mix is 0");
  Layer& l0 = mix->layers[0];
  const double old_cycle = l0.cycle;
  const double s = clock(l0, tick);
  set_synced_weights(*mix, weights);
  const double new_cycle = l0.cycle;
  // Keep the phase s / D: the clock becomes s * D' / D from this tick.
  const double offset = old_cycle > 0.0 && new_cycle > 0.0 ? s * new_cycle / old_cycle : s;
  const int64_t base = std::max(tick, l0.base_tick);
  for (int i = 0; i < mix->shared; ++i) {
    mix->layers[i].offset = offset;
    mix->layers[i].base_tick = base;
  }
  return ok();
}

Animator::Layer* Animator::find_layer(LayerId id, int* out_mix) {
  for (int m = 0; m < mix_count_; ++m) {
    for (int l = 0; l < mixes_[m].layer_count; ++l) {
      if (mixes_[m].layers[l].id == id.value) {
        if (out_mix) *out_mix = m;
        return &mixes_[m].layers[l];
      }
    }
  }
  for (int o = 0; o < overlay_count_; ++o) {
    if (overlays_[o].id == id.value) {
      if (out_mix) *out_mix = -1;
      return &overlays_[o];
    }
  }
  return nullptr;
}

const Animator::Layer* Animator::find_layer(LayerId id) const {
  return const_cast<Animator*>(this)->find_layer(id, nullptr);
}

double Animator::clock(const Layer& layer, int64_t tick, double fraction) const {
  double ticks = tick > layer.base_tick ? ticks_since(tick, layer.base_tick) : 0.0;
  // A sub-tick clock runs on from the tick (a layer starting at a later tick still shows
  // its start: tick + fraction < base); fraction 0 leaves the tick's bits.
  if (fraction > 0.0 && tick >= layer.base_tick) ticks += fraction;
  return layer.offset + ticks * static_cast<double>(layer.speed) / static_cast<double>(tick_rate_);
}

double Animator::unwrapped(const Layer& layer, int64_t tick, double fraction) const {
  const double u = clock(layer, tick, fraction);
  return layer.synced ? u * layer.ratio : u;
}

double Animator::clip_seconds(float t) const {
  // The tick time n / rate nearest to t, when it rounds to t's f32: then a mark at an
  // exact decimal time on a tick (0.4 s at 60 Hz) is reached on that tick, although its
  // f32 (0.4000000059604645) lies just after it.
  const double rate = static_cast<double>(tick_rate_);
  const double n = std::round(static_cast<double>(t) * rate);
  const double on_tick = n / rate;
  return static_cast<float>(on_tick) == t ? on_tick : static_cast<double>(t);
}

namespace {
// Unwrapped position u over a cycle of d seconds mapped by playback.
double map_time(Playback playback, double u, double d) {
  if (!(d > 0.0)) return 0.0;
  switch (playback) {
    case Playback::kOnce:
      return u < d ? u : d;
    case Playback::kLoop: {
      const double r = u - std::floor(u / d) * d;
      return r < 0.0 ? 0.0 : (r >= d ? 0.0 : r);
    }
    case Playback::kPingPong: {
      const double period = 2.0 * d;
      double p = u - std::floor(u / period) * period;
      if (p < 0.0) p = 0.0;
      return p <= d ? p : period - p;
    }
  }
  return 0.0;
}
}  // namespace

double Animator::mapped(const Layer& layer, double u) const {
  return map_time(layer.playback, u, clip_seconds(rig_->clips()[layer.clip].duration()));
}

Result<void> Animator::set_speed(LayerId id, float speed, int64_t tick) {
  int mix = -1;
  Layer* l = find_layer(id, &mix);
  if (!l) return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not playing", id.value);
  if (!valid_speed(speed)) {
    return Error::make(ErrorCode::kBadSpeed, "speed %g is not in [0, %g]",
                       static_cast<double>(speed), static_cast<double>(kMaxSpeed));
  }
  const auto rebase = [&](Layer& x) {
    x.offset = clock(x, tick);
    x.base_tick = tick;
    x.speed = speed;
  };
  if (l->synced) {
    for (int i = 0; i < mixes_[mix].shared; ++i) rebase(mixes_[mix].layers[i]);
  } else {
    rebase(*l);
  }
  return ok();
}

Result<void> Animator::set_start(LayerId id, double seconds, int64_t tick) {
  int mix = -1;
  Layer* l = find_layer(id, &mix);
  if (!l) return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not playing", id.value);
  if (!valid_start(seconds)) {
    return Error::make(ErrorCode::kBadStart, "start %g s is not in [0, %g]", seconds,
                       kMaxStartSeconds);
  }
  const auto restart = [&](Layer& x) {
    x.offset = seconds;
    x.base_tick = tick;
    x.events_from = x.synced ? seconds * x.ratio : seconds;
    x.events_inclusive = true;
    root_restart(x, tick);
  };
  if (l->synced) {
    for (int i = 0; i < mixes_[mix].shared; ++i) restart(mixes_[mix].layers[i]);
  } else {
    restart(*l);
  }
  return ok();
}

Result<void> Animator::set_playback(LayerId id, Playback playback, int64_t tick) {
  int mix = -1;
  Layer* l = find_layer(id, &mix);
  if (!l) return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not playing", id.value);
  if (static_cast<uint8_t>(playback) > 2) {
    return Error::make(ErrorCode::kInvalidArgument, "unknown playback %u",
                       unsigned{static_cast<uint8_t>(playback)});
  }
  // Continue from the clip time shown now; keep the stretch not yet delivered as events.
  // A synced mix continues from its mapped clock (the same phase in every clip).
  const auto change = [&](Layer& x) {
    const double u = unwrapped(x, tick);
    const double pending = u - x.events_from;
    const double now = x.synced ? map_time(x.playback, clock(x, tick), x.cycle) : mapped(x, u);
    root_carry(x, tick);  // the root's motion up to `tick` on the old mapping is kept
    x.offset = now;
    x.base_tick = tick;
    x.playback = playback;
    x.events_from = std::max(0.0, (x.synced ? now * x.ratio : now) - pending);
    root_restart(x, tick, /*keep_carry=*/true);
  };
  if (l->synced) {
    for (int i = 0; i < mixes_[mix].shared; ++i) change(mixes_[mix].layers[i]);
  } else {
    change(*l);
  }
  return ok();
}

Result<void> Animator::set_weight(LayerId id, float weight) {
  Layer* l = find_layer(id);
  if (!l) return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not playing", id.value);
  if (!valid_weight(weight)) {
    return Error::make(ErrorCode::kBadWeight, "weight %g is not in [0, 1]",
                       static_cast<double>(weight));
  }
  if (l->synced) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "layer %u is in a synced mix: its weights change by set_blend_weights",
                       id.value);
  }
  l->weight = weight;
  return ok();
}

Result<double> Animator::clip_time(LayerId id, int64_t tick) const {
  const Layer* l = find_layer(id);
  if (!l) return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not playing", id.value);
  return mapped(*l, unwrapped(*l, tick));
}

Result<uint16_t> Animator::layer_clip(LayerId id) const {
  const Layer* l = find_layer(id);
  if (!l) return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not playing", id.value);
  return l->clip;
}

Result<double> Animator::passes(LayerId id, int64_t tick) const {
  const Layer* l = find_layer(id);
  if (!l) return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not playing", id.value);
  if (l->synced) return l->cycle > 0.0 ? clock(*l, tick) / l->cycle : 1e300;
  const double d = clip_seconds(rig_->clips()[l->clip].duration());
  return d > 0.0 ? unwrapped(*l, tick) / d : 1e300;
}

int Animator::layer_count(int mix) const {
  return mix >= 0 && mix < mix_count_ ? mixes_[mix].layer_count : 0;
}

float Animator::mix_weight(int mix, int64_t tick) const { return fade_weight(mix, tick, 0.0); }

float Animator::fade_weight(int mix, int64_t tick, double fraction) const {
  if (mix < 0 || mix >= mix_count_) return 0.0f;
  const Mix& m = mixes_[mix];
  if (m.fade_ticks <= 0) return 1.0f;
  if (tick < m.fade_start) return 0.0f;
  // At the fade's start tick this is 0 (fraction 0) or fraction / fade ticks.
  double ticks = ticks_since(tick, m.fade_start);
  if (fraction > 0.0) ticks += fraction;
  const double w = ticks / static_cast<double>(m.fade_ticks);
  return w <= 0.0 ? 0.0f : (w >= 1.0 ? 1.0f : static_cast<float>(w));
}

void Animator::collect_events(const Layer& layer, uint8_t mix, uint8_t layer_index, int64_t tick) {
  const Clip& clip = rig_->clips()[layer.clip];
  const auto marks = clip.events();
  if (marks.empty() || tick < layer.base_tick) return;
  const double a = layer.events_from;
  const double b = unwrapped(layer, tick);
  const bool inclusive = layer.events_inclusive;
  if (b < a || (b == a && !inclusive)) return;
  // A mark's position (base + k * period) and the tick's play position are both rounded
  // in double; a mark within a few ulps after the tick's position counts as reached on
  // that tick (the next delivery starts after the same bound, so none fires twice).
  const auto slack = [](double x) { return (x < 0.0 ? -x : x) * 0x1p-46; };
  const double lo = inclusive ? a - slack(a) : a + slack(a);
  const double hi = b + slack(b);
  const double d = clip_seconds(clip.duration());
  const Playback playback = d > 0.0 ? layer.playback : Playback::kOnce;
  const size_t first = event_count_;

  for (size_t e = 0; e < marks.size(); ++e) {
    const double t = clip_seconds(marks[e].time);
    const bool at_end = marks[e].time == clip.duration();
    // Up to two series of positions per mark: forward passes, and the backward passes
    // of ping-pong. A turning point (t == 0 or t == d) belongs to one series only.
    Series s[2];
    int count = 0;
    switch (playback) {
      case Playback::kOnce:
        s[count++] = Series{t, 0.0, 0, 0};
        break;
      case Playback::kLoop:
        // A mark at the end is at k * d, k >= 1: the bits of the next pass's mark at 0.
        s[count++] = at_end ? Series{0.0, d, 1, kMaxPass} : Series{t, d, 0, kMaxPass};
        break;
      case Playback::kPingPong:
        s[count++] = Series{t, 2.0 * d, 0, t == 0.0 ? 0 : kMaxPass};
        if (!at_end) s[count++] = Series{2.0 * d - t, 2.0 * d, 0, kMaxPass};
        break;
    }
    for (int i = 0; i < count; ++i) s[i].start(lo, inclusive);
    for (int fired = 0; fired < kMaxRepeats; ++fired) {
      int next = -1;
      for (int i = 0; i < count; ++i) {
        if (s[i].active && s[i].value() <= hi && (next < 0 || s[i].value() < s[next].value())) {
          next = i;
        }
      }
      if (next < 0) break;
      if (event_count_ < events_.size()) {
        events_[event_count_++] = AnimEvent{
            tick,           mix, layer_index, layer.clip, static_cast<uint16_t>(e), marks[e].name,
            s[next].value()};
      } else {
        ++dropped_events_;
      }
      s[next].advance();
    }
    for (int i = 0; i < count; ++i) dropped_events_ += s[i].lost ? 1u : 0u;
  }
  // In play order: by position; at a loop seam the old pass's end mark before the new
  // pass's mark at 0 (they share the position); then by mark.
  const bool loop = playback == Playback::kLoop;
  const float end = clip.duration();
  std::sort(events_.begin() + static_cast<std::ptrdiff_t>(first),
            events_.begin() + static_cast<std::ptrdiff_t>(event_count_),
            [&](const AnimEvent& x, const AnimEvent& y) {
              if (x.position != y.position) return x.position < y.position;
              const bool x_end = loop && marks[x.event].time == end;
              const bool y_end = loop && marks[y.event].time == end;
              if (x_end != y_end) return x_end;
              return x.event < y.event;
            });
}

// The layer whose marks EventPolicy::kLead delivers: the largest share of the mix's
// result (weight times 1 - weight of every later override layer; a play_blend or synced
// layer's share is its weight over their sum), the first of equals; -1 for none above 0.
int Animator::lead_layer(const Mix& m) const {
  double share[kMaxBlendPoints];
  double later = 1.0;  // what the layers above leave of the ones below
  for (int i = m.layer_count - 1; i >= m.shared; --i) {
    const Layer& l = m.layers[i];
    share[i] = static_cast<double>(l.weight) * later;
    if (l.mode == LayerMode::kOverride) later *= 1.0 - static_cast<double>(l.weight);
  }
  double sum = 0.0;
  for (int i = 0; i < m.shared; ++i) sum += static_cast<double>(m.layers[i].share);
  for (int i = 0; i < m.shared; ++i) {
    share[i] = sum > 0.0 ? static_cast<double>(m.layers[i].share) / sum * later : 0.0;
  }
  int best = -1;
  for (int i = 0; i < m.layer_count; ++i) {
    if (share[i] > 0.0 && (best < 0 || share[i] > share[best])) best = i;
  }
  return best;
}

// The layer's marks are delivered up to `tick` (whether they fired or not).
void Animator::passed(Layer& layer, int64_t tick) {
  if (tick >= layer.base_tick) {
    layer.events_from = unwrapped(layer, tick);
    layer.events_inclusive = false;
  }
}

std::span<const AnimEvent> Animator::advance(int64_t tick) {
  event_count_ = 0;
  const bool lead = policy_ == EventPolicy::kLead;
  for (int m = 0; m < mix_count_; ++m) {
    Mix& mix = mixes_[m];
    const int only = lead ? (m == mix_count_ - 1 ? lead_layer(mix) : -2) : -1;
    for (int l = 0; l < mix.layer_count; ++l) {
      Layer& layer = mix.layers[l];
      const bool fires = lead ? l == only : !(layer.synced && layer.weight <= 0.0f);
      if (fires) collect_events(layer, static_cast<uint8_t>(m), static_cast<uint8_t>(l), tick);
      passed(layer, tick);
    }
  }
  for (int o = 0; o < overlay_count_; ++o) {
    Layer& layer = overlays_[o];
    if (!lead || layer.weight > 0.0f) {
      collect_events(layer, kOverlayMix, static_cast<uint8_t>(o), tick);
    }
    passed(layer, tick);
  }
  // Retire the mixes under the newest fully faded-in one.
  int full = -1;
  for (int m = mix_count_ - 1; m >= 0; --m) {
    if (mix_weight(m, tick) >= 1.0f) {
      full = m;
      break;
    }
  }
  if (root_config_.policy == RootMotionPolicy::kAccumulate) collect_root_motion(tick, full);
  if (full > 0) {
    for (int m = 0; m < full; ++m) release_mix(m);
    for (int m = full; m < mix_count_; ++m) mixes_[m - full] = mixes_[m];
    mix_count_ -= full;
  }
  return {events_.data(), event_count_};
}

// A masked or additive layer, or one that holds the root (root motion): each channel's
// value (the root's held, root_motion.h) set, mixed in or added by weight * mask[joint];
// a joint of weight 0 is left exactly as it is.
// Out of line, so that sample_layer's plain-layer path stays as it was.
[[gnu::noinline]] void Animator::sample_layer_masked(Layer& layer, float t, std::span<Trs> pose) {
  const Clip& clip = rig_->clips()[layer.clip];
  const float w = layer.weight;
  const bool additive = layer.mode == LayerMode::kAdditive;
  // The root joint whose extracted parts this layer holds, or none (-1).
  const int root_joint = root_held(layer) ? root_config_.joint : -1;
  const auto channels = clip.channels();
  for (size_t c = 0; c < channels.size(); ++c) {
    const Channel& ch = channels[c];
    if (ch.property == Property::kWeights) continue;  // sample_layer_weights
    const float wj = layer.mask != nullptr ? w * layer.mask[ch.joint] : w;
    if (!(wj > 0.0f)) continue;
    Vec4 v = kernel::sample(ch, t, &layer.cursors[c]);
    if (!additive && ch.joint == root_joint) hold_root(layer, ch.property, v);
    Trs& target = pose[ch.joint];
    if (additive) {
      add_property(target, ch.property, v, wj);
    } else if (wj >= 1.0f) {
      set_property(target, ch.property, v);
    } else {
      blend_property(target, ch.property, v, wj);
    }
  }
}

void Animator::sample_layer(Layer& layer, int64_t tick, std::span<Trs> pose,
                            std::span<float> weights, double fraction) {
  const float t = static_cast<float>(mapped(layer, unwrapped(layer, tick, fraction)));
  if (layer.weight <= 0.0f) return;
  // A rig without morph sets has no kWeights channels (Rig::create): the plain layers
  // take the loops without the weights test.
  const bool morph = !weights.empty();
  if (layer.mask != nullptr || layer.mode != LayerMode::kOverride) {
    sample_layer_masked(layer, t, pose);
  } else if (root_held(layer)) {
    if (morph) {
      sample_layer_plain<true, true>(layer, t, pose);
    } else {
      sample_layer_plain<true, false>(layer, t, pose);
    }
  } else if (morph) {
    sample_layer_plain<false, true>(layer, t, pose);
  } else {
    sample_layer_plain<false, false>(layer, t, pose);
  }
  if (morph) sample_layer_weights(layer, t, weights);
}

// The layer's kWeights channels over `weights` (flat, Rig::morph_sets()): each set's
// sampled weights set (weight >= 1), mixed in by lerp or (additive) added scaled by the
// layer's weight times its mask at the set's joint; a set of weight 0 is left exactly as
// it is, as a joint is.
void Animator::sample_layer_weights(Layer& layer, float t, std::span<float> weights) {
  const Clip& clip = rig_->clips()[layer.clip];
  const auto sets = rig_->morph_sets();
  const float w = layer.weight;
  const bool additive = layer.mode == LayerMode::kAdditive;
  const auto channels = clip.channels();
  for (size_t c = 0; c < channels.size(); ++c) {
    const Channel& ch = channels[c];
    if (ch.property != Property::kWeights) continue;
    const MorphSet& set = sets[ch.joint];
    const float wj = layer.mask != nullptr && set.joint >= 0 ? w * layer.mask[set.joint] : w;
    if (!(wj > 0.0f)) continue;
    const std::span<float> v{morph_sample_.data(), ch.width};
    sample_weights(ch, t, &layer.cursors[c], v);
    float* dst = weights.data() + set.first;
    if (additive) {
      if (wj >= 1.0f) {
        for (size_t i = 0; i < v.size(); ++i) dst[i] = dst[i] + v[i];
      } else {
        for (size_t i = 0; i < v.size(); ++i) dst[i] = dst[i] + v[i] * wj;
      }
    } else if (wj >= 1.0f) {
      std::copy(v.begin(), v.end(), dst);
    } else {
      const float u = 1.0f - wj;  // lerp(a, b, wj) = a (1 - wj) + b wj
      for (size_t i = 0; i < v.size(); ++i) dst[i] = dst[i] * u + v[i] * wj;
    }
  }
}

namespace {

// How a sampled value meets the pose: kAny tests the weight w (set when w >= 1, mixed
// in by w below), kSet and kMix are that test made once for a whole layer.
enum class Put { kAny, kSet, kMix };

// A LINEAR channel between its keys k and k + 1 at fraction u (s = 1 - u): the value
// (kernel::linear_value), then set or mixed in by w (set_property / blend_property), in
// registers; a wide rotation goes to `wide`. kInterior: 0 < u < 1 is known, which leaves
// rotation_narrow's nlerp as the only narrow case.
template <bool kInterior = false, Put kPut = Put::kAny>
inline void put_linear(const Channel& ch, size_t k, float u, float s, float w, Trs& target,
                       WideRotations& wide) {
  if (ch.property == Property::kRotation) {
    const kernel::SlerpPair keys = kernel::rotation_keys(ch.values.data() + 4 * k, u);
    wide.before_writing(target.rotation, w);
    v4 q{};
    bool narrow;
    if constexpr (kInterior) {
      narrow = keys.d > 0.9995f;
      if (narrow) q = kernel::normalize4(keys.a * s + keys.b * u);
    } else {
      narrow = kernel::rotation_narrow(keys, u, s, &q);
    }
    if (!narrow) {
      wide.add(keys, target.rotation, w);
    } else if constexpr (kPut == Put::kSet) {
      kernel::store_q(target.rotation, q);
    } else {
      put_rotation(target.rotation, q, w);
    }
  } else {
    v4 v = kernel::linear_vec3(ch.values.data() + 3 * k, u, s);
    Vec3& dst = ch.property == Property::kTranslation ? target.translation : target.scale;
    if (kPut == Put::kMix || (kPut == Put::kAny && w < 1.0f)) {
      v = kernel::lerp4(kernel::load3(dst), v, w);
    }
    kernel::store3(dst, v);
  }
}

// put_linear<kInterior, kPut> of every joint channel (kWeights: skipping the kWeights
// ones) between keys k and k + 1.
template <bool kWeights, bool kInterior, Put kPut>
void put_all(std::span<const Channel> channels, size_t k, float u, float s, float w,
             std::span<Trs> pose, WideRotations& wide) {
  for (const Channel& ch : channels) {
    if constexpr (kWeights) {
      if (ch.property == Property::kWeights) continue;
    }
    put_linear<kInterior, kPut>(ch, k, u, s, w, pose[ch.joint], wide);
  }
}

// sample_plain of a clip whose joint channels are all LINEAR over one times array
// (Clip::shared_linear_times) with t strictly inside those keys: one key search and one
// fraction for all of them, exactly the k and u each channel's own search would find
// (sample_plain's reuse rule, known here for the whole clip at once). The search starts
// from the first joint channel's cursor, and every joint channel's cursor comes back as
// k, as from its own search. kWeights: the clip has kWeights channels, skipped
// (sample_layer_weights), their cursors untouched.
template <bool kWeights>
void sample_shared(std::span<const Channel> channels, std::span<const float> times, float t,
                   uint32_t* cursors, std::span<Trs> pose, float w) {
  size_t first = 0;
  if constexpr (kWeights) {
    while (channels[first].property == Property::kWeights) ++first;
  }
  const size_t k = kernel::find_key_fast(times.data(), times.size(), t, &cursors[first]);
  const float t0 = times[k];
  const float u = (t - t0) / (times[k + 1] - t0);
  const float s = 1.0f - u;
  WideRotations wide;
  // The fraction's and the weight's tests once for the pose. t on a key (u = 0), or u
  // rounded up to 1, takes put_linear's general path: rotations take the key itself.
  if (!(u > 0.0f && u < 1.0f)) {
    put_all<kWeights, false, Put::kAny>(channels, k, u, s, w, pose, wide);
  } else if (w >= 1.0f) {
    put_all<kWeights, true, Put::kSet>(channels, k, u, s, w, pose, wide);
  } else {
    put_all<kWeights, true, Put::kMix>(channels, k, u, s, w, pose, wide);
  }
  wide.run(w);
  const auto key = static_cast<uint32_t>(k);
  if constexpr (kWeights) {
    for (size_t c = first; c < channels.size(); ++c) {
      if (channels[c].property != Property::kWeights) cursors[c] = key;
    }
  } else {
    std::fill(cursors, cursors + channels.size(), key);
  }
}

// The channels of a plain layer (weight w, no mask, override) over pose, with the
// layer's cursors. kHoldRoot: the channels of joint root_joint take the general sampler
// and hold(property, value) (root motion); every other channel, and every channel of a
// layer that holds nothing, the fast path below. kMorph: kWeights channels are skipped
// (sample_layer_weights); without it the clip has none (Rig::create).
template <bool kHoldRoot, bool kMorph, typename Hold>
void sample_plain(const Clip& clip, float t, uint32_t* cursors, std::span<Trs> pose, float w,
                  int root_joint, const Hold& hold) {
  const std::span<const Channel> channels = clip.channels();
  if constexpr (!kHoldRoot) {
    const std::span<const float> times = clip.shared_linear_times();
    // linear_interior's test: more than one key, t strictly inside them.
    if (times.size() > 1 && t > times[0] && t < times.back()) {
      if (kMorph && clip.has_weights()) {
        sample_shared<true>(channels, times, t, cursors, pose, w);
      } else {
        sample_shared<false>(channels, times, t, cursors, pose, w);
      }
      return;
    }
  }
  WideRotations wide;
  // A LINEAR channel whose times[k] and times[k + 1] have the bits of the bracket
  // found for the channel before it reuses that key search and fraction u. Key times
  // are strictly ascending, so k is then its own bracket as well, t lies inside its
  // keys, and find_key and (t - t0) / (t1 - t0) would give the same k and u: the same
  // bits as sample(). This holds whether the channels share one times array
  // (Clip::add_channel shares equal ones; then the pointer says it at once, given that
  // k + 1 is inside this channel's keys) or each has its own (a pack's views).
  const float* times = nullptr;  // the previous channel's times when it bracketed t
  size_t k = 0;
  float u = 0.0f, s = 1.0f;
  uint32_t t0 = 0, t1 = 0;  // bits of its times[k] and times[k + 1]
  for (size_t c = 0; c < channels.size(); ++c) {
    const Channel& ch = channels[c];
    if constexpr (kMorph) {
      if (ch.property == Property::kWeights) continue;  // sample_layer_weights
    }
    Trs& target = pose[ch.joint];
    if constexpr (kHoldRoot) {
      if (ch.joint == root_joint) {
        times = nullptr;
        Vec4 v = kernel::sample(ch, t, &cursors[c]);
        hold(ch.property, v);
        if (ch.property == Property::kRotation) wide.before_writing(target.rotation, w);
        if (w >= 1.0f) {
          set_property(target, ch.property, v);
        } else {
          blend_property(target, ch.property, v, w);
        }
        continue;
      }
    }
    if (times != nullptr && ch.interpolation == Interpolation::kLinear && k + 1 < ch.times.size() &&
        (ch.times.data() == times || (std::bit_cast<uint32_t>(ch.times[k]) == t0 &&
                                      std::bit_cast<uint32_t>(ch.times[k + 1]) == t1))) {
      cursors[c] = static_cast<uint32_t>(k);
    } else if (kernel::linear_interior(ch, t, &cursors[c], &k, &u)) {
      times = ch.times.data();
      t0 = std::bit_cast<uint32_t>(ch.times[k]);
      t1 = std::bit_cast<uint32_t>(ch.times[k + 1]);
      s = 1.0f - u;
    } else {
      times = nullptr;
      const Vec4 v = kernel::sample_general(ch, t, &cursors[c]);
      if (ch.property == Property::kRotation) wide.before_writing(target.rotation, w);
      if (w >= 1.0f) {
        set_property(target, ch.property, v);
      } else {
        blend_property(target, ch.property, v, w);
      }
      continue;
    }
    put_linear(ch, k, u, s, w, target, wide);
  }
  wide.run(w);
}

// sample_plain without a held root.
struct NoHold {
  void operator()(Property, Vec4&) const {}
};

}  // namespace

// A plain layer (weight, no mask, override): sample_plain with the layer's weight and
// cursors, holding the root's extracted parts when kHoldRoot (root motion).
template <bool kHoldRoot, bool kMorph>
void Animator::sample_layer_plain(Layer& layer, float t, std::span<Trs> pose) {
  const Clip& clip = rig_->clips()[layer.clip];
  if constexpr (kHoldRoot) {
    const auto hold = [this, &layer](Property p, Vec4& v) { hold_root(layer, p, v); };
    sample_plain<true, kMorph>(clip, t, layer.cursors, pose, layer.weight, root_config_.joint,
                               hold);
  } else {
    sample_plain<false, kMorph>(clip, t, layer.cursors, pose, layer.weight, -1, NoHold{});
  }
}

void sample_pose(const Clip& clip, float t, std::span<uint32_t> cursors, std::span<Trs> pose) {
  sample_plain<false, true>(clip, t, cursors.data(), pose, 1.0f, -1, NoHold{});
}

// Whether `clip` has exactly one translation, one rotation and one scale channel for
// every joint of the skeleton (morph weights channels aside): then a layer of it writes
// every value of a pose exactly once, whatever it held before. One pass over the
// channels, when a layer is made.
bool Animator::keys_pose(uint16_t clip) {
  const auto channels = rig_->clips()[clip].channels();
  if (keyed_.empty()) return false;
  std::fill(keyed_.begin(), keyed_.end(), static_cast<uint8_t>(0));
  size_t count = 0;
  for (const Channel& ch : channels) {
    if (ch.property == Property::kWeights) continue;
    if (ch.joint >= keyed_.size()) return false;
    const uint8_t bit = ch.property == Property::kTranslation ? 1
                        : ch.property == Property::kRotation  ? 2
                                                              : 4;
    if ((keyed_[ch.joint] & bit) != 0) return false;  // keyed twice: order matters
    keyed_[ch.joint] = static_cast<uint8_t>(keyed_[ch.joint] | bit);
    ++count;
  }
  return count == 3 * keyed_.size();
}

// A plain layer at full weight over a whole-pose clip: sampling it sets every value of
// the pose, so what the pose held before (a rest pose copy) is never read.
bool Animator::sets_pose(const Layer& layer) const {
  return layer.keys_pose && layer.mask == nullptr && layer.mode == LayerMode::kOverride &&
         layer.weight >= 1.0f;
}

// sample_layer(), with the same bits: a plain layer of weight 0 < w < 1 over a
// whole-pose clip is sampled at full weight into layer_pose_ and mixed over `pose` by
// blend_poses, four joints per register. Each value of the pose is mixed exactly once
// either way, by the same lerp / nlerp of the same two values (the per-channel mix
// (blend_property, put_rotation) is lerp4 / nlerp4 of the pose's value and the sampled
// one, as blend_poses is), so only the order of the independent joints changes.
void Animator::mix_layer(Layer& layer, int64_t tick, std::span<Trs> pose, std::span<float> weights,
                         double fraction) {
  const float w = layer.weight;
  if (!(layer.keys_pose && layer.mask == nullptr && layer.mode == LayerMode::kOverride &&
        w > 0.0f && w < 1.0f)) {
    sample_layer(layer, tick, pose, weights, fraction);
    return;
  }
  const float t = static_cast<float>(mapped(layer, unwrapped(layer, tick, fraction)));
  const bool morph = !weights.empty();
  // Sampled at full weight (sets every value of layer_pose_); its weight is put back
  // before the morph weights, which it mixes in channel by channel.
  layer.weight = 1.0f;
  if (root_held(layer)) {
    if (morph) {
      sample_layer_plain<true, true>(layer, t, layer_pose_);
    } else {
      sample_layer_plain<true, false>(layer, t, layer_pose_);
    }
  } else if (morph) {
    sample_layer_plain<false, true>(layer, t, layer_pose_);
  } else {
    sample_layer_plain<false, false>(layer, t, layer_pose_);
  }
  layer.weight = w;
  kernel::blend_poses(pose.data(), layer_pose_.data(), pose.size(), w);
  if (morph) sample_layer_weights(layer, t, weights);
}

void Animator::evaluate(int64_t tick) { evaluate_at(tick, 0.0); }

Result<void> Animator::evaluate(int64_t tick, float fraction) {
  if (rig_ == nullptr) return Error::make(ErrorCode::kInvalidArgument, "no rig");
  if (!(fraction >= 0.0f && fraction < 1.0f)) {  // false for NaN
    return Error::make(ErrorCode::kInvalidArgument, "sub-tick fraction %g is not in [0, 1)",
                       static_cast<double>(fraction));
  }
  evaluate_at(tick, static_cast<double>(fraction));
  return ok();
}

void Animator::evaluate_at(int64_t tick, double fraction) {
  const auto rest = rig_->skeleton().rest_pose();
  int full = -1;
  for (int m = mix_count_ - 1; m >= 0; --m) {
    if (fade_weight(m, tick, fraction) >= 1.0f) {
      full = m;
      break;
    }
  }
  // The rest pose under the layers, unless the first layer sets every value anyway.
  if (full < 0 || mixes_[full].layer_count == 0 || !sets_pose(mixes_[full].layers[0])) {
    std::copy(rest.begin(), rest.end(), locals_.begin());
  }
  // Morph weights go the same way as the joints, from the sets' defaults (empty spans
  // for a rig without morph sets).
  const std::span<float> weights = morph_weights_;
  const std::span<float> mix_weights = morph_mix_;
  std::copy(morph_defaults_.begin(), morph_defaults_.end(), weights.begin());
  if (full >= 0) {
    Mix& mix = mixes_[full];
    for (int l = 0; l < mix.layer_count; ++l) {
      mix_layer(mix.layers[l], tick, locals_, weights, fraction);
    }
  }
  for (int m = full + 1; m < mix_count_; ++m) {
    Mix& mix = mixes_[m];
    if (mix.layer_count == 0 || !sets_pose(mix.layers[0])) {
      std::copy(rest.begin(), rest.end(), mix_pose_.begin());
    }
    std::copy(morph_defaults_.begin(), morph_defaults_.end(), mix_weights.begin());
    for (int l = 0; l < mix.layer_count; ++l) {
      mix_layer(mix.layers[l], tick, mix_pose_, mix_weights, fraction);
    }
    const float w = fade_weight(m, tick, fraction);
    kernel::blend_poses(locals_.data(), mix_pose_.data(), locals_.size(), w);
    blend_weights(weights, mix_weights, w);
  }
  for (int o = 0; o < overlay_count_; ++o) {
    mix_layer(overlays_[o], tick, locals_, weights, fraction);
  }
  if (morph_override_count_ > 0) {
    for (size_t i = 0; i < weights.size(); ++i) {
      if (morph_overridden_[i] != 0) weights[i] = morph_override_[i];
    }
  }
  // local_to_global and global_to_palette in one pass (sizes were fixed at create()).
  kernel::local_to_palette(rig_->skeleton(), locals_, globals_, palette_);
}

}  // namespace animpack

namespace animpack {

Result<void> Animator::set_morph_weight(uint32_t target, float weight) {
  if (rig_ == nullptr || target >= morph_weights_.size()) {
    return Error::make(ErrorCode::kUnknownMorphTarget,
                       "no morph target %u in this rig (it has %zu)", target,
                       morph_weights_.size());
  }
  if (!(weight >= -kMaxMorphWeight && weight <= kMaxMorphWeight)) {  // false for NaN
    return Error::make(ErrorCode::kBadWeight, "morph weight %g is not finite in [-%g, %g]",
                       static_cast<double>(weight), static_cast<double>(kMaxMorphWeight),
                       static_cast<double>(kMaxMorphWeight));
  }
  if (morph_overridden_[target] == 0) ++morph_override_count_;
  morph_overridden_[target] = 1;
  morph_override_[target] = weight;
  return ok();
}

Result<void> Animator::set_morph_weight(std::string_view target, float weight) {
  if (rig_ == nullptr) return Error::make(ErrorCode::kInvalidArgument, "no rig");
  Result<uint32_t> index = rig_->find_morph_target(target);
  if (!index) return index.error();
  return set_morph_weight(*index, weight);
}

Result<void> Animator::clear_morph_weight(std::string_view target) {
  if (rig_ == nullptr) return Error::make(ErrorCode::kInvalidArgument, "no rig");
  Result<uint32_t> index = rig_->find_morph_target(target);
  if (!index) return index.error();
  if (morph_overridden_[*index] != 0) --morph_override_count_;
  morph_overridden_[*index] = 0;
  return ok();
}

void Animator::clear_morph_weights() {
  std::fill(morph_overridden_.begin(), morph_overridden_.end(), static_cast<uint8_t>(0));
  morph_override_count_ = 0;
}

void Animator::refresh_palette() {
  if (rig_ == nullptr) return;
  (void)global_to_palette(rig_->skeleton(), globals_, palette_);
}

}  // namespace animpack

// Root motion (root_motion.h): the hold in the pose, the tracks read by play position, the
// shares and take_root_motion().
namespace animpack {
namespace {

// A track position (1/65536 samples) never goes past this: no overflow in 2 * span.
constexpr int64_t kMaxTrackPosition = int64_t{1} << 62;

int64_t sat_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return (a > 0) == (b > 0) ? INT64_MAX : INT64_MIN;
  return r;
}

// The track's cumulative motion at position `pos` (1/65536 samples, unwrapped) under a
// playback: loops add the pass total per pass, ping-pong reads the track backwards on
// its way back, once holds its end; between samples interpolated in integers.
void track_value(std::span<const RootMotionSample> s, Playback playback, int64_t pos,
                 int64_t out[4]) {
  const int64_t n = static_cast<int64_t>(s.size()) - 1;
  const int64_t span = n << 16;
  int64_t passes = 0;
  int64_t r = pos < 0 ? 0 : pos;
  switch (playback) {
    case Playback::kOnce:
      r = std::min(r, span);
      break;
    case Playback::kLoop:
      passes = r / span;
      r %= span;
      break;
    case Playback::kPingPong: {
      const int64_t p = r % (2 * span);
      r = p <= span ? p : 2 * span - p;
      break;
    }
  }
  const size_t i = static_cast<size_t>(r >> 16);
  const int64_t f = r & 0xffff;
  const RootMotionSample& a = s[i];
  const RootMotionSample& b = f > 0 ? s[i + 1] : a;
  const RootMotionSample& last = s[static_cast<size_t>(n)];
  const int64_t av[4] = {a.x, a.y, a.z, a.yaw};
  const int64_t bv[4] = {b.x, b.y, b.z, b.yaw};
  const int64_t lv[4] = {last.x, last.y, last.z, last.yaw};
  for (int c = 0; c < 4; ++c) {
    const int64_t within = av[c] + (((bv[c] - av[c]) * f + 32768) >> 16);
    out[c] = sat_add(sat_mul(passes, lv[c]), within);
  }
}

}  // namespace

Result<void> Animator::set_root_motion(const RootMotionConfig& config,
                                       std::span<const RootMotionTrack> tracks) {
  if (rig_ == nullptr) return Error::make(ErrorCode::kInvalidArgument, "no rig");
  const Skeleton& skeleton = rig_->skeleton();
  if (Result<void> r = config.validate(skeleton); !r) return r.error();
  const auto clips = rig_->clips();
  if (config.policy == RootMotionPolicy::kOff) {
    if (!tracks.empty() && tracks.size() != clips.size()) {
      return Error::make(ErrorCode::kSizeMismatch,
                         "root motion takes one track per clip (%zu) or none, not %zu",
                         clips.size(), tracks.size());
    }
  } else if (config.policy == RootMotionPolicy::kAccumulate || !tracks.empty()) {
    if (tracks.size() != clips.size()) {
      return Error::make(ErrorCode::kSizeMismatch,
                         "root motion policy %s takes one track per clip (%zu), not %zu",
                         root_motion_policy_name(config.policy), clips.size(), tracks.size());
    }
  }
  for (size_t c = 0; c < tracks.size(); ++c) {
    if (Result<void> r = check_root_motion_track(clips[c], config, tracks[c]); !r) {
      return r.error();
    }
  }
  root_config_ = config;
  root_pending_ = {};
  for (bool& set : root_from_set_) set = false;
  if (config.policy == RootMotionPolicy::kOff) {
    root_tracks_.clear();
    root_clips_.clear();
    return ok();
  }
  root_tracks_.assign(tracks.begin(), tracks.end());
  if (config.policy != RootMotionPolicy::kAccumulate) root_tracks_.clear();

  // A, A^-1 and the yaw's local axis, in double, kept as float for the hold.
  const rm::DAffine parent = rm::parent_rest_global(skeleton, config.joint);
  const rm::D33 a_inv = rm::inverse(parent.l);
  for (int c = 0; c < 3; ++c) {
    const rm::D3 col = parent.l.c[c], inv = a_inv.c[c];
    root_a_[c * 3 + 0] = static_cast<float>(col.x);
    root_a_[c * 3 + 1] = static_cast<float>(col.y);
    root_a_[c * 3 + 2] = static_cast<float>(col.z);
    root_a_inv_[c * 3 + 0] = static_cast<float>(inv.x);
    root_a_inv_[c * 3 + 1] = static_cast<float>(inv.y);
    root_a_inv_[c * 3 + 2] = static_cast<float>(inv.z);
  }
  root_up_ = config.up;
  const rm::D3 axis = rm::local_axis(parent.l, rm::d3(config.up));
  root_axis_ =
      Vec3{static_cast<float>(axis.x), static_cast<float>(axis.y), static_cast<float>(axis.z)};

  const bool moves = (config.extract & (kExtractHorizontal | kExtractVertical)) != 0;
  const bool turns = (config.extract & kExtractYaw) != 0;
  const Trs& rest = skeleton.rest_pose()[static_cast<size_t>(config.joint)];
  root_clips_.assign(clips.size(), RootClip{});
  for (size_t c = 0; c < clips.size(); ++c) {
    RootClip& rc = root_clips_[c];
    rc.t0 = rest.translation;
    Quat q0 = rest.rotation;
    bool translation = false, rotation = false;
    for (const Channel& ch : clips[c].channels()) {
      if (ch.joint != config.joint) continue;
      uint32_t cursor = 0;
      const Vec4 v = sample(ch, 0.0f, &cursor);
      if (ch.property == Property::kTranslation) {
        rc.t0 = {v.x, v.y, v.z};
        translation = true;
      } else if (ch.property == Property::kRotation) {
        q0 = normalize(Quat{v.x, v.y, v.z, v.w});
        rotation = true;
      }
    }
    rc.q0_inv = Quat{-q0.x, -q0.y, -q0.z, q0.w};
    rc.keys_root = translation || rotation;
    rc.hold = clips[c].additive() == AdditiveReference::kNone &&
              ((moves && translation) || (turns && rotation));
  }
  return ok();
}

bool Animator::root_held(const Layer& layer) const {
  return !root_clips_.empty() && layer.mode == LayerMode::kOverride && root_clips_[layer.clip].hold;
}

// The root's value as the pose plays it: translation t0 + A^-1 (what is not extracted of
// A (t - t0)), rotation without the yaw since t = 0 (root_motion.h).
void Animator::hold_root(const Layer& layer, Property property, Vec4& v) const {
  const RootClip& rc = root_clips_[layer.clip];
  const uint8_t extract = root_config_.extract;
  const float* a = root_a_;
  const float* ai = root_a_inv_;
  if (property == Property::kTranslation &&
      (extract & (kExtractHorizontal | kExtractVertical)) != 0) {
    const Vec3 t{v.x - rc.t0.x, v.y - rc.t0.y, v.z - rc.t0.z};
    const Vec3 d{a[0] * t.x + a[3] * t.y + a[6] * t.z, a[1] * t.x + a[4] * t.y + a[7] * t.z,
                 a[2] * t.x + a[5] * t.y + a[8] * t.z};
    const Vec3 u = root_up_;
    const float along = d.x * u.x + d.y * u.y + d.z * u.z;
    const Vec3 vert{u.x * along, u.y * along, u.z * along};
    const Vec3 horiz{d.x - vert.x, d.y - vert.y, d.z - vert.z};
    Vec3 k{0, 0, 0};  // kept: what is not extracted
    if ((extract & kExtractHorizontal) == 0) k = horiz;
    if ((extract & kExtractVertical) == 0) k = vert;
    const Vec3 back{ai[0] * k.x + ai[3] * k.y + ai[6] * k.z,
                    ai[1] * k.x + ai[4] * k.y + ai[7] * k.z,
                    ai[2] * k.x + ai[5] * k.y + ai[8] * k.z};
    v = Vec4{rc.t0.x + back.x, rc.t0.y + back.y, rc.t0.z + back.z, 0.0f};
  } else if (property == Property::kRotation && (extract & kExtractYaw) != 0) {
    const Quat q{v.x, v.y, v.z, v.w};
    const Quat r = q * rc.q0_inv;
    const Vec3 x = root_axis_;
    float p = r.x * x.x + r.y * x.y + r.z * x.z;
    float w = r.w;
    if (w < 0.0f) {
      p = -p;
      w = -w;
    }
    const float n = det::sqrt(p * p + w * w);
    if (!(n > 0.0f)) return;  // a half-turn swing: no twist to take out
    const Quat untwist{-x.x * p / n, -x.y * p / n, -x.z * p / n, w / n};
    const Quat held = untwist * q;
    v = Vec4{held.x, held.y, held.z, held.w};
  }
}

int64_t Animator::root_position(const Layer& layer, int64_t tick) const {
  if (root_tracks_.empty()) return 0;
  const auto samples = root_tracks_[layer.clip].samples;
  if (samples.size() < 2) return 0;
  const double d = clip_seconds(rig_->clips()[layer.clip].duration());
  if (!(d > 0.0)) return 0;
  const double n = static_cast<double>(samples.size() - 1);
  const double pos = std::round(unwrapped(layer, tick) / d * n * 65536.0);
  return clamp_to_int64(pos, 0, kMaxTrackPosition);
}

// The layer's track is read from its position at `tick` on: the start of a layer, a
// set_start (no motion for the jump) or a set_playback (keep_carry: the motion root_carry
// kept up to `tick`).
void Animator::root_restart(const Layer& layer, int64_t tick, bool keep_carry) {
  const size_t s = static_cast<size_t>(layer.slot);
  root_from_[s] = root_position(layer, tick);
  root_from_set_[s] = true;
  if (!keep_carry) {
    for (int64_t& c : root_carry_[s]) c = 0;
  }
}

// Keeps the motion since the previous advance up to `tick` before a layer's play
// position is remapped (set_playback).
void Animator::root_carry(const Layer& layer, int64_t tick) {
  if (root_tracks_.empty() || layer.mode != LayerMode::kOverride) return;
  const auto samples = root_tracks_[layer.clip].samples;
  const size_t s = static_cast<size_t>(layer.slot);
  if (samples.size() < 2 || !root_from_set_[s]) return;
  int64_t from[4], to[4];
  track_value(samples, layer.playback, root_from_[s], from);
  track_value(samples, layer.playback, root_position(layer, tick), to);
  for (int c = 0; c < 4; ++c) root_carry_[s][c] = sat_add(root_carry_[s][c], to[c] - from[c]);
}

// A layer's weight at the root joint: weight times its mask there.
float Animator::root_weight(const Layer& layer) const {
  const float w = layer.weight;
  return layer.mask != nullptr ? w * layer.mask[root_config_.joint] : w;
}

// Adds a layer's track motion since its previous advance, scaled by `share` rounded to
// 1/65536, to step (1/65536 units), and moves its position on.
void Animator::collect_root_layer(const Layer& layer, int64_t tick, double share, int64_t step[4]) {
  if (layer.mode != LayerMode::kOverride) return;
  const auto samples = root_tracks_[layer.clip].samples;
  if (samples.size() < 2) return;
  const size_t s = static_cast<size_t>(layer.slot);
  const int64_t pos = root_position(layer, tick);
  if (!root_from_set_[s]) {
    root_from_[s] = pos;
    root_from_set_[s] = true;
  }
  int64_t from[4], to[4];
  track_value(samples, layer.playback, root_from_[s], from);
  track_value(samples, layer.playback, pos, to);
  const int64_t q = clamp_to_int64(std::round(share * 65536.0), 0, 65536);
  for (int c = 0; c < 4; ++c) {
    const int64_t delta = sat_add(to[c] - from[c], root_carry_[s][c]);
    step[c] = sat_add(step[c], sat_mul(delta, q));
    root_carry_[s][c] = 0;
  }
  root_from_[s] = pos;
}

// The motion of every override layer since the previous advance, each by its share of
// the root joint in the pose at `tick` (root_motion.h), turned by the yaw not yet taken.
void Animator::collect_root_motion(int64_t tick, int full) {
  int64_t step[4] = {0, 0, 0, 0};
  double above = 1.0;  // what the overlays (and mixes) above leave of the root
  for (int o = overlay_count_ - 1; o >= 0; --o) {
    const Layer& l = overlays_[o];
    if (l.mode != LayerMode::kOverride) continue;
    const double w = static_cast<double>(root_weight(l));
    collect_root_layer(l, tick, w * above, step);
    if (root_clips_[l.clip].keys_root) above *= 1.0 - w;
  }
  for (int m = mix_count_ - 1; m >= 0; --m) {
    const Mix& mix = mixes_[m];
    const double f = m < full ? 0.0 : (m == full ? 1.0 : static_cast<double>(mix_weight(m, tick)));
    const double mix_share = m < full ? 0.0 : f * above;
    double later = 1.0;  // what the mix's later override layers leave
    for (int i = mix.layer_count - 1; i >= mix.shared; --i) {
      const Layer& l = mix.layers[i];
      if (l.mode != LayerMode::kOverride) continue;
      const double w = static_cast<double>(root_weight(l));
      collect_root_layer(l, tick, mix_share * w * later, step);
      if (root_clips_[l.clip].keys_root) later *= 1.0 - w;
    }
    double sum = 0.0;
    for (int i = 0; i < mix.shared; ++i) sum += static_cast<double>(mix.layers[i].share);
    for (int i = 0; i < mix.shared; ++i) {
      const Layer& l = mix.layers[i];
      const double s = sum > 0.0 ? static_cast<double>(l.share) / sum : 0.0;
      collect_root_layer(l, tick, mix_share * s * later, step);
    }
    if (m >= full) above *= 1.0 - f;
  }
  // Steps after some yaw are turned by it: the pending delta stays in the frame of the
  // previous take_root_motion(). No yaw: exact integers.
  RootMotionDelta& p = root_pending_;
  if (p.yaw != 0 && (step[0] != 0 || step[1] != 0 || step[2] != 0)) {
    const double angle = static_cast<double>(p.yaw) / 65536.0 /
                         static_cast<double>(kYawUnitsPerTurn) * (2.0 * det::kPi);
    const rm::D3 v = rm::rotate_about(
        {static_cast<double>(step[0]), static_cast<double>(step[1]), static_cast<double>(step[2])},
        rm::d3(root_up_), angle);
    const double r[3] = {v.x, v.y, v.z};
    for (int c = 0; c < 3; ++c) {
      step[c] = clamp_to_int64(std::round(r[c]), INT64_MIN, INT64_MAX);
    }
  }
  p.x = sat_add(p.x, step[0]);
  p.y = sat_add(p.y, step[1]);
  p.z = sat_add(p.z, step[2]);
  p.yaw = sat_add(p.yaw, step[3]);
}

RootMotionDelta Animator::take_root_motion() {
  if (root_config_.policy != RootMotionPolicy::kAccumulate) return {};
  // Whole units out (to nearest), the fraction kept for the next call.
  const auto whole = [](int64_t& q16) {
    const int64_t units = sat_add(q16, 32768) >> 16;
    q16 -= units * 65536;
    return units;
  };
  RootMotionDelta d;
  d.x = whole(root_pending_.x);
  d.y = whole(root_pending_.y);
  d.z = whole(root_pending_.z);
  d.yaw = whole(root_pending_.yaw);
  return d;
}

}  // namespace animpack
