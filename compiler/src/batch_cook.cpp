#include "animpack/compiler/batch_cook.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/output_check.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// CPU time of the calling thread, in milliseconds (0 where the clock is missing).
double thread_cpu_ms() {
  timespec ts{};
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// printf into a std::string.
__attribute__((format(printf, 1, 2))) std::string format(const char* fmt, ...) {
  std::va_list args, again;
  va_start(args, fmt);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<size_t>(n) + 1);
    std::vsnprintf(out.data(), out.size(), fmt, again);
    out.resize(static_cast<size_t>(n));
  }
  va_end(again);
  return out;
}

// Writes the pack and the depfile (when there is one) so that a failure leaves both
// previous files as they were: both go to temporary files first; then the depfile is
// renamed, then the pack (a new depfile beside an old pack only makes the build system
// cook again).
std::string write_outputs(const CookJob& job, std::span<const uint8_t> pack,
                          const std::string& dep) {
  PendingFile pack_file, dep_file;
  if (std::string err = pack_file.write(job.output, pack); !err.empty()) return err;
  if (!job.depfile.empty()) {
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(dep.data()), dep.size());
    if (std::string err = dep_file.write(job.depfile, bytes); !err.empty()) return err;
    if (std::string err = dep_file.commit(); !err.empty()) return err;
  }
  return pack_file.commit();
}

// cook_one's body; may throw (bad_alloc and the like), which cook_one turns into E0003.
// `write_lock`, when set, is held while the outputs are written.
void cook_into(const CookJob& job, const CookSettings& settings, std::mutex* write_lock,
               CookReport& r) {
  const std::string scene_name = job.scene.string();
  if (const FileIdentity id = identity_of(job.scene); !id.exists || !id.regular) {
    r.status = CookStatus::kRefused;
    r.message = "cannot read " + scene_name + ": " +
                (!id.exists ? std::string("no such file") : std::string("it is ") + id.kind);
    return;
  }
  DiagnosticSink sink;
  CookOutput out = cook_scene(job.scene, sink);
  sink.sort();
  r.diagnostics = format_diagnostics(sink, settings.format, settings.style);
  r.inputs = out.inputs;
  r.errors = sink.error_count();
  r.warnings = sink.warning_count();
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.code == "E0003") {  // the cooker failed, not the inputs
      r.status = CookStatus::kInternal;
      r.message = "internal error; nothing written";
      return;
    }
  }
  if (r.errors > 0 || (settings.deny_warnings && r.warnings > 0)) {
    r.status = CookStatus::kFailed;
    r.message = format("%s: %zu error(s), %zu warning(s)%s; %s", scene_name.c_str(), r.errors,
                       r.warnings, r.errors == 0 ? " (--deny-warnings)" : "",
                       settings.write_outputs ? "no pack written" : "check failed");
    return;
  }
  r.meshes = out.pack.meshes.size();
  r.rigs = out.pack.rigs.size();
  for (const CookedRig& rig : out.pack.rigs) r.clips += rig.rig.clips().size();
  r.sheets = out.pack.sheets.size();
  r.objects = out.pack.objects.size();
  if (!settings.write_outputs) {
    r.status = CookStatus::kOk;
    r.message = format(
        "%s: ok (%zu meshes, %zu rigs, %zu clips, %zu sprite sheets, %zu objects; %zu "
        "warning(s))",
        scene_name.c_str(), r.meshes, r.rigs, r.clips, r.sheets, r.objects, r.warnings);
    return;
  }
  // Nothing is written over an input, over a folder or device, or twice.
  std::string problem = output_problem(job.output, "pack", out.inputs, nullptr, "");
  if (problem.empty() && !job.depfile.empty()) {
    problem = output_problem(job.depfile, "depfile", out.inputs, &job.output, "pack (-o)");
  }
  std::string dep;
  if (problem.empty() && !job.depfile.empty()) {
    std::optional<std::string> text = make_depfile(job.output, out.inputs, &problem);
    if (text) dep = std::move(*text);
  }
  if (!problem.empty()) {
    r.status = CookStatus::kRefused;
    r.message = problem + "; nothing written";
    return;
  }
  const std::vector<uint8_t> bytes = write_pack(out.pack, settings.write);
  // Every pack cook writes opens and plays; one that does not is a cooker bug (E0901).
  if (DiagnosticSink verify; !verify_pack(bytes, job.scene, verify)) {
    r.diagnostics += format_diagnostics(verify, settings.format, settings.style);
    r.errors += verify.error_count();
    r.status = CookStatus::kBadPack;
    r.message = scene_name + ": internal error; no pack written";
    return;
  }
  std::string err;
  if (write_lock) {
    const std::lock_guard<std::mutex> lock(*write_lock);
    err = write_outputs(job, bytes, dep);
  } else {
    err = write_outputs(job, bytes, dep);
  }
  if (!err.empty()) {
    r.status = CookStatus::kRefused;
    r.message = std::move(err);
    return;
  }
  r.status = CookStatus::kOk;
  r.bytes = bytes.size();
  r.message = format(
      "cooked %s -> %s (%zu bytes): %zu meshes, %zu rigs, %zu clips, %zu sprite sheets, %zu "
      "objects; %zu warning(s)",
      scene_name.c_str(), job.output.string().c_str(), bytes.size(), r.meshes, r.rigs, r.clips,
      r.sheets, r.objects, r.warnings);
}

