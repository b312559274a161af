// The helpers every subcommand file shares (commands.h).
#include "commands.h"

#include <charconv>
#include <cstdio>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include "animpack/compiler/diagnostics.h"
#include "suggest.h"

namespace animpack::cli {

CLI::App* add_command(CLI::App& app, const char* name, const char* summary, const char* usage) {
  CLI::App* sub = app.add_subcommand(name, summary);
  sub->formatter_fn(
      [usage](const CLI::App*, std::string, CLI::AppFormatMode) { return std::string(usage); });
  sub->allow_extras();
  sub->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  return sub;
}

void on_run(CLI::App* command, int* status, std::function<int()> run) {
  command->callback([command, status, run = std::move(run)] {
    const std::vector<std::string> extra = command->remaining();
    if (!extra.empty()) {
      const std::string& a = extra.front();
      *status = usage_error(
          *command, a.size() > 1 && a[0] == '-'
                        ? "unknown option '" + printable(a) + "'" + option_suggestion(*command, a)
                        : "unexpected argument '" + printable(a) + "'");
      return;
    }
    *status = run();
  });
}

int usage_error(const CLI::App& command, const std::string& problem) {
  std::fprintf(stderr, "animpack: %s; see animpack %s --help\n", problem.c_str(),
               command.get_name().c_str());
  return kExitUsage;
}

CLI::Validator whole_number(const std::string& name, int64_t lo, int64_t hi) {
  return CLI::Validator(
      [name, lo, hi](std::string& text) -> std::string {
        int64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (!text.empty() && text[0] != '+' && ec == std::errc() && ptr == end && v >= lo &&
            v <= hi) {
          return "";
        }
        return name + " takes a whole number from " + std::to_string(lo) + " to " +
               std::to_string(hi) + ", not '" + printable(text) + "'";
      },
      std::to_string(lo) + ".." + std::to_string(hi));
}

}  // namespace animpack::cli
