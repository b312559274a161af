// The fast samplers against their references, bit for bit: sample_pose() against sample()
// channel by channel, Animator::evaluate against sample_pose(), and slerp()'s wide path
// (two sines at once) against glTF's formula written out here with det:: functions.
// Clips are random (fixed seeds): step, linear and cubic channels, wide and narrow
// rotation pairs, channels sharing a times array, holding equal times in their own
// arrays or other times, several channels on one property, and times that step
// forward, jump, go back and leave the keys.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/clip.h"
#include "animpack/math.h"
#include "animpack/rig.h"
#include "animpack/scalar.h"
#include "animpack/skeleton.h"

namespace animpack {
namespace {

// A small deterministic generator (no std:: distributions: their results vary by library).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint32_t next() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state_ >> 33);
  }
  float unit() { return static_cast<float>(next() >> 8) / 16777216.0f; }  // [0, 1)
  float range(float lo, float hi) { return lo + (hi - lo) * unit(); }
  uint32_t below(uint32_t n) { return next() % n; }

 private:
  uint64_t state_;
};

Quat normalized(float x, float y, float z, float w) {
  const float len = std::sqrt(x * x + y * y + z * z + w * w);
  return {x / len, y / len, z / len, w / len};
}

Quat random_quat(Rng& rng) {
  return normalized(rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1), rng.range(0.1f, 1));
}

// The next rotation key after q: a small step (nlerp path), a wide one (slerp path) or an
// unrelated quaternion, sometimes negated (the shorter way flips it back).
Quat next_rotation(Rng& rng, const Quat& q) {
  Quat r;
  switch (rng.below(3)) {
    case 0: {
      const float e = 0.01f;
      r = normalized(q.x + rng.range(-e, e), q.y + rng.range(-e, e), q.z + rng.range(-e, e),
                     q.w + rng.range(-e, e));
      break;
    }
    case 1: {
      const float e = 0.4f;
      r = normalized(q.x + rng.range(-e, e), q.y + rng.range(-e, e), q.z + rng.range(-e, e),
                     q.w + rng.range(-e, e));
      break;
    }
    default:
      r = random_quat(rng);
  }
  if (rng.below(4) == 0) r = {-r.x, -r.y, -r.z, -r.w};
  return r;
}

// Strictly ascending key times from 0.
std::vector<float> random_times(Rng& rng, size_t n) {
  std::vector<float> times(n);
  float t = rng.below(3) == 0 ? rng.range(0.0f, 0.3f) : 0.0f;
  for (size_t k = 0; k < n; ++k) {
    times[k] = t;
    t += rng.range(0.02f, 0.1f);
  }
  return times;
}

// Key values of one channel: width floats per key, three groups per key for cubic.
std::vector<float> random_values(Rng& rng, Property p, Interpolation interp, size_t n) {
  std::vector<float> v;
  Quat q = random_quat(rng);
  for (size_t k = 0; k < n; ++k) {
    const int groups = interp == Interpolation::kCubicSpline ? 3 : 1;
    for (int g = 0; g < groups; ++g) {
      const bool value = groups == 1 || g == 1;
      if (p == Property::kRotation) {
        if (value) {
          q = k == 0 ? q : next_rotation(rng, q);
          v.insert(v.end(), {q.x, q.y, q.z, q.w});
        } else {
          for (int i = 0; i < 4; ++i) v.push_back(rng.range(-1, 1));
        }
      } else {
        for (int i = 0; i < 3; ++i) v.push_back(rng.range(-2, 2));
      }
    }
  }
  return v;
}

