// The scene reader on state machines, layers and mesh events (docs/scene-format.md,
// "State machines and layers"): every new key reads to its value and position, and every
// rule the file alone decides is one diagnostic at its key, checked here by code, line,
// column and message, one test per rule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "animpack/compiler/scene.h"
#include "scene/scene_read.h"

namespace animpack {
namespace {

using scene_test::Read;

Read read(const std::string& text) { return scene_test::read(text, "graph.toml"); }

using scene_test::all;

// A skeletal object "hero" on mesh "figure"; its [object.animation] header is line 7 and
// `body` starts on line 8.
std::string hero(const std::string& body) {
  return "[[mesh]]\nname = \"figure\"\nfile = \"figure.gltf\"\n[[object]]\nname = \"hero\"\n"
         "mesh = \"figure\"\n[object.animation]\n" +
         body;
}

// A working machine from line 8: parameters speed (float 0..6), jump (trigger), grounded
// (bool), tired (float 0..1); states idle (line 13) and air (line 15, NAME at 13:26 and
// 15:26); one transition into air. `more` follows from line 21.
std::string machine(const std::string& more = "") {
  return hero(
      "[object.animation.parameters]\n"                                      // 8
      "speed = { type = \"float\", default = 0.0, min = 0.0, max = 6.0 }\n"  // 9
      "jump = { type = \"trigger\" }\n"                                      // 10
      "grounded = { type = \"bool\", default = true }\n"                     // 11
      "tired = { type = \"float\", min = 0.0, max = 1.0 }\n"                 // 12
      "[object.animation.states.idle]\n"                                     // 13
      "clip = \"Idle\"\n"                                                    // 14
      "[object.animation.states.air]\n"                                      // 15
      "clip = \"Jump\"\n"                                                    // 16
      "[[object.animation.transitions]]\n"                                   // 17
      "from = \"idle\"\n"                                                    // 18
      "to = \"air\"\n"                                                       // 19
      "when = [{ trigger = \"jump\" }]\n" +                                  // 20
      more);
}

// The scene gives exactly one diagnostic: `code` at line:col, its message containing
// `words`.
void expect_one(const std::string& text, std::string_view code, int line, int col,
                std::string_view words) {
  const Read r = read(text);
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.code, code) << all(r);
  EXPECT_EQ(d.line, line) << all(r);
  EXPECT_EQ(d.col, col) << all(r);
  EXPECT_NE(d.message.find(words), std::string::npos) << all(r);
}

TEST(SceneGraph, TheWorkingMachineReadsClean) {
  const Read r = read(machine());
  EXPECT_TRUE(r.diagnostics.empty()) << all(r);
}

TEST(SceneGraph, EveryKeyReadsToItsValueAndPosition) {
  const Read r = read(hero(
      "[object.animation.parameters]\n"                                              // 8
      "speed = { type = \"float\", default = 0.5, min = 0.0, max = 6.0 }\n"          // 9
      "turn = { type = \"float\", min = 1.0, max = 2.0 }\n"                          // 10
      "jump = { type = \"trigger\" }\n"                                              // 11
      "grounded = { type = \"bool\", default = true }\n"                             // 12
      "pace = { type = \"float\", default = 1.0, min = 0.0, max = 2.0 }\n"           // 13
      "[object.animation.states.locomotion]\n"                                       // 14
      "blend_parameter = \"speed\"\n"                                                // 15
      "points = [{ clip = \"Idle\", at = 0.0 }, { clip = \"Run\", at = 4.0 }]\n"     // 16
      "speed_parameter = \"pace\"\n"                                                 // 17
      "playback = \"ping_pong\"\n"                                                   // 18
      "start = 0.25\n"                                                               // 19
      "[object.animation.states.steer]\n"                                            // 20
      "blend_parameter = \"speed\"\n"                                                // 21
      "blend_parameter_y = \"turn\"\n"                                               // 22
      "points = [{ clip = \"A\", at = [0, 1] }, { clip = \"B\", at = [1, 0.5] }]\n"  // 23
      "[object.animation.states.jump]\n"                                             // 24
      "clip = \"Jump\"\n"                                                            // 25
      "playback = \"once\"\n"                                                        // 26
      "speed = 2.0\n"                                                                // 27
      "[[object.animation.transitions]]\n"                                           // 28
      "from = \"*\"\n"                                                               // 29
      "to = \"jump\"\n"                                                              // 30
      "when = [{ trigger = \"jump\" }, { parameter = \"speed\", above = 0.5 },"
      " { parameter = \"grounded\", is = false }, { parameter = \"turn\", below = 1.5 }]\n"  // 31
      "fade = 0.1\n"                                                                         // 32
      "exit_time = 0.95\n"                                                                   // 33
      "[[object.animation.transitions]]\n"                                                   // 34
      "from = \"jump\"\n"                                                                    // 35
      "to = \"steer\"\n"                                                                     // 36
      "[[object.animation.layers]]\n"                                                        // 37
      "clip = \"Wave\"\n"                                                                    // 38
      "weight = 0.75\n"                                                                      // 39
      "mask = [\"Spine2\", { joint = \"Neck\", weight = 0.5, subtree = false }]\n"           // 40
      "speed = 1.5\n"                                                                        // 41
      "playback = \"once\"\n"                                                                // 42
      "[[object.animation.layers]]\n"                                                        // 43
      "clip = \"Breathe\"\n"                                                                 // 44
      "additive = true\n"                                                                    // 45
      "reference = \"rest_pose\"\n"                                                          // 46
      "weight_parameter = \"pace\"\n"));                                                     // 47
  // pace drives a speed (0..2, within 0..8), not a weight: refused for the weight.
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0151");
  EXPECT_EQ(r.diagnostics[0].line, 47);

  ASSERT_EQ(r.scene.objects.size(), 1u);
  const SceneAnimation& a = *r.scene.objects[0].animation;
  EXPECT_TRUE(a.has_graph());
  EXPECT_EQ(a.parameters_pos, (SourcePos{8, 19}));
  ASSERT_EQ(a.parameters.size(), 5u);
  const SceneParameter& speed = a.parameters[0];
  EXPECT_EQ(speed.name, "speed");
  EXPECT_EQ(speed.name_pos, (SourcePos{9, 1}));
  EXPECT_EQ(speed.type_pos, (SourcePos{9, 11}));
  EXPECT_EQ(speed.kind, ParameterKind::kFloat);
  EXPECT_EQ(speed.default_value, 0.5f);
  EXPECT_EQ(speed.min, 0.0f);
  EXPECT_EQ(speed.max, 6.0f);
  EXPECT_EQ(a.parameters[1].name, "turn") << "document order, not sorted";
  EXPECT_EQ(a.parameters[1].default_value, 1.0f) << "no default: 0 clamped into [min, max]";
  EXPECT_EQ(a.parameters[2].kind, ParameterKind::kTrigger);
  EXPECT_EQ(a.parameters[3].kind, ParameterKind::kBool);
  EXPECT_EQ(a.parameters[3].default_value, 1.0f);

  ASSERT_EQ(a.states.size(), 3u);
  const SceneState& loco = a.states[0];
  EXPECT_EQ(loco.name, "locomotion");
  EXPECT_EQ(loco.name_pos, (SourcePos{14, 26}));
  EXPECT_EQ(loco.blend_parameter, "speed");
  EXPECT_EQ(loco.blend_parameter_pos, (SourcePos{15, 1}));
  ASSERT_EQ(loco.points.size(), 2u);
  EXPECT_EQ(loco.points[1].clip, "Run");
  EXPECT_EQ(loco.points[1].x, 4.0f);
  EXPECT_EQ(loco.points[1].pos, (SourcePos{16, 40}));
  EXPECT_EQ(loco.points[1].clip_pos, (SourcePos{16, 42}));
  EXPECT_EQ(loco.points[1].at_pos, (SourcePos{16, 56}));
  EXPECT_EQ(loco.speed_parameter, "pace");
  EXPECT_EQ(loco.playback, Playback::kPingPong);
  EXPECT_EQ(loco.start, 0.25f);
  const SceneState& steer = a.states[1];
  EXPECT_EQ(steer.blend_parameter_y, "turn");
  ASSERT_EQ(steer.points.size(), 2u);
  EXPECT_EQ(steer.points[1].x, 1.0f);
  EXPECT_EQ(steer.points[1].y, 0.5f);
  const SceneState& jump = a.states[2];
  EXPECT_EQ(jump.clip, "Jump");
  EXPECT_EQ(jump.playback, Playback::kOnce);
  EXPECT_EQ(jump.speed, 2.0f);
  EXPECT_TRUE(jump.points.empty());

  ASSERT_EQ(a.transitions.size(), 2u);
  const SceneTransition& t = a.transitions[0];
  EXPECT_EQ(t.pos, (SourcePos{28, 1}));
  EXPECT_EQ(t.from, "*");
  EXPECT_EQ(t.to, "jump");
  EXPECT_EQ(t.to_pos, (SourcePos{30, 1}));
  EXPECT_EQ(t.fade, 0.1f);
  ASSERT_EQ(t.conditions.size(), 5u) << "four `when` entries, then exit_time";
  EXPECT_EQ(t.conditions[0].kind, ConditionKind::kTrigger);
  EXPECT_EQ(t.conditions[0].parameter, "jump");
  EXPECT_EQ(t.conditions[0].parameter_pos, (SourcePos{31, 11}));
  EXPECT_EQ(t.conditions[1].kind, ConditionKind::kAbove);
  EXPECT_EQ(t.conditions[1].parameter, "speed");
  EXPECT_EQ(t.conditions[1].value, 0.5f);
  EXPECT_EQ(t.conditions[2].kind, ConditionKind::kIs);
  EXPECT_EQ(t.conditions[2].value, 0.0f);
  EXPECT_EQ(t.conditions[3].kind, ConditionKind::kBelow);
  EXPECT_EQ(t.conditions[4].kind, ConditionKind::kExitTime);
  EXPECT_EQ(t.conditions[4].value, 0.95f);
  EXPECT_EQ(t.conditions[4].pos, (SourcePos{33, 1}));
  EXPECT_TRUE(a.transitions[1].conditions.empty());

  ASSERT_EQ(a.layers.size(), 2u);
  const SceneLayer& wave = a.layers[0];
  EXPECT_EQ(wave.pos, (SourcePos{37, 1}));
  EXPECT_EQ(wave.clip, "Wave");
  EXPECT_EQ(wave.weight, 0.75f);
  EXPECT_FALSE(wave.additive);
  EXPECT_EQ(wave.reference, AdditiveReference::kNone);
  EXPECT_EQ(wave.speed, 1.5f);
  EXPECT_EQ(wave.playback, Playback::kOnce);
  EXPECT_EQ(wave.mask.size(), 2u);
  const SceneLayer& breathe = a.layers[1];
  EXPECT_TRUE(breathe.additive);
  EXPECT_EQ(breathe.reference, AdditiveReference::kRestPose);
  EXPECT_EQ(breathe.weight_parameter, "pace");
}

TEST(SceneLayers, MaskEntriesTakeStringsAndTables) {
  const Read r =
      read(hero("clip = \"Walk\"\n"              // 8
                "[[object.animation.layers]]\n"  // 9
                "clip = \"Wave\"\n"              // 10
                "mask = [\"Spine2\", { joint = \"Neck\", weight = 0.5 },"
                " { joint = \"Hips\", subtree = false, weight = 0.0 }]\n"));  // 11
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  const SceneAnimation& a = *r.scene.objects[0].animation;
  EXPECT_EQ(a.clip, "Walk") << "layers need no states";
  ASSERT_EQ(a.layers.size(), 1u);
  const std::vector<SceneMaskEntry>& mask = a.layers[0].mask;
  ASSERT_EQ(mask.size(), 3u);
  EXPECT_EQ(mask[0].joint, "Spine2");
  EXPECT_EQ(mask[0].weight, 1.0f);
  EXPECT_TRUE(mask[0].subtree);
  EXPECT_EQ(mask[0].pos, (SourcePos{11, 9}));
  EXPECT_EQ(mask[0].joint_pos, (SourcePos{11, 9}));
  EXPECT_EQ(mask[1].joint, "Neck");
  EXPECT_EQ(mask[1].weight, 0.5f);
  EXPECT_TRUE(mask[1].subtree);
  EXPECT_EQ(mask[1].pos, (SourcePos{11, 19}));
  EXPECT_EQ(mask[1].joint_pos, (SourcePos{11, 21}));
  EXPECT_EQ(mask[2].joint, "Hips");
  EXPECT_FALSE(mask[2].subtree);
  EXPECT_EQ(mask[2].weight, 0.0f);
  EXPECT_TRUE(a.layers[0].mask_pos.known());
  EXPECT_EQ(a.layers[0].weight, 1.0f);
}

TEST(SceneLayers, NoMaskMeansEveryJoint) {
  const Read r = read(hero("[[object.animation.layers]]\nclip = \"Wave\"\n"));
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  EXPECT_TRUE(r.scene.objects[0].animation->layers[0].mask.empty());
  EXPECT_FALSE(r.scene.objects[0].animation->layers[0].mask_pos.known());
}

TEST(SceneLayers, AnAdditiveLayerDefaultsToTheFirstFrame) {
  const Read r = read(hero("[[object.animation.layers]]\nclip = \"Breathe\"\nadditive = true\n"));
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  EXPECT_EQ(r.scene.objects[0].animation->layers[0].reference, AdditiveReference::kFirstFrame);
}

TEST(SceneMesh, EventsOnTheMeshAreRead) {
  const Read r = read(
      "[[mesh]]\nname = \"figure\"\nfile = \"figure.gltf\"\n"
      "events = [{ name = \"step\", clip = \"Walk\", time = 0.25 },"
      " { name = \"land\", clip = \"Jump\", time = 1 }]\n");
  ASSERT_TRUE(r.diagnostics.empty()) << all(r);
  const SceneMesh& mesh = r.scene.meshes[0];
  EXPECT_EQ(mesh.events_pos, (SourcePos{4, 1}));
  ASSERT_EQ(mesh.events.size(), 2u);
  EXPECT_EQ(mesh.events[0].name, "step");
  EXPECT_EQ(mesh.events[0].clip, "Walk");
  EXPECT_EQ(mesh.events[0].time, 0.25f);
  EXPECT_EQ(mesh.events[0].time_pos, (SourcePos{4, 43}));
  EXPECT_EQ(mesh.events[1].name, "land");
  EXPECT_EQ(mesh.events[1].time, 1.0f);
}

TEST(SceneMesh, AMeshEventIsCheckedAsAnObjectsEvent) {
  expect_one(
      "[[mesh]]\nname = \"figure\"\nfile = \"figure.gltf\"\n"
      "events = [{ name = \"step\", clip = \"Walk\", time = -1 }]\n",
      "E0128", 4, 43, "0 or more");
  expect_one(
      "[[mesh]]\nname = \"figure\"\nfile = \"figure.gltf\"\n"
      "events = [{ name = \"step\", clip = \"Walk\", time = 0, frame = 2 }]\n",
      "E0117", 4, 53, "[[mesh]]'s events");
  expect_one("[[mesh]]\nname = \"figure\"\nfile = \"figure.gltf\"\nevent = []\n", "E0101", 4, 1,
             "did you mean `events`?");
}

TEST(SceneGraph, UnknownParameterTypeIsAnErrorAtType) {
  expect_one(hero("[object.animation.parameters]\nspeed = { type = \"flaot\" }\n"
                  "[object.animation.states.a]\nclip = \"A\"\n"),
             "E0136", 9, 11, "did you mean `float`?");
}

TEST(SceneGraph, DefaultOutsideTheRangeOrMinAboveMaxIsAnError) {
  expect_one(hero("[object.animation.parameters]\n"
                  "speed = { type = \"float\", default = 7, min = 0, max = 6 }\n"
                  "[object.animation.states.a]\nclip = \"A\"\n"),
             "E0137", 9, 27, "outside its range [0, 6]");
  expect_one(hero("[object.animation.parameters]\n"
                  "speed = { type = \"float\", min = 2, max = 1 }\n"
                  "[object.animation.states.a]\nclip = \"A\"\n"),
             "E0137", 9, 36, "below its `min`");
}

TEST(SceneGraph, KeysTheParameterTypeDoesNotTakeAreErrors) {
  expect_one(hero("[object.animation.parameters]\njump = { type = \"trigger\", default = 1 }\n"
                  "[object.animation.states.a]\nclip = \"A\"\n"),
             "E0138", 9, 28, "takes no `default`");
  expect_one(hero("[object.animation.parameters]\nok = { type = \"bool\", max = 1 }\n"
                  "[object.animation.states.a]\nclip = \"A\"\n"),
             "E0138", 9, 23, "only float parameters have a range");
  expect_one(hero("[object.animation.parameters]\nok = { type = \"bool\", default = 1 }\n"
                  "[object.animation.states.a]\nclip = \"A\"\n"),
             "E0102", 9, 23, "must be a boolean");
  expect_one(hero("[object.animation.parameters]\nok = { default = 1 }\n"
                  "[object.animation.states.a]\nclip = \"A\"\n"),
             "E0103", 9, 1, "has no `type`");
}

TEST(SceneGraph, AStateWithBothOrNeitherOfClipAndPointsIsAnError) {
  expect_one(hero("[object.animation.states.a]\nclip = \"A\"\nblend_parameter = \"x\"\n"
                  "points = [{ clip = \"A\", at = 0 }, { clip = \"B\", at = 1 }]\n"
                  "[object.animation.parameters]\nx = { type = \"float\" }\n"),
             "E0139", 11, 1, "both `clip` and `points`");
  expect_one(hero("[object.animation.states.a]\nplayback = \"once\"\n"), "E0139", 8, 26,
             "neither `clip` nor `points`");
}

TEST(SceneGraph, OnePointBlendSpaceIsAnError) {
  expect_one(machine("[object.animation.states.walk]\nblend_parameter = \"speed\"\n"
                     "points = [{ clip = \"Walk\", at = 1 }]\n"
                     "[[object.animation.transitions]]\nfrom = \"*\"\nto = \"walk\"\n"),
             "E0140", 23, 1, "needs at least 2");
}

TEST(SceneGraph, CoincidentBlendPointsAreAnError) {
  expect_one(machine("[object.animation.states.walk]\nblend_parameter = \"speed\"\n"
                     "points = [{ clip = \"Walk\", at = 1 }, { clip = \"Run\", at = 1.0 }]\n"
                     "[[object.animation.transitions]]\nfrom = \"*\"\nto = \"walk\"\n"),
             "E0140", 23, 54, "same place as the point at line 23");
  expect_one(machine("[object.animation.states.walk]\nblend_parameter = \"speed\"\n"
                     "blend_parameter_y = \"tired\"\n"
                     "points = [{ clip = \"A\", at = [0, 1] }, { clip = \"B\", at = [1, 1] },"
                     " { clip = \"C\", at = [0, 1] }]\n"
                     "[[object.animation.transitions]]\nfrom = \"*\"\nto = \"walk\"\n"),
             "E0140", 24, 83, "[0, 1]");
}

TEST(SceneGraph, APointOfTheWrongDimensionIsAnError) {
  expect_one(machine("[object.animation.states.walk]\nblend_parameter = \"speed\"\n"
                     "points = [{ clip = \"A\", at = [0, 1] }, { clip = \"B\", at = 1 }]\n"
                     "[[object.animation.transitions]]\nfrom = \"*\"\nto = \"walk\"\n"),
             "E0141", 23, 25, "the blend space is 1D");
  expect_one(machine("[object.animation.states.walk]\nblend_parameter = \"speed\"\n"
                     "blend_parameter_y = \"tired\"\n"
                     "points = [{ clip = \"A\", at = [0, 1] }, { clip = \"B\", at = 1 }]\n"
                     "[[object.animation.transitions]]\nfrom = \"*\"\nto = \"walk\"\n"),
             "E0141", 24, 54, "the blend space is 2D");
}

TEST(SceneGraph, BlendParametersMissingOrMisplacedAreErrors) {
  expect_one(machine("[object.animation.states.walk]\n"
                     "points = [{ clip = \"A\", at = 0 }, { clip = \"B\", at = 1 }]\n"
                     "[[object.animation.transitions]]\nfrom = \"*\"\nto = \"walk\"\n"),
             "E0142", 22, 1, "no `blend_parameter`");
  expect_one(machine("[object.animation.states.walk]\nblend_parameter_y = \"tired\"\n"
                     "points = [{ clip = \"A\", at = [0, 0] }, { clip = \"B\", at = [1, 0] }]\n"
                     "[[object.animation.transitions]]\nfrom = \"*\"\nto = \"walk\"\n"),
             "E0142", 22, 1, "no `blend_parameter`");
  expect_one(machine("[object.animation.states.walk]\nclip = \"Walk\"\nblend_parameter = "
                     "\"speed\"\n[[object.animation.transitions]]\nfrom = \"*\"\nto = \"walk\"\n"),
             "E0142", 23, 1, "plays a `clip`");
}

TEST(SceneGraph, AValueAndItsParameterBothAreAnError) {
  expect_one(machine("[[object.animation.layers]]\nclip = \"Wave\"\nweight = 1\n"
                     "weight_parameter = \"tired\"\n"),
             "E0143", 24, 1, "both `weight` and `weight_parameter`");
  expect_one(hero("[object.animation.parameters]\n"
                  "pace = { type = \"float\", min = 0, max = 2 }\n"
                  "[object.animation.states.a]\nclip = \"A\"\nspeed_parameter = \"pace\"\n"
                  "speed = 1\n"),
             "E0143", 13, 1, "both `speed` and `speed_parameter`");
}

TEST(SceneLayers, AReferenceWithoutAdditiveIsAnError) {
  expect_one(hero("[[object.animation.layers]]\nclip = \"Breathe\"\nreference = \"rest_pose\"\n"),
             "E0144", 10, 1, "not additive");
  expect_one(hero("[[object.animation.layers]]\nclip = \"B\"\nadditive = false\nreference = "
                  "\"first_frame\"\n"),
             "E0144", 11, 1, "not additive");
}

TEST(SceneGraph, AnimationKeysWithStatesAreErrorsAtTheKey) {
  const Read r =
      read(hero("clip = \"Walk\"\nspeed = 2\n[object.animation.states.a]\n"
                "clip = \"A\"\n"));
  ASSERT_EQ(r.diagnostics.size(), 2u) << all(r);
  EXPECT_EQ(r.diagnostics[0].code, "E0145");
  EXPECT_EQ(r.diagnostics[0].line, 8);
  EXPECT_NE(r.diagnostics[0].message.find("decided by the states"), std::string::npos);
  EXPECT_EQ(r.diagnostics[1].code, "E0145");
  EXPECT_EQ(r.diagnostics[1].line, 9);
}

TEST(SceneGraph, ParametersOrTransitionsWithoutStatesAreErrors) {
  expect_one(hero("clip = \"Walk\"\n[object.animation.parameters]\nx = { type = \"bool\" }\n"),
             "E0146", 9, 19, "needs `states`");
  expect_one(hero("clip = \"Walk\"\n[[object.animation.transitions]]\nfrom = \"a\"\nto = "
                  "\"b\"\n"),
             "E0146", 9, 20, "needs `states`");
}

TEST(SceneGraph, TransitionToUnknownStateIsAnErrorAtTo) {
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idel\"\n"), "E0147",
             23, 1, "no state `idel`; did you mean `idle`?");
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"ari\"\nto = \"idle\"\n"), "E0147",
             22, 1, "did you mean `air`?");
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"*\"\n"), "E0147", 23,
             1, "only for `from`");
  expect_one(hero("[object.animation.states.\"*\"]\nclip = \"A\"\n"), "E0147", 8, 26,
             "may not be named `*`");
}

