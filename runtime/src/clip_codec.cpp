#include "clip_codec.h"

#include <cstring>

#include "animpack/scalar.h"

namespace animpack::clip_codec {

float pow2(int e) {
  // A normal float's bits: biased exponent, zero mantissa (e >= -126 by the ranges).
  const uint32_t bits = static_cast<uint32_t>(e + 127) << 23;
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

void quat_decode(const QuatCode& code, float step, float out[4]) {
  const float a = grid_decode(code.c[0], step);
  const float b = grid_decode(code.c[1], step);
  const float c = grid_decode(code.c[2], step);
  const float d = 1.0f - (a * a + b * b) - c * c;
  float w = d > 0.0f ? det::sqrt(d) : 0.0f;
  if (code.negative != 0) w = -w;
  int k = 0;
  const float others[3] = {a, b, c};
  for (int i = 0; i < 4; ++i) out[i] = i == code.index ? w : others[k++];
}

bool BitReader::read(int bits, uint32_t* out) {
  *out = 0;
  if (bits < 0 || bits > 32 || static_cast<size_t>(bits) > bits_left()) return false;
  uint64_t v = 0;
  for (int i = 0; i < bits;) {
    const size_t byte = position_ >> 3;
    const int shift = static_cast<int>(position_ & 7);
    const int take = (8 - shift) < (bits - i) ? (8 - shift) : (bits - i);
    const uint64_t chunk = (static_cast<uint64_t>(bytes_[byte]) >> shift) & ((1u << take) - 1u);
    v |= chunk << i;
    i += take;
    position_ += static_cast<size_t>(take);
  }
  *out = static_cast<uint32_t>(v);
  return true;
}

float progression_time(double t0, double dt, uint32_t k) {
  return static_cast<float>(t0 + static_cast<double>(k) * dt);
}

}  // namespace animpack::clip_codec

namespace animpack::clip_codec {

void planes_to_floats(const uint8_t* raw, size_t keys, size_t stride, int order, float* out) {
  const size_t n = keys * stride;
  for (size_t l = 0; l < stride; ++l) {
    uint32_t previous[2] = {0, 0};  // bits of keys k-1 and k-2
    for (size_t k = 0; k < keys; ++k) {
      const size_t i = l * keys + k;
      const uint32_t word = static_cast<uint32_t>(raw[i]) |
                            (static_cast<uint32_t>(raw[n + i]) << 8) |
                            (static_cast<uint32_t>(raw[2 * n + i]) << 16) |
                            (static_cast<uint32_t>(raw[3 * n + i]) << 24);
      uint32_t prediction = 0;
      if (k > 0 && order > 0)
        prediction = (order == 1 || k == 1) ? previous[0] : 2u * previous[0] - previous[1];
      const uint32_t bits = prediction + word;
      std::memcpy(&out[k * stride + l], &bits, sizeof bits);
      previous[1] = previous[0];
      previous[0] = bits;
    }
  }
}

bool decode_lossy(const LossyChannel& ch, std::span<const uint8_t> stream, size_t keys, float* out,
                  const char** why) {
  const size_t lanes = lossy_lanes(ch.rotation, ch.width, ch.groups);
  if (ch.lane_min.size() != lanes || ch.lane_bits.size() != lanes) {
    *why = "lane count";
    return false;
  }
  uint64_t bits_per_key = ch.rotation ? 3 : 0;
  for (size_t l = 0; l < lanes; ++l) {
    if (ch.lane_bits[l] > 31) {
      *why = "lane bit width over 31";
      return false;
    }
    bits_per_key += ch.lane_bits[l];
  }
  if (stream.size() != (static_cast<uint64_t>(keys) * bits_per_key + 7) / 8) {
    *why = "stream size";
    return false;
  }
  const int64_t quat_limit = int64_t{1} << ch.rotation_bits;
  const float grid_step = pow2(ch.grid_exponent);
  const float quat_step = pow2(-ch.rotation_bits);
  const size_t value_group = ch.groups == 3 ? 1 : 0;
  BitReader in(stream);
  size_t at = 0;
  for (size_t k = 0; k < keys; ++k) {
    size_t lane = 0;
    for (size_t g = 0; g < ch.groups; ++g) {
      const bool quat = ch.rotation && g == value_group;
      uint32_t header = 0;
      if (quat && !in.read(3, &header)) {
        *why = "stream size";
        return false;
      }
      const size_t n = quat ? 3 : ch.width;
      int32_t codes[3] = {0, 0, 0};
      for (size_t i = 0; i < n; ++i, ++lane) {
        uint32_t v = 0;
        if (!in.read(ch.lane_bits[lane], &v)) {
          *why = "stream size";
          return false;
        }
        const int64_t code = int64_t{ch.lane_min[lane]} + int64_t{v};
        const int64_t limit = quat ? quat_limit : int64_t{kMaxGridCode};
        if (code < -limit || code > limit) {
          *why = "a code out of range";
          return false;
        }
        if (quat)
          codes[i] = static_cast<int32_t>(code);
        else
          out[at + i] = grid_decode(static_cast<int32_t>(code), grid_step);
      }
      if (quat) {
        QuatCode q;
        q.index = static_cast<uint8_t>(header & 3u);
        q.negative = static_cast<uint8_t>((header >> 2) & 1u);
        q.c[0] = codes[0];
        q.c[1] = codes[1];
        q.c[2] = codes[2];
        quat_decode(q, quat_step, &out[at]);
      }
      at += ch.width;
    }
  }
  return true;
}

}  // namespace animpack::clip_codec
