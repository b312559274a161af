// An OpenGL 4.5 core context: a GLFW window, or a headless one (EGL surfaceless or EGL
// device on Mesa, else a hidden GLFW window when an X server is there), with the GL
// functions loaded (glad, generated at build time) and KHR_debug errors collected.
//
//   animpack::Result<animpack::gl::Context> context = animpack::gl::Context::create_headless();
//   if (!context) { std::fprintf(stderr, "%s\n", context.error().message()); return 1; }
//   std::printf("%s\n", context->info().renderer.c_str());   // "llvmpipe (LLVM 15.0.6, ...)"
//   ... draw with an animpack::gl::Renderer ...
//   if (auto r = context->check_errors("frame"); !r) report(r.error());
//
// Errors: kIo when no 4.5 core context can be had (the message says what each way tried
// gave, e.g. "EGL surfaceless: eglInitialize failed (EGL_NOT_INITIALIZED); hidden window:
// DISPLAY is not set"), and for GL errors found by check_errors(); kInvalidArgument for
// options out of range and window calls on a headless context.
//
// Contexts share one set of GL function pointers (glad's globals): make_current()
// reloads them when it switches between an EGL and a GLFW context. Not thread-safe: use
// contexts from one thread. A Context may be moved; objects holding one (Renderer) keep
// a pointer to it, so it must then stay where it is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "animpack/result.h"

struct GLFWwindow;

namespace animpack::gl {

// How create_headless() makes its context.
enum class HeadlessBackend : uint8_t {
  kAuto = 0,            // EGL surfaceless, then EGL device, then a hidden GLFW window
  kEglSurfaceless = 1,  // EGL_PLATFORM_SURFACELESS_MESA: no X server, no device files
  kEglDevice = 2,       // EGL_PLATFORM_DEVICE_EXT (Mesa's software device or a GPU)
  kHiddenWindow = 3,    // an invisible GLFW window: needs DISPLAY (e.g. xvfb-run -a)
};

// Options of create_window().
struct WindowOptions {
  int width = 960;  // 1 to 16384, in screen coordinates
  int height = 540;
  std::string title = "animpack";
  bool visible = true;
  bool vsync = true;
  bool debug = true;  // a debug context: KHR_debug errors are reported by check_errors()
};

// Options of create_headless().
struct HeadlessOptions {
  HeadlessBackend backend = HeadlessBackend::kAuto;
  bool debug = true;
};

// What was made.
struct ContextInfo {
  std::string backend;   // "egl-surfaceless", "egl-device", "glfw-hidden" or "glfw-window"
  std::string renderer;  // GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string version;   // GL_VERSION, e.g. "4.5 (Core Profile) Mesa 22.3.6"
  int major = 0;
  int minor = 0;
  bool debug = false;  // KHR_debug output is on
};

class Context {
 public:
  // An empty context (valid() is false); the factories make real ones.
  Context();
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  // Destroys the context (and the window); GL objects made in it die with it.
  ~Context();

  // Opens a GLFW window with a 4.5 core context and makes it current. Fails with
  // kInvalidArgument for a size out of range, kIo when GLFW cannot start (no DISPLAY)
  // or gives no 4.5 core context.
  static Result<Context> create_window(const WindowOptions& options = {});
  // Makes a headless 4.5 core context (see HeadlessBackend) and makes it current. It has
  // no default framebuffer: draw into framebuffer objects (Renderer does). Fails with
  // kIo, naming every backend tried and why it failed.
  static Result<Context> create_headless(const HeadlessOptions& options = {});

  bool valid() const { return impl_ != nullptr; }
  // Preconditions: valid().
  const ContextInfo& info() const;

  // Makes this context current on the calling thread (reloading GL functions when the
  // previous current context was of the other kind). kInvalidArgument when !valid(),
  // kIo when the platform refuses.
  Result<void> make_current();
  // Whether this context is the one made current last by animpack.
  bool is_current() const;

  // Drains glGetError and the KHR_debug errors (type ERROR or severity HIGH) recorded
  // since the last call. ok() when there were none; else kIo with `where` and the first
  // errors in the message. kInvalidArgument when this context is not current.
  Result<void> check_errors(const char* where);
  // Every KHR_debug message of type ERROR or severity HIGH since the last call, in full
  // (check_errors() only quotes the first). Clears the list.
  std::vector<std::string> take_debug_messages();

  // The GLFW window, or nullptr for an EGL context. A hidden window is a window too.
  GLFWwindow* window() const;
  // Window helpers; kInvalidArgument on a headless EGL context.
  Result<void> swap_buffers();
  // The window's framebuffer size in pixels.
  Result<void> framebuffer_size(int* out_width, int* out_height) const;
  // Whether the user asked to close the window (false for EGL contexts).
  bool should_close() const;
  // Processes window events (no-op without a window).
  void poll_events();

  struct Impl;

 private:
  explicit Context(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace animpack::gl
