// The data files of sprite tools (atlas_data.h). Formats as their tools write them:
//   Aseprite's `--data` JSON export (https://www.aseprite.org/docs/cli/#data): frames as a
//     hash keyed by name or an array with "filename"; frame {x,y,w,h}, rotated, trimmed,
//     spriteSourceSize {x,y,w,h}, sourceSize {w,h}, duration (ms); meta {app, image, size,
//     frameTags [{name, from, to, direction}], slices [{name, keys [{frame, bounds, pivot}]}]}.
//   TexturePacker's JSON (hash and array): the same frame layout, "pivot" {x,y} normalised
//     to the source size; "rotated": true means stored turned 90 degrees clockwise, with
//     "frame" w and h the drawn (unturned) size, as PixiJS and Phaser read it.
//   Starling/Sparrow XML: <TextureAtlas imagePath> of <SubTexture name x y width height
//     frameX frameY frameWidth frameHeight rotated pivotX pivotY/>; x..height are the stored
//     pixels' box (turned for a rotated frame), frameX/frameY the negative offset of the
//     stored pixels inside the source box, pivots in source pixels.
#include "animpack/compiler/atlas_data.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <set>
#include <unordered_map>

#include "animpack/compiler/input_file.h"
#include "animpack/limits.h"

namespace animpack {
namespace {

using Json = nlohmann::ordered_json;  // keeps the file's key order (a hash's frame order)

// Byte offsets to 1-based line and column (columns count code points, as the scene's do).
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) : text_(text) {
    starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') starts_.push_back(i + 1);
    }
  }
  std::pair<int, int> at(size_t offset) const {
    offset = std::min(offset, text_.size());
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    const size_t line = static_cast<size_t>(it - starts_.begin());  // >= 1
    const size_t start = starts_[line - 1];
    int col = 1;
    for (size_t i = start; i < offset; ++i) {
      if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++col;
    }
    return {static_cast<int>(std::min<size_t>(line, INT32_MAX)), col};
  }

 private:
  std::string_view text_;
  std::vector<size_t> starts_;
};

// "~0" and "~1" escapes of a JSON pointer token (RFC 6901).
std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
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

// The deepest nesting of arrays and objects outside strings: checked before parsing, so
// that neither nlohmann's parser nor the position scanner below recurses without bound.
int json_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

// Where each value of a valid JSON text starts, by JSON pointer, and the keys an object
// gives twice (which nlohmann keeps only once).
class JsonPositions {
 public:
  explicit JsonPositions(std::string_view text) : text_(text) {
    std::string root;
    value(root);
  }
  // The offset of the value at `pointer`, or of its nearest parent that exists.
  size_t offset(std::string pointer) const {
    while (true) {
      if (auto it = at_.find(pointer); it != at_.end()) return it->second;
      const size_t slash = pointer.rfind('/');
      if (slash == std::string::npos) return 0;
      pointer.resize(slash);
    }
  }
  // (pointer, offset of the key) of every key given a second time in its object.
  const std::vector<std::pair<std::string, size_t>>& duplicates() const { return duplicates_; }

 private:
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  // A string token at pos_ (a quote), decoded.
  std::string string_token() {
    const size_t begin = pos_++;
    bool escaped = false;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') {
        escaped = true;
        ++pos_;
      }
      ++pos_;
    }
    ++pos_;  // the closing quote
    const std::string_view raw = text_.substr(begin, std::min(pos_, text_.size()) - begin);
    if (!escaped) return std::string(raw.substr(1, raw.size() >= 2 ? raw.size() - 2 : 0));
    return Json::parse(raw, nullptr, false).get<std::string>();  // valid text: a string
  }
  void value(const std::string& pointer) {
    skip_space();
    if (pos_ >= text_.size()) return;
    // Past a million values (far more than the formats' limits allow) positions are no
    // longer kept, so memory stays bounded; issues then point at a kept parent.
    if (at_.size() < kMaxKept) at_.emplace(pointer, pos_);
    const char c = text_[pos_];
    if (c == '{') {
      ++pos_;
      std::set<std::string> keys;
      while (true) {
        skip_space();
        if (pos_ >= text_.size() || text_[pos_] == '}') break;
        const size_t key_at = pos_;
        const std::string key = string_token();
        const std::string child = pointer + "/" + pointer_token(key);
        if (!keys.insert(key).second) duplicates_.emplace_back(child, key_at);
        skip_space();
        ++pos_;        // ':'
        value(child);  // a repeated key's value replaces the first (as in nlohmann)
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ',') ++pos_;
      }
      ++pos_;
    } else if (c == '[') {
      ++pos_;
      for (size_t i = 0;; ++i) {
        skip_space();
        if (pos_ >= text_.size() || text_[pos_] == ']') break;
        value(pointer + "/" + std::to_string(i));
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ',') ++pos_;
      }
      ++pos_;
    } else if (c == '"') {
      string_token();
    } else {
      while (pos_ < text_.size() &&
             std::string_view(",]} \t\r\n").find(text_[pos_]) == std::string_view::npos) {
        ++pos_;
      }
    }
  }

  static constexpr size_t kMaxKept = size_t{1} << 20;

  std::string_view text_;
  size_t pos_ = 0;
  std::unordered_map<std::string, size_t> at_;
  std::vector<std::pair<std::string, size_t>> duplicates_;
};

