// The scene player: a pack's objects played by tick, the way a game plays them.
//
//   auto pack = animpack::Pack::open("scene.anpk");
//   auto player = animpack::ScenePlayer::create(&*pack, /*tick_rate=*/60);
//   if (!player) return player.error();
//   const animpack::ObjectId hero = *player->find("hero");      // once, at setup
//
//   struct MyGame : animpack::Game {
//     animpack::ObjectId hero;
//     void tick(animpack::ScenePlayer& p, int64_t tick) override {
//       if (tick == 120) p.animate(hero, "Run").fade(0.2);        // plays from tick 120
//     }
//     void animated(animpack::ScenePlayer&,
//                   std::span<const animpack::AnimationEvent> events) override {
//       for (const animpack::AnimationEvent& e : events) if (e.event == "step") play_sound();
//     }
//   } game;
//   game.hero = hero;
//   for (int i = 0; i < 600; ++i) {
//     player->step(&game);
//     draw(player->posed(&camera));                               // the pose at this tick
//   }
//
// What create() sets up:
// - Every object whose mesh has a rig gets an Animator; every sprite object (an
//   [object.animation] with an atlas) a SpritePlayer; both at the game's tick rate.
// - Each object plays on its own rig: the mesh rig's skeleton and clips (keys still viewed
//   in the pack) with the object's own [object.animation] events added to its clips, so
//   events are per object. A sprite object's sheet gets its object's events the same way
//   (an event the sheet already holds, as the cooker writes them, is not added twice).
// - What [object.animation] plays starts at tick 0 with its speed, playback, start and
//   blend. An object with nothing to play holds the rest pose; a sprite its still frame:
//   the first frame of its [object.animation] clip, or atlas frame 0 when it names none.
// - An object whose animation has a graph (pack format 3: parameters, states,
//   transitions, layers; ObjectAnimationInfo::graph) gets its Animator with
//   EventPolicy::kLead and a StateMachine over it created at tick 0 (after its clip or
//   blend, if it has layers only): the first state and the layers start at tick 0.
// - An object with root motion (pack format 4; ObjectAnimationInfo::root_motion, policy
//   in_place or accumulate) gets Animator::set_root_motion before it plays, with its
//   mesh's up and forward axes and the pack's tracks; one with IK solvers an IkSet on its
//   rig's skeleton with its mesh's up axis. Each step then runs, per object, advance,
//   evaluate, the IK solvers (IkSet::apply) and the palette, so palette(), posed() and
//   world_bounds() show the IK'd pose (and the previous palette is the previous IK'd one).
//
// Ticks. The player counts ticks from 0. step() runs tick play_tick(): the game's
// Game::tick first, then per object (in order) its state machine's update (at most one
// transition, then parameter changes) and its animator's or sprite player's advance to
// that tick, then the tick's events are kept for animation_events() and handed to
// Game::animated (only on ticks that have any). Every call that starts or changes play
// (play_clip, animate, blend_clip, stop_animation) acts at play_tick(): inside Game::tick
// that is the tick being stepped, so a clip started there plays from that tick and its
// marks at 0 fire on it; between steps (and inside Game::animated) it is the next tick to
// be stepped. Poses, palette(), sprite_frame() and posed() show tick(), the latest tick
// stepped (tick 0, no events, before the first step), or a pose between it and the next
// after evaluate_render(fraction) (a frame rendered between ticks; see it).
//
// Errors. Refused calls (an unknown clip, a sprite asked to blend or crossfade, a bad
// weight, speed, start or fade) return their Error and are also kept in
// animation_errors() with the object and the tick they acted at, until a later tick's
// step begins; on a refusal nothing changes. An unknown clip is never silent.
//
// Determinism: the same pack, tick rate and calls give the same poses and events bit for
// bit on every platform and build (tests/player/ holds a golden hash over 240 ticks).
// Memory: create() allocates everything; step(), the calls above and posed() never
// allocate (tests/player/allocation_test.cpp). Not thread-safe: one thread calls the
// player (step() may use others, below). The Pack must outlive the player and stay where
// it is.
//
// Threads. With a JobRunner (jobs.h: the game's job system, ScenePlayerOptions::job_runner
// or set_job_runner) or a built-in ThreadPool (ScenePlayerOptions::threads), step() runs
// in two passes: first, on the calling thread and in object order, Game::tick, every
// state machine's update, every animator's and sprite player's advance and the events;
// then, as one parallel-for over the animated objects, each one's evaluate, IK and
// palette (and its previous palette). Every object's work reads only its own animator,
// IK set and the const rig and pack, and writes only its own buffers, so palettes, poses,
// events and errors are the same bits as on one thread, whatever the thread count
// (tests/player/scene_threads_test.cpp). Game::animated runs after both, on the calling
// thread. The built-in pool allocates nothing per step either.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "animpack/animator.h"
#include "animpack/camera.h"
#include "animpack/clip.h"
#include "animpack/graph.h"
#include "animpack/ik.h"
#include "animpack/jobs.h"
#include "animpack/math.h"
#include "animpack/pack.h"
#include "animpack/posed.h"
#include "animpack/result.h"
#include "animpack/rig.h"
#include "animpack/root_motion.h"
#include "animpack/sprite.h"

