// Clips: keyed channels on a skeleton's joints, sampled as glTF 2.0 specifies, and
// named events at clip times.
//
//   animpack::Clip walk("Walk");
//   const float times[] = {0.0f, 1.0f};
//   const float values[] = {0, 0, 0, 0, 0, 2};      // two translation keys
//   walk.add_channel(0, animpack::Property::kTranslation, animpack::Interpolation::kLinear,
//                    times, values);
//   walk.add_event("step", 0.5f);
//   uint32_t cursor = 0;
//   animpack::Vec4 v = animpack::sample(walk.channels()[0], 0.25f, &cursor);  // (0, 0, 0.5)
//
// Sampling (glTF 2.0 "Animation samplers" and Appendix C "Interpolation"):
// - before the first key the first value holds, after the last key the last value;
// - kStep holds a key until the next;
// - kLinear lerps translation and scale and slerps rotation the shorter way (nlerp when
//   the keys' dot product exceeds 0.9995);
// - kCubicSpline uses the Hermite basis with each key's out-tangent and the next key's
//   in-tangent scaled by the key interval; rotations come back normalised.
// Key values are stored as glTF stores them: `width` floats per key (3 for translation
// and scale, 4 for rotation x y z w, the morph set's target count for weights); for
// kCubicSpline three groups per key: in-tangent, value, out-tangent.
//
// Morph weights (format 5, morph.h): a kWeights channel animates the weights of one of
// the rig's morph sets (Rig::morph_sets(); `joint` is then the set's index, not a joint's)
// with Channel::width weights per key, sampled by sample_weights(): step and linear per
// weight (lerp), cubic spline per weight as above (no normalisation).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/math.h"
#include "animpack/result.h"

namespace animpack {

// kWeights (format 5): a morph set's weights (see above).
enum class Property : uint8_t { kTranslation = 0, kRotation = 1, kScale = 2, kWeights = 3 };
enum class Interpolation : uint8_t { kStep = 0, kLinear = 1, kCubicSpline = 2 };
enum class Playback : uint8_t { kLoop = 0, kOnce = 1, kPingPong = 2 };
// What an additive clip's keys are differences from (layers.h); kNone: an ordinary clip.
enum class AdditiveReference : uint8_t { kNone = 0, kFirstFrame = 1, kRestPose = 2 };
// How a pack stores a clip's keys (format 6, docs/pack-format.md "Clip keys"): kExact keeps
// every key's float bits; kLossy keeps fewer, quantised keys within an error bound.
enum class ClipCompression : uint8_t { kExact = 0, kLossy = 1 };

// What a pack says of one clip's stored keys (format 6; a clip built in code, or read from
// an older pack, has the defaults: exact, nothing measured).
struct ClipStorage {
  ClipCompression compression = ClipCompression::kExact;
  // kLossy: the error the cook allowed, at a virtual vertex `distance` metres from each
  // joint, through the whole hierarchy (metres), and the largest error it measured over
  // every key and the sampled times (<= tolerance).
  float tolerance = 0.0f;
  float distance = 0.0f;
  float max_error = 0.0f;
  // kLossy, when cooking: the tolerance the quantisation grids are chosen for
  // (quantize_lossy and the pack writer), finer than `tolerance` where the rig's hierarchy
  // magnifies a rotation's error; 0: `tolerance`. Not stored (the pack keeps the grids).
  float precision = 0.0f;
  // Bytes the pack spends on this clip's keys (times and values, as stored); 0: unknown.
  uint64_t stored_bytes = 0;
};

// 3 for translation and scale, 4 for rotation (kWeights: see channel_width).
inline int property_width(Property p) { return p == Property::kRotation ? 4 : 3; }
// "translation", "rotation", "scale", "weights".
const char* property_name(Property p);
// "STEP", "LINEAR", "CUBICSPLINE" (the glTF spellings).
const char* interpolation_name(Interpolation i);
// "loop", "once", "ping_pong" (the scene file's spellings).
const char* playback_name(Playback p);
const char* additive_reference_name(AdditiveReference r);  // "none", "first_frame", "rest_pose"

// One animated property of one joint. times and values are views: into the clip's own
// storage (add_channel) or into a mapped pack (add_channel_view).
struct Channel {
  uint16_t joint = 0;  // kWeights: the index of the rig's morph set
  Property property = Property::kTranslation;
  Interpolation interpolation = Interpolation::kLinear;
  std::span<const float> times;   // seconds, strictly ascending, at least one key
  std::span<const float> values;  // width (x3 for kCubicSpline) floats per key
  uint16_t width = 0;             // kWeights: weights per key (the set's targets); else 0
};

// Floats per key value: property_width(property), or width for kWeights.
inline int channel_width(const Channel& c) {
  return c.property == Property::kWeights ? c.width : property_width(c.property);
}

// A named mark at a clip time (seconds, 0 <= time <= duration).
struct ClipEvent {
  std::string name;
  float time = 0;
};

class Clip {
 public:
  explicit Clip(std::string name = {}) : name_(std::move(name)) {}
  // Move-only: channels may point into storage the clip owns.
  Clip(Clip&&) = default;
  Clip& operator=(Clip&&) = default;
  Clip(const Clip&) = delete;
  Clip& operator=(const Clip&) = delete;

