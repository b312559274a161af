// Pack format 6 clip keys (docs/pack-format.md, "Clip keys"): exact clips round-trip every
// float's bits through time tracks and compact values; quantize_lossy is what a lossy pack
// plays, idempotent, closed under key removal and within the precision it picks from the
// tolerance; malformed keys are refused naming clip and channel; the committed golden pack
// clips_v6.anpk plays to its hash (tests/fixtures/clips_v6_golden_run.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "animpack/clip.h"
#include "animpack/compiler/clip_quantize.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/schema/pack_generated.h"
#include "fixtures/clips_v6_golden_run.h"
#include "fixtures/fixture.h"

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

// ---- Packs of format 6 clips ----

namespace fb = animpack::schema;

// A small deterministic generator (the same numbers with every standard library).
struct Lcg {
  uint64_t s;
  float next(float lo, float hi) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const float u = static_cast<float>(s >> 40) / 16777216.0f;
    return lo + (hi - lo) * u;
  }
};

std::vector<float> unit_quats(Lcg& g, size_t n) {
  std::vector<float> out;
  for (size_t i = 0; i < n; ++i) {
    float q[4];
    float len = 0;
    for (float& v : q) {
      v = g.next(-1.0f, 1.0f);
      len += v * v;
    }
    len = std::sqrt(len);
    for (float v : q) out.push_back(v / len);
  }
  return out;
}

std::vector<float> uniform(Lcg& g, size_t n, float lo, float hi) {
  std::vector<float> out(n);
  for (float& v : out) v = g.next(lo, hi);
  return out;
}

// Channels of every kind: a progression time array shared by four channels, a subset of it,
// irregular times; step, linear and cubic; translation, rotation, scale and weights.
Clip mixed_clip(const std::string& name, uint64_t seed) {
  Lcg g{seed};
  std::vector<float> every(31), third, irregular = {0.0f, 0.1f, 0.35f, 0.36f, 0.8f, 1.0f};
  for (size_t k = 0; k < every.size(); ++k) every[k] = static_cast<float>(k) / 30.0f;
  for (size_t k = 0; k < every.size(); k += 3) third.push_back(every[k]);
  Clip c(name);
  c.add_channel(0, Property::kTranslation, Interpolation::kLinear, every,
                uniform(g, every.size() * 3, -0.5f, 0.5f));
  c.add_channel(1, Property::kRotation, Interpolation::kLinear, every, unit_quats(g, every.size()));
  c.add_channel(2, Property::kScale, Interpolation::kStep, third,
                uniform(g, third.size() * 3, 0.8f, 1.2f));
  std::vector<float> cubic;  // (in-tangent, value, out-tangent) per key
  const std::vector<float> q = unit_quats(g, irregular.size());
  for (size_t k = 0; k < irregular.size(); ++k) {
    for (int i = 0; i < 4; ++i) cubic.push_back(g.next(-0.1f, 0.1f));
    cubic.insert(cubic.end(), q.begin() + static_cast<ptrdiff_t>(4 * k),
                 q.begin() + static_cast<ptrdiff_t>(4 * k + 4));
    for (int i = 0; i < 4; ++i) cubic.push_back(g.next(-0.1f, 0.1f));
  }
  c.add_channel(3, Property::kRotation, Interpolation::kCubicSpline, irregular, cubic);
  c.add_channel(3, Property::kTranslation, Interpolation::kCubicSpline, irregular,
                uniform(g, irregular.size() * 9, -0.2f, 0.2f));
  c.add_weights_channel(0, 3, Interpolation::kLinear, every,
                        uniform(g, every.size() * 3, 0.0f, 1.0f));
  c.add_channel(2, Property::kRotation, Interpolation::kStep, every, unit_quats(g, every.size()));
  return c;
}

