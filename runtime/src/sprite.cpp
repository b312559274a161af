// Sprite atlases, clips and the tick-stepped sprite player (see animpack/sprite.h).
// Determinism: the step uses only + - * / and std::floor in double (built with
// -ffp-contract=off); everything else is integer arithmetic, timed clips' frame ticks
// included.
#include "animpack/sprite.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "animpack/limits.h"

namespace animpack {
namespace {

constexpr int64_t kNoStep = std::numeric_limits<int64_t>::max();
constexpr int64_t kStepLimit = int64_t{1} << 62;  // step() clamps to +-2^62 (no overflow)

// How many cells of `cell` pixels fit along `image` pixels.
uint64_t cells_along(uint64_t image, uint64_t cell, uint64_t spacing, uint64_t margin) {
  if (image < 2 * margin + cell) return 0;
  return (image - 2 * margin - cell) / (cell + spacing) + 1;
}

// tick - base as a double; the subtraction wraps rather than overflowing.
double ticks_since(int64_t tick, int64_t base) {
  return static_cast<double>(
      static_cast<int64_t>(static_cast<uint64_t>(tick) - static_cast<uint64_t>(base)));
}

}  // namespace

// ---------------------------------------------------------------------------- Atlas

Result<Atlas> Atlas::grid(Size image, Size cell, uint32_t count, GridSpacing spacing) {
  if (image.width == 0 || image.height == 0) {
    return Error::make(ErrorCode::kBadAtlas, "the image is %u x %u", image.width, image.height);
  }
  if (cell.width == 0 || cell.height == 0) {
    return Error::make(ErrorCode::kBadAtlas, "the cell is %u x %u", cell.width, cell.height);
  }
  if (count == 0) return Error::make(ErrorCode::kBadAtlas, "a grid of 0 cells");
  const uint64_t columns = cells_along(image.width, cell.width, spacing.spacing, spacing.margin);
  const uint64_t rows = cells_along(image.height, cell.height, spacing.spacing, spacing.margin);
  if (count > columns * rows) {
    return Error::make(ErrorCode::kBadAtlas, "%u cells of %u x %u, but only %llu fit in %u x %u",
                       count, cell.width, cell.height,
                       static_cast<unsigned long long>(columns * rows), image.width, image.height);
  }
  std::vector<PixelRect> frames(count);
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t column = i % columns;
    const uint64_t row = i / columns;
    frames[i].x = static_cast<uint32_t>(spacing.margin + column * (cell.width + spacing.spacing));
    frames[i].y = static_cast<uint32_t>(spacing.margin + row * (cell.height + spacing.spacing));
    frames[i].width = cell.width;
    frames[i].height = cell.height;
  }
  return Atlas(image, std::move(frames));
}

Result<Atlas> Atlas::rects(Size image, std::vector<PixelRect> rects) {
  if (image.width == 0 || image.height == 0) {
    return Error::make(ErrorCode::kBadAtlas, "the image is %u x %u", image.width, image.height);
  }
  if (rects.empty()) return Error::make(ErrorCode::kBadAtlas, "an atlas without rects");
  for (size_t i = 0; i < rects.size(); ++i) {
    const PixelRect& r = rects[i];
    const bool empty = r.width == 0 || r.height == 0;
    const bool inside =
        uint64_t{r.x} + r.width <= image.width && uint64_t{r.y} + r.height <= image.height;
    if (empty || !inside) {
      return Error::make(ErrorCode::kBadAtlas, "rect %zu (x %u, y %u, %u x %u) is %s %u x %u", i,
                         r.x, r.y, r.width, r.height, empty ? "empty, in the" : "not inside the",
                         image.width, image.height);
    }
  }
  return Atlas(image, std::move(rects));
}

