// The tracer's CPU path for morph targets and eight influences (pack format 5): staged
// vertices are skin()'s (morph, then skin; influences 0..7) bit for bit, and a traced
// frame of the morphing column differs from its rest pose exactly where its weights say.
// ANIMPACK_TEST_PNG_DIR=dir writes the traced frames there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/skinning.h"
#include "animpack/tracer/image.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"
#include "fixtures/morph_fixture.h"

namespace animpack::trace {
namespace {

constexpr int kBreather = 0, kTall = 1;

bool same_bits(const Vec3& a, const Vec3& b) { return std::memcmp(&a, &b, sizeof(Vec3)) == 0; }

class StageMorph : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = write_pack(fixture::make_morph_pack());
    auto p = Pack::from_bytes(bytes_);
    ASSERT_TRUE(p) << p.error().message();
    pack_.emplace(std::move(*p));
    ASSERT_EQ(pack_->rig(0).morph_sets().size(), 1u);
    ASSERT_EQ(pack_->parts()[0].morph_set, 0);
    ASSERT_TRUE(pack_->parts()[1].eight_influences);
  }

  // The snapshot of both objects: the breather unposed (bind pose) with `weights`, the
  // tall column posed by `tall_palette`.
  Posed posed(std::span<const float> weights, std::span<const Mat4> tall_palette) const {
    Posed p;
    for (int i : {kBreather, kTall}) {
      const ObjectInfo& info = pack_->objects()[static_cast<size_t>(i)];
      PosedObject o;
      o.object = i;
      o.mesh = info.mesh;
      o.model = to_matrix(Trs{info.position, info.rotation, info.scale});
      if (i == kBreather) o.morph_weights = weights;
      if (i == kTall) o.palette = o.previous_palette = tall_palette;
      p.objects.push_back(o);
    }
    return p;
  }

  std::vector<Triangle> triangles_of(const TraceScene& scene, int object) const {
    std::vector<Triangle> out;
    for (size_t t = 0; t < scene.triangle_count(); ++t) {
      if (scene.object_ids()[t] == object_id(object)) out.push_back(scene.triangles()[t]);
    }
    return out;
  }

  // The traced ids of the breather alone, seen from the front (ortho, 5 units high, 20
  // pixels a unit: 60 x 100, y down from the top at y = 4.5).
  std::vector<uint32_t> trace_front(std::span<const float> weights, const char* name) {
    Posed p = posed(weights, {});
    p.objects.pop_back();  // the breather only
    auto scene = stage_posed(*pack_, p);
    EXPECT_TRUE(scene) << scene.error().message();
    if (!scene) return {};
    RenderOptions options;
    options.width = kW;
    options.height = kH;
    options.camera.orthographic = true;
    options.camera.ortho_height = 5;
    options.camera.eye = {0, 2, 10};
    options.camera.target = {0, 2, 0};
    options.shadows = false;
    options.samples = 1;
    options.threads = 2;
    auto frame = render(*scene, options);
    EXPECT_TRUE(frame) << frame.error().message();
    if (!frame) return {};
    if (const char* dir = std::getenv("ANIMPACK_TEST_PNG_DIR"); dir != nullptr && *dir != 0) {
      (void)write_png(frame->color, std::string(dir) + "/StageMorph_" + name + ".png");
    }
    return frame->ids;
  }

  // The covered pixels of row y: first and last column (-1, -1 for none).
  static std::pair<int, int> row_span(const std::vector<uint32_t>& ids, int y) {
    int lo = -1, hi = -1;
    for (int x = 0; x < kW; ++x) {
      if (ids[static_cast<size_t>(y * kW + x)] == 0) continue;
      if (lo < 0) lo = x;
      hi = x;
    }
    return {lo, hi};
  }
  // The pixel row of height y (world units; the camera centre y = 2 is row 50).
  static int row_of(float y) { return static_cast<int>(std::floor((4.5f - y) * 20.0f)); }

  static constexpr int kW = 60, kH = 100;
  std::vector<uint8_t> bytes_;
  std::optional<Pack> pack_;
};

