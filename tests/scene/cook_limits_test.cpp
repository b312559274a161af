// Every pack the cooker accepts opens and plays, and the cooker's limits hold at the
// scene key: good scenes cooked, written and verified (verify_pack: Pack::from_bytes, every
// stream decoded, a ScenePlayer stepped), a pack the runtime would refuse caught as an
// internal error, atlases stored once however many objects show them, and atlases over
// the pixel limit refused before they are decoded. Scenes are generated in a temporary
// folder beside copies of tests/data/cook's model and atlas.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "animpack/compiler/atlas_import.h"
#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/compiler/scene.h"
#include "animpack/pack.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = fs::path(ANIMPACK_SOURCE_DIR);

std::string all(const DiagnosticSink& sink) {
  std::string out;
  for (const Diagnostic& d : sink.diagnostics()) {
    out += d.code + " " + d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.col) +
           " " + d.message.substr(0, 300) + "\n";
  }
  return out;
}

bool has(const DiagnosticSink& sink, std::string_view code, int line, int col) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.code == code && d.line == line && d.col == col) return true;
  }
  return false;
}

// A temporary folder with models/BoxAnimated.gltf and art/gabe-idle-run.png (7 frames of
// 24 x 24), removed at the end.
class Folder {
 public:
  explicit Folder(const std::string& name)
      : dir_(fs::temp_directory_path() /
             ("animpack_cook_limits_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "models");
    fs::create_directories(dir_ / "art");
    fs::copy_file(kSource / "tests/data/cook/models/BoxAnimated.gltf",
                  dir_ / "models/BoxAnimated.gltf");
    fs::copy_file(kSource / "tests/data/cook/art/gabe-idle-run.png",
                  dir_ / "art/gabe-idle-run.png");
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }
  const fs::path& path() const { return dir_; }

 private:
  fs::path dir_;
};

// Cooks a scene that must have no errors, and checks that its pack opens and plays.
std::vector<uint8_t> cook_good(const fs::path& scene, CookOutput* out = nullptr) {
  DiagnosticSink sink;
  CookOutput cooked = cook_scene(scene, sink);
  EXPECT_FALSE(sink.has_errors()) << scene << "\n" << all(sink);
  const std::vector<uint8_t> bytes = write_pack(cooked.pack);
  DiagnosticSink verify;
  EXPECT_TRUE(verify_pack(bytes, scene, verify)) << scene << "\n" << all(verify);
  EXPECT_TRUE(Pack::from_bytes(bytes).has_value()) << scene;
  if (out) *out = std::move(cooked);
  return bytes;
}

TEST(CookedPacks, EveryGoodSceneInTestDataCooksToAPackThatOpensAndPlays) {
  for (const char* scene : {"tests/data/cook/good.toml", "assets/demo/scene.toml"}) {
    cook_good(kSource / scene);
  }
  // tests/data/scenes/good are scene-reader files whose assets are not in the repository;
  // what the reader alone decides must be clean.
  for (const fs::directory_entry& e : fs::directory_iterator(kSource / "tests/data/scenes/good")) {
    if (e.path().extension() != ".toml") continue;
    DiagnosticSink sink;
    read_scene(e.path(), sink);
    EXPECT_FALSE(sink.has_errors()) << e.path() << "\n" << all(sink);
  }
}

std::string box_with_blend(size_t entries) {
  std::string s =
      "[[mesh]]\nname = \"box\"\nfile = \"models/BoxAnimated.gltf\"\n"
      "[[object]]\nname = \"box\"\nmesh = \"box\"\n[object.animation]\nblend = [";
  for (size_t i = 0; i < entries; ++i) {
    s += (i ? ", " : "") + std::string("{ clip = \"animation_0\", weight = 1.0 }");
  }
  return s + "]\n";
}

TEST(CookedPacks, BlendAtTheLimitCooksAndPlays) {
  Folder folder("blend_limit");
  cook_good(folder.write("scene.toml", box_with_blend(kMaxBlendEntries)));
}

TEST(CookedPacks, BlendOfMoreThanFourEntriesIsRefusedAtTheKeyAndNoPackIsMade) {
  Folder folder("blend_over");
  DiagnosticSink sink;
  cook_scene(folder.write("scene.toml", box_with_blend(kMaxBlendEntries + 1)), sink);
  EXPECT_TRUE(has(sink, "E0135", 8, 1)) << all(sink);
}

// The Fox (tests/data/corpus) with root motion at its limits (rate 1000, 8 feet) and
// `solvers` aim solvers on its head.
std::string fox_at_limits(int solvers) {
  std::string s = "[[mesh]]\nname = \"fox\"\nfile = \"" +
                  (kSource / "tests/data/corpus/gltf/Fox/glTF-Binary/Fox.glb").string() +
                  "\"\n[[object]]\nname = \"fox\"\nmesh = \"fox\"\n[object.animation]\n"
                  "clip = \"Walk\"\n[object.animation.root_motion]\npolicy = \"accumulate\"\n"
                  "joint = \"b_Hip_01\"\nrate = 1000\nfeet = [\"b_Spine01_02\", \"b_Spine02_03\", "
                  "\"b_Neck_04\", \"b_Head_05\", \"b_Tail01_012\", \"b_Tail03_014\", "
                  "\"b_LeftFoot02_018\", \"b_RightFoot02_022\"]\n";  // lines 1-13
  for (int i = 0; i < solvers; ++i) {
    s += "[[object.animation.ik]]\nname = \"look" + std::to_string(i) +
         "\"\nkind = \"aim\"\njoints = [\"b_Head_05\"]\ntarget = [0, 50, 100]\n";
  }
  return s;
}

TEST(CookedPacks, RootMotionAndIkAtTheirLimitsCookAndPlay) {
  Folder folder("rm_ik_limits");
  CookOutput out;
  cook_good(folder.write("scene.toml", fox_at_limits(kMaxIkSolvers)), &out);
  ASSERT_EQ(out.pack.objects.size(), 1u);
  const CookedAnimation& a = out.pack.objects[0].animation;
  EXPECT_EQ(a.ik.size(), static_cast<size_t>(kMaxIkSolvers));
  ASSERT_EQ(a.root_tracks.size(), out.pack.rigs.at(0).rig.clips().size());
  const Clip& walk = out.pack.rigs[0].rig.clips()[*out.pack.rigs[0].rig.find_clip("Walk")];
  EXPECT_GT(a.root_tracks[*out.pack.rigs[0].rig.find_clip("Walk")].size(),
            static_cast<size_t>(walk.duration() * 999))
      << "1000 samples a second";
}

TEST(CookLimits, MoreIkSolversThanTheLimitAreRefusedAtTheKeyAndNoPackIsMade) {
  Folder folder("rm_ik_over");
  DiagnosticSink sink;
  const CookOutput out =
      cook_scene(folder.write("scene.toml", fox_at_limits(kMaxIkSolvers + 1)), sink);
  EXPECT_TRUE(has(sink, "E0135", 14, 20)) << all(sink);
  EXPECT_TRUE(sink.has_errors());
  ASSERT_EQ(out.pack.objects.size(), 1u);
  EXPECT_TRUE(out.pack.objects[0].animation.ik.empty());
}

TEST(CookVerify, APackTheRuntimeRefusesIsAnInternalErrorAndNotWritten) {
  // A cooked pack with a blend the runtime does not take (as the cooker once wrote).
  Folder folder("verify");
  CookOutput out;
  cook_good(folder.write("scene.toml", box_with_blend(1)), &out);
  ASSERT_EQ(out.pack.objects.size(), 1u);
  while (out.pack.objects[0].animation.blend.size() <= kMaxBlendEntries) {
    out.pack.objects[0].animation.blend.push_back({0, 1.0f});
  }
  DiagnosticSink sink;
  EXPECT_FALSE(verify_pack(write_pack(out.pack), "scene.toml", sink));
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].code, "E0901");
  EXPECT_NE(sink.diagnostics()[0].message.find("bad blend"), std::string::npos)
      << sink.diagnostics()[0].message;
}

