// The GL frame against the traced frame of the same textured, lit snapshot: one camera,
// one light, ambient 0.3, tracer shadows off and one ray a pixel (its centre, as GL
// rasterises). Colours are compared where both id buffers agree and the pixel is away
// from edges (its 8 neighbours carry its id in both buffers), per channel, in sRGB bytes:
// - the board pack (nearest-sampled checker, vertex colours, a material-less part, MASK
//   holes), magnified: every compared pixel within 2 of 255;
// - the cooked Fox (its 1024 x 1024 texture minified: GL filters its mipmaps
//   trilinearly, the tracer level 0 bilinearly, so borders between the texture's colour
//   regions differ): the mean difference within 3, 95% of the pixels within 12 (measured
//   on llvmpipe: 1.07 and 9; the board: 0.03 and 1, worst 1);
// - the morph pack (fixtures/morph_fixture.h: a column breathing by morph weights its clip
//   keys, and a column of eight-influence vertices waving), played by the ScenePlayer:
//   GL's vertex-stage morph and eight influences against the tracer's CPU skin(), the id
//   silhouettes agreeing but for a few edge pixels and colours within 2 of 255.
// ANIMPACK_TEST_PNG_DIR=dir writes each test's GL and traced frames and their difference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/gl/framing.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "animpack/tracer/image.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"
#include "corpus_pack.h"
#include "fixtures/morph_fixture.h"
#include "gl_test_support.h"
#include "test_pack.h"

namespace animpack::gl {
namespace {

using testing::GlTest;

struct Comparison {
  size_t compared = 0;
  double mean = 0;  // mean per-channel difference
  int p95 = 0;      // 95th percentile of the per-pixel largest channel difference
  int worst = 0;
};

class GlVersusTracerTextured : public GlTest {
 protected:
  void TearDown() override {
    scene.reset();
    GlTest::TearDown();
  }

  void load(std::vector<uint8_t> pack_bytes) {
    bytes = std::move(pack_bytes);
    auto p = Pack::from_bytes(bytes);
    ASSERT_TRUE(p) << p.error().message();
    pack.emplace(std::move(*p));
    auto s = SceneRenderer::create(&*renderer, &*pack);
    ASSERT_TRUE(s) << s.error().message();
    scene.emplace(std::move(*s));
  }

  // Both frames of `posed` seen by `camera`, compared away from edges.
  Comparison compare(const Posed& posed, const Camera& camera, int w, int h) {
    Comparison out;
    View view{camera, {}, static_cast<uint32_t>(w), static_cast<uint32_t>(h)};
    auto drawn = scene->draw(posed, view);
    EXPECT_TRUE(drawn) << drawn.error().message();
    auto gl_color = renderer->read_color();
    auto gl_ids = renderer->read_ids();
    EXPECT_TRUE(gl_color && gl_ids);
    if (!gl_color || !gl_ids) return out;
    auto staged = trace::stage_posed(*pack, posed);
    EXPECT_TRUE(staged) << staged.error().message();
    if (!staged) return out;
    trace::RenderOptions options;
    options.width = w;
    options.height = h;
    options.camera = camera;
    options.light_direction = view.light_direction;
    options.ambient = view.ambient;
    options.shadows = false;
    options.samples = 1;
    options.threads = 2;
    auto traced = trace::render(*staged, options);
    EXPECT_TRUE(traced) << traced.error().message();
    if (!traced) return out;
    const std::vector<uint32_t>& a = *gl_ids;
    const std::vector<uint32_t>& b = traced->ids;
    auto interior = [&](int x, int y) {
      const uint32_t id = a[static_cast<size_t>(y * w + x)];
      if (id == kNoId || b[static_cast<size_t>(y * w + x)] != id) return false;
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          const int nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) return false;
          const size_t i = static_cast<size_t>(ny * w + nx);
          if (a[i] != id || b[i] != id) return false;
        }
      }
      return true;
    };
    std::vector<int> largest;
    double sum = 0;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        if (!interior(x, y)) continue;
        const size_t i = static_cast<size_t>(y * w + x) * 4;
        int worst = 0;
        for (int k = 0; k < 3; ++k) {
          const int d = std::abs(gl_color->rgba[i + static_cast<size_t>(k)] -
                                 traced->color.rgba[i + static_cast<size_t>(k)]);
          sum += d;
          worst = std::max(worst, d);
        }
        largest.push_back(worst);
      }
    }
    // ANIMPACK_TEST_PNG_DIR=dir writes both frames and their difference (x8) there.
    if (const char* dir = std::getenv("ANIMPACK_TEST_PNG_DIR"); dir != nullptr && *dir != 0) {
      trace::Image gl_image, diff;
      gl_image.width = diff.width = w;
      gl_image.height = diff.height = h;
      gl_image.rgba = gl_color->rgba;
      diff.rgba = gl_color->rgba;
      for (size_t i = 0; i < diff.rgba.size(); ++i) {
        if (i % 4 == 3) continue;
        diff.rgba[i] = static_cast<uint8_t>(
            std::min(255, 8 * std::abs(gl_color->rgba[i] - traced->color.rgba[i])));
      }
      const std::string base =
          std::string(dir) + "/" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
      (void)trace::write_png(gl_image, base + "_gl.png");
      (void)trace::write_png(traced->color, base + "_traced.png");
      (void)trace::write_png(diff, base + "_diff.png");
    }
    out.compared = largest.size();
    if (largest.empty()) return out;
    std::sort(largest.begin(), largest.end());
    out.mean = sum / (3.0 * static_cast<double>(largest.size()));
    out.p95 = largest[largest.size() * 95 / 100];
    out.worst = largest.back();
    std::printf("%zu pixels compared: mean difference %.2f, 95%% within %d, worst %d (of 255)\n",
                out.compared, out.mean, out.p95, out.worst);
    return out;
  }

  std::vector<uint8_t> bytes;
  std::optional<Pack> pack;
  std::optional<SceneRenderer> scene;
};

