// `animpack preview PACK --object NAME [--clip C] [--frames K] [--size WxH] -o OUT.png`:
// poses one object of a pack at evenly spaced ticks of its clips, traces each pose with
// animpack::trace and lays the frames out as one labelled PNG (docs/cli.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/animator.h"
#include "animpack/bounds.h"
#include "animpack/camera.h"
#include "animpack/compiler/diagnostics.h"
#include "animpack/compiler/output_check.h"
#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/scene_player.h"
#include "animpack/sprite.h"
#include "animpack/tracer/framing.h"
#include "animpack/tracer/image.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"
#include "commands.h"
#include "play_commands.h"

namespace animpack::cli {
namespace {

const char* const kPreviewUsage =
    "usage: animpack preview PACK.anpk --object NAME [--clip C] [--frames K] [--size WxH]\n"
    "                        [--threads N] [--set PARAMETER=VALUE]... [--state STATE]\n"
    "                        -o OUT.png\n"
    "\n"
    "Traces one object of a pack and writes one PNG. With --clip, a filmstrip of K evenly\n"
    "spaced ticks of that clip (skeletal or sprite); without it, a contact sheet: one row per\n"
    "clip of the object, K ticks each (a sprite: every frame of every clip), each row\n"
    "labelled with its clip's order and name (an additive clip added to the rest pose).\n"
    "With --set or --state, a filmstrip of the object's state machine instead: K evenly\n"
    "spaced ticks over one cycle of the state it plays at tick 0, stepped from tick 0 with\n"
    "the parameters set at tick 0 (transitions fire as they would in the game).\n"
    "\n"
    "  --object NAME   the object to show (required)\n"
    "  --clip C        a clip of the object, by name or index\n"
    "  --frames K      frames per clip, 1 to 64 (default 8)\n"
    "  --size WxH      the size of each frame in pixels, 16 to 2048 each (default 160x120)\n"
    "  --threads N     tracing threads, 0 to 256 (default 0: one per core)\n"
    "  --set P=V       sets state machine parameter P at tick 0: a number (float), true or\n"
    "                  false (bool; true fires a trigger); repeatable, in order\n"
    "  --state STATE   starts the state machine in STATE at tick 0\n"
    "  -o, --output F  the PNG to write\n";

constexpr int32_t kTickRate = 60;
constexpr int kLabelHeight = 11;  // the strip above each row: 7-pixel glyphs, 2 above
constexpr int64_t kMaxSheetPixels = int64_t{64} << 20;
constexpr trace::Rgba kSheetBackground{16, 17, 21, 255};
constexpr trace::Rgba kRowLabel{225, 228, 235, 255};
constexpr trace::Rgba kCellLabel{150, 155, 165, 255};

// A state machine's filmstrip covers at most this many seconds of its state's cycle.
constexpr double kMaxStateSeconds = 600.0;

struct PreviewOptions {
  std::vector<std::string> positional;
  std::string object, clip, output;
  MachineSettings settings;
  bool has_clip = false;
  int frames = 8, width = 160, height = 120, threads = 0;
};

bool parse_int(std::string_view text, int lo, int hi, int* out) {
  if (text.empty() || text.size() > 9) return false;
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

// One frame of the sheet: a clip at a tick (skeletal) or an atlas frame (sprite).
struct Cell {
  uint16_t clip = 0;
  int64_t tick = 0;
  uint32_t frame = 0;
  std::string label;
  int stepped = -1;  // a state machine's frame: its index in Subject's stepped palettes
};

// Tick i of k evenly spaced over `ticks`: the first tick at or after i * ticks / k, so
// that a sprite clip of k frames shows each of them (frame boundaries fall on such
// points exactly).
int64_t spaced_tick(int i, double ticks, int k) {
  return static_cast<int64_t>(std::ceil(static_cast<double>(i) * ticks / k - 1e-9));
}

struct Row {
  std::string label;
  std::vector<Cell> cells;
};

// The object being previewed and what poses it.
class Subject {
 public:
  Subject(const Pack& pack, int object) : object_(object) {
    info_ = &pack.objects()[static_cast<size_t>(object)];
    if (info_->animated && info_->animation.sprite_sheet >= 0) {
      sheet_ = &pack.sprite_sheets()[static_cast<size_t>(info_->animation.sprite_sheet)];
    } else if (info_->mesh >= 0) {
      const int rig = pack.meshes()[static_cast<size_t>(info_->mesh)].rig;
      if (rig >= 0) rig_ = &pack.rig(rig);
    }
    Trs trs{info_->position, info_->rotation, info_->scale};
    // A camera-facing object faces the preview camera, which looks down -z.
    if (info_->face_camera) trs.rotation = Quat{};
    model_ = to_matrix(trs);
  }

  bool sprite() const { return sheet_ != nullptr; }
  const Mat4& model() const { return model_; }
  bool animated() const { return sheet_ != nullptr || rig_ != nullptr; }
  int clip_count() const {
    return sheet_ ? static_cast<int>(sheet_->clips().size()) : (rig_ ? rig_->clip_count() : 0);
  }
  std::string_view clip_name(int c) const {
    return sheet_ ? std::string_view(sheet_->clips()[static_cast<size_t>(c)].name())
                  : std::string_view(rig_->clips()[static_cast<size_t>(c)].name());
  }

  // The clip named `text` (or numbered, when no clip has that name), or -1.
  int find_clip(const std::string& text) const {
    for (int c = 0; c < clip_count(); ++c) {
      if (clip_name(c) == text) return c;
    }
    int index = -1;
    if (parse_int(text, 0, clip_count() - 1, &index)) return index;
    return -1;
  }

  // The row of clip c: K evenly spaced ticks over the clip (a sprite without
  // `evenly`: every frame of the clip).
  Row row(int c, int frames, bool evenly) const {
    Row r;
    char label[160];
    const auto clip = static_cast<uint16_t>(c);
    if (sheet_) {
      const SpriteClip& sc = sheet_->clips()[static_cast<size_t>(c)];
      std::snprintf(label, sizeof label, "%d %s  %zu FRAMES %g FPS", c, sc.name().c_str(),
                    sc.frames().size(), static_cast<double>(sc.fps()));
      r.label = label;
      if (!evenly) {
        for (uint32_t f : sc.frames()) r.cells.push_back(sprite_cell(clip, 0, f));
        return r;
      }
      // K ticks over one pass of the clip, through a player (its playback's frames).
      std::optional<SpritePlayer> player;
      if (auto p = SpritePlayer::create(sheet_, kTickRate)) player.emplace(std::move(*p));
      const double ticks =
          static_cast<double>(sc.frames().size()) / static_cast<double>(sc.fps()) * kTickRate;
      if (player && player->play(clip, 0)) {
        for (int i = 0; i < frames; ++i) {
          const int64_t tick = spaced_tick(i, ticks, frames);
          r.cells.push_back(sprite_cell(clip, tick, player->frame(tick)));
        }
      }
      return r;
    }
    const Clip& rc = rig_->clips()[static_cast<size_t>(c)];
    std::snprintf(label, sizeof label, "%d %s  %.2f S", c, rc.name().c_str(),
                  static_cast<double>(rc.duration()));
    r.label = label;
    const double ticks = static_cast<double>(rc.duration()) * kTickRate;
    for (int i = 0; i < frames; ++i) {
      Cell cell;
      cell.clip = clip;
      cell.tick = spaced_tick(i, ticks, frames);
      cell.label = "T" + std::to_string(cell.tick);
      r.cells.push_back(cell);
    }
    return r;
  }

  // The state machine's row: `settings` applied at tick 0, then K evenly spaced ticks over
  // one cycle (at tick 0's weights and speed, after its update) of the state it plays at
  // tick 0, each posed by stepping the object's machine and animator from tick 0 as
  // ScenePlayer::step does.
  Result<Row> state_row(const Pack& pack, const MachineSettings& settings, int frames) {
    Result<ScenePlayer> created = ScenePlayer::create(&pack, kTickRate);
    if (!created) return created.error();
    ScenePlayer& player = *created;
    const ObjectId id{static_cast<uint32_t>(object_)};
    if (Result<void> r = apply_settings(player, id, settings); !r) return r.error();
    StateMachine* machine = player.state_machine(id);
    Animator* animator = player.animator(id);
    Row r;
    char label[160];
    double seconds = 0.0;
    // Tick 0 first: the settings reach the machine in its update (a transition may fire).
    machine->update(0);
    (void)animator->advance(0);
    if (machine->state() >= 0) {
      // One cycle: the clip's duration, or a blend space's weighted durations (the synced
      // mix's cycle), over the speed.
      const StateDef& st = machine->graph().states[static_cast<size_t>(machine->state())];
      const Rig& rig = *animator->rig();
      if (st.clip >= 0) {
        seconds = rig.clips()[static_cast<size_t>(st.clip)].duration();
      } else {
        const std::span<const float> w = machine->blend_weights();
        double sum = 0.0;
        for (size_t i = 0; i < w.size() && i < st.points.size(); ++i) {
          seconds += static_cast<double>(w[i]) * rig.clips()[st.points[i].clip].duration();
          sum += w[i];
        }
        if (sum > 0.0) seconds /= sum;
      }
      float speed = st.speed;
      if (st.speed_parameter >= 0) {
        const std::string& name =
            machine->graph().parameters[static_cast<size_t>(st.speed_parameter)].name;
        if (Result<float> v = player.parameter(id, name)) speed = *v;
      }
      if (speed > 0.0f) seconds /= speed;
      seconds = std::min(seconds, kMaxStateSeconds);
      std::snprintf(label, sizeof label, "STATE %s  %.2f S",
                    std::string(machine->state_name()).c_str(), seconds);
    } else {
      // Layers only: one cycle of the longest layer (its clip over its speed).
      const Rig& rig = *animator->rig();
      for (const LayerDef& l : machine->graph().layers) {
        const double d = rig.clips()[l.clip].duration();
        seconds = std::max(seconds, l.speed > 0.0f ? d / l.speed : d);
      }
      seconds = std::min(seconds, kMaxStateSeconds);
      std::snprintf(label, sizeof label, "LAYERS  %.2f S", seconds);
    }
    r.label = label;
    const double ticks = seconds * kTickRate;
    int64_t t = 1;
    for (int i = 0; i < frames; ++i) {
      const int64_t tick = spaced_tick(i, ticks, frames);
      for (; t <= tick; ++t) {
        machine->update(t);
        (void)animator->advance(t);
      }
      animator->evaluate(tick);
      Cell cell;
      cell.tick = tick;
      cell.stepped = static_cast<int>(stepped_.size());
      cell.label = "T" + std::to_string(tick);
      if (machine->state() >= 0) cell.label += " " + std::string(machine->state_name());
      stepped_.emplace_back(animator->palette().begin(), animator->palette().end());
      r.cells.push_back(std::move(cell));
    }
    return r;
  }

  // The snapshot of one cell. The palette lives in this Subject until the next call.
  Result<Posed> pose(const Cell& cell) {
    Posed posed;
    posed.tick = cell.tick;
    PosedObject o;
    o.object = object_;
    o.mesh = info_->mesh;
    o.model = model_;
    if (sheet_) {
      o.sprite_sheet = info_->animation.sprite_sheet;
      o.sprite_frame = cell.frame;
    } else if (cell.stepped >= 0) {
      o.palette = stepped_[static_cast<size_t>(cell.stepped)];
      o.previous_palette = o.palette;
    } else if (rig_) {
      if (!animator_) {
        Result<Animator> a = Animator::create(rig_, kTickRate);
        if (!a) return a.error();
        animator_.emplace(std::move(*a));
      }
      if (rig_->clips()[cell.clip].additive() != AdditiveReference::kNone) {
        // An additive clip shows its deltas added to the rest pose.
        animator_->stop();
        LayerOptions layer;
        layer.mode = LayerMode::kAdditive;
        if (auto r = animator_->add_overlay(cell.clip, layer, 0); !r) return r.error();
      } else if (auto r = animator_->play(cell.clip, 0); !r) {
        return r.error();
      }
      animator_->evaluate(cell.tick);
      o.palette = animator_->palette();
      o.previous_palette = o.palette;
    }
    posed.objects.push_back(o);
    return posed;
  }

 private:
  static Cell sprite_cell(uint16_t clip, int64_t tick, uint32_t frame) {
    Cell cell;
    cell.clip = clip;
    cell.tick = tick;
    cell.frame = frame;
    cell.label = "F" + std::to_string(frame);
    return cell;
  }

  int object_;
  const ObjectInfo* info_ = nullptr;
  const SpriteSheet* sheet_ = nullptr;
  const Rig* rig_ = nullptr;
  Mat4 model_;
  std::optional<Animator> animator_;
  std::vector<std::vector<Mat4>> stepped_;  // state_row's palettes, one per cell
};

// A camera that frames `bounds` in a width x height frame (framing.h): perspective from
// the front, a little right and above, for meshes; orthographic straight on for sprites.
Camera fit_camera(const trace::Aabb& bounds, int width, int height, bool sprite) {
  trace::FramingOptions framing;
  if (sprite) {
    framing.view = {0, 0, 1};
    framing.orthographic = true;
  }
  return trace::frame_box(bounds, width, height, framing);
}

// A grey ground under the object: a square 24 radii wide at the bounds' lowest y.
Result<void> add_ground(trace::TraceScene& scene, const trace::Aabb& bounds) {
  const Vec3 c = bounds.centre(), e = bounds.extent();
  const float r = std::max(0.5f * std::sqrt(dot(e, e)), 1e-3f) * 12.0f;
  const float y = bounds.lo.y;
  const Vec3 p[4] = {
      {c.x - r, y, c.z - r}, {c.x + r, y, c.z - r}, {c.x + r, y, c.z + r}, {c.x - r, y, c.z + r}};
  const Vec3 n[4] = {{0, 1, 0}, {0, 1, 0}, {0, 1, 0}, {0, 1, 0}};
  const uint32_t idx[6] = {0, 2, 1, 0, 3, 2};
  trace::Material ground;
  ground.base_color = {0.14f, 0.15f, 0.16f, 1.0f};  // linear: about 105 of 255 in sRGB
  const uint32_t mat = scene.add_material(ground);
  if (auto res = scene.add_mesh({p, n, {}, idx, trace::kNoObject, mat}); !res) return res.error();
  scene.build();
  return ok();
}

int run_preview(const CLI::App& command, const PreviewOptions& o) {
  if (o.positional.size() != 1) {
    return usage_error(command,
                       "needs one PACK.anpk (" + std::to_string(o.positional.size()) + " given)");
  }
  if (o.object.empty()) return usage_error(command, "--object NAME is needed");
  if (o.output.empty()) return usage_error(command, "-o OUT.png is needed");
  const std::string& path = o.positional[0];
  // The PNG never replaces the pack it shows (or a folder, FIFO or device).
  if (std::string problem = output_problem(o.output, "PNG", {path}, nullptr, "");
      !problem.empty()) {
    std::fprintf(stderr, "animpack: %s; nothing written\n", problem.c_str());
    return kExitUsage;
  }
  Result<Pack> pack = Pack::open(path);
  if (!pack) {
    std::fprintf(stderr, "animpack: %s\n", printable(pack.error().message()).c_str());
    return pack.error().code() == ErrorCode::kIo ? kExitUsage : kExitErrors;
  }
  const int object = pack->find_object(o.object);
  if (object < 0) {
    std::string names;
    for (const ObjectInfo& info : pack->objects()) {
      names += (names.empty() ? "" : ", ") + printable(info.name);
    }
    std::fprintf(stderr, "animpack: %s has no object '%s' (its objects: %s)\n", path.c_str(),
                 o.object.c_str(), names.c_str());
    return kExitErrors;
  }
  Subject subject(*pack, object);
  if (!subject.animated() || subject.clip_count() == 0) {
    std::fprintf(stderr, "animpack: object '%s' has no clips to preview\n", o.object.c_str());
    return kExitErrors;
  }
  std::vector<Row> rows;
  if (!o.settings.empty()) {
    if (o.has_clip) {
      return usage_error(command,
                         "--clip shows a clip, --set and --state the state machine: give one "
                         "or the other");
    }
    Result<Row> row = subject.state_row(*pack, o.settings, o.frames);
    if (!row) {
      std::fprintf(stderr, "animpack: %s\n", printable(row.error().message()).c_str());
      return kExitErrors;
    }
    rows.push_back(std::move(*row));
  } else if (o.has_clip) {
    const int c = subject.find_clip(o.clip);
    if (c < 0) {
      std::string names;
      for (int k = 0; k < subject.clip_count(); ++k) {
        names += (k ? ", " : "") + printable(subject.clip_name(k));
      }
      std::fprintf(stderr, "animpack: object '%s' has no clip '%s' (its clips: %s)\n",
                   o.object.c_str(), o.clip.c_str(), names.c_str());
      return kExitErrors;
    }
    rows.push_back(subject.row(c, o.frames, true));
  } else {
    for (int c = 0; c < subject.clip_count(); ++c) {
      rows.push_back(subject.row(c, o.frames, !subject.sprite()));
    }
  }
  size_t columns = 1;
  for (const Row& r : rows) columns = std::max(columns, r.cells.size());
  const int64_t sheet_w = static_cast<int64_t>(columns) * o.width;
  const int64_t sheet_h = static_cast<int64_t>(rows.size()) * (kLabelHeight + o.height);
  if (sheet_w > 16384 || sheet_h > 16384 || sheet_w * sheet_h > kMaxSheetPixels) {
    std::fprintf(stderr,
                 "animpack: a sheet of %lldx%lld pixels is too large; use a smaller "
                 "--size or --frames, or --clip\n",
                 static_cast<long long>(sheet_w), static_cast<long long>(sheet_h));
    return kExitUsage;
  }

  trace::StageOptions stage;
  stage.cardless_sprites = true;
  auto staged = [&](const Cell& cell) -> Result<trace::TraceScene> {
    Result<Posed> posed = subject.pose(cell);
    if (!posed) return posed.error();
    return trace::stage_posed(*pack, *posed, stage);
  };

  // Pass 1: one camera framing every pose, so the frames line up: the union of the mesh's
  // posed bounds (bounds.h: what ScenePlayer::world_bounds gives, from the pack's joint
  // boxes, without skinning) over every cell; sprites and packs without bounds (format 1)
  // by staging each cell.
  const ObjectInfo& info = pack->objects()[static_cast<size_t>(object)];
  const bool boxed =
      !subject.sprite() && info.mesh >= 0 && pack->mesh_bounds(info.mesh).bind.valid();
  const Mat4 model = subject.model();
  trace::Aabb bounds;
  for (const Row& r : rows) {
    for (const Cell& cell : r.cells) {
      if (boxed) {
        Result<Posed> posed = subject.pose(cell);
        if (!posed) {
          std::fprintf(stderr, "animpack: %s: %s\n", o.object.c_str(),
                       printable(posed.error().message()).c_str());
          return kExitErrors;
        }
        const Box box = transform_box(
            posed_bounds(pack->mesh_bounds(info.mesh), posed->objects[0].palette), model);
        if (box.valid()) {
          bounds.grow(box.lo);
          bounds.grow(box.hi);
        }
        continue;
      }
      Result<trace::TraceScene> scene = staged(cell);
      if (!scene) {
        std::fprintf(stderr, "animpack: %s: %s\n", o.object.c_str(),
                     printable(scene.error().message()).c_str());
        return kExitErrors;
      }
      bounds.merge(scene->bounds());
    }
  }
  if (!bounds.valid()) {
    std::fprintf(stderr, "animpack: object '%s' has nothing to draw\n", o.object.c_str());
    return kExitErrors;
  }
  trace::RenderOptions render;
  render.width = o.width;
  render.height = o.height;
  render.threads = o.threads;
  render.camera = fit_camera(bounds, o.width, o.height, subject.sprite());
  if (subject.sprite()) render.background = {0.16f, 0.17f, 0.2f};

  // Pass 2: trace and lay out.
  trace::Image sheet(static_cast<int>(sheet_w), static_cast<int>(sheet_h), kSheetBackground);
  for (size_t ri = 0; ri < rows.size(); ++ri) {
    const Row& r = rows[ri];
    const int y = static_cast<int>(ri) * (kLabelHeight + o.height);
    trace::draw_text(sheet, 3, y + 2, r.label, kRowLabel);
    for (size_t ci = 0; ci < r.cells.size(); ++ci) {
      Result<trace::TraceScene> scene = staged(r.cells[ci]);
      if (scene && !subject.sprite()) {
        if (auto g = add_ground(*scene, bounds); !g) scene = g.error();
      }
      if (!scene) {
        std::fprintf(stderr, "animpack: %s: %s\n", o.object.c_str(),
                     printable(scene.error().message()).c_str());
        return kExitErrors;
      }
      Result<trace::Frame> frame = trace::render(*scene, render);
      if (!frame) {
        std::fprintf(stderr, "animpack: %s\n", printable(frame.error().message()).c_str());
        return kExitErrors;
      }
      const int x = static_cast<int>(ci) * o.width;
      trace::blit(sheet, frame->color, x, y + kLabelHeight);
      trace::draw_text(sheet, x + 3, y + kLabelHeight + o.height - 10, r.cells[ci].label,
                       kCellLabel);
    }
  }
  const std::vector<uint8_t> png = trace::encode_png(sheet);
  if (png.empty()) {
    std::fprintf(stderr, "animpack: %s: PNG encoding failed\n", o.output.c_str());
    return kExitUsage;
  }
  if (std::string err = write_file_atomically(o.output, png); !err.empty()) {
    std::fprintf(stderr, "animpack: %s\n", err.c_str());
    return kExitUsage;
  }
  std::fprintf(stderr, "animpack: %s: %zu clip(s) x %zu frame(s) of '%s' -> %s (%lldx%lld)\n",
               path.c_str(), rows.size(), columns, o.object.c_str(), o.output.c_str(),
               static_cast<long long>(sheet_w), static_cast<long long>(sheet_h));
  return kExitOk;
}

// --size's value: WxH, each 16 to 2048.
CLI::Validator frame_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const size_t x = text.find('x');
        int w = 0, h = 0;
        if (x != std::string::npos &&
            parse_int(std::string_view(text).substr(0, x), 16, 2048, &w) &&
            parse_int(std::string_view(text).substr(x + 1), 16, 2048, &h)) {
          return "";
        }
        return "--size takes WxH, each 16 to 2048, not '" + printable(text) + "'";
      },
      "WxH");
}

}  // namespace

void add_preview_command(CLI::App& app, int* status) {
  CLI::App* sub = add_command(app, "preview", "traced filmstrips of an object's clips as one PNG",
                              kPreviewUsage);
  auto o = std::make_shared<PreviewOptions>();
  sub->add_option("PACK", o->positional);
  sub->add_option("-o,--output", o->output);
  sub->add_option("--object", o->object);
  sub->add_option_function<std::string>("--clip", [o](const std::string& clip) {
    o->clip = clip;
    o->has_clip = true;
  });
  sub->add_option("--frames", o->frames)->check(whole_number("--frames", 1, 64));
  sub->add_option("--threads", o->threads)->check(whole_number("--threads", 0, 256));
  sub->add_option_function<std::string>(
         "--size",
         [o](const std::string& size) {
           const size_t x = size.find('x');
           parse_int(std::string_view(size).substr(0, x), 16, 2048, &o->width);
           parse_int(std::string_view(size).substr(x + 1), 16, 2048, &o->height);
         })
      ->check(frame_size());
  add_machine_options(sub, &o->settings);
  on_run(sub, status, [sub, o] { return run_preview(*sub, *o); });
}

}  // namespace animpack::cli
