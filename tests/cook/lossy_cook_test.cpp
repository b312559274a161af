// Step 6's lossy clips through the cook (cook.cpp, clip_optimize.h): meshes with
// `compression = "lossy"` get quantised, reduced clips whose error, measured over every key
// and 100 random times against the exact cook of the same scene, is within the bound the
// cook reported (ClipStorage::max_error and the W0235 note), at most the tolerance; a clip
// whose quantised keys alone are over the tolerance stays exact with a warning; exact stays
// the default; and two cooks of a lossy scene give the same pack bytes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "animpack/compiler/clip_optimize.h"
#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(ANIMPACK_CORPUS_DIR) / "gltf";

// One mesh of the corpus scene: the folder copied, the file in it, its scene keys.
struct Model {
  const char* name;
  const char* folder;  // under kCorpus
  const char* file;
  const char* keys;  // the mesh's compression keys
};

const Model kModels[] = {
    {"man", "CesiumMan/glTF-Binary", "CesiumMan.glb", "tolerance = 0.002\n"},
    {"fox", "Fox/glTF-Binary", "Fox.glb", "tolerance = 0.1\ndistance = 10\n"},  // centimetres
    {"walker", "ozz-tests", "character_walk.gltf", ""},
    {"roots", "ozz-tests", "multiple_roots.gltf", "tolerance = 0.0005\n"},
    {"simple", "RiggedSimple/glTF-Embedded", "RiggedSimple.gltf", ""},
    {"figure", "RiggedFigure/glTF", "RiggedFigure.gltf", ""},
    {"box", "BoxAnimated/glTF-Embedded", "BoxAnimated.gltf", ""},
    {"interpolation", "InterpolationTest/glTF", "InterpolationTest.gltf", ""},
};

class LossyCook : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() / ("animpack_lossy_cook_" + std::to_string(::getpid()) + "_" +
                                     testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const Model& m : kModels) {
      fs::create_directories(dir_ / m.name);
      fs::copy(kCorpus / m.folder, dir_ / m.name, fs::copy_options::recursive);
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The scene of every model, each mesh with `compression` and its keys (none: "").
  fs::path scene(const std::string& file, const std::string& compression, bool keys = true) {
    std::string text;
    for (const Model& m : kModels) {
      text += "[[mesh]]\nname = \"" + std::string(m.name) + "\"\nfile = \"" + m.name + "/" +
              m.file + "\"\n";
      if (!compression.empty()) text += "compression = \"" + compression + "\"\n";
      if (keys) text += m.keys;
    }
    std::ofstream(dir_ / file) << text;
    return dir_ / file;
  }

  static std::string printed(const DiagnosticSink& sink) {
    std::string out;
    for (const Diagnostic& d : sink.diagnostics()) out += d.code + " " + d.message + "\n";
    return out;
  }

  fs::path dir_;
};

bool same_bits(const Clip& a, const Clip& b) {
  if (a.channels().size() != b.channels().size()) return false;
  for (size_t c = 0; c < a.channels().size(); ++c) {
    const Channel& x = a.channels()[c];
    const Channel& y = b.channels()[c];
    if (x.times.size() != y.times.size() || x.values.size() != y.values.size()) return false;
    if (std::memcmp(x.times.data(), y.times.data(), x.times.size_bytes()) != 0) return false;
    if (std::memcmp(x.values.data(), y.values.data(), x.values.size_bytes()) != 0) return false;
  }
  return true;
}

