// The Animator's masked and additive layers, overlays, synced mixes, event policy and
// passes(). The character is tests/runtime/layer_rig.h.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/layers.h"
#include "layer_rig.h"

namespace animpack {
namespace {

using layer_rig::kHead;
using layer_rig::kHips;
using layer_rig::kJoints;
using layer_rig::kLArm;
using layer_rig::kNeck;
using layer_rig::kSpine;
using layer_rig::kSpine2;

constexpr int kRate = 60;

Animator make(const Rig& rig, EventPolicy events = EventPolicy::kEveryLayer) {
  AnimatorOptions o;
  o.events = events;
  return std::move(*Animator::create(&rig, kRate, o));
}

uint16_t clip(const Rig& rig, const char* name) { return *rig.find_clip(name); }
uint16_t additive(const Rig& rig, const char* name, AdditiveReference r) {
  return *rig.find_clip(name, r);
}

bool same_bits(const Trs& a, const Trs& b) {
  return bits_equal(&a.translation.x, &b.translation.x, 3) &&
         bits_equal(&a.rotation.x, &b.rotation.x, 4) && bits_equal(&a.scale.x, &b.scale.x, 3);
}

bool same_bits(std::span<const Mat4> a, std::span<const Mat4> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!bits_equal(a[i].m, b[i].m, 16)) return false;
  }
  return true;
}

Quat conj(Quat q) { return {-q.x, -q.y, -q.z, q.w}; }

// The angle of a rotation quaternion, in [0, pi].
double angle_of(Quat q) {
  const double n = std::sqrt(static_cast<double>(q.x) * q.x + static_cast<double>(q.y) * q.y +
                             static_cast<double>(q.z) * q.z);
  return 2.0 * std::atan2(n, std::fabs(static_cast<double>(q.w)));
}

std::vector<float> upper_body(const Rig& rig) {
  const MaskEntry e[] = {{"Spine2"}};
  return *make_joint_mask(rig.skeleton(), e);
}

std::string describe(const AnimEvent& e) {
  std::string s = std::to_string(e.tick);
  s.append(":");
  s.append(e.name);
  return s;
}

std::vector<std::string> run_events(Animator& a, int64_t from, int64_t to) {
  std::vector<std::string> out;
  for (int64_t t = from; t <= to; ++t) {
    for (const AnimEvent& e : a.advance(t)) out.push_back(describe(e));
  }
  return out;
}

TEST(Animator, MaskedOverrideLeavesUnmaskedJointsBitIdentical) {
  const Rig rig = layer_rig::make_rig();
  const std::vector<float> mask = upper_body(rig);
  Animator base = make(rig);
  Animator layered = make(rig);
  Animator overlaid = make(rig);
  Animator wave = make(rig);
  ASSERT_TRUE(base.play("Walk", 0));
  ASSERT_TRUE(layered.play("Walk", 0));
  ASSERT_TRUE(overlaid.play("Walk", 0));
  ASSERT_TRUE(wave.play("Wave", 0));
  LayerOptions o;
  o.mask = mask;
  ASSERT_TRUE(layered.add_layer(clip(rig, "Wave"), o, 0));
  ASSERT_TRUE(overlaid.add_overlay(clip(rig, "Wave"), o, 0));
  for (int64_t tick = 0; tick < 120; tick += 7) {
    for (Animator* a : {&base, &layered, &overlaid, &wave}) a->evaluate(tick);
    for (size_t j = 0; j < kJoints; ++j) {
      const Animator& want = mask[j] == 0.0f ? base : wave;
      if (mask[j] != 0.0f && j != kLArm && j != layer_rig::kRArm && j != kHead) continue;
      EXPECT_TRUE(same_bits(layered.locals()[j], mask[j] == 0.0f ? base.locals()[j] : [&] {
        // Wave sets the rotation of these joints; the rest of them is the walk's.
        Trs t = base.locals()[j];
        t.rotation = want.locals()[j].rotation;
        return t;
      }())) << "tick " << tick << " joint " << j;
      EXPECT_TRUE(same_bits(overlaid.locals()[j], layered.locals()[j]));
    }
    // Hips is animated by Wave but masked out: exactly the walk's.
    EXPECT_TRUE(same_bits(layered.locals()[kHips], base.locals()[kHips]));
  }
  // Half a mask: the wave mixed in by weight * mask.
  std::vector<float> half(kJoints, 0.5f);
  Animator mixed = make(rig);
  Animator blended = make(rig);
  ASSERT_TRUE(mixed.play("Walk", 0));
  ASSERT_TRUE(blended.play("Walk", 0));
  o.mask = half;
  ASSERT_TRUE(mixed.add_layer(clip(rig, "Wave"), o, 0));
  ASSERT_TRUE(blended.blend("Wave", 0.5f, 0));
  mixed.evaluate(33);
  blended.evaluate(33);
  for (size_t j = 0; j < kJoints; ++j) {
    EXPECT_TRUE(same_bits(mixed.locals()[j], blended.locals()[j])) << j;
  }
}