TEST(SceneGraph, ConditionOnAnUndeclaredParameterIsAnError) {
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idle\"\n"
                     "when = [{ parameter = \"sped\", above = 1 }]\n"),
             "E0148", 24, 11, "no parameter `sped`; did you mean `speed`?");
  expect_one(machine("[[object.animation.layers]]\nclip = \"W\"\nweight_parameter = \"tierd\"\n"),
             "E0148", 23, 1, "did you mean `tired`?");
}

TEST(SceneGraph, ConditionOfTheWrongKindIsAnError) {
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idle\"\n"
                     "when = [{ parameter = \"grounded\", above = 1 }]\n"),
             "E0149", 24, 11, "needs a float parameter; `grounded` is a bool");
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idle\"\n"
                     "when = [{ trigger = \"speed\" }]\n"),
             "E0149", 24, 11, "needs a trigger parameter");
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idle\"\n"
                     "when = [{ parameter = \"jump\", is = true }]\n"),
             "E0149", 24, 11, "needs a bool parameter");
  expect_one(machine("[object.animation.states.walk]\nblend_parameter = \"grounded\"\n"
                     "points = [{ clip = \"A\", at = 0 }, { clip = \"B\", at = 1 }]\n"
                     "[[object.animation.transitions]]\nfrom = \"*\"\nto = \"walk\"\n"),
             "E0149", 22, 1, "it takes a float parameter");
}

