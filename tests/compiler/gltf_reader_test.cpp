// Tests of the cooker's glTF reader (animpack/compiler/gltf_reader.h):
// - every real model in tests/data/corpus/gltf and tests/data/corpus/asset-generator reads
//   without error, and what it delivers matches counts computed here from the file's JSON
//   and the facts in tests/data/corpus/README.md;
// - every Khronos glTF-Validator negative case in tests/data/corpus/invalid-gltf whose
//   expected report has an error in what the reader reads is refused, at the report's JSON
//   pointer where possible; nothing crashes or hangs;
// - a generated malformed input for every check the corpus does not cover.

#include "animpack/compiler/gltf_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "fixtures/test_data.h"
#include "gltf_test_helpers.h"

namespace animpack {
namespace {

using namespace gltf_test;  // NOLINT(google-build-using-namespace): the suite's helpers
using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(ANIMPACK_CORPUS_DIR);

// ---------------------------------------------------------------------------------------
// Helpers (more in gltf_test_helpers.h)

// A GLB: header, JSON chunk (space padded), optional BIN chunk (zero padded).
std::vector<uint8_t> make_glb(std::string text, const std::vector<uint8_t>* bin) {
  while (text.size() % 4 != 0) text += ' ';
  std::vector<uint8_t> data = bin ? *bin : std::vector<uint8_t>();
  while (data.size() % 4 != 0) data.push_back(0);
  std::vector<uint8_t> out(12 + 8 + text.size() + (bin ? 8 + data.size() : 0));
  put_u32(out, 0, 0x46546C67);
  put_u32(out, 4, 2);
  put_u32(out, 8, static_cast<uint32_t>(out.size()));
  put_u32(out, 12, static_cast<uint32_t>(text.size()));
  put_u32(out, 16, 0x4E4F534A);
  std::memcpy(out.data() + 20, text.data(), text.size());
  if (bin) {
    const size_t at = 20 + text.size();
    put_u32(out, at, static_cast<uint32_t>(data.size()));
    put_u32(out, at + 4, 0x004E4942);
    std::memcpy(out.data() + at + 8, data.data(), data.size());
  }
  return out;
}

// A folder under the system temp dir, removed when the test ends.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(fs::temp_directory_path() /
              ("animpack_gltf_" + name + "_" +
               std::to_string(::testing::UnitTest::GetInstance()->random_seed()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  void write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    std::ofstream out(path_ / name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }

 private:
  fs::path path_;
};

const char* interpolation_spelling(Interpolation i) {
  switch (i) {
    case Interpolation::kStep:
      return "STEP";
    case Interpolation::kLinear:
      return "LINEAR";
    case Interpolation::kCubicSpline:
      return "CUBICSPLINE";
  }
  return "?";
}

int components_of(const std::string& type) {
  static const std::map<std::string, int> kCounts = {
      {"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16}};
  return kCounts.at(type);
}

// Every .gltf/.glb under the corpus folders of real models.
std::vector<fs::path> real_models() {
  std::vector<fs::path> out;
  for (const char* folder : {"gltf", "asset-generator"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kCorpus / folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".gltf" || ext == ".glb") out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

const GltfAnimation* find_animation(const GltfDocument& doc, std::string_view name) {
  for (const GltfAnimation& a : doc.animations) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------
// Real models

TEST(GltfReaderCorpus, EveryRealModelReadsWithoutError) {
  const std::vector<fs::path> models = real_models();
  ASSERT_GE(models.size(), 60u) << "corpus not found under " << kCorpus;
  for (const fs::path& file : models) {
    const GltfDocument doc = read_gltf(file);
    EXPECT_TRUE(doc.ok()) << describe(doc, file);
    for (const GltfIssue& issue : doc.issues) {
      EXPECT_TRUE(is_gltf_issue_code(issue.code)) << issue.code;
    }
  }
}

// Nodes, skins and every channel against what the file's own JSON says.
TEST(GltfReaderCorpus, ContentsMatchTheJson) {
  for (const fs::path& file : real_models()) {
    SCOPED_TRACE(file.string());
    const json j = json_of(file);
    const GltfDocument doc = read_gltf(file);
    ASSERT_TRUE(doc.ok()) << describe(doc, file);

    const json nodes = j.value("nodes", json::array());
    ASSERT_EQ(doc.nodes.size(), nodes.size());
    for (size_t n = 0; n < nodes.size(); ++n) {
      EXPECT_EQ(doc.nodes[n].name, nodes[n].value("name", ""));
      EXPECT_EQ(doc.nodes[n].mesh, nodes[n].value("mesh", -1));
      EXPECT_EQ(doc.nodes[n].skin, nodes[n].value("skin", -1));
      EXPECT_EQ(doc.nodes[n].children, nodes[n].value("children", std::vector<int>()));
    }
    const json skins = j.value("skins", json::array());
    ASSERT_EQ(doc.skins.size(), skins.size());
    for (size_t s = 0; s < skins.size(); ++s) {
      EXPECT_EQ(doc.skins[s].joints, skins[s]["joints"].get<std::vector<int>>());
      EXPECT_EQ(doc.skins[s].inverse_binds.size(), doc.skins[s].joints.size());
      EXPECT_EQ(doc.skins[s].has_inverse_binds, skins[s].contains("inverseBindMatrices"));
    }

    const json& accessors = j["accessors"];
    const json animations = j.value("animations", json::array());
    ASSERT_EQ(doc.animations.size(), animations.size());
    for (size_t a = 0; a < animations.size(); ++a) {
      const GltfAnimation& anim = doc.animations[a];
      const json& ja = animations[a];
      EXPECT_EQ(anim.name, ja.value("name", ""));
      size_t expected_channels = 0;
      double duration = 0;
      for (const json& jc : ja["channels"]) {
        if (!jc["target"].contains("node")) continue;
        ++expected_channels;
        const json& in =
            accessors[ja["samplers"][jc["sampler"].get<size_t>()]["input"].get<size_t>()];
        duration = std::max(duration, in["max"][0].get<double>());
      }
      ASSERT_EQ(anim.channels.size(), expected_channels);
      EXPECT_NEAR(anim.duration, duration, 1e-6 * std::max(1.0, duration));
      for (const GltfChannel& ch : anim.channels) {
        const json& jc = ja["channels"][static_cast<size_t>(ch.source_channel)];
        const json& js = ja["samplers"][jc["sampler"].get<size_t>()];
        const json& in = accessors[js["input"].get<size_t>()];
        const json& out = accessors[js["output"].get<size_t>()];
        const std::string path = jc["target"]["path"];
        EXPECT_EQ(ch.sampler, jc["sampler"].get<int>());
        EXPECT_EQ(ch.node, jc["target"]["node"].get<int>());
        EXPECT_EQ(interpolation_spelling(ch.interpolation), js.value("interpolation", "LINEAR"));
        EXPECT_EQ(ch.morph_weights, path == "weights");
        if (path == "translation") {
          EXPECT_EQ(ch.property, Property::kTranslation);
        } else if (path == "rotation") {
          EXPECT_EQ(ch.property, Property::kRotation);
        } else if (path == "scale") {
          EXPECT_EQ(ch.property, Property::kScale);
        } else {
          EXPECT_EQ(ch.property, Property::kWeights);
          const int mesh = nodes[static_cast<size_t>(ch.node)]["mesh"].get<int>();
          EXPECT_EQ(ch.width, doc.meshes[static_cast<size_t>(mesh)].morph_targets);
        }
        EXPECT_EQ(ch.times.size(), in["count"].get<size_t>());
        EXPECT_EQ(ch.values.size(),
                  out["count"].get<size_t>() * static_cast<size_t>(components_of(out["type"])));
        const size_t per_key = ch.interpolation == Interpolation::kCubicSpline ? 3 : 1;
        EXPECT_EQ(ch.values.size(), ch.times.size() * per_key * static_cast<size_t>(ch.width));
        EXPECT_TRUE(std::is_sorted(ch.times.begin(), ch.times.end()));
        EXPECT_NEAR(ch.times.front(), in["min"][0].get<double>(), 1e-6);
      }
    }
  }
}

TEST(GltfReaderCorpus, FoxHas24JointsAndSurveyWalkRunOnTranslationAndRotation) {
  for (const char* file : {"gltf/Fox/glTF/Fox.gltf", "gltf/Fox/glTF-Binary/Fox.glb"}) {
    SCOPED_TRACE(file);
    const GltfDocument doc = read_gltf(kCorpus / file);
    ASSERT_TRUE(doc.ok()) << describe(doc);
    ASSERT_EQ(doc.skins.size(), 1u);
    EXPECT_EQ(doc.skins[0].joints.size(), 24u);
    ASSERT_EQ(doc.animations.size(), 3u);
    EXPECT_EQ(doc.animations[0].name, "Survey");
    EXPECT_EQ(doc.animations[1].name, "Walk");
    EXPECT_EQ(doc.animations[2].name, "Run");
    size_t channels = 0;
    for (const GltfAnimation& a : doc.animations) {
      channels += a.channels.size();
      for (const GltfChannel& ch : a.channels) {
        EXPECT_NE(ch.property, Property::kScale);
        EXPECT_EQ(ch.interpolation, Interpolation::kLinear);
      }
    }
    EXPECT_EQ(channels, 63u);
    EXPECT_NEAR(doc.animations[0].duration, 3.4166667f, 1e-6);
    EXPECT_NEAR(doc.animations[1].duration, 0.7083333f, 1e-6);
    EXPECT_NEAR(doc.animations[2].duration, 1.1583333f, 1e-6);
  }
}

// The .gltf and the .glb of a model deliver the same keys, bit for bit.
TEST(GltfReaderCorpus, TwinFilesDeliverIdenticalChannels) {
  const std::pair<const char*, const char*> twins[] = {
      {"gltf/Fox/glTF/Fox.gltf", "gltf/Fox/glTF-Binary/Fox.glb"},
      {"gltf/CesiumMan/glTF-Embedded/CesiumMan.gltf", "gltf/CesiumMan/glTF-Binary/CesiumMan.glb"},
      {"gltf/RiggedSimple/glTF/RiggedSimple.gltf",
       "gltf/RiggedSimple/glTF-Embedded/RiggedSimple.gltf"},
  };
  for (const auto& [a_file, b_file] : twins) {
    SCOPED_TRACE(a_file);
    const GltfDocument a = read_gltf(kCorpus / a_file);
    const GltfDocument b = read_gltf(kCorpus / b_file);
    ASSERT_EQ(a.animations.size(), b.animations.size());
    for (size_t i = 0; i < a.animations.size(); ++i) {
      ASSERT_EQ(a.animations[i].channels.size(), b.animations[i].channels.size());
      for (size_t c = 0; c < a.animations[i].channels.size(); ++c) {
        EXPECT_EQ(a.animations[i].channels[c].times, b.animations[i].channels[c].times);
        EXPECT_EQ(a.animations[i].channels[c].values, b.animations[i].channels[c].values);
      }
    }
    ASSERT_EQ(a.skins.size(), b.skins.size());
    for (size_t s = 0; s < a.skins.size(); ++s) {
      for (size_t j = 0; j < a.skins[s].inverse_binds.size(); ++j) {
        EXPECT_TRUE(bits_equal(a.skins[s].inverse_binds[j].m, b.skins[s].inverse_binds[j].m, 16));
      }
    }
  }
}

TEST(GltfReaderCorpus, InterpolationTestHasStepLinearCubicWithTripleCubicOutputs) {
  const GltfDocument doc =
      read_gltf(kCorpus / "gltf/InterpolationTest/glTF/InterpolationTest.gltf");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  ASSERT_EQ(doc.animations.size(), 9u);
  std::map<Interpolation, int> per_interpolation;
  for (const GltfAnimation& a : doc.animations) {
    ASSERT_EQ(a.channels.size(), 1u) << a.name;
    const GltfChannel& ch = a.channels[0];
    ++per_interpolation[ch.interpolation];
    EXPECT_EQ(ch.times.size(), 5u);
    const size_t per_key = ch.interpolation == Interpolation::kCubicSpline ? 3 : 1;
    EXPECT_EQ(ch.values.size(), 5u * per_key * static_cast<size_t>(ch.width)) << a.name;
    // The names say what each animation is.
    const std::string kind = a.name.substr(0, a.name.find(' '));
    EXPECT_EQ(kind == "Step"     ? Interpolation::kStep
              : kind == "Linear" ? Interpolation::kLinear
                                 : Interpolation::kCubicSpline,
              ch.interpolation)
        << a.name;
  }
  EXPECT_EQ(per_interpolation[Interpolation::kStep], 3);
  EXPECT_EQ(per_interpolation[Interpolation::kLinear], 3);
  EXPECT_EQ(per_interpolation[Interpolation::kCubicSpline], 3);
  EXPECT_NEAR(find_animation(doc, "Step Rotation")->duration, 1.7083333f, 1e-6);
}

TEST(GltfReaderCorpus, SkinnedModelsHaveTheirReadmeJointAndChannelCounts) {
  struct Expect {
    const char* file;
    size_t joints;    // of skin 0
    size_t channels;  // of animation 0
    size_t keys;      // of its first channel
  };
  const Expect cases[] = {
      {"gltf/RiggedSimple/glTF/RiggedSimple.gltf", 2, 3, 50},
      {"gltf/RiggedFigure/glTF/RiggedFigure.gltf", 19, 57, 2},
      {"gltf/CesiumMan/glTF-Embedded/CesiumMan.gltf", 19, 57, 49},
      {"gltf/SimpleSkin/glTF/SimpleSkin.gltf", 2, 1, 12},
      {"gltf/Quaternius-Alien/Alien_Scolitex.gltf", 33, 99, 0},
      {"gltf/ozz-tests/character_walk.gltf", 29, 69, 26},
      {"gltf/ozz-tests/cubicspline.gltf", 4, 2, 2},
      {"gltf/blender-io-roundtrip/03_skinned_cylinder/03_skinned_cylinder.gltf", 4, 12, 49},
  };
  for (const Expect& e : cases) {
    SCOPED_TRACE(e.file);
    const GltfDocument doc = read_gltf(kCorpus / e.file);
    ASSERT_TRUE(doc.ok()) << describe(doc);
    ASSERT_FALSE(doc.skins.empty());
    EXPECT_EQ(doc.skins[0].joints.size(), e.joints);
    ASSERT_FALSE(doc.animations.empty());
    EXPECT_EQ(doc.animations[0].channels.size(), e.channels);
    if (e.keys != 0) {
      EXPECT_EQ(doc.animations[0].channels[0].times.size(), e.keys);
    }
  }
}

TEST(GltfReaderCorpus, AlienIdleMixesStepAndLinear) {
  const GltfDocument doc = read_gltf(kCorpus / "gltf/Quaternius-Alien/Alien_Scolitex.gltf");
  const GltfAnimation* idle = find_animation(doc, "Alien_Idle");
  ASSERT_NE(idle, nullptr);
  std::set<Interpolation> seen;
  for (const GltfChannel& ch : idle->channels) seen.insert(ch.interpolation);
  EXPECT_EQ(seen, (std::set<Interpolation>{Interpolation::kStep, Interpolation::kLinear}));
}

TEST(GltfReaderCorpus, OzzCubicSplineRotationsCarryTangents) {
  const GltfDocument doc = read_gltf(kCorpus / "gltf/ozz-tests/cubicspline.gltf");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  bool rotation = false;
  for (const GltfChannel& ch : doc.animations[0].channels) {
    EXPECT_EQ(ch.interpolation, Interpolation::kCubicSpline);
    if (ch.property != Property::kRotation) continue;
    rotation = true;
    // Key k's value is the middle of its three quaternions, and it is unit length.
    for (size_t k = 0; k < ch.times.size(); ++k) {
      const float* q = &ch.values[(k * 3 + 1) * 4];
      EXPECT_NEAR(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), 1.0, 1e-3);
    }
  }
  EXPECT_TRUE(rotation);
}

TEST(GltfReaderCorpus, MultipleRootsHasTwoSkinsAndTwoAnimations) {
  const GltfDocument doc = read_gltf(kCorpus / "gltf/ozz-tests/multiple_roots.gltf");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_EQ(doc.skins.size(), 2u);
  ASSERT_EQ(doc.animations.size(), 2u);
  EXPECT_EQ(doc.animations[0].name, "animation1");
  EXPECT_EQ(doc.animations[1].name, "animation2");
}

// Animation_SamplerType: the same rotation keys as FLOAT, normalised BYTE and SHORT.
TEST(GltfReaderCorpus, NormalizedByteAndShortRotationsDecodeLikeFloats) {
  const fs::path folder = kCorpus / "asset-generator/Animation_SamplerType";
  const GltfDocument reference = read_gltf(folder / "Animation_SamplerType_00.gltf");
  ASSERT_TRUE(reference.ok()) << describe(reference);
  const std::vector<float>& expected = reference.animations[0].channels[0].values;
  ASSERT_EQ(expected.size(), 20u);
  const std::pair<const char*, float> quantized[] = {
      {"Animation_SamplerType_01.gltf", 1 / 127.0f},
      {"Animation_SamplerType_02.gltf", 1 / 32767.0f}};
  for (const auto& [file, step] : quantized) {
    SCOPED_TRACE(file);
    const GltfDocument doc = read_gltf(folder / file);
    ASSERT_TRUE(doc.ok()) << describe(doc);
    const std::vector<float>& values = doc.animations[0].channels[0].values;
    ASSERT_EQ(values.size(), expected.size());
    for (size_t k = 0; k < values.size(); ++k) EXPECT_NEAR(values[k], expected[k], step) << k;
  }
}

// Animation_SkinType: JOINTS_0 as u8/u16, WEIGHTS_0 as float or normalised u8/u16.
TEST(GltfReaderCorpus, SkinTypesDecodeToTheSameInfluences) {
  const fs::path folder = kCorpus / "asset-generator/Animation_SkinType";
  const GltfDocument reference = read_gltf(folder / "Animation_SkinType_00.gltf");
  ASSERT_TRUE(reference.ok()) << describe(reference);
  const GltfPrimitive& ref = reference.meshes[0].primitives[0];
  ASSERT_FALSE(ref.weights.empty());
  for (int i = 1; i < 4; ++i) {
    const std::string file = "Animation_SkinType_0" + std::to_string(i) + ".gltf";
    SCOPED_TRACE(file);
    const GltfDocument doc = read_gltf(folder / file);
    ASSERT_TRUE(doc.ok()) << describe(doc);
    const GltfPrimitive& prim = doc.meshes[0].primitives[0];
    ASSERT_EQ(prim.joints.size(), ref.joints.size());
    ASSERT_EQ(prim.weights.size(), ref.weights.size());
    for (size_t v = 0; v < ref.weights.size(); ++v) {
      EXPECT_EQ(prim.joints[v], ref.joints[v]);
      for (size_t k = 0; k < 4; ++k) EXPECT_NEAR(prim.weights[v][k], ref.weights[v][k], 1 / 255.0);
    }
  }
}

TEST(GltfReaderCorpus, ChannelWithoutTargetNodeIsIgnoredWithAWarning) {
  const GltfDocument doc =
      read_gltf(kCorpus / "asset-generator/Animation_NodeMisc/Animation_NodeMisc_08.gltf");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_TRUE(
      has_issue(doc, "ANIMATION_CHANNEL_NO_NODE", "/animations/0/channels/0/target", false));
  for (const GltfChannel& ch : doc.animations[0].channels) EXPECT_NE(ch.source_channel, 0);
}

TEST(GltfReaderCorpus, NonZeroStartTimeIsKept) {
  const GltfDocument doc =
      read_gltf(kCorpus / "asset-generator/Animation_NodeMisc/Animation_NodeMisc_01.gltf");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_EQ(doc.animations[0].channels[0].times.front(), 1.0f);
  EXPECT_EQ(doc.animations[0].duration, 5.0f);
}

TEST(GltfReaderCorpus, SkinWithoutInverseBindMatricesGetsIdentities) {
  const GltfDocument doc =
      read_gltf(kCorpus / "asset-generator/Animation_Skin/Animation_Skin_03.gltf");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  const GltfSkin& skin = doc.skins[0];
  EXPECT_EQ(skin.name, "skinA");
  EXPECT_FALSE(skin.has_inverse_binds);
  ASSERT_EQ(skin.inverse_binds.size(), 2u);
  const Mat4 identity;
  for (const Mat4& m : skin.inverse_binds) EXPECT_TRUE(bits_equal(m.m, identity.m, 16));
}

TEST(GltfReaderCorpus, JointsWithoutCommonRootAreOnlyAWarning) {
  const GltfDocument doc =
      read_gltf(kCorpus / "asset-generator/Animation_Skin/Animation_Skin_06.gltf");
  EXPECT_TRUE(doc.ok()) << describe(doc);
  EXPECT_TRUE(has_issue(doc, "SKIN_NO_COMMON_ROOT", "/skins/0/joints", false));
}

// The file names the same JOINTS/WEIGHTS accessors for sets 0 and 1: both are delivered.
TEST(GltfReaderCorpus, SecondJointSetIsDelivered) {
  const GltfDocument doc =
      read_gltf(kCorpus / "gltf/SimpleSkin-ramses-variants/SimpleSkin-multi-joint-set.gltf");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  const GltfPrimitive& prim = doc.meshes[0].primitives[0];
  EXPECT_EQ(prim.joint_sets, 2);
  ASSERT_EQ(prim.joints.size(), prim.vertex_count);
  EXPECT_EQ(prim.joints1, prim.joints);
  EXPECT_EQ(prim.weights1, prim.weights);
  for (const GltfIssue& issue : doc.issues)
    EXPECT_NE(issue.code, "MESH_PRIMITIVE_EXTRA_INFLUENCES");
}

TEST(GltfReaderCorpus, MorphWeightChannelsAreDelivered) {
  const GltfDocument doc =
      read_gltf(kCorpus / "gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_EQ(doc.meshes[0].morph_targets, 2);
  const GltfChannel& ch = doc.animations[0].channels[0];
  EXPECT_TRUE(ch.morph_weights);
  EXPECT_EQ(ch.property, Property::kWeights);
  EXPECT_EQ(ch.width, 2);
  EXPECT_EQ(ch.values.size(), ch.times.size() * 2);
}

TEST(GltfReaderCorpus, NodeMatricesAreDecomposed) {
  const GltfDocument doc = read_gltf(kCorpus / "gltf/RiggedSimple/glTF/RiggedSimple.gltf");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  int matrices = 0;
  for (const GltfNode& node : doc.nodes) {
    if (!node.has_matrix) continue;
    ++matrices;
    const Mat4 back = to_matrix(node.local);
    for (int k = 0; k < 16; ++k) EXPECT_NEAR(back.m[k], node.matrix.m[k], 1e-5) << node.name;
  }
  EXPECT_EQ(matrices, 3);
}

TEST(GltfReaderCorpus, FilesReadAreListedForDepfiles) {
  const fs::path gltf = kCorpus / "gltf/Fox/glTF/Fox.gltf";
  const GltfDocument doc = read_gltf(gltf);
  ASSERT_EQ(doc.files.size(), 3u);
  EXPECT_EQ(doc.files[0], gltf);
  EXPECT_EQ(doc.files[1].filename(), "Fox.bin");
  EXPECT_TRUE(fs::exists(doc.files[1]));
  EXPECT_EQ(doc.files[2].filename(), "Texture.png");  // the material's image, decoded
  EXPECT_TRUE(fs::exists(doc.files[2]));

  const GltfDocument embedded = read_gltf(kCorpus / "gltf/SimpleSkin/glTF/SimpleSkin.gltf");
  EXPECT_EQ(embedded.files.size(), 1u);
  const GltfDocument morph = read_gltf(kCorpus / "gltf/SimpleMorph/glTF/SimpleMorph.gltf");
  EXPECT_EQ(morph.files.size(), 3u);
}

// ---------------------------------------------------------------------------------------
// Khronos glTF-Validator negative cases

struct ReportedIssue {
  std::string code;
  std::string pointer;  // "" for GLB container issues (they give a byte offset)
};

// Whether a reported error concerns what the reader reads (morph targets and weights
// included): not materials, textures, images, samplers or cameras.
bool in_what_we_read(const ReportedIssue& e) {
  for (const char* unread : {"/materials", "/textures", "/images", "/samplers", "/cameras"}) {
    if (e.pointer.starts_with(unread)) return false;
  }
  return true;
}

// Cases whose report has an error in what we read that the reader deliberately does not
// treat as an error.
const std::map<std::string, std::string> kExempt = {
    {"skin/no_common_root.gltf",
     "SKIN_NO_COMMON_ROOT is a warning: glTF 2.0.1 does not require a common root, and the Asset "
     "Generator's positive Animation_Skin_06 (which must read) has the same structure."},
};

// Cases whose report has no error that the reader refuses, and why: glTF-Validator skips
// data checks on accessors without a bufferView, but the spec makes them zeros, and zeros
// are not usable key times or inverse bind matrices.
const std::map<std::string, std::string> kRefusedThoughValid = {
    {"animation/valid.gltf", "sampler input without bufferView: key times 0, 0 not ascending"},
    {"skin/valid.gltf", "inverseBindMatrices without bufferView: zero matrices are not affine"},
    {"skin/ignored_animated_transform.gltf",
     "sampler input without bufferView: key times 0, 0 not ascending"},
};

// Refused cases where no error of ours sits at a pointer of the report (or, for GLB
// container issues, has one of its codes), and why.
const std::map<std::string, std::string> kPointerDiffers = {
    {"node/infinite_transform.gltf",
     "nlohmann-json refuses the literal 1e309 while parsing (INVALID_JSON, no pointer); the "
     "validator parses it as Infinity and reports /nodes/0/translation/0"},
    {"glb/chunk_too_big.glb", "declared length 13 < 20 is refused first as GLB_LENGTH_TOO_SMALL"},
    {"glb/truncated_chunk_header.glb",
     "declared length 13 < 20 is refused first as GLB_LENGTH_TOO_SMALL"},
    {"glb/truncated_chunk_data.glb",
     "the declared length exceeds the file: GLB_LENGTH_MISMATCH, checked before the chunks"},
};

struct CaseResult {
  std::string name;
  bool must_error = false;
  bool refused = false;
  bool pointer_matches = false;
};

TEST(GltfReaderValidatorCases, EveryReportedErrorInWhatWeReadIsRefused) {
  const fs::path root = kCorpus / "invalid-gltf";
  std::vector<fs::path> cases;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const fs::path& p = entry.path();
    if ((p.extension() == ".gltf" || p.extension() == ".glb") &&
        fs::exists(p.string() + ".report.json")) {
      cases.push_back(p);
    }
  }
  std::sort(cases.begin(), cases.end());
  ASSERT_GE(cases.size(), 100u);

  std::vector<CaseResult> results;
  for (const fs::path& file : cases) {
    const std::string name = fs::relative(file, root).generic_string();
    SCOPED_TRACE(name);
    const json report = json::parse(read_bytes(file.string() + ".report.json"));
    std::vector<ReportedIssue> errors;
    int reported_errors = 0;
    for (const json& m : report["issues"]["messages"]) {
      if (m["severity"].get<int>() != 0) continue;
      ++reported_errors;
      ReportedIssue e{m["code"], m.value("pointer", "")};
      if (in_what_we_read(e)) errors.push_back(e);
    }

    const auto start = std::chrono::steady_clock::now();
    const GltfDocument doc = read_gltf(file);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 2.0) << "took too long";
    for (const GltfIssue& issue : doc.issues) {
      EXPECT_TRUE(is_gltf_issue_code(issue.code)) << issue.code;
    }

    CaseResult result{name, !errors.empty() && !kExempt.count(name), !doc.ok(), false};
    for (const ReportedIssue& e : errors) {
      for (const GltfIssue& ours : doc.issues) {
        if (!ours.error) continue;
        if (e.pointer.empty() ? ours.code == e.code : ours.pointer == e.pointer) {
          result.pointer_matches = true;
        }
      }
    }
    if (result.must_error) {
      EXPECT_TRUE(result.refused) << "accepted although its report has errors\n"
                                  << describe(doc, name);
      EXPECT_EQ(result.pointer_matches, !kPointerDiffers.count(name))
          << "pointer match changed; update kPointerDiffers\n"
          << describe(doc, name);
    } else if (kExempt.count(name)) {
      EXPECT_FALSE(result.refused) << describe(doc, name);
    } else if (reported_errors == 0) {
      EXPECT_EQ(result.refused, kRefusedThoughValid.count(name) > 0) << describe(doc, name);
    }
    results.push_back(result);
  }

  // The record the issue asks for: which refusals differ from the report's pointers.
  std::cout << "invalid-gltf: " << results.size() << " cases\n";
  for (const CaseResult& r : results) {
    if (r.must_error && !r.pointer_matches) {
      std::cout << "  pointer differs: " << r.name << " (" << kPointerDiffers.at(r.name) << ")\n";
    }
  }
  for (const auto& [name, why] : kExempt) std::cout << "  exempt: " << name << " (" << why << ")\n";
  for (const auto& [name, why] : kRefusedThoughValid) {
    std::cout << "  refused though the validator finds no error: " << name << " (" << why << ")\n";
  }
}

// ---------------------------------------------------------------------------------------
// GLB container and JSON (generated)

// The issue's example: Assimp took 27 s and 2.1 GB on such a file.
TEST(GltfReaderGlb, HugeChunkLengthIsRefusedAtOnce) {
  std::vector<uint8_t> glb = make_glb(R"({"asset":{"version":"2.0"}})", nullptr);
  put_u32(glb, 12, 0x7fffffff);  // the JSON chunk's length
  const auto start = std::chrono::steady_clock::now();
  const GltfDocument doc = read_memory(glb);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.1);
  EXPECT_TRUE(has_error_code(doc, "GLB_CHUNK_TOO_BIG")) << describe(doc);
  EXPECT_EQ(doc.issues.size(), 1u) << describe(doc);

  // The same as a file, and with the total length claiming 2 GiB as well.
  TempDir dir("huge_chunk");
  put_u32(glb, 8, 0x7fffffff);
  dir.write("huge.glb", glb);
  const GltfDocument from_file = read_gltf(dir.path() / "huge.glb");
  EXPECT_TRUE(has_error_code(from_file, "GLB_LENGTH_MISMATCH")) << describe(from_file);
}

TEST(GltfReaderGlb, BinChunkDeliversTheSameDataAsADataUri) {
  const GltfDocument doc = read_gltf(kCorpus / "gltf/Fox/glTF-Binary/Fox.glb");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc.files.size(), 1u);  // the BIN chunk is not a separate file
}

TEST(GltfReaderGlb, JsonChunkPaddedWithNulsIsAccepted) {
  std::string text = R"({"asset":{"version":"2.0"}})";
  text += std::string(3, '\0');
  const GltfDocument doc = read_memory(make_glb(text, nullptr));
  EXPECT_TRUE(doc.ok()) << describe(doc);
}

TEST(GltfReaderGlb, UnknownChunkAfterBinIsSkippedWithAWarning) {
  const std::vector<uint8_t> bin = {1, 2, 3, 4};
  std::vector<uint8_t> glb =
      make_glb(R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":4}]})", &bin);
  const size_t at = glb.size();  // the unknown chunk's offset
  glb.resize(at + 12);
  put_u32(glb, at, 4);
  put_u32(glb, at + 4, 0x12345678);
  put_u32(glb, 8, static_cast<uint32_t>(glb.size()));
  const GltfDocument doc = read_memory(glb);
  EXPECT_TRUE(doc.ok()) << describe(doc);
  EXPECT_TRUE(std::any_of(doc.issues.begin(), doc.issues.end(), [at](const GltfIssue& i) {
    return i.code == "GLB_UNKNOWN_CHUNK_TYPE" && !i.error && i.offset == static_cast<int64_t>(at);
  })) << describe(doc);
}

TEST(GltfReaderGlb, GlbExtensionForcesTheContainerCheck) {
  TempDir dir("glb_ext");
  dir.write("model.glb", bytes_of(R"({"asset":{"version":"2.0"}})"));
  const GltfDocument doc = read_gltf(dir.path() / "model.glb");
  EXPECT_TRUE(has_error_code(doc, "GLB_INVALID_MAGIC")) << describe(doc);
}

TEST(GltfReaderJson, SyntaxErrorGivesItsByteOffset) {
  const std::string text = R"({"asset":{"version":"2.0"},])";
  const GltfDocument doc = read_text(text);
  ASSERT_EQ(doc.issues.size(), 1u) << describe(doc);
  EXPECT_EQ(doc.issues[0].code, "INVALID_JSON");
  EXPECT_EQ(doc.issues[0].offset, static_cast<int64_t>(text.find(']')));

  // In a GLB the offset counts from the start of the file.
  const GltfDocument glb = read_memory(make_glb(text, nullptr));
  ASSERT_EQ(glb.issues.size(), 1u) << describe(glb);
  EXPECT_EQ(glb.issues[0].offset, static_cast<int64_t>(20 + text.find(']')));
}

TEST(GltfReaderJson, ByteOrderMarkIsRefused) {
  const GltfDocument doc = read_text("\xEF\xBB\xBF{\"asset\":{\"version\":\"2.0\"}}");
  EXPECT_TRUE(has_error_code(doc, "INVALID_JSON")) << describe(doc);
}

TEST(GltfReaderJson, RootMustBeAnObject) {
  EXPECT_TRUE(has_issue(read_text("[1, 2]"), "INVALID_JSON", "/", true));
  EXPECT_TRUE(has_error_code(read_text(""), "INVALID_JSON"));
}

TEST(GltfReaderJson, DeepNestingNeitherCrashesNorOverflowsTheStack) {
  const std::string open(100000, '[');
  EXPECT_TRUE(has_error_code(read_text(open), "INVALID_JSON"));
  const std::string deep =
      R"({"asset":{"version":"2.0"},"extras":)" + open + std::string(100000, ']') + "}";
  const GltfDocument doc = read_text(deep);
  EXPECT_TRUE(doc.ok()) << describe(doc);
}

TEST(GltfReaderFiles, MissingFileIsAnIoError) {
  const GltfDocument doc = read_gltf(kCorpus / "no_such_model.gltf");
  ASSERT_EQ(doc.issues.size(), 1u);
  EXPECT_EQ(doc.issues[0].code, "IO_ERROR");
  EXPECT_TRUE(doc.files.empty());
}

TEST(GltfReaderFiles, ExternalBufferIsFoundRelativeToTheGltfAndListed) {
  TempDir dir("external");
  dir.write("a b.bin", {0, 0, 128, 63});  // 1.0f
  const std::string gltf = R"({"asset":{"version":"2.0"},
    "buffers":[{"uri":"a%20b.bin","byteLength":4}],
    "bufferViews":[{"buffer":0,"byteLength":4}],
    "accessors":[{"bufferView":0,"componentType":5126,"type":"SCALAR","count":1}]})";
  dir.write("model.gltf", bytes_of(gltf));
  const GltfDocument doc = read_gltf(dir.path() / "model.gltf");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  ASSERT_EQ(doc.files.size(), 2u);
  EXPECT_EQ(doc.files[1], dir.path() / "a b.bin");
  EXPECT_EQ(doc.accessors[0].floats, std::vector<float>{1.0f});

  // Too short, then missing.
  dir.write("a b.bin", {0, 0});
  EXPECT_TRUE(has_issue(read_gltf(dir.path() / "model.gltf"), "BUFFER_BYTE_LENGTH_MISMATCH",
                        "/buffers/0", true));
  fs::remove(dir.path() / "a b.bin");
  EXPECT_TRUE(has_issue(read_gltf(dir.path() / "model.gltf"), "IO_ERROR", "/buffers/0/uri", true));
}

TEST(GltfReaderFiles, PercentEncodedDataUriIsDecoded) {
  const GltfDocument doc = read_text(R"({"asset":{"version":"2.0"},
    "buffers":[{"uri":"data:application/octet-stream,%01%02AB","byteLength":4}],
    "bufferViews":[{"buffer":0,"byteLength":4}],
    "accessors":[{"bufferView":0,"componentType":5121,"type":"VEC4","count":1}]})");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_EQ(doc.accessors[0].uints, (std::vector<uint32_t>{1, 2, 'A', 'B'}));
}

TEST(GltfReaderFormat, IssueLineNamesFilePointerAndCode) {
  const GltfIssue issue{"/animations/0/samplers/1",
                        "ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT", "Bad input.", true, -1};
  EXPECT_EQ(format_gltf_issue("model.gltf", issue),
            "model.gltf: error: /animations/0/samplers/1: Bad input. "
            "[ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT]");
  const GltfIssue glb{"", "GLB_CHUNK_TOO_BIG", "Too big.", true, 12};
  EXPECT_EQ(format_gltf_issue("m.glb", glb), "m.glb: error: byte 12: Too big. [GLB_CHUNK_TOO_BIG]");
  const GltfIssue warning{"/skins/0/joints", "SKIN_NO_COMMON_ROOT", "No root.", false, -1};
  EXPECT_EQ(format_gltf_issue("m.gltf", warning),
            "m.gltf: warning: /skins/0/joints: No root. [SKIN_NO_COMMON_ROOT]");
}

TEST(GltfReaderFormat, IssueCodesAreUnique) {
  std::set<std::string_view> codes;
  for (const GltfCodeInfo& info : kGltfIssueCodes) {
    EXPECT_TRUE(codes.insert(info.code).second) << info.code;
    EXPECT_FALSE(info.rule.empty()) << info.code;
  }
  EXPECT_FALSE(is_gltf_issue_code("NOT_A_CODE"));
}

// ---------------------------------------------------------------------------------------
// A generated document: a three-joint chain (root > hip > knee) with a skinned triangle
// and one animation (LINEAR translation, CUBICSPLINE rotation). Each malformed case below
// changes one thing in it.

constexpr size_t kPositions = 0;       // 3 x VEC3 float
constexpr size_t kJoints = 36;         // 3 x VEC4 u8
constexpr size_t kWeights = 48;        // 3 x VEC4 float
constexpr size_t kIndices = 96;        // 3 x u16 (+2 padding)
constexpr size_t kIbms = 104;          // 2 x MAT4 float
constexpr size_t kTimes = 232;         // 3 x float
constexpr size_t kTranslations = 244;  // 3 x VEC3 float
constexpr size_t kRotations = 280;     // 3 keys x (in, value, out) x VEC4 float
constexpr size_t kBinSize = 424;

struct Model {
  json gltf;
  std::vector<uint8_t> bin;

