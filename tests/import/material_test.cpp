// UVs, vertex colours, materials, textures and images through the reader and the import:
// the corpus models that have them cook with their materials, and their parts' streams
// equal the accessor values read here straight from the JSON and the binary data (an
// independent decoder of the glTF layout, not the reader's); each bad input generated in
// code gets its code at its JSON pointer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"
#include "import_support.h"

namespace animpack::import_test {
namespace {

// ---------------------------------------------------------------------------------------
// The file's raw data, read without the reader

std::vector<uint8_t> base64_bytes(std::string_view s) {
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    if (c >= '0' && c <= '9') v = c - '0' + 52;
    if (c == '+') v = 62;
    if (c == '/') v = 63;
    if (v < 0) continue;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>(acc >> bits));
    }
  }
  return out;
}

// "data:...;base64,XXXX" or a file next to the glTF.
std::vector<uint8_t> uri_bytes(const fs::path& folder, const std::string& uri) {
  if (uri.rfind("data:", 0) == 0) return base64_bytes(uri.substr(uri.find(',') + 1));
  return read_bytes(folder / uri);
}

struct RawGltf {
  fs::path file;
  json j;
  std::vector<std::vector<uint8_t>> buffers;
};

RawGltf load_raw(const fs::path& file) {
  RawGltf raw{file, json_of(file), {}};
  std::vector<uint8_t> bin;
  if (file.extension() == ".glb") {
    const std::vector<uint8_t> bytes = read_bytes(file);
    const size_t json_length = u32_at(bytes, 12);
    const size_t at = 20 + json_length;
    if (at + 8 <= bytes.size()) {
      const size_t length = u32_at(bytes, at);
      bin.assign(bytes.begin() + static_cast<std::ptrdiff_t>(at + 8),
                 bytes.begin() + static_cast<std::ptrdiff_t>(at + 8 + length));
    }
  }
  for (const json& b : raw.j["buffers"]) {
    raw.buffers.push_back(b.contains("uri") ? uri_bytes(file.parent_path(), b["uri"]) : bin);
  }
  return raw;
}

std::span<const uint8_t> view_data(const RawGltf& raw, size_t view) {
  const json& v = raw.j["bufferViews"][view];
  const std::vector<uint8_t>& buffer = raw.buffers[v["buffer"].get<size_t>()];
  return std::span<const uint8_t>(buffer).subspan(v.value("byteOffset", size_t{0}),
                                                  v["byteLength"].get<size_t>());
}

// Accessor `index` as floats, glTF's formulas for normalised integers (c / 255, c / 65535,
// max(c / 127, -1), max(c / 32767, -1)) computed in double.
std::vector<float> accessor_floats(const RawGltf& raw, size_t index) {
  const json& a = raw.j["accessors"][index];
  EXPECT_FALSE(a.contains("sparse")) << "this helper reads dense accessors";
  const std::string type = a["type"];
  const size_t n = type == "SCALAR" ? 1 : type == "VEC2" ? 2 : type == "VEC3" ? 3 : 4;
  const int ct = a["componentType"];
  const size_t size = ct == 5126 || ct == 5125 ? 4 : ct == 5122 || ct == 5123 ? 2 : 1;
  const bool normalized = a.value("normalized", false);
  const size_t count = a["count"];
  std::vector<float> out;
  const size_t view = a["bufferView"];
  const std::span<const uint8_t> data = view_data(raw, view);
  const size_t stride = raw.j["bufferViews"][view].value("byteStride", n * size);
  const size_t offset = a.value("byteOffset", size_t{0});
  for (size_t e = 0; e < count; ++e) {
    for (size_t c = 0; c < n; ++c) {
      const uint8_t* p = data.data() + offset + e * stride + c * size;
      double v = 0;
      if (ct == 5126) {
        float f;
        std::memcpy(&f, p, 4);
        v = f;
      } else if (ct == 5121) {
        v = normalized ? p[0] / 255.0 : p[0];
      } else if (ct == 5123) {
        const uint16_t u = static_cast<uint16_t>(p[0] | (p[1] << 8));
        v = normalized ? u / 65535.0 : u;
      } else if (ct == 5120) {
        const int8_t s = static_cast<int8_t>(p[0]);
        v = normalized ? std::max(s / 127.0, -1.0) : s;
      } else if (ct == 5122) {
        const int16_t s = static_cast<int16_t>(p[0] | (p[1] << 8));
        v = normalized ? std::max(s / 32767.0, -1.0) : s;
      }
      out.push_back(static_cast<float>(v));
    }
  }
  return out;
}

// An image's width and height from its PNG (IHDR) or JPEG (SOFn) header.
std::pair<uint32_t, uint32_t> image_size(std::span<const uint8_t> b) {
  const auto be16 = [&](size_t at) { return static_cast<uint32_t>((b[at] << 8) | b[at + 1]); };
  if (b.size() > 24 && b[0] == 0x89 && b[1] == 'P') {
    return {(be16(16) << 16) | be16(18), (be16(20) << 16) | be16(22)};
  }
  for (size_t at = 2; at + 9 < b.size();) {
    if (b[at] != 0xFF) return {0, 0};
    const uint8_t marker = b[at + 1];
    if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
      return {be16(at + 7), be16(at + 5)};
    }
    at += 2 + be16(at + 2);
  }
  return {0, 0};
}

std::vector<uint8_t> image_data(const RawGltf& raw, size_t image) {
  const json& img = raw.j["images"][image];
  if (img.contains("bufferView")) {
    const std::span<const uint8_t> d = view_data(raw, img["bufferView"]);
    return {d.begin(), d.end()};
  }
  return uri_bytes(raw.file.parent_path(), img["uri"]);
}

