#include "test_pack.h"

#include <algorithm>
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

namespace {

// A quad of side 1 centred at (x, 0, 0), facing +z, uvs u right and v down.
CookedPart quad_part(float x, int material) {
  CookedPart part;
  part.source_node = 0;
  part.source_mesh = 0;
  part.source_primitive = 0;
  part.positions = {
      {x - 0.5f, -0.5f, 0}, {x + 0.5f, -0.5f, 0}, {x + 0.5f, 0.5f, 0}, {x - 0.5f, 0.5f, 0}};
  part.normals.assign(4, Vec3{0, 0, 1});
  part.texcoords0 = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  part.indices = {0, 1, 2, 0, 2, 3};
  part.source_vertices = {0, 1, 2, 3};
  part.material = material;
  return part;
}

}  // namespace

bool light_cell(int cx, int cy) { return (cx + cy) % 2 == 0; }

CookedPack make_board_pack() {
  CookedPack pack;
  CookedTexture tex;
  tex.source_file = "board.gltf";
  tex.source_image = 0;
  tex.mime_type = "image/png";
  tex.width = tex.height = 4;
  tex.color_space = ColorSpace::kSrgb;
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      const bool light = light_cell(x, y);
      const uint8_t t[4] = {static_cast<uint8_t>(light ? 240 : 40),
                            static_cast<uint8_t>(light ? 200 : 30), static_cast<uint8_t>(20),
                            static_cast<uint8_t>(light ? 255 : 0)};
      for (int k = 0; k < 4; ++k) tex.rgba.push_back(t[k]);
    }
  }
  pack.textures.push_back(tex);
  for (AlphaMode mode : {AlphaMode::kOpaque, AlphaMode::kMask}) {
    CookedMaterial m;
    m.name = mode == AlphaMode::kOpaque ? "checker" : "holes";
    m.source_file = "board.gltf";
    m.info.source_material = static_cast<int>(pack.materials.size());
    m.info.metallic = 0;
    m.info.roughness = 0.8f;
    m.info.base_color_texture.texture = 0;
    m.info.base_color_texture.source_texture = 0;
    m.info.base_color_texture.mag_filter = Filter::kNearest;
    m.info.base_color_texture.min_filter = Filter::kNearest;
    m.info.base_color_texture.wrap_s = Wrap::kClampToEdge;
    m.info.base_color_texture.wrap_t = Wrap::kClampToEdge;
    m.info.alpha_mode = mode;
    pack.materials.push_back(m);
  }
  CookedMesh mesh;
  mesh.name = "board";
  mesh.source_file = "board.gltf";
  mesh.parts.push_back(quad_part(-1.0f, 0));
  mesh.parts.push_back(quad_part(0.0f, -1));
  mesh.parts.push_back(quad_part(1.0f, 1));
  mesh.parts[1].colors = {{1, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 1, 1}, {0, 0, 1, 1}};
  for (const CookedPart& p : mesh.parts) {
    for (const Vec3& v : p.positions) {
      mesh.bind_bounds.lo = {std::min(mesh.bind_bounds.lo.x, v.x),
                             std::min(mesh.bind_bounds.lo.y, v.y),
                             std::min(mesh.bind_bounds.lo.z, v.z)};
      mesh.bind_bounds.hi = {std::max(mesh.bind_bounds.hi.x, v.x),
                             std::max(mesh.bind_bounds.hi.y, v.y),
                             std::max(mesh.bind_bounds.hi.z, v.z)};
    }
  }
  mesh.static_bounds = mesh.bind_bounds;
  pack.meshes.push_back(std::move(mesh));
  CookedObject o;
  o.name = "board";
  o.mesh = 0;
  pack.objects.push_back(o);
  return pack;
}

}  // namespace animpack::gl::testing
