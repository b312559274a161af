// Inverse kinematics (ik.h) on skeletons built here: an arm, two legs under hips, a
// 6-joint chain and a head, posed by a fixed-seed generator and placed by a skeleton
// root matrix that is not the identity (targets are in object space).
#include "animpack/ik.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "animpack/scalar.h"
#include "animpack/skeleton.h"
#include "fixtures/fnv.h"

namespace animpack {
namespace {

// A fixed-seed 64-bit LCG (Knuth's MMIX constants), as bench/runtime_bench.cpp's.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  uint32_t next() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state_ >> 33);
  }
  float unit() { return static_cast<float>(next() >> 7) * (1.0f / 16777216.0f); }
  float range(float lo, float hi) { return lo + (hi - lo) * unit(); }
  Vec3 direction() {
    for (;;) {
      const Vec3 v{range(-1, 1), range(-1, 1), range(-1, 1)};
      const float d = dot(v, v);
      if (d > 0.01f && d <= 1.0f) return normalize(v);
    }
  }

 private:
  uint64_t state_;
};

Vec3 origin(const Mat4& m) { return {m.m[12], m.m[13], m.m[14]}; }
double dist(Vec3 a, Vec3 b) { return static_cast<double>(length(a - b)); }
// The angle between two vectors, in double.
double angle(Vec3 a, Vec3 b) {
  const double cx = double(a.y) * b.z - double(a.z) * b.y;
  const double cy = double(a.z) * b.x - double(a.x) * b.z;
  const double cz = double(a.x) * b.y - double(a.y) * b.x;
  const double d = double(a.x) * b.x + double(a.y) * b.y + double(a.z) * b.z;
  return std::atan2(std::sqrt(cx * cx + cy * cy + cz * cz), d);
}

// Joint indices of the test rig.
enum : uint16_t {
  kHips,
  kLThigh,
  kLShin,
  kLFoot,
  kLToe,
  kRThigh,
  kRShin,
  kRFoot,
  kRToe,
  kSpine,
  kNeck,
  kHead,
  kUpper,
  kFore,
  kHand,
  kFinger,
  kTail0,  // kTail0 .. kTail0 + 5: a 6-joint chain
  kJointCount = kTail0 + 6,
};

Joint joint(const char* name, int parent, Vec3 t, Quat r = {}) {
  Joint j;
  j.name = name;
  j.parent = static_cast<int16_t>(parent);
  j.rest.translation = t;
  j.rest.rotation = r;
  return j;
}

// Hips 1 unit up, legs of 0.45 + 0.42 with knees bent forward a little, a spine, neck
// and head, a right arm of 0.3 + 0.25 with a bent elbow, a 6-joint tail; the root
// matrix turns and moves the whole skeleton.
Skeleton make_skeleton() {
  std::vector<Joint> j;
  const Quat knee = quat_from_axis_angle({1, 0, 0}, 0.2f);
  const Quat hip = quat_from_axis_angle({1, 0, 0}, -0.1f);
  j.push_back(joint("hips", -1, {0, 1.0f, 0}));
  j.push_back(joint("l_thigh", kHips, {-0.1f, -0.05f, 0}, hip));
  j.push_back(joint("l_shin", kLThigh, {0, -0.45f, 0}, knee));
  j.push_back(joint("l_foot", kLShin, {0, -0.42f, 0}, quat_from_axis_angle({1, 0, 0}, -0.1f)));
  j.push_back(joint("l_toe", kLFoot, {0, -0.05f, 0.12f}));
  j.push_back(joint("r_thigh", kHips, {0.1f, -0.05f, 0}, hip));
  j.push_back(joint("r_shin", kRThigh, {0, -0.45f, 0}, knee));
  j.push_back(joint("r_foot", kRShin, {0, -0.42f, 0}, quat_from_axis_angle({1, 0, 0}, -0.1f)));
  j.push_back(joint("r_toe", kRFoot, {0, -0.05f, 0.12f}));
  j.push_back(joint("spine", kHips, {0, 0.3f, 0}));
  j.push_back(joint("neck", kSpine, {0, 0.3f, 0}));
  j.push_back(joint("head", kNeck, {0, 0.1f, 0}));
  j.push_back(joint("upper", kSpine, {0.2f, 0.2f, 0}));
  j.push_back(joint("fore", kUpper, {0.3f, 0, 0}, quat_from_axis_angle({0, 1, 0}, 0.4f)));
  j.push_back(joint("hand", kFore, {0.25f, 0, 0}));
  j.push_back(joint("finger", kHand, {0.05f, 0, 0}));
  int parent = kHips;
  for (int k = 0; k < 6; ++k) {
    const std::string name = "tail" + std::to_string(k);
    j.push_back(joint(name.c_str(), parent, k == 0 ? Vec3{0, 0, -0.1f} : Vec3{0, 0.02f, -0.15f},
                      quat_from_axis_angle({1, 0, 0}, 0.15f)));
    parent = kTail0 + k;
  }
  Trs root;
  root.translation = {0.5f, 0.0f, -0.25f};
  root.rotation = quat_from_axis_angle({0, 1, 0}, 0.6f);
  auto s = Skeleton::create(std::move(j), {}, to_matrix(root));
  EXPECT_TRUE(s) << s.error().message();
  return std::move(*s);
}

const Skeleton& skeleton() {
  static const Skeleton s = make_skeleton();
  return s;
}

struct Pose {
  std::vector<Trs> locals;
  std::vector<Mat4> globals;
};

