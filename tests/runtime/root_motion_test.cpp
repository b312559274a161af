// Root motion (root_motion.h): the baked tracks, the hold in the pose, the exact
// accumulation across loops, speeds, skipped ticks, fades, blends and a state machine,
// yaw, feet mode, and every refusal. Generated data only (root_motion_rig.h).
#include "animpack/root_motion.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "animpack/animator.h"
#include "animpack/graph.h"
#include "runtime/root_motion_rig.h"

namespace animpack {
namespace {

using root_motion_rig::kHips;
using root_motion_rig::kLFoot;
using root_motion_rig::kRFoot;
using root_motion_rig::kRoot;
using Track = std::vector<RootMotionSample>;

constexpr double kUnits = static_cast<double>(kRootMotionUnitsPerMetre);
constexpr double kPi = 3.14159265358979323846;
constexpr uint16_t kSway = 5;  // the additive clip (root_motion_rig.h)

RootMotionConfig accumulate(uint8_t extract = kExtractHorizontal) {
  RootMotionConfig c;
  c.policy = RootMotionPolicy::kAccumulate;
  c.joint = kHips;
  c.extract = extract;
  return c;
}

// One track per clip of the rig (empty for additive clips and those that do not fit).
std::vector<Track> bake_all(const Rig& rig, const RootMotionConfig& config) {
  std::vector<Track> out;
  for (const Clip& clip : rig.clips()) {
    Result<Track> t = bake_root_motion(rig.skeleton(), clip, config);
    out.push_back(t ? std::move(*t) : Track{});
  }
  return out;
}

std::vector<RootMotionTrack> views(const std::vector<Track>& tracks) {
  return std::vector<RootMotionTrack>(tracks.begin(), tracks.end());
}

// An animator of `rig` with root motion set from `tracks`.
Animator make_animator(const Rig& rig, const RootMotionConfig& config,
                       const std::vector<RootMotionTrack>& tracks) {
  Animator a = std::move(*Animator::create(&rig, 60));
  const Result<void> r = a.set_root_motion(config, tracks);
  EXPECT_TRUE(r) << r.error().message();
  return a;
}

RootMotionDelta sum(RootMotionDelta a, const RootMotionDelta& b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  a.yaw += b.yaw;
  return a;
}

RootMotionDelta times(const RootMotionSample& s, int64_t n) {
  return {s.x * n, s.y * n, s.z * n, s.yaw * n};
}

// A loop track's value (x, y, z, yaw) at a play position in samples, in double.
struct Motion {
  double v[4] = {0, 0, 0, 0};
};
Motion loop_value(const Track& t, double pos) {
  const double n = static_cast<double>(t.size() - 1);
  const double passes = std::floor(pos / n);
  const double r = pos - passes * n;
  const size_t i = static_cast<size_t>(r);
  const double f = r - static_cast<double>(i);
  const RootMotionSample& a = t[i];
  const RootMotionSample& b = t[std::min(i + 1, t.size() - 1)];
  const RootMotionSample& last = t.back();
  Motion m;
  const double av[4] = {double(a.x), double(a.y), double(a.z), double(a.yaw)};
  const double bv[4] = {double(b.x), double(b.y), double(b.z), double(b.yaw)};
  const double lv[4] = {double(last.x), double(last.y), double(last.z), double(last.yaw)};
  for (int c = 0; c < 4; ++c) m.v[c] = passes * lv[c] + av[c] + (bv[c] - av[c]) * f;
  return m;
}

// Checks a tick's take against the expected motion (x, y, z; no yaw) and keeps both sums:
// each tick within a unit and a half (the delta is rounded, the fraction carried), the
// sums within a unit and a half (the take's rounding and the track's interpolation).
struct Follower {
  double expected[3] = {0, 0, 0};
  int64_t got[3] = {0, 0, 0};
  void step(const RootMotionDelta& d, const double e[3], int64_t tick) {
    const int64_t g[3] = {d.x, d.y, d.z};
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(static_cast<double>(g[c]), e[c], 1.5) << "tick " << tick << " axis " << c;
      expected[c] += e[c];
      got[c] += g[c];
      EXPECT_NEAR(static_cast<double>(got[c]), expected[c], 1.5) << "tick " << tick;
    }
  }
};

const Track& track_of(const Rig& rig, const std::vector<Track>& tracks, const char* name) {
  return tracks[*rig.find_clip(name)];
}

TEST(RootMotion, BakedTrackHasOneSampleATickStartingAtZeroInObjectUnits) {
  const Rig rig = root_motion_rig::make_rig();
  const Track walk = *bake_root_motion(rig.skeleton(), rig.clips()[0], accumulate());
  ASSERT_EQ(walk.size(), 61u);  // 1 s at 60 samples a second, plus one
  EXPECT_EQ(walk[0], RootMotionSample{});
  // Horizontal only: 1.2 m along +z, in 1/65536 m; the bob is not extracted.
  EXPECT_EQ(walk[60], (RootMotionSample{0, 0, static_cast<int32_t>(std::lround(1.2 * kUnits)), 0}));
  EXPECT_NEAR(walk[30].z, 0.6 * kUnits, 1.0);
  for (const RootMotionSample& s : walk) EXPECT_EQ(s.y, 0);
  // With vertical: the bob's rise at the middle (0.05 m).
  const Track bob = *bake_root_motion(rig.skeleton(), rig.clips()[0], accumulate(kExtractVertical));
  EXPECT_NEAR(bob[30].y, 0.05 * kUnits, 1.0);
  EXPECT_EQ(bob[60].y, 0);
  EXPECT_EQ(bob[30].z, 0);
  // Another rate: 30 samples a second gives 31.
  RootMotionConfig c30 = accumulate();
  c30.rate = 30;
  EXPECT_EQ(bake_root_motion(rig.skeleton(), rig.clips()[0], c30)->size(), 31u);

  // Object space: a top joint turned a quarter turn about +y and scaled 2 moves the hips'
  // +z (local) along object +x, twice as far.
  const Rig turned = root_motion_rig::make_rig(
      root_motion_rig::at({5, 0, 0}, quat_from_axis_angle({0, 1, 0}, 1.57079633f), {2, 2, 2}));
  const Track t = *bake_root_motion(turned.skeleton(), turned.clips()[0], accumulate());
  EXPECT_NEAR(t[60].x, 2.4 * kUnits, 2.0);
  EXPECT_NEAR(t[60].z, 0.0, 2.0);
}

TEST(RootMotion, StillPoseGetsOneSampleOfZeros) {
  std::vector<Clip> clips;
  Clip still("Still");
  root_motion_rig::add_translation(still, kHips, {0}, {0, 1, 0});
  clips.push_back(std::move(still));
  const Rig rig = *Rig::create(root_motion_rig::make_skeleton(), std::move(clips));
  const Track t = *bake_root_motion(rig.skeleton(), rig.clips()[0], accumulate());
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0], RootMotionSample{});
}

