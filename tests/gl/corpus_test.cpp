// Corpus models cooked here (cook_scene over a scene naming the corpus file) and drawn by
// SceneRenderer: the Fox comes out in its texture's colours, not one flat colour;
// BoxAnimated shows both its materials and the Quaternius alien its three.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "animpack/gl/framing.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "corpus_pack.h"
#include "gl_test_support.h"

namespace animpack::gl {
namespace {

using testing::cook_corpus;
using testing::GlTest;

// Red and green shares of a colour: its chromaticity, brightness aside.
struct Chroma {
  double r = 0, g = 0;
};
Chroma chroma(const uint8_t* c) {
  const double sum = static_cast<double>(c[0]) + c[1] + c[2];
  if (sum <= 0) return {1.0 / 3, 1.0 / 3};
  return {c[0] / sum, c[1] / sum};
}

class GlCorpus : public GlTest {
 protected:
  // Cooks and draws the model at tick `tick`, framed on its posed vertices from `from`,
  // into 200 x 150 pixels; keeps the covered pixels' colours.
  void draw(const std::string& name, const std::string& file, const std::string& clip, int tick,
            Vec3 from) {
    bytes = cook_corpus(name, file, clip);
    auto p = Pack::from_bytes(bytes);
    ASSERT_TRUE(p) << p.error().message();
    pack.emplace(std::move(*p));
    auto s = SceneRenderer::create(&*renderer, &*pack);
    ASSERT_TRUE(s) << s.error().message();
    scene.emplace(std::move(*s));
    auto player = ScenePlayer::create(&*pack, 60);
    ASSERT_TRUE(player) << player.error().message();
    for (int t = 0; t <= tick; ++t) player->step();
    const Posed& posed = player->posed();
    FramingOptions framing;
    framing.direction = from;
    framing.margin = 1.0f;
    const Camera camera = frame_box(posed_box(*pack, posed), 200.0f / 150.0f, framing);
    ASSERT_TRUE(scene->draw(posed, {camera, {}, 200, 150}));
    auto color = renderer->read_color();
    auto ids = renderer->read_ids();
    ASSERT_TRUE(color && ids);
    covered.clear();
    for (size_t i = 0; i < ids->size(); ++i) {
      if ((*ids)[i] == kNoId) continue;
      covered.push_back({color->rgba[i * 4], color->rgba[i * 4 + 1], color->rgba[i * 4 + 2]});
    }
  }
  void TearDown() override {
    scene.reset();
    GlTest::TearDown();
  }
  // The share of covered pixels whose chromaticity lies within `tolerance` of c.
  double share_near(Chroma c, double tolerance) const {
    size_t n = 0;
    for (const auto& px : covered) {
      const Chroma k = chroma(px.data());
      n += std::abs(k.r - c.r) <= tolerance && std::abs(k.g - c.g) <= tolerance;
    }
    return covered.empty() ? 0.0 : static_cast<double>(n) / static_cast<double>(covered.size());
  }

