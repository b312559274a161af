// Root motion: the motion a clip gives its root joint, taken out of the pose and handed to
// the game as exact integers, so a character walks by its animation and never drifts.
//
//   animpack::RootMotionConfig config;                   // what the cooker wrote (pack.h)
//   config.policy = animpack::RootMotionPolicy::kAccumulate;
//   config.joint = rig.skeleton().find_joint("b_Hip_01");
//   std::vector<std::vector<animpack::RootMotionSample>> baked;   // at setup (cook time)
//   for (const animpack::Clip& clip : rig.clips())
//     baked.push_back(*animpack::bake_root_motion(rig.skeleton(), clip, config));
//   std::vector<animpack::RootMotionTrack> tracks(baked.begin(), baked.end());
//   (void)animator->set_root_motion(config, tracks);
//   for (int64_t tick = 0; ; ++tick) {
//     animator->advance(tick);
//     animator->evaluate(tick);                          // the root held in place
//     animpack::RootMotionDelta d = animator->take_root_motion();
//     character.move(animpack::root_motion_translation(d), animpack::root_motion_yaw(d));
//   }
//
// What is extracted. The root joint's motion is measured in object space (the skeleton's
// space: Skeleton::root() and the joints above it at rest): d(t) = A (t(t) - t(0)), where
// t(t) is the root joint's local translation in the clip at time t and A the linear part of
// its parent's rest global (the root matrix for a top joint). The joints above the root are
// taken at rest: a clip that turns them moves the root in ways root motion does not see.
// `extract` picks what is taken out: kHorizontal (d minus its part along `up`), kVertical
// (the part along `up`), kYaw (the turn of the root's object-space rotation about `up`
// since t = 0: the twist of G(t) G(0)^-1 about `up`, where G = rotation of A's frame times
// the local rotation).
//
// The pose (policies kInPlace and kAccumulate). Every layer that plays a clip holds the
// extracted parts of the root joint at the clip's first frame: its local translation
// becomes t(t) - A^-1 e(t) (e: the extracted part of d(t)) and its rotation loses the
// extracted yaw. The rest plays, so the hips still bob and sway. Mixing, fades and masks
// then work on the held values as on any others. Additive layers are not held (their
// deltas add on top) and collect nothing.
//
// The track (cook time). bake_root_motion samples the clip at N + 1 times k * duration / N,
// N = max(1, round(duration * rate)) (so at the baked rate a clip of a whole number of
// ticks has one step per tick), and stores each sample's cumulative motion since sample 0
// as integers: translation in 1/kRootMotionUnitsPerMetre object units along the object's
// x, y and z axes, yaw in 1/kYawUnitsPerTurn turns (right-handed about `up`), unwrapped
// (a clip may turn more than a whole turn). With kYaw, each step's translation is turned
// into the root's yaw frame at the step's start before it is summed (the motion as the
// character feels it: "forward" stays forward while it turns). Values are rounded once,
// from the double-precision cumulative sum, so the steps L[k + 1] - L[k] are integers
// whose sum over one pass is exactly L[N]: a thousand loops give exactly a thousand
// times L[N] on every platform. A clip with a duration of 0 gets one sample of zeros.
//
// Accumulation (kAccumulate). Animator::advance(tick) adds, for every override layer
// playing a clip with a track, its track's motion between its position at the previous
// advance and at `tick`, scaled by the share of the root joint that layer has in the pose
// at `tick` (its mix's fade weight times what later mixes leave of it; within a mix, its
// weight times its mask weight at the root times 1 - w of every later override layer
// whose clip animates the root; a play_blend or synced layer's share of its mix). The
// track is read as a function of the layer's unwrapped play position: in samples, fixed
// point at 1/65536 of a sample, passes counted exactly (a loop adds L[N] per pass), a
// position between samples interpolated in integers; ping-pong plays the track backwards
// on its way back, once holds its end. So the motion is exact across loop wraps, speed
// changes and skipped ticks, and fades, blends and state machine transitions mix motion
// by the same weights as the pose. Shares are rounded to 1/65536 before scaling.
// take_root_motion() returns what was collected since its previous call and starts
// again; steps collected after some yaw are turned by that yaw first, so the delta is in
// the object's frame at the previous call: the game moves by translation, then turns by
// yaw.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "animpack/clip.h"
#include "animpack/math.h"
#include "animpack/result.h"
#include "animpack/skeleton.h"

