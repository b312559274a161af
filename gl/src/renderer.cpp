#include "animpack/gl/renderer.h"

#include <glad/gl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "animpack/gl/context.h"
#include "renderer_access.h"
#include "shaders.h"
#include "skin_store.h"

namespace animpack::gl {

namespace {

constexpr uint32_t kIndexBits = 20;
constexpr uint32_t kIndexMask = (1u << kIndexBits) - 1;
constexpr uint32_t kGenerationMask = (1u << (32 - kIndexBits)) - 1;
// position 3, normal 3, tangent 4, uv 2, uv1 2, colour 4
constexpr int kFloatsPerVertex = 18;
constexpr int kSlots = 5;  // base colour, metallic-roughness, normal, occlusion, emissive

uint32_t make_handle(uint32_t index, uint32_t generation) {
  return (generation << kIndexBits) | (index + 1);
}

bool finite(const float* v, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) return false;
  }
  return true;
}
bool finite(const Mat4& m) { return finite(m.m, 16); }
bool finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
bool in_unit(float f) { return f >= 0.0f && f <= 1.0f; }

bool valid(Wrap w) {
  return static_cast<uint8_t>(w) <= static_cast<uint8_t>(Wrap::kMirroredRepeat);
}
bool valid_min(Filter f) {
  return static_cast<uint8_t>(f) <= static_cast<uint8_t>(Filter::kLinearMipmapLinear);
}
bool valid_mag(Filter f) { return f == Filter::kNearest || f == Filter::kLinear; }

Result<void> check_sampler(const Sampler& s, const char* what) {
  if (!valid(s.wrap_s) || !valid(s.wrap_t) || !valid_mag(s.mag_filter) ||
      !valid_min(s.min_filter)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: a wrap mode or filter outside its enum (or a mipmap magnification)",
                       what);
  }
  return ok();
}

GLint gl_wrap(Wrap w) {
  switch (w) {
    case Wrap::kClampToEdge:
      return GL_CLAMP_TO_EDGE;
    case Wrap::kMirroredRepeat:
      return GL_MIRRORED_REPEAT;
    case Wrap::kRepeat:
      break;
  }
  return GL_REPEAT;
}
GLint gl_filter(Filter f) {
  switch (f) {
    case Filter::kNearest:
      return GL_NEAREST;
    case Filter::kLinear:
      return GL_LINEAR;
    case Filter::kNearestMipmapNearest:
      return GL_NEAREST_MIPMAP_NEAREST;
    case Filter::kLinearMipmapNearest:
      return GL_LINEAR_MIPMAP_NEAREST;
    case Filter::kNearestMipmapLinear:
      return GL_NEAREST_MIPMAP_LINEAR;
    case Filter::kLinearMipmapLinear:
      break;
  }
  return GL_LINEAR_MIPMAP_LINEAR;
}
// A mipmap minification filter on a texture without mipmaps samples level 0.
GLint gl_min_filter(Filter f, bool mipmaps) {
  if (mipmaps) return gl_filter(f);
  switch (f) {
    case Filter::kNearest:
    case Filter::kNearestMipmapNearest:
    case Filter::kNearestMipmapLinear:
      return GL_NEAREST;
    default:
      return GL_LINEAR;
  }
}
// A sampler's index among the 3 x 3 x 2 x 6 distinct ones.
size_t sampler_index(const Sampler& s) {
  return ((static_cast<size_t>(s.wrap_s) * 3 + static_cast<size_t>(s.wrap_t)) * 2 +
          static_cast<size_t>(s.mag_filter)) *
             6 +
         static_cast<size_t>(s.min_filter);
}
constexpr size_t kSamplerCount = 3 * 3 * 2 * 6;

// The rows of KHR_texture_transform's T(offset) R(rotation) S(scale), as glTF writes it:
// u' = cos r sx u + sin r sy v + ox, v' = -sin r sx u + cos r sy v + oy.
void uv_rows(const MaterialTexture& t, float out_row0[3], float out_row1[3]) {
  if (!t.has_transform) {
    const float r0[3] = {1, 0, 0}, r1[3] = {0, 1, 0};
    std::memcpy(out_row0, r0, sizeof r0);
    std::memcpy(out_row1, r1, sizeof r1);
    return;
  }
  const UvTransform& x = t.transform;
  const float c = std::cos(x.rotation), s = std::sin(x.rotation);
  const float r0[3] = {c * x.scale[0], s * x.scale[1], x.offset[0]};
  const float r1[3] = {-s * x.scale[0], c * x.scale[1], x.offset[1]};
  std::memcpy(out_row0, r0, sizeof r0);
  std::memcpy(out_row1, r1, sizeof r1);
}

// The material's five slots, in the shader's order.
std::array<const MaterialTexture*, kSlots> slots_of(const MaterialDesc& m) {
  return {&m.base_color_texture, &m.metallic_roughness_texture, &m.normal_texture,
          &m.occlusion_texture, &m.emissive_texture};
}

float det3(const Mat4& m) {
  return m.m[0] * (m.m[5] * m.m[10] - m.m[9] * m.m[6]) -
         m.m[4] * (m.m[1] * m.m[10] - m.m[9] * m.m[2]) +
         m.m[8] * (m.m[1] * m.m[6] - m.m[5] * m.m[2]);
}

// The inverse transpose of the upper 3x3 block (column-major, 9 floats); the block
// itself when singular.
void normal_matrix(const Mat4& m, float out[9]) {
  const float a = m.m[0], b = m.m[4], c = m.m[8];   // row 0
  const float d = m.m[1], e = m.m[5], f = m.m[9];   // row 1
  const float g = m.m[2], h = m.m[6], i = m.m[10];  // row 2
  const float c00 = e * i - f * h, c01 = f * g - d * i, c02 = d * h - e * g;
  const float c10 = c * h - b * i, c11 = a * i - c * g, c12 = b * g - a * h;
  const float c20 = b * f - c * e, c21 = c * d - a * f, c22 = a * e - b * d;
  const float det = a * c00 + b * c01 + c * c02;
  if (det == 0.0f || !std::isfinite(det)) {
    const float same[9] = {m.m[0], m.m[1], m.m[2], m.m[4], m.m[5], m.m[6], m.m[8], m.m[9], m.m[10]};
    std::memcpy(out, same, sizeof same);
    return;
  }
  const float s = 1.0f / det;
  // (M^-1)^T = cofactor matrix / det; column-major: column k holds cofactors of column k.
  const float r[9] = {c00 * s, c01 * s, c02 * s, c10 * s, c11 * s,
                      c12 * s, c20 * s, c21 * s, c22 * s};
  std::memcpy(out, r, sizeof r);
}

Result<void> check_camera(const Camera& c, const char* what) {
  const Vec3 back = c.eye - c.target;
  if (!finite(c.eye) || !finite(c.target) || !finite(c.up) || dot(back, back) == 0.0f ||
      dot(cross(c.up, back), cross(c.up, back)) == 0.0f) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: eye, target and up must be finite, eye apart from target and up "
                       "not along the view",
                       what);
  }
  if (!(c.near_plane > 0.0f) || !(c.far_plane > c.near_plane) || !std::isfinite(c.far_plane)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: need 0 < near (%g) < far (%g)", what,
                       static_cast<double>(c.near_plane), static_cast<double>(c.far_plane));
  }
  if (c.orthographic ? !(c.ortho_height > 0.0f && std::isfinite(c.ortho_height))
                     : !(c.fov_y > 0.0f && c.fov_y < 3.14159f)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: fov_y outside (0, pi) or ortho_height <= 0", what);
  }
  return ok();
}

// Compiles and links a program; on failure the log is in the error.
Result<GLuint> build_program(bool motion, const char* vertex, const char* fragment,
                             const char* name) {
  GLuint program = glCreateProgram();
  GLuint shaders[2] = {0, 0};
  auto fail = [&](const char* stage, const std::string& log) {
    for (GLuint s : shaders) {
      if (s != 0) glDeleteShader(s);
    }
    glDeleteProgram(program);
    return Error::make(ErrorCode::kIo, "%s: %s: %.80s", name, stage, log.c_str());
  };
  auto log_of = [](GLuint object, bool is_program) {
    GLint length = 0;
    if (is_program) {
      glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
    } else {
      glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
    }
    std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
    if (is_program) {
      glGetProgramInfoLog(object, length, nullptr, log.data());
    } else {
      glGetShaderInfoLog(object, length, nullptr, log.data());
    }
    return log;
  };
  const char* vertex_sources[4] = {shaders::kVersion,
                                   motion ? shaders::kWithMotion : shaders::kWithoutMotion,
                                   shaders::kSkinCommon, vertex};
  shaders[0] = glCreateShader(GL_VERTEX_SHADER);
  glShaderSource(shaders[0], 4, vertex_sources, nullptr);
  glCompileShader(shaders[0]);
  GLint status = 0;
  glGetShaderiv(shaders[0], GL_COMPILE_STATUS, &status);
  if (status != GL_TRUE) {
    const std::string log = log_of(shaders[0], false);
    std::fprintf(stderr, "animpack::gl: %s vertex shader:\n%s\n", name, log.c_str());
    return fail("vertex shader", log);
  }
  glAttachShader(program, shaders[0]);
  if (fragment != nullptr) {
    shaders[1] = glCreateShader(GL_FRAGMENT_SHADER);
    const char* fragment_sources[3] = {shaders::kVersion, shaders::kFragmentCommon, fragment};
    glShaderSource(shaders[1], 3, fragment_sources, nullptr);
    glCompileShader(shaders[1]);
    glGetShaderiv(shaders[1], GL_COMPILE_STATUS, &status);
    if (status != GL_TRUE) {
      const std::string log = log_of(shaders[1], false);
      std::fprintf(stderr, "animpack::gl: %s fragment shader:\n%s\n", name, log.c_str());
      return fail("fragment shader", log);
    }
    glAttachShader(program, shaders[1]);
  }
  glLinkProgram(program);
  glGetProgramiv(program, GL_LINK_STATUS, &status);
  if (status != GL_TRUE) {
    const std::string log = log_of(program, true);
    std::fprintf(stderr, "animpack::gl: %s link:\n%s\n", name, log.c_str());
    return fail("link", log);
  }
  for (GLuint s : shaders) {
    if (s == 0) continue;
    glDetachShader(program, s);
    glDeleteShader(s);
  }
  return program;
}

