// Pack format 6 clip keys (docs/pack-format.md, "Clip keys"): quantize_lossy is what a lossy
// pack plays, idempotent, closed under key removal and within the precision it picks from
// the tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "animpack/clip.h"
#include "animpack/compiler/clip_quantize.h"

namespace animpack {
namespace {

uint32_t bits_of(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Every channel's times and values, bit for bit.
void expect_same_keys(const Clip& a, const Clip& b) {
  ASSERT_EQ(a.channels().size(), b.channels().size());
  for (size_t c = 0; c < a.channels().size(); ++c) {
    const Channel& x = a.channels()[c];
    const Channel& y = b.channels()[c];
    EXPECT_EQ(x.joint, y.joint);
    EXPECT_EQ(x.property, y.property);
    EXPECT_EQ(x.interpolation, y.interpolation);
    EXPECT_EQ(x.width, y.width);
    ASSERT_EQ(x.times.size(), y.times.size()) << "channel " << c;
    ASSERT_EQ(x.values.size(), y.values.size()) << "channel " << c;
    for (size_t i = 0; i < x.times.size(); ++i)
      ASSERT_EQ(bits_of(x.times[i]), bits_of(y.times[i])) << "channel " << c << " time " << i;
    for (size_t i = 0; i < x.values.size(); ++i)
      ASSERT_EQ(bits_of(x.values[i]), bits_of(y.values[i]))
          << "channel " << c << " value " << i << ": " << x.values[i] << " vs " << y.values[i];
  }
}

void random_unit_quat(std::mt19937& rng, float out[4]) {
  std::normal_distribution<double> n(0.0, 1.0);
  double q[4];
  double len = 0;
  do {
    len = 0;
    for (double& v : q) {
      v = n(rng);
      len += v * v;
    }
  } while (len < 1e-6);
  len = std::sqrt(len);
  for (int i = 0; i < 4; ++i) out[i] = static_cast<float>(q[i] / len);
}

// A clip of `keys` keys per channel: translation, rotation and scale on three joints with
// step, linear and cubic interpolation, and a weights channel; some rotations are near ties
// between two large components (the hard case of smallest-three).
Clip random_clip(uint32_t seed, int keys) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  std::vector<float> times(static_cast<size_t>(keys));
  for (int k = 0; k < keys; ++k) times[static_cast<size_t>(k)] = static_cast<float>(k) / 30.0f;
  Clip clip("Random");
  const Interpolation interps[3] = {Interpolation::kStep, Interpolation::kLinear,
                                    Interpolation::kCubicSpline};
  for (int j = 0; j < 3; ++j) {
    const Interpolation in = interps[j];
    const size_t groups = in == Interpolation::kCubicSpline ? 3 : 1;
    std::vector<float> t, r, s;
    for (int k = 0; k < keys; ++k) {
      for (size_t g = 0; g < groups; ++g) {
        for (int i = 0; i < 3; ++i) t.push_back(u(rng));
        for (int i = 0; i < 3; ++i) s.push_back(0.5f + u(rng) / 6.0f);
        float q[4];
        random_unit_quat(rng, q);
        if (k % 5 == 0) {  // near tie: |x| ~ |w| ~ 0.7
          const float e = static_cast<float>(k % 7) * 1e-5f;
          q[0] = 0.70710678f + e;
          q[1] = 0.0f;
          q[2] = 0.0f;
          q[3] = -0.70710678f;
        }
        if (groups == 3 && g != 1)  // tangents: any 4 floats
          for (float& v : q) v = u(rng);
        r.insert(r.end(), q, q + 4);
      }
    }
    const auto joint = static_cast<uint16_t>(j);
    clip.add_channel(joint, Property::kTranslation, in, times, t);
    clip.add_channel(joint, Property::kRotation, in, times, r);
    clip.add_channel(joint, Property::kScale, in, times, s);
  }
  std::vector<float> w;
  for (int k = 0; k < keys * 2; ++k) w.push_back(u(rng) / 3.0f);
  clip.add_weights_channel(0, 2, Interpolation::kLinear, times, w);
  clip.add_event("step", 0.0f);
  return clip;
}

ClipStorage lossy(float tolerance, float distance) {
  ClipStorage s;
  s.compression = ClipCompression::kLossy;
  s.tolerance = tolerance;
  s.distance = distance;
  return s;
}

// Keeps every other key of every channel, and the last.
Clip every_other_key(const Clip& clip) {
  Clip out(clip.name());
  for (const Channel& ch : clip.channels()) {
    const size_t per_key = ch.values.size() / ch.times.size();
    std::vector<float> t, v;
    for (size_t k = 0; k < ch.times.size(); ++k) {
      if (k % 2 == 1 && k + 1 != ch.times.size()) continue;
      t.push_back(ch.times[k]);
      v.insert(v.end(), ch.values.begin() + static_cast<ptrdiff_t>(k * per_key),
               ch.values.begin() + static_cast<ptrdiff_t>((k + 1) * per_key));
    }
    if (ch.property == Property::kWeights)
      out.add_weights_channel(ch.joint, ch.width, ch.interpolation, t, v);
    else
      out.add_channel(ch.joint, ch.property, ch.interpolation, t, v);
  }
  return out;
}

TEST(QuantizeLossy, IsIdempotent) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    for (float tolerance : {0.01f, 0.001f, 0.0001f, 0.0f}) {
      const Clip clip = random_clip(seed, 40);
      const ClipStorage storage = lossy(tolerance, 0.1f);
      const Clip once = quantize_lossy(clip, storage);
      const Clip twice = quantize_lossy(once, storage);
      expect_same_keys(once, twice);
    }
  }
}

