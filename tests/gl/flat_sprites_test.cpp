// The flat pass (gl/flat_sprites.h): screen-space sprites from a pack's sheet (the placed
// sprite fixture: trimmed, rotated and pivoted frames) drawn after the 3D passes, held to
// the CPU twin (draw_flat_cpu) pixel for pixel and pick for pick, to the fixture's own
// colours, to a SpritePlayer stepping by tick, and its refusals and allocations.
#include "animpack/gl/flat_sprites.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/sprite.h"
#include "fixtures/allocation_counter.h"
#include "fixtures/placed_sprite_fixture.h"
#include "gl_test_support.h"

namespace animpack::gl {
namespace {

using testing::GlTest;

constexpr uint32_t kWidth = 64, kHeight = 48;
constexpr float kPi = 3.14159265358979f;

class FlatSprites : public GlTest {
 protected:
  void SetUp() override {
    GlTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    bytes = write_pack(fixture::make_placed_sprite_pack());
    auto p = Pack::from_bytes(bytes);
    ASSERT_TRUE(p) << p.error().message();
    pack.emplace(std::move(*p));
    auto pixels = pack->sprite_pixels(0);
    ASSERT_TRUE(pixels) << pixels.error().message();
    sheet_pixels = *pixels;
    auto f = gl::FlatSprites::create(&*renderer, 16);
    ASSERT_TRUE(f) << f.error().message();
    flat.emplace(std::move(*f));
    ASSERT_TRUE(flat->upload_sheet(sheet_pixels, atlas()));
  }
  void TearDown() override {
    flat.reset();
    GlTest::TearDown();
  }

  const Atlas& atlas() const { return pack->sprite_sheets()[0].atlas(); }

  // An empty 3D frame: the clear colour only.
  void render_empty() {
    View view;
    view.width = kWidth;
    view.height = kHeight;
    view.clear_color = {0.2f, 0.3f, 0.4f, 1.0f};
    ASSERT_TRUE(renderer->render(view));
  }

  // Renders an empty frame, draws `batch` on GL and on the CPU over the same frame, and
  // returns both colours and ids.
  struct Frames {
    Image gpu, cpu;
    std::vector<uint32_t> gpu_ids, cpu_ids;
  };
  Frames draw_both(std::span<const FlatSprite> batch) {
    Frames f;
    render_empty();
    auto before = renderer->read_color();
    EXPECT_TRUE(before);
    if (!before) return f;
    f.cpu = *before;
    f.cpu_ids.assign(size_t{kWidth} * kHeight, kNoId);
    auto drawn = draw_flat_cpu({sheet_pixels, &atlas()}, batch, f.cpu, f.cpu_ids);
    EXPECT_TRUE(drawn) << drawn.error().message();
    auto r = flat->draw(batch);
    EXPECT_TRUE(r) << r.error().message();
    auto color = renderer->read_color();
    auto ids = renderer->read_ids();
    EXPECT_TRUE(color && ids);
    if (color) f.gpu = *color;
    if (ids) f.gpu_ids = *ids;
    return f;
  }

