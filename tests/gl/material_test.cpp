// Materials drawn by the Renderer, on data made here: a textured quad's checker (sRGB
// decoded and encoded again), vertex colours, MASK holes in the id buffer, BLEND
// compositing back to front in linear light, back faces culled or turned, a normal map
// tilting the shade, metallic-roughness, occlusion and emissive texels, uv sets,
// transforms and wrap modes, mipmaps, and refused arguments. Expected colours come from a
// CPU copy of the shading model of docs/gl.md ("Shading"), in double precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "animpack/gl/renderer.h"
#include "gl_test_support.h"

namespace animpack::gl {
namespace {

using testing::front_ortho;
using testing::GlTest;

constexpr double kPi = 3.14159265358979323846;

double srgb_to_linear(double c) {
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}
double linear_to_srgb(double c) {
  return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
}

struct D3 {
  double x = 0, y = 0, z = 0;
};
D3 operator+(D3 a, D3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
D3 operator*(D3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
double dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
D3 unit(D3 a) { return a * (1.0 / std::sqrt(dot(a, a))); }
D3 cross(D3 a, D3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// What the shading model needs at one point.
struct Point {
  D3 base;  // linear rgb
  D3 n;     // unit, facing the viewer
  D3 v{0, 0, 1};
  double metallic = 0, roughness = 1, ao = 1;
  D3 emissive;
  double ambient = 0.3;
  D3 light_direction{-0.45, -1.0, -0.55};
};

// The model's colour as sRGB bytes (before rounding: 0..255).
std::array<double, 3> shade(const Point& p) {
  const double metallic = p.metallic;
  const double roughness = std::max(p.roughness, 0.045);
  const D3 c_diff = p.base * (1 - metallic);
  const D3 f0 = D3{0.04, 0.04, 0.04} * (1 - metallic) + p.base * metallic;
  const double a = roughness * roughness, a2 = a * a;
  const D3 l = unit(p.light_direction) * -1.0;
  const D3 h = unit(l + p.v);
  const double nl = std::max(dot(p.n, l), 0.0), nv = std::max(dot(p.n, p.v), 0.0);
  const double nh = dot(p.n, h), vh = dot(p.v, h);
  const double dd = nh * nh * (a2 - 1) + 1;
  const double d = a2 / (kPi * dd * dd);
  const double den =
      nl * std::sqrt(nv * nv * (1 - a2) + a2) + nv * std::sqrt(nl * nl * (1 - a2) + a2);
  const double vis = den > 0 ? 0.5 / den : 0;
  const double e = kPi * (1 - p.ambient);
  const double x5 = std::pow(1 - vh, 5);
  std::array<double, 3> out{};
  const double cd[3] = {c_diff.x, c_diff.y, c_diff.z}, f0s[3] = {f0.x, f0.y, f0.z};
  const double em[3] = {p.emissive.x, p.emissive.y, p.emissive.z};
  for (int k = 0; k < 3; ++k) {
    const double f = f0s[k] + (1 - f0s[k]) * x5;
    const double direct = (cd[k] / kPi + f * d * vis) * nl * e;
    const double ambient = p.ambient * p.ao * (cd[k] + f0s[k]);
    out[static_cast<size_t>(k)] =
        255.0 * linear_to_srgb(std::clamp(direct + ambient + em[k], 0.0, 1.0));
  }
  return out;
}

// A unit-sided quad in the z = `z` plane facing +z (counter-clockwise seen from +z), uvs
// u right and v down; `reversed` winds it the other way with its normal along -z.
struct Quad {
  std::vector<Vec3> positions, normals;
  std::vector<Vec4> tangents;
  std::vector<float> uvs;
  std::vector<Vec2> uv1;
  std::vector<uint32_t> indices;
  MeshData data(bool with_tangents = false) const {
    MeshData d{positions, normals, {}, uvs, indices};
    if (with_tangents) d.tangents = tangents;
    d.texcoords1 = uv1;
    return d;
  }
};
Quad make_quad(float z, float half, bool reversed = false) {
  Quad q;
  q.positions = {{-half, -half, z}, {half, -half, z}, {half, half, z}, {-half, half, z}};
  const Vec3 n{0, 0, reversed ? -1.0f : 1.0f};
  q.normals = {n, n, n, n};
  q.tangents.assign(4, Vec4{1, 0, 0, 1});
  q.uvs = {0, 1, 1, 1, 1, 0, 0, 0};
  q.uv1 = {{0.25f, 0.25f}, {0.25f, 0.25f}, {0.25f, 0.25f}, {0.25f, 0.25f}};
  q.indices =
      reversed ? std::vector<uint32_t>{0, 2, 1, 0, 3, 2} : std::vector<uint32_t>{0, 1, 2, 0, 2, 3};
  return q;
}

const Sampler kNearest{Wrap::kClampToEdge, Wrap::kClampToEdge, Filter::kNearest, Filter::kNearest};

// A 4 x 4 checker of two colours, RGBA8, rows top first.
std::vector<uint8_t> checker(const uint8_t a[4], const uint8_t b[4]) {
  std::vector<uint8_t> rgba;
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      const uint8_t* c = (x + y) % 2 == 0 ? a : b;
      for (int k = 0; k < 4; ++k) rgba.push_back(c[k]);
    }
  }
  return rgba;
}

class GlMaterials : public GlTest {
 protected:
  static constexpr uint32_t kSize = 32;

  // A quad mesh plus an instance of it with `material`.
  InstanceHandle add(const Quad& quad, const MaterialDesc& material, uint32_t id,
                     bool tangents = false, Mat4 model = {}) {
    auto mesh = renderer->upload_mesh(quad.data(tangents));
    EXPECT_TRUE(mesh) << mesh.error().message();
    InstanceDesc desc;
    desc.mesh = *mesh;
    desc.id = id;
    desc.model = model;
    desc.previous_model = model;
    desc.material = material;
    auto instance = renderer->create_instance(desc);
    EXPECT_TRUE(instance) << instance.error().message();
    return *instance;
  }
  TextureHandle texture(const std::vector<uint8_t>& rgba, uint32_t w, uint32_t h, ColorSpace space,
                        bool mipmaps = false) {
    TextureOptions options;
    options.color_space = space;
    options.sampler = kNearest;
    options.mipmaps = mipmaps;
    auto t = renderer->upload_texture(rgba, w, h, options);
    EXPECT_TRUE(t) << t.error().message();
    return *t;
  }
  // Renders a 32 x 32 front view of the unit square and reads colour and ids.
  void render(float ambient = 0.3f, Vec3 light = {-0.45f, -1.0f, -0.55f}) {
    View view{front_ortho({0, 0, 0}, 1.0f), {}, kSize, kSize};
    view.ambient = ambient;
    view.light_direction = light;
    auto r = renderer->render(view);
    ASSERT_TRUE(r) << r.error().message();
    auto c = renderer->read_color();
    auto i = renderer->read_ids();
    ASSERT_TRUE(c && i);
    color = std::move(c->rgba);
    ids = std::move(*i);
  }
  const uint8_t* pixel(uint32_t x, uint32_t y) const { return &color[(y * kSize + x) * 4]; }
  uint32_t id_at(uint32_t x, uint32_t y) const { return ids[y * kSize + x]; }
  // The largest channel difference between the pixel and `want`.
  double off(uint32_t x, uint32_t y, std::array<double, 3> want) const {
    const uint8_t* p = pixel(x, y);
    double worst = 0;
    for (int k = 0; k < 3; ++k)
      worst = std::max(worst, std::abs(p[k] - want[static_cast<size_t>(k)]));
    return worst;
  }

  std::vector<uint8_t> color;
  std::vector<uint32_t> ids;
};

// The background's bytes (View::clear_color is stored as given).
constexpr uint8_t kClear[3] = {24, 26, 32};

TEST_F(GlMaterials, AnEmissiveCheckerComesBackWithin1Over255OfItsSrgbTexels) {
  if (IsSkipped() || HasFatalFailure()) return;
  const uint8_t a[4] = {200, 40, 10, 255}, b[4] = {12, 90, 250, 255};
  const std::vector<uint8_t> rgba = checker(a, b);
  MaterialDesc m;
  m.base_color = {0, 0, 0, 1};  // no diffuse; F0 0.04 under ambient 0 and a light behind
  m.emissive = {1, 1, 1};
  m.emissive_texture.texture = texture(rgba, 4, 4, ColorSpace::kSrgb);
  add(make_quad(0, 0.5f), m, 1);
  render(0.0f, {0, 0, 1});
  for (uint32_t ty = 0; ty < 4; ++ty) {
    for (uint32_t tx = 0; tx < 4; ++tx) {
      const uint8_t* want = &rgba[(ty * 4 + tx) * 4];
      for (uint32_t y = ty * 8 + 1; y < ty * 8 + 7; ++y) {
        for (uint32_t x = tx * 8 + 1; x < tx * 8 + 7; ++x) {
          ASSERT_LE(off(x, y,
                        {static_cast<double>(want[0]), static_cast<double>(want[1]),
                         static_cast<double>(want[2])}),
                    1.0)
              << "pixel " << x << "," << y;
        }
      }
    }
  }
}

TEST_F(GlMaterials, ATexturedQuadShowsItsCheckerColoursLitByTheModel) {
  if (IsSkipped() || HasFatalFailure()) return;
  const uint8_t a[4] = {230, 180, 40, 255}, b[4] = {30, 60, 140, 255};
  MaterialDesc m;
  m.base_color = {0.9f, 1.0f, 0.8f, 1.0f};
  m.metallic = 0.25f;
  m.roughness = 0.6f;
  m.base_color_texture.texture = texture(checker(a, b), 4, 4, ColorSpace::kSrgb);
  add(make_quad(0, 0.5f), m, 1);
  render();
  int checked = 0;
  for (uint32_t ty = 0; ty < 4; ++ty) {
    for (uint32_t tx = 0; tx < 4; ++tx) {
      const uint8_t* t = (tx + ty) % 2 == 0 ? a : b;
      Point p;
      p.base = {0.9 * srgb_to_linear(t[0] / 255.0), 1.0 * srgb_to_linear(t[1] / 255.0),
                0.8 * srgb_to_linear(t[2] / 255.0)};
      p.n = {0, 0, 1};
      p.metallic = 0.25;
      p.roughness = 0.6;
      const auto want = shade(p);
      const uint32_t x = tx * 8 + 4, y = ty * 8 + 4;
      EXPECT_LE(off(x, y, want), 1.0)
          << "texel " << tx << "," << ty << ": got " << int{pixel(x, y)[0]} << " "
          << int{pixel(x, y)[1]} << " " << int{pixel(x, y)[2]} << ", want " << want[0] << " "
          << want[1] << " " << want[2];
      EXPECT_EQ(id_at(x, y), 1u);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 16);
  // The two checker colours differ on screen (not one flat colour).
  EXPECT_GT(std::abs(pixel(4, 4)[0] - pixel(12, 4)[0]), 100);
}

TEST_F(GlMaterials, VertexColoursMultiplyTheBaseColour) {
  if (IsSkipped() || HasFatalFailure()) return;
  // A triangle over the whole view: red, green and blue corners.
  const std::vector<Vec3> positions = {{-0.5f, -0.5f, 0}, {1.5f, -0.5f, 0}, {-0.5f, 1.5f, 0}};
  const std::vector<Vec3> normals(3, Vec3{0, 0, 1});
  const std::vector<Vec4> colors = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}};
  const std::vector<uint32_t> indices = {0, 1, 2};
  MeshData data{positions, normals, {}, {}, indices};
  data.colors = colors;
  auto mesh = renderer->upload_mesh(data);
  ASSERT_TRUE(mesh) << mesh.error().message();
  InstanceDesc desc;
  desc.mesh = *mesh;
  desc.material = MaterialDesc{};
  desc.material->metallic = 0;
  ASSERT_TRUE(renderer->create_instance(desc));
  render();
  // Pixel (x, y) centre is world (x + 0.5) / 32 - 0.5, 0.5 - (y + 0.5) / 32; the
  // barycentric weights of the green and blue corners are (wx + 0.5) / 2, (wy + 0.5) / 2.
  for (auto [x, y] : {std::array<uint32_t, 2>{1, 30}, {30, 30}, {1, 1}, {10, 20}, {20, 12}}) {
    const double wx = (x + 0.5) / 32 - 0.5, wy = 0.5 - (y + 0.5) / 32;
    const double g = (wx + 0.5) / 2, b = (wy + 0.5) / 2, r = 1 - g - b;
    Point p;
    p.base = {r, g, b};
    p.n = {0, 0, 1};
    const auto want = shade(p);
    EXPECT_LE(off(x, y, want), 1.0) << "pixel " << x << "," << y << ": got " << int{pixel(x, y)[0]}
                                    << " " << int{pixel(x, y)[1]} << " " << int{pixel(x, y)[2]}
                                    << ", want " << want[0] << " " << want[1] << " " << want[2];
  }
  // The red corner is red; along the bottom green grows, up the left side blue.
  EXPECT_GT(pixel(1, 30)[0], 2 * pixel(1, 30)[1]);
  EXPECT_GT(pixel(30, 30)[1], 2 * pixel(30, 30)[2]);
  EXPECT_GT(pixel(1, 1)[2], 2 * pixel(1, 1)[1]);
}

TEST_F(GlMaterials, MaskHolesAreNoIdAndShowWhatIsBehind) {
  if (IsSkipped() || HasFatalFailure()) return;
  // The front quad's left half has alpha 0.2, its right half 0.8; cutoff 0.5.
  std::vector<uint8_t> rgba;
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 2; ++x) {
      const uint8_t t[4] = {255, 255, 255, static_cast<uint8_t>(x == 0 ? 51 : 204)};
      for (int k = 0; k < 4; ++k) rgba.push_back(t[k]);
    }
  }
  MaterialDesc front;
  front.alpha_mode = AlphaMode::kMask;
  front.base_color_texture.texture = texture(rgba, 2, 2, ColorSpace::kSrgb);
  MaterialDesc back;
  back.base_color = {1, 0, 0, 1};
  // Only the front quad, first: holes are kNoId.
  const InstanceHandle f = add(make_quad(0.5f, 0.5f), front, 7);
  render();
  for (uint32_t y = 0; y < kSize; y += 3) {
    for (uint32_t x = 0; x < kSize; x += 3) {
      if (x == 15 || x == 16) continue;  // the texel boundary (nearest)
      ASSERT_EQ(id_at(x, y), x < 16 ? kNoId : 7u) << "pixel " << x << "," << y;
      if (x < 16) {
        ASSERT_EQ(pixel(x, y)[0], kClear[0]);
        ASSERT_EQ(pixel(x, y)[2], kClear[2]);
      }
    }
  }
  // With a quad behind it: the holes show it, in colour and ids (the depth pass
  // discarded them too).
  add(make_quad(-0.5f, 0.5f), back, 9);
  render();
  EXPECT_EQ(id_at(4, 16), 9u);
  EXPECT_EQ(id_at(28, 16), 7u);
  EXPECT_GT(pixel(4, 16)[0], 150);
  EXPECT_LT(pixel(4, 16)[1], 60);
  EXPECT_GT(pixel(28, 16)[1], 150);  // the white front quad
  (void)f;
}

