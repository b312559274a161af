#include "animpack/gl/renderer.h"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "animpack/gl/context.h"
#include "shaders.h"
#include "skin_store.h"

namespace animpack::gl {

namespace {

constexpr uint32_t kIndexBits = 20;
constexpr uint32_t kIndexMask = (1u << kIndexBits) - 1;
constexpr uint32_t kGenerationMask = (1u << (32 - kIndexBits)) - 1;
constexpr int kFloatsPerVertex = 12;  // position 3, normal 3, tangent 4, uv 2

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
    glShaderSource(shaders[1], 1, &fragment, nullptr);
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

struct DrawProgram {
  GLuint program = 0;
  GLint model = -1, previous_model = -1, view_proj = -1, previous_view_proj = -1;
  GLint normal_matrix = -1, skin = -1, id = -1, textured = -1, uv_rect = -1, viewport = -1;
  GLint color = -1;

  void locate() {
    model = glGetUniformLocation(program, "u_model");
    previous_model = glGetUniformLocation(program, "u_previous_model");
    view_proj = glGetUniformLocation(program, "u_view_proj");
    previous_view_proj = glGetUniformLocation(program, "u_previous_view_proj");
    normal_matrix = glGetUniformLocation(program, "u_normal_matrix");
    skin = glGetUniformLocation(program, "u_skin");
    id = glGetUniformLocation(program, "u_id");
    textured = glGetUniformLocation(program, "u_textured");
    uv_rect = glGetUniformLocation(program, "u_uv_rect");
    viewport = glGetUniformLocation(program, "u_viewport");
    color = glGetUniformLocation(program, "u_color");
  }
};

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
  return ok();
}

struct Renderer::Impl {
  struct Mesh {
    uint32_t generation = 0;
    bool used = false;
    GLuint vao = 0, vbo = 0, ebo = 0;
    uint32_t vertex_count = 0, index_count = 0;
    bool skinned = false;
    uint32_t first_record = 0;
    uint32_t joint_count = 0;
    uint32_t users = 0;
  };
  struct Texture {
    uint32_t generation = 0;
    bool used = false;
    GLuint texture = 0;
    uint32_t users = 0;
  };
  struct Instance {
    uint32_t generation = 0;
    bool used = false;
    InstanceDesc desc;
    int64_t pose = -1;  // first palette matrix of the current pose, or -1
    int64_t previous_pose = -1;
    uint32_t stamp = 0;  // set_poses duplicate check
  };

