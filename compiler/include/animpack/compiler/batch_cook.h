// Cooking scenes the way `animpack cook` does: one scene to one pack (cook_one), or many
// scenes into one folder on a pool of threads (cook_batch), each pack byte-identical to
// the one cook_one writes alone. Every output is written atomically (PendingFile: a
// temporary file beside it, renamed at the end) and only when its scene cooked clean.
// Nothing here throws: an unexpected failure is an E0003 diagnostic in that scene's report.
//
//   animpack::BatchSettings settings;
//   settings.output_dir = "out";
//   settings.jobs = 4;
//   const std::vector<std::filesystem::path> scenes = {"a.toml", "b.toml"};
//   animpack::BatchReport report = animpack::cook_batch(scenes, settings,
//       [](const animpack::CookReport& r) { std::fputs(r.diagnostics.c_str(), stderr); });
//   std::fputs(animpack::format_batch_summary(report).c_str(), stdout);
//   return report.exit_status();
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "animpack/compiler/diagnostics.h"
#include "animpack/compiler/pack_writer.h"

namespace animpack {

// How one scene's cook ended, and the exit status it stands for (cook_exit_status).
enum class CookStatus : uint8_t {
  kOk,        // cooked clean (or checked clean); the outputs were written (cook)
  kFailed,    // the inputs have errors (or warnings under deny_warnings): exit 1
  kRefused,   // an unreadable scene, an output that must not be written, an I/O failure: 2
  kInternal,  // the cooker failed (E0003, out of memory): exit 2
  kBadPack,   // the pack did not open or play (E0901, a cooker bug): exit 1, nothing written
};

// 0 for kOk, 1 for kFailed and kBadPack, 2 for kRefused and kInternal.
int cook_exit_status(CookStatus status);
// "ok", "failed", "refused", "internal error", "bad pack".
const char* cook_status_name(CookStatus status);

// What a cook does besides its checks; the same for every scene of a batch.
struct CookSettings {
  DiagnosticFormat format = DiagnosticFormat::kGcc;  // of CookReport::diagnostics
  DiagnosticStyle style;       // colour for the gcc format (`--color`, use_color_on_stderr)
  bool deny_warnings = false;  // a warning fails the scene like an error
  PackWriteOptions write;      // compression (`--no-compress`: write.compress = false)
  bool write_outputs = true;   // false: `check`, every check and nothing written
};

// One scene to cook: its pack and, when not empty, its Make/Ninja depfile (make_depfile).
struct CookJob {
  std::filesystem::path scene;
  std::filesystem::path output;   // ignored when !CookSettings::write_outputs
  std::filesystem::path depfile;  // empty: none
};

// What became of one scene.
struct CookReport {
  CookJob job;
  CookStatus status = CookStatus::kInternal;
  size_t errors = 0, warnings = 0;
  uint64_t bytes = 0;  // the pack's size when it was written, else 0
  // What the pack holds (once the scene checked clean).
  size_t meshes = 0, rigs = 0, clips = 0, sheets = 0, objects = 0;
  double wall_ms = 0;  // this scene's cook from start to the outputs renamed
  double cpu_ms = 0;   // CPU time of the thread that cooked it (Assimp's trial child aside)
  // The scene's diagnostics, sorted, formatted in CookSettings::format ("" when none).
  // `animpack` prints them on stderr for gcc, else on stdout.
  std::string diagnostics;
  // One line without the "animpack: " prefix or a newline, what `animpack cook` prints
  // on stderr after the diagnostics: "scene.toml: 2 error(s), 0 warning(s); no pack
  // written", "cooked scene.toml -> out.anpk (1234 bytes): ...", "refusing to write ...".
  std::string message;
  // Every file the cook read (CookOutput::inputs), for depfiles and output checks.
  std::vector<std::filesystem::path> inputs;
};

// Cooks (or, without write_outputs, checks) one scene exactly as `animpack cook SCENE -o
// OUTPUT [--depfile DEPFILE]` does: the scene must be a regular file (else kRefused); the
// diagnostics sorted; no output over an input, a folder or device, or the other output
// (kRefused); the pack verified (verify_pack) before it is written; the depfile and the
// pack written to temporary files, then renamed (the depfile first), so a failure leaves
// both previous files as they were. Safe to call from several threads at once for
// different outputs. Never throws.
CookReport cook_one(const CookJob& job, const CookSettings& settings);

// A batch: several scenes, one output folder.
struct BatchSettings {
  CookSettings cook;
  // Where the packs go: SCENE's stem + ".anpk" (batch_output_path). Created (with its
  // parents) when missing. Ignored when !cook.write_outputs.
  std::filesystem::path output_dir;
  // Threads cooking at once: 0 means std::thread::hardware_concurrency() (at least 1);
  // never more than kMaxBatchJobs nor than there are scenes.
  unsigned jobs = 0;
  bool depfiles = true;  // a depfile per pack, OUTPUT + ".d" (batch_depfile_path)
};

inline constexpr unsigned kMaxBatchJobs = 256;

// The pack a batch writes for `scene`: output_dir / (stem + ".anpk"); its depfile: the
// pack's path + ".d".
std::filesystem::path batch_output_path(const std::filesystem::path& output_dir,
                                        const std::filesystem::path& scene);
std::filesystem::path batch_depfile_path(const std::filesystem::path& output);

struct BatchReport {
  // Not empty when the batch was refused before anything was cooked (two scenes with one
  // stem, naming both; an output folder that cannot be made): `scenes` is then empty.
  std::string refused;
  std::vector<CookReport> scenes;  // one per scene, in the order given
  unsigned jobs = 0;               // the threads used
  double wall_ms = 0;              // the whole batch
  double cpu_ms = 0;               // the scenes' CPU times summed
  // 2 when refused or when any scene's status gives 2, else 1 when any scene failed,
  // else 0.
  int exit_status() const;
};

// Cooks every scene as cook_one would alone (CookJob{scene, batch_output_path(...),
// batch_depfile_path(...) or none}) on `jobs` threads. A failed scene does not stop the
// others. Before anything is cooked (when writing outputs), two scenes with the same stem,
// and a pack path that is one of the scenes, refuse the whole batch. Outputs are written one scene
// at a time (each still atomically). `on_report`, when set, is called once per scene, in the order
// the scenes were given, as soon as that scene and all before it are done, never for two
// scenes at once (so their diagnostics are printed whole and in order); what it throws is
// dropped. Never throws.
BatchReport cook_batch(std::span<const std::filesystem::path> scenes, const BatchSettings& settings,
                       const std::function<void(const CookReport&)>& on_report = {});

// The summary `animpack cook` prints on stdout after a batch: one line per scene (its
// path, ok/failed, bytes, milliseconds), then the totals and the wall time:
//   "assets/demo/scene.toml  ok      1234567 bytes    812 ms\n" ...
//   "3 scenes: 2 ok, 1 failed; 2469134 bytes; 1624 ms CPU, 905 ms wall on 2 threads\n"
std::string format_batch_summary(const BatchReport& report);

}  // namespace animpack