namespace animpack {

class ScenePlayer;

// A scene object, found by name once with ScenePlayer::find(). The value is the object's
// index in Pack::objects(); a default ObjectId names no object.
struct ObjectId {
  static constexpr uint32_t kNone = 0xffffffffu;  // the value of an id naming no object
  uint32_t value = kNone;                         // the object's index in Pack::objects()
  friend bool operator==(ObjectId a, ObjectId b) { return a.value == b.value; }
};

// One event of the latest tick: an object's clip passed one of its marks.
struct AnimationEvent {
  int64_t tick = 0;            // the tick stepped
  ObjectId object;             // the object whose clip fired it
  bool sprite = false;         // true: a sprite clip (clip indexes its sheet's clips)
  uint16_t clip = 0;           // index of the clip in the object's rig or sprite sheet
  std::string_view clip_name;  // the clip's name (owned by the player or the pack)
  std::string_view event;      // the event's name (owned by the player or the pack)
};

// One refused call, kept until a later tick's step begins.
struct AnimationError {
  int64_t tick = 0;  // the tick the call acted at (play_tick() when it was made)
  ObjectId object;   // the object it was made on (possibly an invalid id)
  Error error;       // what was refused, e.g. kUnknownClip
};

// Sizes fixed at create().
struct ScenePlayerOptions {
  // The most events one tick keeps; 0 = the sum of every player's own buffer, so no
  // event can be lost. Events beyond it are counted by dropped_events().
  uint32_t event_capacity = 0;
  // The most refused calls kept at once; beyond it they are counted by dropped_errors()
  // (the calls still return their Error).
  uint32_t error_capacity = 64;
  // step() evaluates objects on this runner (jobs.h; it must outlive the player or be
  // replaced with set_job_runner first). Null: on the player's own pool of `threads`.
  JobRunner* job_runner = nullptr;
  // 0 or 1: step() runs on the calling thread alone (unless job_runner is set). More:
  // create() starts a ThreadPool of that many threads (the caller's and threads - 1
  // workers; at most ThreadPool::kMaxThreads) that the player owns and step() uses.
  // Setting both this above 1 and job_runner is kInvalidArgument.
  uint32_t threads = 0;
};

// A game's hooks into ScenePlayer::step(). Both do nothing by default.
class Game {
 public:
  virtual ~Game() = default;
  // Runs first in every step, with the tick being stepped; calls made here act at it.
  virtual void tick(ScenePlayer& player, int64_t tick);
  // Runs last in a step that has events (the span is animation_events()); calls made
  // here act at the next tick.
  virtual void animated(ScenePlayer& player, std::span<const AnimationEvent> events);
};

// A play call in the making: ScenePlayer::animate() returns one. Set what you need and
// call done() for the result; a builder that is not done() applies itself when it is
// destroyed (so `player.animate(hero, "Walk").blend("Run", 0.3f);` plays), its error
// then only in animation_errors(). Clip names are views: they must live until the
// builder applies. Not copyable.
class Animate {
 public:
  // Takes over `other`'s call; `other` then applies nothing.
  Animate(Animate&& other) noexcept;
  Animate& operator=(Animate&&) = delete;
  Animate(const Animate&) = delete;
  Animate& operator=(const Animate&) = delete;
  // Applies the call unless done() did.
  ~Animate();

