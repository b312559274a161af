// IK benchmarks: ns per solve of each solver on a small chain, and the cost per tick of a
// 64-joint character with two foot solvers and a head aim next to evaluate alone.
// Figures, machine, commands and ozz-animation's IKTwoBoneJob and IKAimJob on the same
// chain: docs/performance.md, "Inverse kinematics (Step 4)".
//
//   animpack_bench_ik --benchmark_min_time=0.2 --benchmark_repetitions=3
//                     --benchmark_report_aggregates_only=true
//
// Per solve: each iteration copies the animated pose of the chain's skeleton (4 to 9
// joints; BM_PoseCopy times that alone), sets the next of 64 fixed targets and runs
// IkSet::apply, which solves, writes the local rotations and updates the globals of the
// changed joints and those below them.
//
// The character: the 64-joint rig of bench/runtime_bench.cpp (bench/synthetic_rig.h:
// hips, spine, neck and head, legs and arms of four joints, three-joint chains), clip A0
// playing forward at 60 Hz. BM_CharacterEvaluate is Animator::evaluate;
// BM_CharacterEvaluateIk adds a foot solver per leg (thigh, shin, foot; the ground
// height and normal change every tick) and an aim on the head (a moving target), then
// refresh_palette().
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "animpack/animator.h"
#include "animpack/clip.h"
#include "animpack/ik.h"
#include "animpack/math.h"
#include "animpack/rig.h"
#include "animpack/scalar.h"
#include "animpack/skeleton.h"
#include "synthetic_rig.h"

namespace animpack {
namespace {

using namespace bench;

constexpr int kTickRate = 60;
constexpr int kTargets = 64;

// ---------------------------------------------------------------------------------------
// Per-solve chains. The arm (the chain ozz's jobs get in docs/performance.md): a shoulder
// at (0, 1.4, 0), the upper arm 0.2 out along x, the forearm 0.3 further, turned 0.4 rad
// about y (a bent elbow), the hand 0.25 further.

Vec3 origin_of(const Mat4& m) { return {m.m[12], m.m[13], m.m[14]}; }

Joint joint(const std::string& name, int parent, Vec3 t, Quat r = {}) {
  Joint j;
  j.name = name;
  j.parent = static_cast<int16_t>(parent);
  j.rest.translation = t;
  j.rest.rotation = r;
  return j;
}

Skeleton arm_skeleton() {
  std::vector<Joint> j = {
      joint("shoulder", -1, {0, 1.4f, 0}, quat_from_axis_angle({0, 0, 1}, 0.1f)),
      joint("upper", 0, {0.2f, 0, 0}),
      joint("fore", 1, {0.3f, 0, 0}, quat_from_axis_angle({0, 1, 0}, 0.4f)),
      joint("hand", 2, {0.25f, 0, 0})};
  return must(Skeleton::create(std::move(j), {}, Mat4{}), "arm");
}

// A 7-joint tail: a base and six links of 0.15, each turned 0.15 rad about x.
Skeleton tail_skeleton() {
  std::vector<Joint> j = {joint("base", -1, {0, 1, 0})};
  for (int k = 0; k < 6; ++k) {
    j.push_back(joint("link" + std::to_string(k), k, {0, 0.02f, -0.15f},
                      quat_from_axis_angle({1, 0, 0}, 0.15f)));
  }
  return must(Skeleton::create(std::move(j), {}, Mat4{}), "tail");
}

// Hips and two legs of 0.45 + 0.42 with the knees a little bent.
Skeleton legs_skeleton() {
  std::vector<Joint> j = {joint("hips", -1, {0, 1, 0})};
  for (int s = 0; s < 2; ++s) {
    const int base = static_cast<int>(j.size());
    const float side = s == 0 ? -1.0f : 1.0f;
    j.push_back(
        joint("thigh", 0, {0.1f * side, -0.05f, 0}, quat_from_axis_angle({1, 0, 0}, -0.1f)));
    j.push_back(joint("shin", base, {0, -0.45f, 0}, quat_from_axis_angle({1, 0, 0}, 0.2f)));
    j.push_back(joint("foot", base + 1, {0, -0.42f, 0}));
    j.push_back(joint("toe", base + 2, {0, -0.05f, 0.12f}));
  }
  return must(Skeleton::create(std::move(j), {}, Mat4{}), "legs");
}

struct Bench {
  Skeleton skeleton;
  std::vector<Trs> rest_locals;
  std::vector<Mat4> rest_globals;
  std::vector<Trs> locals;
  std::vector<Mat4> globals;