// ---------------------------------------------------------------------------------------
// Corpus: materials and streams equal the file's

std::vector<std::string> textured_or_coloured_models() {
  std::vector<std::string> out = {"gltf/Fox/glTF/Fox.gltf",
                                  "gltf/Fox/glTF-Binary/Fox.glb",
                                  "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
                                  "gltf/CesiumMan/glTF-Embedded/CesiumMan.gltf",
                                  "gltf/BoxAnimated/glTF-Embedded/BoxAnimated.gltf",
                                  "gltf/Quaternius-Alien/Alien_Scolitex.gltf"};
  // Every Asset Generator case with an image or a COLOR_0.
  std::vector<std::string> generated;
  for (const auto& e : fs::recursive_directory_iterator(kCorpus / "asset-generator")) {
    if (e.path().extension() != ".gltf") continue;
    const json j = json_of(e.path());
    bool coloured = false;
    for (const json& m : j.value("meshes", json::array())) {
      for (const json& p : m["primitives"]) coloured |= p["attributes"].contains("COLOR_0");
    }
    if (j.contains("images") || coloured) {
      generated.push_back(fs::relative(e.path(), kCorpus).generic_string());
    }
  }
  std::sort(generated.begin(), generated.end());
  out.insert(out.end(), generated.begin(), generated.end());
  return out;
}

Vec4 json_vec4(const json& obj, const char* key, Vec4 fallback) {
  if (!obj.contains(key)) return fallback;
  const json& a = obj[key];
  return {a[0].get<float>(), a[1].get<float>(), a[2].get<float>(), a[3].get<float>()};
}

// The slot against its textureInfo (or its absence), the texture against its image.
void expect_slot(const RawGltf& raw, const ImportedModel& model, const json& owner, const char* key,
                 const TextureSlot& slot, ColorSpace space) {
  SCOPED_TRACE(key);
  if (!owner.contains(key)) {
    EXPECT_EQ(slot.texture, -1);
    return;
  }
  const json& info = owner[key];
  const size_t t = info["index"];
  EXPECT_EQ(slot.source_texture, static_cast<int>(t));
  EXPECT_EQ(slot.uv_set, info.value("texCoord", 0));
  const json& texture = raw.j["textures"][t];
  const json sampler = texture.contains("sampler")
                           ? raw.j["samplers"][texture["sampler"].get<size_t>()]
                           : json::object();
  const std::map<int, Wrap> wraps = {
      {33071, Wrap::kClampToEdge}, {33648, Wrap::kMirroredRepeat}, {10497, Wrap::kRepeat}};
  EXPECT_EQ(slot.wrap_s, wraps.at(sampler.value("wrapS", 10497)));
  EXPECT_EQ(slot.wrap_t, wraps.at(sampler.value("wrapT", 10497)));
  EXPECT_EQ(slot.mag_filter,
            sampler.value("magFilter", 9729) == 9728 ? Filter::kNearest : Filter::kLinear);
  const std::map<int, Filter> mins = {{9728, Filter::kNearest},
                                      {9729, Filter::kLinear},
                                      {9984, Filter::kNearestMipmapNearest},
                                      {9985, Filter::kLinearMipmapNearest},
                                      {9986, Filter::kNearestMipmapLinear},
                                      {9987, Filter::kLinearMipmapLinear}};
  EXPECT_EQ(slot.min_filter, mins.at(sampler.value("minFilter", 9987)));
  ASSERT_GE(slot.texture, 0);
  ASSERT_LT(static_cast<size_t>(slot.texture), model.textures.size());
  const CookedTexture& got = model.textures[static_cast<size_t>(slot.texture)];
  const size_t image = texture["source"];
  EXPECT_EQ(got.source_image, static_cast<int>(image));
  EXPECT_EQ(got.color_space, space);
  const auto [w, h] = image_size(image_data(raw, image));
  EXPECT_GT(w, 0u);
  EXPECT_EQ(got.width, w);
  EXPECT_EQ(got.height, h);
  EXPECT_EQ(got.rgba.size(), size_t{w} * h * 4);
}

class MaterialCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(MaterialCorpus, CooksItsMaterialsAndStreamsEqualTheAccessors) {
  const fs::path file = kCorpus / GetParam();
  const GltfDocument doc = read_gltf(file);
  ASSERT_TRUE(doc.ok()) << describe(doc);
  const ImportedModel model = import_gltf(doc, "m", file.filename().string());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const RawGltf raw = load_raw(file);
  const json& j = raw.j;

