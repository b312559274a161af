// A small walking character for the root motion tests, generated in code.
//
//   animpack::Rig rig = animpack::root_motion_rig::make_rig();
//
// Joints (parents first): 0 Root (top, at rest at the origin, or turned and scaled by
// make_rig(parent)), 1 Hips (the root joint, at (0, 1, 0)), 2 Spine, 3 LFoot and
// 4 RFoot (under Hips, at (+-0.1, -1, 0): on the ground at rest).
// Ordinary clips, all LINEAR, whole numbers of 60 Hz ticks:
//   "Walk"      (1.0 s) Hips forward 1.2 m along +z with a bob (y 1 -> 1.05 -> 1), Spine
//                       rocking about x.
//   "Strafe"    (0.5 s) Hips 0.5 m along +x, y still.
//   "Turn"      (1.0 s) Hips turning a quarter turn about +y (to the left of +z, towards
//                       +x) while moving 1 m along +z.
//   "Treadmill" (1.0 s) Hips still; each foot planted for half the cycle, moving back
//                       along -z at kTreadmillSpeed, then lifted and carried forward.
//   "Far"       (1.0 s) Hips 40000 m along +x (more than a track holds).
// Additive clip: "Sway" (first_frame), Spine rocking about z.
#pragma once

#include <utility>
#include <vector>

#include "animpack/layers.h"
#include "animpack/rig.h"

namespace animpack::root_motion_rig {

enum Joint : uint16_t { kRoot, kHips, kSpine, kLFoot, kRFoot };
inline constexpr int kJoints = 5;
inline constexpr float kTreadmillSpeed = 1.2f;  // metres a second, planted foot

inline Trs at(Vec3 t, Quat r = {}, Vec3 s = {1, 1, 1}) { return Trs{t, r, s}; }

inline Skeleton make_skeleton(const Trs& root_rest = {}) {
  std::vector<animpack::Joint> j = {{"Root", -1, root_rest},
                                    {"Hips", 0, at({0, 1, 0})},
                                    {"Spine", 1, at({0, 0.3f, 0})},
                                    {"LFoot", 1, at({0.1f, -1, 0})},
                                    {"RFoot", 1, at({-0.1f, -1, 0})}};
  return std::move(*Skeleton::create(std::move(j), {}, Mat4{}));
}

inline void add_translation(Clip& c, uint16_t joint, const std::vector<float>& times,
                            const std::vector<float>& values) {
  c.add_channel(joint, Property::kTranslation, Interpolation::kLinear, times, values);
}

inline void add_rotation(Clip& c, uint16_t joint, Vec3 axis, const std::vector<float>& times,
                         const std::vector<float>& angles) {
  std::vector<float> v;
  for (float a : angles) {
    const Quat q = quat_from_axis_angle(axis, a);
    v.insert(v.end(), {q.x, q.y, q.z, q.w});
  }
  c.add_channel(joint, Property::kRotation, Interpolation::kLinear, times, v);
}

inline std::vector<Clip> make_clips() {
  std::vector<Clip> clips;
  {
    Clip c("Walk");
    add_translation(c, kHips, {0, 0.5f, 1}, {0, 1, 0, 0, 1.05f, 0.6f, 0, 1, 1.2f});
    add_rotation(c, kSpine, {1, 0, 0}, {0, 0.5f, 1}, {0, 0.1f, 0});
    clips.push_back(std::move(c));
  }
  {
    Clip c("Strafe");
    add_translation(c, kHips, {0, 0.5f}, {0, 1, 0, 0.5f, 1, 0});
    clips.push_back(std::move(c));
  }
  {
    Clip c("Turn");
    add_translation(c, kHips, {0, 1}, {0, 1, 0, 0, 1, 1});
    add_rotation(c, kHips, {0, 1, 0}, {0, 0.25f, 0.5f, 0.75f, 1},
                 {0, 0.39269908f, 0.78539816f, 1.17809725f, 1.57079633f});
    clips.push_back(std::move(c));
  }
  {
    // A foot planted on the ground (y -1 below the hips) moves back 0.6 m in half a
    // second (1.2 m/s), then lifts (y -0.8) and comes forward; the other foot half a
    // cycle later.
    Clip c("Treadmill");
    add_translation(c, kHips, {0, 1}, {0, 1, 0, 0, 1, 0});
    add_translation(c, kLFoot, {0, 0.5f, 0.75f, 1},
                    {0.1f, -1, 0.3f, 0.1f, -1, -0.3f, 0.1f, -0.8f, 0, 0.1f, -1, 0.3f});
    add_translation(c, kRFoot, {0, 0.25f, 0.5f, 1},
                    {-0.1f, -1, -0.3f, -0.1f, -0.8f, 0, -0.1f, -1, 0.3f, -0.1f, -1, -0.3f});
    clips.push_back(std::move(c));
  }
  {
    Clip c("Far");
    add_translation(c, kHips, {0, 1}, {0, 1, 0, 40000, 1, 0});
    clips.push_back(std::move(c));
  }
  {
    Clip sway("Sway");
    add_rotation(sway, kSpine, {0, 0, 1}, {0, 0.5f, 1}, {0, 0.2f, 0});
    const Skeleton s = make_skeleton();
    clips.push_back(std::move(*make_additive_clip(sway, s, AdditiveReference::kFirstFrame)));
  }
  return clips;
}

inline Rig make_rig(const Trs& root_rest = {}) {
  return std::move(*Rig::create(make_skeleton(root_rest), make_clips()));
}

}  // namespace animpack::root_motion_rig
