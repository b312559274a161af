// libFuzzer target: the scene reader and the cooker's cross-checks on arbitrary bytes as a
// scene TOML. The bytes are written as scene.toml into a temporary folder that also holds
// the models and atlases of tests/data/cook (copied once), then cooked with every check
// (cook_scene) and, when it has no errors, built into pack bytes in memory and verified
// (verify_pack: opens, decodes, plays). Nothing is written but the scene file. Must never
// crash or hang, and a scene the cooker accepts must make a pack that plays: an E0901 is
// a finding (abort).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"

namespace {

namespace fs = std::filesystem;

const fs::path& folder() {
  static const fs::path dir = [] {
    std::string name = (fs::temp_directory_path() / "animpack_fuzz_scene_XXXXXX").string();
    if (!::mkdtemp(name.data())) std::abort();
    const fs::path source = fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/cook";
    for (const char* sub : {"models", "art"}) {
      fs::copy(source / sub, fs::path(name) / sub, fs::copy_options::recursive);
    }
    return fs::path(name);
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fs::path scene = folder() / "scene.toml";
  {
    std::ofstream out(scene, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  animpack::DiagnosticSink sink;
  const animpack::CookOutput out = animpack::cook_scene(scene, sink);
  if (sink.has_errors()) return 0;
  const std::vector<uint8_t> bytes = animpack::write_pack(out.pack);
  animpack::DiagnosticSink verify;
  if (!animpack::verify_pack(bytes, scene, verify)) {
    for (const animpack::Diagnostic& d : verify.diagnostics()) {
      std::fprintf(stderr, "%s: %s\n", d.code.c_str(), d.message.c_str());
    }
    std::abort();  // a scene the cooker accepts made a pack that does not play
  }
  return 0;
}
