// The scene reader on good scenes: every key reads to its value and its key's position,
// defaults hold for absent keys, document order is kept, files that cannot be read and
// TOML syntax errors are reported, and no input makes it throw.
#include "animpack/compiler/scene.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "fixtures/test_data.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

fs::path data(const char* rel) { return fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/scenes" / rel; }

std::string file_text(const fs::path& p) { return animpack::test_data::read_test_file(p); }

SourcePos at(int line, int col) { return SourcePos{line, col}; }

// All diagnostics, for failure messages.
std::string printed(DiagnosticSink& sink) {
  sink.sort();
  return format_diagnostics(sink, DiagnosticFormat::kGcc);
}

TEST(SceneReader, EveryKeyReadsToItsValueAndPosition) {
  DiagnosticSink sink;
  const fs::path file = data("good/every_key.toml");
  const Scene scene = read_scene(file, sink);
  ASSERT_TRUE(sink.diagnostics().empty()) << printed(sink);
  EXPECT_EQ(scene.file, file);
  EXPECT_EQ(scene.folder, file.parent_path());
  EXPECT_EQ(scene.format, 1);
  EXPECT_EQ(scene.format_pos, at(2, 1));

  ASSERT_EQ(scene.meshes.size(), 3u);
  EXPECT_EQ(scene.meshes[0].name, "walker");
  EXPECT_EQ(scene.meshes[0].file, "models/walker.glb");
  EXPECT_EQ(scene.meshes[0].pos, at(4, 1));
  EXPECT_EQ(scene.meshes[0].name_pos, at(5, 1));
  EXPECT_EQ(scene.meshes[0].file_pos, at(6, 1));
  EXPECT_EQ(scene.meshes[1].name, "card");
  EXPECT_EQ(scene.meshes[1].file, "models/card.gltf");
  EXPECT_EQ(find_mesh(scene, "card"), &scene.meshes[1]);
  EXPECT_EQ(find_mesh(scene, "nope"), nullptr);

  ASSERT_EQ(scene.objects.size(), 6u);
  // A skeletal object with every object key and every skeletal animation key.
  const SceneObject& walker = scene.objects[0];
  EXPECT_EQ(walker.name, "walker");
  EXPECT_EQ(walker.pos, at(12, 1));
  EXPECT_EQ(walker.name_pos, at(13, 1));
  EXPECT_EQ(walker.mesh, "walker");
  EXPECT_EQ(walker.mesh_pos, at(14, 1));
  EXPECT_EQ(walker.material, "skin");
  EXPECT_EQ(walker.material_pos, at(15, 1));
  EXPECT_FALSE(walker.face_camera);
  EXPECT_EQ(walker.face_camera_pos, at(16, 1));
  EXPECT_EQ(walker.content, "");
  EXPECT_FALSE(walker.content_pos.known());
  EXPECT_EQ(walker.position.x, 1.0f);
  EXPECT_EQ(walker.position.y, 2.5f);
  EXPECT_EQ(walker.position.z, -3.0f);
  EXPECT_EQ(walker.position_pos, at(17, 1));
  EXPECT_EQ(walker.position_element_pos[1], at(17, 16));
  EXPECT_EQ(walker.rotation.x, 0.0f);
  EXPECT_EQ(walker.rotation.y, 0.7071068f);
  EXPECT_EQ(walker.rotation.z, 0.0f);
  EXPECT_EQ(walker.rotation.w, 0.7071068f);
  EXPECT_EQ(walker.rotation_pos, at(18, 1));
  EXPECT_EQ(walker.rotation_element_pos[3], at(18, 34));
  EXPECT_EQ(walker.scale.x, 2.0f);
  EXPECT_EQ(walker.scale.z, 2.0f);
  EXPECT_EQ(walker.scale_pos, at(19, 1));
  EXPECT_EQ(walker.scale_element_pos[2], at(19, 16));
  ASSERT_TRUE(walker.animation);
  const SceneAnimation& skel = *walker.animation;
  EXPECT_FALSE(skel.sprite);
  EXPECT_EQ(skel.pos, at(21, 9));
  EXPECT_EQ(skel.clip, "");
  ASSERT_EQ(skel.blend.size(), 2u);
  EXPECT_EQ(skel.blend_pos, at(22, 1));
  EXPECT_EQ(skel.blend[0].clip, "Walk");
  EXPECT_EQ(skel.blend[0].weight, 0.7f);
  EXPECT_EQ(skel.blend[0].pos, at(22, 10));
  EXPECT_EQ(skel.blend[0].clip_pos, at(22, 12));
  EXPECT_EQ(skel.blend[0].weight_pos, at(22, 27));
  EXPECT_EQ(skel.blend[1].clip, "Run");
  EXPECT_EQ(skel.blend[1].weight, 0.3f);
  EXPECT_EQ(skel.blend[1].weight_pos, at(22, 59));
  ASSERT_EQ(skel.events.size(), 2u);
  EXPECT_EQ(skel.events_pos, at(23, 1));
  EXPECT_EQ(skel.events[0].name, "step");
  EXPECT_EQ(skel.events[0].clip, "Walk");
  EXPECT_EQ(skel.events[0].time, 0.4f);
  EXPECT_EQ(skel.events[0].pos, at(23, 11));
  EXPECT_EQ(skel.events[0].name_pos, at(23, 13));
  EXPECT_EQ(skel.events[0].clip_pos, at(23, 28));
  EXPECT_EQ(skel.events[0].time_pos, at(23, 43));
  EXPECT_FALSE(skel.events[0].frame_pos.known());
  EXPECT_EQ(skel.events[1].name, "land");
  EXPECT_EQ(skel.events[1].clip, "Run");
  EXPECT_EQ(skel.events[1].time, 0.0f);
  EXPECT_EQ(skel.speed, 1.5f);
  EXPECT_EQ(skel.speed_pos, at(24, 1));
  EXPECT_EQ(skel.playback, Playback::kPingPong);
  EXPECT_EQ(skel.playback_pos, at(25, 1));
  EXPECT_EQ(skel.start, 0.25f);
  EXPECT_EQ(skel.start_pos, at(26, 1));

  // A sprite card with every sprite key (grid, spacing, margin) and clip tables.
  const SceneObject& hero = scene.objects[1];
  EXPECT_EQ(hero.name, "hero");
  EXPECT_EQ(hero.mesh, "card");
  EXPECT_EQ(hero.material, "sprite");
  EXPECT_TRUE(hero.face_camera);
  EXPECT_EQ(hero.face_camera_pos, at(32, 1));
  ASSERT_TRUE(hero.animation);
  const SceneAnimation& sprite = *hero.animation;
  EXPECT_TRUE(sprite.sprite);
  EXPECT_EQ(sprite.atlas, "art/hero.png");
  EXPECT_EQ(sprite.atlas_pos, at(35, 1));
  ASSERT_TRUE(sprite.grid);
  EXPECT_EQ(sprite.grid->columns, 8);
  EXPECT_EQ(sprite.grid->rows, 4);
  EXPECT_EQ(sprite.grid_pos, at(36, 1));
  EXPECT_EQ(sprite.grid->columns_pos, at(36, 9));
  EXPECT_EQ(sprite.grid->rows_pos, at(36, 12));
  EXPECT_TRUE(sprite.rects.empty());
  EXPECT_EQ(sprite.spacing, 2);
  EXPECT_EQ(sprite.spacing_pos, at(37, 1));
  EXPECT_EQ(sprite.margin, 1);
  EXPECT_EQ(sprite.margin_pos, at(38, 1));
  EXPECT_EQ(sprite.fps, 12.0f);
  EXPECT_EQ(sprite.fps_pos, at(39, 1));
  EXPECT_EQ(sprite.clip, "run");
  EXPECT_EQ(sprite.clip_pos, at(40, 1));
  ASSERT_EQ(sprite.events.size(), 1u);
  EXPECT_EQ(sprite.events[0].name, "step");
  EXPECT_EQ(sprite.events[0].clip, "run");
  EXPECT_EQ(sprite.events[0].frame, 2);
  EXPECT_EQ(sprite.events[0].frame_pos, at(41, 42));
  EXPECT_FALSE(sprite.events[0].time_pos.known());
  EXPECT_EQ(sprite.speed, 0.5f);
  EXPECT_EQ(sprite.start, 1.0f);
  EXPECT_EQ(sprite.start_pos, at(43, 1));
  EXPECT_EQ(sprite.clips_pos, at(45, 19));
  ASSERT_EQ(sprite.clips.size(), 2u);
  // Document order (run before idle), not toml++'s sorted order.
  const SceneSpriteClip& run = sprite.clips[0];
  EXPECT_EQ(run.name, "run");
  EXPECT_EQ(run.pos, at(45, 1));
  EXPECT_EQ(run.name_pos, at(45, 25));
  EXPECT_EQ(run.from, 8);
  EXPECT_EQ(run.from_pos, at(46, 1));
  EXPECT_EQ(run.to, 15);
  EXPECT_EQ(run.to_pos, at(47, 1));
  EXPECT_EQ(run.fps, 16.0f);
  EXPECT_EQ(run.fps_pos, at(48, 1));
  EXPECT_EQ(run.playback, Playback::kOnce);
  EXPECT_EQ(run.playback_pos, at(49, 1));
  const SceneSpriteClip& idle = sprite.clips[1];
  EXPECT_EQ(idle.name, "idle");
  EXPECT_EQ(idle.from, 0);
  EXPECT_EQ(idle.to, 3);
  EXPECT_EQ(idle.fps, std::nullopt) << "takes the animation's fps";
  EXPECT_EQ(idle.playback, std::nullopt) << "loops";

  // content on an object without a sprite.
  const SceneObject& banner = scene.objects[2];
  EXPECT_EQ(banner.content, "ui:banner");
  EXPECT_EQ(banner.content_pos, at(57, 1));
  EXPECT_FALSE(banner.animation);

  // A sprite without a mesh, written as one inline table, cut by rects.
  const SceneObject& flat = scene.objects[3];
  EXPECT_EQ(flat.mesh, "");
  ASSERT_TRUE(flat.animation);
  const SceneAnimation& flat_anim = *flat.animation;
  EXPECT_TRUE(flat_anim.sprite);
  EXPECT_EQ(flat_anim.atlas, "art/flat.PNG");
  EXPECT_FALSE(flat_anim.grid);
  ASSERT_EQ(flat_anim.rects.size(), 2u);
  EXPECT_EQ(flat_anim.rects[1].x, 16);
  EXPECT_EQ(flat_anim.rects[1].y, 0);
  EXPECT_EQ(flat_anim.rects[1].w, 16);
  EXPECT_EQ(flat_anim.rects[1].h, 32);
  EXPECT_EQ(flat_anim.rects[1].pos, at(62, 64));
  EXPECT_EQ(flat_anim.rects[1].element_pos[3], at(62, 76));
  EXPECT_EQ(flat_anim.fps, 8.0f);
  ASSERT_EQ(flat_anim.clips.size(), 2u);
  EXPECT_EQ(flat_anim.clips[0].name, "b") << "document order in an inline table too";
  EXPECT_EQ(flat_anim.clips[1].name, "a");
  EXPECT_EQ(flat_anim.clips[1].playback, Playback::kLoop);

  // A dotted key: animation.clip.
  const SceneObject& stand = scene.objects[4];
  ASSERT_TRUE(stand.animation);
  EXPECT_FALSE(stand.animation->sprite);
  EXPECT_EQ(stand.animation->clip, "Idle");
  EXPECT_EQ(stand.animation->clip_pos, at(67, 11));

  // A state machine with layers (every key: graph_test.cpp checks each one's rules).
  const SceneAnimation& runner = *scene.objects[5].animation;
  EXPECT_TRUE(runner.has_graph());
  ASSERT_EQ(runner.parameters.size(), 5u);
  EXPECT_EQ(runner.parameters[0].name, "speed");
  EXPECT_EQ(runner.parameters[0].default_value, 0.5f);
  EXPECT_EQ(runner.parameters[1].default_value, 0.0f);
  EXPECT_EQ(runner.parameters[2].kind, ParameterKind::kTrigger);
  ASSERT_EQ(runner.states.size(), 3u);
  EXPECT_EQ(runner.states[0].name, "locomotion");
  EXPECT_EQ(runner.states[0].points.size(), 3u);
  EXPECT_EQ(runner.states[0].speed_parameter, "tired");
  EXPECT_EQ(runner.states[0].start, 0.5f);
  EXPECT_EQ(runner.states[1].points[0].y, -1.0f);
  EXPECT_EQ(runner.states[2].speed, 1.25f);
  ASSERT_EQ(runner.transitions.size(), 2u);
  EXPECT_EQ(runner.transitions[1].conditions.size(), 3u);
  EXPECT_EQ(runner.transitions[1].fade, 0.2f);
  ASSERT_EQ(runner.layers.size(), 2u);
  EXPECT_EQ(runner.layers[0].mask.size(), 3u);
  EXPECT_EQ(runner.layers[0].playback, Playback::kPingPong);
  EXPECT_EQ(runner.layers[1].reference, AdditiveReference::kRestPose);
  const SceneMesh& figure = scene.meshes[2];
  EXPECT_EQ(figure.name, "figure");
  ASSERT_EQ(figure.events.size(), 2u);
  EXPECT_EQ(figure.events[1].clip, "Jump");
}

TEST(SceneReader, TheSeedsExampleReadsClean) {
  DiagnosticSink sink;
  const Scene scene = read_scene(data("good/seed.toml"), sink);
  EXPECT_TRUE(sink.diagnostics().empty()) << printed(sink);
  ASSERT_EQ(scene.objects.size(), 2u);
  EXPECT_EQ(scene.objects[1].animation->clips[0].name, "idle");
}

TEST(SceneReader, AbsentKeysKeepTheirDefaults) {
  DiagnosticSink sink;
  const Scene scene = parse_scene(
      "[[mesh]]\nname = \"m\"\nfile = \"m.gltf\"\n"
      "[[object]]\nname = \"o\"\nmesh = \"m\"\n"
      "[[object]]\nname = \"p\"\nmesh = \"m\"\n[object.animation]\n",
      "scene.toml", sink);
  ASSERT_TRUE(sink.diagnostics().empty()) << printed(sink);
  ASSERT_EQ(scene.objects.size(), 2u);
  const SceneObject& o = scene.objects[0];
  EXPECT_EQ(o.material, "");
  EXPECT_FALSE(o.face_camera);
  EXPECT_EQ(o.position.x, 0.0f);
  EXPECT_EQ(o.rotation.w, 1.0f);
  EXPECT_EQ(o.rotation.x, 0.0f);
  EXPECT_EQ(o.scale.y, 1.0f);
  EXPECT_FALSE(o.animation);
  EXPECT_FALSE(o.rotation_pos.known());
  const SceneAnimation& a = *scene.objects[1].animation;
  EXPECT_FALSE(a.sprite);
  EXPECT_EQ(a.speed, 1.0f);
  EXPECT_EQ(a.start, 0.0f);
  EXPECT_EQ(a.playback, Playback::kLoop);
  EXPECT_TRUE(a.blend.empty());
  EXPECT_TRUE(a.events.empty());
  EXPECT_EQ(scene.format, 1);
  EXPECT_FALSE(scene.format_pos.known());
  EXPECT_EQ(scene.folder, fs::path());
}

TEST(SceneReader, AnEmptyFileIsAnEmptyScene) {
  DiagnosticSink sink;
  const Scene scene = parse_scene("", "empty.toml", sink);
  EXPECT_TRUE(sink.diagnostics().empty());
  EXPECT_TRUE(scene.meshes.empty());
  EXPECT_TRUE(scene.objects.empty());
}

TEST(SceneReader, MissingFileIsE0002AtLineZero) {
  for (const fs::path& file : {data("no_such_scene.toml"), data("good")}) {
    DiagnosticSink sink;
    const Scene scene = read_scene(file, sink);
    ASSERT_EQ(sink.diagnostics().size(), 1u) << file;
    const Diagnostic& d = sink.diagnostics()[0];
    EXPECT_EQ(d.code, "E0002");
    EXPECT_EQ(d.file, file.string());
    EXPECT_EQ(d.line, 0);
    EXPECT_EQ(d.col, 0);
    EXPECT_TRUE(scene.objects.empty());
  }
}

TEST(SceneReader, ASyntaxErrorIsE0001AtTheParsersPositionAndNothingElse) {
  DiagnosticSink sink;
  const Scene scene =
      parse_scene("[[object]]\nname = \"a\"\nbogus = 1\nspeed = = 2\n", "s.toml", sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u) << printed(sink);
  EXPECT_EQ(sink.diagnostics()[0].code, "E0001");
  EXPECT_EQ(sink.diagnostics()[0].line, 4);
  EXPECT_EQ(sink.diagnostics()[0].col, 9);
  EXPECT_TRUE(scene.objects.empty());
}

TEST(SceneReader, TheSourceTextIsKeptForTheCaret) {
  DiagnosticSink sink;
  parse_scene("[[mesh]]\nname = 1\n", "m.toml", sink);
  ASSERT_NE(sink.source("m.toml"), nullptr);
  EXPECT_EQ(*sink.source("m.toml"), "[[mesh]]\nname = 1\n");
}

// Every prefix of a good scene (and every one with a byte flipped) gives diagnostics with
// codes from the table and positions inside the text, and never throws.
TEST(SceneReader, NeverThrowsOnTruncatedOrCorruptText) {
  const std::string text = file_text(data("good/every_key.toml"));
  ASSERT_FALSE(text.empty());
  size_t runs = 0;
  const auto check = [&runs](const std::string& input) {
    DiagnosticSink sink;
    EXPECT_NO_THROW(parse_scene(input, "fuzz.toml", sink));
    for (const Diagnostic& d : sink.diagnostics()) {
      ASSERT_NE(find_diagnostic_code(d.code), nullptr) << d.code;
      ASSERT_GE(d.line, 0);
      ASSERT_GE(d.col, 0);
      (void)format_diagnostic(d, DiagnosticFormat::kGcc, sink.source(d.file));
    }
    ++runs;
  };
  for (size_t n = 0; n <= text.size(); n += 3) check(text.substr(0, n));
  const char replacements[] = {'"', '[', ']', '=', '\n', '-', 'x', '0', '{', ',', '\x80'};
  for (size_t i = 0; i < text.size(); i += 7) {
    std::string mutated = text;
    mutated[i] = replacements[i % sizeof replacements];
    check(mutated);
  }
  EXPECT_GT(runs, 100u);
}

// docs/scene-format.md's example scene is a good scene.
TEST(SceneFormatDoc, TheExampleSceneReadsClean) {
  const std::string doc = file_text(fs::path(ANIMPACK_SOURCE_DIR) / "docs/scene-format.md");
  const std::string open = "```toml\n";
  const size_t begin = doc.find(open);
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```\n", begin + open.size());
  ASSERT_NE(end, std::string::npos);
  DiagnosticSink sink;
  const Scene scene =
      parse_scene(doc.substr(begin + open.size(), end - begin - open.size()), "doc.toml", sink);
  EXPECT_TRUE(sink.diagnostics().empty()) << printed(sink);
  EXPECT_GE(scene.objects.size(), 2u);
  // It shows every new key: a state machine, layers and mesh events.
  ASSERT_FALSE(scene.meshes.empty());
  EXPECT_FALSE(scene.meshes[0].events.empty());
  bool graph = false;
  for (const SceneObject& o : scene.objects) {
    if (o.animation && !o.animation->states.empty() && !o.animation->layers.empty()) graph = true;
  }
  EXPECT_TRUE(graph);
  // A sprite from an atlas data file, with clips by frame names and by prefix.
  bool data_atlas = false;
  for (const SceneObject& o : scene.objects) {
    if (!o.animation || !o.animation->atlas_data) continue;
    for (const SceneSpriteClip& c : o.animation->clips) {
      data_atlas = data_atlas || !c.frame_names.empty() || !c.prefix.empty();
    }
  }
  EXPECT_TRUE(data_atlas);
  // And root motion and IK of every kind, on a mesh with its axes written out.
  bool root_motion = false;
  std::set<IkKind> kinds;
  for (const SceneObject& o : scene.objects) {
    if (!o.animation) continue;
    root_motion = root_motion || o.animation->root_motion.has_value();
    for (const SceneIk& ik : o.animation->ik) kinds.insert(ik.kind);
  }
  EXPECT_TRUE(root_motion);
  EXPECT_EQ(kinds.size(), 4u);
  bool axes = false;
  for (const SceneMesh& m : scene.meshes)
    axes = axes || (m.up_pos.known() && m.forward_pos.known());
  EXPECT_TRUE(axes);
  // And Step 5's mesh keys: clip sources of every kind, max_influences and a humanoid map.
  bool cut = false, retarget = false, selection = false, other_file = false;
  for (const SceneMesh& m : scene.meshes) {
    for (const SceneClipSource& c : m.clips) {
      cut = cut || c.cut;
      retarget = retarget || !c.retarget_from.empty();
      selection = selection || (!c.include.empty() && !c.exclude.empty() && !c.rename.empty());
      other_file = other_file || !c.file.empty();
    }
  }
  EXPECT_TRUE(cut && retarget && selection && other_file);
  const SceneMesh* guard = find_mesh(scene, "guard");
  ASSERT_NE(guard, nullptr);
  EXPECT_EQ(guard->max_influences, 4);
  EXPECT_FALSE(guard->humanoid.empty());
}

// docs/scene-format.md names every key the reader takes.
TEST(SceneFormatDoc, ListsEveryKey) {
  const std::string doc = file_text(fs::path(ANIMPACK_SOURCE_DIR) / "docs/scene-format.md");
  for (const char* key : {"format",
                          "name",
                          "file",
                          "mesh",
                          "material",
                          "face_camera",
                          "content",
                          "position",
                          "rotation",
                          "scale",
                          "clip",
                          "blend",
                          "weight",
                          "events",
                          "time",
                          "frame",
                          "speed",
                          "playback",
                          "start",
                          "atlas",
                          "grid",
                          "rects",
                          "spacing",
                          "margin",
                          "fps",
                          "clips",
                          "from",
                          "to",
                          "parameters",
                          "states",
                          "transitions",
                          "layers",
                          "type",
                          "default",
                          "min",
                          "max",
                          "points",
                          "at",
                          "blend_parameter",
                          "blend_parameter_y",
                          "speed_parameter",
                          "when",
                          "exit_time",
                          "fade",
                          "parameter",
                          "above",
                          "below",
                          "is",
                          "trigger",
                          "weight_parameter",
                          "mask",
                          "additive",
                          "reference",
                          "joint",
                          "subtree",
                          "up",
                          "forward",
                          "root_motion",
                          "ik",
                          "policy",
                          "extract",
                          "rate",
                          "feet",
                          "kind",
                          "joints",
                          "target",
                          "pole",
                          "soften",
                          "twist",
                          "max_angle",
                          "iterations",
                          "hips",
                          "include",
                          "exclude",
                          "rename",
                          "retarget_from",
                          "max_influences",
                          "humanoid"}) {
    EXPECT_NE(doc.find("| `" + std::string(key) + "` |"), std::string::npos) << key;
  }
}

}  // namespace
}  // namespace animpack
