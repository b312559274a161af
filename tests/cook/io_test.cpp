// The cooker's inputs and outputs: every input must be a regular file of bounded size
// (folders, FIFOs, devices and huge sparse files are refused before anything is read),
// nothing escapes cook_scene, depfiles escape what Make and Ninja need, packs hold no
// absolute path, and temporary files never outlive a failure or a signal.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "animpack/compiler/atlas_import.h"
#include "animpack/compiler/cook.h"
#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/input_file.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/compiler/scene.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

class CookInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("animpack_io_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  void fifo(const std::string& name) { ASSERT_EQ(::mkfifo((dir_ / name).c_str(), 0600), 0); }
  void sparse(const std::string& name, off_t size) {
    const int fd = ::open((dir_ / name).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, size), 0);
    ::close(fd);
  }

  // A scene with one sprite object whose atlas is `atlas`; the atlas key is on line 5.
  fs::path sprite_scene(const std::string& atlas) {
    return write("scene.toml", "[[object]]\nname = \"hero\"\n\n[object.animation]\natlas = \"" +
                                   atlas + "\"\ngrid = [1, 1]\nfps = 8.0\n");
  }
  // A scene with one mesh whose file is `file`; the file key is on line 3.
  fs::path mesh_scene(const std::string& file) {
    return write("scene.toml", "[[mesh]]\nname = \"m\"\nfile = \"" + file +
                                   "\"\n\n[[object]]\nname = \"o\"\nmesh = \"m\"\n");
  }

  // The errors of cooking `scene`, as "CODE LINE:COL" lines, with every message after.
  static std::string errors_of(const fs::path& scene, std::string* messages = nullptr) {
    DiagnosticSink sink;
    (void)cook_scene(scene, sink);
    sink.sort();
    std::string out;
    for (const Diagnostic& d : sink.diagnostics()) {
      if (d.severity == Severity::kNote) continue;
      out += d.code + " " + std::to_string(d.line) + ":" + std::to_string(d.col) + "\n";
      if (messages) *messages += d.message + "\n";
    }
    return out;
  }

  fs::path dir_;
};

TEST_F(CookInput, AnAtlasThatIsAFolderIsRefusedAtTheAtlasKey) {
  fs::create_directories(dir_ / "art.png");
  std::string messages;
  EXPECT_EQ(errors_of(sprite_scene("art.png"), &messages), "E0205 5:1\n");
  EXPECT_NE(messages.find("is a folder"), std::string::npos) << messages;
}

TEST_F(CookInput, AnAtlasThatIsAFifoIsRefusedWithoutBlocking) {
  fifo("art.png");
  std::string messages;
  EXPECT_EQ(errors_of(sprite_scene("art.png"), &messages), "E0205 5:1\n");
  EXPECT_NE(messages.find("is a FIFO"), std::string::npos) << messages;
}

TEST_F(CookInput, AnAtlasThatIsADeviceIsRefused) {
  fs::create_symlink("/dev/zero", dir_ / "zero.png");
  std::string messages;
  EXPECT_EQ(errors_of(sprite_scene("zero.png"), &messages), "E0205 5:1\n");
  EXPECT_NE(messages.find("character device"), std::string::npos) << messages;
}

TEST_F(CookInput, ANonPngAtlasOutsideTheCurrentFolderIsOneErrorAndNothingIsRead) {
  // The scene lies in dir_, not in the current folder: the refused atlas path must not
  // become the scene's folder itself.
  EXPECT_EQ(errors_of(sprite_scene("art.jpg")), "E0107 5:1\n");
  EXPECT_EQ(errors_of(sprite_scene("")), "E0109 5:1\n");
}

TEST_F(CookInput, AHugeSparseAtlasIsRefusedBeforeItIsRead) {
  sparse("huge.png", off_t{2500} << 20);
  std::string messages;
  EXPECT_EQ(errors_of(sprite_scene("huge.png"), &messages), "E0205 5:1\n");
  EXPECT_NE(messages.find("the limit is " + std::to_string(kMaxAtlasFileBytes)), std::string::npos)
      << messages;
}

TEST_F(CookInput, AMeshFileThatIsAFolderFifoOrDeviceIsRefusedAtTheFileKey) {
  fs::create_directories(dir_ / "folder.gltf");
  fifo("fifo.glb");
  fs::create_symlink("/dev/zero", dir_ / "zero.gltf");
  for (const char* file : {"folder.gltf", "fifo.glb", "zero.gltf"}) {
    std::string messages;
    EXPECT_EQ(errors_of(mesh_scene(file), &messages), "E0201 3:1\n") << file;
    EXPECT_NE(messages.find("not a"), std::string::npos) << file << ": " << messages;
  }
}

TEST_F(CookInput, AHugeSparseGlbIsRefusedBeforeItIsRead) {
  sparse("huge.glb", off_t{1100} << 20);
  std::string messages;
  EXPECT_EQ(errors_of(mesh_scene("huge.glb"), &messages), "E0201 3:1\n");
  EXPECT_NE(messages.find("limit"), std::string::npos) << messages;
}

TEST_F(CookInput, ABufferFileThatIsAFifoIsRefusedInTheGltf) {
  fifo("data.bin");
  write("m.gltf", R"({"asset":{"version":"2.0"},"buffers":[{"uri":"data.bin","byteLength":4}]})");
  DiagnosticSink sink;
  (void)cook_scene(mesh_scene("m.gltf"), sink);
  bool found = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.code == "E0201" && d.message.find("is a FIFO") != std::string::npos) found = true;
  }
  EXPECT_TRUE(found) << format_diagnostics(sink, DiagnosticFormat::kGcc);
}