  // Counts the pixels whose channels differ by more than `tolerance`, and the ids that
  // differ; reports the first few.
  static void expect_same(const Frames& f, int tolerance) {
    ASSERT_EQ(f.gpu.rgba.size(), f.cpu.rgba.size());
    ASSERT_EQ(f.gpu_ids.size(), f.cpu_ids.size());
    int bad = 0, bad_ids = 0;
    for (size_t i = 0; i < f.gpu_ids.size(); ++i) {
      for (int k = 0; k < 4; ++k) {
        const int d = std::abs(int{f.gpu.rgba[4 * i + k]} - int{f.cpu.rgba[4 * i + k]});
        if (d > tolerance) {
          if (++bad <= 5) {
            ADD_FAILURE() << "pixel " << i % kWidth << "," << i / kWidth << " channel " << k
                          << ": GL " << int{f.gpu.rgba[4 * i + k]} << ", CPU "
                          << int{f.cpu.rgba[4 * i + k]};
          }
          break;
        }
      }
      if (f.gpu_ids[i] != f.cpu_ids[i] && ++bad_ids <= 5) {
        ADD_FAILURE() << "id at " << i % kWidth << "," << i / kWidth << ": GL " << f.gpu_ids[i]
                      << ", CPU " << f.cpu_ids[i];
      }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(bad_ids, 0);
  }

  static size_t covered(const Frames& f) {
    size_t n = 0;
    for (uint32_t id : f.gpu_ids) n += id != kNoId;
    return n;
  }

  std::vector<uint8_t> bytes;
  std::optional<Pack> pack;
  std::span<const uint8_t> sheet_pixels;
  std::optional<gl::FlatSprites> flat;
};

FlatSprite sprite(Vec2 center, Vec2 size, uint32_t frame, uint32_t id) {
  FlatSprite s;
  s.center = center;
  s.size = size;
  s.frame = frame;
  s.id = id;
  return s;
}

TEST_F(FlatSprites, GpuFrameMatchesCpuTwinPixelForPixel) {
  // Trimmed, rotated and pivoted frames at integer scales, turned by quarter turns,
  // one over another; centres on pixel corners and on pixel centres (edges through
  // pixel centres: the fill rule decides).
  std::vector<FlatSprite> batch = {
      sprite({12, 12}, {16, 16}, 0, 1), sprite({36, 12}, {24, 24}, 1, 2),
      sprite({54, 14}, {12, 12}, 2, 3), sprite({12.5f, 36.5f}, {16, 16}, 1, 4),
      sprite({36, 36}, {16, 16}, 0, 5), sprite({40, 38}, {8, 8}, 2, 6)};
  batch[4].rotation = kPi / 2;
  batch[5].rotation = -kPi;
  batch[1].rotation = kPi / 2 * 3;
  const Frames f = draw_both(batch);
  expect_same(f, 0);
  EXPECT_GT(covered(f), 500u);
}

TEST_F(FlatSprites, SpritesCutByTheTargetsEdgesMatchCpuTwin) {
  // Partly outside every edge, one wholly outside.
  std::vector<FlatSprite> batch = {sprite({1, 2}, {24, 24}, 0, 1), sprite({62, 3}, {24, 24}, 1, 2),
                                   sprite({3, 46}, {16, 16}, 2, 3),
                                   sprite({63.5f, 47.5f}, {32, 32}, 0, 4),
                                   sprite({-40, 10}, {16, 16}, 1, 5)};
  batch[3].rotation = 0.7f;
  const Frames f = draw_both(batch);
  expect_same(f, 0);
  size_t fives = 0;
  for (uint32_t id : f.gpu_ids) fives += id == 5;
  EXPECT_EQ(fives, 0u);
  EXPECT_GT(covered(f), 200u);
}

TEST_F(FlatSprites, FreelyRotatedAndScaledSpritesMatchCpuTwin) {
  std::vector<FlatSprite> batch = {sprite({20, 20}, {20, 20}, 0, 1),
                                   sprite({44, 24}, {27, 19}, 1, 2),
                                   sprite({30, 36}, {10.5f, 13}, 2, 3)};
  batch[0].rotation = 0.5f;
  batch[1].rotation = -1.1f;
  batch[2].rotation = 2.0f;
  const Frames f = draw_both(batch);
  expect_same(f, 0);
  EXPECT_GT(covered(f), 300u);
}

TEST_F(FlatSprites, TintAndPartialAlphaBlendWithinOneStepOfCpuTwin) {
  // GL leaves the rounding of blend terms to the driver: the twin
  // blends in float and rounds once, so bytes may differ by 1, ids not at all.
  std::vector<FlatSprite> batch = {sprite({20, 20}, {24, 24}, 0, 1),
                                   sprite({28, 24}, {24, 24}, 2, 2),
                                   sprite({44, 26}, {24, 24}, 1, 3)};
  batch[0].tint = {1.0f, 0.6f, 0.3f, 1.0f};
  batch[1].tint = {0.9f, 0.9f, 1.0f, 0.6f};  // over the first: blended
  batch[2].tint = {1.0f, 1.0f, 1.0f, 0.3f};  // under half: drawn, not pickable
  const Frames f = draw_both(batch);
  expect_same(f, 1);
  size_t threes = 0;
  for (uint32_t id : f.gpu_ids) threes += id == 3;
  EXPECT_EQ(threes, 0u);
  // The half-transparent sprite changed the pixels it covers.
  const size_t at = (26 * size_t{kWidth} + 44) * 4;
  EXPECT_NE(f.gpu.rgba[at + 0], f.gpu.rgba[(2 * size_t{kWidth} + 2) * 4]);
}

TEST_F(FlatSprites, TrimmedRotatedAndPivotedFramesShowTheirDrawnPixels) {
  // Each frame at 3 screen pixels a source pixel, pivot at (32, 24): screen pixel (X, Y)
  // shows source point q = (X + 0.5 - 32) / 3 + pivot; inside the trimmed box the drawn
  // pixel (dx, dy) = floor(q - trimmed) has the fixture's colour.
  for (uint32_t frame = 0; frame < 3; ++frame) {
    const FramePlacement p = *atlas().placement(frame);
    const Vec2 size{3.0f * static_cast<float>(p.source.width),
                    3.0f * static_cast<float>(p.source.height)};
    const FlatSprite s = sprite({32, 24}, size, frame, 9);
    const Frames f = draw_both({&s, 1});
    expect_same(f, 0);
    int checked = 0;
    for (uint32_t y = 0; y < kHeight; ++y) {
      for (uint32_t x = 0; x < kWidth; ++x) {
        const double qx = (x + 0.5 - 32) / 3 + p.pivot_x - p.trimmed.x;
        const double qy = (y + 0.5 - 24) / 3 + p.pivot_y - p.trimmed.y;
        const bool inside = qx >= 0 && qy >= 0 && qx < p.trimmed.width && qy < p.trimmed.height;
        const uint8_t* c = &f.gpu.rgba[(y * size_t{kWidth} + x) * 4];
        EXPECT_EQ(f.gpu_ids[y * kWidth + x], inside ? 9u : kNoId) << frame << " " << x << "," << y;
        if (!inside) continue;
        const int dx = static_cast<int>(qx), dy = static_cast<int>(qy);
        EXPECT_EQ(c[0], 20 + 40 * dx) << "frame " << frame << " at " << x << "," << y;
        EXPECT_EQ(c[1], 20 + 30 * dy) << "frame " << frame << " at " << x << "," << y;
        EXPECT_EQ(c[2], 60 + 60 * static_cast<int>(frame))
            << "frame " << frame << " at " << x << "," << y;
        ++checked;
      }
    }
    EXPECT_EQ(checked, static_cast<int>(9 * p.trimmed.width * p.trimmed.height)) << frame;
  }
}

TEST_F(FlatSprites, DepthOrderDrawsHigherOverLowerAndKeepsBatchOrderOnTies) {
  // Three opaque sprites on one spot: depth 2 (id 1) first in the batch, then depth 0
  // (id 2), then depth 2 again (id 3): id 3 is on top (a tie, later in the batch), id 2
  // under both.
  const Vec2 size{12, 12};
  std::vector<FlatSprite> batch = {sprite({32, 24}, size, 2, 1), sprite({32, 24}, size, 2, 2),
                                   sprite({32, 24}, size, 2, 3)};
  batch[0].depth = 2;
  batch[1].depth = 0;
  batch[2].depth = 2;
  batch[1].size = {16, 16};  // larger, so its rim shows
  const Frames f = draw_both(batch);
  expect_same(f, 0);
  EXPECT_EQ(f.gpu_ids[24 * kWidth + 32], 3u);
  // The bottom sprite's rim (its pivot is off centre: frame 2's is at (1, 3) of 4 x 4).
  size_t twos = 0, ones = 0;
  for (uint32_t id : f.gpu_ids) twos += id == 2, ones += id == 1;
  EXPECT_GT(twos, 0u);
  EXPECT_EQ(ones, 0u);
}

TEST_F(FlatSprites, ClipSteppedByTickShowsThePlayersFrameAtEachTick) {
  const SpriteSheet& sheet = pack->sprite_sheets()[0];
  auto player = SpritePlayer::create(&sheet, 30);
  ASSERT_TRUE(player);
  ASSERT_TRUE(player->play("all", 0));
  int changes = 0;
  uint32_t last = 99;
  for (int64_t tick = 0; tick < 40; ++tick) {
    const uint32_t frame = player->frame(tick);
    changes += frame != last;
    last = frame;
    // By frame index (placed) and by uv (the stored rectangle, whole): both show the
    // frame's blue.
    FlatSprite placed = sprite({16, 24}, {24, 24}, frame, 1);
    FlatSprite by_uv = sprite({48, 24}, {12, 12}, 0, 2);
    auto uv = player->uv(tick);
    ASSERT_TRUE(uv);
    by_uv.uv = *uv;
    const FlatSprite batch[2] = {placed, by_uv};
    const Frames f = draw_both(batch);
    expect_same(f, 0);
    const int blue = 60 + 60 * static_cast<int>(frame);
    for (uint32_t id : {1u, 2u}) {
      int seen = 0;
      for (size_t i = 0; i < f.gpu_ids.size(); ++i) {
        if (f.gpu_ids[i] != id) continue;
        ++seen;
        ASSERT_EQ(f.gpu.rgba[4 * i + 2], blue) << "tick " << tick << " id " << id;
      }
      EXPECT_GT(seen, 0) << "tick " << tick << " id " << id;
    }
  }
  EXPECT_GT(changes, 3);
}

TEST_F(FlatSprites, DrawsOverThe3DPassesAndPicksThroughTheSameIdBuffer) {
  // A 3D quad (id 50) filling the view, then a sprite (id 7) over its middle.
  const Vec3 positions[4] = {{-10, -10, 0}, {10, -10, 0}, {10, 10, 0}, {-10, 10, 0}};
  const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
  auto mesh = renderer->upload_mesh({positions, {}, {}, {}, indices});
  ASSERT_TRUE(mesh);
  InstanceDesc desc;
  desc.mesh = *mesh;
  desc.id = 50;
  ASSERT_TRUE(renderer->create_instance(desc));
  View view;
  view.width = kWidth;
  view.height = kHeight;
  ASSERT_TRUE(renderer->render(view));
  const FlatSprite s = sprite({32, 24}, {12, 12}, 2, 7);
  ASSERT_TRUE(flat->draw({&s, 1}));
  auto ids = renderer->read_ids();
  ASSERT_TRUE(ids);
  EXPECT_EQ((*ids)[24 * kWidth + 32], 7u);
  EXPECT_EQ((*ids)[2 * kWidth + 2], 50u);
}

TEST_F(FlatSprites, RefusesBadCallsAndDrawsNothing) {
  render_empty();
  auto before = renderer->read_color();
  ASSERT_TRUE(before);
  const FlatSprite good = sprite({32, 24}, {8, 8}, 0, 1);
  auto refuse = [&](FlatSprite s, ErrorCode code, const char* what) {
    const FlatSprite batch[2] = {good, s};
    auto r = flat->draw(batch);
    ASSERT_FALSE(r) << what;
    EXPECT_EQ(r.error().code(), code) << what;
    Image cpu = *before;
    auto c = draw_flat_cpu({sheet_pixels, &atlas()}, batch, cpu, {});
    ASSERT_FALSE(c) << what;
    EXPECT_EQ(c.error().code(), code) << what;
    EXPECT_EQ(cpu.rgba, before->rgba) << what;
  };
  FlatSprite s = good;
  s.frame = 3;
  refuse(s, ErrorCode::kBadFrame, "frame out of range");
  s = good;
  s.center.x = std::nanf("");
  refuse(s, ErrorCode::kInvalidArgument, "NaN centre");
  s = good;
  s.center.y = 2e6f;
  refuse(s, ErrorCode::kInvalidArgument, "centre too far");
  s = good;
  s.size.y = 0;
  refuse(s, ErrorCode::kInvalidArgument, "zero size");
  s = good;
  s.size.x = INFINITY;
  refuse(s, ErrorCode::kInvalidArgument, "infinite size");
  s = good;
  s.tint.w = std::nanf("");
  refuse(s, ErrorCode::kInvalidArgument, "NaN tint");
  s = good;
  s.tint.x = 1.5f;
  refuse(s, ErrorCode::kInvalidArgument, "tint over 1");
  s = good;
  s.rotation = INFINITY;
  refuse(s, ErrorCode::kInvalidArgument, "infinite rotation");
  s = good;
  s.uv = UvRect{0.5f, 0.5f, 0.5f, 1.0f};
  refuse(s, ErrorCode::kInvalidArgument, "empty uv");
  s.uv = UvRect{0.0f, 0.0f, 1.5f, 1.0f};
  refuse(s, ErrorCode::kInvalidArgument, "uv outside the sheet");
  auto after = renderer->read_color();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->rgba, before->rgba);