TEST(Animator, AdditiveOfTheReferencePoseChangesNothingBitForBit) {
  const Rig rig = layer_rig::make_rig();
  Animator base = make(rig);
  Animator added = make(rig);
  ASSERT_TRUE(base.play("Walk", 0));
  ASSERT_TRUE(added.play("Walk", 0));
  LayerOptions o;
  o.mode = LayerMode::kAdditive;
  ASSERT_TRUE(added.add_overlay(additive(rig, "Still", AdditiveReference::kRestPose), o, 0));
  ASSERT_TRUE(added.add_layer(additive(rig, "Still", AdditiveReference::kRestPose), o, 0));
  for (int64_t tick = 0; tick < 200; tick += 3) {
    base.evaluate(tick);
    added.evaluate(tick);
    EXPECT_TRUE(same_bits(base.palette(), added.palette())) << tick;
  }
}

TEST(Animator, AdditiveAtHalfWeightIsHalfTheRotationDelta) {
  const Rig rig = layer_rig::make_rig();
  const uint16_t turn = additive(rig, "Turn", AdditiveReference::kRestPose);
  for (float w : {0.5f, 1.0f, 0.25f}) {
    Animator base = make(rig);
    Animator added = make(rig);
    ASSERT_TRUE(base.play("Walk", 0));
    ASSERT_TRUE(added.play("Walk", 0));
    LayerOptions o;
    o.mode = LayerMode::kAdditive;
    o.weight = w;
    ASSERT_TRUE(added.add_overlay(turn, o, 0));
    for (int64_t tick : {0, 10, 25, 47}) {
      base.evaluate(tick);
      added.evaluate(tick);
      const Quat below = base.locals()[kNeck].rotation;
      const Quat result = added.locals()[kNeck].rotation;
      const Quat delta = conj(below) * result;
      // 0.8 rad about y, turned in the joint's own frame: below^-1 * result is
      // nlerp(identity, delta, w): w of the angle at 0.5 and 1, nlerp's angle elsewhere.
      const double half = 0.4, wd = static_cast<double>(w);
      const double want = 2.0 * std::atan2(wd * std::sin(half), (1.0 - wd) + wd * std::cos(half));
      if (w == 0.5f) {
        EXPECT_NEAR(want, 0.4, 1e-12);
      }
      EXPECT_NEAR(angle_of(delta), want, 1e-5) << w << " " << tick;
      EXPECT_NEAR(delta.x, 0.0f, 1e-6f);
      EXPECT_NEAR(delta.z, 0.0f, 1e-6f);
    }
  }
}

