// describe_model and its writers (model_info.h): what `animpack info` says of the corpus
// models, checked against their own glTF JSON (parsed here with nlohmann_json), an FBX made
// at test time by Assimp's exporter, and broken files whose problems must be the cook's.
#include "animpack/compiler/model_info.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <assimp/Exporter.hpp>
#include <assimp/Importer.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "animpack/compiler/cook.h"
#include "fixtures/test_data.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path corpus(const char* path) { return fs::path(ANIMPACK_CORPUS_DIR) / path; }

// The glTF JSON of a .gltf file, or of a .glb's JSON chunk.
json gltf_json(const fs::path& file) {
  const std::string bytes = test_data::read_test_file(file);
  if (file.extension() != ".glb") return json::parse(bytes);
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + 12, 4);
  return json::parse(bytes.substr(20, length));
}

// Key counts and channel counts per animation, from the JSON.
void expect_animations_match_json(const ModelInfo& info, const json& j) {
  ASSERT_EQ(info.animations.size(), j["animations"].size());
  for (size_t a = 0; a < info.animations.size(); ++a) {
    const json& anim = j["animations"][a];
    size_t keys = 0;
    float latest = 0;
    for (const json& ch : anim["channels"]) {
      const json& sampler = anim["samplers"][ch["sampler"].get<size_t>()];
      const json& acc = j["accessors"][sampler["input"].get<size_t>()];
      keys += acc["count"].get<size_t>();
      latest = std::max(latest, acc["max"][0].get<float>());
    }
    EXPECT_EQ(info.animations[a].name, anim.value("name", ""));
    EXPECT_EQ(info.animations[a].channels, anim["channels"].size()) << a;
    EXPECT_EQ(info.animations[a].keys, keys) << a;
    EXPECT_NEAR(info.animations[a].duration, latest, 1e-6f) << a;
  }
}

TEST(ModelInfo, DescribesTheFoxFromItsOwnJson) {
  const fs::path file = corpus("gltf/Fox/glTF-Binary/Fox.glb");
  const ModelInfo info = describe_model(file);
  const json j = gltf_json(file);
  EXPECT_TRUE(info.readable);
  EXPECT_EQ(info.format, "glb");
  EXPECT_EQ(info.error_count(), 0u);
  EXPECT_EQ(info.nodes, j["nodes"].size());
  ASSERT_EQ(info.meshes.size(), j["meshes"].size());
  ASSERT_EQ(info.skins.size(), 1u);
  ASSERT_EQ(info.skins[0].joints.size(), j["skins"][0]["joints"].size());
  for (size_t k = 0; k < info.skins[0].joints.size(); ++k) {
    const size_t node = j["skins"][0]["joints"][k].get<size_t>();
    EXPECT_EQ(info.skins[0].joints[k], j["nodes"][node]["name"].get<std::string>());
  }
  expect_animations_match_json(info, j);
  for (const ModelAnimationInfo& a : info.animations) EXPECT_EQ(a.linear, a.channels) << a.name;
  ASSERT_EQ(info.textures.size(), 1u);
  EXPECT_GT(info.textures[0].width, 0u);  // the material uses it: decoded
  ASSERT_EQ(info.materials.size(), j["materials"].size());
  EXPECT_EQ(info.materials[0].textures[0], 0);  // base colour texture 0
  ASSERT_TRUE(info.rig);
  EXPECT_FALSE(info.rig->node_rig);
  EXPECT_EQ(info.rig->joints, 24);
  EXPECT_EQ(info.rig->clips, 3);
  ASSERT_TRUE(info.bounds);
  ASSERT_TRUE(info.meshes[0].bounds);
  EXPECT_TRUE(info.bounds->valid());
  EXPECT_GT(info.bounds->hi.y - info.bounds->lo.y, 10.0f);  // the Fox is ~70 units tall
  // The POSITION accessor's own bounds are the rest pose's (a skinned mesh, bind space).
  const json& pos =
      j["accessors"][j["meshes"][0]["primitives"][0]["attributes"]["POSITION"].get<size_t>()];
  EXPECT_NEAR(info.meshes[0].bounds->lo.y, pos["min"][1].get<float>(), 1e-3f);
  EXPECT_NEAR(info.meshes[0].bounds->hi.y, pos["max"][1].get<float>(), 1e-3f);
}

