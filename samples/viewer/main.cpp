// viewer: a GLFW window playing a cooked pack; keys switch clips, crossfade, pause, step
// one tick and change speed; the title shows object, clip and tick.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/bounds.h"
#include "animpack/camera.h"
#include "animpack/gl/context.h"
#include "animpack/gl/framing.h"
#include "animpack/gl/renderer.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/scene_player.h"
#include "args.h"

namespace {

using namespace animpack;

int usage() {
  std::fprintf(stderr, "usage: viewer PACK [--rate R] [--size WxH] [--frames N]\n");
  return 2;
}

// The box of what the scene shows over its clips: a second player's objects'
// ScenePlayer::world_bounds (the posed vertices for a pack without bounds), 64 ticks
// sampled over the longest clip (at least 1 s, at most 10 s).
Box clip_box(const Pack& pack, int32_t rate) {
  double longest = 1.0;
  for (int r = 0; r < pack.rig_count(); ++r) {
    for (const Clip& c : pack.rig(r).clips()) longest = std::max(longest, double{c.duration()});
  }
  const long ticks = static_cast<long>(std::min(longest, 10.0) * rate) + 1;
  const long every = std::max(1L, ticks / 64);
  Box box;
  auto player = ScenePlayer::create(&pack, rate);
  if (!player) return box;
  for (long t = 0; t < ticks; ++t) {
    if (t % every == 0) {
      Result<Box> world = gl::world_box(*player);
      box = gl::merge_boxes(box, world ? *world : gl::posed_box(pack, player->posed()));
    }
    player->step();
  }
  return box;
}

// What the keys change.
struct State {
  ScenePlayer* player = nullptr;
  std::vector<ObjectId> objects;  // the animated ones
  std::vector<int> clip;          // per entry of objects: the clip index we started, or -1
  size_t selected = 0;
  bool paused = false;
  int steps = 0;       // ticks to step while paused
  int speed_log2 = 0;  // ticks pass at 2^speed_log2 x the tick rate
  float yaw = 0.0f;    // camera turn about +y, radians
  float zoom = 1.0f;   // camera distance factor
  std::string status;  // the last refusal, shown in the title
};

// The clip names of an object (its rig's or its sprite sheet's).
std::vector<std::string_view> clip_names(const ScenePlayer& player, ObjectId id) {
  std::vector<std::string_view> names;
  if (const Rig* rig = player.rig(id)) {
    for (const Clip& c : rig->clips()) names.push_back(c.name());
  } else if (const SpriteSheet* sheet = player.sprite_sheet(id)) {
    for (const SpriteClip& c : sheet->clips()) names.push_back(c.name());
  }
  return names;
}

void switch_clip(State& s, int direction, bool fade) {
  if (s.objects.empty()) return;
  const ObjectId id = s.objects[s.selected];
  const std::vector<std::string_view> names = clip_names(*s.player, id);
  if (names.empty()) return;
  const int n = static_cast<int>(names.size());
  int& clip = s.clip[s.selected];
  clip = ((clip < 0 ? (direction > 0 ? -1 : 0) : clip) + direction + n) % n;
  Result<void> r = fade && s.player->rig(id) != nullptr
                       ? s.player->animate(id, names[static_cast<size_t>(clip)]).fade(0.3).done()
                       : s.player->play_clip(id, names[static_cast<size_t>(clip)]);
  s.status = r ? "" : r.error().message();
}

void on_key(GLFWwindow* window, int key, int /*scancode*/, int action, int mods) {
  if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
  auto* s = static_cast<State*>(glfwGetWindowUserPointer(window));
  switch (key) {
    case GLFW_KEY_ESCAPE:
      glfwSetWindowShouldClose(window, GLFW_TRUE);
      break;
    case GLFW_KEY_TAB:
      if (!s->objects.empty()) {
        const size_t n = s->objects.size();
        s->selected = (s->selected + ((mods & GLFW_MOD_SHIFT) ? n - 1 : 1)) % n;
      }
      break;
    case GLFW_KEY_RIGHT:
      switch_clip(*s, 1, false);
      break;
    case GLFW_KEY_LEFT:
      switch_clip(*s, -1, false);
      break;
    case GLFW_KEY_C:
      switch_clip(*s, 1, true);
      break;
    case GLFW_KEY_SPACE:
      s->paused = !s->paused;
      break;
    case GLFW_KEY_PERIOD:
      if (s->paused) ++s->steps;
      break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD:
      s->speed_log2 = std::min(s->speed_log2 + 1, 3);
      break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT:
      s->speed_log2 = std::max(s->speed_log2 - 1, -3);
      break;
    case GLFW_KEY_UP:
      s->zoom = std::max(s->zoom / 1.15f, 0.1f);
      break;
    case GLFW_KEY_DOWN:
      s->zoom = std::min(s->zoom * 1.15f, 20.0f);
      break;
    case GLFW_KEY_A:
      s->yaw -= 0.15f;
      break;
    case GLFW_KEY_D:
      s->yaw += 0.15f;
      break;
    default:
      break;
  }
}

std::string title(const State& s, const std::string& pack_name) {
  std::string t = "animpack viewer: " + pack_name;
  if (!s.objects.empty()) {
    const ObjectId id = s.objects[s.selected];
    const std::vector<std::string_view> names = clip_names(*s.player, id);
    const int clip = s.clip[s.selected];
    t += " | object " + std::string(s.player->name(id));
    t += " | clip ";
    t += clip >= 0 && static_cast<size_t>(clip) < names.size()
             ? std::string(names[static_cast<size_t>(clip)])
             : std::string("(as cooked)");
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, " | tick %lld | x%g%s", static_cast<long long>(s.player->tick()),
                std::ldexp(1.0, s.speed_log2), s.paused ? " | paused" : "");
  t += buf;
  if (!s.status.empty()) t += " | " + s.status;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string path = argv[1];
  long rate = 60, max_frames = -1;
  int width = 960, height = 540;
  for (int i = 2; i < argc; ++i) {
    auto number = [&](long lo, long hi, long* out) {
      return samples::next_number(argc, argv, &i, lo, hi, out);
    };
    if (std::strcmp(argv[i], "--rate") == 0) {
      if (!number(1, 10000, &rate)) return usage();
    } else if (std::strcmp(argv[i], "--frames") == 0) {
      if (!number(1, 100000000, &max_frames)) return usage();
    } else if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
      char tail = 0;
      if (std::sscanf(argv[++i], "%dx%d%c", &width, &height, &tail) != 2 || width < 1 ||
          height < 1 || width > 8192 || height > 8192) {
        return usage();
      }
    } else {
      return usage();
    }
  }
  auto pack = Pack::open(path);
  if (!pack) {
    std::fprintf(stderr, "viewer: %s\n", pack.error().message());
    return pack.error().code() == ErrorCode::kIo ? 2 : 1;
  }
  auto player = ScenePlayer::create(&*pack, static_cast<int32_t>(rate));
  if (!player) {
    std::fprintf(stderr, "viewer: %s\n", player.error().message());
    return 1;
  }
  gl::WindowOptions options;
  options.width = width;
  options.height = height;
  options.title = "animpack viewer";
  auto context = gl::Context::create_window(options);
  if (!context) {
    std::fprintf(stderr, "viewer: %s\n", context.error().message());
    return 1;
  }
  auto renderer = gl::Renderer::create(&*context);
  if (!renderer) {
    std::fprintf(stderr, "viewer: %s\n", renderer.error().message());
    return 1;
  }
  auto scene = gl::SceneRenderer::create(&*renderer, &*pack);
  if (!scene) {
    std::fprintf(stderr, "viewer: %s\n", scene.error().message());
    return 1;
  }

