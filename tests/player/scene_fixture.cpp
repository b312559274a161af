#include "scene_fixture.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "animpack/compiler/pack_writer.h"
#include "fixtures/cooked_fixture.h"
#include "fixtures/fixture.h"

namespace animpack::player_fixture {
namespace {

template <typename T>
T must(Result<T> r, const char* what) {
  if (!r) {
    std::fprintf(stderr, "scene_fixture: %s: %s\n", what, r.error().message());
    std::abort();
  }
  return std::move(*r);
}

Rig node_rig() {
  std::vector<Joint> joints = {{"base", -1, {}}, {"lid", 0, Trs{{0, 1, 0}, {}, {1, 1, 1}}}};
  Skeleton skeleton = must(Skeleton::create(std::move(joints), {}, Mat4{}), "node skeleton");
  std::vector<Clip> clips;
  Clip spin("Spin");
  const float spin_times[] = {0.0f, 1.0f, 2.0f};
  const float spin_values[] = {0, 0, 0, 1, 0, 0.70710677f, 0, 0.70710677f, 0, 1, 0, 0};
  spin.add_channel(1, Property::kRotation, Interpolation::kLinear, spin_times, spin_values);
  spin.add_event("open", 1.0f);
  clips.push_back(std::move(spin));
  Clip bob("Bob");
  const float bob_times[] = {0.0f, 0.5f, 1.0f};
  const float bob_values[] = {0, 0, 0, 0, 0.5f, 0, 0, 0, 0};
  bob.add_channel(0, Property::kTranslation, Interpolation::kLinear, bob_times, bob_values);
  clips.push_back(std::move(bob));
  return must(Rig::create(std::move(skeleton), std::move(clips)), "node rig");
}

CookedPart triangle(int node, int joint, float x) {
  CookedPart p;
  p.source_node = node;
  p.source_mesh = node;
  p.source_primitive = 0;
  p.joint = joint;
  p.positions = {{x, 0, 0}, {x + 0.5f, 0, 0}, {x, 0.5f, 0}};
  p.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  p.indices = {0, 1, 2};
  p.source_vertices = {0, 1, 2};
  return p;
}

}  // namespace

CookedPack make_cooked() {
  CookedPack pack;
  pack.rigs.push_back(fixture::make_cooked_rig());
  CookedRig nodes;
  nodes.rig = node_rig();
  nodes.joint_source_nodes = {0, 1};
  nodes.clip_source_animations = {0, 1};
  nodes.node_rig = true;
  pack.rigs.push_back(std::move(nodes));

  pack.meshes.push_back(fixture::make_cooked_column(0));

  CookedMesh box;
  box.name = "box";
  box.source_file = "box.gltf";
  box.rig = 1;
  box.parts.push_back(triangle(0, 0, 0.0f));
  box.parts.push_back(triangle(1, 1, 0.25f));
  pack.meshes.push_back(std::move(box));

  CookedMesh rock;
  rock.name = "rock";
  rock.source_file = "rock.gltf";
  rock.parts.push_back(triangle(0, -1, -1.0f));
  pack.meshes.push_back(std::move(rock));

  CookedSheet sheet;
  sheet.source_file = "hero.png";
  std::vector<SpriteClip> clips;
  clips.push_back(
      must(SpriteClip::create("run", {0, 1, 2, 3}, 12.0f, Playback::kLoop, {{"step", 1}}), "run"));
  clips.push_back(must(SpriteClip::create("idle", {4, 5}, 4.0f, Playback::kPingPong), "idle"));
  clips.push_back(
      must(SpriteClip::create("jump", {6, 7}, 8.0f, Playback::kOnce, {{"touch", 1}}), "jump"));
  sheet.sheet =
      must(SpriteSheet::create(must(Atlas::grid({64, 32}, {16, 16}, 8), "atlas"), std::move(clips)),
           "sheet");
  for (int i = 0; i < 64 * 32; ++i) {
    sheet.rgba.insert(sheet.rgba.end(),
                      {static_cast<uint8_t>(i / 64 * 8), static_cast<uint8_t>(i % 64 * 4), 0, 255});
  }
  pack.sheets.push_back(std::move(sheet));

  pack.objects.reserve(kCount);  // the references below stay valid
  auto object = [&](const char* name, int mesh) -> CookedObject& {
    CookedObject o;
    o.name = name;
    o.mesh = mesh;
    pack.objects.push_back(std::move(o));
    return pack.objects.back();
  };
  CookedObject& walker = object("walker", 0);
  walker.position = {1, 2, 3};
  walker.animated = true;
  walker.animation.blend = {{1, 0.7f}, {3, 0.3f}};
  walker.animation.events = {{"mid", 1, 0.5f, 0}};
  CookedObject& runner = object("runner", 0);
  runner.animated = true;
  runner.animation.clip = 0;
  runner.animation.speed = 1.5f;
  runner.animation.events = {{"kick", 0, 0.5f, 0}};
  object("idler", 0);
  CookedObject& box_object = object("box", 1);
  box_object.position = {0, 0, -2};
  box_object.animated = true;
  box_object.animation.clip = 0;
  box_object.animation.playback = Playback::kPingPong;
  object("rock", 2);
  CookedObject& hero = object("hero", -1);
  hero.position = {0, 1, 1};
  hero.face_camera = true;
  hero.material = "sprite";
  hero.animated = true;
  hero.animation.sprite_sheet = 0;
  hero.animation.clip = 0;
  hero.animation.events = {{"land", 0, 0.0f, 3}};
  CookedObject& card = object("card", -1);
  card.animated = true;
  card.animation.sprite_sheet = 0;
  CookedObject& flag = object("flag", -1);
  flag.position = {2, 0, 0};
  flag.animated = true;
  flag.animation.sprite_sheet = 0;
  flag.animation.clip = 1;
  flag.animation.speed = 2.0f;
  flag.animation.events = {{"step", 0, 0.0f, 1}};
  return pack;
}

Pack make_pack() {
  const std::vector<uint8_t> bytes = write_pack(make_cooked());
  return must(Pack::from_bytes(bytes), "fixture pack");
}

}  // namespace animpack::player_fixture