TEST_F(GlMaterials, BlendCompositesBackToFrontOverTheOpaqueSurfaces) {
  if (IsSkipped() || HasFatalFailure()) return;
  // Emissive colours only (black base, ambient 0, light from behind): the stored colours
  // are the emissive ones, so "over" can be computed on them.
  auto flat = [](Vec3 emissive, float alpha, AlphaMode mode) {
    MaterialDesc m;
    m.base_color = {0, 0, 0, alpha};
    m.emissive = emissive;
    m.alpha_mode = mode;
    return m;
  };
  // Made nearest first, so instance order is front to back: the renderer must sort.
  add(make_quad(0.6f, 0.5f), flat({0, 1, 0}, 0.5f, AlphaMode::kBlend), 3);
  add(make_quad(0.3f, 0.5f), flat({0, 0, 1}, 0.5f, AlphaMode::kBlend), 2);
  add(make_quad(0.0f, 0.5f), flat({1, 0, 0}, 1.0f, AlphaMode::kOpaque), 1);
  render(0.0f, {0, 0, 1});
  // F0 = 0.04 under ambient 0 and no light adds nothing: green over (blue over red), in
  // linear light (the target stores sRGB bytes; each layer is rounded to them).
  const double red[3] = {1, 0, 0}, blue[3] = {0, 0, 1}, green[3] = {0, 1, 0};
  std::array<double, 3> want{};
  for (int k = 0; k < 3; ++k) {
    const double under = 0.5 * blue[k] + 0.5 * red[k];
    want[static_cast<size_t>(k)] = 255 * linear_to_srgb(0.5 * green[k] + 0.5 * under);
  }
  EXPECT_LE(off(16, 16, want), 2.0)
      << int{pixel(16, 16)[0]} << " " << int{pixel(16, 16)[1]} << " " << int{pixel(16, 16)[2]};
  // The nearest blended surface holds the id.
  EXPECT_EQ(id_at(16, 16), 3u);
  // A BLEND quad behind the opaque one is hidden (depth tested).
  add(make_quad(-0.3f, 0.5f), flat({1, 1, 1}, 0.5f, AlphaMode::kBlend), 4);
  render(0.0f, {0, 0, 1});
  EXPECT_LE(off(16, 16, want), 2.0);
  EXPECT_EQ(id_at(16, 16), 3u);
}

