// `animpack pose --json` on morph targets and eight influences (pack format 5): the
// weights per set, the morphed bind-space positions and the final skinned ones per source
// vertex, each checked against this test's own computation (the clip's keys interpolated
// by hand, the deltas added by hand, eight-influence blending from the JSON's palettes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "fixtures/morph_fixture.h"
#include "play_commands.h"

namespace animpack {
namespace {

using json = nlohmann::json;

Vec3 vec3(const json& a) { return {a[0].get<float>(), a[1].get<float>(), a[2].get<float>()}; }

class PoseMorph : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = write_pack(fixture::make_morph_pack());
    auto p = Pack::from_bytes(bytes_);
    ASSERT_TRUE(p) << p.error().message();
    pack_.emplace(std::move(*p));
  }
  std::vector<uint8_t> bytes_;
  std::optional<Pack> pack_;
};

// "Breathe" keys (0, 0) at 0 s, (1, 0.5) at 1 s, (0, 1) at 2 s, LINEAR: at tick 45 of 60 Hz
// (0.75 s) the weights are (0.75, 0.375), and at tick 96 (1.6 s) (0.4, 0.8). The rig's
// joints stay at rest (identity palettes), so the skinned positions are the morphed ones.
TEST_F(PoseMorph, ReportsTheWeightsAndTheMorphedAndSkinnedPositionsPerSourceVertex) {
  const fixture::Column col = fixture::make_column();
  const fixture::ColumnMorph morph = fixture::make_column_morph(col, 2);
  const size_t n = col.positions.size();
  for (const auto& [tick, w0, w1] : {std::tuple{45, 0.75f, 0.375f}, std::tuple{96, 0.4f, 0.8f}}) {
    Result<std::string> text = pose_json(*pack_, "breather", tick, 60);
    ASSERT_TRUE(text) << text.error().message();
    const json j = json::parse(*text);
    ASSERT_EQ(j["morph_weights"].size(), 1u);
    const json& set = j["morph_weights"][0];
    EXPECT_EQ(set["set"], "column");
    EXPECT_EQ(set["targets"], json::array({"bulge", "lean"}));
    ASSERT_EQ(set["weights"].size(), 2u);
    EXPECT_NEAR(set["weights"][0].get<float>(), w0, 1e-5f) << "tick " << tick;
    EXPECT_NEAR(set["weights"][1].get<float>(), w1, 1e-5f) << "tick " << tick;
    ASSERT_EQ(j["parts"].size(), 1u);
    const json& part = j["parts"][0];
    EXPECT_EQ(part["morph_set"], 0);
    ASSERT_EQ(part["morphed"].size(), n);
    ASSERT_EQ(part["positions"].size(), n);
    float largest_move = 0;
    for (size_t v = 0; v < n; ++v) {
      const Vec3 d0 = morph.positions[v], d1 = morph.positions[n + v];
      const Vec3 b = col.positions[v];
      const Vec3 expect{b.x + w0 * d0.x + w1 * d1.x, b.y + w0 * d0.y + w1 * d1.y,
                        b.z + w0 * d0.z + w1 * d1.z};
      const Vec3 morphed = vec3(part["morphed"][v]);
      const Vec3 skinned = vec3(part["positions"][v]);
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR((&morphed.x)[k], (&expect.x)[k], 1e-5f) << "vertex " << v;
        EXPECT_NEAR((&skinned.x)[k], (&expect.x)[k], 1e-5f) << "vertex " << v;
      }
      largest_move = std::max(largest_move, std::fabs(expect.x - b.x));
    }
    EXPECT_GT(largest_move, 0.2f);  // the test sees the morph
  }
}

// The tall column's eight influences: each position is sum_k w_k (palette[j_k] p) over
// all eight, from the JSON's own palettes and the fixture's weights; no morph keys.
TEST_F(PoseMorph, EightInfluencePositionsBlendAllEightPalettes) {
  const fixture::TallColumn tall = fixture::make_tall_column();
  Result<std::string> text = pose_json(*pack_, "tall", 70, 60);
  ASSERT_TRUE(text) << text.error().message();
  const json j = json::parse(*text);
  EXPECT_FALSE(j.contains("morph_weights"));
  ASSERT_EQ(j["joints"].size(), 9u);
  std::vector<Mat4> palette(9);
  for (size_t k = 0; k < 9; ++k) {
    for (int e = 0; e < 16; ++e) palette[k].m[e] = j["joints"][k]["palette"][e].get<float>();
  }
  const json& part = j["parts"][0];
  EXPECT_FALSE(part.contains("morphed"));
  ASSERT_EQ(part["positions"].size(), tall.positions.size());
  float off_four = 0;
  for (size_t v = 0; v < tall.positions.size(); ++v) {
    const Vec3 p = tall.positions[v];
    double sum[3] = {0, 0, 0}, four[3] = {0, 0, 0};
    for (int k = 0; k < 8; ++k) {
      const uint16_t joint = k < 4 ? tall.joints[v].j[k] : tall.joints1[v].j[k - 4];
      const float w = k < 4 ? (&tall.weights[v].x)[k] : (&tall.weights1[v].x)[k - 4];
      const Vec3 q = transform_point(palette[joint], p);
      for (int c = 0; c < 3; ++c) {
        sum[c] += static_cast<double>(w) * (&q.x)[c];
        if (k < 4) four[c] += static_cast<double>(w) * (&q.x)[c];
      }
    }
    const Vec3 got = vec3(part["positions"][v]);
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR((&got.x)[c], sum[c], 1e-5) << "vertex " << v;
      off_four = std::max(off_four, static_cast<float>(std::fabs(sum[c] - four[c])));
    }
  }
  EXPECT_GT(off_four, 0.1f);  // the second set carries real weight
}

}  // namespace
}  // namespace animpack