// A random clip over `joints` joints; keys that add_channel_view channels point into live
// in *storage.
Clip random_clip(Rng& rng, int joints, std::vector<std::unique_ptr<std::vector<float>>>* storage) {
  Clip clip("random");
  std::vector<float> shared = random_times(rng, 2 + rng.below(40));
  const int channels = 3 * joints + static_cast<int>(rng.below(6));
  for (int c = 0; c < channels; ++c) {
    // Mostly every property of every joint in order, then a few extra channels anywhere
    // (a second channel on one property: the later one wins, as in the Animator).
    const uint16_t joint =
        static_cast<uint16_t>(c < 3 * joints ? c / 3 : static_cast<int>(rng.below(joints)));
    const Property p = static_cast<Property>(c < 3 * joints ? c % 3 : rng.below(3));
    const uint32_t roll = rng.below(10);
    const Interpolation interp = roll < 6   ? Interpolation::kLinear
                                 : roll < 8 ? Interpolation::kStep
                                            : Interpolation::kCubicSpline;
    std::vector<float> times;
    bool own_array = false;
    switch (rng.below(4)) {
      case 0:
      case 1:
        times = shared;  // add_channel shares it with the previous channel when equal
        break;
      case 2:
        times = shared;  // equal times in an array of its own
        own_array = true;
        break;
      default:
        times = random_times(rng, 1 + rng.below(30));
    }
    const std::vector<float> values = random_values(rng, p, interp, times.size());
    if (own_array) {
      storage->push_back(std::make_unique<std::vector<float>>(times));
      const std::span<const float> t_view = *storage->back();
      storage->push_back(std::make_unique<std::vector<float>>(values));
      const std::span<const float> v_view = *storage->back();
      clip.add_channel_view(Channel{joint, p, interp, t_view, v_view, 0});
    } else {
      clip.add_channel(joint, p, interp, times, values);
    }
  }
  return clip;
}

std::vector<Trs> random_pose(Rng& rng, int joints) {
  std::vector<Trs> pose(static_cast<size_t>(joints));
  for (Trs& j : pose) {
    j.translation = {rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1)};
    j.rotation = random_quat(rng);
    j.scale = {rng.range(0.5f, 2), rng.range(0.5f, 2), rng.range(0.5f, 2)};
  }
  return pose;
}

void set_property(Trs& a, Property p, const Vec4& v) {
  switch (p) {
    case Property::kTranslation:
      a.translation = {v.x, v.y, v.z};
      break;
    case Property::kScale:
      a.scale = {v.x, v.y, v.z};
      break;
    case Property::kRotation:
      a.rotation = {v.x, v.y, v.z, v.w};
      break;
    case Property::kWeights:
      break;
  }
}

// The reference: sample() of each channel in turn, its value set on its joint.
void sample_per_channel(const Clip& clip, float t, std::span<uint32_t> cursors,
                        std::span<Trs> pose) {
  const auto channels = clip.channels();
  for (size_t c = 0; c < channels.size(); ++c) {
    if (channels[c].property == Property::kWeights) continue;
    set_property(pose[channels[c].joint], channels[c].property,
                 sample(channels[c], t, &cursors[c]));
  }
}

bool same_bits(std::span<const Trs> a, std::span<const Trs> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Trs)) == 0;
}

// The times a player would ask for: forward steps, repeats, jumps both ways, and times
// before the first key, after the last and exactly on keys.
float next_time(Rng& rng, const Clip& clip, float t) {
  const float d = clip.duration();
  switch (rng.below(8)) {
    case 0:
      return rng.range(0.0f, d);  // a jump
    case 1:
      return -rng.unit();  // before every key
    case 2:
      return d + rng.unit();  // after every key
    case 3: {
      const Channel& ch = clip.channels()[rng.below(static_cast<uint32_t>(clip.channels().size()))];
      return ch.times[rng.below(static_cast<uint32_t>(ch.times.size()))];  // on a key
    }
    case 4:
      return t;  // the same time again
    default:
      return t + rng.range(0.0f, 0.05f);  // forward
  }
}

