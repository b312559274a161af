// After ScenePlayer::create, playing allocates nothing: a replaced global operator new
// counts every allocation while 1000 ticks of steps, plays, fades, blends, stops, sprite
// switches, refused calls, events and posed snapshots run.
#include <gtest/gtest.h>

#include "animpack/compiler/mesh_bounds.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/scene_player.h"
#include "fixtures/allocation_counter.h"
#include "fixtures/graph_fixture.h"
#include "morph_fixture.h"
#include "motion_fixture.h"
#include "scene_fixture.h"

namespace animpack {
namespace {

using namespace player_fixture;

struct BusyGame : Game {
  size_t events = 0;
  size_t errors = 0;
  void tick(ScenePlayer& p, int64_t t) override {
    const ObjectId walker{kWalker}, runner{kRunner}, idler{kIdler}, box{kBox}, hero{kHero},
        flag{kFlag};
    switch (t % 100) {
      case 0:
        p.animate(idler, "Linear").blend("Rotate", 0.4f).blend("Step", 0.2f);
        (void)p.play_clip(hero, "run");
        break;
      case 15:
        p.animate(walker, "Cubic").fade(0.3).ping_pong().speed(0.5f);
        (void)p.play_clip(flag, "jump");
        break;
      case 30:
        (void)p.blend_clip(walker, "Step", 0.5f);
        (void)p.stop_animation(box);
        break;
      case 45:
        (void)p.play_clip(runner, "Nope");                     // refused
        (void)p.animate(hero, "idle").fade(0.2).done();        // refused
        (void)p.animate(walker, "Linear").blend("Jog", 0.5f);  // refused
        errors += p.animation_errors().size();
        break;
      case 60:
        p.animate(runner, "Rotate").fade(0.5).once().start(0.1);
        (void)p.play_clip(box, "Bob");
        break;
      case 80:
        (void)p.stop_animation(idler);
        p.animate(hero, "jump").speed(2.0f).looped();
        break;
      default:
        break;
    }
  }
  void animated(ScenePlayer&, std::span<const AnimationEvent> e) override { events += e.size(); }
};

// Crossfades the walker between its walk and the fixture's Linear clip (both tracked).
void crossfade_walker(ScenePlayer& player, ObjectId walker, int64_t t) {
  (void)player.animate(walker, t % 100 == 0 ? "Linear" : "Walk").fade(0.3).done();
}

TEST(PlayerAllocation, AThousandTicksOfAScriptedGameAllocateNothing) {
  // Setup: everything allocated here is allowed.
  const Pack pack = make_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  const ObjectId walker = *player.find("walker");
  BusyGame game;
  Camera camera;
  camera.eye = {3, 2, 6};
  size_t poses = 0;

  fixture::start_counting_allocations();
  for (int64_t t = 0; t < 1000; ++t) {
    player.step(&game);
    const Posed& posed = player.posed(&camera);
    poses += posed.objects.size();
    poses += player.palette(walker).size();
    poses += player.sprite_frame(ObjectId{kHero});
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
  EXPECT_GT(game.events, 100u) << "the run did deliver events";
  EXPECT_GT(game.errors, 0u) << "and refusals";
  EXPECT_GT(poses, 0u);
  EXPECT_EQ(player.dropped_events(), 0u);
}

// A state machine's parameters, triggers, transitions, fades, blend spaces, overlays,
// refused parameter calls and play calls, and Animate's masked and additive layers.
struct GraphGame : Game {
  size_t events = 0;
  size_t errors = 0;
  void tick(ScenePlayer& p, int64_t t) override {
    const ObjectId hero{0}, layered{1}, plain{2};
    static const float kMask[] = {1.0f, 0.5f, 0.0f, 1.0f};
    // speed sweeps 0..6 and back over 200 ticks: the blend space moves, strafe comes.
    const int64_t phase = t % 200;
    const float speed = static_cast<float>(phase < 100 ? phase : 200 - phase) * 0.06f;
    (void)p.set_parameter(hero, "speed", speed);
    (void)p.set_parameter(hero, "tired", static_cast<float>(t % 50) / 50.0f);
    (void)p.set_parameter(hero, "turn", phase < 100 ? 0.5f : -0.5f);
    switch (t % 100) {
      case 10:
        (void)p.fire_trigger(hero, "jump");
        (void)p.animate(plain, "Step").additive("Breathe", 0.5f, kMask).done();
        break;
      case 30:
        (void)p.set_parameter(hero, "grounded", (t / 100) % 2 == 0);
        (void)p.play_clip(layered, "Rotate");
        break;
      case 50:
        (void)p.play_state(hero, "locomotion", 0.2);
        (void)p.animate(plain, "Linear").blend("Rotate", 0.5f, kMask).fade(0.1).done();
        break;
      case 70:
        (void)p.set_parameter(hero, "sped", 1.0f);                       // refused
        (void)p.set_parameter(hero, "speed", 99.0f);                     // refused
        (void)p.fire_trigger(hero, "speed");                             // refused
        (void)p.play_state(hero, "fly");                                 // refused
        (void)p.play_clip(hero, "Step");                                 // refused
        (void)p.animate(plain, "Step").additive("Rotate", 1.0f).done();  // refused
        errors += p.animation_errors().size();
        break;
      default:
        break;
    }
  }
  void animated(ScenePlayer&, std::span<const AnimationEvent> e) override { events += e.size(); }
};

// Morph weights every tick, the game setting, clearing and misnaming them, and posed().
struct FaceGame : Game {
  void tick(ScenePlayer& p, int64_t t) override {
    const ObjectId face{0}, plain{1};
    switch (t % 100) {
      case 0:
        (void)p.set_morph_weight(face, "smile", 0.5f);
        (void)p.play_clip(face, "Puff");
        break;
      case 25:
        p.animate(face, "Blink").fade(0.2).blend("Mixed", 0.5f);
        (void)p.set_morph_weight(face, "body/blink", 1.0f);
        break;
      case 50:
        (void)p.clear_morph_weight(face, "smile");
        (void)p.set_morph_weight(face, "blink", 1.0f);   // refused: in two sets
        (void)p.set_morph_weight(plain, "smile", 1.0f);  // refused: no morph sets
        break;
      case 75:
        (void)p.clear_morph_weight(face, "body/blink");
        p.animate(face, "Smile").fade(0.25);
        break;
      default:
        break;
    }
  }
};

TEST(PlayerAllocation, AThousandTicksOfMorphWeightsAllocateNothing) {
  const Pack pack = morph_fixture::make_morph_pack();
  ScenePlayer player = morph_fixture::must(ScenePlayer::create(&pack, 60), "player");
  FaceGame game;
  float sum = 0.0f;
  fixture::start_counting_allocations();
  for (int i = 0; i < 1000; ++i) {
    player.step(&game);
    const Posed& posed = player.posed();
    for (float w : posed.objects[0].morph_weights) sum += w;
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
  EXPECT_NE(sum, 0.0f) << "the weights moved";
}

TEST(PlayerAllocation, AThousandTicksOfAStateMachineAllocateNothing) {
  const std::vector<uint8_t> bytes = write_pack(fixture::make_graph_pack());
  Result<Pack> pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  ScenePlayer player = std::move(*ScenePlayer::create(&*pack, 60));
  GraphGame game;
  size_t states = 0;
  fixture::start_counting_allocations();
  for (int64_t t = 0; t < 1000; ++t) {
    player.step(&game);
    states += player.state(ObjectId{0}).size();
    states += player.posed().objects.size();
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
  EXPECT_GT(game.events, 50u) << "the run did deliver events";
  EXPECT_GT(game.errors, 0u) << "and refusals";
  EXPECT_GT(player.state_machine(ObjectId{0})->transitions_fired(), 5u) << "and transitions";
  EXPECT_GT(states, 0u);
  EXPECT_EQ(player.dropped_events(), 0u);
}

// world_bounds answers from the stored bounds without allocating, and so does its
// refusal for a pack without bounds (make_pack() computes none: every mesh refuses).
TEST(PlayerAllocation, WorldBoundsAllocateNothing) {
  CookedPack cooked = make_cooked();
  for (CookedMesh& m : cooked.meshes) {
    compute_mesh_bounds(m, m.rig >= 0 ? &cooked.rigs[static_cast<size_t>(m.rig)] : nullptr);
  }
  const std::vector<uint8_t> bytes = write_pack(cooked);
  Result<Pack> bounded = Pack::from_bytes(bytes);
  ASSERT_TRUE(bounded);
  const Pack unbounded = make_pack();
  for (const Pack* pack : {static_cast<const Pack*>(&*bounded), &unbounded}) {
    ScenePlayer player = std::move(*ScenePlayer::create(pack, 60));
    size_t boxes = 0, refused = 0;
    fixture::start_counting_allocations();
    for (int64_t t = 0; t < 200; ++t) {
      player.step();
      for (uint32_t o = 0; o < player.object_count(); ++o) {
        const Result<Box> box = player.world_bounds(ObjectId{o});
        if (box) {
          boxes += box->valid() ? 1 : 0;
        } else {
          ++refused;
        }
      }
    }
    EXPECT_EQ(fixture::stop_counting_allocations(), 0);
    EXPECT_GT(boxes, 0u);
    EXPECT_EQ(refused > 0, pack == &unbounded);
  }
}

// Root motion collected and taken every tick, two IK solvers moving their targets,
// weights and poles, refused IK calls and crossfades between clips with tracks.
TEST(PlayerAllocation, AThousandTicksWithRootMotionAndIkAllocateNothing) {
  const Pack pack = motion_fixture::make_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  const ObjectId walker{motion_fixture::kWalker}, plain{motion_fixture::kPlain};
  int64_t travel = 0;
  size_t refused = 0;
  fixture::start_counting_allocations();
  for (int64_t t = 0; t < 1000; ++t) {
    const float s = static_cast<float>(t % 100) / 100.0f;
    (void)player.set_ik_target(walker, "arm", {s, 2.5f, 0.2f});
    (void)player.set_ik_target(walker, "look", {2.0f, 4.0f, s});
    (void)player.set_ik_weight(walker, "look", s);
    if (t % 50 == 0) {
      (void)player.set_ik_pole(walker, "arm", {0, 0, t % 100 == 0 ? 1.0f : -1.0f});
      crossfade_walker(player, walker, t);
      (void)player.set_ik_target(plain, "arm", {0, 1, 0});  // refused: no IK
      (void)player.set_ik_weight(walker, "nope", 1.0f);     // refused: no such solver
      refused += player.animation_errors().size();
    }
    player.step();
    Result<RootMotionDelta> d = player.take_root_motion(walker);
    if (d) travel += d->z;
    // The game moves the walker by what it took (set_transform), and refuses a bad one.
    Trs placed = player.transform(walker);
    placed.translation.z += root_motion_translation(d ? *d : RootMotionDelta{}).z;
    (void)player.set_transform(walker, placed);
    if (t % 50 == 0) (void)player.set_transform(walker, Trs{{}, {}, {0, 1, 1}});  // refused
    (void)player.posed();
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
  EXPECT_NE(travel, 0) << "motion was collected";
  EXPECT_GT(refused, 0u) << "and calls refused";
}

// Sub-tick renders (evaluate_render, three a tick, and a refused one) between the steps of
// the scripted game, with IK and root motion in the motion pack, allocate nothing.
TEST(PlayerAllocation, SubTickRendersAllocateNothing) {
  const Pack pack = make_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  BusyGame game;
  const Pack motion = motion_fixture::make_pack();
  ScenePlayer mover = std::move(*ScenePlayer::create(&motion, 60));
  const ObjectId walker{motion_fixture::kWalker};
  Camera camera;
  camera.eye = {3, 2, 6};
  size_t poses = 0;
  fixture::start_counting_allocations();
  for (int64_t t = 0; t < 1000; ++t) {
    player.step(&game);
    (void)mover.set_ik_target(walker, "arm", {static_cast<float>(t % 100) / 100.0f, 2.5f, 0.2f});
    mover.step();
    for (const float f : {0.25f, 0.5f, 0.75f}) {
      (void)player.evaluate_render(f);
      poses += player.posed(&camera).objects.size();
      (void)mover.evaluate_render(f);
      poses += mover.posed().objects.size();
    }
    (void)player.evaluate_render(-1.0f);  // refused
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
  EXPECT_GT(poses, 0u);
}

}  // namespace
}  // namespace animpack
