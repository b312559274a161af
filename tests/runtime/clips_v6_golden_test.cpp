// Format 6 clip keys with the runtime alone: the committed tests/data/packs/clips_v6.anpk
// (exact and lossy clips; tests/pack/clip_store_test.cpp writes it and checks that a fresh
// pack plays like it) decodes and plays to its golden hash, here in the runtime-only build
// (ANIMPACK_RUNTIME_ONLY) and the aarch64 cross build.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>

#include "animpack/pack.h"
#include "fixtures/clips_v6_golden_run.h"

namespace animpack {
namespace {

TEST(ClipsV6Golden, TheCommittedPackPlaysToTheGoldenHash) {
  const auto path = std::filesystem::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/clips_v6.anpk";
  auto pack = Pack::open(path.string());
  ASSERT_TRUE(pack) << path << ": " << pack.error().message();
  EXPECT_EQ(pack->format_version(), 6u);
  const Rig& rig = pack->rig(0);
  int lossy = 0;
  for (const Clip& c : rig.clips()) {
    EXPECT_GT(c.storage().stored_bytes, 0u) << c.name();
    lossy += c.storage().compression == ClipCompression::kLossy ? 1 : 0;
  }
  EXPECT_EQ(lossy, 3);
  const uint64_t h = fixture::clips_v6_golden_run(*pack);
  EXPECT_EQ(h, fixture::kClipsV6GoldenHash) << "got 0x" << std::hex << h;
}

}  // namespace
}  // namespace animpack
