// `animpack inspect` on packs with hostile strings: control characters a pack may hold
// (valid UTF-8, so Pack::open keeps them) are printed escaped, never raw.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "animpack/compiler/pack_writer.h"
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
           "format 4",
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

}  // namespace
}  // namespace animpack
