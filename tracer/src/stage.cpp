#include "animpack/tracer/stage.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "animpack/skinning.h"

namespace animpack::trace {

namespace {

constexpr Vec3 kPalette[] = {
    {0.90f, 0.55f, 0.24f}, {0.35f, 0.67f, 0.90f}, {0.55f, 0.82f, 0.43f}, {0.86f, 0.43f, 0.67f},
    {0.85f, 0.80f, 0.35f}, {0.60f, 0.52f, 0.88f}, {0.40f, 0.80f, 0.78f}, {0.88f, 0.40f, 0.40f},
};

Vec3 unit_or(Vec3 v, Vec3 fallback) {
  const float len = std::sqrt(dot(v, v));
  return len > 0.0f && std::isfinite(len) ? v * (1.0f / len) : fallback;
}

Vec3 column(const Mat4& m, int c) { return {m.m[c * 4 + 0], m.m[c * 4 + 1], m.m[c * 4 + 2]}; }

// Transforms normals by the inverse transpose of m's upper 3x3 (its cofactor matrix,
// signed by the determinant), so that non-uniform scale keeps them perpendicular.
struct NormalMatrix {
  explicit NormalMatrix(const Mat4& m) {
    const Vec3 c0 = column(m, 0), c1 = column(m, 1), c2 = column(m, 2);
    x = cross(c1, c2);
    y = cross(c2, c0);
    z = cross(c0, c1);
    if (dot(c0, x) < 0.0f) {
      x = x * -1.0f;
      y = y * -1.0f;
      z = z * -1.0f;
    }
  }
  Vec3 apply(Vec3 n) const { return x * n.x + y * n.y + z * n.z; }
  Vec3 x, y, z;
};

Error invalid(const char* what, int index) {
  return Error::make(ErrorCode::kInvalidArgument, "posed snapshot: %s %d is not in the pack", what,
                     index);
}

// A card's texture coordinates, as gl/ makes them: from its part's x, y bounds in mesh
// space, u = (x - min x) / (max x - min x), v = (max y - y) / (max y - min y) (0.5 across
// a zero extent).
Uv card_uv(Vec3 p, const Aabb& box) {
  const Vec3 e = box.extent();
  return {e.x > 0.0f ? (p.x - box.lo.x) / e.x : 0.5f, e.y > 0.0f ? (box.hi.y - p.y) / e.y : 0.5f};
}

}  // namespace

Vec3 object_color(int object) {
  const int n = static_cast<int>(sizeof kPalette / sizeof kPalette[0]);
  return kPalette[((object % n) + n) % n];
}

TraceScene::TraceScene() { materials_.push_back(Material{}); }

uint32_t TraceScene::add_material(const Material& material) {
  materials_.push_back(material);
  return static_cast<uint32_t>(materials_.size() - 1);
}

uint32_t TraceScene::add_texture(Texture texture) {
  textures_.push_back(std::move(texture));
  return static_cast<uint32_t>(textures_.size() - 1);
}

Result<void> TraceScene::add_mesh(const MeshInput& mesh) {
  const size_t n = mesh.positions.size();
  if (mesh.indices.size() % 3 != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "index count %zu is not a multiple of 3",
                       mesh.indices.size());
  }
  if (!mesh.normals.empty() && mesh.normals.size() != n) {
    return Error::make(ErrorCode::kInvalidArgument, "%zu normals for %zu positions",
                       mesh.normals.size(), n);
  }
  if (mesh.material >= materials_.size()) {
    return Error::make(ErrorCode::kInvalidArgument, "no material %u", mesh.material);
  }
  const Material& mat = materials_[mesh.material];
  if (mat.texture >= 0) {
    if (static_cast<size_t>(mat.texture) >= textures_.size()) {
      return Error::make(ErrorCode::kInvalidArgument, "material %u: no texture %d", mesh.material,
                         mat.texture);
    }
    const Texture& tex = textures_[static_cast<size_t>(mat.texture)];
    if (mat.rect.width == 0 || mat.rect.height == 0 || mat.rect.x > tex.width ||
        mat.rect.width > tex.width - mat.rect.x || mat.rect.y > tex.height ||
        mat.rect.height > tex.height - mat.rect.y ||
        tex.rgba.size() != static_cast<size_t>(tex.width) * tex.height * 4) {
      return Error::make(ErrorCode::kInvalidArgument, "material %u: rect outside its texture",
                         mesh.material);
    }
    if (mesh.uvs.size() != n) {
      return Error::make(ErrorCode::kInvalidArgument, "%zu texture coordinates for %zu positions",
                         mesh.uvs.size(), n);
    }
  } else if (!mesh.uvs.empty() && mesh.uvs.size() != n) {
    return Error::make(ErrorCode::kInvalidArgument, "%zu texture coordinates for %zu positions",
                       mesh.uvs.size(), n);
  }
  for (uint32_t i : mesh.indices) {
    if (i >= n) {
      return Error::make(ErrorCode::kInvalidArgument, "index %u outside %zu positions", i, n);
    }
  }
  const size_t count = mesh.indices.size() / 3;
  triangles_.reserve(triangles_.size() + count);
  for (size_t t = 0; t < count; ++t) {
    const uint32_t i0 = mesh.indices[3 * t], i1 = mesh.indices[3 * t + 1],
                   i2 = mesh.indices[3 * t + 2];
    const Triangle tri{mesh.positions[i0], mesh.positions[i1], mesh.positions[i2]};
    triangles_.push_back(tri);
    if (is_finite(tri)) {
      bounds_.grow(tri.a);
      bounds_.grow(tri.b);
      bounds_.grow(tri.c);
    }
    if (mesh.normals.empty()) {
      normals_.push_back({});
    } else {
      normals_.push_back({mesh.normals[i0], mesh.normals[i1], mesh.normals[i2]});
    }
    if (mesh.uvs.empty()) {
      uvs_.push_back({});
    } else {
      uvs_.push_back({mesh.uvs[i0], mesh.uvs[i1], mesh.uvs[i2]});
    }
    object_ids_.push_back(mesh.object_id);
    material_of_.push_back(mesh.material);
  }
  built_ = false;
  bvh_ = Bvh{};
  return ok();
}

