// Joint pairing and clip retargeting (retarget.h; the method and its limits are in
// docs/retargeting.md).
#include "animpack/compiler/retarget.h"

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace animpack {
namespace {

bool is_separator(char c) {
  return c == ' ' || c == '_' || c == '-' || c == '.' || c == ':' || c == '|';
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

// Longest first, so that "bip001" is tried before "bip".
constexpr std::string_view kRigPrefixes[] = {"valvebiped", "mixamorig", "armature", "bip001",
                                             "bip01",      "bip",       "def",      "rig"};

// The length of the rig prefix `name` starts with (case-insensitive), or 0. A prefix counts
// only at a word boundary: followed by a separator or, camel case, by an upper-case letter
// after a lower-case one ("mixamorigHips"), so that "RightArm" keeps its "rig".
size_t rig_prefix_length(std::string_view name) {
  for (std::string_view prefix : kRigPrefixes) {
    if (name.size() <= prefix.size()) continue;
    bool match = true;
    for (size_t i = 0; i < prefix.size() && match; ++i) match = lower(name[i]) == prefix[i];
    if (!match) continue;
    const char last = name[prefix.size() - 1], next = name[prefix.size()];
    if (is_separator(next) || (is_upper(next) && is_lower(last))) return prefix.size();
  }
  return 0;
}

Quat conjugate(Quat q) { return {-q.x, -q.y, -q.z, q.w}; }

bool finite(float v) { return std::isfinite(v); }

bool all_finite(std::span<const float> values) {
  for (float v : values) {
    if (!finite(v)) return false;
  }
  return true;
}

// Each joint's rest rotation in the model frame: the root matrix's rotation, then the rest
// local rotations down the chain (quaternions, so that scales in the chain do not enter).
std::vector<Quat> rest_global_rotations(const Skeleton& s) {
  std::vector<Quat> out(static_cast<size_t>(s.joint_count()));
  const Quat root = decompose(s.root()).rotation;
  for (int j = 0; j < s.joint_count(); ++j) {
    const int p = s.parents()[static_cast<size_t>(j)];
    const Quat parent = p < 0 ? root : out[static_cast<size_t>(p)];
    out[static_cast<size_t>(j)] =
        normalize(parent * s.rest_pose()[static_cast<size_t>(j)].rotation);
  }
  return out;
}

// Each joint's rest global matrix (root * ... * local).
std::vector<Mat4> rest_globals(const Skeleton& s) {
  std::vector<Mat4> out(static_cast<size_t>(s.joint_count()));
  for (int j = 0; j < s.joint_count(); ++j) {
    const int p = s.parents()[static_cast<size_t>(j)];
    const Mat4& parent = p < 0 ? s.root() : out[static_cast<size_t>(p)];
    out[static_cast<size_t>(j)] =
        mul_affine(parent, to_matrix(s.rest_pose()[static_cast<size_t>(j)]));
  }
  return out;
}

int depth(const Skeleton& s, int j) {
  int d = 0;
  for (int p = s.parents()[static_cast<size_t>(j)]; p >= 0;
       p = s.parents()[static_cast<size_t>(p)]) {
    ++d;
  }
  return d;
}

// The root-most source joint with a pair (lowest depth, then lowest index), or -1.
int root_most_paired(const Skeleton& source, const std::vector<int>& target_of,
                     const std::vector<bool>* has_translation) {
  int best = -1, best_depth = 0;
  for (int j = 0; j < source.joint_count(); ++j) {
    if (target_of[static_cast<size_t>(j)] < 0) continue;
    if (has_translation && !(*has_translation)[static_cast<size_t>(j)]) continue;
    const int d = depth(source, j);
    if (best < 0 || d < best_depth) {
      best = j;
      best_depth = d;
    }
  }
  return best;
}

// Whether two rest vectors are the same value: bitwise, or within 1e-5 of the longer one's
// length (what an exporter's float printing changes).
bool rest_equal(Vec3 a, Vec3 b) {
  if (a == b) return true;
  const float la = length(a), lb = length(b);
  return length(a - b) <= 1e-5f * (la > lb ? la : lb);
}

void fill_unpaired_targets(JointPairing& p, int target_count) {
  std::vector<bool> taken(static_cast<size_t>(target_count), false);
  for (int t : p.target_of) {
    if (t >= 0) taken[static_cast<size_t>(t)] = true;
  }
  p.unpaired_targets.clear();
  for (int t = 0; t < target_count; ++t) {
    if (!taken[static_cast<size_t>(t)]) p.unpaired_targets.push_back(t);
  }
}

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

bool is_humanoid_bone(std::string_view bone) {
  for (std::string_view b : kHumanoidBones) {
    if (b == bone) return true;
  }
  return false;
}

std::string canonical_joint_name(std::string_view name) {
  // Rig prefixes are removed one after another ("Armature|mixamorig:Hips" -> "Hips"), each
  // with the separators after it, as long as something is left.
  for (;;) {
    const size_t n = rig_prefix_length(name);
    if (n == 0) break;
    size_t rest = n;
    while (rest < name.size() && is_separator(name[rest])) ++rest;
    if (rest >= name.size()) break;
    name.remove_prefix(rest);
  }
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (!is_separator(c)) out.push_back(lower(c));
  }
  return out;
}

JointPairing pair_joints(const Skeleton& source, const Skeleton& target,
                         const HumanoidMap& source_map, const HumanoidMap& target_map) {
  const int ns = source.joint_count(), nt = target.joint_count();
  JointPairing p;
  p.target_of.assign(static_cast<size_t>(ns), -1);
  p.how.assign(static_cast<size_t>(ns), "");
  p.reason.assign(static_cast<size_t>(ns), "");
  std::vector<int> source_of(static_cast<size_t>(nt), -1);
  auto pair = [&](int s, int t, std::string how) {
    p.target_of[static_cast<size_t>(s)] = t;
    p.how[static_cast<size_t>(s)] = std::move(how);
    source_of[static_cast<size_t>(t)] = s;
  };
  auto canonical_matches = [](const Skeleton& skel, std::string_view name) {
    std::vector<int> out;
    const std::string c = canonical_joint_name(name);
    for (int j = 0; j < skel.joint_count(); ++j) {
      if (canonical_joint_name(skel.joints()[static_cast<size_t>(j)].name) == c) out.push_back(j);
    }
    return out;
  };
  auto map_joint = [](const HumanoidMap& map, std::string_view bone) -> const std::string* {
    for (const auto& [b, joint] : map) {
      if (b == bone) return &joint;
    }
    return nullptr;
  };

  // 1. Humanoid bones, in kHumanoidBones order.
  const bool have_maps = !source_map.empty() || !target_map.empty();
  for (std::string_view bone : kHumanoidBones) {
    if (!have_maps) break;
    const std::string* sj = map_joint(source_map, bone);
    const std::string* tj = map_joint(target_map, bone);
    if (!sj && !tj) continue;
    int s = -1, t = -1;
    if (sj) {
      s = source.find_joint(*sj);
    } else {
      const std::vector<int> m = canonical_matches(source, bone);
      if (m.size() == 1) s = m[0];
    }
    if (tj) {
      t = target.find_joint(*tj);
    } else {
      const std::vector<int> m = canonical_matches(target, bone);
      if (m.size() == 1) t = m[0];
    }
    if (s < 0 || t < 0) continue;
    if (p.target_of[static_cast<size_t>(s)] >= 0 || source_of[static_cast<size_t>(t)] >= 0) {
      continue;  // a joint mapped to two bones keeps the first
    }
    pair(s, t, "humanoid:" + std::string(bone));
    if (bone == "hips") {
      p.source_hips = s;
      p.target_hips = t;
    }
  }

  // 2. Equal names, when each side has the name once.
  std::unordered_map<std::string, int> target_exact, source_exact;  // name -> joint or -2
  for (int t = 0; t < nt; ++t) {
    auto [it, fresh] = target_exact.emplace(target.joints()[static_cast<size_t>(t)].name, t);
    if (!fresh) it->second = -2;
  }
  for (int s = 0; s < ns; ++s) {
    auto [it, fresh] = source_exact.emplace(source.joints()[static_cast<size_t>(s)].name, s);
    if (!fresh) it->second = -2;
  }
  for (int s = 0; s < ns; ++s) {
    if (p.target_of[static_cast<size_t>(s)] >= 0) continue;
    const std::string& name = source.joints()[static_cast<size_t>(s)].name;
    const auto it = target_exact.find(name);
    if (it == target_exact.end() || it->second < 0 || source_exact[name] != s) continue;
    if (source_of[static_cast<size_t>(it->second)] >= 0) continue;
    pair(s, it->second, "name");
  }

  // 3. Canonical names among the joints still unpaired, when each side has the name once.
  std::unordered_map<std::string, std::vector<int>> target_canon, source_canon;
  for (int t = 0; t < nt; ++t) {
    if (source_of[static_cast<size_t>(t)] >= 0) continue;
    target_canon[canonical_joint_name(target.joints()[static_cast<size_t>(t)].name)].push_back(t);
  }
  for (int s = 0; s < ns; ++s) {
    if (p.target_of[static_cast<size_t>(s)] >= 0) continue;
    source_canon[canonical_joint_name(source.joints()[static_cast<size_t>(s)].name)].push_back(s);
  }
  for (int s = 0; s < ns; ++s) {
    if (p.target_of[static_cast<size_t>(s)] >= 0) continue;
    const std::string& name = source.joints()[static_cast<size_t>(s)].name;
    const std::string c = canonical_joint_name(name);
    const auto it = target_canon.find(c);
    if (c.empty()) {
      p.reason[static_cast<size_t>(s)] = "its name is empty once separators are removed";
    } else if (it == target_canon.end()) {
      p.reason[static_cast<size_t>(s)] = "no target joint is named like it ('" + c + "')";
    } else if (it->second.size() > 1) {
      std::string names;
      for (int t : it->second) {
        names += (names.empty() ? "" : ", ") + quoted(target.joints()[static_cast<size_t>(t)].name);
      }
      p.reason[static_cast<size_t>(s)] =
          "ambiguous: target joints " + names + " all read '" + c + "'";
    } else if (source_canon[c].size() > 1) {
      std::string names;
      for (int o : source_canon[c]) {
        names += (names.empty() ? "" : ", ") + quoted(source.joints()[static_cast<size_t>(o)].name);
      }
      p.reason[static_cast<size_t>(s)] =
          "ambiguous: source joints " + names + " all read '" + c + "'";
    } else {
      pair(s, it->second[0], "name");
    }
  }
  for (int s = 0; s < ns; ++s) {
    if (p.target_of[static_cast<size_t>(s)] >= 0) p.reason[static_cast<size_t>(s)].clear();
  }

  if (p.source_hips < 0) {
    p.source_hips = root_most_paired(source, p.target_of, nullptr);
    p.target_hips = p.source_hips < 0 ? -1 : p.target_of[static_cast<size_t>(p.source_hips)];
  }
  fill_unpaired_targets(p, nt);
  return p;
}

JointPairing pair_joints_by_name(const Skeleton& source, const Skeleton& target) {
  const int ns = source.joint_count(), nt = target.joint_count();
  JointPairing p;
  p.target_of.assign(static_cast<size_t>(ns), -1);
  p.how.assign(static_cast<size_t>(ns), "");
  p.reason.assign(static_cast<size_t>(ns), "");
  std::vector<bool> taken(static_cast<size_t>(nt), false);
  for (int s = 0; s < ns; ++s) {
    const std::string& name = source.joints()[static_cast<size_t>(s)].name;
    const int t = target.find_joint(name);
    if (t < 0) {
      p.reason[static_cast<size_t>(s)] = "the target has no joint named " + quoted(name);
    } else if (taken[static_cast<size_t>(t)]) {
      p.reason[static_cast<size_t>(s)] = "an earlier source joint is also named " + quoted(name);
    } else {
      p.target_of[static_cast<size_t>(s)] = t;
      p.how[static_cast<size_t>(s)] = "name";
      taken[static_cast<size_t>(t)] = true;
    }
  }
  p.source_hips = root_most_paired(source, p.target_of, nullptr);
  p.target_hips = p.source_hips < 0 ? -1 : p.target_of[static_cast<size_t>(p.source_hips)];
  fill_unpaired_targets(p, nt);
  return p;
}

RetargetedClip retarget_clip(const Clip& clip, const Skeleton& source, const Skeleton& target,
                             const JointPairing& pairing, const RetargetOptions& options) {
  RetargetedClip out;
  out.clip = Clip(clip.name());
  const int ns = source.joint_count(), nt = target.joint_count();
  auto fail = [&](std::string why) {
    out.ok = false;
    out.error = "clip '" + clip.name() + "': " + std::move(why);
    out.clip = Clip(clip.name());
    return std::move(out);
  };
  if (pairing.target_of.size() != static_cast<size_t>(ns)) {
    return fail("the pairing has " + std::to_string(pairing.target_of.size()) +
                " entries for a source skeleton of " + std::to_string(ns) + " joints");
  }
  {
    std::vector<bool> taken(static_cast<size_t>(nt), false);
    for (int t : pairing.target_of) {
      if (t < -1 || t >= nt) {
        return fail("the pairing names target joint " + std::to_string(t) + " of " +
                    std::to_string(nt));
      }
      if (t >= 0 && taken[static_cast<size_t>(t)]) {
        return fail("the pairing gives target joint '" +
                    target.joints()[static_cast<size_t>(t)].name + "' two source joints");
      }
      if (t >= 0) taken[static_cast<size_t>(t)] = true;
    }
  }

  // The hips of this clip: the humanoid pair, else the root-most paired joint the clip
  // moves (translation), else the pairing's.
  int hips = pairing.source_hips;
  const bool humanoid_hips = hips >= 0 && hips < ns &&
                             pairing.how.size() == static_cast<size_t>(ns) &&
                             pairing.how[static_cast<size_t>(hips)] == "humanoid:hips";
  if (!humanoid_hips) {
    std::vector<bool> has_translation(static_cast<size_t>(ns), false);
    for (const Channel& ch : clip.channels()) {
      if (ch.property == Property::kTranslation && ch.joint < ns) has_translation[ch.joint] = true;
    }
    if (const int j = root_most_paired(source, pairing.target_of, &has_translation); j >= 0) {
      hips = j;
    }
  }
  if (hips >= ns || (hips >= 0 && pairing.target_of[static_cast<size_t>(hips)] < 0)) hips = -1;

  const std::vector<Quat> source_globals = rest_global_rotations(source);
  const std::vector<Quat> target_globals = rest_global_rotations(target);
  const std::vector<Mat4> source_mats = rest_globals(source);
  const std::vector<Mat4> target_mats = rest_globals(target);
  auto parent_matrix = [](const Skeleton& s, const std::vector<Mat4>& mats, int j) -> const Mat4& {
    const int p = s.parents()[static_cast<size_t>(j)];
    return p < 0 ? s.root() : mats[static_cast<size_t>(p)];
  };

  // The hip ratio: the target hips' rest height along `up` over the source's.
  float ratio = 1.0f;
  if (options.retarget && hips >= 0) {
    const int th = pairing.target_of[static_cast<size_t>(hips)];
    const Mat4& sm = source_mats[static_cast<size_t>(hips)];
    const Mat4& tm = target_mats[static_cast<size_t>(th)];
    const float hs = dot(Vec3{sm.m[12], sm.m[13], sm.m[14]}, options.up);
    const float ht = dot(Vec3{tm.m[12], tm.m[13], tm.m[14]}, options.up);
    if (hs == ht) {
      ratio = 1.0f;
    } else if (!(hs > 0.0f) || !(ht > 0.0f) || !finite(ht / hs)) {
      out.notes.push_back("hips '" + source.joints()[static_cast<size_t>(hips)].name +
                          "': rest heights " + std::to_string(hs) + " and " + std::to_string(ht) +
                          " are not both above the origin; the hip ratio is 1");
    } else {
      ratio = ht / hs;
      char text[64];
      std::snprintf(text, sizeof text, "%.6g", static_cast<double>(ratio));
      out.notes.push_back("hips '" + source.joints()[static_cast<size_t>(hips)].name + "' -> '" +
                          target.joints()[static_cast<size_t>(th)].name + "': hip ratio " + text);
    }
  }

  std::vector<bool> dropped(static_cast<size_t>(ns), false);
  std::vector<float> values;
  for (const Channel& ch : clip.channels()) {
    if (ch.property == Property::kWeights) {
      if (options.morph_sets_match) {
        out.clip.add_weights_channel(ch.joint, ch.width, ch.interpolation, ch.times, ch.values);
      } else {
        out.notes.push_back("morph set " + std::to_string(ch.joint) +
                            ": weights channel dropped (the rigs' morph sets are not known to "
                            "match)");
      }
      continue;
    }
    if (ch.joint >= ns)
      return fail("a channel animates joint " + std::to_string(ch.joint) + " of a " +
                  std::to_string(ns) + "-joint source skeleton");
    const int s = ch.joint;
    const int t = pairing.target_of[static_cast<size_t>(s)];
    if (t < 0) {
      dropped[static_cast<size_t>(s)] = true;
      continue;
    }
    const uint16_t tj = static_cast<uint16_t>(t);
    const Trs& srest = source.rest_pose()[static_cast<size_t>(s)];
    const Trs& trest = target.rest_pose()[static_cast<size_t>(t)];
    const std::string& sname = source.joints()[static_cast<size_t>(s)].name;
    if (!options.retarget) {
      out.clip.add_channel(tj, ch.property, ch.interpolation, ch.times, ch.values);
      continue;
    }
    values.assign(ch.values.begin(), ch.values.end());
    const bool cubic = ch.interpolation == Interpolation::kCubicSpline;
    if (ch.property == Property::kRotation) {
      const Quat S = source_globals[static_cast<size_t>(s)];
      const Quat T = target_globals[static_cast<size_t>(t)];
      if (!(srest.rotation == trest.rotation && S == T)) {
        // q' = t T^-1 S s^-1 q S^-1 T: linear in q, so tangents go through it unchanged.
        const Quat a = normalize(trest.rotation * conjugate(T) * S * conjugate(srest.rotation));
        const Quat b = normalize(conjugate(S) * T);
        for (size_t i = 0; i + 4 <= values.size(); i += 4) {
          Quat q{values[i], values[i + 1], values[i + 2], values[i + 3]};
          q = a * q * b;
          const bool is_value = !cubic || (i / 4) % 3 == 1;
          if (is_value && !cubic) q = normalize(q);
          values[i] = q.x;
          values[i + 1] = q.y;
          values[i + 2] = q.z;
          values[i + 3] = q.w;
        }
      }
    } else if (ch.property == Property::kTranslation && s == hips) {
      const Mat4& sp = parent_matrix(source, source_mats, s);
      const Mat4& tp = parent_matrix(target, target_mats, t);
      if (!(ratio == 1.0f && bits_equal(sp.m, tp.m, 16))) {
        // p' = Tp^-1 * ratio * Sp * p: the model-space position scaled about the origin.
        Mat4 scale;
        scale.m[0] = scale.m[5] = scale.m[10] = ratio;
        bool invertible = false;
        const Mat4 tp_inv = inverse_affine(tp, &invertible);
        if (!invertible) return fail("the target hips' parent frame cannot be inverted");
        const Mat4 m = mul_affine(tp_inv, mul_affine(scale, sp));
        for (size_t i = 0; i + 3 <= values.size(); i += 3) {
          const Vec3 v{values[i], values[i + 1], values[i + 2]};
          const bool is_value = !cubic || (i / 3) % 3 == 1;
          const Vec3 r = is_value ? transform_point(m, v) : transform_vector(m, v);
          values[i] = r.x;
          values[i + 1] = r.y;
          values[i + 2] = r.z;
        }
      }
    } else {
      const bool translation = ch.property == Property::kTranslation;
      const Vec3 a = translation ? srest.translation : srest.scale;
      const Vec3 b = translation ? trest.translation : trest.scale;
      if (!rest_equal(a, b)) {
        out.notes.push_back("joint '" + sname + "': " + property_name(ch.property) +
                            " keys dropped (the rigs' rest " + property_name(ch.property) +
                            "s differ; the target's rest holds)");
        continue;
      }
    }
    if (!all_finite(values)) {
      return fail("joint '" + sname + "': a retargeted " + property_name(ch.property) +
                  " value is not finite");
    }
    out.clip.add_channel(tj, ch.property, ch.interpolation, ch.times, values);
  }
  for (int s = 0; s < ns; ++s) {
    if (dropped[static_cast<size_t>(s)]) out.dropped_joints.push_back(s);
  }
  if (out.clip.channels().empty()) {
    if (clip.channels().empty()) return fail("the clip has no channels");
    return fail("no channel survives: no joint the clip animates has a pair in the target");
  }
  for (const ClipEvent& e : clip.events()) out.clip.add_event(e.name, e.time);
  out.clip.set_additive(clip.additive());
  out.clip.extend_duration(clip.duration());
  out.ok = true;
  return out;
}

}  // namespace animpack
