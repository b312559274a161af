#include "trace_fixture.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "animpack/compiler/pack_writer.h"
#include "fixtures/cooked_fixture.h"
#include "fixtures/fixture.h"

namespace animpack::trace_test {
namespace {

template <typename T>
T must(Result<T> r) {
  if (!r) {
    std::fprintf(stderr, "trace_fixture: %s\n", r.error().message());
    std::abort();
  }
  return std::move(*r);
}

CookedPart part_of(std::vector<Vec3> positions, std::vector<Vec3> normals,
                   std::vector<uint32_t> indices) {
  CookedPart part;
  part.source_node = 0;
  part.source_mesh = 0;
  part.source_primitive = 0;
  part.positions = std::move(positions);
  part.normals = std::move(normals);
  part.indices = std::move(indices);
  for (uint32_t v = 0; v < part.positions.size(); ++v) part.source_vertices.push_back(v);
  return part;
}

// A unit cube centred on the origin, 24 vertices with face normals.
CookedPart cube() {
  std::vector<Vec3> p, n;
  std::vector<uint32_t> idx;
  const Vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int a = 0; a < 3; ++a) {
    for (float s : {-1.0f, 1.0f}) {
      const Vec3 normal = axes[a] * s;
      const Vec3 u = axes[(a + 1) % 3] * 0.5f, v = axes[(a + 2) % 3] * 0.5f;
      const Vec3 c = normal * 0.5f;
      const uint32_t base = static_cast<uint32_t>(p.size());
      for (Vec3 q : {c - u - v, c + u - v, c + u + v, c - u + v}) {
        p.push_back(q);
        n.push_back(normal);
      }
      for (uint32_t k : {0u, 1u, 2u, 0u, 2u, 3u}) idx.push_back(base + k);
    }
  }
  return part_of(std::move(p), std::move(n), std::move(idx));
}

}  // namespace

std::array<uint8_t, 4> frame_color(uint32_t frame) {
  return {static_cast<uint8_t>(40 + 25 * frame), static_cast<uint8_t>(200 - 20 * frame),
          static_cast<uint8_t>(frame % 2 ? 220 : 60), 255};
}

std::vector<uint8_t> pack_bytes() {
  CookedPack pack;
  pack.rigs.push_back(fixture::make_cooked_rig());

  CookedRig arm_rig;
  std::vector<Joint> joints(2);
  joints[0].name = "base";
  joints[1].name = "arm";
  joints[1].parent = 0;
  joints[1].rest.translation = {1, 0, 0};
  arm_rig.rig = must(Rig::create(must(Skeleton::create(std::move(joints), {}, Mat4{})), {}));
  arm_rig.joint_source_nodes = {0, 1};
  arm_rig.node_rig = true;
  pack.rigs.push_back(std::move(arm_rig));

  const fixture::Column col = fixture::make_column();
  CookedPart column = part_of(col.positions, col.normals, col.indices);
  column.tangents = col.tangents;
  column.joints = col.joints;
  column.weights = col.weights;
  CookedMesh column_mesh;
  column_mesh.name = "column";
  column_mesh.source_file = "column.glb";
  column_mesh.rig = 0;
  column_mesh.parts.push_back(std::move(column));
  pack.meshes.push_back(std::move(column_mesh));

  CookedMesh card;
  card.name = "card";
  card.source_file = "card.gltf";
  card.parts.push_back(part_of({{-0.5f, 0, 0}, {0.5f, 0, 0}, {0.5f, 2, 0}, {-0.5f, 2, 0}},
                               {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}}, {0, 1, 2, 0, 2, 3}));
  pack.meshes.push_back(std::move(card));

  CookedMesh arm;
  arm.name = "arm";
  arm.source_file = "arm.gltf";
  arm.rig = 1;
  CookedPart arm_part = cube();
  arm_part.joint = 1;
  arm.parts.push_back(std::move(arm_part));
  pack.meshes.push_back(std::move(arm));

  CookedSheet sheet;
  sheet.source_file = "cells.png";
  std::vector<SpriteClip> clips;
  clips.push_back(must(SpriteClip::create("blink", {0, 1}, 4.0f, Playback::kLoop)));
  clips.push_back(must(SpriteClip::create("all", {0, 1, 2, 3, 4, 5, 6, 7}, 8.0f, Playback::kLoop)));
  sheet.sheet = must(SpriteSheet::create(must(Atlas::grid({32, 16}, {8, 8}, 8)), std::move(clips)));
  sheet.rgba.resize(32 * 16 * 4);
  for (uint32_t y = 0; y < 16; ++y) {
    for (uint32_t x = 0; x < 32; ++x) {
      const uint32_t f = y / 8 * 4 + x / 8;
      std::array<uint8_t, 4> c = frame_color(f);
      if (f == 1 && x % 8 < 4) c[3] = 0;
      for (int k = 0; k < 4; ++k)
        sheet.rgba[(y * 32 + x) * 4 + static_cast<uint32_t>(k)] = c[static_cast<size_t>(k)];
    }
  }
  pack.sheets.push_back(std::move(sheet));

  CookedObject column_object;
  column_object.name = "column";
  column_object.mesh = 0;
  column_object.animated = true;
  column_object.animation.clip = 3;  // Rotate
  pack.objects.push_back(std::move(column_object));

  CookedObject card_object;
  card_object.name = "card";
  card_object.mesh = 1;
  card_object.position = {2, 0, 0};
  card_object.material = "sprite";
  card_object.animated = true;
  card_object.animation.sprite_sheet = 0;
  card_object.animation.clip = 1;
  pack.objects.push_back(std::move(card_object));

  CookedObject floater;
  floater.name = "floater";
  floater.position = {-2, 1, 0};
  floater.face_camera = true;
  floater.animated = true;
  floater.animation.sprite_sheet = 0;
  floater.animation.clip = 0;
  pack.objects.push_back(std::move(floater));

  CookedObject arm_object;
  arm_object.name = "arm";
  arm_object.mesh = 2;
  arm_object.position = {0, 0, -3};
  pack.objects.push_back(std::move(arm_object));
  return write_pack(pack);
}