  // The glTF text, buffer 0 embedded as a base64 data: URI.
  std::string text() const {
    json j = gltf;
    j["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64(bin);
    j["buffers"][0]["byteLength"] = bin.size();
    return j.dump();
  }
  GltfDocument read() const { return read_text(text()); }
};

Model make_model() {
  Model m;
  m.bin.assign(kBinSize, 0);
  const float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  for (size_t k = 0; k < 9; ++k) put_f32(m.bin, kPositions + 4 * k, positions[k]);
  const uint8_t joints[12] = {0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
  std::memcpy(m.bin.data() + kJoints, joints, 12);
  const float weights[12] = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
  for (size_t k = 0; k < 12; ++k) put_f32(m.bin, kWeights + 4 * k, weights[k]);
  for (uint16_t k = 0; k < 3; ++k) put_u16(m.bin, kIndices + 2 * k, k);
  for (size_t j = 0; j < 2; ++j) {  // identity with translation (0, -1 - j, 0)
    Mat4 ibm;
    ibm.m[13] = -1.0f - static_cast<float>(j);
    for (size_t k = 0; k < 16; ++k) put_f32(m.bin, kIbms + 64 * j + 4 * k, ibm.m[k]);
  }
  const float times[3] = {0, 0.5f, 1.25f};
  for (size_t k = 0; k < 3; ++k) put_f32(m.bin, kTimes + 4 * k, times[k]);
  for (size_t k = 0; k < 3; ++k) put_f32(m.bin, kTranslations + 12 * k + 4, static_cast<float>(k));
  const float values[3][4] = {{0, 0, 0, 1}, {0, 0, 0.70710677f, 0.70710677f}, {0, 0, 1, 0}};
  for (size_t k = 0; k < 3; ++k) {
    for (size_t c = 0; c < 4; ++c) {
      put_f32(m.bin, kRotations + 48 * k + 4 * c, 100.0f + static_cast<float>(10 * k + c));
      put_f32(m.bin, kRotations + 48 * k + 16 + 4 * c, values[k][c]);
      put_f32(m.bin, kRotations + 48 * k + 32 + 4 * c, 200.0f + static_cast<float>(10 * k + c));
    }
  }
  m.gltf = json::parse(R"({
    "asset": {"version": "2.0", "generator": "animpack gltf_reader_test"},
    "scene": 0,
    "scenes": [{"name": "Scene", "nodes": [0]}],
    "nodes": [
      {"name": "root", "children": [1, 3]},
      {"name": "hip", "children": [2], "translation": [0, 1, 0]},
      {"name": "knee", "translation": [0, 1, 0]},
      {"name": "body", "mesh": 0, "skin": 0}
    ],
    "meshes": [{"name": "Body", "primitives": [
      {"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}, "indices": 3}]}],
    "skins": [{"name": "Rig", "joints": [1, 2], "inverseBindMatrices": 4, "skeleton": 1}],
    "animations": [{"name": "Wave",
      "samplers": [{"input": 5, "output": 6, "interpolation": "LINEAR"},
                   {"input": 5, "output": 7, "interpolation": "CUBICSPLINE"}],
      "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}},
                   {"sampler": 1, "target": {"node": 2, "path": "rotation"}}]}],
    "accessors": [
      {"bufferView": 0, "componentType": 5126, "type": "VEC3", "count": 3,
       "min": [0, 0, 0], "max": [1, 1, 0]},
      {"bufferView": 1, "componentType": 5121, "type": "VEC4", "count": 3},
      {"bufferView": 2, "componentType": 5126, "type": "VEC4", "count": 3},
      {"bufferView": 3, "componentType": 5123, "type": "SCALAR", "count": 3},
      {"bufferView": 4, "componentType": 5126, "type": "MAT4", "count": 2},
      {"bufferView": 5, "componentType": 5126, "type": "SCALAR", "count": 3,
       "min": [0], "max": [1.25]},
      {"bufferView": 6, "componentType": 5126, "type": "VEC3", "count": 3},
      {"bufferView": 7, "componentType": 5126, "type": "VEC4", "count": 9}
    ],
    "bufferViews": [
      {"buffer": 0, "byteOffset": 0, "byteLength": 36},
      {"buffer": 0, "byteOffset": 36, "byteLength": 12},
      {"buffer": 0, "byteOffset": 48, "byteLength": 48},
      {"buffer": 0, "byteOffset": 96, "byteLength": 6},
      {"buffer": 0, "byteOffset": 104, "byteLength": 128},
      {"buffer": 0, "byteOffset": 232, "byteLength": 12},
      {"buffer": 0, "byteOffset": 244, "byteLength": 36},
      {"buffer": 0, "byteOffset": 280, "byteLength": 144}
    ],
    "buffers": [{}]
  })");
  return m;
}

TEST(GltfReaderModel, GeneratedModelIsDeliveredExactly) {
  const Model model = make_model();
  const GltfDocument doc = model.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_TRUE(doc.issues.empty()) << describe(doc);
  EXPECT_EQ(doc.generator, "animpack gltf_reader_test");
  EXPECT_EQ(doc.scene, 0);
  EXPECT_EQ(doc.roots, std::vector<int>{0});

  ASSERT_EQ(doc.nodes.size(), 4u);
  EXPECT_EQ(doc.nodes[2].name, "knee");
  EXPECT_EQ(doc.nodes[2].parent, 1);
  EXPECT_EQ(doc.nodes[1].parent, 0);
  EXPECT_EQ(doc.nodes[0].parent, -1);
  EXPECT_EQ(doc.nodes[1].local.translation, (Vec3{0, 1, 0}));
  EXPECT_EQ(doc.nodes[1].matrix.m[13], 1.0f);

  const GltfSkin& skin = doc.skins[0];
  EXPECT_EQ(skin.joints, (std::vector<int>{1, 2}));
  EXPECT_EQ(skin.skeleton, 1);
  ASSERT_EQ(skin.inverse_binds.size(), 2u);
  EXPECT_EQ(skin.inverse_binds[1].m[13], -2.0f);

  const GltfPrimitive& prim = doc.meshes[0].primitives[0];
  EXPECT_EQ(prim.mode, GltfPrimitiveMode::kTriangles);
  EXPECT_EQ(prim.vertex_count, 3u);
  EXPECT_EQ(prim.positions[1], (Vec3{1, 0, 0}));
  EXPECT_EQ(prim.joints[1], (std::array<uint16_t, 4>{0, 1, 0, 0}));
  EXPECT_EQ(prim.weights[1], (std::array<float, 4>{0.5f, 0.5f, 0, 0}));
  EXPECT_TRUE(prim.indexed);
  EXPECT_EQ(prim.indices, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(prim.joint_sets, 1);

  const GltfAnimation& anim = doc.animations[0];
  EXPECT_EQ(anim.name, "Wave");
  EXPECT_EQ(anim.duration, 1.25f);
  ASSERT_EQ(anim.channels.size(), 2u);
  const GltfChannel& move = anim.channels[0];
  EXPECT_EQ(move.node, 1);
  EXPECT_EQ(move.property, Property::kTranslation);
  EXPECT_EQ(move.interpolation, Interpolation::kLinear);
  EXPECT_EQ(move.times, (std::vector<float>{0, 0.5f, 1.25f}));
  EXPECT_EQ(move.values, (std::vector<float>{0, 0, 0, 0, 1, 0, 0, 2, 0}));
  const GltfChannel& turn = anim.channels[1];
  EXPECT_EQ(turn.property, Property::kRotation);
  EXPECT_EQ(turn.interpolation, Interpolation::kCubicSpline);
  EXPECT_EQ(turn.width, 4);
  ASSERT_EQ(turn.values.size(), 36u);
  // Per key: in-tangent, value, out-tangent.
  EXPECT_EQ(turn.values[12 * 1 + 0], 110.0f);
  EXPECT_EQ(turn.values[12 * 1 + 6], 0.70710677f);
  EXPECT_EQ(turn.values[12 * 2 + 11], 223.0f);

  // The same document as a GLB with a BIN chunk.
  json j = model.gltf;
  j["buffers"][0] = {{"byteLength", kBinSize}};
  const GltfDocument glb = read_memory(make_glb(j.dump(), &model.bin));
  ASSERT_TRUE(glb.ok()) << describe(glb);
  EXPECT_EQ(glb.animations[0].channels[1].values, turn.values);
  EXPECT_EQ(glb.meshes[0].primitives[0].weights, prim.weights);
}

TEST(GltfReaderModel, PrimitiveWithoutPositionIsOnlyAWarning) {
  Model m = make_model();
  m.gltf["meshes"][0]["primitives"][0]["attributes"].erase("POSITION");
  const GltfDocument doc = m.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_TRUE(
      has_issue(doc, "MESH_PRIMITIVE_NO_POSITION", "/meshes/0/primitives/0/attributes", false));
  EXPECT_EQ(doc.meshes[0].primitives[0].vertex_count, 3u);  // from the other attributes
  EXPECT_TRUE(doc.meshes[0].primitives[0].positions.empty());
}

TEST(GltfReaderModel, NormalizedIntegersFollowTheSpecFormulas) {
  Model m = make_model();
  const size_t at = m.bin.size();
  m.bin.resize(at + 16);
  const int8_t bytes[4] = {-128, -127, 0, 127};
  std::memcpy(m.bin.data() + at, bytes, 4);
  const uint8_t ubytes[4] = {0, 51, 255, 0};
  std::memcpy(m.bin.data() + at + 4, ubytes, 4);
  put_u16(m.bin, at + 8, static_cast<uint16_t>(-32768));
  put_u16(m.bin, at + 10, 32767);
  put_u16(m.bin, at + 12, 65535);
  put_u16(m.bin, at + 14, 0);
  m.gltf["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", at}, {"byteLength", 16}});
  const int view = static_cast<int>(m.gltf["bufferViews"].size()) - 1;
  for (const auto& [offset, type] : {std::pair{0, 5120}, {4, 5121}, {8, 5122}, {12, 5123}}) {
    m.gltf["accessors"].push_back({{"bufferView", view},
                                   {"byteOffset", offset},
                                   {"componentType", type},
                                   {"normalized", true},
                                   {"type", type < 5122 ? "VEC4" : "VEC2"},
                                   {"count", 1}});
  }
  const GltfDocument doc = m.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_EQ(doc.accessors[8].floats, (std::vector<float>{-1, -1, 0, 1}));
  EXPECT_EQ(doc.accessors[9].floats, (std::vector<float>{0, 0.2f, 1, 0}));
  EXPECT_EQ(doc.accessors[10].floats, (std::vector<float>{-1, 1}));
  EXPECT_EQ(doc.accessors[11].floats, (std::vector<float>{1, 0}));
  EXPECT_TRUE(doc.accessors[9].uints.empty());  // normalised: floats only
}

TEST(GltfReaderModel, MatrixColumnPaddingIsSkipped) {
  // accessor_data/get_elements_matrix.gltf's first accessor: MAT2 of bytes, columns padded
  // to 4 bytes, the last element's last padding absent (14 bytes for 2 matrices).
  const GltfDocument doc =
      read_gltf(kCorpus / "invalid-gltf/accessor_data/get_elements_matrix.gltf");
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_EQ(doc.accessors[0].floats, (std::vector<float>{1, 2, -3, -4, 5, 6, -7, -8}));
  EXPECT_EQ(doc.accessors[2].floats.size(), 18u);
  EXPECT_EQ(doc.accessors[2].floats[0], 1);
  EXPECT_EQ(doc.accessors[2].floats[3], 4);  // second column starts after 1 padding byte
}

TEST(GltfReaderModel, SparseSubstitutionsAreApplied) {
  Model m = make_model();
  const size_t at = m.bin.size();
  m.bin.resize(at + 12);
  m.bin[at] = 0;
  m.bin[at + 1] = 2;
  put_f32(m.bin, at + 4, 7.0f);
  put_f32(m.bin, at + 8, 9.0f);
  m.gltf["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", at}, {"byteLength", 12}});
  m.gltf["accessors"].push_back(json::parse(R"({"componentType": 5126, "type": "SCALAR",
      "count": 4, "sparse": {"count": 2, "indices": {"bufferView": 8, "componentType": 5121},
      "values": {"bufferView": 8, "byteOffset": 4}}})"));
  const GltfDocument doc = m.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_TRUE(doc.accessors[8].sparse);
  EXPECT_EQ(doc.accessors[8].floats, (std::vector<float>{7, 0, 9, 0}));
}

// One malformed input per check the corpus does not cover.
struct MalformedCase {
  const char* name;
  std::function<void(Model&)> change;
  const char* code;
  const char* pointer;
};

void add_sparse(Model& m, std::vector<uint8_t> indices) {
  const size_t at = m.bin.size();
  m.bin.resize(at + 4 + 4 * indices.size());
  std::memcpy(m.bin.data() + at, indices.data(), indices.size());
  m.gltf["bufferViews"].push_back(
      {{"buffer", 0}, {"byteOffset", at}, {"byteLength", 4 + 4 * indices.size()}});
  json sparse = {{"count", indices.size()},
                 {"indices", {{"bufferView", 8}, {"componentType", 5121}}},
                 {"values", {{"bufferView", 8}, {"byteOffset", 4}}}};
  m.gltf["accessors"].push_back(
      {{"componentType", 5126}, {"type", "SCALAR"}, {"count", 3}, {"sparse", sparse}});
}

const MalformedCase kMalformed[] = {
    {"AssetMissing", [](Model& m) { m.gltf.erase("asset"); }, "UNDEFINED_PROPERTY", "/"},
    {"AssetVersion3", [](Model& m) { m.gltf["asset"]["version"] = "3.0"; },
     "UNKNOWN_ASSET_MAJOR_VERSION", "/asset/version"},
    {"AssetVersionNotMajorMinor", [](Model& m) { m.gltf["asset"]["version"] = "2"; },
     "PATTERN_MISMATCH", "/asset/version"},
    {"DracoRequired",
     [](Model& m) {
       m.gltf["extensionsUsed"] = {"KHR_draco_mesh_compression"};
       m.gltf["extensionsRequired"] = {"KHR_draco_mesh_compression"};
     },
     "UNSUPPORTED_EXTENSION", "/extensionsRequired/0"},
    {"WrongJsonType", [](Model& m) { m.gltf["nodes"][1]["translation"] = "up"; }, "TYPE_MISMATCH",
     "/nodes/1/translation"},
    {"WrongArrayLength",
     [](Model& m) {
       m.gltf["nodes"][1]["translation"] = {0, 1};
     },
     "ARRAY_LENGTH_NOT_IN_LIST", "/nodes/1/translation"},
    {"IndexWrittenAsFloat", [](Model& m) { m.gltf["nodes"][3]["mesh"] = 0.0; }, "TYPE_MISMATCH",
     "/nodes/3/mesh"},
    {"NegativeIndex", [](Model& m) { m.gltf["nodes"][3]["mesh"] = -1; }, "VALUE_NOT_IN_RANGE",
     "/nodes/3/mesh"},
    {"DataUriNotBase64",
     [](Model& m) {
       m.gltf["buffers"].push_back({{"uri", "data:;base64,@@@@"}, {"byteLength", 3}});
     },
     "INVALID_URI", "/buffers/1/uri"},
    {"UriAbsolutePath",
     [](Model& m) {
       m.gltf["buffers"].push_back({{"uri", "/etc/passwd"}, {"byteLength", 3}});
     },
     "INVALID_URI", "/buffers/1/uri"},
    {"UriWithScheme",
     [](Model& m) {
       m.gltf["buffers"].push_back({{"uri", "https://example.com/a.bin"}, {"byteLength", 3}});
     },
     "INVALID_URI", "/buffers/1/uri"},
    {"PlaceholderBufferInUse",
     [](Model& m) {
       m.gltf["buffers"].push_back({{"byteLength", kBinSize}});
       m.gltf["bufferViews"][0]["buffer"] = 1;
     },
     "BUFFER_NO_DATA", "/meshes/0/primitives/0/attributes/POSITION"},
    {"ViewOffsetPastBuffer", [](Model& m) { m.gltf["bufferViews"][0]["byteOffset"] = 1000; },
     "BUFFER_VIEW_TOO_LONG", "/bufferViews/0/byteOffset"},
    {"StrideBelow4", [](Model& m) { m.gltf["bufferViews"][0]["byteStride"] = 2; },
     "VALUE_NOT_IN_RANGE", "/bufferViews/0/byteStride"},
    {"StrideAbove252", [](Model& m) { m.gltf["bufferViews"][0]["byteStride"] = 256; },
     "VALUE_NOT_IN_RANGE", "/bufferViews/0/byteStride"},
    {"IndicesViewWithStride",
     [](Model& m) {
       m.gltf["bufferViews"][3]["byteStride"] = 4;
       m.gltf["bufferViews"][3]["byteLength"] = 10;
     },
     "BUFFER_VIEW_INVALID_BYTE_STRIDE", "/meshes/0/primitives/0/indices"},
    {"ComponentTypeInt", [](Model& m) { m.gltf["accessors"][0]["componentType"] = 5124; },
     "VALUE_NOT_IN_LIST", "/accessors/0/componentType"},
    {"AccessorTypeUnknown", [](Model& m) { m.gltf["accessors"][0]["type"] = "VEC5"; },
     "VALUE_NOT_IN_LIST", "/accessors/0/type"},
    {"AccessorCountZero", [](Model& m) { m.gltf["accessors"][0]["count"] = 0; },
     "VALUE_NOT_IN_RANGE", "/accessors/0/count"},
    {"NormalizedFloat", [](Model& m) { m.gltf["accessors"][0]["normalized"] = true; },
     "ACCESSOR_NORMALIZED_INVALID", "/accessors/0/normalized"},
    {"AccessorPastItsView", [](Model& m) { m.gltf["accessors"][6]["count"] = 4; },
     "ACCESSOR_TOO_LONG", "/accessors/6"},
    {"HugeAccessorWithoutView",
     [](Model& m) {
       m.gltf["accessors"].push_back(
           {{"componentType", 5126}, {"type", "MAT4"}, {"count", 4294967295u}});
     },
     "RESOURCE_LIMIT", "/accessors/8"},
    {"NaNPosition",
     [](Model& m) { put_f32(m.bin, kPositions, std::numeric_limits<float>::quiet_NaN()); },
     "ACCESSOR_INVALID_FLOAT", "/accessors/0"},
    {"InfiniteKeyTime",
     [](Model& m) { put_f32(m.bin, kTimes + 8, std::numeric_limits<float>::infinity()); },
     "ACCESSOR_INVALID_FLOAT", "/accessors/5"},
    {"SparseIndicesNotAscending",
     [](Model& m) {
       add_sparse(m, {2, 1});
     },
     "ACCESSOR_SPARSE_INDICES_NON_INCREASING", "/accessors/8/sparse"},
    {"SparseIndexPastCount",
     [](Model& m) {
       add_sparse(m, {0, 7});
     },
     "ACCESSOR_SPARSE_INDEX_OOB", "/accessors/8/sparse"},
    {"AttributeCountsDiffer", [](Model& m) { m.gltf["accessors"][2]["count"] = 2; },
     "MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT", "/meshes/0/primitives/0/attributes/WEIGHTS_0"},
    {"AttributeUnresolved",
     [](Model& m) { m.gltf["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 99; },
     "UNRESOLVED_REFERENCE", "/meshes/0/primitives/0/attributes/POSITION"},
    {"JointsAsFloat",
     [](Model& m) { m.gltf["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = 2; },
     "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
     "/meshes/0/primitives/0/attributes/JOINTS_0"},
    {"JointIndexPastSkin", [](Model& m) { m.bin[kJoints + 8] = 5; }, "ACCESSOR_JOINTS_INDEX_OOB",
     "/meshes/0/primitives/0/attributes/JOINTS_0"},
    {"NegativeWeight",
     [](Model& m) {
       put_f32(m.bin, kWeights + 16, 1.5f);
       put_f32(m.bin, kWeights + 20, -0.5f);
     },
     "ACCESSOR_WEIGHTS_NEGATIVE", "/meshes/0/primitives/0/attributes/WEIGHTS_0"},
    {"PrimitiveModeUnknown", [](Model& m) { m.gltf["meshes"][0]["primitives"][0]["mode"] = 7; },
     "VALUE_NOT_IN_RANGE", "/meshes/0/primitives/0/mode"},
    {"IndexPastVertexCount", [](Model& m) { put_u16(m.bin, kIndices + 4, 3); },
     "ACCESSOR_INDEX_OOB", "/meshes/0/primitives/0/indices"},
    {"SignedIndices", [](Model& m) { m.gltf["accessors"][3]["componentType"] = 5122; },
     "MESH_PRIMITIVE_INDICES_ACCESSOR_INVALID_FORMAT", "/meshes/0/primitives/0/indices"},
    {"NodeItsOwnChild", [](Model& m) { m.gltf["nodes"][2]["children"] = {2}; }, "NODE_LOOP",
     "/nodes/2"},
    {"ChildUnresolved", [](Model& m) { m.gltf["nodes"][2]["children"] = {9}; },
     "UNRESOLVED_REFERENCE", "/nodes/2/children/0"},
    {"ChildListedTwice",
     [](Model& m) {
       m.gltf["nodes"][0]["children"] = {1, 1, 3};
     },
     "DUPLICATE_ELEMENTS", "/nodes/0/children/1"},
    {"MatrixWithShear",
     [](Model& m) {
       m.gltf["nodes"][0]["matrix"] = {1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
     },
     "NODE_MATRIX_NON_TRS", "/nodes/0/matrix"},
    {"SceneListsAChild",
     [](Model& m) {
       m.gltf["scenes"][0]["nodes"] = {0, 1};
     },
     "SCENE_NON_ROOT_NODE", "/scenes/0/nodes/1"},
    {"SceneUnresolved", [](Model& m) { m.gltf["scene"] = 3; }, "UNRESOLVED_REFERENCE", "/scene"},
    {"SkinJointListedTwice",
     [](Model& m) {
       m.gltf["skins"][0]["joints"] = {1, 1};
     },
     "DUPLICATE_ELEMENTS", "/skins/0/joints/1"},
    {"InterpolationUnknown",
     [](Model& m) { m.gltf["animations"][0]["samplers"][0]["interpolation"] = "BEZIER"; },
     "VALUE_NOT_IN_LIST", "/animations/0/samplers/0/interpolation"},
    {"CubicOutputNotThreeTimesKeys",
     [](Model& m) { m.gltf["animations"][0]["samplers"][0]["interpolation"] = "CUBICSPLINE"; },
     "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", "/animations/0/channels/0/sampler"},
    {"LinearOutputCountDiffers",
     [](Model& m) { m.gltf["animations"][0]["samplers"][1]["interpolation"] = "LINEAR"; },
     "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", "/animations/0/channels/1/sampler"},
    {"RotationOutputVec3", [](Model& m) { m.gltf["animations"][0]["channels"][1]["sampler"] = 0; },
     "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT", "/animations/0/channels/1/sampler"},
    {"RotationKeyNotUnit", [](Model& m) { put_f32(m.bin, kRotations + 48 + 16 + 12, 2.0f); },
     "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION",
     "/animations/0/channels/1/sampler"},
    {"ChannelTargetsTheSamePathTwice",
     [](Model& m) {
       m.gltf["animations"][0]["channels"].push_back(
           {{"sampler", 0}, {"target", {{"node", 1}, {"path", "translation"}}}});
     },
     "ANIMATION_DUPLICATE_TARGETS", "/animations/0/channels/0/target"},
};

class GltfReaderMalformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(GltfReaderMalformed, IsRefusedAtItsPointer) {
  const MalformedCase& c = GetParam();
  Model model = make_model();
  c.change(model);
  const auto start = std::chrono::steady_clock::now();
  const GltfDocument doc = model.read();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  EXPECT_FALSE(doc.ok());
  EXPECT_TRUE(has_issue(doc, c.code, c.pointer, true))
      << "expected " << c.code << " at " << c.pointer << ", got:\n"
      << describe(doc);
  for (const GltfIssue& issue : doc.issues)
    EXPECT_TRUE(is_gltf_issue_code(issue.code)) << issue.code;
}

INSTANTIATE_TEST_SUITE_P(Checks, GltfReaderMalformed, ::testing::ValuesIn(kMalformed),
                         [](const ::testing::TestParamInfo<MalformedCase>& param) {
                           return std::string(param.param.name);
                         });

// ---------------------------------------------------------------------------------------
// Robustness: random damage to real files is reported, never a crash (run under ASan).

TEST(GltfReaderRobustness, DamagedFilesNeverCrash) {
  struct Source {
    fs::path file;
    bool digits_only;  // change digits only, so the JSON stays well-formed more often
  };
  const Source sources[] = {
      {kCorpus / "asset-generator/Animation_Skin/Animation_Skin_01.gltf", true},
      {kCorpus / "gltf/SimpleSkin/glTF/SimpleSkin.gltf", true},
      {kCorpus / "gltf/RiggedSimple/glTF-Binary-older-revision/RiggedSimple.glb", false},
      {kCorpus / "gltf/InterpolationTest/glTF/InterpolationTest.gltf", true},
  };
  uint64_t state = 0x9E3779B97F4A7C15ull;
  const auto next = [&state](uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<size_t>((state >> 33) % n);
  };
  size_t refused = 0, runs = 0;
  for (const Source& source : sources) {
    const std::vector<uint8_t> original = read_bytes(source.file);
    std::vector<size_t> digits;
    for (size_t i = 0; i < original.size(); ++i) {
      if (original[i] >= '0' && original[i] <= '9') digits.push_back(i);
    }
    for (int round = 0; round < 150; ++round) {
      std::vector<uint8_t> bytes = original;
      const int edits = 1 + static_cast<int>(next(4));
      for (int e = 0; e < edits; ++e) {
        if (source.digits_only) {
          bytes[digits[next(digits.size())]] = static_cast<uint8_t>('0' + next(10));
        } else {
          bytes[next(bytes.size())] = static_cast<uint8_t>(next(256));
        }
      }
      if (round % 10 == 9) bytes.resize(next(bytes.size()));
      const GltfDocument doc = read_memory(bytes, source.file.parent_path());
      ++runs;
      if (!doc.ok()) ++refused;
      for (const GltfIssue& issue : doc.issues) {
        ASSERT_TRUE(is_gltf_issue_code(issue.code)) << issue.code;
        ASSERT_NE(issue.code, "INTERNAL_ERROR") << issue.message;
      }
    }
  }
  EXPECT_GT(refused, runs / 4);
}

}  // namespace
}  // namespace animpack
