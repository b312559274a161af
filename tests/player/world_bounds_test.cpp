// ScenePlayer::world_bounds (scene_player.h, bounds.h) on the player's test pack with its
// bounds computed as the cooker does (compute_mesh_bounds): at several ticks, every vertex
// of every object, placed the way the renderers place it (skin() by the object's palette,
// node-rig parts by palette[joint], then the model matrix; face_camera objects by
// posed(&camera)'s turned matrix, for cameras all around), lies inside the object's box.
// A version 1 pack stores no bounds: its mesh objects refuse with kBadPack.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "animpack/compiler/mesh_bounds.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/scene_player.h"
#include "animpack/skinning.h"
#include "scene_fixture.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

// The fixture pack with bounds; `turn` makes the rock a face_camera object too, so that
// a mesh turned to the camera is checked as well as a sprite.
Pack make_bounded_pack(bool turn) {
  CookedPack cooked = player_fixture::make_cooked();
  for (CookedMesh& m : cooked.meshes) {
    compute_mesh_bounds(m, m.rig >= 0 ? &cooked.rigs[static_cast<size_t>(m.rig)] : nullptr);
  }
  if (turn) {
    cooked.objects[player_fixture::kRock].face_camera = true;
    cooked.objects[player_fixture::kRock].rotation =
        quat_from_axis_angle(normalize(Vec3{1, 0, 1}), 0.7f);
    cooked.objects[player_fixture::kRock].scale = {1, 2, 0.5f};
  }
  const std::vector<uint8_t> bytes = write_pack(cooked);
  Result<Pack> pack = Pack::from_bytes(bytes);
  EXPECT_TRUE(pack) << (pack ? "" : pack.error().message());
  return pack ? std::move(*pack) : Pack{};
}

// Every world-space vertex of object o as drawn with `posed` (its model matrix and palette).
std::vector<Vec3> drawn_vertices(const Pack& pack, const PosedObject& o) {
  std::vector<Vec3> out;
  if (o.mesh < 0) {
    if (o.sprite_sheet < 0) return out;
    const PixelRect f =
        pack.sprite_sheets()[static_cast<size_t>(o.sprite_sheet)].atlas().frames()[o.sprite_frame];
    const float hw = 0.5f * static_cast<float>(f.width) / static_cast<float>(f.height);
    for (Vec3 c :
         {Vec3{-hw, -0.5f, 0}, Vec3{hw, -0.5f, 0}, Vec3{hw, 0.5f, 0}, Vec3{-hw, 0.5f, 0}}) {
      out.push_back(transform_point(o.model, c));
    }
    return out;
  }
  const MeshInfo& mesh = pack.meshes()[static_cast<size_t>(o.mesh)];
  for (int k = 0; k < mesh.part_count; ++k) {
    const int p = mesh.first_part + k;
    const PartInfo& part = pack.parts()[static_cast<size_t>(p)];
    Result<PartStreams> s = pack.part_streams(p);
    EXPECT_TRUE(s);
    if (!s) return out;
    if (part.skinned && !o.palette.empty()) {
      std::vector<Vec3> skinned(s->positions.size());
      EXPECT_TRUE(
          skin({s->positions, {}, {}, s->joints, s->weights}, o.palette, {skinned, {}, {}}));
      for (const Vec3& v : skinned) out.push_back(transform_point(o.model, v));
    } else if (part.joint >= 0 && !o.palette.empty()) {
      const Mat4 m = mul_affine(o.model, o.palette[static_cast<size_t>(part.joint)]);
      for (const Vec3& v : s->positions) out.push_back(transform_point(m, v));
    } else {
      for (const Vec3& v : s->positions) out.push_back(transform_point(o.model, v));
    }
  }
  return out;
}

