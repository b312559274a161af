// The scene player with root motion and IK (pack format 4): an accumulate object's
// take_root_motion returns what its animator collected, others refuse; IK moves the
// palette toward its target after the pose is evaluated, weight 0 leaves it bit for bit;
// the set_ik_* calls refuse what they must and keep the refusal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/scene_player.h"
#include "motion_fixture.h"

namespace animpack {
namespace {

using namespace motion_fixture;

constexpr ObjectId kWalkerId{kWalker}, kStanderId{kStander}, kPlainId{kPlain};

bool same_matrix(const Mat4& a, const Mat4& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_palette(std::span<const Mat4> a, std::span<const Mat4> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

Vec3 origin(const Mat4& m) { return {m.m[12], m.m[13], m.m[14]}; }

float distance(Vec3 a, Vec3 b) {
  const Vec3 d = a - b;
  return std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
}

Pack open(const CookedPack& cooked) {
  Result<Pack> pack = Pack::from_bytes(write_pack(cooked));
  EXPECT_TRUE(pack) << pack.error().message();
  return std::move(*pack);
}

TEST(PlayerRootMotion, TakeRootMotionReturnsWhatTheAnimatorCollected) {
  const Pack pack = make_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  // The same clip on an animator driven by hand, with the pack's config and tracks.
  const ObjectAnimationInfo& info = pack.objects()[kWalker].animation;
  Animator by_hand = std::move(*Animator::create(&pack.rig(0), 60));
  ASSERT_TRUE(by_hand.set_root_motion(*info.root_motion, info.root_tracks));
  ASSERT_TRUE(by_hand.play(kWalkClip, 0));
  RootMotionDelta total, want;
  for (int64_t t = 0; t < 150; ++t) {
    player.step();
    (void)by_hand.advance(t);
    if (t % 7 == 3) {
      Result<RootMotionDelta> d = player.take_root_motion(kWalkerId);
      ASSERT_TRUE(d) << d.error().message();
      const RootMotionDelta w = by_hand.take_root_motion();
      EXPECT_EQ(*d, w) << "tick " << t;
      total.x += d->x;
      total.z += d->z;
      total.yaw += d->yaw;
      want.z += w.z;
    }
  }
  Result<RootMotionDelta> last = player.take_root_motion(kWalkerId);
  ASSERT_TRUE(last);
  EXPECT_EQ(*last, by_hand.take_root_motion()) << "the rest";
  EXPECT_NE(total.z, 0) << "the walk moved the walker";
  EXPECT_NE(total.yaw, 0) << "and turned it";
  EXPECT_EQ(total.z, want.z);
  // Taken: the next take without a step is all zero.
  Result<RootMotionDelta> again = player.take_root_motion(kWalkerId);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, RootMotionDelta{});
  EXPECT_TRUE(player.animation_errors().empty());
}

TEST(PlayerRootMotion, RefusesObjectsWithoutAccumulate) {
  const Pack pack = make_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  player.step();
  for (const ObjectId id : {kStanderId, kPlainId, ObjectId{99}}) {
    Result<RootMotionDelta> d = player.take_root_motion(id);
    ASSERT_FALSE(d) << id.value;
    EXPECT_EQ(d.error().code(), ErrorCode::kInvalidArgument) << id.value;
  }
  EXPECT_NE(std::string(player.take_root_motion(kStanderId).error().message())
                .find("stander has root motion policy in_place"),
            std::string::npos);
  EXPECT_NE(std::string(player.take_root_motion(kPlainId).error().message()).find("policy off"),
            std::string::npos);
  ASSERT_EQ(player.animation_errors().size(), 5u) << "kept";
  EXPECT_EQ(player.animation_errors()[0].object.value, kStander);
  EXPECT_EQ(player.animation_errors()[0].tick, 1);
}

// The player sets the animators up: in place the root stays where the clip starts, without
// root motion it walks off.
TEST(PlayerRootMotion, InPlaceHoldsTheRootWhileThePlainObjectWalks) {
  const Pack pack = make_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  for (int t = 0; t <= 30; ++t) player.step();  // to tick 30: half a pass
  EXPECT_EQ(player.animator(kStanderId)->root_motion().policy, RootMotionPolicy::kInPlace);
  EXPECT_EQ(player.animator(kPlainId)->root_motion().policy, RootMotionPolicy::kOff);
  const float held = player.animator(kStanderId)->globals()[0].m[14];
  const float walked = player.animator(kPlainId)->globals()[0].m[14];
  EXPECT_NEAR(held, 0.0f, 1e-6f);
  EXPECT_NEAR(walked, 1.0f, 1e-5f) << "half a pass: 1 of the walk's 2 units along +z";
}

TEST(PlayerIk, TwoBoneMovesTheHandToItsTarget) {
  const Pack pack = make_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  ASSERT_NE(player.ik(kWalkerId), nullptr);
  EXPECT_EQ(player.ik(kWalkerId)->solver_count(), 2);
  EXPECT_EQ(player.ik(kPlainId), nullptr);
  player.step();
  const std::vector<Mat4> before(player.palette(kWalkerId).begin(),
                                 player.palette(kWalkerId).end());
  const Vec3 target{1.0f, 2.5f, 0.0f};  // 1.80 from bone1: in reach of its two unit bones
  ASSERT_TRUE(player.set_ik_target(kWalkerId, "arm", target));
  const float from = distance(origin(player.animator(kWalkerId)->globals()[3]), target);
  player.step();
  const Animator& an = *player.animator(kWalkerId);
  const float to = distance(origin(an.globals()[3]), target);
  EXPECT_GT(from, 0.5f);
  EXPECT_LT(to, 1e-4f) << "the hand reached the target";
  EXPECT_FALSE(same_palette(before, player.palette(kWalkerId)));
  // The palette is the IK'd globals times the inverse binds, and posed() shows it.
  const Mat4 want = mul_affine(an.globals()[3], an.rig()->skeleton().inverse_binds()[3]);
  EXPECT_TRUE(std::memcmp(&want, &player.palette(kWalkerId)[3], sizeof want) == 0);
  EXPECT_TRUE(same_palette(player.posed().objects[kWalker].palette, player.palette(kWalkerId)));
  // Cleared, the arm follows the animation again (the aim still runs).
  ASSERT_TRUE(player.clear_ik_target(kWalkerId, "arm"));
  player.step();
  EXPECT_GT(distance(origin(player.animator(kWalkerId)->globals()[3]), target), 0.5f);
}

TEST(PlayerIk, WeightZeroLeavesThePaletteBitIdentical) {
  CookedPack without = make_cooked();
  without.objects[kWalker].animation.ik.clear();
  const Pack plain_pack = open(without);
  const Pack pack = make_pack();
  ScenePlayer plain = std::move(*ScenePlayer::create(&plain_pack, 60));
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  ASSERT_TRUE(player.set_ik_target(kWalkerId, "arm", {1.0f, 2.5f, 0.0f}));
  player.step();
  plain.step();
  EXPECT_FALSE(same_palette(player.palette(kWalkerId), plain.palette(kWalkerId)));
  ASSERT_TRUE(player.set_ik_weight(kWalkerId, "arm", 0.0f));
  ASSERT_TRUE(player.set_ik_weight(kWalkerId, "look", 0.0f));
  for (int t = 0; t < 40; ++t) {
    player.step();
    plain.step();
    ASSERT_TRUE(same_palette(player.palette(kWalkerId), plain.palette(kWalkerId))) << t;
  }
}

TEST(PlayerIk, RefusesBadCallsAndKeepsThem) {
  const Pack pack = make_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    const char* name;
    Result<void> result;
    const char* says;
  };
  const Case cases[] = {
      {"no object", player.set_ik_target(ObjectId{42}, "arm", {0, 1, 0}), "no object 42"},
      {"no IK", player.set_ik_target(kPlainId, "arm", {0, 1, 0}), "plain has no IK solvers"},
      {"no solver", player.set_ik_weight(kWalkerId, "leg", 1.0f), "walker has no IK solver 'leg'"},
      {"NaN target", player.set_ik_target(kWalkerId, "arm", {kNaN, 1, 0}),
       "walker IK solver 'arm'"},
      {"weight above 1", player.set_ik_weight(kWalkerId, "look", 1.5f), "walker IK solver 'look'"},
      {"zero pole", player.set_ik_pole(kWalkerId, "arm", {0, 0, 0}), "walker IK solver 'arm'"},
      {"ground on a two-bone", player.set_ik_ground(kWalkerId, "arm", 0.1f, {0, 1, 0}),
       "walker IK solver 'arm'"},
      {"clear on no object", player.clear_ik_target(ObjectId{}, "arm"), "no object"},
  };
  for (const Case& c : cases) {
    ASSERT_FALSE(c.result) << c.name;
    EXPECT_EQ(c.result.error().code(), ErrorCode::kInvalidArgument) << c.name;
    EXPECT_NE(std::string(c.result.error().message()).find(c.says), std::string::npos)
        << c.name << ": " << c.result.error().message();
  }
  ASSERT_EQ(player.animation_errors().size(), std::size(cases));
  EXPECT_EQ(player.animation_errors()[2].object.value, kWalker);
  // Nothing changed: the look keeps its weight and the arm has no target.
  EXPECT_EQ(player.ik(kWalkerId)->solver(1).weight, 0.5f);
  player.step();
  EXPECT_EQ(player.animation_errors().size(), std::size(cases)) << "kept through their tick";
  player.step();
  EXPECT_TRUE(player.animation_errors().empty()) << "gone a tick later";
}

TEST(PlayerIk, ObjectPointUndoesTheModelMatrix) {
  CookedPack cooked = make_cooked();
  cooked.objects[kWalker].position = {3, 0, -1};
  cooked.objects[kWalker].rotation = {0, 0.70710677f, 0, 0.70710677f};  // 90 degrees about +y
  const Pack pack = open(cooked);
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  const Vec3 world{4, 2, -1};  // one unit from the object's position, two up
  const Vec3 local = player.object_point(kWalkerId, world);
  const Vec3 back = transform_point(player.model(kWalkerId), local);
  EXPECT_NEAR(back.x, world.x, 1e-5f);
  EXPECT_NEAR(back.y, world.y, 1e-5f);
  EXPECT_NEAR(back.z, world.z, 1e-5f);
  EXPECT_NEAR(local.y, 2.0f, 1e-5f);
  EXPECT_NEAR(distance(local, {0, 2, 0}), 1.0f, 1e-5f);
  const Vec3 same = player.object_point(ObjectId{77}, world);
  EXPECT_EQ(same.x, world.x);
}

TEST(PlayerTransform, SetTransformMovesModelPosedAndObjectPoint) {
  CookedPack cooked = make_cooked();
  cooked.objects[kWalker].position = {3, 0, -1};
  const Pack pack = open(cooked);
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  const Trs scene = player.transform(kWalkerId);
  EXPECT_EQ(scene.translation.x, 3.0f);
  EXPECT_EQ(scene.translation.z, -1.0f);
  player.step();
  const std::vector<Mat4> palette(player.palette(kWalkerId).begin(),
                                  player.palette(kWalkerId).end());
  // A quarter turn about +y and twice the size, somewhere else.
  const Trs placed{{-5, 1, 7}, {0, 0.70710677f, 0, 0.70710677f}, {2, 2, 2}};
  ASSERT_TRUE(player.set_transform(kWalkerId, placed));
  const Trs back = player.transform(kWalkerId);
  EXPECT_EQ(back.translation.x, -5.0f);
  EXPECT_EQ(back.rotation.y, 0.70710677f);
  EXPECT_EQ(back.scale.z, 2.0f);
  const Mat4 want = to_matrix(placed);
  EXPECT_TRUE(same_matrix(want, player.model(kWalkerId))) << "model()";
  const Posed& posed = player.posed();
  EXPECT_TRUE(same_matrix(want, posed.objects[kWalker].model)) << "posed()";
  // Only the walker moved; its pose is its own and did not change.
  const Mat4 stander =
      to_matrix(Trs{cooked.objects[kStander].position, cooked.objects[kStander].rotation,
                    cooked.objects[kStander].scale});
  EXPECT_TRUE(same_matrix(stander, posed.objects[kStander].model));
  EXPECT_TRUE(same_palette(player.palette(kWalkerId), palette));
  // object_point undoes the new matrix: a world point 2 units along world +x from the
  // object is 1 unit along its +z (turned a quarter about +y, so its +z is world +x;
  // scaled by 2).
  const Vec3 local = player.object_point(kWalkerId, {-3, 1, 7});
  EXPECT_NEAR(local.x, 0.0f, 1e-5f);
  EXPECT_NEAR(local.y, 0.0f, 1e-5f);
  EXPECT_NEAR(local.z, 1.0f, 1e-5f);
  // It holds across steps.
  player.step();
  EXPECT_TRUE(same_matrix(want, player.model(kWalkerId)));
  EXPECT_TRUE(player.animation_errors().empty());
}

TEST(PlayerTransform, SetTransformRefusesBadTransformsAndChangesNothing) {
  const Pack pack = make_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  const Mat4 before = player.model(kWalkerId);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    Trs trs;
    const char* says;
  };
  const Case cases[] = {
      {{{nan, 0, 0}, {}, {1, 1, 1}}, "position that is not finite"},
      {{{0, inf, 0}, {}, {1, 1, 1}}, "position that is not finite"},
      {{{}, {0, nan, 0, 1}, {1, 1, 1}}, "rotation that is not finite"},
      {{{}, {0, 0, 0, 0}, {1, 1, 1}}, "not a unit quaternion"},
      {{{}, {0, 0, 0, 2}, {1, 1, 1}}, "not a unit quaternion"},
      {{{}, {}, {1, -inf, 1}}, "scale that is not finite"},
      {{{}, {}, {1, 1, 0}}, "zero component"},
      {{{}, {}, {0, 0, 0}}, "zero component"},
  };
  for (const Case& c : cases) {
    Result<void> r = player.set_transform(kWalkerId, c.trs);
    ASSERT_FALSE(r) << c.says;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(r.error().message()).find(c.says), std::string::npos)
        << r.error().message();
    EXPECT_NE(std::string(r.error().message()).find("walker"), std::string::npos)
        << r.error().message();
    EXPECT_TRUE(same_matrix(before, player.model(kWalkerId))) << c.says;
  }
  ASSERT_EQ(player.animation_errors().size(), std::size(cases)) << "each refusal is kept";
  Result<void> none = player.set_transform(ObjectId{77}, Trs{});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(none.error().message()).find("no object 77"), std::string::npos);
  const Trs identity = player.transform(ObjectId{77});
  EXPECT_EQ(identity.scale.x, 1.0f);
  EXPECT_EQ(identity.rotation.w, 1.0f);
  // A negative scale (a mirror) is a transform, not a refusal.
  EXPECT_TRUE(player.set_transform(kWalkerId, Trs{{}, {}, {-1, 1, 1}}));
}

}  // namespace
}  // namespace animpack
