// measure_pack and the two pack report writers (pack_report.h). The text form is what
// `animpack inspect` has always printed, with the sizes block after it.
#include "animpack/compiler/pack_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <unordered_set>
#include <utility>

#include "animpack/compiler/diagnostics.h"
#include "animpack/schema/pack_generated.h"
#include "report_format.h"

namespace animpack {
namespace {

namespace fb = animpack::schema;
using Json = nlohmann::ordered_json;

constexpr const char* kCodecNames[8] = {"raw",
                                        "lz4",
                                        "meshopt_vertex",
                                        "meshopt_vertex+lz4",
                                        "meshopt_index",
                                        "meshopt_index+lz4",
                                        "meshopt_sequence",
                                        "meshopt_sequence+lz4"};

// Counts each address once into the section it is first met in.
class SizeWalk {
 public:
  bool first(const void* at) { return at && seen_.insert(at).second; }
  void str(PackSection& s, const flatbuffers::String* x) {
    if (x && first(x)) add(s, uint64_t{x->size()} + 5, uint64_t{x->size()} + 5);
  }
  template <typename V>
  void vec(PackSection& s, const V* v) {
    if (v && first(v)) {
      const uint64_t n = uint64_t{v->size()} * sizeof(*v->data()) + 4;
      add(s, n, n);
    }
  }
  // A blob's data into `s` and into its codec's entry of `codecs` (8 slots).
  void blob(PackSection& s, PackSection* codecs, const fb::Blob* b) {
    if (!b || !b->data() || !first(b->data())) return;
    const uint64_t n = uint64_t{b->data()->size()} + 4;
    add(s, n, b->raw_size());
    const auto c = static_cast<size_t>(b->compression());
    if (codecs && c < 8) add(codecs[c], n, b->raw_size());
  }
  static void add(PackSection& s, uint64_t bytes, uint64_t raw) {
    s.bytes += bytes;
    s.raw += raw;
    ++s.count;
  }

