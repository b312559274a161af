#include "animpack/rig.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

namespace animpack {

Result<Rig> Rig::create(Skeleton skeleton, std::vector<Clip> clips) {
  if (clips.size() > 65535) {
    return Error::make(ErrorCode::kBadClip, "%zu clips, at most 65535", clips.size());
  }
  Rig rig;
  for (size_t i = 0; i < clips.size(); ++i) {
    if (Result<void> r = clips[i].validate(skeleton.joint_count()); !r) return r.error();
    rig.max_channels_ = std::max(rig.max_channels_, static_cast<int>(clips[i].channels().size()));
    rig.max_events_ = std::max(rig.max_events_, static_cast<int>(clips[i].events().size()));
  }
  // Unique (name, additive) in O(n log n): a pack may hold 65535 clips.
  std::vector<std::pair<std::string_view, AdditiveReference>> names(clips.size());
  for (size_t i = 0; i < clips.size(); ++i) names[i] = {clips[i].name(), clips[i].additive()};
  std::sort(names.begin(), names.end());
  if (const auto d = std::adjacent_find(names.begin(), names.end()); d != names.end()) {
    if (d->second == AdditiveReference::kNone) {
      return Error::make(ErrorCode::kBadClip, "two clips are named '%.*s'",
                         static_cast<int>(d->first.size()), d->first.data());
    }
    return Error::make(ErrorCode::kBadClip, "two additive (%s) clips are named '%.*s'",
                       additive_reference_name(d->second), static_cast<int>(d->first.size()),
                       d->first.data());
  }
  rig.skeleton_ = std::move(skeleton);
  rig.clips_ = std::move(clips);
  return rig;
}

Result<uint16_t> Rig::find_clip(std::string_view name) const {
  return find_clip(name, AdditiveReference::kNone);
}

Result<uint16_t> Rig::find_clip(std::string_view name, AdditiveReference additive) const {
  for (size_t i = 0; i < clips_.size(); ++i) {
    if (clips_[i].additive() == additive && clips_[i].name() == name) {
      return static_cast<uint16_t>(i);
    }
  }
  if (additive == AdditiveReference::kNone) {
    return Error::make(ErrorCode::kUnknownClip, "no clip '%.*s' in this rig",
                       static_cast<int>(name.size()), name.data());
  }
  return Error::make(ErrorCode::kUnknownClip, "no additive (%s) clip '%.*s' in this rig",
                     additive_reference_name(additive), static_cast<int>(name.size()), name.data());
}

}  // namespace animpack
