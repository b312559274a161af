#include "corpus_pack.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/pack_writer.h"

namespace animpack::gl::testing {

std::vector<uint8_t> cook_corpus(const std::string& name, const std::string& file,
                                 const std::string& clip) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("gl_corpus_" + name);
  fs::create_directories(dir);
  const fs::path scene = dir / "scene.toml";
  {
    std::ofstream out(scene);
    out << "[[mesh]]\nname = \"" << name << "\"\nfile = \""
        << (fs::path(ANIMPACK_SOURCE_DIR) / "tests/data/corpus/gltf" / file).string()
        << "\"\n\n[[object]]\nname = \"" << name << "\"\nmesh = \"" << name << "\"\n";
    if (!clip.empty()) out << "\n[object.animation]\nclip = \"" << clip << "\"\n";
  }
  DiagnosticSink sink;
  CookOutput cooked = cook_scene(scene, sink);
  EXPECT_FALSE(sink.has_errors()) << format_diagnostics(sink, DiagnosticFormat::kGcc);
  return write_pack(cooked.pack);
}

}  // namespace animpack::gl::testing