Result<Atlas> Atlas::create(Size image, std::vector<AtlasFrame> frames) {
  std::vector<PixelRect> rects(frames.size());
  for (size_t i = 0; i < frames.size(); ++i) rects[i] = frames[i].rect;
  Result<Atlas> atlas = Atlas::rects(image, std::move(rects));
  if (!atlas) return atlas;
  bool placed = false;
  for (size_t i = 0; i < frames.size(); ++i) {
    const PixelRect& r = frames[i].rect;
    const FramePlacement& p = frames[i].placement;
    const PixelRect& t = p.trimmed;
    const uint32_t drawn_w = p.rotated ? r.height : r.width;
    const uint32_t drawn_h = p.rotated ? r.width : r.height;
    if (p.source.width == 0 || p.source.height == 0) {
      return Error::make(ErrorCode::kBadAtlas, "frame %zu has a source size of %u x %u", i,
                         p.source.width, p.source.height);
    }
    if (t.width != drawn_w || t.height != drawn_h) {
      return Error::make(ErrorCode::kBadAtlas,
                         "frame %zu is trimmed to %u x %u but its pixels are %u x %u%s", i, t.width,
                         t.height, drawn_w, drawn_h, p.rotated ? " (rotated)" : "");
    }
    if (uint64_t{t.x} + t.width > p.source.width || uint64_t{t.y} + t.height > p.source.height) {
      return Error::make(ErrorCode::kBadAtlas,
                         "frame %zu's trimmed box (x %u, y %u, %u x %u) is not inside its "
                         "source size %u x %u",
                         i, t.x, t.y, t.width, t.height, p.source.width, p.source.height);
    }
    if (!std::isfinite(p.pivot_x) || !std::isfinite(p.pivot_y)) {
      return Error::make(ErrorCode::kBadAtlas, "frame %zu's pivot is not finite", i);
    }
    const bool is_default = !p.rotated && t.x == 0 && t.y == 0 && p.source.width == r.width &&
                            p.source.height == r.height &&
                            p.pivot_x == static_cast<float>(r.width) * 0.5f &&
                            p.pivot_y == static_cast<float>(r.height) * 0.5f;
    placed = placed || !is_default;
  }
  if (placed) {
    atlas->placements_.resize(frames.size());
    for (size_t i = 0; i < frames.size(); ++i) atlas->placements_[i] = frames[i].placement;
  }
  bool named = false;
  for (const AtlasFrame& f : frames) named = named || !f.name.empty();
  if (named) {
    atlas->names_.resize(frames.size());
    for (size_t i = 0; i < frames.size(); ++i) atlas->names_[i] = std::move(frames[i].name);
  }
  return atlas;
}

Result<FramePlacement> Atlas::placement(uint32_t frame) const {
  if (frame >= frame_count()) {
    return Error::make(ErrorCode::kBadFrame, "frame %u of an atlas of %u", frame, frame_count());
  }
  if (!placements_.empty()) return placements_[frame];
  const PixelRect& r = frames_[frame];
  FramePlacement p;
  p.source = {r.width, r.height};
  p.trimmed = {0, 0, r.width, r.height};
  p.pivot_x = static_cast<float>(r.width) * 0.5f;
  p.pivot_y = static_cast<float>(r.height) * 0.5f;
  return p;
}

std::string_view Atlas::name(uint32_t frame) const {
  if (frame >= names_.size()) return {};
  return names_[frame];
}

Result<SpriteDraw> Atlas::draw(uint32_t frame) const {
  Result<UvRect> uv_rect = uv(frame);
  if (!uv_rect) return uv_rect.error();
  Result<FramePlacement> p = placement(frame);
  if (!p) return p.error();
  return SpriteDraw{frame, *uv_rect, *p};
}

Result<UvRect> Atlas::uv(uint32_t frame) const {
  if (frame >= frame_count()) {
    return Error::make(ErrorCode::kBadFrame, "frame %u of an atlas of %u", frame, frame_count());
  }
  const PixelRect& r = frames_[frame];
  const double x = r.x;
  const double y = r.y;
  const double w = size_.width;
  const double h = size_.height;
  return UvRect{static_cast<float>(x / w), static_cast<float>(y / h),
                static_cast<float>((x + r.width) / w), static_cast<float>((y + r.height) / h)};
}

// ----------------------------------------------------------------------- SpriteClip

