// `animpack cook` and `animpack check`: scenes and every asset they name checked by the
// cooking library (batch_cook.h: cook_one for one scene and -o FILE, cook_batch for
// several scenes or -o DIR, on --jobs threads), their diagnostics printed in the chosen
// format, scene by scene in the order given, and (cook) the packs and depfiles written
// atomically. See docs/cli.md.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "animpack/compiler/batch_cook.h"
#include "animpack/compiler/diagnostics.h"
#include "commands.h"

namespace animpack::cli {
namespace {

namespace fs = std::filesystem;

const char* const kCookUsage =
    "usage: animpack cook SCENE.toml -o OUT.anpk [--depfile OUT.d]\n"
    "                     [--format gcc|github|json|sarif] [--color auto|always|never]\n"
    "                     [--deny-warnings] [--no-compress]\n"
    "       animpack cook SCENE.toml... -o DIR [--jobs N] [--format gcc|github|json|sarif]\n"
    "                     [--deny-warnings] [--no-compress]\n"
    "\n"
    "Reads the scene, checks every [[mesh]] glTF and sprite atlas it names and every\n"
    "[object.animation] against them, and writes one pack. Diagnostics are reported as\n"
    "file:line:col (gcc, on stderr), GitHub workflow commands (github, on stdout), one\n"
    "JSON object per line (json, on stdout) or one SARIF 2.1.0 log (sarif, on stdout).\n"
    "Nothing is written when there are errors (or warnings with --deny-warnings); a\n"
    "previous pack is only ever replaced whole. An output that is an input, the other\n"
    "output or not a regular file is refused (exit 2).\n"
    "\n"
    "With several scenes, or with one scene and -o DIR/ (ending in '/'), each scene is\n"
    "cooked to DIR/STEM.anpk with a depfile DIR/STEM.anpk.d, on --jobs threads; each pack\n"
    "is the one the scene cooks to alone. Each scene's diagnostics are printed together, in\n"
    "the order the scenes were given; a failed scene does not stop the others. Then a\n"
    "summary: a line per scene (ok/failed, bytes, ms), the totals and the wall time (on\n"
    "stdout; on stderr with --format github or json). Two scenes with one file name (stem)\n"
    "are refused before anything is cooked (exit 2). Exit 1 when a scene failed.\n"
    "\n"
    "  -o, --output PATH   the pack to write (one scene), or the folder of the packs\n"
    "  --depfile FILE      also write a Make/Ninja depfile naming every input read (one\n"
    "                      scene and -o FILE; a folder gets one per pack)\n"
    "  --jobs N            scenes cooked at once, 1 to 256 (default: the cores)\n"
    "  --format F          gcc (default), github, json or sarif\n"
    "  --color WHEN        colour the gcc format: auto (default: when stderr is a terminal\n"
    "                      and NO_COLOR is unset or empty), always or never\n"
    "  --deny-warnings     treat warnings as errors (exit 1, no output)\n"
    "  --no-compress       store blobs raw instead of LZ4\n";

const char* const kCheckUsage =
    "usage: animpack check SCENE.toml... [--jobs N] [--format gcc|github|json|sarif]\n"
    "                      [--color auto|always|never] [--deny-warnings]\n"
    "\n"
    "Every check of `animpack cook`, without writing anything; with several scenes, each\n"
    "is checked (on --jobs threads) and reported in the order given; exit 1 when any failed.\n";

struct Options {
  std::vector<std::string> positional;
  std::string output;
  std::string depfile;
  DiagnosticFormat format = DiagnosticFormat::kGcc;
  DiagnosticStyle style;  // colour, from --color and the terminal (use_color_on_stderr)
  bool deny_warnings = false;
  bool no_compress = false;
  int64_t jobs = 0;  // 0: the cores
};

// A scene's diagnostics (gcc on stderr, github and json on stdout), then its line.
void print_report(const CookReport& r, DiagnosticFormat format) {
  std::fwrite(r.diagnostics.data(), 1, r.diagnostics.size(),
              format == DiagnosticFormat::kGcc ? stderr : stdout);
  if (!r.message.empty()) std::fprintf(stderr, "animpack: %s\n", r.message.c_str());
}

// -o names a folder of packs: it ends in '/'. (With one scene, an existing folder given
// without the '/' stays what it always was: an output cook_one refuses to replace.)
bool names_folder(const std::string& output) { return !output.empty() && output.back() == '/'; }

// A model or a pack given where a scene is wanted: what to run instead, as one usage line
// (exit 2); "" for anything else. Judged by the extension, ASCII case ignored.
std::string not_a_scene(const CLI::App& command, const std::string& file) {
  std::string ext = fs::path(file).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string name = printable(file);
  if (ext == ".glb" || ext == ".gltf" || ext == ".fbx" || ext == ".dae" || ext == ".obj") {
    return name + " is a model, not a scene: " + command.get_name() +
           " takes a SCENE.toml whose [[mesh]] tables name the models (docs/scene-format.md); "
           "`animpack info " +
           name + "` describes a model";
  }
  if (ext == ".anpk") {
    return name + " is a pack, not a scene: `animpack inspect " + name +
           "` lists what it holds, `animpack play " + name + " --ticks N` steps it";
  }
  return "";
}

int cook_or_check(const CLI::App& command, bool cook, const Options& o) {
  if (o.positional.empty()) return usage_error(command, "needs a SCENE.toml (0 given)");
  for (const std::string& scene : o.positional) {
    if (const std::string problem = not_a_scene(command, scene); !problem.empty()) {
      std::fprintf(stderr, "animpack: %s\n", problem.c_str());
      return kExitUsage;
    }
  }
  CookSettings settings;
  settings.format = o.format;
  settings.style = o.style;
  settings.deny_warnings = o.deny_warnings;
  settings.write.compress = !o.no_compress;
  settings.write_outputs = cook;
  if (cook && o.output.empty()) {
    return usage_error(command,
                       o.positional.size() > 1 ? "-o DIR is needed" : "-o OUT.anpk is needed");
  }
  const bool batch = o.positional.size() > 1 || (cook && names_folder(o.output));
  if (cook && batch && !o.depfile.empty()) {
    return usage_error(command,
                       "--depfile is for one scene and -o FILE (a folder of packs gets "
                       "OUT.anpk.d beside each)");
  }
  if (!batch) {
    const CookReport r = cook_one({o.positional[0], o.output, o.depfile}, settings);
    print_report(r, o.format);
    return cook_exit_status(r.status);
  }
  BatchSettings batch_settings;
  batch_settings.cook = settings;
  batch_settings.output_dir = o.output;
  batch_settings.jobs = static_cast<unsigned>(o.jobs);
  const std::vector<fs::path> scenes(o.positional.begin(), o.positional.end());
  // SARIF: one log for the whole batch, a run per scene in the order given (a log per scene
  // one after another would not be one JSON document).
  const bool sarif = o.format == DiagnosticFormat::kSarif;
  nlohmann::json log;
  const BatchReport report = cook_batch(scenes, batch_settings, [&](const CookReport& r) {
    if (!sarif || r.diagnostics.empty()) return print_report(r, o.format);
    nlohmann::json one = nlohmann::json::parse(r.diagnostics, nullptr, false);
    if (log.is_null()) {
      log = std::move(one);
    } else if (one.is_object() && one.contains("runs")) {
      for (nlohmann::json& run : one["runs"]) log["runs"].push_back(std::move(run));
    }
    if (!r.message.empty()) std::fprintf(stderr, "animpack: %s\n", r.message.c_str());
  });
  if (sarif && !log.is_null()) {
    const std::string text = log.dump(2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  if (!report.refused.empty()) {
    std::fprintf(stderr, "animpack: %s\n", report.refused.c_str());
    return kExitUsage;
  }
  if (cook) {
    const std::string summary = format_batch_summary(report);
    std::fflush(stderr);
    std::fwrite(summary.data(), 1, summary.size(),
                o.format == DiagnosticFormat::kGcc ? stdout : stderr);
  }
  return report.exit_status();
}

// --format's value: gcc, github, json or sarif.
CLI::Validator diagnostic_format() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_diagnostic_format(text)) return "";
        return "unknown --format '" + printable(text) + "' (gcc, github, json or sarif)";
      },
      "gcc|github|json|sarif");
}

