// The traced silhouette against the GL renderer's: the tracer fixture (the skinned column
// posed by the runtime, a sprite card with transparent texels, a cardless sprite, a
// node-rig cube) drawn by gl::SceneRenderer and staged by trace::stage_posed from one
// Posed snapshot, with one camera. The id buffers may differ in at most 0.5% of the
// pixels, and only on edges (trace::compare_ids). Headless GL: EGL surfaceless on Mesa's
// llvmpipe, as the GL tests run; without a 4.5 core context every test FAILS with the
// reason (ANIMPACK_NO_GL=1 skips them explicitly, as tests/gl does).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "animpack/animator.h"
#include "animpack/camera.h"
#include "animpack/gl/context.h"
#include "animpack/gl/renderer.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"
#include "trace_fixture.h"

namespace animpack::trace {
namespace {

bool gl_disabled() {
  const char* v = std::getenv("ANIMPACK_NO_GL");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

class GlVersusTracer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (gl_disabled() || context_ != nullptr) return;
#if defined(__SANITIZE_ADDRESS__)        // no Mesa driver threads at LeakSanitizer's exit check
    ::setenv("LP_NUM_THREADS", "0", 0);  // (tests/gl/gl_test_support.cpp says why)
    ::setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);
#endif
    Result<gl::Context> c = gl::Context::create_headless();
    if (!c) {
      error_ = c.error().message();
      return;
    }
    context_ = new gl::Context(std::move(*c));
    std::printf("context: %s, %s\n", context_->info().backend.c_str(),
                context_->info().renderer.c_str());
  }

  // Destroyed before the process exits, so Mesa's driver threads are joined before
  // LeakSanitizer stops the world at exit (a driver thread still running then crashes its
  // tracer). gl::Context pins the driver library, so LeakSanitizer can still name the
  // driver's own leftovers (tests/gl/lsan.supp).
  static void TearDownTestSuite() {
    delete context_;
    context_ = nullptr;
  }

  void SetUp() override {
    if (gl_disabled()) GTEST_SKIP() << "ANIMPACK_NO_GL=1: GL tests skipped on request";
    ASSERT_NE(context_, nullptr)
        << "no OpenGL 4.5 core context, so the GL comparison cannot run: " << error_
        << "\nIt needs Mesa's EGL and llvmpipe (scripts/setup.sh). Set ANIMPACK_NO_GL=1 to "
           "skip it explicitly.";
    if (!context_->is_current()) {
      ASSERT_TRUE(context_->make_current());
    }
    auto r = gl::Renderer::create(context_);
    ASSERT_TRUE(r) << r.error().message();
    renderer_.emplace(std::move(*r));
    auto p = Pack::from_bytes(trace_test::pack_bytes());
    ASSERT_TRUE(p) << p.error().message();
    pack_.emplace(std::move(*p));
    auto s = gl::SceneRenderer::create(&*renderer_, &*pack_);
    ASSERT_TRUE(s) << s.error().message();
    scene_.emplace(std::move(*s));
    auto a = Animator::create(&pack_->rig(0), 60);
    ASSERT_TRUE(a);
    column_.emplace(std::move(*a));
    ASSERT_TRUE(column_->play("Rotate", 0));
  }

  void TearDown() override {
    scene_.reset();
    renderer_.reset();
    if (context_ && context_->is_current()) {
      auto r = context_->check_errors("after the test");
      EXPECT_TRUE(r) << r.error().message();
    }
  }

  // Both id buffers of `posed` seen by `camera`, compared.
  void expect_same_silhouette(const Posed& posed, const Camera& camera, uint32_t width,
                              uint32_t height, size_t min_covered) {
    auto gl_ids = scene_->render_ids(posed, camera, width, height);
    ASSERT_TRUE(gl_ids) << gl_ids.error().message();
    auto staged = stage_posed(*pack_, posed);
    ASSERT_TRUE(staged) << staged.error().message();
    const int w = static_cast<int>(width), h = static_cast<int>(height);
    auto traced = render_ids(*staged, camera, w, h, 2);
    ASSERT_TRUE(traced) << traced.error().message();
    auto diff = compare_ids(*traced, *gl_ids, w, h);
    ASSERT_TRUE(diff) << diff.error().message();
    size_t covered = 0;
    for (uint32_t id : *traced) covered += id != kNoObject;
    std::printf("tick %lld: %zu of %d pixels covered, %zu differ (%.3f%%), %zu off edges\n",
                static_cast<long long>(posed.tick), covered, w * h, diff->pixels,
                100.0 * static_cast<double>(diff->pixels) / (w * h), diff->off_edge);
    EXPECT_GE(covered, min_covered);
    EXPECT_LE(diff->pixels * 200, static_cast<size_t>(w * h)) << "more than 0.5% differ";
    EXPECT_EQ(diff->off_edge, 0u) << "pixels differ away from any edge";
  }

  inline static gl::Context* context_ = nullptr;
  inline static std::string error_;
  std::optional<gl::Renderer> renderer_;
  std::optional<Pack> pack_;
  std::optional<gl::SceneRenderer> scene_;
  std::optional<Animator> column_;
  Mat4 arm_palette_[2];
};

TEST_F(GlVersusTracer, ThePosedColumnHasTheSameSilhouette) {
  Camera cam;
  cam.eye = {1.5f, 2.5f, 7.0f};
  cam.target = {-0.5f, 1.8f, 0};
  for (int64_t tick : {0, 20, 40, 60, 90}) {
    column_->evaluate(tick);
    Posed posed = trace_test::posed(*pack_, column_->palette(), arm_palette_, 0);
    posed.tick = tick;
    posed.objects.resize(1);  // the column alone
    expect_same_silhouette(posed, cam, 160, 120, 800);
  }
}

TEST_F(GlVersusTracer, TheBindPoseColumnSeenOrthographicallyHasTheSameSilhouette) {
  Camera cam;
  cam.orthographic = true;
  cam.ortho_height = 5.0f;
  cam.eye = {0, 2, 10};
  cam.target = {0, 2, 0};
  Posed posed = trace_test::posed(*pack_, {}, arm_palette_, 0);
  posed.objects.resize(1);
  expect_same_silhouette(posed, cam, 64, 80, 512);
}

TEST_F(GlVersusTracer, TheWholeFixtureHasTheSameIdsCardsAndHolesIncluded) {
  Camera cam;
  cam.eye = {0.5f, 2.2f, 6.0f};
  cam.target = {0, 1.4f, -1};
  arm_palette_[1] = to_matrix(Trs{{1, 0.3f, 0}, quat_from_axis_angle({0, 1, 0}, 0.6f), {1, 1, 1}});
  for (uint32_t frame : {1u, 2u}) {  // frame 1 has a transparent left half
    column_->evaluate(30);
    Posed posed = trace_test::posed(*pack_, column_->palette(), arm_palette_, frame);
    posed.tick = 30;
    expect_same_silhouette(posed, cam, 192, 144, 3000);
  }
}

}  // namespace
}  // namespace animpack::trace
