#include "animpack/compiler/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace animpack {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "is a folder, not a file";
  if (S_ISFIFO(mode)) return "is a FIFO, not a regular file";
  if (S_ISCHR(mode)) return "is a character device, not a regular file";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

// strerror_r is the GNU one (returns the message) or the XSI one (fills the buffer).
[[maybe_unused]] const char* message_of(const char* gnu, const char*) { return gnu; }
[[maybe_unused]] const char* message_of(int xsi, const char* buffer) {
  return xsi == 0 ? buffer : "unknown error";
}

// Closes the descriptor on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string error_text(int err) {
  char buffer[256] = {};
  return message_of(strerror_r(err, buffer, sizeof buffer), buffer);
}

InputFile read_input_file(const std::filesystem::path& path, uint64_t max_bytes,
                          std::optional<uint64_t> want) {
  InputFile out;
  const std::string shown = path.string();
  if (shown.empty()) {
    out.error = "(an empty path) cannot be opened";
    return out;
  }
  if (shown.find('\0') != std::string::npos) {  // open() would read the name only up to it
    out.error = shown + " has a NUL character in its name";
    return out;
  }
  // O_NONBLOCK: opening a FIFO without a writer must not block; it is refused below.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
  if (f.fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      out.error = shown + " does not exist";
    } else {
      out.error = shown + " cannot be opened: " + error_text(err);
    }
    return out;
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    out.error = shown + " cannot be read: " + error_text(errno);
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.error = shown + " " + kind_of(st.st_mode);
    return out;
  }
  const uint64_t size = st.st_size < 0 ? 0 : static_cast<uint64_t>(st.st_size);
  out.size = size;
  const uint64_t n = want.value_or(size);
  if (n > size) {
    out.too_short = true;
    out.error = shown + " has " + std::to_string(size) + " bytes, fewer than the " +
                std::to_string(n) + " it must have";
    return out;
  }
  if (n > max_bytes) {
    out.error =
        shown + " has " + std::to_string(n) + " bytes; the limit is " + std::to_string(max_bytes);
    return out;
  }
  try {
    out.bytes.resize(static_cast<size_t>(n));
  } catch (const std::bad_alloc&) {
    out.error = shown + ": out of memory for its " + std::to_string(n) + " bytes";
    return out;
  }
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(f.fd, out.bytes.data() + done, static_cast<size_t>(n) - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      out.error = shown + " cannot be read: " + error_text(errno);
      out.bytes.clear();
      return out;
    }
    if (got == 0) {  // it shrank while being read
      out.error = shown + " changed while it was read (it has fewer than " + std::to_string(n) +
                  " bytes now)";
      out.bytes.clear();
      return out;
    }
    done += static_cast<size_t>(got);
  }
  return out;
}

}  // namespace animpack
