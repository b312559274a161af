// Placed sprite frames on the tracer's cards (Step 7; gl/ draws them the same way, checked
// in tests/gl/placed_sprite_test.cpp): the trimmed, rotated and off-centre-pivot frames of
// fixtures/placed_sprite_fixture.h, every pixel against the placement.
#include <gtest/gtest.h>

#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"
#include "fixtures/placed_sprite_fixture.h"

namespace animpack::trace {
namespace {

// Traces the card showing `frame` into 24 x 24 pixels of a front view 1.5 units high
// (16 pixels a card unit) and counts the pixels that differ from the placement.
int placed_mismatches(uint32_t frame) {
  const std::vector<uint8_t> bytes = write_pack(fixture::make_placed_sprite_pack());
  auto pack = Pack::from_bytes(bytes);
  EXPECT_TRUE(pack);
  if (!pack) return -1;
  Posed posed;
  PosedObject o;
  o.object = 0;
  o.sprite_sheet = 0;
  o.sprite_frame = frame;
  posed.objects.push_back(o);
  auto scene = stage_posed(*pack, posed);
  EXPECT_TRUE(scene) << scene.error().message();
  if (!scene) return -1;
  RenderOptions options;
  options.width = options.height = 24;
  options.camera.orthographic = true;
  options.camera.ortho_height = 1.5f;
  options.camera.eye = {0, 0, 10};
  options.camera.target = {0, 0, 0};
  options.shadows = false;
  options.samples = 1;
  auto traced = render(*scene, options);
  EXPECT_TRUE(traced) << traced.error().message();
  if (!traced) return -1;
  int mismatches = 0;
  for (int y = 0; y < 24; ++y) {
    for (int x = 0; x < 24; ++x) {
      uint8_t want[4];
      const bool on = fixture::placed_sprite_texel(frame, (x + 0.5 - 12.0) / 16.0,
                                                   (12.0 - (y + 0.5)) / 16.0, want);
      const uint32_t id = traced->ids[static_cast<size_t>(y * 24 + x)];
      const Rgba c = traced->color.at(x, y);
      const bool ok = on ? id == object_id(0) && c.r == want[0] && c.g == want[1] && c.b == want[2]
                         : id == kNoObject;
      if (!ok && ++mismatches <= 5) {
        ADD_FAILURE() << "frame " << frame << " pixel " << x << "," << y << ": id " << id
                      << " colour " << int{c.r} << " " << int{c.g} << " " << int{c.b};
      }
    }
  }
  return mismatches;
}

TEST(TracedPlacedSprites, ATrimmedFrameCoversOnlyItsTrimmedBoxOfTheSourceCard) {
  EXPECT_EQ(placed_mismatches(0), 0);
}

TEST(TracedPlacedSprites, ARotatedFrameIsSampledTurnedBack) { EXPECT_EQ(placed_mismatches(1), 0); }

TEST(TracedPlacedSprites, AnOffCentrePivotSitsAtTheObjectsOrigin) {
  EXPECT_EQ(placed_mismatches(2), 0);
}

}  // namespace
}  // namespace animpack::trace
