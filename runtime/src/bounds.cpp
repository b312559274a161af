// Boxes and conservative posed bounds (bounds.h). Only the runtime's own math: + - * /
// and comparisons, so every platform gets the same box bit for bit.
#include "animpack/bounds.h"

namespace animpack {
namespace {

// a < b ? a : b, and the other way; a NaN b leaves a as it is.
float lower(float a, float b) { return b < a ? b : a; }
float higher(float a, float b) { return b > a ? b : a; }
float magnitude(float v) { return v < 0.0f ? -v : v; }

}  // namespace

void Box::grow(Vec3 p) {
  lo = {lower(lo.x, p.x), lower(lo.y, p.y), lower(lo.z, p.z)};
  hi = {higher(hi.x, p.x), higher(hi.y, p.y), higher(hi.z, p.z)};
}

void Box::merge(const Box& b) {
  if (!b.valid()) return;
  grow(b.lo);
  grow(b.hi);
}

Box transform_box(const Box& b, const Mat4& m) {
  Box out;
  if (!b.valid()) return out;
  for (int k = 0; k < 8; ++k) {
    const Vec3 corner{(k & 1) != 0 ? b.hi.x : b.lo.x, (k & 2) != 0 ? b.hi.y : b.lo.y,
                      (k & 4) != 0 ? b.hi.z : b.lo.z};
    out.grow(transform_point(m, corner));
  }
  return out;
}

Box with_margin(const Box& b) {
  if (!b.valid()) return b;
  float largest = 0.0f;
  for (float v : {b.lo.x, b.lo.y, b.lo.z, b.hi.x, b.hi.y, b.hi.z}) {
    largest = higher(largest, magnitude(v));
  }
  const float m = largest * kBoundsMargin + kBoundsMinMargin;
  Box out;
  out.lo = {b.lo.x - m, b.lo.y - m, b.lo.z - m};
  out.hi = {b.hi.x + m, b.hi.y + m, b.hi.z + m};
  return out;
}

Box posed_bounds(const MeshBounds& bounds, std::span<const Mat4> palette) {
  if (palette.empty()) return bounds.bind;
  Box out = bounds.fixed;
  for (const JointBounds& j : bounds.joints) {
    if (j.joint >= palette.size()) continue;
    Box local;
    local.lo = j.lo;
    local.hi = j.hi;
    out.merge(transform_box(local, mul_affine(palette[j.joint], j.frame)));
  }
  return with_margin(out);
}

}  // namespace animpack
