// Deterministic scalar functions: the only transcendentals the runtime uses.
//
//   float s = animpack::det::sin(0.5f);
//   float a = animpack::det::atan2(y, x);
//
// The C library's sin, cos and atan2 differ between platforms and library versions in
// the last bit, which would break bit-identical playback. These are computed with
// + - * / and IEEE sqrt only, in double precision, from fixed polynomials, so every
// IEEE-754 platform gives the same bits. They are built with -ffp-contract=off.
//
// Accuracy (measured by tests/runtime/scalar_test.cpp against the C library in double,
// then rounded to float; "ulp" is a unit in the last place of the float result):
//   sin, cos:  |x| <= 1e5 : at most 1 ulp, or 1e-7 absolute near a zero of the function
//   atan2:     all finite inputs: at most 1 ulp
//   sqrt:      correctly rounded (IEEE)
// Range reduction for sin and cos uses a three-part Cody-Waite split of pi/2 and stays
// exact for |x| < 2^20 * pi/2; larger arguments lose accuracy gradually (never NaN for
// finite input). Animation arguments are angles of at most a few turns.
#pragma once

namespace animpack::det {

// sin(x) for finite x; NaN for NaN or infinite x.
float sin(float x);
// cos(x) for finite x; NaN for NaN or infinite x.
float cos(float x);
// sin and cos of the same argument at once (one range reduction).
void sincos(float x, float* out_sin, float* out_cos);
// atan2(y, x) in [-pi, pi], with the C library's conventions for zeros and signs:
// atan2(+-0, +0) = +-0, atan2(+-0, -0) = +-pi, atan2(y, 0) = +-pi/2.
float atan2(float y, float x);
// Correctly rounded square root (IEEE 754 sqrt is exactly specified).
float sqrt(float x);

// Double-precision versions, used where the runtime computes in double.
double sin(double x);
double cos(double x);
double atan2(double y, double x);
double sqrt(double x);

inline constexpr double kPi = 3.14159265358979323846;

}  // namespace animpack::det
