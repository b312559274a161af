// glTF reader: component types and element layout, and the accessors stage: definitions,
// layout checks against their views, decoding (sparse substitutions included), float and
// bounds checks (glTF 2.0 "Accessors").

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "reader_internal.h"

namespace animpack::gltf_internal {

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

namespace {

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

}  // namespace

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

}  // namespace animpack::gltf_internal