// Plays `clip` from tick 0 and takes the motion every `every` ticks up to `end`.
RootMotionDelta play_and_take(const Rig& rig, const std::vector<Track>& tracks, const char* clip,
                              int64_t end, int64_t every, const PlayOptions& options = {}) {
  const std::vector<RootMotionTrack> v = views(tracks);
  Animator a = make_animator(rig, accumulate(), v);
  EXPECT_TRUE(a.play(clip, 0, options));
  RootMotionDelta total;
  for (int64_t tick = 0; tick <= end; tick += every) {
    (void)a.advance(tick);
    total = sum(total, a.take_root_motion());
  }
  if (end % every != 0) {
    (void)a.advance(end);
    total = sum(total, a.take_root_motion());
  }
  return total;
}

TEST(RootMotion, ThousandLoopsGiveExactlyThousandTimesTheTrack) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  const RootMotionSample last = track_of(rig, tracks, "Walk").back();
  ASSERT_NE(last.z, 0);
  EXPECT_EQ(play_and_take(rig, tracks, "Walk", 60000, 1), times(last, 1000));
  // Taken once at the end: the same.
  EXPECT_EQ(play_and_take(rig, tracks, "Walk", 60000, 60000), times(last, 1000));
}

TEST(RootMotion, ThousandLoopsAtOtherSpeedsAndWithSkippedTicksAreExact) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  const RootMotionDelta expected = times(track_of(rig, tracks, "Walk").back(), 1000);
  PlayOptions half;
  half.speed = 0.5f;
  EXPECT_EQ(play_and_take(rig, tracks, "Walk", 120000, 1, half), expected);
  PlayOptions twice;
  twice.speed = 2.0f;
  EXPECT_EQ(play_and_take(rig, tracks, "Walk", 30000, 1, twice), expected);
  EXPECT_EQ(play_and_take(rig, tracks, "Walk", 60000, 7), expected);  // skipped ticks
  // The strafe (half a second) too: 2000 passes in 60000 ticks.
  EXPECT_EQ(play_and_take(rig, tracks, "Strafe", 60000, 13),
            times(track_of(rig, tracks, "Strafe").back(), 2000));
}

