// The scene player (see animpack/scene_player.h): a pack's objects, their animators and
// sprite players, stepped by tick with the game's calls, events, errors and a posed
// snapshot. Determinism: floats are touched only by the Animator and SpritePlayer, and
// here by + - * / and IEEE sqrt (face_camera turns); the runtime is built with
// -ffp-contract=off.
#include "animpack/scene_player.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>

namespace animpack {
namespace {

// A pack rig with the object's events added to its clips (events the clip already has,
// same name and time, are not added twice); the keys are still viewed in the pack.
// Returns no rig when the object adds nothing.
Result<std::optional<Rig>> object_rig(const Rig& base, const ObjectAnimationInfo& animation) {
  bool adds = false;
  for (const ObjectEventInfo& e : animation.events) {
    if (e.clip >= base.clips().size()) continue;  // the pack checked it; be safe
    bool found = false;
    for (const ClipEvent& have : base.clips()[e.clip].events()) {
      found = found || (have.name == e.name && have.time == e.time);
    }
    adds = adds || !found;
  }
  if (!adds) return std::optional<Rig>();
  std::vector<Clip> clips;
  clips.reserve(base.clips().size());
  for (size_t c = 0; c < base.clips().size(); ++c) {
    const Clip& from = base.clips()[c];
    Clip clip(from.name());
    for (const Channel& ch : from.channels()) clip.add_channel_view(ch);
    for (const ClipEvent& e : from.events()) clip.add_event(e.name, e.time);
    for (const ObjectEventInfo& e : animation.events) {
      if (e.clip != c) continue;
      bool found = false;
      for (const ClipEvent& have : from.events()) {
        found = found || (have.name == e.name && have.time == e.time);
      }
      if (!found) clip.add_event(std::string(e.name), e.time);
    }
    clips.push_back(std::move(clip));
  }
  std::vector<MorphSet> sets(base.morph_sets().begin(), base.morph_sets().end());
  Result<Rig> rig = Rig::create(base.skeleton(), std::move(clips), std::move(sets));
  if (!rig) return rig.error();
  return std::optional<Rig>(std::move(*rig));
}

// The sheet with the object's events added to its clips (events the clip already has,
// same name and frame, as the cooker writes them, are not added twice). Returns no sheet
// when the object adds nothing.
Result<std::optional<SpriteSheet>> object_sheet(const SpriteSheet& base,
                                                const ObjectAnimationInfo& animation) {
  auto has = [&](const ObjectEventInfo& e) {
    for (const FrameEvent& have : base.clips()[e.clip].events_at(e.frame)) {
      if (have.name == e.name) return true;
    }
    return false;
  };
  bool adds = false;
  for (const ObjectEventInfo& e : animation.events) {
    if (e.clip >= base.clips().size()) continue;
    adds = adds || !has(e);
  }
  if (!adds) return std::optional<SpriteSheet>();
  std::vector<SpriteClip> clips;
  clips.reserve(base.clips().size());
  for (size_t c = 0; c < base.clips().size(); ++c) {
    const SpriteClip& from = base.clips()[c];
    std::vector<FrameEvent> events(from.events().begin(), from.events().end());
    for (const ObjectEventInfo& e : animation.events) {
      if (e.clip == c && !has(e)) events.push_back({std::string(e.name), e.frame});
    }
    std::vector<uint32_t> frames(from.frames().begin(), from.frames().end());
    Result<SpriteClip> clip =
        from.durations_ms().empty()  // a timed clip (format 7) keeps its durations
            ? SpriteClip::create(from.name(), std::move(frames), from.fps(), from.playback(),
                                 std::move(events))
            : SpriteClip::create_timed(
                  from.name(), std::move(frames),
                  std::vector<uint32_t>(from.durations_ms().begin(), from.durations_ms().end()),
                  from.playback(), from.reverse(), std::move(events));
    if (!clip) return clip.error();
    clips.push_back(std::move(*clip));
  }
  Result<SpriteSheet> sheet = SpriteSheet::create(base.atlas(), std::move(clips));
  if (!sheet) return sheet.error();
  return std::optional<SpriteSheet>(std::move(*sheet));
}

bool valid_weight(float w) { return w >= 0.0f && w <= 1.0f; }

// model turned about its position, about +y only, so that its +z faces the camera.
Mat4 face(const Mat4& model, const Camera& camera) {
  const Vec3 position{model.m[12], model.m[13], model.m[14]};
  const Vec3 d = camera.orthographic ? camera.eye - camera.target : camera.eye - position;
  const float len = std::sqrt(d.x * d.x + d.z * d.z);
  if (!(len > 0.0f) || !std::isfinite(len)) return model;
  const float fx = d.x / len, fz = d.z / len;
  Mat4 yaw;  // columns: x = (fz, 0, -fx), y = (0, 1, 0), z = (fx, 0, fz)
  yaw.m[0] = fz;
  yaw.m[2] = -fx;
  yaw.m[8] = fx;
  yaw.m[10] = fz;
  Mat4 local = model;  // R * S, without the translation
  local.m[12] = local.m[13] = local.m[14] = 0.0f;
  Mat4 out = mul_affine(yaw, local);
  out.m[12] = position.x;
  out.m[13] = position.y;
  out.m[14] = position.z;
  return out;
}

}  // namespace

void Game::tick(ScenePlayer&, int64_t) {}
void Game::animated(ScenePlayer&, std::span<const AnimationEvent>) {}

// ---------------------------------------------------------------------------- Animate

Animate::Animate(Animate&& other) noexcept
    : player_(other.player_),
      object_(other.object_),
      clip_(other.clip_),
      layer_count_(other.layer_count_),
      too_many_layers_(other.too_many_layers_),
      fade_(other.fade_),
      speed_(other.speed_),
      start_(other.start_),
      playback_(other.playback_),
      result_(other.result_) {
  for (int i = 0; i < layer_count_; ++i) layers_[i] = other.layers_[i];
  other.player_ = nullptr;
}

Animate::~Animate() {
  if (player_ != nullptr) (void)done();
}

Animate& Animate::blend(std::string_view clip, float weight) {
  if (layer_count_ + 1 >= kMaxLayers) {
    too_many_layers_ = true;
  } else {
    layers_[layer_count_++] = {clip, weight, {}, false};
  }
  return *this;
}

Animate& Animate::blend(std::string_view clip, float weight, std::span<const float> mask) {
  if (layer_count_ + 1 >= kMaxLayers) {
    too_many_layers_ = true;
  } else {
    layers_[layer_count_++] = {clip, weight, mask, false};
  }
  return *this;
}

Animate& Animate::additive(std::string_view clip, float weight, std::span<const float> mask) {
  if (layer_count_ + 1 >= kMaxLayers) {
    too_many_layers_ = true;
  } else {
    layers_[layer_count_++] = {clip, weight, mask, true};
  }
  return *this;
}

Animate& Animate::fade(double seconds) {
  fade_ = seconds;
  return *this;
}

Animate& Animate::speed(float speed) {
  speed_ = speed;
  return *this;
}

Animate& Animate::start(double seconds) {
  start_ = seconds;
  return *this;
}

Animate& Animate::playback(Playback playback) {
  playback_ = playback;
  return *this;
}

Result<void> Animate::done() {
  if (player_ != nullptr) {
    ScenePlayer* player = player_;
    player_ = nullptr;
    result_ = player->apply(*this);
  }
  return result_;
}

// ---------------------------------------------------------------------------- ScenePlayer

ScenePlayer::ScenePlayer() = default;
ScenePlayer::ScenePlayer(ScenePlayer&&) noexcept = default;
ScenePlayer& ScenePlayer::operator=(ScenePlayer&&) noexcept = default;
ScenePlayer::~ScenePlayer() = default;

Result<ScenePlayer> ScenePlayer::create(const Pack* pack, int32_t tick_rate,
                                        const ScenePlayerOptions& options) {
  if (pack == nullptr) return Error::make(ErrorCode::kInvalidArgument, "no pack");
  if (tick_rate <= 0) {
    return Error::make(ErrorCode::kBadTickRate, "tick rate %d is not positive", tick_rate);
  }
  if (options.job_runner != nullptr && options.threads > 1) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "both a job runner and %u threads of the player's own", options.threads);
  }
  ScenePlayer p;
  if (options.threads > 1) {
    Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(options.threads);
    if (!pool) return pool.error();
    p.pool_ = std::move(*pool);
  }
  p.jobs_ = options.job_runner != nullptr ? options.job_runner : p.pool_.get();
  p.pack_ = pack;
  p.tick_rate_ = tick_rate;
  const std::span<const ObjectInfo> infos = pack->objects();
  p.objects_.resize(infos.size());

  // Pass 1: the per-object rigs and sheets, so that their vectors never move again.
  std::vector<int> own_rig(infos.size(), -1), own_sheet(infos.size(), -1);
  size_t animators = 0, sprites = 0, machines = 0, iks = 0;
  for (size_t o = 0; o < infos.size(); ++o) {
    const ObjectInfo& info = infos[o];
    const ObjectAnimationInfo& a = info.animation;
    if (info.animated && a.sprite_sheet >= 0) {
      const SpriteSheet& base = pack->sprite_sheets()[static_cast<size_t>(a.sprite_sheet)];
      Result<std::optional<SpriteSheet>> sheet = object_sheet(base, a);
      if (!sheet) return sheet.error();
      if (*sheet) {
        own_sheet[o] = static_cast<int>(p.sheets_.size());
        p.sheets_.push_back(std::move(**sheet));
      }
      ++sprites;
      continue;
    }
    const int rig = info.mesh >= 0 ? pack->meshes()[static_cast<size_t>(info.mesh)].rig : -1;
    if (rig < 0) continue;
    if (info.animated && a.graph) ++machines;
    if (info.animated && !a.ik.empty()) ++iks;
    if (info.animated) {
      Result<std::optional<Rig>> own = object_rig(pack->rig(rig), a);
      if (!own) return own.error();
      if (*own) {
        own_rig[o] = static_cast<int>(p.rigs_.size());
        p.rigs_.push_back(std::move(**own));
      }
    }
    ++animators;
  }

  // Pass 2: the players, and what each object plays from tick 0.
  // Reserved: machines hold pointers to their animators, games to both.
  p.animators_.reserve(animators);
  p.sprites_.reserve(sprites);
  p.machines_.reserve(machines);
  p.iks_.reserve(iks);  // each holds a pointer to its rig's skeleton, which never moves
  size_t event_capacity = 0;
  for (size_t o = 0; o < infos.size(); ++o) {
    const ObjectInfo& info = infos[o];
    const ObjectAnimationInfo& a = info.animation;
    Object& obj = p.objects_[o];
    obj.info = &info;
    obj.transform = Trs{info.position, info.rotation, info.scale};
    obj.model = to_matrix(obj.transform);
    if (info.animated && a.sprite_sheet >= 0) {
      obj.sheet = own_sheet[o] >= 0 ? &p.sheets_[static_cast<size_t>(own_sheet[o])]
                                    : &pack->sprite_sheets()[static_cast<size_t>(a.sprite_sheet)];
      Result<SpritePlayer> player = SpritePlayer::create(obj.sheet, tick_rate);
      if (!player) return player.error();
      obj.sprite = static_cast<int>(p.sprites_.size());
      p.sprites_.push_back(std::move(*player));
      SpritePlayer& sp = p.sprites_.back();
      if (a.clip >= 0 && static_cast<size_t>(a.clip) < obj.sheet->clips().size()) {
        obj.still_frame = obj.sheet->clips()[static_cast<size_t>(a.clip)].frames()[0];
      }
      sp.set_still_frame(obj.still_frame);
      if (a.clip >= 0) {
        SpritePlayOptions opts;
        opts.speed = a.speed;
        opts.start = a.start;
        if (Result<void> r = sp.play(static_cast<uint16_t>(a.clip), 0, opts); !r) {
          return Error::make(r.error().code(), "object %u: %s", static_cast<unsigned>(o),
                             r.error().message());
        }
      }
      obj.frame = sp.frame(0);
      event_capacity += size_t{obj.sheet->max_event_count()} * kSpriteMaxRepeats;
      continue;
    }
    const int rig = info.mesh >= 0 ? pack->meshes()[static_cast<size_t>(info.mesh)].rig : -1;
    if (rig < 0) continue;
    obj.rig = own_rig[o] >= 0 ? &p.rigs_[static_cast<size_t>(own_rig[o])] : &pack->rig(rig);
    const GraphDef* graph = info.animated && a.graph ? &*a.graph : nullptr;
    AnimatorOptions animator_options;
    // A state machine's fades and blend spaces fire each mark once (graph.h, "Events").
    if (graph) animator_options.events = EventPolicy::kLead;
    Result<Animator> animator = Animator::create(obj.rig, tick_rate, animator_options);
    if (!animator) return animator.error();
    obj.animator = static_cast<int>(p.animators_.size());
    p.animators_.push_back(std::move(*animator));
    Animator& an = p.animators_.back();
    const MeshInfo& mesh = pack->meshes()[static_cast<size_t>(info.mesh)];
    if (info.animated && a.root_motion && a.root_motion->policy != RootMotionPolicy::kOff) {
      // Before anything plays: the animator holds the root from the first layer on. The
      // tracks view the pack, which outlives the player.
      RootMotionConfig config = *a.root_motion;
      config.up = mesh.up;
      config.forward = mesh.forward;
      if (Result<void> r = an.set_root_motion(config, a.root_tracks); !r) {
        return Error::make(r.error().code(), "object %u root motion: %s", static_cast<unsigned>(o),
                           r.error().message());
      }
      obj.accumulate = config.policy == RootMotionPolicy::kAccumulate;
    }
    if (info.animated && !a.ik.empty()) {
      Result<IkSet> ik = IkSet::create(&obj.rig->skeleton(), a.ik, mesh.up);
      if (!ik) {
        return Error::make(ik.error().code(), "object %u: %s", static_cast<unsigned>(o),
                           ik.error().message());
      }
      obj.ik = static_cast<int>(p.iks_.size());
      p.iks_.push_back(std::move(*ik));
    }
    if (info.animated) {
      PlayOptions opts;
      opts.speed = a.speed;
      opts.start = a.start;
      opts.playback = a.playback;
      Result<LayerId> started = LayerId{};
      if (!a.blend.empty()) {
        started = an.play_blend(a.blend, 0, opts);
      } else if (a.clip >= 0) {
        started = an.play(static_cast<uint16_t>(a.clip), 0, opts);
      }
      if (!started) {
        return Error::make(started.error().code(), "object %u: %s", static_cast<unsigned>(o),
                           started.error().message());
      }
    }
    if (graph) {
      // The graph indexes the mesh rig's clips, which the object's own rig keeps in order.
      Result<StateMachine> machine = StateMachine::create(graph, &an, 0);
      if (!machine) {
        return Error::make(machine.error().code(), "object %u: %s", static_cast<unsigned>(o),
                           machine.error().message());
      }
      obj.machine = static_cast<int>(p.machines_.size());
      obj.states = !graph->states.empty();
      p.machines_.push_back(std::move(*machine));
    }
    an.evaluate(0);
    p.apply_ik(obj, an);
    obj.previous = p.previous_.size();
    p.previous_.insert(p.previous_.end(), an.palette().begin(), an.palette().end());
    event_capacity +=
        static_cast<size_t>(std::max(16, 2 * kMaxRepeats * obj.rig->max_event_count()));
  }

  if (options.event_capacity != 0) event_capacity = options.event_capacity;
  p.events_.resize(event_capacity);
  p.error_capacity_ = options.error_capacity;
  p.errors_.reserve(p.error_capacity_);
  p.posed_.objects.resize(infos.size());
  for (size_t o = 0; o < p.objects_.size(); ++o) {
    if (p.objects_[o].animator >= 0) p.animated_.push_back(static_cast<uint32_t>(o));
  }
  p.tick_palettes_.resize(p.previous_.size());
  return p;
}

