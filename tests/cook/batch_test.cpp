// Batch cooking (batch_cook.h): scenes cooked on several threads give the bytes each gives
// alone, reports come in scene order with each scene's diagnostics whole, two scenes with
// one stem are refused before anything is cooked, a failed scene leaves its previous
// outputs alone, and the cook's shared state (temporary-file slots, Assimp's trial reads)
// holds up under threads.
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <assimp/Exporter.hpp>
#include <assimp/Importer.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "animpack/compiler/batch_cook.h"
#include "animpack/compiler/pack_writer.h"

namespace {

namespace fs = std::filesystem;
using namespace animpack;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// A depfile's inputs: what follows "OUTPUT: " (the output's name differs between folders).
std::string depfile_inputs(const std::string& text) {
  const size_t colon = text.find(": ");
  return colon == std::string::npos ? text : text.substr(colon + 2);
}

class BatchCook : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("animpack_batch_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const fs::path src = ANIMPACK_SOURCE_DIR;
    fs::copy(src / "tests/data/cook", dir_ / "data", fs::copy_options::recursive);
    // The worked examples, each scene under a name of its own (all are scene.toml).
    fs::copy(src / "assets", dir_ / "assets", fs::copy_options::recursive);
    for (const char* name : {"demo", "fox", "character"}) {
      fs::copy_file(dir_ / "assets" / name / "scene.toml",
                    dir_ / "assets" / name / (std::string(name) + ".toml"));
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path asset_scene(const char* name) const {
    return dir_ / "assets" / name / (std::string(name) + ".toml");
  }

  // A scene over RiggedSimple written as Collada by Assimp's exporter (so the cook runs
  // Assimp, and its trial read in a process of its own), as `stem`.toml.
  fs::path collada_scene(const std::string& stem) {
    const fs::path dae = dir_ / "dae" / "RiggedSimple.dae";
    if (!fs::exists(dae)) {
      fs::create_directories(dae.parent_path());
      Assimp::Importer importer;
      const fs::path gltf =
          fs::path(ANIMPACK_CORPUS_DIR) / "gltf/RiggedSimple/glTF/RiggedSimple.gltf";
      const aiScene* read = importer.ReadFile(gltf.string(), aiProcess_Triangulate);
      EXPECT_NE(read, nullptr) << importer.GetErrorString();
      if (!read) return {};
      std::unique_ptr<aiScene> scene(importer.GetOrphanedScene());
      Assimp::Exporter exporter;
      EXPECT_EQ(exporter.Export(scene.get(), "collada", dae.string()), AI_SUCCESS)
          << exporter.GetErrorString();
    }
    const fs::path scene = dir_ / "dae" / (stem + ".toml");
    write_text(scene,
               "[[mesh]]\nname = \"rig\"\nfile = \"RiggedSimple.dae\"\n\n"
               "[[object]]\nname = \"figure\"\nmesh = \"rig\"\n");
    return scene;
  }

  // A scene naming an FBX file Assimp cannot read (the trial read fails).
  fs::path broken_fbx_scene() {
    fs::create_directories(dir_ / "fbx");
    write_text(dir_ / "fbx/broken.fbx", "; FBX 7.4.0 project file\nthis is not FBX at all {{{\n");
    const fs::path scene = dir_ / "fbx/broken_fbx.toml";
    write_text(scene,
               "[[mesh]]\nname = \"m\"\nfile = \"broken.fbx\"\n\n"
               "[[object]]\nname = \"o\"\nmesh = \"m\"\n");
    return scene;
  }

  int temp_files() const {
    int n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      if (e.path().filename().string().find(".tmp") != std::string::npos) ++n;
    }
    return n;
  }

  fs::path dir_;
};

TEST_F(BatchCook, PacksOnFourThreadsAreByteIdenticalToEachCookedAlone) {
  const std::vector<fs::path> scenes = {
      asset_scene("demo"),      dir_ / "data/good.toml", asset_scene("fox"),
      asset_scene("character"), collada_scene("dae_a"),  collada_scene("dae_b"),
      collada_scene("dae_c"),
  };
  BatchSettings settings;
  settings.output_dir = dir_ / "batch";
  settings.jobs = 4;
  const BatchReport batch = cook_batch(scenes, settings);
  ASSERT_TRUE(batch.refused.empty()) << batch.refused;
  ASSERT_EQ(batch.scenes.size(), scenes.size());
  EXPECT_EQ(batch.jobs, 4u);
  EXPECT_EQ(batch.exit_status(), 0);
  fs::create_directories(dir_ / "alone");
  for (size_t i = 0; i < scenes.size(); ++i) {
    const CookReport& b = batch.scenes[i];
    ASSERT_EQ(b.status, CookStatus::kOk) << scenes[i] << "\n" << b.diagnostics << b.message;
    EXPECT_EQ(b.job.scene, scenes[i]);
    EXPECT_EQ(b.job.output, settings.output_dir / (scenes[i].stem().string() + ".anpk"));
    const fs::path out = dir_ / "alone" / (scenes[i].stem().string() + ".anpk");
    const CookReport alone = cook_one({scenes[i], out, fs::path(out.string() + ".d")}, {});
    ASSERT_EQ(alone.status, CookStatus::kOk) << alone.diagnostics << alone.message;
    const std::string bytes = slurp(b.job.output);
    EXPECT_EQ(bytes.size(), b.bytes);
    EXPECT_EQ(alone.bytes, b.bytes) << scenes[i];
    EXPECT_TRUE(bytes == slurp(out)) << scenes[i] << ": the batch's pack differs";
    const std::string dep = slurp(b.job.output.string() + ".d");
    EXPECT_EQ(dep.rfind(b.job.output.string() + ":", 0), 0u) << dep;
    EXPECT_EQ(depfile_inputs(dep), depfile_inputs(slurp(out.string() + ".d"))) << scenes[i];
    EXPECT_EQ(b.inputs, alone.inputs);
    EXPECT_GT(b.wall_ms, 0.0);
  }
  EXPECT_EQ(temp_files(), 0);
}

TEST_F(BatchCook, ReportsComeInSceneOrderWithEachScenesDiagnosticsWhole) {
  // The slowest scene first: the others finish before it and still wait their turn.
  const std::vector<fs::path> scenes = {asset_scene("demo"),     dir_ / "data/unknown_clip.toml",
                                        dir_ / "data/good.toml", dir_ / "data/several.toml",
                                        broken_fbx_scene(),      asset_scene("fox")};
  BatchSettings settings;
  settings.output_dir = dir_ / "out";
  settings.jobs = 4;
  std::vector<fs::path> order;
  const BatchReport batch =
      cook_batch(scenes, settings, [&](const CookReport& r) { order.push_back(r.job.scene); });
  ASSERT_TRUE(batch.refused.empty()) << batch.refused;
  EXPECT_EQ(order, scenes);
  ASSERT_EQ(batch.scenes.size(), scenes.size());
  const CookStatus expected[] = {CookStatus::kOk,     CookStatus::kFailed, CookStatus::kOk,
                                 CookStatus::kFailed, CookStatus::kFailed, CookStatus::kOk};
  for (size_t i = 0; i < scenes.size(); ++i) {
    const CookReport& r = batch.scenes[i];
    EXPECT_EQ(r.status, expected[i]) << scenes[i] << "\n" << r.diagnostics << r.message;
    EXPECT_EQ(fs::exists(r.job.output), expected[i] == CookStatus::kOk) << scenes[i];
    EXPECT_EQ(fs::exists(r.job.depfile), expected[i] == CookStatus::kOk) << scenes[i];
  }
  EXPECT_EQ(batch.exit_status(), 1);
  // Each failed scene's report holds its own diagnostics and no other scene's.
  const CookReport& unknown = batch.scenes[1];
  const CookReport& several = batch.scenes[3];
  const CookReport& fbx = batch.scenes[4];
  EXPECT_NE(unknown.diagnostics.find("E0202"), std::string::npos) << unknown.diagnostics;
  EXPECT_NE(unknown.diagnostics.find("unknown_clip.toml:13:1"), std::string::npos);
  EXPECT_EQ(unknown.diagnostics.find("several.toml"), std::string::npos);
  for (const char* code : {"E0201", "E0202", "E0203", "E0206"}) {
    EXPECT_NE(several.diagnostics.find(code), std::string::npos) << code;
  }
  EXPECT_EQ(several.diagnostics.find("unknown_clip.toml"), std::string::npos);
  EXPECT_NE(fbx.diagnostics.find("broken.fbx"), std::string::npos) << fbx.diagnostics;
  EXPECT_EQ(fbx.diagnostics.find("several.toml"), std::string::npos);
  EXPECT_EQ(batch.scenes[0].diagnostics.find("E0"), std::string::npos)  // notes only
      << batch.scenes[0].diagnostics;
  EXPECT_EQ(batch.scenes[0].diagnostics.find(".toml"), std::string::npos);
  EXPECT_NE(unknown.message.find("no pack written"), std::string::npos) << unknown.message;
  // The summary: a line per scene in order, then the totals.
  const std::string summary = format_batch_summary(batch);
  size_t at = 0;
  for (size_t i = 0; i < scenes.size(); ++i) {
    const size_t line = summary.find(scenes[i].string(), at);
    ASSERT_NE(line, std::string::npos) << summary;
    const size_t end = summary.find('\n', line);
    const std::string text = summary.substr(line, end - line);
    EXPECT_NE(text.find(expected[i] == CookStatus::kOk ? " ok " : " failed "), std::string::npos)
        << text;
    at = end;
  }
  EXPECT_NE(summary.find("6 scenes: 3 ok, 3 failed", at), std::string::npos) << summary;
  EXPECT_EQ(temp_files(), 0);
}

TEST_F(BatchCook, RefusesTwoScenesWithOneStemBeforeCookingAny) {
  fs::create_directories(dir_ / "other");
  fs::copy_file(dir_ / "data/good.toml", dir_ / "other/good.toml");
  const std::vector<fs::path> scenes = {dir_ / "data/unknown_clip.toml", dir_ / "data/good.toml",
                                        dir_ / "other/good.toml"};
  BatchSettings settings;
  settings.output_dir = dir_ / "out";
  int reports = 0;
  const BatchReport batch = cook_batch(scenes, settings, [&](const CookReport&) { ++reports; });
  EXPECT_NE(batch.refused.find((dir_ / "data/good.toml").string()), std::string::npos)
      << batch.refused;
  EXPECT_NE(batch.refused.find((dir_ / "other/good.toml").string()), std::string::npos)
      << batch.refused;
  EXPECT_TRUE(batch.scenes.empty());
  EXPECT_EQ(reports, 0);
  EXPECT_EQ(batch.exit_status(), 2);
  EXPECT_FALSE(fs::exists(dir_ / "out"));  // nothing made, nothing written
  // The same scene twice is two scenes with one stem too.
  const std::vector<fs::path> twice = {dir_ / "data/good.toml", dir_ / "data/good.toml"};
  EXPECT_FALSE(cook_batch(twice, settings).refused.empty());
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(BatchCook, AFailedSceneLeavesItsExistingOutputsUntouched) {
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  write_text(out / "unknown_clip.anpk", "the previous pack");
  write_text(out / "unknown_clip.anpk.d", "the previous depfile");
  const std::vector<fs::path> scenes = {dir_ / "data/good.toml", dir_ / "data/unknown_clip.toml"};
  BatchSettings settings;
  settings.output_dir = out;
  settings.jobs = 2;
  const BatchReport batch = cook_batch(scenes, settings);
  ASSERT_EQ(batch.scenes.size(), 2u);
  EXPECT_EQ(batch.scenes[0].status, CookStatus::kOk);
  EXPECT_EQ(batch.scenes[1].status, CookStatus::kFailed);
  EXPECT_EQ(slurp(out / "unknown_clip.anpk"), "the previous pack");
  EXPECT_EQ(slurp(out / "unknown_clip.anpk.d"), "the previous depfile");
  EXPECT_GT(fs::file_size(out / "good.anpk"), 0u);
  EXPECT_EQ(temp_files(), 0);
}

TEST_F(BatchCook, CheckingWritesNothingAndJobsAreBounded) {
  const std::vector<fs::path> scenes = {dir_ / "data/good.toml", dir_ / "data/unknown_clip.toml"};
  BatchSettings settings;
  settings.cook.write_outputs = false;
  settings.jobs = 1000;  // more than kMaxBatchJobs and than there are scenes
  const BatchReport batch = cook_batch(scenes, settings);
  ASSERT_EQ(batch.scenes.size(), 2u);
  EXPECT_EQ(batch.jobs, 2u);
  EXPECT_EQ(batch.scenes[0].status, CookStatus::kOk);
  EXPECT_NE(batch.scenes[0].message.find(": ok ("), std::string::npos) << batch.scenes[0].message;
  EXPECT_EQ(batch.scenes[1].status, CookStatus::kFailed);
  EXPECT_NE(batch.scenes[1].message.find("check failed"), std::string::npos);
  for (const auto& e : fs::recursive_directory_iterator(dir_)) {
    EXPECT_NE(e.path().extension(), ".anpk") << e.path();
  }
  settings.jobs = 0;  // the cores, but never more than the scenes
  EXPECT_LE(cook_batch(scenes, settings).jobs, 2u);
  // Checking writes nothing, so two scenes may share a stem.
  fs::copy(dir_ / "data", dir_ / "other", fs::copy_options::recursive);
  const std::vector<fs::path> same = {dir_ / "data/good.toml", dir_ / "other/good.toml"};
  const BatchReport checked = cook_batch(same, settings);
  EXPECT_TRUE(checked.refused.empty()) << checked.refused;
  EXPECT_EQ(checked.exit_status(), 0);
}

TEST_F(BatchCook, AMissingSceneIsRefusedAndTheOthersStillCook) {
  const std::vector<fs::path> scenes = {dir_ / "data/nope.toml", dir_ / "data/good.toml"};
  BatchSettings settings;
  settings.output_dir = dir_ / "out";
  const BatchReport batch = cook_batch(scenes, settings);
  ASSERT_EQ(batch.scenes.size(), 2u);
  EXPECT_EQ(batch.scenes[0].status, CookStatus::kRefused);
  EXPECT_NE(batch.scenes[0].message.find("no such file"), std::string::npos);
  EXPECT_EQ(batch.scenes[1].status, CookStatus::kOk);
  EXPECT_EQ(batch.exit_status(), 2);
}

TEST(PendingFileThreads, TwelveThreadsWriteFilesAtOnce) {
  const fs::path dir = fs::temp_directory_path() / ("animpack_pending_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  constexpr int kThreads = 12, kFiles = 40;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int f = 0; f < kFiles && errors[t].empty(); ++f) {
        const std::string text = "thread " + std::to_string(t) + " file " + std::to_string(f);
        const fs::path path = dir / (std::to_string(t) + "_" + std::to_string(f));
        PendingFile file;
        errors[t] = file.write(path, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
        if (errors[t].empty()) errors[t] = file.commit();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << t;
  for (int t = 0; t < kThreads; ++t) {
    for (int f = 0; f < kFiles; ++f) {
      EXPECT_EQ(slurp(dir / (std::to_string(t) + "_" + std::to_string(f))),
                "thread " + std::to_string(t) + " file " + std::to_string(f));
    }
  }
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, size_t{kThreads * kFiles});  // no temporary file left
  fs::remove_all(dir);
}

}  // namespace
