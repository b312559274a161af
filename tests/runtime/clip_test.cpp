// Channel sampling against hand-computed values (glTF 2.0 Appendix C), the key cursor,
// and clip refusals.
#include "animpack/clip.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "animpack/scalar.h"
#include "fixtures/fixture.h"

namespace animpack {
namespace {

const Channel& channel_of(const Rig& rig, const char* clip, size_t index) {
  return rig.clips()[*rig.find_clip(clip)].channels()[index];
}

Vec4 at(const Channel& ch, float t) {
  uint32_t cursor = 0;
  return sample(ch, t, &cursor);
}

void expect_vec(Vec4 v, float x, float y, float z, float w = 0.0f, float eps = 1e-6f) {
  EXPECT_NEAR(v.x, x, eps);
  EXPECT_NEAR(v.y, y, eps);
  EXPECT_NEAR(v.z, z, eps);
  EXPECT_NEAR(v.w, w, eps);
}

TEST(Sampling, StepHoldsEachKeyUntilTheNext) {
  const Rig rig = fixture::make_rig();
  const Channel& ch = channel_of(rig, "Step", 0);  // (0,0,0) (1,0,0) (0,0,0) at 0, .5, 1
  expect_vec(at(ch, 0.0f), 0, 0, 0);
  expect_vec(at(ch, 0.49f), 0, 0, 0);
  expect_vec(at(ch, 0.5f), 1, 0, 0);
  expect_vec(at(ch, 0.99f), 1, 0, 0);
  expect_vec(at(ch, 1.0f), 0, 0, 0);
}

TEST(Sampling, LinearLerpsTranslation) {
  const Rig rig = fixture::make_rig();
  const Channel& ch = channel_of(rig, "Linear", 0);  // (0,0,0) (0,2,0) (0,0,0) at 0, 1, 2
  expect_vec(at(ch, 0.25f), 0, 0.5f, 0);
  expect_vec(at(ch, 1.0f), 0, 2, 0);
  expect_vec(at(ch, 1.5f), 0, 1, 0);
  const Channel& scale = channel_of(rig, "Linear", 1);  // (1,1,1) -> (2,2,2) over 2 s
  expect_vec(at(scale, 0.5f), 1.25f, 1.25f, 1.25f);
}

TEST(Sampling, LinearSlerpsRotation) {
  const Rig rig = fixture::make_rig();
  const Channel& ch = channel_of(rig, "Rotate", 0);  // 0 -> 0.5 rad about z over 1 s
  // Half way: 0.25 rad, i.e. (0, 0, sin 0.125, cos 0.125).
  expect_vec(at(ch, 0.5f), 0, 0, 0.12467473f, 0.99219767f);
  expect_vec(at(ch, 1.5f), 0, 0, 0.12467473f, 0.99219767f);
}

TEST(Sampling, LinearRotationOverAWideAngleIsASlerpNotAnNlerp) {
  Clip clip("wide");
  const float t[] = {0.0f, 1.0f};
  const Quat b = quat_from_axis_angle({0, 1, 0}, 2.0f);  // dot = cos(1) < 0.9995
  const float v[] = {0, 0, 0, 1, b.x, b.y, b.z, b.w};
  clip.add_channel(0, Property::kRotation, Interpolation::kLinear, t, v);
  // A quarter of the way is 0.5 rad: (0, sin 0.25, 0, cos 0.25).
  expect_vec(at(clip.channels()[0], 0.25f), 0, 0.24740396f, 0, 0.96891242f);
}

TEST(Sampling, CubicSplineUsesTangentsScaledByTheKeyInterval) {
  const Rig rig = fixture::make_rig();
  // p0 = (0,1,0), out-tangent (1,0,0); p1 = (1,1,0), in-tangent (2,0,0); interval 1.
  // At u = 0.5: h00 = .5, h10 = .125, h01 = .5, h11 = -.125:
  // x = .125 * 1 + .5 * 1 - .125 * 2 = 0.375.
  expect_vec(at(channel_of(rig, "Cubic", 0), 0.5f), 0.375f, 1, 0);

  // The same keys over an interval of 2: the tangents double.
  // x = .125 * 2 + .5 - .125 * 4 = 0.25.
  Clip clip("wide");
  const float t[] = {0.0f, 2.0f};
  const float v[] = {0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 0, 0, 1, 1, 0, 0, 0, 0};
  clip.add_channel(0, Property::kTranslation, Interpolation::kCubicSpline, t, v);
  expect_vec(at(clip.channels()[0], 1.0f), 0.25f, 1, 0);
}

TEST(Sampling, CubicSplineRotationComesBackNormalised) {
  const Rig rig = fixture::make_rig();
  // Identity -> 90 degrees about z, zero tangents: half way is (0,0,.3536,.8536) before
  // normalising, 45 degrees about z after.
  expect_vec(at(channel_of(rig, "Cubic", 1), 0.5f), 0, 0, 0.38268343f, 0.92387953f);
}

TEST(Sampling, BeforeTheFirstKeyTheFirstValueHoldsAndAfterTheLastTheLast) {
  Clip clip("late");
  const float t[] = {1.0f, 2.0f};
  const float v[] = {1, 2, 3, 4, 5, 6};
  clip.add_channel(0, Property::kTranslation, Interpolation::kLinear, t, v);
  expect_vec(at(clip.channels()[0], 0.0f), 1, 2, 3);
  expect_vec(at(clip.channels()[0], 0.5f), 1, 2, 3);
  expect_vec(at(clip.channels()[0], 5.0f), 4, 5, 6);
  EXPECT_EQ(clip.duration(), 2.0f);
}

TEST(Sampling, ASingleKeyIsConstant) {
  Clip clip("one");
  const float t[] = {0.5f};
  const float v[] = {7, 8, 9};
  clip.add_channel(0, Property::kScale, Interpolation::kCubicSpline, t,
                   std::span<const float>(std::vector<float>{0, 0, 0, 7, 8, 9, 0, 0, 0}));
  expect_vec(at(clip.channels()[0], 0.0f), 7, 8, 9);
  expect_vec(at(clip.channels()[0], 3.0f), 7, 8, 9);
  (void)v;
}

TEST(Sampling, ForwardPlaybackAdvancesTheCursorOneKeyAtATime) {
  Clip clip("many");
  std::vector<float> t, v;
  for (int k = 0; k < 100; ++k) {
    t.push_back(static_cast<float>(k) * 0.1f);
    v.insert(v.end(), {static_cast<float>(k), 0, 0});
  }
  clip.add_channel(0, Property::kTranslation, Interpolation::kLinear, t, v);
  const Channel& ch = clip.channels()[0];
  uint32_t cursor = 0;
  for (int k = 0; k < 98; ++k) {
    const float time = t[static_cast<size_t>(k)] + 0.05f;
    const Vec4 got = sample(ch, time, &cursor);
    EXPECT_EQ(cursor, static_cast<uint32_t>(k)) << "the cursor names the key before the time";
    uint32_t fresh = 12345;  // any hint gives the same bits
    const Vec4 want = sample(ch, time, &fresh);
    EXPECT_EQ(got.x, want.x);
  }
  // A jump backwards (a loop) repairs the cursor.
  const Vec4 back = sample(ch, 0.15f, &cursor);
  EXPECT_EQ(cursor, 1u);
  EXPECT_NEAR(back.x, 1.5f, 1e-5f);
}

TEST(Clip, EventsAreKeptInTimeOrder) {
  Clip clip("e");
  clip.add_event("b", 0.5f);
  clip.add_event("a", 0.25f);
  clip.add_event("c", 0.5f);
  ASSERT_EQ(clip.events().size(), 3u);
  EXPECT_EQ(clip.events()[0].name, "a");
  EXPECT_EQ(clip.events()[1].name, "b");
  EXPECT_EQ(clip.events()[2].name, "c");
}

Result<void> validate_one(std::vector<float> t, std::vector<float> v,
                          Property p = Property::kTranslation,
                          Interpolation i = Interpolation::kLinear, uint16_t joint = 0) {
  Clip clip("c");
  clip.add_channel(joint, p, i, t, v);
  return clip.validate(2);
}

TEST(Clip, RefusesKeyTimesThatDoNotAscend) {
  auto r = validate_one({0.0f, 1.0f, 1.0f}, {0, 0, 0, 1, 1, 1, 2, 2, 2});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadClip);
  EXPECT_FALSE(validate_one({1.0f, 0.5f}, {0, 0, 0, 1, 1, 1}));
  EXPECT_FALSE(validate_one({-1.0f, 0.5f}, {0, 0, 0, 1, 1, 1}));
}

TEST(Clip, RefusesValueCountsThatDoNotMatchTheKeys) {
  EXPECT_FALSE(validate_one({0.0f, 1.0f}, {0, 0, 0, 1, 1}));
  EXPECT_FALSE(validate_one({0.0f, 1.0f}, {0, 0, 0, 1, 1, 1}, Property::kRotation));
  // Cubic splines need three groups per key.
  EXPECT_FALSE(validate_one({0.0f, 1.0f}, {0, 0, 0, 1, 1, 1}, Property::kTranslation,
                            Interpolation::kCubicSpline));
  EXPECT_TRUE(validate_one({0.0f, 1.0f}, {0, 0, 0, 1, 1, 1}));
}

TEST(Clip, RefusesAJointOutsideTheSkeleton) {
  auto r = validate_one({0.0f}, {0, 0, 0}, Property::kTranslation, Interpolation::kStep, 2);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadClip);
}

