// The pack report (pack_report.h): its text is what `animpack inspect` prints, followed by
// the sizes block; the sizes add up to the file and agree with what the pack's tables
// hold; the JSON parses and carries the same content.
#include "animpack/compiler/pack_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "fixtures/cooked_fixture.h"
#include "fixtures/graph_fixture.h"
#include "fixtures/run_cli.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kGoldenPacks[] = {"fixture_v1.anpk", "textured_v2.anpk",    "character_v3.anpk",
                                    "graph_v3.anpk",   "fox_v4.anpk",         "morph_v5.anpk",
                                    "clips_v6.anpk",   "scene_player_v1.anpk"};

std::string golden(const char* name) {
  return (fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs" / name).string();
}

uint64_t sum(const PackSizes& s) {
  return s.clip_keys.bytes + s.vertex_streams.bytes + s.index_streams.bytes + s.textures.bytes +
         s.atlas_pixels.bytes + s.strings.bytes + s.other;
}

// Before the command line calls the library, `animpack inspect` prints what the library's
// text has up to its sizes block; once it does, the two are the same.
TEST(PackReport, TextIsWhatInspectPrintsThenTheSizes) {
  for (const char* name : kGoldenPacks) {
    const std::string file = golden(name);
    Result<Pack> pack = Pack::open(file);
    ASSERT_TRUE(pack) << name << ": " << pack.error().message();
    const std::string text = pack_report_text(*pack, file);
    const fixture::CliRun r = fixture::run_cli(ANIMPACK_EXE, "inspect " + file + " 2>/dev/null");
    ASSERT_EQ(r.status, 0) << name;
    ASSERT_LE(r.output.size(), text.size()) << name;
    EXPECT_EQ(text.substr(0, r.output.size()), r.output) << name;
    const std::string rest = text.substr(r.output.size());
    EXPECT_TRUE(rest.empty() || rest.rfind("sizes: ", 0) == 0) << name << ":\n" << rest;
    EXPECT_NE(text.find("sizes: " + std::to_string(pack->bytes().size()) + " bytes\n"),
              std::string::npos)
        << text;
  }
}

TEST(PackReport, SizesAddUpToTheFile) {
  for (const char* name : kGoldenPacks) {
    Result<Pack> pack = Pack::open(golden(name));
    ASSERT_TRUE(pack) << name;
    const PackSizes s = measure_pack(*pack);
    EXPECT_EQ(s.total, pack->bytes().size()) << name;
    EXPECT_EQ(sum(s), s.total) << name;
    EXPECT_GT(s.other, 0u) << name;
    EXPECT_GT(s.strings.bytes, 0u) << name;
    uint64_t vertex = 0, index = 0;
    for (const PackCodecSection& c : s.vertex_codecs) vertex += c.section.bytes;
    for (const PackCodecSection& c : s.index_codecs) index += c.section.bytes;
    EXPECT_EQ(vertex, s.vertex_streams.bytes) << name;
    EXPECT_EQ(index, s.index_streams.bytes) << name;
  }
}

// The Fox pack (format 4: nothing stored once for several tables) against its own tables:
// index blobs decode to 4 bytes an index, texture blobs to 4 bytes a pixel, and clip keys
// are float arrays (each with its 4-byte length).
TEST(PackReport, SizesAgreeWithWhatTheFoxPackHolds) {
  Result<Pack> pack = Pack::open(golden("fox_v4.anpk"));
  ASSERT_TRUE(pack);
  const PackSizes s = measure_pack(*pack);
  uint64_t indices = 0, pixels = 0, keys = 0, arrays = 0;
  for (const PartInfo& p : pack->parts()) indices += uint64_t{p.index_count} * 4;
  for (const TextureInfo& t : pack->textures()) pixels += uint64_t{t.width} * t.height * 4;
  for (int r = 0; r < pack->rig_count(); ++r) {
    for (const Clip& c : pack->rig(r).clips()) {
      for (const Channel& ch : c.channels()) {
        keys += (ch.times.size() + ch.values.size()) * 4 + 8;
        arrays += 2;
      }
    }
  }
  EXPECT_EQ(s.index_streams.raw, indices);
  EXPECT_EQ(s.textures.raw, pixels);
  EXPECT_GT(s.textures.bytes, 0u);
  EXPECT_EQ(s.clip_keys.bytes, keys);
  EXPECT_EQ(s.clip_keys.count, arrays);
  EXPECT_GT(s.vertex_streams.raw, s.index_streams.raw);
  EXPECT_EQ(s.atlas_pixels.count, 0u);
}

// A sprite sheet's pixels are the atlas section: width x height x 4 decoded bytes.
TEST(PackReport, SpriteSheetPixelsAreTheAtlasSection) {
  Result<Pack> pack = Pack::open(golden("fixture_v1.anpk"));
  ASSERT_TRUE(pack);
  ASSERT_FALSE(pack->sprite_sheets().empty());
  uint64_t pixels = 0;
  for (const SpriteSheet& sh : pack->sprite_sheets())
    pixels += uint64_t{sh.atlas().size().width} * sh.atlas().size().height * 4;
  const PackSizes s = measure_pack(*pack);
  EXPECT_EQ(s.atlas_pixels.raw, pixels);
  EXPECT_EQ(s.textures.count, 0u);
}

// Data the writer stores once (format 5 and later) is counted once: the sizes still add up
// when two meshes share their parts' streams.
TEST(PackReport, SharedDataIsCountedOnce) {
  CookedPack cooked;
  cooked.rigs.push_back(fixture::make_cooked_rig());
  cooked.meshes.push_back(fixture::make_cooked_column(0));
  cooked.meshes.push_back(fixture::make_cooked_column(0));
  cooked.meshes[1].name = "second";
  Result<Pack> pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  ASSERT_GT(pack->shared_bytes(), 0u);
  const PackSizes s = measure_pack(*pack);
  EXPECT_EQ(sum(s), s.total);
  uint64_t vertices = 0;
  for (int p = 0; p < pack->meshes()[0].part_count; ++p)
    vertices += pack->parts()[static_cast<size_t>(p)].vertex_count;
  // One mesh's positions at least, but not both meshes' streams twice.
  EXPECT_GE(s.vertex_streams.raw, vertices * 12);
  CookedPack one;
  one.rigs.push_back(fixture::make_cooked_rig());
  one.meshes.push_back(fixture::make_cooked_column(0));
  Result<Pack> single = Pack::from_bytes(write_pack(one));
  ASSERT_TRUE(single);
  EXPECT_EQ(s.vertex_streams.raw, measure_pack(*single).vertex_streams.raw);
}

TEST(PackReport, JsonParsesAndCarriesTheSameContent) {
  for (const char* name : kGoldenPacks) {
    const std::string file = golden(name);
    Result<Pack> pack = Pack::open(file);
    ASSERT_TRUE(pack) << name;
    const json j = json::parse(pack_report_json(*pack, file));
    for (const char* key : {"file", "format", "bytes", "shared_bytes", "meshes", "materials",
                            "textures", "rigs", "sprite_sheets", "objects", "sizes"})
      EXPECT_TRUE(j.contains(key)) << name << ": " << key;
    EXPECT_EQ(j["file"], file);
    EXPECT_EQ(j["format"], pack->format_version());
    EXPECT_EQ(j["bytes"], pack->bytes().size());
    ASSERT_EQ(j["meshes"].size(), pack->meshes().size()) << name;
    for (size_t m = 0; m < pack->meshes().size(); ++m) {
      EXPECT_EQ(j["meshes"][m]["name"], std::string(pack->meshes()[m].name));
      EXPECT_EQ(j["meshes"][m]["parts"].size(), static_cast<size_t>(pack->meshes()[m].part_count));
    }
    ASSERT_EQ(j["rigs"].size(), static_cast<size_t>(pack->rig_count())) << name;
    for (int r = 0; r < pack->rig_count(); ++r) {
      const json& rig = j["rigs"][static_cast<size_t>(r)];
      EXPECT_EQ(rig["joint_count"], pack->rig(r).skeleton().joint_count());
      ASSERT_EQ(rig["clips"].size(), pack->rig(r).clips().size());
      for (size_t c = 0; c < rig["clips"].size(); ++c)
        EXPECT_EQ(rig["clips"][c]["name"], std::string(pack->rig(r).clips()[c].name()));
    }
    EXPECT_EQ(j["sprite_sheets"].size(), pack->sprite_sheets().size());
    ASSERT_EQ(j["objects"].size(), pack->objects().size());
    const PackSizes s = measure_pack(*pack);
    const json& sizes = j["sizes"];
    EXPECT_EQ(sizes["total"], s.total);
    EXPECT_EQ(sizes["clip_keys"]["bytes"], s.clip_keys.bytes);
    EXPECT_EQ(sizes["vertex_streams"]["bytes"], s.vertex_streams.bytes);
    EXPECT_EQ(sizes["vertex_streams"]["codecs"].size(), s.vertex_codecs.size());
    EXPECT_EQ(sizes["index_streams"]["decoded"], s.index_streams.raw);
    EXPECT_EQ(sizes["textures"]["bytes"], s.textures.bytes);
    EXPECT_EQ(sizes["atlas_pixels"]["bytes"], s.atlas_pixels.bytes);
    EXPECT_EQ(sizes["strings"]["count"], s.strings.count);
    EXPECT_EQ(sizes["other"], s.other);
  }
}

TEST(PackReport, JsonHasStateMachinesRootMotionAndIk) {
  Result<Pack> graph = Pack::from_bytes(write_pack(fixture::make_graph_pack()));
  ASSERT_TRUE(graph);
  const json g = json::parse(pack_report_json(*graph, "graph"));
  bool machine = false;
  for (const json& o : g["objects"]) {
    if (!o.contains("animation") || o["animation"]["state_machine"].is_null()) continue;
    const json& sm = o["animation"]["state_machine"];
    if (sm["states"].empty()) continue;
    machine = true;
    EXPECT_EQ(sm["parameters"][0]["name"], "speed");
    EXPECT_EQ(sm["parameters"][0]["kind"], "float");
    EXPECT_EQ(sm["states"][0]["name"], "locomotion");
    EXPECT_EQ(sm["states"][0]["clip"], nullptr);
    EXPECT_EQ(sm["states"][0]["blend"]["x_parameter"], "speed");
    EXPECT_EQ(sm["transitions"][2]["from"], "*");
    EXPECT_EQ(sm["layers"][1]["mode"], "additive");
  }
  EXPECT_TRUE(machine);

  Result<Pack> fox = Pack::open(golden("fox_v4.anpk"));
  ASSERT_TRUE(fox);
  const json f = json::parse(pack_report_json(*fox, "fox"));
  bool root_motion = false, ik = false;
  for (const json& o : f["objects"]) {
    if (!o.contains("animation")) continue;
    if (!o["animation"]["root_motion"].is_null()) {
      root_motion = true;
      EXPECT_EQ(o["animation"]["root_motion"]["policy"], "accumulate");
      EXPECT_FALSE(o["animation"]["root_motion"]["clips"].empty());
    }
    for (const json& s : o["animation"]["ik"]) {
      ik = true;
      EXPECT_FALSE(s["joints"].empty());
    }
  }
  EXPECT_TRUE(root_motion);
  EXPECT_TRUE(ik);
}

// Names that are not UTF-8 do not break the JSON (nlohmann would throw on them).
TEST(PackReport, JsonReplacesBytesThatAreNotUtf8) {
  CookedPack cooked;
  cooked.rigs.push_back(fixture::make_cooked_rig());
  cooked.meshes.push_back(fixture::make_cooked_column(0));
  cooked.meshes[0].name = "col\x1bumn";
  Result<Pack> pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack);
  const json j = json::parse(pack_report_json(*pack, "bad\xff name"));
  EXPECT_EQ(j["meshes"][0]["name"], "col\x1bumn");
  EXPECT_EQ(j["file"], "bad\xef\xbf\xbd name");
}

}  // namespace
}  // namespace animpack
