// Pack format 4: mesh axes, root motion (config and per-clip tracks) and IK solvers
// round-trip through the writer and Pack::open; every field is checked before use; packs
// of versions 1 to 3 open with no root motion, no IK and glTF's axes.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "motion_fixture.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
using motion_fixture::kAdditiveClip;
using motion_fixture::kWalkClip;

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(Vec3 a, Vec3 b) {
  return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z);
}

void expect_same_solver(const IkSolverDef& a, const IkSolverDef& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.kind, b.kind) << a.name;
  EXPECT_EQ(a.joints, b.joints) << a.name;
  EXPECT_TRUE(same_bits(a.weight, b.weight)) << a.name;
  EXPECT_EQ(a.has_target, b.has_target) << a.name;
  if (a.has_target && b.has_target) {
    EXPECT_TRUE(same_bits(a.target, b.target)) << a.name;
  }
  EXPECT_EQ(a.has_pole, b.has_pole) << a.name;
  if (a.has_pole && b.has_pole) {
    EXPECT_TRUE(same_bits(a.pole, b.pole)) << a.name;
  }
  EXPECT_TRUE(same_bits(a.soften, b.soften)) << a.name;
  EXPECT_TRUE(same_bits(a.twist, b.twist)) << a.name;
  EXPECT_TRUE(same_bits(a.forward, b.forward)) << a.name;
  EXPECT_TRUE(same_bits(a.up, b.up)) << a.name;
  EXPECT_TRUE(same_bits(a.max_angle, b.max_angle)) << a.name;
  EXPECT_EQ(a.iterations, b.iterations) << a.name;
  EXPECT_EQ(a.hips, b.hips) << a.name;
}

TEST(PackRootMotion, RoundTripsEveryField) {
  CookedPack cooked = motion_fixture::make_cooked();
  // Non-default values in every solver field, -0.0 included (it equals the default 0).
  IkSolverDef& arm = cooked.objects[0].animation.ik[0];
  arm.soften = 0.75f;
  arm.twist = -0.0f;
  arm.weight = 0.25f;
  arm.has_target = true;
  arm.target = {1.0f, 2.5f, -0.0f};
  IkSolverDef& look = cooked.objects[0].animation.ik[1];
  look.max_angle = 1.25f;
  look.has_pole = true;
  look.pole = {0, 0, -1};
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->format_version(), kPackFormatVersion);
  ASSERT_EQ(pack->meshes().size(), 1u);
  EXPECT_TRUE(same_bits(pack->meshes()[0].up, Vec3{0, 1, 0}));
  EXPECT_TRUE(same_bits(pack->meshes()[0].forward, Vec3{0, 0, 1}));

  const ObjectAnimationInfo& walker = pack->objects()[motion_fixture::kWalker].animation;
  const CookedAnimation& want = cooked.objects[0].animation;
  ASSERT_TRUE(walker.root_motion.has_value());
  EXPECT_EQ(walker.root_motion->policy, RootMotionPolicy::kAccumulate);
  EXPECT_EQ(walker.root_motion->joint, 0);
  EXPECT_EQ(walker.root_motion->extract, kExtractHorizontal | kExtractYaw);
  EXPECT_EQ(walker.root_motion->rate, 60);
  EXPECT_TRUE(same_bits(walker.root_motion->up, pack->meshes()[0].up));
  EXPECT_TRUE(same_bits(walker.root_motion->forward, pack->meshes()[0].forward));
  ASSERT_EQ(walker.root_tracks.size(), want.root_tracks.size());
  ASSERT_EQ(walker.root_tracks.size(), 6u);
  for (size_t c = 0; c < want.root_tracks.size(); ++c) {
    ASSERT_EQ(walker.root_tracks[c].samples.size(), want.root_tracks[c].size()) << c;
    for (size_t k = 0; k < want.root_tracks[c].size(); ++k)
      ASSERT_EQ(walker.root_tracks[c].samples[k], want.root_tracks[c][k]) << c << " " << k;
  }
  EXPECT_TRUE(walker.root_tracks[kAdditiveClip].samples.empty());
  EXPECT_EQ(walker.root_tracks[kWalkClip].samples.size(), 61u) << "1 s at 60 samples a second";
  EXPECT_NE(walker.root_tracks[kWalkClip].samples.back().z, 0) << "the walk moves along +z";
  ASSERT_EQ(walker.ik.size(), 2u);
  for (size_t i = 0; i < 2; ++i) expect_same_solver(walker.ik[i], want.ik[i]);

  const ObjectAnimationInfo& stander = pack->objects()[motion_fixture::kStander].animation;
  ASSERT_TRUE(stander.root_motion.has_value());
  EXPECT_EQ(stander.root_motion->policy, RootMotionPolicy::kInPlace);
  EXPECT_TRUE(stander.root_tracks.empty());
  EXPECT_TRUE(stander.ik.empty());
  const ObjectAnimationInfo& plain = pack->objects()[motion_fixture::kPlain].animation;
  EXPECT_FALSE(plain.root_motion.has_value());
  EXPECT_TRUE(plain.root_tracks.empty());
  EXPECT_TRUE(plain.ik.empty());
}

