// Pack format 5: morph sets, weights channels, eight influences and morph deltas round-trip
// bit for bit; every new check refuses a crafted pack naming what failed; identical
// streams, keys and strings are stored once and a shared LZ4 blob is decoded once; the
// committed v5 golden pack (morph_v5.anpk) opens and plays to its golden hash; packs of
// versions 1 to 4 still open with no morph data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/schema/pack_generated.h"
#include "fixtures/cooked_fixture.h"
#include "fixtures/fixture.h"
#include "fixtures/fnv.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
namespace fb = animpack::schema;

// Keys of the weights channels; the clips view them (add_channel_view), so they live for
// the whole test program.
const std::vector<float>& blink_times() {
  static const std::vector<float> t = {0.0f, 0.5f, 1.0f};
  return t;
}
const std::vector<float>& blink_values() {  // 3 weights per key
  static const std::vector<float> v = {0, 0, 0, 1, 0.5f, -0.25f, 0, 1, 0};
  return v;
}
const std::vector<float>& breathe_values() {  // cubic: (in, value, out) x 2 weights per key
  static const std::vector<float> v = {0, 0, 0.25f, 0,    1, -0.5f,  //
                                       0, 0, 1,     0.5f, 0, 0};
  return v;
}

// The fixture rig with two morph sets ("face": 3 targets on joint 1; "body": 2 targets, no
// joint) and two clips animating them: "Blink" (LINEAR, face) and "Breathe" (CUBICSPLINE,
// body; the same times vector as Blink, as channels sharing a glTF input accessor).
CookedRig morph_rig() {
  const Rig base = fixture::make_rig();
  std::vector<Clip> clips;
  for (const Clip& c : base.clips()) clips.push_back(c.copy());
  {
    Clip c("Blink");
    c.add_channel_view(
        Channel{0, Property::kWeights, Interpolation::kLinear, blink_times(), blink_values(), 3});
    c.add_channel(0, Property::kTranslation, Interpolation::kLinear, blink_times(),
                  std::vector<float>{0, 0, 0, 0, 1, 0, 0, 0, 0});
    clips.push_back(std::move(c));
  }
  {
    Clip c("Breathe");
    c.add_channel_view(Channel{1, Property::kWeights, Interpolation::kCubicSpline,
                               std::span<const float>(blink_times()).first(2), breathe_values(),
                               2});
    clips.push_back(std::move(c));
  }
  std::vector<MorphSet> sets(2);
  sets[0].name = "face";
  sets[0].target_names = {"blink", "smile", "frown"};
  sets[0].default_weights = {0.0f, 0.25f, -0.5f};
  sets[0].joint = 1;
  sets[1].name = "body";
  sets[1].target_names = {"breathe_in", "breathe_out"};
  sets[1].default_weights = {0.0f, -0.0f};
  Result<Rig> rig = Rig::create(base.skeleton(), std::move(clips), std::move(sets));
  EXPECT_TRUE(rig) << rig.error().message();
  CookedRig out;
  out.rig = std::move(*rig);
  out.joint_source_nodes = {0, 1, 2, 3};
  out.clip_source_animations = {0, 1, 2, 3, 4, 5};
  out.morph_source_nodes = {4, 7};
  return out;
}

// The column with eight influences (each vertex's four weights halved, the other half on
// joints 3 2 1 0) and the face's three targets: positions and normals, positions only,
// positions and tangents.
CookedMesh morph_column(const std::string& name) {
  CookedMesh mesh = fixture::make_cooked_column(0);
  mesh.name = name;
  CookedPart& p = mesh.parts[0];
  const size_t n = p.positions.size();
  for (size_t v = 0; v < n; ++v) {
    Vec4& w = p.weights[v];
    const Vec4 half{w.x * 0.5f, w.y * 0.5f, w.z * 0.5f, w.w * 0.5f};
    w = half;
    p.joints1.push_back(JointIndices{{3, 2, 1, 0}});
    p.weights1.push_back(half);
  }
  p.morph_set = 0;
  p.morph_targets.resize(3);
  for (size_t v = 0; v < n; ++v) {
    const float f = static_cast<float>(v);
    p.morph_targets[0].positions.push_back({0.01f * f, 0, 0});
    p.morph_targets[0].normals.push_back({0, 0.5f, 0});
    p.morph_targets[1].positions.push_back({0, 0.02f * f, 0});
    p.morph_targets[2].positions.push_back({0, 0, -0.03f});
    p.morph_targets[2].tangents.push_back({0.125f, 0, 0});
  }
  return mesh;
}

