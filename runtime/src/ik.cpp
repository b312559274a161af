// Inverse kinematics: two-bone, aim, chain and foot solvers (ik.h).
//
// Every solver works in object space on joint origins and directions read from the
// globals, then turns local rotations: an object-space rotation `delta` of joint j
// becomes conj(Rp) * delta * Rp * local.rotation, Rp the rotation of j's parent's global
// matrix (exact for rotations with uniform scale, which is what rigs use). After a
// solver, the globals of every joint below its top joint are recomputed with the same
// mul_affine(parent, to_matrix(local)) that Animator::evaluate uses, so they stay
// consistent bit for bit with a fresh local_to_global of the changed locals.
//
// No solve calls trigonometry (det::sincos runs once, in create, for max_angle and
// twist): the two-bone's angles come from the law of cosines as cosines, the middle
// joint's turn from half-angle cosines and sines (square roots), the upper joint's and
// the aim's turn from frame to frame (a rotation matrix to a quaternion), the arcs from
// dot and cross products. The vector arithmetic is inlined (math_inline.h, kernels.h)
// and the directions that lose bits in float near parallel or opposite are formed in
// double. The solve is a chain of dependent square roots and divisions, so each is
// placed where it runs alongside others where it can.
//
// Chain solving uses FABRIK rather than CCD. FABRIK moves joint positions along lines
// (a pass is two sweeps of sqrt and division, O(n), no trigonometry), keeps each bone's
// length by construction, holds the top joint exactly, converges in a few passes and
// spreads the bend over the whole chain, so a tail or a crane curls evenly. CCD turns one
// joint at a time toward the target: each step needs an arc and an update of every joint
// below it (O(n^2) a pass), it converges slowly near straight chains and lets the last
// joints do most of the bending, which gives kinked curls. Both need a fixed iteration
// count for fixed bits; FABRIK needs fewer for the same error.
#include "animpack/ik.h"

#include <cmath>
#include <cstddef>

#include "animpack/scalar.h"
#include "kernels.h"
#include "math_inline.h"

