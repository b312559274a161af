// The `animpack` command line: exit codes, formats, no partial output, --help/--version.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "fixtures/run_cli.h"

namespace {

namespace fs = std::filesystem;

using animpack::fixture::CliRun;

// The animpack executable with these arguments.
CliRun run(const std::string& args) { return animpack::fixture::run_cli(ANIMPACK_EXE, args); }

std::string data(const char* name) {
  return (fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/cook" / name).string();
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("animpack_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(Cli, ACleanCookExitsZeroAndWritesThePackAndDepfile) {
  const fs::path out = dir_ / "good.anpk";
  const CliRun r = run("cook " + data("good.toml") + " -o " + out.string() + " --depfile " +
                       out.string() + ".d");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(out));
  EXPECT_TRUE(fs::exists(out.string() + ".d"));
  const CliRun inspect = run("inspect " + out.string());
  EXPECT_EQ(inspect.status, 0) << inspect.output;
  for (const char* s : {"meshes: 3", "rigs: 2", "skin rig", "node rig", "sprite sheets: 1",
                        "objects: 4", "clip run: 6 frames", "bender: mesh 0"}) {
    EXPECT_NE(inspect.output.find(s), std::string::npos) << s << "\n" << inspect.output;
  }
}

TEST_F(Cli, ErrorsExitOneWithGccDiagnosticsAndACaret) {
  const CliRun r = run("check " + data("unknown_clip.toml"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("unknown_clip.toml:13:1: error: mesh skin has no clip Jog"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("   13 | clip = \"Jog\"\n      | ^"), std::string::npos) << r.output;
}

TEST_F(Cli, GithubFormatPrintsWorkflowCommands) {
  const CliRun r = run("check --format github " + data("unknown_blend_clip.toml"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("::error file=" + data("unknown_blend_clip.toml") +
                          ",line=13,col=52,title=E0202::"),
            std::string::npos)
      << r.output;
}

TEST_F(Cli, JsonFormatPrintsOneObjectPerDiagnostic) {
  const CliRun r = run("check --format json " + data("several.toml"));
  EXPECT_EQ(r.status, 1);
  size_t objects = 0;
  for (size_t at = r.output.find("{\"file\""); at != std::string::npos;
       at = r.output.find("{\"file\"", at + 1))
    ++objects;
  EXPECT_EQ(objects, 5u) << r.output;  // 4 errors and the note that SimpleSkin got normals
  EXPECT_NE(r.output.find("\"severity\":\"note\",\"code\":\"W0301\""), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("\"line\":21,\"column\":25,\"severity\":\"error\",\"code\":\"E0203\""),
            std::string::npos)
      << r.output;
}

TEST_F(Cli, AFailedCookLeavesNoOutputAndKeepsAPreviousGoodPack) {
  const fs::path out = dir_ / "scene.anpk";
  ASSERT_EQ(run("cook " + data("good.toml") + " -o " + out.string()).status, 0);
  const auto size = fs::file_size(out);
  const CliRun r = run("cook " + data("several.toml") + " -o " + out.string() + " --depfile " +
                       out.string() + ".d");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(fs::file_size(out), size) << "the previous pack is untouched";
  EXPECT_FALSE(fs::exists(out.string() + ".d"));
  const fs::path fresh = dir_ / "fresh.anpk";
  EXPECT_EQ(run("cook " + data("several.toml") + " -o " + fresh.string()).status, 1);
  EXPECT_FALSE(fs::exists(fresh));
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
}

TEST_F(Cli, WarningsPassUnlessDenied) {
  const fs::path out = dir_ / "w.anpk";
  EXPECT_EQ(run("cook " + data("event_past_end.toml") + " -o " + out.string()).status, 0);
  EXPECT_TRUE(fs::exists(out));
  const fs::path denied = dir_ / "denied.anpk";
  EXPECT_EQ(
      run("cook --deny-warnings " + data("event_past_end.toml") + " -o " + denied.string()).status,
      1);
  EXPECT_FALSE(fs::exists(denied));
}

TEST_F(Cli, UsageAndIoProblemsExitTwo) {
  EXPECT_EQ(run("").status, 2);
  EXPECT_EQ(run("frobnicate").status, 2);
  EXPECT_EQ(run("cook " + data("good.toml")).status, 2) << "no -o";
  EXPECT_EQ(run("cook --bogus " + data("good.toml") + " -o x").status, 2);
  EXPECT_EQ(run("check --format xml " + data("good.toml")).status, 2);
  EXPECT_EQ(run("check /nonexistent/scene.toml").status, 2);
  EXPECT_EQ(run("inspect /nonexistent/pack.anpk").status, 2);
  EXPECT_EQ(run("cook " + data("good.toml") + " -o /nonexistent/dir/x.anpk").status, 2);
}

TEST_F(Cli, InspectRefusesACorruptPackWithExitOne) {
  const fs::path bad = dir_ / "bad.anpk";
  std::ofstream(bad) << "not a pack at all, really not";
  const CliRun r = run("inspect " + bad.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("bad pack"), std::string::npos) << r.output;
}

TEST_F(Cli, EverySubcommandHasHelpAndThereIsAVersion) {
  for (const char* sub : {"cook", "check", "inspect"}) {
    const CliRun r = run(std::string(sub) + " --help");
    EXPECT_EQ(r.status, 0) << sub;
    EXPECT_NE(r.output.find(std::string("usage: animpack ") + sub), std::string::npos) << r.output;
  }
  EXPECT_EQ(run("--help").status, 0);
  const CliRun v = run("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_NE(v.output.find("animpack 0.1.0 (pack format 7)"), std::string::npos) << v.output;
  // Its second line: the program that makes FBX and Collada files' trial read.
  EXPECT_NE(v.output.find("\nassimp trial read: "), std::string::npos) << v.output;
  EXPECT_NE(v.output.find("/animpack-assimp-trial\n"), std::string::npos) << v.output;
}

}  // namespace

namespace {

// A usage error is one line on stderr naming the problem and the subcommand's --help,
// exit 2, whichever of CLI11's errors or the command's own checks finds it.
TEST_F(Cli, UsageErrorsAreOneLineNamingTheOptionAndTheHelp) {
  const std::string scene = data("good.toml");
  const struct {
    std::string args, line;
  } cases[] = {
      {"cook " + scene + " -o x.anpk --frobnicate",
       "animpack: unknown option '--frobnicate'; see animpack cook --help\n"},
      {"cook " + scene + " -o", "animpack: --output needs a value; see animpack cook --help\n"},
      {"cook " + scene, "animpack: -o OUT.anpk is needed; see animpack cook --help\n"},
      {"check " + scene + " --format xml",
       "animpack: unknown --format 'xml' (gcc, github, json or sarif); see animpack check "
       "--help\n"},
      {"check --deny-warnings",  // several scenes are fine (batch_cli_test.cpp), none is not
       "animpack: needs a SCENE.toml (0 given); see animpack check --help\n"},
      {"inspect", "animpack: needs one PACK.anpk (0 given); see animpack inspect --help\n"},
      {"play x.anpk --ticks 0",
       "animpack: --ticks takes a whole number from 1 to 100000000, not '0'; see animpack play "
       "--help\n"},
      {"pose x.anpk --object a --tick -1",
       "animpack: --tick takes a whole number from 0 to 100000000, not '-1'; see animpack pose "
       "--help\n"},
      {"preview x.anpk --object a -o x.png --frames 65",
       "animpack: --frames takes a whole number from 1 to 64, not '65'; see animpack preview "
       "--help\n"},
      {"--frobnicate", "animpack: unknown option '--frobnicate'; see animpack --help\n"},
  };
  for (const auto& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output, c.line) << c.args;
  }
}

// Options come in any order and as --option=value; one given twice keeps its last value.
TEST_F(Cli, OptionsComeInAnyOrderAndTheLastValueWins) {
  const fs::path out = dir_ / "order.anpk";
  const CliRun r = run("cook --output=" + (dir_ / "first.anpk").string() + " --no-compress " +
                       data("good.toml") + " -o " + out.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(out));
  EXPECT_FALSE(fs::exists(dir_ / "first.anpk"));
}

}  // namespace
