// GPU skinning and drawing with OpenGL 4.5 core: meshes, a skin store, sprite textures,
// instances, and a frame of colour, object ids and motion vectors read back to the CPU.
//
//   auto context = animpack::gl::Context::create_headless();
//   auto renderer = animpack::gl::Renderer::create(&*context);
//   auto mesh = renderer->upload_skinned_mesh({col.positions, col.normals, col.tangents, {},
//                                              col.indices}, {col.joints, col.weights});
//   animpack::gl::InstanceDesc desc;
//   desc.mesh = *mesh;
//   auto instance = renderer->create_instance(desc);
//   animpack::gl::InstancePose pose{*instance, animator.palette(), last_palette};
//   (void)renderer->set_poses({&pose, 1});
//   animpack::gl::View view{camera, {}, 320, 240};
//   (void)renderer->render(view);
//   animpack::Result<std::vector<uint32_t>> ids = renderer->read_ids();   // top row first
//
// The skin store is one shader storage buffer: every skinned mesh's per-vertex records
// (four 16-bit joints and four float weights, 32 bytes), allocated with a free list,
// then every posed instance's current and previous palettes, rewritten by set_poses().
// The vertex stage morphs a vertex by its instance's weights (meshes with targets: the
// deltas of each mesh in its own storage buffer, the weights in one buffer rewritten by
// set_poses()), then blends the four (or eight) palette matrices of a vertex by its
// weights (summed in joint order 0..7, as the CPU skin() does) and skins position, normal
// and tangent before the instance's model matrix, in every pass of render(): a depth/ids/motion
// pass, then the colour pass (depth-tested against it), then the BLEND instances (see render()).
// The previous palette and previous model give each vertex its previous position: a
// vertex that moved writes its motion in pixels, a still one writes exactly zero. The
// colour pass shades materials with the model of docs/gl.md ("Shading").
//
// Every function checks its arguments (and that the renderer's context is current)
// before any GL call and returns an error instead of touching GL: kInvalidArgument (a
// handle that names nothing, a size or count out of range), kSizeMismatch (streams of
// different lengths), kBadJointIndex (a pose with fewer joints than its mesh names).
// After its GL calls a function checks GL errors (Context::check_errors) and returns kIo
// when there were any. Image rows are returned top row first, as camera.h numbers them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "animpack/camera.h"
#include "animpack/material.h"
#include "animpack/math.h"
#include "animpack/result.h"
#include "animpack/skinning.h"
#include "animpack/sprite.h"

