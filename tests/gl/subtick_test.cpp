// The GL path takes sub-tick poses (ScenePlayer::evaluate_render): a frame drawn at
// fraction 0 is the tick's pixel for pixel, one at half a tick differs from both ticks
// and shows the swinging arm between where the two ticks put it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "gl_test_support.h"
#include "test_pack.h"

namespace animpack::gl {
namespace {

using testing::front_ortho;
using testing::GlTest;

constexpr uint32_t kSize = 128;

class GlSubTick : public GlTest {
 protected:
  void SetUp() override {
    GlTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    bytes = write_pack(testing::make_test_pack());
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

  struct Frame {
    std::vector<uint8_t> rgba;
    std::vector<uint32_t> ids;
  };
  // The scene drawn from the player's snapshot: colours, then ids.
  Frame draw(ScenePlayer& player) {
    Frame f;
    const Camera camera = front_ortho({0, 2, 0}, 4.0f);
    EXPECT_TRUE(scene->draw(player.posed(&camera), {camera, {}, kSize, kSize}));
    auto color = renderer->read_color();
    EXPECT_TRUE(color);
    if (color) f.rgba = std::move(color->rgba);
    auto ids = scene->render_ids(player.posed(&camera), camera, kSize, kSize);
    EXPECT_TRUE(ids);
    if (ids) f.ids = std::move(*ids);
    return f;
  }
  // The mean pixel row of the arm's pixels (object 1).
  static double arm_row(const Frame& f) {
    double sum = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < f.ids.size(); ++i) {
      if (f.ids[i] != SceneRenderer::object_id(1)) continue;
      sum += static_cast<double>(i / kSize);
      ++n;
    }
    EXPECT_GT(n, 100u);
    return n > 0 ? sum / static_cast<double>(n) : 0.0;
  }

  std::vector<uint8_t> bytes;
  std::optional<Pack> pack;
  std::optional<SceneRenderer> scene;
};

TEST_F(GlSubTick, AFrameAtFractionZeroIsTheTicksAndHalfATickLiesBetween) {
  if (IsSkipped() || HasFatalFailure()) return;
  // At 10 ticks a second "Swing" lifts the arm 0.2 units a tick (6.4 pixels here).
  auto player = ScenePlayer::create(&*pack, 10);
  ASSERT_TRUE(player) << player.error().message();
  // The column out of the arm's way.
  ASSERT_TRUE(player->set_transform(ObjectId{0}, Trs{{-1.5f, 0, 0}, {}, {1, 1, 1}}));
  for (int t = 0; t <= 3; ++t) player->step();
  const Frame at_tick = draw(*player);

  ASSERT_TRUE(player->evaluate_render(0.0f));
  const Frame zero = draw(*player);
  EXPECT_EQ(zero.rgba, at_tick.rgba);
  EXPECT_EQ(zero.ids, at_tick.ids);

  ASSERT_TRUE(player->evaluate_render(0.5f));
  const Frame half = draw(*player);
  player->step();
  const Frame next = draw(*player);

  EXPECT_NE(half.rgba, at_tick.rgba);
  EXPECT_NE(half.rgba, next.rgba);
  // Rows count down the image: the rising arm's rows go down tick by tick.
  const double a = arm_row(at_tick), h = arm_row(half), b = arm_row(next);
  EXPECT_GT(a, b + 3.0) << "the arm rises between the ticks";
  EXPECT_LT(h, a);
  EXPECT_GT(h, b);
  EXPECT_NEAR(h, (a + b) / 2.0, 1.0);
}

}  // namespace
}  // namespace animpack::gl
