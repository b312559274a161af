// CPU skinning: hand-computed vertices, the fixture column in poses, refusals; eight
// influences against a double-precision sum, and morph targets before skinning.
#include "animpack/skinning.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/morph.h"
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

// ---------------------------------------------------------------------------------------
// skin() works on four vertices at a time; these compare it, bit for bit, with a plain
// scalar reference kept here: one vertex at a time, the operations of the CPU reference
// in their order. Blend: each of the 16 matrix elements ((m0 w0 + m1 w1) + m2 w2) + m3 w3,
// then + m w for each of influences 5..8 whose weight is not exactly 0; position
// ((c0 x + c1 y) + c2 z) + c3 per row, directions without c3; normals and tangents' xyz
// by len = sqrt((x x + y y) + z z), unchanged when len == 0, else x (1 / len).

struct Skinned {
  std::vector<Vec3> positions, normals;
  std::vector<Vec4> tangents;
};

Skinned reference_skin(const SkinInput& in, std::span<const Mat4> palette) {
  Skinned out;
  const size_t n = in.positions.size();
  const auto normalised = [](float x, float y, float z, float r[3]) {
    const float len = std::sqrt((x * x + y * y) + z * z);
    if (len == 0.0f) {
      r[0] = x, r[1] = y, r[2] = z;
      return;
    }
    const float inv = 1.0f / len;
    r[0] = x * inv, r[1] = y * inv, r[2] = z * inv;
  };
  for (size_t v = 0; v < n; ++v) {
    const float w[4] = {in.weights[v].x, in.weights[v].y, in.weights[v].z, in.weights[v].w};
    float c[16];
    for (int e = 0; e < 16; ++e) {
      c[e] = palette[in.joints[v].j[0]].m[e] * w[0];
      for (int i = 1; i < 4; ++i) c[e] = c[e] + palette[in.joints[v].j[i]].m[e] * w[i];
    }
    if (!in.joints1.empty()) {
      const float w1[4] = {in.weights1[v].x, in.weights1[v].y, in.weights1[v].z, in.weights1[v].w};
      for (int i = 0; i < 4; ++i) {
        if (w1[i] == 0.0f) continue;
        for (int e = 0; e < 16; ++e) c[e] = c[e] + palette[in.joints1[v].j[i]].m[e] * w1[i];
      }
    }
    const auto direction = [&c](float x, float y, float z, float r[3]) {
      for (int k = 0; k < 3; ++k) r[k] = (c[k] * x + c[4 + k] * y) + c[8 + k] * z;
    };
    const Vec3 p = in.positions[v];
    float d[3];
    direction(p.x, p.y, p.z, d);
    out.positions.push_back({d[0] + c[12], d[1] + c[13], d[2] + c[14]});
    float r[3];
    if (!in.normals.empty()) {
      const Vec3 q = in.normals[v];
      direction(q.x, q.y, q.z, d);
      normalised(d[0], d[1], d[2], r);
      out.normals.push_back({r[0], r[1], r[2]});
    }
    if (!in.tangents.empty()) {
      const Vec4 t = in.tangents[v];
      direction(t.x, t.y, t.z, d);
      normalised(d[0], d[1], d[2], r);
      out.tangents.push_back({r[0], r[1], r[2], t.w});
    }
  }
  return out;
}

// A random mesh of n vertices over a palette of `joints` matrices, with the awkward
// cases mixed in: zero-length and vanishing normals and tangents (whose squared length
// underflows to 0), negative zeros, weights that are all zero, a single 1, or negative,
// tangents' w of +1 and -1.
struct RandomMesh {
  std::vector<Vec3> positions, normals;
  std::vector<Vec4> tangents;
  std::vector<JointIndices> joints, joints1;
  std::vector<Vec4> weights, weights1;
  std::vector<Mat4> palette;
};

