// `animpack cook` and its outputs: never over an input, a device, a FIFO or the other
// output; a failure leaves the previous pack and depfile as they were; a signal leaves no
// temporary file; the pack does not depend on how the scene path was spelled.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
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

class CookCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("animpack_iocli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // A copy of the cook test data: the tests try to write over inputs.
    fs::copy(fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/cook", dir_ / "data",
             fs::copy_options::recursive);
    scene_ = dir_ / "data/good.toml";
  }
  void TearDown() override { fs::remove_all(dir_); }

  int temp_files() const {
    int n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      if (e.path().filename().string().find(".tmp") != std::string::npos) ++n;
    }
    return n;
  }

  fs::path dir_, scene_;
};

TEST_F(CookCli, RefusesOutputEqualToAnInput) {
  fs::create_hard_link(scene_, dir_ / "link.toml");
  const fs::path inputs[] = {scene_, dir_ / "data/models/../models/SimpleSkin.gltf",
                             dir_ / "data/./art/gabe-idle-run.png", dir_ / "link.toml"};
  for (const fs::path& input : inputs) {
    const std::string before = slurp(input);
    const CliRun r = run("cook " + scene_.string() + " -o " + input.string());
    EXPECT_EQ(r.status, 2) << input << "\n" << r.output;
    EXPECT_NE(r.output.find("refusing"), std::string::npos) << r.output;
    EXPECT_EQ(slurp(input), before) << input << " was overwritten";
  }
  // The depfile neither.
  const std::string before = slurp(scene_);
  const CliRun r = run("cook " + scene_.string() + " -o " + (dir_ / "out.anpk").string() +
                       " --depfile " + scene_.string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(slurp(scene_), before);
  EXPECT_FALSE(fs::exists(dir_ / "out.anpk"));
  EXPECT_EQ(temp_files(), 0);
}

TEST_F(CookCli, RefusesADepfileEqualToThePack) {
  const fs::path out = dir_ / "out.anpk";
  for (const std::string& dep : {out.string(), (dir_ / "./data/../out.anpk").string()}) {
    const CliRun r = run("cook " + scene_.string() + " -o " + out.string() + " --depfile " + dep);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_FALSE(fs::exists(out)) << dep;
  }
  // Also when the pack exists already (compared by inode then).
  ASSERT_EQ(run("cook " + scene_.string() + " -o " + out.string()).status, 0);
  const std::string pack = slurp(out);
  fs::create_hard_link(out, dir_ / "same.d");
  EXPECT_EQ(run("cook " + scene_.string() + " -o " + out.string() + " --depfile " +
                (dir_ / "same.d").string())
                .status,
            2);
  EXPECT_EQ(slurp(out), pack);
}

TEST_F(CookCli, RefusesToReplaceAFifoAFolderOrADeviceWithAPack) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo.anpk").c_str(), 0600), 0);
  fs::create_directories(dir_ / "folder.anpk");
  fs::create_symlink("/dev/null", dir_ / "null.anpk");
  for (const char* name : {"fifo.anpk", "folder.anpk", "null.anpk"}) {
    const CliRun r = run("cook " + scene_.string() + " -o " + (dir_ / name).string());
    EXPECT_EQ(r.status, 2) << name << "\n" << r.output;
    EXPECT_NE(r.output.find("not a regular file"), std::string::npos) << r.output;
  }
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(dir_ / "fifo.anpk")));
  EXPECT_TRUE(fs::is_directory(dir_ / "folder.anpk"));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "null.anpk")));
  const CliRun dep = run("cook " + scene_.string() + " -o " + (dir_ / "ok.anpk").string() +
                         " --depfile " + (dir_ / "fifo.anpk").string());
  EXPECT_EQ(dep.status, 2) << dep.output;
  EXPECT_FALSE(fs::exists(dir_ / "ok.anpk"));
  EXPECT_EQ(temp_files(), 0);
}

