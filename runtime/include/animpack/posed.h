// A posed snapshot: everything a renderer or the tracer needs to draw a scene at one
// tick, and nothing it must compute itself. Produced by the scene player (posed()); drawn
// by gl/ (GPU skinning) and tracer/ (CPU skinning + ray tracing) alike, so the two can be
// held to each other.
//
//   animpack::Posed posed = player.posed(&camera);
//   for (const animpack::PosedObject& o : posed.objects) draw(o.model, o.palette, ...);
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "animpack/math.h"

namespace animpack {

// One object of the pack at the snapshot's tick.
struct PosedObject {
  int object = -1;  // index in Pack::objects()
  int mesh = -1;    // index in Pack::meshes(), or -1 (a sprite without a card)
  // The object's matrix: T * R * S from its scene transform; for a face_camera object,
  // turned about its position to face the camera the snapshot was taken for.
  Mat4 model;
  // The object's joint palette (rig joints, global x inverse bind) when its mesh has a
  // rig; empty otherwise. Skinned parts are skinned by it; a node rig's part k is placed
  // by palette[part.joint] (then model).
  std::span<const Mat4> palette;
  // The palette of the previous tick (for motion vectors); equal to palette at tick 0.
  std::span<const Mat4> previous_palette;
  // Morph weights (pack format 5) of the object's mesh rig, flat over its morph sets
  // (Rig::morph_sets(): set s at [first, first + size())); empty without morph sets. A
  // part with PartInfo::morph_set >= 0 is morphed by the set's weights before skinning.
  std::span<const float> morph_weights;
  int sprite_sheet = -1;      // index in Pack::sprite_sheets() for a sprite object
  uint32_t sprite_frame = 0;  // the atlas frame it shows
};

// The snapshot. Spans point into the scene player and stay valid until its next step().
struct Posed {
  int64_t tick = 0;
  std::vector<PosedObject> objects;  // in pack object order
  // The sub-tick fraction the poses show (ScenePlayer::evaluate_render): they are at
  // tick + fraction; 0 for a tick's poses.
  float fraction = 0.0f;
};

}  // namespace animpack
