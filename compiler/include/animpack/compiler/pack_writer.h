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
  // With compress: also try meshoptimizer's lossless codecs on vertex streams and index
  // lists (alone and under LZ4; format 6), keeping whichever is smallest.
  bool meshopt = true;
  // Tests: 0 keeps the smallest; a schema Compression value (2-7) stores every blob that
  // codec can take that way, smaller or not, and every other blob raw.
  uint8_t only_codec = 0;
};

// Serialises a cooked pack (format kPackFormatVersion). Preconditions: the pack's indices
// are consistent (the cooker's checks ran); Pack::open verifies the result anyway.
std::vector<uint8_t> write_pack(const CookedPack& pack, const PackWriteOptions& options = {});

// A file written in two steps: write() puts the bytes in a hidden temporary file next to
// `path` (".NAME.tmpXXXXXX"), commit() renames it over `path`. Until then `path` is
// untouched; the temporary file is removed by discard(), by the destructor, and (after
// install_temp_file_cleanup()) when SIGINT, SIGTERM, SIGHUP or SIGQUIT ends the process.
// Several pending files let a caller write all its outputs before it replaces any.
// Functions return "" on success, else a message naming the path and the reason.
class PendingFile {
 public:
  PendingFile() = default;
  ~PendingFile();
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;

  std::string write(const std::filesystem::path& path, std::span<const uint8_t> bytes);
  std::string commit();
  void discard();
  // The temporary file while one is pending, else "".
  const std::string& temp_path() const { return slot_ >= 0 ? tmp_ : empty_; }

 private:
  std::filesystem::path path_;
  std::string tmp_;
  std::string empty_;
  int slot_ = -1;  // the signal handler's record of tmp_; -1 when nothing is pending
};

// Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT (not for one that is ignored)
// that remove every pending temporary file, then die of the same signal. For programs.
void install_temp_file_cleanup();
// What those handlers do first: removes every pending temporary file (async-signal-safe).
void remove_pending_temp_files();

// Writes bytes to `path` through a PendingFile: a failure never leaves a partial file or
// touches a previous one.
std::string write_file_atomically(const std::filesystem::path& path,
                                  std::span<const uint8_t> bytes);

}  // namespace animpack