// Compiles and links the debug line program; on failure the log is in the error.
Result<GLuint> build_line_program() {
  GLuint program = glCreateProgram();
  const char* stages[2][2] = {{shaders::kVersion, shaders::kLineVertex},
                              {shaders::kVersion, shaders::kLineFragment}};
  const GLenum kinds[2] = {GL_VERTEX_SHADER, GL_FRAGMENT_SHADER};
  GLuint made[2] = {0, 0};
  GLint status = GL_TRUE;
  for (int i = 0; i < 2 && status == GL_TRUE; ++i) {
    made[i] = glCreateShader(kinds[i]);
    glShaderSource(made[i], 2, stages[i], nullptr);
    glCompileShader(made[i]);
    glGetShaderiv(made[i], GL_COMPILE_STATUS, &status);
    glAttachShader(program, made[i]);
  }
  if (status == GL_TRUE) {
    glLinkProgram(program);
    glGetProgramiv(program, GL_LINK_STATUS, &status);
  }
  for (GLuint m : made) {
    if (m == 0) continue;
    glDetachShader(program, m);
    glDeleteShader(m);
  }
  if (status != GL_TRUE) {
    glDeleteProgram(program);
    return Error::make(ErrorCode::kIo, "line program: does not compile or link");
  }
  return program;
}

struct DrawProgram {
  GLuint program = 0;
  GLint model = -1, previous_model = -1, view_proj = -1, previous_view_proj = -1;
  GLint normal_matrix = -1, skin = -1, id = -1, mode = -1, uv_rect = -1, viewport = -1;
  GLint base_color = -1, terms = -1, emissive = -1, alpha_mode = -1, alpha_cutoff = -1;
  GLint has_tangents = -1, slot_on = -1, slot_uv = -1, slot_row0 = -1, slot_row1 = -1;
  GLint light = -1, ambient = -1, eye = -1, orthographic = -1, to_eye = -1;
  GLint eight = -1, morph = -1, morph_blocks = -1;

  void locate() {
    eight = glGetUniformLocation(program, "u_eight");
    morph = glGetUniformLocation(program, "u_morph");
    morph_blocks = glGetUniformLocation(program, "u_morph_blocks");
    model = glGetUniformLocation(program, "u_model");
    previous_model = glGetUniformLocation(program, "u_previous_model");
    view_proj = glGetUniformLocation(program, "u_view_proj");
    previous_view_proj = glGetUniformLocation(program, "u_previous_view_proj");
    normal_matrix = glGetUniformLocation(program, "u_normal_matrix");
    skin = glGetUniformLocation(program, "u_skin");
    id = glGetUniformLocation(program, "u_id");
    mode = glGetUniformLocation(program, "u_mode");
    uv_rect = glGetUniformLocation(program, "u_uv_rect");
    viewport = glGetUniformLocation(program, "u_viewport");
    base_color = glGetUniformLocation(program, "u_base_color");
    terms = glGetUniformLocation(program, "u_terms");
    emissive = glGetUniformLocation(program, "u_emissive");
    alpha_mode = glGetUniformLocation(program, "u_alpha_mode");
    alpha_cutoff = glGetUniformLocation(program, "u_alpha_cutoff");
    has_tangents = glGetUniformLocation(program, "u_has_tangents");
    slot_on = glGetUniformLocation(program, "u_slot_on");
    slot_uv = glGetUniformLocation(program, "u_slot_uv");
    slot_row0 = glGetUniformLocation(program, "u_slot_row0");
    slot_row1 = glGetUniformLocation(program, "u_slot_row1");
    light = glGetUniformLocation(program, "u_light");
    ambient = glGetUniformLocation(program, "u_ambient");
    eye = glGetUniformLocation(program, "u_eye");
    orthographic = glGetUniformLocation(program, "u_orthographic");
    to_eye = glGetUniformLocation(program, "u_to_eye");
  }
};

// A pose's morph weights: empty, or one per target of the mesh (and finite).
Result<void> check_pose_weights(const InstancePose& p, uint32_t targets, size_t i) {
  if ((!p.morph_weights.empty() || !p.previous_morph_weights.empty()) && targets == 0) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "set_poses: pose %zu: morph weights for a mesh without targets", i);
  }
  if ((!p.morph_weights.empty() && p.morph_weights.size() != targets) ||
      (!p.previous_morph_weights.empty() &&
       (p.previous_morph_weights.size() != targets || p.morph_weights.empty()))) {
    return Error::make(ErrorCode::kSizeMismatch,
                       "set_poses: pose %zu: %zu morph weights (%zu previous) for %u targets", i,
                       p.morph_weights.size(), p.previous_morph_weights.size(), targets);
  }
  for (std::span<const float> w : {p.morph_weights, p.previous_morph_weights}) {
    if (!w.empty() && !finite(w.data(), w.size())) {
      return Error::make(ErrorCode::kInvalidArgument, "set_poses: pose %zu: a non-finite weight",
                         i);
    }
  }
  return ok();
}

}  // namespace

Result<void> check_view(const View& view) {
  if (view.width == 0 || view.height == 0 || view.width > kMaxTargetSize ||
      view.height > kMaxTargetSize) {
    return Error::make(ErrorCode::kInvalidArgument, "render: size %ux%u outside 1..%u", view.width,
                       view.height, kMaxTargetSize);
  }
  if (auto r = check_camera(view.camera, "render: camera"); !r) return r;
  if (view.previous_camera) {
    if (auto r = check_camera(*view.previous_camera, "render: previous camera"); !r) return r;
  }
  if (!finite(&view.clear_color.x, 4)) {
    return Error::make(ErrorCode::kInvalidArgument, "render: clear colour not finite");
  }
  const Vec3 l = view.light_direction;
  if (!finite(l) || !std::isfinite(dot(l, l)) || dot(l, l) == 0.0f) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "render: the light direction must be finite and not zero");
  }
  if (!in_unit(view.ambient)) {
    return Error::make(ErrorCode::kInvalidArgument, "render: ambient %g outside [0, 1]",
                       static_cast<double>(view.ambient));
  }
  return ok();
}

Result<void> check_material(const MaterialDesc& m) {
  if (!finite(&m.base_color.x, 4) || !finite(m.emissive) || !std::isfinite(m.normal_scale)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "material: a non-finite base colour, emissive factor or normal scale");
  }
  if (!in_unit(m.metallic) || !in_unit(m.roughness) || !in_unit(m.occlusion_strength)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "material: metallic %g, roughness %g, occlusion strength %g: each must be "
                       "in [0, 1]",
                       static_cast<double>(m.metallic), static_cast<double>(m.roughness),
                       static_cast<double>(m.occlusion_strength));
  }
  if (!(m.alpha_cutoff >= 0.0f) || !std::isfinite(m.alpha_cutoff) ||
      !(m.emissive_strength >= 0.0f) || !std::isfinite(m.emissive_strength)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "material: alpha cutoff %g and emissive strength %g must be finite and >= 0",
                       static_cast<double>(m.alpha_cutoff),
                       static_cast<double>(m.emissive_strength));
  }
  if (static_cast<uint8_t>(m.alpha_mode) > static_cast<uint8_t>(AlphaMode::kBlend)) {
    return Error::make(ErrorCode::kInvalidArgument, "material: alpha mode %d outside its enum",
                       static_cast<int>(m.alpha_mode));
  }
  static const char* const kNames[kSlots] = {"base colour", "metallic-roughness", "normal",
                                             "occlusion", "emissive"};
  const auto slots = slots_of(m);
  for (int k = 0; k < kSlots; ++k) {
    const MaterialTexture& t = *slots[static_cast<size_t>(k)];
    if (t.uv_set != 0 && t.uv_set != 1) {
      return Error::make(ErrorCode::kInvalidArgument, "material: %s texture: uv set %d (0 or 1)",
                         kNames[k], t.uv_set);
    }
    if (t.sampler) {
      if (auto r = check_sampler(*t.sampler, "material: a texture's sampler"); !r) return r;
    }
    const UvTransform& x = t.transform;
    if (t.has_transform &&
        (!std::isfinite(x.offset[0]) || !std::isfinite(x.offset[1]) || !std::isfinite(x.rotation) ||
         !std::isfinite(x.scale[0]) || !std::isfinite(x.scale[1]))) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "material: %s texture: a non-finite uv transform", kNames[k]);
    }
  }
  return ok();
}