TEST_F(GlMaterials, ABackFaceIsCulledWhenSingleSidedAndTurnedWhenDoubleSided) {
  if (IsSkipped() || HasFatalFailure()) return;
  MaterialDesc m;
  m.base_color = {0.2f, 0.7f, 0.3f, 1};
  m.metallic = 0;
  m.roughness = 0.5f;
  const InstanceHandle back = add(make_quad(0, 0.5f, true), m, 5);
  render();
  EXPECT_EQ(id_at(16, 16), kNoId);
  EXPECT_EQ(pixel(16, 16)[1], kClear[1]);
  // Double-sided: drawn, its normal turned to the viewer, so it shades as a front face.
  ASSERT_TRUE(renderer->destroy_instance(back));
  m.double_sided = true;
  add(make_quad(0, 0.5f, true), m, 5);
  render();
  EXPECT_EQ(id_at(16, 16), 5u);
  Point p;
  p.base = {0.2, 0.7, 0.3};
  p.n = {0, 0, 1};
  p.roughness = 0.5;
  EXPECT_LE(off(16, 16, shade(p)), 1.0);
}

TEST_F(GlMaterials, AMirroringModelKeepsTheFrontFaceDrawn) {
  if (IsSkipped() || HasFatalFailure()) return;
  MaterialDesc m;
  Mat4 mirror;
  mirror.m[0] = -1;  // x -> -x: the winding turns clockwise on screen
  add(make_quad(0, 0.5f), m, 6, false, mirror);
  render();
  EXPECT_EQ(id_at(16, 16), 6u);
}

