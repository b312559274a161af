// Format 6 blobs through meshoptimizer's lossless codecs (pack_writer.cpp's
// make_blob_table, pack.cpp's decode_meshopt): every stream kind round-trips bit for bit
// through every codec at 0, 1, 2, 3 and many vertices; the writer keeps a codec only when
// it is smaller; truncated, flipped, mis-sized codec data is refused with kBadPack naming
// the mesh, part and stream; format 1-5 packs may not carry the codecs; real packs (the
// demo scene, Fox, CesiumMan, a morph stress test) decode to the same streams with and
// without the codecs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/schema/pack_generated.h"
#include "fixtures/cooked_fixture.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
namespace fb = animpack::schema;

constexpr uint8_t kCodecs[] = {2, 3, 4, 5, 6, 7};  // MeshoptVertex .. MeshoptSequenceLz4

// A deterministic value in [0, 1): an LCG's high bits.
struct Lcg {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  float next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(s >> 40) / 16777216.0f;
  }
};

// A skinned part of `n` vertices with every stream the writer stores for a part without
// morph targets (morph deltas: PackCodec.MorphDeltasAndEightInfluencesRoundTripThroughEveryCodec in
// morph_test.cpp): smooth
// positions on a spiral with noise, unit normals, tangents, joints of the fixture rig's
// four, weights (four and four more) summing to one, two uv sets, colours; triangles over
// the vertices (degenerate below 3 vertices).
CookedPack part_pack(size_t n) {
  CookedPack pack;
  pack.rigs.push_back(fixture::make_cooked_rig());
  CookedMesh mesh;
  mesh.name = "m";
  mesh.rig = 0;
  CookedPart p;
  Lcg rng;
  for (size_t v = 0; v < n; ++v) {
    const float f = static_cast<float>(v);
    p.positions.push_back({0.01f * f + 0.001f * rng.next(), 0.5f * rng.next(), -0.02f * f});
    p.normals.push_back({0.6f, 0.0f, 0.8f});
    p.tangents.push_back({0.8f, 0.0f, -0.6f, v % 2 ? 1.0f : -1.0f});
    p.joints.push_back(JointIndices{{static_cast<uint16_t>(v % 4), 1, 2, 3}});
    p.weights.push_back({0.25f, 0.125f, 0.0625f, 0.0625f});
    p.joints1.push_back(JointIndices{{3, 2, 1, 0}});
    p.weights1.push_back({0.25f, 0.125f, 0.0625f, 0.0625f});
    p.source_vertices.push_back(static_cast<uint32_t>(v));
    p.texcoords0.push_back({rng.next(), 0.001f * f});
    p.texcoords1.push_back({0.5f, 0.25f});
    p.colors.push_back({rng.next(), 0.5f, 0.25f, 1.0f});
  }
  // Pairs (v, v + 1, v + 2), (v + 2, v + 1, v + 3): triangles the triangle codec gives back
  // unrotated (PackCodec.TheTriangleCodecIsUsedOnlyWhenItGivesTheIndicesBackExactly).
  if (n > 0 && n < 4) {
    const auto last = static_cast<uint32_t>(n - 1);
    p.indices = {0, std::min(1u, last), last};
  }
  for (uint32_t v = 0; v + 3 < n; v += 2) {
    p.indices.insert(p.indices.end(), {v, v + 1, v + 2, v + 2, v + 1, v + 3});
  }
  mesh.parts.push_back(std::move(p));
  pack.meshes.push_back(std::move(mesh));
  return pack;
}

PackWriteOptions only(uint8_t codec) {
  PackWriteOptions o;
  o.only_codec = codec;
  return o;
}

template <typename T>
bool same_bytes(std::span<const T> a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
}