TEST(WorldBounds, HoldsEveryDrawnVertexOfEveryObjectAtSeveralTicks) {
  for (bool turn : {false, true}) {
    SCOPED_TRACE(turn ? "rock turned to the camera" : "fixture as it is");
    const Pack pack = make_bounded_pack(turn);
    auto player = ScenePlayer::create(&pack, 60);
    ASSERT_TRUE(player);
    int checked = 0;
    for (int64_t tick = 0; tick <= 150; ++tick) {
      if (tick > 0) player->step();
      if (tick % 10 != 0) continue;
      // Cameras all around (and one orthographic): face_camera objects turn to each.
      for (int c = 0; c < 5; ++c) {
        Camera camera;
        const float a = 1.3f * static_cast<float>(c);
        camera.eye = {8 * std::cos(a), 2, 8 * std::sin(a)};
        camera.orthographic = c == 4;
        const Posed& posed = player->posed(&camera);
        for (const PosedObject& o : posed.objects) {
          const ObjectId id{static_cast<uint32_t>(o.object)};
          Result<Box> box = player->world_bounds(id);
          ASSERT_TRUE(box) << box.error().message();
          for (const Vec3& v : drawn_vertices(pack, o)) {
            ++checked;
            EXPECT_TRUE(box->contains(v))
                << player->name(id) << " tick " << tick << " camera " << c << ": (" << v.x << ", "
                << v.y << ", " << v.z << ") outside (" << box->lo.x << ", " << box->lo.y << ", "
                << box->lo.z << ") .. (" << box->hi.x << ", " << box->hi.y << ", " << box->hi.z
                << ")";
          }
        }
      }
    }
    EXPECT_GT(checked, 1000);
  }
}

TEST(WorldBounds, IsTheModelBoxOfThePosedBoundsWithAMargin) {
  const Pack pack = make_bounded_pack(false);
  auto player = ScenePlayer::create(&pack, 60);
  ASSERT_TRUE(player);
  for (int i = 0; i < 30; ++i) player->step();
  const ObjectId walker{player_fixture::kWalker};
  const MeshBounds& bounds = pack.mesh_bounds(pack.objects()[walker.value].mesh);
  const Box expected = with_margin(
      transform_box(posed_bounds(bounds, player->palette(walker)), player->model(walker)));
  Result<Box> box = player->world_bounds(walker);
  ASSERT_TRUE(box);
  EXPECT_TRUE(bits_equal(&box->lo.x, &expected.lo.x, 3));
  EXPECT_TRUE(bits_equal(&box->hi.x, &expected.hi.x, 3));
  // The static rock: its stored triangle moved by the model matrix.
  const ObjectId rock{player_fixture::kRock};
  Result<Box> rock_box = player->world_bounds(rock);
  ASSERT_TRUE(rock_box);
  EXPECT_TRUE(rock_box->valid());
}

TEST(WorldBounds, RefusesAnInvalidObject) {
  const Pack pack = make_bounded_pack(false);
  auto player = ScenePlayer::create(&pack, 60);
  ASSERT_TRUE(player);
  Result<Box> box = player->world_bounds(ObjectId{});
  ASSERT_FALSE(box);
  EXPECT_EQ(box.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(player->world_bounds(ObjectId{player->object_count()}));
}

TEST(WorldBounds, AVersionOnePackRefusesWithBadPack) {
  Result<Pack> pack = Pack::open(
      (fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/scene_player_v1.anpk").string());
  ASSERT_TRUE(pack) << pack.error().message();
  ASSERT_EQ(pack->format_version(), 1u);
  auto player = ScenePlayer::create(&*pack, 60);
  ASSERT_TRUE(player);
  int refused = 0;
  for (uint32_t o = 0; o < player->object_count(); ++o) {
    const int mesh = pack->objects()[o].mesh;
    Result<Box> box = player->world_bounds(ObjectId{o});
    if (mesh >= 0 && pack->meshes()[static_cast<size_t>(mesh)].part_count > 0) {
      ASSERT_FALSE(box) << player->name(ObjectId{o});
      EXPECT_EQ(box.error().code(), ErrorCode::kBadPack);
      ++refused;
    } else {
      EXPECT_TRUE(box);  // sprites need no stored bounds
    }
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace animpack