TEST(Animator, AdditiveTranslationAndScaleAddDifferences) {
  const Rig rig = layer_rig::make_rig();
  const uint16_t turn = additive(rig, "Turn", AdditiveReference::kRestPose);
  Animator base = make(rig);
  ASSERT_TRUE(base.play("Breathe", 0));
  const std::vector<float> mask = upper_body(rig);
  for (float w : {1.0f, 0.25f}) {
    Animator added = make(rig);
    ASSERT_TRUE(added.play("Breathe", 0));
    LayerOptions o;
    o.mode = LayerMode::kAdditive;
    o.weight = w;
    std::vector<float> m(kJoints, 1.0f);
    m[kHead] = 0.5f;
    o.mask = m;
    ASSERT_TRUE(added.add_layer(turn, o, 0));
    for (int64_t tick : {0, 30, 61}) {
      base.evaluate(tick);
      added.evaluate(tick);
      // Spine2: rest (0, 0.2, 0), key (1, 2, 3): a difference of (1, 1.8, 3).
      const Vec3 b = base.locals()[kSpine2].translation;
      const Vec3 r = added.locals()[kSpine2].translation;
      EXPECT_NEAR(r.x - b.x, 1.0f * w, 1e-6f);
      EXPECT_NEAR(r.y - b.y, 1.8f * w, 1e-6f);
      EXPECT_NEAR(r.z - b.z, 3.0f * w, 1e-6f);
      // Head scale: rest 1, key 2, a difference of 1, at half the mask.
      const Vec3 bs = base.locals()[kHead].scale;
      const Vec3 rs = added.locals()[kHead].scale;
      EXPECT_NEAR(rs.x - bs.x, 0.5f * w, 1e-6f);
      EXPECT_NEAR(rs.z - bs.z, 0.5f * w, 1e-6f);
    }
  }
  // Masked out: exactly as below.
  Animator masked = make(rig);
  ASSERT_TRUE(masked.play("Breathe", 0));
  LayerOptions o;
  o.mode = LayerMode::kAdditive;
  std::vector<float> none(kJoints, 0.0f);
  o.mask = none;
  ASSERT_TRUE(masked.add_overlay(turn, o, 0));
  masked.evaluate(40);
  base.evaluate(40);
  EXPECT_TRUE(same_bits(masked.palette(), base.palette()));
  (void)mask;
}

TEST(Animator, AdditiveCubicSplineMatchesDeltaOfSampledCurve) {
  const Rig rig = layer_rig::make_rig();
  const Clip& source = rig.clips()[clip(rig, "Curve")];
  const Clip& add = rig.clips()[additive(rig, "Curve", AdditiveReference::kFirstFrame)];
  ASSERT_EQ(add.channels().size(), 2u);
  uint32_t c0 = 0;
  const Vec4 r = sample(source.channels()[0], 0.0f, &c0);
  const Quat ref{r.x, r.y, r.z, r.w};
  const Vec4 tr = sample(source.channels()[1], 0.0f, &c0);
  for (int i = 0; i <= 400; ++i) {
    const float t = static_cast<float>(i) / 400.0f;
    uint32_t ca = 0, cs = 0;
    const Vec4 a = sample(add.channels()[0], t, &ca);
    const Vec4 s = sample(source.channels()[0], t, &cs);
    const Quat want = conj(ref) * Quat{s.x, s.y, s.z, s.w};
    EXPECT_NEAR(a.x, want.x, 1e-6f) << t;
    EXPECT_NEAR(a.y, want.y, 1e-6f) << t;
    EXPECT_NEAR(a.z, want.z, 1e-6f) << t;
    EXPECT_NEAR(a.w, want.w, 1e-6f) << t;
    const Vec4 at = sample(add.channels()[1], t, &ca);
    const Vec4 st = sample(source.channels()[1], t, &cs);
    EXPECT_NEAR(at.x, st.x - tr.x, 1e-6f) << t;
    EXPECT_NEAR(at.y, st.y - tr.y, 1e-6f) << t;
    EXPECT_NEAR(at.z, st.z - tr.z, 1e-6f) << t;
  }
  // And played over the rest pose at weight 1, it composes the sampled delta.
  Animator a = make(rig);
  LayerOptions o;
  o.mode = LayerMode::kAdditive;
  ASSERT_TRUE(a.add_overlay(additive(rig, "Curve", AdditiveReference::kFirstFrame), o, 0));
  a.evaluate(30);
  uint32_t c = 0;
  const Vec4 d = sample(add.channels()[0], 0.5f, &c);
  const Quat want = rig.skeleton().rest_pose()[kNeck].rotation * Quat{d.x, d.y, d.z, d.w};
  EXPECT_NEAR(a.locals()[kNeck].rotation.y, want.y, 1e-6f);
  EXPECT_NEAR(a.locals()[kNeck].rotation.w, want.w, 1e-6f);
}