struct Renderer::Impl {
  struct Mesh {
    uint32_t generation = 0;
    bool used = false;
    GLuint vao = 0, vbo = 0, ebo = 0;
    uint32_t vertex_count = 0, index_count = 0;
    bool skinned = false;
    bool eight = false;  // eight influences: two record slots per vertex
    uint32_t first_record = 0;
    uint32_t record_slots = 0;
    uint32_t joint_count = 0;
    // Morph targets: the deltas' own storage buffer and its position, normal and tangent
    // blocks' first units (-1: none).
    uint32_t morph_targets = 0;
    GLuint morph_buffer = 0;
    int morph_blocks[3] = {-1, -1, -1};
    uint32_t users = 0;
    bool has_tangents = false;
    Vec3 center;  // of the positions' box: BLEND instances sort by it
  };
  struct Texture {
    uint32_t generation = 0;
    bool used = false;
    GLuint texture = 0;
    uint32_t users = 0;
    bool mipmaps = false;
  };
  struct Instance {
    uint32_t generation = 0;
    bool used = false;
    InstanceDesc desc;
    int64_t pose = -1;  // first palette matrix of the current pose, or -1
    int64_t previous_pose = -1;
    // First current and previous morph weight in the weights buffer, or -1 (base shape).
    int64_t weights = -1;
    int64_t previous_weights = -1;
    uint32_t stamp = 0;  // set_poses duplicate check
  };

  Context* context = nullptr;
  DrawProgram ids, color, capture;
  SkinStore store;
  std::vector<Mesh> meshes;
  std::vector<Texture> textures;
  std::vector<Instance> instances;
  std::vector<Mat4> palettes;  // set_poses's staging
  // Morph weights: set_poses's staging and the storage buffer (binding 2) it fills, which
  // only grows; a small empty buffer stands at bindings 1 and 2 when nothing else does.
  std::vector<float> weights;
  GLuint weights_buffer = 0, empty_buffer = 0;
  uint64_t weights_bytes = 0;
  uint64_t max_block = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE
  uint32_t stamp = 0;
  GLuint white = 0;
  // Sampler objects: one per distinct Sampler with and without mipmaps (made on first
  // use), and the sprites' nearest, clamped one.
  std::array<GLuint, 2 * kSamplerCount> samplers{};
  GLuint sprite_sampler = 0;
  GLint max_texture_size = 0;
  // The debug lines: a program, its vertex array and buffer (grown by doubling), the
  // staging floats (7 a vertex: position, colour; depth-tested lines first) and how many
  // vertices of each kind.
  GLuint line_program = 0, line_vao = 0, line_vbo = 0;
  GLint line_view_proj = -1;
  uint64_t line_bytes = 0;
  std::vector<float> line_data;
  uint32_t line_tested = 0, line_on_top = 0;
  std::vector<size_t> order;  // render's draw order (instance indices)
  std::vector<float> blend_keys;
  // The render target.
  // The colour target is sRGB (GL encodes what the colour pass writes and blends in
  // linear light); color_view is the same texels as plain RGBA8, read back and presented
  // as stored, through read_fbo.
  GLuint fbo = 0, color_tex = 0, color_view = 0, id_tex = 0, motion_tex = 0, depth_tex = 0;
  GLuint read_fbo = 0;
  uint32_t width = 0, height = 0;
  bool rendered = false;
  // Capture: an attachment-less framebuffer (a surfaceless context has no default one),
  // the transform feedback object and its buffer.
  GLuint empty_fbo = 0, xfb = 0, xfb_buffer = 0;
  uint64_t xfb_bytes = 0;
  std::vector<float> xfb_data;

  ~Impl() {
    if (context == nullptr || !context->is_current()) return;  // GL objects die with it
    for (Mesh& m : meshes) {
      if (!m.used) continue;
      glDeleteVertexArrays(1, &m.vao);
      glDeleteBuffers(1, &m.vbo);
      glDeleteBuffers(1, &m.ebo);
      if (m.morph_buffer != 0) glDeleteBuffers(1, &m.morph_buffer);
    }
    glDeleteBuffers(1, &weights_buffer);
    glDeleteBuffers(1, &empty_buffer);
    for (Texture& t : textures) {
      if (t.used) glDeleteTextures(1, &t.texture);
    }
    glDeleteVertexArrays(1, &line_vao);
    glDeleteBuffers(1, &line_vbo);
    for (GLuint p : {ids.program, color.program, capture.program, line_program}) {
      if (p != 0) glDeleteProgram(p);
    }
    store.destroy();
    delete_target();
    const GLuint more_textures[] = {white};
    glDeleteTextures(1, more_textures);
    for (GLuint sampler : samplers) {
      if (sampler != 0) glDeleteSamplers(1, &sampler);
    }
    glDeleteSamplers(1, &sprite_sampler);
    glDeleteFramebuffers(1, &empty_fbo);
    glDeleteTransformFeedbacks(1, &xfb);
    glDeleteBuffers(1, &xfb_buffer);
  }

  void delete_target() {
    const GLuint textures_[] = {color_view, color_tex, id_tex, motion_tex, depth_tex};
    glDeleteTextures(5, textures_);
    glDeleteFramebuffers(1, &fbo);
    glDeleteFramebuffers(1, &read_fbo);
    fbo = read_fbo = color_tex = color_view = id_tex = motion_tex = depth_tex = 0;
  }

  Result<void> current() const {
    if (context == nullptr || !context->is_current()) {
      return Error::make(ErrorCode::kInvalidArgument, "the renderer's context is not current");
    }
    return ok();
  }

  template <typename Slot>
  static Slot* find(std::vector<Slot>& slots, uint32_t value) {
    const uint32_t index = (value & kIndexMask);
    if (index == 0 || index > slots.size()) return nullptr;
    Slot& s = slots[index - 1];
    if (!s.used || s.generation != (value >> kIndexBits)) return nullptr;
    return &s;
  }
  template <typename Slot>
  static uint32_t add(std::vector<Slot>& slots, Slot** out) {
    uint32_t index = 0;
    while (index < slots.size() && slots[index].used) ++index;
    if (index == slots.size()) slots.emplace_back();
    Slot& s = slots[index];
    const uint32_t generation = (s.generation + 1) & kGenerationMask;
    s = Slot{};
    s.generation = generation == 0 ? 1 : generation;
    s.used = true;
    *out = &s;
    return make_handle(index, s.generation);
  }

  Result<void> check_mesh(const MeshData& m) const {
    const size_t n = m.positions.size();
    if (n == 0 || m.indices.empty()) {
      return Error::make(ErrorCode::kInvalidArgument, "a mesh needs positions and indices");
    }
    if (n > kMaxMeshVertices || m.indices.size() > size_t{kMaxMeshVertices} * 3) {
      return Error::make(ErrorCode::kInvalidArgument, "%zu vertices, %zu indices: over the limit",
                         n, m.indices.size());
    }
    if ((!m.normals.empty() && m.normals.size() != n) ||
        (!m.tangents.empty() && m.tangents.size() != n) ||
        (!m.uvs.empty() && m.uvs.size() != 2 * n) ||
        (!m.texcoords1.empty() && m.texcoords1.size() != n) ||
        (!m.colors.empty() && m.colors.size() != n)) {
      return Error::make(ErrorCode::kSizeMismatch,
                         "%zu positions but %zu normals, %zu tangents, %zu uv floats, %zu "
                         "texcoords1, %zu colours",
                         n, m.normals.size(), m.tangents.size(), m.uvs.size(), m.texcoords1.size(),
                         m.colors.size());
    }
    if (m.indices.size() % 3 != 0) {
      return Error::make(ErrorCode::kInvalidArgument, "%zu indices: not whole triangles",
                         m.indices.size());
    }
    for (size_t i = 0; i < m.indices.size(); ++i) {
      if (m.indices[i] >= n) {
        return Error::make(ErrorCode::kInvalidArgument, "index %zu is %u, over %zu vertices", i,
                           m.indices[i], n);
      }
    }
    if (!finite(&m.positions[0].x, 3 * n) ||
        (!m.normals.empty() && !finite(&m.normals[0].x, 3 * n)) ||
        (!m.tangents.empty() && !finite(&m.tangents[0].x, 4 * n)) ||
        (!m.uvs.empty() && !finite(m.uvs.data(), 2 * n)) ||
        (!m.texcoords1.empty() && !finite(&m.texcoords1[0].x, 2 * n)) ||
        (!m.colors.empty() && !finite(&m.colors[0].x, 4 * n))) {
      return Error::make(ErrorCode::kInvalidArgument, "a vertex stream holds a non-finite value");
    }
    return check_morph(m.morph, n);
  }

