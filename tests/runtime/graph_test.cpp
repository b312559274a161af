// State machines (graph.h): blend space weights, GraphDef::validate and the
// StateMachine driving an Animator. The rig is built here (graph_rig()).
#include "animpack/graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace animpack {
namespace {

constexpr int kRate = 60;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Joints "root" -> "spine" -> "arm", each 1 above its parent. Clips (seconds):
//   0 "Idle"    (2.0) root translation (0,0,0) -> (0,0.5,0)
//   1 "Walk"    (1.0) root translation (0,0,0) -> (1,0,0); mark "walk_step" at 0.5
//   2 "Run"     (0.5) root translation (0,0,0) -> (2,0,0); mark "run_step" at 0.25
//   3 "Jump"    (1.0) spine translation (0,1,0) -> (0,2,0)
//   4 "Wave"    (1.0) arm rotation about z, 0 -> 1 rad
//   5 "Breathe" (1.0) additive (first frame): spine scale deltas (0,0,0) -> (0.5,0.5,0.5)
Rig graph_rig() {
  std::vector<Joint> joints(3);
  const char* names[] = {"root", "spine", "arm"};
  for (int i = 0; i < 3; ++i) {
    joints[static_cast<size_t>(i)].name = names[i];
    joints[static_cast<size_t>(i)].parent = static_cast<int16_t>(i - 1);
    joints[static_cast<size_t>(i)].rest.translation = {0.0f, i == 0 ? 0.0f : 1.0f, 0.0f};
  }
  auto skeleton = Skeleton::create(std::move(joints), {}, Mat4{});
  std::vector<Clip> clips;
  auto linear = [&](const char* name, uint16_t joint, Property p, float duration,
                    std::vector<float> values) {
    Clip c(name);
    const float t[] = {0.0f, duration};
    c.add_channel(joint, p, Interpolation::kLinear, t, values);
    clips.push_back(std::move(c));
  };
  linear("Idle", 0, Property::kTranslation, 2.0f, {0, 0, 0, 0, 0.5f, 0});
  linear("Walk", 0, Property::kTranslation, 1.0f, {0, 0, 0, 1, 0, 0});
  clips.back().add_event("walk_step", 0.5f);
  linear("Run", 0, Property::kTranslation, 0.5f, {0, 0, 0, 2, 0, 0});
  clips.back().add_event("run_step", 0.25f);
  linear("Jump", 1, Property::kTranslation, 1.0f, {0, 1, 0, 0, 2, 0});
  const Quat q = quat_from_axis_angle({0, 0, 1}, 1.0f);
  linear("Wave", 2, Property::kRotation, 1.0f, {0, 0, 0, 1, q.x, q.y, q.z, q.w});
  linear("Breathe", 1, Property::kScale, 1.0f, {0, 0, 0, 0.5f, 0.5f, 0.5f});
  clips.back().set_additive(AdditiveReference::kFirstFrame);
  auto rig = Rig::create(std::move(*skeleton), std::move(clips));
  EXPECT_TRUE(rig) << rig.error().message();
  return std::move(*rig);
}

enum : uint16_t { kIdle = 0, kWalk = 1, kRun = 2, kJump = 3, kWave = 4, kBreathe = 5 };
enum : int32_t { kSpeed = 0, kGo = 1, kGrounded = 2, kTired = 3, kRate_ = 4, kTurn = 5, kGo2 = 6 };
enum : int32_t { sIdle = 0, sWalk = 1, sRun = 2, sJump = 3, sLoco = 4, sPlane = 5 };

ParameterDef float_param(const char* name, float def, float lo, float hi) {
  ParameterDef p;
  p.name = name;
  p.kind = ParameterKind::kFloat;
  p.default_value = def;
  p.min = lo;
  p.max = hi;
  return p;
}
ParameterDef param(const char* name, ParameterKind kind, float def = 0.0f) {
  ParameterDef p;
  p.name = name;
  p.kind = kind;
  p.default_value = def;
  return p;
}
StateDef clip_state(const char* name, int32_t clip, Playback playback = Playback::kLoop) {
  StateDef s;
  s.name = name;
  s.clip = clip;
  s.playback = playback;
  return s;
}
ConditionDef cond(ConditionKind kind, int32_t parameter, float value = 0.0f) {
  return {kind, parameter, value};
}
TransitionDef transition(int32_t from, int32_t to, std::vector<ConditionDef> when,
                         double fade = 0.0) {
  TransitionDef t;
  t.from = from;
  t.to = to;
  t.conditions = std::move(when);
  t.fade = fade;
  return t;
}

// Parameters: speed [0, 6], go (trigger), grounded (bool, true), tired [0, 1], rate
// [0, 8] = 1, turn [-1, 1], go2 (trigger). States: idle, walk, run, jump (once),
// locomotion (1D on speed: Idle at 0, Walk at 1.5, Run at 4), plane (2D on speed and
// turn). No transitions, no layers.
GraphDef base_graph() {
  GraphDef g;
  g.parameters = {float_param("speed", 0.0f, 0.0f, 6.0f),
                  param("go", ParameterKind::kTrigger),
                  param("grounded", ParameterKind::kBool, 1.0f),
                  float_param("tired", 0.0f, 0.0f, 1.0f),
                  float_param("rate", 1.0f, 0.0f, 8.0f),
                  float_param("turn", 0.0f, -1.0f, 1.0f),
                  param("go2", ParameterKind::kTrigger)};
  g.states = {clip_state("idle", kIdle), clip_state("walk", kWalk), clip_state("run", kRun),
              clip_state("jump", kJump, Playback::kOnce)};
  StateDef loco;
  loco.name = "locomotion";
  loco.points = {{kIdle, 0.0f, 0.0f}, {kWalk, 1.5f, 0.0f}, {kRun, 4.0f, 0.0f}};
  loco.x_parameter = kSpeed;
  g.states.push_back(loco);
  StateDef plane;
  plane.name = "plane";
  plane.points = {{kIdle, 0.0f, 0.0f}, {kWalk, 1.5f, 0.0f}, {kRun, 1.5f, 1.0f}};
  plane.x_parameter = kSpeed;
  plane.y_parameter = kTurn;
  g.states.push_back(plane);
  return g;
}

// ---------------------------------------------------------------------------------------
// Blend space weights

std::vector<float> weights_1d(const std::vector<BlendPoint>& points, float x) {
  std::vector<float> w(points.size(), -1.0f);
  blend_weights_1d(points, x, w);
  return w;
}
std::vector<float> weights_2d(const std::vector<BlendPoint>& points, float x, float y) {
  std::vector<float> w(points.size(), -1.0f);
  blend_weights_2d(points, x, y, w);
  return w;
}

// Unsorted on purpose.
const std::vector<BlendPoint> kLine = {{1, 1.5f, 0}, {0, 0.0f, 0}, {2, 4.0f, 0}};
// An idle in the middle, four directions and an off-grid diagonal.
const std::vector<BlendPoint> kPlane = {{0, 0, 0},  {1, 0, 1},       {1, 0, -1},
                                        {2, -1, 0}, {2, 1.0f, 0.0f}, {3, 0.7f, 0.9f}};

TEST(BlendSpace, OneDAtAPointIsThatPointAlone) {
  for (size_t i = 0; i < kLine.size(); ++i) {
    const std::vector<float> w = weights_1d(kLine, kLine[i].x);
    for (size_t j = 0; j < kLine.size(); ++j) EXPECT_EQ(w[j], i == j ? 1.0f : 0.0f) << i << j;
  }
}

TEST(BlendSpace, OneDBetweenPointsIsLinear) {
  std::vector<float> w = weights_1d(kLine, 0.75f);  // halfway from 0 to 1.5
  EXPECT_FLOAT_EQ(w[1], 0.5f);
  EXPECT_FLOAT_EQ(w[0], 0.5f);
  EXPECT_EQ(w[2], 0.0f);
  w = weights_1d(kLine, 2.75f);  // halfway from 1.5 to 4
  EXPECT_FLOAT_EQ(w[0], 0.5f);
  EXPECT_FLOAT_EQ(w[2], 0.5f);
  EXPECT_EQ(w[1], 0.0f);
  w = weights_1d(kLine, 2.0f);  // a fifth of the way
  EXPECT_FLOAT_EQ(w[2], 0.2f);
  EXPECT_FLOAT_EQ(w[0], 0.8f);
  EXPECT_FLOAT_EQ(w[0] + w[2], 1.0f);
}

TEST(BlendSpace, OneDOutsideTheEndsIsTheEndPoint) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {-0.001f, -3.0f, -inf}) EXPECT_EQ(weights_1d(kLine, x), (std::vector{0.f, 1.f, 0.f}));
  for (float x : {4.001f, 100.0f, inf}) EXPECT_EQ(weights_1d(kLine, x), (std::vector{0.f, 0.f, 1.f}));
  EXPECT_EQ(weights_1d(kLine, kNaN), (std::vector{1.f, 0.f, 0.f})) << "NaN: the first point";
}