TEST_F(GlVersusTracerTextured, TheBoardAgreesWithin2Over255AwayFromEdges) {
  if (IsSkipped() || HasFatalFailure()) return;
  load(write_pack(testing::make_board_pack()));
  if (HasFatalFailure()) return;
  Posed posed;
  PosedObject o;
  o.object = 0;
  o.mesh = 0;
  posed.objects.push_back(o);
  // A perspective view from the right and above: light and view vary over the board.
  Camera camera;
  camera.eye = {1.2f, 0.8f, 3.0f};
  camera.target = {0, 0, 0};
  const Comparison c = compare(posed, camera, 240, 120);
  EXPECT_GT(c.compared, 3000u);
  EXPECT_LE(c.worst, 2);
}

TEST_F(GlVersusTracerTextured, TheCookedFoxAgreesWithinTheStatedTolerance) {
  if (IsSkipped() || HasFatalFailure()) return;
  load(testing::cook_corpus("fox", "Fox/glTF-Binary/Fox.glb", "Walk"));
  if (HasFatalFailure()) return;
  ASSERT_EQ(pack->textures().size(), 1u);
  auto player = ScenePlayer::create(&*pack, 60);
  ASSERT_TRUE(player) << player.error().message();
  for (int t = 0; t < 12; ++t) player->step();
  const Posed& posed = player->posed();
  FramingOptions framing;
  framing.direction = {1.0f, 0.3f, 0.25f};
  framing.margin = 1.0f;
  const Camera camera = frame_box(posed_box(*pack, posed), 2.0f, framing);
  const Comparison c = compare(posed, camera, 480, 240);
  EXPECT_GT(c.compared, 4000u);
  EXPECT_LE(c.mean, 3.0);
  EXPECT_LE(c.p95, 12);
}

TEST_F(GlVersusTracerTextured, TheMorphAndEightInfluencePackAgreesWithItsTracedFrame) {
  if (IsSkipped() || HasFatalFailure()) return;
  load(write_pack(fixture::make_morph_pack()));
  if (HasFatalFailure()) return;
  auto player = ScenePlayer::create(&*pack, 60);
  ASSERT_TRUE(player) << player.error().message();
  for (int t = 0; t < 45; ++t) player->step();  // "Breathe" at 0.75 s: (0.75, 0.375)
  const Posed& posed = player->posed();
  ASSERT_EQ(posed.objects[0].morph_weights.size(), 2u);
  EXPECT_NEAR(posed.objects[0].morph_weights[0], 0.75f, 0.02f);
  EXPECT_NEAR(posed.objects[0].morph_weights[1], 0.375f, 0.02f);
  Camera camera;
  camera.orthographic = true;
  camera.ortho_height = 5.5f;
  camera.eye = {1, 2, 10};
  camera.target = {1, 2, 0};
  const Comparison c = compare(posed, camera, 160, 160);
  EXPECT_GT(c.compared, 1500u);
  EXPECT_LE(c.worst, 2);
  // The silhouettes: ids differ only on a few edge pixels.
  auto traced = trace::stage_posed(*pack, posed);
  ASSERT_TRUE(traced);
  trace::RenderOptions options;
  options.width = options.height = 160;
  options.camera = camera;
  options.shadows = false;
  options.samples = 1;
  options.threads = 2;
  auto frame = trace::render(*traced, options);
  ASSERT_TRUE(frame);
  const std::vector<uint32_t> gl_ids = *renderer->read_ids();
  size_t differ = 0, covered = 0;
  for (size_t i = 0; i < gl_ids.size(); ++i) {
    differ += gl_ids[i] != frame->ids[i] ? 1 : 0;
    covered += gl_ids[i] != kNoId ? 1 : 0;
  }
  EXPECT_GT(covered, 2000u);
  EXPECT_LE(differ, covered / 100 + 4) << differ << " of " << covered;
  std::printf("morph pack: %zu of %zu covered pixels differ in id\n", differ, covered);
}

}  // namespace
}  // namespace animpack::gl