// ---------------------------------------------------------------------------- objects

const ScenePlayer::Object* ScenePlayer::get(ObjectId id) const {
  return id.value < objects_.size() ? &objects_[id.value] : nullptr;
}

Result<ObjectId> ScenePlayer::find(std::string_view name) const {
  for (size_t o = 0; o < objects_.size(); ++o) {
    if (objects_[o].info->name == name) return ObjectId{static_cast<uint32_t>(o)};
  }
  return Error::make(ErrorCode::kInvalidArgument, "no object '%.*s' in the scene",
                     static_cast<int>(std::min<size_t>(name.size(), 80)), name.data());
}

std::string_view ScenePlayer::name(ObjectId object) const {
  const Object* o = get(object);
  return o ? o->info->name : std::string_view();
}

Animator* ScenePlayer::animator(ObjectId object) {
  const Object* o = get(object);
  return o && o->animator >= 0 ? &animators_[static_cast<size_t>(o->animator)] : nullptr;
}

const Animator* ScenePlayer::animator(ObjectId object) const {
  const Object* o = get(object);
  return o && o->animator >= 0 ? &animators_[static_cast<size_t>(o->animator)] : nullptr;
}

SpritePlayer* ScenePlayer::sprite(ObjectId object) {
  const Object* o = get(object);
  return o && o->sprite >= 0 ? &sprites_[static_cast<size_t>(o->sprite)] : nullptr;
}

