// describe_model and its two writers (model_info.h).
#include "animpack/compiler/model_info.h"

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string_view>
#include <system_error>

#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_assimp.h"
#include "animpack/compiler/import_gltf.h"
#include "animpack/compiler/mesh_bounds.h"
#include "import_internal.h"  // mode_name
#include "report_format.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr const char* kSlotNames[5] = {"base colour", "metallic-roughness", "normal", "occlusion",
                                       "emissive"};
constexpr const char* kSlotKeys[5] = {"base_color", "metallic_roughness", "normal", "occlusion",
                                      "emissive"};
constexpr const char* kAlphaNames[3] = {"opaque", "mask", "blend"};

std::string lower_extension(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// A problem in the model file as the cook reports it: E0201 (error) or W0301 (warning or
// note), "pointer: message [ISSUE]".
void add_problem(ModelInfo& info, bool error, bool note, const std::string& pointer,
                 const std::string& message, const std::string& issue) {
  ModelProblem p;
  p.pointer = pointer;
  p.issue = issue;
  p.diagnostic.code = error ? "E0201" : "W0301";
  p.diagnostic.severity = error ? Severity::kError : note ? Severity::kNote : Severity::kWarning;
  p.diagnostic.file = info.file;
  p.diagnostic.message = (pointer.empty() ? "" : pointer + ": ") + message + " [" + issue + "]";
  info.problems.push_back(std::move(p));
}

void take_import_issues(ModelInfo& info, const ImportedModel& model) {
  for (const ImportIssue& issue : model.issues)
    add_problem(info, issue.error, issue.note, issue.pointer, issue.message, issue.code);
}

ModelMaterialInfo material_of(std::string name, const MaterialInfo& m) {
  ModelMaterialInfo out;
  out.name = std::move(name);
  out.base_color = m.base_color;
  out.metallic = m.metallic;
  out.roughness = m.roughness;
  out.alpha_mode = m.alpha_mode;
  out.double_sided = m.double_sided;
  const TextureSlot* slots[5] = {&m.base_color_texture, &m.metallic_roughness_texture,
                                 &m.normal_texture, &m.occlusion_texture, &m.emissive_texture};
  for (int s = 0; s < 5; ++s) {
    out.textures[s] = slots[s]->texture;
    out.uv_sets[s] = slots[s]->uv_set;
  }
  return out;
}

// The rig, the whole model's rest bounds and each source mesh's, from a usable import.
void take_import(ModelInfo& info, ImportedModel& model) {
  const CookedRig* rig = model.rig ? &*model.rig : nullptr;
  if (rig) {
    ModelRigInfo r;
    r.node_rig = rig->node_rig;
    r.joints = rig->rig.skeleton().joint_count();
    r.clips = rig->rig.clip_count();
    r.morph_sets = static_cast<int>(rig->rig.morph_sets().size());
    info.rig = r;
  }
  compute_mesh_bounds(model.mesh, rig);
  if (model.mesh.bind_bounds.valid()) info.bounds = model.mesh.bind_bounds;
  for (size_t m = 0; m < info.meshes.size(); ++m) {
    CookedMesh one;
    for (const CookedPart& part : model.mesh.parts) {
      if (part.source_mesh == static_cast<int>(m)) one.parts.push_back(part);
    }
    if (one.parts.empty()) continue;
    compute_mesh_bounds(one, rig);
    if (one.bind_bounds.valid()) info.meshes[m].bounds = one.bind_bounds;
  }
}

void describe_gltf(const fs::path& file, ModelInfo& info) {
  const GltfDocument doc = read_gltf(file);
  if (doc.files.empty()) info.readable = false;
  for (const GltfIssue& issue : doc.issues) {
    const std::string where = !issue.pointer.empty() ? issue.pointer
                              : issue.offset >= 0    ? "byte " + std::to_string(issue.offset)
                                                     : std::string();
    add_problem(info, issue.error, false, where, issue.message, issue.code);
  }
  if (!info.readable) return;
  info.generator = doc.generator;
  info.nodes = doc.nodes.size();
  auto node_name = [&](int n) {
    if (n < 0 || static_cast<size_t>(n) >= doc.nodes.size()) return std::string();
    const std::string& name = doc.nodes[static_cast<size_t>(n)].name;
    return name.empty() ? "node_" + std::to_string(n) : name;
  };
  for (const GltfMesh& mesh : doc.meshes) {
    ModelMeshInfo m;
    m.name = mesh.name;
    m.morph_targets = mesh.morph_targets;
    m.target_names = mesh.target_names;
    m.weights = mesh.weights;
    for (const GltfPrimitive& prim : mesh.primitives) {
      ModelPrimitiveInfo p;
      p.mode = import_detail::mode_name(prim.mode);
      p.vertices = prim.vertex_count;
      p.indexed = prim.indexed;
      const uint64_t n = prim.indexed ? prim.indices.size() : prim.vertex_count;
      if (prim.mode == GltfPrimitiveMode::kTriangles) {
        p.triangles = n / 3;
      } else if (prim.mode == GltfPrimitiveMode::kTriangleStrip ||
                 prim.mode == GltfPrimitiveMode::kTriangleFan) {
        p.triangles = n >= 3 ? n - 2 : 0;
      }
      const std::pair<const char*, bool> attributes[] = {
          {"POSITION", !prim.positions.empty()},    {"NORMAL", !prim.normals.empty()},
          {"TANGENT", !prim.tangents.empty()},      {"TEXCOORD_0", !prim.texcoords0.empty()},
          {"TEXCOORD_1", !prim.texcoords1.empty()}, {"COLOR_0", !prim.colors.empty()},
          {"JOINTS_0", !prim.joints.empty()},       {"WEIGHTS_0", !prim.weights.empty()},
          {"JOINTS_1", !prim.joints1.empty()},      {"WEIGHTS_1", !prim.weights1.empty()}};
      for (const auto& [name, present] : attributes) {
        if (present) p.attributes.emplace_back(name);
      }
      p.material = prim.material;
      p.morph_targets = static_cast<int>(prim.targets.size());
      m.primitives.push_back(std::move(p));
    }
    info.meshes.push_back(std::move(m));
  }
  for (const GltfSkin& skin : doc.skins) {
    ModelSkinInfo s;
    s.name = skin.name;
    for (int j : skin.joints) s.joints.push_back(node_name(j));
    s.skeleton = node_name(skin.skeleton);
    info.skins.push_back(std::move(s));
  }
  for (const GltfAnimation& anim : doc.animations) {
    ModelAnimationInfo a;
    a.name = anim.name;
    a.duration = anim.duration;
    a.channels = anim.channels.size();
    for (const GltfChannel& ch : anim.channels) {
      a.keys += ch.times.size();
      a.weights_channels += ch.morph_weights ? 1 : 0;
      a.step += ch.interpolation == Interpolation::kStep ? 1 : 0;
      a.linear += ch.interpolation == Interpolation::kLinear ? 1 : 0;
      a.cubic += ch.interpolation == Interpolation::kCubicSpline ? 1 : 0;
    }
    info.animations.push_back(std::move(a));
  }
  for (const GltfMaterial& mat : doc.materials)
    info.materials.push_back(material_of(mat.name, mat.info));
  for (const GltfTexture& tex : doc.textures) {
    ModelTextureInfo t;
    t.name = tex.name;
    t.image = tex.source;
    if (tex.source >= 0 && static_cast<size_t>(tex.source) < doc.images.size()) {
      const GltfImage& image = doc.images[static_cast<size_t>(tex.source)];
      t.uri = image.uri.rfind("data:", 0) == 0 ? std::string("data:") : image.uri;
      t.mime_type = image.mime_type;
      if (image.decoded) {
        t.width = image.width;
        t.height = image.height;
      }
    }
    info.textures.push_back(std::move(t));
  }
  if (!doc.ok()) return;
  const std::string name = file.stem().string();
  ImportedModel model = import_gltf(doc, name, file.filename().string());
  take_import_issues(info, model);
  if (model.ok()) take_import(info, model);
}

void describe_assimp(const fs::path& file, ModelInfo& info) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) info.readable = false;
  ImportedModel model = import_assimp(file, file.stem().string(), file.filename().string());
  take_import_issues(info, model);
  if (!model.ok()) return;
  const CookedRig* rig = model.rig ? &*model.rig : nullptr;
  int meshes = 0;
  for (const CookedPart& part : model.mesh.parts) meshes = std::max(meshes, part.source_mesh + 1);
  info.meshes.resize(static_cast<size_t>(meshes));
  for (const CookedPart& part : model.mesh.parts) {
    if (part.source_mesh < 0) continue;
    ModelMeshInfo& m = info.meshes[static_cast<size_t>(part.source_mesh)];
    ModelPrimitiveInfo p;
    p.mode = "TRIANGLES";
    p.vertices = static_cast<uint32_t>(part.positions.size());
    p.triangles = part.indices.size() / 3;
    p.indexed = true;
    const std::pair<const char*, bool> attributes[] = {
        {"POSITION", !part.positions.empty()},    {"NORMAL", !part.normals.empty()},
        {"TANGENT", !part.tangents.empty()},      {"TEXCOORD_0", !part.texcoords0.empty()},
        {"TEXCOORD_1", !part.texcoords1.empty()}, {"COLOR_0", !part.colors.empty()},
        {"JOINTS_0", !part.joints.empty()},       {"WEIGHTS_0", !part.weights.empty()},
        {"JOINTS_1", !part.joints1.empty()},      {"WEIGHTS_1", !part.weights1.empty()}};
    for (const auto& [name, present] : attributes) {
      if (present) p.attributes.emplace_back(name);
    }
    p.material = part.material;
    p.morph_targets = static_cast<int>(part.morph_targets.size());
    m.morph_targets = std::max(m.morph_targets, p.morph_targets);
    m.primitives.push_back(std::move(p));
  }
  if (rig) {
    const Skeleton& skeleton = rig->rig.skeleton();
    info.nodes = static_cast<size_t>(skeleton.joint_count());
    if (!rig->node_rig) {
      ModelSkinInfo s;
      for (const Joint& j : skeleton.joints()) s.joints.push_back(j.name);
      info.skins.push_back(std::move(s));
    }
    for (const Clip& clip : rig->rig.clips()) {
      ModelAnimationInfo a;
      a.name = std::string(clip.name());
      a.duration = clip.duration();
      a.channels = clip.channels().size();
      for (const Channel& ch : clip.channels()) {
        a.keys += ch.times.size();
        a.weights_channels += ch.property == Property::kWeights ? 1 : 0;
        a.step += ch.interpolation == Interpolation::kStep ? 1 : 0;
        a.linear += ch.interpolation == Interpolation::kLinear ? 1 : 0;
        a.cubic += ch.interpolation == Interpolation::kCubicSpline ? 1 : 0;
      }
      info.animations.push_back(std::move(a));
    }
  }
  for (const CookedMaterial& mat : model.materials)
    info.materials.push_back(material_of(mat.name, mat.info));
  for (const CookedTexture& tex : model.textures) {
    ModelTextureInfo t;
    t.image = tex.source_image;
    t.uri = tex.source_file;
    t.mime_type = tex.mime_type;
    t.width = tex.width;
    t.height = tex.height;
    info.textures.push_back(std::move(t));
  }
  take_import(info, model);
}