TEST(SceneGraph, AWhenEntryMakesExactlyOneTest) {
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idle\"\n"
                     "when = [{ parameter = \"speed\", above = 1, below = 2 }]\n"),
             "E0150", 24, 43, "second test `below`");
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idle\"\n"
                     "when = [{ parameter = \"speed\" }]\n"),
             "E0150", 24, 9, "makes no test");
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idle\"\n"
                     "when = [{ trigger = \"jump\", parameter = \"jump\" }]\n"),
             "E0150", 24, 29, "takes no `parameter`");
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idle\"\n"
                     "when = [{ above = 1 }]\n"),
             "E0103", 24, 9, "no `parameter`");
}

TEST(SceneGraph, AWeightOrSpeedParameterMustDeclareARangeWithinWhatItDrives) {
  expect_one(machine("[[object.animation.layers]]\nclip = \"W\"\nweight_parameter = \"speed\"\n"),
             "E0151", 23, 1, "[0, 6] is not within [0, 1]");
  expect_one(hero("[object.animation.parameters]\npace = { type = \"float\" }\n"
                  "[object.animation.states.a]\nclip = \"A\"\nspeed_parameter = \"pace\"\n"),
             "E0151", 12, 1, "declares no `min` and `max`; declare them within [0, 8]");
}

