// Step 4's golden run (tests/fixtures/fox_golden_run.h) over the Fox worked example
// (assets/fox/scene.toml) as the cooker makes it now: the hash must be the golden value,
// and the committed copy of the pack (tests/data/packs/fox_v4.anpk, which
// tests/runtime/fox_golden_test.cpp plays with the runtime alone) must play the same and
// stay small. ANIMPACK_WRITE_GOLDEN=1 rewrites that copy from this cook.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "fixtures/fox_golden_run.h"
#include "fixtures/run_cli.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

TEST(FoxGolden, TheCookedFoxExampleHashesToTheGoldenValue) {
  DiagnosticSink sink;
  const CookOutput out = cook_scene(fs::path(ANIMPACK_SOURCE_DIR) / "assets/fox/scene.toml", sink);
  // The Fox has no normals: the one note says they were generated (W0301, a note).
  EXPECT_EQ(sink.error_count(), 0u) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  EXPECT_EQ(sink.warning_count(), 0u) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  const std::vector<uint8_t> bytes = write_pack(out.pack);
  EXPECT_LT(bytes.size(), 1u << 20) << "the golden pack stays under 1 MiB";
  const fs::path committed = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/fox_v4.anpk";
  // Rewritten only while version 4 is the newest: a newer writer leaves it, a version 4
  // golden that keeps opening.
  if (const char* w = std::getenv("ANIMPACK_WRITE_GOLDEN");
      w != nullptr && w[0] == '1' && kPackFormatVersion == 4) {
    std::ofstream(committed, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  const uint64_t h = fox_golden::scripted_run(*pack).hash;
  EXPECT_EQ(h, fox_golden::kGoldenHash) << "got 0x" << std::hex << h;

  auto stored = Pack::open(committed.string());
  ASSERT_TRUE(stored) << committed << ": " << stored.error().message();
  EXPECT_EQ(fox_golden::scripted_run(*stored).hash, h)
      << "the committed pack plays differently from a fresh cook: rewrite it with "
         "ANIMPACK_WRITE_GOLDEN=1";
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(FoxGolden, TheDocsShowTheSceneAsItShips) {
  const std::string doc = read_text(fs::path(ANIMPACK_SOURCE_DIR) / "docs/scene-format.md");
  const std::string scene = read_text(fs::path(ANIMPACK_SOURCE_DIR) / "assets/fox/scene.toml");
  ASSERT_FALSE(scene.empty());
  const size_t section = doc.find("## Worked example: the Fox walking, looking at a target");
  ASSERT_NE(section, std::string::npos);
  const std::string open = "```toml\n";
  const size_t begin = doc.find(open, section);
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```\n", begin + open.size());
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(doc.substr(begin + open.size(), end - begin - open.size()), scene)
      << "docs/scene-format.md's Fox example must be assets/fox/scene.toml verbatim";
}

// assets/fox/play.script drives the example through `animpack play` as the README says:
// every command is taken (no refusal, no script error) and the fox's root motion is summed:
// 480 ticks of Walk (8 s, 11.3 passes of 63.67 cm; measured 705.05 object units forward).
TEST(FoxGolden, ThePlayScriptRunsCleanAndTheFoxWalks) {
  const fs::path dir = fs::path(testing::TempDir()) / "fox_play_script";
  fs::create_directories(dir);
  const fs::path pack = dir / "fox.anpk";
  const std::string src = ANIMPACK_SOURCE_DIR;
  const fixture::CliRun cook = fixture::run_cli(
      ANIMPACK_EXE, "cook '" + src + "/assets/fox/scene.toml' -o '" + pack.string() + "'");
  ASSERT_EQ(cook.status, 0) << cook.output;
  const fixture::CliRun play =
      fixture::run_cli(ANIMPACK_EXE, "play '" + pack.string() + "' --ticks 480 --script '" + src +
                                         "/assets/fox/play.script'");
  ASSERT_EQ(play.status, 0) << play.output;
  EXPECT_NE(play.output.find(" 0 refused calls"), std::string::npos) << play.output;
  EXPECT_EQ(play.output.find("refused:"), std::string::npos) << play.output;
  EXPECT_NE(play.output.find("fox root motion: travelled 0.712293 0.000000 705.046085"),
            std::string::npos)
      << play.output;
}

}  // namespace
}  // namespace animpack
