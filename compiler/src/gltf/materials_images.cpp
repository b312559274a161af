// glTF reader: samplers, images, textures and materials (glTF 2.0 "Materials",
// "Textures", "Samplers", "Images"; KHR_materials_emissive_strength,
// KHR_texture_transform), the texcoord check of primitives against their materials, and
// the decoding (stb_image) of the images a used material samples.

#include <stb/stb_image.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <utility>

#include "animpack/pack.h"
#include "reader_internal.h"

namespace animpack::gltf_internal {

namespace {

static_assert(kGltfMaxImageSide == kMaxTextureSide, "an image the reader decodes fits a pack");

constexpr double kHuge = std::numeric_limits<double>::max();

}  // namespace

void read_samplers(Reader& r) {
  const json* array = top_array(r, "samplers");
  if (!array) return;
  r.doc.samplers.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/samplers", i);
    const json* obj = element_object(r, *array, i, at);
    if (!obj) continue;
    GltfSampler& s = r.doc.samplers[i];
    const auto list = [&](const char* key, std::initializer_list<uint64_t> allowed) -> int {
      const std::optional<uint64_t> v = get_uint(r.issues, *obj, at, key, Need::kOptional);
      if (!v) return -1;
      const auto it = std::find(allowed.begin(), allowed.end(), *v);
      if (it == allowed.end()) {
        r.issues.error(ptr(at, key), "VALUE_NOT_IN_LIST",
                       "Invalid value " + std::to_string(*v) + " for " + key + ".");
        return -1;
      }
      return static_cast<int>(it - allowed.begin());
    };
    if (const int k = list("magFilter", {9728, 9729}); k >= 0)
      s.mag_filter = static_cast<Filter>(k);
    if (const int k = list("minFilter", {9728, 9729, 9984, 9985, 9986, 9987}); k >= 0) {
      // 9984 NEAREST_MIPMAP_NEAREST, 9985 LINEAR_MIPMAP_NEAREST, 9986 NEAREST_MIPMAP_LINEAR,
      // 9987 LINEAR_MIPMAP_LINEAR: the order of Filter.
      s.min_filter = static_cast<Filter>(k);
    }
    constexpr Wrap kWraps[] = {Wrap::kClampToEdge, Wrap::kMirroredRepeat, Wrap::kRepeat};
    if (const int k = list("wrapS", {33071, 33648, 10497}); k >= 0) s.wrap_s = kWraps[k];
    if (const int k = list("wrapT", {33071, 33648, 10497}); k >= 0) s.wrap_t = kWraps[k];
  }
}

void read_images(Reader& r) {
  const json* array = top_array(r, "images");
  if (!array) return;
  r.doc.images.resize(array->size());
  r.image_valid.assign(array->size(), false);
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/images", i);
    const json* obj = element_object(r, *array, i, at);
    if (!obj) continue;
    const size_t errors_before = r.issues.errors();
    GltfImage& img = r.doc.images[i];
    img.name = get_name(r.issues, *obj, at);
    const std::optional<std::string> uri = get_string(r.issues, *obj, at, "uri", Need::kOptional);
    const std::optional<int> view =
        get_index(r.issues, *obj, at, "bufferView", r.views.size(), Need::kOptional);
    const std::optional<std::string> mime =
        get_string(r.issues, *obj, at, "mimeType", Need::kOptional);
    const bool has_uri = find(*obj, "uri") != nullptr;
    const bool has_view = find(*obj, "bufferView") != nullptr;
    if (has_uri == has_view) {
      r.issues.error(at, "ONE_OF_MISMATCH",
                     "Exactly one of ('uri', 'bufferView') properties must be defined.");
    }
    if (has_view && !find(*obj, "mimeType")) {
      r.issues.error(at, "UNSATISFIED_DEPENDENCY",
                     "Dependency failed. 'mimeType' must be defined with 'bufferView'.");
    }
    if (uri) {
      img.uri = *uri;
      if (uri->rfind("data:", 0) != 0) {
        const std::optional<std::string> relative = percent_decode(*uri);
        if (!relative || relative->empty() || has_scheme(*uri) || relative->front() == '/' ||
            relative->front() == '\\' || std::filesystem::path(*relative).is_absolute()) {
          r.issues.error(
              ptr(at, "uri"), "INVALID_URI",
              "Image uri " + in_quotes(*uri) + " must be a data: URI or a relative file path.");
        }
      }
    }
    if (view) {
      img.buffer_view = *view;
      const ViewState& v = r.views[static_cast<size_t>(*view)];
      if (v.stride != 0) {
        r.issues.error(ptr(at, "bufferView"), "IMAGE_BUFFER_VIEW_WITH_BYTESTRIDE",
                       "bufferView.byteStride must not be defined for buffer views used by "
                       "images.");
      }
    }
    if (mime) img.mime_type = *mime;
    r.image_valid[i] = r.issues.errors() == errors_before;
  }
}

