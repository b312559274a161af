// Materials in the tracer: texels at known pixels, bilinear against nearest, wrap modes,
// KHR_texture_transform, vertex colours, MASK holes, BLEND compositing, single-sided
// triangles from behind, normal maps, the supersampling pattern and framing from a box.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "animpack/camera.h"
#include "animpack/tracer/framing.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/shading.h"
#include "animpack/tracer/stage.h"

namespace animpack::trace {
namespace {

// The quad [-1, 1]^2 at depth z facing +z, uv (0, 0) at its top-left and (s, s) at its
// bottom-right.
struct Quad {
  explicit Quad(float z = 0.0f, float s = 1.0f) {
    p = {Vec3{-1, 1, z}, Vec3{1, 1, z}, Vec3{1, -1, z}, Vec3{-1, -1, z}};
    uv = {Uv{0, 0}, Uv{s, 0}, Uv{s, s}, Uv{0, s}};
  }
  std::array<Vec3, 4> p;
  std::array<Uv, 4> uv;
  std::array<uint32_t, 6> idx{0, 2, 1, 0, 3, 2};  // counter-clockwise seen from +z
};

// Straight down -z onto the quad, orthographic, the image just covering it; one sample.
RenderOptions front_view(int size) {
  RenderOptions o;
  o.width = o.height = size;
  o.camera.orthographic = true;
  o.camera.ortho_height = 2.0f;
  o.camera.eye = {0, 0, 5};
  o.camera.target = {0, 0, 0};
  o.samples = 1;
  o.shadows = false;
  return o;
}

// A material that shows its base colour exactly: metallic 1 (no diffuse, F0 = base) lit
// by ambient 1 (no direct light): colour = base.
Material exact(Vec4 base = {1, 1, 1, 1}) {
  Material m;
  m.base_color = base;
  m.metallic = 1.0f;
  return m;
}

Texture texture(uint32_t w, uint32_t h, const std::vector<std::array<uint8_t, 4>>& texels,
                ColorSpace space = ColorSpace::kSrgb) {
  Texture t;
  t.width = w;
  t.height = h;
  t.color_space = space;
  for (const auto& c : texels) t.rgba.insert(t.rgba.end(), c.begin(), c.end());
  return t;
}

// One quad with material m and texture tex (or none), rendered from the front at ambient 1.
Frame render_quad(const Material& material, const Texture* tex, int size, float uv_scale = 1.0f,
                  std::span<const Vec4> colors = {}) {
  TraceScene scene;
  Material m = material;
  if (tex) m.base_color_texture.texture = static_cast<int>(scene.add_texture(*tex));
  const uint32_t mat = scene.add_material(m);
  const Quad q(0.0f, uv_scale);
  MeshInput in{q.p, {}, q.uv, q.idx, 1, mat};
  in.colors = colors;
  if (!scene.add_mesh(in)) std::abort();
  scene.build();
  RenderOptions o = front_view(size);
  o.ambient = 1.0f;
  auto f = render(scene, o);
  if (!f) std::abort();
  return std::move(*f);
}

TEST(Materials, ATexturedQuadShowsItsTexelsAtKnownPixels) {
  // A 4 x 4 texture of distinct colours on a 4 x 4 image: pixel centres fall on texel
  // centres, so bilinear sampling gives each texel exactly.
  std::vector<std::array<uint8_t, 4>> texels;
  for (int k = 0; k < 16; ++k) {
    texels.push_back({static_cast<uint8_t>(16 * k), static_cast<uint8_t>(255 - 13 * k),
                      static_cast<uint8_t>((k % 4) * 80), 255});
  }
  const Texture tex = texture(4, 4, texels);
  const Frame f = render_quad(exact(), &tex, 4);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      const auto& t = texels[static_cast<size_t>(y * 4 + x)];
      const Rgba c = f.color.at(x, y);
      EXPECT_EQ(c.r, t[0]) << x << "," << y;
      EXPECT_EQ(c.g, t[1]) << x << "," << y;
      EXPECT_EQ(c.b, t[2]) << x << "," << y;
    }
  }
  // The factor multiplies the (linear) texel.
  Material half = exact({0.5f, 1, 1, 1});
  const Frame g = render_quad(half, &tex, 4);
  EXPECT_EQ(g.color.at(3, 3).r, linear_to_srgb_byte(0.5f * srgb_decode_table()[texels[15][0]]));
}

