// Contexts: EGL (surfaceless or device platform, Mesa) and GLFW windows, GL 4.5 core.
// TOOLCHAIN.md §4 and §5: glad's EGL loader starts at EGL 1.0 without a display, so the
// platform display comes from eglGetPlatformDisplayEXT (EGL_EXT_platform_base) and the
// loader runs again once the display is initialised; surfaceless configs need
// EGL_PBUFFER_BIT; GLFW 3.3 needs DISPLAY.
#include "animpack/gl/context.h"

#include <glad/egl.h>
#include <glad/gl.h>
// glad provides the GL declarations; GLFW must not include the system GL header.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace animpack::gl {

namespace {

enum class Kind : uint8_t { kEgl, kGlfw };

constexpr size_t kMaxDebugMessages = 64;

}  // namespace

struct Context::Impl {
  Kind kind = Kind::kEgl;
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
  GLFWwindow* window = nullptr;
  ContextInfo info;
  std::vector<std::string> debug_messages;
  size_t dropped_debug_messages = 0;
};

namespace {

// The context animpack made current last, and the kind whose loader filled glad's GL
// function pointers.
Context::Impl* g_current = nullptr;
int g_loaded_kind = -1;

// EGL displays are per-process singletons per platform and native display: count the
// contexts on each so that eglTerminate runs only when the last one goes.
struct DisplayCount {
  EGLDisplay display;
  int count;
};
std::vector<DisplayCount> g_displays;
int g_glfw_windows = 0;
std::string g_glfw_error;

void retain_display(EGLDisplay display) {
  for (DisplayCount& d : g_displays) {
    if (d.display == display) {
      ++d.count;
      return;
    }
  }
  g_displays.push_back({display, 1});
}

void release_display(EGLDisplay display) {
  for (size_t i = 0; i < g_displays.size(); ++i) {
    if (g_displays[i].display != display) continue;
    if (--g_displays[i].count == 0) {
      eglTerminate(display);
      g_displays.erase(g_displays.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return;
  }
}

const char* egl_error_name(EGLint e) {
  switch (e) {
    case EGL_SUCCESS:
      return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED:
      return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS:
      return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC:
      return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE:
      return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG:
      return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT:
      return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY:
      return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH:
      return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER:
      return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE:
      return "EGL_BAD_SURFACE";
    default:
      return "EGL error";
  }
}

std::string egl_failure(const char* call) {
  const EGLint e = eglGetError != nullptr ? eglGetError() : EGL_SUCCESS;
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s failed (%s, 0x%x)", call, egl_error_name(e),
                static_cast<unsigned>(e));
  return buf;
}

bool has_extension(const char* list, const char* name) {
  if (list == nullptr) return false;
  const size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n) {
    const bool starts = p == list || p[-1] == ' ';
    const bool ends = p[n] == '\0' || p[n] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

GLADapiproc egl_proc(const char* name) {
  return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name));
}

const char* gl_error_name(GLenum e) {
  switch (e) {
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW:
      return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW:
      return "GL_STACK_OVERFLOW";
    default:
      return "GL error";
  }
}

void GLAD_API_PTR debug_callback(GLenum /*source*/, GLenum type, GLuint id, GLenum severity,
                                 GLsizei length, const GLchar* message, const void* user) {
  if (type != GL_DEBUG_TYPE_ERROR && severity != GL_DEBUG_SEVERITY_HIGH) return;
  auto* impl = static_cast<Context::Impl*>(const_cast<void*>(user));
  if (impl->debug_messages.size() >= kMaxDebugMessages) {
    ++impl->dropped_debug_messages;
    return;
  }
  std::string text = "KHR_debug";
  text += type == GL_DEBUG_TYPE_ERROR ? " error " : " high-severity message ";
  text += std::to_string(id) + ": ";
  if (length < 0) {
    text += message;
  } else {
    text.append(message, static_cast<size_t>(length));
  }
  impl->debug_messages.push_back(std::move(text));
}

// Loads GL through `kind`'s loader when the loaded pointers came from the other kind.
bool load_gl(Kind kind) {
  if (g_loaded_kind == static_cast<int>(kind)) return true;
  const int version = kind == Kind::kEgl ? gladLoadGL(egl_proc) : gladLoadGL(glfwGetProcAddress);
  if (version == 0) return false;
  g_loaded_kind = static_cast<int>(kind);
  return true;
}

// After the context is current and GL is loaded: checks for 4.5 core, fills info, turns
// KHR_debug output on.
Result<void> finish(Context::Impl* impl, bool debug, const char* backend) {
  GLint major = 0, minor = 0, profile = 0, flags = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
  glGetIntegerv(GL_CONTEXT_FLAGS, &flags);
  const auto str = [](GLenum name) {
    const GLubyte* s = glGetString(name);
    return s != nullptr ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
  };
  impl->info.backend = backend;
  impl->info.renderer = str(GL_RENDERER);
  impl->info.version = str(GL_VERSION);
  impl->info.major = major;
  impl->info.minor = minor;
  if (major * 10 + minor < 45 || (profile & GL_CONTEXT_CORE_PROFILE_BIT) == 0) {
    return Error::make(ErrorCode::kIo, "%s gave GL %d.%d%s (%s), not 4.5 core", backend, major,
                       minor, (profile & GL_CONTEXT_CORE_PROFILE_BIT) ? " core" : "",
                       impl->info.renderer.c_str());
  }
  if (debug && (flags & GL_CONTEXT_FLAG_DEBUG_BIT) != 0) {
    glEnable(GL_DEBUG_OUTPUT);
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(debug_callback, impl);
    glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
    impl->info.debug = true;
  }
  while (glGetError() != GL_NO_ERROR) {
  }
  return ok();
}

// Keeps Mesa's driver (the *_dri.so the platform loaded) mapped until the process ends,
// even after eglTerminate or glfwTerminate would unload it. The driver keeps allocations
// until exit; LeakSanitizer, which looks at exit, can only match them to the driver (and
// suppress them: tests/gl/lsan.supp) while it is still mapped. A later context also skips
// reloading it.
void pin_driver() {
  static bool pinned = false;
  if (pinned) return;
  pinned = true;
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        const char* name = info->dlpi_name;
        if (name != nullptr && (std::strstr(name, "_dri.so") != nullptr ||
                                std::strstr(name, "libgallium") != nullptr)) {
          static_cast<std::vector<std::string>*>(out)->push_back(name);
        }
        return 0;
      },
      &names);
  for (const std::string& name : names) {
    (void)dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
}

