// The flat pass: 2D sprites in screen space (a 2D game, a 3D game's UI), drawn from a
// pack's sprite sheet after the 3D passes, into the renderer's colour and id targets; and
// its CPU twin (draw_flat_cpu), which draws the same batch into an image the same way.
//
//   auto flat = animpack::gl::FlatSprites::create(&*renderer, 256);        // capacity
//   auto pixels = pack.sprite_pixels(0);
//   (void)flat->upload_sheet(*pixels, pack.sprite_sheets()[0].atlas());    // once
//   // each frame, after renderer->render(view):
//   animpack::gl::FlatSprite hero;
//   hero.center = {160, 120};                                  // the pivot, in pixels
//   hero.size = {192, 256};                                    // the source box, 2x
//   hero.frame = player.frame(tick);                           // trim and pivot honoured
//   hero.id = 7;
//   (void)flat->draw({&hero, 1});
//   auto ids = renderer->read_ids();                           // 7 under the hero
//
// Pixels: x to the right, y down from the target's top-left corner (read_color's rows);
// the pixel (i, j) has its centre at (i + 0.5, j + 0.5). A sprite is the quad of its
// frame's stored pixels (the trimmed box), placed by its placement (sprite.h) with the
// pivot at `center`, scaled so that the source box is `size` pixels, turned by `rotation`
// (clockwise on screen) about the pivot. A pixel is covered when its centre is inside the
// quad, drawn as the two triangles (top-left, top-right, bottom-right) and (top-left,
// bottom-right, bottom-left) of its corners snapped to 1/256 pixel, a centre on an edge
// counting only for edges whose inward normal points right, or straight up: GL's top-left
// rule, whose "top" is up in GL's window coordinates (y up), so in these y-down pixels a
// horizontal edge through pixel centres keeps its bottom row and drops its top one (as
// Mesa's llvmpipe draws: the tests hold the twin to it). A covered pixel shows the texel
// under its centre (nearest, texelFetch): the centre mapped into the frame's stored
// pixels, clamped to them (no texel of a neighbouring cell is ever read), times the tint.
//
// Blending: straight (not premultiplied) alpha, "over", in the stored 8-bit values (the
// colour target's bytes as they are, no sRGB decoding: pixel art keeps its exact colours):
//   rgb = src.rgb * src.a + dst.rgb * (1 - src.a),  a = src.a + dst.a * (1 - src.a)
// with src = texel * tint, sprites in ascending depth (equal depths in submission
// order). Texels whose src.a is 0 leave the pixel as it was. The id target takes a
// sprite's id where src.a >= 0.5 (later sprites over earlier ones; id kNoId writes
// nothing); the motion and depth targets are not touched.
//
// Errors (nothing is drawn): kInvalidArgument for an empty pass, a renderer whose context
// is not current, draw() before an upload_sheet() or before the renderer's first
// render(), a batch larger than the capacity, a non-finite or out-of-range number (see
// FlatSprite), a bad texture rectangle; kBadFrame for a frame outside the atlas; kSizeMismatch
// for sheet pixels that are not the atlas's width * height * 4 bytes; kIo for GL errors.
// After create() and upload_sheet(), draw() allocates nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "animpack/gl/renderer.h"
#include "animpack/math.h"
#include "animpack/result.h"
#include "animpack/sprite.h"

