// Packs: the writer and Pack::open round-trip the fixture bit for bit; the same content
// gives the same bytes; corrupted, truncated and wrong-version packs are refused with
// kBadPack and never crash; the golden version-1 pack keeps loading.
#include "animpack/pack.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "animpack/compiler/pack_writer.h"
#include "animpack/schema/pack_generated.h"
#include "fixtures/cooked_fixture.h"
#include "fixtures/fixture.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

CookedPack fixture_pack() {
  CookedPack pack;
  pack.rigs.push_back(fixture::make_cooked_rig());
  pack.meshes.push_back(fixture::make_cooked_column(0));

  CookedSheet sheet;
  sheet.source_file = "hero.png";
  std::vector<SpriteClip> clips;
  clips.push_back(*SpriteClip::create("run", {0, 1, 2, 3}, 12.0f, Playback::kLoop, {{"step", 1}}));
  clips.push_back(*SpriteClip::create("idle", {4, 5}, 4.0f, Playback::kPingPong));
  sheet.sheet = *SpriteSheet::create(*Atlas::grid({64, 32}, {16, 16}, 8), std::move(clips));
  for (int i = 0; i < 64 * 32; ++i) {
    sheet.rgba.insert(sheet.rgba.end(),
                      {static_cast<uint8_t>(i / 64 * 8), static_cast<uint8_t>(i % 64 * 4), 0, 255});
  }
  pack.sheets.push_back(std::move(sheet));

  CookedObject walker;
  walker.name = "walker";
  walker.mesh = 0;
  walker.position = {1, 2, 3};
  walker.animated = true;
  walker.animation.blend = {{1, 0.7f}, {3, 0.3f}};
  walker.animation.events = {{"step", 1, 0.5f, 0}};
  walker.animation.speed = 1.5f;
  pack.objects.push_back(std::move(walker));
  CookedObject hero;
  hero.name = "hero";
  hero.face_camera = true;
  hero.material = "sprite";
  hero.animated = true;
  hero.animation.sprite_sheet = 0;
  hero.animation.clip = 0;
  hero.animation.events = {{"land", 0, 0.0f, 3}};
  pack.objects.push_back(std::move(hero));

  // Version 2: texture coordinates, colours, a material with two textures, bounds.
  CookedPart& part = pack.meshes[0].parts[0];
  for (const Vec3& p : part.positions) {
    part.texcoords0.push_back({p.x + 0.5f, 1.0f - p.y / 4.0f});
    part.colors.push_back({0.25f, 0.5f, 1.0f, 1.0f});
  }
  part.material = 0;
  CookedTexture texture;
  texture.source_file = "column.glb";
  texture.source_image = 0;
  texture.mime_type = "image/png";
  texture.width = 8;
  texture.height = 4;
  for (uint32_t i = 0; i < 8 * 4; ++i)
    texture.rgba.insert(texture.rgba.end(), {static_cast<uint8_t>(i * 8), 100, 200, 255});
  pack.textures.push_back(texture);
  texture.color_space = ColorSpace::kLinear;
  pack.textures.push_back(std::move(texture));
  CookedMaterial material;
  material.name = "stone";
  material.source_file = "column.glb";
  material.info.source_material = 0;
  material.info.base_color = {0.9f, 0.8f, 0.7f, 1.0f};
  material.info.base_color_texture.texture = 0;
  material.info.base_color_texture.source_texture = 0;
  material.info.normal_texture.texture = 1;
  material.info.normal_texture.wrap_s = Wrap::kClampToEdge;
  material.info.normal_texture.min_filter = Filter::kNearestMipmapLinear;
  material.info.normal_texture.has_transform = true;
  material.info.normal_texture.transform = {{0.5f, 0.25f}, 0.125f, {2.0f, 3.0f}};
  material.info.normal_scale = 0.5f;
  material.info.metallic = 0.25f;
  material.info.roughness = 0.75f;
  material.info.emissive = {0.1f, 0.2f, 0.3f};
  material.info.emissive_strength = 4.0f;
  material.info.alpha_mode = AlphaMode::kMask;
  material.info.alpha_cutoff = 0.25f;
  material.info.double_sided = true;
  pack.materials.push_back(std::move(material));
  CookedMesh& mesh = pack.meshes[0];
  mesh.bind_bounds = {part.positions[0], part.positions[0]};
  for (const Vec3& p : part.positions) {
    Box& b = mesh.bind_bounds;
    b.lo = {std::min(b.lo.x, p.x), std::min(b.lo.y, p.y), std::min(b.lo.z, p.z)};
    b.hi = {std::max(b.hi.x, p.x), std::max(b.hi.y, p.y), std::max(b.hi.z, p.z)};
  }
  JointBounds jb;
  jb.joint = 1;
  jb.lo = {-1, -2, -3};
  jb.hi = {1, 2, 3};
  mesh.joint_bounds.push_back(jb);
  jb.joint = 3;
  mesh.joint_bounds.push_back(jb);
  return pack;
}

