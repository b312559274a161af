// Root motion and IK through `cook_scene`, over the corpus Fox (clips Survey, Walk, Run;
// joints _rootJoint > b_Root_00 > b_Hip_01 > legs, spine, tail; toes b_LeftFoot02_018 and
// b_RightFoot02_022) and two generated models: every joint name resolved against the
// mesh's rig at its key (with a close spelling), the mesh's axes in the config, one baked
// track per clip of the rig (check_root_motion_track) for `accumulate`, none for
// `in_place`, IK solvers resolved with their angles in radians, and every rule the rig
// decides (E0213 to E0221, W0214) at its key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/root_motion.h"
#include "animpack/scene_player.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

const fs::path kFox =
    fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/corpus/gltf/Fox/glTF-Binary/Fox.glb";
const fs::path kTriangle = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/cook/models/triangle.gltf";

std::string base64(const std::vector<uint8_t>& bytes) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const uint32_t n = (uint32_t{bytes[i]} << 16) |
                       (i + 1 < bytes.size() ? uint32_t{bytes[i + 1]} << 8 : 0) |
                       (i + 2 < bytes.size() ? uint32_t{bytes[i + 2]} : 0);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

// A node-animated glTF: "base" > "hinge" (at the base's origin: a bone of no length) >
// "tip" (one unit up, with a triangle), the base moved `travel` units along x in 1 s.
std::string mover_gltf(float travel) {
  const float floats[] = {0, 0, 0, 1,      0, 0, 0, 1, 0,  // the triangle
                          0, 1,                            // key times
                          0, 0, 0, travel, 0, 0};          // base translations
  std::vector<uint8_t> bytes(sizeof floats);
  std::memcpy(bytes.data(), floats, sizeof floats);
  return R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
  "nodes": [{"name": "base", "children": [1]}, {"name": "hinge", "children": [2]},
            {"name": "tip", "translation": [0, 1, 0], "mesh": 0}],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
  "buffers": [{"byteLength": 68, "uri": "data:application/octet-stream;base64,)" +
         base64(bytes) + R"("}],
  "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                  {"buffer": 0, "byteOffset": 36, "byteLength": 8},
                  {"buffer": 0, "byteOffset": 44, "byteLength": 24}],
  "accessors": [
    {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
     "min": [0, 0, 0], "max": [1, 1, 0]},
    {"bufferView": 1, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
    {"bufferView": 2, "componentType": 5126, "count": 2, "type": "VEC3"}],
  "animations": [{"name": "Slide", "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
                  "samplers": [{"input": 1, "output": 2}]}]})";
}

class CookRootMotionIk : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("animpack_rmik_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Cooks `text` after a [[mesh]] "fox" (lines 1-3; `mesh_extra` from line 4).
  CookOutput cook(const std::string& text, const std::string& mesh_extra = "") {
    return cook_raw("[[mesh]]\nname = \"fox\"\nfile = \"" + kFox.string() + "\"\n" + mesh_extra +
                    text);
  }
  CookOutput cook_raw(const std::string& text) {
    const fs::path scene = dir_ / "scene.toml";
    std::ofstream(scene, std::ios::binary) << text;
    sink_ = DiagnosticSink();
    CookOutput out = cook_scene(scene, sink_);
    sink_.sort();
    return out;
  }
  // Writes the mover model (mover_gltf) as mover.gltf beside the scene.
  void write_mover(float travel) {
    std::ofstream(dir_ / "mover.gltf", std::ios::binary) << mover_gltf(travel);
  }

  // Errors and warnings as "CODE line:col", notes left out.
  std::vector<std::string> problems() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : sink_.diagnostics()) {
      if (d.severity == Severity::kNote) continue;
      out.push_back(d.code + " " + std::to_string(d.line) + ":" + std::to_string(d.col));
    }
    return out;
  }
  std::string printed() { return format_diagnostics(sink_, DiagnosticFormat::kGcc); }
  const Diagnostic* find(std::string_view code, Severity severity = Severity::kError) const {
    for (const Diagnostic& d : sink_.diagnostics()) {
      if (d.code == code && (d.severity == severity || severity == Severity::kError)) return &d;
    }
    return nullptr;
  }

  fs::path dir_;
  DiagnosticSink sink_;
};

// An object on the fox from line 4; its [object.animation] body from line 8.
std::string fox(const std::string& body, const std::string& name = "fox") {
  return "[[object]]\nname = \"" + name + "\"\nmesh = \"fox\"\n[object.animation]\n" + body;
}

