// Morph weights through the scene player: a pack (written with the cooker's pack writer)
// whose rig carries the morph rig's sets and clips (tests/runtime/morph_rig.h); each
// object's weights are its Animator's, reach posed(), and the game overrides them by name;
// bad names and objects without morph sets are refused and kept.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "animpack/scene_player.h"
#include "morph_fixture.h"

namespace animpack {
namespace {

using morph_fixture::make_morph_pack;
using morph_fixture::must;

std::vector<float> flat(std::span<const float> w) { return {w.begin(), w.end()}; }

struct Overrides : Game {
  void tick(ScenePlayer& p, int64_t t) override {
    if (t == 15) {
      results.push_back(p.set_morph_weight(ObjectId{0}, "smile", 2.0f));
      results.push_back(p.set_morph_weight(ObjectId{0}, "body/blink", -0.5f));
    }
    if (t == 20) results.push_back(p.clear_morph_weight(ObjectId{0}, "face/smile"));
  }
  std::vector<Result<void>> results;
};

TEST(ScenePlayerMorph, AnObjectsWeightsAreItsAnimatorsAndReachPosed) {
  const Pack pack = make_morph_pack();
  ASSERT_EQ(pack.rig(0).morph_sets().size(), 2u);
  ScenePlayer player = must(ScenePlayer::create(&pack, 60), "player");
  EXPECT_EQ(flat(player.morph_weights(ObjectId{0})), (std::vector<float>{0, 0, 0, 0.5f, 0}))
      << "Smile at 0 s, the body at its defaults";
  for (int i = 0; i <= 15; ++i) player.step();  // tick 15: 0.25 s
  EXPECT_EQ(flat(player.morph_weights(ObjectId{0})),
            (std::vector<float>{0.25f, 0.125f, -0.125f, 0.5f, 0}));
  const Posed& posed = player.posed();
  EXPECT_EQ(flat(posed.objects[0].morph_weights), flat(player.morph_weights(ObjectId{0})));
  EXPECT_TRUE(posed.objects[1].morph_weights.empty());
  EXPECT_TRUE(player.morph_weights(ObjectId{1}).empty());
  EXPECT_TRUE(player.morph_weights(ObjectId{9}).empty());
  // The same as an Animator played by hand.
  Animator a = must(Animator::create(player.rig(ObjectId{0}), 60), "animator");
  ASSERT_TRUE(a.play(0, 0));
  a.evaluate(15);
  EXPECT_EQ(flat(a.morph_weights()), flat(player.morph_weights(ObjectId{0})));
}

TEST(ScenePlayerMorph, TheGameOverridesWeightsByNameFromThatStepOn) {
  const Pack pack = make_morph_pack();
  ScenePlayer player = must(ScenePlayer::create(&pack, 60), "player");
  Overrides game;
  for (int i = 0; i <= 15; ++i) player.step(&game);
  EXPECT_EQ(flat(player.morph_weights(ObjectId{0})),
            (std::vector<float>{2.0f, 0.125f, -0.125f, 0.5f, -0.5f}));
  for (int i = 16; i <= 20; ++i) player.step(&game);
  // 20 ticks: Smile at 1/3 s; smile back to the clip, body/blink still held.
  const std::span<const float> w = player.morph_weights(ObjectId{0});
  EXPECT_FLOAT_EQ(w[0], 20.0f / 60.0f);
  EXPECT_EQ(w[4], -0.5f);
  for (const Result<void>& r : game.results) EXPECT_TRUE(r);
  EXPECT_TRUE(player.animation_errors().empty());
}

TEST(ScenePlayerMorph, UnknownTargetsAndObjectsWithoutMorphSetsAreRefusedAndKept) {
  const Pack pack = make_morph_pack();
  ScenePlayer player = must(ScenePlayer::create(&pack, 60), "player");
  const auto code = [](const Result<void>& r) { return r ? ErrorCode::kOk : r.error().code(); };
  const Result<void> unknown = player.set_morph_weight(ObjectId{0}, "grin", 1.0f);
  EXPECT_EQ(code(unknown), ErrorCode::kUnknownMorphTarget);
  EXPECT_NE(std::string(unknown.error().message()).find("grin"), std::string::npos);
  EXPECT_NE(std::string(unknown.error().message()).find("face"), std::string::npos)
      << "names the object: " << unknown.error().message();
  EXPECT_EQ(code(player.set_morph_weight(ObjectId{0}, "blink", 1.0f)),
            ErrorCode::kUnknownMorphTarget);  // in two sets
  EXPECT_EQ(code(player.set_morph_weight(ObjectId{0}, "smile", 1e9f)), ErrorCode::kBadWeight);
  EXPECT_EQ(code(player.clear_morph_weight(ObjectId{0}, "nope")), ErrorCode::kUnknownMorphTarget);
  EXPECT_EQ(code(player.set_morph_weight(ObjectId{1}, "smile", 1.0f)),
            ErrorCode::kInvalidArgument);  // no morph sets
  EXPECT_EQ(code(player.clear_morph_weight(ObjectId{1}, "smile")), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(player.set_morph_weight(ObjectId{7}, "smile", 1.0f)),
            ErrorCode::kInvalidArgument);  // no such object
  EXPECT_EQ(player.animation_errors().size(), 7u);
  player.step();
  EXPECT_EQ(flat(player.morph_weights(ObjectId{0})), (std::vector<float>{0, 0, 0, 0.5f, 0}))
      << "refusals change nothing";
}

}  // namespace
}  // namespace animpack
