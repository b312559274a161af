#include "animpack/compiler/cook.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "animpack/compiler/atlas_data.h"
#include "animpack/compiler/atlas_import.h"
#include "animpack/compiler/clip_optimize.h"
#include "animpack/compiler/clip_quantize.h"
#include "animpack/compiler/clip_sources.h"
#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_assimp.h"
#include "animpack/compiler/import_gltf.h"
#include "animpack/compiler/input_file.h"
#include "animpack/compiler/mesh_bounds.h"
#include "animpack/compiler/scene.h"
#include "animpack/ik.h"
#include "animpack/layers.h"
#include "animpack/pack.h"
#include "animpack/root_motion.h"
#include "animpack/scene_player.h"
#include "animpack/skinning.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

// One distinct model file, read and imported once per cook (by its canonical path and the
// import options) however many meshes and clip sources name it.
struct LoadedFile {
  std::string shown;      // the path as first named (scene folder / file), for messages
  std::string failure;    // why it cannot be read at all ("" when it was read)
  int errors = 0;         // errors inside the file (reported there, once)
  int last_error = -1;    // the sink index of the last of them, the parent of the notes
  const char* what = "";  // "does not load" or "cannot be imported", for the note
  std::optional<ImportedModel> model;  // when it imported without errors
  ClipPool pool;                       // its rig and clips, when the model has a rig
  int first_material = -1;             // its materials in the pack, once merged
  bool ok() const { return model.has_value(); }
};

// What one scene [[mesh]] became: its index in the pack (-1 when it did not load).
struct LoadedMesh {
  int pack_mesh = -1;
  int pack_rig = -1;
  LoadedFile* file = nullptr;  // its model file (null when it did not load)
  // Its clips as its sources made them (clip_sources.h), the rig's clips when it has no
  // `clips`; made_pool.rig points at made_rig.
  std::optional<Rig> made_rig;
  std::vector<int> made_animations;
  ClipPool made_pool;
  bool clips_ok = false;
};

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string seconds(float t) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", static_cast<double>(t));
  return text;
}

class Cooker : public ClipSourceHost {
 public:
  Cooker(const fs::path& scene_file, DiagnosticSink& sink) : sink_(sink) {
    scene_ = read_scene(scene_file, sink);
    out_.inputs.push_back(scene_file);
    file_ = scene_file.string();
  }

  CookOutput run() {
    for (const Diagnostic& d : sink_.diagnostics()) {
      if (d.code == "E0001" || d.code == "E0002") return std::move(out_);  // nothing to check
    }
    // Meshes: every model file read and imported (once each), then each mesh's clips made
    // from its sources (a mesh after those whose clips it takes), then the pack's meshes
    // and rigs in document order.
    for (const SceneMesh& mesh : scene_.meshes) load_mesh(mesh);
    for (size_t m : clip_source_order(scene_)) make_clips(scene_.meshes[m]);
    for (const SceneMesh& mesh : scene_.meshes) add_mesh(mesh);
    for (const SceneObject& object : scene_.objects) cook_object(object);
    finish_rigs();
    compress_clips();
    bake_root_tracks();
    check_root_motion_and_ik();
    for (CookedMesh& m : out_.pack.meshes)
      compute_mesh_bounds(m, m.rig >= 0 ? &out_.pack.rigs[static_cast<size_t>(m.rig)] : nullptr);
    return std::move(out_);
  }

 private:
  size_t at(std::string_view code, SourcePos pos, std::string message) {
    return sink_.report(code, file_, pos.line, pos.col, std::move(message));
  }

  // --- Model files and meshes. ---

  // A model file by the name a scene key gives it, read and imported once per cook (the
  // key: its canonical path and the import options); nullptr after reporting at `pos`: E0201
  // for a file that cannot be read, or a note at `pos` pointing at the errors reported in
  // the file (those once, however many keys name it).
  LoadedFile* load_file(const std::string& file, SourcePos pos, const SceneMesh& mesh) {
    const fs::path path = scene_.folder / file;
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    if (ec) canonical = path.lexically_normal();
    const std::string key = canonical.string() + '\0' + std::to_string(mesh.max_influences);
    auto [it, inserted] = files_.try_emplace(key);
    LoadedFile& f = it->second;
    if (inserted) read_model(path, mesh, f);
    if (!f.failure.empty()) {
      at("E0201", pos, "mesh " + quote(mesh.name) + ": " + file + ": " + f.failure);
      return nullptr;
    }
    if (!f.ok()) {
      // A note of the file's last error, so it is printed after the file's errors.
      Diagnostic note{"E0201",
                      Severity::kNote,
                      file_,
                      pos.line,
                      pos.col,
                      "mesh " + quote(mesh.name) + " names " + f.shown + ", which " + f.what +
                          " (" + std::to_string(f.errors) + " error" + (f.errors == 1 ? "" : "s") +
                          " above)"};
      note.parent = f.last_error;
      sink_.add(std::move(note));
      return nullptr;
    }
    return &f;
  }

