// GPU skinning: the fixture column skinned by the vertex stage against the CPU skin() in
// several poses and its bind pose, its silhouette against its CPU-skinned twin, motion
// vectors on a moving and a still joint, the skin store's free list, and refusals.
#include "animpack/skinning.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "animpack/animator.h"
#include "animpack/gl/renderer.h"
#include "fixtures/fixture.h"
#include "gl_test_support.h"

namespace animpack::gl {
namespace {

using testing::front_ortho;
using testing::GlTest;

struct Skinned {
  std::vector<Vec3> positions, normals;
  std::vector<Vec4> tangents;
};

Skinned cpu_skin(const fixture::Column& col, std::span<const Mat4> palette) {
  Skinned s;
  s.positions.resize(col.positions.size());
  s.normals.resize(col.positions.size());
  s.tangents.resize(col.positions.size());
  auto r = skin({col.positions, col.normals, col.tangents, col.joints, col.weights}, palette,
                {s.positions, s.normals, s.tangents});
  EXPECT_TRUE(r);
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

class GlSkinning : public GlTest {
 protected:
  void SetUp() override {
    GlTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    col = fixture::make_column();
    Result<MeshHandle> m = renderer->upload_skinned_mesh(
        {col.positions, col.normals, col.tangents, {}, col.indices}, {col.joints, col.weights});
    ASSERT_TRUE(m) << m.error().message();
    mesh = *m;
    InstanceDesc desc;
    desc.mesh = mesh;
    Result<InstanceHandle> i = renderer->create_instance(desc);
    ASSERT_TRUE(i) << i.error().message();
    instance = *i;
  }

  // The instance's vertices skinned on the GPU, and their previous positions.
  Skinned capture(std::vector<Vec3>* previous = nullptr) {
    Skinned s;
    const size_t n = col.positions.size();
    s.positions.resize(n);
    s.normals.resize(n);
    s.tangents.resize(n);
    std::vector<Vec3> prev(n);
    auto r = renderer->capture_skinned(instance, {s.positions, s.normals, s.tangents}, prev);
    EXPECT_TRUE(r) << r.error().message();
    if (previous != nullptr) *previous = prev;
    return s;
  }

  fixture::Column col;
  MeshHandle mesh;
  InstanceHandle instance;
};

TEST_F(GlSkinning, GpuMatchesCpuSkinInSeveralPosesWithin1Over255OfTheExtent) {
  Rig rig = fixture::make_rig();
  Animator animator = std::move(*Animator::create(&rig, 60));
  float worst = 0, worst_direction = 0;
  for (uint16_t clip = 0; clip < 4; ++clip) {
    ASSERT_TRUE(animator.play(clip, 0));
    for (int64_t tick : {1, 17, 45, 90}) {
      animator.evaluate(tick - 1);
      const std::vector<Mat4> previous(animator.palette().begin(), animator.palette().end());
      animator.evaluate(tick);
      const InstancePose pose{instance, animator.palette(), previous};
      ASSERT_TRUE(renderer->set_poses({&pose, 1}));
      std::vector<Vec3> gpu_previous;
      const Skinned gpu = capture(&gpu_previous);
      const Skinned cpu = cpu_skin(col, animator.palette());
      const Skinned cpu_previous = cpu_skin(col, previous);
      const float tolerance = extent(cpu.positions) / 255.0f;
      const float d = max_diff(gpu.positions, cpu.positions);
      EXPECT_LE(d, tolerance) << "clip " << clip << " tick " << tick;
      EXPECT_LE(max_diff(gpu_previous, cpu_previous.positions), tolerance);
      std::vector<Vec3> gpu_t, cpu_t;
      for (size_t v = 0; v < gpu.tangents.size(); ++v) {
        gpu_t.push_back({gpu.tangents[v].x, gpu.tangents[v].y, gpu.tangents[v].z});
        cpu_t.push_back({cpu.tangents[v].x, cpu.tangents[v].y, cpu.tangents[v].z});
        EXPECT_EQ(gpu.tangents[v].w, cpu.tangents[v].w);
      }
      const float dn = std::max(max_diff(gpu.normals, cpu.normals), max_diff(gpu_t, cpu_t));
      EXPECT_LE(dn, 1.0f / 255.0f) << "clip " << clip << " tick " << tick;
      worst = std::max(worst, d);
      worst_direction = std::max(worst_direction, dn);
    }
  }
  std::printf("largest GPU - CPU difference: positions %g (extent 4), normals/tangents %g\n",
              static_cast<double>(worst), static_cast<double>(worst_direction));
}

TEST_F(GlSkinning, AnInstanceWithoutAPoseDrawsItsBindPose) {
  const Skinned bind = capture();
  EXPECT_EQ(max_diff(bind.positions, col.positions), 0.0f);
  EXPECT_EQ(max_diff(bind.normals, col.normals), 0.0f);

  Rig rig = fixture::make_rig();
  Animator animator = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(animator.play("Rotate", 0));
  animator.evaluate(30);
  const InstancePose pose{instance, animator.palette(), {}};
  ASSERT_TRUE(renderer->set_poses({&pose, 1}));
  EXPECT_GT(max_diff(capture().positions, col.positions), 0.1f);
  ASSERT_TRUE(renderer->set_poses({}));  // no pose again: the bind pose
  EXPECT_EQ(max_diff(capture().positions, col.positions), 0.0f);

  // The bind pose is drawn too: its silhouette is the column's rectangle.
  ASSERT_TRUE(renderer->render({front_ortho({0, 2, 0}, 5), {}, 40, 80}));
  auto ids = renderer->read_ids();
  ASSERT_TRUE(ids);
  // Column x in [-0.25, 0.25] -> pixels 16..23; y in [0, 4] -> rows 8..71.
  for (uint32_t y = 0; y < 80; ++y) {
    for (uint32_t x = 0; x < 40; ++x) {
      const bool inside = x >= 16 && x < 24 && y >= 8 && y < 72;
      ASSERT_EQ((*ids)[y * 40 + x], inside ? 1u : kNoId) << x << "," << y;
    }
  }
}

TEST_F(GlSkinning, APoseWithTooFewJointsIsRefusedAndChangesNothing) {
  Rig rig = fixture::make_rig();
  Animator animator = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(animator.play("Cubic", 0));
  animator.evaluate(20);
  EXPECT_EQ(renderer->mesh_joint_count(mesh), 4u);
  const InstancePose good{instance, animator.palette(), {}};
  ASSERT_TRUE(renderer->set_poses({&good, 1}));
  const Skinned before = capture();

  const InstancePose short_pose{instance, animator.palette().first(3), {}};
  Result<void> r = renderer->set_poses({&short_pose, 1});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadJointIndex);
  const InstancePose no_joints{instance, {}, {}};
  EXPECT_EQ(renderer->set_poses({&no_joints, 1}).error().code(), ErrorCode::kBadJointIndex);
  const InstancePose short_previous{instance, animator.palette(), animator.palette().first(2)};
  EXPECT_EQ(renderer->set_poses({&short_previous, 1}).error().code(), ErrorCode::kSizeMismatch);
  const InstancePose twice[2] = {good, good};
  EXPECT_EQ(renderer->set_poses(twice).error().code(), ErrorCode::kInvalidArgument);
  std::vector<Mat4> nan(animator.palette().begin(), animator.palette().end());
  nan[2].m[5] = std::nanf("");
  const InstancePose not_finite{instance, nan, {}};
  EXPECT_EQ(renderer->set_poses({&not_finite, 1}).error().code(), ErrorCode::kInvalidArgument);

  // A static mesh takes no pose.
  const Vec3 p[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  const uint32_t tri[3] = {0, 1, 2};
  auto rigid = renderer->upload_mesh({p, {}, {}, {}, tri});
  ASSERT_TRUE(rigid);
  InstanceDesc desc;
  desc.mesh = *rigid;
  auto rigid_instance = renderer->create_instance(desc);
  ASSERT_TRUE(rigid_instance);
  const InstancePose on_static{*rigid_instance, animator.palette(), {}};
  EXPECT_EQ(renderer->set_poses({&on_static, 1}).error().code(), ErrorCode::kInvalidArgument);

  // None of the refused calls replaced the good pose.
  EXPECT_EQ(max_diff(capture().positions, before.positions), 0.0f);
  // And the frame still draws without GL errors.
  EXPECT_TRUE(renderer->render({front_ortho({0, 2, 0}, 6), {}, 16, 16}));
}

// A clip that bends only bone3 (about z): vertices weighted to root, bone1 and bone2 stay.
Rig bend_rig() {
  Clip bend("Bend3");
  const float t[] = {0.0f, 1.0f};
  const Quat q = quat_from_axis_angle({0, 0, 1}, 0.4f);
  const float v[] = {0, 0, 0, 1, q.x, q.y, q.z, q.w};
  bend.add_channel(3, Property::kRotation, Interpolation::kLinear, t, v);
  std::vector<Clip> clips;
  clips.push_back(std::move(bend));
  return std::move(*Rig::create(fixture::make_skeleton(), std::move(clips)));
}

TEST_F(GlSkinning, MotionVectorsAreNonZeroOnAMovingJointAndZeroOnAStillOne) {
  Rig rig = bend_rig();
  Animator animator = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(animator.play("Bend3", 0));
  animator.evaluate(24);
  const std::vector<Mat4> previous(animator.palette().begin(), animator.palette().end());
  animator.evaluate(30);
  const InstancePose pose{instance, animator.palette(), previous};
  ASSERT_TRUE(renderer->set_poses({&pose, 1}));

  // Per vertex: below bone3's reach the previous position is the current one, bit for bit.
  std::vector<Vec3> before;
  const Skinned now = capture(&before);
  for (size_t v = 0; v < col.positions.size(); ++v) {
    const float y = col.positions[v].y;
    if (y <= 2.0f) {
      EXPECT_TRUE(bits_equal(&now.positions[v].x, &before[v].x, 3)) << v;
    } else if (y >= 3.5f) {
      EXPECT_GT(std::fabs(now.positions[v].x - before[v].x), 0.01f) << v;
    }
  }

  // Per pixel.
  constexpr uint32_t W = 40, H = 80;
  ASSERT_TRUE(renderer->render({front_ortho({0, 2, 0}, 5), {}, W, H}));
  auto ids = renderer->read_ids();
  auto motion = renderer->read_motion();
  ASSERT_TRUE(ids);
  ASSERT_TRUE(motion);
  int still = 0, moving = 0;
  for (uint32_t y = 0; y < H; ++y) {
    const float world_y = 4.5f - (static_cast<float>(y) + 0.5f) / 16.0f;  // camera.h centres
    for (uint32_t x = 0; x < W; ++x) {
      const size_t i = y * W + x;
      const Motion m = (*motion)[i];
      if ((*ids)[i] == kNoId) {
        EXPECT_EQ(m.x, 0.0f);
        EXPECT_EQ(m.y, 0.0f);
        continue;
      }
      if (world_y < 1.95f) {
        EXPECT_EQ(m.x, 0.0f) << x << "," << y;
        EXPECT_EQ(m.y, 0.0f) << x << "," << y;
        ++still;
      } else if (world_y > 3.3f && x == W / 2) {
        // Bending about +z moves the top towards -x: 0.04 rad in 6 ticks, ~0.6 px at y 4.
        EXPECT_LT(m.x, -0.05f) << x << "," << y;
        ++moving;
      }
    }
  }
  EXPECT_GT(still, 100);
  EXPECT_GT(moving, 5);
}

TEST_F(GlSkinning, SilhouetteMatchesItsCpuSkinnedTwinAndColourMatchesIds) {
  Rig rig = fixture::make_rig();
  Animator animator = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(animator.play("Rotate", 0));
  animator.evaluate(50);
  const Skinned cpu = cpu_skin(col, animator.palette());
  auto twin = renderer->upload_mesh({cpu.positions, cpu.normals, cpu.tangents, {}, col.indices});
  ASSERT_TRUE(twin);
  Camera camera;
  camera.eye = {1.5f, 2.5f, 7.0f};
  camera.target = {0, 2, 0};
  const InstancePose pose{instance, animator.palette(), {}};
  ASSERT_TRUE(renderer->set_poses({&pose, 1}));
  constexpr uint32_t W = 48, H = 64;

  ASSERT_TRUE(renderer->render({camera, {}, W, H}));
  const std::vector<uint32_t> gpu_ids = *renderer->read_ids();
  const Image gpu_color = *renderer->read_color();
  // The same with the twin drawn instead.
  InstanceDesc desc;
  desc.mesh = mesh;
  desc.visible = false;
  ASSERT_TRUE(renderer->update_instance(instance, desc));
  desc.mesh = *twin;
  desc.visible = true;
  ASSERT_TRUE(renderer->create_instance(desc));
  ASSERT_TRUE(renderer->render({camera, {}, W, H}));
  const std::vector<uint32_t> twin_ids = *renderer->read_ids();

  int covered = 0, differ = 0;
  for (size_t i = 0; i < gpu_ids.size(); ++i) {
    covered += gpu_ids[i] != kNoId;
    differ += gpu_ids[i] != twin_ids[i];
    // The colour pass drew exactly where the ids pass did.
    const uint8_t* c = &gpu_color.rgba[i * 4];
    const bool background = c[0] == 24 && c[1] == 26 && c[2] == 32;
    EXPECT_EQ(background, gpu_ids[i] == kNoId) << i;
  }
  std::printf("silhouette: %d pixels covered, %d differ from the CPU-skinned twin\n", covered,
              differ);
  EXPECT_GT(covered, 150);
  EXPECT_LE(differ, covered / 100);
}

TEST_F(GlSkinning, TheSkinStoreReusesFreedRecordsAndKeepsThemWhenItGrows) {
  const SkinStoreStats start = renderer->skin_store_stats();
  const uint32_t n = static_cast<uint32_t>(col.positions.size());
  EXPECT_EQ(start.records_used, n);
  const MeshData data{col.positions, col.normals, col.tangents, {}, col.indices};
  const SkinData skin{col.joints, col.weights};
  auto second = renderer->upload_skinned_mesh(data, skin);
  auto third = renderer->upload_skinned_mesh(data, skin);
  ASSERT_TRUE(second && third);
  EXPECT_EQ(renderer->skin_store_stats().records_used, 3 * n);
  ASSERT_TRUE(renderer->release_mesh(*second));
  EXPECT_EQ(renderer->skin_store_stats().records_used, 2 * n);
  EXPECT_EQ(renderer->skin_store_stats().free_runs, 2u);  // the hole and the tail
  EXPECT_EQ(renderer->release_mesh(*second).error().code(), ErrorCode::kInvalidArgument);
  auto fourth = renderer->upload_skinned_mesh(data, skin);  // first fit: the hole
  ASSERT_TRUE(fourth);
  EXPECT_EQ(renderer->skin_store_stats().free_runs, 1u);
  EXPECT_NE(*fourth, *second);  // a new handle; the old one stays dead

  Rig rig = fixture::make_rig();
  Animator animator = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(animator.play("Linear", 0));
  animator.evaluate(40);
  const InstancePose pose{instance, animator.palette(), {}};
  ASSERT_TRUE(renderer->set_poses({&pose, 1}));
  const Skinned before = capture();

  // A mesh larger than the free room makes the store grow; what it held is kept.
  std::vector<Vec3> big(6000, Vec3{0, 1, 0});
  std::vector<JointIndices> big_joints(big.size(), JointIndices{{3, 0, 0, 0}});
  std::vector<Vec4> big_weights(big.size(), Vec4{1, 0, 0, 0});
  const uint32_t tri[3] = {0, 1, 2};
  auto large = renderer->upload_skinned_mesh({big, {}, {}, {}, tri}, {big_joints, big_weights});
  ASSERT_TRUE(large) << large.error().message();
  const SkinStoreStats grown = renderer->skin_store_stats();
  EXPECT_GT(grown.record_capacity, start.record_capacity);
  EXPECT_EQ(grown.records_used, 3 * n + 6000);
  EXPECT_EQ(max_diff(capture().positions, before.positions), 0.0f);
}

TEST_F(GlSkinning, BadArgumentsAreRefusedBeforeAnyGlCall) {
  const Vec3 p[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  const Vec3 n2[2] = {{0, 0, 1}, {0, 0, 1}};
  const uint32_t tri[3] = {0, 1, 2};
  const uint32_t bad_index[3] = {0, 1, 3};
  const uint32_t two[2] = {0, 1};
  const Vec3 nan_p[3] = {{0, 0, 0}, {std::nanf(""), 0, 0}, {0, 1, 0}};
  EXPECT_EQ(renderer->upload_mesh({{}, {}, {}, {}, tri}).error().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(renderer->upload_mesh({p, {}, {}, {}, bad_index}).error().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(renderer->upload_mesh({p, {}, {}, {}, two}).error().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(renderer->upload_mesh({p, n2, {}, {}, tri}).error().code(), ErrorCode::kSizeMismatch);
  EXPECT_EQ(renderer->upload_mesh({nan_p, {}, {}, {}, tri}).error().code(),
            ErrorCode::kInvalidArgument);
  const JointIndices j[3] = {};
  const Vec4 w2[2] = {{1, 0, 0, 0}, {1, 0, 0, 0}};
  EXPECT_EQ(renderer->upload_skinned_mesh({p, {}, {}, {}, tri}, {j, w2}).error().code(),
            ErrorCode::kSizeMismatch);

  InstanceDesc desc;
  EXPECT_EQ(renderer->create_instance(desc).error().code(), ErrorCode::kInvalidArgument);
  desc.mesh = mesh;
  desc.id = kNoId;
  EXPECT_EQ(renderer->create_instance(desc).error().code(), ErrorCode::kInvalidArgument);
  desc.id = 7;
  desc.texture = TextureHandle{12345};
  EXPECT_EQ(renderer->create_instance(desc).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(renderer->release_mesh(mesh).error().code(), ErrorCode::kInvalidArgument);  // in use
  EXPECT_EQ(renderer->destroy_instance(InstanceHandle{999}).error().code(),
            ErrorCode::kInvalidArgument);

  const uint8_t pixels[12] = {};
  EXPECT_EQ(renderer->upload_texture(pixels, 2, 2).error().code(), ErrorCode::kSizeMismatch);
  EXPECT_EQ(renderer->upload_texture({}, 0, 2).error().code(), ErrorCode::kInvalidArgument);

  EXPECT_EQ(renderer->read_ids().error().code(), ErrorCode::kInvalidArgument);  // no render yet
  EXPECT_EQ(renderer->render({front_ortho({0, 0, 0}, 2), {}, 0, 4}).error().code(),
            ErrorCode::kInvalidArgument);
  Camera degenerate;
  degenerate.target = degenerate.eye;
  EXPECT_EQ(renderer->render({degenerate, {}, 4, 4}).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(renderer->present(4, 4).error().code(), ErrorCode::kInvalidArgument);  // headless

  std::vector<Vec3> wrong(3);
  EXPECT_EQ(renderer->capture_skinned(instance, {wrong, {}, {}}).error().code(),
            ErrorCode::kSizeMismatch);
}

}  // namespace
}  // namespace animpack::gl