std::string name_or_unnamed(const std::string& name) {
  return name.empty() ? std::string("(unnamed)") : printable(name);
}

std::string box_text(const Box& b) {
  std::string out;
  appendf(out, "[%g %g %g] .. [%g %g %g]", static_cast<double>(b.lo.x), static_cast<double>(b.lo.y),
          static_cast<double>(b.lo.z), static_cast<double>(b.hi.x), static_cast<double>(b.hi.y),
          static_cast<double>(b.hi.z));
  return out;
}

Json box_json(const std::optional<Box>& b) {
  if (!b) return nullptr;
  return Json{{"min", {b->lo.x, b->lo.y, b->lo.z}}, {"max", {b->hi.x, b->hi.y, b->hi.z}}};
}

}  // namespace

size_t ModelInfo::error_count() const {
  return static_cast<size_t>(std::count_if(
      problems.begin(), problems.end(),
      [](const ModelProblem& p) { return p.diagnostic.severity == Severity::kError; }));
}

size_t ModelInfo::warning_count() const {
  return static_cast<size_t>(std::count_if(
      problems.begin(), problems.end(),
      [](const ModelProblem& p) { return p.diagnostic.severity == Severity::kWarning; }));
}

ModelInfo describe_model(const fs::path& file) {
  ModelInfo info;
  info.file = file.string();
  const std::string ext = lower_extension(file);
  info.format = ext == ".glb" ? "glb" : ext == ".fbx" ? "fbx" : ext == ".dae" ? "dae" : "gltf";
  try {
    if (info.format == "fbx" || info.format == "dae") {
      describe_assimp(file, info);
    } else {
      describe_gltf(file, info);
    }
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    add_problem(info, true, false, "", std::string("internal error: ") + e.what(),
                "INTERNAL_ERROR");
  }
  return info;
}

