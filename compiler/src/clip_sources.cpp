// A mesh's clips from its clip sources (clip_sources.h; docs/scene-format.md, "Clip
// sources"): selection, names, cuts, binding by joint name and retargeting.
#include "animpack/compiler/clip_sources.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

namespace animpack {
namespace {

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string seconds(float t) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", static_cast<double>(t));
  return text;
}

// "a, b, c" for at most 16 names, each cut at 64 bytes.
std::string listed(const std::vector<std::string>& names) {
  constexpr size_t kListed = 16, kNameChars = 64;
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i == kListed) {
      out += ", ... (" + std::to_string(names.size()) + " in all)";
      break;
    }
    const std::string_view n = names[i];
    out += (out.empty() ? "" : ", ") + quote(n.substr(0, kNameChars)) +
           (n.size() > kNameChars ? "..." : "");
  }
  return out.empty() ? std::string("none") : out;
}

// "; did you mean 'x'?" among names, for short lists (a bounded cost per pattern).
std::string hint(std::string_view word, const std::vector<std::string>& names) {
  constexpr size_t kMaxCandidates = 1024;
  if (names.size() > kMaxCandidates) return {};
  std::vector<std::string_view> views(names.begin(), names.end());
  const std::string_view close = closest_name(word, views);
  return close.empty() ? std::string() : "; did you mean " + quote(close) + "?";
}

// --- Cuts. ---

// One channel's keys as the cut writes them: per key a time and its value groups (one
// group for STEP and LINEAR, in-tangent, value, out-tangent for CUBICSPLINE).
struct Keys {
  std::vector<float> times;
  std::vector<float> values;
};

// The value of LINEAR or STEP channel `ch` at time t, as the runtime samples it: before the
// first key the first value, after the last the last, STEP the key at or before t, LINEAR
// lerp (a (1 - u) + b u) or, for rotations, the runtime's slerp.
void sample_flat(const Channel& ch, size_t width, float t, float* out) {
  const size_t n = ch.times.size();
  const float* v = ch.values.data();
  if (n == 1 || !(t > ch.times[0])) {
    std::copy(v, v + width, out);
    return;
  }
  if (t >= ch.times[n - 1]) {
    std::copy(v + (n - 1) * width, v + n * width, out);
    return;
  }
  const size_t k = static_cast<size_t>(std::upper_bound(ch.times.begin(), ch.times.end(), t) -
                                       ch.times.begin()) -
                   1;
  const float* a = v + k * width;
  if (ch.interpolation == Interpolation::kStep) {
    std::copy(a, a + width, out);
    return;
  }
  const float* b = a + width;
  const float u = (t - ch.times[k]) / (ch.times[k + 1] - ch.times[k]);
  if (ch.property == Property::kRotation) {
    const Quat q = slerp(Quat{a[0], a[1], a[2], a[3]}, Quat{b[0], b[1], b[2], b[3]}, u);
    out[0] = q.x;
    out[1] = q.y;
    out[2] = q.z;
    out[3] = q.w;
    return;
  }
  for (size_t i = 0; i < width; ++i) out[i] = a[i] * (1.0f - u) + b[i] * u;
}

