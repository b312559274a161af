// The golden run: a scripted 400 ticks of plays, blends, crossfades, a speed change and
// a once clip, hashed over every palette bit and every event. The value below is the
// same in Debug and Release, with g++ and clang++ (CI builds all of them); a change to
// it is a change in playback, to be made deliberately.
#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/golden_run.h"

namespace animpack {
namespace {

using golden::kGoldenHash;
using golden::scripted_run;

TEST(Golden, ScriptedRunHashesToTheGoldenValue) {
  const uint64_t h = scripted_run();
  EXPECT_EQ(h, kGoldenHash) << "got 0x" << std::hex << h;
}

TEST(Golden, TwoRunsGiveTheSameBits) { EXPECT_EQ(scripted_run(), scripted_run()); }

}  // namespace
}  // namespace animpack
