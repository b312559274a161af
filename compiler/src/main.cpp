// animpack: the command line. `animpack --help` lists the subcommands.
// Exit status: 0 clean, 1 the inputs have errors, 2 usage or I/O failure.
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/diagnostics.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "output_check.h"
#include "play_commands.h"
#include "preview_command.h"
#include "retarget_command.h"

#ifndef ANIMPACK_VERSION
#define ANIMPACK_VERSION "0.0.0"
#endif

namespace animpack {
namespace {

namespace fs = std::filesystem;

constexpr int kExitOk = 0;
constexpr int kExitErrors = 1;
constexpr int kExitUsage = 2;

const char* const kUsage =
    "usage: animpack <command> [options]\n"
    "\n"
    "commands:\n"
    "  cook SCENE.toml -o OUT.anpk   check a scene and every asset it names, write one pack\n"
    "  check SCENE.toml              every check of cook, no output file\n"
    "  inspect PACK.anpk             what a pack holds\n"
    "  play PACK.anpk --ticks N      step the scene: events and poses per tick [--script F]\n"
    "  pose PACK.anpk --object NAME --tick T [--json]\n"
    "                                one object's joints and vertices at a tick\n"
    "  preview PACK.anpk --object NAME -o OUT.png\n"
    "                                traced filmstrips of an object's clips as one PNG\n"
    "  retarget SOURCE TARGET [-o OUT.anpk | --dry-run]\n"
    "                                SOURCE's clips on TARGET's skeleton: pairing, pack\n"
    "\n"
    "  animpack <command> --help     the command's options\n"
    "  animpack --version            the version\n"
    "\n"
    "exit status: 0 clean, 1 the inputs have errors, 2 usage or I/O failure\n";

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

const char* const kInspectUsage =
    "usage: animpack inspect PACK.anpk\n"
    "\n"
    "Opens and verifies a pack and lists its meshes, rigs with their joint and clip counts,\n"
    "clips with their durations, sprite sheets and objects with their animation.\n";

struct Options {
  std::vector<std::string> positional;
  std::string output;
  std::string depfile;
  DiagnosticFormat format = DiagnosticFormat::kGcc;
  bool deny_warnings = false;
  bool compress = true;
  bool help = false;
};

// Parses the options of cook/check/inspect; prints the problem and returns false on a
// usage error.
bool parse(int argc, char** argv, bool takes_output, Options& o) {
  for (int i = 0; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "animpack: %s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (takes_output && (a == "-o" || a == "--output")) {
      const char* v = value("-o");
      if (!v) return false;
      o.output = v;
    } else if (takes_output && a == "--depfile") {
      const char* v = value("--depfile");
      if (!v) return false;
      o.depfile = v;
    } else if (a == "--format") {
      const char* v = value("--format");
      if (!v) return false;
      const auto f = parse_diagnostic_format(v);
      if (!f) {
        std::fprintf(stderr, "animpack: unknown format '%s' (gcc, github or json)\n", v);
        return false;
      }
      o.format = *f;
    } else if (a == "--deny-warnings") {
      o.deny_warnings = true;
    } else if (takes_output && a == "--no-compress") {
      o.compress = false;
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "animpack: unknown option '%s'\n", argv[i]);
      return false;
    } else {
      o.positional.emplace_back(a);
    }
  }
  return true;
}

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