void expect_same_rig(const Rig& a, const Rig& b) {
  ASSERT_EQ(a.skeleton().joint_count(), b.skeleton().joint_count());
  for (int j = 0; j < a.skeleton().joint_count(); ++j) {
    const size_t i = static_cast<size_t>(j);
    EXPECT_EQ(a.skeleton().joints()[i].name, b.skeleton().joints()[i].name);
    EXPECT_EQ(a.skeleton().parents()[i], b.skeleton().parents()[i]);
    EXPECT_TRUE(
        bits_equal(a.skeleton().inverse_binds()[i].m, b.skeleton().inverse_binds()[i].m, 16));
  }
  ASSERT_EQ(a.clip_count(), b.clip_count());
  for (int c = 0; c < a.clip_count(); ++c) {
    const Clip& x = a.clips()[static_cast<size_t>(c)];
    const Clip& y = b.clips()[static_cast<size_t>(c)];
    EXPECT_EQ(x.name(), y.name());
    EXPECT_EQ(x.duration(), y.duration());
    ASSERT_EQ(x.channels().size(), y.channels().size());
    for (size_t k = 0; k < x.channels().size(); ++k) {
      const Channel& p = x.channels()[k];
      const Channel& q = y.channels()[k];
      EXPECT_EQ(p.joint, q.joint);
      EXPECT_EQ(p.property, q.property);
      EXPECT_EQ(p.interpolation, q.interpolation);
      ASSERT_EQ(p.times.size(), q.times.size());
      ASSERT_EQ(p.values.size(), q.values.size());
      EXPECT_TRUE(bits_equal(p.times.data(), q.times.data(), static_cast<int>(p.times.size())));
      EXPECT_TRUE(bits_equal(p.values.data(), q.values.data(), static_cast<int>(p.values.size())));
    }
    ASSERT_EQ(x.events().size(), y.events().size());
    for (size_t e = 0; e < x.events().size(); ++e) {
      EXPECT_EQ(x.events()[e].name, y.events()[e].name);
      EXPECT_EQ(x.events()[e].time, y.events()[e].time);
    }
  }
}

TEST(Pack, RoundTripsTheFixtureRigBitForBit) {
  const CookedPack cooked = fixture_pack();
  const std::vector<uint8_t> bytes = write_pack(cooked);
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->format_version(), kPackFormatVersion);
  ASSERT_EQ(pack->rig_count(), 1);
  expect_same_rig(pack->rig(0), cooked.rigs[0].rig);
  EXPECT_EQ(pack->joint_source_node(0, 2), 2);
  EXPECT_EQ(pack->clip_source_animation(0, 3), 3);

  // The pack's rig poses the same bits as the fixture in every clip.
  Animator a = std::move(*Animator::create(&pack->rig(0), 60));
  Animator b = std::move(*Animator::create(&cooked.rigs[0].rig, 60));
  for (uint16_t clip = 0; clip < 4; ++clip) {
    ASSERT_TRUE(a.play(clip, 0));
    ASSERT_TRUE(b.play(clip, 0));
    for (int64_t t = 0; t < 150; ++t) {
      a.evaluate(t);
      b.evaluate(t);
      for (size_t j = 0; j < 4; ++j)
        ASSERT_TRUE(bits_equal(a.palette()[j].m, b.palette()[j].m, 16));
    }
  }
}

