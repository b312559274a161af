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