  std::vector<int> used;  // glTF materials in the parts' first-use order
  size_t uvs = 0, colours = 0;
  for (const CookedPart& part : model.mesh.parts) {
    const json& prim = j["meshes"][static_cast<size_t>(part.source_mesh)]["primitives"]
                        [static_cast<size_t>(part.source_primitive)];
    SCOPED_TRACE("mesh " + std::to_string(part.source_mesh) + " primitive " +
                 std::to_string(part.source_primitive));
    if (prim.contains("material")) {
      const int m = prim["material"];
      auto it = std::find(used.begin(), used.end(), m);
      if (it == used.end()) it = used.insert(used.end(), m);
      EXPECT_EQ(part.material, static_cast<int>(it - used.begin()));
    } else {
      EXPECT_EQ(part.material, -1);
    }
    // TEXCOORD_0/1 and COLOR_0 per vertex, through source_vertices.
    const json& attributes = prim["attributes"];
    const auto check = [&](const char* semantic, size_t width, auto get_stream) {
      const auto& stream = get_stream();
      if (!attributes.contains(semantic)) {
        EXPECT_TRUE(stream.empty()) << semantic;
        return;
      }
      const std::vector<float> values = accessor_floats(raw, attributes[semantic]);
      ASSERT_EQ(stream.size(), part.positions.size()) << semantic;
      for (size_t v = 0; v < stream.size(); ++v) {
        const float* got = &stream[v].x;
        const size_t s = part.source_vertices[v];
        for (size_t c = 0; c < width; ++c) {
          ASSERT_EQ(got[c], values[s * width + c]) << semantic << " vertex " << v << " c " << c;
        }
        if (width == 3) {
          ASSERT_EQ(got[3], 1.0f) << "COLOR_0 VEC3 gets alpha 1";
        }
      }
    };
    check("TEXCOORD_0", 2, [&]() -> const std::vector<Vec2>& { return part.texcoords0; });
    check("TEXCOORD_1", 2, [&]() -> const std::vector<Vec2>& { return part.texcoords1; });
    if (attributes.contains("COLOR_0")) {
      const std::string type = j["accessors"][attributes["COLOR_0"].get<size_t>()]["type"];
      check("COLOR_0", type == "VEC3" ? 3 : 4,
            [&]() -> const std::vector<Vec4>& { return part.colors; });
      ++colours;
    } else {
      EXPECT_TRUE(part.colors.empty());
    }
    uvs += part.texcoords0.size();
  }
  EXPECT_GT(uvs + colours + used.size(), 0u) << "the model has UVs, colours or materials";

  ASSERT_EQ(model.materials.size(), used.size());
  std::set<std::pair<int, ColorSpace>> textures;
  for (size_t k = 0; k < used.size(); ++k) {
    const json& m = j["materials"][static_cast<size_t>(used[k])];
    SCOPED_TRACE("material " + std::to_string(used[k]));
    const CookedMaterial& got = model.materials[k];
    const MaterialInfo& info = got.info;
    EXPECT_EQ(got.name, m.value("name", ""));
    EXPECT_EQ(info.source_material, used[k]);
    const json pbr = m.value("pbrMetallicRoughness", json::object());
    const Vec4 base = json_vec4(pbr, "baseColorFactor", {1, 1, 1, 1});
    EXPECT_EQ(info.base_color.x, base.x);
    EXPECT_EQ(info.base_color.y, base.y);
    EXPECT_EQ(info.base_color.z, base.z);
    EXPECT_EQ(info.base_color.w, base.w);
    EXPECT_EQ(info.metallic, pbr.value("metallicFactor", 1.0f));
    EXPECT_EQ(info.roughness, pbr.value("roughnessFactor", 1.0f));
    const json emissive = m.value("emissiveFactor", json::array({0, 0, 0}));
    EXPECT_EQ(info.emissive.x, emissive[0].get<float>());
    EXPECT_EQ(info.emissive.y, emissive[1].get<float>());
    EXPECT_EQ(info.emissive.z, emissive[2].get<float>());
    const std::string mode = m.value("alphaMode", "OPAQUE");
    EXPECT_EQ(info.alpha_mode, mode == "MASK"    ? AlphaMode::kMask
                               : mode == "BLEND" ? AlphaMode::kBlend
                                                 : AlphaMode::kOpaque);
    EXPECT_EQ(info.alpha_cutoff, m.value("alphaCutoff", 0.5f));
    EXPECT_EQ(info.double_sided, m.value("doubleSided", false));
    expect_slot(raw, model, pbr, "baseColorTexture", info.base_color_texture, ColorSpace::kSrgb);
    expect_slot(raw, model, pbr, "metallicRoughnessTexture", info.metallic_roughness_texture,
                ColorSpace::kLinear);
    expect_slot(raw, model, m, "normalTexture", info.normal_texture, ColorSpace::kLinear);
    expect_slot(raw, model, m, "occlusionTexture", info.occlusion_texture, ColorSpace::kLinear);
    expect_slot(raw, model, m, "emissiveTexture", info.emissive_texture, ColorSpace::kSrgb);
    for (const auto& [slot, space] : {std::pair{&info.base_color_texture, ColorSpace::kSrgb},
                                      {&info.metallic_roughness_texture, ColorSpace::kLinear},
                                      {&info.normal_texture, ColorSpace::kLinear},
                                      {&info.occlusion_texture, ColorSpace::kLinear},
                                      {&info.emissive_texture, ColorSpace::kSrgb}}) {
      if (slot->texture >= 0) {
        textures.insert({model.textures[static_cast<size_t>(slot->texture)].source_image, space});
      }
    }
  }
  // One texture per (image, colour space) the materials use, and nothing else decoded.
  EXPECT_EQ(model.textures.size(), textures.size());
}

