// play_pack: plays a cooked pack's scene with the runtime's ScenePlayer and writes PNG
// frames of its posed snapshot.
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
#include "animpack/skinning.h"
#include "frame_writer.h"

namespace {

using namespace animpack;

int usage() {
  std::fprintf(stderr, "usage: play_pack PACK [--ticks N] [--rate R] [--every K] [-o DIR]\n");
  return 2;
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
  if (argc < 2) return usage();
  const std::string path = argv[1];
  long ticks = 240, every = 10;
  int rate = 60;
  std::string out_dir = "out/frames";
  for (int i = 2; i < argc; ++i) {
    auto number = [&](long lo, long hi, long* out) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      *out = std::strtol(argv[++i], &end, 10);
      return *end == '\0' && *out >= lo && *out <= hi;
    };
    long r = 0;
    if (std::strcmp(argv[i], "--ticks") == 0) {
      if (!number(1, 1000000, &ticks)) return usage();
    } else if (std::strcmp(argv[i], "--every") == 0) {
      if (!number(1, 1000000, &every)) return usage();
    } else if (std::strcmp(argv[i], "--rate") == 0) {
      if (!number(1, 10000, &r)) return usage();
      rate = static_cast<int>(r);
    } else if (std::strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
      out_dir = argv[++i];
    } else {
      return usage();
    }
  }
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

  // The frames look from the front (+z), so face_camera cards stay as they are.
  Camera camera;
  camera.eye = {0, 0, 50};
  camera.target = {0, 0, 0};
  camera.orthographic = true;

  std::optional<samples::Frame> frame;
  std::vector<Vec3> skinned, normals;
  int frames = 0;
  for (int64_t tick = 0; tick < ticks; ++tick) {
    player->step(&printer);
    if (tick % every != 0) continue;
    const Posed& posed = player->posed(&camera);

    // World-space triangles of every mesh object this tick.
    struct Draw {
      std::vector<Vec3> positions, normals;
      std::vector<uint32_t> indices;
      samples::Rgb color;
    };
    std::vector<Draw> draws;
    Vec3 lo{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), 0};
    Vec3 hi{-lo.x, -lo.y, 0};
    auto grow = [&](Vec3 v) {
      lo = {std::min(lo.x, v.x), std::min(lo.y, v.y), 0};
      hi = {std::max(hi.x, v.x), std::max(hi.y, v.y), 0};
    };
    const samples::Rgb palette_colors[] = {
        {230, 140, 60}, {90, 170, 230}, {140, 210, 110}, {220, 110, 170}};
    for (const PosedObject& o : posed.objects) {
      if (o.mesh < 0) continue;
      const MeshInfo& mesh = pack->meshes()[static_cast<size_t>(o.mesh)];
      for (int k = 0; k < mesh.part_count; ++k) {
        const int part_index = mesh.first_part + k;
        const PartInfo& part = pack->parts()[static_cast<size_t>(part_index)];
        auto s = pack->part_streams(part_index);
        if (!s) {
          std::fprintf(stderr, "play_pack: %s\n", s.error().message());
          return 1;
        }
        Draw d;
        d.color = palette_colors[o.object % 4];
        d.indices.assign(s->indices.begin(), s->indices.end());
        std::span<const Vec3> pos = s->positions, nrm = s->normals;
        Mat4 m = o.model;
        if (part.skinned && !o.palette.empty()) {
          skinned.resize(pos.size());
          normals.resize(nrm.size());
          if (auto r =
                  skin({pos, nrm, {}, s->joints, s->weights}, o.palette, {skinned, normals, {}});
              !r) {
            std::fprintf(stderr, "play_pack: %s\n", r.error().message());
            return 1;
          }
          pos = skinned;
          nrm = normals;
        } else if (part.joint >= 0 && static_cast<size_t>(part.joint) < o.palette.size()) {
          m = mul_affine(o.model, o.palette[static_cast<size_t>(part.joint)]);
        }
        for (const Vec3& v : pos) {
          d.positions.push_back(transform_point(m, v));
          grow(d.positions.back());
        }
        for (const Vec3& n : nrm) d.normals.push_back(normalize(transform_vector(m, n)));
        draws.push_back(std::move(d));
      }
    }
    for (const PosedObject& o : posed.objects) {
      if (o.sprite_sheet < 0) continue;
      const Vec3 c{o.model.m[12], o.model.m[13], o.model.m[14]};
      grow({c.x - 0.6f, c.y - 0.6f, 0});
      grow({c.x + 0.6f, c.y + 0.6f, 0});
    }
    if (!frame) {  // fit the camera to the first frame, with a margin
      const float w = hi.x - lo.x, h = hi.y - lo.y;
      const float size = std::max(w, h * 4.0f / 3.0f) * 1.15f;
      const Vec3 mid{(lo.x + hi.x) / 2, (lo.y + hi.y) / 2, 0};
      frame.emplace(480, 360, Vec3{mid.x - size / 2, mid.y - size * 0.375f, 0},
                    Vec3{mid.x + size / 2, mid.y + size * 0.375f, 0});
    }
    frame->clear();
    for (const Draw& d : draws) frame->draw(d.positions, d.normals, d.indices, d.color);
    for (const PosedObject& o : posed.objects) {
      if (o.sprite_sheet < 0) continue;
      const SpriteSheet& sheet = pack->sprite_sheets()[static_cast<size_t>(o.sprite_sheet)];
      if (o.sprite_frame >= sheet.atlas().frame_count()) continue;
      const PixelRect r = sheet.atlas().frames()[o.sprite_frame];
      auto pixels = pack->sprite_pixels(o.sprite_sheet);
      if (!pixels) {
        std::fprintf(stderr, "play_pack: %s\n", pixels.error().message());
        return 1;
      }
      const ObjectInfo& info = pack->objects()[static_cast<size_t>(o.object)];
      frame->blit(*pixels, sheet.atlas().size().width, r.x, r.y, r.width, r.height,
                  {o.model.m[12], o.model.m[13], o.model.m[14]}, 1.2f * info.scale.y);
    }
    char name[64];
    std::snprintf(name, sizeof name, "/frame_%04lld.png", static_cast<long long>(tick));
    if (!frame->write_png(out_dir + name)) return 2;
    ++frames;
  }
  std::printf("summary: %ld ticks, %d PNG frames in %s\n", ticks, frames, out_dir.c_str());
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