TEST(RootMotion, SpeedChangeMidwayTelescopesExactly) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  const std::vector<RootMotionTrack> v = views(tracks);
  Animator a = make_animator(rig, accumulate(), v);
  const LayerId id = *a.play("Walk", 0);
  RootMotionDelta total;
  // 500 passes at speed 1 (30000 ticks), then 500 at 0.5 (60000 ticks), then 3 at 1.5
  // (120 ticks), advancing every 11 ticks and at each change.
  int64_t tick = 0;
  const auto run_to = [&](int64_t end) {
    while (tick < end) {
      tick = std::min(end, tick + 11);
      (void)a.advance(tick);
      total = sum(total, a.take_root_motion());
    }
  };
  run_to(30000);
  ASSERT_TRUE(a.set_speed(id, 0.5f, 30000));
  run_to(90000);
  ASSERT_TRUE(a.set_speed(id, 1.5f, 90000));
  run_to(90120);
  EXPECT_EQ(total, times(track_of(rig, tracks, "Walk").back(), 1003));
}

TEST(RootMotion, PingPongReturnsToZeroAfterTwoPasses) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  const std::vector<RootMotionTrack> v = views(tracks);
  Animator a = make_animator(rig, accumulate(), v);
  PlayOptions o;
  o.playback = Playback::kPingPong;
  ASSERT_TRUE(a.play("Walk", 0, o));
  RootMotionDelta total;
  for (int64_t tick = 0; tick <= 60; ++tick) {
    (void)a.advance(tick);
    total = sum(total, a.take_root_motion());
  }
  EXPECT_EQ(total, times(track_of(rig, tracks, "Walk").back(), 1));  // there
  for (int64_t tick = 61; tick <= 120; ++tick) {
    (void)a.advance(tick);
    total = sum(total, a.take_root_motion());
  }
  EXPECT_EQ(total, RootMotionDelta{});  // and back
}

TEST(RootMotion, OnceHoldsItsEnd) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  PlayOptions once;
  once.playback = Playback::kOnce;
  const RootMotionDelta end = times(track_of(rig, tracks, "Walk").back(), 1);
  EXPECT_EQ(play_and_take(rig, tracks, "Walk", 60, 1, once), end);
  EXPECT_EQ(play_and_take(rig, tracks, "Walk", 600, 1, once), end);
  EXPECT_EQ(play_and_take(rig, tracks, "Walk", 600, 37, once), end);
}

TEST(RootMotion, CrossfadeGivesTheWeightedMixOfPerTickMotion) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  const std::vector<RootMotionTrack> v = views(tracks);
  const Track& walk = track_of(rig, tracks, "Walk");
  const Track& strafe = track_of(rig, tracks, "Strafe");
  Animator a = make_animator(rig, accumulate(), v);
  ASSERT_TRUE(a.play("Walk", 0));
  Follower follow;
  for (int64_t tick = 0; tick <= 150; ++tick) {
    if (tick == 40) {
      ASSERT_TRUE(a.crossfade("Strafe", 0.5, tick));  // 30 ticks
    }
    // Shares as the pose mixes them: the new mix's fade weight over the old one.
    const float w = tick < 40 ? 0.0f : a.mix_weight(a.mix_count() - 1, tick);
    (void)a.advance(tick);
    double e[3] = {0, 0, 0};
    if (tick > 0) {
      // Walk at one sample a tick from 0; the strafe from tick 40.
      const Motion w1 = loop_value(walk, double(tick)), w0 = loop_value(walk, double(tick - 1));
      const double old_share = tick < 40 ? 1.0 : 1.0 - double(w);
      for (int c = 0; c < 3; ++c) e[c] += old_share * (w1.v[c] - w0.v[c]);
      if (tick > 40) {
        const Motion s1 = loop_value(strafe, double(tick - 40));
        const Motion s0 = loop_value(strafe, double(tick - 41));
        for (int c = 0; c < 3; ++c) e[c] += double(w) * (s1.v[c] - s0.v[c]);
      }
    }
    follow.step(a.take_root_motion(), e, tick);
  }
  // Both moved: forward while the walk played, sideways after.
  EXPECT_GT(follow.got[2], 3 * walk.back().z / 4);
  EXPECT_GT(follow.got[0], strafe.back().x);
}