CookedPack morph_pack() {
  CookedPack pack;
  pack.rigs.push_back(morph_rig());
  pack.meshes.push_back(morph_column("face"));
  CookedObject o;
  o.name = "head";
  o.mesh = 0;
  o.animated = true;
  o.animation.clip = 4;  // Blink
  pack.objects.push_back(std::move(o));
  return pack;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

template <typename T>
bool same_bytes(std::span<const T> a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
}

TEST(PackMorph, RoundTripsMorphSetsWeightsChannelsAndEightInfluences) {
  const CookedPack cooked = morph_pack();
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->format_version(), kPackFormatVersion);
  const Rig& rig = pack->rig(0);
  const Rig& want = cooked.rigs[0].rig;
  ASSERT_EQ(rig.morph_sets().size(), 2u);
  EXPECT_EQ(rig.morph_weight_count(), 5u);
  for (size_t s = 0; s < 2; ++s) {
    const MorphSet& a = rig.morph_sets()[s];
    const MorphSet& b = want.morph_sets()[s];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.target_names, b.target_names);
    ASSERT_EQ(a.default_weights.size(), b.default_weights.size());
    for (size_t t = 0; t < a.default_weights.size(); ++t)
      EXPECT_TRUE(same_bits(a.default_weights[t], b.default_weights[t])) << s << " " << t;
    EXPECT_EQ(a.joint, b.joint);
    EXPECT_EQ(a.first, b.first);
  }
  EXPECT_EQ(pack->morph_source_node(0, 0), 4);
  EXPECT_EQ(pack->morph_source_node(0, 1), 7);
  EXPECT_EQ(pack->morph_source_node(0, 2), -1);
  ASSERT_EQ(rig.clip_count(), want.clip_count());
  for (int c = 0; c < rig.clip_count(); ++c) {
    const Clip& a = rig.clips()[static_cast<size_t>(c)];
    const Clip& b = want.clips()[static_cast<size_t>(c)];
    ASSERT_EQ(a.channels().size(), b.channels().size()) << c;
    for (size_t k = 0; k < a.channels().size(); ++k) {
      const Channel& x = a.channels()[k];
      const Channel& y = b.channels()[k];
      EXPECT_EQ(x.joint, y.joint);
      EXPECT_EQ(x.property, y.property);
      EXPECT_EQ(x.interpolation, y.interpolation);
      EXPECT_EQ(x.width, y.width) << c << " " << k;
      EXPECT_EQ(std::vector<float>(x.times.begin(), x.times.end()),
                std::vector<float>(y.times.begin(), y.times.end()));
      EXPECT_EQ(std::vector<float>(x.values.begin(), x.values.end()),
                std::vector<float>(y.values.begin(), y.values.end()));
    }
  }
  EXPECT_EQ(rig.clips()[4].channels()[0].property, Property::kWeights);
  EXPECT_EQ(rig.clips()[5].channels()[0].width, 2);

  ASSERT_EQ(pack->parts().size(), 1u);
  const PartInfo& info = pack->parts()[0];
  EXPECT_TRUE(info.eight_influences);
  EXPECT_EQ(info.morph_set, 0);
  EXPECT_EQ(info.morph_targets, 3u);
  auto s = pack->part_streams(0);
  ASSERT_TRUE(s) << s.error().message();
  const CookedPart& p = cooked.meshes[0].parts[0];
  const size_t n = p.positions.size();
  EXPECT_TRUE(same_bytes(s->joints1, p.joints1));
  EXPECT_TRUE(same_bytes(s->weights1, p.weights1));
  EXPECT_TRUE(same_bytes(s->weights, p.weights));
  EXPECT_EQ(s->morph.targets, 3u);
  ASSERT_EQ(s->morph.positions.size(), 3 * n);
  ASSERT_EQ(s->morph.normals.size(), 3 * n);
  ASSERT_EQ(s->morph.tangents.size(), 3 * n);
  for (size_t t = 0; t < 3; ++t) {
    const CookedMorphTarget& d = p.morph_targets[t];
    for (size_t v = 0; v < n; ++v) {
      const Vec3 zero{0, 0, 0};
      const auto eq = [](Vec3 a, Vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; };
      EXPECT_TRUE(eq(s->morph.positions[t * n + v], d.positions[v])) << t << " " << v;
      EXPECT_TRUE(eq(s->morph.normals[t * n + v], d.normals.empty() ? zero : d.normals[v]));
      EXPECT_TRUE(eq(s->morph.tangents[t * n + v], d.tangents.empty() ? zero : d.tangents[v]));
    }
  }
}

