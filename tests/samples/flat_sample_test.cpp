// samples/flat, run as a user runs it: the demo pack cooked by the animpack command, then
// `flat PACK --ticks 30 --every 10 -o DIR`: it prints the hero's "step" event as the
// walk clip enters its frame, writes flat_0000, flat_0010 and flat_0020.png at its default
// size, each showing the sky clear colour at the top, the hero in the middle, and the
// walk's frames changing between them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures/sample_run.h"

namespace {

using animpack::test::gl_disabled;
using animpack::test::Png;
using animpack::test::read_png;
using animpack::test::run_to_log;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(FlatSample, PlaysTheDemoHeroPrintingItsEventsToPngFrames) {
  if (gl_disabled()) GTEST_SKIP() << "ANIMPACK_NO_GL=1";
  const std::string dir = ANIMPACK_TEST_OUT "/flat_sample";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string pack = dir + "/demo.anpk";
  ASSERT_EQ(
      run_to_log(std::string(ANIMPACK_COOKER) + " cook " + ANIMPACK_DEMO_SCENE + " -o " + pack,
                 dir + "/cook.log"),
      0)
      << read_text(dir + "/cook.log");
  const std::string log = dir + "/flat.log";
  ASSERT_EQ(
      run_to_log(std::string(ANIMPACK_FLAT) + " " + pack + " --ticks 30 --every 10 -o " + dir, log),
      0)
      << read_text(log);
  // The walk clip (frames 36..43 at 12 fps, 60 ticks a second) enters its clip frame 2,
  // atlas frame 38, at tick 10.
  const std::string out = read_text(log);
  EXPECT_NE(out.find("tick 10: step (clip walk, atlas frame 38)"), std::string::npos) << out;
  std::vector<Png> frames;
  for (const char* name : {"flat_0000.png", "flat_0010.png", "flat_0020.png"}) {
    Png png = read_png(dir + "/" + name);
    ASSERT_EQ(png.width, 384) << name;  // 96 x 128 cells at 2x: twice as wide, 1.5 x high
    ASSERT_EQ(png.height, 384) << name;
    // The sky: the clear colour (0.55, 0.74, 0.86) stored as given.
    const uint8_t* sky = png.at(2, 2);
    EXPECT_EQ(sky[0], 140) << name;
    EXPECT_EQ(sky[1], 189) << name;
    EXPECT_EQ(sky[2], 219) << name;
    // The hero: most of the middle differs from the sky.
    int hero = 0;
    for (int y = 150; y < 290; ++y) {
      for (int x = 150; x < 234; ++x) {
        const uint8_t* p = png.at(x, y);
        hero += p[0] != sky[0] || p[1] != sky[1] || p[2] != sky[2];
      }
    }
    EXPECT_GT(hero, 140 * 84 / 2) << name;
    frames.push_back(std::move(png));
  }
  EXPECT_NE(frames[0].rgb, frames[1].rgb);
  EXPECT_NE(frames[1].rgb, frames[2].rgb);
}

}  // namespace
