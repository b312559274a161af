// State machines, layers and mesh events through `cook_scene`, over the corpus Fox (clips
// Survey, Walk, Run; joints b_Root_00 ... b_Spine02_03, b_Neck_04 ...): every name
// resolved against the mesh's rig at its key (with a close spelling), masks expanded to
// one weight per joint, additive clips cooked once per (clip, reference) per rig, and
// CookedAnimation::graph holding rig, parameter and state indices.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

const fs::path kFox =
    fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/corpus/gltf/Fox/glTF-Binary/Fox.glb";

class CookGraph : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("animpack_graph_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Cooks `text` after a [[mesh]] "fox" (lines 1-3; `mesh_extra` from line 4).
  CookOutput cook(const std::string& text, const std::string& mesh_extra = "") {
    const fs::path scene = dir_ / "scene.toml";
    std::ofstream(scene, std::ios::binary)
        << "[[mesh]]\nname = \"fox\"\nfile = \"" + kFox.string() + "\"\n" + mesh_extra + text;
    sink_ = DiagnosticSink();
    CookOutput out = cook_scene(scene, sink_);
    sink_.sort();
    return out;
  }

  // Errors and warnings as "CODE line:col", notes left out.
  std::vector<std::string> problems() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : sink_.diagnostics()) {
      if (d.severity == Severity::kNote) continue;
      out.push_back(d.code + " " + std::to_string(d.line) + ":" + std::to_string(d.col));
    }
    return out;
  }
  std::string printed() { return format_diagnostics(sink_, DiagnosticFormat::kGcc); }
  const Diagnostic* find(std::string_view code) const {
    for (const Diagnostic& d : sink_.diagnostics()) {
      if (d.code == code) return &d;
    }
    return nullptr;
  }

  fs::path dir_;
  DiagnosticSink sink_;
};

// An object "hero" on the fox from line 4; its [object.animation] body from line 7.
std::string hero(const std::string& body, const std::string& name = "hero") {
  return "[[object]]\nname = \"" + name + "\"\nmesh = \"fox\"\n[object.animation]\n" + body;
}

const std::string kMachine =
    "[object.animation.parameters]\n"                                       // 8
    "speed = { type = \"float\", default = 0.0, min = 0.0, max = 6.0 }\n"   // 9
    "jump = { type = \"trigger\" }\n"                                       // 10
    "tired = { type = \"float\", default = 0.25, min = 0.0, max = 1.0 }\n"  // 11
    "grounded = { type = \"bool\", default = true }\n"                      // 12
    "[object.animation.states.locomotion]\n"                                // 13
    "blend_parameter = \"speed\"\n"                                         // 14
    "points = [{ clip = \"Survey\", at = 0.0 }, { clip = \"Walk\", at = 1.5 },"
    " { clip = \"Run\", at = 4.0 }]\n"                                            // 15
    "[object.animation.states.leap]\n"                                            // 16
    "clip = \"Run\"\n"                                                            // 17
    "playback = \"once\"\n"                                                       // 18
    "speed = 1.5\n"                                                               // 19
    "[[object.animation.transitions]]\n"                                          // 20
    "from = \"*\"\n"                                                              // 21
    "to = \"leap\"\n"                                                             // 22
    "when = [{ trigger = \"jump\" }, { parameter = \"grounded\", is = true }]\n"  // 23
    "fade = 0.1\n"                                                                // 24
    "[[object.animation.transitions]]\n"                                          // 25
    "from = \"leap\"\n"                                                           // 26
    "to = \"locomotion\"\n"                                                       // 27
    "when = [{ parameter = \"speed\", below = 5 }]\n"                             // 28
    "exit_time = 0.95\n"                                                          // 29
    "fade = 0.2\n"                                                                // 30
    "[[object.animation.layers]]\n"                                               // 31
    "clip = \"Walk\"\n"                                                           // 32
    "weight = 0.5\n"                                                              // 33
    "mask = [\"b_Spine02_03\", { joint = \"b_Neck_04\", weight = 0.5 }]\n"        // 34
    "[[object.animation.layers]]\n"                                               // 35
    "clip = \"Survey\"\n"                                                         // 36
    "additive = true\n"                                                           // 37
    "weight_parameter = \"tired\"\n";                                             // 38

