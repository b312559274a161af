// Opening a cooked pack: memory-mapped, verified, then read in place.
//
//   animpack::Result<animpack::Pack> pack = animpack::Pack::open("scene.anpk");
//   if (!pack) { std::fprintf(stderr, "%s\n", pack.error().message()); return 1; }
//   const animpack::Rig& rig = pack->rig(0);                   // plugs into an Animator
//   auto animator = animpack::Animator::create(&rig, 60);
//   animpack::Result<animpack::PartStreams> part = pack->part_streams(0);  // decoded now
//
// A pack is untrusted input. open() refuses anything but a regular file of at most
// kMaxPackBytes before mapping it, runs the FlatBuffers verifier (structure, bounds,
// the "ANPK" identifier, no trailing bytes) and then the semantic checks of
// docs/pack-format.md (every count, index, size and product of sizes; every allocation
// bounded by what the file can hold and by the limits below; strings UTF-8): the format
// version, every index in range, parents before children, key times ascending and
// finite, value and blob sizes consistent with their counts, sprite frames inside their
// image, object animations naming real clips with valid weights, speeds and starts, and
// (version 3) additive clip references and state machines: every index, enum, count and
// float of an object's graph, a mask per rig joint, a graph only on an object with a rig;
// (version 5) morph sets (Rig::create's checks), kWeights channels shaped for their set,
// parts' morph sets in their mesh's rig with matching target counts and delta blobs of
// targets x vertices; (version 4) mesh axes unit and perpendicular, root motion (enums, extract
// bits, rate, the root joint, one track per clip shaped for its clip) and IK solvers
// (IkSet::create's checks on the object's rig), both only on an object with a rig. A pack that
// fails any check is refused with kBadPack and a message naming what failed; nothing asserts or
// crashes on file content. Vertex streams and pixels are blobs (raw or LZ4) decoded on first use,
// when their remaining checks (index and joint ranges, finite values, version 5's eight weights
// summing to one) run. The writer stores identical data once (several tables naming one blob):
// such a blob is decoded, counted against kMaxDecodedBytes and checked once.
//
// Animation keys are read in place: the rigs' clips view the mapped file, so the Pack
// must outlive every Rig, SpriteSheet and span it hands out. Not thread-safe: decode
// parts from one thread (or all of them once, up front).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/animator.h"
#include "animpack/bounds.h"
#include "animpack/graph.h"
#include "animpack/ik.h"
#include "animpack/material.h"
#include "animpack/math.h"
#include "animpack/morph.h"
#include "animpack/result.h"
#include "animpack/rig.h"
#include "animpack/root_motion.h"
#include "animpack/skinning.h"
#include "animpack/sprite.h"