TEST(Animator, OverlaysSurvivePlayAndCrossfade) {
  const Rig rig = layer_rig::make_rig();
  Animator a = make(rig);
  LayerOptions o;
  const std::vector<float> upper = upper_body(rig);
  o.mask = upper;
  const LayerId wave = *a.add_overlay(clip(rig, "Wave"), o, 0);  // over the rest pose
  a.evaluate(15);
  const Quat waved = a.locals()[kLArm].rotation;
  EXPECT_FALSE(waved == rig.skeleton().rest_pose()[kLArm].rotation);
  ASSERT_TRUE(a.play("Walk", 10));
  ASSERT_TRUE(a.crossfade("Run", 0.2, 12));
  const BlendEntry e[] = {{clip(rig, "Walk"), 1.0f}, {clip(rig, "Run"), 1.0f}};
  ASSERT_TRUE(a.play_blend(e, 13));
  ASSERT_TRUE(a.crossfade_synced(e, 0.1, 14));
  EXPECT_DOUBLE_EQ(*a.clip_time(wave, 15), 0.25);  // its own clock
  a.evaluate(15);
  EXPECT_TRUE(a.locals()[kLArm].rotation == waved);  // Wave sets the arm over everything
  ASSERT_TRUE(a.remove_overlay(wave));
  EXPECT_EQ(a.remove_overlay(wave).error().code(), ErrorCode::kNoSuchLayer);
  EXPECT_EQ(a.clip_time(wave, 15).error().code(), ErrorCode::kNoSuchLayer);
  const LayerId again = *a.add_overlay(clip(rig, "Wave"), o, 16);
  a.stop();
  EXPECT_EQ(a.clip_time(again, 20).error().code(), ErrorCode::kNoSuchLayer);
  a.evaluate(20);
  EXPECT_TRUE(a.locals()[kLArm].rotation == rig.skeleton().rest_pose()[kLArm].rotation);
}

bool same_events(std::span<const AnimEvent> a, std::span<const AnimEvent> b, bool layer) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].tick != b[i].tick || a[i].mix != b[i].mix || a[i].clip != b[i].clip ||
        a[i].event != b[i].event || a[i].name != b[i].name || a[i].position != b[i].position ||
        (layer && a[i].layer != b[i].layer)) {
      return false;
    }
  }
  return true;
}

TEST(Animator, SyncedMixAtOneClipEqualsThatClipAloneBitForBit) {
  const Rig rig = layer_rig::make_rig();
  const uint16_t walk = clip(rig, "Walk"), run = clip(rig, "Run");
  for (int which = 0; which < 2; ++which) {
    for (Playback playback : {Playback::kLoop, Playback::kPingPong, Playback::kOnce}) {
      PlayOptions p;
      p.playback = playback;
      p.speed = 1.25f;
      p.start = 0.1;
      Animator alone = make(rig);
      Animator synced = make(rig);
      ASSERT_TRUE(alone.play(which == 0 ? walk : run, 0, p));
      const BlendEntry e[] = {{walk, which == 0 ? 2.0f : 0.0f}, {run, which == 0 ? 0.0f : 0.5f}};
      ASSERT_TRUE(synced.crossfade_synced(e, 0.0, 0, p));
      size_t events = 0;
      for (int64_t tick = 0; tick < 300; ++tick) {
        const auto ea = alone.advance(tick);
        const std::vector<AnimEvent> copy(ea.begin(), ea.end());
        const auto es = synced.advance(tick);
        ASSERT_TRUE(same_events(copy, es, which == 0)) << tick;
        events += es.size();
        alone.evaluate(tick);
        synced.evaluate(tick);
        ASSERT_TRUE(same_bits(alone.palette(), synced.palette())) << tick;
      }
      EXPECT_GT(events, 0u);
    }
  }
}

// The circular distance of two phases (fractions of a cycle).
double phase_gap(double a, double b) {
  const double d = std::fabs(a - b);
  return std::min(d, 1.0 - d);
}

