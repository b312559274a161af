// Sprite clips: frames cut from an image atlas, named clips of those frames, and a
// player that steps a clip by integer tick.
//
//   auto atlas = animpack::Atlas::grid({128, 64}, {32, 32}, 8);   // 4 x 2 cells
//   auto walk = animpack::SpriteClip::create("walk", {0, 1, 2, 3}, 12.0f,
//                                            animpack::Playback::kLoop, {{"step", 1}});
//   auto sheet = animpack::SpriteSheet::create(*atlas, {*walk});
//   auto player = animpack::SpritePlayer::create(&*sheet, 60);    // 60 ticks a second
//   (void)player->play("walk", 0);
//   for (const animpack::SpriteEvent& e : player->advance(5)) { /* "step" at tick 5 */ }
//   animpack::Result<animpack::UvRect> uv = player->uv(5);        // atlas frame 1
//
// Timing (the same rule on every platform): the step at a tick is
//   floor(offset * fps + ticks * speed * fps / rate)
// computed in double with exactly those operations, where ticks = tick - base tick and
// offset is the start in seconds (after set_speed or set_playback, the clip time at
// that tick). The clip frame of step s among n frames is s mod n (kLoop), min(s, n-1)
// (kOnce) or 0, 1, .., n-1, n-2, .., 1, 0, 1, .. (kPingPong). Steps below 0 (ticks
// before the play tick) show the clip's first frame and enter none.
//
// Timed clips (SpriteClip::create_timed, durations_ms non-empty), step 7. Let C_i be the
// sum of the durations before play position i (integers; a reverse clip's positions are
// its frames last to first). Position i starts at tick B_i = floor((C_i * rate + 500) /
// 1000) in 64-bit integers (C_i * rate / 1000 rounded half up), so a clip of T ms lasts
// B_n = round(T * rate / 1000) ticks whatever its frames (100 ms at 60 Hz: 6 ticks; 1 ms
// at 30 Hz: 0 ticks), and a frame lasts B_(i+1) - B_i ticks, which may be 0: such a frame
// is entered (its step is counted and its events fire) at the tick its successor starts,
// and never shown. A clip whose whole length rounds to 0 ticks lasts one tick: its last
// frame's, so that it still loops at one pass a tick. The clip time in ticks is
//   u = offset * rate + ticks * speed
// in double, with only those operations, and floor(u) selects the position i with B_i
// <= floor(u) mod P < B_(i+1), in integers, where P is the pass's length: B_n for kLoop
// and kOnce, B_n + B_(n-1) - B_1 for kPingPong, whose way back from n-2 to 1 gives each
// frame its forward length. The step is (floor(u) / P) * m + i with m positions a pass
// (n, or 2 * (n - 1) for kPingPong): the same steps, frames and events as above. At speed
// 1 from start 0, u is the tick count itself, so the tick rule and the time rule are one.
// (In milliseconds, u is the clip time start * 1000 + ticks * speed * 1000 / rate times
// rate / 1000, and frame i holds the times [B_i * 1000 / rate, B_(i+1) * 1000 / rate).)
// Events stay on their clip frames when a clip plays reversed. play and set_start enter
// the 0-tick frames that start with the frame they start on. set_playback keeps the step
// and puts the clip time at the same fraction of it under the new playback (a step that
// lasts 0 ticks there gives way to the next one).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "animpack/clip.h"
#include "animpack/limits.h"
#include "animpack/result.h"

