// fox_walk: the game side of the Step 4 worked example (assets/fox/scene.toml). It plays
// the cooked pack with the runtime's ScenePlayer and, every tick, does what a game does
// with root motion and IK:
// - takes the fox's root motion (take_root_motion) and moves the fox by it: translate in
//   its own frame (its rotation and scale applied), then turn by the yaw about its up
//   (set_transform);
// - moves the target box along a path around the fox's head (set_transform) and aims the
//   neck and head at it (set_ik_target with object_point: the world point in the fox's
//   space);
// - sets the ground under both hind feet (set_ik_ground: the flat floor at height 0).
// It writes traced PNG frames (animpack::trace, like play_pack) over a grey floor striped
// every half metre: a wide shot, one camera framing the whole walk (fox_walk_TTTT.png), and
// a close one from above that follows the fox and the target (fox_close_TTTT.png), and a
// filmstrip of each.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "animpack/limits.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/root_motion.h"
#include "animpack/scalar.h"
#include "animpack/scene_player.h"
#include "animpack/tracer/framing.h"
#include "animpack/tracer/image.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"
#include "sample_args.h"

namespace {

using namespace animpack;

const char* const kUsage =
    "usage: fox_walk PACK [--ticks N] [--every K] [--size WxH] [--samples 1|4|16]\n"
    "                [--threads N] [-o DIR]\n";

// The wide shot: from the front (+z), a little right and above; the fox walks along +x
// across the view. The close shot: from above its right, following it.
constexpr Vec3 kView{0.15f, 0.2f, 1.0f};
constexpr Vec3 kCloseView{0.35f, 0.9f, 1.0f};

// The game: the fox walks by its root motion, the target circles in front of its head.
struct FoxGame : Game {
  ObjectId fox, target;
  Vec3 up{0, 1, 0};  // the fox mesh's up (object space)

  // The target's path in the fox's object space (its units: centimetres): a half circle
  // 55 cm round the head (at about (0, 61, 36)), swinging from its left to its right and
  // back every 3 s, bobbing 12 cm up and down twice as fast.
  static Vec3 path(int64_t tick) {
    const float t = static_cast<float>(tick) / 60.0f;
    const float angle = 1.4f * det::sin(2.0f * 3.14159265f * t / 3.0f);
    return {55.0f * det::sin(angle), 64.0f + 12.0f * det::sin(2.0f * 3.14159265f * t / 1.5f),
            36.0f + 55.0f * det::cos(angle)};
  }

  void tick(ScenePlayer& p, int64_t tick) override {
    // The target in the world: the path point carried by the fox's current placement.
    const Vec3 world = transform_point(p.model(fox), path(tick));
    Trs box = p.transform(target);
    box.translation = world;
    (void)p.set_transform(target, box);
    // Aim at it: the world point in the fox's space (the solvers' space).
    const Vec3 local = p.object_point(fox, world);
    (void)p.set_ik_target(fox, "neck", local);
    (void)p.set_ik_target(fox, "look", local);
    // The floor is flat and at the fox's feet.
    (void)p.set_ik_ground(fox, "b_LeftFoot01_017", 0.0f, up);
    (void)p.set_ik_ground(fox, "b_RightFoot01_021", 0.0f, up);
  }

