// `animpack check` for pipelines: the json format's pointer, source code and parent, the
// sarif format on stdout (tests/cook/validate_sarif.py validates it against the SARIF
// 2.1.0 schema), and --color with NO_COLOR on a pipe and on a terminal (util-linux's
// `script` gives the command a pseudo-terminal).
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

CliRun run(const std::string& args) { return animpack::fixture::run_cli(ANIMPACK_EXE, args); }

// On a pseudo-terminal (`script`), with `env` before it (such as "NO_COLOR=1").
CliRun run_on_terminal(const std::string& env, const std::string& args) {
  return animpack::fixture::run_cli("env " + env + " script -qec",
                                    "'" + std::string(ANIMPACK_EXE) + " " + args + "' /dev/null");
}

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

constexpr const char* kRedError = "\033[1;31merror:\033[0m";

TEST(DiagnosticsCli, ColorAlwaysColoursTheGccFormatEvenThroughAPipe) {
  const CliRun r = run("check --color always " + data("unknown_clip.toml"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(kRedError), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\033[1;32m^\033[0m"), std::string::npos) << r.output;
}

TEST(DiagnosticsCli, AutoAndNeverDoNotColourAPipe) {
  for (const char* mode : {"", "--color auto ", "--color never "}) {
    const CliRun r = run(std::string("check ") + mode + data("unknown_clip.toml"));
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.output.find('\033'), std::string::npos) << mode << r.output;
  }
}

TEST(DiagnosticsCli, AutoColoursATerminalUnlessNoColorIsSetAndNonEmpty) {
  const std::string scene = data("unknown_clip.toml"), args = "check " + scene;
  EXPECT_NE(run_on_terminal("-u NO_COLOR", args).output.find(kRedError), std::string::npos);
  EXPECT_NE(run_on_terminal("NO_COLOR=", args).output.find(kRedError), std::string::npos)
      << "an empty NO_COLOR is unset";
  const CliRun no_color = run_on_terminal("NO_COLOR=1", args);
  EXPECT_NE(no_color.output.find("error:"), std::string::npos) << no_color.output;
  EXPECT_EQ(no_color.output.find('\033'), std::string::npos) << no_color.output;
  EXPECT_EQ(run_on_terminal("-u NO_COLOR", "check --color never " + scene).output.find('\033'),
            std::string::npos);
  EXPECT_NE(run_on_terminal("NO_COLOR=1", "check --color always " + scene).output.find(kRedError),
            std::string::npos)
      << "--color always wins over NO_COLOR";
}

TEST(DiagnosticsCli, ColourNeverReachesTheMachineFormats) {
  for (const char* format : {"github", "json", "sarif"}) {
    const CliRun r = run(std::string("check --color always --format ") + format + " " +
                         data("unknown_clip.toml"));
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.output.find('\033'), std::string::npos) << format << r.output;
  }
}

TEST(DiagnosticsCli, ColorTakesAutoAlwaysOrNever) {
  const CliRun r = run("check --color sometimes " + data("good.toml"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output,
            "animpack: unknown --color 'sometimes' (auto, always or never); see animpack check "
            "--help\n");
}

}  // namespace