const SpritePlayer* ScenePlayer::sprite(ObjectId object) const {
  const Object* o = get(object);
  return o && o->sprite >= 0 ? &sprites_[static_cast<size_t>(o->sprite)] : nullptr;
}

const Rig* ScenePlayer::rig(ObjectId object) const {
  const Object* o = get(object);
  return o ? o->rig : nullptr;
}

const SpriteSheet* ScenePlayer::sprite_sheet(ObjectId object) const {
  const Object* o = get(object);
  return o ? o->sheet : nullptr;
}

Mat4 ScenePlayer::model(ObjectId object) const {
  const Object* o = get(object);
  return o ? o->model : Mat4{};
}

Trs ScenePlayer::transform(ObjectId object) const {
  const Object* o = get(object);
  return o ? o->transform : Trs{};
}

Result<void> ScenePlayer::set_transform(ObjectId object, const Trs& transform) {
  const Object* found = get(object);
  if (found == nullptr) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument, "no object %u in the scene",
                                      static_cast<unsigned>(object.value)));
  }
  const std::string_view name = found->info->name;
  const int name_len = static_cast<int>(std::min<size_t>(name.size(), 40));
  const Vec3& t = transform.translation;
  const Quat& r = transform.rotation;
  const Vec3& s = transform.scale;
  const auto finite = [](std::initializer_list<float> values) {
    for (float v : values) {
      if (!std::isfinite(v)) return false;
    }
    return true;
  };
  const char* what = nullptr;
  if (!finite({t.x, t.y, t.z})) {
    what = "a position that is not finite";
  } else if (!finite({r.x, r.y, r.z, r.w})) {
    what = "a rotation that is not finite";
  } else if (!finite({s.x, s.y, s.z})) {
    what = "a scale that is not finite";
  } else if (s.x == 0.0f || s.y == 0.0f || s.z == 0.0f) {
    what = "a scale with a zero component";
  } else {
    const float len2 = dot(r, r);
    if (!(len2 > 0.998f && len2 < 1.002f)) what = "a rotation that is not a unit quaternion";
  }
  if (what != nullptr) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument, "set_transform of %.*s: %s",
                                      name_len, name.data(), what));
  }
  Object& o = objects_[object.value];
  o.transform = transform;
  o.model = to_matrix(transform);
  return ok();
}

