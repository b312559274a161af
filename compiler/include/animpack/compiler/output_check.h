// Checks on the files the animpack command writes (the pack, the depfile, preview's PNG):
// never over an input, over each other, or over something that is not a regular file.
// Public since Step 7: the cooking library's cook_one (batch_cook.h) checks its outputs
// with it, and so do cli/'s preview and retarget.
//
//   std::string why = animpack::output_problem("out.anpk", "pack", inputs, nullptr, "");
//   if (!why.empty()) refuse(why);  // "refusing to write the pack out.anpk: it is a folder..."
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace animpack {

// What a path names on disk, for telling whether two paths are one file: the device and
// inode when it exists, else its absolute normalised path.
struct FileIdentity {
  bool exists = false;
  bool regular = false;
  const char* kind = "";  // what it is when it exists and is not a regular file
  dev_t dev = 0;
  ino_t ino = 0;
  std::filesystem::path normal;
};

FileIdentity identity_of(const std::filesystem::path& p);

// Why `out` (`role`: "pack", "depfile", "PNG") must not be written, or "": it is an
// existing folder, FIFO or device, or the same file (device and inode; else the same
// normalised absolute path) as one of `inputs` or as `other` (another output, called
// `other_role` in the message).
std::string output_problem(const std::filesystem::path& out, const char* role,
                           const std::vector<std::filesystem::path>& inputs,
                           const std::filesystem::path* other, const char* other_role);

}  // namespace animpack
