// `animpack play` and `animpack pose`: the script parser, the play report, the pose JSON
// (joints, palettes, skinned and node-placed positions in source order), the command line,
// and the Khronos models of tests/data/corpus/ whose rest palettes must equal world x
// inverse bind computed in double straight from their glTF JSON.
#include "play_commands.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/scene_player.h"
#include "animpack/skinning.h"
#include "fixtures/graph_fixture.h"
#include "fixtures/run_cli.h"
#include "fixtures/test_data.h"
#include "scene_fixture.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace player_fixture;

// ------------------------------------------------------------------------- the script

TEST(PlayScript, ParsesCommandsAndOptionsInTickOrder) {
  const ScriptParse s = parse_script(
      "# a comment\n"
      "30 walker fade Run 0.25 speed 1.5 once   # trailing comment\n"
      "\n"
      "10 hero play jump start 0.5 ping_pong\n"
      "10 walker play Walk blend Run 0.3 blend Jog 0.2 fade 0.1 loop\n"
      "20 walker blend Run 0.5\n"
      "40 hero stop\n",
      "moves.txt");
  ASSERT_TRUE(s.error.empty()) << s.error;
  ASSERT_EQ(s.commands.size(), 5u);
  const ScriptCommand& a = s.commands[0];
  EXPECT_EQ(a.tick, 10);
  EXPECT_EQ(a.line, 4u);
  EXPECT_EQ(a.object, "hero");
  EXPECT_EQ(a.kind, ScriptCommand::Kind::kPlay);
  EXPECT_EQ(a.clip, "jump");
  EXPECT_EQ(a.start, 0.5);
  EXPECT_EQ(a.playback, Playback::kPingPong);
  const ScriptCommand& b = s.commands[1];
  EXPECT_EQ(b.line, 5u);
  ASSERT_EQ(b.blends.size(), 2u);
  EXPECT_EQ(b.blends[1].first, "Jog");
  EXPECT_EQ(b.blends[1].second, 0.2f);
  EXPECT_EQ(b.fade, 0.1);
  EXPECT_EQ(b.playback, Playback::kLoop);
  EXPECT_EQ(s.commands[2].kind, ScriptCommand::Kind::kBlend);
  EXPECT_EQ(s.commands[2].weight, 0.5f);
  const ScriptCommand& f = s.commands[3];
  EXPECT_EQ(f.kind, ScriptCommand::Kind::kFade);
  EXPECT_EQ(f.fade, 0.25);
  EXPECT_EQ(f.speed, 1.5f);
  EXPECT_EQ(f.playback, Playback::kOnce);
  EXPECT_EQ(s.commands[4].kind, ScriptCommand::Kind::kStop);
}

TEST(PlayScript, RefusesAMalformedLineWithItsLineNumber) {
  const std::pair<const char*, const char*> bad[] = {
      {"1 walker\n", "x.txt:1:"},
      {"\n-1 walker stop\n", "x.txt:2:"},
      {"ten walker stop\n", "x.txt:1:"},
      {"1 walker jump Run\n", "unknown command"},
      {"1 walker play Run fast\n", "unknown option"},
      {"1 walker fade Run\n", "fade takes"},
      {"1 walker blend Run heavy\n", "weight"},
      {"1 walker play Run speed\n", "speed takes"},
      {"1 walker stop now\n", "unexpected"},
  };
  for (const auto& [text, message] : bad) {
    const ScriptParse s = parse_script(text, "x.txt");
    EXPECT_TRUE(s.commands.empty()) << text;
    EXPECT_NE(s.error.find(message), std::string::npos) << text << " -> " << s.error;
  }
}

TEST(PlayScript, ParsesStateMachineCommands) {
  const ScriptParse s = parse_script(
      "3 hero set speed 2.5\n"
      "3 hero set grounded false\n"
      "4 hero trigger jump   # fire\n"
      "5 hero state jump\n"
      "6 hero state locomotion 0.25\n"
      "7 hero set speed -1e3\n",
      "m.txt");
  ASSERT_TRUE(s.error.empty()) << s.error;
  ASSERT_EQ(s.commands.size(), 6u);
  EXPECT_EQ(s.commands[0].kind, ScriptCommand::Kind::kSet);
  EXPECT_EQ(s.commands[0].name, "speed");
  EXPECT_EQ(s.commands[0].value, 2.5f);
  EXPECT_FALSE(s.commands[0].flag.has_value());
  EXPECT_EQ(s.commands[1].flag, std::optional<bool>(false));
  EXPECT_EQ(s.commands[2].kind, ScriptCommand::Kind::kTrigger);
  EXPECT_EQ(s.commands[2].name, "jump");
  EXPECT_EQ(s.commands[2].line, 3u);
  EXPECT_EQ(s.commands[3].kind, ScriptCommand::Kind::kState);
  EXPECT_EQ(s.commands[3].name, "jump");
  EXPECT_EQ(s.commands[3].seconds, 0.0);
  EXPECT_EQ(s.commands[4].seconds, 0.25);
  EXPECT_EQ(s.commands[5].value, -1000.0f);
}

