// Draws a pack's posed snapshot (animpack/posed.h) with a Renderer: skinned parts skinned
// on the GPU by their object's palette, node-animated parts placed by their node's pose,
// static parts by the object's matrix, sprites on cards showing their frame.
//
//   auto scene = animpack::gl::SceneRenderer::create(&renderer, &pack);
//   animpack::Posed posed = player.posed(&camera);     // or built by hand
//   if (auto r = scene->draw(posed, {camera, {}, 640, 360}); !r) report(r.error());
//   auto ids = scene->render_ids(posed, camera, 640, 360);   // object + 1 per pixel
//
// What is drawn for each PosedObject (o = its object index in the pack):
// - every part of its mesh: a skinned part is skinned by `palette` (and its previous
//   position by `previous_palette`), then placed by `model`; a node-rig part (PartInfo
//   joint >= 0) is placed by model * palette[joint]; any other part by model. A mesh
//   with a rig and an empty palette draws its bind pose (node parts: model alone).
// - each part with its pack material (Pack::material(part.material)): base colour
//   texture x factor x COLOR_0, metallic-roughness, normal map (with the part's
//   tangents), occlusion, emissive, alpha mode, double-sided, each slot with its sampler,
//   uv set (TEXCOORD_0 / TEXCOORD_1) and KHR_texture_transform, shaded as docs/gl.md
//   ("Shading") says. A part without a material (-1) is glTF's default material with the
//   object's colour (a fixed palette by object index) as base colour, metallic 0 and
//   roughness 1.
// - a sprite object (sprite_sheet >= 0) with a mesh: that mesh is its card, unlit; a
//   card's uvs come from its part's mesh-space x, y bounds (whatever TEXCOORD_0 it has):
//   u = (x - min x) / (max x - min x), v = (max y - y) / (max y - min y).
// - a sprite object without a mesh (when SceneOptions::cardless_sprites): a unit-high
//   card in the object's x, y plane, centred on its origin, facing +z, as wide as the
//   frame's pixel aspect (frame width / height), placed by `model`. A placed frame
//   (Atlas::placement, Step 7): the card stands for its source box (unit high), its pivot
//   at the origin, cut to the trimmed box; a rotated frame is sampled turned back
//   (docs/gl.md, "Sprite cards"); the tracer places frames by the same rule.
// Sprite cards show frame `sprite_frame` of the sheet's atlas (nearest texels, alpha <
// 0.5 not drawn). Ids: object o writes object_id(o) = o + 1; kNoId where nothing is.
// Motion: the previous palettes, and the models of the previous draw() of the same
// SceneRenderer (the first draw: the same models).
//
// The SceneRenderer uploads every mesh part, sprite atlas and texture of the pack when
// created (decoding them; each texture once, in its colour space, with mipmaps), and
// keeps one instance per drawn part. The pack and the renderer must
// outlive it and stay where they are (it keeps pointers to them).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "animpack/camera.h"
#include "animpack/gl/renderer.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/result.h"

namespace animpack::gl {

struct SceneOptions {
  // Draw sprite objects that have no card mesh on the default unit card (see above).
  bool cardless_sprites = true;
};

class SceneRenderer {
 public:
  SceneRenderer();
  SceneRenderer(SceneRenderer&&) noexcept;
  SceneRenderer& operator=(SceneRenderer&&) noexcept;
  SceneRenderer(const SceneRenderer&) = delete;
  SceneRenderer& operator=(const SceneRenderer&) = delete;
  ~SceneRenderer();

  // Uploads the pack's parts (decoded now: kBadPack when a part's streams fail their
  // checks, or a material names a texture outside the pack), sprite atlases and
  // textures (an error of Pack::texture_pixels is returned as it is). kInvalidArgument for a null
  // renderer or pack, or a renderer whose context is not current.
  static Result<SceneRenderer> create(Renderer* renderer, const Pack* pack,
                                      const SceneOptions& options = {});

  // Draws the snapshot (see the top of this file) with renderer->render(view). Checks
  // the whole snapshot first: kInvalidArgument for an object index outside the pack, an
  // object twice, a mesh that is not the object's, a sprite sheet that is not the
  // object's or a non-finite model; kBadFrame for a sprite frame outside its atlas;
  // kBadJointIndex for a palette shorter than the rig (or than a node part's joint);
  // kSizeMismatch for a previous palette neither empty nor as long as the palette.
  Result<void> draw(const Posed& posed, const View& view);
  // draw() with camera (no previous camera) into width x height, then the id buffer:
  // width * height values, rows top first, object_id(o) or kNoId.
  Result<std::vector<uint32_t>> render_ids(const Posed& posed, const Camera& camera, uint32_t width,
                                           uint32_t height);

  // The id buffer value of pack object `object`.
  static uint32_t object_id(int object) { return static_cast<uint32_t>(object) + 1; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace animpack::gl
