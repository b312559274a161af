// The glTF import stage: turns a GltfDocument (gltf_reader.h) into what the pack stores
// for one scene [[mesh]]: a CookedMesh with every triangle primitive of the file's default
// scene and, when the file is skinned or animated, the CookedRig that moves it (cooked.h).
//
//   animpack::GltfDocument doc = animpack::read_gltf("models/fox.glb");
//   if (!doc.ok()) return report(doc.issues);
//   animpack::ImportedModel model = animpack::import_gltf(doc, "fox", "models/fox.glb");
//   for (const animpack::ImportIssue& issue : model.issues) report(issue);
//   if (!model.ok()) return 1;
//   if (model.rig) {
//     model.mesh.rig = static_cast<int>(pack.rigs.size());
//     pack.rigs.push_back(std::move(*model.rig));
//   }
//   pack.meshes.push_back(std::move(model.mesh));
//
// Specification: Khronos glTF 2.0 (2.0.1), sections "Meshes" (primitive topologies and
// winding), "Transformations", "Skins" and "Animations". The rig and the meshes are built
// from our own reader, never from Assimp: Assimp loses interpolations and cubic tangents,
// flips texture V and mis-assigns the skins of shared meshes (docs/design-notes.md, "Assimp").
//
// What import_gltf builds:
// - Parts. The default scene (doc.roots) is walked depth first in child order; every
//   primitive of every node with a mesh becomes a CookedPart in that order. TRIANGLES are
//   kept; TRIANGLE_STRIP and TRIANGLE_FAN become triangle lists with the winding glTF
//   defines (degenerate triangles dropped); POINTS and LINES* and primitives without
//   POSITION are skipped with a warning. Vertices are never reordered or merged:
//   source_vertices[i] == i, except that a primitive without NORMAL is unwelded for flat
//   normals (generate_flat_normals, a NORMALS_GENERATED note): then each triangle corner
//   is its own vertex and source_vertices names its source vertex. Every stream
//   (positions, normals, tangents, joints, weights, TEXCOORD_0/1, COLOR_0) follows the
//   same vertex order. A part whose material has a normal texture and whose file has no
//   TANGENT gets generated tangents (a TANGENTS_GENERATED note).
// - Materials and textures. CookedPart::material indexes ImportedModel::materials, the
//   materials the parts use in first-use order (-1: the primitive has none). Each texture
//   slot indexes ImportedModel::textures: one per (glTF image, colour space) the materials
//   sample, decoded by the reader (only images the default scene's materials use).
// - Skin rig (the skins the scene's skinned nodes use, one or several; every skinned node
//   keeps its own skin). Joints: the union of those skins' joints plus every non-joint node
//   between two of them (identity inverse bind), ordered parents first in scene order, each
//   parent the nearest joint above (as gltf2ozz merges skins). A joint's inverse bind is
//   that of the first skin (in the order the walk meets the skinned nodes) listing it; a
//   later skin k giving the same joint a different inverse bind (not bit for bit the same)
//   gets a helper joint for its vertices, so that both skins stay exact: a child of that
//   joint with the identity rest pose, never animated, named "<joint>#skin<k>", with skin
//   k's inverse bind, appended after the file's joints (its joint_source_nodes entry is the
//   joint's node); a SKIN_HELPER_JOINT note says so. The nodes above the root joints are
//   folded into the skeleton's root matrix: the world matrix of the root joints' common
//   parent, or the identity when they are scene roots; root joints with different parents
//   are joined by adding their ancestors to the rig up to their lowest common ancestor (or
//   up to the scene roots). Skinned parts keep their bind-space vertices (the skinned
//   node's transform is ignored, as glTF says), vertex joints renumbered from their node's
//   skin to rig joints. A mesh instanced by several nodes, each with its own skin, gives
//   one part per node and primitive, each remapped through its node's skin.
//   Influences: JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1 (up to eight per vertex) are
//   remapped alike and the eight weights normalised together to sum to one
//   (CookedPart::joints1/weights1 hold the second four; a part whose second set weighs 0
//   everywhere drops it, so four-influence files cook as before); sets beyond the second
//   give SKIN_INFLUENCES_DROPPED. ImportOptions::max_influences below eight keeps each
//   vertex's largest weights (ties: the earlier influence), renormalised, with one
//   INFLUENCES_REDUCED note telling how many vertices changed and the largest (normalised)
//   weight dropped. Other parts under a joint J are skinned to J alone with weight one,
//   their vertices placed so that the rest palette puts them where the scene does; parts
//   outside the rig are baked into model space (static). Joints are named after their
//   nodes ("node_<index>" for a node without a name).
// - Node rig (no skin, and either translation, rotation or scale channels on the scene's
//   nodes or a walked node whose mesh has morph targets: morph weights need a rig even
//   when nothing else moves): every walked node is a joint with an identity inverse bind
//   and the root is the identity; each part keeps its node-local vertices and names its
//   node's joint in CookedPart::joint (a part that never moves is carried by its joint's
//   rest pose, which puts it where the scene does).
// - No rig (no skin, no node animation, no morph targets): every part is baked into model
//   space.
// - Morph targets. Each walked node whose mesh has targets (GltfMesh::morph_targets > 0)
//   becomes a MorphSet of the rig, in walk order (CookedRig::morph_source_nodes names the
//   node): named after the node ("node_<index>" when unnamed); target names from the
//   mesh's extras.targetNames, "target_<i>" where none is given (or it is empty), a name
//   already taken in the set suffixed with "_<i>" (MORPH_TARGET_NAME_DUPLICATE warning);
//   default weights node.weights, else mesh.weights (zeros when the file gives neither);
//   joint: the node's joint in a node rig, -1 in a skin rig. Several nodes instancing one
//   mesh give one set each. Every part of such a node gets morph_set and one
//   CookedMorphTarget per target: the file's deltas in the part's vertex order (an
//   unwelded part's follow source_vertices; NORMAL deltas are dropped where the normals
//   are generated, since they have no base), moved as the part's vertices are: position
//   and tangent deltas by the placing matrix's 3x3, normal deltas by its inverse
//   transpose; normal and tangent deltas are divided by the length of their vertex's
//   moved base vector, so that renormalising after the morph gives exactly the moved
//   morphed direction. More than kMaxMorphTargets targets on a mesh is MORPH_TOO_MANY_TARGETS;
//   a default weight outside [-kMaxMorphWeight, kMaxMorphWeight] is
//   MORPH_WEIGHT_OUT_OF_RANGE.
// - Clips: one per glTF animation with at least one channel on a rig joint or a morph
//   set, named after it ("animation_<index>" when unnamed, "<name>_<index>" when the name
//   is taken), with the file's interpolation, key times and values (cubic tangents
//   included) bit for bit. A weights channel becomes a kWeights channel on its node's
//   morph set (Channel::width = the set's targets). Channels on nodes outside the rig (an
//   animated node folded into the root matrix included; a weights channel on a node
//   without a set) are skipped with a warning, and so is an animation left without
//   channels.
// Moving a part's vertices by a matrix M (the world matrix for a static part, the bind
// placement for a part attached to a joint) transforms positions by M, normals by the
// inverse transpose of M's 3x3 and tangents by M's 3x3 (both renormalised). When the node's
// rest world matrix has a negative determinant, the triangles' winding and the tangents'
// handedness are flipped so that front faces stay counter-clockwise where the part lands,
// as glTF's winding rule asks. Skinned and node-rig parts keep the file's winding.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/compiler/cooked.h"
#include "animpack/compiler/gltf_reader.h"

