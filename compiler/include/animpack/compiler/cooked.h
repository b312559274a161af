// What the cooker's stages hand to the pack writer: plain structs (STYLE L3), built from
// the runtime's own types so that what is written is what the runtime validates.
//
//   animpack::CookedPack pack;
//   pack.rigs.push_back(std::move(cooked_rig));
//   pack.meshes.push_back(std::move(cooked_mesh));
//   std::vector<uint8_t> bytes = animpack::write_pack(pack);   // pack_writer.h
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/math.h"
#include "animpack/rig.h"
#include "animpack/skinning.h"
#include "animpack/sprite.h"

namespace animpack {

// One glTF primitive as triangles. Skinned parts (joints and weights given) keep their
// bind-space vertices; node-rig parts (joint >= 0) are in their node's space and move with
// that joint; other parts are static, in the model's space.
struct CookedPart {
  int source_node = -1;
  int source_mesh = -1;
  int source_primitive = -1;
  int joint = -1;  // node rigs: the rig joint that carries this part
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;              // empty or one per position
  std::vector<Vec4> tangents;             // empty or one per position
  std::vector<JointIndices> joints;       // empty or one per position, rig joint indices
  std::vector<Vec4> weights;              // empty or one per position, summing to one
  std::vector<uint32_t> indices;          // triangles, each < positions.size()
  std::vector<uint32_t> source_vertices;  // one per position: its index in the source accessor
};

// A rig with what the source file called its parts.
struct CookedRig {
  Rig rig;
  std::vector<int> joint_source_nodes;      // one per joint
  std::vector<int> clip_source_animations;  // one per clip
  bool node_rig = false;
};

// One scene [[mesh]]: every primitive of its file's default scene.
struct CookedMesh {
  std::string name;
  std::string source_file;  // as the scene names it
  std::vector<CookedPart> parts;
  int rig = -1;  // index in CookedPack::rigs, or -1
};

// One sprite atlas with its clips and its pixels (RGBA8, rows top to bottom).
struct CookedSheet {
  std::string source_file;  // as the scene names it
  SpriteSheet sheet;
  std::vector<uint8_t> rgba;  // empty when pixels_of names the sheet holding them
  // -1, or the index of an earlier sheet of the same atlas file whose pixels this one
  // shares: the pack stores each distinct atlas once.
  int pixels_of = -1;
};

// An event an object's animation puts on one of its clips.
struct CookedEvent {
  std::string name;
  uint16_t clip = 0;   // rig clip or sprite clip index
  float time = 0;      // skeletal: seconds
  uint32_t frame = 0;  // sprite: index within the clip
};

// An object's [object.animation].
struct CookedAnimation {
  int clip = -1;                  // -1: nothing named (blend may still be given)
  std::vector<BlendEntry> blend;  // rig clip indices and weights
  float speed = 1.0f;
  Playback playback = Playback::kLoop;
  float start = 0.0f;
  std::vector<CookedEvent> events;
  int sprite_sheet = -1;  // index in CookedPack::sheets for a sprite object
};

struct CookedObject {
  std::string name;
  int mesh = -1;
  std::string material;
  bool face_camera = false;
  std::string content;
  Vec3 position;
  Quat rotation;
  Vec3 scale{1, 1, 1};
  bool animated = false;  // animation holds [object.animation]
  CookedAnimation animation;
};

struct CookedPack {
  std::vector<CookedMesh> meshes;
  std::vector<CookedRig> rigs;
  std::vector<CookedSheet> sheets;
  std::vector<CookedObject> objects;
};

}  // namespace animpack
