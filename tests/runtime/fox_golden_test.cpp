// Step 4's golden run with the runtime alone: the Fox worked example's pack is read from its
// committed copy, tests/data/packs/fox_v4.anpk (tests/cook/fox_golden_test.cpp checks that
// it plays like a fresh cook), so this runs in the runtime-only build
// (ANIMPACK_RUNTIME_ONLY) and the aarch64 cross build.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>

#include "animpack/pack.h"
#include "fixtures/fox_golden_run.h"

namespace animpack {
namespace {

TEST(FoxGolden, TheCommittedPackHashesToTheGoldenValue) {
  const auto path = std::filesystem::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/fox_v4.anpk";
  auto pack = Pack::open(path.string());
  ASSERT_TRUE(pack) << path << ": " << pack.error().message();
  EXPECT_EQ(pack->format_version(), 4u);
  const fox_golden::Summary s = fox_golden::scripted_run(*pack);
  EXPECT_EQ(s.hash, fox_golden::kGoldenHash) << "got 0x" << std::hex << s.hash;
}

// The run does what its header says: the fox walked (moved by its root motion along
// world +x, its forward after the scene's quarter turn), its steps fired, the refused
// calls were refused, the aims turned its head well to the side and the foot solver kept
// the left hind toe on the ground the game raised under it.
TEST(FoxGolden, TheRunWalksTheFoxAndTurnsItsHead) {
  const auto path = std::filesystem::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/fox_v4.anpk";
  auto pack = Pack::open(path.string());
  ASSERT_TRUE(pack) << path << ": " << pack.error().message();
  const fox_golden::Summary s = fox_golden::scripted_run(*pack);
  // 10 s: 2.5 s of Walk (0.9 m/s), a crossfade to Run (0.46 m/s: its toes travel 52.9 cm
  // a 1.16 s pass), 5 s of Walk at 1.25x. Measured 9.17 m.
  EXPECT_GT(s.end.x - s.start.x, 8.5f);
  EXPECT_LT(s.end.x - s.start.x, 10.0f);
  EXPECT_NEAR(s.end.z, s.start.z, 0.2f) << "straight ahead";
  EXPECT_EQ(s.end.y, s.start.y) << "horizontal motion only";
  EXPECT_GT(s.travel_z, 0);
  EXPECT_GE(s.events, 2 * 10) << "two steps a pass of Walk (measured 26)";
  EXPECT_EQ(s.refusals, 4) << "a foot's target, an unknown solver, root motion, a zero scale";
  // Measured 0.986: the neck's 15 degrees and the head's 70 with the walk's own sway.
  EXPECT_GT(s.most_sideways, 0.9f) << "the head looked more than 64 degrees aside";
  // The left foot solver stands the foot on its rising ground: while the fox walks the toe
  // keeps the Walk's own lowest clearance over it, 0.47 (measured 0.466; without the
  // solver it would sink 5.5 into a 6-unit ground).
  EXPECT_GT(s.left_toe_clearance, 0.4f);
  EXPECT_LT(s.left_toe_clearance, 0.6f);
}

}  // namespace
}  // namespace animpack