TEST(PackMorph, APartWithoutMorphsOrASecondSetHasNone) {
  CookedPack cooked;
  cooked.rigs.push_back(fixture::make_cooked_rig());
  cooked.meshes.push_back(fixture::make_cooked_column(0));
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_TRUE(pack->rig(0).morph_sets().empty());
  EXPECT_FALSE(pack->parts()[0].eight_influences);
  EXPECT_EQ(pack->parts()[0].morph_set, -1);
  auto s = pack->part_streams(0);
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_TRUE(s->joints1.empty());
  EXPECT_TRUE(s->weights1.empty());
  EXPECT_EQ(s->morph.targets, 0u);
  EXPECT_TRUE(s->morph.positions.empty());
}

TEST(PackMorph, TheSameContentGivesTheSameBytes) {
  EXPECT_EQ(write_pack(morph_pack()), write_pack(morph_pack()));
}

// The same file named by two meshes: its streams, keys and names are stored once, and the
// two parts view one decoded copy.
TEST(PackShare, IdenticalStreamsKeysAndStringsAreStoredOnce) {
  CookedPack once = morph_pack();
  CookedPack twice = morph_pack();
  twice.meshes.push_back(morph_column("face"));
  twice.rigs.push_back(morph_rig());
  twice.meshes[1].rig = 1;
  // LZ4 only: the bound below is for tables against LZ4 streams (meshoptimizer's codecs
  // make one copy of the streams smaller than the second copy's tables).
  PackWriteOptions lz4_only;
  lz4_only.meshopt = false;
  const std::vector<uint8_t> a = write_pack(once, lz4_only);
  const std::vector<uint8_t> b = write_pack(twice, lz4_only);
  // The second mesh and rig add their tables (parts, joints, clips, channels, sets), not
  // their vertex streams, keys or names: uncompressed, under a tenth of one copy of the
  // part's streams.
  const CookedPart& part = once.meshes[0].parts[0];
  const size_t n = part.positions.size();
  const size_t streams =
      n * (12 + 12 + 16 + 8 + 16 + 4 + 8 + 16) + part.indices.size() * 4 + 3 * n * 12 * 3;
  PackWriteOptions raw;
  raw.compress = false;
  const size_t raw_once = write_pack(once, raw).size();
  const size_t raw_twice = write_pack(twice, raw).size();
  EXPECT_LT(raw_twice - raw_once, streams / 10) << raw_once << " then " << raw_twice;
  EXPECT_LT(b.size() - a.size(), a.size() / 4) << a.size() << " then " << b.size();

  {
    auto pack = Pack::from_bytes(b);
    ASSERT_TRUE(pack) << pack.error().message();
    ASSERT_EQ(pack->parts().size(), 2u);
    auto s0 = pack->part_streams(0);
    auto s1 = pack->part_streams(1);
    ASSERT_TRUE(s0 && s1);
    EXPECT_EQ(s0->positions.data(), s1->positions.data()) << "one decoded copy";
    EXPECT_EQ(s0->morph.positions.data(), s1->morph.positions.data());
    EXPECT_EQ(s0->weights1.data(), s1->weights1.data());
    const Channel& blink0 = pack->rig(0).clips()[4].channels()[0];
    const Channel& blink1 = pack->rig(1).clips()[4].channels()[0];
    EXPECT_EQ(blink0.values.data(), blink1.values.data());
    // Blink's weights and translation channels have one times vector.
    EXPECT_EQ(blink0.times.data(), pack->rig(0).clips()[4].channels()[1].times.data());
  }
  // Halving the weights makes weights and weights1 the same bytes: one blob.
  auto pack = Pack::from_bytes(a);
  ASSERT_TRUE(pack);
  auto s = pack->part_streams(0);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->weights.data(), s->weights1.data());
}