TEST(Materials, BilinearBlendsNeighbouringTexelsWhereNearestPicksOne) {
  // Black and white texels side by side (linear), on 8 pixels across, clamped.
  const Texture tex = texture(2, 1, {{0, 0, 0, 255}, {255, 255, 255, 255}}, ColorSpace::kLinear);
  Material m = exact();
  m.base_color_texture.wrap_s = m.base_color_texture.wrap_t = Wrap::kClampToEdge;
  const Frame bilinear = render_quad(m, &tex, 8);
  m.base_color_texture.nearest = true;
  const Frame nearest = render_quad(m, &tex, 8);
  // Pixel 3: u = 3.5 / 8, texel coordinate 0.375 between texel 0 and 1.
  EXPECT_EQ(bilinear.color.at(3, 4).r, linear_to_srgb_byte(0.375f));
  EXPECT_EQ(bilinear.color.at(0, 4).r, 0);    // clamped at the edge: texel 0 alone
  EXPECT_EQ(bilinear.color.at(7, 4).r, 255);  // texel 1 alone
  std::set<int> values;
  for (int x = 0; x < 8; ++x) values.insert(nearest.color.at(x, 4).r);
  EXPECT_EQ(values, (std::set<int>{0, 255}));
  EXPECT_EQ(nearest.color.at(3, 4).r, 0);
  EXPECT_EQ(nearest.color.at(4, 4).r, 255);
}

TEST(Materials, WrapModesRepeatClampAndMirror) {
  // Red then green; uv runs 0 to 2 across 8 pixels, nearest.
  const Texture tex = texture(2, 1, {{255, 0, 0, 255}, {0, 255, 0, 255}});
  auto red_at = [&](Wrap wrap, int x) {
    Material m = exact();
    m.base_color_texture.nearest = true;
    m.base_color_texture.wrap_s = wrap;
    return render_quad(m, &tex, 8, 2.0f).color.at(x, 0).r == 255;
  };
  // Pixel 4: u = 1.125; pixel 6: u = 1.625.
  EXPECT_TRUE(red_at(Wrap::kRepeat, 4));
  EXPECT_FALSE(red_at(Wrap::kRepeat, 6));
  EXPECT_FALSE(red_at(Wrap::kClampToEdge, 4));
  EXPECT_FALSE(red_at(Wrap::kClampToEdge, 6));
  EXPECT_FALSE(red_at(Wrap::kMirroredRepeat, 4));
  EXPECT_TRUE(red_at(Wrap::kMirroredRepeat, 6));
  EXPECT_TRUE(red_at(Wrap::kRepeat, 1));  // u = 0.375 the same in every mode
  EXPECT_TRUE(red_at(Wrap::kMirroredRepeat, 1));
}

TEST(Materials, TextureTransformFollowsTheExtensionsExample) {
  // KHR_texture_transform's example (offset (0, 1), rotation pi/2, scale 0.5: the lower
  // left quadrant, turned): uv (0.9, 0.1) -> (0.05, 0.55), texel (0, 1) of a 2 x 2
  // texture. The opposite rotation sign would land on (-0.05, 1.45), texel (1, 0).
  TraceScene scene;
  const uint32_t t = scene.add_texture(
      texture(2, 2, {{10, 0, 0, 255}, {20, 0, 0, 255}, {30, 0, 0, 255}, {40, 0, 0, 255}},
              ColorSpace::kLinear));
  TextureRef ref;
  ref.texture = static_cast<int>(t);
  ref.nearest = true;
  ref.transform.offset[0] = 0.0f;
  ref.transform.offset[1] = 1.0f;
  ref.transform.rotation = 1.5707963f;
  ref.transform.scale[0] = ref.transform.scale[1] = 0.5f;
  EXPECT_NEAR(scene.sample(ref, {0.9f, 0.1f}).x, 30 / 255.0f, 1e-6f);
  ref.transform = {};
  EXPECT_NEAR(scene.sample(ref, {0.9f, 0.1f}).x, 20 / 255.0f, 1e-6f);
}