// Releases the current context. libglvnd lets a thread have an EGL or a GLX context
// current, not both: making a GLFW (GLX) context current while an EGL one is gives
// BadAccess from X_GLXMakeCurrent, so the other kind is released first.
void release_current() {
  Context::Impl* impl = g_current;
  if (impl == nullptr) return;
  if (impl->kind == Kind::kEgl) {
    eglMakeCurrent(impl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  } else {
    glfwMakeContextCurrent(nullptr);
  }
  g_current = nullptr;
}

void destroy(Context::Impl* impl) {
  if (impl == nullptr) return;
  if (impl->kind == Kind::kEgl) {
    if (impl->display != EGL_NO_DISPLAY) {
      if (g_current == impl)
        eglMakeCurrent(impl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      if (impl->context != EGL_NO_CONTEXT) eglDestroyContext(impl->display, impl->context);
      if (impl->surface != EGL_NO_SURFACE) eglDestroySurface(impl->display, impl->surface);
      release_display(impl->display);
    }
  } else if (impl->window != nullptr) {
    if (g_current == impl) glfwMakeContextCurrent(nullptr);
    glfwDestroyWindow(impl->window);
    if (--g_glfw_windows == 0) glfwTerminate();
  }
  if (g_current == impl) g_current = nullptr;
}

struct ImplDeleter {
  void operator()(Context::Impl* impl) const {
    destroy(impl);
    delete impl;
  }
};
using ImplPtr = std::unique_ptr<Context::Impl, ImplDeleter>;

// One EGL attempt; on failure *why says what went wrong.
ImplPtr make_egl(bool device, bool debug, std::string* why) {
  if (gladLoaderLoadEGL(EGL_NO_DISPLAY) == 0) {
    *why = "libEGL.so.1 could not be loaded";
    return nullptr;
  }
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (eglGetPlatformDisplayEXT == nullptr || !has_extension(client, "EGL_EXT_platform_base")) {
    *why = "no EGL_EXT_platform_base";
    return nullptr;
  }
  EGLDisplay display = EGL_NO_DISPLAY;
  if (!device) {
    if (!has_extension(client, "EGL_MESA_platform_surfaceless")) {
      *why = "no EGL_MESA_platform_surfaceless (not Mesa?)";
      return nullptr;
    }
    display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  } else {
    if (!has_extension(client, "EGL_EXT_platform_device") || eglQueryDevicesEXT == nullptr) {
      *why = "no EGL_EXT_platform_device";
      return nullptr;
    }
    EGLDeviceEXT devices[8];
    EGLint count = 0;
    if (eglQueryDevicesEXT(8, devices, &count) != EGL_TRUE || count < 1) {
      *why = "eglQueryDevicesEXT found no device";
      return nullptr;
    }
    display = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[0], nullptr);
  }
  if (display == EGL_NO_DISPLAY) {
    *why = egl_failure("eglGetPlatformDisplayEXT");
    return nullptr;
  }
  EGLint egl_major = 0, egl_minor = 0;
  if (eglInitialize(display, &egl_major, &egl_minor) != EGL_TRUE) {
    *why = egl_failure("eglInitialize");
    return nullptr;
  }
  ImplPtr impl(new Context::Impl);
  impl->kind = Kind::kEgl;
  impl->display = display;
  retain_display(display);
  // Now the display's version and extensions are known: load the rest of EGL.
  if (gladLoaderLoadEGL(display) == 0) {
    *why = "gladLoaderLoadEGL(display) failed";
    return nullptr;
  }
  if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) {
    *why = egl_failure("eglBindAPI(EGL_OPENGL_API)");
    return nullptr;
  }
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                   EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint configs = 0;
  if (eglChooseConfig(display, config_attribs, &config, 1, &configs) != EGL_TRUE || configs < 1) {
    *why = "eglChooseConfig found no OpenGL pbuffer config";
    return nullptr;
  }
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                    4,
                                    EGL_CONTEXT_MINOR_VERSION,
                                    5,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                    EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                    EGL_CONTEXT_OPENGL_DEBUG,
                                    debug ? EGL_TRUE : EGL_FALSE,
                                    EGL_NONE};
  impl->context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (impl->context == EGL_NO_CONTEXT) {
    *why = egl_failure("eglCreateContext(4.5 core)");
    return nullptr;
  }
  const char* display_ext = eglQueryString(display, EGL_EXTENSIONS);
  if (!has_extension(display_ext, "EGL_KHR_surfaceless_context")) {
    const EGLint pbuffer_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    impl->surface = eglCreatePbufferSurface(display, config, pbuffer_attribs);
    if (impl->surface == EGL_NO_SURFACE) {
      *why = egl_failure("eglCreatePbufferSurface");
      return nullptr;
    }
  }
  release_current();
  if (eglMakeCurrent(display, impl->surface, impl->surface, impl->context) != EGL_TRUE) {
    *why = egl_failure("eglMakeCurrent");
    return nullptr;
  }
  g_current = impl.get();
  g_loaded_kind = -1;
  if (!load_gl(Kind::kEgl)) {
    *why = "gladLoadGL(eglGetProcAddress) failed";
    return nullptr;
  }
  pin_driver();
  if (auto r = finish(impl.get(), debug, device ? "egl-device" : "egl-surfaceless"); !r) {
    *why = r.error().message();
    return nullptr;
  }
  return impl;
}

