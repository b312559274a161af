// Clips from other files (Step 5): a one-file-per-clip character, made here by splitting the
// corpus Fox (glTF) into a mesh file without animations and one glTF per clip (nodes and
// the animation only, as Mixamo's and Blender's `Character@Walk` exports), cooks back to
// the original's clips bit for bit; joints a clip file has that the mesh lacks are a
// warning (W0227) and none in common an error (E0228), at the source's `file`; the same
// file named by two meshes is read once; selection, renames, cuts and name clashes at
// their keys.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "fixtures/test_data.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kFox = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/corpus/gltf/Fox/glTF";

class ClipFiles : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() / ("animpack_clip_files_" + std::to_string(::getpid()) + "_" +
                                     testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const char* f : {"Fox.bin", "Texture.png"}) fs::copy_file(kFox / f, dir_ / f);
    fox_ = json::parse(test_data::read_test_file(kFox / "Fox.gltf"));
    // The mesh file: the Fox without its animations.
    json mesh = fox_;
    mesh.erase("animations");
    write("Fox.gltf", mesh);
    // One file per clip: the nodes (without their mesh and skin) and one animation.
    for (size_t a = 0; a < fox_["animations"].size(); ++a) {
      write("Fox@" + fox_["animations"][a]["name"].get<std::string>() + ".gltf", clip_file(a));
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Animation `a` of the Fox alone with the nodes it animates.
  json clip_file(size_t a) const {
    json clip = fox_;
    for (const char* key : {"meshes", "skins", "materials", "textures", "images", "samplers"}) {
      clip.erase(key);
    }
    for (json& node : clip["nodes"]) {
      node.erase("mesh");
      node.erase("skin");
    }
    clip["animations"] = json::array({fox_["animations"][a]});
    return clip;
  }

  void write(const std::string& name, const json& j) const {
    std::ofstream(dir_ / name) << j.dump();
  }
  void write_text(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }

  CookOutput cook(const std::string& scene) {
    write_text("scene.toml", scene);
    sink_ = DiagnosticSink();
    CookOutput out = cook_scene(dir_ / "scene.toml", sink_);
    sink_.sort();
    return out;
  }
  std::string printed() { return format_diagnostics(sink_, DiagnosticFormat::kGcc); }
  // "CODE LINE:COL" of every diagnostic that is not a note.
  std::vector<std::string> problems() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : sink_.diagnostics()) {
      if (d.severity != Severity::kNote) {
        out.push_back(d.code + " " + std::to_string(d.line) + ":" + std::to_string(d.col));
      }
    }
    return out;
  }

  fs::path dir_;
  json fox_;
  DiagnosticSink sink_;
};

// Every channel equal bit for bit: joint, property, interpolation, times and values.
void expect_same_clip(const Clip& want, const Clip& got) {
  EXPECT_EQ(want.name(), got.name());
  EXPECT_EQ(want.duration(), got.duration()) << want.name();
  ASSERT_EQ(want.channels().size(), got.channels().size()) << want.name();
  for (size_t c = 0; c < want.channels().size(); ++c) {
    const Channel& a = want.channels()[c];
    const Channel& b = got.channels()[c];
    EXPECT_EQ(a.joint, b.joint) << want.name() << " channel " << c;
    EXPECT_EQ(a.property, b.property) << want.name() << " channel " << c;
    EXPECT_EQ(a.interpolation, b.interpolation) << want.name() << " channel " << c;
    EXPECT_TRUE(std::equal(a.times.begin(), a.times.end(), b.times.begin(), b.times.end()))
        << want.name() << " channel " << c;
    EXPECT_TRUE(std::equal(a.values.begin(), a.values.end(), b.values.begin(), b.values.end()))
        << want.name() << " channel " << c;
  }
}

