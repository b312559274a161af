// play_pack: plays a cooked pack's objects by tick and writes PNG frames.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/pack.h"
#include "animpack/skinning.h"
#include "animpack/sprite.h"
#include "frame_writer.h"

namespace {

using namespace animpack;

int usage() {
  std::fprintf(stderr, "usage: play_pack PACK [--ticks N] [--rate R] [--every K] [-o DIR]\n");
  return 2;
}

// The object's own rig: the mesh's skeleton and clips (keys still viewed in the pack)
// with the object's events added to its clips.
Result<Rig> object_rig(const Rig& base, const ObjectAnimationInfo& animation) {
  std::vector<Clip> clips;
  for (size_t c = 0; c < base.clips().size(); ++c) {
    const Clip& from = base.clips()[c];
    Clip clip(from.name());
    for (const Channel& ch : from.channels()) clip.add_channel_view(ch);
    for (const ClipEvent& e : from.events()) clip.add_event(e.name, e.time);
    for (const ObjectEventInfo& e : animation.events) {
      if (e.clip == c) clip.add_event(std::string(e.name), e.time);
    }
    clips.push_back(std::move(clip));
  }
  return Rig::create(base.skeleton(), std::move(clips));
}

struct Player {
  const ObjectInfo* info = nullptr;
  Mat4 model;
  std::optional<Rig> rig;
  std::optional<Animator> animator;
  const SpriteSheet* sheet = nullptr;
  int sheet_index = -1;
  std::optional<SpritePlayer> sprite;
  int events = 0;
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

  // Setup: one player per object.
  std::vector<Player> players(pack->objects().size());
  for (size_t o = 0; o < players.size(); ++o) {
    Player& p = players[o];
    const ObjectInfo& info = pack->objects()[o];
    p.info = &info;
    p.model = to_matrix(Trs{info.position, info.rotation, info.scale});
    const ObjectAnimationInfo& a = info.animation;
    if (info.animated && a.sprite_sheet >= 0) {
      p.sheet_index = a.sprite_sheet;
      p.sheet = &pack->sprite_sheets()[static_cast<size_t>(a.sprite_sheet)];
      p.sprite.emplace(std::move(*SpritePlayer::create(p.sheet, rate)));
      if (a.clip >= 0) {
        SpritePlayOptions opts;
        opts.speed = a.speed;
        opts.start = a.start;
        if (auto r = p.sprite->play(static_cast<uint16_t>(a.clip), 0, opts); !r) {
          std::fprintf(stderr, "play_pack: %.*s: %s\n", static_cast<int>(info.name.size()),
                       info.name.data(), r.error().message());
        }
      }
      continue;
    }
    const int rig = info.mesh >= 0 ? pack->meshes()[static_cast<size_t>(info.mesh)].rig : -1;
    if (rig < 0) continue;
    Result<Rig> own = object_rig(pack->rig(rig), a);
    if (!own) {
      std::fprintf(stderr, "play_pack: %s\n", own.error().message());
      return 1;
    }
    p.rig.emplace(std::move(*own));
    p.animator.emplace(std::move(*Animator::create(&*p.rig, rate)));
    PlayOptions opts;
    opts.speed = a.speed;
    opts.start = a.start;
    opts.playback = a.playback;
    Result<LayerId> started = LayerId{};
    if (!a.blend.empty()) {
      started = p.animator->play_blend(a.blend, 0, opts);
    } else if (a.clip >= 0) {
      started = p.animator->play(static_cast<uint16_t>(a.clip), 0, opts);
    }
    if (!started) std::fprintf(stderr, "play_pack: %s\n", started.error().message());
  }
  std::printf("play_pack: %s: %zu objects, %ld ticks at %d Hz\n", path.c_str(), players.size(),
              ticks, rate);

