// The pack the GL scene and sprite tests draw, written with the pack writer:
//   mesh 0 "column": the fixture's skinned column (rig 0, the fixture rig);
//   mesh 1 "arm": a 0.6-wide square riding joint 1 ("arm") of node rig 1, whose clip
//          "Swing" moves the arm from (0, 1, 0) to (0, 3, 0) over one second;
//   mesh 2 "card": a unit square in x, y (a sprite card);
//   sheet 0: a 64 x 32 atlas of 16 x 16 frames (8), clips "run" {0 1 2 3} at 12 fps and
//            "idle" {4 5} ping-pong at 4 fps; texel (x, y) is (4x, 8y, 100, 255) except
//            the top-right texel of each frame, which is transparent;
//   objects: 0 "column" (mesh 0), 1 "arm" (mesh 1), 2 "hero" (sprite, no card),
//            3 "sign" (sprite on mesh 2).
#pragma once

#include <cstdint>
#include <vector>

#include "animpack/compiler/cooked.h"

namespace animpack::gl::testing {

inline constexpr uint32_t kAtlasWidth = 64;
inline constexpr uint32_t kAtlasHeight = 32;

CookedPack make_test_pack();
// The atlas texel (x, y) as RGBA.
void atlas_texel(uint32_t x, uint32_t y, uint8_t out[4]);

// The materials pack: mesh 0 "board", three unit quads facing +z centred at x = -1, 0, 1
// (uvs u right, v down): the left one material 0 "checker" (OPAQUE, base colour texture 0,
// nearest, clamped), the middle one no material (-1) with vertex colours turning blue at
// its top, the right one material 1 "holes" (MASK with the same texture); texture 0 is a
// 4 x 4 sRGB checker whose light cells are opaque yellow and dark cells transparent
// near-black; object 0 "board" shows mesh 0, not animated.
CookedPack make_board_pack();
// Whether the checker's cell (cx, cy) is light.
bool light_cell(int cx, int cy);

}  // namespace animpack::gl::testing
