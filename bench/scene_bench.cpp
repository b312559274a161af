// The scene player's per-tick cost: ScenePlayer::step() over a scene of skinned characters
// (64 joints) and sprites, single thread. Figures, machine and commands:
// docs/performance.md ("Scene player").
//
//   animpack_bench_scene --benchmark_min_time=0.2 --benchmark_repetitions=3
//                        --benchmark_report_aggregates_only=true
//
// The pack is built here in code and written with the cooker's pack writer (never timed):
// one character rig of 64 joints in a humanoid-like hierarchy (hips, spine, neck, head,
// legs and arms, then three-joint chains) with four looping 4-second clips, LINEAR
// translation, rotation and scale on every joint keyed 31 times a second, two events per
// clip; one sprite sheet of 16 frames with a "walk" clip (8 frames, 12 fps, an event on
// frame 2) and an "idle" clip (4 frames, 6 fps, ping-pong). Characters alternate between
// one clip and a two-clip blend (0.6 / 0.4), each with its own start offset; every sprite
// plays "walk" or "idle" from its own start. Ticks at 60 a second.
//
// BM_SceneStep/characters:C/sprites:S times step() (advance and evaluate every animator,
// advance every sprite player, gather events); BM_SceneStepPosed adds posed(&camera) (the
// snapshot a renderer takes each frame). Counters: us_per_tick, and ns_per_joint for the
// character-only run.
//
// Many characters on several threads (scene_player.h, "Threads"):
// BM_SceneStepThreads/characters:1000/threads:T times step() over 1000 characters of 64
// joints, wall-clock: T = 0 the one-thread step(), T = 1 the two-pass step() on a
// ThreadPool of one thread (its overhead), T >= 2 ScenePlayerOptions::threads = T.
// Counter ns_per_character (per tick). BM_SceneStepThreadsInterleaved/.../threads:T
// steps a one-thread player and a T-thread one in turn, each step timed on its own (so
// both see the same machine load) and reports both ns_per_character and their speedup.
//
//   animpack_bench_scene --benchmark_filter=Threads --benchmark_min_time=1
//                        --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/jobs.h"
#include "animpack/pack.h"
#include "animpack/scalar.h"
#include "animpack/scene_player.h"
#include "synthetic_rig.h"