TEST(SceneGraph, ExitTimeMustBePositive) {
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idle\"\n"
                     "exit_time = 0\n"),
             "E0152", 24, 1, "greater than 0");
}

TEST(SceneGraph, NegativeFadeIsAnError) {
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idle\"\n"
                     "fade = -0.5\n"),
             "E0153", 24, 1, "0 or more");
}

TEST(SceneLayers, AWeightOutsideZeroToOneIsAnError) {
  expect_one(hero("[[object.animation.layers]]\nclip = \"W\"\nweight = 1.5\n"), "E0154", 10, 1,
             "outside [0, 1]");
  expect_one(hero("[[object.animation.layers]]\nclip = \"W\"\n"
                  "mask = [{ joint = \"Neck\", weight = -0.5 }]\n"),
             "E0154", 10, 27, "outside [0, 1]");
}

TEST(SceneLayers, AnUnknownReferenceIsAnError) {
  expect_one(hero("[[object.animation.layers]]\nclip = \"W\"\nadditive = true\n"
                  "reference = \"rest_pos\"\n"),
             "E0155", 11, 1, "did you mean `rest_pose`?");
}

TEST(SceneLayers, AMaskTableWithoutJointOrAnEmptyMaskIsAnError) {
  expect_one(hero("[[object.animation.layers]]\nclip = \"W\"\nmask = [{ weight = 0.5 }]\n"),
             "E0103", 10, 9, "no `joint`");
  expect_one(hero("[[object.animation.layers]]\nclip = \"W\"\nmask = []\n"), "E0134", 10, 1,
             "leave it out");
  expect_one(hero("[[object.animation.layers]]\nclip = \"W\"\nmask = [\"\"]\n"), "E0109", 10, 9,
             "must not be empty");
  expect_one(
      hero("[[object.animation.layers]]\nclip = \"W\"\nmask = [{ joint = \"N\", sub = 1 }]\n"),
      "E0101", 10, 24, "mask entry 1 of layer 1");
}