 private:
  std::unordered_set<const void*> seen_;
};

std::vector<PackCodecSection> used_codecs(const PackSection* codecs) {
  std::vector<PackCodecSection> out;
  for (size_t c = 0; c < 8; ++c) {
    if (codecs[c].count > 0) out.push_back({kCodecNames[c], codecs[c]});
  }
  return out;
}

const char* playback_text(Playback p) { return playback_name(p); }

const char* additive_text(AdditiveReference r) { return additive_reference_name(r); }

// An object's state machine and layers (pack format 3), one line per parameter, state,
// transition and layer. Indices are in range: Pack::open checked them.
// Version 7: how many of a sheet's frames are trimmed and rotated.
void print_sheet_placements(std::string& out, const Atlas& atlas) {
  uint32_t trimmed = 0, rotated = 0;
  for (uint32_t f = 0; f < atlas.frame_count(); ++f) {
    const FramePlacement p = *atlas.placement(f);
    trimmed += p.trimmed.width != p.source.width || p.trimmed.height != p.source.height ? 1 : 0;
    rotated += p.rotated ? 1 : 0;
  }
  appendf(out, "    trimmed frames: %u, rotated: %u\n", trimmed, rotated);
}

// The total length of a timed sprite clip in milliseconds.
uint64_t timed_clip_ms(const SpriteClip& c) {
  uint64_t ms = 0;
  for (uint32_t d : c.durations_ms()) ms += d;
  return ms;
}

// Version 7: a timed clip's frame count and length, and whether it plays reversed.
void print_timed_clip(std::string& out, const SpriteClip& c) {
  appendf(out, "      timed (%zu frames, %llu ms)%s\n", c.durations_ms().size(),
          static_cast<unsigned long long>(timed_clip_ms(c)), c.reverse() ? ", reverse" : "");
}

void print_graph(std::string& out, const GraphDef& g, const Rig& rig) {
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
    appendf(out, "    parameter %s: %s", printable(p.name).c_str(),
            kKinds[static_cast<int>(p.kind)]);
    if (p.kind == ParameterKind::kFloat) {
      appendf(out, ", default %g, range [%g, %g]", static_cast<double>(p.default_value),
              static_cast<double>(p.min), static_cast<double>(p.max));
    } else if (p.kind == ParameterKind::kBool) {
      appendf(out, ", default %s", p.default_value != 0.0f ? "true" : "false");
    }
    appendf(out, "\n");
  }
  for (size_t s = 0; s < g.states.size(); ++s) {
    const StateDef& st = g.states[s];
    appendf(out, "    state [%zu] %s%s: ", s, printable(st.name).c_str(), s == 0 ? " (start)" : "");
    if (st.clip >= 0) {
      appendf(out, "clip %s", clip(st.clip).c_str());
    } else {
      appendf(out, "blend on %s", parameter(st.x_parameter).c_str());
      if (st.y_parameter >= 0) appendf(out, " x %s", parameter(st.y_parameter).c_str());
      for (const BlendPoint& p : st.points) {
        appendf(out, st.y_parameter >= 0 ? ", %s at (%g, %g)" : ", %s at %g", clip(p.clip).c_str(),
                static_cast<double>(p.x), static_cast<double>(p.y));
      }
    }
    if (st.speed_parameter >= 0) {
      appendf(out, ", speed %s", parameter(st.speed_parameter).c_str());
    } else {
      appendf(out, ", speed %g", static_cast<double>(st.speed));
    }
    appendf(out, ", %s, start %g\n", playback_text(st.playback), st.start);
  }
  for (size_t t = 0; t < g.transitions.size(); ++t) {
    const TransitionDef& tr = g.transitions[t];
    appendf(out, "    transition [%zu] %s -> %s", t, state(tr.from).c_str(), state(tr.to).c_str());
    for (size_t c = 0; c < tr.conditions.size(); ++c) {
      const ConditionDef& cd = tr.conditions[c];
      appendf(out, c == 0 ? " when " : " and ");
      switch (cd.kind) {
        case ConditionKind::kAbove:
        case ConditionKind::kBelow:
          appendf(out, "%s %s %g", parameter(cd.parameter).c_str(),
                  kConditions[static_cast<int>(cd.kind)], static_cast<double>(cd.value));
          break;
        case ConditionKind::kIs:
          appendf(out, "%s is %s", parameter(cd.parameter).c_str(),
                  cd.value != 0.0f ? "true" : "false");
          break;
        case ConditionKind::kTrigger:
          appendf(out, "trigger %s", parameter(cd.parameter).c_str());
          break;
        case ConditionKind::kExitTime:
          appendf(out, "exit_time %g", static_cast<double>(cd.value));
          break;
      }
    }
    appendf(out, ", fade %g\n", tr.fade);
  }
  for (size_t l = 0; l < g.layers.size(); ++l) {
    const LayerDef& ly = g.layers[l];
    appendf(out, "    layer [%zu] %s %s", l,
            ly.mode == LayerMode::kAdditive ? "additive" : "override", clip(ly.clip).c_str());
    if (ly.weight_parameter >= 0) {
      appendf(out, ", weight %s", parameter(ly.weight_parameter).c_str());
    } else {
      appendf(out, ", weight %g", static_cast<double>(ly.weight));
    }
    if (ly.mask.empty()) {
      appendf(out, ", every joint");
    } else {
      size_t covered = 0;
      for (float w : ly.mask) covered += w > 0.0f ? 1 : 0;
      appendf(out, ", mask %zu of %zu joints", covered, ly.mask.size());
    }
    appendf(out, ", speed %g, %s\n", static_cast<double>(ly.speed), playback_text(ly.playback));
  }
}

// An object's root motion (pack format 4): policy, joint, extract bits, rate, and per clip
// with a track the travel of one pass (the track's last sample: object units and turns);
// then its IK solvers: kind, joints by name, target, weight. Indices are in range:
// Pack::open checked them.
void print_root_motion_and_ik(std::string& out, const ObjectAnimationInfo& a, const Rig& rig) {
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
    appendf(out, "    root motion: %s, joint %s, extract %s, %d samples a second, up %g %g %g\n",
            root_motion_policy_name(rm->policy), joint(rm->joint).c_str(), extract.c_str(),
            rm->rate, static_cast<double>(rm->up.x), static_cast<double>(rm->up.y),
            static_cast<double>(rm->up.z));
    constexpr double kUnit = static_cast<double>(kRootMotionUnitsPerMetre);
    constexpr double kTurn = static_cast<double>(kYawUnitsPerTurn);
    for (size_t c = 0; c < a.root_tracks.size(); ++c) {
      const std::span<const RootMotionSample> samples = a.root_tracks[c].samples;
      if (samples.empty()) continue;
      const RootMotionSample& end = samples.back();
      appendf(out, "      clip [%zu] %s: %zu samples, a pass travels %.6g %.6g %.6g, turns %.6g\n",
              c, printable(rig.clips()[c].name()).c_str(), samples.size(), end.x / kUnit,
              end.y / kUnit, end.z / kUnit, end.yaw / kTurn);
    }
  }
  for (size_t i = 0; i < a.ik.size(); ++i) {
    const IkSolverDef& s = a.ik[i];
    appendf(out, "    ik [%zu] %s: %s, joints", i, printable(s.name).c_str(), ik_kind_name(s.kind));
    for (uint16_t j : s.joints) appendf(out, " %s", joint(j).c_str());
    if (s.kind == IkKind::kFoot) {
      appendf(out, ", ground from the game (flat at the floor until set)");
    } else if (s.has_target) {
      appendf(out, ", target %g %g %g", static_cast<double>(s.target.x),
              static_cast<double>(s.target.y), static_cast<double>(s.target.z));
    } else {
      appendf(out, ", target from the game");
    }
    appendf(out, ", weight %g\n", static_cast<double>(s.weight));
  }
}
}  // namespace

