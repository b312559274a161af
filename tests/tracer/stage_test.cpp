// Staging a posed snapshot: skinned parts are the runtime's skin() bit for bit, node
// parts ride their joint, sprite cards show their frame, ids are object + 1, and
// snapshots that do not fit the pack are refused.
#include "animpack/tracer/stage.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <vector>

#include "animpack/animator.h"
#include "animpack/skinning.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/shading.h"
#include "trace_fixture.h"

namespace animpack::trace {
namespace {

using trace_test::kArm;
using trace_test::kCard;
using trace_test::kColumn;
using trace_test::kFloater;

class Stage : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = Pack::from_bytes(trace_test::pack_bytes());
    ASSERT_TRUE(p) << p.error().message();
    pack_.emplace(std::move(*p));
    auto a = Animator::create(&pack_->rig(0), 60);
    ASSERT_TRUE(a);
    animator_.emplace(std::move(*a));
    ASSERT_TRUE(animator_->play("Rotate", 0));
    animator_->evaluate(45);
  }

  // Triangles of one object, in staging order.
  std::vector<Triangle> triangles_of(const TraceScene& scene, int object) const {
    std::vector<Triangle> out;
    for (size_t t = 0; t < scene.triangle_count(); ++t) {
      if (scene.object_ids()[t] == object_id(object)) out.push_back(scene.triangles()[t]);
    }
    return out;
  }

  std::optional<Pack> pack_;
  std::optional<Animator> animator_;
  Mat4 arm_palette_[2];
};

TEST_F(Stage, SkinsSkinnedPartsWithTheRuntimesSkinBitForBit) {
  const Posed posed = trace_test::posed(*pack_, animator_->palette(), arm_palette_, 0);
  auto scene = stage_posed(*pack_, posed);
  ASSERT_TRUE(scene) << scene.error().message();
  EXPECT_TRUE(scene->built());

  auto s = pack_->part_streams(0);
  ASSERT_TRUE(s);
  std::vector<Vec3> skinned(s->positions.size()), normals(s->normals.size());
  ASSERT_TRUE(skin({s->positions, s->normals, {}, s->joints, s->weights}, animator_->palette(),
                   {skinned, normals, {}}));
  const std::vector<Triangle> tris = triangles_of(*scene, kColumn);
  ASSERT_EQ(tris.size(), s->indices.size() / 3);
  const Mat4 model = posed.objects[kColumn].model;
  for (size_t t = 0; t < tris.size(); ++t) {
    const Vec3 expect[3] = {transform_point(model, skinned[s->indices[3 * t]]),
                            transform_point(model, skinned[s->indices[3 * t + 1]]),
                            transform_point(model, skinned[s->indices[3 * t + 2]])};
    ASSERT_TRUE(bits_equal(&tris[t].a.x, &expect[0].x, 3)) << t;
    ASSERT_TRUE(bits_equal(&tris[t].b.x, &expect[1].x, 3)) << t;
    ASSERT_TRUE(bits_equal(&tris[t].c.x, &expect[2].x, 3)) << t;
  }
  // The pose bends the column: its top is no longer above its foot.
  EXPECT_LT(scene->bounds().lo.x, -1.0f);
}

TEST_F(Stage, ShowsTheBindPoseWhenTheSnapshotHasNoPalette) {
  auto scene = stage_posed(*pack_, trace_test::posed(*pack_, {}, {}, 0));
  ASSERT_TRUE(scene) << scene.error().message();
  Aabb column;
  for (const Triangle& t : triangles_of(*scene, kColumn)) {
    column.grow(t.a);
    column.grow(t.b);
    column.grow(t.c);
  }
  EXPECT_EQ(column.lo.x, -0.25f);
  EXPECT_EQ(column.hi.x, 0.25f);
  EXPECT_EQ(column.lo.y, 0.0f);
  EXPECT_EQ(column.hi.y, 4.0f);
}

TEST_F(Stage, PlacesNodeRigPartsByTheirJointsPaletteEntry) {
  arm_palette_[1] = to_matrix(Trs{{1, 0.5f, 0}, quat_from_axis_angle({0, 0, 1}, 0.3f), {1, 1, 1}});
  auto scene = stage_posed(*pack_, trace_test::posed(*pack_, {}, arm_palette_, 0));
  ASSERT_TRUE(scene) << scene.error().message();
  const std::vector<Triangle> tris = triangles_of(*scene, kArm);
  ASSERT_EQ(tris.size(), 12u);
  auto part = pack_->part_streams(pack_->meshes()[2].first_part);
  ASSERT_TRUE(part);
  const Mat4 m =
      mul_affine(trace_test::posed(*pack_, {}, {}, 0).objects[kArm].model, arm_palette_[1]);
  const Vec3 expect = transform_point(m, part->positions[part->indices[0]]);
  EXPECT_TRUE(bits_equal(&tris[0].a.x, &expect.x, 3));
  Aabb box;
  for (const Triangle& t : tris) {
    box.grow(t.a);
    box.grow(t.b);
    box.grow(t.c);
  }
  EXPECT_NEAR(box.centre().x, 1.0f, 1e-5f);
  EXPECT_NEAR(box.centre().y, 0.5f, 1e-5f);
  EXPECT_NEAR(box.centre().z, -3.0f, 1e-5f);
}

