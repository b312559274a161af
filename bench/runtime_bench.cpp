// Runtime benchmarks: sampling, local-to-global, palette, blending, crossfades and CPU
// skinning on a synthetic rig built here in code. Figures, machine and commands:
// docs/performance.md.
//
//   animpack_bench_runtime --benchmark_min_time=0.2 --benchmark_repetitions=3
//                          --benchmark_report_aggregates_only=true
//
// The rig: N joints (32, 64, 128) in a humanoid-like hierarchy (hips, a four-joint spine,
// neck and head, two legs and two arms of four joints, then three-joint chains hung on
// the hands, head, feet and chest: fingers, face, straps) and four looping clips of four
// seconds with LINEAR translation, rotation and scale channels on every joint, keyed 31
// times per second. Rotations swing smoothly about a per-joint axis like motion capture:
// most joints move a few degrees per key (the sampler's nlerp path, dot > 0.9995); one
// joint in seven swings fast enough that most of its key pairs take the slerp path.
// The share of rotation key pairs that take the slerp path is printed in the context
// header ("slerp_key_pairs").
//
// Every benchmark reports its time per call and a per-joint (or per-vertex) figure as a
// counter: ns_per_joint = CPU time / (joints x iterations). With
// --benchmark_repetitions=3 each also gets a "min" aggregate: the best of the runs.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "animpack/animator.h"
#include "animpack/clip.h"
#include "animpack/layers.h"
#include "animpack/math.h"
#include "animpack/morph.h"
#include "animpack/rig.h"
#include "animpack/root_motion.h"
#include "animpack/scalar.h"
#include "animpack/skeleton.h"
#include "animpack/skinning.h"
#include "synthetic_rig.h"