TEST(ModelInfo, DescribesCesiumMan) {
  const fs::path file = corpus("gltf/CesiumMan/glTF-Binary/CesiumMan.glb");
  const ModelInfo info = describe_model(file);
  const json j = gltf_json(file);
  EXPECT_EQ(info.error_count(), 0u);
  ASSERT_EQ(info.skins.size(), 1u);
  EXPECT_EQ(info.skins[0].joints.size(), j["skins"][0]["joints"].size());
  expect_animations_match_json(info, j);
  ASSERT_EQ(info.meshes.size(), 1u);
  ASSERT_EQ(info.meshes[0].primitives.size(), 1u);
  const ModelPrimitiveInfo& p = info.meshes[0].primitives[0];
  EXPECT_EQ(p.mode, "TRIANGLES");
  const json& prim = j["meshes"][0]["primitives"][0];
  EXPECT_EQ(p.vertices, j["accessors"][prim["attributes"]["POSITION"].get<size_t>()]["count"]);
  EXPECT_EQ(p.triangles * 3, j["accessors"][prim["indices"].get<size_t>()]["count"]);
  for (const char* a : {"POSITION", "NORMAL", "TEXCOORD_0", "JOINTS_0", "WEIGHTS_0"})
    EXPECT_NE(std::find(p.attributes.begin(), p.attributes.end(), a), p.attributes.end()) << a;
  ASSERT_TRUE(info.rig);
  EXPECT_EQ(info.rig->clips, 1);
}

TEST(ModelInfo, ListsMorphTargetsAndWeightsChannels) {
  const fs::path file = corpus("gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf");
  const ModelInfo info = describe_model(file);
  const json j = gltf_json(file);
  EXPECT_EQ(info.error_count(), 0u);
  ASSERT_EQ(info.meshes.size(), 1u);
  const size_t targets = j["meshes"][0]["primitives"][0]["targets"].size();
  ASSERT_GT(targets, 0u);
  EXPECT_EQ(info.meshes[0].morph_targets, static_cast<int>(targets));
  EXPECT_EQ(info.meshes[0].primitives[0].morph_targets, static_cast<int>(targets));
  ASSERT_EQ(info.animations.size(), 1u);
  EXPECT_EQ(info.animations[0].weights_channels, 1u);
  ASSERT_TRUE(info.rig);
  EXPECT_EQ(info.rig->morph_sets, 1);
  const std::string text = model_info_text(info);
  EXPECT_NE(text.find("    morph targets: "), std::string::npos) << text;
  EXPECT_NE(text.find(", 1 weights channels"), std::string::npos) << text;
}

// Exports a corpus glTF as FBX with Assimp (key times converted to seconds first, as
// tests/import/assimp_import_test.cpp explains).
void export_fbx(const fs::path& gltf, const fs::path& out) {
  Assimp::Importer importer;
  ASSERT_NE(importer.ReadFile(gltf.string(), aiProcess_Triangulate), nullptr)
      << importer.GetErrorString();
  std::unique_ptr<aiScene> scene(importer.GetOrphanedScene());
  for (unsigned a = 0; a < scene->mNumAnimations; ++a) {
    aiAnimation* anim = scene->mAnimations[a];
    const double tps = anim->mTicksPerSecond > 0 ? anim->mTicksPerSecond : 25.0;
    for (unsigned c = 0; c < anim->mNumChannels; ++c) {
      aiNodeAnim* ch = anim->mChannels[c];
      for (unsigned k = 0; k < ch->mNumPositionKeys; ++k) ch->mPositionKeys[k].mTime /= tps;
      for (unsigned k = 0; k < ch->mNumRotationKeys; ++k) ch->mRotationKeys[k].mTime /= tps;
      for (unsigned k = 0; k < ch->mNumScalingKeys; ++k) ch->mScalingKeys[k].mTime /= tps;
    }
    anim->mDuration = std::ceil(anim->mDuration / tps);
    anim->mTicksPerSecond = 1;
  }
  Assimp::Exporter exporter;
  ASSERT_EQ(exporter.Export(scene.get(), "fbxa", out.string()), AI_SUCCESS)
      << exporter.GetErrorString();
}