TEST(RootMotion, PlayBlendAndSyncedMixGiveTheirWeightedMix) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  const std::vector<RootMotionTrack> v = views(tracks);
  const Track& walk = track_of(rig, tracks, "Walk");
  const Track& strafe = track_of(rig, tracks, "Strafe");
  const uint16_t w = *rig.find_clip("Walk"), s = *rig.find_clip("Strafe");
  {
    Animator a = make_animator(rig, accumulate(), v);
    const BlendEntry e[] = {{w, 0.7f}, {s, 0.3f}};
    ASSERT_TRUE(a.play_blend(e, 0));
    Follower follow;
    for (int64_t tick = 0; tick <= 200; ++tick) {
      (void)a.advance(tick);
      double x[3] = {0, 0, 0};
      if (tick > 0) {
        const Motion w1 = loop_value(walk, double(tick)), w0 = loop_value(walk, double(tick - 1));
        const Motion s1 = loop_value(strafe, double(tick)),
                     s0 = loop_value(strafe, double(tick - 1));
        for (int c = 0; c < 3; ++c) x[c] = 0.7 * (w1.v[c] - w0.v[c]) + 0.3 * (s1.v[c] - s0.v[c]);
      }
      follow.step(a.take_root_motion(), x, tick);
    }
  }
  {
    // A synced mix of equal weights: a cycle of 0.75 s, each clip at the same phase.
    Animator a = make_animator(rig, accumulate(), v);
    const BlendEntry e[] = {{w, 1.0f}, {s, 1.0f}};
    ASSERT_TRUE(a.crossfade_synced(e, 0.0, 0));
    Follower follow;
    const double cycle_ticks = 45.0;  // 0.75 s
    for (int64_t tick = 0; tick <= 200; ++tick) {
      (void)a.advance(tick);
      double x[3] = {0, 0, 0};
      if (tick > 0) {
        const double p1 = double(tick) / cycle_ticks, p0 = double(tick - 1) / cycle_ticks;
        const Motion w1 = loop_value(walk, p1 * 60), w0 = loop_value(walk, p0 * 60);
        const Motion s1 = loop_value(strafe, p1 * 30), s0 = loop_value(strafe, p0 * 30);
        for (int c = 0; c < 3; ++c) x[c] = 0.5 * (w1.v[c] - w0.v[c]) + 0.5 * (s1.v[c] - s0.v[c]);
      }
      follow.step(a.take_root_motion(), x, tick);
    }
    // 200 / 45 cycles: each clip's share of its passes.
    EXPECT_NEAR(double(follow.got[2]), 0.5 * 200.0 / 45.0 * walk.back().z, 2.0);
  }
}

TEST(RootMotion, StateMachineTransitionCarriesMotionAcross) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  const std::vector<RootMotionTrack> v = views(tracks);
  const Track& walk = track_of(rig, tracks, "Walk");
  const Track& strafe = track_of(rig, tracks, "Strafe");
  GraphDef g;
  g.parameters.push_back({"go", ParameterKind::kTrigger, 0.0f});
  StateDef walk_state;
  walk_state.name = "walk";
  walk_state.clip = *rig.find_clip("Walk");
  StateDef strafe_state;
  strafe_state.name = "strafe";
  strafe_state.clip = *rig.find_clip("Strafe");
  g.states = {walk_state, strafe_state};
  TransitionDef t;
  t.from = 0;
  t.to = 1;
  t.conditions = {{ConditionKind::kTrigger, 0, 0.0f}};
  t.fade = 0.25;  // 15 ticks
  g.transitions = {t};
  ASSERT_TRUE(g.validate(rig));
  Animator a = std::move(*Animator::create(&rig, 60, {.events = EventPolicy::kLead}));
  ASSERT_TRUE(a.set_root_motion(accumulate(), v));
  StateMachine sm = std::move(*StateMachine::create(&g, &a, 0));
  Follower follow;
  for (int64_t tick = 0; tick <= 120; ++tick) {
    if (tick == 50) {
      ASSERT_TRUE(sm.fire_trigger("go"));
    }
    sm.update(tick);
    const double w = tick <= 50 ? 0.0 : std::min(1.0, double(tick - 50) / 15.0);
    (void)a.advance(tick);
    double e[3] = {0, 0, 0};
    if (tick > 0) {
      const Motion w1 = loop_value(walk, double(tick)), w0 = loop_value(walk, double(tick - 1));
      for (int c = 0; c < 3; ++c) e[c] += (1.0 - w) * (w1.v[c] - w0.v[c]);
      if (tick > 50) {
        const Motion s1 = loop_value(strafe, double(tick - 50));
        const Motion s0 = loop_value(strafe, double(tick - 51));
        for (int c = 0; c < 3; ++c) e[c] += w * (s1.v[c] - s0.v[c]);
      }
    }
    follow.step(a.take_root_motion(), e, tick);
  }
  EXPECT_EQ(sm.transitions_fired(), 1u);
}