TEST_F(ClipFiles, AOneFilePerClipCharacterCooksToTheOriginalsClipsBitForBit) {
  const CookOutput out = cook(
      "[[mesh]]\n"
      "name = \"fox\"\n"
      "file = \"Fox.gltf\"\n"
      "clips = [{ file = \"Fox@Survey.gltf\" }, { file = \"Fox@Walk.gltf\" },\n"
      "         { file = \"Fox@Run.gltf\" }]\n"
      "[[object]]\nname = \"fox\"\nmesh = \"fox\"\nanimation = { clip = \"Walk\" }\n");
  ASSERT_FALSE(sink_.has_errors()) << printed();
  EXPECT_EQ(sink_.warning_count(), 0u) << printed();
  const GltfDocument doc = read_gltf(kFox / "Fox.gltf");
  const ImportedModel original = import_gltf(doc, "fox", "Fox.gltf");
  ASSERT_TRUE(original.ok() && original.rig);
  ASSERT_EQ(out.pack.rigs.size(), 1u);
  const Rig& rig = out.pack.rigs[0].rig;
  ASSERT_EQ(rig.clips().size(), original.rig->rig.clips().size());
  for (size_t c = 0; c < rig.clips().size(); ++c) {
    expect_same_clip(original.rig->rig.clips()[c], rig.clips()[c]);
  }
  // Each clip names its animation in its own file (the only one there).
  EXPECT_EQ(out.pack.rigs[0].clip_source_animations, (std::vector<int>{0, 0, 0}));
  // And the pack opens and plays (the cooker's own last check).
  const std::vector<uint8_t> bytes = write_pack(out.pack);
  DiagnosticSink verify;
  EXPECT_TRUE(verify_pack(bytes, dir_ / "scene.toml", verify))
      << format_diagnostics(verify, DiagnosticFormat::kGcc);
}

TEST_F(ClipFiles, JointsTheMeshLacksAreAWarningAtTheSourcesFile) {
  // A clip file with a joint the Fox has not: its channel is dropped, the rest bind.
  json walk = clip_file(1);
  walk["nodes"].push_back({{"name", "b_Tail_extra"}, {"translation", {0, 1, 0}}});
  const int extra = static_cast<int>(walk["nodes"].size()) - 1;
  walk["scenes"][0]["nodes"].push_back(extra);
  json& animation = walk["animations"][0];
  animation["samplers"].push_back(animation["samplers"][0]);
  json channel = animation["channels"][0];
  channel["sampler"] = animation["samplers"].size() - 1;
  channel["target"]["node"] = extra;
  animation["channels"].push_back(channel);
  write("Walk_extra.gltf", walk);
  const CookOutput out = cook(
      "[[mesh]]\n"
      "name = \"fox\"\n"
      "file = \"Fox.gltf\"\n"
      "clips = [{ file = \"Walk_extra.gltf\" }]\n");
  EXPECT_EQ(problems(), std::vector<std::string>{"W0227 4:12"}) << printed();
  ASSERT_EQ(out.pack.rigs.size(), 1u);
  for (const Diagnostic& d : sink_.diagnostics()) {
    if (d.code == "W0227") {
      EXPECT_NE(d.message.find("'b_Tail_extra'"), std::string::npos) << d.message;
    }
  }
  // The Walk itself arrives whole.
  const GltfDocument doc = read_gltf(kFox / "Fox.gltf");
  const ImportedModel original = import_gltf(doc, "fox", "Fox.gltf");
  expect_same_clip(original.rig->rig.clips()[1], out.pack.rigs[0].rig.clips()[0]);
}

TEST_F(ClipFiles, NoJointInCommonIsAnErrorAtTheSourcesFile) {
  json run = clip_file(2);
  for (json& node : run["nodes"]) node["name"] = "other_" + node.value("name", std::string());
  write("Run_other.gltf", run);
  (void)cook(
      "[[mesh]]\n"
      "name = \"fox\"\n"
      "file = \"Fox.gltf\"\n"
      "clips = [{ file = \"Fox@Walk.gltf\" },\n"
      "         { file = \"Run_other.gltf\" }]\n");
  EXPECT_EQ(problems(), std::vector<std::string>{"E0228 5:12"}) << printed();
}