  // Reads and imports one model file into `f`, reporting its problems in the file itself
  // (glTF issues at their JSON pointer).
  void read_model(const fs::path& path, const SceneMesh& mesh, LoadedFile& f) {
    f.shown = path.string();
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext == ".fbx" || ext == ".dae") {
      // Through Assimp (import_assimp.h): a file Assimp cannot read is one problem, at the
      // scene key; the rest as the glTF import's.
      out_.inputs.push_back(path);
      ImportOptions options;
      options.max_influences = mesh.max_influences;
      ImportedModel model =
          import_assimp(path, mesh.name, pack_source_name(scene_.folder, mesh.file), options);
      for (const ImportIssue& issue : model.issues) {
        if (issue.error && issue.pointer.empty()) {
          f.failure = issue.message + " [" + issue.code + "]";
          return;
        }
      }
      take_model(mesh, std::move(model), f);
      return;
    }
    const GltfDocument doc = read_gltf(path);
    for (const fs::path& p : doc.files) out_.inputs.push_back(p);
    if (doc.files.empty()) out_.inputs.push_back(path);
    // A file that cannot be read at all is one problem, reported at the scene key.
    if (doc.files.empty()) {
      f.failure = "cannot be read";
      for (const GltfIssue& issue : doc.issues) {
        if (issue.error) {
          f.failure = issue.message;
          break;
        }
      }
      return;
    }
    // Problems inside the file are reported in it, at their JSON pointer, with a note at
    // each scene key that names the file.
    for (const GltfIssue& issue : doc.issues) {
      std::string where = issue.pointer.empty()
                              ? (issue.offset >= 0 ? "byte " + std::to_string(issue.offset) : "")
                              : issue.pointer;
      add_in_file(f, issue.error, where, issue.pointer, issue.message, issue.code);
    }
    if (f.errors > 0) {
      f.what = "does not load";
      return;
    }
    ImportOptions options;
    options.max_influences = mesh.max_influences;  // 4 or 8, checked by the scene reader
    take_model(mesh,
               import_gltf(doc, mesh.name, pack_source_name(scene_.folder, mesh.file), options), f);
  }

  // An imported model's issues (notes, and problems in the file at their pointer), then the
  // model into `f` when it can be used.
  void take_model(const SceneMesh& mesh, ImportedModel model, LoadedFile& f) {
    for (const ImportIssue& issue : model.issues) {
      if (issue.note) {
        // Something the import made (generated normals or tangents): a note naming the
        // mesh and the primitive, in the glTF file.
        Diagnostic note{"W0301",
                        Severity::kNote,
                        f.shown,
                        0,
                        0,
                        "mesh " + quote(mesh.name) + ": " + issue.pointer + ": " + issue.message +
                            " [" + issue.code + "]"};
        note.pointer = issue.pointer;
        note.source_code = issue.code;
        sink_.add(std::move(note));
        continue;
      }
      add_in_file(f, issue.error, issue.pointer, issue.pointer, issue.message, issue.code);
    }
    if (f.errors > 0 || !model.ok()) {
      f.what = "cannot be imported";
      return;
    }
    f.model = std::move(model);
    if (f.model->rig) {
      f.pool.rig = &f.model->rig->rig;
      f.pool.animations = f.model->rig->clip_source_animations;
      f.pool.file = pack_source_name(scene_.folder, mesh.file);
    }
  }

  // Phase 1: the mesh's own file, and its humanoid joints against its rig (E0230).
  void load_mesh(const SceneMesh& mesh) {
    if (mesh.name.empty() || mesh.file.empty() || meshes_.count(mesh.name)) return;
    LoadedMesh& loaded = meshes_[mesh.name];
    loaded.file = load_file(mesh.file, mesh.file_pos, mesh);
    if (loaded.file == nullptr) return;
    check_humanoid(mesh, loaded.file->pool.rig, *this);
  }

  // Phase 2: the mesh's clips, from its sources (clip_sources.h) or, without `clips`, its
  // own file's animations as imported.
  void make_clips(const SceneMesh& mesh) {
    const auto it = meshes_.find(mesh.name);
    if (it == meshes_.end() || it->second.file == nullptr) return;
    LoadedMesh& loaded = it->second;
    if (&mesh != find_mesh(scene_, mesh.name)) return;  // a repeated name (E0104)
    const ClipPool* own = loaded.file->pool.rig ? &loaded.file->pool : nullptr;
    if (!mesh.has_clips) {
      if (own) {
        loaded.made_rig = copy_rig(*own->rig, copy_clips(*own->rig));
        loaded.made_animations = own->animations;
      }
      loaded.clips_ok = true;
    } else {
      MeshClips clips = make_mesh_clips(scene_, mesh, own, *this);
      loaded.clips_ok = clips.ok;
      if (own && clips.ok) {
        if (std::optional<Rig> rig = rebuilt(*own->rig, std::move(clips.clips), mesh)) {
          loaded.made_rig = std::move(rig);
          loaded.made_animations = std::move(clips.source_animations);
        } else {
          loaded.clips_ok = false;
        }
      }
    }
    if (loaded.made_rig) {
      loaded.made_pool.rig = &*loaded.made_rig;
      loaded.made_pool.animations = loaded.made_animations;
      loaded.made_pool.file = "mesh " + quote(mesh.name);
    }
  }

  // The rig `rig` with other clips (its skeleton and morph sets kept), or nothing after an
  // E0901: clips made from sources that were checked must validate.
  std::optional<Rig> rebuilt(const Rig& rig, std::vector<Clip> clips, const SceneMesh& mesh) {
    std::vector<MorphSet> sets(rig.morph_sets().begin(), rig.morph_sets().end());
    Result<Rig> out = Rig::create(rig.skeleton(), std::move(clips), std::move(sets));
    if (!out) {
      sink_.report("E0901", file_, 0, 0,
                   "internal error: mesh " + quote(mesh.name) +
                       "'s clips from its sources do not validate: " + out.error().message() +
                       " (a cooker bug: please report it with this scene)");
      return std::nullopt;
    }
    return std::move(*out);
  }

  static Rig copy_rig(const Rig& rig, std::vector<Clip> clips) {
    std::vector<MorphSet> sets(rig.morph_sets().begin(), rig.morph_sets().end());
    Result<Rig> out = Rig::create(rig.skeleton(), std::move(clips), std::move(sets));
    return std::move(*out);  // the same skeleton, sets and clips validated before
  }

  // Phase 3: the mesh in the pack, with its rig (its clips) and its events.
  void add_mesh(const SceneMesh& mesh) {
    const auto it = meshes_.find(mesh.name);
    if (it == meshes_.end() || it->second.file == nullptr) return;
    if (&mesh != find_mesh(scene_, mesh.name)) return;
    if (contents_reported_) return;  // the pack is over its limit: add no more
    LoadedMesh& loaded = it->second;
    LoadedFile& file = *loaded.file;
    const ImportedModel& model = *file.model;
    // Each distinct image once in the pack: the textures this model adds.
    uint64_t new_texture_bytes = 0;
    if (file.first_material < 0) {
      for (const CookedTexture& t : model.textures) {
        if (find_texture(t) < 0) new_texture_bytes += t.rgba.size();
      }
    }
    if (!add_contents(model_bytes(model) + new_texture_bytes, mesh.file_pos,
                      "mesh " + quote(mesh.name))) {
      return;
    }
    if (!loaded.clips_ok) return;  // reported at the clip source
    if (file.first_material < 0) file.first_material = merge_materials(model);
    CookedMesh cooked = model.mesh;
    cooked.name = mesh.name;
    cooked.source_file = pack_source_name(scene_.folder, mesh.file);
    for (CookedPart& part : cooked.parts) {
      if (part.material >= 0) part.material += file.first_material;
    }
    if (loaded.made_rig) {
      const CookedRig& own = *model.rig;
      CookedRig rig;
      rig.rig = copy_rig(*loaded.made_rig, copy_clips(*loaded.made_rig));
      rig.joint_source_nodes = own.joint_source_nodes;
      rig.clip_source_animations = loaded.made_animations;
      rig.morph_source_nodes = own.morph_source_nodes;
      rig.node_rig = own.node_rig;
      loaded.pack_rig = static_cast<int>(out_.pack.rigs.size());
      out_.pack.rigs.push_back(std::move(rig));
    }
    cooked.rig = loaded.pack_rig;
    cooked.up = mesh.up;  // checked by the scene reader (unit, perpendicular)
    cooked.forward = mesh.forward;
    loaded.pack_mesh = static_cast<int>(out_.pack.meshes.size());
    out_.pack.meshes.push_back(std::move(cooked));
    add_mesh_events(mesh, loaded);
  }

  // --- ClipSourceHost (clip_sources.h). ---

  const ClipPool* file_pool(const std::string& file, SourcePos pos,
                            const SceneMesh& mesh) override {
    LoadedFile* f = load_file(file, pos, mesh);
    if (f == nullptr) return nullptr;
    if (f->pool.rig == nullptr) {
      at("E0222", pos,
         "mesh " + quote(mesh.name) + ": " + file +
             " has no animations that move a rig (no skin and no animated nodes)");
      return nullptr;
    }
    return &f->pool;
  }

  bool mesh_loaded(const std::string& name) override {
    const auto it = meshes_.find(name);
    return it != meshes_.end() && it->second.file != nullptr;
  }

  const Rig* mesh_rig(const std::string& name) override {
    const auto it = meshes_.find(name);
    if (it == meshes_.end() || it->second.file == nullptr) return nullptr;
    return it->second.file->pool.rig;
  }

  const ClipPool* mesh_clips(const std::string& name) override {
    const auto it = meshes_.find(name);
    if (it == meshes_.end() || !it->second.made_rig || !it->second.clips_ok) return nullptr;
    return &it->second.made_pool;
  }

  void report(std::string_view code, Severity severity, SourcePos pos,
              std::string message) override {
    sink_.add({std::string(code), severity, file_, pos.line, pos.col, std::move(message)});
  }

  static std::vector<Clip> copy_clips(const Rig& rig) {
    std::vector<Clip> clips;
    clips.reserve(rig.clips().size() + 1);
    for (const Clip& c : rig.clips()) clips.push_back(c.copy());  // a rig is rebuilt from copies
    return clips;
  }

  // Replaces a cooked rig's clips (events added, additive clips appended): the rig is
  // rebuilt, and so checked again (Rig::create). A failure is a cooker bug (E0901): every
  // event time and clip was checked before.
  bool rebuild_rig(CookedRig& cooked, std::vector<Clip> clips, const std::string& why) {
    std::vector<MorphSet> sets(cooked.rig.morph_sets().begin(), cooked.rig.morph_sets().end());
    Result<Rig> rig = Rig::create(cooked.rig.skeleton(), std::move(clips), std::move(sets));
    if (!rig) {
      sink_.report("E0901", file_, 0, 0,
                   "internal error: the rig rebuilt with " + why + " does not validate: " +
                       rig.error().message() + " (a cooker bug: please report it with this scene)");
      return false;
    }
    cooked.rig = std::move(*rig);
    return true;
  }

  // Step 6: the clips of each lossy mesh's rig (`compression = "lossy"`) quantised as the
  // pack will store them and reduced within the mesh's tolerance (clip_optimize.h), each
  // with its ClipStorage {kLossy, tolerance, distance, max_error}; additive clips stay
  // exact (their keys are differences, not poses). A clip whose quantised keys alone are
  // over the tolerance stays exact (W0235). One note per lossy mesh reports the bound kept.
  // Runs after the events and additive clips are in, before root motion is baked from them.
  void compress_clips() {
    if (sink_.has_errors()) return;
    for (const SceneMesh& mesh : scene_.meshes) {
      if (mesh.compression != ClipCompression::kLossy || &mesh != find_mesh(scene_, mesh.name)) {
        continue;
      }
      const auto it = meshes_.find(mesh.name);
      if (it == meshes_.end() || it->second.pack_rig < 0) continue;
      CookedRig& cooked = out_.pack.rigs[static_cast<size_t>(it->second.pack_rig)];
      const SourcePos pos = mesh.compression_pos.known()     ? mesh.compression_pos
                            : scene_.compression_pos.known() ? scene_.compression_pos
                                                             : mesh.pos;
      ClipStorage storage;
      storage.compression = ClipCompression::kLossy;
      storage.tolerance = mesh.tolerance;
      storage.distance = mesh.distance;
      std::vector<Clip> clips;
      size_t lossy = 0, before = 0, after = 0;
      double worst = 0;
      for (const Clip& clip : cooked.rig.clips()) {
        if (clip.additive() != AdditiveReference::kNone) {
          clips.push_back(clip.copy());
          continue;
        }
        // The grids: the tolerance's own, or finer (halved up to 10 times) until the
        // quantised keys alone use at most half the tolerance, leaving the rest to key
        // reduction (a rotation's error grows with the reach of the joints below it).
        ClipStorage grid = storage;
        Clip quantised = quantize_lossy(clip, grid);
        for (int halvings = 1; halvings <= 10; ++halvings) {
          const double error = clip_error(cooked.rig.skeleton(), clip, quantised, storage.distance);
          if (error <= 0.5 * static_cast<double>(storage.tolerance)) break;
          ClipStorage finer = storage;
          finer.precision = std::ldexp(storage.tolerance, -halvings);
          Clip candidate = quantize_lossy(clip, finer);
          grid = finer;
          quantised = std::move(candidate);
        }
        ReducedClip reduced = reduce_clip(cooked.rig.skeleton(), clip, quantised, grid);
        if (!reduced.within) {
          char text[160];
          std::snprintf(text, sizeof text,
                        "'s clip %s: its quantised keys are %.3g m off at %g m, over the "
                        "tolerance %g m; the clip is kept exact",
                        quote(clip.name()).c_str(), reduced.max_error,
                        static_cast<double>(mesh.distance), static_cast<double>(mesh.tolerance));
          at("W0235", pos, "mesh " + quote(mesh.name) + text);
          clips.push_back(clip.copy());
          continue;
        }
        ++lossy;
        before += reduced.keys_before;
        after += reduced.keys_after;
        worst = std::max(worst, static_cast<double>(reduced.clip.storage().max_error));
        clips.push_back(std::move(reduced.clip));
      }
      if (!rebuild_rig(cooked, std::move(clips), "its lossy clips")) return;
      char text[200];
      std::snprintf(text, sizeof text,
                    ": %zu clip%s lossy, %zu -> %zu keys, max error %.9g m <= %g m at %g m", lossy,
                    lossy == 1 ? "" : "s", before, after, worst,
                    static_cast<double>(mesh.tolerance), static_cast<double>(mesh.distance));
      sink_.add(
          {"W0235", Severity::kNote, file_, pos.line, pos.col, "mesh " + quote(mesh.name) + text});
    }
  }

  // The clip a skeletal event is on (E0203 when the rig has none), or nothing when the
  // event is past its clip's end (W0204: it would never fire, so it is dropped).
  std::optional<uint16_t> event_clip(const Rig* rig, const std::string& mesh, const SceneEvent& e) {
    const std::optional<uint16_t> c = find_clip(rig, mesh, e.clip, e.clip_pos, "E0203");
    if (!c) return std::nullopt;
    const float duration = rig->clips()[*c].duration();
    if (e.time > duration) {
      at("W0204", e.time_pos,
         "event " + quote(e.name) + " at " + seconds(e.time) + " is past the end of clip " +
             e.clip + " (" + seconds(duration) + ") and never fires; dropped");
      return std::nullopt;
    }
    return c;
  }

  // A [[mesh]]'s `events`: each on its clip in the mesh's rig, so every object using the
  // mesh fires them (and so do the additive versions made later of that clip).
  void add_mesh_events(const SceneMesh& mesh, const LoadedMesh& loaded) {
    if (mesh.events.empty()) return;
    const Rig* rig = rig_of(loaded);
    std::vector<std::pair<uint16_t, const SceneEvent*>> adds;
    for (const SceneEvent& e : mesh.events) {
      if (e.clip.empty()) continue;  // the scene reader reported it
      if (const std::optional<uint16_t> c = event_clip(rig, mesh.name, e))
        adds.emplace_back(*c, &e);
    }
    if (adds.empty()) return;
    CookedRig& cooked = out_.pack.rigs[static_cast<size_t>(loaded.pack_rig)];
    std::vector<Clip> clips = copy_clips(cooked.rig);
    for (const auto& [clip, e] : adds) clips[clip].add_event(e->name, e->time);
    rebuild_rig(cooked, std::move(clips), "the mesh's events");
  }

  // FNV-1a over a texture's pixels: the first test of "same image" (size, colour space
  // and the bytes themselves decide).
  static uint64_t pixel_hash(const std::vector<uint8_t>& rgba) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint8_t b : rgba) h = (h ^ b) * 0x100000001b3ull;
    return h;
  }

  // The pack texture with the same pixels, size and colour space, or -1.
  int find_texture(const CookedTexture& t) {
    const auto [first, last] = texture_by_hash_.equal_range(pixel_hash(t.rgba));
    for (auto it = first; it != last; ++it) {
      const CookedTexture& have = out_.pack.textures[static_cast<size_t>(it->second)];
      if (have.width == t.width && have.height == t.height && have.color_space == t.color_space &&
          have.rgba == t.rgba) {
        return it->second;
      }
    }
    return -1;
  }

  // Appends the model's materials to the pack (and its textures not stored yet, each once),
  // their slots renumbered to the pack's textures; returns the index of the first (a part's
  // material m is then pack material first + m).
  int merge_materials(const ImportedModel& model) {
    std::vector<int> texture_remap(model.textures.size(), -1);
    for (size_t t = 0; t < model.textures.size(); ++t) {
      texture_remap[t] = find_texture(model.textures[t]);  // two of this model may be equal
      if (texture_remap[t] >= 0) continue;
      const int index = static_cast<int>(out_.pack.textures.size());
      texture_by_hash_.emplace(pixel_hash(model.textures[t].rgba), index);
      out_.pack.textures.push_back(model.textures[t]);
      texture_remap[t] = index;
    }
    const int first_material = static_cast<int>(out_.pack.materials.size());
    for (CookedMaterial m : model.materials) {
      for (TextureSlot* slot :
           {&m.info.base_color_texture, &m.info.metallic_roughness_texture, &m.info.normal_texture,
            &m.info.occlusion_texture, &m.info.emissive_texture}) {
        if (slot->texture >= 0) slot->texture = texture_remap[static_cast<size_t>(slot->texture)];
      }
      out_.pack.materials.push_back(std::move(m));
    }
    return first_material;
  }

  // What a model adds to the pack, roughly: vertex streams and indices, joints, keys.
  static uint64_t model_bytes(const ImportedModel& model) {
    uint64_t bytes = 0;
    for (const CookedPart& p : model.mesh.parts) {
      bytes += p.positions.size() * sizeof(Vec3) + p.normals.size() * sizeof(Vec3) +
               p.tangents.size() * sizeof(Vec4) + p.joints.size() * sizeof(JointIndices) +
               p.weights.size() * sizeof(Vec4) + p.indices.size() * sizeof(uint32_t) +
               p.source_vertices.size() * sizeof(uint32_t) +
               (p.texcoords0.size() + p.texcoords1.size()) * sizeof(Vec2) +
               p.colors.size() * sizeof(Vec4);
    }
    if (model.rig) {
      bytes += static_cast<uint64_t>(model.rig->rig.skeleton().joint_count()) * 256;
      for (const Clip& c : model.rig->rig.clips()) {
        for (const Channel& ch : c.channels()) {
          bytes += (ch.times.size() + ch.values.size()) * sizeof(float);
        }
      }
    }
    return bytes;
  }

  // Counts what the pack will hold; E0210 at `pos` (once) when it passes the limit.
  bool add_contents(uint64_t bytes, SourcePos pos, const std::string& what) {
    contents_ += bytes;
    if (contents_ <= kMaxPackContentBytes) return true;
    if (!contents_reported_) {
      contents_reported_ = true;
      at("E0210", pos,
         "with " + what + " the pack would hold about " + std::to_string(contents_ >> 20) +
             " MiB; a pack holds at most " + std::to_string(kMaxPackContentBytes >> 20) +
             " MiB (docs/scene-format.md, limits)");
    }
    return false;
  }

  // A glTF problem in its own file (f.shown): E0201 (error, counted in f) or W0301
  // (warning), "where: message [READER_CODE]", with the JSON pointer and the reader's code
  // as fields too.
  void add_in_file(LoadedFile& f, bool error, const std::string& where, const std::string& pointer,
                   const std::string& message, const std::string& code) {
    std::string text = (where.empty() ? "" : where + ": ") + message + " [" + code + "]";
    Diagnostic d{error ? "E0201" : "W0301",
                 error ? Severity::kError : Severity::kWarning,
                 f.shown,
                 0,
                 0,
                 std::move(text)};
    d.pointer = pointer;
    d.source_code = code;
    const size_t index = sink_.add(std::move(d));
    if (error) {
      ++f.errors;
      f.last_error = static_cast<int>(index);
    }
  }

  const Rig* rig_of(const LoadedMesh& m) const {
    return m.pack_rig >= 0 ? &out_.pack.rigs[static_cast<size_t>(m.pack_rig)].rig : nullptr;
  }

  // A clip of the object's mesh by name, reporting `code` at `pos` when there is none.
  std::optional<uint16_t> find_clip(const Rig* rig, const std::string& mesh,
                                    const std::string& clip, SourcePos pos, std::string_view code) {
    if (rig) {
      if (Result<uint16_t> c = rig->find_clip(clip)) return *c;
    }
    // At most a few names, each cut short: a message per bad event must not repeat every
    // clip name of a large file.
    std::string known;
    if (rig) {
      constexpr size_t kListed = 16, kNameChars = 64;
      size_t listed = 0;
      for (const Clip& c : rig->clips()) {
        if (listed++ == kListed) {
          known += ", ... (" + std::to_string(rig->clips().size()) + " in all)";
          break;
        }
        const std::string_view name = c.name();
        known += (known.empty() ? "" : ", ") + std::string(name.substr(0, kNameChars)) +
                 (name.size() > kNameChars ? "..." : "");
      }
    }
    std::string hint;
    if (rig) {
      std::vector<std::string_view> names;
      for (const Clip& c : rig->clips()) {
        if (c.additive() == AdditiveReference::kNone) names.push_back(c.name());
      }
      hint = did_you_mean(clip, names);
    }
    at(code, pos,
       "mesh " + mesh + " has no clip " + clip +
           (known.empty() ? " (it has no clips)" : " (its clips: " + known + ")") + hint);
    return std::nullopt;
  }

  // "; did you mean `x`?" among `names`, within a budget of comparisons per cook (each
  // costs at most kMaxSuggestedNameLength squared), so that thousands of bad names cost
  // time linear in the scene.
  std::string did_you_mean(std::string_view word, std::span<const std::string_view> names) {
    if (names.size() > suggestion_budget_) return {};
    suggestion_budget_ -= names.size();
    const std::string_view close = closest_name(word, names);
    return close.empty() ? std::string() : "; did you mean `" + std::string(close) + "`?";
  }

  void cook_object(const SceneObject& object) {
    CookedObject out;
    out.name = object.name;
    out.material = object.material;
    out.face_camera = object.face_camera;
    out.content = object.content;
    out.position = object.position;
    out.rotation = object.rotation;
    out.scale = object.scale;
    const LoadedMesh* mesh = nullptr;
    if (!object.mesh.empty()) {
      auto it = meshes_.find(object.mesh);
      if (it == meshes_.end()) return;  // the scene reader reported the unknown mesh
      mesh = &it->second;
      out.mesh = mesh->pack_mesh;
    }
    if (object.animation) {
      out.animated = true;
      const SceneAnimation& a = *object.animation;
      out.animation.speed = a.speed;
      out.animation.start = a.start;
      out.animation.playback = a.playback;
      if (a.sprite) {
        if (!cook_sprite(a, out.animation)) return;
      } else if (mesh) {
        if (mesh->pack_mesh < 0) return;  // the mesh did not load: reported at its file
        cook_skeletal(object, a, rig_of(*mesh), out.animation);
        if (a.has_graph()) cook_graph(object, a, *mesh, out.animation);
        if (a.root_motion) cook_root_motion(object, a, *mesh, out.animation);
        if (!a.ik.empty()) cook_ik(object, a, *mesh, out.animation);
      }
    }
    out_.pack.objects.push_back(std::move(out));
  }

  void cook_skeletal(const SceneObject& object, const SceneAnimation& a, const Rig* rig,
                     CookedAnimation& out) {
    if (!a.clip.empty()) {
      if (auto c = find_clip(rig, object.mesh, a.clip, a.clip_pos, "E0202")) out.clip = *c;
    }
    for (const SceneBlend& b : a.blend) {
      if (auto c = find_clip(rig, object.mesh, b.clip, b.clip_pos, "E0202")) {
        out.blend.push_back({*c, b.weight});
      }
    }
    for (const SceneEvent& e : a.events) {
      const std::optional<uint16_t> c = event_clip(rig, object.mesh, e);
      if (!c) continue;
      out.events.push_back({e.name, *c, e.time, 0});
    }
  }

  // The index the additive version of rig clip `source` against `reference` will have:
  // one per (clip, reference) per rig however many layers and objects play it, appended to
  // the rig's clips when every object is cooked (finish_rigs), so that a rig is rebuilt
  // once, not once per clip.
  uint16_t additive_clip(const LoadedMesh& mesh, uint16_t source, AdditiveReference reference) {
    const CookedRig& cooked = out_.pack.rigs[static_cast<size_t>(mesh.pack_rig)];
    std::vector<PendingAdditive>& pending = pending_additive_[mesh.pack_rig];
    const auto key = std::make_tuple(mesh.pack_rig, source, reference);
    if (auto it = additive_index_.find(key); it != additive_index_.end()) return it->second;
    // At most 2 per clip of a glTF's 1024 animations: far below a rig's 65535 clips.
    const auto index = static_cast<uint16_t>(cooked.rig.clips().size() + pending.size());
    pending.push_back({source, reference});
    additive_index_.emplace(key, index);
    return index;
  }

  // Appends the additive clips the layers play to their rigs (each rig rebuilt once,
  // clip_source_animations naming each one's source animation), then checks every state
  // machine against its final rig as the runtime will (GraphDef::validate): on a scene
  // without errors a failure is a cooker bug, E0901.
  void finish_rigs() {
    for (auto& [rig_index, pending] : pending_additive_) {
      CookedRig& cooked = out_.pack.rigs[static_cast<size_t>(rig_index)];
      std::vector<Clip> clips = copy_clips(cooked.rig);
      std::vector<int> sources = cooked.clip_source_animations;
      sources.resize(clips.size(), -1);
      bool ok = true;
      for (const PendingAdditive& p : pending) {
        const Clip& source = cooked.rig.clips()[p.source];
        Result<Clip> additive =
            make_additive_clip(source, cooked.rig.skeleton(), p.reference, cooked.rig.morph_sets());
        if (!additive) {
          sink_.report("E0901", file_, 0, 0,
                       "internal error: the additive version of clip " + quote(source.name()) +
                           " cannot be made: " + additive.error().message() +
                           " (a cooker bug: please report it with this scene)");
          ok = false;
          break;
        }
        for (const Channel& ch : additive->channels()) {
          contents_ += (ch.times.size() + ch.values.size()) * sizeof(float);
        }
        clips.push_back(std::move(*additive));
        sources.push_back(sources[p.source]);
      }
      if (ok && rebuild_rig(cooked, std::move(clips), "its additive clips")) {
        cooked.clip_source_animations = std::move(sources);
      }
    }
    if (sink_.has_errors()) return;  // graphs may lack what was refused at its key
    for (const CookedObject& o : out_.pack.objects) {
      if (!o.animation.graph || o.mesh < 0) continue;
      const int rig = out_.pack.meshes[static_cast<size_t>(o.mesh)].rig;
      if (rig < 0) continue;  // refused at its clips: a mesh without a rig has none
      const Result<void> valid =
          o.animation.graph->validate(out_.pack.rigs[static_cast<size_t>(rig)].rig);
      if (!valid) {
        sink_.report("E0901", file_, 0, 0,
                     "internal error: object " + quote(o.name) +
                         "'s state machine does not validate: " + valid.error().message() +
                         " (a cooker bug: please report it with this scene)");
      }
    }
  }

  // A layer's `mask` as one weight per joint (make_joint_mask), every joint name checked
  // against the rig at its entry (E0211, with a close spelling). nullopt after an error.
  std::optional<std::vector<float>> cook_mask(const SceneObject& object, const SceneLayer& layer,
                                              const Rig* rig) {
    std::vector<MaskEntry> entries;
    std::vector<std::string_view> joints;  // for hints, listed at the first unknown joint
    // The same mask on one rig (objects sharing a mesh and a layer) is expanded once.
    std::string key(reinterpret_cast<const char*>(&rig), sizeof rig);
    bool ok = true;
    for (const SceneMaskEntry& m : layer.mask) {
      key += m.joint;
      key += '\0';
      key.append(reinterpret_cast<const char*>(&m.weight), sizeof m.weight);
      key += m.subtree ? '\1' : '\0';
      if (rig == nullptr || rig->skeleton().find_joint(m.joint) < 0) {
        if (rig && joints.empty()) {
          for (const Joint& j : rig->skeleton().joints()) joints.push_back(j.name);
        }
        at("E0211", m.joint_pos,
           "mask joint " + quote(m.joint) + " is not a joint of mesh " + object.mesh +
               (rig == nullptr ? " (it has no rig)" : did_you_mean(m.joint, joints)));
        ok = false;
        continue;
      }
      entries.push_back({m.joint, m.weight, m.subtree});
    }
    if (!ok || rig == nullptr) return std::nullopt;
    if (auto it = masks_.find(key); it != masks_.end()) return it->second;
    Result<std::vector<float>> mask = make_joint_mask(rig->skeleton(), entries);
    if (!mask) {
      sink_.report("E0901", file_, 0, 0,
                   std::string("internal error: a checked mask does not expand: ") +
                       mask.error().message() +
                       " (a cooker bug: please report it with this scene)");
      return std::nullopt;
    }
    masks_.emplace(std::move(key), *mask);
    return std::move(*mask);
  }

  // The object's state machine and layers as a GraphDef with indices into its mesh rig
  // (whose clips gain the additive versions its layers play). Names the scene reader
  // reported as unknown are left out; the GraphDef is then incomplete, and the cook has
  // failed anyway. On a scene without errors, GraphDef::validate is the last guard
  // (finish_rigs).
  void cook_graph(const SceneObject& object, const SceneAnimation& a, const LoadedMesh& mesh,
                  CookedAnimation& out) {
    GraphDef g;
    for (const SceneParameter& p : a.parameters) {
      ParameterDef d;
      d.name = p.name;
      d.kind = p.kind;
      d.default_value = p.default_value;
      if (p.kind == ParameterKind::kFloat) {
        if (p.min) d.min = *p.min;
        if (p.max) d.max = *p.max;
      }
      g.parameters.push_back(std::move(d));
    }
    const auto parameter = [&g](const std::string& name) {
      return name.empty() ? -1 : static_cast<int32_t>(g.find_parameter(name));
    };
    for (const SceneState& s : a.states) {
      StateDef d;
      d.name = s.name;
      if (!s.clip.empty()) {
        const Rig* rig = rig_of(mesh);
        if (auto c = find_clip(rig, object.mesh, s.clip, s.clip_pos, "E0202")) d.clip = *c;
      }
      for (const SceneBlendPoint& p : s.points) {
        if (p.clip.empty()) continue;  // the scene reader reported it
        if (auto c = find_clip(rig_of(mesh), object.mesh, p.clip, p.clip_pos, "E0202")) {
          d.points.push_back({*c, p.x, p.y});
        }
      }
      d.x_parameter = parameter(s.blend_parameter);
      d.y_parameter = parameter(s.blend_parameter_y);
      d.speed = s.speed;
      d.speed_parameter = parameter(s.speed_parameter);
      d.playback = s.playback;
      d.start = s.start;
      g.states.push_back(std::move(d));
    }
    for (const SceneTransition& t : a.transitions) {
      TransitionDef d;
      d.from = t.from == "*" ? -1 : g.find_state(t.from);
      d.to = g.find_state(t.to);
      if ((d.from < 0 && t.from != "*") || d.to < 0) continue;  // reported by the reader
      for (const SceneCondition& c : t.conditions) {
        ConditionDef cd;
        cd.kind = c.kind;
        cd.value = c.value;
        if (c.kind != ConditionKind::kExitTime) {
          cd.parameter = parameter(c.parameter);
          if (cd.parameter < 0) continue;  // reported by the reader
        }
        d.conditions.push_back(cd);
      }
      d.fade = t.fade;
      g.transitions.push_back(std::move(d));
    }
    for (const SceneLayer& l : a.layers) {
      LayerDef d;
      d.mode = l.additive ? LayerMode::kAdditive : LayerMode::kOverride;
      d.weight = l.weight;
      d.weight_parameter = parameter(l.weight_parameter);
      d.speed = l.speed;
      d.playback = l.playback;
      bool ok = !l.clip.empty();
      if (ok) {
        std::optional<uint16_t> c =
            find_clip(rig_of(mesh), object.mesh, l.clip, l.clip_pos, "E0202");
        if (c && l.additive) c = additive_clip(mesh, *c, l.reference);
        if (c) d.clip = *c;
        ok = c.has_value();
      }
      if (!l.mask.empty()) {
        std::optional<std::vector<float>> mask = cook_mask(object, l, rig_of(mesh));
        if (mask) d.mask = std::move(*mask);
        ok = ok && mask.has_value();
      }
      if (ok) g.layers.push_back(std::move(d));
    }
    out.graph = std::move(g);  // checked against the final rig in finish_rigs
  }

  // --- Root motion and IK, resolved against the object's mesh rig. ---

  // E0213 at `pos` for root motion or IK on a mesh without a rig, with a note at the
  // scene's [[mesh]].
  void no_rig(const SceneObject& object, SourcePos pos, std::string_view what) {
    const size_t error =
        at("E0213", pos,
           std::string(what) + " moves the joints of a rig, and mesh " + object.mesh +
               " of object " + quote(object.name) + " has none (no skin and no animated nodes)");
    if (const SceneMesh* m = find_mesh(scene_, object.mesh)) {
      sink_.add_note(error, "E0213", file_, m->pos.line, m->pos.col,
                     "mesh " + quote(m->name) + " (" + m->file + ") is declared here");
    }
  }

  // The joint of `rig` named `name`, or -1 after E0215 at `pos` (with a close spelling
  // among the rig's joint names).
  int find_joint(const Rig& rig, const SceneObject& object, const std::string& name, SourcePos pos,
                 std::string_view what) {
    const int j = rig.skeleton().find_joint(name);
    if (j >= 0) return j;
    std::vector<std::string_view> joints;
    for (const Joint& joint : rig.skeleton().joints()) joints.push_back(joint.name);
    at("E0215", pos,
       std::string(what) + " " + quote(name) + " is not a joint of mesh " + object.mesh +
           did_you_mean(name, joints));
    return -1;
  }

  // True when `ancestor` lies on the path from `joint` up to its top joint (not `joint`).
  static bool is_ancestor(const Skeleton& skeleton, int ancestor, int joint) {
    for (int j = skeleton.parents()[static_cast<size_t>(joint)]; j >= 0;
         j = skeleton.parents()[static_cast<size_t>(j)]) {
      if (j == ancestor) return true;
    }
    return false;
  }

  // True when a translation or rotation channel moves its joint away from the rest pose
  // (some key differs from rest by more than 1e-6; a rotation and its negation are one).
  static bool moves_joint(const Channel& ch, const Trs& rest) {
    if (ch.property == Property::kScale) return false;
    const size_t width = static_cast<size_t>(property_width(ch.property));
    const size_t stride = ch.interpolation == Interpolation::kCubicSpline ? 3 * width : width;
    const size_t offset = ch.interpolation == Interpolation::kCubicSpline ? width : 0;
    const float* r = ch.property == Property::kTranslation ? &rest.translation.x : &rest.rotation.x;
    for (size_t k = 0; k + stride <= ch.values.size(); k += stride) {
      const float* v = ch.values.data() + k + offset;
      double same = 0, flipped = 0;
      for (size_t i = 0; i < width; ++i) {
        same = std::max(same, std::fabs(static_cast<double>(v[i]) - r[i]));
        flipped = std::max(flipped, std::fabs(static_cast<double>(v[i]) + r[i]));
      }
      const double off = ch.property == Property::kRotation ? std::min(same, flipped) : same;
      if (off > 1e-6) return true;
    }
    return false;
  }

  // [object.animation.root_motion]: the root joint (default: the rig's top joint), the
  // feet, the warning for clips that move joints above the root, and the config (axes
  // from the mesh). With kAccumulate the tracks are baked once every rig is final
  // (bake_root_tracks).
  void cook_root_motion(const SceneObject& object, const SceneAnimation& a, const LoadedMesh& mesh,
                        CookedAnimation& out) {
    const SceneRootMotion& rm = *a.root_motion;
    const Rig* rig = rig_of(mesh);
    if (rig == nullptr) {
      no_rig(object, a.root_motion_pos, "root motion");
      return;
    }
    const Skeleton& skeleton = rig->skeleton();
    int root = -1;
    if (rm.joint.empty()) {
      for (int j = 0; j < skeleton.joint_count() && root < 0; ++j) {
        if (skeleton.parents()[static_cast<size_t>(j)] < 0) root = j;
      }
    } else {
      root = find_joint(*rig, object, rm.joint, rm.joint_pos, "root motion joint");
    }
    if (root < 0) return;
    bool ok = true;
    std::vector<int32_t> feet;
    for (size_t i = 0; i < rm.feet.size(); ++i) {
      const SourcePos pos = rm.feet_element_pos[i];
      const int j = find_joint(*rig, object, rm.feet[i], pos, "foot");
      if (j < 0) {
        ok = false;
      } else if (j == root || is_ancestor(skeleton, j, root)) {
        at("E0216", pos,
           "foot " + quote(rm.feet[i]) + " is " +
               (j == root ? "the root motion joint"
                          : "above the root motion joint " +
                                quote(skeleton.joints()[static_cast<size_t>(root)].name)) +
               "; a foot must lie below it (the root and the joints above it are held)");
        ok = false;
      } else {
        feet.push_back(j);
      }
    }
    // Clips that move a joint above the root: root motion takes those joints at rest.
    const SourcePos warn_at = rm.joint_pos.known() ? rm.joint_pos : a.root_motion_pos;
    for (const Clip& clip : rig->clips()) {
      if (rm.policy == RootMotionPolicy::kOff) break;  // nothing is extracted
      if (clip.additive() != AdditiveReference::kNone) continue;
      for (const Channel& ch : clip.channels()) {
        if (!is_ancestor(skeleton, ch.joint, root)) continue;
        const Joint& above = skeleton.joints()[ch.joint];
        if (!moves_joint(ch, above.rest)) continue;
        at("W0214", warn_at,
           "clip " + quote(clip.name()) + " animates the " +
               (ch.property == Property::kTranslation ? "translation" : "rotation") + " of joint " +
               quote(above.name) + ", above the root motion joint " +
               quote(skeleton.joints()[static_cast<size_t>(root)].name) +
               "; root motion takes it at rest, so that motion is not extracted");
        break;  // one per clip
      }
    }
    if (!ok || rm.policy == RootMotionPolicy::kOff) return;
    const CookedMesh& cooked = out_.pack.meshes[static_cast<size_t>(mesh.pack_mesh)];
    RootMotionConfig config;
    config.policy = rm.policy;
    config.joint = root;
    config.extract = rm.extract;
    config.up = cooked.up;
    config.forward = cooked.forward;
    config.rate = rm.rate;
    out.root_motion = config;
    if (rm.policy == RootMotionPolicy::kAccumulate) {
      pending_bakes_.push_back(
          {out_.pack.objects.size(), mesh.pack_rig, config, std::move(feet), a.root_motion_pos});
    }
  }

  // The rig's tracks for every object that accumulates root motion: one per clip of its
  // final rig (with its additive clips, whose tracks are empty). A clip that does not bake
  // (its travel does not fit the fixed-point units) is E0221 at `root_motion`.
  void bake_root_tracks() {
    for (const PendingBake& p : pending_bakes_) {
      const Rig& rig = out_.pack.rigs[static_cast<size_t>(p.rig)].rig;
      CookedAnimation& anim = out_.pack.objects[p.object].animation;
      anim.root_tracks.reserve(rig.clips().size());
      for (const Clip& clip : rig.clips()) {
        if (clip.additive() != AdditiveReference::kNone) {
          anim.root_tracks.emplace_back();  // additive clips collect nothing
          continue;
        }
        Result<std::vector<RootMotionSample>> track =
            bake_root_motion(rig.skeleton(), clip, p.config, p.feet);
        if (!track) {
          at("E0221", p.pos,
             "object " + quote(anim_name(p.object)) + "'s root motion of clip " +
                 quote(clip.name()) + " does not bake: " + track.error().message());
          anim.root_tracks.clear();
          break;
        }
        contents_ += track->size() * sizeof(RootMotionSample);
        anim.root_tracks.push_back(std::move(*track));
      }
    }
  }

  const std::string& anim_name(size_t object) const { return out_.pack.objects[object].name; }

  // [[object.animation.ik]]: each solver's joints resolved (E0215), a chain each the
  // parent of the next (E0217), no zero-length bone (E0218), a foot's hips an ancestor of
  // its thigh (E0219) and the same for every foot solver of the object (E0220); angles in
  // radians. A solver with an error is left out (the cook has failed anyway).
  void cook_ik(const SceneObject& object, const SceneAnimation& a, const LoadedMesh& mesh,
               CookedAnimation& out) {
    const Rig* rig = rig_of(mesh);
    if (rig == nullptr) {
      no_rig(object, a.ik.front().pos, "IK");
      return;
    }
    const Skeleton& skeleton = rig->skeleton();
    constexpr double kDegrees = 3.14159265358979323846 / 180.0;
    std::vector<Mat4> rest_globals(static_cast<size_t>(skeleton.joint_count()));
    (void)local_to_global(skeleton, skeleton.rest_pose(), rest_globals);  // sizes match
    int32_t foot_hips = -1;    // the hips of the first foot solver
    SourcePos foot_hips_line;  // where that solver is
    for (const SceneIk& s : a.ik) {
      if (s.joints.empty() || s.joints.size() != s.joint_element_pos.size()) continue;
      IkSolverDef d;
      d.name = s.name;
      d.kind = s.kind;
      bool ok = true;
      std::vector<int> joints;
      for (size_t i = 0; i < s.joints.size(); ++i) {
        const int j = find_joint(*rig, object, s.joints[i], s.joint_element_pos[i], "IK joint");
        ok = ok && j >= 0;
        joints.push_back(j);
      }
      for (size_t i = 1; ok && i < joints.size(); ++i) {
        const Joint& joint = skeleton.joints()[static_cast<size_t>(joints[i])];
        if (joint.parent != joints[i - 1]) {
          at("E0217", s.joint_element_pos[i],
             "IK joints " + quote(s.joints[i - 1]) + " and " + quote(s.joints[i]) +
                 " do not form a chain: " + quote(s.joints[i]) + "'s parent is " +
                 (joint.parent < 0
                      ? std::string("none (it is a top joint)")
                      : quote(skeleton.joints()[static_cast<size_t>(joint.parent)].name)) +
                 ", not " + quote(s.joints[i - 1]));
          ok = false;
        }
      }
      // Bones measured as IkSet::create measures them: between rest-pose joint origins in
      // object space, in the runtime's float math (so the two never disagree).
      for (size_t i = 1; ok && i < joints.size(); ++i) {
        const Mat4& to = rest_globals[static_cast<size_t>(joints[i])];
        const Mat4& from = rest_globals[static_cast<size_t>(joints[i - 1])];
        const float len =
            length(Vec3{to.m[12], to.m[13], to.m[14]} - Vec3{from.m[12], from.m[13], from.m[14]});
        if (!(len >= 1e-6f)) {
          char shown[32];
          std::snprintf(shown, sizeof shown, "%g", static_cast<double>(len));
          at("E0218", s.joint_element_pos[i],
             "IK joint " + quote(s.joints[i]) + " lies " + shown + " object units from " +
                 quote(s.joints[i - 1]) +
                 " in the rest pose: the bone between them has no length to solve");
          ok = false;
        }
      }
      if (ok && s.kind == IkKind::kFoot) {
        const int thigh = joints[0];
        int hips = -1;
        if (!s.hips.empty()) {
          hips = find_joint(*rig, object, s.hips, s.hips_pos, "hips");
          if (hips >= 0 && !is_ancestor(skeleton, hips, thigh)) {
            at("E0219", s.hips_pos,
               "hips " + quote(s.hips) + " is not an ancestor of the thigh " + quote(s.joints[0]) +
                   "; the hips joint is lowered to carry the legs, so it must lie above them");
            hips = -1;
          }
          ok = hips >= 0;
        } else {
          hips = skeleton.joints()[static_cast<size_t>(thigh)].parent;
          if (hips < 0) {
            at("E0219", s.joint_element_pos[0],
               "the thigh " + quote(s.joints[0]) +
                   " is a top joint, so it has no parent to take for the hips; give `hips`");
            ok = false;
          }
        }
        const SourcePos where = s.hips_pos.known() ? s.hips_pos : s.joint_element_pos[0];
        if (ok && foot_hips >= 0 && hips != foot_hips) {
          at("E0220", where,
             "foot solver " + quote(s.name) + " lowers the hips " +
                 quote(skeleton.joints()[static_cast<size_t>(hips)].name) +
                 ", but the foot solver at line " + std::to_string(foot_hips_line.line) +
                 " lowers " + quote(skeleton.joints()[static_cast<size_t>(foot_hips)].name) +
                 "; the foot solvers of an object share one hips joint");
          ok = false;
        } else if (ok && foot_hips < 0) {
          foot_hips = hips;
          foot_hips_line = s.pos;
        }
        d.hips = s.hips.empty() ? -1 : hips;
      }
      if (!ok) continue;
      for (int j : joints) d.joints.push_back(static_cast<uint16_t>(j));
      d.weight = s.weight;
      d.has_target = s.target.has_value();
      if (s.target) d.target = *s.target;
      d.has_pole = s.pole.has_value();
      if (s.pole) d.pole = *s.pole;
      d.soften = s.soften;
      d.twist = static_cast<float>(s.twist_degrees * kDegrees);
      d.forward = s.forward;
      d.up = s.up;
      d.max_angle = static_cast<float>(s.max_angle_degrees * kDegrees);
      d.iterations = s.iterations;
      out.ik.push_back(std::move(d));
    }
  }

  // The runtime's own checks of what was cooked (RootMotionConfig::validate,
  // check_root_motion_track, IkSet::create): on a scene without errors a failure is a
  // cooker bug, E0901, since every problem must have been reported at its key.
  void check_root_motion_and_ik() {
    if (sink_.has_errors()) return;
    const auto bug = [&](const CookedObject& o, const std::string& what, const Error& e) {
      sink_.report("E0901", file_, 0, 0,
                   "internal error: object " + quote(o.name) + "'s " + what +
                       " does not validate: " + e.message() +
                       " (a cooker bug: please report it with this scene)");
    };
    for (const CookedObject& o : out_.pack.objects) {
      const CookedAnimation& anim = o.animation;
      if (o.mesh < 0 || (!anim.root_motion && anim.ik.empty())) continue;
      const CookedMesh& mesh = out_.pack.meshes[static_cast<size_t>(o.mesh)];
      if (mesh.rig < 0) continue;
      const Rig& rig = out_.pack.rigs[static_cast<size_t>(mesh.rig)].rig;
      if (anim.root_motion) {
        if (Result<void> v = anim.root_motion->validate(rig.skeleton()); !v) {
          bug(o, "root motion", v.error());
          continue;
        }
        for (size_t c = 0; c < anim.root_tracks.size() && c < rig.clips().size(); ++c) {
          if (Result<void> v =
                  check_root_motion_track(rig.clips()[c], *anim.root_motion, anim.root_tracks[c]);
              !v) {
            bug(o, "root motion track", v.error());
            break;
          }
        }
      }
      if (!anim.ik.empty()) {
        if (Result<IkSet> set = IkSet::create(&rig.skeleton(), anim.ik, mesh.up); !set) {
          bug(o, "IK", set.error());
        }
      }
    }
  }

  // An atlas file, read and decoded once however many objects show it.
  struct LoadedAtlas {
    PngImage png;    // rgba moves into the first sheet that uses it
    int sheet = -1;  // that sheet, whose pixels later sheets share
  };

  LoadedAtlas& load_atlas(const fs::path& path) {
    const std::string key = path.lexically_normal().string();
    auto it = atlases_.find(key);
    if (it == atlases_.end()) it = atlases_.emplace(key, LoadedAtlas{read_png(path), -1}).first;
    return it->second;
  }

  bool cook_sprite(const SceneAnimation& a, CookedAnimation& out) {
    if (a.atlas.empty()) return false;     // the scene reader reported it (not the folder itself)
    if (contents_reported_) return false;  // the pack is over its limit: build no more
    const fs::path path = scene_.folder / a.atlas;
    out_.inputs.push_back(path);
    if (a.atlas_data) return cook_data_sprite(a, path, out);
    LoadedAtlas& loaded = load_atlas(path);
    const PngImage& png = loaded.png;
    if (!png.error.empty()) {
      at(png.too_large ? "E0210" : "E0205", a.atlas_pos,
         "atlas " + quote(a.atlas) + ": " + png.error);
      return false;
    }
    const Size image{png.width, png.height};
    std::optional<Atlas> atlas;
    if (a.grid) {
      const uint32_t cols = static_cast<uint32_t>(a.grid->columns);
      const uint32_t rows = static_cast<uint32_t>(a.grid->rows);
      const uint32_t sp = static_cast<uint32_t>(a.spacing), mg = static_cast<uint32_t>(a.margin);
      const int64_t free_w = int64_t{png.width} - 2 * int64_t{mg} - int64_t{cols - 1} * sp;
      const int64_t free_h = int64_t{png.height} - 2 * int64_t{mg} - int64_t{rows - 1} * sp;
      if (cols == 0 || rows == 0) return false;  // the scene reader reported it
      if (free_w <= 0 || free_h <= 0 || free_w % cols != 0 || free_h % rows != 0) {
        at("E0206", a.grid_pos,
           "grid " + std::to_string(cols) + "x" + std::to_string(rows) + " does not cut the " +
               std::to_string(png.width) + "x" + std::to_string(png.height) +
               " atlas into whole cells (with spacing " + std::to_string(sp) + " and margin " +
               std::to_string(mg) + ")");
        return false;
      }
      Result<Atlas> r = Atlas::grid(
          image, {static_cast<uint32_t>(free_w / cols), static_cast<uint32_t>(free_h / rows)},
          cols * rows, {sp, mg});
      if (!r) {
        at("E0206", a.grid_pos, std::string("grid does not fit the atlas: ") + r.error().message());
        return false;
      }
      atlas = std::move(*r);
    } else {
      std::vector<PixelRect> rects;
      bool inside = true;
      for (const SceneRect& r : a.rects) {
        const uint64_t right = uint64_t(uint32_t(r.x)) + uint32_t(r.w);
        const uint64_t bottom = uint64_t(uint32_t(r.y)) + uint32_t(r.h);
        if (r.x < 0 || r.y < 0 || r.w <= 0 || r.h <= 0) {
          inside = false;  // the scene reader reported it
        } else if (right > png.width || bottom > png.height) {
          at("E0206", r.pos,
             "rect [" + std::to_string(r.x) + ", " + std::to_string(r.y) + ", " +
                 std::to_string(r.w) + ", " + std::to_string(r.h) + "] lies outside the " +
                 std::to_string(png.width) + "x" + std::to_string(png.height) + " atlas");
          inside = false;
        }
        rects.push_back({uint32_t(r.x), uint32_t(r.y), uint32_t(r.w), uint32_t(r.h)});
      }
      if (!inside || rects.empty()) return false;
      Result<Atlas> r = Atlas::rects(image, std::move(rects));
      if (!r) {
        at("E0206", a.rects_pos, r.error().message());
        return false;
      }
      atlas = std::move(*r);
    }

    const uint32_t frames = atlas->frame_count();
    std::vector<SpriteClip> clips;
    bool ok = true;
    for (const SceneSpriteClip& c : a.clips) {
      if (c.from < 0 || c.to < c.from) {
        ok = false;  // the scene reader reported it
        continue;
      }
      if (static_cast<uint32_t>(c.to) >= frames) {
        at("E0207", static_cast<uint32_t>(c.from) >= frames ? c.from_pos : c.to_pos,
           "clip " + c.name + " runs to frame " + std::to_string(c.to) + " but the atlas has " +
               std::to_string(frames) + " frames (0 to " + std::to_string(frames - 1) + ")");
        ok = false;
        continue;
      }
      std::vector<uint32_t> list;
      for (int32_t f = c.from; f <= c.to; ++f) list.push_back(static_cast<uint32_t>(f));
      std::vector<FrameEvent> events;
      for (const SceneEvent& e : a.events) {
        if (e.clip == c.name && e.frame >= 0)
          events.push_back({e.name, static_cast<uint32_t>(e.frame)});
      }
      const float fps = c.fps ? *c.fps : (a.fps ? *a.fps : 0.0f);
      Result<SpriteClip> sc = SpriteClip::create(
          c.name, std::move(list), fps, c.playback.value_or(Playback::kLoop), std::move(events));
      if (!sc) {
        ok = false;  // bad fps or event frame: the scene reader reported it
        continue;
      }
      clips.push_back(std::move(*sc));
    }
    if (!ok) return false;
    return finish_sprite(a, std::move(*atlas), std::move(clips), loaded, out);
  }

  // The sheet of an atlas and its clips into the pack (or the equal sheet already there).
  bool finish_sprite(const SceneAnimation& a, Atlas atlas, std::vector<SpriteClip> clips,
                     LoadedAtlas& loaded, CookedAnimation& out) {
    const PngImage& png = loaded.png;
    Result<SpriteSheet> sheet = SpriteSheet::create(std::move(atlas), std::move(clips));
    if (!sheet) {
      at("E0207", a.clips_pos.known() ? a.clips_pos : a.atlas_pos, sheet.error().message());
      return false;
    }
    if (!a.clip.empty()) {
      Result<uint16_t> c = sheet->find_clip(a.clip);
      if (!c) return false;  // the scene reader reported the unknown sprite clip
      out.clip = *c;
    }
    // The same atlas cut and clipped the same way (objects showing one sprite) is one
    // sheet; another cut of a loaded atlas shares its pixels.
    std::string key = sheet_key(a.atlas, *sheet);
    if (auto it = sheets_.find(key); it != sheets_.end()) {
      out.sprite_sheet = it->second;
      return true;
    }
    uint64_t bytes = uint64_t{sheet->atlas().frame_count()} * (sizeof(AtlasFrame) + 16);
    for (const SpriteClip& c : sheet->clips()) bytes += c.frames().size() * sizeof(uint32_t) + 64;
    if (loaded.sheet < 0) bytes += uint64_t{png.width} * png.height * 4;
    if (!add_contents(bytes, a.atlas_pos, "atlas " + a.atlas)) return false;
    out.sprite_sheet = static_cast<int>(out_.pack.sheets.size());
    CookedSheet cooked;
    cooked.source_file = pack_source_name(scene_.folder, a.atlas);
    cooked.sheet = std::move(*sheet);
    if (loaded.sheet < 0) {
      cooked.rgba = std::move(loaded.png.rgba);
      loaded.sheet = out.sprite_sheet;
    } else {
      cooked.pixels_of = loaded.sheet;
    }
    out_.pack.sheets.push_back(std::move(cooked));
    sheets_.emplace(std::move(key), out.sprite_sheet);
    return true;
  }

  // An atlas data file, read once however many objects show it; its problems are reported
  // in it once.
  struct LoadedData {
    std::string shown;    // the path, for messages
    std::string failure;  // why it cannot be read at all ("" when it was read)
    int errors = 0;       // errors reported in it
    std::optional<AtlasData> data;
    int image_errors = -1;  // frames outside the image (once checked), reported in it
  };

  LoadedData& load_data(const fs::path& path) {
    auto [it, inserted] = data_files_.try_emplace(path.lexically_normal().string());
    LoadedData& d = it->second;
    if (!inserted) return d;
    d.shown = path.string();
    const InputFile in = read_input_file(path, kMaxAtlasDataFileBytes);
    if (!in.ok()) {
      d.failure = in.error;
      return d;
    }
    std::string text(in.bytes.begin(), in.bytes.end());
    AtlasDataResult r = parse_atlas_data(text, d.shown);
    sink_.add_source(d.shown, std::move(text));
    for (const AtlasDataIssue& issue : r.issues) {
      std::string message = (issue.pointer.empty() ? "" : issue.pointer + ": ") + issue.message;
      sink_.add({issue.error ? "E0240" : "W0243",
                 issue.error ? Severity::kError : Severity::kWarning, d.shown, issue.line,
                 issue.col, std::move(message)});
      if (issue.error) ++d.errors;
    }
    d.data = std::move(r.data);
    return d;
  }

  void data_note(const SceneAnimation& a, std::string_view code, const LoadedData& d, int errors) {
    sink_.add({std::string(code), Severity::kNote, file_, a.atlas_pos.line, a.atlas_pos.col,
               "atlas " + quote(a.atlas) + " is a data file with " + std::to_string(errors) +
                   " error" + (errors == 1 ? "" : "s") + " (in " + d.shown + ")"});
  }

  // A sprite whose atlas is a data file: its frames, its image, its tags as clips with the
  // scene's clips (docs/scene-format.md, Atlas data files).
  bool cook_data_sprite(const SceneAnimation& a, const fs::path& path, CookedAnimation& out) {
    LoadedData& d = load_data(path);
    if (!d.failure.empty()) {
      at("E0240", a.atlas_pos, "atlas " + quote(a.atlas) + ": " + d.failure);
      return false;
    }
    if (!d.data) {
      data_note(a, "E0240", d, d.errors);
      return false;
    }
    const AtlasData& data = *d.data;
    const fs::path image = path.parent_path() / data.image;
    out_.inputs.push_back(image);
    LoadedAtlas& loaded = load_atlas(image);
    const PngImage& png = loaded.png;
    if (!png.error.empty()) {
      at(png.too_large ? "E0210" : "E0205", a.atlas_pos,
         "atlas " + quote(a.atlas) + " names the image " + quote(data.image.string()) + ": " +
             png.error);
      return false;
    }
    if (data.image_size.width > 0 &&
        (data.image_size.width != png.width || data.image_size.height != png.height)) {
      at("E0242", a.atlas_pos,
         "atlas " + quote(a.atlas) + ": its image " + quote(data.image.string()) + " is " +
             std::to_string(png.width) + "x" + std::to_string(png.height) +
             " but the data file states " + std::to_string(data.image_size.width) + "x" +
             std::to_string(data.image_size.height));
      return false;
    }
    std::vector<AtlasFrame> frames;
    int outside = 0;
    for (const AtlasDataFrame& f : data.frames) {
      const PixelRect& r = f.rect;
      if (uint64_t{r.x} + r.width > png.width || uint64_t{r.y} + r.height > png.height) {
        if (d.image_errors < 0) {
          sink_.add({"E0242", Severity::kError, d.shown, f.line, f.col,
                     (f.pointer.empty() ? "" : f.pointer + ": ") + std::string("frame ") +
                         quote(f.name) + " (x " + std::to_string(r.x) + ", y " +
                         std::to_string(r.y) + ", " + std::to_string(r.width) + "x" +
                         std::to_string(r.height) + ") is not inside the " +
                         std::to_string(png.width) + "x" + std::to_string(png.height) + " image " +
                         data.image.string()});
        }
        ++outside;
      }
      frames.push_back({f.rect, f.placement, f.name});
    }
    if (d.image_errors < 0) d.image_errors = outside;
    if (outside > 0) {
      data_note(a, "E0242", d, outside);
      return false;
    }
    Result<Atlas> atlas = Atlas::create({png.width, png.height}, std::move(frames));
    if (!atlas) {
      at("E0240", a.atlas_pos, "atlas " + quote(a.atlas) + ": " + atlas.error().message());
      return false;
    }
    std::optional<std::vector<SpriteClip>> clips = data_clips(a, data);
    if (!clips) return false;
    return finish_sprite(a, std::move(*atlas), std::move(*clips), loaded, out);
  }

  // The clips of a data-file sprite: each tag of the file (a scene clip of its name may
  // set its `playback` and `fps`), then the scene's other clips (frames by `from`/`to`,
  // `frames` or `prefix`); with neither, one clip "all" of every frame. A clip is timed
  // by its frames' durations unless it has an `fps`, or some frame has none (then the
  // animation's `fps`).
  std::optional<std::vector<SpriteClip>> data_clips(const SceneAnimation& a,
                                                    const AtlasData& data) {
    struct Plan {
      std::string name;
      std::vector<uint32_t> frames;
      Playback playback = Playback::kLoop;
      bool reverse = false;
      const SceneSpriteClip* scene = nullptr;
      SourcePos pos;  // for E0127
    };
    std::map<std::string, uint32_t, std::less<>> by_name;
    for (size_t i = 0; i < data.frames.size(); ++i) {
      by_name.emplace(data.frames[i].name, static_cast<uint32_t>(i));
    }
    std::map<std::string, const SceneSpriteClip*, std::less<>> scene_clips;
    for (const SceneSpriteClip& c : a.clips) scene_clips.emplace(c.name, &c);
    std::vector<Plan> plans;
    bool ok = true;
    std::set<std::string, std::less<>> tag_names;
    for (const AtlasDataTag& tag : data.tags) {
      Plan p;
      p.name = tag.name;
      for (uint32_t f = tag.from; f <= tag.to; ++f) p.frames.push_back(f);
      p.playback = tag.direction == AtlasTagDirection::kPingPong ||
                           tag.direction == AtlasTagDirection::kPingPongReverse
                       ? Playback::kPingPong
                       : Playback::kLoop;
      p.reverse = tag.direction == AtlasTagDirection::kReverse ||
                  tag.direction == AtlasTagDirection::kPingPongReverse;
      p.pos = a.atlas_pos;
      tag_names.insert(tag.name);
      if (auto it = scene_clips.find(tag.name); it != scene_clips.end()) {
        const SceneSpriteClip& c = *it->second;
        p.scene = &c;
        p.pos = c.name_pos;
        for (SourcePos key : {c.from_pos, c.to_pos, c.frames_pos, c.prefix_pos}) {
          if (!key.known()) continue;
          at("E0241", key,
             "sprite clip " + quote(c.name) +
                 " is a tag of the data file, which gives its frames; give only `fps`, "
                 "`playback` and events here");
          ok = false;
          break;
        }
        if (c.playback) p.playback = *c.playback;
      }
      plans.push_back(std::move(p));
    }
    const uint32_t count = static_cast<uint32_t>(data.frames.size());
    for (const SceneSpriteClip& c : a.clips) {
      if (tag_names.count(c.name)) continue;
      Plan p;
      p.name = c.name;
      p.scene = &c;
      p.pos = c.name_pos;
      p.playback = c.playback.value_or(Playback::kLoop);
      if (c.from_pos.known() || c.to_pos.known()) {
        if (!c.from_pos.known() || !c.to_pos.known() || c.from < 0 || c.to < c.from) {
          ok = false;  // the scene reader reported it
          continue;
        }
        if (static_cast<uint32_t>(c.to) >= count) {
          at("E0207", static_cast<uint32_t>(c.from) >= count ? c.from_pos : c.to_pos,
             "clip " + c.name + " runs to frame " + std::to_string(c.to) +
                 " but the data file has " + std::to_string(count) + " frames (0 to " +
                 std::to_string(count - 1) + ")");
          ok = false;
          continue;
        }
        for (int32_t f = c.from; f <= c.to; ++f) p.frames.push_back(static_cast<uint32_t>(f));
      } else if (c.frames_pos.known()) {
        for (size_t i = 0; i < c.frame_names.size(); ++i) {
          auto it = by_name.find(c.frame_names[i]);
          if (it == by_name.end()) {
            at("E0241", c.frame_name_pos[i],
               "sprite clip " + quote(c.name) + " names frame " + quote(c.frame_names[i]) +
                   ", which the data file does not have");
            ok = false;
            continue;
          }
          p.frames.push_back(it->second);
        }
        if (p.frames.empty()) {
          ok = false;  // reported: an empty `frames` or unknown names
          continue;
        }
      } else if (c.prefix_pos.known()) {
        for (uint32_t f = 0; f < count; ++f) {
          if (!c.prefix.empty() && data.frames[f].name.rfind(c.prefix, 0) == 0) {
            p.frames.push_back(f);
          }
        }
        if (p.frames.empty()) {
          if (!c.prefix.empty()) {
            at("E0241", c.prefix_pos,
               "no frame name of the data file starts with " + quote(c.prefix) + " (sprite clip " +
                   quote(c.name) + ")");
          }
          ok = false;
          continue;
        }
      } else {
        std::string tags;
        for (const AtlasDataTag& t : data.tags) {
          if (tags.size() > 200) {
            tags += ", ...";
            break;
          }
          tags += (tags.empty() ? "" : ", ") + quote(t.name);
        }
        at("E0241", c.name_pos,
           "sprite clip " + quote(c.name) +
               " is no tag of the data file (its tags: " + (tags.empty() ? "none" : tags) +
               ") and gives no frames (`from` and `to`, `frames` or `prefix`)");
        ok = false;
        continue;
      }
      plans.push_back(std::move(p));
    }
    if (data.tags.empty() && a.clips.empty()) {
      Plan p;
      p.name = "all";
      for (uint32_t f = 0; f < count; ++f) p.frames.push_back(f);
      p.pos = a.atlas_pos;
      const bool timed = std::all_of(data.frames.begin(), data.frames.end(),
                                     [](const AtlasDataFrame& f) { return f.duration_ms; });
      if (timed || a.fps) plans.push_back(std::move(p));  // else still frames only
    }

    std::vector<SpriteClip> clips;
    for (const Plan& p : plans) {
      std::vector<FrameEvent> events;
      for (const SceneEvent& e : a.events) {
        if (e.clip != p.name || e.frame < 0) continue;
        if (static_cast<size_t>(e.frame) >= p.frames.size()) {
          at("E0208", e.frame_pos,
             "event " + quote(e.name) + " is on frame " + std::to_string(e.frame) + " of clip " +
                 quote(p.name) + ", which has frames 0 to " + std::to_string(p.frames.size() - 1));
          ok = false;
          continue;
        }
        events.push_back({e.name, static_cast<uint32_t>(e.frame)});
      }
      std::vector<uint32_t> durations;
      for (uint32_t f : p.frames) {
        if (!data.frames[f].duration_ms) {
          durations.clear();
          break;
        }
        durations.push_back(*data.frames[f].duration_ms);
      }
      const std::optional<float> own_fps = p.scene ? p.scene->fps : std::nullopt;
      Result<SpriteClip> clip = Error::make(ErrorCode::kInvalidArgument, "not made");
      if (!own_fps && !durations.empty()) {
        clip = SpriteClip::create_timed(p.name, p.frames, std::move(durations), p.playback,
                                        p.reverse, std::move(events));
      } else if (own_fps || a.fps) {
        // Reverse at a steady rate: the frame list turned round (events with it).
        std::vector<uint32_t> frames = p.frames;
        if (p.reverse) {
          std::reverse(frames.begin(), frames.end());
          for (FrameEvent& e : events) e.frame = static_cast<uint32_t>(frames.size() - 1 - e.frame);
        }
        clip = SpriteClip::create(p.name, std::move(frames), own_fps ? *own_fps : *a.fps,
                                  p.playback, std::move(events));
      } else {
        at("E0127", p.pos,
           "sprite clip " + quote(p.name) +
               " has no `fps`, some of its frames have no "
               "duration in the data file, and the animation has no `fps` for it to take");
        ok = false;
        continue;
      }
      if (!clip) {
        at("E0241", p.pos, "sprite clip " + quote(p.name) + ": " + clip.error().message());
        ok = false;
        continue;
      }
      clips.push_back(std::move(*clip));
    }
    const auto has_clip = [&plans](std::string_view name) {
      return std::any_of(plans.begin(), plans.end(),
                         [name](const Plan& p) { return p.name == name; });
    };
    const auto known = [&plans] {
      std::string names;
      for (const Plan& p : plans) {
        if (names.size() > 200) return names + ", ...";
        names += (names.empty() ? "" : ", ") + quote(p.name);
      }
      return names.empty() ? std::string("none") : names;
    };
    const bool clips_ok = ok;  // names are checked when every clip was made
    if (!a.clip.empty() && clips_ok && !has_clip(a.clip)) {
      at("E0131", a.clip_pos,
         "the sprite animation has no clip " + quote(a.clip) + " (its clips: " + known() + ")");
      ok = false;
    }
    for (const SceneEvent& e : a.events) {
      if (!e.clip.empty() && clips_ok && !has_clip(e.clip)) {
        at("E0131", e.clip_pos,
           "event " + quote(e.name) + " names sprite clip " + quote(e.clip) +
               ", which the animation does not have (its clips: " + known() + ")");
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return clips;
  }

  // Everything a sheet writes but its pixels, as bytes: equal keys make equal sheets.
  static std::string sheet_key(const std::string& file, const SpriteSheet& sheet) {
    std::string key = file;
    key += '\0';
    const auto put = [&key](const void* p, size_t n) {
      key.append(static_cast<const char*>(p), n);
    };
    const auto put_string = [&](const std::string& text) {
      const uint64_t n = text.size();
      put(&n, sizeof n);
      key += text;
    };
    for (const PixelRect& r : sheet.atlas().frames()) put(&r, sizeof r);
    for (uint32_t f = 0; f < sheet.atlas().frame_count() && sheet.atlas().has_placements(); ++f) {
      const FramePlacement p = *sheet.atlas().placement(f);
      put(&p.source, sizeof p.source);
      put(&p.trimmed, sizeof p.trimmed);
      put(&p.pivot_x, sizeof p.pivot_x);
      put(&p.pivot_y, sizeof p.pivot_y);
      key += p.rotated ? 'r' : '-';
    }
    for (uint32_t f = 0; f < sheet.atlas().frame_count(); ++f) {
      put_string(std::string(sheet.atlas().name(f)));
    }
    for (const SpriteClip& c : sheet.clips()) {
      put(c.durations_ms().data(), c.durations_ms().size() * sizeof(uint32_t));
      key += c.reverse() ? 'r' : '-';
      put_string(c.name());
      const uint64_t n = c.frames().size();
      put(&n, sizeof n);
      put(c.frames().data(), c.frames().size() * sizeof(uint32_t));
      const float fps = c.fps();
      const Playback playback = c.playback();
      put(&fps, sizeof fps);
      put(&playback, sizeof playback);
      for (const FrameEvent& e : c.events()) {
        put_string(e.name);
        put(&e.frame, sizeof e.frame);
      }
      key += '\1';
    }
    return key;
  }

  DiagnosticSink& sink_;
  Scene scene_;
  std::string file_;
  CookOutput out_;
  std::map<std::string, LoadedMesh, std::less<>> meshes_;
  std::map<std::string, LoadedFile> files_;       // by canonical path and import options
  std::map<std::string, LoadedAtlas> atlases_;    // by normal path
  std::map<std::string, LoadedData> data_files_;  // atlas data files, by normal path
  std::map<std::string, int> sheets_;             // sheet_key -> pack sheet
  size_t suggestion_budget_ = size_t{1} << 18;    // name comparisons for hints
  // Additive clips layers play, made in finish_rigs: per pack rig, in index order.
  struct PendingAdditive {
    uint16_t source = 0;
    AdditiveReference reference = AdditiveReference::kFirstFrame;
  };
  std::map<int, std::vector<PendingAdditive>> pending_additive_;
  std::map<std::tuple<int, uint16_t, AdditiveReference>, uint16_t> additive_index_;
  std::map<std::string, std::vector<float>> masks_;  // expanded masks by rig and entries
  // Objects accumulating root motion, baked in bake_root_tracks once every rig is final.
  struct PendingBake {
    size_t object = 0;  // in out_.pack.objects
    int rig = -1;       // in out_.pack.rigs
    RootMotionConfig config;
    std::vector<int32_t> feet;
    SourcePos pos;  // `root_motion`
  };
  std::vector<PendingBake> pending_bakes_;
  uint64_t contents_ = 0;  // estimated pack bytes so far
  bool contents_reported_ = false;
  std::unordered_multimap<uint64_t, int> texture_by_hash_;  // pixel hash -> pack texture
};

// Make's and Ninja's depfile escaping of one path: '\' before a space, tab, '#' and ':'
// (and doubled backslashes before those), "$$" for '$'. False for a path that no depfile
// can hold (a newline or carriage return).
bool escape_make(const std::string& path, std::string* out) {
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '\n' || c == '\r') return false;
    if (c == '\\') {
      // Backslashes are literal unless they precede a character that is escaped: then
      // each one is doubled so that the escape that follows stays one.
      size_t j = i;
      while (j < path.size() && path[j] == '\\') ++j;
      const bool before_escaped =
          j == path.size() || path[j] == ' ' || path[j] == '\t' || path[j] == '#' || path[j] == ':';
      out->append((j - i) * (before_escaped ? 2 : 1), '\\');
      i = j - 1;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '#' || c == ':') *out += '\\';
    if (c == '$') *out += '$';
    *out += c;
  }
  return true;
}

}  // namespace