TEST_F(GlMaterials, ANormalMapTiltsTheShadeAsTheModelSays) {
  if (IsSkipped() || HasFatalFailure()) return;
  // One texel: the normal tilted towards -x, away from the light (which comes from +x).
  const std::vector<uint8_t> tilt = {38, 128, 230, 255};
  MaterialDesc m;
  m.base_color = {0.8f, 0.8f, 0.8f, 1};
  m.metallic = 0;
  m.roughness = 0.7f;
  add(make_quad(0, 0.5f), m, 1, true);
  render();
  const std::array<double, 3> flat{static_cast<double>(pixel(16, 16)[0]),
                                   static_cast<double>(pixel(16, 16)[1]),
                                   static_cast<double>(pixel(16, 16)[2])};
  renderer.reset();
  renderer.emplace(std::move(*Renderer::create(context)));
  m.normal_texture.texture = texture(tilt, 1, 1, ColorSpace::kLinear);
  m.normal_scale = 0.8f;
  add(make_quad(0, 0.5f), m, 1, true);
  render();
  // n = normalize(T tx + B ty + N tz), (tx, ty, tz) = (2 texel - 1) (scale, scale, 1),
  // B = w cross(N, T).
  const D3 t{1, 0, 0}, n{0, 0, 1};
  const D3 b = cross(n, t);
  const double tx = (2 * 38 / 255.0 - 1) * 0.8, ty = (2 * 128 / 255.0 - 1) * 0.8,
               tz = 2 * 230 / 255.0 - 1;
  Point p;
  p.base = {0.8, 0.8, 0.8};
  p.n = unit(t * tx + b * ty + n * tz);
  p.roughness = 0.7;
  const auto want = shade(p);
  EXPECT_LE(off(16, 16, want), 1.0) << int{pixel(16, 16)[0]} << ", want " << want[0];
  EXPECT_GT(std::abs(pixel(16, 16)[0] - flat[0]), 10.0) << "the normal map changed nothing";
  // Without tangents a normal texture is not applied.
  renderer.reset();
  renderer.emplace(std::move(*Renderer::create(context)));
  m.normal_texture.texture = texture(tilt, 1, 1, ColorSpace::kLinear);
  add(make_quad(0, 0.5f), m, 1, false);
  render();
  EXPECT_LE(off(16, 16, flat), 0.0);
}

