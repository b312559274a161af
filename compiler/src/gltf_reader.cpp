// The cooker's glTF 2.0 reader (see gltf_reader.h).
//
// Implements Khronos glTF 2.0 (2.0.1): "GLB File Format Specification", "Buffers and
// Buffer Views", "Accessors" (data alignment, sparse accessors, normalised integers),
// "Meshes" (skinned mesh attributes), "Nodes and Hierarchy", "Skins", "Animations". The
// checks and their JSON pointers follow Khronos glTF-Validator where it has the same
// check, so the corpus' expected reports (tests/data/corpus/invalid-gltf) can be compared.
//
// Stages, each a free function over the Reader, in the order the data depends on:
//   container (GLB or JSON) -> JSON parse -> asset -> buffers -> bufferViews -> accessors
//   (all decoded) -> meshes -> nodes (+ hierarchy) -> skins -> scenes -> skinning data
//   -> animations.
// A stage marks an object unusable only after reporting an error about it, so that later
// stages can skip it silently and the document is never "ok" with missing parts.
//
// The stages live in compiler/src/gltf/ (one file per concern, reader_internal.h for what
// they share); this file runs them (read_document) and holds the public functions.

#include "animpack/compiler/gltf_reader.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <new>
#include <optional>
#include <string>

#include "gltf/reader_internal.h"