CookOutput cook_scene(const fs::path& scene_file, DiagnosticSink& sink) {
  // Nothing escapes: an unexpected failure anywhere is one E0003 at the scene file (and
  // an error, so no pack is written from what was cooked so far).
  const char* what = nullptr;
  std::string detail;
  try {
    return Cooker(scene_file, sink).run();
  } catch (const std::bad_alloc&) {
    what = "out of memory";
  } catch (const std::exception& e) {
    what = "internal error: ";
    detail = e.what();
  } catch (...) {
    what = "internal error";
  }
  CookOutput out;
  out.inputs.push_back(scene_file);
  sink.report("E0003", scene_file.string(), 0, 0, std::string(what) + detail);
  return out;
}

bool verify_pack(std::span<const uint8_t> bytes, const fs::path& scene_file, DiagnosticSink& sink) {
  const auto fail = [&](const std::string& what) {
    sink.report("E0901", scene_file.string(), 0, 0,
                "internal error: the cooked pack " + what +
                    "; nothing was written (a cooker bug: please report it with this scene)");
    return false;
  };
  Result<Pack> pack = Pack::from_bytes(bytes);
  if (!pack) return fail(std::string("does not open: ") + pack.error().message());
  for (int p = 0; p < static_cast<int>(pack->parts().size()); ++p) {
    if (Result<PartStreams> s = pack->part_streams(p); !s) {
      return fail(std::string("does not decode: ") + s.error().message());
    }
  }
  for (int s = 0; s < static_cast<int>(pack->sprite_sheets().size()); ++s) {
    if (Result<std::span<const uint8_t>> px = pack->sprite_pixels(s); !px) {
      return fail(std::string("does not decode: ") + px.error().message());
    }
  }
  Result<ScenePlayer> player = ScenePlayer::create(&*pack, 60);
  if (!player) return fail(std::string("does not play: ") + player.error().message());
  // Each tick: every palette finite, and every vertex placed by it (as `pose` does).
  constexpr int kTicks = 4;
  std::vector<Vec3> moved;
  const auto finite = [](const float* f, size_t n) {
    return std::all_of(f, f + n, [](float x) { return std::isfinite(x); });
  };
  for (int t = 0; t < kTicks; ++t) {
    player->step();
    for (uint32_t o = 0; o < pack->objects().size(); ++o) {
      const ObjectInfo& object = pack->objects()[o];
      const std::string where =
          " (object " + std::string(object.name) + ", tick " + std::to_string(t + 1) + ")";
      const std::span<const Mat4> palette = player->palette(ObjectId{o});
      for (const Mat4& m : palette) {
        if (!finite(m.m, 16)) return fail("plays to a non-finite pose" + where);
      }
      if (object.mesh < 0 || palette.empty()) continue;
      const MeshInfo& mesh = pack->meshes()[static_cast<size_t>(object.mesh)];
      for (int p = mesh.first_part; p < mesh.first_part + mesh.part_count; ++p) {
        const PartInfo& part = pack->parts()[static_cast<size_t>(p)];
        const Result<PartStreams> s = pack->part_streams(p);
        if (!s) return fail(std::string("does not decode: ") + s.error().message());
        moved.resize(s->positions.size());
        // The part's morph set's weights (pack format 5): morphed, then skinned.
        std::span<const float> weights;
        const std::span<const float> all = player->morph_weights(ObjectId{o});
        if (part.morph_set >= 0 && mesh.rig >= 0) {
          const std::span<const MorphSet> sets = pack->rig(mesh.rig).morph_sets();
          const auto k = static_cast<size_t>(part.morph_set);
          if (k < sets.size() && size_t{sets[k].first} + sets[k].size() <= all.size()) {
            weights = all.subspan(sets[k].first, sets[k].size());
          }
        }
        if (part.skinned) {
          SkinInput in{s->positions, {}, {}, s->joints, s->weights, s->joints1, s->weights1};
          if (!weights.empty() && s->morph.targets == weights.size()) {
            in.morph = s->morph;
            in.morph_weights = weights;
          }
          if (!skin(in, palette, {moved, {}, {}})) return fail("does not skin" + where);
        } else if (part.joint >= 0 && static_cast<size_t>(part.joint) < palette.size()) {
          for (size_t v = 0; v < moved.size(); ++v) {
            moved[v] = transform_point(palette[static_cast<size_t>(part.joint)], s->positions[v]);
          }
        } else {
          continue;
        }
        const bool vertices_finite = std::all_of(moved.begin(), moved.end(), [](const Vec3& v) {
          return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
        });
        if (!vertices_finite) {
          return fail("plays to a non-finite vertex" + where);
        }
      }
    }
  }
  return true;
}

