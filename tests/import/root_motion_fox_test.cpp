// Root motion on a real model: the Fox of tests/data/corpus (gltf/Fox; model CC0,
// rigging, animation and conversion CC-BY-4.0, see tests/data/corpus/README.md). Its Walk
// is a treadmill clip (the hips stay put; the feet move back while planted), so the
// travel comes from foot contact (bake_root_motion's feet): played in place with the
// accumulated motion moving the character, a planted hind foot stays where it is within
// a stated distance per step.
//
// Units: the Fox's glTF is in metres by the format, but the model is about 58 units tall
// at the ears with its hips at 40 units: it is authored in centimetres (1 unit = 1 cm of
// a real fox), and its root matrix is the identity. So "object units" below are Fox
// centimetres, and a track's 1/65536 of an object unit is 0.15 µm of fox.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "animpack/animator.h"
#include "animpack/root_motion.h"
#include "import_support.h"

namespace animpack {
namespace {

using namespace import_test;  // NOLINT(build/namespaces): test helpers

struct Fox {
  ImportedModel model;
  const Rig& rig() const { return model.rig->rig; }
};

Fox import_fox() {
  const GltfDocument doc = read_gltf(kCorpus / "gltf/Fox/glTF/Fox.gltf");
  Fox fox{import_gltf(doc, "Fox", "gltf/Fox/glTF/Fox.gltf")};
  EXPECT_TRUE(fox.model.ok()) << describe(fox.model.issues);
  return fox;
}

struct Slide {
  double worst = 0.0;      // the largest slide of a planted foot over one step, object units
  int steps = 0;           // steps measured (whole stretches of one foot planted)
  double travelled = 0.0;  // how far the character moved
};

// Plays Walk for `ticks` with root motion from `tracks` (policy `policy`), moving a world
// position by take_root_motion() each tick, and measures each planted hind foot's world
// slide per step (a foot is planted while it is the lower of the two).
Slide walk_and_measure(const Rig& rig, const RootMotionConfig& config,
                       const std::vector<RootMotionTrack>& tracks, int ticks, int lf, int rf) {
  Animator a = std::move(*Animator::create(&rig, 60));
  EXPECT_TRUE(a.set_root_motion(config, tracks));
  EXPECT_TRUE(a.play("Walk", 0));
  double px = 0, pz = 0;
  int planted = -1;                 // the foot planted now
  double start_x = 0, start_z = 0;  // its world position when it was planted
  double far = 0;                   // its largest distance from there so far
  bool first_done = false;          // the first (partial) stretch is over
  Slide s;
  for (int tick = 0; tick <= ticks; ++tick) {
    (void)a.advance(tick);
    a.evaluate(tick);
    const Vec3 d = root_motion_translation(a.take_root_motion());
    px += d.x;
    pz += d.z;
    const Mat4& l = a.globals()[static_cast<size_t>(lf)];
    const Mat4& r = a.globals()[static_cast<size_t>(rf)];
    const int low = l.m[13] <= r.m[13] ? lf : rf;
    const Mat4& g = low == lf ? l : r;
    const double wx = px + g.m[12], wz = pz + g.m[14];
    if (low != planted) {
      // A step ends: the previous foot lifts (the first stretch, which may have started
      // mid-step, is not counted).
      if (planted >= 0 && first_done) {
        s.worst = std::max(s.worst, far);
        ++s.steps;
      }
      first_done = planted >= 0;
      planted = low;
      start_x = wx;
      start_z = wz;
      far = 0;
    } else {
      far = std::max(far,
                     std::sqrt((wx - start_x) * (wx - start_x) + (wz - start_z) * (wz - start_z)));
    }
  }
  s.travelled = std::sqrt(px * px + pz * pz);

  return s;
}

TEST(RootMotionFox, PlantedHindFootSlidesLessThanStatedPerStep) {
  const Fox fox = import_fox();
  const Rig& rig = fox.rig();
  const Skeleton& s = rig.skeleton();
  const int hip = s.find_joint("b_Hip_01");
  const int lf = s.find_joint("b_LeftFoot02_018");
  const int rf = s.find_joint("b_RightFoot02_022");
  ASSERT_GE(hip, 0);
  ASSERT_GE(lf, 0);
  ASSERT_GE(rf, 0);
  RootMotionConfig config;
  config.policy = RootMotionPolicy::kAccumulate;
  config.joint = hip;
  const Clip& walk = rig.clips()[*rig.find_clip("Walk")];

  // The hind toes are the lowest points of the walking fox (of the joints from the hips
  // down) on every tick of a pass.
  {
    Animator a = std::move(*Animator::create(&rig, 60));
    ASSERT_TRUE(a.play("Walk", 0));
    for (int tick = 0; tick < 43; ++tick) {
      a.evaluate(tick);
      int lowest = hip;
      for (int j = hip; j < s.joint_count(); ++j) {
        if (a.globals()[static_cast<size_t>(j)].m[13] <
            a.globals()[static_cast<size_t>(lowest)].m[13]) {
          lowest = j;
        }
      }
      EXPECT_TRUE(lowest == lf || lowest == rf) << tick << ": " << s.joints()[lowest].name;
    }
  }

  // The hips alone: a treadmill clip, they sway about 1.2 cm and come back each loop, so
  // the hips-only track travels nothing and the planted foot slides a whole stride.
  const std::vector<RootMotionSample> hips = *bake_root_motion(s, walk, config);
  ASSERT_EQ(hips.size(), 43u);  // 0.70833 s (f32 just under 42.5 ticks) at 60 a second: 42 steps
  EXPECT_EQ(hips.back(), RootMotionSample{});
  int32_t sway = 0;
  for (const RootMotionSample& h : hips) sway = std::max({sway, std::abs(h.x), std::abs(h.z)});
  EXPECT_GT(sway, kRootMotionUnitsPerMetre);      // over 1 object unit (cm) of sway
  EXPECT_LT(sway, 2 * kRootMotionUnitsPerMetre);  // under 2

  // From the hind toes: 63.7 cm forward (+z) a pass, 0.9 m/s.
  const int32_t feet[] = {lf, rf};
  const std::vector<RootMotionSample> track = *bake_root_motion(s, walk, config, feet);
  EXPECT_NEAR(track.back().z / double(kRootMotionUnitsPerMetre), 63.67, 0.01);
  EXPECT_LT(std::abs(track.back().x), kRootMotionUnitsPerMetre / 100);  // straight ahead
  EXPECT_EQ(track.back().y, 0);
  // Not monotonic: each hind toe touches down while still swinging forward, so while it
  // is the lower foot the character steps back (the track dips to -4.2 cm near sample 5
  // and by 2 cm at sample 29): the motion that keeps that foot where it is.
  int32_t dip = 0;
  for (const RootMotionSample& k : track) dip = std::min(dip, k.z);
  EXPECT_LT(dip, -4 * kRootMotionUnitsPerMetre);

  const auto tracks_for = [&](bool with_feet) {
    std::vector<std::vector<RootMotionSample>> out;
    for (const Clip& c : rig.clips()) {
      out.push_back(with_feet ? *bake_root_motion(s, c, config, feet)
                              : *bake_root_motion(s, c, config));
    }
    return out;
  };
  const std::vector<std::vector<RootMotionSample>> from_feet = tracks_for(true);
  const std::vector<std::vector<RootMotionSample>> from_hips = tracks_for(false);
  const std::vector<RootMotionTrack> feet_tracks(from_feet.begin(), from_feet.end());
  const std::vector<RootMotionTrack> hips_tracks(from_hips.begin(), from_hips.end());

  // 10 s of walking (14 passes, 28 steps measured): measured worst 0.872 cm per step.
  const Slide slide = walk_and_measure(rig, config, feet_tracks, 600, lf, rf);
  EXPECT_GE(slide.steps, 28);
  EXPECT_LT(slide.worst, 1.0) << "cm per step";
  // It travelled the track's value at the end: 14 whole passes and 0.118 of one.
  const double passes = 600.0 / 60.0 / static_cast<double>(walk.duration());
  const double at = (passes - std::floor(passes)) * 42.0;
  const size_t k = static_cast<size_t>(at);
  const double part = track[k].z + (track[k + 1].z - track[k].z) * (at - static_cast<double>(k));
  EXPECT_NEAR(slide.travelled,
              (std::floor(passes) * track.back().z + part) / kRootMotionUnitsPerMetre, 0.01);
  // The hips-only track: no travel, and the planted foot slides back a stride (37.7 cm).
  const Slide treadmill = walk_and_measure(rig, config, hips_tracks, 600, lf, rf);
  EXPECT_LT(treadmill.travelled, 2.0);
  EXPECT_GT(treadmill.worst, 30.0);
}

}  // namespace
}  // namespace animpack
