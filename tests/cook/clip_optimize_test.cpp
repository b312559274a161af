// Step 6's lossy clips, compiler side (clip_optimize.h): the error metric on hand-made rigs
// (a known error at a joint moves its own and its children's virtual vertices by the
// computed amount), the measuring times, and the key reducer (it keeps the bound, keeps
// what it must keep, and gives the same keys on every run), on made clips and on every
// clip of the corpus glTF files.
#include "animpack/compiler/clip_optimize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

ClipStorage lossy(float tolerance = kDefaultLossyTolerance,
                  float distance = kDefaultLossyDistance) {
  ClipStorage s;
  s.compression = ClipCompression::kLossy;
  s.tolerance = tolerance;
  s.distance = distance;
  return s;
}

// A chain of `count` joints, each 1 m along its parent's x axis (the first at the origin).
Skeleton chain(int count) {
  std::vector<Joint> joints;
  for (int i = 0; i < count; ++i) {
    Joint j;
    j.name = "j" + std::to_string(i);
    j.parent = static_cast<int16_t>(i - 1);
    if (i > 0) j.rest.translation = {1, 0, 0};
    joints.push_back(j);
  }
  Result<Skeleton> s = Skeleton::create(std::move(joints), {}, Mat4{});
  EXPECT_TRUE(s) << s.error().message();
  return std::move(*s);
}

// A clip holding joint `joint`'s rotation at angle (radians) about z, at times 0 and 1.
Clip rotation_clip(uint16_t joint, double angle) {
  const float s = static_cast<float>(std::sin(angle / 2)),
              c = static_cast<float>(std::cos(angle / 2));
  const float times[] = {0, 1};
  const float values[] = {0, 0, s, c, 0, 0, s, c};
  Clip clip("rotate");
  clip.add_channel(joint, Property::kRotation, Interpolation::kLinear, times, values);
  return clip;
}

TEST(ClipError, ARotationErrorAtTheRootMovesAChildsFarthestVertexByTheChord) {
  const Skeleton skeleton = chain(2);
  const double angle = 0.01;
  const Clip exact = rotation_clip(0, 0);
  const Clip off = rotation_clip(0, angle);
  // The child's x-axis vertex is 1 + d from the root's origin; a rotation by `angle` moves
  // it along the chord 2 r sin(angle / 2).
  for (const float d : {0.1f, 0.5f, 2.0f}) {
    const double expected = 2 * (1 + static_cast<double>(d)) * std::sin(angle / 2);
    EXPECT_NEAR(pose_error(skeleton, exact, off, 0.5f, d), expected, 1e-6) << d;
  }
}

TEST(ClipError, ARotationErrorAtALeafMovesOnlyItsAxisVertices) {
  const Skeleton skeleton = chain(3);
  const double angle = 0.02;
  const Clip exact = rotation_clip(2, 0);
  const Clip off = rotation_clip(2, angle);
  // The leaf's origin stays; its x and y vertices, d from it, move by 2 d sin(angle / 2).
  const double expected = 2 * 0.1 * std::sin(angle / 2);
  EXPECT_NEAR(pose_error(skeleton, exact, off, 0.25f, 0.1f), expected, 1e-7);
}

TEST(ClipError, ATranslationErrorIsTheDistanceItMovesTheJoint) {
  const Skeleton skeleton = chain(3);
  const float times[] = {0, 1};
  const float a[] = {1, 0, 0, 1, 0, 0};
  const float b[] = {1, 0.002f, 0, 1, 0.002f, 0};
  Clip exact("a"), off("b");
  exact.add_channel(1, Property::kTranslation, Interpolation::kLinear, times, a);
  off.add_channel(1, Property::kTranslation, Interpolation::kLinear, times, b);
  EXPECT_NEAR(pose_error(skeleton, exact, off, 0.5f, 0.1f), 0.002, 1e-9);
  EXPECT_NEAR(clip_error(skeleton, exact, off, 0.1f), 0.002, 1e-9);
  EXPECT_EQ(clip_error(skeleton, exact, exact, 0.1f), 0.0);
}

TEST(ClipError, AScaleErrorScalesTheVerticesOffsets) {
  const Skeleton skeleton = chain(1);
  const float times[] = {0, 1};
  const float a[] = {1, 1, 1, 1, 1, 1};
  const float b[] = {1.01f, 1, 1, 1.01f, 1, 1};
  Clip exact("a"), off("b");
  exact.add_channel(0, Property::kScale, Interpolation::kLinear, times, a);
  off.add_channel(0, Property::kScale, Interpolation::kLinear, times, b);
  EXPECT_NEAR(pose_error(skeleton, exact, off, 0.5f, 0.1f), 0.001, 1e-8);
}