TEST_F(CookGraph, GraphIndicesResolveToTheRig) {
  const CookOutput out = cook(hero(kMachine));
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  ASSERT_EQ(out.pack.objects.size(), 1u);
  ASSERT_EQ(out.pack.rigs.size(), 1u);
  const Rig& rig = out.pack.rigs[0].rig;
  const CookedAnimation& a = out.pack.objects[0].animation;
  ASSERT_TRUE(a.graph.has_value());
  const GraphDef& g = *a.graph;
  const Result<void> valid = g.validate(rig);
  EXPECT_TRUE(valid) << (valid ? "" : valid.error().message());
  const uint16_t survey = *rig.find_clip("Survey"), walk = *rig.find_clip("Walk"),
                 run = *rig.find_clip("Run");

  ASSERT_EQ(g.parameters.size(), 4u);
  EXPECT_EQ(g.parameters[0].name, "speed");
  EXPECT_EQ(g.parameters[0].max, 6.0f);
  EXPECT_EQ(g.parameters[1].kind, ParameterKind::kTrigger);
  EXPECT_EQ(g.parameters[2].default_value, 0.25f);
  EXPECT_EQ(g.parameters[3].kind, ParameterKind::kBool);
  EXPECT_EQ(g.parameters[3].default_value, 1.0f);

  ASSERT_EQ(g.states.size(), 2u);
  EXPECT_EQ(g.states[0].name, "locomotion") << "document order: the first state starts";
  EXPECT_EQ(g.states[0].clip, -1);
  ASSERT_EQ(g.states[0].points.size(), 3u);
  EXPECT_EQ(g.states[0].points[0].clip, survey);
  EXPECT_EQ(g.states[0].points[1].clip, walk);
  EXPECT_EQ(g.states[0].points[1].x, 1.5f);
  EXPECT_EQ(g.states[0].points[2].clip, run);
  EXPECT_EQ(g.states[0].x_parameter, 0);
  EXPECT_EQ(g.states[0].y_parameter, -1);
  EXPECT_EQ(g.states[1].clip, run);
  EXPECT_EQ(g.states[1].playback, Playback::kOnce);
  EXPECT_EQ(g.states[1].speed, 1.5f);

  ASSERT_EQ(g.transitions.size(), 2u);
  EXPECT_EQ(g.transitions[0].from, -1) << "\"*\"";
  EXPECT_EQ(g.transitions[0].to, 1);
  EXPECT_DOUBLE_EQ(g.transitions[0].fade, 0.1f);
  ASSERT_EQ(g.transitions[0].conditions.size(), 2u);
  EXPECT_EQ(g.transitions[0].conditions[0].kind, ConditionKind::kTrigger);
  EXPECT_EQ(g.transitions[0].conditions[0].parameter, 1);
  EXPECT_EQ(g.transitions[0].conditions[1].kind, ConditionKind::kIs);
  EXPECT_EQ(g.transitions[0].conditions[1].parameter, 3);
  EXPECT_EQ(g.transitions[0].conditions[1].value, 1.0f);
  EXPECT_EQ(g.transitions[1].from, 1);
  EXPECT_EQ(g.transitions[1].to, 0);
  ASSERT_EQ(g.transitions[1].conditions.size(), 2u);
  EXPECT_EQ(g.transitions[1].conditions[0].kind, ConditionKind::kBelow);
  EXPECT_EQ(g.transitions[1].conditions[0].parameter, 0);
  EXPECT_EQ(g.transitions[1].conditions[0].value, 5.0f);
  EXPECT_EQ(g.transitions[1].conditions[1].kind, ConditionKind::kExitTime);
  EXPECT_EQ(g.transitions[1].conditions[1].parameter, -1);
  EXPECT_EQ(g.transitions[1].conditions[1].value, 0.95f);

  ASSERT_EQ(g.layers.size(), 2u);
  const LayerDef& wave = g.layers[0];
  EXPECT_EQ(wave.mode, LayerMode::kOverride);
  EXPECT_EQ(wave.clip, walk);
  EXPECT_EQ(wave.weight, 0.5f);
  EXPECT_EQ(wave.weight_parameter, -1);
  ASSERT_EQ(wave.mask.size(), static_cast<size_t>(rig.skeleton().joint_count()));
  const Skeleton& sk = rig.skeleton();
  EXPECT_EQ(wave.mask[static_cast<size_t>(sk.find_joint("b_Spine02_03"))], 1.0f);
  EXPECT_EQ(wave.mask[static_cast<size_t>(sk.find_joint("b_LeftHand_011"))], 1.0f)
      << "a name covers its subtree";
  EXPECT_EQ(wave.mask[static_cast<size_t>(sk.find_joint("b_Neck_04"))], 0.5f);
  EXPECT_EQ(wave.mask[static_cast<size_t>(sk.find_joint("b_Head_05"))], 0.5f)
      << "a later entry overrides an earlier one";
  EXPECT_EQ(wave.mask[static_cast<size_t>(sk.find_joint("b_Hip_01"))], 0.0f)
      << "joints no entry covers weigh 0";
  const LayerDef& breathe = g.layers[1];
  EXPECT_EQ(breathe.mode, LayerMode::kAdditive);
  EXPECT_TRUE(breathe.mask.empty()) << "no `mask`: every joint";
  EXPECT_EQ(breathe.weight_parameter, 2);
  ASSERT_LT(breathe.clip, rig.clip_count());
  const Clip& additive = rig.clips()[breathe.clip];
  EXPECT_EQ(additive.name(), "Survey");
  EXPECT_EQ(additive.additive(), AdditiveReference::kFirstFrame);
  EXPECT_EQ(breathe.clip, 3) << "appended after the file's three clips";
  ASSERT_EQ(out.pack.rigs[0].clip_source_animations.size(), 4u);
  EXPECT_EQ(out.pack.rigs[0].clip_source_animations[3],
            out.pack.rigs[0].clip_source_animations[survey]);
}