  explicit Bench(Skeleton s) : skeleton(std::move(s)) {
    rest_locals.assign(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
    rest_globals.resize(rest_locals.size());
    must(local_to_global(skeleton, rest_locals, rest_globals), "globals");
    locals = rest_locals;
    globals = rest_globals;
  }
  void reset() {
    std::copy(rest_locals.begin(), rest_locals.end(), locals.begin());
    std::copy(rest_globals.begin(), rest_globals.end(), globals.begin());
  }
};

// kTargets targets around `center`, `lo` to `hi` away (fixed seed).
std::vector<Vec3> targets_around(Vec3 center, float lo, float hi, uint64_t seed) {
  Lcg rng(seed);
  std::vector<Vec3> t;
  for (int i = 0; i < kTargets; ++i) {
    // One draw after the other: the order of an operator's operands is unspecified, so
    // `rng.direction() * rng.range(lo, hi)` gave g++ and clang++ different targets.
    const float distance = rng.range(lo, hi);
    const Vec3 direction = rng.direction();
    t.push_back(center + direction * distance);
  }
  return t;
}

IkSolverDef solver(const char* name, IkKind kind, std::vector<uint16_t> joints) {
  IkSolverDef d;
  d.name = name;
  d.kind = kind;
  d.joints = std::move(joints);
  return d;
}

void BM_PoseCopy(benchmark::State& state) {
  Bench b(arm_skeleton());
  for (auto _ : state) {
    b.reset();
    benchmark::DoNotOptimize(b.globals.data());
    benchmark::ClobberMemory();
  }
}

void run_solves(benchmark::State& state, Bench& b, IkSet& ik, std::span<const Vec3> targets) {
  size_t i = 0;
  for (auto _ : state) {
    b.reset();
    (void)ik.set_target(0, targets[i++ % targets.size()]);
    ik.apply(b.locals, b.globals);
    benchmark::DoNotOptimize(b.globals.data());
    benchmark::ClobberMemory();
  }
}

// The arm's two-bone solve with a pole, targets 0.1 to 0.6 from the shoulder (some out
// of reach).
void BM_TwoBone(benchmark::State& state) {
  Bench b(arm_skeleton());
  IkSolverDef d = solver("arm", IkKind::kTwoBone, {1, 2, 3});
  d.has_pole = true;
  d.pole = {0, 0, 1};
  d.soften = state.range(0) != 0 ? 0.9f : 1.0f;
  IkSet ik = must(IkSet::create(&b.skeleton, std::vector<IkSolverDef>{d}), "two-bone");
  const std::vector<Vec3> targets = targets_around(origin_of(b.globals[1]), 0.1f, 0.6f, 1);
  run_solves(state, b, ik, targets);
}

// The hand aims its +x at targets 0.5 to 3 away, up (+y) toward the set's up.
void BM_Aim(benchmark::State& state) {
  Bench b(arm_skeleton());
  IkSolverDef d = solver("hand", IkKind::kAim, {3});
  d.forward = {1, 0, 0};
  d.up = {0, 1, 0};
  IkSet ik = must(IkSet::create(&b.skeleton, std::vector<IkSolverDef>{d}), "aim");
  const std::vector<Vec3> targets = targets_around(origin_of(b.globals[3]), 0.5f, 3.0f, 2);
  run_solves(state, b, ik, targets);
}

// The tail (6 chain joints) with range(0) FABRIK passes, targets 0.2 to 0.7 away.
void BM_Chain(benchmark::State& state) {
  Bench b(tail_skeleton());
  IkSolverDef d = solver("tail", IkKind::kChain, {1, 2, 3, 4, 5, 6});
  d.iterations = static_cast<int32_t>(state.range(0));
  IkSet ik = must(IkSet::create(&b.skeleton, std::vector<IkSolverDef>{d}), "chain");
  const std::vector<Vec3> targets = targets_around(origin_of(b.globals[1]), 0.2f, 0.7f, 3);
  run_solves(state, b, ik, targets);
}

// Both feet on a sloped ground 0 to 0.15 below the floor (the hips drop for the lower).
void BM_FeetPair(benchmark::State& state) {
  Bench b(legs_skeleton());
  const IkSolverDef defs[] = {solver("left", IkKind::kFoot, {1, 2, 3}),
                              solver("right", IkKind::kFoot, {5, 6, 7})};
  IkSet ik = must(IkSet::create(&b.skeleton, defs), "feet");
  Lcg rng(4);
  std::vector<float> heights;
  for (int i = 0; i < kTargets; ++i) heights.push_back(rng.range(-0.15f, 0.0f));
  const Vec3 normal = normalize(Vec3{0.2f, 1.0f, 0.1f});
  size_t i = 0;
  for (auto _ : state) {
    b.reset();
    (void)ik.set_ground(0, heights[i % heights.size()], normal);
    (void)ik.set_ground(1, heights[(i + 7) % heights.size()], normal);
    ++i;
    ik.apply(b.locals, b.globals);
    benchmark::DoNotOptimize(b.globals.data());
    benchmark::ClobberMemory();
  }
}

// ---------------------------------------------------------------------------------------
// The 64-joint character: runtime_bench.cpp's (bench/synthetic_rig.h).

constexpr int kCharacterJoints = 64;
constexpr int kFastEvery = 7;

const Rig& character() {
  static const Rig rig = [] {
    std::vector<Joint> joints = make_joints();
    joints.resize(kCharacterJoints);
    std::vector<Mat4> rest_globals(joints.size()), inverse_binds(joints.size());
    for (size_t i = 0; i < joints.size(); ++i) {
      const Mat4 local = to_matrix(joints[i].rest);
      const int p = joints[i].parent;
      rest_globals[i] = p < 0 ? local : mul_affine(rest_globals[static_cast<size_t>(p)], local);
      inverse_binds[i] = inverse_affine(rest_globals[i]);
    }
    std::vector<Clip> clips;
    clips.push_back(make_clip("A0", joints, 0xc11b0000u, kFastEvery, 1));
    Skeleton s = must(Skeleton::create(joints, std::move(inverse_binds), Mat4{}), "skeleton");
    return must(Rig::create(std::move(s), std::move(clips)), "rig");
  }();
  return rig;
}

void BM_CharacterEvaluate(benchmark::State& state) {
  Animator animator = must(Animator::create(&character(), kTickRate), "animator");
  (void)must(animator.play(0, 0), "play");
  int64_t tick = 0;
  for (auto _ : state) {
    animator.evaluate(tick++);
    benchmark::DoNotOptimize(animator.palette().data());
    benchmark::ClobberMemory();
  }
}

void BM_CharacterEvaluateIk(benchmark::State& state) {
  const Rig& rig = character();
  const Skeleton& s = rig.skeleton();
  auto at = [&s](const char* name) { return static_cast<uint16_t>(s.find_joint(name)); };
  std::vector<IkSolverDef> defs = {
      solver("left_foot", IkKind::kFoot, {at("l_thigh"), at("l_shin"), at("l_foot")}),
      solver("right_foot", IkKind::kFoot, {at("r_thigh"), at("r_shin"), at("r_foot")}),
      solver("head", IkKind::kAim, {at("head")})};
  defs[2].max_angle = 1.2f;
  IkSet ik = must(IkSet::create(&s, defs), "ik");
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  (void)must(animator.play(0, 0), "play");
  int64_t tick = 0;
  for (auto _ : state) {
    const float t = static_cast<float>(tick % 240) / 240.0f;
    const float slope = 0.15f * det::sin(kTwoPi * t);
    (void)ik.set_ground(0, -0.05f - 0.1f * t, normalize(Vec3{slope, 1.0f, 0.0f}));
    (void)ik.set_ground(1, -0.1f * t, normalize(Vec3{0.0f, 1.0f, slope}));
    (void)ik.set_target(2, {2.0f * det::sin(kTwoPi * t), 1.6f, 2.0f});
    animator.evaluate(tick++);
    ik.apply(animator.mutable_locals(), animator.mutable_globals());
    animator.refresh_palette();
    benchmark::DoNotOptimize(animator.palette().data());
    benchmark::ClobberMemory();
  }
}

void common(benchmark::internal::Benchmark* b) { b->Unit(benchmark::kNanosecond); }

BENCHMARK(BM_PoseCopy)->Apply(common);
BENCHMARK(BM_TwoBone)->Apply(common)->ArgName("soften")->Arg(0)->Arg(1);
BENCHMARK(BM_Aim)->Apply(common);
BENCHMARK(BM_Chain)->Apply(common)->ArgName("passes")->Arg(4)->Arg(8)->Arg(16);
BENCHMARK(BM_FeetPair)->Apply(common);
BENCHMARK(BM_CharacterEvaluate)->Apply(common);
BENCHMARK(BM_CharacterEvaluateIk)->Apply(common);

}  // namespace
}  // namespace animpack

BENCHMARK_MAIN();
