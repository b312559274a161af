// A small branching character for the layer, mask, additive and synced-mix tests.
//
//   animpack::Rig rig = animpack::layer_rig::make_rig();
//
// Joints (parents first): 0 Hips (root, at y 1), 1 Spine, 2 Spine2, 3 Neck, 4 Head,
// 5 LArm, 6 RArm (both under Spine2), 7 LLeg, 8 RLeg (under Hips). Spine rests turned
// 0.1 rad about x; the others rest unturned.
// Ordinary clips (durations in seconds):
//   "Walk"    (1.0) every joint's rotation LINEAR about z, Hips translation LINEAR;
//                   events "step_l" at 0.25 and "step_r" at 0.75.
//   "Run"     (0.7) every joint's rotation LINEAR about x; events "land" at 0 and
//                   "stride" at 0.35.
//   "Wave"    (1.0) LArm, RArm, Head and Hips rotation LINEAR about y, Neck translation;
//                   event "wave" at 0.5.
//   "Breathe" (2.0) Spine rotation LINEAR about x (0.3, 0.5, 0.3 rad), Spine2 translation,
//                   Head scale; event "inhale" at 1.
//   "Still"   (1.0) Hips translation, Spine rotation and Head scale keyed at their rest
//                   values; event "still" at 0.5.
//   "Turn"    (1.0) Neck rotation 0.8 rad about y, Spine2 translation (1, 2, 3), Head
//                   scale (2, 2, 2), each two equal keys.
//   "Curve"   (1.0) Neck rotation and Spine2 translation CUBICSPLINE, three keys with
//                   non-zero tangents.
//   "Pose"    (0)   one Hips translation key at 0.
// Additive clips (same names): "Breathe" (first_frame), "Still" (rest_pose), "Turn"
// (rest_pose), "Curve" (first_frame).
#pragma once

#include <cmath>
#include <utility>
#include <vector>

#include "animpack/layers.h"
#include "animpack/rig.h"