namespace animpack {

// The most passes per event that one advance() delivers after a long stretch of
// skipped ticks (the skeletal animator's MAX_REPEATS).
inline constexpr int kSpriteMaxRepeats = 64;

// A size in pixels.
struct Size {
  uint32_t width = 0, height = 0;
};

// A rectangle in pixels: x to the right, y down from the image's top row.
struct PixelRect {
  uint32_t x = 0, y = 0, width = 0, height = 0;
};

// A rectangle in texture coordinates: u to the right, v down from the image's top row.
struct UvRect {
  float u0 = 0, v0 = 0, u1 = 0, v1 = 0;
};

// Where a frame's stored pixels go in the artist's picture, and its pivot (Step 7:
// trimmed and rotated frames of Aseprite and TexturePacker sheets). A frame without a
// placement is untrimmed, unrotated, with its pivot at the centre.
//   source:   the untrimmed frame's size in pixels (the box the artist drew in)
//   trimmed:  where the stored pixels go inside that box: x, y from the box's top-left,
//             width x height as drawn (unrotated)
//   rotated:  the stored pixels are the drawn ones turned 90 degrees clockwise, so the
//             frame's PixelRect in the image is trimmed.height wide, trimmed.width high
//   pivot_x, pivot_y: the pivot in source pixels from the box's top-left (may lie
//             outside the box; finite)
struct FramePlacement {
  Size source;
  PixelRect trimmed;
  bool rotated = false;
  float pivot_x = 0, pivot_y = 0;
};

// One frame of an atlas made by Atlas::create: its pixels in the image, its placement
// and its name in the data file (may be empty).
struct AtlasFrame {
  PixelRect rect;
  FramePlacement placement;
  std::string name;
};

// What a draw of one frame needs: the stored pixels' texture rectangle and where they
// go (Atlas::draw, SpritePlayer::draw).
struct SpriteDraw {
  uint32_t frame = 0;  // the atlas frame
  UvRect uv;           // the stored pixels' texture rectangle (as Atlas::uv)
  FramePlacement placement;
};

// Pixels between neighbouring grid cells and around the whole grid.
struct GridSpacing {
  uint32_t spacing = 0;
  uint32_t margin = 0;
};

// An image's size and the pixel rectangles of its frames.
class Atlas {
 public:
  // An empty atlas (no image, no frames); the factories below make real ones.
  Atlas() = default;
  // Cuts `count` cells of size `cell` left to right, then top to bottom. The first cell
  // is at (margin, margin) and neighbours are cell + spacing apart; a cell fits when it
  // ends at least `margin` pixels before the image's edge. Fails (kBadAtlas) on a
  // zero-sized image or cell, count 0, or more cells than fit.
  static Result<Atlas> grid(Size image, Size cell, uint32_t count, GridSpacing spacing = {});
  // Takes pixel rectangles as the frames, in order. Fails (kBadAtlas) on a zero-sized
  // image, no rects, or a rect that is empty or not inside the image (the message names
  // the rect's index and bounds).
  static Result<Atlas> rects(Size image, std::vector<PixelRect> rects);
  // Takes frames with placements and names (data-file atlases). Fails (kBadAtlas) as
  // rects() does, and on a placement that does not fit its frame: a zero source size, a
  // trimmed box not inside the source box, a trimmed size that is not the rect's size
  // (turned for a rotated frame), or a pivot that is not finite.
  static Result<Atlas> create(Size image, std::vector<AtlasFrame> frames);

  // The image's size.
  Size size() const { return size_; }
  // The number of frames (at least one, except for a default-constructed atlas).
  uint32_t frame_count() const { return static_cast<uint32_t>(frames_.size()); }
  // The frames' pixel rectangles.
  std::span<const PixelRect> frames() const { return frames_; }
  // The frame's texture rectangle [x/W, y/H, (x+w)/W, (y+h)/H] (v down: image rows from
  // the top). Fails (kBadFrame) when frame >= frame_count().
  Result<UvRect> uv(uint32_t frame) const;
  // True when some frame has a placement other than the default one (made by create()).
  bool has_placements() const { return !placements_.empty(); }
  // The frame's placement: the stored one, or the default (untrimmed, unrotated, pivot at
  // the centre) for grid and rects atlases. Fails (kBadFrame) when frame >= frame_count().
  Result<FramePlacement> placement(uint32_t frame) const;
  // The frame's name from the data file; empty for grid and rects atlases or when frame
  // >= frame_count().
  std::string_view name(uint32_t frame) const;
  // uv() and placement() together. Fails (kBadFrame) when frame >= frame_count().
  Result<SpriteDraw> draw(uint32_t frame) const;

