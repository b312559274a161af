// `animpack retarget SOURCE TARGET`: reads both models (read_gltf + import_gltf), pairs
// their joints (pair_joints, with humanoid maps read from TOML files), retargets SOURCE's
// clips onto TARGET's skeleton (retarget_clip) and prints the pairing (--dry-run) or writes
// a pack of TARGET's model with the retargeted clips and one object playing the first.
#include "animpack/compiler/retarget.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "animpack/compiler/cook.h"
#include "animpack/compiler/diagnostics.h"
#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"
#include "animpack/compiler/input_file.h"
#include "animpack/compiler/mesh_bounds.h"
#include "animpack/compiler/output_check.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/rig.h"
#include "commands.h"

namespace animpack::cli {
namespace {

const char* const kRetargetUsage =
    "usage: animpack retarget SOURCE TARGET [--humanoid-source FILE.toml]\n"
    "                         [--humanoid-target FILE.toml] [--clip NAME]... [--dry-run]\n"
    "                         [-o OUT.anpk]\n"
    "\n"
    "Plays the clips of the SOURCE model on the skeleton of the TARGET model (both .gltf or\n"
    ".glb). Joints are paired through the humanoid maps first, then by equal names, then by\n"
    "names folded (case, separators and rig prefixes: mixamorig:LeftArm = Left_Arm);\n"
    "rotations keep their turn from each rig's rest pose, the hips' translation is scaled by\n"
    "the ratio of hip heights, and channels of joints the target lacks are dropped\n"
    "(docs/retargeting.md). --dry-run prints the pairing and what each clip keeps; otherwise\n"
    "a pack of TARGET's model with the retargeted clips and one object (named after TARGET,\n"
    "playing the first clip) is written, replacing a previous one only whole.\n"
    "\n"
    "  --humanoid-source FILE   SOURCE's humanoid map: TOML, bone = \"joint\" per line (or a\n"
    "                           [humanoid] table), bones as docs/retargeting.md lists them\n"
    "  --humanoid-target FILE   TARGET's humanoid map\n"
    "  --clip NAME              retarget this clip of SOURCE only (repeatable; default all)\n"
    "  --dry-run                print the pairing table and each clip's kept and dropped\n"
    "                           channels; write nothing\n"
    "  -o, --output FILE        the pack to write (needed without --dry-run)\n";

namespace fs = std::filesystem;

struct Args {
  std::string source, target, humanoid_source, humanoid_target, output;
  std::vector<std::string> clips;
  bool dry_run = false;
};

// The arguments as CLI11 collected them; "" when they make sense, else the problem.
std::string check(const CLI::App& command, const std::vector<std::string>& positional, Args& a) {
  const struct {
    const char* name;   // as CLI11 knows the option
    const char* shown;  // as the message names it
    const std::string* value;
  } singles[] = {{"--humanoid-source", "--humanoid-source", &a.humanoid_source},
                 {"--humanoid-target", "--humanoid-target", &a.humanoid_target},
                 {"--output", "-o", &a.output}};
  for (const auto& single : singles) {
    if (command.count(single.name) > 1) return std::string(single.shown) + " is given twice";
    if (command.count(single.name) == 1 && single.value->empty())
      return std::string(single.shown) + " needs a non-empty value";
  }
  for (size_t i = 0; i < a.clips.size(); ++i) {
    if (a.clips[i].empty()) return "--clip needs a non-empty value";
    if (std::find(a.clips.begin(), a.clips.begin() + static_cast<std::ptrdiff_t>(i), a.clips[i]) !=
        a.clips.begin() + static_cast<std::ptrdiff_t>(i)) {
      return "--clip " + printable(a.clips[i]) + " is given twice";
    }
  }
  if (positional.size() != 2) {
    return "needs SOURCE and TARGET model files (" + std::to_string(positional.size()) + " given)";
  }
  a.source = positional[0];
  a.target = positional[1];
  if (a.dry_run && !a.output.empty()) return "--dry-run writes nothing: drop -o or --dry-run";
  if (!a.dry_run && a.output.empty()) return "-o OUT.anpk is needed (or --dry-run)";
  return "";
}

// The file exists and is a regular file; else prints why and returns false.
bool readable(const std::string& path, const char* role) {
  const FileIdentity id = identity_of(path);
  if (id.exists && id.regular) return true;
  std::fprintf(stderr, "animpack retarget: cannot read %s %s: %s\n", role, printable(path).c_str(),
               !id.exists ? "no such file" : (std::string("it is ") + id.kind).c_str());
  return false;
}

// Reads and imports one model; prints its problems. nullopt (the exit status in *status)
// when it cannot be used: reader or import errors, or no skeleton.
std::optional<ImportedModel> load_model(const std::string& path, const char* role,
                                        std::vector<fs::path>& inputs, int* status) {
  *status = kExitErrors;
  if (!readable(path, role)) {
    *status = kExitUsage;
    return std::nullopt;
  }
  const GltfDocument doc = read_gltf(path);
  for (const fs::path& f : doc.files) inputs.push_back(f);
  for (const GltfIssue& issue : doc.issues) {
    std::fprintf(stderr, "%s\n", printable(format_gltf_issue(path, issue)).c_str());
  }
  if (!doc.ok()) {
    std::fprintf(stderr, "animpack retarget: %s %s does not load\n", role, printable(path).c_str());
    return std::nullopt;
  }
  ImportedModel model =
      import_gltf(doc, fs::path(path).stem().string(), fs::path(path).filename().string());
  for (const ImportIssue& issue : model.issues) {
    const char* kind = issue.error ? "error" : issue.note ? "note" : "warning";
    std::fprintf(stderr, "%s: %s: %s%s%s [%s]\n", printable(path).c_str(), kind,
                 printable(issue.pointer).c_str(), issue.pointer.empty() ? "" : ": ",
                 printable(issue.message).c_str(), issue.code.c_str());
  }
  if (!model.ok()) {
    std::fprintf(stderr, "animpack retarget: %s %s cannot be imported\n", role,
                 printable(path).c_str());
    return std::nullopt;
  }
  if (!model.rig) {
    std::fprintf(stderr,
                 "animpack retarget: %s %s has no skeleton (no skin and no animated node)\n", role,
                 printable(path).c_str());
    return std::nullopt;
  }
  return model;
}

// Reads a humanoid map: TOML with `bone = "joint"` keys at the top or in a [humanoid]
// table. Every bone must be one of kHumanoidBones, every joint one of `skeleton`'s.
// Problems are printed as FILE:LINE:COL: error: ...; returns the exit status (0 on success).
int read_humanoid(const std::string& path, const Skeleton& skeleton, const std::string& model,
                  HumanoidMap& out) {
  if (!readable(path, "humanoid map")) return kExitUsage;
  const InputFile in = read_input_file(path, kMaxSceneFileBytes);
  if (!in.ok()) {
    std::fprintf(stderr, "animpack retarget: cannot read humanoid map: %s\n",
                 printable(in.error).c_str());
    return kExitUsage;
  }
  const std::string_view text(reinterpret_cast<const char*>(in.bytes.data()), in.bytes.size());
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    std::fprintf(stderr, "%s:%u:%u: error: %s\n", printable(path).c_str(),
                 static_cast<unsigned>(e.source().begin.line),
                 static_cast<unsigned>(e.source().begin.column),
                 printable(std::string(e.description())).c_str());
    return kExitErrors;
  }
  const toml::table* map = &root;
  if (const toml::table* inner = root["humanoid"].as_table()) map = inner;
  int errors = 0;
  auto error = [&](const toml::source_region& at, const std::string& what) {
    std::fprintf(stderr, "%s:%u:%u: error: %s\n", printable(path).c_str(),
                 static_cast<unsigned>(at.begin.line), static_cast<unsigned>(at.begin.column),
                 what.c_str());
    ++errors;
  };
  for (const auto& [key, node] : *map) {
    const std::string bone(key.str());
    if (!is_humanoid_bone(bone)) {
      std::string bones;
      for (std::string_view b : kHumanoidBones)
        bones += (bones.empty() ? "" : ", ") + std::string(b);
      error(key.source(), "'" + printable(bone) + "' is not a humanoid bone (" + bones + ")");
      continue;
    }
    const std::optional<std::string> joint = node.value<std::string>();
    if (!node.is_string() || !joint) {
      error(node.source(), "humanoid bone '" + bone + "' needs a joint name (a string)");
      continue;
    }
    if (skeleton.find_joint(*joint) < 0) {
      error(node.source(), "humanoid bone '" + bone + "': '" + printable(*joint) +
                               "' is not a joint of " + printable(model));
      continue;
    }
    out.emplace_back(bone, *joint);
  }
  if (errors > 0) {
    std::fprintf(stderr, "animpack retarget: %s: %d error(s)\n", printable(path).c_str(), errors);
    return kExitErrors;
  }
  return kExitOk;
}

bool same_morph_sets(const Rig& a, const Rig& b) {
  if (a.morph_sets().size() != b.morph_sets().size()) return false;
  for (size_t i = 0; i < a.morph_sets().size(); ++i) {
    const MorphSet &x = a.morph_sets()[i], &y = b.morph_sets()[i];
    if (x.name != y.name || x.target_names != y.target_names) return false;
  }
  return true;
}

std::string joint_name(const Skeleton& s, int j) {
  return printable(s.joints()[static_cast<size_t>(j)].name);
}

void print_pairing(const Args& a, const Skeleton& source, const Skeleton& target,
                   const JointPairing& p) {
  int paired = 0;
  size_t width_s = std::string_view("source joint").size();
  size_t width_t = std::string_view("target joint").size();
  for (int s = 0; s < source.joint_count(); ++s) {
    width_s = std::max(width_s, joint_name(source, s).size());
    const int t = p.target_of[static_cast<size_t>(s)];
    if (t >= 0) {
      ++paired;
      width_t = std::max(width_t, joint_name(target, t).size());
    }
  }
  std::printf("pairing %s (%d joints) -> %s (%d joints): %d paired\n", printable(a.source).c_str(),
              source.joint_count(), printable(a.target).c_str(), target.joint_count(), paired);
  const int ws = static_cast<int>(width_s), wt = static_cast<int>(width_t);
  std::printf("  %-*s  %-*s  how\n", ws, "source joint", wt, "target joint");
  for (int s = 0; s < source.joint_count(); ++s) {
    const int t = p.target_of[static_cast<size_t>(s)];
    const std::string how = t >= 0 ? p.how[static_cast<size_t>(s)]
                                   : "unpaired: " + printable(p.reason[static_cast<size_t>(s)]);
    std::printf("  %-*s  %-*s  %s\n", ws, joint_name(source, s).c_str(), wt,
                t >= 0 ? joint_name(target, t).c_str() : "-", how.c_str());
  }
  std::printf("target joints without a source joint: %zu", p.unpaired_targets.size());
  for (size_t i = 0; i < p.unpaired_targets.size(); ++i) {
    std::printf("%s%s", i == 0 ? " (" : ", ", joint_name(target, p.unpaired_targets[i]).c_str());
  }
  std::printf("%s\n", p.unpaired_targets.empty() ? "" : ")");
  if (p.source_hips >= 0) {
    std::printf("hips: %s -> %s\n", joint_name(source, p.source_hips).c_str(),
                joint_name(target, p.target_hips).c_str());
  } else {
    std::printf("hips: none\n");
  }
}

// One clip's outcome: kept and dropped channels, dropped joints, notes or the error.
void print_clip(const Clip& clip, const RetargetedClip& r, const Skeleton& source, FILE* to) {
  if (!r.ok) {
    std::fprintf(to, "error: %s\n", printable(r.error).c_str());
    return;
  }
  const size_t kept = r.clip.channels().size(), all = clip.channels().size();
  std::fprintf(to, "clip %s: %.4g s, %zu of %zu channels kept, %zu dropped",
               printable(clip.name()).c_str(), static_cast<double>(clip.duration()), kept, all,
               all - kept);
  for (size_t i = 0; i < r.dropped_joints.size(); ++i) {
    std::fprintf(to, "%s%s", i == 0 ? " (joints without a pair: " : ", ",
                 joint_name(source, r.dropped_joints[i]).c_str());
  }
  std::fprintf(to, "%s\n", r.dropped_joints.empty() ? "" : ")");
  for (const std::string& n : r.notes) std::fprintf(to, "  note: %s\n", printable(n).c_str());
}

int run(const CLI::App& command, const Args& a) {
  std::vector<fs::path> inputs;
  int status = kExitOk;
  std::optional<ImportedModel> source = load_model(a.source, "source", inputs, &status);
  if (!source) return status;
  std::optional<ImportedModel> target = load_model(a.target, "target", inputs, &status);
  if (!target) return status;
  const Rig& source_rig = source->rig->rig;
  const Skeleton& source_skeleton = source_rig.skeleton();
  const Skeleton& target_skeleton = target->rig->rig.skeleton();

  HumanoidMap source_map, target_map;
  if (!a.humanoid_source.empty()) {
    inputs.emplace_back(a.humanoid_source);
    status = read_humanoid(a.humanoid_source, source_skeleton, a.source, source_map);
    if (status != kExitOk) return status;
  }
  if (!a.humanoid_target.empty()) {
    inputs.emplace_back(a.humanoid_target);
    status = read_humanoid(a.humanoid_target, target_skeleton, a.target, target_map);
    if (status != kExitOk) return status;
  }

  // The clips to retarget, as --clip names them (else all, in file order).
  std::vector<int> selected;
  for (const std::string& name : a.clips) {
    int found = -1;
    for (int c = 0; c < source_rig.clip_count(); ++c) {
      if (source_rig.clips()[static_cast<size_t>(c)].name() == name) found = c;
    }
    if (found < 0) {
      std::string names;
      for (const Clip& c : source_rig.clips()) names += (names.empty() ? "" : ", ") + c.name();
      return usage_error(command, "--clip " + printable(name) + ": " + printable(a.source) +
                                      " has no such clip (its clips: " +
                                      (names.empty() ? "none" : printable(names)) + ")");
    }
    selected.push_back(found);
  }
  if (a.clips.empty()) {
    for (int c = 0; c < source_rig.clip_count(); ++c) selected.push_back(c);
  }
  if (selected.empty()) {
    std::fprintf(stderr, "animpack retarget: source %s has no clips\n",
                 printable(a.source).c_str());
    return kExitErrors;
  }

  const JointPairing pairing =
      pair_joints(source_skeleton, target_skeleton, source_map, target_map);
  RetargetOptions options;
  options.morph_sets_match = same_morph_sets(source_rig, target->rig->rig);
  if (a.dry_run) print_pairing(a, source_skeleton, target_skeleton, pairing);
  std::vector<Clip> clips;
  std::vector<int> clip_sources;
  for (int c : selected) {
    const Clip& clip = source_rig.clips()[static_cast<size_t>(c)];
    RetargetedClip r = retarget_clip(clip, source_skeleton, target_skeleton, pairing, options);
    print_clip(clip, r, source_skeleton, a.dry_run ? stdout : stderr);
    if (!r.ok) continue;
    clips.push_back(std::move(r.clip));
    const std::vector<int>& src = source->rig->clip_source_animations;
    clip_sources.push_back(static_cast<size_t>(c) < src.size() ? src[static_cast<size_t>(c)] : -1);
  }
  if (clips.empty()) {
    std::fprintf(stderr, "animpack retarget: no clip of %s plays on %s\n",
                 printable(a.source).c_str(), printable(a.target).c_str());
    return kExitErrors;
  }
  if (a.dry_run) return kExitOk;

  // TARGET's model with the retargeted clips, and one object playing the first.
  CookedPack pack;
  CookedRig rig = std::move(*target->rig);
  const std::vector<MorphSet> sets(rig.rig.morph_sets().begin(), rig.rig.morph_sets().end());
  const size_t clip_count = clips.size();
  Result<Rig> built = Rig::create(rig.rig.skeleton(), std::move(clips), sets);
  if (!built) {
    std::fprintf(stderr, "animpack retarget: the retargeted clips do not validate on %s: %s\n",
                 printable(a.target).c_str(), printable(built.error().message()).c_str());
    return kExitErrors;
  }
  rig.rig = std::move(*built);
  rig.clip_source_animations = std::move(clip_sources);
  pack.rigs.push_back(std::move(rig));
  CookedMesh mesh = std::move(target->mesh);
  mesh.rig = 0;
  compute_mesh_bounds(mesh, &pack.rigs[0]);
  CookedObject object;
  object.name = mesh.name;
  object.mesh = 0;
  object.animated = true;
  object.animation.clip = 0;
  pack.meshes.push_back(std::move(mesh));
  pack.objects.push_back(std::move(object));
  pack.materials = std::move(target->materials);
  pack.textures = std::move(target->textures);

  if (const std::string problem = output_problem(a.output, "pack", inputs, nullptr, "");
      !problem.empty()) {
    std::fprintf(stderr, "animpack retarget: %s; nothing written\n", problem.c_str());
    return kExitUsage;
  }
  const std::vector<uint8_t> bytes = write_pack(pack);
  if (DiagnosticSink verify; !verify_pack(bytes, a.target, verify)) {
    const std::string text = format_diagnostics(verify, DiagnosticFormat::kGcc);
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fprintf(stderr, "animpack retarget: internal error; no pack written\n");
    return kExitErrors;
  }
  if (const std::string err = write_file_atomically(a.output, bytes); !err.empty()) {
    std::fprintf(stderr, "animpack retarget: %s\n", err.c_str());
    return kExitUsage;
  }
  std::fprintf(stderr, "animpack retarget: %s -> %s: %zu of %zu clips onto %s (%zu bytes)\n",
               printable(a.source).c_str(), printable(a.output).c_str(), clip_count,
               selected.size(), printable(a.target).c_str(), bytes.size());
  return kExitOk;
}

}  // namespace

void add_retarget_command(CLI::App& app, int* status) {
  CLI::App* sub = add_command(app, "retarget", "SOURCE's clips on TARGET's skeleton: pairing, pack",
                              kRetargetUsage);
  auto a = std::make_shared<Args>();
  auto positional = std::make_shared<std::vector<std::string>>();
  sub->add_option("SOURCE TARGET", *positional);
  sub->add_option("--humanoid-source", a->humanoid_source);
  sub->add_option("--humanoid-target", a->humanoid_target);
  sub->add_option("-o,--output", a->output);
  sub->add_option("--clip", a->clips)->allow_extra_args(false);
  sub->add_flag("--dry-run", a->dry_run);
  on_run(sub, status, [sub, a, positional] {
    if (const std::string problem = check(*sub, *positional, *a); !problem.empty()) {
      return usage_error(*sub, problem);
    }
    return run(*sub, *a);
  });
}

}  // namespace animpack::cli
