// Pack format 3: additive clips and state machines (GraphDef) round-trip through the
// writer and Pack::open; every index, enum, count, mask size and float is checked; a
// graph only on a skeletal object with a rig; version 1 and 2 packs keep opening; the
// golden version 3 pack keeps loading.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include "animpack/compiler/pack_writer.h"
#include "animpack/layers.h"
#include "animpack/pack.h"
#include "animpack/schema/pack_generated.h"
#include "fixtures/graph_fixture.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_graph(const GraphDef& a, const GraphDef& b) {
  ASSERT_EQ(a.parameters.size(), b.parameters.size());
  for (size_t i = 0; i < a.parameters.size(); ++i) {
    const ParameterDef& p = a.parameters[i];
    const ParameterDef& q = b.parameters[i];
    EXPECT_EQ(p.name, q.name) << i;
    EXPECT_EQ(p.kind, q.kind) << i;
    EXPECT_TRUE(same_bits(p.default_value, q.default_value)) << i;
    EXPECT_TRUE(same_bits(p.min, q.min)) << i;
    EXPECT_TRUE(same_bits(p.max, q.max)) << i;
  }
  ASSERT_EQ(a.states.size(), b.states.size());
  for (size_t i = 0; i < a.states.size(); ++i) {
    const StateDef& s = a.states[i];
    const StateDef& t = b.states[i];
    EXPECT_EQ(s.name, t.name) << i;
    EXPECT_EQ(s.clip, t.clip) << i;
    ASSERT_EQ(s.points.size(), t.points.size()) << i;
    for (size_t k = 0; k < s.points.size(); ++k) {
      EXPECT_EQ(s.points[k].clip, t.points[k].clip);
      EXPECT_TRUE(same_bits(s.points[k].x, t.points[k].x));
      EXPECT_TRUE(same_bits(s.points[k].y, t.points[k].y));
    }
    EXPECT_EQ(s.x_parameter, t.x_parameter) << i;
    EXPECT_EQ(s.y_parameter, t.y_parameter) << i;
    EXPECT_TRUE(same_bits(s.speed, t.speed)) << i;
    EXPECT_EQ(s.speed_parameter, t.speed_parameter) << i;
    EXPECT_EQ(s.playback, t.playback) << i;
    EXPECT_TRUE(same_bits(s.start, t.start)) << i;
  }
  ASSERT_EQ(a.transitions.size(), b.transitions.size());
  for (size_t i = 0; i < a.transitions.size(); ++i) {
    const TransitionDef& s = a.transitions[i];
    const TransitionDef& t = b.transitions[i];
    EXPECT_EQ(s.from, t.from) << i;
    EXPECT_EQ(s.to, t.to) << i;
    EXPECT_TRUE(same_bits(s.fade, t.fade)) << i;
    ASSERT_EQ(s.conditions.size(), t.conditions.size()) << i;
    for (size_t k = 0; k < s.conditions.size(); ++k) {
      EXPECT_EQ(s.conditions[k].kind, t.conditions[k].kind);
      EXPECT_EQ(s.conditions[k].parameter, t.conditions[k].parameter);
      EXPECT_TRUE(same_bits(s.conditions[k].value, t.conditions[k].value));
    }
  }
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    const LayerDef& s = a.layers[i];
    const LayerDef& t = b.layers[i];
    EXPECT_EQ(s.clip, t.clip) << i;
    EXPECT_EQ(s.mode, t.mode) << i;
    EXPECT_TRUE(same_bits(s.weight, t.weight)) << i;
    EXPECT_EQ(s.weight_parameter, t.weight_parameter) << i;
    ASSERT_EQ(s.mask.size(), t.mask.size()) << i;
    for (size_t k = 0; k < s.mask.size(); ++k) EXPECT_TRUE(same_bits(s.mask[k], t.mask[k]));
    EXPECT_TRUE(same_bits(s.speed, t.speed)) << i;
    EXPECT_EQ(s.playback, t.playback) << i;
  }
}

