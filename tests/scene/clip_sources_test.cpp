// Step 5's [[mesh]] keys in the scene reader: `clips` (clip sources, as inline tables and as
// [[mesh.clips]] tables), `max_influences` and `humanoid` read to their values and key
// positions in document order; the rules across meshes (retarget_from, cycles, names
// given twice) and the limits. The one-rule-a-file corpus is tests/data/scenes/bad
// (E0169 to E0178).
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

#include "animpack/compiler/retarget.h"
#include "scene_read.h"

namespace animpack {
namespace {

using scene_test::all;
using scene_test::read;

SourcePos at(int line, int col) { return SourcePos{line, col}; }

TEST(ClipSources, EveryKeyReadsToItsValueAndPosition) {
  const scene_test::Read r = read(
      "[[mesh]]\n"                                                              // 1
      "name = \"hero\"\n"                                                       // 2
      "file = \"hero.fbx\"\n"                                                   // 3
      "max_influences = 4\n"                                                    // 4
      "humanoid = { hips = \"mixamorig:Hips\", head = \"mixamorig:Head\" }\n"   // 5
      "clips = [{ file = \"anim/Walk.glb\", include = [\"Walk*\", \"?dle\"], "  // 6
      "exclude = [\"*_old\"], rename = { Walk_01 = \"Walk\", \"a b\" = \"Idle\" } },\n"
      "         { name = \"Jump\", from = 1.25, to = 2, include = [\"Take 001\"] },\n"  // 7
      "         { file = \"run.dae\", retarget_from = \"other\" }]\n"                   // 8
      "[[mesh]]\n"
      "name = \"other\"\n"
      "file = \"other.glb\"\n",
      "scene.toml");
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  ASSERT_EQ(r.scene.meshes.size(), 2u);
  const SceneMesh& m = r.scene.meshes[0];
  EXPECT_EQ(m.file, "hero.fbx");
  EXPECT_EQ(m.max_influences, 4);
  EXPECT_EQ(m.max_influences_pos, at(4, 1));
  ASSERT_EQ(m.humanoid.size(), 2u);
  EXPECT_EQ(m.humanoid_pos, at(5, 1));
  EXPECT_EQ(m.humanoid[0].from, "hips");  // document order, not toml++'s sorted order
  EXPECT_EQ(m.humanoid[0].to, "mixamorig:Hips");
  EXPECT_EQ(m.humanoid[0].pos, at(5, 14));
  EXPECT_EQ(m.humanoid[1].from, "head");
  EXPECT_EQ(m.humanoid[1].to, "mixamorig:Head");
  EXPECT_TRUE(m.has_clips);
  EXPECT_EQ(m.clips_pos, at(6, 1));
  ASSERT_EQ(m.clips.size(), 3u);

  const SceneClipSource& walk = m.clips[0];
  EXPECT_EQ(walk.pos, at(6, 10));
  EXPECT_EQ(walk.file, "anim/Walk.glb");
  EXPECT_EQ(walk.file_pos, at(6, 12));
  EXPECT_EQ(walk.include, (std::vector<std::string>{"Walk*", "?dle"}));
  EXPECT_EQ(walk.include_pos_key, at(6, 36));
  ASSERT_EQ(walk.include_pos.size(), 2u);
  EXPECT_EQ(walk.include_pos[1], at(6, 56));
  EXPECT_EQ(walk.exclude, std::vector<std::string>{"*_old"});
  EXPECT_EQ(walk.exclude_pos_key, at(6, 65));
  ASSERT_EQ(walk.rename.size(), 2u);
  EXPECT_EQ(walk.rename_pos, at(6, 86));
  EXPECT_EQ(walk.rename[0].from, "Walk_01");
  EXPECT_EQ(walk.rename[0].to, "Walk");
  EXPECT_EQ(walk.rename[0].pos, at(6, 97));
  EXPECT_EQ(walk.rename[1].from, "a b");
  EXPECT_EQ(walk.rename[1].to, "Idle");
  EXPECT_FALSE(walk.cut);
  EXPECT_TRUE(walk.name.empty());
  EXPECT_TRUE(walk.retarget_from.empty());

  const SceneClipSource& jump = m.clips[1];
  EXPECT_TRUE(jump.file.empty());  // the mesh's own file
  EXPECT_FALSE(jump.file_pos.known());
  EXPECT_EQ(jump.name, "Jump");
  EXPECT_EQ(jump.name_pos, at(7, 12));
  EXPECT_TRUE(jump.cut);
  EXPECT_EQ(jump.from, 1.25f);
  EXPECT_EQ(jump.to, 2.0f);  // an integer where a number belongs
  EXPECT_EQ(jump.from_pos, at(7, 27));
  EXPECT_EQ(jump.to_pos, at(7, 40));
  EXPECT_EQ(jump.include, std::vector<std::string>{"Take 001"});

  const SceneClipSource& run = m.clips[2];
  EXPECT_EQ(run.file, "run.dae");
  EXPECT_EQ(run.retarget_from, "other");
  EXPECT_EQ(run.retarget_from_pos, at(8, 30));

  // The second mesh has none of the new keys: their defaults.
  const SceneMesh& other = r.scene.meshes[1];
  EXPECT_FALSE(other.has_clips);
  EXPECT_FALSE(other.clips_pos.known());
  EXPECT_TRUE(other.clips.empty());
  EXPECT_EQ(other.max_influences, 8);
  EXPECT_TRUE(other.humanoid.empty());
}

TEST(ClipSources, ArrayOfTablesFormKeepsDocumentOrder) {
  const scene_test::Read r = read(
      "[[mesh]]\n"
      "name = \"hero\"\n"
      "file = \"hero.glb\"\n"
      "[[mesh.clips]]\n"  // 4
      "file = \"b.glb\"\n"
      "[[mesh.clips]]\n"  // 6
      "file = \"a.glb\"\n"
      "name = \"Only\"\n"
      "max_influences = 8\n",  // a key of the clip source table, not the mesh
      "scene.toml");
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0101");
  EXPECT_EQ(r.diagnostics[0].line, 9);
  ASSERT_EQ(r.scene.meshes.size(), 1u);
  const SceneMesh& m = r.scene.meshes[0];
  ASSERT_EQ(m.clips.size(), 2u);
  EXPECT_EQ(m.clips[0].file, "b.glb");
  EXPECT_EQ(m.clips[0].pos, at(4, 1));
  EXPECT_EQ(m.clips[1].file, "a.glb");
  EXPECT_EQ(m.clips[1].pos, at(6, 1));
  EXPECT_EQ(m.clips[1].name, "Only");
}

TEST(ClipSources, AnEmptyListGivesTheMeshNoClips) {
  const scene_test::Read r =
      read("[[mesh]]\nname = \"m\"\nfile = \"m.glb\"\nclips = []\n", "scene.toml");
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  EXPECT_TRUE(r.scene.meshes[0].has_clips);
  EXPECT_TRUE(r.scene.meshes[0].clips.empty());
}

TEST(ClipSources, ALongCycleIsReportedOnceAtTheKeyThatClosesIt) {
  // a takes b's clips, b takes c's, c takes a's: one cycle, closed by c's source. d takes
  // a's clips without being on the cycle: not reported again.
  const scene_test::Read r = read(
      "[[mesh]]\nname = \"a\"\nfile = \"a.glb\"\nclips = [{ retarget_from = \"b\" }]\n"  // 1-4
      "[[mesh]]\nname = \"b\"\nfile = \"b.glb\"\nclips = [{ retarget_from = \"c\" }]\n"  // 5-8
      "[[mesh]]\nname = \"c\"\nfile = \"c.glb\"\nclips = [{ retarget_from = \"a\" }]\n"  // 9-12
      "[[mesh]]\nname = \"d\"\nfile = \"d.glb\"\nclips = [{ retarget_from = \"a\" }]\n",
      "scene.toml");
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0174");
  EXPECT_EQ(r.diagnostics[0].line, 12);
  EXPECT_EQ(r.diagnostics[0].col, 12);
  EXPECT_NE(r.diagnostics[0].message.find("`a` takes the clips of `b` takes the clips of `c`"),
            std::string::npos)
      << r.diagnostics[0].message;
}

TEST(ClipSources, SourcesWithAFileTakeOnlyTheOtherMeshsSkeletonSoMakeNoCycle) {
  const scene_test::Read r = read(
      "[[mesh]]\nname = \"a\"\nfile = \"a.glb\"\n"
      "clips = [{ file = \"x.glb\", retarget_from = \"b\" }]\n"
      "[[mesh]]\nname = \"b\"\nfile = \"b.glb\"\n"
      "clips = [{ file = \"y.glb\", retarget_from = \"a\" }]\n",
      "scene.toml");
  EXPECT_TRUE(r.diagnostics.empty()) << all(r);
}

TEST(ClipSources, LimitsAreE0135AtTheKey) {
  std::string sources = "clips = [";
  for (size_t i = 0; i <= kMaxClipSources; ++i) sources += "{},";
  sources += "]\n";
  std::string patterns = "clips = [{ include = [";
  for (size_t i = 0; i <= kMaxClipPatterns; ++i) patterns += "\"a\",";
  patterns += "] }]\n";
  const scene_test::Read r = read("[[mesh]]\nname = \"a\"\nfile = \"a.glb\"\n" + sources +
                                      "[[mesh]]\nname = \"b\"\nfile = \"b.glb\"\n" + patterns,
                                  "scene.toml");
  ASSERT_EQ(r.diagnostics.size(), 2u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0135");
  EXPECT_EQ(r.diagnostics[0].line, 4);
  EXPECT_EQ(r.diagnostics[0].col, 1);
  EXPECT_EQ(r.diagnostics[1].code, "E0135");
  EXPECT_EQ(r.diagnostics[1].line, 8);
  EXPECT_EQ(r.diagnostics[1].col, 12);
}

TEST(ClipSources, EveryHumanoidBoneIsTaken) {
  std::string map = "humanoid = { ";
  for (std::string_view bone : kHumanoidBones) {
    map += std::string(bone) + " = \"j_" + std::string(bone) + "\", ";
  }
  map.resize(map.size() - 2);
  map += " }\n";
  const scene_test::Read r = read("[[mesh]]\nname = \"a\"\nfile = \"a.glb\"\n" + map, "s.toml");
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  EXPECT_EQ(r.scene.meshes[0].humanoid.size(), std::size(kHumanoidBones));
}

}  // namespace
}  // namespace animpack
