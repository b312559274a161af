#include "gl_test_support.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

namespace animpack::gl::testing {

namespace {

std::optional<Context> g_context;
std::string g_error;
bool g_tried = false;
size_t g_threads_before = 0;

// Destroys the context before static destruction, and checks that Mesa's driver threads
// (llvmpipe's rasterisers, its shader-cache queue) went with it: LeakSanitizer stops
// every thread at exit to scan their stacks, and a driver thread still running or
// exiting then makes it crash ("Tracer caught signal 11").
class ContextEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    if (!g_context) return;
    g_context.reset();
    const size_t after = thread_count();
    EXPECT_EQ(after, g_threads_before)
        << "threads are still running after the last GL context was destroyed";
  }
};
[[maybe_unused]] ::testing::Environment* const g_environment =
    ::testing::AddGlobalTestEnvironment(new ContextEnvironment);

}  // namespace

void single_threaded_driver_under_sanitizers() {
#if defined(__SANITIZE_ADDRESS__)
  constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  constexpr bool kSanitized = true;
#else
  constexpr bool kSanitized = false;
#endif
#else
  constexpr bool kSanitized = false;
#endif
  if (!kSanitized) return;
  // No llvmpipe rasteriser threads and no shader-cache queue: nothing of Mesa's is left
  // running when LeakSanitizer stops the world at exit (it crashed once on a thread winding
  // down, "Tracer caught signal 11", after a passing test). Values the caller set win.
  ::setenv("LP_NUM_THREADS", "0", 0);
  ::setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);
}

bool gl_disabled() {
  const char* v = std::getenv("ANIMPACK_NO_GL");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

size_t thread_count() {
  size_t n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

Context* shared_context() {
  if (!g_tried) {
    g_tried = true;
    single_threaded_driver_under_sanitizers();
    g_threads_before = thread_count();
    Result<Context> c = Context::create_headless();
    if (c) {
      g_context.emplace(std::move(*c));
    } else {
      g_error = c.error().message();
    }
  }
  if (g_context && !g_context->is_current()) {
    if (auto r = g_context->make_current(); !r) return nullptr;
  }
  return g_context ? &*g_context : nullptr;
}

const char* context_error() { return g_error.c_str(); }

void GlTest::SetUp() {
  if (gl_disabled()) GTEST_SKIP() << "ANIMPACK_NO_GL=1: GL tests skipped on request";
  context = shared_context();
  ASSERT_NE(context, nullptr)
      << "the GL tests cannot run: " << context_error()
      << "\nThey need Mesa's EGL and llvmpipe (scripts/setup.sh installs libegl-mesa0 and "
         "libgl1-mesa-dri). Set ANIMPACK_NO_GL=1 to skip them explicitly.";
  Result<Renderer> r = Renderer::create(context);
  ASSERT_TRUE(r) << r.error().message();
  renderer.emplace(std::move(*r));
}

void GlTest::TearDown() {
  if (context == nullptr) return;
  renderer.reset();
  if (!context->is_current()) {
    ASSERT_TRUE(context->make_current());
  }
  auto r = context->check_errors("after the test");
  EXPECT_TRUE(r) << r.error().message();
}

Camera front_ortho(Vec3 center, float height) {
  Camera c;
  c.orthographic = true;
  c.ortho_height = height;
  c.eye = {center.x, center.y, center.z + 10.0f};
  c.target = center;
  c.near_plane = 0.5f;
  c.far_plane = 50.0f;
  return c;
}

}  // namespace animpack::gl::testing
