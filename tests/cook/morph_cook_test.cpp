// Morph models cooked from a scene and played: every morph file of the corpus cooks with
// its weights clips (no longer left static), with mesh events and an additive layer on a
// morph clip (both rebuild the rig, which must keep its morph sets), and the ScenePlayer's
// weights at each tick are the clip's keys interpolated by this test's own arithmetic.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "animpack/skinning.h"
#include "import/import_support.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
using import_test::kCorpus;

struct MorphModel {
  const char* folder;  // under tests/data/corpus/gltf
  const char* file;
  const char* clip;  // its first animation as the cooker names it
};

class CookMorph : public ::testing::TestWithParam<MorphModel> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("animpack_morph_cook_" + std::to_string(::getpid()) + "_" +
                                        std::string(GetParam().folder));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// The weights a LINEAR weights channel gives at clip time t, by this test's arithmetic:
// clamped at the ends, lerp a + (b - a) * u between keys, in float as glTF's samplers do.
std::vector<float> expected_weights(const Channel& ch, float t) {
  const size_t n = ch.width;
  std::vector<float> w(n);
  const size_t keys = ch.times.size();
  size_t k = 0;
  while (k + 1 < keys && ch.times[k + 1] <= t) ++k;
  if (t <= ch.times[0] || k + 1 >= keys) {
    const size_t at = t <= ch.times[0] ? 0 : keys - 1;
    for (size_t i = 0; i < n; ++i) w[i] = ch.values[at * n + i];
    return w;
  }
  const float u = (t - ch.times[k]) / (ch.times[k + 1] - ch.times[k]);
  for (size_t i = 0; i < n; ++i) {
    const float a = ch.values[k * n + i];
    const float b = ch.values[(k + 1) * n + i];
    w[i] = a + (b - a) * u;
  }
  return w;
}

TEST_P(CookMorph, CooksWithItsWeightsClipAndPlaysTheKeysInterpolated) {
  const MorphModel& m = GetParam();
  const fs::path src = kCorpus / "gltf" / m.folder / "glTF";
  for (const auto& entry : fs::directory_iterator(src)) {
    fs::copy_file(entry.path(), dir_ / entry.path().filename());
  }
  const std::string clip = m.clip;
  std::ofstream(dir_ / "scene.toml")
      << "[[mesh]]\nname = \"m\"\nfile = \"" << m.file << "\"\n"
      << "events = [{ name = \"mid\", clip = \"" << clip << "\", time = 0.25 }]\n\n"
      << "[[object]]\nname = \"plain\"\nmesh = \"m\"\n"
      << "[object.animation]\nclip = \"" << clip << "\"\n\n"
      << "[[object]]\nname = \"layered\"\nmesh = \"m\"\n"
      << "[object.animation]\nclip = \"" << clip << "\"\n"
      << "[[object.animation.layers]]\nclip = \"" << clip
      << "\"\nadditive = true\nreference = \"rest_pose\"\n"
      << "weight = 0.5\n";
  DiagnosticSink sink;
  const CookOutput out = cook_scene(dir_ / "scene.toml", sink);
  ASSERT_EQ(sink.error_count(), 0u) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  for (const Diagnostic& d : sink.diagnostics()) {
    EXPECT_EQ(d.message.find("MORPH"), std::string::npos)
        << "no morph data is skipped: " << d.message;
  }
  ASSERT_EQ(out.pack.meshes.size(), 1u);
  const std::vector<uint8_t> bytes = write_pack(out.pack);
  Result<Pack> pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  const int rig_index = pack->meshes()[0].rig;
  ASSERT_GE(rig_index, 0) << "a morph file gets a rig for its weights";
  const Rig& rig = pack->rig(rig_index);
  ASSERT_GT(rig.morph_weight_count(), 0u);
  int morphed_parts = 0;
  for (const PartInfo& p : pack->parts()) morphed_parts += p.morph_set >= 0 ? 1 : 0;
  EXPECT_GT(morphed_parts, 0);

  // The plain object's clip and its weights channels.
  const Result<uint16_t> clip_index = rig.find_clip(clip);
  ASSERT_TRUE(clip_index) << clip_index.error().message();
  const Clip& played = rig.clips()[*clip_index];
  std::vector<const Channel*> weights_channels;
  for (const Channel& ch : played.channels()) {
    if (ch.property == Property::kWeights) weights_channels.push_back(&ch);
  }
  ASSERT_FALSE(weights_channels.empty()) << "the weights animation is cooked, not skipped";

  Result<ScenePlayer> player = ScenePlayer::create(&*pack, 60);
  ASSERT_TRUE(player) << player.error().message();
  const ObjectId plain = *player->find("plain");
  const ObjectId layered = *player->find("layered");
  const double duration = played.duration();
  bool changed = false;
  for (int64_t tick = 0; tick < 120; ++tick) {
    player->step();
    const std::span<const float> w = player->morph_weights(plain);
    ASSERT_EQ(w.size(), rig.morph_weight_count());
    const double seconds = std::fmod(static_cast<double>(player->tick()) / 60.0, duration);
    for (const Channel* ch : weights_channels) {
      const MorphSet& set = rig.morph_sets()[ch->joint];
      const std::vector<float> want = expected_weights(*ch, static_cast<float>(seconds));
      for (uint32_t i = 0; i < set.size(); ++i) {
        EXPECT_NEAR(w[set.first + i], want[i], 1e-5f)
            << m.folder << " tick " << player->tick() << " set " << set.name << " target " << i;
        if (std::fabs(w[set.first + i] - set.default_weights[i]) > 1e-3f) changed = true;
      }
    }
    // The layered object adds half the clip's difference from the defaults over it.
    const std::span<const float> lw = player->morph_weights(layered);
    ASSERT_EQ(lw.size(), w.size());
    for (const MorphSet& set : rig.morph_sets()) {
      for (uint32_t i = 0; i < set.size(); ++i) {
        const float base = w[set.first + i];
        EXPECT_NEAR(lw[set.first + i], base + 0.5f * (base - set.default_weights[i]), 1e-5f)
            << m.folder << " layered, tick " << player->tick();
      }
    }
  }
  EXPECT_TRUE(changed) << "the object is no longer left static";
  // The posed snapshot hands the weights to renderers.
  const Posed& posed = player->posed();
  bool handed = false;
  for (const PosedObject& o : posed.objects) handed = handed || !o.morph_weights.empty();
  EXPECT_TRUE(handed);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, CookMorph,
    ::testing::Values(MorphModel{"AnimatedMorphCube", "AnimatedMorphCube.gltf", "Square"},
                      MorphModel{"AnimatedMorphSphere", "AnimatedMorphSphere.gltf", "Globe"},
                      MorphModel{"SimpleMorph", "SimpleMorph.gltf", "animation_0"},
                      MorphModel{"MorphStressTest", "MorphStressTest.gltf", "Individuals"}),
    [](const ::testing::TestParamInfo<MorphModel>& p) { return std::string(p.param.folder); });

}  // namespace
}  // namespace animpack

