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
#include "animpack/morph.h"
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
  // share a name) or more than 65535 clips (kBadClip). Morph sets (format 5): each with
  // 1 to kMaxMorphTargets targets, unique non-empty target names, finite default weights
  // within kMaxMorphWeight, joint -1 or a joint; at most kMaxRigMorphWeights weights in
  // all and at most 65535 sets (kBadMorph). Sets `first` of each set (their order).
  static Result<Rig> create(Skeleton skeleton, std::vector<Clip> clips,
                            std::vector<MorphSet> morph_sets = {});

  const Skeleton& skeleton() const { return skeleton_; }
  std::span<const Clip> clips() const { return clips_; }
  int clip_count() const { return static_cast<int>(clips_.size()); }
  // The index of the ordinary clip with this name; kUnknownClip ("no clip 'Jog' in this
  // rig"). Additive clips are found only by the second form.
  Result<uint16_t> find_clip(std::string_view name) const;
  // The index of the clip with this name and this Clip::additive(); kUnknownClip.
  Result<uint16_t> find_clip(std::string_view name, AdditiveReference additive) const;
  // Morph sets (morph.h) in order; their weights lie at [first, first + size()) of a flat
  // array of morph_weight_count() floats (Animator::morph_weights()).
  std::span<const MorphSet> morph_sets() const { return morph_sets_; }
  uint32_t morph_weight_count() const { return morph_weight_count_; }
  // The flat index of a target by name: "set/target" (set and target names), or a bare
  // target name when exactly one set has it. kUnknownMorphTarget when there is none (or
  // a bare name is ambiguous: the message says to qualify it).
  Result<uint32_t> find_morph_target(std::string_view name) const;
  // The largest channel count and event count of any clip (for preallocating players).
  int max_channel_count() const { return max_channels_; }
  int max_event_count() const { return max_events_; }

 private:
  Skeleton skeleton_;
  std::vector<Clip> clips_;
  std::vector<MorphSet> morph_sets_;
  uint32_t morph_weight_count_ = 0;
  int max_channels_ = 0;
  int max_events_ = 0;
};

}  // namespace animpack