// Floats at the edges: -0.0, denormals, the largest and smallest normals, huge.
Clip edge_clip(const std::string& name) {
  const float big = std::numeric_limits<float>::max();
  const float tiny = std::numeric_limits<float>::denorm_min();
  const float edge[] = {
      -0.0f,  0.0f,       tiny,  -tiny,  1e-40f, std::numeric_limits<float>::min(),
      big,    -big,       1e30f, -1e30f, 1.0f,   std::nextafter(1.0f, 2.0f),
      -1e-3f, 123456.78f, 3e38f, -2e-39f};
  std::vector<float> t = {0.0f, 0.5f, std::nextafter(0.5f, 1.0f), 2.0f};
  std::vector<float> v3, v4, v9;
  for (size_t i = 0; i < 4 * 3; ++i) v3.push_back(edge[i % 16]);
  for (size_t i = 0; i < 4 * 4; ++i) v4.push_back(edge[(i + 5) % 16]);
  for (size_t i = 0; i < 4 * 9; ++i) v9.push_back(edge[(i * 7) % 16]);
  Clip c(name);
  c.add_channel(0, Property::kTranslation, Interpolation::kStep, t, v3);
  c.add_channel(1, Property::kRotation, Interpolation::kLinear, t, v4);
  c.add_channel(2, Property::kScale, Interpolation::kCubicSpline, t, v9);
  c.add_weights_channel(0, 3, Interpolation::kStep, t, v3);
  return c;
}

ClipStorage lossy_storage() {
  ClipStorage s = lossy(0.001f, 0.1f);
  s.max_error = 0.0004f;
  return s;
}

// The golden pack's content: the fixture rig with a morph set and exact and lossy clips.
CookedPack clips_v6_pack() {
  const Rig base = fixture::make_rig();
  std::vector<Clip> clips;
  clips.push_back(base.clips()[0].copy());
  clips.push_back(mixed_clip("Mixed", 1));
  Clip lossy_mixed = mixed_clip("MixedLossy", 1);
  lossy_mixed.set_storage(lossy_storage());
  clips.push_back(std::move(lossy_mixed));
  Clip lossy_walk(base.clips()[0].name() + "Lossy");
  for (const Channel& ch : base.clips()[0].channels())
    lossy_walk.add_channel(ch.joint, ch.property, ch.interpolation, ch.times, ch.values);
  lossy_walk.set_storage(lossy(0.01f, 0.5f));
  clips.push_back(std::move(lossy_walk));
  clips.push_back(edge_clip("EdgeValues"));
  Clip lossy_edge = edge_clip("EdgeLossy");
  lossy_edge.set_storage(lossy_storage());
  clips.push_back(std::move(lossy_edge));
  std::vector<MorphSet> sets(1);
  sets[0].name = "face";
  sets[0].target_names = {"blink", "smile", "frown"};
  sets[0].default_weights = {0.0f, 0.25f, -0.5f};
  sets[0].joint = 1;
  Result<Rig> rig = Rig::create(base.skeleton(), std::move(clips), std::move(sets));
  EXPECT_TRUE(rig) << rig.error().message();
  CookedPack pack;
  CookedRig r;
  r.rig = std::move(*rig);
  r.joint_source_nodes = {0, 1, 2, 3};
  r.clip_source_animations = {0, 1, 2, 3, 4, 5};
  r.morph_source_nodes = {4};
  pack.rigs.push_back(std::move(r));
  return pack;
}

uint64_t float_bytes(const Clip& c) {
  uint64_t n = 0;
  for (const Channel& ch : c.channels()) n += (ch.times.size() + ch.values.size()) * 4;
  return n;
}

TEST(ClipStore, ExactClipsRoundTripEveryFloatsBits) {
  const CookedPack cooked = clips_v6_pack();
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->format_version(), kPackFormatVersion);
  const Rig& want = cooked.rigs[0].rig;
  ASSERT_EQ(pack->rig(0).clips().size(), want.clips().size());
  int exact = 0;
  for (size_t c = 0; c < want.clips().size(); ++c) {
    const Clip& got = pack->rig(0).clips()[c];
    if (want.clips()[c].storage().compression != ClipCompression::kExact) continue;
    ++exact;
    SCOPED_TRACE(got.name());
    expect_same_keys(got, want.clips()[c]);
    EXPECT_EQ(got.storage().compression, ClipCompression::kExact);
    EXPECT_GT(got.storage().stored_bytes, 0u);
    if (got.name() == "Mixed") {  // one track for four channels' times (random values)
      EXPECT_LT(got.storage().stored_bytes, float_bytes(got) - 3 * 31 * 4);
    }
  }
  EXPECT_EQ(exact, 3);
}