TEST(PlayScript, RefusesAMalformedStateMachineLineWithItsLineNumber) {
  const std::pair<const char*, const char*> bad[] = {
      {"1 hero set speed\n", "m.txt:1: set takes NAME VALUE"},
      {"\n1 hero set speed fast\n", "m.txt:2: value 'fast' is neither a number nor true or false"},
      {"1 hero set speed 1e39\n", "value '1e39'"},
      {"1 hero set speed nan\n", "value 'nan'"},
      {"1 hero set grounded TRUE\n", "value 'TRUE'"},
      {"1 hero set speed 1 2\n", "unexpected '2'"},
      {"1 hero trigger\n", "trigger takes a NAME"},
      {"1 hero trigger jump now\n", "unexpected 'now'"},
      {"1 hero state\n", "state takes NAME [SECONDS]"},
      {"1 hero state jump soon\n", "seconds 'soon' is not a number"},
      {"1 hero state jump 0.5 0.5\n", "unexpected"},
      {"1 hero parameter speed 1\n",
       "(play, fade, blend, stop, set, trigger, state, ik_target, ik_clear, ik_pole, ik_weight, "
       "ik_ground)"},
  };
  for (const auto& [text, message] : bad) {
    const ScriptParse s = parse_script(text, "m.txt");
    EXPECT_TRUE(s.commands.empty()) << text;
    EXPECT_NE(s.error.find(message), std::string::npos) << text << " -> " << s.error;
  }
}

// ------------------------------------------------------------------------- play

Pack graph_pack() {
  Result<Pack> pack = Pack::from_bytes(write_pack(fixture::make_graph_pack()));
  EXPECT_TRUE(pack) << pack.error().message();
  return pack ? std::move(*pack) : Pack();
}

TEST(PlayCommand, AScriptSetsParametersFiresTriggersAndPlaysStates) {
  const Pack pack = graph_pack();
  const ScriptParse s = parse_script(
      "2 hero trigger jump\n"
      "4 hero state locomotion 0.02\n"  // a fade of 1 tick: over by tick 6
      "6 hero set speed 5.5\n"
      "8 hero set nope 1\n"
      "8 hero set speed true\n"
      "9 hero state fly\n"
      "9 plain trigger jump\n",
      "s");
  ASSERT_TRUE(s.error.empty()) << s.error;
  std::string report;
  const Result<uint64_t> hash = run_play(pack, {12, 60}, s.commands, &report);
  ASSERT_TRUE(hash) << hash.error().message();
  for (const char* line : {
           "tick 2\n  hero: start (clip Rotate)\n  hero pose ",  // jump: Rotate's mark at 0
           " state jump\n",
           "tick 4\n  hero pose ",
           " state locomotion\n",
           "tick 6\n  hero pose ",
           " state strafe\n",
           "tick 8\n  refused: unknown_parameter: hero: no parameter 'nope'",
           "  refused: wrong_parameter_kind: hero: parameter 'speed' is a float, not a bool",
           "tick 9\n  refused: unknown_state: hero: no state 'fly'",
           "  refused: invalid_argument: plain has no state machine",
           "played 12 ticks at 60 Hz: ",
           " 4 refused calls, 0 dropped events",
       }) {
    EXPECT_NE(report.find(line), std::string::npos) << line << "\n" << report;
  }
  // The same calls through the player by hand give the same run.
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  const ObjectId hero = *player.find("hero");
  for (int64_t t = 0; t < 12; ++t) {
    if (t == 2) {
      ASSERT_TRUE(player.fire_trigger(hero, "jump"));
    } else if (t == 4) {
      ASSERT_TRUE(player.play_state(hero, "locomotion", 0.02));
    } else if (t == 6) {
      ASSERT_TRUE(player.set_parameter(hero, "speed", 5.5f));
    }
    player.step();
  }
  EXPECT_EQ(player.state(hero), "strafe");
  std::string again;
  EXPECT_EQ(*run_play(pack, {12, 60}, s.commands, &again), *hash);
  EXPECT_EQ(again, report);
}

TEST(PlayCommand, ReportsEventsPosesAndRefusalsOnTheirTicks) {
  const Pack pack = make_pack();
  const ScriptParse s = parse_script(
      "12 idler play Rotate\n"
      "14 walker play Jog\n"
      "14 hero fade run 0.5\n",
      "s");
  ASSERT_TRUE(s.error.empty()) << s.error;
  std::string report;
  const Result<uint64_t> hash = run_play(pack, {16, 60}, s.commands, &report);
  ASSERT_TRUE(hash) << hash.error().message();
  for (const char* line :
       {"tick 0\n  walker: start (clip Rotate)\n", "tick 5\n  hero: step (sprite clip run)\n",
        "tick 10\n  runner: step (clip Step)\n", "tick 12\n  idler: start (clip Rotate)\n",
        "tick 14\n  refused: unknown_clip: walker: ", "  refused: invalid_argument: hero",
        "  walker pose ", "  hero frame 2\n", "  card frame 0\n",
        "played 16 ticks at 60 Hz: 5 events, 2 refused calls, 0 dropped events; run hash "}) {
    EXPECT_NE(report.find(line), std::string::npos) << line << "\n" << report;
  }
  EXPECT_EQ(report.find("tick 1\n"), std::string::npos) << "nothing to report on tick 1";
  EXPECT_EQ(report.find("rock"), std::string::npos) << "a static object has no pose";
  std::string again;
  EXPECT_EQ(*run_play(pack, {16, 60}, s.commands, &again), *hash);
  EXPECT_EQ(again, report);
}

TEST(PlayCommand, RefusesAScriptNamingAnUnknownObject) {
  const Pack pack = make_pack();
  const ScriptParse s = parse_script("3 nobody stop\n", "s");
  ASSERT_TRUE(s.error.empty());
  std::string report;
  const Result<uint64_t> r = run_play(pack, {10, 60}, s.commands, &report);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
}

// ------------------------------------------------------------------------- pose

std::vector<float> floats(const json& a) {
  std::vector<float> out;
  for (const json& v : a) out.push_back(v.get<float>());
  return out;
}

