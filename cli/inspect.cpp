// `animpack inspect`: what a pack holds, read through the runtime's Pack::open (verified
// first) and reported by the compiler's pack report (pack_report.h). See docs/cli.md.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "animpack/compiler/diagnostics.h"
#include "animpack/compiler/pack_report.h"
#include "animpack/pack.h"
#include "commands.h"

namespace animpack::cli {
namespace {

const char* const kInspectUsage =
    "usage: animpack inspect PACK.anpk [--json]\n"
    "\n"
    "Opens and verifies a pack and lists its meshes, rigs with their joint and clip counts,\n"
    "clips with their durations, sprite sheets and objects with their animation, then where\n"
    "its bytes go: clip keys, vertex and index streams (per codec), textures, atlas pixels,\n"
    "strings and the rest.\n"
    "\n"
    "  --json   the same content as one JSON object (docs/cli.md lists the fields)\n";

struct InspectOptions {
  std::vector<std::string> positional;
  bool json = false;
};

int inspect(const InspectOptions& o) {
  const std::string& file = o.positional.front();
  Result<Pack> pack = Pack::open(file);
  if (!pack) {
    std::fprintf(stderr, "animpack: %s\n", printable(pack.error().message()).c_str());
    return pack.error().code() == ErrorCode::kIo ? kExitUsage : kExitErrors;
  }
  const std::string report = o.json ? pack_report_json(*pack, file) : pack_report_text(*pack, file);
  std::fwrite(report.data(), 1, report.size(), stdout);
  return kExitOk;
}

}  // namespace

void add_inspect_command(CLI::App& app, int* status) {
  CLI::App* sub = add_command(app, "inspect", "what a pack holds", kInspectUsage);
  auto o = std::make_shared<InspectOptions>();
  sub->add_option("PACK", o->positional);
  sub->add_flag("--json", o->json);
  on_run(sub, status, [sub, o] {
    if (o->positional.size() != 1) {
      return usage_error(
          *sub, "needs one PACK.anpk (" + std::to_string(o->positional.size()) + " given)");
    }
    return inspect(*o);
  });
}

}  // namespace animpack::cli
