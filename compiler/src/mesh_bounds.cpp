// Cook-time mesh bounds (mesh_bounds.h; docs/pack-format.md, "Bounds").
#include "animpack/compiler/mesh_bounds.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "animpack/clip.h"
#include "animpack/morph.h"
#include "animpack/skeleton.h"

namespace animpack {
namespace {

// The upper 3x4 block of an affine matrix in double, column-major like Mat4 (m[c * 4 + r]).
using DMat = std::array<double, 16>;

DMat to_double(const Mat4& m) {
  DMat d;
  for (size_t i = 0; i < 16; ++i) d[i] = static_cast<double>(m.m[i]);
  return d;
}

bool finite(const DMat& m) {
  for (double v : m) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

// The inverse of an affine matrix (last row taken as 0 0 0 1); false when singular.
bool inverse_affine_d(const DMat& a, DMat* out) {
  const double c00 = a[5] * a[10] - a[9] * a[6];
  const double c01 = a[9] * a[2] - a[1] * a[10];
  const double c02 = a[1] * a[6] - a[5] * a[2];
  const double det = a[0] * c00 + a[4] * c01 + a[8] * c02;
  if (det == 0.0 || !std::isfinite(det)) return false;
  const double inv = 1.0 / det;
  DMat o{};
  o[0] = c00 * inv;
  o[1] = c01 * inv;
  o[2] = c02 * inv;
  o[4] = (a[8] * a[6] - a[4] * a[10]) * inv;
  o[5] = (a[0] * a[10] - a[8] * a[2]) * inv;
  o[6] = (a[4] * a[2] - a[0] * a[6]) * inv;
  o[8] = (a[4] * a[9] - a[8] * a[5]) * inv;
  o[9] = (a[8] * a[1] - a[0] * a[9]) * inv;
  o[10] = (a[0] * a[5] - a[4] * a[1]) * inv;
  o[12] = -(o[0] * a[12] + o[4] * a[13] + o[8] * a[14]);
  o[13] = -(o[1] * a[12] + o[5] * a[13] + o[9] * a[14]);
  o[14] = -(o[2] * a[12] + o[6] * a[13] + o[10] * a[14]);
  o[15] = 1.0;
  if (!finite(o)) return false;
  *out = o;
  return true;
}

bool finite(Vec3 p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); }

// A box in double, rounded outwards to float at the end.
struct DBox {
  std::array<double, 3> lo{std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::infinity()};
  std::array<double, 3> hi{-std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
  bool any = false;

  void grow(const std::array<double, 3>& p) {
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) return;
    for (size_t k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], p[k]);
      hi[k] = std::max(hi[k], p[k]);
    }
    any = true;
  }
};