TEST(PackGraph, RoundTripsEveryField) {
  const CookedPack cooked = fixture::make_graph_pack();
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->format_version(), kPackFormatVersion);
  ASSERT_EQ(pack->objects().size(), 3u);
  ASSERT_TRUE(pack->objects()[0].animation.graph.has_value());
  expect_same_graph(*pack->objects()[0].animation.graph, *cooked.objects[0].animation.graph);
  ASSERT_TRUE(pack->objects()[1].animation.graph.has_value());
  expect_same_graph(*pack->objects()[1].animation.graph, *cooked.objects[1].animation.graph);
  EXPECT_EQ(pack->objects()[1].animation.clip, 1);
  EXPECT_FALSE(pack->objects()[2].animation.graph.has_value());

  // Extreme but finite values survive bit for bit too.
  CookedPack extreme = fixture::make_graph_pack();
  GraphDef& g = *extreme.objects[0].animation.graph;
  g.parameters[0].min = -std::numeric_limits<float>::max();
  g.parameters[0].max = std::numeric_limits<float>::max();
  g.parameters[0].default_value = -0.0f;
  g.states[2].start = 1.0 / 3.0;
  g.transitions[0].fade = 0.1;
  g.transitions[1].conditions[0].value = std::numeric_limits<float>::denorm_min();
  auto again = Pack::from_bytes(write_pack(extreme));
  ASSERT_TRUE(again) << again.error().message();
  expect_same_graph(*again->objects()[0].animation.graph, g);
}

TEST(PackGraph, RoundTripsTheAdditiveReferenceOfClips) {
  CookedPack cooked = fixture::make_graph_pack();
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  const Rig& rig = pack->rig(0);
  ASSERT_EQ(rig.clip_count(), 5);
  for (int c = 0; c < 4; ++c)
    EXPECT_EQ(rig.clips()[static_cast<size_t>(c)].additive(), AdditiveReference::kNone) << c;
  EXPECT_EQ(rig.clips()[fixture::kBreatheClip].additive(), AdditiveReference::kFirstFrame);
  EXPECT_EQ(rig.clips()[fixture::kBreatheClip].name(), "Breathe");
  EXPECT_EQ(pack->clip_source_animation(0, fixture::kBreatheClip), -1);
}

// make_additive_clip leaves out channels that add nothing but keeps the source's
// duration: when the channel keyed latest is one of them, the additive clip's keys end
// before its duration, and the pack must still open with that duration (its clock and
// events are the source's).
TEST(PackGraph, AnAdditiveClipKeepsItsDurationWhenItsLatestChannelAddsNothing) {
  CookedPack cooked = fixture::make_graph_pack();
  const Rig& before = cooked.rigs[0].rig;
  Clip sway("Sway");
  const float turn_times[] = {0.0f, 1.0f};
  const float turn_values[] = {0, 0, 0, 1, 0, 0.38268343f, 0, 0.92387953f};  // 45 deg about y
  sway.add_channel(1, Property::kRotation, Interpolation::kLinear, turn_times, turn_values);
  const float hold_times[] = {0.0f, 2.0f};
  const float hold_values[] = {0.5f, 0, 0, 0.5f, 0, 0};  // the same translation: no delta
  sway.add_channel(2, Property::kTranslation, Interpolation::kLinear, hold_times, hold_values);
  Result<Clip> additive =
      make_additive_clip(sway, before.skeleton(), AdditiveReference::kFirstFrame);
  ASSERT_TRUE(additive) << additive.error().message();
  ASSERT_EQ(additive->channels().size(), 1u) << "the held translation adds nothing";
  ASSERT_EQ(additive->duration(), 2.0f);
  std::vector<Clip> clips;
  for (const Clip& c : before.clips()) {
    clips.push_back(c.copy());
  }
  clips.push_back(std::move(sway));
  clips.push_back(std::move(*additive));
  Result<Rig> rig = Rig::create(before.skeleton(), std::move(clips));
  ASSERT_TRUE(rig) << rig.error().message();
  cooked.rigs[0].rig = std::move(*rig);
  cooked.rigs[0].clip_source_animations.push_back(-1);
  cooked.rigs[0].clip_source_animations.push_back(-1);

  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  const Result<uint16_t> index = pack->rig(0).find_clip("Sway", AdditiveReference::kFirstFrame);
  ASSERT_TRUE(index);
  EXPECT_EQ(pack->rig(0).clips()[*index].duration(), 2.0f);
  EXPECT_EQ(pack->rig(0).clips()[*index].channels().size(), 1u);
}