std::array<uint8_t, 4> checker_texel(uint32_t x, uint32_t y) {
  static const std::array<uint8_t, 4> texels[4] = {
      {200, 40, 40, 255}, {40, 200, 40, 255}, {40, 40, 200, 255}, {230, 230, 60, 255}};
  return texels[(y % 2) * 2 + x % 2];
}

std::vector<uint8_t> textured_pack_bytes() {
  CookedPack pack;
  CookedTexture tex;
  tex.source_file = "tile.gltf";
  tex.source_image = 0;
  tex.mime_type = "image/png";
  tex.width = tex.height = 2;
  tex.color_space = ColorSpace::kSrgb;
  for (uint32_t y = 0; y < 2; ++y) {
    for (uint32_t x = 0; x < 2; ++x) {
      const std::array<uint8_t, 4> c = checker_texel(x, y);
      tex.rgba.insert(tex.rgba.end(), c.begin(), c.end());
    }
  }
  pack.textures.push_back(std::move(tex));
  CookedMaterial mat;
  mat.name = "checker";
  mat.source_file = "tile.gltf";
  mat.info.source_material = 0;
  mat.info.metallic = 1.0f;  // shown exactly at ambient 1
  mat.info.roughness = 0.5f;
  mat.info.base_color_texture.texture = 0;
  mat.info.base_color_texture.mag_filter = Filter::kNearest;
  mat.info.base_color_texture.min_filter = Filter::kNearest;
  mat.info.double_sided = true;
  pack.materials.push_back(std::move(mat));

  CookedMesh tile;
  tile.name = "tile";
  tile.source_file = "tile.gltf";
  const std::vector<Vec3> up{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  CookedPart textured =
      part_of({{-1, 0, 0}, {1, 0, 0}, {1, 2, 0}, {-1, 2, 0}}, up, {0, 1, 2, 0, 2, 3});
  textured.texcoords0 = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  textured.material = 0;
  tile.parts.push_back(std::move(textured));
  CookedPart plain =
      part_of({{1.5f, 0, 0}, {2.5f, 0, 0}, {2.5f, 2, 0}, {1.5f, 2, 0}}, up, {0, 1, 2, 0, 2, 3});
  plain.source_primitive = 1;
  tile.parts.push_back(std::move(plain));
  pack.meshes.push_back(std::move(tile));
  for (const char* name : {"first", "second"}) {
    CookedObject o;
    o.name = name;
    o.mesh = 0;
    pack.objects.push_back(std::move(o));
  }
  pack.objects[1].position = {0, 0, -5};
  return write_pack(pack);
}

Posed posed(const Pack& pack, std::span<const Mat4> column_palette,
            std::span<const Mat4> arm_palette, uint32_t frame) {
  Posed p;
  for (size_t i = 0; i < pack.objects().size(); ++i) {
    const ObjectInfo& info = pack.objects()[i];
    PosedObject o;
    o.object = static_cast<int>(i);
    o.mesh = info.mesh;
    o.model = to_matrix(Trs{info.position, info.rotation, info.scale});
    if (static_cast<int>(i) == kColumn) o.palette = column_palette;
    if (static_cast<int>(i) == kArm) o.palette = arm_palette;
    o.previous_palette = o.palette;
    if (info.animation.sprite_sheet >= 0) {
      o.sprite_sheet = info.animation.sprite_sheet;
      o.sprite_frame = frame;
    }
    p.objects.push_back(o);
  }
  return p;
}

}  // namespace animpack::trace_test