TEST_F(GlMaterials, TheSlotsUvSetAndTransformChooseTheTexel) {
  if (IsSkipped() || HasFatalFailure()) return;
  // A 2 x 2 texture: red, green / blue, white.
  const std::vector<uint8_t> rgba = {255, 0, 0,   255, 0,   255, 0,   255,
                                     0,   0, 255, 255, 255, 255, 255, 255};
  auto quad_showing = [&](MaterialTexture slot) {
    renderer.reset();
    renderer.emplace(std::move(*Renderer::create(context)));
    slot.texture = texture(rgba, 2, 2, ColorSpace::kSrgb);
    MaterialDesc m;
    m.base_color = {0, 0, 0, 1};
    m.emissive = {1, 1, 1};
    m.emissive_texture = slot;
    add(make_quad(0, 0.5f), m, 1);
    render(0.0f, {0, 0, 1});
  };
  // uv set 1: every vertex at (0.25, 0.25): red everywhere.
  MaterialTexture slot;
  slot.uv_set = 1;
  quad_showing(slot);
  EXPECT_LE(off(28, 28, {255, 0, 0}), 1.0);
  // uv set 0 scaled by 0.5 and offset by (0.5, 0): the green texel everywhere.
  slot = {};
  slot.has_transform = true;
  slot.transform.scale[0] = 0.5f;
  slot.transform.scale[1] = 0.5f;
  slot.transform.offset[0] = 0.5f;
  quad_showing(slot);
  EXPECT_LE(off(4, 4, {0, 255, 0}), 1.0);
  EXPECT_LE(off(28, 28, {0, 255, 0}), 1.0);
  // Rotation by pi/2 (glTF's sign): u' = v, v' = -u + 1 with the offset (0, 1): the top
  // left of the quad (u 0, v 0) reads (0, 1): blue; its top right (u 1, v 0) reads (0, 0): red.
  slot = {};
  slot.has_transform = true;
  slot.transform.rotation = static_cast<float>(kPi / 2);
  slot.transform.offset[1] = 1.0f;
  slot.sampler = kNearest;
  quad_showing(slot);
  EXPECT_LE(off(2, 2, {0, 0, 255}), 1.0)
      << int{pixel(2, 2)[0]} << " " << int{pixel(2, 2)[1]} << " " << int{pixel(2, 2)[2]};
  EXPECT_LE(off(29, 2, {255, 0, 0}), 1.0);
}

