// Pack format 2: texture coordinates, colours, materials, textures and bounds round-trip
// through the writer and Pack::open; every new index and size is checked; the golden
// version 2 pack keeps loading.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "fixtures/cooked_fixture.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

// The column with uvs, colours, two textures, one material and bounds.
CookedPack textured_pack() {
  CookedPack pack;
  pack.rigs.push_back(fixture::make_cooked_rig());
  pack.meshes.push_back(fixture::make_cooked_column(0));
  CookedPart& part = pack.meshes[0].parts[0];
  for (size_t v = 0; v < part.positions.size(); ++v) {
    const float f = static_cast<float>(v);
    part.texcoords0.push_back({f / 64.0f, 1.0f - f / 128.0f});
    part.texcoords1.push_back({f, -f});
    part.colors.push_back({f / 100.0f, 0.5f, 0.25f, 1.0f});
  }
  part.material = 1;
  part.tangents_generated = true;
  for (uint32_t t = 0; t < 2; ++t) {
    CookedTexture texture;
    texture.source_file = t == 0 ? "column.glb" : "rock.png";
    texture.source_image = t == 0 ? 3 : -1;
    texture.mime_type = t == 0 ? "image/jpeg" : "image/png";
    texture.width = 16 + t;
    texture.height = 8;
    texture.color_space = t == 0 ? ColorSpace::kSrgb : ColorSpace::kLinear;
    for (uint32_t i = 0; i < texture.width * texture.height; ++i)
      texture.rgba.insert(texture.rgba.end(), {static_cast<uint8_t>(i), static_cast<uint8_t>(t),
                                               static_cast<uint8_t>(255 - i), 255});
    pack.textures.push_back(std::move(texture));
  }
  CookedMaterial plain;
  plain.name = "plain";
  plain.source_file = "column.glb";
  pack.materials.push_back(plain);
  CookedMaterial m;
  m.name = "rock";
  m.source_file = "column.glb";
  m.info.source_material = 2;
  m.info.base_color = {0.5f, 0.25f, 0.125f, 0.75f};
  m.info.base_color_texture.texture = 0;
  m.info.base_color_texture.source_texture = 5;
  m.info.metallic_roughness_texture.texture = 1;
  m.info.metallic_roughness_texture.uv_set = 1;
  m.info.metallic_roughness_texture.wrap_t = Wrap::kMirroredRepeat;
  m.info.metallic_roughness_texture.mag_filter = Filter::kNearest;
  m.info.normal_texture.texture = 1;
  m.info.normal_texture.has_transform = true;
  m.info.normal_texture.transform = {{0.5f, -0.25f}, 1.5f, {2.0f, 0.5f}};
  m.info.occlusion_texture.texture = 1;
  m.info.emissive_texture.texture = 0;
  m.info.metallic = 0.0f;
  m.info.roughness = 0.5f;
  m.info.normal_scale = -2.0f;
  m.info.occlusion_strength = 0.5f;
  m.info.emissive = {1.0f, 0.5f, 0.0f};
  m.info.emissive_strength = 10.0f;
  m.info.alpha_mode = AlphaMode::kBlend;
  m.info.alpha_cutoff = 0.0f;
  m.info.double_sided = true;
  pack.materials.push_back(m);
  CookedMesh& mesh = pack.meshes[0];
  mesh.bind_bounds = {part.positions[0], part.positions[0]};
  for (const Vec3& p : part.positions) {
    Box& b = mesh.bind_bounds;
    b.lo = {std::min(b.lo.x, p.x), std::min(b.lo.y, p.y), std::min(b.lo.z, p.z)};
    b.hi = {std::max(b.hi.x, p.x), std::max(b.hi.y, p.y), std::max(b.hi.z, p.z)};
  }
  mesh.static_bounds = {{-1, -1, -1}, {1, 1, 1}};
  JointBounds jb;
  jb.joint = 0;
  jb.frame.m[12] = 2.0f;
  jb.lo = {-0.5f, 0, -0.5f};
  jb.hi = {0.5f, 1, 0.5f};
  mesh.joint_bounds.push_back(jb);
  jb.joint = 2;
  mesh.joint_bounds.push_back(jb);
  return pack;
}

