// After setup, playing allocates nothing: a replaced global operator new counts every
// allocation while 1000 ticks of play, crossfade, blend, events and skinning run.
#include <gtest/gtest.h>

#include <vector>

#include "animpack/animator.h"
#include "animpack/graph.h"
#include "animpack/ik.h"
#include "animpack/layers.h"
#include "animpack/skinning.h"
#include "animpack/sprite.h"
#include "fixtures/allocation_counter.h"
#include "fixtures/fixture.h"
#include "layer_rig.h"
#include "morph_rig.h"
#include "root_motion_rig.h"

namespace animpack {
namespace {

// The counter is linked in and sees allocations: the tests below could fail.
TEST(Allocation, TheCounterSeesAnAllocation) {
  fixture::start_counting_allocations();
  std::vector<int>* v = new std::vector<int>(100);
  // Let the pointer escape so the optimiser cannot elide the allocation.
  asm volatile("" : : "r"(v) : "memory");
  const long counted = fixture::stop_counting_allocations();
  delete v;
  EXPECT_GE(counted, 2);
}

TEST(Allocation, PlayingAThousandTicksAllocatesNothing) {
  // Setup: everything allocated here is allowed.
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  const fixture::Column col = fixture::make_column();
  std::vector<Vec3> pos(col.positions.size()), nrm(col.positions.size());
  std::vector<Vec4> tan(col.positions.size());
  const SkinInput in{col.positions, col.normals, col.tangents, col.joints, col.weights};
  const SkinOutput out{pos, nrm, tan};

  auto atlas = Atlas::grid({64, 32}, {16, 16}, 8);
  ASSERT_TRUE(atlas);
  std::vector<SpriteClip> sprite_clips;
  sprite_clips.push_back(
      *SpriteClip::create("run", {0, 1, 2, 3}, 12.0f, Playback::kLoop, {FrameEvent{"step", 1}}));
  sprite_clips.push_back(*SpriteClip::create("idle", {4, 5}, 4.0f, Playback::kPingPong));
  sprite_clips.push_back(*SpriteClip::create_timed("timed", {1, 2, 3}, {1, 100, 33},
                                                   Playback::kPingPong, true,
                                                   {FrameEvent{"hit", 0}, FrameEvent{"go", 2}}));
  auto sheet = SpriteSheet::create(std::move(*atlas), std::move(sprite_clips));
  ASSERT_TRUE(sheet);
  auto sprite = SpritePlayer::create(&*sheet, 60);
  ASSERT_TRUE(sprite);

  size_t events = 0;
  fixture::start_counting_allocations();
  for (int64_t tick = 0; tick < 1000; ++tick) {
    switch (tick % 200) {
      case 0:
        (void)a.play("Step", tick);
        (void)sprite->play("run", tick);
        break;
      case 20:
        (void)a.blend("Linear", 0.3f, tick);
        break;
      case 50:
        (void)a.crossfade("Rotate", 0.5, tick);
        break;
      case 80: {
        const BlendEntry e[] = {{0, 1.0f}, {1, 2.0f}, {3, 1.0f}};
        (void)a.play_blend(e, tick);
        (void)sprite->play("idle", tick);
        break;
      }
      case 100:
        (void)sprite->play("timed", tick);
        break;
      case 110:
        (void)sprite->set_speed(1.5f, tick);
        (void)sprite->set_playback(Playback::kLoop, tick);
        break;
      case 120:
        (void)a.crossfade("Cubic", 0.25, tick);
        break;
      case 150:
        (void)a.play("Nope", tick);
        (void)sprite->play("nope", tick);
        break;  // refused
      default:
        break;
    }
    events += a.advance(tick).size();
    events += sprite->advance(tick).size();
    a.evaluate(tick);
    (void)sprite->frame(tick);
    ASSERT_TRUE(skin(in, a.palette(), out));
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
  EXPECT_GT(events, 10u) << "the run did deliver events";
}

TEST(Allocation, MorphWeightsOverridesAndMorphSkinningAllocateNothing) {
  // Setup: the morph rig with an additive clip of its weights, the column with deltas for
  // the face set and a second influence set.
  const std::vector<Clip> sources = morph_rig::make_clips();
  std::vector<Clip> extra;
  extra.push_back(
      std::move(*make_additive_clip(sources[4], fixture::make_skeleton(),
                                    AdditiveReference::kFirstFrame, morph_rig::make_sets())));
  const Rig rig = morph_rig::make_rig(std::move(extra));
  Animator a = std::move(*Animator::create(&rig, 60));
  const uint16_t additive = *rig.find_clip("Mixed", AdditiveReference::kFirstFrame);
  const fixture::Column col = fixture::make_column();
  const size_t n = col.positions.size();
  std::vector<Vec3> deltas(3 * n, Vec3{0.01f, 0.02f, 0.03f});
  std::vector<JointIndices> joints1(n, JointIndices{{3, 2, 1, 0}});
  std::vector<Vec4> weights1(n, Vec4{0.1f, 0, 0, 0});
  std::vector<Vec3> pos(n), nrm(n);
  std::vector<Vec4> tan(n);
  SkinInput in{col.positions, col.normals, col.tangents, col.joints, col.weights};
  in.joints1 = joints1;
  in.weights1 = weights1;
  in.morph = MorphDeltas{3, deltas, deltas, deltas};
  const float mask[] = {0, 0, 1, 0.5f};

  fixture::start_counting_allocations();
  for (int64_t tick = 0; tick < 1000; ++tick) {
    LayerOptions layer;
    switch (tick % 200) {
      case 0:
        (void)a.play("Smile", tick);
        (void)a.set_morph_weight("bulge", 0.5f);
        break;
      case 30:
        (void)a.crossfade("Puff", 0.5, tick);
        (void)a.set_morph_weight("blink", 1.0f);  // refused: in two sets
        break;
      case 60:
        layer.weight = 0.5f;
        layer.mask = mask;
        (void)a.add_layer(*rig.find_clip("Blink"), layer, tick);
        (void)a.clear_morph_weight("bulge");
        break;
      case 90:
        layer.weight = 0.7f;
        layer.mode = LayerMode::kAdditive;
        (void)a.add_overlay(additive, layer, tick);
        (void)a.set_morph_weight(2u, -0.5f);
        break;
      case 150:
        (void)a.crossfade("Mixed", 0.25, tick);
        a.clear_morph_weights();
        break;
      case 199:
        a.stop();
        break;
      default:
        break;
    }
    (void)a.advance(tick);
    a.evaluate(tick);
    in.morph_weights = a.morph_weights().subspan(0, 3);
    ASSERT_TRUE(skin(in, a.palette(), {pos, nrm, tan}));
    MorphInput morph{col.positions, col.normals, col.tangents, in.morph, in.morph_weights};
    ASSERT_TRUE(apply_morph(morph, {pos, nrm, tan}));
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
}

TEST(Allocation, SyncedMasksAdditiveAndOverlaysAllocateNothing) {
  const Rig rig = layer_rig::make_rig();
  AnimatorOptions options;
  options.events = EventPolicy::kLead;
  Animator a = std::move(*Animator::create(&rig, 60, options));
  const MaskEntry upper[] = {{"Spine2"}, {"Neck", 0.5f}};
  const std::vector<float> mask = *make_joint_mask(rig.skeleton(), upper);
  const uint16_t walk = *rig.find_clip("Walk"), run = *rig.find_clip("Run");
  const uint16_t wave = *rig.find_clip("Wave");
  const uint16_t breathe = *rig.find_clip("Breathe", AdditiveReference::kFirstFrame);
  const BlendEntry gait[] = {{walk, 1.0f}, {run, 0.0f}};
  const BlendEntry jog[] = {{walk, 0.5f}, {run, 0.5f}};

  size_t events = 0;
  fixture::start_counting_allocations();
  LayerId mix = *a.crossfade_synced(gait, 0.0, 0);
  LayerOptions masked;
  masked.mask = mask;
  (void)a.add_overlay(wave, masked, 0);
  LayerOptions added;
  added.mode = LayerMode::kAdditive;
  added.weight = 0.5f;
  const LayerId breath = *a.add_overlay(breathe, added, 0);
  for (int64_t tick = 0; tick < 1000; ++tick) {
    const float w = static_cast<float>(tick % 100) / 100.0f;
    const float weights[] = {1.0f - w, w};
    (void)a.set_blend_weights(mix, weights, tick);
    switch (tick % 250) {
      case 100:
        (void)a.crossfade("Wave", 0.25, tick);
        break;
      case 150:
        mix = *a.crossfade_synced(jog, 0.5, tick);
        (void)a.add_layer(breathe, added, tick);
        break;
      case 200:
        (void)a.remove_overlay(breath);
        (void)a.add_overlay(breathe, added, tick);
        (void)a.set_speed(mix, 1.5f, tick);
        break;
      default:
        break;
    }
    events += a.advance(tick).size();
    a.evaluate(tick);
    (void)a.passes(mix, tick);
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
  EXPECT_GT(events, 10u) << "the run did deliver events";
}

// A state machine: a 1D blend space with a speed parameter, a once state left by exit
// time, a trigger, an any-state transition, a masked override layer and an additive one
// with weight parameters, parameter changes every tick, refused calls and play_state.
TEST(Allocation, AStateMachineOverAThousandTicksAllocatesNothing) {
  std::vector<Clip> clips;
  auto add = [&](const char* name, uint16_t joint, Property p, std::vector<float> values) {
    Clip c(name);
    const float t[] = {0.0f, 0.5f, 1.0f};
    c.add_channel(joint, p, Interpolation::kLinear, t, values);
    c.add_event("mark", 0.5f);
    clips.push_back(std::move(c));
  };
  add("Walk", 0, Property::kTranslation, {0, 0, 0, 1, 0, 0, 2, 0, 0});
  add("Run", 0, Property::kTranslation, {0, 0, 0, 2, 0, 0, 4, 0, 0});
  add("Jump", 1, Property::kTranslation, {0, 1, 0, 0, 2, 0, 0, 1, 0});
  add("Wave", 2, Property::kScale, {1, 1, 1, 2, 2, 2, 1, 1, 1});
  add("Breathe", 3, Property::kScale, {0, 0, 0, 0.5f, 0.5f, 0.5f, 0, 0, 0});
  clips.back().set_additive(AdditiveReference::kFirstFrame);
  const Rig rig = std::move(*Rig::create(fixture::make_skeleton(), std::move(clips)));

  GraphDef g;
  auto float_param = [](const char* name, float def, float lo, float hi) {
    ParameterDef p;
    p.name = name;
    p.default_value = def;
    p.min = lo;
    p.max = hi;
    return p;
  };
  ParameterDef jump;
  jump.name = "jump";
  jump.kind = ParameterKind::kTrigger;
  ParameterDef stop;
  stop.name = "stop";
  stop.kind = ParameterKind::kBool;
  g.parameters = {float_param("speed", 0.0f, 0.0f, 4.0f), jump,
                  float_param("rate", 1.0f, 0.0f, 2.0f), float_param("wave", 0.0f, 0.0f, 1.0f),
                  stop};
  StateDef loco;
  loco.name = "loco";
  loco.points = {{0, 0.0f, 0.0f}, {1, 4.0f, 0.0f}};
  loco.x_parameter = 0;
  loco.speed_parameter = 2;
  StateDef air;
  air.name = "air";
  air.clip = 2;
  air.playback = Playback::kOnce;
  StateDef idle;
  idle.name = "idle";
  idle.clip = 0;
  g.states = {loco, air, idle};
  auto when = [](ConditionKind kind, int32_t parameter, float value) {
    return ConditionDef{kind, parameter, value};
  };
  TransitionDef t0{0, 1, {when(ConditionKind::kTrigger, 1, 0.0f)}, 0.1};
  TransitionDef t1{1, 0, {when(ConditionKind::kExitTime, -1, 0.9f)}, 0.2};
  TransitionDef t2{-1, 2, {when(ConditionKind::kIs, 4, 1.0f)}, 0.25};
  TransitionDef t3{
      2, 0, {when(ConditionKind::kIs, 4, 0.0f), when(ConditionKind::kAbove, 0, 0.5f)}, 0.0};
  g.transitions = {t0, t1, t2, t3};
  LayerDef wave;
  wave.clip = 3;
  wave.weight_parameter = 3;
  wave.mask = {0.0f, 0.0f, 1.0f, 0.5f};
  LayerDef breathe;
  breathe.clip = 4;
  breathe.mode = LayerMode::kAdditive;
  breathe.weight = 0.5f;
  g.layers = {wave, breathe};

  AnimatorOptions options;
  options.events = EventPolicy::kLead;
  Animator a = std::move(*Animator::create(&rig, 60, options));
  auto machine = StateMachine::create(&g, &a, 0);
  ASSERT_TRUE(machine) << machine.error().message();

  size_t events = 0;
  size_t refused = 0;
  fixture::start_counting_allocations();
  for (int64_t tick = 0; tick < 1000; ++tick) {
    const float phase = static_cast<float>(tick % 200) / 200.0f;
    (void)machine->set_float("speed", 4.0f * phase);
    (void)machine->set_float("rate", 0.5f + phase);
    (void)machine->set_float("wave", phase);
    if (tick % 100 == 10) (void)machine->fire_trigger("jump");
    if (tick % 250 == 120) (void)machine->set_bool("stop", true);
    if (tick % 250 == 160) (void)machine->set_bool("stop", false);
    if (tick % 300 == 290) (void)machine->play_state("idle", 0.1, tick);
    refused += machine->set_float("nope", 1.0f) ? 0 : 1;
    refused += machine->set_float("speed", 9.0f) ? 0 : 1;
    refused += machine->fire_trigger("speed") ? 0 : 1;
    machine->update(tick);
    events += a.advance(tick).size();
    a.evaluate(tick);
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
  EXPECT_EQ(refused, 3000u);
  EXPECT_GT(machine->transitions_fired(), 10u) << "the run did take transitions";
  EXPECT_GT(events, 10u) << "the run did deliver events";
}

// IK after evaluate, every tick: all four solver kinds with targets, poles, weights and
// grounds changed each tick, then the palette.
TEST(Allocation, IkEveryTickAllocatesNothing) {
  const Rig rig = layer_rig::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  using namespace layer_rig;  // joint names
  std::vector<IkSolverDef> defs(4);
  defs[0].name = "foot";
  defs[0].kind = IkKind::kFoot;
  defs[0].joints = {kSpine, kSpine2, kNeck};
  defs[1].name = "reach";
  defs[1].kind = IkKind::kTwoBone;
  defs[1].joints = {kSpine, kSpine2, kNeck};
  defs[2].name = "tail";
  defs[2].kind = IkKind::kChain;
  defs[2].joints = {kSpine2, kNeck, kHead};
  defs[3].name = "look";
  defs[3].kind = IkKind::kAim;
  defs[3].joints = {kHead};
  defs[3].max_angle = 1.0f;
  IkSet ik = std::move(*IkSet::create(&rig.skeleton(), defs));
  (void)a.play("Walk", 0);

  fixture::start_counting_allocations();
  for (int64_t tick = 0; tick < 1000; ++tick) {
    const float s = static_cast<float>(tick % 100) / 100.0f;
    (void)ik.set_ground(0, s * 0.1f - 0.05f, normalize(Vec3{s * 0.2f, 1.0f, 0.0f}));
    (void)ik.set_target(1, {0.2f * s, 1.4f, 0.1f});
    (void)ik.set_pole(1, {0.0f, 0.0f, 1.0f});
    (void)ik.set_target(2, {0.0f, 1.6f, 0.2f * s});
    (void)ik.set_target(3, {2.0f * s - 1.0f, 1.7f, 2.0f});
    (void)ik.set_weight(3, s);
    (void)ik.set_weight(5, s);  // refused
    if (tick % 300 == 150) (void)ik.clear_target(2);
    a.evaluate(tick);
    ik.apply(a.mutable_locals(), a.mutable_globals());
    a.refresh_palette();
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
}

// Root motion with accumulate and yaw: plays, crossfades, blends, a synced mix, overlays,
// speed, start and playback changes and takes every tick, on a 1000-tick run.
TEST(Allocation, RootMotionOverAThousandTicksAllocatesNothing) {
  const Rig rig = root_motion_rig::make_rig();
  RootMotionConfig config;
  config.policy = RootMotionPolicy::kAccumulate;
  config.joint = root_motion_rig::kHips;
  config.extract = kExtractHorizontal | kExtractVertical | kExtractYaw;
  std::vector<std::vector<RootMotionSample>> baked;
  for (const Clip& clip : rig.clips()) {
    auto t = bake_root_motion(rig.skeleton(), clip, config);
    baked.push_back(t ? std::move(*t) : std::vector<RootMotionSample>{});
  }
  const std::vector<RootMotionTrack> tracks(baked.begin(), baked.end());
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.set_root_motion(config, tracks));
  const uint16_t walk = *rig.find_clip("Walk"), strafe = *rig.find_clip("Strafe"),
                 turn = *rig.find_clip("Turn");
  LayerOptions overlay;
  overlay.weight = 0.3f;
  int64_t moved = 0;
  LayerId id;
  fixture::start_counting_allocations();
  for (int64_t tick = 0; tick < 1000; ++tick) {
    switch (tick % 250) {
      case 0:
        id = *a.play(turn, tick);
        break;
      case 30:
        (void)a.blend(walk, 0.4f, tick);
        (void)a.set_speed(id, 1.5f, tick);
        break;
      case 60:
        (void)a.crossfade(strafe, 0.5, tick);
        (void)a.add_overlay(walk, overlay, tick);
        break;
      case 100: {
        const BlendEntry e[] = {{walk, 1.0f}, {turn, 2.0f}};
        id = *a.crossfade_synced(e, 0.25, tick);
        break;
      }
      case 150:
        (void)a.set_playback(id, Playback::kPingPong, tick);
        break;
      case 200:
        (void)a.set_start(id, 0.5, tick);
        a.stop();
        id = *a.play(walk, tick);
        break;
      default:
        break;
    }
    (void)a.advance(tick);
    a.evaluate(tick);
    const RootMotionDelta d = a.take_root_motion();
    moved += d.z < 0 ? -d.z : d.z;
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
  EXPECT_GT(moved, 0) << "the run did collect motion";
}

// Sub-tick poses (evaluate(tick, fraction)) between the ticks of a crossfading, blending
// run, refused fractions too, allocate nothing.
TEST(Allocation, SubTickPosesAllocateNothing) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  size_t refused = 0;
  fixture::start_counting_allocations();
  for (int64_t tick = 0; tick < 600; ++tick) {
    if (tick % 100 == 0) (void)a.play("Linear", tick);
    if (tick % 100 == 30) (void)a.crossfade("Rotate", 0.5, tick);
    if (tick % 100 == 50) (void)a.blend("Cubic", 0.4f, tick);
    (void)a.advance(tick);
    a.evaluate(tick);
    for (const float f : {0.25f, 0.5f, 0.75f}) (void)a.evaluate(tick, f);
    if (!a.evaluate(tick, 1.0f)) ++refused;
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
  EXPECT_EQ(refused, 600u);
}

}  // namespace
}  // namespace animpack