// Every stream of part 0 of `bytes` against the cooked part.
void expect_streams(const std::vector<uint8_t>& bytes, const CookedPart& p,
                    const std::string& what) {
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << what << ": " << pack.error().message();
  auto s = pack->part_streams(0);
  ASSERT_TRUE(s) << what << ": " << s.error().message();
  EXPECT_TRUE(same_bytes(s->positions, p.positions)) << what;
  EXPECT_TRUE(same_bytes(s->normals, p.normals)) << what;
  EXPECT_TRUE(same_bytes(s->tangents, p.tangents)) << what;
  EXPECT_TRUE(same_bytes(s->joints, p.joints)) << what;
  EXPECT_TRUE(same_bytes(s->weights, p.weights)) << what;
  EXPECT_TRUE(same_bytes(s->joints1, p.joints1)) << what;
  EXPECT_TRUE(same_bytes(s->weights1, p.weights1)) << what;
  EXPECT_TRUE(same_bytes(s->indices, p.indices)) << what;
  EXPECT_TRUE(same_bytes(s->source_vertices, p.source_vertices)) << what;
  EXPECT_TRUE(same_bytes(s->texcoords0, p.texcoords0)) << what;
  EXPECT_TRUE(same_bytes(s->texcoords1, p.texcoords1)) << what;
  EXPECT_TRUE(same_bytes(s->colors, p.colors)) << what;
}

const fb::Part* part_of(const std::vector<uint8_t>& bytes) {
  return fb::GetAssetPack(bytes.data())->meshes()->Get(0)->parts()->Get(0);
}

// The Blob tables of part 0, with their names.
std::vector<std::pair<const fb::Blob*, const char*>> blobs_of(const std::vector<uint8_t>& bytes) {
  const fb::Part* p = part_of(bytes);
  return {{p->positions(), "positions"},
          {p->normals(), "normals"},
          {p->tangents(), "tangents"},
          {p->joints(), "joints"},
          {p->weights(), "weights"},
          {p->indices(), "indices"},
          {p->source_vertices(), "source vertices"},
          {p->texcoords0(), "texcoords0"},
          {p->texcoords1(), "texcoords1"},
          {p->colors(), "colors"},
          {p->joints1(), "joints1"},
          {p->weights1(), "weights1"}};
}

TEST(PackCodec, EveryStreamRoundTripsBitForBitThroughEveryCodec) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{20000}}) {
    const CookedPack cooked = part_pack(n);
    const CookedPart& p = cooked.meshes[0].parts[0];
    expect_streams(write_pack(cooked), p, std::to_string(n) + " vertices, smallest");
    for (const uint8_t codec : kCodecs) {
      const std::string what = std::to_string(n) + " vertices, codec " + std::to_string(codec);
      const std::vector<uint8_t> bytes = write_pack(cooked, only(codec));
      expect_streams(bytes, p, what);
      // The codec was used where it applies: vertex codec on every stream, index codecs on
      // the u32 lists (the triangle codec only where it gives the indices back unrotated).
      if (n == 0) continue;
      for (const auto& [blob, name] : blobs_of(bytes)) {
        const auto c = static_cast<uint8_t>(blob->compression());
        const bool u32 =
            blob == part_of(bytes)->indices() || blob == part_of(bytes)->source_vertices();
        const bool applies = codec <= 3 || (u32 && codec >= 6) ||
                             (codec >= 4 && codec <= 5 && blob == part_of(bytes)->indices());
        if (applies) {
          EXPECT_EQ(c, codec) << what << " " << name;
          EXPECT_EQ(blob->element_size(),
                    blob->raw_size() / (name == std::string("indices") ? p.indices.size() : n))
              << what << " " << name;
        } else if (!applies) {
          EXPECT_EQ(c, 0) << what << " " << name;
          EXPECT_EQ(blob->element_size(), 0u) << what << " " << name;
        }
      }
    }
  }
}

