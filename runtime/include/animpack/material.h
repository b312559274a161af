// Materials and textures as a pack stores them: glTF 2.0 metallic-roughness, read in
// place by Pack (pack.h) and drawn by gl/ and the tracer (docs/gl.md, docs/tracer.md).
//
//   for (const animpack::PartInfo& part : pack.parts()) {
//     const animpack::MaterialInfo& m = pack.material(part.material);   // -1: the default
//     if (m.base_color_texture.texture >= 0) {
//       const animpack::TextureInfo& t = pack.textures()[m.base_color_texture.texture];
//       animpack::Result<std::span<const uint8_t>> rgba =
//           pack.texture_pixels(m.base_color_texture.texture);   // RGBA8, decoded once
//     }
//   }
#pragma once

#include <cstdint>
#include <string_view>

#include "animpack/math.h"

namespace animpack {

enum class AlphaMode : uint8_t { kOpaque = 0, kMask = 1, kBlend = 2 };
enum class Wrap : uint8_t { kRepeat = 0, kClampToEdge = 1, kMirroredRepeat = 2 };
// glTF's sampler filters (magnification uses only kNearest and kLinear).
enum class Filter : uint8_t {
  kNearest = 0,
  kLinear = 1,
  kNearestMipmapNearest = 2,
  kLinearMipmapNearest = 3,
  kNearestMipmapLinear = 4,
  kLinearMipmapLinear = 5,
};
enum class ColorSpace : uint8_t { kLinear = 0, kSrgb = 1 };

// KHR_texture_transform: uv' = translate(offset) * rotate(rotation) * scale(scale) * uv.
struct UvTransform {
  float offset[2] = {0, 0};
  float rotation = 0;  // radians
  float scale[2] = {1, 1};
};

// A texture as one material slot uses it. texture -1: the slot is untextured.
struct TextureSlot {
  int texture = -1;  // index in Pack::textures()
  int uv_set = 0;    // 0: PartStreams::texcoords0, 1: texcoords1
  Wrap wrap_s = Wrap::kRepeat;
  Wrap wrap_t = Wrap::kRepeat;
  Filter mag_filter = Filter::kLinear;
  Filter min_filter = Filter::kLinearMipmapLinear;
  bool has_transform = false;
  UvTransform transform;
  int source_texture = -1;  // index in the source glTF's textures
};

// glTF metallic-roughness. The defaults are glTF's default material (a part without one).
struct MaterialInfo {
  std::string_view name;
  std::string_view source_file;
  int source_material = -1;
  Vec4 base_color{1, 1, 1, 1};     // linear RGBA factor
  TextureSlot base_color_texture;  // sRGB
  float metallic = 1;
  float roughness = 1;
  TextureSlot metallic_roughness_texture;  // linear: G roughness, B metallic
  TextureSlot normal_texture;              // linear, tangent space
  float normal_scale = 1;
  TextureSlot occlusion_texture;  // linear, R
  float occlusion_strength = 1;
  Vec3 emissive;                 // linear RGB factor
  TextureSlot emissive_texture;  // sRGB
  float emissive_strength = 1;
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  float alpha_cutoff = 0.5f;
  bool double_sided = false;
};

// One distinct decoded image (Pack::texture_pixels gives its RGBA8, rows top first).
struct TextureInfo {
  uint32_t width = 0, height = 0;
  ColorSpace color_space = ColorSpace::kSrgb;
  std::string_view source_file;
  int source_image = -1;
  std::string_view mime_type;
};

}  // namespace animpack
