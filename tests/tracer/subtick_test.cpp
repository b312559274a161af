// The tracer takes sub-tick poses (ScenePlayer::evaluate_render) as it takes a tick's: a
// frame at fraction 0 is the tick's, one at half a tick differs from both ticks and the
// bending column lies between where the two ticks put it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "animpack/camera.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"
#include "trace_fixture.h"

namespace animpack::trace {
namespace {

constexpr int kSize = 96;

Camera front_camera() {
  Camera c;
  c.orthographic = true;
  c.ortho_height = 5.0f;
  c.eye = {0, 2, 10};
  c.target = {0, 2, 0};
  return c;
}

Frame trace_frame(const Pack& pack, const Posed& posed) {
  auto scene = stage_posed(pack, posed);
  EXPECT_TRUE(scene) << scene.error().message();
  RenderOptions options;
  options.width = options.height = kSize;
  options.camera = front_camera();
  options.samples = 1;
  options.shadows = false;
  auto frame = render(*scene, options);
  EXPECT_TRUE(frame) << frame.error().message();
  return frame ? std::move(*frame) : Frame{};
}

// The mean pixel column of the column object's pixels.
double column_x(const Frame& frame) {
  double sum = 0.0;
  size_t n = 0;
  for (size_t i = 0; i < frame.ids.size(); ++i) {
    if (frame.ids[i] != object_id(trace_test::kColumn)) continue;
    sum += static_cast<double>(i % kSize);
    ++n;
  }
  EXPECT_GT(n, 100u);
  return n > 0 ? sum / static_cast<double>(n) : 0.0;
}

TEST(TracerSubTick, AFrameAtFractionZeroIsTheTicksAndHalfATickLiesBetween) {
  const std::vector<uint8_t> bytes = trace_test::pack_bytes();
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  // At 10 ticks a second the column's Rotate bends it 0.05 rad a tick at each joint.
  auto player = ScenePlayer::create(&*pack, 10);
  ASSERT_TRUE(player) << player.error().message();
  for (int t = 0; t <= 3; ++t) player->step();
  const Frame at_tick = trace_frame(*pack, player->posed());

  ASSERT_TRUE(player->evaluate_render(0.0f));
  const Frame zero = trace_frame(*pack, player->posed());
  EXPECT_EQ(zero.ids, at_tick.ids);
  EXPECT_EQ(zero.color.rgba, at_tick.color.rgba);

  ASSERT_TRUE(player->evaluate_render(0.5f));
  const Frame half = trace_frame(*pack, player->posed());
  player->step();
  const Frame next = trace_frame(*pack, player->posed());

  EXPECT_NE(half.ids, at_tick.ids);
  EXPECT_NE(half.ids, next.ids);
  const double a = column_x(at_tick), h = column_x(half), b = column_x(next);
  EXPECT_NE(a, b) << "the column bends between the ticks";
  EXPECT_GT(h, std::min(a, b));
  EXPECT_LT(h, std::max(a, b));
}

}  // namespace
}  // namespace animpack::trace
