#include "animpack/compiler/clip_optimize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <utility>

namespace animpack {
namespace {

// An affine matrix in double, column-major 3x4: m[col * 3 + row]; columns 0-2 are the
// axes, column 3 the translation.
struct Affine {
  double m[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
};

Affine from_trs(const Trs& trs) {
  const double x = trs.rotation.x, y = trs.rotation.y, z = trs.rotation.z, w = trs.rotation.w;
  const double sx = trs.scale.x, sy = trs.scale.y, sz = trs.scale.z;
  Affine a;
  a.m[0] = (1.0 - 2.0 * (y * y + z * z)) * sx;
  a.m[1] = 2.0 * (x * y + z * w) * sx;
  a.m[2] = 2.0 * (x * z - y * w) * sx;
  a.m[3] = 2.0 * (x * y - z * w) * sy;
  a.m[4] = (1.0 - 2.0 * (x * x + z * z)) * sy;
  a.m[5] = 2.0 * (y * z + x * w) * sy;
  a.m[6] = 2.0 * (x * z + y * w) * sz;
  a.m[7] = 2.0 * (y * z - x * w) * sz;
  a.m[8] = (1.0 - 2.0 * (x * x + y * y)) * sz;
  a.m[9] = trs.translation.x;
  a.m[10] = trs.translation.y;
  a.m[11] = trs.translation.z;
  return a;
}

Affine from_mat4(const Mat4& m) {
  Affine a;
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 3; ++r) a.m[c * 3 + r] = m.m[c * 4 + r];
  }
  return a;
}

Affine mul(const Affine& a, const Affine& b) {
  Affine out;
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 3; ++r) {
      double v = a.m[r] * b.m[c * 3] + a.m[3 + r] * b.m[c * 3 + 1] + a.m[6 + r] * b.m[c * 3 + 2];
      if (c == 3) v = v + a.m[9 + r];
      out.m[c * 3 + r] = v;
    }
  }
  return out;
}

// The largest distance between a's and b's four virtual vertices (origin, and `distance`
// along each axis).
double vertex_error(const Affine& a, const Affine& b, double distance) {
  double worst = 0;
  for (int k = -1; k < 3; ++k) {
    double sum = 0;
    for (int r = 0; r < 3; ++r) {
      double pa = a.m[9 + r], pb = b.m[9 + r];
      if (k >= 0) {
        pa = pa + distance * a.m[k * 3 + r];
        pb = pb + distance * b.m[k * 3 + r];
      }
      const double d = pa - pb;
      sum = sum + d * d;
    }
    worst = std::max(worst, std::sqrt(sum));
  }
  return worst;
}

// Sets `local`'s property p to a sampled value (kWeights: nothing; the metric is of joints).
void set_sampled(Trs& local, Property p, const Vec4& v) {
  switch (p) {
    case Property::kTranslation:
      local.translation = {v.x, v.y, v.z};
      break;
    case Property::kRotation:
      local.rotation = {v.x, v.y, v.z, v.w};
      break;
    case Property::kScale:
      local.scale = {v.x, v.y, v.z};
      break;
    case Property::kWeights:
      break;
  }
}

// The model-space matrices of the rest pose with `channels` sampled at t (kWeights
// channels ignored), into out (one per joint). locals is scratch.
void model_matrices(const Skeleton& skeleton, std::span<const Channel> channels, float t,
                    std::vector<Trs>& locals, std::vector<Affine>& out) {
  const std::span<const Trs> rest = skeleton.rest_pose();
  locals.assign(rest.begin(), rest.end());
  for (const Channel& ch : channels) {
    if (ch.property == Property::kWeights || ch.joint >= locals.size()) continue;
    uint32_t cursor = 0;
    const Vec4 v = sample(ch, t, &cursor);
    set_sampled(locals[ch.joint], ch.property, v);
  }
  const Affine root = from_mat4(skeleton.root());
  const std::span<const int16_t> parents = skeleton.parents();
  out.resize(locals.size());
  for (size_t j = 0; j < locals.size(); ++j) {
    const Affine local = from_trs(locals[j]);
    const int p = parents[j];
    out[j] = mul(p < 0 ? root : out[static_cast<size_t>(p)], local);
  }
}

