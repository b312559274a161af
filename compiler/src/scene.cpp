// The scene reader: TOML 1.0 through toml++ 3.3 (shared library, exceptions mode), checked
// key by key with each key's own source position. docs/scene-format.md is the rule book;
// the codes are kDiagnosticCodes (diagnostics.h).
#include "animpack/compiler/scene.h"

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <span>
#include <sstream>
#include <tuple>
#include <utility>

#include "animpack/compiler/input_file.h"
#include "animpack/compiler/retarget.h"

namespace animpack {
namespace {

SourcePos to_pos(const toml::source_position& p) {
  return SourcePos{static_cast<int>(p.line), static_cast<int>(p.column)};
}

bool before(const SourcePos& a, const SourcePos& b) {
  return std::tie(a.line, a.col) < std::tie(b.line, b.col);
}

// A key of a table with its node, so that tables can be walked in document order
// (toml::table iterates in sorted key order).
struct Entry {
  std::string_view key;
  SourcePos pos;  // the key's own position
  const toml::node* node;
};

std::vector<Entry> entries(const toml::table& table) {
  std::vector<Entry> out;
  out.reserve(table.size());
  for (auto&& [key, node] : table) {
    out.push_back(Entry{key.str(), to_pos(key.source().begin), &node});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Entry& a, const Entry& b) { return before(a.pos, b.pos); });
  return out;
}

// "a string", "an integer", ... for "must be X, not Y" messages.
const char* kind_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// Optimal string alignment distance (Levenshtein plus adjacent transpositions), bounded:
// any distance above `limit` comes back as limit + 1, found early (the length difference,
// or a row of the table whose every cell is past the limit). Cost O(|a| * |b|) at worst,
// and callers keep both short (kMaxSuggestedNameLength).
size_t edit_distance(std::string_view a, std::string_view b, size_t limit) {
  const size_t gap = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  constexpr size_t kColumns = kMaxSuggestedNameLength + 4;
  if (gap > limit || b.size() >= kColumns) return limit + 1;
  // Three rows of the table, on the stack: i - 2, i - 1 and i.
  std::array<size_t, kColumns> rows[3];
  size_t* before_prev = rows[0].data();
  size_t* prev = rows[1].data();
  size_t* row = rows[2].data();
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    size_t row_min = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before_prev[j - 2] + 1);
      }
      row_min = std::min(row_min, row[j]);
    }
    if (row_min > limit) return limit + 1;
    std::swap(before_prev, prev);
    std::swap(prev, row);
  }
  return std::min(prev[b.size()], limit + 1);
}

// How far a word may be from a candidate to be taken for its misspelling.
size_t suggestion_limit(std::string_view word) { return word.size() >= 8 ? 2 : 1; }

