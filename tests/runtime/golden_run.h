// The golden run of the Animator: a scripted 400 ticks of plays, blends, crossfades, a
// speed change and a once clip, hashed over every palette bit and every event. Shared by
// tests/runtime/golden_test.cpp and tests/app_flags (the same run in an application
// built with FMA contraction). The value is the same in Debug and Release, with g++ and
// clang++, on x86-64 and aarch64; a change to it is a change in playback, to be made
// deliberately.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "animpack/animator.h"
#include "fixtures/fixture.h"
#include "fixtures/fnv.h"

namespace animpack::golden {

// The golden value: FNV-1a 64 of the run below.
inline constexpr uint64_t kGoldenHash = 0x6262d0aae939a225;

using fixture::Fnv;

// Sub-tick poses in the run (tests/runtime/subtick_test.cpp): after each tick's
// evaluate(tick) (or evaluate(tick, 0.0f) with zero_fraction), the pose at tick +
// fraction for each of `fractions`, its palettes hashed into *hash. The run's own hash
// must not change with them.
struct SubTicks {
  std::span<const float> fractions;
  uint64_t* hash = nullptr;
  bool zero_fraction = false;
};

inline uint64_t scripted_run(const SubTicks& sub = {}) {
  const Rig rig = fixture::make_rig();
  Animator a = std::move(*Animator::create(&rig, 60));
  const uint16_t step = *rig.find_clip("Step"), linear = *rig.find_clip("Linear"),
                 cubic = *rig.find_clip("Cubic"), rotate = *rig.find_clip("Rotate");
  Fnv fnv, sub_fnv;
  LayerId base;
  for (int64_t tick = 0; tick < 400; ++tick) {
    PlayOptions o;
    switch (tick) {
      case 0: {
        const BlendEntry e[] = {{linear, 0.7f}, {rotate, 0.3f}};
        base = *a.play_blend(e, tick);
        break;
      }
      case 40:
        (void)a.set_speed(base, 1.5f, tick);
        break;
      case 60:
        o.playback = Playback::kPingPong;
        (void)a.crossfade(cubic, 0.5, tick, o);
        break;
      case 100:
        (void)a.blend(step, 0.4f, tick);
        break;
      case 150:
        o.playback = Playback::kOnce;
        (void)a.crossfade(rotate, 0.25, tick, o);
        break;
      case 200:
        o.playback = Playback::kOnce;
        o.start = 0.2;
        (void)a.play(step, tick, o);
        break;
      case 260:
        (void)a.crossfade(linear, 1.0, tick);
        break;
      case 300: {
        const LayerId id = *a.blend(rotate, 0.5f, tick);
        (void)a.set_weight(id, 0.25f);
        break;
      }
      case 340: {
        const BlendEntry e[] = {{step, 1.0f}, {cubic, 2.0f}, {rotate, 3.0f}};
        (void)a.play_blend(e, tick);
        break;
      }
      default:
        break;
    }
    for (const AnimEvent& e : a.advance(tick)) {
      fnv.value(e.tick);
      fnv.value(e.mix);
      fnv.value(e.layer);
      fnv.value(e.clip);
      fnv.value(e.event);
      fnv.value(e.position);
    }
    if (sub.zero_fraction) {
      (void)a.evaluate(tick, 0.0f);
    } else {
      a.evaluate(tick);
    }
    for (const Mat4& m : a.palette()) fnv.bytes(m.m, sizeof m.m);
    for (const float f : sub.fractions) {
      (void)a.evaluate(tick, f);
      for (const Mat4& m : a.palette()) sub_fnv.bytes(m.m, sizeof m.m);
    }
  }
  if (sub.hash != nullptr) *sub.hash = sub_fnv.h;
  return fnv.h;
}

}  // namespace animpack::golden
