// A rig: a skeleton and the named clips that animate it.
//
//   std::vector<animpack::Clip> clips;
//   clips.push_back(std::move(walk));
//   auto rig = animpack::Rig::create(std::move(skeleton), std::move(clips));
//   if (!rig) return rig.error();
//   animpack::Result<uint16_t> walk_index = rig->find_clip("Walk");
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "animpack/clip.h"
#include "animpack/result.h"
#include "animpack/skeleton.h"

namespace animpack {

class Rig {
 public:
  Rig() = default;
  Rig(Rig&&) = default;
  Rig& operator=(Rig&&) = default;

  // Validates every clip against the skeleton (Clip::validate) and refuses two clips
  // with one name and one Clip::additive() (an ordinary clip and its additive versions
  // share a name) or more than 65535 clips (kBadClip).
  static Result<Rig> create(Skeleton skeleton, std::vector<Clip> clips);

  const Skeleton& skeleton() const { return skeleton_; }
  std::span<const Clip> clips() const { return clips_; }
  int clip_count() const { return static_cast<int>(clips_.size()); }
  // The index of the ordinary clip with this name; kUnknownClip ("no clip 'Jog' in this
  // rig"). Additive clips are found only by the second form.
  Result<uint16_t> find_clip(std::string_view name) const;
  // The index of the clip with this name and this Clip::additive(); kUnknownClip.
  Result<uint16_t> find_clip(std::string_view name, AdditiveReference additive) const;
  // The largest channel count and event count of any clip (for preallocating players).
  int max_channel_count() const { return max_channels_; }
  int max_event_count() const { return max_events_; }

 private:
  Skeleton skeleton_;
  std::vector<Clip> clips_;
  int max_channels_ = 0;
  int max_events_ = 0;
};

}  // namespace animpack