TEST(PoseCommand, GivesTheJointsPalettesAndSkinnedPositionsOfTheTick) {
  const Pack pack = make_pack();
  const Result<std::string> text = pose_json(pack, "walker", 25, 60);
  ASSERT_TRUE(text) << text.error().message();
  const json j = json::parse(*text);
  EXPECT_EQ(j["object"], "walker");
  EXPECT_EQ(j["tick"], 25);
  EXPECT_EQ(j["rate"], 60);

  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  for (int t = 0; t <= 25; ++t) player.step();
  const Animator& a = *player.animator(ObjectId{kWalker});
  ASSERT_EQ(j["joints"].size(), 4u);
  for (size_t k = 0; k < 4; ++k) {
    const json& joint = j["joints"][k];
    EXPECT_EQ(joint["name"], a.rig()->skeleton().joints()[k].name);
    EXPECT_EQ(joint["node"], static_cast<int>(k));
    const Trs& l = a.locals()[k];
    EXPECT_EQ(floats(joint["translation"]),
              (std::vector<float>{l.translation.x, l.translation.y, l.translation.z}));
    EXPECT_EQ(floats(joint["rotation"]),
              (std::vector<float>{l.rotation.x, l.rotation.y, l.rotation.z, l.rotation.w}));
    EXPECT_EQ(floats(joint["scale"]), (std::vector<float>{l.scale.x, l.scale.y, l.scale.z}));
    EXPECT_EQ(floats(joint["global"]), std::vector<float>(a.globals()[k].m, a.globals()[k].m + 16));
    EXPECT_EQ(floats(joint["palette"]),
              std::vector<float>(a.palette()[k].m, a.palette()[k].m + 16));
  }
  // The column, CPU-skinned by the palette, bit for bit (%.9g round-trips).
  const PartStreams s = *pack.part_streams(0);
  std::vector<Vec3> skinned(s.positions.size());
  ASSERT_TRUE(skin({s.positions, {}, {}, s.joints, s.weights}, a.palette(), {skinned, {}, {}}));
  ASSERT_EQ(j["parts"].size(), 1u);
  const json& part = j["parts"][0];
  EXPECT_EQ(part["node"], 4);
  EXPECT_EQ(part["mesh"], 0);
  EXPECT_EQ(part["primitive"], 0);
  ASSERT_EQ(part["positions"].size(), skinned.size());
  for (size_t v = 0; v < skinned.size(); ++v) {
    ASSERT_EQ(floats(part["positions"][v]),
              (std::vector<float>{skinned[v].x, skinned[v].y, skinned[v].z}))
        << v;
  }
}

TEST(PoseCommand, PlacesNodeRigPartsByTheirJointAndKeepsStaticOnes) {
  const Pack pack = make_pack();
  const json box = json::parse(*pose_json(pack, "box", 30, 60));
  ASSERT_EQ(box["joints"].size(), 2u);
  ASSERT_EQ(box["parts"].size(), 2u);
  // The lid's part: its triangle placed by the lid's palette (= its world matrix).
  const std::vector<float> lid = floats(box["joints"][1]["palette"]);
  Mat4 m;
  std::copy(lid.begin(), lid.end(), m.m);
  const Vec3 p = transform_point(m, {0.25f, 0, 0});
  EXPECT_EQ(floats(box["parts"][1]["positions"][0]), (std::vector<float>{p.x, p.y, p.z}));
  const json rock = json::parse(*pose_json(pack, "rock", 3, 60));
  EXPECT_TRUE(rock["joints"].empty());
  EXPECT_EQ(floats(rock["parts"][0]["positions"][1]), (std::vector<float>{-0.5f, 0, 0}));
  const json hero = json::parse(*pose_json(pack, "hero", 3, 60));
  EXPECT_TRUE(hero["joints"].empty());
  EXPECT_TRUE(hero["parts"].empty());
}

// An object with a state machine is stepped from tick 0 with --set and --state applied
// there: its pose is the one a ScenePlayer stepped with the same calls shows.
TEST(PoseCommand, SetAndStateActAtTickZeroAndTheMachineIsStepped) {
  const Pack pack = graph_pack();
  MachineSettings settings;
  settings.parameters = {
      {"speed", "2.5"}, {"turn", "-0.5"}, {"grounded", "false"}, {"jump", "true"}};
  for (const std::string state : {"", "strafe"}) {
    settings.state = state;
    ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
    const ObjectId hero = *player.find("hero");
    ASSERT_TRUE(player.set_parameter(hero, "speed", 2.5f));
    ASSERT_TRUE(player.set_parameter(hero, "turn", -0.5f));
    ASSERT_TRUE(player.set_parameter(hero, "grounded", false));
    ASSERT_TRUE(player.fire_trigger(hero, "jump"));
    if (!state.empty()) {
      ASSERT_TRUE(player.play_state(hero, state));
    }
    for (int64_t t = 0; t <= 150; ++t) {
      player.step();
      if (t % 50 != 0) continue;
      const Result<std::string> text = pose_json(pack, "hero", t, 60, settings);
      ASSERT_TRUE(text) << text.error().message();
      const json j = json::parse(*text);
      const std::span<const Mat4> palette = player.palette(hero);
      ASSERT_EQ(j["joints"].size(), palette.size());
      for (size_t k = 0; k < palette.size(); ++k) {
        const std::vector<float> got = floats(j["joints"][k]["palette"]);
        ASSERT_EQ(got.size(), 16u);
        EXPECT_TRUE(bits_equal(got.data(), palette[k].m, 16)) << state << " tick " << t;
      }
    }
  }
  // Without settings the stepped pose is the player's too (the jump is never fired).
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  for (int t = 0; t <= 40; ++t) player.step();
  const json j = json::parse(*pose_json(pack, "hero", 40, 60));
  EXPECT_TRUE(
      bits_equal(floats(j["joints"][2]["palette"]).data(), player.palette(ObjectId{0})[2].m, 16));
}

