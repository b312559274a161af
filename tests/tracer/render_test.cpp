// Rendering: the bind-pose column from the side is its analytic rectangle; a posed
// column matches a rasterized reference (projection_matrix, pixel centres) on edges only,
// as the GL id buffer will; the BVH image is the brute-force image; any thread count and
// tile size give the same bits; Lambert, shadows, sprite texels and holes, clip planes.
#include "animpack/tracer/render.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

#include "animpack/animator.h"
#include "trace_fixture.h"

namespace animpack::trace {
namespace {

using trace_test::kCard;
using trace_test::kColumn;

// The fixture pack, opened once for the suite.
const Pack& fixture_pack() {
  static const Pack pack = [] {
    auto p = Pack::from_bytes(trace_test::pack_bytes());
    if (!p) std::abort();
    return std::move(*p);
  }();
  return pack;
}

// The column alone (other objects dropped from the snapshot), posed by `palette`.
TraceScene column_scene(std::span<const Mat4> palette) {
  Posed posed = trace_test::posed(fixture_pack(), palette, {}, 0);
  posed.objects.resize(1);
  auto scene = stage_posed(fixture_pack(), posed);
  if (!scene) std::abort();
  return std::move(*scene);
}

// The fixture's Rotate clip at `tick`.
std::vector<Mat4> rotate_palette(int64_t tick) {
  auto a = Animator::create(&fixture_pack().rig(0), 60);
  if (!a || !a->play("Rotate", 0)) std::abort();
  a->evaluate(tick);
  return {a->palette().begin(), a->palette().end()};
}

// A GL-like rasterizer for the reference: clip = projection * view * p, pixel centres
// inside a triangle (edges included) take its id, nearest NDC depth wins.
std::vector<uint32_t> rasterize_ids(const TraceScene& scene, const Camera& camera, int width,
                                    int height) {
  const float aspect = static_cast<float>(width) / static_cast<float>(height);
  const Mat4 vp = projection_matrix(camera, aspect) * view_matrix(camera);
  std::vector<uint32_t> ids(static_cast<size_t>(width * height), kNoObject);
  std::vector<float> depth(ids.size(), 2.0f);
  for (size_t t = 0; t < scene.triangle_count(); ++t) {
    const Triangle& tri = scene.triangles()[t];
    float sx[3], sy[3], sz[3];
    const Vec3 corners[3] = {tri.a, tri.b, tri.c};
    for (int k = 0; k < 3; ++k) {
      const Vec3 p = corners[k];
      const float* m = vp.m;
      const float cx = m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12];
      const float cy = m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13];
      const float cz = m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14];
      const float cw = m[3] * p.x + m[7] * p.y + m[11] * p.z + m[15];
      sx[k] = (cx / cw + 1.0f) * 0.5f * static_cast<float>(width);
      sy[k] = (1.0f - cy / cw) * 0.5f * static_cast<float>(height);
      sz[k] = cz / cw;
    }
    const float area = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
    if (area == 0.0f) continue;
    const int x0 = std::max(0, static_cast<int>(std::floor(std::min({sx[0], sx[1], sx[2]}))));
    const int x1 =
        std::min(width - 1, static_cast<int>(std::ceil(std::max({sx[0], sx[1], sx[2]}))));
    const int y0 = std::max(0, static_cast<int>(std::floor(std::min({sy[0], sy[1], sy[2]}))));
    const int y1 =
        std::min(height - 1, static_cast<int>(std::ceil(std::max({sy[0], sy[1], sy[2]}))));
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        const float px = static_cast<float>(x) + 0.5f, py = static_cast<float>(y) + 0.5f;
        float w[3];
        for (int k = 0; k < 3; ++k) {
          const int i = (k + 1) % 3, j = (k + 2) % 3;
          w[k] = ((sx[j] - sx[i]) * (py - sy[i]) - (px - sx[i]) * (sy[j] - sy[i])) / area;
        }
        if (w[0] < 0 || w[1] < 0 || w[2] < 0) continue;
        const float z = w[0] * sz[0] + w[1] * sz[1] + w[2] * sz[2];
        const size_t i = static_cast<size_t>(y * width + x);
        if (z < -1.0f || z > 1.0f || z >= depth[i]) continue;
        depth[i] = z;
        ids[i] = scene.object_ids()[t];
      }
    }
  }
  return ids;
}

