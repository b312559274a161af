// Lossy clip keys (pack format 6, docs/pack-format.md "Clip keys"): the quantisation the
// pack writer applies to a ClipCompression::kLossy clip, exposed so that the cooker's key
// reducer (clip_optimize.h) measures the error of exactly what the runtime will play.
//
//   animpack::Clip q = animpack::quantize_lossy(clip, storage);   // storage.compression kLossy
//   // q has clip's channels, key counts and times; every value is what Pack::open decodes.
#pragma once

#include "animpack/clip.h"

namespace animpack {

// A copy of `clip` (name, channels, times, events, duration, additive reference, storage)
// whose every key value is what a kLossy pack stores and Pack::open decodes for it, bit for
// bit. Times are kept exactly. The quantisation of a value does not depend on which other
// keys its channel holds, so it is idempotent and closed under key removal:
// quantize_lossy(c') == c' for c' = quantize_lossy(c) or any clip made of a subset of c''s
// keys. storage.tolerance and storage.distance pick the precision (finer than the
// tolerance); a kExact storage returns an exact copy.
Clip quantize_lossy(const Clip& clip, const ClipStorage& storage);

}  // namespace animpack