INSTANTIATE_TEST_SUITE_P(Corpus, MaterialCorpus, ::testing::ValuesIn(textured_or_coloured_models()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           const fs::path path(param.param);
                           std::string name =
                               path.stem().string() + "_" + path.extension().string().substr(1);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(MaterialCorpusFacts, TheKnownModelsHaveTheirKnownMaterials) {
  // Facts a person can check by opening the files: the Fox's 1024 x 1024 PNG texture,
  // CesiumMan's JPEG, BoxAnimated's pink and blue untextured materials, the alien's several
  // double-sided materials and vertex colours.
  const auto import = [](const char* path) {
    const GltfDocument doc = read_gltf(kCorpus / path);
    return import_gltf(doc, "m", path);
  };
  const ImportedModel fox = import("gltf/Fox/glTF-Binary/Fox.glb");
  ASSERT_TRUE(fox.ok()) << describe(fox.issues);
  ASSERT_EQ(fox.materials.size(), 1u);
  ASSERT_EQ(fox.textures.size(), 1u);
  EXPECT_EQ(fox.textures[0].mime_type, "image/png");
  EXPECT_EQ(fox.textures[0].width, 1024u);
  EXPECT_EQ(fox.textures[0].height, 1024u);
  EXPECT_EQ(fox.materials[0].info.metallic, 0.0f);
  EXPECT_EQ(fox.materials[0].info.roughness, 0.58f);
  ASSERT_EQ(fox.mesh.parts.size(), 1u);
  EXPECT_TRUE(fox.mesh.parts[0].normals_generated);  // the Fox has no NORMAL
  EXPECT_EQ(count_code(fox, "NORMALS_GENERATED"), 1);

  const ImportedModel cesium = import("gltf/CesiumMan/glTF-Binary/CesiumMan.glb");
  ASSERT_TRUE(cesium.ok()) << describe(cesium.issues);
  ASSERT_EQ(cesium.textures.size(), 1u);
  EXPECT_EQ(cesium.textures[0].mime_type, "image/jpeg");
  EXPECT_EQ(cesium.materials[0].info.base_color_texture.min_filter, Filter::kNearestMipmapLinear);

  const ImportedModel box = import("gltf/BoxAnimated/glTF-Embedded/BoxAnimated.gltf");
  ASSERT_TRUE(box.ok()) << describe(box.issues);
  ASSERT_EQ(box.materials.size(), 2u);
  EXPECT_TRUE(box.textures.empty());
  EXPECT_NE(box.materials[0].info.base_color.x, box.materials[1].info.base_color.x);

  const ImportedModel alien = import("gltf/Quaternius-Alien/Alien_Scolitex.gltf");
  ASSERT_TRUE(alien.ok()) << describe(alien.issues);
  EXPECT_GE(alien.materials.size(), 3u);
  for (const CookedMaterial& m : alien.materials) EXPECT_TRUE(m.info.double_sided) << m.name;
  for (const CookedPart& p : alien.mesh.parts) EXPECT_FALSE(p.colors.empty());
}

// ---------------------------------------------------------------------------------------
// Generated files: what is read, and each bad input at its pointer

// A PNG from the corpus: the Asset Generator's 1024 x 1024 cube net (a blue "Back" square at
// the top, a yellow "Bottom" one at the bottom, white elsewhere).
std::vector<uint8_t> corpus_png() {
  return read_bytes(kCorpus / "asset-generator/Animation_Node/Textures/BaseColor_Cube.png");
}

// One triangle with TEXCOORD_0, a material sampling texture 0 of image 0 (bytes given,
// as a bufferView with `mime`), in a .glb.
GltfWriter textured_triangle(std::span<const uint8_t> image, const char* mime) {
  GltfWriter w;
  const int pos = w.vec3s({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, true);
  const int nrm = w.vec3s({{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}, false);
  const int uv = w.vec2s({{0, 0}, {1, 0}, {0, 1}});
  w.mesh({{"primitives",
           {{{"attributes", {{"POSITION", pos}, {"NORMAL", nrm}, {"TEXCOORD_0", uv}}},
             {"material", 0}}}}});
  w.node({{"mesh", 0}});
  w.scene({0});
  w.doc["images"] = json::array({{{"bufferView", w.bytes_view(image)}, {"mimeType", mime}}});
  w.doc["textures"] = json::array({{{"source", 0}}});
  w.doc["materials"] =
      json::array({{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}}});
  return w;
}

bool has_gltf_issue(const GltfDocument& doc, std::string_view code, std::string_view pointer,
                    bool error = true) {
  return std::any_of(doc.issues.begin(), doc.issues.end(), [&](const GltfIssue& i) {
    return i.code == code && i.pointer == pointer && i.error == error;
  });
}

int count_gltf_code(const GltfDocument& doc, std::string_view code) {
  return static_cast<int>(std::count_if(doc.issues.begin(), doc.issues.end(),
                                        [&](const GltfIssue& i) { return i.code == code; }));
}

TEST(MaterialRead, ATexturedTriangleImportsItsImageDecodedTopRowFirst) {
  const std::vector<uint8_t> png = corpus_png();
  GltfWriter w = textured_triangle(png, "image/png");
  const GltfDocument doc = w.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  ASSERT_EQ(doc.images.size(), 1u);
  EXPECT_TRUE(doc.images[0].decoded);
  const ImportedModel model = import_gltf(doc, "m", "m.glb");
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  ASSERT_EQ(model.textures.size(), 1u);
  const CookedTexture& t = model.textures[0];
  const auto [w0, h0] = image_size(png);
  EXPECT_EQ(t.width, w0);
  EXPECT_EQ(t.height, h0);
  EXPECT_EQ(t.color_space, ColorSpace::kSrgb);
  ASSERT_EQ(t.rgba.size(), size_t{w0} * h0 * 4);
  // Rows top first: the blue square near the top, the yellow one near the bottom.
  ASSERT_EQ(w0, 1024u);
  const auto pixel = [&](size_t x, size_t y) { return &t.rgba[(y * 1024 + x) * 4]; };
  const uint8_t* top = pixel(300, 60);
  EXPECT_LT(top[0], 40);
  EXPECT_GT(top[2], 200);
  EXPECT_EQ(top[3], 255);
  const uint8_t* bottom = pixel(300, 1000);
  EXPECT_GT(bottom[0], 150);
  EXPECT_GT(bottom[1], 150);
  EXPECT_LT(bottom[2], 40);
  const uint8_t* corner = pixel(1000, 20);
  EXPECT_EQ(corner[0] & corner[1] & corner[2], 255) << "white";
  ASSERT_EQ(model.mesh.parts.size(), 1u);
  EXPECT_EQ(model.mesh.parts[0].material, 0);
  EXPECT_EQ(model.mesh.parts[0].texcoords0[1].x, 1.0f);
  EXPECT_FALSE(model.mesh.parts[0].normals_generated);
}

TEST(MaterialRead, EveryMaterialFieldAndBothExtensionsAreRead) {
  const std::vector<uint8_t> png = corpus_png();
  GltfWriter w = textured_triangle(png, "image/png");
  w.doc["extensionsUsed"] = {"KHR_texture_transform", "KHR_materials_emissive_strength"};
  const int uv1 = w.vec2s({{0, 0}, {0.5f, 0}, {0, 0.5f}});
  w.doc["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_1"] = uv1;
  w.doc["samplers"] =
      json::array({{{"magFilter", 9728}, {"minFilter", 9984}, {"wrapS", 33071}, {"wrapT", 33648}}});
  w.doc["textures"] = json::array({{{"source", 0}, {"sampler", 0}}});
  w.doc["materials"] = json::array({{
      {"name", "all"},
      {"pbrMetallicRoughness",
       {{"baseColorFactor", {0.25, 0.5, 0.75, 0.5}},
        {"baseColorTexture",
         {{"index", 0},
          {"extensions",
           {{"KHR_texture_transform",
             {{"offset", {0.5, -0.25}}, {"rotation", 1.5}, {"scale", {2, 3}}, {"texCoord", 1}}}}}}},
        {"metallicFactor", 0.25},
        {"roughnessFactor", 0.75},
        {"metallicRoughnessTexture", {{"index", 0}, {"texCoord", 1}}}}},
      {"normalTexture", {{"index", 0}, {"scale", 0.5}}},
      {"occlusionTexture", {{"index", 0}, {"strength", 0.25}}},
      {"emissiveTexture", {{"index", 0}}},
      {"emissiveFactor", {1, 0.5, 0}},
      {"alphaMode", "MASK"},
      {"alphaCutoff", 0.3},
      {"doubleSided", true},
      {"extensions", {{"KHR_materials_emissive_strength", {{"emissiveStrength", 4}}}}},
  }});
  const GltfDocument doc = w.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  EXPECT_EQ(count_gltf_code(doc, "UNSUPPORTED_EXTENSION"), 0);
  const ImportedModel model = import_gltf(doc, "m", "m.glb");
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  ASSERT_EQ(model.materials.size(), 1u);
  const MaterialInfo& m = model.materials[0].info;
  EXPECT_EQ(model.materials[0].name, "all");
  EXPECT_EQ(m.base_color.x, 0.25f);
  EXPECT_EQ(m.base_color.w, 0.5f);
  EXPECT_EQ(m.metallic, 0.25f);
  EXPECT_EQ(m.roughness, 0.75f);
  EXPECT_EQ(m.normal_scale, 0.5f);
  EXPECT_EQ(m.occlusion_strength, 0.25f);
  EXPECT_EQ(m.emissive.y, 0.5f);
  EXPECT_EQ(m.emissive_strength, 4.0f);
  EXPECT_EQ(m.alpha_mode, AlphaMode::kMask);
  EXPECT_EQ(m.alpha_cutoff, 0.3f);
  EXPECT_TRUE(m.double_sided);
  const TextureSlot& base = m.base_color_texture;
  EXPECT_TRUE(base.has_transform);
  EXPECT_EQ(base.transform.offset[0], 0.5f);
  EXPECT_EQ(base.transform.offset[1], -0.25f);
  EXPECT_EQ(base.transform.rotation, 1.5f);
  EXPECT_EQ(base.transform.scale[0], 2.0f);
  EXPECT_EQ(base.transform.scale[1], 3.0f);
  EXPECT_EQ(base.uv_set, 1) << "KHR_texture_transform's texCoord overrides the textureInfo's";
  EXPECT_EQ(base.wrap_s, Wrap::kClampToEdge);
  EXPECT_EQ(base.wrap_t, Wrap::kMirroredRepeat);
  EXPECT_EQ(base.mag_filter, Filter::kNearest);
  EXPECT_EQ(base.min_filter, Filter::kNearestMipmapNearest);
  EXPECT_EQ(m.metallic_roughness_texture.uv_set, 1);
  EXPECT_FALSE(m.metallic_roughness_texture.has_transform);
  // One image, sampled as sRGB (base colour, emissive) and linear (the other three).
  ASSERT_EQ(model.textures.size(), 2u);
  EXPECT_EQ(m.base_color_texture.texture, m.emissive_texture.texture);
  EXPECT_EQ(m.normal_texture.texture, m.occlusion_texture.texture);
  EXPECT_NE(m.base_color_texture.texture, m.normal_texture.texture);
  EXPECT_EQ(model.textures[static_cast<size_t>(m.normal_texture.texture)].color_space,
            ColorSpace::kLinear);
  // A normal texture without TANGENT: tangents generated, with a note.
  ASSERT_EQ(model.mesh.parts.size(), 1u);
  EXPECT_TRUE(model.mesh.parts[0].tangents_generated);
  EXPECT_EQ(model.mesh.parts[0].tangents.size(), 3u);
  EXPECT_TRUE(std::any_of(model.issues.begin(), model.issues.end(), [](const ImportIssue& i) {
    return i.code == "TANGENTS_GENERATED" && i.note && !i.error &&
           i.pointer == "/meshes/0/primitives/0/attributes";
  }));
}

TEST(MaterialRead, NormalisedIntegerUvsAndColoursDecodeByGltfsFormulas) {
  GltfWriter w;
  const int pos = w.vec3s({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, true);
  const std::vector<uint16_t> uv = {0, 65535, 32768, 1, 65535, 0};
  const std::vector<uint16_t> rgba = {255, 0, 128, 7, 1, 2, 3, 4, 0, 255, 254, 255};
  const std::vector<uint16_t> rgb = {0, 65535, 1000, 2, 3, 4, 5, 6, 7};
  const int uv0 = w.ints(uv, 5123, "VEC2", true);
  const int col = w.ints(rgba, 5121, "VEC4", true);
  const int col3 = w.ints(rgb, 5123, "VEC3", true);
  w.mesh({{"primitives",
           {{{"attributes", {{"POSITION", pos}, {"TEXCOORD_0", uv0}, {"COLOR_0", col}}}},
            {{"attributes", {{"POSITION", pos}, {"COLOR_0", col3}}}}}}});
  w.node({{"mesh", 0}});
  w.scene({0});
  const GltfDocument doc = w.read();
  ASSERT_TRUE(doc.ok()) << describe(doc);
  const GltfPrimitive& p0 = doc.meshes[0].primitives[0];
  ASSERT_EQ(p0.texcoords0.size(), 3u);
  for (size_t v = 0; v < 3; ++v) {
    EXPECT_EQ(p0.texcoords0[v].x, static_cast<float>(uv[v * 2] / 65535.0));
    EXPECT_EQ(p0.texcoords0[v].y, static_cast<float>(uv[v * 2 + 1] / 65535.0));
    const float* c = &p0.colors[v].x;
    for (size_t k = 0; k < 4; ++k) EXPECT_EQ(c[k], static_cast<float>(rgba[v * 4 + k] / 255.0));
  }
  const GltfPrimitive& p1 = doc.meshes[0].primitives[1];
  ASSERT_EQ(p1.colors.size(), 3u);
  for (size_t v = 0; v < 3; ++v) {
    const float* c = &p1.colors[v].x;
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(c[k], static_cast<float>(rgb[v * 3 + k] / 65535.0));
    EXPECT_EQ(c[3], 1.0f);
  }
  // Through the import, unwelded for flat normals, every stream follows source_vertices.
  const ImportedModel model = import_gltf(doc, "m", "m.glb");
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  const CookedPart& part = model.mesh.parts[0];
  EXPECT_TRUE(part.normals_generated);
  ASSERT_EQ(part.colors.size(), part.positions.size());
  ASSERT_EQ(part.texcoords0.size(), part.positions.size());
  for (size_t v = 0; v < part.positions.size(); ++v) {
    EXPECT_EQ(part.texcoords0[v].x, p0.texcoords0[part.source_vertices[v]].x);
    EXPECT_EQ(part.colors[v].z, p0.colors[part.source_vertices[v]].z);
  }
}

TEST(MaterialRead, AnImageNoUsedMaterialNeedsIsNotDecoded) {
  const std::vector<uint8_t> garbage = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3};
  GltfWriter w = textured_triangle(garbage, "image/png");
  w.doc["meshes"][0]["primitives"][0].erase("material");
  const GltfDocument doc = w.read();
  EXPECT_TRUE(doc.ok()) << describe(doc);
  EXPECT_FALSE(doc.images[0].decoded);
  EXPECT_TRUE(doc.images[0].rgba.empty());
}

TEST(MaterialBad, AnImageThatDoesNotDecodeIsAnErrorAtTheImage) {
  const std::vector<uint8_t> garbage = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3};
  const GltfDocument doc = textured_triangle(garbage, "image/png").read();
  EXPECT_TRUE(has_gltf_issue(doc, "IMAGE_DATA_INVALID", "/images/0")) << describe(doc);
}

TEST(MaterialBad, BytesWithoutTheSignatureTheirMimeTypeDeclaresDoNotDecode) {
  const std::vector<uint8_t> text = {'n', 'o', 't', ' ', 'a', 'n', ' ', 'i', 'm', 'a', 'g', 'e'};
  const GltfDocument doc = textured_triangle(text, "image/png").read();
  EXPECT_TRUE(has_gltf_issue(doc, "IMAGE_DATA_INVALID", "/images/0")) << describe(doc);
  // Without a mimeType (a uri image) unknown bytes are an unsupported type.
  GltfWriter w = textured_triangle(text, "image/png");
  w.doc["images"] =
      json::array({{{"uri", "data:application/octet-stream;base64,bm90IGFuIGltYWdl"}}});
  const GltfDocument unknown = w.read();
  EXPECT_TRUE(has_gltf_issue(unknown, "IMAGE_FORMAT_UNSUPPORTED", "/images/0"))
      << describe(unknown);
}

TEST(MaterialBad, AnImageWiderThanTheLimitIsRefusedFromItsHeader) {
  // A PNG signature and an IHDR claiming 20000 x 1 RGBA pixels, and no pixel data: the
  // size is refused before anything is decoded.
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0,    0, 0,
                              13,   'I', 'H', 'D', 'R',  0,    0,    0x4E, 0x20, 0, 0,
                              0,    1,   8,   6,   0,    0,    0,    0,    0,    0, 0};
  const GltfDocument doc = textured_triangle(png, "image/png").read();
  EXPECT_TRUE(has_gltf_issue(doc, "IMAGE_TOO_LARGE", "/images/0")) << describe(doc);
  EXPECT_GT(kGltfMaxImageSide, 0u);
  EXPECT_LT(kGltfMaxImageSide, 20000u);
}

TEST(MaterialBad, ATextureIndexOutOfRangeIsAnUnresolvedReference) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  w.doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["index"] = 3;
  const GltfDocument doc = w.read();
  EXPECT_TRUE(has_gltf_issue(doc, "UNRESOLVED_REFERENCE",
                             "/materials/0/pbrMetallicRoughness/baseColorTexture/index"))
      << describe(doc);
}

