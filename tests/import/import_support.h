// Helpers shared by the import tests: a tiny glTF writer (JSON + one binary buffer, as a
// .glb or a .gltf with a base64 data: URI), the corpus location, JSON access and
// double-precision node transforms computed straight from a file's JSON.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"
#include "fixtures/test_data.h"

namespace animpack::import_test {

using nlohmann::json;
namespace fs = std::filesystem;

inline const fs::path kCorpus = fs::path(ANIMPACK_CORPUS_DIR);

// ---------------------------------------------------------------------------------------
// Files and issues

inline std::vector<uint8_t> read_bytes(const fs::path& file) {
  return animpack::test_data::read_test_bytes(file);
}

inline uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) {
  return static_cast<uint32_t>(b[at]) | (static_cast<uint32_t>(b[at + 1]) << 8) |
         (static_cast<uint32_t>(b[at + 2]) << 16) | (static_cast<uint32_t>(b[at + 3]) << 24);
}

// The JSON of a .gltf, or of a .glb's first chunk.
inline json json_of(const fs::path& file) {
  const std::vector<uint8_t> bytes = read_bytes(file);
  if (file.extension() == ".glb") {
    const uint32_t length = u32_at(bytes, 12);
    return json::parse(bytes.begin() + 20, bytes.begin() + 20 + length);
  }
  return json::parse(bytes.begin(), bytes.end());
}

// Every issue, one per line, for failure messages.
inline std::string describe(const std::vector<ImportIssue>& issues) {
  std::string out;
  for (const ImportIssue& i : issues) {
    out +=
        (i.error ? "error " : "warning ") + i.code + " at '" + i.pointer + "': " + i.message + "\n";
  }
  return out;
}

inline std::string describe(const GltfDocument& doc) {
  std::string out;
  for (const GltfIssue& issue : doc.issues) out += format_gltf_issue("doc", issue) + "\n";
  return out;
}

inline bool has_issue(const ImportedModel& model, std::string_view code, std::string_view pointer,
                      bool error) {
  return std::any_of(model.issues.begin(), model.issues.end(), [&](const ImportIssue& i) {
    return i.code == code && i.pointer == pointer && i.error == error;
  });
}

inline int count_code(const ImportedModel& model, std::string_view code) {
  return static_cast<int>(std::count_if(model.issues.begin(), model.issues.end(),
                                        [&](const ImportIssue& i) { return i.code == code; }));
}

// ---------------------------------------------------------------------------------------
// A tiny glTF writer

class GltfWriter {
 public:
  GltfWriter() {
    doc["asset"] = {{"version", "2.0"}, {"generator", "animpack import_tests"}};
    doc["buffers"] = json::array();
    doc["bufferViews"] = json::array();
    doc["accessors"] = json::array();
    doc["nodes"] = json::array();
    doc["meshes"] = json::array();
  }

  // Float accessor of `count` elements of `type` ("SCALAR", "VEC3", "MAT4", ...); with
  // `bounds` its exact min and max are written.
  int floats(std::span<const float> values, const char* type, bool bounds = false) {
    const int n = components(type);
    const size_t count = values.size() / static_cast<size_t>(n);
    json acc = {{"bufferView", view(values.data(), values.size() * 4)},
                {"componentType", 5126},
                {"count", count},
                {"type", type}};
    if (bounds) {
      std::vector<double> lo(static_cast<size_t>(n), 1e300), hi(static_cast<size_t>(n), -1e300);
      for (size_t i = 0; i < values.size(); ++i) {
        const size_t c = i % static_cast<size_t>(n);
        lo[c] = std::min(lo[c], static_cast<double>(values[i]));
        hi[c] = std::max(hi[c], static_cast<double>(values[i]));
      }
      acc["min"] = lo;
      acc["max"] = hi;
    }
    return add_accessor(std::move(acc));
  }
  int vec3s(const std::vector<Vec3>& v, bool bounds) {
    return floats({&v[0].x, v.size() * 3}, "VEC3", bounds);
  }
  int vec4s(const std::vector<Vec4>& v) { return floats({&v[0].x, v.size() * 4}, "VEC4"); }
  int mat4s(const std::vector<Mat4>& m) { return floats({m[0].m, m.size() * 16}, "MAT4"); }
  // UNSIGNED_SHORT accessor (JOINTS_0 as VEC4, or SCALAR indices).
  int u16s(std::span<const uint16_t> values, const char* type) {
    return add_accessor({{"bufferView", view(values.data(), values.size() * 2)},
                         {"componentType", 5123},
                         {"count", values.size() / static_cast<size_t>(components(type))},
                         {"type", type}});
  }
  // UNSIGNED_INT SCALAR indices.
  int u32s(std::span<const uint32_t> values) {
    return add_accessor({{"bufferView", view(values.data(), values.size() * 4)},
                         {"componentType", 5125},
                         {"count", values.size()},
                         {"type", "SCALAR"}});
  }

