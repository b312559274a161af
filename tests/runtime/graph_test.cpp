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
  g.parameters = {
      float_param("speed", 0.0f, 0.0f, 6.0f),        param("go", ParameterKind::kTrigger),
      param("grounded", ParameterKind::kBool, 1.0f), float_param("tired", 0.0f, 0.0f, 1.0f),
      float_param("rate", 1.0f, 0.0f, 8.0f),         float_param("turn", 0.0f, -1.0f, 1.0f),
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
  for (float x : {-0.001f, -3.0f, -inf})
    EXPECT_EQ(weights_1d(kLine, x), (std::vector{0.f, 1.f, 0.f}));
  for (float x : {4.001f, 100.0f, inf})
    EXPECT_EQ(weights_1d(kLine, x), (std::vector{0.f, 0.f, 1.f}));
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
        if (ix > 0) {  // the sample to the left, in row (not through w: outside its span)
          worst = std::max(worst,
                           std::fabs(w[j] - row[static_cast<size_t>(ix - 1) * kPlane.size() + j]));
        }
        if (iy > 0) {
          worst = std::max(worst,
                           std::fabs(w[j] - prev_row[static_cast<size_t>(ix) * kPlane.size() + j]));
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

class Graph : public ::testing::Test {
 protected:
  // base_graph() plus one transition and two layers: valid.
  GraphDef good() {
    GraphDef g = base_graph();
    g.transitions.push_back(
        transition(sIdle, sWalk, {cond(ConditionKind::kAbove, kSpeed, 1.0f)}, 0.2));
    g.transitions.push_back(transition(-1, sJump, {cond(ConditionKind::kTrigger, kGo)}));
    g.transitions.push_back(transition(
        sJump, sIdle,
        {cond(ConditionKind::kExitTime, -1, 0.9f), cond(ConditionKind::kIs, kGrounded, 1.0f)}));
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

TEST_F(Graph, ValidateAcceptsAGoodGraph) {
  Result<void> r = good().validate(rig_);
  EXPECT_TRUE(r) << r.error().message();
  EXPECT_TRUE(GraphDef{}.validate(rig_)) << "an empty graph";
}
TEST_F(Graph, ValidateErrorsNameTheStateTransitionOrLayer) {
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
TEST_F(Graph, ValidateRefusesTooManyParameters) {
  refuses([](GraphDef& g) {
    for (int i = 0; i < kMaxGraphParameters; ++i)
      g.parameters.push_back(param("", ParameterKind::kBool));
    for (size_t i = 0; i < g.parameters.size(); ++i) g.parameters[i].name = "p" + std::to_string(i);
  });
}
TEST_F(Graph, ValidateRefusesAParameterWithoutAName) {
  refuses([](GraphDef& g) { g.parameters[1].name.clear(); });
}
TEST_F(Graph, ValidateRefusesTwoParametersOfOneName) {
  refuses([](GraphDef& g) { g.parameters[3].name = "speed"; });
}
TEST_F(Graph, ValidateRefusesAnUnknownParameterKind) {
  refuses([](GraphDef& g) { g.parameters[1].kind = static_cast<ParameterKind>(7); });
}
TEST_F(Graph, ValidateRefusesAFloatRangeWithMinAboveMax) {
  refuses([](GraphDef& g) { g.parameters[0].min = 7.0f; });
  refuses([](GraphDef& g) { g.parameters[0].max = kNaN; });
}
TEST_F(Graph, ValidateRefusesAFloatDefaultOutsideItsRange) {
  refuses([](GraphDef& g) { g.parameters[0].default_value = 6.5f; });
  refuses([](GraphDef& g) { g.parameters[0].default_value = kNaN; });
}
TEST_F(Graph, ValidateRefusesABoolDefaultOtherThanZeroOrOne) {
  refuses([](GraphDef& g) { g.parameters[kGrounded].default_value = 0.5f; });
}
TEST_F(Graph, ValidateRefusesATriggerDefaultOtherThanZero) {
  refuses([](GraphDef& g) { g.parameters[kGo].default_value = 1.0f; });
}
TEST_F(Graph, ValidateRefusesTooManyStates) {
  refuses([](GraphDef& g) {
    for (int i = 0; i < kMaxGraphStates; ++i) g.states.push_back(clip_state("", kIdle));
    for (size_t i = 0; i < g.states.size(); ++i) g.states[i].name = "s" + std::to_string(i);
  });
}
TEST_F(Graph, ValidateRefusesAStateWithoutAName) {
  refuses([](GraphDef& g) { g.states[2].name.clear(); });
}
TEST_F(Graph, ValidateRefusesTwoStatesOfOneName) {
  refuses([](GraphDef& g) { g.states[3].name = "idle"; });
}
TEST_F(Graph, ValidateRefusesAStateClipOutOfRange) {
  refuses([](GraphDef& g) { g.states[1].clip = 6; });
  refuses([](GraphDef& g) { g.states[1].clip = -2; });
}
TEST_F(Graph, ValidateRefusesAStateOfAnAdditiveClip) {
  refuses([](GraphDef& g) { g.states[1].clip = kBreathe; });
  refuses([](GraphDef& g) { g.states[sLoco].points[1].clip = kBreathe; });
}
TEST_F(Graph, ValidateRefusesAClipStateWithBlendPoints) {
  refuses([](GraphDef& g) { g.states[1].points = g.states[sLoco].points; });
  refuses([](GraphDef& g) { g.states[1].x_parameter = kSpeed; });
}
TEST_F(Graph, ValidateRefusesABlendSpaceOfOnePoint) {
  refuses([](GraphDef& g) { g.states[sLoco].points.resize(1); });
  refuses([](GraphDef& g) { g.states[sLoco].points.clear(); });
}
TEST_F(Graph, ValidateRefusesABlendSpaceOfTooManyPoints) {
  refuses([](GraphDef& g) {
    g.states[sLoco].points.clear();
    for (int i = 0; i <= kMaxBlendPoints; ++i) {
      g.states[sLoco].points.push_back({kWalk, static_cast<float>(i), 0.0f});
    }
  });
}
TEST_F(Graph, ValidateRefusesABlendPointClipOutOfRange) {
  refuses([](GraphDef& g) { g.states[sLoco].points[2].clip = 6; });
}
TEST_F(Graph, ValidateRefusesCoincidentOneDPoints) {
  refuses([](GraphDef& g) { g.states[sLoco].points[2].x = 0.0f; });
  GraphDef g = good();  // in 1D, y does not tell points apart
  g.states[sLoco].points[2].x = 0.0f;
  g.states[sLoco].points[2].y = 5.0f;
  EXPECT_FALSE(g.validate(rig_));
}
TEST_F(Graph, ValidateRefusesCoincidentTwoDPoints) {
  refuses([](GraphDef& g) { g.states[sPlane].points[2].y = 0.0f; });
  EXPECT_TRUE(good().validate(rig_)) << "equal x, different y is fine in 2D";
}
TEST_F(Graph, ValidateRefusesABlendPointNotFinite) {
  refuses([](GraphDef& g) { g.states[sLoco].points[0].x = kNaN; });
  refuses(
      [](GraphDef& g) { g.states[sPlane].points[0].y = std::numeric_limits<float>::infinity(); });
}
TEST_F(Graph, ValidateRefusesABlendParameterThatIsNotAFloat) {
  refuses([](GraphDef& g) { g.states[sLoco].x_parameter = kGrounded; });
  refuses([](GraphDef& g) { g.states[sLoco].x_parameter = -1; });
  refuses([](GraphDef& g) { g.states[sPlane].y_parameter = kGo; });
  refuses([](GraphDef& g) { g.states[sPlane].y_parameter = 99; });
}
TEST_F(Graph, ValidateRefusesAStateSpeedOutOfRange) {
  refuses([](GraphDef& g) { g.states[0].speed = kMaxSpeed * 2.0f; });
  refuses([](GraphDef& g) { g.states[0].speed = -1.0f; });
  refuses([](GraphDef& g) { g.states[0].speed = kNaN; });
}
TEST_F(Graph, ValidateRefusesASpeedParameterThatIsNotAFloat) {
  refuses([](GraphDef& g) { g.states[0].speed_parameter = kGo; });
  refuses([](GraphDef& g) { g.states[0].speed_parameter = 42; });
}
TEST_F(Graph, ValidateRefusesASpeedParameterWhoseDefaultIsNoSpeed) {
  refuses([](GraphDef& g) {
    g.parameters[kTurn].default_value = -0.5f;
    g.states[0].speed_parameter = kTurn;
  });
}
TEST_F(Graph, ValidateRefusesAStartOutOfRange) {
  refuses([](GraphDef& g) { g.states[0].start = -0.5; });
  refuses([](GraphDef& g) { g.states[0].start = kMaxStartSeconds + 1.0; });
}
TEST_F(Graph, ValidateRefusesAnUnknownPlayback) {
  refuses([](GraphDef& g) { g.states[0].playback = static_cast<Playback>(3); });
  refuses([](GraphDef& g) { g.layers[0].playback = static_cast<Playback>(9); });
}
TEST_F(Graph, ValidateRefusesTooManyTransitions) {
  refuses([](GraphDef& g) { g.transitions.resize(kMaxGraphTransitions + 1, g.transitions[0]); });
}
TEST_F(Graph, ValidateRefusesATransitionToNowhere) {
  refuses([](GraphDef& g) { g.transitions[0].to = 6; });
  refuses([](GraphDef& g) { g.transitions[0].to = -1; });
}
TEST_F(Graph, ValidateRefusesATransitionFromNowhere) {
  refuses([](GraphDef& g) { g.transitions[0].from = 6; });
  refuses([](GraphDef& g) { g.transitions[0].from = -2; });
}
TEST_F(Graph, ValidateRefusesAFadeOutOfRange) {
  refuses([](GraphDef& g) { g.transitions[0].fade = -0.1; });
  refuses([](GraphDef& g) { g.transitions[0].fade = kMaxFadeSeconds * 2.0; });
}
TEST_F(Graph, ValidateRefusesTooManyConditions) {
  refuses([](GraphDef& g) {
    g.transitions[0].conditions.resize(kMaxTransitionConditions + 1,
                                       g.transitions[0].conditions[0]);
  });
}
TEST_F(Graph, ValidateRefusesAConditionOnAParameterOfTheWrongKind) {
  refuses([](GraphDef& g) { g.transitions[0].conditions[0].parameter = kGrounded; });
  refuses([](GraphDef& g) { g.transitions[1].conditions[0].parameter = kSpeed; });
  refuses([](GraphDef& g) { g.transitions[2].conditions[1].parameter = kGo; });
}
TEST_F(Graph, ValidateRefusesAConditionOnAnUndeclaredParameter) {
  refuses([](GraphDef& g) { g.transitions[0].conditions[0].parameter = 7; });
  refuses([](GraphDef& g) { g.transitions[0].conditions[0].parameter = -1; });
}
TEST_F(Graph, ValidateRefusesAConditionOfAnUnknownKind) {
  refuses([](GraphDef& g) { g.transitions[0].conditions[0].kind = static_cast<ConditionKind>(5); });
}
TEST_F(Graph, ValidateRefusesAThresholdNotFinite) {
  refuses([](GraphDef& g) { g.transitions[0].conditions[0].value = kNaN; });
}
TEST_F(Graph, ValidateRefusesABoolConditionOtherThanZeroOrOne) {
  refuses([](GraphDef& g) { g.transitions[2].conditions[1].value = 2.0f; });
}
TEST_F(Graph, ValidateRefusesABadExitTime) {
  refuses([](GraphDef& g) { g.transitions[2].conditions[0].value = -0.5f; });
  refuses([](GraphDef& g) { g.transitions[2].conditions[0].value = kNaN; });
  refuses([](GraphDef& g) { g.transitions[2].conditions[0].parameter = kSpeed; });
}
TEST_F(Graph, ValidateRefusesTooManyLayers) {
  refuses([](GraphDef& g) { g.layers.resize(kMaxGraphLayers + 1, g.layers[0]); });
}
TEST_F(Graph, ValidateRefusesALayerClipOutOfRange) {
  refuses([](GraphDef& g) { g.layers[0].clip = 6; });
}
TEST_F(Graph, ValidateRefusesALayerClipOfTheWrongMode) {
  refuses([](GraphDef& g) { g.layers[0].mode = LayerMode::kAdditive; });
  refuses([](GraphDef& g) { g.layers[1].mode = LayerMode::kOverride; });
  refuses([](GraphDef& g) { g.layers[1].mode = static_cast<LayerMode>(4); });
}
TEST_F(Graph, ValidateRefusesALayerWeightOutOfRange) {
  refuses([](GraphDef& g) { g.layers[0].weight = 1.5f; });
  refuses([](GraphDef& g) { g.layers[0].weight = kNaN; });
}
TEST_F(Graph, ValidateRefusesAWeightParameterThatIsNotAFloatInZeroToOne) {
  refuses([](GraphDef& g) { g.layers[1].weight_parameter = kGo; });
  refuses([](GraphDef& g) { g.layers[1].weight_parameter = 11; });
  refuses([](GraphDef& g) {  // rate's default 2 is no weight
    g.parameters[kRate_].default_value = 2.0f;
    g.layers[1].weight_parameter = kRate_;
  });
}
TEST_F(Graph, ValidateRefusesAMaskOfTheWrongSize) {
  refuses([](GraphDef& g) { g.layers[0].mask = {1.0f, 1.0f}; });
}
TEST_F(Graph, ValidateRefusesAMaskWeightOutOfRange) {
  refuses([](GraphDef& g) { g.layers[0].mask[1] = 1.5f; });
  refuses([](GraphDef& g) { g.layers[0].mask[2] = kNaN; });
}
TEST_F(Graph, ValidateRefusesALayerSpeedOutOfRange) {
  refuses([](GraphDef& g) { g.layers[0].speed = -1.0f; });
}

// ---------------------------------------------------------------------------------------
// StateMachine

// Named as the suite; the runtime class is ::animpack::StateMachine here.
class StateMachine : public ::testing::Test {
 protected:
  void SetUp() override {
    AnimatorOptions options;
    options.events = EventPolicy::kLead;
    auto a = Animator::create(&rig_, kRate, options);
    ASSERT_TRUE(a) << a.error().message();
    animator_ = std::move(*a);
  }
  // A machine over graph_ from `tick`.
  void start(int64_t tick = 0) {
    auto m = ::animpack::StateMachine::create(&graph_, &animator_, tick);
    ASSERT_TRUE(m) << m.error().message();
    machine_ = std::move(*m);
  }
  // update() and advance() over [from, to]; "tick:name" for each event.
  std::vector<std::string> run(int64_t from, int64_t to) {
    std::vector<std::string> out;
    for (int64_t t = from; t <= to; ++t) {
      machine_.update(t);
      for (const AnimEvent& e : animator_.advance(t)) {
        out.push_back(std::to_string(e.tick) + ":" + std::string(e.name));
      }
    }
    return out;
  }
  // The first tick in [from, to] whose update() leaves the machine in `state`, or -1.
  int64_t tick_entering(int state, int64_t from, int64_t to) {
    for (int64_t t = from; t <= to; ++t) {
      machine_.update(t);
      (void)animator_.advance(t);
      if (machine_.state() == state) return t;
    }
    return -1;
  }
  const Trs& joint(int64_t tick, int j) {
    animator_.evaluate(tick);
    return animator_.locals()[static_cast<size_t>(j)];
  }

  Rig rig_ = graph_rig();
  GraphDef graph_ = base_graph();
  Animator animator_;
  ::animpack::StateMachine machine_;
};

TEST_F(StateMachine, StartsInTheFirstState) {
  graph_.states[0].start = 0.5;
  start(7);
  EXPECT_EQ(machine_.state(), sIdle);
  EXPECT_EQ(machine_.state_name(), "idle");
  EXPECT_FALSE(machine_.fading(7));
  EXPECT_TRUE(machine_.blend_weights().empty());
  EXPECT_EQ(animator_.mix_count(), 1);
  EXPECT_EQ(*animator_.layer_clip(machine_.state_layer()), kIdle);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(machine_.state_layer(), 7), 0.5);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(machine_.state_layer(), 37), 1.0);
  EXPECT_EQ(machine_.transitions_fired(), 0u);
}

TEST_F(StateMachine, StartsABlendSpaceAsASyncedMixAtItsParameters) {
  std::swap(graph_.states[0], graph_.states[sLoco]);
  graph_.parameters[kSpeed].default_value = 2.75f;  // halfway from walk to run
  start();
  ASSERT_EQ(machine_.blend_weights().size(), 3u);
  EXPECT_FLOAT_EQ(machine_.blend_weights()[0], 0.0f);
  EXPECT_FLOAT_EQ(machine_.blend_weights()[1], 0.5f);
  EXPECT_FLOAT_EQ(machine_.blend_weights()[2], 0.5f);
  EXPECT_EQ(animator_.layer_count(0), 3);
}

TEST_F(StateMachine, AGraphWithoutStatesPlaysOnlyItsLayers) {
  graph_.states.clear();
  LayerDef wave;
  wave.clip = kWave;
  graph_.layers = {wave};
  start();
  EXPECT_EQ(machine_.state(), -1);
  EXPECT_EQ(machine_.state_name(), "");
  EXPECT_EQ(animator_.mix_count(), 0);
  machine_.update(30);
  const Quat q = quat_from_axis_angle({0, 0, 1}, 0.5f);
  EXPECT_NEAR(joint(30, 2).rotation.z, q.z, 1e-6f);
}

TEST_F(StateMachine, RefusesABadGraph) {
  graph_.states[1].clip = 99;
  auto m = ::animpack::StateMachine::create(&graph_, &animator_, 0);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code(), ErrorCode::kBadGraph);
  EXPECT_EQ(::animpack::StateMachine::create(nullptr, &animator_, 0).error().code(),
            ErrorCode::kInvalidArgument);
}

TEST_F(StateMachine, TransitionFiresOnTheTickItsConditionsFirstHold) {
  graph_.transitions = {transition(sIdle, sWalk, {cond(ConditionKind::kAbove, kSpeed, 1.0f)})};
  start();
  run(0, 9);
  ASSERT_TRUE(machine_.set_float("speed", 1.0f));  // not above 1: strict
  run(10, 19);
  EXPECT_EQ(machine_.state(), sIdle);
  ASSERT_TRUE(machine_.set_float("speed", 1.01f));
  EXPECT_EQ(machine_.state(), sIdle) << "values take effect in update()";
  machine_.update(20);
  EXPECT_EQ(machine_.state(), sWalk);
  EXPECT_EQ(machine_.transitions_fired(), 1u);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(machine_.state_layer(), 20), 0.0) << "started at tick 20";
  // kBelow is strict too, and a bool's kIs.
  graph_.transitions = {transition(
      sIdle, sWalk,
      {cond(ConditionKind::kBelow, kSpeed, 1.0f), cond(ConditionKind::kIs, kGrounded, 0.0f)})};
  start(100);
  ASSERT_TRUE(machine_.set_float("speed", 1.0f));
  run(100, 110);
  ASSERT_TRUE(machine_.set_float("speed", 0.5f));
  run(111, 115);
  EXPECT_EQ(machine_.state(), sIdle) << "grounded is still true";
  ASSERT_TRUE(machine_.set_bool("grounded", false));
  EXPECT_EQ(tick_entering(sWalk, 116, 200), 116);
}

TEST_F(StateMachine, WrittenOrderBreaksTies) {
  graph_.transitions = {transition(sIdle, sWalk, {cond(ConditionKind::kAbove, kSpeed, 1.0f)}),
                        transition(sIdle, sRun, {cond(ConditionKind::kAbove, kSpeed, 2.0f)})};
  start();
  ASSERT_TRUE(machine_.set_float("speed", 3.0f));
  machine_.update(0);
  EXPECT_EQ(machine_.state(), sWalk);
  std::swap(graph_.transitions[0], graph_.transitions[1]);
  start(10);
  ASSERT_TRUE(machine_.set_float("speed", 3.0f));
  machine_.update(10);
  EXPECT_EQ(machine_.state(), sRun);
}

TEST_F(StateMachine, AtMostOneTransitionPerTick) {
  // idle -> walk -> run -> idle, each without conditions and without a fade.
  graph_.transitions = {transition(sIdle, sWalk, {}), transition(sWalk, sRun, {}),
                        transition(sRun, sIdle, {})};
  start();
  machine_.update(0);
  EXPECT_EQ(machine_.state(), sWalk);
  machine_.update(0);  // again for the same tick: nothing more
  EXPECT_EQ(machine_.state(), sWalk);
  machine_.update(1);
  EXPECT_EQ(machine_.state(), sRun);
  machine_.update(2);
  EXPECT_EQ(machine_.state(), sIdle);
  EXPECT_EQ(machine_.transitions_fired(), 3u);
}

TEST_F(StateMachine, TriggerIsConsumedOnlyByTheTransitionThatFires) {
  graph_.transitions = {
      transition(sIdle, sJump,
                 {cond(ConditionKind::kTrigger, kGo), cond(ConditionKind::kAbove, kSpeed, 5.0f)}),
      transition(sIdle, sRun, {cond(ConditionKind::kTrigger, kGo2)})};
  start();
  ASSERT_TRUE(machine_.fire_trigger("go"));
  ASSERT_TRUE(machine_.fire_trigger("go2"));
  machine_.update(0);
  EXPECT_EQ(machine_.state(), sRun);
  EXPECT_EQ(*machine_.value("go2"), 0.0f) << "consumed by the transition that fired";
  EXPECT_EQ(*machine_.value("go"), 1.0f) << "its transition did not fire";
}

TEST_F(StateMachine, TriggerStaysSetUntilATransitionUsesIt) {
  graph_.transitions = {transition(sIdle, sWalk, {cond(ConditionKind::kAbove, kSpeed, 1.0f)}),
                        transition(sWalk, sRun, {cond(ConditionKind::kTrigger, kGo)})};
  start();
  ASSERT_TRUE(machine_.fire_trigger("go"));
  run(0, 99);  // no transition out of idle uses it
  EXPECT_EQ(*machine_.value("go"), 1.0f);
  ASSERT_TRUE(machine_.set_float("speed", 2.0f));
  machine_.update(100);
  EXPECT_EQ(machine_.state(), sWalk);
  machine_.update(101);
  EXPECT_EQ(machine_.state(), sRun);
  EXPECT_EQ(*machine_.value("go"), 0.0f);
  // reset_trigger clears one that nothing used.
  ASSERT_TRUE(machine_.fire_trigger("go2"));
  ASSERT_TRUE(machine_.reset_trigger("go2"));
  EXPECT_EQ(*machine_.value("go2"), 0.0f);
}

TEST_F(StateMachine, ExitTimeWaitsForPasses) {
  // A fraction of the first pass: jump (1 s, once) leaves at 0.5 passes, tick 30.
  std::swap(graph_.states[0], graph_.states[sJump]);  // start in jump; idle is sJump now
  graph_.transitions = {transition(0, sJump, {cond(ConditionKind::kExitTime, -1, 0.5f)})};
  start();
  EXPECT_EQ(tick_entering(sJump, 0, 100), 30);
  // Whole passes: walk (1 s, loop) leaves after two, tick 120 from its start.
  graph_ = base_graph();
  std::swap(graph_.states[0], graph_.states[sWalk]);
  graph_.transitions = {transition(0, sRun, {cond(ConditionKind::kExitTime, -1, 2.0f)})};
  start(10);
  EXPECT_EQ(tick_entering(sRun, 10, 300), 130);
  // A blend space's passes are its phase: walk and run half each make a 0.75 s cycle.
  graph_ = base_graph();
  std::swap(graph_.states[0], graph_.states[sLoco]);
  graph_.parameters[kSpeed].default_value = 2.75f;
  graph_.transitions = {transition(0, sLoco, {cond(ConditionKind::kExitTime, -1, 1.0f)})};
  start(0);
  EXPECT_EQ(tick_entering(sLoco, 0, 300), 45);
}

TEST_F(StateMachine, AnyStateNeverFiresIntoTheCurrentState) {
  graph_.transitions = {transition(-1, sIdle, {})};
  start();
  run(0, 50);
  EXPECT_EQ(machine_.transitions_fired(), 0u);
  ASSERT_TRUE(machine_.play_state("walk", 0.0, 51));
  machine_.update(51);
  EXPECT_EQ(machine_.state(), sWalk) << "no transition at play_state's tick";
  machine_.update(52);
  EXPECT_EQ(machine_.state(), sIdle);
  EXPECT_EQ(machine_.transitions_fired(), 1u);
  run(53, 100);
  EXPECT_EQ(machine_.transitions_fired(), 1u);
}

TEST_F(StateMachine, NoTransitionDuringAFade) {
  graph_.transitions = {transition(sIdle, sWalk, {cond(ConditionKind::kTrigger, kGo)}, 0.5),
                        transition(sWalk, sRun, {cond(ConditionKind::kTrigger, kGo)}, 0.25)};
  start();
  run(0, 9);
  ASSERT_TRUE(machine_.fire_trigger("go"));
  machine_.update(10);
  EXPECT_EQ(machine_.state(), sWalk);
  EXPECT_TRUE(machine_.fading(10));
  EXPECT_TRUE(machine_.fading(39));
  EXPECT_FALSE(machine_.fading(40)) << "30 ticks of fade from tick 10";
  ASSERT_TRUE(machine_.fire_trigger("go"));  // during the fade
  EXPECT_EQ(tick_entering(sRun, 11, 100), 40) << "fires on the tick the fade completes";
  EXPECT_EQ(*machine_.value("go"), 0.0f);
  EXPECT_TRUE(machine_.fading(54));
  EXPECT_FALSE(machine_.fading(55));
}

// The bits of every joint's local transform.
std::vector<uint32_t> pose_bits(std::span<const Trs> locals) {
  std::vector<uint32_t> bits(locals.size() * 10);
  for (size_t j = 0; j < locals.size(); ++j) std::memcpy(&bits[j * 10], &locals[j], 40);
  return bits;
}

TEST_F(StateMachine, OneDBlendStateAtAPointEqualsThatClipAloneBitForBit) {
  std::swap(graph_.states[0], graph_.states[sLoco]);
  const struct {
    float speed;
    uint16_t clip;
  } cases[] = {{0.0f, kIdle}, {1.5f, kWalk}, {4.0f, kRun}, {6.0f, kRun}};
  for (const auto& c : cases) {
    graph_.parameters[kSpeed].default_value = c.speed;
    start(3);
    Animator plain = std::move(*Animator::create(&rig_, kRate));
    ASSERT_TRUE(plain.play(c.clip, 3));
    for (int64_t t = 3; t < 200; t += 7) {
      machine_.update(t);
      (void)animator_.advance(t);
      (void)plain.advance(t);
      animator_.evaluate(t);
      plain.evaluate(t);
      ASSERT_EQ(pose_bits(animator_.locals()), pose_bits(plain.locals())) << c.speed << " @" << t;
    }
  }
}

TEST_F(StateMachine, BlendSpaceClipsStayInPhase) {
  std::swap(graph_.states[0], graph_.states[sLoco]);
  graph_.parameters[kSpeed].default_value = 2.0f;
  start();
  const LayerId walk{machine_.state_layer().value + 1};
  const LayerId run{machine_.state_layer().value + 2};
  ASSERT_EQ(*animator_.layer_clip(walk), kWalk);
  ASSERT_EQ(*animator_.layer_clip(run), kRun);
  double last_phase = 0.0;
  for (int64_t t = 0; t < 300; ++t) {
    if (t == 100) {
      ASSERT_TRUE(machine_.set_float("speed", 3.5f));
    }
    if (t == 200) {
      ASSERT_TRUE(machine_.set_float("speed", 1.6f));
    }
    machine_.update(t);
    (void)animator_.advance(t);
    const double pw = *animator_.clip_time(walk, t) / 1.0;
    const double pr = *animator_.clip_time(run, t) / 0.5;
    ASSERT_NEAR(pw, pr, 1e-9) << t;
    const double passes = *animator_.passes(walk, t);
    ASSERT_GE(passes, last_phase) << "the phase never jumps back at " << t;
    ASSERT_LT(passes - last_phase, 0.05) << "nor forward at " << t;
    last_phase = passes;
  }
  EXPECT_FLOAT_EQ(machine_.blend_weights()[1], 1.0f - 0.1f / 2.5f);
}

TEST_F(StateMachine, EventsInFadesComeFromTheStateFadingIn) {
  // Walk (mark at 0.5 s) fades to run (mark at 0.25 s) over 0.5 s from tick 20: walk's
  // mark at tick 30 falls inside the fade and must not fire; run's at 35 and 65 do.
  graph_.transitions = {transition(sIdle, sWalk, {}),
                        transition(sWalk, sRun, {cond(ConditionKind::kTrigger, kGo)}, 0.5)};
  start();
  std::vector<std::string> events = run(0, 19);
  ASSERT_TRUE(machine_.fire_trigger("go"));
  const std::vector<std::string> fade = run(20, 70);
  EXPECT_EQ(events, std::vector<std::string>{});
  EXPECT_EQ(fade, (std::vector<std::string>{"35:run_step", "65:run_step"}));
  // Without the trigger, walk would have fired at 30: the rule is what hides it.
  graph_.transitions.pop_back();
  start(0);
  EXPECT_EQ(run(0, 40), (std::vector<std::string>{"30:walk_step"}));
}

TEST_F(StateMachine, BlendSpaceFiresOnlyItsHeaviestClipsMarks) {
  std::swap(graph_.states[0], graph_.states[sLoco]);
  graph_.parameters[kSpeed].default_value = 2.5f;  // walk 0.6, run 0.4: a 0.8 s cycle
  start();
  const std::vector<std::string> events = run(0, 96);
  // Walk's mark at half its cycle (0.4 s and 1.2 s, give or take a tick for the f32
  // weights); run's mark never.
  ASSERT_EQ(events.size(), 2u);
  for (const std::string& e : events) EXPECT_NE(e.find(":walk_step"), std::string::npos) << e;
}

TEST_F(StateMachine, TwoDBlendStateFollowsBothParameters) {
  std::swap(graph_.states[0], graph_.states[sPlane]);
  graph_.parameters[kSpeed].default_value = 1.5f;
  start();
  EXPECT_EQ(std::vector<float>(machine_.blend_weights().begin(), machine_.blend_weights().end()),
            (std::vector<float>{0.0f, 1.0f, 0.0f}));
  ASSERT_TRUE(machine_.set_float("turn", 1.0f));
  machine_.update(10);
  EXPECT_EQ(std::vector<float>(machine_.blend_weights().begin(), machine_.blend_weights().end()),
            (std::vector<float>{0.0f, 0.0f, 1.0f}));
  ASSERT_TRUE(machine_.set_float("speed", 0.0f));
  ASSERT_TRUE(machine_.set_float("turn", 0.0f));
  machine_.update(11);
  EXPECT_EQ(std::vector<float>(machine_.blend_weights().begin(), machine_.blend_weights().end()),
            (std::vector<float>{1.0f, 0.0f, 0.0f}));
  (void)animator_.advance(11);
  EXPECT_EQ(joint(11, 0).translation.x, 0.0f) << "idle alone: no walk or run stride";
}

TEST_F(StateMachine, TheStateFadingOutKeepsItsWeights) {
  // locomotion fades to walk over 0.5 s; speed changes during the fade reach neither
  // (walk does not use it, locomotion fades out as it was): the poses equal a run
  // without the change, bit for bit.
  std::swap(graph_.states[0], graph_.states[sLoco]);  // walk stays at sWalk
  graph_.parameters[kSpeed].default_value = 2.0f;
  graph_.transitions = {transition(0, sWalk, {cond(ConditionKind::kTrigger, kGo)}, 0.5)};
  std::vector<std::vector<uint32_t>> poses[2];
  for (int changed = 0; changed < 2; ++changed) {
    SetUp();
    start();
    for (int64_t t = 0; t < 60; ++t) {
      if (t == 10) {
        ASSERT_TRUE(machine_.fire_trigger("go"));
      }
      if (changed == 1 && t > 10) {
        ASSERT_TRUE(machine_.set_float("speed", static_cast<float>(t % 5)));
      }
      machine_.update(t);
      (void)animator_.advance(t);
      animator_.evaluate(t);
      poses[changed].push_back(pose_bits(animator_.locals()));
    }
    EXPECT_EQ(machine_.state(), sWalk);
  }
  EXPECT_EQ(poses[0], poses[1]);
}

TEST_F(StateMachine, ParameterErrorsAreValues) {
  graph_.states[0].speed_parameter = kRate_;
  graph_.parameters[kRate_].min = -10.0f;
  graph_.parameters[kRate_].max = 10.0f;
  LayerDef wave;
  wave.clip = kWave;
  wave.weight_parameter = kTired;
  graph_.parameters[kTired].max = 5.0f;
  graph_.layers = {wave};
  start();
  auto code = [](const Result<void>& r) { return r ? ErrorCode::kOk : r.error().code(); };
  EXPECT_EQ(code(machine_.set_float("sped", 1.0f)), ErrorCode::kUnknownParameter);
  EXPECT_EQ(code(machine_.set_bool("nope", true)), ErrorCode::kUnknownParameter);
  EXPECT_EQ(code(machine_.fire_trigger("")), ErrorCode::kUnknownParameter);
  EXPECT_EQ(code(machine_.reset_trigger("jump")), ErrorCode::kUnknownParameter);
  EXPECT_EQ(machine_.value("nope").error().code(), ErrorCode::kUnknownParameter);
  EXPECT_EQ(code(machine_.set_float("grounded", 1.0f)), ErrorCode::kWrongParameterKind);
  EXPECT_EQ(code(machine_.set_bool("speed", true)), ErrorCode::kWrongParameterKind);
  EXPECT_EQ(code(machine_.fire_trigger("speed")), ErrorCode::kWrongParameterKind);
  EXPECT_EQ(code(machine_.reset_trigger("grounded")), ErrorCode::kWrongParameterKind);
  EXPECT_EQ(code(machine_.set_float("go", 1.0f)), ErrorCode::kWrongParameterKind);
  EXPECT_EQ(code(machine_.set_float("speed", 6.5f)), ErrorCode::kBadParameterValue);
  EXPECT_EQ(code(machine_.set_float("speed", -0.1f)), ErrorCode::kBadParameterValue);
  EXPECT_EQ(code(machine_.set_float("speed", kNaN)), ErrorCode::kBadParameterValue);
  EXPECT_EQ(code(machine_.set_float("rate", 9.0f)), ErrorCode::kBadParameterValue)
      << "in its range, but no speed";
  EXPECT_EQ(code(machine_.set_float("rate", -1.0f)), ErrorCode::kBadParameterValue);
  EXPECT_EQ(code(machine_.set_float("tired", 1.5f)), ErrorCode::kBadParameterValue)
      << "in its range, but no layer weight";
  EXPECT_EQ(code(machine_.play_state("nowhere", 0.0, 0)), ErrorCode::kUnknownState);
  EXPECT_EQ(code(machine_.play_state("walk", -1.0, 0)), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(machine_.play_state("walk", kNaN, 0)), ErrorCode::kInvalidArgument);
  // Nothing changed.
  EXPECT_EQ(*machine_.value("speed"), 0.0f);
  EXPECT_EQ(*machine_.value("rate"), 1.0f);
  EXPECT_EQ(*machine_.value("tired"), 0.0f);
  EXPECT_EQ(*machine_.value("grounded"), 1.0f);
  EXPECT_EQ(*machine_.value("go"), 0.0f);
  EXPECT_EQ(machine_.state(), sIdle);
  // In range: accepted.
  EXPECT_TRUE(machine_.set_float("rate", 8.0f));
  EXPECT_TRUE(machine_.set_float("tired", 1.0f));
}

TEST_F(StateMachine, SpeedParameterDrivesStateSpeed) {
  graph_.states[0].speed_parameter = kRate_;
  graph_.parameters[kRate_].default_value = 0.5f;
  graph_.transitions = {transition(sIdle, sWalk, {cond(ConditionKind::kTrigger, kGo)})};
  graph_.states[sWalk].speed_parameter = kRate_;
  start();
  run(0, 29);
  const LayerId idle = machine_.state_layer();
  EXPECT_DOUBLE_EQ(*animator_.clip_time(idle, 30), 0.25) << "half speed";
  ASSERT_TRUE(machine_.set_float("rate", 2.0f));
  machine_.update(30);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(idle, 30), 0.25) << "no jump";
  EXPECT_DOUBLE_EQ(*animator_.clip_time(idle, 45), 0.75);
  // A state entered later starts at the value of the moment.
  ASSERT_TRUE(machine_.set_float("rate", 1.5f));
  ASSERT_TRUE(machine_.fire_trigger("go"));
  machine_.update(46);
  ASSERT_EQ(machine_.state(), sWalk);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(machine_.state_layer(), 56), 0.25);
  EXPECT_DOUBLE_EQ(*animator_.clip_time(idle, 46), 0.75 + 2.0 / 60.0 * 1.0);
}

