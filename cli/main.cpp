// animpack: the command line. `animpack --help` lists the subcommands; each lives in its
// own file (commands.h says how one is written), parsed by CLI11.
// Exit status: 0 clean, 1 the inputs have errors, 2 usage or I/O failure.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "animpack/compiler/diagnostics.h"
#include "animpack/compiler/import_assimp.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "commands.h"
#include "suggest.h"

#ifndef ANIMPACK_VERSION
#define ANIMPACK_VERSION "0.0.0"
#endif

namespace animpack::cli {
namespace {

const char* const kUsage =
    "usage: animpack <command> [options]\n"
    "\n"
    "commands:\n"
    "  cook SCENE.toml -o OUT.anpk   check a scene and every asset it names, write one pack\n"
    "  cook SCENE.toml... -o DIR [--jobs N]\n"
    "                                several scenes on N threads, a pack each, a summary\n"
    "  check SCENE.toml...           every check of cook, no output file\n"
    "  inspect PACK.anpk [--json]    what a pack holds, and where its bytes go\n"
    "  info MODEL [--json]           what a model file offers, and its problems\n"
    "  play PACK.anpk --ticks N      step the scene: events and poses per tick [--script F]\n"
    "  pose PACK.anpk --object NAME --tick T [--json]\n"
    "                                one object's joints and vertices at a tick\n"
    "  preview PACK.anpk --object NAME -o OUT.png\n"
    "                                traced filmstrips of an object's clips as one PNG\n"
    "  retarget SOURCE TARGET [-o OUT.anpk | --dry-run]\n"
    "                                SOURCE's clips on TARGET's skeleton: pairing, pack\n"
    "\n"
    "  animpack <command> --help     the command's options\n"
    "  animpack --version            the version and Assimp's trial program\n"
    "\n"
    "exit status: 0 clean, 1 the inputs have errors, 2 usage or I/O failure\n";

// CLI11's parse error as one usage line naming the option, for the subcommand being parsed
// (or the tool).
int parse_error(const CLI::App& app, const CLI::ParseError& e) {
  const std::vector<CLI::App*> subs = app.get_subcommands();
  const CLI::App* command = subs.empty() ? nullptr : subs.front();
  std::string problem = e.what();
  const size_t colon = problem.find(": ");
  const std::string name = colon == std::string::npos ? "" : problem.substr(0, colon);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr &&
      problem.find(" required ") != std::string::npos &&
      problem.find(" missing") != std::string::npos) {
    problem = name + " needs a value";  // "--clip: 1 required TEXT missing"
  } else if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr && !name.empty()) {
    problem = problem.substr(colon + 2);  // our validators name the option themselves
  } else if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && colon != std::string::npos) {
    // "The following argument(s) were not expected: X"; the tool's own arguments only
    // (subcommands collect theirs for on_run).
    const std::string rest = problem.substr(colon + 2);
    const std::string arg = rest.substr(rest.rfind(' ') + 1);
    problem = "unknown option '" + printable(arg) + "'" + option_suggestion(app, arg);
  }
  if (command != nullptr) return usage_error(*command, problem);
  std::fprintf(stderr, "animpack: %s; see animpack --help\n", problem.c_str());
  return kExitUsage;
}

int dispatch(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  CLI::App app("animpack: an offline animation asset compiler", "animpack");
  app.formatter_fn(
      [](const CLI::App*, std::string, CLI::AppFormatMode) { return std::string(kUsage); });
  bool version = false;
  app.add_flag("--version", version, "the version");
  int status = kExitOk;
  add_cook_commands(app, &status);
  add_inspect_command(app, &status);
  add_info_command(app, &status);
  add_play_commands(app, &status);
  add_preview_command(app, &status);
  add_retarget_command(app, &status);

  const std::string_view command = argv[1];
  if (command == "help") {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  const auto named = [&](const CLI::App* sub) { return sub->check_name(std::string(command)); };
  if (!command.empty() && command[0] != '-' && app.get_subcommands(named).empty()) {
    // The closest command when one is near ("did you mean"), else the command list.
    std::vector<std::string> names{"help"};
    const CLI::App& tool = app;
    for (const CLI::App* sub : tool.get_subcommands(nullptr)) names.push_back(sub->get_name());
    if (const std::string near = closest_name(command, names); !near.empty()) {
      std::fprintf(stderr, "animpack: unknown command '%s'; did you mean '%s'?\n",
                   printable(command).c_str(), near.c_str());
    } else {
      std::fprintf(stderr, "animpack: unknown command '%s'\n\n%s", printable(command).c_str(),
                   kUsage);
    }
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    return parse_error(app, e);
  }
  if (version) {
    std::printf("animpack %s (pack format %u)\n", ANIMPACK_VERSION, kPackFormatVersion);
    // Where FBX and Collada files get their trial read (import_assimp.h), or where it was
    // looked for: what a broken install shows first.
    const AssimpTrialProgram trial = find_assimp_trial_program();
    if (!trial.path.empty()) {
      std::printf("assimp trial read: %s\n", trial.path.c_str());
    } else {
      std::printf("assimp trial read: animpack-assimp-trial not found (looked for %s)\n",
                  trial.looked.c_str());
    }
    return kExitOk;
  }
  if (app.get_subcommands().empty()) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  return status;
}

}  // namespace
}  // namespace animpack::cli

// Nothing escapes main: an unexpected failure is a message and exit status 2, never a
// stack trace or std::terminate. A signal that ends a cook removes its temporary files.
int main(int argc, char** argv) {
  animpack::install_temp_file_cleanup();
  try {
    return animpack::cli::dispatch(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fputs("animpack: out of memory\n", stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "animpack: internal error: %s\n", e.what());
  } catch (...) {
    std::fputs("animpack: internal error\n", stderr);
  }
  return animpack::cli::kExitUsage;
}