void TraceScene::build(const BvhOptions& options) {
  bvh_ = Bvh::build(triangles_, options);
  built_ = true;
}

std::array<uint8_t, 4> TraceScene::texel(uint32_t triangle, float u, float v) const {
  const Material& mat = materials_[material_of_[triangle]];
  const Texture& tex = textures_[static_cast<size_t>(mat.texture)];
  const std::array<Uv, 3>& c = uvs_[triangle];
  const float w = 1.0f - u - v;
  const float tu = c[0].u * w + c[1].u * u + c[2].u * v;
  const float tv = c[0].v * w + c[1].v * u + c[2].v * v;
  auto pick = [](float f, uint32_t size) {
    const float p = std::floor(f * static_cast<float>(size));
    if (!(p > 0.0f)) return 0u;  // also NaN
    return std::min(static_cast<uint32_t>(std::min(p, 1e9f)), size - 1);
  };
  const uint32_t x = mat.rect.x + pick(tu, mat.rect.width);
  const uint32_t y = mat.rect.y + pick(tv, mat.rect.height);
  const uint8_t* p = &tex.rgba[(static_cast<size_t>(y) * tex.width + x) * 4];
  return {p[0], p[1], p[2], p[3]};
}

bool TraceScene::is_hole(uint32_t triangle, float u, float v) const {
  const Material& mat = materials_[material_of_[triangle]];
  if (mat.texture < 0) return false;
  return texel(triangle, u, v)[3] < mat.alpha_cutoff;
}

namespace {

class HoleFilter final : public HitFilter {
 public:
  explicit HoleFilter(const TraceScene* scene) : scene_(scene) {}
  bool accept(uint32_t triangle, const TriangleHit& hit) const override {
    return !scene_->is_hole(triangle, hit.u, hit.v);
  }

 private:
  const TraceScene* scene_;
};

}  // namespace

bool TraceScene::closest(const Ray& ray, Hit* out_hit) const {
  const HoleFilter filter(this);
  return bvh_.closest(ray, out_hit, textures_.empty() ? nullptr : &filter);
}

bool TraceScene::occluded(const Ray& ray) const {
  const HoleFilter filter(this);
  return bvh_.any(ray, textures_.empty() ? nullptr : &filter);
}

Surface TraceScene::surface(const Ray& ray, const Hit& hit) const {
  Surface s;
  const Triangle& tri = triangles_[hit.triangle];
  const float w = 1.0f - hit.u - hit.v;
  s.position = tri.a * w + tri.b * hit.u + tri.c * hit.v;
  const Vec3 toward = ray.direction * -1.0f;
  Vec3 g = unit_or(cross(tri.b - tri.a, tri.c - tri.a), toward);
  if (dot(g, toward) < 0.0f) g = g * -1.0f;
  s.geometric_normal = g;
  const std::array<Vec3, 3>& n = normals_[hit.triangle];
  Vec3 shading = unit_or(n[0] * w + n[1] * hit.u + n[2] * hit.v, g);
  if (dot(shading, g) < 0.0f) shading = shading * -1.0f;  // the side the ray sees
  s.normal = shading;
  const Material& mat = materials_[material_of_[hit.triangle]];
  s.unlit = mat.unlit;
  if (mat.texture >= 0) {
    const std::array<uint8_t, 4> t = texel(hit.triangle, hit.u, hit.v);
    s.color = {t[0] / 255.0f, t[1] / 255.0f, t[2] / 255.0f};
  } else {
    s.color = mat.color;
  }
  s.object_id = object_ids_[hit.triangle];
  return s;
}