TEST_F(GlMaterials, MetallicRoughnessOcclusionAndEmissiveTexelsFollowTheModel) {
  if (IsSkipped() || HasFatalFailure()) return;
  // One texel each: metallic-roughness (G 153 = 0.6 roughness share, B 102 = 0.4
  // metallic share), occlusion R 128, emissive (sRGB) 200 40 10.
  MaterialDesc m;
  m.base_color = {0.7f, 0.5f, 0.3f, 1};
  m.metallic = 0.9f;
  m.roughness = 0.8f;
  m.metallic_roughness_texture.texture = texture({0, 153, 102, 255}, 1, 1, ColorSpace::kLinear);
  m.occlusion_texture.texture = texture({128, 0, 0, 255}, 1, 1, ColorSpace::kLinear);
  m.occlusion_strength = 0.5f;
  m.emissive = {0.2f, 0.1f, 0.3f};
  m.emissive_strength = 1.5f;
  m.emissive_texture.texture = texture({200, 40, 10, 255}, 1, 1, ColorSpace::kSrgb);
  add(make_quad(0, 0.5f), m, 1);
  render();
  Point p;
  p.base = {0.7, 0.5, 0.3};
  p.n = {0, 0, 1};
  p.metallic = 0.9 * 102 / 255.0;
  p.roughness = 0.8 * 153 / 255.0;
  p.ao = 1 + 0.5 * (128 / 255.0 - 1);
  p.emissive = {0.2 * 1.5 * srgb_to_linear(200 / 255.0), 0.1 * 1.5 * srgb_to_linear(40 / 255.0),
                0.3 * 1.5 * srgb_to_linear(10 / 255.0)};
  const auto want = shade(p);
  EXPECT_LE(off(16, 16, want), 1.0)
      << int{pixel(16, 16)[0]} << " " << int{pixel(16, 16)[1]} << " " << int{pixel(16, 16)[2]}
      << ", want " << want[0] << " " << want[1] << " " << want[2];
  // Without the occlusion texture the ambient term is larger: the model is sensitive to it.
  Point no_ao = p;
  no_ao.ao = 1;
  EXPECT_GT(off(16, 16, shade(no_ao)), 1.0);
}