namespace animpack::gl {

// The most sprites one pass can hold (FlatSprites::create's capacity).
inline constexpr uint32_t kMaxFlatSprites = 1u << 20;
// The largest |coordinate| of a centre and the largest side of a size, in pixels.
inline constexpr float kMaxFlatExtent = 1 << 20;

// One screen-space sprite of a batch.
struct FlatSprite {
  // Where the frame's pivot goes, in pixels (for an untrimmed frame with its pivot at the
  // centre, or a sprite drawn by `uv`, its centre). Finite, |x|, |y| <= kMaxFlatExtent.
  Vec2 center;
  // The frame's source box on screen, in pixels (the trimmed box is scaled with it; an
  // integer multiple of the source size keeps pixel art crisp). In (0, kMaxFlatExtent].
  Vec2 size{1, 1};
  // The atlas frame (SpritePlayer::frame(tick)); its placement places it.
  uint32_t frame = 0;
  // Or a texture rectangle (SpritePlayer::uv(tick), Atlas::uv): drawn whole, untrimmed,
  // pivot at its centre; `frame` is then ignored. Its edges, times the sheet's size, are
  // rounded to whole texels; it must hold at least one texel and lie inside the sheet
  // ([0, 1], u0 < u1, v0 < v1).
  std::optional<UvRect> uv;
  // Multiplies the texel (straight RGBA, each in [0, 1]).
  Vec4 tint{1, 1, 1, 1};
  // Radians, clockwise on screen, about the pivot. Finite, |rotation| <= 1e4.
  float rotation = 0;
  // The draw order: ascending, so larger depths are drawn over smaller ones; equal depths
  // keep their order in the batch.
  int32_t depth = 0;
  // Written to the id target (Renderer::read_ids) where the sprite shows; kNoId: not
  // pickable (nothing written).
  uint32_t id = kNoId;
};

// A sprite sheet for the CPU twin: RGBA8 pixels (rows top first, as Pack::sprite_pixels)
// and its atlas. The views must outlive the calls that use it.
struct FlatSheet {
  std::span<const uint8_t> rgba;
  const Atlas* atlas = nullptr;
};

// The CPU twin of FlatSprites::draw: draws `batch` over `color` (RGBA8, rows top first)
// and writes ids into `ids` (one per pixel, same rows; may be empty: no ids), by the rules
// at the top of this file. The coverage, the texel chosen and the ids are those of the GL
// pass; a blended byte may differ from GL's by 1 where src.a is neither 0 nor 1 or the
// tint is not 1 (GL's rounding of blend terms is the driver's). Fails as draw() does
// (kInvalidArgument for a null atlas, pixels of the wrong size or an image whose rgba is
// not width * height * 4 bytes, ids of another size than width * height; the batch size
// is not limited), changing nothing.
Result<void> draw_flat_cpu(const FlatSheet& sheet, std::span<const FlatSprite> batch, Image& color,
                           std::span<uint32_t> ids);

class FlatSprites {
 public:
  FlatSprites();
  FlatSprites(FlatSprites&&) noexcept;
  FlatSprites& operator=(FlatSprites&&) noexcept;
  FlatSprites(const FlatSprites&) = delete;
  FlatSprites& operator=(const FlatSprites&) = delete;
  // Deletes its GL objects when the renderer's context is current.
  ~FlatSprites();

  // A pass drawing into `renderer`'s target, up to `capacity` sprites a draw() (1 ..
  // kMaxFlatSprites). The renderer must outlive the pass and stay where it is (the pass
  // keeps its address). Allocates everything draw() needs.
  // kInvalidArgument for a null or empty renderer, a context not current, a capacity out
  // of range; kIo when its shaders fail to compile.
  static Result<FlatSprites> create(Renderer* renderer, uint32_t capacity);

  // Uploads a sheet's pixels (RGBA8, rows top first: Pack::sprite_pixels) and keeps a
  // copy of its atlas, replacing the sheet uploaded before. kInvalidArgument for an atlas
  // without frames or a side over the driver's texture size, kSizeMismatch when rgba is
  // not width * height * 4 bytes.
  Result<void> upload_sheet(std::span<const uint8_t> rgba, const Atlas& atlas);

  // Draws `batch` over the renderer's last render() (call it after each render(): a
  // render() clears the target), by the rules at the top of this file. All sprites are
  // checked first: on an error nothing is drawn. Allocates nothing.
  Result<void> draw(std::span<const FlatSprite> batch);

  // The capacity given to create(); 0 for an empty pass.
  uint32_t capacity() const;
  // The atlas of the sheet uploaded (an empty one before upload_sheet()).
  const Atlas& atlas() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace animpack::gl
