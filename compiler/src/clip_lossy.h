// The encoding half of pack format 6's lossy clip keys (docs/pack-format.md, "Clip keys"),
// used by quantize_lossy (clip_quantize.h) and the pack writer; the decoding half is the
// runtime's (runtime/src/clip_codec.h). A value's code depends on the value and the clip's
// precision only, never on other keys.
#pragma once

#include <cstdint>

#include "animpack/clip.h"
#include "clip_codec.h"

namespace animpack::clip_lossy {

// The grids a lossy clip with this tolerance and distance uses: translation and weights
// steps at most tolerance / 16, rotation and scale steps at most tolerance / (16 *
// distance) (distance at least 0.01 m); finest where the tolerance is not positive.
clip_codec::LossyPrecision precision_for(const ClipStorage& storage);

// The grid exponent of channel property `p`'s components (rotation: its tangents').
int grid_exponent(const clip_codec::LossyPrecision& precision, Property p);

// round(v / 2^exponent) (ties to even), clamped to +-kMaxGridCode.
int32_t grid_encode(float v, int exponent);

// The smallest-three code of q on 2^-bits whose decoding encodes back to itself.
clip_codec::QuatCode quat_encode(const float q[4], int bits);

}  // namespace animpack::clip_lossy
