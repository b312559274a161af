// The cooker's own glTF 2.0 reader: it checks the structure the cooker depends on before
// anything else (Assimp included) touches the file, and supplies skins, nodes, skinned
// primitives and every animation channel exactly as the file stores them.
//
//   animpack::GltfDocument doc = animpack::read_gltf("models/fox.glb");
//   for (const animpack::GltfIssue& issue : doc.issues)
//     std::fprintf(stderr, "%s\n", animpack::format_gltf_issue("models/fox.glb", issue).c_str());
//   if (!doc.ok()) return 1;
//   for (const animpack::GltfAnimation& anim : doc.animations)
//     for (const animpack::GltfChannel& ch : anim.channels)
//       if (!ch.morph_weights) use(doc.nodes[ch.node].name, ch.property, ch.times, ch.values);
//
// Specification: Khronos glTF 2.0 (2.0.1), sections "GLB File Format Specification",
// "Buffers and Buffer Views", "Accessors" (sparse, normalized), "Skins", "Animations" and
// Appendix C. Issue codes and JSON pointers follow Khronos glTF-Validator where a check is
// the same one (so its reports can be compared with ours); the others are ours.
//
// What is read: the GLB container or the .gltf JSON, buffers (GLB BIN chunk, base64 or
// percent-encoded data: URIs, external files relative to the .gltf), buffer views,
// accessors (all of them, decoded; sparse applied; normalised integers converted), meshes
// (POSITION, NORMAL, TANGENT, JOINTS_0/1, WEIGHTS_0/1, TEXCOORD_0, TEXCOORD_1, COLOR_0,
// indices, material; morph targets' POSITION, NORMAL and TANGENT deltas, mesh.weights and
// extras.targetNames), nodes (with node.weights), skins, scenes, animations (weights
// channels included), and (section "Materials",
// "Textures", "Samplers", "Images") materials with every metallic-roughness field,
// KHR_materials_emissive_strength and KHR_texture_transform, textures, samplers and images.
// TEXCOORD_2+ and COLOR_1+ are ignored (one warning per file), and so is any extension in
// extensionsUsed other than KHR_mesh_quantization, KHR_materials_emissive_strength and
// KHR_texture_transform (one warning per extension); one in extensionsRequired is an error.
// Images are decoded (PNG and JPEG only, with stb_image) only when a material of a
// primitive in the default scene (doc.roots) uses them; others are checked but not decoded.
// Image limits: each side <= kGltfMaxImageSide (16384, the pack's kMaxTextureSide) and the
// decoded RGBA8 bytes count against kGltfMaxDecodedBytes with everything else. Cameras are
// not read or checked; JOINTS_2/WEIGHTS_2 and later sets are checked but not delivered (a
// warning), nor are morph targets' TEXCOORD_n and COLOR_n deltas (a warning per file).
// Morph targets: every
// primitive of a mesh has the same number (at most kGltfMaxMorphTargets), each delta
// accessor displaces an attribute the primitive has, with its count; mesh.weights and
// node.weights have one value per target; a weights channel's output has targets values
// per key (x3 for CUBICSPLINE). Every index in the file is checked before use; nothing
// reads out of bounds whatever the input. The reader never throws and never exits.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/clip.h"
#include "animpack/material.h"
#include "animpack/math.h"