  Context* context = nullptr;
  DrawProgram ids, color, capture;
  SkinStore store;
  std::vector<Mesh> meshes;
  std::vector<Texture> textures;
  std::vector<Instance> instances;
  std::vector<Mat4> palettes;  // set_poses's staging
  uint32_t stamp = 0;
  GLuint white = 0;
  // The render target.
  GLuint fbo = 0, color_tex = 0, id_tex = 0, motion_tex = 0, depth_tex = 0;
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
    }
    for (Texture& t : textures) {
      if (t.used) glDeleteTextures(1, &t.texture);
    }
    for (GLuint p : {ids.program, color.program, capture.program}) {
      if (p != 0) glDeleteProgram(p);
    }
    store.destroy();
    delete_target();
    const GLuint more_textures[] = {white};
    glDeleteTextures(1, more_textures);
    glDeleteFramebuffers(1, &empty_fbo);
    glDeleteTransformFeedbacks(1, &xfb);
    glDeleteBuffers(1, &xfb_buffer);
  }

  void delete_target() {
    const GLuint textures_[] = {color_tex, id_tex, motion_tex, depth_tex};
    glDeleteTextures(4, textures_);
    glDeleteFramebuffers(1, &fbo);
    fbo = color_tex = id_tex = motion_tex = depth_tex = 0;
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
        (!m.uvs.empty() && m.uvs.size() != 2 * n)) {
      return Error::make(ErrorCode::kSizeMismatch,
                         "%zu positions but %zu normals, %zu tangents, %zu uv floats", n,
                         m.normals.size(), m.tangents.size(), m.uvs.size());
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
        (!m.uvs.empty() && !finite(m.uvs.data(), 2 * n))) {
      return Error::make(ErrorCode::kInvalidArgument, "a vertex stream holds a non-finite value");
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
    return ok();
  }

  Result<MeshHandle> upload(const MeshData& m, const SkinData* skin) {
    const size_t n = m.positions.size();
    uint32_t joint_count = 0;
    if (skin != nullptr) {
      for (const JointIndices& j : skin->joints) {
        for (uint16_t k : j.j) joint_count = std::max<uint32_t>(joint_count, uint32_t{k} + 1);
      }
    }
    std::vector<float> vertices(n * kFloatsPerVertex);
    for (size_t v = 0; v < n; ++v) {
      float* out = &vertices[v * kFloatsPerVertex];
      const Vec3 p = m.positions[v];
      const Vec3 nr = m.normals.empty() ? Vec3{0, 0, 1} : m.normals[v];
      const Vec4 t = m.tangents.empty() ? Vec4{1, 0, 0, 1} : m.tangents[v];
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
                                              m.uvs.empty() ? 0.0f : m.uvs[2 * v + 1]};
      std::memcpy(out, values, sizeof values);
    }
    Mesh* mesh = nullptr;
    const uint32_t handle = add(meshes, &mesh);
    mesh->vertex_count = static_cast<uint32_t>(n);
    mesh->index_count = static_cast<uint32_t>(m.indices.size());
    glCreateBuffers(1, &mesh->vbo);
    glNamedBufferStorage(mesh->vbo, static_cast<GLsizeiptr>(vertices.size() * sizeof(float)),
                         vertices.data(), 0);
    glCreateBuffers(1, &mesh->ebo);
    glNamedBufferStorage(mesh->ebo, static_cast<GLsizeiptr>(m.indices.size() * sizeof(uint32_t)),
                         m.indices.data(), 0);
    glCreateVertexArrays(1, &mesh->vao);
    glVertexArrayVertexBuffer(mesh->vao, 0, mesh->vbo, 0, kFloatsPerVertex * sizeof(float));
    glVertexArrayElementBuffer(mesh->vao, mesh->ebo);
    const GLint sizes[4] = {3, 3, 4, 2};
    GLuint offset = 0;
    for (GLuint a = 0; a < 4; ++a) {
      glEnableVertexArrayAttrib(mesh->vao, a);
      glVertexArrayAttribFormat(mesh->vao, a, sizes[a], GL_FLOAT, GL_FALSE, offset);
      glVertexArrayAttribBinding(mesh->vao, a, 0);
      offset += static_cast<GLuint>(sizes[a]) * sizeof(float);
    }
    if (skin != nullptr) {
      mesh->skinned = true;
      mesh->joint_count = joint_count;
      mesh->first_record = store.add_records(skin->joints, skin->weights);
    }
    if (auto r = context->check_errors("upload_mesh"); !r) return r.error();
    return MeshHandle{handle};
  }

  void ensure_target(uint32_t w, uint32_t h) {
    if (fbo != 0 && w == width && h == height) return;
    if (fbo != 0) delete_target();
    const auto gw = static_cast<GLsizei>(w), gh = static_cast<GLsizei>(h);
    glCreateTextures(GL_TEXTURE_2D, 1, &color_tex);
    glTextureStorage2D(color_tex, 1, GL_RGBA8, gw, gh);
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
    const Texture* tex = d.texture ? find(textures, d.texture.value) : nullptr;
    glProgramUniform1i(p.program, p.textured, tex != nullptr ? 1 : 0);
    glProgramUniform4f(p.program, p.uv_rect, d.uv.u0, d.uv.v0, d.uv.u1 - d.uv.u0,
                       d.uv.v1 - d.uv.v0);
    glBindTextureUnit(0, tex != nullptr ? tex->texture : white);
    if (p.id >= 0) glProgramUniform1ui(p.program, p.id, d.id);
    if (p.color >= 0) glProgramUniform4fv(p.program, p.color, 1, &d.color.x);
  }

  void draw_all(const DrawProgram& p) {
    glUseProgram(p.program);
    for (const Instance& inst : instances) {
      if (!inst.used || !inst.desc.visible) continue;
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

  GLint64 max_block = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
  im.store.init(static_cast<uint64_t>(std::max<GLint64>(max_block, 1 << 16)));

  const uint8_t white[4] = {255, 255, 255, 255};
  glCreateTextures(GL_TEXTURE_2D, 1, &im.white);
  glTextureStorage2D(im.white, 1, GL_RGBA8, 1, 1);
  glTextureSubImage2D(im.white, 0, 0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, white);

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
  if (!finite(&skin.weights[0].x, 4 * n)) {
    return Error::make(ErrorCode::kInvalidArgument, "a skin weight is not finite");
  }
  if (!impl_->store.fits_records(n)) {
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
  if (mesh->skinned) impl_->store.release_records(mesh->first_record, mesh->vertex_count);
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
                                               uint32_t height) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r.error();
  if (width == 0 || height == 0 || width > kMaxTargetSize || height > kMaxTargetSize) {
    return Error::make(ErrorCode::kInvalidArgument, "texture size %ux%u outside 1..%u", width,
                       height, kMaxTargetSize);
  }
  if (rgba.size() != size_t{width} * height * 4) {
    return Error::make(ErrorCode::kSizeMismatch, "%zu bytes for a %ux%u RGBA8 texture", rgba.size(),
                       width, height);
  }
  Impl::Texture* tex = nullptr;
  const uint32_t handle = Impl::add(impl_->textures, &tex);
  glCreateTextures(GL_TEXTURE_2D, 1, &tex->texture);
  glTextureStorage2D(tex->texture, 1, GL_RGBA8, static_cast<GLsizei>(width),
                     static_cast<GLsizei>(height));
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  // Row 0 of the image (its top) goes to t = 0: v down from the top is t.
  glTextureSubImage2D(tex->texture, 0, 0, 0, static_cast<GLsizei>(width),
                      static_cast<GLsizei>(height), GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  glTextureParameteri(tex->texture, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(tex->texture, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTextureParameteri(tex->texture, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureParameteri(tex->texture, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
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
  if (desc.texture) ++Impl::find(impl_->textures, desc.texture.value)->users;
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
  if (inst->desc.texture) --Impl::find(impl_->textures, inst->desc.texture.value)->users;
  if (!(inst->desc.mesh == desc.mesh)) inst->pose = inst->previous_pose = -1;
  inst->desc = desc;
  ++Impl::find(impl_->meshes, desc.mesh.value)->users;
  if (desc.texture) ++Impl::find(impl_->textures, desc.texture.value)->users;
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
  if (inst->desc.texture) --Impl::find(impl_->textures, inst->desc.texture.value)->users;
  inst->used = false;
  return ok();
}

Result<void> Renderer::set_poses(std::span<const InstancePose> poses) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty renderer");
  if (auto r = impl_->current(); !r) return r;
  Impl& im = *impl_;
  // Check everything first: a refused call changes nothing.
  const uint32_t stamp = ++im.stamp == 0 ? ++im.stamp : im.stamp;
  uint64_t matrices = 0;
  for (size_t i = 0; i < poses.size(); ++i) {
    const InstancePose& p = poses[i];
    Impl::Instance* inst = Impl::find(im.instances, p.instance.value);
    if (inst == nullptr) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "set_poses: pose %zu: handle %u names nothing", i, p.instance.value);
    }
    const Impl::Mesh& mesh = *Impl::find(im.meshes, inst->desc.mesh.value);
    if (!mesh.skinned) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "set_poses: pose %zu: the instance's mesh is not skinned", i);
    }
    if (inst->stamp == stamp) {
      return Error::make(ErrorCode::kInvalidArgument, "set_poses: pose %zu: instance posed twice",
                         i);
    }
    inst->stamp = stamp;
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
  for (Impl::Instance& inst : im.instances) inst.pose = inst.previous_pose = -1;
  im.palettes.clear();
  for (const InstancePose& p : poses) {
    Impl::Instance* inst = Impl::find(im.instances, p.instance.value);
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
  return im.context->check_errors("set_poses");
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
  const GLuint no_id[4] = {0, 0, 0, 0};
  const float no_motion[4] = {0, 0, 0, 0};
  const float far_depth = 1.0f;
  glClearNamedFramebufferfv(im.fbo, GL_COLOR, 0, &view.clear_color.x);
  glClearNamedFramebufferuiv(im.fbo, GL_COLOR, 1, no_id);
  glClearNamedFramebufferfv(im.fbo, GL_COLOR, 2, no_motion);
  glClearNamedFramebufferfv(im.fbo, GL_DEPTH, 0, &far_depth);

  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, im.store.buffer());
  const float viewport[2] = {static_cast<float>(view.width), static_cast<float>(view.height)};
  for (DrawProgram* p : {&im.ids, &im.color}) {
    glProgramUniformMatrix4fv(p->program, p->view_proj, 1, GL_FALSE, view_proj.m);
    glProgramUniformMatrix4fv(p->program, p->previous_view_proj, 1, GL_FALSE, previous_view_proj.m);
    if (p->viewport >= 0) glProgramUniform2fv(p->program, p->viewport, 1, viewport);
  }
  glEnable(GL_DEPTH_TEST);
  // The depth/ids/motion pass.
  const GLenum ids_buffers[3] = {GL_NONE, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2};
  glNamedFramebufferDrawBuffers(im.fbo, 3, ids_buffers);
  glDepthFunc(GL_LESS);
  im.draw_all(im.ids);
  // The colour pass, on the depth the first pass left (gl_Position is invariant).
  const GLenum color_buffers[3] = {GL_COLOR_ATTACHMENT0, GL_NONE, GL_NONE};
  glNamedFramebufferDrawBuffers(im.fbo, 3, color_buffers);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_FALSE);
  im.draw_all(im.color);
  glDepthMask(GL_TRUE);
  glDisable(GL_DEPTH_TEST);
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
  auto pixels = read_texture<uint8_t>(impl_->context, impl_->color_tex, impl_->width, impl_->height,
                                      GL_RGBA, GL_UNSIGNED_BYTE, 4, "read_color");
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
  glBlitNamedFramebuffer(impl_->fbo, 0, 0, 0, static_cast<GLint>(impl_->width),
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
  if (!mesh.skinned) {
    return Error::make(ErrorCode::kInvalidArgument, "capture_skinned: the mesh is not skinned");
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
  int skin[4] = {im.store.record_unit(mesh.first_record), 0, 0, 0};
  if (inst->pose >= 0) {
    skin[1] = im.store.palette_unit(static_cast<uint32_t>(inst->pose));
    skin[2] = im.store.palette_unit(static_cast<uint32_t>(inst->previous_pose));
    skin[3] = 1;
  }
  glProgramUniform4iv(p.program, p.skin, 1, skin);
  glUseProgram(p.program);
  glBindFramebuffer(GL_FRAMEBUFFER, im.empty_fbo);  // surfaceless: no default framebuffer
  glViewport(0, 0, 1, 1);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, im.store.buffer());
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

}  // namespace animpack::gl
