// The flat pass and its CPU twin (flat_sprites.h). Both build the same quads (make_quad:
// corners in pixels, the affine map from a pixel to the frame's stored texels, the
// texel rectangle, tint and id) and draw them in the same order (sorted by depth, then
// batch index); GL rasterises and blends them, draw_flat_cpu does it by the rules of
// the header.
#include "animpack/gl/flat_sprites.h"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "animpack/gl/context.h"
#include "renderer_access.h"

namespace animpack::gl {

namespace {

// One sprite as drawn: the vertex stage's per-instance record (104 bytes).
struct Quad {
  float corners[8];  // top-left, top-right, bottom-right, bottom-left: x, y in pixels
  float map[4];      // texel = (map[0] x + map[1] y + offset[0], map[2] x + map[3] y + offset[1])
  float offset[2];
  float rect[4];  // the stored texels' first and last column and row (inclusive)
  float tint[4];
  uint32_t id;
  uint32_t pad[3];
};
static_assert(sizeof(Quad) == 104);

constexpr float kMaxRotation = 1e4f;

bool finite2(Vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }

// Checks one sprite and makes its quad. `index` names it in the message.
Result<Quad> make_quad(const FlatSprite& s, const Atlas& atlas, size_t index) {
  if (!finite2(s.center) || std::fabs(s.center.x) > kMaxFlatExtent ||
      std::fabs(s.center.y) > kMaxFlatExtent) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "flat sprite %zu: centre not finite or beyond %g pixels", index,
                       static_cast<double>(kMaxFlatExtent));
  }
  if (!finite2(s.size) || !(s.size.x > 0) || !(s.size.y > 0) || s.size.x > kMaxFlatExtent ||
      s.size.y > kMaxFlatExtent) {
    return Error::make(ErrorCode::kInvalidArgument, "flat sprite %zu: size outside (0, %g]", index,
                       static_cast<double>(kMaxFlatExtent));
  }
  for (float t : {s.tint.x, s.tint.y, s.tint.z, s.tint.w}) {
    if (!(t >= 0.0f && t <= 1.0f)) {
      return Error::make(ErrorCode::kInvalidArgument, "flat sprite %zu: tint outside [0, 1]",
                         index);
    }
  }
  if (!std::isfinite(s.rotation) || std::fabs(s.rotation) > kMaxRotation) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "flat sprite %zu: rotation not finite or beyond 1e4 radians", index);
  }
  if (atlas.frame_count() == 0) {
    return Error::make(ErrorCode::kInvalidArgument, "flat sprite %zu: no sheet", index);
  }
  PixelRect rect;
  FramePlacement p;
  if (s.uv) {
    const UvRect& uv = *s.uv;
    const float e[4] = {uv.u0, uv.v0, uv.u1, uv.v1};
    for (float f : e) {
      if (!(f >= 0.0f && f <= 1.0f)) {
        return Error::make(ErrorCode::kInvalidArgument, "flat sprite %zu: uv outside [0, 1]",
                           index);
      }
    }
    const double w = atlas.size().width, h = atlas.size().height;
    const auto x0 = static_cast<uint32_t>(std::lround(uv.u0 * w));
    const auto y0 = static_cast<uint32_t>(std::lround(uv.v0 * h));
    const auto x1 = static_cast<uint32_t>(std::lround(uv.u1 * w));
    const auto y1 = static_cast<uint32_t>(std::lround(uv.v1 * h));
    if (x1 <= x0 || y1 <= y0) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "flat sprite %zu: uv holds no whole texel (u0 < u1, v0 < v1)", index);
    }
    rect = {x0, y0, x1 - x0, y1 - y0};
    p.source = {rect.width, rect.height};
    p.trimmed = {0, 0, rect.width, rect.height};
    p.pivot_x = 0.5f * static_cast<float>(rect.width);
    p.pivot_y = 0.5f * static_cast<float>(rect.height);
  } else {
    Result<SpriteDraw> d = atlas.draw(s.frame);
    if (!d) {
      return Error::make(ErrorCode::kBadFrame, "flat sprite %zu: frame %u outside the atlas (%u)",
                         index, s.frame, atlas.frame_count());
    }
    rect = atlas.frames()[s.frame];
    p = d->placement;
  }
  // Source pixels q (y down from the source box's top-left) go to the screen at
  // center + R (q - pivot) * scale, R turning clockwise on screen (y down).
  const double sx = s.size.x / static_cast<double>(p.source.width);
  const double sy = s.size.y / static_cast<double>(p.source.height);
  const double c = std::cos(static_cast<double>(s.rotation));
  const double sn = std::sin(static_cast<double>(s.rotation));
  const double cx = s.center.x, cy = s.center.y, px = p.pivot_x, py = p.pivot_y;
  const double tx = p.trimmed.x, ty = p.trimmed.y, tw = p.trimmed.width, th = p.trimmed.height;
  Quad q{};
  const double box[4][2] = {{tx, ty}, {tx + tw, ty}, {tx + tw, ty + th}, {tx, ty + th}};
  for (int k = 0; k < 4; ++k) {
    const double lx = (box[k][0] - px) * sx, ly = (box[k][1] - py) * sy;
    q.corners[2 * k] = static_cast<float>(cx + c * lx - sn * ly);
    q.corners[2 * k + 1] = static_cast<float>(cy + sn * lx + c * ly);
  }
  // The inverse: the drawn offset (dx, dy) in the trimmed box of a screen point (X, Y),
  //   dx = (c X + s Y - c cx - s cy) / sx + px - tx,  dy = (-s X + c Y + s cx - c cy) / sy + py -
  //   ty
  // and the stored texel: (rect.x + dx, rect.y + dy), or for a frame stored turned 90
  // degrees clockwise (rect.x + th - dy, rect.y + dx).
  const double a[3] = {c / sx, sn / sx, (-c * cx - sn * cy) / sx + px - tx};
  const double b[3] = {-sn / sy, c / sy, (sn * cx - c * cy) / sy + py - ty};
  const double rx = rect.x, ry = rect.y;
  double m[6];
  if (p.rotated) {
    m[0] = -b[0], m[1] = -b[1], m[4] = rx + th - b[2];
    m[2] = a[0], m[3] = a[1], m[5] = ry + a[2];
  } else {
    m[0] = a[0], m[1] = a[1], m[4] = rx + a[2];
    m[2] = b[0], m[3] = b[1], m[5] = ry + b[2];
  }
  for (int k = 0; k < 4; ++k) q.map[k] = static_cast<float>(m[k]);
  q.offset[0] = static_cast<float>(m[4]);
  q.offset[1] = static_cast<float>(m[5]);
  q.rect[0] = static_cast<float>(rect.x);
  q.rect[1] = static_cast<float>(rect.y);
  q.rect[2] = static_cast<float>(rect.x + rect.width - 1);
  q.rect[3] = static_cast<float>(rect.y + rect.height - 1);
  q.tint[0] = s.tint.x, q.tint[1] = s.tint.y, q.tint[2] = s.tint.z, q.tint[3] = s.tint.w;
  q.id = s.id;
  return q;
}

