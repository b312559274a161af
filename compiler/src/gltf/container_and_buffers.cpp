// glTF reader: the container (GLB header and chunks, or plain JSON), the JSON parse,
// data: URIs and external files, and the buffers and buffer views stages (glTF 2.0 "GLB
// File Format Specification", "Buffers and Buffer Views").

#include <cctype>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>

#include "animpack/compiler/input_file.h"
#include "reader_internal.h"

namespace animpack::gltf_internal {

namespace {

constexpr uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942;   // "BIN\0"
constexpr uint64_t kGlbHeaderSize = 12;
constexpr uint64_t kChunkHeaderSize = 8;

// ---------------------------------------------------------------------------------------
// URIs and files

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

// RFC 3986 percent-decoding; nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

namespace {

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// RFC 4648 base64, "=" padding optional; nullopt on any other character.
std::optional<std::vector<uint8_t>> base64_decode(std::string_view s) {
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  if (s.size() % 4 == 1) return std::nullopt;
  std::vector<uint8_t> out;
  out.reserve(s.size() / 4 * 3 + 2);
  uint32_t bits = 0;
  int nbits = 0;
  for (char c : s) {
    const int v = base64_value(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out.push_back(static_cast<uint8_t>(bits >> nbits));
      bits &= (1u << nbits) - 1;
    }
  }
  return out;
}

}  // namespace

// "data:[<media type>][;base64],<data>" (RFC 2397).
std::optional<std::vector<uint8_t>> decode_data_uri(std::string_view uri) {
  const size_t comma = uri.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  const std::string_view header = uri.substr(5, comma - 5);
  const std::string_view payload = uri.substr(comma + 1);
  if (header.size() >= 7 && header.substr(header.size() - 7) == ";base64") {
    return base64_decode(payload);
  }
  std::optional<std::string> text = percent_decode(payload);
  if (!text) return std::nullopt;
  return std::vector<uint8_t>(text->begin(), text->end());
}

// Whether a URI reference starts with a scheme ("http:", "file:", "C:").
bool has_scheme(std::string_view uri) {
  if (uri.empty() || !std::isalpha(static_cast<unsigned char>(uri[0]))) return false;
  for (char c : uri) {
    if (c == ':') return true;
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') {
      return false;
    }
  }
  return false;
}

// Reads the first `want` bytes of a file (all of it when want is nullopt) through the
// cooker's one input reader (regular files of bounded size only); out_size gets the file's
// size, *why the reason when it cannot be opened or read.
ReadStatus read_file(const std::filesystem::path& path, std::optional<uint64_t> want,
                     std::vector<uint8_t>* out, uint64_t* out_size, std::string* why) {
  InputFile in = read_input_file(path, kGltfMaxDecodedBytes, want);
  *out_size = in.size;
  if (in.ok()) {
    *out = std::move(in.bytes);
    return ReadStatus::kOk;
  }
  if (in.too_short) return ReadStatus::kTooShort;
  if (in.size > 0 && want.value_or(in.size) > kGltfMaxDecodedBytes) return ReadStatus::kTooLarge;
  *why = std::move(in.error);
  return ReadStatus::kCannotOpen;
}

namespace {

std::string chunk_name(uint32_t type) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", type);
  return text;
}

}  // namespace