void glfw_error(int code, const char* description) {
  char buf[32];
  std::snprintf(buf, sizeof buf, " (GLFW 0x%x)", static_cast<unsigned>(code));
  g_glfw_error = std::string(description != nullptr ? description : "?") + buf;
}

ImplPtr make_glfw(const WindowOptions& options, bool hidden, std::string* why) {
  g_glfw_error.clear();
  glfwSetErrorCallback(glfw_error);
  if (g_glfw_windows == 0 && glfwInit() != GLFW_TRUE) {
    const char* display = std::getenv("DISPLAY");
    *why = "glfwInit failed: " + g_glfw_error;
    if (display == nullptr || display[0] == '\0') {
      *why += "; DISPLAY is not set (GLFW needs an X server: run under xvfb-run -a)";
    }
    return nullptr;
  }
  ++g_glfw_windows;
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, options.debug ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_VISIBLE, hidden || !options.visible ? GLFW_FALSE : GLFW_TRUE);
  // glfwCreateWindow makes the new context current for a moment.
  release_current();
  GLFWwindow* window =
      glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
  if (window == nullptr) {
    *why = "glfwCreateWindow(4.5 core) failed: " + g_glfw_error;
    if (--g_glfw_windows == 0) glfwTerminate();
    return nullptr;
  }
  ImplPtr impl(new Context::Impl);
  impl->kind = Kind::kGlfw;
  impl->window = window;
  glfwMakeContextCurrent(window);
  g_current = impl.get();
  g_loaded_kind = -1;
  if (!load_gl(Kind::kGlfw)) {
    *why = "gladLoadGL(glfwGetProcAddress) failed";
    return nullptr;
  }
  pin_driver();
  if (!hidden) glfwSwapInterval(options.vsync ? 1 : 0);
  if (auto r = finish(impl.get(), options.debug, hidden ? "glfw-hidden" : "glfw-window"); !r) {
    *why = r.error().message();
    return nullptr;
  }
  return impl;
}

}  // namespace