const char* kind_of(const Json& j) {
  switch (j.type()) {
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::null:
      return "null";
    case Json::value_t::number_float:
      return "a number with a fraction";
    default:
      return "an integer";
  }
}

std::optional<AtlasTagDirection> parse_direction(std::string_view text) {
  if (text == "forward") return AtlasTagDirection::kForward;
  if (text == "reverse") return AtlasTagDirection::kReverse;
  if (text == "pingpong") return AtlasTagDirection::kPingPong;
  if (text == "pingpong_reverse") return AtlasTagDirection::kPingPongReverse;
  return std::nullopt;
}

// The JSON forms (Aseprite, TexturePacker).
class JsonReader {
 public:
  JsonReader(std::string_view text, AtlasDataResult& out)
      : lines_(text), positions_(text), out_(out) {}

  void read(const Json& root) {
    for (const auto& [pointer, offset] : positions_.duplicates()) {
      issue_at(offset, pointer, "key given twice in its object (the second hides the first)");
    }
    if (!root.is_object()) {
      issue("", std::string("the data file is ") + kind_of(root) +
                    ", not an object with \"frames\" and \"meta\"");
      return;
    }
    AtlasData data;
    const Json* meta = member(root, "", "meta", Json::value_t::object, "an object", true);
    if (meta) read_meta(*meta, data);
    const auto frames = root.find("frames");
    if (frames == root.end()) {
      issue("", "the data file has no \"frames\"");
    } else if (frames->is_object() || frames->is_array()) {
      read_frames(*frames, data);
    } else {
      issue("/frames", std::string("\"frames\" is ") + kind_of(*frames) +
                           "; it must be an object (the hash form) or an array");
    }
    if (meta && failed_frames_ == 0) {
      read_tags(*meta, data);
      read_slices(*meta, data);
    }
    if (!has_error()) out_.data = std::move(data);
  }

 private:
  bool has_error() const {
    return std::any_of(out_.issues.begin(), out_.issues.end(),
                       [](const AtlasDataIssue& i) { return i.error; });
  }
  void issue_at(size_t offset, const std::string& pointer, std::string message, bool error = true) {
    const auto [line, col] = lines_.at(offset);
    out_.issues.push_back({error, line, col, pointer, std::move(message)});
  }
  void issue(const std::string& pointer, std::string message, bool error = true) {
    issue_at(positions_.offset(pointer), pointer, std::move(message), error);
  }
  std::pair<int, int> where(const std::string& pointer) const {
    return lines_.at(positions_.offset(pointer));
  }

