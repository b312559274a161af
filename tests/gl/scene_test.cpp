// A pack's posed snapshot drawn by SceneRenderer: skinned, node-animated and sprite
// objects where their poses put them, ids that follow camera.h's pixel centres (against
// a CPU ray cast through camera_ray), and refused snapshots.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "animpack/animator.h"
#include "animpack/camera.h"
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

Mat4 translation(Vec3 t) { return to_matrix(Trs{t, {}, {1, 1, 1}}); }

class GlScene : public GlTest {
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
    column = std::move(*Animator::create(&pack->rig(0), 60));
    arm = std::move(*Animator::create(&pack->rig(1), 60));
    ASSERT_TRUE(column.play("Rotate", 0));
    ASSERT_TRUE(arm.play("Swing", 0, {1.0f, 0.0, Playback::kOnce}));
  }
  void TearDown() override {
    scene.reset();
    GlTest::TearDown();
  }

  // Column at x = -1, arm at x = 1, hero sprite at (0, 3), all posed at `tick`.
  Posed posed_at(int64_t tick) {
    column.evaluate(tick);
    arm.evaluate(tick);
    Posed posed;
    posed.tick = tick;
    PosedObject c;
    c.object = 0;
    c.mesh = 0;
    c.model = translation({-1, 0, 0});
    c.palette = column.palette();
    c.previous_palette = column.palette();
    posed.objects.push_back(c);
    PosedObject a;
    a.object = 1;
    a.mesh = 1;
    a.model = translation({1, 0, 0});
    a.palette = arm.palette();
    posed.objects.push_back(a);
    PosedObject h;
    h.object = 2;
    h.model = translation({0, 3, 0});
    h.sprite_sheet = 0;
    h.sprite_frame = 1;
    posed.objects.push_back(h);
    return posed;
  }

  std::vector<uint8_t> bytes;
  std::optional<Pack> pack;
  std::optional<SceneRenderer> scene;
  Animator column, arm;
};

// The id at world (x, y) of a 48 x 48 front view of [-3, 3] x [-1, 5] (8 pixels a unit).
uint32_t id_at(const std::vector<uint32_t>& ids, float x, float y) {
  const int px = static_cast<int>(std::floor((x + 3.0f) * 8.0f));
  const int py = static_cast<int>(std::floor((5.0f - y) * 8.0f));
  return ids[static_cast<size_t>(py * 48 + px)];
}

TEST_F(GlScene, DrawsSkinnedNodeAnimatedAndSpriteObjectsWhereTheirPosesPutThem) {
  const Camera camera = front_ortho({0, 2, 0}, 6);
  auto ids = scene->render_ids(posed_at(60), camera, 48, 48);  // the arm at (0, 3, 0)
  ASSERT_TRUE(ids) << ids.error().message();
  int counts[5] = {};
  for (uint32_t id : *ids) counts[std::min<uint32_t>(id, 4)]++;
  std::printf("pixels: background %d, column %d, arm %d, hero %d\n", counts[0], counts[1],
              counts[2], counts[3]);
  EXPECT_GT(counts[1], 60);  // the column: 0.5 x 4 units, bent
  EXPECT_EQ(counts[2], 16);  // the arm: 0.6 x 0.6 units hold 4 x 4 pixel centres
  EXPECT_EQ(counts[3], 64);  // the hero: 1 x 1 units, 8 x 8 pixels (odd texels: all opaque)
  EXPECT_EQ(counts[4], 0);
  EXPECT_EQ(id_at(*ids, -1.0f, 0.2f), SceneRenderer::object_id(0));
  EXPECT_EQ(id_at(*ids, 1.0f, 3.0f), SceneRenderer::object_id(1));  // placed by its node
  EXPECT_EQ(id_at(*ids, 1.0f, 1.0f), kNoId);                        // not at its rest place
  EXPECT_EQ(id_at(*ids, 0.0f, 3.0f), SceneRenderer::object_id(2));

  // At tick 0 the arm is at rest, (1, 1).
  ids = scene->render_ids(posed_at(0), camera, 48, 48);
  ASSERT_TRUE(ids);
  EXPECT_EQ(id_at(*ids, 1.0f, 1.0f), SceneRenderer::object_id(1));
  EXPECT_EQ(id_at(*ids, 1.0f, 3.0f), kNoId);

  // An object left out of the snapshot is not drawn.
  Posed only_hero = posed_at(0);
  only_hero.objects.erase(only_hero.objects.begin(), only_hero.objects.begin() + 2);
  ids = scene->render_ids(only_hero, camera, 48, 48);
  ASSERT_TRUE(ids);
  for (uint32_t id : *ids) EXPECT_TRUE(id == kNoId || id == SceneRenderer::object_id(2));
}

TEST_F(GlScene, AMovedObjectWritesMotionFromItsPreviousDraw) {
  const Camera camera = front_ortho({0, 2, 0}, 6);
  View view{camera, {}, 48, 48};
  Posed posed = posed_at(0);
  ASSERT_TRUE(scene->draw(posed, view));
  posed.objects[1].model = translation({1.5f, 0, 0});  // the arm moves 0.5 units right
  ASSERT_TRUE(scene->draw(posed, view));
  auto ids = renderer->read_ids();
  auto motion = renderer->read_motion();
  ASSERT_TRUE(ids && motion);
  for (size_t i = 0; i < ids->size(); ++i) {
    if ((*ids)[i] == SceneRenderer::object_id(1)) {
      EXPECT_NEAR((*motion)[i].x, 4.0f, 1e-3f);  // 0.5 units, 8 pixels a unit
      EXPECT_NEAR((*motion)[i].y, 0.0f, 1e-3f);
    } else if ((*ids)[i] == SceneRenderer::object_id(2)) {
      EXPECT_EQ((*motion)[i].x, 0.0f);  // the hero did not move
    }
  }
}

