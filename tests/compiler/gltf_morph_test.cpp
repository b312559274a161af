// Tests of what the glTF reader delivers for morph targets and eight-influence skinning
// (animpack/compiler/gltf_reader.h):
// - every morph-target file of tests/data/corpus/gltf reads without error, and its deltas,
//   default weights, target names and weights channels equal what this test decodes from
//   the file's own JSON and buffers;
// - glTF-Validator's morph cases (tests/data/corpus/invalid-gltf) give the report's codes
//   at the report's pointers;
// - generated documents: float, sparse and quantised deltas; STEP, LINEAR and CUBICSPLINE
//   weights channels; a primitive with JOINTS_0/1 and WEIGHTS_0/1; and one malformed input
//   per new check, refused at its JSON pointer.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "animpack/compiler/gltf_reader.h"
#include "gltf_test_helpers.h"

namespace animpack {
namespace {

using namespace gltf_test;  // NOLINT(google-build-using-namespace): the suite's helpers
using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(ANIMPACK_CORPUS_DIR);

// ---------------------------------------------------------------------------------------
// An independent decoder of FLOAT accessors (the only kind the corpus' morph files use for
// deltas and weights): bufferView, byteOffset, byteStride, sparse substitutions.

class FloatAccessors {
 public:
  FloatAccessors(const fs::path& file, json gltf) : gltf_(std::move(gltf)) {
    for (const json& b : gltf_["buffers"]) {
      const std::string uri = b.at("uri");
      EXPECT_NE(uri.rfind("data:", 0), 0u) << "the decoder reads external buffers only";
      buffers_.push_back(read_bytes(file.parent_path() / uri));
    }
  }

  // Accessor i's components, count * components floats.
  std::vector<float> operator()(size_t i) const {
    const json& a = gltf_["accessors"][i];
    EXPECT_EQ(a.at("componentType").get<int>(), 5126) << "accessor " << i;
    const size_t n = components(a.at("type"));
    const size_t count = a.at("count");
    std::vector<float> out(count * n, 0.0f);
    if (a.contains("bufferView")) {
      const auto [bytes, stride] = view(a["bufferView"], n * 4);
      const size_t offset = a.value("byteOffset", size_t{0});
      for (size_t e = 0; e < count; ++e) {
        for (size_t c = 0; c < n; ++c) out[e * n + c] = f32(bytes + offset + e * stride + 4 * c);
      }
    }
    if (a.contains("sparse")) {
      const json& s = a["sparse"];
      const size_t k = s.at("count");
      const uint8_t* ib =
          view(s["indices"]["bufferView"], 0).first + s["indices"].value("byteOffset", size_t{0});
      const uint8_t* vb =
          view(s["values"]["bufferView"], 0).first + s["values"].value("byteOffset", size_t{0});
      const int type = s["indices"].at("componentType");
      const size_t isize = type == 5121 ? 1 : type == 5123 ? 2 : 4;
      for (size_t j = 0; j < k; ++j) {
        size_t index = 0;
        for (size_t b = 0; b < isize; ++b) index |= size_t{ib[j * isize + b]} << (8 * b);
        for (size_t c = 0; c < n; ++c) out[index * n + c] = f32(vb + (j * n + c) * 4);
      }
    }
    return out;
  }

  std::vector<Vec3> vec3(size_t i) const {
    const std::vector<float> f = (*this)(i);
    std::vector<Vec3> out;
    for (size_t e = 0; e + 2 < f.size(); e += 3) out.push_back({f[e], f[e + 1], f[e + 2]});
    return out;
  }

 private:
  static size_t components(const std::string& type) {
    return type == "SCALAR" ? 1 : type == "VEC2" ? 2 : type == "VEC3" ? 3 : 4;
  }
  static float f32(const uint8_t* p) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  // The view's first byte and its stride (tight: `element` bytes).
  std::pair<const uint8_t*, size_t> view(const json& index, size_t element) const {
    const json& v = gltf_["bufferViews"][index.get<size_t>()];
    const std::vector<uint8_t>& buffer = buffers_[v.at("buffer").get<size_t>()];
    return {buffer.data() + v.value("byteOffset", size_t{0}), v.value("byteStride", element)};
  }