TEST(QuantizeLossy, IsClosedUnderKeyRemoval) {
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    const ClipStorage storage = lossy(0.001f, 0.1f);
    const Clip clip = random_clip(seed, 31);
    // Quantising a subset of the keys gives the same values as the subset of the quantised.
    const Clip subset_of_quantized = every_other_key(quantize_lossy(clip, storage));
    const Clip quantized_subset = quantize_lossy(every_other_key(clip), storage);
    expect_same_keys(subset_of_quantized, quantized_subset);
    // And a subset of quantised keys is left alone.
    expect_same_keys(subset_of_quantized, quantize_lossy(subset_of_quantized, storage));
  }
}

TEST(QuantizeLossy, KeepsTimesEventsAndStorage) {
  const Clip clip = random_clip(3, 12);
  const ClipStorage storage = lossy(0.002f, 0.2f);
  const Clip q = quantize_lossy(clip, storage);
  EXPECT_EQ(q.name(), clip.name());
  EXPECT_EQ(q.duration(), clip.duration());
  ASSERT_EQ(q.events().size(), 1u);
  EXPECT_EQ(q.events()[0].name, "step");
  EXPECT_EQ(q.storage().compression, ClipCompression::kLossy);
  EXPECT_EQ(q.storage().tolerance, 0.002f);
  EXPECT_EQ(q.storage().distance, 0.2f);
  for (size_t c = 0; c < clip.channels().size(); ++c) {
    ASSERT_EQ(q.channels()[c].times.size(), clip.channels()[c].times.size());
    for (size_t k = 0; k < clip.channels()[c].times.size(); ++k)
      EXPECT_EQ(bits_of(q.channels()[c].times[k]), bits_of(clip.channels()[c].times[k]));
  }
  // Lossy actually changes values (the test above would pass for an identity).
  bool changed = false;
  for (size_t c = 0; c < clip.channels().size(); ++c)
    for (size_t i = 0; i < clip.channels()[c].values.size(); ++i)
      changed = changed || q.channels()[c].values[i] != clip.channels()[c].values[i];
  EXPECT_TRUE(changed);
}

TEST(QuantizeLossy, ExactStorageReturnsAnExactCopy) {
  const Clip clip = random_clip(5, 9);
  const Clip q = quantize_lossy(clip, ClipStorage{});
  expect_same_keys(clip, q);
  EXPECT_EQ(q.storage().compression, ClipCompression::kExact);
}

