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

bool finite(std::span<const Mat4> palette) {
  for (const Mat4& m : palette) {
    for (float v : m.m) {
      if (!std::isfinite(v)) return false;
    }
  }
  return !palette.empty();
}

// The scripted game: speed ramps 0 -> 5 over ticks 0-150, holds, and ramps back to 0 over
// ticks 350-500; jump is fired at tick 200; the wave fades in over 15 ticks from tick
// 300; tired goes to 1 at tick 400. `layers` false leaves wave and tired at 0.
struct ScriptedGame : Game {
  ObjectId hero, crowd;
  bool layers = true;
  std::vector<std::pair<int64_t, std::string>> states;  // (tick, state) at each change
  std::vector<int64_t> steps, lands;
  int crowd_events = 0;
  int refusals = 0;

  static float speed_at(int64_t t) {
    if (t <= 150) return 5.0f * static_cast<float>(t) / 150.0f;
    if (t <= 350) return 5.0f;
    if (t <= 500) return 5.0f * static_cast<float>(500 - t) / 150.0f;
    return 0.0f;
  }
  void tick(ScenePlayer& p, int64_t t) override {
    if (!p.set_parameter(hero, "speed", speed_at(t))) ++refusals;
    if (t == 200 && !p.fire_trigger(hero, "jump")) ++refusals;
    if (layers && t >= 300) {
      const float wave = std::min(1.0f, static_cast<float>(t - 300 + 1) / 15.0f);
      if (!p.set_parameter(hero, "wave", wave)) ++refusals;
    }
    if (layers && t == 400 && !p.set_parameter(hero, "tired", 1.0f)) ++refusals;
  }
  void animated(ScenePlayer&, std::span<const AnimationEvent> events) override {
    for (const AnimationEvent& e : events) {
      if (e.object == crowd) {
        ++crowd_events;
      } else if (e.event == "step") {
        steps.push_back(e.tick);
      } else if (e.event == "land") {
        lands.push_back(e.tick);
      }
    }
  }
};

// Plays 600 ticks at 60 a second; palettes of the hero at every tick into *out.
void play(const Pack& pack, ScriptedGame& game, std::vector<std::vector<Mat4>>* out) {
  Result<ScenePlayer> player = ScenePlayer::create(&pack, 60);
  ASSERT_TRUE(player) << player.error().message();
  const Result<ObjectId> hero = player->find("hero");
  const Result<ObjectId> crowd = player->find("crowd");
  ASSERT_TRUE(hero && crowd);
  game.hero = *hero;
  game.crowd = *crowd;
  EXPECT_EQ(player->state(game.hero), "locomotion") << "the first state is the start state";
  EXPECT_EQ(player->state(game.crowd), "") << "the crowd has layers but no states";
  for (int i = 0; i < 600; ++i) {
    player->step(&game);
    const std::string state(player->state(game.hero));
    if (game.states.empty() || game.states.back().second != state) {
      game.states.emplace_back(player->tick(), state);
    }
    EXPECT_TRUE(player->animation_errors().empty()) << "tick " << player->tick();
    ASSERT_TRUE(finite(player->palette(game.hero))) << "tick " << player->tick();
    ASSERT_TRUE(finite(player->palette(game.crowd))) << "tick " << player->tick();
    const std::span<const Mat4> palette = player->palette(game.hero);
    out->emplace_back(palette.begin(), palette.end());
  }
}

bool same(const Mat4& a, const Mat4& b) { return std::equal(a.m, a.m + 16, b.m); }