PackSizes measure_pack(const Pack& pack) {
  PackSizes sizes;
  sizes.total = pack.bytes().size();
  SizeWalk w;
  PackSection vertex_codecs[8], index_codecs[8];
  PackSection& strings = sizes.strings;
  const fb::AssetPack* root = fb::GetAssetPack(pack.bytes().data());
  if (const auto* rigs = root->rigs()) {
    for (const fb::Rig* r : *rigs) {
      if (const auto* joints = r->joints())
        for (const fb::Joint* j : *joints) w.str(strings, j->name());
      if (const auto* clips = r->clips()) {
        for (const fb::Clip* c : *clips) {
          w.str(strings, c->name());
          if (const auto* channels = c->channels()) {
            for (const fb::Channel* ch : *channels) {
              w.vec(sizes.clip_keys, ch->times());
              w.vec(sizes.clip_keys, ch->values());
              w.vec(sizes.clip_keys, ch->keys());
              w.vec(sizes.clip_keys, ch->data());
              w.vec(sizes.clip_keys, ch->lane_min());
              w.vec(sizes.clip_keys, ch->lane_bits());
            }
          }
          if (const auto* tracks = c->tracks())
            for (const fb::TimeTrack* t : *tracks) w.vec(sizes.clip_keys, t->times());
          if (const auto* events = c->events())
            for (const fb::ClipEvent* e : *events) w.str(strings, e->name());
        }
      }
      if (const auto* sets = r->morph_sets()) {
        for (const fb::MorphSet* m : *sets) {
          w.str(strings, m->name());
          if (const auto* names = m->target_names())
            for (const flatbuffers::String* t : *names) w.str(strings, t);
        }
      }
    }
  }
  if (const auto* meshes = root->meshes()) {
    for (const fb::Mesh* m : *meshes) {
      w.str(strings, m->name());
      w.str(strings, m->source_file());
      if (!m->parts()) continue;
      for (const fb::Part* p : *m->parts()) {
        for (const fb::Blob* b :
             {p->positions(), p->normals(), p->tangents(), p->joints(), p->weights(),
              p->source_vertices(), p->texcoords0(), p->texcoords1(), p->colors(), p->joints1(),
              p->weights1(), p->morph_positions(), p->morph_normals(), p->morph_tangents()}) {
          w.blob(sizes.vertex_streams, vertex_codecs, b);
        }
        w.blob(sizes.index_streams, index_codecs, p->indices());
      }
    }
  }
  if (const auto* sheets = root->sprite_sheets()) {
    for (const fb::SpriteSheet* sh : *sheets) {
      w.str(strings, sh->source_file());
      w.blob(sizes.atlas_pixels, nullptr, sh->pixels());
      if (const auto* names = sh->frame_names())  // version 7
        for (const flatbuffers::String* n : *names) w.str(strings, n);
      if (const auto* clips = sh->clips()) {
        for (const fb::SpriteClip* c : *clips) {
          w.str(strings, c->name());
          if (const auto* events = c->events())
            for (const fb::FrameEvent* e : *events) w.str(strings, e->name());
        }
      }
    }
  }
  if (const auto* textures = root->textures()) {
    for (const fb::Texture* t : *textures) {
      w.str(strings, t->source_file());
      w.str(strings, t->mime_type());
      w.blob(sizes.textures, nullptr, t->pixels());
    }
  }
  if (const auto* materials = root->materials()) {
    for (const fb::Material* m : *materials) {
      w.str(strings, m->name());
      w.str(strings, m->source_file());
    }
  }
  if (const auto* objects = root->objects()) {
    for (const fb::Object* o : *objects) {
      w.str(strings, o->name());
      w.str(strings, o->material());
      w.str(strings, o->content());
      const fb::Animation* a = o->animation();
      if (!a) continue;
      if (const auto* events = a->events())
        for (const fb::ObjectEvent* e : *events) w.str(strings, e->name());
      if (const fb::Graph* g = a->graph()) {
        if (const auto* ps = g->parameters())
          for (const fb::GraphParameter* p : *ps) w.str(strings, p->name());
        if (const auto* ss = g->states())
          for (const fb::GraphState* s : *ss) w.str(strings, s->name());
      }
      if (const auto* ik = a->ik())
        for (const fb::IkSolver* s : *ik) w.str(strings, s->name());
    }
  }
  sizes.vertex_codecs = used_codecs(vertex_codecs);
  sizes.index_codecs = used_codecs(index_codecs);
  const uint64_t counted = sizes.clip_keys.bytes + sizes.vertex_streams.bytes +
                           sizes.index_streams.bytes + sizes.textures.bytes +
                           sizes.atlas_pixels.bytes + sizes.strings.bytes;
  sizes.other = counted < sizes.total ? sizes.total - counted : 0;
  return sizes;
}

namespace {

// The sizes block of the text form.
void print_sizes(std::string& out, const PackSizes& s) {
  auto section = [&](const char* what, const PackSection& x, bool raw) {
    appendf(out, "  %-15s %12llu bytes", what, static_cast<unsigned long long>(x.bytes));
    if (raw) appendf(out, " (%llu decoded)", static_cast<unsigned long long>(x.raw));
  };
  auto codecs = [&](const std::vector<PackCodecSection>& list) {
    for (size_t i = 0; i < list.size(); ++i) {
      appendf(out, "%s %s %llu (%u blobs)", i == 0 ? ":" : ",", list[i].codec.c_str(),
              static_cast<unsigned long long>(list[i].section.bytes), list[i].section.count);
    }
  };
  appendf(out, "sizes: %llu bytes\n", static_cast<unsigned long long>(s.total));
  section("clip keys:", s.clip_keys, false);
  appendf(out, ", %u arrays\n", s.clip_keys.count);
  section("vertex streams:", s.vertex_streams, true);
  codecs(s.vertex_codecs);
  out += '\n';
  section("index streams:", s.index_streams, true);
  codecs(s.index_codecs);
  out += '\n';
  section("textures:", s.textures, true);
  out += '\n';
  section("atlas pixels:", s.atlas_pixels, true);
  out += '\n';
  section("strings:", s.strings, false);
  appendf(out, ", %u strings\n", s.strings.count);
  appendf(out, "  %-15s %12llu bytes\n", "other:", static_cast<unsigned long long>(s.other));
}

}  // namespace

