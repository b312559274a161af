// `animpack cook` and `animpack check`: a scene and every asset it names checked by the
// cooking library (cook_scene), its diagnostics printed in the chosen format, and (cook)
// the pack and depfile written atomically. See docs/cli.md.
#include "animpack/compiler/cook.h"

#include <cctype>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "animpack/compiler/diagnostics.h"
#include "animpack/compiler/pack_writer.h"
#include "commands.h"
#include "output_check.h"

namespace animpack::cli {
namespace {

namespace fs = std::filesystem;

const char* const kCookUsage =
    "usage: animpack cook SCENE.toml -o OUT.anpk [--depfile OUT.d] [--format gcc|github|json]\n"
    "                     [--deny-warnings] [--no-compress]\n"
    "\n"
    "Reads the scene, checks every [[mesh]] glTF and sprite atlas it names and every\n"
    "[object.animation] against them, and writes one pack. Diagnostics are reported as\n"
    "file:line:col (gcc, on stderr), GitHub workflow commands (github, on stdout) or one\n"
    "JSON object per line (json, on stdout). Nothing is written when there are errors (or\n"
    "warnings with --deny-warnings); a previous pack is only ever replaced whole. An output\n"
    "that is an input, the other output or not a regular file is refused (exit 2).\n"
    "\n"
    "  -o, --output FILE   the pack to write\n"
    "  --depfile FILE      also write a Make/Ninja depfile naming every input read\n"
    "  --format F          gcc (default), github or json\n"
    "  --deny-warnings     treat warnings as errors (exit 1, no output)\n"
    "  --no-compress       store blobs raw instead of LZ4\n";

const char* const kCheckUsage =
    "usage: animpack check SCENE.toml [--format gcc|github|json] [--deny-warnings]\n"
    "\n"
    "Every check of `animpack cook`, without writing anything.\n";

struct Options {
  std::vector<std::string> positional;
  std::string output;
  std::string depfile;
  DiagnosticFormat format = DiagnosticFormat::kGcc;
  bool deny_warnings = false;
  bool no_compress = false;
};

void print_diagnostics(const DiagnosticSink& sink, DiagnosticFormat format) {
  const std::string text = format_diagnostics(sink, format);
  std::fwrite(text.data(), 1, text.size(), format == DiagnosticFormat::kGcc ? stderr : stdout);
}

// Writes the pack and the depfile (when asked for) so that a failure leaves both previous
// files as they were: both go to temporary files first; then the depfile is renamed, then
// the pack (a new depfile beside an old pack only makes the build system cook again).
std::string write_outputs(const Options& o, std::span<const uint8_t> pack, const std::string& dep) {
  PendingFile pack_file, dep_file;
  if (std::string err = pack_file.write(o.output, pack); !err.empty()) return err;
  if (!o.depfile.empty()) {
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(dep.data()), dep.size());
    if (std::string err = dep_file.write(o.depfile, bytes); !err.empty()) return err;
    if (std::string err = dep_file.commit(); !err.empty()) return err;
  }
  return pack_file.commit();
}

// An unexpected failure of cook or check as one E0003 diagnostic in the chosen format.
int internal_error(const std::string& file, const std::string& what, DiagnosticFormat format) {
  DiagnosticSink sink;
  sink.report("E0003", file, 0, 0, what);
  print_diagnostics(sink, format);
  std::fprintf(stderr, "animpack: internal error; nothing written\n");
  return kExitUsage;
}

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

int cook_or_check_inner(const CLI::App& command, bool cook, Options& o) {
  if (o.positional.size() != 1) {
    return usage_error(command,
                       "needs one SCENE.toml (" + std::to_string(o.positional.size()) + " given)");
  }
  if (const std::string problem = not_a_scene(command, o.positional[0]); !problem.empty()) {
    std::fprintf(stderr, "animpack: %s\n", problem.c_str());
    return kExitUsage;
  }
  if (cook && o.output.empty()) return usage_error(command, "-o OUT.anpk is needed");
  const fs::path scene = o.positional[0];
  if (const FileIdentity id = identity_of(scene); !id.exists || !id.regular) {
    std::fprintf(stderr, "animpack: cannot read %s: %s\n", scene.string().c_str(),
                 !id.exists ? "no such file" : (std::string("it is ") + id.kind).c_str());
    return kExitUsage;
  }
  DiagnosticSink sink;
  CookOutput out = cook_scene(scene, sink);
  sink.sort();
  print_diagnostics(sink, o.format);
  const size_t errors = sink.error_count(), warnings = sink.warning_count();
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.code == "E0003") {  // the cooker failed, not the inputs
      std::fprintf(stderr, "animpack: internal error; nothing written\n");
      return kExitUsage;
    }
  }
  if (errors > 0 || (o.deny_warnings && warnings > 0)) {
    std::fprintf(stderr, "animpack: %s: %zu error(s), %zu warning(s)%s; %s\n",
                 scene.string().c_str(), errors, warnings, errors == 0 ? " (--deny-warnings)" : "",
                 cook ? "no pack written" : "check failed");
    return kExitErrors;
  }
  size_t clips = 0;
  for (const CookedRig& r : out.pack.rigs) clips += r.rig.clips().size();
  if (!cook) {
    std::fprintf(stderr,
                 "animpack: %s: ok (%zu meshes, %zu rigs, %zu clips, %zu sprite sheets, %zu "
                 "objects; %zu warning(s))\n",
                 scene.string().c_str(), out.pack.meshes.size(), out.pack.rigs.size(), clips,
                 out.pack.sheets.size(), out.pack.objects.size(), warnings);
    return kExitOk;
  }
  // Nothing is written over an input, over a folder or device, or twice.
  const fs::path output = o.output, depfile = o.depfile;
  std::string problem = output_problem(output, "pack", out.inputs, nullptr, "");
  if (problem.empty() && !o.depfile.empty()) {
    problem = output_problem(depfile, "depfile", out.inputs, &output, "pack (-o)");
  }
  std::string dep;
  if (problem.empty() && !o.depfile.empty()) {
    std::optional<std::string> text = make_depfile(output, out.inputs, &problem);
    if (text) dep = std::move(*text);
  }
  if (!problem.empty()) {
    std::fprintf(stderr, "animpack: %s; nothing written\n", problem.c_str());
    return kExitUsage;
  }
  const std::vector<uint8_t> bytes = write_pack(out.pack, {!o.no_compress});
  // Every pack cook writes opens and plays; one that does not is a cooker bug (E0901).
  if (DiagnosticSink verify; !verify_pack(bytes, scene, verify)) {
    print_diagnostics(verify, o.format);
    std::fprintf(stderr, "animpack: %s: internal error; no pack written\n", scene.string().c_str());
    return kExitErrors;
  }
  if (std::string err = write_outputs(o, bytes, dep); !err.empty()) {
    std::fprintf(stderr, "animpack: %s\n", err.c_str());
    return kExitUsage;
  }
  std::fprintf(stderr,
               "animpack: cooked %s -> %s (%zu bytes): %zu meshes, %zu rigs, %zu clips, %zu "
               "sprite sheets, %zu objects; %zu warning(s)\n",
               scene.string().c_str(), o.output.c_str(), bytes.size(), out.pack.meshes.size(),
               out.pack.rigs.size(), clips, out.pack.sheets.size(), out.pack.objects.size(),
               warnings);
  return kExitOk;
}