TEST(ErrorTimes, HoldEveryKeyTimeAndTheSameRandomTimesOnEveryCall) {
  const float times[] = {0, 0.25f, 0.5f, 2};
  const float values[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0};
  Clip clip("c");
  clip.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, values);
  const std::vector<float> t = error_times(clip);
  EXPECT_EQ(t, error_times(clip));
  EXPECT_GT(t.size(), 90u);
  EXPECT_LE(t.size(), 104u);
  for (const float k : times) EXPECT_TRUE(std::binary_search(t.begin(), t.end(), k)) << k;
  for (size_t i = 1; i < t.size(); ++i) EXPECT_LT(t[i - 1], t[i]);
  EXPECT_GE(t.front(), 0.0f);
  EXPECT_LE(t.back(), 2.0f);
  EXPECT_EQ(error_times(clip, 0).size(), 4u);
}

// A 3-joint chain clip: each joint's rotation about z is a sum of sines keyed at 30 Hz for
// 2 s, and the root translates along a curve.
Clip wavy_clip(Interpolation interpolation = Interpolation::kLinear) {
  std::vector<float> times, rotation, translation;
  for (int i = 0; i <= 60; ++i) times.push_back(static_cast<float>(i) / 30.0f);
  Clip clip("wavy");
  for (uint16_t j = 0; j < 3; ++j) {
    rotation.clear();
    for (const float t : times) {
      const double a = 0.4 * std::sin(3.0 * t + j) + 0.05 * std::sin(17.0 * t);
      const float v[] = {0, 0, static_cast<float>(std::sin(a / 2)),
                         static_cast<float>(std::cos(a / 2))};
      if (interpolation == Interpolation::kCubicSpline)
        rotation.insert(rotation.end(), {0, 0, 0, 0});
      rotation.insert(rotation.end(), v, v + 4);
      if (interpolation == Interpolation::kCubicSpline)
        rotation.insert(rotation.end(), {0, 0, 0, 0});
    }
    clip.add_channel(j, Property::kRotation, interpolation, times, rotation);
  }
  for (const float t : times) {
    translation.insert(translation.end(),
                       {0.3f * t, 0.1f * static_cast<float>(std::sin(5.0 * t)), 0});
  }
  clip.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, translation);
  clip.add_event("step", 0.5f);
  return clip;
}

TEST(ReduceClip, RemovesKeysAndKeepsTheMeasuredErrorWithinTheTolerance) {
  const Skeleton skeleton = chain(3);
  const Clip clip = wavy_clip();
  for (const float tolerance : {0.0001f, 0.001f, 0.01f}) {
    const ReducedClip r = reduce_clip(skeleton, clip, clip.copy(), lossy(tolerance));
    ASSERT_TRUE(r.within) << tolerance;
    EXPECT_EQ(r.keys_before, 4u * 61u);
    EXPECT_LT(r.keys_after, r.keys_before) << tolerance;
    EXPECT_EQ(r.keys_after, key_count(r.clip));
    ASSERT_TRUE(r.clip.validate(skeleton.joint_count()));
    const double measured = clip_error(skeleton, clip, r.clip, kDefaultLossyDistance);
    EXPECT_EQ(measured, r.max_error);
    EXPECT_LE(measured, static_cast<double>(tolerance));
    const ClipStorage& s = r.clip.storage();
    EXPECT_EQ(s.compression, ClipCompression::kLossy);
    EXPECT_EQ(s.tolerance, tolerance);
    EXPECT_EQ(s.distance, kDefaultLossyDistance);
    EXPECT_GE(static_cast<double>(s.max_error), measured);
    EXPECT_LE(s.max_error, tolerance);
    // Name, events, duration and every channel's first and last key are kept.
    EXPECT_EQ(r.clip.name(), "wavy");
    ASSERT_EQ(r.clip.events().size(), 1u);
    EXPECT_EQ(r.clip.duration(), clip.duration());
    ASSERT_EQ(r.clip.channels().size(), clip.channels().size());
    for (size_t c = 0; c < clip.channels().size(); ++c) {
      const Channel& a = clip.channels()[c];
      const Channel& b = r.clip.channels()[c];
      EXPECT_EQ(b.times.front(), a.times.front());
      EXPECT_EQ(b.times.back(), a.times.back());
      EXPECT_EQ(b.joint, a.joint);
      EXPECT_EQ(b.property, a.property);
    }
  }
  // A looser tolerance keeps fewer keys.
  EXPECT_LT(reduce_clip(skeleton, clip, clip.copy(), lossy(0.01f)).keys_after,
            reduce_clip(skeleton, clip, clip.copy(), lossy(0.0001f)).keys_after);
}

TEST(ReduceClip, ALinearMotionKeyedDenselyKeepsItsTwoEndKeys) {
  const Skeleton skeleton = chain(2);
  std::vector<float> times, values;
  for (int i = 0; i <= 40; ++i) {
    times.push_back(static_cast<float>(i) * 0.125f);  // exact in binary: the lerps are exact
    values.insert(values.end(), {static_cast<float>(i) * 0.25f, 0, 0});
  }
  Clip clip("line");
  clip.add_channel(1, Property::kTranslation, Interpolation::kLinear, times, values);
  const ReducedClip r = reduce_clip(skeleton, clip, clip.copy(), lossy());
  ASSERT_TRUE(r.within);
  EXPECT_EQ(r.keys_after, 2u);
  EXPECT_LE(r.max_error, 1e-6);
}