namespace animpack {

// One finding about the file. `pointer` is the JSON pointer of the offending value
// ("/animations/0/samplers/1"), empty for container-level issues, which give `offset`.
struct GltfIssue {
  std::string pointer;  // RFC 6901 JSON pointer into the glTF JSON, or "" (see offset)
  std::string code;     // a stable id from kGltfIssueCodes, e.g. "ACCESSOR_TOO_LONG"
  std::string message;  // one sentence for people; tests assert code and pointer, not this
  bool error = true;    // false: a warning (the document is still usable)
  int64_t offset = -1;  // byte offset in the file (GLB container, JSON syntax); -1 if none
};

// A stable issue code and the rule it stands for (the source for docs/diagnostics.md).
struct GltfCodeInfo {
  std::string_view code;
  std::string_view rule;
};

// Every code the reader emits. Codes shared with Khronos glTF-Validator mean the same there.
inline constexpr GltfCodeInfo kGltfIssueCodes[] = {
    // Files and JSON.
    {"IO_ERROR", "A file (the glTF, or a buffer's uri) could not be opened or read."},
    {"INVALID_JSON",
     "The JSON does not parse (byte offset given), starts with a BOM, or is not an object."},
    {"RESOURCE_LIMIT", "Decoding would exceed the reader's memory budget (kGltfMaxDecodedBytes)."},
    {"INTERNAL_ERROR", "The reader failed unexpectedly; the message says how. Please report it."},
    {"NODE_HIERARCHY_TOO_DEEP",
     "A node lies deeper than kGltfMaxNodeDepth (256) below its root; reported once, at the "
     "first such node."},
    {"SKIN_TOO_MANY_JOINTS", "A skin lists more than kGltfMaxSkinJoints (1024) joints."},
    {"ANIMATIONS_TOO_MANY", "The file has more than kGltfMaxAnimations (1024) animations."},
    {"MESH_TOO_MANY_MORPH_TARGETS",
     "A primitive has more than kGltfMaxMorphTargets (256, the runtime's kMaxMorphTargets) "
     "morph targets."},
    // GLB container.
    {"GLB_UNEXPECTED_END_OF_HEADER", "The file is shorter than the 12-byte GLB header."},
    {"GLB_INVALID_MAGIC", "The GLB magic is not 'glTF'."},
    {"GLB_INVALID_VERSION", "The GLB version is not 2."},
    {"GLB_LENGTH_TOO_SMALL", "The declared GLB length cannot hold a header and one chunk."},
    {"GLB_LENGTH_MISMATCH", "The declared GLB length is larger than the file."},
    {"GLB_EXTRA_DATA", "Bytes follow the declared end of the GLB (ignored; warning)."},
    {"GLB_UNEXPECTED_END_OF_CHUNK_HEADER", "A chunk header is cut short by the end of the GLB."},
    {"GLB_CHUNK_LENGTH_UNALIGNED", "A chunk length is not a multiple of 4."},
    {"GLB_CHUNK_TOO_BIG", "A chunk extends past the end of the GLB."},
    {"GLB_UNEXPECTED_FIRST_CHUNK", "The first chunk is not the JSON chunk."},
    {"GLB_EMPTY_CHUNK", "The JSON chunk is empty."},
    {"GLB_DUPLICATE_CHUNK", "A second JSON or BIN chunk."},
    {"GLB_UNEXPECTED_BIN_CHUNK", "The BIN chunk is not the second chunk."},
    {"GLB_UNKNOWN_CHUNK_TYPE", "A chunk of unknown type (skipped; warning)."},
    // Generic structure.
    {"UNDEFINED_PROPERTY", "A required property is missing."},
    {"TYPE_MISMATCH", "A property has the wrong JSON type."},
    {"EMPTY_ENTITY", "An array that must not be empty is empty."},
    {"ARRAY_LENGTH_NOT_IN_LIST", "An array has the wrong number of elements."},
    {"VALUE_NOT_IN_RANGE", "A number is out of its allowed range, or not finite."},
    {"VALUE_NOT_IN_LIST",
     "A value is not one of the allowed ones (warning for unknown animation paths, which are "
     "skipped)."},
    {"VALUE_MULTIPLE_OF", "A byteStride is not a multiple of 4."},
    {"UNRESOLVED_REFERENCE", "An index refers to an object that does not exist."},
    {"UNSATISFIED_DEPENDENCY",
     "A property needs another that is missing (accessor byteOffset without bufferView, node skin "
     "or weights without mesh)."},
    {"DUPLICATE_ELEMENTS",
     "An index list (skin joints, node children, scene nodes) repeats an index."},
    {"UNKNOWN_ASSET_MAJOR_VERSION", "asset.version is not 2.x."},
    {"PATTERN_MISMATCH", "asset.version is not of the form <major>.<minor>."},
    {"UNSUPPORTED_EXTENSION",
     "extensionsRequired names an extension the reader does not implement (Draco, meshopt, "
     "KHR_texture_basisu, EXT_texture_webp, ...: anything but KHR_mesh_quantization, "
     "KHR_materials_emissive_strength and KHR_texture_transform); as a warning, once per "
     "extension, at extensionsUsed for one that is only used (it is ignored)."},
    {"ONE_OF_MISMATCH", "An image has both or neither of uri and bufferView."},
    // Buffers and buffer views.
    {"INVALID_URI",
     "A buffer or image uri is malformed (bad data: URI or base64), absolute, or has a scheme "
     "other than data:."},
    {"BUFFER_BYTE_LENGTH_MISMATCH", "A buffer holds fewer bytes than its byteLength."},
    {"BUFFER_MISSING_GLB_DATA", "Buffer 0 of a GLB has no uri but there is no BIN chunk."},
    {"BUFFER_GLB_CHUNK_TOO_BIG",
     "The BIN chunk is more than 3 bytes longer than the buffer (warning)."},
    {"BUFFER_NO_DATA", "An accessor needs a buffer that has no data (no uri, not GLB)."},
    {"BUFFER_VIEW_TOO_LONG", "A buffer view does not fit its buffer."},
    {"BUFFER_VIEW_TOO_BIG_BYTE_STRIDE",
     "A buffer view's byteStride is larger than its byteLength."},
    {"BUFFER_VIEW_INVALID_BYTE_STRIDE", "A byteStride on a view used for indices or sparse data."},
    // Accessors.
    {"ACCESSOR_NORMALIZED_INVALID", "normalized is set on a FLOAT or UNSIGNED_INT accessor."},
    {"ACCESSOR_OFFSET_ALIGNMENT", "accessor.byteOffset is not a multiple of the component size."},
    {"ACCESSOR_TOTAL_OFFSET_ALIGNMENT",
     "bufferView.byteOffset + accessor.byteOffset is not a multiple of the component size."},
    {"ACCESSOR_MATRIX_ALIGNMENT", "A matrix accessor's byteOffset is not a multiple of 4."},
    {"ACCESSOR_SMALL_BYTESTRIDE", "The view's byteStride is smaller than one element."},
    {"ACCESSOR_TOO_LONG", "offset + stride * (count - 1) + element size exceeds the view."},
    {"ACCESSOR_SPARSE_COUNT_OUT_OF_RANGE", "sparse.count is larger than the accessor's count."},
    {"ACCESSOR_SPARSE_INDICES_NON_INCREASING", "Sparse indices are not strictly ascending."},
    {"ACCESSOR_SPARSE_INDEX_OOB", "A sparse index is >= the accessor's count."},
    {"ACCESSOR_INVALID_FLOAT", "A float element is NaN or infinite."},
    {"ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND", "An element is below the declared accessor.min."},
    {"ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND", "An element is above the declared accessor.max."},
    {"ACCESSOR_MIN_MISMATCH", "accessor.min is not the actual minimum (warning)."},
    {"ACCESSOR_MAX_MISMATCH", "accessor.max is not the actual maximum (warning)."},
    // Meshes and skinning data.
    {"MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
     "An attribute's type or component type is not allowed for its semantic (for a morph "
     "target's POSITION, NORMAL or TANGENT: VEC3 FLOAT, or with KHR_mesh_quantization (normalised) "
     "BYTE or SHORT)."},
    {"MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT", "A primitive's attributes differ in count."},
    {"MESH_PRIMITIVE_EXTRA_SETS",
     "TEXCOORD_2 or more, or COLOR_1 or more, exist; they are ignored (warning, once per "
     "file)."},
    {"MESH_PRIMITIVE_TOO_FEW_TEXCOORDS",
     "The primitive's material samples a texture from a TEXCOORD_n set the primitive does not "
     "have."},
    {"MESH_PRIMITIVE_NO_POSITION", "A primitive has no POSITION (warning)."},
    {"MESH_PRIMITIVE_JOINTS_WEIGHTS_MISMATCH", "JOINTS_n and WEIGHTS_n sets do not pair up."},
    {"MESH_PRIMITIVE_EXTRA_INFLUENCES",
     "JOINTS_2/WEIGHTS_2 or more exist; only sets 0 and 1 (8 influences) are delivered, the "
     "influences beyond 8 are dropped (warning)."},
    {"MESH_PRIMITIVE_INDICES_ACCESSOR_INVALID_FORMAT",
     "indices is not a SCALAR unsigned integer accessor."},
    {"ACCESSOR_INDEX_OOB", "An index value is >= the primitive's vertex count."},
    {"ACCESSOR_JOINTS_INDEX_OOB",
     "A joint index is >= the joint count of a skin used with the mesh."},
    {"ACCESSOR_JOINTS_INDEX_DUPLICATE",
     "A vertex uses the same joint twice with non-zero weights (warning)."},
    {"ACCESSOR_WEIGHTS_NEGATIVE", "A joint weight is negative."},
    {"ACCESSOR_WEIGHTS_NON_NORMALIZED",
     "A vertex's weights (WEIGHTS_0 and WEIGHTS_1 together, and any later set) do not sum to 1 "
     "(warning; the cooker renormalises)."},
    // Morph targets.
    {"MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT",
     "A primitive has a different number of morph targets than the mesh's first primitive."},
    {"MESH_PRIMITIVE_MORPH_TARGET_NO_BASE_ACCESSOR",
     "A morph target displaces an attribute the primitive does not have."},
    {"MESH_PRIMITIVE_MORPH_TARGET_INVALID_ATTRIBUTE_COUNT",
     "A morph target's delta accessor has a different count than the base attribute's."},
    {"MESH_PRIMITIVE_MORPH_TARGET_EXTRA_ATTRIBUTE",
     "A morph target has TEXCOORD_n, COLOR_n or other deltas; only POSITION, NORMAL and TANGENT "
     "deltas are read (warning, once per file)."},
    {"MESH_INVALID_WEIGHTS_COUNT", "mesh.weights does not have one weight per morph target."},
    {"MESH_TARGET_NAMES_INVALID",
     "mesh.extras.targetNames is not an array of one string per morph target; the targets get "
     "no names from the file (warning)."},
    {"NODE_WEIGHTS_INVALID",
     "node.weights does not have one weight per morph target of the node's mesh."},
    // Nodes and scenes.
    {"NODE_LOOP", "The node is part of a cycle of children."},
    {"NODE_PARENT_OVERRIDE", "A node is the child of more than one node."},
    {"NODE_MATRIX_TRS", "A node has both a matrix and translation/rotation/scale."},
    {"NODE_MATRIX_NON_TRS", "A node matrix is not an affine TRS (projective row, shear)."},
    {"ROTATION_NON_UNIT", "A node rotation is not a unit quaternion."},
    {"NODE_SKIN_WITH_NON_SKINNED_MESH", "A node has a skin but its mesh has no JOINTS_0."},
    {"NODE_SKINNED_MESH_WITHOUT_SKIN",
     "A node's mesh has JOINTS_0 but the node has no skin (warning)."},
    {"SCENE_NON_ROOT_NODE", "A scene lists a node that has a parent."},
    {"NODE_SKIN_NO_SCENE", "A skinned node is in a scene that lacks the skin's joints."},
    // Skins.
    {"SKIN_IBM_INVALID_FORMAT", "inverseBindMatrices is not a MAT4 FLOAT accessor."},
    {"SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE", "The inverseBindMatrices view has a byteStride."},
    {"INVALID_IBM_ACCESSOR_COUNT", "Fewer inverse bind matrices than joints (more: warning)."},
    {"ACCESSOR_INVALID_IBM", "An inverse bind matrix is not affine (last row 0 0 0 1)."},
    {"SKIN_NO_COMMON_ROOT",
     "The skin's joints have no common root node (warning: glTF 2.0.1 allows it; the rig then has "
     "several roots)."},
    {"SKIN_SKELETON_INVALID", "skin.skeleton is not a common root of the joints."},
    // Animations.
    {"ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT", "A sampler input is not SCALAR FLOAT."},
    {"ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS", "A sampler input has no min/max."},
    {"ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS",
     "A CUBICSPLINE sampler has fewer than 2 keys."},
    {"ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE",
     "A sampler input or output view has a byteStride."},
    {"ACCESSOR_ANIMATION_INPUT_NEGATIVE", "A key time is negative."},
    {"ACCESSOR_ANIMATION_INPUT_NON_INCREASING", "Key times are not strictly ascending."},
    {"ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT",
     "The output type does not fit the path (VEC3 translation/scale, VEC4 rotation, SCALAR "
     "weights)."},
    {"ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT",
     "Output count is not the key count (x3 for CUBICSPLINE, x targets for weights)."},
    {"ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION",
     "A rotation key is not a unit quaternion."},
    {"ANIMATION_CHANNEL_NO_NODE", "A channel has no target.node; it is ignored (warning)."},
    {"ANIMATION_CHANNEL_TARGET_NODE_MATRIX", "A TRS channel targets a node given by a matrix."},
    {"ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS",
     "A weights channel targets a node without morph targets."},
    {"ANIMATION_CHANNEL_TARGET_NODE_SKIN",
     "A TRS channel targets a skinned node, whose transform does not matter (warning)."},
    {"ANIMATION_DUPLICATE_TARGETS", "Two channels of one animation target the same node and path."},
    // Materials, textures, samplers and images.
    {"TEXTURE_TEXCOORD_UNSUPPORTED",
     "A textureInfo's texCoord (or its KHR_texture_transform texCoord) is not 0 or 1: only "
     "TEXCOORD_0 and TEXCOORD_1 are read."},
    {"IMAGE_BUFFER_VIEW_WITH_BYTESTRIDE", "The buffer view of an image has a byteStride."},
    {"IMAGE_FORMAT_UNSUPPORTED",
     "An image a used material needs is not PNG or JPEG (KTX2 of KHR_texture_basisu, WebP of "
     "EXT_texture_webp, or anything else: the message names it), or a texture has only an "
     "extension's source of such a type."},
    {"IMAGE_MIME_TYPE_INVALID",
     "An image's bytes are PNG or JPEG but its mimeType says otherwise."},
    {"IMAGE_DATA_INVALID", "An image does not decode; the message gives stb_image's reason."},
    {"IMAGE_TOO_LARGE", "An image is wider or taller than kGltfMaxImageSide (16384) pixels."},
};

// Whether `code` appears in kGltfIssueCodes.
bool is_gltf_issue_code(std::string_view code);

// The most bytes the reader decodes for one document (accessors, channel keys, vertex
// streams together). A file that needs more is refused with RESOURCE_LIMIT rather than
// exhausting memory (e.g. an accessor without bufferView claiming 4e9 elements).
inline constexpr uint64_t kGltfMaxDecodedBytes = uint64_t{1} << 30;
// The widest or tallest image the reader decodes (pack.h's kMaxTextureSide). The decoded
// RGBA8 bytes (width * height * 4) also count against kGltfMaxDecodedBytes.
inline constexpr uint32_t kGltfMaxImageSide = 16384;
// Limits on a file's structure (docs/scene-format.md, limits), each an error: they keep
// every walk of the hierarchy near-linear and every rig one the runtime takes.
inline constexpr size_t kGltfMaxNodeDepth = 256;     // levels below a root node
inline constexpr size_t kGltfMaxSkinJoints = 1024;   // joints of one skin
inline constexpr size_t kGltfMaxAnimations = 1024;   // animations of one file
inline constexpr size_t kGltfMaxMorphTargets = 256;  // morph targets of one mesh (runtime's
                                                     // kMaxMorphTargets, morph.h)

// accessor.componentType values.
enum class GltfComponentType : uint16_t {
  kByte = 5120,
  kUnsignedByte = 5121,
  kShort = 5122,
  kUnsignedShort = 5123,
  kUnsignedInt = 5125,
  kFloat = 5126,
};

// accessor.type values.
enum class GltfAccessorType : uint8_t { kScalar, kVec2, kVec3, kVec4, kMat2, kMat3, kMat4 };

// 1, 2, 3, 4, 4, 9, 16.
int gltf_component_count(GltfAccessorType type);

// One accessor, decoded. `floats` always holds count * components values: normalised
// integers converted as glTF 2.0 says (BYTE max(c / 127, -1), UNSIGNED_BYTE c / 255, SHORT
// max(c / 32767, -1), UNSIGNED_SHORT c / 65535), other integers as their value; sparse
// substitutions applied; matrix column padding removed. `uints` holds the same elements
// for non-normalised unsigned integer accessors (indices, joints) exactly, else is empty.
struct GltfAccessor {
  std::string name;
  GltfComponentType component_type = GltfComponentType::kFloat;
  GltfAccessorType type = GltfAccessorType::kScalar;
  int components = 1;  // gltf_component_count(type)
  bool normalized = false;
  uint32_t count = 0;
  int buffer_view = -1;  // -1: zeros (plus sparse)
  bool sparse = false;
  bool has_bounds = false;  // min and max are both present
  std::vector<double> min;  // as declared (raw, not normalised); empty when absent
  std::vector<double> max;
  bool decoded = false;  // false when its data could not be read (an error says why)
  std::vector<float> floats;
  std::vector<uint32_t> uints;
};

// A node. Indices refer to the document's arrays and equal the glTF's own; -1 is none.
struct GltfNode {
  std::string name;           // "" when the file gives none
  int parent = -1;            // the first node listing this one among its children
  std::vector<int> children;  // as written
  int mesh = -1;
  int skin = -1;
  Trs local;    // translation/rotation/scale, or the matrix decomposed
  Mat4 matrix;  // the matrix as written when has_matrix, else to_matrix(local)
  bool has_matrix = false;
  std::vector<float> weights;  // node.weights (its mesh's morph_targets values), or empty
};

// A skin. inverse_binds has one matrix per joint: the file's, or identities when the skin
// has no inverseBindMatrices.
struct GltfSkin {
  std::string name;
  std::vector<int> joints;  // node indices, in the skin's order (the order JOINTS_0 uses)
  int skeleton = -1;        // skin.skeleton, -1 when absent
  std::vector<Mat4> inverse_binds;
  bool has_inverse_binds = false;
};

// glTF primitive topology (mesh.primitive.mode).
enum class GltfPrimitiveMode : uint8_t {
  kPoints = 0,
  kLines = 1,
  kLineLoop = 2,
  kLineStrip = 3,
  kTriangles = 4,
  kTriangleStrip = 5,
  kTriangleFan = 6,
};

// One morph target of a primitive: position, normal and tangent deltas (TANGENT deltas
// are VEC3: no handedness), each empty when the target has no such attribute.
struct GltfMorphTarget {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;
  std::vector<Vec3> tangents;
};

// One mesh primitive's vertex streams: each is empty when the attribute is absent, else
// holds vertex_count entries.
struct GltfPrimitive {
  GltfPrimitiveMode mode = GltfPrimitiveMode::kTriangles;
  uint32_t vertex_count = 0;
  std::vector<Vec3> positions;                  // POSITION
  std::vector<Vec3> normals;                    // NORMAL
  std::vector<Vec4> tangents;                   // TANGENT (w: handedness)
  std::vector<std::array<uint16_t, 4>> joints;  // JOINTS_0: indices into the node's skin.joints
  std::vector<std::array<float, 4>> weights;    // WEIGHTS_0 (normalised integers converted)
  bool indexed = false;                         // indices present
  std::vector<uint32_t> indices;                // each < vertex_count
  int joint_sets = 0;  // JOINTS_n sets in the file; > 2 means influences beyond the 8 read
  // JOINTS_1 / WEIGHTS_1 (influences 5 to 8): empty, or vertex_count entries each.
  std::vector<std::array<uint16_t, 4>> joints1;
  std::vector<std::array<float, 4>> weights1;
  // Morph targets (mesh.primitive.targets), in the file's order: each stream empty or
  // vertex_count deltas (sparse accessors applied; normalised integers converted).
  std::vector<GltfMorphTarget> targets;
  std::vector<Vec2> texcoords0;  // TEXCOORD_0 (normalised integers converted)
  std::vector<Vec2> texcoords1;  // TEXCOORD_1
  std::vector<Vec4> colors;      // COLOR_0 as RGBA (VEC3 gets alpha 1)
  int material = -1;             // index in doc.materials, -1: glTF's default material
};

// A mesh. morph_targets is the number of morph targets of its primitives (every primitive
// has the same count, or the reader reports MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT): the
// length a weights channel's keys have.
struct GltfMesh {
  std::string name;
  std::vector<GltfPrimitive> primitives;
  int morph_targets = 0;
  std::vector<float> weights;             // mesh.weights, or morph_targets zeros
  std::vector<std::string> target_names;  // extras.targetNames (morph_targets strings), or
                                          // empty when the file gives none (or not strings)
};

// One animated property of one node. times are seconds, strictly ascending, >= 0.
// values are as glTF lays them out, width floats per key (3 for translation and scale,
// 4 for rotation x y z w, morph_targets for weights); for kCubicSpline three groups per
// key: in-tangent, value, out-tangent. Normalised integer outputs are converted.
struct GltfChannel {
  int node = -1;
  Property property = Property::kTranslation;  // kWeights when morph_weights
  bool morph_weights = false;  // a "weights" channel (width = the node's mesh's targets)
  Interpolation interpolation = Interpolation::kLinear;
  int width = 3;  // floats per value (see above)
  std::vector<float> times;
  std::vector<float> values;
  int source_channel = -1;  // its index in the glTF's animation.channels
  int sampler = -1;         // its sampler's index in animation.samplers
};

// An animation: the channels that target a node, in the file's order (channels without
// target.node and with unknown paths are left out, with a warning each).
struct GltfAnimation {
  std::string name;
  std::vector<GltfChannel> channels;
  float duration = 0;  // the latest key time of all channels (0 without channels)
};

// A material (glTF "Materials"): `info` holds every field with glTF's defaults where the
// file gives none. In the reader's output each TextureSlot::texture and source_texture are
// the glTF texture index (-1: no texture), uv_set is the textureInfo's texCoord (replaced by
// KHR_texture_transform's texCoord when given), and wrap and filters are those of the
// texture's sampler (glTF's defaults without one: repeat, linear, linear-mipmap-linear).
// info.name and info.source_file are left empty: `name` owns the name.
struct GltfMaterial {
  std::string name;
  MaterialInfo info;
};

// A sampler's filters and wrap modes (glTF "Samplers": absent filters are the defaults
// above).
struct GltfSampler {
  Filter mag_filter = Filter::kLinear;
  Filter min_filter = Filter::kLinearMipmapLinear;
  Wrap wrap_s = Wrap::kRepeat;
  Wrap wrap_t = Wrap::kRepeat;
};

// A texture: its image and sampler (-1 when absent).
struct GltfTexture {
  std::string name;
  int source = -1;
  int sampler = -1;
};

// An image. Only images that a material of a primitive in the default scene uses are
// decoded (decoded true, rgba width * height * 4 bytes, RGBA8, rows top first); the others
// keep rgba empty.
struct GltfImage {
  std::string name;
  std::string uri;        // as written ("" for a bufferView image)
  std::string mime_type;  // as written, or what the bytes are ("image/png", "image/jpeg")
  int buffer_view = -1;
  bool decoded = false;
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

// A scene: its root nodes.
struct GltfScene {
  std::string name;
  std::vector<int> nodes;
};

// Everything read from one glTF file. The arrays keep the glTF's order and indices, so a
// caller can name any object by its source index. When ok() is false the contents are
// whatever could be read safely: every index still in range, but objects with errors
// left empty or default; callers should report the issues and not use the document.
struct GltfDocument {
  std::vector<GltfNode> nodes;
  std::vector<GltfMesh> meshes;
  std::vector<GltfSkin> skins;
  std::vector<GltfAnimation> animations;
  std::vector<GltfAccessor> accessors;
  std::vector<GltfScene> scenes;
  std::vector<GltfMaterial> materials;
  std::vector<GltfTexture> textures;
  std::vector<GltfSampler> samplers;
  std::vector<GltfImage> images;
  int scene = -1;                 // the "scene" property, -1 when absent
  std::vector<int> roots;         // the roots of `scene` (else scene 0; else every parentless node)
  std::string generator;          // asset.generator, "" when absent
  std::vector<GltfIssue> issues;  // in the order found
  std::vector<std::filesystem::path> files;  // the files read: the glTF, buffer and image files

  // True when no issue is an error.
  bool ok() const;
};

// How the bytes are laid out. kDetect: GLB when they begin with the magic "glTF", else
// JSON.
enum class GltfContainer : uint8_t { kDetect, kJson, kGlb };

// Reads and checks a .gltf or .glb file; buffer files are looked up relative to its
// folder. A ".glb" extension (any case) means GLB; otherwise the content decides. Never
// throws; problems (a missing file too) are in the result's issues.
GltfDocument read_gltf(const std::filesystem::path& file);

// The same from memory, for tests and fuzzing: `bytes` is the whole .gltf or .glb file,
// `base_dir` is where relative buffer uris are looked up. Never throws.
GltfDocument read_gltf(std::span<const uint8_t> bytes, const std::filesystem::path& base_dir,
                       GltfContainer container = GltfContainer::kDetect);

// "model.gltf: error: /animations/0/samplers/1: message [CODE]" (warnings say "warning";
// container issues give "byte N" instead of a pointer). `file` is printed as given.
std::string format_gltf_issue(const std::filesystem::path& file, const GltfIssue& issue);

}  // namespace animpack