  // obj[key] when it has the type; an issue (and nullptr) when it has another, or when it
  // is missing and required.
  const Json* member(const Json& obj, const std::string& pointer, const char* key,
                     Json::value_t type, const char* shape, bool required) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) issue(pointer, "\"" + std::string(key) + "\" is missing");
      return nullptr;
    }
    const bool ok =
        it->type() == type || (type == Json::value_t::number_unsigned && it->is_number_integer());
    if (!ok) {
      issue(pointer + "/" + key,
            "\"" + std::string(key) + "\" is " + kind_of(*it) + "; it must be " + shape);
      return nullptr;
    }
    return &*it;
  }
  // A whole number in [lo, hi] at obj[key].
  bool get_uint(const Json& obj, const std::string& pointer, const char* key, uint64_t lo,
                uint64_t hi, uint32_t* out, bool required = true) {
    const auto it = obj.find(key);
    const std::string at = pointer + "/" + key;
    if (it == obj.end()) {
      if (required) issue(pointer, "\"" + std::string(key) + "\" is missing");
      return false;
    }
    if (it->is_number_float()) {
      issue(at,
            "\"" + std::string(key) + "\" is " + Json(*it).dump() + "; it must be a whole number");
      return false;
    }
    if (!it->is_number_integer()) {
      issue(at, "\"" + std::string(key) + "\" is " + kind_of(*it) + "; it must be a whole number");
      return false;
    }
    if (it->is_number_unsigned()) {
      const uint64_t v = it->get<uint64_t>();
      if (v >= lo && v <= hi) {
        *out = static_cast<uint32_t>(v);
        return true;
      }
    }
    const std::string value = it->dump();
    issue(at, "\"" + std::string(key) + "\" is " + value + (value[0] == '-' ? " (negative)" : "") +
                  "; it must be " + std::to_string(lo) + " to " + std::to_string(hi));
    return false;
  }
  // A finite number at obj[key].
  bool get_number(const Json& obj, const std::string& pointer, const char* key, double* out) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
      issue(pointer, "\"" + std::string(key) + "\" is missing");
      return false;
    }
    if (!it->is_number()) {
      issue(pointer + "/" + key,
            "\"" + std::string(key) + "\" is " + kind_of(*it) + "; it must be a number");
      return false;
    }
    *out = it->get<double>();
    return true;
  }
  // {x, y, w, h} or {w, h} (with_xy false) at obj[key], w and h >= min_size.
  bool get_box(const Json& obj, const std::string& pointer, const char* key, bool with_xy,
               uint32_t min_size, PixelRect* out, bool required = true) {
    const Json* box = member(obj, pointer, key, Json::value_t::object, "an object", required);
    if (!box) return false;
    const std::string at = pointer + "/" + key;
    bool ok = true;
    if (with_xy) {
      ok = get_uint(*box, at, "x", 0, kMaxPixel, &out->x) && ok;
      ok = get_uint(*box, at, "y", 0, kMaxPixel, &out->y) && ok;
    }
    ok = get_uint(*box, at, "w", min_size, kMaxPixel, &out->width) && ok;
    ok = get_uint(*box, at, "h", min_size, kMaxPixel, &out->height) && ok;
    return ok;
  }

  void read_meta(const Json& meta, AtlasData& data) {
    data.format = AtlasDataFormat::kTexturePackerJson;
    if (const Json* app = member(meta, "/meta", "app", Json::value_t::string, "a string", false)) {
      std::string text = app->get<std::string>();
      std::transform(text.begin(), text.end(), text.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (text.find("aseprite") != std::string::npos) data.format = AtlasDataFormat::kAsepriteJson;
    }
    if (const Json* image =
            member(meta, "/meta", "image", Json::value_t::string, "a string (a file name)", true)) {
      if (image->get<std::string>().empty()) {
        issue("/meta/image", "\"image\" is empty; it names the sheet's image file");
      } else {
        data.image = image->get<std::string>();
      }
    }
    PixelRect size;
    if (get_box(meta, "/meta", "size", false, 1, &size))
      data.image_size = {size.width, size.height};
  }

  void read_frames(const Json& frames, AtlasData& data) {
    if (frames.size() > kMaxAtlasDataFrames) {
      issue("/frames", "the data file has " + std::to_string(frames.size()) +
                           " frames; the limit is " + std::to_string(kMaxAtlasDataFrames));
      ++failed_frames_;
      return;
    }
    if (frames.empty()) {
      issue("/frames", "\"frames\" is empty; a sheet needs at least one frame");
      ++failed_frames_;
      return;
    }
    std::map<std::string, std::string> names;  // name -> pointer of its first frame
    size_t i = 0;
    for (auto it = frames.begin(); it != frames.end(); ++it, ++i) {
      const bool hash = frames.is_object();
      const std::string pointer = "/frames/" + (hash ? pointer_token(it.key()) : std::to_string(i));
      AtlasDataFrame frame;
      if (hash) frame.name = it.key();
      if (!read_frame(*it, pointer, hash, data.image_size, frame)) {
        ++failed_frames_;
        continue;
      }
      if (!frame.name.empty()) {
        const auto [first, inserted] = names.emplace(frame.name, pointer);
        if (!inserted && !hash) {  // a hash's duplicate keys are reported by the scanner
          issue(pointer, "frame name \"" + frame.name + "\" is taken by " + first->second);
          ++failed_frames_;
          continue;
        }
      }
      data.frames.push_back(std::move(frame));
    }
  }

  bool read_frame(const Json& f, const std::string& pointer, bool hash, Size image,
                  AtlasDataFrame& out) {
    out.pointer = pointer;
    std::tie(out.line, out.col) = where(pointer);
    if (!f.is_object()) {
      issue(pointer, std::string("a frame is ") + kind_of(f) + "; it must be an object");
      return false;
    }
    bool ok = true;
    if (!hash) {
      if (const Json* name =
              member(f, pointer, "filename", Json::value_t::string, "a string", false)) {
        out.name = name->get<std::string>();
      } else if (f.contains("filename")) {
        ok = false;
      }
    }
    PixelRect drawn;  // "frame": x, y and the drawn (unturned) size
    if (!get_box(f, pointer, "frame", true, 1, &drawn)) ok = false;
    bool rotated = false;
    if (const Json* r =
            member(f, pointer, "rotated", Json::value_t::boolean, "true or false", false)) {
      rotated = r->get<bool>();
    } else if (f.contains("rotated")) {
      ok = false;
    }
    if (f.contains("trimmed") &&
        !member(f, pointer, "trimmed", Json::value_t::boolean, "true or false", false)) {
      ok = false;
    }
    PixelRect source{0, 0, drawn.width, drawn.height};
    PixelRect trimmed{0, 0, drawn.width, drawn.height};
    const bool has_source = f.contains("sourceSize");
    const bool has_trim = f.contains("spriteSourceSize");
    if (has_source && !get_box(f, pointer, "sourceSize", false, 1, &source)) ok = false;
    if (has_trim && !get_box(f, pointer, "spriteSourceSize", true, 1, &trimmed)) ok = false;
    if (f.contains("duration")) {
      uint32_t ms = 0;
      if (get_uint(f, pointer, "duration", 1, kMaxSpriteFrameMs, &ms)) {
        out.duration_ms = ms;
      } else {
        ok = false;
      }
    }
    std::optional<std::pair<double, double>> pivot;
    if (const Json* p =
            member(f, pointer, "pivot", Json::value_t::object, "an object {x, y}", false)) {
      double px = 0, py = 0;
      if (get_number(*p, pointer + "/pivot", "x", &px) &&
          get_number(*p, pointer + "/pivot", "y", &py)) {
        pivot = {px, py};
      } else {
        ok = false;
      }
    } else if (f.contains("pivot")) {
      ok = false;
    }
    if (!ok) return false;

    if (!has_source && has_trim) {
      issue(pointer, "\"spriteSourceSize\" is given without \"sourceSize\"");
      return false;
    }
    if (trimmed.width != drawn.width || trimmed.height != drawn.height) {
      issue(pointer + "/spriteSourceSize",
            "the trimmed size " + std::to_string(trimmed.width) + "x" +
                std::to_string(trimmed.height) + " is not the frame's " +
                std::to_string(drawn.width) + "x" + std::to_string(drawn.height));
      return false;
    }
    if (uint64_t{trimmed.x} + trimmed.width > source.width ||
        uint64_t{trimmed.y} + trimmed.height > source.height) {
      issue(pointer + "/spriteSourceSize",
            "the trimmed box (x " + std::to_string(trimmed.x) + ", y " + std::to_string(trimmed.y) +
                ", " + std::to_string(trimmed.width) + "x" + std::to_string(trimmed.height) +
                ") is not inside the source size " + std::to_string(source.width) + "x" +
                std::to_string(source.height));
      return false;
    }
    out.rect = {drawn.x, drawn.y, rotated ? drawn.height : drawn.width,
                rotated ? drawn.width : drawn.height};
    if (image.width > 0 && (uint64_t{out.rect.x} + out.rect.width > image.width ||
                            uint64_t{out.rect.y} + out.rect.height > image.height)) {
      issue(pointer + "/frame",
            "the frame (x " + std::to_string(out.rect.x) + ", y " + std::to_string(out.rect.y) +
                ", " + std::to_string(out.rect.width) + "x" + std::to_string(out.rect.height) +
                (rotated ? ", rotated" : "") + ") is not inside the " +
                std::to_string(image.width) + "x" + std::to_string(image.height) + " image");
      return false;
    }
    out.placement.source = {source.width, source.height};
    out.placement.trimmed = trimmed;
    out.placement.rotated = rotated;
    const double px = pivot ? pivot->first * source.width : source.width * 0.5;
    const double py = pivot ? pivot->second * source.height : source.height * 0.5;
    if (!std::isfinite(static_cast<float>(px)) || !std::isfinite(static_cast<float>(py))) {
      issue(pointer + "/pivot", "the pivot is not a finite position");
      return false;
    }
    out.placement.pivot_x = static_cast<float>(px);
    out.placement.pivot_y = static_cast<float>(py);
    return true;
  }

  void read_tags(const Json& meta, AtlasData& data) {
    const Json* tags = member(meta, "/meta", "frameTags", Json::value_t::array, "an array", false);
    if (!tags) return;
    if (tags->size() > kMaxAtlasDataTags) {
      issue("/meta/frameTags", "the data file has " + std::to_string(tags->size()) +
                                   " tags; the limit is " + std::to_string(kMaxAtlasDataTags));
      return;
    }
    const uint32_t frames = static_cast<uint32_t>(data.frames.size());
    std::map<std::string, std::string> names;
    for (size_t i = 0; i < tags->size(); ++i) {
      const std::string pointer = "/meta/frameTags/" + std::to_string(i);
      const Json& t = (*tags)[i];
      if (!t.is_object()) {
        issue(pointer, std::string("a tag is ") + kind_of(t) + "; it must be an object");
        continue;
      }
      AtlasDataTag tag;
      tag.pointer = pointer;
      std::tie(tag.line, tag.col) = where(pointer);
      bool ok = true;
      if (const Json* name = member(t, pointer, "name", Json::value_t::string, "a string", true)) {
        tag.name = name->get<std::string>();
        if (tag.name.empty()) {
          issue(pointer + "/name", "a tag's name must not be empty");
          ok = false;
        }
      } else {
        ok = false;
      }
      ok = get_uint(t, pointer, "from", 0, UINT32_MAX, &tag.from) && ok;
      ok = get_uint(t, pointer, "to", 0, UINT32_MAX, &tag.to) && ok;
      if (const Json* d =
              member(t, pointer, "direction", Json::value_t::string, "a string", false)) {
        const std::optional<AtlasTagDirection> dir = parse_direction(d->get<std::string>());
        if (dir) {
          tag.direction = *dir;
        } else {
          issue(pointer + "/direction",
                "unknown direction \"" + d->get<std::string>() +
                    "\"; it takes \"forward\", \"reverse\", \"pingpong\" or \"pingpong_reverse\"");
          ok = false;
        }
      } else if (t.contains("direction")) {
        ok = false;
      }
      if (!ok) continue;
      if (tag.from > tag.to) {
        issue(pointer + "/to", "tag \"" + tag.name + "\" ends (to " + std::to_string(tag.to) +
                                   ") before it starts (from " + std::to_string(tag.from) + ")");
        continue;
      }
      if (tag.to >= frames) {
        issue(pointer + (tag.from >= frames ? "/from" : "/to"),
              "tag \"" + tag.name + "\" runs to frame " + std::to_string(tag.to) +
                  " but the sheet has " + std::to_string(frames) + " frames (0 to " +
                  std::to_string(frames - 1) + ")");
        continue;
      }
      const auto [first, inserted] = names.emplace(tag.name, pointer);
      if (!inserted) {
        issue(pointer + "/name", "tag name \"" + tag.name + "\" is taken by " + first->second);
        continue;
      }
      data.tags.push_back(std::move(tag));
    }
  }

  // Slices with pivots: a key applies from its frame up to the next key's (or the last
  // frame) and sets those frames' pivot to bounds.x + pivot.x, bounds.y + pivot.y; the
  // first slice (in file order) that gives a frame a pivot wins, later ones are warned.
  void read_slices(const Json& meta, AtlasData& data) {
    const Json* slices = member(meta, "/meta", "slices", Json::value_t::array, "an array", false);
    if (!slices) return;
    const uint32_t frames = static_cast<uint32_t>(data.frames.size());
    std::vector<std::string> set_by(frames);  // the slice that set each frame's pivot
    for (size_t s = 0; s < slices->size(); ++s) {
      const std::string pointer = "/meta/slices/" + std::to_string(s);
      const Json& slice = (*slices)[s];
      if (!slice.is_object()) {
        issue(pointer, std::string("a slice is ") + kind_of(slice) + "; it must be an object");
        continue;
      }
      std::string name;
      if (const Json* n =
              member(slice, pointer, "name", Json::value_t::string, "a string", false)) {
        name = n->get<std::string>();
      }
      const Json* keys = member(slice, pointer, "keys", Json::value_t::array, "an array", true);
      if (!keys) continue;
      struct Key {
        uint32_t frame = 0;
        std::optional<std::pair<double, double>> pivot;
        std::string pointer;
      };
      std::vector<Key> parsed;
      bool ok = true;
      for (size_t k = 0; k < keys->size(); ++k) {
        const std::string kp = pointer + "/keys/" + std::to_string(k);
        const Json& key = (*keys)[k];
        if (!key.is_object()) {
          issue(kp, std::string("a slice key is ") + kind_of(key) + "; it must be an object");
          ok = false;
          continue;
        }
        Key out;
        out.pointer = kp;
        if (!get_uint(key, kp, "frame", 0, UINT32_MAX, &out.frame)) {
          ok = false;
          continue;
        }
        if (out.frame >= frames) {
          issue(kp + "/frame", "slice key on frame " + std::to_string(out.frame) +
                                   " but the sheet has " + std::to_string(frames) + " frames");
          ok = false;
          continue;
        }
        if (!parsed.empty() && out.frame <= parsed.back().frame) {
          issue(kp + "/frame", "slice keys must be in ascending frame order (frame " +
                                   std::to_string(out.frame) + " after " +
                                   std::to_string(parsed.back().frame) + ")");
          ok = false;
          continue;
        }
        PixelRect bounds;
        if (!get_box(key, kp, "bounds", true, 0, &bounds)) {
          ok = false;
          continue;
        }
        if (const Json* p =
                member(key, kp, "pivot", Json::value_t::object, "an object {x, y}", false)) {
          double px = 0, py = 0;
          if (!get_number(*p, kp + "/pivot", "x", &px) ||
              !get_number(*p, kp + "/pivot", "y", &py)) {
            ok = false;
            continue;
          }
          out.pivot = std::make_pair(bounds.x + px, bounds.y + py);
        } else if (key.contains("pivot")) {
          ok = false;
          continue;
        }
        parsed.push_back(std::move(out));
      }
      if (!ok) continue;
      for (size_t k = 0; k < parsed.size(); ++k) {
        if (!parsed[k].pivot) continue;
        const uint32_t end = k + 1 < parsed.size() ? parsed[k + 1].frame : frames;
        for (uint32_t f = parsed[k].frame; f < end; ++f) {
          if (!set_by[f].empty()) {
            issue(parsed[k].pointer,
                  "slice \"" + name + "\" gives frame " + std::to_string(f) +
                      " a pivot, but an earlier slice (" + set_by[f] + ") did; it keeps that one",
                  false);
            break;
          }
          set_by[f] = pointer;
          data.frames[f].placement.pivot_x = static_cast<float>(parsed[k].pivot->first);
          data.frames[f].placement.pivot_y = static_cast<float>(parsed[k].pivot->second);
        }
      }
    }
  }

  static constexpr uint32_t kMaxPixel = 1u << 24;  // far past kMaxAtlasSide

  LineIndex lines_;
  JsonPositions positions_;
  AtlasDataResult& out_;
  size_t failed_frames_ = 0;  // frames not read: tags and slices are then not checked
};

