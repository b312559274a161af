// An application built with its own flags: this file is compiled with -O2
// -ffp-contract=fast and, on x86-64, -mfma (tests/app_flags/CMakeLists.txt), so the
// compiler fuses a * b + c wherever it sees one. The runtime's math, called from here,
// must still give the runtime's bits: the public headers hold no inline float math.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "animpack/clip.h"
#include "animpack/math.h"
#include "reference.h"
#include "runtime/golden_run.h"

namespace animpack {
namespace {

using namespace app_flags;

struct Rng {  // xorshift32: inputs the compiler cannot fold
  uint32_t s = 0x9e3779b9u;
  float next(float lo, float hi) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return lo + (hi - lo) * static_cast<float>(s >> 8) * (1.0f / 16777216.0f);
  }
  Vec3 vec3() { return {next(-100, 100), next(-100, 100), next(-100, 100)}; }
  Quat quat() { return {next(-1, 1), next(-1, 1), next(-1, 1), next(-1, 1)}; }
};

bool same(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same(Vec3 a, Vec3 b) { return same(a.x, b.x) && same(a.y, b.y) && same(a.z, b.z); }
bool same(Quat a, Quat b) {
  return same(a.x, b.x) && same(a.y, b.y) && same(a.z, b.z) && same(a.w, b.w);
}

constexpr int kSamples = 4096;

// The premise: this translation unit really contracts. (1 + 2^-12)^2 - (1 + 2^-11) is
// 0 rounded twice and 2^-24 fused.
TEST(AppFlags, ThisTranslationUnitFusesMultiplyAdd) {
  volatile float a = 1.0f + 1.0f / 4096.0f, c = -(1.0f + 1.0f / 2048.0f);
  const float x = a, y = c;
  const float here = x * x + y;
  EXPECT_EQ(ref_mul_add(x, x, y), 0.0f);
  EXPECT_EQ(here, 1.0f / 16777216.0f) << "not built with FMA contraction: the test proves nothing";
}

TEST(AppFlags, LerpGivesTheRuntimesBits) {
  Rng rng;
  int differ = 0;
  for (int i = 0; i < kSamples; ++i) {
    const Vec3 a = rng.vec3(), b = rng.vec3();
    const float t = rng.next(0, 1);
    differ += !same(lerp(a, b, t), ref_lerp(a, b, t));
  }
  EXPECT_EQ(differ, 0) << "of " << kSamples;
}

// The runtime's own lerp: sampling a LINEAR translation between keys at 0 s and 1 s.
TEST(AppFlags, LerpMatchesTheRuntimesClipSampling) {
  Rng rng;
  int differ = 0;
  const float times[] = {0.0f, 1.0f};
  for (int i = 0; i < kSamples; ++i) {
    const Vec3 a = rng.vec3(), b = rng.vec3();
    const float t = rng.next(0, 1);
    const float values[] = {a.x, a.y, a.z, b.x, b.y, b.z};
    const Channel ch{0, Property::kTranslation, Interpolation::kLinear, times, values};
    uint32_t cursor = 0;
    const Vec4 s = sample(ch, t, &cursor);
    differ += !same(lerp(a, b, t), Vec3{s.x, s.y, s.z});
  }
  EXPECT_EQ(differ, 0) << "of " << kSamples;
}

TEST(AppFlags, VectorOperatorsGiveTheRuntimesBits) {
  Rng rng;
  int differ = 0;
  for (int i = 0; i < kSamples; ++i) {
    const Vec3 a = rng.vec3(), b = rng.vec3();
    const float s = rng.next(-2, 2);
    differ += !same(a + b, ref_add(a, b));
    differ += !same(a + b * s, ref_add_scaled(a, b, s));
    differ += !same(dot(a, b), ref_dot(a, b));
    differ += !same(cross(a, b), ref_cross(a, b));
  }
  EXPECT_EQ(differ, 0) << "of " << 4 * kSamples;
}

TEST(AppFlags, QuaternionOperatorsGiveTheRuntimesBits) {
  Rng rng;
  int differ = 0;
  for (int i = 0; i < kSamples; ++i) {
    const Quat a = rng.quat(), b = rng.quat();
    differ += !same(dot(a, b), ref_dot(a, b));
    differ += !same(a * b, ref_mul(a, b));
  }
  EXPECT_EQ(differ, 0) << "of " << 2 * kSamples;
}

TEST(AppFlags, ScriptedRunHashesToTheGoldenValue) {
  const uint64_t h = golden::scripted_run();
  EXPECT_EQ(h, golden::kGoldenHash) << "got 0x" << std::hex << h;
}

}  // namespace
}  // namespace animpack
