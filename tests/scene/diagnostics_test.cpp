// Diagnostics: the code table, the sink's order and counts, the three output formats (exact
// strings), and docs/diagnostics.md held equal to the table.
#include "animpack/compiler/diagnostics.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "animpack/compiler/scene.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

Diagnostic clip_diagnostic() {
  return Diagnostic{"E0202", Severity::kError, "scene.toml", 3, 8, "mesh walker has no clip Jog"};
}

const std::string kSource =
    "[[object]]\n"
    "name = \"walker\"\n"
    "clip = \"Jog\"\n";

TEST(DiagnosticCodes, AreUniqueAscendingAndWellFormed) {
  std::set<std::string_view> seen;
  std::string_view previous;
  for (const DiagnosticCode& entry : kDiagnosticCodes) {
    ASSERT_EQ(entry.code.size(), 5u) << entry.code;
    EXPECT_TRUE(entry.code[0] == 'E' || entry.code[0] == 'W') << entry.code;
    for (size_t i = 1; i < 5; ++i) EXPECT_TRUE(std::isdigit(entry.code[i])) << entry.code;
    EXPECT_EQ(entry.severity, entry.code[0] == 'E' ? Severity::kError : Severity::kWarning)
        << entry.code;
    EXPECT_TRUE(seen.insert(entry.code.substr(1)).second) << "number reused: " << entry.code;
    EXPECT_LT(previous.empty() ? std::string_view("0000") : previous.substr(1),
              entry.code.substr(1))
        << "not ascending at " << entry.code;
    previous = entry.code;
    EXPECT_FALSE(entry.title.empty());
    EXPECT_FALSE(entry.explanation.empty());
  }
  EXPECT_NE(find_diagnostic_code("E0001"), nullptr);
  EXPECT_EQ(find_diagnostic_code("E9999"), nullptr);
}

TEST(DiagnosticSink, SortsByFileLineAndColumnKeepingReportOrderAtOnePlace) {
  DiagnosticSink sink;
  sink.report("E0101", "b.toml", 1, 1, "first b");
  sink.report("E0106", "a.toml", 9, 1, "late line");
  sink.report("E0101", "a.toml", 2, 5, "column 5");
  sink.report("E0103", "a.toml", 2, 1, "same place, reported first");
  sink.report("E0101", "a.toml", 2, 1, "same place, reported second");
  sink.report("E0002", "a.toml", 0, 0, "whole file");
  sink.sort();
  std::vector<std::string> order;
  for (const Diagnostic& d : sink.diagnostics()) order.push_back(d.message);
  EXPECT_EQ(order, (std::vector<std::string>{"whole file", "same place, reported first",
                                             "same place, reported second", "column 5", "late line",
                                             "first b"}));
}

TEST(DiagnosticSink, CountsErrorsAndWarningsWithTheTablesSeverity) {
  DiagnosticSink sink;
  EXPECT_FALSE(sink.has_errors());
  sink.report("W0204", "scene.toml", 4, 1, "time past the end");
  EXPECT_FALSE(sink.has_errors());
  EXPECT_EQ(sink.diagnostics()[0].severity, Severity::kWarning);
  sink.report("E0202", "scene.toml", 5, 1, "no clip");
  sink.add(Diagnostic{"W0301", Severity::kWarning, "m.gltf", 0, 0, "passed through"});
  EXPECT_TRUE(sink.has_errors());
  EXPECT_EQ(sink.error_count(), 1u);
  EXPECT_EQ(sink.warning_count(), 2u);
}

TEST(DiagnosticFormat, GccPrintsTheSourceLineAndACaretUnderTheColumn) {
  EXPECT_EQ(format_diagnostic(clip_diagnostic(), DiagnosticFormat::kGcc, &kSource),
            "scene.toml:3:8: error: mesh walker has no clip Jog [E0202]\n"
            "    3 | clip = \"Jog\"\n"
            "      |        ^\n");
}

TEST(DiagnosticFormat, GccCaretKeepsTabsAndCountsCodePoints) {
  const std::string source = "a = 1\n\tnäme = 1\r\nb = 2\n";
  Diagnostic d{"E0101", Severity::kError, "s.toml", 2, 7, "unknown key"};
  EXPECT_EQ(format_diagnostic(d, DiagnosticFormat::kGcc, &source),
            "s.toml:2:7: error: unknown key [E0101]\n"
            "    2 | \tnäme = 1\n"
            "      | \t     ^\n");
  d.line = 12345;
  d.col = 1;
  EXPECT_EQ(format_diagnostic(d, DiagnosticFormat::kGcc, &source),
            "s.toml:12345:1: error: unknown key [E0101]\n")
      << "a line past the text is not printed";
}

