#include "animpack/skeleton.h"

#include <cmath>

#include "kernels.h"

namespace animpack {
namespace {

bool affine_and_finite(const Mat4& m) {
  for (float v : m.m) {
    if (!std::isfinite(v)) return false;
  }
  return m.m[3] == 0.0f && m.m[7] == 0.0f && m.m[11] == 0.0f && m.m[15] == 1.0f;
}

bool finite(const Trs& t) {
  const float v[10] = {t.translation.x, t.translation.y, t.translation.z, t.rotation.x,
                       t.rotation.y,    t.rotation.z,    t.rotation.w,    t.scale.x,
                       t.scale.y,       t.scale.z};
  for (float f : v) {
    if (!std::isfinite(f)) return false;
  }
  return true;
}

}  // namespace

Result<Skeleton> Skeleton::create(std::vector<Joint> joints, std::vector<Mat4> inverse_binds,
                                  const Mat4& root) {
  if (joints.size() > static_cast<size_t>(kMaxJoints)) {
    return Error::make(ErrorCode::kBadSkeleton, "%zu joints, at most %d", joints.size(),
                       kMaxJoints);
  }
  if (!inverse_binds.empty() && inverse_binds.size() != joints.size()) {
    return Error::make(ErrorCode::kBadSkeleton, "%zu inverse bind matrices for %zu joints",
                       inverse_binds.size(), joints.size());
  }
  if (!affine_and_finite(root)) {
    return Error::make(ErrorCode::kBadSkeleton, "the root matrix is not affine and finite");
  }
  for (size_t i = 0; i < joints.size(); ++i) {
    const int parent = joints[i].parent;
    if (parent < -1 || parent >= static_cast<int>(i)) {
      return Error::make(ErrorCode::kBadSkeleton,
                         "joint %zu '%s' has parent %d, which does not come before it", i,
                         joints[i].name.c_str(), parent);
    }
    if (!finite(joints[i].rest)) {
      return Error::make(ErrorCode::kBadSkeleton, "joint %zu '%s' has a non-finite rest pose", i,
                         joints[i].name.c_str());
    }
    if (!inverse_binds.empty() && !affine_and_finite(inverse_binds[i])) {
      return Error::make(ErrorCode::kBadSkeleton,
                         "joint %zu '%s' has an inverse bind that is not affine and finite", i,
                         joints[i].name.c_str());
    }
  }
  Skeleton s;
  s.root_ = root;
  s.inverse_binds_ =
      inverse_binds.empty() ? std::vector<Mat4>(joints.size()) : std::move(inverse_binds);
  s.parents_.reserve(joints.size());
  s.rest_.reserve(joints.size());
  for (const Joint& j : joints) {
    s.parents_.push_back(j.parent);
    s.rest_.push_back(j.rest);
  }
  s.joints_ = std::move(joints);
  return s;
}

int Skeleton::find_joint(std::string_view name) const {
  for (size_t i = 0; i < joints_.size(); ++i) {
    if (joints_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Result<void> rest_pose(const Skeleton& skeleton, std::span<Trs> out_locals) {
  const auto rest = skeleton.rest_pose();
  if (out_locals.size() != rest.size()) {
    return Error::make(ErrorCode::kSizeMismatch, "%zu locals for %zu joints", out_locals.size(),
                       rest.size());
  }
  for (size_t i = 0; i < rest.size(); ++i) out_locals[i] = rest[i];
  return ok();
}

Result<void> local_to_global(const Skeleton& skeleton, std::span<const Trs> locals,
                             std::span<Mat4> out_globals) {
  const size_t n = static_cast<size_t>(skeleton.joint_count());
  if (locals.size() != n || out_globals.size() != n) {
    return Error::make(ErrorCode::kSizeMismatch, "%zu locals and %zu globals for %zu joints",
                       locals.size(), out_globals.size(), n);
  }
  const auto parents = skeleton.parents();
  const Mat4& root = skeleton.root();
  for (size_t i = 0; i < n; ++i) {
    const int p = parents[i];
    Mat4 local;
    kernel::to_matrix(locals[i], local);
    kernel::mul_affine(p < 0 ? root : out_globals[static_cast<size_t>(p)], local, out_globals[i]);
  }
  return ok();
}

Result<void> global_to_palette(const Skeleton& skeleton, std::span<const Mat4> globals,
                               std::span<Mat4> out_palette) {
  const size_t n = static_cast<size_t>(skeleton.joint_count());
  if (globals.size() != n || out_palette.size() != n) {
    return Error::make(ErrorCode::kSizeMismatch,
                       "%zu globals and %zu palette entries for %zu joints", globals.size(),
                       out_palette.size(), n);
  }
  const auto ibm = skeleton.inverse_binds();
  for (size_t i = 0; i < n; ++i) kernel::mul_affine(globals[i], ibm[i], out_palette[i]);
  return ok();
}

}  // namespace animpack
