// Channel sampling after the glTF 2.0 specification, section 3.11 "Animations" and
// Appendix C "Interpolation" (step, linear with slerp, cubic Hermite spline).
#include "animpack/clip.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "animpack/limits.h"
#include "kernels.h"
#include "math_inline.h"

namespace animpack {

const char* property_name(Property p) {
  switch (p) {
    case Property::kTranslation:
      return "translation";
    case Property::kRotation:
      return "rotation";
    case Property::kScale:
      return "scale";
    case Property::kWeights:
      return "weights";
  }
  return "?";
}

const char* interpolation_name(Interpolation i) {
  switch (i) {
    case Interpolation::kStep:
      return "STEP";
    case Interpolation::kLinear:
      return "LINEAR";
    case Interpolation::kCubicSpline:
      return "CUBICSPLINE";
  }
  return "?";
}

const char* playback_name(Playback p) {
  switch (p) {
    case Playback::kLoop:
      return "loop";
    case Playback::kOnce:
      return "once";
    case Playback::kPingPong:
      return "ping_pong";
  }
  return "?";
}

const char* additive_reference_name(AdditiveReference r) {
  switch (r) {
    case AdditiveReference::kNone:
      return "none";
    case AdditiveReference::kFirstFrame:
      return "first_frame";
    case AdditiveReference::kRestPose:
      return "rest_pose";
  }
  return "?";
}

void Clip::add_owned(Channel channel, std::span<const float> times, std::span<const float> values) {
  const auto equal = [times](std::span<const float> other) {
    return other.size() == times.size() && std::equal(times.begin(), times.end(), other.begin());
  };
  if (!channels_.empty() && equal(channels_.back().times)) {
    channel.times = channels_.back().times;  // share the previous channel's key times
  } else if (has_joint_channels_ && equal(shared_times_)) {
    channel.times = shared_times_;  // or the first joint channel's
  } else {
    owned_keys_.emplace_back(times.begin(), times.end());
    channel.times = owned_keys_.back();
  }
  owned_keys_.emplace_back(values.begin(), values.end());
  channel.values = owned_keys_.back();
  add_channel_view(channel);
}

void Clip::add_channel(uint16_t joint, Property property, Interpolation interpolation,
                       std::span<const float> times, std::span<const float> values) {
  add_owned(Channel{joint, property, interpolation, {}, {}, 0}, times, values);
}

void Clip::add_weights_channel(uint16_t set, uint16_t width, Interpolation interpolation,
                               std::span<const float> times, std::span<const float> values) {
  add_owned(Channel{set, Property::kWeights, interpolation, {}, {}, width}, times, values);
}

void Clip::add_channel_view(const Channel& channel) {
  if (channel.property == Property::kWeights) {
    has_weights_ = true;
  } else if (!has_joint_channels_) {
    has_joint_channels_ = true;
    shared_times_ = channel.times;
    shared_linear_ = channel.interpolation == Interpolation::kLinear && !channel.times.empty();
  } else if (channel.interpolation != Interpolation::kLinear ||
             channel.times.data() != shared_times_.data() ||
             channel.times.size() != shared_times_.size()) {
    shared_linear_ = false;
  }
  channels_.push_back(channel);
  if (!channel.times.empty()) duration_ = std::max(duration_, channel.times.back());
}

Clip Clip::copy() const {
  Clip out(name_);
  for (const Channel& ch : channels_) out.add_owned(ch, ch.times, ch.values);
  for (const ClipEvent& e : events_) out.add_event(e.name, e.time);
  out.extend_duration(duration_);
  out.additive_ = additive_;
  out.storage_ = storage_;
  return out;
}

void Clip::extend_duration(float seconds) { duration_ = std::max(duration_, seconds); }

void Clip::add_event(std::string name, float time) {
  auto at = std::upper_bound(events_.begin(), events_.end(), time,
                             [](float t, const ClipEvent& e) { return t < e.time; });
  events_.insert(at, ClipEvent{std::move(name), time});
}

Result<void> Clip::validate(int joint_count, std::span<const uint16_t> morph_widths) const {
  // Which morph sets a weights channel already animates (allocated only for a clip that has
  // weights channels: validate runs at setup).
  std::vector<uint8_t> set_seen;
  for (size_t c = 0; c < channels_.size(); ++c) {
    const Channel& ch = channels_[c];
    const char* clip = name_.c_str();
    if (ch.property == Property::kWeights) {
      if (ch.joint >= morph_widths.size() || ch.width == 0 || ch.width != morph_widths[ch.joint]) {
        return Error::make(ErrorCode::kBadClip,
                           "clip '%s' channel %zu: weights of morph set %u (width %u) of %zu", clip,
                           c, unsigned{ch.joint}, unsigned{ch.width}, morph_widths.size());
      }
      if (set_seen.empty()) set_seen.assign(morph_widths.size(), 0);
      if (set_seen[ch.joint] != 0) {
        return Error::make(ErrorCode::kBadClip,
                           "clip '%s' channel %zu: a second weights channel of morph set %u", clip,
                           c, unsigned{ch.joint});
      }
      set_seen[ch.joint] = 1;
    } else if (ch.joint >= joint_count) {
      return Error::make(ErrorCode::kBadClip, "clip '%s' channel %zu: joint %u of %d", clip, c,
                         unsigned{ch.joint}, joint_count);
    }
    if (static_cast<uint8_t>(ch.property) > 3 || static_cast<uint8_t>(ch.interpolation) > 2) {
      return Error::make(ErrorCode::kBadClip,
                         "clip '%s' channel %zu: bad property or interpolation", clip, c);
    }
    const size_t keys = ch.times.size();
    if (keys == 0) {
      return Error::make(ErrorCode::kBadClip, "clip '%s' channel %zu has no keys", clip, c);
    }
    const size_t per_key = static_cast<size_t>(channel_width(ch)) *
                           (ch.interpolation == Interpolation::kCubicSpline ? 3u : 1u);
    if (ch.values.size() != keys * per_key) {
      return Error::make(ErrorCode::kBadClip,
                         "clip '%s' channel %zu: %zu values for %zu keys of %zu", clip, c,
                         ch.values.size(), keys, per_key);
    }
    for (size_t k = 0; k < keys; ++k) {
      const float t = ch.times[k];
      if (!std::isfinite(t) || t < 0.0f || (k > 0 && !(t > ch.times[k - 1]))) {
        return Error::make(ErrorCode::kBadClip,
                           "clip '%s' channel %zu: key time %zu is not finite, non-negative and "
                           "ascending",
                           clip, c, k);
      }
      if (t > kMaxClipSeconds) {
        return Error::make(ErrorCode::kBadClip,
                           "clip '%s' channel %zu: key time %zu (%g s) is after %g s", clip, c, k,
                           static_cast<double>(t), static_cast<double>(kMaxClipSeconds));
      }
    }
    for (float v : ch.values) {
      if (!std::isfinite(v)) {
        return Error::make(ErrorCode::kBadClip, "clip '%s' channel %zu has a non-finite value",
                           clip, c);
      }
    }
  }
  if (duration_ > 0.0f && duration_ < kMinClipSeconds) {
    return Error::make(ErrorCode::kBadClip, "clip '%s' lasts %g s, under %g s (or exactly 0)",
                       name_.c_str(), static_cast<double>(duration_),
                       static_cast<double>(kMinClipSeconds));
  }
  for (size_t e = 0; e < events_.size(); ++e) {
    const float t = events_[e].time;
    if (!std::isfinite(t) || t < 0.0f || t > duration_) {
      return Error::make(ErrorCode::kBadClip, "clip '%s' event '%s' at %g is outside [0, %g]",
                         name_.c_str(), events_[e].name.c_str(), static_cast<double>(t),
                         static_cast<double>(duration_));
    }
  }
  return ok();
}

namespace {

Vec4 load(const float* p, int width) {
  return width == 4 ? Vec4{p[0], p[1], p[2], p[3]} : Vec4{p[0], p[1], p[2], 0.0f};
}

// The value (not a tangent) of key k.
Vec4 key_value(const Channel& ch, size_t k, int width) {
  const size_t stride = static_cast<size_t>(width);
  if (ch.interpolation == Interpolation::kCubicSpline) {
    return load(ch.values.data() + (3 * k + 1) * stride, width);
  }
  return load(ch.values.data() + k * stride, width);
}

}  // namespace

namespace {

// The first `count` (at most ch.width) weights of a kWeights channel at clip time t: step
// and linear per weight (a (1 - u) + b u, as lerp), cubic spline per weight as
// sample_general's Hermite sum; no normalisation.
void sample_weights_n(const Channel& ch, float t, uint32_t* cursor, float* out, size_t count) {
  const size_t width = ch.width;
  const size_t n = ch.times.size();
  const bool cubic = ch.interpolation == Interpolation::kCubicSpline;
  // Key k's values (not its tangents).
  const auto value = [&](size_t k) {
    return ch.values.data() + (cubic ? (3 * k + 1) * width : k * width);
  };
  const auto copy = [&](const float* p) { std::copy(p, p + count, out); };
  if (n == 1 || !(t > ch.times[0])) {
    *cursor = 0;
    return copy(value(0));
  }
  if (t >= ch.times[n - 1]) {
    *cursor = static_cast<uint32_t>(n - 1);
    return copy(value(n - 1));
  }
  const size_t k = kernel::find_key_fast(ch.times.data(), n, t, cursor);
  if (ch.interpolation == Interpolation::kStep) return copy(value(k));
  const float t0 = ch.times[k];
  const float td = ch.times[k + 1] - t0;
  const float u = (t - t0) / td;
  if (!cubic) {
    const float s = 1.0f - u;
    const float* a = value(k);
    const float* b = value(k + 1);
    for (size_t i = 0; i < count; ++i) out[i] = a[i] * s + b[i] * u;
    return;
  }
  const float* key0 = ch.values.data() + 3 * k * width;        // in, value, out of key k
  const float* key1 = ch.values.data() + 3 * (k + 1) * width;  // in, value, out of key k+1
  const float u2 = u * u;
  const float u3 = u2 * u;
  const float h00 = 2.0f * u3 - 3.0f * u2 + 1.0f;
  const float h10 = u3 - 2.0f * u2 + u;
  const float h01 = -2.0f * u3 + 3.0f * u2;
  const float h11 = u3 - u2;
  for (size_t i = 0; i < count; ++i) {
    const float p0 = key0[width + i];
    const float m0 = key0[2 * width + i] * td;
    const float p1 = key1[width + i];
    const float m1 = key1[i] * td;
    out[i] = h00 * p0 + h10 * m0 + h01 * p1 + h11 * m1;
  }
}

}  // namespace

Vec4 sample(const Channel& ch, float t, uint32_t* cursor) {
  if (ch.property == Property::kWeights) {
    // Not for joints; safe all the same: the first (up to) four weights.
    float w[4] = {0, 0, 0, 0};
    sample_weights_n(ch, t, cursor, w, std::min<size_t>(4, ch.width));
    return {w[0], w[1], w[2], w[3]};
  }
  return kernel::sample(ch, t, cursor);
}

void sample_weights(const Channel& ch, float t, uint32_t* cursor, std::span<float> out) {
  sample_weights_n(ch, t, cursor, out.data(), std::min<size_t>(out.size(), ch.width));
}

Vec4 kernel::sample_general(const Channel& ch, float t, uint32_t* cursor) {
  const int width = property_width(ch.property);
  const size_t n = ch.times.size();
  if (n == 1 || !(t > ch.times[0])) {
    *cursor = 0;
    return key_value(ch, 0, width);
  }
  if (t >= ch.times[n - 1]) {
    *cursor = static_cast<uint32_t>(n - 1);
    return key_value(ch, n - 1, width);
  }
  const size_t k = kernel::find_key_fast(ch.times.data(), n, t, cursor);
  if (ch.interpolation == Interpolation::kStep) return key_value(ch, k, width);

  const float t0 = ch.times[k];
  const float td = ch.times[k + 1] - t0;
  const float u = (t - t0) / td;
  const bool rotation = ch.property == Property::kRotation;

  if (ch.interpolation == Interpolation::kLinear) {
    const Vec4 a = key_value(ch, k, width);
    const Vec4 b = key_value(ch, k + 1, width);
    if (rotation) {
      const Quat q = slerp(Quat{a.x, a.y, a.z, a.w}, Quat{b.x, b.y, b.z, b.w}, u);
      return {q.x, q.y, q.z, q.w};
    }
    const Vec3 v = inl::lerp(Vec3{a.x, a.y, a.z}, Vec3{b.x, b.y, b.z}, u);
    return {v.x, v.y, v.z, 0.0f};
  }

  // Cubic spline: p(u) = (2u^3 - 3u^2 + 1) p0 + (u^3 - 2u^2 + u) m0
  //                    + (-2u^3 + 3u^2) p1 + (u^3 - u^2) m1,
  // m0 = td * out-tangent of key k, m1 = td * in-tangent of key k + 1.
  const size_t stride = static_cast<size_t>(width);
  const float* key0 = ch.values.data() + 3 * k * stride;        // in, value, out of key k
  const float* key1 = ch.values.data() + 3 * (k + 1) * stride;  // in, value, out of key k+1
  const float u2 = u * u;
  const float u3 = u2 * u;
  const float h00 = 2.0f * u3 - 3.0f * u2 + 1.0f;
  const float h10 = u3 - 2.0f * u2 + u;
  const float h01 = -2.0f * u3 + 3.0f * u2;
  const float h11 = u3 - u2;
  float out[4] = {0, 0, 0, 0};
  for (int i = 0; i < width; ++i) {
    const float p0 = key0[stride + static_cast<size_t>(i)];
    const float m0 = key0[2 * stride + static_cast<size_t>(i)] * td;
    const float p1 = key1[stride + static_cast<size_t>(i)];
    const float m1 = key1[static_cast<size_t>(i)] * td;
    out[i] = h00 * p0 + h10 * m0 + h01 * p1 + h11 * m1;
  }
  if (rotation) {
    const Quat q = normalize(Quat{out[0], out[1], out[2], out[3]});
    return {q.x, q.y, q.z, q.w};
  }
  return {out[0], out[1], out[2], 0.0f};
}

}  // namespace animpack
