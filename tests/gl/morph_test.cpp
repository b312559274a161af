// Morph targets and eight influences in the vertex stage, against the CPU reference:
// skin() (morph, then skin; influences summed 0..7) and apply_morph() for a morphed mesh
// without a skin. Meshes are built in code (fixtures/morph_fixture.h): the fixture column
// with three targets, and a column of eight bones whose vertices weigh up to eight.
#include "animpack/morph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "animpack/animator.h"
#include "animpack/gl/renderer.h"
#include "animpack/skinning.h"
#include "fixtures/fixture.h"
#include "fixtures/morph_fixture.h"
#include "gl_test_support.h"

namespace animpack::gl {
namespace {

using testing::front_ortho;
using testing::GlTest;

template <typename T>
T must(Result<T> r) {
  EXPECT_TRUE(r) << r.error().message();
  return std::move(*r);
}

struct Streams {
  std::vector<Vec3> positions, normals;
  std::vector<Vec4> tangents;
};

Streams sized(size_t n) {
  Streams s;
  s.positions.resize(n);
  s.normals.resize(n);
  s.tangents.resize(n);
  return s;
}

float extent(std::span<const Vec3> p) {
  Vec3 lo = p[0], hi = p[0];
  for (const Vec3& v : p) {
    lo = {std::min(lo.x, v.x), std::min(lo.y, v.y), std::min(lo.z, v.z)};
    hi = {std::max(hi.x, v.x), std::max(hi.y, v.y), std::max(hi.z, v.z)};
  }
  return std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
}

float max_diff(std::span<const Vec3> a, std::span<const Vec3> b) {
  float d = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    d = std::max(
        {d, std::fabs(a[i].x - b[i].x), std::fabs(a[i].y - b[i].y), std::fabs(a[i].z - b[i].z)});
  }
  return d;
}

std::vector<Vec3> xyz(std::span<const Vec4> v) {
  std::vector<Vec3> out;
  for (const Vec4& t : v) out.push_back({t.x, t.y, t.z});
  return out;
}

bool same_bits(std::span<const Vec3> a, std::span<const Vec3> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec3)) == 0;
}

class GlMorph : public GlTest {
 protected:
  // The GPU's morphed (and skinned) streams of an instance, and its previous positions.
  Streams capture(InstanceHandle instance, size_t n, std::vector<Vec3>* previous = nullptr) {
    Streams s = sized(n);
    std::vector<Vec3> prev(n);
    auto r = renderer->capture_skinned(instance, {s.positions, s.normals, s.tangents}, prev);
    EXPECT_TRUE(r) << r.error().message();
    if (previous != nullptr) *previous = prev;
    return s;
  }

  InstanceHandle instance_of(MeshHandle mesh) {
    InstanceDesc desc;
    desc.mesh = mesh;
    return must(renderer->create_instance(desc));
  }
};

