// Primary rays through pixel centres (camera.h), Lambert shading with one shadow ray to
// a directional light, tiles handed out to std::threads through an atomic counter.
#include "animpack/tracer/render.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

namespace animpack::trace {

namespace {

struct Target {
  Image* color = nullptr;  // null: ids only
  std::vector<uint32_t>* ids = nullptr;
};

Result<void> check(const TraceScene& scene, int width, int height, int threads, int tile) {
  if (width < 1 || height < 1 || width > 16384 || height > 16384) {
    return Error::make(ErrorCode::kInvalidArgument, "image size %dx%d outside 1..16384", width,
                       height);
  }
  if (threads < 0 || threads > 256) {
    return Error::make(ErrorCode::kInvalidArgument, "thread count %d outside 0..256", threads);
  }
  if (tile < 1 || tile > 1024) {
    return Error::make(ErrorCode::kInvalidArgument, "tile size %d outside 1..1024", tile);
  }
  if (!scene.built()) {
    return Error::make(ErrorCode::kInvalidArgument, "the scene's BVH is not built");
  }
  return ok();
}

int thread_count(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 256u));
}

uint8_t to_byte(float v) {
  const float c = std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f;
  return static_cast<uint8_t>(c);
}

class Renderer {
 public:
  Renderer(const TraceScene& scene, const RenderOptions& options, Target target)
      : scene_(scene), o_(options), target_(target) {
    light_ = normalize(o_.light_direction * -1.0f);  // towards the light
    const Aabb b = scene.bounds();
    const float size = b.valid() ? length(b.extent()) : 1.0f;
    bias_ = 1e-4f * std::max(size, 1e-3f);
  }

  void run(int threads, int tile) {
    const int tiles_x = (o_.width + tile - 1) / tile, tiles_y = (o_.height + tile - 1) / tile;
    const int tiles = tiles_x * tiles_y;
    std::atomic<int> next{0};
    auto work = [&] {
      for (int t = next.fetch_add(1); t < tiles; t = next.fetch_add(1)) {
        const int x0 = t % tiles_x * tile, y0 = t / tiles_x * tile;
        const int x1 = std::min(o_.width, x0 + tile), y1 = std::min(o_.height, y0 + tile);
        for (int y = y0; y < y1; ++y) {
          for (int x = x0; x < x1; ++x) shade(x, y);
        }
      }
    };
    threads = std::min(threads, tiles);
    std::vector<std::thread> pool;
    pool.reserve(static_cast<size_t>(threads - 1));
    for (int i = 1; i < threads; ++i) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
  }

 private:
  void shade(int x, int y) {
    const size_t pixel =
        static_cast<size_t>(y) * static_cast<size_t>(o_.width) + static_cast<size_t>(x);
    const Ray ray = pixel_ray(o_.camera, o_.width, o_.height, x, y);
    Hit hit;
    const bool found = scene_.closest(ray, &hit);
    if (target_.ids) (*target_.ids)[pixel] = found ? scene_.object_ids()[hit.triangle] : kNoObject;
    if (!target_.color) return;
    Vec3 c = o_.background;
    if (found) {
      const Surface s = scene_.surface(ray, hit);
      if (s.unlit) {
        c = s.color;
      } else {
        float lit = std::max(0.0f, dot(s.normal, light_));
        if (lit > 0.0f && dot(s.geometric_normal, light_) <= 0.0f) lit = 0.0f;  // self-shadow
        if (lit > 0.0f && o_.shadows) {
          Ray shadow;
          shadow.origin = s.position + s.geometric_normal * bias_;
          shadow.direction = light_;
          shadow.t_min = 0.0f;
          if (scene_.occluded(shadow)) lit = 0.0f;
        }
        c = s.color * (o_.ambient + (1.0f - o_.ambient) * lit);
      }
    }
    uint8_t* p = &target_.color->rgba[pixel * 4];
    p[0] = to_byte(c.x);
    p[1] = to_byte(c.y);
    p[2] = to_byte(c.z);
    p[3] = 255;
  }

  const TraceScene& scene_;
  const RenderOptions& o_;
  Target target_;
  Vec3 light_;
  float bias_ = 1e-4f;
};

}  // namespace

Ray pixel_ray(const Camera& camera, int width, int height, int x, int y) {
  const float aspect = static_cast<float>(width) / static_cast<float>(height);
  const float ndc_x = (static_cast<float>(x) + 0.5f) / static_cast<float>(width) * 2.0f - 1.0f;
  const float ndc_y = 1.0f - (static_cast<float>(y) + 0.5f) / static_cast<float>(height) * 2.0f;
  Ray ray;
  camera_ray(camera, aspect, ndc_x, ndc_y, &ray.origin, &ray.direction);
  // GL keeps view depths in [near, far]: depth(t) = dot(origin - eye, forward) +
  // t * dot(direction, forward).
  const Vec3 forward = normalize(camera.target - camera.eye);
  const float d0 = dot(ray.origin - camera.eye, forward), dd = dot(ray.direction, forward);
  if (dd > 0.0f) {
    ray.t_min = std::max(0.0f, (camera.near_plane - d0) / dd);
    ray.t_max = (camera.far_plane - d0) / dd;
  }
  return ray;
}

Result<Frame> render(const TraceScene& scene, const RenderOptions& options) {
  if (auto r = check(scene, options.width, options.height, options.threads, options.tile_size);
      !r) {
    return r.error();
  }
  Frame frame;
  frame.color = Image(options.width, options.height);
  frame.ids.assign(static_cast<size_t>(options.width) * static_cast<size_t>(options.height),
                   kNoObject);
  Renderer(scene, options, {&frame.color, &frame.ids})
      .run(thread_count(options.threads), options.tile_size);
  return frame;
}

Result<std::vector<uint32_t>> render_ids(const TraceScene& scene, const Camera& camera, int width,
                                         int height, int threads) {
  RenderOptions options;
  options.camera = camera;
  options.width = width;
  options.height = height;
  options.threads = threads;
  if (auto r = check(scene, width, height, threads, options.tile_size); !r) return r.error();
  std::vector<uint32_t> ids(static_cast<size_t>(width) * static_cast<size_t>(height), kNoObject);
  Renderer(scene, options, {nullptr, &ids}).run(thread_count(threads), options.tile_size);
  return ids;
}

Result<IdDifference> compare_ids(std::span<const uint32_t> a, std::span<const uint32_t> b,
                                 int width, int height) {
  const size_t n =
      static_cast<size_t>(std::max(width, 0)) * static_cast<size_t>(std::max(height, 0));
  if (a.size() != n || b.size() != n) {
    return Error::make(ErrorCode::kSizeMismatch, "id buffers of %zu and %zu pixels for %dx%d",
                       a.size(), b.size(), width, height);
  }
  // Whether every neighbour of (x, y) in `ids` has the pixel's own id.
  auto interior = [&](std::span<const uint32_t> ids, int x, int y) {
    const uint32_t own =
        ids[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)];
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const int nx = x + dx, ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
        if (ids[static_cast<size_t>(ny) * static_cast<size_t>(width) + static_cast<size_t>(nx)] !=
            own) {
          return false;
        }
      }
    }
    return true;
  };
  IdDifference d;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const size_t i = static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x);
      if (a[i] == b[i]) continue;
      ++d.pixels;
      if (interior(a, x, y) && interior(b, x, y)) ++d.off_edge;
    }
  }
  return d;
}

}  // namespace animpack::trace
