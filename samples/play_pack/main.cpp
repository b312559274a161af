// play_pack: plays a cooked pack's scene with the runtime's ScenePlayer and writes PNG
// frames of its posed snapshot, ray traced by animpack::trace: textured and lit (the
// shared shading model), anti-aliased, over a ground that takes the shadows, every frame
// seen by one camera framed from the bounds of all the frames it writes
// (ScenePlayer::world_bounds).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/scene_player.h"
#include "animpack/tracer/framing.h"
#include "animpack/tracer/image.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"
#include "sample_args.h"

namespace {

using namespace animpack;

const char* const kUsage =
    "usage: play_pack PACK [--ticks N] [--rate R] [--every K] [--size WxH]\n"
    "                 [--samples 1|4|16] [--threads N] [-o DIR]\n";

// The frames look from the front (+z), a little right and above.
constexpr Vec3 kView{0.25f, 0.3f, 1.0f};

// A grey ground under everything: a square 12 radii of `box` each way, at its lowest y.
Result<void> add_ground(trace::TraceScene& scene, const trace::Aabb& box) {
  const Vec3 c = box.centre(), e = box.extent();
  const float r = std::max(0.5f * length(e), 1e-3f) * 12.0f;
  const float y = box.lo.y;
  const Vec3 p[4] = {
      {c.x - r, y, c.z - r}, {c.x + r, y, c.z - r}, {c.x + r, y, c.z + r}, {c.x - r, y, c.z + r}};
  const Vec3 n[4] = {{0, 1, 0}, {0, 1, 0}, {0, 1, 0}, {0, 1, 0}};
  const uint32_t idx[6] = {0, 2, 1, 0, 3, 2};
  trace::Material ground;
  ground.base_color = {0.14f, 0.15f, 0.16f, 1.0f};
  const uint32_t mat = scene.add_material(ground);
  if (auto r2 = scene.add_mesh({p, n, {}, idx, trace::kNoObject, mat}); !r2) return r2.error();
  scene.build();
  return ok();
}

// Prints each tick's events as they are delivered and counts them per object.
struct Printer : Game {
  std::vector<int> counts;
  void animated(ScenePlayer& player, std::span<const AnimationEvent> events) override {
    for (const AnimationEvent& e : events) {
      const std::string_view name = player.name(e.object);
      std::printf("  tick %4lld  %.*s: %.*s (%sclip %.*s)\n", static_cast<long long>(e.tick),
                  static_cast<int>(name.size()), name.data(), static_cast<int>(e.event.size()),
                  e.event.data(), e.sprite ? "sprite " : "", static_cast<int>(e.clip_name.size()),
                  e.clip_name.data());
      ++counts[e.object.value];
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  long ticks = 240, every = 10, width = 480, height = 360, samples = 4, threads = 0, rate_arg = 60;
  std::string out_dir = "out/frames";
  CLI::App app;
  app.add_option("PACK", path)->required();
  samples::add_number(app, "--ticks", 1, 1000000, &ticks);
  samples::add_number(app, "--every", 1, 1000000, &every);
  samples::add_number(app, "--rate", 1, 10000, &rate_arg);
  samples::add_number(app, "--samples", 1, 16, &samples);
  samples::add_number(app, "--threads", 0, 256, &threads);
  samples::add_size(app, "--size", 16, 4096, &width, &height);
  app.add_option("-o", out_dir)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  if (const int status = samples::parse(app, argc, argv, "play_pack", kUsage); status >= 0) {
    return status;
  }
  if (trace::sample_offsets(static_cast<int>(samples)).empty()) return samples::usage_error(kUsage);
  const int rate = static_cast<int>(rate_arg);
  auto pack = Pack::open(path);
  if (!pack) {
    std::fprintf(stderr, "play_pack: %s\n", pack.error().message());
    return pack.error().code() == ErrorCode::kIo ? 2 : 1;
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "play_pack: cannot create %s: %s\n", out_dir.c_str(),
                 ec.message().c_str());
    return 2;
  }

  // Setup: the scene player gives every rigged object an Animator and every sprite object a
  // SpritePlayer, each playing its [object.animation] from tick 0.
  auto player = ScenePlayer::create(&*pack, rate);
  if (!player) {
    std::fprintf(stderr, "play_pack: %s\n", player.error().message());
    return 1;
  }
  Printer printer;
  printer.counts.assign(player->object_count(), 0);
  std::printf("play_pack: %s: %u objects, %ld ticks at %d Hz\n", path.c_str(),
              player->object_count(), ticks, rate);

  // Pass 1: the box of every frame to be written: the union of ScenePlayer::world_bounds
  // (it holds every skinned vertex, camera-facing cards turned any way) of every object at
  // those ticks; a pack without bounds (format 1) is staged instead, its cards turned to a
  // far eye along the view. A second player (the runtime is deterministic, so it plays
  // the very same ticks) stays for pass 2.
  auto scout = ScenePlayer::create(&*pack, rate);
  if (!scout) {
    std::fprintf(stderr, "play_pack: %s\n", scout.error().message());
    return 1;
  }
  Camera far_eye;
  far_eye.eye = normalize(kView) * 1000.0f;
  far_eye.target = {0, 0, 0};
  trace::Aabb box;
  for (int64_t tick = 0; tick < ticks; ++tick) {
    scout->step();
    if (tick % every != 0) continue;
    bool bounded = true;
    for (uint32_t i = 0; i < scout->object_count() && bounded; ++i) {
      Result<Box> b = scout->world_bounds(ObjectId{i});
      if (!b) {
        bounded = false;
      } else if (b->valid()) {
        box.grow(b->lo);
        box.grow(b->hi);
      }
    }
    if (bounded) continue;
    auto scene = trace::stage_posed(*pack, scout->posed(&far_eye));
    if (!scene) {
      std::fprintf(stderr, "play_pack: tick %lld: %s\n", static_cast<long long>(tick),
                   scene.error().message());
      return 1;
    }
    box.merge(scene->bounds());
  }
  if (!box.valid()) {
    std::fprintf(stderr, "play_pack: %s has nothing to draw\n", path.c_str());
    return 1;
  }
  trace::FramingOptions framing;
  framing.view = kView;
  framing.margin = 1.04f;
  trace::RenderOptions render;
  render.width = static_cast<int>(width);
  render.height = static_cast<int>(height);
  render.samples = static_cast<int>(samples);
  render.threads = static_cast<int>(threads);
  render.camera = trace::frame_box(box, render.width, render.height, framing);

  // Pass 2: play, print the events, trace and write the frames.
  int frames = 0;
  for (int64_t tick = 0; tick < ticks; ++tick) {
    player->step(&printer);
    if (tick % every != 0) continue;
    auto scene = trace::stage_posed(*pack, player->posed(&render.camera));
    if (scene) {
      if (auto g = add_ground(*scene, box); !g) scene = g.error();
    }
    if (!scene) {
      std::fprintf(stderr, "play_pack: tick %lld: %s\n", static_cast<long long>(tick),
                   scene.error().message());
      return 1;
    }
    auto frame = trace::render(*scene, render);
    if (!frame) {
      std::fprintf(stderr, "play_pack: %s\n", frame.error().message());
      return 1;
    }
    char name[64];
    std::snprintf(name, sizeof name, "/frame_%04lld.png", static_cast<long long>(tick));
    if (auto w = trace::write_png(frame->color, out_dir + name); !w) {
      std::fprintf(stderr, "play_pack: %s\n", w.error().message());
      return 2;
    }
    ++frames;
  }
  std::printf("summary: %ld ticks, %d PNG frames of %ldx%ld (%ld samples a pixel) in %s\n", ticks,
              frames, width, height, samples, out_dir.c_str());
  for (uint32_t i = 0; i < player->object_count(); ++i) {
    const ObjectId id{i};
    const std::string_view name = player->name(id);
    std::printf("  %-10.*s", static_cast<int>(name.size()), name.data());
    const Animator* animator = player->animator(id);
    const SpritePlayer* sprite = player->sprite(id);
    if (animator && animator->mix_count() > 0) {
      std::printf(" %d layer(s), %d events", animator->layer_count(animator->mix_count() - 1),
                  printer.counts[i]);
    } else if (sprite && sprite->clip() >= 0) {
      std::printf(
          " sprite clip %s, frame %u, %d events",
          player->sprite_sheet(id)->clips()[static_cast<size_t>(sprite->clip())].name().c_str(),
          player->sprite_frame(id), printer.counts[i]);
    } else {
      std::printf(" still");
    }
    std::printf("\n");
  }
  if (player->dropped_events() != 0) {
    std::printf("  (%llu events dropped)\n",
                static_cast<unsigned long long>(player->dropped_events()));
  }
  return 0;
}
