// Vectors, quaternions, matrices: hand-computed values.
#include "animpack/math.h"

#include <gtest/gtest.h>

#include "animpack/scalar.h"

namespace animpack {
namespace {

void expect_near(Vec3 a, Vec3 b, float eps = 1e-6f) {
  EXPECT_NEAR(a.x, b.x, eps);
  EXPECT_NEAR(a.y, b.y, eps);
  EXPECT_NEAR(a.z, b.z, eps);
}

void expect_near(Quat a, Quat b, float eps = 1e-6f) {
  EXPECT_NEAR(a.x, b.x, eps);
  EXPECT_NEAR(a.y, b.y, eps);
  EXPECT_NEAR(a.z, b.z, eps);
  EXPECT_NEAR(a.w, b.w, eps);
}

const float kHalfSqrt2 = 0.70710678f;

TEST(Math, AxisAngleQuaternionRotatesAVector) {
  const Quat q = quat_from_axis_angle({0, 0, 1}, static_cast<float>(det::kPi / 2));
  expect_near(q, {0, 0, kHalfSqrt2, kHalfSqrt2});
  expect_near(rotate(q, {1, 0, 0}), {0, 1, 0});
}

TEST(Math, QuaternionProductAppliesTheRightOperandFirst) {
  const Quat z90 = quat_from_axis_angle({0, 0, 1}, static_cast<float>(det::kPi / 2));
  const Quat x90 = quat_from_axis_angle({1, 0, 0}, static_cast<float>(det::kPi / 2));
  // x90 first takes y to z; z90 leaves z alone.
  expect_near(rotate(z90 * x90, {0, 1, 0}), {0, 0, 1});
  // z90 first takes y to -x; x90 leaves x alone.
  expect_near(rotate(x90 * z90, {0, 1, 0}), {-1, 0, 0});
}

TEST(Math, SlerpHalfwayBetweenIdentityAndNinetyDegreesIsFortyFive) {
  const Quat a{};
  const Quat b = quat_from_axis_angle({0, 0, 1}, static_cast<float>(det::kPi / 2));
  const Quat h = slerp(a, b, 0.5f);
  // 45 degrees about z: (0, 0, sin 22.5, cos 22.5)
  expect_near(h, {0, 0, 0.38268343f, 0.92387953f});
  // A quarter of the way: 22.5 degrees, which nlerp would not give.
  expect_near(slerp(a, b, 0.25f), {0, 0, 0.19509032f, 0.98078528f});
}

TEST(Math, SlerpTakesTheShorterWay) {
  const Quat a{};
  const Quat b = quat_from_axis_angle({0, 0, 1}, static_cast<float>(det::kPi / 2));
  const Quat nb{-b.x, -b.y, -b.z, -b.w};  // the same rotation, other hemisphere
  expect_near(slerp(a, nb, 0.5f), {0, 0, 0.38268343f, 0.92387953f});
}

TEST(Math, SlerpEndsAreExact) {
  const Quat a = quat_from_axis_angle({0, 1, 0}, 0.3f);
  const Quat b = quat_from_axis_angle({0, 1, 0}, 2.0f);
  EXPECT_EQ(slerp(a, b, 0.0f), a);
  EXPECT_EQ(slerp(a, b, 1.0f), b);
}

TEST(Math, SlerpOfNearlyEqualRotationsUsesNlerp) {
  const Quat a = quat_from_axis_angle({0, 1, 0}, 0.0f);
  const Quat b = quat_from_axis_angle({0, 1, 0}, 0.01f);  // dot = cos(0.005) > 0.9995
  EXPECT_EQ(slerp(a, b, 0.3f), nlerp(a, b, 0.3f));
}

TEST(Math, TrsMatrixIsTranslationTimesRotationTimesScale) {
  Trs t;
  t.translation = {1, 2, 3};
  t.rotation = quat_from_axis_angle({0, 0, 1}, static_cast<float>(det::kPi / 2));
  t.scale = {2, 2, 2};
  const Mat4 m = to_matrix(t);
  // (1, 0, 0) scaled to (2, 0, 0), rotated to (0, 2, 0), moved to (1, 4, 3).
  expect_near(transform_point(m, {1, 0, 0}), {1, 4, 3});
  expect_near(transform_vector(m, {1, 0, 0}), {0, 2, 0});
}

TEST(Math, AffineProductMatchesTheGeneralProduct) {
  Trs a, b;
  a.translation = {1, -2, 0.5f};
  a.rotation = normalize(Quat{0.1f, 0.2f, 0.3f, 0.9f});
  a.scale = {1, 2, 3};
  b.translation = {-4, 0, 2};
  b.rotation = normalize(Quat{-0.3f, 0.1f, 0.0f, 0.8f});
  const Mat4 g = to_matrix(a) * to_matrix(b);
  const Mat4 f = mul_affine(to_matrix(a), to_matrix(b));
  for (int i = 0; i < 16; ++i) EXPECT_EQ(g.m[i], f.m[i]) << i;
}

TEST(Math, AffineInverseUndoesTheMatrix) {
  Trs t;
  t.translation = {3, -1, 2};
  t.rotation = normalize(Quat{0.2f, -0.4f, 0.1f, 0.8f});
  t.scale = {2, 0.5f, 1.5f};
  bool ok = false;
  const Mat4 m = to_matrix(t);
  const Mat4 id = mul_affine(m, inverse_affine(m, &ok));
  ASSERT_TRUE(ok);
  const Mat4 want;
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(id.m[i], want.m[i], 1e-5f) << i;
  Mat4 singular;
  singular.m[0] = 0;
  inverse_affine(singular, &ok);
  EXPECT_FALSE(ok);
}

TEST(Math, DecomposeRecoversTrs) {
  Trs t;
  t.translation = {3, -1, 2};
  t.rotation = normalize(Quat{0.2f, -0.4f, 0.1f, 0.8f});
  t.scale = {2, 0.5f, 1.5f};
  const Trs d = decompose(to_matrix(t));
  expect_near(d.translation, t.translation);
  expect_near(d.scale, t.scale, 1e-5f);
  const Quat r = dot(d.rotation, t.rotation) < 0
                     ? Quat{-d.rotation.x, -d.rotation.y, -d.rotation.z, -d.rotation.w}
                     : d.rotation;
  expect_near(r, t.rotation, 1e-5f);
}

TEST(Math, NormalizeLeavesZeroVectorsAlone) {
  EXPECT_EQ(normalize(Vec3{}), (Vec3{}));
  EXPECT_EQ(normalize(Quat{0, 0, 0, 0}), Quat{});
  expect_near(normalize(Vec3{3, 0, 4}), {0.6f, 0, 0.8f});
}

}  // namespace
}  // namespace animpack
