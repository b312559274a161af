// The samples' command lines, parsed by CLI11 (Debian's libcli11-dev) like `animpack`'s.
//
//   CLI::App app;
//   long ticks = 240;
//   std::string pack;
//   animpack::samples::add_number(app, "--ticks", 1, 100000, &ticks);
//   app.add_option("PACK", pack)->required();
//   if (const int status = animpack::samples::parse(app, argc, argv, "play_pack", kUsage);
//       status >= 0)
//     return status;
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace animpack::samples {

// A decimal integer option `name` ("--ticks") from lo to hi into *out (the last wins when
// given twice); anything else is a usage error.
CLI::Option* add_number(CLI::App& app, const std::string& name, long lo, long hi, long* out);

// A WIDTHxHEIGHT option `name`, each a decimal integer from lo to hi, into *width and
// *height; anything else is a usage error.
CLI::Option* add_size(CLI::App& app, const std::string& name, long lo, long hi, long* width,
                      long* height);

// Parses argv into `app`'s options. --help (or -h) prints `usage` on stdout: returns 0. A
// usage error (an unknown option or extra argument, a missing or bad value, a missing
// required positional) prints "NAME: PROBLEM" and `usage` on stderr: returns 2. Returns
// -1 when the sample should go on.
int parse(CLI::App& app, int argc, char** argv, const char* name, const char* usage);

// Prints `usage` on stderr and returns 2: for a check the sample makes after parse.
int usage_error(const char* usage);

}  // namespace animpack::samples