TEST_F(CookCli, AFailedDepfileWriteLeavesThePreviousPackAndDepfile) {
  const fs::path out = dir_ / "out.anpk", dep = dir_ / "out.d";
  std::ofstream(out) << "the previous pack";
  std::ofstream(dep) << "the previous depfile";
  CliRun r = run("cook " + scene_.string() + " -o " + out.string() + " --depfile " +
                 (dir_ / "no/such/folder/out.d").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(slurp(out), "the previous pack");
  r = run("cook " + scene_.string() + " -o " + (dir_ / "no/such/folder/out.anpk").string() +
          " --depfile " + dep.string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(slurp(dep), "the previous depfile");
  EXPECT_EQ(temp_files(), 0);
  // And when both can be written, both are.
  r = run("cook " + scene_.string() + " -o " + out.string() + " --depfile " + dep.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(slurp(dep).rfind(out.string() + ":", 0), 0u) << slurp(dep);
}

TEST_F(CookCli, AnAtlasFolderOfASceneOutsideTheCurrentFolderIsADiagnosticNotAnAbort) {
  std::ofstream(dir_ / "data/jpg.toml") << "[[object]]\nname = \"a\"\n\n[object.animation]\n"
                                           "atlas = \"art.jpg\"\ngrid = [1, 1]\nfps = 8.0\n";
  fs::create_directories(dir_ / "data/folder.png");
  std::ofstream(dir_ / "data/folder.toml") << "[[object]]\nname = \"a\"\n\n[object.animation]\n"
                                              "atlas = \"folder.png\"\ngrid = [1, 1]\nfps = 8.0\n";
  CliRun r = run("check " + (dir_ / "data/jpg.toml").string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("[E0107]"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("[E0205]"), std::string::npos) << r.output;
  r = run("check " + (dir_ / "data/folder.toml").string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("folder.toml:5:1: error: atlas 'folder.png': "), std::string::npos)
      << r.output;
}

TEST_F(CookCli, ASceneThatIsAFifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((dir_ / "scene.toml").c_str(), 0600), 0);
  const CliRun r =
      run("cook " + (dir_ / "scene.toml").string() + " -o " + (dir_ / "out.anpk").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("FIFO"), std::string::npos) << r.output;
}

TEST_F(CookCli, ANulOrEscapeInANameIsEscapedInEveryFormat) {
  std::ofstream(dir_ / "data/nul.toml")
      << "[[mesh]]\nname = \"a\\u0000b\\u001b[2J\"\nfile = \"missing.gltf\"\n";
  const CliRun gcc = run("check " + (dir_ / "data/nul.toml").string());
  EXPECT_EQ(gcc.status, 1) << gcc.output;
  EXPECT_NE(gcc.output.find("mesh 'a\\x00b\\x1b[2J': missing.gltf"), std::string::npos)
      << gcc.output;
  EXPECT_EQ(gcc.output.find('\0'), std::string::npos);
  EXPECT_EQ(gcc.output.find('\x1b'), std::string::npos);
  const CliRun github = run("check --format github " + (dir_ / "data/nul.toml").string());
  EXPECT_NE(github.output.find("mesh 'a\\x00b\\x1b[2J': missing.gltf"), std::string::npos)
      << github.output;
  EXPECT_EQ(github.output.find('\0'), std::string::npos);
  const CliRun json = run("check --format json " + (dir_ / "data/nul.toml").string());
  EXPECT_NE(json.output.find("mesh 'a\\u0000b\\u001b[2J': missing.gltf"), std::string::npos)
      << json.output;
}

TEST_F(CookCli, TheSameSceneCooksToTheSameBytesHoweverItsPathIsSpelled) {
  const fs::path a = dir_ / "a.anpk";
  ASSERT_EQ(run("cook " + scene_.string() + " -o " + a.string()).status, 0);
  // From other current folders, with relative paths.
  using animpack::fixture::run_cli;
  ASSERT_EQ(
      run_cli("cd " + dir_.string() + " && " ANIMPACK_EXE, "cook data/good.toml -o b.anpk").status,
      0);
  ASSERT_EQ(run_cli("cd " + (dir_ / "data/models").string() + " && " ANIMPACK_EXE,
                    "cook ../good.toml -o ../../c.anpk")
                .status,
            0);
  const std::string bytes = slurp(a);
  EXPECT_EQ(slurp(dir_ / "b.anpk"), bytes);
  EXPECT_EQ(slurp(dir_ / "c.anpk"), bytes);
  EXPECT_EQ(bytes.find(dir_.string()), std::string::npos) << "an absolute path in the pack";
  EXPECT_NE(bytes.find("models/SimpleSkin.gltf"), std::string::npos);
}

TEST_F(CookCli, AbsoluteAssetPathsCookToTheSameBytesAsRelativeOnes) {
  // Build systems pass absolute paths; the pack records each asset relative to the scene's
  // folder, so it is the same wherever the scene lies.
  std::string text = slurp(scene_);
  const std::string folder = (dir_ / "data").string();
  for (const std::string key : {"file = \"", "atlas = \""}) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
      text.insert(at + key.size(), folder + "/");
    }
  }
  ASSERT_NE(text.find("file = \"" + folder + "/models/SimpleSkin.gltf\""), std::string::npos);
  ASSERT_NE(text.find("atlas = \"" + folder + "/art/"), std::string::npos);
  const fs::path absolute_scene = dir_ / "data/absolute.toml";
  std::ofstream(absolute_scene, std::ios::binary) << text;
  const fs::path a = dir_ / "relative.anpk", b = dir_ / "absolute.anpk";
  ASSERT_EQ(run("cook " + scene_.string() + " -o " + a.string()).status, 0);
  const auto cooked = run("cook " + absolute_scene.string() + " -o " + b.string());
  ASSERT_EQ(cooked.status, 0) << cooked.output;
  const std::string bytes = slurp(b);
  EXPECT_EQ(bytes, slurp(a));
  EXPECT_EQ(bytes.find(folder), std::string::npos) << "an absolute path in the pack";
}

TEST_F(CookCli, ASigtermDuringACookLeavesNoTemporaryFile) {
  // Where the signal lands is a race (before, during or after the write); whichever it
  // is, no temporary file may remain.
  for (int delay_us : {0, 20000, 60000}) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const std::string out = (dir_ / "out.anpk").string();
      ::execl(ANIMPACK_EXE, ANIMPACK_EXE, "cook", scene_.c_str(), "--no-compress", "-o",
              out.c_str(), "--depfile", (out + ".d").c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::usleep(static_cast<useconds_t>(delay_us));
    ::kill(child, SIGTERM);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) << status;
    EXPECT_EQ(temp_files(), 0) << "after a SIGTERM " << delay_us << " us in";
  }
}

}  // namespace