  // Adds a layer playing `clip` over the ones before it by `weight` (in [0, 1]):
  // animate(o, "Walk").blend("Run", 0.3f) is 70% Walk and 30% Run where both move a
  // joint. At most kMaxLayers - 1 blends (kTooManyLayers). Sprites refuse it
  // (kInvalidArgument).
  Animate& blend(std::string_view clip, float weight);
  // Like blend(), with a joint mask (one weight per joint of the object's rig, e.g. from
  // make_joint_mask in layers.h; copied when the builder applies, so it must live until
  // then). kSizeMismatch for a mask of the wrong size.
  Animate& blend(std::string_view clip, float weight, std::span<const float> mask);
  // Adds an additive layer: the additive version of `clip` cooked into the pack (an
  // additive [[object.animation.layers]] entry of some object on this mesh makes one;
  // Rig::find_clip(name, reference)) adding its deltas by `weight` (times `mask`, if not
  // empty). kUnknownClip when the pack has no additive version of that clip.
  Animate& additive(std::string_view clip, float weight, std::span<const float> mask = {});
  // Crossfades from what played over `seconds` (rounded to ticks; 0: at once) instead of
  // replacing it. Sprites refuse it (kInvalidArgument).
  Animate& fade(double seconds);
  // Clip seconds per second, 0 or more (kBadSpeed); default: the object's `speed`.
  Animate& speed(float speed);
  // Seconds into the clip to start at, 0 or more (kBadStart); default 0.
  Animate& start(double seconds);
  // Playback: once (hold the end), looped, ping-pong. Default: the object's `playback`
  // for a skeletal clip, the sprite clip's own for a sprite.
  Animate& once() { return playback(Playback::kOnce); }
  Animate& looped() { return playback(Playback::kLoop); }
  Animate& ping_pong() { return playback(Playback::kPingPong); }
  Animate& playback(Playback playback);
  // Applies the call now and returns its first error (also kept in animation_errors()).
  // Nothing changes when it fails. A second done() returns the first one's result.
  Result<void> done();

 private:
  friend class ScenePlayer;
  struct Layer {
    std::string_view clip;
    float weight = 0;
    std::span<const float> mask;
    bool additive = false;
  };
  Animate(ScenePlayer* player, ObjectId object, std::string_view clip)
      : player_(player), object_(object), clip_(clip) {}

  ScenePlayer* player_ = nullptr;  // null once applied
  ObjectId object_;
  std::string_view clip_;
  Layer layers_[kMaxLayers];
  int layer_count_ = 0;
  bool too_many_layers_ = false;
  std::optional<double> fade_;
  std::optional<float> speed_;
  double start_ = 0.0;
  std::optional<Playback> playback_;
  Result<void> result_;
};

// Plays a pack's objects by tick. Movable, not copyable.
class ScenePlayer {
 public:
  // Moving keeps every span and pointer the player handed out valid (they point into
  // buffers the player owns on the heap).
  ScenePlayer(ScenePlayer&&) noexcept;
  ScenePlayer& operator=(ScenePlayer&&) noexcept;
  ScenePlayer(const ScenePlayer&) = delete;
  ScenePlayer& operator=(const ScenePlayer&) = delete;
  ~ScenePlayer();

  // Sets up every object of `pack` (which must outlive the player) at `tick_rate` ticks a
  // second and starts what their [object.animation] plays at tick 0. Fails with
  // kInvalidArgument for a null pack, kBadTickRate for tick_rate <= 0, and with the
  // rig's, animator's or sprite player's error when an object cannot be set up (a pack
  // that passed Pack::open's checks always can).
  static Result<ScenePlayer> create(const Pack* pack, int32_t tick_rate = 60,
                                    const ScenePlayerOptions& options = {});