TEST(PackRootMotion, TheMeshAxesRoundTripAndPolicyOffIsWrittenAsNone) {
  CookedPack cooked = motion_fixture::make_cooked();
  // Z up, -Y forward (a Blender export kept as it was), and the stander's policy off.
  cooked.meshes[0].up = {0, 0, 1};
  cooked.meshes[0].forward = {0, -1, 0};
  cooked.objects[0].animation.root_motion->policy = RootMotionPolicy::kInPlace;
  cooked.objects[0].animation.root_tracks.clear();
  cooked.objects[1].animation.root_motion->policy = RootMotionPolicy::kOff;
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_TRUE(same_bits(pack->meshes()[0].up, Vec3{0, 0, 1}));
  EXPECT_TRUE(same_bits(pack->meshes()[0].forward, Vec3{0, -1, 0}));
  EXPECT_TRUE(same_bits(pack->objects()[0].animation.root_motion->up, Vec3{0, 0, 1}));
  EXPECT_FALSE(pack->objects()[1].animation.root_motion.has_value());
}

TEST(PackRootMotion, TheSameContentGivesTheSameBytes) {
  EXPECT_EQ(write_pack(motion_fixture::make_cooked()), write_pack(motion_fixture::make_cooked()));
}

// The committed packs of versions 1 to 3, written before root motion and IK existed, open
// with none and with glTF's axes.
TEST(PackRootMotion, OlderPacksReportNoRootMotionAndNoIk) {
  for (const char* name : {"fixture_v1.anpk", "scene_player_v1.anpk", "textured_v2.anpk",
                           "graph_v3.anpk", "character_v3.anpk"}) {
    const fs::path path = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs" / name;
    auto pack = Pack::open(path.string());
    ASSERT_TRUE(pack) << name << ": " << pack.error().message();
    EXPECT_LT(pack->format_version(), 4u) << name;
    for (const MeshInfo& m : pack->meshes()) {
      EXPECT_TRUE(same_bits(m.up, Vec3{0, 1, 0})) << name << " " << m.name;
      EXPECT_TRUE(same_bits(m.forward, Vec3{0, 0, 1})) << name << " " << m.name;
    }
    for (const ObjectInfo& o : pack->objects()) {
      EXPECT_FALSE(o.animation.root_motion.has_value()) << name << " " << o.name;
      EXPECT_TRUE(o.animation.root_tracks.empty()) << name << " " << o.name;
      EXPECT_TRUE(o.animation.ik.empty()) << name << " " << o.name;
    }
  }
}