// `steps` poses of clip at the times next_time() picks, from sample_pose() and from
// sample_per_channel() over the same start pose, compared bit for bit, and so are the
// cursors of the joint channels (a kWeights channel's cursor is sample_layer_weights' to
// move); now and then both sets of cursors are scrambled alike (a seek, a reused layer).
// on_time(t) is called with each time.
template <typename OnTime>
void expect_pose_sampler_matches(Rng& rng, const Clip& clip, std::span<const Trs> start, int steps,
                                 uint64_t seed, const OnTime& on_time) {
  const size_t n = clip.channels().size();
  std::vector<uint32_t> ref_cursors(n, 0), fast_cursors(n, 0);
  float t = 0.0f;
  for (int step = 0; step < steps; ++step) {
    t = next_time(rng, clip, t);
    if (rng.below(16) == 0) {
      for (size_t c = 0; c < n; ++c) ref_cursors[c] = fast_cursors[c] = rng.next();
    }
    std::vector<Trs> ref(start.begin(), start.end()), fast(start.begin(), start.end());
    sample_per_channel(clip, t, ref_cursors, ref);
    sample_pose(clip, t, fast_cursors, fast);
    ASSERT_TRUE(same_bits(ref, fast)) << "seed " << seed << " step " << step << " t " << t;
    for (size_t c = 0; c < n; ++c) {
      if (clip.channels()[c].property == Property::kWeights) continue;
      ASSERT_EQ(ref_cursors[c], fast_cursors[c]) << "seed " << seed << " step " << step;
    }
    on_time(t);
  }
}

TEST(ClipSampling, PoseSamplerMatchesPerChannelSampleBitForBit) {
  int wide = 0;  // wide slerps met, so that the test is known to reach the batch
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Rng rng(seed);
    const int joints = 1 + static_cast<int>(rng.below(12));
    std::vector<std::unique_ptr<std::vector<float>>> storage;
    const Clip clip = random_clip(rng, joints, &storage);
    ASSERT_TRUE(clip.validate(joints).has_value()) << "seed " << seed;
    const std::vector<Trs> start = random_pose(rng, joints);
    expect_pose_sampler_matches(rng, clip, start, 200, seed, [&](float t) {
      for (const Channel& ch : clip.channels()) {
        if (ch.property != Property::kRotation || ch.interpolation != Interpolation::kLinear ||
            !(t > ch.times.front()) || !(t < ch.times.back())) {
          continue;
        }
        size_t k = 0;
        while (!(t < ch.times[k + 1])) ++k;
        const float* a = ch.values.data() + 4 * k;
        const float dot = a[0] * a[4] + a[1] * a[5] + a[2] * a[6] + a[3] * a[7];
        if (std::fabs(dot) <= 0.9995f && t > ch.times[k]) ++wide;
      }
    });
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(wide, 1000) << "the random clips reach slerp's wide path";
}

// Every joint channel LINEAR over one times array (as glTF exporters and the benchmark
// rig key them): sample_pose searches those keys once for the whole pose
// (Clip::shared_linear_times). Some clips also carry a kWeights channel with times of its
// own, anywhere among the others, and a second channel on some property.
TEST(ClipSampling, PoseSamplerOverOneSharedTimesArrayMatchesPerChannelSampleBitForBit) {
  int shared_poses = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng(seed * 7919);
    const int joints = 1 + static_cast<int>(rng.below(40));
    const std::vector<float> times = random_times(rng, 2 + rng.below(60));
    const bool weights = rng.below(2) == 0;
    const int channels = 3 * joints + static_cast<int>(rng.below(4));
    const int weights_at = static_cast<int>(rng.below(static_cast<uint32_t>(channels) + 1));
    Clip clip("shared");
    for (int c = 0; c <= channels; ++c) {
      if (weights && c == weights_at) {
        const std::vector<float> wt = random_times(rng, 2 + rng.below(9));
        std::vector<float> wv;
        for (size_t k = 0; k < 2 * wt.size(); ++k) wv.push_back(rng.unit());
        clip.add_weights_channel(0, 2, Interpolation::kLinear, wt, wv);
      }
      if (c == channels) break;
      const uint16_t joint =
          static_cast<uint16_t>(c < 3 * joints ? c / 3 : static_cast<int>(rng.below(joints)));
      const Property p = static_cast<Property>(c < 3 * joints ? c % 3 : rng.below(3));
      clip.add_channel(joint, p, Interpolation::kLinear, times,
                       random_values(rng, p, Interpolation::kLinear, times.size()));
    }
    const uint16_t widths[] = {2};
    ASSERT_TRUE(clip.validate(joints, widths).has_value()) << "seed " << seed;
    ASSERT_EQ(clip.shared_linear_times().data(),
              clip.channels()[weights_at == 0 && weights ? 1 : 0].times.data())
        << "seed " << seed;
    ASSERT_EQ(clip.has_weights(), weights);
    const std::vector<Trs> start = random_pose(rng, joints);
    expect_pose_sampler_matches(rng, clip, start, 300, seed, [&](float t) {
      if (t > times.front() && t < times.back()) ++shared_poses;
    });
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(shared_poses, 5000) << "most poses lie strictly inside the shared keys";
}