Result<SpriteClip> SpriteClip::create(std::string name, std::vector<uint32_t> frames, float fps,
                                      Playback playback, std::vector<FrameEvent> events) {
  if (frames.empty()) {
    return Error::make(ErrorCode::kBadFrame, "sprite clip '%s' has no frames", name.c_str());
  }
  if (!(fps >= kMinSpriteFps && fps <= kMaxSpriteFps)) {
    return Error::make(ErrorCode::kInvalidArgument, "sprite clip '%s' has fps %g, not in [%g, %g]",
                       name.c_str(), static_cast<double>(fps), static_cast<double>(kMinSpriteFps),
                       static_cast<double>(kMaxSpriteFps));
  }
  if (events.size() > UINT16_MAX) {
    return Error::make(ErrorCode::kInvalidArgument, "sprite clip '%s' has %zu events (max %d)",
                       name.c_str(), events.size(), UINT16_MAX);
  }
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].frame >= frames.size()) {
      return Error::make(ErrorCode::kBadFrame,
                         "event %zu '%s' of sprite clip '%s' is on frame %u of %zu", i,
                         events[i].name.c_str(), name.c_str(), events[i].frame, frames.size());
    }
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const FrameEvent& a, const FrameEvent& b) { return a.frame < b.frame; });
  SpriteClip clip;
  clip.event_begin_.assign(frames.size() + 1, 0);
  for (const FrameEvent& e : events) ++clip.event_begin_[e.frame + 1];
  for (size_t f = 0; f < frames.size(); ++f) clip.event_begin_[f + 1] += clip.event_begin_[f];
  clip.name_ = std::move(name);
  clip.frames_ = std::move(frames);
  clip.fps_ = fps;
  clip.playback_ = playback;
  clip.events_ = std::move(events);
  return clip;
}

Result<SpriteClip> SpriteClip::create_timed(std::string name, std::vector<uint32_t> frames,
                                            std::vector<uint32_t> durations_ms, Playback playback,
                                            bool reverse, std::vector<FrameEvent> events) {
  if (durations_ms.size() != frames.size()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "sprite clip '%s' has %zu frames but %zu durations", name.c_str(),
                       frames.size(), durations_ms.size());
  }
  uint64_t total = 0;
  for (size_t i = 0; i < durations_ms.size(); ++i) {
    if (durations_ms[i] < 1 || durations_ms[i] > kMaxSpriteFrameMs) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "sprite clip '%s' frame %zu lasts %u ms, not in [1, %u]", name.c_str(), i,
                         durations_ms[i], kMaxSpriteFrameMs);
    }
    total += durations_ms[i];
  }
  if (total > kMaxSpriteClipMs) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "sprite clip '%s' lasts %llu ms in all, over the limit of %llu",
                       name.c_str(), static_cast<unsigned long long>(total),
                       static_cast<unsigned long long>(kMaxSpriteClipMs));
  }
  // The average rate; frames.empty() is reported by create() below (total 0 then).
  const float fps = total == 0 ? 1.0f
                               : static_cast<float>(static_cast<double>(frames.size()) * 1000.0 /
                                                    static_cast<double>(total));
  Result<SpriteClip> clip =
      create(std::move(name), std::move(frames), std::clamp(fps, kMinSpriteFps, kMaxSpriteFps),
             playback, std::move(events));
  if (!clip) return clip;
  clip->durations_ms_ = std::move(durations_ms);
  clip->reverse_ = reverse;
  return clip;
}

std::span<const FrameEvent> SpriteClip::events_at(uint32_t frame) const {
  if (frame >= frames_.size()) return {};
  const uint32_t begin = event_begin_[frame];
  return std::span<const FrameEvent>(events_).subspan(begin, event_begin_[frame + 1] - begin);
}

// ---------------------------------------------------------------------- SpriteSheet