TEST_F(StateMachine, LayerWeightParameter) {
  LayerDef wave;
  wave.clip = kWave;
  wave.weight_parameter = kTired;
  graph_.layers = {wave};
  start();
  machine_.update(30);
  EXPECT_EQ(joint(30, 2).rotation.z, 0.0f) << "weight 0: the arm at rest";
  ASSERT_TRUE(machine_.set_float("tired", 1.0f));
  EXPECT_EQ(joint(30, 2).rotation.z, 0.0f) << "takes effect in update()";
  machine_.update(30);
  const Quat half = quat_from_axis_angle({0, 0, 1}, 0.5f);
  EXPECT_NEAR(joint(30, 2).rotation.z, half.z, 1e-6f) << "weight 1: the wave, on its own clock";
  ASSERT_TRUE(machine_.set_float("tired", 0.5f));
  machine_.update(30);
  EXPECT_GT(joint(30, 2).rotation.z, 0.0f);
  EXPECT_LT(joint(30, 2).rotation.z, half.z);
}

TEST_F(StateMachine, LayersPlayWithTheirMasksAndModes) {
  LayerDef wave;
  wave.clip = kWave;
  wave.mask = {1.0f, 1.0f, 0.0f};  // not the arm
  LayerDef breathe;
  breathe.clip = kBreathe;
  breathe.mode = LayerMode::kAdditive;
  graph_.layers = {wave, breathe};
  start();
  machine_.update(30);
  EXPECT_EQ(joint(30, 2).rotation.z, 0.0f) << "masked out";
  EXPECT_NEAR(joint(30, 1).scale.x, 1.25f, 1e-6f) << "the additive scale delta, at half its clip";
  EXPECT_NE(machine_.overlay(0).value, 0u);
  EXPECT_EQ(*animator_.layer_clip(machine_.overlay(1)), kBreathe);
}

TEST_F(StateMachine, PlayStateJumpsAndFades) {
  start();
  run(0, 9);
  ASSERT_TRUE(machine_.play_state("run", 0.0, 10));
  EXPECT_EQ(machine_.state(), sRun);
  EXPECT_EQ(machine_.state_name(), "run");
  EXPECT_FALSE(machine_.fading(10));
  (void)animator_.advance(10);
  EXPECT_EQ(animator_.mix_count(), 1) << "at once: the old state retired";
  ASSERT_TRUE(machine_.play_state("locomotion", 0.5, 20));
  EXPECT_EQ(machine_.state(), sLoco);
  EXPECT_TRUE(machine_.fading(49));
  EXPECT_FALSE(machine_.fading(50));
  EXPECT_EQ(machine_.blend_weights().size(), 3u);
  ASSERT_TRUE(machine_.play_state("walk", 0.25, 30)) << "during a fade: replaces it";
  EXPECT_EQ(machine_.state(), sWalk);
  EXPECT_TRUE(machine_.fading(44));
  EXPECT_FALSE(machine_.fading(45));
  EXPECT_EQ(machine_.transitions_fired(), 0u);
}

}  // namespace
}  // namespace animpack