// The candidate closest to `word` within a small edit distance (a likely misspelling),
// or "" when none is that close or the word is too long to be a misspelt key or name.
std::string_view closest(std::string_view word, std::span<const std::string_view> candidates) {
  if (word.size() > kMaxSuggestedNameLength) return {};
  const size_t limit = suggestion_limit(word);
  std::string_view best;
  size_t best_distance = limit + 1;
  for (std::string_view candidate : candidates) {
    const size_t distance = edit_distance(word, candidate, limit);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string_view closest(std::string_view word,
                         std::initializer_list<std::string_view> candidates) {
  return closest(word, std::span<const std::string_view>(candidates.begin(), candidates.size()));
}

// A number for a message, as %g prints it.
std::string number(float value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
  return text;
}

// "; did you mean `x`?", or "" for no candidate.
std::string did_you_mean(std::string_view candidate) {
  if (candidate.empty()) return {};
  return "; did you mean `" + std::string(candidate) + "`?";
}

// Keys of one table that an unknown key was taken to be a misspelling of: a required key
// among them is not reported missing as well (one problem, one diagnostic).
class Misspelt {
 public:
  void add(std::string_view key) {
    if (!key.empty()) keys_.push_back(key);
  }
  bool has(std::string_view key) const {
    return std::find(keys_.begin(), keys_.end(), key) != keys_.end();
  }

 private:
  std::vector<std::string_view> keys_;
};

// A key or name in backticks for a message; a very long one (pasted data, a fuzzer's key)
// is cut at a UTF-8 boundary with its length, so that messages stay a line.
std::string ticked(std::string_view text) {
  constexpr size_t kShown = 200;
  if (text.size() <= kShown) return "`" + std::string(text) + "`";
  size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return "`" + std::string(text.substr(0, cut)) + "...` (" + std::to_string(text.size()) +
         " bytes)";
}

// A path written for Windows (a drive letter, or rooted with a backslash): here it would
// name a file relative to the scene's folder that nobody meant. POSIX absolute paths
// ("/abs/hero.glb", as build systems pass them) are accepted; the pack records them
// relative to the scene's folder (pack_source_name), never as written.
bool is_windows_absolute_path(std::string_view path) {
  if (!path.empty() && path[0] == '\\') return true;
  return path.size() >= 2 && std::isalpha(static_cast<unsigned char>(path[0])) && path[1] == ':';
}

// The file extension in lower case, with its dot ("" when none).
std::string extension(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  const size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return {};
  std::string out(path.substr(dot));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// What a mesh `file` and a clip source's `file` may be: glTF (our reader) or what the
// cooker reads through Assimp (FBX, Collada); an atlas is a PNG.
constexpr std::array<std::string_view, 4> kModelExtensions = {".gltf", ".glb", ".fbx", ".dae"};
constexpr std::string_view kModelExtensionRule = "a .gltf, .glb, .fbx or .dae";
constexpr std::array<std::string_view, 3> kAtlasExtensions = {".png", ".json", ".xml"};

// An atlas that is a sprite tool's data file (its frames and tags come from it).
bool is_atlas_data(std::string_view path) {
  const std::string ext = extension(path);
  return ext == ".json" || ext == ".xml";
}

bool is_cut_key(std::string_view key) {
  return key == "grid" || key == "rects" || key == "spacing" || key == "margin";
}

std::optional<Playback> parse_playback(std::string_view text) {
  if (text == "loop") return Playback::kLoop;
  if (text == "once") return Playback::kOnce;
  if (text == "ping_pong") return Playback::kPingPong;
  return std::nullopt;
}

// The keys of [object.animation], by kind.
constexpr std::array<std::string_view, 19> kAnimationKeys = {
    "clip",   "events",      "speed",   "start",       "blend", "playback", "atlas",
    "grid",   "rects",       "spacing", "margin",      "fps",   "clips",    "parameters",
    "states", "transitions", "layers",  "root_motion", "ik"};

bool is_sprite_only_key(std::string_view key) {
  return key == "atlas" || key == "grid" || key == "rects" || key == "spacing" || key == "margin" ||
         key == "fps" || key == "clips";
}

bool is_skeletal_only_key(std::string_view key) {
  return key == "blend" || key == "playback" || key == "parameters" || key == "states" ||
         key == "transitions" || key == "layers" || key == "root_motion" || key == "ik";
}

std::optional<ParameterKind> parse_parameter_kind(std::string_view text) {
  if (text == "float") return ParameterKind::kFloat;
  if (text == "bool") return ParameterKind::kBool;
  if (text == "trigger") return ParameterKind::kTrigger;
  return std::nullopt;
}

// The scene's words for parameter kinds and conditions are graph.h's names.
const char* kind_word(ParameterKind kind) { return parameter_kind_name(kind); }
const char* condition_word(ConditionKind kind) { return condition_kind_name(kind); }

std::optional<RootMotionPolicy> parse_policy(std::string_view text) {
  for (RootMotionPolicy p :
       {RootMotionPolicy::kOff, RootMotionPolicy::kInPlace, RootMotionPolicy::kAccumulate}) {
    if (text == root_motion_policy_name(p)) return p;
  }
  return std::nullopt;
}

std::optional<IkKind> parse_ik_kind(std::string_view text) {
  for (IkKind k : {IkKind::kTwoBone, IkKind::kAim, IkKind::kChain, IkKind::kFoot}) {
    if (text == ik_kind_name(k)) return k;
  }
  return std::nullopt;
}

double norm_of(const Vec3& v) {
  return std::sqrt(static_cast<double>(v.x) * v.x + static_cast<double>(v.y) * v.y +
                   static_cast<double>(v.z) * v.z);
}

double dot_of(const Vec3& a, const Vec3& b) {
  return static_cast<double>(a.x) * b.x + static_cast<double>(a.y) * b.y +
         static_cast<double>(a.z) * b.z;
}

// "[x, y, z]" for a message.
std::string vec_text(const Vec3& v) {
  char text[96];
  std::snprintf(text, sizeof text, "[%g, %g, %g]", static_cast<double>(v.x),
                static_cast<double>(v.y), static_cast<double>(v.z));
  return text;
}

// Tolerances of axes (mesh `up` and `forward`, an aim's `forward` and `up`): the runtime's
// (RootMotionConfig::validate, IkSet::create).
constexpr double kUnitTolerance = 1e-4;
constexpr double kPerpendicularTolerance = 1e-4;
// An aim's `forward` and `up` count as parallel when the sine of their angle is below this.
constexpr double kParallelSine = 1e-3;
// A pole shorter than this has no direction.
constexpr double kMinPoleLength = 1e-6;

std::optional<AdditiveReference> parse_reference(std::string_view text) {
  if (text == "first_frame") return AdditiveReference::kFirstFrame;
  if (text == "rest_pose") return AdditiveReference::kRestPose;
  return std::nullopt;
}

class Reader {
 public:
  Reader(std::string file, DiagnosticSink& sink) : file_(std::move(file)), sink_(sink) {}

  void read(const toml::table& root, Scene* scene) {
    for (const Entry& e : entries(root)) {
      if (e.key == "format") {
        scene->format_pos = e.pos;
        int32_t format = 0;
        if (get_int(*e.node, "`format`", e.pos, &format)) {
          if (format != 1) {
            report("E0110", e.pos,
                   "scene format " + std::to_string(format) + " is not supported; it must be 1");
          } else {
            scene->format = format;
          }
        }
      } else if (e.key == "mesh" || e.key == "object") {
        const toml::array* array = e.node->as_array();
        if (array == nullptr) {
          report("E0102", e.pos,
                 ticked(e.key) + " must be an array of tables ([[" + std::string(e.key) +
                     "]]), not " + kind_name(*e.node));
          continue;
        }
        const bool is_mesh = e.key == "mesh";
        const size_t limit = is_mesh ? kMaxSceneMeshes : kMaxSceneObjects;
        size_t count = 0;
        for (const toml::node& element : *array) {
          const SourcePos pos = to_pos(element.source().begin);
          if (count++ == limit) {
            report("E0135", pos,
                   "the scene has more than " + std::to_string(limit) + " [[" + std::string(e.key) +
                       "]] tables; a scene takes at most " + std::to_string(limit) +
                       " (docs/scene-format.md, limits)");
            break;
          }
          const toml::table* table = element.as_table();
          if (table == nullptr) {
            report(
                "E0102", pos,
                "an element of " + ticked(e.key) + " must be a table, not " + kind_name(element));
            continue;
          }
          if (is_mesh) {
            scene->meshes.push_back(read_mesh(*table, pos));
          } else {
            scene->objects.push_back(read_object(*table, pos));
          }
        }
      } else if (read_compression_key(e, &scene->compression, &scene->tolerance, &scene->distance,
                                      &scene->compression_pos, &scene->tolerance_pos,
                                      &scene->distance_pos)) {
        // Step 6: the meshes' defaults, applied below.
      } else {
        report("E0101", e.pos,
               "unknown key " + ticked(e.key) + " at the top level (it takes `format`, " +
                   "`compression`, `tolerance`, `distance`, [[mesh]] and [[object]])" +
                   did_you_mean(closest(e.key, {"format", "compression", "tolerance", "distance",
                                                "mesh", "object"})));
      }
    }
    for (SceneMesh& mesh : scene->meshes) {
      if (!mesh.compression_pos.known()) mesh.compression = scene->compression;
      if (!mesh.tolerance_pos.known()) mesh.tolerance = scene->tolerance;
      if (!mesh.distance_pos.known()) mesh.distance = scene->distance;
    }
    check_names(*scene);
  }

 private:
  void report(std::string_view code, SourcePos pos, std::string message) {
    sink_.report(code, file_, pos.line, pos.col, std::move(message));
  }

  // E0101 for a key `where` does not take; a close spelling of one of `known` is suggested
  // and remembered in `misspelt`.
  void unknown_key(const Entry& e, std::string_view where,
                   std::initializer_list<std::string_view> known, Misspelt* misspelt) {
    const std::string_view close = closest(e.key, known);
    misspelt->add(close);
    report("E0101", e.pos,
           "unknown key " + ticked(e.key) + " in " + std::string(where) + did_you_mean(close));
  }

  // E0135 when an array or table has more than `limit` entries.
  bool over_limit(size_t size, size_t limit, std::string_view key, std::string_view what,
                  SourcePos at) {
    if (size <= limit) return false;
    report("E0135", at,
           std::string(key) + " has " + std::to_string(size) + " " + std::string(what) +
               "; it takes at most " + std::to_string(limit) + " (docs/scene-format.md, limits)");
    return true;
  }

  // --- Values. Each getter reports a wrong kind or range at `at` and returns false. ---

  bool wrong_kind(const toml::node& node, std::string_view what, SourcePos at,
                  std::string_view expected) {
    report("E0102", at,
           std::string(what) + " must be " + std::string(expected) + ", not " + kind_name(node));
    return false;
  }

  bool get_string(const toml::node& node, std::string_view what, SourcePos at, std::string* out,
                  bool non_empty) {
    const toml::value<std::string>* value = node.as_string();
    if (value == nullptr) return wrong_kind(node, what, at, "a string");
    if (non_empty && value->get().empty()) {
      report("E0109", at, std::string(what) + " must not be empty");
      return false;
    }
    *out = value->get();
    return true;
  }

  bool get_bool(const toml::node& node, std::string_view what, SourcePos at, bool* out) {
    const toml::value<bool>* value = node.as_boolean();
    if (value == nullptr) return wrong_kind(node, what, at, "a boolean (true or false)");
    *out = value->get();
    return true;
  }

  // A number: an integer or a float, finite and within float's range.
  bool get_float(const toml::node& node, std::string_view what, SourcePos at, float* out) {
    double value = 0;
    if (const toml::value<int64_t>* i = node.as_integer()) {
      value = static_cast<double>(i->get());
    } else if (const toml::value<double>* f = node.as_floating_point()) {
      value = f->get();
    } else {
      return wrong_kind(node, what, at, "a number");
    }
    if (!std::isfinite(value) || std::fabs(value) > static_cast<double>(FLT_MAX)) {
      report("E0112", at, std::string(what) + " must be a finite number within float range");
      return false;
    }
    *out = static_cast<float>(value);
    return true;
  }

  bool get_int(const toml::node& node, std::string_view what, SourcePos at, int32_t* out) {
    const toml::value<int64_t>* value = node.as_integer();
    if (value == nullptr) return wrong_kind(node, what, at, "an integer");
    if (value->get() < INT32_MIN || value->get() > INT32_MAX) {
      report("E0112", at, std::string(what) + " must fit a 32-bit signed integer");
      return false;
    }
    *out = static_cast<int32_t>(value->get());
    return true;
  }

  // An array of N numbers (position, rotation, scale). Element positions are stored even
  // when an element is wrong. Returns true when all N were read.
  template <size_t N>
  bool get_numbers(const toml::node& node, std::string_view key, SourcePos at, const char* shape,
                   std::array<float, N>* out, std::array<SourcePos, N>* element_pos) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      return wrong_kind(node, ticked(key), at,
                        "an array of " + std::to_string(N) + " numbers " + shape);
    }
    if (array->size() != N) {
      report("E0111", at,
             ticked(key) + " has " + std::to_string(array->size()) + " elements; it takes " +
                 std::to_string(N) + " numbers " + shape);
      return false;
    }
    bool ok = true;
    for (size_t i = 0; i < N; ++i) {
      const toml::node& element = *array->get(i);
      (*element_pos)[i] = to_pos(element.source().begin);
      ok &= get_float(element, "element " + std::to_string(i + 1) + " of " + ticked(key),
                      (*element_pos)[i], &(*out)[i]);
    }
    return ok;
  }

  // A vector [x, y, z] (a target, a pole): 3 finite numbers.
  bool get_vec3(const toml::node& node, std::string_view key, SourcePos at, Vec3* out) {
    std::array<float, 3> v{};
    std::array<SourcePos, 3> element_pos;
    if (!get_numbers(node, key, at, "[x, y, z]", &v, &element_pos)) return false;
    *out = Vec3{v[0], v[1], v[2]};
    return true;
  }

  // A unit axis [x, y, z]: length 1 within kUnitTolerance (`code` otherwise; not normalised).
  bool get_axis(const toml::node& node, std::string_view key, const std::string& what, SourcePos at,
                std::string_view code, Vec3* out) {
    std::array<float, 3> v{};
    std::array<SourcePos, 3> element_pos;
    if (!get_numbers(node, key, at, "[x, y, z]", &v, &element_pos)) return false;
    const Vec3 axis{v[0], v[1], v[2]};
    const double len = norm_of(axis);
    if (std::fabs(len - 1.0) > kUnitTolerance) {
      std::ostringstream text;
      text << len;
      report(code, at,
             what + " " + vec_text(axis) + " has length " + text.str() +
                 "; an axis must be a unit vector (length 1 within 1e-4)");
      return false;
    }
    *out = axis;
    return true;
  }

  // A relative asset path with one of the extensions; `ext_rule` words them.
  bool get_path(const toml::node& node, std::string_view what, SourcePos at,
                std::span<const std::string_view> extensions, std::string_view ext_rule,
                std::string* out) {
    std::string path;
    if (!get_string(node, what, at, &path, true)) return false;
    const std::string ext = extension(path);
    if (std::find(extensions.begin(), extensions.end(), ext) == extensions.end()) {
      report("E0107", at,
             std::string(what) + " = \"" + path + "\" must be " + std::string(ext_rule) + " file");
      return false;
    }
    if (is_windows_absolute_path(path)) {
      report("E0108", at,
             std::string(what) + " = \"" + path +
                 "\" is a Windows absolute path; write it relative to the scene file's folder "
                 "(or as a POSIX absolute path)");
      return false;
    }
    *out = std::move(path);
    return true;
  }

  bool get_playback(const toml::node& node, SourcePos at, Playback* out) {
    std::string text;
    if (!get_string(node, "`playback`", at, &text, false)) return false;
    const std::optional<Playback> playback = parse_playback(text);
    if (!playback) {
      report("E0116", at,
             "unknown playback \"" + text + "\"; it takes \"loop\", \"once\" or \"ping_pong\"" +
                 did_you_mean(closest(text, {"loop", "once", "ping_pong"})));
      return false;
    }
    *out = *playback;
    return true;
  }

  // An animation's, state's or layer's `speed`: [0, kMaxSpeed] (E0114, E0135).
  bool get_speed(const toml::node& node, SourcePos at, float* out) {
    float speed = 0;
    if (!get_float(node, "`speed`", at, &speed)) return false;
    if (speed < 0) {
      report("E0114", at, "`speed` must be 0 or more");
      return false;
    }
    if (speed > kMaxSpeed) {
      report("E0135", at,
             "`speed` " + number(speed) + " is over the limit of " + number(kMaxSpeed) +
                 " (docs/scene-format.md, limits)");
      return false;
    }
    *out = speed;
    return true;
  }

  // An animation's or state's `start`: [0, kMaxStartSeconds] (E0115, E0135).
  bool get_start(const toml::node& node, SourcePos at, float* out) {
    float start = 0;
    if (!get_float(node, "`start`", at, &start)) return false;
    if (start < 0) {
      report("E0115", at, "`start` (seconds into the clip) must be 0 or more");
      return false;
    }
    if (start > kMaxStartSeconds) {
      report("E0135", at,
             "`start` " + number(start) + " s is over the limit of " +
                 number(static_cast<float>(kMaxStartSeconds)) +
                 " s (docs/scene-format.md, limits)");
      return false;
    }
    *out = start;
    return true;
  }

  // A layer's or mask entry's `weight`: [0, 1] (E0154).
  bool get_unit_weight(const toml::node& node, std::string_view what, SourcePos at, float* out) {
    float weight = 0;
    if (!get_float(node, what, at, &weight)) return false;
    if (weight < 0 || weight > 1) {
      report("E0154", at, std::string(what) + " " + number(weight) + " is outside [0, 1]");
      return false;
    }
    *out = weight;
    return true;
  }

  // "; did you mean `x`?" for a name among `candidates`, within the suggestion budget (a
  // scene of thousands of misspelt names gets its errors, the first ones with hints).
  std::string hint(std::string_view word, std::span<const std::string_view> candidates) {
    if (candidates.size() > suggestion_budget_) return {};
    suggestion_budget_ -= candidates.size();
    return did_you_mean(closest(word, candidates));
  }

  // --- Tables. ---

  // A mesh's `clips` (SceneClipSource): an array of inline tables or [[mesh.clips]]
  // tables. Rules the file alone decides: keys and kinds, a cut's `from` and `to` both or
  // neither (E0169) and in order (E0170), a cut's `name` (E0171), `name` or `rename`
  // (E0172). Names across sources and `retarget_from` are checked with the other meshes
  // (check_clip_sources).
  void read_clip_sources(const toml::node& node, SourcePos at, std::vector<SceneClipSource>* out) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`clips`", at,
                 "an array of inline tables { file, include, exclude, name, rename, from, to, "
                 "retarget_from } (or [[mesh.clips]] tables)");
      return;
    }
    if (over_limit(array->size(), kMaxClipSources, "`clips`", "sources", at)) return;
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      SceneClipSource source;
      source.pos = to_pos(element.source().begin);
      const std::string which = "clip source " + std::to_string(i + 1);
      const toml::table* table = element.as_table();
      if (table == nullptr) {
        wrong_kind(element, "element " + std::to_string(i + 1) + " of `clips`", source.pos,
                   "an inline table { file, include, ... } (or a [[mesh.clips]] table)");
        continue;
      }
      Misspelt misspelt;
      bool from_ok = false, to_ok = false;
      for (const Entry& e : entries(*table)) {
        if (e.key == "file") {
          source.file_pos = e.pos;
          get_path(*e.node, which + "'s `file`", e.pos, kModelExtensions, kModelExtensionRule,
                   &source.file);
        } else if (e.key == "include" || e.key == "exclude") {
          const bool include = e.key == "include";
          (include ? source.include_pos_key : source.exclude_pos_key) = e.pos;
          read_patterns(*e.node, e.key, e.pos, include ? &source.include : &source.exclude,
                        include ? &source.include_pos : &source.exclude_pos);
        } else if (e.key == "name") {
          source.name_pos = e.pos;
          get_string(*e.node, which + "'s `name`", e.pos, &source.name, true);
        } else if (e.key == "rename") {
          source.rename_pos = e.pos;
          read_rename(*e.node, e.pos, which, &source.rename);
        } else if (e.key == "from" || e.key == "to") {
          const bool is_from = e.key == "from";
          (is_from ? source.from_pos : source.to_pos) = e.pos;
          float seconds = 0;
          if (get_float(*e.node, which + "'s " + ticked(e.key), e.pos, &seconds)) {
            (is_from ? source.from : source.to) = seconds;
            (is_from ? from_ok : to_ok) = true;
          }
        } else if (e.key == "retarget_from") {
          source.retarget_from_pos = e.pos;
          get_string(*e.node, which + "'s `retarget_from`", e.pos, &source.retarget_from, true);
        } else {
          unknown_key(
              e,
              which +
                  " (it takes `file`, `include`, `exclude`, `name`, `rename`, `from`, "
                  "`to` and `retarget_from`)",
              {"file", "include", "exclude", "name", "rename", "from", "to", "retarget_from"},
              &misspelt);
        }
      }
      // A cut: `from` and `to` together, 0 <= from < to, within a clip's bounds.
      if (source.from_pos.known() != source.to_pos.known() && !misspelt.has("from") &&
          !misspelt.has("to")) {
        const bool has_from = source.from_pos.known();
        report("E0169", has_from ? source.from_pos : source.to_pos,
               which + " has `" + (has_from ? "from" : "to") + "` but no `" +
                   (has_from ? "to" : "from") +
                   "`; a cut takes both (seconds into the animation: the part from `from` to "
                   "`to` becomes the clip)");
      } else if (from_ok && to_ok) {
        if (source.from < 0) {
          report("E0170", source.from_pos,
                 which + "'s `from` " + number(source.from) + " s must be 0 or more");
        } else if (!(source.to > source.from)) {
          report("E0170", source.to_pos,
                 which + "'s cut ends (`to` = " + number(source.to) +
                     " s) before it starts (`from` = " + number(source.from) +
                     " s); `to` must be later than `from`");
        } else if (source.to > kMaxClipSeconds) {
          report("E0170", source.to_pos,
                 which + "'s `to` " + number(source.to) + " s is past the longest clip, " +
                     number(kMaxClipSeconds) + " s");
        } else if (!(source.to - source.from >= kMinClipSeconds)) {
          report("E0170", source.to_pos,
                 which + "'s cut lasts " + number(source.to - source.from) +
                     " s, under the shortest clip, " + number(kMinClipSeconds) + " s");
        } else {
          source.cut = true;
        }
      }
      if (source.from_pos.known() && source.to_pos.known() && !source.name_pos.known() &&
          !misspelt.has("name")) {
        report("E0171", source.pos,
               which +
                   " cuts an animation (`from`, `to`) but gives the cut no `name`; the cut "
                   "is a clip of its own and needs one");
      }
      if (source.name_pos.known() && source.rename_pos.known()) {
        report("E0172",
               before(source.name_pos, source.rename_pos) ? source.rename_pos : source.name_pos,
               which +
                   " has both `name` (the name of its one animation) and `rename` (names "
                   "for several); give one of them");
      }
      out->push_back(std::move(source));
    }
  }

  // A clip source's `include` or `exclude`: an array of non-empty glob patterns.
  void read_patterns(const toml::node& node, std::string_view key, SourcePos at,
                     std::vector<std::string>* out, std::vector<SourcePos>* element_pos) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, ticked(key), at,
                 "an array of animation names or patterns (`*` any run, `?` one character)");
      return;
    }
    if (over_limit(array->size(), kMaxClipPatterns, ticked(key), "patterns", at)) return;
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      const SourcePos pos = to_pos(element.source().begin);
      std::string pattern;
      if (!get_string(element, "element " + std::to_string(i + 1) + " of " + ticked(key), pos,
                      &pattern, true)) {
        continue;
      }
      out->push_back(std::move(pattern));
      element_pos->push_back(pos);
    }
  }

  // A clip source's `rename = { "animation" = "clip", ... }`.
  void read_rename(const toml::node& node, SourcePos at, const std::string& which,
                   std::vector<SceneRename>* out) {
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      wrong_kind(node, which + "'s `rename`", at,
                 "an inline table { \"animation name\" = \"clip name\", ... }");
      return;
    }
    if (over_limit(table->size(), kMaxClipPatterns, "`rename`", "entries", at)) return;
    for (const Entry& e : entries(*table)) {
      SceneRename rename;
      rename.from = std::string(e.key);
      rename.pos = e.pos;
      if (rename.from.empty()) {
        report("E0109", e.pos, which + "'s `rename` has an empty animation name");
        continue;
      }
      if (!get_string(*e.node, which + "'s new name for " + ticked(rename.from), e.pos, &rename.to,
                      true)) {
        continue;
      }
      out->push_back(std::move(rename));
    }
  }

  // A mesh's `humanoid = { bone = "joint", ... }`: bones of kHumanoidBones (E0176, with a
  // close spelling), each joint named by one bone only (E0177).
  void read_humanoid(const toml::node& node, SourcePos at, std::vector<SceneRename>* out) {
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      wrong_kind(node, "`humanoid`", at,
                 "an inline table { hips = \"joint\", left_upper_leg = \"joint\", ... }");
      return;
    }
    const std::span<const std::string_view> bones(kHumanoidBones);
    for (const Entry& e : entries(*table)) {
      SceneRename bone;
      bone.from = std::string(e.key);
      bone.pos = e.pos;
      if (std::find(bones.begin(), bones.end(), e.key) == bones.end()) {
        report("E0176", e.pos,
               "unknown humanoid bone " + ticked(e.key) +
                   " (the bones are docs/scene-format.md's, Unity's humanoid set in snake_case: "
                   "`hips`, `spine`, `left_upper_leg`, ...)" +
                   did_you_mean(closest(e.key, bones)));
        continue;
      }
      if (!get_string(*e.node, "humanoid bone " + ticked(e.key), e.pos, &bone.to, true)) continue;
      const auto same = std::find_if(out->begin(), out->end(),
                                     [&](const SceneRename& b) { return b.to == bone.to; });
      if (same != out->end()) {
        report("E0177", e.pos,
               "humanoid bones " + ticked(same->from) + " and " + ticked(bone.from) +
                   " both name joint " + ticked(bone.to) + "; a joint stands for one bone");
        continue;
      }
      out->push_back(std::move(bone));
    }
  }

  // Step 6. `compression` ("exact" or "lossy", E0181), `tolerance` and `distance` (metres,
  // within kMin/kMaxLossyTolerance and kMin/kMaxLossyDistance, E0182), at the top level or
  // in a [[mesh]]. False when e is none of them.
  bool read_compression_key(const Entry& e, ClipCompression* compression, float* tolerance,
                            float* distance, SourcePos* compression_pos, SourcePos* tolerance_pos,
                            SourcePos* distance_pos) {
    if (e.key == "compression") {
      *compression_pos = e.pos;
      std::string text;
      if (!get_string(*e.node, "`compression`", e.pos, &text, false)) return true;
      if (text == "exact") {
        *compression = ClipCompression::kExact;
      } else if (text == "lossy") {
        *compression = ClipCompression::kLossy;
      } else {
        report("E0181", e.pos,
               "`compression` is " + ticked(text) +
                   "; it takes \"exact\" (every key as the file gives it, the default) or "
                   "\"lossy\" (fewer, quantised keys within `tolerance` at `distance`)" +
                   did_you_mean(closest(text, {"exact", "lossy"})));
      }
      return true;
    }
    if (e.key != "tolerance" && e.key != "distance") return false;
    const bool is_tolerance = e.key == "tolerance";
    (is_tolerance ? *tolerance_pos : *distance_pos) = e.pos;
    float value = 0;
    if (!get_float(*e.node, is_tolerance ? "`tolerance`" : "`distance`", e.pos, &value)) {
      return true;
    }
    const float lo = is_tolerance ? kMinLossyTolerance : kMinLossyDistance;
    const float hi = is_tolerance ? kMaxLossyTolerance : kMaxLossyDistance;
    if (!(value >= lo && value <= hi)) {
      std::ostringstream text;
      text << ticked(e.key) << " is " << value << " m; it must be from " << lo << " to " << hi
           << " m ("
           << (is_tolerance ? "the largest error a lossy clip may have at a joint's virtual "
                              "vertices; default 0.001"
                            : "how far from each joint the virtual vertices the error is "
                              "measured at lie; default 0.1")
           << ")";
      report("E0182", e.pos, text.str());
      return true;
    }
    (is_tolerance ? *tolerance : *distance) = value;
    return true;
  }

  SceneMesh read_mesh(const toml::table& table, SourcePos pos) {
    SceneMesh mesh;
    mesh.pos = pos;
    Misspelt misspelt;
    bool up_ok = false, forward_ok = false;
    for (const Entry& e : entries(table)) {
      if (e.key == "name") {
        mesh.name_pos = e.pos;
        get_string(*e.node, "mesh `name`", e.pos, &mesh.name, true);
      } else if (e.key == "file") {
        mesh.file_pos = e.pos;
        get_path(*e.node, "mesh `file`", e.pos, kModelExtensions, kModelExtensionRule, &mesh.file);
      } else if (e.key == "events") {
        mesh.events_pos = e.pos;
        std::vector<bool> frame_ok;
        read_events(*e.node, e.pos, false, "", &mesh.events, &frame_ok);
      } else if (e.key == "up" || e.key == "forward") {
        const bool up = e.key == "up";
        (up ? mesh.up_pos : mesh.forward_pos) = e.pos;
        Vec3 axis;
        if (get_axis(*e.node, e.key, "mesh " + ticked(e.key), e.pos, "E0160", &axis)) {
          (up ? mesh.up : mesh.forward) = axis;
          (up ? up_ok : forward_ok) = true;
        }
      } else if (e.key == "clips") {
        mesh.clips_pos = e.pos;
        mesh.has_clips = true;
        read_clip_sources(*e.node, e.pos, &mesh.clips);
      } else if (e.key == "max_influences") {
        mesh.max_influences_pos = e.pos;
        int32_t influences = 0;
        if (get_int(*e.node, "`max_influences`", e.pos, &influences)) {
          if (influences != 4 && influences != 8) {
            report("E0175", e.pos,
                   "`max_influences` is " + std::to_string(influences) +
                       "; it takes 4 (the four largest weights of each vertex, renormalised) "
                       "or 8 (every influence the file gives, the default)");
          } else {
            mesh.max_influences = influences;
          }
        }
      } else if (e.key == "humanoid") {
        mesh.humanoid_pos = e.pos;
        read_humanoid(*e.node, e.pos, &mesh.humanoid);
      } else if (read_compression_key(e, &mesh.compression, &mesh.tolerance, &mesh.distance,
                                      &mesh.compression_pos, &mesh.tolerance_pos,
                                      &mesh.distance_pos)) {
        // Step 6: read.
      } else {
        unknown_key(e,
                    "[[mesh]] (it takes `name`, `file`, `events`, `up`, `forward`, `clips`, "
                    "`max_influences`, `humanoid`, `compression`, `tolerance` and `distance`)",
                    {"name", "file", "events", "up", "forward", "clips", "max_influences",
                     "humanoid", "compression", "tolerance", "distance"},
                    &misspelt);
      }
    }
    // The axes must be perpendicular (a default one counts as given).
    if ((mesh.up_pos.known() || mesh.forward_pos.known()) && (up_ok || !mesh.up_pos.known()) &&
        (forward_ok || !mesh.forward_pos.known())) {
      const double d = dot_of(mesh.up, mesh.forward);
      if (std::fabs(d) > kPerpendicularTolerance) {
        const SourcePos later = !mesh.up_pos.known()                    ? mesh.forward_pos
                                : !mesh.forward_pos.known()             ? mesh.up_pos
                                : before(mesh.up_pos, mesh.forward_pos) ? mesh.forward_pos
                                                                        : mesh.up_pos;
        std::ostringstream text;
        text << d;
        report("E0161", later,
               "mesh " + label(mesh.name, pos) + "'s `up` " + vec_text(mesh.up) +
                   " and `forward` " + vec_text(mesh.forward) +
                   " are not perpendicular (their dot product is " + text.str() +
                   "; it must be 0 within 1e-4)");
        mesh.up = Vec3{0, 1, 0};
        mesh.forward = Vec3{0, 0, 1};
      }
    }
    if (!mesh.name_pos.known() && !misspelt.has("name")) {
      report("E0103", pos, "[[mesh]] has no `name`");
    }
    if (!mesh.file_pos.known() && !misspelt.has("file")) {
      report("E0103", pos, "mesh " + label(mesh.name, pos) + " has no `file`");
    }
    return mesh;
  }

  // `name` or, without one, "at line N" for messages.
  static std::string label(const std::string& name, SourcePos pos) {
    if (!name.empty()) return ticked(name);
    return "at line " + std::to_string(pos.line);
  }

  SceneObject read_object(const toml::table& table, SourcePos pos) {
    SceneObject object;
    object.pos = pos;
    // The name first, for messages about the other keys.
    if (const toml::value<std::string>* name = table.get_as<std::string>("name")) {
      object.name = name->get();
    }
    const std::string who = "object " + label(object.name, pos);
    std::array<float, 3> position{}, scale{1, 1, 1};
    std::array<float, 4> rotation{0, 0, 0, 1};
    bool rotation_ok = false;
    Misspelt misspelt;
    for (const Entry& e : entries(table)) {
      if (e.key == "name") {
        object.name_pos = e.pos;
        object.name.clear();
        get_string(*e.node, "object `name`", e.pos, &object.name, true);
      } else if (e.key == "mesh") {
        object.mesh_pos = e.pos;
        get_string(*e.node, "object `mesh`", e.pos, &object.mesh, true);
      } else if (e.key == "material") {
        object.material_pos = e.pos;
        get_string(*e.node, "`material`", e.pos, &object.material, false);
      } else if (e.key == "face_camera") {
        object.face_camera_pos = e.pos;
        get_bool(*e.node, "`face_camera`", e.pos, &object.face_camera);
      } else if (e.key == "content") {
        object.content_pos = e.pos;
        get_string(*e.node, "`content`", e.pos, &object.content, false);
      } else if (e.key == "position") {
        object.position_pos = e.pos;
        if (get_numbers(*e.node, e.key, e.pos, "[x, y, z]", &position,
                        &object.position_element_pos)) {
          object.position = Vec3{position[0], position[1], position[2]};
        }
      } else if (e.key == "rotation") {
        object.rotation_pos = e.pos;
        rotation_ok = get_numbers(*e.node, e.key, e.pos, "[x, y, z, w] (a quaternion)", &rotation,
                                  &object.rotation_element_pos);
      } else if (e.key == "scale") {
        object.scale_pos = e.pos;
        if (get_numbers(*e.node, e.key, e.pos, "[x, y, z]", &scale, &object.scale_element_pos)) {
          bool nonzero = true;
          for (size_t i = 0; i < 3; ++i) {
            if (scale[i] == 0.0f) {
              report("E0133", object.scale_element_pos[i],
                     "element " + std::to_string(i + 1) + " of `scale` is 0; no axis may be " +
                         "scaled to nothing");
              nonzero = false;
            }
          }
          if (nonzero) object.scale = Vec3{scale[0], scale[1], scale[2]};
        }
      } else if (e.key == "animation") {
        const toml::table* animation = e.node->as_table();
        if (animation == nullptr) {
          wrong_kind(*e.node, "`animation`", e.pos, "a table ([object.animation])");
          continue;
        }
        object.animation = read_animation(*animation, e.pos, who);
      } else {
        const std::string_view close =
            closest(e.key, {"name", "mesh", "material", "face_camera", "content", "position",
                            "rotation", "scale", "animation"});
        misspelt.add(close);
        std::string hint = did_you_mean(close);
        if (hint.empty() && std::find(kAnimationKeys.begin(), kAnimationKeys.end(), e.key) !=
                                kAnimationKeys.end()) {
          hint = "; " + ticked(e.key) + " is a key of [object.animation]";
        }
        report("E0101", e.pos, "unknown key " + ticked(e.key) + " in [[object]]" + hint);
      }
    }
    if (rotation_ok) {
      const double length = std::sqrt(static_cast<double>(rotation[0]) * rotation[0] +
                                      static_cast<double>(rotation[1]) * rotation[1] +
                                      static_cast<double>(rotation[2]) * rotation[2] +
                                      static_cast<double>(rotation[3]) * rotation[3]);
      if (std::fabs(length - 1.0) > 1e-3) {
        std::ostringstream len;
        len << length;
        report("E0132", object.rotation_pos,
               "`rotation` [x, y, z, w] has length " + len.str() +
                   "; a rotation quaternion must have length 1 (within 1e-3)");
      } else {
        object.rotation = Quat{rotation[0], rotation[1], rotation[2], rotation[3]};
      }
    }
    const bool sprite = object.animation && object.animation->sprite;
    if (!object.name_pos.known() && !misspelt.has("name")) {
      report("E0103", pos, "[[object]] has no `name`");
    }
    if (!object.mesh_pos.known() && !sprite && !misspelt.has("mesh")) {
      report("E0103", pos, who + " has no `mesh` (only a sprite object may leave it out)");
    }
    if (sprite && object.content_pos.known()) {
      report("E0209", object.content_pos,
             who + " shows a sprite (its animation has an atlas), so it cannot take `content`");
    }
    return object;
  }

  SceneAnimation read_animation(const toml::table& table, SourcePos pos, const std::string& who) {
    SceneAnimation a;
    a.pos = pos;
    a.sprite = table.contains("atlas");
    if (const toml::node* atlas = table.get("atlas"); atlas && atlas->is_string()) {
      a.atlas_data = is_atlas_data(**atlas->as_string());
    }
    std::vector<bool> frame_ok;  // per event: its frame was read
    std::vector<bool> range_ok;  // per sprite clip: from and to were read and are in order
    for (const Entry& e : entries(table)) {
      if (a.sprite && is_skeletal_only_key(e.key)) {
        report("E0118", e.pos,
               ticked(e.key) + " is a skeletal key; " + who +
                   "'s animation is a sprite (it has an atlas)");
        continue;
      }
      if (!a.sprite && is_sprite_only_key(e.key)) {
        report("E0117", e.pos,
               ticked(e.key) + " is a sprite key; " + who +
                   "'s animation is skeletal (it has no atlas)");
        continue;
      }
      if (a.atlas_data && is_cut_key(e.key)) {
        report("E0190", e.pos,
               ticked(e.key) + " cuts a PNG atlas; " + who +
                   "'s atlas is a data file, whose frames come from it");
        continue;
      }
      const toml::node& node = *e.node;
      if (e.key == "clip") {
        a.clip_pos = e.pos;
        get_string(node, "`clip`", e.pos, &a.clip, true);
      } else if (e.key == "events") {
        a.events_pos = e.pos;
        read_events(node, e.pos, a.sprite, who, &a.events, &frame_ok);
      } else if (e.key == "speed") {
        a.speed_pos = e.pos;
        get_speed(node, e.pos, &a.speed);
      } else if (e.key == "start") {
        a.start_pos = e.pos;
        get_start(node, e.pos, &a.start);
      } else if (e.key == "parameters") {
        a.parameters_pos = e.pos;
        read_parameters(node, e.pos, &a.parameters);
      } else if (e.key == "states") {
        a.states_pos = e.pos;
        read_states(node, e.pos, &a.states);
      } else if (e.key == "transitions") {
        a.transitions_pos = e.pos;
        read_transitions(node, e.pos, &a.transitions);
      } else if (e.key == "layers") {
        a.layers_pos = e.pos;
        read_layers(node, e.pos, &a.layers);
      } else if (e.key == "root_motion") {
        a.root_motion_pos = e.pos;
        read_root_motion(node, e.pos, who, &a.root_motion);
      } else if (e.key == "ik") {
        a.ik_pos = e.pos;
        read_ik(node, e.pos, &a.ik);
      } else if (e.key == "blend") {
        a.blend_pos = e.pos;
        read_blend(node, e.pos, &a.blend);
      } else if (e.key == "playback") {
        a.playback_pos = e.pos;
        get_playback(node, e.pos, &a.playback);
      } else if (e.key == "atlas") {
        a.atlas_pos = e.pos;
        get_path(node, "`atlas`", e.pos, kAtlasExtensions, "a .png, .json or .xml", &a.atlas);
      } else if (e.key == "grid") {
        a.grid_pos = e.pos;
        read_grid(node, e.pos, &a.grid);
      } else if (e.key == "rects") {
        a.rects_pos = e.pos;
        read_rects(node, e.pos, &a.rects);
      } else if (e.key == "spacing" || e.key == "margin") {
        int32_t& value = e.key == "spacing" ? a.spacing : a.margin;
        (e.key == "spacing" ? a.spacing_pos : a.margin_pos) = e.pos;
        int32_t pixels = 0;
        if (get_int(node, ticked(e.key), e.pos, &pixels)) {
          if (pixels < 0) {
            report("E0124", e.pos, ticked(e.key) + " (pixels) must be 0 or more");
          } else {
            value = pixels;
          }
        }
      } else if (e.key == "fps") {
        a.fps_pos = e.pos;
        float fps = 0;
        if (get_float(node, "`fps`", e.pos, &fps)) {
          if (fps <= 0) {
            report("E0126", e.pos, "`fps` must be greater than 0");
          } else if (fps < kMinSpriteFps || fps > kMaxSpriteFps) {
            report("E0135", e.pos,
                   "`fps` " + number(fps) + " is outside the limits of " + number(kMinSpriteFps) +
                       " to " + number(kMaxSpriteFps) + " (docs/scene-format.md, limits)");
          } else {
            a.fps = fps;
          }
        }
      } else if (e.key == "clips") {
        a.clips_pos = e.pos;
        read_sprite_clips(node, e.pos, a.atlas_data, &a.clips, &range_ok);
      } else {
        report("E0101", e.pos,
               "unknown key " + ticked(e.key) + " in [object.animation]" +
                   did_you_mean(closest(e.key, kAnimationKeys)));
      }
    }

    if (!a.sprite) {
      if (a.clip_pos.known() && a.blend_pos.known() && !a.states_pos.known()) {
        report("E0119", before(a.clip_pos, a.blend_pos) ? a.blend_pos : a.clip_pos,
               who + "'s animation has both `clip` and `blend`; it plays one or the other");
      }
      check_graph(a, who);
      return a;
    }

    // Sprite rules across keys.
    if (a.grid_pos.known() && a.rects_pos.known()) {
      report("E0120", before(a.grid_pos, a.rects_pos) ? a.rects_pos : a.grid_pos,
             who + "'s atlas is cut by both `grid` and `rects`; give one of them");
    } else if (!a.grid_pos.known() && !a.rects_pos.known() && !a.atlas_data) {
      report("E0121", a.pos,
             who + "'s sprite animation needs `grid` or `rects` to cut its atlas into frames");
    }
    if (a.rects_pos.known() && !a.grid_pos.known()) {
      if (a.spacing_pos.known()) {
        report("E0125", a.spacing_pos,
               "`spacing` applies to a `grid` only; this atlas is cut by `rects`");
      }
      if (a.margin_pos.known()) {
        report("E0125", a.margin_pos,
               "`margin` applies to a `grid` only; this atlas is cut by `rects`");
      }
    }
    int64_t clip_frames = 0;  // what the pack lists: every clip's frames
    for (size_t i = 0; i < a.clips.size(); ++i) {
      if (range_ok[i]) clip_frames += int64_t{a.clips[i].to} - a.clips[i].from + 1;
    }
    if (clip_frames > kMaxSpriteClipFrames) {
      report("E0135", a.clips_pos,
             who + "'s sprite clips list " + std::to_string(clip_frames) +
                 " frames in all; an animation takes at most " +
                 std::to_string(kMaxSpriteClipFrames) + " (docs/scene-format.md, limits)");
    }
    // With a data file the clips include its tags: the cooker checks the names, event
    // frames and fps (E0131, E0208, E0127).
    if (a.atlas_data) return a;
    std::map<std::string_view, size_t> clip_index;
    for (size_t i = 0; i < a.clips.size(); ++i) clip_index.emplace(a.clips[i].name, i);
    const auto clip_names = [&a] {  // at most 16, so that messages stay short
      std::string names;
      size_t listed = 0;
      for (const SceneSpriteClip& c : a.clips) {
        if (listed++ == 16) {
          names += ", ... (" + std::to_string(a.clips.size()) + " in all)";
          break;
        }
        names += (names.empty() ? "" : ", ") + ticked(c.name);
      }
      return names.empty() ? std::string("none") : names;
    };
    if (!a.clip.empty() && !clip_index.count(a.clip)) {
      report("E0131", a.clip_pos,
             who + "'s sprite animation has no clip " + ticked(a.clip) +
                 " (its clips: " + clip_names() + ")");
    }
    for (size_t i = 0; i < a.events.size(); ++i) {
      const SceneEvent& event = a.events[i];
      if (event.clip.empty()) continue;
      const auto it = clip_index.find(event.clip);
      if (it == clip_index.end()) {
        report("E0131", event.clip_pos,
               "event " + ticked(event.name) + " names sprite clip " + ticked(event.clip) +
                   ", which " + who + "'s animation does not have (its clips: " + clip_names() +
                   ")");
        continue;
      }
      const SceneSpriteClip& clip = a.clips[it->second];
      if (frame_ok[i] && range_ok[it->second] && event.frame > clip.to - clip.from) {
        report("E0208", event.frame_pos,
               "event " + ticked(event.name) + " is on frame " + std::to_string(event.frame) +
                   " of clip " + ticked(clip.name) + ", which has frames 0 to " +
                   std::to_string(clip.to - clip.from) + " (frames " + std::to_string(clip.from) +
                   " to " + std::to_string(clip.to) + " of the atlas)");
      }
    }
    if (!a.fps_pos.known()) {
      for (const SceneSpriteClip& clip : a.clips) {
        if (!clip.fps_pos.known()) {
          report("E0127", clip.name_pos,
                 "sprite clip " + ticked(clip.name) + " has no `fps`, and " + who +
                     "'s animation has none for it to take");
        }
      }
    }
    return a;
  }

  void read_events(const toml::node& node, SourcePos at, bool sprite, const std::string& who,
                   std::vector<SceneEvent>* out, std::vector<bool>* frame_ok) {
    const char* shape = sprite ? "an array of inline tables { name, clip, frame }"
                               : "an array of inline tables { name, clip, time }";
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`events`", at, shape);
      return;
    }
    if (over_limit(array->size(), kMaxAnimationEvents, "`events`", "events", at)) return;
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      SceneEvent event;
      event.pos = to_pos(element.source().begin);
      const toml::table* table = element.as_table();
      if (table == nullptr) {
        wrong_kind(element, "element " + std::to_string(i + 1) + " of `events`", event.pos,
                   "an inline table");
        continue;
      }
      bool frame_read = false;
      Misspelt misspelt;
      for (const Entry& e : entries(*table)) {
        if (e.key == "name") {
          event.name_pos = e.pos;
          get_string(*e.node, "event `name`", e.pos, &event.name, true);
        } else if (e.key == "clip") {
          event.clip_pos = e.pos;
          get_string(*e.node, "event `clip`", e.pos, &event.clip, true);
        } else if (e.key == "time" && sprite) {
          report("E0118", e.pos,
                 "`time` is a skeletal event key; " + who +
                     "'s animation is a sprite (it has an atlas), whose events take `frame`");
        } else if (e.key == "frame" && !sprite) {
          report("E0117", e.pos,
                 "`frame` is a sprite event key; " +
                     (who.empty() ? std::string("a [[mesh]]'s events are on its skeletal clips")
                                  : who + "'s animation is skeletal (it has no atlas)") +
                     ", whose events take `time`");
        } else if (e.key == "time") {
          event.time_pos = e.pos;
          float time = 0;
          if (get_float(*e.node, "event `time`", e.pos, &time)) {
            if (time < 0) {
              report("E0128", e.pos, "event `time` (seconds into its clip) must be 0 or more");
            } else {
              event.time = time;
            }
          }
        } else if (e.key == "frame") {
          event.frame_pos = e.pos;
          int32_t frame = 0;
          if (get_int(*e.node, "event `frame`", e.pos, &frame)) {
            if (frame < 0) {
              report("E0129", e.pos, "event `frame` (an index within its clip) must be 0 or more");
            } else {
              event.frame = frame;
              frame_read = true;
            }
          }
        } else {
          unknown_key(e,
                      sprite ? "an event (it takes `name`, `clip` and `frame`)"
                             : "an event (it takes `name`, `clip` and `time`)",
                      {"name", "clip", sprite ? "frame" : "time"}, &misspelt);
        }
      }
      if (!event.name_pos.known() && !misspelt.has("name")) {
        report("E0103", event.pos, "event has no `name`");
      }
      if (!event.clip_pos.known() && !misspelt.has("clip")) {
        report("E0103", event.pos, "event has no `clip`");
      }
      if (sprite && !event.frame_pos.known() && !misspelt.has("frame")) {
        report("E0103", event.pos, "event has no `frame`");
      } else if (!sprite && !event.time_pos.known() && !misspelt.has("time")) {
        report("E0103", event.pos, "event has no `time`");
      }
      out->push_back(std::move(event));
      frame_ok->push_back(frame_read);
    }
  }

  void read_blend(const toml::node& node, SourcePos at, std::vector<SceneBlend>* out) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`blend`", at, "an array of inline tables { clip, weight }");
      return;
    }
    if (array->empty()) {
      report("E0134", at, "`blend` is empty; give at least one { clip, weight }");
      return;
    }
    if (over_limit(array->size(), kMaxBlendEntries, "`blend`", "entries (the clips a pack mixes)",
                   at)) {
      return;
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      SceneBlend blend;
      blend.pos = to_pos(element.source().begin);
      const toml::table* table = element.as_table();
      if (table == nullptr) {
        wrong_kind(element, "element " + std::to_string(i + 1) + " of `blend`", blend.pos,
                   "an inline table { clip, weight }");
        continue;
      }
      Misspelt misspelt;
      for (const Entry& e : entries(*table)) {
        if (e.key == "clip") {
          blend.clip_pos = e.pos;
          get_string(*e.node, "blend `clip`", e.pos, &blend.clip, true);
        } else if (e.key == "weight") {
          blend.weight_pos = e.pos;
          float weight = 0;
          if (get_float(*e.node, "blend `weight`", e.pos, &weight)) {
            if (weight <= 0) {
              report("E0113", e.pos, "blend `weight` must be greater than 0");
            } else {
              blend.weight = weight;
            }
          }
        } else {
          unknown_key(e, "a blend entry (it takes `clip` and `weight`)", {"clip", "weight"},
                      &misspelt);
        }
      }
      if (!blend.clip_pos.known() && !misspelt.has("clip")) {
        report("E0103", blend.pos, "blend entry has no `clip`");
      }
      if (!blend.weight_pos.known() && !misspelt.has("weight")) {
        report("E0103", blend.pos, "blend entry has no `weight`");
      }
      out->push_back(std::move(blend));
    }
  }

  void read_grid(const toml::node& node, SourcePos at, std::optional<SceneGrid>* out) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`grid`", at, "an array of 2 integers [columns, rows]");
      return;
    }
    if (array->size() != 2) {
      report("E0111", at,
             "`grid` has " + std::to_string(array->size()) +
                 " elements; it takes 2 integers [columns, rows]");
      return;
    }
    SceneGrid grid;
    const char* names[2] = {"columns", "rows"};
    int32_t* values[2] = {&grid.columns, &grid.rows};
    SourcePos* positions[2] = {&grid.columns_pos, &grid.rows_pos};
    for (size_t i = 0; i < 2; ++i) {
      const toml::node& element = *array->get(i);
      *positions[i] = to_pos(element.source().begin);
      const std::string what = std::string("`grid` ") + names[i];
      int32_t value = 0;
      if (!get_int(element, what, *positions[i], &value)) continue;
      if (value <= 0) {
        report("E0122", *positions[i], what + " must be greater than 0");
        continue;
      }
      *values[i] = value;
    }
    const int64_t cells = int64_t{grid.columns} * grid.rows;
    if (cells > kMaxSpriteFrames) {
      report("E0135", at,
             "`grid` cuts " + std::to_string(grid.columns) + " x " + std::to_string(grid.rows) +
                 " = " + std::to_string(cells) + " frames; an atlas takes at most " +
                 std::to_string(kMaxSpriteFrames) + " (docs/scene-format.md, limits)");
      return;
    }
    *out = grid;
  }

  void read_rects(const toml::node& node, SourcePos at, std::vector<SceneRect>* out) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`rects`", at, "an array of [x, y, w, h] arrays");
      return;
    }
    if (array->empty()) {
      report("E0134", at, "`rects` is empty; give at least one [x, y, w, h]");
      return;
    }
    if (over_limit(array->size(), static_cast<size_t>(kMaxSpriteFrames), "`rects`",
                   "rects (atlas frames)", at)) {
      return;
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      SceneRect rect;
      rect.pos = to_pos(element.source().begin);
      const std::string which = "rect " + std::to_string(i + 1) + " of `rects`";
      const toml::array* values = element.as_array();
      if (values == nullptr) {
        wrong_kind(element, which, rect.pos, "an array of 4 integers [x, y, w, h]");
        continue;
      }
      if (values->size() != 4) {
        report("E0111", rect.pos,
               which + " has " + std::to_string(values->size()) +
                   " elements; it takes 4 integers [x, y, w, h]");
        continue;
      }
      const char* names[4] = {"x", "y", "w", "h"};
      int32_t* fields[4] = {&rect.x, &rect.y, &rect.w, &rect.h};
      for (size_t k = 0; k < 4; ++k) {
        const toml::node& value_node = *values->get(k);
        rect.element_pos[k] = to_pos(value_node.source().begin);
        const std::string what = std::string(names[k]) + " of " + which;
        int32_t value = 0;
        if (!get_int(value_node, what, rect.element_pos[k], &value)) continue;
        if (k < 2 && value < 0) {
          report("E0123", rect.element_pos[k], what + " must be 0 or more");
        } else if (k >= 2 && value <= 0) {
          report("E0123", rect.element_pos[k], what + " must be greater than 0");
        } else {
          *fields[k] = value;
        }
      }
      out->push_back(rect);
    }
  }

  // A data-file clip's `frames`: a non-empty array of non-empty frame names.
  void read_frame_names(const toml::node& node, SourcePos at, SceneSpriteClip* clip) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`frames`", at, "an array of frame names");
      return;
    }
    if (array->empty()) {
      report("E0134", at, "`frames` is empty; a clip needs at least one frame");
      return;
    }
    if (over_limit(array->size(), static_cast<size_t>(kMaxSpriteClipFrames), "`frames`", "frames",
                   at)) {
      return;
    }
    for (const toml::node& element : *array) {
      const SourcePos pos = to_pos(element.source().begin);
      std::string name;
      if (!get_string(element, "a frame name", pos, &name, true)) continue;
      clip->frame_names.push_back(std::move(name));
      clip->frame_name_pos.push_back(pos);
    }
  }

  void read_sprite_clips(const toml::node& node, SourcePos at, bool data,
                         std::vector<SceneSpriteClip>* out, std::vector<bool>* range_ok) {
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      wrong_kind(node, "`clips`", at, "a table of clip tables ([object.animation.clips.NAME])");
      return;
    }
    if (over_limit(table->size(), kMaxSpriteClips, "`clips`", "sprite clips", at)) return;
    for (const Entry& entry : entries(*table)) {
      SceneSpriteClip clip;
      clip.name = std::string(entry.key);
      clip.name_pos = entry.pos;
      clip.pos = to_pos(entry.node->source().begin);
      const toml::table* body = entry.node->as_table();
      if (body == nullptr) {
        wrong_kind(*entry.node, "sprite clip " + ticked(entry.key), entry.pos,
                   "a table ([object.animation.clips." + std::string(entry.key) + "])");
        continue;
      }
      if (clip.name.empty())
        report("E0109", clip.name_pos, "a sprite clip's name must not be empty");
      bool from_ok = false, to_ok = false;
      Misspelt misspelt;
      for (const Entry& e : entries(*body)) {
        if (e.key == "from" || e.key == "to") {
          const bool is_from = e.key == "from";
          (is_from ? clip.from_pos : clip.to_pos) = e.pos;
          int32_t frame = 0;
          if (!get_int(*e.node, ticked(e.key), e.pos, &frame)) continue;
          if (frame < 0) {
            report("E0130", e.pos, ticked(e.key) + " (an atlas frame) must be 0 or more");
            continue;
          }
          (is_from ? clip.from : clip.to) = frame;
          (is_from ? from_ok : to_ok) = true;
        } else if (e.key == "fps") {
          clip.fps_pos = e.pos;
          float fps = 0;
          if (get_float(*e.node, "`fps`", e.pos, &fps)) {
            if (fps <= 0) {
              report("E0126", e.pos, "`fps` must be greater than 0");
            } else if (fps < kMinSpriteFps || fps > kMaxSpriteFps) {
              report("E0135", e.pos,
                     "`fps` " + number(fps) + " is outside the limits of " + number(kMinSpriteFps) +
                         " to " + number(kMaxSpriteFps) + " (docs/scene-format.md, limits)");
            } else {
              clip.fps = fps;
            }
          }
        } else if (e.key == "playback") {
          clip.playback_pos = e.pos;
          Playback playback = Playback::kLoop;
          if (get_playback(*e.node, e.pos, &playback)) clip.playback = playback;
        } else if ((e.key == "frames" || e.key == "prefix") && !data) {
          report("E0190", e.pos,
                 ticked(e.key) +
                     " picks frames of an atlas data file by name; this atlas is a "
                     "PNG (its clips take `from` and `to`)");
        } else if (e.key == "frames") {
          clip.frames_pos = e.pos;
          read_frame_names(*e.node, e.pos, &clip);
        } else if (e.key == "prefix") {
          clip.prefix_pos = e.pos;
          get_string(*e.node, "`prefix`", e.pos, &clip.prefix, true);
        } else {
          unknown_key(e,
                      "sprite clip " + ticked(clip.name) +
                          (data ? " (it takes `from`, `to`, `frames`, `prefix`, `fps` and "
                                  "`playback`)"
                                : " (it takes `from`, `to`, `fps` and `playback`)"),
                      {"from", "to", "fps", "playback", "frames", "prefix"}, &misspelt);
        }
      }
      // With a data file a clip may name a tag (and give no frames); else it needs both.
      const bool range_given = clip.from_pos.known() || clip.to_pos.known();
      if (!data || range_given) {
        if (!clip.from_pos.known() && !misspelt.has("from")) {
          report("E0103", clip.name_pos, "sprite clip " + ticked(clip.name) + " has no `from`");
        }
        if (!clip.to_pos.known() && !misspelt.has("to")) {
          report("E0103", clip.name_pos, "sprite clip " + ticked(clip.name) + " has no `to`");
        }
      }
      if (data) {
        // One way to give the frames: `from`/`to`, `frames` or `prefix`.
        std::vector<SourcePos> ways;
        if (range_given) ways.push_back(clip.from_pos.known() ? clip.from_pos : clip.to_pos);
        if (clip.frames_pos.known()) ways.push_back(clip.frames_pos);
        if (clip.prefix_pos.known()) ways.push_back(clip.prefix_pos);
        if (ways.size() > 1) {
          std::sort(ways.begin(), ways.end(),
                    [](SourcePos x, SourcePos y) { return before(x, y); });
          report("E0190", ways.back(),
                 "sprite clip " + ticked(clip.name) +
                     " gives its frames more than one way; give one of `from` and `to`, "
                     "`frames` or `prefix`");
        }
      }
      bool ok = from_ok && to_ok;
      if (ok && clip.to < clip.from) {
        report("E0130", clip.to_pos,
               "sprite clip " + ticked(clip.name) + " ends (`to` = " + std::to_string(clip.to) +
                   ") before it starts (`from` = " + std::to_string(clip.from) + ")");
        ok = false;
      }
      out->push_back(std::move(clip));
      range_ok->push_back(ok);
    }
  }

  // --- Root motion and IK ([object.animation.root_motion], [[object.animation.ik]]).
  // Joint names are the cooker's to resolve (E02xx); here: kinds, words, ranges, counts. ---

  // An array of distinct strings (`extract`, `feet`): each element's position kept, an
  // empty array E0134, a repeated entry `repeat_code` at the later element.
  bool get_names(const toml::node& node, std::string_view key, SourcePos at, std::string_view shape,
                 std::string_view repeat_code, std::vector<std::string>* out,
                 std::vector<SourcePos>* element_pos) {
    const toml::array* array = node.as_array();
    if (array == nullptr) return wrong_kind(node, ticked(key), at, shape);
    if (array->empty()) {
      report("E0134", at, ticked(key) + " is empty; leave it out for its default");
      return false;
    }
    bool ok = true;
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      const SourcePos pos = to_pos(element.source().begin);
      std::string name;
      if (!get_string(element, "element " + std::to_string(i + 1) + " of " + ticked(key), pos,
                      &name, true)) {
        ok = false;
        continue;
      }
      if (std::find(out->begin(), out->end(), name) != out->end()) {
        report(repeat_code, pos, ticked(key) + " lists " + ticked(name) + " twice");
        ok = false;
        continue;
      }
      out->push_back(std::move(name));
      element_pos->push_back(pos);
    }
    return ok;
  }

  // `extract`: distinct "horizontal", "vertical", "yaw", not empty. True when read.
  bool read_extract(const toml::node& node, SourcePos at, SceneRootMotion* rm) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      return wrong_kind(node, "`extract`", at,
                        "an array of \"horizontal\", \"vertical\" and \"yaw\"");
    }
    if (array->empty()) {
      report("E0134", at,
             "`extract` is empty; root motion extracts at least one part (leave it out for "
             "[\"horizontal\"])");
      return false;
    }
    uint8_t bits = 0;
    bool ok = true;
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      const SourcePos pos = to_pos(element.source().begin);
      rm->extract_element_pos.push_back(pos);
      std::string word;
      if (!get_string(element, "element " + std::to_string(i + 1) + " of `extract`", pos, &word,
                      false)) {
        ok = false;
        continue;
      }
      const uint8_t bit = word == "horizontal" ? kExtractHorizontal
                          : word == "vertical" ? kExtractVertical
                          : word == "yaw"      ? kExtractYaw
                                               : 0;
      if (bit == 0) {
        report("E0157", pos,
               "unknown root motion extract \"" + word +
                   "\"; it takes \"horizontal\", \"vertical\" and \"yaw\"" +
                   did_you_mean(closest(word, {"horizontal", "vertical", "yaw"})));
        ok = false;
      } else if ((bits & bit) != 0) {
        report("E0157", pos, "`extract` lists \"" + word + "\" twice");
        ok = false;
      }
      bits |= bit;
    }
    if (ok) rm->extract = bits;
    return ok;
  }

  void read_root_motion(const toml::node& node, SourcePos at, const std::string& who,
                        std::optional<SceneRootMotion>* out) {
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      wrong_kind(node, "`root_motion`", at, "a table ([object.animation.root_motion])");
      return;
    }
    SceneRootMotion rm;
    rm.pos = to_pos(table->source().begin);
    Misspelt misspelt;
    bool extract_ok = true;
    for (const Entry& e : entries(*table)) {
      if (e.key == "policy") {
        rm.policy_pos = e.pos;
        std::string text;
        if (!get_string(*e.node, "root motion `policy`", e.pos, &text, false)) continue;
        const std::optional<RootMotionPolicy> policy = parse_policy(text);
        if (!policy) {
          report("E0156", e.pos,
                 "unknown root motion policy \"" + text +
                     "\"; it takes \"off\", \"in_place\" or \"accumulate\"" +
                     did_you_mean(closest(text, {"off", "in_place", "accumulate"})));
          continue;
        }
        rm.policy = *policy;
      } else if (e.key == "joint") {
        rm.joint_pos = e.pos;
        get_string(*e.node, "root motion `joint`", e.pos, &rm.joint, true);
      } else if (e.key == "extract") {
        rm.extract_pos = e.pos;
        extract_ok = read_extract(*e.node, e.pos, &rm);
      } else if (e.key == "rate") {
        rm.rate_pos = e.pos;
        int32_t rate = 0;
        if (!get_int(*e.node, "root motion `rate`", e.pos, &rate)) continue;
        if (rate < 1 || rate > kMaxRootMotionRate) {
          report("E0158", e.pos,
                 "root motion `rate` " + std::to_string(rate) +
                     " (track samples a second) is outside [1, " +
                     std::to_string(kMaxRootMotionRate) + "]");
          continue;
        }
        rm.rate = rate;
      } else if (e.key == "feet") {
        rm.feet_pos = e.pos;
        const toml::array* array = e.node->as_array();
        if (array != nullptr &&
            over_limit(array->size(), kMaxRootMotionFeet, "`feet`", "joints", e.pos)) {
          continue;
        }
        get_names(*e.node, "feet", e.pos, "an array of joint names", "E0159", &rm.feet,
                  &rm.feet_element_pos);
      } else {
        unknown_key(e,
                    "[object.animation.root_motion] (it takes `policy`, `joint`, `extract`, "
                    "`rate` and `feet`)",
                    {"policy", "joint", "extract", "rate", "feet"}, &misspelt);
      }
    }
    if (!rm.policy_pos.known() && !misspelt.has("policy")) {
      report("E0103", rm.pos,
             who + "'s root motion has no `policy` (\"off\", \"in_place\" or \"accumulate\")");
    }
    if (rm.feet_pos.known() && extract_ok && (rm.extract & kExtractHorizontal) == 0) {
      report("E0159", rm.feet_pos,
             "`feet` give the horizontal travel from foot contact, but `extract` has no "
             "\"horizontal\"");
    }
    *out = std::move(rm);
  }

  void read_ik(const toml::node& node, SourcePos at, std::vector<SceneIk>* out) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`ik`", at, "an array of tables ([[object.animation.ik]])");
      return;
    }
    if (over_limit(array->size(), static_cast<size_t>(kMaxIkSolvers), "`ik`", "solvers", at)) {
      return;
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      SceneIk ik;
      ik.pos = to_pos(element.source().begin);
      const std::string which = "IK solver " + std::to_string(i + 1);
      const toml::table* table = element.as_table();
      if (table == nullptr) {
        wrong_kind(element, which, ik.pos, "a table ([[object.animation.ik]])");
        continue;
      }
      // `kind` first: which other keys apply depends on it.
      bool typed = false;
      if (const toml::node* kind = table->get("kind")) {
        for (const Entry& e : entries(*table)) {
          if (e.key == "kind") ik.kind_pos = e.pos;
        }
        std::string text;
        if (get_string(*kind, "IK `kind`", ik.kind_pos, &text, false)) {
          if (const std::optional<IkKind> k = parse_ik_kind(text)) {
            ik.kind = *k;
            typed = true;
          } else {
            report("E0162", ik.kind_pos,
                   "unknown IK kind \"" + text +
                       "\"; it takes \"two_bone\", \"aim\", \"chain\" or \"foot\"" +
                       did_you_mean(closest(text, {"two_bone", "aim", "chain", "foot"})));
          }
        }
      }
      const std::string kind = typed ? std::string(ik.kind == IkKind::kAim ? "an " : "a ") +
                                           ik_kind_name(ik.kind) + " solver"
                                     : "";
      // A key only some kinds take: E0165 at the key for another kind.
      const auto for_kinds = [&](const Entry& e, std::initializer_list<IkKind> kinds,
                                 std::string_view names) {
        if (!typed) return false;  // the kind is unknown: nothing more to say
        if (std::find(kinds.begin(), kinds.end(), ik.kind) != kinds.end()) return true;
        report("E0165", e.pos,
               which + " is " + kind + ", which takes no " + ticked(e.key) + " (" +
                   std::string(names) + ")");
        return false;
      };
      // A number in a range (E0166), `what` naming the key.
      const auto ranged = [&](const Entry& e, float lo, float hi, bool open_low,
                              std::string_view unit, float* value) {
        float v = 0;
        if (!get_float(*e.node, which + "'s " + ticked(e.key), e.pos, &v)) return;
        if ((open_low ? v <= lo : v < lo) || v > hi) {
          report("E0166", e.pos,
                 which + "'s " + ticked(e.key) + " " + number(v) + std::string(unit) +
                     " is outside " + (open_low ? "(" : "[") + number(lo) + ", " + number(hi) +
                     "]");
          return;
        }
        *value = v;
      };
      Misspelt misspelt;
      bool aim_forward_ok = false, aim_up_ok = false;
      for (const Entry& e : entries(*table)) {
        if (e.key == "kind") continue;  // read above
        if (e.key == "name") {
          ik.name_pos = e.pos;
          get_string(*e.node, "IK `name`", e.pos, &ik.name, true);
        } else if (e.key == "joints") {
          ik.joints_pos = e.pos;
          const toml::array* joints = e.node->as_array();
          if (joints == nullptr) {
            wrong_kind(*e.node, "`joints`", e.pos, "an array of joint names");
            continue;
          }
          bool joints_ok = true;
          for (size_t j = 0; j < joints->size(); ++j) {
            const toml::node& joint = *joints->get(j);
            const SourcePos pos = to_pos(joint.source().begin);
            std::string name;
            if (get_string(joint, "element " + std::to_string(j + 1) + " of `joints`", pos, &name,
                           true)) {
              ik.joints.push_back(std::move(name));
              ik.joint_element_pos.push_back(pos);
            } else {
              joints_ok = false;
            }
          }
          if (typed) joints_ok = check_joint_count(ik, joints->size(), which) && joints_ok;
          if (!joints_ok) {
            // Reported: the cooker resolves no part of a solver whose joints are wrong
            // (a chain with a joint left out would be reported again, wrongly).
            if (!ik.name_pos.known() && !table->contains("name") && !ik.joints.empty()) {
              ik.name = ik.joints.back();  // still its name, for E0164
            }
            ik.joints.clear();
            ik.joint_element_pos.clear();
          }
        } else if (e.key == "weight") {
          ik.weight_pos = e.pos;
          ranged(e, 0.0f, 1.0f, false, "", &ik.weight);
        } else if (e.key == "target") {
          ik.target_pos = e.pos;
          // A foot's target is the ground under it (the game's set_ground), not a point.
          if (!for_kinds(e, {IkKind::kTwoBone, IkKind::kAim, IkKind::kChain},
                         "two_bone, aim and chain solvers take it; a foot solver's ground is "
                         "set by the game")) {
            continue;
          }
          Vec3 v;
          if (get_vec3(*e.node, e.key, e.pos, &v)) ik.target = v;
        } else if (e.key == "pole") {
          ik.pole_pos = e.pos;
          if (!for_kinds(e, {IkKind::kTwoBone, IkKind::kFoot, IkKind::kAim},
                         "two_bone, foot and aim solvers take it")) {
            continue;
          }
          Vec3 v;
          if (!get_vec3(*e.node, e.key, e.pos, &v)) continue;
          if (norm_of(v) < kMinPoleLength) {
            report("E0167", e.pos,
                   which + "'s `pole` " + vec_text(v) +
                       " is zero; a pole is a direction (leave it out to keep the pose's)");
            continue;
          }
          ik.pole = v;
        } else if (e.key == "soften") {
          ik.soften_pos = e.pos;
          if (for_kinds(e, {IkKind::kTwoBone, IkKind::kFoot}, "two_bone and foot solvers take it"))
            ranged(e, 0.0f, 1.0f, true, "", &ik.soften);
        } else if (e.key == "twist") {
          ik.twist_pos = e.pos;
          if (for_kinds(e, {IkKind::kTwoBone}, "two_bone solvers take it"))
            ranged(e, -180.0f, 180.0f, false, " degrees", &ik.twist_degrees);
        } else if (e.key == "forward" || e.key == "up") {
          const bool forward = e.key == "forward";
          (forward ? ik.forward_pos : ik.up_pos) = e.pos;
          if (!for_kinds(e, {IkKind::kAim}, "aim solvers take it")) continue;
          Vec3 axis;
          if (get_axis(*e.node, e.key, which + "'s " + ticked(e.key), e.pos, "E0168", &axis)) {
            (forward ? ik.forward : ik.up) = axis;
            (forward ? aim_forward_ok : aim_up_ok) = true;
          }
        } else if (e.key == "max_angle") {
          ik.max_angle_pos = e.pos;
          if (for_kinds(e, {IkKind::kAim}, "aim solvers take it"))
            ranged(e, 0.0f, 180.0f, true, " degrees", &ik.max_angle_degrees);
        } else if (e.key == "iterations") {
          ik.iterations_pos = e.pos;
          if (!for_kinds(e, {IkKind::kChain}, "chain solvers take it")) continue;
          int32_t n = 0;
          if (!get_int(*e.node, which + "'s `iterations`", e.pos, &n)) continue;
          if (n < 1 || n > kMaxIkIterations) {
            report("E0166", e.pos,
                   which + "'s `iterations` " + std::to_string(n) + " is outside [1, " +
                       std::to_string(kMaxIkIterations) + "]");
            continue;
          }
          ik.iterations = n;
        } else if (e.key == "hips") {
          ik.hips_pos = e.pos;
          if (for_kinds(e, {IkKind::kFoot}, "foot solvers take it"))
            get_string(*e.node, which + "'s `hips`", e.pos, &ik.hips, true);
        } else {
          unknown_key(e,
                      which +
                          " (it takes `kind`, `joints`, `name`, `weight`, `target`, `pole`, "
                          "`soften`, `twist`, `forward`, `up`, `max_angle`, `iterations` and "
                          "`hips`)",
                      {"kind", "joints", "name", "weight", "target", "pole", "soften", "twist",
                       "forward", "up", "max_angle", "iterations", "hips"},
                      &misspelt);
        }
      }
      if (!ik.kind_pos.known() && !misspelt.has("kind")) {
        report("E0103", ik.pos,
               which + " has no `kind` (\"two_bone\", \"aim\", \"chain\" or \"foot\")");
      }
      if (!ik.joints_pos.known() && !misspelt.has("joints")) {
        report("E0103", ik.pos, which + " has no `joints`");
      }
      // An aim's axes must not be parallel (a default one counts as given).
      if (typed && ik.kind == IkKind::kAim && (ik.forward_pos.known() || ik.up_pos.known()) &&
          (aim_forward_ok || !ik.forward_pos.known()) && (aim_up_ok || !ik.up_pos.known())) {
        const double c = dot_of(ik.forward, ik.up);
        const double sine = std::sqrt(std::max(0.0, 1.0 - c * c));
        if (sine < kParallelSine) {
          const SourcePos later = !ik.up_pos.known()                  ? ik.forward_pos
                                  : !ik.forward_pos.known()           ? ik.up_pos
                                  : before(ik.up_pos, ik.forward_pos) ? ik.forward_pos
                                                                      : ik.up_pos;
          report("E0168", later,
                 which + "'s `forward` " + vec_text(ik.forward) + " and `up` " + vec_text(ik.up) +
                     " are parallel; the up axis must leave the aim a roll to keep");
        }
      }
      if (ik.name.empty() && !ik.joints.empty() && !ik.name_pos.known()) {
        ik.name = ik.joints.back();
      }
      if (!ik.name.empty()) {
        for (const SceneIk& earlier : *out) {
          if (earlier.name == ik.name) {
            report("E0164", ik.name_pos.known() ? ik.name_pos : ik.joints_pos,
                   which + "'s name " + ticked(ik.name) +
                       (ik.name_pos.known() ? "" : " (its last joint)") +
                       " is already taken by the solver at line " +
                       std::to_string(earlier.pos.line) +
                       "; give each solver of an object its own `name`");
            break;
          }
        }
      }
      out->push_back(std::move(ik));
    }
  }

  // E0163 when a solver of a known kind lists the wrong number of joints (false then).
  bool check_joint_count(const SceneIk& ik, size_t count, const std::string& which) {
    size_t lo = 3, hi = 3;
    std::string shape = "3 joints {upper, middle, end}";
    if (ik.kind == IkKind::kFoot) shape = "3 joints {thigh, shin, foot}";
    if (ik.kind == IkKind::kAim) {
      lo = hi = 1;
      shape = "1 joint";
    } else if (ik.kind == IkKind::kChain) {
      lo = 2;
      hi = static_cast<size_t>(kMaxChainJoints);
      shape = "2 to " + std::to_string(kMaxChainJoints) + " joints, top first";
    }
    if (count >= lo && count <= hi) return true;
    report("E0163", ik.joints_pos,
           which + (ik.kind == IkKind::kAim ? " is an " : " is a ") + ik_kind_name(ik.kind) +
               " solver, which takes " + shape + "; `joints` has " + std::to_string(count));
    return false;
  }

  // --- State machines and layers ([object.animation] parameters, states, transitions,
  // layers). Names are resolved across them in check_graph, once all are read. ---

  // `type` of a parameter, read before its other keys (they depend on it).
  void read_parameter_type(const toml::table& body, SceneParameter* p) {
    const toml::node* node = body.get("type");
    if (node == nullptr) return;
    std::string text;
    if (!get_string(*node, "parameter `type`", p->type_pos, &text, false)) return;
    const std::optional<ParameterKind> kind = parse_parameter_kind(text);
    if (!kind) {
      report("E0136", p->type_pos,
             "parameter " + ticked(p->name) + " has unknown type \"" + text +
                 "\"; it takes \"float\", \"bool\" or \"trigger\"" +
                 did_you_mean(closest(text, {"float", "bool", "trigger"})));
      return;
    }
    p->kind = *kind;
    p->typed = true;
  }

  void read_parameters(const toml::node& node, SourcePos at, std::vector<SceneParameter>* out) {
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      wrong_kind(node, "`parameters`", at,
                 "a table ([object.animation.parameters]) of NAME = { type, default, min, max }");
      return;
    }
    if (over_limit(table->size(), static_cast<size_t>(kMaxGraphParameters), "`parameters`",
                   "parameters", at)) {
      return;
    }
    for (const Entry& entry : entries(*table)) {
      SceneParameter p;
      p.name = std::string(entry.key);
      p.name_pos = entry.pos;
      p.pos = to_pos(entry.node->source().begin);
      const toml::table* body = entry.node->as_table();
      if (body == nullptr) {
        wrong_kind(*entry.node, "parameter " + ticked(entry.key), entry.pos,
                   "an inline table { type, default, min, max }");
        continue;
      }
      if (p.name.empty()) report("E0109", p.name_pos, "a parameter's name must not be empty");
      for (const Entry& e : entries(*body)) {
        if (e.key == "type") p.type_pos = e.pos;
      }
      read_parameter_type(*body, &p);
      const std::string who = "parameter " + ticked(p.name);
      const std::string kind = p.typed ? kind_word(p.kind) : "";
      Misspelt misspelt;
      bool default_ok = false;
      for (const Entry& e : entries(*body)) {
        if (e.key == "type") continue;  // read above
        if (e.key == "default") {
          p.default_pos = e.pos;
          if (!p.typed) continue;
          if (p.kind == ParameterKind::kTrigger) {
            report("E0138", e.pos,
                   who + " is a trigger, which takes no `default` (it starts unset)");
          } else if (p.kind == ParameterKind::kBool) {
            bool value = false;
            if (get_bool(*e.node, who + "'s `default`", e.pos, &value)) {
              p.default_value = value ? 1.0f : 0.0f;
            }
          } else {
            default_ok = get_float(*e.node, who + "'s `default`", e.pos, &p.default_value);
          }
        } else if (e.key == "min" || e.key == "max") {
          (e.key == "min" ? p.min_pos : p.max_pos) = e.pos;
          if (!p.typed) continue;
          if (p.kind != ParameterKind::kFloat) {
            report("E0138", e.pos,
                   who + " is a " + kind + ", which takes no " + ticked(e.key) +
                       " (only float parameters have a range)");
            continue;
          }
          float value = 0;
          if (get_float(*e.node, who + "'s " + ticked(e.key), e.pos, &value)) {
            (e.key == "min" ? p.min : p.max) = value;
          }
        } else {
          unknown_key(e, who + " (it takes `type`, `default`, `min` and `max`)",
                      {"type", "default", "min", "max"}, &misspelt);
        }
      }
      if (!p.type_pos.known() && !misspelt.has("type")) {
        report("E0103", p.name_pos, who + " has no `type` (\"float\", \"bool\" or \"trigger\")");
      }
      if (p.typed && p.kind == ParameterKind::kFloat) {
        const float lo = p.min.value_or(-FLT_MAX), hi = p.max.value_or(FLT_MAX);
        if (p.min && p.max && *p.min > *p.max) {
          report("E0137", p.max_pos,
                 who + "'s `max` " + number(*p.max) + " is below its `min` " + number(*p.min));
        } else if (default_ok && (p.default_value < lo || p.default_value > hi)) {
          report("E0137", p.default_pos,
                 who + "'s `default` " + number(p.default_value) + " is outside its range [" +
                     number(lo) + ", " + number(hi) + "]");
          p.default_value = std::clamp(0.0f, lo, hi);
        } else if (!p.default_pos.known()) {
          p.default_value = std::clamp(0.0f, lo, hi);
        }
      }
      out->push_back(std::move(p));
    }
  }

  void read_states(const toml::node& node, SourcePos at, std::vector<SceneState>* out) {
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      wrong_kind(node, "`states`", at, "a table of state tables ([object.animation.states.NAME])");
      return;
    }
    if (over_limit(table->size(), static_cast<size_t>(kMaxGraphStates), "`states`", "states", at)) {
      return;
    }
    for (const Entry& entry : entries(*table)) {
      SceneState state;
      state.name = std::string(entry.key);
      state.name_pos = entry.pos;
      state.pos = to_pos(entry.node->source().begin);
      const toml::table* body = entry.node->as_table();
      if (body == nullptr) {
        wrong_kind(*entry.node, "state " + ticked(entry.key), entry.pos,
                   "a table ([object.animation.states." + std::string(entry.key) + "])");
        continue;
      }
      if (state.name.empty()) {
        report("E0109", state.name_pos, "a state's name must not be empty");
      } else if (state.name == "*") {
        report("E0147", state.name_pos,
               "a state may not be named `*`: in a transition's `from` it means any state");
      }
      const std::string who = "state " + ticked(state.name);
      const bool two_d = body->contains("blend_parameter_y");
      Misspelt misspelt;
      for (const Entry& e : entries(*body)) {
        if (e.key == "clip") {
          state.clip_pos = e.pos;
          get_string(*e.node, who + "'s `clip`", e.pos, &state.clip, true);
        } else if (e.key == "points") {
          state.points_pos = e.pos;
          read_points(*e.node, e.pos, two_d, who, &state.points);
        } else if (e.key == "blend_parameter") {
          state.blend_parameter_pos = e.pos;
          get_string(*e.node, "`blend_parameter`", e.pos, &state.blend_parameter, true);
        } else if (e.key == "blend_parameter_y") {
          state.blend_parameter_y_pos = e.pos;
          get_string(*e.node, "`blend_parameter_y`", e.pos, &state.blend_parameter_y, true);
        } else if (e.key == "speed") {
          state.speed_pos = e.pos;
          get_speed(*e.node, e.pos, &state.speed);
        } else if (e.key == "speed_parameter") {
          state.speed_parameter_pos = e.pos;
          get_string(*e.node, "`speed_parameter`", e.pos, &state.speed_parameter, true);
        } else if (e.key == "playback") {
          state.playback_pos = e.pos;
          get_playback(*e.node, e.pos, &state.playback);
        } else if (e.key == "start") {
          state.start_pos = e.pos;
          get_start(*e.node, e.pos, &state.start);
        } else {
          unknown_key(e,
                      who +
                          " (it takes `clip` or `points` with `blend_parameter` and "
                          "`blend_parameter_y`, `speed` or `speed_parameter`, `playback` and "
                          "`start`)",
                      {"clip", "points", "blend_parameter", "blend_parameter_y", "speed",
                       "speed_parameter", "playback", "start"},
                      &misspelt);
        }
      }
      const bool has_clip = state.clip_pos.known(), has_points = state.points_pos.known();
      if (has_clip && has_points) {
        report("E0139",
               before(state.clip_pos, state.points_pos) ? state.points_pos : state.clip_pos,
               who + " has both `clip` and `points`; it plays a clip or a blend space");
      } else if (!has_clip && !has_points && !misspelt.has("clip") && !misspelt.has("points")) {
        report("E0139", state.name_pos,
               who + " has neither `clip` nor `points`; it plays a clip or a blend space");
      }
      if (has_points && !state.blend_parameter_pos.known() && !misspelt.has("blend_parameter")) {
        if (state.blend_parameter_y_pos.known()) {
          report("E0142", state.blend_parameter_y_pos,
                 who +
                     " has `blend_parameter_y` but no `blend_parameter`; a 2D blend space "
                     "takes both");
        } else {
          report("E0142", state.points_pos,
                 who +
                     "'s blend space has no `blend_parameter` (the float parameter its "
                     "points are placed on)");
        }
      }
      if (has_clip && !has_points) {
        for (const auto& [key, pos] :
             {std::pair{"blend_parameter", state.blend_parameter_pos},
              std::pair{"blend_parameter_y", state.blend_parameter_y_pos}}) {
          if (pos.known()) {
            report(
                "E0142", pos,
                ticked(key) + " applies to a blend space (`points`); " + who + " plays a `clip`");
          }
        }
      }
      if (state.speed_pos.known() && state.speed_parameter_pos.known()) {
        report("E0143",
               before(state.speed_pos, state.speed_parameter_pos) ? state.speed_parameter_pos
                                                                  : state.speed_pos,
               who + " has both `speed` and `speed_parameter`; give one of them");
      }
      out->push_back(std::move(state));
    }
  }

  // A blend space's `points`: 2 to kMaxBlendPoints `{ clip, at }`, `at` a number (1D) or
  // [x, y] (2D), no two at one place.
  void read_points(const toml::node& node, SourcePos at, bool two_d, const std::string& who,
                   std::vector<SceneBlendPoint>* out) {
    const char* shape = two_d ? "an array of inline tables { clip, at = [x, y] }"
                              : "an array of inline tables { clip, at }";
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`points`", at, shape);
      return;
    }
    if (array->size() < 2) {
      report("E0140", at,
             who + "'s blend space has " + std::to_string(array->size()) +
                 (array->size() == 1 ? " point" : " points") +
                 "; it needs at least 2 (a single clip is a `clip` state)");
    }
    if (over_limit(array->size(), static_cast<size_t>(kMaxBlendPoints), "`points`",
                   "points (the clips of one blend space)", at)) {
      return;
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      SceneBlendPoint point;
      point.pos = to_pos(element.source().begin);
      const std::string which = "point " + std::to_string(i + 1) + " of " + who;
      const toml::table* table = element.as_table();
      if (table == nullptr) {
        wrong_kind(
            element, which, point.pos,
            two_d ? "an inline table { clip, at = [x, y] }" : "an inline table { clip, at }");
        continue;
      }
      Misspelt misspelt;
      for (const Entry& e : entries(*table)) {
        if (e.key == "clip") {
          point.clip_pos = e.pos;
          get_string(*e.node, "point `clip`", e.pos, &point.clip, true);
        } else if (e.key == "at") {
          point.at_pos = e.pos;
          point.at_ok = read_point_at(*e.node, e.pos, two_d, which, &point);
        } else {
          unknown_key(e, "a blend point (it takes `clip` and `at`)", {"clip", "at"}, &misspelt);
        }
      }
      if (!point.clip_pos.known() && !misspelt.has("clip")) {
        report("E0103", point.pos, which + " has no `clip`");
      }
      if (!point.at_pos.known() && !misspelt.has("at")) {
        report("E0103", point.pos, which + " has no `at`");
      }
      if (point.at_ok) {
        for (const SceneBlendPoint& earlier : *out) {
          if (earlier.at_ok && earlier.x == point.x && (!two_d || earlier.y == point.y)) {
            report("E0140", point.at_pos,
                   which + " is at the same place as the point at line " +
                       std::to_string(earlier.pos.line) + " (" +
                       (two_d ? "[" + number(point.x) + ", " + number(point.y) + "]"
                              : number(point.x)) +
                       "); a blend space's points must be distinct");
            point.at_ok = false;
            break;
          }
        }
      }
      out->push_back(std::move(point));
    }
  }

  bool read_point_at(const toml::node& node, SourcePos at, bool two_d, const std::string& which,
                     SceneBlendPoint* point) {
    const toml::array* array = node.as_array();
    if (!two_d) {
      if (array != nullptr) {
        report("E0141", at,
               which +
                   "'s `at` is an array, but the blend space is 1D (it has no "
                   "`blend_parameter_y`): give one number");
        return false;
      }
      return get_float(node, which + "'s `at`", at, &point->x);
    }
    if (array == nullptr) {
      if (node.is_number()) {
        report("E0141", at,
               which +
                   "'s `at` is a number, but the blend space is 2D (it has "
                   "`blend_parameter_y`): give [x, y]");
        return false;
      }
      return wrong_kind(node, which + "'s `at`", at, "an array of 2 numbers [x, y]");
    }
    std::array<float, 2> xy{};
    std::array<SourcePos, 2> xy_pos;
    if (!get_numbers(node, "at", at, "[x, y]", &xy, &xy_pos)) return false;
    point->x = xy[0];
    point->y = xy[1];
    return true;
  }

  void read_transitions(const toml::node& node, SourcePos at, std::vector<SceneTransition>* out) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`transitions`", at,
                 "an array of tables ([[object.animation.transitions]])");
      return;
    }
    if (over_limit(array->size(), static_cast<size_t>(kMaxGraphTransitions), "`transitions`",
                   "transitions", at)) {
      return;
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      SceneTransition t;
      t.pos = to_pos(element.source().begin);
      const std::string which = "transition " + std::to_string(i + 1);
      const toml::table* table = element.as_table();
      if (table == nullptr) {
        wrong_kind(element, which, t.pos, "a table ([[object.animation.transitions]])");
        continue;
      }
      Misspelt misspelt;
      std::optional<SceneCondition> exit_time;
      for (const Entry& e : entries(*table)) {
        if (e.key == "from") {
          t.from_pos = e.pos;
          get_string(*e.node, "transition `from`", e.pos, &t.from, true);
        } else if (e.key == "to") {
          t.to_pos = e.pos;
          get_string(*e.node, "transition `to`", e.pos, &t.to, true);
        } else if (e.key == "when") {
          t.when_pos = e.pos;
          read_when(*e.node, e.pos, which, &t.conditions);
        } else if (e.key == "exit_time") {
          t.exit_time_pos = e.pos;
          float passes = 0;
          if (get_float(*e.node, "`exit_time`", e.pos, &passes)) {
            if (passes <= 0) {
              report("E0152", e.pos,
                     "`exit_time` (passes of the from-state: 0.9 is 90% of its first) must be "
                     "greater than 0");
            } else {
              SceneCondition c;
              c.kind = ConditionKind::kExitTime;
              c.value = passes;
              c.pos = c.test_pos = e.pos;
              exit_time = c;
            }
          }
        } else if (e.key == "fade") {
          t.fade_pos = e.pos;
          float fade = 0;
          if (get_float(*e.node, "`fade`", e.pos, &fade)) {
            if (fade < 0) {
              report("E0153", e.pos, "`fade` (seconds) must be 0 or more");
            } else if (fade > kMaxFadeSeconds) {
              report("E0135", e.pos,
                     "`fade` " + number(fade) + " s is over the limit of " +
                         number(static_cast<float>(kMaxFadeSeconds)) +
                         " s (docs/scene-format.md, limits)");
            } else {
              t.fade = fade;
            }
          }
        } else {
          unknown_key(e, which + " (it takes `from`, `to`, `when`, `exit_time` and `fade`)",
                      {"from", "to", "when", "exit_time", "fade"}, &misspelt);
        }
      }
      if (!t.from_pos.known() && !misspelt.has("from")) {
        report("E0103", t.pos, which + " has no `from` (a state, or \"*\" for any state)");
      }
      if (!t.to_pos.known() && !misspelt.has("to")) {
        report("E0103", t.pos, which + " has no `to`");
      }
      const size_t conditions = t.conditions.size() + (t.exit_time_pos.known() ? 1 : 0);
      if (conditions > static_cast<size_t>(kMaxTransitionConditions) &&
          t.conditions.size() <= static_cast<size_t>(kMaxTransitionConditions)) {
        report("E0135", t.exit_time_pos,
               which + " has " + std::to_string(conditions) +
                   " conditions with its `exit_time`; a transition takes at most " +
                   std::to_string(kMaxTransitionConditions) + " (docs/scene-format.md, limits)");
      } else if (exit_time) {
        t.conditions.push_back(*exit_time);
      }
      out->push_back(std::move(t));
    }
  }

  // A transition's `when`: entries `{ parameter, above | below | is }` or `{ trigger }`.
  void read_when(const toml::node& node, SourcePos at, const std::string& which,
                 std::vector<SceneCondition>* out) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`when`", at,
                 "an array of inline tables ({ parameter, above }, { parameter, below }, "
                 "{ parameter, is } or { trigger })");
      return;
    }
    if (array->empty()) {
      report("E0134", at, "`when` is empty; give a condition or leave `when` out");
      return;
    }
    if (over_limit(array->size(), static_cast<size_t>(kMaxTransitionConditions), "`when`",
                   "conditions", at)) {
      return;
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      SceneCondition c;
      c.pos = to_pos(element.source().begin);
      const std::string what = "condition " + std::to_string(i + 1) + " of " + which;
      const toml::table* table = element.as_table();
      if (table == nullptr) {
        wrong_kind(element, what, c.pos, "an inline table");
        continue;
      }
      Misspelt misspelt;
      int tests = 0;
      bool ok = true;
      SourcePos parameter_key;
      for (const Entry& e : entries(*table)) {
        if (e.key == "parameter") {
          parameter_key = e.pos;
          ok &= get_string(*e.node, "condition `parameter`", e.pos, &c.parameter, true);
          continue;
        }
        if (e.key != "above" && e.key != "below" && e.key != "is" && e.key != "trigger") {
          unknown_key(e,
                      what +
                          " (it takes `parameter` with `above`, `below` or `is`, or "
                          "`trigger`)",
                      {"parameter", "above", "below", "is", "trigger"}, &misspelt);
          ok = false;
          continue;
        }
        if (++tests > 1) {
          report("E0150", e.pos,
                 what + " has a second test " + ticked(e.key) +
                     "; each `when` entry makes one test (write two entries: all must hold)");
          ok = false;
          continue;
        }
        c.test_pos = e.pos;
        if (e.key == "above" || e.key == "below") {
          c.kind = e.key == "above" ? ConditionKind::kAbove : ConditionKind::kBelow;
          ok &= get_float(*e.node, "condition " + ticked(e.key), e.pos, &c.value);
        } else if (e.key == "is") {
          c.kind = ConditionKind::kIs;
          bool value = false;
          ok &= get_bool(*e.node, "condition `is`", e.pos, &value);
          c.value = value ? 1.0f : 0.0f;
        } else {
          c.kind = ConditionKind::kTrigger;
          c.parameter_pos = e.pos;
          ok &= get_string(*e.node, "condition `trigger`", e.pos, &c.parameter, true);
        }
      }
      if (tests == 0) {
        if (!misspelt.has("above") && !misspelt.has("below") && !misspelt.has("is") &&
            !misspelt.has("trigger")) {
          report("E0150", c.pos,
                 what +
                     " makes no test; it takes `above`, `below` or `is` (with `parameter`), "
                     "or `trigger`");
        }
        continue;
      }
      if (c.kind == ConditionKind::kTrigger) {
        if (parameter_key.known()) {
          report("E0150", parameter_key,
                 what + " tests a trigger, which it names itself (`{ trigger = \"" + c.parameter +
                     "\" }`); it takes no `parameter`");
          ok = false;
        }
      } else if (!parameter_key.known()) {
        if (!misspelt.has("parameter")) {
          report("E0103", c.pos, what + " has no `parameter` for its test");
        }
        ok = false;
      } else {
        c.parameter_pos = parameter_key;
      }
      if (ok) out->push_back(std::move(c));
    }
  }

  void read_layers(const toml::node& node, SourcePos at, std::vector<SceneLayer>* out) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`layers`", at, "an array of tables ([[object.animation.layers]])");
      return;
    }
    if (over_limit(array->size(), static_cast<size_t>(kMaxGraphLayers), "`layers`",
                   "layers (the overlays an object plays at once)", at)) {
      return;
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      SceneLayer layer;
      layer.pos = to_pos(element.source().begin);
      const std::string which = "layer " + std::to_string(i + 1);
      const toml::table* table = element.as_table();
      if (table == nullptr) {
        wrong_kind(element, which, layer.pos, "a table ([[object.animation.layers]])");
        continue;
      }
      Misspelt misspelt;
      std::optional<AdditiveReference> reference;
      for (const Entry& e : entries(*table)) {
        if (e.key == "clip") {
          layer.clip_pos = e.pos;
          get_string(*e.node, "layer `clip`", e.pos, &layer.clip, true);
        } else if (e.key == "weight") {
          layer.weight_pos = e.pos;
          get_unit_weight(*e.node, "layer `weight`", e.pos, &layer.weight);
        } else if (e.key == "weight_parameter") {
          layer.weight_parameter_pos = e.pos;
          get_string(*e.node, "`weight_parameter`", e.pos, &layer.weight_parameter, true);
        } else if (e.key == "mask") {
          layer.mask_pos = e.pos;
          read_mask(*e.node, e.pos, which, &layer.mask);
        } else if (e.key == "additive") {
          layer.additive_pos = e.pos;
          get_bool(*e.node, "`additive`", e.pos, &layer.additive);
        } else if (e.key == "reference") {
          layer.reference_pos = e.pos;
          std::string text;
          if (get_string(*e.node, "`reference`", e.pos, &text, false)) {
            reference = parse_reference(text);
            if (!reference) {
              report("E0155", e.pos,
                     "unknown reference \"" + text +
                         "\"; it takes \"first_frame\" or \"rest_pose\"" +
                         did_you_mean(closest(text, {"first_frame", "rest_pose"})));
            }
          }
        } else if (e.key == "speed") {
          layer.speed_pos = e.pos;
          get_speed(*e.node, e.pos, &layer.speed);
        } else if (e.key == "playback") {
          layer.playback_pos = e.pos;
          get_playback(*e.node, e.pos, &layer.playback);
        } else {
          unknown_key(e,
                      which +
                          " (it takes `clip`, `weight` or `weight_parameter`, `mask`, "
                          "`additive`, `reference`, `speed` and `playback`)",
                      {"clip", "weight", "weight_parameter", "mask", "additive", "reference",
                       "speed", "playback"},
                      &misspelt);
        }
      }
      if (!layer.clip_pos.known() && !misspelt.has("clip")) {
        report("E0103", layer.pos, which + " has no `clip`");
      }
      if (layer.weight_pos.known() && layer.weight_parameter_pos.known()) {
        report("E0143",
               before(layer.weight_pos, layer.weight_parameter_pos) ? layer.weight_parameter_pos
                                                                    : layer.weight_pos,
               which + " has both `weight` and `weight_parameter`; give one of them");
      }
      if (layer.additive) {
        layer.reference = reference.value_or(AdditiveReference::kFirstFrame);
      } else if (layer.reference_pos.known()) {
        report("E0144", layer.reference_pos,
               which +
                   " has a `reference` but is not additive; `reference` takes "
                   "`additive = true`");
      }
      out->push_back(std::move(layer));
    }
  }

  // A layer's `mask`: joint names (strings) or `{ joint, weight, subtree }` tables.
  void read_mask(const toml::node& node, SourcePos at, const std::string& which,
                 std::vector<SceneMaskEntry>* out) {
    const toml::array* array = node.as_array();
    if (array == nullptr) {
      wrong_kind(node, "`mask`", at,
                 "an array of joint names or inline tables { joint, weight, subtree }");
      return;
    }
    if (array->empty()) {
      report("E0134", at,
             "`mask` is empty (every joint would weigh 0); leave it out for every joint at 1");
      return;
    }
    if (over_limit(array->size(), kMaxMaskEntries, "`mask`", "entries", at)) return;
    for (size_t i = 0; i < array->size(); ++i) {
      const toml::node& element = *array->get(i);
      SceneMaskEntry m;
      m.pos = to_pos(element.source().begin);
      const std::string what = "mask entry " + std::to_string(i + 1) + " of " + which;
      if (element.is_string()) {
        m.joint_pos = m.pos;
        if (get_string(element, what, m.pos, &m.joint, true)) out->push_back(std::move(m));
        continue;
      }
      const toml::table* table = element.as_table();
      if (table == nullptr) {
        wrong_kind(element, what, m.pos,
                   "a joint name or an inline table { joint, weight, subtree }");
        continue;
      }
      Misspelt misspelt;
      bool ok = true;
      for (const Entry& e : entries(*table)) {
        if (e.key == "joint") {
          m.joint_pos = e.pos;
          ok &= get_string(*e.node, "mask `joint`", e.pos, &m.joint, true);
        } else if (e.key == "weight") {
          m.weight_pos = e.pos;
          ok &= get_unit_weight(*e.node, "mask `weight`", e.pos, &m.weight);
        } else if (e.key == "subtree") {
          m.subtree_pos = e.pos;
          ok &= get_bool(*e.node, "mask `subtree`", e.pos, &m.subtree);
        } else {
          unknown_key(e, what + " (it takes `joint`, `weight` and `subtree`)",
                      {"joint", "weight", "subtree"}, &misspelt);
        }
      }
      if (!m.joint_pos.known()) {
        if (!misspelt.has("joint")) report("E0103", m.pos, what + " has no `joint`");
        ok = false;
      }
      if (ok) out->push_back(std::move(m));
    }
  }

  // The rules across an animation's state machine and layers: what states replace,
  // names of states and parameters, the kinds and ranges of parameters where they are
  // used, and states no transition enters.
  void check_graph(const SceneAnimation& a, const std::string& who) {
    const bool states = a.states_pos.known();
    if (states) {
      for (const auto& [key, pos] :
           {std::pair{"clip", a.clip_pos}, std::pair{"blend", a.blend_pos},
            std::pair{"speed", a.speed_pos}, std::pair{"playback", a.playback_pos},
            std::pair{"start", a.start_pos}}) {
        if (pos.known()) {
          report("E0145", pos,
                 ticked(key) + " is decided by the states: " + who +
                     "'s animation has `states`, and each state says what it plays (give " +
                     ticked(key) + " on the states)");
        }
      }
    } else {
      for (const auto& [key, pos] : {std::pair{"parameters", a.parameters_pos},
                                     std::pair{"transitions", a.transitions_pos}}) {
        if (pos.known()) {
          report("E0146", pos,
                 ticked(key) + " needs `states`: " + who +
                     "'s animation has none ([object.animation.states.NAME])");
        }
      }
    }
    std::vector<std::string_view> parameter_names, state_names;
    for (const SceneParameter& p : a.parameters) parameter_names.push_back(p.name);
    for (const SceneState& s : a.states) state_names.push_back(s.name);

    // The parameter `name` written at `pos`, or nullptr after E0148.
    const auto parameter = [&](const std::string& name, SourcePos pos) -> const SceneParameter* {
      for (const SceneParameter& p : a.parameters) {
        if (p.name == name) return &p;
      }
      report(
          "E0148", pos,
          who + "'s animation has no parameter " + ticked(name) +
              (a.parameters.empty() ? " (it declares none in [object.animation.parameters])" : "") +
              hint(name, parameter_names));
      return nullptr;
    };
    // A float parameter (blend, speed or weight), its range within [lo, hi] when
    // `range` is set; `what` names the key.
    const auto float_parameter = [&](const std::string& name, SourcePos pos, std::string_view what,
                                     std::optional<std::pair<float, float>> range) {
      if (name.empty()) return;
      const SceneParameter* p = parameter(name, pos);
      if (p == nullptr || !p->typed) return;
      if (p->kind != ParameterKind::kFloat) {
        report("E0149", pos,
               ticked(what) + " names parameter " + ticked(name) + ", a " + kind_word(p->kind) +
                   "; it takes a float parameter");
        return;
      }
      if (range && !(p->min && p->max && *p->min >= range->first && *p->max <= range->second)) {
        const std::string within = "[" + number(range->first) + ", " + number(range->second) + "]";
        report("E0151", pos,
               ticked(what) + " names parameter " + ticked(name) +
                   (p->min && p->max ? ", whose range [" + number(*p->min) + ", " +
                                           number(*p->max) + "] is not within " + within +
                                           "; declare its `min` and `max` within that"
                                     : ", which declares no `min` and `max`; declare them "
                                       "within " +
                                           within));
      }
    };
    for (const SceneState& s : a.states) {
      if (!s.points.empty()) {
        float_parameter(s.blend_parameter, s.blend_parameter_pos, "blend_parameter", std::nullopt);
        float_parameter(s.blend_parameter_y, s.blend_parameter_y_pos, "blend_parameter_y",
                        std::nullopt);
      }
      float_parameter(s.speed_parameter, s.speed_parameter_pos, "speed_parameter",
                      std::pair{0.0f, kMaxSpeed});
    }
    for (const SceneLayer& l : a.layers) {
      float_parameter(l.weight_parameter, l.weight_parameter_pos, "weight_parameter",
                      std::pair{0.0f, 1.0f});
    }
    // The state `name` written at `key` of a transition, reporting E0147.
    const auto known_state = [&](const std::string& name, SourcePos pos, bool any_allowed) {
      if (name.empty()) return false;
      if (name == "*") {
        if (any_allowed) return true;
        report("E0147", pos,
               "a transition's `to` must name a state; \"*\" (any state) is only for `from`");
        return false;
      }
      if (std::find(state_names.begin(), state_names.end(), name) != state_names.end()) return true;
      if (states) {
        report("E0147", pos,
               who + "'s animation has no state " + ticked(name) + hint(name, state_names));
      }
      return false;
    };
    std::vector<bool> entered(a.states.size(), false);
    for (const SceneTransition& t : a.transitions) {
      known_state(t.from, t.from_pos, true);
      if (known_state(t.to, t.to_pos, false) && t.from != t.to) {
        for (size_t i = 0; i < a.states.size(); ++i) {
          if (a.states[i].name == t.to) entered[i] = true;
        }
      }
      for (const SceneCondition& c : t.conditions) {
        if (c.kind == ConditionKind::kExitTime) continue;
        const SceneParameter* p = parameter(c.parameter, c.parameter_pos);
        if (p == nullptr || !p->typed) continue;
        const ParameterKind want = c.kind == ConditionKind::kIs        ? ParameterKind::kBool
                                   : c.kind == ConditionKind::kTrigger ? ParameterKind::kTrigger
                                                                       : ParameterKind::kFloat;
        if (p->kind != want) {
          report("E0149", c.parameter_pos,
                 "condition `" + std::string(condition_word(c.kind)) + "` needs a " +
                     kind_word(want) + " parameter; " + ticked(c.parameter) + " is a " +
                     kind_word(p->kind));
        }
      }
    }
    for (size_t i = 1; i < a.states.size(); ++i) {
      if (!entered[i] && !a.states[i].name.empty() && a.states[i].name != "*") {
        report("W0212", a.states[i].name_pos,
               "state " + ticked(a.states[i].name) +
                   " is never entered: no transition leads to it (only the first state, " +
                   ticked(a.states[0].name) + ", is entered without one)");
      }
    }
  }

  // Clip sources across meshes: clip names given twice in one mesh (E0178), `retarget_from`
  // naming no other mesh (E0173), and cycles of meshes taking each other's clips (E0174: a
  // source without `file` and with `retarget_from` takes that mesh's clips, so they must be
  // made first).
  void check_clip_sources(const Scene& scene,
                          const std::map<std::string_view, const SceneMesh*>& meshes,
                          std::span<const std::string_view> mesh_names) {
    // Edges of "takes the clips of", by mesh index; the retarget_from key of each.
    std::map<const SceneMesh*, size_t> index;
    for (size_t m = 0; m < scene.meshes.size(); ++m) index.emplace(&scene.meshes[m], m);
    struct Edge {
      size_t to;
      SourcePos pos;
    };
    std::vector<std::vector<Edge>> takes(scene.meshes.size());
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
      const SceneMesh& mesh = scene.meshes[m];
      std::map<std::string_view, SourcePos> names;  // explicit clip names and where
      const auto name_clip = [&](const std::string& name, SourcePos pos) {
        const auto [it, inserted] = names.emplace(name, pos);
        if (!inserted) {
          report("E0178", pos,
                 "mesh " + label(mesh.name, mesh.pos) + " already has a clip named " +
                     ticked(name) + " (given at line " + std::to_string(it->second.line) +
                     "); clip names of a mesh are unique");
        }
      };
      for (size_t i = 0; i < mesh.clips.size(); ++i) {
        const SceneClipSource& source = mesh.clips[i];
        // With both `name` and `rename` (E0172) only the renames name clips.
        if (!source.name.empty() && !source.rename_pos.known()) {
          name_clip(source.name, source.name_pos);
        }
        for (const SceneRename& r : source.rename) name_clip(r.to, r.pos);
        if (source.retarget_from.empty()) continue;
        const auto it = meshes.find(source.retarget_from);
        if (it == meshes.end()) {
          report("E0173", source.retarget_from_pos,
                 "clip source " + std::to_string(i + 1) + " of mesh " + label(mesh.name, mesh.pos) +
                     " names " + ticked(source.retarget_from) +
                     " in `retarget_from`, and the scene has no such [[mesh]]" +
                     hint(source.retarget_from, mesh_names));
        } else if (it->second == &mesh || source.retarget_from == mesh.name) {
          report("E0173", source.retarget_from_pos,
                 "clip source " + std::to_string(i + 1) + " of mesh " + label(mesh.name, mesh.pos) +
                     " names the mesh itself in `retarget_from`; clips made for this mesh's "
                     "skeleton need no retargeting (leave `retarget_from` out)");
        } else if (source.file.empty() && !source.file_pos.known()) {
          takes[m].push_back({index.at(it->second), source.retarget_from_pos});
        }
      }
    }
    // Depth first, in document order: an edge back to a mesh still on the path closes a
    // cycle, reported once at its retarget_from.
    enum class Mark : uint8_t { kNew, kOnPath, kDone };
    std::vector<Mark> mark(scene.meshes.size(), Mark::kNew);
    for (size_t start = 0; start < scene.meshes.size(); ++start) {
      if (mark[start] != Mark::kNew) continue;
      std::vector<std::pair<size_t, size_t>> stack{{start, 0}};  // mesh, next edge
      mark[start] = Mark::kOnPath;
      while (!stack.empty()) {
        auto& [m, next] = stack.back();
        if (next == takes[m].size()) {
          mark[m] = Mark::kDone;
          stack.pop_back();
          continue;
        }
        const Edge edge = takes[m][next++];
        if (mark[edge.to] == Mark::kOnPath) {
          std::string path;
          bool on = false;
          for (const auto& [p, unused] : stack) {
            on = on || p == edge.to;
            if (on) path += ticked(scene.meshes[p].name) + " takes the clips of ";
          }
          report("E0174", edge.pos,
                 "meshes take each other's clips in a cycle: " + path +
                     ticked(scene.meshes[edge.to].name) +
                     "; one of them must take its clips from a file");
        } else if (mark[edge.to] == Mark::kNew) {
          mark[edge.to] = Mark::kOnPath;
          stack.emplace_back(edge.to, 0);
        }
      }
    }
  }

  // Names across the file: duplicates, and objects naming meshes.
  void check_names(const Scene& scene) {
    std::map<std::string_view, const SceneMesh*> meshes;
    for (const SceneMesh& mesh : scene.meshes) {
      if (mesh.name.empty()) continue;
      const auto [it, inserted] = meshes.emplace(mesh.name, &mesh);
      if (!inserted) {
        report("E0104", mesh.name_pos,
               "mesh name " + ticked(mesh.name) + " is already taken by the mesh at line " +
                   std::to_string(it->second->pos.line));
      }
    }
    std::vector<std::string_view> mesh_names;  // sorted, as the map is
    for (const auto& [name, mesh] : meshes) mesh_names.push_back(name);
    check_clip_sources(scene, meshes, mesh_names);
    size_t suggestion_budget = size_t{1} << 18;
    std::map<std::string_view, const SceneObject*> objects;
    for (const SceneObject& object : scene.objects) {
      if (!object.name.empty() && object.name_pos.known()) {
        const auto [it, inserted] = objects.emplace(object.name, &object);
        if (!inserted) {
          report("E0105", object.name_pos,
                 "object name " + ticked(object.name) + " is already taken by the object at line " +
                     std::to_string(it->second->pos.line));
        }
      }
      if (!object.mesh.empty() && !meshes.count(object.mesh)) {
        // A hint costs one bounded comparison per mesh; past a total budget (a scene of
        // thousands of objects naming unknown meshes) the errors come without hints.
        std::string hint;
        if (mesh_names.size() <= suggestion_budget) {
          suggestion_budget -= mesh_names.size();
          const std::string_view close = closest(object.mesh, mesh_names);
          if (!close.empty()) hint = "; did you mean " + ticked(close) + "?";
        }
        report("E0106", object.mesh_pos,
               "object " + label(object.name, object.pos) + " names mesh " + ticked(object.mesh) +
                   ", and the scene has no such [[mesh]]" + hint);
      }
    }
  }

  std::string file_;
  DiagnosticSink& sink_;
  size_t suggestion_budget_ = size_t{1} << 18;  // name comparisons for hints, per scene
};

}  // namespace

