// An independent cross-check of the import against Assimp 5.2's glTF 2.0 importer on five
// valid corpus models (Assimp's ai_assert is live in Debian's build, so it only ever sees
// valid files). Compared: the vertex count of every primitive; the skin's bone names in
// skin order against our skin joints' names; each bone's mOffsetMatrix against our inverse
// bind; every vertex's influences against ours (remapped and normalised); animation names
// and durations; the animated nodes and every key's time and value.
//
// Assimp losses worked around here (docs/design-notes.md, "Assimp"), none of which the import
// relies on (it reads our own reader's output):
// - node hierarchy: unnamed glTF nodes are named "nodes[<index>]" by Assimp, so bone names
//   are compared against that spelling where the glTF has no name (we name them
//   "node_<index>"); a scene with several roots gets a synthetic "ROOT" node;
// - meshes: one aiMesh per primitive in an order of Assimp's own, so they are found through
//   the node that uses them (aiNode::mMeshes lists its mesh's primitives in order);
// - bones: every skin joint is a bone of every primitive, a bone without influence gets a
//   dummy {vertex 0, weight 0}, and weights are per bone and not normalised: zero weights
//   are ignored and each vertex's weights are normalised before comparing;
// - mOffsetMatrix is the inverse bind matrix transposed (row-major aiMatrix4x4);
// - animations: times are in milliseconds (mTicksPerSecond 1000), interpolations and cubic
//   tangents are lost (only each cubic key's value is kept), a node's channels are merged
//   into one aiNodeAnim padded with rest keys for the paths it does not animate: keys are
//   compared path by path for the paths we have a channel for; an unnamed glTF animation
//   is named "" by Assimp (we say "animation_<index>"), so it is compared by index only.
// Texture V flips and the mis-assigned bones of a mesh instanced with two skins do not
// arise in what is compared here.

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <gtest/gtest.h>

#include <assimp/Importer.hpp>
#include <map>
#include <set>

#include "animpack/compiler/import_gltf.h"
#include "import_support.h"