TEST(MaterialBad, ATextureSourceOrSamplerOutOfRangeIsAnUnresolvedReference) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  w.doc["textures"][0]["source"] = 1;
  w.doc["textures"][0]["sampler"] = 0;
  const GltfDocument doc = w.read();
  EXPECT_TRUE(has_gltf_issue(doc, "UNRESOLVED_REFERENCE", "/textures/0/source")) << describe(doc);
  EXPECT_TRUE(has_gltf_issue(doc, "UNRESOLVED_REFERENCE", "/textures/0/sampler"));
}

TEST(MaterialBad, APrimitiveMaterialOutOfRangeIsAnUnresolvedReference) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  w.doc["meshes"][0]["primitives"][0]["material"] = 1;
  const GltfDocument doc = w.read();
  EXPECT_TRUE(has_gltf_issue(doc, "UNRESOLVED_REFERENCE", "/meshes/0/primitives/0/material"))
      << describe(doc);
}

TEST(MaterialBad, AUvAccessorOfTheWrongCountIsAnError) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  w.doc["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] =
      w.vec2s({{0, 0}, {1, 0}, {0, 1}, {1, 1}});
  const GltfDocument doc = w.read();
  EXPECT_TRUE(has_gltf_issue(doc, "MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT",
                             "/meshes/0/primitives/0/attributes/TEXCOORD_0"))
      << describe(doc);
}