RandomMesh random_mesh(size_t n, uint16_t joints, uint32_t seed) {
  uint32_t state = seed;
  const auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  const auto unit = [&next] { return static_cast<float>(next()) / 16777216.0f; };  // [0, 1)
  const auto range = [&unit](float lo, float hi) { return lo + (hi - lo) * unit(); };
  RandomMesh m;
  for (uint16_t i = 0; i < joints; ++i) {
    Trs t;
    t.rotation = normalize(Quat{range(-1, 1), range(-1, 1), range(-1, 1), range(-1, 1)});
    t.translation = {range(-2, 2), range(-2, 2), range(-2, 2)};
    t.scale = {range(0.5f, 1.5f), range(0.5f, 1.5f), range(0.5f, 1.5f)};
    m.palette.push_back(to_matrix(t));
  }
  const auto direction = [&](uint32_t kind) -> Vec3 {
    switch (kind % 8) {
      case 0:
        return {0.0f, 0.0f, 0.0f};
      case 1:
        return {-0.0f, 0.0f, -0.0f};
      case 2:
        return {1e-30f, -1e-30f, 0.0f};  // x x + y y underflows to 0
      default:
        return {range(-1, 1), range(-1, 1), range(-1, 1)};
    }
  };
  const auto weights = [&](uint32_t kind) -> Vec4 {
    switch (kind % 8) {
      case 0:
        return {0, 0, 0, 0};
      case 1:
        return {1, 0, 0, 0};
      case 2:
        return {0, 0, 0, 1};
      case 3:
        return {-0.25f, 0.5f, 0.75f, 0.0f};
      case 4:
        return {0.0f, 0.3f, 0.0f, 0.2f};
      default: {
        const Vec4 w{unit(), unit(), unit(), unit()};
        const float sum = ((w.x + w.y) + w.z) + w.w + 1e-3f;
        return {w.x / sum, w.y / sum, w.z / sum, w.w / sum};
      }
    }
  };
  const auto joint_set = [&] {
    JointIndices j;
    for (uint16_t& x : j.j) x = static_cast<uint16_t>(next() % joints);
    return j;
  };
  for (size_t v = 0; v < n; ++v) {
    m.positions.push_back({range(-3, 3), range(-3, 3), range(-3, 3)});
    m.normals.push_back(direction(next() % 16));
    const Vec3 t = direction(next() % 16);
    m.tangents.push_back({t.x, t.y, t.z, next() % 2 ? 1.0f : -1.0f});
    m.joints.push_back(joint_set());
    m.joints1.push_back(joint_set());
    m.weights.push_back(weights(next() % 16));
    m.weights1.push_back(weights(next() % 16));
  }
  return m;
}