TEST(Animator, SyncedMixKeepsPhasesEqual) {
  const Rig rig = layer_rig::make_rig();
  Animator a = make(rig);
  const BlendEntry e[] = {{clip(rig, "Walk"), 1.0f}, {clip(rig, "Run"), 0.0f}};
  const LayerId walk = *a.crossfade_synced(e, 0.0, 0);
  const LayerId run{walk.value + 1};
  // The durations as the animator times them: the tick times nearest their f32.
  const double d_walk = 1.0, d_run = 42.0 / 60.0;
  for (int64_t tick = 0; tick < 1000; ++tick) {
    if (tick % 17 == 0) {
      const float w = static_cast<float>((tick / 17) % 11) / 10.0f;
      const float weights[] = {1.0f - w, w + 0.01f};
      ASSERT_TRUE(a.set_blend_weights(walk, weights, tick));
    }
    const double pw = *a.clip_time(walk, tick) / d_walk;
    const double pr = *a.clip_time(run, tick) / d_run;
    ASSERT_LT(phase_gap(pw, pr), 1e-12) << tick;
    a.evaluate(tick);
  }
}

TEST(Animator, SyncedWeightChangeKeepsPhase) {
  const Rig rig = layer_rig::make_rig();
  Animator a = make(rig);
  const BlendEntry e[] = {{clip(rig, "Walk"), 1.0f}, {clip(rig, "Run"), 1.0f}};
  const LayerId first = *a.crossfade_synced(e, 0.0, 0);
  // D = (1 + 0.7) / 2 = 0.85 s: the phase runs at 1 / 0.85 cycles per second.
  const double d = 0.5 * 1.0 + 0.5 * (42.0 / 60.0);
  EXPECT_NEAR(*a.passes(first, 30), 0.5 / d, 1e-12);
  const double before = *a.passes(first, 30);
  const float all_walk[] = {1.0f, 0.0f};
  ASSERT_TRUE(a.set_blend_weights(first, all_walk, 30));
  EXPECT_NEAR(*a.passes(first, 30), before, 1e-12);        // the phase carries on
  EXPECT_NEAR(*a.passes(first, 60), before + 0.5, 1e-12);  // now at 1 cycle per second
  EXPECT_NEAR(*a.clip_time(first, 60), std::fmod(before + 0.5, 1.0), 1e-12);
  ASSERT_TRUE(a.set_speed(LayerId{first.value + 1}, 2.0f, 60));  // the mix's speed
  EXPECT_NEAR(*a.passes(first, 90), before + 1.5, 1e-12);
  EXPECT_NEAR(*a.passes(LayerId{first.value + 1}, 90), before + 1.5, 1e-12);
}

TEST(Animator, LeadPolicyFiresOnlyTheMixFadingIn) {
  const Rig rig = layer_rig::make_rig();
  Animator lead = make(rig, EventPolicy::kLead);
  Animator every = make(rig, EventPolicy::kEveryLayer);
  std::vector<std::string> l, e;
  for (Animator* a : {&lead, &every}) {
    ASSERT_TRUE(a->play("Walk", 0));
    std::vector<std::string>& out = a == &lead ? l : e;
    out = run_events(*a, 0, 39);
    ASSERT_TRUE(a->crossfade("Run", 1.0, 40));  // 60 ticks of fade, over step_r at 45
    const std::vector<std::string> more = run_events(*a, 40, 99);
    out.insert(out.end(), more.begin(), more.end());
  }
  const std::vector<std::string> want_lead = {"15:step_l", "40:land", "61:stride", "82:land"};
  EXPECT_EQ(l, want_lead);
  // Every layer: Walk's step_r at 45 and step_l at 75 during the fade as well.
  EXPECT_NE(std::find(e.begin(), e.end(), "45:step_r"), e.end());
  EXPECT_NE(std::find(e.begin(), e.end(), "75:step_l"), e.end());
}