TEST(Materials, VertexColoursMultiplyTheBaseColour) {
  // Left corners red, right corners blue (linear): the middle is a mix.
  const std::array<Vec4, 4> colors{Vec4{1, 0, 0, 1}, Vec4{0, 0, 1, 1}, Vec4{0, 0, 1, 1},
                                   Vec4{1, 0, 0, 1}};
  const Frame f = render_quad(exact({1, 0.5f, 1, 1}), nullptr, 8, 1.0f, colors);
  const Rgba left = f.color.at(0, 4), mid = f.color.at(4, 4), right = f.color.at(7, 4);
  EXPECT_EQ(left.r, linear_to_srgb_byte(1.0f - 0.5f / 8.0f));
  EXPECT_EQ(left.g, 0);
  EXPECT_EQ(mid.r, linear_to_srgb_byte(1.0f - 4.5f / 8.0f));
  EXPECT_EQ(mid.b, linear_to_srgb_byte(4.5f / 8.0f));
  EXPECT_EQ(right.b, linear_to_srgb_byte(7.5f / 8.0f));
  const std::array<Vec4, 4> grey{Vec4{0.5f, 0.5f, 0.5f, 1}, Vec4{0.5f, 0.5f, 0.5f, 1},
                                 Vec4{0.5f, 0.5f, 0.5f, 1}, Vec4{0.5f, 0.5f, 0.5f, 1}};
  const Frame g = render_quad(exact({1, 0.5f, 1, 1}), nullptr, 8, 1.0f, grey);
  EXPECT_EQ(g.color.at(2, 2).r, linear_to_srgb_byte(0.5f));
  EXPECT_EQ(g.color.at(2, 2).g, linear_to_srgb_byte(0.25f));
}

// A front quad (id 1, material `front`, textured by `tex` when given) at z = 1 over an
// opaque blue quad (id 2) at z = 0.
TraceScene two_layers(const Material& front, const Texture* tex) {
  TraceScene scene;
  Material m = front;
  if (tex) m.base_color_texture.texture = static_cast<int>(scene.add_texture(*tex));
  const uint32_t a = scene.add_material(m);
  const uint32_t b = scene.add_material(exact({0, 0, 1, 1}));
  const Quad near(1.0f), far(0.0f);
  if (!scene.add_mesh({near.p, {}, near.uv, near.idx, 1, a})) std::abort();
  if (!scene.add_mesh({far.p, {}, far.uv, far.idx, 2, b})) std::abort();
  scene.build();
  return scene;
}

TEST(Materials, MaskHolesLetRaysThroughToTheSurfaceBehind) {
  // Left texel transparent, right opaque red; MASK at 0.5.
  const Texture tex = texture(2, 1, {{255, 0, 0, 0}, {255, 0, 0, 255}});
  Material m = exact();
  m.base_color_texture.nearest = true;
  m.alpha_mode = AlphaMode::kMask;
  const TraceScene scene = two_layers(m, &tex);
  RenderOptions o = front_view(8);
  o.ambient = 1.0f;
  auto f = render(scene, o);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->ids[4 * 8 + 1], 2u);  // through the hole: the quad behind
  EXPECT_EQ(f->color.at(1, 4).b, 255);
  EXPECT_EQ(f->ids[4 * 8 + 6], 1u);
  EXPECT_EQ(f->color.at(6, 4).r, 255);
  // OPAQUE ignores alpha: no hole.
  m.alpha_mode = AlphaMode::kOpaque;
  auto g = render(two_layers(m, &tex), o);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->ids[4 * 8 + 1], 1u);
  EXPECT_EQ(g->color.at(1, 4).r, 255);
  // A hole lets the light through too: the blue quad is lit under the hole, shadowed
  // under the opaque half (light straight down -z, ambient 0.5).
  m.alpha_mode = AlphaMode::kMask;
  o.ambient = 0.5f;
  o.shadows = true;
  o.light_direction = {0, 0, -1};
  auto s = render(two_layers(m, &tex), o);
  ASSERT_TRUE(s);
  EXPECT_GT(s->color.at(1, 4).b, 200);
  o.shadows = false;
  auto unshadowed = render(two_layers(m, &tex), o);
  ASSERT_TRUE(unshadowed);
  EXPECT_EQ(s->color.at(1, 4).b, unshadowed->color.at(1, 4).b);
}