template <typename T>
bool same_bits(const std::vector<T>& a, std::span<const T> b) {
  // An empty stream has no data() to compare (memcmp must not see a null pointer).
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Skins m with the given streams (and eight influences when asked) both ways and
// expects the same bits in every output stream.
void expect_reference_bits(const RandomMesh& m, bool normals, bool tangents, bool eight) {
  const size_t n = m.positions.size();
  SkinInput in{m.positions, {}, {}, m.joints, m.weights};
  if (normals) in.normals = m.normals;
  if (tangents) in.tangents = m.tangents;
  if (eight) {
    in.joints1 = m.joints1;
    in.weights1 = m.weights1;
  }
  std::vector<Vec3> op(n), on(normals ? n : 0);
  std::vector<Vec4> ot(tangents ? n : 0);
  ASSERT_TRUE(skin(in, m.palette, {op, on, ot}));
  const Skinned want = reference_skin(in, m.palette);
  EXPECT_TRUE(same_bits(want.positions, std::span<const Vec3>(op)))
      << n << " vertices, normals " << normals << ", tangents " << tangents << ", eight " << eight;
  EXPECT_TRUE(same_bits(want.normals, std::span<const Vec3>(on))) << n << " vertices";
  EXPECT_TRUE(same_bits(want.tangents, std::span<const Vec4>(ot))) << n << " vertices";
}

TEST(Skinning, FourAtATimeMatchesOneAtATimeBitForBit) {
  // Counts below, at and around multiples of four; one to four groups (normals are
  // normalised a group after they are skinned, the last ones after the loop; with tangents
  // the groups are skinned as rows); and longer meshes.
  for (const size_t n :
       {size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{5}, size_t{7}, size_t{8}, size_t{9},
        size_t{12}, size_t{15}, size_t{16}, size_t{256}, size_t{260}, size_t{1001}}) {
    const RandomMesh m = random_mesh(n, 37, 0x5eed0000u + static_cast<uint32_t>(n));
    for (const bool normals : {false, true}) {
      for (const bool tangents : {false, true}) expect_reference_bits(m, normals, tangents, false);
    }
  }
}

TEST(Skinning, WritesNothingOutsideItsOutputStreams) {
  // The groups store their Vec3s with overlapping 16-byte stores: each output stream here
  // lies inside a larger buffer whose other floats hold a marker, which must survive.
  constexpr size_t kGuard = 8;
  const float marker = 12345.5f;
  for (const size_t n : {size_t{4}, size_t{5}, size_t{8}, size_t{11}, size_t{64}}) {
    const RandomMesh m = random_mesh(n, 37, 0x5eed4000u + static_cast<uint32_t>(n));
    for (const bool normals : {false, true}) {
      for (const bool tangents : {false, true}) {
        SkinInput in{m.positions, {}, {}, m.joints, m.weights};
        if (normals) in.normals = m.normals;
        if (tangents) in.tangents = m.tangents;
        std::vector<Vec3> pos(n + 2 * kGuard, Vec3{marker, marker, marker});
        std::vector<Vec3> nrm(n + 2 * kGuard, Vec3{marker, marker, marker});
        std::vector<Vec4> tan(n + 2 * kGuard, Vec4{marker, marker, marker, marker});
        const SkinOutput out{
            std::span<Vec3>(pos).subspan(kGuard, n),
            normals ? std::span<Vec3>(nrm).subspan(kGuard, n) : std::span<Vec3>{},
            tangents ? std::span<Vec4>(tan).subspan(kGuard, n) : std::span<Vec4>{}};
        ASSERT_TRUE(skin(in, m.palette, out));
        const Skinned want = reference_skin(in, m.palette);
        EXPECT_TRUE(same_bits(want.positions, std::span<const Vec3>(out.positions))) << n;
        for (size_t i = 0; i < kGuard; ++i) {
          for (const size_t at : {i, kGuard + n + i}) {
            EXPECT_EQ(pos[at].x, marker) << n << " vertices, position " << at;
            EXPECT_EQ(pos[at].z, marker) << n << " vertices, position " << at;
            EXPECT_EQ(nrm[at].x, marker) << n << " vertices, normal " << at;
            EXPECT_EQ(nrm[at].z, marker) << n << " vertices, normal " << at;
            EXPECT_EQ(tan[at].x, marker) << n << " vertices, tangent " << at;
            EXPECT_EQ(tan[at].w, marker) << n << " vertices, tangent " << at;
          }
        }
        if (!normals) {
          EXPECT_EQ(nrm[kGuard].x, marker) << n << " vertices: no normals asked for";
        }
      }
    }
  }
}

TEST(Skinning, EightInfluencesFourAtATimeMatchOneAtATimeBitForBit) {
  for (const size_t n : {size_t{3}, size_t{4}, size_t{6}, size_t{13}, size_t{514}}) {
    const RandomMesh m = random_mesh(n, 64, 0x5eed8000u + static_cast<uint32_t>(n));
    for (const bool normals : {false, true}) {
      for (const bool tangents : {false, true}) expect_reference_bits(m, normals, tangents, true);
    }
  }
}

TEST(Skinning, PackedAndColumnPalettesGiveTheReferenceBits) {
  // For every set of streams, skin() packs the palette's upper 3x4 blocks when at most 256
  // joints are named and the mesh has at least 4 vertices a joint; otherwise its groups
  // read the columns. Each case here is on one side of those limits: the packed palette
  // (64 joints, 2000 vertices; 256 joints, 1024 vertices), the columns for a palette past
  // 256 joints (300 joints, 2000 vertices) and for a mesh too short for its palette (64
  // joints, 200 vertices), with four and with eight influences.
  struct Case {
    uint16_t joints;
    size_t vertices;
  };
  for (const Case c : {Case{64, 2000}, Case{256, 1024}, Case{300, 2000}, Case{64, 200}}) {
    const RandomMesh m = random_mesh(c.vertices, c.joints, 0x5eedc000u + c.joints);
    for (const bool eight : {false, true}) {
      expect_reference_bits(m, false, false, eight);
      expect_reference_bits(m, true, false, eight);
      expect_reference_bits(m, false, true, eight);
      expect_reference_bits(m, true, true, eight);
    }
  }
}

TEST(Skinning, TheReferenceKeepsZeroLengthNormalsAndHandedness) {
  // The cases the comparisons above rely on do occur: a zero-length normal comes back
  // as it went in (negative zeros included), a vanishing one unchanged, w kept.
  const RandomMesh m = random_mesh(257, 8, 0x5eed4000u);
  std::vector<Vec3> op(m.positions.size()), on(m.positions.size());
  std::vector<Vec4> ot(m.positions.size());
  ASSERT_TRUE(
      skin({m.positions, m.normals, m.tangents, m.joints, m.weights}, m.palette, {op, on, ot}));
  int kept = 0, negative = 0, positive = 0;
  for (size_t v = 0; v < m.positions.size(); ++v) {
    const Vec4 w = m.weights[v];
    if (w.x == 0 && w.y == 0 && w.z == 0 && w.w == 0) {
      // All-zero weights collapse the vertex to the origin (+0 or -0 per lane).
      EXPECT_EQ(op[v], (Vec3{0, 0, 0})) << v;
    }
    const Vec3 in_n = m.normals[v];
    if (in_n.x == 0 && in_n.y == 0 && in_n.z == 0) {
      EXPECT_EQ(on[v], (Vec3{0, 0, 0})) << v;
      ++kept;
    } else if (std::abs(in_n.x) > 1e-3f && length(on[v]) != 0.0f) {
      EXPECT_NEAR(length(on[v]), 1.0f, 1e-5f) << v;
    }
    EXPECT_EQ(ot[v].w, m.tangents[v].w) << v;
    (ot[v].w < 0 ? negative : positive) += 1;
  }
  EXPECT_GT(kept, 0);
  EXPECT_GT(negative, 0);
  EXPECT_GT(positive, 0);
}

TEST(Skinning, MorphThenSkinFourAtATimeMatchesOneAtATimeBitForBit) {
  // In place (the morphed streams are skinned where they lie), within one chunk and across
  // three.
  for (const size_t n : {size_t{5}, size_t{12}, size_t{203}, size_t{517}}) {
    const RandomMesh m = random_mesh(n, 20, 0x5eedc000u + static_cast<uint32_t>(n));
    constexpr uint32_t kTargets = 3;
    std::vector<Vec3> dp, dn, dt;
    uint32_t state = static_cast<uint32_t>(n);
    const auto delta = [&state] {
      state = state * 1664525u + 1013904223u;
      return static_cast<float>(state >> 8) / 16777216.0f * 0.2f - 0.1f;
    };
    for (size_t i = 0; i < kTargets * n; ++i) {
      dp.push_back({delta(), delta(), delta()});
      dn.push_back({delta(), delta(), delta()});
      dt.push_back({delta(), delta(), delta()});
    }
    const float mw[kTargets] = {0.5f, 0.0f, -0.75f};
    for (const bool normal_deltas : {false, true}) {
      for (const bool eight : {false, true}) {
        const MorphDeltas deltas{
            kTargets, dp, normal_deltas ? std::span<const Vec3>(dn) : std::span<const Vec3>(), dt};
        // The reference: apply_morph without renormalising, then the scalar skin.
        std::vector<Vec3> mp(n), mn(n);
        std::vector<Vec4> mt(n);
        ASSERT_TRUE(
            apply_morph({m.positions, m.normals, m.tangents, deltas, mw, false}, {mp, mn, mt}));
        SkinInput ref{mp, mn, mt, m.joints, m.weights};
        SkinInput in{m.positions, m.normals, m.tangents, m.joints, m.weights};
        if (eight) {
          ref.joints1 = in.joints1 = m.joints1;
          ref.weights1 = in.weights1 = m.weights1;
        }
        in.morph = deltas;
        in.morph_weights = mw;
        std::vector<Vec3> op(n), on(n);
        std::vector<Vec4> ot(n);
        ASSERT_TRUE(skin(in, m.palette, {op, on, ot}));
        const Skinned want = reference_skin(ref, m.palette);
        EXPECT_TRUE(same_bits(want.positions, std::span<const Vec3>(op))) << n;
        EXPECT_TRUE(same_bits(want.normals, std::span<const Vec3>(on))) << n;
        EXPECT_TRUE(same_bits(want.tangents, std::span<const Vec4>(ot))) << n;
      }
    }
  }
}

TEST(Skinning, RefusesABadJointIndexInAnyVertexOfAGroup) {
  // The index check covers every vertex, whether it falls in a group of four or the rest.
  for (const size_t bad : {size_t{0}, size_t{3}, size_t{5}, size_t{8}}) {
    RandomMesh m = random_mesh(9, 4, 0x5eedb000u);
    m.joints[bad].j[bad % 4] = 4;
    std::vector<Vec3> op(9);
    const Result<void> r =
        skin({m.positions, {}, {}, m.joints, m.weights}, m.palette, {op, {}, {}});
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code(), ErrorCode::kBadJointIndex);
    const std::string message = r.error().message();
    EXPECT_NE(message.find("vertex " + std::to_string(bad) + " "), std::string::npos) << message;
  }
}