const std::string kWalker =
    "clip = \"Walk\"\n"                                                               // 8
    "[object.animation.root_motion]\n"                                                // 9
    "policy = \"accumulate\"\n"                                                       // 10
    "joint = \"b_Hip_01\"\n"                                                          // 11
    "extract = [\"horizontal\", \"yaw\"]\n"                                           // 12
    "rate = 30\n"                                                                     // 13
    "feet = [\"b_LeftFoot02_018\", \"b_RightFoot02_022\"]\n"                          // 14
    "[[object.animation.ik]]\n"                                                       // 15
    "name = \"left_leg\"\n"                                                           // 16
    "kind = \"two_bone\"\n"                                                           // 17
    "joints = [\"b_LeftLeg01_015\", \"b_LeftLeg02_016\", \"b_LeftFoot01_017\"]\n"     // 18
    "pole = [0, 0, 1]\n"                                                              // 19
    "twist = 90\n"                                                                    // 20
    "soften = 0.9\n"                                                                  // 21
    "weight = 0.5\n"                                                                  // 22
    "[[object.animation.ik]]\n"                                                       // 23
    "kind = \"aim\"\n"                                                                // 24
    "joints = [\"b_Head_05\"]\n"                                                      // 25
    "target = [0, 40, 100]\n"                                                         // 26
    "forward = [1, 0, 0]\n"                                                           // 27
    "up = [0, 1, 0]\n"                                                                // 28
    "max_angle = 60\n"                                                                // 29
    "[[object.animation.ik]]\n"                                                       // 30
    "kind = \"chain\"\n"                                                              // 31
    "joints = [\"b_Tail01_012\", \"b_Tail02_013\", \"b_Tail03_014\"]\n"               // 32
    "iterations = 4\n"                                                                // 33
    "[[object.animation.ik]]\n"                                                       // 34
    "kind = \"foot\"\n"                                                               // 35
    "joints = [\"b_RightLeg01_019\", \"b_RightLeg02_020\", \"b_RightFoot01_021\"]\n"  // 36
    "[[object.animation.ik]]\n"                                                       // 37
    "kind = \"foot\"\n"                                                               // 38
    "name = \"left_foot\"\n"                                                          // 39
    "hips = \"b_Hip_01\"\n"                                                           // 40
    "joints = [\"b_LeftLeg01_015\", \"b_LeftLeg02_016\", \"b_LeftFoot01_017\"]\n";    // 41

