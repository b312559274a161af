// Morph targets in the runtime: weights channels sampled by each interpolation against
// hand-computed values, the Animator's weights through plays, blends, crossfades, masks,
// additive layers and overlays, the game's overrides and their errors, and apply_morph.
#include "animpack/morph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "animpack/animator.h"
#include "animpack/layers.h"
#include "fixtures/fixture.h"
#include "morph_rig.h"

namespace animpack {
namespace {

std::vector<float> weights_at(const Rig& rig, const char* clip, float t) {
  const Clip& c = rig.clips()[*rig.find_clip(clip)];
  const Channel& ch = c.channels()[0];
  EXPECT_EQ(ch.property, Property::kWeights);
  std::vector<float> out(ch.width);
  uint32_t cursor = 0;
  sample_weights(ch, t, &cursor, out);
  return out;
}

std::vector<float> flat(const Animator& a) {
  return {a.morph_weights().begin(), a.morph_weights().end()};
}

TEST(Morph, StepWeightsHoldEachKeyUntilTheNext) {
  const Rig rig = morph_rig::make_rig();
  EXPECT_EQ(weights_at(rig, "Blink", 0.0f), (std::vector<float>{0, 1, 0}));
  EXPECT_EQ(weights_at(rig, "Blink", 0.49f), (std::vector<float>{0, 1, 0}));
  EXPECT_EQ(weights_at(rig, "Blink", 0.5f), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(weights_at(rig, "Blink", 0.99f), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(weights_at(rig, "Blink", 1.0f), (std::vector<float>{0, 1, 0}));
}

TEST(Morph, LinearWeightsLerpEachWeight) {
  const Rig rig = morph_rig::make_rig();
  // (0, 0, 0) -> (1, 0.5, -0.5) over a second: a quarter of the way.
  EXPECT_EQ(weights_at(rig, "Smile", 0.25f), (std::vector<float>{0.25f, 0.125f, -0.125f}));
  EXPECT_EQ(weights_at(rig, "Smile", 0.5f), (std::vector<float>{0.5f, 0.25f, -0.25f}));
}

TEST(Morph, CubicSplineWeightsUseHermiteWithTangentsScaledByTheKeyInterval) {
  const Rig rig = morph_rig::make_rig();
  // Keys at 0 and 2 (td = 2), at u = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125.
  // bulge: p0 0, m0 = 2 * 1, p1 1, m1 = 2 * 2: 0.25 + 0.5 - 0.5.
  // blink: p0 0, m0 = 2 * 0, p1 2, m1 = 2 * 1: 1 - 0.25.
  const std::vector<float> w = weights_at(rig, "Puff", 1.0f);
  const double h10 = 0.125, h01 = 0.5, h11 = -0.125;
  EXPECT_FLOAT_EQ(w[0], static_cast<float>(h10 * 2.0 + h01 * 1.0 + h11 * 4.0));
  EXPECT_FLOAT_EQ(w[1], static_cast<float>(h01 * 2.0 + h11 * 2.0));
  EXPECT_FLOAT_EQ(w[0], 0.25f);
  EXPECT_FLOAT_EQ(w[1], 0.75f);
  // At the keys the values, no tangent.
  EXPECT_EQ(weights_at(rig, "Puff", 2.0f), (std::vector<float>{1, 2}));
  EXPECT_EQ(weights_at(rig, "Puff", 0.0f), (std::vector<float>{0, 0}));
}

TEST(Morph, WeightsHoldTheEndKeysOutsideTheClip) {
  const Rig rig = morph_rig::make_rig();
  EXPECT_EQ(weights_at(rig, "Smile", -1.0f), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(weights_at(rig, "Smile", 5.0f), (std::vector<float>{1, 0.5f, -0.5f}));
}

TEST(Morph, TheCursorHintGivesTheSameWeightsInAnyOrder) {
  const Rig rig = morph_rig::make_rig();
  const Channel& ch = rig.clips()[*rig.find_clip("Blink")].channels()[0];
  float a[3], b[3];
  uint32_t cursor = 2;  // a hint past t: repaired
  sample_weights(ch, 0.25f, &cursor, a);
  EXPECT_EQ(cursor, 0u);
  uint32_t fresh = 0;
  sample_weights(ch, 0.25f, &fresh, b);
  EXPECT_EQ(std::memcmp(a, b, sizeof a), 0);
  cursor = 0;
  sample_weights(ch, 0.75f, &cursor, a);
  EXPECT_EQ(cursor, 1u);
}

TEST(Morph, ValidateRefusesWeightsChannelsThatDoNotFitTheSets) {
  const uint16_t widths[] = {3, 2};
  const float t[] = {0.0f, 1.0f};
  const float w3[] = {0, 0, 0, 1, 1, 1};
  {
    Clip c("Twice");
    c.add_weights_channel(0, 3, Interpolation::kLinear, t, w3);
    c.add_weights_channel(0, 3, Interpolation::kStep, t, w3);
    const Result<void> r = c.validate(4, widths);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), ErrorCode::kBadClip);
    EXPECT_NE(std::string(r.error().message()).find("second weights channel"), std::string::npos)
        << r.error().message();
  }
  {
    Clip c("Wide");
    c.add_weights_channel(1, 3, Interpolation::kLinear, t, w3);  // set 1 has 2 targets
    EXPECT_FALSE(c.validate(4, widths));
  }
  {
    Clip c("NoSet");
    c.add_weights_channel(2, 3, Interpolation::kLinear, t, w3);
    EXPECT_FALSE(c.validate(4, widths));
    EXPECT_FALSE(c.validate(4));  // a rig without morph sets
  }
  {
    Clip c("Short");
    const float w[] = {0, 0, 0, 1, 1};
    c.add_weights_channel(0, 3, Interpolation::kLinear, t, w);
    EXPECT_FALSE(c.validate(4, widths));
  }
  {
    Clip c("Both");  // one channel per set is fine
    c.add_weights_channel(0, 3, Interpolation::kLinear, t, w3);
    const float w2[] = {0, 0, 1, 1};
    c.add_weights_channel(1, 2, Interpolation::kLinear, t, w2);
    EXPECT_TRUE(c.validate(4, widths));
  }
  // A rig without morph sets refuses a clip with weights.
  std::vector<Clip> clips;
  clips.push_back(morph_rig::make_clips()[0].copy());
  const Result<Rig> rig = Rig::create(fixture::make_skeleton(), std::move(clips));
  ASSERT_FALSE(rig);
  EXPECT_EQ(rig.error().code(), ErrorCode::kBadClip);
}

TEST(Morph, CopyKeepsTheWeightsChannels) {
  const Rig rig = morph_rig::make_rig();
  const Clip& puff = rig.clips()[*rig.find_clip("Puff")];
  const Clip copy = puff.copy();
  ASSERT_EQ(copy.channels().size(), puff.channels().size());
  const Channel& a = puff.channels()[0];
  const Channel& b = copy.channels()[0];
  EXPECT_EQ(b.property, Property::kWeights);
  EXPECT_EQ(b.width, a.width);
  EXPECT_EQ(b.joint, a.joint);
  EXPECT_NE(b.values.data(), a.values.data());
  EXPECT_TRUE(std::equal(a.values.begin(), a.values.end(), b.values.begin(), b.values.end()));
  const uint16_t widths[] = {3, 2};
  EXPECT_TRUE(copy.validate(4, widths));
}

TEST(Morph, TheRigFindsTargetsBySetAndName) {
  const Rig rig = morph_rig::make_rig();
  ASSERT_EQ(rig.morph_sets().size(), 2u);
  EXPECT_EQ(rig.morph_weight_count(), 5u);
  EXPECT_EQ(rig.morph_sets()[1].first, 3u);
  EXPECT_EQ(*rig.find_morph_target("smile"), 0u);
  EXPECT_EQ(*rig.find_morph_target("face/blink"), 1u);
  EXPECT_EQ(*rig.find_morph_target("body/blink"), 4u);
  EXPECT_EQ(*rig.find_morph_target("bulge"), 3u);
  const Result<uint32_t> twice = rig.find_morph_target("blink");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().code(), ErrorCode::kUnknownMorphTarget);
  EXPECT_NE(std::string(twice.error().message()).find("set/target"), std::string::npos);
  EXPECT_FALSE(rig.find_morph_target("face/bulge"));
  EXPECT_FALSE(rig.find_morph_target("nope"));
}

TEST(Morph, TheAnimatorStartsAtTheDefaults) {
  const Rig rig = morph_rig::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  EXPECT_EQ(flat(a), (std::vector<float>{0, 0.25f, 0, 0.5f, 0}));
  a.evaluate(10);  // nothing plays
  EXPECT_EQ(flat(a), (std::vector<float>{0, 0.25f, 0, 0.5f, 0}));
}

TEST(Morph, ASetTheClipDoesNotAnimateReadsItsDefaults) {
  const Rig rig = morph_rig::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Smile", 0));
  a.evaluate(15);  // 0.25 s
  EXPECT_EQ(flat(a), (std::vector<float>{0.25f, 0.125f, -0.125f, 0.5f, 0}));
  ASSERT_TRUE(a.play("Walk", 0));  // no weights at all
  a.evaluate(15);
  EXPECT_EQ(flat(a), (std::vector<float>{0, 0.25f, 0, 0.5f, 0}));
}

TEST(Morph, CrossfadeBlendsWeightsLinearly) {
  const Rig rig = morph_rig::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Smile", 0));
  ASSERT_TRUE(a.crossfade("Blink", 0.5, 30));  // 30 ticks of fade
  a.evaluate(45);
  // Half of Smile at 0.75 s (0.75, 0.375, -0.375) and half of Blink at 0.25 s (0, 1, 0);
  // the body set is at its defaults in both.
  EXPECT_EQ(flat(a), (std::vector<float>{0.375f, 0.6875f, -0.1875f, 0.5f, 0}));
  a.evaluate(60);  // fully faded in: Blink at 0.5 s
  EXPECT_EQ(flat(a), (std::vector<float>{0, 0, 0, 0.5f, 0}));
}

TEST(Morph, ABlendLayerMixesWeightsByItsWeight) {
  const Rig rig = morph_rig::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Smile", 0));
  ASSERT_TRUE(a.blend("Blink", 0.25f, 0));
  a.evaluate(15);
  // (0.25, 0.125, -0.125) * 0.75 + (0, 1, 0) * 0.25.
  EXPECT_EQ(flat(a), (std::vector<float>{0.1875f, 0.34375f, -0.09375f, 0.5f, 0}));
  const BlendEntry e[] = {{*rig.find_clip("Smile"), 3.0f}, {*rig.find_clip("Mixed"), 1.0f}};
  ASSERT_TRUE(a.play_blend(e, 0));
  a.evaluate(30);
  // Smile (0.5, 0.25, -0.25) and Mixed (0.5, 0.5, 0.5) shared 3 : 1; body: defaults
  // (0.5, 0) and Mixed's (0.5, 0.5) by a quarter.
  const std::vector<float> w = flat(a);
  EXPECT_FLOAT_EQ(w[0], 0.5f);
  EXPECT_FLOAT_EQ(w[1], 0.25f * 0.75f + 0.5f * 0.25f);
  EXPECT_FLOAT_EQ(w[2], -0.25f * 0.75f + 0.5f * 0.25f);
  EXPECT_FLOAT_EQ(w[3], 0.5f);
  EXPECT_FLOAT_EQ(w[4], 0.125f);
}

TEST(Morph, AMaskWeighsASetByItsJoint) {
  const Rig rig = morph_rig::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Smile", 0));
  const float half_head[] = {0, 0, 0, 0.5f};  // bone3 (the face's joint) at 0.5
  LayerOptions layer;
  layer.mask = half_head;
  ASSERT_TRUE(a.add_layer(*rig.find_clip("Blink"), layer, 0));
  a.evaluate(15);
  EXPECT_EQ(flat(a), (std::vector<float>{0.125f, 0.5625f, -0.0625f, 0.5f, 0}));

  // A mask of 0 at bone3 leaves the face as below; the body set has no joint: weight 1.
  ASSERT_TRUE(a.play("Smile", 0));
  const float no_head[] = {1, 1, 1, 0};
  layer.mask = no_head;
  ASSERT_TRUE(a.add_layer(*rig.find_clip("Mixed"), layer, 0));
  a.evaluate(15);  // Mixed at 0.25 s: body (0.25, 0.75)
  EXPECT_EQ(flat(a), (std::vector<float>{0.25f, 0.125f, -0.125f, 0.25f, 0.75f}));
}

TEST(Morph, AnAdditiveLayerAddsWeightTimesTheDelta) {
  std::vector<Clip> clips = morph_rig::make_clips();
  const std::vector<MorphSet> sets = morph_rig::make_sets();
  std::vector<Clip> extra;
  Result<Clip> first =
      make_additive_clip(clips[4], fixture::make_skeleton(), AdditiveReference::kFirstFrame, sets);
  ASSERT_TRUE(first) << first.error().message();
  extra.push_back(std::move(*first));
  const Rig rig = morph_rig::make_rig(std::move(extra));
  const uint16_t additive = *rig.find_clip("Mixed", AdditiveReference::kFirstFrame);
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Smile", 0));
  LayerOptions layer;
  layer.weight = 0.5f;
  layer.mode = LayerMode::kAdditive;
  ASSERT_TRUE(a.add_layer(additive, layer, 0));
  a.evaluate(30);
  // Smile at 0.5 s: face (0.5, 0.25, -0.25); Mixed's face delta from its first frame at
  // 0.5 s is -0.5 each, body delta (0.5, -0.5): half of each added.
  EXPECT_EQ(flat(a), (std::vector<float>{0.25f, 0.0f, -0.5f, 0.75f, -0.25f}));
  // At weight 1 the delta itself.
  ASSERT_TRUE(a.play("Walk", 0));
  layer.weight = 1.0f;
  PlayOptions once;
  once.playback = Playback::kOnce;
  ASSERT_TRUE(a.add_layer(additive, layer, 0, once));
  a.evaluate(60);  // delta -1 on the face, (1, -1) on the body, over the defaults
  EXPECT_EQ(flat(a), (std::vector<float>{-1.0f, -0.75f, -1.0f, 1.5f, -1.0f}));
}

TEST(Morph, RestPoseAdditiveWeightsAreDifferencesFromTheDefaults) {
  std::vector<Clip> clips = morph_rig::make_clips();
  const std::vector<MorphSet> sets = morph_rig::make_sets();
  Result<Clip> rest =
      make_additive_clip(clips[4], fixture::make_skeleton(), AdditiveReference::kRestPose, sets);
  ASSERT_TRUE(rest) << rest.error().message();
  ASSERT_EQ(rest->channels().size(), 2u);
  const Channel& face = rest->channels()[0];
  EXPECT_EQ(face.width, 3);
  // (1, 1, 1) and (0, 0, 0) less the defaults (0, 0.25, 0).
  EXPECT_EQ(std::vector<float>(face.values.begin(), face.values.end()),
            (std::vector<float>{1, 0.75f, 1, 0, -0.25f, 0}));
  // Without the sets the weights channels do not validate.
  EXPECT_FALSE(
      make_additive_clip(clips[4], fixture::make_skeleton(), AdditiveReference::kRestPose));
  // The first frame's own weights add nothing: the channel is left out.
  Clip still("Still");
  const float t[] = {0.0f, 1.0f};
  const float w[] = {0.5f, 0.5f, 0.5f, 0.5f};
  still.add_weights_channel(1, 2, Interpolation::kLinear, t, w);
  Result<Clip> none =
      make_additive_clip(still, fixture::make_skeleton(), AdditiveReference::kFirstFrame, sets);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->channels().empty());
  EXPECT_EQ(none->duration(), 1.0f);
}

TEST(Morph, AnOverlayMixesWeightsOverTheMixes) {
  const Rig rig = morph_rig::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Smile", 0));
  LayerOptions layer;
  layer.weight = 0.5f;
  ASSERT_TRUE(a.add_overlay(*rig.find_clip("Blink"), layer, 0));
  a.evaluate(15);
  EXPECT_EQ(flat(a), (std::vector<float>{0.125f, 0.5625f, -0.0625f, 0.5f, 0}));
  a.stop_mixes();  // the overlay plays on over the defaults
  a.evaluate(15);
  EXPECT_EQ(flat(a), (std::vector<float>{0, 0.625f, 0, 0.5f, 0}));
}

TEST(Morph, OverridesReplaceTheClipsUntilCleared) {
  const Rig rig = morph_rig::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Smile", 0));
  ASSERT_TRUE(a.set_morph_weight("smile", 2.0f));
  ASSERT_TRUE(a.set_morph_weight("body/blink", -0.5f));
  ASSERT_TRUE(a.set_morph_weight(3u, 0.0f));
  EXPECT_EQ(a.morph_weights()[0], 0.0f) << "from the next evaluate() on";
  a.evaluate(15);
  EXPECT_EQ(flat(a), (std::vector<float>{2.0f, 0.125f, -0.125f, 0.0f, -0.5f}));
  ASSERT_TRUE(a.clear_morph_weight("face/smile"));
  a.evaluate(15);
  EXPECT_EQ(flat(a), (std::vector<float>{0.25f, 0.125f, -0.125f, 0.0f, -0.5f}));
  a.clear_morph_weights();
  a.evaluate(15);
  EXPECT_EQ(flat(a), (std::vector<float>{0.25f, 0.125f, -0.125f, 0.5f, 0}));
}

TEST(Morph, UnknownTargetsAndBadWeightsAreErrorValues) {
  const Rig rig = morph_rig::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  const auto code = [](const Result<void>& r) { return r ? ErrorCode::kOk : r.error().code(); };
  EXPECT_EQ(code(a.set_morph_weight("nope", 1.0f)), ErrorCode::kUnknownMorphTarget);
  EXPECT_EQ(code(a.set_morph_weight("blink", 1.0f)), ErrorCode::kUnknownMorphTarget);
  EXPECT_EQ(code(a.set_morph_weight(5u, 1.0f)), ErrorCode::kUnknownMorphTarget);
  EXPECT_EQ(code(a.clear_morph_weight("face/nope")), ErrorCode::kUnknownMorphTarget);
  EXPECT_EQ(code(a.set_morph_weight("smile", std::numeric_limits<float>::quiet_NaN())),
            ErrorCode::kBadWeight);
  EXPECT_EQ(code(a.set_morph_weight("smile", std::numeric_limits<float>::infinity())),
            ErrorCode::kBadWeight);
  EXPECT_EQ(code(a.set_morph_weight("smile", kMaxMorphWeight * 2.0f)), ErrorCode::kBadWeight);
  EXPECT_EQ(code(a.set_morph_weight("smile", -kMaxMorphWeight)), ErrorCode::kOk);
  a.clear_morph_weights();
  a.evaluate(0);
  EXPECT_EQ(flat(a), (std::vector<float>{0, 0.25f, 0, 0.5f, 0})) << "refusals change nothing";
  const Result<void> r = a.set_morph_weight("nope", 1.0f);
  EXPECT_NE(std::string(r.error().message()).find("nope"), std::string::npos);

  // A rig without morph sets: no weights, every name unknown.
  const Rig plain = fixture::make_rig();
  Animator b = std::move(*Animator::create(&plain, 60));
  EXPECT_TRUE(b.morph_weights().empty());
  EXPECT_EQ(code(b.set_morph_weight("smile", 1.0f)), ErrorCode::kUnknownMorphTarget);
  EXPECT_EQ(code(b.set_morph_weight(0u, 1.0f)), ErrorCode::kUnknownMorphTarget);
}

TEST(Morph, JointsPlayAsWithoutWeightsChannels) {
  // The same joint channels with and without weights channels beside them give the same
  // palette bits.
  const Rig rig = morph_rig::make_rig();
  std::vector<Clip> clips;
  for (const Clip& c : rig.clips()) {
    Clip joints(c.name());
    for (const Channel& ch : c.channels()) {
      if (ch.property != Property::kWeights) joints.add_channel_view(ch);
    }
    joints.extend_duration(c.duration());
    clips.push_back(std::move(joints));
  }
  const Rig plain = *Rig::create(fixture::make_skeleton(), std::move(clips));
  Animator a = std::move(*Animator::create(&rig, 60));
  Animator b = std::move(*Animator::create(&plain, 60));
  for (Animator* x : {&a, &b}) {
    ASSERT_TRUE(x->play("Puff", 0));
    ASSERT_TRUE(x->blend("Smile", 0.5f, 0));
    ASSERT_TRUE(x->crossfade("Walk", 0.5, 20));
  }
  for (int64_t tick = 0; tick < 90; tick += 7) {
    a.evaluate(tick);
    b.evaluate(tick);
    ASSERT_EQ(std::memcmp(a.palette().data(), b.palette().data(), a.palette().size_bytes()), 0)
        << tick;
  }
}

// ------------------------------------------------------------------------- apply_morph

TEST(Morph, ApplyMorphAddsWeightedDeltasInTargetOrder) {
  const Vec3 base[] = {{1, 0, 0}, {0, 1, 0}};
  const Vec3 d[] = {{0.5f, 0, 0}, {0, 0, 1}, {0, 0.25f, 0}, {1, 1, 1}};  // target-major
  const float w[] = {0.5f, 2.0f};
  MorphInput in;
  in.positions = base;
  in.deltas.targets = 2;
  in.deltas.positions = d;
  in.weights = w;
  Vec3 out[2];
  ASSERT_TRUE(apply_morph(in, {out, {}, {}}));
  EXPECT_EQ(out[0], (Vec3{1.25f, 0.5f, 0}));
  EXPECT_EQ(out[1], (Vec3{2, 3, 2.5f}));

  // Left to right: (1 + 1e8) - 1e8 is 0 in float (1 + (1e8 - 1e8) would be 1).
  const Vec3 one[] = {{1, 0, 0}};
  const Vec3 big[] = {{1e8f, 0, 0}, {-1e8f, 0, 0}};
  const float ones[] = {1, 1};
  in.positions = one;
  in.deltas.positions = big;
  in.weights = ones;
  ASSERT_TRUE(apply_morph(in, {{out, 1}, {}, {}}));
  EXPECT_EQ(out[0].x, 0.0f);
}

TEST(Morph, ApplyMorphMorphsNormalsAndTangentsAndRenormalisesWhenAsked) {
  const Vec3 p[] = {{0, 0, 0}};
  const Vec3 n[] = {{1, 0, 0}};
  const Vec4 tg[] = {{0, 1, 0, -1}};
  const Vec3 dp[] = {{0, 0, 1}};
  const Vec3 dn[] = {{0, 1, 0}};
  const Vec3 dt[] = {{1, 0, 0}};
  const float w[] = {1.0f};
  MorphInput in{p, n, tg, MorphDeltas{1, dp, dn, dt}, w, false};
  Vec3 op[1], on[1];
  Vec4 ot[1];
  ASSERT_TRUE(apply_morph(in, {op, on, ot}));
  EXPECT_EQ(op[0], (Vec3{0, 0, 1}));
  EXPECT_EQ(on[0], (Vec3{1, 1, 0}));  // not renormalised
  EXPECT_EQ(ot[0].x, 1.0f);
  EXPECT_EQ(ot[0].y, 1.0f);
  EXPECT_EQ(ot[0].w, -1.0f);
  in.normalize = true;
  ASSERT_TRUE(apply_morph(in, {op, on, ot}));
  EXPECT_NEAR(on[0].x, 0.70710678f, 1e-7f);
  EXPECT_NEAR(on[0].y, 0.70710678f, 1e-7f);
  EXPECT_NEAR(ot[0].x, 0.70710678f, 1e-7f);
  EXPECT_EQ(ot[0].w, -1.0f);
}

TEST(Morph, ZeroWeightsGiveTheBaseVertexBitForBit) {
  // A normal that is not quite unit length stays as it is, and -0 stays -0.
  const Vec3 p[] = {{-0.0f, 0.1f, 0.3f}};
  const Vec3 n[] = {{0.6f, 0.8000001f, 0}};
  const Vec4 tg[] = {{0.3f, 0, 0.9f, 1}};
  const Vec3 d[] = {{1, 1, 1}, {2, 2, 2}};
  const float w[] = {0.0f, 0.0f};
  const MorphInput in{p, n, tg, MorphDeltas{2, d, d, d}, w, true};
  Vec3 op[1], on[1];
  Vec4 ot[1];
  ASSERT_TRUE(apply_morph(in, {op, on, ot}));
  EXPECT_EQ(std::memcmp(op, p, sizeof op), 0);
  EXPECT_EQ(std::memcmp(on, n, sizeof on), 0);
  EXPECT_EQ(std::memcmp(ot, tg, sizeof ot), 0);
}

TEST(Morph, ApplyMorphRefusesStreamsThatDisagree) {
  const Vec3 p[] = {{0, 0, 0}, {1, 0, 0}};
  const Vec3 d3[] = {{1, 1, 1}, {2, 2, 2}, {3, 3, 3}};
  const float w1[] = {1.0f};
  const float w2[] = {1.0f, 1.0f};
  Vec3 out[2];
  const auto code = [](const Result<void>& r) { return r ? ErrorCode::kOk : r.error().code(); };
  MorphInput in;
  in.positions = p;
  in.deltas.targets = 1;
  in.deltas.positions = d3;  // not 1 x 2
  in.weights = w1;
  EXPECT_EQ(code(apply_morph(in, {out, {}, {}})), ErrorCode::kSizeMismatch);
  in.deltas.positions = {d3, 2};
  in.weights = w2;  // two weights for one target
  EXPECT_EQ(code(apply_morph(in, {out, {}, {}})), ErrorCode::kSizeMismatch);
  in.weights = w1;
  EXPECT_EQ(code(apply_morph(in, {{out, 1}, {}, {}})), ErrorCode::kSizeMismatch);
  EXPECT_EQ(code(apply_morph(in, {out, {}, {}})), ErrorCode::kOk);
}

}  // namespace
}  // namespace animpack
