// The cooker's cross-checks against the assets: a table of bad scenes in tests/data/cook/
// (each opens with `# expect: CODE LINE:COL [FILE]` lines: exactly the errors and warnings
// it must give, in source order; notes are not listed), a good scene over corpus models,
// depfiles and byte-identical packs.
#include "animpack/compiler/cook.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "fixtures/test_data.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

fs::path data(const char* name = "") {
  return fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/cook" / name;
}

struct Expected {
  std::string code, file;
  int line = 0, col = 0;
};

std::string show(const std::vector<Expected>& v) {
  std::string s;
  for (const Expected& e : v) {
    s += e.code + " " + std::to_string(e.line) + ":" + std::to_string(e.col) + " " + e.file + "\n";
  }
  return s;
}

std::vector<Expected> expected_of(const fs::path& scene) {
  std::istringstream in(animpack::test_data::read_test_file(scene));
  std::vector<Expected> out;
  std::string line;
  while (std::getline(in, line) && line.rfind("# expect:", 0) == 0) {
    std::istringstream ss(line.substr(9));
    Expected e;
    char colon = 0;
    ss >> e.code >> e.line >> colon >> e.col;
    std::string file;
    e.file = (ss >> file) ? (scene.parent_path() / file).string() : scene.string();
    out.push_back(e);
  }
  return out;
}

std::vector<Expected> actual_of(const DiagnosticSink& sink) {
  std::vector<Expected> out;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity == Severity::kNote) continue;
    out.push_back({d.code, d.file, d.line, d.col});
  }
  return out;
}

std::vector<fs::path> bad_scenes() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(data())) {
    if (e.path().extension() == ".toml" && e.path().filename() != "good.toml")
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class BadCookScene : public ::testing::TestWithParam<fs::path> {};

TEST_P(BadCookScene, ReportsExactlyItsDiagnosticsAtTheirKeys) {
  const fs::path scene = GetParam();
  const std::vector<Expected> want = expected_of(scene);
  ASSERT_FALSE(want.empty()) << scene << " has no expect lines";
  DiagnosticSink sink;
  (void)cook_scene(scene, sink);
  sink.sort();
  EXPECT_EQ(show(actual_of(sink)), show(want)) << format_diagnostics(sink, DiagnosticFormat::kGcc);
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadCookScene, ::testing::ValuesIn(bad_scenes()),
                         [](const ::testing::TestParamInfo<fs::path>& param) {
                           return param.param.stem().string();
                         });

TEST(BadCookSceneCorpus, CoversEveryAssetCheck) {
  std::set<std::string> seen;
  for (const fs::path& f : bad_scenes()) {
    for (const Expected& e : expected_of(f)) seen.insert(e.code);
  }
  for (const char* code :
       {"E0201", "E0202", "E0203", "W0204", "E0205", "E0206", "E0207", "E0211", "E0213", "W0214",
        "E0215", "E0216", "E0217", "E0218", "E0219", "E0220", "E0221"}) {
    EXPECT_TRUE(seen.count(code)) << code << " has no bad scene";
  }
}

TEST(BadCookScene, AGltfProblemAlsoNotesTheSceneKeyThatNamedTheFile) {
  DiagnosticSink sink;
  (void)cook_scene(data("invalid_gltf.toml"), sink);
  sink.sort();
  bool note = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity == Severity::kNote) {
      note = true;
      EXPECT_EQ(d.line, 7);
      EXPECT_EQ(d.col, 1);
    }
    if (d.severity == Severity::kError) {
      EXPECT_NE(d.message.find("/animations/0/samplers/0"), std::string::npos) << d.message;
    }
  }
  EXPECT_TRUE(note);
}

TEST(BadCookScene, AGltfErrorCarriesItsPointerAndReaderCodeAndTheSceneNoteFollowsIt) {
  DiagnosticSink sink;
  (void)cook_scene(data("invalid_gltf.toml"), sink);
  sink.sort();
  const std::vector<Diagnostic>& all = sink.diagnostics();
  int last_error = -1;
  size_t notes = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const Diagnostic& d = all[i];
    if (d.severity == Severity::kError) {
      EXPECT_EQ(d.code, "E0201");
      EXPECT_EQ(d.pointer, "/animations/0/samplers/0/input") << d.message;
      EXPECT_EQ(d.source_code, "ACCESSOR_ANIMATION_INPUT_NEGATIVE") << d.message;
      EXPECT_NE(d.message.find("[" + d.source_code + "]"), std::string::npos) << d.message;
      EXPECT_EQ(d.parent, -1);
      last_error = static_cast<int>(i);
    } else if (d.severity == Severity::kNote) {
      ++notes;
      EXPECT_EQ(d.parent, last_error) << "the note belongs to the file's last error";
      EXPECT_EQ(static_cast<int>(i), last_error + 1) << "and follows it";
      EXPECT_EQ(d.line, 7);
    }
  }
  EXPECT_GE(last_error, 0);
  EXPECT_EQ(notes, 1u);
}

TEST(BadCookScene, RootMotionWithoutARigNotesTheMeshUnderEachError) {
  DiagnosticSink sink;
  (void)cook_scene(data("root_motion_without_rig.toml"), sink);
  sink.sort();
  std::vector<std::string> got;
  for (const Diagnostic& d : sink.diagnostics()) {
    got.push_back(d.code + " " + severity_name(d.severity) + " " + std::to_string(d.line) + " " +
                  std::to_string(d.parent));
  }
  // First the note that the triangle got normals (in its own file), then each error with
  // its note at the [[mesh]] (line 5) right after it.
  EXPECT_EQ(got, (std::vector<std::string>{"W0301 note 0 -1", "E0213 error 12 -1", "E0213 note 5 1",
                                           "E0213 error 14 -1", "E0213 note 5 3"}));
}