Result<SpriteSheet> SpriteSheet::create(Atlas atlas, std::vector<SpriteClip> clips) {
  if (clips.size() > UINT16_MAX) {
    return Error::make(ErrorCode::kBadClip, "%zu sprite clips (max %d)", clips.size(), UINT16_MAX);
  }
  uint32_t max_events = 0;
  for (size_t c = 0; c < clips.size(); ++c) {
    const SpriteClip& clip = clips[c];
    for (size_t i = 0; i < clip.frames().size(); ++i) {
      if (clip.frames()[i] >= atlas.frame_count()) {
        return Error::make(ErrorCode::kBadFrame,
                           "sprite clip '%s' frame %zu is atlas frame %u of %u",
                           clip.name().c_str(), i, clip.frames()[i], atlas.frame_count());
      }
    }
    max_events = std::max(max_events, static_cast<uint32_t>(clip.events().size()));
  }
  // Unique names in O(n log n): a pack may hold 65535 clips.
  std::vector<std::string_view> names(clips.size());
  for (size_t c = 0; c < clips.size(); ++c) names[c] = clips[c].name();
  std::sort(names.begin(), names.end());
  if (const auto d = std::adjacent_find(names.begin(), names.end()); d != names.end()) {
    return Error::make(ErrorCode::kBadClip, "two sprite clips named '%.*s'",
                       static_cast<int>(d->size()), d->data());
  }
  return SpriteSheet(std::move(atlas), std::move(clips), max_events);
}

Result<uint16_t> SpriteSheet::find_clip(std::string_view name) const {
  for (size_t i = 0; i < clips_.size(); ++i) {
    if (clips_[i].name() == name) return static_cast<uint16_t>(i);
  }
  return Error::make(ErrorCode::kUnknownClip, "no sprite clip '%.*s'",
                     static_cast<int>(name.size()), name.data());
}

// --------------------------------------------------------------------- SpritePlayer

Result<SpritePlayer> SpritePlayer::create(const SpriteSheet* sheet, int32_t tick_rate,
                                          uint32_t event_capacity) {
  if (sheet == nullptr) return Error::make(ErrorCode::kInvalidArgument, "no sprite sheet");
  if (tick_rate <= 0) {
    return Error::make(ErrorCode::kBadTickRate, "tick rate %d is not positive", tick_rate);
  }
  SpritePlayer player;
  player.sheet_ = sheet;
  player.rate_ = tick_rate;
  const size_t capacity =
      event_capacity != 0 ? event_capacity : size_t{sheet->max_event_count()} * kSpriteMaxRepeats;
  player.events_.resize(capacity);
  player.passes_.resize(sheet->max_event_count());
  // Timed clips' position starts at this rate (the top of sprite.h), in integers.
  const std::span<const SpriteClip> clips = sheet->clips();
  size_t values = 0;
  for (const SpriteClip& c : clips) {
    const size_t n = c.durations_ms().size();
    values += n == 0 ? 0 : n == 1 ? 2 : 2 * n - 1;
  }
  player.timeline_.resize(values);
  player.timeline_begin_.resize(clips.size() + 1);
  const uint64_t rate = static_cast<uint64_t>(tick_rate);
  size_t at = 0;
  for (size_t c = 0; c < clips.size(); ++c) {
    player.timeline_begin_[c] = at;
    const std::span<const uint32_t> ms = clips[c].durations_ms();
    const size_t n = ms.size();
    if (n == 0) continue;
    int64_t* b = player.timeline_.data() + at;
    uint64_t sum = 0;  // at most kMaxSpriteClipMs, so sum * rate < 2^63
    for (size_t i = 0; i <= n; ++i) {
      b[i] = static_cast<int64_t>((sum * rate + 500) / 1000);
      if (i < n) sum += ms[clips[c].reverse() ? n - 1 - i : i];
    }
    if (b[n] == 0) b[n] = 1;  // a clip shorter than half a tick lasts one (its last frame's)
    // kPingPong's way back: position q >= n shows frame 2n - 2 - q, as long as forward.
    const int64_t bn = b[n];
    const int64_t bn1 = b[n - 1];
    for (size_t q = n + 1; n > 1 && q <= 2 * n - 2; ++q) b[q] = bn + bn1 - b[2 * n - 1 - q];
    at += n == 1 ? 2 : 2 * n - 1;
  }
  player.timeline_begin_[clips.size()] = at;
  return player;
}

