#include "animpack/tracer/stage.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "animpack/morph.h"
#include "animpack/skinning.h"
#include "animpack/tracer/shading.h"

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

// Vertex streams a triangle has (TraceScene::flags_).
constexpr uint8_t kHasNormals = 1, kHasTangents = 2, kHasColors = 4;

Vec4 lerp4(Vec4 a, Vec4 b, float t) {
  return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t,
          a.w + (b.w - a.w) * t};
}
Vec4 mul4(Vec4 a, Vec4 b) { return {a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w}; }

// One texel as linear RGBA: sRGB colour channels decoded (the exact curve), alpha and
// linear textures as byte / 255.
Vec4 texel_linear(const Texture& tex, uint32_t x, uint32_t y) {
  const uint8_t* p = &tex.rgba[(static_cast<size_t>(y) * tex.width + x) * 4];
  if (tex.color_space == ColorSpace::kSrgb) {
    const std::array<float, 256>& d = srgb_decode_table();
    return {d[p[0]], d[p[1]], d[p[2]], p[3] / 255.0f};
  }
  return {p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f, p[3] / 255.0f};
}

// A texture coordinate brought into the range one period of its wrap mode covers ([0, 1]
// clamped, [0, 1) repeated, [0, 2) mirrored), so that the texel index stays small; 0 for
// NaN and infinities.
double reduce(double c, Wrap wrap) {
  if (!std::isfinite(c)) return 0.0;
  switch (wrap) {
    case Wrap::kClampToEdge:
      return std::clamp(c, 0.0, 1.0);
    case Wrap::kMirroredRepeat:
      return c - 2.0 * std::floor(c * 0.5);
    case Wrap::kRepeat:
    default:
      return c - std::floor(c);
  }
}

// Texel index i (any integer near [0, n)) wrapped into [0, n).
uint32_t wrap_index(int64_t i, uint32_t n, Wrap wrap) {
  const auto size = static_cast<int64_t>(n);
  switch (wrap) {
    case Wrap::kClampToEdge:
      return static_cast<uint32_t>(std::clamp<int64_t>(i, 0, size - 1));
    case Wrap::kMirroredRepeat: {
      const int64_t m = ((i % (2 * size)) + 2 * size) % (2 * size);
      return static_cast<uint32_t>(m < size ? m : 2 * size - 1 - m);
    }
    case Wrap::kRepeat:
    default:
      return static_cast<uint32_t>(((i % size) + size) % size);
  }
}

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

namespace {

// Whether `ref` names a texture of `textures` with a rect inside it and the right size.
bool texture_fits(const TextureRef& ref, std::span<const Texture> textures) {
  if (ref.texture < 0) return true;
  if (static_cast<size_t>(ref.texture) >= textures.size()) return false;
  if (ref.uv_set < 0 || ref.uv_set > 1) return false;
  const Texture& tex = textures[static_cast<size_t>(ref.texture)];
  if (tex.width == 0 || tex.height == 0 ||
      tex.rgba.size() != static_cast<size_t>(tex.width) * tex.height * 4) {
    return false;
  }
  const PixelRect& r = ref.rect;
  if (r.width == 0 || r.height == 0) return true;  // the whole texture
  return r.x <= tex.width && r.width <= tex.width - r.x && r.y <= tex.height &&
         r.height <= tex.height - r.y;
}

}  // namespace

