// Joint masks (make_joint_mask), additive clips (make_additive_clip) and the Rig's
// ordinary and additive clips of one name, and blend_poses. The character is
// tests/runtime/layer_rig.h.
#include "animpack/layers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "animpack/animator.h"
#include "animpack/math.h"
#include "animpack/rig.h"
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
  // Keys equal to a first frame that is not of unit length add nothing either.
  Clip uneven("Uneven");
  uneven.add_channel(
      kSpine, Property::kRotation, Interpolation::kLinear, std::vector<float>{0, 0.5f, 1},
      std::vector<float>{0.1f, 0.2f, 0.3f, 0.9f, 0.1f, 0.2f, 0.3f, 0.9f, 0.1f, 0.2f, 0.3f, 0.9f});
  EXPECT_TRUE(make_additive_clip(uneven, rig.skeleton(), AdditiveReference::kFirstFrame)
                  ->channels()
                  .empty());
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

// blend_poses (four joints per SIMD register) against the scalar definition joint by
// joint: lerp, nlerp (math.h), lerp for 0 < w < 1; b for w >= 1; a for w <= 0.
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

void expect_same_bits(const Trs& got, const Trs& want, size_t joint, float w) {
  const float g[10] = {got.translation.x, got.translation.y, got.translation.z, got.rotation.x,
                       got.rotation.y,    got.rotation.z,    got.rotation.w,    got.scale.x,
                       got.scale.y,       got.scale.z};
  const float e[10] = {want.translation.x, want.translation.y, want.translation.z, want.rotation.x,
                       want.rotation.y,    want.rotation.z,    want.rotation.w,    want.scale.x,
                       want.scale.y,       want.scale.z};
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(bits_of(g[i]), bits_of(e[i]))
        << "joint " << joint << " float " << i << " w " << w << ": " << g[i] << " vs " << e[i];
  }
}

TEST(PoseBlend, BlendPosesMatchesScalarLerpNlerpBitForBit) {
  std::mt19937 rng(0x5eb1e7du);
  std::uniform_real_distribution<float> wide(-100.0f, 100.0f), unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> kind(0, 7);
  auto random_quat = [&]() {
    Quat q{unit(rng), unit(rng), unit(rng), unit(rng)};
    if (kind(rng) < 6) q = normalize(q);  // mostly unit, some not
    return q;
  };
  const float fixed_weights[] = {0.0f,   1.0f,  0.5f, 0.25f, 1e-7f, 0.99999994f,
                                 1e-30f, -0.5f, 2.0f, 0.75f, 0.1f,  0.3333333f};
  size_t zero_length = 0, flipped = 0;
  for (size_t n :
       {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{5}, size_t{7}, size_t{8},
        size_t{13}, size_t{31}, size_t{32}, size_t{33}, size_t{64}, size_t{67}, size_t{100}}) {
    for (int round = 0; round < 16; ++round) {
      std::vector<Trs> a(n), b(n);
      for (size_t j = 0; j < n; ++j) {
        a[j].translation = {wide(rng), wide(rng), wide(rng)};
        b[j].translation = {wide(rng), wide(rng), wide(rng)};
        a[j].scale = {wide(rng), wide(rng), wide(rng)};
        b[j].scale = {wide(rng), wide(rng), wide(rng)};
        a[j].rotation = random_quat();
        switch (kind(rng)) {
          case 0:  // opposite: a zero-length mix at w 0.5
            b[j].rotation = {-a[j].rotation.x, -a[j].rotation.y, -a[j].rotation.z,
                             -a[j].rotation.w};
            break;
          case 1:  // both zero
            a[j].rotation = {0.0f, 0.0f, 0.0f, 0.0f};
            b[j].rotation = {0.0f, 0.0f, 0.0f, 0.0f};
            break;
          case 2:  // the same
            b[j].rotation = a[j].rotation;
            break;
          default:
            b[j].rotation = random_quat();
            break;
        }
      }
      const float w = round < 12 ? fixed_weights[round]
                                 : std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
      std::vector<Trs> want = a;
      for (size_t j = 0; j < n; ++j) {
        if (w >= 1.0f) {
          want[j] = b[j];
        } else if (w > 0.0f) {
          want[j].translation = lerp(a[j].translation, b[j].translation, w);
          want[j].rotation = nlerp(a[j].rotation, b[j].rotation, w);
          want[j].scale = lerp(a[j].scale, b[j].scale, w);
          const Quat& q = want[j].rotation;
          if (q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 1.0f) ++zero_length;
          if (dot(a[j].rotation, b[j].rotation) < 0.0f) ++flipped;
        }
      }
      std::vector<Trs> got = a;
      blend_poses(got, b, w);
      for (size_t j = 0; j < n; ++j) expect_same_bits(got[j], want[j], j, w);
      // Into a third pose, and into b itself: the same bits, and a and b left alone.
      const std::vector<Trs> a0 = a, b0 = b;
      std::vector<Trs> apart(n);
      ASSERT_TRUE(blend_poses(a, b, w, apart));
      for (size_t j = 0; j < n; ++j) expect_same_bits(apart[j], want[j], j, w);
      for (size_t j = 0; j < n; ++j) expect_same_bits(a[j], a0[j], j, w);
      for (size_t j = 0; j < n; ++j) expect_same_bits(b[j], b0[j], j, w);
      std::vector<Trs> into_b = b;
      ASSERT_TRUE(blend_poses(a, into_b, w, into_b));
      for (size_t j = 0; j < n; ++j) expect_same_bits(into_b[j], want[j], j, w);
    }
  }
  // The edge cases were reached: identities from zero-length mixes, the shorter way.
  EXPECT_GT(zero_length, 20u);
  EXPECT_GT(flipped, 100u);
}

