// A small pack for the tracer's tests, built in code (CookedPack + write_pack) around the
// shared skinned column fixture (tests/fixtures/fixture.h):
//
//   object 0 "column"  mesh 0: the skinned column on the fixture rig (rig 0), at the origin
//   object 1 "card"    mesh 1: a static 1 x 2 card in the xy plane (x in [-0.5, 0.5],
//                      y in [0, 2]) showing sprite sheet 0, at (2, 0, 0)
//   object 2 "floater" a sprite of sheet 0 without a card, at (-2, 1, 0)
//   object 3 "arm"     mesh 2: a node rig (rig 1: joints "base" and "arm", the arm one
//                      unit along +x) whose only part, a unit cube centred on its node,
//                      rides joint 1; at (0, 0, -3)
//
// Sheet 0: a 32 x 16 atlas cut into 8 cells of 8 x 8 (4 x 2). Cell f is filled with
// frame_color(f), except that the left half of cell 1 is transparent (alpha 0). Clips:
// "blink" = {0, 1}, "all" = {0, .., 7}.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "animpack/pack.h"
#include "animpack/posed.h"

namespace animpack::trace_test {

inline constexpr int kColumn = 0, kCard = 1, kFloater = 2, kArm = 3;

// A second pack, with a material and a texture: mesh 0 "tile" has part 0, the quad
// x in [-1, 1], y in [0, 2] at z = 0 facing +z, textured (uv (0, 0) at its top-left) by
// material 0 (metallic 1, double-sided, base colour texture 0: the 2 x 2 sRGB checker of
// checker_texel(), nearest), and part 1, the quad x in [1.5, 2.5], without a material.
// Objects "first" at the origin and "second" at z = -5 both show it.
std::vector<uint8_t> textured_pack_bytes();
std::array<uint8_t, 4> checker_texel(uint32_t x, uint32_t y);

// The pack's bytes (from_bytes copies them).
std::vector<uint8_t> pack_bytes();
// The opaque colour of atlas frame f.
std::array<uint8_t, 4> frame_color(uint32_t frame);
// A snapshot of every object: the column posed by `column_palette` (empty: bind pose), the
// arm by `arm_palette`, both sprites showing `frame`. Object matrices from the pack.
Posed posed(const Pack& pack, std::span<const Mat4> column_palette,
            std::span<const Mat4> arm_palette, uint32_t frame);

}  // namespace animpack::trace_test