// ---------------------------------------------------------------------------- game calls

Result<void> ScenePlayer::refuse(ObjectId object, const Error& error) {
  // Kept (with the tick it acted at) until a later tick's step begins.
  if (errors_.size() < error_capacity_) {
    errors_.push_back({next_tick_, object, error});
  } else {
    ++dropped_errors_;
  }
  return error;
}

Result<void> ScenePlayer::play_clip(ObjectId object, std::string_view clip) {
  return Animate(this, object, clip).done();
}

Animate ScenePlayer::animate(ObjectId object, std::string_view clip) {
  return Animate(this, object, clip);
}

Result<void> ScenePlayer::apply(const Animate& call) {
  const ObjectId id = call.object_;
  const Object* o = get(id);
  if (o == nullptr) {
    return refuse(id, Error::make(ErrorCode::kInvalidArgument, "no object %u in the scene",
                                  static_cast<unsigned>(id.value)));
  }
  const std::string_view name = o->info->name;
  const int name_len = static_cast<int>(std::min<size_t>(name.size(), 40));
  const ObjectAnimationInfo& a = o->info->animation;
  const int64_t tick = next_tick_;
  if (call.fade_ && !(std::isfinite(*call.fade_) && *call.fade_ >= 0.0)) {
    return refuse(id, Error::make(ErrorCode::kInvalidArgument, "%.*s: a fade of %g seconds",
                                  name_len, name.data(), *call.fade_));
  }

  if (o->sprite >= 0) {
    if (call.layer_count_ > 0 || call.too_many_layers_ || call.fade_) {
      return refuse(id, Error::make(ErrorCode::kInvalidArgument,
                                    "%.*s is a sprite: it neither blends nor crossfades", name_len,
                                    name.data()));
    }
    Result<uint16_t> clip = o->sheet->find_clip(call.clip_);
    if (!clip) {
      return refuse(id, Error::make(clip.error().code(), "%.*s: %s", name_len, name.data(),
                                    clip.error().message()));
    }
    SpritePlayOptions opts;
    opts.speed = call.speed_ ? *call.speed_ : a.speed;
    opts.start = call.start_;
    opts.playback = call.playback_;
    SpritePlayer& sp = sprites_[static_cast<size_t>(o->sprite)];
    if (Result<void> r = sp.play(*clip, tick, opts); !r) {
      return refuse(id, Error::make(r.error().code(), "%.*s: %s", name_len, name.data(),
                                    r.error().message()));
    }
    return ok();
  }

  if (o->animator < 0) {
    return refuse(
        id, Error::make(ErrorCode::kInvalidArgument,
                        "%.*s has nothing to animate (no rig, no sprite)", name_len, name.data()));
  }
  if (Result<void> r = refuse_states(id, *o); !r) return r;
  // Check everything first, so that a refused call changes nothing.
  if (call.too_many_layers_) {
    return refuse(id, Error::make(ErrorCode::kTooManyLayers, "%.*s: more than %d layers", name_len,
                                  name.data(), kMaxLayers));
  }
  auto clip_error = [&](const Error& e) {
    return refuse(id, Error::make(e.code(), "%.*s: %s", name_len, name.data(), e.message()));
  };
  Result<uint16_t> clip = o->rig->find_clip(call.clip_);
  if (!clip) return clip_error(clip.error());
  uint16_t layer_clips[kMaxLayers] = {};
  const size_t joints = static_cast<size_t>(o->rig->skeleton().joint_count());
  for (int i = 0; i < call.layer_count_; ++i) {
    const Animate::Layer& layer = call.layers_[i];
    // An additive layer plays the clip's additive version, against its first frame or,
    // failing that, the rest pose (the cooker makes the ones the scene's layers use).
    Result<uint16_t> c = Error(ErrorCode::kUnknownClip);
    if (layer.additive) {
      c = o->rig->find_clip(layer.clip, AdditiveReference::kFirstFrame);
      if (!c) c = o->rig->find_clip(layer.clip, AdditiveReference::kRestPose);
      if (!c) {
        return refuse(id, Error::make(ErrorCode::kUnknownClip,
                                      "%.*s: no additive version of clip '%.*s' in this rig "
                                      "(an additive layer of the scene makes one)",
                                      name_len, name.data(),
                                      static_cast<int>(std::min<size_t>(layer.clip.size(), 80)),
                                      layer.clip.data()));
      }
    } else {
      c = o->rig->find_clip(layer.clip);
    }
    if (!c) return clip_error(c.error());
    if (!valid_weight(layer.weight)) {
      return refuse(id, Error::make(ErrorCode::kBadWeight, "%.*s: blend weight %g is not in [0, 1]",
                                    name_len, name.data(), static_cast<double>(layer.weight)));
    }
    if (!layer.mask.empty() && layer.mask.size() != joints) {
      return refuse(id, Error::make(ErrorCode::kSizeMismatch,
                                    "%.*s: a mask of %zu weights for a rig of %zu joints", name_len,
                                    name.data(), layer.mask.size(), joints));
    }
    for (float w : layer.mask) {
      if (!valid_weight(w)) {
        return refuse(id,
                      Error::make(ErrorCode::kBadWeight, "%.*s: mask weight %g is not in [0, 1]",
                                  name_len, name.data(), static_cast<double>(w)));
      }
    }
    layer_clips[i] = *c;
  }
  PlayOptions opts;
  opts.speed = call.speed_ ? *call.speed_ : a.speed;
  opts.start = call.start_;
  opts.playback = call.playback_ ? *call.playback_ : a.playback;
  Animator& an = animators_[static_cast<size_t>(o->animator)];
  Result<LayerId> first =
      call.fade_ ? an.crossfade(*clip, *call.fade_, tick, opts) : an.play(*clip, tick, opts);
  if (!first) return clip_error(first.error());
  for (int i = 0; i < call.layer_count_; ++i) {
    // Cannot fail: the clip, its mode, weight, mask and options were checked and the new
    // mix has room.
    LayerOptions layer;
    layer.weight = call.layers_[i].weight;
    layer.mask = call.layers_[i].mask;
    layer.mode = call.layers_[i].additive ? LayerMode::kAdditive : LayerMode::kOverride;
    (void)an.add_layer(layer_clips[i], layer, tick, opts);
  }
  return ok();
}

