// GPU skinning against the CPU skin(): skinned vertices per second for 10k, 100k and 1M
// vertices, four influences each, a 64-joint palette, positions + normals + tangents.
//
//   animpack_bench_gl --benchmark_min_time=0.2 --benchmark_repetitions=3
//                     --benchmark_report_aggregates_only=true
//
// BM_GpuSkinCapture: Renderer::capture_skinned, the vertex stage's skinning code run by
// transform feedback and read back to the CPU (what the GL tests compare with skin()).
// BM_GpuSkinDraw: Renderer::render of a 64 x 64 frame of the same mesh as tiny triangles:
// both passes (ids/motion, colour) skin every vertex, plus the previous position.
// BM_GpuSkinCaptureEight, BM_GpuSkinCaptureMorph8: the same capture with eight influences
// a vertex (the weights halved over a second set) and with eight morph targets (position,
// normal and tangent deltas, every weight non-zero) before the four-influence skinning:
// what the new paths cost, while BM_GpuSkinCapture shows the four-influence path kept.
// BM_CpuSkin: animpack::skin on one thread.
// BM_PackOpenFirstTexturedDraw: what a game pays before its first textured frame of a
// cooked corpus model (Fox, CesiumMan; cooked in process before timing): Pack::open,
// SceneRenderer::create (every part decoded and uploaded, every texture decoded and
// uploaded with mipmaps), a ScenePlayer's first tick and one 256 x 256 draw read back.
// Each reports vertices_per_second (= N x iterations / wall time; the GPU work is
// finished inside the timing by the readback or a glFinish-equivalent readback of one
// pixel). On Mesa llvmpipe the "GPU" is the CPU too (LLVM-compiled shaders on its own
// threads), so the GPU figures only compare paths on this machine; see docs/gl.md.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/gl/context.h"
#include "animpack/gl/framing.h"
#include "animpack/gl/renderer.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/math.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "animpack/skinning.h"

