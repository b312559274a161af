// `animpack check` for pipelines: the json format's pointer, source code and parent, and
// the sarif format on stdout (tests/cook/validate_sarif.py validates it against the SARIF
// 2.1.0 schema).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures/run_cli.h"

namespace {

namespace fs = std::filesystem;

using animpack::fixture::CliRun;
using Json = nlohmann::json;

// Its stdout alone (stderr thrown away), so a document on stdout can be parsed whole.
CliRun run_stdout(const std::string& args) {
  return animpack::fixture::run_cli(
      std::string("sh -c '\"$0\" \"$@\" 2>/dev/null' ") + ANIMPACK_EXE, args);
}

std::string data(const char* name) {
  return (fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/cook" / name).string();
}

// The JSON objects among the lines of `output` (the summary line on stderr is not one).
std::vector<Json> json_lines(const std::string& output) {
  std::vector<Json> out;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '{') out.push_back(Json::parse(line));
  }
  return out;
}

TEST(DiagnosticsCli, JsonGivesTheGltfPointerTheReadersCodeAndTheNotesParent) {
  const CliRun r = run_stdout("check --format json " + data("invalid_gltf.toml"));
  EXPECT_EQ(r.status, 1);
  const std::vector<Json> lines = json_lines(r.output);
  ASSERT_EQ(lines.size(), 2u) << r.output;
  EXPECT_EQ(lines[0]["code"], "E0201");
  EXPECT_EQ(lines[0]["pointer"], "/animations/0/samplers/0/input");
  EXPECT_EQ(lines[0]["source_code"], "ACCESSOR_ANIMATION_INPUT_NEGATIVE");
  EXPECT_TRUE(lines[0]["parent"].is_null());
  EXPECT_EQ(lines[1]["severity"], "note");
  EXPECT_EQ(lines[1]["line"], 7);
  EXPECT_EQ(lines[1]["parent"], 0) << "the note belongs to the glTF error on line 0";
}

TEST(DiagnosticsCli, SarifIsOneLogOnStdoutWithTheNoteAsARelatedLocation) {
  const CliRun r = run_stdout("check --format sarif " + data("root_motion_without_rig.toml"));
  EXPECT_EQ(r.status, 1);
  const Json sarif = Json::parse(r.output);
  const Json& results = sarif["runs"][0]["results"];
  size_t errors = 0;
  for (const Json& result : results) {
    if (result["ruleId"] != "E0213") continue;
    ++errors;
    ASSERT_EQ(result["relatedLocations"].size(), 1u) << result;
    EXPECT_EQ(result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 5);
  }
  EXPECT_EQ(errors, 2u) << r.output;
}

}  // namespace
