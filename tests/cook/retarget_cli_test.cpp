// `animpack retarget`: usage errors, the pairing table of --dry-run (names folded, humanoid
// maps), bad humanoid maps and models, and the pack it writes playing in `play` and `pose`.
// The source with other joint names is the corpus Fox with "mixamorig:" before every
// joint's name, written by the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "fixtures/run_cli.h"

namespace {

namespace fs = std::filesystem;

using animpack::fixture::CliRun;

CliRun run(const std::string& args) { return animpack::fixture::run_cli(ANIMPACK_EXE, args); }

const fs::path kFox = fs::path(ANIMPACK_CORPUS_DIR) / "gltf/Fox/glTF/Fox.gltf";

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

class RetargetCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("animpack_retarget_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // The Fox with every joint renamed Mixamo-style ("b_Hip_01" -> "mixamorig:b_Hip_01").
    std::ifstream in(kFox);
    nlohmann::json doc = nlohmann::json::parse(in);
    for (const nlohmann::json& j : doc["skins"][0]["joints"]) {
      nlohmann::json& node = doc["nodes"][j.get<size_t>()];
      node["name"] = "mixamorig:" + node["name"].get<std::string>();
    }
    std::ofstream(dir_ / "MixFox.gltf") << doc.dump();
    for (const char* f : {"Fox.bin", "Texture.png"})
      fs::copy_file(kFox.parent_path() / f, dir_ / f);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string mix() const { return (dir_ / "MixFox.gltf").string(); }
  std::string file(const char* name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

TEST_F(RetargetCli, HelpListsTheOptions) {
  const CliRun r = run("retarget --help");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* s : {"usage: animpack retarget SOURCE TARGET", "--humanoid-source",
                        "--humanoid-target", "--clip NAME", "--dry-run", "-o, --output"}) {
    EXPECT_TRUE(has(r.output, s)) << s << "\n" << r.output;
  }
  EXPECT_TRUE(has(run("--help").output, "retarget SOURCE TARGET"));
}

TEST_F(RetargetCli, BadArgumentsAreUsageErrors) {
  const std::string fox = kFox.string();
  const struct {
    std::string args, message;
  } cases[] = {
      {"retarget", "needs SOURCE and TARGET model files (0 given)"},
      {"retarget " + fox, "needs SOURCE and TARGET model files (1 given)"},
      {"retarget " + fox + " " + fox, "-o OUT.anpk is needed (or --dry-run)"},
      {"retarget " + fox + " " + fox + " --dry-run -o x.anpk", "--dry-run writes nothing"},
      {"retarget " + fox + " " + fox + " --dry-run --frobnicate", "unknown option '--frobnicate'"},
      {"retarget " + fox + " " + fox + " --dry-run --clip", "--clip needs a value"},
      {"retarget " + fox + " " + fox + " --dry-run --clip Walk --clip Walk",
       "--clip Walk is given twice"},
      {"retarget " + fox + " " + fox + " --dry-run --clip Swim",
       "has no such clip (its clips: Survey, Walk, Run)"},
      {"retarget " + (dir_ / "nope.glb").string() + " " + fox + " --dry-run",
       "cannot read source " + (dir_ / "nope.glb").string() + ": no such file"},
      {"retarget " + fox + " " + dir_.string() + " --dry-run", "cannot read target"},
  };
  for (const auto& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
    EXPECT_TRUE(has(r.output, c.message)) << c.args << "\n" << r.output;
  }
}

TEST_F(RetargetCli, DryRunPrintsThePairingOfPrefixedNames) {
  const CliRun r = run("retarget " + mix() + " " + kFox.string() + " --dry-run");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "(24 joints): 24 paired")) << r.output;
  EXPECT_TRUE(has(r.output, "  source joint                  target joint        how\n"))
      << r.output;
  EXPECT_TRUE(has(r.output, "  mixamorig:b_Hip_01            b_Hip_01            name\n"))
      << r.output;
  EXPECT_TRUE(has(r.output, "target joints without a source joint: 0\n")) << r.output;
  EXPECT_TRUE(has(r.output, "hips: mixamorig:_rootJoint -> _rootJoint")) << r.output;
  for (const char* s : {"clip Survey: 3.417 s, 21 of 21 channels kept, 0 dropped",
                        "clip Walk: 0.7083 s, 21 of 21 channels kept, 0 dropped",
                        "clip Run: 1.158 s, 21 of 21 channels kept, 0 dropped"}) {
    EXPECT_TRUE(has(r.output, s)) << s << "\n" << r.output;
  }
  // Nothing is written: the folder holds only what the test put there.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 3u);
}

TEST_F(RetargetCli, DryRunListsUnpairedJointsWithTheReason) {
  // The target is the renamed Fox with one leg's joints renamed out of reach.
  std::ifstream in(mix());
  nlohmann::json doc = nlohmann::json::parse(in);
  for (nlohmann::json& node : doc["nodes"]) {
    std::string name = node.value("name", "");
    if (name.find("LeftFoot") != std::string::npos) node["name"] = "paw_" + name.substr(10);
  }
  const std::string target = file("PawFox.gltf", doc.dump());
  const CliRun r = run("retarget " + kFox.string() + " " + target + " --dry-run");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "22 paired")) << r.output;
  EXPECT_TRUE(has(r.output, "unpaired: no target joint is named like it ('bleftfoot01017')"))
      << r.output;
  EXPECT_TRUE(has(r.output,
                  "target joints without a source joint: 2 (paw_b_LeftFoot01_017, "
                  "paw_b_LeftFoot02_018)"))
      << r.output;
  EXPECT_TRUE(has(r.output, "(joints without a pair: b_LeftFoot01_017")) << r.output;
}

