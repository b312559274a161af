// The benchmarks' synthetic data, shared by runtime_bench.cpp and ik_bench.cpp (and the
// fixed-seed LCG and must() by scene_bench.cpp): a humanoid-shaped rig of up to
// kMaxBenchJoints joints (hips, spine, neck and head, legs and arms of four joints, then
// three-joint chains round robin) and looping clips keyed 31 times a second. The data is
// the same whatever the compiler: every random draw is its own statement (a call's
// arguments are evaluated in an unspecified order) and the numbers come from the runtime's
// own functions. Changing anything here changes every recorded figure in
// docs/performance.md.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "animpack/clip.h"
#include "animpack/math.h"
#include "animpack/result.h"
#include "animpack/scalar.h"
#include "animpack/skeleton.h"

namespace animpack::bench {

constexpr int kKeysPerSecond = 31;
constexpr int kClipSeconds = 4;
constexpr int kMaxBenchJoints = 128;
constexpr float kTwoPi = static_cast<float>(2.0 * det::kPi);

template <typename T>
inline T must(Result<T> r, const char* what) {
  if (!r) {
    std::fprintf(stderr, "bench: %s: %s\n", what, r.error().message());
    std::abort();
  }
  return std::move(*r);
}

inline void must(const Result<void>& r, const char* what) {
  if (!r) {
    std::fprintf(stderr, "bench: %s: %s\n", what, r.error().message());
    std::abort();
  }
}

// A fixed-seed 64-bit LCG (Knuth's MMIX constants): the same numbers everywhere.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  uint32_t next() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state_ >> 33);
  }
  // In [0, 1), 24 bits.
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

// ---------------------------------------------------------------------------------------
// The synthetic rig.

struct SkeletonBuilder {
  std::vector<Joint> joints;
  Lcg rng{0x5eed0001u};

  int add(const std::string& name, int parent, Vec3 offset) {
    Joint j;
    j.name = name;
    j.parent = static_cast<int16_t>(parent);
    j.rest.translation = offset;
    // A small rest tilt so that rest rotations are not all the identity.
    // Drawn one after the other (the order of a call's arguments is unspecified: g++ and
    // clang++ would build different rigs): the angle first, as g++ 12 did when the
    // recorded figures were taken.
    const float angle = rng.range(-0.2f, 0.2f);
    const Vec3 axis = rng.direction();
    j.rest.rotation = quat_from_axis_angle(axis, angle);
    joints.push_back(j);
    return static_cast<int>(joints.size()) - 1;
  }
};

// kMaxBenchJoints joints, parents first; any prefix is a valid skeleton.
inline std::vector<Joint> make_joints() {
  SkeletonBuilder b;
  const int hips = b.add("hips", -1, {0, 1.0f, 0});
  int spine = hips;
  for (int i = 0; i < 4; ++i) spine = b.add("spine" + std::to_string(i), spine, {0, 0.12f, 0});
  const int chest = spine;
  const int neck = b.add("neck", chest, {0, 0.1f, 0});
  const int head = b.add("head", neck, {0, 0.1f, 0});
  int hands[2] = {0, 0}, feet[2] = {0, 0};
  for (int s = 0; s < 2; ++s) {
    const float side = s == 0 ? -1.0f : 1.0f;
    const std::string pre = s == 0 ? "l_" : "r_";
    const int thigh = b.add(pre + "thigh", hips, {0.1f * side, -0.05f, 0});
    const int shin = b.add(pre + "shin", thigh, {0, -0.45f, 0});
    feet[s] = b.add(pre + "foot", shin, {0, -0.42f, 0});
    b.add(pre + "toe", feet[s], {0, -0.05f, 0.12f});
  }
  for (int s = 0; s < 2; ++s) {
    const float side = s == 0 ? -1.0f : 1.0f;
    const std::string pre = s == 0 ? "l_" : "r_";
    const int clavicle = b.add(pre + "clavicle", chest, {0.04f * side, 0.08f, 0});
    const int upper = b.add(pre + "upperarm", clavicle, {0.14f * side, 0, 0});
    const int fore = b.add(pre + "forearm", upper, {0.28f * side, 0, 0});
    hands[s] = b.add(pre + "hand", fore, {0.26f * side, 0, 0});
  }
  // Three-joint chains: fingers, face, feet details, chest straps, round robin.
  const int attach[] = {hands[0], hands[1], head, hands[0], hands[1], feet[0], feet[1], chest};
  for (int chain = 0; static_cast<int>(b.joints.size()) < kMaxBenchJoints; ++chain) {
    int parent = attach[chain % 8];
    const Vec3 dir = b.rng.direction();
    for (int k = 0; k < 3 && static_cast<int>(b.joints.size()) < kMaxBenchJoints; ++k) {
      parent = b.add("chain" + std::to_string(chain) + "_" + std::to_string(k), parent,
                     dir * b.rng.range(0.02f, 0.05f));
    }
  }
  return b.joints;
}