TEST(RootMotion, InPlaceHoldsTheHorizontalRootWhileTheBobPlays) {
  const Rig rig = root_motion_rig::make_rig();
  RootMotionConfig c = accumulate();
  c.policy = RootMotionPolicy::kInPlace;
  Animator a = make_animator(rig, c, {});
  Animator plain = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(a.play("Walk", 0));
  ASSERT_TRUE(plain.play("Walk", 0));
  float highest = 0.0f;
  for (int64_t tick = 0; tick <= 130; ++tick) {
    (void)a.advance(tick);
    a.evaluate(tick);
    plain.evaluate(tick);
    const Trs& hips = a.locals()[kHips];
    EXPECT_EQ(hips.translation.x, 0.0f) << tick;  // the first frame's, exactly
    EXPECT_EQ(hips.translation.z, 0.0f) << tick;
    EXPECT_NEAR(hips.translation.y, plain.locals()[kHips].translation.y, 1e-6f) << tick;
    highest = std::max(highest, hips.translation.y);
    // The rest of the pose plays as keyed.
    EXPECT_EQ(std::memcmp(&a.locals()[2], &plain.locals()[2], sizeof(Trs)), 0) << tick;
    EXPECT_EQ(a.take_root_motion(), RootMotionDelta{});  // in place collects nothing
  }
  EXPECT_NEAR(highest, 1.05f, 1e-4f);  // the hips still bob
  EXPECT_GT(plain.locals()[kHips].translation.z, 0.1f);
}

TEST(RootMotion, YawIsTakenOutOfThePoseAndCollectedInTheMovingFrame) {
  const Rig rig = root_motion_rig::make_rig();
  const RootMotionConfig c = accumulate(kExtractHorizontal | kExtractYaw);
  const std::vector<Track> tracks = bake_all(rig, c);
  const Track& turn = track_of(rig, tracks, "Turn");
  ASSERT_EQ(turn.size(), 61u);
  // A quarter turn, right-handed about +y (from +z towards +x).
  EXPECT_NEAR(turn.back().yaw, kYawUnitsPerTurn / 4.0, 64.0);
  // Each step forward (1/60 m along the clip's +z) turned into the frame the hips face at
  // its start: sum of R(-a_k) (0, 0, 1/60), a_k = k/60 of a quarter turn.
  double x = 0, z = 0;
  for (int k = 0; k < 60; ++k) {
    const double ak = kPi / 2.0 * k / 60.0;
    x += -std::sin(ak) / 60.0;
    z += std::cos(ak) / 60.0;
  }
  EXPECT_NEAR(turn.back().x / kUnits, x, 1e-4);
  EXPECT_NEAR(turn.back().z / kUnits, z, 1e-4);

  // The pose: the hips' yaw held at the first frame (no turn), their translation too.
  const std::vector<RootMotionTrack> v = views(tracks);
  Animator a = make_animator(rig, c, v);
  ASSERT_TRUE(a.play("Turn", 0));
  RootMotionDelta once;
  for (int64_t tick = 0; tick <= 120; ++tick) {
    (void)a.advance(tick);
    a.evaluate(tick);
    const Trs& hips = a.locals()[kHips];
    EXPECT_NEAR(hips.rotation.y, 0.0f, 1e-6f) << tick;
    EXPECT_NEAR(hips.rotation.w, 1.0f, 1e-6f) << tick;
    EXPECT_EQ(hips.translation.z, 0.0f) << tick;
  }
  once = a.take_root_motion();
  // Two passes taken at once, in the frame of the first tick: each step turned back by
  // the yaw before it, so the delta is the hips' path in the clip's own frame: 1 m along
  // +z, then (the character turned a quarter) 1 m along +x.
  EXPECT_EQ(once.yaw, 2 * int64_t{turn.back().yaw});
  EXPECT_NEAR(double(once.x), 1.0 * kUnits, 64.0);
  EXPECT_NEAR(double(once.z), 1.0 * kUnits, 64.0);
  EXPECT_NEAR(root_motion_yaw(once), kPi, 1e-4);

  // A game moving by each tick's delta (then turning) ends where the single take says.
  Animator b = make_animator(rig, c, v);
  ASSERT_TRUE(b.play("Turn", 0));
  double px = 0, pz = 0, heading = 0;
  for (int64_t tick = 0; tick <= 120; ++tick) {
    (void)b.advance(tick);
    const RootMotionDelta d = b.take_root_motion();
    px += double(d.x) * std::cos(heading) + double(d.z) * std::sin(heading);
    pz += -double(d.x) * std::sin(heading) + double(d.z) * std::cos(heading);
    heading += double(d.yaw) * 2.0 * kPi / kYawUnitsPerTurn;
  }
  EXPECT_NEAR(px, double(once.x), 8.0);  // the per-tick rounding, turned
  EXPECT_NEAR(pz, double(once.z), 8.0);
}