Context::Context() = default;
Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&& other) noexcept {
  if (this != &other) {
    destroy(impl_.get());
    impl_ = std::move(other.impl_);
  }
  return *this;
}
Context::~Context() { destroy(impl_.get()); }

Result<Context> Context::create_window(const WindowOptions& options) {
  if (options.width < 1 || options.width > 16384 || options.height < 1 || options.height > 16384) {
    return Error::make(ErrorCode::kInvalidArgument, "window size %dx%d outside 1..16384",
                       options.width, options.height);
  }
  std::string why;
  ImplPtr impl = make_glfw(options, false, &why);
  if (!impl) return Error::make(ErrorCode::kIo, "no OpenGL 4.5 core window: %s", why.c_str());
  return Context(std::unique_ptr<Impl>(impl.release()));
}

Result<Context> Context::create_headless(const HeadlessOptions& options) {
  if (static_cast<uint8_t>(options.backend) >
      static_cast<uint8_t>(HeadlessBackend::kHiddenWindow)) {
    return Error::make(ErrorCode::kInvalidArgument, "unknown headless backend %u",
                       unsigned{static_cast<uint8_t>(options.backend)});
  }
  const bool any = options.backend == HeadlessBackend::kAuto;
  std::string tried;
  auto note = [&](const char* name, const std::string& why) {
    if (!tried.empty()) tried += "; ";
    tried += name;
    tried += ": ";
    tried += why;
  };
  if (any || options.backend == HeadlessBackend::kEglSurfaceless) {
    std::string why;
    if (ImplPtr impl = make_egl(false, options.debug, &why)) {
      return Context(std::unique_ptr<Impl>(impl.release()));
    }
    note("EGL surfaceless", why);
  }
  if (any || options.backend == HeadlessBackend::kEglDevice) {
    std::string why;
    if (ImplPtr impl = make_egl(true, options.debug, &why)) {
      return Context(std::unique_ptr<Impl>(impl.release()));
    }
    note("EGL device", why);
  }
  if (any || options.backend == HeadlessBackend::kHiddenWindow) {
    std::string why;
    WindowOptions window;
    window.width = 64;
    window.height = 64;
    window.visible = false;
    window.debug = options.debug;
    if (ImplPtr impl = make_glfw(window, true, &why)) {
      return Context(std::unique_ptr<Impl>(impl.release()));
    }
    note("hidden GLFW window", why);
  }
  // Error messages are short (Error::kMaxMessage); print the whole story to stderr too.
  std::fprintf(stderr, "animpack::gl: no OpenGL 4.5 core context: %s\n", tried.c_str());
  return Error::make(ErrorCode::kIo, "no OpenGL 4.5 core context: %s", tried.c_str());
}

