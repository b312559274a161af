#include "animpack/animator.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "animpack/limits.h"
#include "kernels.h"
#include "math_inline.h"

namespace animpack {
namespace {

using kernel::v4;

constexpr int kSlots = kMaxMixes * kMaxLayers;

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
    pairs_[count_] = keys;
    targets_[count_++] = &rotation;
  }
  // Runs the batch if it holds `rotation`, which is about to be written.
  void before_writing(const Quat& rotation, float w) {
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
  int count_ = 0;
};

void set_property(Trs& a, Property p, const Vec4& v) {
  switch (p) {
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

void blend_trs(Trs& a, const Trs& b, float w) {
  if (w >= 1.0f) {
    a = b;
    return;
  }
  if (w <= 0.0f) return;
  // lerp, nlerp, lerp as in math.h, four lanes at a time.
  using kernel::load3, kernel::load_q;
  kernel::store3(a.translation, kernel::lerp4(load3(a.translation), load3(b.translation), w));
  kernel::store_q(a.rotation, kernel::nlerp4(load_q(a.rotation), load_q(b.rotation), w));
  kernel::store3(a.scale, kernel::lerp4(load3(a.scale), load3(b.scale), w));
}

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
  Animator a;
  a.rig_ = rig;
  a.tick_rate_ = tick_rate;
  const size_t joints = static_cast<size_t>(rig->skeleton().joint_count());
  a.cursor_pool_.assign(
      static_cast<size_t>(kSlots) * static_cast<size_t>(std::max(1, rig->max_channel_count())), 0u);
  a.locals_.assign(rig->skeleton().rest_pose().begin(), rig->skeleton().rest_pose().end());
  a.mix_pose_ = a.locals_;
  a.globals_.resize(joints);
  a.palette_.resize(joints);
  uint32_t capacity = options.event_capacity;
  if (capacity == 0) {
    capacity = static_cast<uint32_t>(std::max(16, 2 * kMaxRepeats * rig->max_event_count()));
  }
  a.events_.resize(capacity);
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
  return ok();
}

int Animator::free_slot() const {
  for (int s = 0; s < kSlots; ++s) {
    if (!slot_used_[s]) return s;
  }
  return -1;  // unreachable: at most kMaxMixes * kMaxLayers layers exist
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
  slot_used_[slot] = true;
  l.cursors = cursor_pool_.data() +
              static_cast<size_t>(slot) * (cursor_pool_.size() / static_cast<size_t>(kSlots));
  return l;
}

void Animator::release_mix(int mix) {
  Mix& m = mixes_[mix];
  const size_t per_slot = cursor_pool_.size() / static_cast<size_t>(kSlots);
  for (int i = 0; i < m.layer_count; ++i) {
    const size_t slot = static_cast<size_t>(m.layers[i].cursors - cursor_pool_.data()) / per_slot;
    slot_used_[slot] = false;
  }
  m.layer_count = 0;
}

void Animator::stop() {
  for (int m = 0; m < mix_count_; ++m) release_mix(m);
  mix_count_ = 0;
}

Result<LayerId> Animator::play(uint16_t clip, int64_t tick, const PlayOptions& options) {
  if (Result<void> r = check_clip(clip, options); !r) return r.error();
  stop();
  Mix& m = mixes_[0];
  m.layers[0] = make_layer(clip, tick, options, 1.0f, free_slot());
  m.layer_count = 1;
  m.fade_start = tick;
  m.fade_ticks = 0;
  mix_count_ = 1;
  return LayerId{m.layers[0].id};
}

Result<LayerId> Animator::play(std::string_view clip, int64_t tick, const PlayOptions& options) {
  Result<uint16_t> c = rig_->find_clip(clip);
  if (!c) return c.error();
  return play(*c, tick, options);
}

Result<LayerId> Animator::crossfade(uint16_t clip, double seconds, int64_t tick,
                                    const PlayOptions& options) {
  if (Result<void> r = check_clip(clip, options); !r) return r.error();
  if (!(seconds >= 0.0 && seconds <= kMaxFadeSeconds)) {
    return Error::make(ErrorCode::kInvalidArgument, "fade of %g seconds is not in [0, %g]", seconds,
                       kMaxFadeSeconds);
  }
  const double ticks = std::round(seconds * static_cast<double>(tick_rate_));
  const auto fade_ticks = static_cast<int32_t>(clamp_to_int64(ticks, 0, 1000000000));
  if (mix_count_ == kMaxMixes) {
    release_mix(0);
    for (int m = 1; m < mix_count_; ++m) mixes_[m - 1] = mixes_[m];
    --mix_count_;
  }
  Mix& m = mixes_[mix_count_];
  m.layers[0] = make_layer(clip, tick, options, 1.0f, free_slot());
  m.layer_count = 1;
  m.fade_start = tick;
  m.fade_ticks = fade_ticks;
  ++mix_count_;
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
  if (Result<void> r = check_clip(clip, options); !r) return r.error();
  if (!(weight >= 0.0f && weight <= 1.0f)) {
    return Error::make(ErrorCode::kBadWeight, "blend weight %g is not in [0, 1]",
                       static_cast<double>(weight));
  }
  if (mix_count_ == 0) {
    return Error::make(ErrorCode::kNothingPlaying, "nothing plays to blend clip '%s' over",
                       rig_->clips()[clip].name().c_str());
  }
  Mix& m = mixes_[mix_count_ - 1];
  if (m.layer_count == kMaxLayers) {
    return Error::make(ErrorCode::kTooManyLayers, "a mix holds at most %d layers", kMaxLayers);
  }
  m.layers[m.layer_count] = make_layer(clip, tick, options, weight, free_slot());
  return LayerId{m.layers[m.layer_count++].id};
}

Result<LayerId> Animator::blend(std::string_view clip, float weight, int64_t tick,
                                const PlayOptions& options) {
  Result<uint16_t> c = rig_->find_clip(clip);
  if (!c) return c.error();
  return blend(*c, weight, tick, options);
}

Result<LayerId> Animator::play_blend(std::span<const BlendEntry> entries, int64_t tick,
                                     const PlayOptions& options) {
  if (entries.empty() || entries.size() > static_cast<size_t>(kMaxLayers)) {
    return Error::make(ErrorCode::kInvalidArgument, "play_blend takes 1 to %d clips, not %zu",
                       kMaxLayers, entries.size());
  }
  for (const BlendEntry& e : entries) {
    if (Result<void> r = check_clip(e.clip, options); !r) return r.error();
    if (!(std::isfinite(e.weight) && e.weight > 0.0f)) {
      return Error::make(ErrorCode::kBadWeight, "blend weight %g of clip '%s' is not positive",
                         static_cast<double>(e.weight), rig_->clips()[e.clip].name().c_str());
    }
  }
  stop();
  Mix& m = mixes_[0];
  // Layer i mixes over layers 0..i-1 by w_i / (w_0 + ... + w_i): then each clip's share
  // of the result is w_i / sum(w).
  double sum = 0.0;
  for (size_t i = 0; i < entries.size(); ++i) {
    sum += static_cast<double>(entries[i].weight);
    const float w =
        i == 0 ? 1.0f : static_cast<float>(static_cast<double>(entries[i].weight) / sum);
    m.layers[i] = make_layer(entries[i].clip, tick, options, w, free_slot());
  }
  m.layer_count = static_cast<int>(entries.size());
  m.fade_start = tick;
  m.fade_ticks = 0;
  mix_count_ = 1;
  return LayerId{m.layers[0].id};
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
  return nullptr;
}

const Animator::Layer* Animator::find_layer(LayerId id) const {
  return const_cast<Animator*>(this)->find_layer(id, nullptr);
}

double Animator::unwrapped(const Layer& layer, int64_t tick) const {
  const double ticks = tick > layer.base_tick ? ticks_since(tick, layer.base_tick) : 0.0;
  return layer.offset + ticks * static_cast<double>(layer.speed) / static_cast<double>(tick_rate_);
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

double Animator::mapped(const Layer& layer, double u) const {
  const double d = clip_seconds(rig_->clips()[layer.clip].duration());
  if (!(d > 0.0)) return 0.0;
  switch (layer.playback) {
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

Result<void> Animator::set_speed(LayerId id, float speed, int64_t tick) {
  Layer* l = find_layer(id);
  if (!l) return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not playing", id.value);
  if (!valid_speed(speed)) {
    return Error::make(ErrorCode::kBadSpeed, "speed %g is not in [0, %g]",
                       static_cast<double>(speed), static_cast<double>(kMaxSpeed));
  }
  l->offset = unwrapped(*l, tick);
  l->base_tick = tick;
  l->speed = speed;
  return ok();
}

Result<void> Animator::set_start(LayerId id, double seconds, int64_t tick) {
  Layer* l = find_layer(id);
  if (!l) return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not playing", id.value);
  if (!valid_start(seconds)) {
    return Error::make(ErrorCode::kBadStart, "start %g s is not in [0, %g]", seconds,
                       kMaxStartSeconds);
  }
  l->offset = seconds;
  l->base_tick = tick;
  l->events_from = seconds;
  l->events_inclusive = true;
  return ok();
}

Result<void> Animator::set_playback(LayerId id, Playback playback, int64_t tick) {
  Layer* l = find_layer(id);
  if (!l) return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not playing", id.value);
  if (static_cast<uint8_t>(playback) > 2) {
    return Error::make(ErrorCode::kInvalidArgument, "unknown playback %u",
                       unsigned{static_cast<uint8_t>(playback)});
  }
  // Continue from the clip time shown now; keep the stretch not yet delivered as events.
  const double u = unwrapped(*l, tick);
  const double now = mapped(*l, u);
  const double pending = u - l->events_from;
  l->offset = now;
  l->base_tick = tick;
  l->playback = playback;
  l->events_from = std::max(0.0, now - pending);
  return ok();
}

Result<void> Animator::set_weight(LayerId id, float weight) {
  Layer* l = find_layer(id);
  if (!l) return Error::make(ErrorCode::kNoSuchLayer, "layer %u is not playing", id.value);
  if (!(weight >= 0.0f && weight <= 1.0f)) {
    return Error::make(ErrorCode::kBadWeight, "weight %g is not in [0, 1]",
                       static_cast<double>(weight));
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

int Animator::layer_count(int mix) const {
  return mix >= 0 && mix < mix_count_ ? mixes_[mix].layer_count : 0;
}

float Animator::mix_weight(int mix, int64_t tick) const {
  if (mix < 0 || mix >= mix_count_) return 0.0f;
  const Mix& m = mixes_[mix];
  if (m.fade_ticks <= 0) return 1.0f;
  if (tick <= m.fade_start) return 0.0f;
  const double w = ticks_since(tick, m.fade_start) / static_cast<double>(m.fade_ticks);
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

std::span<const AnimEvent> Animator::advance(int64_t tick) {
  event_count_ = 0;
  for (int m = 0; m < mix_count_; ++m) {
    Mix& mix = mixes_[m];
    for (int l = 0; l < mix.layer_count; ++l) {
      Layer& layer = mix.layers[l];
      collect_events(layer, static_cast<uint8_t>(m), static_cast<uint8_t>(l), tick);
      if (tick >= layer.base_tick) {
        layer.events_from = unwrapped(layer, tick);
        layer.events_inclusive = false;
      }
    }
  }
  // Retire the mixes under the newest fully faded-in one.
  int full = -1;
  for (int m = mix_count_ - 1; m >= 0; --m) {
    if (mix_weight(m, tick) >= 1.0f) {
      full = m;
      break;
    }
  }
  if (full > 0) {
    for (int m = 0; m < full; ++m) release_mix(m);
    for (int m = full; m < mix_count_; ++m) mixes_[m - full] = mixes_[m];
    mix_count_ -= full;
  }
  return {events_.data(), event_count_};
}

void Animator::sample_layer(Layer& layer, int64_t tick, std::span<Trs> pose) {
  const Clip& clip = rig_->clips()[layer.clip];
  const float t = static_cast<float>(mapped(layer, unwrapped(layer, tick)));
  const float w = layer.weight;
  if (w <= 0.0f) return;
  const auto channels = clip.channels();
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
    Trs& target = pose[ch.joint];
    if (times != nullptr && ch.interpolation == Interpolation::kLinear && k + 1 < ch.times.size() &&
        (ch.times.data() == times || (std::bit_cast<uint32_t>(ch.times[k]) == t0 &&
                                      std::bit_cast<uint32_t>(ch.times[k + 1]) == t1))) {
      layer.cursors[c] = static_cast<uint32_t>(k);
    } else if (kernel::linear_interior(ch, t, &layer.cursors[c], &k, &u)) {
      times = ch.times.data();
      t0 = std::bit_cast<uint32_t>(ch.times[k]);
      t1 = std::bit_cast<uint32_t>(ch.times[k + 1]);
      s = 1.0f - u;
    } else {
      times = nullptr;
      const Vec4 v = kernel::sample_general(ch, t, &layer.cursors[c]);
      if (ch.property == Property::kRotation) wide.before_writing(target.rotation, w);
      if (w >= 1.0f) {
        set_property(target, ch.property, v);
      } else {
        blend_property(target, ch.property, v, w);
      }
      continue;
    }
    // LINEAR between keys k and k + 1: the value (kernel::linear_value), then set or
    // mixed in by w (set_property / blend_property), in registers.
    if (ch.property == Property::kRotation) {
      const kernel::SlerpPair keys = kernel::rotation_keys(ch.values.data() + 4 * k, u);
      wide.before_writing(target.rotation, w);
      v4 q;
      if (kernel::rotation_narrow(keys, u, s, &q)) {
        put_rotation(target.rotation, q, w);
      } else {
        wide.add(keys, target.rotation, w);
      }
    } else {
      v4 v = kernel::linear_vec3(ch.values.data() + 3 * k, u, s);
      Vec3& dst = ch.property == Property::kTranslation ? target.translation : target.scale;
      if (w < 1.0f) v = kernel::lerp4(kernel::load3(dst), v, w);
      kernel::store3(dst, v);
    }
  }
  wide.run(w);
}

void Animator::evaluate(int64_t tick) {
  const auto rest = rig_->skeleton().rest_pose();
  int full = -1;
  for (int m = mix_count_ - 1; m >= 0; --m) {
    if (mix_weight(m, tick) >= 1.0f) {
      full = m;
      break;
    }
  }
  std::copy(rest.begin(), rest.end(), locals_.begin());
  if (full >= 0) {
    Mix& mix = mixes_[full];
    for (int l = 0; l < mix.layer_count; ++l) sample_layer(mix.layers[l], tick, locals_);
  }
  for (int m = full + 1; m < mix_count_; ++m) {
    Mix& mix = mixes_[m];
    std::copy(rest.begin(), rest.end(), mix_pose_.begin());
    for (int l = 0; l < mix.layer_count; ++l) sample_layer(mix.layers[l], tick, mix_pose_);
    const float w = mix_weight(m, tick);
    for (size_t j = 0; j < locals_.size(); ++j) blend_trs(locals_[j], mix_pose_[j], w);
  }
  // local_to_global and global_to_palette in one pass (sizes were fixed at create()).
  kernel::local_to_palette(rig_->skeleton(), locals_, globals_, palette_);
}

}  // namespace animpack
