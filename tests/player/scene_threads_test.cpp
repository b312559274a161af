// The ScenePlayer on several threads (scene_player.h, "Threads"; jobs.h): the built-in
// ThreadPool's parallel-for, and step() on 1, 2, 3 and 8 threads and on game-supplied
// runners giving the same palettes, previous palettes, sprite frames, events and refused
// calls, bit for bit, as the one-thread step() over scripted games on packs of hundreds
// of objects (the scene, root motion + IK and state machine fixtures, each object copied
// many times with its own start).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/jobs.h"
#include "animpack/scene_player.h"
#include "fixtures/graph_fixture.h"
#include "motion_fixture.h"
#include "scene_fixture.h"

namespace animpack {
namespace {

namespace pf = player_fixture;
namespace mf = motion_fixture;

// ---------------------------------------------------------------------------- ThreadPool

TEST(ThreadPool, EveryIndexRunsExactlyOnceOnEveryThreadCount) {
  for (const uint32_t threads : {1u, 2u, 3u, 8u}) {
    Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(threads);
    ASSERT_TRUE(pool) << pool.error().message();
    EXPECT_EQ((*pool)->thread_count(), threads);
    for (const uint32_t count : {0u, 1u, 2u, 7u, 64u, 1000u, 4099u}) {
      std::vector<std::atomic<int>> hits(count);
      struct Context {
        std::vector<std::atomic<int>>* hits;
        std::atomic<int> calls{0};
        std::atomic<bool> bad_range{false};
        uint32_t count = 0;
      } ctx;
      ctx.hits = &hits;
      ctx.count = count;
      for (int repeat = 0; repeat < 3; ++repeat) {
        (*pool)->run(
            count,
            [](void* c, uint32_t begin, uint32_t end) {
              auto& x = *static_cast<Context*>(c);
              if (!(begin < end && end <= x.count)) x.bad_range = true;
              ++x.calls;
              for (uint32_t i = begin; i < end && i < x.count; ++i) ++(*x.hits)[i];
            },
            &ctx);
      }
      EXPECT_FALSE(ctx.bad_range) << threads << " threads, " << count;
      for (uint32_t i = 0; i < count; ++i) {
        ASSERT_EQ(hits[i].load(), 3) << threads << " threads, " << count << " indexes, index " << i;
      }
      if (count == 0) {
        EXPECT_EQ(ctx.calls.load(), 0);
      }
    }
  }
}

TEST(ThreadPool, RefusesZeroAndTooManyThreads) {
  Result<std::unique_ptr<ThreadPool>> none = ThreadPool::create(0);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), ErrorCode::kInvalidArgument);
  Result<std::unique_ptr<ThreadPool>> many = ThreadPool::create(ThreadPool::kMaxThreads + 1);
  ASSERT_FALSE(many);
  EXPECT_EQ(many.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_STREQ(error_code_name(ErrorCode::kNoThread), "no_thread");
}

TEST(ThreadPool, JobsRunOnTheWorkersTooWhenTheCallerWaits) {
  // The caller's own share waits until a worker has run a range, so the run can only end
  // well if the workers take part (a pool that ran everything on the caller would wait
  // here: the wait is bounded, 10 s, and reported).
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(2);
  ASSERT_TRUE(pool);
  struct Context {
    std::thread::id caller;
    std::atomic<int> by_workers{0};
    std::atomic<bool> gave_up{false};
  } ctx;
  ctx.caller = std::this_thread::get_id();
  (*pool)->run(
      64,
      [](void* c, uint32_t, uint32_t) {
        auto& x = *static_cast<Context*>(c);
        if (std::this_thread::get_id() != x.caller) {
          ++x.by_workers;
          return;
        }
        for (int i = 0; i < 100000 && x.by_workers.load() == 0; ++i) {
          std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
        if (x.by_workers.load() == 0) x.gave_up = true;
      },
      &ctx);
  EXPECT_FALSE(ctx.gave_up) << "no worker ran a range within 10 s";
  EXPECT_GT(ctx.by_workers.load(), 0);
}

// ---------------------------------------------------------------------------- players

// FNV-1a over what a tick shows.
struct Digest {
  uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  template <class T>
  void value(const T& v) {
    bytes(&v, sizeof v);
  }
  void text(std::string_view s) {
    value(s.size());
    bytes(s.data(), s.size());
  }
};

// One tick's palettes, previous palettes, morph weights, sprite frames, events and errors.
uint64_t digest_tick(ScenePlayer& player) {
  Digest d;
  d.value(player.tick());
  const Posed& posed = player.posed();
  for (const PosedObject& o : posed.objects) {
    d.bytes(o.palette.data(), o.palette.size_bytes());
    d.bytes(o.previous_palette.data(), o.previous_palette.size_bytes());
    d.bytes(o.morph_weights.data(), o.morph_weights.size_bytes());
    d.value(o.sprite_frame);
    d.bytes(&o.model, sizeof o.model);
  }
  for (const AnimationEvent& e : player.animation_events()) {
    d.value(e.tick);
    d.value(e.object.value);
    d.value(e.sprite);
    d.value(e.clip);
    d.text(e.clip_name);
    d.text(e.event);
  }
  for (const AnimationError& e : player.animation_errors()) {
    d.value(e.tick);
    d.value(e.object.value);
    d.value(e.error.code());
    d.text(e.error.message());
  }
  return d.h;
}

// `cooked`'s objects copied `copies` times (each copy after all of the previous one, names
// suffixed, starts shifted so that every copy plays at its own time).
Pack copied(CookedPack cooked, int copies) {
  const std::vector<CookedObject> base = cooked.objects;
  cooked.objects.clear();
  for (int c = 0; c < copies; ++c) {
    for (const CookedObject& from : base) {
      CookedObject o = from;
      o.name += "_" + std::to_string(c);
      o.animation.start += 0.011f * static_cast<float>(c % 37);
      o.position.x += static_cast<float>(c);
      cooked.objects.push_back(std::move(o));
    }
  }
  const std::vector<uint8_t> bytes = write_pack(cooked);
  Result<Pack> pack = Pack::from_bytes(bytes);
  if (!pack) {
    ADD_FAILURE() << pack.error().message();
    std::abort();
  }
  return std::move(*pack);
}

// Drives every copy of the scene fixture's objects with plays, fades, blends, stops and
// refused calls, a few copies each tick.
struct SceneGame : Game {
  uint32_t copies = 0;
  uint64_t seen = 0;  // events handed to animated()
  void tick(ScenePlayer& p, int64_t t) override {
    for (uint32_t c = static_cast<uint32_t>(t % 7); c < copies; c += 7) {
      auto id = [&](uint32_t kind) { return ObjectId{c * pf::kCount + kind}; };
      switch ((t / 7 + c) % 6) {
        case 0:
          p.animate(id(pf::kIdler), "Linear").blend("Rotate", 0.4f).blend("Step", 0.2f);
          (void)p.play_clip(id(pf::kHero), "run");
          break;
        case 1:
          p.animate(id(pf::kWalker), "Cubic").fade(0.3).ping_pong().speed(0.5f);
          (void)p.play_clip(id(pf::kFlag), "jump");
          break;
        case 2:
          (void)p.blend_clip(id(pf::kWalker), "Step", 0.5f);
          (void)p.stop_animation(id(pf::kBox));
          break;
        case 3:
          (void)p.play_clip(id(pf::kRunner), "Nope");               // refused
          (void)p.animate(id(pf::kHero), "idle").fade(0.2).done();  // refused
          break;
        case 4:
          p.animate(id(pf::kRunner), "Rotate").fade(0.5).once().start(0.1);
          (void)p.play_clip(id(pf::kBox), "Bob");
          break;
        default:
          (void)p.stop_animation(id(pf::kIdler));
          p.animate(id(pf::kHero), "jump").speed(2.0f).looped();
          break;
      }
    }
  }
  void animated(ScenePlayer&, std::span<const AnimationEvent> e) override { seen += e.size(); }
};

// Moves the walkers' IK targets and collects their root motion.
struct MotionGame : Game {
  uint32_t copies = 0;
  uint64_t seen = 0;  // the root motion collected
  void tick(ScenePlayer& p, int64_t t) override {
    for (uint32_t c = static_cast<uint32_t>(t % 5); c < copies; c += 5) {
      const ObjectId walker{c * mf::kCount + mf::kWalker};
      const float s = static_cast<float>((t + c) % 40) * 0.05f;
      (void)p.set_ik_target(walker, "arm", {0.5f + s, 1.5f, 0.2f * s});
      (void)p.set_ik_weight(walker, "look", s * 0.5f);
      if ((t + c) % 3 == 0) (void)p.clear_ik_target(walker, "arm");
      if (Result<RootMotionDelta> d = p.take_root_motion(walker)) {
        seen = seen * 31 + static_cast<uint64_t>(d->x + 7 * d->z + 13 * d->yaw);
      }
      (void)p.take_root_motion(ObjectId{c * mf::kCount + mf::kPlain});  // refused
    }
  }
};

// Sweeps the state machines' parameters and fires their triggers.
struct GraphGame : Game {
  uint32_t copies = 0;
  uint64_t seen = 0;  // states entered, as seen by the game
  void tick(ScenePlayer& p, int64_t t) override {
    for (uint32_t c = static_cast<uint32_t>(t % 3); c < copies; c += 3) {
      const ObjectId hero{c * 3}, layered{c * 3 + 1};
      const int64_t phase = (t + 7 * c) % 200;
      (void)p.set_parameter(hero, "speed",
                            static_cast<float>(phase < 100 ? phase : 200 - phase) * 0.06f);
      (void)p.set_parameter(hero, "tired", static_cast<float>((t + c) % 50) / 50.0f);
      if ((t + c) % 40 == 10) (void)p.fire_trigger(hero, "jump");
      if ((t + c) % 60 == 30) (void)p.play_clip(layered, "Rotate");
      if ((t + c) % 90 == 45) (void)p.set_parameter(hero, "sped", 1.0f);  // refused
      seen = seen * 31 + p.state(hero).size();
    }
  }
};

// A game's runner: ranges of 3, last first, on the calling thread.
struct BackwardsRunner : JobRunner {
  int runs = 0;
  void run(uint32_t count, JobFn fn, void* context) override {
    ++runs;
    for (uint32_t end = count; end > 0;) {
      const uint32_t begin = end > 3 ? end - 3 : 0;
      fn(context, begin, end);
      end = begin;
    }
  }
};

// A game's runner that starts two threads for every run (each takes every other range of
// 5), the caller waiting.
struct SpawningRunner : JobRunner {
  void run(uint32_t count, JobFn fn, void* context) override {
    auto half = [=](uint32_t first) {
      for (uint32_t b = first * 5; b < count; b += 10) fn(context, b, std::min(b + 5, count));
    };
    std::thread a(half, 0), b(half, 1);
    a.join();
    b.join();
  }
};

// How a run gets its threads.
struct Setup {
  std::string name;
  uint32_t threads = 0;         // ScenePlayerOptions::threads
  JobRunner* runner = nullptr;  // ScenePlayerOptions::job_runner
  uint32_t pool_after = 0;      // set_job_runner(a pool of this many) after create
};

template <class G>
std::vector<uint64_t> play(const Pack& pack, const Setup& setup, G game, int ticks) {
  ScenePlayerOptions options;
  options.threads = setup.threads;
  options.job_runner = setup.runner;
  Result<ScenePlayer> created = ScenePlayer::create(&pack, 60, options);
  if (!created) {
    ADD_FAILURE() << setup.name << ": " << created.error().message();
    return {};
  }
  ScenePlayer player = std::move(*created);
  std::unique_ptr<ThreadPool> pool;
  if (setup.pool_after > 0) {
    pool = std::move(*ThreadPool::create(setup.pool_after));
    player.set_job_runner(pool.get());
  }
  const bool threaded = setup.threads > 1 || setup.runner != nullptr || setup.pool_after > 0;
  EXPECT_EQ(player.job_runner() != nullptr, threaded) << setup.name;
  std::vector<uint64_t> digests;
  digests.push_back(digest_tick(player));
  for (int t = 0; t < ticks; ++t) {
    player.step(&game);
    digests.push_back(digest_tick(player));
  }
  EXPECT_EQ(player.dropped_events(), 0u) << setup.name;
  digests.push_back(game.seen);  // what the game saw
  return digests;
}

template <class G>
void expect_serial_bits(const Pack& pack, const G& game, int ticks) {
  BackwardsRunner backwards;
  SpawningRunner spawning;
  const std::vector<uint64_t> serial = play(pack, {"serial"}, game, ticks);
  ASSERT_EQ(serial.size(), static_cast<size_t>(ticks) + 2);
  EXPECT_NE(serial.back(), 0u) << "the game saw something";
  EXPECT_EQ(std::count(serial.begin(), serial.end(), serial[1]), 1) << "the ticks differ";
  const Setup setups[] = {
      {"a pool of 1 set after create", 0, nullptr, 1},
      {"2 threads", 2, nullptr, 0},
      {"3 threads", 3, nullptr, 0},
      {"8 threads", 8, nullptr, 0},
      {"a backwards runner", 0, &backwards, 0},
      {"a spawning runner", 0, &spawning, 0},
  };
  for (const Setup& s : setups) {
    const std::vector<uint64_t> got = play(pack, s, game, ticks);
    ASSERT_EQ(got.size(), serial.size()) << s.name;
    for (size_t t = 0; t < serial.size(); ++t) {
      ASSERT_EQ(got[t], serial[t]) << s.name << ": tick " << t << " differs";
    }
  }
  EXPECT_EQ(backwards.runs, ticks);
}

TEST(ScenePlayerThreads, EveryThreadCountGivesTheSerialBits) {
  constexpr uint32_t kCopies = 125;  // 1000 objects: 625 animated, 375 sprites
  const Pack pack = copied(player_fixture::make_cooked(), kCopies);
  ASSERT_EQ(pack.objects().size(), kCopies * player_fixture::kCount);
  SceneGame game;
  game.copies = kCopies;
  expect_serial_bits(pack, game, 60);
}

TEST(ScenePlayerThreads, RootMotionAndIkGiveTheSerialBits) {
  constexpr uint32_t kCopies = 100;
  const Pack pack = copied(motion_fixture::make_cooked(), kCopies);
  MotionGame game;
  game.copies = kCopies;
  expect_serial_bits(pack, game, 90);
}

TEST(ScenePlayerThreads, StateMachinesGiveTheSerialBits) {
  constexpr uint32_t kCopies = 100;
  const Pack pack = copied(fixture::make_graph_pack(), kCopies);
  GraphGame game;
  game.copies = kCopies;
  expect_serial_bits(pack, game, 90);
}

TEST(ScenePlayerThreads, AMovedPlayerKeepsItsPool) {
  const Pack pack = copied(player_fixture::make_cooked(), 4);
  ScenePlayerOptions options;
  options.threads = 2;
  ScenePlayer serial = std::move(*ScenePlayer::create(&pack, 60));
  ScenePlayer first = std::move(*ScenePlayer::create(&pack, 60, options));
  JobRunner* const pool = first.job_runner();
  ASSERT_NE(pool, nullptr);
  ScenePlayer moved = std::move(first);
  EXPECT_EQ(moved.job_runner(), pool);
  for (int t = 0; t < 30; ++t) {
    serial.step();
    moved.step();
    ASSERT_EQ(digest_tick(moved), digest_tick(serial)) << "tick " << t;
  }
}

TEST(ScenePlayerThreads, SetJobRunnerSwitchesAndNullGoesBackToTheOwnPool) {
  const Pack pack = player_fixture::make_pack();
  ScenePlayer alone = std::move(*ScenePlayer::create(&pack, 60));
  EXPECT_EQ(alone.job_runner(), nullptr);
  BackwardsRunner backwards;
  alone.set_job_runner(&backwards);
  EXPECT_EQ(alone.job_runner(), &backwards);
  alone.step();
  EXPECT_EQ(backwards.runs, 1);
  alone.set_job_runner(nullptr);
  EXPECT_EQ(alone.job_runner(), nullptr);
  alone.step();
  EXPECT_EQ(backwards.runs, 1);

  ScenePlayerOptions options;
  options.threads = 3;
  ScenePlayer pooled = std::move(*ScenePlayer::create(&pack, 60, options));
  JobRunner* const own = pooled.job_runner();
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(static_cast<ThreadPool*>(own)->thread_count(), 3u);
  pooled.set_job_runner(&backwards);
  pooled.step();
  EXPECT_EQ(backwards.runs, 2);
  pooled.set_job_runner(nullptr);
  EXPECT_EQ(pooled.job_runner(), own);
}

TEST(ScenePlayerThreads, ARunnerAndOwnThreadsTogetherAreRefused) {
  const Pack pack = player_fixture::make_pack();
  BackwardsRunner backwards;
  ScenePlayerOptions options;
  options.threads = 2;
  options.job_runner = &backwards;
  Result<ScenePlayer> both = ScenePlayer::create(&pack, 60, options);
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().code(), ErrorCode::kInvalidArgument);
  options.threads = ThreadPool::kMaxThreads + 1;
  options.job_runner = nullptr;
  Result<ScenePlayer> many = ScenePlayer::create(&pack, 60, options);
  ASSERT_FALSE(many);
  EXPECT_EQ(many.error().code(), ErrorCode::kInvalidArgument);
  options.threads = 1;  // one thread: the caller's, no pool
  Result<ScenePlayer> one = ScenePlayer::create(&pack, 60, options);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->job_runner(), nullptr);
}

}  // namespace
}  // namespace animpack
