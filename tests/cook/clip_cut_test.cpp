// Cuts (clip_sources.h, cut_clip): a cut clip sampled at t equals its source sampled at
// from + t (within 1e-6) for every interpolation and property, weights included, wherever
// the cut ends fall (inside a segment, on a key, before the first key, after the last);
// cubic cuts keep the source's cubic; and glob selection.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "animpack/compiler/clip_sources.h"
#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

constexpr float kTolerance = 1e-6f;  // relative to values over 1 (largest_difference)

// A weights channel sampled by glTF's rules, written here (the test's own computation):
// STEP the key at or before, LINEAR a (1 - u) + b u, CUBICSPLINE the Hermite basis with
// tangents scaled by the key interval; held before the first key and after the last.
std::vector<float> weights_at(const Channel& ch, float t) {
  const size_t w = ch.width;
  const size_t n = ch.times.size();
  const bool cubic = ch.interpolation == Interpolation::kCubicSpline;
  const size_t stride = cubic ? 3 * w : w;
  const size_t at = cubic ? w : 0;
  const auto value = [&](size_t k) {
    return std::vector<float>(ch.values.begin() + static_cast<ptrdiff_t>(k * stride + at),
                              ch.values.begin() + static_cast<ptrdiff_t>(k * stride + at + w));
  };
  if (n == 1 || !(t > ch.times[0])) return value(0);
  if (t >= ch.times[n - 1]) return value(n - 1);
  size_t k = 0;
  while (!(t < ch.times[k + 1])) ++k;
  if (ch.interpolation == Interpolation::kStep) return value(k);
  const double td = static_cast<double>(ch.times[k + 1]) - ch.times[k];
  const double u = (static_cast<double>(t) - ch.times[k]) / td;
  std::vector<float> out(w);
  for (size_t i = 0; i < w; ++i) {
    if (!cubic) {
      out[i] = static_cast<float>(ch.values[k * w + i] * (1 - u) + ch.values[(k + 1) * w + i] * u);
      continue;
    }
    const double p0 = ch.values[k * stride + w + i], m0 = ch.values[k * stride + 2 * w + i] * td;
    const double p1 = ch.values[(k + 1) * stride + w + i],
                 m1 = ch.values[(k + 1) * stride + i] * td;
    const double u2 = u * u, u3 = u2 * u;
    out[i] = static_cast<float>((2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * m0 +
                                (-2 * u3 + 3 * u2) * p1 + (u3 - u2) * m1);
  }
  return out;
}

// The largest difference between `cut` at t and `source` at from + t, channel by channel,
// over up to 997 times across the cut (both ends included), relative to the value's size where it
// is over 1 (float keeps about 7 digits: 1e-6 of a translation of 4 is 4 ulps). For STEP channels,
// times within 1e-4 s of a source key are skipped (there the value jumps, and a rounding of from +
// t decides).
float largest_difference(const Clip& source, const Clip& cut, float from, float to) {
  EXPECT_EQ(source.channels().size(), cut.channels().size());
  float worst = 0;
  for (size_t c = 0; c < std::min(source.channels().size(), cut.channels().size()); ++c) {
    const Channel& a = source.channels()[c];
    const Channel& b = cut.channels()[c];
    EXPECT_EQ(a.joint, b.joint);
    EXPECT_EQ(a.property, b.property);
    EXPECT_EQ(a.interpolation, b.interpolation);
    constexpr int kSteps = 996;
    int compared = 0;
    for (int i = 0; i <= kSteps; ++i) {
      // Source times st with t = st - from exact in float, so that both clips are asked
      // about the same instant (a rounding of from + t would move a fast channel by its
      // speed times an ulp of time).
      const float st = i == kSteps ? to : from + (to - from) * static_cast<float>(i) / kSteps;
      const float t = st - from;
      if (static_cast<double>(from) + t != st) continue;
      ++compared;
      if (a.interpolation == Interpolation::kStep &&
          std::any_of(a.times.begin(), a.times.end(),
                      [&](float k) { return std::fabs(k - st) < 1e-4f; })) {
        continue;
      }
      if (a.property == Property::kWeights) {
        const std::vector<float> x = weights_at(a, st), y = weights_at(b, t);
        for (size_t k = 0; k < x.size(); ++k) {
          worst = std::max(worst, std::fabs(x[k] - y[k]) / std::max(1.0f, std::fabs(x[k])));
        }
        continue;
      }
      uint32_t ca = 0, cb = 0;
      const Vec4 x = sample(a, st, &ca), y = sample(b, t, &cb);
      // A rotation and its negation are one.
      const float same = std::max(
          {std::fabs(x.x - y.x), std::fabs(x.y - y.y), std::fabs(x.z - y.z), std::fabs(x.w - y.w)});
      const float flipped = std::max(
          {std::fabs(x.x + y.x), std::fabs(x.y + y.y), std::fabs(x.z + y.z), std::fabs(x.w + y.w)});
      const float d = a.property == Property::kRotation ? std::min(same, flipped) : same;
      const float size =
          std::max({1.0f, std::fabs(x.x), std::fabs(x.y), std::fabs(x.z), std::fabs(x.w)});
      worst = std::max(worst, d / size);
    }
    EXPECT_GE(compared, 100) << "too few exact instants";
  }
  return worst;
}

// A clip with one channel of each property and a weights channel, all of `interpolation`,
// keys at 0.5, 1.25, 1.5, 2.75 and 3 s with values that turn, move and grow unevenly.
Clip synthetic(Interpolation interpolation) {
  const std::vector<float> times = {0.5f, 1.25f, 1.5f, 2.75f, 3.0f};
  const bool cubic = interpolation == Interpolation::kCubicSpline;
  const auto keys = [&](int width, auto value_of) {
    std::vector<float> v;
    for (size_t k = 0; k < times.size(); ++k) {
      for (int g = 0; g < (cubic ? 3 : 1); ++g) {
        const bool tangent = cubic && g != 1;
        for (int i = 0; i < width; ++i) {
          v.push_back(tangent ? 0.7f * static_cast<float>(i + 1) - 0.4f * static_cast<float>(k) -
                                    (g == 0 ? 0.3f : -0.2f)
                              : value_of(k, i));
        }
      }
    }
    return v;
  };
  Clip clip("Take");
  clip.add_channel(0, Property::kTranslation, interpolation, times, keys(3, [](size_t k, int i) {
                     return std::sin(static_cast<float>(k) * 1.3f + static_cast<float>(i)) * 2.0f;
                   }));
  // Rotations about a moving axis by angles from 10 to 150 degrees apart (slerp's wide and
  // narrow paths both taken).
  std::vector<float> rotations;
  const float angles[] = {0.0f, 0.17f, 0.5f, 2.1f, 2.3f};
  for (size_t k = 0; k < times.size(); ++k) {
    const float h = angles[k] * 0.5f;
    const float q[4] = {std::sin(h) * 0.6f, std::sin(h) * 0.8f, 0.0f, std::cos(h)};
    for (int g = 0; g < (cubic ? 3 : 1); ++g) {
      for (int i = 0; i < 4; ++i) rotations.push_back(cubic && g != 1 ? 0.1f * (i - 1.5f) : q[i]);
    }
  }
  clip.add_channel(1, Property::kRotation, interpolation, times, rotations);
  clip.add_channel(2, Property::kScale, interpolation, times, keys(3, [](size_t k, int i) {
                     return 1.0f + 0.25f * static_cast<float>(k * (i + 1) % 5);
                   }));
  clip.add_weights_channel(0, 2, interpolation, times, keys(2, [](size_t k, int i) {
                             return static_cast<float>((k + static_cast<size_t>(i)) % 3) * 0.5f;
                           }));
  clip.add_event("mid", 1.4f);
  clip.add_event("late", 2.9f);
  return clip;
}

class CutEveryInterpolation : public testing::TestWithParam<Interpolation> {};

TEST_P(CutEveryInterpolation, TheCutSampledAtTIsTheSourceAtFromPlusT) {
  const Clip source = synthetic(GetParam());
  // Inside segments; on keys; from before the first key; to after the last; both in one
  // segment; both before the first key; both after the last.
  const float cuts[][2] = {{0.9f, 2.2f},  {1.25f, 2.75f}, {0.1f, 1.3f}, {1.4f, 3.6f},
                           {1.3f, 1.45f}, {0.0f, 0.4f},   {3.1f, 3.5f}, {0.0f, 3.0f}};
  for (const auto& [from, to] : cuts) {
    const Clip cut = cut_clip(source, "Cut", from, to);
    EXPECT_EQ(cut.name(), "Cut");
    EXPECT_EQ(cut.duration(), to - from) << from << " to " << to;
    for (const Channel& ch : cut.channels()) {
      EXPECT_EQ(ch.times.front(), 0.0f);
      EXPECT_LE(ch.times.back(), to - from);
    }
    EXPECT_LE(largest_difference(source, cut, from, to), kTolerance) << from << " to " << to;
    EXPECT_TRUE(cut.validate(3, std::vector<uint16_t>{2})) << from << " to " << to;
  }
}

INSTANTIATE_TEST_SUITE_P(ClipCut, CutEveryInterpolation,
                         testing::Values(Interpolation::kStep, Interpolation::kLinear,
                                         Interpolation::kCubicSpline),
                         [](const testing::TestParamInfo<Interpolation>& param) {
                           return std::string(interpolation_name(param.param));
                         });

TEST(ClipCut, KeysInsideAreKeptAndTheEndsAreNewKeys) {
  const Clip source = synthetic(Interpolation::kLinear);
  const Clip cut = cut_clip(source, "Cut", 1.0f, 2.0f);
  // 0.5 1.25 1.5 2.75 3 cut at [1, 2]: a key at 0, the two inside (0.25, 0.5), one at 1.
  const Channel& ch = cut.channels()[0];
  ASSERT_EQ(ch.times.size(), 4u);
  EXPECT_EQ(ch.times[1], 0.25f);
  EXPECT_EQ(ch.times[2], 0.5f);
  EXPECT_EQ(ch.times[3], 1.0f);
  // A key kept inside has its value bit for bit.
  EXPECT_EQ(ch.values[3], source.channels()[0].values[3]);
  // Events within the cut, shifted.
  ASSERT_EQ(cut.events().size(), 1u);
  EXPECT_EQ(cut.events()[0].name, "mid");
  EXPECT_FLOAT_EQ(cut.events()[0].time, 0.4f);
}

TEST(ClipCut, ACubicCutIsTheSameCubic) {
  // The cut's keys at the ends carry the Hermite derivative, so between the cut ends and
  // the kept keys the curve is the source's cubic: its midpoints agree, not just its keys.
  const Clip source = synthetic(Interpolation::kCubicSpline);
  const Clip cut = cut_clip(source, "Cut", 0.8f, 2.9f);
  const Channel& a = source.channels()[0];
  const Channel& b = cut.channels()[0];
  for (float t : {0.05f, 0.2f, 0.4f, 1.0f, 1.9f, 2.05f}) {
    uint32_t ca = 0, cb = 0;
    const Vec4 x = sample(a, 0.8f + t, &ca), y = sample(b, t, &cb);
    EXPECT_NEAR(x.x, y.x, kTolerance) << t;
    EXPECT_NEAR(x.y, y.y, kTolerance) << t;
    EXPECT_NEAR(x.z, y.z, kTolerance) << t;
  }
}

TEST(ClipCut, EveryAnimationOfInterpolationTestCutsExactly) {
  // The Khronos sample with STEP, LINEAR and CUBICSPLINE translation, rotation and scale.
  const fs::path file = fs::path(ANIMPACK_SOURCE_DIR) /
                        "tests/data/corpus/gltf/InterpolationTest/glTF/InterpolationTest.gltf";
  const GltfDocument doc = read_gltf(file);
  ASSERT_TRUE(doc.ok());
  const ImportedModel model = import_gltf(doc, "interpolation", "InterpolationTest.gltf");
  ASSERT_TRUE(model.ok() && model.rig);
  const Rig& rig = model.rig->rig;
  ASSERT_GE(rig.clips().size(), 9u);
  for (const Clip& clip : rig.clips()) {
    const float d = clip.duration();
    for (const auto& [from, to] :
         {std::pair{0.13f * d, 0.77f * d}, std::pair{0.0f, 0.5f * d}, std::pair{0.41f * d, d}}) {
      const Clip cut = cut_clip(clip, clip.name(), from, to);
      EXPECT_LE(largest_difference(clip, cut, from, to), kTolerance)
          << clip.name() << " " << from << " to " << to;
      EXPECT_TRUE(cut.validate(rig.skeleton().joint_count())) << clip.name();
    }
  }
}

TEST(ClipSelection, GlobsMatchWholeNames) {
  EXPECT_TRUE(glob_match("Walk", "Walk"));
  EXPECT_FALSE(glob_match("Walk", "Walk_01"));
  EXPECT_TRUE(glob_match("Walk*", "Walk_01"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("*_old", "Idle_old"));
  EXPECT_FALSE(glob_match("*_old", "Idle_older"));
  EXPECT_TRUE(glob_match("?dle", "Idle"));
  EXPECT_FALSE(glob_match("?dle", "dle"));
  EXPECT_TRUE(glob_match("a*b*c", "a__b__b__c"));
  EXPECT_FALSE(glob_match("a*b*c", "a__b__b__"));
  EXPECT_FALSE(glob_match("walk", "Walk"));  // case-sensitive
  EXPECT_TRUE(glob_match("**x", "x"));
}

TEST(ClipSelection, IncludeThenExcludeInFileOrder) {
  const std::vector<std::string> names = {"Idle", "Walk_old", "Walk", "Run", "Idle_old"};
  SceneClipSource source;
  source.include = {"Walk*", "Idle*", "Jump"};
  source.exclude = {"*_old"};
  const ClipSelection sel = select_animations(names, source);
  EXPECT_EQ(sel.selected, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(sel.include_matches, (std::vector<size_t>{2, 2, 0}));
  const ClipSelection all = select_animations(names, SceneClipSource{});
  EXPECT_EQ(all.selected.size(), names.size());
}

}  // namespace
}  // namespace animpack