// Layers only (no states, no transitions): posed at T directly after the machine's first
// update, the same bits as the stepped player, at any tick.
TEST(PoseCommand, ALayersOnlyObjectIsPosedDirectly) {
  const Pack pack = graph_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  for (int t = 0; t <= 70; ++t) player.step();
  const json j = json::parse(*pose_json(pack, "layered", 70, 60));
  const std::span<const Mat4> palette = player.palette(ObjectId{1});
  ASSERT_EQ(j["joints"].size(), palette.size());
  for (size_t k = 0; k < palette.size(); ++k)
    EXPECT_TRUE(bits_equal(floats(j["joints"][k]["palette"]).data(), palette[k].m, 16)) << k;
  EXPECT_TRUE(pose_json(pack, "layered", 100000000, 60));
}

TEST(PoseCommand, RefusesSettingsItCannotApply) {
  const Pack pack = graph_pack();
  const struct {
    MachineSettings settings;
    const char* object;
    ErrorCode code;
    const char* says;
  } cases[] = {
      {{{{"speed", "1"}}, ""}, "plain", ErrorCode::kInvalidArgument, "no state machine"},
      {{{{"sped", "1"}}, ""}, "hero", ErrorCode::kUnknownParameter, "--set sped"},
      {{{{"speed", "true"}}, ""}, "hero", ErrorCode::kWrongParameterKind, "--set speed"},
      {{{{"speed", "9"}}, ""}, "hero", ErrorCode::kBadParameterValue, "--set speed"},
      {{{{"jump", "false"}}, ""}, "hero", ErrorCode::kInvalidArgument, "fired by true"},
      {{{{"speed", "fast"}}, ""}, "hero", ErrorCode::kInvalidArgument, "neither"},
      {{{}, "fly"}, "hero", ErrorCode::kUnknownState, "--state fly"},
  };
  for (const auto& c : cases) {
    const Result<std::string> r = pose_json(pack, c.object, 3, 60, c.settings);
    ASSERT_FALSE(r) << c.says;
    EXPECT_EQ(r.error().code(), c.code) << c.says;
    EXPECT_NE(std::string(r.error().message()).find(c.says), std::string::npos)
        << r.error().message();
  }
  const Result<std::string> late = pose_json(pack, "hero", kMaxSteppedPoseTick + 1, 60);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(pose_json(pack, "plain", kMaxSteppedPoseTick + 1, 60)) << "no machine: posed at once";
  MachineSettings::Parameter p;
  std::string error;
  EXPECT_TRUE(parse_setting("speed=1.5", &p, &error));
  EXPECT_EQ(p.name, "speed");
  EXPECT_EQ(p.value, "1.5");
  EXPECT_FALSE(parse_setting("speed", &p, &error));
  EXPECT_FALSE(parse_setting("=1", &p, &error));
  EXPECT_FALSE(parse_setting("speed=", &p, &error));
  EXPECT_FALSE(parse_setting("speed=yes", &p, &error));
  EXPECT_NE(error.find("neither"), std::string::npos) << error;
}