TEST(Render, TheBindPoseColumnFromTheSideIsItsAnalyticRectangle) {
  const TraceScene scene = column_scene({});
  // Orthographic, looking down -z at (0, 2): the image spans x in [-2, 2] and y in
  // [-0.5, 4.5], 1/16 unit per pixel, so the column's edges fall between pixel centres.
  Camera cam;
  cam.orthographic = true;
  cam.ortho_height = 5.0f;
  cam.eye = {0, 2, 10};
  cam.target = {0, 2, 0};
  const int w = 64, h = 80;
  auto ids = render_ids(scene, cam, w, h);
  ASSERT_TRUE(ids) << ids.error().message();
  int differ = 0, inside = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const float wx = -2.0f + (static_cast<float>(x) + 0.5f) / 16.0f;
      const float wy = 4.5f - (static_cast<float>(y) + 0.5f) / 16.0f;
      const bool in = std::fabs(wx) < 0.25f && wy > 0.0f && wy < 4.0f;
      inside += in;
      differ += (*ids)[static_cast<size_t>(y * w + x)] != (in ? object_id(kColumn) : kNoObject);
    }
  }
  EXPECT_EQ(inside, 8 * 64);  // 0.5 x 4 units
  EXPECT_EQ(differ, 0);
}

TEST(Render, APosedColumnMatchesARasterizedReferenceExceptOnEdges) {
  const std::vector<Mat4> palette = rotate_palette(40);
  const TraceScene scene = column_scene(palette);
  Camera cam;
  cam.eye = {1.5f, 2.5f, 7.0f};
  cam.target = {-0.5f, 1.8f, 0};
  const int w = 96, h = 80;
  auto traced = render_ids(scene, cam, w, h);
  ASSERT_TRUE(traced);
  const std::vector<uint32_t> raster = rasterize_ids(scene, cam, w, h);
  auto diff = compare_ids(*traced, raster, w, h);
  ASSERT_TRUE(diff);
  const size_t covered = static_cast<size_t>(std::count(raster.begin(), raster.end(), 1u));
  EXPECT_GT(covered, 300u);
  EXPECT_LE(diff->pixels * 200, static_cast<size_t>(w * h)) << diff->pixels;  // <= 0.5 %
  EXPECT_EQ(diff->off_edge, 0u);
}

// What TraceScene::closest counts, for the brute-force reference: no holes, no
// single-sided triangle from behind.
class Counts final : public HitFilter {
 public:
  Counts(const TraceScene& scene, const Ray& ray) : scene_(scene), ray_(ray) {}
  bool accept(uint32_t triangle, const TriangleHit& hit) const override {
    return scene_.hit_counts(ray_, triangle, hit.u, hit.v);
  }

 private:
  const TraceScene& scene_;
  const Ray& ray_;
};

TEST(Render, TheBvhSeesWhatBruteForceSeesInEveryPixel) {
  const std::vector<Mat4> palette = rotate_palette(20);
  Mat4 arm[2];
  arm[1] = to_matrix(Trs{{1, 0, 0}, quat_from_axis_angle({0, 1, 0}, 0.7f), {1, 1, 1}});
  StageOptions options;
  options.cardless_sprites = true;
  auto scene =
      stage_posed(fixture_pack(), trace_test::posed(fixture_pack(), palette, arm, 1), options);
  ASSERT_TRUE(scene);
  Camera cam;
  cam.eye = {0.5f, 2.2f, 5.0f};
  cam.target = {0, 1.4f, -1};
  const int w = 64, h = 48;
  auto ids = render_ids(*scene, cam, w, h, 2);
  ASSERT_TRUE(ids);
  int hits = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const Ray ray = pixel_ray(cam, w, h, x, y);
      const Counts filter(*scene, ray);
      Hit a, b;
      const bool ha = scene->closest(ray, &a);
      const bool hb = closest_hit_brute_force(scene->triangles(), ray, &b, &filter);
      ASSERT_EQ(ha, hb) << x << "," << y;
      EXPECT_EQ((*ids)[static_cast<size_t>(y * w + x)],
                hb ? scene->object_ids()[b.triangle] : kNoObject);
      if (!ha) continue;
      ++hits;
      EXPECT_EQ(a.triangle, b.triangle);
      EXPECT_TRUE(bits_equal(&a.t, &b.t, 1));
    }
  }
  EXPECT_GT(hits, 300);
}