std::string model_info_text(const ModelInfo& info) {
  std::string out;
  appendf(out, "model %s: %s", printable(info.file).c_str(), info.format.c_str());
  if (!info.generator.empty())
    appendf(out, ", generator \"%s\"", printable(info.generator).c_str());
  appendf(out, ", %zu nodes\n", info.nodes);
  appendf(out, "meshes: %zu\n", info.meshes.size());
  for (size_t m = 0; m < info.meshes.size(); ++m) {
    const ModelMeshInfo& mesh = info.meshes[m];
    uint64_t vertices = 0, triangles = 0;
    for (const ModelPrimitiveInfo& p : mesh.primitives) {
      vertices += p.vertices;
      triangles += p.triangles;
    }
    appendf(out, "  [%zu] %s: %zu primitives, %llu vertices, %llu triangles", m,
            name_or_unnamed(mesh.name).c_str(), mesh.primitives.size(),
            static_cast<unsigned long long>(vertices), static_cast<unsigned long long>(triangles));
    if (mesh.morph_targets > 0) appendf(out, ", %d morph targets", mesh.morph_targets);
    if (mesh.bounds) appendf(out, ", bounds %s", box_text(*mesh.bounds).c_str());
    out += '\n';
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const ModelPrimitiveInfo& prim = mesh.primitives[p];
      appendf(out, "    primitive [%zu]: %s, %u vertices, %llu triangles%s, material %d", p,
              prim.mode.c_str(), prim.vertices, static_cast<unsigned long long>(prim.triangles),
              prim.indexed ? ", indexed" : "", prim.material);
      if (prim.morph_targets > 0) appendf(out, ", %d morph targets", prim.morph_targets);
      out += ":";
      for (const std::string& a : prim.attributes) out += " " + a;
      out += '\n';
    }
    if (mesh.morph_targets > 0) {
      appendf(out, "    morph targets:");
      for (int t = 0; t < mesh.morph_targets; ++t) {
        const size_t i = static_cast<size_t>(t);
        const std::string name = i < mesh.target_names.size() && !mesh.target_names[i].empty()
                                     ? printable(mesh.target_names[i])
                                     : "target_" + std::to_string(t);
        appendf(out, "%s %s (%g)", t == 0 ? "" : ",", name.c_str(),
                i < mesh.weights.size() ? static_cast<double>(mesh.weights[i]) : 0.0);
      }
      out += '\n';
    }
  }
  appendf(out, "skins: %zu\n", info.skins.size());
  for (size_t s = 0; s < info.skins.size(); ++s) {
    const ModelSkinInfo& skin = info.skins[s];
    appendf(out, "  [%zu] %s: %zu joints", s, name_or_unnamed(skin.name).c_str(),
            skin.joints.size());
    if (!skin.skeleton.empty()) appendf(out, ", skeleton %s", printable(skin.skeleton).c_str());
    out += ":";
    for (size_t j = 0; j < skin.joints.size(); ++j)
      appendf(out, "%s %s", j == 0 ? "" : ",", printable(skin.joints[j]).c_str());
    out += '\n';
  }
  appendf(out, "animations: %zu\n", info.animations.size());
  for (size_t a = 0; a < info.animations.size(); ++a) {
    const ModelAnimationInfo& anim = info.animations[a];
    appendf(out, "  [%zu] %s: %.4g s, %zu channels, %zu keys", a,
            name_or_unnamed(anim.name).c_str(), static_cast<double>(anim.duration), anim.channels,
            anim.keys);
    if (anim.step > 0) appendf(out, ", STEP %zu", anim.step);
    if (anim.linear > 0) appendf(out, ", LINEAR %zu", anim.linear);
    if (anim.cubic > 0) appendf(out, ", CUBICSPLINE %zu", anim.cubic);
    if (anim.weights_channels > 0) appendf(out, ", %zu weights channels", anim.weights_channels);
    out += '\n';
  }
  appendf(out, "materials: %zu\n", info.materials.size());
  for (size_t m = 0; m < info.materials.size(); ++m) {
    const ModelMaterialInfo& mat = info.materials[m];
    appendf(out, "  [%zu] %s: base colour %g %g %g %g, metallic %g, roughness %g, %s%s", m,
            name_or_unnamed(mat.name).c_str(), static_cast<double>(mat.base_color.x),
            static_cast<double>(mat.base_color.y), static_cast<double>(mat.base_color.z),
            static_cast<double>(mat.base_color.w), static_cast<double>(mat.metallic),
            static_cast<double>(mat.roughness), kAlphaNames[static_cast<int>(mat.alpha_mode) % 3],
            mat.double_sided ? ", double-sided" : "");
    for (int s = 0; s < 5; ++s) {
      if (mat.textures[s] >= 0)
        appendf(out, ", %s texture %d (uv %d)", kSlotNames[s], mat.textures[s], mat.uv_sets[s]);
    }
    out += '\n';
  }
  appendf(out, "textures: %zu\n", info.textures.size());
  for (size_t t = 0; t < info.textures.size(); ++t) {
    const ModelTextureInfo& tex = info.textures[t];
    appendf(out, "  [%zu] %s: image %d", t, name_or_unnamed(tex.name).c_str(), tex.image);
    if (!tex.uri.empty()) appendf(out, " %s", printable(tex.uri).c_str());
    if (!tex.mime_type.empty()) appendf(out, ", %s", printable(tex.mime_type).c_str());
    if (tex.width > 0) {
      appendf(out, ", %ux%u", tex.width, tex.height);
    } else {
      out += ", not decoded";
    }
    out += '\n';
  }
  if (info.rig) {
    appendf(out, "rig: %s, %d joints, %d clips, %d morph sets\n",
            info.rig->node_rig ? "node" : "skin", info.rig->joints, info.rig->clips,
            info.rig->morph_sets);
  } else {
    out += info.bounds ? "rig: none (static)\n" : "rig: not imported\n";
  }
  if (info.bounds) appendf(out, "bounds %s\n", box_text(*info.bounds).c_str());
  size_t notes = info.problems.size() - info.error_count() - info.warning_count();
  appendf(out, "problems: %zu errors, %zu warnings, %zu notes\n", info.error_count(),
          info.warning_count(), notes);
  for (const ModelProblem& p : info.problems)
    out += format_diagnostic(p.diagnostic, DiagnosticFormat::kGcc);
  return out;
}

