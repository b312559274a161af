// Reading one input file of the cooker (the scene, a glTF or GLB, a .bin buffer, an atlas
// PNG): the one place where the cooker opens what a scene names. The file must be a regular
// file (not a folder, FIFO, socket or device: those are refused before anything is read,
// so nothing blocks on a FIFO or reads /dev/zero forever) of at most `max_bytes` bytes
// (checked on the open file before it is read). Never throws.
//
//   animpack::InputFile in =
//       animpack::read_input_file("art/hero.png", animpack::kMaxAtlasFileBytes);
//   if (!in.ok()) report(in.error);  // "art/hero.png is a folder, not a file"
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace animpack {

// The largest scene file (TOML) the cooker reads.
inline constexpr uint64_t kMaxSceneFileBytes = uint64_t{64} << 20;
// The largest sprite atlas PNG file the cooker reads.
inline constexpr uint64_t kMaxAtlasFileBytes = uint64_t{256} << 20;

struct InputFile {
  std::vector<uint8_t> bytes;  // the file's first `want` bytes (all of it without `want`)
  uint64_t size = 0;           // the file's size when it could be found out, else 0
  // Empty on success; else a sentence fragment that starts with the path: "PATH is a
  // folder, not a file", "PATH is a FIFO, not a regular file", "PATH has N bytes; the
  // limit is M", "PATH does not exist", "PATH cannot be opened: Permission denied", ...
  std::string error;
  // True when the error is that the file is shorter than `want`.
  bool too_short = false;
  bool ok() const { return error.empty(); }
};

// Reads `path` if it is a regular file of at most `max_bytes` bytes. With `want`, reads
// only the first `want` bytes and refuses a file shorter than that (too_short); the size
// limit then applies to `want`, not to the file.
// The system's message for an errno value ("Permission denied"), like std::strerror but
// safe to call from several threads at once (strerror_r into a local buffer).
std::string error_text(int err);

InputFile read_input_file(const std::filesystem::path& path, uint64_t max_bytes,
                          std::optional<uint64_t> want = std::nullopt);

}  // namespace animpack