TEST(CookVerify, BytesThatAreNoPackAreAnInternalError) {
  const std::vector<uint8_t> bytes(64, 0);
  DiagnosticSink sink;
  EXPECT_FALSE(verify_pack(bytes, "scene.toml", sink));
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].code, "E0901");
}

std::string gabe(int i, const std::string& cut) {
  return "[[object]]\nname = \"gabe" + std::to_string(i) +
         "\"\n[object.animation]\natlas = \"art/gabe-idle-run.png\"\n" + cut +
         "fps = 8.0\nclip = \"run\"\n[object.animation.clips.run]\nfrom = 1\nto = 6\n";
}

TEST(CookedPacks, ObjectsShowingOneAtlasStoreItOnce) {
  Folder folder("shared_atlas");
  CookOutput one, many;
  const std::vector<uint8_t> one_bytes =
      cook_good(folder.write("one.toml", gabe(0, "grid = [7, 1]\n")), &one);
  std::string scene;
  for (int i = 0; i < 200; ++i) scene += gabe(i, "grid = [7, 1]\n");
  const std::vector<uint8_t> many_bytes = cook_good(folder.write("many.toml", scene), &many);
  EXPECT_EQ(many.pack.objects.size(), 200u);
  EXPECT_EQ(many.pack.sheets.size(), 1u);
  // 199 more objects add their names and transforms, not 199 more atlases (168 x 24 RGBA
  // is 16 KiB raw).
  EXPECT_LT(many_bytes.size(), one_bytes.size() + 199 * 512) << many_bytes.size();
}