TEST_F(CookRootMotionIk, RootMotionAndIkCookIntoTheCookedAnimation) {
  const CookOutput out = cook(fox(kWalker));
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  ASSERT_EQ(out.pack.objects.size(), 1u);
  const Rig& rig = out.pack.rigs.at(0).rig;
  const Skeleton& skeleton = rig.skeleton();
  const CookedAnimation& a = out.pack.objects[0].animation;
  ASSERT_TRUE(a.root_motion.has_value());
  const RootMotionConfig& rm = *a.root_motion;
  EXPECT_EQ(rm.policy, RootMotionPolicy::kAccumulate);
  EXPECT_EQ(rm.joint, skeleton.find_joint("b_Hip_01"));
  EXPECT_EQ(rm.extract, kExtractHorizontal | kExtractYaw);
  EXPECT_EQ(rm.rate, 30);
  EXPECT_EQ(rm.up.y, 1.0f) << "glTF's axes by default";
  EXPECT_EQ(rm.forward.z, 1.0f);
  EXPECT_TRUE(rm.validate(skeleton));

  // One track per clip of the rig, each the shape its clip and rate give.
  ASSERT_EQ(a.root_tracks.size(), rig.clips().size());
  for (size_t c = 0; c < rig.clips().size(); ++c) {
    const Result<void> shape = check_root_motion_track(rig.clips()[c], rm, a.root_tracks[c]);
    EXPECT_TRUE(shape) << rig.clips()[c].name() << ": " << (shape ? "" : shape.error().message());
    const size_t samples =
        static_cast<size_t>(std::max(1.0, std::round(rig.clips()[c].duration() * 30.0))) + 1;
    EXPECT_EQ(a.root_tracks[c].size(), samples) << rig.clips()[c].name();
  }
  // The Walk plays on a treadmill: its travel comes from the planted feet, forward.
  const std::vector<RootMotionSample>& walk = a.root_tracks[*rig.find_clip("Walk")];
  EXPECT_NE(walk.back(), RootMotionSample{}) << "the walk travels";
  EXPECT_EQ(walk.back().y, 0) << "vertical motion is not extracted";

  ASSERT_EQ(a.ik.size(), 5u);
  const IkSolverDef& leg = a.ik[0];
  EXPECT_EQ(leg.name, "left_leg");
  EXPECT_EQ(leg.kind, IkKind::kTwoBone);
  EXPECT_EQ(leg.joints, (std::vector<uint16_t>{
                            static_cast<uint16_t>(skeleton.find_joint("b_LeftLeg01_015")),
                            static_cast<uint16_t>(skeleton.find_joint("b_LeftLeg02_016")),
                            static_cast<uint16_t>(skeleton.find_joint("b_LeftFoot01_017"))}));
  EXPECT_TRUE(leg.has_pole);
  EXPECT_EQ(leg.pole.z, 1.0f);
  EXPECT_FALSE(leg.has_target) << "the game sets it";
  EXPECT_FLOAT_EQ(leg.twist, 3.14159265f / 2) << "radians";
  EXPECT_EQ(leg.soften, 0.9f);
  EXPECT_EQ(leg.weight, 0.5f);

  const IkSolverDef& head = a.ik[1];
  EXPECT_EQ(head.name, "b_Head_05") << "named for its joint";
  EXPECT_EQ(head.kind, IkKind::kAim);
  EXPECT_EQ(head.joints,
            (std::vector<uint16_t>{static_cast<uint16_t>(skeleton.find_joint("b_Head_05"))}));
  EXPECT_TRUE(head.has_target);
  EXPECT_EQ(head.target.z, 100.0f);
  EXPECT_EQ(head.forward.x, 1.0f);
  EXPECT_FLOAT_EQ(head.max_angle, 3.14159265f / 3);
  EXPECT_FALSE(head.has_pole);

  EXPECT_EQ(a.ik[2].kind, IkKind::kChain);
  EXPECT_EQ(a.ik[2].joints.size(), 3u);
  EXPECT_EQ(a.ik[2].iterations, 4);

  EXPECT_EQ(a.ik[3].kind, IkKind::kFoot);
  EXPECT_EQ(a.ik[3].name, "b_RightFoot01_021");
  EXPECT_EQ(a.ik[3].hips, -1) << "the thigh's parent, left to the runtime";
  EXPECT_EQ(a.ik[4].name, "left_foot");
  EXPECT_EQ(a.ik[4].hips, skeleton.find_joint("b_Hip_01"))
      << "the same joint as the default of the other foot";
}

TEST_F(CookRootMotionIk, TheDefaultRootJointIsTheRigsTopJoint) {
  const CookOutput out = cook(fox("clip = \"Walk\"\nroot_motion = { policy = \"in_place\" }\n"));
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  const Skeleton& skeleton = out.pack.rigs.at(0).rig.skeleton();
  const CookedAnimation& a = out.pack.objects.at(0).animation;
  ASSERT_TRUE(a.root_motion.has_value());
  EXPECT_EQ(skeleton.joints()[static_cast<size_t>(a.root_motion->joint)].parent, -1);
  EXPECT_EQ(a.root_motion->joint, 0) << "the first joint without a parent";
  EXPECT_EQ(a.root_motion->policy, RootMotionPolicy::kInPlace);
  EXPECT_TRUE(a.root_tracks.empty()) << "in place collects nothing";
}

TEST_F(CookRootMotionIk, PolicyOffAndNoRootMotionCookToNone) {
  const CookOutput out = cook(fox("clip = \"Walk\"\nroot_motion = { policy = \"off\" }\n") +
                              fox("clip = \"Walk\"\n", "plain"));
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  for (const CookedObject& o : out.pack.objects) {
    EXPECT_FALSE(o.animation.root_motion.has_value()) << o.name;
    EXPECT_TRUE(o.animation.root_tracks.empty()) << o.name;
    EXPECT_TRUE(o.animation.ik.empty()) << o.name;
  }
}

