// Private to the runtime (not installed): inline definitions of the small vector and
// quaternion operations that runtime/include/animpack/math.h declares out of line.
//
// The public header only declares them so that an application's translation units,
// built with the application's flags (g++ contracts a * b + c into a fused multiply-add
// by default, and clang does with -ffp-contract=fast), never compile the arithmetic: an
// application calling animpack::lerp gets the runtime's bits. math.cpp defines the
// public functions with these, and runtime sources that want them inlined call these
// directly; both are built with -ffp-contract=off, so the bits are the same.
#pragma once

#include "animpack/math.h"

namespace animpack::inl {

inline Vec3 add(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 sub(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 scale(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
inline float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
// a (1 - t) + b t, as animpack::lerp.
inline Vec3 lerp(Vec3 a, Vec3 b, float t) {
  const float u = 1.0f - t;
  return {a.x * u + b.x * t, a.y * u + b.y * t, a.z * u + b.z * t};
}
inline float dot(Quat a, Quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
// The Hamilton product a * b.
inline Quat mul(Quat a, Quat b) {
  return {
      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

}  // namespace animpack::inl
