// viewer: the tool artists check a cooked pack in. Dear ImGui panels over animpack::gl:
// the pack's objects, the selected object's clips and states, a timeline to scrub and
// step by tick, play/pause/speed, the state machine's parameters and triggers, the events
// log, overlays (skeleton, bounds, ground grid, the light) and the frame time. The keys
// of the first viewer still work. `--screenshot OUT.png --tick T` draws one frame of it
// headless (EGL surfaceless, else a hidden window) and writes it as a PNG.
//
// Scrubbing: the runtime only steps forward, so every call the viewer makes (a clip, a
// state, a parameter, a trigger) is recorded with the tick it acted at; going back
// restarts the player and replays the record to the tick asked for, which by the
// runtime's determinism gives the very poses and events seen before. A call made after
// going back drops the recorded calls after it.
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <stb/stb_image_write.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "animpack/bounds.h"
#include "animpack/camera.h"
#include "animpack/gl/context.h"
#include "animpack/gl/framing.h"
#include "animpack/gl/renderer.h"
#include "animpack/gl/scene_renderer.h"
#include "animpack/graph.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/scene_player.h"

namespace {

using namespace animpack;

// The panels' background (ImGuiCol_WindowBg), opaque: the screenshot test looks for it.
const ImVec4 kPanelColor{0.13f, 0.14f, 0.17f, 1.0f};
// The 3D view's clear colour (linear values stored as given: gl::View::clear_color).
constexpr Vec4 kViewClear{0.26f, 0.28f, 0.32f, 1.0f};
constexpr const char* kFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr size_t kMaxLogLines = 300;

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

// The timeline's length in ticks: twice the longest clip, 4 to 60 s.
int64_t timeline_ticks(const Pack& pack, int32_t rate) {
  double longest = 0.0;
  for (int r = 0; r < pack.rig_count(); ++r) {
    for (const Clip& c : pack.rig(r).clips()) longest = std::max(longest, double{c.duration()});
  }
  return static_cast<int64_t>(std::clamp(2.0 * longest, 4.0, 60.0) * rate);
}

// One call the viewer made on the player, kept for replay.
struct Command {
  enum class Kind : uint8_t { kClip, kFade, kState, kFloat, kBool, kTrigger };
  int64_t tick = 0;  // the play_tick() it acted at
  Kind kind = Kind::kClip;
  ObjectId object;
  std::string name;  // the clip, state, parameter or trigger
  float value = 0;
  int clip = -1;  // kClip, kFade: the clip's index in the object's list
};

// What the panels and the keys change.
struct App {
  const Pack* pack = nullptr;
  int32_t rate = 60;
  std::optional<ScenePlayer> player;
  std::vector<ObjectId> animated;      // the objects the keys cycle through
  std::vector<int> initial_clip;       // per pack object: the clip it was cooked with, or -1
  std::vector<int> clip;               // per pack object: the clip shown in the list, or -1
  std::vector<Command> commands;       // the record, in the order made
  size_t applied = 0;                  // commands[0, applied) act at or before play_tick()
  std::deque<std::string> events_log;  // the events, oldest first
  size_t selected = 0;                 // index into animated
  bool paused = false;
  int steps = 0;       // ticks to step while paused (the '.' key)
  int speed_log2 = 0;  // ticks pass at 2^speed_log2 x the tick rate
  float yaw = 0.0f;    // camera turn about +y, radians
  float pitch = 0.33f;
  float zoom = 1.0f;  // camera distance factor
  bool show_skeleton = true, show_bounds = true, show_grid = true, show_light = true;
  float light_yaw = -2.45f, light_pitch = -1.0f, ambient = 0.3f;
  bool crossfade = false;
  Box shown;  // what the camera frames
  int64_t timeline = 240;
  std::string status;  // the last refusal
  std::array<float, 120> frame_ms{};
  size_t frame_index = 0;
  float draw_ms = 0;

  ObjectId selected_id() const { return animated.empty() ? ObjectId{} : animated[selected]; }

  Result<void> restart() {
    auto p = ScenePlayer::create(pack, rate);
    if (!p) return p.error();
    player.emplace(std::move(*p));
    clip = initial_clip;
    applied = 0;
    events_log.clear();
    return ok();
  }

  Result<void> apply(const Command& c) {
    const auto blend = [&]() -> Result<void> {
      return player->animate(c.object, c.name).fade(0.3).done();
    };
    Result<void> r = ok();
    switch (c.kind) {
      case Command::Kind::kClip:
        r = player->play_clip(c.object, c.name);
        break;
      case Command::Kind::kFade:
        r = player->rig(c.object) != nullptr ? blend() : player->play_clip(c.object, c.name);
        break;
      case Command::Kind::kState:
        r = player->play_state(c.object, c.name, 0.25);
        break;
      case Command::Kind::kFloat:
        r = player->set_parameter(c.object, c.name, c.value);
        break;
      case Command::Kind::kBool:
        r = player->set_parameter(c.object, c.name, c.value != 0.0f);
        break;
      case Command::Kind::kTrigger:
        r = player->fire_trigger(c.object, c.name);
        break;
    }
    if (r && (c.kind == Command::Kind::kClip || c.kind == Command::Kind::kFade)) {
      clip[c.object.value] = c.clip;
    }
    return r;
  }