TEST(Animator, LeadPolicyFiresHeaviestLayerOfABlend) {
  const Rig rig = layer_rig::make_rig();
  const uint16_t walk = clip(rig, "Walk"), run = clip(rig, "Run");
  {
    Animator a = make(rig, EventPolicy::kLead);
    const BlendEntry e[] = {{walk, 0.3f}, {run, 0.7f}};
    ASSERT_TRUE(a.play_blend(e, 0));
    for (const std::string& s : run_events(a, 0, 120)) EXPECT_EQ(s.find("step"), std::string::npos);
  }
  {
    Animator a = make(rig, EventPolicy::kLead);
    const BlendEntry e[] = {{walk, 0.6f}, {run, 0.4f}};
    const LayerId first = *a.crossfade_synced(e, 0.0, 0);
    std::vector<std::string> ev = run_events(a, 0, 50);
    ASSERT_FALSE(ev.empty());
    for (const std::string& s : ev) EXPECT_NE(s.find("step"), std::string::npos) << s;
    const float heavier_run[] = {0.2f, 0.8f};
    ASSERT_TRUE(a.set_blend_weights(first, heavier_run, 51));
    ev = run_events(a, 51, 150);
    ASSERT_FALSE(ev.empty());
    for (const std::string& s : ev) EXPECT_EQ(s.find("step"), std::string::npos) << s;
  }
  {
    // Equal shares: the first; a blend() layer over half: the layer under it still leads
    // (1 - 0.5 of it stays) as it comes first.
    Animator a = make(rig, EventPolicy::kLead);
    const BlendEntry e[] = {{walk, 1.0f}, {walk, 1.0f}, {walk, 1.0f}};
    ASSERT_TRUE(a.crossfade_synced(e, 0.0, 0));
    for (int64_t t = 0; t < 120; ++t) {
      for (const AnimEvent& ev : a.advance(t)) EXPECT_EQ(ev.layer, 0) << t;
    }
    Animator b = make(rig, EventPolicy::kLead);
    ASSERT_TRUE(b.play("Walk", 0));
    ASSERT_TRUE(b.blend("Run", 0.6f, 0));
    for (const std::string& s : run_events(b, 0, 120)) EXPECT_EQ(s.find("step"), std::string::npos);
  }
}

TEST(Animator, LeadPolicyFiresOverlaysAboveZeroWeight) {
  const Rig rig = layer_rig::make_rig();
  Animator a = make(rig, EventPolicy::kLead);
  LayerOptions o;
  o.weight = 0.0f;
  const LayerId wave = *a.add_overlay(clip(rig, "Wave"), o, 0);
  EXPECT_TRUE(run_events(a, 0, 59).empty());
  ASSERT_TRUE(a.set_weight(wave, 0.01f));
  EXPECT_EQ(run_events(a, 60, 119), std::vector<std::string>{"90:wave"});
  for (const AnimEvent& e : a.advance(150)) {
    EXPECT_EQ(e.mix, kOverlayMix);
    EXPECT_EQ(e.layer, 0);
  }
  // Every layer: a weight-0 overlay fires too.
  Animator every = make(rig);
  (void)*every.add_overlay(clip(rig, "Wave"), o, 0);
  EXPECT_EQ(run_events(every, 0, 59), std::vector<std::string>{"30:wave"});
}