TEST_F(CookRootMotionIk, ObjectsOnOneMeshWithDifferentRootMotionGetTheirOwnTracks) {
  const CookOutput out =
      cook(fox("clip = \"Walk\"\nroot_motion = { policy = \"accumulate\", joint = \"b_Hip_01\", "
               "rate = 60 }\n",
               "a") +
           fox("clip = \"Run\"\nroot_motion = { policy = \"accumulate\", joint = \"b_Hip_01\", "
               "rate = 20, extract = [\"horizontal\", \"vertical\"] }\n",
               "b"));
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  ASSERT_EQ(out.pack.objects.size(), 2u);
  const Rig& rig = out.pack.rigs.at(0).rig;
  const CookedAnimation& a = out.pack.objects[0].animation;
  const CookedAnimation& b = out.pack.objects[1].animation;
  ASSERT_EQ(a.root_tracks.size(), rig.clips().size());
  ASSERT_EQ(b.root_tracks.size(), rig.clips().size());
  const size_t run = *rig.find_clip("Run");
  EXPECT_NE(a.root_tracks[run].size(), b.root_tracks[run].size()) << "60 and 20 samples a second";
  for (size_t c = 0; c < rig.clips().size(); ++c) {
    EXPECT_TRUE(check_root_motion_track(rig.clips()[c], *a.root_motion, a.root_tracks[c]));
    EXPECT_TRUE(check_root_motion_track(rig.clips()[c], *b.root_motion, b.root_tracks[c]));
  }
}

TEST_F(CookRootMotionIk, AdditiveClipsOfTheRigGetEmptyTracks) {
  const CookOutput out =
      cook(fox("clip = \"Walk\"\nroot_motion = { policy = \"accumulate\", joint = \"b_Hip_01\" }\n"
               "[[object.animation.layers]]\nclip = \"Survey\"\nadditive = true\n"));
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  const Rig& rig = out.pack.rigs.at(0).rig;
  const CookedAnimation& a = out.pack.objects.at(0).animation;
  ASSERT_EQ(rig.clips().size(), 4u) << "Survey, Walk, Run and Survey's additive version";
  ASSERT_EQ(a.root_tracks.size(), 4u);
  size_t additive = 0;
  for (size_t c = 0; c < rig.clips().size(); ++c) {
    const bool is_additive = rig.clips()[c].additive() != AdditiveReference::kNone;
    additive += is_additive ? 1 : 0;
    EXPECT_EQ(a.root_tracks[c].empty(), is_additive) << rig.clips()[c].name();
    EXPECT_TRUE(check_root_motion_track(rig.clips()[c], *a.root_motion, a.root_tracks[c]));
  }
  EXPECT_EQ(additive, 1u);
}

TEST_F(CookRootMotionIk, TheMeshsAxesGoIntoTheMeshAndTheConfig) {
  const CookOutput out =
      cook(fox("clip = \"Walk\"\nroot_motion = { policy = \"in_place\", joint = \"b_Hip_01\" }\n"),
           "up = [0, 0, 1]\nforward = [0, -1, 0]\n");
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  const CookedMesh& mesh = out.pack.meshes.at(0);
  EXPECT_EQ(mesh.up.z, 1.0f);
  EXPECT_EQ(mesh.forward.y, -1.0f);
  const RootMotionConfig& rm = *out.pack.objects.at(0).animation.root_motion;
  EXPECT_EQ(rm.up.z, 1.0f);
  EXPECT_EQ(rm.forward.y, -1.0f);
}

TEST_F(CookRootMotionIk, RootMotionOrIkOnAMeshWithoutARigIsAnErrorWithANoteAtTheMesh) {
  cook_raw("[[mesh]]\nname = \"tri\"\nfile = \"" + kTriangle.string() +
           "\"\n[[object]]\nname = \"t\"\nmesh = \"tri\"\n[object.animation.root_motion]\n"
           "policy = \"accumulate\"\n[[object.animation.ik]]\nkind = \"aim\"\njoints = [\"x\"]\n");
  EXPECT_EQ(problems(), (std::vector<std::string>{"E0213 7:19", "E0213 9:1"})) << printed();
  size_t notes = 0;
  for (const Diagnostic& d : sink_.diagnostics()) {
    if (d.severity != Severity::kNote || d.code != "E0213") continue;  // W0301: the import's
    ++notes;
    EXPECT_EQ(d.line, 1) << "at the [[mesh]]";
  }
  EXPECT_EQ(notes, 2u) << printed();
}