int cook_or_check_inner(int argc, char** argv, bool cook, Options& o) {
  if (!parse(argc, argv, cook, o)) {
    std::fputs(cook ? kCookUsage : kCheckUsage, stderr);
    return kExitUsage;
  }
  if (o.help) {
    std::fputs(cook ? kCookUsage : kCheckUsage, stdout);
    return kExitOk;
  }
  if (o.positional.size() != 1 || (cook && o.output.empty())) {
    std::fputs(cook ? kCookUsage : kCheckUsage, stderr);
    return kExitUsage;
  }
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
  const std::vector<uint8_t> bytes = write_pack(out.pack, {o.compress});
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

int cook_or_check(int argc, char** argv, bool cook) {
  Options o;
  try {
    return cook_or_check_inner(argc, argv, cook, o);
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

const char* playback_text(Playback p) { return playback_name(p); }

const char* additive_text(AdditiveReference r) { return additive_reference_name(r); }

// An object's state machine and layers (pack format 3), one line per parameter, state,
// transition and layer. Indices are in range: Pack::open checked them.
void print_graph(const GraphDef& g, const Rig& rig) {
  auto clip = [&](int c) { return printable(rig.clips()[static_cast<size_t>(c)].name()); };
  auto parameter = [&](int p) {
    return p >= 0 ? printable(g.parameters[static_cast<size_t>(p)].name) : std::string("-");
  };
  auto state = [&](int s) {
    return s >= 0 ? printable(g.states[static_cast<size_t>(s)].name) : std::string("*");
  };
  static constexpr const char* kKinds[] = {"float", "bool", "trigger"};
  static constexpr const char* kConditions[] = {"above", "below", "is", "trigger", "exit_time"};
  for (const ParameterDef& p : g.parameters) {
    std::printf("    parameter %s: %s", printable(p.name).c_str(),
                kKinds[static_cast<int>(p.kind)]);
    if (p.kind == ParameterKind::kFloat) {
      std::printf(", default %g, range [%g, %g]", static_cast<double>(p.default_value),
                  static_cast<double>(p.min), static_cast<double>(p.max));
    } else if (p.kind == ParameterKind::kBool) {
      std::printf(", default %s", p.default_value != 0.0f ? "true" : "false");
    }
    std::printf("\n");
  }
  for (size_t s = 0; s < g.states.size(); ++s) {
    const StateDef& st = g.states[s];
    std::printf("    state [%zu] %s%s: ", s, printable(st.name).c_str(), s == 0 ? " (start)" : "");
    if (st.clip >= 0) {
      std::printf("clip %s", clip(st.clip).c_str());
    } else {
      std::printf("blend on %s", parameter(st.x_parameter).c_str());
      if (st.y_parameter >= 0) std::printf(" x %s", parameter(st.y_parameter).c_str());
      for (const BlendPoint& p : st.points) {
        std::printf(st.y_parameter >= 0 ? ", %s at (%g, %g)" : ", %s at %g", clip(p.clip).c_str(),
                    static_cast<double>(p.x), static_cast<double>(p.y));
      }
    }
    if (st.speed_parameter >= 0) {
      std::printf(", speed %s", parameter(st.speed_parameter).c_str());
    } else {
      std::printf(", speed %g", static_cast<double>(st.speed));
    }
    std::printf(", %s, start %g\n", playback_text(st.playback), st.start);
  }
  for (size_t t = 0; t < g.transitions.size(); ++t) {
    const TransitionDef& tr = g.transitions[t];
    std::printf("    transition [%zu] %s -> %s", t, state(tr.from).c_str(), state(tr.to).c_str());
    for (size_t c = 0; c < tr.conditions.size(); ++c) {
      const ConditionDef& cd = tr.conditions[c];
      std::printf(c == 0 ? " when " : " and ");
      switch (cd.kind) {
        case ConditionKind::kAbove:
        case ConditionKind::kBelow:
          std::printf("%s %s %g", parameter(cd.parameter).c_str(),
                      kConditions[static_cast<int>(cd.kind)], static_cast<double>(cd.value));
          break;
        case ConditionKind::kIs:
          std::printf("%s is %s", parameter(cd.parameter).c_str(),
                      cd.value != 0.0f ? "true" : "false");
          break;
        case ConditionKind::kTrigger:
          std::printf("trigger %s", parameter(cd.parameter).c_str());
          break;
        case ConditionKind::kExitTime:
          std::printf("exit_time %g", static_cast<double>(cd.value));
          break;
      }
    }
    std::printf(", fade %g\n", tr.fade);
  }
  for (size_t l = 0; l < g.layers.size(); ++l) {
    const LayerDef& ly = g.layers[l];
    std::printf("    layer [%zu] %s %s", l,
                ly.mode == LayerMode::kAdditive ? "additive" : "override", clip(ly.clip).c_str());
    if (ly.weight_parameter >= 0) {
      std::printf(", weight %s", parameter(ly.weight_parameter).c_str());
    } else {
      std::printf(", weight %g", static_cast<double>(ly.weight));
    }
    if (ly.mask.empty()) {
      std::printf(", every joint");
    } else {
      size_t covered = 0;
      for (float w : ly.mask) covered += w > 0.0f ? 1 : 0;
      std::printf(", mask %zu of %zu joints", covered, ly.mask.size());
    }
    std::printf(", speed %g, %s\n", static_cast<double>(ly.speed), playback_text(ly.playback));
  }
}

// An object's root motion (pack format 4): policy, joint, extract bits, rate, and per clip
// with a track the travel of one pass (the track's last sample: object units and turns);
// then its IK solvers: kind, joints by name, target, weight. Indices are in range:
// Pack::open checked them.
void print_root_motion_and_ik(const ObjectAnimationInfo& a, const Rig& rig) {
  const Skeleton& skeleton = rig.skeleton();
  auto joint = [&](int j) { return printable(skeleton.joints()[static_cast<size_t>(j)].name); };
  if (const std::optional<RootMotionConfig>& rm = a.root_motion) {
    std::string extract;
    for (const auto& [bit, name] :
         {std::pair{kExtractHorizontal, "horizontal"}, std::pair{kExtractVertical, "vertical"},
          std::pair{kExtractYaw, "yaw"}}) {
      if ((rm->extract & bit) == 0) continue;
      if (!extract.empty()) extract += "+";
      extract += name;
    }
    std::printf("    root motion: %s, joint %s, extract %s, %d samples a second, up %g %g %g\n",
                root_motion_policy_name(rm->policy), joint(rm->joint).c_str(), extract.c_str(),
                rm->rate, static_cast<double>(rm->up.x), static_cast<double>(rm->up.y),
                static_cast<double>(rm->up.z));
    constexpr double kUnit = static_cast<double>(kRootMotionUnitsPerMetre);
    constexpr double kTurn = static_cast<double>(kYawUnitsPerTurn);
    for (size_t c = 0; c < a.root_tracks.size(); ++c) {
      const std::span<const RootMotionSample> samples = a.root_tracks[c].samples;
      if (samples.empty()) continue;
      const RootMotionSample& end = samples.back();
      std::printf("      clip [%zu] %s: %zu samples, a pass travels %.6g %.6g %.6g, turns %.6g\n",
                  c, printable(rig.clips()[c].name()).c_str(), samples.size(), end.x / kUnit,
                  end.y / kUnit, end.z / kUnit, end.yaw / kTurn);
    }
  }
  for (size_t i = 0; i < a.ik.size(); ++i) {
    const IkSolverDef& s = a.ik[i];
    std::printf("    ik [%zu] %s: %s, joints", i, printable(s.name).c_str(), ik_kind_name(s.kind));
    for (uint16_t j : s.joints) std::printf(" %s", joint(j).c_str());
    if (s.kind == IkKind::kFoot) {
      std::printf(", ground from the game (flat at the floor until set)");
    } else if (s.has_target) {
      std::printf(", target %g %g %g", static_cast<double>(s.target.x),
                  static_cast<double>(s.target.y), static_cast<double>(s.target.z));
    } else {
      std::printf(", target from the game");
    }
    std::printf(", weight %g\n", static_cast<double>(s.weight));
  }
}

// Version 7: how many of a sheet's frames are trimmed and rotated.
void print_sheet_placements(const Atlas& atlas) {
  uint32_t trimmed = 0, rotated = 0;
  for (uint32_t f = 0; f < atlas.frame_count(); ++f) {
    const FramePlacement p = *atlas.placement(f);
    trimmed += p.trimmed.width != p.source.width || p.trimmed.height != p.source.height ? 1 : 0;
    rotated += p.rotated ? 1 : 0;
  }
  std::printf("    trimmed frames: %u, rotated: %u\n", trimmed, rotated);
}

// Version 7: a timed clip's frame count and length, and whether it plays reversed.
void print_timed_clip(const SpriteClip& c) {
  uint64_t ms = 0;
  for (uint32_t d : c.durations_ms()) ms += d;
  std::printf("      timed (%zu frames, %llu ms)%s\n", c.durations_ms().size(),
              static_cast<unsigned long long>(ms), c.reverse() ? ", reverse" : "");
}

int inspect(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, false, o)) {
    std::fputs(kInspectUsage, stderr);
    return kExitUsage;
  }
  if (o.help) {
    std::fputs(kInspectUsage, stdout);
    return kExitOk;
  }
  if (o.positional.size() != 1) {
    std::fputs(kInspectUsage, stderr);
    return kExitUsage;
  }
  Result<Pack> pack = Pack::open(o.positional[0]);
  if (!pack) {
    std::fprintf(stderr, "animpack: %s\n", printable(pack.error().message()).c_str());
    return pack.error().code() == ErrorCode::kIo ? kExitUsage : kExitErrors;
  }
  std::printf("pack %s: format %u, %zu bytes\n", printable(o.positional[0]).c_str(),
              pack->format_version(), pack->bytes().size());
  // Identical vectors, strings and blobs are stored once (docs/pack-format.md, "Shared data").
  std::printf("shared: %llu bytes saved by storing identical data once\n",
              static_cast<unsigned long long>(pack->shared_bytes()));
  std::printf("meshes: %zu\n", pack->meshes().size());
  for (size_t m = 0; m < pack->meshes().size(); ++m) {
    const MeshInfo& mesh = pack->meshes()[m];
    uint64_t vertices = 0, triangles = 0;
    int skinned = 0, eight = 0, morphed = 0;
    for (int p = 0; p < mesh.part_count; ++p) {
      const PartInfo& part = pack->parts()[static_cast<size_t>(mesh.first_part + p)];
      vertices += part.vertex_count;
      triangles += part.index_count / 3;
      skinned += part.skinned;
      eight += part.eight_influences;
      morphed += part.morph_set >= 0;
    }
    std::printf("  [%zu] %s (%s): %d parts (%d skinned), %llu vertices, %llu triangles, rig %d\n",
                m, printable(mesh.name).c_str(), printable(mesh.source_file).c_str(),
                mesh.part_count, skinned, static_cast<unsigned long long>(vertices),
                static_cast<unsigned long long>(triangles), mesh.rig);
    if (eight > 0 || morphed > 0)
      std::printf("    %d parts with eight influences, %d with morph targets\n", eight, morphed);
    if (!(mesh.up.x == 0.0f && mesh.up.y == 1.0f && mesh.up.z == 0.0f && mesh.forward.x == 0.0f &&
          mesh.forward.y == 0.0f && mesh.forward.z == 1.0f)) {
      std::printf("    axes: up %g %g %g, forward %g %g %g\n", static_cast<double>(mesh.up.x),
                  static_cast<double>(mesh.up.y), static_cast<double>(mesh.up.z),
                  static_cast<double>(mesh.forward.x), static_cast<double>(mesh.forward.y),
                  static_cast<double>(mesh.forward.z));
    }
    const MeshBounds& bounds = pack->mesh_bounds(static_cast<int>(m));
    if (bounds.bind.valid()) {
      std::printf("    bounds [%g %g %g] .. [%g %g %g], %zu joint boxes\n",
                  static_cast<double>(bounds.bind.lo.x), static_cast<double>(bounds.bind.lo.y),
                  static_cast<double>(bounds.bind.lo.z), static_cast<double>(bounds.bind.hi.x),
                  static_cast<double>(bounds.bind.hi.y), static_cast<double>(bounds.bind.hi.z),
                  bounds.joints.size());
    }
    for (int p = 0; p < mesh.part_count; ++p) {
      const PartInfo& part = pack->parts()[static_cast<size_t>(mesh.first_part + p)];
      std::printf("    part [%d]: %u vertices, material %d%s%s%s", mesh.first_part + p,
                  part.vertex_count, part.material,
                  part.normals_generated ? ", normals generated" : "",
                  part.tangents_generated ? ", tangents generated" : "",
                  part.eight_influences ? ", eight influences" : "");
      if (part.morph_set >= 0)
        std::printf(", morph set %d (%u targets)", part.morph_set, part.morph_targets);
      std::printf("\n");
    }
  }
  std::printf("materials: %zu\n", pack->materials().size());
  for (size_t m = 0; m < pack->materials().size(); ++m) {
    const MaterialInfo& mat = pack->materials()[m];
    static constexpr const char* kAlpha[] = {"opaque", "mask", "blend"};
    std::printf("  [%zu] %s (%s): base colour %g %g %g %g, metallic %g, roughness %g, %s%s", m,
                printable(mat.name).c_str(), printable(mat.source_file).c_str(),
                static_cast<double>(mat.base_color.x), static_cast<double>(mat.base_color.y),
                static_cast<double>(mat.base_color.z), static_cast<double>(mat.base_color.w),
                static_cast<double>(mat.metallic), static_cast<double>(mat.roughness),
                kAlpha[static_cast<int>(mat.alpha_mode)], mat.double_sided ? ", double-sided" : "");
    const struct {
      const char* name;
      const TextureSlot& slot;
    } slots[] = {{"base colour", mat.base_color_texture},
                 {"metallic-roughness", mat.metallic_roughness_texture},
                 {"normal", mat.normal_texture},
                 {"occlusion", mat.occlusion_texture},
                 {"emissive", mat.emissive_texture}};
    for (const auto& s : slots) {
      if (s.slot.texture >= 0)
        std::printf(", %s texture %d (uv %d)", s.name, s.slot.texture, s.slot.uv_set);
    }
    std::printf("\n");
  }
  std::printf("textures: %zu\n", pack->textures().size());
  for (size_t t = 0; t < pack->textures().size(); ++t) {
    const TextureInfo& tex = pack->textures()[t];
    std::printf("  [%zu] %s image %d: %ux%u %s, from %s\n", t, printable(tex.source_file).c_str(),
                tex.source_image, tex.width, tex.height,
                tex.color_space == ColorSpace::kSrgb ? "sRGB" : "linear",
                printable(tex.mime_type).c_str());
  }
  std::printf("rigs: %d\n", pack->rig_count());
  for (int r = 0; r < pack->rig_count(); ++r) {
    const Rig& rig = pack->rig(r);
    std::printf("  [%d] %s rig: %d joints, %d clips", r, pack->node_rig(r) ? "node" : "skin",
                rig.skeleton().joint_count(), rig.clip_count());
    if (!rig.morph_sets().empty())
      std::printf(", %zu morph sets (%u weights)", rig.morph_sets().size(),
                  rig.morph_weight_count());
    std::printf("\n");
    for (size_t m = 0; m < rig.morph_sets().size(); ++m) {
      const MorphSet& set = rig.morph_sets()[m];
      std::printf("    morph set [%zu] %s: node %d, joint %d, %u targets:", m,
                  printable(set.name).c_str(), pack->morph_source_node(r, static_cast<int>(m)),
                  set.joint, set.size());
      for (size_t t = 0; t < set.target_names.size(); ++t)
        std::printf("%s %s (%g)", t == 0 ? "" : ",", printable(set.target_names[t]).c_str(),
                    static_cast<double>(set.default_weights[t]));
      std::printf("\n");
    }
    for (int c = 0; c < rig.clip_count(); ++c) {
      const Clip& clip = rig.clips()[static_cast<size_t>(c)];
      size_t keys = 0, weights = 0;
      for (const Channel& ch : clip.channels()) {
        keys += ch.times.size();
        weights += ch.property == Property::kWeights;
      }
      std::printf("    clip [%d] %s: %.4g s, %zu channels, %zu keys", c,
                  printable(clip.name()).c_str(), static_cast<double>(clip.duration()),
                  clip.channels().size(), keys);
      if (weights > 0) std::printf(", %zu weights channels", weights);
      if (clip.additive() != AdditiveReference::kNone)
        std::printf(", additive (%s)", additive_text(clip.additive()));
      // Format 6: how the keys are stored (older packs: float arrays, nothing measured).
      const ClipStorage& st = clip.storage();
      if (st.compression == ClipCompression::kLossy)
        std::printf(", lossy (tolerance %.4g m at %.4g m, max error %.4g m), %llu key bytes",
                    static_cast<double>(st.tolerance), static_cast<double>(st.distance),
                    static_cast<double>(st.max_error),
                    static_cast<unsigned long long>(st.stored_bytes));
      else if (st.stored_bytes > 0)
        std::printf(", exact, %llu key bytes", static_cast<unsigned long long>(st.stored_bytes));
      std::printf("\n");
    }
  }
  std::printf("sprite sheets: %zu\n", pack->sprite_sheets().size());
  for (size_t s = 0; s < pack->sprite_sheets().size(); ++s) {
    const SpriteSheet& sheet = pack->sprite_sheets()[s];
    const std::string_view src = pack->sprite_source(static_cast<int>(s));
    std::printf("  [%zu] %s: %ux%u, %u frames, %zu clips\n", s, printable(src).c_str(),
                sheet.atlas().size().width, sheet.atlas().size().height,
                sheet.atlas().frame_count(), sheet.clips().size());
    if (sheet.atlas().has_placements()) print_sheet_placements(sheet.atlas());  // version 7
    for (const SpriteClip& c : sheet.clips()) {
      std::printf("    clip %s: %zu frames at %g fps, %s, %zu events\n",
                  printable(c.name()).c_str(), c.frames().size(), static_cast<double>(c.fps()),
                  playback_text(c.playback()), c.events().size());
      if (!c.durations_ms().empty()) print_timed_clip(c);  // version 7
    }
  }
  std::printf("objects: %zu\n", pack->objects().size());
  for (const ObjectInfo& obj : pack->objects()) {
    std::printf("  %s: mesh %d", printable(obj.name).c_str(), obj.mesh);
    if (obj.animated) {
      const ObjectAnimationInfo& a = obj.animation;
      if (a.sprite_sheet >= 0) {
        const SpriteSheet& sheet = pack->sprite_sheets()[static_cast<size_t>(a.sprite_sheet)];
        std::printf(", sprite sheet %d, clip %s", a.sprite_sheet,
                    a.clip >= 0
                        ? printable(sheet.clips()[static_cast<size_t>(a.clip)].name()).c_str()
                        : "-");
      } else {
        const int rig = obj.mesh >= 0 ? pack->meshes()[static_cast<size_t>(obj.mesh)].rig : -1;
        auto clip_name = [&](int c) -> std::string {
          return rig >= 0 && c >= 0
                     ? printable(pack->rig(rig).clips()[static_cast<size_t>(c)].name())
                     : "-";
        };
        std::printf(", clip %s", clip_name(a.clip).c_str());
        for (const BlendEntry& b : a.blend) {
          std::printf(", blend %s %g", clip_name(b.clip).c_str(), static_cast<double>(b.weight));
        }
        std::printf(", %s", playback_text(a.playback));
      }
      std::printf(", speed %g, start %g, %zu events", static_cast<double>(a.speed),
                  static_cast<double>(a.start), a.events.size());
      if (a.graph) {
        std::printf(", state machine: %zu parameters, %zu states, %zu transitions, %zu layers",
                    a.graph->parameters.size(), a.graph->states.size(), a.graph->transitions.size(),
                    a.graph->layers.size());
      }
    }
    std::printf("\n");
    if (obj.animated && obj.animation.graph) {
      // Pack::open refuses a graph on an object without a rig.
      const int rig = pack->meshes()[static_cast<size_t>(obj.mesh)].rig;
      print_graph(*obj.animation.graph, pack->rig(rig));
    }
    if (obj.animated && (obj.animation.root_motion || !obj.animation.ik.empty())) {
      // Pack::open refuses root motion and IK on an object without a rig.
      const int rig = pack->meshes()[static_cast<size_t>(obj.mesh)].rig;
      print_root_motion_and_ik(obj.animation, pack->rig(rig));
    }
  }
  return kExitOk;
}

}  // namespace
}  // namespace animpack

