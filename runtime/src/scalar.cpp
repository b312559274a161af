// Deterministic sin, cos, atan2 and sqrt from + - * / and IEEE sqrt.
//
// Method: sin and cos reduce the argument by pi/2 with a three-part Cody-Waite split
// (the constants of fdlibm's e_rem_pio2.c: the first two parts hold 33 bits each, so
// k * part is exact for |k| < 2^20) and evaluate Taylor polynomials on [-pi/4, pi/4]
// to degree 17 (sin) and 18 (cos): the truncation error there is below 1e-19.
// atan reduces |x| > 1 with atan(x) = pi/2 - atan(1/x), then around the nearest c = k/8
// with atan(x) = atan(c) + atan((x - c) / (1 + x c)), which leaves |r| <= 1/16, and
// evaluates the Taylor series to degree 15 (error below 1e-20).
// Everything is computed in double; the float versions round the double result once.
#include "animpack/scalar.h"

#include <cmath>
#include <cstdint>

#include "animpack/limits.h"

namespace animpack::det {
namespace {

constexpr double kTwoOverPi = 6.36619772367581382433e-01;
constexpr double kPio2Part1 = 1.57079632673412561417e+00;  // 0x1.921fb544p+0, 33 bits
constexpr double kPio2Part2 = 6.07710050630396597660e-11;  // next 33 bits
constexpr double kPio2Part2Tail = 2.02226624879595063154e-21;
constexpr double kHalfPi = 1.5707963267948966;
constexpr double kQuarterPi = 0.7853981633974483;

// sin(r) for |r| <= pi/4: r - r^3/3! + ... + r^17/17!, Horner in r^2.
double kernel_sin(double r) {
  const double z = r * r;
  double p = 1.0 / 355687428096000.0;  // 1/17!
  p = p * z - 1.0 / 1307674368000.0;   // 1/15!
  p = p * z + 1.0 / 6227020800.0;      // 1/13!
  p = p * z - 1.0 / 39916800.0;        // 1/11!
  p = p * z + 1.0 / 362880.0;          // 1/9!
  p = p * z - 1.0 / 5040.0;            // 1/7!
  p = p * z + 1.0 / 120.0;             // 1/5!
  p = p * z - 1.0 / 6.0;               // 1/3!
  return r + r * z * p;
}

// cos(r) for |r| <= pi/4: 1 - r^2/2! + ... + r^18/18!.
double kernel_cos(double r) {
  const double z = r * r;
  double p = 1.0 / 6402373705728000.0;  // 1/18!
  p = p * z - 1.0 / 20922789888000.0;   // 1/16!
  p = p * z + 1.0 / 87178291200.0;      // 1/14!
  p = p * z - 1.0 / 479001600.0;        // 1/12!
  p = p * z + 1.0 / 3628800.0;          // 1/10!
  p = p * z - 1.0 / 40320.0;            // 1/8!
  p = p * z + 1.0 / 720.0;              // 1/6!
  p = p * z - 1.0 / 24.0;               // 1/4!
  p = p * z + 1.0 / 2.0;                // 1/2!
  return 1.0 - z * p;
}

// Reduces x to r in [-pi/4, pi/4] with x = k pi/2 + r; returns k mod 4.
int reduce(double x, double* out_r) {
  const double k = std::floor(x * kTwoOverPi + 0.5);
  *out_r = ((x - k * kPio2Part1) - k * kPio2Part2) - k * kPio2Part2Tail;
  // k is integral; fmod of an integral double by 4 is exact.
  double q = std::fmod(k, 4.0);
  if (q < 0) q += 4.0;
  return static_cast<int>(clamp_to_int64(q, 0, 3));
}

// atan(c) for c = k/8, k = 0..8 (correctly rounded doubles).
constexpr double kAtanEighths[9] = {
    0.0,
    0.12435499454676144,
    0.24497866312686414,
    0.35877067027057225,
    0.4636476090008061,
    0.5585993153435624,
    0.6435011087932844,
    0.7188299996216245,
    0.7853981633974483,
};

// atan(r) for |r| <= 1/16: r - r^3/3 + ... + r^15/15.
double kernel_atan(double r) {
  const double z = r * r;
  double p = -1.0 / 15.0;
  p = p * z + 1.0 / 13.0;
  p = p * z - 1.0 / 11.0;
  p = p * z + 1.0 / 9.0;
  p = p * z - 1.0 / 7.0;
  p = p * z + 1.0 / 5.0;
  p = p * z - 1.0 / 3.0;
  return r + r * z * p;
}

// atan(a) for a >= 0 (a may be +inf).
double atan_nonnegative(double a) {
  bool inverted = false;
  if (a > 1.0) {
    a = 1.0 / a;  // +inf becomes 0
    inverted = true;
  }
  const double k = std::floor(a * 8.0 + 0.5);  // 0..8
  const double c = k / 8.0;
  const double r = (a - c) / (1.0 + a * c);
  const double t = kAtanEighths[clamp_to_int64(k, 0, 8)] + kernel_atan(r);
  return inverted ? kHalfPi - t : t;
}

}  // namespace

double sin(double x) {
  if (!std::isfinite(x)) return x - x;
  if (x == 0.0) return x;  // keeps the sign of zero
  double r;
  switch (reduce(x, &r)) {
    case 0:
      return kernel_sin(r);
    case 1:
      return kernel_cos(r);
    case 2:
      return -kernel_sin(r);
    default:
      return -kernel_cos(r);
  }
}

double cos(double x) {
  if (!std::isfinite(x)) return x - x;
  double r;
  switch (reduce(x, &r)) {
    case 0:
      return kernel_cos(r);
    case 1:
      return -kernel_sin(r);
    case 2:
      return -kernel_cos(r);
    default:
      return kernel_sin(r);
  }
}

double atan2(double y, double x) {
  if (std::isnan(x) || std::isnan(y)) return x + y;
  if (y == 0.0) {
    // +-0 towards +x keeps y's sign; towards -x (including -0) it is +-pi.
    if (x > 0.0 || (x == 0.0 && !std::signbit(x))) return y;
    return std::copysign(kPi, y);
  }
  if (x == 0.0) return std::copysign(kHalfPi, y);
  if (std::isinf(x)) {
    if (std::isinf(y)) return std::copysign(x > 0.0 ? kQuarterPi : 3.0 * kQuarterPi, y);
    return std::copysign(x > 0.0 ? 0.0 : kPi, y);
  }
  if (std::isinf(y)) return std::copysign(kHalfPi, y);
  const double a = atan_nonnegative(std::fabs(y / x));
  return std::copysign(x > 0.0 ? a : kPi - a, y);
}

double sqrt(double x) { return std::sqrt(x); }

float sin(float x) { return static_cast<float>(det::sin(static_cast<double>(x))); }
float cos(float x) { return static_cast<float>(det::cos(static_cast<double>(x))); }

void sincos(float x, float* out_sin, float* out_cos) {
  const double d = x;
  if (!std::isfinite(d)) {
    *out_sin = *out_cos = static_cast<float>(d - d);
    return;
  }
  if (d == 0.0) {  // keeps the sign of zero, as sin() does
    *out_sin = x;
    *out_cos = 1.0f;
    return;
  }
  double r;
  const int q = reduce(d, &r);
  const double s = kernel_sin(r);
  const double c = kernel_cos(r);
  switch (q) {
    case 0:
      *out_sin = static_cast<float>(s);
      *out_cos = static_cast<float>(c);
      break;
    case 1:
      *out_sin = static_cast<float>(c);
      *out_cos = static_cast<float>(-s);
      break;
    case 2:
      *out_sin = static_cast<float>(-s);
      *out_cos = static_cast<float>(-c);
      break;
    default:
      *out_sin = static_cast<float>(-c);
      *out_cos = static_cast<float>(s);
      break;
  }
}

float atan2(float y, float x) {
  return static_cast<float>(det::atan2(static_cast<double>(y), static_cast<double>(x)));
}

float sqrt(float x) { return std::sqrt(x); }

}  // namespace animpack::det