TEST_F(CookInput, ASceneThatIsAFifoFolderOrDeviceIsRefused) {
  fifo("fifo.toml");
  fs::create_directories(dir_ / "folder.toml");
  for (const fs::path& scene : {dir_ / "fifo.toml", dir_ / "folder.toml", fs::path("/dev/zero")}) {
    DiagnosticSink sink;
    (void)read_scene(scene, sink);
    ASSERT_EQ(sink.diagnostics().size(), 1u) << scene;
    EXPECT_EQ(sink.diagnostics()[0].code, "E0002") << scene;
    EXPECT_NE(sink.diagnostics()[0].message.find("not a"), std::string::npos)
        << sink.diagnostics()[0].message;
  }
}

TEST_F(CookInput, ASceneLargerThanTheLimitIsRefused) {
  sparse("big.toml", static_cast<off_t>(kMaxSceneFileBytes + 1));
  DiagnosticSink sink;
  (void)read_scene(dir_ / "big.toml", sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].code, "E0002");
  EXPECT_NE(sink.diagnostics()[0].message.find("limit"), std::string::npos);
}

TEST_F(CookInput, ReadInputFileReadsRegularFilesAndRefusesTheRest) {
  write("a.txt", "hello");
  InputFile in = read_input_file(dir_ / "a.txt", 5);
  EXPECT_TRUE(in.ok()) << in.error;
  EXPECT_EQ(std::string(in.bytes.begin(), in.bytes.end()), "hello");
  EXPECT_NE(read_input_file(dir_ / "a.txt", 4).error.find("the limit is 4"), std::string::npos);
  EXPECT_EQ(read_input_file(dir_ / "a.txt", 4, 3).bytes.size(), 3u) << "a prefix within the limit";
  EXPECT_TRUE(read_input_file(dir_ / "a.txt", 100, 6).too_short);
  EXPECT_NE(read_input_file(dir_ / "none", 100).error.find("does not exist"), std::string::npos);
  EXPECT_NE(read_input_file("/dev/null", 100).error.find("character device"), std::string::npos);
  EXPECT_FALSE(read_input_file("", 100).ok());
}

TEST(PackSourceName, IsNeverAnAbsolutePath) {
  EXPECT_EQ(pack_source_name("/work/scene", "models/./a.gltf"), "models/a.gltf");
  EXPECT_EQ(pack_source_name("/work/scene", "/work/scene/models/a.gltf"), "models/a.gltf");
  EXPECT_EQ(pack_source_name("/work/scene", "/elsewhere/b.png"), "b.png");
  EXPECT_EQ(pack_source_name("/work/scene", "/work/scenery/b.png"), "b.png");
  EXPECT_EQ(pack_source_name("", fs::absolute("art/c.png").string()), "art/c.png")
      << "a scene in the current folder";
}

TEST(Depfile, EscapesSpacesTabsColonsHashesAndDollarsForMakeAndNinja) {
  const std::optional<std::string> dep =
      make_depfile("out dir/a:b.anpk", {"in #1/$x.toml", "c:\\ d\\e\ttab.gltf"});
  ASSERT_TRUE(dep);
  EXPECT_EQ(*dep,
            "out\\ dir/a\\:b.anpk: \\\n  in\\ \\#1/$$x.toml \\\n  c\\:\\\\\\ d\\e\\\ttab.gltf\n");
}

TEST(Depfile, RefusesAPathWithALineBreak) {
  std::string error;
  EXPECT_FALSE(make_depfile("out.anpk", {"a\nb.toml"}, &error));
  EXPECT_NE(error.find("a\nb.toml"), std::string::npos) << error;
  EXPECT_FALSE(make_depfile("out\r.anpk", {"a.toml"}, &error));
}

// Pending temporary files in dir.
int temp_files_in(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp") != std::string::npos) ++n;
  }
  return n;
}

TEST_F(CookInput, APendingFileLeavesNothingUntilCommittedAndNothingWhenDiscarded) {
  const std::vector<uint8_t> bytes = {1, 2, 3};
  {
    PendingFile f;
    ASSERT_EQ(f.write(dir_ / "out.bin", bytes), "");
    EXPECT_FALSE(fs::exists(dir_ / "out.bin"));
    EXPECT_EQ(temp_files_in(dir_), 1);
  }
  EXPECT_EQ(temp_files_in(dir_), 0) << "the destructor removes it";
  PendingFile f;
  ASSERT_EQ(f.write(dir_ / "out.bin", bytes), "");
  ASSERT_EQ(f.commit(), "");
  EXPECT_EQ(fs::file_size(dir_ / "out.bin"), 3u);
  EXPECT_EQ(temp_files_in(dir_), 0);
  PendingFile g;
  ASSERT_EQ(g.write(dir_ / "out.bin", bytes), "");
  remove_pending_temp_files();  // what the signal handler does
  EXPECT_EQ(temp_files_in(dir_), 0);
}

TEST_F(CookInput, ASignalRemovesPendingTemporaryFilesAndStillEndsTheProcess) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    install_temp_file_cleanup();
    static PendingFile a, b;  // never destroyed: only the handler can remove them
    const std::vector<uint8_t> bytes(1 << 16, 7);
    if (!a.write(dir_ / "pack.anpk", bytes).empty() || !b.write(dir_ / "pack.d", bytes).empty())
      ::_exit(3);
    std::raise(SIGTERM);
    ::_exit(4);  // not reached: the handler re-raises SIGTERM with the default action
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(temp_files_in(dir_), 0);
  EXPECT_FALSE(fs::exists(dir_ / "pack.anpk"));
}

}  // namespace
}  // namespace animpack