Result<TraceScene> stage_posed(const Pack& pack, const Posed& posed, const StageOptions& options) {
  TraceScene scene;
  std::vector<Vec3> skinned, skinned_normals, world, world_normals;
  std::vector<Uv> uvs;
  std::vector<int> sheet_texture(pack.sprite_sheets().size(), -1);

  // The scene texture of a sprite sheet (its pixels copied once).
  auto texture_of = [&](int sheet) -> Result<int> {
    int& slot = sheet_texture[static_cast<size_t>(sheet)];
    if (slot >= 0) return slot;
    Result<std::span<const uint8_t>> pixels = pack.sprite_pixels(sheet);
    if (!pixels) return pixels.error();
    const Size size = pack.sprite_sheets()[static_cast<size_t>(sheet)].atlas().size();
    Texture tex;
    tex.width = size.width;
    tex.height = size.height;
    tex.rgba.assign(pixels->begin(), pixels->end());
    slot = static_cast<int>(scene.add_texture(std::move(tex)));
    return slot;
  };

  for (const PosedObject& o : posed.objects) {
    if (o.object < 0 || static_cast<size_t>(o.object) >= pack.objects().size()) {
      return invalid("object", o.object);
    }
    if (o.mesh >= static_cast<int>(pack.meshes().size())) return invalid("mesh", o.mesh);
    if (o.sprite_sheet >= static_cast<int>(pack.sprite_sheets().size())) {
      return invalid("sprite sheet", o.sprite_sheet);
    }
    const uint32_t id = object_id(o.object);
    Material material;
    material.color = options.colors.empty()
                         ? object_color(o.object)
                         : options.colors[static_cast<size_t>(o.object) % options.colors.size()];
    if (o.sprite_sheet >= 0) {
      const Atlas& atlas = pack.sprite_sheets()[static_cast<size_t>(o.sprite_sheet)].atlas();
      if (o.sprite_frame >= atlas.frame_count()) {
        return Error::make(ErrorCode::kBadFrame,
                           "posed snapshot: object %d shows frame %u of a sheet of %u", o.object,
                           o.sprite_frame, atlas.frame_count());
      }
      Result<int> tex = texture_of(o.sprite_sheet);
      if (!tex) return tex.error();
      material.texture = *tex;
      material.rect = atlas.frames()[o.sprite_frame];
      material.unlit = true;
    }
    const uint32_t mat = scene.add_material(material);

    if (o.mesh < 0) {
      if (o.sprite_sheet < 0 || !options.cardless_sprites) continue;
      const PixelRect r = material.rect;
      const float half_w = 0.5f * static_cast<float>(r.width) / static_cast<float>(r.height);
      const Vec3 corners[4] = {
          {-half_w, -0.5f, 0}, {half_w, -0.5f, 0}, {half_w, 0.5f, 0}, {-half_w, 0.5f, 0}};
      const Uv quad_uv[4] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
      const NormalMatrix nm(o.model);
      const Vec3 normal = unit_or(nm.apply({0, 0, 1}), {0, 0, 1});
      Vec3 p[4], n[4];
      for (int k = 0; k < 4; ++k) {
        p[k] = transform_point(o.model, corners[k]);
        n[k] = normal;
      }
      const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
      if (auto r2 = scene.add_mesh({p, n, quad_uv, idx, id, mat}); !r2) return r2.error();
      continue;
    }

    const MeshInfo& mesh = pack.meshes()[static_cast<size_t>(o.mesh)];
    for (int k = 0; k < mesh.part_count; ++k) {
      const int part_index = mesh.first_part + k;
      const PartInfo& part = pack.parts()[static_cast<size_t>(part_index)];
      Result<PartStreams> s = pack.part_streams(part_index);
      if (!s) return s.error();
      std::span<const Vec3> pos = s->positions, nrm = s->normals;
      Mat4 m = o.model;
      if (part.skinned && !o.palette.empty()) {
        skinned.resize(pos.size());
        skinned_normals.resize(nrm.size());
        if (auto r = skin({pos, nrm, {}, s->joints, s->weights}, o.palette,
                          {skinned, skinned_normals, {}});
            !r) {
          return r.error();
        }
        pos = skinned;
        nrm = skinned_normals;
      } else if (part.joint >= 0 && !o.palette.empty()) {
        if (static_cast<size_t>(part.joint) >= o.palette.size()) {
          return Error::make(ErrorCode::kBadJointIndex,
                             "posed snapshot: part %d rides joint %d of a palette of %zu",
                             part_index, part.joint, o.palette.size());
        }
        m = mul_affine(o.model, o.palette[static_cast<size_t>(part.joint)]);
      }
      const NormalMatrix nm(m);
      world.resize(pos.size());
      for (size_t v = 0; v < pos.size(); ++v) world[v] = transform_point(m, pos[v]);
      world_normals.resize(nrm.size());
      for (size_t v = 0; v < nrm.size(); ++v) world_normals[v] = unit_or(nm.apply(nrm[v]), {});
      uvs.clear();
      if (material.texture >= 0) {
        Aabb card_box;
        for (const Vec3& p : s->positions) card_box.grow(p);
        for (const Vec3& p : s->positions) uvs.push_back(card_uv(p, card_box));
      }
      if (auto r = scene.add_mesh({world, world_normals, uvs, s->indices, id, mat}); !r) {
        return r.error();
      }
    }
  }
  scene.build(options.bvh);
  return scene;
}

}  // namespace animpack::trace