TEST(ClipStore, RandomExactClipsRoundTrip) {
  // Random clips (quantize_lossy's generator: every interpolation, weights, near-tie
  // rotations, arbitrary tangents) through a pack, bit for bit.
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    const Rig base = fixture::make_rig();
    std::vector<Clip> clips;
    clips.push_back(random_clip(seed, 5 + static_cast<int>(seed) * 7));
    std::vector<MorphSet> sets(1);
    sets[0].name = "s";
    sets[0].target_names = {"a", "b"};
    sets[0].default_weights = {0.0f, 0.0f};
    Result<Rig> rig = Rig::create(base.skeleton(), std::move(clips), std::move(sets));
    ASSERT_TRUE(rig) << rig.error().message();
    CookedPack cooked;
    cooked.rigs.push_back(CookedRig{std::move(*rig), {0, 1, 2, 3}, {0}, {-1}, false});
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_TRUE(pack) << pack.error().message();
    expect_same_keys(pack->rig(0).clips()[0], cooked.rigs[0].rig.clips()[0]);
  }
}

TEST(ClipStore, LossyClipsPlayWhatQuantizeLossyGives) {
  const CookedPack cooked = clips_v6_pack();
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  int lossy_clips = 0;
  for (size_t c = 0; c < cooked.rigs[0].rig.clips().size(); ++c) {
    const Clip& in = cooked.rigs[0].rig.clips()[c];
    if (in.storage().compression != ClipCompression::kLossy) continue;
    ++lossy_clips;
    const Clip& got = pack->rig(0).clips()[c];
    SCOPED_TRACE(got.name());
    expect_same_keys(got, quantize_lossy(in, in.storage()));
    EXPECT_EQ(got.storage().compression, ClipCompression::kLossy);
    EXPECT_EQ(got.storage().tolerance, in.storage().tolerance);
    EXPECT_EQ(got.storage().distance, in.storage().distance);
    EXPECT_EQ(got.storage().max_error, in.storage().max_error);
    EXPECT_GT(got.storage().stored_bytes, 0u);
    if (got.name() == "MixedLossy") {
      const Clip& exact = pack->rig(0).clips()[1];
      EXPECT_LT(got.storage().stored_bytes, exact.storage().stored_bytes / 2)
          << got.storage().stored_bytes << " lossy vs " << exact.storage().stored_bytes;
    }
  }
  EXPECT_EQ(lossy_clips, 3);
}

TEST(ClipStore, ChannelsWithTheSameTimesShareOneDecodedArray) {
  auto pack = Pack::from_bytes(write_pack(clips_v6_pack()));
  ASSERT_TRUE(pack) << pack.error().message();
  for (const char* name : {"Mixed", "MixedLossy"}) {
    const Clip& c = pack->rig(0).clips()[*pack->rig(0).find_clip(name)];
    // Channels 0, 1, 5 and 6 have the 31 times; 2 every third of them.
    EXPECT_EQ(c.channels()[0].times.data(), c.channels()[1].times.data());
    EXPECT_EQ(c.channels()[0].times.data(), c.channels()[5].times.data());
    EXPECT_EQ(c.channels()[0].times.data(), c.channels()[6].times.data());
    EXPECT_EQ(c.channels()[3].times.data(), c.channels()[4].times.data());
    ASSERT_EQ(c.channels()[2].times.size(), 11u);
    EXPECT_EQ(c.channels()[2].times[10], c.channels()[0].times[30]);
  }
}

TEST(ClipStore, WritingIsByteIdenticalAcrossRuns) {
  EXPECT_EQ(write_pack(clips_v6_pack()), write_pack(clips_v6_pack()));
}

template <typename T>
void patch_field(std::vector<uint8_t>& bytes, const void* table, flatbuffers::voffset_t field,
                 T value) {
  const uint8_t* at = static_cast<const flatbuffers::Table*>(table)->GetAddressOf(field);
  ASSERT_NE(at, nullptr) << "the field is not stored";
  std::memcpy(bytes.data() + (at - bytes.data()), &value, sizeof value);
}

void expect_refused(const std::vector<uint8_t>& bytes, const std::string& what) {
  auto pack = Pack::from_bytes(bytes);
  ASSERT_FALSE(pack) << "accepted; wanted: " << what;
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  EXPECT_NE(std::string(pack.error().message()).find(what), std::string::npos)
      << pack.error().message() << "\nwanted: " << what;
}