TEST(ReduceClip, KeepsEveryKeyOfCubicAndWeightsChannels) {
  const Skeleton skeleton = chain(3);
  const Clip clip = wavy_clip(Interpolation::kCubicSpline);
  const ReducedClip r = reduce_clip(skeleton, clip, clip.copy(), lossy(0.01f));
  ASSERT_TRUE(r.within);
  for (size_t c = 0; c < clip.channels().size(); ++c) {
    const Channel& a = clip.channels()[c];
    if (a.interpolation == Interpolation::kCubicSpline) {
      EXPECT_EQ(r.clip.channels()[c].times.size(), a.times.size()) << c;
    } else {
      EXPECT_LT(r.clip.channels()[c].times.size(), a.times.size()) << c;
    }
  }
}

TEST(ReduceClip, GivesTheSameKeysBitForBitOnEveryRun) {
  const Skeleton skeleton = chain(3);
  const Clip clip = wavy_clip();
  const ReducedClip a = reduce_clip(skeleton, clip, clip.copy(), lossy());
  const ReducedClip b = reduce_clip(skeleton, clip, clip.copy(), lossy());
  ASSERT_EQ(a.clip.channels().size(), b.clip.channels().size());
  for (size_t c = 0; c < a.clip.channels().size(); ++c) {
    const Channel& x = a.clip.channels()[c];
    const Channel& y = b.clip.channels()[c];
    ASSERT_EQ(x.times.size(), y.times.size());
    ASSERT_EQ(x.values.size(), y.values.size());
    EXPECT_EQ(std::memcmp(x.times.data(), y.times.data(), x.times.size_bytes()), 0);
    EXPECT_EQ(std::memcmp(x.values.data(), y.values.data(), x.values.size_bytes()), 0);
  }
  EXPECT_EQ(std::memcmp(&a.max_error, &b.max_error, sizeof a.max_error), 0);
}

TEST(ReduceClip, RefusesAQuantisedClipAlreadyOverTheTolerance) {
  const Skeleton skeleton = chain(2);
  const Clip exact = rotation_clip(0, 0);
  const Clip off = rotation_clip(0, 0.01);  // about 20 mm at the child's vertices
  const ReducedClip r = reduce_clip(skeleton, exact, off, lossy());
  EXPECT_FALSE(r.within);
  EXPECT_GT(r.max_error, 0.001);
  EXPECT_EQ(r.keys_after, r.keys_before);
}

// Every clip of the corpus glTF files: reduced at the default tolerance (on the float keys:
// the cook tests measure the quantised ones), each stays within the bound it reports over
// every key and 100 random times.
TEST(ReduceClip, EveryCorpusClipStaysWithinTheBoundItReports) {
  const fs::path corpus = fs::path(ANIMPACK_CORPUS_DIR) / "gltf";
  const char* files[] = {
      "Fox/glTF/Fox.gltf",
      "CesiumMan/glTF-Binary/CesiumMan.glb",
      "RiggedFigure/glTF/RiggedFigure.gltf",
      "RiggedSimple/glTF/RiggedSimple.gltf",
      "BoxAnimated/glTF-Embedded/BoxAnimated.gltf",
      "InterpolationTest/glTF/InterpolationTest.gltf",
      "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
      "SimpleSkin/glTF/SimpleSkin.gltf",
      "ozz-tests/character_walk.gltf",
      "ozz-tests/cubicspline.gltf",
      "ozz-tests/multiple_roots.gltf",
      "blender-io-roundtrip/03_all_animations/03_all_animations.gltf",
      "blender-io-roundtrip/06_parent-inverse-anim/06_parent-inverse-anim.gltf",
  };
  size_t clips = 0, before = 0, after = 0;
  for (const char* file : files) {
    const GltfDocument doc = read_gltf(corpus / file);
    const ImportedModel model = import_gltf(doc, "m", file);
    ASSERT_TRUE(model.ok() && model.rig) << file;
    const Rig& rig = model.rig->rig;
    for (const Clip& clip : rig.clips()) {
      const ReducedClip r = reduce_clip(rig.skeleton(), clip, clip.copy(), lossy());
      ASSERT_TRUE(r.within) << file << " " << clip.name();
      std::vector<uint16_t> widths;
      for (const MorphSet& set : rig.morph_sets())
        widths.push_back(static_cast<uint16_t>(set.size()));
      ASSERT_TRUE(r.clip.validate(rig.skeleton().joint_count(), widths))
          << file << " " << clip.name();
      const double measured = clip_error(rig.skeleton(), clip, r.clip, kDefaultLossyDistance);
      EXPECT_LE(measured, static_cast<double>(r.clip.storage().max_error))
          << file << " " << clip.name();
      EXPECT_LE(r.clip.storage().max_error, kDefaultLossyTolerance) << file << " " << clip.name();
      EXPECT_LE(r.keys_after, r.keys_before);
      ++clips;
      before += r.keys_before;
      after += r.keys_after;
    }
  }
  EXPECT_GT(clips, 10u);
  EXPECT_LT(after, before);
  std::printf("corpus: %zu clips, %zu -> %zu keys\n", clips, before, after);
}

}  // namespace
}  // namespace animpack