TEST(BlendSpace, TwoDAtAPointIsThatPointAlone) {
  for (size_t i = 0; i < kPlane.size(); ++i) {
    const std::vector<float> w = weights_2d(kPlane, kPlane[i].x, kPlane[i].y);
    for (size_t j = 0; j < kPlane.size(); ++j) EXPECT_EQ(w[j], i == j ? 1.0f : 0.0f) << i << j;
  }
}

TEST(BlendSpace, TwoDWeightsSumToOneAndAreContinuous) {
  // A dense grid over and beyond the points: every sample sums to 1 and is never
  // negative, and neighbouring samples (0.005 apart) differ by a bounded amount (a jump
  // anywhere would show as a difference near 1).
  constexpr int kN = 801;
  constexpr float kStep = 0.005f;
  std::vector<float> prev_row(kN * kPlane.size());
  std::vector<float> row(kN * kPlane.size());
  float worst = 0.0f;
  for (int iy = 0; iy < kN; ++iy) {
    const float y = -2.0f + static_cast<float>(iy) * kStep;
    for (int ix = 0; ix < kN; ++ix) {
      const float x = -2.0f + static_cast<float>(ix) * kStep;
      const std::span<float> w(&row[static_cast<size_t>(ix) * kPlane.size()], kPlane.size());
      blend_weights_2d(kPlane, x, y, w);
      double sum = 0.0;
      for (size_t j = 0; j < kPlane.size(); ++j) {
        ASSERT_GE(w[j], 0.0f);
        sum += w[j];
        if (ix > 0) worst = std::max(worst, std::fabs(w[j] - w[j - kPlane.size()]));
        if (iy > 0) {
          worst = std::max(worst, std::fabs(w[j] - prev_row[static_cast<size_t>(ix) * kPlane.size() + j]));
        }
      }
      ASSERT_NEAR(sum, 1.0, 1e-6) << x << ", " << y;
    }
    std::swap(row, prev_row);
  }
  EXPECT_LT(worst, 0.03f);
  EXPECT_GT(worst, 0.0f);
}