// The Hermite segment of CUBICSPLINE channel `ch` at time t: value and per-second tangent
// (the derivative in time), each `width` floats, computed in double. Before the first key
// and after the last the value holds and the tangent is 0.
void sample_cubic(const Channel& ch, size_t width, float t, float* value, float* tangent) {
  const size_t n = ch.times.size();
  const size_t stride = 3 * width;
  const float* v = ch.values.data();
  const auto hold = [&](size_t k) {
    std::copy(v + k * stride + width, v + k * stride + 2 * width, value);
    std::fill(tangent, tangent + width, 0.0f);
  };
  if (n == 1 || !(t > ch.times[0])) return hold(0);
  if (t >= ch.times[n - 1]) return hold(n - 1);
  const size_t k = static_cast<size_t>(std::upper_bound(ch.times.begin(), ch.times.end(), t) -
                                       ch.times.begin()) -
                   1;
  const double t0 = ch.times[k];
  const double td = static_cast<double>(ch.times[k + 1]) - t0;
  const double u = (static_cast<double>(t) - t0) / td;
  const double u2 = u * u, u3 = u2 * u;
  const double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2,
               h11 = u3 - u2;
  const double d00 = 6 * u2 - 6 * u, d10 = 3 * u2 - 4 * u + 1, d01 = -6 * u2 + 6 * u,
               d11 = 3 * u2 - 2 * u;
  const float* key0 = v + k * stride;        // in, value, out of key k
  const float* key1 = v + (k + 1) * stride;  // in, value, out of key k + 1
  for (size_t i = 0; i < width; ++i) {
    const double p0 = key0[width + i], m0 = key0[2 * width + i] * td;
    const double p1 = key1[width + i], m1 = key1[i] * td;
    value[i] = static_cast<float>(h00 * p0 + h10 * m0 + h01 * p1 + h11 * m1);
    tangent[i] = static_cast<float>((d00 * p0 + d10 * m0 + d01 * p1 + d11 * m1) / td);
  }
}