TEST(Render, GivesTheSameBitsForAnyThreadCountAndTileSize) {
  const std::vector<Mat4> palette = rotate_palette(30);
  auto scene = stage_posed(fixture_pack(), trace_test::posed(fixture_pack(), palette, {}, 3));
  ASSERT_TRUE(scene);
  RenderOptions o;
  o.width = 72;
  o.height = 56;
  o.camera.eye = {1, 3, 7};
  o.camera.target = {0.5f, 1.5f, -1};
  o.threads = 1;
  auto one = render(*scene, o);
  ASSERT_TRUE(one);
  for (int threads : {2, 3, 8}) {
    for (int tile : {5, 16, 64}) {
      o.threads = threads;
      o.tile_size = tile;
      auto many = render(*scene, o);
      ASSERT_TRUE(many);
      EXPECT_EQ(many->color.rgba, one->color.rgba) << threads << " threads, tile " << tile;
      EXPECT_EQ(many->ids, one->ids) << threads << " threads, tile " << tile;
    }
  }
  auto ids = render_ids(*scene, o.camera, o.width, o.height, 3);
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids, one->ids);
}

// A square of side 2 in the z = 0 plane, facing +z, in a scene of its own.
TraceScene square(Vec3 color, float z = 0.0f) {
  TraceScene scene;
  Material m;
  m.base_color = {color.x, color.y, color.z, 1.0f};
  const uint32_t mat = scene.add_material(m);
  const Vec3 p[4] = {{-1, -1, z}, {1, -1, z}, {1, 1, z}, {-1, 1, z}};
  const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
  if (!scene.add_mesh({p, {}, {}, idx, 7, mat})) std::abort();
  scene.build();
  return scene;
}

// The shading model of docs/tracer.md written out again, on its own: the linear red
// channel of a grey (base.r) dielectric or metal seen along -z through normal n.
float reference_red(float base, float metallic, float roughness, Vec3 n, Vec3 v, Vec3 l,
                    float ambient, float shadow) {
  const double pi = 3.14159265358979;
  const double c_diff = base * (1.0 - metallic), f0 = 0.04 * (1.0 - metallic) + base * metallic;
  const double a = static_cast<double>(roughness) * roughness, a2 = a * a;
  auto dotd = [](Vec3 p, Vec3 q) {
    return double{p.x} * q.x + double{p.y} * q.y + double{p.z} * q.z;
  };
  const double nl = std::max(0.0, dotd(n, l)), nv = std::max(0.0, dotd(n, v));
  double direct = 0;
  if (nl > 0) {
    Vec3 h = l + v;
    h = h * static_cast<float>(1.0 / std::sqrt(dotd(h, h)));
    const double nh = std::max(0.0, dotd(n, h)), vh = std::max(0.0, dotd(v, h));
    const double d = a2 / (pi * std::pow(nh * nh * (a2 - 1) + 1, 2));
    const double vis =
        0.5 / (nl * std::sqrt(nv * nv * (1 - a2) + a2) + nv * std::sqrt(nl * nl * (1 - a2) + a2));
    const double f = f0 + (1 - f0) * std::pow(1 - vh, 5);
    direct = (c_diff / pi + f * d * vis) * nl * pi * (1 - ambient) * shadow;
  }
  return static_cast<float>(std::clamp(direct + ambient * (c_diff + f0), 0.0, 1.0));
}

// The byte the exact sRGB curve gives a linear value.
int srgb_byte(float linear) {
  const double l = std::clamp(static_cast<double>(linear), 0.0, 1.0);
  const double e = l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
  return static_cast<int>(e * 255.0 + 0.5);
}

