// Placed sprite frames on cards (Step 7): a trimmed frame, a rotated one and one with an
// off-centre pivot (fixtures/placed_sprite_fixture.h) drawn by gl/ and traced, each pixel
// against the placement (the card stands for the source box, the stored pixels cover
// the trimmed box only, a rotated frame turned back, the pivot at the object's origin),
// and the GL frame against the traced one. ANIMPACK_TEST_PNG_DIR=dir writes the frames.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/tracer/image.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"
#include "fixtures/placed_sprite_fixture.h"
#include "gl_test_support.h"

namespace animpack::gl {
namespace {

using testing::front_ortho;
using testing::GlTest;

// 24 x 24 pixels of a view 1.5 units high centred on the origin: 16 pixels a card unit.
constexpr int kSize = 24;

class GlPlacedSprites : public GlTest {
 protected:
  void SetUp() override {
    GlTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    bytes = write_pack(fixture::make_placed_sprite_pack());
    auto p = Pack::from_bytes(bytes);
    ASSERT_TRUE(p) << p.error().message();
    pack.emplace(std::move(*p));
    auto s = SceneRenderer::create(&*renderer, &*pack);
    ASSERT_TRUE(s) << s.error().message();
    scene.emplace(std::move(*s));
  }
  void TearDown() override {
    scene.reset();
    GlTest::TearDown();
  }

  // Draws and traces the card showing `frame` and checks every pixel of both against the
  // placement, and the two frames against each other; returns the GL colours.
  std::vector<uint8_t> expect_placed(uint32_t frame) {
    Posed posed;
    PosedObject o;
    o.object = 0;
    o.sprite_sheet = 0;
    o.sprite_frame = frame;
    posed.objects.push_back(o);
    const Camera camera = front_ortho({0, 0, 0}, 1.5f);
    View view{camera, {}, kSize, kSize};
    EXPECT_TRUE(scene->draw(posed, view));
    auto color = renderer->read_color();
    auto ids = renderer->read_ids();
    EXPECT_TRUE(color && ids);
    if (!color || !ids) return {};
    auto staged = trace::stage_posed(*pack, posed);
    EXPECT_TRUE(staged) << staged.error().message();
    if (!staged) return {};
    trace::RenderOptions options;
    options.width = options.height = kSize;
    options.camera = camera;
    options.shadows = false;
    options.samples = 1;
    options.threads = 2;
    auto traced = trace::render(*staged, options);
    EXPECT_TRUE(traced) << traced.error().message();
    if (!traced) return {};
    int mismatches = 0;
    auto fail = [&](int x, int y, const char* what) {
      if (++mismatches <= 5) {
        ADD_FAILURE() << "frame " << frame << " pixel " << x << "," << y << ": " << what;
      }
    };
    for (int y = 0; y < kSize; ++y) {
      for (int x = 0; x < kSize; ++x) {
        const size_t i = static_cast<size_t>(y * kSize + x);
        uint8_t want[4];
        const bool on = fixture::placed_sprite_texel(frame, (x + 0.5 - 12.0) / 16.0,
                                                     (12.0 - (y + 0.5)) / 16.0, want);
        const uint8_t* got = &color->rgba[i * 4];
        const trace::Rgba t = traced->color.at(x, y);
        if (on) {
          if ((*ids)[i] != SceneRenderer::object_id(0)) fail(x, y, "GL: no card id");
          if (traced->ids[i] != trace::object_id(0)) fail(x, y, "traced: no card id");
          if (got[0] != want[0] || got[1] != want[1] || got[2] != want[2]) {
            fail(x, y, "GL: not the placed frame's texel");
          }
          if (t.r != want[0] || t.g != want[1] || t.b != want[2]) {
            fail(x, y, "traced: not the placed frame's texel");
          }
        } else {
          if ((*ids)[i] != kNoId) fail(x, y, "GL: an id outside the trimmed box");
          if (got[0] != 24 || got[1] != 26 || got[2] != 32) fail(x, y, "GL: not the background");
          if (traced->ids[i] != trace::kNoObject) fail(x, y, "traced: an id outside the box");
        }
      }
    }
    EXPECT_EQ(mismatches, 0);
    if (const char* dir = std::getenv("ANIMPACK_TEST_PNG_DIR"); dir != nullptr && *dir != 0) {
      trace::Image gl_image;
      gl_image.width = gl_image.height = kSize;
      gl_image.rgba = color->rgba;
      const std::string base = std::string(dir) + "/placed_frame" + std::to_string(frame);
      (void)trace::write_png(gl_image, base + "_gl.png");
      (void)trace::write_png(traced->color, base + "_traced.png");
    }
    return color->rgba;
  }

