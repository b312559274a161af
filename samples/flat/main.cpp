// flat: plays a pack's sprite object (the demo's hero) in 2D with the flat pass
// (gl/flat_sprites.h), stepping a SpritePlayer of its own by tick, printing its frame
// events, and writes frames headless as PNG.
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "animpack/gl/context.h"
#include "animpack/gl/flat_sprites.h"
#include "animpack/gl/renderer.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "animpack/sprite.h"
#include "sample_args.h"

namespace {

using namespace animpack;

const char* const kUsage =
    "usage: flat PACK --ticks N -o DIR [--every K] [--object NAME] [--clip NAME] [--scale S]\n"
    "            [--size WxH] [--rate R]\n";

bool write_png(const std::string& path, const gl::Image& image) {
  if (stbi_write_png(path.c_str(), static_cast<int>(image.width), static_cast<int>(image.height), 4,
                     image.rgba.data(), static_cast<int>(image.width * 4)) == 0) {
    std::fprintf(stderr, "flat: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path, out_dir, object_name = "hero", clip_name;
  long ticks = -1, every = 1, rate = 60, scale = 2, w = 0, h = 0;
  CLI::App app;
  app.add_option("PACK", path)->required();
  samples::add_number(app, "--ticks", 1, 1000000, &ticks)->required();
  samples::add_number(app, "--every", 1, 1000000, &every);
  samples::add_number(app, "--rate", 1, 10000, &rate);
  samples::add_number(app, "--scale", 1, 16, &scale);
  samples::add_size(app, "--size", 16, gl::kMaxTargetSize, &w, &h);
  app.add_option("--object", object_name)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--clip", clip_name)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("-o", out_dir)->required()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  if (const int status = samples::parse(app, argc, argv, "flat", kUsage); status >= 0) {
    return status;
  }
  if (out_dir.empty()) return samples::usage_error(kUsage);

  auto pack = Pack::open(path);
  if (!pack) {
    std::fprintf(stderr, "flat: %s\n", pack.error().message());
    return pack.error().code() == ErrorCode::kIo ? 2 : 1;
  }
  // The object's sheet with its events, as the scene plays it (ScenePlayer::sprite_sheet).
  auto scene = ScenePlayer::create(&*pack, static_cast<int32_t>(rate));
  if (!scene) {
    std::fprintf(stderr, "flat: %s\n", scene.error().message());
    return 1;
  }
  auto object = scene->find(object_name);
  const SpriteSheet* sheet = object ? scene->sprite_sheet(*object) : nullptr;
  if (sheet == nullptr) {
    std::fprintf(stderr, "flat: %s has no sprite object '%s'\n", path.c_str(), object_name.c_str());
    return 1;
  }
  const ObjectAnimationInfo& animation = pack->objects()[object->value].animation;
  auto pixels = pack->sprite_pixels(animation.sprite_sheet);
  if (!pixels) {
    std::fprintf(stderr, "flat: %s\n", pixels.error().message());
    return 1;
  }
  // Its own player, stepped by tick: the object's clip, or --clip.
  auto player = SpritePlayer::create(sheet, static_cast<int32_t>(rate));
  if (!player) {
    std::fprintf(stderr, "flat: %s\n", player.error().message());
    return 1;
  }
  Result<void> played = ok();
  if (!clip_name.empty()) {
    played = player->play(clip_name, 0);
  } else if (animation.clip >= 0) {
    played = player->play(static_cast<uint16_t>(animation.clip), 0);
  }
  if (!played) {
    std::fprintf(stderr, "flat: %s\n", played.error().message());
    return 1;
  }

  // The target: the largest source box at `scale`, with room around it.
  uint32_t cell_w = 1, cell_h = 1;
  const Atlas& atlas = sheet->atlas();
  for (uint32_t f = 0; f < atlas.frame_count(); ++f) {
    const FramePlacement p = *atlas.placement(f);
    cell_w = std::max(cell_w, p.source.width);
    cell_h = std::max(cell_h, p.source.height);
  }
  const auto s = static_cast<uint32_t>(scale);
  uint32_t width = w > 0 ? static_cast<uint32_t>(w) : std::min(cell_w * s * 2, gl::kMaxTargetSize);
  uint32_t height =
      h > 0 ? static_cast<uint32_t>(h) : std::min(cell_h * s + cell_h * s / 2, gl::kMaxTargetSize);

  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "flat: cannot create %s: %s\n", out_dir.c_str(), ec.message().c_str());
    return 2;
  }
  auto context = gl::Context::create_headless();
  if (!context) {
    std::fprintf(stderr, "flat: %s\n", context.error().message());
    return 1;
  }
  int status = 0;
  {
    auto renderer = gl::Renderer::create(&*context);
    auto flat = renderer ? gl::FlatSprites::create(&*renderer, 16)
                         : Result<gl::FlatSprites>(renderer.error());
    Result<void> uploaded = flat ? flat->upload_sheet(*pixels, atlas) : Result<void>(flat.error());
    if (!uploaded) {
      std::fprintf(stderr, "flat: %s\n", uploaded.error().message());
      return 1;
    }
    // A 3D ground strip under the hero (the flat pass draws after the 3D passes): an
    // orthographic camera one world unit a pixel, y up from the bottom.
    const float fw = static_cast<float>(width), fh = static_cast<float>(height);
    const float ground = fh * 0.2f;  // the ground's height in pixels
    const Vec3 quad[4] = {{0, 0, 0}, {fw, 0, 0}, {fw, ground, 0}, {0, ground, 0}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    auto mesh = renderer->upload_mesh({quad, {}, {}, {}, indices});
    gl::InstanceDesc desc;
    if (mesh) desc.mesh = *mesh;
    desc.color = {0.16f, 0.32f, 0.13f, 1.0f};
    desc.id = 1;
    if (!mesh || !renderer->create_instance(desc)) {
      std::fprintf(stderr, "flat: cannot make the ground\n");
      return 1;
    }
    gl::View view;
    view.width = width;
    view.height = height;
    view.camera.orthographic = true;
    view.camera.ortho_height = fh;
    view.camera.eye = {fw / 2, fh / 2, 10};
    view.camera.target = {fw / 2, fh / 2, 0};
    view.camera.near_plane = 1;
    view.camera.far_plane = 100;
    view.clear_color = {0.55f, 0.74f, 0.86f, 1.0f};  // sky, stored as given
    view.ambient = 1.0f;                             // unlit ground
    std::printf("flat: %s: object %s, %u frames of %ux%u, %ld ticks at %ld Hz, %ux%u at %ldx, %s\n",
                path.c_str(), object_name.c_str(), atlas.frame_count(), cell_w, cell_h, ticks, rate,
                width, height, scale, context->info().renderer.c_str());
    int frames = 0;
    for (long t = 0; t < ticks && status == 0; ++t) {
      for (const SpriteEvent& e : player->advance(t)) {
        std::printf("tick %lld: %.*s (clip %s, atlas frame %u)\n", static_cast<long long>(e.tick),
                    static_cast<int>(e.name.size()), e.name.data(),
                    sheet->clips()[e.clip].name().c_str(), player->frame(e.tick));
      }
      if (t % every != 0) continue;
      if (auto r = renderer->render(view); !r) {
        std::fprintf(stderr, "flat: tick %ld: %s\n", t, r.error().message());
        status = 1;
        break;
      }
      // The hero: its pivot (the cell's centre for a grid sheet) so that the source
      // box stands on the ground, at an integer scale; its shadow first, below it.
      gl::FlatSprite hero;
      hero.frame = player->frame(t);
      const FramePlacement p = *atlas.placement(hero.frame);
      hero.size = {static_cast<float>(p.source.width * s), static_cast<float>(p.source.height * s)};
      hero.center = {
          fw / 2 + (p.pivot_x - static_cast<float>(p.source.width) / 2) * static_cast<float>(s),
          fh - ground + (p.pivot_y - static_cast<float>(p.source.height)) * static_cast<float>(s) +
              8.0f * static_cast<float>(s)};
      hero.id = 2;
      hero.depth = 1;
      gl::FlatSprite shadow = hero;
      shadow.tint = {0, 0, 0, 0.25f};
      shadow.size.y = hero.size.y * 0.25f;
      shadow.center.y = fh - ground + 2.0f * static_cast<float>(s);
      shadow.center.x = hero.center.x;
      shadow.id = gl::kNoId;
      shadow.depth = 0;
      const gl::FlatSprite batch[2] = {hero, shadow};
      if (auto r = flat->draw(batch); !r) {
        std::fprintf(stderr, "flat: tick %ld: %s\n", t, r.error().message());
        status = 1;
        break;
      }
      auto image = renderer->read_color();
      if (!image) {
        std::fprintf(stderr, "flat: %s\n", image.error().message());
        status = 1;
        break;
      }
      char name[64];
      std::snprintf(name, sizeof name, "/flat_%04ld.png", t);
      if (!write_png(out_dir + name, *image)) status = 2;
      ++frames;
    }
    if (status == 0) std::printf("flat: %d frames in %s\n", frames, out_dir.c_str());
  }
  return status;
}