TEST(BlendSpace, TwoDBetweenTwoPointsIsLinearAlongTheirLine) {
  // Idle at (0,0) and walk at (0,1) only: halfway is half each.
  const std::vector<BlendPoint> two = {{0, 0, 0}, {1, 0, 1}};
  const std::vector<float> w = weights_2d(two, 0.0f, 0.25f);
  EXPECT_FLOAT_EQ(w[0], 0.75f);
  EXPECT_FLOAT_EQ(w[1], 0.25f);
}

TEST(BlendSpace, TwoDDegenerateQueryFallsBackToTheNearestPoint) {
  EXPECT_EQ(weights_2d(kPlane, kNaN, 0.0f), (std::vector{1.f, 0.f, 0.f, 0.f, 0.f, 0.f}));
}

TEST(BlendSpace, WrongOutputSizeGivesZeros) {
  std::vector<float> w(2, 5.0f);
  blend_weights_1d(kLine, 1.0f, w);
  EXPECT_EQ(w, (std::vector{0.f, 0.f}));
  blend_weights_2d(kPlane, 1.0f, 1.0f, w);
  EXPECT_EQ(w, (std::vector{0.f, 0.f}));
}

// ---------------------------------------------------------------------------------------
// GraphDef::validate

class GraphValidate : public ::testing::Test {
 protected:
  // base_graph() plus one transition and two layers: valid.
  GraphDef good() {
    GraphDef g = base_graph();
    g.transitions.push_back(transition(sIdle, sWalk, {cond(ConditionKind::kAbove, kSpeed, 1.0f)}, 0.2));
    g.transitions.push_back(transition(-1, sJump, {cond(ConditionKind::kTrigger, kGo)}));
    g.transitions.push_back(transition(sJump, sIdle, {cond(ConditionKind::kExitTime, -1, 0.9f),
                                                      cond(ConditionKind::kIs, kGrounded, 1.0f)}));
    LayerDef wave;
    wave.clip = kWave;
    wave.mask = {0.0f, 0.5f, 1.0f};
    LayerDef breathe;
    breathe.clip = kBreathe;
    breathe.mode = LayerMode::kAdditive;
    breathe.weight_parameter = kTired;
    g.layers = {wave, breathe};
    return g;
  }
  // Expects `change` applied to good() to be refused with kBadGraph.
  void refuses(const std::function<void(GraphDef&)>& change) {
    GraphDef g = good();
    change(g);
    Result<void> r = g.validate(rig_);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), ErrorCode::kBadGraph);
  }
  Rig rig_ = graph_rig();
};