std::string pack_report_text(const Pack& pack, std::string_view name) {
  std::string out;

  appendf(out, "pack %s: format %u, %zu bytes\n", printable(name).c_str(), pack.format_version(),
          pack.bytes().size());
  // Identical vectors, strings and blobs are stored once (docs/pack-format.md, "Shared data").
  appendf(out, "shared: %llu bytes saved by storing identical data once\n",
          static_cast<unsigned long long>(pack.shared_bytes()));
  appendf(out, "meshes: %zu\n", pack.meshes().size());
  for (size_t m = 0; m < pack.meshes().size(); ++m) {
    const MeshInfo& mesh = pack.meshes()[m];
    uint64_t vertices = 0, triangles = 0;
    int skinned = 0, eight = 0, morphed = 0;
    for (int p = 0; p < mesh.part_count; ++p) {
      const PartInfo& part = pack.parts()[static_cast<size_t>(mesh.first_part + p)];
      vertices += part.vertex_count;
      triangles += part.index_count / 3;
      skinned += part.skinned;
      eight += part.eight_influences;
      morphed += part.morph_set >= 0;
    }
    appendf(out, "  [%zu] %s (%s): %d parts (%d skinned), %llu vertices, %llu triangles, rig %d\n",
            m, printable(mesh.name).c_str(), printable(mesh.source_file).c_str(), mesh.part_count,
            skinned, static_cast<unsigned long long>(vertices),
            static_cast<unsigned long long>(triangles), mesh.rig);
    if (eight > 0 || morphed > 0)
      appendf(out, "    %d parts with eight influences, %d with morph targets\n", eight, morphed);
    if (!(mesh.up.x == 0.0f && mesh.up.y == 1.0f && mesh.up.z == 0.0f && mesh.forward.x == 0.0f &&
          mesh.forward.y == 0.0f && mesh.forward.z == 1.0f)) {
      appendf(out, "    axes: up %g %g %g, forward %g %g %g\n", static_cast<double>(mesh.up.x),
              static_cast<double>(mesh.up.y), static_cast<double>(mesh.up.z),
              static_cast<double>(mesh.forward.x), static_cast<double>(mesh.forward.y),
              static_cast<double>(mesh.forward.z));
    }
    const MeshBounds& bounds = pack.mesh_bounds(static_cast<int>(m));
    if (bounds.bind.valid()) {
      appendf(out, "    bounds [%g %g %g] .. [%g %g %g], %zu joint boxes\n",
              static_cast<double>(bounds.bind.lo.x), static_cast<double>(bounds.bind.lo.y),
              static_cast<double>(bounds.bind.lo.z), static_cast<double>(bounds.bind.hi.x),
              static_cast<double>(bounds.bind.hi.y), static_cast<double>(bounds.bind.hi.z),
              bounds.joints.size());
    }
    for (int p = 0; p < mesh.part_count; ++p) {
      const PartInfo& part = pack.parts()[static_cast<size_t>(mesh.first_part + p)];
      appendf(out, "    part [%d]: %u vertices, material %d%s%s%s", mesh.first_part + p,
              part.vertex_count, part.material, part.normals_generated ? ", normals generated" : "",
              part.tangents_generated ? ", tangents generated" : "",
              part.eight_influences ? ", eight influences" : "");
      if (part.morph_set >= 0)
        appendf(out, ", morph set %d (%u targets)", part.morph_set, part.morph_targets);
      appendf(out, "\n");
    }
  }
  appendf(out, "materials: %zu\n", pack.materials().size());
  for (size_t m = 0; m < pack.materials().size(); ++m) {
    const MaterialInfo& mat = pack.materials()[m];
    static constexpr const char* kAlpha[] = {"opaque", "mask", "blend"};
    appendf(out, "  [%zu] %s (%s): base colour %g %g %g %g, metallic %g, roughness %g, %s%s", m,
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
        appendf(out, ", %s texture %d (uv %d)", s.name, s.slot.texture, s.slot.uv_set);
    }
    appendf(out, "\n");
  }
  appendf(out, "textures: %zu\n", pack.textures().size());
  for (size_t t = 0; t < pack.textures().size(); ++t) {
    const TextureInfo& tex = pack.textures()[t];
    appendf(out, "  [%zu] %s image %d: %ux%u %s, from %s\n", t, printable(tex.source_file).c_str(),
            tex.source_image, tex.width, tex.height,
            tex.color_space == ColorSpace::kSrgb ? "sRGB" : "linear",
            printable(tex.mime_type).c_str());
  }
  appendf(out, "rigs: %d\n", pack.rig_count());
  for (int r = 0; r < pack.rig_count(); ++r) {
    const Rig& rig = pack.rig(r);
    appendf(out, "  [%d] %s rig: %d joints, %d clips", r, pack.node_rig(r) ? "node" : "skin",
            rig.skeleton().joint_count(), rig.clip_count());
    if (!rig.morph_sets().empty())
      appendf(out, ", %zu morph sets (%u weights)", rig.morph_sets().size(),
              rig.morph_weight_count());
    appendf(out, "\n");
    for (size_t m = 0; m < rig.morph_sets().size(); ++m) {
      const MorphSet& set = rig.morph_sets()[m];
      appendf(out, "    morph set [%zu] %s: node %d, joint %d, %u targets:", m,
              printable(set.name).c_str(), pack.morph_source_node(r, static_cast<int>(m)),
              set.joint, set.size());
      for (size_t t = 0; t < set.target_names.size(); ++t)
        appendf(out, "%s %s (%g)", t == 0 ? "" : ",", printable(set.target_names[t]).c_str(),
                static_cast<double>(set.default_weights[t]));
      appendf(out, "\n");
    }
    for (int c = 0; c < rig.clip_count(); ++c) {
      const Clip& clip = rig.clips()[static_cast<size_t>(c)];
      size_t keys = 0, weights = 0;
      for (const Channel& ch : clip.channels()) {
        keys += ch.times.size();
        weights += ch.property == Property::kWeights;
      }
      appendf(out, "    clip [%d] %s: %.4g s, %zu channels, %zu keys", c,
              printable(clip.name()).c_str(), static_cast<double>(clip.duration()),
              clip.channels().size(), keys);
      if (weights > 0) appendf(out, ", %zu weights channels", weights);
      if (clip.additive() != AdditiveReference::kNone)
        appendf(out, ", additive (%s)", additive_text(clip.additive()));
      // Format 6: how the keys are stored (older packs: float arrays, nothing measured).
      const ClipStorage& st = clip.storage();
      if (st.compression == ClipCompression::kLossy)
        appendf(out, ", lossy (tolerance %.4g m at %.4g m, max error %.4g m), %llu key bytes",
                static_cast<double>(st.tolerance), static_cast<double>(st.distance),
                static_cast<double>(st.max_error),
                static_cast<unsigned long long>(st.stored_bytes));
      else if (st.stored_bytes > 0)
        appendf(out, ", exact, %llu key bytes", static_cast<unsigned long long>(st.stored_bytes));
      appendf(out, "\n");
    }
  }
  appendf(out, "sprite sheets: %zu\n", pack.sprite_sheets().size());
  for (size_t s = 0; s < pack.sprite_sheets().size(); ++s) {
    const SpriteSheet& sheet = pack.sprite_sheets()[s];
    const std::string_view src = pack.sprite_source(static_cast<int>(s));
    appendf(out, "  [%zu] %s: %ux%u, %u frames, %zu clips\n", s, printable(src).c_str(),
            sheet.atlas().size().width, sheet.atlas().size().height, sheet.atlas().frame_count(),
            sheet.clips().size());
    if (sheet.atlas().has_placements()) print_sheet_placements(out, sheet.atlas());  // version 7
    for (const SpriteClip& c : sheet.clips()) {
      appendf(out, "    clip %s: %zu frames at %g fps, %s, %zu events\n",
              printable(c.name()).c_str(), c.frames().size(), static_cast<double>(c.fps()),
              playback_text(c.playback()), c.events().size());
      if (!c.durations_ms().empty()) print_timed_clip(out, c);  // version 7
    }
  }
  appendf(out, "objects: %zu\n", pack.objects().size());
  for (const ObjectInfo& obj : pack.objects()) {
    appendf(out, "  %s: mesh %d", printable(obj.name).c_str(), obj.mesh);
    if (obj.animated) {
      const ObjectAnimationInfo& a = obj.animation;
      if (a.sprite_sheet >= 0) {
        const SpriteSheet& sheet = pack.sprite_sheets()[static_cast<size_t>(a.sprite_sheet)];
        appendf(out, ", sprite sheet %d, clip %s", a.sprite_sheet,
                a.clip >= 0 ? printable(sheet.clips()[static_cast<size_t>(a.clip)].name()).c_str()
                            : "-");
      } else {
        const int rig = obj.mesh >= 0 ? pack.meshes()[static_cast<size_t>(obj.mesh)].rig : -1;
        auto clip_name = [&](int c) -> std::string {
          return rig >= 0 && c >= 0
                     ? printable(pack.rig(rig).clips()[static_cast<size_t>(c)].name())
                     : "-";
        };
        appendf(out, ", clip %s", clip_name(a.clip).c_str());
        for (const BlendEntry& b : a.blend) {
          appendf(out, ", blend %s %g", clip_name(b.clip).c_str(), static_cast<double>(b.weight));
        }
        appendf(out, ", %s", playback_text(a.playback));
      }
      appendf(out, ", speed %g, start %g, %zu events", static_cast<double>(a.speed),
              static_cast<double>(a.start), a.events.size());
      if (a.graph) {
        appendf(out, ", state machine: %zu parameters, %zu states, %zu transitions, %zu layers",
                a.graph->parameters.size(), a.graph->states.size(), a.graph->transitions.size(),
                a.graph->layers.size());
      }
    }
    appendf(out, "\n");
    if (obj.animated && obj.animation.graph) {
      // Pack::open refuses a graph on an object without a rig.
      const int rig = pack.meshes()[static_cast<size_t>(obj.mesh)].rig;
      print_graph(out, *obj.animation.graph, pack.rig(rig));
    }
    if (obj.animated && (obj.animation.root_motion || !obj.animation.ik.empty())) {
      // Pack::open refuses root motion and IK on an object without a rig.
      const int rig = pack.meshes()[static_cast<size_t>(obj.mesh)].rig;
      print_root_motion_and_ik(out, obj.animation, pack.rig(rig));
    }
  }
  print_sizes(out, measure_pack(pack));
  return out;
}