TEST(PackMaterials, StreamsMaterialsTexturesAndBoundsRoundTrip) {
  const CookedPack cooked = textured_pack();
  for (bool compress : {false, true}) {
    PackWriteOptions options;
    options.compress = compress;
    auto pack = Pack::from_bytes(write_pack(cooked, options));
    ASSERT_TRUE(pack) << pack.error().message();
    EXPECT_EQ(pack->format_version(), kPackFormatVersion);
    const CookedPart& in = cooked.meshes[0].parts[0];
    ASSERT_EQ(pack->parts().size(), 1u);
    EXPECT_EQ(pack->parts()[0].material, 1);
    EXPECT_FALSE(pack->parts()[0].normals_generated);
    EXPECT_TRUE(pack->parts()[0].tangents_generated);
    auto s = pack->part_streams(0);
    ASSERT_TRUE(s) << s.error().message();
    ASSERT_EQ(s->texcoords0.size(), in.texcoords0.size());
    ASSERT_EQ(s->texcoords1.size(), in.texcoords1.size());
    ASSERT_EQ(s->colors.size(), in.colors.size());
    for (size_t v = 0; v < in.texcoords0.size(); ++v) {
      EXPECT_TRUE(bits_equal(&s->texcoords0[v].x, &in.texcoords0[v].x, 2));
      EXPECT_TRUE(bits_equal(&s->texcoords1[v].x, &in.texcoords1[v].x, 2));
      EXPECT_TRUE(bits_equal(&s->colors[v].x, &in.colors[v].x, 4));
    }

    ASSERT_EQ(pack->textures().size(), 2u);
    for (int t = 0; t < 2; ++t) {
      const CookedTexture& want = cooked.textures[static_cast<size_t>(t)];
      const TextureInfo& got = pack->textures()[static_cast<size_t>(t)];
      EXPECT_EQ(got.width, want.width);
      EXPECT_EQ(got.height, want.height);
      EXPECT_EQ(got.color_space, want.color_space);
      EXPECT_EQ(got.source_file, want.source_file);
      EXPECT_EQ(got.source_image, want.source_image);
      EXPECT_EQ(got.mime_type, want.mime_type);
      auto pixels = pack->texture_pixels(t);
      ASSERT_TRUE(pixels) << pixels.error().message();
      EXPECT_TRUE(std::equal(pixels->begin(), pixels->end(), want.rgba.begin(), want.rgba.end()));
    }
    EXPECT_EQ(pack->texture_pixels(2).error().code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(pack->texture_pixels(-1).error().code(), ErrorCode::kInvalidArgument);

    ASSERT_EQ(pack->materials().size(), 2u);
    EXPECT_EQ(pack->materials()[0].name, "plain");
    EXPECT_EQ(pack->materials()[0].base_color_texture.texture, -1);
    EXPECT_EQ(pack->materials()[0].metallic, 1.0f);  // glTF's defaults
    const MaterialInfo& want = cooked.materials[1].info;
    const MaterialInfo& got = pack->material(1);
    EXPECT_EQ(got.name, "rock");
    EXPECT_EQ(got.source_file, "column.glb");
    EXPECT_EQ(got.source_material, 2);
    EXPECT_TRUE(bits_equal(&got.base_color.x, &want.base_color.x, 4));
    EXPECT_EQ(got.base_color_texture.texture, 0);
    EXPECT_EQ(got.base_color_texture.source_texture, 5);
    EXPECT_EQ(got.metallic_roughness_texture.uv_set, 1);
    EXPECT_EQ(got.metallic_roughness_texture.wrap_s, Wrap::kRepeat);
    EXPECT_EQ(got.metallic_roughness_texture.wrap_t, Wrap::kMirroredRepeat);
    EXPECT_EQ(got.metallic_roughness_texture.mag_filter, Filter::kNearest);
    EXPECT_EQ(got.metallic_roughness_texture.min_filter, Filter::kLinearMipmapLinear);
    EXPECT_FALSE(got.metallic_roughness_texture.has_transform);
    ASSERT_TRUE(got.normal_texture.has_transform);
    EXPECT_EQ(got.normal_texture.transform.offset[1], -0.25f);
    EXPECT_EQ(got.normal_texture.transform.rotation, 1.5f);
    EXPECT_EQ(got.normal_texture.transform.scale[0], 2.0f);
    EXPECT_EQ(got.occlusion_texture.texture, 1);
    EXPECT_EQ(got.emissive_texture.texture, 0);
    EXPECT_EQ(got.metallic, 0.0f);
    EXPECT_EQ(got.roughness, 0.5f);
    EXPECT_EQ(got.normal_scale, -2.0f);
    EXPECT_EQ(got.occlusion_strength, 0.5f);
    EXPECT_TRUE(got.emissive == want.emissive);
    EXPECT_EQ(got.emissive_strength, 10.0f);
    EXPECT_EQ(got.alpha_mode, AlphaMode::kBlend);
    EXPECT_EQ(got.alpha_cutoff, 0.0f);
    EXPECT_TRUE(got.double_sided);
    EXPECT_EQ(pack->material(-1).base_color.w, 1.0f);  // the default material
    EXPECT_EQ(pack->material(7).name, "");

    const MeshBounds& b = pack->mesh_bounds(0);
    EXPECT_TRUE(b.bind.lo == cooked.meshes[0].bind_bounds.lo);
    EXPECT_TRUE(b.bind.hi == cooked.meshes[0].bind_bounds.hi);
    EXPECT_TRUE(b.fixed.valid());
    ASSERT_EQ(b.joints.size(), 2u);
    EXPECT_EQ(b.joints[0].joint, 0);
    EXPECT_EQ(b.joints[1].joint, 2);
    EXPECT_EQ(b.joints[1].frame.m[12], 2.0f);
    EXPECT_TRUE(b.joints[1].hi == (Vec3{0.5f, 1, 0.5f}));
  }
}

// Each change makes one check fail; the message names what failed.
TEST(PackMaterials, RefusesEveryBadIndexSizeAndRange) {
  struct Case {
    const char* name;
    void (*spoil)(CookedPack&);
    const char* says;
  };
  const Case cases[] = {
      {"part material", [](CookedPack& p) { p.meshes[0].parts[0].material = 2; }, "material 2"},
      {"negative part material", [](CookedPack& p) { p.meshes[0].parts[0].material = -2; },
       "material -2"},
      {"slot texture", [](CookedPack& p) { p.materials[1].info.emissive_texture.texture = 2; },
       "texture 2"},
      {"uv set", [](CookedPack& p) { p.materials[1].info.occlusion_texture.uv_set = 2; }, "uv set"},
      {"missing uv set", [](CookedPack& p) { p.meshes[0].parts[0].texcoords1.clear(); },
       "texcoords1"},
      {"normal map without tangents", [](CookedPack& p) { p.meshes[0].parts[0].tangents.clear(); },
       "tangents"},
      {"base colour above one", [](CookedPack& p) { p.materials[1].info.base_color.x = 1.5f; },
       "range"},
      {"NaN roughness",
       [](CookedPack& p) {
         p.materials[0].info.roughness = std::numeric_limits<float>::quiet_NaN();
       },
       "range"},
      {"negative emissive strength",
       [](CookedPack& p) { p.materials[1].info.emissive_strength = -1.0f; }, "range"},
      {"infinite transform",
       [](CookedPack& p) {
         p.materials[1].info.normal_texture.transform.rotation =
             std::numeric_limits<float>::infinity();
       },
       "transform"},
      {"texture pixels", [](CookedPack& p) { p.textures[1].rgba.pop_back(); }, "texture 1"},
      {"texture size", [](CookedPack& p) { p.textures[0].width = kMaxTextureSide + 1; }, "at most"},
      {"zero texture", [](CookedPack& p) { p.textures[0].height = 0; }, "texture 0"},
      {"uv count", [](CookedPack& p) { p.meshes[0].parts[0].texcoords0.pop_back(); }, "blob"},
      {"colour count", [](CookedPack& p) { p.meshes[0].parts[0].colors.push_back({}); }, "blob"},
      {"joint bounds order",
       [](CookedPack& p) { std::swap(p.meshes[0].joint_bounds[0], p.meshes[0].joint_bounds[1]); },
       "order"},
      {"joint bounds joint", [](CookedPack& p) { p.meshes[0].joint_bounds[1].joint = 4; },
       "outside"},
      {"inverted joint box", [](CookedPack& p) { p.meshes[0].joint_bounds[0].lo.y = 2.0f; }, "box"},
      {"NaN bounds",
       [](CookedPack& p) {
         p.meshes[0].bind_bounds.hi.x = std::numeric_limits<float>::quiet_NaN();
       },
       "bounds"},
      {"joint bounds without bounds", [](CookedPack& p) { p.meshes[0].bind_bounds = Box{}; },
       "without bounds"},
  };
  for (const Case& c : cases) {
    CookedPack cooked = textured_pack();
    c.spoil(cooked);
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_FALSE(pack) << c.name;
    EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack) << c.name;
    EXPECT_NE(std::string(pack.error().message()).find(c.says), std::string::npos)
        << c.name << ": " << pack.error().message();
  }
}

