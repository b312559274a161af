// The math of animpack/math.h written out by hand, in reference.cpp, which is built with
// the runtime's rules (-ffp-contract=off): what the runtime computes, bit for bit.
#pragma once

#include "animpack/math.h"

namespace animpack::app_flags {

Vec3 ref_add(Vec3 a, Vec3 b);
Vec3 ref_add_scaled(Vec3 a, Vec3 b, float s);  // a + b * s
float ref_dot(Vec3 a, Vec3 b);
Vec3 ref_cross(Vec3 a, Vec3 b);
Vec3 ref_lerp(Vec3 a, Vec3 b, float t);
float ref_dot(Quat a, Quat b);
Quat ref_mul(Quat a, Quat b);
// a * b + c as two rounded operations.
float ref_mul_add(float a, float b, float c);

}  // namespace animpack::app_flags
