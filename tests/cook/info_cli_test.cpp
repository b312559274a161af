// `animpack info MODEL [--json]` and `animpack inspect PACK --json` run as a user would:
// exit statuses, the text's blocks, the JSON parsed back.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "fixtures/run_cli.h"

namespace {

namespace fs = std::filesystem;
using animpack::fixture::CliRun;
using nlohmann::json;

CliRun run(const std::string& args) { return animpack::fixture::run_cli(ANIMPACK_EXE, args); }

std::string source(const char* path) { return (fs::path(ANIMPACK_SOURCE_DIR) / path).string(); }
std::string corpus(const char* path) { return (fs::path(ANIMPACK_CORPUS_DIR) / path).string(); }

TEST(InfoCli, ListsTheFoxAndExitsZero) {
  const CliRun r = run("info " + corpus("gltf/Fox/glTF-Binary/Fox.glb"));
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* s :
       {"meshes: 1\n", "skins: 1\n", ": 24 joints, skeleton _rootJoint: ", "animations: 3\n",
        "  [1] Walk: 0.7083 s, 21 channels, 378 keys, LINEAR 21\n",
        "rig: skin, 24 joints, 3 clips, 0 morph sets\n", "\nbounds [",
        "[NORMALS_GENERATED] [W0301]"}) {
    EXPECT_NE(r.output.find(s), std::string::npos) << s << "\n" << r.output;
  }
}

TEST(InfoCli, JsonParsesForCesiumManAndAMorphModel) {
  const CliRun man = run("info --json " + corpus("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"));
  ASSERT_EQ(man.status, 0) << man.output;
  const json m = json::parse(man.output);
  EXPECT_EQ(m["format"], "glb");
  EXPECT_EQ(m["skins"][0]["joint_count"], 19);
  EXPECT_EQ(m["animations"].size(), 1u);
  EXPECT_EQ(m["rig"]["kind"], "skin");
  EXPECT_EQ(m["errors"], 0);

  const CliRun cube =
      run("info " + corpus("gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf") + " --json");
  ASSERT_EQ(cube.status, 0) << cube.output;
  const json c = json::parse(cube.output);
  EXPECT_EQ(c["meshes"][0]["morph_targets"], 2);
  EXPECT_EQ(c["animations"][0]["weights_channels"], 1);
  EXPECT_EQ(c["rig"]["morph_sets"], 1);
}

TEST(InfoCli, BrokenModelReportsCodesStillListsAndExitsOne) {
  const std::string model = source("tests/data/cook/models/invalid.gltf");
  const CliRun r = run("info " + model);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(model + ": error: /animations/0/samplers/0/input: "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("[ACCESSOR_ANIMATION_INPUT_NEGATIVE] [E0201]"), std::string::npos);
  EXPECT_NE(r.output.find("animations: 1\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rig: not imported\n"), std::string::npos) << r.output;

  const CliRun j = run("info --json " + model);
  EXPECT_EQ(j.status, 1);
  const json doc = json::parse(j.output);
  ASSERT_FALSE(doc["problems"].empty());
  EXPECT_EQ(doc["problems"][0]["code"], "E0201");
  EXPECT_EQ(doc["problems"][0]["issue"], "ACCESSOR_ANIMATION_INPUT_NEGATIVE");
  EXPECT_EQ(doc["problems"][0]["pointer"], "/animations/0/samplers/0/input");
}

TEST(InfoCli, MissingModelAndBadUsageExitTwo) {
  EXPECT_EQ(run("info /nonexistent/model.glb").status, 2);
  EXPECT_EQ(run("info").status, 2);
  EXPECT_EQ(run("info a.glb b.glb").status, 2);
  EXPECT_EQ(run("info --frobnicate " + corpus("gltf/Fox/glTF-Binary/Fox.glb")).status, 2);
  const CliRun help = run("info --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("usage: animpack info"), std::string::npos) << help.output;
}

TEST(InspectCli, TextEndsWithTheSizesAndJsonParses) {
  const std::string pack = source("tests/data/packs/fox_v4.anpk");
  const CliRun text = run("inspect " + pack);
  ASSERT_EQ(text.status, 0) << text.output;
  const size_t sizes =
      text.output.find("\nsizes: " + std::to_string(fs::file_size(pack)) + " bytes\n");
  ASSERT_NE(sizes, std::string::npos) << text.output;
  for (const char* s : {"  clip keys: ", "  vertex streams: ", "  index streams: ", "  textures: ",
                        "  atlas pixels: ", "  strings: ", "  other: "}) {
    EXPECT_NE(text.output.find(s, sizes), std::string::npos) << s;
  }
  const CliRun j = run("inspect --json " + pack);
  ASSERT_EQ(j.status, 0) << j.output;
  const json doc = json::parse(j.output);
  EXPECT_EQ(doc["format"], 4);
  EXPECT_EQ(doc["sizes"]["total"], fs::file_size(pack));
  EXPECT_EQ(doc["rigs"][0]["clips"].size(), 3u);
  EXPECT_EQ(run("inspect --json /nonexistent/pack.anpk").status, 2);
}

}  // namespace