// Joint j's local transform: its rest with the channels `on_joint` (indices into
// channels) sampled at t, in the order model_matrices applies them.
Trs joint_local(const Trs& rest, std::span<const Channel> channels,
                std::span<const size_t> on_joint, float t) {
  Trs local = rest;
  for (const size_t c : on_joint) {
    const Channel& ch = channels[c];
    uint32_t cursor = 0;
    const Vec4 v = sample(ch, t, &cursor);
    set_sampled(local, ch.property, v);
  }
  return local;
}

uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The measuring state of one clip: its times, the exact pose's matrices at each (cached
// when small enough), and scratch.
class Measure {
 public:
  Measure(const Skeleton& skeleton, const Clip& exact, float distance, int random_times)
      : skeleton_(skeleton),
        exact_(exact.channels()),
        distance_(distance),
        times_(error_times(exact, random_times)) {
    const size_t joints = static_cast<size_t>(skeleton.joint_count());
    // At most 2^20 matrices (96 MiB) are kept; beyond that the exact pose is resampled.
    if (joints > 0 && times_.size() <= (size_t{1} << 20) / joints) {
      cache_.resize(times_.size() * joints);
      for (size_t i = 0; i < times_.size(); ++i) {
        model_matrices(skeleton_, exact_, times_[i], locals_, scratch_);
        std::copy(scratch_.begin(), scratch_.end(),
                  cache_.begin() + static_cast<ptrdiff_t>(i * joints));
      }
    }
  }

  const std::vector<float>& times() const { return times_; }
  // The exact pose's matrices at times_[i] (cached), or nullptr when not cached.
  const Affine* exact_at(size_t i) const {
    if (cache_.empty()) return nullptr;
    return cache_.data() + i * static_cast<size_t>(skeleton_.joint_count());
  }

  // The error of `lossy` at times_[i]; stops early once it is over `limit`.
  double error_at(size_t i, std::span<const Channel> lossy, double limit) {
    const size_t joints = static_cast<size_t>(skeleton_.joint_count());
    const Affine* exact = nullptr;
    if (!cache_.empty()) {
      exact = cache_.data() + i * joints;
    } else {
      model_matrices(skeleton_, exact_, times_[i], locals_, exact_scratch_);
      exact = exact_scratch_.data();
    }
    model_matrices(skeleton_, lossy, times_[i], locals_, scratch_);
    double worst = 0;
    for (size_t j = 0; j < joints; ++j) {
      worst = std::max(worst, vertex_error(exact[j], scratch_[j], distance_));
      if (worst > limit) break;
    }
    return worst;
  }

  // The largest error over the times strictly between lo and hi (all times: lo > hi).
  double error_between(float lo, float hi, std::span<const Channel> lossy, double limit) {
    size_t begin = 0, end = times_.size();
    if (lo <= hi) {
      begin =
          static_cast<size_t>(std::upper_bound(times_.begin(), times_.end(), lo) - times_.begin());
      end =
          static_cast<size_t>(std::lower_bound(times_.begin(), times_.end(), hi) - times_.begin());
    }
    double worst = 0;
    for (size_t i = begin; i < end; ++i) {
      worst = std::max(worst, error_at(i, lossy, limit));
      if (worst > limit) break;
    }
    return worst;
  }

 private:
  const Skeleton& skeleton_;
  std::span<const Channel> exact_;
  double distance_;
  std::vector<float> times_;
  std::vector<Affine> cache_;
  std::vector<Trs> locals_;
  std::vector<Affine> scratch_, exact_scratch_;
};

bool reducible(const Channel& ch) {
  return ch.property != Property::kWeights &&
         (ch.interpolation == Interpolation::kLinear || ch.interpolation == Interpolation::kStep);
}

}  // namespace