void read_textures(Reader& r) {
  const json* array = top_array(r, "textures");
  if (!array) return;
  r.doc.textures.resize(array->size());
  r.texture_unsupported.assign(array->size(), std::string());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/textures", i);
    const json* obj = element_object(r, *array, i, at);
    if (!obj) continue;
    GltfTexture& t = r.doc.textures[i];
    t.name = get_name(r.issues, *obj, at);
    t.source =
        get_index(r.issues, *obj, at, "source", r.doc.images.size(), Need::kOptional).value_or(-1);
    t.sampler = get_index(r.issues, *obj, at, "sampler", r.doc.samplers.size(), Need::kOptional)
                    .value_or(-1);
    // A texture whose only source is an extension's (KTX2, WebP) cannot be decoded.
    if (t.source < 0 && !find(*obj, "source")) {
      if (const json* ext = find(*obj, "extensions"); ext && ext->is_object()) {
        for (const auto& [name, value] : ext->items()) {
          (void)value;
          r.texture_unsupported[i] = name;
          break;
        }
      }
    }
  }
}

// One textureInfo (obj[key]) into *slot; nothing when absent. `extra` is "scale" or
// "strength" (normal and occlusion textures) with its range, else nullptr.
void read_texture_info(Reader& r, const json& obj, const std::string& at, const char* key,
                       TextureSlot* slot, const char* extra = nullptr, double extra_lo = 0,
                       double extra_hi = 0, float* out_extra = nullptr) {
  const json* info = get_object(r.issues, obj, at, key, Need::kOptional);
  if (!info) return;
  const std::string p = ptr(at, key);
  const std::optional<int> texture =
      get_index(r.issues, *info, p, "index", r.doc.textures.size(), Need::kRequired);
  const auto tex_coord = [&](const json& o, const std::string& o_at) -> std::optional<int> {
    const std::optional<uint64_t> tc = get_uint(r.issues, o, o_at, "texCoord", Need::kOptional);
    if (!tc) return std::nullopt;
    if (*tc > 1) {
      r.issues.error(ptr(o_at, "texCoord"), "TEXTURE_TEXCOORD_UNSUPPORTED",
                     "texCoord " + std::to_string(*tc) +
                         " is not supported: only TEXCOORD_0 and TEXCOORD_1 are read.");
      return std::nullopt;
    }
    return static_cast<int>(*tc);
  };
  slot->uv_set = tex_coord(*info, p).value_or(0);
  if (extra) {
    if (const std::optional<double> v = get_number(r.issues, *info, p, extra, extra_lo, extra_hi)) {
      *out_extra = to_float(*v);
    }
  }
  if (const json* ext = get_object(r.issues, *info, p, "extensions", Need::kOptional)) {
    const std::string ep = ptr(p, "extensions");
    if (const json* tt = get_object(r.issues, *ext, ep, "KHR_texture_transform", Need::kOptional)) {
      const std::string tp = ptr(ep, "KHR_texture_transform");
      slot->has_transform = true;
      double pair[2];
      if (get_ranged_numbers(r.issues, *tt, tp, "offset", 2, -kHuge, kHuge, pair)) {
        slot->transform.offset[0] = to_float(pair[0]);
        slot->transform.offset[1] = to_float(pair[1]);
      }
      if (const std::optional<double> rot =
              get_number(r.issues, *tt, tp, "rotation", -kHuge, kHuge)) {
        slot->transform.rotation = to_float(*rot);
      }
      if (get_ranged_numbers(r.issues, *tt, tp, "scale", 2, -kHuge, kHuge, pair)) {
        slot->transform.scale[0] = to_float(pair[0]);
        slot->transform.scale[1] = to_float(pair[1]);
      }
      if (const std::optional<int> tc = tex_coord(*tt, tp)) slot->uv_set = *tc;
    }
  }
  if (!texture) return;
  slot->texture = *texture;
  slot->source_texture = *texture;
  const GltfTexture& t = r.doc.textures[static_cast<size_t>(*texture)];
  if (t.sampler >= 0) {
    const GltfSampler& s = r.doc.samplers[static_cast<size_t>(t.sampler)];
    slot->wrap_s = s.wrap_s;
    slot->wrap_t = s.wrap_t;
    slot->mag_filter = s.mag_filter;
    slot->min_filter = s.min_filter;
  }
}