Result<void> SpritePlayer::play(uint16_t clip, int64_t tick, const SpritePlayOptions& options) {
  if (clip >= sheet_->clips().size()) {
    return Error::make(ErrorCode::kUnknownClip, "no sprite clip %u (the sheet has %zu)", clip,
                       sheet_->clips().size());
  }
  if (!(options.speed >= 0 && options.speed <= kMaxSpeed)) {
    return Error::make(ErrorCode::kBadSpeed, "speed %g is not in [0, %g]",
                       static_cast<double>(options.speed), static_cast<double>(kMaxSpeed));
  }
  if (!(options.start >= 0 && options.start <= kMaxStartSeconds)) {
    return Error::make(ErrorCode::kBadStart, "start %g s is not in [0, %g]", options.start,
                       kMaxStartSeconds);
  }
  clip_ = clip;
  playback_ = options.playback.value_or(sheet_->clips()[clip].playback());
  speed_ = options.speed;
  offset_ = options.start;
  base_tick_ = tick;
  last_step_ = first_step(tick) - 1;  // the starting step is entered at `tick`
  return ok();
}

Result<void> SpritePlayer::play(std::string_view clip, int64_t tick,
                                const SpritePlayOptions& options) {
  const Result<uint16_t> index = sheet_->find_clip(clip);
  if (!index) return index.error();
  return play(*index, tick, options);
}

Result<void> SpritePlayer::set_speed(float speed, int64_t tick) {
  if (clip_ < 0) return Error::make(ErrorCode::kNothingPlaying, "no sprite clip is playing");
  if (!(speed >= 0 && speed <= kMaxSpeed)) {
    return Error::make(ErrorCode::kBadSpeed, "speed %g is not in [0, %g]",
                       static_cast<double>(speed), static_cast<double>(kMaxSpeed));
  }
  rebase(tick);
  speed_ = speed;
  return ok();
}

Result<void> SpritePlayer::set_start(double seconds, int64_t tick) {
  if (clip_ < 0) return Error::make(ErrorCode::kNothingPlaying, "no sprite clip is playing");
  if (!(seconds >= 0 && seconds <= kMaxStartSeconds)) {
    return Error::make(ErrorCode::kBadStart, "start %g s is not in [0, %g]", seconds,
                       kMaxStartSeconds);
  }
  offset_ = seconds;
  base_tick_ = tick;
  last_step_ = first_step(tick) - 1;
  return ok();
}

Result<void> SpritePlayer::set_playback(Playback playback, int64_t tick) {
  if (clip_ < 0) return Error::make(ErrorCode::kNothingPlaying, "no sprite clip is playing");
  const int64_t kept = step(tick);
  if (playing().durations_ms().empty() || kept < 0 || kept >= kStepLimit) {
    rebase(tick);
    playback_ = playback;
    return ok();
  }
  // A timed clip: the steps' lengths depend on the playback, so the clip time goes to the
  // same fraction of step `kept` under the new one.
  const double u = offset_ * rate_ + ticks_since(tick, base_tick_) * speed_;
  int64_t m = 0;
  std::span<const int64_t> t = timeline(&m);
  double begin = static_cast<double>(kept / m) * static_cast<double>(t[static_cast<size_t>(m)]) +
                 static_cast<double>(t[static_cast<size_t>(kept % m)]);
  double length =
      static_cast<double>(t[static_cast<size_t>(kept % m) + 1] - t[static_cast<size_t>(kept % m)]);
  const double fraction = length > 0 ? (u - begin) / length : 0.0;
  playback_ = playback;
  t = timeline(&m);
  begin = static_cast<double>(kept / m) * static_cast<double>(t[static_cast<size_t>(m)]) +
          static_cast<double>(t[static_cast<size_t>(kept % m)]);
  length =
      static_cast<double>(t[static_cast<size_t>(kept % m) + 1] - t[static_cast<size_t>(kept % m)]);
  offset_ = (begin + fraction * length) / rate_;
  base_tick_ = tick;
  for (int i = 0; i < 16 && length > 0; ++i) {  // as rebase(): an ulp or two either way
    const int64_t now = step(tick);
    if (now == kept) break;
    const double nudge = offset_ * 0x1p-52 + 0x1p-1074;
    offset_ = now > kept ? offset_ - nudge : offset_ + nudge;
  }
  return ok();
}