TEST(PoseCommand, RefusesAnUnknownObjectOrANegativeTick) {
  const Pack pack = make_pack();
  EXPECT_EQ(pose_json(pack, "nobody", 0, 60).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(pose_json(pack, "walker", -1, 60).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(pose_json(pack, "walker", 0, 0).error().code(), ErrorCode::kBadTickRate);
}

// --fraction: the pose at tick + fraction is the scene player's render pose there
// (evaluate_render after stepping to the tick); fraction 0 is the tick's JSON exactly.
TEST(PoseCommand, AFractionGivesTheSubTickPoseTheSceneRendersThere) {
  const Pack pack = make_pack();
  EXPECT_EQ(*pose_json(pack, "walker", 25, 60, {}, 0.0f), *pose_json(pack, "walker", 25, 60));
  const Result<std::string> text = pose_json(pack, "walker", 25, 60, {}, 0.5f);
  ASSERT_TRUE(text) << text.error().message();
  const json j = json::parse(*text);
  EXPECT_EQ(j["tick"], 25);
  EXPECT_EQ(j["fraction"], 0.5);
  EXPECT_NE(*text, *pose_json(pack, "walker", 25, 60));
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  for (int t = 0; t <= 25; ++t) player.step();
  ASSERT_TRUE(player.evaluate_render(0.5f));
  const Animator& a = *player.animator(ObjectId{kWalker});
  ASSERT_EQ(j["joints"].size(), a.palette().size());
  for (size_t k = 0; k < a.palette().size(); ++k) {
    EXPECT_EQ(floats(j["joints"][k]["palette"]),
              std::vector<float>(a.palette()[k].m, a.palette()[k].m + 16))
        << k;
  }
  for (const float bad : {-0.5f, 1.0f, std::numeric_limits<float>::quiet_NaN()}) {
    EXPECT_EQ(pose_json(pack, "walker", 25, 60, {}, bad).error().code(),
              ErrorCode::kInvalidArgument);
  }
}

TEST(PoseCommand, PoseAtALateTickIsTheSteppedScenesPose) {
  // pose poses the object at its tick directly instead of stepping the scene: the
  // same bits as stepping every tick up to it.
  const Pack pack = make_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  for (int t = 0; t <= 250; ++t) player.step();
  for (const uint32_t object : {uint32_t{kWalker}, uint32_t{kRunner}, uint32_t{kBox}}) {
    const ObjectId id{object};
    const Result<std::string> text = pose_json(pack, player.name(id), 250, 60);
    ASSERT_TRUE(text) << text.error().message();
    const json j = json::parse(*text);
    const Animator& a = *player.animator(id);
    ASSERT_EQ(j["joints"].size(), a.palette().size());
    for (size_t k = 0; k < a.palette().size(); ++k) {
      EXPECT_EQ(floats(j["joints"][k]["palette"]),
                std::vector<float>(a.palette()[k].m, a.palette()[k].m + 16))
          << player.name(id) << " joint " << k;
    }
  }
}

// The fixture pack with the box's node rig moved out to 3e38 twice over (its lid's
// world matrix overflows to inf) and names with control characters (C0, DEL, C1: a pack's strings
// are UTF-8).
CookedPack crafted_pack() {
  CookedPack cooked = make_cooked();
  std::vector<Joint> joints = {{"ba\x01se", -1, Trs{{3e38f, 0, 0}, {}, {1, 1, 1}}},
                               {"li\x7f"
                                "d\xc2\x85",
                                0, Trs{{3e38f, 1, 0}, {}, {1, 1, 1}}}};
  Skeleton skeleton = *Skeleton::create(std::move(joints), {}, Mat4{});
  Clip spin("Sp\x1bin");
  const float times[] = {0.0f, 1.0f};
  const float values[] = {0, 0, 0, 1, 0, 0.70710677f, 0, 0.70710677f};
  spin.add_channel(1, Property::kRotation, Interpolation::kLinear, times, values);
  spin.add_event("op\nen", 0.5f);
  std::vector<Clip> clips;
  clips.push_back(std::move(spin));
  cooked.rigs[1].rig = *Rig::create(std::move(skeleton), std::move(clips));
  cooked.rigs[1].clip_source_animations = {0};
  for (CookedObject& o : cooked.objects) {
    if (o.name == "box") o.name = "bo\x01x\xc2\x9b";
  }
  return cooked;
}

TEST(PoseCommand, RefusesToPrintANonFinitePoseAsJsonNamingTheObjectAndJoint) {
  Result<Pack> pack = Pack::from_bytes(write_pack(crafted_pack()));
  ASSERT_TRUE(pack) << pack.error().message();
  const Result<std::string> text = pose_json(*pack, "bo\x01x\xc2\x9b", 0, 60);
  ASSERT_FALSE(text) << *text;
  EXPECT_EQ(text.error().code(), ErrorCode::kInvalidArgument);
  const std::string message = text.error().message();
  EXPECT_NE(message.find("object 'bo\\x01x\\xc2\\x9b' joint 'li\\x7fd\\xc2\\x85'"),
            std::string::npos)
      << message;
}

TEST(PlayCommand, EscapesControlAndNonUtf8BytesOfPackNames) {
  Result<Pack> pack = Pack::from_bytes(write_pack(crafted_pack()));
  ASSERT_TRUE(pack) << pack.error().message();
  std::string report;
  ASSERT_TRUE(run_play(*pack, {31, 60}, parse_script("3 bo\x01x\xc2\x9b play Nope\n", "s").commands,
                       &report));
  EXPECT_NE(report.find("  bo\\x01x\\xc2\\x9b: op\\x0aen (clip Sp\\x1bin)\n"), std::string::npos)
      << report;
  EXPECT_NE(report.find("no clip 'Nope'"), std::string::npos) << report;
  for (const char c : report) {
    const auto u = static_cast<unsigned char>(c);
    ASSERT_TRUE(c == '\n' || (u >= 0x20 && u < 0x7f)) << "byte " << int{u} << " in " << report;
  }
}

TEST(PoseCommand, EscapesControlAndNonUtf8BytesOfNamesInJson) {
  CookedPack cooked = crafted_pack();
  // Finite this time: the rest translations back in range.
  std::vector<Joint> joints = {{"ba\x01se", -1, Trs{}},
                               {"li\x7f"
                                "d\xc2\x85",
                                0, Trs{}}};
  cooked.rigs[1].rig = *Rig::create(*Skeleton::create(std::move(joints), {}, Mat4{}), {});
  cooked.rigs[1].clip_source_animations = {};
  for (CookedObject& o : cooked.objects) {
    if (o.name == "bo\x01x\xc2\x9b") o.animated = false;
  }
  Result<Pack> pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  const Result<std::string> text = pose_json(*pack, "bo\x01x\xc2\x9b", 0, 60);
  ASSERT_TRUE(text) << text.error().message();
  const json j = json::parse(*text);  // throws on invalid UTF-8 or raw control characters
  EXPECT_EQ(j["object"], "bo\x01x\xc2\x9b");
  EXPECT_EQ(j["joints"][0]["name"], "ba\x01se");
  EXPECT_EQ(j["joints"][1]["name"],
            "li\x7f"
            "d\xc2\x85");
  EXPECT_NE(text->find("\"li\\u007fd\xc2\x85\""), std::string::npos) << *text;
}

// ------------------------------------------------------------------------- the executable

using animpack::fixture::CliRun;

// The animpack executable with these arguments.
CliRun run(const std::string& args) { return animpack::fixture::run_cli(ANIMPACK_EXE, args); }

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("animpack_player_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    pack_path_ = (dir_ / "fixture.anpk").string();
    ASSERT_EQ(write_file_atomically(pack_path_, write_pack(make_cooked())), "");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string pack_path_;
};

TEST_F(Cli, PlayPrintsTheRunWithItsScriptAndPosePrintsJson) {
  const fs::path script = dir_ / "moves.txt";
  std::ofstream(script) << "12 idler play Rotate\n14 walker play Jog\n14 hero fade run 0.5\n";
  const CliRun play = run("play " + pack_path_ + " --ticks 16 --script " + script.string());
  // Two calls are refused (walker has no Jog, hero is a sprite): exit 1, the report whole.
  EXPECT_EQ(play.status, 1) << play.output;
  EXPECT_NE(play.output.find(": 2 refused call(s)\n"), std::string::npos) << play.output;
  const Pack pack = *Pack::open(pack_path_);
  std::string report;
  ASSERT_TRUE(run_play(pack, {16, 60},
                       parse_script("12 idler play Rotate\n14 walker play Jog\n"
                                    "14 hero fade run 0.5\n",
                                    "s")
                           .commands,
                       &report));
  EXPECT_NE(play.output.find(report), std::string::npos) << play.output;

  const CliRun pose = run("pose " + pack_path_ + " --object walker --tick 25 --json");
  EXPECT_EQ(pose.status, 0) << pose.output;
  EXPECT_EQ(pose.output, *pose_json(pack, "walker", 25, 60));
  const CliRun sub =
      run("pose " + pack_path_ + " --object walker --tick 25 --fraction 0.25 --json");
  EXPECT_EQ(sub.status, 0) << sub.output;
  EXPECT_EQ(sub.output, *pose_json(pack, "walker", 25, 60, {}, 0.25f));
  const CliRun text = run("pose " + pack_path_ + " --object box --tick 2");
  EXPECT_EQ(text.status, 0) << text.output;
  EXPECT_NE(text.output.find("joint 1 lid (node 1)"), std::string::npos) << text.output;
}

TEST_F(Cli, UsageErrorsExitTwoAndInputErrorsOne) {
  EXPECT_EQ(run("play " + pack_path_).status, 2) << "no --ticks";
  EXPECT_EQ(run("play " + pack_path_ + " --ticks 0").status, 2);
  EXPECT_EQ(run("play " + pack_path_ + " --ticks 5 --bogus").status, 2);
  EXPECT_EQ(run("pose " + pack_path_ + " --tick 3").status, 2) << "no --object";
  EXPECT_EQ(run("pose " + pack_path_ + " --object walker --tick 3 --fraction 1").status, 2);
  EXPECT_EQ(run("pose " + pack_path_ + " --object walker --tick 3 --fraction -0.1").status, 2);
  EXPECT_EQ(run("pose " + pack_path_ + " --object walker --tick 3 --fraction x").status, 2);
  EXPECT_EQ(run("play " + (dir_ / "missing.anpk").string() + " --ticks 5").status, 2);
  EXPECT_EQ(run("pose " + pack_path_ + " --object nobody --tick 3 --json").status, 1);
  const fs::path script = dir_ / "bad.txt";
  std::ofstream(script) << "1 walker dance\n";
  const CliRun bad = run("play " + pack_path_ + " --ticks 5 --script " + script.string());
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("bad.txt:1: unknown command 'dance'"), std::string::npos) << bad.output;
  const CliRun help = run("--help");
  EXPECT_NE(help.output.find("play PACK.anpk"), std::string::npos);
  EXPECT_NE(help.output.find("pose PACK.anpk"), std::string::npos);
  EXPECT_EQ(run("play --help").status, 0);
  EXPECT_EQ(run("pose --help").status, 0);
}

TEST_F(Cli, PlayScriptAndPoseDriveAStateMachine) {
  const std::string graph = (dir_ / "graph.anpk").string();
  ASSERT_EQ(write_file_atomically(graph, write_pack(fixture::make_graph_pack())), "");
  const fs::path script = dir_ / "machine.txt";
  std::ofstream(script) << "2 hero trigger jump\n6 hero set speed 5.5\n7 hero set speed x\n";
  const CliRun bad = run("play " + graph + " --ticks 10 --script " + script.string());
  EXPECT_EQ(bad.status, 1) << bad.output;
  EXPECT_NE(bad.output.find("machine.txt:3: value 'x' is neither a number nor true or false"),
            std::string::npos)
      << bad.output;
  std::ofstream(script) << "2 hero trigger jump\n6 hero set speed 5.5\n";
  const CliRun play = run("play " + graph + " --ticks 10 --script " + script.string());
  EXPECT_EQ(play.status, 0) << play.output;
  EXPECT_NE(play.output.find(" state jump\n"), std::string::npos) << play.output;

  const CliRun pose = run("pose " + graph +
                          " --object hero --tick 20 --json --set speed=2 --set grounded=false "
                          "--state strafe");
  EXPECT_EQ(pose.status, 0) << pose.output;
  const Pack pack = *Pack::open(graph);
  MachineSettings settings;
  settings.parameters = {{"speed", "2"}, {"grounded", "false"}};
  settings.state = "strafe";
  EXPECT_EQ(pose.output, *pose_json(pack, "hero", 20, 60, settings));
  const CliRun usage = run("pose " + graph + " --object hero --tick 20 --set speed");
  EXPECT_EQ(usage.status, 2) << usage.output;
  EXPECT_NE(usage.output.find("--set takes PARAMETER=VALUE"), std::string::npos) << usage.output;
  const CliRun wrong = run("pose " + graph + " --object hero --tick 20 --state fly");
  EXPECT_EQ(wrong.status, 1) << wrong.output;
  EXPECT_NE(wrong.output.find("--state fly: hero: no state 'fly'"), std::string::npos)
      << wrong.output;
  const CliRun late = run("pose " + graph + " --object hero --tick 1000001");
  EXPECT_EQ(late.status, 1) << late.output;
  EXPECT_NE(late.output.find("stepped from tick 0"), std::string::npos) << late.output;
}

TEST_F(Cli, PoseAtTheLastAllowedTickAnswersAtOnce) {
  // Stepping 10^8 ticks of the scene took minutes; the object is posed at its tick.
  const CliRun pose = run("pose " + pack_path_ + " --object walker --tick 100000000 --json");
  EXPECT_EQ(pose.status, 0) << pose.output;
  const Pack pack = *Pack::open(pack_path_);
  EXPECT_EQ(pose.output, *pose_json(pack, "walker", 100000000, 60));
}

TEST_F(Cli, PlayRefusesAScriptThatIsNotARegularFile) {
  const CliRun dir = run("play " + pack_path_ + " --ticks 5 --script " + dir_.string());
  EXPECT_EQ(dir.status, 2) << dir.output;
  EXPECT_NE(dir.output.find("not a regular file"), std::string::npos) << dir.output;
  const CliRun null = run("play " + pack_path_ + " --ticks 5 --script /dev/null");
  EXPECT_EQ(null.status, 2) << null.output;
  const CliRun missing =
      run("play " + pack_path_ + " --ticks 5 --script " + (dir_ / "none.txt").string());
  EXPECT_EQ(missing.status, 2) << missing.output;
}

TEST_F(Cli, PoseJsonOfANonFinitePoseExitsOneNamingTheJoint) {
  const std::string crafted = (dir_ / "crafted.anpk").string();
  ASSERT_EQ(write_file_atomically(crafted, write_pack(crafted_pack())), "");
  // The object's name through printf: sh has no $'...' quoting.
  const CliRun pose =
      run("pose " + crafted + " --object \"$(printf 'bo\\001x\\302\\233')\" --tick 0 --json");
  EXPECT_EQ(pose.status, 1) << pose.output;
  EXPECT_EQ(pose.output.find("nan"), std::string::npos) << pose.output;
  EXPECT_EQ(pose.output.find("inf"), std::string::npos) << pose.output;
  EXPECT_NE(pose.output.find("joint 'li\\x7fd\\xc2\\x85'"), std::string::npos) << pose.output;
}

// ------------------------------------------------------------------------- the corpus

// The glTF JSON's own answer, in double: node world matrices and skin inverse binds.
struct Reference {
  json doc;
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<std::array<double, 16>> world;           // per node; identity when not in the scene
  std::map<int, std::array<double, 16>> inverse_bind;  // per skin joint node
};

using M = std::array<double, 16>;

M identity() { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}; }

