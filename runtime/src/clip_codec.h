// Clip key codec of pack format 6 (docs/pack-format.md, "Clip keys"): the decoding half,
// shared by Pack::open and the compiler's encoder (compiler/src/clip_quantize.cpp), so that
// what the cooker measures is what the runtime plays. Integer operations and IEEE + - * /
// sqrt only: a lossy clip decodes to the same bits on every platform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace animpack::clip_codec {

// Grid exponents of a lossy clip: a translation, scale or weight component is stored as an
// integer code c and decodes to float(c) * 2^exponent; a rotation's three smallest
// components as codes on 2^-rotation_bits.
struct LossyPrecision {
  int translation_exponent = -16;
  int rotation_bits = 15;
  int scale_exponent = -16;
  int weights_exponent = -16;
};

// The grid ranges a pack may name (refused outside them).
inline constexpr int kMinGridExponent = -30;
inline constexpr int kMaxGridExponent = 0;
inline constexpr int kMinRotationBits = 6;
inline constexpr int kMaxRotationBits = 15;
// Codes of translation, scale and weight components lie in [-kMaxGridCode, kMaxGridCode].
inline constexpr int32_t kMaxGridCode = (int32_t{1} << 30) - 1;

// 2^e exactly, for kMinGridExponent - kMaxRotationBits <= e <= kMaxGridExponent.
float pow2(int e);

// float(code) * 2^exponent.
inline float grid_decode(int32_t code, float step) { return static_cast<float>(code) * step; }

// A unit quaternion by its three smallest components: `index` (0..3, x y z w) is the
// component left out, `negative` its sign; c[] the other three in order, codes on
// 2^-bits (|code| <= 2^bits). The left-out component decodes to +-sqrt(1 - (a*a + b*b) -
// c*c), 0 where that is not positive.
struct QuatCode {
  uint8_t index = 0;
  uint8_t negative = 0;
  int32_t c[3] = {0, 0, 0};
};
void quat_decode(const QuatCode& code, float step, float out[4]);

// Bit streams: values of `bits` bits (0..32) one after the other, least significant bit
// first, in little-endian bytes.
class BitReader {
 public:
  explicit BitReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  // False where fewer than `bits` bits are left (out is then 0).
  bool read(int bits, uint32_t* out);
  size_t bits_left() const { return bytes_.size() * 8 - position_; }

 private:
  std::span<const uint8_t> bytes_;
  size_t position_ = 0;
};

// The bytes `count` values of `bits` bits take.
inline size_t bit_bytes(uint64_t count, int bits) {
  return static_cast<size_t>((count * static_cast<uint64_t>(bits) + 7) / 8);
}

// Times of a track stored as an arithmetic progression: t_k = float(t0 + double(k) * dt)
// with doubles (the writer keeps a progression only where this reproduces every time).
float progression_time(double t0, double dt, uint32_t k);

}  // namespace animpack::clip_codec

namespace animpack::clip_codec {

// Lanes of a lossy channel's key (one code each): a rotation's value is a 3-bit header
// (index, sign) and three lanes, every other group of `width` floats `width` lanes.
// groups: 3 for cubic spline (in-tangent, value, out-tangent), else 1.
inline size_t lossy_lanes(bool rotation, size_t width, size_t groups) {
  if (!rotation) return width * groups;
  return groups == 3 ? 4 + 3 + 4 : 3;
}

// Undoes the Planes codecs: `raw` holds 4 * keys * stride bytes, four byte planes of
// lane-major words (lane l of key k at l * keys + k); word (l, k) is the bits of lane l's
// float at key k minus a prediction, wrapping: order 0 none, order 1 the previous key's bits, order
// 2 2 * b[k-1] - b[k-2] (the previous key's for k = 1), 0 for the first key.
void planes_to_floats(const uint8_t* raw, size_t keys, size_t stride, int order, float* out);

// The prediction of planes_to_floats for key k from the lane's earlier bits.
inline uint32_t planes_prediction(const uint32_t* earlier, size_t k, int order) {
  if (k == 0 || order == 0) return 0;
  if (order == 1 || k == 1) return earlier[k - 1];
  return 2u * earlier[k - 1] - earlier[k - 2];
}

// Decodes a lossy channel's keys (`keys` keys, `groups` groups of `width` floats each) from
// its bit stream into out (keys * groups * width floats). False where the stream's size,
// a lane's width or a code's range is wrong (then *why names it).
struct LossyChannel {
  bool rotation = false;
  size_t width = 0;
  size_t groups = 1;
  int grid_exponent = 0;  // of every lane but a rotation value's
  int rotation_bits = 0;
  std::span<const int32_t> lane_min;
  std::span<const uint8_t> lane_bits;
};
bool decode_lossy(const LossyChannel& channel, std::span<const uint8_t> stream, size_t keys,
                  float* out, const char** why);

}  // namespace animpack::clip_codec