TEST_F(CookRootMotionIk, UnknownJointsAreErrorsAtTheirKeyWithACloseSpelling) {
  cook(fox("[object.animation.root_motion]\n"                                            // 8
           "policy = \"accumulate\"\n"                                                   // 9
           "joint = \"b_Hip_1\"\n"                                                       // 10
           "[[object.animation.ik]]\n"                                                   // 11
           "kind = \"foot\"\n"                                                           // 12
           "joints = [\"b_LeftLeg01_015\", \"b_LeftLeg2_016\", \"b_LeftFoot01_017\"]\n"  // 13
           "hips = \"b_Hipp_01\"\n",                                                     // 14
           "fox") +
       fox("root_motion = { policy = \"in_place\", feet = [\"b_LeftFoot2_018\"] }\n",  // 19
           "fox2"));
  EXPECT_EQ(problems(), (std::vector<std::string>{"E0215 10:1", "E0215 13:30", "E0215 19:46"}))
      << printed();
  const Diagnostic* d = find("E0215");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("did you mean `b_Hip_01`?"), std::string::npos) << d->message;
}

TEST_F(CookRootMotionIk, UnknownHipsAreAnErrorAtHips) {
  cook(
      fox("[[object.animation.ik]]\n"                                                    // 8
          "kind = \"foot\"\n"                                                            // 9
          "joints = [\"b_LeftLeg01_015\", \"b_LeftLeg02_016\", \"b_LeftFoot01_017\"]\n"  // 10
          "hips = \"b_Hipp_01\"\n"));                                                    // 11
  EXPECT_EQ(problems(), std::vector<std::string>{"E0215 11:1"}) << printed();
  EXPECT_NE(find("E0215")->message.find("did you mean `b_Hip_01`?"), std::string::npos);
}

TEST_F(CookRootMotionIk, AFootAtOrAboveTheRootJointIsAnErrorAtTheElement) {
  cook(
      fox("[object.animation.root_motion]\n"                                 // 8
          "policy = \"accumulate\"\n"                                        // 9
          "joint = \"b_Hip_01\"\n"                                           // 10
          "feet = [\"b_Hip_01\", \"b_Root_00\", \"b_LeftFoot02_018\"]\n"));  // 11
  EXPECT_EQ(problems(), (std::vector<std::string>{"E0216 11:9", "E0216 11:21"})) << printed();
}

TEST_F(CookRootMotionIk, JointsThatDoNotFormAChainAreAnErrorNamingThePair) {
  cook(
      fox("[[object.animation.ik]]\n"                                                     // 8
          "kind = \"two_bone\"\n"                                                         // 9
          "joints = [\"b_LeftLeg01_015\", \"b_LeftFoot01_017\", \"b_LeftFoot02_018\"]\n"  // 10
          "[[object.animation.ik]]\n"                                                     // 11
          "kind = \"chain\"\n"                                                            // 12
          "joints = [\"b_Tail02_013\", \"b_Tail01_012\"]\n"));                            // 13
  EXPECT_EQ(problems(), (std::vector<std::string>{"E0217 10:30", "E0217 13:27"})) << printed();
  const Diagnostic* d = find("E0217");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("'b_LeftLeg01_015' and 'b_LeftFoot01_017'"), std::string::npos)
      << d->message;
  EXPECT_NE(d->message.find("parent is 'b_LeftLeg02_016'"), std::string::npos) << d->message;
}

TEST_F(CookRootMotionIk, HipsThatAreNotAboveTheThighOrDifferAreErrors) {
  cook(
      fox("[[object.animation.ik]]\n"                                                       // 8
          "kind = \"foot\"\n"                                                               // 9
          "joints = [\"b_LeftLeg01_015\", \"b_LeftLeg02_016\", \"b_LeftFoot01_017\"]\n"     // 10
          "hips = \"b_RightLeg01_019\"\n"                                                   // 11
          "[[object.animation.ik]]\n"                                                       // 12
          "kind = \"foot\"\n"                                                               // 13
          "joints = [\"b_RightLeg01_019\", \"b_RightLeg02_020\", \"b_RightFoot01_021\"]\n"  // 14
          "hips = \"b_Root_00\"\n"                                                          // 15
          "[[object.animation.ik]]\n"                                                       // 16
          "kind = \"foot\"\n"                                                               // 17
          "name = \"third\"\n"                                                              // 18
          "joints = [\"b_LeftLeg01_015\", \"b_LeftLeg02_016\", \"b_LeftFoot01_017\"]\n"));  // 19
  EXPECT_EQ(problems(), (std::vector<std::string>{"E0219 11:1", "E0220 19:11"})) << printed();
}

