// The samples' command lines (sample_args.h).
#include "sample_args.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace animpack::samples {
namespace {

// text as a whole decimal integer in [lo, hi].
bool read_number(const std::string& text, long lo, long hi, long* out) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end == text.c_str() || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

}  // namespace

CLI::Option* add_number(CLI::App& app, const std::string& name, long lo, long hi, long* out) {
  return app
      .add_option_function<std::string>(
          name,
          // The check below has passed.
          [out, lo, hi](const std::string& text) { (void)read_number(text, lo, hi, out); })
      ->check(CLI::Validator(
          [name, lo, hi](std::string& text) -> std::string {
            long v = 0;
            if (read_number(text, lo, hi, &v)) return "";
            return name + " takes a whole number from " + std::to_string(lo) + " to " +
                   std::to_string(hi) + ", not '" + text + "'";
          },
          std::to_string(lo) + ".." + std::to_string(hi)))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option* add_size(CLI::App& app, const std::string& name, long lo, long hi, long* width,
                      long* height) {
  auto split = [lo, hi](const std::string& text, long* w, long* h) {
    const size_t x = text.find('x');
    return x != std::string::npos && read_number(text.substr(0, x), lo, hi, w) &&
           read_number(text.substr(x + 1), lo, hi, h);
  };
  return app
      .add_option_function<std::string>(
          name,
          [split, width, height](const std::string& text) { (void)split(text, width, height); })
      ->check(CLI::Validator(
          [split, name, lo, hi](std::string& text) -> std::string {
            long w = 0, h = 0;
            if (split(text, &w, &h)) return "";
            return name + " takes WIDTHxHEIGHT, each from " + std::to_string(lo) + " to " +
                   std::to_string(hi) + ", not '" + text + "'";
          },
          "WxH"))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

int parse(CLI::App& app, int argc, char** argv, const char* name, const char* usage) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(usage, stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::string problem = e.what();
    // "--ticks: --ticks takes ...": the checks above name their option themselves.
    if (const size_t colon = problem.find(": ");
        dynamic_cast<const CLI::ValidationError*>(&e) != nullptr && colon != std::string::npos) {
      problem = problem.substr(colon + 2);
    }
    std::fprintf(stderr, "%s: %s\n%s", name, problem.c_str(), usage);
    return 2;
  }
  return -1;
}

int usage_error(const char* usage) {
  std::fputs(usage, stderr);
  return 2;
}

}  // namespace animpack::samples