// Fills order[0, n) with the batch's indices in drawing order (depth, then index). No
// allocation: std::sort works in place, and the index makes the keys unique (stable).
void sort_by_depth(std::span<const FlatSprite> batch, uint32_t* order) {
  const auto n = static_cast<uint32_t>(batch.size());
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order, order + n, [&](uint32_t l, uint32_t r) {
    if (batch[l].depth != batch[r].depth) return batch[l].depth < batch[r].depth;
    return l < r;
  });
}

// --- the CPU twin ---------------------------------------------------------------------

struct Fixed {
  int64_t x, y;  // 1/256 pixel
};

// Whether the pixel centre c is inside the triangle (a, b, d) by GL's top-left rule, top
// meaning up in GL's window coordinates (y up), the bottom of these y-down pixels:
// centres on an edge count when its inward normal points right, or straight up.
bool covers(Fixed a, Fixed b, Fixed d, Fixed c) {
  const int64_t area = (b.x - a.x) * (d.y - a.y) - (b.y - a.y) * (d.x - a.x);
  if (area == 0) return false;
  const int64_t sign = area > 0 ? 1 : -1;
  const Fixed v[3] = {a, b, d};
  for (int k = 0; k < 3; ++k) {
    const Fixed& p = v[k];
    const Fixed& q = v[(k + 1) % 3];
    const int64_t e = sign * ((q.x - p.x) * (c.y - p.y) - (q.y - p.y) * (c.x - p.x));
    if (e > 0) continue;
    if (e < 0) return false;
    const int64_t nx = -sign * (q.y - p.y), ny = sign * (q.x - p.x);
    if (!(nx > 0 || (nx == 0 && ny < 0))) return false;
  }
  return true;
}