// Each change makes one check fail; the message names the object (or mesh) and the field.
TEST(PackRootMotion, RefusesEveryBadField) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  struct Case {
    const char* name;
    void (*spoil)(CookedPack&);
    const char* says;
  };
  const Case cases[] = {
      {"policy",
       [](CookedPack& p) {
         p.objects[0].animation.root_motion->policy = static_cast<RootMotionPolicy>(3);
       },
       "object 0 root motion: bad policy 3"},
      {"no extract bits", [](CookedPack& p) { p.objects[0].animation.root_motion->extract = 0; },
       "bad extract bits 0x0"},
      {"unknown extract bit",
       [](CookedPack& p) { p.objects[0].animation.root_motion->extract = 9; },
       "bad extract bits 0x9"},
      {"rate 0", [](CookedPack& p) { p.objects[0].animation.root_motion->rate = 0; }, "rate 0"},
      {"rate above the limit",
       [](CookedPack& p) { p.objects[0].animation.root_motion->rate = kMaxRootMotionRate + 1; },
       "rate 1001"},
      {"joint past the rig", [](CookedPack& p) { p.objects[0].animation.root_motion->joint = 4; },
       "joint 4 of 4"},
      {"negative joint", [](CookedPack& p) { p.objects[0].animation.root_motion->joint = -1; },
       "joint -1 of 4"},
      {"a track short", [](CookedPack& p) { p.objects[0].animation.root_tracks.pop_back(); },
       "5 tracks for 6 clips (accumulate: one per clip)"},
      {"a track too many", [](CookedPack& p) { p.objects[0].animation.root_tracks.emplace_back(); },
       "7 tracks for 6 clips"},
      {"tracks for in_place",
       [](CookedPack& p) {
         p.objects[1].animation.root_tracks = p.objects[0].animation.root_tracks;
       },
       "object 1 root motion: 6 tracks for 6 clips (in_place: none)"},
      {"a track of the wrong length",
       [](CookedPack& p) { p.objects[0].animation.root_tracks[kWalkClip].pop_back(); },
       "object 0 root motion track 4"},
      {"a track sampled at another rate",
       [](CookedPack& p) { p.objects[0].animation.root_motion->rate = 30; },
       "object 0 root motion track 0"},
      {"sample 0 not zero",
       [](CookedPack& p) { p.objects[0].animation.root_tracks[kWalkClip][0].x = 5; },
       "object 0 root motion track 4"},
      {"an additive clip's track",
       [](CookedPack& p) {
         p.objects[0].animation.root_tracks[kAdditiveClip] = p.objects[0].animation.root_tracks[3];
       },
       "track 5: clip 'Rotate' is additive"},
      {"up not unit",
       [](CookedPack& p) {
         p.meshes[0].up = {0, 2, 0};
       },
       "mesh 0: the up or forward axis is not finite and unit"},
      {"forward NaN",
       [](CookedPack& p) {
         p.meshes[0].forward = {kNaN, 0, 1};
       },
       "mesh 0: the up or forward axis"},
      {"axes not perpendicular",
       [](CookedPack& p) {
         p.meshes[0].forward = {0, 0.6f, 0.8f};
       },
       "mesh 0: the up and forward axes are not perpendicular"},
      {"root motion without a rig",
       [](CookedPack& p) {
         p.objects[0].mesh = -1;
         p.objects[0].animation.clip = -1;
       },
       "object 0: root motion on an object without a rig"},
      {"IK without a rig",
       [](CookedPack& p) {
         p.objects[0].animation.root_motion.reset();
         p.objects[0].animation.root_tracks.clear();
         p.objects[0].mesh = -1;
         p.objects[0].animation.clip = -1;
       },
       "object 0: IK on an object without a rig"},
      {"too many solvers",
       [](CookedPack& p) {
         std::vector<IkSolverDef>& ik = p.objects[0].animation.ik;
         while (ik.size() <= static_cast<size_t>(kMaxIkSolvers)) {
           ik.push_back(ik[1]);
           ik.back().name = "look" + std::to_string(ik.size());
         }
       },
       "object 0: 17 IK solvers, at most 16"},
      {"solver kind",
       [](CookedPack& p) { p.objects[0].animation.ik[1].kind = static_cast<IkKind>(4); },
       "object 0 IK solver 1: bad kind 4"},
      {"joint past the rig", [](CookedPack& p) { p.objects[0].animation.ik[0].joints[2] = 9; },
       "object 0 IK solver 0: joint 9 of 4"},
      {"no joints", [](CookedPack& p) { p.objects[0].animation.ik[1].joints.clear(); },
       "object 0 IK solver 1: 0 joints"},
      {"too many joints",
       [](CookedPack& p) {
         p.objects[0].animation.ik[0].joints.assign(static_cast<size_t>(kMaxChainJoints) + 1, 1);
       },
       "object 0 IK solver 0: 33 joints"},
      {"NaN weight", [](CookedPack& p) { p.objects[0].animation.ik[0].weight = kNaN; },
       "object 0 IK solver 0: a number is not finite"},
      {"infinite target", [](CookedPack& p) { p.objects[0].animation.ik[1].target.y = kInf; },
       "object 0 IK solver 1: a number is not finite"},
      {"NaN pole", [](CookedPack& p) { p.objects[0].animation.ik[0].pole.z = kNaN; },
       "object 0 IK solver 0: a number is not finite"},
      {"NaN aim axis", [](CookedPack& p) { p.objects[0].animation.ik[1].forward.x = kNaN; },
       "object 0 IK solver 1: a number is not finite"},
      {"no iterations", [](CookedPack& p) { p.objects[0].animation.ik[0].iterations = 0; },
       "object 0 IK solver 0: 0 iterations"},
      {"too many iterations",
       [](CookedPack& p) { p.objects[0].animation.ik[0].iterations = kMaxIkIterations + 1; },
       "65 iterations"},
      {"hips past the rig", [](CookedPack& p) { p.objects[0].animation.ik[0].hips = 7; },
       "object 0 IK solver 0: hips joint 7 of 4"},
      {"name not UTF-8", [](CookedPack& p) { p.objects[0].animation.ik[1].name = "lo\xffok"; },
       "object 0 IK solver 1: the name is not UTF-8"},
      // What is in range but wrong is IkSet::create's (kBadIk), refused as kBadPack.
      {"two solvers of one name", [](CookedPack& p) { p.objects[0].animation.ik[1].name = "arm"; },
       "object 0 IK: ik solver 1 'arm' (aim): the name is used twice"},
      {"joints not a chain",
       [](CookedPack& p) {
         p.objects[0].animation.ik[0].joints = {1, 3, 2};
       },
       "object 0 IK: ik solver 0 'arm' (two_bone): the joints are not a chain"},
      {"two bones of two joints",
       [](CookedPack& p) {
         p.objects[0].animation.ik[0].joints = {1, 2};
       },
       "object 0 IK: ik solver 0 'arm' (two_bone): needs 3 joints"},
      {"weight above 1", [](CookedPack& p) { p.objects[0].animation.ik[1].weight = 1.5f; },
       "object 0 IK: ik solver 1 'look' (aim): weight not in [0, 1]"},
      {"soften 0", [](CookedPack& p) { p.objects[0].animation.ik[0].soften = 0.0f; },
       "object 0 IK: ik solver 0 'arm' (two_bone): soften"},
      {"aim forward not unit",
       [](CookedPack& p) {
         p.objects[0].animation.ik[1].forward = {0, 2, 0};
       },
       "object 0 IK: ik solver 1 'look' (aim): forward is not a unit"},
      {"a zero-length bone",
       [](CookedPack& p) {
         // The column's bone2 at its parent's origin: bone1 of length 0.
         std::vector<Joint> joints(p.rigs[0].rig.skeleton().joints().begin(),
                                   p.rigs[0].rig.skeleton().joints().end());
         joints[2].rest.translation = {0, 0, 0};
         std::vector<Mat4> binds(p.rigs[0].rig.skeleton().inverse_binds().begin(),
                                 p.rigs[0].rig.skeleton().inverse_binds().end());
         Skeleton s = *Skeleton::create(std::move(joints), std::move(binds), Mat4{});
         std::vector<Clip> clips;
         for (const Clip& c : p.rigs[0].rig.clips()) clips.push_back(c.copy());
         p.rigs[0].rig = *Rig::create(std::move(s), std::move(clips));
         p.objects[0].animation.root_motion.reset();
         p.objects[0].animation.root_tracks.clear();
       },
       "object 0 IK: ik solver 0 'arm' (two_bone): a bone has zero length"},
  };
  for (const Case& c : cases) {
    CookedPack cooked = motion_fixture::make_cooked();
    c.spoil(cooked);
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_FALSE(pack) << c.name;
    EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack) << c.name;
    const std::string message = pack.error().message();
    EXPECT_NE(message.find(c.says), std::string::npos) << c.name << ": " << message;
  }
}

