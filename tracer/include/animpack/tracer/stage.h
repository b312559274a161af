// The traced scene: world-space triangles with an object id and a material each, the
// vertex attributes the shading model reads (normals, tangents, two texture coordinate
// sets, colours), the textures, and the BVH over the triangles; stage_posed() builds one
// from a posed snapshot of a pack.
//
//   animpack::Posed posed = player.posed(&camera);     // or built by hand from Animators
//   animpack::Result<animpack::trace::TraceScene> scene =
//       animpack::trace::stage_posed(pack, posed);
//   if (!scene) return scene.error();
//   // scene->bvh() is built; hand the scene to render() (render.h).
//
// Staging:
// - skinned parts are CPU-skinned by the runtime's skin() with the object's palette (the
//   very function the GL vertex stage is held to; normals and tangents too), then placed
//   by the object's matrix;
// - node-rig parts (PartInfo::joint >= 0) are placed by model * palette[joint];
// - other parts are static, in the model's space, placed by model;
// - an object whose palette is empty (no rig, or a snapshot without one) shows its parts
//   as stored: bind pose for skinned parts, node-local parts as stored;
// - each part takes pack.material(part.material) and its texture coordinates and colours;
//   a part without a material (-1) takes the object's colour (object_color() or
//   StageOptions::colors), metallic 0, roughness 1; every pack texture a staged part uses
//   is copied into the scene once;
// - a sprite object with a card (a mesh) shows its frame on the card, mapped from the
//   card part's x, y bounds as gl/ does: u = (x - min x) / (max x - min x),
//   v = (max y - y) / (max y - min y); a sprite object without a card shows its frame on a
//   unit-high quad (gl/'s default card; StageOptions::cardless_sprites), placed frames
//   where gl/ places them (the source box about the pivot, only the trimmed box covered,
//   rotated frames turned back; docs/tracer.md). Sprites are
//   unlit, nearest, and texels with alpha below 128 are holes.
//
// Rays and materials (docs/tracer.md, "Shading"): a MASK surface whose alpha is below its
// cutoff is a hole (every ray passes through it); a triangle of a material that is not
// double-sided is absent for rays that reach it from behind (its back is the side its
// winding, counter-clockwise seen from the front, faces away from).
//
// Object ids: triangles of pack object i carry id i + 1 (object_id(i)); 0 is "no object".
// Memory: per triangle 36 bytes of corners, 12 of vertex indices and 8 of ids; per vertex
// 68 bytes of attributes; plus the textures and the BVH (bvh.h). Nothing is shared with
// the pack after staging.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "animpack/material.h"
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

// A texture coordinate: u to the right, v down from the image's top row.
struct Uv {
  float u = 0, v = 0;
};

// An RGBA8 image, rows top to bottom. sRGB textures are decoded to linear before they are
// filtered (as GL's sRGB formats are); linear ones are used as stored (byte / 255).
struct Texture {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
  ColorSpace color_space = ColorSpace::kSrgb;
};

// How a material samples one texture (material.h's TextureSlot, resolved to a scene
// texture). The coordinate is uv' = offset + R(rotation) * (scale * uv) of the slot's uv
// set (KHR_texture_transform: u' = cos r * u + sin r * v, v' = -sin r * u + cos r * v before
// the offset), then mapped onto `rect` with the wrap modes and the filter.
struct TextureRef {
  int texture = -1;  // index in TraceScene::textures(); -1: untextured
  int uv_set = 0;    // 0: MeshInput::uvs, 1: MeshInput::uvs1
  Wrap wrap_s = Wrap::kRepeat, wrap_t = Wrap::kRepeat;
  bool nearest = false;  // the nearest texel; otherwise bilinear between the four nearest
  UvTransform transform;
  PixelRect rect;  // the region uv [0, 1]^2 covers; width or height 0: the whole texture
};

