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

#include "animpack/compiler/gltf_reader.h"

#include <stb/stb_image.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "animpack/compiler/input_file.h"
#include "animpack/pack.h"

namespace animpack {
namespace {

using nlohmann::json;

static_assert(kGltfMaxImageSide == kMaxTextureSide, "an image the reader decodes fits a pack");
constexpr uint64_t kMaxSafeInteger = (uint64_t{1} << 53) - 1;  // glTF's integer limit
constexpr uint32_t kGlbMagic = 0x46546C67;                     // "glTF"
constexpr uint32_t kChunkJson = 0x4E4F534A;                    // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942;                     // "BIN\0"
constexpr uint64_t kGlbHeaderSize = 12;
constexpr uint64_t kChunkHeaderSize = 8;
// glTF-Validator's tolerances: a unit quaternion may be off by slightly more than the
// error of signed 8-bit quantisation; a weight sum by one 8-bit step per pair of joints.
constexpr double kUnitLengthThreshold = 0.00769;
constexpr double kUnitSumThresholdStep = 0.0039216;

// ---------------------------------------------------------------------------------------
// Issues

consteval bool is_listed_code(std::string_view code) {
  for (const GltfCodeInfo& info : kGltfIssueCodes) {
    if (info.code == code) return true;
  }
  return false;
}

// An issue code, checked against kGltfIssueCodes when this file is compiled: a code that
// is not in the table does not compile.
// Clang 14 hazard: do not report issues inside a `switch` case. Clang 14 miscompiles an
// immediate (consteval) invocation in a full-expression with temporaries there
// (stack-use-after-scope, double free; seen under ASan); `if` chains are fine.
class Code {
 public:
  // Implicit on purpose: issues.error(at, "ACCESSOR_TOO_LONG", ...).
  consteval Code(const char* id) : id_(id) {  // NOLINT(google-explicit-constructor)
    if (!is_listed_code(id_)) throw "issue code missing from kGltfIssueCodes";
  }
  std::string_view id() const { return id_; }

 private:
  std::string_view id_;
};

// Collects issues in the order they are found.
class Issues {
 public:
  explicit Issues(std::vector<GltfIssue>* out) : out_(out) {}

  void error(std::string pointer, Code code, std::string message) {
    add(std::move(pointer), code, std::move(message), true, -1);
  }
  void warning(std::string pointer, Code code, std::string message) {
    add(std::move(pointer), code, std::move(message), false, -1);
  }
  // Container-level issues carry a byte offset instead of a pointer.
  void error_at(int64_t offset, Code code, std::string message) {
    add({}, code, std::move(message), true, offset);
  }
  void warning_at(int64_t offset, Code code, std::string message) {
    add({}, code, std::move(message), false, offset);
  }
  // The number of errors so far; a stage compares it before and after a check.
  size_t errors() const { return errors_; }

 private:
  void add(std::string pointer, Code code, std::string message, bool error, int64_t offset) {
    out_->push_back(
        GltfIssue{std::move(pointer), std::string(code.id()), std::move(message), error, offset});
    if (error) ++errors_;
  }