namespace animpack {

// The pack format version this runtime reads (and the cooker writes).
inline constexpr uint32_t kPackFormatVersion = 7;
// The oldest version it still opens: a version 1 pack has no materials, textures, texture
// coordinates, colours or bounds (they read as absent; mesh_bounds() is empty); versions 1
// and 2 have no additive clips and no state machines (ObjectAnimationInfo::graph absent);
// versions 1 to 3 have no root motion, no IK and no mesh axes (ObjectAnimationInfo::
// root_motion absent, root_tracks and ik empty, MeshInfo::up and forward glTF's); versions
// 1 to 4 have no morph targets and no second influence set (Rig::morph_sets() empty,
// PartInfo::morph_set -1, PartStreams::joints1/weights1/morph empty); versions 1 to 5 store
// every clip's keys as float arrays (Clip::storage() the defaults) and blobs raw or LZ4;
// versions 1 to 6 have no frame placements or names and no timed or reversed sprite clips
// (every atlas is untrimmed, every sprite clip plays at its fps, forward).
inline constexpr uint32_t kOldestPackFormatVersion = 1;

// Limits Pack::open enforces (docs/pack-format.md, "Limits"). A pack above any of them is
// refused with kBadPack before anything is allocated for it.
// The file: 2 GiB - 64 KiB, under FlatBuffers' 2 GiB buffer limit.
inline constexpr uint64_t kMaxPackBytes = (uint64_t{2} << 30) - (uint64_t{64} << 10);
// One blob's raw size: 1 GiB, a kMaxSpriteSide x kMaxSpriteSide RGBA8 sheet.
inline constexpr uint64_t kMaxBlobBytes = uint64_t{1} << 30;
inline constexpr uint64_t kMaxDecodedBytes = uint64_t{2} << 30;  // all LZ4 blobs, decoded
inline constexpr uint32_t kMaxSpriteSide = 16384;  // sprite sheet pixels a side (the cooker's)
inline constexpr uint32_t kMaxClipEvents = 65535;  // events in one clip
// Version 6: clip key floats (times and values) all of a pack's clips decode to, 256 MiB.
inline constexpr uint64_t kMaxClipKeyFloats = uint64_t{64} << 20;
inline constexpr uint64_t kMaxPlayBytes = uint64_t{256} << 20;  // ScenePlayer/Animator setup
inline constexpr uint32_t kMaxTextureSide = 16384;              // texture pixels a side

// A part's vertex streams, decoded. Every stream but positions, indices and
// source_vertices is empty when the part has none. Views into the Pack.
struct PartStreams {
  std::span<const Vec3> positions;
  std::span<const Vec3> normals;
  std::span<const Vec4> tangents;  // xyz unit, w the bitangent sign (+1 or -1)
  std::span<const JointIndices> joints;
  std::span<const Vec4> weights;
  std::span<const uint32_t> indices;
  std::span<const uint32_t> source_vertices;  // index in the source accessor, per vertex
  std::span<const Vec2> texcoords0;           // TEXCOORD_0: u right, v down from the image's top
  std::span<const Vec2> texcoords1;           // TEXCOORD_1
  std::span<const Vec4> colors;               // COLOR_0, linear RGBA (RGB files: a = 1)
  // Version 5: influences 5 to 8 (JOINTS_1/WEIGHTS_1; the eight weights sum to one), and
  // the part's morph deltas (morph.h; targets == PartInfo::morph_targets, 0 for none).
  std::span<const JointIndices> joints1 = {};
  std::span<const Vec4> weights1 = {};
  MorphDeltas morph = {};
};

struct PartInfo {
  int mesh = -1;         // the mesh it belongs to
  int source_node = -1;  // glTF node, mesh and primitive indices
  int source_mesh = -1;
  int source_primitive = -1;
  int joint = -1;        // node rigs: the joint that carries it
  bool skinned = false;  // has joints and weights
  uint32_t vertex_count = 0;
  uint32_t index_count = 0;
  int material = -1;                // index in Pack::materials(); -1: glTF's default material
  bool normals_generated = false;   // flat normals made by the cooker (vertices unwelded)
  bool tangents_generated = false;  // tangents made by the cooker for a normal map
  // Version 5: eight influences (joints1/weights1 present), and the morph set of the
  // mesh's rig whose weights morph this part (-1: none) with its target count.
  bool eight_influences = false;
  int morph_set = -1;
  uint32_t morph_targets = 0;
};

struct MeshInfo {
  std::string_view name;
  std::string_view source_file;
  int rig = -1;
  int first_part = 0;  // its parts are parts()[first_part, first_part + part_count)
  int part_count = 0;
  // Version 4: the mesh's up and forward axes (object space, unit, perpendicular); older
  // packs read glTF's +Y and +Z.
  Vec3 up{0, 1, 0};
  Vec3 forward{0, 0, 1};
};

struct ObjectEventInfo {
  std::string_view name;
  uint16_t clip = 0;
  float time = 0;
  uint32_t frame = 0;
};

struct ObjectAnimationInfo {
  int clip = -1;
  std::vector<BlendEntry> blend;
  float speed = 1.0f;
  Playback playback = Playback::kLoop;
  float start = 0.0f;
  std::vector<ObjectEventInfo> events;
  int sprite_sheet = -1;
  // Version 3: the object's state machine and layers (graph.h), indices into the
  // object's mesh rig; absent when the scene gives none.
  std::optional<GraphDef> graph;
  // Version 4: root motion (root_motion.h; absent: kOff) with one track per clip of the
  // object's mesh rig (views into the pack; additive clips' are empty), and IK solvers
  // (ik.h) on the mesh rig's joints, in the scene's order.
  std::optional<RootMotionConfig> root_motion;
  std::vector<RootMotionTrack> root_tracks;
  std::vector<IkSolverDef> ik;
};

struct ObjectInfo {
  std::string_view name;
  int mesh = -1;
  std::string_view material;
  bool face_camera = false;
  std::string_view content;
  Vec3 position;
  Quat rotation;
  Vec3 scale{1, 1, 1};
  bool animated = false;
  ObjectAnimationInfo animation;
};

class Pack {
 public:
  Pack();
  Pack(Pack&&) noexcept;
  Pack& operator=(Pack&&) noexcept;
  Pack(const Pack&) = delete;
  Pack& operator=(const Pack&) = delete;
  ~Pack();

