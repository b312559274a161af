// Joint masks and additive clips (animpack/layers.h).
#include "animpack/layers.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "kernels_blend.h"
#include "math_inline.h"

namespace animpack {
namespace {

Quat conj(Quat q) { return {-q.x, -q.y, -q.z, q.w}; }

// The reference value of one channel: its value at t = 0, or the joint's rest value.
Vec4 reference_value(const Channel& ch, const Skeleton& skeleton, AdditiveReference reference) {
  if (reference == AdditiveReference::kFirstFrame) {
    uint32_t cursor = 0;
    return sample(ch, 0.0f, &cursor);
  }
  const Trs& rest = skeleton.rest_pose()[ch.joint];
  switch (ch.property) {
    case Property::kTranslation:
      return {rest.translation.x, rest.translation.y, rest.translation.z, 0.0f};
    case Property::kScale:
      return {rest.scale.x, rest.scale.y, rest.scale.z, 0.0f};
    case Property::kRotation:
    case Property::kWeights:  // not a joint's value (the runtime helper handles weights)
      break;
  }
  return {rest.rotation.x, rest.rotation.y, rest.rotation.z, rest.rotation.w};
}

// conj(ref) * q: the rotation delta of q (or the same linear map of a tangent).
void rotate_back(Quat ref_conj, float* p) {
  const Quat q = inl::mul(ref_conj, Quat{p[0], p[1], p[2], p[3]});
  p[0] = q.x;
  p[1] = q.y;
  p[2] = q.z;
  p[3] = q.w;
}

}  // namespace

Result<std::vector<float>> make_joint_mask(const Skeleton& skeleton,
                                           std::span<const MaskEntry> entries) {
  const size_t n = static_cast<size_t>(skeleton.joint_count());
  std::vector<float> mask(n, 0.0f);
  std::vector<unsigned char> covered(n, 0);
  const auto parents = skeleton.parents();
  for (size_t e = 0; e < entries.size(); ++e) {
    const MaskEntry& entry = entries[e];
    if (!(entry.weight >= 0.0f && entry.weight <= 1.0f)) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "mask entry %zu ('%.*s'): weight %g is not in [0, 1]", e,
                         static_cast<int>(entry.joint.size()), entry.joint.data(),
                         static_cast<double>(entry.weight));
    }
    const int joint = skeleton.find_joint(entry.joint);
    if (joint < 0) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "mask entry %zu: no joint '%.*s' in the skeleton", e,
                         static_cast<int>(entry.joint.size()), entry.joint.data());
    }
    const size_t j = static_cast<size_t>(joint);
    mask[j] = entry.weight;
    if (!entry.subtree) continue;
    // Parents come before their children: one forward pass finds the subtree.
    std::fill(covered.begin(), covered.end(), static_cast<unsigned char>(0));
    covered[j] = 1;
    for (size_t k = j + 1; k < n; ++k) {
      const int16_t p = parents[k];
      if (p >= 0 && covered[static_cast<size_t>(p)]) {
        covered[k] = 1;
        mask[k] = entry.weight;
      }
    }
  }
  return mask;
}