  // A buffer view of raw bytes (an image's data); its index.
  int bytes_view(std::span<const uint8_t> bytes) { return view(bytes.data(), bytes.size()); }
  // A VEC2 float accessor (TEXCOORD_n).
  int vec2s(const std::vector<Vec2>& v) { return floats({&v[0].x, v.size() * 2}, "VEC2"); }
  // An accessor of raw integer components (`component_type` 5121 or 5123), normalised or not.
  int ints(std::span<const uint16_t> values, int component_type, const char* type,
           bool normalized) {
    std::vector<uint8_t> raw;
    for (uint16_t v : values) {
      raw.push_back(static_cast<uint8_t>(v));
      if (component_type == 5123) raw.push_back(static_cast<uint8_t>(v >> 8));
    }
    json acc = {{"bufferView", view(raw.data(), raw.size())},
                {"componentType", component_type},
                {"count", values.size() / static_cast<size_t>(components(type))},
                {"type", type}};
    if (normalized) acc["normalized"] = true;
    return add_accessor(std::move(acc));
  }

  int node(json n) { return push(doc["nodes"], std::move(n)); }
  int mesh(json m) { return push(doc["meshes"], std::move(m)); }
  int skin(json s) { return push(doc["skins"], std::move(s)); }
  // One animation with one sampler per channel: (node, path, interpolation, times, values).
  struct Track {
    int node;
    const char* path;
    const char* interpolation;
    std::vector<float> times;
    std::vector<float> values;
  };
  int animation(const char* name, const std::vector<Track>& tracks) {
    json anim = {{"channels", json::array()}, {"samplers", json::array()}};
    if (name) anim["name"] = name;
    for (const Track& t : tracks) {
      const std::string path = t.path;
      const char* type = path == "rotation" ? "VEC4" : path == "weights" ? "SCALAR" : "VEC3";
      const int input = floats(t.times, "SCALAR", true);
      const int output = floats(t.values, type);
      const int sampler =
          push(anim["samplers"],
               {{"input", input}, {"output", output}, {"interpolation", t.interpolation}});
      anim["channels"].push_back(
          {{"sampler", sampler}, {"target", {{"node", t.node}, {"path", t.path}}}});
    }
    return push(doc["animations"], std::move(anim));
  }
  void scene(std::vector<int> roots) {
    doc["scenes"] = json::array({{{"nodes", roots}}});
    doc["scene"] = 0;
  }

  // The document as a .glb (JSON chunk + BIN chunk).
  std::vector<uint8_t> glb() const {
    json d = doc;
    d["buffers"] = json::array({{{"byteLength", bin.size()}}});
    std::string text = d.dump();
    while (text.size() % 4 != 0) text += ' ';
    std::vector<uint8_t> data = bin;
    while (data.size() % 4 != 0) data.push_back(0);
    std::vector<uint8_t> out;
    put(out, 0x46546C67);
    put(out, 2);
    put(out, static_cast<uint32_t>(12 + 8 + text.size() + 8 + data.size()));
    put(out, static_cast<uint32_t>(text.size()));
    put(out, 0x4E4F534A);
    out.insert(out.end(), text.begin(), text.end());
    put(out, static_cast<uint32_t>(data.size()));
    put(out, 0x004E4942);
    out.insert(out.end(), data.begin(), data.end());
    return out;
  }