// The terms of the shading model (docs/tracer.md), glTF metallic-roughness. Colours are
// linear. The default is a grey, rough, double-sided dielectric.
struct Material {
  Vec4 base_color{0.8f, 0.8f, 0.8f, 1.0f};  // RGBA factor
  TextureRef base_color_texture;
  float metallic = 0.0f, roughness = 1.0f;
  TextureRef metallic_roughness_texture;  // G roughness, B metallic
  TextureRef normal_texture;              // tangent space; needs tangents
  float normal_scale = 1.0f;
  TextureRef occlusion_texture;  // R
  float occlusion_strength = 1.0f;
  Vec3 emissive{0, 0, 0};
  TextureRef emissive_texture;
  float emissive_strength = 1.0f;
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  float alpha_cutoff = 0.5f;  // MASK: alpha below it is a hole
  bool double_sided = true;   // false: absent for rays from behind
  bool unlit = false;         // shown as its base colour: no light, no shadow (sprites)
};

// World-space triangles to add to a scene. Every attribute stream is empty or has one
// entry per position.
struct MeshInput {
  MeshInput() = default;
  // The geometry, ids and material; the other streams are set by name.
  MeshInput(std::span<const Vec3> positions_in, std::span<const Vec3> normals_in,
            std::span<const Uv> uvs_in, std::span<const uint32_t> indices_in,
            uint32_t object_id_in = kNoObject, uint32_t material_in = 0)
      : positions(positions_in),
        normals(normals_in),
        uvs(uvs_in),
        indices(indices_in),
        object_id(object_id_in),
        material(material_in) {}

  std::span<const Vec3> positions;
  std::span<const Vec3> normals;      // empty: the face normal
  std::span<const Uv> uvs;            // texture coordinate set 0 (empty: 0, 0)
  std::span<const uint32_t> indices;  // three per triangle, each < positions.size()
  uint32_t object_id = kNoObject;
  uint32_t material = 0;           // index in materials()
  std::span<const Uv> uvs1;        // set 1 (empty: 0, 0)
  std::span<const Vec4> colors;    // linear RGBA vertex colours (empty: white)
  std::span<const Vec4> tangents;  // xyz and the bitangent sign w (empty: no normal map)
};

// What a ray sees where it hits: the shading model's inputs (render.h shades them).
struct Surface {
  Vec3 position;
  Vec3 normal;            // unit shading normal (normal-mapped), on the side the ray sees
  Vec3 geometric_normal;  // unit, facing the ray
  Vec4 base{1, 1, 1, 1};  // linear base colour and alpha (factor x texel x vertex colour)
  float metallic = 0.0f, roughness = 1.0f;  // roughness clamped to >= 0.045
  float occlusion = 1.0f;                   // 1 + strength * (texel.r - 1)
  Vec3 emissive{0, 0, 0};                   // factor x strength x texel
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  bool unlit = false;
  uint32_t object_id = kNoObject;
};

class TraceScene {
 public:
  TraceScene();

  // Adds a material; returns its index. Material 0 (the default Material) always exists.
  uint32_t add_material(const Material& material);
  // Adds a texture; returns its index.
  uint32_t add_texture(Texture texture);
  // Appends triangles. kInvalidArgument (nothing added) when the index count is not a
  // multiple of 3, an index is out of range, a stream has the wrong length, the material
  // does not exist, or one of its textures or rects does not fit. Clears the BVH (call
  // build() again).
  [[nodiscard]] Result<void> add_mesh(const MeshInput& mesh);

  // Builds the BVH over everything added so far. render() needs it.
  void build(const BvhOptions& options = {});
  bool built() const { return built_; }

  size_t triangle_count() const { return triangles_.size(); }
  std::span<const Triangle> triangles() const { return triangles_; }
  std::span<const uint32_t> object_ids() const { return object_ids_; }
  std::span<const Material> materials() const { return materials_; }
  std::span<const Texture> textures() const { return textures_; }
  // The material index of each triangle.
  std::span<const uint32_t> triangle_materials() const { return material_of_; }
  const Bvh& bvh() const { return bvh_; }
  // The bounds of every finite triangle (valid before build() too).
  Aabb bounds() const { return bounds_; }