TEST_F(ClipFiles, TheSameFileNamedByTwoMeshesIsReadOnce) {
  const CookOutput out = cook(
      "[[mesh]]\nname = \"a\"\nfile = \"Fox.gltf\"\n"
      "clips = [{ file = \"Fox@Walk.gltf\" }]\n"
      "[[mesh]]\nname = \"b\"\nfile = \"./Fox.gltf\"\n"
      "clips = [{ file = \"Fox@Walk.gltf\", name = \"Stroll\" }, { file = \"Fox@Run.gltf\" }]\n");
  ASSERT_FALSE(sink_.has_errors()) << printed();
  // Each file is an input once: the scene, Fox.gltf and its two files, two clip files.
  std::vector<std::string> names;
  for (const fs::path& p : out.inputs) names.push_back(p.filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"Fox.bin", "Fox.bin", "Fox.bin", "Fox.gltf", "Fox@Run.gltf",
                                      "Fox@Walk.gltf", "Texture.png", "scene.toml"}))
      << "each file's buffer once per file that names it, each file once";
  ASSERT_EQ(out.pack.meshes.size(), 2u);
  ASSERT_EQ(out.pack.rigs.size(), 2u);
  // One set of materials and one texture for both meshes.
  EXPECT_EQ(out.pack.materials.size(), 1u);
  EXPECT_EQ(out.pack.textures.size(), 1u);
  EXPECT_EQ(out.pack.meshes[0].parts[0].material, out.pack.meshes[1].parts[0].material);
  EXPECT_EQ(out.pack.rigs[0].rig.clips()[0].name(), "Walk");
  EXPECT_EQ(out.pack.rigs[1].rig.clips()[0].name(), "Stroll");
  EXPECT_EQ(out.pack.rigs[1].rig.clips()[1].name(), "Run");
  EXPECT_EQ(out.pack.meshes[1].name, "b");
  EXPECT_EQ(out.pack.meshes[1].source_file, "Fox.gltf");
}

TEST_F(ClipFiles, SelectionRenamesAndCutsOfTheMeshsOwnFile) {
  write("Fox_all.gltf", fox_);
  const CookOutput out = cook(
      "[[mesh]]\n"
      "name = \"fox\"\n"
      "file = \"Fox_all.gltf\"\n"
      "clips = [{ include = [\"*u*\"], exclude = [\"Run\"], rename = { Survey = \"Look\" } },\n"
      "         { include = [\"Run\"], name = \"Dash\", from = 0.1, to = 0.5 }]\n");
  ASSERT_FALSE(sink_.has_errors()) << printed();
  ASSERT_EQ(out.pack.rigs.size(), 1u);
  const Rig& rig = out.pack.rigs[0].rig;
  ASSERT_EQ(rig.clips().size(), 2u);
  EXPECT_EQ(rig.clips()[0].name(), "Look");
  EXPECT_EQ(rig.clips()[1].name(), "Dash");
  EXPECT_FLOAT_EQ(rig.clips()[1].duration(), 0.4f);
  EXPECT_EQ(out.pack.rigs[0].clip_source_animations, (std::vector<int>{0, 2}));
  // The renamed Survey is the Survey bit for bit (the same skeleton: nothing rebinds).
  const GltfDocument doc = read_gltf(kFox / "Fox.gltf");
  const ImportedModel original = import_gltf(doc, "fox", "Fox.gltf");
  const Clip& survey = original.rig->rig.clips()[0];
  ASSERT_EQ(survey.channels().size(), rig.clips()[0].channels().size());
  for (size_t c = 0; c < survey.channels().size(); ++c) {
    const Channel& a = survey.channels()[c];
    const Channel& b = rig.clips()[0].channels()[c];
    EXPECT_TRUE(std::equal(a.values.begin(), a.values.end(), b.values.begin(), b.values.end()));
  }
}

