// render: plays a cooked pack by tick with the ScenePlayer and writes each frame, drawn
// headless with animpack::gl, as a PNG.
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "animpack/bounds.h"
#include "animpack/camera.h"
#include "animpack/gl/context.h"
#include "animpack/gl/framing.h"
#include "animpack/gl/renderer.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/scene_player.h"
#include "sample_args.h"

namespace {

using namespace animpack;

const char* const kUsage =
    "usage: render PACK --ticks N -o DIR [--every K] [--size WxH] [--rate R] [--ids]\n";

// The box of everything shown at every tick written (a first run of its own player over
// the same ticks): the union of each object's ScenePlayer::world_bounds, or of the posed
// vertices for a pack that stores no bounds (version 1).
Box shown_box(const Pack& pack, int32_t rate, long ticks, long every) {
  Box box;
  auto player = ScenePlayer::create(&pack, rate);
  if (!player) return box;
  for (long t = 0; t < ticks; ++t) {
    player->step();
    if (t % every != 0) continue;
    Result<Box> world = gl::world_box(*player);
    box = gl::merge_boxes(box, world ? *world : gl::posed_box(pack, player->posed()));
  }
  return box;
}

bool write_png(const std::string& path, uint32_t w, uint32_t h, const uint8_t* rgba) {
  if (stbi_write_png(path.c_str(), static_cast<int>(w), static_cast<int>(h), 4, rgba,
                     static_cast<int>(w * 4)) == 0) {
    std::fprintf(stderr, "render: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  long ticks = -1, every = 1, rate = 60, w = 480, h = 360;
  bool ids = false;
  std::string out_dir;
  CLI::App app;
  app.add_option("PACK", path)->required();
  samples::add_number(app, "--ticks", 1, 1000000, &ticks)->required();
  samples::add_number(app, "--every", 1, 1000000, &every);
  samples::add_number(app, "--rate", 1, 10000, &rate);
  samples::add_size(app, "--size", 1, gl::kMaxTargetSize, &w, &h);
  app.add_flag("--ids", ids);
  app.add_option("-o", out_dir)->required()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  if (const int status = samples::parse(app, argc, argv, "render", kUsage); status >= 0) {
    return status;
  }
  if (out_dir.empty()) return samples::usage_error(kUsage);
  const uint32_t width = static_cast<uint32_t>(w), height = static_cast<uint32_t>(h);

  auto pack = Pack::open(path);
  if (!pack) {
    std::fprintf(stderr, "render: %s\n", pack.error().message());
    return pack.error().code() == ErrorCode::kIo ? 2 : 1;
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "render: cannot create %s: %s\n", out_dir.c_str(), ec.message().c_str());
    return 2;
  }
  auto player = ScenePlayer::create(&*pack, static_cast<int32_t>(rate));
  if (!player) {
    std::fprintf(stderr, "render: %s\n", player.error().message());
    return 1;
  }
  auto context = gl::Context::create_headless();
  if (!context) {
    std::fprintf(stderr, "render: %s\n", context.error().message());
    return 1;
  }
  int status = 0;
  {
    auto renderer = gl::Renderer::create(&*context);
    if (!renderer) {
      std::fprintf(stderr, "render: %s\n", renderer.error().message());
      return 1;
    }
    auto scene = gl::SceneRenderer::create(&*renderer, &*pack);
    if (!scene) {
      std::fprintf(stderr, "render: %s\n", scene.error().message());
      return 1;
    }
    std::printf("render: %s: %u objects, %ld ticks at %ld Hz, %ux%u, %s (%s)\n", path.c_str(),
                player->object_count(), ticks, rate, width, height,
                context->info().renderer.c_str(), context->info().backend.c_str());
    const float aspect = static_cast<float>(width) / static_cast<float>(height);
    const Box shown = shown_box(*pack, static_cast<int32_t>(rate), ticks, every);
    const Camera camera = gl::frame_box(shown, aspect);
    if (shown.valid()) {
      std::printf("render: framed on (%g %g %g) .. (%g %g %g)\n", static_cast<double>(shown.lo.x),
                  static_cast<double>(shown.lo.y), static_cast<double>(shown.lo.z),
                  static_cast<double>(shown.hi.x), static_cast<double>(shown.hi.y),
                  static_cast<double>(shown.hi.z));
    }
    std::vector<uint8_t> id_rgba;
    int frames = 0;
    for (long t = 0; t < ticks && status == 0; ++t) {
      player->step();
      if (t % every != 0) continue;
      const Posed& posed = player->posed(&camera);
      if (auto r = scene->draw(posed, {camera, {}, width, height}); !r) {
        std::fprintf(stderr, "render: tick %ld: %s\n", t, r.error().message());
        status = 1;
        break;
      }
      auto image = renderer->read_color();
      if (!image) {
        std::fprintf(stderr, "render: %s\n", image.error().message());
        status = 1;
        break;
      }
      char name[64];
      std::snprintf(name, sizeof name, "/frame_%04ld.png", t);
      if (!write_png(out_dir + name, width, height, image->rgba.data())) status = 2;
      if (ids && status == 0) {
        auto id_buffer = renderer->read_ids();
        if (!id_buffer) {
          std::fprintf(stderr, "render: %s\n", id_buffer.error().message());
          status = 1;
          break;
        }
        id_rgba.assign(id_buffer->size() * 4, 255);
        for (size_t i = 0; i < id_buffer->size(); ++i) {
          const uint32_t id = (*id_buffer)[i];
          const uint32_t hash = id * 2654435761u;
          id_rgba[i * 4] = id == 0 ? 0 : static_cast<uint8_t>(hash >> 24);
          id_rgba[i * 4 + 1] = id == 0 ? 0 : static_cast<uint8_t>(hash >> 16);
          id_rgba[i * 4 + 2] = id == 0 ? 0 : static_cast<uint8_t>(hash >> 8);
        }
        std::snprintf(name, sizeof name, "/ids_%04ld.png", t);
        if (!write_png(out_dir + name, width, height, id_rgba.data())) status = 2;
      }
      ++frames;
    }
    if (status == 0) {
      std::printf("render: %d frames in %s (tick %lld last)\n", frames, out_dir.c_str(),
                  static_cast<long long>(player->tick()));
    }
  }
  return status;
}
