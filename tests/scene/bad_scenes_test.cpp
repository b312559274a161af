// The corpus of bad scenes, tests/data/scenes/bad/*.toml: one file per rule (some with
// several problems). Each file opens with the diagnostics it must give, one a line, in
// source order:
//
//   # expect: E0102 14:9
//
// and the reader must give exactly those (code, line and column, and the file's path),
// no more, once each, in that order. Messages are not asserted (STYLE T2).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "animpack/compiler/diagnostics.h"
#include "animpack/compiler/scene.h"
#include "fixtures/test_data.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

fs::path bad_dir() { return fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/scenes/bad"; }

std::vector<fs::path> bad_scenes() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(bad_dir(), ec)) {
    if (entry.path().extension() == ".toml") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Expected {
  std::string code;
  int line = 0;
  int col = 0;
  friend bool operator==(const Expected&, const Expected&) = default;
};

std::ostream& operator<<(std::ostream& os, const Expected& e) {
  return os << e.code << ' ' << e.line << ':' << e.col;
}

// The `# expect: CODE LINE:COL` lines of a file.
std::vector<Expected> expectations(const fs::path& file) {
  std::istringstream in(animpack::test_data::read_test_file(file));
  std::vector<Expected> out;
  std::string line;
  const std::string prefix = "# expect: ";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream fields(line.substr(prefix.size()));
    Expected e;
    char colon = 0;
    fields >> e.code >> e.line >> colon >> e.col;
    EXPECT_TRUE(fields && colon == ':') << file << ": malformed expectation: " << line;
    out.push_back(e);
  }
  return out;
}

std::string test_name(const testing::TestParamInfo<fs::path>& info) {
  std::string name = info.param.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class BadScene : public testing::TestWithParam<fs::path> {};

TEST_P(BadScene, GivesExactlyTheExpectedDiagnosticsInSourceOrder) {
  const fs::path& file = GetParam();
  const std::vector<Expected> expected = expectations(file);
  ASSERT_FALSE(expected.empty()) << file << " states no `# expect:` line";

  DiagnosticSink sink;
  const Scene scene = read_scene(file, sink);
  sink.sort();
  std::vector<Expected> actual;
  for (const Diagnostic& d : sink.diagnostics()) {
    actual.push_back(Expected{d.code, d.line, d.col});
    EXPECT_EQ(d.file, file.string());
    EXPECT_NE(find_diagnostic_code(d.code), nullptr) << d.code;
    EXPECT_FALSE(d.message.empty());
  }
  EXPECT_EQ(actual, expected) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  EXPECT_TRUE(sink.has_errors());
  EXPECT_EQ(scene.file, file);
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadScene, testing::ValuesIn(bad_scenes()), test_name);

TEST(BadSceneCorpus, HasAFileForEveryRuleOfTheSceneReader) {
  const std::vector<fs::path> files = bad_scenes();
  EXPECT_GE(files.size(), 30u);
  std::set<std::string> covered;
  for (const fs::path& file : files) {
    for (const Expected& e : expectations(file)) covered.insert(e.code);
  }
  // The codes parse_scene emits: E0001, every E01xx, and E0208/E0209 (E0002, a file that
  // cannot be read, is SceneReader.MissingFileIsE0002AtLineZero).
  for (const DiagnosticCode& code : kDiagnosticCodes) {
    const std::string_view c = code.code;
    const bool reader_code =
        c == "E0001" || c.substr(0, 3) == "E01" || c == "E0208" || c == "E0209";
    if (reader_code) {
      EXPECT_TRUE(covered.count(std::string(c))) << "no bad scene for " << c;
    }
  }
  for (const std::string& c : covered) EXPECT_NE(find_diagnostic_code(c), nullptr) << c;
}

TEST(BadSceneCorpus, ManyProblemsInOneFileAreAllReported) {
  const std::vector<Expected> expected = expectations(bad_dir() / "many_problems.toml");
  EXPECT_GE(expected.size(), 8u);
  std::set<std::string> codes;
  for (const Expected& e : expected) codes.insert(e.code);
  EXPECT_GE(codes.size(), 8u) << "many kinds of problem, not one repeated";
}

}  // namespace
}  // namespace animpack
