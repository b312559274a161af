// What the cooker's stages hand to the pack writer: plain structs (STYLE L3), built from
// the runtime's own types so that what is written is what the runtime validates.
//
//   animpack::CookedPack pack;
//   pack.rigs.push_back(std::move(cooked_rig));
//   pack.meshes.push_back(std::move(cooked_mesh));
//   std::vector<uint8_t> bytes = animpack::write_pack(pack);   // pack_writer.h
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/bounds.h"
#include "animpack/graph.h"
#include "animpack/ik.h"
#include "animpack/material.h"
#include "animpack/math.h"
#include "animpack/morph.h"
#include "animpack/rig.h"
#include "animpack/root_motion.h"
#include "animpack/skinning.h"
#include "animpack/sprite.h"

namespace animpack {

// One morph target of a part: deltas in the part's vertex order (the same order and space
// as CookedPart::positions: moved by the same matrix's 3x3 when the part's vertices are,
// normal deltas by its inverse transpose; normal and tangent deltas are also divided by
// the length of their vertex's moved base vector, so that renormalising after the morph
// gives the moved morphed direction exactly: import_gltf.h), each empty or one per
// position.
struct CookedMorphTarget {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;
  std::vector<Vec3> tangents;
};

// One glTF primitive as triangles. Skinned parts (joints and weights given) keep their
// bind-space vertices; node-rig parts (joint >= 0) are in their node's space and move with
// that joint; other parts are static, in the model's space.
struct CookedPart {
  int source_node = -1;
  int source_mesh = -1;
  int source_primitive = -1;
  int joint = -1;  // node rigs: the rig joint that carries this part
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;         // empty or one per position
  std::vector<Vec4> tangents;        // empty or one per position
  std::vector<JointIndices> joints;  // empty or one per position, rig joint indices
  std::vector<Vec4> weights;         // empty or one per position, summing to one
  // Influences 5 to 8 (JOINTS_1/WEIGHTS_1): empty, or one per position each; the eight
  // weights of a vertex then sum to one (max_influences = 4 folds them away).
  std::vector<JointIndices> joints1;
  std::vector<Vec4> weights1;
  // Morph targets: morph_set indexes the rig's Rig::morph_sets() (the part's node's set),
  // -1 for none; then morph_targets has that set's size() entries.
  int morph_set = -1;
  std::vector<CookedMorphTarget> morph_targets;
  std::vector<uint32_t> indices;          // triangles, each < positions.size()
  std::vector<uint32_t> source_vertices;  // one per position: its index in the source accessor
  std::vector<Vec2> texcoords0;           // empty or one per position (TEXCOORD_0)
  std::vector<Vec2> texcoords1;           // empty or one per position (TEXCOORD_1)
  std::vector<Vec4> colors;               // empty or one per position (COLOR_0, RGBA)
  int material = -1;  // index in CookedPack::materials, or -1 (glTF's default material)
  bool normals_generated = false;   // flat normals made here (vertices unwelded)
  bool tangents_generated = false;  // tangents made here for a normal map
};

// A rig with what the source file called its parts.
// Morph sets, when any, are in rig.morph_sets() (the rig is built with them).
struct CookedRig {
  Rig rig;
  std::vector<int> joint_source_nodes;      // one per joint (a helper joint of a second
                                            // skin: its joint's node; import_gltf.h)
  std::vector<int> clip_source_animations;  // one per clip
  std::vector<int> morph_source_nodes;      // one per morph set: the glTF node
  bool node_rig = false;
};

// One scene [[mesh]]: every primitive of its file's default scene.
struct CookedMesh {
  std::string name;
  std::string source_file;  // as the scene names it
  std::vector<CookedPart> parts;
  int rig = -1;  // index in CookedPack::rigs, or -1
  // Bounds (bounds.h), computed from the parts by compute_mesh_bounds (mesh_bounds.h)
  // before writing: bind is empty only for a mesh without parts.
  Box bind_bounds;
  Box static_bounds;                      // empty when every part moves with a joint
  std::vector<JointBounds> joint_bounds;  // ascending joints
  // The mesh's axes (the scene's `up` and `forward`, default glTF's), unit, perpendicular.
  Vec3 up{0, 1, 0};
  Vec3 forward{0, 0, 1};
};

// A material as the pack stores it (material.h's MaterialInfo, owning its strings).
// TextureSlot::texture indexes CookedPack::textures.
struct CookedMaterial {
  std::string name;
  std::string source_file;  // the glTF as the scene names it
  MaterialInfo info;        // name and source_file views are ignored by the writer
};

// One distinct decoded image.
struct CookedTexture {
  std::string source_file;  // the first file using it, as the scene names it (or the
                            // image file relative to the scene)
  int source_image = -1;    // index in that glTF's images, or -1
  std::string mime_type;    // image/png or image/jpeg
  uint32_t width = 0, height = 0;
  ColorSpace color_space = ColorSpace::kSrgb;
  std::vector<uint8_t> rgba;  // width * height * 4 bytes, rows top first
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
  // The state machine and layers ([object.animation] parameters, states, transitions,
  // layers), resolved against the object's mesh rig (whose clips include the additive
  // versions its layers play); absent when the scene gives none.
  std::optional<GraphDef> graph;
  // [object.animation.root_motion], resolved (joint index; up and forward from the mesh):
  // absent or policy kOff when the scene gives none. With kAccumulate, root_tracks holds
  // one baked track per clip of the mesh rig (bake_root_motion; additive clips' empty);
  // with kInPlace it is empty.
  std::optional<RootMotionConfig> root_motion;
  std::vector<std::vector<RootMotionSample>> root_tracks;
  // [[object.animation.ik]], resolved against the mesh rig, in the scene's order (angles
  // in radians).
  std::vector<IkSolverDef> ik;
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
  std::vector<CookedMaterial> materials;
  std::vector<CookedTexture> textures;  // each distinct (pixels, colour space) once
};

}  // namespace animpack