Result<void> TraceScene::add_mesh(const MeshInput& mesh) {
  const size_t n = mesh.positions.size();
  if (mesh.indices.size() % 3 != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "index count %zu is not a multiple of 3",
                       mesh.indices.size());
  }
  auto stream = [n](size_t size, const char* what) -> Result<void> {
    if (size != 0 && size != n) {
      return Error::make(ErrorCode::kInvalidArgument, "%zu %s for %zu positions", size, what, n);
    }
    return ok();
  };
  if (auto r = stream(mesh.normals.size(), "normals"); !r) return r;
  if (auto r = stream(mesh.uvs.size(), "texture coordinates (set 0)"); !r) return r;
  if (auto r = stream(mesh.uvs1.size(), "texture coordinates (set 1)"); !r) return r;
  if (auto r = stream(mesh.colors.size(), "colours"); !r) return r;
  if (auto r = stream(mesh.tangents.size(), "tangents"); !r) return r;
  if (mesh.material >= materials_.size()) {
    return Error::make(ErrorCode::kInvalidArgument, "no material %u", mesh.material);
  }
  const Material& mat = materials_[mesh.material];
  for (const TextureRef* ref :
       {&mat.base_color_texture, &mat.metallic_roughness_texture, &mat.normal_texture,
        &mat.occlusion_texture, &mat.emissive_texture}) {
    if (!texture_fits(*ref, textures_)) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "material %u: texture %d, its uv set or its rect does not fit",
                         mesh.material, ref->texture);
    }
    if (ref->texture >= 0 && (ref->uv_set == 1 ? mesh.uvs1 : mesh.uvs).empty()) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "material %u samples texture coordinate set %d, which the mesh lacks",
                         mesh.material, ref->uv_set);
    }
  }
  for (uint32_t i : mesh.indices) {
    if (i >= n) {
      return Error::make(ErrorCode::kInvalidArgument, "index %u outside %zu positions", i, n);
    }
  }
  if (normals_.size() + n > UINT32_MAX) {
    return Error::make(ErrorCode::kInvalidArgument, "more than 2^32 vertices in one scene");
  }
  const auto base = static_cast<uint32_t>(normals_.size());
  auto append = [n](auto& dst, auto src, auto fallback) {
    if (src.empty()) {
      dst.resize(dst.size() + n, fallback);
    } else {
      dst.insert(dst.end(), src.begin(), src.end());
    }
  };
  append(normals_, mesh.normals, Vec3{});
  append(tangents_, mesh.tangents, Vec4{});
  append(uvs0_, mesh.uvs, Uv{});
  append(uvs1_, mesh.uvs1, Uv{});
  append(colors_, mesh.colors, Vec4{1, 1, 1, 1});
  const uint8_t flags = static_cast<uint8_t>((mesh.normals.empty() ? 0 : kHasNormals) |
                                             (mesh.tangents.empty() ? 0 : kHasTangents) |
                                             (mesh.colors.empty() ? 0 : kHasColors));
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
    corners_.push_back({base + i0, base + i1, base + i2});
    flags_.push_back(flags);
    object_ids_.push_back(mesh.object_id);
    material_of_.push_back(mesh.material);
  }
  if (!mat.double_sided || mat.alpha_mode != AlphaMode::kOpaque) filtered_ = true;
  built_ = false;
  bvh_ = Bvh{};
  return ok();
}

void TraceScene::build(const BvhOptions& options) {
  bvh_ = Bvh::build(triangles_, options);
  built_ = true;
}

Vec4 TraceScene::sample(const TextureRef& ref, Uv uv) const {
  const Texture& tex = textures_[static_cast<size_t>(ref.texture)];
  double u = uv.u, v = uv.v;
  const UvTransform& t = ref.transform;
  if (t.rotation != 0.0f || t.scale[0] != 1.0f || t.scale[1] != 1.0f || t.offset[0] != 0.0f ||
      t.offset[1] != 0.0f) {
    const double c = std::cos(static_cast<double>(t.rotation));
    const double s = std::sin(static_cast<double>(t.rotation));
    const double su = u * t.scale[0], sv = v * t.scale[1];
    u = t.offset[0] + c * su + s * sv;
    v = t.offset[1] - s * su + c * sv;
  }
  PixelRect r = ref.rect;
  if (r.width == 0 || r.height == 0) r = {0, 0, tex.width, tex.height};
  auto at = [&](uint32_t x, uint32_t y) { return texel_linear(tex, r.x + x, r.y + y); };
  const double cu = reduce(u, ref.wrap_s), cv = reduce(v, ref.wrap_t);
  if (ref.nearest) {
    const auto x = static_cast<int64_t>(std::floor(cu * r.width));
    const auto y = static_cast<int64_t>(std::floor(cv * r.height));
    return at(wrap_index(x, r.width, ref.wrap_s), wrap_index(y, r.height, ref.wrap_t));
  }
  const double fx = cu * r.width - 0.5, fy = cv * r.height - 0.5;
  const double x0 = std::floor(fx), y0 = std::floor(fy);
  const auto ax = static_cast<float>(fx - x0), ay = static_cast<float>(fy - y0);
  const auto ix = static_cast<int64_t>(x0), iy = static_cast<int64_t>(y0);
  const uint32_t xa = wrap_index(ix, r.width, ref.wrap_s),
                 xb = wrap_index(ix + 1, r.width, ref.wrap_s);
  const uint32_t ya = wrap_index(iy, r.height, ref.wrap_t),
                 yb = wrap_index(iy + 1, r.height, ref.wrap_t);
  const Vec4 top = lerp4(at(xa, ya), at(xb, ya), ax);
  const Vec4 bottom = lerp4(at(xa, yb), at(xb, yb), ax);
  return lerp4(top, bottom, ay);
}