TEST(MaterialBad, AUvOrColourAccessorOfTheWrongTypeIsAnError) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  json& attributes = w.doc["meshes"][0]["primitives"][0]["attributes"];
  attributes["TEXCOORD_0"] = w.vec3s({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false);  // VEC3
  const std::vector<uint16_t> raw = {0, 1, 2, 3, 4, 5};
  attributes["TEXCOORD_1"] = w.ints(raw, 5123, "VEC2", false);  // not normalised
  attributes["COLOR_0"] = w.vec2s({{0, 0}, {1, 0}, {0, 1}});    // VEC2
  const GltfDocument doc = w.read();
  for (const char* p : {"/meshes/0/primitives/0/attributes/TEXCOORD_0",
                        "/meshes/0/primitives/0/attributes/TEXCOORD_1",
                        "/meshes/0/primitives/0/attributes/COLOR_0"}) {
    EXPECT_TRUE(has_gltf_issue(doc, "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT", p))
        << p << "\n"
        << describe(doc);
  }
}

TEST(MaterialBad, AKtx2ImageIsAnErrorNamingIt) {
  const std::vector<uint8_t> ktx2 = {0xAB, 'K',  'T',  'X',  ' ', '2', '0', 0xBB,
                                     0x0D, 0x0A, 0x1A, 0x0A, 0,   0,   0,   0};
  const GltfDocument doc = textured_triangle(ktx2, "image/ktx2").read();
  ASSERT_TRUE(has_gltf_issue(doc, "IMAGE_FORMAT_UNSUPPORTED", "/images/0")) << describe(doc);
  for (const GltfIssue& i : doc.issues) {
    if (i.code == "IMAGE_FORMAT_UNSUPPORTED") {
      EXPECT_NE(i.message.find("KTX2"), std::string::npos) << i.message;
    }
  }
}

