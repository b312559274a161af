// SceneRenderer draws each part of a pack with the pack's material: a pack written here
// holds a "board" mesh of three quads side by side: the left one textured with a checker
// (an sRGB texture, nearest sampler), the middle one with no material (the object's
// colour), the right one MASK with that checker's alpha (a hole in every other cell),
// and vertex colours on the middle quad's top corners. And the golden packs of both
// format versions (tests/data/packs).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/gl/framing.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/scene_player.h"
#include "gl_test_support.h"
#include "test_pack.h"

namespace animpack::gl {
namespace {

using testing::front_ortho;
using testing::GlTest;

using testing::light_cell;

class GlSceneMaterials : public GlTest {
 protected:
  void SetUp() override {
    GlTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    bytes = write_pack(testing::make_board_pack());
    auto p = Pack::from_bytes(bytes);
    ASSERT_TRUE(p) << p.error().message();
    pack.emplace(std::move(*p));
    ASSERT_EQ(pack->textures().size(), 1u);
    auto s = SceneRenderer::create(&*renderer, &*pack);
    ASSERT_TRUE(s) << s.error().message();
    scene.emplace(std::move(*s));
  }
  void TearDown() override {
    scene.reset();
    GlTest::TearDown();
  }

  std::vector<uint8_t> bytes;
  std::optional<Pack> pack;
  std::optional<SceneRenderer> scene;
};

TEST_F(GlSceneMaterials, EachPartIsDrawnWithItsPackMaterial) {
  if (IsSkipped() || HasFatalFailure()) return;
  Posed posed;
  PosedObject o;
  o.object = 0;
  o.mesh = 0;
  posed.objects.push_back(o);
  // 96 x 32 pixels over the three quads: 32 pixels a quad, 8 a checker cell.
  Camera camera = front_ortho({0, 0, 0}, 1.0f);
  ASSERT_TRUE(scene->draw(posed, {camera, {}, 96, 32}));
  auto color = renderer->read_color();
  auto ids = renderer->read_ids();
  ASSERT_TRUE(color && ids);
  auto px = [&](int x, int y) { return &color->rgba[static_cast<size_t>(y * 96 + x) * 4]; };
  auto id = [&](int x, int y) { return (*ids)[static_cast<size_t>(y * 96 + x)]; };
  const uint32_t board = SceneRenderer::object_id(0);
  // Left quad: the checker, light cells bright yellow, dark cells near black (alpha
  // ignored: OPAQUE); every cell one colour.
  for (int cy = 0; cy < 4; ++cy) {
    for (int cx = 0; cx < 4; ++cx) {
      const uint8_t* c = px(cx * 8 + 4, cy * 8 + 4);
      const uint8_t* corner = px(cx * 8 + 1, cy * 8 + 1);
      EXPECT_EQ(id(cx * 8 + 4, cy * 8 + 4), board);
      for (int k = 0; k < 3; ++k) EXPECT_EQ(c[k], corner[k]) << "cell " << cx << "," << cy;
      if (light_cell(cx, cy)) {
        EXPECT_GT(c[0], 150) << "cell " << cx << "," << cy;
        EXPECT_GT(c[1], 120);
      } else {
        EXPECT_LT(c[0], 80) << "cell " << cx << "," << cy;
      }
    }
  }
  // Middle quad: no material, so the object's colour (orange for object 0) at its bottom,
  // times the vertex colours that turn blue towards its top.
  const uint8_t* bottom = px(48, 30);
  const uint8_t* top = px(48, 1);
  EXPECT_GT(bottom[0], bottom[2] + 60) << int{bottom[0]} << " " << int{bottom[2]};
  EXPECT_LT(top[0], bottom[0] / 2);
  EXPECT_GT(top[2], top[0]);
  EXPECT_EQ(id(48, 16), board);
  // Right quad: MASK; the dark cells are holes in colour and ids.
  for (int cy = 0; cy < 4; ++cy) {
    for (int cx = 0; cx < 4; ++cx) {
      const int x = 64 + cx * 8 + 4, y = cy * 8 + 4;
      EXPECT_EQ(id(x, y), light_cell(cx, cy) ? board : kNoId) << "cell " << cx << "," << cy;
      if (!light_cell(cx, cy)) {
        EXPECT_EQ(px(x, y)[0], 24);  // the clear colour
      }
    }
  }
}

// The golden packs: format 2's every material slot (BLEND, double-sided, both uv sets,
// sRGB and linear textures) uploads; format 1's material-less objects draw, framed by
// posed_box (world_box refuses: the pack has no bounds).
class GlGoldenPacks : public GlTest {};

TEST_F(GlGoldenPacks, BothPackVersionsUploadAndAVersion1PackDraws) {
  if (IsSkipped() || HasFatalFailure()) return;
  const std::string dir = std::string(ANIMPACK_SOURCE_DIR) + "/tests/data/packs/";
  {
    auto pack = Pack::open(dir + "textured_v2.anpk");
    ASSERT_TRUE(pack) << pack.error().message();
    ASSERT_EQ(pack->textures().size(), 2u);
    auto scene = SceneRenderer::create(&*renderer, &*pack);
    ASSERT_TRUE(scene) << scene.error().message();
  }
  auto pack = Pack::open(dir + "scene_player_v1.anpk");
  ASSERT_TRUE(pack) << pack.error().message();
  auto scene = SceneRenderer::create(&*renderer, &*pack);
  ASSERT_TRUE(scene) << scene.error().message();
  auto player = ScenePlayer::create(&*pack, 60);
  ASSERT_TRUE(player) << player.error().message();
  player->step();
  Result<Box> world = world_box(*player);
  ASSERT_FALSE(world);
  EXPECT_EQ(world.error().code(), ErrorCode::kBadPack);
  const Box box = posed_box(*pack, player->posed());
  ASSERT_TRUE(box.valid());
  auto ids = scene->render_ids(player->posed(), frame_box(box, 1.0f), 64, 64);
  ASSERT_TRUE(ids) << ids.error().message();
  size_t covered = 0;
  for (uint32_t id : *ids) covered += id != kNoId;
  EXPECT_GT(covered, 100u);
}

}  // namespace
}  // namespace animpack::gl