// Each change makes one check fail; the message names the object and the field.
TEST(PackGraph, RefusesOutOfRangeIndices) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  struct Case {
    const char* name;
    void (*spoil)(GraphDef&);
    const char* says;
  };
  const Case cases[] = {
      {"state clip", [](GraphDef& g) { g.states[1].clip = 5; }, "state 1 plays clip 5"},
      {"negative state clip", [](GraphDef& g) { g.states[1].clip = -2; }, "clip -2"},
      {"point clip", [](GraphDef& g) { g.states[0].points[2].clip = 9; }, "clip 9"},
      {"x parameter", [](GraphDef& g) { g.states[0].x_parameter = 5; }, "x 5"},
      {"y parameter", [](GraphDef& g) { g.states[2].y_parameter = -2; }, "y -2"},
      {"speed parameter", [](GraphDef& g) { g.states[2].speed_parameter = 7; }, "speed 7"},
      {"state playback", [](GraphDef& g) { g.states[1].playback = static_cast<Playback>(3); },
       "state 1: bad playback"},
      {"transition from", [](GraphDef& g) { g.transitions[0].from = 3; }, "from 3"},
      {"transition from below any", [](GraphDef& g) { g.transitions[0].from = -2; }, "from -2"},
      {"transition to", [](GraphDef& g) { g.transitions[2].to = 3; }, "to 3"},
      {"transition to any", [](GraphDef& g) { g.transitions[2].to = -1; }, "to -1"},
      {"condition parameter", [](GraphDef& g) { g.transitions[2].conditions[1].parameter = 5; },
       "parameter 5"},
      {"condition kind",
       [](GraphDef& g) { g.transitions[2].conditions[0].kind = static_cast<ConditionKind>(5); },
       "condition kind 5"},
      {"parameter kind", [](GraphDef& g) { g.parameters[1].kind = static_cast<ParameterKind>(3); },
       "bad kind 3"},
      {"layer clip", [](GraphDef& g) { g.layers[0].clip = 5; }, "layer 0 plays clip 5"},
      {"layer mode", [](GraphDef& g) { g.layers[1].mode = static_cast<LayerMode>(2); },
       "bad mode 2"},
      {"layer weight parameter", [](GraphDef& g) { g.layers[1].weight_parameter = 5; },
       "weight parameter 5"},
      {"layer playback", [](GraphDef& g) { g.layers[1].playback = static_cast<Playback>(7); },
       "layer 1: bad playback"},
      {"short mask", [](GraphDef& g) { g.layers[0].mask.pop_back(); }, "mask of 3 weights"},
      {"long mask", [](GraphDef& g) { g.layers[0].mask.push_back(1.0f); }, "mask of 5 weights"},
      {"NaN mask", [](GraphDef& g) { g.layers[0].mask[2] = kNaN; }, "mask weight"},
      {"NaN point", [](GraphDef& g) { g.states[2].points[1].y = kNaN; }, "blend point"},
      {"NaN default", [](GraphDef& g) { g.parameters[0].default_value = kNaN; }, "parameter 0"},
      {"infinite max", [](GraphDef& g) { g.parameters[3].max = kInf; }, "parameter 3"},
      {"infinite speed", [](GraphDef& g) { g.states[0].speed = kInf; }, "state 0: speed"},
      {"NaN start",
       [](GraphDef& g) { g.states[2].start = std::numeric_limits<double>::quiet_NaN(); },
       "state 2: speed"},
      {"infinite fade",
       [](GraphDef& g) { g.transitions[1].fade = std::numeric_limits<double>::infinity(); },
       "fade"},
      {"NaN condition", [](GraphDef& g) { g.transitions[2].conditions[0].value = kNaN; },
       "condition"},
      {"NaN layer weight", [](GraphDef& g) { g.layers[0].weight = kNaN; }, "layer 0: weight"},
      {"not UTF-8", [](GraphDef& g) { g.states[1].name = "j\xffump"; }, "state 1: the name"},
      {"too many parameters",
       [](GraphDef& g) { g.parameters.resize(kMaxGraphParameters + 1, {"p"}); }, "at most"},
      {"too many layers", [](GraphDef& g) { g.layers.resize(kMaxGraphLayers + 1); }, "at most"},
      {"too many points", [](GraphDef& g) { g.states[0].points.resize(kMaxBlendPoints + 1); },
       "17 blend points"},
      {"too many conditions",
       [](GraphDef& g) {
         g.transitions[0].conditions.resize(kMaxTransitionConditions + 1,
                                            {ConditionKind::kTrigger, 1, 0.0f});
       },
       "9 conditions"},
  };
  for (const Case& c : cases) {
    CookedPack cooked = fixture::make_graph_pack();
    c.spoil(*cooked.objects[0].animation.graph);
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_FALSE(pack) << c.name;
    EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack) << c.name;
    const std::string message = pack.error().message();
    EXPECT_NE(message.find(c.says), std::string::npos) << c.name << ": " << message;
    EXPECT_NE(message.find("object 0"), std::string::npos) << c.name << ": " << message;
  }
}