TEST(RootMotion, FeetModeTravelsAtThePlantedFootsSpeed) {
  const Rig rig = root_motion_rig::make_rig();
  const Clip& treadmill = rig.clips()[*rig.find_clip("Treadmill")];
  // The hips alone do not move: a treadmill clip has no root travel.
  const Track hips = *bake_root_motion(rig.skeleton(), treadmill, accumulate());
  for (const RootMotionSample& s : hips) EXPECT_EQ(s, RootMotionSample{});
  const int32_t feet[] = {kLFoot, kRFoot};
  const Track t = *bake_root_motion(rig.skeleton(), treadmill, accumulate(), feet);
  ASSERT_EQ(t.size(), 61u);
  const double per_sample = root_motion_rig::kTreadmillSpeed / 60.0 * kUnits;
  for (size_t k = 0; k < t.size(); ++k) {
    EXPECT_NEAR(t[k].z, per_sample * double(k), 1.0) << k;  // rounding (0.48 seen), f32 keys
    EXPECT_EQ(t[k].x, 0) << k;
    EXPECT_EQ(t[k].y, 0) << k;
  }
  // Vertical still comes from the root (which does not move here).
  const Track tv = *bake_root_motion(rig.skeleton(), treadmill,
                                     accumulate(kExtractHorizontal | kExtractVertical), feet);
  EXPECT_EQ(tv.back().y, 0);
  EXPECT_EQ(tv.back().z, t.back().z);
}

TEST(RootMotion, AdditiveLayersCollectNothingAndAreNotHeld) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  EXPECT_TRUE(tracks[kSway].empty());
  const std::vector<RootMotionTrack> v = views(tracks);
  Animator a = make_animator(rig, accumulate(), v);
  ASSERT_TRUE(a.play("Walk", 0));
  LayerOptions add;
  add.mode = LayerMode::kAdditive;
  ASSERT_TRUE(a.add_layer(kSway, add, 0));
  ASSERT_TRUE(a.add_overlay(kSway, add, 0));
  RootMotionDelta total;
  for (int64_t tick = 0; tick <= 600; ++tick) {
    (void)a.advance(tick);
    total = sum(total, a.take_root_motion());
  }
  EXPECT_EQ(total, times(track_of(rig, tracks, "Walk").back(), 10));
}

TEST(RootMotion, OverlayAndMaskShareTheRoot) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  const std::vector<RootMotionTrack> v = views(tracks);
  Animator a = make_animator(rig, accumulate(), v);
  ASSERT_TRUE(a.play("Walk", 0));
  // A strafe overlay at 0.25 over the walk, and a layer masked to 0.5 at the root.
  LayerOptions overlay;
  overlay.weight = 0.25f;
  ASSERT_TRUE(a.add_overlay(*rig.find_clip("Strafe"), overlay, 0));
  RootMotionDelta total;
  for (int64_t tick = 0; tick <= 600; ++tick) {
    (void)a.advance(tick);
    total = sum(total, a.take_root_motion());
  }
  const Track& walk = track_of(rig, tracks, "Walk");
  const Track& strafe = track_of(rig, tracks, "Strafe");
  EXPECT_NEAR(double(total.z), 0.75 * 10 * walk.back().z, 1.0);
  EXPECT_NEAR(double(total.x), 0.25 * 20 * strafe.back().x, 1.0);

  Animator m = make_animator(rig, accumulate(), v);
  ASSERT_TRUE(m.play("Walk", 0));
  std::vector<float> mask(root_motion_rig::kJoints, 1.0f);
  mask[kHips] = 0.5f;
  LayerOptions masked;
  masked.mask = mask;
  ASSERT_TRUE(m.add_layer(*rig.find_clip("Strafe"), masked, 0));
  total = {};
  for (int64_t tick = 0; tick <= 600; ++tick) {
    (void)m.advance(tick);
    total = sum(total, m.take_root_motion());
  }
  EXPECT_NEAR(double(total.z), 0.5 * 10 * walk.back().z, 1.0);
  EXPECT_NEAR(double(total.x), 0.5 * 20 * strafe.back().x, 1.0);
}