TEST(Cook, AGeneratedStreamsNoteCarriesThePrimitivesPointerAndTheImportCode) {
  DiagnosticSink sink;
  (void)cook_scene(data("good.toml"), sink);
  size_t notes = 0;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity != Severity::kNote) continue;
    ++notes;
    EXPECT_EQ(d.source_code, "NORMALS_GENERATED");
    EXPECT_EQ(d.pointer.rfind("/meshes/", 0), 0u) << d.pointer;
    EXPECT_EQ(d.parent, -1) << "a note of its own";
  }
  EXPECT_EQ(notes, 2u);
}

// The notes of a cook: the streams the import generated ("NORMALS_GENERATED" ...), one
// line "file code" each; anything but a note is returned too, so "clean" means notes only.
std::vector<std::string> notes_and_problems(const DiagnosticSink& sink) {
  std::vector<std::string> out;
  for (const Diagnostic& d : sink.diagnostics()) {
    const size_t open = d.message.rfind('[');
    out.push_back(std::string(d.severity == Severity::kNote ? "note " : "PROBLEM ") +
                  fs::path(d.file).filename().string() + " " +
                  (open == std::string::npos ? d.message : d.message.substr(open)));
  }
  return out;
}

TEST(Cook, AGoodSceneOverCorpusModelsCooksClean) {
  DiagnosticSink sink;
  const CookOutput out = cook_scene(data("good.toml"), sink);
  // Clean: only the notes that two files without NORMAL got flat normals.
  EXPECT_EQ(notes_and_problems(sink),
            (std::vector<std::string>{"note SimpleSkin.gltf [NORMALS_GENERATED]",
                                      "note triangle.gltf [NORMALS_GENERATED]"}))
      << format_diagnostics(sink, DiagnosticFormat::kGcc);
  ASSERT_EQ(out.pack.meshes.size(), 3u);
  ASSERT_EQ(out.pack.rigs.size(), 2u);
  EXPECT_FALSE(out.pack.rigs[0].node_rig);  // SimpleSkin
  EXPECT_TRUE(out.pack.rigs[1].node_rig);   // BoxAnimated
  EXPECT_EQ(out.pack.meshes[2].rig, -1);    // the static triangle
  ASSERT_EQ(out.pack.sheets.size(), 1u);
  EXPECT_EQ(out.pack.sheets[0].sheet.atlas().frame_count(), 7u);
  ASSERT_EQ(out.pack.objects.size(), 4u);
  EXPECT_EQ(out.pack.objects[0].animation.events.size(), 1u);
  EXPECT_EQ(out.pack.objects[0].animation.speed, 2.0f);
  EXPECT_EQ(out.pack.objects[1].animation.playback, Playback::kPingPong);
  EXPECT_FALSE(out.pack.objects[2].animated);
  EXPECT_EQ(out.pack.objects[3].animation.sprite_sheet, 0);
  // The sprite event sits on its clip.
  EXPECT_EQ(out.pack.sheets[0].sheet.clips()[1].events()[0].name, "step");

  // What the runtime opens is what was cooked.
  auto pack = Pack::from_bytes(write_pack(out.pack));
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->objects()[0].animation.events[0].name, "bend");
}

TEST(Cook, TheDepfileNamesEveryInputRead) {
  DiagnosticSink sink;
  const CookOutput out = cook_scene(data("good.toml"), sink);
  const std::string dep = make_depfile("out dir/good.anpk", out.inputs).value();
  EXPECT_EQ(dep.rfind("out\\ dir/good.anpk:", 0), 0u) << dep;
  for (const char* input : {"good.toml", "models/SimpleSkin.gltf", "models/BoxAnimated.gltf",
                            "models/triangle.gltf", "art/gabe-idle-run.png"}) {
    EXPECT_NE(dep.find((data() / input).lexically_normal().string()), std::string::npos)
        << input << "\n"
        << dep;
  }
}

TEST(Cook, TheDepfileNamesExternalBufferFiles) {
  DiagnosticSink sink;
  const CookOutput out = cook_scene(data("invalid_gltf.toml"), sink);
  const std::string dep = make_depfile("x.anpk", out.inputs).value();
  EXPECT_NE(dep.find("invalid_input_values.bin"), std::string::npos) << dep;
}

TEST(Cook, CookingTwiceGivesByteIdenticalPacks) {
  DiagnosticSink a, b;
  const std::vector<uint8_t> first = write_pack(cook_scene(data("good.toml"), a).pack);
  const std::vector<uint8_t> second = write_pack(cook_scene(data("good.toml"), b).pack);
  EXPECT_EQ(first, second);
}

TEST(Cook, TheDemoSceneCooksClean) {
  DiagnosticSink sink;
  const CookOutput out = cook_scene(fs::path(ANIMPACK_SOURCE_DIR) / "assets/demo/scene.toml", sink);
  // The Fox has no NORMAL: a note that flat normals were made, nothing else.
  EXPECT_EQ(notes_and_problems(sink),
            (std::vector<std::string>{"note Fox.glb [NORMALS_GENERATED]"}))
      << format_diagnostics(sink, DiagnosticFormat::kGcc);
  EXPECT_EQ(out.pack.objects.size(), 4u);
  EXPECT_EQ(out.pack.rigs[0].rig.clip_count(), 3) << "the Fox: Survey, Walk, Run";
}

}  // namespace
}  // namespace animpack