TEST(Materials, BlendCompositesOverWhatIsBehind) {
  Material m = exact({1, 0, 0, 0.25f});
  m.alpha_mode = AlphaMode::kBlend;
  RenderOptions o = front_view(8);
  o.ambient = 1.0f;
  auto f = render(two_layers(m, nullptr), o);
  ASSERT_TRUE(f);
  const Rgba c = f->color.at(4, 4);
  EXPECT_EQ(c.r, linear_to_srgb_byte(0.25f));  // 0.25 red over 0.75 of the blue
  EXPECT_EQ(c.g, 0);
  EXPECT_EQ(c.b, linear_to_srgb_byte(0.75f));
  EXPECT_EQ(f->ids[4 * 8 + 4], 1u);  // the id is the first surface's
  // Over the background where nothing is behind.
  TraceScene alone;
  const uint32_t mat = alone.add_material(m);
  const Quad q(1.0f);
  ASSERT_TRUE(alone.add_mesh({q.p, {}, q.uv, q.idx, 1, mat}));
  alone.build();
  o.background = {0, 0, 0};
  auto g = render(alone, o);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->color.at(4, 4).r, linear_to_srgb_byte(0.25f));
}

TEST(Materials, SingleSidedTrianglesAreAbsentFromBehind) {
  Quad q;
  std::swap(q.idx[1], q.idx[2]);  // clockwise from +z: its front faces -z
  std::swap(q.idx[4], q.idx[5]);
  for (bool double_sided : {false, true}) {
    TraceScene scene;
    Material m;
    m.double_sided = double_sided;
    const uint32_t mat = scene.add_material(m);
    ASSERT_TRUE(scene.add_mesh({q.p, {}, q.uv, q.idx, 1, mat}));
    scene.build();
    auto ids = render_ids(scene, front_view(4).camera, 4, 4);
    ASSERT_TRUE(ids);
    EXPECT_EQ((*ids)[5], double_sided ? 1u : kNoObject);
    Camera behind = front_view(4).camera;
    behind.eye = {0, 0, -5};
    ids = render_ids(scene, behind, 4, 4);
    ASSERT_TRUE(ids);
    EXPECT_EQ((*ids)[5], 1u);  // from its front
  }
}

TEST(Materials, ANormalMapTiltsTheShadingNormal) {
  // A constant normal texel (255, 128, 255) with tangent +x: n = normalize(T tx + B ty +
  // N tz); the same quad with that vertex normal and no map must shade the same.
  const float tx = 2.0f * 1.0f - 1.0f, ty = 2.0f * (128 / 255.0f) - 1.0f, tz = 1.0f;
  const Vec3 tilted = normalize(Vec3{tx, ty, tz});  // B = cross(N, T) = +y
  const Texture tex = texture(1, 1, {{255, 128, 255, 255}}, ColorSpace::kLinear);
  const Quad q;
  const std::array<Vec3, 4> flat{Vec3{0, 0, 1}, Vec3{0, 0, 1}, Vec3{0, 0, 1}, Vec3{0, 0, 1}};
  const std::array<Vec3, 4> bent{tilted, tilted, tilted, tilted};
  const std::array<Vec4, 4> tangents{Vec4{1, 0, 0, 1}, Vec4{1, 0, 0, 1}, Vec4{1, 0, 0, 1},
                                     Vec4{1, 0, 0, 1}};
  RenderOptions o = front_view(4);
  o.light_direction = {-1, 0, -1};
  Material m;
  m.roughness = 0.5f;
  TraceScene mapped;
  Material mm = m;
  mm.normal_texture.texture = static_cast<int>(mapped.add_texture(tex));
  const uint32_t a = mapped.add_material(mm);
  MeshInput in{q.p, flat, q.uv, q.idx, 1, a};
  in.tangents = tangents;
  ASSERT_TRUE(mapped.add_mesh(in));
  mapped.build();
  TraceScene plain;
  const uint32_t b = plain.add_material(m);
  ASSERT_TRUE(plain.add_mesh({q.p, bent, q.uv, q.idx, 1, b}));
  plain.build();
  TraceScene unmapped;
  const uint32_t c = unmapped.add_material(m);
  ASSERT_TRUE(unmapped.add_mesh({q.p, flat, q.uv, q.idx, 1, c}));
  unmapped.build();
  auto fa = render(mapped, o), fb = render(plain, o), fc = render(unmapped, o);
  ASSERT_TRUE(fa && fb && fc);
  EXPECT_NEAR(fa->color.at(1, 1).r, fb->color.at(1, 1).r, 1);
  EXPECT_GT(fa->color.at(1, 1).r, fc->color.at(1, 1).r + 10);  // turned towards the light
}

