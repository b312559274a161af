// Vectors, quaternions, matrices and TRS transforms for animation, deterministic.
//
//   animpack::Trs t{{0, 1, 0}, animpack::quat_from_axis_angle({0, 0, 1}, 0.5f), {1, 1, 1}};
//   animpack::Mat4 m = animpack::to_matrix(t);
//   animpack::Vec3 p = animpack::transform_point(m, {1, 0, 0});
//
// Conventions follow glTF 2.0: quaternions are (x, y, z, w) and unit length;
// matrices are column-major (m[col * 4 + row]) and act on column vectors; a TRS
// transform is T * R * S. Only + - * /, IEEE sqrt and animpack::det functions are
// used, so results are bit-identical on every IEEE-754 platform (the runtime is built
// with -ffp-contract=off, and every function here is defined in the runtime, none
// inline: the application's flags never compile this math).
#pragma once

#include <cstdint>

namespace animpack {

struct Vec2 {
  float x = 0, y = 0;
};

struct Vec3 {
  float x = 0, y = 0, z = 0;
};

struct Vec4 {
  float x = 0, y = 0, z = 0, w = 0;
};

// A rotation quaternion (x, y, z, w); identity is (0, 0, 0, 1).
struct Quat {
  float x = 0, y = 0, z = 0, w = 1;
};

// A 4x4 matrix, column-major: m[col * 4 + row]. Default is the identity.
struct Mat4 {
  float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
};

// Translation, rotation, scale: the matrix T * R * S.
struct Trs {
  Vec3 translation;
  Quat rotation;
  Vec3 scale{1, 1, 1};
};

static_assert(sizeof(Vec2) == 8 && sizeof(Vec3) == 12 && sizeof(Quat) == 16 && sizeof(Trs) == 40 &&
              sizeof(Mat4) == 64);

inline bool operator==(const Vec3& a, const Vec3& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}
inline bool operator==(const Quat& a, const Quat& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

// The arithmetic below is declared here and defined in the runtime (math.cpp), never
// inline: an inline body would be compiled with the application's flags, and g++
// contracts a * b + c into a fused multiply-add by default (clang with
// -ffp-contract=fast), which changes the last bits. Out of line, every caller gets the
// runtime's bits whatever its flags (tests/app_flags checks this; the source guard test
// keeps float arithmetic out of the public headers).
Vec3 operator+(Vec3 a, Vec3 b);
Vec3 operator-(Vec3 a, Vec3 b);
Vec3 operator*(Vec3 a, float s);
// ((a.x b.x + a.y b.y) + a.z b.z).
float dot(Vec3 a, Vec3 b);
Vec3 cross(Vec3 a, Vec3 b);
float length(Vec3 v);
// v / |v|; a zero vector stays zero.
Vec3 normalize(Vec3 v);
// a + (b - a) t, written a (1 - t) + b t so that t = 0 gives a and t = 1 gives b exactly.
Vec3 lerp(Vec3 a, Vec3 b, float t);

// ((a.x b.x + a.y b.y) + a.z b.z) + a.w b.w.
float dot(Quat a, Quat b);
// The Hamilton product a * b (apply b, then a).
Quat operator*(Quat a, Quat b);
// q / |q|; a zero quaternion becomes the identity.
Quat normalize(Quat q);
// The rotation of `angle` radians about the unit `axis`.
Quat quat_from_axis_angle(Vec3 axis, float angle);
// Rotates v by the unit quaternion q.
Vec3 rotate(Quat q, Vec3 v);
// Normalised linear interpolation, taking the shorter way (b is negated when a.b < 0).
Quat nlerp(Quat a, Quat b, float t);
// Spherical linear interpolation the shorter way, as glTF 2.0 asks; falls back to nlerp
// when |a.b| > 0.9995 (nearly equal rotations). t = 0 gives a, t = 1 gives b (or -b).
Quat slerp(Quat a, Quat b, float t);

// The matrix T * R * S.
Mat4 to_matrix(const Trs& trs);
// a * b.
Mat4 operator*(const Mat4& a, const Mat4& b);
// a * b for matrices whose last row is (0, 0, 0, 1); the result's last row is too.
// Same bits as operator* for such matrices in the upper 3x4 block.
Mat4 mul_affine(const Mat4& a, const Mat4& b);
// m * (p, 1), dropping w.
Vec3 transform_point(const Mat4& m, Vec3 p);
// m * (v, 0).
Vec3 transform_vector(const Mat4& m, Vec3 v);
// The inverse of an affine matrix (last row 0 0 0 1); a singular one gives the identity
// and *out_ok = false when out_ok is given.
Mat4 inverse_affine(const Mat4& m, bool* out_ok = nullptr);
// Splits an affine matrix without shear into TRS (scale signs folded into rotation
// when the determinant is negative: x scale negative).
Trs decompose(const Mat4& m);

// The same value of `count` floats, bit for bit.
bool bits_equal(const float* a, const float* b, int count);

}  // namespace animpack