  // After the step: the motion of this tick moves the fox, in its own frame, then turns it.
  void move(ScenePlayer& p) {
    Result<RootMotionDelta> d = p.take_root_motion(fox);
    if (!d) return;
    Trs placed = p.transform(fox);
    const Vec3 step = root_motion_translation(*d);  // object units, the fox's frame
    const Vec3 scaled{step.x * placed.scale.x, step.y * placed.scale.y, step.z * placed.scale.z};
    placed.translation = placed.translation + rotate(placed.rotation, scaled);
    placed.rotation = normalize(placed.rotation * quat_from_axis_angle(up, root_motion_yaw(*d)));
    (void)p.set_transform(fox, placed);
  }
};

// A grey floor at y = 0 (the fox's floor), 12 radii of `box` each way, with darker
// strips across it every half metre so the travel shows.
Result<void> add_floor(trace::TraceScene& scene, const trace::Aabb& box) {
  const Vec3 c = box.centre(), e = box.extent();
  const float r = std::max(0.5f * length(e), 1e-3f) * 12.0f;
  const Vec3 n[4] = {{0, 1, 0}, {0, 1, 0}, {0, 1, 0}, {0, 1, 0}};
  const uint32_t idx[6] = {0, 2, 1, 0, 3, 2};
  trace::Material ground;
  ground.base_color = {0.16f, 0.17f, 0.18f, 1.0f};
  trace::Material line;
  line.base_color = {0.09f, 0.095f, 0.1f, 1.0f};
  const uint32_t ground_mat = scene.add_material(ground);
  const uint32_t line_mat = scene.add_material(line);
  const Vec3 p[4] = {
      {c.x - r, 0, c.z - r}, {c.x + r, 0, c.z - r}, {c.x + r, 0, c.z + r}, {c.x - r, 0, c.z + r}};
  if (auto g = scene.add_mesh({p, n, {}, idx, trace::kNoObject, ground_mat}); !g) return g;
  // Strips at whole multiples of 0.5 m (x = 0.5 k): counted in integers so none is lost,
  // at most 2000 of them (a kilometre of floor).
  const int64_t first = clamp_to_int64(2.0 * static_cast<double>(c.x - r), -1000000, 1000000);
  const int64_t last = std::min(
      first + 2000, clamp_to_int64(2.0 * static_cast<double>(c.x + r), -1000000, 1000000) + 1);
  for (int64_t k = first - 1; k <= last; ++k) {
    const float x = 0.5f * static_cast<float>(k);
    const Vec3 q[4] = {{x - 0.01f, 0.001f, c.z - r},
                       {x + 0.01f, 0.001f, c.z - r},
                       {x + 0.01f, 0.001f, c.z + r},
                       {x - 0.01f, 0.001f, c.z + r}};
    if (auto g = scene.add_mesh({q, n, {}, idx, trace::kNoObject, line_mat}); !g) return g;
  }
  scene.build();
  return ok();
}

// Plays `ticks` ticks of the game on a fresh player, calling `each(player, tick)` after
// every step (the fox moved).
template <typename Each>
Result<void> play(const Pack& pack, long ticks, Each&& each) {
  Result<ScenePlayer> player = ScenePlayer::create(&pack, 60);
  if (!player) return player.error();
  FoxGame game;
  Result<ObjectId> fox = player->find("fox");
  if (!fox) return fox.error();
  Result<ObjectId> target = player->find("target");
  if (!target) return target.error();
  game.fox = *fox;
  game.target = *target;
  const Animator* animator = player->animator(*fox);
  if (animator == nullptr) return Error::make(ErrorCode::kInvalidArgument, "fox has no rig");
  game.up = animator->root_motion().up;
  for (int64_t tick = 0; tick < ticks; ++tick) {
    player->step(&game);
    game.move(*player);
    for (const AnimationError& e : player->animation_errors()) {
      return Error::make(e.error.code(), "tick %lld: %s", static_cast<long long>(e.tick),
                         e.error.message());
    }
    if (auto r = each(*player, tick); !r) return r;
  }
  return ok();
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  long ticks = 240, every = 30, width = 480, height = 270, samples = 4, threads = 0;
  std::string out_dir = "out/frames";
  CLI::App app;
  app.add_option("PACK", path)->required();
  samples::add_number(app, "--ticks", 1, 100000, &ticks);
  samples::add_number(app, "--every", 1, 100000, &every);
  samples::add_number(app, "--samples", 1, 16, &samples);
  samples::add_number(app, "--threads", 0, 256, &threads);
  samples::add_size(app, "--size", 16, 4096, &width, &height);
  app.add_option("-o", out_dir)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  if (const int status = samples::parse(app, argc, argv, "fox_walk", kUsage); status >= 0) {
    return status;
  }
  if (trace::sample_offsets(static_cast<int>(samples)).empty()) return samples::usage_error(kUsage);
  auto pack = Pack::open(path);
  if (!pack) {
    std::fprintf(stderr, "fox_walk: %s\n", pack.error().message());
    return pack.error().code() == ErrorCode::kIo ? 2 : 1;
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "fox_walk: cannot create %s: %s\n", out_dir.c_str(), ec.message().c_str());
    return 2;
  }

  // Pass 1: the box of every frame to be written (the runtime is deterministic: pass 2
  // plays the very same ticks), so one fixed camera sees the whole walk.
  trace::Aabb box;
  Result<void> scouted = play(*pack, ticks, [&](ScenePlayer& p, int64_t tick) -> Result<void> {
    if (tick % every != 0) return ok();
    for (uint32_t i = 0; i < p.object_count(); ++i) {
      Result<Box> b = p.world_bounds(ObjectId{i});
      if (!b) return b.error();
      if (b->valid()) {
        box.grow(b->lo);
        box.grow(b->hi);
      }
    }
    return ok();
  });
  if (!scouted) {
    std::fprintf(stderr, "fox_walk: %s\n", scouted.error().message());
    return 1;
  }
  box.grow({box.lo.x, 0.0f, box.lo.z});  // the floor in view
  trace::FramingOptions framing;
  framing.view = kView;
  framing.margin = 1.02f;
  trace::RenderOptions render;
  render.width = static_cast<int>(width);
  render.height = static_cast<int>(height);
  render.samples = static_cast<int>(samples);
  render.threads = static_cast<int>(threads);
  render.camera = trace::frame_box(box, render.width, render.height, framing);

