// The scene player's morph test pack, written with the cooker's pack writer: the morph
// rig (tests/runtime/morph_rig.h: sets "face" and "body", clips Smile, Blink, Puff, Walk,
// Mixed) on the fixture column whose parts morph by the face set (three targets moving
// +x by 0.1, 0.2 and 0.3), and the fixture rig's column without morph sets.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "animpack/compiler/cooked.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "fixtures/cooked_fixture.h"
#include "runtime/morph_rig.h"

namespace animpack::morph_fixture {

template <typename T>
inline T must(Result<T> r, const char* what) {
  if (!r) {
    std::fprintf(stderr, "%s: %s\n", what, r.error().message());
    std::abort();
  }
  return std::move(*r);
}

// Objects: 0 "face" (the morph rig's column, playing Smile), 1 "plain" (the fixture rig's
// column, playing Step: no morph sets).
inline Pack make_morph_pack() {
  CookedPack pack;
  CookedRig morph;
  morph.rig = morph_rig::make_rig();
  morph.joint_source_nodes = {0, 1, 2, 3};
  morph.clip_source_animations = {0, 1, 2, 3, 4};
  morph.morph_source_nodes = {4, 5};
  pack.rigs.push_back(std::move(morph));
  pack.rigs.push_back(fixture::make_cooked_rig());

  CookedMesh face = fixture::make_cooked_column(0);
  face.name = "face";
  for (CookedPart& part : face.parts) {
    part.morph_set = 0;
    for (int t = 0; t < 3; ++t) {
      CookedMorphTarget target;
      target.positions.assign(part.positions.size(), Vec3{0.1f * static_cast<float>(t + 1), 0, 0});
      part.morph_targets.push_back(std::move(target));
    }
  }
  pack.meshes.push_back(std::move(face));
  pack.meshes.push_back(fixture::make_cooked_column(1));

  CookedObject o;
  o.name = "face";
  o.mesh = 0;
  o.animated = true;
  o.animation.clip = 0;  // Smile
  pack.objects.push_back(o);
  o.name = "plain";
  o.mesh = 1;
  pack.objects.push_back(o);
  const std::vector<uint8_t> bytes = write_pack(pack);
  return must(Pack::from_bytes(bytes), "morph pack");
}

}  // namespace animpack::morph_fixture