// A crafted pack pointing 100,000 parts at one LZ4 blob opens (each part's blobs checked
// against its vertex count), counts the blob's decoded size once against
// kMaxDecodedBytes, and decodes and checks it once: every part views the same bytes.
TEST(PackShare, ManyPartsOnOneBlobDecodeItOnce) {
  CookedPack cooked;
  CookedMesh mesh = fixture::make_cooked_column(-1);
  CookedPart part = mesh.parts[0];  // a static part: positions, indices, source vertices
  part.normals.clear();
  part.tangents.clear();
  part.joints.clear();
  part.weights.clear();
  mesh.parts.assign(100000, part);
  cooked.meshes.push_back(std::move(mesh));
  PackWriteOptions lz4_only;  // an LZ4 blob (PackCodec tests the meshoptimizer ones)
  lz4_only.meshopt = false;
  const std::vector<uint8_t> bytes = write_pack(cooked, lz4_only);
  EXPECT_LT(bytes.size(), size_t{8} << 20) << "the parts' tables only, not their streams";
  const auto* root = fb::GetAssetPack(bytes.data());
  const fb::Part* first_part = root->meshes()->Get(0)->parts()->Get(0);
  ASSERT_EQ(first_part->positions()->compression(), fb::Compression::Lz4);
  ASSERT_EQ(first_part->positions(), root->meshes()->Get(0)->parts()->Get(99999)->positions());
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  ASSERT_EQ(pack->parts().size(), 100000u);
  const Vec3* first = nullptr;
  for (int i = 0; i < 100000; ++i) {
    auto s = pack->part_streams(i);
    ASSERT_TRUE(s) << s.error().message();
    if (i == 0) first = s->positions.data();
    ASSERT_EQ(s->positions.data(), first) << i;
  }
}

// Writes `value` over the scalar field `field` of table `t` inside `bytes` (the field must
// be stored, not defaulted).
// (Generated tables derive from flatbuffers::Table privately, at the same address.)
const uint8_t* field_address(const void* table, flatbuffers::voffset_t field) {
  return static_cast<const flatbuffers::Table*>(table)->GetAddressOf(field);
}

template <typename T>
void patch(std::vector<uint8_t>& bytes, const void* t, flatbuffers::voffset_t field, T value) {
  const uint8_t* at = field_address(t, field);
  ASSERT_NE(at, nullptr) << "the field is not stored";
  std::memcpy(bytes.data() + (at - bytes.data()), &value, sizeof value);
}

const fb::AssetPack* root_of(const std::vector<uint8_t>& bytes) {
  return fb::GetAssetPack(bytes.data());
}
const fb::Part* part_of(const std::vector<uint8_t>& bytes) {
  return root_of(bytes)->meshes()->Get(0)->parts()->Get(0);
}