  Result<void> check_morph(const MorphDeltas& d, size_t n) const {
    const std::span<const Vec3> streams[3] = {d.positions, d.normals, d.tangents};
    if (d.targets == 0) {
      for (std::span<const Vec3> s : streams) {
        if (!s.empty()) {
          return Error::make(ErrorCode::kSizeMismatch, "morph deltas without targets");
        }
      }
      return ok();
    }
    if (d.targets > kMaxMorphTargets) {
      return Error::make(ErrorCode::kInvalidArgument, "%u morph targets: over %u", d.targets,
                         kMaxMorphTargets);
    }
    uint64_t units = 0;
    for (std::span<const Vec3> s : streams) {
      if (s.empty()) continue;
      if (s.size() != size_t{d.targets} * n) {
        return Error::make(ErrorCode::kSizeMismatch,
                           "%zu morph deltas in a stream for %u targets of %zu vertices", s.size(),
                           d.targets, n);
      }
      if (!finite(&s[0].x, 3 * s.size())) {
        return Error::make(ErrorCode::kInvalidArgument, "a morph delta is not finite");
      }
      units += s.size();
    }
    if (units * 16 > max_block || units > uint64_t{INT32_MAX}) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "%llu morph delta bytes pass the storage block limit",
                         static_cast<unsigned long long>(units * 16));
    }
    return ok();
  }

  Result<void> check_desc(const InstanceDesc& d) {
    if (find(meshes, d.mesh.value) == nullptr) {
      return Error::make(ErrorCode::kInvalidArgument, "instance: mesh handle %u names nothing",
                         d.mesh.value);
    }
    if (d.texture && find(textures, d.texture.value) == nullptr) {
      return Error::make(ErrorCode::kInvalidArgument, "instance: texture handle %u names nothing",
                         d.texture.value);
    }
    if (d.id == kNoId) return Error::make(ErrorCode::kInvalidArgument, "instance: id 0 (kNoId)");
    if (!finite(d.model) || !finite(d.previous_model) || !finite(&d.color.x, 4) ||
        !finite(&d.uv.u0, 4)) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "instance: a non-finite matrix, colour or uv");
    }
    if (d.material) {
      if (d.texture) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "instance: a sprite texture and a material: choose one");
      }
      if (auto r = check_material(*d.material); !r) return r;
      for (const MaterialTexture* t : slots_of(*d.material)) {
        if (t->texture && find(textures, t->texture.value) == nullptr) {
          return Error::make(ErrorCode::kInvalidArgument,
                             "instance: material texture handle %u names nothing",
                             t->texture.value);
        }
      }
    }
    return ok();
  }

  // Adds `delta` to the users of every texture the description names.
  void count_textures(const InstanceDesc& d, int delta) {
    auto bump = [&](TextureHandle h) {
      if (!h) return;
      Texture* t = find(textures, h.value);
      t->users = static_cast<uint32_t>(static_cast<int64_t>(t->users) + delta);
    };
    bump(d.texture);
    if (d.material) {
      for (const MaterialTexture* t : slots_of(*d.material)) bump(t->texture);
    }
  }

  Result<MeshHandle> upload(const MeshData& m, const SkinData* skin) {
    const size_t n = m.positions.size();
    uint32_t joint_count = 0;
    if (skin != nullptr) {
      for (std::span<const JointIndices> set : {skin->joints, skin->joints1}) {
        for (const JointIndices& j : set) {
          for (uint16_t k : j.j) joint_count = std::max<uint32_t>(joint_count, uint32_t{k} + 1);
        }
      }
    }
    std::vector<float> vertices(n * kFloatsPerVertex);
    for (size_t v = 0; v < n; ++v) {
      float* out = &vertices[v * kFloatsPerVertex];
      const Vec3 p = m.positions[v];
      const Vec3 nr = m.normals.empty() ? Vec3{0, 0, 1} : m.normals[v];
      const Vec4 t = m.tangents.empty() ? Vec4{1, 0, 0, 1} : m.tangents[v];
      const Vec2 uv1 = m.texcoords1.empty() ? Vec2{0, 0} : m.texcoords1[v];
      const Vec4 c = m.colors.empty() ? Vec4{1, 1, 1, 1} : m.colors[v];
      const float values[kFloatsPerVertex] = {p.x,
                                              p.y,
                                              p.z,
                                              nr.x,
                                              nr.y,
                                              nr.z,
                                              t.x,
                                              t.y,
                                              t.z,
                                              t.w,
                                              m.uvs.empty() ? 0.0f : m.uvs[2 * v],
                                              m.uvs.empty() ? 0.0f : m.uvs[2 * v + 1],
                                              uv1.x,
                                              uv1.y,
                                              c.x,
                                              c.y,
                                              c.z,
                                              c.w};
      std::memcpy(out, values, sizeof values);
    }
    Mesh* mesh = nullptr;
    const uint32_t handle = add(meshes, &mesh);
    mesh->vertex_count = static_cast<uint32_t>(n);
    mesh->index_count = static_cast<uint32_t>(m.indices.size());
    mesh->has_tangents = !m.tangents.empty();
    Vec3 lo = m.positions[0], hi = lo;
    for (const Vec3& p : m.positions) {
      lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
      hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    }
    mesh->center = (lo + hi) * 0.5f;
    glCreateBuffers(1, &mesh->vbo);
    glNamedBufferStorage(mesh->vbo, static_cast<GLsizeiptr>(vertices.size() * sizeof(float)),
                         vertices.data(), 0);
    glCreateBuffers(1, &mesh->ebo);
    glNamedBufferStorage(mesh->ebo, static_cast<GLsizeiptr>(m.indices.size() * sizeof(uint32_t)),
                         m.indices.data(), 0);
    glCreateVertexArrays(1, &mesh->vao);
    glVertexArrayVertexBuffer(mesh->vao, 0, mesh->vbo, 0, kFloatsPerVertex * sizeof(float));
    glVertexArrayElementBuffer(mesh->vao, mesh->ebo);
    const GLint sizes[6] = {3, 3, 4, 2, 2, 4};
    GLuint offset = 0;
    for (GLuint a = 0; a < 6; ++a) {
      glEnableVertexArrayAttrib(mesh->vao, a);
      glVertexArrayAttribFormat(mesh->vao, a, sizes[a], GL_FLOAT, GL_FALSE, offset);
      glVertexArrayAttribBinding(mesh->vao, a, 0);
      offset += static_cast<GLuint>(sizes[a]) * sizeof(float);
    }
    if (skin != nullptr) {
      mesh->skinned = true;
      mesh->eight = !skin->joints1.empty();
      mesh->joint_count = joint_count;
      mesh->record_slots = static_cast<uint32_t>(mesh->eight ? 2 * n : n);
      mesh->first_record =
          store.add_records(skin->joints, skin->weights, skin->joints1, skin->weights1);
    }
    if (m.morph.targets > 0) upload_morph(*mesh, m.morph);
    if (auto r = context->check_errors("upload_mesh"); !r) return r.error();
    return MeshHandle{handle};
  }

  // The deltas in the mesh's own buffer: the present streams' blocks, one after another,
  // each target-major with one 16-byte unit (xyz, 0) per delta.
  void upload_morph(Mesh& mesh, const MorphDeltas& d) {
    mesh.morph_targets = d.targets;
    const std::span<const Vec3> streams[3] = {d.positions, d.normals, d.tangents};
    size_t units = 0;
    for (int k = 0; k < 3; ++k) {
      if (streams[k].empty()) continue;
      mesh.morph_blocks[k] = static_cast<int>(units);
      units += streams[k].size();
    }
    std::vector<float> data(std::max<size_t>(units, 1) * 4, 0.0f);
    for (int k = 0; k < 3; ++k) {
      if (mesh.morph_blocks[k] < 0) continue;
      float* out = &data[static_cast<size_t>(mesh.morph_blocks[k]) * 4];
      for (size_t i = 0; i < streams[k].size(); ++i) {
        out[4 * i] = streams[k][i].x;
        out[4 * i + 1] = streams[k][i].y;
        out[4 * i + 2] = streams[k][i].z;
      }
    }
    glCreateBuffers(1, &mesh.morph_buffer);
    glNamedBufferStorage(mesh.morph_buffer, static_cast<GLsizeiptr>(data.size() * sizeof(float)),
                         data.data(), 0);
  }

  // The skinning and morph uniforms of an instance of `mesh` (u_skin: record -1 for a
  // static mesh), and its deltas bound at binding 1.
  void set_vertex_uniforms(const DrawProgram& p, const Mesh& mesh, const Instance& inst) {
    int skin[4] = {-1, 0, 0, 0};
    if (mesh.skinned) {
      skin[0] = store.record_unit(mesh.first_record);
      if (inst.pose >= 0) {
        skin[1] = store.palette_unit(static_cast<uint32_t>(inst.pose));
        skin[2] = store.palette_unit(static_cast<uint32_t>(inst.previous_pose));
        skin[3] = 1;
      }
    }
    glProgramUniform4iv(p.program, p.skin, 1, skin);
    glProgramUniform1i(p.program, p.eight, mesh.eight ? 1 : 0);
    int morph[4] = {0, static_cast<int>(mesh.vertex_count), 0, 0};
    if (mesh.morph_targets > 0 && inst.weights >= 0) {
      morph[0] = static_cast<int>(mesh.morph_targets);
      morph[2] = static_cast<int>(inst.weights);
      morph[3] = static_cast<int>(inst.previous_weights);
    }
    glProgramUniform4iv(p.program, p.morph, 1, morph);
    glProgramUniform3iv(p.program, p.morph_blocks, 1, mesh.morph_blocks);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1,
                     mesh.morph_buffer != 0 ? mesh.morph_buffer : empty_buffer);
  }

  // Writes the staged weights into their buffer, remade (at least doubled) when short.
  void write_weights() {
    const uint64_t bytes = uint64_t{weights.size()} * sizeof(float);
    if (bytes == 0) return;
    if (bytes > weights_bytes) {
      if (weights_buffer != 0) glDeleteBuffers(1, &weights_buffer);
      weights_bytes = std::max<uint64_t>({bytes, weights_bytes * 2, 1024});
      glCreateBuffers(1, &weights_buffer);
      glNamedBufferData(weights_buffer, static_cast<GLsizeiptr>(weights_bytes), nullptr,
                        GL_DYNAMIC_DRAW);
    }
    glNamedBufferSubData(weights_buffer, 0, static_cast<GLsizeiptr>(bytes), weights.data());
  }

  void ensure_target(uint32_t w, uint32_t h) {
    if (fbo != 0 && w == width && h == height) return;
    if (fbo != 0) delete_target();
    const auto gw = static_cast<GLsizei>(w), gh = static_cast<GLsizei>(h);
    glCreateTextures(GL_TEXTURE_2D, 1, &color_tex);
    glTextureStorage2D(color_tex, 1, GL_SRGB8_ALPHA8, gw, gh);
    glGenTextures(1, &color_view);
    glTextureView(color_view, GL_TEXTURE_2D, color_tex, GL_RGBA8, 0, 1, 0, 1);
    glCreateTextures(GL_TEXTURE_2D, 1, &id_tex);
    glTextureStorage2D(id_tex, 1, GL_R32UI, gw, gh);
    glCreateTextures(GL_TEXTURE_2D, 1, &motion_tex);
    glTextureStorage2D(motion_tex, 1, GL_RG32F, gw, gh);
    glCreateTextures(GL_TEXTURE_2D, 1, &depth_tex);
    glTextureStorage2D(depth_tex, 1, GL_DEPTH_COMPONENT32F, gw, gh);
    glCreateFramebuffers(1, &fbo);
    glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT0, color_tex, 0);
    glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT1, id_tex, 0);
    glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT2, motion_tex, 0);
    glNamedFramebufferTexture(fbo, GL_DEPTH_ATTACHMENT, depth_tex, 0);
    glNamedFramebufferReadBuffer(fbo, GL_COLOR_ATTACHMENT0);
    glCreateFramebuffers(1, &read_fbo);
    glNamedFramebufferTexture(read_fbo, GL_COLOR_ATTACHMENT0, color_view, 0);
    glNamedFramebufferReadBuffer(read_fbo, GL_COLOR_ATTACHMENT0);
    width = w;
    height = h;
  }

  void set_instance_uniforms(const DrawProgram& p, const Instance& inst) {
    const InstanceDesc& d = inst.desc;
    const Mesh& mesh = *find(meshes, d.mesh.value);
    glProgramUniformMatrix4fv(p.program, p.model, 1, GL_FALSE, d.model.m);
    glProgramUniformMatrix4fv(p.program, p.previous_model, 1, GL_FALSE, d.previous_model.m);
    float nm[9];
    normal_matrix(d.model, nm);
    glProgramUniformMatrix3fv(p.program, p.normal_matrix, 1, GL_FALSE, nm);
    set_vertex_uniforms(p, mesh, inst);
    if (p.id >= 0) glProgramUniform1ui(p.program, p.id, d.id);
    glProgramUniform4f(p.program, p.uv_rect, d.uv.u0, d.uv.v0, d.uv.u1 - d.uv.u0,
                       d.uv.v1 - d.uv.v0);
    // Winding: counter-clockwise fronts, clockwise under a mirroring model (as glTF says).
    glFrontFace(det3(d.model) < 0.0f ? GL_CW : GL_CCW);
    const Texture* sprite = d.texture ? find(textures, d.texture.value) : nullptr;
    glProgramUniform1i(p.program, p.mode, sprite != nullptr ? 1 : 0);
    if (sprite != nullptr) {
      glDisable(GL_CULL_FACE);
      glBindTextureUnit(0, sprite->texture);
      glBindSampler(0, sprite_sampler);
      for (GLuint unit = 1; unit < kSlots; ++unit) {
        glBindTextureUnit(unit, white);
        glBindSampler(unit, 0);
      }
      return;
    }
    MaterialDesc plain;
    if (!d.material) {
      plain.base_color = d.color;
      plain.metallic = 0;
      plain.roughness = 1;
      plain.double_sided = true;
    }
    const MaterialDesc& m = d.material ? *d.material : plain;
    if (m.double_sided) {
      glDisable(GL_CULL_FACE);
    } else {
      glEnable(GL_CULL_FACE);
      glCullFace(GL_BACK);
    }
    glProgramUniform4fv(p.program, p.base_color, 1, &m.base_color.x);
    glProgramUniform4f(p.program, p.terms, m.metallic, m.roughness, m.occlusion_strength,
                       m.normal_scale);
    const Vec3 emissive = m.emissive * m.emissive_strength;
    glProgramUniform3fv(p.program, p.emissive, 1, &emissive.x);
    glProgramUniform1i(p.program, p.alpha_mode, static_cast<GLint>(m.alpha_mode));
    glProgramUniform1f(p.program, p.alpha_cutoff, m.alpha_cutoff);
    glProgramUniform1i(p.program, p.has_tangents, mesh.has_tangents ? 1 : 0);
    GLint on[kSlots], uv[kSlots];
    float row0[3 * kSlots], row1[3 * kSlots];
    const auto slots = slots_of(m);
    for (int k = 0; k < kSlots; ++k) {
      const MaterialTexture& t = *slots[static_cast<size_t>(k)];
      const Texture* tex = t.texture ? find(textures, t.texture.value) : nullptr;
      on[k] = tex != nullptr ? 1 : 0;
      uv[k] = t.uv_set;
      uv_rows(t, &row0[3 * k], &row1[3 * k]);
      const auto unit = static_cast<GLuint>(k);
      glBindTextureUnit(unit, tex != nullptr ? tex->texture : white);
      glBindSampler(unit, tex != nullptr && t.sampler ? sampler_for(*t.sampler, tex->mipmaps) : 0);
    }
    glProgramUniform1iv(p.program, p.slot_on, kSlots, on);
    glProgramUniform1iv(p.program, p.slot_uv, kSlots, uv);
    glProgramUniform3fv(p.program, p.slot_row0, kSlots, row0);
    glProgramUniform3fv(p.program, p.slot_row1, kSlots, row1);
  }

  // The GL sampler object of `s` (made on first use).
  GLuint sampler_for(const Sampler& s, bool mipmaps) {
    GLuint& sampler = samplers[sampler_index(s) * 2 + (mipmaps ? 1 : 0)];
    if (sampler == 0) {
      glCreateSamplers(1, &sampler);
      glSamplerParameteri(sampler, GL_TEXTURE_WRAP_S, gl_wrap(s.wrap_s));
      glSamplerParameteri(sampler, GL_TEXTURE_WRAP_T, gl_wrap(s.wrap_t));
      glSamplerParameteri(sampler, GL_TEXTURE_MAG_FILTER, gl_filter(s.mag_filter));
      glSamplerParameteri(sampler, GL_TEXTURE_MIN_FILTER, gl_min_filter(s.min_filter, mipmaps));
    }
    return sampler;
  }

  static bool blended(const Instance& inst) {
    return !inst.desc.texture && inst.desc.material &&
           inst.desc.material->alpha_mode == AlphaMode::kBlend;
  }

  // The visible instances in drawing order: opaque and MASK ones in instance order, then
  // the BLEND ones back to front. Returns where the BLEND ones start.
  size_t sort_instances(const Camera& camera) {
    order.clear();
    blend_keys.assign(instances.size(), 0.0f);
    const Vec3 forward = normalize(camera.target - camera.eye);
    for (size_t i = 0; i < instances.size(); ++i) {
      const Instance& inst = instances[i];
      if (inst.used && inst.desc.visible && !blended(inst)) order.push_back(i);
    }
    const size_t first_blend = order.size();
    for (size_t i = 0; i < instances.size(); ++i) {
      const Instance& inst = instances[i];
      if (!inst.used || !inst.desc.visible || !blended(inst)) continue;
      const Vec3 c = transform_point(inst.desc.model, find(meshes, inst.desc.mesh.value)->center);
      blend_keys[i] = dot(c - camera.eye, forward);
      order.push_back(i);
    }
    std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(first_blend), order.end(),
                     [&](size_t a, size_t b) { return blend_keys[a] > blend_keys[b]; });
    return first_blend;
  }

  void draw_range(const DrawProgram& p, size_t first, size_t last) {
    glUseProgram(p.program);
    for (size_t k = first; k < last; ++k) {
      const Instance& inst = instances[order[k]];
      set_instance_uniforms(p, inst);
      const Mesh& mesh = *find(meshes, inst.desc.mesh.value);
      glBindVertexArray(mesh.vao);
      glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(mesh.index_count), GL_UNSIGNED_INT,
                     nullptr);
    }
  }
};