namespace animpack::gl {

class Context;

// Typed handles. 0 names nothing; a released object's handle stops naming it (handles
// carry a generation, so a reused slot does not revive them).
struct MeshHandle {
  uint32_t value = 0;
  explicit operator bool() const { return value != 0; }
  friend bool operator==(MeshHandle a, MeshHandle b) { return a.value == b.value; }
};
struct TextureHandle {
  uint32_t value = 0;
  explicit operator bool() const { return value != 0; }
  friend bool operator==(TextureHandle a, TextureHandle b) { return a.value == b.value; }
};
struct InstanceHandle {
  uint32_t value = 0;
  explicit operator bool() const { return value != 0; }
  friend bool operator==(InstanceHandle a, InstanceHandle b) { return a.value == b.value; }
};

// The id buffer's value where nothing was drawn.
inline constexpr uint32_t kNoId = 0;
// The largest render target side, the largest texture side (also held to the driver's
// GL_MAX_TEXTURE_SIZE), and the most vertices or indices of one mesh.
inline constexpr uint32_t kMaxTargetSize = 8192;
inline constexpr uint32_t kMaxTextureSize = 16384;
inline constexpr uint32_t kMaxMeshVertices = 1u << 24;

// A mesh's vertex streams (the pack's PartStreams fit). positions and indices are
// required; the others are empty or have one entry (uvs: two floats) per position.
struct MeshData {
  std::span<const Vec3> positions;
  std::span<const Vec3> normals;          // missing: (0, 0, 1)
  std::span<const Vec4> tangents;         // missing: no normal mapping (see MaterialDesc)
  std::span<const float> uvs;             // TEXCOORD_0: u right, v down from the image's top;
                                          // missing: 0
  std::span<const uint32_t> indices;      // triangles: a multiple of 3, each < positions.size()
  std::span<const Vec2> texcoords1 = {};  // TEXCOORD_1, as uvs; missing: 0
  std::span<const Vec4> colors = {};      // COLOR_0, linear RGBA; missing: (1, 1, 1, 1)
  // Morph targets (morph.h; the pack's PartStreams::morph): deltas target-major, each
  // stream empty or morph.targets x positions entries, finite; at most kMaxMorphTargets.
  // Uploaded once into the mesh's own storage buffer; an instance's weights (set_poses)
  // morph it in the vertex stage before skinning.
  MorphDeltas morph = {};
};

// How a texture is sampled (a glTF sampler). mag_filter is kNearest or kLinear.
struct Sampler {
  Wrap wrap_s = Wrap::kRepeat;
  Wrap wrap_t = Wrap::kRepeat;
  Filter mag_filter = Filter::kLinear;
  Filter min_filter = Filter::kLinearMipmapLinear;
  friend bool operator==(const Sampler&, const Sampler&) = default;
};

// How upload_texture() stores an image: kSrgb textures (base colour, emissive) are
// GL_SRGB8_ALPHA8 and decoded to linear when sampled, kLinear ones GL_RGBA8. Mipmaps are
// built (glGenerateMipmap) unless `mipmaps` is false. `sampler` is the texture's own
// sampling, used by material slots that name no sampler of their own. Sprite frames
// (InstanceDesc::texture) are always sampled nearest, clamped to the edge, level 0.
struct TextureOptions {
  ColorSpace color_space = ColorSpace::kLinear;
  Sampler sampler;
  bool mipmaps = true;
};

// One material slot: a texture, the uv set it reads (0: MeshData::uvs, 1: texcoords1),
// its sampler (none: the texture's own) and its KHR_texture_transform (when
// has_transform: uv' = T(offset) R(rotation) S(scale) uv, glTF's rotation sign). An
// empty texture handle leaves the slot untextured (its texel reads as 1).
struct MaterialTexture {
  TextureHandle texture;
  int uv_set = 0;
  std::optional<Sampler> sampler;
  bool has_transform = false;
  UvTransform transform;
};

// The terms of a glTF metallic-roughness material (animpack/material.h) with uploaded
// textures, shaded by the model of docs/gl.md ("Shading"). Defaults: glTF's default
// material. Factors must be finite; metallic, roughness and occlusion_strength in
// [0, 1], alpha_cutoff and emissive_strength >= 0.
struct MaterialDesc {
  Vec4 base_color{1, 1, 1, 1};         // linear RGBA factor
  MaterialTexture base_color_texture;  // RGBA; upload it kSrgb
  float metallic = 1;
  float roughness = 1;
  MaterialTexture metallic_roughness_texture;  // G roughness, B metallic; kLinear
  MaterialTexture normal_texture;              // tangent space; kLinear; needs tangents
  float normal_scale = 1;
  MaterialTexture occlusion_texture;  // R; kLinear
  float occlusion_strength = 1;
  Vec3 emissive{0, 0, 0};            // linear RGB factor
  MaterialTexture emissive_texture;  // kSrgb
  float emissive_strength = 1;
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  float alpha_cutoff = 0.5f;
  bool double_sided = false;
};

// A skinned mesh's joints and weights, one entry per position. The mesh "names" joints
// 0 .. max index: a pose must have at least that many.
struct SkinData {
  std::span<const JointIndices> joints;
  std::span<const Vec4> weights;  // finite; used as given (the cooker normalises them)
  // Influences 5 to 8 (JOINTS_1/WEIGHTS_1): both empty, or one entry per position each.
  // Such a mesh's records take twice the room; the vertex stage sums 0..7 (zero weights
  // of the second set adding nothing, as skin() does).
  std::span<const JointIndices> joints1 = {};
  std::span<const Vec4> weights1 = {};
};

// One drawn copy of a mesh.
struct InstanceDesc {
  MeshHandle mesh;
  Mat4 model;           // mesh space -> world
  Mat4 previous_model;  // the model of the previous frame (motion vectors); = model for none
  uint32_t id = 1;      // written to the id buffer; not kNoId
  // Without a material or a texture: shaded as the material {base_color = color,
  // metallic 0, roughness 1, double-sided} (linear rgb, 0..1).
  Vec4 color{0.8f, 0.8f, 0.8f, 1.0f};
  // A sprite: a texture shows through the mesh's uvs mapped into `uv` (a sprite frame):
  // texel (u0 + u (u1 - u0), v0 + v (v1 - v0)), nearest, unlit, both sides; texels with
  // alpha < 0.5 are not drawn (in either pass). Not together with a material.
  TextureHandle texture;
  UvRect uv{0, 0, 1, 1};
  // A lit, textured material (see MaterialDesc); its texture handles must name textures.
  std::optional<MaterialDesc> material;
  bool visible = true;
};

// A skinned instance's palette for this frame and the previous one (motion vectors).
// previous may be empty (= joints). An instance whose mesh has morph targets also takes
// its weights (one per target, finite) and the previous frame's (empty: = morph_weights);
// empty morph_weights draw the base shape. A mesh with targets but no skin is posed by its
// weights alone (joints empty). Every view is copied by set_poses().
struct InstancePose {
  InstanceHandle instance;
  std::span<const Mat4> joints;
  std::span<const Mat4> previous;
  std::span<const float> morph_weights = {};
  std::span<const float> previous_morph_weights = {};
};

// What render() draws: the camera (projection_matrix with aspect width / height), the
// camera of the previous frame for motion vectors (none: the same), the target size.
struct View {
  Camera camera;
  std::optional<Camera> previous_camera;
  uint32_t width = 0;  // 1 .. kMaxTargetSize
  uint32_t height = 0;
  Vec4 clear_color{0.094f, 0.102f, 0.125f, 1.0f};
  // The shading model's one directional light: the way its light travels (any length
  // but 0) and the ambient share (0..1; the light's irradiance is pi (1 - ambient)).
  Vec3 light_direction{-0.45f, -1.0f, -0.55f};
  float ambient = 0.3f;
};

// A world-space segment of the debug line batch (Renderer::set_lines): skeletons, boxes,
// grids over the frame. color is linear RGBA (0..1), blended "over" what is drawn;
// on_top draws it over everything, else it is depth-tested against the frame's surfaces.
struct DebugLine {
  Vec3 from;
  Vec3 to;
  Vec4 color{1, 1, 1, 1};
  bool on_top = false;
};

// The most segments of one set_lines() call.
inline constexpr uint32_t kMaxDebugLines = 1u << 20;

// An RGBA8 image, rows top first.
struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

// How far a pixel's surface moved since the previous frame (current position minus
// previous), in pixels: x to the right, y down.
struct Motion {
  float x = 0, y = 0;
};

// The skin store's occupancy, in vertices (records) and matrices (palettes).
struct SkinStoreStats {
  uint32_t record_capacity = 0;
  uint32_t records_used = 0;
  uint32_t free_runs = 0;
  uint32_t palette_matrices = 0;  // current + previous of every posed instance
  uint64_t buffer_bytes = 0;
};

// What render() checks of a view: kInvalidArgument for a size of 0 or over
// kMaxTargetSize, a degenerate camera (eye at target, up along the view direction, near
// <= 0, far <= near, fov_y outside (0, pi), ortho_height <= 0), a non-finite clear colour,
// a zero or non-finite light direction or an ambient outside [0, 1].
Result<void> check_view(const View& view);
// What create_instance() checks of a material (handles aside): kInvalidArgument for a
// factor outside the ranges MaterialDesc names, a uv set other than 0 or 1, an enum value
// outside its enum, a magnification filter with mipmaps, or a non-finite transform.
Result<void> check_material(const MaterialDesc& material);

class Renderer {
 public:
  Renderer();
  Renderer(Renderer&&) noexcept;
  Renderer& operator=(Renderer&&) noexcept;
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;
  // Deletes its GL objects when its context is current (else they die with the context).
  ~Renderer();

