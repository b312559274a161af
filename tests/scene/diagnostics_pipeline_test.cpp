// Diagnostics for pipelines: notes kept with the diagnostic they belong to, the JSON
// pointer, source code and parent in the json format, the SARIF log's shape, and the
// coloured gcc format with its decision rule (--color, NO_COLOR, a terminal).
// tests/cook/validate_sarif.py checks the command's SARIF against the SARIF 2.1.0 schema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "animpack/compiler/diagnostics.h"

namespace animpack {
namespace {

using Json = nlohmann::json;

// What the sink holds, as "message parent" strings.
std::vector<std::string> messages_and_parents(const DiagnosticSink& sink) {
  std::vector<std::string> out;
  for (const Diagnostic& d : sink.diagnostics()) {
    out.push_back(d.message + " " + std::to_string(d.parent));
  }
  return out;
}

TEST(DiagnosticSink, SortKeepsEachNoteRightAfterItsParentAndRenumbersIt) {
  DiagnosticSink sink;
  const size_t late = sink.report("E0213", "scene.toml", 20, 3, "late error");
  sink.add_note(late, "E0213", "scene.toml", 2, 1, "late error's note, far above");
  const size_t model = sink.report("E0201", "m.gltf", 0, 0, "glTF error");
  sink.report("E0202", "scene.toml", 5, 1, "early error");
  sink.add_note(model, "E0201", "scene.toml", 7, 1, "the scene key naming m.gltf");
  sink.add_note(late, "E0213", "scene.toml", 1, 1, "late error's second note");
  sink.add(Diagnostic{"W0301", Severity::kNote, "scene.toml", 3, 1, "standalone note"});
  sink.sort();
  EXPECT_EQ(
      messages_and_parents(sink),
      (std::vector<std::string>{"glTF error -1", "the scene key naming m.gltf 0",
                                "standalone note -1", "early error -1", "late error -1",
                                "late error's note, far above 4", "late error's second note 4"}));
}

TEST(DiagnosticSink, AParentThatIsNotAnEarlierDiagnosticGivesAStandaloneNote) {
  DiagnosticSink sink;
  EXPECT_EQ(sink.add_note(0, "E0213", "s.toml", 1, 1, "no diagnostic yet"), 0u);
  Diagnostic self{"E0213", Severity::kNote, "s.toml", 1, 1, "its own parent"};
  self.parent = 1;
  EXPECT_EQ(sink.add(self), 1u);
  EXPECT_EQ(sink.add_note(7, "E0213", "s.toml", 1, 1, "past the end"), 2u);
  for (const Diagnostic& d : sink.diagnostics()) EXPECT_EQ(d.parent, -1) << d.message;
  EXPECT_EQ(sink.diagnostics()[0].severity, Severity::kNote);
}

TEST(DiagnosticFormat, JsonCarriesTheGltfPointerTheReadersCodeAndTheNotesParent) {
  DiagnosticSink sink;
  Diagnostic gltf{
      "E0201",  Severity::kError,
      "m.gltf", 0,
      0,        "/animations/0/samplers/0: key times go back [ANIMATION_SAMPLER_INPUT]"};
  gltf.pointer = "/animations/0/samplers/0";
  gltf.source_code = "ANIMATION_SAMPLER_INPUT";
  sink.report("E0202", "scene.toml", 9, 1, "unrelated, later in its file");
  const size_t error = sink.add(gltf);
  sink.add_note(error, "E0201", "scene.toml", 7, 1, "named here");
  sink.sort();
  EXPECT_EQ(format_diagnostics(sink, DiagnosticFormat::kJson),
            "{\"file\":\"m.gltf\",\"line\":0,\"column\":0,\"severity\":\"error\",\"code\":"
            "\"E0201\",\"message\":\"/animations/0/samplers/0: key times go back "
            "[ANIMATION_SAMPLER_INPUT]\",\"pointer\":\"/animations/0/samplers/0\","
            "\"source_code\":\"ANIMATION_SAMPLER_INPUT\",\"parent\":null}\n"
            "{\"file\":\"scene.toml\",\"line\":7,\"column\":1,\"severity\":\"note\",\"code\":"
            "\"E0201\",\"message\":\"named here\",\"pointer\":\"\",\"source_code\":\"\","
            "\"parent\":0}\n"
            "{\"file\":\"scene.toml\",\"line\":9,\"column\":1,\"severity\":\"error\",\"code\":"
            "\"E0202\",\"message\":\"unrelated, later in its file\",\"pointer\":\"\","
            "\"source_code\":\"\",\"parent\":null}\n");
}

TEST(DiagnosticFormat, GccPrintsANoteAfterItsParent) {
  DiagnosticSink sink;
  const size_t error = sink.report("E0213", "s.toml", 9, 1, "no rig");
  sink.add_note(error, "E0213", "s.toml", 2, 1, "declared here");
  sink.sort();
  EXPECT_EQ(format_diagnostics(sink, DiagnosticFormat::kGcc),
            "s.toml:9:1: error: no rig [E0213]\n"
            "s.toml:2:1: note: declared here [E0213]\n");
}

// A sink with what SARIF must show: an error with a caret place and a note of it, a glTF
// error at a JSON pointer with the reader's code, a warning, a standalone note.
DiagnosticSink sarif_sink() {
  DiagnosticSink sink;
  const size_t rig = sink.report("E0213", "scenes/a b.toml", 14, 9, "no rig");
  sink.add_note(rig, "E0213", "scenes/a b.toml", 3, 1, "mesh declared here");
  Diagnostic gltf{"E0201",
                  Severity::kError,
                  "models/x.gltf",
                  0,
                  0,
                  "/accessors/2: too long [ACCESSOR_TOO_LONG]"};
  gltf.pointer = "/accessors/2";
  gltf.source_code = "ACCESSOR_TOO_LONG";
  sink.add(gltf);
  sink.report("W0204", "scenes/a b.toml", 20, 0, "event past the end");
  sink.add(Diagnostic{"W0301", Severity::kNote, "models/x.gltf", 0, 0, "normals generated"});
  sink.sort();
  return sink;
}

TEST(SarifFormat, IsOneRunOfAnimpackWithTheUsedRulesFromTheCodeTable) {
  const Json sarif = Json::parse(format_diagnostics(sarif_sink(), DiagnosticFormat::kSarif));
  EXPECT_EQ(sarif["version"], "2.1.0");
  ASSERT_EQ(sarif["runs"].size(), 1u);
  const Json& run = sarif["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "animpack");
  EXPECT_FALSE(run["tool"]["driver"]["version"].get<std::string>().empty());
  EXPECT_EQ(run["columnKind"], "unicodeCodePoints");
  const Json& rules = run["tool"]["driver"]["rules"];
  std::vector<std::string> ids;
  for (const Json& rule : rules) ids.push_back(rule["id"].get<std::string>());
  EXPECT_EQ(ids, (std::vector<std::string>{"E0201", "W0204", "E0213", "W0301"}))
      << "the codes used, in the table's order (by number)";
  const DiagnosticCode* e0213 = find_diagnostic_code("E0213");
  ASSERT_NE(e0213, nullptr);
  EXPECT_EQ(rules[2]["shortDescription"]["text"], std::string(e0213->title));
  EXPECT_EQ(rules[2]["fullDescription"]["text"], std::string(e0213->explanation));
  EXPECT_EQ(rules[2]["defaultConfiguration"]["level"], "error");
  EXPECT_EQ(rules[1]["defaultConfiguration"]["level"], "warning");
  // Artifacts: each file once, as a relative URI reference.
  ASSERT_EQ(run["artifacts"].size(), 2u);
  EXPECT_EQ(run["artifacts"][0]["location"]["uri"], "models/x.gltf");
  EXPECT_EQ(run["artifacts"][1]["location"]["uri"], "scenes/a%20b.toml");
}

TEST(SarifFormat, ResultsHaveRuleLevelMessageAndLocationAndNotesAsRelatedLocations) {
  const Json sarif = Json::parse(format_diagnostics(sarif_sink(), DiagnosticFormat::kSarif));
  const Json& results = sarif["runs"][0]["results"];
  ASSERT_EQ(results.size(), 4u) << "the note with a parent is no result of its own";
  // Sorted: models/x.gltf (the error, the standalone note), then the scene.
  const Json& gltf = results[0];
  EXPECT_EQ(gltf["ruleId"], "E0201");
  EXPECT_EQ(gltf["ruleIndex"], 0);
  EXPECT_EQ(gltf["level"], "error");
  EXPECT_EQ(gltf["message"]["text"], "/accessors/2: too long [ACCESSOR_TOO_LONG]");
  const Json& gltf_where = gltf["locations"][0];
  EXPECT_EQ(gltf_where["physicalLocation"]["artifactLocation"]["uri"], "models/x.gltf");
  EXPECT_EQ(gltf_where["physicalLocation"]["artifactLocation"]["index"], 0);
  EXPECT_FALSE(gltf_where["physicalLocation"].contains("region")) << "line 0: no region";
  EXPECT_EQ(gltf_where["logicalLocations"][0]["fullyQualifiedName"], "/accessors/2");
  EXPECT_EQ(gltf["properties"]["jsonPointer"], "/accessors/2");
  EXPECT_EQ(gltf["properties"]["sourceCode"], "ACCESSOR_TOO_LONG");
  EXPECT_FALSE(gltf.contains("relatedLocations"));

  EXPECT_EQ(results[1]["level"], "note");
  EXPECT_EQ(results[1]["ruleId"], "W0301");

  const Json& rig = results[2];
  EXPECT_EQ(rig["ruleId"], "E0213");
  EXPECT_EQ(rig["ruleIndex"], 2);
  EXPECT_EQ(rig["locations"][0]["physicalLocation"]["region"],
            (Json{{"startLine", 14}, {"startColumn", 9}}));
  ASSERT_EQ(rig["relatedLocations"].size(), 1u);
  const Json& note = rig["relatedLocations"][0];
  EXPECT_EQ(note["id"], 1);
  EXPECT_EQ(note["message"]["text"], "mesh declared here");
  EXPECT_EQ(note["physicalLocation"]["artifactLocation"]["uri"], "scenes/a%20b.toml");
  EXPECT_EQ(note["physicalLocation"]["region"], (Json{{"startLine", 3}, {"startColumn", 1}}));

  const Json& warning = results[3];
  EXPECT_EQ(warning["level"], "warning");
  EXPECT_EQ(warning["locations"][0]["physicalLocation"]["region"], (Json{{"startLine", 20}}))
      << "column 0: the line alone";
}

TEST(SarifFormat, AnEmptySinkIsARunWithNoResults) {
  const Json sarif = Json::parse(format_diagnostics(DiagnosticSink{}, DiagnosticFormat::kSarif));
  ASSERT_EQ(sarif["runs"].size(), 1u);
  EXPECT_TRUE(sarif["runs"][0]["results"].is_array());
  EXPECT_TRUE(sarif["runs"][0]["results"].empty());
  EXPECT_EQ(sarif["runs"][0]["tool"]["driver"]["name"], "animpack");
}

TEST(SarifFormat, MessagesAreValidUtf8AndOneDiagnosticIsALogOfItsOwn) {
  const Diagnostic d{"E0202", Severity::kError, "s.toml", 1, 2, "bad \xff byte"};
  const Json sarif = Json::parse(format_diagnostic(d, DiagnosticFormat::kSarif));
  EXPECT_EQ(sarif["runs"][0]["results"][0]["message"]["text"], "bad \xEF\xBF\xBD byte");
}

TEST(SarifUri, PercentEncodesAllButUnreservedCharactersAndSlashes) {
  EXPECT_EQ(sarif_uri("assets/demo/scene.toml"), "assets/demo/scene.toml");
  EXPECT_EQ(sarif_uri("a b/c:d#e?f%g\\h"), "a%20b/c%3Ad%23e%3Ff%25g%5Ch");
  EXPECT_EQ(sarif_uri("é"), "%C3%A9");
  EXPECT_EQ(sarif_uri("../x_y-z~.glb"), "../x_y-z~.glb");
}

TEST(ColorRule, AlwaysColoursEvenOffATerminalAndWithNoColor) {
  EXPECT_TRUE(use_color(ColorMode::kAlways, false, nullptr));
  EXPECT_TRUE(use_color(ColorMode::kAlways, true, "1"));
}

TEST(ColorRule, NeverColoursNotEvenOnATerminal) {
  EXPECT_FALSE(use_color(ColorMode::kNever, true, nullptr));
  EXPECT_FALSE(use_color(ColorMode::kNever, false, ""));
}

TEST(ColorRule, AutoColoursOnATerminalOnly) {
  EXPECT_TRUE(use_color(ColorMode::kAuto, true, nullptr));
  EXPECT_FALSE(use_color(ColorMode::kAuto, false, nullptr));
}

TEST(ColorRule, AutoHonoursNoColorUnlessItIsEmpty) {
  EXPECT_FALSE(use_color(ColorMode::kAuto, true, "1"));
  EXPECT_FALSE(use_color(ColorMode::kAuto, true, "0")) << "any non-empty value";
  EXPECT_TRUE(use_color(ColorMode::kAuto, true, ""));
}

TEST(ColorRule, ModesParse) {
  EXPECT_EQ(parse_color_mode("auto"), ColorMode::kAuto);
  EXPECT_EQ(parse_color_mode("always"), ColorMode::kAlways);
  EXPECT_EQ(parse_color_mode("never"), ColorMode::kNever);
  EXPECT_EQ(parse_color_mode("yes"), std::nullopt);
  EXPECT_EQ(parse_color_mode(""), std::nullopt);
}

TEST(DiagnosticFormat, GccInColourMarksThePlaceTheSeverityAndTheCaret) {
  const std::string source = "a = 1\nclip = \"Jog\"\n";
  const DiagnosticStyle color{true};
  const Diagnostic error{"E0202", Severity::kError, "s.toml", 2, 8, "no clip Jog"};
  EXPECT_EQ(format_diagnostic(error, DiagnosticFormat::kGcc, &source, color),
            "\033[1ms.toml:2:8:\033[0m \033[1;31merror:\033[0m no clip Jog [E0202]\n"
            "    2 | clip = \"Jog\"\n"
            "      |        \033[1;32m^\033[0m\n");
  const Diagnostic warning{"W0204", Severity::kWarning, "s.toml", 0, 0, "late"};
  EXPECT_EQ(format_diagnostic(warning, DiagnosticFormat::kGcc, &source, color),
            "\033[1ms.toml:\033[0m \033[1;35mwarning:\033[0m late [W0204]\n");
  const Diagnostic note{"E0213", Severity::kNote, "s.toml", 1, 0, "here"};
  EXPECT_EQ(format_diagnostic(note, DiagnosticFormat::kGcc, &source, color),
            "\033[1ms.toml:1:\033[0m \033[1;36mnote:\033[0m here [E0213]\n"
            "    1 | a = 1\n");
}

TEST(DiagnosticFormat, ColourNeverReachesTheOtherFormatsAndNamesCannotInjectIt) {
  const Diagnostic d{"E0202", Severity::kError, "s\033[31m.toml", 1, 1, "x\033[0m"};
  const DiagnosticStyle color{true};
  for (DiagnosticFormat f :
       {DiagnosticFormat::kGithub, DiagnosticFormat::kJson, DiagnosticFormat::kSarif}) {
    EXPECT_EQ(format_diagnostic(d, f, nullptr, color).find('\033'), std::string::npos);
  }
  EXPECT_EQ(format_diagnostic(d, DiagnosticFormat::kGcc, nullptr, color),
            "\033[1ms\\x1b[31m.toml:1:1:\033[0m \033[1;31merror:\033[0m x\\x1b[0m [E0202]\n");
  EXPECT_EQ(format_diagnostic(d, DiagnosticFormat::kGcc, nullptr).find('\033'), std::string::npos)
      << "no colour by default";
}

}  // namespace
}  // namespace animpack
