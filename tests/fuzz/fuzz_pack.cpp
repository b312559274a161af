// libFuzzer target: Pack::from_bytes on arbitrary bytes, then everything a game would
// touch on an accepted pack. Must never crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "animpack/animator.h"
#include "animpack/pack.h"
#include "animpack/skinning.h"
#include "animpack/sprite.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace animpack;
  auto pack = Pack::from_bytes({data, size});
  if (!pack) return 0;
  (void)pack->shared_bytes();
  for (int r = 0; r < pack->rig_count(); ++r) {
    auto a = Animator::create(&pack->rig(r), 60);
    if (!a) continue;
    for (uint16_t c = 0; c < pack->rig(r).clip_count() && c < 8; ++c) {
      (void)a->play(c, 0);
      (void)a->advance(45);
      a->evaluate(45);
    }
  }
  for (size_t p = 0; p < pack->parts().size(); ++p) {
    auto s = pack->part_streams(static_cast<int>(p));
    if (!s || s->joints.empty()) continue;
    const int rig = pack->meshes()[static_cast<size_t>(pack->parts()[p].mesh)].rig;
    auto a = Animator::create(&pack->rig(rig), 60);
    if (!a) continue;
    std::vector<Vec3> out(s->positions.size());
    (void)skin({s->positions, {}, {}, s->joints, s->weights}, a->palette(), {out, {}, {}});
    // Format 5: eight influences, and the part's morph deltas at its set's default weights.
    std::vector<float> weights;
    const int set = pack->parts()[p].morph_set;
    if (set >= 0) weights = pack->rig(rig).morph_sets()[static_cast<size_t>(set)].default_weights;
    SkinInput in{s->positions, {}, {}, s->joints, s->weights};
    in.joints1 = s->joints1;
    in.weights1 = s->weights1;
    in.morph = s->morph;
    in.morph_weights = weights;
    (void)skin(in, a->palette(), {out, {}, {}});
  }
  for (size_t i = 0; i < pack->sprite_sheets().size(); ++i) {
    (void)pack->sprite_pixels(static_cast<int>(i));
    auto player = SpritePlayer::create(&pack->sprite_sheets()[i], 60);
    if (player && !pack->sprite_sheets()[i].clips().empty()) {
      (void)player->play(uint16_t{0}, 0);
      (void)player->advance(100);
    }
  }
  return 0;
}