void expect_refused(const std::vector<uint8_t>& bytes, const std::string& what) {
  auto pack = Pack::from_bytes(bytes);
  ASSERT_FALSE(pack) << "accepted; wanted: " << what;
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  EXPECT_NE(std::string(pack.error().message()).find(what), std::string::npos)
      << pack.error().message() << "\nwanted: " << what;
}

void expect_streams_refused(const CookedPack& cooked, const std::string& what) {
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  auto s = pack->part_streams(0);
  ASSERT_FALSE(s) << "accepted; wanted: " << what;
  EXPECT_EQ(s.error().code(), ErrorCode::kBadPack);
  EXPECT_NE(std::string(s.error().message()).find(what), std::string::npos)
      << s.error().message() << "\nwanted: " << what;
}

TEST(PackMorph, RefusesEveryBadField) {
  const std::vector<uint8_t> good = write_pack(morph_pack());
  ASSERT_TRUE(Pack::from_bytes(good));
  {
    std::vector<uint8_t> b = good;  // a version 4 pack with weights channels and morph sets
    patch<uint32_t>(b, root_of(b), fb::AssetPack::VT_FORMAT_VERSION, 4);
    expect_refused(b, "format 4 has no weights channels");
  }
  {
    CookedPack c = morph_pack();  // eight influences only, as version 4
    c.rigs[0] = fixture::make_cooked_rig();
    c.meshes[0].parts[0].morph_set = -1;
    c.meshes[0].parts[0].morph_targets.clear();
    c.objects[0].animation.clip = 1;
    std::vector<uint8_t> b = write_pack(c);
    ASSERT_TRUE(Pack::from_bytes(b));
    patch<uint32_t>(b, root_of(b), fb::AssetPack::VT_FORMAT_VERSION, 4);
    expect_refused(b, "format 4 has no morph targets or eight influences");
  }
  {
    std::vector<uint8_t> b = good;
    patch<int32_t>(b, part_of(b), fb::Part::VT_MORPH_SET, 2);
    expect_refused(b, "names morph set 2 of 2 in its rig");
  }
  {
    std::vector<uint8_t> b = good;
    patch<uint32_t>(b, part_of(b), fb::Part::VT_MORPH_TARGETS, 2);
    expect_refused(b, "2 morph targets, its morph set 0 has 3");
  }
  {
    std::vector<uint8_t> b = good;
    const auto* ch = root_of(b)->rigs()->Get(0)->clips()->Get(4)->channels()->Get(0);
    patch<uint16_t>(b, ch, fb::Channel::VT_WIDTH, 2);
    // Format 6 keys: the width sets how many values the stored keys decode to, so the
    // decoder refuses it before Rig::create compares it with the morph set's.
    expect_refused(b, "rig 0 clip 4 channel 0: value planes do not decode to 6 floats");
  }
  {
    std::vector<uint8_t> b = good;  // a width on a translation channel
    const auto* ch = root_of(b)->rigs()->Get(0)->clips()->Get(4)->channels()->Get(0);
    patch<uint8_t>(b, ch, fb::Channel::VT_PROPERTY, 0);
    expect_refused(b, "width 3 on a translation channel");
  }
  {
    std::vector<uint8_t> b = good;
    const auto* ch = root_of(b)->rigs()->Get(0)->clips()->Get(5)->channels()->Get(0);
    patch<uint16_t>(b, ch, fb::Channel::VT_JOINT, 2);
    expect_refused(b, "weights of morph set 2");
  }
  {
    std::vector<uint8_t> b = good;
    const auto* set = root_of(b)->rigs()->Get(0)->morph_sets()->Get(0);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const uint8_t* at = reinterpret_cast<const uint8_t*>(set->default_weights()->data()) + 4;
    std::memcpy(b.data() + (at - b.data()), &nan, 4);
    expect_refused(b, "morph set 0 target 1: default weight");
  }
  {
    std::vector<uint8_t> b = good;
    const auto* set = root_of(b)->rigs()->Get(0)->morph_sets()->Get(0);
    patch<int32_t>(b, set, fb::MorphSet::VT_JOINT, 9);
    expect_refused(b, "morph set 0: joint 9 of 4");
  }
  {
    CookedPack c = morph_pack();  // a set with more target names than default weights
    std::vector<uint8_t> b = write_pack(c);
    const auto* set = root_of(b)->rigs()->Get(0)->morph_sets()->Get(1);
    const uint8_t* at = reinterpret_cast<const uint8_t*>(set->default_weights());
    const uint32_t one = 1;
    std::memcpy(b.data() + (at - b.data()), &one, 4);
    expect_refused(b, "morph set 1: 2 target names and 1 default weights");
  }
  {
    std::vector<uint8_t> b = good;
    const fb::Blob* blob = part_of(b)->morph_positions();
    patch<uint64_t>(b, blob, fb::Blob::VT_RAW_SIZE, blob->raw_size() + 12);
    expect_refused(b, "the morph positions blob does not hold");
  }
  {
    CookedPack c = morph_pack();
    c.meshes[0].parts[0].weights1.clear();
    expect_refused(write_pack(c), "joints1 and weights1 come together");
  }
  {
    CookedPack c = morph_pack();
    c.meshes[0].parts[0].morph_set = 1;  // the body's 2 targets, the part has 3
    expect_refused(write_pack(c), "3 morph targets, its morph set 1 has 2");
  }
  // Two weights channels on one set in a clip: Clip::validate refuses such a rig (Rig::create,
  // so the writer cannot be given one: Morph.ValidateRefusesWeightsChannelsThatDoNotFitTheSets
  // in tests/runtime), and the loader checks it before building the rig.
  {
    CookedPack c = morph_pack();
    c.meshes[0].parts[0].joints1[7].j[2] = 4;
    expect_streams_refused(c, "joints1 names joint 4 of 4");
  }
  {
    CookedPack c = morph_pack();
    c.meshes[0].parts[0].weights1[5].x += 0.01f;
    expect_streams_refused(c, "vertex 5: the eight weights sum to");
  }
  {
    CookedPack c = morph_pack();
    c.meshes[0].parts[0].morph_targets[1].positions[3].y = std::numeric_limits<float>::infinity();
    expect_streams_refused(c, "a value of its morph positions is not finite");
  }
}

