// Shared by the GL tests: one headless context per process (EGL surfaceless on Mesa),
// a fresh Renderer per test, GL errors checked after every test.
//
// Without a 4.5 core context every GL test FAILS with the reason (CI must not pass
// without having run them); ANIMPACK_NO_GL=1 skips them explicitly.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "animpack/gl/context.h"
#include "animpack/gl/renderer.h"
#include "animpack/math.h"

namespace animpack::gl::testing {

// The process's context, made on first use; nullptr when none could be made (then
// context_error() says why).
Context* shared_context();
const char* context_error();
// The threads of this process now (/proc/self/task).
size_t thread_count();
// Whether ANIMPACK_NO_GL=1 is set.
// In AddressSanitizer builds, asks Mesa for no driver threads (LP_NUM_THREADS=0, no
// shader-cache queue) before the first context, unless the environment says otherwise.
void single_threaded_driver_under_sanitizers();

bool gl_disabled();

class GlTest : public ::testing::Test {
 protected:
  void SetUp() override;
  // Checks GL errors (glGetError and KHR_debug) and destroys the renderer.
  void TearDown() override;

  Context* context = nullptr;
  std::optional<Renderer> renderer;
};

// A camera looking down -z at the xy rectangle centred on `center`, `height` units high.
Camera front_ortho(Vec3 center, float height);

}  // namespace animpack::gl::testing
