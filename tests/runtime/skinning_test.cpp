// CPU skinning: hand-computed vertices, the fixture column in poses, refusals; eight
// influences against a double-precision sum, and morph targets before skinning.
#include "animpack/skinning.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "animpack/animator.h"
#include "animpack/scalar.h"
#include "fixtures/fixture.h"

namespace animpack {
namespace {

TEST(Skinning, BlendsFourMatricesByWeight) {
  Mat4 a, b;
  a.m[12] = 2.0f;  // translate +2 x
  Trs t;
  t.rotation = quat_from_axis_angle({0, 0, 1}, static_cast<float>(det::kPi / 2));
  b = to_matrix(t);  // rotate 90 degrees about z
  const Mat4 palette[] = {a, b};
  const Vec3 p[] = {{1, 0, 0}};
  const Vec3 n[] = {{1, 0, 0}};
  const Vec4 tg[] = {{0, 1, 0, -1}};
  const JointIndices j[] = {{{0, 1, 0, 0}}};
  const Vec4 w[] = {{0.5f, 0.5f, 0, 0}};
  Vec3 op[1], on[1];
  Vec4 ot[1];
  ASSERT_TRUE(skin({p, n, tg, j, w}, palette, {op, on, ot}));
  // Half (3, 0, 0) and half (0, 1, 0).
  EXPECT_NEAR(op[0].x, 1.5f, 1e-6f);
  EXPECT_NEAR(op[0].y, 0.5f, 1e-6f);
  // The normal: half (1,0,0) + half (0,1,0), renormalised.
  EXPECT_NEAR(on[0].x, 0.70710678f, 1e-6f);
  EXPECT_NEAR(on[0].y, 0.70710678f, 1e-6f);
  // The tangent: half (0,1,0) + half (-1,0,0), renormalised, handedness kept.
  EXPECT_NEAR(ot[0].x, -0.70710678f, 1e-6f);
  EXPECT_NEAR(ot[0].y, 0.70710678f, 1e-6f);
  EXPECT_EQ(ot[0].w, -1.0f);
}

TEST(Skinning, TheRestPaletteLeavesTheColumnInItsBindPose) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  a.evaluate(0);
  const fixture::Column col = fixture::make_column();
  std::vector<Vec3> pos(col.positions.size());
  ASSERT_TRUE(skin({col.positions, {}, {}, col.joints, col.weights}, a.palette(), {pos, {}, {}}));
  for (size_t v = 0; v < pos.size(); ++v) {
    EXPECT_EQ(pos[v], col.positions[v]) << v;
  }
}

TEST(Skinning, ABentChainCarriesTheTopOfTheColumnOver) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Rotate", 0));
  a.evaluate(60);  // 0.5 rad at each of bone1..3
  const fixture::Column col = fixture::make_column();
  std::vector<Vec3> pos(col.positions.size()), nrm(col.positions.size());
  ASSERT_TRUE(
      skin({col.positions, col.normals, {}, col.joints, col.weights}, a.palette(), {pos, nrm, {}}));
  // The bottom ring stays put (root only); a vertex fully on bone3 follows bone3's global.
  for (int v = 0; v < fixture::kVerticesPerRing; ++v)
    EXPECT_EQ(pos[static_cast<size_t>(v)], col.positions[static_cast<size_t>(v)]);
  const size_t top = col.positions.size() - 1;
  const Vec3 want = transform_point(a.palette()[3], col.positions[top]);
  EXPECT_NEAR(pos[top].x, want.x, 1e-6f);
  EXPECT_NEAR(pos[top].y, want.y, 1e-6f);
  EXPECT_LT(pos[top].x, -1.0f) << "bent towards -x by the +z rotations";
  for (const Vec3& n : nrm) EXPECT_NEAR(length(n), 1.0f, 1e-6f);
}

