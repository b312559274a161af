#include "animpack/compiler/clip_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "animpack/limits.h"
#include "clip_lossy.h"

namespace animpack {
namespace clip_lossy {
namespace {

using clip_codec::QuatCode;

// The largest e in [lo, hi] with 2^e <= target (lo where none is).
int exponent_at_most(double target, int lo, int hi) {
  if (!(target > 0.0) || !std::isfinite(target)) return std::isinf(target) ? hi : lo;
  int e = hi;
  while (e > lo && static_cast<double>(clip_codec::pow2(e)) > target) --e;
  return e;
}

bool same(const QuatCode& a, const QuatCode& b) {
  return a.index == b.index && a.negative == b.negative && a.c[0] == b.c[0] && a.c[1] == b.c[1] &&
         a.c[2] == b.c[2];
}

QuatCode with_index(const float q[4], int index, int bits) {
  QuatCode code;
  code.index = static_cast<uint8_t>(index);
  code.negative = std::signbit(q[index]) ? 1 : 0;
  const double scale = static_cast<double>(clip_codec::pow2(bits));
  const int64_t limit = int64_t{1} << bits;
  int k = 0;
  for (int i = 0; i < 4; ++i) {
    if (i == index) continue;
    const double r = std::nearbyint(static_cast<double>(q[i]) * scale);
    code.c[k++] = static_cast<int32_t>(clamp_to_int64(r, -limit, limit));
  }
  return code;
}

int largest(const float q[4]) {
  int best = 0;
  for (int i = 1; i < 4; ++i)
    if (std::fabs(q[i]) > std::fabs(q[best])) best = i;
  return best;
}

QuatCode natural(const float q[4], int bits) { return with_index(q, largest(q), bits); }

bool stable(const QuatCode& code, int bits) {
  float y[4];
  clip_codec::quat_decode(code, clip_codec::pow2(-bits), y);
  return same(natural(y, bits), code);
}

}  // namespace

clip_codec::LossyPrecision precision_for(const ClipStorage& storage) {
  const double tolerance = static_cast<double>(
      std::isfinite(storage.precision) && storage.precision > 0.0f ? storage.precision
                                                                   : storage.tolerance);
  const double distance = std::isfinite(storage.distance) && storage.distance > 0.01f
                              ? static_cast<double>(storage.distance)
                              : 0.01;
  clip_codec::LossyPrecision p;
  const int lo = clip_codec::kMinGridExponent;
  const int hi = clip_codec::kMaxGridExponent;
  p.translation_exponent = exponent_at_most(tolerance / 16.0, lo, hi);
  p.weights_exponent = p.translation_exponent;
  p.scale_exponent = exponent_at_most(tolerance / (16.0 * distance), lo, hi);
  const int rotation = exponent_at_most(
      tolerance / (16.0 * distance), -clip_codec::kMaxRotationBits, -clip_codec::kMinRotationBits);
  p.rotation_bits = -rotation;
  return p;
}

int grid_exponent(const clip_codec::LossyPrecision& precision, Property p) {
  switch (p) {
    case Property::kTranslation:
      return precision.translation_exponent;
    case Property::kRotation:
      return -precision.rotation_bits;
    case Property::kScale:
      return precision.scale_exponent;
    case Property::kWeights:
      return precision.weights_exponent;
  }
  return precision.translation_exponent;
}

int32_t grid_encode(float v, int exponent) {
  const double r =
      std::nearbyint(static_cast<double>(v) / static_cast<double>(clip_codec::pow2(exponent)));
  return static_cast<int32_t>(
      clamp_to_int64(r, -clip_codec::kMaxGridCode, clip_codec::kMaxGridCode));
}

QuatCode quat_encode(const float q[4], int bits) {
  // Candidates by decreasing magnitude (ties in index order): the first whose decoding
  // encodes back to it; a near tie between two large components may need the second.
  int order[4] = {0, 1, 2, 3};
  std::stable_sort(order, order + 4,
                   [&](int a, int b) { return std::fabs(q[a]) > std::fabs(q[b]); });
  // Rounding may leave a kept component larger than the recomputed one (two components
  // near 0.7): then the largest kept code steps towards zero until the left-out component
  // is the largest again (an error of a few steps at most).
  for (int i : order) {
    QuatCode code = with_index(q, i, bits);
    for (int tries = 0; tries < 8; ++tries) {
      if (stable(code, bits)) return code;
      int big = 0;
      for (int k = 1; k < 3; ++k)
        if (std::abs(code.c[k]) > std::abs(code.c[big])) big = k;
      if (code.c[big] == 0) break;
      code.c[big] += code.c[big] > 0 ? -1 : 1;
    }
  }
  // Not a unit quaternion (no candidate is stable): follow decodings to a fixed point.
  QuatCode code = with_index(q, order[0], bits);
  for (int n = 0; n < 16; ++n) {
    float y[4];
    clip_codec::quat_decode(code, clip_codec::pow2(-bits), y);
    const QuatCode next = natural(y, bits);
    if (same(next, code)) break;
    code = next;
  }
  return code;
}

}  // namespace clip_lossy

Clip quantize_lossy(const Clip& clip, const ClipStorage& storage) {
  if (storage.compression != ClipCompression::kLossy) {
    Clip out = clip.copy();
    out.set_storage(storage);
    return out;
  }
  const clip_codec::LossyPrecision precision = clip_lossy::precision_for(storage);
  Clip out(clip.name());
  std::vector<float> values;
  for (const Channel& ch : clip.channels()) {
    const size_t width = static_cast<size_t>(channel_width(ch));
    const size_t groups = ch.interpolation == Interpolation::kCubicSpline ? 3 : 1;
    const size_t value_group = groups == 3 ? 1 : 0;
    const int exponent = clip_lossy::grid_exponent(precision, ch.property);
    const float step = clip_codec::pow2(exponent);
    values.assign(ch.values.begin(), ch.values.end());
    for (size_t at = 0; width > 0 && at + width <= values.size(); at += width) {
      const size_t group = (at / width) % groups;
      if (ch.property == Property::kRotation && group == value_group && width == 4) {
        const clip_codec::QuatCode code =
            clip_lossy::quat_encode(&values[at], precision.rotation_bits);
        clip_codec::quat_decode(code, clip_codec::pow2(-precision.rotation_bits), &values[at]);
      } else {
        for (size_t i = at; i < at + width; ++i)
          values[i] = clip_codec::grid_decode(clip_lossy::grid_encode(values[i], exponent), step);
      }
    }
    if (ch.property == Property::kWeights)
      out.add_weights_channel(ch.joint, ch.width, ch.interpolation, ch.times, values);
    else
      out.add_channel(ch.joint, ch.property, ch.interpolation, ch.times, values);
  }
  for (const ClipEvent& e : clip.events()) out.add_event(e.name, e.time);
  out.extend_duration(clip.duration());
  out.set_additive(clip.additive());
  out.set_storage(storage);
  return out;
}

}  // namespace animpack