TEST(PoseBlend, BlendPosesUsesTheShorterPoseAndLeavesTheRestAlone) {
  std::vector<Trs> a(6), b(5);
  for (size_t j = 0; j < b.size(); ++j) {
    b[j].translation = {1.0f, 2.0f, static_cast<float>(j)};
    b[j].rotation = normalize(Quat{0.0f, 1.0f, 0.0f, 1.0f});
  }
  a[5].translation = {7.0f, 7.0f, 7.0f};
  blend_poses(a, b, 0.5f);
  for (size_t j = 0; j < b.size(); ++j) {
    EXPECT_EQ(a[j].translation.x, 0.5f) << j;
    EXPECT_EQ(a[j].translation.z, 0.5f * static_cast<float>(j)) << j;
  }
  EXPECT_EQ(a[5].translation.x, 7.0f);  // past b's end: untouched
  EXPECT_EQ(a[5].rotation.w, 1.0f);
}

TEST(PoseBlend, BlendPosesIntoAThirdPoseRefusesMismatchedSizesAndPartialOverlaps) {
  std::vector<Trs> a(8), b(8), out(8);
  for (size_t j = 0; j < 8; ++j) b[j].translation = {2.0f, 0.0f, 0.0f};
  const auto refused = [](const Result<void>& r) {
    return !r && r.error().code() == ErrorCode::kInvalidArgument;
  };
  std::vector<Trs> seven(7);
  EXPECT_TRUE(refused(blend_poses(a, b, 0.5f, seven)));
  EXPECT_TRUE(refused(blend_poses(std::span<const Trs>(a).first(7), b, 0.5f, seven)));
  // out shifted one joint along a: refused, and nothing written.
  std::vector<Trs> big(9);
  for (size_t j = 0; j < 9; ++j) big[j].translation = {static_cast<float>(j), 0.0f, 0.0f};
  const std::vector<Trs> before = big;
  const std::span<Trs> all(big);
  EXPECT_TRUE(refused(blend_poses(all.first(8), b, 0.5f, all.subspan(1))));
  EXPECT_TRUE(refused(blend_poses(a, all.first(8), 0.5f, all.subspan(1))));
  for (size_t j = 0; j < 9; ++j) EXPECT_EQ(big[j].translation.x, before[j].translation.x) << j;
  // The same pose as a or b, and empty poses, are fine.
  ASSERT_TRUE(blend_poses(a, b, 0.5f, out));
  EXPECT_EQ(out[3].translation.x, 1.0f);
  ASSERT_TRUE(blend_poses(out, b, 0.5f, out));
  EXPECT_EQ(out[3].translation.x, 1.5f);
  EXPECT_TRUE(blend_poses({}, {}, 0.5f, {}));
  // w >= 1 copies b and w <= 0 copies a, into out.
  ASSERT_TRUE(blend_poses(a, b, 1.0f, out));
  EXPECT_EQ(out[7].translation.x, 2.0f);
  ASSERT_TRUE(blend_poses(a, b, 0.0f, out));
  EXPECT_EQ(out[7].translation.x, 0.0f);
}