// Morph (no skin: the breather has no palette here) and eight influences (the tall
// column waving) staged exactly as apply_morph() and skin() give them.
TEST_F(StageMorph, StagesMorphedAndEightInfluenceVerticesAsTheCpuReferenceBitForBit) {
  Animator animator = *Animator::create(&pack_->rig(1), 60);
  ASSERT_TRUE(animator.play("Wave", 0));
  animator.evaluate(50);
  const float weights[2] = {0.8f, 0.35f};
  auto scene = stage_posed(*pack_, posed(weights, animator.palette()));
  ASSERT_TRUE(scene) << scene.error().message();

  auto column = pack_->part_streams(0);
  ASSERT_TRUE(column);
  const size_t n = column->positions.size();
  std::vector<Vec3> morphed(n);
  ASSERT_TRUE(apply_morph({column->positions, {}, {}, column->morph, weights}, {morphed, {}, {}}));
  auto tall = pack_->part_streams(1);
  ASSERT_TRUE(tall);
  ASSERT_EQ(tall->joints1.size(), tall->positions.size());
  std::vector<Vec3> skinned(tall->positions.size());
  ASSERT_TRUE(
      skin({tall->positions, {}, {}, tall->joints, tall->weights, tall->joints1, tall->weights1},
           animator.palette(), {skinned, {}, {}}));

  struct Expect {
    int object;
    const PartStreams* streams;
    const std::vector<Vec3>* vertices;
  };
  for (const Expect& e : {Expect{kBreather, &*column, &morphed}, Expect{kTall, &*tall, &skinned}}) {
    const std::vector<Triangle> tris = triangles_of(*scene, e.object);
    ASSERT_EQ(tris.size(), e.streams->indices.size() / 3);
    const Mat4 model =
        posed(weights, animator.palette()).objects[static_cast<size_t>(e.object)].model;
    for (size_t t = 0; t < tris.size(); ++t) {
      const std::span<const uint32_t> idx = e.streams->indices;
      ASSERT_TRUE(same_bits(tris[t].a, transform_point(model, (*e.vertices)[idx[3 * t]])));
      ASSERT_TRUE(same_bits(tris[t].b, transform_point(model, (*e.vertices)[idx[3 * t + 1]])));
      ASSERT_TRUE(same_bits(tris[t].c, transform_point(model, (*e.vertices)[idx[3 * t + 2]])));
    }
  }
  // Both moved: the breather bulges, the wave bends the tall column off its axis.
  EXPECT_GT(std::fabs(morphed[n / 2].x - column->positions[n / 2].x), 0.1f);
  EXPECT_GT(scene->bounds().hi.x, 2.5f);
}

// The column at "bulge" = 1 is wider than at rest in its middle (half-width 0.25 x
// (1 + 0.8 sin(pi y / 4)): 0.45 at y = 2, so 18 pixels across instead of 10) and as wide
// at its foot (sin 0 = 0); "lean" = 1 shifts its top by 0.6 (12 pixels) and not its foot.
TEST_F(StageMorph, ATracedFrameDiffersFromTheRestPoseWhereTheWeightsSay) {
  const float rest[2] = {0, 0}, bulge[2] = {1, 0}, lean[2] = {0, 1};
  const std::vector<uint32_t> a = trace_front(rest, "rest");
  const std::vector<uint32_t> b = trace_front(bulge, "bulge");
  const std::vector<uint32_t> c = trace_front(lean, "lean");
  ASSERT_EQ(a.size(), size_t{kW} * kH);
  ASSERT_EQ(b.size(), a.size());
  ASSERT_EQ(c.size(), a.size());
  const int middle = row_of(2.0f), foot = row_of(0.05f), top = row_of(3.95f);
  const auto [rest_lo, rest_hi] = row_span(a, middle);
  const auto [bulge_lo, bulge_hi] = row_span(b, middle);
  EXPECT_NEAR(rest_hi - rest_lo + 1, 10, 1);
  EXPECT_NEAR(bulge_hi - bulge_lo + 1, 18, 1);
  EXPECT_EQ(row_span(a, foot), row_span(b, foot));
  // Lean: the top row moved 12 pixels right, the foot row did not move.
  const auto [top_lo, top_hi] = row_span(a, top);
  const auto [lean_lo, lean_hi] = row_span(c, top);
  EXPECT_NEAR(lean_lo - top_lo, 12, 1);
  EXPECT_NEAR(lean_hi - top_hi, 12, 1);
  EXPECT_EQ(row_span(a, foot), row_span(c, foot));
  // Nothing outside the column's changes: at rest and under both weights only its object.
  size_t changed = 0;
  for (size_t i = 0; i < a.size(); ++i) changed += a[i] != b[i] ? 1 : 0;
  EXPECT_GT(changed, 100u);
}

}  // namespace
}  // namespace animpack::trace