TEST(RootMotion, SetPlaybackKeepsMotionAndSetStartDoesNotJump) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  const std::vector<RootMotionTrack> v = views(tracks);
  const RootMotionSample last = track_of(rig, tracks, "Walk").back();
  Animator a = make_animator(rig, accumulate(), v);
  const LayerId id = *a.play("Walk", 0);
  for (int64_t tick = 0; tick < 150; ++tick) (void)a.advance(tick);
  // At tick 150 (2.5 passes) the clip becomes once, continuing from 0.5 s: half a pass
  // more to its end.
  ASSERT_TRUE(a.set_playback(id, Playback::kOnce, 150));
  for (int64_t tick = 150; tick < 400; ++tick) (void)a.advance(tick);
  EXPECT_NEAR(double(a.take_root_motion().z), 3.0 * last.z, 1.0);
  // set_start moves the clip time without moving the character.
  ASSERT_TRUE(a.set_playback(id, Playback::kLoop, 400));
  ASSERT_TRUE(a.set_start(id, 0.25, 400));
  (void)a.advance(400);
  EXPECT_EQ(a.take_root_motion(), RootMotionDelta{});
  for (int64_t tick = 401; tick <= 445; ++tick) (void)a.advance(tick);  // to the end
  EXPECT_EQ(a.take_root_motion().z, last.z - track_of(rig, tracks, "Walk")[15].z);
}

TEST(RootMotion, ConfigValidateRefusesEachBadField) {
  const Skeleton s = root_motion_rig::make_skeleton();
  EXPECT_TRUE(accumulate().validate(s));
  const auto refused = [&](RootMotionConfig c, const char* what) {
    const Result<void> r = c.validate(s);
    ASSERT_FALSE(r) << what;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument) << what;
    EXPECT_NE(std::string(r.error().message()).find(what), std::string::npos)
        << r.error().message();
  };
  RootMotionConfig c = accumulate();
  c.policy = static_cast<RootMotionPolicy>(3);
  refused(c, "policy");
  c = accumulate(0);
  refused(c, "extract");
  c = accumulate(8 | kExtractHorizontal);
  refused(c, "extract");
  c = accumulate();
  c.rate = 0;
  refused(c, "rate");
  c.rate = kMaxRootMotionRate + 1;
  refused(c, "rate");
  c = accumulate();
  c.up = {0, 2, 0};
  refused(c, "up axis");
  c = accumulate();
  c.forward = {0, 0, 0.5f};
  refused(c, "forward axis");
  c = accumulate();
  c.forward = {0, 0.6f, 0.8f};
  refused(c, "perpendicular");
  c = accumulate();
  c.up = {0, std::nanf(""), 0};
  refused(c, "not finite");
  c = accumulate();
  c.joint = -1;
  refused(c, "joint");
  c.joint = root_motion_rig::kJoints;
  refused(c, "joint");
  c = accumulate();
  c.up = {1, 0, 0};
  c.forward = {0, 0, 1};
  EXPECT_TRUE(c.validate(s));  // any unit, perpendicular pair
}

TEST(RootMotion, SetRootMotionRefusesBadTracksAndChangesNothing) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  Animator a = std::move(*Animator::create(&rig, 60));
  const auto refused = [&](const RootMotionConfig& c, const std::vector<RootMotionTrack>& t,
                           ErrorCode code, const char* what) {
    const Result<void> r = a.set_root_motion(c, t);
    ASSERT_FALSE(r) << what;
    EXPECT_EQ(r.error().code(), code) << what << ": " << r.error().message();
    EXPECT_NE(std::string(r.error().message()).find(what), std::string::npos)
        << r.error().message();
    EXPECT_EQ(a.root_motion().policy, RootMotionPolicy::kOff);
  };
  RootMotionConfig bad = accumulate();
  bad.rate = 0;
  refused(bad, views(tracks), ErrorCode::kInvalidArgument, "rate");
  refused(accumulate(), {}, ErrorCode::kSizeMismatch, "one track per clip");
  std::vector<RootMotionTrack> v = views(tracks);
  v.pop_back();
  refused(accumulate(), v, ErrorCode::kSizeMismatch, "one track per clip");
  // A track of the wrong length, one whose first sample is not zero, an additive clip's.
  std::vector<Track> t = tracks;
  t[0].pop_back();
  refused(accumulate(), views(t), ErrorCode::kBadClip, "Walk");
  t = tracks;
  t[1][0].x = 1;
  refused(accumulate(), views(t), ErrorCode::kBadClip, "first sample");
  t = tracks;
  t[kSway] = tracks[0];
  refused(accumulate(), views(t), ErrorCode::kBadClip, "additive");
  // The tracks checked against the config's rate.
  RootMotionConfig r30 = accumulate();
  r30.rate = 30;
  refused(r30, views(tracks), ErrorCode::kBadClip, "Walk");
  // In place needs no tracks; off turns it off.
  RootMotionConfig in_place = accumulate();
  in_place.policy = RootMotionPolicy::kInPlace;
  EXPECT_TRUE(a.set_root_motion(in_place, {}));
  EXPECT_EQ(a.root_motion().policy, RootMotionPolicy::kInPlace);
  EXPECT_TRUE(a.set_root_motion(RootMotionConfig{}, {}));
  EXPECT_EQ(a.root_motion().policy, RootMotionPolicy::kOff);
  EXPECT_EQ(a.take_root_motion(), RootMotionDelta{});
}