// Morph, then skin: the column bulging and leaning while its clips play, every pose
// within 1/255 of the extent of skin()'s (given the same deltas and weights), and its
// previous positions under the previous weights and palette likewise.
TEST_F(GlMorph, GpuMatchesCpuMorphThenSkinWithin1Over255OfTheExtent) {
  const fixture::Column col = fixture::make_column();
  const fixture::ColumnMorph morph = fixture::make_column_morph(col, 3);
  MeshData data{col.positions, col.normals, col.tangents, {}, col.indices};
  data.morph = morph.deltas();
  const MeshHandle mesh = must(renderer->upload_skinned_mesh(data, {col.joints, col.weights}));
  const InstanceHandle instance = instance_of(mesh);
  const size_t n = col.positions.size();

  Rig rig = fixture::make_rig();
  Animator animator = std::move(*Animator::create(&rig, 60));
  float worst = 0, worst_direction = 0;
  float moved = 0;  // how far the morph takes the vertices (the test must see it)
  for (uint16_t clip = 0; clip < 4; ++clip) {
    ASSERT_TRUE(animator.play(clip, 0));
    for (int64_t tick : {1, 23, 61}) {
      // Mid-animation weights, one negative (glTF allows it), "huge" at exactly 0.
      const float t = static_cast<float>(tick) / 61.0f;
      const float weights[3] = {0.25f + 0.5f * t, -0.4f + 0.3f * t, 0.0f};
      const float previous_weights[3] = {0.2f, 0.1f, 0.0f};
      animator.evaluate(tick - 1);
      const std::vector<Mat4> previous(animator.palette().begin(), animator.palette().end());
      animator.evaluate(tick);
      const InstancePose pose{instance, animator.palette(), previous, weights, previous_weights};
      ASSERT_TRUE(renderer->set_poses({&pose, 1}));
      std::vector<Vec3> gpu_previous;
      const Streams gpu = capture(instance, n, &gpu_previous);

      SkinInput in{col.positions, col.normals, col.tangents, col.joints, col.weights};
      in.morph = morph.deltas();
      in.morph_weights = weights;
      Streams cpu = sized(n);
      ASSERT_TRUE(skin(in, animator.palette(), {cpu.positions, cpu.normals, cpu.tangents}));
      Streams cpu_previous = sized(n);
      in.morph_weights = previous_weights;
      ASSERT_TRUE(skin(in, previous,
                       {cpu_previous.positions, cpu_previous.normals, cpu_previous.tangents}));
      Streams unmorphed = sized(n);
      ASSERT_TRUE(skin({col.positions, {}, {}, col.joints, col.weights}, animator.palette(),
                       {unmorphed.positions, {}, {}}));

      const float tolerance = extent(cpu.positions) / 255.0f;
      const float d = max_diff(gpu.positions, cpu.positions);
      EXPECT_LE(d, tolerance) << "clip " << clip << " tick " << tick;
      EXPECT_LE(max_diff(gpu_previous, cpu_previous.positions), tolerance);
      const float dn = std::max(max_diff(gpu.normals, cpu.normals),
                                max_diff(xyz(gpu.tangents), xyz(cpu.tangents)));
      EXPECT_LE(dn, 1.0f / 255.0f) << "clip " << clip << " tick " << tick;
      worst = std::max(worst, d);
      worst_direction = std::max(worst_direction, dn);
      moved = std::max(moved, max_diff(cpu.positions, unmorphed.positions));
    }
  }
  // The morph is visible (far more than the tolerance), and the "huge" target at weight 0
  // added nothing (it would move vertices by 50).
  EXPECT_GT(moved, 0.1f);
  EXPECT_LT(moved, 1.0f);
  std::printf(
      "morph then skin, largest GPU - CPU difference: positions %g (extent ~4, "
      "morph moves up to %g), normals/tangents %g\n",
      static_cast<double>(worst), static_cast<double>(moved), static_cast<double>(worst_direction));
}

