// Reading the data files that sprite tools write beside a sheet's PNG (Step 7): Aseprite's
// JSON export (array and hash forms: frames with per-frame durations, frameTags with
// directions, slices as pivots) and TexturePacker's data (JSON hash and array, and the
// Starling/Sparrow XML form: trimmed and rotated frames, pivots). A scene names the data
// file (`atlas = "hero.json"`); the data file names its image.
//
//   animpack::AtlasDataResult r = animpack::read_atlas_data("art/hero.json");
//   for (const animpack::AtlasDataIssue& i : r.issues) report(i);   // errors stop the cook
//   if (r.data) { /* r.data->image, r.data->frames, r.data->tags */ }
//
// Every problem is an AtlasDataIssue at the data file's line and column (XML, and JSON
// where the position is known) and its JSON pointer (JSON), never an exception.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/sprite.h"

namespace animpack {

// Limits on a data file (docs/scene-format.md, limits): its size, checked before it is
// read; its frames and tags; how deeply its JSON nests (the formats need 5 levels).
inline constexpr uint64_t kMaxAtlasDataFileBytes = uint64_t{16} << 20;
inline constexpr size_t kMaxAtlasDataFrames = 16384;
inline constexpr size_t kMaxAtlasDataTags = 1024;
inline constexpr int kMaxAtlasDataDepth = 64;

// Which tool's layout the data file has (found from its content, not its name).
enum class AtlasDataFormat : uint8_t {
  kAsepriteJson,       // Aseprite's --data export: meta.app mentions aseprite
  kTexturePackerJson,  // TexturePacker's JSON (hash or array)
  kStarlingXml,        // TexturePacker's / Starling's <TextureAtlas> XML
};

// A tag's direction (Aseprite frameTags[].direction).
enum class AtlasTagDirection : uint8_t { kForward, kReverse, kPingPong, kPingPongReverse };

// One frame of the data file, in file order.
struct AtlasDataFrame {
  std::string name;          // the frame's key or filename (may be empty in an array form)
  PixelRect rect;            // its pixels in the image, as stored (rotated ones turned)
  FramePlacement placement;  // source size, trimmed box, rotated, pivot (in source pixels)
  std::optional<uint32_t> duration_ms;  // Aseprite's per-frame duration
  int line = 0, col = 0;                // where the frame's entry starts (0 when unknown)
  std::string pointer;                  // its JSON pointer ("" for XML)
};

// One tag (Aseprite frameTags): frames from..to inclusive, indices into frames.
struct AtlasDataTag {
  std::string name;
  uint32_t from = 0, to = 0;
  AtlasTagDirection direction = AtlasTagDirection::kForward;
  int line = 0, col = 0;
  std::string pointer;
};

struct AtlasData {
  AtlasDataFormat format = AtlasDataFormat::kAsepriteJson;
  std::filesystem::path image;  // the image the data names, relative to the data file's folder
  Size image_size;              // as the data file states it (checked against the PNG by the cook)
  std::vector<AtlasDataFrame> frames;
  std::vector<AtlasDataTag> tags;
};

// One problem with a data file: an error (the cook fails) or a warning.
struct AtlasDataIssue {
  bool error = true;
  int line = 0, col = 0;  // 1-based; 0 when unknown
  std::string pointer;    // JSON pointer of the offending value ("" for XML or unknown)
  std::string message;    // one sentence, no trailing period
};

struct AtlasDataResult {
  std::optional<AtlasData> data;  // set when there is no error
  std::vector<AtlasDataIssue> issues;
};

// Reads a data file through read_input_file (a regular file of bounded size). Never
// throws.
AtlasDataResult read_atlas_data(const std::filesystem::path& file);
// The same from memory; `name` is only used in messages.
AtlasDataResult parse_atlas_data(std::string_view text, std::string_view name);

}  // namespace animpack