// Keys of a version 1 to 5 pack are viewed in the file; a version 6 pack's are decoded once
// into memory the pack owns (docs/pack-format.md, "Clip keys"), channels with the same
// times sharing one decoded array.
TEST(Pack, OlderPacksKeysAreReadInPlaceNewerOnesDecodedOnce) {
  {
    const std::string path = std::string(ANIMPACK_SOURCE_DIR) + "/tests/data/packs/fox_v4.anpk";
    auto pack = Pack::open(path);
    ASSERT_TRUE(pack) << pack.error().message();
    const auto whole = pack->bytes();
    ASSERT_GT(pack->rig(0).clips().size(), 0u);
    for (const Clip& clip : pack->rig(0).clips()) {
      for (const Channel& ch : clip.channels()) {
        EXPECT_GE(ch.times.data(), reinterpret_cast<const float*>(whole.data()));
        EXPECT_LE(ch.values.data() + ch.values.size(),
                  reinterpret_cast<const float*>(whole.data() + whole.size()));
      }
    }
  }
  const std::vector<uint8_t> bytes = write_pack(fixture_pack());
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack);
  const auto whole = pack->bytes();
  const auto* begin = reinterpret_cast<const float*>(whole.data());
  const auto* end = reinterpret_cast<const float*>(whole.data() + whole.size());
  size_t shared = 0;
  for (const Clip& clip : pack->rig(0).clips()) {
    EXPECT_EQ(clip.storage().compression, ClipCompression::kExact);
    EXPECT_GT(clip.storage().stored_bytes, 0u);
    for (size_t c = 0; c < clip.channels().size(); ++c) {
      const Channel& ch = clip.channels()[c];
      EXPECT_TRUE(ch.times.data() + ch.times.size() <= begin || ch.times.data() >= end);
      EXPECT_TRUE(ch.values.data() + ch.values.size() <= begin || ch.values.data() >= end);
      for (size_t d = 0; d < c; ++d) {
        const Channel& other = clip.channels()[d];
        if (std::equal(ch.times.begin(), ch.times.end(), other.times.begin(), other.times.end())) {
          EXPECT_EQ(ch.times.data(), other.times.data()) << clip.name() << " " << c << " " << d;
          ++shared;
        }
      }
    }
  }
  EXPECT_GT(shared, 0u) << "the fixture has channels with the same times";
}

TEST(Pack, VertexStreamsDecodeCompressedOrRaw) {
  const CookedPack cooked = fixture_pack();
  for (bool compress : {true, false}) {
    const std::vector<uint8_t> bytes = write_pack(cooked, {compress});
    auto pack = Pack::from_bytes(bytes);
    ASSERT_TRUE(pack) << pack.error().message();
    ASSERT_EQ(pack->parts().size(), 1u);
    EXPECT_TRUE(pack->parts()[0].skinned);
    auto s = pack->part_streams(0);
    ASSERT_TRUE(s) << s.error().message();
    const CookedPart& p = cooked.meshes[0].parts[0];
    ASSERT_EQ(s->positions.size(), p.positions.size());
    EXPECT_EQ(0, std::memcmp(s->positions.data(), p.positions.data(), p.positions.size() * 12));
    EXPECT_EQ(0, std::memcmp(s->normals.data(), p.normals.data(), p.normals.size() * 12));
    EXPECT_EQ(0, std::memcmp(s->tangents.data(), p.tangents.data(), p.tangents.size() * 16));
    EXPECT_EQ(0, std::memcmp(s->joints.data(), p.joints.data(), p.joints.size() * 8));
    EXPECT_EQ(0, std::memcmp(s->weights.data(), p.weights.data(), p.weights.size() * 16));
    ASSERT_EQ(s->indices.size(), p.indices.size());
    EXPECT_EQ(0, std::memcmp(s->indices.data(), p.indices.data(), p.indices.size() * 4));
    EXPECT_EQ(s->source_vertices[5], 5u);
    auto pixels = pack->sprite_pixels(0);
    ASSERT_TRUE(pixels);
    ASSERT_EQ(pixels->size(), cooked.sheets[0].rgba.size());
    EXPECT_EQ(0, std::memcmp(pixels->data(), cooked.sheets[0].rgba.data(), pixels->size()));
  }
  EXPECT_LT(write_pack(cooked, {true}).size(), write_pack(cooked, {false}).size())
      << "LZ4 shrank something";
}