// Two Blob tables naming one LZ4 data with different raw sizes: the data would decode to
// two lengths, so the second is refused.
TEST(PackShare, RefusesOneDataSharedWithTwoRawSizes) {
  CookedPack c;
  c.rigs.push_back(fixture::make_cooked_rig());
  c.meshes.push_back(fixture::make_cooked_column(0));
  c.meshes.push_back(fixture::make_cooked_column(0));
  CookedPart& second = c.meshes[1].parts[0];
  second.source_vertices.assign(second.source_vertices.size(), 0);  // its own blob
  PackWriteOptions lz4_only;
  lz4_only.meshopt = false;
  std::vector<uint8_t> b = write_pack(c, lz4_only);
  ASSERT_TRUE(Pack::from_bytes(b));
  // Point the second mesh's source vertices (written later, lower in the buffer) at the
  // first mesh's indices' data (an LZ4 blob of another raw size).
  const fb::Blob* from = root_of(b)->meshes()->Get(1)->parts()->Get(0)->source_vertices();
  const fb::Blob* to = root_of(b)->meshes()->Get(0)->parts()->Get(0)->indices();
  ASSERT_EQ(from->compression(), fb::Compression::Lz4);
  ASSERT_EQ(to->compression(), fb::Compression::Lz4);
  ASSERT_NE(from->raw_size(), to->raw_size());
  const uint8_t* field = field_address(from, fb::Blob::VT_DATA);
  const auto* target = reinterpret_cast<const uint8_t*>(to->data());
  ASSERT_GT(target, field);
  const auto offset = static_cast<uint32_t>(target - field);
  std::memcpy(b.data() + (field - b.data()), &offset, 4);
  expect_refused(b, "a blob's data is shared with a blob of another raw size");
}