// The rest pose with every joint turned a little further by a random rotation of up to
// `spread` radians (0: the rest pose), globals consistent.
Pose make_pose(Lcg* rng, float spread) {
  const Skeleton& s = skeleton();
  Pose p;
  p.locals.assign(s.rest_pose().begin(), s.rest_pose().end());
  if (spread > 0.0f) {
    for (Trs& t : p.locals) {
      const float a = rng->range(-spread, spread);
      t.rotation = normalize(t.rotation * quat_from_axis_angle(rng->direction(), a));
    }
  }
  p.globals.resize(p.locals.size());
  EXPECT_TRUE(local_to_global(s, p.locals, p.globals));
  return p;
}

Vec3 at(const Pose& p, int joint) { return origin(p.globals[static_cast<size_t>(joint)]); }

// The length of the bone from joint's parent to joint: the parent's global 3x3 block times
// the joint's local translation, in double. (Differences of object-space positions near 1.5
// units from the origin carry float rounding of about 1e-7 units: too coarse for 1e-6 of
// a 0.15 bone.)
double bone(const Pose& p, int joint) {
  const Mat4& g = p.globals[static_cast<size_t>(skeleton().parents()[static_cast<size_t>(joint)])];
  const Vec3 t = p.locals[static_cast<size_t>(joint)].translation;
  double sum = 0.0;
  for (int r = 0; r < 3; ++r) {
    const double v = double(g.m[r]) * t.x + double(g.m[4 + r]) * t.y + double(g.m[8 + r]) * t.z;
    sum += v * v;
  }
  return std::sqrt(sum);
}

// The globals match a fresh local_to_global of the locals, bit for bit.
void expect_consistent(const Pose& p) {
  std::vector<Mat4> fresh(p.globals.size());
  ASSERT_TRUE(local_to_global(skeleton(), p.locals, fresh));
  EXPECT_TRUE(bits_equal(fresh[0].m, p.globals[0].m, static_cast<int>(fresh.size() * 16)));
}

bool same_bits(const Pose& a, const Pose& b) {
  return bits_equal(&a.locals[0].translation.x, &b.locals[0].translation.x,
                    static_cast<int>(a.locals.size() * 10)) &&
         bits_equal(a.globals[0].m, b.globals[0].m, static_cast<int>(a.globals.size() * 16));
}

IkSolverDef def_of(const char* name, IkKind kind, std::vector<uint16_t> joints) {
  IkSolverDef d;
  d.name = name;
  d.kind = kind;
  d.joints = std::move(joints);
  return d;
}

IkSolverDef arm() { return def_of("arm", IkKind::kTwoBone, {kUpper, kFore, kHand}); }

IkSet make_set(std::vector<IkSolverDef> defs) {
  auto set = IkSet::create(&skeleton(), defs);
  EXPECT_TRUE(set) << set.error().message();
  return std::move(*set);
}

void apply(IkSet& set, Pose& p) { set.apply(p.locals, p.globals); }

// ---------------------------------------------------------------------------------------
// Two-bone.

TEST(TwoBone, ReachableTargetsAreReachedWithinATenThousandthOfTheLimbLength) {
  Lcg rng(1);
  IkSet set = make_set({arm()});
  double worst = 0.0;
  for (int i = 0; i < 2000; ++i) {
    Pose p = make_pose(&rng, 0.6f);
    const Vec3 pu = at(p, kUpper);
    const float l1 = length(at(p, kFore) - pu), l2 = length(at(p, kHand) - at(p, kFore));
    const double b1 = bone(p, kFore), b2 = bone(p, kHand);
    const float d = rng.range((l1 - l2) * 1.001f, (l1 + l2) * 0.999f);
    const Vec3 target = pu + rng.direction() * d;
    ASSERT_TRUE(set.set_target(0, target));
    apply(set, p);
    worst = std::max(worst, dist(at(p, kHand), target) / (l1 + l2));
    EXPECT_NEAR(bone(p, kFore), b1, 1e-6 * b1);
    EXPECT_NEAR(bone(p, kHand), b2, 1e-6 * b2);
  }
  EXPECT_LT(worst, 1e-5) << "the worst miss, relative to l1 + l2";
}

TEST(TwoBone, UnreachableTargetsStraightenTheLimbAlongTheTargetDirection) {
  Lcg rng(2);
  IkSet set = make_set({arm()});
  for (int i = 0; i < 500; ++i) {
    Pose p = make_pose(&rng, 0.6f);
    const Vec3 pu = at(p, kUpper);
    const float l1 = length(at(p, kFore) - pu), l2 = length(at(p, kHand) - at(p, kFore));
    const Vec3 dir = rng.direction();
    const bool far = i % 2 == 0;
    // Beyond reach, or nearer than |l1 - l2| (the limb folds).
    const float d = far ? rng.range(1.01f, 3.0f) * (l1 + l2) : rng.range(0.1f, 0.9f) * (l1 - l2);
    ASSERT_TRUE(set.set_target(0, pu + dir * d));
    apply(set, p);
    const float reach = far ? l1 + l2 : l1 - l2;
    EXPECT_LT(dist(at(p, kHand), pu + dir * reach), 1e-5 * (l1 + l2))
        << "far " << far << " d " << d;
    // The middle joint on the line too.
    EXPECT_LT(dist(at(p, kFore), pu + dir * l1), 1e-5 * (l1 + l2));
  }
}