// The largest float <= v, and the smallest float >= v (v finite; beyond the float range
// the result is the largest finite float of that sign, the best a float box can do).
float round_down(double v) {
  float f = static_cast<float>(v);
  if (std::isinf(f))
    return f > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
  if (static_cast<double>(f) > v) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
  return f;
}
float round_up(double v) {
  float f = static_cast<float>(v);
  if (std::isinf(f))
    return f > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
  if (static_cast<double>(f) < v) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

void outward(const DBox& d, Vec3* out_lo, Vec3* out_hi) {
  *out_lo = {round_down(d.lo[0]), round_down(d.lo[1]), round_down(d.lo[2])};
  *out_hi = {round_up(d.hi[0]), round_up(d.hi[1]), round_up(d.hi[2])};
}

Box to_box(const DBox& d) {
  Box b;
  if (d.any) outward(d, &b.lo, &b.hi);
  return b;
}

const DMat kIdentity = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

// One joint's frame: inverse(inverse bind) in double, rounded to float; and the inverse of
// that float frame in double (what maps a bind-space vertex into the frame).
struct Frame {
  Mat4 frame;
  DMat to_frame = kIdentity;
};

Frame frame_of(const Mat4& inverse_bind) {
  Frame f;
  DMat d;
  if (!inverse_affine_d(to_double(inverse_bind), &d)) return f;
  Mat4 rounded;
  for (size_t i = 0; i < 16; ++i) rounded.m[i] = static_cast<float>(d[i]);
  rounded.m[3] = rounded.m[7] = rounded.m[11] = 0.0f;
  rounded.m[15] = 1.0f;
  DMat back;
  if (!inverse_affine_d(to_double(rounded), &back)) return f;
  f.frame = rounded;
  f.to_frame = back;
  return f;
}

// The weights each morph target of the rig can take while the rig's clips play: from
// min(0, lowest default or keyed) to max(1, highest default or keyed), per target, flat
// (MorphSet::first + t). A cubic spline segment between values p0 and p1 with tangents
// m0 and m1 over dt stays within min(p0, p1) - 4/27 dt (|m0| + |m1|) and max(p0, p1) +
// the same (the Hermite basis h10 and h11 are at most 4/27 in size on [0, 1]).
struct WeightRange {
  double lo = 0.0;
  double hi = 1.0;
};

std::vector<WeightRange> weight_ranges(const Rig& rig) {
  std::vector<WeightRange> ranges(rig.morph_weight_count());
  const std::span<const MorphSet> sets = rig.morph_sets();
  const auto widen = [&ranges](size_t i, double lo, double hi) {
    if (i >= ranges.size() || !std::isfinite(lo) || !std::isfinite(hi)) return;
    ranges[i].lo = std::min(ranges[i].lo, lo);
    ranges[i].hi = std::max(ranges[i].hi, hi);
  };
  for (const MorphSet& set : sets) {
    for (size_t t = 0; t < set.default_weights.size(); ++t) {
      const double w = set.default_weights[t];
      widen(set.first + t, w, w);
    }
  }
  for (const Clip& clip : rig.clips()) {
    for (const Channel& ch : clip.channels()) {
      if (ch.property != Property::kWeights || ch.joint >= sets.size()) continue;
      const MorphSet& set = sets[ch.joint];
      const size_t width = ch.width;
      const size_t keys = ch.times.size();
      if (width != set.size()) continue;
      const bool cubic = ch.interpolation == Interpolation::kCubicSpline;
      const size_t stride = cubic ? 3 * width : width;
      if (ch.values.size() != keys * stride) continue;
      for (size_t t = 0; t < width; ++t) {
        const size_t flat = set.first + t;
        for (size_t k = 0; k < keys; ++k) {
          const size_t base = k * stride + (cubic ? width : 0) + t;
          const double v = ch.values[base];
          widen(flat, v, v);
          if (!cubic || k + 1 >= keys) continue;
          const double next = ch.values[base + stride];
          const double out_tangent = ch.values[base + width];
          const double in_tangent = ch.values[base + stride - width];
          const double dt = static_cast<double>(ch.times[k + 1]) - ch.times[k];
          const double reach = 4.0 / 27.0 * dt * (std::fabs(out_tangent) + std::fabs(in_tangent));
          widen(flat, std::min(v, next) - reach, std::max(v, next) + reach);
        }
      }
    }
  }
  return ranges;
}

// The box a vertex of `part` covers over every weight of `ranges` (its morph set's
// targets): p + sum over t of w_t * delta_t, per axis the lowest and highest sum; the
// point itself for a part without morph targets. Its corners go to `out` (one point when
// the box is a point, so that unmorphed vertices count exactly as before).
void vertex_corners(const CookedPart& part, size_t v, const std::vector<WeightRange>& ranges,
                    uint32_t first, std::vector<std::array<double, 3>>* out) {
  out->clear();
  const Vec3 p = part.positions[v];
  std::array<double, 3> lo = {p.x, p.y, p.z}, hi = lo;
  bool any = false;
  for (size_t t = 0; t < part.morph_targets.size(); ++t) {
    const std::vector<Vec3>& deltas = part.morph_targets[t].positions;
    const size_t flat = first + t;
    if (v >= deltas.size() || flat >= ranges.size()) continue;
    const Vec3 d = deltas[v];
    const double dd[3] = {d.x, d.y, d.z};
    for (size_t c = 0; c < 3; ++c) {
      if (dd[c] == 0.0 || !std::isfinite(dd[c])) continue;
      const double a = ranges[flat].lo * dd[c], b = ranges[flat].hi * dd[c];
      lo[c] += std::min(a, b);
      hi[c] += std::max(a, b);
      any = true;
    }
  }
  if (!any) {
    out->push_back(lo);
    return;
  }
  for (int corner = 0; corner < 8; ++corner) {
    out->push_back(
        {(corner & 1) ? hi[0] : lo[0], (corner & 2) ? hi[1] : lo[1], (corner & 4) ? hi[2] : lo[2]});
  }
}

std::array<double, 3> apply(const DMat& m, const std::array<double, 3>& p) {
  return {m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
          m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
          m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14]};
}

}  // namespace