TEST(Pack, SpriteSheetsAndObjectsRoundTrip) {
  const std::vector<uint8_t> bytes = write_pack(fixture_pack());
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack);
  ASSERT_EQ(pack->sprite_sheets().size(), 1u);
  const SpriteSheet& sheet = pack->sprite_sheets()[0];
  EXPECT_EQ(sheet.atlas().frame_count(), 8u);
  EXPECT_EQ(*sheet.find_clip("idle"), 1);
  EXPECT_EQ(sheet.clips()[0].events()[0].name, "step");
  EXPECT_EQ(pack->sprite_source(0), "hero.png");
  ASSERT_EQ(pack->objects().size(), 2u);
  const ObjectInfo& walker = pack->objects()[static_cast<size_t>(pack->find_object("walker"))];
  EXPECT_EQ(walker.mesh, 0);
  EXPECT_EQ(walker.position.y, 2.0f);
  ASSERT_EQ(walker.animation.blend.size(), 2u);
  EXPECT_EQ(walker.animation.blend[1].clip, 3);
  EXPECT_EQ(walker.animation.blend[0].weight, 0.7f);
  EXPECT_EQ(walker.animation.speed, 1.5f);
  EXPECT_EQ(walker.animation.events[0].name, "step");
  const ObjectInfo& hero = pack->objects()[1];
  EXPECT_TRUE(hero.face_camera);
  EXPECT_EQ(hero.material, "sprite");
  EXPECT_EQ(hero.animation.sprite_sheet, 0);
  EXPECT_EQ(hero.animation.events[0].frame, 3u);
  EXPECT_EQ(pack->find_object("nobody"), -1);
  EXPECT_EQ(pack->meshes()[0].name, "column");
}

TEST(Pack, TheSameContentGivesTheSameBytes) {
  EXPECT_EQ(write_pack(fixture_pack()), write_pack(fixture_pack()));
}

TEST(Pack, OpensAFileThroughMmap) {
  const fs::path dir = fs::temp_directory_path() / "animpack_pack_test";
  fs::create_directories(dir);
  const fs::path file = dir / "fixture.anpk";
  ASSERT_EQ(write_file_atomically(file, write_pack(fixture_pack())), "");
  auto pack = Pack::open(file.string());
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->rig(0).clip_count(), 4);
  auto missing = Pack::open((dir / "missing.anpk").string());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kIo);
  fs::remove_all(dir);
}

TEST(Pack, AtomicWriteLeavesAPreviousFileAloneOnFailure) {
  const fs::path dir = fs::temp_directory_path() / "animpack_atomic_test";
  fs::create_directories(dir);
  const fs::path file = dir / "good.anpk";
  const std::vector<uint8_t> good = write_pack(fixture_pack());
  ASSERT_EQ(write_file_atomically(file, good), "");
  // A folder that does not exist: the write fails and names the path.
  EXPECT_NE(write_file_atomically(dir / "no" / "such" / "x.anpk", good), "");
  EXPECT_EQ(fs::file_size(file), good.size());
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename(), "good.anpk") << "no temporary file is left behind";
  }
  fs::remove_all(dir);
}