TEST(DiagnosticFormat, GccWithoutAPlaceOrSource) {
  const Diagnostic file_level{"E0002", Severity::kError, "scene.toml", 0, 0, "cannot open"};
  EXPECT_EQ(format_diagnostic(file_level, DiagnosticFormat::kGcc, &kSource),
            "scene.toml: error: cannot open [E0002]\n");
  EXPECT_EQ(format_diagnostic(clip_diagnostic(), DiagnosticFormat::kGcc, nullptr),
            "scene.toml:3:8: error: mesh walker has no clip Jog [E0202]\n");
  const Diagnostic line_only{"W0204", Severity::kWarning, "scene.toml", 2, 0, "late"};
  EXPECT_EQ(format_diagnostic(line_only, DiagnosticFormat::kGcc, &kSource),
            "scene.toml:2: warning: late [W0204]\n"
            "    2 | name = \"walker\"\n");
}

TEST(DiagnosticFormat, GithubIsAWorkflowCommand) {
  EXPECT_EQ(format_diagnostic(clip_diagnostic(), DiagnosticFormat::kGithub),
            "::error file=scene.toml,line=3,col=8,title=E0202::mesh walker has no clip Jog\n");
  const Diagnostic warning{"W0204", Severity::kWarning, "a,b:c.toml", 0, 0, "50% done\nnext"};
  EXPECT_EQ(format_diagnostic(warning, DiagnosticFormat::kGithub),
            "::warning file=a%2Cb%3Ac.toml,title=W0204::50%25 done%0Anext\n");
  const Diagnostic note{"E0101", Severity::kNote, "s.toml", 1, 2, "see: here, there"};
  EXPECT_EQ(format_diagnostic(note, DiagnosticFormat::kGithub),
            "::notice file=s.toml,line=1,col=2,title=E0101::see: here, there\n");
}

TEST(DiagnosticFormat, JsonIsOneObjectALine) {
  EXPECT_EQ(format_diagnostic(clip_diagnostic(), DiagnosticFormat::kJson),
            "{\"file\":\"scene.toml\",\"line\":3,\"column\":8,\"severity\":\"error\","
            "\"code\":\"E0202\",\"message\":\"mesh walker has no clip "
            "Jog\",\"pointer\":\"\",\"source_code\":\"\",\"parent\":null}\n");
}