namespace animpack {
namespace gltf_internal {

// ---------------------------------------------------------------------------------------
// Stage: asset and extensions

void read_asset(Reader& r) {
  const json* asset = get_object(r.issues, r.root, "", "asset", Need::kRequired);
  if (asset) {
    const std::optional<std::string> version =
        get_string(r.issues, *asset, "/asset", "version", Need::kRequired);
    if (version) {
      const size_t dot = version->find('.');
      const auto digits = [](std::string_view s) {
        return !s.empty() &&
               std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
      };
      if (dot == std::string::npos || !digits(std::string_view(*version).substr(0, dot)) ||
          !digits(std::string_view(*version).substr(dot + 1))) {
        r.issues.error("/asset/version", "PATTERN_MISMATCH",
                       "Value " + in_quotes(*version) + " does not match <major>.<minor>.");
      } else if (version->substr(0, dot) != "2") {
        r.issues.error("/asset/version", "UNKNOWN_ASSET_MAJOR_VERSION",
                       "Unknown glTF major asset version: " + version->substr(0, dot) + ".");
      }
    }
    r.doc.generator =
        get_string(r.issues, *asset, "/asset", "generator", Need::kOptional).value_or("");
  }

  if (const json* used = get_array(r.issues, r.root, "", "extensionsUsed", Need::kOptional)) {
    std::vector<std::string> warned;
    for (size_t i = 0; i < used->size(); ++i) {
      const json& e = (*used)[i];
      if (!e.is_string()) continue;
      const std::string name = e.get<std::string>();
      if (name == "KHR_mesh_quantization") {
        r.mesh_quantization = true;
      } else if (name == "KHR_texture_transform" || name == "KHR_materials_emissive_strength") {
        // Read wherever a material or textureInfo has them.
      } else if (std::find(warned.begin(), warned.end(), name) == warned.end()) {
        warned.push_back(name);
        r.issues.warning(idx("/extensionsUsed", i), "UNSUPPORTED_EXTENSION",
                         "Extension " + in_quotes(name) + " is not supported; it is ignored.");
      }
    }
  }
  if (const json* required =
          get_array(r.issues, r.root, "", "extensionsRequired", Need::kOptional)) {
    for (size_t i = 0; i < required->size(); ++i) {
      const json& e = (*required)[i];
      if (!e.is_string()) continue;
      const std::string name = e.get<std::string>();
      if (name != "KHR_mesh_quantization" && name != "KHR_texture_transform" &&
          name != "KHR_materials_emissive_strength") {
        r.issues.error(idx("/extensionsRequired", i), "UNSUPPORTED_EXTENSION",
                       "Required extension " + in_quotes(name) + " is not supported.");
      }
    }
  }
}

}  // namespace gltf_internal

namespace {

using namespace gltf_internal;  // NOLINT(google-build-using-namespace): the reader's own parts

// ---------------------------------------------------------------------------------------
// Driver

bool is_glb_extension(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".glb";
}

void read_document(std::span<const uint8_t> bytes, const std::filesystem::path& base_dir,
                   GltfContainer container, GltfDocument* doc) {
  Issues issues(&doc->issues);
  const bool glb = container == GltfContainer::kGlb ||
                   (container == GltfContainer::kDetect && bytes.size() >= 4 &&
                    read_u32(bytes.data()) == kGlbMagic);
  Container c;
  if (glb) {
    c = read_glb(bytes, issues);
    if (!c.ok) return;
  } else {
    c.ok = true;
    c.json = bytes;
  }
  std::span<const uint8_t> text = c.json;
  // Some old exporters pad the JSON chunk with NULs instead of spaces; accept that.
  while (c.is_glb && !text.empty() && text.back() == 0) text = text.first(text.size() - 1);
  const std::optional<json> root = parse_json(text, c.json_offset, issues);
  if (!root) return;

  Reader r(doc, &*root, base_dir, &c);
  read_asset(r);
  read_buffers(r);
  read_buffer_views(r);
  read_accessors(r);
  read_samplers(r);
  read_images(r);
  read_textures(r);
  read_materials(r);
  read_meshes(r);
  check_primitive_texcoords(r);
  read_nodes(r);
  read_skins(r);
  read_scenes(r);
  check_skinning_data(r);
  read_animations(r);
  decode_used_images(r);
}

// Runs `body`, turning any exception into an issue: nothing escapes the reader.
template <typename Body>
void guarded(GltfDocument* doc, Body&& body) {
  try {
    body();
  } catch (const std::bad_alloc&) {
    doc->issues.push_back(
        {"", "RESOURCE_LIMIT", "Out of memory while reading the file.", true, -1});
  } catch (const std::exception& e) {
    doc->issues.push_back(
        {"", "INTERNAL_ERROR", std::string("Unexpected failure: ") + e.what(), true, -1});
  } catch (...) {
    doc->issues.push_back({"", "INTERNAL_ERROR", "Unexpected failure.", true, -1});
  }
}

}  // namespace

bool is_gltf_issue_code(std::string_view code) {
  return std::any_of(std::begin(kGltfIssueCodes), std::end(kGltfIssueCodes),
                     [&](const GltfCodeInfo& info) { return info.code == code; });
}

int gltf_component_count(GltfAccessorType type) {
  switch (type) {
    case GltfAccessorType::kScalar:
      return 1;
    case GltfAccessorType::kVec2:
      return 2;
    case GltfAccessorType::kVec3:
      return 3;
    case GltfAccessorType::kVec4:
    case GltfAccessorType::kMat2:
      return 4;
    case GltfAccessorType::kMat3:
      return 9;
    case GltfAccessorType::kMat4:
      return 16;
  }
  return 1;
}

bool GltfDocument::ok() const {
  return std::none_of(issues.begin(), issues.end(), [](const GltfIssue& i) { return i.error; });
}

GltfDocument read_gltf(const std::filesystem::path& file) {
  GltfDocument doc;
  guarded(&doc, [&] {
    Issues issues(&doc.issues);
    std::vector<uint8_t> bytes;
    uint64_t size = 0;
    std::string why;
    const ReadStatus status = read_file(file, std::nullopt, &bytes, &size, &why);
    if (status == ReadStatus::kTooLarge) {
      issues.error("", "RESOURCE_LIMIT",
                   "The file has " + std::to_string(size) + " bytes; the limit is " +
                       std::to_string(kGltfMaxDecodedBytes) + ".");
      return;
    }
    if (status != ReadStatus::kOk) {
      issues.error("", "IO_ERROR", "Cannot open or read the file: " + why + ".");
      return;
    }
    doc.files.push_back(file);
    read_document(bytes, file.parent_path(),
                  is_glb_extension(file) ? GltfContainer::kGlb : GltfContainer::kDetect, &doc);
  });
  return doc;
}

GltfDocument read_gltf(std::span<const uint8_t> bytes, const std::filesystem::path& base_dir,
                       GltfContainer container) {
  GltfDocument doc;
  guarded(&doc, [&] { read_document(bytes, base_dir, container, &doc); });
  return doc;
}

std::string format_gltf_issue(const std::filesystem::path& file, const GltfIssue& issue) {
  std::string out = file.string();
  out += issue.error ? ": error: " : ": warning: ";
  if (!issue.pointer.empty()) {
    out += issue.pointer + ": ";
  } else if (issue.offset >= 0) {
    out += "byte " + std::to_string(issue.offset) + ": ";
  }
  out += issue.message;
  out += " [" + issue.code + "]";
  return out;
}

}  // namespace animpack