// Everything a game would touch after open(): must never crash on an accepted pack.
void use_everything(const Pack& pack) {
  for (int r = 0; r < pack.rig_count(); ++r) {
    auto a = Animator::create(&pack.rig(r), 60);
    if (!a) continue;
    for (uint16_t c = 0; c < pack.rig(r).clip_count(); ++c) {
      (void)a->play(c, 0);
      (void)a->advance(30);
      a->evaluate(30);
    }
  }
  for (size_t p = 0; p < pack.parts().size(); ++p) {
    auto s = pack.part_streams(static_cast<int>(p));
    if (!s || s->joints.empty()) continue;
    const int rig = pack.meshes()[static_cast<size_t>(pack.parts()[p].mesh)].rig;
    auto a = Animator::create(&pack.rig(rig), 60);
    std::vector<Vec3> out(s->positions.size());
    (void)skin({s->positions, {}, {}, s->joints, s->weights}, a->palette(), {out, {}, {}});
  }
  for (size_t s = 0; s < pack.sprite_sheets().size(); ++s)
    (void)pack.sprite_pixels(static_cast<int>(s));
  for (size_t t = 0; t < pack.textures().size(); ++t)
    (void)pack.texture_pixels(static_cast<int>(t));
  for (size_t m = 0; m < pack.meshes().size(); ++m) {
    const MeshBounds& bounds = pack.mesh_bounds(static_cast<int>(m));
    (void)bounds.bind.valid();
    for (const JointBounds& j : bounds.joints) (void)j.joint;
  }
}

TEST(Pack, RefusesTruncatedPacks) {
  const std::vector<uint8_t> bytes = write_pack(fixture_pack());
  for (size_t n = 0; n < bytes.size(); n += n < 256 ? 1 : 97) {
    auto pack = Pack::from_bytes({bytes.data(), n});
    ASSERT_FALSE(pack) << "a pack cut to " << n << " of " << bytes.size() << " bytes";
    EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  }
}

TEST(Pack, BitFlipsAreRefusedOrHarmlessNeverACrash) {
  const std::vector<uint8_t> good = write_pack(fixture_pack());
  uint64_t state = 12345;
  int refused = 0, accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> bytes = good;
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const size_t at = static_cast<size_t>(state >> 33) % bytes.size();
    bytes[at] ^= static_cast<uint8_t>(1u << ((state >> 20) & 7));
    auto pack = Pack::from_bytes(bytes);
    if (!pack) {
      EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
      ++refused;
      continue;
    }
    ++accepted;
    use_everything(*pack);
  }
  EXPECT_GT(refused, 100) << "structural flips are caught";
  RecordProperty("accepted", accepted);
}

TEST(Pack, RefusesAnotherFormatVersion) {
  flatbuffers::FlatBufferBuilder b;
  schema::FinishAssetPackBuffer(b, schema::CreateAssetPack(b, kPackFormatVersion + 1));
  auto pack = Pack::from_bytes({b.GetBufferPointer(), b.GetSize()});
  ASSERT_FALSE(pack);
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  EXPECT_NE(std::string(pack.error().message()).find("version"), std::string::npos);
}

TEST(Pack, RefusesAWrongIdentifier) {
  std::vector<uint8_t> bytes = write_pack(fixture_pack());
  bytes[4] = 'X';
  auto pack = Pack::from_bytes(bytes);
  ASSERT_FALSE(pack);
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
}