Fixed snap(float x, float y) {
  return {std::llround(static_cast<double>(x) * 256.0),
          std::llround(static_cast<double>(y) * 256.0)};
}

uint8_t to_byte(float f) {
  const float c = std::clamp(f, 0.0f, 1.0f) * 255.0f;
  return static_cast<uint8_t>(std::lround(c));
}

void rasterise(const Quad& q, std::span<const uint8_t> sheet, uint32_t sheet_width, Image& color,
               std::span<uint32_t> ids) {
  Fixed v[4];
  float lo_x = q.corners[0], hi_x = lo_x, lo_y = q.corners[1], hi_y = lo_y;
  for (int k = 0; k < 4; ++k) {
    v[k] = snap(q.corners[2 * k], q.corners[2 * k + 1]);
    lo_x = std::min(lo_x, q.corners[2 * k]), hi_x = std::max(hi_x, q.corners[2 * k]);
    lo_y = std::min(lo_y, q.corners[2 * k + 1]), hi_y = std::max(hi_y, q.corners[2 * k + 1]);
  }
  const auto w = static_cast<int64_t>(color.width), h = static_cast<int64_t>(color.height);
  // Pixels whose centres may be inside (one pixel of slack for the snapping).
  const int64_t x0 = std::max<int64_t>(0, static_cast<int64_t>(std::floor(lo_x)) - 1);
  const int64_t x1 = std::min<int64_t>(w - 1, static_cast<int64_t>(std::floor(hi_x)) + 1);
  const int64_t y0 = std::max<int64_t>(0, static_cast<int64_t>(std::floor(lo_y)) - 1);
  const int64_t y1 = std::min<int64_t>(h - 1, static_cast<int64_t>(std::floor(hi_y)) + 1);
  for (int64_t j = y0; j <= y1; ++j) {
    for (int64_t i = x0; i <= x1; ++i) {
      const Fixed c{256 * i + 128, 256 * j + 128};
      if (!covers(v[0], v[1], v[2], c) && !covers(v[0], v[2], v[3], c)) continue;
      // The same float operations as the fragment stage.
      const float px = static_cast<float>(i) + 0.5f, py = static_cast<float>(j) + 0.5f;
      const float tx = q.map[0] * px + q.map[1] * py + q.offset[0];
      const float ty = q.map[2] * px + q.map[3] * py + q.offset[1];
      const auto sx = static_cast<size_t>(std::floor(std::clamp(tx, q.rect[0], q.rect[2])));
      const auto sy = static_cast<size_t>(std::floor(std::clamp(ty, q.rect[1], q.rect[3])));
      const uint8_t* t = &sheet[(sy * sheet_width + sx) * 4];
      float src[4];
      for (int k = 0; k < 4; ++k) src[k] = (static_cast<float>(t[k]) / 255.0f) * q.tint[k];
      const float alpha = src[3];
      if (alpha == 0.0f) continue;
      uint8_t* d = &color.rgba[static_cast<size_t>(j * w + i) * 4];
      for (int k = 0; k < 3; ++k) {
        d[k] = to_byte(src[k] * alpha + (static_cast<float>(d[k]) / 255.0f) * (1.0f - alpha));
      }
      d[3] = to_byte(alpha + (static_cast<float>(d[3]) / 255.0f) * (1.0f - alpha));
      if (!ids.empty() && q.id != kNoId && alpha >= 0.5f)
        ids[static_cast<size_t>(j * w + i)] = q.id;
    }
  }
}

// --- GL -------------------------------------------------------------------------------

const char* const kFlatVertex = R"(#version 450 core
layout(location = 0) in vec4 a_corners01;
layout(location = 1) in vec4 a_corners23;
layout(location = 2) in vec4 a_map;
layout(location = 3) in vec2 a_offset;
layout(location = 4) in vec4 a_rect;
layout(location = 5) in vec4 a_tint;
layout(location = 6) in uint a_id;
uniform vec2 u_target;
flat out vec4 v_map;
flat out vec2 v_offset;
flat out vec4 v_rect;
flat out vec4 v_tint;
flat out uint v_id;
void main() {
  // Two triangles: (top-left, top-right, bottom-right), (top-left, bottom-right, bottom-left).
  const int corner[6] = int[6](0, 1, 2, 0, 2, 3);
  int c = corner[gl_VertexID];
  vec2 p = c == 0 ? a_corners01.xy : c == 1 ? a_corners01.zw : c == 2 ? a_corners23.xy
                                                                      : a_corners23.zw;
  // Pixels (y down from the top) to clip space (y up).
  gl_Position = vec4(p.x * (2.0 / u_target.x) - 1.0, 1.0 - p.y * (2.0 / u_target.y), 0.0, 1.0);
  v_map = a_map;
  v_offset = a_offset;
  v_rect = a_rect;
  v_tint = a_tint;
  v_id = a_id;
}
)";

