// Pack format 6 clip keys, encoded (docs/pack-format.md, "Clip keys"): the pack writer's
// half; Pack::open decodes them with runtime/src/clip_codec.h.
#pragma once

#include <cstdint>
#include <vector>

#include "animpack/clip.h"
#include "clip_codec.h"

namespace animpack::clip_encode {

struct Track {
  uint32_t count = 0;
  bool progression = false;  // t_k = float(start + k * step), else `times`
  double start = 0;
  double step = 0;
  std::vector<float> times;
};

enum class Codec : uint8_t { kRaw = 0, kPlanes = 1, kLossy = 2, kPlanes2 = 3, kPlanes0 = 4 };

struct EncodedChannel {
  uint32_t track = 0;
  uint8_t key_bits = 0;  // 0: every time of the track
  uint32_t key_count = 0;
  std::vector<uint8_t> keys;
  Codec codec = Codec::kRaw;
  std::vector<uint8_t> data;
  std::vector<int32_t> lane_min;
  std::vector<uint8_t> lane_bits;
};

struct EncodedClip {
  std::vector<Track> tracks;
  std::vector<EncodedChannel> channels;
  clip_codec::LossyPrecision precision;
  uint64_t stored_bytes = 0;  // tracks' times, keys, data and lanes
};

// Exact clips keep every float's bits; a kLossy clip (clip.storage()) stores quantised
// values that decode to quantize_lossy(clip)'s. Deterministic.
EncodedClip encode_clip(const Clip& clip);

}  // namespace animpack::clip_encode
