// Inverse kinematics after the pose is evaluated and before the palette: two-bone, aim,
// chain and foot placement, deterministic and allocation-free after create().
//
//   std::vector<animpack::IkSolverDef> defs(2);
//   defs[0].name = "left_leg";  defs[0].kind = animpack::IkKind::kTwoBone;
//   defs[0].joints = {thigh, shin, foot};
//   defs[1].name = "head";      defs[1].kind = animpack::IkKind::kAim;  defs[1].joints = {head};
//   auto ik = animpack::IkSet::create(&rig.skeleton(), defs);     // validates, allocates
//   (void)ik->set_target(ik->find("head"), {0.0f, 1.6f, 2.0f});   // object space
//   animator->evaluate(tick);
//   ik->apply(animator->mutable_locals(), animator->mutable_globals());
//   animator->refresh_palette();
//
// Spaces. Targets, poles, ground heights and normals are in object space: the space of
// Animator::globals() (the skeleton's root matrix applied), before the object's model
// matrix. `up` is the object's up axis (glTF: +Y; a scene may set it per mesh).
//
// Rules shared by every solver:
// - A solver runs when its weight is above 0 and it has a target (foot solvers need none:
//   their ground defaults to height 0, normal `up`). Weight 0 leaves the pose bit for bit.
// - Solvers run in the order given, each on the pose the ones before it left; foot
//   solvers of one set run together at the place of the first of them (the hips drop
//   once, for all feet).
// - Each solve starts from the pose it is given (Animator::evaluate() rewrites it every
//   tick), so results never accumulate.
// - Solvers change local rotations only (kFoot also the hips joint's translation); bone
//   lengths and translations stay. apply() keeps globals consistent with locals for every
//   joint it changes and every joint below them.
// - The result is mixed with the animated pose by weight: rotations nlerped from the
//   animated local rotation (the shorter way), the hips' drop scaled.
// - Only + - * /, sqrt and animpack::det functions: the same bits everywhere.
//
// The solvers (docs/runtime.md, "Inverse kinematics"):
// - kTwoBone, joints {upper, middle, end} (thigh, shin, foot; upper arm, forearm, hand):
//   turns upper and middle so end's origin lands on the target when it is in reach
//   (|target - upper| in [|l1 - l2|, l1 + l2]), else straightens (or folds) toward it
//   along the target direction. The middle joint bends toward `pole` (an object-space
//   direction) when given, else keeps the bend plane the pose has (a straight pose with
//   no pole bends toward `up` x the limb's direction). `soften` in (0, 1]: from soften *
//   (l1 + l2) the reach eases toward full extension (1: off), so knees do not snap.
//   `twist` turns the bend plane about the upper-to-target axis (radians).
// - kAim, joints {joint}: turns the joint so its local `forward` axis points at the target,
//   keeping its local `up` axis as near as it goes to `pole` (object space; absent: the
//   set's up). `max_angle` in (0, pi] caps the turn away from the animated direction
//   (the direction turns by at most max_angle; a target behind the cap is looked at as
//   far as the cap allows).
// - kChain, joints top..end (2 to kMaxChainJoints, each the parent of the next): FABRIK,
//   `iterations` passes (a fixed count: a fixed cost and fixed bits), the top joint fixed,
//   starting from the current pose (its bends are the starting guess); an unreachable
//   target straightens the chain toward it. Then each joint is turned, top first, by the
//   shortest arc from its old child direction to its new one.
// - kFoot, joints {thigh, shin, foot}: a two-bone solve toward the animated foot position
//   raised by the ground height under it (set_ground; the foot keeps its animated height
//   above the object's floor, so a planted foot lands on the ground and a lifted one
//   clears it by as much), the foot turned by the shortest arc from `up` to the ground
//   normal, and the hips (`hips`, default the thigh's parent) lowered along -up as far as
//   the lowest foot needs to reach (never raised).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/math.h"
#include "animpack/result.h"
#include "animpack/skeleton.h"

namespace animpack {

// Bounds (the cooker uses the same; docs/scene-format.md, "Limits").
inline constexpr int kMaxIkSolvers = 16;     // per object
inline constexpr int kMaxChainJoints = 32;   // joints of one kChain
inline constexpr int kMaxIkIterations = 64;  // kChain passes

enum class IkKind : uint8_t { kTwoBone = 0, kAim = 1, kChain = 2, kFoot = 3 };
const char* ik_kind_name(IkKind kind);  // "two_bone", "aim", "chain", "foot"

struct IkSolverDef {
  std::string name;  // unique in its set, not empty: what set_target finds
  IkKind kind = IkKind::kTwoBone;
  std::vector<uint16_t> joints;   // see the solvers; each joint the parent of the next
  float weight = 1.0f;            // [0, 1]
  bool has_target = false;        // a target fixed in the scene (the game may move it)
  Vec3 target;                    // object space
  bool has_pole = false;          // kTwoBone, kFoot: bend direction; kAim: up direction
  Vec3 pole;                      // object space, not zero
  float soften = 1.0f;            // kTwoBone, kFoot: (0, 1]
  float twist = 0.0f;             // kTwoBone: radians, [-pi, pi]
  Vec3 forward{0, 0, 1};          // kAim: the joint's local axis that looks, unit
  Vec3 up{0, 1, 0};               // kAim: the joint's local axis kept toward the pole, unit,
                                  // not parallel to forward
  float max_angle = 3.14159265f;  // kAim: radians, (0, pi]
  int32_t iterations = 8;         // kChain: [1, kMaxIkIterations]
  int32_t hips = -1;              // kFoot: the joint lowered; -1: the thigh's parent (needs one)
};

class IkSet {
 public:
  IkSet() = default;
  IkSet(IkSet&&) = default;
  IkSet& operator=(IkSet&&) = default;