namespace animpack {

// One finding of the import. `pointer` is the JSON pointer of the offending glTF object,
// as the reader gives them ("/skins/1", "/animations/2/channels/0",
// "/meshes/0/primitives/1"), or "" for the document as a whole.
struct ImportIssue {
  std::string pointer;  // RFC 6901 JSON pointer into the glTF JSON, or ""
  std::string code;     // a stable id from kImportIssueCodes, e.g. "SKIN_VERTEX_NO_WEIGHT"
  std::string message;  // one sentence for people; tests assert code and pointer, not this
  bool error = true;    // false: a warning or a note (the model is still usable)
  bool note = false;    // with error false: a note (something the import made, not a problem)
};

// Every code import_gltf emits and the rule it stands for (docs/diagnostics.md lists it).
inline constexpr GltfCodeInfo kImportIssueCodes[] = {
    {"GLTF_DOCUMENT_INVALID",
     "The document has reader errors (GltfDocument::ok() is false); nothing is imported."},
    {"PRIMITIVE_NO_POSITION", "A primitive has no POSITION; it is skipped (warning)."},
    {"PRIMITIVE_NOT_TRIANGLES",
     "A POINTS, LINES, LINE_LOOP or LINE_STRIP primitive; it is skipped (warning)."},
    {"PRIMITIVE_INCOMPLETE_TRIANGLE",
     "A TRIANGLES primitive's index count is not a multiple of 3; the rest is dropped "
     "(warning)."},
    {"SKIN_JOINT_NOT_IN_SCENE", "A joint of the scene's skin is not in the default scene."},
    {"SKIN_IBM_SINGULAR",
     "An inverse bind matrix cannot be inverted, so a mesh attached to its joint cannot be "
     "placed."},
    {"SKIN_VERTEX_NO_WEIGHT", "A skinned vertex's weights sum to 0."},
    {"SKIN_VERTEX_JOINT_OOB",
     "A skinned vertex names a joint index outside its skin with a non-zero weight."},
    {"SKIN_INFLUENCES_DROPPED",
     "JOINTS_2/WEIGHTS_2 or more exist; only the 8 influences of JOINTS_0/1 and WEIGHTS_0/1 "
     "are kept (warning)."},
    {"SKIN_HELPER_JOINT",
     "Two skins give one joint different inverse bind matrices; the later skin's vertices "
     "use a helper joint \"<joint>#skin<k>\" (a child of the joint, identity rest, never "
     "animated, with that skin's inverse bind) so that both stay exact (note)."},
    {"INFLUENCES_REDUCED",
     "max_influences is below 8: each vertex keeps its largest weights, renormalised; the "
     "note says how many vertices changed and the largest weight dropped (note)."},
    {"MORPH_TOO_MANY_TARGETS", "A mesh has more than kMaxMorphTargets (256) morph targets."},
    {"MORPH_WEIGHT_OUT_OF_RANGE",
     "A default morph weight (node.weights or mesh.weights) is outside [-kMaxMorphWeight, "
     "kMaxMorphWeight] ([-1000, 1000])."},
    {"MORPH_TARGET_NAME_DUPLICATE",
     "extras.targetNames names two targets alike; the later one is suffixed with _<index> "
     "(warning)."},
    {"ANIMATION_CHANNEL_OUTSIDE_RIG",
     "A channel moves a node that is not a rig joint, or animates the weights of a node "
     "without a morph set; it is skipped (warning)."},
    {"ANIMATION_EMPTY", "No channel of an animation is kept; the animation is skipped (warning)."},
    {"ANIMATION_DUPLICATE_NAME",
     "An animation has the name of an earlier clip; it is suffixed with _<index> (warning)."},
    {"RIG_INVALID", "The runtime refused the rig (Skeleton::create or Rig::create failed)."},
    {"RIG_TOO_MANY_JOINTS",
     "A rig has more than kGltfMaxSkinJoints (1024) joints: a node rig (a file without a "
     "skin that animates nodes or has morph targets: every node of the scene is a joint), or "
     "a skin rig (the union of several skins' joints, the nodes between them and helper "
     "joints)."},
    {"NORMALS_GENERATED",
     "A primitive has no NORMAL: it is unwelded and given flat normals, as glTF asks (note)."},
    {"TANGENTS_GENERATED",
     "A primitive has no TANGENT but its material has a normal texture: MikkTSpace tangents "
     "are generated from the normal texture's uv set (note)."},
    {"VALUE_NOT_FINITE",
     "A value computed for the pack is nan or inf: a node's world matrix at rest (e.g. "
     "scales of 1e30 on chained nodes), a joint's rest pose or inverse bind matrix, a joint's "
     "rest palette matrix, or a vertex placed in model space. Reported once per kind, at the "
     "first node, skin or primitive."},
};

// Whether `code` appears in kImportIssueCodes.
bool is_import_issue_code(std::string_view code);

// What one glTF file gives a scene [[mesh]]. mesh.rig is left at -1: the caller that puts
// `rig` into a CookedPack sets it.
struct ImportedModel {
  CookedMesh mesh;
  std::optional<CookedRig> rig;  // a skin rig or a node rig; empty for a static model
  // The materials of the parts, in the order the parts first use them (CookedPart::material
  // indexes this list); each TextureSlot::texture indexes `textures` (-1: untextured).
  std::vector<CookedMaterial> materials;
  // One per (image, colour space) the materials sample: base colour and emissive sRGB, the
  // others linear. Decoded RGBA8, rows top first; only images of these materials.
  std::vector<CookedTexture> textures;
  std::vector<ImportIssue> issues;  // in the order found

  // True when no issue is an error. When false, mesh and rig are incomplete and must not
  // be used.
  bool ok() const;
};

// How import_gltf treats what a scene may choose (the scene's [[mesh]] keys).
struct ImportOptions {
  // Influences kept per vertex, 1 to 8 (the scene key max_influences; values outside are
  // taken as the nearest of 1 and 8). Below 8 each vertex keeps its largest weights,
  // renormalised, with an INFLUENCES_REDUCED note (see the rules at the top).
  int max_influences = 8;
};

// Imports every primitive of the default scene of `doc` (doc.roots) as the scene mesh
// `mesh_name`, whose file the scene names `source_file` (both copied into the CookedMesh),
// by the rules at the top of this header and `options`. `doc` should have come from read_gltf()
// with ok() true; otherwise the result is a single GLTF_DOCUMENT_INVALID error. Never throws
// (beyond std::bad_alloc); problems are in the result's issues.
ImportedModel import_gltf(const GltfDocument& doc, std::string_view mesh_name,
                          std::string_view source_file, const ImportOptions& options = {});

}  // namespace animpack