  // A renderer drawing with `context` (current, and outliving the renderer: see
  // Context). Compiles its shaders. kInvalidArgument for a null, empty or not current
  // context; kIo when a shader fails to compile (the log is in the message).
  static Result<Renderer> create(Context* context);

  // A static mesh. kInvalidArgument for no positions or indices, more than
  // kMaxMeshVertices, an index count not a multiple of 3, an index out of range, a
  // non-finite position or delta, more than kMaxMorphTargets targets or deltas over the
  // storage block limit; kSizeMismatch for streams (deltas too) of other lengths.
  Result<MeshHandle> upload_mesh(const MeshData& mesh);
  // A skinned mesh: upload_mesh's checks, plus joints and weights (and joints1 and
  // weights1 when given) of the same length (kSizeMismatch) with finite weights
  // (kInvalidArgument). Its records go into the skin
  // store (which grows, keeping what it holds, when its free list has no room).
  Result<MeshHandle> upload_skinned_mesh(const MeshData& mesh, const SkinData& skin);
  // Frees the mesh (its skin records return to the free list). kInvalidArgument when the
  // handle names nothing or an instance still uses it.
  Result<void> release_mesh(MeshHandle mesh);
  // The joints a skinned mesh names (max joint index + 1); 0 for a static mesh or a bad
  // handle.
  uint32_t mesh_joint_count(MeshHandle mesh) const;

