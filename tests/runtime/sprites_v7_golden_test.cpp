// Format 7 sprites with the runtime alone: the committed tests/data/packs/sprites_v7.anpk
// (a sheet with trimmed, rotated and pivoted frames with names, timed, reversed and
// ping-pong clips; tests/pack/sprite_pack_test.cpp writes it and checks that a fresh pack
// plays like it) plays to its golden hash, here in the runtime-only build (ANIMPACK_RUNTIME_ONLY)
// and the aarch64 cross build.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>

#include "animpack/pack.h"
#include "fixtures/sprites_v7_golden_run.h"

namespace animpack {
namespace {

TEST(SpritesV7Golden, TheCommittedPackPlaysToTheGoldenHash) {
  const auto path = std::filesystem::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/sprites_v7.anpk";
  auto pack = Pack::open(path.string());
  ASSERT_TRUE(pack) << path << ": " << pack.error().message();
  EXPECT_EQ(pack->format_version(), 7u);
  ASSERT_EQ(pack->sprite_sheets().size(), 1u);
  const SpriteSheet& sheet = pack->sprite_sheets()[0];
  EXPECT_TRUE(sheet.atlas().has_placements());
  EXPECT_EQ(sheet.atlas().name(2), "run 0");
  ASSERT_EQ(sheet.clips().size(), 3u);
  EXPECT_TRUE(sheet.clips()[1].reverse());
  EXPECT_EQ(sheet.clips()[1].durations_ms().size(), 3u);
  EXPECT_TRUE(sheet.clips()[2].durations_ms().empty());
  const uint64_t h = fixture::sprites_v7_golden_run(*pack);
  EXPECT_EQ(h, fixture::kSpritesV7GoldenHash) << "got 0x" << std::hex << h;
}

}  // namespace
}  // namespace animpack
