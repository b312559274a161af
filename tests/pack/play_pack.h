// What a game does with a pack it opened, in one call, for the tests and fuzz targets that
// hold crafted packs to "refused, or plays without a crash": a ScenePlayer at 60 Hz,
// `steps` steps with a game that plays and blends on some ticks, sets every state machine
// parameter and jumps between states, and reads every event,
// posed(), CPU skinning of every part with its object's palette, and (when `trace`) the
// tracer's stage of the posed snapshot. Errors are fine; crashes, hangs and sanitizer
// reports are not.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "animpack/skinning.h"

namespace animpack::testing_support {

struct PlayStats {
  bool created = false;
  uint64_t events = 0;
  uint64_t skinned_vertices = 0;
};

class PlayingGame : public Game {
 public:
  void tick(ScenePlayer& player, int64_t tick) override {
    // State machines: every parameter set (floats to the middle of their range, bools
    // flipped, triggers fired) every 4th tick, a jump to the last state every 7th.
    for (uint32_t o = 0; o < player.object_count(); ++o) {
      const ObjectId id{o};
      const StateMachine* m = player.state_machine(id);
      if (m == nullptr) continue;
      for (const ParameterDef& p : m->graph().parameters) {
        if (tick % 4 != 1) break;
        if (p.kind == ParameterKind::kFloat) {
          (void)player.set_parameter(id, p.name, p.min * 0.5f + p.max * 0.5f);
        } else if (p.kind == ParameterKind::kBool) {
          (void)player.set_parameter(id, p.name, (tick / 4) % 2 == 0);
        } else {
          (void)player.fire_trigger(id, p.name);
        }
      }
      if (tick % 7 == 2 && !m->graph().states.empty())
        (void)player.play_state(id, m->graph().states.back().name, 0.05);
    }
    if (tick % 5 != 3) return;
    // Restart each object's first clip and blend in its last: refusals are fine.
    for (uint32_t o = 0; o < player.object_count(); ++o) {
      const ObjectId id{o};
      if (const Rig* rig = player.rig(id); rig && rig->clip_count() > 0) {
        (void)player.play_clip(id, rig->clips().front().name());
        (void)player.blend_clip(id, rig->clips().back().name(), 0.5f);
      } else if (const SpriteSheet* sheet = player.sprite_sheet(id);
                 sheet && !sheet->clips().empty()) {
        (void)player.play_clip(id, sheet->clips().back().name());
      }
    }
  }
  void animated(ScenePlayer&, std::span<const AnimationEvent> events) override {
    for (const AnimationEvent& e : events) {
      seen += e.clip_name.size() + e.event.size() > 0 ? 1u : 0u;
    }
  }
  uint64_t seen = 0;
};

// Skins every skinned part of every posed object, at most `max_vertices` of each (0: all;
// the part's streams are decoded and range-checked whole either way); returns the
// vertices skinned.
inline uint64_t skin_posed(const Pack& pack, const Posed& posed, size_t max_vertices = 0) {
  uint64_t n = 0;
  std::vector<Vec3> positions, normals;
  std::vector<Vec4> tangents;
  for (const PosedObject& o : posed.objects) {
    if (o.mesh < 0 || o.palette.empty()) continue;
    const MeshInfo& mesh = pack.meshes()[static_cast<size_t>(o.mesh)];
    for (int p = mesh.first_part; p < mesh.first_part + mesh.part_count; ++p) {
      Result<PartStreams> s = pack.part_streams(p);
      if (!s || s->joints.empty()) continue;
      auto first = [&](auto span) {
        return max_vertices == 0 ? span : span.first(std::min(span.size(), max_vertices));
      };
      positions.resize(first(s->positions).size());
      normals.resize(first(s->normals).size());
      tangents.resize(first(s->tangents).size());
      if (skin({first(s->positions), first(s->normals), first(s->tangents), first(s->joints),
                first(s->weights)},
               o.palette, {positions, normals, tangents})) {
        n += positions.size();
      }
    }
  }
  return n;
}

// Creates a player, steps it `steps` times with PlayingGame, poses and skins it
// (skin_posed's max_vertices).
inline PlayStats play_like_a_game(const Pack& pack, int steps, size_t max_vertices = 0) {
  PlayStats stats;
  Result<ScenePlayer> player = ScenePlayer::create(&pack, 60);
  if (!player) return stats;
  stats.created = true;
  PlayingGame game;
  for (int i = 0; i < steps; ++i) player->step(&game);
  stats.events = game.seen;
  stats.skinned_vertices = skin_posed(pack, player->posed(), max_vertices);
  // What a renderer reads of a part's material: its textures' pixels.
  for (const PartInfo& part : pack.parts()) {
    const MaterialInfo& m = pack.material(part.material);
    for (const TextureSlot* slot : {&m.base_color_texture, &m.metallic_roughness_texture,
                                    &m.normal_texture, &m.occlusion_texture, &m.emissive_texture}) {
      if (slot->texture >= 0) (void)pack.texture_pixels(slot->texture);
    }
  }
  return stats;
}

}  // namespace animpack::testing_support