  // The GL colour of pixel (x, y) of `rgba`.
  static std::vector<int> at(const std::vector<uint8_t>& rgba, int x, int y) {
    const size_t i = static_cast<size_t>(y * kSize + x) * 4;
    return {rgba[i], rgba[i + 1], rgba[i + 2]};
  }

  std::vector<uint8_t> bytes;
  std::optional<Pack> pack;
  std::optional<SceneRenderer> scene;
};

TEST_F(GlPlacedSprites, ATrimmedFrameCoversOnlyItsTrimmedBoxOfTheSourceCard) {
  if (IsSkipped() || HasFatalFailure()) return;
  const std::vector<uint8_t> c = expect_placed(0);
  if (c.empty()) return;
  // Source 8 x 8 about the origin: screen 4..19; trimmed {1, 2, 4, 6}: x 6..13, y 8..19.
  EXPECT_EQ(at(c, 6, 8), (std::vector<int>{20, 20, 60}));      // drawn (0, 0)
  EXPECT_EQ(at(c, 13, 19), (std::vector<int>{140, 170, 60}));  // drawn (3, 5)
  EXPECT_EQ(at(c, 5, 10), (std::vector<int>{24, 26, 32}));     // left of the box: background
  EXPECT_EQ(at(c, 10, 6), (std::vector<int>{24, 26, 32}));     // above it
}

TEST_F(GlPlacedSprites, ARotatedFrameIsSampledTurnedBack) {
  if (IsSkipped() || HasFatalFailure()) return;
  const std::vector<uint8_t> c = expect_placed(1);
  if (c.empty()) return;
  // Trimmed {2, 1, 4, 6} of the 8 x 8 source: x 8..15, y 6..17. The drawn top-left corner
  // is stored at the stored rect's top-right, the drawn bottom-right at its bottom-left.
  EXPECT_EQ(at(c, 8, 6), (std::vector<int>{20, 20, 120}));
  EXPECT_EQ(at(c, 15, 6), (std::vector<int>{140, 20, 120}));
  EXPECT_EQ(at(c, 8, 17), (std::vector<int>{20, 170, 120}));
  EXPECT_EQ(at(c, 15, 17), (std::vector<int>{140, 170, 120}));
}

TEST_F(GlPlacedSprites, AnOffCentrePivotSitsAtTheObjectsOrigin) {
  if (IsSkipped() || HasFatalFailure()) return;
  const std::vector<uint8_t> c = expect_placed(2);
  if (c.empty()) return;
  // Source 4 x 4 (4 screen pixels a source pixel), pivot (1, 3) at the centre (12, 12):
  // the card spans x 8..23, y 0..15.
  EXPECT_EQ(at(c, 8, 0), (std::vector<int>{20, 20, 180}));
  EXPECT_EQ(at(c, 12, 12), (std::vector<int>{60, 110, 180}));  // drawn (1, 3): the pivot
  EXPECT_EQ(at(c, 7, 8), (std::vector<int>{24, 26, 32}));
  EXPECT_EQ(at(c, 12, 16), (std::vector<int>{24, 26, 32}));
}

}  // namespace
}  // namespace animpack::gl