namespace animpack {
namespace {

using namespace bench;

constexpr int kTickRate = 60;
constexpr int kClipCount = 4;
constexpr int kVertexCount = 10000;
constexpr int kSkinJoints = 64;

// The share of rotation key pairs of a clip whose |dot| <= 0.9995 (the slerp path).
double slerp_share(const Clip& clip) {
  size_t pairs = 0, slerps = 0;
  for (const Channel& ch : clip.channels()) {
    if (ch.property != Property::kRotation) continue;
    for (size_t k = 0; k + 1 < ch.times.size(); ++k) {
      const float* a = ch.values.data() + 4 * k;
      const float d = a[0] * a[4] + a[1] * a[5] + a[2] * a[6] + a[3] * a[7];
      ++pairs;
      if (!((d < 0 ? -d : d) > 0.9995f)) ++slerps;
    }
  }
  return pairs == 0 ? 0.0 : static_cast<double>(slerps) / static_cast<double>(pairs);
}

// additive: also the additive (first_frame) version of B1, for BM_LayeredFrame.
Rig make_rig(int joint_count, int fast_every, bool additive = false) {
  std::vector<Joint> joints = make_joints();
  joints.resize(static_cast<size_t>(joint_count));
  // Inverse binds: the inverse of each joint's rest global matrix.
  std::vector<Mat4> rest_globals(joints.size());
  std::vector<Mat4> inverse_binds(joints.size());
  for (size_t i = 0; i < joints.size(); ++i) {
    const Mat4 local = to_matrix(joints[i].rest);
    const int p = joints[i].parent;
    rest_globals[i] = p < 0 ? local : mul_affine(rest_globals[static_cast<size_t>(p)], local);
    inverse_binds[i] = inverse_affine(rest_globals[i]);
  }
  std::vector<Clip> clips;
  const char* names[kClipCount] = {"A0", "A1", "B0", "B1"};
  for (int c = 0; c < kClipCount; ++c) {
    clips.push_back(
        make_clip(names[c], joints, 0xc11b0000u + static_cast<uint64_t>(c), fast_every, 2 * c + 1));
  }
  Skeleton skeleton = must(Skeleton::create(joints, std::move(inverse_binds), Mat4{}), "skeleton");
  if (additive) {
    clips.push_back(
        must(make_additive_clip(clips[3], skeleton, AdditiveReference::kFirstFrame), "additive"));
  }
  return must(Rig::create(std::move(skeleton), std::move(clips)), "rig");
}

constexpr int kFastEvery = 7;

// One rig per joint count, built once and never moved (animators point at it).
// slerp_free: no fast joints, so every rotation key pair takes the nlerp path.
const Rig& rig_for(int joint_count, bool slerp_free = false) {
  static std::map<std::pair<int, bool>, std::unique_ptr<Rig>> rigs;
  std::unique_ptr<Rig>& r = rigs[{joint_count, slerp_free}];
  if (!r) r = std::make_unique<Rig>(make_rig(joint_count, slerp_free ? 0 : kFastEvery));
  return *r;
}

// ---------------------------------------------------------------------------------------
// Helpers shared by the benchmarks.

void set_per_joint(benchmark::State& state, int joints) {
  state.counters["ns_per_joint"] =
      benchmark::Counter(static_cast<double>(joints) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void set_property(Trs& a, Property p, const Vec4& v) {
  switch (p) {
    case Property::kTranslation:
      a.translation = {v.x, v.y, v.z};
      break;
    case Property::kScale:
      a.scale = {v.x, v.y, v.z};
      break;
    case Property::kRotation:
      a.rotation = {v.x, v.y, v.z, v.w};
      break;
    case Property::kWeights:  // the bench rigs have no morph targets
      break;
  }
}

// The clip time the Animator shows at `tick` for a looping layer started at tick 0 at
// speed 1 (the same double arithmetic as Animator::unwrapped and Animator::mapped).
float loop_time(const Clip& clip, int64_t tick) {
  const double u =
      0.0 + static_cast<double>(tick) * static_cast<double>(1.0f) / static_cast<double>(kTickRate);
  const double d = clip.duration();
  const double r = u - std::floor(u / d) * d;
  return static_cast<float>(r < 0.0 ? 0.0 : (r >= d ? 0.0 : r));
}

// Samples every channel of `clip` at t over the rest pose, as a single full-weight layer
// does inside Animator::evaluate: the public pose sampler (clip.h).
void sample_pose(const Rig& rig, const Clip& clip, float t, uint32_t* cursors,
                 std::span<Trs> pose) {
  const auto rest = rig.skeleton().rest_pose();
  std::copy(rest.begin(), rest.end(), pose.begin());
  animpack::sample_pose(clip, t, std::span<uint32_t>(cursors, clip.channels().size()), pose);
}

// The same pose through the public per-channel sample(), one channel at a time.
void sample_pose_per_channel(const Rig& rig, const Clip& clip, float t, uint32_t* cursors,
                             std::span<Trs> pose) {
  const auto rest = rig.skeleton().rest_pose();
  std::copy(rest.begin(), rest.end(), pose.begin());
  const auto channels = clip.channels();
  for (size_t c = 0; c < channels.size(); ++c) {
    const Channel& ch = channels[c];
    set_property(pose[ch.joint], ch.property, sample(ch, t, &cursors[c]));
  }
}

bool same_bits(std::span<const Mat4> a, std::span<const Mat4> b) {
  return a.size() == b.size() && bits_equal(a[0].m, b[0].m, static_cast<int>(a.size() * 16));
}

bool same_bits(std::span<const Trs> a, std::span<const Trs> b) {
  return a.size() == b.size() &&
         bits_equal(&a[0].translation.x, &b[0].translation.x, static_cast<int>(a.size() * 10));
}

// Pseudo-random ticks over many loops of the clip (fixed seed).
class TickSequence {
 public:
  int64_t next() { return static_cast<int64_t>(rng_.next() % 100000u); }

 private:
  Lcg rng_{0x7e1c5eedu};
};

// ---------------------------------------------------------------------------------------
// (a) Forward playback: Animator::evaluate at consecutive 60 Hz ticks, one clip.
// Sample + blend onto the rest pose + local-to-global + palette.

void BM_EvaluateForward(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(n);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  (void)must(animator.play(0, 0), "play");
  int64_t tick = 0;
  for (auto _ : state) {
    animator.evaluate(tick++);
    benchmark::DoNotOptimize(animator.palette().data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

// (a') As (a) on a rig whose rotation keys all take the nlerp path (no fast joints):
// what (a) costs without glTF's slerp on wide key pairs (ozz always nlerps).
void BM_EvaluateForwardNoSlerp(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(n, /*slerp_free=*/true);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  (void)must(animator.play(0, 0), "play");
  int64_t tick = 0;
  for (auto _ : state) {
    animator.evaluate(tick++);
    benchmark::DoNotOptimize(animator.palette().data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

// (b) Random seeks: Animator::evaluate at pseudo-random ticks (every key cursor misses
// and is repaired by a binary search).
void BM_EvaluateRandomSeek(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(n);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  (void)must(animator.play(0, 0), "play");
  TickSequence ticks;
  for (auto _ : state) {
    animator.evaluate(ticks.next());
    benchmark::DoNotOptimize(animator.palette().data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

// (c) Sample + local-to-global without the palette, through the public API:
// sample_pose() with cursors, then local_to_global(). ozz's "sample + local-to-model".
// Checked bit for bit against Animator::globals() before timing.
void BM_SampleLocalToGlobal(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const bool seek = state.range(1) != 0;
  const Rig& rig = rig_for(n);
  const Clip& clip = rig.clips()[0];
  std::vector<uint32_t> cursors(clip.channels().size(), 0);
  std::vector<Trs> locals(static_cast<size_t>(n));
  std::vector<Mat4> globals(static_cast<size_t>(n));
  {
    Animator animator = must(Animator::create(&rig, kTickRate), "animator");
    (void)must(animator.play(0, 0), "play");
    for (int64_t tick = 0; tick < 300; tick += 7) {
      animator.evaluate(tick);
      sample_pose(rig, clip, loop_time(clip, tick), cursors.data(), locals);
      must(local_to_global(rig.skeleton(), locals, globals), "local_to_global");
      if (!same_bits(globals, animator.globals())) {
        state.SkipWithError("globals differ from Animator::evaluate");
        return;
      }
    }
  }
  int64_t tick = 0;
  TickSequence ticks;
  for (auto _ : state) {
    const float t = loop_time(clip, seek ? ticks.next() : tick++);
    sample_pose(rig, clip, t, cursors.data(), locals);
    (void)local_to_global(rig.skeleton(), locals, globals);
    benchmark::DoNotOptimize(globals.data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

// (c') The parts of (a) alone: sampling only (rest copy + sample_pose), then
// local_to_global only, then global_to_palette only.
void BM_SampleOnly(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(n);
  const Clip& clip = rig.clips()[0];
  std::vector<uint32_t> cursors(clip.channels().size(), 0);
  std::vector<Trs> locals(static_cast<size_t>(n));
  int64_t tick = 0;
  for (auto _ : state) {
    sample_pose(rig, clip, loop_time(clip, tick++), cursors.data(), locals);
    benchmark::DoNotOptimize(locals.data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

// (c'') As (c') through the per-channel sample() (rest copy + sample per channel).
// Checked bit for bit against sample_pose() before timing.
void BM_SampleOnlyPerChannel(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(n);
  const Clip& clip = rig.clips()[0];
  std::vector<uint32_t> cursors(clip.channels().size(), 0);
  std::vector<uint32_t> pose_cursors(clip.channels().size(), 0);
  std::vector<Trs> locals(static_cast<size_t>(n));
  std::vector<Trs> reference(static_cast<size_t>(n));
  for (int64_t tick = 0; tick < 300; tick += 7) {
    sample_pose_per_channel(rig, clip, loop_time(clip, tick), cursors.data(), locals);
    sample_pose(rig, clip, loop_time(clip, tick), pose_cursors.data(), reference);
    if (!same_bits(std::span<const Trs>(locals), std::span<const Trs>(reference))) {
      state.SkipWithError("sample() per channel differs from sample_pose()");
      return;
    }
  }
  int64_t tick = 0;
  for (auto _ : state) {
    sample_pose_per_channel(rig, clip, loop_time(clip, tick++), cursors.data(), locals);
    benchmark::DoNotOptimize(locals.data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

void BM_LocalToGlobalOnly(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(n);
  const Clip& clip = rig.clips()[0];
  std::vector<uint32_t> cursors(clip.channels().size(), 0);
  std::vector<Trs> locals(static_cast<size_t>(n));
  std::vector<Mat4> globals(static_cast<size_t>(n));
  sample_pose(rig, clip, 1.3f, cursors.data(), locals);
  for (auto _ : state) {
    (void)local_to_global(rig.skeleton(), locals, globals);
    benchmark::DoNotOptimize(globals.data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

void BM_PaletteOnly(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(n);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  (void)must(animator.play(0, 0), "play");
  animator.evaluate(78);
  std::vector<Mat4> palette(static_cast<size_t>(n));
  for (auto _ : state) {
    (void)global_to_palette(rig.skeleton(), animator.globals(), palette);
    benchmark::DoNotOptimize(palette.data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

// (d) Two-layer blend: play_blend of two clips (weights 1:1), evaluate at consecutive
// ticks: two samplings, the layer mix, local-to-global and palette.
void BM_EvaluateBlend2(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(n);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  const BlendEntry entries[] = {{0, 1.0f}, {1, 1.0f}};
  (void)must(animator.play_blend(entries, 0), "play_blend");
  int64_t tick = 0;
  for (auto _ : state) {
    animator.evaluate(tick++);
    benchmark::DoNotOptimize(animator.palette().data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

// (d') The mix of two sampled poses alone (lerp, nlerp, lerp per joint with the public
// blend_poses into a third pose: what the Animator does per joint for a second layer),
// comparable to ozz's BlendingJob of two layers. Checked bit for bit against
// Animator::locals().
void BM_PoseBlend2(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(n);
  std::vector<uint32_t> cursors(rig.clips()[0].channels().size(), 0);
  std::vector<Trs> a(static_cast<size_t>(n)), b(static_cast<size_t>(n)), out(a.size());
  {
    Animator animator = must(Animator::create(&rig, kTickRate), "animator");
    const BlendEntry entries[] = {{0, 1.0f}, {1, 1.0f}};
    (void)must(animator.play_blend(entries, 0), "play_blend");
    animator.evaluate(78);
    sample_pose(rig, rig.clips()[0], loop_time(rig.clips()[0], 78), cursors.data(), a);
    sample_pose(rig, rig.clips()[1], loop_time(rig.clips()[1], 78), cursors.data(), b);
    if (!blend_poses(a, b, 0.5f, out) || !same_bits(out, animator.locals())) {
      state.SkipWithError("blended locals differ from Animator::evaluate");
      return;
    }
  }
  for (auto _ : state) {
    (void)blend_poses(a, b, 0.5f, out);  // out of place, as ozz's BlendingJob writes its output
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

// (e) A crossfade of two blended mixes: mix A = A0 + A1 (1:1) fading out under mix B =
// B0 + B1 (layer B1 at weight 0.5) over 10 s; evaluated at ticks inside the fade: four
// samplings, two layer mixes, the mix-to-mix blend, local-to-global and palette.
void BM_EvaluateCrossfade(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(n);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  const BlendEntry entries[] = {{0, 1.0f}, {1, 1.0f}};
  (void)must(animator.play_blend(entries, 0), "play_blend");
  (void)must(animator.crossfade(2, 10.0, 0), "crossfade");
  (void)must(animator.blend(3, 0.5f, 0), "blend");
  constexpr int64_t kFadeTicks = 10 * kTickRate;
  if (animator.mix_count() != 2 || animator.layer_count(0) != 2 || animator.layer_count(1) != 2) {
    state.SkipWithError("unexpected mix layout");
    return;
  }
  int64_t tick = 1;
  for (auto _ : state) {
    animator.evaluate(tick);
    if (++tick == kFadeTicks) tick = 1;  // stay strictly inside the fade
    benchmark::DoNotOptimize(animator.palette().data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

// (e') A layered frame of a 64-joint character, as a state machine plays a blend space
// with layers: advance + evaluate of a synced mix of A0 and A1 whose weights change
// every frame, under a masked override overlay (B0 on the subtree of spine0: the upper
// body) and an additive overlay (B1's additive version, first_frame, at weight 0.5).
// Compare with BM_EvaluateForward/joints:64 (one clip, evaluate only).
void BM_LayeredFrame(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  static const Rig rig = make_rig(n, kFastEvery, /*additive=*/true);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  const BlendEntry entries[] = {{0, 1.0f}, {1, 1.0f}};
  const LayerId mix = must(animator.crossfade_synced(entries, 0.0, 0), "crossfade_synced");
  const MaskEntry upper[] = {{"spine0"}};
  const std::vector<float> mask = must(make_joint_mask(rig.skeleton(), upper), "mask");
  LayerOptions masked;
  masked.mask = mask;
  (void)must(animator.add_overlay(2, masked, 0), "masked overlay");
  LayerOptions additive;
  additive.mode = LayerMode::kAdditive;
  additive.weight = 0.5f;
  (void)must(animator.add_overlay(4, additive, 0), "additive overlay");
  int64_t tick = 0;
  for (auto _ : state) {
    const float w = static_cast<float>(tick % 120) / 120.0f;
    const float weights[] = {1.0f - w, w};
    (void)animator.set_blend_weights(mix, weights, tick);
    benchmark::DoNotOptimize(animator.advance(tick).data());
    animator.evaluate(tick++);
    benchmark::DoNotOptimize(animator.palette().data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}

// (e'') A root motion frame of a 64-joint character: advance + evaluate +
// take_root_motion, playing A0 (whose hips bob and sway) with accumulated horizontal
// motion and yaw from the hips (range(1) = 1), beside the same frame without root motion
// (range(1) = 0). The tracks are baked once, outside the timing.
void BM_RootMotionFrame(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const bool root_motion = state.range(1) != 0;
  const Rig& rig = rig_for(n);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  RootMotionConfig config;
  config.policy = RootMotionPolicy::kAccumulate;
  config.joint = 0;
  config.extract = kExtractHorizontal | kExtractYaw;
  std::vector<std::vector<RootMotionSample>> baked;
  for (const Clip& clip : rig.clips()) {
    baked.push_back(must(bake_root_motion(rig.skeleton(), clip, config), "bake"));
  }
  const std::vector<RootMotionTrack> tracks(baked.begin(), baked.end());
  if (root_motion) must(animator.set_root_motion(config, tracks), "set_root_motion");
  (void)must(animator.play(0, 0), "play");
  int64_t tick = 0;
  int64_t moved = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(animator.advance(tick).data());
    animator.evaluate(tick++);
    moved += animator.take_root_motion().x;
    benchmark::DoNotOptimize(animator.palette().data());
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(moved);
  set_per_joint(state, n);
}

// ---------------------------------------------------------------------------------------
// (f) CPU skinning of 10k vertices with 4 influences against a 64-joint palette.
// range(0): 0 positions only, 1 positions + normals, 2 positions + normals + tangents;
// BM_Skin's range(1): the vertex count (10k, and 50k: streams past the L2 cache).

struct Mesh {
  std::vector<Vec3> positions, normals;
  std::vector<Vec4> tangents;
  std::vector<JointIndices> joints;
  std::vector<Vec4> weights;
};

Mesh make_mesh(int vertices, int palette_size) {
  Lcg rng(0x5c1a0001u);
  Mesh m;
  for (int v = 0; v < vertices; ++v) {
    m.positions.push_back({rng.range(-0.5f, 0.5f), rng.range(0.0f, 1.8f), rng.range(-0.2f, 0.2f)});
    const Vec3 nrm = rng.direction();
    // A tangent perpendicular to the normal.
    const Vec3 tan = normalize(cross(nrm, std::abs(nrm.y) < 0.9f ? Vec3{0, 1, 0} : Vec3{1, 0, 0}));
    m.normals.push_back(nrm);
    m.tangents.push_back({tan.x, tan.y, tan.z, rng.unit() < 0.5f ? -1.0f : 1.0f});
    // A main joint and three neighbours in index order (as a skinned mesh's vertex
    // mostly follows one bone and its neighbours).
    const int j0 = static_cast<int>(rng.next() % static_cast<uint32_t>(palette_size));
    JointIndices ji;
    for (int i = 0; i < 4; ++i) {
      ji.j[i] =
          static_cast<uint16_t>((j0 + i * static_cast<int>(1 + rng.next() % 3)) % palette_size);
    }
    m.joints.push_back(ji);
    float w[4] = {rng.range(0.4f, 1.0f), rng.range(0.0f, 0.4f), rng.range(0.0f, 0.2f),
                  rng.range(0.0f, 0.1f)};
    const float sum = w[0] + w[1] + w[2] + w[3];
    m.weights.push_back({w[0] / sum, w[1] / sum, w[2] / sum, w[3] / sum});
  }
  return m;
}

void BM_Skin(benchmark::State& state) {
  const int streams = static_cast<int>(state.range(0));
  const int vertices = static_cast<int>(state.range(1));
  const Rig& rig = rig_for(kSkinJoints);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  (void)must(animator.play(0, 0), "play");
  animator.evaluate(78);
  const Mesh mesh = make_mesh(vertices, kSkinJoints);
  std::vector<Vec3> out_positions(mesh.positions.size()), out_normals(mesh.positions.size());
  std::vector<Vec4> out_tangents(mesh.positions.size());
  SkinInput in{mesh.positions, {}, {}, mesh.joints, mesh.weights};
  SkinOutput out{out_positions, {}, {}};
  if (streams >= 1) {
    in.normals = mesh.normals;
    out.normals = out_normals;
  }
  if (streams >= 2) {
    in.tangents = mesh.tangents;
    out.tangents = out_tangents;
  }
  must(skin(in, animator.palette(), out), "skin");
  for (auto _ : state) {
    (void)skin(in, animator.palette(), out);
    benchmark::DoNotOptimize(out_positions.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_vertex"] =
      benchmark::Counter(static_cast<double>(vertices) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Eight influences: the mesh above with a second set of four joints holding 30% of each
// vertex (every weight non-zero, the dearest case). range(0): streams as BM_Skin.
void BM_Skin8Influences(benchmark::State& state) {
  const int streams = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(kSkinJoints);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  (void)must(animator.play(0, 0), "play");
  animator.evaluate(78);
  Mesh mesh = make_mesh(kVertexCount, kSkinJoints);
  Lcg rng(0x5c1a0008u);
  std::vector<JointIndices> joints1;
  std::vector<Vec4> weights1;
  for (size_t v = 0; v < mesh.positions.size(); ++v) {
    Vec4& w = mesh.weights[v];
    w = {w.x * 0.7f, w.y * 0.7f, w.z * 0.7f, w.w * 0.7f};
    JointIndices j;
    for (uint16_t& x : j.j) x = static_cast<uint16_t>(rng.next() % kSkinJoints);
    joints1.push_back(j);
    weights1.push_back({0.12f, 0.08f, 0.06f, 0.04f});
  }
  std::vector<Vec3> out_positions(mesh.positions.size()), out_normals(mesh.positions.size());
  std::vector<Vec4> out_tangents(mesh.positions.size());
  SkinInput in{mesh.positions, {}, {}, mesh.joints, mesh.weights};
  in.joints1 = joints1;
  in.weights1 = weights1;
  SkinOutput out{out_positions, {}, {}};
  if (streams >= 1) {
    in.normals = mesh.normals;
    out.normals = out_normals;
  }
  if (streams >= 2) {
    in.tangents = mesh.tangents;
    out.tangents = out_tangents;
  }
  must(skin(in, animator.palette(), out), "skin");
  for (auto _ : state) {
    (void)skin(in, animator.palette(), out);
    benchmark::DoNotOptimize(out_positions.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_vertex"] = benchmark::Counter(
      static_cast<double>(kVertexCount) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Morph then skin (positions and normals, four influences): 8 targets with position and
// normal deltas on every vertex, range(0) of them weighted (the rest weigh 0 and cost
// nothing but the test).
void BM_MorphSkin(benchmark::State& state) {
  constexpr uint32_t kTargets = 8;
  const int active = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(kSkinJoints);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  (void)must(animator.play(0, 0), "play");
  animator.evaluate(78);
  const Mesh mesh = make_mesh(kVertexCount, kSkinJoints);
  Lcg rng(0x5c1a0009u);
  std::vector<Vec3> dp, dn;
  for (size_t i = 0; i < kTargets * mesh.positions.size(); ++i) {
    dp.push_back({rng.range(-0.01f, 0.01f), rng.range(-0.01f, 0.01f), rng.range(-0.01f, 0.01f)});
    dn.push_back({rng.range(-0.1f, 0.1f), rng.range(-0.1f, 0.1f), rng.range(-0.1f, 0.1f)});
  }
  std::vector<float> weights(kTargets, 0.0f);
  for (int t = 0; t < active; ++t)
    weights[static_cast<size_t>(t)] = 0.1f * static_cast<float>(t + 1);
  std::vector<Vec3> out_positions(mesh.positions.size()), out_normals(mesh.positions.size());
  SkinInput in{mesh.positions, mesh.normals, {}, mesh.joints, mesh.weights};
  in.morph = MorphDeltas{kTargets, dp, dn, {}};
  in.morph_weights = weights;
  const SkinOutput out{out_positions, out_normals, {}};
  must(skin(in, animator.palette(), out), "skin");
  for (auto _ : state) {
    (void)skin(in, animator.palette(), out);
    benchmark::DoNotOptimize(out_positions.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_vertex"] = benchmark::Counter(
      static_cast<double>(kVertexCount) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// evaluate() of BM_EvaluateForward's 64-joint walk with a face of range(0) targets whose
// weights are keyed LINEAR at the joints' key times (a morph set without a joint).
void BM_EvaluateMorphWeights(benchmark::State& state) {
  const uint16_t targets = static_cast<uint16_t>(state.range(0));
  const Rig& base = rig_for(kSkinJoints);
  Clip clip = base.clips()[0].copy();
  const std::span<const float> times = clip.channels()[0].times;
  Lcg rng(0x5c1a000au);
  std::vector<float> values;
  for (size_t i = 0; i < times.size() * targets; ++i) values.push_back(rng.range(0.0f, 1.0f));
  clip.add_weights_channel(0, targets, Interpolation::kLinear,
                           std::vector<float>(times.begin(), times.end()), values);
  std::vector<Clip> clips;
  clips.push_back(std::move(clip));
  std::vector<MorphSet> sets(1);
  sets[0].name = "face";
  for (uint16_t t = 0; t < targets; ++t) {
    sets[0].target_names.push_back("t" + std::to_string(t));
    sets[0].default_weights.push_back(0.0f);
  }
  const Rig rig = must(Rig::create(base.skeleton(), std::move(clips), std::move(sets)), "rig");
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  (void)must(animator.play(0, 0), "play");
  int64_t tick = 0;
  for (auto _ : state) {
    animator.evaluate(tick++);
    benchmark::DoNotOptimize(animator.morph_weights().data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, kSkinJoints);
}

// Rig::create over many clips (Pack::open runs it per rig): the unique-name check is
// O(n log n), so 60,000 clips take milliseconds, not the seconds a pairwise check took.
void BM_RigCreateManyClips(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const Skeleton skeleton =
      must(Skeleton::create({Joint{"root", -1, Trs{}}}, std::vector<Mat4>(1), Mat4{}), "skeleton");
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<Clip> clips;
    clips.reserve(n);
    for (size_t i = 0; i < n; ++i) clips.emplace_back("clip" + std::to_string(i));
    Skeleton s = skeleton;
    state.ResumeTiming();
    Rig rig = must(Rig::create(std::move(s), std::move(clips)), "rig");
    benchmark::DoNotOptimize(rig.clip_count());
  }
}

// ---------------------------------------------------------------------------------------

double min_of(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// Every benchmark: microseconds, and a "min" aggregate (the best run) when repeated.
void common(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", min_of);
}

void joint_counts(benchmark::internal::Benchmark* b) {
  common(b);
  b->ArgName("joints")->Arg(32)->Arg(64)->Arg(128);
}

BENCHMARK(BM_EvaluateForward)->Apply(joint_counts);
BENCHMARK(BM_EvaluateForwardNoSlerp)->Apply(joint_counts);
BENCHMARK(BM_EvaluateRandomSeek)->Apply(joint_counts);
BENCHMARK(BM_SampleLocalToGlobal)
    ->Apply(common)
    ->ArgNames({"joints", "seek"})
    ->ArgsProduct({{32, 64, 128}, {0, 1}});
BENCHMARK(BM_SampleOnly)->Apply(joint_counts);
BENCHMARK(BM_SampleOnlyPerChannel)->Apply(joint_counts);
BENCHMARK(BM_LocalToGlobalOnly)->Apply(joint_counts);
BENCHMARK(BM_PaletteOnly)->Apply(joint_counts);
BENCHMARK(BM_EvaluateBlend2)->Apply(joint_counts);
BENCHMARK(BM_PoseBlend2)->Apply(joint_counts);
BENCHMARK(BM_EvaluateCrossfade)->Apply(joint_counts);
BENCHMARK(BM_LayeredFrame)->Apply(common)->ArgName("joints")->Arg(kSkinJoints);
BENCHMARK(BM_RootMotionFrame)
    ->Apply(common)
    ->ArgNames({"joints", "root_motion"})
    ->ArgsProduct({{kSkinJoints}, {0, 1}});
BENCHMARK(BM_Skin)
    ->Apply(common)
    ->ArgNames({"streams", "vertices"})
    ->ArgsProduct({{0, 1, 2}, {kVertexCount, 50000}});
BENCHMARK(BM_Skin8Influences)->Apply(common)->ArgName("streams")->DenseRange(0, 2);
BENCHMARK(BM_MorphSkin)->Apply(common)->ArgName("active")->Arg(0)->Arg(2)->Arg(8);
BENCHMARK(BM_EvaluateMorphWeights)->Apply(common)->ArgName("targets")->Arg(52);
BENCHMARK(BM_RigCreateManyClips)->Apply(common)->ArgName("clips")->Arg(1000)->Arg(60000);

// (s) BM_EvaluateCrossfade's frame as a sub-tick pose (Animator::evaluate(tick, fraction),
// docs/runtime.md "Sub-tick poses"): the same work, fraction 0.5 of a tick on every clock
// and fade.
void BM_EvaluateCrossfadeSubTick(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Rig& rig = rig_for(n);
  Animator animator = must(Animator::create(&rig, kTickRate), "animator");
  const BlendEntry entries[] = {{0, 1.0f}, {1, 1.0f}};
  (void)must(animator.play_blend(entries, 0), "play_blend");
  (void)must(animator.crossfade(2, 10.0, 0), "crossfade");
  (void)must(animator.blend(3, 0.5f, 0), "blend");
  constexpr int64_t kFadeTicks = 10 * kTickRate;
  int64_t tick = 1;
  for (auto _ : state) {
    if (!animator.evaluate(tick, 0.5f)) state.SkipWithError("refused");
    if (++tick == kFadeTicks - 1) tick = 1;  // stay strictly inside the fade
    benchmark::DoNotOptimize(animator.palette().data());
    benchmark::ClobberMemory();
  }
  set_per_joint(state, n);
}
BENCHMARK(BM_EvaluateCrossfadeSubTick)->Apply(joint_counts);

}  // namespace
}  // namespace animpack

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // The share of rotation key pairs on the slerp path, per clip of the 64-joint rig.
  for (const bool slerp_free : {false, true}) {
    std::string shares;
    for (const animpack::Clip& clip : animpack::rig_for(64, slerp_free).clips()) {
      char share[64];
      std::snprintf(share, sizeof share, "%s%s %.1f%%", shares.empty() ? "" : ", ",
                    clip.name().c_str(), 100.0 * animpack::slerp_share(clip));
      shares += share;
    }
    benchmark::AddCustomContext(slerp_free ? "slerp_key_pairs_noslerp_rig" : "slerp_key_pairs",
                                shares);
  }
  benchmark::AddCustomContext(
      "rig",
      "T+R+S LINEAR on every joint, 31 keys/s, 4 s loops; skinning: 10000 vertices, "
      "4 influences, 64-joint palette");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