TEST(ModelInfo, DescribesAnFbxThroughAssimp) {
  const fs::path dir =
      fs::temp_directory_path() / ("animpack_model_info_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path fbx = dir / "CesiumMan.fbx";
  export_fbx(corpus("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"), fbx);
  const ModelInfo info = describe_model(fbx);
  fs::remove_all(dir);
  EXPECT_EQ(info.format, "fbx");
  EXPECT_EQ(info.error_count(), 0u) << model_info_text(info);
  ASSERT_FALSE(info.meshes.empty());
  EXPECT_GT(info.meshes[0].primitives.at(0).triangles, 0u);
  ASSERT_EQ(info.skins.size(), 1u);
  // Every joint of the glTF's skin is a joint of the FBX's rig, by name.
  const json j = gltf_json(corpus("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"));
  for (const json& node : j["skins"][0]["joints"]) {
    const std::string name = j["nodes"][node.get<size_t>()].value("name", "");
    if (name.empty()) continue;  // Assimp names unnamed nodes its own way
    EXPECT_NE(std::find(info.skins[0].joints.begin(), info.skins[0].joints.end(), name),
              info.skins[0].joints.end())
        << name;
  }
  ASSERT_EQ(info.animations.size(), 1u);
  EXPECT_EQ(info.animations[0].linear, info.animations[0].channels);  // Assimp: LINEAR only
  EXPECT_GT(info.animations[0].keys, 0u);
  EXPECT_TRUE(info.rig);
  EXPECT_TRUE(info.bounds);
}

// A glTF with a reader error: the problems are the cook's for a [[mesh]] naming the file
// (same codes, severities, files and messages), and what the reader could read is listed.
TEST(ModelInfo, BrokenModelGivesTheCooksDiagnosticsAndStillLists) {
  const fs::path model =
      fs::absolute(fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/cook/models/invalid.gltf");
  const ModelInfo info = describe_model(model);
  EXPECT_TRUE(info.readable);
  ASSERT_GT(info.error_count(), 0u);
  bool negative = false;
  for (const ModelProblem& p : info.problems) {
    negative |= p.issue == "ACCESSOR_ANIMATION_INPUT_NEGATIVE";
    if (p.diagnostic.severity == Severity::kError) {
      EXPECT_EQ(p.diagnostic.code, "E0201");
    }
  }
  EXPECT_TRUE(negative);
  EXPECT_EQ(info.nodes, 1u);
  EXPECT_EQ(info.animations.size(), 1u);
  EXPECT_FALSE(info.rig);  // no import with reader errors

  const fs::path dir =
      fs::temp_directory_path() / ("animpack_model_info_cook_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path scene = dir / "scene.toml";
  std::ofstream(scene) << "[[mesh]]\nname = \"m\"\nfile = \"" << model.string() << "\"\n";
  DiagnosticSink sink;
  (void)cook_scene(scene, sink);
  fs::remove_all(dir);
  std::vector<Diagnostic> cooked;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.file != scene.string()) cooked.push_back(d);
  }
  ASSERT_EQ(cooked.size(), info.problems.size());
  for (size_t i = 0; i < cooked.size(); ++i) {
    const Diagnostic& d = info.problems[i].diagnostic;
    EXPECT_EQ(d.code, cooked[i].code) << i;
    EXPECT_EQ(d.severity, cooked[i].severity) << i;
    EXPECT_EQ(fs::path(d.file).lexically_normal(), fs::path(cooked[i].file).lexically_normal())
        << i;
    EXPECT_EQ(d.message, cooked[i].message) << i;
  }
  const std::string text = model_info_text(info);
  EXPECT_NE(text.find("error: /animations/0/samplers/0/input: "), std::string::npos) << text;
  EXPECT_NE(text.find("[ACCESSOR_ANIMATION_INPUT_NEGATIVE] [E0201]"), std::string::npos) << text;
}

TEST(ModelInfo, MissingFileIsUnreadable) {
  const ModelInfo info = describe_model("/nonexistent/model.glb");
  EXPECT_FALSE(info.readable);
  ASSERT_EQ(info.problems.size(), 1u);
  EXPECT_EQ(info.problems[0].diagnostic.code, "E0201");
  EXPECT_EQ(info.problems[0].issue, "IO_ERROR");
  EXPECT_FALSE(describe_model("/nonexistent/model.fbx").readable);
}

// An FBX Assimp cannot read is one E0201 problem with Assimp's code, never a crash.
TEST(ModelInfo, UnreadableFbxIsAnAssimpProblem) {
  const fs::path dir =
      fs::temp_directory_path() / ("animpack_model_info_bad_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path fbx = dir / "hero.fbx";
  std::ofstream(fbx) << "not fbx\n";
  const ModelInfo info = describe_model(fbx);
  fs::remove_all(dir);
  EXPECT_TRUE(info.readable);
  ASSERT_EQ(info.error_count(), 1u);
  EXPECT_EQ(info.problems[0].diagnostic.code, "E0201");
  EXPECT_EQ(info.problems[0].issue, "ASSIMP_READ_FAILED");
  EXPECT_TRUE(info.meshes.empty());
  EXPECT_FALSE(info.rig);
}

TEST(ModelInfo, JsonParsesAndHasTheDocumentedFields) {
  const ModelInfo info = describe_model(corpus("gltf/Fox/glTF-Binary/Fox.glb"));
  const json j = json::parse(model_info_json(info));
  for (const char* key :
       {"file", "format", "generator", "readable", "nodes", "meshes", "skins", "animations",
        "materials", "textures", "rig", "bounds", "problems", "errors", "warnings"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["format"], "glb");
  EXPECT_EQ(j["skins"][0]["joint_count"], 24);
  EXPECT_EQ(j["skins"][0]["joints"].size(), 24u);
  EXPECT_EQ(j["animations"].size(), 3u);
  EXPECT_EQ(j["animations"][1]["name"], info.animations[1].name);
  EXPECT_EQ(j["animations"][1]["interpolations"]["LINEAR"], info.animations[1].channels);
  EXPECT_EQ(j["animations"][1]["keys"], info.animations[1].keys);
  EXPECT_EQ(j["meshes"][0]["primitives"][0]["vertices"], info.meshes[0].primitives[0].vertices);
  EXPECT_EQ(j["meshes"][0]["bounds"]["min"].size(), 3u);
  EXPECT_EQ(j["rig"]["kind"], "skin");
  EXPECT_EQ(j["rig"]["joints"], 24);
  EXPECT_EQ(j["materials"][0]["textures"]["base_color"]["texture"], 0);
  EXPECT_EQ(j["textures"][0]["width"], info.textures[0].width);
  EXPECT_EQ(j["errors"], 0);

  const ModelInfo broken =
      describe_model(fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/cook/models/invalid.gltf");
  const json b = json::parse(model_info_json(broken));
  ASSERT_FALSE(b["problems"].empty());
  const json& p = b["problems"][0];
  for (const char* key :
       {"file", "line", "column", "severity", "code", "message", "pointer", "issue"})
    EXPECT_TRUE(p.contains(key)) << key;
  EXPECT_EQ(b["rig"], nullptr);
  EXPECT_GT(b["errors"].get<int>(), 0);
}

TEST(ModelInfo, TextListsEachKindWithAlignedItems) {
  const std::string text = model_info_text(describe_model(corpus("gltf/Fox/glTF-Binary/Fox.glb")));
  for (const char* line :
       {"meshes: 1\n", "skins: 1\n", "animations: 3\n", "materials: 1\n", "textures: 1\n",
        "rig: skin, 24 joints, 3 clips, 0 morph sets\n",
        "  [0] Survey: ", "  [1] Walk: ", "  [2] Run: ", ", LINEAR ", ": 24 joints",
        " _rootJoint, b_Root_00, ", "    primitive [0]: TRIANGLES, ", "problems: 0 errors, "}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

}  // namespace
}  // namespace animpack