namespace animpack {
namespace {

// Files with two skins (glTF-Asset-Generator Animation_Skin_11: two skinned meshes;
// ozz-animation's multiple_roots: two skeletons) cook into one rig and play: every part
// decodes and skins with the object's palette to finite positions, and the animated one
// moves.
TEST(CookSeveralSkins, TwoSkinFilesCookIntoOneRigAndPlay) {
  const fs::path dir =
      fs::temp_directory_path() / ("animpack_several_skins_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(kCorpus / "asset-generator/Animation_Skin/Animation_Skin_11.gltf",
                dir / "Animation_Skin_11.gltf");
  fs::copy_file(kCorpus / "asset-generator/Animation_Skin/Animation_Skin_11.bin",
                dir / "Animation_Skin_11.bin");
  fs::copy_file(kCorpus / "gltf/ozz-tests/multiple_roots.gltf", dir / "multiple_roots.gltf");
  std::ofstream(dir / "scene.toml")
      << "[[mesh]]\nname = \"two\"\nfile = \"Animation_Skin_11.gltf\"\n\n"
      << "[[mesh]]\nname = \"roots\"\nfile = \"multiple_roots.gltf\"\n\n"
      << "[[object]]\nname = \"two\"\nmesh = \"two\"\n\n"
      << "[[object]]\nname = \"roots\"\nmesh = \"roots\"\nposition = [3, 0, 0]\n"
      << "[object.animation]\nclip = \"animation1\"\n";
  DiagnosticSink sink;
  const CookOutput out = cook_scene(dir / "scene.toml", sink);
  ASSERT_EQ(sink.error_count(), 0u) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  const std::vector<uint8_t> bytes = write_pack(out.pack);
  Result<Pack> pack = Pack::from_bytes(bytes);
  ASSERT_TRUE(pack) << pack.error().message();
  Result<ScenePlayer> player = ScenePlayer::create(&*pack, 60);
  ASSERT_TRUE(player) << player.error().message();
  const ObjectId roots = *player->find("roots");
  player->step();
  const std::vector<Mat4> first(player->palette(roots).begin(), player->palette(roots).end());
  for (int t = 0; t < 30; ++t) player->step();
  const std::span<const Mat4> later = player->palette(roots);
  ASSERT_EQ(later.size(), first.size());
  bool moved = false;
  for (size_t j = 0; j < first.size(); ++j) {
    for (int k = 0; k < 16; ++k) moved = moved || first[j].m[k] != later[j].m[k];
  }
  EXPECT_TRUE(moved) << "multiple_roots' animation1 plays";
  for (int m = 0; m < static_cast<int>(pack->meshes().size()); ++m) {
    const MeshInfo& mesh = pack->meshes()[static_cast<size_t>(m)];
    ASSERT_GE(mesh.rig, 0) << mesh.name;
    int skinned = 0;
    const ObjectId id = *player->find(m == 0 ? "two" : "roots");
    for (int p = mesh.first_part; p < mesh.first_part + mesh.part_count; ++p) {
      Result<PartStreams> s = pack->part_streams(p);
      ASSERT_TRUE(s) << s.error().message();
      if (s->joints.empty()) continue;
      ++skinned;
      std::vector<Vec3> moved_positions(s->positions.size());
      ASSERT_TRUE(skin({s->positions, {}, {}, s->joints, s->weights}, player->palette(id),
                       {moved_positions, {}, {}}));
      for (const Vec3& v : moved_positions) {
        ASSERT_TRUE(std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z)) << mesh.name;
      }
    }
    EXPECT_GE(skinned, 2) << mesh.name << ": both skins' parts are skinned";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace animpack
