// The `animpack` command line's manners: did-you-mean for commands and options, a model or
// a pack given where a scene is wanted, and `play --script` exiting 1 on a refused call.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fixtures/run_cli.h"

namespace {

namespace fs = std::filesystem;

using animpack::fixture::CliRun;

CliRun run(const std::string& args) { return animpack::fixture::run_cli(ANIMPACK_EXE, args); }

std::string data(const char* name) {
  return (fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/cook" / name).string();
}

TEST(CliSuggest, AnUnknownCommandNamesTheClosestOne) {
  const CliRun r = run("cok x.toml");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "animpack: unknown command 'cok'; did you mean 'cook'?\n");
  EXPECT_EQ(run("INSPCET x.anpk").output,
            "animpack: unknown command 'INSPCET'; did you mean 'inspect'?\n");
  EXPECT_EQ(run("retargte a b").output,
            "animpack: unknown command 'retargte'; did you mean 'retarget'?\n");
}

TEST(CliSuggest, AnUnknownCommandFarFromAnyListsTheCommands) {
  const CliRun r = run("xyzzy");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output.find("did you mean"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("animpack: unknown command 'xyzzy'\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("commands:"), std::string::npos) << r.output;
}

TEST(CliSuggest, AnUnknownOptionNamesTheClosestOptionOfItsCommand) {
  const CliRun r = run("cook --deny-warning");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output,
            "animpack: unknown option '--deny-warning' (did you mean '--deny-warnings'?); see "
            "animpack cook --help\n");
  EXPECT_EQ(run("pose p.anpk --tik 3").output,
            "animpack: unknown option '--tik' (did you mean '--tick'?); see animpack pose "
            "--help\n");
  // The value of --opt=value is left out of the comparison.
  EXPECT_EQ(run("check s.toml --fromat=json").output,
            "animpack: unknown option '--fromat=json' (did you mean '--format'?); see animpack "
            "check --help\n");
  EXPECT_EQ(run("--verison").output,
            "animpack: unknown option '--verison' (did you mean '--version'?); see animpack "
            "--help\n");
  // Only the command's own options: check has no --output.
  EXPECT_EQ(run("check s.toml --outptu x").output.find("did you mean"), std::string::npos);
  EXPECT_EQ(run("cook --frobnicate").output,
            "animpack: unknown option '--frobnicate'; see animpack cook --help\n");
}

TEST(CliNotAScene, AModelGivenToCookOrCheckSaysItWantsASceneAndNamesInfo) {
  for (const char* model : {"models/SimpleSkin.gltf", "fox.GLB", "x.fbx", "x.dae"}) {
    for (const std::string cmd : {"check ", "cook "}) {
      const std::string file = data(model);
      const CliRun r = run(cmd + file + (cmd == "cook " ? " -o x.anpk" : ""));
      EXPECT_EQ(r.status, 2) << cmd << model;
      EXPECT_NE(r.output.find("animpack: " + file + " is a model, not a scene"), std::string::npos)
          << r.output;
      EXPECT_NE(r.output.find("`animpack info " + file + "`"), std::string::npos) << r.output;
    }
  }
}

TEST(CliNotAScene, APackGivenToCookOrCheckNamesInspectAndPlay) {
  for (const std::string cmd : {"check x.anpk", "cook x.anpk -o y.anpk"}) {
    const CliRun r = run(cmd);
    EXPECT_EQ(r.status, 2) << cmd;
    EXPECT_NE(r.output.find("x.anpk is a pack, not a scene: `animpack inspect x.anpk`"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("`animpack play x.anpk --ticks N`"), std::string::npos) << r.output;
  }
}

class CliPlayScript : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("animpack_cli_manners_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    pack_ = (dir_ / "good.anpk").string();
    const CliRun cook = run("cook " + data("good.toml") + " -o " + pack_);
    ASSERT_EQ(cook.status, 0) << cook.output;
  }
  void TearDown() override { fs::remove_all(dir_); }
  CliRun play(const std::string& script_text) {
    const fs::path script = dir_ / "moves.txt";
    std::ofstream(script) << script_text;
    return run("play " + pack_ + " --ticks 8 --script " + script.string());
  }
  fs::path dir_;
  std::string pack_;
};

TEST_F(CliPlayScript, ARefusedCallExitsOneWithTheSummaryPrinted) {
  const CliRun r = play("2 gabe play idle\n3 gabe play nope\n");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("  refused: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("played 8 ticks at 60 Hz"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" 1 refused calls"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(": 1 refused call(s)\n"), std::string::npos) << r.output;
}

TEST_F(CliPlayScript, AScriptWithNoRefusalExitsZero) {
  const CliRun r = play("2 gabe play idle\n3 gabe play run\n");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(" 0 refused calls"), std::string::npos) << r.output;
}

}  // namespace
