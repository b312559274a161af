// Step 3's golden run with the runtime alone: the worked example's pack is read from its
// committed copy, tests/data/packs/character_v3.anpk (tests/cook/character_golden_test.cpp
// checks that it plays like a fresh cook), so this runs in the runtime-only build
// (ANIMPACK_RUNTIME_ONLY) and the aarch64 cross build.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>

#include "animpack/pack.h"
#include "fixtures/character_golden_run.h"

namespace animpack {
namespace {

TEST(CharacterGolden, TheCommittedPackHashesToTheGoldenValue) {
  const auto path =
      std::filesystem::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/character_v3.anpk";
  auto pack = Pack::open(path.string());
  ASSERT_TRUE(pack) << path << ": " << pack.error().message();
  const uint64_t h = character_golden::scripted_run(*pack);
  EXPECT_EQ(h, character_golden::kGoldenHash) << "got 0x" << std::hex << h;
}

}  // namespace
}  // namespace animpack