M mul(const M& a, const M& b) {
  M r{};
  for (int c = 0; c < 4; ++c) {
    for (int row = 0; row < 4; ++row) {
      double s = 0;
      for (int k = 0; k < 4; ++k)
        s += a[static_cast<size_t>(k * 4 + row)] * b[static_cast<size_t>(c * 4 + k)];
      r[static_cast<size_t>(c * 4 + row)] = s;
    }
  }
  return r;
}

M local_matrix(const json& node) {
  if (node.contains("matrix")) {
    M m{};
    for (size_t i = 0; i < 16; ++i) m[i] = node["matrix"][i].get<double>();
    return m;
  }
  double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
  if (node.contains("translation"))
    for (size_t i = 0; i < 3; ++i) t[i] = node["translation"][i];
  if (node.contains("rotation"))
    for (size_t i = 0; i < 4; ++i) q[i] = node["rotation"][i];
  if (node.contains("scale"))
    for (size_t i = 0; i < 3; ++i) s[i] = node["scale"][i];
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  M r = {1 - 2 * (y * y + z * z),
         2 * (x * y + z * w),
         2 * (x * z - y * w),
         0,
         2 * (x * y - z * w),
         1 - 2 * (x * x + z * z),
         2 * (y * z + x * w),
         0,
         2 * (x * z + y * w),
         2 * (y * z - x * w),
         1 - 2 * (x * x + y * y),
         0,
         t[0],
         t[1],
         t[2],
         1};
  for (int c = 0; c < 3; ++c) {
    for (int row = 0; row < 3; ++row) r[static_cast<size_t>(c * 4 + row)] *= s[c];
  }
  return r;
}

