// The scene reader on root motion, IK and mesh axes (docs/scene-format.md, "Root motion
// and IK"): every key reads to its value and position, defaults hold when keys are left
// out, and the limits (feet, solvers) are refused at the key. The rules each have a file in
// tests/data/scenes/bad (E0156 to E0168).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "animpack/compiler/scene.h"
#include "scene/scene_read.h"

namespace animpack {
namespace {

using scene_test::Read;

Read read(const std::string& text) { return scene_test::read(text, "rm.toml"); }

using scene_test::all;

// A mesh "fox" (lines 1-3, `mesh_extra` from line 4) and an object "fox" on it whose
// [object.animation] header is the line after, `body` from the line after that.
std::string fox(const std::string& body, const std::string& mesh_extra = "") {
  return "[[mesh]]\nname = \"fox\"\nfile = \"fox.glb\"\n" + mesh_extra +
         "[[object]]\nname = \"fox\"\nmesh = \"fox\"\n[object.animation]\n" + body;
}

const SceneAnimation& animation(const Read& r) { return *r.scene.objects.at(0).animation; }

TEST(SceneRootMotion, EveryKeyReadsToItsValueAndPosition) {
  const Read r =
      read(fox("clip = \"Walk\"\n"                                          // 8
               "[object.animation.root_motion]\n"                           // 9
               "policy = \"accumulate\"\n"                                  // 10
               "joint = \"b_Hip_01\"\n"                                     // 11
               "extract = [\"yaw\", \"horizontal\", \"vertical\"]\n"        // 12
               "rate = 30\n"                                                // 13
               "feet = [\"b_LeftFoot02_018\", \"b_RightFoot02_022\"]\n"));  // 14
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  const SceneAnimation& a = animation(r);
  ASSERT_TRUE(a.root_motion.has_value());
  const SceneRootMotion& rm = *a.root_motion;
  EXPECT_EQ(a.root_motion_pos, (SourcePos{9, 19}));
  EXPECT_EQ(rm.pos, (SourcePos{9, 1}));
  EXPECT_EQ(rm.policy, RootMotionPolicy::kAccumulate);
  EXPECT_EQ(rm.policy_pos, (SourcePos{10, 1}));
  EXPECT_EQ(rm.joint, "b_Hip_01");
  EXPECT_EQ(rm.joint_pos, (SourcePos{11, 1}));
  EXPECT_EQ(rm.extract, kExtractHorizontal | kExtractVertical | kExtractYaw);
  EXPECT_EQ(rm.extract_pos, (SourcePos{12, 1}));
  ASSERT_EQ(rm.extract_element_pos.size(), 3u);
  EXPECT_EQ(rm.extract_element_pos[1], (SourcePos{12, 19}));
  EXPECT_EQ(rm.rate, 30);
  EXPECT_EQ(rm.rate_pos, (SourcePos{13, 1}));
  EXPECT_EQ(rm.feet, (std::vector<std::string>{"b_LeftFoot02_018", "b_RightFoot02_022"}));
  EXPECT_EQ(rm.feet_pos, (SourcePos{14, 1}));
  ASSERT_EQ(rm.feet_element_pos.size(), 2u);
  EXPECT_EQ(rm.feet_element_pos[1], (SourcePos{14, 29}));
}

TEST(SceneRootMotion, LeftOutKeysKeepTheirDefaults) {
  const Read r = read(fox("root_motion = { policy = \"in_place\" }\n"));
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  const SceneRootMotion& rm = *animation(r).root_motion;
  EXPECT_EQ(rm.policy, RootMotionPolicy::kInPlace);
  EXPECT_EQ(rm.joint, "") << "the cooker takes the rig's top joint";
  EXPECT_FALSE(rm.joint_pos.known());
  EXPECT_EQ(rm.extract, kExtractHorizontal);
  EXPECT_EQ(rm.rate, 60);
  EXPECT_TRUE(rm.feet.empty());
}

TEST(SceneRootMotion, PolicyOffReads) {
  const Read r = read(fox("root_motion.policy = \"off\"\n"));
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  EXPECT_EQ(animation(r).root_motion->policy, RootMotionPolicy::kOff);
}

TEST(SceneRootMotion, AnAnimationWithoutItHasNone) {
  const Read r = read(fox("clip = \"Walk\"\n"));
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  EXPECT_FALSE(animation(r).root_motion.has_value());
  EXPECT_TRUE(animation(r).ik.empty());
  EXPECT_FALSE(animation(r).has_graph()) << "root motion and IK make no graph";
}

TEST(SceneRootMotion, MoreFeetThanTheLimitAreRefusedAtTheKey) {
  std::string feet;
  for (size_t i = 0; i <= kMaxRootMotionFeet; ++i) {
    feet += (i ? ", " : "") + std::string("\"toe") + std::to_string(i) + "\"";
  }
  const Read r =
      read(fox("[object.animation.root_motion]\npolicy = \"accumulate\"\nfeet = [" + feet + "]\n"));
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0135");
  EXPECT_EQ(r.diagnostics[0].line, 10);
  EXPECT_EQ(r.diagnostics[0].col, 1);
}

TEST(SceneRootMotion, FeetAtTheLimitRead) {
  std::string feet;
  for (size_t i = 0; i < kMaxRootMotionFeet; ++i) {
    feet += (i ? ", " : "") + std::string("\"toe") + std::to_string(i) + "\"";
  }
  const Read r =
      read(fox("[object.animation.root_motion]\npolicy = \"accumulate\"\nfeet = [" + feet + "]\n"));
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  EXPECT_EQ(animation(r).root_motion->feet.size(), kMaxRootMotionFeet);
}

TEST(SceneMeshAxes, UpAndForwardReadToTheirValuesAndPositions) {
  const Read r = read(fox("clip = \"Walk\"\n", "up = [0, 0, 1]\nforward = [0, -1, 0]\n"));
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  const SceneMesh& m = r.scene.meshes.at(0);
  EXPECT_EQ(m.up.x, 0.0f);
  EXPECT_EQ(m.up.z, 1.0f);
  EXPECT_EQ(m.forward.y, -1.0f);
  EXPECT_EQ(m.up_pos, (SourcePos{4, 1}));
  EXPECT_EQ(m.forward_pos, (SourcePos{5, 1}));
}

TEST(SceneMeshAxes, DefaultToGltfs) {
  const Read r = read(fox("clip = \"Walk\"\n"));
  const SceneMesh& m = r.scene.meshes.at(0);
  EXPECT_EQ(m.up.y, 1.0f);
  EXPECT_EQ(m.forward.z, 1.0f);
  EXPECT_FALSE(m.up_pos.known());
}

TEST(SceneMeshAxes, AxesWithinTheTolerancesRead) {
  // Unit within 1e-4 and perpendicular within 1e-4, not normalised by the reader.
  const Read r =
      read(fox("clip = \"Walk\"\n", "up = [0, 1.00005, 0]\nforward = [0.00005, 0, 1]\n"));
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  EXPECT_EQ(r.scene.meshes.at(0).up.y, 1.00005f);
}

TEST(SceneMeshAxes, ANonFiniteAxisIsAnErrorAtItsElement) {
  const Read r = read(fox("clip = \"Walk\"\n", "up = [0, nan, 0]\n"));
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0112");
  EXPECT_EQ(r.diagnostics[0].line, 4);
  EXPECT_EQ(r.diagnostics[0].col, 10);
}

TEST(SceneIk, EveryKeyOfEachKindReadsToItsValueAndPosition) {
  const Read r = read(
      fox("[[object.animation.ik]]\n"                                                       // 8
          "name = \"left_leg\"\n"                                                           // 9
          "kind = \"two_bone\"\n"                                                           // 10
          "joints = [\"b_LeftLeg01_015\", \"b_LeftLeg02_016\", \"b_LeftFoot01_017\"]\n"     // 11
          "weight = 0.75\n"                                                                 // 12
          "target = [0.1, 0.2, 0.3]\n"                                                      // 13
          "pole = [0, 0, 1]\n"                                                              // 14
          "soften = 0.9\n"                                                                  // 15
          "twist = 90\n"                                                                    // 16
          "[[object.animation.ik]]\n"                                                       // 17
          "kind = \"aim\"\n"                                                                // 18
          "joints = [\"b_Head_05\"]\n"                                                      // 19
          "forward = [0, 1, 0]\n"                                                           // 20
          "up = [0, 0, -1]\n"                                                               // 21
          "max_angle = 60\n"                                                                // 22
          "pole = [0, 1, 0]\n"                                                              // 23
          "[[object.animation.ik]]\n"                                                       // 24
          "kind = \"chain\"\n"                                                              // 25
          "joints = [\"b_Spine01_02\", \"b_Spine02_03\", \"b_Neck_04\"]\n"                  // 26
          "iterations = 12\n"                                                               // 27
          "[[object.animation.ik]]\n"                                                       // 28
          "kind = \"foot\"\n"                                                               // 29
          "joints = [\"b_RightLeg01_019\", \"b_RightLeg02_020\", \"b_RightFoot01_021\"]\n"  // 30
          "hips = \"b_Hip_01\"\n"                                                           // 31
          "soften = 0.95\n"));                                                              // 32
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  const SceneAnimation& a = animation(r);
  ASSERT_EQ(a.ik.size(), 4u);
  EXPECT_EQ(a.ik_pos, (SourcePos{8, 20}));

  const SceneIk& leg = a.ik[0];
  EXPECT_EQ(leg.pos, (SourcePos{8, 1}));
  EXPECT_EQ(leg.name, "left_leg");
  EXPECT_EQ(leg.name_pos, (SourcePos{9, 1}));
  EXPECT_EQ(leg.kind, IkKind::kTwoBone);
  EXPECT_EQ(leg.kind_pos, (SourcePos{10, 1}));
  EXPECT_EQ(leg.joints,
            (std::vector<std::string>{"b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017"}));
  EXPECT_EQ(leg.joints_pos, (SourcePos{11, 1}));
  ASSERT_EQ(leg.joint_element_pos.size(), 3u);
  EXPECT_EQ(leg.joint_element_pos[1], (SourcePos{11, 30}));
  EXPECT_EQ(leg.weight, 0.75f);
  EXPECT_EQ(leg.weight_pos, (SourcePos{12, 1}));
  ASSERT_TRUE(leg.target.has_value());
  EXPECT_EQ(leg.target->y, 0.2f);
  EXPECT_EQ(leg.target_pos, (SourcePos{13, 1}));
  ASSERT_TRUE(leg.pole.has_value());
  EXPECT_EQ(leg.pole->z, 1.0f);
  EXPECT_EQ(leg.pole_pos, (SourcePos{14, 1}));
  EXPECT_EQ(leg.soften, 0.9f);
  EXPECT_EQ(leg.soften_pos, (SourcePos{15, 1}));
  EXPECT_EQ(leg.twist_degrees, 90.0f) << "degrees in the scene; the cooker makes radians";
  EXPECT_EQ(leg.twist_pos, (SourcePos{16, 1}));

  const SceneIk& head = a.ik[1];
  EXPECT_EQ(head.kind, IkKind::kAim);
  EXPECT_EQ(head.name, "b_Head_05") << "named for its last joint";
  EXPECT_FALSE(head.name_pos.known());
  EXPECT_EQ(head.forward.y, 1.0f);
  EXPECT_EQ(head.forward_pos, (SourcePos{20, 1}));
  EXPECT_EQ(head.up.z, -1.0f);
  EXPECT_EQ(head.up_pos, (SourcePos{21, 1}));
  EXPECT_EQ(head.max_angle_degrees, 60.0f);
  EXPECT_EQ(head.max_angle_pos, (SourcePos{22, 1}));
  EXPECT_TRUE(head.pole.has_value());
  EXPECT_FALSE(head.target.has_value()) << "the game sets it";

  const SceneIk& spine = a.ik[2];
  EXPECT_EQ(spine.kind, IkKind::kChain);
  EXPECT_EQ(spine.joints.size(), 3u);
  EXPECT_EQ(spine.iterations, 12);
  EXPECT_EQ(spine.iterations_pos, (SourcePos{27, 1}));

  const SceneIk& foot = a.ik[3];
  EXPECT_EQ(foot.kind, IkKind::kFoot);
  EXPECT_EQ(foot.name, "b_RightFoot01_021");
  EXPECT_EQ(foot.hips, "b_Hip_01");
  EXPECT_EQ(foot.hips_pos, (SourcePos{31, 1}));
  EXPECT_EQ(foot.soften, 0.95f);
}

TEST(SceneIk, LeftOutKeysKeepTheirDefaults) {
  const Read r = read(fox("ik = [{ kind = \"aim\", joints = [\"b_Head_05\"] }]\n"));
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  const SceneIk& s = animation(r).ik.at(0);
  EXPECT_EQ(s.pos, (SourcePos{8, 7})) << "the inline table";
  EXPECT_EQ(s.weight, 1.0f);
  EXPECT_FALSE(s.pole.has_value());
  EXPECT_EQ(s.forward.z, 1.0f);
  EXPECT_EQ(s.up.y, 1.0f);
  EXPECT_EQ(s.max_angle_degrees, 180.0f);
  EXPECT_EQ(s.hips, "");
}

TEST(SceneIk, ChainsOfTwoAndOfTheMostJointsRead) {
  std::string joints;
  for (int i = 0; i < kMaxChainJoints; ++i) {
    joints += (i ? ", " : "") + std::string("\"j") + std::to_string(i) + "\"";
  }
  const Read r =
      read(fox("[[object.animation.ik]]\nkind = \"chain\"\njoints = [\"a\", \"b\"]\n"
               "[[object.animation.ik]]\nkind = \"chain\"\njoints = [" +
               joints + "]\n"));
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  EXPECT_EQ(animation(r).ik.at(1).joints.size(), static_cast<size_t>(kMaxChainJoints));
}

TEST(SceneIk, AChainOfMoreJointsThanTheLimitIsAnErrorAtJoints) {
  std::string joints;
  for (int i = 0; i <= kMaxChainJoints; ++i) {
    joints += (i ? ", " : "") + std::string("\"j") + std::to_string(i) + "\"";
  }
  const Read r =
      read(fox("[[object.animation.ik]]\nkind = \"chain\"\njoints = [" + joints + "]\n"));
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0163");
  EXPECT_EQ(r.diagnostics[0].line, 10);
}

// `count` aim solvers, each on its own joint.
std::string solvers(int count) {
  std::string s;
  for (int i = 0; i < count; ++i) {
    s += "[[object.animation.ik]]\nkind = \"aim\"\njoints = [\"j" + std::to_string(i) + "\"]\n";
  }
  return s;
}

TEST(SceneIk, SolversAtTheLimitRead) {
  const Read r = read(fox(solvers(kMaxIkSolvers)));
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  EXPECT_EQ(animation(r).ik.size(), static_cast<size_t>(kMaxIkSolvers));
}

TEST(SceneIk, MoreSolversThanTheLimitAreRefusedAtTheKey) {
  const Read r = read(fox(solvers(kMaxIkSolvers + 1)));
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0135");
  EXPECT_EQ(r.diagnostics[0].line, 8);
  EXPECT_EQ(r.diagnostics[0].col, 20);
}

TEST(SceneIk, ANonFiniteTargetIsAnErrorAtItsElement) {
  const Read r =
      read(fox("[[object.animation.ik]]\nkind = \"aim\"\njoints = [\"h\"]\n"
               "target = [0, inf, 0]\n"));
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0112");
  EXPECT_EQ(r.diagnostics[0].line, 11);
  EXPECT_EQ(r.diagnostics[0].col, 14);
  EXPECT_FALSE(animation(r).ik.at(0).target.has_value());
}

TEST(SceneIk, ASolverWithAWrongJointIsReportedOnceAndLeftForTheCookerToSkip) {
  const Read r =
      read(fox("[[object.animation.ik]]\nkind = \"chain\"\njoints = [\"a\", 5, \"c\"]\n"
               "[[object.animation.ik]]\nkind = \"aim\"\njoints = [\"a\", \"d\"]\n"));
  ASSERT_EQ(r.diagnostics.size(), 2u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0102");
  EXPECT_EQ(r.diagnostics[1].code, "E0163");
  ASSERT_EQ(animation(r).ik.size(), 2u);
  for (const SceneIk& s : animation(r).ik) {
    EXPECT_TRUE(s.joints.empty()) << "nothing for the cooker to resolve (and report again)";
  }
  EXPECT_EQ(animation(r).ik[0].name, "c") << "still named for its last joint";
  EXPECT_EQ(animation(r).ik[1].name, "d");
}

TEST(SceneIk, AKeyOfAnotherKindNamesTheKindsThatTakeIt) {
  const Read r =
      read(fox("[[object.animation.ik]]\nkind = \"chain\"\njoints = [\"a\", \"b\"]\n"
               "pole = [0, 0, 1]\n"));
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0165");
  EXPECT_NE(r.diagnostics[0].message.find("two_bone, foot and aim"), std::string::npos) << all(r);
}

}  // namespace
}  // namespace animpack
