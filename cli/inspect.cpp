// `animpack inspect`: what a pack holds, read through the runtime's Pack::open (verified
// first). See docs/cli.md.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "animpack/compiler/diagnostics.h"
#include "animpack/pack.h"
#include "commands.h"

namespace animpack::cli {
namespace {

const char* const kInspectUsage =
    "usage: animpack inspect PACK.anpk\n"
    "\n"
    "Opens and verifies a pack and lists its meshes, rigs with their joint and clip counts,\n"
    "clips with their durations, sprite sheets and objects with their animation.\n";

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

int inspect(const std::string& path) {
  Result<Pack> pack = Pack::open(path);
  if (!pack) {
    std::fprintf(stderr, "animpack: %s\n", printable(pack.error().message()).c_str());
    return pack.error().code() == ErrorCode::kIo ? kExitUsage : kExitErrors;
  }
  std::printf("pack %s: format %u, %zu bytes\n", printable(path).c_str(), pack->format_version(),
              pack->bytes().size());
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
    for (const SpriteClip& c : sheet.clips()) {
      std::printf("    clip %s: %zu frames at %g fps, %s, %zu events\n",
                  printable(c.name()).c_str(), c.frames().size(), static_cast<double>(c.fps()),
                  playback_text(c.playback()), c.events().size());
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

void add_inspect_command(CLI::App& app, int* status) {
  CLI::App* sub = add_command(app, "inspect", "what a pack holds", kInspectUsage);
  auto positional = std::make_shared<std::vector<std::string>>();
  sub->add_option("PACK", *positional);
  on_run(sub, status, [sub, positional] {
    if (positional->size() != 1) {
      return usage_error(*sub,
                         "needs one PACK.anpk (" + std::to_string(positional->size()) + " given)");
    }
    return inspect(positional->front());
  });
}

}  // namespace animpack::cli