std::string pack_source_name(const fs::path& scene_folder, const std::string& file) {
  const fs::path p = fs::path(file).lexically_normal();
  if (!p.is_absolute()) return p.generic_string();
  // An absolute path: relative to the scene's folder when it lies inside it, else only
  // the file's name, so that the pack does not depend on where it was cooked.
  std::error_code ec;
  const fs::path base = fs::absolute(scene_folder.empty() ? fs::path(".") : scene_folder, ec);
  if (!ec) {
    fs::path folder = base.lexically_normal();
    if (!folder.has_filename()) folder = folder.parent_path();  // "/work/scene/" -> "/work/scene"
    const fs::path rel = p.lexically_relative(folder);
    if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
  }
  return p.filename().generic_string();
}

std::optional<std::string> make_depfile(const fs::path& output, const std::vector<fs::path>& inputs,
                                        std::string* error) {
  std::string text;
  if (!escape_make(output.string(), &text)) {
    if (error)
      *error = "the output path " + output.string() + " has a line break; a depfile cannot name it";
    return std::nullopt;
  }
  text += ":";
  std::set<std::string> seen;
  for (const fs::path& p : inputs) {
    const std::string s = p.lexically_normal().string();
    if (!seen.insert(s).second) continue;
    text += " \\\n  ";
    if (!escape_make(s, &text)) {
      if (error) *error = "the input path " + s + " has a line break; a depfile cannot name it";
      return std::nullopt;
    }
  }
  return text + "\n";
}

}  // namespace animpack
