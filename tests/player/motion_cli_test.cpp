// The command line on a pack with root motion and IK (format 4): the play script's ik_*
// commands, play's summary of the motion each accumulate object took, pose's IK'd pose
// and motion taken, and inspect's root motion and IK lines.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "animpack/compiler/pack_writer.h"
#include "animpack/scene_player.h"
#include "fixtures/run_cli.h"
#include "motion_fixture.h"
#include "play_commands.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

TEST(PlayScript, ParsesIkCommands) {
  const ScriptParse s = parse_script(
      "4 walker ik_target arm 1 2.5 -0.5\n"
      "5 walker ik_clear arm\n"
      "6 walker ik_pole arm 0 0 1\n"
      "7 walker ik_weight look 0.25\n"
      "8 walker ik_ground left_foot 0.1\n"
      "9 walker ik_ground left_foot -0.2 0 0.8 0.6\n",
      "ik.txt");
  ASSERT_TRUE(s.error.empty()) << s.error;
  ASSERT_EQ(s.commands.size(), 6u);
  EXPECT_EQ(s.commands[0].kind, ScriptCommand::Kind::kIkTarget);
  EXPECT_EQ(s.commands[0].name, "arm");
  EXPECT_EQ(s.commands[0].point.y, 2.5f);
  EXPECT_EQ(s.commands[0].point.z, -0.5f);
  EXPECT_EQ(s.commands[1].kind, ScriptCommand::Kind::kIkClear);
  EXPECT_EQ(s.commands[2].kind, ScriptCommand::Kind::kIkPole);
  EXPECT_EQ(s.commands[2].point.z, 1.0f);
  EXPECT_EQ(s.commands[3].kind, ScriptCommand::Kind::kIkWeight);
  EXPECT_EQ(s.commands[3].value, 0.25f);
  EXPECT_EQ(s.commands[4].kind, ScriptCommand::Kind::kIkGround);
  EXPECT_EQ(s.commands[4].value, 0.1f);
  EXPECT_FALSE(s.commands[4].has_point);
  EXPECT_TRUE(s.commands[5].has_point);
  EXPECT_EQ(s.commands[5].point.z, 0.6f);
}

TEST(PlayScript, RefusesAMalformedIkLineWithItsLineNumber) {
  const struct {
    const char* text;
    const char* says;
  } cases[] = {
      {"1 walker ik_target arm 1 2\n", "ik.txt:1: ik_target takes SOLVER X Y Z"},
      {"\n1 walker ik_pole arm 0 nan 1\n", "ik.txt:2: ik_pole takes SOLVER X Y Z (numbers)"},
      {"1 walker ik_weight\n", "ik.txt:1: ik_weight takes SOLVER WEIGHT"},
      {"1 walker ik_weight look heavy\n", "weight 'heavy' is not a number"},
      {"1 walker ik_ground foot 0 0 1\n", "ik_ground takes SOLVER HEIGHT [NX NY NZ] (numbers)"},
      {"1 walker ik_clear\n", "ik_clear takes a SOLVER"},
      {"1 walker ik_target arm 1 2 3 4\n", "unexpected '4'"},
      {"1 walker ik_reach arm\n", "unknown command 'ik_reach'"},
  };
  for (const auto& c : cases) {
    const ScriptParse s = parse_script(c.text, "ik.txt");
    EXPECT_TRUE(s.commands.empty()) << c.text;
    EXPECT_NE(s.error.find(c.says), std::string::npos) << c.text << ": " << s.error;
  }
}