  State state;
  state.player = &*player;
  for (uint32_t o = 0; o < player->object_count(); ++o) {
    const ObjectId id{o};
    if (player->animator(id) == nullptr && player->sprite(id) == nullptr) continue;
    state.objects.push_back(id);
    const ObjectInfo& info = pack->objects()[o];
    state.clip.push_back(info.animated && info.animation.blend.empty() ? info.animation.clip : -1);
  }
  GLFWwindow* window = context->window();
  glfwSetWindowUserPointer(window, &state);
  glfwSetKeyCallback(window, on_key);
  const Box shown = clip_box(*pack, static_cast<int32_t>(rate));
  const std::string pack_name = std::filesystem::path(path).filename().string();

  double last = glfwGetTime(), owed = 0;  // ticks owed to real time
  std::string shown_title;
  int status = 0;
  for (long frame = 0; !context->should_close() && (max_frames < 0 || frame < max_frames);
       ++frame) {
    context->poll_events();
    const double now = glfwGetTime();
    if (!state.paused) {
      owed += (now - last) * static_cast<double>(rate) * std::ldexp(1.0, state.speed_log2);
      owed = std::min(owed, 8.0);  // a slow frame does not make the scene race afterwards
      while (owed >= 1.0) {
        player->step();
        owed -= 1.0;
      }
    } else {
      for (; state.steps > 0; --state.steps) player->step();
    }
    last = now;

    int fb_width = 0, fb_height = 0;
    if (!context->framebuffer_size(&fb_width, &fb_height) || fb_width < 1 || fb_height < 1) {
      continue;  // minimised
    }
    // Framed on the clips' box, turned by yaw about +y and pushed back by zoom.
    gl::FramingOptions framing;
    framing.direction = {std::sin(state.yaw) * 0.94f, 0.33f, std::cos(state.yaw) * 0.94f};
    Camera camera =
        gl::frame_box(shown, static_cast<float>(fb_width) / static_cast<float>(fb_height), framing);
    const Vec3 back = camera.eye - camera.target;
    camera.eye = camera.target + back * state.zoom;
    camera.far_plane = camera.far_plane + length(back) * std::max(state.zoom - 1.0f, 0.0f);
    camera.near_plane = std::min(camera.near_plane, length(back) * state.zoom * 0.5f);
    const gl::View view{camera,
                        {},
                        static_cast<uint32_t>(std::min(fb_width, 8192)),
                        static_cast<uint32_t>(std::min(fb_height, 8192))};
    if (auto r = scene->draw(player->posed(&camera), view); !r) {
      std::fprintf(stderr, "viewer: %s\n", r.error().message());
      status = 1;
      break;
    }
    if (auto r = renderer->present(fb_width, fb_height); !r) {
      std::fprintf(stderr, "viewer: %s\n", r.error().message());
      status = 1;
      break;
    }
    (void)context->swap_buffers();
    const std::string t = title(state, pack_name);
    if (t != shown_title) {
      glfwSetWindowTitle(window, t.c_str());
      shown_title = t;
    }
  }
  if (max_frames >= 0) std::printf("viewer: %s\n", shown_title.c_str());
  return status;
}