  // Pass 2: play, trace and write the frames: the wide shot (one camera for the whole
  // walk) and the close one (framing the fox and the target at that tick).
  std::vector<trace::Image> wide, close;
  Vec3 start{}, end{};
  const auto shoot = [&](const trace::TraceScene& scene, const Camera& camera, const char* shot,
                         int64_t tick, std::vector<trace::Image>* out) -> Result<void> {
    trace::RenderOptions options = render;
    options.camera = camera;
    Result<trace::Frame> frame = trace::render(scene, options);
    if (!frame) return frame.error();
    char name[64];
    std::snprintf(name, sizeof name, "/%s_%04lld.png", shot, static_cast<long long>(tick));
    if (auto w = trace::write_png(frame->color, out_dir + name); !w) return w;
    out->push_back(std::move(frame->color));
    return ok();
  };
  Result<void> played = play(*pack, ticks, [&](ScenePlayer& p, int64_t tick) -> Result<void> {
    const ObjectId fox = *p.find("fox"), target = *p.find("target");
    if (tick == 0) start = p.transform(fox).translation;
    end = p.transform(fox).translation;
    if (tick % every != 0) return ok();
    trace::Aabb near;
    for (ObjectId o : {fox, target}) {
      Result<Box> b = p.world_bounds(o);
      if (!b) return b.error();
      near.grow(b->lo);
      near.grow(b->hi);
    }
    trace::FramingOptions close_framing;
    close_framing.view = kCloseView;
    close_framing.margin = 1.05f;
    const Camera close_camera = trace::frame_box(near, render.width, render.height, close_framing);
    const Camera* wide_camera = &render.camera;
    for (const Camera* camera : {wide_camera, &close_camera}) {
      Result<trace::TraceScene> scene = trace::stage_posed(*pack, p.posed(camera));
      if (!scene) return scene.error();
      if (auto g = add_floor(*scene, box); !g) return g;
      const bool is_wide = camera == wide_camera;
      if (auto r = shoot(*scene, *camera, is_wide ? "fox_walk" : "fox_close", tick,
                         is_wide ? &wide : &close);
          !r) {
        return r;
      }
    }
    return ok();
  });
  if (!played) {
    std::fprintf(stderr, "fox_walk: %s\n", played.error().message());
    return 1;
  }
  // The filmstrips: each shot's frames in rows of up to 4, left to right, top to bottom.
  for (const auto& [frames, file] :
       {std::pair{&wide, "/fox_walk_strip.png"}, std::pair{&close, "/fox_close_strip.png"}}) {
    const int columns = static_cast<int>(std::min<size_t>(frames->size(), 4));
    const int rows = static_cast<int>((frames->size() + 3) / 4);
    trace::Image strip(columns * render.width, rows * render.height);
    for (size_t f = 0; f < frames->size(); ++f) {
      const int ox = static_cast<int>(f % 4) * render.width;
      const int oy = static_cast<int>(f / 4) * render.height;
      for (int y = 0; y < render.height; ++y) {
        for (int x = 0; x < render.width; ++x) strip.set(ox + x, oy + y, (*frames)[f].at(x, y));
      }
    }
    if (auto w = trace::write_png(strip, out_dir + file); !w) {
      std::fprintf(stderr, "fox_walk: %s\n", w.error().message());
      return 2;
    }
  }
  const Vec3 d = end - start;
  std::printf(
      "fox_walk: %ld ticks, the fox walked %.3f m (from %.3f %.3f %.3f to %.3f %.3f %.3f)\n", ticks,
      static_cast<double>(length(d)), static_cast<double>(start.x), static_cast<double>(start.y),
      static_cast<double>(start.z), static_cast<double>(end.x), static_cast<double>(end.y),
      static_cast<double>(end.z));
  std::printf(
      "fox_walk: %zu wide and %zu close PNG frames of %ldx%ld, fox_walk_strip.png and "
      "fox_close_strip.png in %s\n",
      wide.size(), close.size(), width, height, out_dir.c_str());
  return 0;
}
