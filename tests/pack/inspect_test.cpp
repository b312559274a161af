// `animpack inspect` on packs with hostile strings: control characters a pack may hold
// (valid UTF-8, so Pack::open keeps them) are printed escaped, never raw.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/schema/pack_generated.h"
#include "fixtures/cooked_fixture.h"
#include "fixtures/graph_fixture.h"
#include "fixtures/run_cli.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

TEST(Inspect, EscapesControlCharactersFromThePack) {
  CookedPack cooked;
  cooked.rigs.push_back(fixture::make_cooked_rig());
  cooked.meshes.push_back(fixture::make_cooked_column(0));
  cooked.meshes[0].name = "col\x1b[2Jumn";
  cooked.meshes[0].source_file = "a\rb.glb";
  CookedObject o;
  o.name =
      "evil\x07\x1b]0;title\x07\n\xc2\x9b"
      "31m\\";
  o.mesh = 0;
  cooked.objects.push_back(o);
  const fs::path file =
      fs::temp_directory_path() / ("animpack_inspect_" + std::to_string(::getpid()) + ".anpk");
  ASSERT_EQ(write_file_atomically(file, write_pack(cooked)), "");
  const fixture::CliRun r = fixture::run_cli(ANIMPACK_EXE, "inspect " + file.string());
  fs::remove(file);
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char raw : {'\x1b', '\x07', '\r'}) {
    EXPECT_EQ(r.output.find(raw), std::string::npos) << "raw byte " << int{raw} << ":\n"
                                                     << r.output;
  }
  EXPECT_EQ(r.output.find("\xc2\x9b"), std::string::npos) << "a raw C1 control";
  EXPECT_NE(r.output.find("col\\x1b[2Jumn (a\\x0db.glb)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("evil\\x07\\x1b]0;title\\x07\\x0a\\xc2\\x9b31m\\: mesh 0"),
            std::string::npos)
      << r.output;
}

TEST(Inspect, ListsStateMachinesLayersAndAdditiveClips) {
  const fs::path file = fs::temp_directory_path() /
                        ("animpack_inspect_graph_" + std::to_string(::getpid()) + ".anpk");
  ASSERT_EQ(write_file_atomically(file, write_pack(fixture::make_graph_pack())), "");
  const fixture::CliRun r = fixture::run_cli(ANIMPACK_EXE, "inspect " + file.string());
  fs::remove(file);
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* line : {
           "format 7",
           "clip [4] Breathe: 2 s, 3 channels, 9 keys, additive (first_frame)",
           "state machine: 5 parameters, 3 states, 3 transitions, 2 layers",
           "    parameter speed: float, default 0, range [0, 6]\n",
           "    parameter jump: trigger\n",
           "    parameter grounded: bool, default true\n",
           "    state [0] locomotion (start): blend on speed, Step at 0, Linear at 1.5, Cubic at "
           "4, "
           "speed 1, loop, start 0\n",
           "    state [1] jump: clip Rotate, speed 1, once, start 0\n",
           "    state [2] strafe: blend on speed x turn, Step at (0, -1), Linear at (0, 1), Cubic "
           "at "
           "(6, -1), Rotate at (6, 1), speed tired, ping_pong, start 0.25\n",
           "    transition [0] locomotion -> jump when trigger jump, fade 0.1\n",
           "    transition [1] jump -> locomotion when exit_time 0.95, fade 0.2\n",
           "    transition [2] * -> strafe when speed above 5 and grounded is true, fade 0\n",
           "    layer [0] override Linear, weight 1, mask 3 of 4 joints, speed 1, loop\n",
           "    layer [1] additive Breathe, weight tired, every joint, speed 0.5, ping_pong\n",
           "state machine: 0 parameters, 0 states, 0 transitions, 1 layers\n"
           "    layer [0] override Cubic, weight 0.5, mask 2 of 4 joints, speed 1, loop\n",
       }) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  }
}

