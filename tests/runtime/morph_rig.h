// A rig with morph targets built in code, for the morph tests, the allocation test and
// the morph golden run: the fixture skeleton (root, bone1, bone2, bone3; fixture.h) with
// two morph sets and five clips.
//
// Morph sets (flat weights: face at 0..2, body at 3..4):
//   "face" on bone3: "smile", "blink", "frown", defaults (0, 0.25, 0)
//   "body" without a joint: "bulge", "blink", defaults (0.5, 0)
// Clips:
//   "Smile" (1 s)  face LINEAR (0, 0, 0) at 0 -> (1, 0.5, -0.5) at 1; root translation
//                  LINEAR (0, 0, 0) -> (1, 0, 0)
//   "Blink" (1 s)  face STEP (0, 1, 0) at 0, (0, 0, 0) at 0.5, (0, 1, 0) at 1
//   "Puff"  (2 s)  body CUBICSPLINE (0, 0) at 0 -> (1, 2) at 2, key 0's out-tangent
//                  (1, 0), key 1's in-tangent (2, 1) (other tangents 0); bone1 rotation
//                  LINEAR identity -> 90 degrees about z
//   "Walk"  (2 s)  bone2 rotation LINEAR identity -> 90 degrees about x: no weights
//   "Mixed" (1 s)  face LINEAR (1, 1, 1) -> (0, 0, 0) and body LINEAR (0, 1) -> (1, 0)
#pragma once

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "animpack/morph.h"
#include "animpack/rig.h"
#include "fixtures/fixture.h"

namespace animpack::morph_rig {

inline std::vector<MorphSet> make_sets() {
  std::vector<MorphSet> sets(2);
  sets[0].name = "face";
  sets[0].target_names = {"smile", "blink", "frown"};
  sets[0].default_weights = {0.0f, 0.25f, 0.0f};
  sets[0].joint = 3;
  sets[1].name = "body";
  sets[1].target_names = {"bulge", "blink"};
  sets[1].default_weights = {0.5f, 0.0f};
  return sets;
}

inline std::vector<Clip> make_clips() {
  std::vector<Clip> clips;
  {
    Clip c("Smile");
    const float t[] = {0.0f, 1.0f};
    const float w[] = {0, 0, 0, 1, 0.5f, -0.5f};
    c.add_weights_channel(0, 3, Interpolation::kLinear, t, w);
    const float v[] = {0, 0, 0, 1, 0, 0};
    c.add_channel(0, Property::kTranslation, Interpolation::kLinear, t, v);
    clips.push_back(std::move(c));
  }
  {
    Clip c("Blink");
    const float t[] = {0.0f, 0.5f, 1.0f};
    const float w[] = {0, 1, 0, 0, 0, 0, 0, 1, 0};
    c.add_weights_channel(0, 3, Interpolation::kStep, t, w);
    clips.push_back(std::move(c));
  }
  {
    Clip c("Puff");
    const float t[] = {0.0f, 2.0f};
    // Per key: in-tangent, value, out-tangent (2 weights each).
    const float w[] = {0, 0, 0, 0, 1, 0, 2, 1, 1, 2, 0, 0};
    c.add_weights_channel(1, 2, Interpolation::kCubicSpline, t, w);
    const float r[] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f};
    c.add_channel(1, Property::kRotation, Interpolation::kLinear, t, r);
    clips.push_back(std::move(c));
  }
  {
    Clip c("Walk");
    const float t[] = {0.0f, 2.0f};
    const float r[] = {0, 0, 0, 1, 0.70710678f, 0, 0, 0.70710678f};
    c.add_channel(2, Property::kRotation, Interpolation::kLinear, t, r);
    clips.push_back(std::move(c));
  }
  {
    Clip c("Mixed");
    const float t[] = {0.0f, 1.0f};
    const float face[] = {1, 1, 1, 0, 0, 0};
    c.add_weights_channel(0, 3, Interpolation::kLinear, t, face);
    const float body[] = {0, 1, 1, 0};
    c.add_weights_channel(1, 2, Interpolation::kLinear, t, body);
    clips.push_back(std::move(c));
  }
  return clips;
}

inline Rig make_rig(std::vector<Clip> extra = {}) {
  std::vector<Clip> clips = make_clips();
  for (Clip& c : extra) clips.push_back(std::move(c));
  Result<Rig> rig = Rig::create(fixture::make_skeleton(), std::move(clips), make_sets());
  if (!rig) {
    std::fprintf(stderr, "morph_rig: %s\n", rig.error().message());
    std::abort();
  }
  return std::move(*rig);
}

}  // namespace animpack::morph_rig
