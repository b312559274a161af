// The debug line batch (Renderer::set_lines): depth-tested segments hidden behind a
// surface and shown beside it, on_top segments over it, the colour target alone written
// (ids untouched), and refusals that keep the lines set before.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "animpack/gl/renderer.h"
#include "gl_test_support.h"

namespace animpack::gl {
namespace {

using testing::front_ortho;
using testing::GlTest;

constexpr uint32_t kSize = 64;  // pixels; the view is 4 world units high: 16 pixels a unit

// The world y of pixel row `row`'s centre (rows top first).
float row_y(int row) { return 2.0f - (static_cast<float>(row) + 0.5f) / 16.0f; }

class GlLines : public GlTest {
 protected:
  void SetUp() override {
    GlTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // A green 2 x 2 square at z = 0, facing the camera (+z).
    const Vec3 positions[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    auto mesh = renderer->upload_mesh({positions, {}, {}, {}, indices});
    ASSERT_TRUE(mesh) << mesh.error().message();
    InstanceDesc desc;
    desc.mesh = *mesh;
    desc.color = {0.1f, 0.8f, 0.2f, 1.0f};
    desc.id = 7;
    ASSERT_TRUE(renderer->create_instance(desc));
  }

  // Renders and returns the colour image (and the ids in *out_ids).
  Image render(std::vector<uint32_t>* out_ids = nullptr) {
    View view{front_ortho({0, 0, 0}, 4.0f), {}, kSize, kSize};
    EXPECT_TRUE(renderer->render(view));
    auto color = renderer->read_color();
    EXPECT_TRUE(color);
    if (out_ids != nullptr) {
      auto ids = renderer->read_ids();
      EXPECT_TRUE(ids);
      if (ids) *out_ids = *ids;
    }
    return color ? *color : Image{};
  }

  static std::array<int, 3> pixel(const Image& image, int x, int y) {
    const uint8_t* p = &image.rgba[(static_cast<size_t>(y) * image.width + x) * 4];
    return {p[0], p[1], p[2]};
  }
};

TEST_F(GlLines, DepthTestedLinesHideBehindSurfacesAndOnTopLinesDoNot) {
  const Image before = render();
  ASSERT_EQ(before.width, kSize);
  // Red behind the square (z = -1), tested; blue behind it too, but on top.
  const DebugLine lines[2] = {{{-1.9f, row_y(20), -1}, {1.9f, row_y(20), -1}, {1, 0, 0, 1}, false},
                              {{-1.9f, row_y(44), -1}, {1.9f, row_y(44), -1}, {0, 0, 1, 1}, true}};
  ASSERT_TRUE(renderer->set_lines(lines));
  std::vector<uint32_t> ids;
  const Image after = render(&ids);
  ASSERT_EQ(after.width, kSize);
  const std::array<int, 3> red{255, 0, 0}, blue{0, 0, 255};
  // Beside the square (x < 16 px is world x < -1): both lines show.
  EXPECT_EQ(pixel(after, 6, 20), red);
  EXPECT_EQ(pixel(after, 6, 44), blue);
  // Over the square: the tested red line is hidden (the square's pixel as before), the
  // on-top blue one shows.
  EXPECT_EQ(pixel(after, 32, 20), pixel(before, 32, 20));
  EXPECT_NE(pixel(before, 32, 20), red);
  EXPECT_EQ(pixel(after, 32, 44), blue);
  // Only the colour target is written: the ids are the square's or nothing.
  EXPECT_EQ(ids[20 * kSize + 6], kNoId);
  EXPECT_EQ(ids[44 * kSize + 32], 7u);
  // A row with no line is untouched.
  EXPECT_EQ(pixel(after, 6, 30), pixel(before, 6, 30));
}

TEST_F(GlLines, HalfTransparentLinesBlendOverTheFrame) {
  const DebugLine line{{-1.9f, row_y(20), 1}, {1.9f, row_y(20), 1}, {1, 1, 1, 0.5f}, false};
  ASSERT_TRUE(renderer->set_lines({&line, 1}));
  const Image image = render();
  ASSERT_EQ(image.width, kSize);
  const std::array<int, 3> got = pixel(image, 6, 20);
  // Half white over the dark clear colour, in linear light: between the two, not white.
  EXPECT_GT(got[0], 150);
  EXPECT_LT(got[0], 255);
}

TEST_F(GlLines, EmptyLinesDrawNothing) {
  const Image before = render();
  const DebugLine line{{-1.9f, row_y(20), 1}, {1.9f, row_y(20), 1}, {1, 0, 0, 1}, false};
  ASSERT_TRUE(renderer->set_lines({&line, 1}));
  ASSERT_TRUE(renderer->set_lines({}));
  const Image after = render();
  EXPECT_EQ(after.rgba, before.rgba);
}

TEST_F(GlLines, RefusesNonFiniteLinesAndKeepsTheOnesBefore) {
  const DebugLine good{{-1.9f, row_y(20), 1}, {1.9f, row_y(20), 1}, {1, 0, 0, 1}, false};
  ASSERT_TRUE(renderer->set_lines({&good, 1}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  DebugLine bad = good;
  bad.to.y = nan;
  auto r = renderer->set_lines({&bad, 1});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  bad = good;
  bad.color.w = std::numeric_limits<float>::infinity();
  r = renderer->set_lines({&bad, 1});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  const Image image = render();
  EXPECT_EQ(pixel(image, 6, 20), (std::array<int, 3>{255, 0, 0}));
}

TEST_F(GlLines, RefusesMoreThanTheMostLines) {
  std::vector<DebugLine> lines(size_t{kMaxDebugLines} + 1);
  auto r = renderer->set_lines(lines);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace animpack::gl