Uv TraceScene::uv_at(uint32_t triangle, int set, float u, float v) const {
  const std::vector<Uv>& uvs = set == 1 ? uvs1_ : uvs0_;
  const std::array<uint32_t, 3>& c = corners_[triangle];
  const float w = 1.0f - u - v;
  return {uvs[c[0]].u * w + uvs[c[1]].u * u + uvs[c[2]].u * v,
          uvs[c[0]].v * w + uvs[c[1]].v * u + uvs[c[2]].v * v};
}

float TraceScene::alpha(uint32_t triangle, float u, float v) const {
  const Material& mat = materials_[material_of_[triangle]];
  float a = mat.base_color.w;
  if (mat.base_color_texture.texture >= 0) {
    a *= sample(mat.base_color_texture, uv_at(triangle, mat.base_color_texture.uv_set, u, v)).w;
  }
  if (flags_[triangle] & kHasColors) {
    const std::array<uint32_t, 3>& c = corners_[triangle];
    a *= colors_[c[0]].w * (1.0f - u - v) + colors_[c[1]].w * u + colors_[c[2]].w * v;
  }
  return a;
}

bool TraceScene::is_hole(uint32_t triangle, float u, float v) const {
  const Material& mat = materials_[material_of_[triangle]];
  if (mat.alpha_mode != AlphaMode::kMask) return false;
  return !(alpha(triangle, u, v) >= mat.alpha_cutoff);
}

bool TraceScene::from_behind(const Ray& ray, uint32_t triangle) const {
  const Triangle& tri = triangles_[triangle];
  return dot(cross(tri.b - tri.a, tri.c - tri.a), ray.direction) > 0.0f;
}

bool TraceScene::hit_counts(const Ray& ray, uint32_t triangle, float u, float v) const {
  const Material& mat = materials_[material_of_[triangle]];
  if (!mat.double_sided && from_behind(ray, triangle)) return false;
  return !is_hole(triangle, u, v);
}

namespace {

// What counts as a hit for one ray: hit_counts(), beyond a previous hit when given, and
// (shadow rays) not BLEND.
class SceneFilter final : public HitFilter {
 public:
  SceneFilter(const TraceScene* scene, const Ray* ray, const Hit* after, bool skip_blend)
      : scene_(scene), ray_(ray), after_(after), skip_blend_(skip_blend) {}
  bool accept(uint32_t triangle, const TriangleHit& hit) const override {
    if (after_ && !(hit.t > after_->t)) return false;
    if (skip_blend_ && scene_->materials()[scene_->triangle_materials()[triangle]].alpha_mode ==
                           AlphaMode::kBlend) {
      return false;
    }
    return scene_->hit_counts(*ray_, triangle, hit.u, hit.v);
  }

 private:
  const TraceScene* scene_;
  const Ray* ray_;
  const Hit* after_;
  bool skip_blend_;
};

}  // namespace

bool TraceScene::closest(const Ray& ray, Hit* out_hit) const {
  const SceneFilter filter(this, &ray, nullptr, false);
  return bvh_.closest(ray, out_hit, filtered_ ? &filter : nullptr);
}

bool TraceScene::next(const Ray& ray, const Hit& after, Hit* out_hit) const {
  Ray beyond = ray;
  beyond.t_min = std::max(ray.t_min, after.t);  // the filter keeps only hits beyond it
  const SceneFilter filter(this, &beyond, &after, false);
  return bvh_.closest(beyond, out_hit, &filter);
}

bool TraceScene::occluded(const Ray& ray) const {
  const SceneFilter filter(this, &ray, nullptr, true);
  return bvh_.any(ray, filtered_ ? &filter : nullptr);
}

