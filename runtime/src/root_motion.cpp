// Root motion: baking tracks, reading them and the names (root_motion.h).
#include "animpack/root_motion.h"

namespace animpack {

const char* root_motion_policy_name(RootMotionPolicy policy) {
  switch (policy) {
    case RootMotionPolicy::kOff:
      return "off";
    case RootMotionPolicy::kInPlace:
      return "in_place";
    case RootMotionPolicy::kAccumulate:
      return "accumulate";
  }
  return "unknown";
}

}  // namespace animpack