TEST(TwoBone, TheMiddleJointBendsTowardThePoleInItsPlane) {
  Lcg rng(3);
  IkSolverDef d = arm();
  d.has_pole = true;
  d.pole = {0, 1, 0};
  IkSet set = make_set({d});
  for (int i = 0; i < 500; ++i) {
    Pose p = make_pose(&rng, 0.6f);
    const Vec3 pu = at(p, kUpper);
    const Vec3 pole = rng.direction();
    const float reach = rng.range(0.1f, 0.5f);  // drawn apart: operand order is unspecified
    const Vec3 target = pu + rng.direction() * reach;
    const Vec3 dir = normalize(target - pu);
    if (length(cross(dir, pole)) < 0.05f) continue;  // a pole along the limb says nothing
    ASSERT_TRUE(set.set_pole(0, pole * 3.0f));       // a direction: its length does not matter
    ASSERT_TRUE(set.set_target(0, target));
    apply(set, p);
    const Vec3 m = at(p, kFore) - pu;
    const Vec3 side = m - dir * dot(m, dir);
    EXPECT_GT(dot(side, pole), 0.0f) << "on the pole's side";
    // In the plane of the upper-to-target line and the pole.
    EXPECT_LT(std::fabs(dot(m, normalize(cross(dir, pole)))), 1e-5f);
  }
}

TEST(TwoBone, WithoutAPoleTheBendPlaneOfThePoseIsKept) {
  Lcg rng(4);
  IkSet set = make_set({arm()});
  for (int i = 0; i < 500; ++i) {
    Pose p = make_pose(&rng, 0.6f);
    const Vec3 pu = at(p, kUpper);
    const Vec3 a = at(p, kFore) - pu, b = at(p, kHand) - at(p, kFore);
    const Vec3 normal = normalize(cross(a, b));
    // A target in the pose's bend plane.
    const Vec3 in_plane = normalize(a * rng.range(-1, 1) + b * rng.range(-1, 1));
    const Vec3 target = pu + in_plane * rng.range(0.15f, 0.5f);
    ASSERT_TRUE(set.set_target(0, target));
    apply(set, p);
    const Vec3 a2 = at(p, kFore) - pu, b2 = at(p, kHand) - at(p, kFore);
    EXPECT_LT(std::fabs(dot(a2, normal)), 1e-5f) << "the middle joint stays in the plane";
    EXPECT_GT(dot(cross(a2, b2), normal), 0.0f) << "and bends the same way";
  }
}

TEST(TwoBone, SoftenEasesTheReachFromItsShareOfTheLimbOn) {
  IkSolverDef d = arm();
  d.soften = 0.8f;
  IkSet set = make_set({d});
  Lcg rng(5);
  const Pose start = make_pose(&rng, 0.0f);
  const Vec3 pu = at(start, kUpper);
  const float l1 = length(at(start, kFore) - pu), l2 = length(at(start, kHand) - at(start, kFore));
  const float chain = l1 + l2;
  const Vec3 dir = normalize(Vec3{1, -1, 0.5f});
  float previous = 0.0f;
  for (int k = 2; k <= 40; ++k) {
    const float want = chain * 0.05f * static_cast<float>(k);  // 0.1 to 2 limb lengths
    Pose p = start;
    ASSERT_TRUE(set.set_target(0, pu + dir * want));
    apply(set, p);
    const float got = length(at(p, kHand) - pu);
    if (want <= 0.8f * chain) {
      EXPECT_NEAR(got, want, 1e-5f * chain) << "reached below soften * (l1 + l2)";
    } else {
      EXPECT_LT(got, want);
      EXPECT_LT(got, chain);
      EXPECT_GT(got, previous) << "the reach still grows";
      // The easing: da + ds x / (1 + x), x = (d - da) / ds.
      const float da = 0.8f * chain, ds = chain - da, x = (want - da) / ds;
      EXPECT_NEAR(got, da + ds * x / (1.0f + x), 1e-5f * chain);
    }
    previous = got;
  }
}

TEST(TwoBone, TwistTurnsTheBendPlaneAboutTheTargetLine) {
  Lcg rng(6);
  IkSolverDef d = arm();
  d.has_pole = true;
  d.pole = {0, 1, 0};
  IkSet plain = make_set({d});
  d.twist = 0.5f;
  IkSet twisted = make_set({d});
  for (int i = 0; i < 200; ++i) {
    Pose p = make_pose(&rng, 0.6f);
    Pose q = p;
    const Vec3 pu = at(p, kUpper);
    const Vec3 target = pu + normalize(Vec3{1, 0, rng.range(-1, 1)}) * rng.range(0.15f, 0.5f);
    ASSERT_TRUE(plain.set_target(0, target));
    ASSERT_TRUE(twisted.set_target(0, target));
    apply(plain, p);
    apply(twisted, q);
    const Vec3 dir = normalize(target - pu);
    const Vec3 m0 = at(p, kFore) - pu, m1 = at(q, kFore) - pu;
    const Vec3 s0 = m0 - dir * dot(m0, dir), s1 = m1 - dir * dot(m1, dir);
    // The signed angle from the untwisted bend to the twisted one, about dir.
    const double signed_angle =
        std::atan2(static_cast<double>(dot(cross(s0, s1), dir)), static_cast<double>(dot(s0, s1)));
    EXPECT_NEAR(signed_angle, 0.5, 1e-4);
    EXPECT_LT(dist(at(q, kHand), target), 1e-5);
  }
}