TEST(Supersampling, GivesIntermediateValuesOnAnEdgeAndOnlyTwoWithoutIt) {
  // A white quad edge through the middle of a black image, slanted.
  TraceScene scene;
  const uint32_t mat = scene.add_material(exact());
  const Vec3 p[3] = {{-3, -3, 0}, {0.3f, -3, 0}, {-0.3f, 3, 0}};
  const uint32_t idx[3] = {0, 1, 2};
  ASSERT_TRUE(scene.add_mesh({p, {}, {}, idx, 1, mat}));
  scene.build();
  RenderOptions o = front_view(16);
  o.ambient = 1.0f;
  o.background = {0, 0, 0};
  std::set<int> one, four;
  for (int samples : {1, 4, 16}) {
    o.samples = samples;
    auto f = render(scene, o);
    ASSERT_TRUE(f);
    std::set<int> values;
    for (int y = 0; y < 16; ++y) {
      for (int x = 0; x < 16; ++x) values.insert(f->color.at(x, y).r);
    }
    if (samples == 1) {
      EXPECT_EQ(values, (std::set<int>{0, 255}));
    } else {
      EXPECT_GT(values.size(), 2u) << samples;  // edge pixels in between
      // One sample of four on the quad: a quarter of the light.
      if (samples == 4) {
        EXPECT_TRUE(values.count(linear_to_srgb_byte(0.25f))) << samples;
      }
    }
    // The id buffer keeps the pixel-centre ray, whatever the sample count.
    auto ids = render_ids(scene, o.camera, 16, 16);
    ASSERT_TRUE(ids);
    EXPECT_EQ(f->ids, *ids);
  }
  o.samples = 3;
  EXPECT_EQ(render(scene, o).error().code(), ErrorCode::kInvalidArgument);
}

TEST(Supersampling, GivesTheSameBytesForOneAndThreeThreads) {
  TraceScene scene;
  Material m;
  m.base_color = {0.9f, 0.4f, 0.2f, 1};
  m.roughness = 0.4f;
  const uint32_t mat = scene.add_material(m);
  const Vec3 p[4] = {{-1, -1, 0}, {1, -1, 0.5f}, {0.8f, 1, 0}, {-1, 0.9f, -0.5f}};
  const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
  ASSERT_TRUE(scene.add_mesh({p, {}, {}, idx, 1, mat}));
  scene.build();
  RenderOptions o;
  o.width = 61;
  o.height = 47;
  o.camera.eye = {0.5f, 0.4f, 4};
  for (int samples : {4, 16}) {
    o.samples = samples;
    o.threads = 1;
    auto a = render(scene, o);
    o.threads = 3;
    o.tile_size = 7;
    auto b = render(scene, o);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->color.rgba, b->color.rgba) << samples;
    EXPECT_EQ(a->ids, b->ids);
  }
}