TEST(MaterialBad, AWebpImageIsAnErrorNamingIt) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  // RIFF <size> WEBP as a data: URI image.
  w.doc["images"] = json::array({{{"uri", "data:image/webp;base64,UklGRhoAAABXRUJQVlA4TA0AAAA="}}});
  const GltfDocument doc = w.read();
  ASSERT_TRUE(has_gltf_issue(doc, "IMAGE_FORMAT_UNSUPPORTED", "/images/0")) << describe(doc);
  for (const GltfIssue& i : doc.issues) {
    if (i.code == "IMAGE_FORMAT_UNSUPPORTED") {
      EXPECT_NE(i.message.find("WebP"), std::string::npos) << i.message;
    }
  }
}

TEST(MaterialBad, ATextureWhoseOnlySourceIsBasisuIsAnError) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  w.doc["textures"] = json::array({{{"extensions", {{"KHR_texture_basisu", {{"source", 0}}}}}}});
  w.doc["extensionsUsed"] = {"KHR_texture_basisu"};
  const GltfDocument doc = w.read();
  EXPECT_TRUE(has_gltf_issue(doc, "IMAGE_FORMAT_UNSUPPORTED", "/textures/0")) << describe(doc);
}

TEST(MaterialBad, AnImageWhoseBytesContradictItsMimeTypeIsAnError) {
  const GltfDocument doc = textured_triangle(corpus_png(), "image/jpeg").read();
  EXPECT_TRUE(has_gltf_issue(doc, "IMAGE_MIME_TYPE_INVALID", "/images/0/mimeType"))
      << describe(doc);
}