// A morphed mesh without a skin (a static or node-rig part): posed by weights alone, its
// vertices are apply_morph()'s (normals and tangents renormalised); without a pose, and at
// all-zero weights, the stored vertices bit for bit.
TEST_F(GlMorph, AMeshWithoutASkinIsMorphedByItsWeightsAlone) {
  const fixture::Column col = fixture::make_column();
  const fixture::ColumnMorph morph = fixture::make_column_morph(col, 3);
  MeshData data{col.positions, col.normals, col.tangents, {}, col.indices};
  data.morph = morph.deltas();
  const MeshHandle mesh = must(renderer->upload_mesh(data));
  const InstanceHandle instance = instance_of(mesh);
  const size_t n = col.positions.size();

  const Streams base = capture(instance, n);
  EXPECT_TRUE(same_bits(base.positions, col.positions));
  EXPECT_TRUE(same_bits(base.normals, col.normals));

  const float zero[3] = {0, 0, 0};
  const InstancePose at_zero{instance, {}, {}, zero};
  ASSERT_TRUE(renderer->set_poses({&at_zero, 1}));
  EXPECT_TRUE(same_bits(capture(instance, n).positions, col.positions));

  const float weights[3] = {0.7f, 0.45f, 0.0f};
  const float previous_weights[3] = {0.1f, 0.0f, 0.0f};
  const InstancePose pose{instance, {}, {}, weights, previous_weights};
  ASSERT_TRUE(renderer->set_poses({&pose, 1}));
  std::vector<Vec3> gpu_previous;
  const Streams gpu = capture(instance, n, &gpu_previous);
  Streams cpu = sized(n);
  ASSERT_TRUE(apply_morph({col.positions, col.normals, col.tangents, morph.deltas(), weights},
                          {cpu.positions, cpu.normals, cpu.tangents}));
  Streams cpu_previous = sized(n);
  ASSERT_TRUE(apply_morph({col.positions, {}, {}, morph.deltas(), previous_weights},
                          {cpu_previous.positions, {}, {}}));
  const float tolerance = extent(cpu.positions) / 255.0f;
  const float d = max_diff(gpu.positions, cpu.positions);
  EXPECT_LE(d, tolerance);
  EXPECT_LE(max_diff(gpu_previous, cpu_previous.positions), tolerance);
  EXPECT_LE(max_diff(gpu.normals, cpu.normals), 1.0f / 255.0f);
  EXPECT_LE(max_diff(xyz(gpu.tangents), xyz(cpu.tangents)), 1.0f / 255.0f);
  EXPECT_GT(max_diff(cpu.positions, col.positions), 0.2f);  // it did move
  std::printf("morph without a skin, largest GPU - CPU difference: %g\n", static_cast<double>(d));
}

// Eight influences: the GPU within 1/255 of the extent of skin() with joints1/weights1
// through the "Wave" clip, and far from what the first four alone would give (the second
// set matters).
TEST_F(GlMorph, EightInfluencesMatchCpuSkinWithin1Over255OfTheExtent) {
  fixture::TallColumn c = fixture::make_tall_column();
  size_t vertices_with_eight = 0;
  for (size_t v = 0; v < c.weights.size(); ++v) {
    const float* a = &c.weights[v].x;
    const float* b = &c.weights1[v].x;
    if (std::count_if(a, a + 4, [](float x) { return x > 0; }) +
            std::count_if(b, b + 4, [](float x) { return x > 0; }) >
        4) {
      ++vertices_with_eight;
    }
  }
  ASSERT_GT(vertices_with_eight, 0u);  // more than four influences on some vertices
  const MeshHandle mesh =
      must(renderer->upload_skinned_mesh({c.positions, c.normals, c.tangents, {}, c.indices},
                                         {c.joints, c.weights, c.joints1, c.weights1}));
  EXPECT_EQ(renderer->mesh_joint_count(mesh), 9u);  // joints1 names bones 5-8 too
  const InstanceHandle instance = instance_of(mesh);
  const size_t n = c.positions.size();
  Animator animator = std::move(*Animator::create(&c.rig, 60));
  ASSERT_TRUE(animator.play("Wave", 0));
  float worst = 0, worst_direction = 0, four_only = 0;
  for (int64_t tick : {0, 29, 60, 97}) {
    animator.evaluate(tick);
    const InstancePose pose{instance, animator.palette(), {}};
    ASSERT_TRUE(renderer->set_poses({&pose, 1}));
    const Streams gpu = capture(instance, n);
    Streams cpu = sized(n);
    ASSERT_TRUE(
        skin({c.positions, c.normals, c.tangents, c.joints, c.weights, c.joints1, c.weights1},
             animator.palette(), {cpu.positions, cpu.normals, cpu.tangents}));
    Streams first_four = sized(n);
    ASSERT_TRUE(skin({c.positions, {}, {}, c.joints, c.weights}, animator.palette(),
                     {first_four.positions, {}, {}}));
    const float d = max_diff(gpu.positions, cpu.positions);
    EXPECT_LE(d, extent(cpu.positions) / 255.0f) << "tick " << tick;
    const float dn = std::max(max_diff(gpu.normals, cpu.normals),
                              max_diff(xyz(gpu.tangents), xyz(cpu.tangents)));
    EXPECT_LE(dn, 1.0f / 255.0f) << "tick " << tick;
    worst = std::max(worst, d);
    worst_direction = std::max(worst_direction, dn);
    four_only = std::max(four_only, max_diff(gpu.positions, first_four.positions));
  }
  EXPECT_GT(four_only, 0.1f);
  std::printf(
      "eight influences (%zu of %zu vertices over four), largest GPU - CPU "
      "difference: positions %g (extent ~4), normals/tangents %g; the first four "
      "alone would be off by %g\n",
      vertices_with_eight, n, static_cast<double>(worst), static_cast<double>(worst_direction),
      static_cast<double>(four_only));
}

