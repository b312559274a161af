// CPU skinning: hand-computed vertices, the fixture column in poses, refusals.
#include "animpack/skinning.h"

#include <gtest/gtest.h>

#include "animpack/animator.h"
#include "animpack/scalar.h"
#include "fixtures/fixture.h"

namespace animpack {
namespace {

TEST(Skinning, BlendsFourMatricesByWeight) {
  Mat4 a, b;
  a.m[12] = 2.0f;  // translate +2 x
  Trs t;
  t.rotation = quat_from_axis_angle({0, 0, 1}, static_cast<float>(det::kPi / 2));
  b = to_matrix(t);  // rotate 90 degrees about z
  const Mat4 palette[] = {a, b};
  const Vec3 p[] = {{1, 0, 0}};
  const Vec3 n[] = {{1, 0, 0}};
  const Vec4 tg[] = {{0, 1, 0, -1}};
  const JointIndices j[] = {{{0, 1, 0, 0}}};
  const Vec4 w[] = {{0.5f, 0.5f, 0, 0}};
  Vec3 op[1], on[1];
  Vec4 ot[1];
  ASSERT_TRUE(skin({p, n, tg, j, w}, palette, {op, on, ot}));
  // Half (3, 0, 0) and half (0, 1, 0).
  EXPECT_NEAR(op[0].x, 1.5f, 1e-6f);
  EXPECT_NEAR(op[0].y, 0.5f, 1e-6f);
  // The normal: half (1,0,0) + half (0,1,0), renormalised.
  EXPECT_NEAR(on[0].x, 0.70710678f, 1e-6f);
  EXPECT_NEAR(on[0].y, 0.70710678f, 1e-6f);
  // The tangent: half (0,1,0) + half (-1,0,0), renormalised, handedness kept.
  EXPECT_NEAR(ot[0].x, -0.70710678f, 1e-6f);
  EXPECT_NEAR(ot[0].y, 0.70710678f, 1e-6f);
  EXPECT_EQ(ot[0].w, -1.0f);
}

TEST(Skinning, TheRestPaletteLeavesTheColumnInItsBindPose) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  a.evaluate(0);
  const fixture::Column col = fixture::make_column();
  std::vector<Vec3> pos(col.positions.size());
  ASSERT_TRUE(skin({col.positions, {}, {}, col.joints, col.weights}, a.palette(), {pos, {}, {}}));
  for (size_t v = 0; v < pos.size(); ++v) {
    EXPECT_EQ(pos[v], col.positions[v]) << v;
  }
}

TEST(Skinning, ABentChainCarriesTheTopOfTheColumnOver) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Rotate", 0));
  a.evaluate(60);  // 0.5 rad at each of bone1..3
  const fixture::Column col = fixture::make_column();
  std::vector<Vec3> pos(col.positions.size()), nrm(col.positions.size());
  ASSERT_TRUE(
      skin({col.positions, col.normals, {}, col.joints, col.weights}, a.palette(), {pos, nrm, {}}));
  // The bottom ring stays put (root only); a vertex fully on bone3 follows bone3's global.
  for (int v = 0; v < fixture::kVerticesPerRing; ++v)
    EXPECT_EQ(pos[static_cast<size_t>(v)], col.positions[static_cast<size_t>(v)]);
  const size_t top = col.positions.size() - 1;
  const Vec3 want = transform_point(a.palette()[3], col.positions[top]);
  EXPECT_NEAR(pos[top].x, want.x, 1e-6f);
  EXPECT_NEAR(pos[top].y, want.y, 1e-6f);
  EXPECT_LT(pos[top].x, -1.0f) << "bent towards -x by the +z rotations";
  for (const Vec3& n : nrm) EXPECT_NEAR(length(n), 1.0f, 1e-6f);
}

TEST(Skinning, RefusesAJointOutsideThePalette) {
  const Mat4 palette[2];
  const Vec3 p[] = {{1, 0, 0}};
  const JointIndices j[] = {{{0, 2, 0, 0}}};
  const Vec4 w[] = {{0.5f, 0.5f, 0, 0}};
  Vec3 op[1];
  auto r = skin({p, {}, {}, j, w}, palette, {op, {}, {}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadJointIndex);
}

TEST(Skinning, RefusesStreamsOfDifferentLengths) {
  const Mat4 palette[1];
  const Vec3 p[] = {{1, 0, 0}, {2, 0, 0}};
  const JointIndices j[] = {{}};
  const Vec4 w[] = {{1, 0, 0, 0}};
  Vec3 op[2];
  auto r = skin({p, {}, {}, j, w}, palette, {op, {}, {}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kSizeMismatch);
}

}  // namespace
}  // namespace animpack