// ------------------------------------------------------------------ Starling XML

class XmlReader {
 public:
  XmlReader(std::string_view text, AtlasDataResult& out) : text_(text), lines_(text), out_(out) {}

  void read(const pugi::xml_document& doc) {
    const pugi::xml_node root = doc.document_element();
    if (std::string_view(root.name()) != "TextureAtlas") {
      issue(root, "the root element is <" + std::string(root.name()) +
                      ">, not <TextureAtlas> (Starling/Sparrow XML)");
      return;
    }
    AtlasData data;
    data.format = AtlasDataFormat::kStarlingXml;
    const pugi::xml_attribute image = root.attribute("imagePath");
    if (image.empty() || std::string_view(image.value()).empty()) {
      issue(root, "<TextureAtlas> has no imagePath (the sheet's image file)");
    } else {
      data.image = image.value();
    }
    // Some exporters state the image size; Starling's own files do not (then the cook
    // checks the frames against the image itself).
    uint32_t w = 0, h = 0;
    if (!root.attribute("width").empty() || !root.attribute("height").empty()) {
      if (get_uint(root, "width", 1, &w, true) && get_uint(root, "height", 1, &h, true)) {
        data.image_size = {w, h};
      }
    }
    std::map<std::string, int> names;  // name -> line of its first frame
    size_t count = 0;
    for (const pugi::xml_node node : root.children()) {
      if (node.type() != pugi::node_element) continue;
      if (std::string_view(node.name()) != "SubTexture") {
        issue(node, "<" + std::string(node.name()) + "> is not a <SubTexture>; it is ignored",
              false);
        continue;
      }
      if (++count > kMaxAtlasDataFrames) {
        issue(node, "the data file has more than " + std::to_string(kMaxAtlasDataFrames) +
                        " frames (the limit)");
        return;
      }
      AtlasDataFrame frame;
      if (!read_frame(node, data.image_size, frame)) continue;
      const auto [first, inserted] = names.emplace(frame.name, frame.line);
      if (!inserted) {
        issue(node, "frame name \"" + frame.name + "\" is taken by the <SubTexture> on line " +
                        std::to_string(first->second));
        continue;
      }
      data.frames.push_back(std::move(frame));
    }
    if (count == 0) issue(root, "<TextureAtlas> has no <SubTexture>; a sheet needs a frame");
    if (!has_error()) out_.data = std::move(data);
  }