void read_materials(Reader& r) {
  const json* array = top_array(r, "materials");
  if (!array) return;
  r.doc.materials.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/materials", i);
    const json* obj = element_object(r, *array, i, at);
    if (!obj) continue;
    GltfMaterial& mat = r.doc.materials[i];
    MaterialInfo& m = mat.info;
    mat.name = get_name(r.issues, *obj, at);
    m.source_material = static_cast<int>(i);
    if (const json* pbr = get_object(r.issues, *obj, at, "pbrMetallicRoughness", Need::kOptional)) {
      const std::string pp = ptr(at, "pbrMetallicRoughness");
      double c[4];
      if (get_ranged_numbers(r.issues, *pbr, pp, "baseColorFactor", 4, 0, 1, c)) {
        m.base_color = {to_float(c[0]), to_float(c[1]), to_float(c[2]), to_float(c[3])};
      }
      read_texture_info(r, *pbr, pp, "baseColorTexture", &m.base_color_texture);
      if (const std::optional<double> v = get_number(r.issues, *pbr, pp, "metallicFactor", 0, 1)) {
        m.metallic = to_float(*v);
      }
      if (const std::optional<double> v = get_number(r.issues, *pbr, pp, "roughnessFactor", 0, 1)) {
        m.roughness = to_float(*v);
      }
      read_texture_info(r, *pbr, pp, "metallicRoughnessTexture", &m.metallic_roughness_texture);
    }
    read_texture_info(r, *obj, at, "normalTexture", &m.normal_texture, "scale", -kHuge, kHuge,
                      &m.normal_scale);
    read_texture_info(r, *obj, at, "occlusionTexture", &m.occlusion_texture, "strength", 0, 1,
                      &m.occlusion_strength);
    read_texture_info(r, *obj, at, "emissiveTexture", &m.emissive_texture);
    double e[3];
    if (get_ranged_numbers(r.issues, *obj, at, "emissiveFactor", 3, 0, 1, e)) {
      m.emissive = {to_float(e[0]), to_float(e[1]), to_float(e[2])};
    }
    if (const std::optional<std::string> mode =
            get_string(r.issues, *obj, at, "alphaMode", Need::kOptional)) {
      if (*mode == "OPAQUE") {
        m.alpha_mode = AlphaMode::kOpaque;
      } else if (*mode == "MASK") {
        m.alpha_mode = AlphaMode::kMask;
      } else if (*mode == "BLEND") {
        m.alpha_mode = AlphaMode::kBlend;
      } else {
        r.issues.error(ptr(at, "alphaMode"), "VALUE_NOT_IN_LIST",
                       "Invalid value " + in_quotes(*mode) + " for alphaMode.");
      }
    }
    if (const std::optional<double> v = get_number(r.issues, *obj, at, "alphaCutoff", 0, kHuge)) {
      m.alpha_cutoff = to_float(*v);
    }
    m.double_sided = get_bool(r.issues, *obj, at, "doubleSided").value_or(false);
    if (const json* ext = get_object(r.issues, *obj, at, "extensions", Need::kOptional)) {
      const std::string ep = ptr(at, "extensions");
      if (const json* es =
              get_object(r.issues, *ext, ep, "KHR_materials_emissive_strength", Need::kOptional)) {
        if (const std::optional<double> v =
                get_number(r.issues, *es, ptr(ep, "KHR_materials_emissive_strength"),
                           "emissiveStrength", 0, kHuge)) {
          m.emissive_strength = to_float(*v);
        }
      }
    }
  }
}