  std::vector<GltfIssue>* out_;
  size_t errors_ = 0;
};

// ---------------------------------------------------------------------------------------
// Small helpers

// RFC 6901: "~" -> "~0", "/" -> "~1".
std::string escape_pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

// base + "/" + key.
std::string ptr(std::string_view base, std::string_view key) {
  std::string out(base);
  out += '/';
  out += escape_pointer_token(key);
  return out;
}

// base + "/" + index.
std::string idx(std::string_view base, size_t index) {
  std::string out(base);
  out += '/';
  out += std::to_string(index);
  return out;
}

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

// A double as float without undefined behaviour: beyond float's range gives infinity.
float to_float(double v) {
  if (std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
  if (v > static_cast<double>(std::numeric_limits<float>::max())) {
    return std::numeric_limits<float>::infinity();
  }
  if (v < -static_cast<double>(std::numeric_limits<float>::max())) {
    return -std::numeric_limits<float>::infinity();
  }
  return static_cast<float>(v);
}

uint16_t read_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

uint32_t read_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

// ---------------------------------------------------------------------------------------
// JSON access: each getter reports what is wrong at the property's pointer and returns
// nothing, so callers only decide what an absent or bad value means for them.

enum class Need { kOptional, kRequired };

const json* find(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const json* lookup(Issues& issues, const json& obj, const std::string& at, const char* key,
                   Need need) {
  const json* v = find(obj, key);
  if (!v && need == Need::kRequired) {
    // The root object's pointer is "/", as glTF-Validator writes it.
    issues.error(at.empty() ? "/" : at, "UNDEFINED_PROPERTY",
                 "Property " + in_quotes(key) + " must be defined.");
  }
  return v;
}

void type_mismatch(Issues& issues, const std::string& at, const json& v, const char* expected) {
  issues.error(
      at, "TYPE_MISMATCH",
      std::string("Type mismatch: found ") + v.type_name() + ", expected " + expected + ".");
}

std::optional<uint64_t> get_uint(Issues& issues, const json& obj, const std::string& at,
                                 const char* key, Need need, uint64_t lo = 0,
                                 uint64_t hi = kMaxSafeInteger) {
  const json* v = lookup(issues, obj, at, key, need);
  if (!v) return std::nullopt;
  const std::string p = ptr(at, key);
  if (!v->is_number_integer()) {
    type_mismatch(issues, p, *v, "an integer");
    return std::nullopt;
  }
  if (!v->is_number_unsigned()) {  // only negative integers are stored signed
    issues.error(p, "VALUE_NOT_IN_RANGE",
                 "Value " + std::to_string(v->get<int64_t>()) + " is out of range.");
    return std::nullopt;
  }
  const uint64_t u = v->get<uint64_t>();
  if (u < lo || u > hi) {
    issues.error(p, "VALUE_NOT_IN_RANGE", "Value " + std::to_string(u) + " is out of range.");
    return std::nullopt;
  }
  return u;
}

// An index into an array of `count` objects.
std::optional<int> get_index(Issues& issues, const json& obj, const std::string& at,
                             const char* key, size_t count, Need need) {
  const std::optional<uint64_t> u = get_uint(issues, obj, at, key, need);
  if (!u) return std::nullopt;
  if (*u >= count) {
    issues.error(ptr(at, key), "UNRESOLVED_REFERENCE",
                 "Unresolved reference: " + std::to_string(*u) + ".");
    return std::nullopt;
  }
  return static_cast<int>(*u);
}

std::optional<std::string> get_string(Issues& issues, const json& obj, const std::string& at,
                                      const char* key, Need need) {
  const json* v = lookup(issues, obj, at, key, need);
  if (!v) return std::nullopt;
  if (!v->is_string()) {
    type_mismatch(issues, ptr(at, key), *v, "a string");
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::string get_name(Issues& issues, const json& obj, const std::string& at) {
  return get_string(issues, obj, at, "name", Need::kOptional).value_or(std::string());
}

std::optional<bool> get_bool(Issues& issues, const json& obj, const std::string& at,
                             const char* key) {
  const json* v = find(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) {
    type_mismatch(issues, ptr(at, key), *v, "a boolean");
    return std::nullopt;
  }
  return v->get<bool>();
}

const json* get_object(Issues& issues, const json& obj, const std::string& at, const char* key,
                       Need need) {
  const json* v = lookup(issues, obj, at, key, need);
  if (!v) return nullptr;
  if (!v->is_object()) {
    type_mismatch(issues, ptr(at, key), *v, "an object");
    return nullptr;
  }
  return v;
}

// An array; an empty one is reported (EMPTY_ENTITY) and returned as absent.
const json* get_array(Issues& issues, const json& obj, const std::string& at, const char* key,
                      Need need) {
  const json* v = lookup(issues, obj, at, key, need);
  if (!v) return nullptr;
  if (!v->is_array()) {
    type_mismatch(issues, ptr(at, key), *v, "an array");
    return nullptr;
  }
  if (v->empty()) {
    issues.error(ptr(at, key), "EMPTY_ENTITY", "Entity cannot be empty.");
    return nullptr;
  }
  return v;
}

// A fixed-length array of numbers. False when absent (silently) or bad (reported).
bool get_numbers(Issues& issues, const json& obj, const std::string& at, const char* key, size_t n,
                 double* out) {
  const json* v = find(obj, key);
  if (!v) return false;
  const std::string p = ptr(at, key);
  if (!v->is_array()) {
    type_mismatch(issues, p, *v, "an array of numbers");
    return false;
  }
  if (v->size() != n) {
    issues.error(p, "ARRAY_LENGTH_NOT_IN_LIST",
                 "Invalid array length " + std::to_string(v->size()) + "; expected " +
                     std::to_string(n) + ".");
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < n; ++i) {
    const json& e = (*v)[i];
    if (!e.is_number()) {
      type_mismatch(issues, idx(p, i), e, "a number");
      ok = false;
    } else {
      out[i] = e.get<double>();
    }
  }
  return ok;
}

// A list of distinct indices < count. nullopt when absent or not an array (reported);
// otherwise one entry per element, -1 for an element reported as bad (a repeat is bad at
// its second occurrence). Costs O(k log k) for k elements, whatever `count` is.
std::optional<std::vector<int>> get_index_list(Issues& issues, const json& obj,
                                               const std::string& at, const char* key, size_t count,
                                               Need need) {
  const json* v = get_array(issues, obj, at, key, need);
  if (!v) return std::nullopt;
  const std::string p = ptr(at, key);
  std::vector<int> out(v->size(), -1);
  std::vector<std::pair<int, size_t>> sorted;  // (index, position), to find repeats
  for (size_t i = 0; i < v->size(); ++i) {
    const json& e = (*v)[i];
    if (!e.is_number_unsigned()) {
      type_mismatch(issues, idx(p, i), e, "a non-negative integer");
      continue;
    }
    const uint64_t u = e.get<uint64_t>();
    if (u >= count) {
      issues.error(idx(p, i), "UNRESOLVED_REFERENCE",
                   "Unresolved reference: " + std::to_string(u) + ".");
      continue;
    }
    out[i] = static_cast<int>(u);
    sorted.push_back({out[i], i});
  }
  std::sort(sorted.begin(), sorted.end());
  std::vector<bool> repeat(v->size(), false);
  for (size_t k = 1; k < sorted.size(); ++k) {
    if (sorted[k].first == sorted[k - 1].first) repeat[sorted[k].second] = true;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!repeat[i]) continue;
    issues.error(idx(p, i), "DUPLICATE_ELEMENTS",
                 "Index " + std::to_string(out[i]) + " is listed twice.");
    out[i] = -1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Component types and element layout

std::optional<GltfComponentType> component_type_of(uint64_t v) {
  switch (v) {
    case 5120:
      return GltfComponentType::kByte;
    case 5121:
      return GltfComponentType::kUnsignedByte;
    case 5122:
      return GltfComponentType::kShort;
    case 5123:
      return GltfComponentType::kUnsignedShort;
    case 5125:
      return GltfComponentType::kUnsignedInt;
    case 5126:
      return GltfComponentType::kFloat;
    default:
      return std::nullopt;
  }
}

const char* component_type_name(GltfComponentType t) {
  switch (t) {
    case GltfComponentType::kByte:
      return "BYTE";
    case GltfComponentType::kUnsignedByte:
      return "UNSIGNED_BYTE";
    case GltfComponentType::kShort:
      return "SHORT";
    case GltfComponentType::kUnsignedShort:
      return "UNSIGNED_SHORT";
    case GltfComponentType::kUnsignedInt:
      return "UNSIGNED_INT";
    case GltfComponentType::kFloat:
      return "FLOAT";
  }
  return "?";
}

uint32_t component_size(GltfComponentType t) {
  switch (t) {
    case GltfComponentType::kByte:
    case GltfComponentType::kUnsignedByte:
      return 1;
    case GltfComponentType::kShort:
    case GltfComponentType::kUnsignedShort:
      return 2;
    case GltfComponentType::kUnsignedInt:
    case GltfComponentType::kFloat:
      return 4;
  }
  return 4;
}

constexpr const char* kAccessorTypeNames[] = {"SCALAR", "VEC2", "VEC3", "VEC4",
                                              "MAT2",   "MAT3", "MAT4"};

std::optional<GltfAccessorType> accessor_type_of(std::string_view name) {
  for (size_t i = 0; i < std::size(kAccessorTypeNames); ++i) {
    if (name == kAccessorTypeNames[i]) return static_cast<GltfAccessorType>(i);
  }
  return std::nullopt;
}

const char* accessor_type_name(GltfAccessorType t) {
  return kAccessorTypeNames[static_cast<size_t>(t)];
}

bool is_matrix(GltfAccessorType t) {
  return t == GltfAccessorType::kMat2 || t == GltfAccessorType::kMat3 ||
         t == GltfAccessorType::kMat4;
}

// "{VEC4, UNSIGNED_BYTE normalized}", for messages.
std::string format_of(const GltfAccessor& a) {
  std::string s = "{";
  s += accessor_type_name(a.type);
  s += ", ";
  s += component_type_name(a.component_type);
  if (a.normalized) s += " normalized";
  s += "}";
  return s;
}

// Bytes of one element in a buffer view. Matrix columns start on 4-byte boundaries, so
// MAT2 of bytes and MAT3 of bytes or shorts carry padding ("Data Alignment"); the last
// column's padding is not needed after the last element (extent < element_size).
struct Layout {
  uint32_t component_size = 4;
  uint32_t columns = 1;
  uint32_t rows = 1;
  uint32_t column_stride = 4;
  uint32_t element_size = 4;  // with padding: the distance between tightly packed elements
  uint32_t extent = 4;        // the bytes an element's components span
};

Layout layout_of(GltfComponentType ct, GltfAccessorType type) {
  Layout l;
  l.component_size = component_size(ct);
  const uint32_t n = static_cast<uint32_t>(gltf_component_count(type));
  if (is_matrix(type)) {
    l.rows = l.columns = n == 4 ? 2 : n == 9 ? 3 : 4;
    l.column_stride = (l.rows * l.component_size + 3) & ~3u;
  } else {
    l.rows = n;
    l.column_stride = n * l.component_size;
  }
  l.element_size = l.columns * l.column_stride;
  l.extent = (l.columns - 1) * l.column_stride + l.rows * l.component_size;
  return l;
}

// One component as its exact value (every glTF component type fits a double exactly).
double read_component(const uint8_t* p, GltfComponentType t) {
  switch (t) {
    case GltfComponentType::kByte:
      return static_cast<int8_t>(p[0]);
    case GltfComponentType::kUnsignedByte:
      return p[0];
    case GltfComponentType::kShort:
      return static_cast<int16_t>(read_u16(p));
    case GltfComponentType::kUnsignedShort:
      return read_u16(p);
    case GltfComponentType::kUnsignedInt:
      return read_u32(p);
    case GltfComponentType::kFloat:
      return std::bit_cast<float>(read_u32(p));
  }
  return 0;
}

// One element's components, column by column (glTF matrices are column-major).
void read_element(const uint8_t* p, const Layout& l, GltfComponentType t, double* out) {
  for (uint32_t c = 0; c < l.columns; ++c) {
    for (uint32_t r = 0; r < l.rows; ++r) {
      *out++ = read_component(p + c * l.column_stride + r * l.component_size, t);
    }
  }
}

// glTF 2.0 "Animations": the normalised integer to float conversions.
float normalize_component(double raw, GltfComponentType t) {
  const float c = static_cast<float>(raw);  // integers below 2^16: exact
  switch (t) {
    case GltfComponentType::kByte:
      return std::max(c / 127.0f, -1.0f);
    case GltfComponentType::kUnsignedByte:
      return c / 255.0f;
    case GltfComponentType::kShort:
      return std::max(c / 32767.0f, -1.0f);
    case GltfComponentType::kUnsignedShort:
      return c / 65535.0f;
    case GltfComponentType::kUnsignedInt:
    case GltfComponentType::kFloat:
      break;
  }
  return to_float(raw);
}

// ---------------------------------------------------------------------------------------
// URIs and files

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 3986 percent-decoding; nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// RFC 4648 base64, "=" padding optional; nullopt on any other character.
std::optional<std::vector<uint8_t>> base64_decode(std::string_view s) {
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  if (s.size() % 4 == 1) return std::nullopt;
  std::vector<uint8_t> out;
  out.reserve(s.size() / 4 * 3 + 2);
  uint32_t bits = 0;
  int nbits = 0;
  for (char c : s) {
    const int v = base64_value(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out.push_back(static_cast<uint8_t>(bits >> nbits));
      bits &= (1u << nbits) - 1;
    }
  }
  return out;
}

// "data:[<media type>][;base64],<data>" (RFC 2397).
std::optional<std::vector<uint8_t>> decode_data_uri(std::string_view uri) {
  const size_t comma = uri.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  const std::string_view header = uri.substr(5, comma - 5);
  const std::string_view payload = uri.substr(comma + 1);
  if (header.size() >= 7 && header.substr(header.size() - 7) == ";base64") {
    return base64_decode(payload);
  }
  std::optional<std::string> text = percent_decode(payload);
  if (!text) return std::nullopt;
  return std::vector<uint8_t>(text->begin(), text->end());
}

// Whether a URI reference starts with a scheme ("http:", "file:", "C:").
bool has_scheme(std::string_view uri) {
  if (uri.empty() || !std::isalpha(static_cast<unsigned char>(uri[0]))) return false;
  for (char c : uri) {
    if (c == ':') return true;
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') {
      return false;
    }
  }
  return false;
}

enum class ReadStatus { kOk, kCannotOpen, kTooShort, kTooLarge };

// Reads the first `want` bytes of a file (all of it when want is nullopt) through the
// cooker's one input reader (regular files of bounded size only); out_size gets the file's
// size, *why the reason when it cannot be opened or read.
ReadStatus read_file(const std::filesystem::path& path, std::optional<uint64_t> want,
                     std::vector<uint8_t>* out, uint64_t* out_size, std::string* why) {
  InputFile in = read_input_file(path, kGltfMaxDecodedBytes, want);
  *out_size = in.size;
  if (in.ok()) {
    *out = std::move(in.bytes);
    return ReadStatus::kOk;
  }
  if (in.too_short) return ReadStatus::kTooShort;
  if (in.size > 0 && want.value_or(in.size) > kGltfMaxDecodedBytes) return ReadStatus::kTooLarge;
  *why = std::move(in.error);
  return ReadStatus::kCannotOpen;
}

// ---------------------------------------------------------------------------------------
// Container: GLB or plain JSON

struct Container {
  bool ok = false;
  std::span<const uint8_t> json;  // the JSON text
  int64_t json_offset = 0;        // where it starts in the file
  bool is_glb = false;
  bool has_bin = false;
  std::span<const uint8_t> bin;  // the BIN chunk's data
};

std::string chunk_name(uint32_t type) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", type);
  return text;
}

// The GLB header and chunk table, checked against the data's real size before anything
// is read, so a header claiming gigabytes fails at once.
Container read_glb(std::span<const uint8_t> bytes, Issues& issues) {
  Container c;
  c.is_glb = true;
  const uint64_t size = bytes.size();
  if (size < kGlbHeaderSize) {
    issues.error_at(static_cast<int64_t>(size), "GLB_UNEXPECTED_END_OF_HEADER",
                    "Unexpected end of header: the file has " + std::to_string(size) +
                        " bytes, a GLB header needs 12.");
    return c;
  }
  const uint32_t magic = read_u32(bytes.data());
  const uint32_t version = read_u32(bytes.data() + 4);
  const uint64_t length = read_u32(bytes.data() + 8);
  if (magic != kGlbMagic) {
    issues.error_at(0, "GLB_INVALID_MAGIC", "Invalid GLB magic value " + chunk_name(magic) + ".");
    return c;
  }
  if (version != 2) {
    issues.error_at(4, "GLB_INVALID_VERSION",
                    "Invalid GLB version value " + std::to_string(version) + ".");
    return c;
  }
  if (length < kGlbHeaderSize + kChunkHeaderSize) {
    issues.error_at(8, "GLB_LENGTH_TOO_SMALL",
                    "Declared GLB length (" + std::to_string(length) + ") is too small.");
    return c;
  }
  if (length > size) {
    issues.error_at(8, "GLB_LENGTH_MISMATCH",
                    "Declared length (" + std::to_string(length) + ") is larger than the file (" +
                        std::to_string(size) + " bytes).");
    return c;
  }
  if (length < size) {
    issues.warning_at(
        static_cast<int64_t>(length), "GLB_EXTRA_DATA",
        std::to_string(size - length) + " byte(s) after the end of the GLB stream are ignored.");
  }

  const size_t errors_before = issues.errors();
  bool has_json = false;
  uint64_t pos = kGlbHeaderSize;
  for (int chunk = 0; pos < length; ++chunk) {
    const int64_t at = static_cast<int64_t>(pos);
    if (length - pos < kChunkHeaderSize) {
      issues.error_at(at, "GLB_UNEXPECTED_END_OF_CHUNK_HEADER", "Unexpected end of chunk header.");
      return c;
    }
    const uint64_t chunk_length = read_u32(bytes.data() + pos);
    const uint32_t type = read_u32(bytes.data() + pos + 4);
    if (chunk_length > length - pos - kChunkHeaderSize) {
      issues.error_at(at, "GLB_CHUNK_TOO_BIG",
                      "Chunk (" + chunk_name(type) + ") length (" + std::to_string(chunk_length) +
                          ") does not fit total GLB length (" + std::to_string(length) + ").");
      return c;
    }
    if (chunk_length % 4 != 0) {
      issues.error_at(at, "GLB_CHUNK_LENGTH_UNALIGNED",
                      "Length of " + chunk_name(type) + " chunk is not aligned to 4 bytes.");
    }
    if (chunk == 0 && type != kChunkJson) {
      issues.error_at(at, "GLB_UNEXPECTED_FIRST_CHUNK",
                      "First chunk must be of JSON type. Found " + chunk_name(type) + " instead.");
    }
    const std::span<const uint8_t> data = bytes.subspan(static_cast<size_t>(pos + kChunkHeaderSize),
                                                        static_cast<size_t>(chunk_length));
    if (type == kChunkJson) {
      if (chunk_length == 0) {
        issues.error_at(at, "GLB_EMPTY_CHUNK", "The JSON chunk cannot have zero length.");
      }
      if (has_json) {
        issues.error_at(at, "GLB_DUPLICATE_CHUNK", "A second JSON chunk.");
      } else {
        has_json = true;
        c.json = data;
        c.json_offset = static_cast<int64_t>(pos + kChunkHeaderSize);
      }
    } else if (type == kChunkBin) {
      if (c.has_bin) {
        issues.error_at(at, "GLB_DUPLICATE_CHUNK", "A second BIN chunk.");
      } else {
        if (chunk > 1) {  // chunk 0 is reported as not being JSON
          issues.error_at(at, "GLB_UNEXPECTED_BIN_CHUNK", "BIN chunk must be the second chunk.");
        }
        c.has_bin = true;
        c.bin = data;
      }
    } else {
      issues.warning_at(at, "GLB_UNKNOWN_CHUNK_TYPE",
                        "Unknown GLB chunk type " + chunk_name(type) + " (skipped).");
    }
    pos += kChunkHeaderSize + chunk_length;
  }
  c.ok = has_json && issues.errors() == errors_before;
  return c;
}

// Parses the JSON text; syntax errors carry their byte offset in the file.
std::optional<json> parse_json(std::span<const uint8_t> text, int64_t offset, Issues& issues) {
  if (text.size() >= 3 && text[0] == 0xEF && text[1] == 0xBB && text[2] == 0xBF) {
    issues.error_at(offset, "INVALID_JSON",
                    "Invalid JSON data: a byte order mark at the start of the UTF-8 stream.");
    return std::nullopt;
  }
  try {
    json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/true,
                            /*ignore_comments=*/false);
    if (!root.is_object()) {
      issues.error("/", "INVALID_JSON",
                   std::string("The JSON root is ") + root.type_name() + ", not an object.");
      return std::nullopt;
    }
    return root;
  } catch (const json::parse_error& e) {
    // e.byte counts from 1; the offset is of the byte where parsing stopped.
    const int64_t at = offset + static_cast<int64_t>(e.byte > 0 ? e.byte - 1 : 0);
    issues.error_at(at, "INVALID_JSON",
                    "Invalid JSON data at byte " + std::to_string(at) + ": " + e.what());
    return std::nullopt;
  } catch (const json::exception& e) {  // e.g. out_of_range 406: a number overflows a double
    issues.error_at(offset, "INVALID_JSON", std::string("Invalid JSON data: ") + e.what());
    return std::nullopt;
  }
}

// ---------------------------------------------------------------------------------------
// The reader's state between stages

struct BufferState {
  bool failed = false;    // an error was reported; no data
  bool has_data = false;  // false with !failed: a placeholder buffer (no uri)
  uint64_t byte_length = 0;
  std::vector<uint8_t> owned;     // data URIs and external files
  std::span<const uint8_t> data;  // byte_length bytes (owned or the GLB BIN chunk)
};

struct ViewState {
  bool valid = false;
  int buffer = -1;
  uint64_t offset = 0;
  uint64_t length = 0;
  uint32_t stride = 0;  // 0: not defined
};

struct AccessorState {
  bool defined = false;  // type, componentType and count are valid (doc.accessors has them)
  bool no_data = false;  // not decoded only because a buffer is a placeholder (no uri)
};

// The JOINTS_n/WEIGHTS_n accessors of one primitive, for the skinning data check.
struct InfluenceSet {
  int joints = -1;
  int weights = -1;
};

struct PrimitiveState {
  bool valid = false;
  uint32_t vertex_count = 0;
  std::vector<InfluenceSet> sets;  // complete pairs, n = 0, 1, ...
};

struct MeshState {
  bool has_joints = false;  // some primitive has JOINTS_0
  std::vector<PrimitiveState> primitives;
};

struct Reader {
  Reader(GltfDocument* document, const json* json_root, std::filesystem::path dir,
         const Container* container_info)
      : doc(*document),
        issues(&document->issues),
        root(*json_root),
        base_dir(std::move(dir)),
        container(*container_info) {}

  // Counts `bytes` against kGltfMaxDecodedBytes; reports RESOURCE_LIMIT (once) and
  // returns false when they do not fit.
  bool charge(uint64_t bytes, const std::string& at) {
    if (bytes <= kGltfMaxDecodedBytes - decoded_bytes) {
      decoded_bytes += bytes;
      return true;
    }
    if (!budget_exceeded) {
      issues.error(at, "RESOURCE_LIMIT",
                   "Decoding needs more than " + std::to_string(kGltfMaxDecodedBytes >> 20) +
                       " MiB; the file is refused.");
      budget_exceeded = true;
    }
    return false;
  }

  // The accessor when its definition is usable, else nullptr (already reported).
  const GltfAccessor* accessor(int i) const {
    return i >= 0 && static_cast<size_t>(i) < accessor_states.size() &&
                   accessor_states[static_cast<size_t>(i)].defined
               ? &doc.accessors[static_cast<size_t>(i)]
               : nullptr;
  }
  // The byteStride of the accessor's view (0 when none).
  uint32_t view_stride(const GltfAccessor& a) const {
    return a.buffer_view >= 0 ? views[static_cast<size_t>(a.buffer_view)].stride : 0;
  }

  GltfDocument& doc;
  Issues issues;
  const json& root;
  std::filesystem::path base_dir;
  const Container& container;
  bool mesh_quantization = false;    // KHR_mesh_quantization widens the allowed formats
  bool extra_sets_reported = false;  // MESH_PRIMITIVE_EXTRA_SETS, once per file
  uint64_t decoded_bytes = 0;
  bool budget_exceeded = false;
  std::vector<BufferState> buffers;
  std::vector<ViewState> views;
  std::vector<AccessorState> accessor_states;
  std::vector<MeshState> mesh_states;
  std::vector<bool> image_valid;                 // per image: its definition has no error
  std::vector<std::string> texture_unsupported;  // per texture: the extension of its only source
  std::vector<bool> node_valid;
  size_t skin_count = 0;
};

// root[key] as an array (possibly absent: nullptr). An empty one is an error.
const json* top_array(Reader& r, const char* key) {
  return get_array(r.issues, r.root, "", key, Need::kOptional);
}

// The i-th element of a top-level array if it is an object, else reports it.
const json* element_object(Reader& r, const json& array, size_t i, const std::string& at) {
  const json& e = array[i];
  if (!e.is_object()) {
    type_mismatch(r.issues, at, e, "an object");
    return nullptr;
  }
  return &e;
}

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

// ---------------------------------------------------------------------------------------
// Stage: buffers

// Reads `length` bytes of the buffer file `relative` (to the glTF's folder) into *out;
// false after reporting why not.
bool read_buffer_file(Reader& r, const std::string& relative, uint64_t length,
                      const std::string& at, std::vector<uint8_t>* out) {
  const std::filesystem::path file = (r.base_dir / relative).lexically_normal();
  uint64_t file_size = 0;
  std::string why;
  const ReadStatus status = read_file(file, length, out, &file_size, &why);
  if (status == ReadStatus::kCannotOpen) {
    r.issues.error(ptr(at, "uri"), "IO_ERROR", "Resource not found or unreadable (" + why + ").");
    return false;
  }
  r.doc.files.push_back(file);  // a depfile must name it even when it is too short
  if (status == ReadStatus::kTooShort) {
    r.issues.error(at, "BUFFER_BYTE_LENGTH_MISMATCH",
                   "Actual data byte length (" + std::to_string(file_size) +
                       ") is less than the declared buffer byte length (" + std::to_string(length) +
                       ").");
    return false;
  }
  return status == ReadStatus::kOk;  // kTooLarge cannot happen: the caller charged length
}

void read_buffers(Reader& r) {
  const json* array = top_array(r, "buffers");
  if (!array) return;
  r.buffers.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/buffers", i);
    BufferState& buf = r.buffers[i];
    buf.failed = true;  // until the data is in hand
    const json* b = element_object(r, *array, i, at);
    if (!b) continue;
    const std::optional<uint64_t> length =
        get_uint(r.issues, *b, at, "byteLength", Need::kRequired, 1);
    const json* uri_value = find(*b, "uri");
    const std::optional<std::string> uri = get_string(r.issues, *b, at, "uri", Need::kOptional);
    if (!length || (uri_value && !uri)) continue;
    buf.byte_length = *length;

    if (!uri) {
      if (i == 0 && r.container.is_glb) {
        if (!r.container.has_bin) {
          r.issues.error(at, "BUFFER_MISSING_GLB_DATA",
                         "Buffer refers to an unresolved GLB binary chunk.");
          continue;
        }
        const uint64_t have = r.container.bin.size();
        if (have < *length) {
          r.issues.error(at, "BUFFER_BYTE_LENGTH_MISMATCH",
                         "Actual data byte length (" + std::to_string(have) +
                             ") is less than the declared buffer byte length (" +
                             std::to_string(*length) + ").");
          continue;
        }
        const uint64_t padded = (*length + 3) & ~uint64_t{3};
        if (have > padded) {
          r.issues.warning(at, "BUFFER_GLB_CHUNK_TOO_BIG",
                           "GLB-stored BIN chunk contains " + std::to_string(have - padded) +
                               " extra padding byte(s).");
        }
        buf.data = r.container.bin.first(static_cast<size_t>(*length));
        buf.has_data = true;
      }
      buf.failed = false;  // a placeholder without data unless it is the GLB buffer
      continue;
    }

    const std::string uri_at = ptr(at, "uri");
    if (uri->rfind("data:", 0) == 0) {
      std::optional<std::vector<uint8_t>> bytes = decode_data_uri(*uri);
      if (!bytes) {
        r.issues.error(uri_at, "INVALID_URI", "Invalid data: URI (malformed base64 or escapes).");
        continue;
      }
      buf.owned = std::move(*bytes);
    } else {
      const std::optional<std::string> relative = percent_decode(*uri);
      if (!relative || relative->empty() || has_scheme(*uri) || relative->front() == '/' ||
          relative->front() == '\\' || std::filesystem::path(*relative).is_absolute()) {
        r.issues.error(
            uri_at, "INVALID_URI",
            "Buffer uri " + in_quotes(*uri) + " must be a data: URI or a relative file path.");
        continue;
      }
      if (!r.charge(*length, at) || !read_buffer_file(r, *relative, *length, at, &buf.owned)) {
        continue;
      }
    }
    if (buf.owned.size() < *length) {
      r.issues.error(at, "BUFFER_BYTE_LENGTH_MISMATCH",
                     "Actual data byte length (" + std::to_string(buf.owned.size()) +
                         ") is less than the declared buffer byte length (" +
                         std::to_string(*length) + ").");
      continue;
    }
    buf.data = std::span<const uint8_t>(buf.owned).first(static_cast<size_t>(*length));
    buf.has_data = true;
    buf.failed = false;
  }
}

// ---------------------------------------------------------------------------------------
// Stage: buffer views

void read_buffer_views(Reader& r) {
  const json* array = top_array(r, "bufferViews");
  if (!array) return;
  r.views.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/bufferViews", i);
    const json* v = element_object(r, *array, i, at);
    if (!v) continue;
    const size_t errors_before = r.issues.errors();
    const std::optional<int> buffer =
        get_index(r.issues, *v, at, "buffer", r.buffers.size(), Need::kRequired);
    const std::optional<uint64_t> length =
        get_uint(r.issues, *v, at, "byteLength", Need::kRequired, 1);
    const uint64_t offset = get_uint(r.issues, *v, at, "byteOffset", Need::kOptional).value_or(0);
    const std::optional<uint64_t> stride =
        get_uint(r.issues, *v, at, "byteStride", Need::kOptional, 4, 252);
    if (stride && *stride % 4 != 0) {
      r.issues.error(ptr(at, "byteStride"), "VALUE_MULTIPLE_OF",
                     "Value " + std::to_string(*stride) + " is not a multiple of 4.");
    }
    if (r.issues.errors() != errors_before || !buffer || !length) continue;
    const BufferState& buf = r.buffers[static_cast<size_t>(*buffer)];
    if (buf.failed) continue;  // the buffer's error stands for this view too
    if (offset >= buf.byte_length || *length > buf.byte_length - offset) {
      r.issues.error(
          ptr(at, offset >= buf.byte_length ? "byteOffset" : "byteLength"), "BUFFER_VIEW_TOO_LONG",
          "BufferView (offset " + std::to_string(offset) + ", length " + std::to_string(*length) +
              ") does not fit buffer (" + std::to_string(*buffer) + ") byteLength (" +
              std::to_string(buf.byte_length) + ").");
      continue;
    }
    if (stride && *stride > *length) {
      r.issues.error(ptr(at, "byteStride"), "BUFFER_VIEW_TOO_BIG_BYTE_STRIDE",
                     "Buffer view's byteStride (" + std::to_string(*stride) +
                         ") is greater than byteLength (" + std::to_string(*length) + ").");
      continue;
    }
    ViewState& view = r.views[i];
    view.valid = true;
    view.buffer = *buffer;
    view.offset = offset;
    view.length = *length;
    view.stride = static_cast<uint32_t>(stride.value_or(0));
  }
}

// The bytes of a valid view; nullopt when its buffer is a placeholder without data (which
// is only an error for data someone needs: see need_data).
std::optional<std::span<const uint8_t>> view_bytes(const Reader& r, int view) {
  const ViewState& v = r.views[static_cast<size_t>(view)];
  const BufferState& buf = r.buffers[static_cast<size_t>(v.buffer)];
  if (!buf.has_data) return std::nullopt;
  return buf.data.subspan(static_cast<size_t>(v.offset), static_cast<size_t>(v.length));
}

// ---------------------------------------------------------------------------------------
// Stage: accessors (definition, layout checks, decoding, data checks)

struct SparseDef {
  uint64_t count = 0;
  int indices_view = -1;
  uint64_t indices_offset = 0;
  GltfComponentType indices_type = GltfComponentType::kUnsignedInt;
  int values_view = -1;
  uint64_t values_offset = 0;
};

// accessor.sparse; nullopt after reporting what is wrong.
std::optional<SparseDef> read_sparse_def(Reader& r, const json& sparse, const std::string& at,
                                         const GltfAccessor& a) {
  const size_t errors_before = r.issues.errors();
  SparseDef s;
  const std::optional<uint64_t> count = get_uint(r.issues, sparse, at, "count", Need::kRequired, 1);
  const json* indices = get_object(r.issues, sparse, at, "indices", Need::kRequired);
  const json* values = get_object(r.issues, sparse, at, "values", Need::kRequired);
  if (count && *count > a.count) {
    r.issues.error(ptr(at, "count"), "ACCESSOR_SPARSE_COUNT_OUT_OF_RANGE",
                   "Sparse accessor overrides more elements (" + std::to_string(*count) +
                       ") than the base accessor contains (" + std::to_string(a.count) + ").");
  }
  if (indices) {
    const std::string iat = ptr(at, "indices");
    const std::optional<int> view =
        get_index(r.issues, *indices, iat, "bufferView", r.views.size(), Need::kRequired);
    s.indices_offset = get_uint(r.issues, *indices, iat, "byteOffset", Need::kOptional).value_or(0);
    const std::optional<uint64_t> ct =
        get_uint(r.issues, *indices, iat, "componentType", Need::kRequired);
    if (ct) {
      const std::optional<GltfComponentType> t = component_type_of(*ct);
      if (!t || *t == GltfComponentType::kByte || *t == GltfComponentType::kShort ||
          *t == GltfComponentType::kFloat) {
        r.issues.error(
            ptr(iat, "componentType"), "VALUE_NOT_IN_LIST",
            "Invalid value " + std::to_string(*ct) + ". Valid values are (5121, 5123, 5125).");
      } else {
        s.indices_type = *t;
      }
    }
    if (view) s.indices_view = *view;
  }
  if (values) {
    const std::string vat = ptr(at, "values");
    const std::optional<int> view =
        get_index(r.issues, *values, vat, "bufferView", r.views.size(), Need::kRequired);
    s.values_offset = get_uint(r.issues, *values, vat, "byteOffset", Need::kOptional).value_or(0);
    if (view) s.values_view = *view;
  }
  // Only vertex attribute views may have a byteStride.
  for (const auto& [view, key] :
       {std::pair{s.indices_view, "indices"}, {s.values_view, "values"}}) {
    if (view >= 0 && r.views[static_cast<size_t>(view)].stride != 0) {
      r.issues.error(ptr(ptr(at, key), "bufferView"), "BUFFER_VIEW_INVALID_BYTE_STRIDE",
                     "Only buffer views with raw vertex data can have byteStride.");
    }
  }
  if (r.issues.errors() != errors_before || !count) return std::nullopt;
  s.count = *count;
  return s;
}

// The accessor's own properties; false after reporting what is wrong.
bool read_accessor_def(Reader& r, const json& obj, const std::string& at, GltfAccessor* out,
                       std::optional<SparseDef>* out_sparse, uint64_t* out_byte_offset) {
  const size_t errors_before = r.issues.errors();
  GltfAccessor& a = *out;
  a.name = get_name(r.issues, obj, at);
  const std::optional<uint64_t> ct = get_uint(r.issues, obj, at, "componentType", Need::kRequired);
  std::optional<GltfComponentType> component_type;
  if (ct) {
    component_type = component_type_of(*ct);
    if (!component_type) {
      r.issues.error(ptr(at, "componentType"), "VALUE_NOT_IN_LIST",
                     "Invalid value " + std::to_string(*ct) +
                         ". Valid values are (5120, 5121, 5122, 5123, 5125, 5126).");
    }
  }
  const std::optional<std::string> type_name =
      get_string(r.issues, obj, at, "type", Need::kRequired);
  std::optional<GltfAccessorType> type;
  if (type_name) {
    type = accessor_type_of(*type_name);
    if (!type) {
      r.issues.error(ptr(at, "type"), "VALUE_NOT_IN_LIST",
                     "Invalid value " + in_quotes(*type_name) +
                         ". Valid values are (SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3, MAT4).");
    }
  }
  const std::optional<uint64_t> count =
      get_uint(r.issues, obj, at, "count", Need::kRequired, 1, UINT32_MAX);
  a.normalized = get_bool(r.issues, obj, at, "normalized").value_or(false);
  if (a.normalized && component_type &&
      (*component_type == GltfComponentType::kFloat ||
       *component_type == GltfComponentType::kUnsignedInt)) {
    r.issues.error(ptr(at, "normalized"), "ACCESSOR_NORMALIZED_INVALID",
                   "Only (u)byte and (u)short accessors can be normalized.");
  }
  const json* view_value = find(obj, "bufferView");
  const std::optional<int> view =
      get_index(r.issues, obj, at, "bufferView", r.views.size(), Need::kOptional);
  const std::optional<uint64_t> byte_offset =
      get_uint(r.issues, obj, at, "byteOffset", Need::kOptional);
  if (byte_offset && !view_value) {
    r.issues.error(ptr(at, "byteOffset"), "UNSATISFIED_DEPENDENCY",
                   "Dependency failed. 'bufferView' must be defined.");
  }
  if (r.issues.errors() != errors_before || !component_type || !type || !count) return false;

  a.component_type = *component_type;
  a.type = *type;
  a.components = gltf_component_count(*type);
  a.count = static_cast<uint32_t>(*count);
  a.buffer_view = view.value_or(-1);
  *out_byte_offset = byte_offset.value_or(0);

  const size_t n = static_cast<size_t>(a.components);
  std::vector<double> bounds(n);
  if (get_numbers(r.issues, obj, at, "min", n, bounds.data())) a.min = bounds;
  if (get_numbers(r.issues, obj, at, "max", n, bounds.data())) a.max = bounds;
  a.has_bounds = !a.min.empty() && !a.max.empty();

  if (const json* sparse = get_object(r.issues, obj, at, "sparse", Need::kOptional)) {
    a.sparse = true;
    *out_sparse = read_sparse_def(r, *sparse, ptr(at, "sparse"), a);
  }
  return r.issues.errors() == errors_before;
}

// Layout checks of an accessor against its view; false after reporting.
bool check_accessor_layout(Reader& r, const GltfAccessor& a, uint64_t byte_offset,
                           const std::string& at) {
  if (a.buffer_view < 0) return true;
  const size_t errors_before = r.issues.errors();
  const ViewState& view = r.views[static_cast<size_t>(a.buffer_view)];
  const Layout l = layout_of(a.component_type, a.type);
  if (byte_offset % l.component_size != 0) {
    r.issues.error(ptr(at, "byteOffset"), "ACCESSOR_OFFSET_ALIGNMENT",
                   "Offset " + std::to_string(byte_offset) +
                       " is not a multiple of componentType length " +
                       std::to_string(l.component_size) + ".");
  }
  if (is_matrix(a.type) && l.component_size < 4 && byte_offset % 4 != 0) {
    r.issues.error(ptr(at, "byteOffset"), "ACCESSOR_MATRIX_ALIGNMENT",
                   "Matrix accessors must be aligned to 4-byte boundaries.");
  }
  if (!view.valid) return r.issues.errors() == errors_before;  // the view's error stands

  if ((view.offset + byte_offset) % l.component_size != 0) {
    r.issues.error(at, "ACCESSOR_TOTAL_OFFSET_ALIGNMENT",
                   "Accessor's total byteOffset " + std::to_string(view.offset + byte_offset) +
                       " isn't a multiple of componentType length " +
                       std::to_string(l.component_size) + ".");
  }
  uint64_t stride = l.element_size;
  if (view.stride != 0) {
    if (view.stride < l.element_size) {
      r.issues.error(at, "ACCESSOR_SMALL_BYTESTRIDE",
                     "Referenced bufferView's byteStride value " + std::to_string(view.stride) +
                         " is less than accessor element's length " +
                         std::to_string(l.element_size) + ".");
    }
    stride = view.stride;
  }
  // count < 2^32 and stride <= 252: no overflow in 64 bits.
  const uint64_t length = stride * (uint64_t{a.count} - 1) + l.extent;
  if (byte_offset > view.length || length > view.length - byte_offset) {
    r.issues.error(byte_offset >= view.length ? ptr(at, "byteOffset") : at, "ACCESSOR_TOO_LONG",
                   "Accessor (offset: " + std::to_string(byte_offset) +
                       ", length: " + std::to_string(length) +
                       ") does not fit referenced bufferView [" + std::to_string(a.buffer_view) +
                       "] length " + std::to_string(view.length) + ".");
  }
  return r.issues.errors() == errors_before;
}

// The raw components of a sparse accessor's substitutions; false after reporting.
bool apply_sparse(Reader& r, const GltfAccessor& a, const SparseDef& s, const std::string& at,
                  std::vector<double>* raw, bool* out_no_data) {
  const ViewState& iv = r.views[static_cast<size_t>(s.indices_view)];
  const ViewState& vv = r.views[static_cast<size_t>(s.values_view)];
  if (!iv.valid || !vv.valid) return false;  // their errors stand
  const Layout l = layout_of(a.component_type, a.type);
  const uint32_t isize = component_size(s.indices_type);
  bool ok = true;
  if (s.indices_offset > iv.length || s.count * isize > iv.length - s.indices_offset) {
    r.issues.error(ptr(at, "sparse/indices"), "ACCESSOR_TOO_LONG",
                   "Sparse indices (offset " + std::to_string(s.indices_offset) + ", " +
                       std::to_string(s.count) + " indices) do not fit bufferView [" +
                       std::to_string(s.indices_view) + "].");
    ok = false;
  }
  if (s.values_offset > vv.length ||
      (s.count - 1) * l.element_size + l.extent > vv.length - s.values_offset) {
    r.issues.error(ptr(at, "sparse/values"), "ACCESSOR_TOO_LONG",
                   "Sparse values (offset " + std::to_string(s.values_offset) + ", " +
                       std::to_string(s.count) + " elements) do not fit bufferView [" +
                       std::to_string(s.values_view) + "].");
    ok = false;
  }
  if (!ok) return false;
  const std::optional<std::span<const uint8_t>> ibytes = view_bytes(r, s.indices_view);
  const std::optional<std::span<const uint8_t>> vbytes = view_bytes(r, s.values_view);
  if (!ibytes || !vbytes) {
    *out_no_data = true;
    return false;
  }

  const uint8_t* ip = ibytes->data() + s.indices_offset;
  const uint8_t* vp = vbytes->data() + s.values_offset;
  const size_t n = static_cast<size_t>(a.components);
  int64_t last = -1;
  for (uint64_t k = 0; k < s.count; ++k) {
    const auto index = static_cast<int64_t>(read_component(ip + k * isize, s.indices_type));
    if (index <= last) {
      r.issues.error(ptr(at, "sparse"), "ACCESSOR_SPARSE_INDICES_NON_INCREASING",
                     "Accessor sparse indices element at index " + std::to_string(k) +
                         " is less than or equal to previous: " + std::to_string(index) +
                         " <= " + std::to_string(last) + ".");
      return false;
    }
    if (index >= static_cast<int64_t>(a.count)) {
      r.issues.error(ptr(at, "sparse"), "ACCESSOR_SPARSE_INDEX_OOB",
                     "Accessor sparse indices element at index " + std::to_string(k) +
                         " is greater than or equal to the number of accessor elements: " +
                         std::to_string(index) + " >= " + std::to_string(a.count) + ".");
      return false;
    }
    last = index;
    read_element(vp + k * l.element_size, l, a.component_type,
                 raw->data() + static_cast<size_t>(index) * n);
  }
  return true;
}

// Per-component min/max against the declared bounds (which hold raw, unnormalised values).
void check_bounds(Reader& r, const GltfAccessor& a, const std::vector<double>& raw,
                  const std::string& at) {
  const size_t n = static_cast<size_t>(a.components);
  const bool is_float = a.component_type == GltfComponentType::kFloat;
  for (int side = 0; side < 2; ++side) {
    const bool is_min = side == 0;
    const std::vector<double>& declared = is_min ? a.min : a.max;
    if (declared.empty()) continue;
    for (size_t c = 0; c < n; ++c) {
      // Float data is compared with the declared value as the nearest float.
      const double bound = is_float ? static_cast<double>(to_float(declared[c])) : declared[c];
      double actual = is_min ? std::numeric_limits<double>::infinity()
                             : -std::numeric_limits<double>::infinity();
      size_t beyond = 0;
      for (size_t e = 0; e < a.count; ++e) {
        const double v = raw[e * n + c];
        if (std::isnan(v)) continue;
        if (is_min ? v < bound : v > bound) ++beyond;
        actual = is_min ? std::min(actual, v) : std::max(actual, v);
      }
      const std::string p = idx(ptr(at, is_min ? "min" : "max"), c);
      if (beyond > 0) {
        if (is_min) {
          r.issues.error(p, "ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND",
                         "Accessor contains " + std::to_string(beyond) +
                             " element(s) less than declared minimum value " + num(declared[c]) +
                             ".");
        } else {
          r.issues.error(p, "ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND",
                         "Accessor contains " + std::to_string(beyond) +
                             " element(s) greater than declared maximum value " + num(declared[c]) +
                             ".");
        }
      } else if (actual != bound && std::isfinite(actual)) {
        const std::string text = "Declared " + std::string(is_min ? "minimum" : "maximum") +
                                 " value for this component (" + num(declared[c]) +
                                 ") does not match actual " + (is_min ? "minimum" : "maximum") +
                                 " (" + num(actual) + ").";
        if (is_min) {
          r.issues.warning(p, "ACCESSOR_MIN_MISMATCH", text);
        } else {
          r.issues.warning(p, "ACCESSOR_MAX_MISMATCH", text);
        }
      }
    }
  }
}

// Reads the accessor's elements into a.floats (and a.uints); reports data errors.
// *out_no_data is set when a buffer it needs is a placeholder.
void decode_accessor(Reader& r, GltfAccessor& a, uint64_t byte_offset,
                     const std::optional<SparseDef>& sparse, const std::string& at,
                     bool* out_no_data) {
  const size_t n = static_cast<size_t>(a.components);
  const uint64_t values = uint64_t{a.count} * n;
  const bool want_uints = !a.normalized && (a.component_type == GltfComponentType::kUnsignedByte ||
                                            a.component_type == GltfComponentType::kUnsignedShort ||
                                            a.component_type == GltfComponentType::kUnsignedInt);
  // Raw doubles while decoding, then floats (and uints) kept.
  if (!r.charge(values * (sizeof(double) + sizeof(float) + (want_uints ? 4 : 0)), at)) return;
  std::vector<double> raw(static_cast<size_t>(values), 0.0);

  if (a.buffer_view >= 0) {
    const std::optional<std::span<const uint8_t>> bytes = view_bytes(r, a.buffer_view);
    if (!bytes) {
      *out_no_data = true;
      return;
    }
    const ViewState& view = r.views[static_cast<size_t>(a.buffer_view)];
    const Layout l = layout_of(a.component_type, a.type);
    const uint64_t stride = view.stride != 0 ? view.stride : l.element_size;
    const uint8_t* base = bytes->data() + byte_offset;
    for (size_t e = 0; e < a.count; ++e) {
      read_element(base + e * stride, l, a.component_type, raw.data() + e * n);
    }
  }
  if (sparse && !apply_sparse(r, a, *sparse, at, &raw, out_no_data)) return;

  if (a.component_type == GltfComponentType::kFloat) {
    size_t bad = 0;
    size_t first = 0;
    for (size_t k = 0; k < raw.size(); ++k) {
      if (!std::isfinite(raw[k])) {
        if (bad++ == 0) first = k;
      }
    }
    if (bad > 0) {
      r.issues.error(at, "ACCESSOR_INVALID_FLOAT",
                     "Accessor element at index " + std::to_string(first) + " is " +
                         num(raw[first]) + " (" + std::to_string(bad) +
                         " NaN or infinite value(s) in all).");
    }
  }
  check_bounds(r, a, raw, at);

  a.floats.resize(raw.size());
  for (size_t k = 0; k < raw.size(); ++k) {
    a.floats[k] = a.normalized ? normalize_component(raw[k], a.component_type) : to_float(raw[k]);
  }
  if (want_uints) {
    a.uints.resize(raw.size());
    for (size_t k = 0; k < raw.size(); ++k) a.uints[k] = static_cast<uint32_t>(raw[k]);
  }
  a.decoded = true;
}

void read_accessors(Reader& r) {
  const json* array = top_array(r, "accessors");
  if (!array) return;
  r.doc.accessors.resize(array->size());
  r.accessor_states.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/accessors", i);
    const json* obj = element_object(r, *array, i, at);
    if (!obj) continue;
    GltfAccessor& a = r.doc.accessors[i];
    std::optional<SparseDef> sparse;
    uint64_t byte_offset = 0;
    const bool defined = read_accessor_def(r, *obj, at, &a, &sparse, &byte_offset);
    // The definition is usable by others (formats, counts) even if the data is not.
    r.accessor_states[i].defined = a.count > 0;
    if (!defined || (a.sparse && !sparse)) continue;
    if (!check_accessor_layout(r, a, byte_offset, at)) continue;
    if (a.buffer_view >= 0 && !r.views[static_cast<size_t>(a.buffer_view)].valid) continue;
    decode_accessor(r, a, byte_offset, sparse, at, &r.accessor_states[i].no_data);
  }
}

// Whether accessor i's data is in hand for a consumer at `at`. Data a placeholder buffer
// (no uri) cannot supply is an error only here, where it is needed; any other reason was
// reported when the accessor was read.
bool need_data(Reader& r, int i, const std::string& at) {
  const GltfAccessor* a = r.accessor(i);
  if (!a) return false;
  if (a->decoded) return true;
  if (r.accessor_states[static_cast<size_t>(i)].no_data) {
    r.issues.error(at, "BUFFER_NO_DATA",
                   "Accessor " + std::to_string(i) +
                       " has no data: its buffer has no uri and is not the GLB buffer.");
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// Stage: samplers, images, textures, materials (glTF 2.0 "Materials", "Textures",
// "Samplers", "Images"; KHR_materials_emissive_strength; KHR_texture_transform)

// A number in [lo, hi] (finite); nullopt when absent (silently) or bad (reported).
std::optional<double> get_number(Issues& issues, const json& obj, const std::string& at,
                                 const char* key, double lo, double hi) {
  const json* v = find(obj, key);
  if (!v) return std::nullopt;
  const std::string p = ptr(at, key);
  if (!v->is_number()) {
    type_mismatch(issues, p, *v, "a number");
    return std::nullopt;
  }
  const double d = v->get<double>();
  if (!std::isfinite(d) || d < lo || d > hi) {
    issues.error(p, "VALUE_NOT_IN_RANGE", "Value " + num(d) + " is out of range.");
    return std::nullopt;
  }
  return d;
}

// A fixed-length array of finite numbers each in [lo, hi]; false when absent or bad.
bool get_ranged_numbers(Issues& issues, const json& obj, const std::string& at, const char* key,
                        size_t n, double lo, double hi, double* out) {
  if (!get_numbers(issues, obj, at, key, n, out)) return false;
  bool ok = true;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(out[i]) || out[i] < lo || out[i] > hi) {
      issues.error(idx(ptr(at, key), i), "VALUE_NOT_IN_RANGE",
                   "Value " + num(out[i]) + " is out of range.");
      ok = false;
    }
  }
  return ok;
}

constexpr double kHuge = std::numeric_limits<double>::max();

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

std::vector<bool> reachable(const std::vector<GltfNode>& nodes, const std::vector<int>& roots);

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

// ---------------------------------------------------------------------------------------
// Stage: meshes

bool is_one_of(GltfComponentType t, std::initializer_list<GltfComponentType> list) {
  return std::find(list.begin(), list.end(), t) != list.end();
}

// Whether an attribute's format is allowed for its semantic (glTF 2.0 "Meshes", widened
// by KHR_mesh_quantization when the file uses it).
bool attribute_format_ok(const Reader& r, std::string_view semantic, const GltfAccessor& a) {
  using T = GltfComponentType;
  const bool is_float = a.component_type == T::kFloat;
  const bool norm_small = a.normalized && is_one_of(a.component_type, {T::kByte, T::kShort});
  const bool small_int =
      is_one_of(a.component_type, {T::kByte, T::kUnsignedByte, T::kShort, T::kUnsignedShort});
  if (semantic == "POSITION") {
    return a.type == GltfAccessorType::kVec3 && (is_float || (r.mesh_quantization && small_int));
  }
  if (semantic == "NORMAL") {
    return a.type == GltfAccessorType::kVec3 && (is_float || (r.mesh_quantization && norm_small));
  }
  if (semantic == "TANGENT") {
    return a.type == GltfAccessorType::kVec4 && (is_float || (r.mesh_quantization && norm_small));
  }
  if (semantic.starts_with("JOINTS_")) {
    return a.type == GltfAccessorType::kVec4 && !a.normalized &&
           is_one_of(a.component_type, {T::kUnsignedByte, T::kUnsignedShort});
  }
  if (semantic.starts_with("WEIGHTS_")) {
    return a.type == GltfAccessorType::kVec4 &&
           (is_float ||
            (a.normalized && is_one_of(a.component_type, {T::kUnsignedByte, T::kUnsignedShort})));
  }
  if (semantic.starts_with("TEXCOORD_")) {
    const bool norm_unsigned =
        a.normalized && is_one_of(a.component_type, {T::kUnsignedByte, T::kUnsignedShort});
    return a.type == GltfAccessorType::kVec2 &&
           (is_float || norm_unsigned || (r.mesh_quantization && small_int));
  }
  if (semantic.starts_with("COLOR_")) {
    return (a.type == GltfAccessorType::kVec3 || a.type == GltfAccessorType::kVec4) &&
           (is_float ||
            (a.normalized && is_one_of(a.component_type, {T::kUnsignedByte, T::kUnsignedShort})));
  }
  return true;  // other semantics are not read
}

// The n of "JOINTS_n"/"WEIGHTS_n", or -1.
int set_index(std::string_view semantic, std::string_view prefix) {
  if (!semantic.starts_with(prefix)) return -1;
  const std::string_view digits = semantic.substr(prefix.size());
  if (digits.empty() || digits.size() > 3) return -1;
  int n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

// A decoded VEC3 accessor as Vec3s (empty when it could not be decoded).
std::vector<Vec3> copy_vec3(Reader& r, const GltfAccessor& a, const std::string& at) {
  std::vector<Vec3> out;
  if (!a.decoded || !r.charge(uint64_t{a.count} * sizeof(Vec3), at)) return out;
  out.resize(a.count);
  for (size_t v = 0; v < a.count; ++v) {
    const float* f = &a.floats[v * 3];
    out[v] = {f[0], f[1], f[2]};
  }
  return out;
}

// A decoded VEC4 accessor as Vec4s (empty when it could not be decoded).
std::vector<Vec4> copy_vec4(Reader& r, const GltfAccessor& a, const std::string& at) {
  std::vector<Vec4> out;
  if (!a.decoded || !r.charge(uint64_t{a.count} * sizeof(Vec4), at)) return out;
  out.resize(a.count);
  for (size_t v = 0; v < a.count; ++v) {
    const float* f = &a.floats[v * 4];
    out[v] = {f[0], f[1], f[2], f[3]};
  }
  return out;
}

// A decoded VEC2 accessor as Vec2s (empty when it could not be decoded).
std::vector<Vec2> copy_vec2(Reader& r, const GltfAccessor& a, const std::string& at) {
  std::vector<Vec2> out;
  if (!a.decoded || !r.charge(uint64_t{a.count} * sizeof(Vec2), at)) return out;
  out.resize(a.count);
  for (size_t v = 0; v < a.count; ++v) out[v] = {a.floats[v * 2], a.floats[v * 2 + 1]};
  return out;
}

// A decoded VEC3 or VEC4 colour accessor as RGBA (VEC3 gets alpha 1).
std::vector<Vec4> copy_color(Reader& r, const GltfAccessor& a, const std::string& at) {
  if (a.components == 4) return copy_vec4(r, a, at);
  std::vector<Vec4> out;
  if (!a.decoded || !r.charge(uint64_t{a.count} * sizeof(Vec4), at)) return out;
  out.resize(a.count);
  for (size_t v = 0; v < a.count; ++v) {
    const float* f = &a.floats[v * 3];
    out[v] = {f[0], f[1], f[2], 1.0f};
  }
  return out;
}

void read_primitive(Reader& r, const json& obj, const std::string& at, GltfPrimitive* out,
                    PrimitiveState* state, int* out_targets) {
  const size_t errors_before = r.issues.errors();
  GltfPrimitive& prim = *out;
  prim.mode = static_cast<GltfPrimitiveMode>(
      get_uint(r.issues, obj, at, "mode", Need::kOptional, 0, 6).value_or(4));
  if (const json* targets = find(obj, "targets"); targets && targets->is_array()) {
    *out_targets = static_cast<int>(targets->size());
  }
  const json* attributes = get_object(r.issues, obj, at, "attributes", Need::kRequired);
  if (!attributes) return;
  const std::string attr_at = ptr(at, "attributes");

  // Resolve every attribute; POSITION (else the first usable one) sets the vertex count.
  std::optional<uint32_t> vertex_count;
  std::string count_source;
  if (const json* p = find(*attributes, "POSITION"); p && p->is_number_unsigned()) {
    const uint64_t index = p->get<uint64_t>();
    const GltfAccessor* a =
        index < r.doc.accessors.size() ? r.accessor(static_cast<int>(index)) : nullptr;
    if (a && attribute_format_ok(r, "POSITION", *a)) {
      vertex_count = a->count;
      count_source = "POSITION";
    }
  }
  int position = -1, normal = -1, tangent = -1, texcoord0 = -1, texcoord1 = -1, color0 = -1;
  std::vector<int> joints, weights;  // by set index, -1 when missing
  for (const auto& [semantic, value] : attributes->items()) {
    const std::string p = ptr(attr_at, semantic);
    if (!value.is_number_unsigned()) {
      type_mismatch(r.issues, p, value, "an accessor index");
      continue;
    }
    const uint64_t index = value.get<uint64_t>();
    if (index >= r.doc.accessors.size()) {
      r.issues.error(p, "UNRESOLVED_REFERENCE",
                     "Unresolved reference: " + std::to_string(index) + ".");
      continue;
    }
    const GltfAccessor* a = r.accessor(static_cast<int>(index));
    if (!a) continue;
    if (!attribute_format_ok(r, semantic, *a)) {
      r.issues.error(p, "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
                     "Invalid accessor format " + format_of(*a) + " for this attribute semantic.");
      continue;
    }
    if (!vertex_count) {
      vertex_count = a->count;
      count_source = semantic;
    } else if (a->count != *vertex_count) {
      r.issues.error(p, "MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT",
                     "All accessors of the same primitive must have the same count: " +
                         std::to_string(a->count) + " here, " + std::to_string(*vertex_count) +
                         " in " + count_source + ".");
      continue;
    }
    const int i = static_cast<int>(index);
    if (semantic == "POSITION") position = i;
    if (semantic == "NORMAL") normal = i;
    if (semantic == "TANGENT") tangent = i;
    if (semantic == "TEXCOORD_0") texcoord0 = i;
    if (semantic == "TEXCOORD_1") texcoord1 = i;
    if (semantic == "COLOR_0") color0 = i;
    if ((set_index(semantic, "TEXCOORD_") >= 2 || set_index(semantic, "COLOR_") >= 1) &&
        !r.extra_sets_reported) {
      r.extra_sets_reported = true;
      r.issues.warning(p, "MESH_PRIMITIVE_EXTRA_SETS",
                       semantic +
                           " is ignored: only TEXCOORD_0, TEXCOORD_1 and COLOR_0 are read "
                           "(reported once per file).");
    }
    for (auto& [list, prefix] : {std::pair{&joints, "JOINTS_"}, {&weights, "WEIGHTS_"}}) {
      const int n = set_index(semantic, prefix);
      if (n < 0) continue;
      if (list->size() <= static_cast<size_t>(n)) list->resize(static_cast<size_t>(n) + 1, -1);
      (*list)[static_cast<size_t>(n)] = i;
    }
  }
  if (position < 0 && r.issues.errors() == errors_before) {
    r.issues.warning(attr_at, "MESH_PRIMITIVE_NO_POSITION", "No POSITION attribute.");
  }

  // JOINTS_n and WEIGHTS_n must pair up, from n = 0 without gaps.
  const size_t sets = std::max(joints.size(), weights.size());
  bool pairs_ok = true;
  for (size_t n = 0; n < sets; ++n) {
    const bool has_j = n < joints.size() && joints[n] >= 0;
    const bool has_w = n < weights.size() && weights[n] >= 0;
    if (!has_j || !has_w) pairs_ok = false;
  }
  if (!pairs_ok) {
    r.issues.error(attr_at, "MESH_PRIMITIVE_JOINTS_WEIGHTS_MISMATCH",
                   "Number of JOINTS attribute semantics does not match the number of WEIGHTS (or "
                   "a set is missing).");
  }
  prim.joint_sets = static_cast<int>(joints.size());
  if (joints.size() > 1) {
    r.issues.warning(attr_at, "MESH_PRIMITIVE_EXTRA_INFLUENCES",
                     std::to_string(joints.size()) +
                         " JOINTS sets; only JOINTS_0/WEIGHTS_0 (4 influences) are read.");
  }

  prim.vertex_count = vertex_count.value_or(0);
  const uint32_t vertices = prim.vertex_count;

  // The data of every attribute read or checked must be in hand.
  for (const auto& [semantic, index] : {std::pair{"POSITION", position},
                                        {"NORMAL", normal},
                                        {"TANGENT", tangent},
                                        {"TEXCOORD_0", texcoord0},
                                        {"TEXCOORD_1", texcoord1},
                                        {"COLOR_0", color0}}) {
    if (index >= 0) need_data(r, index, ptr(attr_at, semantic));
  }
  for (size_t n = 0; n < joints.size(); ++n) {
    if (joints[n] >= 0) need_data(r, joints[n], ptr(attr_at, "JOINTS_" + std::to_string(n)));
  }
  for (size_t n = 0; n < weights.size(); ++n) {
    if (weights[n] >= 0) need_data(r, weights[n], ptr(attr_at, "WEIGHTS_" + std::to_string(n)));
  }

  // Indices: unsigned integers below the vertex count.
  if (find(obj, "indices")) {
    const std::optional<int> index =
        get_index(r.issues, obj, at, "indices", r.doc.accessors.size(), Need::kOptional);
    const GltfAccessor* a = index ? r.accessor(*index) : nullptr;
    const std::string p = ptr(at, "indices");
    if (a) {
      prim.indexed = true;
      if (a->type != GltfAccessorType::kScalar || a->normalized ||
          !is_one_of(a->component_type,
                     {GltfComponentType::kUnsignedByte, GltfComponentType::kUnsignedShort,
                      GltfComponentType::kUnsignedInt})) {
        r.issues.error(p, "MESH_PRIMITIVE_INDICES_ACCESSOR_INVALID_FORMAT",
                       "Invalid indices accessor format " + format_of(*a) +
                           ". Must be a SCALAR of UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT.");
      } else if (r.view_stride(*a) != 0) {
        r.issues.error(p, "BUFFER_VIEW_INVALID_BYTE_STRIDE",
                       "Only buffer views with raw vertex data can have byteStride.");
      } else if (need_data(r, *index, p) && r.charge(uint64_t{a->count} * 4, p)) {
        size_t bad = 0;
        size_t first = 0;
        for (size_t k = 0; k < a->uints.size(); ++k) {
          if (a->uints[k] >= vertices && bad++ == 0) first = k;
        }
        if (bad > 0) {
          r.issues.error(p, "ACCESSOR_INDEX_OOB",
                         "Indices accessor element at index " + std::to_string(first) +
                             " has value " + std::to_string(a->uints[first]) +
                             " that is greater than the maximum vertex index available (" +
                             std::to_string(vertices) + ") (" + std::to_string(bad) + " in all).");
        } else {
          prim.indices = a->uints;
        }
      }
    }
  }

  // The material: an index into the materials (read before the meshes).
  if (find(obj, "material")) {
    prim.material =
        get_index(r.issues, obj, at, "material", r.doc.materials.size(), Need::kOptional)
            .value_or(-1);
  }

  if (r.issues.errors() != errors_before) return;
  state->valid = true;
  state->vertex_count = vertices;
  for (size_t n = 0; n < sets; ++n) state->sets.push_back({joints[n], weights[n]});

  if (position >= 0) {
    prim.positions = copy_vec3(r, r.doc.accessors[static_cast<size_t>(position)], attr_at);
  }
  if (normal >= 0) {
    prim.normals = copy_vec3(r, r.doc.accessors[static_cast<size_t>(normal)], attr_at);
  }
  if (tangent >= 0) {
    prim.tangents = copy_vec4(r, r.doc.accessors[static_cast<size_t>(tangent)], attr_at);
  }
  if (texcoord0 >= 0) {
    prim.texcoords0 = copy_vec2(r, r.doc.accessors[static_cast<size_t>(texcoord0)], attr_at);
  }
  if (texcoord1 >= 0) {
    prim.texcoords1 = copy_vec2(r, r.doc.accessors[static_cast<size_t>(texcoord1)], attr_at);
  }
  if (color0 >= 0) {
    prim.colors = copy_color(r, r.doc.accessors[static_cast<size_t>(color0)], attr_at);
  }
  if (sets > 0) {
    const GltfAccessor& j = r.doc.accessors[static_cast<size_t>(joints[0])];
    const GltfAccessor& w = r.doc.accessors[static_cast<size_t>(weights[0])];
    if (j.decoded && w.decoded && r.charge(uint64_t{vertices} * 24, attr_at)) {
      prim.joints.resize(vertices);
      prim.weights.resize(vertices);
      for (size_t v = 0; v < vertices; ++v) {
        for (size_t k = 0; k < 4; ++k) {
          prim.joints[v][k] = static_cast<uint16_t>(j.uints[v * 4 + k]);  // u8/u16 only
          prim.weights[v][k] = w.floats[v * 4 + k];
        }
      }
    }
  }
}

void read_meshes(Reader& r) {
  const json* array = top_array(r, "meshes");
  if (!array) return;
  r.doc.meshes.resize(array->size());
  r.mesh_states.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/meshes", i);
    const json* obj = element_object(r, *array, i, at);
    if (!obj) continue;
    GltfMesh& mesh = r.doc.meshes[i];
    MeshState& state = r.mesh_states[i];
    mesh.name = get_name(r.issues, *obj, at);
    const json* primitives = get_array(r.issues, *obj, at, "primitives", Need::kRequired);
    if (!primitives) continue;
    mesh.primitives.resize(primitives->size());
    state.primitives.resize(primitives->size());
    for (size_t p = 0; p < primitives->size(); ++p) {
      const std::string pat = idx(ptr(at, "primitives"), p);
      const json* prim = element_object(r, *primitives, p, pat);
      if (!prim) continue;
      int targets = 0;
      read_primitive(r, *prim, pat, &mesh.primitives[p], &state.primitives[p], &targets);
      if (p == 0) mesh.morph_targets = targets;
      if (mesh.primitives[p].joint_sets > 0) state.has_joints = true;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Stage: nodes and hierarchy

// Whether m is T * R * S: last row (0 0 0 1) and, recomposed from its decomposition, the
// same matrix within float precision. A zero scale keeps the check to the last row.
bool is_trs_matrix(const Mat4& m, const Trs& trs) {
  if (m.m[3] != 0 || m.m[7] != 0 || m.m[11] != 0 || m.m[15] != 1) return false;
  if (trs.scale.x == 0 || trs.scale.y == 0 || trs.scale.z == 0) return true;
  const Mat4 back = to_matrix(trs);
  float largest = 1;
  for (int k = 0; k < 16; ++k) largest = std::max(largest, std::fabs(m.m[k]));
  for (int k = 0; k < 16; ++k) {
    if (!(std::fabs(back.m[k] - m.m[k]) <= 1e-4f * largest)) return false;
  }
  return true;
}

void read_node(Reader& r, const json& obj, const std::string& at, GltfNode* out) {
  GltfNode& node = *out;
  node.name = get_name(r.issues, obj, at);
  node.mesh =
      get_index(r.issues, obj, at, "mesh", r.doc.meshes.size(), Need::kOptional).value_or(-1);
  node.skin = get_index(r.issues, obj, at, "skin", r.skin_count, Need::kOptional).value_or(-1);
  if (find(obj, "skin") && !find(obj, "mesh")) {
    r.issues.error(ptr(at, "skin"), "UNSATISFIED_DEPENDENCY",
                   "Dependency failed. 'mesh' must be defined.");
  }
  if (std::optional<std::vector<int>> children =
          get_index_list(r.issues, obj, at, "children", r.node_valid.size(), Need::kOptional)) {
    for (int c : *children) {
      if (c >= 0) node.children.push_back(c);
    }
  }

  double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1}, m[16];
  const bool has_t = get_numbers(r.issues, obj, at, "translation", 3, t);
  const bool has_r = get_numbers(r.issues, obj, at, "rotation", 4, q);
  const bool has_s = get_numbers(r.issues, obj, at, "scale", 3, s);
  node.has_matrix = get_numbers(r.issues, obj, at, "matrix", 16, m);
  const auto finite = [&](const char* key, const double* v, size_t n) {
    bool ok = true;
    for (size_t k = 0; k < n; ++k) {
      if (!std::isfinite(to_float(v[k]))) {
        r.issues.error(idx(ptr(at, key), k), "VALUE_NOT_IN_RANGE",
                       "Value " + num(v[k]) + " is out of range.");
        ok = false;
      }
    }
    return ok;
  };
  if (node.has_matrix) {
    if (find(obj, "translation") || find(obj, "rotation") || find(obj, "scale")) {
      r.issues.error(ptr(at, "matrix"), "NODE_MATRIX_TRS",
                     "A node can have either a matrix or any combination of "
                     "translation/rotation/scale (TRS) properties.");
    }
    if (finite("matrix", m, 16)) {
      for (int k = 0; k < 16; ++k) node.matrix.m[k] = static_cast<float>(m[k]);
      node.local = decompose(node.matrix);
      if (!is_trs_matrix(node.matrix, node.local)) {
        r.issues.error(ptr(at, "matrix"), "NODE_MATRIX_NON_TRS",
                       "Matrix must be decomposable to TRS.");
      }
    }
    return;
  }
  if (has_t && finite("translation", t, 3)) {
    node.local.translation = {static_cast<float>(t[0]), static_cast<float>(t[1]),
                              static_cast<float>(t[2])};
  }
  if (has_r && finite("rotation", q, 4)) {
    node.local.rotation = {static_cast<float>(q[0]), static_cast<float>(q[1]),
                           static_cast<float>(q[2]), static_cast<float>(q[3])};
    const double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (std::fabs(len - 1.0) > kUnitLengthThreshold) {
      r.issues.error(ptr(at, "rotation"), "ROTATION_NON_UNIT",
                     "Rotation quaternion must be normalized (length " + num(len) + ").");
    }
  }
  if (has_s && finite("scale", s, 3)) {
    node.local.scale = {static_cast<float>(s[0]), static_cast<float>(s[1]),
                        static_cast<float>(s[2])};
  }
  node.matrix = to_matrix(node.local);
}

// Marks every node that lies on a cycle of children (Tarjan's strongly connected
// components, iterative so deep hierarchies cannot exhaust the stack).
std::vector<bool> nodes_on_cycles(const std::vector<GltfNode>& nodes) {
  const size_t n = nodes.size();
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<bool> on_stack(n, false), on_cycle(n, false);
  std::vector<int> stack;
  std::vector<std::pair<int, size_t>> work;  // node, next child position
  int counter = 0;
  for (size_t start = 0; start < n; ++start) {
    if (index[start] >= 0) continue;
    work.push_back({static_cast<int>(start), 0});
    while (!work.empty()) {
      auto& [v, next] = work.back();
      const size_t vi = static_cast<size_t>(v);
      if (next == 0 && index[vi] < 0) {
        index[vi] = low[vi] = counter++;
        stack.push_back(v);
        on_stack[vi] = true;
      }
      if (next < nodes[vi].children.size()) {
        const int w = nodes[vi].children[next++];
        const size_t wi = static_cast<size_t>(w);
        if (w == v) on_cycle[vi] = true;  // its own child
        if (index[wi] < 0) {
          work.push_back({w, 0});
        } else if (on_stack[wi]) {
          low[vi] = std::min(low[vi], index[wi]);
        }
        continue;
      }
      if (low[vi] == index[vi]) {  // vi is the root of a component: pop it
        std::vector<int> component;
        int w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[static_cast<size_t>(w)] = false;
          component.push_back(w);
        } while (w != v);
        if (component.size() > 1) {
          for (int c : component) on_cycle[static_cast<size_t>(c)] = true;
        }
      }
      const int finished = v;
      work.pop_back();
      if (!work.empty()) {
        const size_t parent = static_cast<size_t>(work.back().first);
        low[parent] = std::min(low[parent], low[static_cast<size_t>(finished)]);
      }
    }
  }
  return on_cycle;
}

// NODE_HIERARCHY_TOO_DEEP at the first node more than kGltfMaxNodeDepth levels below its
// root. Depths are memoised along each walk up, so the check is linear in the nodes;
// nodes on or under a loop (reported as NODE_LOOP) have none.
void check_depth(Reader& r, const std::vector<bool>& on_cycle) {
  const std::vector<GltfNode>& nodes = r.doc.nodes;
  constexpr int64_t kUnknown = -1, kUnderLoop = -2;
  std::vector<int64_t> depth(nodes.size(), kUnknown);
  std::vector<size_t> path;
  for (size_t i = 0; i < nodes.size(); ++i) {
    path.clear();
    int64_t base = -1;  // the depth of the node above the path (-1: above a root)
    for (int v = static_cast<int>(i); v >= 0; v = nodes[static_cast<size_t>(v)].parent) {
      const size_t u = static_cast<size_t>(v);
      if (depth[u] != kUnknown) {
        base = depth[u];
        break;
      }
      if (on_cycle[u]) {
        base = kUnderLoop;
        break;
      }
      depth[u] = kUnderLoop;  // until set below; a loop not marked stops here too
      path.push_back(u);
    }
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      depth[*it] = base == kUnderLoop ? kUnderLoop : ++base;
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (depth[i] > static_cast<int64_t>(kGltfMaxNodeDepth)) {
      r.issues.error(idx("/nodes", i), "NODE_HIERARCHY_TOO_DEEP",
                     "Node is " + std::to_string(depth[i]) + " levels below its root; at most " +
                         std::to_string(kGltfMaxNodeDepth) + " are taken.");
      return;
    }
  }
}

void read_nodes(Reader& r) {
  const json* array = top_array(r, "nodes");
  if (!array) return;
  r.doc.nodes.resize(array->size());
  r.node_valid.assign(array->size(), false);
  // Skins are read after nodes (their joints are nodes); nodes only need their number.
  const json* skins = find(r.root, "skins");
  r.skin_count = skins && skins->is_array() ? skins->size() : 0;
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/nodes", i);
    const json* obj = element_object(r, *array, i, at);
    if (!obj) continue;
    const size_t errors_before = r.issues.errors();
    read_node(r, *obj, at, &r.doc.nodes[i]);
    r.node_valid[i] = r.issues.errors() == errors_before;
  }

  // Parents: the first node listing a child wins; another one is an error.
  std::vector<GltfNode>& nodes = r.doc.nodes;
  for (size_t p = 0; p < nodes.size(); ++p) {
    for (size_t k = 0; k < nodes[p].children.size(); ++k) {
      const size_t c = static_cast<size_t>(nodes[p].children[k]);
      if (c == p) continue;  // a loop, reported below
      if (nodes[c].parent < 0) {
        nodes[c].parent = static_cast<int>(p);
      } else {
        r.issues.error(idx(ptr(idx("/nodes", p), "children"), k), "NODE_PARENT_OVERRIDE",
                       "Value overrides parent of node " + std::to_string(c) + ".");
      }
    }
  }
  const std::vector<bool> on_cycle = nodes_on_cycles(nodes);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (on_cycle[i]) {
      r.issues.error(idx("/nodes", i), "NODE_LOOP", "Node is a part of a node loop.");
    }
  }
  check_depth(r, on_cycle);