TEST_F(GlMaterials, WrapModesRepeatClampAndMirrorOutsideTheUnitSquare) {
  if (IsSkipped() || HasFatalFailure()) return;
  // A 2 x 1 texture, red | green, shown through u' = 3 u - 1 (from -1 to 2), read at
  // pixels 2 (u 0.078, u' -0.766) and 8 (u 0.266, u' -0.203).
  const std::vector<uint8_t> rgba = {255, 0, 0, 255, 0, 255, 0, 255};
  auto reds = [&](Wrap wrap) {
    renderer.reset();
    renderer.emplace(std::move(*Renderer::create(context)));
    MaterialDesc m;
    m.base_color = {0, 0, 0, 1};
    m.emissive = {1, 1, 1};
    m.emissive_texture.texture = texture(rgba, 2, 1, ColorSpace::kSrgb);
    m.emissive_texture.sampler =
        Sampler{wrap, Wrap::kClampToEdge, Filter::kNearest, Filter::kNearest};
    m.emissive_texture.has_transform = true;
    m.emissive_texture.transform.scale[0] = 3;
    m.emissive_texture.transform.offset[0] = -1;
    add(make_quad(0, 0.5f), m, 1);
    render(0.0f, {0, 0, 1});
    return std::array<bool, 2>{pixel(2, 16)[0] > 128, pixel(8, 16)[0] > 128};
  };
  // Repeat: -0.766 -> 0.234 (red), -0.203 -> 0.797 (green).
  EXPECT_EQ(reds(Wrap::kRepeat), (std::array<bool, 2>{true, false}));
  // Clamp: both the left edge texel, red.
  EXPECT_EQ(reds(Wrap::kClampToEdge), (std::array<bool, 2>{true, true}));
  // Mirrored repeat: -0.766 -> 0.766 (green), -0.203 -> 0.203 (red).
  EXPECT_EQ(reds(Wrap::kMirroredRepeat), (std::array<bool, 2>{false, true}));
}

TEST_F(GlMaterials, AMinifiedTextureSamplesItsMipmaps) {
  if (IsSkipped() || HasFatalFailure()) return;
  // A 64 x 64 one-texel black and white checker on 4 x 4 pixels, nearest texel of the
  // nearest level: with mipmaps the level of 4 x 4 texels, each the linear mean 0.5 (sRGB
  // 188); without, a texel of level 0, black or white.
  std::vector<uint8_t> rgba;
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      const uint8_t v = (x + y) % 2 == 0 ? 255 : 0;
      const uint8_t t[4] = {v, v, v, 255};
      for (int k = 0; k < 4; ++k) rgba.push_back(t[k]);
    }
  }
  for (bool mipmaps : {true, false}) {
    renderer.reset();
    renderer.emplace(std::move(*Renderer::create(context)));
    TextureOptions options;
    options.color_space = ColorSpace::kSrgb;
    options.mipmaps = mipmaps;
    options.sampler.min_filter = Filter::kNearestMipmapNearest;
    auto t = renderer->upload_texture(rgba, 64, 64, options);
    ASSERT_TRUE(t) << t.error().message();
    MaterialDesc m;
    m.base_color = {0, 0, 0, 1};
    m.emissive = {1, 1, 1};
    m.emissive_texture.texture = *t;
    add(make_quad(0, 0.0625f), m, 1);  // 4 of the 32 pixels: 16 texels a pixel
    render(0.0f, {0, 0, 1});
    const int v = pixel(16, 16)[0];
    if (mipmaps) {
      EXPECT_NEAR(v, 188, 6);
    } else {
      EXPECT_TRUE(v == 0 || v == 255) << v;
    }
  }
}