namespace {

Json vec3(Vec3 v) { return Json::array({v.x, v.y, v.z}); }

Json section_json(const PackSection& s) {
  return {{"bytes", s.bytes}, {"decoded", s.raw}, {"count", s.count}};
}

Json codecs_json(const std::vector<PackCodecSection>& list) {
  Json out = Json::object();
  for (const PackCodecSection& c : list) out[c.codec] = section_json(c.section);
  return out;
}

Json sizes_json(const PackSizes& s) {
  Json vertex = section_json(s.vertex_streams);
  vertex["codecs"] = codecs_json(s.vertex_codecs);
  Json index = section_json(s.index_streams);
  index["codecs"] = codecs_json(s.index_codecs);
  return {{"total", s.total},
          {"clip_keys", section_json(s.clip_keys)},
          {"vertex_streams", std::move(vertex)},
          {"index_streams", std::move(index)},
          {"textures", section_json(s.textures)},
          {"atlas_pixels", section_json(s.atlas_pixels)},
          {"strings", section_json(s.strings)},
          {"other", s.other}};
}

Json slot_json(const TextureSlot& slot) {
  if (slot.texture < 0) return nullptr;
  return {{"texture", slot.texture}, {"uv_set", slot.uv_set}};
}

Json graph_json(const GraphDef& g, const Rig& rig) {
  static constexpr const char* kKinds[] = {"float", "bool", "trigger"};
  static constexpr const char* kConditions[] = {"above", "below", "is", "trigger", "exit_time"};
  auto clip = [&](int c) -> Json {
    if (c < 0) return nullptr;
    return std::string(rig.clips()[static_cast<size_t>(c)].name());
  };
  auto parameter = [&](int p) -> Json {
    if (p < 0) return nullptr;
    return g.parameters[static_cast<size_t>(p)].name;
  };
  auto state = [&](int s) -> Json {
    if (s < 0) return "*";
    return g.states[static_cast<size_t>(s)].name;
  };
  Json parameters = Json::array();
  for (const ParameterDef& p : g.parameters) {
    Json j = {{"name", p.name}, {"kind", kKinds[static_cast<int>(p.kind)]}};
    if (p.kind == ParameterKind::kFloat) {
      j["default"] = p.default_value;
      j["min"] = p.min;
      j["max"] = p.max;
    } else if (p.kind == ParameterKind::kBool) {
      j["default"] = p.default_value != 0.0f;
    }
    parameters.push_back(std::move(j));
  }
  Json states = Json::array();
  for (const StateDef& st : g.states) {
    Json j = {{"name", st.name}, {"clip", clip(st.clip)}};
    if (st.clip < 0) {
      Json points = Json::array();
      for (const BlendPoint& p : st.points)
        points.push_back({{"clip", clip(p.clip)}, {"x", p.x}, {"y", p.y}});
      j["blend"] = {{"x_parameter", parameter(st.x_parameter)},
                    {"y_parameter", parameter(st.y_parameter)},
                    {"points", std::move(points)}};
    }
    j["speed"] = st.speed;
    j["speed_parameter"] = parameter(st.speed_parameter);
    j["playback"] = playback_name(st.playback);
    j["start"] = st.start;
    states.push_back(std::move(j));
  }
  Json transitions = Json::array();
  for (const TransitionDef& tr : g.transitions) {
    Json conditions = Json::array();
    for (const ConditionDef& c : tr.conditions) {
      conditions.push_back({{"kind", kConditions[static_cast<int>(c.kind)]},
                            {"parameter", parameter(c.parameter)},
                            {"value", c.value}});
    }
    transitions.push_back({{"from", state(tr.from)},
                           {"to", state(tr.to)},
                           {"conditions", std::move(conditions)},
                           {"fade", tr.fade}});
  }
  Json layers = Json::array();
  for (const LayerDef& ly : g.layers) {
    size_t covered = 0;
    for (float w : ly.mask) covered += w > 0.0f ? 1 : 0;
    layers.push_back({{"mode", ly.mode == LayerMode::kAdditive ? "additive" : "override"},
                      {"clip", clip(ly.clip)},
                      {"weight", ly.weight},
                      {"weight_parameter", parameter(ly.weight_parameter)},
                      {"mask", ly.mask.empty() ? Json(nullptr) : Json(covered)},
                      {"speed", ly.speed},
                      {"playback", playback_name(ly.playback)}});
  }
  return {{"parameters", std::move(parameters)},
          {"states", std::move(states)},
          {"transitions", std::move(transitions)},
          {"layers", std::move(layers)}};
}

Json root_motion_json(const ObjectAnimationInfo& a, const Rig& rig) {
  const RootMotionConfig& rm = *a.root_motion;
  const auto& joints = rig.skeleton().joints();
  Json extract = Json::array();
  for (const auto& [bit, name] :
       {std::pair{kExtractHorizontal, "horizontal"}, std::pair{kExtractVertical, "vertical"},
        std::pair{kExtractYaw, "yaw"}}) {
    if ((rm.extract & bit) != 0) extract.push_back(name);
  }
  constexpr double kUnit = static_cast<double>(kRootMotionUnitsPerMetre);
  constexpr double kTurn = static_cast<double>(kYawUnitsPerTurn);
  Json clips = Json::array();
  for (size_t c = 0; c < a.root_tracks.size(); ++c) {
    const std::span<const RootMotionSample> samples = a.root_tracks[c].samples;
    if (samples.empty()) continue;
    const RootMotionSample& end = samples.back();
    clips.push_back({{"clip", std::string(rig.clips()[c].name())},
                     {"samples", samples.size()},
                     {"travel", {end.x / kUnit, end.y / kUnit, end.z / kUnit}},
                     {"turns", end.yaw / kTurn}});
  }
  return {{"policy", root_motion_policy_name(rm.policy)},
          {"joint", joints[static_cast<size_t>(rm.joint)].name},
          {"extract", std::move(extract)},
          {"rate", rm.rate},
          {"up", vec3(rm.up)},
          {"clips", std::move(clips)}};
}

Json ik_json(const IkSolverDef& s, const Rig& rig) {
  Json joints = Json::array();
  for (uint16_t j : s.joints) joints.push_back(rig.skeleton().joints()[j].name);
  return {{"name", s.name},
          {"kind", ik_kind_name(s.kind)},
          {"joints", std::move(joints)},
          {"target", s.kind != IkKind::kFoot && s.has_target ? vec3(s.target) : Json(nullptr)},
          {"weight", s.weight}};
}

}  // namespace

