// Materials and textures through `cook_scene`: every mesh's materials merged into the
// pack's list with the parts and slots renumbered, each distinct image stored once
// whichever files use it, and glTF material/image problems reported in the glTF at their
// JSON pointer with a note at the scene's mesh `file` key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "import/import_support.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
using import_test::GltfWriter;
using import_test::json;
using import_test::kCorpus;

class CookMaterials : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("animpack_materials_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, std::span<const uint8_t> bytes) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return p;
  }
  fs::path write(const std::string& name, const std::string& text) {
    return write(
        name, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  }
  void copy(const fs::path& from) { fs::copy_file(from, dir_ / from.filename()); }

  fs::path dir_;
};

// The diagnostics as "severity code line" plus the message's bracketed glTF code.
std::vector<std::string> summary(const DiagnosticSink& sink) {
  std::vector<std::string> out;
  for (const Diagnostic& d : sink.diagnostics()) {
    const size_t open = d.message.rfind('[');
    out.push_back(std::string(severity_name(d.severity)) + " " + d.code + " " +
                  std::to_string(d.line) + " " +
                  (open == std::string::npos ? "" : d.message.substr(open)));
  }
  return out;
}

TEST_F(CookMaterials, FoxGltfAndGlbInOneSceneShareOneTexture) {
  const fs::path fox = kCorpus / "gltf/Fox";
  for (const char* f :
       {"glTF/Fox.gltf", "glTF/Fox.bin", "glTF/Texture.png", "glTF-Binary/Fox.glb"}) {
    copy(fox / f);
  }
  const fs::path scene = write("scene.toml",
                               "[[mesh]]\nname = \"a\"\nfile = \"Fox.gltf\"\n\n"
                               "[[mesh]]\nname = \"b\"\nfile = \"Fox.glb\"\n");
  DiagnosticSink sink;
  const CookOutput out = cook_scene(scene, sink);
  EXPECT_EQ(sink.error_count(), 0u) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  EXPECT_EQ(sink.warning_count(), 0u) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  ASSERT_EQ(out.pack.meshes.size(), 2u);
  ASSERT_EQ(out.pack.materials.size(), 2u) << "one per mesh";
  ASSERT_EQ(out.pack.textures.size(), 1u) << "the same pixels are stored once";
  const CookedTexture& t = out.pack.textures[0];
  EXPECT_EQ(t.width, 1024u);
  EXPECT_EQ(t.height, 1024u);
  EXPECT_EQ(t.color_space, ColorSpace::kSrgb);
  EXPECT_EQ(t.rgba.size(), size_t{1024} * 1024 * 4);
  EXPECT_EQ(t.source_file, "Fox.gltf") << "named after the first file that uses it";
  for (size_t m = 0; m < 2; ++m) {
    EXPECT_EQ(out.pack.materials[m].info.base_color_texture.texture, 0);
    EXPECT_EQ(out.pack.materials[m].info.roughness, 0.58f);
    for (const CookedPart& p : out.pack.meshes[m].parts) {
      EXPECT_EQ(p.material, static_cast<int>(m)) << "renumbered to the pack's list";
      EXPECT_EQ(p.texcoords0.size(), p.positions.size());
    }
  }
  // The Fox has no NORMAL: each mesh gets a note naming it and the primitive.
  int notes = 0;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity != Severity::kNote) continue;
    ++notes;
    EXPECT_NE(d.message.find("/meshes/0/primitives/0"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("[NORMALS_GENERATED]"), std::string::npos) << d.message;
  }
  EXPECT_EQ(notes, 2);
}