TEST_F(RetargetCli, HumanoidMapsPairThroughTheirBones) {
  const std::string smap = file("source.toml", "hips = \"b_Hip_01\"\nhead = \"b_Head_05\"\n");
  const std::string tmap = file(
      "target.toml", "[humanoid]\nhips = \"mixamorig:b_Hip_01\"\nhead = \"mixamorig:b_Head_05\"\n");
  const CliRun r = run("retarget " + kFox.string() + " " + mix() + " --humanoid-source " + smap +
                       " --humanoid-target " + tmap + " --dry-run");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "  b_Hip_01            mixamorig:b_Hip_01            humanoid:hips\n"))
      << r.output;
  EXPECT_TRUE(has(r.output, "  b_Head_05           mixamorig:b_Head_05           humanoid:head\n"))
      << r.output;
  EXPECT_TRUE(has(r.output, "hips: b_Hip_01 -> mixamorig:b_Hip_01")) << r.output;
}

TEST_F(RetargetCli, BadHumanoidMapsAreErrorsAtTheirLine) {
  const std::string bad = file("bad.toml",
                               "hips = \"b_Hip_01\"\ntail = \"b_Tail01_012\"\n"
                               "head = 3\nneck = \"b_Neck\"\n");
  const CliRun r =
      run("retarget " + kFox.string() + " " + mix() + " --humanoid-source " + bad + " --dry-run");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, bad + ":2:1: error: 'tail' is not a humanoid bone (hips, spine,"))
      << r.output;
  EXPECT_TRUE(has(r.output, bad + ":3:8: error: humanoid bone 'head' needs a joint name"))
      << r.output;
  EXPECT_TRUE(has(r.output, bad + ":4:8: error: humanoid bone 'neck': 'b_Neck' is not a joint of"))
      << r.output;
  EXPECT_FALSE(has(r.output, "pairing ")) << r.output;

  const std::string syntax = file("syntax.toml", "hips = \n");
  const CliRun s = run("retarget " + kFox.string() + " " + mix() + " --humanoid-target " + syntax +
                       " --dry-run");
  EXPECT_EQ(s.status, 1) << s.output;
  EXPECT_TRUE(has(s.output, syntax + ":1:")) << s.output;
}

TEST_F(RetargetCli, AModelWithErrorsPrintsItsDiagnostics) {
  const fs::path invalid = fs::path(ANIMPACK_CORPUS_DIR) / "invalid-gltf/node/node_loop.gltf";
  const CliRun r = run("retarget " + invalid.string() + " " + kFox.string() + " --dry-run");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, invalid.string() + ": error: /nodes/")) << r.output;
  EXPECT_TRUE(has(r.output, "source " + invalid.string() + " does not load")) << r.output;

  const std::string still = file("Still.gltf", R"({"asset": {"version": "2.0"}, "scene": 0,
      "scenes": [{"nodes": [0]}], "nodes": [{"name": "lonely"}]})");
  const CliRun s = run("retarget " + kFox.string() + " " + still + " --dry-run");
  EXPECT_EQ(s.status, 1) << s.output;
  EXPECT_TRUE(has(s.output, "target " + still + " has no skeleton")) << s.output;
}

TEST_F(RetargetCli, WritesAPackThatPlaysAndPosesAsTheUnrenamedFox) {
  const fs::path out = dir_ / "mix_on_fox.anpk", self = dir_ / "fox_on_fox.anpk";
  const CliRun r = run("retarget " + mix() + " " + kFox.string() + " -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "3 of 3 clips onto")) << r.output;
  const CliRun inspect = run("inspect " + out.string());
  EXPECT_EQ(inspect.status, 0) << inspect.output;
  for (const char* s : {"skin rig: 24 joints, 3 clips", "clip [1] Walk: 0.7083 s, 21 channels",
                        "Fox: mesh 0, clip Survey"}) {
    EXPECT_TRUE(has(inspect.output, s)) << s << "\n" << inspect.output;
  }
  EXPECT_EQ(run("play " + out.string() + " --ticks 30").status, 0);
  // The same skeleton under other names: every key is copied, so the poses are the Fox's.
  ASSERT_EQ(run("retarget " + kFox.string() + " " + kFox.string() + " -o " + self.string()).status,
            0);
  for (int tick : {0, 17, 95}) {
    const CliRun a =
        run("pose " + out.string() + " --object Fox --tick " + std::to_string(tick) + " --json");
    const CliRun b =
        run("pose " + self.string() + " --object Fox --tick " + std::to_string(tick) + " --json");
    EXPECT_EQ(a.status, 0) << a.output;
    EXPECT_EQ(a.output, b.output) << tick;
  }

  // --clip picks and orders clips.
  const fs::path walk = dir_ / "walk.anpk";
  const CliRun w = run("retarget " + mix() + " " + kFox.string() + " --clip Run --clip Walk -o " +
                       walk.string());
  ASSERT_EQ(w.status, 0) << w.output;
  const CliRun wi = run("inspect " + walk.string());
  EXPECT_TRUE(has(wi.output, "skin rig: 24 joints, 2 clips")) << wi.output;
  EXPECT_TRUE(has(wi.output, "clip [0] Run")) << wi.output;
  EXPECT_TRUE(has(wi.output, "clip [1] Walk")) << wi.output;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(RetargetCli, RefusesToWriteOverAnInput) {
  const std::string before = read_all(mix());
  const CliRun r = run("retarget " + mix() + " " + kFox.string() + " -o " + mix());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "nothing written")) << r.output;
  EXPECT_EQ(read_all(mix()), before);
  const CliRun bin = run("retarget " + mix() + " " + kFox.string() + " -o " +
                         (dir_ / "Fox.bin").string());  // a buffer the model reads
  EXPECT_EQ(bin.status, 2) << bin.output;
}

}  // namespace
