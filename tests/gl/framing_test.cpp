// Framing (CPU only): frame_box is the runtime's shared camera_for_box from gl's default
// direction; posed_box follows the pose (a skinned column bent at a tick is
// held, and differs from its bind pose); world_box holds a cooked CesiumMan's posed box
// and is not much larger; refusals give the default camera.
#include "animpack/gl/framing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "animpack/animator.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/scene_player.h"
#include "animpack/skinning.h"
#include "corpus_pack.h"
#include "test_pack.h"

namespace animpack::gl {
namespace {

// Where the corners land is the runtime's camera_for_box's test (tests/runtime/
// camera_test.cpp); gl::frame_box adds its defaults and its refusals.
TEST(GlFraming, IsTheSharedFramingFromItsDirection) {
  const Box box{{-0.3f, 0.0f, -0.2f}, {0.4f, 1.8f, 0.25f}};  // a standing figure
  FramingOptions options;
  animpack::FramingOptions shared;
  shared.view = options.direction;
  shared.fov_y = options.fov_y;
  shared.margin = options.margin;
  const Camera ours = frame_box(box, 1.5f, options);
  const Result<Camera> theirs = camera_for_box(box, 1.5f, shared);
  ASSERT_TRUE(theirs);
  EXPECT_TRUE(bits_equal(&ours.eye.x, &theirs->eye.x, 3));
  EXPECT_TRUE(bits_equal(&ours.target.x, &theirs->target.x, 3));
  EXPECT_EQ(ours.fov_y, options.fov_y);
  EXPECT_EQ(ours.near_plane, theirs->near_plane);
}

TEST(GlFraming, BadInputGivesTheDefaultCamera) {
  const Camera fallback;
  Box box;
  EXPECT_EQ(frame_box(box, 1.0f).eye.z, fallback.eye.z);  // empty
  box.lo = {0, 0, 0};
  box.hi = {1, 1, 1};
  EXPECT_EQ(frame_box(box, 0.0f).eye.z, fallback.eye.z);
  EXPECT_EQ(frame_box(box, std::nanf("")).eye.z, fallback.eye.z);
  FramingOptions straight_down;
  straight_down.direction = {0, 1, 0};
  EXPECT_EQ(frame_box(box, 1.0f, straight_down).eye.z, fallback.eye.z);
  box.hi.x = INFINITY;
  EXPECT_EQ(frame_box(box, 1.0f).eye.z, fallback.eye.z);
}

TEST(GlFraming, PosedBoxHoldsTheSkinnedVerticesOfTheTick) {
  const std::vector<uint8_t> bytes = write_pack(testing::make_test_pack());
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  auto column = Animator::create(&pack->rig(0), 60);
  ASSERT_TRUE(column);
  ASSERT_TRUE(column->play("Rotate", 0));
  column->evaluate(20);
  Posed posed;
  PosedObject o;
  o.object = 0;
  o.mesh = 0;
  o.model = to_matrix(Trs{{2, 0, 0}, {}, {1, 1, 1}});
  o.palette = column->palette();
  posed.objects.push_back(o);
  const Box posed_at = posed_box(*pack, posed);
  ASSERT_TRUE(posed_at.valid());
  auto streams = pack->part_streams(0);
  ASSERT_TRUE(streams);
  std::vector<Vec3> skinned(streams->positions.size());
  ASSERT_TRUE(skin({streams->positions, {}, {}, streams->joints, streams->weights},
                   column->palette(), {skinned, {}, {}}));
  for (const Vec3& p : skinned) EXPECT_TRUE(posed_at.contains(transform_point(o.model, p)));
  posed.objects[0].palette = {};
  const Box bind = posed_box(*pack, posed);
  EXPECT_NE(bind.hi.x, posed_at.hi.x) << "the box follows the pose";
  // An object outside the pack adds nothing.
  posed.objects[0].object = 99;
  EXPECT_FALSE(posed_box(*pack, posed).valid());
}

TEST(GlFraming, WorldBoxHoldsThePosedVerticesOfACookedModel) {
  const std::vector<uint8_t> bytes =
      testing::cook_corpus("cesium_man", "CesiumMan/glTF-Binary/CesiumMan.glb", "animation_0");
  auto pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  auto player = ScenePlayer::create(&*pack, 60);
  ASSERT_TRUE(player);
  for (int t = 0; t < 60; ++t) {
    player->step();
    if (t % 10 != 0) continue;
    Result<Box> world = world_box(*player);
    ASSERT_TRUE(world) << world.error().message();
    const Box exact = posed_box(*pack, player->posed());
    ASSERT_TRUE(exact.valid());
    EXPECT_TRUE(world->contains(exact.lo) && world->contains(exact.hi)) << "tick " << t;
    // Conservative but not loose: within a fifth of the figure's height on every side.
    const float slack = 0.2f * (exact.hi.y - exact.lo.y);
    EXPECT_GT(world->lo.x, exact.lo.x - slack);
    EXPECT_LT(world->hi.y, exact.hi.y + slack);
  }
}

}  // namespace
}  // namespace animpack::gl