const char* const kFlatFragmentCommon = R"(#version 450 core
uniform vec2 u_target;
layout(binding = 0) uniform sampler2D u_sheet;
flat in vec4 v_map;
flat in vec2 v_offset;
flat in vec4 v_rect;
flat in vec4 v_tint;
flat in uint v_id;
// The texel under this pixel's centre (y down from the top), times the tint.
vec4 texel_color() {
  vec2 p = vec2(gl_FragCoord.x, u_target.y - gl_FragCoord.y);
  precise float tx = v_map.x * p.x + v_map.y * p.y + v_offset.x;
  precise float ty = v_map.z * p.x + v_map.w * p.y + v_offset.y;
  ivec2 t = ivec2(floor(clamp(vec2(tx, ty), v_rect.xy, v_rect.zw)));
  return texelFetch(u_sheet, t, 0) * v_tint;
}
)";

const char* const kFlatColorFragment = R"(
layout(location = 0) out vec4 out_color;
void main() {
  vec4 c = texel_color();
  if (c.a == 0.0) discard;
  out_color = c;
}
)";

const char* const kFlatIdsFragment = R"(
layout(location = 1) out uint out_id;
void main() {
  vec4 c = texel_color();
  if (v_id == 0u || c.a < 0.5) discard;
  out_id = v_id;
}
)";

Result<GLuint> build(const char* fragment, const char* name) {
  GLuint program = glCreateProgram();
  const char* vertex_sources[1] = {kFlatVertex};
  const char* fragment_sources[2] = {kFlatFragmentCommon, fragment};
  GLuint made[2] = {glCreateShader(GL_VERTEX_SHADER), glCreateShader(GL_FRAGMENT_SHADER)};
  glShaderSource(made[0], 1, vertex_sources, nullptr);
  glShaderSource(made[1], 2, fragment_sources, nullptr);
  GLint status = GL_TRUE;
  std::string log;
  for (GLuint m : made) {
    glCompileShader(m);
    GLint ok = GL_FALSE;
    glGetShaderiv(m, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE && status == GL_TRUE) {
      status = GL_FALSE;
      char buffer[256] = {};
      glGetShaderInfoLog(m, sizeof buffer, nullptr, buffer);
      log = buffer;
    }
    glAttachShader(program, m);
  }
  if (status == GL_TRUE) {
    glLinkProgram(program);
    glGetProgramiv(program, GL_LINK_STATUS, &status);
    if (status != GL_TRUE) log = "does not link";
  }
  for (GLuint m : made) {
    glDetachShader(program, m);
    glDeleteShader(m);
  }
  if (status != GL_TRUE) {
    glDeleteProgram(program);
    return Error::make(ErrorCode::kIo, "%s: %.120s", name, log.c_str());
  }
  return program;
}

}  // namespace

struct FlatSprites::Impl {
  Renderer* renderer = nullptr;
  Context* context = nullptr;
  uint32_t capacity = 0;
  GLuint color_program = 0, ids_program = 0, vao = 0, buffer = 0, texture = 0;
  GLint color_target = -1, ids_target = -1;
  GLint max_texture_size = 0;
  Atlas atlas;
  std::vector<Quad> quads;      // the batch's quads, in batch order (capacity)
  std::vector<Quad> staged;     // in drawing order (capacity)
  std::vector<uint32_t> order;  // capacity

  ~Impl() {
    if (context == nullptr || !context->is_current()) return;
    glDeleteProgram(color_program);
    glDeleteProgram(ids_program);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(1, &buffer);
    glDeleteTextures(1, &texture);
  }
};

FlatSprites::FlatSprites() = default;
FlatSprites::FlatSprites(FlatSprites&&) noexcept = default;
FlatSprites& FlatSprites::operator=(FlatSprites&&) noexcept = default;
FlatSprites::~FlatSprites() = default;

uint32_t FlatSprites::capacity() const { return impl_ ? impl_->capacity : 0; }

const Atlas& FlatSprites::atlas() const {
  static const Atlas empty;
  return impl_ ? impl_->atlas : empty;
}