TEST(ClipSampling, SharedLinearTimesNeedsEveryJointChannelLinearOnTheSameArray) {
  const std::vector<float> times = {0.0f, 0.5f, 1.0f};
  const std::vector<float> other = {0.0f, 0.25f, 1.0f};
  const std::vector<float> v3(9, 1.0f), v4 = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  Clip shared("shared");
  shared.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, v3);
  shared.add_channel(0, Property::kRotation, Interpolation::kLinear, times, v4);  // equal: shared
  EXPECT_EQ(shared.shared_linear_times().data(), shared.channels()[0].times.data());
  EXPECT_EQ(shared.shared_linear_times().size(), 3u);
  Clip step("step");
  step.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, v3);
  step.add_channel(0, Property::kRotation, Interpolation::kStep, times, v4);
  EXPECT_TRUE(step.shared_linear_times().empty());
  Clip apart("apart");
  apart.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, v3);
  apart.add_channel(0, Property::kRotation, Interpolation::kLinear, other, v4);
  EXPECT_TRUE(apart.shared_linear_times().empty());
  // Equal times in an array of their own are not the same array.
  Clip own("own");
  own.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, v3);
  own.add_channel_view(Channel{0, Property::kScale, Interpolation::kLinear, times, v3, 0});
  EXPECT_TRUE(own.shared_linear_times().empty());
  // A copy shares its own arrays the same way.
  const Clip copy = shared.copy();
  EXPECT_EQ(copy.shared_linear_times().data(), copy.channels()[0].times.data());
  EXPECT_TRUE(Clip("empty").shared_linear_times().empty());
}

TEST(ClipSampling, AnimatorEvaluateMatchesPoseSamplerOverTheRestPose) {
  Rng rng(77);
  const int joints = 9;
  std::vector<Joint> skeleton_joints(joints);
  for (int j = 0; j < joints; ++j) {
    skeleton_joints[static_cast<size_t>(j)].name = "j" + std::to_string(j);
    skeleton_joints[static_cast<size_t>(j)].parent = static_cast<int16_t>(j - 1);
  }
  const std::vector<Trs> rest = random_pose(rng, joints);
  for (size_t j = 0; j < rest.size(); ++j) skeleton_joints[j].rest = rest[j];
  std::vector<std::unique_ptr<std::vector<float>>> storage;
  std::vector<Clip> clips;
  clips.push_back(random_clip(rng, joints, &storage));
  const Clip copy = clips[0].copy();  // the rig takes the clip; compare with a copy
  auto skeleton = Skeleton::create(skeleton_joints, std::vector<Mat4>(joints), Mat4{});
  ASSERT_TRUE(skeleton.has_value());
  auto rig = Rig::create(std::move(*skeleton), std::move(clips));
  ASSERT_TRUE(rig.has_value());
  auto animator = Animator::create(&*rig, 60);
  ASSERT_TRUE(animator.has_value());
  PlayOptions once;
  once.playback = Playback::kOnce;
  const auto layer = animator->play(0, 0, once);
  ASSERT_TRUE(layer.has_value());
  std::vector<uint32_t> cursors(copy.channels().size(), 0);
  const int64_t last = static_cast<int64_t>(copy.duration() * 60.0f) + 5;
  for (int64_t tick = 0; tick <= last; ++tick) {
    animator->evaluate(tick);
    const auto seconds = animator->clip_time(*layer, tick);
    ASSERT_TRUE(seconds.has_value());
    std::vector<Trs> pose = rest;
    sample_pose(copy, static_cast<float>(*seconds), cursors, pose);
    ASSERT_TRUE(same_bits(pose, animator->locals())) << "tick " << tick;
  }
}

