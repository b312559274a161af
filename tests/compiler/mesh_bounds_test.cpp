// Cook-time mesh bounds (mesh_bounds.h) held against the runtime's own skinning: for every
// model of the corpus that imports (tests/data/corpus/gltf, with the ozz tests and the Fox,
// and the glTF-Asset-Generator cases; the demo's Fox is the corpus Fox), at 100 ticks
// spread over every clip, every vertex the runtime places (skin() for skinned parts,
// palette[joint] * v for node-rig parts, v for static parts) lies inside
// posed_bounds(bounds, palette). An empty palette gives the bind box, which holds every
// vertex at rest.
//
// Morphing models are placed with the Animator's morph weights (morph, then skin, in
// double), and also at rest at their default and every keyed weight.
//
// Tightness measured (printed by Bounds.EveryCorpusVertexLiesInsideThePosedBox; 66 models,
// 82 clips, 8200 poses): the posed box's diagonal over the tight box's is 1.058 on
// average, 2.86 at worst (SimpleMorph: its box holds both targets at full weight at once,
// the clip never plays them together); ozz character_walk 1.51 (worst 1.63), CesiumMan
// 1.16 (1.23), Fox 1.06 (1.14), Quaternius alien 1.29 (1.32), AnimatedMorphCube 1.53
// (1.70); rigid and node-rig models without morph targets 1.000. By volume, over solid
// boxes: 1.30 on average, 36 at worst (AnimatedMorphCube, whose targets fold the cube
// flat). docs/runtime.md has the figures of the models without morph targets.
// Without posed_bounds' margin the test fails (vertices one ulp outside).
#include "animpack/compiler/mesh_bounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/bounds.h"
#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"
#include "animpack/morph.h"
#include "animpack/skeleton.h"
#include "animpack/skinning.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
const fs::path kCorpus = fs::path(ANIMPACK_CORPUS_DIR);