// The GLB header and chunk table, checked against the data's real size before anything
// is read, so a header claiming gigabytes fails at once.
Container read_glb(std::span<const uint8_t> bytes, Issues& issues) {
  Container c;
  c.is_glb = true;
  const uint64_t size = bytes.size();
  if (size < kGlbHeaderSize) {
    issues.error_at(static_cast<int64_t>(size), "GLB_UNEXPECTED_END_OF_HEADER",
                    "Unexpected end of header: the file has " + std::to_string(size) +
                        " bytes, a GLB header needs 12.");
    return c;
  }
  const uint32_t magic = read_u32(bytes.data());
  const uint32_t version = read_u32(bytes.data() + 4);
  const uint64_t length = read_u32(bytes.data() + 8);
  if (magic != kGlbMagic) {
    issues.error_at(0, "GLB_INVALID_MAGIC", "Invalid GLB magic value " + chunk_name(magic) + ".");
    return c;
  }
  if (version != 2) {
    issues.error_at(4, "GLB_INVALID_VERSION",
                    "Invalid GLB version value " + std::to_string(version) + ".");
    return c;
  }
  if (length < kGlbHeaderSize + kChunkHeaderSize) {
    issues.error_at(8, "GLB_LENGTH_TOO_SMALL",
                    "Declared GLB length (" + std::to_string(length) + ") is too small.");
    return c;
  }
  if (length > size) {
    issues.error_at(8, "GLB_LENGTH_MISMATCH",
                    "Declared length (" + std::to_string(length) + ") is larger than the file (" +
                        std::to_string(size) + " bytes).");
    return c;
  }
  if (length < size) {
    issues.warning_at(
        static_cast<int64_t>(length), "GLB_EXTRA_DATA",
        std::to_string(size - length) + " byte(s) after the end of the GLB stream are ignored.");
  }

  const size_t errors_before = issues.errors();
  bool has_json = false;
  uint64_t pos = kGlbHeaderSize;
  for (int chunk = 0; pos < length; ++chunk) {
    const int64_t at = static_cast<int64_t>(pos);
    if (length - pos < kChunkHeaderSize) {
      issues.error_at(at, "GLB_UNEXPECTED_END_OF_CHUNK_HEADER", "Unexpected end of chunk header.");
      return c;
    }
    const uint64_t chunk_length = read_u32(bytes.data() + pos);
    const uint32_t type = read_u32(bytes.data() + pos + 4);
    if (chunk_length > length - pos - kChunkHeaderSize) {
      issues.error_at(at, "GLB_CHUNK_TOO_BIG",
                      "Chunk (" + chunk_name(type) + ") length (" + std::to_string(chunk_length) +
                          ") does not fit total GLB length (" + std::to_string(length) + ").");
      return c;
    }
    if (chunk_length % 4 != 0) {
      issues.error_at(at, "GLB_CHUNK_LENGTH_UNALIGNED",
                      "Length of " + chunk_name(type) + " chunk is not aligned to 4 bytes.");
    }
    if (chunk == 0 && type != kChunkJson) {
      issues.error_at(at, "GLB_UNEXPECTED_FIRST_CHUNK",
                      "First chunk must be of JSON type. Found " + chunk_name(type) + " instead.");
    }
    const std::span<const uint8_t> data = bytes.subspan(static_cast<size_t>(pos + kChunkHeaderSize),
                                                        static_cast<size_t>(chunk_length));
    if (type == kChunkJson) {
      if (chunk_length == 0) {
        issues.error_at(at, "GLB_EMPTY_CHUNK", "The JSON chunk cannot have zero length.");
      }
      if (has_json) {
        issues.error_at(at, "GLB_DUPLICATE_CHUNK", "A second JSON chunk.");
      } else {
        has_json = true;
        c.json = data;
        c.json_offset = static_cast<int64_t>(pos + kChunkHeaderSize);
      }
    } else if (type == kChunkBin) {
      if (c.has_bin) {
        issues.error_at(at, "GLB_DUPLICATE_CHUNK", "A second BIN chunk.");
      } else {
        if (chunk > 1) {  // chunk 0 is reported as not being JSON
          issues.error_at(at, "GLB_UNEXPECTED_BIN_CHUNK", "BIN chunk must be the second chunk.");
        }
        c.has_bin = true;
        c.bin = data;
      }
    } else {
      issues.warning_at(at, "GLB_UNKNOWN_CHUNK_TYPE",
                        "Unknown GLB chunk type " + chunk_name(type) + " (skipped).");
    }
    pos += kChunkHeaderSize + chunk_length;
  }
  c.ok = has_json && issues.errors() == errors_before;
  return c;
}

