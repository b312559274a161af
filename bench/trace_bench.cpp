// Tracer benchmarks: rays per second on the posed demo character, on one and two
// threads, and BVH build time per million triangles.
//
//   animpack_bench_trace --benchmark_min_time=0.5 --benchmark_repetitions=3
//                        --benchmark_report_aggregates_only=true
//
// The character: the demo scene's "walker" (assets/demo/scene.toml, the glTF fox
// blending Walk 0.7 and Run 0.3), cooked here in process, posed at tick 30 and staged
// alone (576 skinned triangles). The camera frames it at 320 x 240 (hit_share: the
// share of primary rays that hit it). BM_TracePrimary traces primary rays only (render_ids);
// BM_TraceShaded/threads/samples renders (render): the shading model of shading.h with
// one shadow ray per lit hit, `samples` rays a pixel plus the pixel-centre id ray (with 1
// sample, the centre ray twice). Counters: rays_per_second counts primary colour rays
// (pixels x samples), over wall time (UseRealTime), so the 2-thread figure shows the
// speed-up.
//
// BVH build: BM_BuildBvh over a soup of 2^20 small random triangles (the worst case for
// the binned SAH: no coherent structure) and over the walker's triangles copied onto a
// 42 x 42 grid (1,016,064 triangles, mesh-like); ms_per_million_triangles is the wall
// time of one build divided by its millions of triangles.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "animpack/animator.h"
#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/tracer/bvh.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"

namespace animpack {
namespace {

struct Character {
  std::vector<uint8_t> bytes;
  std::unique_ptr<Pack> pack;
  std::vector<Mat4> palette;
  trace::TraceScene scene;
  Camera camera;
};

[[noreturn]] void fail(const char* what, const char* message) {
  std::fprintf(stderr, "trace_bench: %s: %s\n", what, message);
  std::abort();
}

// The demo pack cooked once, the walker posed at tick 30 and staged alone.
const Character& character() {
  static const Character c = [] {
    Character ch;
    DiagnosticSink sink;
    CookOutput out = cook_scene(ANIMPACK_SOURCE_DIR "/assets/demo/scene.toml", sink);
    if (sink.has_errors()) fail("cook", "the demo scene has errors");
    ch.bytes = write_pack(out.pack);
    auto pack = Pack::from_bytes(ch.bytes);
    if (!pack) fail("pack", pack.error().message());
    ch.pack = std::make_unique<Pack>(std::move(*pack));
    const int object = ch.pack->find_object("walker");
    if (object < 0) fail("pack", "no walker");
    const ObjectInfo& info = ch.pack->objects()[static_cast<size_t>(object)];
    const Rig& rig = ch.pack->rig(ch.pack->meshes()[static_cast<size_t>(info.mesh)].rig);
    auto animator = Animator::create(&rig, 60);
    if (!animator) fail("animator", animator.error().message());
    if (auto r = animator->play_blend(info.animation.blend, 0); !r)
      fail("play", r.error().message());
    animator->evaluate(30);
    ch.palette.assign(animator->palette().begin(), animator->palette().end());
    Posed posed;
    PosedObject o;
    o.object = object;
    o.mesh = info.mesh;
    o.model = to_matrix(Trs{info.position, info.rotation, info.scale});
    o.palette = ch.palette;
    posed.objects.push_back(o);
    auto scene = trace::stage_posed(*ch.pack, posed);
    if (!scene) fail("stage", scene.error().message());
    ch.scene = std::move(*scene);
    const trace::Aabb b = ch.scene.bounds();
    ch.camera.target = b.centre();
    ch.camera.eye = b.centre() + normalize(Vec3{0.4f, 0.3f, 1.0f}) * (1.2f * length(b.extent()));
    ch.camera.fov_y = 0.6f;
    return ch;
  }();
  return c;
}

constexpr int kWidth = 320, kHeight = 240;

void BM_TracePrimary(benchmark::State& state) {
  const Character& c = character();
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    auto ids = trace::render_ids(c.scene, c.camera, kWidth, kHeight, threads);
    benchmark::DoNotOptimize(ids->data());
  }
  state.counters["rays_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kWidth * kHeight, benchmark::Counter::kIsRate);
  state.counters["triangles"] = static_cast<double>(c.scene.triangle_count());
}
BENCHMARK(BM_TracePrimary)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_TraceShaded(benchmark::State& state) {
  const Character& c = character();
  trace::RenderOptions o;
  o.width = kWidth;
  o.height = kHeight;
  o.camera = c.camera;
  o.threads = static_cast<int>(state.range(0));
  o.samples = static_cast<int>(state.range(1));
  size_t hits = 0;
  for (auto _ : state) {
    auto frame = trace::render(c.scene, o);
    benchmark::DoNotOptimize(frame->color.rgba.data());
    hits = 0;
    for (uint32_t id : frame->ids) hits += id != trace::kNoObject;
  }
  state.counters["rays_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kWidth * kHeight * o.samples,
                         benchmark::Counter::kIsRate);
  state.counters["hit_share"] = static_cast<double>(hits) / (kWidth * kHeight);
}
BENCHMARK(BM_TraceShaded)
    ->Args({1, 1})
    ->Args({1, 4})
    ->Args({2, 4})
    ->Args({1, 16})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

std::vector<trace::Triangle> soup(size_t count) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> pos(-50.0f, 50.0f), off(-0.3f, 0.3f);
  std::vector<trace::Triangle> tris(count);
  for (trace::Triangle& t : tris) {
    const Vec3 c{pos(rng), pos(rng), pos(rng)};
    t = {c + Vec3{off(rng), off(rng), off(rng)}, c + Vec3{off(rng), off(rng), off(rng)},
         c + Vec3{off(rng), off(rng), off(rng)}};
  }
  return tris;
}

std::vector<trace::Triangle> character_grid(int n) {
  const Character& c = character();
  const Vec3 e = c.scene.bounds().extent();
  std::vector<trace::Triangle> tris;
  tris.reserve(c.scene.triangle_count() * static_cast<size_t>(n * n));
  for (int gz = 0; gz < n; ++gz) {
    for (int gx = 0; gx < n; ++gx) {
      const Vec3 shift{static_cast<float>(gx) * e.x * 1.2f, 0, static_cast<float>(gz) * e.z * 1.2f};
      for (const trace::Triangle& t : c.scene.triangles()) {
        tris.push_back({t.a + shift, t.b + shift, t.c + shift});
      }
    }
  }
  return tris;
}

void build_bench(benchmark::State& state, const std::vector<trace::Triangle>& tris) {
  double seconds = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    trace::Bvh bvh = trace::Bvh::build(tris);
    benchmark::DoNotOptimize(&bvh);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.counters["triangles"] = static_cast<double>(tris.size());
  state.counters["ms_per_million_triangles"] = seconds * 1e3 /
                                               static_cast<double>(state.iterations()) /
                                               (static_cast<double>(tris.size()) / 1e6);
}

void BM_BuildBvhSoup(benchmark::State& state) {
  static const std::vector<trace::Triangle> tris = soup(size_t{1} << 20);
  build_bench(state, tris);
}
BENCHMARK(BM_BuildBvhSoup)->Unit(benchmark::kMillisecond);

void BM_BuildBvhCharacters(benchmark::State& state) {
  static const std::vector<trace::Triangle> tris = character_grid(42);
  build_bench(state, tris);
}
BENCHMARK(BM_BuildBvhCharacters)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace animpack

BENCHMARK_MAIN();