 private:
  bool has_error() const {
    return std::any_of(out_.issues.begin(), out_.issues.end(),
                       [](const AtlasDataIssue& i) { return i.error; });
  }
  // Where an element starts: its '<' (pugixml gives the offset of its name).
  std::pair<int, int> where(const pugi::xml_node& node) const {
    size_t offset = static_cast<size_t>(std::max<ptrdiff_t>(0, node.offset_debug()));
    if (offset > 0 && offset <= text_.size() && text_[offset - 1] == '<') --offset;
    return lines_.at(offset);
  }
  void issue(const pugi::xml_node& node, std::string message, bool error = true) {
    const auto [line, col] = where(node);
    out_.issues.push_back({error, line, col, "", std::move(message)});
  }
  // An integer attribute in [lo, kMaxPixel] (negated first with `negate`: frameX, frameY).
  bool get_uint(const pugi::xml_node& node, const char* name, int64_t lo, uint32_t* out,
                bool required, bool negate = false) {
    const pugi::xml_attribute a = node.attribute(name);
    if (a.empty()) {
      if (required) issue(node, "<" + std::string(node.name()) + "> has no " + name);
      return false;
    }
    const std::string_view text = a.value();
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      issue(node, std::string(name) + "=\"" + std::string(text) + "\" is not a whole number");
      return false;
    }
    if (negate) v = -v;
    if (v < lo || v > kMaxPixel) {
      issue(node, std::string(name) + "=\"" + std::string(text) + "\" must be " +
                      (negate ? "0 or less (an offset into the source box)"
                              : (lo == 0 ? "0 or more" : "greater than 0")));
      return false;
    }
    *out = static_cast<uint32_t>(v);
    return true;
  }
  bool get_float(const pugi::xml_node& node, const char* name, double* out) {
    const std::string_view text = node.attribute(name).value();
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) ||
        !std::isfinite(static_cast<float>(v))) {
      issue(node, std::string(name) + "=\"" + std::string(text) + "\" is not a finite number");
      return false;
    }
    *out = v;
    return true;
  }

  bool read_frame(const pugi::xml_node& node, Size image, AtlasDataFrame& out) {
    std::tie(out.line, out.col) = where(node);
    out.name = node.attribute("name").value();
    bool ok = true;
    if (node.attribute("name").empty()) {
      issue(node, "<SubTexture> has no name");
      ok = false;
    }
    PixelRect r;
    ok = get_uint(node, "x", 0, &r.x, true) && ok;
    ok = get_uint(node, "y", 0, &r.y, true) && ok;
    ok = get_uint(node, "width", 1, &r.width, true) && ok;
    ok = get_uint(node, "height", 1, &r.height, true) && ok;
    bool rotated = false;
    if (const pugi::xml_attribute a = node.attribute("rotated"); !a.empty()) {
      const std::string_view v = a.value();
      if (v == "true" || v == "1") {
        rotated = true;
      } else if (v != "false" && v != "0") {
        issue(node, "rotated=\"" + std::string(v) + "\" must be \"true\" or \"false\"");
        ok = false;
      }
    }
    if (!ok) return false;
    const uint32_t drawn_w = rotated ? r.height : r.width;
    const uint32_t drawn_h = rotated ? r.width : r.height;
    PixelRect trimmed{0, 0, drawn_w, drawn_h};
    Size source{drawn_w, drawn_h};
    const bool has_frame = !node.attribute("frameWidth").empty() ||
                           !node.attribute("frameHeight").empty() ||
                           !node.attribute("frameX").empty() || !node.attribute("frameY").empty();
    if (has_frame) {
      ok = get_uint(node, "frameX", 0, &trimmed.x, true, true) && ok;
      ok = get_uint(node, "frameY", 0, &trimmed.y, true, true) && ok;
      ok = get_uint(node, "frameWidth", 1, &source.width, true) && ok;
      ok = get_uint(node, "frameHeight", 1, &source.height, true) && ok;
      if (!ok) return false;
      if (uint64_t{trimmed.x} + trimmed.width > source.width ||
          uint64_t{trimmed.y} + trimmed.height > source.height) {
        issue(node, "the trimmed pixels (" + std::to_string(drawn_w) + "x" +
                        std::to_string(drawn_h) + " at x " + std::to_string(trimmed.x) + ", y " +
                        std::to_string(trimmed.y) + " of the source box) are not inside the " +
                        std::to_string(source.width) + "x" + std::to_string(source.height) +
                        " source box");
        return false;
      }
    }
    if (image.width > 0 &&
        (uint64_t{r.x} + r.width > image.width || uint64_t{r.y} + r.height > image.height)) {
      issue(node, "the frame (x " + std::to_string(r.x) + ", y " + std::to_string(r.y) + ", " +
                      std::to_string(r.width) + "x" + std::to_string(r.height) +
                      ") is not inside the " + std::to_string(image.width) + "x" +
                      std::to_string(image.height) + " image");
      return false;
    }
    double px = source.width * 0.5, py = source.height * 0.5;
    if (!node.attribute("pivotX").empty() && !get_float(node, "pivotX", &px)) return false;
    if (!node.attribute("pivotY").empty() && !get_float(node, "pivotY", &py)) return false;
    out.rect = r;
    out.placement.source = source;
    out.placement.trimmed = trimmed;
    out.placement.rotated = rotated;
    out.placement.pivot_x = static_cast<float>(px);
    out.placement.pivot_y = static_cast<float>(py);
    return true;
  }

  static constexpr int64_t kMaxPixel = int64_t{1} << 24;

  std::string_view text_;
  LineIndex lines_;
  AtlasDataResult& out_;
};

}  // namespace