  // A skin needs a skinned mesh and vice versa.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GltfNode& node = nodes[i];
    if (node.mesh < 0) continue;
    const bool skinned_mesh = r.mesh_states[static_cast<size_t>(node.mesh)].has_joints;
    if (node.skin >= 0 && !skinned_mesh) {
      r.issues.error(idx("/nodes", i), "NODE_SKIN_WITH_NON_SKINNED_MESH",
                     "Node has skin defined, but mesh has no joints data.");
    } else if (node.skin < 0 && skinned_mesh && r.node_valid[i]) {
      r.issues.warning(idx("/nodes", i), "NODE_SKINNED_MESH_WITHOUT_SKIN",
                       "Node uses skinned mesh, but has no skin defined.");
    }
  }
}

// ---------------------------------------------------------------------------------------
// Stage: skins

// The nodes that are ancestors-or-self of every joint (glTF-Validator's "common roots").
std::vector<bool> common_roots(const std::vector<GltfNode>& nodes, const std::vector<int>& joints) {
  std::vector<uint32_t> hits(nodes.size(), 0);
  std::vector<uint32_t> seen_by(nodes.size(), UINT32_MAX);
  uint32_t valid_joints = 0;
  for (size_t j = 0; j < joints.size(); ++j) {
    if (joints[j] < 0) continue;
    ++valid_joints;
    // Walk up; seen_by stops the walk on a cycle, and the depth limit (a deeper hierarchy
    // is an error, NODE_HIERARCHY_TOO_DEEP) keeps the walks linear in the joints.
    size_t steps = 0;
    for (int v = joints[j];
         v >= 0 && seen_by[static_cast<size_t>(v)] != j && steps++ <= kGltfMaxNodeDepth;
         v = nodes[static_cast<size_t>(v)].parent) {
      seen_by[static_cast<size_t>(v)] = static_cast<uint32_t>(j);
      ++hits[static_cast<size_t>(v)];
    }
  }
  std::vector<bool> out(nodes.size(), false);
  for (size_t v = 0; v < nodes.size(); ++v) out[v] = valid_joints > 0 && hits[v] == valid_joints;
  return out;
}