// Format 7: a sheet's trimmed and rotated frames, and each timed clip's frames, length and
// direction (the committed sprites_v7.anpk golden).
TEST(Inspect, ListsTrimmedFramesAndTimedClips) {
  const fs::path golden = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/sprites_v7.anpk";
  const fixture::CliRun r = fixture::run_cli(ANIMPACK_EXE, "inspect " + golden.string());
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* line : {
           "format 7",
           "    trimmed frames: 2, rotated: 1\n",
           "    clip idle: 2 frames at ",
           "      timed (2 frames, 350 ms)\n",
           "      timed (3 frames, 201 ms), reverse\n",
       }) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  }
  size_t timed = 0;  // the fps clip "legacy" has no timed line
  for (size_t at = r.output.find("      timed ("); at != std::string::npos;
       at = r.output.find("      timed (", at + 1))
    ++timed;
  EXPECT_EQ(timed, 2u) << r.output;
}

// Format 6: each clip's key storage, exact or lossy with its tolerance and error, and the
// bytes its keys take (the committed clips_v6.anpk golden).
TEST(Inspect, ListsEachClipsKeyStorage) {
  const fs::path golden = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/clips_v6.anpk";
  const fixture::CliRun r = fixture::run_cli(ANIMPACK_EXE, "inspect " + golden.string());
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* line : {
           "format 6",
           "    clip [1] Mixed: 1 s, 7 channels, 147 keys, 1 weights channels, exact, ",
           "    clip [2] MixedLossy: 1 s, 7 channels, 147 keys, 1 weights channels, lossy "
           "(tolerance 0.001 m at 0.1 m, max error 0.0004 m), ",
       }) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  }
  EXPECT_NE(r.output.find(" key bytes\n"), std::string::npos) << r.output;
}

// Format 5: morph sets with their targets, parts with eight influences and morph targets,
// weights channels, and the bytes saved by storing identical data once (the committed v5
// golden pack, whose weights and weights1 are the same bytes; and the fixture column named
// by two meshes, whose streams are stored once).
TEST(Inspect, ListsMorphSetsEightInfluencesAndSharedBytes) {
  const fs::path golden = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/morph_v5.anpk";
  const fixture::CliRun r = fixture::run_cli(ANIMPACK_EXE, "inspect " + golden.string());
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* line : {
           "format 5",
           "    1 parts with eight influences, 1 with morph targets\n",
           "    part [0]: 136 vertices, material -1, eight influences, morph set 0 (3 targets)\n",
           "  [0] skin rig: 4 joints, 6 clips, 2 morph sets (5 weights)\n",
           "    morph set [0] face: node 4, joint 1, 3 targets: blink (0), smile (0.25), frown "
           "(-0.5)\n",
           "    morph set [1] body: node 7, joint -1, 2 targets: breathe_in (0), breathe_out "
           "(-0)\n",
           "    clip [4] Blink: 1 s, 2 channels, 6 keys, 1 weights channels\n",
       }) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  }

  CookedPack cooked;
  cooked.rigs.push_back(fixture::make_cooked_rig());
  cooked.meshes.push_back(fixture::make_cooked_column(0));
  auto single = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(single) << single.error().message();
  cooked.meshes.push_back(fixture::make_cooked_column(0));
  const std::vector<uint8_t> bytes = write_pack(cooked);
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  // What the rig alone shares (format 6: its clips' key times are progressions, 16 bytes
  // and no vector, so little or nothing), then one copy of each of the column's blobs
  // (positions, normals, tangents, joints, weights, indices, source vertices) and of its
  // two strings.
  uint64_t want = single->shared_bytes();
  const auto* root = schema::GetAssetPack(bytes.data());
  const auto* part = root->meshes()->Get(1)->parts()->Get(0);
  for (const schema::Blob* b :
       {part->positions(), part->normals(), part->tangents(), part->joints(), part->weights(),
        part->indices(), part->source_vertices()})
    want += b->data()->size() + 4;
  want += (6 + 5) + (10 + 5);  // "column", "column.glb"
  EXPECT_EQ(pack->shared_bytes(), want);
  const fs::path file = fs::temp_directory_path() /
                        ("animpack_inspect_shared_" + std::to_string(::getpid()) + ".anpk");
  ASSERT_EQ(write_file_atomically(file, bytes), "");
  const fixture::CliRun twice = fixture::run_cli(ANIMPACK_EXE, "inspect " + file.string());
  fs::remove(file);
  ASSERT_EQ(twice.status, 0) << twice.output;
  const std::string line =
      "shared: " + std::to_string(want) + " bytes saved by storing identical data once\n";
  EXPECT_NE(twice.output.find(line), std::string::npos) << line << twice.output;
}

}  // namespace
}  // namespace animpack