  std::vector<uint8_t> bytes;
  std::optional<Pack> pack;
  std::optional<SceneRenderer> scene;
  std::vector<std::array<uint8_t, 3>> covered;
};

TEST_F(GlCorpus, TheCookedFoxIsMostlyItsTextureColoursNotOneFlatColour) {
  if (IsSkipped() || HasFatalFailure()) return;
  draw("fox", "Fox/glTF-Binary/Fox.glb", "Walk", 10, {1.0f, 0.3f, 0.25f});
  if (HasFatalFailure()) return;
  ASSERT_EQ(pack->textures().size(), 1u) << "the Fox's base colour texture";
  ASSERT_GT(covered.size(), 1500u);
  // The texture's chromaticities, on a 1/64 grid, widened by one cell.
  constexpr int kGrid = 64;
  std::vector<uint8_t> seen(kGrid * kGrid, 0);
  auto cell = [](double v) { return std::clamp(static_cast<int>(v * kGrid), 0, kGrid - 1); };
  auto texels = pack->texture_pixels(0);
  ASSERT_TRUE(texels);
  for (size_t i = 0; i + 4 <= texels->size(); i += 4 * 3) {
    const Chroma c = chroma(&(*texels)[i]);
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const int x = std::clamp(cell(c.r) + dx, 0, kGrid - 1);
        const int y = std::clamp(cell(c.g) + dy, 0, kGrid - 1);
        seen[static_cast<size_t>(y * kGrid + x)] = 1;
      }
    }
  }
  size_t matched = 0;
  std::vector<double> red_share;
  for (const auto& px : covered) {
    const Chroma c = chroma(px.data());
    matched += seen[static_cast<size_t>(cell(c.g) * kGrid + cell(c.r))];
    red_share.push_back(c.r);
  }
  const double share = static_cast<double>(matched) / static_cast<double>(covered.size());
  // The Fox's fur is orange (red share over 0.5), its muzzle, chest and tail tip white or
  // grey (under 0.4): a flat colour has one red share.
  const double orange = static_cast<double>(std::count_if(red_share.begin(), red_share.end(),
                                                          [](double r) { return r > 0.5; })) /
                        static_cast<double>(covered.size());
  const double pale = static_cast<double>(std::count_if(red_share.begin(), red_share.end(),
                                                        [](double r) { return r < 0.4; })) /
                      static_cast<double>(covered.size());
  std::printf(
      "fox: %zu pixels covered, %.1f%% in the texture's colours, %.1f%% orange, %.1f%% "
      "white or grey\n",
      covered.size(), 100 * share, 100 * orange, 100 * pale);
  EXPECT_GT(share, 0.8) << "the Fox is drawn in colours its texture does not have";
  EXPECT_GT(orange, 0.3) << "the Fox's fur is not orange";
  EXPECT_GT(pale, 0.05) << "no white or grey parts: one flat colour?";
}

TEST_F(GlCorpus, BoxAnimatedShowsBothItsMaterials) {
  if (IsSkipped() || HasFatalFailure()) return;
  draw("box", "BoxAnimated/glTF-Embedded/BoxAnimated.gltf", "", 30, {0.6f, 0.9f, 1.0f});
  if (HasFatalFailure()) return;
  ASSERT_EQ(pack->materials().size(), 2u);
  for (const MaterialInfo& m : pack->materials()) {
    const uint8_t c[3] = {static_cast<uint8_t>(255 * std::pow(m.base_color.x, 1 / 2.2)),
                          static_cast<uint8_t>(255 * std::pow(m.base_color.y, 1 / 2.2)),
                          static_cast<uint8_t>(255 * std::pow(m.base_color.z, 1 / 2.2))};
    const double share = share_near(chroma(c), 0.04);
    std::printf("box: material %.*s on %.1f%% of %zu pixels\n", static_cast<int>(m.name.size()),
                m.name.data(), 100 * share, covered.size());
    EXPECT_GT(share, 0.03) << m.name;
  }
}

TEST_F(GlCorpus, TheQuaterniusAlienShowsItsThreeMaterials) {
  if (IsSkipped() || HasFatalFailure()) return;
  draw("alien", "Quaternius-Alien/Alien_Scolitex.gltf", "", 0, {0.3f, 0.8f, 1.0f});
  if (HasFatalFailure()) return;
  ASSERT_EQ(pack->materials().size(), 3u);
  // Orange and cyan by chromaticity; the near-black eyes by darkness.
  for (int k = 0; k < 2; ++k) {
    const MaterialInfo& m = pack->materials()[static_cast<size_t>(k)];
    const uint8_t c[3] = {static_cast<uint8_t>(255 * std::pow(m.base_color.x, 1 / 2.2)),
                          static_cast<uint8_t>(255 * std::pow(m.base_color.y, 1 / 2.2)),
                          static_cast<uint8_t>(255 * std::pow(m.base_color.z, 1 / 2.2))};
    const double share = share_near(chroma(c), 0.06);
    std::printf("alien: material %.*s on %.1f%% of %zu pixels\n", static_cast<int>(m.name.size()),
                m.name.data(), 100 * share, covered.size());
    EXPECT_GT(share, 0.05) << m.name;
  }
  size_t dark = 0;
  for (const auto& px : covered) dark += px[0] < 40 && px[1] < 40 && px[2] < 40;
  std::printf("alien: %zu dark pixels (the eyes)\n", dark);
  EXPECT_GT(dark, 5u);
}

}  // namespace
}  // namespace animpack::gl