TEST(CookedPacks, TwoCutsOfOneAtlasShareItsPixels) {
  Folder folder("two_cuts");
  CookOutput out;
  const std::string scene =
      gabe(0, "grid = [7, 1]\n") +
      gabe(1,
           "rects = [[0, 0, 12, 24], [24, 0, 12, 24], [48, 0, 12, 24], [72, 0, 12, 24], "
           "[96, 0, 12, 24], [120, 0, 12, 24], [144, 0, 12, 24]]\n");
  const std::vector<uint8_t> bytes = cook_good(folder.write("scene.toml", scene), &out);
  ASSERT_EQ(out.pack.sheets.size(), 2u);
  EXPECT_EQ(out.pack.sheets[1].pixels_of, 0);
  EXPECT_TRUE(out.pack.sheets[1].rgba.empty());
  Result<Pack> pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack.has_value());
  Result<std::span<const uint8_t>> a = pack->sprite_pixels(0);
  Result<std::span<const uint8_t>> b = pack->sprite_pixels(1);
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(a->size(), 168u * 24u * 4u);
  EXPECT_TRUE(std::equal(a->begin(), a->end(), b->begin(), b->end()));
}

// A PNG of only its signature and header: enough for the size check, which must come
// before any pixel is decoded.
std::string png_header(uint32_t width, uint32_t height) {
  std::string s = "\x89PNG\r\n\x1a\n";
  const auto be = [&s](uint32_t v) {
    for (int k = 3; k >= 0; --k) s += static_cast<char>((v >> (8 * k)) & 0xff);
  };
  be(13);
  s += "IHDR";
  be(width);
  be(height);
  s += std::string("\x08\x06\x00\x00\x00", 5);
  be(0);  // CRC (not checked for the header scan)
  return s;
}

TEST(CookLimits, AtlasOverThePixelLimitsIsRefusedAtTheKeyBeforeItIsDecoded) {
  Folder folder("big_atlas");
  for (const auto& [w, h] : {std::pair<uint32_t, uint32_t>{kMaxAtlasSide + 1, 1},
                             {1, kMaxAtlasSide + 1},
                             {4097, 4097},
                             {16384, 16384}}) {
    folder.write("art/big.png", png_header(w, h));
    DiagnosticSink sink;
    cook_scene(folder.write("scene.toml",
                            "[[object]]\nname = \"s\"\n[object.animation]\natlas = "
                            "\"art/big.png\"\ngrid = [1, 1]\nfps = 8.0\n"
                            "[object.animation.clips.a]\nfrom = 0\nto = 0\n"),
               sink);
    EXPECT_TRUE(has(sink, "E0210", 4, 1)) << w << "x" << h << "\n" << all(sink);
  }
}

TEST(CookLimits, AtlasAtThePixelLimitsIsNotRefusedForItsSize) {
  const std::string header = png_header(kMaxAtlasSide, 2048);
  const PngImage png = decode_png({reinterpret_cast<const uint8_t*>(header.data()), header.size()});
  EXPECT_FALSE(png.too_large) << png.error;
  EXPECT_FALSE(png.error.empty());  // it has no pixels to decode
}

TEST(CookChecks, AtlasRefusedByTheSceneReaderOrAFolderIsAnErrorNotACrash) {
  // An atlas the reader refused (not a .png) left the cooker reading the scene's folder,
  // which threw from the stream and terminated the cooker.
  Folder folder("atlas_folder");
  fs::create_directories(folder.path() / "art/folder.png");
  for (const char* atlas : {"art/hero.jpg", "art/folder.png"}) {
    DiagnosticSink sink;
    cook_scene(
        folder.write("scene.toml", std::string("[[object]]\nname = \"s\"\n[object.animation]\n"
                                               "atlas = \"") +
                                       atlas +
                                       "\"\ngrid = [1, 1]\nfps = 8.0\n"
                                       "[object.animation.clips.a]\nfrom = 0\nto = 0\n"),
        sink);
    EXPECT_TRUE(has(sink, std::string(atlas).ends_with(".jpg") ? "E0107" : "E0205", 4, 1))
        << atlas << "\n"
        << all(sink);
  }
}

}  // namespace
}  // namespace animpack