Renderer::Renderer() = default;
Renderer::Renderer(Renderer&&) noexcept = default;
Renderer& Renderer::operator=(Renderer&&) noexcept = default;
Renderer::~Renderer() = default;

Result<Renderer> Renderer::create(Context* context) {
  if (context == nullptr || !context->valid() || !context->is_current()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "Renderer::create needs a valid, current context");
  }
  Renderer r;
  r.impl_ = std::make_unique<Impl>();
  Impl& im = *r.impl_;
  im.context = context;
  // The colour pass needs no previous positions; the ids pass (motion) and capture do.
  Result<GLuint> ids =
      build_program(true, shaders::kDrawVertex, shaders::kIdsFragment, "ids program");
  if (!ids) return ids.error();
  im.ids.program = *ids;
  Result<GLuint> color =
      build_program(false, shaders::kDrawVertex, shaders::kColorFragment, "colour program");
  if (!color) return color.error();
  im.color.program = *color;
  Result<GLuint> capture = build_program(true, shaders::kCaptureVertex, nullptr, "capture program");
  if (!capture) return capture.error();
  im.capture.program = *capture;
  for (DrawProgram* p : {&im.ids, &im.color, &im.capture}) p->locate();
  Result<GLuint> lines = build_line_program();
  if (!lines) return lines.error();
  im.line_program = *lines;
  im.line_view_proj = glGetUniformLocation(im.line_program, "u_view_proj");
  glCreateVertexArrays(1, &im.line_vao);
  glEnableVertexArrayAttrib(im.line_vao, 0);
  glEnableVertexArrayAttrib(im.line_vao, 1);
  glVertexArrayAttribFormat(im.line_vao, 0, 3, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribFormat(im.line_vao, 1, 4, GL_FLOAT, GL_FALSE, 3 * sizeof(float));
  glVertexArrayAttribBinding(im.line_vao, 0, 0);
  glVertexArrayAttribBinding(im.line_vao, 1, 0);

  GLint64 max_block = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
  im.max_block = static_cast<uint64_t>(std::max<GLint64>(max_block, 1 << 16));
  im.store.init(im.max_block);
  const float nothing[4] = {0, 0, 0, 0};
  glCreateBuffers(1, &im.empty_buffer);
  glNamedBufferStorage(im.empty_buffer, sizeof nothing, nothing, 0);

  const uint8_t white[4] = {255, 255, 255, 255};
  glCreateTextures(GL_TEXTURE_2D, 1, &im.white);
  glTextureStorage2D(im.white, 1, GL_RGBA8, 1, 1);
  glTextureSubImage2D(im.white, 0, 0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, white);

  glCreateSamplers(1, &im.sprite_sampler);
  glSamplerParameteri(im.sprite_sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glSamplerParameteri(im.sprite_sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glSamplerParameteri(im.sprite_sampler, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glSamplerParameteri(im.sprite_sampler, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &im.max_texture_size);
  im.max_texture_size = std::max(im.max_texture_size, 1);

  glCreateFramebuffers(1, &im.empty_fbo);
  glNamedFramebufferParameteri(im.empty_fbo, GL_FRAMEBUFFER_DEFAULT_WIDTH, 1);
  glNamedFramebufferParameteri(im.empty_fbo, GL_FRAMEBUFFER_DEFAULT_HEIGHT, 1);
  glCreateTransformFeedbacks(1, &im.xfb);
  if (auto e = context->check_errors("Renderer::create"); !e) return e.error();
  return r;
}

Result<MeshHandle> Renderer::upload_mesh(const MeshData& mesh) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r.error();
  if (auto r = impl_->check_mesh(mesh); !r) return r.error();
  return impl_->upload(mesh, nullptr);
}

Result<MeshHandle> Renderer::upload_skinned_mesh(const MeshData& mesh, const SkinData& skin) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r.error();
  if (auto r = impl_->check_mesh(mesh); !r) return r.error();
  const size_t n = mesh.positions.size();
  if (skin.joints.size() != n || skin.weights.size() != n) {
    return Error::make(ErrorCode::kSizeMismatch, "%zu positions but %zu joints and %zu weights", n,
                       skin.joints.size(), skin.weights.size());
  }
  const bool eight = !skin.joints1.empty() || !skin.weights1.empty();
  if (eight && (skin.joints1.size() != n || skin.weights1.size() != n)) {
    return Error::make(ErrorCode::kSizeMismatch,
                       "%zu positions but %zu joints1 and %zu weights1 (eight influences)", n,
                       skin.joints1.size(), skin.weights1.size());
  }
  if (!finite(&skin.weights[0].x, 4 * n) || (eight && !finite(&skin.weights1[0].x, 4 * n))) {
    return Error::make(ErrorCode::kInvalidArgument, "a skin weight is not finite");
  }
  if (!impl_->store.fits_records(eight ? 2 * n : n)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%zu more skin records would pass the storage block limit", n);
  }
  return impl_->upload(mesh, &skin);
}

Result<void> Renderer::release_mesh(MeshHandle handle) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r;
  Impl::Mesh* mesh = Impl::find(impl_->meshes, handle.value);
  if (mesh == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "release_mesh: handle %u names nothing",
                       handle.value);
  }
  if (mesh->users > 0) {
    return Error::make(ErrorCode::kInvalidArgument, "release_mesh: %u instances still use it",
                       mesh->users);
  }
  if (mesh->skinned) impl_->store.release_records(mesh->first_record, mesh->record_slots);
  if (mesh->morph_buffer != 0) glDeleteBuffers(1, &mesh->morph_buffer);
  glDeleteVertexArrays(1, &mesh->vao);
  glDeleteBuffers(1, &mesh->vbo);
  glDeleteBuffers(1, &mesh->ebo);
  mesh->used = false;
  return impl_->context->check_errors("release_mesh");
}