  // The closest hit that counts (hit_counts()). Precondition: built().
  bool closest(const Ray& ray, Hit* out_hit) const;
  // The closest hit that counts strictly farther along the same ray than `after` (the
  // next layer behind a BLEND surface; a ray through an edge two triangles of one surface
  // share meets that surface once, and coplanar surfaces behind it are not seen).
  bool next(const Ray& ray, const Hit& after, Hit* out_hit) const;
  // Whether anything that counts and is not BLEND lies on the ray (shadow rays: BLEND
  // surfaces cast no shadow). Precondition: built().
  bool occluded(const Ray& ray) const;
  // The surface at a hit closest() returned for `ray`.
  Surface surface(const Ray& ray, const Hit& hit) const;
  // Whether a hit on `triangle` at barycentrics (u, v) lands on a hole: a MASK material
  // whose alpha there is below its cutoff.
  bool is_hole(uint32_t triangle, float u, float v) const;
  // Whether `ray` reaches `triangle` from behind (against its winding's normal).
  bool from_behind(const Ray& ray, uint32_t triangle) const;
  // Whether a hit counts for `ray`: not a hole, and not a single-sided triangle reached
  // from behind.
  bool hit_counts(const Ray& ray, uint32_t triangle, float u, float v) const;

  // The texture value of `ref` at uv (rect-relative), linear RGBA in [0, 1]: what the
  // shading reads. Precondition: ref.texture is a texture of this scene.
  Vec4 sample(const TextureRef& ref, Uv uv) const;

 private:
  // The base colour's alpha at a hit (factor x texel x vertex colour).
  float alpha(uint32_t triangle, float u, float v) const;
  Uv uv_at(uint32_t triangle, int set, float u, float v) const;

  std::vector<Triangle> triangles_;
  std::vector<std::array<uint32_t, 3>> corners_;  // vertex indices per triangle
  std::vector<uint32_t> object_ids_;
  std::vector<uint32_t> material_of_;
  std::vector<uint8_t> flags_;  // per triangle: which vertex streams it has (kHas*)
  // Per vertex.
  std::vector<Vec3> normals_;
  std::vector<Vec4> tangents_;
  std::vector<Uv> uvs0_, uvs1_;
  std::vector<Vec4> colors_;
  std::vector<Material> materials_;
  std::vector<Texture> textures_;
  Aabb bounds_;
  Bvh bvh_;
  bool built_ = false;
  bool filtered_ = false;  // some material is single-sided, MASK or BLEND
};

struct StageOptions {
  // Shows a sprite object without a card as a quad in its model's xy plane facing +z
  // (the way a face_camera matrix turns towards the camera), centred on its position,
  // 1 unit high and as wide as its frame's pixel aspect, both times the model's scale:
  // the card gl/'s SceneRenderer draws by default. false leaves such sprites out of the
  // 3D scene (for a flat 2D pass to draw instead).
  bool cardless_sprites = true;
  // The linear base colour of each object's parts that have no material (-1), by pack
  // object index (wrapping); empty: the built-in palette (object_color()).
  std::span<const Vec3> colors;
  BvhOptions bvh;
};

// The built-in base colour (linear) of pack object `object`: a small palette of distinct
// colours, for parts without a material.
Vec3 object_color(int object);

// Stages the snapshot and builds the BVH. Errors: kInvalidArgument for an object, mesh or
// sprite sheet index outside the pack; kBadFrame for a sprite frame outside its atlas;
// kBadJointIndex for a node part whose joint is outside the palette; skin()'s errors; the
// pack's errors decoding parts or pixels (kBadPack); kBadPack for a material's texture
// whose pixels are not width * height * 4 bytes.
[[nodiscard]] Result<TraceScene> stage_posed(const Pack& pack, const Posed& posed,
                                             const StageOptions& options = {});

}  // namespace animpack::trace
