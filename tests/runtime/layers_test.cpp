// Joint masks (make_joint_mask), additive clips (make_additive_clip) and the Rig's
// ordinary and additive clips of one name. The character is tests/runtime/layer_rig.h.
#include "animpack/layers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "layer_rig.h"

namespace animpack {
namespace {

using layer_rig::kSpine;

Quat conj(Quat q) { return {-q.x, -q.y, -q.z, q.w}; }

const Clip& ordinary(const Rig& rig, const char* name) { return rig.clips()[*rig.find_clip(name)]; }

TEST(Layers, MaskCoversSubtreesAndLaterEntriesOverride) {
  const Skeleton s = layer_rig::make_skeleton();
  const MaskEntry entries[] = {
      {"Spine2"}, {"Neck", 0.5f}, {"Hips", 0.25f, /*subtree=*/false}, {"LArm", 0.0f}};
  const Result<std::vector<float>> mask = make_joint_mask(s, entries);
  ASSERT_TRUE(mask) << mask.error().message();
  ASSERT_EQ(mask->size(), 9u);
  const std::vector<float> want = {0.25f, 0.0f, 1.0f, 0.5f, 0.5f, 0.0f, 1.0f, 0.0f, 0.0f};
  for (size_t j = 0; j < want.size(); ++j) EXPECT_EQ((*mask)[j], want[j]) << "joint " << j;
  // No entries: every joint weighs 0; the root's subtree is every joint.
  EXPECT_EQ(*make_joint_mask(s, {}), std::vector<float>(9, 0.0f));
  const MaskEntry all[] = {{"Hips", 0.75f}};
  EXPECT_EQ(*make_joint_mask(s, all), std::vector<float>(9, 0.75f));
}

TEST(Layers, MaskRefusesUnknownJointAndBadWeight) {
  const Skeleton s = layer_rig::make_skeleton();
  {
    const MaskEntry e[] = {{"Spine2"}, {"Nekc"}};
    const auto r = make_joint_mask(s, e);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(r.error().message()).find("'Nekc'"), std::string::npos);
  }
  for (float w : {-0.01f, 1.01f, std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::infinity()}) {
    const MaskEntry e[] = {{"Neck", w}};
    const auto r = make_joint_mask(s, e);
    ASSERT_FALSE(r) << w;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  }
}

TEST(Layers, AdditiveClipOfTheReferencePoseHasNoChannels) {
  const Rig rig = layer_rig::make_rig();
  const Clip& still = ordinary(rig, "Still");
  const Result<Clip> rest = make_additive_clip(still, rig.skeleton(), AdditiveReference::kRestPose);
  ASSERT_TRUE(rest) << rest.error().message();
  EXPECT_TRUE(rest->channels().empty());
  EXPECT_EQ(rest->duration(), still.duration());  // the clock and events stay
  ASSERT_EQ(rest->events().size(), 1u);
  EXPECT_EQ(rest->events()[0].name, "still");
  EXPECT_EQ(rest->additive(), AdditiveReference::kRestPose);
  EXPECT_EQ(rest->name(), "Still");
  // Against its own first frame, a clip of equal keys adds nothing either.
  const Clip& turn = ordinary(rig, "Turn");
  EXPECT_TRUE(
      make_additive_clip(turn, rig.skeleton(), AdditiveReference::kFirstFrame)->channels().empty());
  // A clip that moves keeps every moving channel.
  const Clip& breathe = ordinary(rig, "Breathe");
  EXPECT_EQ(make_additive_clip(breathe, rig.skeleton(), AdditiveReference::kFirstFrame)
                ->channels()
                .size(),
            breathe.channels().size());
}

TEST(Layers, AdditiveKeysAreDifferencesFromTheReference) {
  const Rig rig = layer_rig::make_rig();
  const Clip& breathe = ordinary(rig, "Breathe");
  const Clip add =
      std::move(*make_additive_clip(breathe, rig.skeleton(), AdditiveReference::kRestPose));
  ASSERT_EQ(add.channels().size(), 3u);
  // Spine rotation: conj(rest) * key, normalised.
  const Quat rest = rig.skeleton().rest_pose()[kSpine].rotation;
  for (size_t k = 0; k < 3; ++k) {
    const float* v = breathe.channels()[0].values.data() + 4 * k;
    const Quat want = normalize(conj(rest) * Quat{v[0], v[1], v[2], v[3]});
    const float* got = add.channels()[0].values.data() + 4 * k;
    EXPECT_EQ(got[0], want.x);
    EXPECT_EQ(got[3], want.w);
  }
  // Spine2 translation: key - rest (0, 0.2, 0).
  EXPECT_EQ(add.channels()[1].values[4], 0.3f - 0.2f);
  EXPECT_EQ(add.channels()[1].values[5], 0.05f);
  // Head scale: key - rest (1, 1, 1), so a difference of 0 at the ends.
  EXPECT_EQ(add.channels()[2].values[0], 0.0f);
  EXPECT_EQ(add.channels()[2].values[4], 1.2f - 1.0f);
  EXPECT_EQ(add.channels()[0].times.data() == add.channels()[1].times.data(), true);
}

TEST(Layers, AdditiveClipRefusesNoReferenceAndAnAdditiveSource) {
  const Rig rig = layer_rig::make_rig();
  const Clip& breathe = ordinary(rig, "Breathe");
  const auto none = make_additive_clip(breathe, rig.skeleton(), AdditiveReference::kNone);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), ErrorCode::kInvalidArgument);
  const Clip& additive = rig.clips()[*rig.find_clip("Breathe", AdditiveReference::kFirstFrame)];
  const auto twice = make_additive_clip(additive, rig.skeleton(), AdditiveReference::kRestPose);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().code(), ErrorCode::kBadClip);
  Clip bad("Bad");
  bad.add_channel(20, Property::kTranslation, Interpolation::kLinear, std::vector<float>{0},
                  std::vector<float>{0, 0, 0});
  const auto invalid = make_additive_clip(bad, rig.skeleton(), AdditiveReference::kFirstFrame);
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().code(), ErrorCode::kBadClip);
}

