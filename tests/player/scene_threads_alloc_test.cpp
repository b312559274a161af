// ScenePlayer::step() on the built-in ThreadPool allocates nothing after create(): the
// replaced global operator new counts every allocation on every thread (the pool's
// workers included) while ticks of play calls, IK targets, root motion, events and
// posed snapshots run on 2 and 3 threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <utility>

#include "animpack/jobs.h"
#include "animpack/scene_player.h"
#include "fixtures/allocation_counter.h"
#include "motion_fixture.h"
#include "scene_fixture.h"

namespace animpack {
namespace {

struct ThreadedGame : Game {
  size_t events = 0;
  void tick(ScenePlayer& p, int64_t t) override {
    switch (t % 50) {
      case 0:
        p.animate(ObjectId{player_fixture::kIdler}, "Linear").blend("Rotate", 0.4f).fade(0.2);
        (void)p.play_clip(ObjectId{player_fixture::kHero}, "run");
        break;
      case 20:
        p.animate(ObjectId{player_fixture::kWalker}, "Cubic").fade(0.3).ping_pong();
        (void)p.play_clip(ObjectId{player_fixture::kRunner}, "Nope");  // refused
        break;
      case 40:
        (void)p.stop_animation(ObjectId{player_fixture::kIdler});
        (void)p.play_clip(ObjectId{player_fixture::kBox}, "Bob");
        break;
      default:
        break;
    }
  }
  void animated(ScenePlayer&, std::span<const AnimationEvent> e) override { events += e.size(); }
};

struct IkGame : Game {
  int64_t collected = 0;
  void tick(ScenePlayer& p, int64_t t) override {
    const ObjectId walker{motion_fixture::kWalker};
    (void)p.set_ik_target(walker, "arm", {0.5f + static_cast<float>(t % 20) * 0.05f, 1.5f, 0});
    if (Result<RootMotionDelta> d = p.take_root_motion(walker)) collected += d->z;
  }
};

TEST(ScenePlayerThreadsAllocation, StepsOnTheBuiltInPoolAllocateNothing) {
  const Pack scene = player_fixture::make_pack();
  const Pack motion = motion_fixture::make_pack();
  for (const uint32_t threads : {2u, 3u}) {
    ScenePlayerOptions options;
    options.threads = threads;
    ScenePlayer a = std::move(*ScenePlayer::create(&scene, 60, options));
    ScenePlayer b = std::move(*ScenePlayer::create(&motion, 60, options));
    ASSERT_NE(a.job_runner(), nullptr);
    ThreadedGame game;
    IkGame ik;
    size_t poses = 0;
    fixture::start_counting_allocations();
    for (int t = 0; t < 500; ++t) {
      a.step(&game);
      b.step(&ik);
      poses += a.posed().objects.size() + b.posed().objects.size();
    }
    EXPECT_EQ(fixture::stop_counting_allocations(), 0) << threads << " threads";
    EXPECT_GT(game.events, 50u) << "the run did deliver events";
    EXPECT_GT(poses, 0u);
  }
}

TEST(ScenePlayerThreadsAllocation, ThreadPoolRunsAllocateNothing) {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(4);
  ASSERT_TRUE(pool);
  uint64_t sums[1000] = {};
  fixture::start_counting_allocations();
  for (int r = 0; r < 200; ++r) {
    (*pool)->run(
        1000,
        [](void* c, uint32_t begin, uint32_t end) {
          for (uint32_t i = begin; i < end; ++i) static_cast<uint64_t*>(c)[i] += i;
        },
        sums);
  }
  EXPECT_EQ(fixture::stop_counting_allocations(), 0);
  EXPECT_EQ(sums[999], 999u * 200u);
}

}  // namespace
}  // namespace animpack
