// glTF reader: JSON pointers, small helpers and JSON access (each getter reports what is
// wrong at the property's pointer), shared by every stage (reader_internal.h).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "reader_internal.h"

namespace animpack::gltf_internal {

namespace {

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

}  // namespace

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
                                 const char* key, Need need, uint64_t lo, uint64_t hi) {
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

std::optional<std::vector<float>> get_float_list(Issues& issues, const json& obj,
                                                 const std::string& at, const char* key,
                                                 Need need) {
  const json* v = get_array(issues, obj, at, key, need);
  if (!v) return std::nullopt;
  const std::string p = ptr(at, key);
  std::vector<float> out;
  out.reserve(v->size());
  bool ok = true;
  for (size_t i = 0; i < v->size(); ++i) {
    const json& e = (*v)[i];
    if (!e.is_number()) {
      type_mismatch(issues, idx(p, i), e, "a number");
      ok = false;
      continue;
    }
    const float f = to_float(e.get<double>());
    if (!std::isfinite(f)) {
      issues.error(idx(p, i), "VALUE_NOT_IN_RANGE",
                   "Value " + num(e.get<double>()) + " is out of range.");
      ok = false;
      continue;
    }
    out.push_back(f);
  }
  if (!ok) return std::nullopt;
  return out;
}

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

}  // namespace animpack::gltf_internal