uint32_t Renderer::mesh_joint_count(MeshHandle handle) const {
  if (!impl_) return 0;
  const Impl::Mesh* mesh = Impl::find(impl_->meshes, handle.value);
  return mesh != nullptr ? mesh->joint_count : 0;
}

Result<TextureHandle> Renderer::upload_texture(std::span<const uint8_t> rgba, uint32_t width,
                                               uint32_t height, const TextureOptions& options) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r.error();
  const uint32_t max_side =
      std::min<uint32_t>(kMaxTextureSize, static_cast<uint32_t>(impl_->max_texture_size));
  if (width == 0 || height == 0 || width > max_side || height > max_side) {
    return Error::make(ErrorCode::kInvalidArgument, "texture size %ux%u outside 1..%u", width,
                       height, max_side);
  }
  if (rgba.size() != size_t{width} * height * 4) {
    return Error::make(ErrorCode::kSizeMismatch, "%zu bytes for a %ux%u RGBA8 texture", rgba.size(),
                       width, height);
  }
  if (options.color_space != ColorSpace::kLinear && options.color_space != ColorSpace::kSrgb) {
    return Error::make(ErrorCode::kInvalidArgument, "upload_texture: colour space %d",
                       static_cast<int>(options.color_space));
  }
  if (auto r = check_sampler(options.sampler, "upload_texture"); !r) return r.error();
  GLsizei levels = 1;
  if (options.mipmaps) {
    for (uint32_t side = std::max(width, height); side > 1; side >>= 1) ++levels;
  }
  Impl::Texture* tex = nullptr;
  const uint32_t handle = Impl::add(impl_->textures, &tex);
  tex->mipmaps = levels > 1;
  glCreateTextures(GL_TEXTURE_2D, 1, &tex->texture);
  glTextureStorage2D(tex->texture, levels,
                     options.color_space == ColorSpace::kSrgb ? GL_SRGB8_ALPHA8 : GL_RGBA8,
                     static_cast<GLsizei>(width), static_cast<GLsizei>(height));
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  // Row 0 of the image (its top) goes to t = 0: v down from the top is t.
  glTextureSubImage2D(tex->texture, 0, 0, 0, static_cast<GLsizei>(width),
                      static_cast<GLsizei>(height), GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  if (levels > 1) glGenerateTextureMipmap(tex->texture);
  const Sampler& sampler = options.sampler;
  glTextureParameteri(tex->texture, GL_TEXTURE_MIN_FILTER,
                      gl_min_filter(sampler.min_filter, tex->mipmaps));
  glTextureParameteri(tex->texture, GL_TEXTURE_MAG_FILTER, gl_filter(sampler.mag_filter));
  glTextureParameteri(tex->texture, GL_TEXTURE_WRAP_S, gl_wrap(sampler.wrap_s));
  glTextureParameteri(tex->texture, GL_TEXTURE_WRAP_T, gl_wrap(sampler.wrap_t));
  if (auto r = impl_->context->check_errors("upload_texture"); !r) return r.error();
  return TextureHandle{handle};
}

Result<void> Renderer::release_texture(TextureHandle handle) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r;
  Impl::Texture* tex = Impl::find(impl_->textures, handle.value);
  if (tex == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "release_texture: handle %u names nothing",
                       handle.value);
  }
  if (tex->users > 0) {
    return Error::make(ErrorCode::kInvalidArgument, "release_texture: %u instances still use it",
                       tex->users);
  }
  glDeleteTextures(1, &tex->texture);
  tex->used = false;
  return impl_->context->check_errors("release_texture");
}

Result<InstanceHandle> Renderer::create_instance(const InstanceDesc& desc) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->check_desc(desc); !r) return r.error();
  Impl::Instance* inst = nullptr;
  const uint32_t handle = Impl::add(impl_->instances, &inst);
  inst->desc = desc;
  ++Impl::find(impl_->meshes, desc.mesh.value)->users;
  impl_->count_textures(desc, 1);
  return InstanceHandle{handle};
}

Result<void> Renderer::update_instance(InstanceHandle handle, const InstanceDesc& desc) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  Impl::Instance* inst = Impl::find(impl_->instances, handle.value);
  if (inst == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "update_instance: handle %u names nothing",
                       handle.value);
  }
  if (auto r = impl_->check_desc(desc); !r) return r;
  --Impl::find(impl_->meshes, inst->desc.mesh.value)->users;
  impl_->count_textures(inst->desc, -1);
  if (!(inst->desc.mesh == desc.mesh)) inst->pose = inst->previous_pose = -1;
  inst->desc = desc;
  ++Impl::find(impl_->meshes, desc.mesh.value)->users;
  impl_->count_textures(desc, 1);
  return ok();
}

Result<void> Renderer::destroy_instance(InstanceHandle handle) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  Impl::Instance* inst = Impl::find(impl_->instances, handle.value);
  if (inst == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "destroy_instance: handle %u names nothing",
                       handle.value);
  }
  --Impl::find(impl_->meshes, inst->desc.mesh.value)->users;
  impl_->count_textures(inst->desc, -1);
  inst->used = false;
  return ok();
}

