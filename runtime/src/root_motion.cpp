// Root motion: baking tracks, reading them and the names (root_motion.h).
//
// The baker works in double with + - * /, sqrt and det:: only, so a track has the same
// bits on every platform; the clip's keys are sampled with the runtime's own sample().
#include "animpack/root_motion.h"

#include <cmath>
#include <cstddef>
#include <vector>

#include "animpack/limits.h"
#include "animpack/scalar.h"
#include "root_motion_math.h"

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

namespace {

using rm::D3;
using rm::DAffine;
using rm::DQuat;

bool finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

double abs_d(double v) { return v < 0.0 ? -v : v; }

// The number of steps of a clip's track: max(1, round(duration * rate)), 0 for a still pose.
int64_t track_steps(const Clip& clip, int32_t rate) {
  const double d = static_cast<double>(clip.duration());
  if (!(d > 0.0)) return 0;
  const double n = std::round(d * static_cast<double>(rate));
  return clamp_to_int64(n, 1, int64_t{1} << 40);
}

// The last key of `joint`'s `property` channel at time t into *out (the channel the
// Animator writes last wins); false when the clip does not key it.
bool sample_joint(const Clip& clip, int joint, Property property, float t, Vec4* out) {
  bool found = false;
  for (const Channel& ch : clip.channels()) {
    if (ch.joint != joint || ch.property != property) continue;
    uint32_t cursor = 0;
    *out = sample(ch, t, &cursor);
    found = true;
  }
  return found;
}

// What bake needs of the skeleton around the root joint.
struct RootFrame {
  DAffine parent;  // the parent's rest global (the root matrix for a top joint)
  rm::D33 a;       // its linear part
  rm::D33 a_inv;
  D3 up;
  D3 axis;  // up in the joint's parent frame (the rotation of A's frame undone), unit
};

RootFrame root_frame(const Skeleton& skeleton, const RootMotionConfig& config) {
  RootFrame f;
  f.parent = rm::parent_rest_global(skeleton, config.joint);
  f.a = f.parent.l;
  f.a_inv = rm::inverse(f.a);
  f.up = rm::d3(config.up);
  f.axis = rm::local_axis(f.a, f.up);
  return f;
}

// The root's motion at one sample: the extracted translation e (object space) and the
// yaw twist of its rotation since the first frame (radians, in (-pi, pi]).
struct RootSample {
  D3 t;          // local translation as keyed (or rest)
  DQuat q;       // local rotation as keyed (or rest), unit
  D3 extracted;  // e: the extracted part of A (t - t0)
  DQuat twist;   // the yaw since t = 0 in the parent frame (identity without kYaw)
  double yaw = 0.0;
};

}  // namespace

Result<void> RootMotionConfig::validate(const Skeleton& skeleton) const {
  if (static_cast<uint8_t>(policy) > 2) {
    return Error::make(ErrorCode::kInvalidArgument, "unknown root motion policy %u",
                       unsigned{static_cast<uint8_t>(policy)});
  }
  constexpr uint8_t kAll = kExtractHorizontal | kExtractVertical | kExtractYaw;
  if (extract == 0 || (extract & ~kAll) != 0) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "root motion extract bits 0x%x: at least one of horizontal (1), vertical "
                       "(2) and yaw (4), no others",
                       unsigned{extract});
  }
  if (rate < 1 || rate > kMaxRootMotionRate) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "root motion rate %d is not in [1, %d] samples a second", rate,
                       kMaxRootMotionRate);
  }
  if (!finite(up) || !finite(forward)) {
    return Error::make(ErrorCode::kInvalidArgument, "root motion up or forward axis is not finite");
  }
  const D3 u = rm::d3(up), f = rm::d3(forward);
  if (abs_d(rm::dot(u, u) - 1.0) > 1e-4) {
    return Error::make(ErrorCode::kInvalidArgument, "root motion up axis (%g, %g, %g) is not unit",
                       static_cast<double>(up.x), static_cast<double>(up.y),
                       static_cast<double>(up.z));
  }
  if (abs_d(rm::dot(f, f) - 1.0) > 1e-4) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "root motion forward axis (%g, %g, %g) is not unit",
                       static_cast<double>(forward.x), static_cast<double>(forward.y),
                       static_cast<double>(forward.z));
  }
  if (abs_d(rm::dot(u, f)) > 1e-4) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "root motion up and forward axes are not perpendicular (dot %g)",
                       rm::dot(u, f));
  }
  if (joint < 0 || joint >= skeleton.joint_count()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "root motion joint %d is outside the skeleton (%d joints)", joint,
                       skeleton.joint_count());
  }
  return ok();
}

Vec3 root_motion_translation(const RootMotionDelta& delta) {
  const double unit = 1.0 / static_cast<double>(kRootMotionUnitsPerMetre);
  return Vec3{static_cast<float>(static_cast<double>(delta.x) * unit),
              static_cast<float>(static_cast<double>(delta.y) * unit),
              static_cast<float>(static_cast<double>(delta.z) * unit)};
}

