// libFuzzer target: the whole path a game takes with a pack, on arbitrary bytes.
// Pack::from_bytes, then on an accepted pack: ScenePlayer::create, 16 steps with a game
// that plays and blends clips and reads every event, posed(), CPU skinning of every part
// with its object's palette, every sprite sheet's pixels, and the tracer's stage of the
// posed snapshot (BVH built). Must never crash, hang, leak or exceed the RSS limit.
#include <cstddef>
#include <cstdint>

#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "animpack/tracer/stage.h"
#include "play_pack.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace animpack;
  auto pack = Pack::from_bytes({data, size});
  if (!pack) return 0;
  auto player = ScenePlayer::create(&*pack, 60);
  if (!player) return 0;
  testing_support::PlayingGame game;
  for (int i = 0; i < 16; ++i) player->step(&game);
  const Posed& posed = player->posed();
  (void)testing_support::skin_posed(*pack, posed);
  for (size_t s = 0; s < pack->sprite_sheets().size(); ++s) {
    (void)pack->sprite_pixels(static_cast<int>(s));
  }
  (void)trace::stage_posed(*pack, posed);
  return 0;
}