// The golden run over the committed v5 pack (tests/data/packs/morph_v5.anpk, written from
// morph_pack() with ANIMPACK_WRITE_GOLDEN=1 while version 5 is the newest): 90 ticks at
// 60 Hz of Blink (its weights channel and a translation) through an Animator, hashed over
// every tick's palette bits and the face's three weights at that clip time, read from the
// pack's weights channel and interpolated linearly here (a + (b - a) * u between the keys
// around the time; the Animator's own morph_weights() comes with the runtime's part of
// Step 5), then over the part's decoded eight influences and morph deltas.
// (0xf59434e3e309c6a9 since the runtime's weights: before it, the Animator's joint loop
// wrote a weights channel's values into the root's scale.)
constexpr uint64_t kMorphGoldenHash = 0xf59434e3e309c6a9;

uint64_t morph_golden_run(const Pack& pack) {
  fixture::Fnv h;
  const Rig& rig = pack.rig(0);
  auto animator = Animator::create(&rig, 60);
  EXPECT_TRUE(animator) << animator.error().message();
  if (!animator) return 0;
  const auto clip = rig.find_clip("Blink");
  EXPECT_TRUE(clip);
  if (!clip) return 0;
  EXPECT_TRUE(animator->play(*clip, 0));
  const Channel& weights = rig.clips()[*clip].channels()[0];
  EXPECT_EQ(weights.property, Property::kWeights);
  EXPECT_EQ(weights.interpolation, Interpolation::kLinear);
  const float duration = rig.clips()[*clip].duration();
  for (int64_t tick = 0; tick < 90; ++tick) {
    animator->evaluate(tick);
    for (const Mat4& m : animator->palette()) h.bytes(m.m, sizeof m.m);
    // The clip loops: its time at this tick, then the keys around it.
    const float seconds = static_cast<float>(tick) / 60.0f;
    const float t = seconds - duration * static_cast<float>(static_cast<int>(seconds / duration));
    size_t k = 0;
    while (k + 2 < weights.times.size() && weights.times[k + 1] <= t) ++k;
    const float t0 = weights.times[k], t1 = weights.times[k + 1];
    const float u = std::min(1.0f, std::max(0.0f, (t - t0) / (t1 - t0)));
    for (size_t i = 0; i < weights.width; ++i) {
      const float a = weights.values[k * weights.width + i];
      const float b = weights.values[(k + 1) * weights.width + i];
      h.value(a + (b - a) * u);
    }
  }
  auto s = pack.part_streams(0);
  EXPECT_TRUE(s) << s.error().message();
  if (!s) return 0;
  h.bytes(s->joints1.data(), s->joints1.size_bytes());
  h.bytes(s->weights1.data(), s->weights1.size_bytes());
  h.bytes(s->morph.positions.data(), s->morph.positions.size_bytes());
  h.bytes(s->morph.normals.data(), s->morph.normals.size_bytes());
  h.bytes(s->morph.tangents.data(), s->morph.tangents.size_bytes());
  return h.h;
}

TEST(PackMorph, GoldenVersionFivePackPlaysToItsHash) {
  const fs::path golden = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/morph_v5.anpk";
  if (std::getenv("ANIMPACK_WRITE_GOLDEN") && kPackFormatVersion == 5) {
    ASSERT_EQ(write_file_atomically(golden, write_pack(morph_pack())), "");
  }
  auto stored = Pack::open(golden.string());
  ASSERT_TRUE(stored) << golden << ": " << stored.error().message();
  EXPECT_EQ(stored->format_version(), 5u);
  EXPECT_TRUE(stored->parts()[0].eight_influences);
  EXPECT_EQ(stored->rig(0).morph_sets().size(), 2u);
  const uint64_t h = morph_golden_run(*stored);
  EXPECT_EQ(h, kMorphGoldenHash) << "got 0x" << std::hex << h;
  auto fresh = Pack::from_bytes(write_pack(morph_pack()));
  ASSERT_TRUE(fresh) << fresh.error().message();
  EXPECT_EQ(morph_golden_run(*fresh), h) << "the writer's pack plays like the committed one";
}