float root_motion_yaw(const RootMotionDelta& delta) {
  return static_cast<float>(static_cast<double>(delta.yaw) * (2.0 * det::kPi) /
                            static_cast<double>(kYawUnitsPerTurn));
}

Result<void> check_root_motion_track(const Clip& clip, const RootMotionConfig& config,
                                     const RootMotionTrack& track) {
  if (track.samples.empty()) return ok();
  if (clip.additive() != AdditiveReference::kNone) {
    return Error::make(
        ErrorCode::kBadClip,
        "clip '%s' is additive: its root motion track must be empty, not %zu samples",
        clip.name().c_str(), track.samples.size());
  }
  const int64_t steps = track_steps(clip, config.rate);
  if (track.samples.size() != static_cast<size_t>(steps + 1)) {
    return Error::make(ErrorCode::kBadClip,
                       "clip '%s': a root motion track of %zu samples, not %lld (duration %g s at "
                       "%d samples a second, plus one)",
                       clip.name().c_str(), track.samples.size(), static_cast<long long>(steps + 1),
                       static_cast<double>(clip.duration()), config.rate);
  }
  if (!(track.samples[0] == RootMotionSample{})) {
    return Error::make(ErrorCode::kBadClip,
                       "clip '%s': the first sample of its root motion track is not zero",
                       clip.name().c_str());
  }
  return ok();
}

