#include "animpack/skeleton.h"

#include <algorithm>
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

// out_globals[i] = mul_affine(parent global or root, to_matrix(locals[i])), and with
// kPalette also out_palette[i] = mul_affine(out_globals[i], inverse_binds[i]), bit for
// bit. Four joints at a time get their rotation-scale blocks together
// (kernel::rotation_scale4); then the chain runs joint by joint, and a parent computed
// just before its child stays in registers. Sizes are checked by the callers.
template <bool kPalette>
void chain(const Skeleton& skeleton, std::span<const Trs> locals, std::span<Mat4> out_globals,
           std::span<Mat4> out_palette) {
  using kernel::Columns, kernel::load_columns, kernel::store_columns;
  const size_t n = locals.size();
  const auto parents = skeleton.parents();
  const auto ibm = skeleton.inverse_binds();
  const Columns root = load_columns(skeleton.root());
  Columns prev = root;  // the global matrix of joint i - 1
  for (size_t i = 0; i < n; i += 4) {
    const size_t count = std::min<size_t>(4, n - i);
    const Trs* t[4];
    for (size_t j = 0; j < 4; ++j) t[j] = &locals[i + std::min(j, count - 1)];
    float rs[9][4];
    kernel::rotation_scale4(t, rs);
    for (size_t j = 0; j < count; ++j) {
      const size_t joint = i + j;
      const Vec3& tr = t[j]->translation;
      // Element k of to_matrix(*t[j]).m.
      const auto local = [&rs, &tr, j](int k) {
        return k < 12 ? rs[k / 4 * 3 + k % 4][j] : (k == 12 ? tr.x : k == 13 ? tr.y : tr.z);
      };
      const int p = parents[joint];
      const Columns parent = p < 0 ? root
                             : static_cast<size_t>(p) + 1 == joint
                                 ? prev
                                 : load_columns(out_globals[static_cast<size_t>(p)]);
      prev = kernel::mul_affine_at(parent, local);
      store_columns(prev, out_globals[joint]);
      if constexpr (kPalette) {
        store_columns(kernel::mul_affine(prev, ibm[joint]), out_palette[joint]);
      }
    }
  }
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
  chain<false>(skeleton, locals, out_globals, {});
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

void kernel::local_to_palette(const Skeleton& skeleton, std::span<const Trs> locals,
                              std::span<Mat4> out_globals, std::span<Mat4> out_palette) {
  chain<true>(skeleton, locals, out_globals, out_palette);
}

}  // namespace animpack
