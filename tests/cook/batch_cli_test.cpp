// `animpack cook A.toml B.toml -o DIR --jobs N` and `animpack check A.toml B.toml`, run as
// a program: the packs in the folder (the bytes each scene cooks to alone), a depfile per
// pack, the summary, the exit status, the same-stem refusal and --jobs' range.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "fixtures/run_cli.h"

namespace {

namespace fs = std::filesystem;

using animpack::fixture::CliRun;

CliRun run(const std::string& args) { return animpack::fixture::run_cli(ANIMPACK_EXE, args); }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class BatchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("animpack_batchcli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::copy(fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/cook", dir_ / "data",
             fs::copy_options::recursive);
    fs::copy_file(dir_ / "data/good.toml", dir_ / "data/second.toml");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string scene(const char* name) const { return (dir_ / "data" / name).string(); }

  fs::path dir_;
};

TEST_F(BatchCli, CooksSeveralScenesIntoAFolderAsEachCooksAlone) {
  const fs::path out = dir_ / "packs";
  const CliRun r = run("cook " + scene("good.toml") + " " + scene("second.toml") + " -o " +
                       out.string() + " --jobs 2");
  ASSERT_EQ(r.status, 0) << r.output;
  const CliRun alone = run("cook " + scene("good.toml") + " -o " + (dir_ / "alone.anpk").string());
  ASSERT_EQ(alone.status, 0) << alone.output;
  EXPECT_TRUE(slurp(out / "good.anpk") == slurp(dir_ / "alone.anpk"));
  EXPECT_TRUE(slurp(out / "second.anpk") == slurp(dir_ / "alone.anpk"));
  EXPECT_EQ(slurp(out / "good.anpk.d").rfind((out / "good.anpk").string() + ":", 0), 0u);
  EXPECT_NE(slurp(out / "second.anpk.d").find("second.toml"), std::string::npos);
  // The summary: a line per scene, then the totals on 2 threads.
  const size_t good = r.output.find(scene("good.toml") + "  ");
  const size_t second = r.output.find(scene("second.toml") + "  ");
  ASSERT_NE(good, std::string::npos) << r.output;
  ASSERT_NE(second, std::string::npos) << r.output;
  EXPECT_LT(good, second);
  EXPECT_NE(r.output.find("2 scenes: 2 ok, 0 failed", second), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("wall on 2 threads"), std::string::npos) << r.output;
  // One scene into a folder (-o DIR/): the same pack and a depfile, with a summary.
  const CliRun one = run("cook " + scene("good.toml") + " -o " + (dir_ / "one").string() + "/");
  ASSERT_EQ(one.status, 0) << one.output;
  EXPECT_TRUE(slurp(dir_ / "one/good.anpk") == slurp(dir_ / "alone.anpk"));
  EXPECT_TRUE(fs::exists(dir_ / "one/good.anpk.d"));
  EXPECT_NE(one.output.find("1 scene: 1 ok, 0 failed"), std::string::npos) << one.output;
}

TEST_F(BatchCli, AFailedSceneExitsOneAndTheOthersAreWritten) {
  const fs::path out = dir_ / "packs";
  const CliRun r = run("cook " + scene("unknown_clip.toml") + " " + scene("good.toml") + " " +
                       scene("several.toml") + " -o " + out.string() + " --jobs 3");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(fs::exists(out / "good.anpk"));
  EXPECT_FALSE(fs::exists(out / "unknown_clip.anpk"));
  EXPECT_FALSE(fs::exists(out / "several.anpk"));
  // Diagnostics scene by scene in the order given: unknown_clip's before several's.
  const size_t unknown = r.output.find("unknown_clip.toml:13:1: error");
  const size_t several = r.output.find("several.toml:9:1: error");
  ASSERT_NE(unknown, std::string::npos) << r.output;
  ASSERT_NE(several, std::string::npos) << r.output;
  EXPECT_LT(unknown, several);
  EXPECT_NE(r.output.find("3 scenes: 1 ok, 2 failed"), std::string::npos) << r.output;
}

TEST_F(BatchCli, TwoScenesWithOneStemAreRefusedNamingBoth) {
  fs::copy(dir_ / "data", dir_ / "other", fs::copy_options::recursive);
  const std::string other = (dir_ / "other/good.toml").string();
  const CliRun r =
      run("cook " + scene("good.toml") + " " + other + " -o " + (dir_ / "packs").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(scene("good.toml")), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(other), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "packs"));
}

TEST_F(BatchCli, JobsOutsideOneTo256AndADepfileForAFolderAreUsageErrors) {
  const std::string scenes = scene("good.toml") + " " + scene("second.toml");
  for (const char* jobs : {"0", "257", "-1", "two"}) {
    const CliRun r = run("cook " + scenes + " -o " + (dir_ / "packs").string() + " --jobs " + jobs);
    EXPECT_EQ(r.status, 2) << jobs << "\n" << r.output;
    EXPECT_NE(r.output.find("--jobs"), std::string::npos) << r.output;
  }
  const CliRun dep = run("cook " + scenes + " -o " + (dir_ / "packs").string() + " --depfile " +
                         (dir_ / "x.d").string());
  EXPECT_EQ(dep.status, 2) << dep.output;
  EXPECT_NE(dep.output.find("--depfile"), std::string::npos) << dep.output;
  EXPECT_FALSE(fs::exists(dir_ / "packs"));
  EXPECT_EQ(run("cook " + scenes + " -o " + (dir_ / "packs").string() + " --jobs 256").status, 0);
}

TEST_F(BatchCli, CheckChecksEveryScene) {
  const CliRun r = run("check " + scene("good.toml") + " " + scene("unknown_clip.toml") + " " +
                       scene("second.toml") + " --jobs 2");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(scene("good.toml") + ": ok ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(scene("second.toml") + ": ok ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("unknown_clip.toml: 1 error(s), 0 warning(s); check failed"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(run("check " + scene("good.toml") + " " + scene("second.toml")).status, 0);
}

TEST_F(BatchCli, SarifOfSeveralScenesIsOneLogWithARunPerScene) {
  // stdout alone (the per-scene lines and the summary go to stderr with a machine format).
  const fs::path out = dir_ / "log.sarif", err = dir_ / "stderr.txt";
  const std::string command = std::string(ANIMPACK_EXE) + " check " + scene("unknown_clip.toml") +
                              " " + scene("good.toml") + " --format sarif >" + out.string() +
                              " 2>" + err.string();
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 1) << slurp(err);
  const nlohmann::json log = nlohmann::json::parse(slurp(out), nullptr, false);
  ASSERT_TRUE(log.is_object()) << slurp(out);
  EXPECT_EQ(log.value("version", ""), "2.1.0");
  ASSERT_EQ(log["runs"].size(), 2u) << slurp(out);
  // The runs in the order given: the unknown clip's error in the first, none in the second
  // (good.toml has only notes passed through from the glTF reader).
  auto errors = [](const nlohmann::json& run, const char* rule) {
    size_t n = 0;
    for (const nlohmann::json& result : run["results"]) {
      n += result.value("level", "") == "error" && result.value("ruleId", "") == rule ? 1 : 0;
    }
    return n;
  };
  EXPECT_EQ(errors(log["runs"][0], "E0202"), 1u) << log["runs"][0].dump(2);
  for (const nlohmann::json& result : log["runs"][1]["results"]) {
    EXPECT_NE(result.value("level", ""), "error") << result.dump(2);
  }
}

}  // namespace
