#include "animpack/result.h"

namespace animpack {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kUnknownClip:
      return "unknown_clip";
    case ErrorCode::kBadWeight:
      return "bad_weight";
    case ErrorCode::kBadSpeed:
      return "bad_speed";
    case ErrorCode::kBadStart:
      return "bad_start";
    case ErrorCode::kNoSuchLayer:
      return "no_such_layer";
    case ErrorCode::kNothingPlaying:
      return "nothing_playing";
    case ErrorCode::kTooManyLayers:
      return "too_many_layers";
    case ErrorCode::kBadSkeleton:
      return "bad_skeleton";
    case ErrorCode::kBadClip:
      return "bad_clip";
    case ErrorCode::kBadAtlas:
      return "bad_atlas";
    case ErrorCode::kBadFrame:
      return "bad_frame";
    case ErrorCode::kSizeMismatch:
      return "size_mismatch";
    case ErrorCode::kBadJointIndex:
      return "bad_joint_index";
    case ErrorCode::kBadTickRate:
      return "bad_tick_rate";
    case ErrorCode::kBadPack:
      return "bad_pack";
    case ErrorCode::kIo:
      return "io";
    case ErrorCode::kUnknownParameter:
      return "unknown_parameter";
    case ErrorCode::kWrongParameterKind:
      return "wrong_parameter_kind";
    case ErrorCode::kBadParameterValue:
      return "bad_parameter_value";
    case ErrorCode::kUnknownState:
      return "unknown_state";
    case ErrorCode::kBadGraph:
      return "bad_graph";
    case ErrorCode::kBadIk:
      return "bad_ik";
    case ErrorCode::kUnknownMorphTarget:
      return "unknown_morph_target";
    case ErrorCode::kBadMorph:
      return "bad_morph";
    case ErrorCode::kNoThread:
      return "no_thread";
  }
  return "unknown";
}

}  // namespace animpack