TEST(PackMaterials, RefusesNonFiniteStreamsWhenDecoded) {
  for (int stream = 0; stream < 3; ++stream) {
    CookedPack cooked = textured_pack();
    CookedPart& part = cooked.meshes[0].parts[0];
    if (stream == 0) part.texcoords0[5].y = std::numeric_limits<float>::quiet_NaN();
    if (stream == 1) part.texcoords1[6].x = std::numeric_limits<float>::infinity();
    if (stream == 2) part.colors[7].w = -std::numeric_limits<float>::infinity();
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_TRUE(pack) << pack.error().message();
    auto s = pack->part_streams(0);
    ASSERT_FALSE(s) << stream;
    EXPECT_EQ(s.error().code(), ErrorCode::kBadPack);
  }
}

// STYLE L2: the golden pack of format version 2 keeps loading (rewritten with
// ANIMPACK_WRITE_GOLDEN=1 only while version 2 is the newest).
TEST(PackMaterials, GoldenVersionTwoPackStillLoads) {
  const fs::path golden = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/textured_v2.anpk";
  if (std::getenv("ANIMPACK_WRITE_GOLDEN") && kPackFormatVersion == 2) {
    ASSERT_EQ(write_file_atomically(golden, write_pack(textured_pack())), "");
  }
  auto pack = Pack::open(golden.string());
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->format_version(), 2u);
  ASSERT_EQ(pack->materials().size(), 2u);
  EXPECT_EQ(pack->material(1).name, "rock");
  ASSERT_EQ(pack->textures().size(), 2u);
  auto pixels = pack->texture_pixels(1);
  ASSERT_TRUE(pixels);
  EXPECT_EQ(pixels->size(), 17u * 8u * 4u);
  auto s = pack->part_streams(0);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->texcoords0.size(), s->positions.size());
  EXPECT_EQ(pack->mesh_bounds(0).joints.size(), 2u);
}

}  // namespace
}  // namespace animpack