Result<void> ScenePlayer::refuse_states(ObjectId object, const Object& o) {
  if (!o.states) return ok();
  return refuse(object, Error::make(ErrorCode::kInvalidArgument,
                                    "%.*s plays states: use set_parameter, fire_trigger or "
                                    "play_state",
                                    static_cast<int>(std::min<size_t>(o.info->name.size(), 40)),
                                    o.info->name.data()));
}

// ---------------------------------------------------------------------------- state machines

Result<StateMachine*> ScenePlayer::machine_for(ObjectId object) {
  const Object* o = get(object);
  if (o == nullptr) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument, "no object %u in the scene",
                                      static_cast<unsigned>(object.value)))
        .error();
  }
  if (o->machine < 0) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument,
                                      "%.*s has no state machine (no parameters, states or layers)",
                                      static_cast<int>(std::min<size_t>(o->info->name.size(), 40)),
                                      o->info->name.data()))
        .error();
  }
  return &machines_[static_cast<size_t>(o->machine)];
}

namespace {

// A state machine's refusal, named by its object.
Error on_object(std::string_view name, const Error& e) {
  return Error::make(e.code(), "%.*s: %s", static_cast<int>(std::min<size_t>(name.size(), 40)),
                     name.data(), e.message());
}

}  // namespace

Result<void> ScenePlayer::set_parameter(ObjectId object, std::string_view name, float value) {
  Result<StateMachine*> m = machine_for(object);
  if (!m) return m.error();
  if (Result<void> r = (*m)->set_float(name, value); !r)
    return refuse(object, on_object(objects_[object.value].info->name, r.error()));
  return ok();
}

Result<void> ScenePlayer::set_parameter(ObjectId object, std::string_view name, bool value) {
  Result<StateMachine*> m = machine_for(object);
  if (!m) return m.error();
  if (Result<void> r = (*m)->set_bool(name, value); !r)
    return refuse(object, on_object(objects_[object.value].info->name, r.error()));
  return ok();
}

Result<void> ScenePlayer::fire_trigger(ObjectId object, std::string_view name) {
  Result<StateMachine*> m = machine_for(object);
  if (!m) return m.error();
  if (Result<void> r = (*m)->fire_trigger(name); !r)
    return refuse(object, on_object(objects_[object.value].info->name, r.error()));
  return ok();
}

Result<float> ScenePlayer::parameter(ObjectId object, std::string_view name) const {
  const StateMachine* m = state_machine(object);
  if (m == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "object %u has no state machine",
                       static_cast<unsigned>(object.value));
  }
  return m->value(name);
}

std::string_view ScenePlayer::state(ObjectId object) const {
  const StateMachine* m = state_machine(object);
  return m ? m->state_name() : std::string_view();
}

Result<void> ScenePlayer::play_state(ObjectId object, std::string_view state, double seconds) {
  Result<StateMachine*> m = machine_for(object);
  if (!m) return m.error();
  if (Result<void> r = (*m)->play_state(state, seconds, next_tick_); !r)
    return refuse(object, on_object(objects_[object.value].info->name, r.error()));
  return ok();
}

StateMachine* ScenePlayer::state_machine(ObjectId object) {
  const Object* o = get(object);
  return o && o->machine >= 0 ? &machines_[static_cast<size_t>(o->machine)] : nullptr;
}

const StateMachine* ScenePlayer::state_machine(ObjectId object) const {
  const Object* o = get(object);
  return o && o->machine >= 0 ? &machines_[static_cast<size_t>(o->machine)] : nullptr;
}