int cook_or_check(const CLI::App& command, bool cook, Options& o) {
  try {
    return cook_or_check_inner(command, cook, o);
  } catch (const std::bad_alloc&) {
    return internal_error(o.positional.empty() ? "animpack" : o.positional[0], "out of memory",
                          o.format);
  } catch (const std::exception& e) {
    return internal_error(o.positional.empty() ? "animpack" : o.positional[0],
                          std::string("internal error: ") + e.what(), o.format);
  } catch (...) {
    return internal_error(o.positional.empty() ? "animpack" : o.positional[0], "internal error",
                          o.format);
  }
}

// --format's value: gcc, github or json.
CLI::Validator diagnostic_format() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_diagnostic_format(text)) return "";
        return "unknown --format '" + printable(text) + "' (gcc, github or json)";
      },
      "gcc|github|json");
}

// cook (with an output) or check (without).
void add_cook_or_check(CLI::App& app, int* status, bool cook) {
  CLI::App* sub =
      cook ? add_command(app, "cook", "check a scene and its assets, write one pack", kCookUsage)
           : add_command(app, "check", "every check of cook, no output file", kCheckUsage);
  auto o = std::make_shared<Options>();
  auto format = std::make_shared<std::string>("gcc");
  sub->add_option("SCENE", o->positional);
  if (cook) {
    sub->add_option("-o,--output", o->output);
    sub->add_option("--depfile", o->depfile);
    sub->add_flag("--no-compress", o->no_compress);
  }
  sub->add_option("--format", *format)->check(diagnostic_format());
  sub->add_flag("--deny-warnings", o->deny_warnings);
  on_run(sub, status, [sub, o, format, cook] {
    o->format = *parse_diagnostic_format(*format);
    return cook_or_check(*sub, cook, *o);
  });
}

}  // namespace

void add_cook_commands(CLI::App& app, int* status) {
  add_cook_or_check(app, status, true);
  add_cook_or_check(app, status, false);
}

}  // namespace animpack::cli
