// The runtime's own sin, cos, atan2 and sqrt against the C library, within the
// documented maximum error (scalar.h).
#include "animpack/scalar.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace animpack {
namespace {

// Distance in float ulps between a float result and a double reference.
double ulp_error(float got, double want) {
  const float w = static_cast<float>(want);
  const double ulp =
      std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity()) - std::fabs(w);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

// Deterministic pseudo-random floats in [lo, hi].
struct Lcg {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  float next(float lo, float hi) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(s >> 11) / 9007199254740992.0;
    return static_cast<float>(lo + (hi - lo) * u);
  }
};

TEST(Scalar, SinAndCosStayWithinOneUlpOfTheCLibrary) {
  Lcg rng;
  double worst_sin = 0, worst_cos = 0;
  for (int i = 0; i < 200000; ++i) {
    const float x = i < 100000 ? rng.next(-7.0f, 7.0f) : rng.next(-1e5f, 1e5f);
    const double ws = std::sin(static_cast<double>(x));
    const double wc = std::cos(static_cast<double>(x));
    // Near a zero of the function the documented bound is 1e-7 absolute.
    if (std::fabs(ws) > 1e-3)
      worst_sin = std::max(worst_sin, ulp_error(det::sin(x), ws));
    else
      EXPECT_NEAR(det::sin(x), ws, 1e-7) << x;
    if (std::fabs(wc) > 1e-3)
      worst_cos = std::max(worst_cos, ulp_error(det::cos(x), wc));
    else
      EXPECT_NEAR(det::cos(x), wc, 1e-7) << x;
  }
  EXPECT_LE(worst_sin, 1.0);
  EXPECT_LE(worst_cos, 1.0);
  RecordProperty("worst_sin_ulp", std::to_string(worst_sin));
  RecordProperty("worst_cos_ulp", std::to_string(worst_cos));
}

TEST(Scalar, SincosGivesTheSameBitsAsSinAndCos) {
  Lcg rng;
  for (int i = 0; i < 10000; ++i) {
    const float x = rng.next(-100.0f, 100.0f);
    float s, c;
    det::sincos(x, &s, &c);
    EXPECT_EQ(s, det::sin(x));
    EXPECT_EQ(c, det::cos(x));
  }
}

TEST(Scalar, SinAndCosAreExactAtSpecialPoints) {
  EXPECT_EQ(det::sin(0.0f), 0.0f);
  EXPECT_EQ(det::cos(0.0f), 1.0f);
  EXPECT_TRUE(std::signbit(det::sin(-0.0f)));
  EXPECT_TRUE(std::isnan(det::sin(std::numeric_limits<float>::infinity())));
  EXPECT_TRUE(std::isnan(det::cos(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_NEAR(det::sin(static_cast<float>(det::kPi / 6)), 0.5f, 6e-8f);
  EXPECT_NEAR(det::cos(static_cast<float>(det::kPi / 3)), 0.5f, 6e-8f);
}

TEST(Scalar, Atan2StaysWithinOneUlpOfTheCLibrary) {
  Lcg rng;
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const float scale = i % 3 == 0 ? 1e-3f : (i % 3 == 1 ? 1.0f : 1e4f);
    const float y = rng.next(-scale, scale);
    const float x = rng.next(-scale, scale);
    worst = std::max(worst, ulp_error(det::atan2(y, x),
                                      std::atan2(static_cast<double>(y), static_cast<double>(x))));
  }
  EXPECT_LE(worst, 1.0);
  RecordProperty("worst_atan2_ulp", std::to_string(worst));
}

TEST(Scalar, Atan2FollowsTheCLibraryOnZerosAndInfinities) {
  const float inf = std::numeric_limits<float>::infinity();
  const float cases[][2] = {{0.0f, 0.0f}, {-0.0f, 0.0f}, {0.0f, -0.0f}, {-0.0f, -0.0f},
                            {1.0f, 0.0f}, {-1.0f, 0.0f}, {0.0f, 1.0f},  {0.0f, -1.0f},
                            {inf, inf},   {inf, -inf},   {-inf, inf},   {1.0f, inf},
                            {1.0f, -inf}, {-1.0f, -inf}, {inf, 1.0f},   {-inf, -3.0f}};
  for (const auto& c : cases) {
    const float want =
        static_cast<float>(std::atan2(static_cast<double>(c[0]), static_cast<double>(c[1])));
    const float got = det::atan2(c[0], c[1]);
    EXPECT_EQ(got, want) << c[0] << ", " << c[1];
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << c[0] << ", " << c[1];
  }
  EXPECT_TRUE(std::isnan(det::atan2(std::numeric_limits<float>::quiet_NaN(), 1.0f)));
}

TEST(Scalar, SqrtIsCorrectlyRounded) {
  Lcg rng;
  for (int i = 0; i < 10000; ++i) {
    const float x = rng.next(0.0f, 1e6f);
    EXPECT_EQ(det::sqrt(x), static_cast<float>(std::sqrt(static_cast<double>(x))));
  }
}

TEST(Scalar, DoubleVersionsAgreeWithTheCLibraryClosely) {
  Lcg rng;
  for (int i = 0; i < 10000; ++i) {
    const double x = rng.next(-10.0f, 10.0f);
    EXPECT_NEAR(det::sin(x), std::sin(x), 4e-16);
    EXPECT_NEAR(det::cos(x), std::cos(x), 4e-16);
    EXPECT_NEAR(det::atan2(x, 1.5), std::atan2(x, 1.5), 4e-16);
  }
}

}  // namespace
}  // namespace animpack