TEST(MaterialBad, AnAbsoluteOrSchemedImageUriIsInvalid) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  w.doc["images"] = json::array({{{"uri", "/etc/passwd"}}, {{"uri", "http://x/y.png"}}});
  const GltfDocument doc = w.read();
  EXPECT_TRUE(has_gltf_issue(doc, "INVALID_URI", "/images/0/uri")) << describe(doc);
  EXPECT_TRUE(has_gltf_issue(doc, "INVALID_URI", "/images/1/uri"));
}

TEST(MaterialBad, AnImageWithBothUriAndBufferViewIsAnError) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  w.doc["images"][0]["uri"] = "x.png";
  const GltfDocument doc = w.read();
  EXPECT_TRUE(has_gltf_issue(doc, "ONE_OF_MISMATCH", "/images/0")) << describe(doc);
}

TEST(MaterialBad, AnUnknownExtensionIsOneWarningPerFile) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  w.doc["extensionsUsed"] = {"EXT_made_up"};
  w.doc["materials"][0]["extensions"] = {{"EXT_made_up", json::object()}};
  w.doc["materials"].push_back({{"extensions", {{"EXT_made_up", json::object()}}}});
  const GltfDocument doc = w.read();
  EXPECT_TRUE(doc.ok()) << describe(doc);
  EXPECT_EQ(count_gltf_code(doc, "UNSUPPORTED_EXTENSION"), 1);
  EXPECT_TRUE(has_gltf_issue(doc, "UNSUPPORTED_EXTENSION", "/extensionsUsed/0", false));

  w.doc["extensionsRequired"] = {"EXT_made_up"};
  const GltfDocument required = w.read();
  EXPECT_TRUE(has_gltf_issue(required, "UNSUPPORTED_EXTENSION", "/extensionsRequired/0", true))
      << describe(required);
}

TEST(MaterialBad, ExtraUvAndColourSetsAreOneWarningPerFile) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  json prim = w.doc["meshes"][0]["primitives"][0];
  prim["attributes"]["TEXCOORD_2"] = prim["attributes"]["TEXCOORD_0"];
  prim["attributes"]["COLOR_1"] = w.vec4s({{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}});
  w.doc["meshes"][0]["primitives"] = json::array({prim, prim});
  const GltfDocument doc = w.read();
  EXPECT_TRUE(doc.ok()) << describe(doc);
  EXPECT_EQ(count_gltf_code(doc, "MESH_PRIMITIVE_EXTRA_SETS"), 1);
}

TEST(MaterialBad, SamplerValuesOutsideGltfsListsAreErrors) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  w.doc["samplers"] =
      json::array({{{"magFilter", 9987}, {"minFilter", 1}, {"wrapS", 10496}, {"wrapT", 33071}}});
  w.doc["textures"][0]["sampler"] = 0;
  const GltfDocument doc = w.read();
  for (const char* p : {"/samplers/0/magFilter", "/samplers/0/minFilter", "/samplers/0/wrapS"}) {
    EXPECT_TRUE(has_gltf_issue(doc, "VALUE_NOT_IN_LIST", p)) << p << "\n" << describe(doc);
  }
  EXPECT_EQ(count_gltf_code(doc, "VALUE_NOT_IN_LIST"), 3);
}

TEST(MaterialBad, FactorsOutOfRangeAndUnknownAlphaModesAreErrors) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  json& m = w.doc["materials"][0];
  m["pbrMetallicRoughness"]["baseColorFactor"] = {1.5, 0, 0, 1};
  m["pbrMetallicRoughness"]["metallicFactor"] = -0.5;
  m["emissiveFactor"] = {0, 2, 0};
  m["alphaMode"] = "CUTOUT";
  m["alphaCutoff"] = -1;
  m["occlusionTexture"] = {{"index", 0}, {"strength", 2}};
  m["extensions"] = {{"KHR_materials_emissive_strength", {{"emissiveStrength", -1}}}};
  const GltfDocument doc = w.read();
  for (const char* p :
       {"/materials/0/pbrMetallicRoughness/baseColorFactor/0",
        "/materials/0/pbrMetallicRoughness/metallicFactor", "/materials/0/emissiveFactor/1",
        "/materials/0/alphaCutoff", "/materials/0/occlusionTexture/strength",
        "/materials/0/extensions/KHR_materials_emissive_strength/"
        "emissiveStrength"}) {
    EXPECT_TRUE(has_gltf_issue(doc, "VALUE_NOT_IN_RANGE", p)) << p << "\n" << describe(doc);
  }
  EXPECT_TRUE(has_gltf_issue(doc, "VALUE_NOT_IN_LIST", "/materials/0/alphaMode"));
}

TEST(MaterialBad, ATexCoordBeyondOneIsUnsupported) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  w.doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["texCoord"] = 2;
  const GltfDocument doc = w.read();
  EXPECT_TRUE(has_gltf_issue(doc, "TEXTURE_TEXCOORD_UNSUPPORTED",
                             "/materials/0/pbrMetallicRoughness/baseColorTexture/texCoord"))
      << describe(doc);
}

TEST(MaterialBad, AMaterialSamplingAMissingUvSetIsAnError) {
  GltfWriter w = textured_triangle(corpus_png(), "image/png");
  w.doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["texCoord"] = 1;
  const GltfDocument doc = w.read();
  EXPECT_TRUE(
      has_gltf_issue(doc, "MESH_PRIMITIVE_TOO_FEW_TEXCOORDS", "/meshes/0/primitives/0/material"))
      << describe(doc);
}

}  // namespace
}  // namespace animpack::import_test
