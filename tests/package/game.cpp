// A "game" built against the installed package (animpack::runtime, animpack::gl,
// animpack::trace): opens the cooked pack, plays the first rig's first clip for a second,
// plays the whole scene for half a second with the ScenePlayer, ray traces that frame to a
// PNG with the tracer, and draws it with the GL renderer on a headless context.
//   game PACK OUT.png
// Exit 0 when every step worked and both images show objects. Without a GL 4.5 core
// context (no Mesa) the GL step fails, naming why, unless ANIMPACK_NO_GL=1 skips it.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "animpack/animator.h"
#include "animpack/gl/context.h"
#include "animpack/gl/renderer.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/pack.h"
#include "animpack/scene_player.h"
#include "animpack/tracer/framing.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"

namespace {

constexpr int kWidth = 96;
constexpr int kHeight = 64;

template <typename T>
size_t count_ids(const T& ids) {
  size_t n = 0;
  for (uint32_t id : ids) n += id != 0 ? 1 : 0;
  return n;
}

int fail(const char* step, const animpack::Error& error) {
  std::fprintf(stderr, "game: %s: %s\n", step, error.message());
  return 1;
}

// Draws the posed scene with animpack::gl into a kWidth x kHeight target; the pixels
// showing an object, or -1 on failure (reported).
long draw_gl(const animpack::Pack& pack, const animpack::Posed& posed,
             const animpack::Camera& camera) {
  auto context = animpack::gl::Context::create_headless();
  if (!context) {
    fail("gl context", context.error());
    return -1;
  }
  auto renderer = animpack::gl::Renderer::create(&*context);
  if (!renderer) {
    fail("gl renderer", renderer.error());
    return -1;
  }
  auto scene = animpack::gl::SceneRenderer::create(&*renderer, &pack);
  if (!scene) {
    fail("gl scene", scene.error());
    return -1;
  }
  auto ids = scene->render_ids(posed, camera, kWidth, kHeight);
  if (!ids) {
    fail("gl draw", ids.error());
    return -1;
  }
  if (auto r = context->check_errors("game"); !r) {
    fail("gl", r.error());
    return -1;
  }
  return static_cast<long>(count_ids(*ids));
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "demo.anpk";
  const char* png = argc > 2 ? argv[2] : "frame.png";
  auto pack = animpack::Pack::open(path);
  if (!pack) return fail(path, pack.error());
  if (pack->rig_count() == 0) return 1;
  auto animator = animpack::Animator::create(&pack->rig(0), 60);
  if (!animator || !animator->play(uint16_t{0}, 0)) return 1;
  size_t events = 0;
  for (int64_t tick = 0; tick < 60; ++tick) {
    events += animator->advance(tick).size();
    animator->evaluate(tick);
  }
  std::printf("game: %s: %d rigs, %zu objects, played 60 ticks of %s (%zu events)\n", path,
              pack->rig_count(), pack->objects().size(), pack->rig(0).clips()[0].name().c_str(),
              events);

  // The whole scene at tick 30, traced (animpack::trace).
  auto player = animpack::ScenePlayer::create(&*pack, 60);
  if (!player) return fail("scene player", player.error());
  for (int tick = 0; tick < 30; ++tick) player->step();
  auto staged = animpack::trace::stage_posed(*pack, player->posed());
  if (!staged) return fail("trace stage", staged.error());
  animpack::trace::RenderOptions options;
  options.width = kWidth;
  options.height = kHeight;
  options.samples = 1;
  options.threads = 2;
  options.camera = animpack::trace::frame_box(staged->bounds(), kWidth, kHeight);
  auto frame = animpack::trace::render(*staged, options);
  if (!frame) return fail("trace", frame.error());
  if (auto w = animpack::trace::write_png(frame->color, png); !w) return fail(png, w.error());
  const size_t traced = count_ids(frame->ids);
  if (traced == 0) {
    std::fprintf(stderr, "game: the traced frame shows no object\n");
    return 1;
  }

  // The same pose drawn by animpack::gl.
  const char* no_gl = std::getenv("ANIMPACK_NO_GL");
  if (no_gl != nullptr && std::strcmp(no_gl, "1") == 0) {
    std::printf("game: traced %zu object pixels to %s; GL skipped (ANIMPACK_NO_GL=1)\n", traced,
                png);
    return 0;
  }
  const long drawn = draw_gl(*pack, player->posed(&options.camera), options.camera);
  if (drawn < 0) return 1;
  if (drawn == 0) {
    std::fprintf(stderr, "game: the GL frame shows no object\n");
    return 1;
  }
  std::printf("game: traced %zu and drew %ld object pixels of %dx%d (%s)\n", traced, drawn, kWidth,
              kHeight, png);
  return 0;
}