TEST(SceneGraph, UnreachableStateIsAWarning) {
  const Read r =
      read(machine("[object.animation.states.lost]\nclip = \"Lost\"\n"
                   "[[object.animation.transitions]]\nfrom = \"lost\"\nto = "
                   "\"lost\"\nwhen = [{ trigger = \"jump\" }]\n"));
  ASSERT_EQ(r.diagnostics.size(), 1u) << all(r);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.code, "W0212");
  EXPECT_EQ(d.severity, Severity::kWarning);
  EXPECT_EQ(d.line, 21);
  EXPECT_EQ(d.col, 26);
  EXPECT_NE(d.message.find("state `lost` is never entered: no transition leads to it"),
            std::string::npos)
      << d.message;
  // Entered from any state: no warning.
  EXPECT_TRUE(read(machine("[object.animation.states.lost]\nclip = \"Lost\"\n"
                           "[[object.animation.transitions]]\nfrom = \"*\"\nto = \"lost\"\n"))
                  .diagnostics.empty());
}

TEST(SceneGraph, SpriteAnimationsRefuseEveryGraphKey) {
  const Read r = read(
      "[[object]]\nname = \"s\"\n[object.animation]\natlas = \"a.png\"\ngrid = [2, 1]\n"
      "fps = 8\n"
      "[object.animation.parameters]\n"     // 7
      "x = { type = \"bool\" }\n"           // 8
      "[object.animation.states.a]\n"       // 9
      "clip = \"a\"\n"                      // 10
      "[[object.animation.transitions]]\n"  // 11
      "from = \"a\"\nto = \"a\"\n"          // 12, 13
      "[[object.animation.layers]]\n"       // 14
      "clip = \"a\"\n");
  std::vector<std::pair<std::string, int>> got;
  for (const Diagnostic& d : r.diagnostics) got.emplace_back(d.code, d.line);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, int>>{
                     {"E0118", 7}, {"E0118", 9}, {"E0118", 11}, {"E0118", 14}}))
      << all(r);
}

