// Ray traces a staged scene with the camera model of camera.h (shared with gl/, so a
// traced frame and a GL frame of the same pose compare pixel for pixel): the shading
// model of shading.h (glTF metallic-roughness, one directional light with a shadow ray,
// ambient), MASK holes, BLEND layers composited, a fixed supersampling pattern, and an
// object-id buffer. Multithreaded over tiles; the result is the same, bit for bit, for
// any thread count and tile size (each pixel depends on its own rays alone).
//
//   animpack::trace::RenderOptions options;
//   options.width = 320;
//   options.height = 240;
//   options.camera = animpack::trace::frame_box(scene->bounds(), 320, 240);  // framing.h
//   options.threads = 2;
//   animpack::Result<animpack::trace::Frame> frame = animpack::trace::render(*scene, options);
//   if (frame) (void)animpack::trace::write_png(frame->color, "frame.png");
//
// Pixel (x, y), y down from the top row, covers image coordinates [x, x + 1) x [y, y + 1).
// Its colour averages, in linear light, the rays through the points of
// sample_offsets(samples) in it, then encodes the average with the exact sRGB curve. Its
// id is that of the ray through its centre, NDC ((x + 0.5) / W * 2 - 1,
// 1 - (y + 0.5) / H * 2), so the id buffer is the same for every sample count (and is
// what GL's id buffer is held to). Rays keep to view depths between the camera's near
// and far planes (what GL's clipping keeps).
//
// Along a ray: the first surface that counts (TraceScene::closest: MASK holes and
// single-sided triangles seen from behind are passed through) is shaded; a BLEND surface
// is composited "over" what lies behind it (front to back, alpha = base alpha), at most
// kMaxBlendLayers of them per ray, the next surface taken as opaque; the background is
// behind everything. Shadow rays pass through holes, back faces of single-sided
// triangles and BLEND surfaces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "animpack/camera.h"
#include "animpack/math.h"
#include "animpack/result.h"
#include "animpack/tracer/image.h"
#include "animpack/tracer/shading.h"
#include "animpack/tracer/stage.h"

namespace animpack::trace {

// BLEND surfaces composited along one ray, at most.
inline constexpr int kMaxBlendLayers = 8;
// The sample counts render() takes.
inline constexpr int kMaxSamples = 16;

struct RenderOptions {
  int width = 256, height = 256;  // 1 to 16384 each
  Camera camera;
  // The way the light travels (normalised here); a sun from above, left and front.
  Vec3 light_direction{-0.45f, -1.0f, -0.55f};
  bool shadows = true;
  float ambient = 0.3f;  // the ambient term's weight, 0 to 1; the light's is pi (1 - ambient)
  // Shown where no surface is, as sRGB-encoded values in [0, 1] (the bytes / 255).
  Vec3 background{0.094f, 0.102f, 0.125f};
  // Rays per pixel: 1 (its centre), 4 or 16 (sample_offsets()).
  int samples = 4;
  int threads = 1;     // 1 to 256; 0 picks std::thread::hardware_concurrency()
  int tile_size = 16;  // pixels per tile side, 1 to 1024
};

// A rendered frame: the shaded colours and, per pixel, the id of the object seen
// (object_id() of stage.h; kNoObject for background). Both rows top to bottom.
struct Frame {
  Image color;
  std::vector<uint32_t> ids;
};

// The camera ray through the centre of pixel (x, y) of a width x height image, with
// t_min and t_max at the near and far planes.
Ray pixel_ray(const Camera& camera, int width, int height, int x, int y);
// The camera ray through image point (px, py) (pixel (x, y)'s centre is (x + 0.5,
// y + 0.5); pixel_ray gives the same bits), kept to the near and far planes.
Ray image_ray(const Camera& camera, int width, int height, float px, float py);

// The sample points in a pixel for `samples` rays per pixel (1, 4 or 16; empty for any
// other count), as offsets in [0, 1)^2 from its top-left corner. 1: the centre. 4: the
// rotated grid (x = 3/8, 7/8, 1/8, 5/8 with y = 1/8, 3/8, 5/8, 7/8). 16: n-rooks on a
// 16 x 16 grid, sample i at x = ((5 i + 3) mod 16 + 0.5) / 16, y = (i + 0.5) / 16: one
// sample in every row and column of the grid, spread like a rotated lattice.
std::span<const Vec2> sample_offsets(int samples);

// Renders the scene. kInvalidArgument for sizes, threads, tile size or sample count out of
// range, or a scene whose BVH is not built.
[[nodiscard]] Result<Frame> render(const TraceScene& scene, const RenderOptions& options);

// Only the id buffer (primary rays, no shading): what a GL id-buffer readback is held
// to. ids[y * width + x], rows top to bottom. Errors as render().
[[nodiscard]] Result<std::vector<uint32_t>> render_ids(const TraceScene& scene,
                                                       const Camera& camera, int width, int height,
                                                       int threads = 1);

// How two id buffers of one size differ: what the GL-vs-tracer test asserts on.
struct IdDifference {
  size_t pixels = 0;    // pixels whose ids differ
  size_t off_edge = 0;  // of those, pixels not on an edge: all 8 neighbours (in both
                        // buffers) carry the pixel's own id from that buffer
};
// Compares a and b (width x height each, same row order). kSizeMismatch when their sizes
// are not width * height.
[[nodiscard]] Result<IdDifference> compare_ids(std::span<const uint32_t> a,
                                               std::span<const uint32_t> b, int width, int height);

// How two colour images of one size differ away from edges: what the GL-vs-tracer colour
// test asserts on (GL shadows off, the tracer's RenderOptions::shadows = false, the same
// camera and one sample, or both anti-aliased). Pixels on an edge of `ids` (an 8-neighbour
// with another id) or with id kNoObject are skipped.
struct ColorDifference {
  size_t compared = 0;      // interior object pixels compared
  int max_channel = 0;      // the largest |a - b| of any RGB channel over them, 0 to 255
  double mean_channel = 0;  // the mean |a - b| over their RGB channels
  size_t over = 0;          // pixels with some channel differing by more than `tolerance`
};
// Compares a and b over the interior pixels of `ids` (width x height of a). kSizeMismatch
// when b or ids do not match a's size.
[[nodiscard]] Result<ColorDifference> compare_colors(const Image& a, const Image& b,
                                                     std::span<const uint32_t> ids, int tolerance);

}  // namespace animpack::trace