TEST(Pack, RefusesSemanticErrorsTheVerifierCannotSee) {
  // A parent after its child, a clip index out of range, an event past its clip.
  {
    CookedPack cooked = fixture_pack();
    cooked.objects[0].animation.clip = 9;
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_FALSE(pack);
    EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  }
  {
    CookedPack cooked = fixture_pack();
    cooked.objects[0].animation.events[0].time = 5.0f;  // Linear lasts 2 s
    EXPECT_FALSE(Pack::from_bytes(write_pack(cooked)));
  }
  {
    CookedPack cooked = fixture_pack();
    cooked.meshes[0].parts[0].indices[3] = 100000;  // caught when the part is decoded
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_TRUE(pack);
    auto s = pack->part_streams(0);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code(), ErrorCode::kBadPack);
  }
  {
    CookedPack cooked = fixture_pack();
    cooked.meshes[0].parts[0].joints[7].j[1] = 4;  // the rig has 4 joints
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_TRUE(pack);
    EXPECT_FALSE(pack->part_streams(0));
  }
  {
    CookedPack cooked = fixture_pack();
    cooked.objects[0].animation.blend[0].weight = -1.0f;
    EXPECT_FALSE(Pack::from_bytes(write_pack(cooked)));
  }
}

// STYLE L2: each shipped format version keeps a golden pack that must keep loading.
// Version 1 was written by the version 1 writer and can no longer be regenerated; it has
// none of version 2's tables, which read as absent.
TEST(Pack, GoldenVersionOnePackStillLoads) {
  const fs::path golden = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/fixture_v1.anpk";
  auto pack = Pack::open(golden.string());
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->format_version(), 1u);
  expect_same_rig(pack->rig(0), fixture::make_rig());
  use_everything(*pack);
  EXPECT_TRUE(pack->materials().empty());
  EXPECT_TRUE(pack->textures().empty());
  EXPECT_EQ(pack->parts()[0].material, -1);
  EXPECT_FALSE(pack->mesh_bounds(0).bind.valid());
  EXPECT_TRUE(pack->mesh_bounds(0).joints.empty());
  auto streams = pack->part_streams(0);
  ASSERT_TRUE(streams);
  EXPECT_TRUE(streams->texcoords0.empty() && streams->texcoords1.empty() &&
              streams->colors.empty());
}

// ---------------------------------------------------------------- crafted packs (limits)

namespace fb = animpack::schema;

// Overwrites a scalar field the writer stored (a non-default value) in `bytes`.
template <typename T>
void patch(std::vector<uint8_t>& bytes, const void* table, flatbuffers::voffset_t field, T value) {
  const size_t at = static_cast<size_t>(static_cast<const uint8_t*>(table) - bytes.data());
  int32_t back;
  std::memcpy(&back, bytes.data() + at, 4);
  const size_t vtable = at - static_cast<size_t>(static_cast<int64_t>(back));
  uint16_t vtable_size, offset = 0;
  std::memcpy(&vtable_size, bytes.data() + vtable, 2);
  ASSERT_LT(field, vtable_size);
  std::memcpy(&offset, bytes.data() + vtable + field, 2);
  ASSERT_NE(offset, 0) << "the field is stored";
  std::memcpy(bytes.data() + at + offset, &value, sizeof value);
}

// Overwrites a vector's length prefix.
void patch_length(std::vector<uint8_t>& bytes, const void* vector, uint32_t length) {
  const auto* at = static_cast<const uint8_t*>(vector);
  std::memcpy(bytes.data() + (at - bytes.data()), &length, sizeof length);
}

TEST(Pack, RefusesASpriteSheetWhosePixelSizeWrapsToZero) {
  // 2^31 x 2^31 x 4 bytes is 2^64: a 64-bit product wraps to 0, matching an empty blob.
  PackWriteOptions raw;
  raw.compress = false;
  std::vector<uint8_t> bytes = write_pack(fixture_pack(), raw);
  const fb::SpriteSheet* sheet = fb::GetAssetPack(bytes.data())->sprite_sheets()->Get(0);
  patch(bytes, sheet, fb::SpriteSheet::VT_WIDTH, uint32_t{1} << 31);
  patch(bytes, sheet, fb::SpriteSheet::VT_HEIGHT, uint32_t{1} << 31);
  patch(bytes, sheet->pixels(), fb::Blob::VT_RAW_SIZE, uint64_t{0});
  patch_length(bytes, sheet->pixels()->data(), 0);
  auto pack = Pack::from_bytes(bytes);
  ASSERT_FALSE(pack);
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  EXPECT_NE(std::string(pack.error().message()).find("at most 16384 on a side"), std::string::npos)
      << pack.error().message();
}

