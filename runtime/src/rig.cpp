#include "animpack/rig.h"

#include <algorithm>

namespace animpack {

Result<Rig> Rig::create(Skeleton skeleton, std::vector<Clip> clips) {
  if (clips.size() > 65535) {
    return Error::make(ErrorCode::kBadClip, "%zu clips, at most 65535", clips.size());
  }
  Rig rig;
  for (size_t i = 0; i < clips.size(); ++i) {
    if (Result<void> r = clips[i].validate(skeleton.joint_count()); !r) return r.error();
    for (size_t j = 0; j < i; ++j) {
      if (clips[j].name() == clips[i].name()) {
        return Error::make(ErrorCode::kBadClip, "two clips are named '%s'",
                           clips[i].name().c_str());
      }
    }
    rig.max_channels_ = std::max(rig.max_channels_, static_cast<int>(clips[i].channels().size()));
    rig.max_events_ = std::max(rig.max_events_, static_cast<int>(clips[i].events().size()));
  }
  rig.skeleton_ = std::move(skeleton);
  rig.clips_ = std::move(clips);
  return rig;
}

Result<uint16_t> Rig::find_clip(std::string_view name) const {
  for (size_t i = 0; i < clips_.size(); ++i) {
    if (clips_[i].name() == name) return static_cast<uint16_t>(i);
  }
  return Error::make(ErrorCode::kUnknownClip, "no clip '%.*s' in this rig",
                     static_cast<int>(name.size()), name.data());
}

}  // namespace animpack