  // Adds a channel; the clip keeps its own copy of the keys (key times equal to the
  // previous channel's or to the first joint channel's are stored once and shared).
  void add_channel(uint16_t joint, Property property, Interpolation interpolation,
                   std::span<const float> times, std::span<const float> values);
  // Adds a kWeights channel on morph set `set` with `width` weights per key.
  void add_weights_channel(uint16_t set, uint16_t width, Interpolation interpolation,
                           std::span<const float> times, std::span<const float> values);
  // Adds a channel whose keys live elsewhere and must outlive this clip (a mapped pack).
  void add_channel_view(const Channel& channel);
  // A copy owning its keys (whatever this clip's channels point into): the same name,
  // channels, events, duration and additive reference.
  Clip copy() const;
  // Adds an event; events are kept ordered by time (equal times keep insertion order).
  void add_event(std::string name, float time);

  const std::string& name() const { return name_; }
  std::span<const Channel> channels() const { return channels_; }
  std::span<const ClipEvent> events() const { return events_; }
  // The last key time over all channels (0 for a clip without keys).
  float duration() const { return duration_; }
  // kNone for an ordinary clip; for an additive clip (layers.h, make_additive_clip), what
  // its keys are differences from. Additive clips are played by additive layers only.
  AdditiveReference additive() const { return additive_; }
  void set_additive(AdditiveReference reference) { additive_ = reference; }
  // The key times every channel but the kWeights ones shares, by address (the same
  // array: Clip::add_channel shares equal neighbours, a pack's channels of one time
  // track share its array), when all of those channels are LINEAR; empty otherwise or
  // without such channels. The samplers then search those keys once per pose.
  std::span<const float> shared_linear_times() const {
    return shared_linear_ ? shared_times_ : std::span<const float>{};
  }
  // Whether the clip has kWeights channels.
  bool has_weights() const { return has_weights_; }

  // How the keys were stored (format 6); the defaults for a clip built in code.
  const ClipStorage& storage() const { return storage_; }
  void set_storage(const ClipStorage& storage) { storage_ = storage; }
  // Makes duration() at least `seconds` (an additive clip keeps its source's duration
  // when channels that add nothing are left out, so its clock and events stay the same).
  void extend_duration(float seconds);

  // Checks every channel against a skeleton of joint_count joints: joint in range (a
  // kWeights channel: set < morph_widths.size() and width == morph_widths[set], at most
  // one weights channel per set), at least one key, times finite and strictly ascending and not
  // negative, value counts consistent with the property and interpolation, values finite, key times
  // at most kMaxClipSeconds and a duration of 0 or at least kMinClipSeconds (animpack/limits.h);
  // and every event time within [0, duration]. Fails with kBadClip naming the channel or
  // event.
  [[nodiscard]] Result<void> validate(int joint_count,
                                      std::span<const uint16_t> morph_widths = {}) const;

 private:
  std::string name_;
  std::vector<Channel> channels_;
  std::vector<ClipEvent> events_;
  std::vector<std::vector<float>> owned_keys_;  // inner buffers never move
  // Adds `channel` with copies of times (shared with the previous channel's, or the first
  // joint channel's, when equal) and values.
  void add_owned(Channel channel, std::span<const float> times, std::span<const float> values);
  float duration_ = 0;
  std::span<const float> shared_times_;  // the first joint channel's times
  bool shared_linear_ = false;           // see shared_linear_times()
  bool has_joint_channels_ = false;
  bool has_weights_ = false;
  AdditiveReference additive_ = AdditiveReference::kNone;
  ClipStorage storage_;
};

// Samples a channel at clip time t (seconds). *cursor is a hint that makes forward
// playback O(1): the index of the key at or before the last sampled time; any value is
// safe (it is checked and repaired by a binary search). Translation and scale come
// back in x, y, z (w = 0); rotation in x, y, z, w; a kWeights channel gives its first
// (up to) four weights (use sample_weights for all of them).
// Preconditions: channel passed Clip::validate.
Vec4 sample(const Channel& channel, float t, uint32_t* cursor);

// Samples a kWeights channel at clip time t into out (channel.width floats); cursor as
// above. Preconditions: channel passed Clip::validate, out.size() == channel.width (a
// shorter out takes the first out.size() weights; nothing past out is written).
void sample_weights(const Channel& channel, float t, uint32_t* cursor, std::span<float> out);

// Samples every joint channel of clip at clip time t over pose, as one full-weight
// override layer of the Animator does (Animator::evaluate: the same bits): each
// channel's value replaces its property of pose[channel.joint]; kWeights channels are
// skipped and properties without a channel keep what pose holds (pass the rest pose for
// what evaluate starts from). cursors: one per channel of the clip, hints as for
// sample() (any values are safe). Faster than sample() per channel: channels that share
// a key bracket share one key search (a clip whose joint channels are all LINEAR over one
// times array, shared_linear_times(), searches once per pose), and slerp's wide pairs
// run as one batch.
// Preconditions: clip passed Clip::validate for pose.size() joints, cursors.size() ==
// clip.channels().size(). Allocates nothing.
void sample_pose(const Clip& clip, float t, std::span<uint32_t> cursors, std::span<Trs> pose);

}  // namespace animpack
