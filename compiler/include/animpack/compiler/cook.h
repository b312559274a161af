// The cooker's pipeline: scene file -> checks against every asset it names -> CookedPack.
// Free-function stages over plain structs (STYLE L3): read_scene, then per [[mesh]]
// read_gltf + import_gltf, per sprite read_png + Atlas, then the cross-checks of each
// object's [object.animation], then the pack (pack_writer.h).
//
//   animpack::DiagnosticSink sink;
//   animpack::CookOutput out = animpack::cook_scene("assets/demo/scene.toml", sink);
//   sink.sort();
//   std::fputs(animpack::format_diagnostics(sink, animpack::DiagnosticFormat::kGcc).c_str(),
//   stderr); if (!sink.has_errors()) write(animpack::write_pack(out.pack));
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "animpack/compiler/cooked.h"
#include "animpack/compiler/diagnostics.h"

namespace animpack {

struct CookOutput {
  CookedPack pack;  // complete only when the sink has no errors
  // Every file read, in the order read: the scene, each glTF and its buffer files, each
  // atlas. For depfiles.
  std::vector<std::filesystem::path> inputs;
};

// Reads the scene and every asset it names and runs every check; problems go to `sink`
// (scene problems at their key; glTF problems in the glTF file at their JSON pointer,
// with a note at the scene key that named the file). Never throws: an unexpected failure
// is one E0003 error at the scene file.
CookOutput cook_scene(const std::filesystem::path& scene_file, DiagnosticSink& sink);

// A Make/Ninja depfile: "OUTPUT: INPUT INPUT ...\n", each path escaped for both: a
// backslash before a space, tab, '#' and ':', "$$" for '$', backslashes doubled before an
// escaped character (docs/cli.md). std::nullopt, with the reason in *error, when a path has
// a newline or carriage return: no depfile syntax can hold one.
std::optional<std::string> make_depfile(const std::filesystem::path& output,
                                        const std::vector<std::filesystem::path>& inputs,
                                        std::string* error = nullptr);

// The name a pack records for an asset file the scene names (a mesh's `file`, an atlas):
// the path normalised, with '/' separators; an absolute path becomes relative to the
// scene's folder when it lies inside it, else just its file name. A pack never holds an
// absolute path, so the same scene cooks to the same bytes wherever it lies.
std::string pack_source_name(const std::filesystem::path& scene_folder, const std::string& file);

// The cooker's last check, on the pack bytes before they are written: they must open
// (Pack::from_bytes, every check of Pack::open), decode (every part and sprite sheet)
// and play (a ScenePlayer stepped a few ticks, with finite palettes and vertices placed
// by them, as `animpack pose` places them). A pack that fails
// is a cooker bug (every scene the cooker accepts must make a pack that plays): E0901 at
// line 0 of `scene_file`, and false. The caller then writes nothing.
bool verify_pack(std::span<const uint8_t> bytes, const std::filesystem::path& scene_file,
                 DiagnosticSink& sink);

// Limit on what the pack would hold, estimated from the cooked contents before writing
// (docs/scene-format.md, limits): vertex streams, pixels (once per distinct atlas), keys.
inline constexpr uint64_t kMaxPackContentBytes = uint64_t{1} << 30;

}  // namespace animpack
