// A skeleton: joints ordered parents first, their rest transforms, inverse bind
// matrices and the root matrix that places the whole skeleton.
//
//   std::vector<animpack::Joint> joints = {{"hip", -1, {}}, {"knee", 0, {{0, 1, 0}}}};
//   animpack::Result<animpack::Skeleton> s = animpack::Skeleton::create(std::move(joints), {}, {});
//   if (!s) return s.error();
//
// A joint's global matrix is root * ... * local(parent) * local(joint); its palette
// entry (what skinning takes) is global * inverse_bind.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/math.h"
#include "animpack/result.h"

namespace animpack {

// The most joints a skeleton may have (parents are int16_t, vertex joints uint16_t).
inline constexpr int kMaxJoints = 32767;

struct Joint {
  std::string name;
  int16_t parent = -1;  // index of the parent joint, which comes before this one; -1: a root
  Trs rest;             // the local transform when nothing animates the joint
};

class Skeleton {
 public:
  Skeleton() = default;

  // Checks and builds a skeleton. inverse_binds is either empty (every joint gets the
  // identity) or one matrix per joint. Every inverse bind and the root must be affine
  // (last row 0 0 0 1) and finite. Fails with kBadSkeleton when a parent does not come
  // before its child, there are more than kMaxJoints joints, or the counts differ.
  static Result<Skeleton> create(std::vector<Joint> joints, std::vector<Mat4> inverse_binds,
                                 const Mat4& root);

  int joint_count() const { return static_cast<int>(joints_.size()); }
  std::span<const Joint> joints() const { return joints_; }
  std::span<const int16_t> parents() const { return parents_; }
  std::span<const Trs> rest_pose() const { return rest_; }
  std::span<const Mat4> inverse_binds() const { return inverse_binds_; }
  const Mat4& root() const { return root_; }
  // The index of the first joint with this name, or -1 when there is none.
  int find_joint(std::string_view name) const;

 private:
  std::vector<Joint> joints_;
  std::vector<int16_t> parents_;
  std::vector<Trs> rest_;
  std::vector<Mat4> inverse_binds_;
  Mat4 root_;
};

// Writes the skeleton's rest pose into out_locals (joint_count() entries).
[[nodiscard]] Result<void> rest_pose(const Skeleton& skeleton, std::span<Trs> out_locals);

// Chains local transforms through the parents from the root matrix:
// out_globals[i] = (parent < 0 ? root : out_globals[parent]) * matrix(locals[i]).
// Fails with kSizeMismatch when a span is not joint_count() long.
[[nodiscard]] Result<void> local_to_global(const Skeleton& skeleton, std::span<const Trs> locals,
                                           std::span<Mat4> out_globals);

// out_palette[i] = globals[i] * inverse_binds[i]: the matrices skinning takes.
[[nodiscard]] Result<void> global_to_palette(const Skeleton& skeleton,
                                             std::span<const Mat4> globals,
                                             std::span<Mat4> out_palette);

}  // namespace animpack