TEST(Animator, LayerCallsRefuseBadInputs) {
  const Rig rig = layer_rig::make_rig();
  Animator a = make(rig);
  const uint16_t walk = clip(rig, "Walk");
  const uint16_t turn = additive(rig, "Turn", AdditiveReference::kRestPose);
  const auto code = [](const auto& r) { return r.error().code(); };
  LayerOptions o;
  // Nothing plays yet: add_layer needs a mix, add_overlay does not.
  EXPECT_EQ(code(a.add_layer(walk, o, 0)), ErrorCode::kNothingPlaying);
  ASSERT_TRUE(a.play(walk, 0));
  std::vector<float> short_mask(kJoints - 1, 1.0f);
  o.mask = short_mask;
  EXPECT_EQ(code(a.add_layer(walk, o, 0)), ErrorCode::kSizeMismatch);
  EXPECT_EQ(code(a.add_overlay(walk, o, 0)), ErrorCode::kSizeMismatch);
  std::vector<float> bad_mask(kJoints, 1.0f);
  for (float bad : {-0.5f, 1.5f, std::numeric_limits<float>::quiet_NaN()}) {
    bad_mask[3] = bad;
    o.mask = bad_mask;
    EXPECT_EQ(code(a.add_layer(walk, o, 0)), ErrorCode::kBadWeight);
    EXPECT_EQ(code(a.add_overlay(walk, o, 0)), ErrorCode::kBadWeight);
  }
  o.mask = {};
  for (float bad : {-0.1f, 1.1f, std::numeric_limits<float>::quiet_NaN()}) {
    o.weight = bad;
    EXPECT_EQ(code(a.add_layer(walk, o, 0)), ErrorCode::kBadWeight);
    EXPECT_EQ(code(a.add_overlay(walk, o, 0)), ErrorCode::kBadWeight);
  }
  o.weight = 1.0f;
  // Additive clip in an override layer, ordinary clip in an additive one.
  EXPECT_EQ(code(a.add_layer(turn, o, 0)), ErrorCode::kBadClip);
  EXPECT_EQ(code(a.add_overlay(turn, o, 0)), ErrorCode::kBadClip);
  EXPECT_EQ(code(a.play(turn, 0)), ErrorCode::kBadClip);
  EXPECT_EQ(code(a.crossfade(turn, 0.1, 0)), ErrorCode::kBadClip);
  EXPECT_EQ(code(a.blend(turn, 0.5f, 0)), ErrorCode::kBadClip);
  o.mode = LayerMode::kAdditive;
  EXPECT_EQ(code(a.add_layer(walk, o, 0)), ErrorCode::kBadClip);
  EXPECT_EQ(code(a.add_overlay(walk, o, 0)), ErrorCode::kBadClip);
  o.mode = static_cast<LayerMode>(7);
  EXPECT_EQ(code(a.add_overlay(walk, o, 0)), ErrorCode::kInvalidArgument);
  o.mode = LayerMode::kOverride;
  EXPECT_EQ(code(a.add_layer(999, o, 0)), ErrorCode::kUnknownClip);
  PlayOptions fast;
  fast.speed = -1.0f;
  EXPECT_EQ(code(a.add_overlay(walk, o, 0, fast)), ErrorCode::kBadSpeed);
  // Too many layers and overlays.
  for (int i = 1; i < kMaxLayers; ++i) ASSERT_TRUE(a.add_layer(walk, o, 0));
  EXPECT_EQ(code(a.add_layer(walk, o, 0)), ErrorCode::kTooManyLayers);
  for (int i = 0; i < kMaxOverlays; ++i) ASSERT_TRUE(a.add_overlay(walk, o, 0));
  EXPECT_EQ(code(a.add_overlay(walk, o, 0)), ErrorCode::kTooManyLayers);
  EXPECT_EQ(code(a.remove_overlay(LayerId{12345})), ErrorCode::kNoSuchLayer);
  // Synced mixes: entry counts, weights, fades, clips.
  EXPECT_EQ(code(a.crossfade_synced({}, 0.0, 0)), ErrorCode::kInvalidArgument);
  std::vector<BlendEntry> many(kMaxBlendPoints + 1, BlendEntry{walk, 1.0f});
  EXPECT_EQ(code(a.crossfade_synced(many, 0.0, 0)), ErrorCode::kInvalidArgument);
  many.resize(kMaxBlendPoints);
  EXPECT_TRUE(a.crossfade_synced(many, 0.0, 0));
  const BlendEntry zero[] = {{walk, 0.0f}, {walk, 0.0f}};
  EXPECT_EQ(code(a.crossfade_synced(zero, 0.0, 0)), ErrorCode::kBadWeight);
  const BlendEntry negative[] = {{walk, 1.0f}, {walk, -1.0f}};
  EXPECT_EQ(code(a.crossfade_synced(negative, 0.0, 0)), ErrorCode::kBadWeight);
  const BlendEntry inf[] = {{walk, std::numeric_limits<float>::infinity()}};
  EXPECT_EQ(code(a.crossfade_synced(inf, 0.0, 0)), ErrorCode::kBadWeight);
  const BlendEntry ok[] = {{walk, 1.0f}, {clip(rig, "Run"), 1.0f}};
  EXPECT_EQ(code(a.crossfade_synced(ok, -1.0, 0)), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(a.crossfade_synced(ok, 0.0, 0, fast)), ErrorCode::kBadSpeed);
  const BlendEntry additive_entry[] = {{walk, 1.0f}, {turn, 1.0f}};
  EXPECT_EQ(code(a.crossfade_synced(additive_entry, 0.0, 0)), ErrorCode::kBadClip);
  const BlendEntry unknown[] = {{walk, 1.0f}, {999, 1.0f}};
  EXPECT_EQ(code(a.crossfade_synced(unknown, 0.0, 0)), ErrorCode::kUnknownClip);
  // set_blend_weights: only on a synced mix's first layer, one weight per entry.
  const LayerId first = *a.crossfade_synced(ok, 0.0, 0);
  const float three[] = {1.0f, 1.0f, 1.0f};
  EXPECT_EQ(code(a.set_blend_weights(first, three, 1)), ErrorCode::kSizeMismatch);
  const float zeros[] = {0.0f, 0.0f};
  EXPECT_EQ(code(a.set_blend_weights(first, zeros, 1)), ErrorCode::kBadWeight);
  const float nan[] = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_EQ(code(a.set_blend_weights(first, nan, 1)), ErrorCode::kBadWeight);
  const float fine[] = {1.0f, 0.0f};
  EXPECT_EQ(code(a.set_blend_weights(LayerId{first.value + 1}, fine, 1)), ErrorCode::kNoSuchLayer);
  const LayerId plain = *a.play(walk, 2);
  EXPECT_EQ(code(a.set_blend_weights(plain, fine, 2)), ErrorCode::kNoSuchLayer);
  const LayerId synced = *a.crossfade_synced(ok, 0.0, 3);
  EXPECT_EQ(code(a.set_weight(synced, 0.5f)), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(a.set_blend_weights(synced, fine, 4));
  // A synced mix takes further layers up to kMaxBlendPoints in all.
  for (int i = 2; i < kMaxBlendPoints; ++i) ASSERT_TRUE(a.add_layer(walk, o, 4));
  EXPECT_EQ(code(a.add_layer(walk, o, 4)), ErrorCode::kTooManyLayers);
  // play_blend keeps its kMaxLayers limit.
  const std::vector<BlendEntry> five(kMaxLayers + 1, BlendEntry{walk, 1.0f});
  EXPECT_EQ(code(a.play_blend(five, 5)), ErrorCode::kInvalidArgument);
  // An unknown event policy.
  AnimatorOptions bad;
  bad.events = static_cast<EventPolicy>(9);
  EXPECT_EQ(Animator::create(&rig, kRate, bad).error().code(), ErrorCode::kInvalidArgument);
}

TEST(Animator, PassesCountsPlayedCycles) {
  const Rig rig = layer_rig::make_rig();
  Animator a = make(rig);
  PlayOptions p;
  p.start = 0.5;
  const LayerId walk = *a.play("Walk", 0, p);
  EXPECT_DOUBLE_EQ(*a.passes(walk, 0), 0.5);
  EXPECT_DOUBLE_EQ(*a.passes(walk, 60), 1.5);
  EXPECT_DOUBLE_EQ(*a.passes(walk, 150), 3.0);
  PlayOptions pp;
  pp.playback = Playback::kPingPong;
  const LayerId run = *a.crossfade("Run", 0.0, 0, pp);
  EXPECT_NEAR(*a.passes(run, 63), 1.5, 1e-12);  // 1.05 s of 0.7: forward, half way back
  PlayOptions once;
  once.playback = Playback::kOnce;
  const LayerId breathe = *a.crossfade("Breathe", 0.0, 0, once);
  EXPECT_DOUBLE_EQ(*a.passes(breathe, 300), 2.5);  // unwrapped, past the held end
  const LayerId pose = *a.crossfade("Pose", 0.0, 0);
  EXPECT_EQ(*a.passes(pose, 10), 1e300);  // a still pose has always played through
  LayerOptions o;
  const LayerId wave = *a.add_overlay(clip(rig, "Wave"), o, 30);
  EXPECT_DOUBLE_EQ(*a.passes(wave, 30), 0.0);
  EXPECT_DOUBLE_EQ(*a.passes(wave, 75), 0.75);
  EXPECT_EQ(a.passes(LayerId{9999}, 0).error().code(), ErrorCode::kNoSuchLayer);
}

}  // namespace
}  // namespace animpack