namespace {

// The five texture slots of a material, with their JSON pointers.
std::array<std::pair<const TextureSlot*, std::string>, 5> material_slots(const MaterialInfo& m,
                                                                         const std::string& at) {
  const std::string pbr = ptr(at, "pbrMetallicRoughness");
  return {{{&m.base_color_texture, ptr(pbr, "baseColorTexture")},
           {&m.metallic_roughness_texture, ptr(pbr, "metallicRoughnessTexture")},
           {&m.normal_texture, ptr(at, "normalTexture")},
           {&m.occlusion_texture, ptr(at, "occlusionTexture")},
           {&m.emissive_texture, ptr(at, "emissiveTexture")}}};
}

}  // namespace

// MESH_PRIMITIVE_TOO_FEW_TEXCOORDS: a primitive's material samples a uv set it lacks.
void check_primitive_texcoords(Reader& r) {
  for (size_t m = 0; m < r.doc.meshes.size(); ++m) {
    for (size_t p = 0; p < r.doc.meshes[m].primitives.size(); ++p) {
      const GltfPrimitive& prim = r.doc.meshes[m].primitives[p];
      if (m >= r.mesh_states.size() || !r.mesh_states[m].primitives[p].valid) continue;
      if (prim.material < 0) continue;
      const MaterialInfo& info = r.doc.materials[static_cast<size_t>(prim.material)].info;
      for (const auto& [slot, where] :
           material_slots(info, idx("/materials", static_cast<size_t>(prim.material)))) {
        if (slot->texture < 0) continue;
        const bool has = slot->uv_set == 0 ? !prim.texcoords0.empty() : !prim.texcoords1.empty();
        if (!has) {
          r.issues.error(ptr(idx(ptr(idx("/meshes", m), "primitives"), p), "material"),
                         "MESH_PRIMITIVE_TOO_FEW_TEXCOORDS",
                         "Material is incompatible with mesh primitive: " + where +
                             " needs 'TEXCOORD_" + std::to_string(slot->uv_set) + "'.");
          break;
        }
      }
    }
  }
}

namespace {

// What image bytes are: "image/png", "image/jpeg", "image/ktx2", "image/webp", or "".
std::string sniff_image(std::span<const uint8_t> b) {
  static constexpr uint8_t kPng[] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  static constexpr uint8_t kKtx2[] = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB};
  if (b.size() >= 8 && std::equal(kPng, kPng + 8, b.begin())) return "image/png";
  if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return "image/jpeg";
  if (b.size() >= 8 && std::equal(kKtx2, kKtx2 + 8, b.begin())) return "image/ktx2";
  if (b.size() >= 12 && b[0] == 'R' && b[1] == 'I' && b[2] == 'F' && b[3] == 'F' && b[8] == 'W' &&
      b[9] == 'E' && b[10] == 'B' && b[11] == 'P') {
    return "image/webp";
  }
  return "";
}