Result<void> ScenePlayer::blend_clip(ObjectId object, std::string_view clip, float weight) {
  const Object* o = get(object);
  if (o == nullptr) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument, "no object %u in the scene",
                                      static_cast<unsigned>(object.value)));
  }
  const std::string_view name = o->info->name;
  const int name_len = static_cast<int>(std::min<size_t>(name.size(), 40));
  if (o->animator < 0) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument,
                                      o->sprite >= 0 ? "%.*s is a sprite: it does not blend"
                                                     : "%.*s has nothing to animate",
                                      name_len, name.data()));
  }
  if (Result<void> refused = refuse_states(object, *o); !refused) return refused;
  PlayOptions opts;
  opts.speed = o->info->animation.speed;
  opts.playback = o->info->animation.playback;
  Animator& an = animators_[static_cast<size_t>(o->animator)];
  Result<LayerId> r = an.blend(clip, weight, next_tick_, opts);
  if (!r) {
    return refuse(object, Error::make(r.error().code(), "%.*s: %s", name_len, name.data(),
                                      r.error().message()));
  }
  return ok();
}

Result<void> ScenePlayer::stop_animation(ObjectId object) {
  const Object* o = get(object);
  if (o != nullptr && o->animator >= 0) {
    if (Result<void> r = refuse_states(object, *o); !r) return r;
    Animator& animator = animators_[static_cast<size_t>(o->animator)];
    if (o->machine >= 0) {
      animator.stop_mixes();  // the object's layers (its machine's overlays) play on
    } else {
      animator.stop();
    }
    return ok();
  }
  if (o != nullptr && o->sprite >= 0) {
    sprites_[static_cast<size_t>(o->sprite)].stop();
    return ok();
  }
  if (o == nullptr) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument, "no object %u in the scene",
                                      static_cast<unsigned>(object.value)));
  }
  return refuse(object, Error::make(ErrorCode::kInvalidArgument, "%.*s has nothing to animate",
                                    static_cast<int>(std::min<size_t>(o->info->name.size(), 40)),
                                    o->info->name.data()));
}

// ---------------------------------------------------------------------------- root motion, IK

Result<RootMotionDelta> ScenePlayer::take_root_motion(ObjectId object) {
  const Object* o = get(object);
  if (o == nullptr) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument, "no object %u in the scene",
                                      static_cast<unsigned>(object.value)))
        .error();
  }
  if (!o->accumulate) {
    const Animator* an = animator(object);
    const RootMotionPolicy policy =
        an != nullptr ? an->root_motion().policy : RootMotionPolicy::kOff;
    return refuse(object,
                  Error::make(ErrorCode::kInvalidArgument,
                              "%.*s has root motion policy %s: only accumulate collects motion",
                              static_cast<int>(std::min<size_t>(o->info->name.size(), 40)),
                              o->info->name.data(), root_motion_policy_name(policy)))
        .error();
  }
  return animators_[static_cast<size_t>(o->animator)].take_root_motion();
}

Result<std::pair<IkSet*, int>> ScenePlayer::solver_for(ObjectId object, std::string_view solver) {
  const Object* o = get(object);
  if (o == nullptr) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument, "no object %u in the scene",
                                      static_cast<unsigned>(object.value)))
        .error();
  }
  const int name_len = static_cast<int>(std::min<size_t>(o->info->name.size(), 40));
  if (o->ik < 0) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument, "%.*s has no IK solvers",
                                      name_len, o->info->name.data()))
        .error();
  }
  IkSet& set = iks_[static_cast<size_t>(o->ik)];
  const int index = set.find(solver);
  if (index < 0) {
    return refuse(object,
                  Error::make(ErrorCode::kInvalidArgument, "%.*s has no IK solver '%.*s'", name_len,
                              o->info->name.data(),
                              static_cast<int>(std::min<size_t>(solver.size(), 80)), solver.data()))
        .error();
  }
  return std::pair<IkSet*, int>(&set, index);
}

Result<void> ScenePlayer::ik_result(ObjectId object, std::string_view solver,
                                    const Result<void>& r) {
  if (r) return ok();
  const std::string_view name = objects_[object.value].info->name;
  return refuse(object,
                Error::make(r.error().code(), "%.*s IK solver '%.*s': %s",
                            static_cast<int>(std::min<size_t>(name.size(), 40)), name.data(),
                            static_cast<int>(std::min<size_t>(solver.size(), 40)), solver.data(),
                            r.error().message()));
}

Result<void> ScenePlayer::set_ik_target(ObjectId object, std::string_view solver, Vec3 target) {
  Result<std::pair<IkSet*, int>> s = solver_for(object, solver);
  if (!s) return s.error();
  return ik_result(object, solver, s->first->set_target(s->second, target));
}

Result<void> ScenePlayer::clear_ik_target(ObjectId object, std::string_view solver) {
  Result<std::pair<IkSet*, int>> s = solver_for(object, solver);
  if (!s) return s.error();
  return ik_result(object, solver, s->first->clear_target(s->second));
}

Result<void> ScenePlayer::set_ik_pole(ObjectId object, std::string_view solver, Vec3 pole) {
  Result<std::pair<IkSet*, int>> s = solver_for(object, solver);
  if (!s) return s.error();
  return ik_result(object, solver, s->first->set_pole(s->second, pole));
}

Result<void> ScenePlayer::set_ik_weight(ObjectId object, std::string_view solver, float weight) {
  Result<std::pair<IkSet*, int>> s = solver_for(object, solver);
  if (!s) return s.error();
  return ik_result(object, solver, s->first->set_weight(s->second, weight));
}

Result<void> ScenePlayer::set_ik_ground(ObjectId object, std::string_view solver, float height,
                                        Vec3 normal) {
  Result<std::pair<IkSet*, int>> s = solver_for(object, solver);
  if (!s) return s.error();
  return ik_result(object, solver, s->first->set_ground(s->second, height, normal));
}

IkSet* ScenePlayer::ik(ObjectId object) {
  const Object* o = get(object);
  return o && o->ik >= 0 ? &iks_[static_cast<size_t>(o->ik)] : nullptr;
}

const IkSet* ScenePlayer::ik(ObjectId object) const {
  const Object* o = get(object);
  return o && o->ik >= 0 ? &iks_[static_cast<size_t>(o->ik)] : nullptr;
}

Vec3 ScenePlayer::object_point(ObjectId object, Vec3 world) const {
  const Object* o = get(object);
  if (o == nullptr) return world;
  return transform_point(inverse_affine(o->model), world);
}