TEST(Pack, RefusesAnLz4BlobDeclaringMoreThanItsDataCanDecodeTo) {
  CookedPack cooked = fixture_pack();
  std::fill(cooked.sheets[0].rgba.begin(), cooked.sheets[0].rgba.end(), uint8_t{0});
  std::vector<uint8_t> bytes = write_pack(cooked);
  const fb::SpriteSheet* sheet = fb::GetAssetPack(bytes.data())->sprite_sheets()->Get(0);
  ASSERT_EQ(sheet->pixels()->compression(), fb::Compression::Lz4);
  const uint64_t data = sheet->pixels()->data()->size();
  // 4096 x 4096 RGBA8 is 64 MiB, under kMaxBlobBytes, but more than 255 x the LZ4 data.
  ASSERT_LT(data * 255, uint64_t{4096} * 4096 * 4);
  patch(bytes, sheet, fb::SpriteSheet::VT_WIDTH, uint32_t{4096});
  patch(bytes, sheet, fb::SpriteSheet::VT_HEIGHT, uint32_t{4096});
  patch(bytes, sheet->pixels(), fb::Blob::VT_RAW_SIZE, uint64_t{4096} * 4096 * 4);
  auto pack = Pack::from_bytes(bytes);
  ASSERT_FALSE(pack) << "refused before anything is allocated for the blob";
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
}

TEST(Pack, RefusesSourceVerticesOutsideThePart) {
  CookedPack cooked = fixture_pack();
  cooked.meshes[0].parts[0].source_vertices[2] = 0x7fffffff;
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  auto s = pack->part_streams(0);
  ASSERT_FALSE(s) << "a source vertex past the part's vertices is refused when decoded";
  EXPECT_EQ(s.error().code(), ErrorCode::kBadPack);
}

TEST(Pack, RefusesBytesAfterTheBuffer) {
  const std::vector<uint8_t> good = write_pack(fixture_pack());
  ASSERT_TRUE(Pack::from_bytes(good));
  std::vector<uint8_t> zeros = good;
  zeros.resize(good.size() + 4096, 0);
  auto pack = Pack::from_bytes(zeros);
  ASSERT_FALSE(pack);
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  std::vector<uint8_t> garbage = good;
  garbage.push_back(0x5a);
  EXPECT_FALSE(Pack::from_bytes(garbage));
}

TEST(Pack, RefusesAFileAboveTheSizeLimitBeforeMappingIt) {
  const fs::path dir = fs::temp_directory_path() / "animpack_pack_limit_test";
  fs::create_directories(dir);
  const fs::path file = dir / "huge.anpk";
  ASSERT_EQ(write_file_atomically(file, write_pack(fixture_pack())), "");
  fs::resize_file(file, kMaxPackBytes + 1);  // sparse: trailing zeros
  auto pack = Pack::open(file.string());
  fs::remove_all(dir);
  ASSERT_FALSE(pack);
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  EXPECT_NE(std::string(pack.error().message()).find("at most"), std::string::npos)
      << pack.error().message();
}

TEST(Pack, RefusesAFifoADirectoryAndADeviceWithoutReadingThem) {
  const fs::path dir = fs::temp_directory_path() / "animpack_pack_fifo_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path fifo = dir / "pipe.anpk";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto from_fifo = Pack::open(fifo.string());  // hung waiting for a writer before
  auto from_dir = Pack::open(dir.string());
  auto from_device = Pack::open("/dev/zero");
  fs::remove_all(dir);
  ASSERT_FALSE(from_fifo);
  EXPECT_EQ(from_fifo.error().code(), ErrorCode::kIo);
  ASSERT_FALSE(from_dir);
  EXPECT_EQ(from_dir.error().code(), ErrorCode::kIo);
  ASSERT_FALSE(from_device);
  EXPECT_EQ(from_device.error().code(), ErrorCode::kIo);
}