  // Makes a call now (at play_tick()), recording it; the record after it is dropped.
  void issue(Command c) {
    c.tick = player->play_tick();
    commands.resize(applied);
    Result<void> r = apply(c);
    status = r ? "" : std::string(r.error().message());
    commands.push_back(std::move(c));
    applied = commands.size();
  }

  // One tick: the recorded calls of play_tick(), then step(), then its events logged.
  void advance() {
    while (applied < commands.size() && commands[applied].tick <= player->play_tick()) {
      (void)apply(commands[applied++]);
    }
    player->step();
    for (const AnimationEvent& e : player->animation_events()) {
      char line[160];
      std::snprintf(line, sizeof line, "%6lld  %.*s  %.*s: %.*s", static_cast<long long>(e.tick),
                    static_cast<int>(player->name(e.object).size()), player->name(e.object).data(),
                    static_cast<int>(e.clip_name.size()), e.clip_name.data(),
                    static_cast<int>(e.event.size()), e.event.data());
      events_log.emplace_back(line);
      if (events_log.size() > kMaxLogLines) events_log.pop_front();
    }
  }

  // Goes to `tick`: forward by stepping, back by replaying from tick 0.
  void seek(int64_t tick) {
    tick = std::max<int64_t>(tick, 0);
    if (tick < player->tick()) {
      if (auto r = restart(); !r) {
        status = r.error().message();
        return;
      }
    }
    while (player->tick() < tick) advance();
  }
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

void play_clip_index(App& app, ObjectId id, int index, bool fade) {
  const std::vector<std::string_view> names = clip_names(*app.player, id);
  if (index < 0 || static_cast<size_t>(index) >= names.size()) return;
  Command c;
  c.kind = fade ? Command::Kind::kFade : Command::Kind::kClip;
  c.object = id;
  c.name = std::string(names[static_cast<size_t>(index)]);
  c.clip = index;
  app.issue(std::move(c));
}

void switch_clip(App& app, int direction, bool fade) {
  if (app.animated.empty()) return;
  const ObjectId id = app.selected_id();
  const int n = static_cast<int>(clip_names(*app.player, id).size());
  if (n == 0) return;
  const int clip = app.clip[id.value];
  play_clip_index(app, id, ((clip < 0 ? (direction > 0 ? -1 : 0) : clip) + direction + n) % n,
                  fade);
}

void on_key(GLFWwindow* window, int key, int /*scancode*/, int action, int mods) {
  if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
  if (ImGui::GetCurrentContext() != nullptr && ImGui::GetIO().WantCaptureKeyboard) return;
  auto* app = static_cast<App*>(glfwGetWindowUserPointer(window));
  switch (key) {
    case GLFW_KEY_ESCAPE:
      glfwSetWindowShouldClose(window, GLFW_TRUE);
      break;
    case GLFW_KEY_TAB:
      if (!app->animated.empty()) {
        const size_t n = app->animated.size();
        app->selected = (app->selected + ((mods & GLFW_MOD_SHIFT) ? n - 1 : 1)) % n;
      }
      break;
    case GLFW_KEY_RIGHT:
      switch_clip(*app, 1, false);
      break;
    case GLFW_KEY_LEFT:
      switch_clip(*app, -1, false);
      break;
    case GLFW_KEY_C:
      switch_clip(*app, 1, true);
      break;
    case GLFW_KEY_SPACE:
      app->paused = !app->paused;
      break;
    case GLFW_KEY_PERIOD:
      if (app->paused) ++app->steps;
      break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD:
      app->speed_log2 = std::min(app->speed_log2 + 1, 3);
      break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT:
      app->speed_log2 = std::max(app->speed_log2 - 1, -3);
      break;
    case GLFW_KEY_UP:
      app->zoom = std::max(app->zoom / 1.15f, 0.1f);
      break;
    case GLFW_KEY_DOWN:
      app->zoom = std::min(app->zoom * 1.15f, 20.0f);
      break;
    case GLFW_KEY_A:
      app->yaw -= 0.15f;
      break;
    case GLFW_KEY_D:
      app->yaw += 0.15f;
      break;
    default:
      break;
  }
}

std::string title(const App& app, const std::string& pack_name) {
  std::string t = "animpack viewer: " + pack_name;
  if (!app.animated.empty()) {
    const ObjectId id = app.selected_id();
    const std::vector<std::string_view> names = clip_names(*app.player, id);
    const int clip = app.clip[id.value];
    t += " | object " + std::string(app.player->name(id));
    t += " | clip ";
    t += clip >= 0 && static_cast<size_t>(clip) < names.size()
             ? std::string(names[static_cast<size_t>(clip)])
             : std::string("(as cooked)");
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, " | tick %lld | x%g%s", static_cast<long long>(app.player->tick()),
                std::ldexp(1.0, app.speed_log2), app.paused ? " | paused" : "");
  t += buf;
  if (!app.status.empty()) t += " | " + app.status;
  return t;
}

// ---------------------------------------------------------------- overlays

void add_box(std::vector<gl::DebugLine>& out, const Box& b, Vec4 color) {
  const Vec3 c[8] = {{b.lo.x, b.lo.y, b.lo.z}, {b.hi.x, b.lo.y, b.lo.z}, {b.hi.x, b.hi.y, b.lo.z},
                     {b.lo.x, b.hi.y, b.lo.z}, {b.lo.x, b.lo.y, b.hi.z}, {b.hi.x, b.lo.y, b.hi.z},
                     {b.hi.x, b.hi.y, b.hi.z}, {b.lo.x, b.hi.y, b.hi.z}};
  const int edges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                            {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  for (const auto& e : edges) out.push_back({c[e[0]], c[e[1]], color, false});
}

// A round step near extent / 10 (1, 2 or 5 times a power of ten).
float grid_step(float extent) {
  const float raw = std::max(extent / 10.0f, 1e-3f);
  const float p = std::pow(10.0f, std::floor(std::log10(raw)));
  for (float m : {1.0f, 2.0f, 5.0f}) {
    if (m * p >= raw) return m * p;
  }
  return 10.0f * p;
}

Vec3 light_direction(const App& app) {
  const float c = std::cos(app.light_pitch);
  return {std::sin(app.light_yaw) * c, std::sin(app.light_pitch), std::cos(app.light_yaw) * c};
}

std::vector<gl::DebugLine> overlay_lines(App& app, const Posed& posed) {
  std::vector<gl::DebugLine> lines;
  const Box& s = app.shown;
  const float extent = std::max({s.hi.x - s.lo.x, s.hi.y - s.lo.y, s.hi.z - s.lo.z, 1e-3f});
  if (app.show_grid) {
    const float step = grid_step(std::max(s.hi.x - s.lo.x, s.hi.z - s.lo.z));
    const float cx = std::round((s.lo.x + s.hi.x) * 0.5f / step) * step;
    const float cz = std::round((s.lo.z + s.hi.z) * 0.5f / step) * step;
    const int half = static_cast<int>(std::ceil(0.8f * extent / step));
    const float y = s.lo.y;
    const float r = static_cast<float>(half) * step;
    for (int i = -half; i <= half; ++i) {
      const float o = static_cast<float>(i) * step;
      const bool x_axis = std::fabs(cz + o) < 0.5f * step;  // world z = 0: the x axis
      const bool z_axis = std::fabs(cx + o) < 0.5f * step;
      const Vec4 grey{0.55f, 0.57f, 0.62f, 0.55f};
      lines.push_back({{cx - r, y, cz + o},
                       {cx + r, y, cz + o},
                       x_axis ? Vec4{0.9f, 0.2f, 0.2f, 0.9f} : grey,
                       false});
      lines.push_back({{cx + o, y, cz - r},
                       {cx + o, y, cz + r},
                       z_axis ? Vec4{0.2f, 0.35f, 0.95f, 0.9f} : grey,
                       false});
    }
  }
  const ObjectId selected = app.selected_id();
  for (const PosedObject& po : posed.objects) {
    const ObjectId id{static_cast<uint32_t>(po.object)};
    const bool is_selected = id == selected;
    if (app.show_bounds) {
      if (Result<Box> b = app.player->world_bounds(id); b && b->valid()) {
        add_box(lines, *b,
                is_selected ? Vec4{1.0f, 0.85f, 0.2f, 1.0f} : Vec4{0.6f, 0.62f, 0.7f, 0.5f});
      }
    }
    const Animator* animator = app.player->animator(id);
    const Rig* rig = app.player->rig(id);
    if (!app.show_skeleton || animator == nullptr || rig == nullptr) continue;
    const std::span<const Mat4> globals = animator->globals();
    const std::span<const int16_t> parents = rig->skeleton().parents();
    const Vec4 bone = is_selected ? Vec4{0.2f, 1.0f, 0.6f, 1.0f} : Vec4{0.2f, 0.8f, 0.9f, 0.7f};
    const Vec4 joint{1.0f, 1.0f, 1.0f, is_selected ? 1.0f : 0.7f};
    const float mark = extent * 0.006f;
    for (size_t j = 0; j < globals.size() && j < parents.size(); ++j) {
      const Vec3 p = transform_point(po.model, transform_point(globals[j], {0, 0, 0}));
      if (parents[j] >= 0 && static_cast<size_t>(parents[j]) < globals.size()) {
        const Vec3 q = transform_point(
            po.model, transform_point(globals[static_cast<size_t>(parents[j])], {0, 0, 0}));
        lines.push_back({q, p, bone, true});
      }
      for (Vec3 axis : {Vec3{mark, 0, 0}, Vec3{0, mark, 0}, Vec3{0, 0, mark}}) {
        lines.push_back({p - axis, p + axis, joint, true});
      }
    }
  }
  if (app.show_light) {
    // The light's way, drawn into the box's centre from above it.
    const Vec3 centre{(s.lo.x + s.hi.x) * 0.5f, s.hi.y, (s.lo.z + s.hi.z) * 0.5f};
    const Vec3 d = normalize(light_direction(app));
    const Vec3 from = centre - d * (extent * 0.25f);
    lines.push_back({from, centre, {1.0f, 0.9f, 0.3f, 1.0f}, true});
  }
  return lines;
}

// ---------------------------------------------------------------- the 3D view

struct ViewTexture {
  GLuint texture = 0;
  uint32_t width = 0, height = 0;
};

Camera view_camera(const App& app, uint32_t width, uint32_t height) {
  gl::FramingOptions framing;
  const float c = std::cos(app.pitch);
  framing.direction = {std::sin(app.yaw) * c, std::sin(app.pitch), std::cos(app.yaw) * c};
  Camera camera =
      gl::frame_box(app.shown, static_cast<float>(width) / static_cast<float>(height), framing);
  const Vec3 back = camera.eye - camera.target;
  camera.eye = camera.target + back * app.zoom;
  camera.far_plane = camera.far_plane + length(back) * std::max(app.zoom - 1.0f, 0.0f);
  camera.near_plane = std::min(camera.near_plane, length(back) * app.zoom * 0.5f);
  return camera;
}

// Draws the scene and its overlays at width x height and puts the picture in `tex`.
Result<void> draw_view(App& app, gl::Renderer& renderer, gl::SceneRenderer& scene, ViewTexture& tex,
                       uint32_t width, uint32_t height) {
  const Camera camera = view_camera(app, width, height);
  const Posed& posed = app.player->posed(&camera);
  const std::vector<gl::DebugLine> lines = overlay_lines(app, posed);
  if (auto r = renderer.set_lines(lines); !r) return r;
  gl::View view{camera, {}, width, height};
  view.clear_color = kViewClear;
  view.light_direction = light_direction(app);
  view.ambient = app.ambient;
  if (auto r = scene.draw(posed, view); !r) return r;
  Result<gl::Image> image = renderer.read_color();
  if (!image) return image.error();
  if (tex.texture == 0 || tex.width != width || tex.height != height) {
    if (tex.texture != 0) glDeleteTextures(1, &tex.texture);
    glCreateTextures(GL_TEXTURE_2D, 1, &tex.texture);
    glTextureStorage2D(tex.texture, 1, GL_RGBA8, static_cast<GLsizei>(width),
                       static_cast<GLsizei>(height));
    glTextureParameteri(tex.texture, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(tex.texture, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    tex.width = width;
    tex.height = height;
  }
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  // Rows top first at t = 0: ImGui's uv (0, 0) is the image's top left.
  glTextureSubImage2D(tex.texture, 0, 0, 0, static_cast<GLsizei>(width),
                      static_cast<GLsizei>(height), GL_RGBA, GL_UNSIGNED_BYTE, image->rgba.data());
  return ok();
}

// ---------------------------------------------------------------- panels

const char* object_kind(const ScenePlayer& player, ObjectId id) {
  if (player.sprite(id) != nullptr) return "sprite";
  if (player.state_machine(id) != nullptr) return "states";
  if (player.animator(id) != nullptr) return "rig";
  return "static";
}

void section(const char* name) {
  ImGui::Spacing();
  ImGui::TextColored({0.55f, 0.75f, 1.0f, 1.0f}, "%s", name);
  ImGui::Separator();
}

void scene_panel(App& app, const std::string& pack_name, float width, float height) {
  ImGui::SetNextWindowPos({0, 0});
  ImGui::SetNextWindowSize({width, height});
  ImGui::Begin("Scene", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
  ImGui::Text("%s", pack_name.c_str());
  ImGui::TextDisabled("format %u, %zu objects, %d Hz", app.pack->format_version(),
                      app.pack->objects().size(), app.rate);
  section("Objects");
  ImGui::BeginChild("objects", {0, height * 0.3f}, false);
  for (size_t i = 0; i < app.animated.size(); ++i) {
    const ObjectId id = app.animated[i];
    char label[128];
    std::snprintf(label, sizeof label, "%.*s##%u", static_cast<int>(app.player->name(id).size()),
                  app.player->name(id).data(), id.value);
    if (ImGui::Selectable(label, i == app.selected)) app.selected = i;
    ImGui::SameLine(width * 0.62f);
    ImGui::TextDisabled("%s", object_kind(*app.player, id));
  }
  for (uint32_t o = 0; o < app.player->object_count(); ++o) {
    const ObjectId id{o};
    if (app.player->animator(id) != nullptr || app.player->sprite(id) != nullptr) continue;
    ImGui::TextDisabled("%.*s (static)", static_cast<int>(app.player->name(id).size()),
                        app.player->name(id).data());
  }
  ImGui::EndChild();
  if (app.animated.empty()) {
    ImGui::End();
    return;
  }
  const ObjectId id = app.selected_id();
  const StateMachine* machine = app.player->state_machine(id);
  if (machine != nullptr && !machine->graph().states.empty()) {
    section("States");
    for (const StateDef& s : machine->graph().states) {
      if (ImGui::Selectable(s.name.c_str(), app.player->state(id) == s.name)) {
        Command c;
        c.kind = Command::Kind::kState;
        c.object = id;
        c.name = s.name;
        app.issue(std::move(c));
      }
    }
  }
  section("Clips");
  ImGui::Checkbox("crossfade 0.3 s", &app.crossfade);
  const std::vector<std::string_view> names = clip_names(*app.player, id);
  ImGui::BeginChild("clips", {0, 0}, false);
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string name(names[i]);
    char label[160];
    std::snprintf(label, sizeof label, "%s##clip%zu", name.c_str(), i);
    if (ImGui::Selectable(label, app.clip[id.value] == static_cast<int>(i))) {
      play_clip_index(app, id, static_cast<int>(i), app.crossfade);
    }
    if (const Rig* rig = app.player->rig(id)) {
      const Clip& c = rig->clips()[i];
      ImGui::SameLine(width * 0.45f);
      ImGui::TextDisabled("%s", c.additive() != AdditiveReference::kNone ? "additive" : "");
      ImGui::SameLine(width * 0.72f);
      ImGui::TextDisabled("%.2f s", static_cast<double>(c.duration()));
    }
  }
  ImGui::EndChild();
  ImGui::End();
}

void light_and_camera(App& app, float width) {
  ImGui::PushItemWidth(width * 0.5f);
  ImGui::SliderAngle("light turn", &app.light_yaw, -180.0f, 180.0f);
  ImGui::SliderAngle("light pitch", &app.light_pitch, -89.0f, -5.0f);
  ImGui::SliderFloat("ambient", &app.ambient, 0.0f, 1.0f);
  ImGui::SliderAngle("camera turn", &app.yaw, -180.0f, 180.0f);
  ImGui::SliderFloat("zoom", &app.zoom, 0.1f, 20.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  ImGui::PopItemWidth();
}

void inspector_panel(App& app, float x, float width, float height) {
  ImGui::SetNextWindowPos({x, 0});
  ImGui::SetNextWindowSize({width, height});
  ImGui::Begin("Inspector", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
  const ObjectId id = app.selected_id();
  if (!app.animated.empty()) {
    section("Selected");
    const std::string_view name = app.player->name(id);
    ImGui::Text("%.*s (%s)", static_cast<int>(name.size()), name.data(),
                object_kind(*app.player, id));
    if (const Rig* rig = app.player->rig(id)) {
      ImGui::TextDisabled("%zu joints, %zu clips", rig->skeleton().parents().size(),
                          rig->clips().size());
    } else if (const SpriteSheet* sheet = app.player->sprite_sheet(id)) {
      ImGui::TextDisabled("frame %u, %zu clips", app.player->sprite_frame(id),
                          sheet->clips().size());
    }
  }
  if (const StateMachine* machine = app.player->state_machine(id)) {
    section("Parameters");
    for (const ParameterDef& p : machine->graph().parameters) {
      Command c;
      c.object = id;
      c.name = p.name;
      const Result<float> current = app.player->parameter(id, p.name);
      const float value = current ? *current : 0.0f;
      if (p.kind == ParameterKind::kFloat) {
        float v = value;
        const bool bounded = p.min > -1e6f && p.max < 1e6f;
        const bool changed = bounded ? ImGui::SliderFloat(p.name.c_str(), &v, p.min, p.max)
                                     : ImGui::DragFloat(p.name.c_str(), &v, 0.01f);
        if (changed) {
          c.kind = Command::Kind::kFloat;
          c.value = v;
          app.issue(std::move(c));
        }
      } else if (p.kind == ParameterKind::kBool) {
        bool v = value != 0.0f;
        if (ImGui::Checkbox(p.name.c_str(), &v)) {
          c.kind = Command::Kind::kBool;
          c.value = v ? 1.0f : 0.0f;
          app.issue(std::move(c));
        }
      } else if (ImGui::Button(p.name.c_str())) {
        c.kind = Command::Kind::kTrigger;
        app.issue(std::move(c));
      }
    }
    ImGui::TextDisabled("state: %.*s", static_cast<int>(app.player->state(id).size()),
                        app.player->state(id).data());
  }
  section("Overlays");
  ImGui::Checkbox("skeleton", &app.show_skeleton);
  ImGui::SameLine(width * 0.5f);
  ImGui::Checkbox("bounds", &app.show_bounds);
  ImGui::Checkbox("ground grid", &app.show_grid);
  ImGui::SameLine(width * 0.5f);
  ImGui::Checkbox("light", &app.show_light);
  ImGui::Spacing();
  // Open from the start when there is room for it and the events below.
  ImGui::SetNextItemOpen(height >= 700.0f, ImGuiCond_Once);
  if (ImGui::CollapsingHeader("Light and camera")) {
    light_and_camera(app, width);
  }
  section("Frame time");
  const float last =
      app.frame_ms[(app.frame_index + app.frame_ms.size() - 1) % app.frame_ms.size()];
  ImGui::Text("%.1f ms (%.0f fps), view %.1f ms", static_cast<double>(last),
              last > 0.0f ? 1000.0 / static_cast<double>(last) : 0.0,
              static_cast<double>(app.draw_ms));
  const float most = *std::max_element(app.frame_ms.begin(), app.frame_ms.end());
  ImGui::PlotLines("##frame", app.frame_ms.data(), static_cast<int>(app.frame_ms.size()),
                   static_cast<int>(app.frame_index), nullptr, 0.0f, std::max(most * 1.2f, 20.0f),
                   {width - 16.0f, 36});
  section("Events");
  ImGui::BeginChild("events", {0, 0}, false);
  if (app.events_log.empty()) ImGui::TextDisabled("none yet");
  for (const std::string& line : app.events_log) ImGui::TextUnformatted(line.c_str());
  if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY()) ImGui::SetScrollHereY(1.0f);
  ImGui::EndChild();
  ImGui::End();
}

void timeline_panel(App& app, float x, float y, float width, float height) {
  ImGui::SetNextWindowPos({x, y});
  ImGui::SetNextWindowSize({width, height});
  ImGui::Begin("Timeline", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
  const int64_t tick = app.player->tick();
  if (ImGui::Button("|<")) app.seek(0);
  ImGui::SameLine();
  if (ImGui::Button("<")) app.seek(tick - 1);
  ImGui::SameLine();
  if (ImGui::Button(app.paused ? " Play " : "Pause ")) app.paused = !app.paused;
  ImGui::SameLine();
  if (ImGui::Button(">")) app.seek(tick + 1);
  ImGui::SameLine();
  const char* speeds[] = {"x1/8", "x1/4", "x1/2", "x1", "x2", "x4", "x8"};
  int speed = app.speed_log2 + 3;
  ImGui::SetNextItemWidth(70);
  if (ImGui::Combo("##speed", &speed, speeds, 7)) app.speed_log2 = speed - 3;
  ImGui::SameLine();
  ImGui::Text("tick %lld  %.2f s", static_cast<long long>(tick),
              static_cast<double>(tick) / app.rate);
  if (!app.status.empty()) {
    ImGui::SameLine();
    ImGui::TextColored({1.0f, 0.45f, 0.35f, 1.0f}, "%s", app.status.c_str());
  }
  app.timeline = std::max(app.timeline, tick);
  int scrub = static_cast<int>(std::min<int64_t>(tick, 1 << 30));
  ImGui::SetNextItemWidth(-1);
  if (ImGui::SliderInt("##tick", &scrub, 0,
                       static_cast<int>(std::min<int64_t>(app.timeline, 1 << 30)), "tick %d")) {
    app.paused = true;
    app.seek(scrub);
  }
  ImGui::End();
}

// The panels and the 3D view's place (x, y, w, h in display pixels).
std::array<float, 4> build_ui(App& app, const std::string& pack_name, float w, float h) {
  const float side = std::clamp(w * 0.24f, 200.0f, 320.0f);
  const float bottom = 88.0f;
  scene_panel(app, pack_name, side, h);
  inspector_panel(app, w - side, side, h);
  timeline_panel(app, side, h - bottom, w - 2 * side, bottom);
  return {side, 0.0f, std::max(w - 2 * side, 1.0f), std::max(h - bottom, 1.0f)};
}

void style_ui() {
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 0.0f;
  style.WindowBorderSize = 0.0f;
  style.FrameRounding = 3.0f;
  style.Colors[ImGuiCol_WindowBg] = kPanelColor;
  style.Colors[ImGuiCol_ChildBg] = kPanelColor;
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini next to the user's files
  if (std::filesystem::exists(kFont)) {
    io.Fonts->AddFontFromFileTTF(kFont, 15.0f);
  } else {
    io.Fonts->AddFontDefault();
  }
}

// Everything one frame does: the UI, the 3D view into its texture, the UI drawn into
// the bound framebuffer of fb_width x fb_height pixels.
Result<void> frame(App& app, gl::Renderer& renderer, gl::SceneRenderer& scene, ViewTexture& tex,
                   const std::string& pack_name, bool with_window, int fb_width, int fb_height,
                   GLuint target) {
  const auto start = std::chrono::steady_clock::now();
  ImGui_ImplOpenGL3_NewFrame();
  if (with_window) ImGui_ImplGlfw_NewFrame();
  ImGuiIO& io = ImGui::GetIO();
  if (!with_window) {
    io.DisplaySize = {static_cast<float>(fb_width), static_cast<float>(fb_height)};
    io.DeltaTime = 1.0f / 60.0f;
  }
  ImGui::NewFrame();
  const std::array<float, 4> area = build_ui(app, pack_name, io.DisplaySize.x, io.DisplaySize.y);
  // Mouse in the 3D view: drag to turn the camera, wheel to zoom.
  const ImVec2 m = io.MousePos;
  if (!io.WantCaptureMouse && m.x >= area[0] && m.x < area[0] + area[2] && m.y >= area[1] &&
      m.y < area[1] + area[3]) {
    if (ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
      app.yaw += io.MouseDelta.x * 0.01f;
      app.pitch = std::clamp(app.pitch + io.MouseDelta.y * 0.01f, -1.4f, 1.4f);
    }
    if (io.MouseWheel != 0.0f) {
      app.zoom = std::clamp(app.zoom * std::pow(1.15f, -io.MouseWheel), 0.1f, 20.0f);
    }
  }
  const float sx = io.DisplayFramebufferScale.x, sy = io.DisplayFramebufferScale.y;
  const auto pixels = [](float v) {
    return static_cast<uint32_t>(std::clamp(v, 1.0f, static_cast<float>(gl::kMaxTargetSize)));
  };
  const auto view_start = std::chrono::steady_clock::now();
  if (auto r = draw_view(app, renderer, scene, tex, pixels(area[2] * sx), pixels(area[3] * sy));
      !r) {
    ImGui::EndFrame();
    return r;
  }
  app.draw_ms =
      std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - view_start)
          .count();
  ImGui::GetBackgroundDrawList()->AddImage(
      reinterpret_cast<ImTextureID>(static_cast<intptr_t>(tex.texture)), {area[0], area[1]},
      {area[0] + area[2], area[1] + area[3]});
  ImGui::Render();
  glBindFramebuffer(GL_FRAMEBUFFER, target);
  glViewport(0, 0, fb_width, fb_height);
  glDisable(GL_FRAMEBUFFER_SRGB);  // ImGui's colours and the view's bytes are stored as given
  glClearColor(kPanelColor.x, kPanelColor.y, kPanelColor.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  app.frame_ms[app.frame_index] =
      std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
  app.frame_index = (app.frame_index + 1) % app.frame_ms.size();
  return ok();
}

// Writes the bound framebuffer's pixels as a PNG, atomically (a temporary file, then
// rename).
bool write_screenshot(const std::string& path, int width, int height) {
  std::vector<uint8_t> bottom_up(static_cast<size_t>(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  std::vector<uint8_t> rgba(bottom_up.size());
  const size_t row = static_cast<size_t>(width) * 4;
  for (int y = 0; y < height; ++y) {
    std::copy_n(&bottom_up[static_cast<size_t>(height - 1 - y) * row], row,
                &rgba[static_cast<size_t>(y) * row]);
  }
  for (size_t i = 3; i < rgba.size(); i += 4) rgba[i] = 255;
  const std::string temporary = path + ".tmp";
  if (!stbi_write_png(temporary.c_str(), width, height, 4, rgba.data(), width * 4)) {
    std::fprintf(stderr, "viewer: cannot write %s\n", temporary.c_str());
    return false;
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::fprintf(stderr, "viewer: cannot write %s: %s\n", path.c_str(), error.message().c_str());
    std::filesystem::remove(temporary, error);
    return false;
  }
  return true;
}

// An offscreen RGBA8 target for --screenshot (a headless context has no window).
struct Offscreen {
  GLuint fbo = 0, color = 0;
  bool create(int width, int height) {
    glCreateTextures(GL_TEXTURE_2D, 1, &color);
    glTextureStorage2D(color, 1, GL_RGBA8, width, height);
    glCreateFramebuffers(1, &fbo);
    glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT0, color, 0);
    return glCheckNamedFramebufferStatus(fbo, GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{
      "viewer: plays a cooked pack with panels for its objects, clips, states, parameters, "
      "events and a timeline (keys: see samples/viewer/README.md)",
      "viewer"};
  std::string path, size = "960x540", screenshot;
  long rate = 60, max_frames = -1;
  int64_t start_tick = 0;
  int width = 960, height = 540;
  cli.add_option("PACK", path, "the pack to open (animpack cook's output)")->required();
  cli.add_option("--rate", rate, "ticks a second")
      ->check(CLI::Range(1L, 10000L))
      ->capture_default_str();
  cli.add_option("--size", size, "the window (or screenshot) size, WxH, 1 to 8192 each")
      ->check([&](const std::string& text) -> std::string {
        char tail = 0;
        if (std::sscanf(text.c_str(), "%dx%d%c", &width, &height, &tail) != 2 || width < 1 ||
            height < 1 || width > 8192 || height > 8192) {
          return "not WxH with 1 to 8192 each: " + text;
        }
        return "";
      })
      ->capture_default_str();
  cli.add_option("--frames", max_frames, "quit after N frames (smoke runs)")
      ->check(CLI::Range(1L, 100000000L));
  cli.add_option("--screenshot", screenshot,
                 "draw one frame headless (EGL, or a hidden window) and write it as this PNG");
  cli.add_option("--tick", start_tick, "the tick to start at (paused with --screenshot)")
      ->check(CLI::Range(int64_t{0}, int64_t{10000000}));
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }
  // The check ran on the default too: read the size the option holds.
  if (std::sscanf(size.c_str(), "%dx%d", &width, &height) != 2) return 2;

  auto pack = Pack::open(path);
  if (!pack) {
    std::fprintf(stderr, "viewer: %s\n", pack.error().message());
    return pack.error().code() == ErrorCode::kIo ? 2 : 1;
  }
  App app;
  app.pack = &*pack;
  app.rate = static_cast<int32_t>(rate);
  for (const ObjectInfo& info : pack->objects()) {
    app.initial_clip.push_back(info.animated && info.animation.blend.empty() ? info.animation.clip
                                                                             : -1);
  }
  if (auto r = app.restart(); !r) {
    std::fprintf(stderr, "viewer: %s\n", r.error().message());
    return 1;
  }
  for (uint32_t o = 0; o < app.player->object_count(); ++o) {
    const ObjectId id{o};
    if (app.player->animator(id) != nullptr || app.player->sprite(id) != nullptr) {
      app.animated.push_back(id);
    }
  }
  app.shown = clip_box(*pack, app.rate);
  app.timeline = timeline_ticks(*pack, app.rate);

  const bool headless = !screenshot.empty();
  gl::WindowOptions options;
  options.width = width;
  options.height = height;
  options.title = "animpack viewer";
  Result<gl::Context> context =
      headless ? gl::Context::create_headless() : gl::Context::create_window(options);
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
  // Keys first: ImGui's GLFW backend chains to the callbacks installed before it.
  GLFWwindow* window = headless ? nullptr : context->window();
  if (window != nullptr) {
    glfwSetWindowUserPointer(window, &app);
    glfwSetKeyCallback(window, on_key);
  }
  IMGUI_CHECKVERSION();  // the backends compiled here against libimgui.a's layout
  ImGui::CreateContext();
  style_ui();
  if (window != nullptr && !ImGui_ImplGlfw_InitForOpenGL(window, true)) {
    std::fprintf(stderr, "viewer: ImGui's GLFW backend failed\n");
    return 1;
  }
  if (!ImGui_ImplOpenGL3_Init("#version 450")) {
    std::fprintf(stderr, "viewer: ImGui's OpenGL 3 backend failed\n");
    return 1;
  }
  const std::string pack_name = std::filesystem::path(path).filename().string();
  ViewTexture tex;
  int status = 0;
  app.seek(start_tick);

  if (headless) {
    app.paused = true;
    Offscreen target;
    if (!target.create(width, height)) {
      std::fprintf(stderr, "viewer: the offscreen framebuffer is incomplete\n");
      return 1;
    }
    // A few frames, so that ImGui has laid every window out and measured the frame time.
    for (int i = 0; i < 3 && status == 0; ++i) {
      if (auto r = frame(app, *renderer, *scene, tex, pack_name, false, width, height, target.fbo);
          !r) {
        std::fprintf(stderr, "viewer: %s\n", r.error().message());
        status = 1;
      }
    }
    if (status == 0) {
      glBindFramebuffer(GL_READ_FRAMEBUFFER, target.fbo);
      if (write_screenshot(screenshot, width, height)) {
        std::printf("viewer: %s (%dx%d, tick %lld, %s)\n", screenshot.c_str(), width, height,
                    static_cast<long long>(app.player->tick()), context->info().backend.c_str());
      } else {
        status = 1;
      }
      glBindFramebuffer(GL_FRAMEBUFFER, 0);
    }
    if (auto r = context->check_errors("screenshot"); !r) {
      std::fprintf(stderr, "viewer: %s\n", r.error().message());
      status = 1;
    }
  } else {
    double last = glfwGetTime(), owed = 0;  // ticks owed to real time
    std::string shown_title;
    for (long n = 0; !context->should_close() && (max_frames < 0 || n < max_frames); ++n) {
      context->poll_events();
      const double now = glfwGetTime();
      if (!app.paused) {
        owed += (now - last) * static_cast<double>(rate) * std::ldexp(1.0, app.speed_log2);
        owed = std::min(owed, 8.0);  // a slow frame does not make the scene race afterwards
        while (owed >= 1.0) {
          app.advance();
          owed -= 1.0;
        }
      } else {
        for (; app.steps > 0; --app.steps) app.advance();
      }
      last = now;
      int fb_width = 0, fb_height = 0;
      if (!context->framebuffer_size(&fb_width, &fb_height) || fb_width < 1 || fb_height < 1) {
        continue;  // minimised
      }
      if (auto r = frame(app, *renderer, *scene, tex, pack_name, true, fb_width, fb_height, 0);
          !r) {
        std::fprintf(stderr, "viewer: %s\n", r.error().message());
        status = 1;
        break;
      }
      (void)context->swap_buffers();
      const std::string t = title(app, pack_name);
      if (t != shown_title) {
        glfwSetWindowTitle(window, t.c_str());
        shown_title = t;
      }
    }
    if (max_frames >= 0) std::printf("viewer: %s\n", shown_title.c_str());
  }
  ImGui_ImplOpenGL3_Shutdown();
  if (window != nullptr) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  if (tex.texture != 0) glDeleteTextures(1, &tex.texture);
  return status;
}