// A rig whose clips key every joint's translation, rotation and scale exactly once
// ("whole-pose" clips: the Animator samples a partial-weight layer of one into a
// scratch pose and mixes it with blend_poses, and skips the rest-pose copy under a
// full-weight one), and the same rig with one more joint that no clip keys (the
// channel-by-channel path). Random keys (fixed seed), LINEAR but for STEP translations
// in clip 2; rotations far apart, so some key pairs slerp the wide way.
Rig whole_pose_rig(int joints, bool extra_joint, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<Joint> js;
  for (int j = 0; j < joints; ++j) {
    js.push_back({"j" + std::to_string(j), static_cast<int16_t>(j == 0 ? -1 : (j - 1) / 2),
                  Trs{{unit(rng), unit(rng), unit(rng)},
                      normalize(Quat{unit(rng), unit(rng), unit(rng), unit(rng)}),
                      {1.0f, 1.0f, 1.0f}}});
  }
  // No random draws for it: both rigs get the same keys.
  if (extra_joint) js.push_back({"extra", 0, Trs{{0.0f, 1.0f, 0.0f}, {}, {1.0f, 1.0f, 1.0f}}});
  Skeleton skeleton = std::move(*Skeleton::create(std::move(js), {}, Mat4{}));
  std::vector<Clip> clips;
  for (int c = 0; c < 5; ++c) {
    Clip clip("c" + std::to_string(c));
    const std::vector<float> times = {0.0f, 0.3f, 0.7f, 1.1f + 0.1f * static_cast<float>(c)};
    for (int j = 0; j < joints; ++j) {
      std::vector<float> t3, r4, s3;
      for (size_t k = 0; k < times.size(); ++k) {
        const Quat q = normalize(Quat{unit(rng), unit(rng), unit(rng), unit(rng)});
        r4.insert(r4.end(), {q.x, q.y, q.z, q.w});
        for (int i = 0; i < 3; ++i) t3.push_back(unit(rng));
        for (int i = 0; i < 3; ++i) s3.push_back(1.0f + 0.5f * unit(rng));
      }
      const uint16_t joint = static_cast<uint16_t>(j);
      clip.add_channel(joint, Property::kTranslation,
                       c == 2 ? Interpolation::kStep : Interpolation::kLinear, times, t3);
      clip.add_channel(joint, Property::kRotation, Interpolation::kLinear, times, r4);
      clip.add_channel(joint, Property::kScale, Interpolation::kLinear, times, s3);
    }
    clips.push_back(std::move(clip));
  }
  return std::move(*Rig::create(std::move(skeleton), std::move(clips)));
}

TEST(PoseBlend, WholePoseLayersMixAsChannelByChannelBitForBit) {
  constexpr int kJoints = 11;  // not a multiple of 4: blend_poses' tail too
  const Rig whole = whole_pose_rig(kJoints, false, 0xb1e4du);
  const Rig partial = whole_pose_rig(kJoints, true, 0xb1e4du);
  Animator a = *Animator::create(&whole, 60);
  Animator b = *Animator::create(&partial, 60);
  for (Animator* x : {&a, &b}) {
    // A mix of clip 0 under clip 1 at 0.5, fading out under a mix of clip 2 under clip 3
    // at 0.25, and clip 4 over everything as a plain overlay at 0.4.
    ASSERT_TRUE(x->play(0, 0));
    ASSERT_TRUE(x->blend(1, 0.5f, 0));
    ASSERT_TRUE(x->crossfade(2, 1.0, 10));
    ASSERT_TRUE(x->blend(3, 0.25f, 10));
    LayerOptions overlay;
    overlay.weight = 0.4f;
    ASSERT_TRUE(x->add_overlay(4, overlay, 0));
  }
  size_t compared = 0;
  for (int64_t tick = 0; tick < 200; tick += 3) {
    a.evaluate(tick);
    b.evaluate(tick);
    ASSERT_EQ(a.locals().size(), static_cast<size_t>(kJoints));
    for (size_t j = 0; j < static_cast<size_t>(kJoints); ++j) {
      expect_same_bits(a.locals()[j], b.locals()[j], j, static_cast<float>(tick));
      ++compared;
    }
  }
  EXPECT_EQ(compared, 67u * kJoints);
  // The layers did mix: a pose of the fade is not clip 2's alone.
  Animator c = *Animator::create(&whole, 60);
  ASSERT_TRUE(c.play(2, 10));
  a.evaluate(40);
  c.evaluate(40);
  EXPECT_NE(bits_of(a.locals()[3].rotation.x), bits_of(c.locals()[3].rotation.x));
}

}  // namespace
}  // namespace animpack
