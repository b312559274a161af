// Sprites on cards: a card shows exactly the atlas frame of its tick (pixel readback),
// through the default card and through a card mesh, with transparent texels left out of
// both the colour and the ids.
#include "animpack/sprite.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "gl_test_support.h"
#include "test_pack.h"

namespace animpack::gl {
namespace {

using testing::front_ortho;
using testing::GlTest;

class GlSprites : public GlTest {
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

  // Draws `object` alone at the origin showing `frame`, 1 x 1 world units into 16 x 16
  // pixels of a 24 x 24 image, and checks every pixel against the atlas.
  void expect_frame(int object, uint32_t frame) {
    const ObjectInfo& info = pack->objects()[static_cast<size_t>(object)];
    Posed posed;
    PosedObject o;
    o.object = object;
    o.mesh = info.mesh;
    o.sprite_sheet = 0;
    o.sprite_frame = frame;
    posed.objects.push_back(o);
    View view{front_ortho({0, 0, 0}, 1.5f), {}, 24, 24};
    ASSERT_TRUE(scene->draw(posed, view));
    auto color = renderer->read_color();
    auto ids = renderer->read_ids();
    ASSERT_TRUE(color && ids);
    const PixelRect rect = pack->sprite_sheets()[0].atlas().frames()[frame];
    int mismatches = 0;
    for (uint32_t y = 0; y < 24; ++y) {
      for (uint32_t x = 0; x < 24; ++x) {
        const size_t i = y * 24 + x;
        uint8_t want[4] = {24, 26, 32, 0};  // the clear colour
        const bool on_card = x >= 4 && x < 20 && y >= 4 && y < 20;
        if (on_card) {
          uint8_t t[4];
          testing::atlas_texel(rect.x + (x - 4), rect.y + (y - 4), t);
          if (t[3] != 0) std::copy(t, t + 3, want);
          want[3] = t[3];
        }
        const uint8_t* got = &color->rgba[i * 4];
        const uint32_t want_id = want[3] != 0 ? SceneRenderer::object_id(object) : kNoId;
        if (got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || (*ids)[i] != want_id) {
          if (++mismatches <= 5) {
            ADD_FAILURE() << "object " << object << " frame " << frame << " pixel " << x << "," << y
                          << ": got " << int{got[0]} << " " << int{got[1]} << " " << int{got[2]}
                          << " id " << (*ids)[i] << ", want " << int{want[0]} << " " << int{want[1]}
                          << " " << int{want[2]} << " id " << want_id;
          }
        }
      }
    }
    EXPECT_EQ(mismatches, 0);
  }

  std::vector<uint8_t> bytes;
  std::optional<Pack> pack;
  std::optional<SceneRenderer> scene;
};

TEST_F(GlSprites, ACardShowsExactlyTheAtlasFrameOfItsTick) {
  const SpriteSheet& sheet = pack->sprite_sheets()[0];
  auto player = SpritePlayer::create(&sheet, 60);
  ASSERT_TRUE(player);
  ASSERT_TRUE(player->play("run", 0));
  std::vector<uint32_t> seen;
  for (int64_t tick : {0, 5, 10, 17, 31}) {
    const uint32_t frame = player->frame(tick);  // 12 fps at 60 Hz: a frame every 5 ticks
    seen.push_back(frame);
    expect_frame(2, frame);
  }
  EXPECT_EQ(seen, (std::vector<uint32_t>{0, 1, 2, 3, 2}));
  ASSERT_TRUE(player->play("idle", 0));  // frames 4 and 5: the atlas's second row
  expect_frame(2, player->frame(0));
  expect_frame(2, player->frame(15));
  EXPECT_EQ(player->frame(15), 5u);
}

TEST_F(GlSprites, ACardMeshShowsTheFrameThroughItsBoundsUvs) {
  for (uint32_t frame : {0u, 3u, 6u}) expect_frame(3, frame);
}

TEST_F(GlSprites, AFrameOutsideTheAtlasIsRefused) {
  Posed posed;
  PosedObject o;
  o.object = 2;
  o.sprite_sheet = 0;
  o.sprite_frame = 8;
  posed.objects.push_back(o);
  Result<void> r = scene->draw(posed, {front_ortho({0, 0, 0}, 1.5f), {}, 24, 24});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadFrame);
}

}  // namespace
}  // namespace animpack::gl