Result<Clip> make_additive_clip(const Clip& source, const Skeleton& skeleton,
                                AdditiveReference reference, std::span<const MorphSet> morph_sets) {
  if (reference != AdditiveReference::kFirstFrame && reference != AdditiveReference::kRestPose) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "an additive clip needs the reference first_frame or rest_pose");
  }
  if (source.additive() != AdditiveReference::kNone) {
    return Error::make(ErrorCode::kBadClip, "clip '%s' is already additive", source.name().c_str());
  }
  std::vector<uint16_t> widths(morph_sets.size());
  for (size_t s = 0; s < morph_sets.size(); ++s) {
    widths[s] = static_cast<uint16_t>(std::min<size_t>(morph_sets[s].size(), 65535));
  }
  if (Result<void> r = source.validate(skeleton.joint_count(), widths); !r) return r.error();

  Clip out(source.name());
  std::vector<float> values, ref_weights;
  for (const Channel& ch : source.channels()) {
    if (ch.property == Property::kWeights) {
      // Weights: value - reference per weight (the first frame's weights, or the set's
      // defaults for kRestPose); tangents unchanged. Left out when every delta is 0.
      const size_t width = ch.width;
      const bool cubic = ch.interpolation == Interpolation::kCubicSpline;
      const size_t groups = cubic ? 3 : 1;
      if (reference == AdditiveReference::kFirstFrame) {
        ref_weights.resize(width);
        uint32_t cursor = 0;
        sample_weights(ch, 0.0f, &cursor, ref_weights);
      } else {
        const auto& d = morph_sets[ch.joint].default_weights;
        ref_weights.assign(d.begin(), d.end());
      }
      values.assign(ch.values.begin(), ch.values.end());
      bool zero = true;
      for (size_t k = 0; k < ch.times.size(); ++k) {
        for (size_t g = 0; g < groups; ++g) {
          float* p = values.data() + (k * groups + g) * width;
          const bool value = !cubic || g == 1;
          for (size_t i = 0; i < width; ++i) {
            if (value) p[i] = p[i] - ref_weights[i];
            if (p[i] != 0.0f) zero = false;
          }
        }
      }
      if (!zero) out.add_weights_channel(ch.joint, ch.width, ch.interpolation, ch.times, values);
      continue;
    }
    const Vec4 ref = reference_value(ch, skeleton, reference);
    const size_t width = static_cast<size_t>(property_width(ch.property));
    const bool cubic = ch.interpolation == Interpolation::kCubicSpline;
    const size_t groups = cubic ? 3 : 1;  // in-tangent, value, out-tangent
    values.assign(ch.values.begin(), ch.values.end());
    bool identity = true;
    if (ch.property == Property::kRotation) {
      // The reference as sampled (not renormalised): a key equal to it then gives
      // exactly (0, 0, 0, w), the identity.
      const Quat rc = conj(Quat{ref.x, ref.y, ref.z, ref.w});
      for (size_t k = 0; k < ch.times.size(); ++k) {
        for (size_t g = 0; g < groups; ++g) {
          float* p = values.data() + (k * groups + g) * width;
          rotate_back(rc, p);
          const bool value = !cubic || g == 1;
          if (value) {
            const Quat q = normalize(Quat{p[0], p[1], p[2], p[3]});
            if (q.x == 0.0f && q.y == 0.0f && q.z == 0.0f) {
              // No turn: exactly the identity (either sign of w is the same rotation).
              p[0] = p[1] = p[2] = 0.0f;
              p[3] = 1.0f;
            } else {
              p[0] = q.x;
              p[1] = q.y;
              p[2] = q.z;
              p[3] = q.w;
              identity = false;
            }
          } else if (p[0] != 0.0f || p[1] != 0.0f || p[2] != 0.0f || p[3] != 0.0f) {
            identity = false;  // a tangent that moves the curve
          }
        }
      }
    } else {
      const float r[3] = {ref.x, ref.y, ref.z};
      for (size_t k = 0; k < ch.times.size(); ++k) {
        for (size_t g = 0; g < groups; ++g) {
          float* p = values.data() + (k * groups + g) * width;
          const bool value = !cubic || g == 1;
          for (size_t i = 0; i < 3; ++i) {
            if (value) p[i] = p[i] - r[i];  // tangents of a difference are unchanged
            if (p[i] != 0.0f) identity = false;
          }
        }
      }
    }
    if (identity) continue;
    out.add_channel(ch.joint, ch.property, ch.interpolation, ch.times, values);
  }
  // Left-out channels must not shorten the clip: its clock and events stay the source's.
  out.extend_duration(source.duration());
  for (const ClipEvent& e : source.events()) out.add_event(e.name, e.time);
  out.set_additive(reference);
  return out;
}

void blend_poses(std::span<Trs> a, std::span<const Trs> b, float w) {
  kernel::blend_poses(a.data(), b.data(), std::min(a.size(), b.size()), w);
}

namespace {

// True when [p, p + n) and [q, q + m) share a byte but do not start together with equal
// sizes (the same pose). Compared as integers: the poses may be unrelated objects.
bool overlaps_apart(std::span<const Trs> p, std::span<const Trs> q) {
  if (p.empty() || q.empty()) return false;
  const auto p0 = reinterpret_cast<uintptr_t>(p.data()), q0 = reinterpret_cast<uintptr_t>(q.data());
  const uintptr_t p1 = p0 + p.size_bytes(), q1 = q0 + q.size_bytes();
  if (p0 == q0 && p1 == q1) return false;
  return p0 < q1 && q0 < p1;
}

}  // namespace

Result<void> blend_poses(std::span<const Trs> a, std::span<const Trs> b, float w,
                         std::span<Trs> out) {
  if (a.size() != b.size() || out.size() != a.size()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "blend_poses: poses of %zu, %zu and %zu joints (all three must match)",
                       a.size(), b.size(), out.size());
  }
  const std::span<const Trs> o(out.data(), out.size());
  if (overlaps_apart(o, a) || overlaps_apart(o, b)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "blend_poses: out overlaps a or b without being it");
  }
  kernel::blend_poses(a.data(), b.data(), out.data(), out.size(), w);
  return ok();
}

}  // namespace animpack