// --color's value: auto, always or never.
CLI::Validator color_mode() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_color_mode(text)) return "";
        return "unknown --color '" + printable(text) + "' (auto, always or never)";
      },
      "auto|always|never");
}

// cook (with an output) or check (without).
void add_cook_or_check(CLI::App& app, int* status, bool cook) {
  CLI::App* sub =
      cook
          ? add_command(app, "cook", "check scenes and their assets, write their packs", kCookUsage)
          : add_command(app, "check", "every check of cook, no output file", kCheckUsage);
  auto o = std::make_shared<Options>();
  auto format = std::make_shared<std::string>("gcc");
  auto color = std::make_shared<std::string>("auto");
  sub->add_option("SCENE", o->positional);
  if (cook) {
    sub->add_option("-o,--output", o->output);
    sub->add_option("--depfile", o->depfile);
    sub->add_flag("--no-compress", o->no_compress);
  }
  sub->add_option("--jobs", o->jobs)
      ->check(whole_number("--jobs", 1, static_cast<int64_t>(kMaxBatchJobs)));
  sub->add_option("--format", *format)->check(diagnostic_format());
  sub->add_option("--color", *color)->check(color_mode());
  sub->add_flag("--deny-warnings", o->deny_warnings);
  on_run(sub, status, [sub, o, format, color, cook] {
    o->format = *parse_diagnostic_format(*format);
    o->style.color = use_color_on_stderr(*parse_color_mode(*color));
    return cook_or_check(*sub, cook, *o);
  });
}

}  // namespace

void add_cook_commands(CLI::App& app, int* status) {
  add_cook_or_check(app, status, true);
  add_cook_or_check(app, status, false);
}

}  // namespace animpack::cli