TEST_F(LossyCook, EveryCorpusClipIsWithinTheBoundTheCookReported) {
  DiagnosticSink exact_sink, lossy_sink;
  const CookOutput exact = cook_scene(scene("exact.toml", "", false), exact_sink);
  const CookOutput lossy = cook_scene(scene("lossy.toml", "lossy"), lossy_sink);
  ASSERT_FALSE(exact_sink.has_errors()) << printed(exact_sink);
  ASSERT_FALSE(lossy_sink.has_errors()) << printed(lossy_sink);
  ASSERT_EQ(exact.pack.meshes.size(), lossy.pack.meshes.size());
  size_t lossy_clips = 0, exact_clips = 0;
  for (size_t m = 0; m < lossy.pack.meshes.size(); ++m) {
    const CookedMesh& mesh = lossy.pack.meshes[m];
    if (mesh.rig < 0) continue;
    const Rig& a = exact.pack.rigs[static_cast<size_t>(exact.pack.meshes[m].rig)].rig;
    const Rig& b = lossy.pack.rigs[static_cast<size_t>(mesh.rig)].rig;
    ASSERT_EQ(a.clips().size(), b.clips().size()) << mesh.name;
    float worst = 0;
    size_t mesh_lossy = 0, before = 0, after = 0;
    for (size_t c = 0; c < a.clips().size(); ++c) {
      const Clip& original = a.clips()[c];
      const Clip& kept = b.clips()[c];
      const ClipStorage& s = kept.storage();
      const std::string what = mesh.name + " " + original.name();
      if (s.compression == ClipCompression::kExact) {
        EXPECT_TRUE(same_bits(original, kept)) << what;
        bool warned = false;
        for (const Diagnostic& d : lossy_sink.diagnostics()) {
          warned |= d.code == "W0235" && d.severity == Severity::kWarning &&
                    d.message.find("'" + original.name() + "'") != std::string::npos &&
                    d.message.find("'" + mesh.name + "'") != std::string::npos;
        }
        EXPECT_TRUE(warned) << what << "\n" << printed(lossy_sink);
        ++exact_clips;
        continue;
      }
      const double measured = clip_error(b.skeleton(), original, kept, s.distance);
      EXPECT_LE(measured, static_cast<double>(s.max_error)) << what;
      EXPECT_LE(s.max_error, s.tolerance) << what;
      EXPECT_GT(s.tolerance, 0.0f) << what;
      worst = std::max(worst, s.max_error);
      before += key_count(original);
      after += key_count(kept);
      ++mesh_lossy;
    }
    lossy_clips += mesh_lossy;
    if (mesh_lossy == 0) continue;
    // The mesh's note says what was kept, with the bound to the last bit.
    const std::string prefix = "mesh '" + mesh.name + "': ";
    int notes = 0;
    for (const Diagnostic& d : lossy_sink.diagnostics()) {
      if (d.code != "W0235" || d.severity != Severity::kNote || d.message.rfind(prefix, 0) != 0) {
        continue;
      }
      ++notes;
      EXPECT_NE(d.message.find(std::to_string(mesh_lossy) + " clip"), std::string::npos)
          << d.message;
      EXPECT_NE(d.message.find(std::to_string(before) + " -> " + std::to_string(after) + " keys"),
                std::string::npos)
          << d.message;
      const size_t at = d.message.find("max error ");
      ASSERT_NE(at, std::string::npos) << d.message;
      EXPECT_EQ(std::strtof(d.message.c_str() + at + 10, nullptr), worst) << d.message;
    }
    EXPECT_EQ(notes, 1) << mesh.name << "\n" << printed(lossy_sink);
  }
  EXPECT_GE(lossy_clips, 5u) << printed(lossy_sink);
  EXPECT_GE(exact_clips, 0u);
  // The lossy pack opens and plays (the cooker's last check), and what it decodes is what
  // was measured: the same storage and the same error against the exact clips.
  const std::vector<uint8_t> bytes = write_pack(lossy.pack);
  DiagnosticSink verify;
  EXPECT_TRUE(verify_pack(bytes, dir_ / "lossy.toml", verify)) << printed(verify);
  Result<Pack> pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  ASSERT_EQ(static_cast<size_t>(pack->rig_count()), lossy.pack.rigs.size());
  size_t smaller = 0;
  for (size_t m = 0; m < lossy.pack.meshes.size(); ++m) {
    const int r = lossy.pack.meshes[m].rig;
    if (r < 0) continue;
    const Rig& a = exact.pack.rigs[static_cast<size_t>(exact.pack.meshes[m].rig)].rig;
    const Rig& opened = pack->rig(r);
    const Rig& cooked = lossy.pack.rigs[static_cast<size_t>(r)].rig;
    ASSERT_EQ(opened.clips().size(), cooked.clips().size());
    for (size_t c = 0; c < opened.clips().size(); ++c) {
      const ClipStorage& s = opened.clips()[c].storage();
      const ClipStorage& t = cooked.clips()[c].storage();
      EXPECT_EQ(s.compression, t.compression);
      EXPECT_EQ(s.max_error, t.max_error);
      EXPECT_TRUE(same_bits(opened.clips()[c], cooked.clips()[c])) << opened.clips()[c].name();
      if (s.compression != ClipCompression::kLossy) continue;
      EXPECT_LE(clip_error(a.skeleton(), a.clips()[c], opened.clips()[c], s.distance),
                static_cast<double>(s.max_error));
      smaller += key_count(opened.clips()[c]) < key_count(a.clips()[c]);
    }
  }
  EXPECT_GE(smaller, 3u);
}

