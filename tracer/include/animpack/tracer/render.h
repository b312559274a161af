// Ray traces a staged scene: one primary ray per pixel through its centre, with the
// camera model of camera.h (shared with gl/, so a traced frame and a GL frame of the same
// pose compare pixel for pixel), Lambert shading, one shadow ray towards a directional
// light, and an object-id buffer. Multithreaded over tiles; the result is the same, bit
// for bit, for any thread count and tile size (each pixel depends on its ray alone).
//
//   animpack::trace::RenderOptions options;
//   options.width = 320;
//   options.height = 240;
//   options.camera.eye = {0, 2, 6};
//   options.camera.target = {0, 1, 0};
//   options.threads = 2;
//   animpack::Result<animpack::trace::Frame> frame = animpack::trace::render(*scene, options);
//   if (frame) (void)animpack::trace::write_png(frame->color, "frame.png");
//
// Pixel (x, y), y down from the top row, takes the ray camera_ray() gives for NDC
// ((x + 0.5) / W * 2 - 1, 1 - (y + 0.5) / H * 2), limited to view depths between the
// camera's near and far planes (what GL's clipping keeps).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "animpack/camera.h"
#include "animpack/math.h"
#include "animpack/result.h"
#include "animpack/tracer/image.h"
#include "animpack/tracer/stage.h"

namespace animpack::trace {

struct RenderOptions {
  int width = 256, height = 256;  // 1 to 16384 each
  Camera camera;
  // The way the light travels (normalised here); a sun from above, left and front.
  Vec3 light_direction{-0.45f, -1.0f, -0.55f};
  bool shadows = true;
  float ambient = 0.3f;  // share of the albedo lit without the light
  Vec3 background{0.094f, 0.102f, 0.125f};
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

// Renders the scene. kInvalidArgument for sizes, threads or tile size out of range, or
// a scene whose BVH is not built.
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

}  // namespace animpack::trace