  json gltf_;
  std::vector<std::vector<uint8_t>> buffers_;
};

// Every .gltf of the corpus' real models with a primitive that has morph targets.
std::vector<fs::path> morph_models() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::recursive_directory_iterator(kCorpus / "gltf")) {
    if (entry.path().extension() != ".gltf") continue;
    const json j = json_of(entry.path());
    for (const json& mesh : j.value("meshes", json::array())) {
      for (const json& prim : mesh["primitives"]) {
        if (prim.contains("targets")) {
          out.push_back(entry.path());
          goto next;
        }
      }
    }
  next:;
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(GltfReaderMorphCorpus, EveryMorphFileDeliversTheDeltasWeightsAndNamesOfItsJson) {
  const std::vector<fs::path> files = morph_models();
  // AnimatedMorphCube, AnimatedMorphSphere, SimpleMorph, MorphStressTest, Blender's 01_cs_morph.
  ASSERT_GE(files.size(), 5u);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const json j = json_of(file);
    const FloatAccessors decode(file, j);
    const GltfDocument doc = read_gltf(file);
    ASSERT_TRUE(doc.ok()) << describe(doc, file);
    for (const GltfIssue& issue : doc.issues) {
      EXPECT_NE(issue.code, "MESH_PRIMITIVE_MORPH_TARGET_EXTRA_ATTRIBUTE") << issue.pointer;
    }
    size_t deltas = 0;
    for (size_t m = 0; m < j["meshes"].size(); ++m) {
      const json& jm = j["meshes"][m];
      const GltfMesh& mesh = doc.meshes[m];
      const size_t targets = jm["primitives"][0].value("targets", json::array()).size();
      ASSERT_EQ(mesh.morph_targets, static_cast<int>(targets));
      EXPECT_EQ(mesh.weights,
                jm.value("weights", std::vector<float>(targets, 0.0f)));  // doubles as written
      const json extras = jm.value("extras", json::object());
      EXPECT_EQ(mesh.target_names, extras.value("targetNames", std::vector<std::string>()));
      for (size_t p = 0; p < jm["primitives"].size(); ++p) {
        const json& jp = jm["primitives"][p];
        const GltfPrimitive& prim = mesh.primitives[p];
        ASSERT_EQ(prim.targets.size(), targets);
        for (size_t t = 0; t < targets; ++t) {
          const json& jt = jp["targets"][t];
          const GltfMorphTarget& target = prim.targets[t];
          for (const auto& [semantic, stream] : {std::pair{"POSITION", &target.positions},
                                                 {"NORMAL", &target.normals},
                                                 {"TANGENT", &target.tangents}}) {
            if (!jt.contains(semantic)) {
              EXPECT_TRUE(stream->empty()) << semantic;
              continue;
            }
            ASSERT_EQ(stream->size(), prim.vertex_count) << semantic;
            EXPECT_EQ(*stream, decode.vec3(jt[semantic].get<size_t>())) << semantic << " " << t;
            deltas += stream->size();
          }
        }
      }
    }
    EXPECT_GT(deltas, 0u);

    // Weights channels: one value per target and key (x3 for CUBICSPLINE), as decoded.
    size_t weight_channels = 0;
    for (size_t a = 0; a < doc.animations.size(); ++a) {
      for (const GltfChannel& ch : doc.animations[a].channels) {
        if (!ch.morph_weights) continue;
        ++weight_channels;
        const json& js = j["animations"][a]["samplers"][static_cast<size_t>(ch.sampler)];
        const int mesh = j["nodes"][static_cast<size_t>(ch.node)].at("mesh");
        EXPECT_EQ(ch.property, Property::kWeights);
        EXPECT_EQ(ch.width, doc.meshes[static_cast<size_t>(mesh)].morph_targets);
        EXPECT_EQ(ch.times, decode(js.at("input").get<size_t>()));
        EXPECT_EQ(ch.values, decode(js.at("output").get<size_t>()));
      }
    }
    EXPECT_GT(weight_channels, 0u);
  }
}

// The validator's morph cases: each reported error, with its code, at its pointer.
TEST(GltfReaderMorphCorpus, ValidatorMorphCasesGiveTheReportedCodesAtTheirPointers) {
  const char* cases[] = {
      "mesh/morph_attribute_invalid_count.gltf", "mesh/morph_attribute_no_base.gltf",
      "mesh/morph_unequal_targets_count.gltf",   "mesh/morph_weights_wrong_count.gltf",
      "node/node_weights_invalid.gltf",          "node/weights_with_no_mesh.gltf",
  };
  for (const char* name : cases) {
    SCOPED_TRACE(name);
    const fs::path file = kCorpus / "invalid-gltf" / name;
    const json report = json::parse(read_bytes(file.string() + ".report.json"));
    const GltfDocument doc = read_gltf(file);
    EXPECT_FALSE(doc.ok());
    size_t errors = 0;
    for (const json& m : report["issues"]["messages"]) {
      if (m["severity"].get<int>() != 0) continue;
      ++errors;
      EXPECT_TRUE(
          has_issue(doc, m["code"].get<std::string>(), m["pointer"].get<std::string>(), true))
          << m["code"] << " at " << m["pointer"] << "; got:\n"
          << describe(doc, name);
    }
    EXPECT_GT(errors, 0u);
  }
  // The override case has no error: node.weights replaces mesh.weights.
  const GltfDocument valid = read_gltf(kCorpus / "invalid-gltf/node/node_weights_override.gltf");
  EXPECT_TRUE(valid.ok()) << describe(valid);
}

// ---------------------------------------------------------------------------------------
// Generated documents

// A glTF under construction: accessors appended with their views into one buffer, which
// is embedded as a data: URI.
struct Builder {
  json gltf = json::parse(R"({"asset": {"version": "2.0"}, "accessors": [], "bufferViews": [],
                              "buffers": [{}]})");
  std::vector<uint8_t> bin;