TEST(Layers, RigFindsOrdinaryAndAdditiveClipsOfOneName) {
  const Rig rig = layer_rig::make_rig();
  const uint16_t plain = *rig.find_clip("Breathe");
  const uint16_t add = *rig.find_clip("Breathe", AdditiveReference::kFirstFrame);
  EXPECT_NE(plain, add);
  EXPECT_EQ(rig.clips()[plain].additive(), AdditiveReference::kNone);
  EXPECT_EQ(rig.clips()[add].additive(), AdditiveReference::kFirstFrame);
  EXPECT_EQ(*rig.find_clip("Breathe", AdditiveReference::kNone), plain);
  const auto missing = rig.find_clip("Breathe", AdditiveReference::kRestPose);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kUnknownClip);
  EXPECT_STREQ(additive_reference_name(AdditiveReference::kRestPose), "rest_pose");
  EXPECT_STREQ(additive_reference_name(AdditiveReference::kFirstFrame), "first_frame");
  EXPECT_STREQ(additive_reference_name(AdditiveReference::kNone), "none");
}

TEST(Layers, RigRefusesTwoClipsOfOneNameAndOneAdditiveReference) {
  const auto make = [&](AdditiveReference a, AdditiveReference b) {
    std::vector<Clip> clips;
    for (AdditiveReference r : {a, b}) {
      Clip c("Same");
      c.add_channel(0, Property::kTranslation, Interpolation::kLinear, std::vector<float>{0, 1},
                    std::vector<float>{0, 0, 0, 1, 0, 0});
      c.set_additive(r);
      clips.push_back(std::move(c));
    }
    return Rig::create(layer_rig::make_skeleton(), std::move(clips));
  };
  EXPECT_TRUE(make(AdditiveReference::kNone, AdditiveReference::kRestPose));
  EXPECT_TRUE(make(AdditiveReference::kFirstFrame, AdditiveReference::kRestPose));
  for (AdditiveReference r :
       {AdditiveReference::kNone, AdditiveReference::kFirstFrame, AdditiveReference::kRestPose}) {
    const auto twice = make(r, r);
    ASSERT_FALSE(twice);
    EXPECT_EQ(twice.error().code(), ErrorCode::kBadClip);
  }
}

}  // namespace
}  // namespace animpack