TEST(RootMotion, BakeRefusesAdditiveClipsBadFeetAndTooMuchTravel) {
  const Rig rig = root_motion_rig::make_rig();
  const Skeleton& s = rig.skeleton();
  const Clip& walk = rig.clips()[0];
  Result<Track> r = bake_root_motion(s, rig.clips()[kSway], accumulate());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadClip);
  r = bake_root_motion(s, rig.clips()[*rig.find_clip("Far")], accumulate());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(r.error().message()).find("Far"), std::string::npos);
  RootMotionConfig bad = accumulate();
  bad.extract = 0;
  EXPECT_FALSE(bake_root_motion(s, walk, bad));
  const int32_t root[] = {kHips};
  const int32_t above[] = {kLFoot, kRoot};
  const int32_t outside[] = {root_motion_rig::kJoints};
  const int32_t nine[] = {kLFoot, kLFoot, kLFoot, kLFoot, kLFoot, kLFoot, kLFoot, kLFoot, kLFoot};
  for (std::span<const int32_t> feet :
       {std::span<const int32_t>(root), std::span<const int32_t>(above),
        std::span<const int32_t>(outside), std::span<const int32_t>(nine)}) {
    r = bake_root_motion(s, walk, accumulate(), feet);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument) << r.error().message();
  }
  const int32_t feet[] = {kLFoot, kRFoot};
  r = bake_root_motion(s, walk, accumulate(kExtractVertical), feet);
  ASSERT_FALSE(r);
  EXPECT_NE(std::string(r.error().message()).find("horizontal"), std::string::npos);
  // A clip that fails its own validation.
  Clip broken("Broken");
  root_motion_rig::add_translation(broken, 99, {0, 1}, {0, 0, 0, 1, 1, 1});
  r = bake_root_motion(s, broken, accumulate());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kBadClip);
}

// The same scripted run on two animators, one given root motion with policy off.
TEST(RootMotion, PolicyOffIsBitIdenticalToNoRootMotion) {
  const Rig rig = root_motion_rig::make_rig();
  const std::vector<Track> tracks = bake_all(rig, accumulate());
  Animator a = std::move(*Animator::create(&rig, 60));
  Animator b = std::move(*Animator::create(&rig, 60));
  RootMotionConfig off = accumulate();
  off.policy = RootMotionPolicy::kOff;
  ASSERT_TRUE(b.set_root_motion(off, views(tracks)));
  // And one that had accumulate, then was turned off.
  Animator c = std::move(*Animator::create(&rig, 60));
  ASSERT_TRUE(c.set_root_motion(accumulate(kExtractHorizontal | kExtractYaw), views(tracks)));
  ASSERT_TRUE(c.set_root_motion(RootMotionConfig{}, {}));
  for (Animator* x : {&a, &b, &c}) {
    ASSERT_TRUE(x->play("Turn", 0));
    ASSERT_TRUE(x->blend("Walk", 0.4f, 0));
  }
  for (int64_t tick = 0; tick <= 200; ++tick) {
    if (tick == 50) {
      for (Animator* x : {&a, &b, &c}) ASSERT_TRUE(x->crossfade("Walk", 0.3, tick));
    }
    for (Animator* x : {&a, &b, &c}) {
      (void)x->advance(tick);
      x->evaluate(tick);
    }
    for (Animator* x : {&b, &c}) {
      ASSERT_EQ(
          std::memcmp(x->palette().data(), a.palette().data(), a.palette().size() * sizeof(Mat4)),
          0)
          << tick;
      EXPECT_EQ(x->take_root_motion(), RootMotionDelta{});
    }
  }
}

}  // namespace
}  // namespace animpack