// The committed packs of versions 1 to 4 open with no morph sets, no weights channels and
// no second influence set.
TEST(PackMorph, OlderPacksHaveNoMorphsAndFourInfluences) {
  for (const char* name : {"fixture_v1.anpk", "scene_player_v1.anpk", "textured_v2.anpk",
                           "graph_v3.anpk", "character_v3.anpk", "fox_v4.anpk"}) {
    const fs::path path = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs" / name;
    auto pack = Pack::open(path.string());
    ASSERT_TRUE(pack) << name << ": " << pack.error().message();
    EXPECT_LT(pack->format_version(), 5u) << name;
    for (int r = 0; r < pack->rig_count(); ++r) {
      EXPECT_TRUE(pack->rig(r).morph_sets().empty()) << name;
      for (const Clip& c : pack->rig(r).clips())
        for (const Channel& ch : c.channels()) EXPECT_NE(ch.property, Property::kWeights) << name;
    }
    for (size_t p = 0; p < pack->parts().size(); ++p) {
      EXPECT_FALSE(pack->parts()[p].eight_influences) << name;
      EXPECT_EQ(pack->parts()[p].morph_set, -1) << name;
      auto s = pack->part_streams(static_cast<int>(p));
      ASSERT_TRUE(s) << name << ": " << s.error().message();
      EXPECT_TRUE(s->joints1.empty() && s->weights1.empty() && s->morph.targets == 0) << name;
    }
  }
}

// Format 6: morph deltas and the eight influences through each of meshoptimizer's codecs
// (PackWriteOptions::only_codec; the rest in codec_test.cpp) decode to the bytes the raw
// pack holds.
TEST(PackCodec, MorphDeltasAndEightInfluencesRoundTripThroughEveryCodec) {
  const CookedPack cooked = morph_pack();
  PackWriteOptions raw;
  raw.compress = false;
  const std::vector<uint8_t> plain = write_pack(cooked, raw);
  auto want = Pack::from_bytes(plain);
  ASSERT_TRUE(want);
  auto w = want->part_streams(0);
  ASSERT_TRUE(w);
  ASSERT_EQ(w->morph.positions.size(), 3 * cooked.meshes[0].parts[0].positions.size());
  for (const uint8_t codec : {0, 2, 3, 4, 5, 6, 7}) {
    PackWriteOptions o;
    o.only_codec = codec;
    const std::vector<uint8_t> bytes = write_pack(cooked, o);
    if (codec == 2 || codec == 3) {
      EXPECT_EQ(static_cast<uint8_t>(part_of(bytes)->morph_positions()->compression()), codec);
      EXPECT_EQ(static_cast<uint8_t>(part_of(bytes)->weights1()->compression()), codec);
    }
    auto pack = Pack::from_bytes(bytes);
    ASSERT_TRUE(pack) << int{codec} << ": " << pack.error().message();
    auto s = pack->part_streams(0);
    ASSERT_TRUE(s) << int{codec} << ": " << s.error().message();
    const auto same = [](auto x, auto y) {
      return x.size() == y.size() &&
             (x.empty() || std::memcmp(x.data(), y.data(), x.size_bytes()) == 0);
    };
    EXPECT_TRUE(same(s->morph.positions, w->morph.positions)) << int{codec};
    EXPECT_TRUE(same(s->morph.normals, w->morph.normals)) << int{codec};
    EXPECT_TRUE(same(s->morph.tangents, w->morph.tangents)) << int{codec};
    EXPECT_TRUE(same(s->joints1, w->joints1)) << int{codec};
    EXPECT_TRUE(same(s->weights1, w->weights1)) << int{codec};
    EXPECT_TRUE(same(s->indices, w->indices)) << int{codec};
  }
}

}  // namespace
}  // namespace animpack