TEST(TwoBone, WeightZeroLeavesThePoseBitForBitAndHalfMixesTheRotations) {
  Lcg rng(7);
  IkSet full = make_set({arm()});
  IkSolverDef d = arm();
  d.weight = 0.0f;
  IkSet none = make_set({d});
  IkSet half = make_set({d});
  ASSERT_TRUE(half.set_weight(0, 0.5f));
  for (int i = 0; i < 100; ++i) {
    const Pose animated = make_pose(&rng, 0.6f);
    const Vec3 target = at(animated, kUpper) + rng.direction() * 0.4f;
    for (IkSet* s : {&full, &none, &half}) ASSERT_TRUE(s->set_target(0, target));
    Pose p0 = animated, p5 = animated, p1 = animated;
    apply(none, p0);
    apply(half, p5);
    apply(full, p1);
    EXPECT_TRUE(same_bits(p0, animated));
    for (const int j : {kUpper, kFore}) {
      const Quat want = nlerp(animated.locals[j].rotation, p1.locals[j].rotation, 0.5f);
      EXPECT_TRUE(bits_equal(&want.x, &p5.locals[j].rotation.x, 4)) << "joint " << j;
    }
    const double before = dist(at(animated, kHand), target);
    const double between = dist(at(p5, kHand), target);
    if (before > 1e-3) {
      EXPECT_LT(between, before);
    }
    EXPECT_GT(between, dist(at(p1, kHand), target));
    expect_consistent(p5);
  }
}

// ---------------------------------------------------------------------------------------
// Aim.

IkSolverDef head() {
  IkSolverDef d = def_of("head", IkKind::kAim, {kHead});
  d.forward = {0, 0, 1};
  d.up = {0, 1, 0};
  return d;
}

TEST(Aim, TheForwardAxisPointsAtTheTargetWithinTenMicroradians) {
  Lcg rng(8);
  IkSolverDef d = head();
  d.forward = normalize(Vec3{0.3f, -0.2f, 1.0f});  // any unit axis of the joint
  d.up = normalize(cross(d.forward, Vec3{1, 0, 0}));
  IkSet set = make_set({d});
  double worst = 0.0;
  for (int i = 0; i < 2000; ++i) {
    Pose p = make_pose(&rng, 0.8f);
    const Vec3 target = at(p, kHead) + rng.direction() * rng.range(0.05f, 10.0f);
    ASSERT_TRUE(set.set_target(0, target));
    apply(set, p);
    const Mat4& g = p.globals[kHead];
    worst = std::max(worst, angle(transform_vector(g, d.forward), target - origin(g)));
    expect_consistent(p);
  }
  EXPECT_LT(worst, 1e-5);
}

TEST(Aim, TheUpAxisTurnsTowardThePole) {
  Lcg rng(9);
  IkSolverDef d = head();
  d.has_pole = true;
  d.pole = {0, 1, 0};
  IkSet set = make_set({d});
  IkSet no_pole = make_set({head()});  // the set's up: the same here
  for (int i = 0; i < 500; ++i) {
    Pose p = make_pose(&rng, 0.8f);
    Pose q = p;
    const Vec3 target = at(p, kHead) + rng.direction() * rng.range(0.5f, 5.0f);
    const Vec3 pole = rng.direction();
    const Vec3 look = normalize(target - at(p, kHead));
    if (length(cross(look, pole)) < 0.05f) continue;
    ASSERT_TRUE(set.set_pole(0, pole));
    ASSERT_TRUE(set.set_target(0, target));
    apply(set, p);
    const Vec3 up = normalize(transform_vector(p.globals[kHead], d.up));
    // In the plane of the look direction and the pole, on the pole's side.
    EXPECT_LT(std::fabs(dot(up, normalize(cross(look, pole)))), 1e-5f);
    EXPECT_GT(dot(up, pole - look * dot(pole, look)), 0.0f);
    ASSERT_TRUE(no_pole.set_target(0, target));
    apply(no_pole, q);
    const Vec3 up_q = normalize(transform_vector(q.globals[kHead], d.up));
    if (length(cross(look, Vec3{0, 1, 0})) > 0.05f) {
      EXPECT_GT(up_q.y, 0.0f) << "without a pole, toward the set's up";
    }
  }
}