AtlasDataResult parse_atlas_data(std::string_view text, std::string_view name) {
  AtlasDataResult out;
  const auto fail = [&out](int line, int col, std::string message) {
    out.issues.push_back({true, line, col, "", std::move(message)});
    return out;
  };
  try {
    if (text.size() > kMaxAtlasDataFileBytes) {
      return fail(0, 0,
                  std::string(name) + " has " + std::to_string(text.size()) +
                      " bytes; the limit is " + std::to_string(kMaxAtlasDataFileBytes));
    }
    size_t first = 0;
    if (text.substr(0, 3) == "\xEF\xBB\xBF") first = 3;  // a UTF-8 byte order mark
    while (first < text.size() &&
           std::string_view(" \t\r\n").find(text[first]) != std::string_view::npos) {
      ++first;
    }
    if (first < text.size() && text[first] == '<') {
      pugi::xml_document doc;
      const pugi::xml_parse_result parsed =
          doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
      if (!parsed) {
        const auto [line, col] = LineIndex(text).at(static_cast<size_t>(parsed.offset));
        return fail(line, col, std::string("not well-formed XML: ") + parsed.description());
      }
      XmlReader(text, out).read(doc);
      return out;
    }
    if (first >= text.size() || (text[first] != '{' && text[first] != '[')) {
      return fail(1, 1,
                  std::string(name) +
                      " is neither JSON (Aseprite, TexturePacker) nor XML (Starling): it starts "
                      "with neither '{' nor '<'");
    }
    const std::string_view json_text = text.substr(first == 3 ? 3 : 0);
    if (json_depth(json_text) > kMaxAtlasDataDepth) {
      return fail(1, 1,
                  "the JSON nests more than " + std::to_string(kMaxAtlasDataDepth) +
                      " levels deep (the formats need 5)");
    }
    Json root;
    try {
      root = Json::parse(json_text);
    } catch (const Json::parse_error& e) {
      const size_t at = e.byte > 0 ? e.byte - 1 : 0;
      const auto [line, col] = LineIndex(json_text).at(at);
      std::string what = e.what();
      if (const size_t colon = what.find(": "); colon != std::string::npos) {
        what = what.substr(colon + 2);
      }
      return fail(line, col, "not valid JSON: " + what);
    }
    JsonReader(json_text, out).read(root);
  } catch (const std::exception& e) {
    out.data.reset();
    return fail(0, 0, std::string(name) + " could not be read: " + e.what());
  }
  return out;
}

AtlasDataResult read_atlas_data(const std::filesystem::path& file) {
  const InputFile in = read_input_file(file, kMaxAtlasDataFileBytes);
  if (!in.ok()) {
    AtlasDataResult out;
    out.issues.push_back({true, 0, 0, "", in.error});
    return out;
  }
  return parse_atlas_data(
      std::string_view(reinterpret_cast<const char*>(in.bytes.data()), in.bytes.size()),
      file.string());
}

}  // namespace animpack