  // ---------------------------------------------------------------- objects

  // The object with this name (the first, should two share it); kInvalidArgument when
  // there is none. Look names up once, at setup: it compares strings.
  Result<ObjectId> find(std::string_view name) const;
  // How many objects the scene has; ObjectId{i} for i below it names object i.
  uint32_t object_count() const { return static_cast<uint32_t>(objects_.size()); }
  // The object's name; empty for an invalid id.
  std::string_view name(ObjectId object) const;
  // The object's animator (objects whose mesh has a rig) or nullptr. Calls on it act at
  // the tick you give: pass play_tick() to act as the player's own calls do.
  Animator* animator(ObjectId object);
  const Animator* animator(ObjectId object) const;
  // The object's sprite player (sprite objects) or nullptr.
  SpritePlayer* sprite(ObjectId object);
  const SpritePlayer* sprite(ObjectId object) const;
  // The rig the object's animator plays (its mesh rig with the object's events), or
  // nullptr.
  const Rig* rig(ObjectId object) const;
  // The sprite sheet the object's sprite player plays (with the object's events), or
  // nullptr.
  const SpriteSheet* sprite_sheet(ObjectId object) const;
  // The object's matrix from its transform (T * R * S): the scene's, until the game sets
  // another with set_transform(); identity for an invalid id.
  Mat4 model(ObjectId object) const;
  // The object's transform: the scene's position, rotation and scale, or the latest
  // set_transform(); the identity Trs for an invalid id.
  Trs transform(ObjectId object) const;
  // Places the object in the world (what a game does with the motion take_root_motion()
  // hands it): model(), posed(), world_bounds() and object_point() use `transform` from
  // now on, at once (the pose is the object's own, so it does not change). Errors (also
  // kept in animation_errors(); nothing changes): kInvalidArgument for an invalid id, a
  // position, rotation or scale that is not finite, a rotation that is not a unit
  // quaternion (length within 1e-3 of 1), or a scale with a zero component. Never
  // allocates.
  Result<void> set_transform(ObjectId object, const Trs& transform);

  // ---------------------------------------------------------------- game calls

  // Starts `clip` at play_tick(), replacing what played: a rig clip with the object's
  // `speed` and `playback` as defaults, or a sprite clip with its speed and the clip's
  // own playback. Errors (also kept in animation_errors()): kInvalidArgument for an
  // invalid id, an object with nothing to animate, or one with states (its state machine
  // decides what plays: use set_parameter, fire_trigger, play_state), kUnknownClip.
  // Objects with layers but no states take play calls; their layers stay over them.
  Result<void> play_clip(ObjectId object, std::string_view clip);
  // The same as a builder: blend, fade, speed, start, playback, then done() (or let it
  // apply when it is destroyed). See Animate.
  Animate animate(ObjectId object, std::string_view clip);
  // Adds a layer playing `clip` over what the object plays, by `weight` in [0, 1], with
  // the object's speed and playback (Animator::blend). Errors as play_clip (objects with
  // states refuse it), and
  // kNothingPlaying, kTooManyLayers, kBadWeight; a sprite refuses (kInvalidArgument).
  Result<void> blend_clip(ObjectId object, std::string_view clip, float weight);
  // Stops the object's animation: the rest pose, or the sprite's still frame. An object
  // with layers but no states keeps its layers playing over the rest pose (they are part
  // of the object, as its scene declares it; Animator::stop_mixes); one with states
  // refuses (kInvalidArgument: use play_state). Errors: kInvalidArgument for an invalid
  // id or an object with nothing to animate.
  Result<void> stop_animation(ObjectId object);

  // ---------------------------------------------------------------- state machines