  // An RGBA8 texture (rows top first, as Pack::sprite_pixels and Pack::texture_pixels
  // give them), stored and sampled as `options` says. kInvalidArgument for a zero size or
  // one over kMaxTextureSize (or the driver's GL_MAX_TEXTURE_SIZE), or a bad enum in the
  // options (as check_material); kSizeMismatch when rgba is not width * height * 4 bytes.
  Result<TextureHandle> upload_texture(std::span<const uint8_t> rgba, uint32_t width,
                                       uint32_t height, const TextureOptions& options = {});
  // kInvalidArgument when the handle names nothing or an instance still uses it.
  Result<void> release_texture(TextureHandle texture);

  // Adds an instance. kInvalidArgument for a mesh or texture handle (the sprite's or a
  // material slot's) naming nothing, id kNoId, a non-finite matrix, both a sprite texture
  // and a material, or a material check_material() refuses.
  Result<InstanceHandle> create_instance(const InstanceDesc& desc);
  // Replaces an instance's description (its pose is kept when the mesh is the same).
  Result<void> update_instance(InstanceHandle instance, const InstanceDesc& desc);
  Result<void> destroy_instance(InstanceHandle instance);

  // The poses of this frame: replaces every pose set before (a skinned or morphed
  // instance not named draws its bind pose and base shape). All are checked before any is
  // kept: kInvalidArgument for an instance naming nothing, neither skinned nor morphed,
  // named twice, a non-finite matrix or weight, joints for a mesh without a skin, or
  // weights for a mesh without targets; kBadJointIndex when a skinned mesh's joints has
  // fewer matrices than it names; kSizeMismatch when previous is neither empty nor as long
  // as joints, or morph weights (current or previous) neither empty nor one per target.
  // Weights are staged in a buffer that only grows: a frame like the last allocates
  // nothing.
  Result<void> set_poses(std::span<const InstancePose> poses);

  // The debug lines every later render() draws (replacing those set before; empty: none),
  // one pixel wide, after every instance, into the colour target only (ids, motion and
  // depth are untouched): first the depth-tested ones (depth LEQUAL against the frame's
  // opaque and MASK surfaces), then the on_top ones, each blended "over" in linear light
  // like BLEND instances. kInvalidArgument for more than kMaxDebugLines segments or a
  // non-finite end or colour (the lines set before are kept). The staging buffer only
  // grows: a frame like the last allocates nothing.
  Result<void> set_lines(std::span<const DebugLine> lines);

  // Draws every visible instance into the renderer's own target (resized to the view):
  // the ids/motion pass of the opaque and MASK instances (writing depth), their colour
  // pass (depth LEQUAL, no depth writes), then the BLEND instances sorted back to front
  // (by the distance along the view of model * their mesh's box centre; ties in instance
  // order), blended "over" in linear light (the colour target is sRGB: GL encodes what is
  // written, and decodes what is there to blend) with depth tested and not written, and
  // last their ids/motion
  // (depth LESS, written: the nearest BLEND surface's id). Single-sided materials cull
  // back faces in every pass (a model of negative determinant flips the winding). Fails
  // as check_view() does.
  Result<void> render(const View& view);
  // The last render()'s colour, ids (kNoId where nothing was drawn) and motion, rows top
  // first. kInvalidArgument before any render().
  Result<Image> read_color();
  Result<std::vector<uint32_t>> read_ids();
  Result<std::vector<Motion>> read_motion();
  // Copies the last render()'s colour to the window's framebuffer, scaled to
  // width x height. kInvalidArgument on a headless context or before any render().
  Result<void> present(int width, int height);

  // Skins a skinned instance's vertices on the GPU with the same vertex-stage code as
  // render() and reads them back (transform feedback), in mesh space (before the model
  // matrix): positions, and normals and tangents where out has room for them (empty
  // spans are skipped), and the positions under the previous palette into out_previous
  // (may be empty). Each non-empty span must have one entry per vertex (kSizeMismatch).
  // An instance without a pose gives its bind pose. A mesh with morph targets but no skin
  // gives its morphed vertices (normals and tangents renormalised, as apply_morph()).
  // kInvalidArgument for a handle naming nothing or a mesh neither skinned nor morphed.
  Result<void> capture_skinned(InstanceHandle instance, const SkinOutput& out,
                               std::span<Vec3> out_previous = {});

  SkinStoreStats skin_store_stats() const;

  struct Impl;

 private:
  friend struct RendererAccess;  // gl/src: the flat pass (flat_sprites.h) draws into the target
  std::unique_ptr<Impl> impl_;
};

}  // namespace animpack::gl