Surface TraceScene::surface(const Ray& ray, const Hit& hit) const {
  Surface s;
  const uint32_t t = hit.triangle;
  const Triangle& tri = triangles_[t];
  const float w = 1.0f - hit.u - hit.v;
  s.position = tri.a * w + tri.b * hit.u + tri.c * hit.v;
  const Vec3 toward = ray.direction * -1.0f;
  const Vec3 front = unit_or(cross(tri.b - tri.a, tri.c - tri.a), toward);
  const bool behind = dot(front, toward) < 0.0f;
  const Vec3 g = behind ? front * -1.0f : front;  // facing the ray
  s.geometric_normal = g;
  const std::array<uint32_t, 3>& c = corners_[t];
  auto interp3 = [&](const std::vector<Vec3>& a) {
    return a[c[0]] * w + a[c[1]] * hit.u + a[c[2]] * hit.v;
  };
  auto interp4 = [&](const std::vector<Vec4>& a) {
    return Vec4{a[c[0]].x * w + a[c[1]].x * hit.u + a[c[2]].x * hit.v,
                a[c[0]].y * w + a[c[1]].y * hit.u + a[c[2]].y * hit.v,
                a[c[0]].z * w + a[c[1]].z * hit.u + a[c[2]].z * hit.v,
                a[c[0]].w * w + a[c[1]].w * hit.u + a[c[2]].w * hit.v};
  };
  const Material& mat = materials_[material_of_[t]];
  // The interpolated vertex normal, turned to the viewer when the triangle is seen from
  // behind; the face normal without vertex normals.
  Vec3 n = g;
  if (flags_[t] & kHasNormals) {
    n = unit_or(interp3(normals_), front);
    if (behind) n = n * -1.0f;
  }
  auto sample_at = [&](const TextureRef& ref) {
    return sample(ref, uv_at(t, ref.uv_set, hit.u, hit.v));
  };
  if (mat.normal_texture.texture >= 0 && (flags_[t] & kHasTangents)) {
    const Vec4 t4 = interp4(tangents_);
    const Vec3 tangent{t4.x, t4.y, t4.z};
    const float len = std::sqrt(dot(tangent, tangent));
    if (len > 0.0f && std::isfinite(len)) {
      const Vec3 tu = tangent * (1.0f / len);
      const float sign = tangents_[c[0]].w < 0.0f ? -1.0f : 1.0f;
      const Vec3 b = cross(n, tu) * sign;
      const Vec4 texel = sample_at(mat.normal_texture);
      const float tx = (2.0f * texel.x - 1.0f) * mat.normal_scale;
      const float ty = (2.0f * texel.y - 1.0f) * mat.normal_scale;
      const float tz = 2.0f * texel.z - 1.0f;
      n = unit_or(tu * tx + b * ty + n * tz, n);
    }
  }
  s.normal = n;
  Vec4 base = mat.base_color;
  if (mat.base_color_texture.texture >= 0) base = mul4(base, sample_at(mat.base_color_texture));
  if (flags_[t] & kHasColors) base = mul4(base, interp4(colors_));
  s.base = base;
  float metallic = mat.metallic, roughness = mat.roughness;
  if (mat.metallic_roughness_texture.texture >= 0) {
    const Vec4 mr = sample_at(mat.metallic_roughness_texture);
    metallic *= mr.z;
    roughness *= mr.y;
  }
  s.metallic = std::clamp(metallic, 0.0f, 1.0f);
  s.roughness = std::clamp(roughness, 0.045f, 1.0f);
  if (mat.occlusion_texture.texture >= 0) {
    s.occlusion = 1.0f + mat.occlusion_strength * (sample_at(mat.occlusion_texture).x - 1.0f);
  }
  s.emissive = mat.emissive * mat.emissive_strength;
  if (mat.emissive_texture.texture >= 0) {
    const Vec4 e = sample_at(mat.emissive_texture);
    s.emissive = {s.emissive.x * e.x, s.emissive.y * e.y, s.emissive.z * e.z};
  }
  s.alpha_mode = mat.alpha_mode;
  s.unlit = mat.unlit;
  s.object_id = object_ids_[t];
  return s;
}