// A second set that weighs nothing skins bit for bit as the four-influence mesh (the
// zero weights add nothing, on the GPU as on the CPU), and the records take twice the room.
TEST_F(GlMorph, ASecondSetOfZeroWeightsSkinsBitForBitAsFour) {
  const fixture::Column col = fixture::make_column();
  const size_t n = col.positions.size();
  const std::vector<JointIndices> joints1(n, JointIndices{{3, 2, 1, 0}});
  const std::vector<Vec4> weights1(n, Vec4{0, 0, 0, 0});
  const MeshData data{col.positions, col.normals, col.tangents, {}, col.indices};
  const MeshHandle four = must(renderer->upload_skinned_mesh(data, {col.joints, col.weights}));
  const uint32_t used_by_four = renderer->skin_store_stats().records_used;
  const MeshHandle eight =
      must(renderer->upload_skinned_mesh(data, {col.joints, col.weights, joints1, weights1}));
  EXPECT_EQ(renderer->skin_store_stats().records_used, used_by_four + 2 * n);
  const InstanceHandle a = instance_of(four), b = instance_of(eight);
  Rig rig = fixture::make_rig();
  Animator animator = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(animator.play("Cubic", 0));
  animator.evaluate(37);
  const InstancePose poses[2] = {{a, animator.palette(), {}}, {b, animator.palette(), {}}};
  ASSERT_TRUE(renderer->set_poses(poses));
  const Streams sa = capture(a, n), sb = capture(b, n);
  EXPECT_TRUE(same_bits(sa.positions, sb.positions));
  EXPECT_TRUE(same_bits(sa.normals, sb.normals));
  EXPECT_GT(max_diff(sa.positions, col.positions), 0.1f);  // posed, not the bind pose
  // Released, the eight-influence mesh gives its two slots per vertex back.
  ASSERT_TRUE(renderer->destroy_instance(b));
  ASSERT_TRUE(renderer->release_mesh(eight));
  EXPECT_EQ(renderer->skin_store_stats().records_used, used_by_four);
}

// Morph motion: with the palette still, a vertex moved by a change of weights writes a
// non-zero motion vector; weights that did not change write exactly 0.
TEST_F(GlMorph, MotionVectorsFollowTheWeightsOfThePreviousFrame) {
  const fixture::Column col = fixture::make_column();
  const fixture::ColumnMorph morph = fixture::make_column_morph(col, 3);
  MeshData data{col.positions, col.normals, col.tangents, {}, col.indices};
  data.morph = morph.deltas();
  const MeshHandle mesh = must(renderer->upload_mesh(data));
  const InstanceHandle instance = instance_of(mesh);
  const uint32_t W = 48, H = 96;
  auto largest_motion = [&](const float* now, const float* before) {
    const InstancePose pose{instance, {}, {}, {now, 3}, {before, 3}};
    EXPECT_TRUE(renderer->set_poses({&pose, 1}));
    EXPECT_TRUE(renderer->render({front_ortho({0, 2, 0}, 5), {}, W, H}));
    const std::vector<Motion> motion = *renderer->read_motion();
    float m = 0;
    for (const Motion& v : motion) m = std::max({m, std::fabs(v.x), std::fabs(v.y)});
    return m;
  };
  const float lean[3] = {0, 1, 0}, still[3] = {0, 0, 0};
  // "lean" moves the top 0.6 units along +x: about 0.6 / 5 * 96 = 11 pixels.
  EXPECT_GT(largest_motion(lean, still), 5.0f);
  EXPECT_EQ(largest_motion(lean, lean), 0.0f);
}

