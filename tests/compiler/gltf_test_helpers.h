// Helpers shared by the glTF reader's tests (gltf_reader_test.cpp, gltf_morph_test.cpp):
// reading test files and their JSON, building buffers and GLBs in memory, reading them,
// and finding issues by code and pointer.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/compiler/gltf_reader.h"
#include "fixtures/test_data.h"

namespace animpack::gltf_test {

using nlohmann::json;
namespace fs = std::filesystem;

inline std::vector<uint8_t> read_bytes(const fs::path& file) {
  return animpack::test_data::read_test_bytes(file);
}

inline std::vector<uint8_t> bytes_of(std::string_view text) {
  return std::vector<uint8_t>(text.begin(), text.end());
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

// All issues, one per line, for failure messages.
inline std::string describe(const GltfDocument& doc, const fs::path& file = "doc") {
  std::string out;
  for (const GltfIssue& issue : doc.issues) out += format_gltf_issue(file, issue) + "\n";
  return out;
}

inline bool has_issue(const GltfDocument& doc, std::string_view code, std::string_view pointer,
                      bool error) {
  return std::any_of(doc.issues.begin(), doc.issues.end(), [&](const GltfIssue& i) {
    return i.code == code && i.pointer == pointer && i.error == error;
  });
}

inline bool has_error_code(const GltfDocument& doc, std::string_view code) {
  return std::any_of(doc.issues.begin(), doc.issues.end(),
                     [&](const GltfIssue& i) { return i.error && i.code == code; });
}

inline std::string base64(const std::vector<uint8_t>& data) {
  static const char* kDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < data.size(); i += 3) {
    const uint32_t n = (data[i] << 16) | (i + 1 < data.size() ? data[i + 1] << 8 : 0) |
                       (i + 2 < data.size() ? data[i + 2] : 0);
    out += kDigits[(n >> 18) & 63];
    out += kDigits[(n >> 12) & 63];
    out += i + 1 < data.size() ? kDigits[(n >> 6) & 63] : '=';
    out += i + 2 < data.size() ? kDigits[n & 63] : '=';
  }
  return out;
}

inline void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + k] = static_cast<uint8_t>(v >> (8 * k));
}
inline void put_f32(std::vector<uint8_t>& b, size_t at, float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  put_u32(b, at, u);
}
inline void put_u16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v);
  b[at + 1] = static_cast<uint8_t>(v >> 8);
}

inline GltfDocument read_memory(const std::vector<uint8_t>& bytes, const fs::path& base = ".") {
  return read_gltf(std::span<const uint8_t>(bytes), base);
}

inline GltfDocument read_text(std::string_view text) { return read_memory(bytes_of(text)); }

}  // namespace animpack::gltf_test
