// After setup, playing allocates nothing: a replaced global operator new counts every
// allocation while 1000 ticks of play, crossfade, blend, events and skinning run.
#include <gtest/gtest.h>

#include <vector>

#include "animpack/animator.h"
#include "animpack/layers.h"
#include "animpack/skinning.h"
#include "animpack/sprite.h"
#include "fixtures/allocation_counter.h"
#include "fixtures/fixture.h"
#include "layer_rig.h"

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

}  // namespace
}  // namespace animpack