std::string describe_type(const std::string& mime) {
  if (mime == "image/ktx2") return "KTX2 (KHR_texture_basisu)";
  if (mime == "image/webp") return "WebP (EXT_texture_webp)";
  return mime.empty() ? "of an unknown type" : in_quotes(mime);
}

// Reads and decodes image i into doc.images[i]; reports what is wrong at /images/i.
void decode_image(Reader& r, size_t i) {
  GltfImage& img = r.doc.images[i];
  const std::string at = idx("/images", i);
  std::vector<uint8_t> owned;
  std::span<const uint8_t> bytes;
  if (img.buffer_view >= 0) {
    const ViewState& v = r.views[static_cast<size_t>(img.buffer_view)];
    if (!v.valid) return;  // reported with the view
    const std::optional<std::span<const uint8_t>> data = view_bytes(r, img.buffer_view);
    if (!data) {
      r.issues.error(ptr(at, "bufferView"), "BUFFER_NO_DATA",
                     "The image's buffer has no data: it has no uri and is not the GLB buffer.");
      return;
    }
    bytes = *data;
  } else if (img.uri.rfind("data:", 0) == 0) {
    std::optional<std::vector<uint8_t>> decoded = decode_data_uri(img.uri);
    if (!decoded) {
      r.issues.error(ptr(at, "uri"), "INVALID_URI",
                     "Invalid data: URI (malformed base64 or escapes).");
      return;
    }
    if (!r.charge(decoded->size(), at)) return;
    owned = std::move(*decoded);
    bytes = owned;
    if (img.mime_type.empty()) {
      const size_t end = img.uri.find_first_of(";,", 5);
      img.mime_type = img.uri.substr(5, end == std::string::npos ? 0 : end - 5);
    }
  } else {
    const std::filesystem::path file = (r.base_dir / *percent_decode(img.uri)).lexically_normal();
    uint64_t size = 0;
    std::string why;
    const ReadStatus status = read_file(file, std::nullopt, &owned, &size, &why);
    if (status == ReadStatus::kTooLarge) {
      r.charge(kGltfMaxDecodedBytes, at);  // reports RESOURCE_LIMIT
      return;
    }
    if (status != ReadStatus::kOk) {
      r.issues.error(ptr(at, "uri"), "IO_ERROR", "Resource not found or unreadable (" + why + ").");
      return;
    }
    r.doc.files.push_back(file);
    if (!r.charge(owned.size(), at)) return;
    bytes = owned;
  }
  const std::string kind = sniff_image(bytes);
  const bool declared_unsupported = img.mime_type == "image/ktx2" || img.mime_type == "image/webp";
  if (kind.empty() && (img.mime_type == "image/png" || img.mime_type == "image/jpeg")) {
    r.issues.error(at, "IMAGE_DATA_INVALID",
                   "Image data is invalid: the bytes do not start with the " +
                       std::string(img.mime_type == "image/png" ? "PNG" : "JPEG") +
                       " signature its mimeType declares.");
    return;
  }
  if (kind != "image/png" && kind != "image/jpeg") {
    const std::string type = declared_unsupported && kind.empty() ? img.mime_type : kind;
    r.issues.error(at, "IMAGE_FORMAT_UNSUPPORTED",
                   "The image is " + describe_type(type) +
                       (img.mime_type.empty() || type == img.mime_type
                            ? std::string()
                            : " (mimeType " + in_quotes(img.mime_type) + ")") +
                       "; only PNG and JPEG images are supported.");
    return;
  }
  if (!img.mime_type.empty() && img.mime_type != kind) {
    r.issues.error(ptr(at, "mimeType"), "IMAGE_MIME_TYPE_INVALID",
                   "Recognized image format " + in_quotes(kind) +
                       " does not match declared image format " + in_quotes(img.mime_type) + ".");
    return;
  }
  img.mime_type = kind;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    r.issues.error(at, "IMAGE_TOO_LARGE", "The image's encoded data is over 2 GiB.");
    return;
  }
  const int length = static_cast<int>(bytes.size());
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(bytes.data(), length, &w, &h, &channels)) {
    r.issues.error(at, "IMAGE_DATA_INVALID",
                   std::string("Image data is invalid: ") + stbi_failure_reason() + ".");
    return;
  }
  if (w <= 0 || h <= 0 || static_cast<uint32_t>(w) > kGltfMaxImageSide ||
      static_cast<uint32_t>(h) > kGltfMaxImageSide) {
    r.issues.error(at, "IMAGE_TOO_LARGE",
                   "The image is " + std::to_string(w) + " x " + std::to_string(h) +
                       " pixels; each side may be at most " + std::to_string(kGltfMaxImageSide) +
                       ".");
    return;
  }
  const uint64_t rgba_bytes = uint64_t{static_cast<uint32_t>(w)} * static_cast<uint32_t>(h) * 4;
  if (!r.charge(rgba_bytes, at)) return;
  int dw = 0, dh = 0;
  stbi_uc* pixels = stbi_load_from_memory(bytes.data(), length, &dw, &dh, &channels, 4);
  if (!pixels) {
    r.issues.error(at, "IMAGE_DATA_INVALID",
                   std::string("Image data is invalid: ") + stbi_failure_reason() + ".");
    return;
  }
  if (dw != w || dh != h) {
    stbi_image_free(pixels);
    r.issues.error(at, "IMAGE_DATA_INVALID", "Image data is invalid: inconsistent size.");
    return;
  }
  img.width = static_cast<uint32_t>(w);
  img.height = static_cast<uint32_t>(h);
  img.rgba.assign(pixels, pixels + rgba_bytes);
  stbi_image_free(pixels);
  img.decoded = true;
}

}  // namespace

