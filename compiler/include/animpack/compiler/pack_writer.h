// Writing a pack: CookedPack in, bytes out, through the same generated schema code the
// runtime reads with. The same CookedPack always gives the same bytes (no timestamps, no
// absolute paths, no pointer-order iteration).
//
//   std::vector<uint8_t> bytes = animpack::write_pack(pack);
//   if (std::string err = animpack::write_file_atomically("out.anpk", bytes); !err.empty())
//     report(err);
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "animpack/compiler/cooked.h"

namespace animpack {

struct PackWriteOptions {
  // LZ4-compress each blob (vertex streams, pixels) when that makes it smaller.
  bool compress = true;
};

// Serialises a cooked pack (format kPackFormatVersion). Preconditions: the pack's indices
// are consistent (the cooker's checks ran); Pack::open verifies the result anyway.
std::vector<uint8_t> write_pack(const CookedPack& pack, const PackWriteOptions& options = {});

// Writes bytes to `path` through a temporary file in the same folder, renamed over it at
// the end: a failure never leaves a partial file or touches a previous one. Returns ""
// on success, else a message naming the path and the reason.
std::string write_file_atomically(const std::filesystem::path& path,
                                  std::span<const uint8_t> bytes);

}  // namespace animpack