TEST(Supersampling, ThePatternsHaveOnePointPerRowAndColumn) {
  for (int n : {1, 4, 16}) {
    std::span<const Vec2> s = sample_offsets(n);
    ASSERT_EQ(s.size(), static_cast<size_t>(n));
    std::set<int> xs, ys;
    for (const Vec2& v : s) {
      EXPECT_GE(v.x, 0.0f);
      EXPECT_LT(v.x, 1.0f);
      xs.insert(static_cast<int>(v.x * static_cast<float>(n)));
      ys.insert(static_cast<int>(v.y * static_cast<float>(n)));
    }
    EXPECT_EQ(xs.size(), static_cast<size_t>(n));
    EXPECT_EQ(ys.size(), static_cast<size_t>(n));
  }
  EXPECT_TRUE(sample_offsets(2).empty());
}

// The NDC of p seen by camera at the aspect.
Vec3 ndc(const Camera& cam, float aspect, Vec3 p) {
  const Mat4 vp = projection_matrix(cam, aspect) * view_matrix(cam);
  const float* m = vp.m;
  const float x = m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12];
  const float y = m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13];
  const float z = m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14];
  const float w = m[3] * p.x + m[7] * p.y + m[11] * p.z + m[15];
  return {x / w, y / w, z / w};
}

TEST(Framing, PutsTheWholeBoxInsideTheImageAndFillsIt) {
  const Aabb boxes[] = {
      {{-1, 0, -1}, {1, 2, 1}},
      {{10, -3, 4}, {10.5f, 9, 4.2f}},                  // tall and thin, off the origin
      {{-40, 0, -1}, {40, 1, 1}},                       // wide
      {{0.01f, 0.01f, 0.01f}, {0.02f, 0.05f, 0.015f}},  // small
  };
  for (const Aabb& box : boxes) {
    for (const auto& [w, h] : {std::pair{160, 120}, std::pair{64, 200}}) {
      for (bool ortho : {false, true}) {
        FramingOptions options;
        options.orthographic = ortho;
        const Camera cam = frame_box(box, w, h, options);
        const float aspect = static_cast<float>(w) / static_cast<float>(h);
        float widest = 0;
        for (int k = 0; k < 8; ++k) {
          const Vec3 corner{k & 1 ? box.hi.x : box.lo.x, k & 2 ? box.hi.y : box.lo.y,
                            k & 4 ? box.hi.z : box.lo.z};
          const Vec3 n = ndc(cam, aspect, corner);
          EXPECT_LE(std::fabs(n.x), 1.0f) << k;
          EXPECT_LE(std::fabs(n.y), 1.0f) << k;
          EXPECT_GT(n.z, -1.0f) << k;  // between the near and far planes
          EXPECT_LT(n.z, 1.0f) << k;
          widest = std::max({widest, std::fabs(n.x), std::fabs(n.y)});
        }
        EXPECT_GT(widest, 0.8f) << "the box fills the frame";
      }
    }
  }
  // An empty box still gives a usable camera.
  const Camera cam = frame_box(Aabb{}, 32, 32);
  EXPECT_GT(cam.far_plane, cam.near_plane);
}

TEST(CompareColors, CountsInteriorDifferencesOnlyAndChecksSizes) {
  // 5 x 5, object 1 in the 3 x 3 middle: only the centre pixel is interior.
  Image a(5, 5, {10, 10, 10, 255}), b(5, 5, {10, 10, 10, 255});
  std::vector<uint32_t> ids(25, kNoObject);
  for (int y = 1; y <= 3; ++y) {
    for (int x = 1; x <= 3; ++x) ids[static_cast<size_t>(y * 5 + x)] = 1;
  }
  b.set(1, 1, {200, 10, 10, 255});  // an edge pixel: skipped
  b.set(2, 2, {10, 16, 10, 255});   // the interior one
  auto d = compare_colors(a, b, ids, 4);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->compared, 1u);
  EXPECT_EQ(d->max_channel, 6);
  EXPECT_NEAR(d->mean_channel, 2.0, 1e-9);
  EXPECT_EQ(d->over, 1u);
  d = compare_colors(a, b, ids, 6);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->over, 0u);
  EXPECT_EQ(compare_colors(a, Image(4, 5), ids, 0).error().code(), ErrorCode::kSizeMismatch);
  ids.pop_back();
  EXPECT_EQ(compare_colors(a, b, ids, 0).error().code(), ErrorCode::kSizeMismatch);
}

}  // namespace
}  // namespace animpack::trace