TEST_F(Stage, GivesEveryTriangleItsObjectIndexPlusOne) {
  auto scene =
      stage_posed(*pack_, trace_test::posed(*pack_, animator_->palette(), arm_palette_, 0));
  ASSERT_TRUE(scene);
  const std::set<uint32_t> ids(scene->object_ids().begin(), scene->object_ids().end());
  EXPECT_EQ(ids, (std::set<uint32_t>{object_id(kColumn), object_id(kCard), object_id(kFloater),
                                     object_id(kArm)}));
  EXPECT_EQ(object_id(kColumn), 1u);
  EXPECT_EQ(kNoObject, 0u);
}

TEST_F(Stage, ShowsASpriteWithoutACardOnAUnitQuadUnlessToldNotTo) {
  auto scene = stage_posed(*pack_, trace_test::posed(*pack_, {}, arm_palette_, 2));
  ASSERT_TRUE(scene);
  const std::vector<Triangle> quad = triangles_of(*scene, kFloater);
  ASSERT_EQ(quad.size(), 2u);
  Aabb box;
  for (const Triangle& t : quad) {
    box.grow(t.a);
    box.grow(t.b);
    box.grow(t.c);
  }
  // 1 unit high, as wide as the 8 x 8 frame's aspect, centred on (-2, 1, 0).
  EXPECT_FLOAT_EQ(box.lo.x, -2.5f);
  EXPECT_FLOAT_EQ(box.hi.x, -1.5f);
  EXPECT_FLOAT_EQ(box.lo.y, 0.5f);
  EXPECT_FLOAT_EQ(box.hi.y, 1.5f);
  EXPECT_FLOAT_EQ(box.extent().z, 0.0f);

  StageOptions options;
  options.cardless_sprites = false;  // the flat pass draws it, not the 3D scene
  scene = stage_posed(*pack_, trace_test::posed(*pack_, {}, arm_palette_, 2), options);
  ASSERT_TRUE(scene);
  EXPECT_TRUE(triangles_of(*scene, kFloater).empty());
  EXPECT_FALSE(triangles_of(*scene, kCard).empty());
}

TEST_F(Stage, RefusesSnapshotsThatDoNotFitThePack) {
  Posed bad = trace_test::posed(*pack_, {}, arm_palette_, 0);
  bad.objects[0].object = 9;
  auto r = stage_posed(*pack_, bad);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);

  bad = trace_test::posed(*pack_, {}, arm_palette_, 0);
  bad.objects[kCard].mesh = 7;
  r = stage_posed(*pack_, bad);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);

  r = stage_posed(*pack_, trace_test::posed(*pack_, {}, arm_palette_, 8));  // 8 frames: 0..7
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadFrame);

  r = stage_posed(*pack_, trace_test::posed(*pack_, {}, std::span<const Mat4>(arm_palette_, 1), 0));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadJointIndex);

  const std::span<const Mat4> short_palette = animator_->palette().first(2);
  r = stage_posed(*pack_, trace_test::posed(*pack_, short_palette, arm_palette_, 0));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadJointIndex);  // skin(): joint 2 and 3
}

ErrorCode code_of(const Result<void>& r) { return r ? ErrorCode::kOk : r.error().code(); }