TEST(DiagnosticFormat, JsonEscapesQuotesNewlinesAndControlCharacters) {
  const Diagnostic d{"W0301",
                     Severity::kWarning,
                     "C:\\art\\\"x\".gltf",
                     1,
                     1,
                     "say \"hi\"\nthen\ttab \x01 é \xff end"};
  EXPECT_EQ(format_diagnostic(d, DiagnosticFormat::kJson),
            "{\"file\":\"C:\\\\art\\\\\\\"x\\\".gltf\",\"line\":1,\"column\":1,"
            "\"severity\":\"warning\",\"code\":\"W0301\","
            "\"message\":\"say \\\"hi\\\"\\nthen\\ttab \\u0001 é \xEF\xBF\xBD "
            "end\",\"pointer\":\"\",\"source_code\":\"\",\"parent\":null}\n");
  EXPECT_EQ(json_escape("\r\b\f\x7f"), "\\r\\b\\f\\u007f");
  EXPECT_EQ(json_escape("\xC0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD") << "an overlong form";
  EXPECT_EQ(json_escape("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD") << "a surrogate";
  EXPECT_EQ(json_escape("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
}

TEST(DiagnosticFormat, NamesParse) {
  EXPECT_EQ(parse_diagnostic_format("gcc"), DiagnosticFormat::kGcc);
  EXPECT_EQ(parse_diagnostic_format("github"), DiagnosticFormat::kGithub);
  EXPECT_EQ(parse_diagnostic_format("json"), DiagnosticFormat::kJson);
  EXPECT_EQ(parse_diagnostic_format("sarif"), DiagnosticFormat::kSarif);
  EXPECT_EQ(parse_diagnostic_format("SARIF"), std::nullopt);
  EXPECT_EQ(parse_diagnostic_format("xml"), std::nullopt);
}

TEST(DiagnosticFormat, AWholeSceneRunPrintsEveryProblemInSourceOrder) {
  const std::string text =
      "[[object]]\n"
      "name = \"walker\"\n"
      "mesh = \"walker\"\n"
      "[object.animation]\n"
      "playback = \"pingpong\"\n"
      "speed = -1\n";
  DiagnosticSink sink;
  parse_scene(text, "scenes/demo.toml", sink);
  sink.sort();
  EXPECT_EQ(format_diagnostics(sink, DiagnosticFormat::kGcc),
            "scenes/demo.toml:3:1: error: object `walker` names mesh `walker`, and the scene "
            "has no such [[mesh]] [E0106]\n"
            "    3 | mesh = \"walker\"\n"
            "      | ^\n"
            "scenes/demo.toml:5:1: error: unknown playback \"pingpong\"; it takes \"loop\", "
            "\"once\" or \"ping_pong\"; did you mean `ping_pong`? [E0116]\n"
            "    5 | playback = \"pingpong\"\n"
            "      | ^\n"
            "scenes/demo.toml:6:1: error: `speed` must be 0 or more [E0114]\n"
            "    6 | speed = -1\n"
            "      | ^\n");
  EXPECT_EQ(format_diagnostics(sink, DiagnosticFormat::kGithub),
            "::error file=scenes/demo.toml,line=3,col=1,title=E0106::object `walker` names mesh "
            "`walker`, and the scene has no such [[mesh]]\n"
            "::error file=scenes/demo.toml,line=5,col=1,title=E0116::unknown playback "
            "\"pingpong\"; it takes \"loop\", \"once\" or \"ping_pong\"; did you mean "
            "`ping_pong`?\n"
            "::error file=scenes/demo.toml,line=6,col=1,title=E0114::`speed` must be 0 or more\n");
}

TEST(DiagnosticFormat, GccAndGithubEscapeNulControlsDelAndInvalidUtf8) {
  using namespace std::string_literals;
  const Diagnostic d{"E0201",
                     Severity::kError,
                     "a\0b\x1b[2J.toml"s,
                     1,
                     0,
                     "mesh 'x\0y\x7f\xff\xC2\x85é\tz' ends here"s};
  EXPECT_EQ(format_diagnostic(d, DiagnosticFormat::kGcc),
            "a\\x00b\\x1b[2J.toml:1: error: mesh 'x\\x00y\\x7f\\xff\\xc2\\x85é\\x09z' ends here "
            "[E0201]\n");
  EXPECT_EQ(format_diagnostic(d, DiagnosticFormat::kGithub),
            "::error file=a\\x00b\\x1b[2J.toml,line=1,title=E0201::mesh "
            "'x\\x00y\\x7f\\xff\\xc2\\x85é\\x09z' ends here\n");
  const Diagnostic lines{"E0201", Severity::kError, "s.toml", 0, 0, "one\r\ntwo"};
  EXPECT_EQ(format_diagnostic(lines, DiagnosticFormat::kGithub),
            "::error file=s.toml,title=E0201::one%0D%0Atwo\n")
      << "GitHub's own escapes for line breaks";
  EXPECT_EQ(format_diagnostic(d, DiagnosticFormat::kJson),
            "{\"file\":\"a\\u0000b\\u001b[2J.toml\",\"line\":1,\"column\":0,\"severity\":"
            "\"error\",\"code\":\"E0201\",\"message\":\"mesh 'x\\u0000y\\u007f\xEF\xBF\xBD"
            "\xC2\x85é\\tz' ends here\",\"pointer\":\"\",\"source_code\":\"\",\"parent\":null}\n");
}

TEST(DiagnosticFormat, GccEscapesTheSourceLineAndKeepsTheCaretUnderTheColumn) {
  using namespace std::string_literals;
  const std::string source = "k = \"\0\x01\" x\n"s;
  const Diagnostic d{"E0101", Severity::kError, "s.toml", 1, 10, "unknown key"};  // at x
  EXPECT_EQ(format_diagnostic(d, DiagnosticFormat::kGcc, &source),
            "s.toml:1:10: error: unknown key [E0101]\n"
            "    1 | k = \"\\x00\\x01\" x\n"
            "      |                ^\n");
}

TEST(Printable, LeavesPrintableTextAndKeptControlsAlone) {
  EXPECT_EQ(printable("plain ascii, é, \xF0\x9F\x98\x80"), "plain ascii, é, \xF0\x9F\x98\x80");
  EXPECT_EQ(printable("a\tb\nc", "\t"), "a\tb\\x0ac");
  EXPECT_EQ(printable("\xC0\x80"), "\\xc0\\x80") << "an overlong form";
}

// docs/diagnostics.md is diagnostic_codes_markdown(), byte for byte. Regenerate with
//   ANIMPACK_WRITE_DOCS=1 ./build/dev/tests/scene/scene_tests --gtest_filter='DiagnosticsDoc.*'
TEST(DiagnosticsDoc, MatchesTheCodeTable) {
  const fs::path doc = fs::path(ANIMPACK_SOURCE_DIR) / "docs/diagnostics.md";
  const std::string generated = diagnostic_codes_markdown();
  if (std::getenv("ANIMPACK_WRITE_DOCS")) {
    std::ofstream(doc, std::ios::binary) << generated;
  }
  std::ifstream in(doc, std::ios::binary);
  ASSERT_TRUE(in) << doc;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, generated) << "docs/diagnostics.md is stale; regenerate it with\n"
                                "  ANIMPACK_WRITE_DOCS=1 ./build/dev/tests/scene/scene_tests "
                                "--gtest_filter='DiagnosticsDoc.*'";
  for (const DiagnosticCode& entry : kDiagnosticCodes) {
    EXPECT_NE(text.find("| `" + std::string(entry.code) + "` |"), std::string::npos) << entry.code;
  }
}

}  // namespace
}  // namespace animpack
