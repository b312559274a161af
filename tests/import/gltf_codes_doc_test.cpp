// docs/gltf-issues.md is generated from the glTF reader's and the import's code tables;
// this test fails when it is out of date. Regenerate with
//   ANIMPACK_WRITE_DOCS=1 ./build/dev/tests/import/import_tests --gtest_filter='GltfIssuesDoc.*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_assimp.h"
#include "animpack/compiler/import_gltf.h"

namespace animpack {
namespace {

std::string escape_cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string generated() {
  std::string md =
      "# glTF issue codes\n\n"
      "Generated from `kGltfIssueCodes` (gltf_reader.h), `kImportIssueCodes`\n"
      "(import_gltf.h) and `kAssimpIssueCodes` (import_assimp.h) by\n"
      "`tests/import/gltf_codes_doc_test.cpp`; do not edit by hand.\n\n"
      "The cooker reports a problem inside a glTF file as E0201 (an error) or W0301 (a\n"
      "warning, see diagnostics.md) in that file, at the JSON pointer of the offending value,\n"
      "with one of these codes in brackets. Codes shared with Khronos glTF-Validator mean the\n"
      "same there.\n\n"
      "## Reading and checking (gltf_reader.h)\n\n| code | rule |\n| --- | --- |\n";
  for (const GltfCodeInfo& c : kGltfIssueCodes) {
    md += "| `" + std::string(c.code) + "` | " + escape_cell(c.rule) + " |\n";
  }
  md += "\n## Import into rigs and parts (import_gltf.h)\n\n| code | rule |\n| --- | --- |\n";
  for (const GltfCodeInfo& c : kImportIssueCodes) {
    md += "| `" + std::string(c.code) + "` | " + escape_cell(c.rule) + " |\n";
  }
  md +=
      "\n## FBX and Collada through Assimp (import_assimp.h)\n\n"
      "An `.fbx` or `.dae` mesh file is read by Assimp (assimp.md). A file Assimp cannot\n"
      "read is E0201 at the scene's `file` key; problems inside it are reported in the file\n"
      "at a path into Assimp's scene (`/meshes/2`), with these codes and the import codes\n"
      "above that apply.\n\n| code | rule |\n| --- | --- |\n";
  for (const GltfCodeInfo& c : kAssimpIssueCodes) {
    md += "| `" + std::string(c.code) + "` | " + escape_cell(c.rule) + " |\n";
  }
  return md;
}

TEST(GltfIssuesDoc, MatchesTheCodeTables) {
  const std::filesystem::path doc =
      std::filesystem::path(ANIMPACK_SOURCE_DIR) / "docs/gltf-issues.md";
  if (std::getenv("ANIMPACK_WRITE_DOCS")) std::ofstream(doc) << generated();
  std::ifstream in(doc);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), generated())
      << "docs/gltf-issues.md is out of date; regenerate it with\n"
         "  ANIMPACK_WRITE_DOCS=1 ./build/dev/tests/import/import_tests "
         "--gtest_filter='GltfIssuesDoc.*'";
}

}  // namespace
}  // namespace animpack