TEST_F(CookGraph, AdditiveClipIsCookedOncePerReference) {
  const std::string layers =
      "clip = \"Walk\"\n"
      "[[object.animation.layers]]\nclip = \"Survey\"\nadditive = true\n"
      "[[object.animation.layers]]\nclip = \"Survey\"\nadditive = true\n"
      "reference = \"first_frame\"\n"
      "[[object.animation.layers]]\nclip = \"Survey\"\nadditive = true\n"
      "reference = \"rest_pose\"\n";
  const CookOutput out = cook(hero(layers, "a") + hero(layers, "b"));
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  const Rig& rig = out.pack.rigs[0].rig;
  EXPECT_EQ(rig.clip_count(), 5) << "Survey, Walk, Run + Survey against each reference";
  const uint16_t first = *rig.find_clip("Survey", AdditiveReference::kFirstFrame);
  const uint16_t rest = *rig.find_clip("Survey", AdditiveReference::kRestPose);
  EXPECT_NE(first, rest);
  for (const CookedObject& o : out.pack.objects) {
    ASSERT_TRUE(o.animation.graph) << o.name;
    const GraphDef& g = *o.animation.graph;
    EXPECT_TRUE(g.states.empty()) << "layers need no states";
    ASSERT_EQ(g.layers.size(), 3u);
    EXPECT_EQ(g.layers[0].clip, first);
    EXPECT_EQ(g.layers[1].clip, first);
    EXPECT_EQ(g.layers[2].clip, rest);
    EXPECT_TRUE(g.validate(rig));
  }
  EXPECT_EQ(out.pack.objects[0].animation.clip, *rig.find_clip("Walk"))
      << "the animation's clip under the layers";
  EXPECT_EQ(out.pack.rigs[0].clip_source_animations.size(), 5u);
}

TEST_F(CookGraph, MaskJointNameIsCheckedAgainstTheRig) {
  cook(
      hero("clip = \"Walk\"\n"                                                      // 8
           "[[object.animation.layers]]\n"                                          // 9
           "clip = \"Survey\"\n"                                                    // 10
           "mask = [\"b_Spine02_03\", \"b_Spine2_03\", { joint = \"Neck\" }]\n"));  // 11
  EXPECT_EQ(problems(), (std::vector<std::string>{"E0211 11:25", "E0211 11:42"})) << printed();
  const Diagnostic* d = find("E0211");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("mask joint 'b_Spine2_03' is not a joint of mesh fox; did you mean "
                            "`b_Spine02_03`?"),
            std::string::npos)
      << d->message;
}

TEST_F(CookGraph, ClipsOfStatesPointsAndLayersAreCheckedAgainstTheRig) {
  cook(
      hero("[object.animation.states.a]\n"                                         // 8
           "clip = \"Wlak\"\n"                                                     // 9
           "[object.animation.states.b]\n"                                         // 10
           "blend_parameter = \"x\"\n"                                             // 11
           "points = [{ clip = \"Walk\", at = 0 }, { clip = \"Jog\", at = 1 }]\n"  // 12
           "[object.animation.parameters]\n"                                       // 13
           "x = { type = \"float\" }\n"                                            // 14
           "[[object.animation.transitions]]\nfrom = \"a\"\nto = \"b\"\n"          // 15-17
           "[[object.animation.layers]]\nclip = \"Srvey\"\nadditive = true\n"));   // 18-20
  EXPECT_EQ(problems(), (std::vector<std::string>{"E0202 9:1", "E0202 12:40", "E0202 19:1"}))
      << printed();
  const Diagnostic* d = find("E0202");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("mesh fox has no clip Wlak (its clips: Survey, Walk, Run); did you "
                            "mean `Walk`?"),
            std::string::npos)
      << d->message;
}

