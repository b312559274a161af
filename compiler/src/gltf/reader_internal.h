// The glTF reader's internals, shared by its stages (compiler/src/gltf/*.cpp; the driver
// and the public functions are in compiler/src/gltf_reader.cpp). Not installed: nlohmann
// JSON stays out of the public header.
//
// What is here: the issue list (Issues, and Code, checked against kGltfIssueCodes at
// compile time), JSON pointers and getters, component types and element layouts, the
// file and URI helpers, the Reader with the state one stage leaves for the next, and the
// stage functions in the order read_document runs them.

#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/compiler/gltf_reader.h"

namespace animpack::gltf_internal {

using nlohmann::json;

constexpr uint64_t kMaxSafeInteger = (uint64_t{1} << 53) - 1;  // glTF's integer limit
constexpr uint32_t kGlbMagic = 0x46546C67;                     // "glTF"
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
// Small helpers (json_access.cpp)

// base + "/" + key (key escaped as RFC 6901 says).
std::string ptr(std::string_view base, std::string_view key);
// base + "/" + index.
std::string idx(std::string_view base, size_t index);
// A number for messages ("%.9g").
std::string num(double v);
std::string in_quotes(std::string_view s);
// A double as float without undefined behaviour: beyond float's range gives infinity.
float to_float(double v);
uint16_t read_u16(const uint8_t* p);
uint32_t read_u32(const uint8_t* p);

// ---------------------------------------------------------------------------------------
// JSON access (json_access.cpp): each getter reports what is wrong at the property's
// pointer and returns nothing, so callers only decide what an absent or bad value means.

enum class Need { kOptional, kRequired };

const json* find(const json& obj, const char* key);
void type_mismatch(Issues& issues, const std::string& at, const json& v, const char* expected);
std::optional<uint64_t> get_uint(Issues& issues, const json& obj, const std::string& at,
                                 const char* key, Need need, uint64_t lo = 0,
                                 uint64_t hi = kMaxSafeInteger);
// An index into an array of `count` objects.
std::optional<int> get_index(Issues& issues, const json& obj, const std::string& at,
                             const char* key, size_t count, Need need);
std::optional<std::string> get_string(Issues& issues, const json& obj, const std::string& at,
                                      const char* key, Need need);
std::string get_name(Issues& issues, const json& obj, const std::string& at);
std::optional<bool> get_bool(Issues& issues, const json& obj, const std::string& at,
                             const char* key);
const json* get_object(Issues& issues, const json& obj, const std::string& at, const char* key,
                       Need need);
// An array; an empty one is reported (EMPTY_ENTITY) and returned as absent.
const json* get_array(Issues& issues, const json& obj, const std::string& at, const char* key,
                      Need need);
// A fixed-length array of numbers. False when absent (silently) or bad (reported).
bool get_numbers(Issues& issues, const json& obj, const std::string& at, const char* key, size_t n,
                 double* out);
// A list of distinct indices < count. nullopt when absent or not an array (reported);
// otherwise one entry per element, -1 for an element reported as bad.
std::optional<std::vector<int>> get_index_list(Issues& issues, const json& obj,
                                               const std::string& at, const char* key, size_t count,
                                               Need need);
// A number in [lo, hi] (finite); nullopt when absent (silently) or bad (reported).
std::optional<double> get_number(Issues& issues, const json& obj, const std::string& at,
                                 const char* key, double lo, double hi);
// A fixed-length array of finite numbers each in [lo, hi]; false when absent or bad.
bool get_ranged_numbers(Issues& issues, const json& obj, const std::string& at, const char* key,
                        size_t n, double lo, double hi, double* out);
// A non-empty array of any length of numbers that are finite as floats (morph weights);
// nullopt when absent or bad (reported, every bad element at its pointer).
std::optional<std::vector<float>> get_float_list(Issues& issues, const json& obj,
                                                 const std::string& at, const char* key, Need need);

// ---------------------------------------------------------------------------------------
// Component types and element layout (accessors.cpp)

std::optional<GltfComponentType> component_type_of(uint64_t v);
const char* component_type_name(GltfComponentType t);
uint32_t component_size(GltfComponentType t);
std::optional<GltfAccessorType> accessor_type_of(std::string_view name);
const char* accessor_type_name(GltfAccessorType t);
bool is_matrix(GltfAccessorType t);
// "{VEC4, UNSIGNED_BYTE normalized}", for messages.
std::string format_of(const GltfAccessor& a);

inline bool is_one_of(GltfComponentType t, std::initializer_list<GltfComponentType> list) {
  for (GltfComponentType u : list) {
    if (u == t) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// URIs and files (container_and_buffers.cpp)

// RFC 3986 percent-decoding; nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view s);
// "data:[<media type>][;base64],<data>" (RFC 2397).
std::optional<std::vector<uint8_t>> decode_data_uri(std::string_view uri);
// Whether a URI reference starts with a scheme ("http:", "file:", "C:").
bool has_scheme(std::string_view uri);

enum class ReadStatus { kOk, kCannotOpen, kTooShort, kTooLarge };

// Reads the first `want` bytes of a file (all of it when want is nullopt) through the
// cooker's one input reader (regular files of bounded size only); out_size gets the file's
// size, *why the reason when it cannot be opened or read.
ReadStatus read_file(const std::filesystem::path& path, std::optional<uint64_t> want,
                     std::vector<uint8_t>* out, uint64_t* out_size, std::string* why);

// ---------------------------------------------------------------------------------------
// Container: GLB or plain JSON (container_and_buffers.cpp)

struct Container {
  bool ok = false;
  std::span<const uint8_t> json;  // the JSON text
  int64_t json_offset = 0;        // where it starts in the file
  bool is_glb = false;
  bool has_bin = false;
  std::span<const uint8_t> bin;  // the BIN chunk's data
};

// The GLB header and chunk table, checked against the data's real size before anything
// is read, so a header claiming gigabytes fails at once.
Container read_glb(std::span<const uint8_t> bytes, Issues& issues);
// Parses the JSON text; syntax errors carry their byte offset in the file.
std::optional<json> parse_json(std::span<const uint8_t> text, int64_t offset, Issues& issues);

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
  bool extra_target_attributes_reported = false;  // ..._MORPH_TARGET_EXTRA_ATTRIBUTE, once
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
const json* top_array(Reader& r, const char* key);
// The i-th element of a top-level array if it is an object, else reports it.
const json* element_object(Reader& r, const json& array, size_t i, const std::string& at);

// The bytes of a valid view; nullopt when its buffer is a placeholder without data (which
// is only an error for data someone needs: see need_data).
std::optional<std::span<const uint8_t>> view_bytes(const Reader& r, int view);
// Whether accessor i's data is in hand for a consumer at `at`. Data a placeholder buffer
// (no uri) cannot supply is an error only here, where it is needed; any other reason was
// reported when the accessor was read.
bool need_data(Reader& r, int i, const std::string& at);
// A decoded VEC3 accessor as Vec3s (empty when it could not be decoded), charged against
// the decoding budget at `at` (meshes.cpp).
std::vector<Vec3> copy_vec3(Reader& r, const GltfAccessor& a, const std::string& at);
// Nodes reachable from `roots` through children (cycles are cut).
std::vector<bool> reachable(const std::vector<GltfNode>& nodes, const std::vector<int>& roots);

// Morph targets (morph_targets.cpp), for read_meshes. read_primitive_targets reads
// obj.targets of the primitive at `at` (whose base attributes are `attributes`) into
// prim->targets; read_mesh_morphs checks that every primitive has target_counts[0]
// targets and reads mesh.weights and extras.targetNames.
void read_primitive_targets(Reader& r, const json& obj, const std::string& at,
                            const json& attributes, GltfPrimitive* prim);
void read_mesh_morphs(Reader& r, const json& obj, const std::string& at,
                      const std::vector<int>& target_counts, GltfMesh* mesh);

// ---------------------------------------------------------------------------------------
// The stages, in the order read_document runs them (each in the file named).

void read_asset(Reader& r);                 // gltf_reader.cpp: asset and extensions
void read_buffers(Reader& r);               // container_and_buffers.cpp
void read_buffer_views(Reader& r);          // container_and_buffers.cpp
void read_accessors(Reader& r);             // accessors.cpp
void read_samplers(Reader& r);              // materials_images.cpp
void read_images(Reader& r);                // materials_images.cpp
void read_textures(Reader& r);              // materials_images.cpp
void read_materials(Reader& r);             // materials_images.cpp
void read_meshes(Reader& r);                // meshes.cpp, with the two below
void check_primitive_texcoords(Reader& r);  // materials_images.cpp
void read_nodes(Reader& r);                 // nodes_scenes.cpp
void read_skins(Reader& r);                 // skins.cpp
void read_scenes(Reader& r);                // nodes_scenes.cpp
void check_skinning_data(Reader& r);        // skins.cpp
void read_animations(Reader& r);            // animations.cpp
void decode_used_images(Reader& r);         // materials_images.cpp

}  // namespace animpack::gltf_internal