  // A view over `bytes` (appended at a 4-byte boundary); returns its index.
  size_t view(const std::vector<uint8_t>& bytes) {
    while (bin.size() % 4 != 0) bin.push_back(0);
    gltf["bufferViews"].push_back(
        {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", bytes.size()}});
    bin.insert(bin.end(), bytes.begin(), bytes.end());
    return gltf["bufferViews"].size() - 1;
  }
  size_t accessor(json a) {
    gltf["accessors"].push_back(std::move(a));
    return gltf["accessors"].size() - 1;
  }
  // A FLOAT accessor of `type` over `values`; `bounds` adds min and max.
  size_t floats(const std::vector<float>& values, const char* type, bool bounds = false) {
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    const std::string t = type;
    const size_t n = t == "SCALAR" ? 1 : t == "VEC2" ? 2 : t == "VEC3" ? 3 : 4;
    json a = {{"bufferView", view(bytes)},
              {"componentType", 5126},
              {"type", type},
              {"count", values.size() / n}};
    if (bounds) {
      std::vector<float> lo(values.begin(), values.begin() + static_cast<ptrdiff_t>(n));
      std::vector<float> hi = lo;
      for (size_t k = 0; k < values.size(); ++k) {
        lo[k % n] = std::min(lo[k % n], values[k]);
        hi[k % n] = std::max(hi[k % n], values[k]);
      }
      a["min"] = lo;
      a["max"] = hi;
    }
    return accessor(a);
  }
  // An integer accessor of `type` from raw little-endian `bytes`.
  size_t ints(const std::vector<uint8_t>& bytes, int component_type, const char* type, size_t count,
              bool normalized = false) {
    json a = {{"bufferView", view(bytes)},
              {"componentType", component_type},
              {"type", type},
              {"count", count}};
    if (normalized) a["normalized"] = true;
    return accessor(a);
  }

  std::string text() const {
    json j = gltf;
    j["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64(bin);
    j["buffers"][0]["byteLength"] = std::max<size_t>(bin.size(), 1);
    return j.dump();
  }
  GltfDocument read() const { return read_text(text()); }
};

std::vector<uint8_t> u16_bytes(const std::vector<uint16_t>& v) {
  std::vector<uint8_t> out(v.size() * 2);
  for (size_t k = 0; k < v.size(); ++k) put_u16(out, 2 * k, v[k]);
  return out;
}

// Accessors of the morph model (make_morph_model).
enum MorphAccessor : size_t {
  kBase = 0,      // 3 x VEC3 positions
  kNormals,       // 3 x VEC3
  kDelta0,        // target 0 POSITION deltas
  kNormalDelta0,  // target 0 NORMAL deltas
  kSparseDelta1,  // target 1 POSITION deltas: zeros + one sparse substitution
  kTimes,         // 3 key times
  kStepOut,       // 3 keys x 2 weights (STEP and LINEAR)
  kCubicOut,      // 3 keys x (in, value, out) x 2 weights
};

const std::vector<float> kCubicValues = [] {
  std::vector<float> v(18);
  for (size_t k = 0; k < v.size(); ++k) v[k] = 100.0f + static_cast<float>(k);
  return v;
}();

// One triangle with two morph targets (float deltas; sparse deltas), mesh weights and
// target names, a node with its own weights, and three weights animations (STEP,
// LINEAR, CUBICSPLINE).
Builder make_morph_model() {
  Builder b;
  b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);      // kBase
  b.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");            // kNormals
  b.floats({0, 0, 1, 0, 0, 2, 0, 0, 3}, "VEC3");            // kDelta0
  b.floats({0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.25f}, "VEC3");  // kNormalDelta0
  const size_t indices = b.view({2, 0, 0, 0});
  std::vector<uint8_t> values(12);
  const float substitution[3] = {1, 1, 0};
  std::memcpy(values.data(), substitution, 12);
  const size_t sparse_values = b.view(values);
  b.accessor({{"componentType", 5126},
              {"type", "VEC3"},
              {"count", 3},
              {"sparse",
               {{"count", 1},
                {"indices", {{"bufferView", indices}, {"componentType", 5121}}},
                {"values", {{"bufferView", sparse_values}}}}}});  // kSparseDelta1
  b.floats({0, 1, 2}, "SCALAR", true);                            // kTimes
  b.floats({0, 1, 1, 0, 0.5f, 0.5f}, "SCALAR");                   // kStepOut
  b.floats(kCubicValues, "SCALAR");                               // kCubicOut
  const json rest = json::parse(R"({
    "scene": 0,
    "scenes": [{"nodes": [0]}],
    "nodes": [{"name": "face", "mesh": 0, "weights": [1, 0]}],
    "meshes": [{"name": "Face", "weights": [0.25, 0.5],
      "extras": {"targetNames": ["Smile", "Blink"]},
      "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1},
                      "targets": [{"POSITION": 2, "NORMAL": 3}, {"POSITION": 4}]}]}],
    "animations": [
      {"name": "Step", "samplers": [{"input": 5, "output": 6, "interpolation": "STEP"}],
       "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]},
      {"name": "Linear", "samplers": [{"input": 5, "output": 6}],
       "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]},
      {"name": "Cubic", "samplers": [{"input": 5, "output": 7, "interpolation": "CUBICSPLINE"}],
       "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}]
  })");
  b.gltf.update(rest);
  return b;
}

TEST(GltfReaderMorph, GeneratedMorphModelIsDeliveredExactly) {
  const GltfDocument doc = make_morph_model().read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_TRUE(doc.issues.empty()) << describe(doc);
  const GltfMesh& mesh = doc.meshes[0];
  EXPECT_EQ(mesh.morph_targets, 2);
  EXPECT_EQ(mesh.weights, (std::vector<float>{0.25f, 0.5f}));
  EXPECT_EQ(mesh.target_names, (std::vector<std::string>{"Smile", "Blink"}));
  EXPECT_EQ(doc.nodes[0].weights, (std::vector<float>{1, 0}));
  const GltfPrimitive& prim = mesh.primitives[0];
  ASSERT_EQ(prim.targets.size(), 2u);
  EXPECT_EQ(prim.targets[0].positions, (std::vector<Vec3>{{0, 0, 1}, {0, 0, 2}, {0, 0, 3}}));
  EXPECT_EQ(prim.targets[0].normals,
            (std::vector<Vec3>{{0.5f, 0, 0}, {0, 0.5f, 0}, {0, 0, 0.25f}}));
  EXPECT_TRUE(prim.targets[0].tangents.empty());
  // Sparse: zeros (no bufferView) with vertex 2 substituted.
  EXPECT_EQ(prim.targets[1].positions, (std::vector<Vec3>{{0, 0, 0}, {0, 0, 0}, {1, 1, 0}}));
  EXPECT_TRUE(prim.targets[1].normals.empty());

  const Interpolation kinds[3] = {Interpolation::kStep, Interpolation::kLinear,
                                  Interpolation::kCubicSpline};
  ASSERT_EQ(doc.animations.size(), 3u);
  for (size_t a = 0; a < 3; ++a) {
    SCOPED_TRACE(doc.animations[a].name);
    ASSERT_EQ(doc.animations[a].channels.size(), 1u);
    const GltfChannel& ch = doc.animations[a].channels[0];
    EXPECT_TRUE(ch.morph_weights);
    EXPECT_EQ(ch.property, Property::kWeights);
    EXPECT_EQ(ch.node, 0);
    EXPECT_EQ(ch.width, 2);
    EXPECT_EQ(ch.interpolation, kinds[a]);
    EXPECT_EQ(ch.times, (std::vector<float>{0, 1, 2}));
    const std::vector<float> linear = {0, 1, 1, 0, 0.5f, 0.5f};
    EXPECT_EQ(ch.values, a < 2 ? linear : kCubicValues);
    EXPECT_EQ(doc.animations[a].duration, 2.0f);
  }
}

TEST(GltfReaderMorph, MeshWithoutWeightsGetsZerosAndNoNames) {
  Builder b = make_morph_model();
  b.gltf["meshes"][0].erase("weights");
  b.gltf["meshes"][0].erase("extras");
  b.gltf["nodes"][0].erase("weights");
  const GltfDocument doc = b.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_EQ(doc.meshes[0].weights, (std::vector<float>{0, 0}));
  EXPECT_TRUE(doc.meshes[0].target_names.empty());
  EXPECT_TRUE(doc.nodes[0].weights.empty());
}

// KHR_mesh_quantization: BYTE POSITION deltas as integers, normalised SHORT NORMAL deltas
// by the spec's formula max(c / 32767, -1).
TEST(GltfReaderMorph, QuantizedDeltasAreConverted) {
  Builder b = make_morph_model();
  b.gltf["extensionsUsed"] = {"KHR_mesh_quantization"};
  b.gltf["extensionsRequired"] = {"KHR_mesh_quantization"};
  const size_t bytes =
      b.ints({1, 0, 0, 0, 0xFE, 0, 0, 0, 0x7F, 0, 0, 0}, 5120, "VEC3", 3);  // 4-byte stride
  b.gltf["bufferViews"][b.gltf["accessors"][bytes]["bufferView"].get<size_t>()]["byteStride"] = 4;
  const size_t shorts =
      b.ints(u16_bytes({32767, 0, 0, 0x8000, 0, 0, 16384, 0, 0}), 5122, "VEC3", 3, true);
  b.gltf["meshes"][0]["primitives"][0]["targets"][0] = {{"POSITION", bytes}, {"NORMAL", shorts}};
  const GltfDocument doc = b.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  const GltfMorphTarget& t = doc.meshes[0].primitives[0].targets[0];
  EXPECT_EQ(t.positions, (std::vector<Vec3>{{1, 0, 0}, {-2, 0, 0}, {127, 0, 0}}));
  EXPECT_EQ(t.normals, (std::vector<Vec3>{{1, 0, 0}, {-1, 0, 0}, {16384.0f / 32767.0f, 0, 0}}));

  // The same deltas without the extension are refused.
  b.gltf.erase("extensionsUsed");
  b.gltf.erase("extensionsRequired");
  const GltfDocument plain = b.read();
  EXPECT_TRUE(has_issue(plain, "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
                        "/meshes/0/primitives/0/targets/0/POSITION", true))
      << describe(plain);
}

TEST(GltfReaderMorph, BadTargetNamesAndTexcoordDeltasAreOnlyWarnings) {
  Builder b = make_morph_model();
  b.gltf["meshes"][0]["extras"]["targetNames"] = {"Smile"};  // one name for two targets
  const size_t uv = b.floats({0, 0, 1, 0, 0, 1}, "VEC2");
  b.gltf["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = uv;
  b.gltf["meshes"][0]["primitives"][0]["targets"][0]["TEXCOORD_0"] = uv;
  b.gltf["meshes"][0]["primitives"][0]["targets"][1]["TEXCOORD_0"] = uv;
  const GltfDocument doc = b.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_TRUE(doc.meshes[0].target_names.empty());
  EXPECT_TRUE(has_issue(doc, "MESH_TARGET_NAMES_INVALID", "/meshes/0/extras/targetNames", false));
  EXPECT_TRUE(has_issue(doc, "MESH_PRIMITIVE_MORPH_TARGET_EXTRA_ATTRIBUTE",
                        "/meshes/0/primitives/0/targets/0/TEXCOORD_0", false));
  const size_t extra = static_cast<size_t>(std::count_if(
      doc.issues.begin(), doc.issues.end(),
      [](const GltfIssue& i) { return i.code == "MESH_PRIMITIVE_MORPH_TARGET_EXTRA_ATTRIBUTE"; }));
  EXPECT_EQ(extra, 1u);  // once per file
  EXPECT_EQ(doc.meshes[0].primitives[0].targets[0].positions.size(), 3u);
}

// kGltfMaxMorphTargets targets read (one more: TooManyTargets below).
TEST(GltfReaderMorph, TargetsUpToTheLimitAreRead) {
  Builder b = make_morph_model();
  json targets = json::array();
  for (size_t k = 0; k < kGltfMaxMorphTargets; ++k) targets.push_back({{"POSITION", kDelta0}});
  b.gltf["meshes"][0]["primitives"][0]["targets"] = targets;
  b.gltf["meshes"][0].erase("weights");
  b.gltf["meshes"][0].erase("extras");
  b.gltf["nodes"][0].erase("weights");
  b.gltf.erase("animations");
  const GltfDocument doc = b.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_EQ(doc.meshes[0].morph_targets, static_cast<int>(kGltfMaxMorphTargets));
  ASSERT_EQ(doc.meshes[0].primitives[0].targets.size(), kGltfMaxMorphTargets);
  EXPECT_EQ(doc.meshes[0].primitives[0].targets.back().positions[2], (Vec3{0, 0, 3}));
  EXPECT_EQ(doc.meshes[0].weights.size(), kGltfMaxMorphTargets);
}

struct MorphCase {
  const char* name;
  std::function<void(Builder&)> change;
  const char* code;
  const char* pointer;
};

json& primitive0(Builder& b) { return b.gltf["meshes"][0]["primitives"][0]; }

const MorphCase kMorphCases[] = {
    {"SecondPrimitiveHasFewerTargets",
     [](Builder& b) {
       json second = primitive0(b);
       second["targets"].erase(1);
       b.gltf["meshes"][0]["primitives"].push_back(second);
     },
     "MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT", "/meshes/0/primitives/1/targets"},
    {"SecondPrimitiveHasNoTargets",
     [](Builder& b) {
       json second = primitive0(b);
       second.erase("targets");
       b.gltf["meshes"][0]["primitives"].push_back(second);
     },
     "MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT", "/meshes/0/primitives/1"},
    {"DeltaCountDiffersFromBase", [](Builder& b) { b.gltf["accessors"][kDelta0]["count"] = 2; },
     "MESH_PRIMITIVE_MORPH_TARGET_INVALID_ATTRIBUTE_COUNT",
     "/meshes/0/primitives/0/targets/0/POSITION"},
    {"DeltaIsVec2", [](Builder& b) { b.gltf["accessors"][kNormalDelta0]["type"] = "VEC2"; },
     "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
     "/meshes/0/primitives/0/targets/0/NORMAL"},
    {"DeltaIsUnsignedShort",
     [](Builder& b) {
       b.gltf["accessors"][kDelta0]["componentType"] = 5123;
       b.gltf["accessors"][kDelta0]["normalized"] = true;
     },
     "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
     "/meshes/0/primitives/0/targets/0/POSITION"},
    {"TangentDeltaWithoutBaseTangent",
     [](Builder& b) { primitive0(b)["targets"][1]["TANGENT"] = kDelta0; },
     "MESH_PRIMITIVE_MORPH_TARGET_NO_BASE_ACCESSOR", "/meshes/0/primitives/0/targets/1/TANGENT"},
    {"DeltaUnresolved", [](Builder& b) { primitive0(b)["targets"][0]["POSITION"] = 99; },
     "UNRESOLVED_REFERENCE", "/meshes/0/primitives/0/targets/0/POSITION"},
    {"TargetNotAnObject", [](Builder& b) { primitive0(b)["targets"][1] = 4; }, "TYPE_MISMATCH",
     "/meshes/0/primitives/0/targets/1"},
    {"TargetsEmpty", [](Builder& b) { primitive0(b)["targets"] = json::array(); }, "EMPTY_ENTITY",
     "/meshes/0/primitives/0/targets"},
    {"TooManyTargets",
     [](Builder& b) {
       json targets = json::array();
       for (size_t k = 0; k <= kGltfMaxMorphTargets; ++k)
         targets.push_back({{"POSITION", kDelta0}});
       primitive0(b)["targets"] = targets;
     },
     "MESH_TOO_MANY_MORPH_TARGETS", "/meshes/0/primitives/0/targets"},
    {"MeshWeightsCountDiffers", [](Builder& b) { b.gltf["meshes"][0]["weights"] = {1}; },
     "MESH_INVALID_WEIGHTS_COUNT", "/meshes/0/weights"},
    {"MeshWeightNotANumber",
     [](Builder& b) {
       b.gltf["meshes"][0]["weights"] = {"a", 0};
     },
     "TYPE_MISMATCH", "/meshes/0/weights/0"},
    {"MeshWeightBeyondFloat",
     [](Builder& b) {
       b.gltf["meshes"][0]["weights"] = {0, 1e300};
     },
     "VALUE_NOT_IN_RANGE", "/meshes/0/weights/1"},
    {"NodeWeightsCountDiffers",
     [](Builder& b) {
       b.gltf["nodes"][0]["weights"] = {1, 0, 0};
     },
     "NODE_WEIGHTS_INVALID", "/nodes/0/weights"},
    {"NodeWeightsWithoutMesh",
     [](Builder& b) {
       b.gltf["nodes"].push_back({{"name", "empty"}, {"weights", {1, 0}}});
     },
     "UNSATISFIED_DEPENDENCY", "/nodes/1/weights"},
    {"WeightsOutputNotTargetsTimesKeys",
     [](Builder& b) { b.gltf["accessors"][kStepOut]["count"] = 5; },
     "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", "/animations/1/channels/0/sampler"},
    {"CubicWeightsOutputNotTripled",
     [](Builder& b) { b.gltf["animations"][1]["samplers"][0]["interpolation"] = "CUBICSPLINE"; },
     "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", "/animations/1/channels/0/sampler"},
    {"WeightsOutputVec3",
     [](Builder& b) { b.gltf["animations"][2]["samplers"][0]["output"] = kDelta0; },
     "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT", "/animations/2/channels/0/sampler"},
};

class GltfReaderMorphMalformed : public ::testing::TestWithParam<MorphCase> {};

TEST_P(GltfReaderMorphMalformed, IsRefusedAtItsPointer) {
  const MorphCase& c = GetParam();
  Builder b = make_morph_model();
  c.change(b);
  const GltfDocument doc = b.read();
  EXPECT_FALSE(doc.ok());
  EXPECT_TRUE(has_issue(doc, c.code, c.pointer, true))
      << "expected " << c.code << " at " << c.pointer << ", got:\n"
      << describe(doc);
  for (const GltfIssue& issue : doc.issues) {
    EXPECT_TRUE(is_gltf_issue_code(issue.code)) << issue.code;
  }
}

INSTANTIATE_TEST_SUITE_P(Checks, GltfReaderMorphMalformed, ::testing::ValuesIn(kMorphCases),
                         [](const ::testing::TestParamInfo<MorphCase>& param) {
                           return std::string(param.param.name);
                         });

// ---------------------------------------------------------------------------------------
// Eight influences: JOINTS_0/1 and WEIGHTS_0/1

// Accessors of the eight-influence model.
enum InfluenceAccessor : size_t {
  kInfPositions = 0,
  kJoints0,   // VEC4 UNSIGNED_BYTE
  kWeights0,  // VEC4 UNSIGNED_BYTE normalized
  kJoints1,   // VEC4 UNSIGNED_SHORT
  kWeights1,  // VEC4 FLOAT
};

// Two vertices skinned by a skin of eight joints: vertex 0 by all eight (4 x 51/255 in
// set 0, 4 x 0.05 in set 1), vertex 1 by joint 7 alone.
Builder make_influence_model() {
  Builder b;
  b.floats({0, 0, 0, 1, 0, 0}, "VEC3", true);
  b.ints({0, 1, 2, 3, 7, 0, 0, 0}, 5121, "VEC4", 2);
  b.ints({51, 51, 51, 51, 255, 0, 0, 0}, 5121, "VEC4", 2, true);
  b.ints(u16_bytes({4, 5, 6, 7, 0, 0, 0, 0}), 5123, "VEC4", 2);
  b.floats({0.05f, 0.05f, 0.05f, 0.05f, 0, 0, 0, 0}, "VEC4");
  json nodes = json::array();
  nodes.push_back({{"name", "root"}, {"children", {1, 2, 3, 4, 5, 6, 7, 8}}});
  for (int j = 0; j < 8; ++j) nodes.push_back({{"name", "joint" + std::to_string(j)}});
  nodes.push_back({{"name", "body"}, {"mesh", 0}, {"skin", 0}});
  b.gltf["nodes"] = nodes;
  b.gltf["scenes"] = {{{"nodes", {0, 9}}}};
  b.gltf["skins"] = {{{"joints", {1, 2, 3, 4, 5, 6, 7, 8}}}};
  b.gltf["meshes"] = json::parse(R"([{"primitives": [{"mode": 0, "attributes": {
      "POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "JOINTS_1": 3, "WEIGHTS_1": 4}}]}])");
  return b;
}

size_t byte_offset_of(const Builder& b, size_t accessor) {
  return b
      .gltf["bufferViews"][b.gltf["accessors"][accessor]["bufferView"].get<size_t>()]["byteOffset"]
      .get<size_t>();
}

json& influence_attributes(Builder& b) {
  return b.gltf["meshes"][0]["primitives"][0]["attributes"];
}

TEST(GltfReaderInfluences, BothJointSetsAreDelivered) {
  const GltfDocument doc = make_influence_model().read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_TRUE(doc.issues.empty()) << describe(doc);  // the eight weights sum to 1
  const GltfPrimitive& prim = doc.meshes[0].primitives[0];
  EXPECT_EQ(prim.joint_sets, 2);
  using J = std::array<uint16_t, 4>;
  using W = std::array<float, 4>;
  EXPECT_EQ(prim.joints, (std::vector<J>{{0, 1, 2, 3}, {7, 0, 0, 0}}));
  const float fifth = 51.0f / 255.0f;
  EXPECT_EQ(prim.weights, (std::vector<W>{{fifth, fifth, fifth, fifth}, {1, 0, 0, 0}}));
  EXPECT_EQ(prim.joints1, (std::vector<J>{{4, 5, 6, 7}, {0, 0, 0, 0}}));
  EXPECT_EQ(prim.weights1, (std::vector<W>{{0.05f, 0.05f, 0.05f, 0.05f}, {0, 0, 0, 0}}));
}

TEST(GltfReaderInfluences, OneSetHasNoSecondSet) {
  Builder b = make_influence_model();
  influence_attributes(b).erase("JOINTS_1");
  influence_attributes(b).erase("WEIGHTS_1");
  const GltfDocument doc = b.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  const GltfPrimitive& prim = doc.meshes[0].primitives[0];
  EXPECT_EQ(prim.joint_sets, 1);
  EXPECT_TRUE(prim.joints1.empty());
  EXPECT_TRUE(prim.weights1.empty());
  // Set 0 alone sums to 0.8 for vertex 0.
  EXPECT_TRUE(has_issue(doc, "ACCESSOR_WEIGHTS_NON_NORMALIZED",
                        "/meshes/0/primitives/0/attributes/WEIGHTS_0", false))
      << describe(doc);
}

TEST(GltfReaderInfluences, EightWeightsNotSummingToOneAreAWarning) {
  Builder b = make_influence_model();
  put_f32(b.bin, byte_offset_of(b, kWeights1), 0.5f);  // vertex 0 sums to 1.45
  const GltfDocument doc = b.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_TRUE(has_issue(doc, "ACCESSOR_WEIGHTS_NON_NORMALIZED",
                        "/meshes/0/primitives/0/attributes/WEIGHTS_0", false))
      << describe(doc);
}

TEST(GltfReaderInfluences, ThirdSetIsAWarningAndTheFirstTwoAreDelivered) {
  Builder b = make_influence_model();
  const size_t zero_joints = b.ints({0, 0, 0, 0, 0, 0, 0, 0}, 5121, "VEC4", 2);
  const size_t zero_weights = b.floats({0, 0, 0, 0, 0, 0, 0, 0}, "VEC4");
  influence_attributes(b)["JOINTS_2"] = zero_joints;
  influence_attributes(b)["WEIGHTS_2"] = zero_weights;
  const GltfDocument doc = b.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  const GltfPrimitive& prim = doc.meshes[0].primitives[0];
  EXPECT_EQ(prim.joint_sets, 3);
  EXPECT_EQ(prim.joints1.size(), 2u);
  EXPECT_TRUE(has_issue(doc, "MESH_PRIMITIVE_EXTRA_INFLUENCES", "/meshes/0/primitives/0/attributes",
                        false));
}

struct InfluenceCase {
  const char* name;
  std::function<void(Builder&)> change;
  const char* code;
  const char* pointer;
};

const InfluenceCase kInfluenceCases[] = {
    {"SecondSetJointPastSkin",
     [](Builder& b) { put_u16(b.bin, byte_offset_of(b, kJoints1) + 2, 8); },
     "ACCESSOR_JOINTS_INDEX_OOB", "/meshes/0/primitives/0/attributes/JOINTS_1"},
    {"SecondSetNegativeWeight",
     [](Builder& b) {
       put_f32(b.bin, byte_offset_of(b, kWeights1), -0.05f);
       put_f32(b.bin, byte_offset_of(b, kWeights1) + 4, 0.15f);
     },
     "ACCESSOR_WEIGHTS_NEGATIVE", "/meshes/0/primitives/0/attributes/WEIGHTS_1"},
    {"SecondSetJointsAsFloat", [](Builder& b) { influence_attributes(b)["JOINTS_1"] = kWeights1; },
     "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
     "/meshes/0/primitives/0/attributes/JOINTS_1"},
    {"SecondSetWeightsAsSignedBytes",
     [](Builder& b) {
       b.gltf["accessors"][kWeights0]["componentType"] = 5120;
       influence_attributes(b)["WEIGHTS_1"] = kWeights0;
     },
     "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
     "/meshes/0/primitives/0/attributes/WEIGHTS_1"},
    {"SecondSetWithoutWeights", [](Builder& b) { influence_attributes(b).erase("WEIGHTS_1"); },
     "MESH_PRIMITIVE_JOINTS_WEIGHTS_MISMATCH", "/meshes/0/primitives/0/attributes"},
    {"SecondSetCountDiffers", [](Builder& b) { b.gltf["accessors"][kWeights1]["count"] = 1; },
     "MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT", "/meshes/0/primitives/0/attributes/WEIGHTS_1"},
};

class GltfReaderInfluenceMalformed : public ::testing::TestWithParam<InfluenceCase> {};

TEST_P(GltfReaderInfluenceMalformed, IsRefusedAtItsPointer) {
  const InfluenceCase& c = GetParam();
  Builder b = make_influence_model();
  c.change(b);
  const GltfDocument doc = b.read();
  EXPECT_FALSE(doc.ok());
  EXPECT_TRUE(has_issue(doc, c.code, c.pointer, true))
      << "expected " << c.code << " at " << c.pointer << ", got:\n"
      << describe(doc);
}

INSTANTIATE_TEST_SUITE_P(Checks, GltfReaderInfluenceMalformed, ::testing::ValuesIn(kInfluenceCases),
                         [](const ::testing::TestParamInfo<InfluenceCase>& param) {
                           return std::string(param.param.name);
                         });

}  // namespace
}  // namespace animpack
