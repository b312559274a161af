// Skeletons, rest palettes and parent chains.
#include "animpack/skeleton.h"

#include <gtest/gtest.h>

#include "animpack/rig.h"
#include "animpack/scalar.h"
#include "fixtures/fixture.h"

namespace animpack {
namespace {

TEST(Skeleton, RestPaletteOfTheFixtureIsTheIdentity) {
  const Skeleton s = fixture::make_skeleton();
  std::vector<Trs> locals(4);
  std::vector<Mat4> globals(4), palette(4);
  ASSERT_TRUE(rest_pose(s, locals));
  ASSERT_TRUE(local_to_global(s, locals, globals));
  ASSERT_TRUE(global_to_palette(s, globals, palette));
  const Mat4 identity;
  for (int j = 0; j < 4; ++j) {
    EXPECT_FLOAT_EQ(globals[j].m[13], static_cast<float>(j)) << "joint " << j << " stands at y = j";
    for (int i = 0; i < 16; ++i) EXPECT_EQ(palette[j].m[i], identity.m[i]) << j << ":" << i;
  }
}

TEST(Skeleton, GlobalsChainThroughParentsFromTheRootMatrix) {
  std::vector<Joint> joints(3);
  joints[0].name = "a";
  joints[0].rest.rotation = quat_from_axis_angle({0, 0, 1}, static_cast<float>(det::kPi / 2));
  joints[1].name = "b";
  joints[1].parent = 0;
  joints[1].rest.translation = {1, 0, 0};
  joints[2].name = "c";
  joints[2].parent = 1;
  joints[2].rest.translation = {1, 0, 0};
  Mat4 root;
  root.m[12] = 10;  // the whole skeleton moved 10 along x
  auto s = Skeleton::create(joints, {}, root);
  ASSERT_TRUE(s);
  std::vector<Trs> locals(3);
  std::vector<Mat4> globals(3);
  ASSERT_TRUE(rest_pose(*s, locals));
  ASSERT_TRUE(local_to_global(*s, locals, globals));
  // a turns +x into +y, so b sits at (10, 1) and c at (10, 2).
  EXPECT_NEAR(globals[1].m[12], 10.0f, 1e-6f);
  EXPECT_NEAR(globals[1].m[13], 1.0f, 1e-6f);
  EXPECT_NEAR(globals[2].m[12], 10.0f, 1e-6f);
  EXPECT_NEAR(globals[2].m[13], 2.0f, 1e-6f);
}

TEST(Skeleton, RefusesAParentThatComesAfterItsChild) {
  std::vector<Joint> joints(2);
  joints[0].parent = 1;
  auto s = Skeleton::create(joints, {}, Mat4{});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kBadSkeleton);
  joints[0].parent = 0;  // itself
  EXPECT_FALSE(Skeleton::create(joints, {}, Mat4{}));
}

TEST(Skeleton, RefusesInverseBindsThatDoNotMatchTheJoints) {
  std::vector<Joint> joints(2);
  joints[1].parent = 0;
  auto s = Skeleton::create(joints, std::vector<Mat4>(1), Mat4{});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kBadSkeleton);
  std::vector<Mat4> ibm(2);
  ibm[1].m[3] = 0.5f;  // projective: not affine
  EXPECT_FALSE(Skeleton::create(joints, ibm, Mat4{}));
}

TEST(Skeleton, RefusesSpansOfTheWrongSize) {
  const Skeleton s = fixture::make_skeleton();
  std::vector<Trs> locals(3);
  std::vector<Mat4> globals(4);
  auto r = local_to_global(s, locals, globals);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kSizeMismatch);
}

TEST(Skeleton, FindsJointsByName) {
  const Skeleton s = fixture::make_skeleton();
  EXPECT_EQ(s.find_joint("bone2"), 2);
  EXPECT_EQ(s.find_joint("tail"), -1);
}

TEST(Rig, RefusesTwoClipsWithOneName) {
  std::vector<Clip> clips;
  clips.emplace_back("Walk");
  clips.emplace_back("Walk");
  auto r = Rig::create(fixture::make_skeleton(), std::move(clips));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadClip);
}

TEST(Rig, AnUnknownClipNameIsAnError) {
  const Rig rig = fixture::make_rig();
  auto r = rig.find_clip("Jog");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kUnknownClip);
  EXPECT_EQ(*rig.find_clip("Rotate"), 3);
}

}  // namespace
}  // namespace animpack