// Key times k / 31 seconds, k = 0 .. 31 * kClipSeconds.
inline std::vector<float> key_times() {
  std::vector<float> t;
  for (int k = 0; k <= kKeysPerSecond * kClipSeconds; ++k) {
    t.push_back(static_cast<float>(k) / static_cast<float>(kKeysPerSecond));
  }
  return t;
}

inline float wave(float amplitude, float hz, float phase, float t) {
  return amplitude * det::sin(kTwoPi * hz * t + phase);
}

// A looping clip with T, R and S channels (LINEAR) on every joint. One joint in
// fast_every (0: none), starting at joint `first_fast`, swings fast: most of its rotation
// key pairs then take the slerp path.
inline Clip make_clip(const std::string& name, const std::vector<Joint>& joints, uint64_t seed,
                      int fast_every, int first_fast) {
  Lcg rng(seed);
  Clip clip(name);
  const std::vector<float> times = key_times();
  std::vector<float> tv, rv, sv;
  for (size_t j = 0; j < joints.size(); ++j) {
    const Trs& rest = joints[j].rest;
    // Frequencies are multiples of 1/4 Hz so that every channel loops seamlessly.
    const bool fast = fast_every > 0 && static_cast<int>(j) % fast_every == first_fast % fast_every;
    const Vec3 axis = rng.direction();
    const float amplitude = fast ? rng.range(1.0f, 1.4f) : rng.range(0.1f, 0.4f);
    const float hz = fast ? 1.5f : 0.25f * static_cast<float>(1 + rng.next() % 3);
    const float phase = rng.range(0.0f, kTwoPi);
    const float t_phase = rng.range(0.0f, kTwoPi);
    tv.clear();
    rv.clear();
    sv.clear();
    for (const float t : times) {
      // Translation: the hips bob and sway; other joints jitter around their offset.
      Vec3 tr = rest.translation;
      if (j == 0) {
        tr = tr + Vec3{wave(0.05f, 0.5f, t_phase, t), wave(0.03f, 1.0f, t_phase, t),
                       wave(0.02f, 0.5f, phase, t)};
      } else {
        tr = tr + Vec3{wave(0.002f, 0.5f, t_phase, t), 0, wave(0.002f, 0.25f, phase, t)};
      }
      const float angle = wave(amplitude, hz, phase, t) + rng.range(-0.002f, 0.002f);
      const Quat q = normalize(rest.rotation * quat_from_axis_angle(axis, angle));
      const float s = 1.0f + wave(0.01f, 0.25f, t_phase, t);
      tv.insert(tv.end(), {tr.x, tr.y, tr.z});
      rv.insert(rv.end(), {q.x, q.y, q.z, q.w});
      sv.insert(sv.end(), {s, s, s});
    }
    const auto joint = static_cast<uint16_t>(j);
    clip.add_channel(joint, Property::kTranslation, Interpolation::kLinear, times, tv);
    clip.add_channel(joint, Property::kRotation, Interpolation::kLinear, times, rv);
    clip.add_channel(joint, Property::kScale, Interpolation::kLinear, times, sv);
  }
  return clip;
}

}  // namespace animpack::bench
