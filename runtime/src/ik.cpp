// Inverse kinematics: two-bone, aim, chain and foot solvers (ik.h).
#include "animpack/ik.h"

namespace animpack {

const char* ik_kind_name(IkKind kind) {
  switch (kind) {
    case IkKind::kTwoBone:
      return "two_bone";
    case IkKind::kAim:
      return "aim";
    case IkKind::kChain:
      return "chain";
    case IkKind::kFoot:
      return "foot";
  }
  return "unknown";
}

}  // namespace animpack
