// The scene player's golden run with the runtime alone: the scene player's test pack is
// read from its committed copy, tests/data/packs/scene_player_v1.anpk (tests/player
// checks that it plays like the pack the writer makes), so this runs in the runtime-only
// build (ANIMPACK_RUNTIME_ONLY) and the aarch64 cross build.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>

#include "animpack/pack.h"
#include "fixtures/graph_golden_run.h"
#include "fixtures/player_golden_run.h"

namespace animpack {
namespace {

TEST(PlayerGolden, TheCommittedPackHashesToTheGoldenValue) {
  const auto path =
      std::filesystem::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/scene_player_v1.anpk";
  auto pack = Pack::open(path.string());
  ASSERT_TRUE(pack) << path << ": " << pack.error().message();
  const uint64_t h = player_golden::scripted_run(*pack);
  EXPECT_EQ(h, player_golden::kGoldenHash) << "got 0x" << std::hex << h;
}

// The state machines' golden run over the committed format 3 pack (graph_v3.anpk).
TEST(GraphGolden, TheCommittedPackHashesToTheGoldenValue) {
  const auto path = std::filesystem::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/graph_v3.anpk";
  auto pack = Pack::open(path.string());
  ASSERT_TRUE(pack) << path << ": " << pack.error().message();
  const uint64_t h = graph_golden::scripted_run(*pack);
  EXPECT_EQ(h, graph_golden::kGoldenHash) << "got 0x" << std::hex << h;
}

}  // namespace
}  // namespace animpack