namespace animpack {
namespace {

using namespace import_test;  // NOLINT(build/namespaces): test helpers

const aiNode* find_node(const aiNode* node, const std::string& name) {
  if (name == node->mName.C_Str()) return node;
  for (unsigned c = 0; c < node->mNumChildren; ++c) {
    if (const aiNode* found = find_node(node->mChildren[c], name)) return found;
  }
  return nullptr;
}

// The name Assimp gives glTF node n.
std::string assimp_node_name(const GltfDocument& doc, int n) {
  const std::string& name = doc.nodes[static_cast<size_t>(n)].name;
  return name.empty() ? "nodes[" + std::to_string(n) + "]" : name;
}

class AssimpCrossCheck : public ::testing::TestWithParam<const char*> {};

TEST_P(AssimpCrossCheck, AgreesWithAssimpOnIndependentFacts) {
  const fs::path file = kCorpus / GetParam();
  const GltfDocument doc = read_gltf(file);
  ASSERT_TRUE(doc.ok()) << describe(doc);
  const ImportedModel model = import_gltf(doc, "model", file.string());
  ASSERT_TRUE(model.ok()) << describe(model.issues);
  ASSERT_TRUE(model.rig.has_value());
  const Skeleton& skeleton = model.rig->rig.skeleton();

  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(file.string(), aiProcess_Triangulate);
  ASSERT_NE(scene, nullptr) << importer.GetErrorString();

  std::map<int, int> joint_of;  // glTF node -> our rig joint
  for (size_t k = 0; k < model.rig->joint_source_nodes.size(); ++k) {
    joint_of[model.rig->joint_source_nodes[k]] = static_cast<int>(k);
  }

  int skinned_parts = 0;
  for (const CookedPart& part : model.mesh.parts) {
    SCOPED_TRACE("node " + std::to_string(part.source_node));
    const aiNode* node = find_node(scene->mRootNode, assimp_node_name(doc, part.source_node));
    ASSERT_NE(node, nullptr);
    ASSERT_LT(static_cast<unsigned>(part.source_primitive), node->mNumMeshes);
    const aiMesh* mesh = scene->mMeshes[node->mMeshes[part.source_primitive]];
    // Per primitive: the vertex count (no vertex merged, none reordered; a primitive
    // without NORMAL is unwelded, one vertex per corner, each naming its source vertex).
    const GltfPrimitive& prim = doc.meshes[static_cast<size_t>(part.source_mesh)]
                                    .primitives[static_cast<size_t>(part.source_primitive)];
    EXPECT_EQ(mesh->mNumVertices, prim.vertex_count);
    EXPECT_EQ(part.positions.size(),
              part.normals_generated ? part.indices.size() : prim.vertex_count);
    EXPECT_EQ(mesh->mNumFaces * 3, part.indices.size());

    const int skin_index = doc.nodes[static_cast<size_t>(part.source_node)].skin;
    if (skin_index < 0) continue;
    ++skinned_parts;
    const GltfSkin& skin = doc.skins[static_cast<size_t>(skin_index)];
    ASSERT_EQ(mesh->mNumBones, skin.joints.size());
    std::vector<std::map<int, double>> influences(prim.vertex_count);  // rig joint -> weight
    for (unsigned b = 0; b < mesh->mNumBones; ++b) {
      const aiBone* bone = mesh->mBones[b];
      const int joint = joint_of.at(skin.joints[b]);
      // Bone names in skin order = our skin joints' names.
      const std::string ours = skeleton.joints()[static_cast<size_t>(joint)].name;
      const std::string expected = doc.nodes[static_cast<size_t>(skin.joints[b])].name.empty()
                                       ? assimp_node_name(doc, skin.joints[b])
                                       : ours;
      EXPECT_EQ(bone->mName.C_Str(), expected) << "bone " << b;
      // mOffsetMatrix (row-major) transposed = our inverse bind (column-major).
      const Mat4& ibm = skeleton.inverse_binds()[static_cast<size_t>(joint)];
      for (unsigned r = 0; r < 4; ++r) {
        for (unsigned c = 0; c < 4; ++c) {
          EXPECT_EQ(bone->mOffsetMatrix[r][c], ibm.m[c * 4 + r]) << "bone " << b << " " << r << c;
        }
      }
      for (unsigned w = 0; w < bone->mNumWeights; ++w) {
        const aiVertexWeight& vw = bone->mWeights[w];
        if (vw.mWeight == 0.0f) continue;  // Assimp's dummy weight for an unused bone
        ASSERT_LT(vw.mVertexId, influences.size());
        influences[vw.mVertexId][joint] += vw.mWeight;
      }
    }
    // Every vertex's influences, remapped to rig joints and normalised, agree with ours.
    for (size_t v = 0; v < part.positions.size(); ++v) {
      const std::map<int, double>& theirs = influences[part.source_vertices[v]];
      double sum = 0;
      for (const auto& [joint, weight] : theirs) sum += weight;
      ASSERT_GT(sum, 0.0) << "vertex " << v;
      std::map<int, double> ours;
      const float* w = &part.weights[v].x;
      for (int k = 0; k < 4; ++k) {
        if (w[k] != 0.0f) ours[part.joints[v].j[k]] += w[k];
      }
      ASSERT_EQ(ours.size(), theirs.size()) << "vertex " << v;
      for (const auto& [joint, weight] : theirs) {
        ASSERT_EQ(ours.count(joint), 1u) << "vertex " << v << " joint " << joint;
        EXPECT_NEAR(ours[joint], weight / sum, 1e-6) << "vertex " << v << " joint " << joint;
      }
    }
  }
  EXPECT_GE(skinned_parts, 1);

  // Animations: names and durations (Assimp counts milliseconds).
  const Rig& rig = model.rig->rig;
  ASSERT_EQ(scene->mNumAnimations, static_cast<unsigned>(rig.clip_count()));
  for (unsigned a = 0; a < scene->mNumAnimations; ++a) {
    const aiAnimation* anim = scene->mAnimations[a];
    const Clip& clip = rig.clips()[a];
    const int source = model.rig->clip_source_animations[a];
    EXPECT_EQ(source, static_cast<int>(a));
    if (!doc.animations[static_cast<size_t>(source)].name.empty()) {
      EXPECT_EQ(anim->mName.C_Str(), clip.name());
    }
    EXPECT_EQ(anim->mTicksPerSecond, 1000.0);
    EXPECT_NEAR(anim->mDuration / 1000.0, clip.duration(), 1e-6 * std::max(1.0f, clip.duration()))
        << clip.name();
    // Assimp groups a node's channels into one aiNodeAnim: the animated nodes agree, and
    // every key we keep is one of Assimp's (its time in ms, its value the key's value; for
    // CUBICSPLINE the middle of the in-tangent, value, out-tangent triple).
    std::map<std::string, const aiNodeAnim*> by_node;
    for (unsigned c = 0; c < anim->mNumChannels; ++c) {
      by_node[anim->mChannels[c]->mNodeName.C_Str()] = anim->mChannels[c];
    }
    std::set<std::string> ours;
    for (const Channel& ch : clip.channels()) {
      const int node = model.rig->joint_source_nodes[ch.joint];
      const std::string name = assimp_node_name(doc, node);
      ours.insert(name);
      ASSERT_EQ(by_node.count(name), 1u) << name;
      const aiNodeAnim* na = by_node[name];
      const size_t keys = ch.times.size();
      const size_t stride = static_cast<size_t>(property_width(ch.property)) *
                            (ch.interpolation == Interpolation::kCubicSpline ? 3 : 1);
      const size_t offset = ch.interpolation == Interpolation::kCubicSpline
                                ? static_cast<size_t>(property_width(ch.property))
                                : 0;
      for (size_t k = 0; k < keys; ++k) {
        const float* v = &ch.values[k * stride + offset];
        double time = 0;
        bool same = false;
        switch (ch.property) {
          case Property::kTranslation:
            ASSERT_EQ(na->mNumPositionKeys, keys) << name;
            time = na->mPositionKeys[k].mTime;
            same = na->mPositionKeys[k].mValue == aiVector3D(v[0], v[1], v[2]);
            break;
          case Property::kScale:
            ASSERT_EQ(na->mNumScalingKeys, keys) << name;
            time = na->mScalingKeys[k].mTime;
            same = na->mScalingKeys[k].mValue == aiVector3D(v[0], v[1], v[2]);
            break;
          case Property::kRotation:
            ASSERT_EQ(na->mNumRotationKeys, keys) << name;
            time = na->mRotationKeys[k].mTime;
            same = na->mRotationKeys[k].mValue == aiQuaternion(v[3], v[0], v[1], v[2]);
            break;
          case Property::kWeights:
            ADD_FAILURE() << name << ": a weights channel on a joint";
            break;
        }
        EXPECT_TRUE(same) << name << " " << property_name(ch.property) << " key " << k;
        EXPECT_NEAR(time / 1000.0, ch.times[k], 1e-6 * std::max(1.0f, ch.times[k]))
            << name << " key " << k;
      }
    }
    EXPECT_EQ(ours.size(), by_node.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, AssimpCrossCheck,
                         ::testing::Values("gltf/RiggedSimple/glTF/RiggedSimple.gltf",
                                           "gltf/RiggedFigure/glTF/RiggedFigure.gltf",
                                           "gltf/CesiumMan/glTF-Embedded/CesiumMan.gltf",
                                           "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
                                           "gltf/Fox/glTF/Fox.gltf", "gltf/Fox/glTF-Binary/Fox.glb",
                                           "gltf/SimpleSkin/glTF/SimpleSkin.gltf"));

}  // namespace
}  // namespace animpack