TEST(Aim, MaxAngleCapsTheTurnAwayFromTheAnimatedDirection) {
  Lcg rng(10);
  IkSolverDef d = head();
  d.max_angle = 0.5f;
  IkSet set = make_set({d});
  for (int i = 0; i < 500; ++i) {
    Pose p = make_pose(&rng, 0.8f);
    const Vec3 before = transform_vector(p.globals[kHead], d.forward);
    const Vec3 target = at(p, kHead) + rng.direction() * 2.0f;
    const double wanted = angle(before, target - at(p, kHead));
    ASSERT_TRUE(set.set_target(0, target));
    apply(set, p);
    const Vec3 after = transform_vector(p.globals[kHead], d.forward);
    const double turned = angle(before, after);
    if (wanted <= 0.5) {
      EXPECT_LT(angle(after, target - at(p, kHead)), 1e-5) << "inside the cap: on target";
    } else {
      EXPECT_NEAR(turned, 0.5, 1e-5) << "as far as the cap allows";
      // Toward the target: in the plane of the animated direction and the target.
      const Vec3 n = normalize(cross(before, target - at(p, kHead)));
      if (wanted < 3.0) {
        EXPECT_LT(std::fabs(dot(normalize(after), n)), 1e-4f);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Chain.

IkSolverDef tail(int iterations) {
  IkSolverDef d = def_of("tail", IkKind::kChain, {});
  for (int k = 0; k < 6; ++k) d.joints.push_back(static_cast<uint16_t>(kTail0 + k));
  d.iterations = iterations;
  return d;
}

// The tolerance after the fixed passes, measured over these 500 random poses and targets
// (0.2 to 0.9 of the chain's length away): after 16 passes the median miss is 1e-7 of the
// chain's length, 9 in 10 are within 1e-5 and the worst within 1e-2 (curled poses
// converge slowly); after 64 passes every one is within 1e-5.
TEST(Chain, ReachesReachableTargetsAndKeepsTheTopJoint) {
  for (const int passes : {16, 64}) {
    Lcg rng(11);
    IkSet set = make_set({tail(passes)});
    std::vector<double> misses;
    for (int i = 0; i < 500; ++i) {
      Pose p = make_pose(&rng, 0.5f);
      const Vec3 top = at(p, kTail0);
      std::vector<double> lengths;
      float total = 0.0f;
      for (int k = 1; k < 6; ++k) {
        lengths.push_back(bone(p, kTail0 + k));
        total += length(at(p, kTail0 + k) - at(p, kTail0 + k - 1));
      }
      const Vec3 target = top + rng.direction() * rng.range(0.2f, 0.9f) * total;
      ASSERT_TRUE(set.set_target(0, target));
      apply(set, p);
      misses.push_back(dist(at(p, kTail0 + 5), target) / total);
      const Vec3 top_after = at(p, kTail0);
      EXPECT_TRUE(bits_equal(&top.x, &top_after.x, 3)) << "the top joint does not move";
      for (int k = 1; k < 6; ++k) {
        EXPECT_NEAR(bone(p, kTail0 + k), lengths[k - 1], 1e-6 * lengths[k - 1]);
      }
      expect_consistent(p);
    }
    std::sort(misses.begin(), misses.end());
    if (passes == 16) {
      EXPECT_LT(misses[250], 1e-6) << "the median";
      EXPECT_LT(misses[450], 1e-5) << "9 in 10";
      EXPECT_LT(misses.back(), 1e-2) << "the worst";
    } else {
      EXPECT_LT(misses.back(), 1e-5) << "the worst";
    }
  }
}

TEST(Chain, UnreachableTargetsStraightenTheChainTowardThem) {
  Lcg rng(12);
  IkSet set = make_set({tail(4)});
  for (int i = 0; i < 200; ++i) {
    Pose p = make_pose(&rng, 0.5f);
    const Vec3 top = at(p, kTail0);
    float total = 0.0f;
    for (int k = 1; k < 6; ++k) total += length(at(p, kTail0 + k) - at(p, kTail0 + k - 1));
    const Vec3 dir = rng.direction();
    ASSERT_TRUE(set.set_target(0, top + dir * total * rng.range(1.01f, 3.0f)));
    apply(set, p);
    float along = 0.0f;
    for (int k = 1; k < 6; ++k) {
      along += length(at(p, kTail0 + k) - at(p, kTail0 + k - 1));
      EXPECT_LT(dist(at(p, kTail0 + k), top + dir * along), 1e-5 * total);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Foot placement.

IkSolverDef foot(const char* name, uint16_t thigh) {
  return def_of(name, IkKind::kFoot,
                {thigh, static_cast<uint16_t>(thigh + 1), static_cast<uint16_t>(thigh + 2)});
}

// The object's up (+Y) in object space: the root matrix turns about Y only.
float height(Vec3 p) { return p.y; }

TEST(Foot, OnASlopeTheFootKeepsItsClearanceAndTurnsToTheNormal) {
  Lcg rng(13);
  IkSet set = make_set({foot("left", kLThigh), foot("right", kRThigh)});
  const Vec3 normal = normalize(Vec3{0.3f, 1.0f, 0.2f});
  // The shortest arc from up to the normal.
  const Vec3 c = cross(Vec3{0, 1, 0}, normal);
  const Quat tilt = normalize(Quat{c.x, c.y, c.z, 1.0f + normal.y});
  for (int i = 0; i < 200; ++i) {
    const Pose animated = make_pose(&rng, 0.15f);
    Pose p = animated;
    const float ground = rng.range(-0.05f, 0.1f);
    ASSERT_TRUE(set.set_ground(0, ground, normal));
    ASSERT_TRUE(set.set_ground(1, 0.0f, {0, 1, 0}));
    apply(set, p);
    // The left foot clears the ground by as much as it cleared the floor; it keeps its
    // place on the ground plane.
    const Vec3 before = at(animated, kLFoot), after = at(p, kLFoot);
    EXPECT_NEAR(height(after) - ground, height(before), 1e-5f);
    EXPECT_NEAR(after.x, before.x, 1e-5f);
    EXPECT_NEAR(after.z, before.z, 1e-5f);
    // Its axes are the animated ones turned by the shortest arc from up to the normal.
    for (const Vec3 axis : {Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}}) {
      const Vec3 want = rotate(tilt, transform_vector(animated.globals[kLFoot], axis));
      EXPECT_LT(dist(transform_vector(p.globals[kLFoot], axis), want), 1e-5);
    }
    // The right foot on flat ground at the floor: where it was, turned as it was.
    EXPECT_LT(dist(at(p, kRFoot), at(animated, kRFoot)), 1e-5);
    EXPECT_LT(dist(transform_vector(p.globals[kRFoot], {0, 0, 1}),
                   transform_vector(animated.globals[kRFoot], {0, 0, 1})),
              1e-5);
    expect_consistent(p);
  }
}

TEST(Foot, TheHipsDropOnlyAsFarAsTheLowestFootNeeds) {
  IkSet set = make_set({foot("left", kLThigh), foot("right", kRThigh)});
  Lcg rng(14);
  const Pose animated = make_pose(&rng, 0.0f);
  // Ground at or above the floor, and a little below it, within the bent leg's slack:
  // the hips stay.
  for (const float g : {0.0f, 0.2f, -0.003f}) {
    Pose p = animated;
    ASSERT_TRUE(set.set_ground(0, g, {0, 1, 0}));
    ASSERT_TRUE(set.set_ground(1, 0.0f, {0, 1, 0}));
    apply(set, p);
    EXPECT_TRUE(
        bits_equal(&p.locals[kHips].translation.x, &animated.locals[kHips].translation.x, 3))
        << "ground " << g;
    EXPECT_NEAR(height(at(p, kLFoot)) - g, height(at(animated, kLFoot)), 1e-5f);
  }
  // The left ground 0.3 down, the right 0.1 down: the hips drop until the left leg,
  // straight, just reaches; the right foot reaches its ground with a bent knee.
  Pose p = animated;
  ASSERT_TRUE(set.set_ground(0, -0.3f, {0, 1, 0}));
  ASSERT_TRUE(set.set_ground(1, -0.1f, {0, 1, 0}));
  apply(set, p);
  const float drop = height(at(animated, kHips)) - height(at(p, kHips));
  EXPECT_GT(drop, 0.0f);
  const float leg = 0.45f + 0.42f;
  EXPECT_NEAR(length(at(p, kLFoot) - at(p, kLThigh)), leg, 1e-5f * leg) << "straight, no lower";
  EXPECT_NEAR(height(at(p, kLFoot)), height(at(animated, kLFoot)) - 0.3f, 1e-5f);
  EXPECT_NEAR(height(at(p, kRFoot)), height(at(animated, kRFoot)) - 0.1f, 1e-5f);
  EXPECT_LT(length(at(p, kRFoot) - at(p, kRThigh)), leg - 1e-3f) << "the other knee bends";
  // The hips only moved down.
  EXPECT_NEAR(at(p, kHips).x, at(animated, kHips).x, 1e-6f);
  EXPECT_NEAR(at(p, kHips).z, at(animated, kHips).z, 1e-6f);
  // Weight 0.5 on the left foot: half that drop.
  Pose h = animated;
  ASSERT_TRUE(set.set_weight(0, 0.5f));
  apply(set, h);
  EXPECT_NEAR(height(at(animated, kHips)) - height(at(h, kHips)), 0.5f * drop, 1e-6f);
}

// ---------------------------------------------------------------------------------------
// Rules shared by every solver.

std::vector<IkSolverDef> every_kind() {
  IkSolverDef a = arm();
  a.has_target = true;
  a.target = {0.9f, 1.3f, 0.2f};
  IkSolverDef h = head();
  h.has_target = true;
  h.target = {0.0f, 1.8f, 2.0f};
  IkSolverDef t = tail(8);
  t.has_target = true;
  t.target = {0.3f, 0.9f, -0.5f};
  return {foot("left", kLThigh), a, h, t, foot("right", kRThigh)};
}

TEST(Ik, ApplyingTwiceOnAFreshlyEvaluatedPoseGivesTheSameBits) {
  Lcg rng(15);
  IkSet set = make_set(every_kind());
  ASSERT_TRUE(set.set_ground(0, -0.2f, normalize(Vec3{0.1f, 1, 0})));
  for (int i = 0; i < 50; ++i) {
    const Pose animated = make_pose(&rng, 0.3f);
    Pose a = animated, b = animated;
    apply(set, a);
    apply(set, b);
    EXPECT_TRUE(same_bits(a, b));
    EXPECT_FALSE(same_bits(a, animated)) << "the solvers did change the pose";
    expect_consistent(a);
  }
}

TEST(Ik, NoTargetOrWeightZeroLeavesThePoseBitForBit) {
  Lcg rng(16);
  std::vector<IkSolverDef> defs = every_kind();
  for (IkSolverDef& d : defs) d.has_target = false;
  IkSet set = make_set(defs);
  ASSERT_TRUE(set.set_weight(0, 0.0f));
  ASSERT_TRUE(set.set_weight(4, 0.0f));
  const Pose animated = make_pose(&rng, 0.3f);
  Pose p = animated;
  apply(set, p);
  EXPECT_TRUE(same_bits(p, animated));
  // A target, then cleared: still nothing.
  ASSERT_TRUE(set.set_target(1, {0.9f, 1.3f, 0.2f}));
  apply(set, p);
  EXPECT_FALSE(same_bits(p, animated));
  p = animated;
  ASSERT_TRUE(set.clear_target(1));
  apply(set, p);
  EXPECT_TRUE(same_bits(p, animated));
}

TEST(Ik, FindsSolversByNameAndKeepsTheirDefinitions) {
  IkSet set = make_set(every_kind());
  EXPECT_EQ(set.solver_count(), 5);
  EXPECT_EQ(set.find("head"), 2);
  EXPECT_EQ(set.find("right"), 4);
  EXPECT_EQ(set.find("nose"), -1);
  EXPECT_EQ(set.solver(3).kind, IkKind::kChain);
  EXPECT_STREQ(ik_kind_name(IkKind::kFoot), "foot");
  EXPECT_STREQ(ik_kind_name(IkKind::kTwoBone), "two_bone");
}

TEST(Ik, ASizeMismatchDoesNothing) {
  IkSet set = make_set(every_kind());
  Lcg rng(17);
  const Pose animated = make_pose(&rng, 0.3f);
  Pose p = animated;
  set.apply(std::span<Trs>(p.locals).first(3), p.globals);
  EXPECT_TRUE(same_bits(p, animated));
}

// The golden hash: every solver kind on 64 generated poses, every local and global bit.
// Recorded on x86-64 with g++ 12 (Debug and Release).
TEST(Ik, GoldenHashOfEverySolverOnGeneratedPoses) {
  IkSet set = make_set(every_kind());
  ASSERT_TRUE(set.set_ground(0, -0.15f, normalize(Vec3{0.2f, 1, -0.1f})));
  ASSERT_TRUE(set.set_ground(4, 0.05f, {0, 1, 0}));
  ASSERT_TRUE(set.set_weight(2, 0.75f));
  Lcg rng(18);
  fixture::Fnv fnv;
  for (int tick = 0; tick < 64; ++tick) {
    Pose p = make_pose(&rng, 0.4f);
    const float t = static_cast<float>(tick) / 16.0f;
    ASSERT_TRUE(set.set_target(1, {0.6f + 0.3f * det::sin(t), 1.3f, 0.3f * det::cos(t)}));
    ASSERT_TRUE(set.set_target(2, {2.0f * det::sin(t), 1.7f, 2.0f}));
    apply(set, p);
    fnv.bytes(p.locals.data(), p.locals.size() * sizeof(Trs));
    fnv.bytes(p.globals.data(), p.globals.size() * sizeof(Mat4));
  }
  EXPECT_EQ(fnv.h, 0x739a3705b222d143ull) << std::hex << fnv.h;
}

// ---------------------------------------------------------------------------------------
// Refusals.

// create() fails with kBadIk and a message naming the solver and `what`.
void expect_refused(const IkSolverDef& d, const char* what) {
  const IkSolverDef defs[] = {arm(), d};
  auto set = IkSet::create(&skeleton(), defs);
  ASSERT_FALSE(set) << what;
  EXPECT_EQ(set.error().code(), ErrorCode::kBadIk);
  const std::string message = set.error().message();
  EXPECT_NE(message.find("solver 1 '" + d.name + "'"), std::string::npos) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
}

TEST(IkCreate, RefusesUnknownJointsBrokenChainsAndZeroBones) {
  expect_refused(def_of("x", IkKind::kTwoBone, {kUpper, kFore, 400}), "not in the skeleton");
  expect_refused(def_of("x", IkKind::kTwoBone, {kUpper, kHand, kFinger}), "not a chain");
  expect_refused(def_of("x", IkKind::kTwoBone, {kFore, kUpper, kSpine}), "not a chain");
  expect_refused(def_of("x", IkKind::kChain, {kTail0, kTail0 + 1, kHead}), "not a chain");
  expect_refused(def_of("x", IkKind::kTwoBone, {kUpper, kFore}), "needs 3 joints");
  expect_refused(def_of("x", IkKind::kFoot, {kLThigh, kLShin, kLFoot, kLToe}), "needs 3 joints");
  expect_refused(def_of("x", IkKind::kAim, {}), "needs 1 joint");
  expect_refused(def_of("x", IkKind::kChain, {kTail0}), "needs 2 to 32 joints");
  IkSolverDef bad = arm();
  bad.name = "x";
  bad.kind = static_cast<IkKind>(9);
  expect_refused(bad, "unknown kind");

  // A bone of zero length.
  std::vector<Joint> j = {joint("a", -1, {}), joint("b", 0, {0, 1, 0}), joint("c", 1, {}),
                          joint("d", 2, {0, 1, 0})};
  const Skeleton s = std::move(*Skeleton::create(std::move(j), {}, {}));
  const IkSolverDef zero[] = {def_of("limb", IkKind::kTwoBone, {1, 2, 3})};
  auto set = IkSet::create(&s, zero);
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().code(), ErrorCode::kBadIk);
  EXPECT_NE(std::string(set.error().message()).find("zero length"), std::string::npos);
}

TEST(IkCreate, RefusesNumbersOutOfRangeOrNotFinite) {
  const float inf = INFINITY, nan = NAN;
  auto with = [](auto change) {
    IkSolverDef d = arm();
    d.name = "x";
    change(d);
    return d;
  };
  expect_refused(with([](IkSolverDef& d) { d.weight = 1.5f; }), "weight not in [0, 1]");
  expect_refused(with([&](IkSolverDef& d) { d.weight = nan; }), "weight not in [0, 1]");
  expect_refused(with([&](IkSolverDef& d) {
                   d.has_target = true;
                   d.target = {0, inf, 0};
                 }),
                 "target is not finite");
  expect_refused(with([](IkSolverDef& d) { d.has_pole = true; }), "pole is zero");
  expect_refused(with([&](IkSolverDef& d) {
                   d.has_pole = true;
                   d.pole = {nan, 1, 0};
                 }),
                 "pole is not finite");
  expect_refused(with([](IkSolverDef& d) { d.soften = 0.0f; }), "soften not in (0, 1]");
  expect_refused(with([](IkSolverDef& d) { d.soften = 1.01f; }), "soften not in (0, 1]");
  expect_refused(with([](IkSolverDef& d) { d.twist = 3.2f; }), "twist not in [-pi, pi]");
  expect_refused(with([](IkSolverDef& d) { d.max_angle = 0.0f; }), "max_angle not in (0, pi]");
  expect_refused(with([](IkSolverDef& d) { d.max_angle = 3.2f; }), "max_angle not in (0, pi]");
  expect_refused(with([](IkSolverDef& d) { d.iterations = 0; }), "iterations not in [1, 64]");
  expect_refused(with([](IkSolverDef& d) { d.iterations = 65; }), "iterations not in [1, 64]");
  IkSolverDef h = head();
  h.forward = {0, 0, 2};
  expect_refused(h, "forward is not a unit vector");
  h = head();
  h.up = {0, 0.5f, 0};
  expect_refused(h, "up is not a unit vector");
  h = head();
  h.up = {0, 0, -1};
  expect_refused(h, "up is parallel to forward");
  IkSolverDef t = tail(4);
  t.has_pole = true;
  t.pole = {0, 1, 0};
  expect_refused(t, "chain solvers have no pole");
  IkSolverDef f = foot("f", kLThigh);
  f.has_target = true;
  expect_refused(f, "foot solvers take a ground");
}

TEST(IkCreate, RefusesNamesHipsAndCountsThatDoNotFit) {
  IkSolverDef unnamed = arm();
  unnamed.name = "";
  auto one = IkSet::create(&skeleton(), std::vector<IkSolverDef>{unnamed});
  ASSERT_FALSE(one);
  EXPECT_NE(std::string(one.error().message()).find("name is empty"), std::string::npos);
  expect_refused(arm(), "name is used twice");
  IkSolverDef f = foot("f", kLThigh);
  f.hips = kSpine;
  expect_refused(f, "hips is not an ancestor");
  f.hips = kLThigh;
  expect_refused(f, "hips is not an ancestor");
  f.hips = 999;
  expect_refused(f, "hips not in the skeleton");
  // The feet must share their hips.
  IkSolverDef a = foot("a", kLThigh), b = foot("b", kRShin);
  b.joints = {kRShin, kRFoot, kRToe};
  auto two = IkSet::create(&skeleton(), std::vector<IkSolverDef>{a, b});
  ASSERT_FALSE(two);
  EXPECT_NE(std::string(two.error().message()).find("share their hips"), std::string::npos);
  // A thigh with no parent has no default hips.
  std::vector<Joint> j = {joint("thigh", -1, {}), joint("shin", 0, {0, -1, 0}),
                          joint("foot", 1, {0, -1, 0})};
  const Skeleton s = std::move(*Skeleton::create(std::move(j), {}, {}));
  auto rootless = IkSet::create(&s, std::vector<IkSolverDef>{foot("f", 0)});
  ASSERT_FALSE(rootless);
  EXPECT_NE(std::string(rootless.error().message()).find("no parent"), std::string::npos);
  // Too many solvers, no skeleton, a bad up.
  std::vector<IkSolverDef> many;
  for (int i = 0; i <= kMaxIkSolvers; ++i) {
    many.push_back(arm());
    many.back().name = "arm" + std::to_string(i);
  }
  auto big = IkSet::create(&skeleton(), many);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code(), ErrorCode::kBadIk);
  many.pop_back();
  EXPECT_TRUE(IkSet::create(&skeleton(), many));
  EXPECT_FALSE(IkSet::create(nullptr, many));
  auto tilted = IkSet::create(&skeleton(), many, {0, 2, 0});
  ASSERT_FALSE(tilted);
  EXPECT_EQ(tilted.error().code(), ErrorCode::kBadIk);
}

TEST(IkSetters, RefuseBadValuesAndChangeNothing) {
  IkSet set = make_set(every_kind());
  Lcg rng(19);
  const Pose animated = make_pose(&rng, 0.3f);
  Pose want = animated;
  apply(set, want);
  const float inf = INFINITY, nan = NAN;
  const auto refused = [](const Result<void>& r) {
    return !r && r.error().code() == ErrorCode::kInvalidArgument;
  };
  EXPECT_TRUE(refused(set.set_target(5, {0, 0, 0})));
  EXPECT_TRUE(refused(set.set_target(-1, {0, 0, 0})));
  EXPECT_TRUE(refused(set.set_target(1, {nan, 0, 0})));
  EXPECT_TRUE(refused(set.set_target(0, {0, 0, 0}))) << "a foot takes a ground";
  EXPECT_TRUE(refused(set.clear_target(7)));
  EXPECT_TRUE(refused(set.set_pole(1, {0, 0, 0})));
  EXPECT_TRUE(refused(set.set_pole(1, {inf, 0, 0})));
  EXPECT_TRUE(refused(set.set_pole(3, {0, 1, 0}))) << "a chain has no pole";
  EXPECT_TRUE(refused(set.set_weight(1, -0.1f)));
  EXPECT_TRUE(refused(set.set_weight(1, 1.1f)));
  EXPECT_TRUE(refused(set.set_weight(1, nan)));
  EXPECT_TRUE(refused(set.set_ground(1, 0.0f, {0, 1, 0}))) << "not a foot";
  EXPECT_TRUE(refused(set.set_ground(0, inf, {0, 1, 0})));
  EXPECT_TRUE(refused(set.set_ground(0, 0.0f, {0, 2, 0})));
  EXPECT_TRUE(refused(set.set_ground(0, 0.0f, normalize(Vec3{1, 0.5f, 0}))))
      << "more than 60 degrees from up";
  Pose p = animated;
  apply(set, p);
  EXPECT_TRUE(same_bits(p, want)) << "nothing changed";
  EXPECT_TRUE(set.set_ground(0, 0.0f, normalize(Vec3{1, 1.8f, 0})));  // 29 degrees
}

}  // namespace
}  // namespace animpack