TEST_F(GraphValidate, AcceptsAGoodGraph) {
  Result<void> r = good().validate(rig_);
  EXPECT_TRUE(r) << r.error().message();
  EXPECT_TRUE(GraphDef{}.validate(rig_)) << "an empty graph";
}
TEST_F(GraphValidate, ErrorsNameTheStateTransitionOrLayer) {
  GraphDef g = good();
  g.states[sRun].speed = 9.0f;
  Result<void> r = g.validate(rig_);
  ASSERT_FALSE(r);
  EXPECT_NE(std::string(r.error().message()).find("state 2 'run'"), std::string::npos)
      << r.error().message();
  g = good();
  g.transitions[2].conditions[1].parameter = kSpeed;
  r = g.validate(rig_);
  ASSERT_FALSE(r);
  EXPECT_NE(std::string(r.error().message()).find("transition 2 (jump -> idle)"), std::string::npos)
      << r.error().message();
  g = good();
  g.layers[1].mask = {0.0f};
  r = g.validate(rig_);
  ASSERT_FALSE(r);
  EXPECT_NE(std::string(r.error().message()).find("layer 1 'Breathe'"), std::string::npos)
      << r.error().message();
}
TEST_F(GraphValidate, RefusesTooManyParameters) {
  refuses([](GraphDef& g) {
    for (int i = 0; i < kMaxGraphParameters; ++i) g.parameters.push_back(param("", ParameterKind::kBool));
    for (size_t i = 0; i < g.parameters.size(); ++i) g.parameters[i].name = "p" + std::to_string(i);
  });
}
TEST_F(GraphValidate, RefusesAParameterWithoutAName) {
  refuses([](GraphDef& g) { g.parameters[1].name.clear(); });
}
TEST_F(GraphValidate, RefusesTwoParametersOfOneName) {
  refuses([](GraphDef& g) { g.parameters[3].name = "speed"; });
}
TEST_F(GraphValidate, RefusesAnUnknownParameterKind) {
  refuses([](GraphDef& g) { g.parameters[1].kind = static_cast<ParameterKind>(7); });
}
TEST_F(GraphValidate, RefusesAFloatRangeWithMinAboveMax) {
  refuses([](GraphDef& g) { g.parameters[0].min = 7.0f; });
  refuses([](GraphDef& g) { g.parameters[0].max = kNaN; });
}
TEST_F(GraphValidate, RefusesAFloatDefaultOutsideItsRange) {
  refuses([](GraphDef& g) { g.parameters[0].default_value = 6.5f; });
  refuses([](GraphDef& g) { g.parameters[0].default_value = kNaN; });
}
TEST_F(GraphValidate, RefusesABoolDefaultOtherThanZeroOrOne) {
  refuses([](GraphDef& g) { g.parameters[kGrounded].default_value = 0.5f; });
}
TEST_F(GraphValidate, RefusesATriggerDefaultOtherThanZero) {
  refuses([](GraphDef& g) { g.parameters[kGo].default_value = 1.0f; });
}
TEST_F(GraphValidate, RefusesTooManyStates) {
  refuses([](GraphDef& g) {
    for (int i = 0; i < kMaxGraphStates; ++i) g.states.push_back(clip_state("", kIdle));
    for (size_t i = 0; i < g.states.size(); ++i) g.states[i].name = "s" + std::to_string(i);
  });
}
TEST_F(GraphValidate, RefusesAStateWithoutAName) {
  refuses([](GraphDef& g) { g.states[2].name.clear(); });
}
TEST_F(GraphValidate, RefusesTwoStatesOfOneName) {
  refuses([](GraphDef& g) { g.states[3].name = "idle"; });
}
TEST_F(GraphValidate, RefusesAStateClipOutOfRange) {
  refuses([](GraphDef& g) { g.states[1].clip = 6; });
  refuses([](GraphDef& g) { g.states[1].clip = -2; });
}
TEST_F(GraphValidate, RefusesAStateOfAnAdditiveClip) {
  refuses([](GraphDef& g) { g.states[1].clip = kBreathe; });
  refuses([](GraphDef& g) { g.states[sLoco].points[1].clip = kBreathe; });
}
TEST_F(GraphValidate, RefusesAClipStateWithBlendPoints) {
  refuses([](GraphDef& g) { g.states[1].points = g.states[sLoco].points; });
  refuses([](GraphDef& g) { g.states[1].x_parameter = kSpeed; });
}
TEST_F(GraphValidate, RefusesABlendSpaceOfOnePoint) {
  refuses([](GraphDef& g) { g.states[sLoco].points.resize(1); });
  refuses([](GraphDef& g) { g.states[sLoco].points.clear(); });
}
TEST_F(GraphValidate, RefusesABlendSpaceOfTooManyPoints) {
  refuses([](GraphDef& g) {
    g.states[sLoco].points.clear();
    for (int i = 0; i <= kMaxBlendPoints; ++i) {
      g.states[sLoco].points.push_back({kWalk, static_cast<float>(i), 0.0f});
    }
  });
}
TEST_F(GraphValidate, RefusesABlendPointClipOutOfRange) {
  refuses([](GraphDef& g) { g.states[sLoco].points[2].clip = 6; });
}
TEST_F(GraphValidate, RefusesCoincidentOneDPoints) {
  refuses([](GraphDef& g) { g.states[sLoco].points[2].x = 0.0f; });
  GraphDef g = good();  // in 1D, y does not tell points apart
  g.states[sLoco].points[2].x = 0.0f;
  g.states[sLoco].points[2].y = 5.0f;
  EXPECT_FALSE(g.validate(rig_));
}
TEST_F(GraphValidate, RefusesCoincidentTwoDPoints) {
  refuses([](GraphDef& g) { g.states[sPlane].points[2].y = 0.0f; });
  EXPECT_TRUE(good().validate(rig_)) << "equal x, different y is fine in 2D";
}
TEST_F(GraphValidate, RefusesABlendPointNotFinite) {
  refuses([](GraphDef& g) { g.states[sLoco].points[0].x = kNaN; });
  refuses([](GraphDef& g) { g.states[sPlane].points[0].y = std::numeric_limits<float>::infinity(); });
}
TEST_F(GraphValidate, RefusesABlendParameterThatIsNotAFloat) {
  refuses([](GraphDef& g) { g.states[sLoco].x_parameter = kGrounded; });
  refuses([](GraphDef& g) { g.states[sLoco].x_parameter = -1; });
  refuses([](GraphDef& g) { g.states[sPlane].y_parameter = kGo; });
  refuses([](GraphDef& g) { g.states[sPlane].y_parameter = 99; });
}
TEST_F(GraphValidate, RefusesAStateSpeedOutOfRange) {
  refuses([](GraphDef& g) { g.states[0].speed = kMaxSpeed * 2.0f; });
  refuses([](GraphDef& g) { g.states[0].speed = -1.0f; });
  refuses([](GraphDef& g) { g.states[0].speed = kNaN; });
}
TEST_F(GraphValidate, RefusesASpeedParameterThatIsNotAFloat) {
  refuses([](GraphDef& g) { g.states[0].speed_parameter = kGo; });
  refuses([](GraphDef& g) { g.states[0].speed_parameter = 42; });
}
TEST_F(GraphValidate, RefusesASpeedParameterWhoseDefaultIsNoSpeed) {
  refuses([](GraphDef& g) {
    g.parameters[kTurn].default_value = -0.5f;
    g.states[0].speed_parameter = kTurn;
  });
}
TEST_F(GraphValidate, RefusesAStartOutOfRange) {
  refuses([](GraphDef& g) { g.states[0].start = -0.5; });
  refuses([](GraphDef& g) { g.states[0].start = kMaxStartSeconds + 1.0; });
}
TEST_F(GraphValidate, RefusesAnUnknownPlayback) {
  refuses([](GraphDef& g) { g.states[0].playback = static_cast<Playback>(3); });
  refuses([](GraphDef& g) { g.layers[0].playback = static_cast<Playback>(9); });
}
TEST_F(GraphValidate, RefusesTooManyTransitions) {
  refuses([](GraphDef& g) { g.transitions.resize(kMaxGraphTransitions + 1, g.transitions[0]); });
}
TEST_F(GraphValidate, RefusesATransitionToNowhere) {
  refuses([](GraphDef& g) { g.transitions[0].to = 6; });
  refuses([](GraphDef& g) { g.transitions[0].to = -1; });
}
TEST_F(GraphValidate, RefusesATransitionFromNowhere) {
  refuses([](GraphDef& g) { g.transitions[0].from = 6; });
  refuses([](GraphDef& g) { g.transitions[0].from = -2; });
}
TEST_F(GraphValidate, RefusesAFadeOutOfRange) {
  refuses([](GraphDef& g) { g.transitions[0].fade = -0.1; });
  refuses([](GraphDef& g) { g.transitions[0].fade = kMaxFadeSeconds * 2.0; });
}
TEST_F(GraphValidate, RefusesTooManyConditions) {
  refuses([](GraphDef& g) {
    g.transitions[0].conditions.resize(kMaxTransitionConditions + 1, g.transitions[0].conditions[0]);
  });
}
TEST_F(GraphValidate, RefusesAConditionOnAParameterOfTheWrongKind) {
  refuses([](GraphDef& g) { g.transitions[0].conditions[0].parameter = kGrounded; });
  refuses([](GraphDef& g) { g.transitions[1].conditions[0].parameter = kSpeed; });
  refuses([](GraphDef& g) { g.transitions[2].conditions[1].parameter = kGo; });
}
TEST_F(GraphValidate, RefusesAConditionOnAnUndeclaredParameter) {
  refuses([](GraphDef& g) { g.transitions[0].conditions[0].parameter = 7; });
  refuses([](GraphDef& g) { g.transitions[0].conditions[0].parameter = -1; });
}
TEST_F(GraphValidate, RefusesAConditionOfAnUnknownKind) {
  refuses([](GraphDef& g) { g.transitions[0].conditions[0].kind = static_cast<ConditionKind>(5); });
}
TEST_F(GraphValidate, RefusesAThresholdNotFinite) {
  refuses([](GraphDef& g) { g.transitions[0].conditions[0].value = kNaN; });
}
TEST_F(GraphValidate, RefusesABoolConditionOtherThanZeroOrOne) {
  refuses([](GraphDef& g) { g.transitions[2].conditions[1].value = 2.0f; });
}
TEST_F(GraphValidate, RefusesABadExitTime) {
  refuses([](GraphDef& g) { g.transitions[2].conditions[0].value = -0.5f; });
  refuses([](GraphDef& g) { g.transitions[2].conditions[0].value = kNaN; });
  refuses([](GraphDef& g) { g.transitions[2].conditions[0].parameter = kSpeed; });
}
TEST_F(GraphValidate, RefusesTooManyLayers) {
  refuses([](GraphDef& g) { g.layers.resize(kMaxGraphLayers + 1, g.layers[0]); });
}
TEST_F(GraphValidate, RefusesALayerClipOutOfRange) {
  refuses([](GraphDef& g) { g.layers[0].clip = 6; });
}
TEST_F(GraphValidate, RefusesALayerClipOfTheWrongMode) {
  refuses([](GraphDef& g) { g.layers[0].mode = LayerMode::kAdditive; });
  refuses([](GraphDef& g) { g.layers[1].mode = LayerMode::kOverride; });
  refuses([](GraphDef& g) { g.layers[1].mode = static_cast<LayerMode>(4); });
}
TEST_F(GraphValidate, RefusesALayerWeightOutOfRange) {
  refuses([](GraphDef& g) { g.layers[0].weight = 1.5f; });
  refuses([](GraphDef& g) { g.layers[0].weight = kNaN; });
}
TEST_F(GraphValidate, RefusesAWeightParameterThatIsNotAFloatInZeroToOne) {
  refuses([](GraphDef& g) { g.layers[1].weight_parameter = kGo; });
  refuses([](GraphDef& g) { g.layers[1].weight_parameter = 11; });
  refuses([](GraphDef& g) {  // rate's default 2 is no weight
    g.parameters[kRate_].default_value = 2.0f;
    g.layers[1].weight_parameter = kRate_;
  });
}
TEST_F(GraphValidate, RefusesAMaskOfTheWrongSize) {
  refuses([](GraphDef& g) { g.layers[0].mask = {1.0f, 1.0f}; });
}
TEST_F(GraphValidate, RefusesAMaskWeightOutOfRange) {
  refuses([](GraphDef& g) { g.layers[0].mask[1] = 1.5f; });
  refuses([](GraphDef& g) { g.layers[0].mask[2] = kNaN; });
}
TEST_F(GraphValidate, RefusesALayerSpeedOutOfRange) {
  refuses([](GraphDef& g) { g.layers[0].speed = -1.0f; });
}

}  // namespace
}  // namespace animpack