TEST(Pack, RefusesStringsThatAreNotUtf8) {
  for (const char* name : {"walk\xc3", "\xc0\xaf", "\xed\xa0\x80",
                           "a\xff"
                           "b"}) {
    CookedPack cooked = fixture_pack();
    cooked.objects[0].name = name;
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_FALSE(pack) << "object name " << testing::PrintToString(std::string(name));
    EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  }
  CookedPack cooked = fixture_pack();
  cooked.objects[0].name = "h\xc3\xa9ros \xe2\x9c\x93 \xf0\x9f\x98\x80";
  EXPECT_TRUE(Pack::from_bytes(write_pack(cooked))) << "well-formed UTF-8 is kept";
}

TEST(Pack, RefusesEventsWhosePlayersWouldExceedTheSetupLimit) {
  // Each object event can be crossed kMaxRepeats times both ways in one advance: the
  // buffers for 20,000 of them would take gigabytes in ScenePlayer::create.
  CookedPack cooked = fixture_pack();
  cooked.objects[0].animation.events.clear();
  for (int i = 0; i < 20000; ++i) cooked.objects[0].animation.events.push_back({"e", 1, 0.5f, 0});
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_FALSE(pack);
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  EXPECT_NE(std::string(pack.error().message()).find("bytes"), std::string::npos)
      << pack.error().message();
  cooked.objects[0].animation.events.resize(100);
  EXPECT_TRUE(Pack::from_bytes(write_pack(cooked))) << "100 events are fine";
}

// A pack whose rigs vector holds `copies` offsets to one one-joint rig table.
std::vector<uint8_t> shared_rig_pack(size_t copies) {
  flatbuffers::FlatBufferBuilder b;
  const Mat4 identity;
  const fb::Mat4f m(flatbuffers::span<const float, 16>(identity.m, 16));
  const fb::Trsf rest(fb::Vec3f(0, 0, 0), fb::Quatf(0, 0, 0, 1), fb::Vec3f(1, 1, 1));
  const auto name = b.CreateString("j");
  const auto joints = b.CreateVector(std::vector{fb::CreateJoint(b, name, -1, &rest)});
  const auto binds = b.CreateVectorOfStructs(&m, 1);
  const auto rig = fb::CreateRig(b, joints, binds, &m);
  const auto rigs = b.CreateVector(std::vector<flatbuffers::Offset<fb::Rig>>(copies, rig));
  fb::AssetPackBuilder root(b);
  root.add_format_version(kPackFormatVersion);
  root.add_rigs(rigs);
  fb::FinishAssetPackBuffer(b, root.Finish());
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

TEST(Pack, RefusesOneTableReferencedManyTimes) {
  // FlatBuffers lets every entry of a vector point at one table: 20,000 rigs from one
  // rig's bytes would each be copied out of the file.
  auto pack = Pack::from_bytes(shared_rig_pack(20000));
  ASSERT_FALSE(pack);
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  auto single = Pack::from_bytes(shared_rig_pack(1));
  EXPECT_TRUE(single) << single.error().message();
}

TEST(Pack, FindsADuplicateClipNameAmongSixtyThousand) {
  std::vector<Clip> clips;
  for (int i = 0; i < 60000; ++i) clips.emplace_back("clip" + std::to_string(i));
  clips.emplace_back("clip17");
  auto rig = Rig::create(fixture::make_rig().skeleton(), std::move(clips));
  ASSERT_FALSE(rig);
  EXPECT_NE(std::string(rig.error().message()).find("'clip17'"), std::string::npos)
      << rig.error().message();
}

}  // namespace
}  // namespace animpack