TEST_F(ClipFiles, ProblemsOfSelectionNamesAndCutsAreAtTheirKeys) {
  write("Fox_all.gltf", fox_);
  (void)cook(
      "[[mesh]]\n"
      "name = \"fox\"\n"
      "file = \"Fox_all.gltf\"\n"
      "clips = [{ include = [\"Wlak\"] },\n"                            // 4: E0222 at the pattern
      "         { exclude = [\"*\"] },\n"                               // 5: E0222, nothing left
      "         { name = \"One\" },\n"                                  // 6: E0223, three selected
      "         { include = [\"Walk\"], rename = { Wlk = \"W\" } },\n"  // 7: E0224
      "         { include = [\"Walk\"], name = \"Cut\", from = 0.5, to = 99 },\n"  // 8: E0225
      "         { include = [\"Run\"] },\n"
      "         { file = \"Fox@Run.gltf\" },\n"  // 10: E0226, Run again
      "         { file = \"Missing.gltf\" }]\n"  // 11: E0201
      "[[mesh]]\n"
      "name = \"box\"\n"
      "file = \"Fox@Walk.gltf\"\n"
      "humanoid = { hips = \"b_Hip_01\", head = \"b_Haed\" }\n");  // 15: E0230
  EXPECT_EQ(problems(),
            (std::vector<std::string>{"E0222 4:23", "E0222 5:10", "E0223 6:12", "E0224 7:43",
                                      "E0225 8:58", "E0226 10:10", "E0201 11:12", "E0230 15:33"}))
      << printed();
}

TEST_F(ClipFiles, RetargetingOntoTheSameSkeletonIsBitIdentical) {
  // b takes a's clips (retarget_from without a file), c a clip file made for a's skeleton:
  // both skeletons are the Fox's, so retargeting changes no bit.
  write("Fox_all.gltf", fox_);
  const CookOutput out = cook(
      "[[mesh]]\nname = \"a\"\nfile = \"Fox_all.gltf\"\n"
      "[[mesh]]\nname = \"b\"\nfile = \"Fox.gltf\"\nclips = [{ retarget_from = \"c\" }]\n"
      "[[mesh]]\nname = \"c\"\nfile = \"Fox.gltf\"\n"
      "clips = [{ file = \"Fox@Run.gltf\", retarget_from = \"a\" }, { retarget_from = \"a\" ,"
      " include = [\"Walk\"] }]\n");
  ASSERT_FALSE(sink_.has_errors()) << printed();
  EXPECT_EQ(sink_.warning_count(), 0u) << printed();
  ASSERT_EQ(out.pack.rigs.size(), 3u);
  const Rig& a = out.pack.rigs[0].rig;
  const Rig& b = out.pack.rigs[1].rig;  // b's clips are c's, made after c's (document order)
  const Rig& c = out.pack.rigs[2].rig;
  ASSERT_EQ(c.clips().size(), 2u);
  expect_same_clip(a.clips()[2], c.clips()[0]);  // Run
  expect_same_clip(a.clips()[1], c.clips()[1]);  // Walk
  ASSERT_EQ(b.clips().size(), 2u);
  expect_same_clip(c.clips()[0], b.clips()[0]);
  expect_same_clip(c.clips()[1], b.clips()[1]);
}

TEST_F(ClipFiles, ClipsForAMeshWithoutARigAreRefused) {
  write_text("Static.gltf",
             R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{}]})");
  (void)cook(
      "[[mesh]]\n"
      "name = \"still\"\n"
      "file = \"Static.gltf\"\n"
      "clips = [{ file = \"Fox@Walk.gltf\" }]\n");
  EXPECT_EQ(problems(), std::vector<std::string>{"E0229 4:10"}) << printed();
}

}  // namespace
}  // namespace animpack
