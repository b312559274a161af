// Step 6's scene keys for lossy clips: `compression`, `tolerance` and `distance` at the top
// level (every mesh's default) and per [[mesh]], read with their positions, and every bad
// value an E0181 / E0182 at the key (docs/scene-format.md, "Clip compression").
#include <gtest/gtest.h>

#include <string>

#include "animpack/compiler/scene.h"
#include "scene/scene_read.h"

namespace animpack {
namespace {

using scene_test::all;
using scene_test::Read;

Read read(const std::string& text) { return scene_test::read(text, "compression.toml"); }

int count(const Read& r, std::string_view code) {
  int n = 0;
  for (const Diagnostic& d : r.diagnostics) n += d.code == code;
  return n;
}

// The one diagnostic of `r`, expected to be `code` at line:col with `words` in its message.
void expect_one(const Read& r, std::string_view code, int line, int col, std::string_view words) {
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.code, code) << all(r);
  EXPECT_EQ(d.line, line) << all(r);
  EXPECT_EQ(d.col, col) << all(r);
  EXPECT_NE(d.message.find(words), std::string::npos) << all(r);
}

TEST(SceneCompression, MeshesAreExactAtOneMillimetreAtTenCentimetresByDefault) {
  const Read r = read("[[mesh]]\nname = \"m\"\nfile = \"m.glb\"\n");
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  ASSERT_EQ(r.scene.meshes.size(), 1u);
  EXPECT_EQ(r.scene.meshes[0].compression, ClipCompression::kExact);
  EXPECT_EQ(r.scene.meshes[0].tolerance, 0.001f);
  EXPECT_EQ(r.scene.meshes[0].distance, 0.1f);
  EXPECT_FALSE(r.scene.meshes[0].compression_pos.known());
}

TEST(SceneCompression, AMeshReadsItsKeysWithTheirPositions) {
  const Read r = read(
      "[[mesh]]\nname = \"m\"\nfile = \"m.glb\"\ncompression = \"lossy\"\ntolerance = 0.0005\n"
      "distance = 0.2\n");
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  const SceneMesh& m = r.scene.meshes[0];
  EXPECT_EQ(m.compression, ClipCompression::kLossy);
  EXPECT_EQ(m.tolerance, 0.0005f);
  EXPECT_EQ(m.distance, 0.2f);
  EXPECT_EQ(m.compression_pos, (SourcePos{4, 1}));
  EXPECT_EQ(m.tolerance_pos, (SourcePos{5, 1}));
  EXPECT_EQ(m.distance_pos, (SourcePos{6, 1}));
}

TEST(SceneCompression, TopLevelKeysAreTheDefaultOfMeshesThatGiveNone) {
  const Read r = read(
      "compression = \"lossy\"\ntolerance = 0.002\ndistance = 1\n"
      "[[mesh]]\nname = \"a\"\nfile = \"a.glb\"\n"
      "[[mesh]]\nname = \"b\"\nfile = \"b.glb\"\ncompression = \"exact\"\ntolerance = 0.01\n");
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  EXPECT_EQ(r.scene.compression, ClipCompression::kLossy);
  EXPECT_EQ(r.scene.compression_pos, (SourcePos{1, 1}));
  ASSERT_EQ(r.scene.meshes.size(), 2u);
  EXPECT_EQ(r.scene.meshes[0].compression, ClipCompression::kLossy);
  EXPECT_EQ(r.scene.meshes[0].tolerance, 0.002f);
  EXPECT_EQ(r.scene.meshes[0].distance, 1.0f);
  EXPECT_EQ(r.scene.meshes[1].compression, ClipCompression::kExact);
  EXPECT_EQ(r.scene.meshes[1].tolerance, 0.01f);
  EXPECT_EQ(r.scene.meshes[1].distance, 1.0f);
}

TEST(SceneCompression, AnUnknownCompressionIsE0181WithACloseSpelling) {
  const Read r = read("[[mesh]]\nname = \"m\"\nfile = \"m.glb\"\ncompression = \"lossey\"\n");
  expect_one(r, "E0181", 4, 1, "did you mean `lossy`");
  EXPECT_EQ(r.scene.meshes[0].compression, ClipCompression::kExact);
  const Read top = read("compression = \"zip\"\n");
  expect_one(top, "E0181", 1, 1, "`zip`");
}

TEST(SceneCompression, ACompressionThatIsNotAStringIsE0102) {
  const Read r = read("[[mesh]]\nname = \"m\"\nfile = \"m.glb\"\ncompression = 1\n");
  expect_one(r, "E0102", 4, 1, "`compression` must be a string");
}

TEST(SceneCompression, ToleranceOutOfItsBoundsIsE0182AtTheKey) {
  for (const char* value : {"0", "-0.001", "0.0000001", "1.5", "1e30"}) {
    const Read r =
        read("[[mesh]]\nname = \"m\"\nfile = \"m.glb\"\ntolerance = " + std::string(value) + "\n");
    expect_one(r, "E0182", 4, 1, "`tolerance` is");
    EXPECT_EQ(r.scene.meshes[0].tolerance, 0.001f) << value;
  }
  // The bounds themselves read.
  for (const char* value : {"0.000001", "1"}) {
    const Read r = read("tolerance = " + std::string(value) + "\n");
    EXPECT_TRUE(r.diagnostics.empty()) << value << "\n" << all(r);
  }
}

TEST(SceneCompression, DistanceOutOfItsBoundsIsE0182AtTheKey) {
  for (const char* value : {"0", "-1", "0.0001", "101"}) {
    const Read r = read("distance = " + std::string(value) + "\n");
    expect_one(r, "E0182", 1, 1, "`distance` is");
    EXPECT_EQ(r.scene.distance, 0.1f) << value;
  }
  const Read r = read("[[mesh]]\nname = \"m\"\nfile = \"m.glb\"\n  distance = \"far\"\n");
  expect_one(r, "E0102", 4, 3, "`distance` must be a number");
  const Read nan = read("distance = nan\n");
  expect_one(nan, "E0112", 1, 1, "`distance`");
  for (const char* value : {"0.001", "100"}) {
    const Read ok = read("distance = " + std::string(value) + "\n");
    EXPECT_TRUE(ok.diagnostics.empty()) << value << "\n" << all(ok);
  }
}

TEST(SceneCompression, AMisspeltKeySuggestsTheCompressionKeys) {
  const Read r = read("[[mesh]]\nname = \"m\"\nfile = \"m.glb\"\ntolerence = 0.001\n");
  ASSERT_EQ(count(r, "E0101"), 1) << all(r);
  EXPECT_NE(r.diagnostics[0].message.find("did you mean `tolerance`"), std::string::npos) << all(r);
  const Read top = read("compresion = \"lossy\"\n");
  ASSERT_EQ(count(top, "E0101"), 1) << all(top);
  EXPECT_NE(top.diagnostics[0].message.find("did you mean `compression`"), std::string::npos)
      << all(top);
}

}  // namespace
}  // namespace animpack
