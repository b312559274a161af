// Contexts: a headless 4.5 core context without an X server, the hidden-window backend's
// need for DISPLAY, GL errors reported by check_errors, and a renderer refusing work
// while its context is not current.
#include "animpack/gl/context.h"

#include <glad/gl.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "animpack/gl/renderer.h"
#include "gl_test_support.h"

namespace animpack::gl {
namespace {

using testing::front_ortho;
using testing::GlTest;

class GlContext : public GlTest {};

TEST_F(GlContext, HeadlessContextIsGl45CoreWithDebugOutput) {
  const ContextInfo& info = context->info();
  std::printf("context: %s, %s, %s\n", info.backend.c_str(), info.renderer.c_str(),
              info.version.c_str());
  EXPECT_GE(info.major * 10 + info.minor, 45);
  EXPECT_FALSE(info.backend.empty());
  EXPECT_TRUE(info.debug);
  EXPECT_TRUE(context->is_current());
  EXPECT_EQ(context->window() == nullptr, info.backend.rfind("egl", 0) == 0);
}

TEST_F(GlContext, HiddenWindowNeedsADisplay) {
  const char* display = std::getenv("DISPLAY");
  HeadlessOptions options;
  options.backend = HeadlessBackend::kHiddenWindow;
  Result<Context> hidden = Context::create_headless(options);
  if (display == nullptr || display[0] == '\0') {
    ASSERT_FALSE(hidden);
    EXPECT_EQ(hidden.error().code(), ErrorCode::kIo);
    EXPECT_NE(std::string(hidden.error().message()).find("DISPLAY"), std::string::npos)
        << hidden.error().message();
  } else {
    ASSERT_TRUE(hidden) << hidden.error().message();
    EXPECT_GE(hidden->info().major * 10 + hidden->info().minor, 45);
    EXPECT_NE(hidden->window(), nullptr);
    EXPECT_TRUE(hidden->check_errors("hidden window"));
  }
  // Back to the shared context (GL functions reloaded for EGL when needed).
  ASSERT_TRUE(context->make_current());
  EXPECT_TRUE(renderer->render({front_ortho({0, 0, 0}, 2), {}, 4, 4}));
}

TEST_F(GlContext, CheckErrorsReportsGlErrorsThenClears) {
  glBindBuffer(GL_ARRAY_BUFFER, 0x7fff1234);  // not a name made by glGenBuffers: an error
  auto r = context->check_errors("provoked");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kIo);
  EXPECT_TRUE(context->check_errors("after"));
}

TEST_F(GlContext, RendererRefusesWorkWhileItsContextIsNotCurrent) {
  HeadlessOptions options;
  options.backend = HeadlessBackend::kEglSurfaceless;
  if (context->info().backend != "egl-surfaceless") options.backend = HeadlessBackend::kAuto;
  Result<Context> other = Context::create_headless(options);
  ASSERT_TRUE(other) << other.error().message();
  ASSERT_TRUE(other->is_current());
  ASSERT_FALSE(context->is_current());
  const Vec3 p[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  const uint32_t i[3] = {0, 1, 2};
  Result<MeshHandle> mesh = renderer->upload_mesh({p, {}, {}, {}, i});
  ASSERT_FALSE(mesh);
  EXPECT_EQ(mesh.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(renderer->render({front_ortho({0, 0, 0}, 2), {}, 4, 4}).error().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_TRUE(other->check_errors("other context"));
  ASSERT_TRUE(context->make_current());
  EXPECT_TRUE(renderer->upload_mesh({p, {}, {}, {}, i}));
}

TEST_F(GlContext, RendererNeedsACurrentContext) {
  EXPECT_EQ(Renderer::create(nullptr).error().code(), ErrorCode::kInvalidArgument);
  Context empty;
  EXPECT_EQ(Renderer::create(&empty).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(empty.make_current().error().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace animpack::gl
