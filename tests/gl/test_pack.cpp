#include "test_pack.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "fixtures/cooked_fixture.h"
#include "fixtures/fixture.h"

namespace animpack::gl::testing {

namespace {

template <typename T>
T must(Result<T> r) {
  if (!r) {
    std::fprintf(stderr, "test pack: %s\n", r.error().message());
    std::abort();
  }
  return std::move(*r);
}

CookedPart square_part(float half, int joint) {
  CookedPart part;
  part.source_node = 0;
  part.source_mesh = 0;
  part.source_primitive = 0;
  part.joint = joint;
  part.positions = {{-half, -half, 0}, {half, -half, 0}, {half, half, 0}, {-half, half, 0}};
  part.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  part.indices = {0, 1, 2, 0, 2, 3};
  part.source_vertices = {0, 1, 2, 3};
  return part;
}

}  // namespace

void atlas_texel(uint32_t x, uint32_t y, uint8_t out[4]) {
  out[0] = static_cast<uint8_t>(x * 4);
  out[1] = static_cast<uint8_t>(y * 8);
  out[2] = 100;
  out[3] = (x % 16 == 15 && y % 16 == 0) ? 0 : 255;
}

CookedPack make_test_pack() {
  CookedPack pack;
  pack.rigs.push_back(fixture::make_cooked_rig());
  {
    std::vector<Joint> joints(2);
    joints[0].name = "base";
    joints[0].parent = -1;
    joints[1].name = "arm";
    joints[1].parent = 0;
    joints[1].rest.translation = {0, 1, 0};
    Clip swing("Swing");
    const float t[] = {0.0f, 1.0f};
    const float v[] = {0, 1, 0, 0, 3, 0};
    swing.add_channel(1, Property::kTranslation, Interpolation::kLinear, t, v);
    std::vector<Clip> clips;
    clips.push_back(std::move(swing));
    CookedRig rig;
    rig.rig =
        must(Rig::create(must(Skeleton::create(std::move(joints), {}, Mat4{})), std::move(clips)));
    rig.joint_source_nodes = {0, 1};
    rig.clip_source_animations = {0};
    rig.node_rig = true;
    pack.rigs.push_back(std::move(rig));
  }
  pack.meshes.push_back(fixture::make_cooked_column(0));
  {
    CookedMesh mesh;
    mesh.name = "arm";
    mesh.source_file = "arm.gltf";
    mesh.rig = 1;
    mesh.parts.push_back(square_part(0.3f, 1));
    pack.meshes.push_back(std::move(mesh));
  }
  {
    CookedMesh mesh;
    mesh.name = "card";
    mesh.source_file = "card.gltf";
    mesh.parts.push_back(square_part(0.5f, -1));
    pack.meshes.push_back(std::move(mesh));
  }
  {
    CookedSheet sheet;
    sheet.source_file = "atlas.png";
    std::vector<SpriteClip> clips;
    clips.push_back(must(SpriteClip::create("run", {0, 1, 2, 3}, 12.0f, Playback::kLoop)));
    clips.push_back(must(SpriteClip::create("idle", {4, 5}, 4.0f, Playback::kPingPong)));
    sheet.sheet = must(SpriteSheet::create(
        must(Atlas::grid({kAtlasWidth, kAtlasHeight}, {16, 16}, 8)), std::move(clips)));
    for (uint32_t y = 0; y < kAtlasHeight; ++y) {
      for (uint32_t x = 0; x < kAtlasWidth; ++x) {
        uint8_t t[4];
        atlas_texel(x, y, t);
        sheet.rgba.insert(sheet.rgba.end(), t, t + 4);
      }
    }
    pack.sheets.push_back(std::move(sheet));
  }
  auto object = [&](const char* name, int mesh, int sheet) {
    CookedObject o;
    o.name = name;
    o.mesh = mesh;
    o.animated = true;
    o.animation.clip = 0;
    o.animation.sprite_sheet = sheet;
    if (sheet >= 0) o.material = "sprite";
    pack.objects.push_back(std::move(o));
  };
  object("column", 0, -1);
  object("arm", 1, -1);
  object("hero", -1, 0);
  object("sign", 2, 0);
  return pack;
}

}  // namespace animpack::gl::testing