// What is in range but wrong together is GraphDef::validate's: refused as kBadPack too.
TEST(PackGraph, RefusesWhatGraphDefValidateRefuses) {
  struct Case {
    const char* name;
    void (*spoil)(GraphDef&);
  };
  const Case cases[] = {
      {"two states of one name", [](GraphDef& g) { g.states[2].name = "jump"; }},
      {"two parameters of one name", [](GraphDef& g) { g.parameters[4].name = "speed"; }},
      {"a trigger condition on a float",
       [](GraphDef& g) { g.transitions[0].conditions[0].parameter = 0; }},
      {"a bool condition on a trigger",
       [](GraphDef& g) { g.transitions[2].conditions[1].parameter = 1; }},
      {"an override layer playing an additive clip",
       [](GraphDef& g) { g.layers[0].clip = fixture::kBreatheClip; }},
      {"an additive layer playing an ordinary clip", [](GraphDef& g) { g.layers[1].clip = 2; }},
      {"a state playing an additive clip",
       [](GraphDef& g) { g.states[1].clip = fixture::kBreatheClip; }},
      {"coincident blend points", [](GraphDef& g) { g.states[0].points[1].x = 0.0f; }},
      {"a blend space of one point", [](GraphDef& g) { g.states[0].points.resize(1); }},
      {"a default outside its range", [](GraphDef& g) { g.parameters[0].default_value = 7.0f; }},
      {"min above max", [](GraphDef& g) { g.parameters[4].min = 2.0f; }},
      {"a negative fade", [](GraphDef& g) { g.transitions[0].fade = -0.5; }},
      {"a speed above the limit", [](GraphDef& g) { g.states[1].speed = kMaxSpeed * 2; }},
      {"a mask weight above 1", [](GraphDef& g) { g.layers[0].mask[1] = 1.5f; }},
      {"a layer weight above 1", [](GraphDef& g) { g.layers[0].weight = 2.0f; }},
  };
  for (const Case& c : cases) {
    CookedPack cooked = fixture::make_graph_pack();
    c.spoil(*cooked.objects[0].animation.graph);
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_FALSE(pack) << c.name;
    EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack) << c.name;
    EXPECT_NE(std::string(pack.error().message()).find("object 0 graph"), std::string::npos)
        << c.name << ": " << pack.error().message();
  }
}

