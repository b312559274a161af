// Error-bounded lossy clips (Step 6): the error metric the cooker measures a lossy clip by,
// and the key reducer that removes keys while that error stays within a tolerance.
//
//   animpack::ClipStorage storage;                       // kLossy, 1 mm at 10 cm (ozz's defaults)
//   storage.compression = animpack::ClipCompression::kLossy;
//   storage.tolerance = 0.001f;
//   storage.distance = 0.1f;
//   const animpack::Clip q = animpack::quantize_lossy(clip, storage);   // clip_quantize.h
//   animpack::ReducedClip r = animpack::reduce_clip(rig.skeleton(), clip, q, storage);
//   if (r.within) use(std::move(r.clip));   // r.clip.storage().max_error <= tolerance
//
// The error metric (like ACL's and ozz's): each joint carries four virtual vertices in its
// own space, its origin and the points `distance` along its x, y and z axes. At a clip
// time both clips are sampled onto the rest pose (clip.h's sample(), what the runtime
// plays), each joint's model-space matrix is built through the whole hierarchy
// (Skeleton::root() times the parents' matrices times the joint's T * R * S, in double), and
// the joint's error is the largest distance between a vertex moved by the exact pose's
// matrix and by the lossy pose's. A parent's error therefore moves its children's vertices,
// and a joint's scale (and the root's) scales its vertices' offsets. The clip's error is the
// largest joint error over the measuring times: every key time of the exact clip's channels
// and `random_times` times drawn in [0, duration] from a fixed seed (splitmix64, integer
// arithmetic), sorted and without repeats. Everything is plain double arithmetic in a fixed
// order: the same clips give the same error bits on every run and compiler.
//
// Key reduction (reduce_clip): starting from the quantised clip (every key the pack would
// hold), keys are tried for removal channel by channel (in the clip's channel order), key
// by key (first to last; the first and last key of a channel always stay), in three passes
// with a growing share of the tolerance (1/2, 3/4, all of it) so that the joints near the
// root do not spend the whole budget of their children. A key is removed when the error at
// every measuring time between its kept neighbours stays within the pass's limit; removing
// a key changes the channel's samples only there, so the clip's error over all the
// measuring times stays within the tolerance after every step. Only linear and step
// translation, rotation and scale channels lose keys: cubic-spline channels keep every key
// (stretching a Hermite segment over a removed key can overshoot between measuring times),
// and morph weights channels keep every key (their values are as quantisation leaves them;
// the metric does not measure weights). The caller keeps additive clips exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "animpack/clip.h"
#include "animpack/skeleton.h"

namespace animpack {

// ozz's defaults (AnimationOptimizer): 1 mm at 10 cm.
inline constexpr float kDefaultLossyTolerance = 0.001f;
inline constexpr float kDefaultLossyDistance = 0.1f;
inline constexpr int kDefaultErrorRandomTimes = 100;
inline constexpr uint64_t kErrorTimesSeed = 0x616e696d7061636bull;  // "animpack"

// The times the error is measured at: every key time of `clip` (all channels) and
// `random_times` (clamped to 0..100000) times in [0, duration()], ascending, no repeats.
std::vector<float> error_times(const Clip& clip, int random_times = kDefaultErrorRandomTimes);

// The error (metres in model space, see above) between `exact` and `lossy` at clip time t:
// the largest distance over the skeleton's joints and their four virtual vertices.
// Preconditions: both clips passed Clip::validate against `skeleton`.
double pose_error(const Skeleton& skeleton, const Clip& exact, const Clip& lossy, float t,
                  float distance);

// The largest pose_error over error_times(exact, random_times).
double clip_error(const Skeleton& skeleton, const Clip& exact, const Clip& lossy, float distance,
                  int random_times = kDefaultErrorRandomTimes);

// Counts the keys of a clip (over all channels).
size_t key_count(const Clip& clip);

struct ReducedClip {
  // `quantised` with the keys the tolerance allows removed; its storage is
  // {kLossy, tolerance, distance, max_error} (stored_bytes 0: the writer knows it). When
  // `within` is false the quantised clip alone is over the tolerance: clip is that clip
  // unreduced and the caller should keep the original exact.
  Clip clip;
  bool within = false;
  double max_error = 0;  // clip_error(original, clip): <= tolerance when within
  size_t keys_before = 0, keys_after = 0;
};

// Reduces `quantised` (quantize_lossy(original, storage), or any clip with the original's
// channels, key counts and times) within storage.tolerance at storage.distance, measured
// against `original` over error_times(original, random_times). Deterministic.
// Preconditions: both clips passed Clip::validate against `skeleton`; tolerance and distance
// finite and > 0.
ReducedClip reduce_clip(const Skeleton& skeleton, const Clip& original, const Clip& quantised,
                        const ClipStorage& storage, int random_times = kDefaultErrorRandomTimes);

}  // namespace animpack