// Decodes every image that a material of a primitive in the default scene samples.
void decode_used_images(Reader& r) {
  const std::vector<bool> in_scene = reachable(r.doc.nodes, r.doc.roots);
  std::vector<bool> material_used(r.doc.materials.size(), false);
  for (size_t n = 0; n < r.doc.nodes.size(); ++n) {
    const int mesh = r.doc.nodes[n].mesh;
    if (!in_scene[n] || mesh < 0) continue;
    for (const GltfPrimitive& prim : r.doc.meshes[static_cast<size_t>(mesh)].primitives) {
      if (prim.material >= 0) material_used[static_cast<size_t>(prim.material)] = true;
    }
  }
  std::vector<bool> image_used(r.doc.images.size(), false);
  for (size_t m = 0; m < material_used.size(); ++m) {
    if (!material_used[m]) continue;
    for (const auto& [slot, where] :
         material_slots(r.doc.materials[m].info, idx("/materials", m))) {
      if (slot->texture < 0) continue;
      const size_t t = static_cast<size_t>(slot->texture);
      const GltfTexture& texture = r.doc.textures[t];
      if (texture.source >= 0) {
        image_used[static_cast<size_t>(texture.source)] = true;
      } else if (!r.texture_unsupported[t].empty()) {
        r.issues.error(idx("/textures", t), "IMAGE_FORMAT_UNSUPPORTED",
                       "The texture's only source is " + in_quotes(r.texture_unsupported[t]) +
                           "'s (" + where + " uses it); only PNG and JPEG images are supported.");
        r.texture_unsupported[t].clear();  // once
      }
    }
  }
  for (size_t i = 0; i < image_used.size(); ++i) {
    if (image_used[i] && r.image_valid[i] && !r.budget_exceeded) decode_image(r, i);
  }
}

}  // namespace animpack::gltf_internal
