// Crafted packs: three real packs (the demo scene, the Fox, CesiumMan), cooked here with
// the compiler library, the version 3 graph fixture (tests/fixtures/graph_fixture.h) and
// the version 4 root motion and IK fixture (tests/player/motion_fixture.h),
// each corrupted 10,000 deterministic ways (2,500 under ASan: see kMutants) (bit flips, byte sets,
// truncations, length/offset fields overwritten with extreme values, splices); the graph fixture
// also 10,000 ways inside its state machines' bytes only. Every mutant is refused by Pack::open's
// checks with an error value, or it plays like a game (play_pack.h) without a crash, a hang or a
// sanitizer report; every 128th that plays is also posed as `animpack pose` does (JSON that parses,
// or an error).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/schema/pack_generated.h"
#include "fixtures/graph_fixture.h"
#include "motion_fixture.h"
#include "play_commands.h"
#include "play_pack.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

// Cooks a one-object scene around a model (copied next to it: scenes name files
// relative to themselves).
std::vector<uint8_t> cook_model(const fs::path& model, const std::string& tag) {
  const fs::path dir =
      fs::temp_directory_path() / ("animpack_mutation_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(model, dir / model.filename());
  std::ofstream(dir / "scene.toml")
      << "[[mesh]]\nname = \"model\"\nfile = \"" << model.filename().string()
      << "\"\n\n[[object]]\nname = \"it\"\nmesh = \"model\"\n";
  DiagnosticSink sink;
  const CookOutput out = cook_scene(dir / "scene.toml", sink);
  fs::remove_all(dir);
  EXPECT_FALSE(sink.has_errors()) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  return write_pack(out.pack);
}

std::vector<uint8_t> cook_demo() {
  DiagnosticSink sink;
  const CookOutput out = cook_scene(fs::path(ANIMPACK_SOURCE_DIR) / "assets/demo/scene.toml", sink);
  EXPECT_FALSE(sink.has_errors()) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  return write_pack(out.pack);
}

// One mutant of `base` (never empty). Raw rng() values only: <random>'s distributions
// differ between standard libraries, the engine does not.
std::vector<uint8_t> mutate(const std::vector<uint8_t>& base, std::mt19937_64& rng) {
  std::vector<uint8_t> m = base;
  const size_t n = m.size();
  auto at = [&] { return static_cast<size_t>(rng() % n); };
  static constexpr uint32_t kExtremes[] = {0,           1,           0xffffffffu, 0x7fffffffu,
                                           0x80000000u, 0xfffffffcu, 0x40000000u, 0x10000u,
                                           0xffffu,     4,           8,           0x7ffffff0u};
  switch (rng() % 7) {
    case 0: {  // 1 to 8 bit flips
      for (uint64_t k = 1 + rng() % 8; k > 0; --k)
        m[at()] ^= static_cast<uint8_t>(1u << (rng() % 8));
      break;
    }
    case 1: {  // 1 to 4 bytes set to 0x00, 0xff, 0x80 or a random value
      static constexpr uint8_t kBytes[] = {0x00, 0xff, 0x80, 0x7f};
      for (uint64_t k = 1 + rng() % 4; k > 0; --k) {
        m[at()] = rng() % 2 ? kBytes[rng() % 4] : static_cast<uint8_t>(rng());
      }
      break;
    }
    case 2:  // truncation
      m.resize(1 + at());
      break;
    case 3:
    case 4: {  // an aligned 32-bit field (offset, length, count, index) set to an extreme
      const size_t word = (at() & ~size_t{3}) + 4 <= n ? (at() & ~size_t{3}) : 0;
      uint32_t v = kExtremes[rng() % (sizeof kExtremes / sizeof kExtremes[0])];
      if (rng() % 4 == 0) v = static_cast<uint32_t>(n - word + rng() % 16);  // just past the end
      if (word + 4 <= n) std::memcpy(m.data() + word, &v, 4);
      break;
    }
    case 5: {  // an aligned 64-bit field (raw_size) set to an extreme
      const size_t word = at() & ~size_t{7};
      static constexpr uint64_t k64[] = {~uint64_t{0}, uint64_t{1} << 31, uint64_t{1} << 40,
                                         uint64_t{1} << 63, 0};
      if (word + 8 <= n) std::memcpy(m.data() + word, &k64[rng() % 5], 8);
      break;
    }
    default: {  // splice: a chunk of the pack copied over another place
      const size_t len = 1 + rng() % 64;
      const size_t from = at(), to = at();
      if (from + len <= n && to + len <= n) std::memmove(m.data() + to, m.data() + from, len);
      break;
    }
  }
  return m;
}

struct MutationCounts {
  int refused = 0;
  int played = 0;
};

MutationCounts run_mutants(const std::vector<uint8_t>& base, uint64_t seed, int count) {
  MutationCounts counts;
  std::mt19937_64 rng(seed);
  for (int i = 0; i < count; ++i) {
    const std::vector<uint8_t> mutant = mutate(base, rng);
    Result<Pack> pack = Pack::from_bytes(mutant);
    if (!pack) {
      EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack) << "mutant " << i;
      ++counts.refused;
      continue;
    }
    // Debug skinning is slow: every 16th mutant skins whole parts, the others 64 vertices
    // of each (all of every part is decoded and range-checked either way).
    (void)testing_support::play_like_a_game(*pack, 4, i % 16 == 0 ? 0 : 64);
    ++counts.played;
    // `animpack pose` on every 128th played mutant: an error, or JSON that parses (UTF-8).
    if (counts.played % 128 == 1 && !pack->objects().empty()) {
      const Result<std::string> pose = pose_json(*pack, pack->objects()[0].name, 3, 60);
      if (pose) {
        EXPECT_TRUE(nlohmann::json::accept(*pose)) << "mutant " << i;
      }
    }
  }
  return counts;
}

