// The traced scene: world-space triangles with an object id and a material each, and
// the BVH over them; stage_posed() builds one from a posed snapshot of a pack.
//
//   animpack::Posed posed = player.posed(&camera);     // or built by hand from Animators
//   animpack::Result<animpack::trace::TraceScene> scene =
//       animpack::trace::stage_posed(pack, posed);
//   if (!scene) return scene.error();
//   // scene->bvh() is built; hand the scene to render() (render.h).
//
// Staging:
// - skinned parts are CPU-skinned by the runtime's skin() with the object's palette (the
//   very function the GL vertex stage is held to), then placed by the object's matrix;
// - node-rig parts (PartInfo::joint >= 0) are placed by model * palette[joint];
// - other parts are static, in the model's space, placed by model;
// - an object whose palette is empty (no rig, or a snapshot without one) shows its parts
//   as stored: bind pose for skinned parts, node-local for node parts;
// - a sprite object with a card (a mesh) shows its frame on the card; the pack stores no
//   texture coordinates, so, as gl/ does, each card part maps its mesh-space x, y bounds
//   onto the frame: u = (x - min x) / (max x - min x), v = (max y - y) / (max y - min y);
// - a sprite object without a card shows its frame on a unit-high quad (gl/'s default
//   card; StageOptions::cardless_sprites).
// Sprite texels with alpha below Material::alpha_cutoff are holes: rays pass through.
//
// Object ids: triangles of pack object i carry id i + 1 (object_id(i)); 0 is "no object".
// Memory: per triangle 36 bytes of corners, 36 of normals, 24 of texture coordinates and
// 8 of ids, plus the BVH (bvh.h). Nothing is shared with the pack after staging except
// sprite pixels, which are copied into the scene's textures.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "animpack/math.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/result.h"
#include "animpack/sprite.h"
#include "animpack/tracer/bvh.h"
#include "animpack/tracer/geometry.h"

namespace animpack::trace {

// The id buffer's value where no object is seen.
inline constexpr uint32_t kNoObject = 0;
// The id of pack object `object` (its index in Pack::objects()).
inline uint32_t object_id(int object) { return static_cast<uint32_t>(object) + 1u; }

// A texture coordinate: u to the right, v down from the image's top row, [0, 1] over the
// material's rect.
struct Uv {
  float u = 0, v = 0;
};

// An RGBA8 image, rows top to bottom.
struct Texture {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

struct Material {
  Vec3 color{0.8f, 0.8f, 0.8f};  // albedo in [0, 1] (ignored when textured)
  int texture = -1;              // index in TraceScene::textures(), or -1
  PixelRect rect;                // the texture's region that uv [0, 1]^2 covers
  bool unlit = false;            // shown as is: no light, no shadow (sprites)
  uint8_t alpha_cutoff = 128;    // textured: texels with alpha below it are holes
};

// World-space triangles to add to a scene.
struct MeshInput {
  std::span<const Vec3> positions;
  std::span<const Vec3> normals;      // one per position, or empty (face normals)
  std::span<const Uv> uvs;            // one per position; needed when the material is textured
  std::span<const uint32_t> indices;  // three per triangle, each < positions.size()
  uint32_t object_id = kNoObject;
  uint32_t material = 0;  // index in materials()
};

// What a ray sees where it hits (render.h shades it).
struct Surface {
  Vec3 position;
  Vec3 normal;            // unit, facing the ray (shading normal)
  Vec3 geometric_normal;  // unit, facing the ray
  Vec3 color;             // albedo, or the texel
  bool unlit = false;
  uint32_t object_id = kNoObject;
};

class TraceScene {
 public:
  TraceScene();

  // Adds a material; returns its index. Material 0 (grey) always exists.
  uint32_t add_material(const Material& material);
  // Adds a texture; returns its index.
  uint32_t add_texture(Texture texture);
  // Appends triangles. kInvalidArgument (nothing added) when the index count is not a
  // multiple of 3, an index is out of range, normals or uvs have the wrong length, the
  // material does not exist, or a textured material's texture or rect does not fit.
  // Clears the BVH (call build() again).
  [[nodiscard]] Result<void> add_mesh(const MeshInput& mesh);

  // Builds the BVH over everything added so far. render() needs it.
  void build(const BvhOptions& options = {});
  bool built() const { return built_; }

  size_t triangle_count() const { return triangles_.size(); }
  std::span<const Triangle> triangles() const { return triangles_; }
  std::span<const uint32_t> object_ids() const { return object_ids_; }
  std::span<const Material> materials() const { return materials_; }
  std::span<const Texture> textures() const { return textures_; }
  const Bvh& bvh() const { return bvh_; }
  // The bounds of every finite triangle (valid before build() too).
  Aabb bounds() const { return bounds_; }

  // The closest hit that is not a hole in a cutout texture. Precondition: built().
  bool closest(const Ray& ray, Hit* out_hit) const;
  // Whether anything (not a hole) lies on the ray. Precondition: built().
  bool occluded(const Ray& ray) const;
  // The surface at a hit closest() returned for `ray`.
  Surface surface(const Ray& ray, const Hit& hit) const;
  // Whether a hit on `triangle` at barycentrics (u, v) lands on a hole of its texture.
  bool is_hole(uint32_t triangle, float u, float v) const;

 private:
  // The texel a textured triangle shows at barycentrics (u, v), RGBA.
  std::array<uint8_t, 4> texel(uint32_t triangle, float u, float v) const;

  std::vector<Triangle> triangles_;
  std::vector<std::array<Vec3, 3>> normals_;  // per corner; zero when the mesh had none
  std::vector<std::array<Uv, 3>> uvs_;        // per corner
  std::vector<uint32_t> object_ids_;
  std::vector<uint32_t> material_of_;
  std::vector<Material> materials_;
  std::vector<Texture> textures_;
  Aabb bounds_;
  Bvh bvh_;
  bool built_ = false;
};

struct StageOptions {
  // Shows a sprite object without a card as a quad in its model's xy plane facing +z
  // (the way a face_camera matrix turns towards the camera), centred on its position,
  // 1 unit high and as wide as its frame's pixel aspect, both times the model's scale:
  // the card gl/'s SceneRenderer draws by default. false leaves such sprites out of the
  // 3D scene (for a flat 2D pass to draw instead).
  bool cardless_sprites = true;
  // Albedo of each object, by pack object index (wrapping); empty: the built-in palette
  // (object_color()).
  std::span<const Vec3> colors;
  BvhOptions bvh;
};

// The built-in albedo of pack object `object`: a small palette of distinct colours.
Vec3 object_color(int object);

// Stages the snapshot and builds the BVH. Errors: kInvalidArgument for an object, mesh or
// sprite sheet index outside the pack; kBadFrame for a sprite frame outside its atlas;
// kBadJointIndex for a node part whose joint is outside the palette; skin()'s errors; the
// pack's errors decoding parts or pixels (kBadPack).
[[nodiscard]] Result<TraceScene> stage_posed(const Pack& pack, const Posed& posed,
                                             const StageOptions& options = {});

}  // namespace animpack::trace