Result<FlatSprites> FlatSprites::create(Renderer* renderer, uint32_t capacity) {
  if (renderer == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "FlatSprites::create: null renderer");
  }
  Result<RenderTarget> target = RendererAccess::target(*renderer);
  if (!target) return target.error();
  if (capacity < 1 || capacity > kMaxFlatSprites) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "FlatSprites::create: capacity %u outside 1 .. %u", capacity,
                       kMaxFlatSprites);
  }
  FlatSprites f;
  f.impl_ = std::make_unique<Impl>();
  Impl& im = *f.impl_;
  im.renderer = renderer;
  im.context = target->context;
  im.capacity = capacity;
  Result<GLuint> color = build(kFlatColorFragment, "flat colour program");
  if (!color) return color.error();
  im.color_program = *color;
  Result<GLuint> ids = build(kFlatIdsFragment, "flat ids program");
  if (!ids) return ids.error();
  im.ids_program = *ids;
  im.color_target = glGetUniformLocation(im.color_program, "u_target");
  im.ids_target = glGetUniformLocation(im.ids_program, "u_target");
  glCreateBuffers(1, &im.buffer);
  glNamedBufferStorage(im.buffer, static_cast<GLsizeiptr>(uint64_t{capacity} * sizeof(Quad)),
                       nullptr, GL_DYNAMIC_STORAGE_BIT);
  glCreateVertexArrays(1, &im.vao);
  glVertexArrayVertexBuffer(im.vao, 0, im.buffer, 0, sizeof(Quad));
  glVertexArrayBindingDivisor(im.vao, 0, 1);
  struct Attribute {
    GLuint location;
    GLint size;
    size_t offset;
  };
  const Attribute attributes[6] = {
      {0, 4, offsetof(Quad, corners)}, {1, 4, offsetof(Quad, corners) + 4 * sizeof(float)},
      {2, 4, offsetof(Quad, map)},     {3, 2, offsetof(Quad, offset)},
      {4, 4, offsetof(Quad, rect)},    {5, 4, offsetof(Quad, tint)}};
  for (const Attribute& a : attributes) {
    glEnableVertexArrayAttrib(im.vao, a.location);
    glVertexArrayAttribFormat(im.vao, a.location, a.size, GL_FLOAT, GL_FALSE,
                              static_cast<GLuint>(a.offset));
    glVertexArrayAttribBinding(im.vao, a.location, 0);
  }
  glEnableVertexArrayAttrib(im.vao, 6);
  glVertexArrayAttribIFormat(im.vao, 6, 1, GL_UNSIGNED_INT,
                             static_cast<GLuint>(offsetof(Quad, id)));
  glVertexArrayAttribBinding(im.vao, 6, 0);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &im.max_texture_size);
  im.quads.resize(capacity);
  im.staged.resize(capacity);
  im.order.resize(capacity);
  if (auto e = im.context->check_errors("FlatSprites::create"); !e) return e.error();
  return f;
}

Result<void> FlatSprites::upload_sheet(std::span<const uint8_t> rgba, const Atlas& atlas) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty flat pass");
  Impl& im = *impl_;
  if (auto t = RendererAccess::target(*im.renderer); !t) return t.error();
  if (atlas.frame_count() == 0) {
    return Error::make(ErrorCode::kInvalidArgument, "upload_sheet: an atlas without frames");
  }
  const Size size = atlas.size();
  const auto limit =
      std::min<uint32_t>(kMaxTextureSize, static_cast<uint32_t>(std::max(im.max_texture_size, 1)));
  if (size.width > limit || size.height > limit) {
    return Error::make(ErrorCode::kInvalidArgument, "upload_sheet: %ux%u over the texture limit %u",
                       size.width, size.height, limit);
  }
  if (rgba.size() != uint64_t{size.width} * size.height * 4) {
    return Error::make(ErrorCode::kSizeMismatch, "upload_sheet: %zu bytes for %ux%u pixels",
                       rgba.size(), size.width, size.height);
  }
  if (im.texture != 0) glDeleteTextures(1, &im.texture);
  glCreateTextures(GL_TEXTURE_2D, 1, &im.texture);
  glTextureStorage2D(im.texture, 1, GL_RGBA8, static_cast<GLsizei>(size.width),
                     static_cast<GLsizei>(size.height));
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  // Rows top first: texelFetch's row y is the image's row y from the top.
  glTextureSubImage2D(im.texture, 0, 0, 0, static_cast<GLsizei>(size.width),
                      static_cast<GLsizei>(size.height), GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  im.atlas = atlas;
  return im.context->check_errors("upload_sheet");
}