  // A set of solvers on `skeleton` (which must outlive it), `up` the object's unit up
  // axis. Checks every definition: at most kMaxIkSolvers, names unique and not empty,
  // kinds known, joint counts per kind, joints in the skeleton and each the parent of the
  // next, no bone of zero length (in the rest pose: a joint's rest translation, below
  // 1e-6 object units), every number finite and in its range, axes unit within 1e-4,
  // foot solvers' hips an ancestor of the thigh (not the thigh) and the same for all of
  // them, no target on a foot solver and no pole on a chain. Errors: kBadIk naming the
  // solver (by index and name) and what fails.
  static Result<IkSet> create(const Skeleton* skeleton, std::span<const IkSolverDef> solvers,
                              Vec3 up = {0, 1, 0});

  int solver_count() const { return static_cast<int>(solvers_.size()); }
  const IkSolverDef& solver(int index) const { return solvers_[static_cast<size_t>(index)]; }
  // The index of the solver with this name, or -1.
  int find(std::string_view name) const;

  // Per-solver settings from now on. Errors: kInvalidArgument for an index out of range or
  // a value not finite (or out of range: a weight outside [0, 1], a zero pole, a normal
  // more than 60 degrees from up... see each); nothing changes on an error. A foot solver
  // takes no target (set_target refuses it: use set_ground) and a chain no pole.
  Result<void> set_target(int solver, Vec3 target);
  Result<void> clear_target(int solver);  // the solver stops until a new target
  Result<void> set_pole(int solver, Vec3 pole);
  Result<void> set_weight(int solver, float weight);
  // kFoot only (kInvalidArgument otherwise): the ground under the foot, its height along
  // `up` relative to the object's floor (its origin) and its normal (unit within 1e-4, at
  // most 60 degrees from up).
  Result<void> set_ground(int solver, float height, Vec3 normal);

  // Runs every solver on the pose (see the rules). locals and globals are the
  // skeleton's joint_count() entries, globals consistent with locals (as
  // Animator::evaluate leaves them); they stay consistent. Never allocates; a size
  // mismatch does nothing (the Animator's spans always fit).
  void apply(std::span<Trs> locals, std::span<Mat4> globals);

 private:
  struct State {
    Vec3 target;
    bool has_target = false;
    Vec3 pole;
    bool has_pole = false;
    float weight = 1.0f;
    float ground_height = 0.0f;
    Vec3 ground_normal{0, 1, 0};
  };
  // What create() works out once per solver.
  struct Plan {
    uint32_t subtree_begin = 0, subtree_end = 0;  // in subtree_: its first joint and below
    float cap_cos = -1.0f, cap_sin = 0.0f;        // kAim: of max_angle
    float twist_cos = 1.0f, twist_sin = 0.0f;     // kTwoBone: of twist
  };
  void update_globals(std::span<Trs> locals, std::span<Mat4> globals, uint32_t begin,
                      uint32_t end) const;
  void save(std::span<const Trs> locals, std::span<const uint16_t> joints);
  void mix(std::span<Trs> locals, std::span<const uint16_t> joints, float weight) const;
  void apply_feet(std::span<Trs> locals, std::span<Mat4> globals);

  const Skeleton* skeleton_ = nullptr;
  Vec3 up_{0, 1, 0};
  std::vector<IkSolverDef> solvers_;
  std::vector<State> state_;
  std::vector<Plan> plans_;
  std::vector<uint16_t> subtree_;           // the joints each solver's globals update covers
  int first_foot_ = -1;                     // the first kFoot solver, or -1
  int hips_ = -1;                           // the foot solvers' hips
  uint32_t hips_begin_ = 0, hips_end_ = 0;  // in subtree_: hips and below
  std::vector<Trs> scratch_locals_;         // joint_count(): the animated pose, for mixing
  std::vector<Vec3> scratch_points_;        // kMaxChainJoints: FABRIK positions
  std::vector<Vec3> scratch_start_;         // kMaxChainJoints: the chain's positions before
  std::vector<float> scratch_lengths_;      // kMaxChainJoints: its bone lengths
  std::vector<Vec3> foot_targets_;          // per solver: kFoot's target this apply()
};

}  // namespace animpack