void read_skin(Reader& r, const json& obj, const std::string& at, GltfSkin* out) {
  GltfSkin& skin = *out;
  skin.name = get_name(r.issues, obj, at);
  const size_t errors_before = r.issues.errors();
  const std::optional<std::vector<int>> joints =
      get_index_list(r.issues, obj, at, "joints", r.doc.nodes.size(), Need::kRequired);
  const std::optional<int> skeleton =
      get_index(r.issues, obj, at, "skeleton", r.doc.nodes.size(), Need::kOptional);
  const std::optional<int> ibm =
      get_index(r.issues, obj, at, "inverseBindMatrices", r.doc.accessors.size(), Need::kOptional);
  if (!joints) return;
  const size_t joint_count = joints->size();
  if (joint_count > kGltfMaxSkinJoints) {
    r.issues.error(ptr(at, "joints"), "SKIN_TOO_MANY_JOINTS",
                   "The skin has " + std::to_string(joint_count) + " joints; at most " +
                       std::to_string(kGltfMaxSkinJoints) + " are taken.");
    return;
  }

  // Joints without a common root are only a warning: glTF 2.0.1 does not require one and
  // the Asset Generator's positive Animation_Skin_06 has two root joints; a rig then has
  // several roots under the scene.
  const std::vector<bool> roots = common_roots(r.doc.nodes, *joints);
  if (std::find(roots.begin(), roots.end(), true) == roots.end()) {
    r.issues.warning(ptr(at, "joints"), "SKIN_NO_COMMON_ROOT", "Joints do not have a common root.");
  } else if (skeleton && !roots[static_cast<size_t>(*skeleton)]) {
    r.issues.error(ptr(at, "skeleton"), "SKIN_SKELETON_INVALID",
                   "Skeleton node is not a common root.");
  }

  std::vector<Mat4> binds(joint_count);  // identities
  if (ibm) {
    const std::string p = ptr(at, "inverseBindMatrices");
    if (const GltfAccessor* a = r.accessor(*ibm)) {
      if (r.view_stride(*a) != 0) {
        r.issues.error(p, "SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE",
                       "bufferView.byteStride must not be defined for buffer views used by inverse "
                       "bind matrices accessors.");
      }
      if (a->type != GltfAccessorType::kMat4 || a->component_type != GltfComponentType::kFloat ||
          a->normalized) {
        r.issues.error(
            p, "SKIN_IBM_INVALID_FORMAT",
            "Invalid IBM accessor format " + format_of(*a) + ". Must be one of ('{MAT4, FLOAT}').");
      } else if (a->count < joint_count) {
        r.issues.error(p, "INVALID_IBM_ACCESSOR_COUNT",
                       "IBM accessor must have at least " + std::to_string(joint_count) +
                           " elements. Found " + std::to_string(a->count) + ".");
      } else if (need_data(r, *ibm, p)) {
        if (a->count > joint_count) {
          r.issues.warning(p, "INVALID_IBM_ACCESSOR_COUNT",
                           "IBM accessor has " + std::to_string(a->count) + " elements for " +
                               std::to_string(joint_count) + " joints; the rest are ignored.");
        }
        size_t bad = 0, first = 0;
        for (size_t e = 0; e < a->count; ++e) {
          const float* f = &a->floats[e * 16];
          if (f[3] != 0 || f[7] != 0 || f[11] != 0 || f[15] != 1) {
            if (bad++ == 0) first = e;
          }
        }
        if (bad > 0) {
          r.issues.error(p, "ACCESSOR_INVALID_IBM",
                         "Inverse bind matrix " + std::to_string(first) +
                             " is not affine: its last row must be (0, 0, 0, 1) (" +
                             std::to_string(bad) + " in all).");
        }
        for (size_t j = 0; j < joint_count; ++j) {
          std::copy_n(&a->floats[j * 16], 16, binds[j].m);
        }
        skin.has_inverse_binds = true;
      }
    }
  }
  if (r.issues.errors() != errors_before) return;
  skin.joints = *joints;
  skin.skeleton = skeleton.value_or(-1);
  skin.inverse_binds = std::move(binds);
}