namespace animpack::layer_rig {

inline constexpr int kJoints = 9;
enum Joint : uint16_t { kHips, kSpine, kSpine2, kNeck, kHead, kLArm, kRArm, kLLeg, kRLeg };

inline Quat about(Vec3 axis, float angle) { return quat_from_axis_angle(axis, angle); }

inline Trs at(Vec3 t, Quat r = {}) { return Trs{t, r, {1, 1, 1}}; }

inline Skeleton make_skeleton() {
  std::vector<animpack::Joint> j = {
      {"Hips", -1, at({0, 1, 0})},       {"Spine", 0, at({0, 0.2f, 0}, about({1, 0, 0}, 0.1f))},
      {"Spine2", 1, at({0, 0.2f, 0})},   {"Neck", 2, at({0, 0.2f, 0})},
      {"Head", 3, at({0, 0.1f, 0})},     {"LArm", 2, at({0.2f, 0, 0})},
      {"RArm", 2, at({-0.2f, 0, 0})},    {"LLeg", 0, at({0.1f, -0.1f, 0})},
      {"RLeg", 0, at({-0.1f, -0.1f, 0})}};
  return std::move(*Skeleton::create(std::move(j), {}, Mat4{}));
}

inline void add_rotation(Clip& c, uint16_t joint, Vec3 axis, const std::vector<float>& times,
                         const std::vector<float>& angles) {
  std::vector<float> v;
  for (float a : angles) {
    const Quat q = about(axis, a);
    v.insert(v.end(), {q.x, q.y, q.z, q.w});
  }
  c.add_channel(joint, Property::kRotation, Interpolation::kLinear, times, v);
}

inline Rig make_rig() {
  const Skeleton skeleton = make_skeleton();
  std::vector<Clip> clips;
  {
    Clip c("Walk");
    const std::vector<float> t = {0, 0.25f, 0.5f, 0.75f, 1.0f};
    for (uint16_t j = 0; j < kJoints; ++j) {
      const float a = 0.1f * static_cast<float>(j + 1);
      add_rotation(c, j, {0, 0, 1}, t, {0, a, 0, -a, 0});
    }
    c.add_channel(
        kHips, Property::kTranslation, Interpolation::kLinear, t,
        std::vector<float>{0, 1, 0, 0.1f, 1.05f, 0, 0.2f, 1, 0, 0.3f, 1.05f, 0, 0.4f, 1, 0});
    c.add_event("step_l", 0.25f);
    c.add_event("step_r", 0.75f);
    clips.push_back(std::move(c));
  }
  {
    Clip c("Run");
    const std::vector<float> t = {0, 0.35f, 0.7f};
    for (uint16_t j = 0; j < kJoints; ++j) {
      add_rotation(c, j, {1, 0, 0}, t, {0.2f, -0.05f * static_cast<float>(j + 1), 0.2f});
    }
    c.add_event("land", 0.0f);
    c.add_event("stride", 0.35f);
    clips.push_back(std::move(c));
  }
  {
    Clip c("Wave");
    const std::vector<float> t = {0, 0.5f, 1.0f};
    for (uint16_t j : {kLArm, kRArm, kHead, kHips}) add_rotation(c, j, {0, 1, 0}, t, {0, 1, 0});
    c.add_channel(kNeck, Property::kTranslation, Interpolation::kLinear, t,
                  std::vector<float>{0, 0.2f, 0, 0.05f, 0.25f, 0, 0, 0.2f, 0});
    c.add_event("wave", 0.5f);
    clips.push_back(std::move(c));
  }
  {
    Clip c("Breathe");
    const std::vector<float> t = {0, 1, 2};
    add_rotation(c, kSpine, {1, 0, 0}, t, {0.3f, 0.5f, 0.3f});
    c.add_channel(kSpine2, Property::kTranslation, Interpolation::kLinear, t,
                  std::vector<float>{0, 0.2f, 0, 0, 0.3f, 0.05f, 0, 0.2f, 0});
    c.add_channel(kHead, Property::kScale, Interpolation::kLinear, t,
                  std::vector<float>{1, 1, 1, 1.1f, 1.2f, 1.1f, 1, 1, 1});
    c.add_event("inhale", 1.0f);
    clips.push_back(std::move(c));
  }
  {
    Clip c("Still");
    const std::vector<float> t = {0, 1};
    const Trs& hips = skeleton.rest_pose()[kHips];
    const Trs& spine = skeleton.rest_pose()[kSpine];
    const Quat r = spine.rotation;
    c.add_channel(kHips, Property::kTranslation, Interpolation::kLinear, t,
                  std::vector<float>{hips.translation.x, hips.translation.y, hips.translation.z,
                                     hips.translation.x, hips.translation.y, hips.translation.z});
    c.add_channel(kSpine, Property::kRotation, Interpolation::kStep, t,
                  std::vector<float>{r.x, r.y, r.z, r.w, r.x, r.y, r.z, r.w});
    c.add_channel(kHead, Property::kScale, Interpolation::kLinear, t,
                  std::vector<float>{1, 1, 1, 1, 1, 1});
    c.add_event("still", 0.5f);
    clips.push_back(std::move(c));
  }
  {
    Clip c("Turn");
    const std::vector<float> t = {0, 1};
    add_rotation(c, kNeck, {0, 1, 0}, t, {0.8f, 0.8f});
    c.add_channel(kSpine2, Property::kTranslation, Interpolation::kLinear, t,
                  std::vector<float>{1, 2, 3, 1, 2, 3});
    c.add_channel(kHead, Property::kScale, Interpolation::kLinear, t,
                  std::vector<float>{2, 2, 2, 2, 2, 2});
    clips.push_back(std::move(c));
  }
  {
    Clip c("Curve");
    const std::vector<float> t = {0, 0.4f, 1.0f};
    std::vector<float> rot;
    const float angles[] = {0.2f, 0.9f, 0.4f};
    const float tangent[] = {0.3f, -0.2f, 0.5f, 0.1f};  // in and out tangents, not unit
    for (float a : angles) {
      const Quat q = about({0.6f, 0.8f, 0}, a);
      rot.insert(rot.end(), {tangent[0], tangent[1], tangent[2], tangent[3]});
      rot.insert(rot.end(), {q.x, q.y, q.z, q.w});
      rot.insert(rot.end(), {-tangent[1], tangent[0], tangent[3], -tangent[2]});
    }
    c.add_channel(kNeck, Property::kRotation, Interpolation::kCubicSpline, t, rot);
    c.add_channel(kSpine2, Property::kTranslation, Interpolation::kCubicSpline, t,
                  std::vector<float>{0,    0, 0, 0,    0.2f, 0,    1,  0, 0,  //
                                     0.5f, 1, 0, 0.3f, 0.4f, 0.1f, -1, 0, 2,  //
                                     0,    0, 1, 0.1f, 0.2f, 0,    0,  0, 0});
    clips.push_back(std::move(c));
  }
  {
    Clip c("Pose");
    c.add_channel(kHips, Property::kTranslation, Interpolation::kLinear, std::vector<float>{0},
                  std::vector<float>{0, 0.9f, 0});
    clips.push_back(std::move(c));
  }
  const auto find = [&](const char* name) -> const Clip& {
    for (const Clip& c : clips) {
      if (c.name() == name) return c;
    }
    return clips[0];
  };
  std::vector<Clip> additive;
  additive.push_back(
      std::move(*make_additive_clip(find("Breathe"), skeleton, AdditiveReference::kFirstFrame)));
  additive.push_back(
      std::move(*make_additive_clip(find("Still"), skeleton, AdditiveReference::kRestPose)));
  additive.push_back(
      std::move(*make_additive_clip(find("Turn"), skeleton, AdditiveReference::kRestPose)));
  additive.push_back(
      std::move(*make_additive_clip(find("Curve"), skeleton, AdditiveReference::kFirstFrame)));
  for (Clip& c : additive) clips.push_back(std::move(c));
  return std::move(*Rig::create(make_skeleton(), std::move(clips)));
}

}  // namespace animpack::layer_rig