std::vector<uint8_t> base64(std::string_view text) {
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  for (const char ch : text) {
    int v;
    if (ch >= 'A' && ch <= 'Z')
      v = ch - 'A';
    else if (ch >= 'a' && ch <= 'z')
      v = ch - 'a' + 26;
    else if (ch >= '0' && ch <= '9')
      v = ch - '0' + 52;
    else if (ch == '+')
      v = 62;
    else if (ch == '/')
      v = 63;
    else
      continue;  // '=' padding
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>((acc >> bits) & 0xff));
    }
  }
  return out;
}

Reference reference(const fs::path& gltf) {
  Reference r;
  r.doc = json::parse(animpack::test_data::read_test_file(gltf));
  for (const json& b : r.doc["buffers"]) {
    const std::string uri = b["uri"];
    if (uri.rfind("data:", 0) == 0) {
      r.buffers.push_back(base64(std::string_view(uri).substr(uri.find(',') + 1)));
    } else {
      std::ifstream bin(gltf.parent_path() / uri, std::ios::binary);
      r.buffers.emplace_back(std::istreambuf_iterator<char>(bin), std::istreambuf_iterator<char>());
    }
  }
  const json& nodes = r.doc["nodes"];
  r.world.assign(nodes.size(), identity());
  std::vector<std::pair<int, M>> stack;
  const int scene = r.doc.value("scene", 0);
  for (const json& root : r.doc["scenes"][static_cast<size_t>(scene)]["nodes"]) {
    stack.emplace_back(root.get<int>(), identity());
  }
  while (!stack.empty()) {
    const auto [n, parent] = stack.back();
    stack.pop_back();
    const json& node = nodes[static_cast<size_t>(n)];
    r.world[static_cast<size_t>(n)] = mul(parent, local_matrix(node));
    if (node.contains("children")) {
      for (const json& c : node["children"])
        stack.emplace_back(c.get<int>(), r.world[static_cast<size_t>(n)]);
    }
  }
  for (const json& skin : r.doc["skins"]) {
    const json& acc = r.doc["accessors"][skin["inverseBindMatrices"].get<size_t>()];
    const json& view = r.doc["bufferViews"][acc["bufferView"].get<size_t>()];
    const std::vector<uint8_t>& buf = r.buffers[view["buffer"].get<size_t>()];
    const size_t base = view.value("byteOffset", size_t{0}) + acc.value("byteOffset", size_t{0});
    const size_t stride = view.value("byteStride", size_t{64});
    for (size_t k = 0; k < skin["joints"].size(); ++k) {
      M m{};
      for (size_t i = 0; i < 16; ++i) {
        float f;
        std::memcpy(&f, buf.data() + base + k * stride + i * 4, 4);
        m[i] = f;
      }
      r.inverse_bind.emplace(skin["joints"][k].get<int>(), m);
    }
  }
  return r;
}

