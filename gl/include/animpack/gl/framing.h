// A camera framed on a box, and the world box of what a posed snapshot draws: the render
// sample and the viewer frame what they show with these.
//
//   animpack::Box shown;                                    // over every frame shown
//   for (...) {
//     player.step();
//     shown = animpack::gl::merge_boxes(shown, *animpack::gl::world_box(player));
//   }
//   animpack::Camera camera = animpack::gl::frame_box(shown, 640.0f / 360.0f);
//
// world_box() takes each object's ScenePlayer::world_bounds (conservative, from the
// pack's joint boxes, without skinning a vertex); posed_box() skins every vertex on the
// CPU and is exact (and works for version 1 packs, which store no bounds).
#pragma once

#include "animpack/bounds.h"
#include "animpack/camera.h"
#include "animpack/math.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/result.h"
#include "animpack/scene_player.h"

namespace animpack::gl {

struct FramingOptions {
  Vec3 direction{0.0f, 0.35f, 1.0f};  // from the box centre towards the eye (not along up)
  float fov_y = 0.8f;                 // radians, in (0, pi)
  float margin = 1.05f;               // the distance over the least that fits, >= 1
};

// animpack::camera_for_box (camera.h, shared with the tracer) looking from options.direction
// with +y up: every corner of the box inside the image of aspect `aspect` (width /
// height), `margin` times farther than the nearest such eye, near and far holding the box.
// An empty or non-finite box, a non-positive or non-finite aspect, a direction along +y
// or zero, or bad options give Camera{}.
Camera frame_box(const Box& box, float aspect, const FramingOptions& options = {});

// The union of two boxes (an empty one adds nothing).
Box merge_boxes(const Box& a, const Box& b);

// The world box of the snapshot's vertices: skinned parts skinned on the CPU by their
// palette (the bind pose without one), node-rig parts placed by model * palette[joint],
// other parts by model; a sprite object without a mesh a unit cube about its origin.
// Objects or parts that do not fit the pack (or fail to decode) are skipped; nothing
// drawn gives the empty box.
Box posed_box(const Pack& pack, const Posed& posed);

// The union of ScenePlayer::world_bounds over the player's objects at its tick (objects
// that show nothing add nothing). The first object's error when one fails (kBadPack for
// a version 1 pack: use posed_box()).
Result<Box> world_box(const ScenePlayer& player);

}  // namespace animpack::gl