// `objects` objects, each its own small table, all pointing at one Animation whose graph
// has 64 float parameters: FlatBuffers allows the sharing, so each object would copy the
// whole graph out of a file that holds it once.
std::vector<uint8_t> shared_graph_pack(size_t objects) {
  namespace fb = animpack::schema;
  flatbuffers::FlatBufferBuilder b;
  const Mat4 identity;
  const fb::Mat4f m(flatbuffers::span<const float, 16>(identity.m, 16));
  const fb::Trsf rest(fb::Vec3f(0, 0, 0), fb::Quatf(0, 0, 0, 1), fb::Vec3f(1, 1, 1));
  const auto joint = fb::CreateJoint(b, b.CreateString("j"), -1, &rest);
  const auto joints = b.CreateVector(std::vector{joint});
  const auto binds = b.CreateVectorOfStructs(&m, 1);
  const auto rig = fb::CreateRig(b, joints, binds, &m);
  const auto mesh = fb::CreateMesh(b, b.CreateString("m"), b.CreateString("m.glb"), 0, 0);
  std::vector<flatbuffers::Offset<fb::GraphParameter>> parameters;
  for (int i = 0; i < kMaxGraphParameters; ++i) {
    parameters.push_back(fb::CreateGraphParameter(b,
                                                  b.CreateString("parameter" + std::to_string(i)),
                                                  fb::ParameterKind::Float, 0.0f, 0.0f, 1.0f));
  }
  const auto graph = fb::CreateGraph(b, b.CreateVector(parameters));
  const auto animation =
      fb::CreateAnimation(b, -1, 0, 1.0f, fb::Playback::Loop, 0.0f, 0, -1, graph);
  std::vector<flatbuffers::Offset<fb::Object>> list;
  for (size_t i = 0; i < objects; ++i) {
    list.push_back(fb::CreateObject(b, 0, 0, 0, false, 0, nullptr, nullptr, nullptr, animation));
  }
  const auto meshes = b.CreateVector(std::vector{mesh});
  const auto rigs = b.CreateVector(std::vector{rig});
  const auto objs = b.CreateVector(list);
  fb::AssetPackBuilder root(b);
  root.add_format_version(kPackFormatVersion);
  root.add_meshes(meshes);
  root.add_rigs(rigs);
  root.add_objects(objs);
  fb::FinishAssetPackBuffer(b, root.Finish());
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

TEST(PackGraph, RefusesOneGraphSharedByManyObjects) {
  auto one = Pack::from_bytes(shared_graph_pack(1));
  ASSERT_TRUE(one) << one.error().message();
  EXPECT_EQ(one->objects()[0].animation.graph->parameters.size(), 64u);
  auto many = Pack::from_bytes(shared_graph_pack(2000));
  ASSERT_FALSE(many);
  EXPECT_EQ(many.error().code(), ErrorCode::kBadPack);
  EXPECT_NE(std::string(many.error().message()).find("more than the file holds"), std::string::npos)
      << many.error().message();
}

TEST(PackGraph, RefusesABadAdditiveReference) {
  CookedPack cooked = fixture::make_graph_pack();
  std::vector<Clip> clips;
  const Rig& rig = cooked.rigs[0].rig;
  for (const Clip& c : rig.clips()) {
    clips.push_back(c.copy());
  }
  clips[2].set_additive(static_cast<AdditiveReference>(3));
  cooked.rigs[0].rig = *Rig::create(rig.skeleton(), std::move(clips));
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_FALSE(pack);
  EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
  EXPECT_NE(std::string(pack.error().message()).find("rig 0 clip 2: bad additive reference 3"),
            std::string::npos)
      << pack.error().message();
}

TEST(PackGraph, RefusesAGraphWithoutARig) {
  {  // An object without a mesh.
    CookedPack cooked = fixture::make_graph_pack();
    cooked.objects[0].mesh = -1;
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_FALSE(pack);
    EXPECT_EQ(pack.error().code(), ErrorCode::kBadPack);
    EXPECT_NE(std::string(pack.error().message()).find("object 0: a graph on an object without"),
              std::string::npos)
        << pack.error().message();
  }
  {  // A mesh without a rig.
    CookedPack cooked = fixture::make_graph_pack();
    cooked.meshes[0].rig = -1;
    for (CookedPart& p : cooked.meshes[0].parts) {
      p.joints.clear();
      p.weights.clear();
    }
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_FALSE(pack);
    EXPECT_NE(std::string(pack.error().message()).find("without a rig"), std::string::npos)
        << pack.error().message();
  }
  {  // A sprite object.
    CookedPack cooked = fixture::make_graph_pack();
    CookedSheet sheet;
    sheet.source_file = "hero.png";
    std::vector<SpriteClip> clips;
    clips.push_back(*SpriteClip::create("run", {0, 1}, 12.0f, Playback::kLoop));
    sheet.sheet = *SpriteSheet::create(*Atlas::grid({32, 16}, {16, 16}, 2), std::move(clips));
    sheet.rgba.assign(32 * 16 * 4, 200);
    cooked.sheets.push_back(std::move(sheet));
    CookedObject& sprite = cooked.objects[2];
    sprite.mesh = -1;
    sprite.animation.sprite_sheet = 0;
    sprite.animation.graph = GraphDef{};
    auto pack = Pack::from_bytes(write_pack(cooked));
    ASSERT_FALSE(pack);
    EXPECT_NE(std::string(pack.error().message()).find("object 2: a graph on a sprite object"),
              std::string::npos)
        << pack.error().message();
    cooked.objects[2].animation.graph.reset();
    auto fine = Pack::from_bytes(write_pack(cooked));
    EXPECT_TRUE(fine) << fine.error().message();
  }
}

TEST(PackGraph, AnEmptyGraphReadsAsPresentAndEmpty) {
  CookedPack cooked = fixture::make_graph_pack();
  cooked.objects[2].animation.graph = GraphDef{};
  auto pack = Pack::from_bytes(write_pack(cooked));
  ASSERT_TRUE(pack) << pack.error().message();
  ASSERT_TRUE(pack->objects()[2].animation.graph.has_value());
  EXPECT_TRUE(pack->objects()[2].animation.graph->states.empty());
  EXPECT_TRUE(pack->objects()[2].animation.graph->layers.empty());
}

// The committed version 2 pack (textured_v2.anpk) and version 1 pack (fixture_v1.anpk),
// written before graphs existed, open with no graph and no additive clip.
TEST(PackGraph, VersionTwoPackStillOpens) {
  for (const char* name : {"textured_v2.anpk", "fixture_v1.anpk", "scene_player_v1.anpk"}) {
    const fs::path path = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs" / name;
    auto pack = Pack::open(path.string());
    ASSERT_TRUE(pack) << name << ": " << pack.error().message();
    EXPECT_LT(pack->format_version(), 3u) << name;
    for (const ObjectInfo& o : pack->objects())
      EXPECT_FALSE(o.animation.graph.has_value()) << name << " " << o.name;
    for (int r = 0; r < pack->rig_count(); ++r) {
      for (const Clip& c : pack->rig(r).clips())
        EXPECT_EQ(c.additive(), AdditiveReference::kNone) << name << " " << c.name();
    }
  }
}

// STYLE L2: the golden pack of format version 3 keeps loading (rewritten with
// ANIMPACK_WRITE_GOLDEN=1 only while version 3 is the newest).
TEST(PackGraph, GoldenVersionThreePackStillLoads) {
  const fs::path golden = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/packs/graph_v3.anpk";
  if (std::getenv("ANIMPACK_WRITE_GOLDEN") && kPackFormatVersion == 3) {
    ASSERT_EQ(write_file_atomically(golden, write_pack(fixture::make_graph_pack())), "");
  }
  auto pack = Pack::open(golden.string());
  ASSERT_TRUE(pack) << pack.error().message();
  EXPECT_EQ(pack->format_version(), 3u);
  ASSERT_EQ(pack->objects().size(), 3u);
  ASSERT_TRUE(pack->objects()[0].animation.graph.has_value());
  expect_same_graph(*pack->objects()[0].animation.graph, fixture::make_graph());
  EXPECT_EQ(pack->objects()[1].animation.graph->layers.size(), 1u);
  EXPECT_FALSE(pack->objects()[2].animation.graph.has_value());
  EXPECT_EQ(pack->rig(0).clips()[fixture::kBreatheClip].additive(), AdditiveReference::kFirstFrame);
}

}  // namespace
}  // namespace animpack