Keys cut_channel(const Channel& ch, float from, float to) {
  const size_t width = static_cast<size_t>(channel_width(ch));
  const bool cubic = ch.interpolation == Interpolation::kCubicSpline;
  const size_t group = cubic ? 3 * width : width;
  const size_t n = ch.times.size();
  Keys out;
  if (n == 1) {  // a constant: one key at 0
    out.times.push_back(0.0f);
    out.values.assign(ch.values.begin(), ch.values.end());
    return out;
  }
  const float span = to - from;
  std::vector<float> value(width), tangent(width);
  // A key at a cut end: the value there (and, cubic, its tangent as both in and out).
  const auto end_key = [&](float t, float at) {
    if (cubic) {
      sample_cubic(ch, width, t, value.data(), tangent.data());
      out.values.insert(out.values.end(), tangent.begin(), tangent.end());
      out.values.insert(out.values.end(), value.begin(), value.end());
      out.values.insert(out.values.end(), tangent.begin(), tangent.end());
    } else {
      sample_flat(ch, width, t, value.data());
      out.values.insert(out.values.end(), value.begin(), value.end());
    }
    out.times.push_back(at);
  };
  // A key of the source kept: copied, except that a tangent facing a held stretch (before
  // the first key, after the last) is 0, since the source holds its value there.
  const auto keep_key = [&](size_t k, float at) {
    const float* src = ch.values.data() + k * group;
    const size_t first = out.values.size();
    out.values.insert(out.values.end(), src, src + group);
    if (cubic && k == 0)
      std::fill_n(out.values.begin() + static_cast<ptrdiff_t>(first), width, 0.0f);
    if (cubic && k == n - 1) {
      std::fill_n(out.values.begin() + static_cast<ptrdiff_t>(first + 2 * width), width, 0.0f);
    }
    out.times.push_back(at);
  };
  // A cubic rotation's value inside a segment is not a unit quaternion (the runtime
  // normalises what the Hermite basis gives), and the runtime returns a channel's first and
  // last key values as they are: so a cut end inside a segment gets the normalised value,
  // and a lead key `lead` seconds inside the cut with the cubic's own value and tangent, from
  // which on the curve is the source's (between the two, 1e-6 s apart or two ulps of `to`,
  // the difference is the unit value's distance from the cubic's times the motion in that
  // time: far below 1e-6 at any speed a character turns).
  const bool lead_in = cubic && ch.property == Property::kRotation;
  const float lead = std::max(1e-6f, 2.0f * (std::nextafter(to, 2.0f * to + 1.0f) - to));
  const auto inside = [&](float t) {
    return t > ch.times[0] && t < ch.times[n - 1] &&
           !std::binary_search(ch.times.begin(), ch.times.end(), t);
  };
  const auto normalised_end_key = [&](float t, float at) {
    end_key(t, at);
    float* q = out.values.data() + out.values.size() - 2 * width;  // the value group
    const double len =
        std::sqrt(static_cast<double>(q[0]) * q[0] + static_cast<double>(q[1]) * q[1] +
                  static_cast<double>(q[2]) * q[2] + static_cast<double>(q[3]) * q[3]);
    if (len > 0) {
      for (size_t i = 0; i < 4; ++i) q[i] = static_cast<float>(q[i] / len);
    }
  };
  // The first key: a source key exactly at `from`, else the value sampled there.
  size_t k = static_cast<size_t>(std::lower_bound(ch.times.begin(), ch.times.end(), from) -
                                 ch.times.begin());
  // (No lead key where a source key lies within it: that key is the lead.)
  const size_t last_before_to = static_cast<size_t>(
      std::lower_bound(ch.times.begin(), ch.times.end(), to) - ch.times.begin());
  const bool lead_from =
      lead_in && inside(from) && lead < span / 4 && (k >= n || ch.times[k] > from + lead);
  const bool lead_to = lead_in && inside(to) && lead < span / 4 &&
                       (last_before_to == 0 || ch.times[last_before_to - 1] < to - lead);
  if (k < n && ch.times[k] == from) {
    keep_key(k, 0.0f);
    ++k;
  } else if (lead_from) {
    normalised_end_key(from, 0.0f);
    const float t = from + lead;
    end_key(t, t - from);
  } else {
    end_key(from, 0.0f);
  }
  // Keys strictly inside, shifted; one that would not come strictly after the one before
  // (float rounding of t - from for keys within an ulp) is dropped.
  for (; k < n && ch.times[k] < to; ++k) {
    const float at = ch.times[k] - from;
    if (!(at > out.times.back()) || !(at < span)) continue;
    keep_key(k, at);
  }
  if (k < n && ch.times[k] == to) {
    keep_key(k, span);
  } else if (lead_to) {
    const float t = to - lead;
    if (t - from > out.times.back()) end_key(t, t - from);
    normalised_end_key(to, span);
  } else {
    end_key(to, span);
  }
  return out;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view name) {
  // Greedy with one backtrack point: the last `*` and where its run ends so far.
  size_t p = 0, n = 0;
  size_t star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

Clip cut_clip(const Clip& clip, std::string name, float from, float to) {
  Clip out(std::move(name));
  for (const Channel& ch : clip.channels()) {
    const Keys keys = cut_channel(ch, from, to);
    if (ch.property == Property::kWeights) {
      out.add_weights_channel(ch.joint, ch.width, ch.interpolation, keys.times, keys.values);
    } else {
      out.add_channel(ch.joint, ch.property, ch.interpolation, keys.times, keys.values);
    }
  }
  for (const ClipEvent& e : clip.events()) {
    if (e.time >= from && e.time <= to) out.add_event(e.name, std::min(e.time - from, to - from));
  }
  out.set_additive(clip.additive());
  out.extend_duration(to - from);
  return out;
}

ClipSelection select_animations(std::span<const std::string> names, const SceneClipSource& source) {
  ClipSelection out;
  out.include_matches.assign(source.include.size(), 0);
  for (size_t i = 0; i < names.size(); ++i) {
    bool in = source.include.empty();
    for (size_t p = 0; p < source.include.size(); ++p) {
      if (glob_match(source.include[p], names[i])) {
        ++out.include_matches[p];
        in = true;
      }
    }
    if (!in) continue;
    const bool out_of = std::any_of(source.exclude.begin(), source.exclude.end(),
                                    [&](const std::string& x) { return glob_match(x, names[i]); });
    if (!out_of) out.selected.push_back(i);
  }
  return out;
}

namespace {

// A copy of `clip` under another name (keys, events, duration and reference kept).
Clip renamed(const Clip& clip, std::string name) {
  Clip out(std::move(name));
  for (const Channel& ch : clip.channels()) {
    if (ch.property == Property::kWeights) {
      out.add_weights_channel(ch.joint, ch.width, ch.interpolation, ch.times, ch.values);
    } else {
      out.add_channel(ch.joint, ch.property, ch.interpolation, ch.times, ch.values);
    }
  }
  for (const ClipEvent& e : clip.events()) out.add_event(e.name, e.time);
  out.set_additive(clip.additive());
  out.extend_duration(clip.duration());
  return out;
}

// A clip carried from the rig `from` onto the rig `to`: joint channels through
// retarget_clip (with `pairing` and `options`), weights channels onto the morph set of the
// same name and size. Names of what had no counterpart go to `dropped`.
struct Bound {
  Clip clip;
  bool any = false;   // some channel was carried
  std::string error;  // retarget_clip's failure, or ""
  std::vector<std::string> notes;
};

Bound bind_clip(const Clip& clip, const Rig& from, const Rig& to, const JointPairing& pairing,
                const RetargetOptions& options, std::set<std::string>* dropped) {
  Bound out;
  Clip joints(clip.name());
  bool paired = false;
  for (const Channel& ch : clip.channels()) {
    if (ch.property == Property::kWeights) continue;
    joints.add_channel(ch.joint, ch.property, ch.interpolation, ch.times, ch.values);
    if (ch.joint < pairing.target_of.size() && pairing.target_of[ch.joint] >= 0) {
      paired = true;
    } else if (ch.joint < from.skeleton().joints().size()) {
      dropped->insert(from.skeleton().joints()[ch.joint].name);
    }
  }
  for (const ClipEvent& e : clip.events()) joints.add_event(e.name, e.time);
  joints.set_additive(clip.additive());
  joints.extend_duration(clip.duration());
  if (paired) {
    RetargetedClip r = retarget_clip(joints, from.skeleton(), to.skeleton(), pairing, options);
    if (!r.ok) {
      out.error = r.error;
      return out;
    }
    out.clip = std::move(r.clip);
    out.notes = std::move(r.notes);
    out.any = true;
  } else {
    out.clip = Clip(clip.name());
    for (const ClipEvent& e : clip.events()) out.clip.add_event(e.name, e.time);
    out.clip.set_additive(clip.additive());
  }
  // Weights: by the set's name (its node's), with the same number of targets.
  for (const Channel& ch : clip.channels()) {
    if (ch.property != Property::kWeights || ch.joint >= from.morph_sets().size()) continue;
    const MorphSet& set = from.morph_sets()[ch.joint];
    const auto it = std::find_if(to.morph_sets().begin(), to.morph_sets().end(),
                                 [&](const MorphSet& s) { return s.name == set.name; });
    if (it == to.morph_sets().end() || it->size() != set.size()) {
      dropped->insert(set.name + " (morph weights)");
      continue;
    }
    out.clip.add_weights_channel(static_cast<uint16_t>(it - to.morph_sets().begin()), ch.width,
                                 ch.interpolation, ch.times, ch.values);
    out.any = true;
  }
  out.clip.extend_duration(clip.duration());
  return out;
}

struct TakenName {
  SourcePos pos;
  bool given = false;  // written in the scene (`name` or `rename`)
};

}  // namespace

HumanoidMap humanoid_map(const SceneMesh& mesh) {
  HumanoidMap map;
  for (const SceneRename& b : mesh.humanoid) map.emplace_back(b.from, b.to);
  return map;
}

bool check_humanoid(const SceneMesh& mesh, const Rig* rig, ClipSourceHost& host) {
  bool ok = true;
  std::vector<std::string> joints;
  if (rig) {
    for (const Joint& j : rig->skeleton().joints()) joints.push_back(j.name);
  }
  for (const SceneRename& b : mesh.humanoid) {
    if (rig && rig->skeleton().find_joint(b.to) >= 0) continue;
    host.report(
        "E0230", Severity::kError, b.pos,
        "humanoid bone " + quote(b.from) + " names joint " + quote(b.to) + ", which mesh " +
            quote(mesh.name) +
            (rig ? " does not have" + hint(b.to, joints) : " (it has no rig) does not have"));
    ok = false;
  }
  return ok;
}

std::vector<size_t> clip_source_order(const Scene& scene) {
  const size_t count = scene.meshes.size();
  std::map<std::string_view, size_t> index;
  for (size_t m = 0; m < count; ++m) index.emplace(scene.meshes[m].name, m);
  // What each mesh waits for: meshes whose clips its sources take.
  std::vector<std::vector<size_t>> needs(count);
  for (size_t m = 0; m < count; ++m) {
    for (const SceneClipSource& s : scene.meshes[m].clips) {
      if (s.retarget_from.empty() || s.file_pos.known()) continue;
      const auto it = index.find(s.retarget_from);
      if (it != index.end() && it->second != m) needs[m].push_back(it->second);
    }
  }
  // Depth first in document order, each mesh after what it needs; an edge back onto the
  // path (a cycle, E0174) is skipped.
  enum class Mark : uint8_t { kNew, kOnPath, kDone };
  std::vector<Mark> mark(count, Mark::kNew);
  std::vector<size_t> order;
  order.reserve(count);
  for (size_t start = 0; start < count; ++start) {
    if (mark[start] != Mark::kNew) continue;
    std::vector<std::pair<size_t, size_t>> stack{{start, 0}};
    mark[start] = Mark::kOnPath;
    while (!stack.empty()) {
      const size_t m = stack.back().first;
      const size_t next = stack.back().second++;
      if (next == needs[m].size()) {
        mark[m] = Mark::kDone;
        order.push_back(m);
        stack.pop_back();
        continue;
      }
      const size_t to = needs[m][next];
      if (mark[to] == Mark::kNew) {
        mark[to] = Mark::kOnPath;
        stack.emplace_back(to, 0);
      }
    }
  }
  return order;
}

MeshClips make_mesh_clips(const Scene& scene, const SceneMesh& mesh, const ClipPool* own,
                          ClipSourceHost& host) {
  MeshClips out;
  const Rig* target = own ? own->rig : nullptr;
  std::map<std::string, TakenName, std::less<>> taken;
  const auto fail = [&out](std::string_view code, ClipSourceHost& h, SourcePos pos,
                           std::string message) {
    h.report(code, Severity::kError, pos, std::move(message));
    out.ok = false;
  };
  for (size_t i = 0; i < mesh.clips.size(); ++i) {
    const SceneClipSource& source = mesh.clips[i];
    const std::string which =
        "clip source " + std::to_string(i + 1) + " of mesh " + quote(mesh.name);
    const SourcePos where = source.file_pos.known() ? source.file_pos : source.pos;
    const bool other_file = source.file_pos.known();
    const bool retarget = source.retarget_from_pos.known();
    if ((other_file && source.file.empty()) || (retarget && source.retarget_from.empty())) {
      out.ok = false;  // the scene reader reported it
      continue;
    }

    // Where the animations come from, and the skeleton they were made for.
    const Rig* made_for = nullptr;  // retarget_from's rig
    const ClipPool* pool = nullptr;
    if (retarget) {
      const SceneMesh* other = find_mesh(scene, source.retarget_from);
      if (other == nullptr || other == &mesh || other->name == mesh.name) {
        out.ok = false;  // E0173, the reader's
        continue;
      }
      if (!host.mesh_loaded(other->name)) {  // it did not load: reported at its file
        out.ok = false;
        continue;
      }
      made_for = host.mesh_rig(other->name);
      if (made_for == nullptr) {
        fail("E0229", host, source.retarget_from_pos,
             which + " retargets clips made for mesh " + quote(other->name) +
                 ", which has no rig (no skin and no animated nodes) to make them for");
        continue;
      }
      // Without a file, the other mesh's clips (nullptr when they failed: reported there).
      pool = other_file ? host.file_pool(source.file, source.file_pos, mesh)
                        : host.mesh_clips(other->name);
    } else {
      pool = other_file ? host.file_pool(source.file, source.file_pos, mesh) : own;
      if (!other_file && own == nullptr) {
        fail("E0222", host, source.pos,
             which + " takes the animations of the mesh's own file, " + mesh.file +
                 ", which has none that move a rig");
        continue;
      }
    }
    if (pool == nullptr) {  // E0201, reported by the host
      out.ok = false;
      continue;
    }
    if (target == nullptr) {
      fail("E0229", host, source.pos,
           which + " brings clips, and mesh " + quote(mesh.name) + " (" + mesh.file +
               ") has no rig for them to move (no skin and no animated nodes)");
      continue;
    }

    // Selection.
    std::vector<std::string> names;
    for (const Clip& c : pool->rig->clips()) names.push_back(c.name());
    const ClipSelection sel = select_animations(names, source);
    bool ok = true;
    for (size_t p = 0; p < source.include.size(); ++p) {
      if (sel.include_matches[p] > 0) continue;
      fail("E0222", host, source.include_pos[p],
           which + ": `include` pattern " + quote(source.include[p]) + " matches no animation of " +
               pool->file + " (its animations: " + listed(names) + ")" +
               hint(source.include[p], names));
      ok = false;
    }
    if (!ok) continue;
    std::vector<std::string> selected;
    for (size_t k : sel.selected) selected.push_back(names[k]);
    if (selected.empty()) {
      fail("E0222", host, where,
           which + " selects no animation: " +
               (names.empty()
                    ? pool->file + " has none"
                    : "`exclude` leaves none of " + pool->file + "'s (" + listed(names) + ")"));
      continue;
    }
    if (source.name_pos.known() && selected.size() != 1) {
      fail("E0223", host, source.name_pos,
           which + "'s `name` (" + quote(source.name) + ") names one animation" +
               (source.cut ? " (a cut takes one)" : "") + ", and the source selects " +
               std::to_string(selected.size()) + ": " + listed(selected) +
               "; pick one with `include`");
      continue;
    }
    for (const SceneRename& r : source.rename) {
      if (std::find(selected.begin(), selected.end(), r.from) != selected.end()) continue;
      fail("E0224", host, r.pos,
           which + " renames " + quote(r.from) + ", which is not among the animations it takes (" +
               listed(selected) + ")" + hint(r.from, selected));
      ok = false;
    }
    if (!ok) continue;
    if (source.cut) {
      const float duration = pool->rig->clips()[sel.selected[0]].duration();
      if (!(source.from < duration)) {
        fail("E0225", host, source.from_pos,
             which + "'s cut starts at " + seconds(source.from) + ", at or after the end of " +
                 quote(selected[0]) + " (" + seconds(duration) + ")");
        continue;
      }
      if (source.to > duration) {
        fail("E0225", host, source.to_pos,
             which + "'s cut ends at " + seconds(source.to) + ", after the end of " +
                 quote(selected[0]) + " (" + seconds(duration) + ")");
        continue;
      }
    }

    // Names, cuts and binding.
    // A file's animations are first bound by joint name to the rig they were made for
    // (this mesh's, or retarget_from's), then retargeted from that one onto this mesh's.
    const Rig& made_rig = made_for ? *made_for : *target;
    const std::string& made_mesh = retarget ? source.retarget_from : mesh.name;
    JointPairing by_name;
    const bool rebind = other_file && pool->rig != &made_rig;
    if (rebind) by_name = pair_joints_by_name(pool->rig->skeleton(), made_rig.skeleton());
    JointPairing retarget_pairing;
    if (retarget) {
      const SceneMesh* other = find_mesh(scene, source.retarget_from);
      retarget_pairing = pair_joints(made_rig.skeleton(), target->skeleton(), humanoid_map(*other),
                                     humanoid_map(mesh));
    }
    RetargetOptions plain;
    plain.retarget = false;
    RetargetOptions full;
    full.up = mesh.up;
    std::set<std::string> dropped_by_name, dropped_by_retarget;
    std::vector<std::string> notes;
    bool any = false, any_retargeted = false, empty_source = true;
    std::vector<Clip> made;
    std::vector<int> animations;
    for (size_t s = 0; s < sel.selected.size() && ok; ++s) {
      const size_t k = sel.selected[s];
      const Clip& c = pool->rig->clips()[k];
      std::string name = c.name();
      if (!source.name.empty()) name = source.name;
      for (const SceneRename& r : source.rename) {
        if (r.from == c.name()) name = r.to;
      }
      Clip clip = source.cut ? cut_clip(c, name, source.from, source.to) : renamed(c, name);
      empty_source = empty_source && clip.channels().empty();
      if (rebind) {
        Bound b = bind_clip(clip, *pool->rig, made_rig, by_name, plain, &dropped_by_name);
        if (!b.error.empty()) {
          fail("E0228", host, where, which + ": " + b.error);
          ok = false;
          break;
        }
        any = any || b.any;
        clip = std::move(b.clip);
      } else {
        any = any || !clip.channels().empty();
      }
      if (retarget) {
        Bound b = bind_clip(clip, made_rig, *target, retarget_pairing, full, &dropped_by_retarget);
        if (!b.error.empty()) {
          fail("E0228", host, source.retarget_from_pos, which + ": " + b.error);
          ok = false;
          break;
        }
        any_retargeted = any_retargeted || b.any;
        for (std::string& n : b.notes) {
          if (std::find(notes.begin(), notes.end(), n) == notes.end())
            notes.push_back(std::move(n));
        }
        clip = std::move(b.clip);
      }
      made.push_back(std::move(clip));
      animations.push_back(k < pool->animations.size() ? pool->animations[k] : -1);
    }
    if (!ok) continue;
    if (!any && !empty_source) {
      fail("E0228", host, where,
           which + ": the animations of " + pool->file + " have no joint in common with mesh " +
               quote(made_mesh) + " (by name; they animate " +
               listed(std::vector<std::string>(dropped_by_name.begin(), dropped_by_name.end())) +
               ")");
      continue;
    }
    if (retarget && !any_retargeted && !empty_source) {
      fail("E0228", host, source.retarget_from_pos,
           which + ": no joint of mesh " + quote(made_mesh) +
               " that the clips animate pairs with a "
               "joint of mesh " +
               quote(mesh.name) +
               " (by canonical name or `humanoid` map; "
               "unpaired: " +
               listed(std::vector<std::string>(dropped_by_retarget.begin(),
                                               dropped_by_retarget.end())) +
               ")");
      continue;
    }
    if (!dropped_by_name.empty()) {
      host.report(
          "W0227", Severity::kWarning, where,
          which + ": " + pool->file + " animates joints mesh " + quote(made_mesh) +
              " does not have; their channels are dropped: " +
              listed(std::vector<std::string>(dropped_by_name.begin(), dropped_by_name.end())));
    }
    if (retarget) {
      if (!dropped_by_retarget.empty()) {
        host.report("W0227", Severity::kNote, source.retarget_from_pos,
                    which + ": retargeted from mesh " + quote(source.retarget_from) +
                        ", joints mesh " + quote(mesh.name) + " has no pair for are dropped: " +
                        listed(std::vector<std::string>(dropped_by_retarget.begin(),
                                                        dropped_by_retarget.end())));
      }
      for (const std::string& n : notes) {
        host.report("W0227", Severity::kNote, source.retarget_from_pos, which + ": " + n);
      }
    }

    // Names across sources: each once.
    for (size_t c = 0; c < made.size(); ++c) {
      const std::string& name = made[c].name();
      SourcePos pos = source.pos;
      bool given = false;
      if (source.name_pos.known() && !source.rename_pos.known()) {
        pos = source.name_pos;
        given = true;
      }
      for (const SceneRename& r : source.rename) {
        if (r.to == name) {
          pos = r.pos;
          given = true;
        }
      }
      const auto [it, inserted] = taken.emplace(name, TakenName{pos, given});
      if (inserted) {
        out.clips.push_back(std::move(made[c]));
        out.source_animations.push_back(animations[c]);
        continue;
      }
      out.ok = false;
      if (it->second.given && given) continue;  // E0178, the reader's
      host.report("E0226", Severity::kError, pos,
                  which + " gives mesh " + quote(mesh.name) + " a clip named " + quote(name) +
                      ", which an earlier source (line " + std::to_string(it->second.pos.line) +
                      ") already gave it; rename one (`name`, `rename`)");
    }
  }
  return out;
}

}  // namespace animpack