Result<std::vector<RootMotionSample>> bake_root_motion(const Skeleton& skeleton, const Clip& clip,
                                                       const RootMotionConfig& config,
                                                       std::span<const int32_t> feet) {
  if (Result<void> r = config.validate(skeleton); !r) return r.error();
  if (Result<void> r = clip.validate(skeleton.joint_count()); !r) return r.error();
  if (clip.additive() != AdditiveReference::kNone) {
    return Error::make(ErrorCode::kBadClip, "clip '%s' is additive: it has no root motion",
                       clip.name().c_str());
  }
  if (feet.size() > 8) {
    return Error::make(ErrorCode::kInvalidArgument, "root motion takes at most 8 feet, not %zu",
                       feet.size());
  }
  if (!feet.empty() && (config.extract & kExtractHorizontal) == 0) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "root motion feet need horizontal extraction (the travel they measure)");
  }
  const auto parents = skeleton.parents();
  for (int32_t foot : feet) {
    if (foot < 0 || foot >= skeleton.joint_count()) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "root motion foot %d is outside the skeleton (%d joints)", foot,
                         skeleton.joint_count());
    }
    for (int j = config.joint; j >= 0; j = parents[static_cast<size_t>(j)]) {
      if (j == foot) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "root motion foot '%s' is the root joint or above it",
                           skeleton.joints()[static_cast<size_t>(foot)].name.c_str());
      }
    }
  }

  const int64_t steps = track_steps(clip, config.rate);
  std::vector<RootMotionSample> out(static_cast<size_t>(steps + 1));
  if (steps == 0) return out;

  const RootFrame frame = root_frame(skeleton, config);
  const bool horizontal = (config.extract & kExtractHorizontal) != 0;
  const bool vertical = (config.extract & kExtractVertical) != 0;
  const bool yaw = (config.extract & kExtractYaw) != 0;
  const Trs& rest = skeleton.rest_pose()[static_cast<size_t>(config.joint)];
  const double duration = static_cast<double>(clip.duration());

  // The root joint at sample k.
  D3 t0{};
  DQuat q0_inv{};
  const auto root_at = [&](int64_t k) {
    const float t =
        static_cast<float>(static_cast<double>(k) * duration / static_cast<double>(steps));
    RootSample s;
    Vec4 v;
    s.t = sample_joint(clip, config.joint, Property::kTranslation, t, &v)
              ? D3{v.x, v.y, v.z}
              : rm::d3(rest.translation);
    s.q = rm::normalize(sample_joint(clip, config.joint, Property::kRotation, t, &v)
                            ? DQuat{v.x, v.y, v.z, v.w}
                            : rm::dq(rest.rotation));
    if (k == 0) {
      t0 = s.t;
      q0_inv = rm::conjugate(s.q);
    }
    const D3 d = rm::mul(frame.a, rm::sub(s.t, t0));
    const D3 vert = rm::scale(frame.up, rm::dot(d, frame.up));
    const D3 horiz = rm::sub(d, vert);
    s.extracted = rm::add(horizontal ? horiz : D3{}, vertical ? vert : D3{});
    if (yaw) s.twist = rm::twist(rm::mul(s.q, q0_inv), frame.axis, &s.yaw);
    return s;
  };

  // Feet: the local pose of every joint at sample k with the root held, posed in double.
  std::vector<Trs> locals;
  std::vector<DAffine> globals;
  const auto feet_at = [&](int64_t k, const RootSample& root, D3* positions) {
    const float t =
        static_cast<float>(static_cast<double>(k) * duration / static_cast<double>(steps));
    const auto r = skeleton.rest_pose();
    locals.assign(r.begin(), r.end());
    const auto channels = clip.channels();
    for (const Channel& ch : channels) {
      if (ch.property == Property::kWeights) continue;  // morph weights move no joint
      uint32_t cursor = 0;
      const Vec4 v = sample(ch, t, &cursor);
      Trs& target = locals[ch.joint];
      switch (ch.property) {
        case Property::kTranslation:
          target.translation = {v.x, v.y, v.z};
          break;
        case Property::kRotation:
          target.rotation = {v.x, v.y, v.z, v.w};
          break;
        case Property::kScale:
          target.scale = {v.x, v.y, v.z};
          break;
        case Property::kWeights:
          break;
      }
    }
    globals.resize(locals.size());
    const DAffine root_matrix = rm::from_mat4(skeleton.root());
    for (size_t j = 0; j < locals.size(); ++j) {
      DAffine local = rm::from_trs(locals[j]);
      if (static_cast<int>(j) == config.joint) {
        // As the pose plays: t0 + A^-1 (what is kept), the yaw taken out.
        const D3 d = rm::mul(frame.a, rm::sub(root.t, t0));
        const D3 kept = rm::sub(d, root.extracted);
        const D3 held = rm::add(t0, rm::mul(frame.a_inv, kept));
        const DQuat q = yaw ? rm::mul(rm::conjugate(root.twist), root.q) : root.q;
        local = rm::from_parts(held, q, rm::d3(locals[j].scale));
      }
      const int p = parents[j];
      globals[j] = rm::mul(p < 0 ? root_matrix : globals[static_cast<size_t>(p)], local);
    }
    for (size_t i = 0; i < feet.size(); ++i) positions[i] = globals[static_cast<size_t>(feet[i])].t;
  };

  const double units = static_cast<double>(kRootMotionUnitsPerMetre);
  const double yaw_units = static_cast<double>(kYawUnitsPerTurn) / (2.0 * det::kPi);
  const double limit = 2147483647.0;
  RootSample prev = root_at(0);
  D3 prev_feet[8];
  D3 next_feet[8];
  if (!feet.empty()) feet_at(0, prev, prev_feet);
  D3 sum{};               // cumulative translation (the root's frame at each step's start)
  double yaw_sum = 0.0;   // unwrapped yaw, radians
  double prev_yaw = 0.0;  // the previous sample's twist angle, radians
  for (int64_t k = 1; k <= steps; ++k) {
    const RootSample cur = root_at(k);
    double step_yaw = 0.0;
    if (yaw) {
      step_yaw = cur.yaw - prev_yaw;
      if (step_yaw > det::kPi) step_yaw -= 2.0 * det::kPi;
      if (step_yaw <= -det::kPi) step_yaw += 2.0 * det::kPi;
      prev_yaw = cur.yaw;
    }
    D3 step = rm::sub(cur.extracted, prev.extracted);
    if (yaw) step = rm::rotate_about(step, frame.up, -yaw_sum);
    if (!feet.empty()) {
      // Travel by minus the horizontal motion of the lowest foot over the step (its
      // positions already in the character's frame: the pose holds the root's yaw).
      feet_at(k, cur, next_feet);
      size_t lowest = 0;
      double lowest_height = 0.0;
      for (size_t i = 0; i < feet.size(); ++i) {
        const double h = rm::dot(prev_feet[i], frame.up) + rm::dot(next_feet[i], frame.up);
        if (i == 0 || h < lowest_height) {
          lowest = i;
          lowest_height = h;
        }
      }
      // Where the foot is at k + 1 seen from the frame at k: turned by the step's yaw.
      const D3 next =
          yaw ? rm::rotate_about(next_feet[lowest], frame.up, step_yaw) : next_feet[lowest];
      const D3 moved = rm::sub(next, prev_feet[lowest]);
      const D3 horiz = rm::sub(moved, rm::scale(frame.up, rm::dot(moved, frame.up)));
      const D3 vert_step = rm::scale(frame.up, rm::dot(step, frame.up));
      step = rm::sub(vertical ? vert_step : D3{}, horiz);
      for (size_t i = 0; i < feet.size(); ++i) prev_feet[i] = next_feet[i];
    }
    sum = rm::add(sum, step);
    yaw_sum += step_yaw;
    const double values[4] = {sum.x * units, sum.y * units, sum.z * units, yaw_sum * yaw_units};
    int32_t q[4];
    for (int c = 0; c < 4; ++c) {
      const double v = std::round(values[c]);
      if (!(v >= -limit && v <= limit)) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "clip '%s': root motion does not fit a track (at most 32767 object "
                           "units of travel and 127 turns in one pass)",
                           clip.name().c_str());
      }
      q[c] = static_cast<int32_t>(clamp_to_int64(v, -2147483647, 2147483647));
    }
    // clamp_to_int64 truncates toward zero; v is already a whole number.
    out[static_cast<size_t>(k)] = RootMotionSample{q[0], q[1], q[2], q[3]};
    prev = cur;
  }
  return out;
}

}  // namespace animpack