TEST(WorkedExample, CharacterSceneCooksAndPlays) {
  DiagnosticSink sink;
  const CookOutput out = cook_character(sink);
  ASSERT_FALSE(sink.has_errors()) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  const std::vector<uint8_t> bytes = write_pack(out.pack);
  Result<Pack> pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();

  ScriptedGame game;
  std::vector<std::vector<Mat4>> palettes;
  ASSERT_NO_FATAL_FAILURE(play(*pack, game, &palettes));
  EXPECT_EQ(game.refusals, 0);

  // The states: locomotion from the start; jump on the tick the trigger is fired; back
  // on the first tick the jump has played 0.95 of its 1.2 s (68.4 ticks after 200).
  const std::vector<std::pair<int64_t, std::string>> states = {
      {0, "locomotion"}, {200, "jump"}, {269, "locomotion"}};
  EXPECT_EQ(game.states, states);

  // "land" once, when the Jump's clock passes 1.0 s: 60 ticks after it started.
  EXPECT_EQ(game.lands, (std::vector<int64_t>{260}));

  // Footsteps: none while Idle leads the blend space (speed up to 0.75: ticks 0-22 and
  // from 478 on) or while the jump plays (its fade-in included: only the state fading in
  // fires), and never doubled: consecutive steps are at least 20 ticks apart (a Run
  // half-cycle is 0.35 s = 21 ticks, a Walk one 30).
  ASSERT_FALSE(game.steps.empty());
  EXPECT_GT(game.steps.front(), 22);
  EXPECT_LT(game.steps.back(), 478);
  int during_ramp = 0, during_run = 0;
  for (size_t i = 0; i < game.steps.size(); ++i) {
    const int64_t t = game.steps[i];
    EXPECT_FALSE(t >= 200 && t < 269) << "a step at tick " << t << " during the jump";
    if (t < 150) ++during_ramp;
    if (i > 0) {
      const int64_t gap = t - game.steps[i - 1];
      EXPECT_GE(gap, 20) << "steps at ticks " << game.steps[i - 1] << " and " << t;
      // From tick 120 the speed is 4 or more (Run alone): steps every 21 ticks.
      if (game.steps[i - 1] >= 120 && t < 200) {
        EXPECT_NEAR(static_cast<double>(gap), 21.0, 1.0) << "at tick " << t;
        ++during_run;
      }
    }
  }
  EXPECT_GE(during_ramp, 3) << "steps while speeding up through Walk into Run";
  // Back in locomotion at tick 269 the blend space starts again at phase 0 with Run alone
  // (speed 5 is past Run's point at 4): Run's marks at 0 and 0.35 s come on that tick and
  // every 21 ticks after it, until the speed ramps down at tick 350.
  std::vector<int64_t> after_jump;
  for (const int64_t t : game.steps) {
    if (t >= 269 && t < 350) after_jump.push_back(t);
  }
  EXPECT_EQ(after_jump, (std::vector<int64_t>{269, 290, 311, 332}));
  EXPECT_GE(during_run, 1);
  EXPECT_EQ(game.crowd_events, 0) << "the crowd plays Idle, which has no marks";

  // The layers: the same script without wave and tired gives the same poses before tick
  // 300; from there the masked wave moves the arms and leaves the hips, legs and lower
  // spine bit-identical; from tick 400 the additive breath moves Spine1.
  ScriptedGame plain;
  plain.layers = false;
  std::vector<std::vector<Mat4>> plain_palettes;
  ASSERT_NO_FATAL_FAILURE(play(*pack, plain, &plain_palettes));
  const Skeleton& skeleton = pack->rig(0).skeleton();
  const int right_forearm = skeleton.find_joint("RightForeArm");
  const int spine1 = skeleton.find_joint("Spine1");
  ASSERT_GE(right_forearm, 0);
  ASSERT_GE(spine1, 0);
  const char* below_mask[] = {"Hips",     "Spine",     "Spine1",  "LeftUpLeg",
                              "LeftLeg",  "LeftFoot",  "LeftToe", "RightUpLeg",
                              "RightLeg", "RightFoot", "RightToe"};
  for (int t = 0; t < 600; ++t) {
    const std::vector<Mat4>& a = palettes[static_cast<size_t>(t)];
    const std::vector<Mat4>& b = plain_palettes[static_cast<size_t>(t)];
    ASSERT_EQ(a.size(), b.size());
    if (t < 300) {
      for (size_t j = 0; j < a.size(); ++j) ASSERT_TRUE(same(a[j], b[j])) << t << " " << j;
      continue;
    }
    if (t < 400) {
      for (const char* name : below_mask) {
        const int j = skeleton.find_joint(name);
        ASSERT_GE(j, 0);
        EXPECT_TRUE(same(a[static_cast<size_t>(j)], b[static_cast<size_t>(j)]))
            << name << " at tick " << t;
      }
    }
    if (t >= 315) {
      EXPECT_FALSE(
          same(a[static_cast<size_t>(right_forearm)], b[static_cast<size_t>(right_forearm)]))
          << "the wave raises the right forearm, tick " << t;
    }
  }
  int breathing = 0;
  for (int t = 400; t < 600; ++t) {
    breathing += same(palettes[static_cast<size_t>(t)][static_cast<size_t>(spine1)],
                      plain_palettes[static_cast<size_t>(t)][static_cast<size_t>(spine1)])
                     ? 0
                     : 1;
  }
  EXPECT_GT(breathing, 150) << "the additive breath moves the chest once tired is 1";
}

}  // namespace
}  // namespace animpack