TEST_F(GlMaterials, BadMaterialArgumentsAreRefusedBeforeAnyGlCall) {
  if (IsSkipped() || HasFatalFailure()) return;
  const Quad q = make_quad(0, 0.5f);
  const std::vector<uint8_t> px(16, 255);
  // Streams.
  MeshData data = q.data();
  const std::vector<Vec2> short_uv1(3);
  data.texcoords1 = short_uv1;
  EXPECT_EQ(renderer->upload_mesh(data).error().code(), ErrorCode::kSizeMismatch);
  data = q.data();
  std::vector<Vec4> colors(4, Vec4{1, 1, 1, 1});
  colors[2].y = std::nanf("");
  data.colors = colors;
  EXPECT_EQ(renderer->upload_mesh(data).error().code(), ErrorCode::kInvalidArgument);
  // Textures.
  TextureOptions options;
  options.color_space = static_cast<ColorSpace>(7);
  EXPECT_EQ(renderer->upload_texture(px, 2, 2, options).error().code(),
            ErrorCode::kInvalidArgument);
  options = {};
  options.sampler.mag_filter = Filter::kLinearMipmapLinear;
  EXPECT_EQ(renderer->upload_texture(px, 2, 2, options).error().code(),
            ErrorCode::kInvalidArgument);
  options = {};
  options.sampler.wrap_t = static_cast<Wrap>(3);
  EXPECT_EQ(renderer->upload_texture(px, 2, 2, options).error().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(renderer->upload_texture(px, kMaxTextureSize + 1, 1).error().code(),
            ErrorCode::kInvalidArgument);
  // Instances.
  auto mesh = renderer->upload_mesh(q.data());
  auto tex = renderer->upload_texture(px, 2, 2);
  ASSERT_TRUE(mesh && tex);
  auto refused = [&](auto edit) {
    InstanceDesc desc;
    desc.mesh = *mesh;
    desc.material = MaterialDesc{};
    edit(desc);
    auto r = renderer->create_instance(desc);
    return !r && r.error().code() == ErrorCode::kInvalidArgument;
  };
  EXPECT_TRUE(refused([&](InstanceDesc& d) { d.texture = *tex; }));  // sprite and material
  EXPECT_TRUE(refused([](InstanceDesc& d) { d.material->normal_texture.texture = {12345}; }));
  EXPECT_TRUE(refused([](InstanceDesc& d) { d.material->metallic = 1.5f; }));
  EXPECT_TRUE(refused([](InstanceDesc& d) { d.material->roughness = -0.1f; }));
  EXPECT_TRUE(refused([](InstanceDesc& d) { d.material->occlusion_strength = 2; }));
  EXPECT_TRUE(refused([](InstanceDesc& d) { d.material->base_color.w = std::nanf(""); }));
  EXPECT_TRUE(refused([](InstanceDesc& d) { d.material->emissive.x = INFINITY; }));
  EXPECT_TRUE(refused([](InstanceDesc& d) { d.material->emissive_strength = -1; }));
  EXPECT_TRUE(refused([](InstanceDesc& d) { d.material->alpha_cutoff = std::nanf(""); }));
  EXPECT_TRUE(refused([](InstanceDesc& d) { d.material->alpha_mode = static_cast<AlphaMode>(3); }));
  EXPECT_TRUE(refused([](InstanceDesc& d) { d.material->occlusion_texture.uv_set = 2; }));
  EXPECT_TRUE(refused([](InstanceDesc& d) {
    d.material->base_color_texture.sampler = Sampler{};
    d.material->base_color_texture.sampler->min_filter = static_cast<Filter>(6);
  }));
  EXPECT_TRUE(refused([](InstanceDesc& d) {
    d.material->emissive_texture.has_transform = true;
    d.material->emissive_texture.transform.rotation = std::nanf("");
  }));
  // A texture a material uses cannot be released.
  InstanceDesc desc;
  desc.mesh = *mesh;
  desc.material = MaterialDesc{};
  desc.material->occlusion_texture.texture = *tex;
  auto instance = renderer->create_instance(desc);
  ASSERT_TRUE(instance);
  EXPECT_EQ(renderer->release_texture(*tex).error().code(), ErrorCode::kInvalidArgument);
  ASSERT_TRUE(renderer->destroy_instance(*instance));
  EXPECT_TRUE(renderer->release_texture(*tex));
  // The view's light.
  View view{front_ortho({0, 0, 0}, 1.0f), {}, 8, 8};
  view.light_direction = {0, 0, 0};
  EXPECT_EQ(renderer->render(view).error().code(), ErrorCode::kInvalidArgument);
  view.light_direction = {0, std::nanf(""), 1};
  EXPECT_EQ(renderer->render(view).error().code(), ErrorCode::kInvalidArgument);
  view.light_direction = {0, -1, 0};
  view.ambient = 1.5f;
  EXPECT_EQ(renderer->render(view).error().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace animpack::gl