Result<void> Renderer::set_poses(std::span<const InstancePose> poses) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r;
  Impl& im = *impl_;
  // Check everything first: a refused call changes nothing.
  const uint32_t stamp = ++im.stamp == 0 ? ++im.stamp : im.stamp;
  uint64_t matrices = 0, weights = 0;
  for (size_t i = 0; i < poses.size(); ++i) {
    const InstancePose& p = poses[i];
    Impl::Instance* inst = Impl::find(im.instances, p.instance.value);
    if (inst == nullptr) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "set_poses: pose %zu: handle %u names nothing", i, p.instance.value);
    }
    const Impl::Mesh& mesh = *Impl::find(im.meshes, inst->desc.mesh.value);
    if (!mesh.skinned && mesh.morph_targets == 0) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "set_poses: pose %zu: the instance's mesh is neither skinned nor morphed",
                         i);
    }
    if (inst->stamp == stamp) {
      return Error::make(ErrorCode::kInvalidArgument, "set_poses: pose %zu: instance posed twice",
                         i);
    }
    inst->stamp = stamp;
    if (auto r = check_pose_weights(p, mesh.morph_targets, i); !r) return r;
    weights += p.morph_weights.size() + p.previous_morph_weights.size();
    if (!mesh.skinned) {
      if (!p.joints.empty() || !p.previous.empty()) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "set_poses: pose %zu: joints for a mesh without a skin", i);
      }
      continue;
    }
    if (p.joints.size() < mesh.joint_count) {
      return Error::make(ErrorCode::kBadJointIndex,
                         "set_poses: pose %zu has %zu joints, its mesh names %u", i,
                         p.joints.size(), mesh.joint_count);
    }
    if (!p.previous.empty() && p.previous.size() != p.joints.size()) {
      return Error::make(ErrorCode::kSizeMismatch,
                         "set_poses: pose %zu: %zu previous matrices for %zu joints", i,
                         p.previous.size(), p.joints.size());
    }
    for (std::span<const Mat4> s : {p.joints, p.previous}) {
      if (!s.empty() && !finite(&s[0].m[0], 16 * s.size())) {
        return Error::make(ErrorCode::kInvalidArgument, "set_poses: pose %zu: a non-finite matrix",
                           i);
      }
    }
    matrices += p.joints.size() + p.previous.size();
  }
  if (!im.store.fits_palettes(matrices)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "set_poses: %llu palette matrices pass the storage block limit",
                       static_cast<unsigned long long>(matrices));
  }
  if (weights * sizeof(float) > im.max_block) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "set_poses: %llu morph weights pass the storage block limit",
                       static_cast<unsigned long long>(weights));
  }
  for (Impl::Instance& inst : im.instances) {
    inst.pose = inst.previous_pose = -1;
    inst.weights = inst.previous_weights = -1;
  }
  im.palettes.clear();
  im.weights.clear();
  for (const InstancePose& p : poses) {
    Impl::Instance* inst = Impl::find(im.instances, p.instance.value);
    if (!p.morph_weights.empty()) {
      inst->weights = inst->previous_weights = static_cast<int64_t>(im.weights.size());
      im.weights.insert(im.weights.end(), p.morph_weights.begin(), p.morph_weights.end());
      if (!p.previous_morph_weights.empty()) {
        inst->previous_weights = static_cast<int64_t>(im.weights.size());
        im.weights.insert(im.weights.end(), p.previous_morph_weights.begin(),
                          p.previous_morph_weights.end());
      }
    }
    if (p.joints.empty()) continue;  // a morphed mesh without a skin
    inst->pose = static_cast<int64_t>(im.palettes.size());
    im.palettes.insert(im.palettes.end(), p.joints.begin(), p.joints.end());
    if (p.previous.empty()) {
      inst->previous_pose = inst->pose;
    } else {
      inst->previous_pose = static_cast<int64_t>(im.palettes.size());
      im.palettes.insert(im.palettes.end(), p.previous.begin(), p.previous.end());
    }
  }
  im.store.set_palettes(im.palettes);
  im.write_weights();
  return im.context->check_errors("set_poses");
}

Result<void> Renderer::set_lines(std::span<const DebugLine> lines) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r;
  if (lines.size() > kMaxDebugLines) {
    return Error::make(ErrorCode::kInvalidArgument, "set_lines: %zu lines (at most %u)",
                       lines.size(), kMaxDebugLines);
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    const DebugLine& l = lines[i];
    if (!finite(l.from) || !finite(l.to) || !finite(&l.color.x, 4)) {
      return Error::make(ErrorCode::kInvalidArgument, "set_lines: line %zu is not finite", i);
    }
  }
  Impl& im = *impl_;
  im.line_data.clear();
  im.line_tested = im.line_on_top = 0;
  for (bool on_top : {false, true}) {
    for (const DebugLine& l : lines) {
      if (l.on_top != on_top) continue;
      for (const Vec3& p : {l.from, l.to}) {
        im.line_data.insert(im.line_data.end(),
                            {p.x, p.y, p.z, l.color.x, l.color.y, l.color.z, l.color.w});
      }
      (on_top ? im.line_on_top : im.line_tested) += 2;
    }
  }
  const uint64_t bytes = im.line_data.size() * sizeof(float);
  if (bytes > im.line_bytes) {
    if (im.line_vbo != 0) glDeleteBuffers(1, &im.line_vbo);
    im.line_bytes = std::max<uint64_t>(bytes, 2 * im.line_bytes);
    glCreateBuffers(1, &im.line_vbo);
    glNamedBufferStorage(im.line_vbo, static_cast<GLsizeiptr>(im.line_bytes), nullptr,
                         GL_DYNAMIC_STORAGE_BIT);
    glVertexArrayVertexBuffer(im.line_vao, 0, im.line_vbo, 0, 7 * sizeof(float));
  }
  if (bytes > 0) {
    glNamedBufferSubData(im.line_vbo, 0, static_cast<GLsizeiptr>(bytes), im.line_data.data());
  }
  return im.context->check_errors("set_lines");
}

Result<void> Renderer::render(const View& view) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r;
  if (auto r = check_view(view); !r) return r;
  Impl& im = *impl_;
  const float aspect = static_cast<float>(view.width) / static_cast<float>(view.height);
  const Camera& previous = view.previous_camera ? *view.previous_camera : view.camera;
  const Mat4 view_proj = projection_matrix(view.camera, aspect) * view_matrix(view.camera);
  const Mat4 previous_view_proj = projection_matrix(previous, aspect) * view_matrix(previous);

  im.ensure_target(view.width, view.height);
  glBindFramebuffer(GL_FRAMEBUFFER, im.fbo);
  glViewport(0, 0, static_cast<GLsizei>(view.width), static_cast<GLsizei>(view.height));
  const GLenum all[3] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2};
  glNamedFramebufferDrawBuffers(im.fbo, 3, all);
  glDepthMask(GL_TRUE);
  glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_RASTERIZER_DISCARD);
  glDisable(GL_FRAMEBUFFER_SRGB);  // the clear colour is stored as given
  const GLuint no_id[4] = {0, 0, 0, 0};
  const float no_motion[4] = {0, 0, 0, 0};
  const float far_depth = 1.0f;
  glClearNamedFramebufferfv(im.fbo, GL_COLOR, 0, &view.clear_color.x);
  glClearNamedFramebufferuiv(im.fbo, GL_COLOR, 1, no_id);
  glClearNamedFramebufferfv(im.fbo, GL_COLOR, 2, no_motion);
  glClearNamedFramebufferfv(im.fbo, GL_DEPTH, 0, &far_depth);

  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, im.store.buffer());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2,
                   im.weights_buffer != 0 ? im.weights_buffer : im.empty_buffer);
  const float viewport[2] = {static_cast<float>(view.width), static_cast<float>(view.height)};
  const Vec3 light = normalize(view.light_direction);
  const Vec3 to_eye = normalize(view.camera.eye - view.camera.target);
  for (DrawProgram* p : {&im.ids, &im.color}) {
    glProgramUniformMatrix4fv(p->program, p->view_proj, 1, GL_FALSE, view_proj.m);
    glProgramUniformMatrix4fv(p->program, p->previous_view_proj, 1, GL_FALSE, previous_view_proj.m);
    if (p->viewport >= 0) glProgramUniform2fv(p->program, p->viewport, 1, viewport);
  }
  glProgramUniform3fv(im.color.program, im.color.light, 1, &light.x);
  glProgramUniform1f(im.color.program, im.color.ambient, view.ambient);
  glProgramUniform3fv(im.color.program, im.color.eye, 1, &view.camera.eye.x);
  glProgramUniform1i(im.color.program, im.color.orthographic, view.camera.orthographic ? 1 : 0);
  glProgramUniform3fv(im.color.program, im.color.to_eye, 1, &to_eye.x);
  const size_t first_blend = im.sort_instances(view.camera);
  const size_t count = im.order.size();
  glEnable(GL_DEPTH_TEST);
  // The depth/ids/motion pass of the opaque and MASK instances.
  const GLenum ids_buffers[3] = {GL_NONE, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2};
  glNamedFramebufferDrawBuffers(im.fbo, 3, ids_buffers);
  glDepthFunc(GL_LESS);
  im.draw_range(im.ids, 0, first_blend);
  // Their colour pass, on the depth the first pass left (gl_Position is invariant).
  const GLenum color_buffers[3] = {GL_COLOR_ATTACHMENT0, GL_NONE, GL_NONE};
  glNamedFramebufferDrawBuffers(im.fbo, 3, color_buffers);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_FALSE);
  glEnable(GL_FRAMEBUFFER_SRGB);  // linear colours in, sRGB bytes stored, blending in linear
  im.draw_range(im.color, 0, first_blend);
  if (first_blend < count) {
    // BLEND instances, back to front, "over" what is drawn, depth tested, not written.
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    im.draw_range(im.color, first_blend, count);
    glDisable(GL_BLEND);
    glDisable(GL_FRAMEBUFFER_SRGB);
    // Then their ids and motion: the nearest BLEND surface in front of the opaque ones.
    glNamedFramebufferDrawBuffers(im.fbo, 3, ids_buffers);
    glDepthMask(GL_TRUE);
    glDepthFunc(GL_LESS);
    im.draw_range(im.ids, first_blend, count);
  }
  if (im.line_tested + im.line_on_top > 0) {
    // The debug lines: colour only, blended over in linear light, depth not written.
    glNamedFramebufferDrawBuffers(im.fbo, 3, color_buffers);
    glDisable(GL_CULL_FACE);
    glDepthMask(GL_FALSE);
    glDepthFunc(GL_LEQUAL);
    glEnable(GL_FRAMEBUFFER_SRGB);
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glProgramUniformMatrix4fv(im.line_program, im.line_view_proj, 1, GL_FALSE, view_proj.m);
    glUseProgram(im.line_program);
    glBindVertexArray(im.line_vao);
    if (im.line_tested > 0) glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(im.line_tested));
    glDisable(GL_DEPTH_TEST);
    if (im.line_on_top > 0) {
      glDrawArrays(GL_LINES, static_cast<GLint>(im.line_tested),
                   static_cast<GLsizei>(im.line_on_top));
    }
    glDisable(GL_BLEND);
  }
  glDisable(GL_FRAMEBUFFER_SRGB);
  glDepthMask(GL_TRUE);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glFrontFace(GL_CCW);
  for (GLuint unit = 0; unit < kSlots; ++unit) glBindSampler(unit, 0);
  glBindVertexArray(0);
  glUseProgram(0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  im.rendered = true;
  return im.context->check_errors("render");
}

