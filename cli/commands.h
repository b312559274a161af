// The `animpack` command line: CLI11 (Debian's libcli11-dev) parses, the libraries do the
// work. main.cpp builds the CLI::App, calls every add_*_command below, parses and returns
// the status the command's run function left; each subcommand lives in its own file.
//
// How a subcommand file is written (follow it for a new one):
//
//   // cli/frob.cpp
//   namespace animpack::cli {
//   namespace {
//   const char* const kFrobUsage = "usage: animpack frob PACK.anpk [--level N]\n...";
//   struct FrobOptions { std::vector<std::string> positional; int64_t level = 1; };
//   int run_frob(const FrobOptions& o) { ... return kExitOk; }  // thin: calls a library
//   }  // namespace
//   void add_frob_command(CLI::App& app, int* status) {
//     CLI::App* sub = add_command(app, "frob", "what frob does", kFrobUsage);
//     auto o = std::make_shared<FrobOptions>();
//     sub->add_option("PACK", o->positional);
//     sub->add_option("--level", o->level)->check(whole_number("--level", 1, 9));
//     on_run(sub, status, [sub, o] {
//       if (o->positional.size() != 1) return usage_error(*sub, "needs one PACK.anpk");
//       return run_frob(*o);
//     });
//   }
//   }  // namespace animpack::cli
//
// then declare add_frob_command here, call it in main.cpp, list the file in
// cli/CMakeLists.txt, add the command to main.cpp's kUsage and to docs/cli.md.
//
// Rules: the usage text is the subcommand's --help (printed as written, on stdout, exit
// 0); a usage error (unknown option, missing value, a value a validator refuses, a wrong
// number of positionals) is one line on stderr, "animpack: PROBLEM; see animpack CMD
// --help", exit 2 (usage_error; main.cpp turns CLI11's parse errors into the same line).
// Options taking one value keep the last when given twice; repeatable ones bind a vector.
// Validators (whole_number, or CLI::Validator lambdas) return the whole message, starting
// with the option's name. Exit status: 0 clean, 1 the inputs have errors, 2 usage or I/O.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <string>

namespace animpack {
struct MachineSettings;  // play_commands.h
}  // namespace animpack

namespace animpack::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitErrors = 1;
inline constexpr int kExitUsage = 2;

// The subcommands, one file each: cook.cpp (cook and check), inspect.cpp, info.cpp, play.cpp (play
// and pose), preview.cpp, retarget.cpp. Each registers its options and a run callback
// that stores the command's exit status in *status.
void add_cook_commands(CLI::App& app, int* status);
void add_inspect_command(CLI::App& app, int* status);
void add_info_command(CLI::App& app, int* status);
void add_play_commands(CLI::App& app, int* status);
void add_preview_command(CLI::App& app, int* status);
void add_retarget_command(CLI::App& app, int* status);

// A subcommand `name` of `app` whose --help prints `usage` as written; `summary` is its
// one-line description. Unknown arguments are collected (on_run refuses them) and an
// option given twice keeps its last value.
CLI::App* add_command(CLI::App& app, const char* name, const char* summary, const char* usage);

// Sets `command`'s callback: a usage error for the first argument no option took (an
// unknown option, or an extra positional), else *status = run().
void on_run(CLI::App* command, int* status, std::function<int()> run);

// pose's and preview's --set PARAMETER=VALUE (repeatable, in order) and --state STATE on
// `command`, into *settings (parse_setting checks each --set as it is given).
void add_machine_options(CLI::App* command, MachineSettings* settings);

// Prints "animpack: PROBLEM; see animpack CMD --help" on stderr; returns kExitUsage.
int usage_error(const CLI::App& command, const std::string& problem);

// A validator for an integer option: digits (a leading minus allowed when lo < 0) from
// lo to hi, else "NAME takes a whole number from LO to HI, not 'TEXT'".
CLI::Validator whole_number(const std::string& name, int64_t lo, int64_t hi);

}  // namespace animpack::cli