std::string pack_report_json(const Pack& pack, std::string_view name) {
  Json j;
  j["file"] = std::string(name);
  j["format"] = pack.format_version();
  j["bytes"] = pack.bytes().size();
  j["shared_bytes"] = pack.shared_bytes();
  Json meshes = Json::array();
  for (size_t m = 0; m < pack.meshes().size(); ++m) {
    const MeshInfo& mesh = pack.meshes()[m];
    Json parts = Json::array();
    uint64_t vertices = 0, triangles = 0;
    for (int p = 0; p < mesh.part_count; ++p) {
      const PartInfo& part = pack.parts()[static_cast<size_t>(mesh.first_part + p)];
      vertices += part.vertex_count;
      triangles += part.index_count / 3;
      parts.push_back({{"index", mesh.first_part + p},
                       {"vertices", part.vertex_count},
                       {"triangles", part.index_count / 3},
                       {"material", part.material},
                       {"skinned", part.skinned},
                       {"joint", part.joint},
                       {"source_node", part.source_node},
                       {"source_mesh", part.source_mesh},
                       {"source_primitive", part.source_primitive},
                       {"normals_generated", part.normals_generated},
                       {"tangents_generated", part.tangents_generated},
                       {"eight_influences", part.eight_influences},
                       {"morph_set", part.morph_set},
                       {"morph_targets", part.morph_targets}});
    }
    const MeshBounds& bounds = pack.mesh_bounds(static_cast<int>(m));
    Json b = nullptr;
    if (bounds.bind.valid()) {
      b = {{"min", vec3(bounds.bind.lo)},
           {"max", vec3(bounds.bind.hi)},
           {"joint_boxes", bounds.joints.size()}};
    }
    meshes.push_back({{"name", std::string(mesh.name)},
                      {"source_file", std::string(mesh.source_file)},
                      {"rig", mesh.rig},
                      {"vertices", vertices},
                      {"triangles", triangles},
                      {"up", vec3(mesh.up)},
                      {"forward", vec3(mesh.forward)},
                      {"bounds", std::move(b)},
                      {"parts", std::move(parts)}});
  }
  j["meshes"] = std::move(meshes);
  Json materials = Json::array();
  for (const MaterialInfo& mat : pack.materials()) {
    static constexpr const char* kAlpha[] = {"opaque", "mask", "blend"};
    materials.push_back(
        {{"name", std::string(mat.name)},
         {"source_file", std::string(mat.source_file)},
         {"base_color", {mat.base_color.x, mat.base_color.y, mat.base_color.z, mat.base_color.w}},
         {"metallic", mat.metallic},
         {"roughness", mat.roughness},
         {"alpha_mode", kAlpha[static_cast<int>(mat.alpha_mode)]},
         {"double_sided", mat.double_sided},
         {"textures",
          {{"base_color", slot_json(mat.base_color_texture)},
           {"metallic_roughness", slot_json(mat.metallic_roughness_texture)},
           {"normal", slot_json(mat.normal_texture)},
           {"occlusion", slot_json(mat.occlusion_texture)},
           {"emissive", slot_json(mat.emissive_texture)}}}});
  }
  j["materials"] = std::move(materials);
  Json textures = Json::array();
  for (const TextureInfo& tex : pack.textures()) {
    textures.push_back({{"source_file", std::string(tex.source_file)},
                        {"image", tex.source_image},
                        {"width", tex.width},
                        {"height", tex.height},
                        {"color_space", tex.color_space == ColorSpace::kSrgb ? "srgb" : "linear"},
                        {"mime_type", std::string(tex.mime_type)}});
  }
  j["textures"] = std::move(textures);
  Json rigs = Json::array();
  for (int r = 0; r < pack.rig_count(); ++r) {
    const Rig& rig = pack.rig(r);
    Json joints = Json::array();
    for (const Joint& joint : rig.skeleton().joints()) joints.push_back(joint.name);
    Json sets = Json::array();
    for (size_t m = 0; m < rig.morph_sets().size(); ++m) {
      const MorphSet& set = rig.morph_sets()[m];
      sets.push_back({{"name", set.name},
                      {"node", pack.morph_source_node(r, static_cast<int>(m))},
                      {"joint", set.joint},
                      {"targets", set.target_names},
                      {"default_weights", set.default_weights}});
    }
    Json clips = Json::array();
    for (const Clip& clip : rig.clips()) {
      size_t keys = 0, weights = 0;
      for (const Channel& ch : clip.channels()) {
        keys += ch.times.size();
        weights += ch.property == Property::kWeights;
      }
      const ClipStorage& st = clip.storage();
      Json storage = nullptr;
      if (st.compression == ClipCompression::kLossy) {
        storage = {{"compression", "lossy"},
                   {"tolerance", st.tolerance},
                   {"distance", st.distance},
                   {"max_error", st.max_error},
                   {"key_bytes", st.stored_bytes}};
      } else if (st.stored_bytes > 0) {
        storage = {{"compression", "exact"}, {"key_bytes", st.stored_bytes}};
      }
      clips.push_back({{"name", std::string(clip.name())},
                       {"duration", clip.duration()},
                       {"channels", clip.channels().size()},
                       {"keys", keys},
                       {"weights_channels", weights},
                       {"additive", additive_reference_name(clip.additive())},
                       {"storage", std::move(storage)}});
    }
    rigs.push_back({{"kind", pack.node_rig(r) ? "node" : "skin"},
                    {"joint_count", rig.skeleton().joint_count()},
                    {"joints", std::move(joints)},
                    {"morph_weights", rig.morph_weight_count()},
                    {"morph_sets", std::move(sets)},
                    {"clips", std::move(clips)}});
  }
  j["rigs"] = std::move(rigs);
  Json sheets = Json::array();
  for (size_t s = 0; s < pack.sprite_sheets().size(); ++s) {
    const SpriteSheet& sheet = pack.sprite_sheets()[s];
    Json clips = Json::array();
    for (const SpriteClip& c : sheet.clips()) {
      Json clip = {{"name", std::string(c.name())},
                   {"frames", c.frames().size()},
                   {"fps", c.fps()},
                   {"playback", playback_name(c.playback())},
                   {"events", c.events().size()}};
      if (!c.durations_ms().empty()) {  // version 7
        clip["durations_ms"] =
            std::vector<uint32_t>(c.durations_ms().begin(), c.durations_ms().end());
        clip["total_ms"] = timed_clip_ms(c);
      }
      clip["reverse"] = c.reverse();
      clips.push_back(std::move(clip));
    }
    uint32_t trimmed = 0, rotated = 0;
    for (uint32_t f = 0; f < sheet.atlas().frame_count(); ++f) {
      const FramePlacement p = *sheet.atlas().placement(f);
      trimmed += p.trimmed.width != p.source.width || p.trimmed.height != p.source.height ? 1 : 0;
      rotated += p.rotated ? 1 : 0;
    }
    sheets.push_back({{"source_file", std::string(pack.sprite_source(static_cast<int>(s)))},
                      {"width", sheet.atlas().size().width},
                      {"height", sheet.atlas().size().height},
                      {"frames", sheet.atlas().frame_count()},
                      {"trimmed_frames", trimmed},
                      {"rotated_frames", rotated},
                      {"clips", std::move(clips)}});
  }
  j["sprite_sheets"] = std::move(sheets);
  Json objects = Json::array();
  for (const ObjectInfo& obj : pack.objects()) {
    Json o = {{"name", std::string(obj.name)}, {"mesh", obj.mesh}, {"animated", obj.animated}};
    if (obj.animated) {
      const ObjectAnimationInfo& a = obj.animation;
      Json anim = {{"sprite_sheet", a.sprite_sheet}};
      const int rig = obj.mesh >= 0 ? pack.meshes()[static_cast<size_t>(obj.mesh)].rig : -1;
      if (a.sprite_sheet >= 0) {
        const SpriteSheet& sheet = pack.sprite_sheets()[static_cast<size_t>(a.sprite_sheet)];
        anim["clip"] = a.clip >= 0
                           ? Json(std::string(sheet.clips()[static_cast<size_t>(a.clip)].name()))
                           : Json(nullptr);
      } else {
        auto clip_name = [&](int c) -> Json {
          if (rig < 0 || c < 0) return nullptr;
          return std::string(pack.rig(rig).clips()[static_cast<size_t>(c)].name());
        };
        anim["clip"] = clip_name(a.clip);
        Json blend = Json::array();
        for (const BlendEntry& b : a.blend)
          blend.push_back({{"clip", clip_name(b.clip)}, {"weight", b.weight}});
        anim["blend"] = std::move(blend);
        anim["playback"] = playback_name(a.playback);
      }
      anim["speed"] = a.speed;
      anim["start"] = a.start;
      anim["events"] = a.events.size();
      // Pack::open refuses a graph, root motion and IK on an object without a rig.
      anim["state_machine"] = a.graph ? graph_json(*a.graph, pack.rig(rig)) : Json(nullptr);
      anim["root_motion"] = a.root_motion ? root_motion_json(a, pack.rig(rig)) : Json(nullptr);
      Json ik = Json::array();
      for (const IkSolverDef& s : a.ik) ik.push_back(ik_json(s, pack.rig(rig)));
      anim["ik"] = std::move(ik);
      o["animation"] = std::move(anim);
    }
    objects.push_back(std::move(o));
  }
  j["objects"] = std::move(objects);
  j["sizes"] = sizes_json(measure_pack(pack));
  return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace animpack
