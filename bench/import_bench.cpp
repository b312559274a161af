// Import and load times (Google Benchmark): our glTF reader + import against Assimp's
// import alone for the same files, and a game's first sample from a cooked pack
// (Pack::open + Animator + decode of every part) against importing the glTF at run time.
// Figures and the command: docs/performance.md.
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cstdio>
#include <filesystem>

#include "animpack/animator.h"
#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"
#include "animpack/compiler/mesh_bounds.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/schema/pack_generated.h"

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

// Vertex stream codecs (format 6). Each file's mesh cooked as the pack writer stores it
// with blobs raw (mode 0), LZ4 only (1), the smallest of raw, LZ4 and meshoptimizer's
// codecs alone or under LZ4 (2, the default), or every blob one codec takes in it, the
// rest raw (3: the vertex codec, 4: vertex + LZ4, 5: index sequence, 6: sequence + LZ4;
// PackWriteOptions::only_codec); one iteration opens the pack (not timed) and
// decodes every part's streams (timed). Counters: the stored bytes of each stream kind and
// all of them (blob data), whatever the mode.
const char* const kStreamFiles[] = {
    "gltf/Fox/glTF-Binary/Fox.glb",
    "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
    "gltf/RiggedFigure/glTF/RiggedFigure.gltf",
    "gltf/MorphStressTest/glTF/MorphStressTest.gltf",
    "gltf/Quaternius-Alien/Alien_Scolitex.gltf",
    "assets/character/figure.gltf",  // the demo character, from the source tree
};
constexpr uint8_t kForced[] = {2, 3, 6, 7};  // modes 3-6: every blob one codec can take

std::vector<uint8_t> stream_pack(int file, int mode) {
  const fs::path root = file == 5 ? fs::path(ANIMPACK_SOURCE_DIR) : fs::path(ANIMPACK_CORPUS_DIR);
  GltfDocument doc = read_gltf(root / kStreamFiles[file]);
  ImportedModel model = import_gltf(doc, "m", kStreamFiles[file]);
  CookedPack cooked;
  model.mesh.rig = model.rig ? 0 : -1;
  if (model.rig) cooked.rigs.push_back(std::move(*model.rig));
  for (CookedPart& part : model.mesh.parts) part.material = -1;
  cooked.meshes.push_back(std::move(model.mesh));
  PackWriteOptions options;
  options.compress = mode != 0;
  options.meshopt = mode >= 2;
  if (mode >= 3) options.only_codec = kForced[mode - 3];
  return write_pack(cooked, options);
}

void BM_DecodePartStreams(benchmark::State& state) {
  const int file = static_cast<int>(state.range(0));
  const std::vector<uint8_t> bytes = stream_pack(file, static_cast<int>(state.range(1)));
  for (auto _ : state) {
    state.PauseTiming();
    Result<Pack> pack = Pack::from_bytes(bytes);
    if (!pack) {
      state.SkipWithError(pack.error().message());
      break;
    }
    state.ResumeTiming();
    for (size_t p = 0; p < pack->parts().size(); ++p) {
      Result<PartStreams> s = pack->part_streams(static_cast<int>(p));
      if (!s) state.SkipWithError(s.error().message());
      benchmark::DoNotOptimize(s);
    }
  }
  // Stored bytes per stream kind.
  const auto* root = schema::GetAssetPack(bytes.data());
  double kinds[8] = {};  // positions, normals, tangents, joints+weights, indices, source,
                         // uv+colours, morph deltas
  double raw = 0;
  std::vector<const schema::Blob*> seen;
  for (const auto* mesh : *root->meshes()) {
    for (const auto* part : *mesh->parts()) {
      const std::pair<const schema::Blob*, int> blobs[] = {
          {part->positions(), 0},       {part->normals(), 1},       {part->tangents(), 2},
          {part->joints(), 3},          {part->weights(), 3},       {part->joints1(), 3},
          {part->weights1(), 3},        {part->indices(), 4},       {part->source_vertices(), 5},
          {part->texcoords0(), 6},      {part->texcoords1(), 6},    {part->colors(), 6},
          {part->morph_positions(), 7}, {part->morph_normals(), 7}, {part->morph_tangents(), 7}};
      for (const auto& [blob, kind] : blobs) {
        if (!blob || std::find(seen.begin(), seen.end(), blob) != seen.end()) continue;
        seen.push_back(blob);
        kinds[kind] += static_cast<double>(blob->data()->size());
        raw += static_cast<double>(blob->raw_size());
      }
    }
  }
  const char* const names[] = {"pos", "nrm", "tan", "skin", "idx", "src", "uvcol", "morph"};
  double all = 0;
  for (int k = 0; k < 8; ++k) {
    state.counters[names[k]] = kinds[k];
    all += kinds[k];
  }
  state.counters["streams"] = all;
  state.counters["raw"] = raw;
  static const char* const kModes[] = {" raw",        " lz4",      " smallest",    " vertex",
                                       " vertex+lz4", " sequence", " sequence+lz4"};
  state.SetLabel(fs::path(kStreamFiles[file]).filename().string() + kModes[state.range(1)]);
}
BENCHMARK(BM_DecodePartStreams)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {0, 1, 2, 3, 4, 5, 6}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
