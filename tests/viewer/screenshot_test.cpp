// The viewer's headless screenshot: the demo pack cooked by the animpack command, drawn
// by `viewer --screenshot` at tick 30, 960 x 540; the PNG shows the panels (their
// background colour over most of the side panels) and the characters in the 3D view
// (coloured pixels apart from its clear colour and the grey grid), and is not one colour.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "fixtures/sample_run.h"

namespace {

constexpr int kWidth = 960, kHeight = 540;
// The layout of samples/viewer/main.cpp at 960 x 540: side panels 230 px wide (24%), the
// timeline 88 px high between them, the 3D view above it.
constexpr int kSide = 230, kTimeline = 88;

using animpack::test::gl_disabled;
using animpack::test::Png;
using animpack::test::read_png;

// Runs a command, its output into ANIMPACK_TEST_OUT/<the running test's name>.log.
int run(const std::string& command) {
  return animpack::test::run_to_log(
      command, std::string(ANIMPACK_TEST_OUT "/") +
                   ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".log");
}

bool near(const uint8_t* p, int r, int g, int b, int tolerance) {
  return std::abs(p[0] - r) <= tolerance && std::abs(p[1] - g) <= tolerance &&
         std::abs(p[2] - b) <= tolerance;
}

// The share of pixels in [x0, x1) x [y0, y1) that `test` accepts.
template <typename F>
double share(const Png& png, int x0, int y0, int x1, int y1, F test) {
  long hits = 0, all = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x, ++all) hits += test(png.at(x, y)) ? 1 : 0;
  }
  return all == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(all);
}

TEST(ViewerScreenshot, ShowsThePanelsAndTheCharacters) {
  if (gl_disabled()) GTEST_SKIP() << "ANIMPACK_NO_GL=1";
  const std::string pack = ANIMPACK_TEST_OUT "/viewer_demo.anpk";
  const std::string shot = ANIMPACK_TEST_OUT "/viewer_demo_tick30.png";
  std::filesystem::remove(shot);
  ASSERT_EQ(run(std::string(ANIMPACK_COOKER) + " cook " ANIMPACK_DEMO_SCENE " -o " + pack), 0)
      << "see its log in " ANIMPACK_TEST_OUT;
  ASSERT_EQ(run(std::string(ANIMPACK_VIEWER) + " " + pack + " --screenshot " + shot +
                " --tick 30 --size 960x540"),
            0)
      << "see its log in " ANIMPACK_TEST_OUT;
  const Png png = read_png(shot);
  ASSERT_EQ(png.width, kWidth);
  ASSERT_EQ(png.height, kHeight);

  // The panels' background (kPanelColor, 0.13 0.14 0.17) over most of both side panels
  // and the timeline; text, lists and widgets take the rest; light text on the left.
  const auto panel = [](const uint8_t* p) { return near(p, 33, 36, 43, 2); };
  const double left = share(png, 4, 4, kSide - 4, kHeight - 4, panel);
  const double right = share(png, kWidth - kSide + 4, 4, kWidth - 4, kHeight - 4, panel);
  const double timeline =
      share(png, kSide + 4, kHeight - kTimeline + 4, kWidth - kSide - 4, kHeight - 4, panel);
  const double text = share(png, 4, 4, kSide - 4, kHeight - 4, [](const uint8_t* p) {
    return p[0] > 180 && p[1] > 180 && p[2] > 180;
  });
  // The 3D view: mostly its clear colour (0.26 0.28 0.32), not the panels'; and in its
  // middle the characters: coloured pixels (the foxes' orange, the sprite's clothes), not
  // the clear colour nor the grey grid.
  const int vx0 = kSide + 4, vx1 = kWidth - kSide - 4, vy1 = kHeight - kTimeline - 4;
  const double view_panel = share(png, vx0, 4, vx1, vy1, panel);
  const double view_clear =
      share(png, vx0, 4, vx1, vy1, [](const uint8_t* p) { return near(p, 66, 71, 82, 2); });
  const auto coloured = [](const uint8_t* p) {
    const int hi = std::max({p[0], p[1], p[2]}), lo = std::min({p[0], p[1], p[2]});
    return hi - lo > 40 && !near(p, 66, 71, 82, 24);
  };
  const int cx = kWidth / 2, cy = (kHeight - kTimeline) / 2;
  const double characters = share(png, cx - 200, cy - 150, cx + 200, cy + 150, coloured);
  std::printf(
      "panel background: left %.3f right %.3f timeline %.3f, text %.4f; view: panel %.3f "
      "clear %.3f, characters %.3f\n",
      left, right, timeline, text, view_panel, view_clear, characters);
  EXPECT_GT(left, 0.5);
  EXPECT_GT(right, 0.5);
  EXPECT_GT(timeline, 0.3);
  EXPECT_GT(text, 0.003);
  EXPECT_LT(view_panel, 0.05);
  EXPECT_GT(view_clear, 0.3);
  EXPECT_GT(characters, 0.03);

  // Not one colour: many distinct colours over the image.
  std::set<uint32_t> colours;
  for (size_t i = 0; i + 2 < png.rgb.size(); i += 3 * 7) {
    colours.insert(uint32_t{png.rgb[i]} << 16 | uint32_t{png.rgb[i + 1]} << 8 | png.rgb[i + 2]);
  }
  EXPECT_GT(colours.size(), 100u);
}

TEST(ViewerCommandLine, RefusesABadSizeWithUsageStatus) {
  EXPECT_EQ(run(std::string(ANIMPACK_VIEWER) + " nothing.anpk --size 0x10"), 2);
  EXPECT_EQ(run(std::string(ANIMPACK_VIEWER) + " nothing.anpk --bogus"), 2);
  EXPECT_EQ(run(std::string(ANIMPACK_VIEWER)), 2);
}

}  // namespace