 private:
  Atlas(Size size, std::vector<PixelRect> frames) : size_(size), frames_(std::move(frames)) {}

  Size size_;
  std::vector<PixelRect> frames_;
  std::vector<FramePlacement> placements_;  // empty, or one per frame (create())
  std::vector<std::string> names_;          // empty, or one per frame (create())
};

// A named mark on one frame of a sprite clip: `frame` is an index WITHIN the clip's
// frame list, not an atlas frame.
struct FrameEvent {
  std::string name;
  uint32_t frame = 0;
};

// A named list of atlas frames shown at `fps`, with a playback and events on frames.
// Copyable.
class SpriteClip {
 public:
  // Builds a clip. Events are kept ordered by frame (equal frames keep their order), so
  // events() may differ in order from `events`. Fails with kBadFrame for no frames or an
  // event frame >= frames.size(), kInvalidArgument for fps outside [kMinSpriteFps,
  // kMaxSpriteFps] (limits.h) or more than 65535 events. Atlas frame indices are checked
  // by SpriteSheet::create.
  static Result<SpriteClip> create(std::string name, std::vector<uint32_t> frames, float fps,
                                   Playback playback, std::vector<FrameEvent> events = {});
  // A clip whose frames each last their own time (Aseprite's per-frame durations):
  // durations_ms has one entry per frame, each in [1, kMaxSpriteFrameMs] (limits.h), and
  // the clip's total is at most kMaxSpriteClipMs. reverse plays the frame list last to
  // first (Aseprite's "reverse"; with kPingPong, "pingpong_reverse"). fps() is then the
  // average rate, frames * 1000 / total ms. Fails as create() above, and with
  // kInvalidArgument for a durations list of another length or a duration out of range.
  static Result<SpriteClip> create_timed(std::string name, std::vector<uint32_t> frames,
                                         std::vector<uint32_t> durations_ms, Playback playback,
                                         bool reverse, std::vector<FrameEvent> events = {});

  // The clip's name.
  const std::string& name() const { return name_; }
  // The atlas frame indices, in play order (at least one).
  std::span<const uint32_t> frames() const { return frames_; }
  // Frames per second (finite, > 0).
  float fps() const { return fps_; }
  // The playback a player uses unless SpritePlayOptions::playback says otherwise.
  Playback playback() const { return playback_; }
  // All events, ordered by frame.
  std::span<const FrameEvent> events() const { return events_; }
  // Per-frame durations in milliseconds (create_timed); empty for a clip at fps().
  std::span<const uint32_t> durations_ms() const { return durations_ms_; }
  // Whether the frame list plays last to first (create_timed).
  bool reverse() const { return reverse_; }
  // The events on clip frame `frame` (a slice of events()); empty when it has none or
  // frame >= frames().size().
  std::span<const FrameEvent> events_at(uint32_t frame) const;

 private:
  friend class SpritePlayer;  // reads event_begin_ to skip to the next frame with events
  SpriteClip() = default;

  std::string name_;
  std::vector<uint32_t> frames_;
  float fps_ = 0;
  Playback playback_ = Playback::kLoop;
  std::vector<FrameEvent> events_;
  std::vector<uint32_t> durations_ms_;  // empty, or one per frame
  bool reverse_ = false;
  std::vector<uint32_t> event_begin_;  // events on frame f: [event_begin_[f], [f + 1])
};

// An atlas with named clips over its frames.
class SpriteSheet {
 public:
  // An empty sheet (no frames, no clips); create() makes real ones.
  SpriteSheet() = default;
  // Builds a sheet. Fails with kBadFrame when a clip names an atlas frame >=
  // atlas.frame_count(), kBadClip on two clips with one name or more than 65535 clips.
  static Result<SpriteSheet> create(Atlas atlas, std::vector<SpriteClip> clips);

