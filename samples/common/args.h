// Command-line values for the samples: a bounded integer, a WxH size.
//
//   for (int i = 2; i < argc; ++i) {
//     if (std::strcmp(argv[i], "--ticks") == 0) {
//       if (!animpack::samples::next_number(argc, argv, &i, 1, 100000, &ticks)) return usage();
//     } else if (std::strcmp(argv[i], "--size") == 0) {
//       if (!animpack::samples::next_size(argc, argv, &i, 16, 4096, &width, &height)) ...
#pragma once

#include <cstdlib>

namespace animpack::samples {

// Reads argv[*i + 1] as a decimal integer in [lo, hi] into *out and moves *i to it; false
// when there is no such argument or it is not one (trailing characters included).
inline bool next_number(int argc, char** argv, int* i, long lo, long hi, long* out) {
  if (*i + 1 >= argc) return false;
  char* end = nullptr;
  *out = std::strtol(argv[++*i], &end, 10);
  return end != argv[*i] && *end == '\0' && *out >= lo && *out <= hi;
}

// Reads argv[*i + 1] as WIDTHxHEIGHT, each a decimal integer in [lo, hi], and moves *i to
// it; false otherwise.
inline bool next_size(int argc, char** argv, int* i, long lo, long hi, long* width, long* height) {
  if (*i + 1 >= argc) return false;
  char* end = nullptr;
  const char* text = argv[++*i];
  *width = std::strtol(text, &end, 10);
  if (end == text || *end != 'x') return false;
  const char* second = end + 1;
  *height = std::strtol(second, &end, 10);
  return end != second && *end == '\0' && *width >= lo && *width <= hi && *height >= lo &&
         *height <= hi;
}

}  // namespace animpack::samples
