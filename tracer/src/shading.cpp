// The shading model of shading.h (glTF metallic-roughness: Trowbridge-Reitz / GGX
// distribution, height-correlated Smith visibility, Schlick Fresnel, as in Appendix B of
// the glTF 2.0 specification) and the sRGB curve of IEC 61966-2-1.
#include "animpack/tracer/shading.h"

#include <algorithm>
#include <cmath>

namespace animpack::trace {

namespace {

constexpr float kPi = 3.14159265358979f;

double decode(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

// thresholds[k]: the linear value where the encoded byte goes from k to k + 1.
const std::array<float, 255>& thresholds() {
  static const std::array<float, 255> t = [] {
    std::array<float, 255> out{};
    for (int k = 0; k < 255; ++k) {
      out[static_cast<size_t>(k)] = static_cast<float>(decode((k + 0.5) / 255.0));
    }
    return out;
  }();
  return t;
}

Vec3 clamp01(Vec3 c) {
  return {std::clamp(c.x, 0.0f, 1.0f), std::clamp(c.y, 0.0f, 1.0f), std::clamp(c.z, 0.0f, 1.0f)};
}

}  // namespace

float srgb_to_linear(float encoded) {
  if (!(encoded > 0.0f)) return 0.0f;
  if (encoded >= 1.0f) return 1.0f;
  return static_cast<float>(decode(encoded));
}

float linear_to_srgb(float linear) {
  if (!(linear > 0.0f)) return 0.0f;
  if (linear >= 1.0f) return 1.0f;
  const double l = linear;
  return static_cast<float>(l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1.0 / 2.4) - 0.055);
}

const std::array<float, 256>& srgb_decode_table() {
  static const std::array<float, 256> t = [] {
    std::array<float, 256> out{};
    for (int k = 0; k < 256; ++k)
      out[static_cast<size_t>(k)] = static_cast<float>(decode(k / 255.0));
    return out;
  }();
  return t;
}

uint8_t linear_to_srgb_byte(float linear) {
  if (!(linear > 0.0f)) return 0;
  const std::array<float, 255>& t = thresholds();
  return static_cast<uint8_t>(std::upper_bound(t.begin(), t.end(), linear) - t.begin());
}

Vec3 shade(const Surface& s, Vec3 to_eye, Vec3 to_light, float ambient, float shadow) {
  const Vec3 base{s.base.x, s.base.y, s.base.z};
  if (s.unlit) return clamp01(base);
  const float m = s.metallic;
  const Vec3 c_diff = base * (1.0f - m);
  const Vec3 f0 = Vec3{0.04f, 0.04f, 0.04f} * (1.0f - m) + base * m;
  const float a = s.roughness * s.roughness, a2 = a * a;
  const float nl = std::max(dot(s.normal, to_light), 0.0f);
  const float nv = std::max(dot(s.normal, to_eye), 0.0f);
  Vec3 direct{0, 0, 0};
  if (nl > 0.0f && shadow > 0.0f) {
    const Vec3 sum = to_light + to_eye;
    const float len = std::sqrt(dot(sum, sum));
    const Vec3 h = len > 0.0f ? sum * (1.0f / len) : s.normal;
    const float nh = std::max(dot(s.normal, h), 0.0f);
    const float vh = std::max(dot(to_eye, h), 0.0f);
    const float d_den = nh * nh * (a2 - 1.0f) + 1.0f;
    const float d = a2 / (kPi * d_den * d_den);
    const float vis_den =
        nl * std::sqrt(nv * nv * (1.0f - a2) + a2) + nv * std::sqrt(nl * nl * (1.0f - a2) + a2);
    const float vis = vis_den > 0.0f ? 0.5f / vis_den : 0.0f;
    const float k = 1.0f - vh, k5 = k * k * k * k * k;
    const Vec3 f = f0 + (Vec3{1, 1, 1} - f0) * k5;
    const float e = kPi * (1.0f - ambient);
    direct = (c_diff * (1.0f / kPi) + f * (d * vis)) * (nl * e * shadow);
  }
  const Vec3 amb = (c_diff + f0) * (ambient * s.occlusion);
  return clamp01(direct + amb + s.emissive);
}

}  // namespace animpack::trace
