// The runtime's API bounds: what clip creation, the Animator's and SpritePlayer's play
// calls and ScenePlayer::create accept (documented in docs/runtime.md, "Bounds"). The
// cooker uses the same constants so that a pack it writes always plays.
//
//   if (!(speed >= 0.0f && speed <= animpack::kMaxSpeed)) return refuse("speed");
//
// Durations, key and event times are compared as f32 (as clips and packs store them).
#pragma once

#include <cstdint>

namespace animpack {

// A clip's duration (its last key time) is 0 (a still pose) or in
// [kMinClipSeconds, kMaxClipSeconds]; key and event times are at most kMaxClipSeconds.
inline constexpr float kMinClipSeconds = 0.0001f;
inline constexpr float kMaxClipSeconds = 3600.0f;
// Play speeds (clip seconds per second) are in [0, kMaxSpeed].
inline constexpr float kMaxSpeed = 8.0f;
// Start offsets (seconds into the clip) are in [0, kMaxStartSeconds].
inline constexpr double kMaxStartSeconds = 3600.0;
// Crossfades last [0, kMaxFadeSeconds].
inline constexpr double kMaxFadeSeconds = 3600.0;
// Sprite clip frame rates are in [kMinSpriteFps, kMaxSpriteFps] frames a second (a frame
// lasts between kMinClipSeconds and kMaxClipSeconds).
inline constexpr float kMinSpriteFps = 1.0f / 3600.0f;
inline constexpr float kMaxSpriteFps = 10000.0f;
// A timed sprite clip's frame lasts 1 ms to kMaxSpriteFrameMs (one hour), and the whole
// clip at most kMaxSpriteClipMs (one day), so tick arithmetic stays in 64 bits.
inline constexpr uint32_t kMaxSpriteFrameMs = 3600u * 1000u;
inline constexpr uint64_t kMaxSpriteClipMs = uint64_t{24} * 3600u * 1000u;

// Converts a double to an integer in [lo, hi] without undefined behaviour: values
// outside the range (and +-inf) clamp to it, NaN gives lo. Every float-to-integer
// conversion in the runtime goes through this.
inline int64_t clamp_to_int64(double v, int64_t lo, int64_t hi) {
  if (!(v > static_cast<double>(lo))) return lo;  // also NaN
  // static_cast<double>(hi) may round up to 2^63; compare before converting.
  if (v >= static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(v);
}

}  // namespace animpack