TEST(PackRootMotion, RefusesRootMotionAndIkOnASpriteObject) {
  for (bool ik : {false, true}) {
    CookedPack cooked = motion_fixture::make_cooked();
    CookedSheet sheet;
    sheet.source_file = "hero.png";
    std::vector<SpriteClip> clips;
    clips.push_back(*SpriteClip::create("run", {0, 1}, 12.0f, Playback::kLoop));
    sheet.sheet = *SpriteSheet::create(*Atlas::grid({32, 16}, {16, 16}, 2), std::move(clips));
    sheet.rgba.assign(32 * 16 * 4, 200);
    cooked.sheets.push_back(std::move(sheet));
    CookedObject& sprite = cooked.objects[2];
    sprite.mesh = -1;
    sprite.animation.clip = 0;
    sprite.animation.sprite_sheet = 0;
    if (ik) {
      sprite.animation.ik = cooked.objects[0].animation.ik;
    } else {
      sprite.animation.root_motion = cooked.objects[1].animation.root_motion;
    }
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_FALSE(pack) << ik;
    EXPECT_NE(
        std::string(pack.error().message())
            .find(ik ? "object 2: IK on a sprite object" : "object 2: root motion on a sprite"),
        std::string::npos)
        << pack.error().message();
  }
}

}  // namespace
}  // namespace animpack