// Parses the JSON text; syntax errors carry their byte offset in the file.
std::optional<json> parse_json(std::span<const uint8_t> text, int64_t offset, Issues& issues) {
  if (text.size() >= 3 && text[0] == 0xEF && text[1] == 0xBB && text[2] == 0xBF) {
    issues.error_at(offset, "INVALID_JSON",
                    "Invalid JSON data: a byte order mark at the start of the UTF-8 stream.");
    return std::nullopt;
  }
  try {
    json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/true,
                            /*ignore_comments=*/false);
    if (!root.is_object()) {
      issues.error("/", "INVALID_JSON",
                   std::string("The JSON root is ") + root.type_name() + ", not an object.");
      return std::nullopt;
    }
    return root;
  } catch (const json::parse_error& e) {
    // e.byte counts from 1; the offset is of the byte where parsing stopped.
    const int64_t at = offset + static_cast<int64_t>(e.byte > 0 ? e.byte - 1 : 0);
    issues.error_at(at, "INVALID_JSON",
                    "Invalid JSON data at byte " + std::to_string(at) + ": " + e.what());
    return std::nullopt;
  } catch (const json::exception& e) {  // e.g. out_of_range 406: a number overflows a double
    issues.error_at(offset, "INVALID_JSON", std::string("Invalid JSON data: ") + e.what());
    return std::nullopt;
  }
}

// ---------------------------------------------------------------------------------------
// Stage: buffers

// Reads `length` bytes of the buffer file `relative` (to the glTF's folder) into *out;
// false after reporting why not.
bool read_buffer_file(Reader& r, const std::string& relative, uint64_t length,
                      const std::string& at, std::vector<uint8_t>* out) {
  const std::filesystem::path file = (r.base_dir / relative).lexically_normal();
  uint64_t file_size = 0;
  std::string why;
  const ReadStatus status = read_file(file, length, out, &file_size, &why);
  if (status == ReadStatus::kCannotOpen) {
    r.issues.error(ptr(at, "uri"), "IO_ERROR", "Resource not found or unreadable (" + why + ").");
    return false;
  }
  r.doc.files.push_back(file);  // a depfile must name it even when it is too short
  if (status == ReadStatus::kTooShort) {
    r.issues.error(at, "BUFFER_BYTE_LENGTH_MISMATCH",
                   "Actual data byte length (" + std::to_string(file_size) +
                       ") is less than the declared buffer byte length (" + std::to_string(length) +
                       ").");
    return false;
  }
  return status == ReadStatus::kOk;  // kTooLarge cannot happen: the caller charged length
}

void read_buffers(Reader& r) {
  const json* array = top_array(r, "buffers");
  if (!array) return;
  r.buffers.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/buffers", i);
    BufferState& buf = r.buffers[i];
    buf.failed = true;  // until the data is in hand
    const json* b = element_object(r, *array, i, at);
    if (!b) continue;
    const std::optional<uint64_t> length =
        get_uint(r.issues, *b, at, "byteLength", Need::kRequired, 1);
    const json* uri_value = find(*b, "uri");
    const std::optional<std::string> uri = get_string(r.issues, *b, at, "uri", Need::kOptional);
    if (!length || (uri_value && !uri)) continue;
    buf.byte_length = *length;

    if (!uri) {
      if (i == 0 && r.container.is_glb) {
        if (!r.container.has_bin) {
          r.issues.error(at, "BUFFER_MISSING_GLB_DATA",
                         "Buffer refers to an unresolved GLB binary chunk.");
          continue;
        }
        const uint64_t have = r.container.bin.size();
        if (have < *length) {
          r.issues.error(at, "BUFFER_BYTE_LENGTH_MISMATCH",
                         "Actual data byte length (" + std::to_string(have) +
                             ") is less than the declared buffer byte length (" +
                             std::to_string(*length) + ").");
          continue;
        }
        const uint64_t padded = (*length + 3) & ~uint64_t{3};
        if (have > padded) {
          r.issues.warning(at, "BUFFER_GLB_CHUNK_TOO_BIG",
                           "GLB-stored BIN chunk contains " + std::to_string(have - padded) +
                               " extra padding byte(s).");
        }
        buf.data = r.container.bin.first(static_cast<size_t>(*length));
        buf.has_data = true;
      }
      buf.failed = false;  // a placeholder without data unless it is the GLB buffer
      continue;
    }

    const std::string uri_at = ptr(at, "uri");
    if (uri->rfind("data:", 0) == 0) {
      std::optional<std::vector<uint8_t>> bytes = decode_data_uri(*uri);
      if (!bytes) {
        r.issues.error(uri_at, "INVALID_URI", "Invalid data: URI (malformed base64 or escapes).");
        continue;
      }
      buf.owned = std::move(*bytes);
    } else {
      const std::optional<std::string> relative = percent_decode(*uri);
      if (!relative || relative->empty() || has_scheme(*uri) || relative->front() == '/' ||
          relative->front() == '\\' || std::filesystem::path(*relative).is_absolute()) {
        r.issues.error(
            uri_at, "INVALID_URI",
            "Buffer uri " + in_quotes(*uri) + " must be a data: URI or a relative file path.");
        continue;
      }
      if (!r.charge(*length, at) || !read_buffer_file(r, *relative, *length, at, &buf.owned)) {
        continue;
      }
    }
    if (buf.owned.size() < *length) {
      r.issues.error(at, "BUFFER_BYTE_LENGTH_MISMATCH",
                     "Actual data byte length (" + std::to_string(buf.owned.size()) +
                         ") is less than the declared buffer byte length (" +
                         std::to_string(*length) + ").");
      continue;
    }
    buf.data = std::span<const uint8_t>(buf.owned).first(static_cast<size_t>(*length));
    buf.has_data = true;
    buf.failed = false;
  }
}