// Rotates v by unit quaternion q (x y z w), in double.
void rotate(const float q[4], const double v[3], double out[3]) {
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  const double tx = 2 * (y * v[2] - z * v[1]);
  const double ty = 2 * (z * v[0] - x * v[2]);
  const double tz = 2 * (x * v[1] - y * v[0]);
  out[0] = v[0] + w * tx + (y * tz - z * ty);
  out[1] = v[1] + w * ty + (z * tx - x * tz);
  out[2] = v[2] + w * tz + (x * ty - y * tx);
}

TEST(QuantizeLossy, QuantisationErrorIsWellWithinTheTolerance) {
  for (float tolerance : {0.01f, 0.001f, 0.0002f}) {
    const float distance = 0.1f;
    const ClipStorage storage = lossy(tolerance, distance);
    const Clip clip = random_clip(11, 60);
    const Clip q = quantize_lossy(clip, storage);
    double worst_translation = 0, worst_vertex = 0, worst_scale = 0;
    for (size_t c = 0; c < clip.channels().size(); ++c) {
      const Channel& a = clip.channels()[c];
      const Channel& b = q.channels()[c];
      const bool cubic = a.interpolation == Interpolation::kCubicSpline;
      const size_t w = static_cast<size_t>(channel_width(a));
      for (size_t at = 0; at < a.values.size(); at += w) {
        const bool value = !cubic || (at / w) % 3 == 1;
        if (a.property == Property::kRotation && value) {
          const double axes[3][3] = {{distance, 0, 0}, {0, distance, 0}, {0, 0, distance}};
          for (const auto& v : axes) {
            double p[3], r[3];
            rotate(&a.values[at], v, p);
            rotate(&b.values[at], v, r);
            worst_vertex =
                std::max(worst_vertex, std::hypot(p[0] - r[0], p[1] - r[1], p[2] - r[2]));
          }
        } else {
          for (size_t i = at; i < at + w; ++i) {
            const double e = std::fabs(static_cast<double>(a.values[i]) - b.values[i]);
            if (a.property == Property::kScale)
              worst_scale = std::max(worst_scale, e * distance);
            else if (a.property != Property::kRotation)
              worst_translation = std::max(worst_translation, e);
          }
        }
      }
    }
    // Each grid step is at most tolerance / 16 (rotation and scale at `distance`).
    EXPECT_LE(worst_translation, tolerance / 32.0) << tolerance;
    EXPECT_LE(worst_scale, tolerance / 32.0) << tolerance;
    EXPECT_LE(worst_vertex, tolerance / 2.0) << tolerance;
    EXPECT_GT(worst_translation, 0.0);
  }
}

TEST(QuantizeLossy, RotationsNearTiesAreIdempotentAtEveryPrecision) {
  // Unit quaternions with two or more components of (nearly) the same magnitude, where
  // smallest-three's left-out component is ambiguous, at every rotation precision.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<float> times, values;
  for (int k = 0; k < 4000; ++k) {
    double q[4];
    for (double& v : q) v = u(rng);
    const int a = k % 4, b = (k / 4) % 4;
    q[b] = (k % 3 == 0 ? -1 : 1) * std::fabs(q[a]) * (1.0 + u(rng) * 1e-4 * (k % 5));
    if (k % 7 == 0) q[(a + 1) % 4] = q[a];
    double len = 0;
    for (double v : q) len += v * v;
    len = std::sqrt(len);
    for (double v : q) values.push_back(static_cast<float>(v / len));
    times.push_back(static_cast<float>(k) / 30.0f);
  }
  Clip clip("Ties");
  clip.add_channel(0, Property::kRotation, Interpolation::kLinear, times, values);
  for (float tolerance : {0.1f, 0.03f, 0.01f, 0.003f, 0.001f, 0.0003f, 0.0001f, 0.0f}) {
    const ClipStorage storage = lossy(tolerance, 0.1f);
    const Clip once = quantize_lossy(clip, storage);
    expect_same_keys(once, quantize_lossy(once, storage));
  }
}

}  // namespace
}  // namespace animpack