Result<void> FlatSprites::draw(std::span<const FlatSprite> batch) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty flat pass");
  Impl& im = *impl_;
  Result<RenderTarget> target = RendererAccess::target(*im.renderer);
  if (!target) return target.error();
  if (!target->rendered) {
    return Error::make(ErrorCode::kInvalidArgument, "FlatSprites::draw before the first render");
  }
  if (im.texture == 0) {
    return Error::make(ErrorCode::kInvalidArgument, "FlatSprites::draw: no sheet uploaded");
  }
  if (batch.size() > im.capacity) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "FlatSprites::draw: %zu sprites over the capacity %u", batch.size(),
                       im.capacity);
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    Result<Quad> q = make_quad(batch[i], im.atlas, i);
    if (!q) return q.error();
    im.quads[i] = *q;
  }
  if (batch.empty()) return ok();
  sort_by_depth(batch, im.order.data());
  for (size_t i = 0; i < batch.size(); ++i) im.staged[i] = im.quads[im.order[i]];
  glNamedBufferSubData(im.buffer, 0, static_cast<GLsizeiptr>(batch.size() * sizeof(Quad)),
                       im.staged.data());

  const GLuint fbo = target->fbo;
  const float size[2] = {static_cast<float>(target->width), static_cast<float>(target->height)};
  glProgramUniform2fv(im.color_program, im.color_target, 1, size);
  glProgramUniform2fv(im.ids_program, im.ids_target, 1, size);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glViewport(0, 0, static_cast<GLsizei>(target->width), static_cast<GLsizei>(target->height));
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_RASTERIZER_DISCARD);
  glDisable(GL_FRAMEBUFFER_SRGB);  // blend the stored bytes as they are
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glBindVertexArray(im.vao);
  glBindTextureUnit(0, im.texture);
  glBindSampler(0, 0);
  const auto count = static_cast<GLsizei>(batch.size());
  // Colour: straight alpha "over", in drawing order.
  const GLenum color_buffers[3] = {GL_COLOR_ATTACHMENT0, GL_NONE, GL_NONE};
  glNamedFramebufferDrawBuffers(fbo, 3, color_buffers);
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glUseProgram(im.color_program);
  glDrawArraysInstanced(GL_TRIANGLES, 0, 6, count);
  glDisable(GL_BLEND);
  // Ids: the last sprite showing at least half opaque.
  const GLenum ids_buffers[3] = {GL_NONE, GL_COLOR_ATTACHMENT1, GL_NONE};
  glNamedFramebufferDrawBuffers(fbo, 3, ids_buffers);
  glUseProgram(im.ids_program);
  glDrawArraysInstanced(GL_TRIANGLES, 0, 6, count);
  const GLenum all[3] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2};
  glNamedFramebufferDrawBuffers(fbo, 3, all);
  glBindTextureUnit(0, 0);
  glBindVertexArray(0);
  glUseProgram(0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return im.context->check_errors("FlatSprites::draw");
}

Result<void> draw_flat_cpu(const FlatSheet& sheet, std::span<const FlatSprite> batch, Image& color,
                           std::span<uint32_t> ids) {
  if (sheet.atlas == nullptr || sheet.atlas->frame_count() == 0) {
    return Error::make(ErrorCode::kInvalidArgument, "draw_flat_cpu: no atlas");
  }
  const Size size = sheet.atlas->size();
  if (sheet.rgba.size() != uint64_t{size.width} * size.height * 4) {
    return Error::make(ErrorCode::kSizeMismatch, "draw_flat_cpu: %zu bytes for %ux%u pixels",
                       sheet.rgba.size(), size.width, size.height);
  }
  const uint64_t pixels = uint64_t{color.width} * color.height;
  if (color.rgba.size() != pixels * 4 || (!ids.empty() && ids.size() != pixels)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "draw_flat_cpu: an image or ids of the wrong size for %ux%u", color.width,
                       color.height);
  }
  std::vector<Quad> quads(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    Result<Quad> q = make_quad(batch[i], *sheet.atlas, i);
    if (!q) return q.error();
    quads[i] = *q;
  }
  std::vector<uint32_t> order(batch.size());
  sort_by_depth(batch, order.data());
  for (uint32_t i : order) rasterise(quads[i], sheet.rgba, size.width, color, ids);
  return ok();
}

}  // namespace animpack::gl
