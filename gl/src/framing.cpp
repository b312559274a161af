#include "animpack/gl/framing.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "animpack/morph.h"
#include "animpack/skinning.h"

namespace animpack::gl {

namespace {

bool finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

void grow(Box& b, Vec3 p) {
  if (!finite(p)) return;
  b.lo = {std::min(b.lo.x, p.x), std::min(b.lo.y, p.y), std::min(b.lo.z, p.z)};
  b.hi = {std::max(b.hi.x, p.x), std::max(b.hi.y, p.y), std::max(b.hi.z, p.z)};
}

// The weights of a part's morph set out of its object's posed weights (empty: none).
std::span<const float> part_morph_weights(const Pack& pack, const MeshInfo& mesh,
                                          const PartInfo& part, std::span<const float> weights) {
  if (part.morph_set < 0 || mesh.rig < 0 || weights.empty()) return {};
  const std::span<const MorphSet> sets = pack.rig(mesh.rig).morph_sets();
  if (static_cast<size_t>(part.morph_set) >= sets.size()) return {};
  const MorphSet& set = sets[static_cast<size_t>(part.morph_set)];
  if (size_t{set.first} + set.size() > weights.size()) return {};
  return weights.subspan(set.first, set.size());
}

}  // namespace

Box merge_boxes(const Box& a, const Box& b) {
  Box out = a;
  out.merge(b);
  return out;
}

Camera frame_box(const Box& box, float aspect, const FramingOptions& options) {
  // Straight along up there is no look-at with +y up: the default camera, as documented.
  const float len = finite(options.direction) ? length(options.direction) : 0.0f;
  if (!(len > 0.0f) || std::abs(options.direction.y / len) > 0.999f ||
      !(options.fov_y > 0.0f && options.fov_y < 3.14159f)) {
    return Camera{};
  }
  animpack::FramingOptions shared;
  shared.view = options.direction;
  shared.fov_y = std::clamp(options.fov_y, 0.05f, 3.0f);
  shared.margin = options.margin;
  Result<Camera> camera = animpack::camera_for_box(box, aspect, shared);
  return camera ? *camera : Camera{};
}

Box posed_box(const Pack& pack, const Posed& posed) {
  Box box;
  std::vector<Vec3> skinned, morphed;
  for (const PosedObject& o : posed.objects) {
    if (o.object < 0 || static_cast<size_t>(o.object) >= pack.objects().size()) continue;
    if (o.mesh < 0) {
      if (o.sprite_sheet < 0) continue;
      const Vec3 c = transform_point(o.model, {0, 0, 0});
      grow(box, c - Vec3{0.5f, 0.5f, 0.5f});
      grow(box, c + Vec3{0.5f, 0.5f, 0.5f});
      continue;
    }
    if (static_cast<size_t>(o.mesh) >= pack.meshes().size()) continue;
    const MeshInfo& mesh = pack.meshes()[static_cast<size_t>(o.mesh)];
    for (int k = 0; k < mesh.part_count; ++k) {
      const int part = mesh.first_part + k;
      const PartInfo& info = pack.parts()[static_cast<size_t>(part)];
      Result<PartStreams> streams = pack.part_streams(part);
      if (!streams) continue;
      Mat4 m = o.model;
      std::span<const Vec3> positions = streams->positions;
      const std::span<const float> weights = part_morph_weights(pack, mesh, info, o.morph_weights);
      const bool morph = !weights.empty() && streams->morph.targets == weights.size();
      if (info.skinned && !o.palette.empty()) {
        skinned.resize(positions.size());
        SkinInput in{positions,        {}, {}, streams->joints, streams->weights, streams->joints1,
                     streams->weights1};
        if (morph) {
          in.morph = streams->morph;
          in.morph_weights = weights;
        }
        if (!skin(in, o.palette, {skinned, {}, {}})) continue;
        positions = skinned;
      } else if (morph) {
        morphed.resize(positions.size());
        const MorphInput in{positions, {}, {}, streams->morph, weights};
        if (!apply_morph(in, {morphed, {}, {}})) continue;
        positions = morphed;
      }
      if (!info.skinned && info.joint >= 0 && static_cast<size_t>(info.joint) < o.palette.size()) {
        m = mul_affine(o.model, o.palette[static_cast<size_t>(info.joint)]);
      }
      for (const Vec3& p : positions) grow(box, transform_point(m, p));
    }
  }
  return box;
}

Result<Box> world_box(const ScenePlayer& player) {
  Box box;
  for (uint32_t o = 0; o < player.object_count(); ++o) {
    Result<Box> b = player.world_bounds(ObjectId{o});
    if (!b) return b.error();
    box = merge_boxes(box, *b);
  }
  return box;
}

}  // namespace animpack::gl
