// Boxes and posed bounds (animpack/bounds.h) on small cases built here; the corpus test
// (tests/compiler/mesh_bounds_test.cpp) holds posed_bounds against skinning.
#include "animpack/bounds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace animpack {
namespace {

Box box_of(Vec3 lo, Vec3 hi) {
  Box b;
  b.lo = lo;
  b.hi = hi;
  return b;
}

TEST(Box, DefaultIsEmptyAndGrowsToHoldPoints) {
  Box b;
  EXPECT_FALSE(b.valid());
  b.grow({1, 2, 3});
  EXPECT_TRUE(b.valid());
  EXPECT_TRUE(b.contains({1, 2, 3}));
  b.grow({-1, 5, 0});
  EXPECT_EQ(b.lo.x, -1.0f);
  EXPECT_EQ(b.hi.y, 5.0f);
  EXPECT_EQ(b.lo.z, 0.0f);
  EXPECT_FALSE(b.contains({0, 6, 1}));
}

TEST(Box, GrowIgnoresNanCoordinates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Box b;
  b.grow({0, 0, 0});
  b.grow({nan, 7, nan});
  EXPECT_EQ(b.lo.x, 0.0f);
  EXPECT_EQ(b.hi.x, 0.0f);
  EXPECT_EQ(b.hi.y, 7.0f);
  EXPECT_EQ(b.hi.z, 0.0f);
}

TEST(Box, MergeSkipsEmptyBoxes) {
  Box a = box_of({0, 0, 0}, {1, 1, 1});
  a.merge(Box{});
  EXPECT_EQ(a.lo.x, 0.0f);
  EXPECT_EQ(a.hi.x, 1.0f);
  a.merge(box_of({-2, 0.5f, 0.5f}, {0, 3, 0.5f}));
  EXPECT_EQ(a.lo.x, -2.0f);
  EXPECT_EQ(a.hi.y, 3.0f);
  EXPECT_EQ(a.hi.z, 1.0f);
}

TEST(TransformBox, HoldsEveryTransformedCornerAndKeepsEmptyEmpty) {
  EXPECT_FALSE(transform_box(Box{}, Mat4{}).valid());
  const Box b = box_of({-1, -2, -3}, {1, 2, 3});
  const Mat4 m = to_matrix({{10, 0, 0}, quat_from_axis_angle({0, 0, 1}, 0.5f), {2, 2, 2}});
  const Box t = transform_box(b, m);
  for (int k = 0; k < 8; ++k) {
    const Vec3 c{(k & 1) ? 1.0f : -1.0f, (k & 2) ? 2.0f : -2.0f, (k & 4) ? 3.0f : -3.0f};
    EXPECT_TRUE(t.contains(transform_point(m, c))) << k;
  }
  EXPECT_NEAR(t.lo.z, -6.0f, 1e-5f);
  EXPECT_NEAR(t.hi.z, 6.0f, 1e-5f);
}

TEST(WithMargin, PushesEverySideOutRelativeToTheLargestCoordinate) {
  const Box b = box_of({-1, 0, 0}, {1000, 1, 1});
  const Box m = with_margin(b);
  const float d = 1000.0f * kBoundsMargin + kBoundsMinMargin;
  EXPECT_FLOAT_EQ(m.lo.x, -1.0f - d);
  EXPECT_FLOAT_EQ(m.hi.x, 1000.0f + d);
  EXPECT_FLOAT_EQ(m.lo.y, -d);
  EXPECT_FALSE(with_margin(Box{}).valid());
}

TEST(PosedBounds, EmptyPaletteGivesBindAndJointsOutsideThePaletteAreSkipped) {
  std::vector<JointBounds> joints(2);
  joints[0].joint = 0;
  joints[0].lo = {-1, -1, -1};
  joints[0].hi = {1, 1, 1};
  joints[1].joint = 5;  // outside a 1-joint palette
  joints[1].lo = {100, 100, 100};
  joints[1].hi = {101, 101, 101};
  MeshBounds bounds{box_of({-3, -3, -3}, {3, 3, 3}), Box{}, joints};
  const Box bind = posed_bounds(bounds, {});
  EXPECT_EQ(bind.lo.x, -3.0f);
  EXPECT_EQ(bind.hi.z, 3.0f);

  const Mat4 palette[1] = {to_matrix({{5, 0, 0}, {}, {1, 1, 1}})};
  const Box posed = posed_bounds(bounds, palette);
  EXPECT_TRUE(posed.contains({4, -1, -1}));
  EXPECT_TRUE(posed.contains({6, 1, 1}));
  EXPECT_FALSE(posed.contains({100, 100, 100}));
  EXPECT_LT(posed.hi.x, 6.01f);
  EXPECT_GT(posed.lo.x, 3.99f);
}

TEST(PosedBounds, FrameAndFixedPartsAreApplied) {
  // Joint 0's box lives in a frame translated by (0, 10, 0) and scaled by 2 from bind space.
  std::vector<JointBounds> joints(1);
  joints[0].frame = to_matrix({{0, 10, 0}, {}, {2, 2, 2}});
  joints[0].lo = {0, 0, 0};
  joints[0].hi = {1, 1, 1};
  MeshBounds bounds{box_of({0, 0, 0}, {1, 1, 1}), box_of({-7, 0, 0}, {-6, 0, 0}), joints};
  const Mat4 palette[1] = {Mat4{}};
  const Box posed = posed_bounds(bounds, palette);
  EXPECT_TRUE(posed.contains({2, 12, 2}));
  EXPECT_TRUE(posed.contains({-7, 0, 0}));
  EXPECT_FALSE(posed.contains({2, 13, 2}));
}

}  // namespace
}  // namespace animpack