std::vector<fs::path> corpus_models() {
  std::vector<fs::path> out;
  for (const char* folder : {"gltf", "asset-generator"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kCorpus / folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".gltf" || ext == ".glb") out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Model {
  CookedMesh mesh;
  std::optional<CookedRig> rig;
};

// The model as the cooker imports it, or nothing when it does not import.
std::optional<Model> import_model(const fs::path& file) {
  const GltfDocument doc = read_gltf(file);
  if (!doc.ok()) return std::nullopt;
  ImportedModel model = import_gltf(doc, file.stem().string(), file.filename().string());
  if (!model.ok()) return std::nullopt;
  Model out;
  out.mesh = std::move(model.mesh);
  out.rig = std::move(model.rig);
  compute_mesh_bounds(out.mesh, out.rig ? &*out.rig : nullptr);
  return out;
}

double volume(const Box& b) {
  return static_cast<double>(b.hi.x - b.lo.x) * (b.hi.y - b.lo.y) * (b.hi.z - b.lo.z);
}
double diagonal(const Box& b) {
  const double x = b.hi.x - b.lo.x, y = b.hi.y - b.lo.y, z = b.hi.z - b.lo.z;
  return std::sqrt(x * x + y * y + z * z);
}

struct Tightness {
  double worst_diagonal = 1.0, sum_diagonal = 0.0;
  double worst_volume = 1.0, sum_volume = 0.0;
  int poses = 0, volume_poses = 0;
  void add(const Box& posed, const Box& tight) {
    const double d = diagonal(posed) / std::max(diagonal(tight), 1e-30);
    worst_diagonal = std::max(worst_diagonal, d);
    sum_diagonal += d;
    ++poses;
    // Volumes only for solid boxes: a flat model's tight volume is about 0.
    const double thinnest =
        std::min({tight.hi.x - tight.lo.x, tight.hi.y - tight.lo.y, tight.hi.z - tight.lo.z});
    if (thinnest > 0.01 * diagonal(tight)) {
      const double v = volume(posed) / volume(tight);
      worst_volume = std::max(worst_volume, v);
      sum_volume += v;
      ++volume_poses;
    }
  }
};

// Vertex v of `part` morphed by `weights` (its set's, or empty for none) and placed by
// `palette` with all eight influences, in double: the reference rule (morph, then skin)
// for the parts the four-influence skin() below does not cover.
Vec3 place_vertex(const CookedPart& part, size_t v, std::span<const float> weights,
                  std::span<const Mat4> palette) {
  double p[3] = {part.positions[v].x, part.positions[v].y, part.positions[v].z};
  for (size_t t = 0; t < weights.size() && t < part.morph_targets.size(); ++t) {
    if (part.morph_targets[t].positions.empty()) continue;
    const Vec3 d = part.morph_targets[t].positions[v];
    p[0] += weights[t] * static_cast<double>(d.x);
    p[1] += weights[t] * static_cast<double>(d.y);
    p[2] += weights[t] * static_cast<double>(d.z);
  }
  const auto apply = [&p](const Mat4& m, double w, double* out) {
    for (int r = 0; r < 3; ++r) {
      out[r] += w * (m.m[r] * p[0] + m.m[4 + r] * p[1] + m.m[8 + r] * p[2] + m.m[12 + r]);
    }
  };
  double out[3] = {0, 0, 0};
  if (!part.joints.empty() && !palette.empty()) {
    const bool eight = !part.weights1.empty();
    const Vec4 a = part.weights[v], b = eight ? part.weights1[v] : Vec4{0, 0, 0, 0};
    const float w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    for (int k = 0; k < 8; ++k) {
      if (w[k] == 0.0f) continue;
      const uint16_t j = k < 4 ? part.joints[v].j[k] : part.joints1[v].j[k - 4];
      apply(palette[j], w[k], out);
    }
  } else if (part.joint >= 0 && !palette.empty()) {
    apply(palette[static_cast<size_t>(part.joint)], 1.0, out);
  } else {
    out[0] = p[0];
    out[1] = p[1];
    out[2] = p[2];
  }
  return {static_cast<float>(out[0]), static_cast<float>(out[1]), static_cast<float>(out[2])};
}

// Every vertex the runtime places for `palette` (empty: at rest, as stored), into out;
// morphing parts by `weights` (flat over the rig's sets; empty: not morphed).
void place(const Model& m, std::span<const Mat4> palette, std::vector<Vec3>* out,
           std::span<const float> weights = {}) {
  out->clear();
  const std::span<const MorphSet> sets =
      m.rig ? m.rig->rig.morph_sets() : std::span<const MorphSet>{};
  for (const CookedPart& part : m.mesh.parts) {
    std::span<const float> w;
    if (part.morph_set >= 0 && !weights.empty()) {
      const MorphSet& set = sets[static_cast<size_t>(part.morph_set)];
      w = weights.subspan(set.first, set.size());
    }
    if (!w.empty() || !part.weights1.empty()) {
      for (size_t v = 0; v < part.positions.size(); ++v) {
        out->push_back(place_vertex(part, v, w, palette));
      }
    } else if (!part.joints.empty() && !palette.empty()) {
      std::vector<Vec3> skinned(part.positions.size());
      const SkinInput in{part.positions, {}, {}, part.joints, part.weights};
      ASSERT_TRUE(skin(in, palette, {skinned, {}, {}}));
      out->insert(out->end(), skinned.begin(), skinned.end());
    } else if (part.joint >= 0 && !palette.empty()) {
      for (const Vec3& p : part.positions) {
        out->push_back(transform_point(palette[static_cast<size_t>(part.joint)], p));
      }
    } else {
      out->insert(out->end(), part.positions.begin(), part.positions.end());
    }
  }
}

// The rig's default weights, then every key's weights of every kWeights channel (the
// others at their defaults): the morph poses the corpus test holds the bounds to.
std::vector<std::vector<float>> keyed_weights(const Rig& rig) {
  std::vector<float> defaults(rig.morph_weight_count(), 0.0f);
  for (const MorphSet& set : rig.morph_sets()) {
    for (size_t t = 0; t < set.size(); ++t) defaults[set.first + t] = set.default_weights[t];
  }
  std::vector<std::vector<float>> out = {defaults};
  for (const Clip& clip : rig.clips()) {
    for (const Channel& ch : clip.channels()) {
      if (ch.property != Property::kWeights) continue;
      const MorphSet& set = rig.morph_sets()[ch.joint];
      const bool cubic = ch.interpolation == Interpolation::kCubicSpline;
      const size_t stride = cubic ? 3u * ch.width : ch.width;
      for (size_t k = 0; k < ch.times.size(); ++k) {
        std::vector<float> w = defaults;
        for (size_t t = 0; t < ch.width; ++t) {
          w[set.first + t] = ch.values[k * stride + (cubic ? ch.width : 0) + t];
        }
        out.push_back(std::move(w));
      }
    }
  }
  return out;
}

// Checks every placed vertex against the box; returns the number outside (reporting
// the first few).
int count_outside(const Box& box, const std::vector<Vec3>& points, const std::string& where) {
  int outside = 0;
  for (const Vec3& p : points) {
    if (box.contains(p)) continue;
    if (++outside <= 3) {
      ADD_FAILURE() << where << ": vertex (" << p.x << ", " << p.y << ", " << p.z << ") outside ("
                    << box.lo.x << ", " << box.lo.y << ", " << box.lo.z << ") .. (" << box.hi.x
                    << ", " << box.hi.y << ", " << box.hi.z << ")";
    }
  }
  return outside;
}

TEST(Bounds, EveryCorpusVertexLiesInsideThePosedBox) {
  int models = 0, clips = 0;
  Tightness all;
  for (const fs::path& file : corpus_models()) {
    const std::string name = fs::relative(file, kCorpus).string();
    SCOPED_TRACE(name);
    const std::optional<Model> m = import_model(file);
    if (!m) continue;
    ++models;
    const MeshBounds bounds{m->mesh.bind_bounds, m->mesh.static_bounds, m->mesh.joint_bounds};
    std::vector<Vec3> points;

    // At rest, as stored: the bind box (no margin) holds every vertex of a rig-less mesh;
    // a rigged mesh's node-rig parts are placed by their rest globals.
    if (!m->rig) {
      place(*m, {}, &points);
      EXPECT_EQ(count_outside(posed_bounds(bounds, {}), points, "bind"), 0);
      continue;
    }
    ASSERT_TRUE(m->mesh.bind_bounds.valid());
    const Rig& rig = m->rig->rig;
    // Morphing models at rest, at their default and every keyed weight.
    if (rig.morph_weight_count() > 0) {
      auto animator = Animator::create(&rig, 60);
      ASSERT_TRUE(animator);
      animator->evaluate(0);
      for (const std::vector<float>& weights : keyed_weights(rig)) {
        place(*m, animator->palette(), &points, weights);
        ASSERT_EQ(count_outside(posed_bounds(bounds, animator->palette()), points, name + " morph"),
                  0);
      }
    }
    Tightness model;
    for (int c = 0; c < rig.clip_count(); ++c) {
      ++clips;
      constexpr int32_t kRate = 1000;
      auto animator = Animator::create(&rig, kRate);
      ASSERT_TRUE(animator);
      PlayOptions once;
      once.playback = Playback::kOnce;
      ASSERT_TRUE(animator->play(static_cast<uint16_t>(c), 0, once));
      const double duration = rig.clips()[static_cast<size_t>(c)].duration();
      for (int i = 0; i < 100; ++i) {
        const int64_t tick = std::llround(duration * kRate * i / 99.0);
        (void)animator->advance(tick);
        animator->evaluate(tick);
        const Box box = posed_bounds(bounds, animator->palette());
        place(*m, animator->palette(), &points, animator->morph_weights());
        const int outside = count_outside(
            box, points, name + " clip " + std::to_string(c) + " tick " + std::to_string(tick));
        ASSERT_EQ(outside, 0);
        Box tight;
        for (const Vec3& p : points) tight.grow(p);
        model.add(box, tight);
        all.add(box, tight);
      }
    }
    if (model.poses > 0) {
      std::printf(
          "bounds %-70s diagonal ratio mean %.3f worst %.3f; volume ratio mean %.2f "
          "worst %.2f\n",
          name.c_str(), model.sum_diagonal / model.poses, model.worst_diagonal,
          model.volume_poses ? model.sum_volume / model.volume_poses : 0.0, model.worst_volume);
    }
  }
  std::printf(
      "bounds: %d models, %d clips, %d poses; diagonal ratio mean %.3f worst %.3f; "
      "volume ratio mean %.2f worst %.2f\n",
      models, clips, all.poses, all.sum_diagonal / std::max(all.poses, 1), all.worst_diagonal,
      all.sum_volume / std::max(all.volume_poses, 1), all.worst_volume);
  EXPECT_GT(models, 40);
  EXPECT_GT(clips, 40);
}

// posed_bounds with an empty palette is the bind box itself, bit for bit, and the bind box
// holds every stored vertex of skinned and static parts.
TEST(Bounds, EmptyPaletteGivesTheBindBox) {
  int models = 0;
  for (const fs::path& file : corpus_models()) {
    const std::string name = fs::relative(file, kCorpus).string();
    SCOPED_TRACE(name);
    const std::optional<Model> m = import_model(file);
    if (!m) continue;
    ++models;
    const MeshBounds bounds{m->mesh.bind_bounds, m->mesh.static_bounds, m->mesh.joint_bounds};
    const Box b = posed_bounds(bounds, {});
    EXPECT_TRUE(b.valid());
    const Box& bind = m->mesh.bind_bounds;
    EXPECT_TRUE(bits_equal(&b.lo.x, &bind.lo.x, 3) && bits_equal(&b.hi.x, &bind.hi.x, 3));
    for (const CookedPart& part : m->mesh.parts) {
      if (part.joint >= 0 && part.joints.empty()) continue;  // node-rig: placed by rest globals
      for (const Vec3& p : part.positions) EXPECT_TRUE(b.contains(p));
    }
  }
  EXPECT_GT(models, 40);
}

// A one-joint node rig whose part morphs by two targets: default weights {0.5, 0}, a
// linear clip keying them from {-0.5, 0} to {1, 3} and a cubic spline whose tangents
// overshoot its keys. Every vertex at every weight those give (the cubic sampled here
// by the Hermite basis) lies in the bind box and in the joint's box; a weight beyond the
// stated range can fall outside, so the boxes are not merely large.
TEST(Bounds, MorphDeltasWidenTheBoxesOverEveryDefaultAndKeyedWeight) {
  std::vector<Joint> joints(1);
  joints[0].name = "root";
  auto skeleton = Skeleton::create(std::move(joints), {Mat4{}}, Mat4{});
  ASSERT_TRUE(skeleton);
  MorphSet set;
  set.name = "face";
  set.target_names = {"a", "b"};
  set.default_weights = {0.5f, 0.0f};
  set.joint = 0;
  std::vector<Clip> clips;
  clips.emplace_back("Linear");
  clips.back().add_weights_channel(0, 2, Interpolation::kLinear, std::vector<float>{0, 1},
                                   std::vector<float>{-0.5f, 0, 1, 3});
  // Keys: in-tangent, value, out-tangent per key, two weights each.
  const std::vector<float> cubic = {0, 0, 0, 0, 8, -6, -8, 4, 1, 0, 0, 0};
  clips.emplace_back("Cubic");
  clips.back().add_weights_channel(0, 2, Interpolation::kCubicSpline, std::vector<float>{0, 1},
                                   cubic);
  auto rig = Rig::create(std::move(*skeleton), std::move(clips), {set});
  ASSERT_TRUE(rig) << rig.error().message();
  CookedRig cooked;
  cooked.rig = std::move(*rig);
  cooked.joint_source_nodes = {0};
  cooked.morph_source_nodes = {0};
  cooked.node_rig = true;
  CookedMesh mesh;
  CookedPart part;
  part.joint = 0;
  part.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  part.indices = {0, 1, 2};
  part.source_vertices = {0, 1, 2};
  part.morph_set = 0;
  part.morph_targets.resize(2);
  part.morph_targets[0].positions.assign(3, Vec3{1, 2, 0});
  part.morph_targets[1].positions.assign(3, Vec3{0, -1, 0.5f});
  mesh.parts.push_back(part);
  compute_mesh_bounds(mesh, &cooked);
  ASSERT_EQ(mesh.joint_bounds.size(), 1u);
  const Box joint_box{mesh.joint_bounds[0].lo, mesh.joint_bounds[0].hi};

  const auto morphed = [&part](size_t v, double a, double b) {
    const Vec3 p = part.positions[v];
    return Vec3{static_cast<float>(p.x + a * 1.0), static_cast<float>(p.y + a * 2.0 - b),
                static_cast<float>(p.z + b * 0.5)};
  };
  std::vector<std::pair<double, double>> weights = {{0.5, 0.0}};
  for (int i = 0; i <= 20; ++i) {
    const double s = i / 20.0;
    weights.push_back({-0.5 + 1.5 * s, 3.0 * s});  // the linear clip
    for (int k = 0; k <= 20; ++k) weights.push_back({-0.5 + 1.5 * s, 3.0 * k / 20.0});
  }
  double highest_a = 0.0;
  for (int i = 0; i <= 100; ++i) {
    const double s = i / 100.0;
    const double h00 = 2 * s * s * s - 3 * s * s + 1, h10 = s * s * s - 2 * s * s + s;
    const double h01 = -2 * s * s * s + 3 * s * s, h11 = s * s * s - s * s;
    const double a = h00 * cubic[2] + h10 * cubic[4] + h01 * cubic[8] + h11 * cubic[6];
    const double b = h00 * cubic[3] + h10 * cubic[5] + h01 * cubic[9] + h11 * cubic[7];
    highest_a = std::max(highest_a, a);
    weights.push_back({a, b});
  }
  EXPECT_GT(highest_a, 2.5);  // the spline overshoots its keys (0 and 1) well
  for (const auto& [a, b] : weights) {
    for (size_t v = 0; v < 3; ++v) {
      const Vec3 p = morphed(v, a, b);
      EXPECT_TRUE(mesh.bind_bounds.contains(p)) << a << " " << b << " vertex " << v;
      EXPECT_TRUE(joint_box.contains(p)) << a << " " << b << " vertex " << v;
    }
  }
  EXPECT_FALSE(mesh.bind_bounds.contains(morphed(1, 5.0, 0.0)));
  // Without morph targets the same part's box is its vertices' own.
  CookedMesh plain;
  plain.parts.push_back(part);
  plain.parts[0].morph_set = -1;
  plain.parts[0].morph_targets.clear();
  compute_mesh_bounds(plain, &cooked);
  EXPECT_EQ(plain.bind_bounds.lo, (Vec3{0, 0, 0}));
  EXPECT_EQ(plain.bind_bounds.hi, (Vec3{1, 1, 0}));
}

// A vertex weighted only by its second influence set counts in that joint's box.
TEST(Bounds, SecondInfluenceSetCountsInItsJointsBoxes) {
  std::vector<Joint> joints(2);
  joints[0].name = "a";
  joints[1].name = "b";
  joints[1].parent = 0;
  Mat4 ibm;
  ibm.m[12] = -4;  // joint b's frame sits at x = 4
  auto skeleton = Skeleton::create(std::move(joints), {Mat4{}, ibm}, Mat4{});
  ASSERT_TRUE(skeleton);
  auto rig = Rig::create(std::move(*skeleton), {});
  ASSERT_TRUE(rig);
  CookedRig cooked;
  cooked.rig = std::move(*rig);
  cooked.joint_source_nodes = {0, 1};
  CookedMesh mesh;
  CookedPart part;
  part.positions = {{0, 0, 0}, {5, 0, 0}};
  part.indices = {0, 1, 1};
  part.source_vertices = {0, 1};
  part.joints = {JointIndices{{0, 0, 0, 0}}, JointIndices{{0, 0, 0, 0}}};
  part.weights = {{1, 0, 0, 0}, {0.5f, 0, 0, 0}};
  part.joints1 = {JointIndices{{0, 0, 0, 0}}, JointIndices{{1, 0, 0, 0}}};
  part.weights1 = {{0, 0, 0, 0}, {0.5f, 0, 0, 0}};
  mesh.parts.push_back(part);
  compute_mesh_bounds(mesh, &cooked);
  ASSERT_EQ(mesh.joint_bounds.size(), 2u);
  EXPECT_EQ(mesh.joint_bounds[1].joint, 1);
  // Vertex 1 in joint b's frame: x = 5 - 4 = 1.
  EXPECT_EQ(mesh.joint_bounds[1].lo, (Vec3{1, 0, 0}));
  EXPECT_EQ(mesh.joint_bounds[1].hi, (Vec3{1, 0, 0}));
}

}  // namespace
}  // namespace animpack
