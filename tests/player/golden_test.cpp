// The scene player's golden run (tests/fixtures/player_golden_run.h) over the pack the
// writer makes from tests/player/scene_fixture.h, and the check that the committed copy
// of that pack (the runtime-only golden test's input) plays the same.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "fixtures/player_golden_run.h"
#include "scene_fixture.h"

namespace animpack {
namespace {

using namespace player_fixture;
namespace fs = std::filesystem;

using player_golden::kGoldenHash;

// The golden run names the objects by these numbers.
static_assert(uint32_t{player_golden::kWalker} == uint32_t{kWalker} &&
              uint32_t{player_golden::kFlag} == uint32_t{kFlag} &&
              uint32_t{player_golden::kCount} == uint32_t{kCount});

// The committed copy of the pack (the runtime-only golden test plays it), a version 1
// pack: rewritten with ANIMPACK_WRITE_GOLDEN=1 only by a version 1 writer, so that a
// newer writer never turns the version 1 golden into its own format (STYLE L2).
const fs::path kCommittedPack =
    fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/scene_player_v1.anpk";

uint64_t scripted_run() { return player_golden::scripted_run(make_pack()); }

TEST(PlayerGolden, AScriptedGameHashesToTheGoldenValue) {
  const uint64_t h = scripted_run();
  EXPECT_EQ(h, kGoldenHash) << "got 0x" << std::hex << h;
}

TEST(PlayerGolden, TwoRunsGiveTheSameBits) { EXPECT_EQ(scripted_run(), scripted_run()); }

TEST(PlayerGolden, TheCommittedPackPlaysLikeTheFixturePack) {
  if (std::getenv("ANIMPACK_WRITE_GOLDEN") && kPackFormatVersion == 1) {
    const std::vector<uint8_t> bytes = write_pack(make_cooked());
    std::ofstream out(kCommittedPack, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good());
  }
  auto pack = Pack::open(kCommittedPack.string());
  ASSERT_TRUE(pack) << kCommittedPack << ": " << pack.error().message();
  EXPECT_EQ(player_golden::scripted_run(*pack), scripted_run());
}

}  // namespace
}  // namespace animpack
