// The shading model shared with gl/ (docs/tracer.md, "Shading"; docs/gl.md): glTF
// metallic-roughness under one directional light plus a constant ambient, and the exact
// sRGB transfer curve.
//
//   animpack::trace::Surface s = scene.surface(ray, hit);
//   animpack::Vec3 linear = animpack::trace::shade(s, ray.direction * -1.0f, to_light,
//                                                  0.3f, 1.0f);
//   uint8_t r = animpack::trace::linear_to_srgb_byte(linear.x);
//
// shade() computes, with n the surface normal, v the unit vector towards the eye, l the
// unit vector towards the light and h = normalize(l + v):
//   c_diff = base.rgb (1 - metallic), F0 = 0.04 (1 - metallic) + base.rgb metallic,
//   a = roughness^2, E = pi (1 - ambient),
//   D = a^2 / (pi ((n.h)^2 (a^2 - 1) + 1)^2),
//   Vis = 0.5 / ((n.l) sqrt((n.v)^2 (1 - a^2) + a^2) + (n.v) sqrt((n.l)^2 (1 - a^2) + a^2)),
//   F = F0 + (1 - F0) (1 - v.h)^5,
//   direct = (c_diff / pi + F D Vis) (n.l) E shadow   (n.l, n.v clamped to >= 0),
//   colour = clamp(direct + ambient occlusion (c_diff + F0) + emissive, 0, 1).
// An unlit surface (sprites) is its base colour, clamped.
#pragma once

#include <array>
#include <cstdint>

#include "animpack/math.h"
#include "animpack/tracer/stage.h"

namespace animpack::trace {

// The sRGB curve (IEC 61966-2-1) and its inverse, on [0, 1] (clamped).
float srgb_to_linear(float encoded);
float linear_to_srgb(float linear);
// srgb_to_linear(k / 255) for every byte k.
const std::array<float, 256>& srgb_decode_table();
// The byte whose sRGB interval holds linear_to_srgb(linear): the same as rounding
// linear_to_srgb(linear) * 255 to the nearest integer, without the pow per call (a
// binary search over the 255 decision points, computed once in double precision). NaN
// gives 0.
uint8_t linear_to_srgb_byte(float linear);

// The linear colour of surface `s` seen from direction `to_eye` (unit, from the surface
// towards the eye) under a light in direction `to_light` (unit, towards the light), with
// `ambient` in [0, 1] and `shadow` 0 (occluded) or 1 (lit). Formulas above.
Vec3 shade(const Surface& s, Vec3 to_eye, Vec3 to_light, float ambient, float shadow);

}  // namespace animpack::trace