void SpritePlayer::rebase(int64_t tick) {
  const int64_t kept = step(tick);
  offset_ = offset_ + ticks_since(tick, base_tick_) * speed_ / rate_;
  base_tick_ = tick;
  // The clip time times fps may round to the other side of a step boundary than the
  // sum it replaces: nudge it by an ulp or two until the step at `tick` is the same.
  for (int i = 0; i < 16; ++i) {
    const int64_t now = step(tick);
    if (now == kept) break;
    const double nudge = (offset_ < 0 ? -offset_ : offset_) * 0x1p-52 + 0x1p-1074;
    offset_ = now > kept ? offset_ - nudge : offset_ + nudge;
  }
}

int64_t SpritePlayer::step(int64_t tick) const {
  if (clip_ < 0) return 0;
  if (!playing().durations_ms().empty()) {
    const int64_t t = clip_tick(tick);
    return t < 0 ? -1 : timed_step(t, false);
  }
  const double fps = playing().fps();
  const double ticks = ticks_since(tick, base_tick_);
  const double s = std::floor(offset_ * fps + ticks * speed_ * fps / rate_);
  return clamp_to_int64(s, -kStepLimit, kStepLimit);
}

int64_t SpritePlayer::first_step(int64_t tick) const {
  if (clip_ < 0 || playing().durations_ms().empty()) return step(tick);
  const int64_t t = clip_tick(tick);
  return t < 0 ? -1 : timed_step(t, true);
}

int64_t SpritePlayer::clip_tick(int64_t tick) const {
  const double u = offset_ * rate_ + ticks_since(tick, base_tick_) * speed_;
  return clamp_to_int64(std::floor(u), -kStepLimit, kStepLimit);
}

std::span<const int64_t> SpritePlayer::timeline(int64_t* out_positions) const {
  const size_t c = static_cast<size_t>(clip_);
  const int64_t n = static_cast<int64_t>(playing().frames().size());
  *out_positions = playback_ == Playback::kPingPong && n > 1 ? 2 * (n - 1) : n;
  return std::span<const int64_t>(timeline_).subspan(timeline_begin_[c],
                                                     static_cast<size_t>(*out_positions) + 1);
}

int64_t SpritePlayer::timed_step(int64_t t, bool first) const {
  int64_t m = 0;
  const std::span<const int64_t> starts = timeline(&m);
  const int64_t pass = starts[static_cast<size_t>(m)];  // >= 1
  const int64_t k = t / pass;
  const int64_t r = t % pass;
  const auto begin = starts.begin();
  const auto end = starts.begin() + m;
  int64_t p = (std::upper_bound(begin, end, r) - begin) - 1;  // starts[0] is 0 <= r
  if (k > (kStepLimit - m) / m) return kStepLimit;
  if (first) {
    // The 0-tick steps before p that start at r too; at a pass's start, those that end
    // the pass before.
    p = std::lower_bound(begin, end, starts[static_cast<size_t>(p)]) - begin;
    if (r == 0 && k > 0) {
      const int64_t q = std::lower_bound(begin, end, pass) - begin;
      if (q < m) return (k - 1) * m + q;
    }
  }
  return k * m + p;
}

int64_t SpritePlayer::position(int64_t s) const {
  const int64_t n = static_cast<int64_t>(playing().frames().size());
  if (s <= 0) return 0;
  switch (playback_) {
    case Playback::kOnce:
      return std::min(s, n - 1);
    case Playback::kPingPong:
      if (n > 1) {
        const int64_t period = 2 * (n - 1);
        const int64_t p = s % period;
        return p < n ? p : period - p;
      }
      return 0;
    case Playback::kLoop:
      break;
  }
  return s % n;
}

uint32_t SpritePlayer::clip_frame(int64_t s) const {
  const int64_t p = position(s);
  const int64_t n = static_cast<int64_t>(playing().frames().size());
  return static_cast<uint32_t>(playing().reverse() ? n - 1 - p : p);
}

uint32_t SpritePlayer::frame(int64_t tick) const {
  if (clip_ < 0) return still_frame_;
  return playing().frames()[clip_frame(step(tick))];
}

