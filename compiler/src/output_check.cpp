#include "animpack/compiler/output_check.h"

#include <sys/stat.h>

#include <system_error>

namespace animpack {
namespace fs = std::filesystem;

FileIdentity identity_of(const fs::path& p) {
  FileIdentity id;
  std::error_code ec;
  id.normal = fs::weakly_canonical(fs::absolute(p, ec), ec);
  if (ec) id.normal = fs::absolute(p, ec).lexically_normal();
  struct stat st {};
  if (::stat(p.c_str(), &st) == 0) {
    id.exists = true;
    id.regular = S_ISREG(st.st_mode);
    id.kind = S_ISDIR(st.st_mode)    ? "a folder"
              : S_ISFIFO(st.st_mode) ? "a FIFO"
              : S_ISCHR(st.st_mode)  ? "a character device"
              : S_ISBLK(st.st_mode)  ? "a block device"
              : S_ISSOCK(st.st_mode) ? "a socket"
                                     : "not a regular file";
    id.dev = st.st_dev;
    id.ino = st.st_ino;
  }
  return id;
}

namespace {

bool same_file(const FileIdentity& a, const FileIdentity& b) {
  if (a.exists && b.exists) return a.dev == b.dev && a.ino == b.ino;
  return a.normal == b.normal;
}

}  // namespace

std::string output_problem(const fs::path& out, const char* role,
                           const std::vector<fs::path>& inputs, const fs::path* other,
                           const char* other_role) {
  const FileIdentity id = identity_of(out);
  if (id.exists && !id.regular) {
    return "refusing to write the " + std::string(role) + " " + out.string() + ": it is " +
           id.kind + ", not a regular file";
  }
  for (const fs::path& in : inputs) {
    if (same_file(id, identity_of(in))) {
      return "refusing to write the " + std::string(role) + " " + out.string() +
             ": it is the input " + in.string() + ", which would be overwritten";
    }
  }
  if (other && same_file(id, identity_of(*other))) {
    return "refusing to write the " + std::string(role) + " " + out.string() + ": it is also the " +
           other_role;
  }
  return {};
}

}  // namespace animpack