// ---------------------------------------------------------------------------- morph targets

Result<Animator*> ScenePlayer::morph_animator(ObjectId object) {
  const Object* o = get(object);
  if (o == nullptr) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument, "no object %u in the scene",
                                      static_cast<unsigned>(object.value)))
        .error();
  }
  if (o->animator < 0 || o->rig == nullptr || o->rig->morph_weight_count() == 0) {
    return refuse(object, Error::make(ErrorCode::kInvalidArgument, "%.*s has no morph targets",
                                      static_cast<int>(std::min<size_t>(o->info->name.size(), 40)),
                                      o->info->name.data()))
        .error();
  }
  return &animators_[static_cast<size_t>(o->animator)];
}

Result<void> ScenePlayer::set_morph_weight(ObjectId object, std::string_view target, float weight) {
  Result<Animator*> an = morph_animator(object);
  if (!an) return an.error();
  if (Result<void> r = (*an)->set_morph_weight(target, weight); !r) {
    return refuse(object, on_object(objects_[object.value].info->name, r.error()));
  }
  return ok();
}

Result<void> ScenePlayer::clear_morph_weight(ObjectId object, std::string_view target) {
  Result<Animator*> an = morph_animator(object);
  if (!an) return an.error();
  if (Result<void> r = (*an)->clear_morph_weight(target); !r) {
    return refuse(object, on_object(objects_[object.value].info->name, r.error()));
  }
  return ok();
}

std::span<const float> ScenePlayer::morph_weights(ObjectId object) const {
  const Animator* an = animator(object);
  return an != nullptr ? an->morph_weights() : std::span<const float>();
}

void ScenePlayer::apply_ik(const Object& o, Animator& animator) {
  if (o.ik < 0) return;
  iks_[static_cast<size_t>(o.ik)].apply(animator.mutable_locals(), animator.mutable_globals());
  animator.refresh_palette();
}

// ---------------------------------------------------------------------------- ticks

void ScenePlayer::push_event(const AnimationEvent& event) {
  if (event_count_ < events_.size()) {
    events_[event_count_++] = event;
  } else {
    ++dropped_events_;
  }
}

void ScenePlayer::step(Game* game) {
  const int64_t t = next_tick_;
  // Refused calls that acted before this tick go; the ones made since the last step
  // (acting at t) stay. Erasing a prefix never allocates.
  size_t keep = 0;
  while (keep < errors_.size() && errors_[keep].tick < t) ++keep;
  errors_.erase(errors_.begin(), errors_.begin() + static_cast<std::ptrdiff_t>(keep));
  event_count_ = 0;

  if (game != nullptr) game->tick(*this, t);

  if (jobs_ != nullptr) {
    // Two passes ("Threads" in scene_player.h): advance and events here, in object order;
    // then evaluate, IK and palettes as one parallel-for.
    for (size_t i = 0; i < objects_.size(); ++i) {
      Object& o = objects_[i];
      const ObjectId id{static_cast<uint32_t>(i)};
      if (o.animator >= 0) {
        Animator& an = animators_[static_cast<size_t>(o.animator)];
        if (o.machine >= 0) machines_[static_cast<size_t>(o.machine)].update(t);
        for (const AnimEvent& e : an.advance(t)) {
          push_event({t, id, false, e.clip, o.rig->clips()[e.clip].name(), e.name});
        }
      } else if (o.sprite >= 0) {
        SpritePlayer& sp = sprites_[static_cast<size_t>(o.sprite)];
        for (const SpriteEvent& e : sp.advance(t)) {
          push_event({t, id, true, e.clip, o.sheet->clips()[e.clip].name(), e.name});
        }
        o.frame = sp.frame(t);
      }
    }
    evaluate_tick_ = t;
    jobs_->run(static_cast<uint32_t>(animated_.size()), &ScenePlayer::evaluate_objects, this);
    tick_ = t;
    next_tick_ = t + 1;
    stepped_ = true;
    rendered_ = false;
    render_fraction_ = 0.0f;
    if (game != nullptr && event_count_ > 0) game->animated(*this, animation_events());
    return;
  }

  for (size_t i = 0; i < objects_.size(); ++i) {
    Object& o = objects_[i];
    const ObjectId id{static_cast<uint32_t>(i)};
    if (o.animator >= 0) {
      Animator& an = animators_[static_cast<size_t>(o.animator)];
      // The palette at tick_ (kept aside if a render pose replaced it).
      const std::span<const Mat4> before =
          rendered_ ? std::span<const Mat4>(tick_palettes_.data() + o.previous, an.palette().size())
                    : an.palette();
      Mat4* previous = previous_.data() + o.previous;
      if (stepped_) std::copy(before.begin(), before.end(), previous);
      if (o.machine >= 0) machines_[static_cast<size_t>(o.machine)].update(t);
      for (const AnimEvent& e : an.advance(t)) {
        push_event({t, id, false, e.clip, o.rig->clips()[e.clip].name(), e.name});
      }
      an.evaluate(t);
      apply_ik(o, an);
      if (!stepped_) std::copy(an.palette().begin(), an.palette().end(), previous);
    } else if (o.sprite >= 0) {
      SpritePlayer& sp = sprites_[static_cast<size_t>(o.sprite)];
      for (const SpriteEvent& e : sp.advance(t)) {
        push_event({t, id, true, e.clip, o.sheet->clips()[e.clip].name(), e.name});
      }
      o.frame = sp.frame(t);
    }
  }
  tick_ = t;
  next_tick_ = t + 1;
  stepped_ = true;
  rendered_ = false;
  render_fraction_ = 0.0f;
  if (game != nullptr && event_count_ > 0) game->animated(*this, animation_events());
}