TEST(Render, ShadesBySharedModelWithTheLightsAngle) {
  TraceScene scene = square({1, 1, 1});
  RenderOptions o;
  o.width = o.height = 8;
  o.camera.orthographic = true;  // one view direction for every sample: (0, 0, 1)
  o.camera.eye = {0, 0, 5};
  o.camera.target = {0, 0, 0};
  o.ambient = 0.2f;
  const Vec3 n{0, 0, 1}, v{0, 0, 1};
  o.light_direction = {0, 0, -1};  // straight onto the square
  auto lit = render(scene, o);
  ASSERT_TRUE(lit);
  EXPECT_EQ(lit->color.at(4, 4).r, 255);  // 0.2 * 1.04 + 0.8 * (1 + specular) > 1
  EXPECT_EQ(lit->ids[4 * 8 + 4], 7u);
  // A darker, rougher grey at 60 degrees off the normal; then a metal.
  Material m;
  m.base_color = {0.3f, 0.3f, 0.3f, 1.0f};
  m.roughness = 0.6f;
  const Vec3 p[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
  const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
  for (float metallic : {0.0f, 1.0f}) {
    m.metallic = metallic;
    TraceScene grey;
    const uint32_t mat = grey.add_material(m);
    ASSERT_TRUE(grey.add_mesh({p, {}, {}, idx, 7, mat}));
    grey.build();
    o.light_direction = {0, -std::sqrt(3.0f), -1};
    auto slanted = render(grey, o);
    ASSERT_TRUE(slanted);
    const Vec3 l = normalize(Vec3{0, std::sqrt(3.0f), 1});
    EXPECT_NEAR(slanted->color.at(4, 4).r,
                srgb_byte(reference_red(0.3f, metallic, 0.6f, n, v, l, 0.2f, 1.0f)), 1.0)
        << metallic;
  }
  o.light_direction = {0, 0, 1};  // from behind: the ambient term alone
  auto dark = render(scene, o);
  ASSERT_TRUE(dark);
  EXPECT_NEAR(dark->color.at(4, 4).r, srgb_byte(0.2f * 1.04f), 1.0);
  EXPECT_EQ(dark->color.at(0, 0).r, static_cast<uint8_t>(o.background.x * 255.0f + 0.5f));
  EXPECT_EQ(dark->ids[0], kNoObject);
}

TEST(Render, AnOccluderCastsAShadowTowardsTheLight) {
  // A ground square at z = 0 and a small square hovering over its left half at z = 1;
  // the light falls straight down -z, the camera looks from a slant.
  TraceScene scene;
  Material grey;
  const uint32_t mat = scene.add_material(grey);
  const Vec3 ground[4] = {{-2, -2, 0}, {2, -2, 0}, {2, 2, 0}, {-2, 2, 0}};
  const Vec3 roof[4] = {{-1.5f, -0.5f, 1}, {-0.5f, -0.5f, 1}, {-0.5f, 0.5f, 1}, {-1.5f, 0.5f, 1}};
  const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
  ASSERT_TRUE(scene.add_mesh({ground, {}, {}, idx, 1, mat}));
  ASSERT_TRUE(scene.add_mesh({roof, {}, {}, idx, 2, mat}));
  scene.build();
  RenderOptions o;
  o.width = o.height = 40;
  o.camera.orthographic = true;
  o.camera.ortho_height = 4.0f;
  o.camera.eye = {0, 0, 6};
  o.light_direction = {0, 0, -1};
  o.ambient = 0.25f;
  const Vec3 n{0, 0, 1}, v{0, 0, 1};
  // Straight down the light: the roof hides its own shadow; look at the ground beside it.
  auto frame = render(scene, o);
  ASSERT_TRUE(frame);
  const Rgba lit = frame->color.at(30, 20);
  EXPECT_EQ(frame->ids[20 * 40 + 10], 2u);
  EXPECT_NEAR(lit.r, srgb_byte(reference_red(0.8f, 0, 1, n, v, n, 0.25f, 1.0f)), 1.0);
  // Now the light comes in at 45 degrees from +x: the shadow falls to the roof's -x side
  // onto the ground, and the ground beyond it stays lit.
  o.light_direction = {-1, 0, -1};
  frame = render(scene, o);
  ASSERT_TRUE(frame);
  const int shadow_x = 3;  // world x = -1.65: in the roof's shadow, not under the roof
  EXPECT_EQ(frame->ids[20 * 40 + shadow_x], 1u);
  EXPECT_LT(frame->color.at(shadow_x, 20).r, frame->color.at(30, 20).r);
  EXPECT_NEAR(frame->color.at(shadow_x, 20).r, srgb_byte(0.25f * (0.8f + 0.04f)), 1.0);
  o.shadows = false;
  frame = render(scene, o);
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->color.at(shadow_x, 20).r, frame->color.at(30, 20).r);
}

TEST(Render, SpriteCardsShowTheirFrameAndLetRaysThroughTransparentTexels) {
  Posed posed = trace_test::posed(fixture_pack(), {}, {}, 1);
  posed.objects = {posed.objects[kCard]};
  // The card: x in [1.5, 2.5], y in [0, 2]; the frame's 8 x 8 texels stretch over it.
  Camera cam;
  cam.orthographic = true;
  cam.ortho_height = 2.0f;
  cam.eye = {2, 1, 5};
  cam.target = {2, 1, 0};
  RenderOptions o;
  o.camera = cam;
  o.width = 16;
  o.height = 32;
  auto scene = stage_posed(fixture_pack(), posed);
  ASSERT_TRUE(scene);
  auto frame = render(*scene, o);
  ASSERT_TRUE(frame);
  const std::array<uint8_t, 4> c = trace_test::frame_color(1);
  // Frame 1's left half is transparent: background and no id there.
  EXPECT_EQ(frame->ids[10 * 16 + 3], kNoObject);
  EXPECT_EQ(frame->ids[10 * 16 + 12], object_id(kCard));
  const Rgba right = frame->color.at(12, 10);
  EXPECT_EQ(right.r, c[0]);  // unlit: the texel itself
  EXPECT_EQ(right.g, c[1]);
  EXPECT_EQ(right.b, c[2]);
  // Frame 2 is opaque everywhere.
  posed.objects[0].sprite_frame = 2;
  scene = stage_posed(fixture_pack(), posed);
  ASSERT_TRUE(scene);
  frame = render(*scene, o);
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->ids[10 * 16 + 3], object_id(kCard));
  EXPECT_EQ(frame->color.at(3, 10).r, trace_test::frame_color(2)[0]);
}