std::string model_info_json(const ModelInfo& info) {
  Json j;
  j["file"] = info.file;
  j["format"] = info.format;
  j["generator"] = info.generator;
  j["readable"] = info.readable;
  j["nodes"] = info.nodes;
  Json meshes = Json::array();
  for (const ModelMeshInfo& mesh : info.meshes) {
    Json prims = Json::array();
    for (const ModelPrimitiveInfo& p : mesh.primitives) {
      prims.push_back({{"mode", p.mode},
                       {"vertices", p.vertices},
                       {"triangles", p.triangles},
                       {"indexed", p.indexed},
                       {"attributes", p.attributes},
                       {"material", p.material},
                       {"morph_targets", p.morph_targets}});
    }
    meshes.push_back({{"name", mesh.name},
                      {"primitives", std::move(prims)},
                      {"morph_targets", mesh.morph_targets},
                      {"target_names", mesh.target_names},
                      {"weights", mesh.weights},
                      {"bounds", box_json(mesh.bounds)}});
  }
  j["meshes"] = std::move(meshes);
  Json skins = Json::array();
  for (const ModelSkinInfo& s : info.skins) {
    skins.push_back({{"name", s.name},
                     {"joint_count", s.joints.size()},
                     {"joints", s.joints},
                     {"skeleton", s.skeleton}});
  }
  j["skins"] = std::move(skins);
  Json anims = Json::array();
  for (const ModelAnimationInfo& a : info.animations) {
    anims.push_back(
        {{"name", a.name},
         {"duration", a.duration},
         {"channels", a.channels},
         {"keys", a.keys},
         {"weights_channels", a.weights_channels},
         {"interpolations", {{"STEP", a.step}, {"LINEAR", a.linear}, {"CUBICSPLINE", a.cubic}}}});
  }
  j["animations"] = std::move(anims);
  Json mats = Json::array();
  for (const ModelMaterialInfo& m : info.materials) {
    Json textures = Json::object();
    for (int s = 0; s < 5; ++s) {
      if (m.textures[s] >= 0)
        textures[kSlotKeys[s]] = {{"texture", m.textures[s]}, {"uv_set", m.uv_sets[s]}};
    }
    mats.push_back(
        {{"name", m.name},
         {"base_color", {m.base_color.x, m.base_color.y, m.base_color.z, m.base_color.w}},
         {"metallic", m.metallic},
         {"roughness", m.roughness},
         {"alpha_mode", kAlphaNames[static_cast<int>(m.alpha_mode) % 3]},
         {"double_sided", m.double_sided},
         {"textures", std::move(textures)}});
  }
  j["materials"] = std::move(mats);
  Json texs = Json::array();
  for (const ModelTextureInfo& t : info.textures) {
    texs.push_back({{"name", t.name},
                    {"image", t.image},
                    {"uri", t.uri},
                    {"mime_type", t.mime_type},
                    {"width", t.width},
                    {"height", t.height}});
  }
  j["textures"] = std::move(texs);
  if (info.rig) {
    j["rig"] = {{"kind", info.rig->node_rig ? "node" : "skin"},
                {"joints", info.rig->joints},
                {"clips", info.rig->clips},
                {"morph_sets", info.rig->morph_sets}};
  } else {
    j["rig"] = nullptr;
  }
  j["bounds"] = box_json(info.bounds);
  Json problems = Json::array();
  for (const ModelProblem& p : info.problems) {
    problems.push_back({{"file", p.diagnostic.file},
                        {"line", p.diagnostic.line},
                        {"column", p.diagnostic.col},
                        {"severity", severity_name(p.diagnostic.severity)},
                        {"code", p.diagnostic.code},
                        {"message", p.diagnostic.message},
                        {"pointer", p.pointer},
                        {"issue", p.issue}});
  }
  j["problems"] = std::move(problems);
  j["errors"] = info.error_count();
  j["warnings"] = info.warning_count();
  return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace animpack