namespace animpack {

const char* ik_kind_name(IkKind kind) {
  switch (kind) {
    case IkKind::kTwoBone:
      return "two_bone";
    case IkKind::kAim:
      return "aim";
    case IkKind::kChain:
      return "chain";
    case IkKind::kFoot:
      return "foot";
  }
  return "unknown";
}

namespace {

constexpr float kPiF = static_cast<float>(det::kPi);
// Shorter bones than this (object units, rest pose) are refused.
constexpr float kMinBone = 1e-6f;
// Axes, normals and `up` must be unit within this.
constexpr float kUnitTolerance = 1e-4f;

// Inlined vector and quaternion arithmetic: the same operations in the same order as
// math.h's out-of-line functions (math.cpp defines those with math_inline.h and
// kernels.h, built with the same flags), so the same bits, without a call for each: a
// solve makes a few hundred of them. sqrt is IEEE (correctly rounded), as det::sqrt.
float sqrt_f(float v) { return std::sqrt(v); }
double sqrt_d(double v) { return std::sqrt(v); }
Vec3 add(Vec3 a, Vec3 b) { return inl::add(a, b); }
Vec3 sub(Vec3 a, Vec3 b) { return inl::sub(a, b); }
Vec3 mul(Vec3 a, float s) { return inl::scale(a, s); }
float dot3(Vec3 a, Vec3 b) { return inl::dot(a, b); }
Vec3 cross3(Vec3 a, Vec3 b) { return inl::cross(a, b); }
float len3(Vec3 v) { return sqrt_f(inl::dot(v, v)); }
// normalize(Vec3).
Vec3 unit(Vec3 v) {
  const float len = len3(v);
  if (len == 0.0f) return v;
  return mul(v, 1.0f / len);
}
Quat qmul(Quat a, Quat b) { return inl::mul(a, b); }
Quat qunit(Quat q) { return kernel::normalize_q(q); }
// transform_vector(m, v).
Vec3 xform_vector(const Mat4& g, Vec3 v) {
  const float* m = g.m;
  return {m[0] * v.x + m[4] * v.y + m[8] * v.z, m[1] * v.x + m[5] * v.y + m[9] * v.z,
          m[2] * v.x + m[6] * v.y + m[10] * v.z};
}

bool finite(float v) { return std::isfinite(v); }
bool finite(Vec3 v) { return finite(v.x) && finite(v.y) && finite(v.z); }
bool is_unit(Vec3 v) {
  const float d = dot3(v, v) - 1.0f;
  return finite(v) && d <= 2.0f * kUnitTolerance && d >= -2.0f * kUnitTolerance;
}

Vec3 origin(const Mat4& m) { return {m.m[12], m.m[13], m.m[14]}; }
Quat conjugate(Quat q) { return {-q.x, -q.y, -q.z, q.w}; }

// A unit vector perpendicular to the unit v.
Vec3 any_perpendicular(Vec3 v) {
  const float ax = v.x < 0 ? -v.x : v.x, ay = v.y < 0 ? -v.y : v.y, az = v.z < 0 ? -v.z : v.z;
  const Vec3 axis =
      ax <= ay && ax <= az ? Vec3{1, 0, 0} : (ay <= az ? Vec3{0, 1, 0} : Vec3{0, 0, 1});
  return unit(cross3(v, axis));
}

// The direction helpers below compute in double from float inputs: a perpendicular of a
// vector nearly along `dir`, or the arc between nearly opposite directions, loses most of
// its bits in float (1 + cos near -1 cancels), and the rounding to float at the end keeps
// every result within a float ulp or two. None needs trigonometry: a rotation by t about
// a unit axis n is (n sin t, 1 + cos t) normalised, and sin t and cos t of the angle
// between two vectors are their cross and dot products over their lengths.
struct D3 {
  double x, y, z;
};
D3 to_d(Vec3 v) { return {v.x, v.y, v.z}; }
double dot_d(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
D3 cross_d(D3 a, D3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// The part of v perpendicular to `dir`, normalised into *out; false (and *out untouched)
// when that part is shorter than 1e-6 |v| (v along dir, or zero). The part is formed
// times |dir|^2, v (dir.dir) - dir (v.dir), which the normalisation removes: no division.
bool perpendicular_part_d(D3 a, D3 d, D3* out, double* inv_length) {
  const double dd = dot_d(d, d), ad = dot_d(a, d);
  const D3 p{a.x * dd - d.x * ad, a.y * dd - d.y * ad, a.z * dd - d.z * ad};
  const double pp = dot_d(p, p);
  if (!(pp > 1e-12 * dot_d(a, a) * (dd * dd))) return false;
  *out = p;
  *inv_length = 1.0 / sqrt_d(pp);
  return true;
}
bool perpendicular_unit_d(D3 a, D3 d, D3* out) {
  D3 p;
  double inv;
  if (!perpendicular_part_d(a, d, &p, &inv)) return false;
  *out = {p.x * inv, p.y * inv, p.z * inv};
  return true;
}
bool perpendicular_unit(Vec3 v, Vec3 dir, Vec3* out) {
  D3 p;
  if (!perpendicular_unit_d(to_d(v), to_d(dir), &p)) return false;
  *out = {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)};
  return true;
}
D3 unit_d(D3 v) {
  const double inv = 1.0 / sqrt_d(dot_d(v, v));
  return {v.x * inv, v.y * inv, v.z * inv};
}

// The shortest rotation taking the unit a onto the unit b, not normalised (its length is
// sqrt(2 (1 + a.b)); Pose::turn and the products it goes into are normalised after);
// half a turn about a perpendicular of a when they are opposite.
Quat arc(Vec3 a, Vec3 b) {
  const D3 da = to_d(a), db = to_d(b);
  const double w = sqrt_d(dot_d(da, da) * dot_d(db, db)) + dot_d(da, db);
  if (w < 1e-12) {
    const Vec3 p = any_perpendicular(a);
    return {p.x, p.y, p.z, 0.0f};
  }
  const D3 c = cross_d(da, db);
  return {static_cast<float>(c.x), static_cast<float>(c.y), static_cast<float>(c.z),
          static_cast<float>(w)};
}

// The cosine and sine of half the angle t in [0, pi] whose cosine is c and sine s times
// the same positive length: (1 + cos t, sin t) for t up to pi/2 and (sin t, 1 - cos t)
// beyond, normalised, so neither cancels.
struct Half {
  double c, s;
};
Half half_angle(double c, double s) {
  const double r = sqrt_d(c * c + s * s);
  if (!(r > 0.0)) return {1.0, 0.0};
  const double x = c >= 0.0 ? r + c : s, y = c >= 0.0 ? s : r - c;
  const double inv = 1.0 / sqrt_d(x * x + y * y);
  return {x * inv, y * inv};
}

// The rotation of a matrix's 3x3 block (decompose folds a negative determinant into it).
Quat rotation_of(const Mat4& m) { return decompose(m).rotation; }

struct Pose {
  const Skeleton* skeleton;
  std::span<Trs> locals;
  std::span<Mat4> globals;

  const Mat4& parent_global(int joint) const {
    const int p = skeleton->parents()[static_cast<size_t>(joint)];
    return p < 0 ? skeleton->root() : globals[static_cast<size_t>(p)];
  }
  Trs& local(int joint) const { return locals[static_cast<size_t>(joint)]; }
  Mat4& global(int joint) const { return globals[static_cast<size_t>(joint)]; }
  Vec3 position(int joint) const { return origin(global(joint)); }
  // Turns the joint by the object-space rotation delta (about its own origin; any
  // nonzero length, the result is normalised): the local rotation becomes
  // conj(Rp) delta Rp local, Rp the parent's global rotation. conj(Rp) delta Rp is delta
  // with its axis taken into the parent's frame: Rp^T times delta's vector part, which is
  // the parent's 3x3 block transposed times it over the block's (uniform) scale s, the
  // length of its first column; (block^T v, s w) is that times s, which the
  // normalisation removes.
  void turn(int joint, Quat delta) const {
    const float* m = parent_global(joint).m;
    const float s = sqrt_f(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    const Vec3 v{delta.x, delta.y, delta.z};
    const Quat q{m[0] * v.x + m[1] * v.y + m[2] * v.z, m[4] * v.x + m[5] * v.y + m[6] * v.z,
                 m[8] * v.x + m[9] * v.y + m[10] * v.z, delta.w * s};
    Trs& l = local(joint);
    l.rotation = qunit(qmul(q, l.rotation));
  }
  // The joint's global from its parent's and its local: mul_affine(parent,
  // to_matrix(local)), inlined.
  void update(int joint) const {
    Mat4 m;
    kernel::to_matrix(local(joint), m);
    // m's elements straight into the product (mul_affine's operations), not stored and
    // loaded again as columns.
    const auto at = [&m](int k) { return m.m[k]; };
    kernel::store_columns(kernel::mul_affine_at(kernel::load_columns(parent_global(joint)), at),
                          global(joint));
  }
};

// The rotation taking the orthonormal frame (a0, a1, a0 x a1) onto (b0, b1, b0 x b1):
// R = B A^T, to a quaternion from w or, when w is small, the largest of |x|, |y|, |z|
// (the sums below are 4 times it and 4 times the others, none cancelling), in double.
// b1 may come unnormalised, of length 1 / k1 (the caller's normalisation runs alongside
// the products instead of before them). Not normalised: the quaternion's length is 4
// times the component used, from 1 to 4; w >= 0.
Quat frame_to_frame(D3 a0, D3 a1, D3 b0, D3 b1, double k1 = 1.0) {
  const D3 a2 = cross_d(a0, a1), b2 = cross_d(b0, b1);
  // r(i, j) = b0_i a0_j + (b1_i a1_j + b2_i a2_j) k1.
  const auto r = [&](double D3::*i, double D3::*j) {
    return b0.*i * a0.*j + (b1.*i * a1.*j + b2.*i * a2.*j) * k1;
  };
  const double xx = r(&D3::x, &D3::x), yy = r(&D3::y, &D3::y), zz = r(&D3::z, &D3::z);
  const double zy = r(&D3::z, &D3::y), yz = r(&D3::y, &D3::z);
  const double xz = r(&D3::x, &D3::z), zx = r(&D3::z, &D3::x);
  const double yx = r(&D3::y, &D3::x), xy = r(&D3::x, &D3::y);
  const double trace = xx + yy + zz;
  // |w| >= 1/4 (a turn up to about 150 degrees): w's form, which is all but certain, so
  // the branch is predicted; else the largest component's.
  if (1.0 + trace >= 0.25 || (trace >= xx && trace >= yy && trace >= zz)) {
    return {static_cast<float>(zy - yz), static_cast<float>(xz - zx), static_cast<float>(yx - xy),
            static_cast<float>(1.0 + trace)};
  }
  double x, y, z, w;  // 4 q times q's largest component
  if (xx >= yy && xx >= zz) {
    x = 1.0 + xx - yy - zz, w = zy - yz, y = xy + yx, z = xz + zx;
  } else if (yy >= zz) {
    y = 1.0 - xx + yy - zz, w = xz - zx, x = xy + yx, z = yz + zy;
  } else {
    z = 1.0 - xx - yy + zz, w = yx - xy, x = xz + zx, y = yz + zy;
  }
  const double k = w < 0.0 ? -1.0 : 1.0;
  return {static_cast<float>(x * k), static_cast<float>(y * k), static_cast<float>(z * k),
          static_cast<float>(w * k)};
}

struct TwoBoneInput {
  int upper, middle, end;
  Vec3 target;
  bool has_pole;
  Vec3 pole;
  float soften;
  bool twisted;
  float twist_cos, twist_sin;  // of the twist angle, when twisted
  Vec3 up;
};

// The reach of a two-bone limb toward a target `dist` away: dist itself up to
// soften * (l1 + l2), then easing toward l1 + l2 as x / (1 + x) does toward 1 (the same
// slope where it starts, so the knee does not snap); then clamped to [|l1 - l2|, l1 + l2].
float two_bone_reach(float dist, float l1, float l2, float soften) {
  const float chain = l1 + l2;
  float reach = dist;
  if (soften < 1.0f) {
    const float da = soften * chain;
    const float ds = chain - da;
    if (reach > da) {
      const float x = (reach - da) / ds;
      reach = da + ds * (x / (1.0f + x));
    }
  }
  const float fold = l1 > l2 ? l1 - l2 : l2 - l1;
  return reach > chain ? chain : (reach < fold ? fold : reach);
}

// Solves one two-bone limb at full weight: turns upper and middle (their globals are
// left for the caller to update).
void solve_two_bone(const Pose& pose, const TwoBoneInput& in) {
  const Vec3 pu = pose.position(in.upper), pm = pose.position(in.middle);
  const Vec3 pe = pose.position(in.end);
  const Vec3 a = sub(pm, pu), b = sub(pe, pm);
  const float l1 = len3(a), l2 = len3(b);
  if (!(l1 > 0.0f && l2 > 0.0f)) return;  // a bone scaled to nothing: no limb to solve
  const Vec3 to_target = sub(in.target, pu);
  const float dist = len3(to_target);
  // The direction to reach along; a target on the upper joint keeps the limb's.
  Vec3 dir;
  if (dist > 1e-6f * (l1 + l2)) {
    dir = mul(to_target, 1.0f / dist);
  } else {
    const Vec3 limb = sub(pe, pu);
    dir = len3(limb) > 1e-6f * (l1 + l2) ? unit(limb) : mul(a, 1.0f / l1);
  }
  const float reach = two_bone_reach(dist, l1, l2, in.soften);
  const float fold = l1 > l2 ? l1 - l2 : l2 - l1;

  // The bend direction, perpendicular to dir: the pole's side, else the pose's bend
  // plane, else up x dir; then twisted about dir.
  const Vec3 hinge_now = cross3(a, b);
  const float hinge_len = len3(hinge_now);
  const bool straight = !(hinge_len > 1e-6f * l1 * l2);
  Vec3 bend;
  bool have_bend = in.has_pole && perpendicular_unit(in.pole, dir, &bend);
  if (!have_bend && !straight) have_bend = perpendicular_unit(cross3(dir, hinge_now), dir, &bend);
  if (!have_bend) have_bend = perpendicular_unit(cross3(in.up, dir), dir, &bend);
  if (!have_bend) bend = any_perpendicular(dir);
  if (in.twisted) {
    bend = unit(add(mul(bend, in.twist_cos), mul(cross3(dir, bend), in.twist_sin)));
  }

  // 1. Bend the middle joint about its hinge (the pose's, or one that bends toward
  //    `bend` for a straight pose) from its exterior angle now (0: straight) to the one
  //    the law of cosines gives for `reach`, in double: the rotation by the difference
  //    is the half angles' difference, from their cosines and sines (full reach and full
  //    fold are set exactly).
  Vec3 hinge;
  if (!straight) {
    hinge = mul(hinge_now, 1.0f / hinge_len);
  } else if (!perpendicular_unit(cross3(bend, a), a, &hinge)) {
    hinge = any_perpendicular(mul(a, 1.0f / l1));
  }
  const Half now = half_angle(dot3(a, b), hinge_len);
  Half want{1.0, 0.0};  // straight
  if (reach <= fold) {
    want = {0.0, 1.0};  // folded: half of pi
  } else if (reach < l1 + l2) {
    const double rr = reach, e1 = l1, e2 = l2;
    double c = (rr * rr - e1 * e1 - e2 * e2) / (2.0 * e1 * e2);
    c = c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c);
    want = {sqrt_d((1.0 + c) * 0.5), sqrt_d((1.0 - c) * 0.5)};
  }
  const double turn_c = want.c * now.c + want.s * now.s;
  const float turn_s = static_cast<float>(want.s * now.c - want.c * now.s);
  const Quat bend_middle{hinge.x * turn_s, hinge.y * turn_s, hinge.z * turn_s,
                         static_cast<float>(turn_c)};
  pose.turn(in.middle, bend_middle);

  // 2. Turn the upper joint so the bone takes the direction the law of cosines gives
  //    (at angle alpha from dir, toward bend) and the hinge (which the middle joint's
  //    turn kept) comes to bend x dir, the plane of dir and bend: one turn from frame to
  //    frame, which puts the end on dir and the middle joint on the bend side.
  const D3 dd = to_d(dir), db = to_d(bend);
  // cos alpha: exactly 1 at full reach and +-1 at full fold (as the middle joint's angle
  // above, so the two agree), 0 for a limb folded onto the upper joint (l1 == l2).
  double ca = 1.0;
  const double r = reach, d1 = l1, d2 = l2;
  if (reach <= fold) {
    ca = l1 > l2 ? 1.0 : (l1 < l2 ? -1.0 : 0.0);
  } else if (reach < l1 + l2) {
    ca = (d1 * d1 + r * r - d2 * d2) / (2.0 * d1 * r);
    ca = ca > 1.0 ? 1.0 : (ca < -1.0 ? -1.0 : ca);
  }
  const double sa = sqrt_d((1.0 - ca) * (1.0 + ca));
  const D3 bone{dd.x * ca + db.x * sa, dd.y * ca + db.y * sa, dd.z * ca + db.z * sa};
  const double inv_l1 = 1.0 / d1;
  const D3 bone_now{a.x * inv_l1, a.y * inv_l1, a.z * inv_l1};
  pose.turn(in.upper, frame_to_frame(bone_now, to_d(hinge), bone, cross_d(db, dd)));
}

// Aims def.joints[0] at target (see ik.h, kAim); cap_cos and cap_sin are max_angle's.
// The turn takes forward onto the look direction and the local up (its part
// perpendicular to forward) onto the pole's part perpendicular to the look direction, in
// one step from frame to frame (in double, from the unnormalised directions, which
// perpendicular_unit_d does not need); without a pole side it is the shortest arc.
void solve_aim(const Pose& pose, const IkSolverDef& def, Vec3 target, const Vec3* pole, Vec3 set_up,
               float cap_cos, float cap_sin) {
  const int j = def.joints[0];
  const Mat4& g = pose.global(j);
  const Vec3 p = origin(g);
  const Vec3 forward_now = xform_vector(g, def.forward);
  const Vec3 up = xform_vector(g, def.up);
  const Vec3 to_target = sub(target, p);
  const float dist = len3(to_target);
  if (!(dist > 1e-6f)) return;  // a target on the joint: no direction to look
  Vec3 look_along = to_target;  // the look direction, times some length
  // The cap: turn from the animated forward toward the target by at most max_angle.
  if (def.max_angle < kPiF) {
    const Vec3 forward = unit(forward_now), look = mul(to_target, 1.0f / dist);
    if (dot3(forward, look) < cap_cos) {
      Vec3 side;
      if (!perpendicular_unit(look, forward, &side) && !perpendicular_unit(up, forward, &side)) {
        side = any_perpendicular(forward);
      }
      look_along = add(mul(forward, cap_cos), mul(side, cap_sin));
    }
  }
  const D3 f = to_d(forward_now), l = to_d(look_along);
  D3 up_now, up_wanted;
  double k_wanted;
  if (perpendicular_unit_d(to_d(up), f, &up_now) &&
      perpendicular_part_d(to_d(pole != nullptr ? *pole : set_up), l, &up_wanted, &k_wanted)) {
    pose.turn(j, frame_to_frame(unit_d(f), up_now, unit_d(l), up_wanted, k_wanted));
  } else {
    pose.turn(j, arc(unit(forward_now), unit(look_along)));
  }
}

// FABRIK on def.joints toward target (see ik.h, kChain), with kMaxChainJoints entries of
// scratch in points, start and lengths.
void solve_chain(const Pose& pose, const IkSolverDef& def, Vec3 target, Vec3* points, Vec3* start,
                 float* lengths) {
  const size_t n = def.joints.size();
  float total = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    start[i] = points[i] = pose.position(def.joints[i]);
    if (i > 0) {
      lengths[i - 1] = len3(sub(start[i], start[i - 1]));
      total = total + lengths[i - 1];
    }
  }
  const Vec3 base = start[0];
  const Vec3 to_target = sub(target, base);
  const float dist = len3(to_target);
  // The unit direction of v, or of `fallback` (the bone's direction in the pose) when v
  // is too short to have one.
  const auto unit_or = [](Vec3 v, Vec3 fallback) {
    const float l = len3(v);
    return l > 1e-12f ? mul(v, 1.0f / l) : unit(fallback);
  };
  if (dist >= total) {
    // Out of reach: straight toward the target.
    const Vec3 dir = unit_or(to_target, sub(start[n - 1], start[0]));
    for (size_t i = 1; i < n; ++i) points[i] = add(points[i - 1], mul(dir, lengths[i - 1]));
  } else {
    for (int it = 0; it < def.iterations; ++it) {
      points[n - 1] = target;
      for (size_t i = n - 1; i-- > 0;) {
        points[i] = add(
            points[i + 1],
            mul(unit_or(sub(points[i], points[i + 1]), sub(start[i], start[i + 1])), lengths[i]));
      }
      points[0] = base;
      for (size_t i = 1; i < n; ++i) {
        points[i] = add(points[i - 1],
                        mul(unit_or(sub(points[i], points[i - 1]), sub(start[i], start[i - 1])),
                            lengths[i - 1]));
      }
    }
  }
  // Turn each joint, top first, from its child's present direction to the solved one
  // (measured from where the joint is now, so float errors do not pile up down the chain).
  for (size_t i = 0; i + 1 < n; ++i) {
    const int j = def.joints[i], child = def.joints[i + 1];
    pose.update(child);  // from j, which the turns above have moved
    const Vec3 here = pose.position(j);
    const Vec3 now = sub(pose.position(child), here);
    const Vec3 wanted = sub(points[i + 1], here);
    const float ln = len3(now), lw = len3(wanted);
    if (!(ln > 0.0f && lw > 0.0f)) continue;
    pose.turn(j, arc(mul(now, 1.0f / ln), mul(wanted, 1.0f / lw)));
    pose.update(j);
    pose.update(child);
  }
}

// Appends `top` and every joint below it, in skeleton order (parents first).
void append_subtree(const Skeleton& skeleton, int top, std::vector<uint16_t>* out) {
  const auto parents = skeleton.parents();
  const size_t n = parents.size();
  std::vector<char> below(n, 0);
  below[static_cast<size_t>(top)] = 1;
  out->push_back(static_cast<uint16_t>(top));
  for (size_t j = static_cast<size_t>(top) + 1; j < n; ++j) {
    const int p = parents[j];
    if (p >= 0 && below[static_cast<size_t>(p)] != 0) {
      below[j] = 1;
      out->push_back(static_cast<uint16_t>(j));
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// create and the setters.

namespace {

Error refuse(int index, const IkSolverDef& def, const char* what) {
  return Error::make(ErrorCode::kBadIk, "ik solver %d '%.40s' (%s): %s", index, def.name.c_str(),
                     ik_kind_name(def.kind), what);
}

}  // namespace

Result<IkSet> IkSet::create(const Skeleton* skeleton, std::span<const IkSolverDef> solvers,
                            Vec3 up) {
  if (skeleton == nullptr) return Error::make(ErrorCode::kBadIk, "ik: no skeleton");
  if (!is_unit(up)) return Error::make(ErrorCode::kBadIk, "ik: up is not a unit vector");
  if (solvers.size() > static_cast<size_t>(kMaxIkSolvers)) {
    return Error::make(ErrorCode::kBadIk, "ik: %zu solvers, at most %d", solvers.size(),
                       kMaxIkSolvers);
  }
  const int joint_count = skeleton->joint_count();
  const auto parents = skeleton->parents();
  // Rest-pose joint origins in object space, for the bone lengths.
  std::vector<Mat4> rest_globals(static_cast<size_t>(joint_count));
  (void)local_to_global(*skeleton, skeleton->rest_pose(), rest_globals);

  IkSet set;
  set.skeleton_ = skeleton;
  set.up_ = up;
  int first_hips = -2;
  for (size_t s = 0; s < solvers.size(); ++s) {
    const IkSolverDef& def = solvers[s];
    const int i = static_cast<int>(s);
    if (def.name.empty()) return refuse(i, def, "the name is empty");
    for (size_t o = 0; o < s; ++o) {
      if (solvers[o].name == def.name) return refuse(i, def, "the name is used twice");
    }
    if (static_cast<unsigned>(def.kind) > static_cast<unsigned>(IkKind::kFoot)) {
      return refuse(i, def, "unknown kind");
    }
    const size_t n = def.joints.size();
    switch (def.kind) {
      case IkKind::kTwoBone:
      case IkKind::kFoot:
        if (n != 3) return refuse(i, def, "needs 3 joints (upper, middle, end)");
        break;
      case IkKind::kAim:
        if (n != 1) return refuse(i, def, "needs 1 joint");
        break;
      case IkKind::kChain:
        if (n < 2 || n > static_cast<size_t>(kMaxChainJoints)) {
          return refuse(i, def, "needs 2 to 32 joints");
        }
        break;
    }
    for (size_t k = 0; k < n; ++k) {
      const int j = def.joints[k];
      if (j >= joint_count) return refuse(i, def, "a joint is not in the skeleton");
      if (k == 0) continue;
      if (parents[static_cast<size_t>(j)] != def.joints[k - 1]) {
        return refuse(i, def, "the joints are not a chain (each the parent of the next)");
      }
      const float bone = len3(origin(rest_globals[static_cast<size_t>(j)]) -
                              origin(rest_globals[static_cast<size_t>(def.joints[k - 1])]));
      if (!(bone >= kMinBone)) return refuse(i, def, "a bone has zero length in the rest pose");
    }
    if (!(finite(def.weight) && def.weight >= 0.0f && def.weight <= 1.0f)) {
      return refuse(i, def, "weight not in [0, 1]");
    }
    if (def.has_target && !finite(def.target)) return refuse(i, def, "the target is not finite");
    if (def.has_target && def.kind == IkKind::kFoot) {
      return refuse(i, def, "foot solvers take a ground, not a target");
    }
    if (def.has_pole) {
      if (def.kind == IkKind::kChain) return refuse(i, def, "chain solvers have no pole");
      if (!finite(def.pole)) return refuse(i, def, "the pole is not finite");
      if (!(len3(def.pole) >= 1e-6f)) return refuse(i, def, "the pole is zero");
    }
    if (!(finite(def.soften) && def.soften > 0.0f && def.soften <= 1.0f)) {
      return refuse(i, def, "soften not in (0, 1]");
    }
    if (!(finite(def.twist) && def.twist >= -kPiF && def.twist <= kPiF)) {
      return refuse(i, def, "twist not in [-pi, pi]");
    }
    if (def.kind == IkKind::kAim) {
      if (!is_unit(def.forward)) return refuse(i, def, "forward is not a unit vector");
      if (!is_unit(def.up)) return refuse(i, def, "up is not a unit vector");
      if (!(len3(cross3(def.forward, def.up)) >= 1e-3f)) {
        return refuse(i, def, "up is parallel to forward");
      }
    }
    if (!(finite(def.max_angle) && def.max_angle > 0.0f && def.max_angle <= kPiF)) {
      return refuse(i, def, "max_angle not in (0, pi]");
    }
    if (!(def.iterations >= 1 && def.iterations <= kMaxIkIterations)) {
      return refuse(i, def, "iterations not in [1, 64]");
    }
    Plan plan;
    if (def.kind == IkKind::kFoot) {
      const int thigh = def.joints[0];
      int hips = def.hips;
      if (hips == -1) {
        hips = parents[static_cast<size_t>(thigh)];
        if (hips < 0) return refuse(i, def, "the thigh has no parent to use as hips");
      } else {
        if (hips < 0 || hips >= joint_count) return refuse(i, def, "hips not in the skeleton");
        int a = parents[static_cast<size_t>(thigh)];
        while (a >= 0 && a != hips) a = parents[static_cast<size_t>(a)];
        if (a != hips) return refuse(i, def, "hips is not an ancestor of the thigh");
      }
      if (first_hips == -2) {
        first_hips = hips;
        set.first_foot_ = i;
        set.hips_ = hips;
      } else if (hips != first_hips) {
        return refuse(i, def, "foot solvers of one set must share their hips");
      }
    }
    // The joints whose globals change: the first joint and everything below it.
    plan.subtree_begin = static_cast<uint32_t>(set.subtree_.size());
    append_subtree(*skeleton, def.joints[0], &set.subtree_);
    plan.subtree_end = static_cast<uint32_t>(set.subtree_.size());
    if (def.kind == IkKind::kAim) {
      det::sincos(def.max_angle, &plan.cap_sin, &plan.cap_cos);
    }
    if (def.kind == IkKind::kTwoBone && def.twist != 0.0f) {
      det::sincos(def.twist, &plan.twist_sin, &plan.twist_cos);
    }
    set.plans_.push_back(plan);
    State st;
    st.target = def.target;
    st.has_target = def.has_target;
    st.pole = def.pole;
    st.has_pole = def.has_pole;
    st.weight = def.weight;
    st.ground_normal = up;
    set.state_.push_back(st);
    set.solvers_.push_back(def);
  }
  if (set.first_foot_ >= 0) {
    set.hips_begin_ = static_cast<uint32_t>(set.subtree_.size());
    append_subtree(*skeleton, set.hips_, &set.subtree_);
    set.hips_end_ = static_cast<uint32_t>(set.subtree_.size());
  }
  set.scratch_locals_.resize(static_cast<size_t>(joint_count));
  set.scratch_points_.resize(static_cast<size_t>(kMaxChainJoints));
  set.scratch_start_.resize(static_cast<size_t>(kMaxChainJoints));
  set.scratch_lengths_.resize(static_cast<size_t>(kMaxChainJoints));
  set.foot_targets_.resize(solvers.size());
  return set;
}

int IkSet::find(std::string_view name) const {
  for (size_t i = 0; i < solvers_.size(); ++i) {
    if (solvers_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {

Error bad_index(int solver, int count) {
  return Error::make(ErrorCode::kInvalidArgument, "ik: no solver %d (the set has %d)", solver,
                     count);
}

}  // namespace

Result<void> IkSet::set_target(int solver, Vec3 target) {
  if (solver < 0 || solver >= solver_count()) return bad_index(solver, solver_count());
  if (solvers_[static_cast<size_t>(solver)].kind == IkKind::kFoot) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "ik: solver %d is a foot solver: set_ground, not set_target", solver);
  }
  if (!finite(target)) {
    return Error::make(ErrorCode::kInvalidArgument, "ik: solver %d: target not finite", solver);
  }
  State& s = state_[static_cast<size_t>(solver)];
  s.target = target;
  s.has_target = true;
  return ok();
}

Result<void> IkSet::clear_target(int solver) {
  if (solver < 0 || solver >= solver_count()) return bad_index(solver, solver_count());
  state_[static_cast<size_t>(solver)].has_target = false;
  return ok();
}

Result<void> IkSet::set_pole(int solver, Vec3 pole) {
  if (solver < 0 || solver >= solver_count()) return bad_index(solver, solver_count());
  if (solvers_[static_cast<size_t>(solver)].kind == IkKind::kChain) {
    return Error::make(ErrorCode::kInvalidArgument, "ik: solver %d is a chain: it has no pole",
                       solver);
  }
  if (!finite(pole) || !(len3(pole) >= 1e-6f)) {
    return Error::make(ErrorCode::kInvalidArgument, "ik: solver %d: pole zero or not finite",
                       solver);
  }
  State& s = state_[static_cast<size_t>(solver)];
  s.pole = pole;
  s.has_pole = true;
  return ok();
}

Result<void> IkSet::set_weight(int solver, float weight) {
  if (solver < 0 || solver >= solver_count()) return bad_index(solver, solver_count());
  if (!(finite(weight) && weight >= 0.0f && weight <= 1.0f)) {
    return Error::make(ErrorCode::kInvalidArgument, "ik: solver %d: weight not in [0, 1]", solver);
  }
  state_[static_cast<size_t>(solver)].weight = weight;
  return ok();
}

Result<void> IkSet::set_ground(int solver, float height, Vec3 normal) {
  if (solver < 0 || solver >= solver_count()) return bad_index(solver, solver_count());
  if (solvers_[static_cast<size_t>(solver)].kind != IkKind::kFoot) {
    return Error::make(ErrorCode::kInvalidArgument, "ik: solver %d is not a foot solver", solver);
  }
  if (!finite(height)) {
    return Error::make(ErrorCode::kInvalidArgument, "ik: solver %d: ground height not finite",
                       solver);
  }
  if (!is_unit(normal)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "ik: solver %d: ground normal not a unit vector", solver);
  }
  if (!(dot3(normal, up_) >= 0.5f)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "ik: solver %d: ground normal more than 60 degrees from up", solver);
  }
  State& s = state_[static_cast<size_t>(solver)];
  s.ground_height = height;
  s.ground_normal = normal;
  return ok();
}

// ---------------------------------------------------------------------------------------
// apply.

void IkSet::update_globals(std::span<Trs> locals, std::span<Mat4> globals, uint32_t begin,
                           uint32_t end) const {
  const Pose pose{skeleton_, locals, globals};
  for (uint32_t k = begin; k < end; ++k) pose.update(subtree_[k]);
}

void IkSet::save(std::span<const Trs> locals, std::span<const uint16_t> joints) {
  for (const uint16_t j : joints) scratch_locals_[j] = locals[j];
}

void IkSet::mix(std::span<Trs> locals, std::span<const uint16_t> joints, float weight) const {
  if (weight >= 1.0f) return;
  for (const uint16_t j : joints) {
    locals[j].rotation = kernel::nlerp(scratch_locals_[j].rotation, locals[j].rotation, weight);
  }
}

void IkSet::apply(std::span<Trs> locals, std::span<Mat4> globals) {
  if (skeleton_ == nullptr) return;
  const size_t n = static_cast<size_t>(skeleton_->joint_count());
  if (locals.size() != n || globals.size() != n) return;
  const Pose pose{skeleton_, locals, globals};
  for (size_t s = 0; s < solvers_.size(); ++s) {
    const IkSolverDef& def = solvers_[s];
    const State& st = state_[s];
    const Plan& plan = plans_[s];
    if (def.kind == IkKind::kFoot) {
      if (static_cast<int>(s) == first_foot_) apply_feet(locals, globals);
      continue;
    }
    if (!(st.weight > 0.0f) || !st.has_target) continue;
    const std::span<const uint16_t> joints = def.joints;
    save(locals, joints);
    switch (def.kind) {
      case IkKind::kTwoBone:
        solve_two_bone(pose, {joints[0], joints[1], joints[2], st.target, st.has_pole, st.pole,
                              def.soften, def.twist != 0.0f, plan.twist_cos, plan.twist_sin, up_});
        break;
      case IkKind::kAim:
        solve_aim(pose, def, st.target, st.has_pole ? &st.pole : nullptr, up_, plan.cap_cos,
                  plan.cap_sin);
        break;
      case IkKind::kChain:
        solve_chain(pose, def, st.target, scratch_points_.data(), scratch_start_.data(),
                    scratch_lengths_.data());
        break;
      case IkKind::kFoot:
        break;
    }
    mix(locals, joints, st.weight);
    update_globals(locals, globals, plan.subtree_begin, plan.subtree_end);
  }
}

// The foot solvers together: the hips drop once (as far as the foot that needs it most,
// scaled by its weight), then each leg is solved toward its ground and its foot turned to
// the ground normal.
void IkSet::apply_feet(std::span<Trs> locals, std::span<Mat4> globals) {
  const Pose pose{skeleton_, locals, globals};
  float drop = 0.0f;
  bool any = false;
  for (size_t s = static_cast<size_t>(first_foot_); s < solvers_.size(); ++s) {
    const IkSolverDef& def = solvers_[s];
    const State& st = state_[s];
    if (def.kind != IkKind::kFoot || !(st.weight > 0.0f)) continue;
    any = true;
    const int thigh = def.joints[0], shin = def.joints[1], foot = def.joints[2];
    const Vec3 pu = pose.position(thigh), pm = pose.position(shin), pe = pose.position(foot);
    // The animated foot raised by the ground: it keeps its height above the floor.
    const Vec3 target = pe + up_ * st.ground_height;
    foot_targets_[s] = target;
    // The least drop d >= 0 with |target - (pu - up d)| <= soften (l1 + l2), the reach the
    // leg gives without easing: d^2 + 2 d (v.up) + |v|^2 - L^2 = 0, v = target - pu.
    const float reach = def.soften * (len3(pm - pu) + len3(pe - pm));
    const Vec3 v = target - pu;
    const float vv = dot3(v, v), vu = dot3(v, up_);
    if (vv <= reach * reach) continue;
    const float disc = vu * vu - (vv - reach * reach);
    // Out of reach whatever the drop: as low as brings it nearest.
    const float need = disc >= 0.0f ? -vu - sqrt_f(disc) : -vu;
    const float scaled = need * st.weight;
    if (scaled > drop) drop = scaled;
  }
  if (!any) return;
  if (drop > 0.0f) {
    Trs& hips = pose.local(hips_);
    const Mat4 to_parent = inverse_affine(pose.parent_global(hips_));
    hips.translation = hips.translation + transform_vector(to_parent, up_ * -drop);
    update_globals(locals, globals, hips_begin_, hips_end_);
  }
  for (size_t s = static_cast<size_t>(first_foot_); s < solvers_.size(); ++s) {
    const IkSolverDef& def = solvers_[s];
    const State& st = state_[s];
    if (def.kind != IkKind::kFoot || !(st.weight > 0.0f)) continue;
    const std::span<const uint16_t> joints = def.joints;
    save(locals, joints);
    const int shin = joints[1], foot = joints[2];
    const Quat shin_before = rotation_of(pose.global(shin));
    solve_two_bone(pose, {joints[0], shin, foot, foot_targets_[s], st.has_pole, st.pole, def.soften,
                          false, 1.0f, 0.0f, up_});
    pose.update(joints[0]);
    pose.update(shin);
    // The foot keeps its animated object-space rotation, turned from up to the normal.
    const Quat shin_after = rotation_of(pose.global(shin));
    Trs& l = pose.local(foot);
    l.rotation = normalize(conjugate(shin_after) * arc(up_, st.ground_normal) * shin_before *
                           scratch_locals_[static_cast<size_t>(foot)].rotation);
    mix(locals, joints, st.weight);
    const Plan& plan = plans_[s];
    update_globals(locals, globals, plan.subtree_begin, plan.subtree_end);
  }
}

}  // namespace animpack