namespace animpack {
namespace {

int dispatch(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  const std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (command == "--version") {
    std::printf("animpack %s (pack format %u)\n", ANIMPACK_VERSION, kPackFormatVersion);
    return kExitOk;
  }
  if (command == "cook") return cook_or_check(argc - 2, argv + 2, true);
  if (command == "check") return cook_or_check(argc - 2, argv + 2, false);
  if (command == "inspect") return inspect(argc - 2, argv + 2);
  if (command == "play") return play_main(argc - 2, argv + 2);
  if (command == "pose") return pose_main(argc - 2, argv + 2);
  if (command == "preview") return preview_command(argc - 2, argv + 2);
  if (command == "retarget") return retarget_command(argc - 2, argv + 2);
  std::fprintf(stderr, "animpack: unknown command '%s'\n\n%s", argv[1], kUsage);
  return kExitUsage;
}

}  // namespace
}  // namespace animpack

// Nothing escapes main: an unexpected failure is a message and exit status 2, never a
// stack trace or std::terminate. A signal that ends a cook removes its temporary files.
int main(int argc, char** argv) {
  using namespace animpack;
  install_temp_file_cleanup();
  try {
    return dispatch(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fputs("animpack: out of memory\n", stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "animpack: internal error: %s\n", e.what());
  } catch (...) {
    std::fputs("animpack: internal error\n", stderr);
  }
  return kExitUsage;
}