TEST(Render, KeepsOnlyViewDepthsBetweenTheNearAndFarPlanes) {
  const TraceScene scene = square({1, 1, 1});
  Camera cam;
  cam.eye = {0, 0, 5};
  cam.near_plane = 5.5f;  // the square is 5 units away
  auto ids = render_ids(scene, cam, 8, 8);
  ASSERT_TRUE(ids);
  EXPECT_EQ((*ids)[36], kNoObject);
  cam.near_plane = 0.05f;
  cam.far_plane = 4.5f;
  ids = render_ids(scene, cam, 8, 8);
  ASSERT_TRUE(ids);
  EXPECT_EQ((*ids)[36], kNoObject);
  cam.far_plane = 5.5f;
  ids = render_ids(scene, cam, 8, 8);
  ASSERT_TRUE(ids);
  EXPECT_EQ((*ids)[36], 7u);
}

TEST(Render, TracesPixelCentresThroughCameraRay) {
  Camera cam;
  cam.eye = {1, 2, 3};
  cam.target = {0, 0, 0};
  const Ray r = pixel_ray(cam, 10, 4, 2, 3);
  Vec3 origin, direction;
  camera_ray(cam, 2.5f, (2.5f / 10.0f) * 2 - 1, 1 - (3.5f / 4.0f) * 2, &origin, &direction);
  EXPECT_TRUE(bits_equal(&r.origin.x, &origin.x, 3));
  EXPECT_TRUE(bits_equal(&r.direction.x, &direction.x, 3));
}

TEST(Render, RefusesBadSizesThreadCountsTilesAndUnbuiltScenes) {
  const TraceScene scene = square({1, 1, 1});
  RenderOptions o;
  o.width = 0;
  EXPECT_EQ(render(scene, o).error().code(), ErrorCode::kInvalidArgument);
  o.width = 8;
  o.threads = -1;
  EXPECT_EQ(render(scene, o).error().code(), ErrorCode::kInvalidArgument);
  o.threads = 1;
  o.tile_size = 0;
  EXPECT_EQ(render(scene, o).error().code(), ErrorCode::kInvalidArgument);
  o.tile_size = 16;
  EXPECT_TRUE(render(scene, o));
  TraceScene unbuilt;
  EXPECT_EQ(render(unbuilt, o).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(render_ids(unbuilt, o.camera, 8, 8).error().code(), ErrorCode::kInvalidArgument);
  o.threads = 0;  // one per core
  EXPECT_TRUE(render(scene, o));
}

TEST(Render, ComparesIdBuffersAndTellsEdgesFromInteriors) {
  // 5 x 5: a 3 x 3 block of id 1 in b; a has it too but for one interior pixel and one
  // pixel on the block's edge.
  std::vector<uint32_t> a(25, 0), b(25, 0);
  for (int y = 1; y <= 3; ++y) {
    for (int x = 1; x <= 3; ++x)
      a[static_cast<size_t>(y * 5 + x)] = b[static_cast<size_t>(y * 5 + x)] = 1;
  }
  auto same = compare_ids(a, b, 5, 5);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->pixels, 0u);
  a[12] = 2;  // the centre: every neighbour is 1 in b, but not in a (itself differs) ...
  a[0] = 1;   // a corner outside the block, next to it: an edge
  auto d = compare_ids(a, b, 5, 5);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->pixels, 2u);
  EXPECT_EQ(d->off_edge, 0u);  // ... a's centre differs from its neighbours: an edge in a
  std::vector<uint32_t> big_a(49, 1), big_b(49, 1);
  big_a[24] = 2;
  big_a[23] = big_a[25] = big_a[17] = big_a[31] = 2;
  big_a[16] = big_a[18] = big_a[30] = big_a[32] = 2;  // a 3 x 3 block of 2 in a
  auto block = compare_ids(big_a, big_b, 7, 7);
  ASSERT_TRUE(block);
  EXPECT_EQ(block->pixels, 9u);
  EXPECT_EQ(block->off_edge, 1u);  // only its centre is interior in both
  EXPECT_EQ(compare_ids(a, b, 4, 5).error().code(), ErrorCode::kSizeMismatch);
}

}  // namespace
}  // namespace animpack::trace