// meshoptimizer's triangle codec keeps the triangles' order and winding but may rotate a
// triangle's three indices: (3, 2, 1) after (0, 1, 2) comes back as (2, 1, 3). The writer
// decodes what it encoded and uses the codec only when the indices come back exactly.
TEST(PackCodec, TheTriangleCodecIsUsedOnlyWhenItGivesTheIndicesBackExactly) {
  CookedPack cooked = part_pack(3000);
  std::vector<uint32_t>& indices = cooked.meshes[0].parts[0].indices;
  indices.clear();
  for (uint32_t v = 0; v + 3 < 3000; v += 2) {
    indices.insert(indices.end(), {v, v + 1, v + 2, v + 2, v + 1, v + 3});
  }
  const std::vector<uint8_t> kept = write_pack(cooked, only(4));
  EXPECT_EQ(part_of(kept)->indices()->compression(), fb::Compression::MeshoptIndex);
  EXPECT_EQ(part_of(kept)->indices()->element_size(), 4u);
  expect_streams(kept, cooked.meshes[0].parts[0], "unrotated");
  indices.clear();
  for (uint32_t v = 0; v + 3 < 3000; v += 2) {
    indices.insert(indices.end(), {v, v + 1, v + 2, v + 3, v + 2, v + 1});
  }
  for (const uint8_t codec : {uint8_t{4}, uint8_t{5}}) {
    const std::vector<uint8_t> rotated = write_pack(cooked, only(codec));
    EXPECT_EQ(part_of(rotated)->indices()->compression(), fb::Compression::None);
    expect_streams(rotated, cooked.meshes[0].parts[0], "rotated");
  }
  const std::vector<uint8_t> best = write_pack(cooked);
  const auto c = static_cast<uint8_t>(part_of(best)->indices()->compression());
  EXPECT_TRUE(c != 4 && c != 5) << int{c};
  expect_streams(best, cooked.meshes[0].parts[0], "rotated, smallest");
}

TEST(PackCodec, TheWriterKeepsACodecOnlyWhenItIsSmaller) {
  const CookedPack smooth = part_pack(20000);
  PackWriteOptions raw;
  raw.compress = false;
  PackWriteOptions lz4_only;
  lz4_only.meshopt = false;
  const std::vector<uint8_t> best = write_pack(smooth);
  const std::vector<uint8_t> lz4 = write_pack(smooth, lz4_only);
  EXPECT_EQ(best, write_pack(smooth)) << "the same input gives the same bytes";
  const auto best_blobs = blobs_of(best);
  const auto lz4_blobs = blobs_of(lz4);
  bool some_codec = false;
  for (size_t k = 0; k < best_blobs.size(); ++k) {
    const fb::Blob* b = best_blobs[k].first;
    const fb::Blob* l = lz4_blobs[k].first;
    EXPECT_LE(b->data()->size(), l->data()->size()) << best_blobs[k].second;
    EXPECT_LE(b->data()->size(), b->raw_size()) << best_blobs[k].second;
    // Each codec's own size, forced: the kept one is the smallest of them.
    for (const uint8_t codec : kCodecs) {
      const std::vector<uint8_t> bytes = write_pack(smooth, only(codec));
      const fb::Blob* forced = blobs_of(bytes)[k].first;
      if (static_cast<uint8_t>(forced->compression()) == codec) {
        EXPECT_LE(b->data()->size(), forced->data()->size())
            << best_blobs[k].second << " codec " << int{codec};
      }
    }
    some_codec = some_codec || static_cast<uint8_t>(b->compression()) >= 2;
  }
  EXPECT_TRUE(some_codec) << "meshoptimizer wins on smooth vertex streams";
  EXPECT_LT(best.size(), lz4.size());
  // Noise: neither LZ4 nor a codec is smaller than the bytes themselves.
  CookedPack noise = part_pack(3000);
  Lcg rng;
  for (Vec3& v : noise.meshes[0].parts[0].positions) {
    for (float* f : {&v.x, &v.y, &v.z}) {
      uint32_t bits = static_cast<uint32_t>(rng.next() * 16777216.0f) << 8 |
                      static_cast<uint32_t>(rng.next() * 256.0f);
      bits &= 0xbf7fffffu;  // finite
      std::memcpy(f, &bits, 4);
    }
  }
  const std::vector<uint8_t> noisy = write_pack(noise);
  EXPECT_EQ(part_of(noisy)->positions()->compression(), fb::Compression::None);
  EXPECT_EQ(part_of(noisy)->positions()->element_size(), 0u);
  expect_streams(noisy, noise.meshes[0].parts[0], "noise");
}

// Writes `value` over the scalar field `field` of table `t` inside `bytes` (the field must
// be stored, not defaulted).
template <typename T>
void patch(std::vector<uint8_t>& bytes, const void* t, flatbuffers::voffset_t field, T value) {
  const uint8_t* at = static_cast<const flatbuffers::Table*>(t)->GetAddressOf(field);
  ASSERT_NE(at, nullptr) << "the field is not stored";
  std::memcpy(bytes.data() + (at - bytes.data()), &value, sizeof value);
}

