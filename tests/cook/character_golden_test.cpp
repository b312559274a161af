// Step 3's golden run (tests/fixtures/character_golden_run.h) over the worked example as the
// cooker makes it now: the hash must be the golden value, and the committed copy of the
// pack (tests/data/packs/character_v3.anpk, which tests/runtime/character_golden_test.cpp
// plays with the runtime alone) must play the same. ANIMPACK_WRITE_GOLDEN=1 rewrites that
// copy from this cook.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "fixtures/character_golden_run.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

TEST(CharacterGolden, TheCookedWorkedExampleHashesToTheGoldenValue) {
  DiagnosticSink sink;
  const CookOutput out =
      cook_scene(fs::path(ANIMPACK_SOURCE_DIR) / "assets/character/scene.toml", sink);
  ASSERT_TRUE(sink.diagnostics().empty()) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  const std::vector<uint8_t> bytes = write_pack(out.pack);
  const fs::path committed = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/character_v3.anpk";
  // Rewritten only while version 3 is the newest: a newer writer leaves it, a version 3
  // golden that keeps opening.
  if (const char* w = std::getenv("ANIMPACK_WRITE_GOLDEN");
      w != nullptr && w[0] == '1' && kPackFormatVersion == 3) {
    std::ofstream(committed, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  const uint64_t h = character_golden::scripted_run(*pack);
  EXPECT_EQ(h, character_golden::kGoldenHash) << "got 0x" << std::hex << h;

  auto stored = Pack::open(committed.string());
  ASSERT_TRUE(stored) << committed << ": " << stored.error().message();
  EXPECT_EQ(character_golden::scripted_run(*stored), h)
      << "the committed pack plays differently from a fresh cook: rewrite it with "
         "ANIMPACK_WRITE_GOLDEN=1";
}

}  // namespace
}  // namespace animpack