TEST_F(CookMaterials, TwoModelsWithDifferentImagesKeepBoth) {
  copy(kCorpus / "gltf/CesiumMan/glTF-Binary/CesiumMan.glb");
  copy(kCorpus / "gltf/Fox/glTF-Binary/Fox.glb");
  copy(kCorpus / "gltf/BoxAnimated/glTF-Embedded/BoxAnimated.gltf");
  const fs::path scene = write("scene.toml",
                               "[[mesh]]\nname = \"fox\"\nfile = \"Fox.glb\"\n\n"
                               "[[mesh]]\nname = \"box\"\nfile = \"BoxAnimated.gltf\"\n\n"
                               "[[mesh]]\nname = \"man\"\nfile = \"CesiumMan.glb\"\n");
  DiagnosticSink sink;
  const CookOutput out = cook_scene(scene, sink);
  EXPECT_EQ(sink.error_count(), 0u) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  ASSERT_EQ(out.pack.meshes.size(), 3u);
  ASSERT_EQ(out.pack.materials.size(), 4u);  // fox 1, box 2, man 1
  ASSERT_EQ(out.pack.textures.size(), 2u);
  EXPECT_EQ(out.pack.materials[3].info.base_color_texture.texture, 1);
  EXPECT_EQ(out.pack.textures[1].mime_type, "image/jpeg");
  for (const CookedPart& p : out.pack.meshes[1].parts) {
    EXPECT_TRUE(p.material == 1 || p.material == 2) << p.material;
  }
  for (const CookedPart& p : out.pack.meshes[2].parts) EXPECT_EQ(p.material, 3);
}

TEST_F(CookMaterials, APackReadsBackItsMaterialsTexturesAndStreams) {
  const fs::path fox = kCorpus / "gltf/Fox";
  for (const char* f :
       {"glTF/Fox.gltf", "glTF/Fox.bin", "glTF/Texture.png", "glTF-Binary/Fox.glb"}) {
    copy(fox / f);
  }
  copy(kCorpus / "gltf/Quaternius-Alien/Alien_Scolitex.gltf");
  copy(kCorpus / "gltf/Quaternius-Alien/Alien_Scolitex.bin");
  copy(kCorpus / "gltf/BoxAnimated/glTF-Embedded/BoxAnimated.gltf");
  const fs::path scene = write("scene.toml",
                               "[[mesh]]\nname = \"a\"\nfile = \"Fox.gltf\"\n\n"
                               "[[mesh]]\nname = \"b\"\nfile = \"Fox.glb\"\n\n"
                               "[[mesh]]\nname = \"alien\"\nfile = \"Alien_Scolitex.gltf\"\n\n"
                               "[[mesh]]\nname = \"box\"\nfile = \"BoxAnimated.gltf\"\n");
  DiagnosticSink sink;
  const CookOutput out = cook_scene(scene, sink);
  ASSERT_EQ(sink.error_count(), 0u) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  const std::vector<uint8_t> bytes = write_pack(out.pack);
  Result<Pack> pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack.has_value()) << pack.error().message();

  ASSERT_EQ(pack->materials().size(), out.pack.materials.size());
  for (size_t m = 0; m < out.pack.materials.size(); ++m) {
    const MaterialInfo& want = out.pack.materials[m].info;
    const MaterialInfo& got = pack->materials()[m];
    EXPECT_EQ(got.name, out.pack.materials[m].name);
    EXPECT_EQ(got.base_color.x, want.base_color.x);
    EXPECT_EQ(got.base_color.w, want.base_color.w);
    EXPECT_EQ(got.metallic, want.metallic);
    EXPECT_EQ(got.roughness, want.roughness);
    EXPECT_EQ(got.alpha_mode, want.alpha_mode);
    EXPECT_EQ(got.double_sided, want.double_sided);
    EXPECT_EQ(got.base_color_texture.texture, want.base_color_texture.texture);
    EXPECT_EQ(got.base_color_texture.min_filter, want.base_color_texture.min_filter);
  }
  ASSERT_EQ(pack->textures().size(), 1u) << "the Fox's image, once";
  EXPECT_EQ(pack->textures()[0].width, 1024u);
  EXPECT_EQ(pack->textures()[0].color_space, ColorSpace::kSrgb);
  Result<std::span<const uint8_t>> pixels = pack->texture_pixels(0);
  ASSERT_TRUE(pixels.has_value()) << pixels.error().message();
  EXPECT_TRUE(std::equal(pixels->begin(), pixels->end(), out.pack.textures[0].rgba.begin(),
                         out.pack.textures[0].rgba.end()));

  // Every part's material and UV and colour streams as cooked.
  size_t part = 0;
  for (const CookedMesh& mesh : out.pack.meshes) {
    for (const CookedPart& want : mesh.parts) {
      ASSERT_LT(part, pack->parts().size());
      EXPECT_EQ(pack->parts()[part].material, want.material);
      EXPECT_EQ(pack->parts()[part].normals_generated, want.normals_generated);
      Result<PartStreams> got = pack->part_streams(static_cast<int>(part));
      ASSERT_TRUE(got.has_value()) << got.error().message();
      ASSERT_EQ(got->texcoords0.size(), want.texcoords0.size());
      for (size_t v = 0; v < want.texcoords0.size(); ++v) {
        ASSERT_EQ(got->texcoords0[v].x, want.texcoords0[v].x);
        ASSERT_EQ(got->texcoords0[v].y, want.texcoords0[v].y);
      }
      ASSERT_EQ(got->colors.size(), want.colors.size());
      for (size_t v = 0; v < want.colors.size(); ++v) ASSERT_EQ(got->colors[v].w, want.colors[v].w);
      ASSERT_EQ(got->source_vertices.size(), want.source_vertices.size());
      ++part;
    }
  }
  EXPECT_EQ(part, pack->parts().size());
}