// The walk moves the root 2 units straight along +z a pass while turning it a quarter
// turn: its track holds that motion in the turning root's frame, and play, turning each
// delta by the yaw taken before it, gets the straight line back.
TEST(PlayCommand, TheSummaryGivesTheMotionTakenInTheObjectsFrame) {
  const Pack pack = motion_fixture::make_pack();
  const ScriptParse script = parse_script(
      "0 walker ik_target arm 1 2.5 0\n"
      "10 walker ik_ground arm 0.5\n"   // refused: arm is no foot solver
      "20 plain ik_target arm 0 1 0\n"  // refused: plain has no IK
      "30 walker ik_weight look 0\n"
      "40 walker ik_clear arm\n",
      "ik.txt");
  ASSERT_TRUE(script.error.empty()) << script.error;
  std::string report;
  Result<uint64_t> hash = run_play(pack, {60, 60}, script.commands, &report);
  ASSERT_TRUE(hash) << hash.error().message();
  EXPECT_NE(report.find("tick 10\n  refused: invalid_argument: walker IK solver 'arm'"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("tick 20\n  refused: invalid_argument: plain has no IK solvers"),
            std::string::npos)
      << report;
  double x = 0, y = 0, z = 0, turns = 0;
  const size_t at = report.find("walker root motion: travelled ");
  ASSERT_NE(at, std::string::npos) << report;
  ASSERT_EQ(std::sscanf(report.c_str() + at,
                        "walker root motion: travelled %lf %lf %lf (object units, its frame at "
                        "tick 0), turned %lf turns",
                        &x, &y, &z, &turns),
            4)
      << report;
  EXPECT_EQ(report.find("stander root motion"), std::string::npos) << "in_place takes nothing";
  EXPECT_EQ(report.find("plain root motion"), std::string::npos);
  // Ticks 0..59: 59/60 of a pass.
  EXPECT_NEAR(x, 0.0, 1e-3);
  EXPECT_EQ(y, 0.0);
  EXPECT_NEAR(z, 2.0 * 59.0 / 60.0, 1e-3);
  EXPECT_NEAR(turns, 0.25 * 59.0 / 60.0, 1e-6);

  // The same sum, taken by hand with the C library's sin and cos.
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  double hx = 0, hz = 0;
  int64_t yaw = 0;
  for (int t = 0; t < 60; ++t) {
    player.step();
    const RootMotionDelta d = *player.take_root_motion(ObjectId{motion_fixture::kWalker});
    const double a = 2.0 * M_PI * static_cast<double>(yaw) / static_cast<double>(kYawUnitsPerTurn);
    const double dx = static_cast<double>(d.x) / kRootMotionUnitsPerMetre;
    const double dz = static_cast<double>(d.z) / kRootMotionUnitsPerMetre;
    hx += dx * std::cos(a) + dz * std::sin(a);  // about +y: x' = x cos + z sin
    hz += -dx * std::sin(a) + dz * std::cos(a);
    yaw += d.yaw;
  }
  EXPECT_NEAR(x, hx, 1e-5);
  EXPECT_NEAR(z, hz, 1e-5);
  EXPECT_NEAR(turns, static_cast<double>(yaw) / kYawUnitsPerTurn, 1e-6);

  // The deltas are part of the run's hash: without them the run hashes differently.
  CookedPack off = motion_fixture::make_cooked();
  off.objects[motion_fixture::kWalker].animation.root_motion->policy = RootMotionPolicy::kInPlace;
  off.objects[motion_fixture::kWalker].animation.root_tracks.clear();
  const Pack in_place = *Pack::from_bytes(write_pack(off));
  std::string other;
  Result<uint64_t> other_hash = run_play(in_place, {60, 60}, script.commands, &other);
  ASSERT_TRUE(other_hash);
  EXPECT_NE(*other_hash, *hash);
  EXPECT_EQ(other.find("walker root motion"), std::string::npos);
}

TEST(PoseCommand, GivesTheIkdPoseAndTheMotionTakenOfAnAccumulateObject) {
  const Pack pack = motion_fixture::make_pack();
  const Result<std::string> text = pose_json(pack, "walker", 30, 60);
  ASSERT_TRUE(text) << text.error().message();
  const json j = json::parse(*text);
  ASSERT_TRUE(j.contains("root_motion")) << *text;
  // Ticks 0..30: half a pass, 1 unit along +z and an eighth of a turn.
  EXPECT_NEAR(j["root_motion"]["yaw"].get<double>(), kYawUnitsPerTurn / 8.0, 64.0);
  EXPECT_NEAR(j["root_motion"]["yaw_radians"].get<double>(), M_PI / 4.0, 1e-5);
  // One take over the whole run: the delta is in the frame at tick 0, the later steps
  // turned by the yaw before them, so the root's straight line.
  EXPECT_NEAR(j["root_motion"]["translation"][0].get<double>(), 0.0, 1e-3);
  EXPECT_NEAR(j["root_motion"]["translation"][2].get<double>(), 1.0, 1e-3);
  EXPECT_EQ(static_cast<float>(j["root_motion"]["translation"][2].get<double>()),
            static_cast<float>(j["root_motion"]["z"].get<double>() / kRootMotionUnitsPerMetre));

  // The look solver (weight 0.5, target fixed in the scene) turned bone3: the same pack
  // without IK poses it otherwise, and everything above it the same.
  CookedPack cooked = motion_fixture::make_cooked();
  cooked.objects[motion_fixture::kWalker].animation.ik.clear();
  const Pack without = *Pack::from_bytes(write_pack(cooked));
  const json k = json::parse(*pose_json(without, "walker", 30, 60));
  EXPECT_EQ(j["joints"][2]["global"], k["joints"][2]["global"]);
  EXPECT_NE(j["joints"][3]["global"], k["joints"][3]["global"]);
  EXPECT_NE(j["joints"][3]["rotation"], k["joints"][3]["rotation"]);

  const json plain = json::parse(*pose_json(pack, "plain", 30, 60));
  EXPECT_FALSE(plain.contains("root_motion"));
}

using animpack::fixture::CliRun;

CliRun run(const std::string& args) { return animpack::fixture::run_cli(ANIMPACK_EXE, args); }

class MotionCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("animpack_motion_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    pack_path_ = (dir_ / "motion.anpk").string();
    ASSERT_EQ(write_file_atomically(pack_path_, write_pack(motion_fixture::make_cooked())), "");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string pack_path_;
};

TEST_F(MotionCli, InspectListsRootMotionAndIk) {
  const CliRun r = run("inspect " + pack_path_);
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* line :
       {"pack " /* then the path */, ": format 7,",
        "    root motion: accumulate, joint root, extract horizontal+yaw, 60 samples a second, up "
        "0 1 0\n",
        "      clip [4] Walk: 61 samples, a pass travels ", ", turns 0.25\n",
        "    ik [0] arm: two_bone, joints bone1 bone2 bone3, target from the game, weight 1\n",
        "    ik [1] look: aim, joints bone3, target 2 4 1, weight 0.5\n",
        "    root motion: in_place, joint root, extract horizontal, 60 samples a second"}) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  }
  EXPECT_EQ(r.output.find("\n      clip [5]"), std::string::npos)
      << "the additive clip has no track";
  EXPECT_EQ(r.output.find("axes:"), std::string::npos) << "glTF's axes are not listed";
}