  // An object whose [object.animation] has parameters, states or layers plays them
  // through a StateMachine (graph.h) over its animator (created with EventPolicy::kLead).
  // These act at play_tick() (a value set inside Game::tick is seen by that tick's
  // transitions). Errors (also kept in animation_errors()): kInvalidArgument for an
  // invalid id or an object without a state machine, and StateMachine's
  // (kUnknownParameter, kWrongParameterKind, kBadParameterValue, kUnknownState).
  Result<void> set_parameter(ObjectId object, std::string_view name, float value);
  Result<void> set_parameter(ObjectId object, std::string_view name, bool value);
  Result<void> set_parameter(ObjectId, std::string_view, int) = delete;  // say 1.0f or true
  Result<void> fire_trigger(ObjectId object, std::string_view name);
  // A parameter's value (StateMachine::value); errors as above, not kept.
  Result<float> parameter(ObjectId object, std::string_view name) const;
  // The object's current state's name; empty for an object without states.
  std::string_view state(ObjectId object) const;
  // Goes to a state now, fading over `seconds` (StateMachine::play_state).
  Result<void> play_state(ObjectId object, std::string_view state, double seconds = 0.0);
  // The object's state machine, or nullptr.
  StateMachine* state_machine(ObjectId object);
  const StateMachine* state_machine(ObjectId object) const;

  // ---------------------------------------------------------------- root motion and IK

  // An object whose [object.animation] has root_motion (pack format 4) plays with its
  // root joint held in place (root_motion.h); with policy accumulate, step() collects the
  // motion, and this returns what was collected since the previous call (in the object's
  // frame at that call; root_motion_translation() and root_motion_yaw() convert it) and
  // starts again. The player never moves the object itself: the game does, with
  // set_transform() (translate in the object's own frame, then turn by the yaw).
  // Errors (also kept in animation_errors()): kInvalidArgument for an invalid id or an
  // object whose policy is not accumulate.
  Result<RootMotionDelta> take_root_motion(ObjectId object);
  // The object's IK solvers ([[object.animation.ik]], in the scene's order; ik.h) run
  // after its pose is evaluated, every tick, before palette() and posed(). Positions and
  // directions are in the object's space (its mesh's space, before model(): the space of
  // Animator::globals()); object_point() maps a world point there. The values hold from
  // the next step on. Errors (also kept): kInvalidArgument for an invalid id, an object
  // without IK or an unknown solver name (naming it), and IkSet's.
  Result<void> set_ik_target(ObjectId object, std::string_view solver, Vec3 target);
  Result<void> clear_ik_target(ObjectId object, std::string_view solver);
  Result<void> set_ik_pole(ObjectId object, std::string_view solver, Vec3 pole);
  Result<void> set_ik_weight(ObjectId object, std::string_view solver, float weight);
  // A foot solver's ground: height along the mesh's up axis relative to the object's
  // floor, and the ground's unit normal.
  Result<void> set_ik_ground(ObjectId object, std::string_view solver, float height, Vec3 normal);
  // The object's IK set, or nullptr.
  IkSet* ik(ObjectId object);
  const IkSet* ik(ObjectId object) const;
  // inverse(model(object)) applied to a world point; the point itself for an invalid id.
  Vec3 object_point(ObjectId object, Vec3 world) const;

  // ---------------------------------------------------------------- morph targets

  // An object whose mesh rig has morph sets (pack format 5) poses their weights every
  // tick with its joints (Animator::morph_weights(); posed() hands them to renderers).
  // The game may override a target's weight by name ("set/target", or a target name one
  // set alone has: Rig::find_morph_target), from the next step on, until cleared.
  // Errors (also kept): kInvalidArgument for an invalid id or an object without morph
  // sets, the Animator's (kUnknownMorphTarget naming the target, kBadWeight).
  Result<void> set_morph_weight(ObjectId object, std::string_view target, float weight);
  Result<void> clear_morph_weight(ObjectId object, std::string_view target);
  // The object's current morph weights (empty for an invalid id or no morph sets).
  std::span<const float> morph_weights(ObjectId object) const;

  // ---------------------------------------------------------------- ticks