void compute_mesh_bounds(CookedMesh& mesh, const CookedRig* rig) {
  const int joint_count = rig != nullptr ? rig->rig.skeleton().joint_count() : 0;
  const size_t joints = static_cast<size_t>(joint_count);

  // Rest globals (node-rig parts at rest) and frames, for a rig.
  std::vector<Mat4> rest_globals(joints);
  std::vector<Frame> frames(joints);
  if (rig != nullptr) {
    const Skeleton& skeleton = rig->rig.skeleton();
    std::vector<Trs> locals(joints);
    if (!rest_pose(skeleton, locals) || !local_to_global(skeleton, locals, rest_globals)) {
      rest_globals.assign(joints, Mat4{});
    }
    for (size_t j = 0; j < joints; ++j) frames[j] = frame_of(skeleton.inverse_binds()[j]);
  }

  const std::vector<WeightRange> ranges =
      rig != nullptr ? weight_ranges(rig->rig) : std::vector<WeightRange>{};
  const std::span<const MorphSet> sets =
      rig != nullptr ? rig->rig.morph_sets() : std::span<const MorphSet>{};

  DBox bind, fixed;
  std::vector<DBox> boxes(joints);
  std::vector<std::array<double, 3>> corners;
  for (const CookedPart& part : mesh.parts) {
    const bool skinned = !part.joints.empty() && part.joints.size() == part.positions.size() &&
                         part.weights.size() == part.positions.size() && rig != nullptr;
    const bool eight = skinned && part.joints1.size() == part.positions.size() &&
                       part.weights1.size() == part.positions.size();
    const bool node_part = !skinned && part.joint >= 0 && part.joint < joint_count;
    const bool morphs = part.morph_set >= 0 && static_cast<size_t>(part.morph_set) < sets.size();
    const uint32_t first = morphs ? sets[static_cast<size_t>(part.morph_set)].first : 0;
    const std::vector<WeightRange> no_ranges;
    const std::vector<WeightRange>& part_ranges = morphs ? ranges : no_ranges;
    for (size_t v = 0; v < part.positions.size(); ++v) {
      if (!finite(part.positions[v])) continue;
      vertex_corners(part, v, part_ranges, first, &corners);
      if (skinned) {
        const Vec4 a = part.weights[v];
        const Vec4 b = eight ? part.weights1[v] : Vec4{0, 0, 0, 0};
        const float w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
        for (const auto& c : corners) bind.grow(c);
        for (int k = 0; k < 8; ++k) {
          const uint16_t j = k < 4 ? part.joints[v].j[k] : eight ? part.joints1[v].j[k - 4] : 0;
          if (!(w[k] > 0.0f) || j >= joints) continue;
          for (const auto& c : corners) boxes[j].grow(apply(frames[j].to_frame, c));
        }
      } else if (node_part) {
        const size_t j = static_cast<size_t>(part.joint);
        const DMat rest = to_double(rest_globals[j]);
        for (const auto& c : corners) {
          bind.grow(apply(rest, c));
          boxes[j].grow(apply(frames[j].to_frame, c));
        }
      } else {
        for (const auto& c : corners) {
          bind.grow(c);
          fixed.grow(c);
        }
      }
    }
  }

  mesh.bind_bounds = to_box(bind);
  mesh.static_bounds = to_box(fixed);
  mesh.joint_bounds.clear();
  for (size_t j = 0; j < joints; ++j) {
    if (!boxes[j].any) continue;
    JointBounds jb;
    jb.joint = static_cast<uint16_t>(j);
    jb.frame = frames[j].frame;
    outward(boxes[j], &jb.lo, &jb.hi);
    mesh.joint_bounds.push_back(jb);
  }
}

}  // namespace animpack