TEST(Clip, RefusesNonFiniteValuesAndEmptyChannels) {
  EXPECT_FALSE(validate_one({0.0f}, {0, std::numeric_limits<float>::quiet_NaN(), 0}));
  EXPECT_FALSE(validate_one({}, {}));
}

TEST(Clip, RefusesAnEventPastItsEnd) {
  Clip clip("c");
  const float t[] = {0.0f, 1.0f};
  const float v[] = {0, 0, 0, 1, 1, 1};
  clip.add_channel(0, Property::kTranslation, Interpolation::kLinear, t, v);
  clip.add_event("late", 1.5f);
  auto r = clip.validate(1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadClip);
}

}  // namespace
}  // namespace animpack

namespace animpack {
namespace {

// Clip::copy owns its keys (the source may go, or view keys that go), and keeps the
// events, the additive reference and a duration longer than the keys.
TEST(Clip, CopyOwnsItsKeysAndKeepsEventsDurationAndReference) {
  Clip copy;
  {
    std::vector<float> times = {0.0f, 0.5f};
    std::vector<float> values = {0, 0, 0, 1, 2, 3};
    Clip source("Sway");
    source.add_channel_view({1, Property::kTranslation, Interpolation::kLinear, times, values});
    source.add_event("tick", 0.25f);
    source.extend_duration(2.0f);
    source.set_additive(AdditiveReference::kRestPose);
    copy = source.copy();
    times.assign(times.size(), -1.0f);  // the viewed keys change, then go
    values.assign(values.size(), 99.0f);
  }
  EXPECT_EQ(copy.name(), "Sway");
  EXPECT_EQ(copy.duration(), 2.0f);
  EXPECT_EQ(copy.additive(), AdditiveReference::kRestPose);
  ASSERT_EQ(copy.events().size(), 1u);
  EXPECT_EQ(copy.events()[0].name, "tick");
  ASSERT_EQ(copy.channels().size(), 1u);
  EXPECT_EQ(copy.channels()[0].times[1], 0.5f);
  EXPECT_EQ(copy.channels()[0].values[5], 3.0f);
  EXPECT_TRUE(copy.validate(2));
}

}  // namespace
}  // namespace animpack