TEST_F(CookGraph, MeshEventsReachEveryObjectOnTheMesh) {
  const CookOutput out =
      cook(hero("clip = \"Walk\"\n", "a") + hero("clip = \"Run\"\n", "b") +
               hero("clip = \"Walk\"\n[[object.animation.layers]]\nclip = \"Walk\"\n"
                    "additive = true\n",
                    "c"),
           "events = [{ name = \"step\", clip = \"Walk\", time = 0.25 },"
           " { name = \"step\", clip = \"Run\", time = 0.1 }]\n");
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  const Rig& rig = out.pack.rigs[0].rig;
  const Clip& walk = rig.clips()[*rig.find_clip("Walk")];
  ASSERT_EQ(walk.events().size(), 1u);
  EXPECT_EQ(walk.events()[0].name, "step");
  EXPECT_EQ(walk.events()[0].time, 0.25f);
  EXPECT_EQ(rig.clips()[*rig.find_clip("Run")].events().size(), 1u);
  EXPECT_TRUE(rig.clips()[*rig.find_clip("Survey")].events().empty());
  // The events are on the rig's clips, not the objects': every object on the mesh plays
  // them, and the additive version of Walk carries them too.
  for (const CookedObject& o : out.pack.objects) EXPECT_TRUE(o.animation.events.empty());
  const Clip& walk_add = rig.clips()[*rig.find_clip("Walk", AdditiveReference::kFirstFrame)];
  ASSERT_EQ(walk_add.events().size(), 1u);
  EXPECT_EQ(walk_add.events()[0].name, "step");
}

TEST_F(CookGraph, MeshEventsOnUnknownClipsOrPastTheEndAreReportedAtTheKey) {
  const CookOutput out = cook(hero("clip = \"Walk\"\n"),
                              "events = [{ name = \"step\", clip = \"Wlk\", time = 0.25 },"
                              " { name = \"late\", clip = \"Run\", time = 100 }]\n");
  EXPECT_EQ(problems(), (std::vector<std::string>{"E0203 4:28", "W0204 4:88"})) << printed();
  EXPECT_NE(find("E0203")->message.find("did you mean `Walk`?"), std::string::npos);
  EXPECT_TRUE(out.pack.rigs[0].rig.clips()[*out.pack.rigs[0].rig.find_clip("Run")].events().empty())
      << "dropped";
}

// What the cooker makes, the runtime opens and plays: the pack holds the graph and the
// additive clip, verify_pack passes, and the machine runs on the scene player.
TEST_F(CookGraph, TheCookedPackOpensAndPlaysItsStateMachine) {
  const CookOutput out =
      cook(hero(kMachine), "events = [{ name = \"step\", clip = \"Walk\", time = 0.25 }]\n");
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  const std::vector<uint8_t> bytes = write_pack(out.pack);
  DiagnosticSink verify;
  EXPECT_TRUE(verify_pack(bytes, dir_ / "scene.toml", verify))
      << format_diagnostics(verify, DiagnosticFormat::kGcc);
  Result<Pack> pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  const std::optional<GraphDef>& graph = pack->objects()[0].animation.graph;
  ASSERT_TRUE(graph.has_value());
  EXPECT_EQ(graph->states.size(), 2u);
  EXPECT_EQ(graph->layers.size(), 2u);
  EXPECT_EQ(graph->layers[1].mode, LayerMode::kAdditive);
  Result<ScenePlayer> player = ScenePlayer::create(&*pack, 60);
  ASSERT_TRUE(player) << player.error().message();
  const ObjectId hero{0};
  EXPECT_EQ(player->state(hero), "locomotion");
  ASSERT_TRUE(player->set_parameter(hero, "speed", 2.0f));
  ASSERT_TRUE(player->fire_trigger(hero, "jump"));
  player->step();
  EXPECT_EQ(player->state(hero), "leap") << "from any state, on the trigger";
}

TEST_F(CookGraph, AnAnimationWithoutGraphKeysHasNoGraph) {
  const CookOutput out = cook(hero("clip = \"Walk\"\n"));
  ASSERT_EQ(problems(), std::vector<std::string>{}) << printed();
  EXPECT_FALSE(out.pack.objects[0].animation.graph.has_value());
}

}  // namespace
}  // namespace animpack