void read_skins(Reader& r) {
  const json* array = top_array(r, "skins");
  if (!array) return;
  r.doc.skins.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/skins", i);
    if (const json* obj = element_object(r, *array, i, at)) read_skin(r, *obj, at, &r.doc.skins[i]);
  }
}

// ---------------------------------------------------------------------------------------
// Stage: scenes

// Nodes reachable from `roots` through children (cycles are cut).
std::vector<bool> reachable(const std::vector<GltfNode>& nodes, const std::vector<int>& roots) {
  std::vector<bool> seen(nodes.size(), false);
  std::vector<int> todo;
  for (int root : roots) {
    if (root >= 0) todo.push_back(root);
  }
  while (!todo.empty()) {
    const size_t v = static_cast<size_t>(todo.back());
    todo.pop_back();
    if (seen[v]) continue;
    seen[v] = true;
    for (int c : nodes[v].children) todo.push_back(c);
  }
  return seen;
}

void read_scenes(Reader& r) {
  const std::vector<GltfNode>& nodes = r.doc.nodes;
  if (const json* array = top_array(r, "scenes")) {
    r.doc.scenes.resize(array->size());
    for (size_t i = 0; i < array->size(); ++i) {
      const std::string at = idx("/scenes", i);
      const json* obj = element_object(r, *array, i, at);
      if (!obj) continue;
      GltfScene& scene = r.doc.scenes[i];
      scene.name = get_name(r.issues, *obj, at);
      const std::optional<std::vector<int>> list =
          get_index_list(r.issues, *obj, at, "nodes", nodes.size(), Need::kOptional);
      if (!list) continue;
      for (size_t k = 0; k < list->size(); ++k) {
        const int n = (*list)[k];
        if (n < 0) continue;
        if (nodes[static_cast<size_t>(n)].parent >= 0) {
          r.issues.error(idx(ptr(at, "nodes"), k), "SCENE_NON_ROOT_NODE",
                         "Node " + std::to_string(n) + " is not a root node.");
        }
        scene.nodes.push_back(n);
      }
      // A skinned node must find its joints in the same scene.
      const std::vector<bool> in_scene = reachable(nodes, scene.nodes);
      for (size_t n = 0; n < nodes.size(); ++n) {
        if (!in_scene[n] || nodes[n].skin < 0 || nodes[n].mesh < 0) continue;
        const GltfSkin& skin = r.doc.skins[static_cast<size_t>(nodes[n].skin)];
        const bool joints_in_scene =
            std::all_of(skin.joints.begin(), skin.joints.end(),
                        [&](int j) { return j < 0 || in_scene[static_cast<size_t>(j)]; });
        if (!joints_in_scene) {
          r.issues.error(idx("/nodes", n), "NODE_SKIN_NO_SCENE",
                         "A node with a skinned mesh is used in a scene (" + std::to_string(i) +
                             ") that does not contain joint nodes.");
        }
      }
    }
  }
  r.doc.scene =
      get_index(r.issues, r.root, "", "scene", r.doc.scenes.size(), Need::kOptional).value_or(-1);
  const int chosen = r.doc.scene >= 0 ? r.doc.scene : (r.doc.scenes.empty() ? -1 : 0);
  if (chosen >= 0) {
    r.doc.roots = r.doc.scenes[static_cast<size_t>(chosen)].nodes;
  } else {
    for (size_t n = 0; n < nodes.size(); ++n) {
      if (nodes[n].parent < 0) r.doc.roots.push_back(static_cast<int>(n));
    }
  }
}