TEST(TraceScene, RefusesMeshesThatDoNotHoldTogether) {
  TraceScene scene;
  const Vec3 p[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  const Vec3 n[2] = {{0, 0, 1}, {0, 0, 1}};
  const uint32_t ok_idx[3] = {0, 1, 2}, two[2] = {0, 1}, out_of_range[3] = {0, 1, 3};
  EXPECT_EQ(code_of(scene.add_mesh({p, {}, {}, two, 1, 0})), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code_of(scene.add_mesh({p, {}, {}, out_of_range, 1, 0})), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code_of(scene.add_mesh({p, n, {}, ok_idx, 1, 0})), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code_of(scene.add_mesh({p, {}, {}, ok_idx, 1, 5})), ErrorCode::kInvalidArgument);
  Texture tex;
  tex.width = 2;
  tex.height = 2;
  tex.rgba.assign(16, 255);
  Material textured;
  textured.base_color_texture.texture = static_cast<int>(scene.add_texture(tex));
  textured.base_color_texture.rect = {0, 0, 2, 2};
  const uint32_t m = scene.add_material(textured);
  EXPECT_EQ(code_of(scene.add_mesh({p, {}, {}, ok_idx, 1, m})),
            ErrorCode::kInvalidArgument);  // textured without texture coordinates
  textured.base_color_texture.rect = {1, 1, 2, 2};
  const uint32_t outside = scene.add_material(textured);
  const Uv uv[3] = {{0, 0}, {1, 0}, {0, 1}};
  EXPECT_EQ(code_of(scene.add_mesh({p, {}, uv, ok_idx, 1, outside})), ErrorCode::kInvalidArgument);
  EXPECT_EQ(scene.triangle_count(), 0u);
  EXPECT_TRUE(scene.add_mesh({p, {}, uv, ok_idx, 1, m}));
  EXPECT_EQ(scene.triangle_count(), 1u);
  EXPECT_FALSE(scene.built());
  scene.build();
  EXPECT_TRUE(scene.built());
}

}  // namespace
}  // namespace animpack::trace

namespace animpack::trace {
namespace {

TEST(StageMaterials, PartsTakeThePacksMaterialsAndTexturesOnceEach) {
  auto pack = Pack::from_bytes(trace_test::textured_pack_bytes());
  ASSERT_TRUE(pack) << pack.error().message();
  Posed posed;
  for (int i = 0; i < 2; ++i) {
    PosedObject o;
    o.object = i;
    o.mesh = 0;
    o.model = to_matrix(Trs{pack->objects()[static_cast<size_t>(i)].position, {}, {1, 1, 1}});
    posed.objects.push_back(o);
  }
  auto scene = stage_posed(*pack, posed);
  ASSERT_TRUE(scene) << scene.error().message();
  ASSERT_EQ(scene->textures().size(), 1u);  // shared by both objects
  EXPECT_EQ(scene->textures()[0].color_space, ColorSpace::kSrgb);
  // Materials: the default, the pack's one, and each object's colour for part 1.
  ASSERT_EQ(scene->materials().size(), 4u);
  const Material& checker = scene->materials()[1];
  EXPECT_EQ(checker.base_color_texture.texture, 0);
  EXPECT_TRUE(checker.base_color_texture.nearest);
  EXPECT_EQ(checker.metallic, 1.0f);
  EXPECT_TRUE(checker.double_sided);
  const Material& plain = scene->materials()[2];
  EXPECT_EQ(plain.base_color.x, object_color(0).x);
  EXPECT_EQ(plain.metallic, 0.0f);
  EXPECT_EQ(plain.roughness, 1.0f);
  EXPECT_FALSE(plain.double_sided);  // glTF's default material

  // Seen from the front at ambient 1: the checker's texels and the object's colour.
  RenderOptions o;
  o.width = 16;
  o.height = 8;
  o.samples = 1;
  o.ambient = 1.0f;
  o.camera.orthographic = true;
  o.camera.ortho_height = 2.0f;
  o.camera.eye = {1, 1, 10};
  o.camera.target = {1, 1, 0};
  auto frame = render(*scene, o);
  ASSERT_TRUE(frame);
  // x from -1 to 3, 4 pixels a unit: pixel 1 is u = 0.19 of the quad, pixel 6 u = 0.81.
  for (const auto& [px, py, tx, ty] :
       {std::array<int, 4>{1, 1, 0, 0}, {6, 1, 1, 0}, {1, 6, 0, 1}, {6, 6, 1, 1}}) {
    const std::array<uint8_t, 4> t =
        trace_test::checker_texel(static_cast<uint32_t>(tx), static_cast<uint32_t>(ty));
    const Rgba c = frame->color.at(px, py);
    EXPECT_EQ(c.r, t[0]) << px << "," << py;
    EXPECT_EQ(c.g, t[1]) << px << "," << py;
    EXPECT_EQ(c.b, t[2]) << px << "," << py;
    EXPECT_EQ(frame->ids[static_cast<size_t>(py * 16 + px)], object_id(0));
  }
  const Rgba untextured = frame->color.at(13, 4);  // x = 2.375: part 1, c_diff + F0
  EXPECT_EQ(untextured.r, linear_to_srgb_byte(object_color(0).x + 0.04f));
  EXPECT_EQ(untextured.g, linear_to_srgb_byte(object_color(0).y + 0.04f));
}

}  // namespace
}  // namespace animpack::trace