  // Steps one tick (play_tick()): game->tick, then every player advances and evaluates,
  // then game->animated when the tick has events. `game` may be null. Before the hooks
  // run, the previous tick's events are dropped and so are refused calls that acted
  // before this tick.
  void step(Game* game = nullptr);
  // The latest tick stepped; 0 before the first step.
  int64_t tick() const { return tick_; }
  // The tick play calls act at: the one being stepped inside Game::tick, else the next.
  int64_t play_tick() const { return next_tick_; }
  // Ticks per second, as given to create().
  int32_t tick_rate() const { return tick_rate_; }
  // The pack the scene comes from.
  const Pack& pack() const { return *pack_; }
  // The runner step() evaluates objects on from the next step (see "Threads" above):
  // `runner`, or with null the player's own pool (ScenePlayerOptions::threads), if it has
  // one, else the calling thread. Never allocates; not to be called inside step().
  void set_job_runner(JobRunner* runner);
  // The runner step() uses, or null for the calling thread alone.
  JobRunner* job_runner() const { return jobs_; }

  // ---------------------------------------------------------------- sub-tick poses

  // Poses every animated object at tick() + fraction, for a game that renders faster
  // than it ticks (fraction: the render alpha, how far the frame's time lies past the
  // latest tick stepped, in ticks): each animator's evaluate(tick(), fraction)
  // (Animator::evaluate: clocks and fades run on by the fraction, nothing advances), then
  // the object's IK solvers on that pose, then its palette. palette(), posed(),
  // world_bounds() and morph_weights() show that pose until the next step() or
  // evaluate_render(); fraction 0 gives the tick's pose bit for bit. Sprites keep tick()'s
  // frame (a flipbook steps by ticks), and transforms are the objects' own (the game
  // places an object between ticks with set_transform(), as it moves it by root motion).
  // The next step() goes on exactly as without it: no events, transitions or root motion
  // come from it, and posed()'s previous palette after that step is tick()'s, not the
  // render pose. Play calls made since the step act at play_tick() (the next tick) and so
  // show in the render pose as they will at that tick; make them in Game::tick to keep the
  // render between two ticks. kInvalidArgument for a fraction that is NaN or outside
  // [0, 1) (nothing changes). Never allocates.
  Result<void> evaluate_render(float fraction);
  // The fraction the poses show: 0 after step(), else the latest evaluate_render()'s.
  float render_fraction() const { return render_fraction_; }

  // ---------------------------------------------------------------- results

  // The object's joint palette (global x inverse bind) at tick(); empty for an object
  // without a rig or an invalid id. A node rig's palette entry k places the parts that
  // name joint k.
  std::span<const Mat4> palette(ObjectId object) const;
  // The atlas frame the sprite object shows at tick(); 0 for other objects.
  uint32_t sprite_frame(ObjectId object) const;
  // The object's world-space box at tick() (bounds.h): its mesh posed by palette(), then
  // model(); it holds every vertex skin() gives for that palette. A sprite object without
  // a card gets the box of its 1-unit-high card turned any way about its position (the
  // card faces the camera). kInvalidArgument for an invalid id; kBadPack for a mesh
  // whose pack stores no bounds (a version 1 pack: rebuild it).
  Result<Box> world_bounds(ObjectId object) const;
  // The latest tick's events, in object order (and within an object in its player's
  // order). Valid until the next step.
  std::span<const AnimationEvent> animation_events() const {
    return {events_.data(), event_count_};
  }
  // Refused calls of this tick (and of calls made since, for the next tick), oldest
  // first. Valid until the next call that refuses or steps.
  std::span<const AnimationError> animation_errors() const { return errors_; }
  // The snapshot at tick() for the renderer and the tracer: every object's model matrix,
  // palette (and previous tick's palette) and sprite frame, in pack object order. With a
  // camera, face_camera objects are turned about their position, about the world's +y
  // axis only (they stay upright), so that their +z faces the camera: towards the eye for
  // a perspective camera, against the view direction for an orthographic one (no turn
  // when the camera looks straight down). The snapshot is the player's own, refilled by
  // each call (no allocation); its spans are valid until the next step.
  const Posed& posed(const Camera* camera = nullptr);
  // Events lost to a full buffer since create(), counting every player's own losses.
  uint64_t dropped_events() const;
  // Refused calls not kept because animation_errors() was full, since create().
  uint64_t dropped_errors() const { return dropped_errors_; }

