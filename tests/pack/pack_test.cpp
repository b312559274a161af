// Packs: the writer and Pack::open round-trip the fixture bit for bit; the same content
// gives the same bytes; corrupted, truncated and wrong-version packs are refused with
// kBadPack and never crash; the golden version-1 pack keeps loading.
#include "animpack/pack.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

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

TEST(Pack, AnimationKeysAreReadInPlace) {
  const std::vector<uint8_t> bytes = write_pack(fixture_pack());
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack);
  const auto whole = pack->bytes();
  for (const Clip& clip : pack->rig(0).clips()) {
    for (const Channel& ch : clip.channels()) {
      EXPECT_GE(ch.times.data(), reinterpret_cast<const float*>(whole.data()));
      EXPECT_LE(ch.values.data() + ch.values.size(),
                reinterpret_cast<const float*>(whole.data() + whole.size()));
    }
  }
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
// Regenerate (only when adding a version) with ANIMPACK_WRITE_GOLDEN=1.
TEST(Pack, GoldenVersionOnePackStillLoads) {
  const fs::path golden = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/fixture_v1.anpk";
  if (std::getenv("ANIMPACK_WRITE_GOLDEN")) {
    ASSERT_EQ(write_file_atomically(golden, write_pack(fixture_pack())), "");
  }
  auto pack = Pack::open(golden.string());
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->format_version(), 1u);
  expect_same_rig(pack->rig(0), fixture::make_rig());
  use_everything(*pack);
}

}  // namespace
}  // namespace animpack