// An unexpected failure as one E0003 diagnostic at the scene, as `animpack cook` reports it.
void internal_failure(const CookJob& job, const CookSettings& settings, const std::string& what,
                      CookReport& r) noexcept {
  try {
    DiagnosticSink sink;
    sink.report("E0003", job.scene.string(), 0, 0, what);
    r.diagnostics = format_diagnostics(sink, settings.format, settings.style);
    r.message = "internal error; nothing written";
  } catch (...) {  // out of memory even for the message: the status says it
  }
  r.status = CookStatus::kInternal;
  r.bytes = 0;
}

CookReport cook_one_locked(const CookJob& job, const CookSettings& settings,
                           std::mutex* write_lock) noexcept {
  CookReport r;
  const Clock::time_point start = Clock::now();
  const double cpu_start = thread_cpu_ms();
  try {
    r.job = job;
    cook_into(job, settings, write_lock, r);
  } catch (const std::bad_alloc&) {
    internal_failure(job, settings, "out of memory", r);
  } catch (const std::exception& e) {
    internal_failure(job, settings, std::string("internal error: ") + e.what(), r);
  } catch (...) {
    internal_failure(job, settings, "internal error", r);
  }
  r.wall_ms = ms_since(start);
  r.cpu_ms = thread_cpu_ms() - cpu_start;
  return r;
}

// The batch refused before cooking, or "": two scenes with one stem, a pack path that is a
// scene.
std::string batch_problem(std::span<const fs::path> scenes, const BatchSettings& settings) {
  if (!settings.cook.write_outputs) return {};  // a check writes nothing: any names will do
  std::map<std::string, size_t> stems;
  for (size_t i = 0; i < scenes.size(); ++i) {
    const std::string stem = scenes[i].stem().string();
    const auto [it, fresh] = stems.emplace(stem, i);
    if (!fresh) {
      return "refusing to cook " + scenes[it->second].string() + " and " + scenes[i].string() +
             " into one folder: both would write " +
             batch_output_path(settings.output_dir, scenes[i]).string() +
             " (scenes of a batch need different file names)";
    }
  }
  const std::vector<fs::path> inputs(scenes.begin(), scenes.end());
  for (const fs::path& scene : scenes) {
    const fs::path out = batch_output_path(settings.output_dir, scene);
    if (std::string p = output_problem(out, "pack", inputs, nullptr, ""); !p.empty()) {
      return p + "; nothing cooked";
    }
  }
  return {};
}

unsigned thread_count(unsigned asked, size_t scenes) {
  unsigned n = asked != 0 ? asked : std::max(1u, std::thread::hardware_concurrency());
  n = std::min(n, kMaxBatchJobs);
  if (scenes < n) n = static_cast<unsigned>(std::max<size_t>(scenes, 1));
  return n;
}

}  // namespace

int cook_exit_status(CookStatus status) {
  switch (status) {
    case CookStatus::kOk:
      return 0;
    case CookStatus::kFailed:
    case CookStatus::kBadPack:
      return 1;
    case CookStatus::kRefused:
    case CookStatus::kInternal:
      return 2;
  }
  return 2;
}

const char* cook_status_name(CookStatus status) {
  switch (status) {
    case CookStatus::kOk:
      return "ok";
    case CookStatus::kFailed:
      return "failed";
    case CookStatus::kRefused:
      return "refused";
    case CookStatus::kInternal:
      return "internal error";
    case CookStatus::kBadPack:
      return "bad pack";
  }
  return "?";
}

CookReport cook_one(const CookJob& job, const CookSettings& settings) {
  return cook_one_locked(job, settings, nullptr);
}