// glTF's slerp as math.h documents it, written out with det:: functions: theta =
// atan2(sqrt(1 - d^2), d) in double, each component a w0 + b w1 in double, rounded.
Quat slerp_reference(Quat a, Quat b, float t) {
  float d = ((a.x * b.x + a.y * b.y) + a.z * b.z) + a.w * b.w;
  if (d < 0.0f) {
    b = {-b.x, -b.y, -b.z, -b.w};
    d = -d;
  }
  const double dd = d;
  const double s = det::sqrt(1.0 - dd * dd);
  const double theta = det::atan2(s, dd);
  const double w0 = det::sin((1.0 - t) * theta) / s;
  const double w1 = det::sin(t * theta) / s;
  const auto mix = [&](float x, float y) {
    return static_cast<float>(static_cast<double>(x) * w0 + static_cast<double>(y) * w1);
  };
  return {mix(a.x, b.x), mix(a.y, b.y), mix(a.z, b.z), mix(a.w, b.w)};
}

TEST(ClipSampling, WideSlerpMatchesGltfFormulaWithDetSinBitForBit) {
  Rng rng(5);
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    const Quat a = random_quat(rng);
    Quat b = rng.below(8) == 0 ? normalized(-a.y, a.x, -a.w, a.z) : random_quat(rng);  // dot 0
    if (rng.below(8) == 0) b = next_rotation(rng, a);
    float t = rng.unit();
    if (rng.below(16) == 0) t = rng.below(2) == 0 ? 1e-30f : 1.0f - 6e-8f;  // near the ends
    const float d = dot(a, b);
    if (!(std::fabs(d) <= 0.9995f) || !(t > 0.0f) || !(t < 1.0f)) continue;
    const Quat got = slerp(a, b, t);
    const Quat want = slerp_reference(a, b, t);
    ASSERT_EQ(std::memcmp(&got, &want, sizeof(Quat)), 0)
        << "i " << i << " d " << d << " t " << t << ": " << got.x << " vs " << want.x;
    ++checked;
  }
  EXPECT_GT(checked, 100000);
}

// The sines slerp takes lie in (0, pi/2]; near pi/4 the scalar sine changes polynomial
// (quadrant 0 to 1). Keys chosen so that theta crosses that boundary, and d = 0 (theta =
// pi/2 exactly).
TEST(ClipSampling, WideSlerpMatchesTheFormulaWhereTheSineChangesQuadrant) {
  int checked = 0;
  for (int i = 0; i <= 4000; ++i) {
    // a = identity, b = a rotation by 2 phi about z: d = cos(phi), theta = phi.
    const double phi = 0.70 + 0.87 * i / 4000.0;  // 0.70 .. 1.57 rad
    const Quat a{0, 0, 0, 1};
    const Quat b{0, 0, static_cast<float>(std::sin(phi)), static_cast<float>(std::cos(phi))};
    for (float t : {0.25f, 0.5f, 0.5f + 1e-6f, 0.75f, 0.9f, 0.999f}) {
      const Quat got = slerp(a, b, t);
      const Quat want = slerp_reference(a, b, t);
      ASSERT_EQ(std::memcmp(&got, &want, sizeof(Quat)), 0) << "phi " << phi << " t " << t;
      ++checked;
    }
  }
  const Quat a{1, 0, 0, 0}, b{0, 1, 0, 0};  // d = 0
  for (int i = 1; i < 1000; ++i) {
    const float t = static_cast<float>(i) / 1000.0f;
    const Quat got = slerp(a, b, t);
    const Quat want = slerp_reference(a, b, t);
    ASSERT_EQ(std::memcmp(&got, &want, sizeof(Quat)), 0) << "t " << t;
  }
  EXPECT_GT(checked, 20000);
}

}  // namespace
}  // namespace animpack