namespace {

// The scene's side of a pack's material slots: the pack texture copied in once (by
// `texture_of`), the slot's sampler and transform.
template <typename TextureOf>
Result<TextureRef> resolve(const TextureSlot& slot, TextureOf& texture_of) {
  TextureRef ref;
  if (slot.texture < 0) return ref;
  Result<int> tex = texture_of(slot.texture);
  if (!tex) return tex.error();
  ref.texture = *tex;
  ref.uv_set = slot.uv_set == 1 ? 1 : 0;
  ref.wrap_s = slot.wrap_s;
  ref.wrap_t = slot.wrap_t;
  ref.nearest = slot.mag_filter == Filter::kNearest;
  if (slot.has_transform) ref.transform = slot.transform;
  return ref;
}

// The determinant of m's upper 3x3: negative when m mirrors (and so flips the winding).
float determinant3(const Mat4& m) { return dot(column(m, 0), cross(column(m, 1), column(m, 2))); }

// The weights of a part's morph set out of its object's posed weights (pack format 5);
// empty when the part has no morph set or the snapshot no weights (the base shape).
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

Result<TraceScene> stage_posed(const Pack& pack, const Posed& posed, const StageOptions& options) {
  TraceScene scene;
  std::vector<Vec3> skinned, skinned_normals, world, world_normals;
  std::vector<Vec4> skinned_tangents, world_tangents;
  std::vector<Uv> uvs, uvs1;
  std::vector<uint32_t> flipped;
  std::vector<int> sheet_texture(pack.sprite_sheets().size(), -1);
  std::vector<int> pack_texture(pack.textures().size(), -1);
  // Scene material per (pack material, object colour): pack materials once each, the
  // default material once per object.
  std::vector<int> pack_material(pack.materials().size(), -1);

  // The scene texture of a sprite sheet (its pixels copied once).
  auto sheet_texture_of = [&](int sheet) -> Result<int> {
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
  // The scene texture of a pack texture (its pixels copied once).
  auto texture_of = [&](int index) -> Result<int> {
    if (index < 0 || static_cast<size_t>(index) >= pack_texture.size()) {
      return Error::make(ErrorCode::kBadPack, "a material uses texture %d of %zu", index,
                         pack_texture.size());
    }
    int& slot = pack_texture[static_cast<size_t>(index)];
    if (slot >= 0) return slot;
    Result<std::span<const uint8_t>> pixels = pack.texture_pixels(index);
    if (!pixels) return pixels.error();
    const TextureInfo& info = pack.textures()[static_cast<size_t>(index)];
    if (pixels->size() != static_cast<size_t>(info.width) * info.height * 4 || info.width == 0 ||
        info.height == 0) {
      return Error::make(ErrorCode::kBadPack, "texture %d: %zu bytes for %ux%u pixels", index,
                         pixels->size(), info.width, info.height);
    }
    Texture tex;
    tex.width = info.width;
    tex.height = info.height;
    tex.color_space = info.color_space;
    tex.rgba.assign(pixels->begin(), pixels->end());
    slot = static_cast<int>(scene.add_texture(std::move(tex)));
    return slot;
  };
  // The scene material of a pack material.
  auto material_of = [&](int index) -> Result<uint32_t> {
    int& slot = pack_material[static_cast<size_t>(index)];
    if (slot >= 0) return static_cast<uint32_t>(slot);
    const MaterialInfo& info = pack.materials()[static_cast<size_t>(index)];
    Material m;
    m.base_color = info.base_color;
    m.metallic = info.metallic;
    m.roughness = info.roughness;
    m.normal_scale = info.normal_scale;
    m.occlusion_strength = info.occlusion_strength;
    m.emissive = info.emissive;
    m.emissive_strength = info.emissive_strength;
    m.alpha_mode = info.alpha_mode;
    m.alpha_cutoff = info.alpha_cutoff;
    m.double_sided = info.double_sided;
    const std::pair<const TextureSlot*, TextureRef*> slots[] = {
        {&info.base_color_texture, &m.base_color_texture},
        {&info.metallic_roughness_texture, &m.metallic_roughness_texture},
        {&info.normal_texture, &m.normal_texture},
        {&info.occlusion_texture, &m.occlusion_texture},
        {&info.emissive_texture, &m.emissive_texture}};
    for (const auto& [from, to] : slots) {
      Result<TextureRef> ref = resolve(*from, texture_of);
      if (!ref) return ref.error();
      *to = *ref;
    }
    slot = static_cast<int>(scene.add_material(m));
    return static_cast<uint32_t>(slot);
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
    // Parts without a material: the object's colour, metallic 0, roughness 1 (glTF's
    // default material otherwise: single-sided, opaque).
    Material fallback;
    const Vec3 color = options.colors.empty()
                           ? object_color(o.object)
                           : options.colors[static_cast<size_t>(o.object) % options.colors.size()];
    fallback.base_color = {color.x, color.y, color.z, 1.0f};
    fallback.metallic = 0.0f;
    fallback.roughness = 1.0f;
    fallback.double_sided = MaterialInfo{}.double_sided;
    bool sprite = false;
    if (o.sprite_sheet >= 0) {
      const Atlas& atlas = pack.sprite_sheets()[static_cast<size_t>(o.sprite_sheet)].atlas();
      if (o.sprite_frame >= atlas.frame_count()) {
        return Error::make(ErrorCode::kBadFrame,
                           "posed snapshot: object %d shows frame %u of a sheet of %u", o.object,
                           o.sprite_frame, atlas.frame_count());
      }
      Result<int> tex = sheet_texture_of(o.sprite_sheet);
      if (!tex) return tex.error();
      // Unlit, nearest, alpha-tested at 128 of 255, clamped to the frame; both sides.
      fallback = Material{};
      fallback.base_color = {1, 1, 1, 1};
      fallback.base_color_texture.texture = *tex;
      fallback.base_color_texture.rect = atlas.frames()[o.sprite_frame];
      fallback.base_color_texture.nearest = true;
      fallback.base_color_texture.wrap_s = Wrap::kClampToEdge;
      fallback.base_color_texture.wrap_t = Wrap::kClampToEdge;
      fallback.alpha_mode = AlphaMode::kMask;
      fallback.alpha_cutoff = 127.5f / 255.0f;
      fallback.double_sided = true;
      fallback.unlit = true;
      sprite = true;
    }
    int fallback_index = -1;
    auto fallback_material = [&] {
      if (fallback_index < 0) fallback_index = static_cast<int>(scene.add_material(fallback));
      return static_cast<uint32_t>(fallback_index);
    };

    if (o.mesh < 0) {
      if (!sprite || !options.cardless_sprites) continue;
      const PixelRect r = fallback.base_color_texture.rect;
      const float half_w = 0.5f * static_cast<float>(r.width) / static_cast<float>(r.height);
      Vec3 corners[4] = {
          {-half_w, -0.5f, 0}, {half_w, -0.5f, 0}, {half_w, 0.5f, 0}, {-half_w, 0.5f, 0}};
      Uv quad_uv[4] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
      // A placed frame (Step 7, as gl/ draws it): the card stands for the source box, in
      // units of its height, x right and y up from the pivot; the quad covers only the
      // trimmed box (nothing outside it: transparent), and a rotated frame's stored pixels
      // (the drawn ones turned 90 degrees clockwise) are sampled turned back.
      const Atlas& atlas = pack.sprite_sheets()[static_cast<size_t>(o.sprite_sheet)].atlas();
      if (atlas.has_placements()) {
        const FramePlacement p = *atlas.placement(o.sprite_frame);  // checked above
        const auto h = static_cast<float>(p.source.height);
        const auto tx = static_cast<float>(p.trimmed.x), ty = static_cast<float>(p.trimmed.y);
        const float x0 = (tx - p.pivot_x) / h;
        const float x1 = (tx + static_cast<float>(p.trimmed.width) - p.pivot_x) / h;
        const float y1 = (p.pivot_y - ty) / h;
        const float y0 = (p.pivot_y - ty - static_cast<float>(p.trimmed.height)) / h;
        corners[0] = {x0, y0, 0};
        corners[1] = {x1, y0, 0};
        corners[2] = {x1, y1, 0};
        corners[3] = {x0, y1, 0};
        if (p.rotated) {
          // The drawn (u, v) is stored at (1 - v, u).
          quad_uv[0] = {0, 0};
          quad_uv[1] = {0, 1};
          quad_uv[2] = {1, 1};
          quad_uv[3] = {1, 0};
        }
      }
      const NormalMatrix nm(o.model);
      const Vec3 normal = unit_or(nm.apply({0, 0, 1}), {0, 0, 1});
      Vec3 p[4], n[4];
      for (int k = 0; k < 4; ++k) {
        p[k] = transform_point(o.model, corners[k]);
        n[k] = normal;
      }
      const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
      if (auto r2 = scene.add_mesh({p, n, quad_uv, idx, id, fallback_material()}); !r2) {
        return r2.error();
      }
      continue;
    }

    const MeshInfo& mesh = pack.meshes()[static_cast<size_t>(o.mesh)];
    for (int k = 0; k < mesh.part_count; ++k) {
      const int part_index = mesh.first_part + k;
      const PartInfo& part = pack.parts()[static_cast<size_t>(part_index)];
      Result<PartStreams> s = pack.part_streams(part_index);
      if (!s) return s.error();
      std::span<const Vec3> pos = s->positions, nrm = s->normals;
      std::span<const Vec4> tan = s->tangents;
      Mat4 m = o.model;
      // Morph targets first (the CPU reference's order: morph, then skin or place).
      const std::span<const float> weights = part_morph_weights(pack, mesh, part, o.morph_weights);
      const bool morphed = !weights.empty() && s->morph.targets == weights.size();
      if (part.skinned && !o.palette.empty()) {
        skinned.resize(pos.size());
        skinned_normals.resize(nrm.size());
        skinned_tangents.resize(tan.size());
        SkinInput in{pos, nrm, tan, s->joints, s->weights, s->joints1, s->weights1};
        if (morphed) {
          in.morph = s->morph;
          in.morph_weights = weights;
        }
        if (auto r = skin(in, o.palette, {skinned, skinned_normals, skinned_tangents}); !r) {
          return r.error();
        }
        pos = skinned;
        nrm = skinned_normals;
        tan = skinned_tangents;
      } else if (morphed) {
        skinned.resize(pos.size());
        skinned_normals.resize(nrm.size());
        skinned_tangents.resize(tan.size());
        if (auto r = apply_morph({pos, nrm, tan, s->morph, weights},
                                 {skinned, skinned_normals, skinned_tangents});
            !r) {
          return r.error();
        }
        pos = skinned;
        nrm = skinned_normals;
        tan = skinned_tangents;
      }
      if (!part.skinned && part.joint >= 0 && !o.palette.empty()) {
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
      world_tangents.resize(tan.size());
      for (size_t v = 0; v < tan.size(); ++v) {
        const Vec3 t = unit_or(transform_vector(m, {tan[v].x, tan[v].y, tan[v].z}), {});
        world_tangents[v] = {t.x, t.y, t.z, tan[v].w};
      }
      uvs.clear();
      uvs1.clear();
      uint32_t mat = 0;
      if (sprite) {
        Aabb card_box;
        for (const Vec3& p : s->positions) card_box.grow(p);
        for (const Vec3& p : s->positions) uvs.push_back(card_uv(p, card_box));
        mat = fallback_material();
      } else {
        for (const Vec2& t : s->texcoords0) uvs.push_back({t.x, t.y});
        for (const Vec2& t : s->texcoords1) uvs1.push_back({t.x, t.y});
        if (part.material >= 0 && static_cast<size_t>(part.material) < pack.materials().size()) {
          Result<uint32_t> r = material_of(part.material);
          if (!r) return r.error();
          mat = *r;
        } else {
          mat = fallback_material();
        }
      }
      // A mirroring matrix turns the winding around (glTF: the determinant of the node's
      // transform decides which side is the front).
      std::span<const uint32_t> indices = s->indices;
      if (determinant3(m) < 0.0f) {
        flipped.assign(indices.begin(), indices.end());
        for (size_t i = 0; i + 2 < flipped.size(); i += 3)
          std::swap(flipped[i + 1], flipped[i + 2]);
        indices = flipped;
      }
      MeshInput input{world, world_normals, uvs, indices, id, mat};
      input.uvs1 = uvs1;
      if (!sprite) input.colors = s->colors;
      input.tangents = world_tangents;
      if (auto r = scene.add_mesh(input); !r) return r.error();
    }
  }
  scene.build(options.bvh);
  return scene;
}

}  // namespace animpack::trace