// The bytes refused, at open or when part 0's streams are decoded, with kBadPack and a
// message holding `needle`.
void expect_refused(const std::vector<uint8_t>& bytes, const std::string& needle,
                    const std::string& what) {
  auto pack = Pack::from_bytes(bytes);
  if (!pack) {
    EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack) << what;
    EXPECT_NE(std::string(pack.error().message()).find(needle), std::string::npos)
        << what << ": " << pack.error().message();
    return;
  }
  auto s = pack->part_streams(0);
  ASSERT_FALSE(s) << what << ": accepted";
  EXPECT_EQ(s.error().code(), ErrorCode::kBadPack) << what;
  EXPECT_NE(std::string(s.error().message()).find(needle), std::string::npos)
      << what << ": " << s.error().message();
}

TEST(PackCodec, RefusesTruncatedCodecDataNamingMeshPartAndStream) {
  const CookedPack cooked = part_pack(2000);
  for (const uint8_t codec : kCodecs) {
    const std::vector<uint8_t> good = write_pack(cooked, only(codec));
    const fb::Blob* blob = codec <= 3 ? part_of(good)->positions() : part_of(good)->indices();
    const std::string stream = codec <= 3 ? "positions" : "indices";
    ASSERT_EQ(static_cast<uint8_t>(blob->compression()), codec);
    const uint32_t size = blob->data()->size();
    for (uint32_t keep : {size - 1, size - 2, size / 2, uint32_t{1}, uint32_t{0}}) {
      std::vector<uint8_t> bytes = good;
      // The data vector's length, 4 bytes before its first byte.
      const auto at = static_cast<size_t>(blob->data()->data() - good.data()) - 4;
      std::memcpy(bytes.data() + at, &keep, 4);
      const std::string what = "codec " + std::to_string(codec) + " keeping " +
                               std::to_string(keep) + " of " + std::to_string(size);
      auto pack = Pack::from_bytes(bytes);
      if (!pack) {  // the ratio check at open: too little data for its raw size
        EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack) << what;
        continue;
      }
      auto s = pack->part_streams(0);
      ASSERT_FALSE(s) << what;
      EXPECT_EQ(s.error().code(), ErrorCode::kBadPack) << what;
      EXPECT_NE(std::string(s.error().message()).find("mesh 0 part 0: " + stream),
                std::string::npos)
          << what << ": " << s.error().message();
    }
  }
}

TEST(PackCodec, FlippedCodecBytesAreRefusedOrDecodeToStreamsOfTheirSize) {
  const CookedPack cooked = part_pack(700);
  for (const uint8_t codec : kCodecs) {
    const std::vector<uint8_t> good = write_pack(cooked, only(codec));
    const fb::Blob* blob = codec <= 3 ? part_of(good)->positions() : part_of(good)->indices();
    const size_t from = static_cast<size_t>(blob->data()->data() - good.data());
    const size_t size = blob->data()->size();
    ASSERT_EQ(static_cast<uint8_t>(blob->compression()), codec);
    // The codec's header byte (its version) wrong: always refused.
    if (codec % 2 == 0) {
      std::vector<uint8_t> bytes = good;
      bytes[from] ^= 0x0f;
      expect_refused(bytes, "malformed meshoptimizer", "header of codec " + std::to_string(codec));
    }
    int refused = 0;
    for (size_t k = 0; k < size; ++k) {
      for (const uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
        std::vector<uint8_t> bytes = good;
        bytes[from + k] ^= flip;
        auto pack = Pack::from_bytes(bytes);
        ASSERT_TRUE(pack) << "sizes unchanged: opens";
        auto s = pack->part_streams(0);
        if (!s) {
          EXPECT_EQ(s.error().code(), ErrorCode::kBadPack);
          ++refused;
          continue;
        }
        // Decoded without harm: the streams hold their counts.
        EXPECT_EQ(s->positions.size(), 700u);
        EXPECT_EQ(s->indices.size(), cooked.meshes[0].parts[0].indices.size());
      }
    }
    EXPECT_GT(refused, 0) << "codec " << int{codec};
  }
}

