#include "animpack/rig.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace animpack {

Result<Rig> Rig::create(Skeleton skeleton, std::vector<Clip> clips,
                        std::vector<MorphSet> morph_sets) {
  if (clips.size() > 65535) {
    return Error::make(ErrorCode::kBadClip, "%zu clips, at most 65535", clips.size());
  }
  if (morph_sets.size() > 65535) {
    return Error::make(ErrorCode::kBadMorph, "%zu morph sets, at most 65535", morph_sets.size());
  }
  Rig rig;
  std::vector<uint16_t> widths(morph_sets.size());
  uint64_t weights = 0;
  for (size_t s = 0; s < morph_sets.size(); ++s) {
    MorphSet& set = morph_sets[s];
    const size_t n = set.target_names.size();
    if (n == 0 || n > kMaxMorphTargets || set.default_weights.size() != n) {
      return Error::make(ErrorCode::kBadMorph,
                         "morph set %zu: %zu targets and %zu default weights (1 to %u targets)", s,
                         n, set.default_weights.size(), kMaxMorphTargets);
    }
    if (set.joint < -1 || set.joint >= skeleton.joint_count()) {
      return Error::make(ErrorCode::kBadMorph, "morph set %zu: joint %d of %d", s, set.joint,
                         skeleton.joint_count());
    }
    for (size_t t = 0; t < n; ++t) {
      const float w = set.default_weights[t];
      if (!(w >= -kMaxMorphWeight && w <= kMaxMorphWeight)) {
        return Error::make(ErrorCode::kBadMorph, "morph set %zu target %zu: default weight %g", s,
                           t, static_cast<double>(w));
      }
      if (set.target_names[t].empty()) {
        return Error::make(ErrorCode::kBadMorph, "morph set %zu target %zu has no name", s, t);
      }
    }
    std::vector<std::string_view> sorted(set.target_names.begin(), set.target_names.end());
    std::sort(sorted.begin(), sorted.end());
    if (const auto d = std::adjacent_find(sorted.begin(), sorted.end()); d != sorted.end()) {
      return Error::make(ErrorCode::kBadMorph, "morph set %zu names two targets '%.*s'", s,
                         static_cast<int>(d->size()), d->data());
    }
    set.first = static_cast<uint32_t>(weights);
    weights += n;
    if (weights > kMaxRigMorphWeights) {
      return Error::make(ErrorCode::kBadMorph, "more than %u morph weights in one rig",
                         kMaxRigMorphWeights);
    }
    widths[s] = static_cast<uint16_t>(n);
  }
  for (size_t i = 0; i < clips.size(); ++i) {
    if (Result<void> r = clips[i].validate(skeleton.joint_count(), widths); !r) return r.error();
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
  rig.morph_sets_ = std::move(morph_sets);
  rig.morph_weight_count_ = static_cast<uint32_t>(weights);
  return rig;
}

Result<uint32_t> Rig::find_morph_target(std::string_view name) const {
  const size_t slash = name.find('/');
  int found = -1;
  bool ambiguous = false;
  for (const MorphSet& set : morph_sets_) {
    std::string_view target = name;
    if (slash != std::string_view::npos) {
      if (name.substr(0, slash) != set.name) continue;
      target = name.substr(slash + 1);
    }
    for (size_t t = 0; t < set.target_names.size(); ++t) {
      if (set.target_names[t] != target) continue;
      if (found >= 0) ambiguous = true;
      found = static_cast<int>(set.first + t);
    }
  }
  if (found >= 0 && !ambiguous) return static_cast<uint32_t>(found);
  if (ambiguous) {
    return Error::make(ErrorCode::kUnknownMorphTarget,
                       "morph target '%.*s' is in several sets: name it as 'set/target'",
                       static_cast<int>(name.size()), name.data());
  }
  return Error::make(ErrorCode::kUnknownMorphTarget, "no morph target '%.*s' in this rig",
                     static_cast<int>(name.size()), name.data());
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