  // The atlas.
  const Atlas& atlas() const { return atlas_; }
  // The clips, in the order given.
  std::span<const SpriteClip> clips() const { return clips_; }
  // The index of the clip with this name; kUnknownClip ("no sprite clip 'x'") when none.
  Result<uint16_t> find_clip(std::string_view name) const;
  // The most events on any one clip (for sizing a player's event buffer).
  uint32_t max_event_count() const { return max_events_; }

 private:
  SpriteSheet(Atlas atlas, std::vector<SpriteClip> clips, uint32_t max_events)
      : atlas_(std::move(atlas)), clips_(std::move(clips)), max_events_(max_events) {}

  Atlas atlas_;
  std::vector<SpriteClip> clips_;
  uint32_t max_events_ = 0;
};

// How SpritePlayer::play starts a clip.
struct SpritePlayOptions {
  float speed = 1.0f;                // in [0, kMaxSpeed]; 0 holds the starting step
  double start = 0.0;                // seconds into the clip, in [0, kMaxStartSeconds]
  std::optional<Playback> playback;  // default: the clip's own
};

// One event fired by SpritePlayer::advance.
struct SpriteEvent {
  int64_t tick = 0;       // the first tick whose step is this one or later, but not before
                          // the tick of the last play or setter call
  uint16_t clip = 0;      // index in SpriteSheet::clips()
  uint16_t event = 0;     // index in the clip's events()
  std::string_view name;  // the event's name, a view into the sheet
  int64_t step = 0;       // the step that entered the event's frame
};

// Plays one sprite clip of a sheet by tick. All memory is allocated by create(); play,
// advance, frame and the setters never allocate. Copyable; a copy plays on its own.
class SpritePlayer {
 public:
  // Makes a player of `sheet` at `tick_rate` ticks a second, showing the still frame.
  // The sheet must outlive the player and stay where it is. event_capacity is the most
  // events one advance() returns; 0 picks enough for every event of the sheet's largest
  // clip kSpriteMaxRepeats times. Fails with kInvalidArgument for a null sheet,
  // kBadTickRate for tick_rate <= 0.
  static Result<SpritePlayer> create(const SpriteSheet* sheet, int32_t tick_rate,
                                     uint32_t event_capacity = 0);

  // Starts clip `clip` at `tick`, replacing what played (its events not yet advanced are
  // dropped). The first advance() at or after `tick` fires the starting step's events.
  // Fails, changing nothing, with kUnknownClip for an index outside the sheet, kBadSpeed
  // for a speed outside [0, kMaxSpeed], kBadStart for a start outside [0, kMaxStartSeconds].
  Result<void> play(uint16_t clip, int64_t tick, const SpritePlayOptions& options = {});
  // Starts the clip with this name, as above; kUnknownClip when the sheet has none.
  Result<void> play(std::string_view clip, int64_t tick, const SpritePlayOptions& options = {});
  // Changes the speed from `tick` on, rebased so that the step at `tick` stays the same.
  // Fails with kNothingPlaying when idle, kBadSpeed outside [0, kMaxSpeed].
  Result<void> set_speed(float speed, int64_t tick);
  // Jumps to `seconds` into the clip at `tick`; the next advance() fires the step
  // jumped to, as after play. Fails with kNothingPlaying when idle, kBadStart outside
  // [0, kMaxStartSeconds].
  Result<void> set_start(double seconds, int64_t tick);
  // Changes the playback from `tick` on. The step carries on (rebased as set_speed);
  // the frame shown is the new playback's frame for it. Fails with kNothingPlaying when
  // idle.
  Result<void> set_playback(Playback playback, int64_t tick);
  // Stops the clip: the player shows the still frame and advance() returns nothing.
  void stop() { clip_ = -1; }

  // The events of every step entered since the last advance (the first advance after
  // play or set_start includes the starting step itself), in step order and, within a
  // step, in the clip's event order. Each event fires once per step that enters its
  // frame; a kOnce clip enters no frame after its last; after a long stretch of skipped
  // ticks each event fires at most kSpriteMaxRepeats times (its earliest passes). Events
  // beyond the buffer's capacity are counted in dropped_events(). Returns a view into
  // the player's own buffer, valid until the next call of a non-const member. Empty when
  // idle or when `tick` is before the play tick.
  std::span<const SpriteEvent> advance(int64_t tick);