  // The document as a .gltf whose buffer is a base64 data: URI.
  std::vector<uint8_t> gltf() const {
    json d = doc;
    d["buffers"] = json::array({{{"byteLength", bin.size()},
                                 {"uri", "data:application/octet-stream;base64," + base64()}}});
    const std::string text = d.dump(1);
    return std::vector<uint8_t>(text.begin(), text.end());
  }

  // Written and read back (as a .glb or a .gltf).
  GltfDocument read(bool as_glb = true) const {
    const std::vector<uint8_t> bytes = as_glb ? glb() : gltf();
    return read_gltf(std::span<const uint8_t>(bytes), ".",
                     as_glb ? GltfContainer::kGlb : GltfContainer::kJson);
  }

  json doc;
  std::vector<uint8_t> bin;

 private:
  static int components(std::string_view type) {
    if (type == "SCALAR") return 1;
    if (type == "VEC2") return 2;
    if (type == "VEC3") return 3;
    if (type == "VEC4") return 4;
    return 16;  // MAT4
  }
  static int push(json& array, json value) {
    if (!array.is_array()) array = json::array();
    array.push_back(std::move(value));
    return static_cast<int>(array.size()) - 1;
  }
  static void put(std::vector<uint8_t>& out, uint32_t v) {
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<uint8_t>(v >> (8 * k)));
  }
  int view(const void* data, size_t bytes) {
    while (bin.size() % 4 != 0) bin.push_back(0);
    const size_t offset = bin.size();
    bin.resize(offset + bytes);
    if (bytes > 0) std::memcpy(bin.data() + offset, data, bytes);
    return push(doc["bufferViews"], {{"buffer", 0}, {"byteOffset", offset}, {"byteLength", bytes}});
  }
  int add_accessor(json acc) { return push(doc["accessors"], std::move(acc)); }
  std::string base64() const {
    static const char* kDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (size_t i = 0; i < bin.size(); i += 3) {
      const uint32_t n = (static_cast<uint32_t>(bin[i]) << 16) |
                         (i + 1 < bin.size() ? static_cast<uint32_t>(bin[i + 1]) << 8 : 0) |
                         (i + 2 < bin.size() ? static_cast<uint32_t>(bin[i + 2]) : 0);
      out += kDigits[(n >> 18) & 63];
      out += kDigits[(n >> 12) & 63];
      out += i + 1 < bin.size() ? kDigits[(n >> 6) & 63] : '=';
      out += i + 2 < bin.size() ? kDigits[n & 63] : '=';
    }
    return out;
  }
};

// ---------------------------------------------------------------------------------------
// Double-precision transforms straight from a file's JSON

// Column-major 4x4, m[col * 4 + row], like Mat4.
using DMat = std::array<double, 16>;

inline DMat dmat_identity() { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}; }

inline DMat operator*(const DMat& a, const DMat& b) {
  DMat r{};
  for (int c = 0; c < 4; ++c) {
    for (int row = 0; row < 4; ++row) {
      double s = 0;
      for (int k = 0; k < 4; ++k)
        s += a[static_cast<size_t>(k * 4 + row)] * b[static_cast<size_t>(c * 4 + k)];
      r[static_cast<size_t>(c * 4 + row)] = s;
    }
  }
  return r;
}

inline DMat dmat_of(const Mat4& m) {
  DMat r;
  for (size_t i = 0; i < 16; ++i) r[i] = m.m[i];
  return r;
}

inline std::array<double, 3> dpoint(const DMat& m, Vec3 p) {
  std::array<double, 3> r;
  for (size_t row = 0; row < 3; ++row) {
    r[row] = m[row] * p.x + m[4 + row] * p.y + m[8 + row] * p.z + m[12 + row];
  }
  return r;
}