  std::optional<samples::Frame> frame;
  std::vector<Vec3> skinned, normals, placed, placed_normals;
  int frames = 0;
  for (int64_t tick = 0; tick < ticks; ++tick) {
    for (Player& p : players) {
      const std::string_view name = p.info->name;
      if (p.animator) {
        for (const AnimEvent& e : p.animator->advance(tick)) {
          std::printf("  tick %4lld  %.*s: %.*s (clip %s)\n", static_cast<long long>(tick),
                      static_cast<int>(name.size()), name.data(), static_cast<int>(e.name.size()),
                      e.name.data(), p.rig->clips()[e.clip].name().c_str());
          ++p.events;
        }
        p.animator->evaluate(tick);
      }
      if (p.sprite) {
        for (const SpriteEvent& e : p.sprite->advance(tick)) {
          std::printf("  tick %4lld  %.*s: %.*s (sprite clip %s)\n", static_cast<long long>(tick),
                      static_cast<int>(name.size()), name.data(), static_cast<int>(e.name.size()),
                      e.name.data(), p.sheet->clips()[e.clip].name().c_str());
          ++p.events;
        }
      }
    }
    if (tick % every != 0) continue;

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
    for (size_t o = 0; o < players.size(); ++o) {
      const Player& p = players[o];
      if (p.info->mesh < 0) continue;
      const MeshInfo& mesh = pack->meshes()[static_cast<size_t>(p.info->mesh)];
      for (int k = 0; k < mesh.part_count; ++k) {
        const int part_index = mesh.first_part + k;
        const PartInfo& part = pack->parts()[static_cast<size_t>(part_index)];
        auto s = pack->part_streams(part_index);
        if (!s) {
          std::fprintf(stderr, "play_pack: %s\n", s.error().message());
          return 1;
        }
        Draw d;
        d.color = palette_colors[o % 4];
        d.indices.assign(s->indices.begin(), s->indices.end());
        std::span<const Vec3> pos = s->positions, nrm = s->normals;
        Mat4 m = p.model;
        if (part.skinned && p.animator) {
          skinned.resize(pos.size());
          normals.resize(nrm.size());
          if (auto r = skin({pos, nrm, {}, s->joints, s->weights}, p.animator->palette(),
                            {skinned, normals, {}});
              !r) {
            std::fprintf(stderr, "play_pack: %s\n", r.error().message());
            return 1;
          }
          pos = skinned;
          nrm = normals;
        } else if (part.joint >= 0 && p.animator) {
          m = mul_affine(p.model, p.animator->palette()[static_cast<size_t>(part.joint)]);
        }
        for (size_t v = 0; v < pos.size(); ++v) {
          d.positions.push_back(transform_point(m, pos[v]));
          grow(d.positions.back());
        }
        for (const Vec3& n : nrm) d.normals.push_back(normalize(transform_vector(m, n)));
        draws.push_back(std::move(d));
      }
    }
    for (const Player& p : players) {
      if (p.sprite) {
        const Vec3 c = p.info->position;
        grow({c.x - 0.6f, c.y - 0.6f, 0});
        grow({c.x + 0.6f, c.y + 0.6f, 0});
      }
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
    for (const Player& p : players) {
      if (!p.sprite) continue;
      const uint32_t f = p.sprite->frame(tick);
      if (f >= p.sheet->atlas().frame_count()) continue;
      const PixelRect r = p.sheet->atlas().frames()[f];
      auto pixels = pack->sprite_pixels(p.sheet_index);
      if (!pixels) {
        std::fprintf(stderr, "play_pack: %s\n", pixels.error().message());
        return 1;
      }
      frame->blit(*pixels, p.sheet->atlas().size().width, r.x, r.y, r.width, r.height,
                  p.info->position, 1.2f * p.info->scale.y);
    }
    char name[64];
    std::snprintf(name, sizeof name, "/frame_%04lld.png", static_cast<long long>(tick));
    if (!frame->write_png(out_dir + name)) return 2;
    ++frames;
  }
  std::printf("summary: %ld ticks, %d PNG frames in %s\n", ticks, frames, out_dir.c_str());
  for (const Player& p : players) {
    std::printf("  %-10.*s", static_cast<int>(p.info->name.size()), p.info->name.data());
    if (p.animator && p.animator->mix_count() > 0) {
      std::printf(" %d layer(s), %d events", p.animator->layer_count(p.animator->mix_count() - 1),
                  p.events);
    } else if (p.sprite && p.sprite->clip() >= 0) {
      std::printf(" sprite clip %s, frame %u, %d events",
                  p.sheet->clips()[static_cast<size_t>(p.sprite->clip())].name().c_str(),
                  p.sprite->frame(ticks - 1), p.events);
    } else {
      std::printf(" still");
    }
    std::printf("\n");
  }
  return 0;
}