  // The step at `tick` (see the top of this file); 0 when idle. Clamped to +-2^62.
  int64_t step(int64_t tick) const;
  // The atlas frame shown at `tick`; the still frame when idle.
  uint32_t frame(int64_t tick) const;
  // The texture rectangle of frame(tick). Fails with kBadFrame when that frame is
  // outside the atlas (only possible for a still frame set out of range).
  Result<UvRect> uv(int64_t tick) const { return sheet_->atlas().uv(frame(tick)); }
  // The texture rectangle and placement of frame(tick) (Atlas::draw).
  Result<SpriteDraw> draw(int64_t tick) const { return sheet_->atlas().draw(frame(tick)); }
  // The playing clip's index, or -1 when idle.
  int clip() const { return clip_; }
  // The playback in force (meaningful while a clip plays).
  Playback playback() const { return playback_; }
  // The atlas frame shown when idle (default 0). Not checked here: uv() reports a
  // frame outside the atlas.
  void set_still_frame(uint32_t frame) { still_frame_ = frame; }
  // The atlas frame shown when idle.
  uint32_t still_frame() const { return still_frame_; }
  // Events lost because advance()'s buffer was full, since create(). Never silent.
  uint64_t dropped_events() const { return dropped_; }

 private:
  SpritePlayer() = default;

  const SpriteClip& playing() const { return sheet_->clips()[static_cast<size_t>(clip_)]; }
  // The clip frame (index into the clip's frame list) shown at step s.
  uint32_t clip_frame(int64_t s) const;
  // The play position (0..n-1, the clip frame before reverse) shown at step s.
  int64_t position(int64_t s) const;
  // A timed clip's position starts in ticks for the playback in force: m + 1 values, the
  // last the pass's length (see the top of this file), and m.
  std::span<const int64_t> timeline(int64_t* out_positions) const;
  // A timed clip's step at floor clip tick `t` (>= 0); `first`: the first of the 0-tick
  // steps that start at `t` with the step shown there.
  int64_t timed_step(int64_t t, bool first) const;
  // A timed clip's floor clip tick at `tick`, clamped to +-2^62.
  int64_t clip_tick(int64_t tick) const;
  // The step at `tick`, but the first of the 0-tick steps entered with it (timed clips).
  int64_t first_step(int64_t tick) const;
  // The first step >= s whose clip frame has events; INT64_MAX when none does.
  int64_t next_event_step(int64_t s) const;
  // The first tick in [lo, hi] whose step is >= s. Preconditions: step(hi) >= s.
  int64_t entry_tick(int64_t s, int64_t lo, int64_t hi) const;
  // Makes `tick` the base tick, keeping the step there.
  void rebase(int64_t tick);

  const SpriteSheet* sheet_ = nullptr;
  double rate_ = 0;
  int clip_ = -1;
  Playback playback_ = Playback::kLoop;
  float speed_ = 1.0f;
  double offset_ = 0;  // clip seconds at base_tick_
  int64_t base_tick_ = 0;
  int64_t last_step_ = 0;  // the last step whose events advance() has delivered
  uint32_t still_frame_ = 0;
  uint64_t dropped_ = 0;
  size_t event_count_ = 0;
  std::vector<SpriteEvent> events_;  // advance()'s buffer, sized once
  std::vector<uint32_t> passes_;     // passes per event within one advance()
  // Timed clips' position starts in ticks at this rate (the top of this file): clip c's
  // 2n - 1 values (n + 1 for n = 1) at [timeline_begin_[c], timeline_begin_[c + 1]),
  // the kPingPong positions; kLoop and kOnce use the first n and the value B_n at n.
  std::vector<int64_t> timeline_;
  std::vector<size_t> timeline_begin_;
};

}  // namespace animpack