const fb::Clip* clip_of(const std::vector<uint8_t>& b, uint32_t c) {
  return fb::GetAssetPack(b.data())->rigs()->Get(0)->clips()->Get(c);
}

TEST(ClipStore, RefusesMalformedKeysNamingClipAndChannel) {
  const std::vector<uint8_t> good = write_pack(clips_v6_pack());
  ASSERT_TRUE(Pack::from_bytes(good));
  const auto mutate = [&](auto&& change, const std::string& what) {
    std::vector<uint8_t> b = good;
    change(b);
    expect_refused(b, what);
  };
  // Clip 1 "Mixed": channel 2 names its keys by index, channel 3 track 1; clip 2
  // "MixedLossy" is lossy; `planes` a channel whose values are byte planes.
  uint32_t planes_clip = 0, planes_channel = 0;
  {
    bool found = false;
    const auto* clips = fb::GetAssetPack(good.data())->rigs()->Get(0)->clips();
    for (uint32_t c = 0; c < clips->size() && !found; ++c)
      for (uint32_t k = 0; k < clips->Get(c)->channels()->size() && !found; ++k)
        if (const auto codec = clips->Get(c)->channels()->Get(k)->codec();
            codec != fb::KeyCodec::Raw && codec != fb::KeyCodec::Lossy) {
          planes_clip = c;
          planes_channel = k;
          found = true;
        }
    ASSERT_TRUE(found) << "no channel's values compress";
  }
  const std::string planes =
      "rig 0 clip " + std::to_string(planes_clip) + " channel " + std::to_string(planes_channel);
  mutate(
      [](auto& b) {
        patch_field<uint32_t>(b, fb::GetAssetPack(b.data()), fb::AssetPack::VT_FORMAT_VERSION, 5);
      },
      "rig 0 clip 0: format 5 has no clip key storage");
  mutate(
      [](auto& b) {
        patch_field<uint32_t>(b, clip_of(b, 1)->channels()->Get(3), fb::Channel::VT_TRACK, 9);
      },
      "rig 0 clip 1 channel 3: time track 9 of");
  mutate(
      [](auto& b) {
        patch_field<uint8_t>(b, clip_of(b, 1)->channels()->Get(2), fb::Channel::VT_KEY_BITS, 33);
      },
      "rig 0 clip 1 channel 2: key indices");
  mutate(
      [](auto& b) {
        patch_field<uint32_t>(b, clip_of(b, 1)->channels()->Get(2), fb::Channel::VT_KEY_COUNT, 12);
      },
      "rig 0 clip 1 channel 2: key indices (12 of 5 bits) do not match");
  mutate(
      [](auto& b) {  // the last index past the track of 31 times
        const auto* keys = clip_of(b, 1)->channels()->Get(2)->keys();
        const size_t at = static_cast<size_t>(keys->data() - b.data()) + keys->size() - 1;
        b[at] = 0xff;
      },
      "rig 0 clip 1 channel 2 key 10: track index");
  mutate(
      [&](auto& b) {
        patch_field<uint8_t>(b, clip_of(b, planes_clip)->channels()->Get(planes_channel),
                             fb::Channel::VT_CODEC, 7);
      },
      planes + ": bad key codec 7");
  mutate(
      [&](auto& b) {  // truncated values: the data vector says one byte less
        const auto* data = clip_of(b, planes_clip)->channels()->Get(planes_channel)->data();
        const size_t at = static_cast<size_t>(data->data() - b.data()) - 4;
        const uint32_t n = data->size() - 1;
        std::memcpy(b.data() + at, &n, 4);
      },
      planes + ": value planes do not decode");
  {  // truncated raw values: the first Raw channel's data vector says 4 bytes less
    const auto* clips = fb::GetAssetPack(good.data())->rigs()->Get(0)->clips();
    uint32_t rc = 0, rk = 0;
    bool found = false;
    for (uint32_t c = 0; c < clips->size() && !found; ++c)
      for (uint32_t k = 0; k < clips->Get(c)->channels()->size() && !found; ++k)
        if (clips->Get(c)->channels()->Get(k)->codec() == fb::KeyCodec::Raw) {
          rc = c;
          rk = k;
          found = true;
        }
    ASSERT_TRUE(found) << "no channel stored raw";
    const uint32_t n = clips->Get(rc)->channels()->Get(rk)->data()->size();
    mutate(
        [&](auto& b) {
          const auto* data = clip_of(b, rc)->channels()->Get(rk)->data();
          const size_t at = static_cast<size_t>(data->data() - b.data()) - 4;
          const uint32_t shorter = n - 4;
          std::memcpy(b.data() + at, &shorter, 4);
        },
        "rig 0 clip " + std::to_string(rc) + " channel " + std::to_string(rk) + ": " +
            std::to_string(n - 4) + " value bytes for " + std::to_string(n / 4) + " floats");
  }
  mutate(
      [](auto& b) {
        patch_field<uint32_t>(b, clip_of(b, 1)->tracks()->Get(0), fb::TimeTrack::VT_COUNT,
                              0xffffffffu);
      },
      "rig 0 clip 1 time track 0: 4294967295 times, over the pack's");
  mutate([](auto& b) { patch_field<uint8_t>(b, clip_of(b, 2), fb::Clip::VT_ROTATION_BITS, 3); },
         "rig 0 clip 2: lossy grids out of range");
  mutate(
      [](auto& b) { patch_field<int8_t>(b, clip_of(b, 2), fb::Clip::VT_TRANSLATION_EXPONENT, 5); },
      "rig 0 clip 2: lossy grids out of range");
  mutate([](auto& b) { patch_field<uint8_t>(b, clip_of(b, 2), fb::Clip::VT_COMPRESSION, 0); },
         "rig 0 clip 2: an exact clip with lossy grids");
  mutate([](auto& b) { patch_field<uint8_t>(b, clip_of(b, 2), fb::Clip::VT_COMPRESSION, 2); },
         "rig 0 clip 2: bad storage");
  mutate(
      [](auto& b) {  // a lane of 40 bits
        const auto* bits = clip_of(b, 2)->channels()->Get(0)->lane_bits();
        b[static_cast<size_t>(bits->data() - b.data())] = 40;
      },
      "rig 0 clip 2 channel 0: lossy keys refused (lane bit width over 31)");
  mutate(
      [](auto& b) {  // a lane's smallest code far out of range
        const auto* lo = clip_of(b, 2)->channels()->Get(1)->lane_min();
        const int32_t v = 1 << 20;
        std::memcpy(b.data() + (reinterpret_cast<const uint8_t*>(lo->data()) - b.data()), &v, 4);
      },
      "rig 0 clip 2 channel 1: lossy keys refused (a code out of range)");
  mutate(
      [](auto& b) {
        patch_field<uint32_t>(b, clip_of(b, 2)->channels()->Get(2), fb::Channel::VT_KEY_COUNT, 13);
      },
      "rig 0 clip 2 channel 2: key indices (13 of 5 bits) do not match");
  mutate(
      [&](auto& b) {
        patch_field<uint8_t>(b, clip_of(b, planes_clip)->channels()->Get(planes_channel),
                             fb::Channel::VT_CODEC, 2);
      },
      planes + ": lossy keys in an exact clip");
  mutate(
      [](auto& b) {
        patch_field<uint8_t>(b, clip_of(b, 2)->channels()->Get(0), fb::Channel::VT_CODEC, 1);
      },
      "rig 0 clip 2 channel 0: exact keys in a lossy clip");
}

TEST(ClipStore, GoldenPackPlaysToItsHash) {
  const auto golden = std::filesystem::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/clips_v6.anpk";
  if (std::getenv("ANIMPACK_WRITE_GOLDEN") && kPackFormatVersion == 6) {
    ASSERT_EQ(write_file_atomically(golden, write_pack(clips_v6_pack())), "");
  }
  auto stored = Pack::open(golden.string());
  ASSERT_TRUE(stored) << golden << ": " << stored.error().message();
  EXPECT_EQ(stored->format_version(), 6u);
  const uint64_t h = fixture::clips_v6_golden_run(*stored);
  EXPECT_EQ(h, fixture::kClipsV6GoldenHash) << "got 0x" << std::hex << h;
  auto fresh = Pack::from_bytes(write_pack(clips_v6_pack()));
  ASSERT_TRUE(fresh) << fresh.error().message();
  EXPECT_EQ(fixture::clips_v6_golden_run(*fresh), h)
      << "the writer's pack plays like the committed one";
}

}  // namespace
}  // namespace animpack