TEST_F(CookRootMotionIk, AClipMovingAJointAboveTheRootIsAWarningNamingTheClipAndJoint) {
  const CookOutput out =
      cook(fox("[object.animation.root_motion]\n"  // 8
               "policy = \"in_place\"\n"           // 9
               "joint = \"b_Spine01_02\"\n"));     // 10
  // Every Fox clip moves b_Hip_01 (above b_Spine01_02): one warning per clip, at `joint`.
  EXPECT_EQ(problems(), (std::vector<std::string>{"W0214 10:1", "W0214 10:1", "W0214 10:1"}))
      << printed();
  const Diagnostic* d = find("W0214");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kWarning);
  EXPECT_NE(d->message.find("'b_Hip_01'"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("clip 'Survey'"), std::string::npos) << d->message;
  EXPECT_TRUE(out.pack.objects.at(0).animation.root_motion.has_value()) << "a warning only";
}

TEST_F(CookRootMotionIk, TheFoxsOwnRootJointGivesNoWarning) {
  cook(fox("root_motion = { policy = \"accumulate\", joint = \"b_Hip_01\" }\n"));
  EXPECT_EQ(problems(), std::vector<std::string>{}) << printed();
}

TEST_F(CookRootMotionIk, AZeroLengthBoneIsAnErrorNamingTheJoint) {
  write_mover(1.0f);
  cook_raw(
      "[[mesh]]\nname = \"m\"\nfile = \"mover.gltf\"\n[[object]]\nname = \"m\"\n"
      "mesh = \"m\"\n[[object.animation.ik]]\nkind = \"chain\"\n"
      "joints = [\"base\", \"hinge\", \"tip\"]\n");
  EXPECT_EQ(problems(), std::vector<std::string>{"E0218 9:19"}) << printed();
  EXPECT_NE(find("E0218")->message.find("'hinge'"), std::string::npos);
}

TEST_F(CookRootMotionIk, ATravelTooLargeForTheTrackIsAnErrorAtRootMotionNamingTheClip) {
  write_mover(40000.0f);  // over the 32767 object units one pass may travel
  cook_raw(
      "[[mesh]]\nname = \"m\"\nfile = \"mover.gltf\"\n[[object]]\nname = \"m\"\n"
      "mesh = \"m\"\n[object.animation]\nclip = \"Slide\"\n"
      "root_motion = { policy = \"accumulate\" }\n");
  EXPECT_EQ(problems(), std::vector<std::string>{"E0221 9:1"}) << printed();
  EXPECT_NE(find("E0221")->message.find("'Slide'"), std::string::npos);
}

TEST_F(CookRootMotionIk, ATravelWithinTheTrackBakes) {
  write_mover(30000.0f);
  const CookOutput out = cook_raw(
      "[[mesh]]\nname = \"m\"\nfile = \"mover.gltf\"\n[[object]]\nname = \"m\"\n"
      "mesh = \"m\"\n[object.animation]\nclip = \"Slide\"\n"
      "root_motion = { policy = \"accumulate\" }\n");
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  const std::vector<RootMotionSample>& track = out.pack.objects.at(0).animation.root_tracks.at(0);
  ASSERT_EQ(track.size(), 61u);
  EXPECT_EQ(track.back().x, 30000 * kRootMotionUnitsPerMetre) << "exact: rounded once";
  EXPECT_EQ(track.back().z, 0);
}