TEST(Skinning, RefusesAnOutOfRangeJointIndexWhereverTheScanMeetsIt) {
  // The largest index is found 16 bytes (two vertices) at a time in runs of eight vertices,
  // then vertex by vertex: a bad index in any vertex and lane, in either set of
  // influences, at the edges of the signed order the scan biases (0x7fff, 0x8000) and at
  // the largest (0xffff), is refused and named; the same mesh with every index in range
  // skins.
  for (const size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{17}, size_t{21}}) {
    RandomMesh m = random_mesh(n, 4, 0x5eedb100u + static_cast<uint32_t>(n));
    m.joints1 = m.joints;
    m.weights1.assign(n, Vec4{});
    std::vector<Vec3> op(n);
    const auto input = [&m] {
      SkinInput in{m.positions, {}, {}, m.joints, m.weights};
      in.joints1 = m.joints1;
      in.weights1 = m.weights1;
      return in;
    };
    ASSERT_TRUE(skin(input(), m.palette, {op, {}, {}})) << n;
    for (const bool second : {false, true}) {
      std::vector<JointIndices>& joints = second ? m.joints1 : m.joints;
      for (size_t bad = 0; bad < n; ++bad) {
        for (const uint16_t index :
             {uint16_t{4}, uint16_t{0x7fff}, uint16_t{0x8000}, uint16_t{0xffff}}) {
          const uint16_t kept = joints[bad].j[(bad + index) % 4];
          joints[bad].j[(bad + index) % 4] = index;
          const Result<void> r = skin(input(), m.palette, {op, {}, {}});
          joints[bad].j[(bad + index) % 4] = kept;
          ASSERT_FALSE(r) << n << " " << bad << " " << index;
          EXPECT_EQ(r.error().code(), ErrorCode::kBadJointIndex);
          const std::string message = r.error().message();
          EXPECT_NE(message.find("vertex " + std::to_string(bad) + " "), std::string::npos)
              << message;
          EXPECT_NE(message.find(std::to_string(index)), std::string::npos) << message;
          EXPECT_EQ(message.find("influences 5 to 8") != std::string::npos, second) << message;
        }
      }
    }
  }
}

}  // namespace
}  // namespace animpack
