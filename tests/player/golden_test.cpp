// The golden run of the scene player: a scripted game of 240 ticks over the fixture pack
// (plays, fades, blends, a speed change, once, a stop, a refused call and sprite clip
// switches), hashed over every object's palette bits, sprite frame, camera-facing model
// matrix, event and refusal. The value below is the same in Debug and Release, with g++
// and clang++ (presets dev, ci, ci-clang, asan); a change to it is a change in playback,
// to be made deliberately.
#include <gtest/gtest.h>

#include <cstdint>

#include "animpack/scene_player.h"
#include "scene_fixture.h"

namespace animpack {
namespace {

using namespace player_fixture;

// The golden value: FNV-1a 64 of the run below.
constexpr uint64_t kGoldenHash = 0x9e02b740db7ea323;

struct Fnv {
  uint64_t h = 0xcbf29ce484222325ull;
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) {
      h ^= b[i];
      h *= 0x100000001b3ull;
    }
  }
  template <typename T>
  void value(const T& v) {
    bytes(&v, sizeof v);
  }
};

struct GoldenGame : Game {
  void tick(ScenePlayer& p, int64_t t) override {
    const ObjectId walker{kWalker}, runner{kRunner}, idler{kIdler}, box{kBox}, hero{kHero},
        card{kCard}, flag{kFlag};
    switch (t) {
      case 20:
        p.animate(idler, "Linear").blend("Rotate", 0.4f);
        break;
      case 45:
        p.animate(walker, "Cubic").fade(0.3).ping_pong();
        break;
      case 60:
        (void)p.play_clip(hero, "jump");
        (void)p.play_clip(card, "idle");
        break;
      case 80:
        p.animate(runner, "Rotate").fade(0.5).blend("Step", 0.25f).speed(1.25f);
        break;
      case 100:
        (void)p.blend_clip(walker, "Step", 0.5f);
        break;
      case 120:
        p.animate(hero, "run").speed(1.5f).start(0.1);
        break;
      case 130:
        (void)p.stop_animation(box);
        break;
      case 150:
        p.animate(idler, "Step").once().start(0.2);
        break;
      case 170:
        (void)p.play_clip(box, "Bob");
        break;
      case 190:
        p.animate(walker, "Linear").fade(0.0);
        p.animate(flag, "run").speed(0.5f);
        break;
      case 200:
        (void)p.play_clip(runner, "Nope");               // refused
        (void)p.animate(hero, "idle").fade(0.2).done();  // refused: a sprite
        break;
      case 210:
        p.animate(runner, "Linear").fade(1.0).once();
        (void)p.stop_animation(card);
        break;
      default:
        break;
    }
  }
};

uint64_t scripted_run() {
  const Pack pack = make_pack();
  ScenePlayer player = std::move(*ScenePlayer::create(&pack, 60));
  GoldenGame game;
  Camera camera;
  camera.eye = {3, 2, 6};
  camera.target = {0, 1, 0};
  Fnv fnv;
  for (int64_t t = 0; t < 240; ++t) {
    camera.eye.x = 3.0f - static_cast<float>(t) / 40.0f;  // the camera moves round the hero
    player.step(&game);
    const Posed& posed = player.posed(&camera);
    for (const PosedObject& o : posed.objects) {
      fnv.bytes(o.model.m, sizeof o.model.m);
      for (const Mat4& m : o.palette) fnv.bytes(m.m, sizeof m.m);
      fnv.value(o.sprite_frame);
    }
    for (const AnimationEvent& e : player.animation_events()) {
      fnv.value(e.tick);
      fnv.value(e.object.value);
      fnv.value(e.sprite);
      fnv.value(e.clip);
      fnv.bytes(e.event.data(), e.event.size());
    }
    for (const AnimationError& e : player.animation_errors()) {
      fnv.value(e.tick);
      fnv.value(e.object.value);
      fnv.value(e.error.code());
    }
  }
  return fnv.h;
}

TEST(PlayerGolden, AScriptedGameHashesToTheGoldenValue) {
  const uint64_t h = scripted_run();
  EXPECT_EQ(h, kGoldenHash) << "got 0x" << std::hex << h;
}

TEST(PlayerGolden, TwoRunsGiveTheSameBits) { EXPECT_EQ(scripted_run(), scripted_run()); }

}  // namespace
}  // namespace animpack
