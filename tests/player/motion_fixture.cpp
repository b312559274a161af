#include "motion_fixture.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "animpack/compiler/pack_writer.h"
#include "animpack/layers.h"
#include "fixtures/cooked_fixture.h"
#include "fixtures/fixture.h"

namespace animpack::motion_fixture {
namespace {

template <typename T>
T must(Result<T> r, const char* what) {
  if (!r) {
    std::fprintf(stderr, "motion_fixture: %s: %s\n", what, r.error().message());
    std::abort();
  }
  return std::move(*r);
}

Rig walking_rig() {
  const Rig base = fixture::make_rig();
  std::vector<Clip> clips;
  for (const Clip& c : base.clips()) clips.push_back(c.copy());
  Clip walk("Walk");
  const float times[] = {0.0f, 1.0f};
  const float moves[] = {0, 0, 0, 0, 0, 2};
  walk.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, moves);
  const float turns[] = {0, 0, 0, 1, 0, 0.70710677f, 0, 0.70710677f};
  walk.add_channel(0, Property::kRotation, Interpolation::kLinear, times, turns);
  clips.push_back(std::move(walk));
  clips.push_back(
      must(make_additive_clip(base.clips()[3], base.skeleton(), AdditiveReference::kFirstFrame),
           "additive Rotate"));
  return must(Rig::create(base.skeleton(), std::move(clips)), "walking rig");
}

CookedObject column_object(const char* name) {
  CookedObject o;
  o.name = name;
  o.mesh = 0;
  o.animated = true;
  o.animation.clip = kWalkClip;
  return o;
}

}  // namespace

RootMotionConfig walker_config() {
  RootMotionConfig config;
  config.policy = RootMotionPolicy::kAccumulate;
  config.joint = 0;
  config.extract = kExtractHorizontal | kExtractYaw;
  config.rate = 60;
  return config;  // up +y, forward +z: the mesh's
}

CookedPack make_cooked() {
  CookedPack pack;
  CookedRig rig = fixture::make_cooked_rig();
  rig.rig = walking_rig();
  rig.clip_source_animations = {0, 1, 2, 3, 4, -1};
  pack.rigs.push_back(std::move(rig));
  CookedMesh mesh = fixture::make_cooked_column(0);
  mesh.up = {0, 1, 0};
  mesh.forward = {0, 0, 1};
  pack.meshes.push_back(std::move(mesh));

  CookedObject walker = column_object("walker");
  const RootMotionConfig config = walker_config();
  walker.animation.root_motion = config;
  const Rig& walking = pack.rigs[0].rig;
  for (const Clip& clip : walking.clips()) {
    if (clip.additive() != AdditiveReference::kNone) {
      walker.animation.root_tracks.emplace_back();
      continue;
    }
    walker.animation.root_tracks.push_back(
        must(bake_root_motion(walking.skeleton(), clip, config), "bake"));
  }
  IkSolverDef arm;
  arm.name = "arm";
  arm.kind = IkKind::kTwoBone;
  arm.joints = {1, 2, 3};
  arm.has_pole = true;
  arm.pole = {0, 0, 1};
  IkSolverDef look;
  look.name = "look";
  look.kind = IkKind::kAim;
  look.joints = {3};
  look.weight = 0.5f;
  look.has_target = true;
  look.target = {2, 4, 1};
  look.forward = {0, 1, 0};
  look.up = {0, 0, 1};
  walker.animation.ik = {arm, look};
  pack.objects.push_back(std::move(walker));

  CookedObject stander = column_object("stander");
  RootMotionConfig in_place;
  in_place.policy = RootMotionPolicy::kInPlace;
  stander.animation.root_motion = in_place;
  pack.objects.push_back(std::move(stander));

  pack.objects.push_back(column_object("plain"));
  return pack;
}

Pack make_pack() { return must(Pack::from_bytes(write_pack(make_cooked())), "motion pack"); }

}  // namespace animpack::motion_fixture
