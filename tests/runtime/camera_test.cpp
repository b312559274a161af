// camera_for_box: every corner of the box lands inside the image for wide, tall and
// square images, perspective and orthographic, from several directions; refusals are
// error values; the same box gives the same bits.
#include "animpack/camera.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace animpack {
namespace {

Vec3 ndc(const Camera& c, float aspect, Vec3 p) {
  const Mat4 m = projection_matrix(c, aspect) * view_matrix(c);
  const float x = m.m[0] * p.x + m.m[4] * p.y + m.m[8] * p.z + m.m[12];
  const float y = m.m[1] * p.x + m.m[5] * p.y + m.m[9] * p.z + m.m[13];
  const float z = m.m[2] * p.x + m.m[6] * p.y + m.m[10] * p.z + m.m[14];
  const float w = m.m[3] * p.x + m.m[7] * p.y + m.m[11] * p.z + m.m[15];
  return {x / w, y / w, z / w};
}

TEST(CameraForBox, EveryCornerIsInsideTheImageAndTheBoxFillsIt) {
  const Box box{{-0.3f, 0.0f, -0.2f}, {0.4f, 1.8f, 0.25f}};
  for (bool ortho : {false, true}) {
    for (Vec3 view : {Vec3{0.3f, 0.25f, 1}, Vec3{-1, 0.5f, 0}, Vec3{0, -0.2f, -1}}) {
      for (float aspect : {16.0f / 9.0f, 1.0f, 0.5f}) {
        FramingOptions options;
        options.view = view;
        options.orthographic = ortho;
        Result<Camera> c = camera_for_box(box, aspect, options);
        ASSERT_TRUE(c) << c.error().message();
        float widest = 0;
        for (int k = 0; k < 8; ++k) {
          const Vec3 p{(k & 1) ? box.hi.x : box.lo.x, (k & 2) ? box.hi.y : box.lo.y,
                       (k & 4) ? box.hi.z : box.lo.z};
          const Vec3 q = ndc(*c, aspect, p);
          EXPECT_LE(std::abs(q.x), 1.0f) << ortho << " aspect " << aspect << " corner " << k;
          EXPECT_LE(std::abs(q.y), 1.0f) << ortho << " aspect " << aspect << " corner " << k;
          EXPECT_GT(q.z, -1.0f);
          EXPECT_LT(q.z, 1.0f);
          widest = std::max(widest, std::max(std::abs(q.x), std::abs(q.y)));
        }
        EXPECT_GT(widest, 0.8f) << "the box fills the image up to the margin";
      }
    }
  }
}

TEST(CameraForBox, RefusesAnEmptyOrNonFiniteBoxAndBadOptions) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(camera_for_box(Box{}, 1.0f).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(camera_for_box({{0, 0, 0}, {inf, 1, 1}}, 1.0f));
  const Box unit{{0, 0, 0}, {1, 1, 1}};
  EXPECT_FALSE(camera_for_box(unit, 0.0f));
  EXPECT_FALSE(camera_for_box(unit, std::numeric_limits<float>::quiet_NaN()));
  FramingOptions o;
  o.view = {0, 0, 0};
  EXPECT_FALSE(camera_for_box(unit, 1.0f, o));
  o = {};
  o.fov_y = 3.5f;
  EXPECT_FALSE(camera_for_box(unit, 1.0f, o));
  o = {};
  o.margin = 0.5f;
  EXPECT_FALSE(camera_for_box(unit, 1.0f, o));
  o = {};
  o.view = {0, 1, 0};  // along up: another up is taken
  EXPECT_TRUE(camera_for_box(unit, 1.0f, o));
  EXPECT_TRUE(camera_for_box({{1, 2, 3}, {1, 2, 3}}, 1.0f));  // a point
}

TEST(CameraForBox, TheSameBoxGivesTheSameBits) {
  const Box box{{-1.25f, 0.5f, 3.0f}, {2.0f, 4.0f, 3.5f}};
  const Camera a = *camera_for_box(box, 1.5f), b = *camera_for_box(box, 1.5f);
  EXPECT_TRUE(bits_equal(&a.eye.x, &b.eye.x, 3));
  EXPECT_EQ(a.near_plane, b.near_plane);
  EXPECT_EQ(a.far_plane, b.far_plane);
}

}  // namespace
}  // namespace animpack