  // Maps and checks the file. kIo when it cannot be opened or mapped, kBadPack when a
  // check fails.
  static Result<Pack> open(const std::string& path);
  // Checks a copy of `bytes` (tests, fuzzing, packs embedded in something else).
  static Result<Pack> from_bytes(std::span<const uint8_t> bytes);

  uint32_t format_version() const { return format_version_; }
  // The whole file, as mapped.
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

  std::span<const MeshInfo> meshes() const { return meshes_; }
  std::span<const PartInfo> parts() const { return parts_; }
  int rig_count() const { return static_cast<int>(rigs_.size()); }
  // Precondition: 0 <= index < rig_count().
  const Rig& rig(int index) const { return rigs_[static_cast<size_t>(index)].rig; }
  bool node_rig(int index) const { return rigs_[static_cast<size_t>(index)].node_rig; }
  // The glTF node of a rig's joint, and the glTF animation of a rig's clip (-1: none).
  int joint_source_node(int rig, int joint) const;
  int clip_source_animation(int rig, int clip) const;
  // Version 5: the glTF node of a rig's morph set (Rig::morph_sets()), or -1.
  int morph_source_node(int rig, int set) const;
  std::span<const SpriteSheet> sprite_sheets() const { return sheets_; }
  std::string_view sprite_source(int sheet) const;
  std::span<const ObjectInfo> objects() const { return objects_; }
  std::span<const MaterialInfo> materials() const { return materials_; }
  // materials()[index], or glTF's default material for -1 (or any index outside).
  const MaterialInfo& material(int index) const;
  std::span<const TextureInfo> textures() const { return textures_; }
  // A mesh's bounds (bounds.h): empty boxes and no joints for a version 1 pack or a mesh
  // without parts. Precondition: 0 <= mesh < meshes().size().
  const MeshBounds& mesh_bounds(int mesh) const { return bounds_[static_cast<size_t>(mesh)]; }
  // The index of the object with this name, or -1.
  int find_object(std::string_view name) const;
  // The bytes the writer saved by storing identical vectors, strings and blobs once
  // (docs/pack-format.md, "Shared data"): for every name of an address named before, that
  // vector's bytes. Walks the whole pack (animpack inspect), allocating a table of them.
  uint64_t shared_bytes() const;

  // A part's streams, decoded on first use (LZ4) or viewed in place (raw). Checks index
  // and joint ranges when first decoded: kBadPack when they fail.
  Result<PartStreams> part_streams(int part) const;
  // A sprite sheet's pixels, RGBA8, width * height * 4 bytes, decoded on first use.
  Result<std::span<const uint8_t>> sprite_pixels(int sheet) const;
  // A texture's pixels, RGBA8, width * height * 4 bytes, rows top first, decoded on first
  // use. kInvalidArgument for an index outside textures().
  Result<std::span<const uint8_t>> texture_pixels(int texture) const;

 private:
  struct RigEntry {
    Rig rig;
    bool node_rig = false;
    std::vector<int> joint_nodes;
    std::vector<int> clip_animations;
    std::vector<int> morph_nodes;  // version 5: one per morph set
  };
  struct Decoded;

  Result<void> load();
  // A blob's bytes: in place (raw) or decoded once into its data's cache slot (LZ4).
  Result<std::span<const uint8_t>> blob(const void* blob, uint64_t expected,
                                        const char* what) const;

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // munmap on destruction
  size_t mapping_size_ = 0;
  std::unique_ptr<uint8_t[]> owned_;  // from_bytes: the aligned copy
  uint32_t format_version_ = 0;
  std::vector<MeshInfo> meshes_;
  std::vector<PartInfo> parts_;
  std::vector<RigEntry> rigs_;
  std::vector<SpriteSheet> sheets_;
  std::vector<ObjectInfo> objects_;
  std::vector<MaterialInfo> materials_;
  std::vector<TextureInfo> textures_;
  std::vector<MeshBounds> bounds_;         // one per mesh
  std::vector<JointBounds> joint_bounds_;  // what bounds_[m].joints view
  std::unique_ptr<Decoded> decoded_;
};

}  // namespace animpack