// ---------------------------------------------------------------------------------------
// Stage: skinning data (JOINTS_n / WEIGHTS_n against the skins that use each mesh)

void check_influences(Reader& r, size_t mesh, size_t primitive, const PrimitiveState& state,
                      size_t max_joints) {
  const std::string at = ptr(idx(ptr(idx("/meshes", mesh), "primitives"), primitive), "attributes");
  struct Counter {
    size_t count = 0;
    size_t first_vertex = 0;
    double first_value = 0;
    void add(size_t vertex, double value) {
      if (count++ == 0) {
        first_vertex = vertex;
        first_value = value;
      }
    }
  };
  const size_t sets = state.sets.size();
  std::vector<Counter> oob(sets), duplicate(sets), negative(sets);
  Counter non_normalized;
  std::vector<uint32_t> used;
  for (const InfluenceSet& set : state.sets) {
    const GltfAccessor& j = r.doc.accessors[static_cast<size_t>(set.joints)];
    const GltfAccessor& w = r.doc.accessors[static_cast<size_t>(set.weights)];
    if (!j.decoded || !w.decoded || j.count != state.vertex_count ||
        w.count != state.vertex_count) {
      return;  // already reported
    }
  }
  for (size_t v = 0; v < state.vertex_count; ++v) {
    used.clear();
    float sum = 0;
    for (size_t s = 0; s < sets; ++s) {
      const GltfAccessor& j = r.doc.accessors[static_cast<size_t>(state.sets[s].joints)];
      const GltfAccessor& w = r.doc.accessors[static_cast<size_t>(state.sets[s].weights)];
      for (size_t k = 0; k < 4; ++k) {
        const uint32_t joint = j.uints[v * 4 + k];
        const float weight = w.floats[v * 4 + k];
        if (joint >= max_joints) {
          oob[s].add(v, joint);
          continue;
        }
        if (weight == 0) continue;
        if (std::find(used.begin(), used.end(), joint) != used.end()) {
          duplicate[s].add(v, joint);
          continue;
        }
        used.push_back(joint);
        if (weight < 0) {
          negative[s].add(v, weight);
        } else {
          sum += weight;
        }
      }
    }
    // glTF-Validator's threshold, plus float rounding of the sum itself.
    const double threshold =
        kUnitSumThresholdStep *
            static_cast<double>(std::max<size_t>((used.size() + 1) / 2, 1) - 1) +
        1e-6;
    if (std::fabs(static_cast<double>(sum) - 1.0) > threshold) non_normalized.add(v, sum);
  }
  for (size_t s = 0; s < sets; ++s) {
    const std::string jat = ptr(at, "JOINTS_" + std::to_string(s));
    const std::string wat = ptr(at, "WEIGHTS_" + std::to_string(s));
    if (oob[s].count > 0) {
      r.issues.error(jat, "ACCESSOR_JOINTS_INDEX_OOB",
                     "Joints accessor element at vertex " + std::to_string(oob[s].first_vertex) +
                         " has value " + num(oob[s].first_value) +
                         " that is greater than the maximum joint index (" +
                         std::to_string(max_joints - 1) + ") of the skins using this mesh (" +
                         std::to_string(oob[s].count) + " in all).");
    }
    if (duplicate[s].count > 0) {
      r.issues.warning(jat, "ACCESSOR_JOINTS_INDEX_DUPLICATE",
                       "Vertex " + std::to_string(duplicate[s].first_vertex) + " uses joint " +
                           num(duplicate[s].first_value) + " twice with non-zero weights (" +
                           std::to_string(duplicate[s].count) + " in all).");
    }
    if (negative[s].count > 0) {
      r.issues.error(wat, "ACCESSOR_WEIGHTS_NEGATIVE",
                     "Weights accessor element at vertex " +
                         std::to_string(negative[s].first_vertex) + " has negative value " +
                         num(negative[s].first_value) + " (" + std::to_string(negative[s].count) +
                         " in all).");
    }
  }
  if (non_normalized.count > 0) {
    r.issues.warning(ptr(at, "WEIGHTS_0"), "ACCESSOR_WEIGHTS_NON_NORMALIZED",
                     "Weights of vertex " + std::to_string(non_normalized.first_vertex) +
                         " sum to " + num(non_normalized.first_value) + ", not 1 (" +
                         std::to_string(non_normalized.count) + " vertices in all).");
  }
}

