// `animpack inspect` on packs with hostile strings: control characters a pack may hold
// (valid UTF-8, so Pack::open keeps them) are printed escaped, never raw.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "animpack/compiler/pack_writer.h"
#include "fixtures/cooked_fixture.h"
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

}  // namespace
}  // namespace animpack