// ---------------------------------------------------------------------------------------
// Stage: buffer views

void read_buffer_views(Reader& r) {
  const json* array = top_array(r, "bufferViews");
  if (!array) return;
  r.views.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/bufferViews", i);
    const json* v = element_object(r, *array, i, at);
    if (!v) continue;
    const size_t errors_before = r.issues.errors();
    const std::optional<int> buffer =
        get_index(r.issues, *v, at, "buffer", r.buffers.size(), Need::kRequired);
    const std::optional<uint64_t> length =
        get_uint(r.issues, *v, at, "byteLength", Need::kRequired, 1);
    const uint64_t offset = get_uint(r.issues, *v, at, "byteOffset", Need::kOptional).value_or(0);
    const std::optional<uint64_t> stride =
        get_uint(r.issues, *v, at, "byteStride", Need::kOptional, 4, 252);
    if (stride && *stride % 4 != 0) {
      r.issues.error(ptr(at, "byteStride"), "VALUE_MULTIPLE_OF",
                     "Value " + std::to_string(*stride) + " is not a multiple of 4.");
    }
    if (r.issues.errors() != errors_before || !buffer || !length) continue;
    const BufferState& buf = r.buffers[static_cast<size_t>(*buffer)];
    if (buf.failed) continue;  // the buffer's error stands for this view too
    if (offset >= buf.byte_length || *length > buf.byte_length - offset) {
      r.issues.error(
          ptr(at, offset >= buf.byte_length ? "byteOffset" : "byteLength"), "BUFFER_VIEW_TOO_LONG",
          "BufferView (offset " + std::to_string(offset) + ", length " + std::to_string(*length) +
              ") does not fit buffer (" + std::to_string(*buffer) + ") byteLength (" +
              std::to_string(buf.byte_length) + ").");
      continue;
    }
    if (stride && *stride > *length) {
      r.issues.error(ptr(at, "byteStride"), "BUFFER_VIEW_TOO_BIG_BYTE_STRIDE",
                     "Buffer view's byteStride (" + std::to_string(*stride) +
                         ") is greater than byteLength (" + std::to_string(*length) + ").");
      continue;
    }
    ViewState& view = r.views[i];
    view.valid = true;
    view.buffer = *buffer;
    view.offset = offset;
    view.length = *length;
    view.stride = static_cast<uint32_t>(stride.value_or(0));
  }
}

// The bytes of a valid view; nullopt when its buffer is a placeholder without data (which
// is only an error for data someone needs: see need_data).
std::optional<std::span<const uint8_t>> view_bytes(const Reader& r, int view) {
  const ViewState& v = r.views[static_cast<size_t>(view)];
  const BufferState& buf = r.buffers[static_cast<size_t>(v.buffer)];
  if (!buf.has_data) return std::nullopt;
  return buf.data.subspan(static_cast<size_t>(v.offset), static_cast<size_t>(v.length));
}

}  // namespace animpack::gltf_internal