// Bad morph input is refused before any GL call, and a refused pose changes nothing.
TEST_F(GlMorph, BadDeltasWeightsAndSecondSetsAreRefused) {
  const fixture::Column col = fixture::make_column();
  const fixture::ColumnMorph morph = fixture::make_column_morph(col, 3);
  const size_t n = col.positions.size();
  MeshData data{col.positions, col.normals, col.tangents, {}, col.indices};
  data.morph = morph.deltas();
  data.morph.positions = data.morph.positions.first(3 * n - 1);
  EXPECT_EQ(renderer->upload_mesh(data).error().code(), ErrorCode::kSizeMismatch);
  data.morph = morph.deltas();
  data.morph.targets = kMaxMorphTargets + 1;
  EXPECT_EQ(renderer->upload_mesh(data).error().code(), ErrorCode::kInvalidArgument);
  std::vector<Vec3> nan_deltas = morph.positions;
  nan_deltas[5].y = std::nanf("");
  data.morph = morph.deltas();
  data.morph.positions = nan_deltas;
  EXPECT_EQ(renderer->upload_mesh(data).error().code(), ErrorCode::kInvalidArgument);
  data.morph = {0, morph.positions, {}, {}};  // deltas without targets
  EXPECT_EQ(renderer->upload_mesh(data).error().code(), ErrorCode::kSizeMismatch);
  const std::vector<JointIndices> short_joints1(n - 1);
  const std::vector<Vec4> weights1(n, Vec4{0, 0, 0, 0});
  data.morph = {};
  EXPECT_EQ(renderer->upload_skinned_mesh(data, {col.joints, col.weights, short_joints1, weights1})
                .error()
                .code(),
            ErrorCode::kSizeMismatch);

  data.morph = morph.deltas();
  const MeshHandle mesh = must(renderer->upload_mesh(data));
  const InstanceHandle instance = instance_of(mesh);
  const float good[3] = {0.5f, 0.5f, 0};
  const InstancePose pose{instance, {}, {}, good};
  ASSERT_TRUE(renderer->set_poses({&pose, 1}));
  const Streams before = capture(instance, n);
  const float two[2] = {1, 1};
  const InstancePose too_few{instance, {}, {}, two};
  EXPECT_EQ(renderer->set_poses({&too_few, 1}).error().code(), ErrorCode::kSizeMismatch);
  const InstancePose bad_previous{instance, {}, {}, good, two};
  EXPECT_EQ(renderer->set_poses({&bad_previous, 1}).error().code(), ErrorCode::kSizeMismatch);
  const float nan[3] = {0, std::nanf(""), 0};
  const InstancePose not_finite{instance, {}, {}, nan};
  EXPECT_EQ(renderer->set_poses({&not_finite, 1}).error().code(), ErrorCode::kInvalidArgument);
  Rig rig = fixture::make_rig();
  Animator animator = std::move(*Animator::create(&rig, 60));
  const InstancePose joints_without_skin{instance, animator.palette(), {}, good};
  EXPECT_EQ(renderer->set_poses({&joints_without_skin, 1}).error().code(),
            ErrorCode::kInvalidArgument);
  // Weights for a mesh without targets.
  const MeshHandle plain = must(renderer->upload_skinned_mesh(
      {col.positions, {}, {}, {}, col.indices}, {col.joints, col.weights}));
  const InstanceHandle plain_instance = instance_of(plain);
  const InstancePose weights_without_targets{plain_instance, animator.palette(), {}, good};
  EXPECT_EQ(renderer->set_poses({&weights_without_targets, 1}).error().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_TRUE(same_bits(capture(instance, n).positions, before.positions));
  EXPECT_TRUE(renderer->render({front_ortho({0, 2, 0}, 6), {}, 16, 16}));
}

}  // namespace
}  // namespace animpack::gl
