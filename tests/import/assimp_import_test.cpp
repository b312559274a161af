// import_assimp (FBX and Collada through Assimp) held to import_gltf. The FBX and Collada
// files are made here, at test time, by Assimp's own exporter from glTF models of the
// corpus, then imported with import_assimp and compared with the glTF import of the same
// model: joint names and parents, rest poses, inverse binds, every glTF key (its time a key
// time of the import, its value what the import samples there),
// poses sampled at several times, and every skinned vertex at rest (positions and
// influences). What Assimp's exporter and importer lose or change is measured here and
// written in docs/assimp.md; the tests hold what survives, within the tolerances below.
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <assimp/Exporter.hpp>
#include <assimp/Importer.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/diagnostics.h"
#include "animpack/compiler/import_assimp.h"
#include "animpack/compiler/import_gltf.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "import_support.h"
#include "play_commands.h"

namespace animpack {
namespace {

using namespace import_test;  // NOLINT(build/namespaces): test helpers

constexpr float kValueTolerance = 2e-5f;   // rest poses, inverse binds, key values (FBX
                                           // and Collada store decimal text or doubles)
constexpr float kTimeTolerance = 1e-6f;    // key times in seconds
constexpr float kVertexTolerance = 1e-4f;  // skinned rest positions, relative to the extent

// A fresh folder for one test's files.
fs::path temp_folder(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("animpack_assimp_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Exports a glTF file of the corpus with Assimp's exporter (`format` is an Assimp export
// id: "fbxa", "fbx", "collada") to `out`. Assimp 5.2's FBX and Collada exporters write
// aiAnimation key times (ticks) as if they were seconds, ignoring mTicksPerSecond; the
// keys are converted to seconds first (mTicksPerSecond 1) so the files say what the glTF
// says.
void export_model(const fs::path& gltf, const char* format, const fs::path& out) {
  Assimp::Importer importer;
  ASSERT_NE(importer.ReadFile(gltf.string(), aiProcess_Triangulate), nullptr)
      << importer.GetErrorString();
  std::unique_ptr<aiScene> scene(importer.GetOrphanedScene());
  for (unsigned a = 0; a < scene->mNumAnimations; ++a) {
    aiAnimation* anim = scene->mAnimations[a];
    const double tps = anim->mTicksPerSecond > 0 ? anim->mTicksPerSecond : 25.0;
    for (unsigned c = 0; c < anim->mNumChannels; ++c) {
      aiNodeAnim* ch = anim->mChannels[c];
      for (unsigned k = 0; k < ch->mNumPositionKeys; ++k) ch->mPositionKeys[k].mTime /= tps;
      for (unsigned k = 0; k < ch->mNumRotationKeys; ++k) ch->mRotationKeys[k].mTime /= tps;
      for (unsigned k = 0; k < ch->mNumScalingKeys; ++k) ch->mScalingKeys[k].mTime /= tps;
    }
    // The FBX exporter writes the duration as whole seconds (truncated) and the FBX
    // importer drops keys after it: rounded up here.
    anim->mDuration = std::ceil(anim->mDuration / tps);
    anim->mTicksPerSecond = 1;
  }
  Assimp::Exporter exporter;
  ASSERT_EQ(exporter.Export(scene.get(), format, out.string()), AI_SUCCESS)
      << exporter.GetErrorString();
}

// The name Assimp gives glTF node n once written as `format`: unnamed glTF nodes are
// "nodes[n]" in Assimp's glTF importer ("node_n" in ours), and the Collada exporter makes
// names into XML ids ('[' -> 'P', ']' -> 'R').
std::string assimp_name(const std::string& ours, const GltfNode& node, int n,
                        const std::string& format) {
  std::string name = node.name.empty() ? "nodes[" + std::to_string(n) + "]" : ours;
  if (format == "collada") {
    for (char& c : name) {
      if (c == '[') c = 'P';
      if (c == ']') c = 'R';
    }
  }
  return name;
}

float max_abs_diff(const float* a, const float* b, int n) {
  float d = 0;
  for (int i = 0; i < n; ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

// The largest difference relative to max(1, |value|).
float max_rel_diff(const float* a, const float* b, int n) {
  float d = 0;
  for (int i = 0; i < n; ++i) {
    d = std::max(d, std::fabs(a[i] - b[i]) / std::max({1.0f, std::fabs(a[i]), std::fabs(b[i])}));
  }
  return d;
}

// A glTF node's rest world matrix, from the document's parents.
Mat4 gltf_world(const GltfDocument& doc, int n) {
  std::vector<int> parent(doc.nodes.size(), -1);
  for (size_t p = 0; p < doc.nodes.size(); ++p) {
    for (int c : doc.nodes[p].children) parent[static_cast<size_t>(c)] = static_cast<int>(p);
  }
  Mat4 world;
  for (int x = n; x >= 0; x = parent[static_cast<size_t>(x)]) {
    world = mul_affine(doc.nodes[static_cast<size_t>(x)].matrix, world);
  }
  return world;
}

// The rest palette of a skeleton (world * inverse bind per joint).
std::vector<Mat4> rest_palette(const Skeleton& s) {
  std::vector<Trs> locals(static_cast<size_t>(s.joint_count()));
  std::vector<Mat4> globals(locals.size()), palette(locals.size());
  EXPECT_TRUE(rest_pose(s, locals));
  EXPECT_TRUE(local_to_global(s, locals, globals));
  EXPECT_TRUE(global_to_palette(s, globals, palette));
  return palette;
}

// The skinned position of vertex v of a part (up to eight influences).
Vec3 skin_vertex(const CookedPart& part, size_t v, const std::vector<Mat4>& palette) {
  Vec3 sum{0, 0, 0};
  const auto add = [&](const JointIndices& j, const Vec4& w) {
    const float ws[4] = {w.x, w.y, w.z, w.w};
    for (int k = 0; k < 4; ++k) {
      if (ws[k] == 0.0f) continue;
      sum = sum + transform_point(palette[j.j[k]], part.positions[v]) * ws[k];
    }
  };
  add(part.joints[v], part.weights[v]);
  if (!part.joints1.empty()) add(part.joints1[v], part.weights1[v]);
  return sum;
}

// A clip's local pose at time t (rest where no channel).
std::vector<Trs> sample_pose(const Skeleton& s, const Clip& clip, float t) {
  std::vector<Trs> locals(static_cast<size_t>(s.joint_count()));
  EXPECT_TRUE(rest_pose(s, locals));
  for (const Channel& ch : clip.channels()) {
    uint32_t cursor = 0;
    const Vec4 v = sample(ch, t, &cursor);
    Trs& l = locals[ch.joint];
    switch (ch.property) {
      case Property::kTranslation:
        l.translation = {v.x, v.y, v.z};
        break;
      case Property::kRotation:
        l.rotation = {v.x, v.y, v.z, v.w};
        break;
      case Property::kScale:
        l.scale = {v.x, v.y, v.z};
        break;
      case Property::kWeights:
        break;
    }
  }
  return locals;
}

float quat_distance(const Quat& a, const Quat& b) {
  const float d = std::fabs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
  return 1.0f - std::min(1.0f, d);
}

struct Case {
  const char* gltf;
  const char* format;  // Assimp export id
  const char* ext;
  // The inverse binds and the skinned rest pose survive (false: Assimp re-binds the skin
  // to its node, docs/assimp.md).
  bool same_binds = true;
  // Poses between the glTF's keys survive (false: the FBX importer's resampling inserts
  // keys where an Euler angle wraps, docs/assimp.md).
  bool between_keys = true;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = fs::path(info.param.gltf).stem().string() + "_" + info.param.format;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class AssimpRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(AssimpRoundTrip, RigClipsAndSkinnedVerticesMatchTheGltfImport) {
  const Case& c = GetParam();
  const fs::path gltf = kCorpus / c.gltf;
  const GltfDocument doc = read_gltf(gltf);
  ASSERT_TRUE(doc.ok()) << describe(doc);
  const ImportedModel want = import_gltf(doc, "model", gltf.string());
  ASSERT_TRUE(want.ok()) << describe(want.issues);
  ASSERT_TRUE(want.rig.has_value());

  const fs::path dir = temp_folder(case_name({c, 0}));
  const fs::path file = dir / (std::string("model") + c.ext);
  export_model(gltf, c.format, file);
  if (HasFatalFailure()) return;
  const ImportedModel got = import_assimp(file, "model", file.string());
  ASSERT_TRUE(got.ok()) << describe(got.issues);
  ASSERT_TRUE(got.rig.has_value()) << describe(got.issues);
  EXPECT_FALSE(got.rig->node_rig);

  // Joints: every joint of the glTF rig is a joint of the imported rig by name, with the
  // same parent (by name), rest pose and inverse bind.
  const Skeleton& ws = want.rig->rig.skeleton();
  const Skeleton& gs = got.rig->rig.skeleton();
  std::vector<int> joint_map(static_cast<size_t>(ws.joint_count()), -1);
  for (int j = 0; j < ws.joint_count(); ++j) {
    const int node = want.rig->joint_source_nodes[static_cast<size_t>(j)];
    const std::string name = assimp_name(ws.joints()[static_cast<size_t>(j)].name,
                                         doc.nodes[static_cast<size_t>(node)], node, c.format);
    const int g = gs.find_joint(name);
    ASSERT_GE(g, 0) << name;
    joint_map[static_cast<size_t>(j)] = g;
  }
  for (int j = 0; j < ws.joint_count(); ++j) {
    SCOPED_TRACE(ws.joints()[static_cast<size_t>(j)].name);
    const int g = joint_map[static_cast<size_t>(j)];
    const int wp = ws.parents()[static_cast<size_t>(j)];
    const int gp = gs.parents()[static_cast<size_t>(g)];
    if (wp >= 0) {
      EXPECT_EQ(gp, joint_map[static_cast<size_t>(wp)]);
    }
    const Trs& wr = ws.rest_pose()[static_cast<size_t>(j)];
    const Trs& gr = gs.rest_pose()[static_cast<size_t>(g)];
    EXPECT_LE(max_rel_diff(&wr.translation.x, &gr.translation.x, 3), kValueTolerance);
    EXPECT_LE(quat_distance(wr.rotation, gr.rotation), kValueTolerance);
    EXPECT_LE(max_rel_diff(&wr.scale.x, &gr.scale.x, 3), kValueTolerance);
    if (c.same_binds) {
      EXPECT_LE(max_rel_diff(ws.inverse_binds()[static_cast<size_t>(j)].m,
                             gs.inverse_binds()[static_cast<size_t>(g)].m, 16),
                kValueTolerance);
    }
  }

  // Clips: one per glTF animation, with the same duration; every glTF key is a key of the
  // imported channel (same time, same value), and sampled poses agree.
  ASSERT_EQ(got.rig->rig.clip_count(), want.rig->rig.clip_count());
  for (int k = 0; k < want.rig->rig.clip_count(); ++k) {
    const Clip& wc = want.rig->rig.clips()[static_cast<size_t>(k)];
    const Clip& gc = got.rig->rig.clips()[static_cast<size_t>(k)];
    SCOPED_TRACE(wc.name());
    EXPECT_NEAR(gc.duration(), wc.duration(), kTimeTolerance * std::max(1.0f, wc.duration()));
    std::map<std::pair<int, Property>, const Channel*> channels;
    for (const Channel& ch : gc.channels()) channels[{ch.joint, ch.property}] = &ch;
    for (const Channel& wch : wc.channels()) {
      const int g = joint_map[wch.joint];
      const auto it = channels.find({g, wch.property});
      ASSERT_NE(it, channels.end()) << "joint " << wch.joint << " " << property_name(wch.property);
      const Channel& gch = *it->second;
      // Every glTF key time is a key time of the imported channel (the FBX importer adds
      // keys: it resamples a node's curves at the union of their key times), and the
      // imported channel gives the glTF key's value there.
      const int width = property_width(wch.property);
      uint32_t cursor = 0;
      for (size_t i = 0; i < wch.times.size(); ++i) {
        const float t = wch.times[i];
        const auto near = std::lower_bound(gch.times.begin(), gch.times.end(),
                                           t - kTimeTolerance * std::max(1.0f, t));
        ASSERT_NE(near, gch.times.end()) << "key " << i;
        EXPECT_NEAR(*near, t, kTimeTolerance * std::max(1.0f, t)) << "key " << i;
        const float* wv = &wch.values[i * static_cast<size_t>(width)];
        const Vec4 sampled = sample(gch, t, &cursor);
        if (wch.property == Property::kRotation) {
          EXPECT_LE(quat_distance({wv[0], wv[1], wv[2], wv[3]},
                                  {sampled.x, sampled.y, sampled.z, sampled.w}),
                    kValueTolerance)
              << "key " << i;
        } else {
          EXPECT_LE(max_rel_diff(wv, &sampled.x, width), kValueTolerance) << "key " << i;
        }
      }
    }
    for (const float t :
         {0.0f, 0.31f, wc.duration() * 0.5f, wc.duration() * 0.77f, wc.duration()}) {
      if (!c.between_keys) break;
      const std::vector<Trs> wp = sample_pose(ws, wc, t);
      const std::vector<Trs> gp = sample_pose(gs, gc, t);
      for (int j = 0; j < ws.joint_count(); ++j) {
        const Trs& a = wp[static_cast<size_t>(j)];
        const Trs& b = gp[static_cast<size_t>(joint_map[static_cast<size_t>(j)])];
        EXPECT_LE(max_rel_diff(&a.translation.x, &b.translation.x, 3), kValueTolerance)
            << "t " << t << " joint " << j;
        EXPECT_LE(quat_distance(a.rotation, b.rotation), kValueTolerance)
            << "t " << t << " joint " << j;
      }
    }
  }

  // Skinned vertices at rest: the exporters unweld (one vertex per triangle corner, in
  // triangle order), so vertex 3f + i of the imported mesh is corner i of triangle f of
  // the glTF primitive. Assimp places a skin by its node (its glTF importer keeps a
  // skinned mesh's vertices in its node's space; glTF ignores that node's transform), and
  // the FBX exporter drops the top node's transform: so each imported vertex, skinned by
  // the imported rest palette, is where the glTF node's world matrix (less the top node's
  // for FBX) puts the source vertex. Where the glTF's own skin puts its vertices there
  // too (every model here but RiggedSimple), that is also the glTF import's skinned rest.
  const std::vector<Mat4> gpal = rest_palette(gs);
  const std::vector<Mat4> wpal = rest_palette(ws);
  const bool fbx = std::string(c.format).rfind("fbx", 0) == 0;
  Mat4 dropped;
  if (fbx && doc.roots.size() == 1) {
    bool ok = false;
    dropped = inverse_affine(doc.nodes[static_cast<size_t>(doc.roots[0])].matrix, &ok);
    ASSERT_TRUE(ok);
  }
  ASSERT_EQ(got.mesh.parts.size(), want.mesh.parts.size());
  for (size_t p = 0; p < want.mesh.parts.size(); ++p) {
    const CookedPart& wpart = want.mesh.parts[p];
    const CookedPart& gpart = got.mesh.parts[p];
    if (wpart.joints.empty()) continue;
    ASSERT_FALSE(gpart.joints.empty());
    ASSERT_EQ(gpart.positions.size(), wpart.indices.size()) << "part " << p;
    const GltfPrimitive& prim = doc.meshes[static_cast<size_t>(wpart.source_mesh)]
                                    .primitives[static_cast<size_t>(wpart.source_primitive)];
    const Mat4 place = mul_affine(dropped, gltf_world(doc, wpart.source_node));
    float extent = 0;
    for (const Vec3& v : wpart.positions) {
      extent = std::max({extent, std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)});
    }
    float worst = 0, worst_gltf = 0;
    for (size_t i = 0; i < wpart.indices.size(); ++i) {
      const uint32_t wv = wpart.indices[i];
      const Vec3 placed = transform_point(place, prim.positions[wpart.source_vertices[wv]]);
      const Vec3 b = skin_vertex(gpart, i, gpal);
      worst = std::max(worst, max_abs_diff(&placed.x, &b.x, 3));
      const Vec3 a = transform_point(dropped, skin_vertex(wpart, wv, wpal));
      worst_gltf = std::max(worst_gltf, max_abs_diff(&a.x, &b.x, 3));
      // The same texture coordinates (Assimp's v-up ones flipped back).
      if (!wpart.texcoords0.empty()) {
        ASSERT_EQ(gpart.texcoords0.size(), gpart.positions.size());
        EXPECT_LE(max_abs_diff(&wpart.texcoords0[wv].x, &gpart.texcoords0[i].x, 2), kValueTolerance)
            << "vertex " << i;
      }
      // The same influences (joint by name, weight).
      std::map<int, float> wi, gi;
      const float* ww = &wpart.weights[wv].x;
      const float* gw = &gpart.weights[i].x;
      for (int k = 0; k < 4; ++k) {
        if (ww[k] != 0) wi[joint_map[wpart.joints[wv].j[k]]] += ww[k];
        if (gw[k] != 0) gi[gpart.joints[i].j[k]] += gw[k];
      }
      ASSERT_EQ(wi.size(), gi.size()) << "vertex " << i;
      for (const auto& [joint, weight] : wi) {
        ASSERT_EQ(gi.count(joint), 1u) << "vertex " << i;
        EXPECT_NEAR(gi[joint], weight, 1e-5f) << "vertex " << i;
      }
    }
    if (fbx) {
      EXPECT_LE(worst, kVertexTolerance * extent) << "part " << p;
    }
    if (!fbx || c.same_binds) {
      EXPECT_LE(worst_gltf, kVertexTolerance * extent) << "part " << p;
    }
    RecordProperty("worst_vertex_" + std::to_string(p), std::to_string(worst / extent));
  }

  // Materials: the base colour factor, and the texture's pixels (the exporters embed the
  // image or write it beside the file; the same PNG or JPEG bytes decode the same).
  for (size_t p = 0; p < want.mesh.parts.size(); ++p) {
    const int wm = want.mesh.parts[p].material;
    const int gm = got.mesh.parts[p].material;
    if (wm < 0) continue;
    ASSERT_GE(gm, 0) << "part " << p;
    const MaterialInfo& wi = want.materials[static_cast<size_t>(wm)].info;
    const MaterialInfo& gi = got.materials[static_cast<size_t>(gm)].info;
    EXPECT_LE(max_abs_diff(&wi.base_color.x, &gi.base_color.x, 4), kValueTolerance);
    if (wi.base_color_texture.texture < 0) continue;
    ASSERT_GE(gi.base_color_texture.texture, 0) << describe(got.issues);
    const CookedTexture& wt = want.textures[static_cast<size_t>(wi.base_color_texture.texture)];
    const CookedTexture& gt = got.textures[static_cast<size_t>(gi.base_color_texture.texture)];
    EXPECT_EQ(gt.width, wt.width);
    EXPECT_EQ(gt.height, wt.height);
    EXPECT_EQ(gt.color_space, ColorSpace::kSrgb);
    EXPECT_TRUE(gt.rgba == wt.rgba);
    EXPECT_EQ(gi.base_color_texture.uv_set, wi.base_color_texture.uv_set);
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, AssimpRoundTrip,
    ::testing::Values(Case{"gltf/CesiumMan/glTF-Binary/CesiumMan.glb", "fbxa", ".fbx"},
                      Case{"gltf/CesiumMan/glTF-Binary/CesiumMan.glb", "collada", ".dae"},
                      Case{"gltf/RiggedSimple/glTF/RiggedSimple.gltf", "fbxa", ".fbx", false},
                      Case{"gltf/RiggedSimple/glTF/RiggedSimple.gltf", "collada", ".dae"},
                      Case{"gltf/Fox/glTF-Binary/Fox.glb", "fbxa", ".fbx", true, false}),
    case_name);

// The code of the first error, or "" when the model is usable.
std::string first_error(const ImportedModel& model) {
  for (const ImportIssue& i : model.issues) {
    if (i.error) return i.code;
  }
  return {};
}

void write_file(const fs::path& file, const std::vector<uint8_t>& bytes) {
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

TEST(AssimpImport, BadFilesAreIssuesNeverCrashes) {
  const fs::path dir = temp_folder("bad");
  // Refused before Assimp sees them.
  EXPECT_EQ(first_error(import_assimp(dir / "missing.fbx", "m", "missing.fbx")),
            "ASSIMP_READ_FAILED");
  write_file(dir / "empty.fbx", {});
  EXPECT_EQ(first_error(import_assimp(dir / "empty.fbx", "m", "empty.fbx")), "ASSIMP_READ_FAILED");
  write_file(dir / "png.fbx", {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13});
  const ImportedModel png = import_assimp(dir / "png.fbx", "m", "png.fbx");
  EXPECT_EQ(first_error(png), "ASSIMP_READ_FAILED");
  ASSERT_FALSE(png.issues.empty());
  EXPECT_NE(png.issues[0].message.find("neither a binary FBX"), std::string::npos)
      << png.issues[0].message;
  write_file(dir / "binary.dae", {0, 1, 2, 3, '<', 'x'});
  EXPECT_EQ(first_error(import_assimp(dir / "binary.dae", "m", "binary.dae")),
            "ASSIMP_READ_FAILED");
  fs::create_directories(dir / "folder.fbx");
  EXPECT_EQ(first_error(import_assimp(dir / "folder.fbx", "m", "folder.fbx")),
            "ASSIMP_READ_FAILED");

  // Read by Assimp (in its child process first): garbage after a binary FBX header, and
  // cut-off FBX and Collada files. Each gives an error issue or a usable model, and
  // comes back.
  std::vector<uint8_t> garbage(4096);
  const char magic[] = "Kaydara FBX Binary  ";
  std::memcpy(garbage.data(), magic, sizeof magic);  // with its NUL
  uint32_t x = 12345;
  for (size_t i = sizeof magic; i < garbage.size(); ++i) {
    x = x * 1664525u + 1013904223u;
    garbage[i] = static_cast<uint8_t>(x >> 24);
  }
  garbage[23] = 0xe8;  // version 7400 (little endian 0x1ce8)
  garbage[24] = 0x1c;
  garbage[25] = garbage[26] = 0;
  write_file(dir / "garbage.fbx", garbage);
  EXPECT_EQ(first_error(import_assimp(dir / "garbage.fbx", "m", "garbage.fbx")),
            "ASSIMP_READ_FAILED");

  const fs::path gltf = kCorpus / "gltf/CesiumMan/glTF-Binary/CesiumMan.glb";
  for (const auto& [format, ext] : {std::pair{"fbxa", ".fbx"}, std::pair{"collada", ".dae"}}) {
    const fs::path whole = dir / (std::string("whole") + ext);
    export_model(gltf, format, whole);
    if (HasFatalFailure()) return;
    const std::vector<uint8_t> bytes = read_bytes(whole);
    for (const double fraction : {0.001, 0.1, 0.5, 0.9, 0.999}) {
      SCOPED_TRACE(std::string(format) + " cut at " + std::to_string(fraction));
      const std::vector<uint8_t> cut(
          bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(
                                             static_cast<double>(bytes.size()) * fraction));
      const fs::path file = dir / (std::string("cut") + ext);
      write_file(file, cut);
      const ImportedModel model = import_assimp(file, "m", file.string());
      for (const ImportIssue& i : model.issues) {
        EXPECT_TRUE(is_assimp_issue_code(i.code) || is_import_issue_code(i.code)) << i.code;
      }
      if (!model.ok()) {
        EXPECT_FALSE(first_error(model).empty());
      } else {
        EXPECT_FALSE(model.mesh.parts.empty());
      }
      // A cut-off XML document is always refused.
      if (std::string(format) == "collada") {
        EXPECT_EQ(first_error(model), "ASSIMP_READ_FAILED") << describe(model.issues);
      }
    }
  }
  fs::remove_all(dir);
}

// Eight influences: vertex 0 of CesiumMan is given nine bones (weights 1/45 to 9/45) in
// Assimp's scene before it is exported; the import keeps the eight largest, renormalised
// (2/44 to 9/44), in joints/weights and joints1/weights1, for every corner made from it.
TEST(AssimpImport, KeepsTheEightLargestInfluencesRenormalised) {
  const fs::path dir = temp_folder("eight");
  for (const auto& [format, ext] : {std::pair{"fbxa", ".fbx"}, std::pair{"collada", ".dae"}}) {
    SCOPED_TRACE(format);
    Assimp::Importer importer;
    ASSERT_NE(importer.ReadFile((kCorpus / "gltf/CesiumMan/glTF-Binary/CesiumMan.glb").string(),
                                aiProcess_Triangulate),
              nullptr);
    std::unique_ptr<aiScene> scene(importer.GetOrphanedScene());
    aiMesh* mesh = scene->mMeshes[0];
    ASSERT_GE(mesh->mNumBones, 9u);
    std::map<std::string, float> expected;
    for (unsigned b = 0; b < mesh->mNumBones; ++b) {
      aiBone* bone = mesh->mBones[b];
      std::vector<aiVertexWeight> kept;
      for (unsigned w = 0; w < bone->mNumWeights; ++w) {
        if (bone->mWeights[w].mVertexId != 0) kept.push_back(bone->mWeights[w]);
      }
      if (b < 9) {
        kept.push_back(aiVertexWeight(0, static_cast<float>(b + 1) / 45.0f));
        if (b > 0) {
          std::string name = bone->mName.C_Str();
          if (std::string(format) == "collada") {  // XML ids, as assimp_name() says
            std::replace(name.begin(), name.end(), '[', 'P');
            std::replace(name.begin(), name.end(), ']', 'R');
          }
          expected[name] = static_cast<float>(b + 1) / 44.0f;
        }
      }
      delete[] bone->mWeights;
      bone->mWeights = new aiVertexWeight[kept.size()];
      std::copy(kept.begin(), kept.end(), bone->mWeights);
      bone->mNumWeights = static_cast<unsigned>(kept.size());
    }
    size_t corners = 0;  // the corners made from vertex 0 (the exporters unweld)
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      for (unsigned i = 0; i < 3; ++i) corners += mesh->mFaces[f].mIndices[i] == 0 ? 1 : 0;
    }
    ASSERT_GT(corners, 0u);
    const fs::path file = dir / (std::string("eight") + ext);
    Assimp::Exporter exporter;
    ASSERT_EQ(exporter.Export(scene.get(), format, file.string()), AI_SUCCESS)
        << exporter.GetErrorString();

    const ImportedModel model = import_assimp(file, "m", file.string());
    ASSERT_TRUE(model.ok()) << describe(model.issues);
    ASSERT_TRUE(model.rig.has_value());
    const Skeleton& skeleton = model.rig->rig.skeleton();
    ASSERT_EQ(model.mesh.parts.size(), 1u);
    const CookedPart& part = model.mesh.parts[0];
    ASSERT_EQ(part.joints1.size(), part.positions.size());
    ASSERT_EQ(part.weights1.size(), part.positions.size());
    size_t eight = 0;
    for (size_t v = 0; v < part.positions.size(); ++v) {
      const float* w0 = &part.weights[v].x;
      const float* w1 = &part.weights1[v].x;
      double sum = 0;
      std::map<std::string, float> got;
      for (int k = 0; k < 4; ++k) {
        sum += static_cast<double>(w0[k]) + static_cast<double>(w1[k]);
        if (w0[k] != 0) got[skeleton.joints()[part.joints[v].j[k]].name] += w0[k];
        if (w1[k] != 0) got[skeleton.joints()[part.joints1[v].j[k]].name] += w1[k];
      }
      EXPECT_NEAR(sum, 1.0, 1e-6) << "vertex " << v;
      if (got.size() <= 4) {
        EXPECT_EQ(part.weights1[v].x, 0.0f) << "vertex " << v;
        continue;
      }
      ++eight;
      ASSERT_EQ(got.size(), 8u) << "vertex " << v;
      // Largest first.
      EXPECT_GE(w0[3], w1[0]) << "vertex " << v;
      for (const auto& [name, weight] : expected) {
        ASSERT_EQ(got.count(name), 1u) << name;
        EXPECT_NEAR(got[name], weight, 1e-5f) << name;
      }
    }
    EXPECT_EQ(eight, corners);

    // max_influences = 4: the four largest, renormalised, with the glTF import's note.
    ImportOptions four;
    four.max_influences = 4;
    const ImportedModel reduced = import_assimp(file, "m", file.string(), four);
    ASSERT_TRUE(reduced.ok()) << describe(reduced.issues);
    const CookedPart& rp = reduced.mesh.parts[0];
    EXPECT_TRUE(rp.joints1.empty() && rp.weights1.empty()) << "no second set is left";
    for (size_t v = 0; v < rp.positions.size(); ++v) {
      const double sum = static_cast<double>(rp.weights[v].x) + rp.weights[v].y + rp.weights[v].z +
                         rp.weights[v].w;
      EXPECT_NEAR(sum, 1.0, 1e-6) << "vertex " << v;
    }
    size_t notes = 0;
    for (const ImportIssue& issue : reduced.issues) {
      if (issue.code != "INFLUENCES_REDUCED") continue;
      ++notes;
      EXPECT_TRUE(issue.note);
      EXPECT_EQ(issue.message.rfind(std::to_string(corners) + " vertices", 0), 0u) << issue.message;
    }
    EXPECT_EQ(notes, 1u);
  }
  fs::remove_all(dir);
}

TEST(AssimpImport, EveryCodeIsDocumentedOnce) {
  std::set<std::string> codes;
  for (const GltfCodeInfo& c : kAssimpIssueCodes) {
    EXPECT_TRUE(codes.insert(std::string(c.code)).second) << c.code;
    EXPECT_EQ(std::string(c.code).rfind("ASSIMP_", 0), 0u) << c.code;
    EXPECT_TRUE(is_assimp_issue_code(c.code));
    EXPECT_FALSE(is_import_issue_code(c.code));
  }
  EXPECT_FALSE(is_assimp_issue_code("ASSIMP_NOT_A_CODE"));
}

// A scene with `file = "hero.fbx"` (and .dae) cooks; the pack opens and plays the clip.
TEST(AssimpImport, SceneWithAnFbxOrColladaMeshCooksAndPlays) {
  const fs::path dir = temp_folder("cook");
  for (const char* ext : {".fbx", ".dae"}) {
    SCOPED_TRACE(ext);
    const std::string name = std::string("hero") + ext;
    export_model(kCorpus / "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
                 std::string(ext) == ".fbx" ? "fbxa" : "collada", dir / name);
    if (HasFatalFailure()) return;
    const fs::path scene = dir / "scene.toml";
    std::ofstream(scene) << "[[mesh]]\nname = \"hero\"\nfile = \"" << name
                         << "\"\n\n[[object]]\nname = \"man\"\nmesh = \"hero\"\n\n"
                            "[object.animation]\nclip = \"animation_0\"\n";
    DiagnosticSink sink;
    const CookOutput out = cook_scene(scene, sink);
    std::string errors;
    for (const Diagnostic& d : sink.diagnostics()) {
      if (d.severity == Severity::kError) errors += d.code + ": " + d.message + "\n";
    }
    ASSERT_TRUE(errors.empty()) << errors;
    ASSERT_EQ(out.pack.meshes.size(), 1u);
    EXPECT_EQ(out.pack.meshes[0].source_file, name);
    const std::vector<uint8_t> bytes = write_pack(out.pack);
    Result<Pack> pack = Pack::from_bytes(bytes);
    ASSERT_TRUE(pack) << pack.error().message();
    std::string report;
    const Result<uint64_t> hash = run_play(*pack, {60, 30}, {}, &report);
    ASSERT_TRUE(hash) << hash.error().message();
    // The man moves: his pose differs at every tick asked.
    std::set<std::string> poses;
    for (const int64_t tick : {0, 7, 15, 30, 45}) {
      const Result<std::string> json = pose_json(*pack, "man", tick, 30);
      ASSERT_TRUE(json) << json.error().message();
      poses.insert(*json);
    }
    EXPECT_EQ(poses.size(), 5u);
  }
  fs::remove_all(dir);
}

// A file Assimp cannot read is an error at the scene's `file` key.
TEST(AssimpImport, UnreadableFbxIsReportedAtTheSceneKey) {
  const fs::path dir = temp_folder("cook_bad");
  write_file(dir / "hero.fbx", {'n', 'o', 't', ' ', 'f', 'b', 'x', '\n'});
  const fs::path scene = dir / "scene.toml";
  std::ofstream(scene) << "[[mesh]]\nname = \"hero\"\nfile = \"hero.fbx\"\n";
  DiagnosticSink sink;
  (void)cook_scene(scene, sink);
  bool found = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity != Severity::kError) continue;
    EXPECT_EQ(d.code, "E0201");
    EXPECT_EQ(d.file, scene.string());
    EXPECT_EQ(d.line, 3);
    EXPECT_EQ(d.col, 1);  // the `file` key
    EXPECT_NE(d.message.find("[ASSIMP_READ_FAILED]"), std::string::npos) << d.message;
    found = true;
  }
  EXPECT_TRUE(found);
  fs::remove_all(dir);
}

// The trial read runs animpack-assimp-trial, a program of its own (never a fork of the
// cooker, which may hold any lock on another thread). This build's program is found
// without help; ANIMPACK_ASSIMP_TRIAL names another, and whatever that program does
// (missing, not executable, crashed, over its CPU time, an unknown exit status) is an
// ASSIMP_READ_FAILED saying so, with the program's last line.
TEST(AssimpImport, TheTrialReadRunsItsOwnProgramAndSaysWhatWentWrongWithIt) {
  struct Unset {
    ~Unset() { ::unsetenv(kAssimpTrialEnvironment); }
  } unset;
  ::unsetenv(kAssimpTrialEnvironment);
  const AssimpTrialProgram built = find_assimp_trial_program();
  ASSERT_FALSE(built.path.empty()) << built.looked;
  EXPECT_EQ(built.path.filename(), "animpack-assimp-trial");
  // Run by hand it wants exactly one file.
  const int usage = std::system(("'" + built.path.string() + "' 2>/dev/null").c_str());
  ASSERT_TRUE(WIFEXITED(usage));
  EXPECT_EQ(WEXITSTATUS(usage), 2);

  const fs::path dir = temp_folder("trial");
  const fs::path dae = dir / "rig.dae";
  export_model(kCorpus / "gltf/RiggedSimple/glTF/RiggedSimple.gltf", "collada", dae);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(import_assimp(dae, "m", "rig.dae").ok());

  // Reads `dae` with ANIMPACK_ASSIMP_TRIAL=program; the first error's message.
  const auto read_with = [&](const fs::path& program) {
    ::setenv(kAssimpTrialEnvironment, program.c_str(), 1);
    const ImportedModel model = import_assimp(dae, "m", "rig.dae");
    ::unsetenv(kAssimpTrialEnvironment);
    EXPECT_EQ(first_error(model), "ASSIMP_READ_FAILED");
    return model.issues.empty() ? std::string() : model.issues[0].message;
  };
  const auto script = [&](const char* name, const std::string& body) {
    const fs::path file = dir / name;
    std::ofstream(file) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(file, fs::perms::owner_all);
    return file;
  };

  const std::string missing = read_with(dir / "no-such-program");
  EXPECT_NE(missing.find("animpack-assimp-trial was not found"), std::string::npos) << missing;
  EXPECT_NE(missing.find("ANIMPACK_ASSIMP_TRIAL=" + (dir / "no-such-program").string()),
            std::string::npos)
      << missing;

  const fs::path plain = dir / "plain";
  std::ofstream(plain) << "#!/bin/sh\n";
  fs::permissions(plain, fs::perms::owner_read | fs::perms::owner_write);
  const std::string not_executable = read_with(plain);
  EXPECT_NE(not_executable.find(plain.string() + " (not executable)"), std::string::npos)
      << not_executable;

  const std::string crashed = read_with(script("crash", "echo \"reading $1\"; kill -SEGV $$"));
  EXPECT_NE(crashed.find("Assimp crashed reading the file (signal 11): reading " + dae.string()),
            std::string::npos)
      << crashed;
  const std::string over = read_with(script("cpu", "echo spinning; kill -XCPU $$"));
  EXPECT_NE(over.find("Assimp ran past its CPU time limit: spinning"), std::string::npos) << over;
  const std::string aborted =
      read_with(script("abort", "echo 'assertion failed' >&2; kill -ABRT $$"));
  EXPECT_NE(aborted.find("Assimp aborted reading the file (a failed assertion): assertion failed"),
            std::string::npos)
      << aborted;
  const std::string odd = read_with(script("odd", "echo odd; exit 9"));
  EXPECT_NE(odd.find(" ended with status 9: odd"), std::string::npos) << odd;
  const std::string null_scene = read_with(script("null", "echo 'no scene here'; exit 3"));
  EXPECT_NE(null_scene.find("no scene here"), std::string::npos) << null_scene;

  // A program that reads the file says so, and the import goes on to read it itself.
  ::setenv(kAssimpTrialEnvironment, script("fine", "exit 0").c_str(), 1);
  EXPECT_TRUE(import_assimp(dae, "m", "rig.dae").ok());
  ::unsetenv(kAssimpTrialEnvironment);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace animpack