std::vector<float> error_times(const Clip& clip, int random_times) {
  std::vector<float> times;
  for (const Channel& ch : clip.channels())
    times.insert(times.end(), ch.times.begin(), ch.times.end());
  const int n = std::clamp(random_times, 0, 100000);
  uint64_t state = kErrorTimesSeed;
  const double duration = clip.duration();
  for (int i = 0; i < n; ++i) {
    const double u = static_cast<double>(splitmix64(&state) >> 11) * 0x1.0p-53;  // [0, 1)
    times.push_back(std::min(static_cast<float>(u * duration), clip.duration()));
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

double pose_error(const Skeleton& skeleton, const Clip& exact, const Clip& lossy, float t,
                  float distance) {
  std::vector<Trs> locals;
  std::vector<Affine> a, b;
  model_matrices(skeleton, exact.channels(), t, locals, a);
  model_matrices(skeleton, lossy.channels(), t, locals, b);
  double worst = 0;
  for (size_t j = 0; j < a.size(); ++j) worst = std::max(worst, vertex_error(a[j], b[j], distance));
  return worst;
}

double clip_error(const Skeleton& skeleton, const Clip& exact, const Clip& lossy, float distance,
                  int random_times) {
  Measure measure(skeleton, exact, distance, random_times);
  return measure.error_between(1, 0, lossy.channels(), HUGE_VAL);
}

size_t key_count(const Clip& clip) {
  size_t n = 0;
  for (const Channel& ch : clip.channels()) n += ch.times.size();
  return n;
}

ReducedClip reduce_clip(const Skeleton& skeleton, const Clip& original, const Clip& quantised,
                        const ClipStorage& storage, int random_times) {
  ReducedClip out;
  out.keys_before = key_count(original);
  Measure measure(skeleton, original, storage.distance, random_times);
  const double tolerance = storage.tolerance;

  // The working keys: one owned copy per channel, with views in `work`.
  const std::span<const Channel> source = quantised.channels();
  std::vector<std::vector<float>> times(source.size()), values(source.size());
  std::vector<Channel> work(source.begin(), source.end());
  for (size_t c = 0; c < source.size(); ++c) {
    times[c].assign(source[c].times.begin(), source[c].times.end());
    values[c].assign(source[c].values.begin(), source[c].values.end());
    work[c].times = times[c];
    work[c].values = values[c];
  }

  const double quantised_error = measure.error_between(1, 0, work, HUGE_VAL);

  // Incremental measuring (when the exact matrices are cached): the lossy matrices of the
  // current keys at every time are kept too, and a candidate recomputes only the subtree of
  // its channel's joint, with the very operations model_matrices does (the same bits).
  const size_t joints = static_cast<size_t>(skeleton.joint_count());
  const std::vector<float>& all_times = measure.times();
  const bool incremental = measure.exact_at(0) != nullptr || all_times.empty();
  std::vector<Affine> current;  // [time * joints + joint]
  std::vector<std::vector<size_t>> on_joint(joints);
  std::vector<Trs> locals;
  std::vector<Affine> scratch;
  if (incremental) {
    current.resize(all_times.size() * joints);
    for (size_t i = 0; i < all_times.size(); ++i) {
      model_matrices(skeleton, work, all_times[i], locals, scratch);
      std::copy(scratch.begin(), scratch.end(),
                current.begin() + static_cast<ptrdiff_t>(i * joints));
    }
    // The same order as model_matrices: a later channel on a joint overrides an earlier.
    for (size_t c = 0; c < work.size(); ++c) {
      if (work[c].property != Property::kWeights && work[c].joint < joints)
        on_joint[work[c].joint].push_back(c);
    }
  }
  const std::span<const int16_t> parents = skeleton.parents();
  const std::span<const Trs> rest = skeleton.rest_pose();
  const Affine root = from_mat4(skeleton.root());
  std::vector<size_t> subtree;
  std::vector<uint8_t> in_subtree(joints, 0);
  std::vector<Affine> candidate(joints);
  // The subtree of joint j (ascending: parents first) into `subtree` / `in_subtree`.
  const auto set_subtree = [&](size_t j) {
    std::fill(in_subtree.begin(), in_subtree.end(), uint8_t{0});
    subtree.clear();
    in_subtree[j] = 1;
    subtree.push_back(j);
    for (size_t k = j + 1; k < joints; ++k) {
      const int p = parents[k];
      if (p >= 0 && in_subtree[static_cast<size_t>(p)]) {
        in_subtree[k] = 1;
        subtree.push_back(k);
      }
    }
  };
  // The subtree's matrices at time i with the working keys, into `candidate`; the largest
  // error among them (stops once over limit).
  const auto subtree_error = [&](size_t i, double limit) {
    const Affine* exact = measure.exact_at(i);
    const Affine* kept = current.data() + i * joints;
    double worst = 0;
    for (const size_t k : subtree) {
      const Affine local = from_trs(joint_local(rest[k], work, on_joint[k], all_times[i]));
      const int p = parents[k];
      const Affine& parent = p < 0 ? root
                             : in_subtree[static_cast<size_t>(p)]
                                 ? candidate[static_cast<size_t>(p)]
                                 : kept[p];
      candidate[k] = mul(parent, local);
      worst = std::max(worst, vertex_error(exact[k], candidate[k], storage.distance));
      if (worst > limit) break;
    }
    return worst;
  };
  const auto window = [&](float lo, float hi) {
    const auto b = std::upper_bound(all_times.begin(), all_times.end(), lo);
    const auto e = std::lower_bound(all_times.begin(), all_times.end(), hi);
    return std::make_pair(static_cast<size_t>(b - all_times.begin()),
                          static_cast<size_t>(std::max(b, e) - all_times.begin()));
  };

  if (quantised_error <= tolerance) {
    // A candidate is the channel without key i: between its kept neighbours p and i + 1
    // (the only times it is measured at) sampling it is sampling the two-key channel
    // {p, i + 1}, so that is what `work` holds while key i is tried: each try costs the
    // window's times, not the channel's length. Keys are dropped from the arrays once a
    // channel's pass is done.
    std::vector<float> pair_times(2), pair_values;
    std::vector<uint8_t> keep;
    for (const double share : {0.5, 0.75, 1.0}) {
      const double limit = tolerance * share;
      for (size_t c = 0; c < work.size(); ++c) {
        if (!reducible(work[c])) continue;
        const size_t width = static_cast<size_t>(channel_width(work[c]));
        const size_t n = times[c].size();
        if (n < 3) continue;
        keep.assign(n, 1);
        pair_values.resize(2 * width);
        size_t p = 0;  // the last kept key before i
        for (size_t i = 1; i + 1 < n; ++i) {
          pair_times[0] = times[c][p];
          pair_times[1] = times[c][i + 1];
          std::copy_n(values[c].begin() + static_cast<ptrdiff_t>(p * width), width,
                      pair_values.begin());
          std::copy_n(values[c].begin() + static_cast<ptrdiff_t>((i + 1) * width), width,
                      pair_values.begin() + static_cast<ptrdiff_t>(width));
          work[c].times = pair_times;
          work[c].values = pair_values;
          bool ok = true;
          if (incremental) {
            set_subtree(work[c].joint);
            const auto [begin, end] = window(pair_times[0], pair_times[1]);
            for (size_t t = begin; t < end && ok; ++t) ok = subtree_error(t, limit) <= limit;
            if (ok) {
              // Keep the subtree's new matrices at the window's times.
              for (size_t t = begin; t < end; ++t) {
                subtree_error(t, HUGE_VAL);
                for (const size_t k : subtree) current[t * joints + k] = candidate[k];
              }
            }
          } else {
            ok = measure.error_between(pair_times[0], pair_times[1], work, limit) <= limit;
          }
          if (ok) {
            keep[i] = 0;
          } else {
            p = i;
          }
        }
        size_t kept = 0;
        for (size_t i = 0; i < n; ++i) {
          if (!keep[i]) continue;
          times[c][kept] = times[c][i];
          std::copy_n(values[c].begin() + static_cast<ptrdiff_t>(i * width), width,
                      values[c].begin() + static_cast<ptrdiff_t>(kept * width));
          ++kept;
        }
        times[c].resize(kept);
        values[c].resize(kept * width);
        work[c].times = times[c];
        work[c].values = values[c];
      }
    }
    out.within = true;
  }
  out.max_error = measure.error_between(1, 0, work, HUGE_VAL);
  out.within = out.within && out.max_error <= tolerance;

  Clip clip(quantised.name());
  for (const Channel& ch : work) {
    if (ch.property == Property::kWeights) {
      clip.add_weights_channel(ch.joint, ch.width, ch.interpolation, ch.times, ch.values);
    } else {
      clip.add_channel(ch.joint, ch.property, ch.interpolation, ch.times, ch.values);
    }
  }
  for (const ClipEvent& e : quantised.events()) clip.add_event(e.name, e.time);
  clip.set_additive(quantised.additive());
  clip.extend_duration(quantised.duration());
  ClipStorage kept = storage;
  kept.compression = ClipCompression::kLossy;
  kept.stored_bytes = 0;
  // Rounded up to a float, so that max_error is never below what was measured (and, being
  // at most the float tolerance, never above it).
  float bound = static_cast<float>(out.max_error);
  if (static_cast<double>(bound) < out.max_error) bound = std::nextafter(bound, HUGE_VALF);
  kept.max_error = bound;
  clip.set_storage(kept);
  out.keys_after = key_count(clip);
  out.clip = std::move(clip);
  return out;
}

}  // namespace animpack