int64_t SpritePlayer::next_event_step(int64_t s) const {
  const SpriteClip& clip = playing();
  const std::vector<uint32_t>& begin = clip.event_begin_;
  const std::vector<FrameEvent>& events = clip.events_;
  const int64_t n = static_cast<int64_t>(clip.frames_.size());
  // The first clip frame >= f with events, or -1 (0 <= f <= n).
  auto first_frame_from = [&](int64_t f) -> int64_t {
    const uint32_t i = begin[static_cast<size_t>(f)];
    return i < events.size() ? int64_t{events[i].frame} : -1;
  };
  // The last clip frame <= f with events, or -1 (-1 <= f < n).
  auto last_frame_upto = [&](int64_t f) -> int64_t {
    if (f < 0) return -1;
    const uint32_t i = begin[static_cast<size_t>(f) + 1];
    return i > 0 ? int64_t{events[i - 1].frame} : -1;
  };
  // The same over play positions (clip frames last to first for a reverse clip).
  const bool reverse = clip.reverse_;
  auto first_from = [&](int64_t p) -> int64_t {
    if (!reverse) return first_frame_from(p);
    const int64_t f = last_frame_upto(n - 1 - p);
    return f < 0 ? -1 : n - 1 - f;
  };
  auto last_upto = [&](int64_t p) -> int64_t {
    if (!reverse) return last_frame_upto(p);
    const int64_t f = first_frame_from(n - 1 - p);
    return f < 0 ? -1 : n - 1 - f;
  };
  if (events.empty()) return kNoStep;
  if (playback_ == Playback::kOnce) {  // step s shows frame s, and only up to n - 1
    const int64_t f = s < n ? first_from(s) : -1;
    return f < 0 ? kNoStep : f;
  }
  if (playback_ == Playback::kPingPong && n > 1) {
    const int64_t period = 2 * (n - 1);
    int64_t p = s % period;
    if (p < n) {  // on the way out: position p shows frame p
      const int64_t f = first_from(p);
      if (f >= 0) return s + (f - p);
      s += n - p;
      p = n;
    }
    // On the way back: position p shows frame period - p (position period is frame 0).
    const int64_t g = period - p;
    const int64_t f = last_upto(g);
    if (f >= 0) return s + (g - f);
    return s + (period - p) + first_from(0);  // out again in the next period
  }
  const int64_t p = s % n;  // kLoop (and a one-frame ping-pong)
  const int64_t f = first_from(p);
  return f >= 0 ? s + (f - p) : s + (n - p) + first_from(0);
}

int64_t SpritePlayer::entry_tick(int64_t s, int64_t lo, int64_t hi) const {
  while (lo < hi) {  // step() is non-decreasing in the tick from the base tick on
    const int64_t mid =
        lo + static_cast<int64_t>((static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) / 2);
    if (step(mid) >= s) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

std::span<const SpriteEvent> SpritePlayer::advance(int64_t tick) {
  event_count_ = 0;
  if (clip_ < 0 || tick < base_tick_) return {};
  const int64_t now = step(tick);
  if (now <= last_step_) return {};
  const SpriteClip& clip = playing();
  const int64_t first = std::max<int64_t>(last_step_ + 1, 0);
  const int64_t last = playback_ == Playback::kOnce
                           ? std::min<int64_t>(now, static_cast<int64_t>(clip.frames_.size()) - 1)
                           : now;
  last_step_ = now;
  const size_t event_total = clip.events_.size();
  std::fill_n(passes_.begin(), event_total, 0u);
  size_t open = event_total;  // events still under kSpriteMaxRepeats passes
  int64_t entered = base_tick_;
  for (int64_t s = next_event_step(first); s <= last && open > 0; s = next_event_step(s + 1)) {
    entered = entry_tick(s, entered, tick);
    const uint32_t f = clip_frame(s);
    for (uint32_t i = clip.event_begin_[f]; i < clip.event_begin_[f + 1]; ++i) {
      if (passes_[i] == kSpriteMaxRepeats) continue;
      if (++passes_[i] == kSpriteMaxRepeats) --open;
      if (event_count_ == events_.size()) {
        ++dropped_;
        continue;
      }
      events_[event_count_++] = SpriteEvent{entered, static_cast<uint16_t>(clip_),
                                            static_cast<uint16_t>(i), clip.events_[i].name, s};
    }
  }
  return {events_.data(), event_count_};
}

}  // namespace animpack