fs::path batch_output_path(const fs::path& output_dir, const fs::path& scene) {
  return output_dir / (scene.stem().string() + ".anpk");
}

fs::path batch_depfile_path(const fs::path& output) { return fs::path(output.string() + ".d"); }

int BatchReport::exit_status() const {
  if (!refused.empty()) return 2;
  int status = 0;
  for (const CookReport& r : scenes) status = std::max(status, cook_exit_status(r.status));
  return status;
}

BatchReport cook_batch(std::span<const fs::path> scenes, const BatchSettings& settings,
                       const std::function<void(const CookReport&)>& on_report) {
  BatchReport report;
  const Clock::time_point start = Clock::now();
  try {
    report.refused = batch_problem(scenes, settings);
    if (report.refused.empty() && settings.cook.write_outputs && !settings.output_dir.empty()) {
      std::error_code ec;
      fs::create_directories(settings.output_dir, ec);
      if (ec) {
        report.refused =
            "cannot make the output folder " + settings.output_dir.string() + ": " + ec.message();
      }
    }
    if (!report.refused.empty()) {
      report.wall_ms = ms_since(start);
      return report;
    }
    std::vector<CookJob> jobs(scenes.size());
    for (size_t i = 0; i < scenes.size(); ++i) {
      jobs[i].scene = scenes[i];
      if (settings.cook.write_outputs) {
        jobs[i].output = batch_output_path(settings.output_dir, scenes[i]);
        if (settings.depfiles) jobs[i].depfile = batch_depfile_path(jobs[i].output);
      }
    }
    report.scenes.resize(scenes.size());
    std::vector<char> done(scenes.size(), 0);
    std::atomic<size_t> next{0};
    std::mutex write_lock, report_lock;
    size_t next_report = 0;  // the first scene not yet given to on_report
    // Each worker takes the next scene not yet taken until none is left. A worker never
    // lets an exception out (cook_one_locked catches them; the rest cannot throw but
    // for on_report's, dropped here).
    auto work = [&]() noexcept {
      for (;;) {
        const size_t i = next.fetch_add(1);
        if (i >= jobs.size()) return;
        CookReport r = cook_one_locked(jobs[i], settings.cook, &write_lock);
        const std::lock_guard<std::mutex> lock(report_lock);
        report.scenes[i] = std::move(r);
        done[i] = 1;
        while (next_report < jobs.size() && done[next_report]) {
          if (on_report) {
            try {
              on_report(report.scenes[next_report]);
            } catch (...) {
            }
          }
          ++next_report;
        }
      }
    };
    report.jobs = thread_count(settings.jobs, scenes.size());
    std::vector<std::thread> threads;
    threads.reserve(report.jobs);
    for (unsigned t = 1; t < report.jobs; ++t) {
      try {
        threads.emplace_back(work);
      } catch (...) {  // no more threads: cook on those there are
        break;
      }
    }
    report.jobs = static_cast<unsigned>(threads.size() + 1);
    work();  // this thread cooks too
    for (std::thread& t : threads) t.join();
    for (const CookReport& r : report.scenes) report.cpu_ms += r.cpu_ms;
  } catch (const std::exception& e) {  // out of memory setting up: nothing was cooked
    report.refused = std::string("cannot start the batch: ") + e.what();
    report.scenes.clear();
  }
  report.wall_ms = ms_since(start);
  return report;
}

std::string format_batch_summary(const BatchReport& report) {
  size_t width = 0;
  for (const CookReport& r : report.scenes) width = std::max(width, r.job.scene.string().size());
  std::string out;
  size_t ok = 0;
  uint64_t bytes = 0;
  for (const CookReport& r : report.scenes) {
    ok += r.status == CookStatus::kOk;
    bytes += r.bytes;
    const std::string name = printable(r.job.scene.string());
    out += format("%-*s  %-6s %10" PRIu64 " bytes %6.0f ms\n", static_cast<int>(width),
                  name.c_str(), r.status == CookStatus::kOk ? "ok" : "failed", r.bytes, r.wall_ms);
  }
  out += format("%zu scene%s: %zu ok, %zu failed; %" PRIu64
                " bytes; %.0f ms CPU, %.0f ms wall on %u thread%s\n",
                report.scenes.size(), report.scenes.size() == 1 ? "" : "s", ok,
                report.scenes.size() - ok, bytes, report.cpu_ms, report.wall_ms, report.jobs,
                report.jobs == 1 ? "" : "s");
  return out;
}

}  // namespace animpack