// A node's local matrix from its JSON: "matrix", or T * R * S.
inline DMat json_local(const json& node) {
  if (node.contains("matrix")) {
    DMat m;
    for (size_t i = 0; i < 16; ++i) m[i] = node["matrix"][i].get<double>();
    return m;
  }
  double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
  for (size_t i = 0; i < 3 && node.contains("translation"); ++i) t[i] = node["translation"][i];
  for (size_t i = 0; i < 4 && node.contains("rotation"); ++i) q[i] = node["rotation"][i];
  for (size_t i = 0; i < 3 && node.contains("scale"); ++i) s[i] = node["scale"][i];
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  return {(1 - 2 * (y * y + z * z)) * s[0],
          2 * (x * y + w * z) * s[0],
          2 * (x * z - w * y) * s[0],
          0,
          2 * (x * y - w * z) * s[1],
          (1 - 2 * (x * x + z * z)) * s[1],
          2 * (y * z + w * x) * s[1],
          0,
          2 * (x * z + w * y) * s[2],
          2 * (y * z - w * x) * s[2],
          (1 - 2 * (x * x + y * y)) * s[2],
          0,
          t[0],
          t[1],
          t[2],
          1};
}

// The default scene of a file's JSON walked depth first: the nodes in order, each node's
// parent (-1 for roots and unwalked nodes) and world matrix.
struct JsonScene {
  std::vector<int> order;
  std::vector<int> parent;
  std::vector<bool> walked;
  std::vector<DMat> world;
};

inline JsonScene json_scene(const json& doc) {
  const size_t n = doc.contains("nodes") ? doc["nodes"].size() : 0;
  JsonScene s;
  s.parent.assign(n, -1);
  s.walked.assign(n, false);
  s.world.assign(n, dmat_identity());
  std::vector<int> roots;
  if (doc.contains("scenes") && !doc["scenes"].empty()) {
    const size_t scene = doc.value("scene", 0);
    roots = doc["scenes"][scene].value("nodes", std::vector<int>{});
  } else {
    std::vector<bool> child(n, false);
    for (const json& node : doc["nodes"]) {
      for (int c : node.value("children", std::vector<int>{})) child[static_cast<size_t>(c)] = true;
    }
    for (size_t i = 0; i < n; ++i) {
      if (!child[i]) roots.push_back(static_cast<int>(i));
    }
  }
  std::vector<std::pair<int, int>> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, -1});
  while (!stack.empty()) {
    const auto [node, parent] = stack.back();
    stack.pop_back();
    const size_t u = static_cast<size_t>(node);
    s.walked[u] = true;
    s.parent[u] = parent;
    s.order.push_back(node);
    const DMat local = json_local(doc["nodes"][u]);
    s.world[u] = parent < 0 ? local : s.world[static_cast<size_t>(parent)] * local;
    const std::vector<int> children = doc["nodes"][u].value("children", std::vector<int>{});
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back({*it, node});
  }
  return s;
}

inline double max_abs(const DMat& m) {
  double out = 0.0;
  for (double v : m) out = std::max(out, std::fabs(v));
  return out;
}

// |a - b| <= tolerance * max(1, magnitude, largest |b| entry), entry by entry: relative to
// the size of the quantities b was computed from (`magnitude`), so that an entry that
// cancels to near zero is held to the precision of its terms.
inline ::testing::AssertionResult matrices_near(const Mat4& a, const DMat& b, double tolerance,
                                                double magnitude = 0.0) {
  const double scale = std::max({1.0, magnitude, max_abs(b)});
  for (size_t i = 0; i < 16; ++i) {
    if (!(std::fabs(static_cast<double>(a.m[i]) - b[i]) <= tolerance * scale)) {
      return ::testing::AssertionFailure()
             << "entry " << i << ": " << a.m[i] << " vs " << b[i] << " (scale " << scale << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace animpack::import_test