TEST(PackCodec, RefusesAWrongElementSizeOrRawSize) {
  const CookedPack cooked = part_pack(300);
  for (const uint8_t codec : kCodecs) {
    const std::vector<uint8_t> good = write_pack(cooked, only(codec));
    // The blob inside `bytes` (patch() writes through a table of the buffer it patches).
    const auto blob_in = [codec](const std::vector<uint8_t>& bytes) {
      return codec <= 3 ? part_of(bytes)->positions() : part_of(bytes)->indices();
    };
    const std::string stream = codec <= 3 ? "positions" : "indices";
    ASSERT_EQ(static_cast<uint8_t>(blob_in(good)->compression()), codec);
    for (const uint32_t element : {0u, 4u, 8u, 16u, 3u, 512u}) {
      if (element == blob_in(good)->element_size()) continue;
      std::vector<uint8_t> bytes = good;
      patch(bytes, blob_in(bytes), fb::Blob::VT_ELEMENT_SIZE, element);
      expect_refused(bytes, "the " + stream + " blob does not hold",
                     "codec " + std::to_string(codec) + " element size " + std::to_string(element));
    }
    const uint64_t size = blob_in(good)->raw_size();
    for (const uint64_t raw : {size - 4, size + 12, uint64_t{0}}) {
      std::vector<uint8_t> bytes = good;
      patch(bytes, blob_in(bytes), fb::Blob::VT_RAW_SIZE, raw);
      expect_refused(bytes, "the " + stream + " blob does not hold",
                     "codec " + std::to_string(codec) + " raw size " + std::to_string(raw));
    }
    // None or LZ4 with an element size is refused too.
    for (const uint8_t c : {uint8_t{0}, uint8_t{1}}) {
      std::vector<uint8_t> bytes = good;
      patch(bytes, blob_in(bytes), fb::Blob::VT_COMPRESSION, c);
      expect_refused(bytes, "the " + stream + " blob does not hold",
                     "compression " + std::to_string(c) + " with an element size");
    }
  }
}

TEST(PackCodec, RefusesMeshoptimizerBlobsInAFormat5Pack) {
  for (const uint8_t codec : kCodecs) {
    const std::vector<uint8_t> good = write_pack(part_pack(300), only(codec));
    ASSERT_TRUE(Pack::from_bytes(good));
    std::vector<uint8_t> bytes = good;
    patch(bytes, fb::GetAssetPack(bytes.data()), fb::AssetPack::VT_FORMAT_VERSION, uint32_t{5});
    expect_refused(bytes, "format 6 codec", "codec " + std::to_string(codec));
  }
}

// The vertex codec's best case (64 : 1 on zeros), the triangle codec's (one byte per
// repeated triangle) and the sequence codec's (one byte per repeated index): within the
// ratios load() allows, so real packs at those ratios open.
TEST(PackCodec, CodecsAtTheirBestRatiosStillOpen) {
  CookedPack cooked = part_pack(60000);
  CookedPart& p = cooked.meshes[0].parts[0];
  std::fill(p.positions.begin(), p.positions.end(), Vec3{0, 0, 0});
  std::fill(p.texcoords1.begin(), p.texcoords1.end(), Vec2{0, 0});
  std::fill(p.indices.begin(), p.indices.end(), 0u);
  for (const uint8_t codec : kCodecs) {
    const std::vector<uint8_t> bytes = write_pack(cooked, only(codec));
    const fb::Blob* blob = codec <= 3 ? part_of(bytes)->positions() : part_of(bytes)->indices();
    ASSERT_EQ(static_cast<uint8_t>(blob->compression()), codec);
    expect_streams(bytes, p, "zeros, codec " + std::to_string(codec));
  }
  expect_streams(write_pack(cooked), p, "zeros, smallest");
}