namespace {

// Reads a target texture and turns its rows top first.
template <typename T>
Result<std::vector<T>> read_texture(Context* context, GLuint texture, uint32_t width,
                                    uint32_t height, GLenum format, GLenum type, uint32_t per_pixel,
                                    const char* what) {
  std::vector<T> bottom_up(size_t{width} * height * per_pixel);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glGetTextureImage(texture, 0, format, type, static_cast<GLsizei>(bottom_up.size() * sizeof(T)),
                    bottom_up.data());
  if (auto r = context->check_errors(what); !r) return r.error();
  std::vector<T> out(bottom_up.size());
  const size_t row = size_t{width} * per_pixel;
  for (uint32_t y = 0; y < height; ++y) {
    std::memcpy(&out[y * row], &bottom_up[(height - 1 - y) * row], row * sizeof(T));
  }
  return out;
}

}  // namespace

Result<Image> Renderer::read_color() {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r.error();
  if (!impl_->rendered) return Error::make(ErrorCode::kInvalidArgument, "read_color before render");
  auto pixels = read_texture<uint8_t>(impl_->context, impl_->color_view, impl_->width,
                                      impl_->height, GL_RGBA, GL_UNSIGNED_BYTE, 4, "read_color");
  if (!pixels) return pixels.error();
  Image image;
  image.width = impl_->width;
  image.height = impl_->height;
  image.rgba = std::move(*pixels);
  return image;
}

Result<std::vector<uint32_t>> Renderer::read_ids() {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r.error();
  if (!impl_->rendered) return Error::make(ErrorCode::kInvalidArgument, "read_ids before render");
  return read_texture<uint32_t>(impl_->context, impl_->id_tex, impl_->width, impl_->height,
                                GL_RED_INTEGER, GL_UNSIGNED_INT, 1, "read_ids");
}

Result<std::vector<Motion>> Renderer::read_motion() {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r.error();
  if (!impl_->rendered) {
    return Error::make(ErrorCode::kInvalidArgument, "read_motion before render");
  }
  auto floats = read_texture<float>(impl_->context, impl_->motion_tex, impl_->width, impl_->height,
                                    GL_RG, GL_FLOAT, 2, "read_motion");
  if (!floats) return floats.error();
  std::vector<Motion> out(floats->size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = {(*floats)[2 * i], (*floats)[2 * i + 1]};
  return out;
}

Result<void> Renderer::present(int width, int height) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r;
  if (impl_->context->window() == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "present: a headless context has no window");
  }
  if (!impl_->rendered) return Error::make(ErrorCode::kInvalidArgument, "present before render");
  if (width < 1 || height < 1) {
    return Error::make(ErrorCode::kInvalidArgument, "present: size %dx%d", width, height);
  }
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
  glBlitNamedFramebuffer(impl_->read_fbo, 0, 0, 0, static_cast<GLint>(impl_->width),
                         static_cast<GLint>(impl_->height), 0, 0, width, height,
                         GL_COLOR_BUFFER_BIT, GL_LINEAR);
  return impl_->context->check_errors("present");
}

Result<void> Renderer::capture_skinned(InstanceHandle handle, const SkinOutput& out,
                                       std::span<Vec3> out_previous) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r;
  Impl& im = *impl_;
  Impl::Instance* inst = Impl::find(im.instances, handle.value);
  if (inst == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "capture_skinned: handle %u names nothing",
                       handle.value);
  }
  const Impl::Mesh& mesh = *Impl::find(im.meshes, inst->desc.mesh.value);
  if (!mesh.skinned && mesh.morph_targets == 0) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "capture_skinned: the mesh is neither skinned nor morphed");
  }
  const size_t n = mesh.vertex_count;
  for (size_t size :
       {out.positions.size(), out.normals.size(), out.tangents.size(), out_previous.size()}) {
    if (size != 0 && size != n) {
      return Error::make(ErrorCode::kSizeMismatch,
                         "capture_skinned: an output of %zu entries for %zu vertices", size, n);
    }
  }
  const uint64_t bytes = uint64_t{n} * shaders::kCaptureStride;
  if (bytes > im.xfb_bytes) {
    if (im.xfb_buffer != 0) glDeleteBuffers(1, &im.xfb_buffer);
    glCreateBuffers(1, &im.xfb_buffer);
    glNamedBufferStorage(im.xfb_buffer, static_cast<GLsizeiptr>(bytes), nullptr, GL_MAP_READ_BIT);
    im.xfb_bytes = bytes;
  }
  const DrawProgram& p = im.capture;
  im.set_vertex_uniforms(p, mesh, *inst);
  glUseProgram(p.program);
  glBindFramebuffer(GL_FRAMEBUFFER, im.empty_fbo);  // surfaceless: no default framebuffer
  glViewport(0, 0, 1, 1);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, im.store.buffer());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2,
                   im.weights_buffer != 0 ? im.weights_buffer : im.empty_buffer);
  glTransformFeedbackBufferRange(im.xfb, 0, im.xfb_buffer, 0, static_cast<GLsizeiptr>(bytes));
  glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, im.xfb);
  glEnable(GL_RASTERIZER_DISCARD);
  glBindVertexArray(mesh.vao);
  glBeginTransformFeedback(GL_POINTS);
  glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(n));
  glEndTransformFeedback();
  glDisable(GL_RASTERIZER_DISCARD);
  glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
  glBindVertexArray(0);
  glUseProgram(0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  im.xfb_data.resize(n * shaders::kCaptureStride / sizeof(float));
  glGetNamedBufferSubData(im.xfb_buffer, 0, static_cast<GLsizeiptr>(bytes), im.xfb_data.data());
  if (auto r = im.context->check_errors("capture_skinned"); !r) return r;
  constexpr size_t kStride = shaders::kCaptureStride / sizeof(float);
  for (size_t v = 0; v < n; ++v) {
    const float* f = &im.xfb_data[v * kStride];
    if (!out.positions.empty()) out.positions[v] = {f[0], f[1], f[2]};
    if (!out.normals.empty()) out.normals[v] = {f[3], f[4], f[5]};
    if (!out.tangents.empty()) out.tangents[v] = {f[6], f[7], f[8], f[9]};
    if (!out_previous.empty()) out_previous[v] = {f[10], f[11], f[12]};
  }
  return ok();
}

SkinStoreStats Renderer::skin_store_stats() const {
  SkinStoreStats s;
  if (!impl_) return s;
  s.record_capacity = impl_->store.record_capacity();
  s.records_used = impl_->store.records_used();
  s.free_runs = impl_->store.free_runs();
  s.palette_matrices = impl_->store.palette_matrices();
  s.buffer_bytes = impl_->store.buffer_bytes();
  return s;
}

Result<RenderTarget> RendererAccess::target(const Renderer& renderer) {
  if (!renderer.impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  const Renderer::Impl& im = *renderer.impl_;
  if (auto r = im.current(); !r) return r.error();
  return RenderTarget{im.context, im.fbo, im.width, im.height, im.rendered};
}

Context* RendererAccess::context(const Renderer& renderer) {
  return renderer.impl_ ? renderer.impl_->context : nullptr;
}

}  // namespace animpack::gl
