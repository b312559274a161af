// The worked example that ships in assets/character/: the figure (written by
// scripts/make_figure.py) cooks clean with the rig and clips its README promises, the docs
// show the scene as it ships, and a scripted game plays the scene through its states,
// layers and events (docs/scene-format.md and docs/runtime.md, "Worked example").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

fs::path character(const char* name) {
  return fs::path(ANIMPACK_SOURCE_DIR) / "assets/character" / name;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CookOutput cook_character(DiagnosticSink& sink) {
  return cook_scene(character("scene.toml"), sink);
}

TEST(WorkedExample, TheDocsShowTheSceneAsItShips) {
  const std::string doc = read_text(fs::path(ANIMPACK_SOURCE_DIR) / "docs/scene-format.md");
  const std::string scene = read_text(character("scene.toml"));
  ASSERT_FALSE(scene.empty());
  const size_t section = doc.find("## Worked example: a character with states and layers");
  ASSERT_NE(section, std::string::npos);
  const std::string open = "```toml\n";
  const size_t begin = doc.find(open, section);
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```\n", begin + open.size());
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(doc.substr(begin + open.size(), end - begin - open.size()), scene)
      << "docs/scene-format.md's worked example must be assets/character/scene.toml verbatim";
}

TEST(WorkedExample, TheFigureCooksCleanWithItsRigAndClips) {
  DiagnosticSink sink;
  const CookOutput out = cook_character(sink);
  EXPECT_TRUE(sink.diagnostics().empty()) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  ASSERT_EQ(out.pack.rigs.size(), 1u);
  const Rig& rig = out.pack.rigs[0].rig;
  const char* joints[] = {
      "Hips",         "Spine",     "Spine1",      "Spine2",   "Neck",          "Head",
      "LeftShoulder", "LeftArm",   "LeftForeArm", "LeftHand", "RightShoulder", "RightArm",
      "RightForeArm", "RightHand", "LeftUpLeg",   "LeftLeg",  "LeftFoot",      "LeftToe",
      "RightUpLeg",   "RightLeg",  "RightFoot",   "RightToe"};
  ASSERT_EQ(rig.skeleton().joint_count(), 22);
  for (int j = 0; j < 22; ++j) EXPECT_EQ(rig.skeleton().joints()[j].name, joints[j]) << j;
  // The clips the README lists, with their lengths (Walk and Run differ, so sync matters).
  const struct {
    const char* name;
    float duration;
  } clips[] = {{"Idle", 2.0f}, {"Walk", 1.0f}, {"Run", 0.7f},
               {"Jump", 1.2f}, {"Wave", 1.5f}, {"Breathe", 3.0f}};
  for (const auto& c : clips) {
    const Result<uint16_t> index = rig.find_clip(c.name);
    ASSERT_TRUE(index) << c.name;
    EXPECT_NEAR(rig.clips()[*index].duration(), c.duration, 1e-6f) << c.name;
  }
}

}  // namespace
}  // namespace animpack