double max_abs(const M& m) {
  double r = 0;
  for (const double v : m) r = std::max(r, std::abs(v));
  return r;
}

// max |a - b| <= 1e-5 x max |b| over the 16 entries, plus, for a product, 4 float ulps of
// its factors' size (max |world| x max |inverse bind|): world x inverse bind cancels to
// near the identity while each float entry of the pack's matrices carries the rounding
// of its factors' size (Fox: factors of 1.2e3, an error of 1e-5 on a result of 1).
::testing::AssertionResult near_matrix(const json& got, const M& want, double factors = 0) {
  double error = 0;
  for (size_t i = 0; i < 16; ++i) error = std::max(error, std::abs(got[i].get<double>() - want[i]));
  const double magnitude = max_abs(want);
  if (error <= 1e-5 * magnitude + 4 * FLT_EPSILON * factors) return ::testing::AssertionSuccess();
  std::ostringstream s;
  s << "error " << error << " over magnitude " << magnitude << "; got";
  for (size_t i = 0; i < 16; ++i) s << " " << got[i].get<double>();
  s << "; want";
  for (size_t i = 0; i < 16; ++i) s << " " << want[i];
  return ::testing::AssertionFailure() << s.str();
}

TEST(PoseCorpus, RestPalettesOfTheKhronosModelsEqualWorldTimesInverseBind) {
  const fs::path corpus = fs::path(ANIMPACK_CORPUS_DIR) / "gltf";
  const std::pair<const char*, const char*> models[] = {
      {"RiggedSimple/glTF", "RiggedSimple.gltf"},    {"RiggedFigure/glTF", "RiggedFigure.gltf"},
      {"CesiumMan/glTF-Embedded", "CesiumMan.gltf"}, {"Fox/glTF", "Fox.gltf"},
      {"SimpleSkin/glTF", "SimpleSkin.gltf"},
  };
  const fs::path dir =
      fs::temp_directory_path() / ("animpack_pose_corpus_" + std::to_string(::getpid()));
  for (const auto& [folder, file] : models) {
    SCOPED_TRACE(file);
    const fs::path source = corpus / folder;
    ASSERT_TRUE(fs::exists(source / file)) << source;
    // Absolute paths are refused in a scene: copy the model next to a one-object scene.
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const fs::directory_entry& e : fs::directory_iterator(source)) {
      fs::copy_file(e.path(), dir / e.path().filename());
    }
    std::ofstream(dir / "scene.toml") << "[[mesh]]\nname = \"model\"\nfile = \"" << file
                                      << "\"\n\n[[object]]\nname = \"it\"\nmesh = \"model\"\n";
    DiagnosticSink sink;
    const CookOutput out = cook_scene(dir / "scene.toml", sink);
    ASSERT_FALSE(sink.has_errors()) << format_diagnostics(sink, DiagnosticFormat::kGcc);
    const Result<Pack> pack = Pack::from_bytes(write_pack(out.pack));
    ASSERT_TRUE(pack) << pack.error().message();
    const Result<std::string> text = pose_json(*pack, "it", 0, 60);
    ASSERT_TRUE(text) << text.error().message();
    const json pose = json::parse(*text);

    const Reference ref = reference(source / file);
    const json& joints = pose["joints"];
    ASSERT_GT(joints.size(), 1u);
    size_t skin_joints = 0;
    for (const json& joint : joints) {
      const int node = joint["node"];
      SCOPED_TRACE(joint["name"].get<std::string>());
      ASSERT_GE(node, 0);
      const M& world = ref.world[static_cast<size_t>(node)];
      const auto ibm = ref.inverse_bind.find(node);
      skin_joints += ibm != ref.inverse_bind.end();
      const bool skinned = ibm != ref.inverse_bind.end();
      const M palette = skinned ? mul(world, ibm->second) : world;
      EXPECT_TRUE(near_matrix(joint["global"], world));
      EXPECT_TRUE(near_matrix(joint["palette"], palette,
                              skinned ? max_abs(world) * max_abs(ibm->second) : 0.0));
    }
    EXPECT_EQ(skin_joints, ref.doc["skins"][0]["joints"].size()) << "every skin joint is posed";
    // Every part: as many positions as its source accessor has vertices, or, for a
    // primitive without NORMAL (unwelded for flat normals), one per triangle corner.
    ASSERT_FALSE(pose["parts"].empty());
    for (const json& part : pose["parts"]) {
      const json& mesh = ref.doc["meshes"][part["mesh"].get<size_t>()];
      const json& prim = mesh["primitives"][part["primitive"].get<size_t>()];
      const size_t count =
          ref.doc["accessors"][prim["attributes"]["POSITION"].get<size_t>()]["count"];
      const size_t corners =
          prim.contains("indices")
              ? ref.doc["accessors"][prim["indices"].get<size_t>()]["count"].get<size_t>()
              : count;
      const bool unwelded = !prim["attributes"].contains("NORMAL");
      EXPECT_EQ(part["positions"].size(), unwelded ? corners / 3 * 3 : count);
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace animpack