TEST(Skinning, RefusesAJointOutsideThePalette) {
  const Mat4 palette[2];
  const Vec3 p[] = {{1, 0, 0}};
  const JointIndices j[] = {{{0, 2, 0, 0}}};
  const Vec4 w[] = {{0.5f, 0.5f, 0, 0}};
  Vec3 op[1];
  auto r = skin({p, {}, {}, j, w}, palette, {op, {}, {}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadJointIndex);
}

TEST(Skinning, RefusesStreamsOfDifferentLengths) {
  const Mat4 palette[1];
  const Vec3 p[] = {{1, 0, 0}, {2, 0, 0}};
  const JointIndices j[] = {{}};
  const Vec4 w[] = {{1, 0, 0, 0}};
  Vec3 op[2];
  auto r = skin({p, {}, {}, j, w}, palette, {op, {}, {}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kSizeMismatch);
}

// A double-precision affine transform of p (w = 1) or d (w = 0) by a column-major matrix.
struct D3 {
  double x, y, z;
};
D3 transform(const Mat4& m, Vec3 v, double w) {
  return {m.m[0] * double{v.x} + m.m[4] * double{v.y} + m.m[8] * double{v.z} + m.m[12] * w,
          m.m[1] * double{v.x} + m.m[5] * double{v.y} + m.m[9] * double{v.z} + m.m[13] * w,
          m.m[2] * double{v.x} + m.m[6] * double{v.y} + m.m[10] * double{v.z} + m.m[14] * w};
}

// Eight different matrices: turns about three axes, translations and a scale.
std::vector<Mat4> eight_matrices() {
  std::vector<Mat4> palette;
  for (int i = 0; i < 8; ++i) {
    Trs t;
    const Vec3 axis = i % 3 == 0 ? Vec3{0, 0, 1} : (i % 3 == 1 ? Vec3{0, 1, 0} : Vec3{1, 0, 0});
    t.rotation = quat_from_axis_angle(axis, 0.3f * static_cast<float>(i + 1));
    t.translation = {0.1f * static_cast<float>(i), -0.2f * static_cast<float>(i % 4), 0.5f};
    t.scale = {1.0f + 0.05f * static_cast<float>(i), 1.0f, 1.0f};
    palette.push_back(to_matrix(t));
  }
  return palette;
}

TEST(Skinning, EightInfluencesMatchADoublePrecisionSum) {
  const std::vector<Mat4> palette = eight_matrices();
  const Vec3 p[] = {{0.3f, 1.2f, -0.7f}, {-2.0f, 0.5f, 0.25f}};
  const Vec3 n[] = {{0, 0, 1}, {0.6f, 0.8f, 0}};
  const JointIndices j0[] = {{{0, 1, 2, 3}}, {{7, 6, 5, 4}}};
  const JointIndices j1[] = {{{4, 5, 6, 7}}, {{3, 2, 1, 0}}};
  const Vec4 w0[] = {{0.3f, 0.2f, 0.1f, 0.1f}, {0.05f, 0.05f, 0.1f, 0.2f}};
  const Vec4 w1[] = {{0.1f, 0.05f, 0.1f, 0.05f}, {0.3f, 0.1f, 0.1f, 0.1f}};
  Vec3 op[2], on[2];
  SkinInput in{p, n, {}, j0, w0};
  in.joints1 = j1;
  in.weights1 = w1;
  ASSERT_TRUE(skin(in, palette, {op, on, {}}));
  for (size_t v = 0; v < 2; ++v) {
    const float ws[8] = {w0[v].x, w0[v].y, w0[v].z, w0[v].w, w1[v].x, w1[v].y, w1[v].z, w1[v].w};
    const uint16_t js[8] = {j0[v].j[0], j0[v].j[1], j0[v].j[2], j0[v].j[3],
                            j1[v].j[0], j1[v].j[1], j1[v].j[2], j1[v].j[3]};
    D3 want{0, 0, 0}, wn{0, 0, 0};
    for (int i = 0; i < 8; ++i) {
      const D3 q = transform(palette[js[i]], p[v], 1.0);
      const D3 m = transform(palette[js[i]], n[v], 0.0);
      want = {want.x + ws[i] * q.x, want.y + ws[i] * q.y, want.z + ws[i] * q.z};
      wn = {wn.x + ws[i] * m.x, wn.y + ws[i] * m.y, wn.z + ws[i] * m.z};
    }
    const double len = std::sqrt(wn.x * wn.x + wn.y * wn.y + wn.z * wn.z);
    EXPECT_NEAR(op[v].x, want.x, 1e-5) << v;
    EXPECT_NEAR(op[v].y, want.y, 1e-5) << v;
    EXPECT_NEAR(op[v].z, want.z, 1e-5) << v;
    EXPECT_NEAR(on[v].x, wn.x / len, 1e-5) << v;
    EXPECT_NEAR(on[v].y, wn.y / len, 1e-5) << v;
    EXPECT_NEAR(on[v].z, wn.z / len, 1e-5) << v;
  }
  // The second set matters: without it the vertex lands elsewhere.
  Vec3 four[2];
  ASSERT_TRUE(skin({p, {}, {}, j0, w0}, palette, {four, {}, {}}));
  EXPECT_GT(length(four[0] - op[0]), 1e-3f);
}

TEST(Skinning, ASecondSetOfZeroWeightsGivesTheFourInfluenceBits) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Rotate", 0));
  a.evaluate(45);
  const fixture::Column col = fixture::make_column();
  const size_t n = col.positions.size();
  // Joints the second set names but does not weigh: any joint of the palette.
  std::vector<JointIndices> j1(n, JointIndices{{3, 2, 1, 0}});
  std::vector<Vec4> w1(n, Vec4{0, 0, 0, 0});
  std::vector<Vec3> p4(n), n4(n), p8(n), n8(n);
  std::vector<Vec4> t4(n), t8(n);
  ASSERT_TRUE(skin({col.positions, col.normals, col.tangents, col.joints, col.weights}, a.palette(),
                   {p4, n4, t4}));
  SkinInput in{col.positions, col.normals, col.tangents, col.joints, col.weights};
  in.joints1 = j1;
  in.weights1 = w1;
  ASSERT_TRUE(skin(in, a.palette(), {p8, n8, t8}));
  EXPECT_EQ(std::memcmp(p4.data(), p8.data(), n * sizeof(Vec3)), 0);
  EXPECT_EQ(std::memcmp(n4.data(), n8.data(), n * sizeof(Vec3)), 0);
  EXPECT_EQ(std::memcmp(t4.data(), t8.data(), n * sizeof(Vec4)), 0);
  // And morph targets of weight 0 change nothing either.
  std::vector<Vec3> deltas(2 * n, Vec3{1, 2, 3});
  const float zero[] = {0.0f, 0.0f};
  in.morph = MorphDeltas{2, deltas, deltas, deltas};
  in.morph_weights = zero;
  ASSERT_TRUE(skin(in, a.palette(), {p8, n8, t8}));
  EXPECT_EQ(std::memcmp(p4.data(), p8.data(), n * sizeof(Vec3)), 0);
  EXPECT_EQ(std::memcmp(n4.data(), n8.data(), n * sizeof(Vec3)), 0);
  EXPECT_EQ(std::memcmp(t4.data(), t8.data(), n * sizeof(Vec4)), 0);
}

TEST(Skinning, MorphsThenSkins) {
  Mat4 a;
  a.m[12] = 2.0f;  // translate +2 x
  Trs t;
  t.rotation = quat_from_axis_angle({0, 0, 1}, static_cast<float>(det::kPi / 2));
  const Mat4 b = to_matrix(t);  // rotate 90 degrees about z
  const Mat4 palette[] = {a, b};
  const Vec3 p[] = {{1, 0, 0}};
  const Vec3 n[] = {{1, 0, 0}};
  const Vec4 tg[] = {{0, 1, 0, 1}};
  const JointIndices j[] = {{{0, 1, 0, 0}}};
  const Vec4 w[] = {{0.5f, 0.5f, 0, 0}};
  // Two targets: the first moves the vertex +y and turns the normal, the second (weight
  // 0) would move it far.
  const Vec3 dp[] = {{0, 1, 0}, {100, 100, 100}};
  const Vec3 dn[] = {{0, 1, 0}, {5, 5, 5}};
  const float mw[] = {0.5f, 0.0f};
  SkinInput in{p, n, tg, j, w};
  in.morph = MorphDeltas{2, dp, dn, {}};
  in.morph_weights = mw;
  Vec3 op[1], on[1];
  Vec4 ot[1];
  ASSERT_TRUE(skin(in, palette, {op, on, ot}));
  // Morphed: p = (1, 0.5, 0), n = (1, 0.5, 0) (not renormalised before skinning).
  // Skinned: half of a (3, 0.5, 0) and half of b (-0.5, 1, 0) = (1.25, 0.75, 0); the
  // normal: half (1, 0.5, 0) + half (-0.5, 1, 0) = (0.25, 0.75, 0), renormalised.
  EXPECT_NEAR(op[0].x, 1.25f, 1e-6f);
  EXPECT_NEAR(op[0].y, 0.75f, 1e-6f);
  EXPECT_NEAR(op[0].z, 0.0f, 1e-6f);
  const double len = std::sqrt(0.25 * 0.25 + 0.75 * 0.75);
  EXPECT_NEAR(on[0].x, 0.25 / len, 1e-6);
  EXPECT_NEAR(on[0].y, 0.75 / len, 1e-6);
  // The tangent has no deltas: half (0, 1, 0) + half (-1, 0, 0), renormalised.
  EXPECT_NEAR(ot[0].x, -0.70710678f, 1e-6f);
  EXPECT_NEAR(ot[0].y, 0.70710678f, 1e-6f);
  EXPECT_EQ(ot[0].w, 1.0f);
  // The input streams are untouched.
  EXPECT_EQ(p[0], (Vec3{1, 0, 0}));
}

TEST(Skinning, RefusesEightInfluenceAndMorphStreamsThatDisagree) {
  const Mat4 palette[2];
  const Vec3 p[] = {{1, 0, 0}};
  const JointIndices j[] = {{{0, 1, 0, 0}}};
  const JointIndices far[] = {{{0, 0, 2, 0}}};
  const Vec4 w[] = {{0.5f, 0.5f, 0, 0}};
  Vec3 op[1];
  const auto code = [](const Result<void>& r) { return r ? ErrorCode::kOk : r.error().code(); };
  SkinInput in{p, {}, {}, j, w};
  in.joints1 = far;
  in.weights1 = w;
  EXPECT_EQ(code(skin(in, palette, {op, {}, {}})), ErrorCode::kBadJointIndex);
  in.joints1 = j;
  in.weights1 = {};
  EXPECT_EQ(code(skin(in, palette, {op, {}, {}})), ErrorCode::kSizeMismatch);
  in.joints1 = {};
  in.weights1 = w;
  EXPECT_EQ(code(skin(in, palette, {op, {}, {}})), ErrorCode::kSizeMismatch);
  in.weights1 = {};
  const Vec3 d[] = {{1, 0, 0}, {0, 1, 0}};
  const float one[] = {1.0f};
  in.morph = MorphDeltas{1, d, {}, {}};  // two deltas for one target of one vertex
  in.morph_weights = one;
  EXPECT_EQ(code(skin(in, palette, {op, {}, {}})), ErrorCode::kSizeMismatch);
  in.morph = MorphDeltas{1, {d, 1}, {}, {}};
  EXPECT_EQ(code(skin(in, palette, {op, {}, {}})), ErrorCode::kOk);
  EXPECT_EQ(op[0], (Vec3{2, 0, 0}));
}

}  // namespace
}  // namespace animpack
