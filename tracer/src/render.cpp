// Primary rays at fixed sample points in each pixel (camera.h), the shading model of
// shading.h with one shadow ray to a directional light, BLEND layers composited front to
// back, tiles handed out to std::threads through an atomic counter.
#include "animpack/tracer/render.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <thread>

namespace animpack::trace {

namespace {

struct Target {
  Image* color = nullptr;  // null: ids only
  std::vector<uint32_t>* ids = nullptr;
};

constexpr Vec2 kCentre[1] = {{0.5f, 0.5f}};
constexpr Vec2 kRotatedGrid[4] = {
    {0.375f, 0.125f}, {0.875f, 0.375f}, {0.125f, 0.625f}, {0.625f, 0.875f}};
constexpr std::array<Vec2, 16> rooks16() {
  std::array<Vec2, 16> out{};
  for (int i = 0; i < 16; ++i) {
    out[static_cast<size_t>(i)] = {(static_cast<float>((5 * i + 3) % 16) + 0.5f) / 16.0f,
                                   (static_cast<float>(i) + 0.5f) / 16.0f};
  }
  return out;
}
constexpr std::array<Vec2, 16> kRooks16 = rooks16();

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

class Renderer {
 public:
  Renderer(const TraceScene& scene, const RenderOptions& options, Target target)
      : scene_(scene), o_(options), target_(target), samples_(sample_offsets(options.samples)) {
    light_ = normalize(o_.light_direction * -1.0f);  // towards the light
    const Aabb b = scene.bounds();
    const float size = b.valid() ? length(b.extent()) : 1.0f;
    bias_ = 1e-4f * std::max(size, 1e-3f);
    background_ = {srgb_to_linear(o_.background.x), srgb_to_linear(o_.background.y),
                   srgb_to_linear(o_.background.z)};
    ambient_ = std::clamp(o_.ambient, 0.0f, 1.0f);
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
          for (int x = x0; x < x1; ++x) pixel(x, y);
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
  void pixel(int x, int y) {
    const size_t pixel =
        static_cast<size_t>(y) * static_cast<size_t>(o_.width) + static_cast<size_t>(x);
    // The pixel-centre ray: the id, and the colour too with one sample (its point).
    const Ray centre = pixel_ray(o_.camera, o_.width, o_.height, x, y);
    Hit centre_hit;
    const bool centre_found = scene_.closest(centre, &centre_hit);
    if (target_.ids) {
      (*target_.ids)[pixel] = centre_found ? scene_.object_ids()[centre_hit.triangle] : kNoObject;
    }
    if (!target_.color) return;
    Vec3 sum{0, 0, 0};
    if (samples_.size() == 1) {
      sum = radiance(centre, centre_found, centre_hit);
    } else {
      for (const Vec2& offset : samples_) {
        const Ray ray = image_ray(o_.camera, o_.width, o_.height, static_cast<float>(x) + offset.x,
                                  static_cast<float>(y) + offset.y);
        Hit hit;
        const bool found = scene_.closest(ray, &hit);
        sum = sum + radiance(ray, found, hit);
      }
    }
    const Vec3 c = sum * (1.0f / static_cast<float>(samples_.size()));
    uint8_t* p = &target_.color->rgba[pixel * 4];
    p[0] = linear_to_srgb_byte(c.x);
    p[1] = linear_to_srgb_byte(c.y);
    p[2] = linear_to_srgb_byte(c.z);
    p[3] = 255;
  }

  // The linear colour a ray brings back: surfaces front to back, BLEND ones composited.
  // `found` and `first`: what scene_.closest(ray) gave.
  Vec3 radiance(const Ray& ray, bool found, Hit first) const {
    if (!found) return background_;
    Hit hit = first;
    Vec3 sum{0, 0, 0};
    float transmittance = 1.0f;
    for (int layer = 0;; ++layer) {
      const Surface s = scene_.surface(ray, hit);
      const Vec3 c = shade_hit(ray, s);
      if (s.alpha_mode != AlphaMode::kBlend || layer >= kMaxBlendLayers) {
        return sum + c * transmittance;
      }
      const float a = std::clamp(s.base.w, 0.0f, 1.0f);
      sum = sum + c * (transmittance * a);
      transmittance *= 1.0f - a;
      if (!(transmittance > 0.0f)) return sum;
      Hit behind;
      if (!scene_.next(ray, hit, &behind)) return sum + background_ * transmittance;
      hit = behind;
    }
  }

  Vec3 shade_hit(const Ray& ray, const Surface& s) const {
    if (s.unlit) return shade(s, {}, light_, ambient_, 0.0f);
    float shadow = 1.0f;
    if (o_.shadows && dot(s.normal, light_) > 0.0f) {
      // A face turned away from the light is in its own shadow; otherwise one ray.
      if (dot(s.geometric_normal, light_) <= 0.0f) {
        shadow = 0.0f;
      } else {
        Ray r;
        r.origin = s.position + s.geometric_normal * bias_;
        r.direction = light_;
        r.t_min = 0.0f;
        if (scene_.occluded(r)) shadow = 0.0f;
      }
    }
    return shade(s, ray.direction * -1.0f, light_, ambient_, shadow);
  }

  const TraceScene& scene_;
  const RenderOptions& o_;
  Target target_;
  std::span<const Vec2> samples_;
  Vec3 light_;
  Vec3 background_;
  float ambient_ = 0.3f;
  float bias_ = 1e-4f;
};

}  // namespace

std::span<const Vec2> sample_offsets(int samples) {
  switch (samples) {
    case 1:
      return kCentre;
    case 4:
      return kRotatedGrid;
    case 16:
      return kRooks16;
    default:
      return {};
  }
}

Ray pixel_ray(const Camera& camera, int width, int height, int x, int y) {
  return image_ray(camera, width, height, static_cast<float>(x) + 0.5f,
                   static_cast<float>(y) + 0.5f);
}

Ray image_ray(const Camera& camera, int width, int height, float px, float py) {
  const float aspect = static_cast<float>(width) / static_cast<float>(height);
  const float ndc_x = px / static_cast<float>(width) * 2.0f - 1.0f;
  const float ndc_y = 1.0f - py / static_cast<float>(height) * 2.0f;
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
  if (sample_offsets(options.samples).empty()) {
    return Error::make(ErrorCode::kInvalidArgument, "%d samples per pixel: 1, 4 or 16",
                       options.samples);
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

Result<ColorDifference> compare_colors(const Image& a, const Image& b,
                                       std::span<const uint32_t> ids, int tolerance) {
  const int width = a.width, height = a.height;
  const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
  if (b.width != width || b.height != height || ids.size() != n || a.rgba.size() != n * 4 ||
      b.rgba.size() != n * 4) {
    return Error::make(ErrorCode::kSizeMismatch, "images of %dx%d and %dx%d, %zu ids", width,
                       height, b.width, b.height, ids.size());
  }
  ColorDifference d;
  double total = 0;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const size_t i = static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x);
      if (ids[i] == kNoObject) continue;
      bool interior = true;
      for (int dy = -1; dy <= 1 && interior; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          const int nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          if (ids[static_cast<size_t>(ny) * static_cast<size_t>(width) + static_cast<size_t>(nx)] !=
              ids[i]) {
            interior = false;
            break;
          }
        }
      }
      if (!interior) continue;
      ++d.compared;
      int worst = 0;
      for (int c = 0; c < 3; ++c) {
        const int diff = std::abs(static_cast<int>(a.rgba[i * 4 + static_cast<size_t>(c)]) -
                                  static_cast<int>(b.rgba[i * 4 + static_cast<size_t>(c)]));
        worst = std::max(worst, diff);
        total += diff;
      }
      d.max_channel = std::max(d.max_channel, worst);
      if (worst > tolerance) ++d.over;
    }
  }
  if (d.compared > 0) d.mean_channel = total / (3.0 * static_cast<double>(d.compared));
  return d;
}

}  // namespace animpack::trace