TEST(SceneGraph, MissingRequiredKeysAreReportedAtTheirTable) {
  expect_one(machine("[[object.animation.transitions]]\nto = \"idle\"\nexit_time = 1\n"), "E0103",
             21, 1, "transition 2 has no `from`");
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nexit_time = 1\n"), "E0103",
             21, 1, "transition 2 has no `to`");
  expect_one(machine("[object.animation.states.walk]\nblend_parameter = \"speed\"\n"
                     "points = [{ clip = \"A\", at = 0 }, { at = 1 }]\n"
                     "[[object.animation.transitions]]\nfrom = \"*\"\nto = \"walk\"\n"),
             "E0103", 23, 35, "point 2 of state `walk` has no `clip`");
  expect_one(hero("[[object.animation.layers]]\nweight = 0.5\n"), "E0103", 8, 1,
             "layer 1 has no `clip`");
}

TEST(SceneGraph, UnknownKeysOfTheNewTablesSuggestTheirKeys) {
  expect_one(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idle\"\n"
                     "exit_tme = 1\n"),
             "E0101", 24, 1, "did you mean `exit_time`?");
  expect_one(hero("[object.animation.states.a]\nclip = \"A\"\nplayabck = \"once\"\n"), "E0101", 10,
             1, "did you mean `playback`?");
  expect_one(hero("[[object.animation.layer]]\nclip = \"A\"\n"), "E0101", 8, 20,
             "did you mean `layers`?");
}