TEST_F(MotionCli, PlayAndPoseAgreeWithTheLibrary) {
  const std::string text = "0 walker ik_target arm 1 2.5 0\n25 walker ik_weight arm 0.5\n";
  const fs::path script = dir_ / "ik.txt";
  std::ofstream(script) << text;
  const CliRun play = run("play " + pack_path_ + " --ticks 50 --script " + script.string());
  ASSERT_EQ(play.status, 0) << play.output;
  const Pack pack = *Pack::open(pack_path_);
  std::string report;
  ASSERT_TRUE(run_play(pack, {50, 60}, parse_script(text, "ik.txt").commands, &report));
  EXPECT_NE(play.output.find(report), std::string::npos) << play.output;
  EXPECT_NE(report.find("walker root motion: travelled"), std::string::npos) << report;

  const CliRun pose = run("pose " + pack_path_ + " --object walker --tick 40 --json");
  ASSERT_EQ(pose.status, 0) << pose.output;
  EXPECT_EQ(pose.output, *pose_json(pack, "walker", 40, 60));
  const CliRun summary = run("pose " + pack_path_ + " --object walker --tick 40");
  ASSERT_EQ(summary.status, 0) << summary.output;
  EXPECT_NE(summary.output.find("  root motion taken: "), std::string::npos) << summary.output;
  const CliRun late = run("pose " + pack_path_ + " --object walker --tick 1000001");
  EXPECT_EQ(late.status, 1) << late.output;
  EXPECT_NE(late.output.find("walker' accumulates root motion: it is stepped from tick 0"),
            std::string::npos)
      << late.output;
}

}  // namespace
}  // namespace animpack
