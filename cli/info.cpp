// `animpack info`: what a model file offers before a scene names it, and the problems the
// cook would report for it (model_info.h). See docs/cli.md.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "animpack/compiler/model_info.h"
#include "commands.h"

namespace animpack::cli {
namespace {

const char* const kInfoUsage =
    "usage: animpack info MODEL.gltf|.glb|.fbx|.dae [--json]\n"
    "\n"
    "Reads a model as a scene's [[mesh]] would and lists its meshes and primitives, skins\n"
    "with their joints, animations with durations, key counts and interpolations, morph\n"
    "targets, materials, textures, the rig and rest bounds the cook would make, then the\n"
    "problems cook would report for it (E0201 errors, W0301 warnings and notes). A model\n"
    "with errors still lists what could be read, and exits 1.\n"
    "\n"
    "  --json   the same as one JSON object (docs/cli.md lists the fields)\n";

struct InfoOptions {
  std::vector<std::string> positional;
  bool json = false;
};

int info(const InfoOptions& o) {
  const ModelInfo model = describe_model(o.positional.front());
  const std::string report = o.json ? model_info_json(model) : model_info_text(model);
  std::fwrite(report.data(), 1, report.size(), stdout);
  if (!model.readable) return kExitUsage;
  return model.error_count() > 0 ? kExitErrors : kExitOk;
}

}  // namespace

void add_info_command(CLI::App& app, int* status) {
  CLI::App* sub = add_command(app, "info", "what a model file offers", kInfoUsage);
  auto o = std::make_shared<InfoOptions>();
  sub->add_option("MODEL", o->positional);
  sub->add_flag("--json", o->json);
  on_run(sub, status, [sub, o] {
    if (o->positional.size() != 1) {
      return usage_error(*sub,
                         "needs one MODEL (" + std::to_string(o->positional.size()) + " given)");
    }
    return info(*o);
  });
}

}  // namespace animpack::cli