Scene parse_scene(std::string_view text, const std::filesystem::path& file_name,
                  DiagnosticSink& sink) {
  Scene scene;
  scene.file = file_name;
  scene.folder = file_name.parent_path();
  const std::string file = file_name.string();
  sink.add_source(file, std::string(text));
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& error) {
    const SourcePos pos = to_pos(error.source().begin);
    sink.report("E0001", file, pos.line, pos.col, std::string(error.description()));
    return scene;
  }
  Reader(file, sink).read(root, &scene);
  return scene;
}

Scene read_scene(const std::filesystem::path& file, DiagnosticSink& sink) {
  InputFile in = read_input_file(file, kMaxSceneFileBytes);
  if (!in.ok()) {
    Scene scene;
    scene.file = file;
    scene.folder = file.parent_path();
    sink.report("E0002", file.string(), 0, 0, "cannot read the scene file: " + in.error);
    return scene;
  }
  return parse_scene(
      std::string_view(reinterpret_cast<const char*>(in.bytes.data()), in.bytes.size()), file,
      sink);
}

std::string_view closest_name(std::string_view word, std::span<const std::string_view> candidates) {
  return closest(word, candidates);
}

const SceneMesh* find_mesh(const Scene& scene, std::string_view name) {
  for (const SceneMesh& mesh : scene.meshes) {
    if (mesh.name == name) return &mesh;
  }
  return nullptr;
}

}  // namespace animpack