// 10,000 mutants a pack; under the sanitizers (CI's asan build) the first 2,500 of the
// same sequence, to keep CI in its time budget: the Release build runs all of them, and
// the fuzz_pack and fuzz_game targets mutate packs under ASan too.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kMutants = 2500;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int kMutants = 2500;
#else
constexpr int kMutants = 10000;
#endif
#else
constexpr int kMutants = 10000;
#endif

void check_pack(const std::vector<uint8_t>& base, uint64_t seed) {
  ASSERT_GT(base.size(), 1000u);
  {
    Result<Pack> pack = Pack::from_bytes(base);
    ASSERT_TRUE(pack) << pack.error().message();
    const testing_support::PlayStats stats = testing_support::play_like_a_game(*pack, 4);
    ASSERT_TRUE(stats.created);
  }
  const MutationCounts counts = run_mutants(base, seed, kMutants);
  EXPECT_EQ(counts.refused + counts.played, kMutants);
  // Both outcomes occur: mutants of blob bytes or floats play, most structural ones fail.
  EXPECT_GT(counts.refused, kMutants / 10);
  EXPECT_GT(counts.played, kMutants / 100);
}

TEST(PackMutation, TheDemoSceneIsRefusedOrPlaysAfterEveryCorruption) {
  check_pack(cook_demo(), 0xd3e0);
}

TEST(PackMutation, TheFoxIsRefusedOrPlaysAfterEveryCorruption) {
  check_pack(cook_model(fs::path(ANIMPACK_SOURCE_DIR) / "assets/demo/models/Fox.glb", "fox"),
             0xf0c5);
}

TEST(PackMutation, CesiumManIsRefusedOrPlaysAfterEveryCorruption) {
  check_pack(cook_model(fs::path(ANIMPACK_CORPUS_DIR) / "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
                        "cesium"),
             0xce51);
}

TEST(PackMutation, TheGraphFixtureIsRefusedOrPlaysAfterEveryCorruption) {
  check_pack(write_pack(fixture::make_graph_pack()), 0x9a3f);
}

// Version 4: mesh axes, root motion tracks and IK solvers (tests/player/motion_fixture.h).
TEST(PackMutation, TheMotionFixtureIsRefusedOrPlaysAfterEveryCorruption) {
  check_pack(write_pack(motion_fixture::make_cooked()), 0x4d07);
}

// The bytes [lo, hi) that hold the objects' graphs (their tables, vtables, vectors and
// strings): FlatBuffers builds children before parents, so a graph's parts lie between
// its table's vtable and the end of the last vector it reaches.
struct Span {
  size_t lo = SIZE_MAX, hi = 0;
  void add(const std::vector<uint8_t>& base, const void* p, size_t size) {
    const size_t at = static_cast<size_t>(static_cast<const uint8_t*>(p) - base.data());
    lo = std::min(lo, at);
    hi = std::max(hi, at + size);
  }
};