 private:
  friend class Animate;
  struct Object {
    const ObjectInfo* info = nullptr;
    Trs transform;  // the scene's, or the latest set_transform()
    Mat4 model;     // to_matrix(transform)
    const Rig* rig = nullptr;
    int animator = -1;
    const SpriteSheet* sheet = nullptr;
    int sprite = -1;
    uint32_t still_frame = 0;
    uint32_t frame = 0;       // the sprite frame at tick_
    size_t previous = 0;      // first matrix of the previous palette in previous_
    int machine = -1;         // index in machines_ (objects with a graph)
    bool states = false;      // its graph has states: play calls are refused
    int ik = -1;              // index in iks_ (objects with IK solvers)
    bool accumulate = false;  // root motion policy accumulate: take_root_motion answers
  };
  ScenePlayer();

  const Object* get(ObjectId id) const;
  Result<void> apply(const Animate& call);
  Result<void> refuse(ObjectId object, const Error& error);
  // The object's state machine for set_parameter and kin, or the refusal (kept).
  Result<StateMachine*> machine_for(ObjectId object);
  // The animator of an object with morph sets; refuses (and keeps) kInvalidArgument.
  Result<Animator*> morph_animator(ObjectId object);
  // The refusal of a play call on an object with states (kept), or ok().
  Result<void> refuse_states(ObjectId object, const Object& o);
  // The object's IK set and the index of its solver `solver` for set_ik_target and kin,
  // or the refusal (kept).
  Result<std::pair<IkSet*, int>> solver_for(ObjectId object, std::string_view solver);
  // An IkSet call's result: its refusal named by the object and solver (kept), or ok().
  Result<void> ik_result(ObjectId object, std::string_view solver, const Result<void>& r);
  // Runs the object's IK on its animator's pose and refreshes its palette (objects with
  // IK; nothing otherwise).
  void apply_ik(const Object& o, Animator& animator);
  void push_event(const AnimationEvent& event);
  // step()'s parallel pass (a JobFn over animated_[begin, end)): each object's previous
  // palette, evaluate at evaluate_tick_, IK and palette.
  static void evaluate_objects(void* player, uint32_t begin, uint32_t end);

  const Pack* pack_ = nullptr;
  int32_t tick_rate_ = 60;
  int64_t tick_ = 0;
  int64_t next_tick_ = 0;
  bool stepped_ = false;
  std::vector<Object> objects_;
  std::vector<Rig> rigs_;            // per-object rigs (objects with events)
  std::vector<SpriteSheet> sheets_;  // per-object sheets (events not in the pack's)
  std::vector<Animator> animators_;
  std::vector<SpritePlayer> sprites_;
  std::vector<StateMachine> machines_;  // objects with a graph; each drives its animator
  std::vector<IkSet> iks_;              // objects with IK solvers, on their rig's skeleton
  std::vector<Mat4> previous_;          // every animator's previous palette
  std::vector<AnimationEvent> events_;  // capacity fixed at create()
  size_t event_count_ = 0;
  uint64_t dropped_events_ = 0;
  std::vector<AnimationError> errors_;  // reserved at create()
  size_t error_capacity_ = 0;
  uint64_t dropped_errors_ = 0;
  Posed posed_;
  std::vector<uint32_t> animated_;    // the objects with an animator, in order
  std::unique_ptr<ThreadPool> pool_;  // ScenePlayerOptions::threads > 1
  JobRunner* jobs_ = nullptr;         // step()'s runner; null: the calling thread
  int64_t evaluate_tick_ = 0;         // the tick evaluate_objects evaluates

  // Sub-tick poses (evaluate_render): every animator's palette at tick_ (laid out as
  // previous_), kept by the first evaluate_render after a step for the next step's
  // previous palette.
  std::vector<Mat4> tick_palettes_;
  bool rendered_ = false;  // the animators hold a render pose (tick_palettes_ is tick_'s)
  float render_fraction_ = 0.0f;
};

}  // namespace animpack