  // A batch over the capacity (16).
  std::vector<FlatSprite> many(17, good);
  auto over = flat->draw(many);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code(), ErrorCode::kInvalidArgument);
  many.pop_back();
  EXPECT_TRUE(flat->draw(many));

  // Setup refusals.
  EXPECT_EQ(gl::FlatSprites::create(nullptr, 4).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(gl::FlatSprites::create(&*renderer, 0).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(gl::FlatSprites::create(&*renderer, kMaxFlatSprites + 1).error().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(gl::FlatSprites().draw({&good, 1}).error().code(), ErrorCode::kInvalidArgument);
  auto fresh = gl::FlatSprites::create(&*renderer, 4);
  ASSERT_TRUE(fresh);
  auto unsheeted = fresh->draw({&good, 1});
  ASSERT_FALSE(unsheeted);
  EXPECT_EQ(unsheeted.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(fresh->upload_sheet(sheet_pixels.first(8), atlas()).error().code(),
            ErrorCode::kSizeMismatch);
  EXPECT_EQ(fresh->upload_sheet(sheet_pixels, Atlas()).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(draw_flat_cpu({sheet_pixels, nullptr}, {&good, 1}, *after, {}).error().code(),
            ErrorCode::kInvalidArgument);
}

TEST_F(FlatSprites, RefusesToDrawBeforeTheFirstRender) {
  // The fixture's renderer has not rendered yet.
  const FlatSprite good = sprite({32, 24}, {8, 8}, 0, 1);
  auto r = flat->draw({&good, 1});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
}

TEST_F(FlatSprites, DrawAllocatesNothingAfterSetup) {
  render_empty();
  std::vector<FlatSprite> batch;
  for (uint32_t i = 0; i < 16; ++i) {
    batch.push_back(sprite({4.0f * static_cast<float>(i), 24}, {12, 12}, i % 3, i + 1));
    batch.back().depth = static_cast<int32_t>(i % 4);
    batch.back().rotation = 0.1f * static_cast<float>(i);
  }
  ASSERT_TRUE(flat->draw(batch));  // the driver's first-use work
  fixture::start_counting_allocations();
  bool all_ok = true;
  for (int frame = 0; frame < 50; ++frame) all_ok = flat->draw(batch).has_value() && all_ok;
  const long allocations = fixture::stop_counting_allocations();
  EXPECT_TRUE(all_ok);
  EXPECT_EQ(allocations, 0);
}

}  // namespace
}  // namespace animpack::gl
