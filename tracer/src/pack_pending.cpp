// TEMPORARY, until the lead's format 2 loader ("Pack writer and loader for format 2") is
// merged: a weak stand-in for Pack::texture_pixels so that the tracer links against a
// runtime that only declares it. The runtime's definition, once there, replaces it.
// Delete this file at that merge.
#include "animpack/pack.h"

namespace animpack {

__attribute__((weak)) Result<std::span<const uint8_t>> Pack::texture_pixels(int texture) const {
  return Error::make(ErrorCode::kInvalidArgument, "texture %d: this runtime reads no textures",
                     texture);
}

}  // namespace animpack