TEST_F(CookMaterials, AnImageProblemIsAnErrorAtItsPointerWithANoteAtTheSceneKey) {
  GltfWriter w;
  const int pos = w.vec3s({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, true);
  const int uv = w.vec2s({{0, 0}, {1, 0}, {0, 1}});
  w.mesh({{"primitives",
           {{{"attributes", {{"POSITION", pos}, {"TEXCOORD_0", uv}}}, {"material", 0}}}}});
  w.node({{"mesh", 0}});
  w.scene({0});
  w.doc["images"] = json::array({{{"uri", "missing.png"}}, {{"uri", "broken.png"}}});
  w.doc["textures"] = json::array({{{"source", 0}}, {{"source", 1}}});
  w.doc["materials"] =
      json::array({{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}},
                    {"emissiveTexture", {{"index", 1}}}}});
  write("bad.glb", w.glb());
  write("broken.png", std::string("\x89PNG\r\n\x1a\n not really", 19));
  const fs::path scene =
      write("scene.toml", "# a textured triangle\n[[mesh]]\nname = \"m\"\nfile = \"bad.glb\"\n");
  DiagnosticSink sink;
  const CookOutput out = cook_scene(scene, sink);
  sink.sort();
  EXPECT_TRUE(out.pack.meshes.empty());
  bool missing = false, broken = false, note = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity == Severity::kError) {
      EXPECT_EQ(d.code, "E0201");
      EXPECT_EQ(fs::path(d.file).filename(), "bad.glb");
      missing |= d.message.rfind("/images/0/uri: ", 0) == 0 &&
                 d.message.find("[IO_ERROR]") != std::string::npos;
      broken |= d.message.rfind("/images/1: ", 0) == 0 &&
                d.message.find("[IMAGE_DATA_INVALID]") != std::string::npos;
    }
    if (d.severity == Severity::kNote) {
      note = true;
      EXPECT_EQ(d.line, 4) << "the mesh's file key";
      EXPECT_EQ(fs::path(d.file).filename(), "scene.toml");
    }
  }
  EXPECT_TRUE(missing) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  EXPECT_TRUE(broken) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  EXPECT_TRUE(note);
  // The image file that was read is an input of the depfile.
  EXPECT_TRUE(std::find(out.inputs.begin(), out.inputs.end(), dir_ / "broken.png") !=
              out.inputs.end());
}

TEST_F(CookMaterials, AUvProblemIsAnErrorAtTheAttribute) {
  GltfWriter w;
  const int pos = w.vec3s({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, true);
  const int uv = w.vec2s({{0, 0}, {1, 0}});
  w.mesh({{"primitives", {{{"attributes", {{"POSITION", pos}, {"TEXCOORD_0", uv}}}}}}});
  w.node({{"mesh", 0}});
  w.scene({0});
  write("uv.gltf", w.gltf());
  const fs::path scene = write("scene.toml", "[[mesh]]\nname = \"m\"\nfile = \"uv.gltf\"\n");
  DiagnosticSink sink;
  (void)cook_scene(scene, sink);
  EXPECT_EQ(summary(sink), (std::vector<std::string>{
                               "error E0201 0 [MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT]",
                               "note E0201 3 ",
                           }))
      << format_diagnostics(sink, DiagnosticFormat::kGcc);
}

}  // namespace
}  // namespace animpack
