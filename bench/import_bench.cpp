// Import and load times (Google Benchmark): our glTF reader + import against Assimp's
// import alone for the same files, and a game's first sample from a cooked pack
// (Pack::open + Animator + decode of every part) against importing the glTF at run time.
// Figures and the command: docs/performance.md.
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <benchmark/benchmark.h>

#include <assimp/Importer.hpp>
#include <cstdio>
#include <filesystem>

#include "animpack/animator.h"
#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"
#include "animpack/compiler/mesh_bounds.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"

namespace {

namespace fs = std::filesystem;
using namespace animpack;

const char* const kFiles[] = {
    "gltf/Fox/glTF-Binary/Fox.glb",
    "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
    "gltf/RiggedFigure/glTF/RiggedFigure.gltf",
};

fs::path corpus(int i) { return fs::path(ANIMPACK_CORPUS_DIR) / kFiles[i]; }

void label(benchmark::State& state, int i) {
  state.SetLabel(fs::path(kFiles[i]).filename().string());
}

// Our reader: container, buffers, every accessor decoded and every check made.
void BM_ReadGltf(benchmark::State& state) {
  const int i = static_cast<int>(state.range(0));
  for (auto _ : state) {
    GltfDocument doc = read_gltf(corpus(i));
    if (!doc.ok()) state.SkipWithError("the file did not read");
    benchmark::DoNotOptimize(doc);
  }
  label(state, i);
}
BENCHMARK(BM_ReadGltf)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// Reader + import into rig and parts: what the cooker does per [[mesh]].
void BM_ReadAndImportGltf(benchmark::State& state) {
  const int i = static_cast<int>(state.range(0));
  for (auto _ : state) {
    GltfDocument doc = read_gltf(corpus(i));
    ImportedModel model = import_gltf(doc, "m", kFiles[i]);
    if (!model.ok()) state.SkipWithError("the file did not import");
    benchmark::DoNotOptimize(model);
  }
  label(state, i);
}
BENCHMARK(BM_ReadAndImportGltf)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// Assimp's import alone (flags 0: no post-processing), a new Importer each time as a
// cooker would per file.
void BM_AssimpImport(benchmark::State& state) {
  const int i = static_cast<int>(state.range(0));
  const std::string path = corpus(i).string();
  for (auto _ : state) {
    Assimp::Importer importer;
    const aiScene* scene = importer.ReadFile(path, 0);
    if (!scene) state.SkipWithError(importer.GetErrorString());
    benchmark::DoNotOptimize(scene);
  }
  label(state, i);
}
BENCHMARK(BM_AssimpImport)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// Cooks corpus file i alone into a pack file: its rig and mesh, and (when `textured`) its
// materials, textures and bounds as `animpack cook` writes them.
fs::path cook_to_file(benchmark::State& state, int i, bool textured) {
  GltfDocument doc = read_gltf(corpus(i));
  ImportedModel model = import_gltf(doc, "m", kFiles[i]);
  CookedPack cooked;
  model.mesh.rig = 0;
  cooked.rigs.push_back(std::move(*model.rig));
  cooked.meshes.push_back(std::move(model.mesh));
  if (textured) {
    cooked.materials = std::move(model.materials);
    cooked.textures = std::move(model.textures);
    compute_mesh_bounds(cooked.meshes[0], &cooked.rigs[0]);
  } else {
    for (CookedPart& part : cooked.meshes[0].parts) part.material = -1;  // format 1's content
  }
  const fs::path file = fs::temp_directory_path() / ("animpack_bench_" + std::to_string(i) +
                                                     (textured ? "_textured" : "") + ".anpk");
  if (!write_file_atomically(file, write_pack(cooked)).empty()) state.SkipWithError("cannot write");
  return file;
}

// Opens the pack, makes an Animator, samples the first pose and decodes every part (and,
// with `textures`, every texture); the pack's size as the counter pack_bytes.
void open_first_pose(benchmark::State& state, const fs::path& file, bool textures) {
  for (auto _ : state) {
    Result<Pack> pack = Pack::open(file.string());
    if (!pack) {
      state.SkipWithError(pack.error().message());
      break;
    }
    Result<Animator> a = Animator::create(&pack->rig(0), 60);
    (void)a->play(uint16_t{0}, 0);
    a->evaluate(0);
    for (size_t p = 0; p < pack->parts().size(); ++p) {
      benchmark::DoNotOptimize(pack->part_streams(static_cast<int>(p)));
    }
    for (size_t t = 0; textures && t < pack->textures().size(); ++t) {
      benchmark::DoNotOptimize(pack->texture_pixels(static_cast<int>(t)));
    }
    benchmark::DoNotOptimize(a->palette().data());
  }
  state.counters["pack_bytes"] = static_cast<double>(fs::file_size(file));
  fs::remove(file);
}

// The path a game takes at load time with animpack: open the cooked pack (verify +
// semantic checks), make an Animator, sample the first pose, decode every part.
void BM_PackOpenFirstSample(benchmark::State& state) {
  const int i = static_cast<int>(state.range(0));
  open_first_pose(state, cook_to_file(state, i, false), false);
  label(state, i);
}
BENCHMARK(BM_PackOpenFirstSample)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// What a game does before its first textured draw, on the CPU: the same, plus the
// materials and every texture decoded (RGBA8 from LZ4, ready to upload). pack_bytes: the
// whole file (rig, clips, vertex streams, materials, textures, bounds).
void BM_PackOpenFirstTextured(benchmark::State& state) {
  const int i = static_cast<int>(state.range(0));
  open_first_pose(state, cook_to_file(state, i, true), true);
  label(state, i);
}
BENCHMARK(BM_PackOpenFirstTextured)->DenseRange(0, 1)->Unit(benchmark::kMicrosecond);

// The same first pose from the glTF at run time: read, check, import, Animator, sample.
void BM_GltfAtRuntimeFirstSample(benchmark::State& state) {
  const int i = static_cast<int>(state.range(0));
  for (auto _ : state) {
    GltfDocument doc = read_gltf(corpus(i));
    ImportedModel model = import_gltf(doc, "m", kFiles[i]);
    Result<Animator> a = Animator::create(&model.rig->rig, 60);
    (void)a->play(uint16_t{0}, 0);
    a->evaluate(0);
    benchmark::DoNotOptimize(a->palette().data());
  }
  label(state, i);
}
BENCHMARK(BM_GltfAtRuntimeFirstSample)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