namespace animpack {
namespace {

using namespace bench;

constexpr int kJoints = 64;
constexpr int kTickRate = 60;

std::vector<Joint> make_joints(Lcg& rng) {
  std::vector<Joint> joints;
  auto add = [&](int parent, Vec3 offset) {
    Joint j;
    j.name = "j" + std::to_string(joints.size());
    j.parent = static_cast<int16_t>(parent);
    j.rest.translation = offset;
    // Drawn one after the other (the order of a call's arguments is unspecified: g++ and
    // clang++ would build different rigs): the angle first, as g++ 12 did when the
    // recorded figures were taken.
    const float angle = rng.range(-0.2f, 0.2f);
    const Vec3 axis = rng.direction();
    j.rest.rotation = quat_from_axis_angle(axis, angle);
    joints.push_back(j);
    return static_cast<int>(joints.size()) - 1;
  };
  const int hips = add(-1, {0, 1.0f, 0});
  int spine = hips;
  for (int i = 0; i < 4; ++i) spine = add(spine, {0, 0.12f, 0});
  const int head = add(add(spine, {0, 0.1f, 0}), {0, 0.1f, 0});
  int ends[4] = {};
  for (int s = 0; s < 2; ++s) {
    const float side = s == 0 ? -1.0f : 1.0f;
    ends[s] = add(add(add(hips, {0.1f * side, -0.05f, 0}), {0, -0.45f, 0}), {0, -0.42f, 0});
    ends[2 + s] = add(
        add(add(add(spine, {0.04f * side, 0.08f, 0}), {0.14f * side, 0, 0}), {0.28f * side, 0, 0}),
        {0.26f * side, 0, 0});
  }
  const int attach[] = {ends[2], ends[3], head, ends[0], ends[1], spine};
  for (int chain = 0; static_cast<int>(joints.size()) < kJoints; ++chain) {
    int parent = attach[chain % 6];
    const Vec3 dir = rng.direction();
    for (int k = 0; k < 3 && static_cast<int>(joints.size()) < kJoints; ++k) {
      parent = add(parent, dir * rng.range(0.02f, 0.05f));
    }
  }
  return joints;
}

Clip make_clip(const std::string& name, const std::vector<Joint>& joints, Lcg& rng) {
  Clip clip(name);
  std::vector<float> times;
  for (int k = 0; k <= kKeysPerSecond * kClipSeconds; ++k) {
    times.push_back(static_cast<float>(k) / static_cast<float>(kKeysPerSecond));
  }
  std::vector<float> tv, rv, sv;
  for (size_t j = 0; j < joints.size(); ++j) {
    const Trs& rest = joints[j].rest;
    const Vec3 axis = rng.direction();
    const float amplitude = j % 7 == 3 ? rng.range(1.0f, 1.4f) : rng.range(0.1f, 0.4f);
    const float hz = j % 7 == 3 ? 1.5f : 0.25f * static_cast<float>(1 + rng.next() % 3);
    const float phase = rng.range(0.0f, kTwoPi);
    tv.clear();
    rv.clear();
    sv.clear();
    for (const float t : times) {
      const Vec3 tr = rest.translation + Vec3{wave(0.01f, 0.5f, phase, t), 0, 0};
      const Quat q =
          normalize(rest.rotation * quat_from_axis_angle(axis, wave(amplitude, hz, phase, t)));
      const float s = 1.0f + wave(0.01f, 0.25f, phase, t);
      tv.insert(tv.end(), {tr.x, tr.y, tr.z});
      rv.insert(rv.end(), {q.x, q.y, q.z, q.w});
      sv.insert(sv.end(), {s, s, s});
    }
    const auto joint = static_cast<uint16_t>(j);
    clip.add_channel(joint, Property::kTranslation, Interpolation::kLinear, times, tv);
    clip.add_channel(joint, Property::kRotation, Interpolation::kLinear, times, rv);
    clip.add_channel(joint, Property::kScale, Interpolation::kLinear, times, sv);
  }
  clip.add_event("step", 0.5f);
  clip.add_event("step", 2.5f);
  return clip;
}

CookedPack make_scene(int characters, int sprites) {
  Lcg rng(0x5ce9e001u);
  CookedPack pack;
  const std::vector<Joint> joints = make_joints(rng);
  std::vector<Clip> clips;
  for (int c = 0; c < 4; ++c) clips.push_back(make_clip("clip" + std::to_string(c), joints, rng));
  CookedRig rig;
  rig.rig = must(
      Rig::create(must(Skeleton::create(joints, {}, Mat4{}), "skeleton"), std::move(clips)), "rig");
  for (int j = 0; j < kJoints; ++j) rig.joint_source_nodes.push_back(j);
  rig.clip_source_animations = {0, 1, 2, 3};
  pack.rigs.push_back(std::move(rig));

  CookedPart part;  // one skinned triangle: the player never touches vertices
  part.source_node = kJoints;
  part.source_mesh = 0;
  part.source_primitive = 0;
  part.positions = {{0, 1, 0}, {0.5f, 1, 0}, {0, 1.5f, 0}};
  part.joints = {{{0, 1, 2, 3}}, {{0, 1, 2, 3}}, {{0, 1, 2, 3}}};
  part.weights = {{1, 0, 0, 0}, {0.5f, 0.5f, 0, 0}, {0.25f, 0.25f, 0.25f, 0.25f}};
  part.indices = {0, 1, 2};
  part.source_vertices = {0, 1, 2};
  CookedMesh mesh;
  mesh.name = "character";
  mesh.source_file = "character.glb";
  mesh.rig = 0;
  mesh.parts.push_back(std::move(part));
  pack.meshes.push_back(std::move(mesh));

  CookedSheet sheet;
  sheet.source_file = "sprites.png";
  std::vector<SpriteClip> sprite_clips;
  sprite_clips.push_back(must(
      SpriteClip::create("walk", {0, 1, 2, 3, 4, 5, 6, 7}, 12.0f, Playback::kLoop, {{"step", 2}}),
      "walk"));
  sprite_clips.push_back(
      must(SpriteClip::create("idle", {8, 9, 10, 11}, 6.0f, Playback::kPingPong), "idle"));
  sheet.sheet = must(SpriteSheet::create(must(Atlas::grid({64, 64}, {16, 16}, 16), "atlas"),
                                         std::move(sprite_clips)),
                     "sheet");
  sheet.rgba.assign(64 * 64 * 4, 255);
  pack.sheets.push_back(std::move(sheet));

  for (int i = 0; i < characters; ++i) {
    CookedObject o;
    o.name = "character" + std::to_string(i);
    o.mesh = 0;
    o.position = {static_cast<float>(i % 10), 0, static_cast<float>(i / 10)};
    o.animated = true;
    o.animation.start = 0.037f * static_cast<float>(i);
    if (i % 2 == 0) {
      o.animation.clip = i % 4;
    } else {
      o.animation.blend = {{static_cast<uint16_t>(i % 4), 0.6f},
                           {static_cast<uint16_t>((i + 1) % 4), 0.4f}};
    }
    pack.objects.push_back(std::move(o));
  }
  for (int i = 0; i < sprites; ++i) {
    CookedObject o;
    o.name = "sprite" + std::to_string(i);
    o.face_camera = true;
    o.position = {static_cast<float>(i % 40), 1, static_cast<float>(i / 40)};
    o.animated = true;
    o.animation.sprite_sheet = 0;
    o.animation.clip = i % 3 == 2 ? 1 : 0;
    o.animation.start = 0.013f * static_cast<float>(i % 97);
    pack.objects.push_back(std::move(o));
  }
  return pack;
}

// Packs are built once per size and kept for the program's life.
const Pack& scene_pack(int characters, int sprites) {
  static std::map<std::pair<int, int>, std::unique_ptr<Pack>> packs;
  std::unique_ptr<Pack>& p = packs[{characters, sprites}];
  if (!p) {
    const std::vector<uint8_t> bytes = write_pack(make_scene(characters, sprites));
    p = std::make_unique<Pack>(must(Pack::from_bytes(bytes), "pack"));
  }
  return *p;
}

void run(benchmark::State& state, bool posed) {
  const int characters = static_cast<int>(state.range(0));
  const int sprites = static_cast<int>(state.range(1));
  const Pack& pack = scene_pack(characters, sprites);
  ScenePlayer player = must(ScenePlayer::create(&pack, kTickRate), "player");
  Camera camera;
  camera.eye = {5, 3, -8};
  camera.target = {5, 1, 5};
  for (int t = 0; t < 60; ++t) player.step();  // warm: cursors, caches
  size_t events = 0;
  for (auto _ : state) {
    player.step();
    events += player.animation_events().size();
    if (posed) benchmark::DoNotOptimize(player.posed(&camera).objects.data());
  }
  benchmark::DoNotOptimize(events);
  const double ticks = static_cast<double>(state.iterations());
  state.counters["us_per_tick"] =
      benchmark::Counter(ticks * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["events_per_tick"] = static_cast<double>(events) / ticks;
  if (characters > 0 && sprites == 0) {
    state.counters["ns_per_joint"] =
        benchmark::Counter(ticks * characters * kJoints * 1e-9,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  }
  if (player.dropped_events() != 0) state.SkipWithError("events were dropped");
}

void BM_SceneStep(benchmark::State& state) { run(state, false); }
void BM_SceneStepPosed(benchmark::State& state) { run(state, true); }

// A player of the character-only scene on `threads` (0: one-thread step(); 1: a
// ThreadPool of one thread, kept in `pool`; more: the player's own pool), warmed up.
ScenePlayer threaded_player(const Pack& pack, int threads, std::unique_ptr<ThreadPool>& pool) {
  ScenePlayerOptions options;
  options.threads = threads > 1 ? static_cast<uint32_t>(threads) : 0;
  ScenePlayer player = must(ScenePlayer::create(&pack, kTickRate, options), "player");
  if (threads == 1) {
    pool = must(ThreadPool::create(1), "pool");
    player.set_job_runner(pool.get());
  }
  for (int t = 0; t < 60; ++t) player.step();  // warm: cursors, caches
  return player;
}

void BM_SceneStepThreads(benchmark::State& state) {
  const int characters = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  const Pack& pack = scene_pack(characters, 0);
  std::unique_ptr<ThreadPool> pool;
  ScenePlayer player = threaded_player(pack, threads, pool);
  for (auto _ : state) {
    player.step();
    benchmark::DoNotOptimize(player.animation_events().data());
  }
  state.counters["ns_per_character"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * characters * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_SceneStepThreadsInterleaved(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  const int characters = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  const Pack& pack = scene_pack(characters, 0);
  std::unique_ptr<ThreadPool> none, pool;
  ScenePlayer one = threaded_player(pack, 0, none);
  ScenePlayer many = threaded_player(pack, threads, pool);
  double one_s = 0, many_s = 0;
  for (auto _ : state) {
    const Clock::time_point a = Clock::now();
    one.step();
    const Clock::time_point b = Clock::now();
    many.step();
    const Clock::time_point c = Clock::now();
    const double da = std::chrono::duration<double>(b - a).count();
    const double db = std::chrono::duration<double>(c - b).count();
    one_s += da;
    many_s += db;
    state.SetIterationTime(da + db);
  }
  const double steps = static_cast<double>(state.iterations()) * characters;
  state.counters["one_thread_ns_per_character"] = one_s * 1e9 / steps;
  state.counters["threads_ns_per_character"] = many_s * 1e9 / steps;
  state.counters["speedup"] = many_s > 0 ? one_s / many_s : 0;
}

double min_of(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// Microseconds, and a "min" aggregate (the best run) when repeated.
void common(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", min_of);
  b->ArgNames({"characters", "sprites"});
}

BENCHMARK(BM_SceneStep)->Apply(common)->Args({100, 1000})->Args({100, 0})->Args({0, 1000});
BENCHMARK(BM_SceneStepPosed)->Apply(common)->Args({100, 1000});
BENCHMARK(BM_SceneStepThreads)
    ->Unit(benchmark::kMicrosecond)
    ->ComputeStatistics("min", min_of)
    ->ArgNames({"characters", "threads"})
    ->UseRealTime()
    ->Args({1000, 0})
    ->Args({1000, 1})
    ->Args({1000, 2});
BENCHMARK(BM_SceneStepThreadsInterleaved)
    ->Unit(benchmark::kMicrosecond)
    ->ComputeStatistics("min", min_of)
    ->ArgNames({"characters", "threads"})
    ->UseManualTime()
    ->Args({1000, 2});

}  // namespace
}  // namespace animpack

BENCHMARK_MAIN();