// Cooks a one-object scene around a model (its directory copied: scenes name files
// relative to themselves).
CookOutput cook_model(const fs::path& model) {
  const fs::path dir = fs::temp_directory_path() / ("animpack_codec_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(model.parent_path(), dir, fs::copy_options::recursive);
  std::ofstream(dir / "scene.toml")
      << "[[mesh]]\nname = \"model\"\nfile = \"" << model.filename().string()
      << "\"\n\n[[object]]\nname = \"it\"\nmesh = \"model\"\n";
  DiagnosticSink sink;
  CookOutput out = cook_scene(dir / "scene.toml", sink);
  fs::remove_all(dir);
  EXPECT_FALSE(sink.has_errors()) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  return out;
}

// Every part's streams of two packs, byte for byte.
void expect_same_streams(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                         const std::string& what) {
  auto pa = Pack::from_bytes(a);
  auto pb = Pack::from_bytes(b);
  ASSERT_TRUE(pa && pb) << what;
  ASSERT_EQ(pa->parts().size(), pb->parts().size()) << what;
  for (size_t i = 0; i < pa->parts().size(); ++i) {
    auto sa = pa->part_streams(static_cast<int>(i));
    auto sb = pb->part_streams(static_cast<int>(i));
    ASSERT_TRUE(sa && sb) << what << " part " << i;
    const auto same = [](auto x, auto y) {
      return x.size() == y.size() &&
             (x.empty() || std::memcmp(x.data(), y.data(), x.size_bytes()) == 0);
    };
    EXPECT_TRUE(same(sa->positions, sb->positions)) << what << " part " << i;
    EXPECT_TRUE(same(sa->normals, sb->normals)) << what << " part " << i;
    EXPECT_TRUE(same(sa->tangents, sb->tangents)) << what << " part " << i;
    EXPECT_TRUE(same(sa->joints, sb->joints)) << what << " part " << i;
    EXPECT_TRUE(same(sa->weights, sb->weights)) << what << " part " << i;
    EXPECT_TRUE(same(sa->joints1, sb->joints1)) << what << " part " << i;
    EXPECT_TRUE(same(sa->weights1, sb->weights1)) << what << " part " << i;
    EXPECT_TRUE(same(sa->indices, sb->indices)) << what << " part " << i;
    EXPECT_TRUE(same(sa->source_vertices, sb->source_vertices)) << what << " part " << i;
    EXPECT_TRUE(same(sa->texcoords0, sb->texcoords0)) << what << " part " << i;
    EXPECT_TRUE(same(sa->texcoords1, sb->texcoords1)) << what << " part " << i;
    EXPECT_TRUE(same(sa->colors, sb->colors)) << what << " part " << i;
    EXPECT_TRUE(same(sa->morph.positions, sb->morph.positions)) << what << " part " << i;
    EXPECT_TRUE(same(sa->morph.normals, sb->morph.normals)) << what << " part " << i;
    EXPECT_TRUE(same(sa->morph.tangents, sb->morph.tangents)) << what << " part " << i;
  }
}

TEST(PackCodec, RealPacksDecodeToTheSameStreamsWithAndWithoutTheCodecs) {
  const fs::path corpus = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/corpus/gltf";
  PackWriteOptions lz4_only;
  lz4_only.meshopt = false;
  std::vector<std::pair<std::string, CookOutput>> cooked;
  cooked.emplace_back("Fox", cook_model(corpus / "Fox/glTF-Binary/Fox.glb"));
  cooked.emplace_back("CesiumMan", cook_model(corpus / "CesiumMan/glTF-Binary/CesiumMan.glb"));
  cooked.emplace_back("MorphStressTest",
                      cook_model(corpus / "MorphStressTest/glTF/MorphStressTest.gltf"));
  {
    DiagnosticSink sink;
    cooked.emplace_back("demo",
                        cook_scene(fs::path(ANIMPACK_SOURCE_DIR) / "assets/demo/scene.toml", sink));
    ASSERT_FALSE(sink.has_errors()) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  }
  bool some_codec = false;
  for (const auto& [name, out] : cooked) {
    const std::vector<uint8_t> with = write_pack(out.pack);
    const std::vector<uint8_t> without = write_pack(out.pack, lz4_only);
    expect_same_streams(with, without, name);
    EXPECT_LE(with.size(), without.size()) << name;
    some_codec = some_codec || with.size() < without.size();
    for (const uint8_t codec : kCodecs) {
      expect_same_streams(write_pack(out.pack, only(codec)), without,
                          name + " codec " + std::to_string(codec));
    }
  }
  EXPECT_TRUE(some_codec);
}

}  // namespace
}  // namespace animpack
