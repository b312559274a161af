// The morph golden run: the morph rig (morph_rig.h: a weights channel of each
// interpolation, STEP, LINEAR and CUBICSPLINE) played for a scripted 360 ticks of plays,
// crossfades, blends, an overlay with a mask, an additive layer and the game's overrides,
// hashed each tick over every morph weight, every palette bit and every skinned position
// and normal of the fixture column morphed by the face set (three targets) and skinned
// with eight influences. The value is the same in Debug and Release, on x86-64 and
// aarch64 (the runtime-only cross build runs it, scripts/cross_aarch64.sh); a change to
// it is a change in playback, to be made deliberately.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "animpack/animator.h"
#include "animpack/layers.h"
#include "animpack/skinning.h"
#include "fixtures/fixture.h"
#include "fixtures/fnv.h"
#include "morph_rig.h"

namespace animpack {
namespace {

// FNV-1a 64 of the run below.
constexpr uint64_t kMorphGoldenHash = 0xfca4d1108c1bd11a;

// The column with deltas for the face set's three targets and a second influence set.
struct MorphColumn {
  fixture::Column column;
  std::vector<Vec3> position_deltas, normal_deltas;  // 3 targets x vertices
  std::vector<JointIndices> joints1;
  std::vector<Vec4> weights0, weights1;
};

MorphColumn make_morph_column() {
  MorphColumn m;
  m.column = fixture::make_column();
  const size_t n = m.column.positions.size();
  for (uint32_t t = 0; t < 3; ++t) {
    for (size_t v = 0; v < n; ++v) {
      const float a = static_cast<float>((v + t) % 5);
      const float b = static_cast<float>((v * 3 + t) % 7);
      m.position_deltas.push_back({0.01f * a * static_cast<float>(t + 1), 0.02f * b, -0.005f * a});
      m.normal_deltas.push_back({0.0f, 0.1f * static_cast<float>(t), 0.05f * b});
    }
  }
  // Four fifths on the column's own weights, one fifth on bone3 - joint (influence 5).
  for (size_t v = 0; v < n; ++v) {
    const Vec4& w = m.column.weights[v];
    m.weights0.push_back({w.x * 0.8f, w.y * 0.8f, w.z * 0.8f, w.w * 0.8f});
    const uint16_t j = m.column.joints[v].j[0];
    m.joints1.push_back(JointIndices{{static_cast<uint16_t>(3 - j), 0, 0, 0}});
    m.weights1.push_back({0.2f, 0.0f, 0.0f, 0.0f});
  }
  return m;
}

uint64_t morph_run() {
  const std::vector<Clip> sources = morph_rig::make_clips();
  std::vector<Clip> extra;
  extra.push_back(
      std::move(*make_additive_clip(sources[4], fixture::make_skeleton(),
                                    AdditiveReference::kFirstFrame, morph_rig::make_sets())));
  const Rig rig = morph_rig::make_rig(std::move(extra));
  const uint16_t smile = *rig.find_clip("Smile"), blink = *rig.find_clip("Blink"),
                 puff = *rig.find_clip("Puff"), walk = *rig.find_clip("Walk"),
                 mixed = *rig.find_clip("Mixed"),
                 mixed_add = *rig.find_clip("Mixed", AdditiveReference::kFirstFrame);
  Animator a = std::move(*Animator::create(&rig, 60));
  const MorphColumn m = make_morph_column();
  const size_t n = m.column.positions.size();
  std::vector<Vec3> pos(n), nrm(n);
  SkinInput in{m.column.positions, m.column.normals, {}, m.column.joints, m.weights0};
  in.joints1 = m.joints1;
  in.weights1 = m.weights1;
  in.morph = MorphDeltas{3, m.position_deltas, m.normal_deltas, {}};
  const float head_half[] = {0, 0, 0.5f, 0.5f};
  fixture::Fnv fnv;
  for (int64_t tick = 0; tick < 360; ++tick) {
    PlayOptions o;
    LayerOptions layer;
    switch (tick) {
      case 0:
        (void)a.play(smile, tick);
        break;
      case 30:
        (void)a.set_morph_weight("bulge", 0.75f);
        break;
      case 40:
        (void)a.crossfade(puff, 0.5, tick);
        break;
      case 70:
        (void)a.blend(blink, 0.4f, tick);
        break;
      case 100:
        layer.weight = 0.3f;
        layer.mask = head_half;
        (void)a.add_overlay(mixed, layer, tick);
        break;
      case 130:
        (void)a.clear_morph_weight("bulge");
        (void)a.set_morph_weight("face/frown", -0.25f);
        break;
      case 160: {
        const BlendEntry e[] = {{smile, 1.0f}, {mixed, 2.0f}};
        (void)a.play_blend(e, tick);
        break;
      }
      case 200:
        o.playback = Playback::kPingPong;
        (void)a.crossfade(blink, 0.25, tick, o);
        break;
      case 240:
        layer.weight = 0.6f;
        layer.mode = LayerMode::kAdditive;
        (void)a.add_layer(mixed_add, layer, tick);
        break;
      case 280:
        a.clear_morph_weights();
        (void)a.crossfade(walk, 1.0, tick);
        break;
      case 320:
        (void)a.set_morph_weight(4u, 1.5f);
        (void)a.set_speed(LayerId{1}, 2.0f, tick);  // refused or not, the same each run
        break;
      default:
        break;
    }
    (void)a.advance(tick);
    a.evaluate(tick);
    const std::span<const float> w = a.morph_weights();
    fnv.bytes(w.data(), w.size_bytes());
    for (const Mat4& x : a.palette()) fnv.bytes(x.m, sizeof x.m);
    in.morph_weights = w.subspan(rig.morph_sets()[0].first, rig.morph_sets()[0].size());
    if (!skin(in, a.palette(), {pos, nrm, {}})) return 0;
    fnv.bytes(pos.data(), n * sizeof(Vec3));
    fnv.bytes(nrm.data(), n * sizeof(Vec3));
  }
  return fnv.h;
}

TEST(MorphGolden, ScriptedRunHashesToTheGoldenValue) {
  const uint64_t h = morph_run();
  EXPECT_EQ(h, kMorphGoldenHash) << "got 0x" << std::hex << h;
}

TEST(MorphGolden, TwoRunsGiveTheSameBits) { EXPECT_EQ(morph_run(), morph_run()); }

TEST(MorphGolden, TheRunMovesTheWeightsAndTheOverridesShow) {
  // The hash covers something: the weights change over the run, and an override shows.
  const Rig rig = morph_rig::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Smile", 0));
  a.evaluate(10);
  const float early = a.morph_weights()[0];
  a.evaluate(50);
  EXPECT_NE(early, a.morph_weights()[0]);
  ASSERT_TRUE(a.set_morph_weight("face/frown", -0.25f));
  a.evaluate(50);
  EXPECT_EQ(a.morph_weights()[2], -0.25f);
}

}  // namespace
}  // namespace animpack