// docs/scene-format.md's "Root motion and IK: the Fox" cooks as the docs say.
TEST_F(CookRootMotionIk, TheDocsFoxCooks) {
  std::ifstream in(fs::path(ANIMPACK_SOURCE_DIR) / "docs/scene-format.md", std::ios::binary);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t section = doc.find("## Root motion and IK: the Fox");
  ASSERT_NE(section, std::string::npos);
  const std::string open = "```toml\n";
  const size_t begin = doc.find(open, section);
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```\n", begin + open.size());
  ASSERT_NE(end, std::string::npos);
  fs::copy_file(kFox, dir_ / "Fox.glb");
  const CookOutput out = cook_raw(doc.substr(begin + open.size(), end - begin - open.size()));
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  const Rig& rig = out.pack.rigs.at(0).rig;
  const CookedAnimation& a = out.pack.objects.at(0).animation;
  ASSERT_TRUE(a.root_motion.has_value());
  EXPECT_EQ(a.root_motion->policy, RootMotionPolicy::kAccumulate);
  ASSERT_EQ(a.root_tracks.size(), 3u) << "Survey, Walk and Run";
  for (size_t c = 0; c < rig.clips().size(); ++c) {
    EXPECT_TRUE(check_root_motion_track(rig.clips()[c], *a.root_motion, a.root_tracks[c]));
  }
  ASSERT_EQ(a.ik.size(), 2u);
  EXPECT_EQ(a.ik[0].name, "look");
  EXPECT_FLOAT_EQ(a.ik[0].max_angle, 3.14159265f / 3);
  EXPECT_EQ(a.ik[1].name, "b_LeftFoot01_017");
  EXPECT_EQ(a.ik[1].weight, 0.0f);
}

// End to end: the walking fox cooked, written, opened by Pack::from_bytes and played by a
// ScenePlayer: the pack holds what was cooked, the fox collects the walk's motion, and the
// game drives its solvers by name.
TEST_F(CookRootMotionIk, ACookedPackPlaysRootMotionAndIkInTheScenePlayer) {
  const CookOutput out = cook(fox(kWalker));
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  const std::vector<uint8_t> bytes = write_pack(out.pack);
  DiagnosticSink verify;
  EXPECT_TRUE(verify_pack(bytes, dir_ / "scene.toml", verify))
      << format_diagnostics(verify, DiagnosticFormat::kGcc);
  Result<Pack> pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  ASSERT_EQ(pack->objects().size(), 1u);
  const ObjectAnimationInfo& info = pack->objects()[0].animation;
  ASSERT_TRUE(info.root_motion.has_value());
  EXPECT_EQ(info.root_motion->joint, out.pack.objects[0].animation.root_motion->joint);
  EXPECT_EQ(info.root_motion->rate, 30);
  ASSERT_EQ(info.root_tracks.size(), out.pack.objects[0].animation.root_tracks.size());
  for (size_t c = 0; c < info.root_tracks.size(); ++c) {
    const std::vector<RootMotionSample>& cooked = out.pack.objects[0].animation.root_tracks[c];
    ASSERT_EQ(info.root_tracks[c].samples.size(), cooked.size());
    EXPECT_TRUE(std::equal(cooked.begin(), cooked.end(), info.root_tracks[c].samples.begin()));
  }
  ASSERT_EQ(info.ik.size(), 5u);
  EXPECT_EQ(info.ik[0].name, "left_leg");
  EXPECT_EQ(info.ik[1].max_angle, out.pack.objects[0].animation.ik[1].max_angle);

  Result<ScenePlayer> player = ScenePlayer::create(&*pack, 30);
  ASSERT_TRUE(player) << player.error().message();
  const ObjectId fox = *player->find("fox");
  ASSERT_NE(player->ik(fox), nullptr);
  EXPECT_EQ(player->ik(fox)->solver_count(), 5);
  // Two seconds of the walk at 30 ticks a second: the fox travels, all of it collected.
  RootMotionDelta total;
  for (int t = 0; t < 60; ++t) {
    player->step();
    const Result<RootMotionDelta> d = player->take_root_motion(fox);
    ASSERT_TRUE(d) << d.error().message();
    total.x += d->x;
    total.z += d->z;
    total.yaw += d->yaw;
  }
  EXPECT_TRUE(total.x != 0 || total.z != 0) << "the walk moves the fox";
  EXPECT_EQ(total.y, 0);
  // The head looks where the game says: its palette changes with the target, and weight 0
  // gives the animated pose.
  const size_t head = static_cast<size_t>(out.pack.rigs[0].rig.skeleton().find_joint("b_Head_05"));
  const auto head_matrix = [&] { return player->palette(fox)[head]; };
  ASSERT_TRUE(player->set_ik_target(fox, "b_Head_05", {0.0f, 40.0f, -100.0f}));
  player->step();
  const Mat4 behind = head_matrix();
  ASSERT_TRUE(player->set_ik_target(fox, "b_Head_05", {100.0f, 40.0f, 0.0f}));
  player->step();
  const Mat4 side = head_matrix();
  EXPECT_NE(std::memcmp(behind.m, side.m, sizeof behind.m), 0) << "a new target turns the head";
  EXPECT_FALSE(player->set_ik_target(fox, "tail", {0, 0, 0})) << "no solver of that name";
  EXPECT_TRUE(player->set_ik_weight(fox, "left_leg", 1.0f));
}

}  // namespace
}  // namespace animpack