namespace animpack {

// Fixed-point units of tracks and deltas.
inline constexpr int64_t kRootMotionUnitsPerMetre = int64_t{1} << 16;  // 15.3 µm a unit
inline constexpr int64_t kYawUnitsPerTurn = int64_t{1} << 24;          // 0.37 µrad a unit
// A track's rate is in [1, kMaxRootMotionRate] samples a second; with kMaxClipSeconds it
// bounds a track to 3.6 M samples. Cumulative values fit int32: at most 32767 object
// units of travel and 127 turns in one pass of a clip (the baker refuses more).
inline constexpr int32_t kMaxRootMotionRate = 1000;

enum class RootMotionPolicy : uint8_t {
  kOff = 0,         // the clip moves the root as keyed; nothing is collected
  kInPlace = 1,     // the extracted parts are held at the clip's first frame
  kAccumulate = 2,  // held, and collected for take_root_motion()
};
const char* root_motion_policy_name(RootMotionPolicy policy);  // "off", "in_place", "accumulate"

// Bits of RootMotionConfig::extract.
inline constexpr uint8_t kExtractHorizontal = 1;  // translation across `up`
inline constexpr uint8_t kExtractVertical = 2;    // translation along `up`
inline constexpr uint8_t kExtractYaw = 4;         // turning about `up`

struct RootMotionConfig {
  RootMotionPolicy policy = RootMotionPolicy::kOff;
  int32_t joint = 0;  // the root joint (the cooker's default: the rig's top joint)
  uint8_t extract = kExtractHorizontal;  // at least one bit, no others
  Vec3 up{0, 1, 0};                      // object space, unit (glTF: +Y)
  Vec3 forward{0, 0, 1};                 // object space, unit, perpendicular to up (glTF: +Z)
  int32_t rate = 60;                     // track samples a second
  // kInvalidArgument naming what fails: policy, extract bits, rate, axes not unit (within
  // 1e-4) or not perpendicular (|dot| > 1e-4), or not finite, joint outside the skeleton.
  [[nodiscard]] Result<void> validate(const Skeleton& skeleton) const;
};

// One sample of a track: cumulative motion since sample 0.
struct RootMotionSample {
  int32_t x = 0, y = 0, z = 0;  // object axes, 1/kRootMotionUnitsPerMetre units
  int32_t yaw = 0;              // 1/kYawUnitsPerTurn turns about up
  friend bool operator==(const RootMotionSample&, const RootMotionSample&) = default;
};
static_assert(sizeof(RootMotionSample) == 16);

// A clip's baked motion: N + 1 samples (see the header comment), or none for a clip that
// collects nothing (an additive clip). A view: into a pack or a vector the caller keeps.
struct RootMotionTrack {
  std::span<const RootMotionSample> samples;
  RootMotionTrack() = default;
  RootMotionTrack(std::span<const RootMotionSample> s) : samples(s) {}     // NOLINT: a view
  RootMotionTrack(const std::vector<RootMotionSample>& v) : samples(v) {}  // NOLINT
};

// Motion collected by take_root_motion(), in the object's frame at the previous call.
struct RootMotionDelta {
  int64_t x = 0, y = 0, z = 0;  // 1/kRootMotionUnitsPerMetre object units
  int64_t yaw = 0;              // 1/kYawUnitsPerTurn turns about up
  friend bool operator==(const RootMotionDelta&, const RootMotionDelta&) = default;
};
// The delta's translation in object units and its yaw in radians (float, deterministic).
Vec3 root_motion_translation(const RootMotionDelta& delta);
float root_motion_yaw(const RootMotionDelta& delta);

// Bakes `clip`'s track for `config` (which must validate against `skeleton`; the clip
// must validate too). Computed in double with the runtime's own math, so the same on
// every platform. Errors: kInvalidArgument (config), kBadClip (clip; an additive clip),
// kInvalidArgument naming the clip when the motion does not fit int32 (see the units).
//
// `feet` (joints of the skeleton, none the root or above it; at most 8): the horizontal
// travel comes from foot contact instead of from the root, for clips made to play on a
// treadmill (the Fox's walk, Mixamo's "in place" clips) and as a check on any other. Each
// sample's pose is posed with the root held (as the pose plays), in double, and each step
// k -> k + 1 travels by minus the horizontal motion of the foot that is lowest along `up`
// over the step (the sum of its heights at k and k + 1; the first of equals): the motion
// that keeps the planted foot where it is. Vertical motion and yaw still come from the
// root. Needs kExtractHorizontal (kInvalidArgument otherwise).
Result<std::vector<RootMotionSample>> bake_root_motion(const Skeleton& skeleton, const Clip& clip,
                                                       const RootMotionConfig& config,
                                                       std::span<const int32_t> feet = {});

// Checks a track's shape against a clip: N + 1 samples for the clip's duration and rate
// (or none), sample 0 all zero. kBadClip naming the clip. Pack::open and
// Animator::set_root_motion run it.
[[nodiscard]] Result<void> check_root_motion_track(const Clip& clip, const RootMotionConfig& config,
                                                   const RootMotionTrack& track);

}  // namespace animpack