TEST(SceneGraph, ANewDiagnosticPrintsInEveryFormat) {
  DiagnosticSink sink;
  parse_scene(machine("[[object.animation.transitions]]\nfrom = \"air\"\nto = \"idel\"\n"),
              "hero.toml", sink);
  sink.sort();
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  const std::string message = "object `hero`'s animation has no state `idel`; did you mean `idle`?";
  EXPECT_EQ(format_diagnostics(sink, DiagnosticFormat::kGcc), "hero.toml:23:1: error: " + message +
                                                                  " [E0147]\n" +
                                                                  "   23 | to = \"idel\"\n"
                                                                  "      | ^\n");
  EXPECT_EQ(format_diagnostics(sink, DiagnosticFormat::kGithub),
            "::error file=hero.toml,line=23,col=1,title=E0147::" + message + "\n");
  EXPECT_EQ(format_diagnostics(sink, DiagnosticFormat::kJson),
            "{\"file\":\"hero.toml\",\"line\":23,\"column\":1,\"severity\":\"error\",\"code\":"
            "\"E0147\",\"message\":\"" +
                message + "\",\"pointer\":\"\",\"source_code\":\"\",\"parent\":null}\n");
  // A warning too.
  DiagnosticSink warn;
  parse_scene(machine("[object.animation.states.lost]\nclip = \"Lost\"\n"), "hero.toml", warn);
  EXPECT_EQ(format_diagnostics(warn, DiagnosticFormat::kGithub)
                .rfind("::warning file=hero.toml,line=21,col=26,title=W0212::", 0),
            0u)
      << format_diagnostics(warn, DiagnosticFormat::kGithub);
}

}  // namespace
}  // namespace animpack