const ContextInfo& Context::info() const { return impl_->info; }

Result<void> Context::make_current() {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "make_current on an empty context");
  if (g_current != impl_.get()) release_current();
  if (impl_->kind == Kind::kEgl) {
    if (eglMakeCurrent(impl_->display, impl_->surface, impl_->surface, impl_->context) !=
        EGL_TRUE) {
      return Error::make(ErrorCode::kIo, "%s", egl_failure("eglMakeCurrent").c_str());
    }
  } else {
    glfwMakeContextCurrent(impl_->window);
  }
  g_current = impl_.get();
  if (!load_gl(impl_->kind)) return Error::make(ErrorCode::kIo, "reloading GL functions failed");
  return ok();
}

bool Context::is_current() const { return impl_ != nullptr && g_current == impl_.get(); }

Result<void> Context::check_errors(const char* where) {
  if (!is_current()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: the context is not current",
                       where != nullptr ? where : "check_errors");
  }
  std::string found;
  for (int i = 0; i < 16; ++i) {
    const GLenum e = glGetError();
    if (e == GL_NO_ERROR) break;
    if (!found.empty()) found += ", ";
    found += gl_error_name(e);
  }
  const size_t debug = impl_->debug_messages.size();
  if (found.empty() && debug == 0 && impl_->dropped_debug_messages == 0) return ok();
  if (debug > 0) {
    if (!found.empty()) found += "; ";
    found += impl_->debug_messages.front();
    // The full list goes to stderr: the error's message has room for the first only.
    for (const std::string& m : impl_->debug_messages)
      std::fprintf(stderr, "animpack::gl: %s\n", m.c_str());
  }
  const Error error = Error::make(ErrorCode::kIo, "%s: %s (%zu KHR_debug messages)",
                                  where != nullptr ? where : "GL", found.c_str(),
                                  debug + impl_->dropped_debug_messages);
  impl_->debug_messages.clear();
  impl_->dropped_debug_messages = 0;
  return error;
}

std::vector<std::string> Context::take_debug_messages() {
  if (!impl_) return {};
  std::vector<std::string> out = std::move(impl_->debug_messages);
  impl_->debug_messages.clear();
  return out;
}

GLFWwindow* Context::window() const { return impl_ ? impl_->window : nullptr; }

Result<void> Context::swap_buffers() {
  if (!impl_ || impl_->window == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "swap_buffers: no window");
  }
  glfwSwapBuffers(impl_->window);
  return ok();
}

Result<void> Context::framebuffer_size(int* out_width, int* out_height) const {
  if (!impl_ || impl_->window == nullptr || out_width == nullptr || out_height == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "framebuffer_size: no window or null output");
  }
  glfwGetFramebufferSize(impl_->window, out_width, out_height);
  return ok();
}

bool Context::should_close() const {
  return impl_ && impl_->window != nullptr && glfwWindowShouldClose(impl_->window) == GLFW_TRUE;
}

void Context::poll_events() {
  if (impl_ && impl_->window != nullptr) glfwPollEvents();
}

}  // namespace animpack::gl