void ScenePlayer::evaluate_objects(void* player, uint32_t begin, uint32_t end) {
  ScenePlayer& p = *static_cast<ScenePlayer*>(player);
  const int64_t t = p.evaluate_tick_;
  for (uint32_t k = begin; k < end; ++k) {
    const Object& o = p.objects_[p.animated_[k]];
    Animator& an = p.animators_[static_cast<size_t>(o.animator)];
    Mat4* previous = p.previous_.data() + o.previous;
    // advance() and the state machine's update() leave the palette as it was: this is
    // the previous tick's (kept aside if a render pose replaced it), as the one-thread
    // loop copies it before them.
    const std::span<const Mat4> before =
        p.rendered_
            ? std::span<const Mat4>(p.tick_palettes_.data() + o.previous, an.palette().size())
            : an.palette();
    if (p.stepped_) std::copy(before.begin(), before.end(), previous);
    an.evaluate(t);
    p.apply_ik(o, an);
    if (!p.stepped_) std::copy(an.palette().begin(), an.palette().end(), previous);
  }
}

void ScenePlayer::set_job_runner(JobRunner* runner) {
  jobs_ = runner != nullptr ? runner : pool_.get();
}

Result<void> ScenePlayer::evaluate_render(float fraction) {
  if (!(fraction >= 0.0f && fraction < 1.0f)) {  // false for NaN
    return Error::make(ErrorCode::kInvalidArgument, "render fraction %g is not in [0, 1)",
                       static_cast<double>(fraction));
  }
  for (const Object& o : objects_) {
    if (o.animator < 0) continue;
    Animator& an = animators_[static_cast<size_t>(o.animator)];
    if (!rendered_) {
      std::copy(an.palette().begin(), an.palette().end(), tick_palettes_.data() + o.previous);
    }
    (void)an.evaluate(tick_, fraction);  // cannot fail: a rig, a fraction in [0, 1)
    apply_ik(o, an);
  }
  rendered_ = true;
  render_fraction_ = fraction;
  return ok();
}

// ---------------------------------------------------------------------------- results

std::span<const Mat4> ScenePlayer::palette(ObjectId object) const {
  const Object* o = get(object);
  if (o == nullptr || o->animator < 0) return {};
  return animators_[static_cast<size_t>(o->animator)].palette();
}

uint32_t ScenePlayer::sprite_frame(ObjectId object) const {
  const Object* o = get(object);
  return o != nullptr && o->sprite >= 0 ? o->frame : 0;
}

Result<Box> ScenePlayer::world_bounds(ObjectId object) const {
  const Object* o = get(object);
  if (o == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "no object %u in the scene", object.value);
  }
  const Mat4& m = o->model;
  const Vec3 position{m.m[12], m.m[13], m.m[14]};
  const int mesh = o->info->mesh;
  if (mesh < 0) {
    // A sprite without a card: its 1-unit-high card (aspect of the frame it shows) turned
    // any way about its position, scaled by the largest column of its matrix.
    if (o->sheet == nullptr) return Box{};  // nothing drawn
    const std::span<const PixelRect> frames = o->sheet->atlas().frames();
    float aspect = 1.0f;
    if (o->frame < frames.size() && frames[o->frame].height > 0) {
      aspect =
          static_cast<float>(frames[o->frame].width) / static_cast<float>(frames[o->frame].height);
    }
    const float scale =
        std::max({length({m.m[0], m.m[1], m.m[2]}), length({m.m[4], m.m[5], m.m[6]}),
                  length({m.m[8], m.m[9], m.m[10]})});
    const float r = length({0.5f * aspect, 0.5f, 0.0f}) * scale;
    Box card;
    card.grow(position - Vec3{r, r, r});
    card.grow(position + Vec3{r, r, r});
    return with_margin(card);
  }
  const MeshBounds& bounds = pack_->mesh_bounds(mesh);
  if (!bounds.bind.valid()) {
    if (pack_->meshes()[static_cast<size_t>(mesh)].part_count > 0) {
      return Error::make(ErrorCode::kBadPack,
                         "mesh %d has no bounds (a version %u pack): cook it again", mesh,
                         pack_->format_version());
    }
    return Box{};  // a mesh without parts draws nothing
  }
  const Box posed = posed_bounds(bounds, palette(object));
  if (!o->info->face_camera) return with_margin(transform_box(posed, m));
  // face_camera: posed() turns R * S about +y through the position, by any angle.
  Mat4 local = m;
  local.m[12] = local.m[13] = local.m[14] = 0.0f;
  const Box turned = transform_box(posed, local);
  if (!turned.valid()) return turned;
  float r = 0.0f;
  for (float x : {turned.lo.x, turned.hi.x}) {
    for (float z : {turned.lo.z, turned.hi.z}) r = std::max(r, length({x, 0.0f, z}));
  }
  Box out;
  out.grow({position.x - r, position.y + turned.lo.y, position.z - r});
  out.grow({position.x + r, position.y + turned.hi.y, position.z + r});
  return with_margin(out);
}

const Posed& ScenePlayer::posed(const Camera* camera) {
  posed_.tick = tick_;
  posed_.fraction = render_fraction_;
  for (size_t i = 0; i < objects_.size(); ++i) {
    const Object& o = objects_[i];
    PosedObject& out = posed_.objects[i];
    out.object = static_cast<int>(i);
    out.mesh = o.info->mesh;
    out.model = camera != nullptr && o.info->face_camera ? face(o.model, *camera) : o.model;
    if (o.animator >= 0) {
      const Animator& an = animators_[static_cast<size_t>(o.animator)];
      out.palette = an.palette();
      out.previous_palette = {previous_.data() + o.previous, out.palette.size()};
      out.morph_weights = an.morph_weights();
    } else {
      out.palette = {};
      out.previous_palette = {};
      out.morph_weights = {};
    }
    out.sprite_sheet = o.sprite >= 0 ? o.info->animation.sprite_sheet : -1;
    out.sprite_frame = o.sprite >= 0 ? o.frame : 0;
  }
  return posed_;
}

uint64_t ScenePlayer::dropped_events() const {
  uint64_t n = dropped_events_;
  for (const Animator& a : animators_) n += a.dropped_events();
  for (const SpritePlayer& s : sprites_) n += s.dropped_events();
  return n;
}

}  // namespace animpack