// Möller-Trumbore: the distance along the ray to the triangle, or -1.
float hit(Vec3 o, Vec3 d, Vec3 a, Vec3 b, Vec3 c) {
  const Vec3 e1 = b - a, e2 = c - a, p = cross(d, e2);
  const float det = dot(e1, p);
  if (std::fabs(det) < 1e-12f) return -1;
  const float inv = 1.0f / det;
  const Vec3 s = o - a;
  const float u = dot(s, p) * inv;
  if (u < 0 || u > 1) return -1;
  const Vec3 q = cross(s, e1);
  const float v = dot(d, q) * inv;
  if (v < 0 || u + v > 1) return -1;
  return dot(e2, q) * inv;
}

TEST_F(GlScene, IdsFollowCameraHPixelCentresAndRowOrder) {
  // Two triangles at different depths, seen by an off-axis perspective camera; each pixel
  // is ray cast on the CPU through camera_ray at its centre, as the tracer does.
  const Vec3 tris[2][3] = {{{-1.0f, -0.8f, 0.0f}, {1.2f, -0.5f, -0.5f}, {-0.2f, 1.1f, 0.2f}},
                           {{-0.3f, -1.2f, 0.6f}, {0.9f, 0.4f, 0.4f}, {-1.1f, 0.3f, 0.8f}}};
  for (uint32_t t = 0; t < 2; ++t) {
    const Vec3* p = tris[t];
    const uint32_t index[3] = {0, 1, 2};
    auto mesh = renderer->upload_mesh({{p, 3}, {}, {}, {}, index});
    ASSERT_TRUE(mesh);
    InstanceDesc desc;
    desc.mesh = *mesh;
    desc.id = 10 + t;
    ASSERT_TRUE(renderer->create_instance(desc));
  }
  Camera camera;
  camera.eye = {0.7f, 0.4f, 4.0f};
  camera.target = {0.1f, 0.0f, 0.0f};
  camera.fov_y = 0.7f;
  constexpr uint32_t W = 40, H = 30;
  ASSERT_TRUE(renderer->render({camera, {}, W, H}));
  auto ids = renderer->read_ids();
  ASSERT_TRUE(ids);
  const float aspect = static_cast<float>(W) / H;
  int covered = 0, differ = 0;
  for (uint32_t y = 0; y < H; ++y) {
    for (uint32_t x = 0; x < W; ++x) {
      Vec3 o, d;
      camera_ray(camera, aspect, (static_cast<float>(x) + 0.5f) / W * 2 - 1,
                 1 - (static_cast<float>(y) + 0.5f) / H * 2, &o, &d);
      uint32_t want = kNoId;
      float nearest = 1e30f;
      for (uint32_t t = 0; t < 2; ++t) {
        const float s = hit(o, d, tris[t][0], tris[t][1], tris[t][2]);
        if (s > 0 && s < nearest) {
          nearest = s;
          want = 10 + t;
        }
      }
      covered += want != kNoId;
      differ += (*ids)[y * W + x] != want;
    }
  }
  std::printf("ray cast: %d pixels covered, %d differ\n", covered, differ);
  EXPECT_GT(covered, 200);
  EXPECT_LE(differ, 2);  // at most a pixel centre lying on an edge, within rounding
}

TEST_F(GlScene, RefusesSnapshotsThatDoNotFitThePack) {
  const View view{front_ortho({0, 2, 0}, 6), {}, 16, 16};
  auto code = [&](const Posed& p) {
    Result<void> r = scene->draw(p, view);
    return r ? ErrorCode::kOk : r.error().code();
  };
  Posed p = posed_at(10);
  p.objects[0].object = 7;
  EXPECT_EQ(code(p), ErrorCode::kInvalidArgument);
  p = posed_at(10);
  p.objects[1].object = 0;  // object 0 twice
  EXPECT_EQ(code(p), ErrorCode::kInvalidArgument);
  p = posed_at(10);
  p.objects[0].mesh = 2;  // not the object's mesh
  EXPECT_EQ(code(p), ErrorCode::kInvalidArgument);
  p = posed_at(10);
  p.objects[0].palette = p.objects[0].palette.first(3);  // the rig has 4 joints
  p.objects[0].previous_palette = p.objects[0].palette;
  EXPECT_EQ(code(p), ErrorCode::kBadJointIndex);
  p = posed_at(10);
  p.objects[1].palette = p.objects[1].palette.first(1);  // the arm rides joint 1
  EXPECT_EQ(code(p), ErrorCode::kBadJointIndex);
  p = posed_at(10);
  p.objects[0].previous_palette = p.objects[0].palette.first(2);
  EXPECT_EQ(code(p), ErrorCode::kSizeMismatch);
  p = posed_at(10);
  p.objects[2].sprite_frame = 99;
  EXPECT_EQ(code(p), ErrorCode::kBadFrame);
  p = posed_at(10);
  p.objects[2].model.m[12] = std::nanf("");
  EXPECT_EQ(code(p), ErrorCode::kInvalidArgument);
  EXPECT_EQ(scene->draw(posed_at(10), {front_ortho({0, 2, 0}, 6), {}, 0, 16}).error().code(),
            ErrorCode::kInvalidArgument);
  // A snapshot that fits still draws, and nothing above left a GL error behind.
  EXPECT_EQ(code(posed_at(10)), ErrorCode::kOk);
  // A rigged object without a palette draws its bind pose.
  p = posed_at(10);
  p.objects[0].palette = {};
  p.objects[0].previous_palette = {};
  p.objects[1].palette = {};
  EXPECT_EQ(code(p), ErrorCode::kOk);
}

}  // namespace
}  // namespace animpack::gl
