// A "game" built against the installed package: opens the cooked pack and plays the
// first rig's first clip for a second.
#include <cstdio>

#include "animpack/animator.h"
#include "animpack/pack.h"

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "demo.anpk";
  auto pack = animpack::Pack::open(path);
  if (!pack) {
    std::fprintf(stderr, "game: %s\n", pack.error().message());
    return 1;
  }
  if (pack->rig_count() == 0) return 1;
  auto animator = animpack::Animator::create(&pack->rig(0), 60);
  if (!animator || !animator->play(uint16_t{0}, 0)) return 1;
  size_t events = 0;
  for (int64_t tick = 0; tick < 60; ++tick) {
    events += animator->advance(tick).size();
    animator->evaluate(tick);
  }
  std::printf("game: %s: %d rigs, %zu objects, played 60 ticks of %s\n", path, pack->rig_count(),
              pack->objects().size(), pack->rig(0).clips()[0].name().c_str());
  return 0;
}