TEST_F(LossyCook, TwoCooksOfALossySceneWriteTheSameBytes) {
  // Two of the corpus models (the whole corpus scene is cooked in the test above).
  const fs::path file = dir_ / "two.toml";
  std::ofstream(file) << "compression = \"lossy\"\ntolerance = 0.002\n"
                         "[[mesh]]\nname = \"man\"\nfile = \"man/CesiumMan.glb\"\n"
                         "[[mesh]]\nname = \"roots\"\nfile = \"roots/multiple_roots.gltf\"\n";
  DiagnosticSink sink1, sink2;
  const std::vector<uint8_t> a = write_pack(cook_scene(file, sink1).pack);
  const std::vector<uint8_t> b = write_pack(cook_scene(file, sink2).pack);
  ASSERT_FALSE(sink1.has_errors()) << printed(sink1);
  EXPECT_EQ(a, b);
  EXPECT_EQ(printed(sink1), printed(sink2));
  EXPECT_NE(printed(sink1).find("mesh 'man': 1 clip lossy"), std::string::npos) << printed(sink1);
}

TEST_F(LossyCook, AClipWhoseQuantisedKeysAreOverTheToleranceStaysExactWithAWarning) {
  // The Fox is modelled in centimetres: 1 mm at 10 cm in its units (0.001 at 0.1) is far
  // finer than the quantised rotations' grid over its 100-unit bones.
  std::ofstream(dir_ / "fox.toml") << "[[mesh]]\nname = \"fox\"\nfile = \"fox/Fox.glb\"\n"
                                      "compression = \"lossy\"\n";
  DiagnosticSink sink;
  const CookOutput out = cook_scene(dir_ / "fox.toml", sink);
  ASSERT_FALSE(sink.has_errors()) << printed(sink);
  ASSERT_EQ(out.pack.rigs.size(), 1u);
  int warnings = 0;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.code != "W0235" || d.severity != Severity::kWarning) continue;
    ++warnings;
    EXPECT_EQ(d.line, 4);
    EXPECT_EQ(d.col, 1);
    EXPECT_NE(d.message.find("kept exact"), std::string::npos) << d.message;
  }
  EXPECT_EQ(warnings, 3) << printed(sink);
  for (const Clip& clip : out.pack.rigs[0].rig.clips()) {
    EXPECT_EQ(clip.storage().compression, ClipCompression::kExact) << clip.name();
  }
}

TEST_F(LossyCook, FinerGridsKeepADeepRigLossyAtTheDefaultTolerance) {
  // CesiumMan's quantised rotations on the tolerance's own grid are over 1 mm at 10 cm (its
  // joints move vertices a body length away): the cook halves the grids' tolerance until
  // quantisation alone uses at most half of it, so the clip still cooks lossy, within the
  // bound, with far fewer key bytes than exact.
  std::ofstream(dir_ / "man.toml") << "[[mesh]]\nname = \"man\"\nfile = \"man/CesiumMan.glb\"\n"
                                      "compression = \"lossy\"\n";
  std::ofstream(dir_ / "exact.toml") << "[[mesh]]\nname = \"man\"\nfile = \"man/CesiumMan.glb\"\n";
  DiagnosticSink sink, exact_sink;
  const CookOutput out = cook_scene(dir_ / "man.toml", sink);
  const CookOutput exact = cook_scene(dir_ / "exact.toml", exact_sink);
  ASSERT_FALSE(sink.has_errors()) << printed(sink);
  ASSERT_EQ(out.pack.rigs.size(), 1u);
  ASSERT_EQ(exact.pack.rigs.size(), 1u);
  EXPECT_NE(printed(sink).find("mesh 'man': 1 clip lossy"), std::string::npos) << printed(sink);
  const Clip& lossy = out.pack.rigs[0].rig.clips()[0];
  const Clip& original = exact.pack.rigs[0].rig.clips()[0];
  ASSERT_EQ(lossy.storage().compression, ClipCompression::kLossy);
  EXPECT_GT(lossy.storage().precision, 0.0f);
  EXPECT_LT(lossy.storage().precision, lossy.storage().tolerance);
  EXPECT_LE(lossy.storage().max_error, 0.001f);
  EXPECT_LE(clip_error(out.pack.rigs[0].rig.skeleton(), original, lossy, 0.1f), 0.001);
  EXPECT_LT(key_count(lossy), key_count(original) / 2);
}

TEST_F(LossyCook, ExactIsTheDefaultAndKeepsEveryKey) {
  DiagnosticSink sink, explicit_sink;
  const CookOutput out = cook_scene(scene("default.toml", "", false), sink);
  const CookOutput given = cook_scene(scene("exact.toml", "exact"), explicit_sink);
  ASSERT_FALSE(sink.has_errors()) << printed(sink);
  for (const Diagnostic& d : sink.diagnostics()) EXPECT_NE(d.code, "W0235") << d.message;
  for (const CookedRig& rig : out.pack.rigs) {
    for (const Clip& clip : rig.rig.clips()) {
      EXPECT_EQ(clip.storage().compression, ClipCompression::kExact) << clip.name();
    }
  }
  EXPECT_EQ(write_pack(out.pack), write_pack(given.pack));
}

}  // namespace
}  // namespace animpack
