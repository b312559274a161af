#include "clip_encode.h"

#include <lz4hc.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "clip_lossy.h"

namespace animpack::clip_encode {
namespace {

uint32_t bits_of(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

bool same_bits(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
}

// Whether t = float(start + k * step) for every k, bit for bit.
bool reproduces(std::span<const float> t, double start, double step) {
  for (size_t k = 0; k < t.size(); ++k)
    if (bits_of(clip_codec::progression_time(start, step, static_cast<uint32_t>(k))) !=
        bits_of(t[k]))
      return false;
  return true;
}

Track make_track(std::span<const float> t) {
  Track track;
  track.count = static_cast<uint32_t>(t.size());
  if (t.size() >= 3) {
    const double start = static_cast<double>(t[0]);
    const double n = static_cast<double>(t.size() - 1);
    const double candidates[2] = {(static_cast<double>(t.back()) - start) / n,
                                  static_cast<double>(t[1]) - start};
    for (double step : candidates) {
      if (reproduces(t, start, step)) {
        track.progression = true;
        track.start = start;
        track.step = step;
        return track;
      }
    }
    // Frames at a whole rate: step 1 / fps.
    const double fps = std::nearbyint(1.0 / (static_cast<double>(t[1]) - start));
    if (fps >= 1.0 && fps <= 100000.0 && reproduces(t, start, 1.0 / fps)) {
      track.progression = true;
      track.start = start;
      track.step = 1.0 / fps;
      return track;
    }
  }
  track.times.assign(t.begin(), t.end());
  return track;
}

uint64_t track_bytes(const Track& t) { return t.progression ? 16 : uint64_t{t.count} * 4; }

int bits_for(uint64_t max_value) {
  int b = 0;
  while (b < 32 && (max_value >> b) != 0) ++b;
  return b;
}

class BitWriter {
 public:
  void write(uint32_t v, int bits) {
    for (int i = 0; i < bits; ++i) {
      if ((position_ & 7) == 0) bytes_.push_back(0);
      if ((v >> i) & 1u)
        bytes_.back() = static_cast<uint8_t>(bytes_.back() | (1u << (position_ & 7)));
      ++position_;
    }
  }
  std::vector<uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
  size_t position_ = 0;
};

std::vector<uint8_t> planes(std::span<const float> v, size_t stride, int order) {
  const size_t n = v.size();
  const size_t keys = n / stride;
  std::vector<uint8_t> raw(n * 4);
  std::vector<uint32_t> lane(keys);
  for (size_t l = 0; l < stride; ++l) {
    for (size_t k = 0; k < keys; ++k) lane[k] = bits_of(v[k * stride + l]);
    for (size_t k = 0; k < keys; ++k) {
      const uint32_t d = lane[k] - clip_codec::planes_prediction(lane.data(), k, order);
      for (size_t p = 0; p < 4; ++p) raw[p * n + l * keys + k] = static_cast<uint8_t>(d >> (8 * p));
    }
  }
  std::vector<uint8_t> packed(static_cast<size_t>(LZ4_compressBound(static_cast<int>(raw.size()))));
  const int size = LZ4_compress_HC(
      reinterpret_cast<const char*>(raw.data()), reinterpret_cast<char*>(packed.data()),
      static_cast<int>(raw.size()), static_cast<int>(packed.size()), LZ4HC_CLEVEL_MAX);
  packed.resize(size > 0 ? static_cast<size_t>(size) : 0);
  return packed;
}

// The smallest of Raw, Planes, Planes2 and Planes0 (the earlier on a tie).
void encode_exact(const Channel& ch, EncodedChannel* out) {
  out->codec = Codec::kRaw;
  out->data.resize(ch.values.size() * 4);
  if (!ch.values.empty()) std::memcpy(out->data.data(), ch.values.data(), out->data.size());
  if (ch.times.empty()) return;
  const size_t stride = ch.values.size() / ch.times.size();
  for (int order : {1, 2, 0}) {
    std::vector<uint8_t> p = planes(ch.values, stride, order);
    if (!p.empty() && p.size() < out->data.size()) {
      out->codec = order == 1 ? Codec::kPlanes : order == 2 ? Codec::kPlanes2 : Codec::kPlanes0;
      out->data = std::move(p);
    }
  }
}

void encode_lossy(const Channel& ch, const clip_codec::LossyPrecision& precision,
                  EncodedChannel* out) {
  const bool rotation = ch.property == Property::kRotation;
  const size_t width = static_cast<size_t>(channel_width(ch));
  const size_t groups = ch.interpolation == Interpolation::kCubicSpline ? 3 : 1;
  const size_t value_group = groups == 3 ? 1 : 0;
  const size_t lanes = clip_codec::lossy_lanes(rotation, width, groups);
  const int exponent = clip_lossy::grid_exponent(precision, ch.property);
  const size_t keys = ch.times.size();
  std::vector<int32_t> codes(keys * lanes);
  std::vector<uint8_t> headers(keys * groups);
  for (size_t k = 0; k < keys; ++k) {
    size_t lane = 0;
    for (size_t g = 0; g < groups; ++g) {
      const float* v = &ch.values[(k * groups + g) * width];
      if (rotation && g == value_group) {
        const clip_codec::QuatCode q = clip_lossy::quat_encode(v, precision.rotation_bits);
        headers[k * groups + g] = static_cast<uint8_t>(q.index | (q.negative << 2));
        for (int i = 0; i < 3; ++i) codes[k * lanes + lane++] = q.c[i];
      } else {
        for (size_t i = 0; i < width; ++i)
          codes[k * lanes + lane++] = clip_lossy::grid_encode(v[i], exponent);
      }
    }
  }
  out->lane_min.assign(lanes, 0);
  out->lane_bits.assign(lanes, 0);
  for (size_t l = 0; l < lanes; ++l) {
    int32_t lo = codes[l], hi = codes[l];
    for (size_t k = 0; k < keys; ++k) {
      lo = std::min(lo, codes[k * lanes + l]);
      hi = std::max(hi, codes[k * lanes + l]);
    }
    out->lane_min[l] = lo;
    out->lane_bits[l] = static_cast<uint8_t>(
        bits_for(static_cast<uint64_t>(static_cast<int64_t>(hi) - static_cast<int64_t>(lo))));
  }
  BitWriter w;
  for (size_t k = 0; k < keys; ++k) {
    size_t lane = 0;
    for (size_t g = 0; g < groups; ++g) {
      const bool quat = rotation && g == value_group;
      if (quat) w.write(headers[k * groups + g], 3);
      for (size_t i = 0; i < (quat ? 3 : width); ++i, ++lane) {
        const int64_t d = static_cast<int64_t>(codes[k * lanes + lane]) - out->lane_min[lane];
        w.write(static_cast<uint32_t>(d), out->lane_bits[lane]);
      }
    }
  }
  out->codec = Codec::kLossy;
  out->data = w.take();
}

}  // namespace

EncodedClip encode_clip(const Clip& clip) {
  EncodedClip out;
  const bool lossy = clip.storage().compression == ClipCompression::kLossy;
  if (lossy) out.precision = clip_lossy::precision_for(clip.storage());
  // Distinct time arrays, longest first (first appearance among equals): each either a
  // track of its own or, where cheaper, indices into a longer track holding all its times.
  const auto channels = clip.channels();
  std::vector<std::span<const float>> distinct;
  std::vector<size_t> channel_array(channels.size());
  for (size_t c = 0; c < channels.size(); ++c) {
    size_t d = 0;
    while (d < distinct.size() && !same_bits(distinct[d], channels[c].times)) ++d;
    if (d == distinct.size()) distinct.push_back(channels[c].times);
    channel_array[c] = d;
  }
  std::vector<size_t> order(distinct.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return distinct[a].size() > distinct[b].size(); });
  struct Placement {
    uint32_t track = 0;
    std::vector<uint32_t> indices;  // empty: the whole track
  };
  std::vector<Placement> placement(distinct.size());
  std::vector<size_t> track_array;  // which distinct array each track holds
  for (size_t d : order) {
    const std::span<const float> t = distinct[d];
    const Track own = make_track(t);
    bool placed = false;
    for (size_t tr = 0; tr < track_array.size() && !placed; ++tr) {
      const std::span<const float> big = distinct[track_array[tr]];
      std::vector<uint32_t> idx;
      size_t j = 0;
      for (float time : t) {
        while (j < big.size() && bits_of(big[j]) != bits_of(time)) ++j;
        if (j == big.size()) break;
        idx.push_back(static_cast<uint32_t>(j++));
      }
      if (idx.size() != t.size()) continue;
      const int bits = bits_for(big.size() - 1);
      if (clip_codec::bit_bytes(idx.size(), bits) < track_bytes(own)) {
        placement[d] = Placement{static_cast<uint32_t>(tr), std::move(idx)};
        placed = true;
      }
    }
    if (!placed) {
      placement[d].track = static_cast<uint32_t>(out.tracks.size());
      out.tracks.push_back(own);
      track_array.push_back(d);
    }
  }
  for (const Track& t : out.tracks) out.stored_bytes += track_bytes(t);
  for (size_t c = 0; c < channels.size(); ++c) {
    const Channel& ch = channels[c];
    const Placement& p = placement[channel_array[c]];
    EncodedChannel e;
    e.track = p.track;
    if (!p.indices.empty()) {
      const int bits = std::max(1, bits_for(out.tracks[p.track].count - 1));
      e.key_bits = static_cast<uint8_t>(bits);
      e.key_count = static_cast<uint32_t>(p.indices.size());
      BitWriter w;
      for (uint32_t i : p.indices) w.write(i, bits);
      e.keys = w.take();
    }
    if (lossy)
      encode_lossy(ch, out.precision, &e);
    else
      encode_exact(ch, &e);
    out.stored_bytes += e.keys.size() + e.data.size() + e.lane_min.size() * 4 + e.lane_bits.size();
    out.channels.push_back(std::move(e));
  }
  return out;
}

}  // namespace animpack::clip_encode