Span graph_bytes(const std::vector<uint8_t>& base) {
  namespace fb = animpack::schema;
  Span span;
  const fb::AssetPack* root = fb::GetAssetPack(base.data());
  auto table = [&](const void* t) {
    if (!t) return;
    const auto* at = static_cast<const uint8_t*>(t);
    int32_t back;
    std::memcpy(&back, at, 4);
    span.add(base, at, 4);
    span.add(base, at - back, 4);  // the vtable
  };
  auto vec = [&](const auto* v, size_t element) {
    if (v) span.add(base, v, 4 + v->size() * element);
  };
  for (const fb::Object* o : *root->objects()) {
    const fb::Graph* g = o->animation() ? o->animation()->graph() : nullptr;
    if (!g) continue;
    table(g);
    vec(g->parameters(), 4);
    vec(g->states(), 4);
    vec(g->transitions(), 4);
    vec(g->layers(), 4);
    if (g->parameters())
      for (const auto* p : *g->parameters()) table(p), vec(p->name(), 1);
    if (g->states())
      for (const auto* st : *g->states())
        table(st), vec(st->name(), 1), vec(st->points(), sizeof(fb::BlendPointf));
    if (g->transitions())
      for (const auto* t : *g->transitions())
        table(t), vec(t->conditions(), sizeof(fb::Conditionf));
    if (g->layers())
      for (const auto* l : *g->layers()) table(l), vec(l->mask(), 4);
  }
  return span;
}

// 10,000 mutants of the bytes of `base`'s graphs only (span above).
void check_graph_bytes(const std::vector<uint8_t>& base, uint64_t seed) {
  const Span span = graph_bytes(base);
  ASSERT_LT(span.lo, span.hi);
  ASSERT_LE(span.hi, base.size());
  ASSERT_GT(span.hi - span.lo, 200u);
  std::mt19937_64 rng(seed);
  MutationCounts counts;
  static constexpr uint32_t kExtremes[] = {0,
                                           1,
                                           2,
                                           3,
                                           4,
                                           5,
                                           0xffffffffu,
                                           0x7fffffffu,
                                           0x80000000u,
                                           0x7fc00000u /* NaN */,
                                           0x7f800000u /* inf */,
                                           0xffffu,
                                           64,
                                           256};
  for (int i = 0; i < kMutants; ++i) {
    std::vector<uint8_t> m = base;
    const size_t n = span.hi - span.lo;
    auto at = [&] { return span.lo + static_cast<size_t>(rng() % n); };
    switch (rng() % 3) {
      case 0:
        for (uint64_t k = 1 + rng() % 4; k > 0; --k)
          m[at()] ^= static_cast<uint8_t>(1u << (rng() % 8));
        break;
      case 1:
        m[at()] = static_cast<uint8_t>(rng());
        break;
      default: {  // an aligned 32-bit field: an index, a count, an offset, a float
        const size_t word = at() & ~size_t{3};
        const uint32_t v = kExtremes[rng() % (sizeof kExtremes / sizeof kExtremes[0])];
        if (word + 4 <= m.size()) std::memcpy(m.data() + word, &v, 4);
        break;
      }
    }
    Result<Pack> pack = Pack::from_bytes(m);
    if (!pack) {
      EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack) << "mutant " << i;
      ++counts.refused;
      continue;
    }
    (void)testing_support::play_like_a_game(*pack, 4, 64);
    ++counts.played;
  }
  EXPECT_GT(counts.refused, kMutants / 10);
  EXPECT_GT(counts.played, kMutants / 100);
  testing::Test::RecordProperty("refused", counts.refused);
}

TEST(PackMutation, CorruptingTheGraphFixturesStateMachinesIsRefusedOrPlays) {
  check_graph_bytes(write_pack(fixture::make_graph_pack()), 0x6a7f);
}

// The worked example (assets/character/scene.toml: a blend space, a jump, a masked wave
// and an additive breathing layer), cooked here: corrupted anywhere, and in its graphs.
std::vector<uint8_t> cook_character() {
  DiagnosticSink sink;
  const CookOutput out =
      cook_scene(fs::path(ANIMPACK_SOURCE_DIR) / "assets/character/scene.toml", sink);
  EXPECT_FALSE(sink.has_errors()) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  return write_pack(out.pack);
}

TEST(PackMutation, TheWorkedExampleIsRefusedOrPlaysAfterEveryCorruption) {
  const std::vector<uint8_t> base = cook_character();
  check_pack(base, 0xc4a7);
  check_graph_bytes(base, 0xc4a8);
}

}  // namespace
}  // namespace animpack