void check_skinning_data(Reader& r) {
  for (size_t m = 0; m < r.doc.meshes.size(); ++m) {
    if (!r.mesh_states[m].has_joints) continue;
    // The fewest joints of any skin the mesh is used with bounds the joint indices.
    size_t max_joints = 0;
    for (const GltfNode& node : r.doc.nodes) {
      if (node.mesh != static_cast<int>(m) || node.skin < 0) continue;
      const size_t n = r.doc.skins[static_cast<size_t>(node.skin)].joints.size();
      if (n > 0 && (max_joints == 0 || n < max_joints)) max_joints = n;
    }
    if (max_joints == 0) continue;
    for (size_t p = 0; p < r.mesh_states[m].primitives.size(); ++p) {
      const PrimitiveState& state = r.mesh_states[m].primitives[p];
      if (state.valid && !state.sets.empty()) check_influences(r, m, p, state, max_joints);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Stage: animations

struct SamplerState {
  bool valid = false;  // input and output decoded and checked
  int input = -1;
  int output = -1;
  Interpolation interpolation = Interpolation::kLinear;
};

SamplerState read_sampler(Reader& r, const json& obj, const std::string& at) {
  SamplerState s;
  const size_t errors_before = r.issues.errors();
  const std::optional<int> input =
      get_index(r.issues, obj, at, "input", r.doc.accessors.size(), Need::kRequired);
  const std::optional<int> output =
      get_index(r.issues, obj, at, "output", r.doc.accessors.size(), Need::kRequired);
  const std::string interpolation =
      get_string(r.issues, obj, at, "interpolation", Need::kOptional).value_or("LINEAR");
  if (interpolation == "STEP") {
    s.interpolation = Interpolation::kStep;
  } else if (interpolation == "LINEAR") {
    s.interpolation = Interpolation::kLinear;
  } else if (interpolation == "CUBICSPLINE") {
    s.interpolation = Interpolation::kCubicSpline;
  } else {
    r.issues.error(ptr(at, "interpolation"), "VALUE_NOT_IN_LIST",
                   "Invalid value " + in_quotes(interpolation) +
                       ". Valid values are ('LINEAR', 'STEP', 'CUBICSPLINE').");
  }

  const GltfAccessor* in = input ? r.accessor(*input) : nullptr;
  const GltfAccessor* out = output ? r.accessor(*output) : nullptr;
  if (in) need_data(r, *input, ptr(at, "input"));
  if (out) need_data(r, *output, ptr(at, "output"));
  if (in) {
    const std::string p = ptr(at, "input");
    if (r.view_stride(*in) != 0) {
      r.issues.error(p, "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE",
                     "bufferView.byteStride must not be defined for buffer views used by animation "
                     "sampler accessors.");
    }
    const bool format_ok = in->type == GltfAccessorType::kScalar &&
                           in->component_type == GltfComponentType::kFloat && !in->normalized;
    if (!format_ok) {
      r.issues.error(p, "ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT",
                     "Invalid Animation sampler input accessor format " + format_of(*in) +
                         ". Must be one of ('{SCALAR, FLOAT}').");
    }
    if (!in->has_bounds) {
      r.issues.error(p, "ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS",
                     "accessor.min and accessor.max must be defined for animation input accessor.");
    }
    if (s.interpolation == Interpolation::kCubicSpline && in->count < 2) {
      r.issues.error(
          p, "ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS",
          "Animation sampler with 'CUBICSPLINE' interpolation must have at least 2 keys. Got " +
              std::to_string(in->count) + ".");
    }
    if (format_ok && in->decoded) {
      // Key times: not negative and strictly ascending (glTF 2.0 "Animations").
      float last = 0;
      for (size_t k = 0; k < in->floats.size(); ++k) {
        const float t = in->floats[k];
        if (t < 0) {
          r.issues.error(p, "ACCESSOR_ANIMATION_INPUT_NEGATIVE",
                         "Animation input accessor element at index " + std::to_string(k) +
                             " is negative: " + num(t) + ".");
          break;
        }
        if (k > 0 && !(t > last)) {
          r.issues.error(p, "ACCESSOR_ANIMATION_INPUT_NON_INCREASING",
                         "Animation input accessor element at index " + std::to_string(k) +
                             " is less than or equal to previous: " + num(t) + " <= " + num(last) +
                             ".");
          break;
        }
        last = t;
      }
    }
  }
  if (out && r.view_stride(*out) != 0) {
    r.issues.error(ptr(at, "output"), "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE",
                   "bufferView.byteStride must not be defined for buffer views used by animation "
                   "sampler accessors.");
  }
  s.input = input.value_or(-1);
  s.output = output.value_or(-1);
  s.valid = r.issues.errors() == errors_before && in && out && in->decoded && out->decoded;
  return s;
}

// Whether the output format suits the path (glTF 2.0 "Animations", table of accessor types).
bool output_format_ok(const Reader& r, std::string_view path, const GltfAccessor& a) {
  using T = GltfComponentType;
  const bool is_float = a.component_type == T::kFloat;
  const bool normalized_int =
      a.normalized &&
      is_one_of(a.component_type, {T::kByte, T::kUnsignedByte, T::kShort, T::kUnsignedShort});
  if (path == "translation" || path == "scale") {
    return a.type == GltfAccessorType::kVec3 &&
           (is_float || (r.mesh_quantization && a.component_type != T::kUnsignedInt));
  }
  if (path == "rotation") return a.type == GltfAccessorType::kVec4 && (is_float || normalized_int);
  return a.type == GltfAccessorType::kScalar && (is_float || normalized_int);  // weights
}

struct ChannelTarget {
  int node;
  std::string path;
  size_t channel;
};

void read_animation(Reader& r, const json& obj, const std::string& at, GltfAnimation* out) {
  GltfAnimation& anim = *out;
  anim.name = get_name(r.issues, obj, at);
  const json* channels = get_array(r.issues, obj, at, "channels", Need::kRequired);
  const json* samplers = get_array(r.issues, obj, at, "samplers", Need::kRequired);
  std::vector<SamplerState> states;
  if (samplers) {
    for (size_t k = 0; k < samplers->size(); ++k) {
      const std::string sat = idx(ptr(at, "samplers"), k);
      const json* s = element_object(r, *samplers, k, sat);
      states.push_back(s ? read_sampler(r, *s, sat) : SamplerState{});
    }
  }
  if (!channels) return;

  std::vector<ChannelTarget> targets;
  for (size_t c = 0; c < channels->size(); ++c) {
    const std::string cat = idx(ptr(at, "channels"), c);
    const json* ch = element_object(r, *channels, c, cat);
    if (!ch) continue;
    const size_t errors_before = r.issues.errors();
    const std::optional<int> sampler =
        get_index(r.issues, *ch, cat, "sampler", states.size(), Need::kRequired);
    const json* target = get_object(r.issues, *ch, cat, "target", Need::kRequired);
    if (!target) continue;
    const std::string tat = ptr(cat, "target");
    const std::optional<std::string> path =
        get_string(r.issues, *target, tat, "path", Need::kRequired);
    const std::optional<int> node =
        get_index(r.issues, *target, tat, "node", r.doc.nodes.size(), Need::kOptional);
    if (!path) continue;
    const bool trs = *path == "translation" || *path == "rotation" || *path == "scale";
    if (!trs && *path != "weights") {
      r.issues.warning(ptr(tat, "path"), "VALUE_NOT_IN_LIST",
                       "Invalid value " + in_quotes(*path) +
                           ". Valid values are ('translation', 'rotation', 'scale', 'weights'); "
                           "the channel is ignored.");
      continue;
    }
    if (!find(*target, "node")) {
      r.issues.warning(tat, "ANIMATION_CHANNEL_NO_NODE",
                       "The channel has no target.node and is ignored.");
      continue;
    }
    if (!node) continue;

    const GltfNode& n = r.doc.nodes[static_cast<size_t>(*node)];
    int morph_targets = 0;
    if (trs) {
      if (n.has_matrix) {
        r.issues.error(
            tat, "ANIMATION_CHANNEL_TARGET_NODE_MATRIX",
            "Animation channel cannot target TRS properties of a node with defined matrix.");
      }
      if (n.skin >= 0) {
        r.issues.warning(ptr(tat, "path"), "ANIMATION_CHANNEL_TARGET_NODE_SKIN",
                         "Animated TRS properties will not affect a skinned mesh.");
      }
    } else {
      morph_targets = n.mesh >= 0 ? r.doc.meshes[static_cast<size_t>(n.mesh)].morph_targets : 0;
      if (morph_targets == 0) {
        r.issues.error(
            tat, "ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS",
            "Animation channel cannot target WEIGHTS when mesh does not have morph targets.");
      }
    }
    for (const ChannelTarget& seen : targets) {
      if (seen.node == *node && seen.path == *path) {
        r.issues.error(
            ptr(idx(ptr(at, "channels"), seen.channel), "target"), "ANIMATION_DUPLICATE_TARGETS",
            "Animation channel has the same target as channel " + std::to_string(c) + ".");
        break;
      }
    }
    targets.push_back({*node, *path, c});
    if (!sampler) continue;

    // The sampler's output against this path.
    const SamplerState& s = states[static_cast<size_t>(*sampler)];
    const GltfAccessor* in = r.accessor(s.input);
    const GltfAccessor* output = r.accessor(s.output);
    const std::string sat = ptr(cat, "sampler");
    const int width = trs ? (*path == "rotation" ? 4 : 3) : morph_targets;
    if (output) {
      if (!output_format_ok(r, *path, *output)) {
        r.issues.error(sat, "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT",
                       "Invalid animation sampler output accessor format " + format_of(*output) +
                           " for path " + in_quotes(*path) + ".");
      } else if (in) {
        const uint64_t expected = uint64_t{in->count} *
                                  (s.interpolation == Interpolation::kCubicSpline ? 3 : 1) *
                                  static_cast<uint64_t>(trs ? 1 : morph_targets);
        if (expected != 0 && expected != output->count) {
          r.issues.error(sat, "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT",
                         "Animation sampler output accessor of count " + std::to_string(expected) +
                             " expected. Found " + std::to_string(output->count) + ".");
        } else if (*path == "rotation" && output->decoded) {
          // Unit quaternions; for CUBICSPLINE only the values, not the tangents.
          const bool cubic = s.interpolation == Interpolation::kCubicSpline;
          size_t bad = 0, first = 0;
          double first_length = 0;
          for (size_t e = cubic ? 1 : 0; e < output->count; e += cubic ? 3 : 1) {
            const float* q = &output->floats[e * 4];
            const double len =
                std::sqrt(static_cast<double>(q[0]) * q[0] + static_cast<double>(q[1]) * q[1] +
                          static_cast<double>(q[2]) * q[2] + static_cast<double>(q[3]) * q[3]);
            if (!(std::fabs(len - 1.0) <= kUnitLengthThreshold) && bad++ == 0) {
              first = e;
              first_length = len;
            }
          }
          if (bad > 0) {
            r.issues.error(sat, "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION",
                           "Animation sampler output accessor element " + std::to_string(first) +
                               " is not of unit length: " + num(first_length) + " (" +
                               std::to_string(bad) + " in all).");
          }
        }
      }
    }
    if (r.issues.errors() != errors_before || !s.valid) continue;

    GltfChannel channel;
    channel.node = *node;
    channel.morph_weights = !trs;
    channel.property = *path == "rotation" ? Property::kRotation
                       : *path == "scale"  ? Property::kScale
                                           : Property::kTranslation;
    channel.interpolation = s.interpolation;
    channel.width = width;
    channel.source_channel = static_cast<int>(c);
    channel.sampler = *sampler;
    if (!r.charge((in->floats.size() + output->floats.size()) * sizeof(float), cat)) continue;
    channel.times = in->floats;
    channel.values = output->floats;
    anim.duration = std::max(anim.duration, channel.times.back());
    anim.channels.push_back(std::move(channel));
  }
}

void read_animations(Reader& r) {
  const json* array = top_array(r, "animations");
  if (!array) return;
  if (array->size() > kGltfMaxAnimations) {
    r.issues.error("/animations", "ANIMATIONS_TOO_MANY",
                   "The file has " + std::to_string(array->size()) + " animations; at most " +
                       std::to_string(kGltfMaxAnimations) + " are taken.");
    return;
  }
  r.doc.animations.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/animations", i);
    if (const json* obj = element_object(r, *array, i, at)) {
      read_animation(r, *obj, at, &r.doc.animations[i]);
    }
  }
}

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
