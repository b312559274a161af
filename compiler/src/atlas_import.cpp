#include "animpack/compiler/atlas_import.h"

#include <stb/stb_image.h>

#include <cstring>

#include "animpack/compiler/input_file.h"

namespace animpack {

PngImage decode_png(std::span<const uint8_t> bytes) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  PngImage img;
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kSignature, 8) != 0) {
    img.error = "not a PNG (the file does not start with the PNG signature)";
    return img;
  }
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) {
    img.error = "the PNG file is larger than 2 GiB";
    return img;
  }
  int w = 0, h = 0, channels = 0;
  const int len = static_cast<int>(bytes.size());
  if (!stbi_info_from_memory(bytes.data(), len, &w, &h, &channels)) {
    img.error = std::string("truncated or corrupt PNG: ") + stbi_failure_reason();
    return img;
  }
  if (w <= 0 || h <= 0) {
    img.error = "the PNG is " + std::to_string(w) + "x" + std::to_string(h) + " pixels";
    return img;
  }
  if (static_cast<uint32_t>(w) > kMaxAtlasSide || static_cast<uint32_t>(h) > kMaxAtlasSide ||
      uint64_t(uint32_t(w)) * uint32_t(h) > kMaxAtlasPixels) {
    img.error = "the PNG is " + std::to_string(w) + "x" + std::to_string(h) +
                " pixels; an atlas may be at most " + std::to_string(kMaxAtlasSide) +
                " on a side and " + std::to_string(kMaxAtlasPixels) + " pixels in all";
    img.too_large = true;
    return img;
  }
  stbi_uc* pixels = stbi_load_from_memory(bytes.data(), len, &w, &h, &channels, 4);
  if (!pixels) {
    img.error = std::string("truncated or corrupt PNG: ") + stbi_failure_reason();
    return img;
  }
  img.width = static_cast<uint32_t>(w);
  img.height = static_cast<uint32_t>(h);
  img.rgba.assign(pixels, pixels + static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  stbi_image_free(pixels);
  return img;
}

PngImage read_png(const std::filesystem::path& file) {
  InputFile in = read_input_file(file, kMaxAtlasFileBytes);
  if (!in.ok()) {
    PngImage img;
    img.error = std::move(in.error);
    return img;
  }
  return decode_png(in.bytes);
}

}  // namespace animpack