namespace animpack {
namespace {

constexpr int kJoints = 64;
constexpr int kTargets = 8;

enum class Variant { kFour, kEight, kMorph };

std::optional<gl::Context> g_context;
std::optional<gl::Renderer> g_renderer;

struct Data {
  std::vector<Vec3> positions, normals;
  std::vector<Vec4> tangents, weights;
  std::vector<JointIndices> joints;
  std::vector<Vec4> weights_half, weights1;  // eight influences: both halves of weights
  std::vector<JointIndices> joints1;
  std::vector<Vec3> deltas;  // kTargets x N, for each of the three streams
  std::vector<float> morph_weights;
  std::vector<uint32_t> indices;
  std::vector<Mat4> palette, previous;
};

// N vertices in tiny triangles (three close points) scattered through a unit cube.
Data make_data(size_t n) {
  Data d;
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / 16777216.0f;
  };
  Vec3 center;
  for (size_t v = 0; v < n; ++v) {
    if (v % 3 == 0) center = {next() * 2 - 1, next() * 2 - 1, next() * 2 - 1};
    d.positions.push_back(center + Vec3{next() * 0.01f, next() * 0.01f, next() * 0.01f});
    d.normals.push_back(normalize(Vec3{next() - 0.5f, next() - 0.5f, 1.0f}));
    d.tangents.push_back({1, 0, 0, 1});
    JointIndices j;
    for (uint16_t& k : j.j) k = static_cast<uint16_t>(next() * kJoints) % kJoints;
    d.joints.push_back(j);
    const float a = next(), b = next() * (1 - a), c = next() * (1 - a - b);
    d.weights.push_back({a, b, c, 1 - a - b - c});
    const Vec4 w = d.weights.back();
    d.weights_half.push_back({w.x * 0.5f, w.y * 0.5f, w.z * 0.5f, w.w * 0.5f});
    d.weights1.push_back(d.weights_half.back());
    JointIndices j1;
    for (int k = 0; k < 4; ++k) j1.j[k] = static_cast<uint16_t>((j.j[k] + 7) % kJoints);
    d.joints1.push_back(j1);
  }
  for (int t = 0; t < kTargets; ++t) {
    for (size_t v = 0; v < n; ++v) d.deltas.push_back({next() * 0.01f, 0.001f * t, 0});
    d.morph_weights.push_back(0.1f + 0.1f * static_cast<float>(t));
  }
  for (uint32_t v = 0; v + 2 < n; v += 3) d.indices.insert(d.indices.end(), {v, v + 1, v + 2});
  for (int j = 0; j < kJoints; ++j) {
    const float angle = 0.05f * static_cast<float>(j);
    d.palette.push_back(
        to_matrix(Trs{{0.01f * j, 0, 0}, quat_from_axis_angle({0, 0, 1}, angle), {1, 1, 1}}));
    d.previous.push_back(to_matrix(
        Trs{{0.01f * j, 0, 0}, quat_from_axis_angle({0, 0, 1}, angle * 0.9f), {1, 1, 1}}));
  }
  return d;
}

template <typename T>
T must(Result<T> r, const char* what) {
  if (!r) {
    std::fprintf(stderr, "gl_bench: %s: %s\n", what, r.error().message());
    std::exit(1);
  }
  return std::move(*r);
}

struct GpuMesh {
  gl::MeshHandle mesh;
  gl::InstanceHandle instance;
};

GpuMesh upload(const Data& d, Variant variant = Variant::kFour) {
  GpuMesh g;
  gl::MeshData mesh{d.positions, d.normals, d.tangents, {}, d.indices};
  gl::SkinData skin{d.joints, d.weights};
  if (variant == Variant::kEight) skin = {d.joints, d.weights_half, d.joints1, d.weights1};
  if (variant == Variant::kMorph) mesh.morph = {kTargets, d.deltas, d.deltas, d.deltas};
  g.mesh = must(g_renderer->upload_skinned_mesh(mesh, skin), "upload");
  gl::InstanceDesc desc;
  desc.mesh = g.mesh;
  g.instance = must(g_renderer->create_instance(desc), "instance");
  gl::InstancePose pose{g.instance, d.palette, d.previous};
  if (variant == Variant::kMorph) pose.morph_weights = d.morph_weights;
  if (auto r = g_renderer->set_poses({&pose, 1}); !r) {
    std::fprintf(stderr, "gl_bench: set_poses: %s\n", r.error().message());
    std::exit(1);
  }
  return g;
}

void release(const GpuMesh& g) {
  (void)g_renderer->destroy_instance(g.instance);
  (void)g_renderer->release_mesh(g.mesh);
}

void capture_bench(benchmark::State& state, Variant variant) {
  const auto n = static_cast<size_t>(state.range(0));
  const Data d = make_data(n);
  const GpuMesh g = upload(d, variant);
  std::vector<Vec3> positions(n), normals(n);
  std::vector<Vec4> tangents(n);
  for (auto _ : state) {
    if (auto r = g_renderer->capture_skinned(g.instance, {positions, normals, tangents}); !r) {
      state.SkipWithError(r.error().message());
      break;
    }
    benchmark::DoNotOptimize(positions.data());
  }
  state.counters["vertices_per_second"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
  release(g);
}

void BM_GpuSkinCapture(benchmark::State& state) { capture_bench(state, Variant::kFour); }
void BM_GpuSkinCaptureEight(benchmark::State& state) { capture_bench(state, Variant::kEight); }
void BM_GpuSkinCaptureMorph8(benchmark::State& state) { capture_bench(state, Variant::kMorph); }

void BM_GpuSkinDraw(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  const Data d = make_data(n);
  const GpuMesh g = upload(d);
  gl::View view;
  view.camera.eye = {0, 0, 4};
  view.width = 64;
  view.height = 64;
  for (auto _ : state) {
    if (auto r = g_renderer->render(view); !r) {
      state.SkipWithError(r.error().message());
      break;
    }
    // Reading the ids waits for the frame to finish.
    auto ids = g_renderer->read_ids();
    benchmark::DoNotOptimize(ids);
  }
  state.counters["vertices_per_second"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
  release(g);
}

void BM_CpuSkin(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  const Data d = make_data(n);
  std::vector<Vec3> positions(n), normals(n);
  std::vector<Vec4> tangents(n);
  for (auto _ : state) {
    auto r = skin({d.positions, d.normals, d.tangents, d.joints, d.weights}, d.palette,
                  {positions, normals, tangents});
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(positions.data());
  }
  state.counters["vertices_per_second"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}

// The corpus models of BM_PackOpenFirstTexturedDraw: name, file under the corpus' gltf/,
// clip.
constexpr const char* kModels[][3] = {
    {"fox", "Fox/glTF-Binary/Fox.glb", "Walk"},
    {"cesium_man", "CesiumMan/glTF-Binary/CesiumMan.glb", "animation_0"}};

// Cooks model i into a pack file in the temporary folder; its path, or "" on failure.
std::string cook_model(int i) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "animpack_gl_bench";
  fs::create_directories(dir);
  const fs::path scene = dir / (std::string(kModels[i][0]) + ".toml");
  {
    std::ofstream out(scene);
    out << "[[mesh]]\nname = \"m\"\nfile = \""
        << (fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/corpus/gltf" / kModels[i][1]).string()
        << "\"\n\n[[object]]\nname = \"m\"\nmesh = \"m\"\n\n[object.animation]\nclip = \""
        << kModels[i][2] << "\"\n";
  }
  DiagnosticSink sink;
  const CookOutput cooked = cook_scene(scene, sink);
  if (sink.has_errors()) return "";
  const std::vector<uint8_t> bytes = write_pack(cooked.pack);
  const fs::path file = dir / (std::string(kModels[i][0]) + ".anpk");
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return file.string();
}

void BM_PackOpenFirstTexturedDraw(benchmark::State& state) {
  const int i = static_cast<int>(state.range(0));
  const std::string file = cook_model(i);
  if (file.empty()) {
    state.SkipWithError("the model does not cook");
    return;
  }
  size_t textures = 0;
  for (auto _ : state) {
    Result<Pack> pack = Pack::open(file);
    if (!pack) {
      state.SkipWithError(pack.error().message());
      break;
    }
    Result<gl::SceneRenderer> scene = gl::SceneRenderer::create(&*g_renderer, &*pack);
    Result<ScenePlayer> player = ScenePlayer::create(&*pack, 60);
    if (!scene || !player) {
      state.SkipWithError(!scene ? scene.error().message() : player.error().message());
      break;
    }
    player->step();
    const Posed& posed = player->posed();
    const gl::View view{gl::frame_box(gl::posed_box(*pack, posed), 1.0f), {}, 256, 256};
    if (auto r = scene->draw(posed, view); !r) {
      state.SkipWithError(r.error().message());
      break;
    }
    auto color = g_renderer->read_color();  // waits for the frame
    benchmark::DoNotOptimize(color);
    textures = pack->textures().size();
  }
  state.counters["pack_bytes"] = static_cast<double>(std::filesystem::file_size(file));
  state.counters["textures"] = static_cast<double>(textures);
  state.SetLabel(kModels[i][0]);
}

BENCHMARK(BM_PackOpenFirstTexturedDraw)
    ->DenseRange(0, 1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_GpuSkinCapture)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpuSkinCaptureEight)
    ->Arg(10000)
    ->Arg(100000)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpuSkinCaptureMorph8)
    ->Arg(10000)
    ->Arg(100000)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpuSkinDraw)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CpuSkin)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace animpack

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  auto context = animpack::gl::Context::create_headless();
  if (!context) {
    std::fprintf(stderr, "gl_bench: %s\n", context.error().message());
    return 1;
  }
  animpack::g_context.emplace(std::move(*context));
  animpack::g_renderer.emplace(
      animpack::must(animpack::gl::Renderer::create(&*animpack::g_context), "renderer"));
  benchmark::AddCustomContext("gl_renderer", animpack::g_context->info().renderer);
  benchmark::AddCustomContext("gl_backend", animpack::g_context->info().backend);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  animpack::g_renderer.reset();
  animpack::g_context.reset();
  return 0;
}
