// Reading a sprite atlas PNG for the pack: the file must be a real PNG (signature and
// decodable pixels, not just a .png name), and its pixels become RGBA8.
//
//   animpack::PngImage png = animpack::read_png("art/hero.png");
//   if (!png.error.empty()) report(png.error);
//   auto atlas = animpack::Atlas::grid({png.width, png.height}, {32, 32}, 16);
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace animpack {

// The largest atlas the cooker accepts (docs/scene-format.md, limits): at most
// kMaxAtlasSide pixels on a side and kMaxAtlasPixels in all (64 MiB of RGBA8). Checked
// from the PNG header, before the pixels are decoded.
inline constexpr uint32_t kMaxAtlasSide = 8192;
inline constexpr uint64_t kMaxAtlasPixels = uint64_t{1} << 24;

struct PngImage {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint8_t> rgba;  // width * height * 4 bytes, rows top to bottom
  std::string error;          // empty on success; else why the file is not a usable PNG
  bool too_large = false;     // the error is a limit (kMaxAtlasSide, kMaxAtlasPixels)
};

// Reads and decodes a PNG file (any bit depth or colour type, converted to RGBA8) through
// read_input_file (a regular file of at most kMaxAtlasFileBytes). error says why the file
// cannot be read ("PATH is a folder, not a file", ...), "not a PNG (signature ...)", "truncated or
// corrupt PNG: <stb reason>" or, with too_large, that it is over kMaxAtlasSide or kMaxAtlasPixels.
PngImage read_png(const std::filesystem::path& file);
// The same from memory.
PngImage decode_png(std::span<const uint8_t> bytes);

}  // namespace animpack
