#include "animpack/compiler/pack_writer.h"

#include <fcntl.h>
#include <lz4hc.h>
#include <meshoptimizer.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "animpack/compiler/input_file.h"
#include "animpack/pack.h"
#include "animpack/schema/pack_generated.h"
#include "clip_encode.h"

namespace animpack {
namespace fb = animpack::schema;
namespace {

using Builder = flatbuffers::FlatBufferBuilder;

// LZ4 HC of `size` bytes, or empty when LZ4 cannot take them or (unless `any_size`) does
// not make them smaller.
std::vector<uint8_t> lz4(const uint8_t* bytes, size_t size, bool any_size = false) {
  std::vector<uint8_t> packed;
  if (size == 0 || size >= static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return packed;
  packed.resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(size))));
  const int n = LZ4_compress_HC(reinterpret_cast<const char*>(bytes),
                                reinterpret_cast<char*>(packed.data()), static_cast<int>(size),
                                static_cast<int>(packed.size()), LZ4HC_CLEVEL_DEFAULT);
  packed.resize(n > 0 && (any_size || static_cast<size_t>(n) < size) ? static_cast<size_t>(n) : 0);
  return packed;
}

// meshoptimizer's encoders, at the bitstream versions Debian 12's 0.18 writes by default
// (set once, so that another default in a later library cannot change our bytes).
void pin_meshopt_versions() {
  static std::once_flag once;
  std::call_once(once, [] {
    meshopt_encodeVertexVersion(0);
    meshopt_encodeIndexVersion(1);
  });
}

// `bytes` through meshoptimizer's codec `c` (MeshoptVertex, MeshoptIndex or
// MeshoptSequence) with `element`-byte elements; empty when the codec does not apply or
// does not give back exactly these bytes (the triangle codec may rotate a triangle's
// indices: then it is not used).
std::vector<uint8_t> meshopt(fb::Compression c, const uint8_t* bytes, size_t size,
                             uint32_t element) {
  std::vector<uint8_t> out;
  if (size == 0 || element == 0 || size % element != 0) return out;
  const size_t count = size / element;
  pin_meshopt_versions();
  std::vector<uint8_t> back(size);
  if (c == fb::Compression::MeshoptVertex) {
    if (element % 4 != 0 || element > 256) return out;
    out.resize(meshopt_encodeVertexBufferBound(count, element));
    out.resize(meshopt_encodeVertexBuffer(out.data(), out.size(), bytes, count, element));
    if (out.empty() ||
        meshopt_decodeVertexBuffer(back.data(), count, element, out.data(), out.size()) != 0)
      out.clear();
  } else {
    if (element != 4 || (c == fb::Compression::MeshoptIndex && count % 3 != 0)) return out;
    std::vector<uint32_t> indices(count);
    std::memcpy(indices.data(), bytes, size);
    uint32_t vertices = 0;
    for (const uint32_t i : indices) vertices = std::max(vertices, i);
    const size_t n = size_t{vertices} + 1;
    if (c == fb::Compression::MeshoptIndex) {
      out.resize(meshopt_encodeIndexBufferBound(count, n));
      out.resize(meshopt_encodeIndexBuffer(out.data(), out.size(), indices.data(), count));
      if (out.empty() ||
          meshopt_decodeIndexBuffer(back.data(), count, 4, out.data(), out.size()) != 0)
        out.clear();
    } else {
      out.resize(meshopt_encodeIndexSequenceBound(count, n));
      out.resize(meshopt_encodeIndexSequence(out.data(), out.size(), indices.data(), count));
      if (out.empty() ||
          meshopt_decodeIndexSequence(back.data(), count, 4, out.data(), out.size()) != 0)
        out.clear();
    }
  }
  if (!out.empty() && std::memcmp(back.data(), bytes, size) != 0) out.clear();
  return out;
}

// A blob of raw bytes, stored in whichever of raw, LZ4 HC, meshoptimizer's codecs for its
// kind (vertex streams: the vertex codec; u32 lists: the vertex codec with 4-byte
// elements and the index sequence codec; triangle lists also the triangle codec) and those
// under LZ4 is smallest; a tie keeps the earlier, simpler one in that order. `element` is
// the stream's element size (0: not a stream of elements, raw or LZ4 only). Data aligned
// to 16 bytes.
flatbuffers::Offset<fb::Blob> make_blob_table(Builder& b, const void* data, size_t size,
                                              uint32_t element, bool triangles,
                                              const PackWriteOptions& options) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  const uint64_t raw_size = size;
  fb::Compression compression = fb::Compression::None;
  std::vector<uint8_t> best;
  const auto consider = [&](fb::Compression c, std::vector<uint8_t> v) {
    const bool forced = options.only_codec != 0 && static_cast<uint8_t>(c) == options.only_codec;
    if (v.empty() || (options.only_codec != 0 && !forced)) return;
    if (forced || v.size() < (compression == fb::Compression::None ? size : best.size())) {
      compression = c;
      best = std::move(v);
    }
  };
  if (options.compress && (size > 64 || options.only_codec != 0)) {
    consider(fb::Compression::Lz4, lz4(bytes, size));
    if (options.meshopt && element != 0) {
      const fb::Compression codecs[] = {fb::Compression::MeshoptVertex,
                                        fb::Compression::MeshoptIndex,
                                        fb::Compression::MeshoptSequence};
      for (const fb::Compression c : codecs) {
        if (c == fb::Compression::MeshoptIndex && !triangles) continue;
        std::vector<uint8_t> coded = meshopt(c, bytes, size, element);
        if (coded.empty()) continue;
        std::vector<uint8_t> both = lz4(coded.data(), coded.size(), options.only_codec != 0);
        consider(c, std::move(coded));
        consider(static_cast<fb::Compression>(static_cast<uint8_t>(c) + 1), std::move(both));
      }
    }
  }
  if (compression != fb::Compression::None) {
    bytes = best.data();
    size = best.size();
  }
  const bool coded = static_cast<uint8_t>(compression) >= 2;
  b.ForceVectorAlignment(size, 1, 16);
  const auto vec = b.CreateVector(bytes, size);
  fb::BlobBuilder blob(b);
  blob.add_compression(compression);
  blob.add_raw_size(raw_size);
  blob.add_data(vec);
  if (coded) blob.add_element_size(element);  // Version 6
  return blob.Finish();
}

// FNV-1a, 64 bits: the key of the sharing table (a hit is confirmed byte for byte).
uint64_t fnv1a(const uint8_t* data, size_t size, uint64_t h = 1469598103934665603ull) {
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

// Identical inputs stored once: every vector of key times or values, every inverse bind
// list, every string and every blob goes through here, and a second vector with the same
// bytes (and kind) points at the first one's offset (FlatBuffers lets several tables
// share a vector). Only leaf vectors and Blob tables are shared, never a table the loader
// copies elements out of. A vector or string hit is confirmed against the bytes already in
// the builder (FlatBuffers stores them as given, little-endian), so its input may be a
// temporary; a blob (possibly compressed there) against its input, which must outlive the
// writer (the CookedPack's streams, or a copy keep() holds).
// Deterministic: what is written, and where, depends only on the order of the calls.
class Shared {
 public:
  Shared(Builder& b, const PackWriteOptions& options) : b_(b), options_(options) {}

  template <typename T>
  flatbuffers::Offset<flatbuffers::Vector<T>> vector(std::span<const T> v) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(v.data());
    const size_t size = v.size() * sizeof(T);
    const Kind kind = sizeof(T) == 4 ? Kind::kWords : Kind::kOther;
    if (const uint32_t hit = find(kind, bytes, size, sizeof(T))) {
      return flatbuffers::Offset<flatbuffers::Vector<T>>(hit);
    }
    const auto out = b_.CreateVector(v.data(), v.size());
    add(kind, bytes, size, sizeof(T), out.o);
    return out;
  }

  template <typename T>
  flatbuffers::Offset<flatbuffers::Vector<const T*>> structs(std::span<const T> v) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(v.data());
    const size_t size = v.size() * sizeof(T);
    if (const uint32_t hit = find(Kind::kStructs, bytes, size, sizeof(T))) {
      return flatbuffers::Offset<flatbuffers::Vector<const T*>>(hit);
    }
    const auto out = b_.CreateVectorOfStructs(v.data(), v.size());
    add(Kind::kStructs, bytes, size, sizeof(T), out.o);
    return out;
  }

  flatbuffers::Offset<flatbuffers::String> string(std::string_view s) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(s.data());
    if (const uint32_t hit = find(Kind::kString, bytes, s.size(), 1)) {
      return flatbuffers::Offset<flatbuffers::String>(hit);
    }
    const auto out = b_.CreateString(s.data(), s.size());
    add(Kind::kString, bytes, s.size(), 1, out.o);
    return out;
  }

  // A blob of these bytes (make_blob_table), or the earlier Blob with the same bytes.
  // `element`, `triangles`: make_blob_table's (the first blob of some bytes decides).
  flatbuffers::Offset<fb::Blob> blob(const void* data, size_t size, uint32_t element = 0,
                                     bool triangles = false) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    if (const uint32_t hit = find(Kind::kBlob, bytes, size, 1)) {
      return flatbuffers::Offset<fb::Blob>(hit);
    }
    const auto out = make_blob_table(b_, data, size, element, triangles, options_);
    add(Kind::kBlob, bytes, size, 1, out.o);
    return out;
  }

  template <typename T>
  flatbuffers::Offset<fb::Blob> stream(const std::vector<T>& v, bool triangles = false) {
    return blob(v.data(), v.size() * sizeof(T), static_cast<uint32_t>(sizeof(T)), triangles);
  }

  // A copy of a stream the writer made (morph deltas, laid out target-major), kept until
  // the writer ends so that later blobs can be compared with it.
  const std::vector<Vec3>& keep(std::vector<Vec3> v) { return kept_.emplace_back(std::move(v)); }

 private:
  enum class Kind : uint8_t { kWords, kStructs, kOther, kString, kBlob };
  struct Entry {
    Kind kind;
    size_t element;       // bytes per element: vectors of one kind but other types stay apart
    const uint8_t* data;  // kBlob: the input bytes; otherwise null (read from the builder)
    size_t size;
    uint32_t offset;
  };

  // The bytes of the vector or string written at `offset`: after its 32-bit length.
  const uint8_t* written(uint32_t offset) const {
    return b_.GetCurrentBufferPointer() + b_.GetSize() - offset + sizeof(flatbuffers::uoffset_t);
  }

  static uint64_t key(Kind kind, const uint8_t* data, size_t size, size_t element) {
    const uint8_t head[2] = {static_cast<uint8_t>(kind), static_cast<uint8_t>(element)};
    return fnv1a(data, size, fnv1a(head, 2));
  }
  uint32_t find(Kind kind, const uint8_t* data, size_t size, size_t element) const {
    const auto it = entries_.find(key(kind, data, size, element));
    if (it == entries_.end()) return 0;
    for (const Entry& e : it->second) {
      const uint8_t* stored = e.kind == Kind::kBlob ? e.data : written(e.offset);
      if (e.kind == kind && e.element == element && e.size == size &&
          (size == 0 || std::memcmp(stored, data, size) == 0)) {
        return e.offset;
      }
    }
    return 0;
  }
  void add(Kind kind, const uint8_t* data, size_t size, size_t element, uint32_t offset) {
    entries_[key(kind, data, size, element)].push_back(
        {kind, element, kind == Kind::kBlob ? data : nullptr, size, offset});
  }

  Builder& b_;
  const PackWriteOptions& options_;
  std::unordered_map<uint64_t, std::vector<Entry>> entries_;
  std::deque<std::vector<Vec3>> kept_;  // stable addresses
};

fb::Mat4f to_fb(const Mat4& m) { return fb::Mat4f(flatbuffers::span<const float, 16>(m.m, 16)); }
fb::Vec3f to_fb(Vec3 v) { return fb::Vec3f(v.x, v.y, v.z); }
fb::Quatf to_fb(Quat q) { return fb::Quatf(q.x, q.y, q.z, q.w); }
fb::Trsf to_fb(const Trs& t) {
  return fb::Trsf(to_fb(t.translation), to_fb(t.rotation), to_fb(t.scale));
}

// Version 5: a rig's morph sets, or none (no field) for a rig without.
flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::MorphSet>>> write_morph_sets(
    Builder& b, Shared& shared, const CookedRig& in) {
  const std::span<const MorphSet> sets = in.rig.morph_sets();
  if (sets.empty()) return 0;
  std::vector<flatbuffers::Offset<fb::MorphSet>> list;
  for (size_t s = 0; s < sets.size(); ++s) {
    const MorphSet& set = sets[s];
    std::vector<flatbuffers::Offset<flatbuffers::String>> names;
    for (const std::string& n : set.target_names) names.push_back(shared.string(n));
    const auto name = shared.string(set.name);
    const auto target_names = b.CreateVector(names);
    const auto weights = shared.vector(std::span<const float>(set.default_weights));
    const int node = s < in.morph_source_nodes.size() ? in.morph_source_nodes[s] : -1;
    list.push_back(fb::CreateMorphSet(b, name, node, set.joint, target_names, weights));
  }
  return b.CreateVector(list);
}

flatbuffers::Offset<fb::Rig> write_rig(Builder& b, Shared& shared, const CookedRig& in) {
  const Skeleton& s = in.rig.skeleton();
  std::vector<flatbuffers::Offset<fb::Joint>> joints;
  for (int j = 0; j < s.joint_count(); ++j) {
    const Joint& joint = s.joints()[static_cast<size_t>(j)];
    const auto name = shared.string(joint.name);
    const fb::Trsf rest = to_fb(joint.rest);
    const int node = static_cast<size_t>(j) < in.joint_source_nodes.size()
                         ? in.joint_source_nodes[static_cast<size_t>(j)]
                         : -1;
    joints.push_back(fb::CreateJoint(b, name, joint.parent, &rest, node));
  }
  std::vector<fb::Mat4f> ibms;
  for (const Mat4& m : s.inverse_binds()) ibms.push_back(to_fb(m));
  std::vector<flatbuffers::Offset<fb::Clip>> clips;
  for (size_t c = 0; c < in.rig.clips().size(); ++c) {
    const Clip& clip = in.rig.clips()[c];
    // Version 6 keys (docs/pack-format.md, "Clip keys"): one time track per distinct times
    // array (channels sharing one glTF input accessor name one track), values exact through
    // the smaller of Raw and Planes, or quantised for a lossy clip.
    const clip_encode::EncodedClip keys = clip_encode::encode_clip(clip);
    std::vector<flatbuffers::Offset<fb::TimeTrack>> tracks;
    for (const clip_encode::Track& t : keys.tracks) {
      const auto times = t.progression ? flatbuffers::Offset<flatbuffers::Vector<float>>()
                                       : shared.vector(std::span<const float>(t.times));
      tracks.push_back(fb::CreateTimeTrack(b, t.count, t.start, t.step, times));
    }
    std::vector<flatbuffers::Offset<fb::Channel>> channels;
    for (size_t k = 0; k < clip.channels().size(); ++k) {
      const Channel& ch = clip.channels()[k];
      const clip_encode::EncodedChannel& e = keys.channels[k];
      const uint16_t width = ch.property == Property::kWeights ? ch.width : 0;
      const auto opt = [&](const auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        return v.empty() ? flatbuffers::Offset<flatbuffers::Vector<T>>()
                         : shared.vector(std::span<const T>(v));
      };
      const auto key_indices = opt(e.keys);
      const auto data = shared.vector(std::span<const uint8_t>(e.data));
      const auto lane_min = opt(e.lane_min);
      const auto lane_bits = opt(e.lane_bits);
      channels.push_back(fb::CreateChannel(
          b, ch.joint, static_cast<fb::Property>(ch.property),
          static_cast<fb::Interpolation>(ch.interpolation), 0, 0, width, e.track, e.key_bits,
          e.key_count, key_indices, static_cast<fb::KeyCodec>(e.codec), data, lane_min, lane_bits));
    }
    std::vector<flatbuffers::Offset<fb::ClipEvent>> events;
    for (const ClipEvent& e : clip.events()) {
      events.push_back(fb::CreateClipEvent(b, shared.string(e.name), e.time));
    }
    const auto name = shared.string(clip.name());
    const auto ch = b.CreateVector(channels);
    const auto ev = b.CreateVector(events);
    const int source = c < in.clip_source_animations.size() ? in.clip_source_animations[c] : -1;
    const auto tr = b.CreateVector(tracks);
    const ClipStorage& st = clip.storage();
    const bool lossy = st.compression == ClipCompression::kLossy;
    const auto& pr = keys.precision;
    clips.push_back(fb::CreateClip(b, name, clip.duration(), ch, ev, source,
                                   static_cast<fb::AdditiveReference>(clip.additive()), tr,
                                   lossy ? 1 : 0, lossy ? st.tolerance : 0.0f,
                                   lossy ? st.distance : 0.0f, lossy ? st.max_error : 0.0f,
                                   static_cast<int8_t>(lossy ? pr.translation_exponent : 0),
                                   static_cast<uint8_t>(lossy ? pr.rotation_bits : 0),
                                   static_cast<int8_t>(lossy ? pr.scale_exponent : 0),
                                   static_cast<int8_t>(lossy ? pr.weights_exponent : 0)));
  }
  const auto morph_sets = write_morph_sets(b, shared, in);
  const auto j = b.CreateVector(joints);
  const auto i = shared.structs(std::span<const fb::Mat4f>(ibms));
  const auto c = b.CreateVector(clips);
  const fb::Mat4f root = to_fb(s.root());
  return fb::CreateRig(b, j, i, &root, c, in.node_rig, morph_sets);
}

// Version 5: one kind of a part's morph deltas, target-major (target t's delta of vertex v
// at t * vertices + v); a target without this kind reads 0. Empty when no target has it.
std::vector<Vec3> morph_stream(const CookedPart& p, std::vector<Vec3> CookedMorphTarget::*kind) {
  const size_t n = p.positions.size();
  bool any = false;
  for (const CookedMorphTarget& t : p.morph_targets) any = any || !(t.*kind).empty();
  std::vector<Vec3> out;
  if (!any) return out;
  out.assign(p.morph_targets.size() * n, Vec3{0, 0, 0});
  for (size_t t = 0; t < p.morph_targets.size(); ++t) {
    const std::vector<Vec3>& d = p.morph_targets[t].*kind;
    std::copy(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(std::min(d.size(), n)),
              out.begin() + static_cast<std::ptrdiff_t>(t * n));
  }
  return out;
}

fb::Boxf to_fb(const Box& box) { return fb::Boxf(to_fb(box.lo), to_fb(box.hi)); }

flatbuffers::Offset<fb::Mesh> write_mesh(Builder& b, Shared& shared, const CookedMesh& in) {
  std::vector<flatbuffers::Offset<fb::Part>> parts;
  for (const CookedPart& p : in.parts) {
    using BlobOffset = flatbuffers::Offset<fb::Blob>;
    const auto opt = [&](const auto& v) { return v.empty() ? BlobOffset() : shared.stream(v); };
    const auto positions = shared.stream(p.positions);
    const auto normals = opt(p.normals);
    const auto tangents = opt(p.tangents);
    const auto joints = opt(p.joints);
    const auto weights = opt(p.weights);
    const auto indices = shared.stream(p.indices, true);
    const auto sources = shared.stream(p.source_vertices);
    const auto uv0 = opt(p.texcoords0);
    const auto uv1 = opt(p.texcoords1);
    const auto colors = opt(p.colors);
    // Version 5: influences 5 to 8 and morph deltas.
    const auto joints1 = opt(p.joints1);
    const auto weights1 = opt(p.weights1);
    const bool morphed = p.morph_set >= 0;
    const auto deltas =
        [&](std::vector<Vec3> CookedMorphTarget::*kind) -> const std::vector<Vec3>& {
      static const std::vector<Vec3> kNone;
      return morphed ? shared.keep(morph_stream(p, kind)) : kNone;
    };
    const std::vector<Vec3>& dp = deltas(&CookedMorphTarget::positions);
    const std::vector<Vec3>& dn = deltas(&CookedMorphTarget::normals);
    const std::vector<Vec3>& dt = deltas(&CookedMorphTarget::tangents);
    const auto mp = opt(dp);
    const auto mn = opt(dn);
    const auto mt = opt(dt);
    fb::PartBuilder part(b);
    part.add_source_node(p.source_node);
    part.add_source_mesh(p.source_mesh);
    part.add_source_primitive(p.source_primitive);
    part.add_joint(p.joint);
    part.add_vertex_count(static_cast<uint32_t>(p.positions.size()));
    part.add_index_count(static_cast<uint32_t>(p.indices.size()));
    part.add_positions(positions);
    if (!p.normals.empty()) part.add_normals(normals);
    if (!p.tangents.empty()) part.add_tangents(tangents);
    if (!p.joints.empty()) part.add_joints(joints);
    if (!p.weights.empty()) part.add_weights(weights);
    part.add_indices(indices);
    part.add_source_vertices(sources);
    if (!p.texcoords0.empty()) part.add_texcoords0(uv0);
    if (!p.texcoords1.empty()) part.add_texcoords1(uv1);
    if (!p.colors.empty()) part.add_colors(colors);
    part.add_material(p.material);
    part.add_normals_generated(p.normals_generated);
    part.add_tangents_generated(p.tangents_generated);
    if (!p.joints1.empty()) part.add_joints1(joints1);
    if (!p.weights1.empty()) part.add_weights1(weights1);
    if (morphed) {
      part.add_morph_set(p.morph_set);
      part.add_morph_targets(static_cast<uint32_t>(p.morph_targets.size()));
      if (!dp.empty()) part.add_morph_positions(mp);
      if (!dn.empty()) part.add_morph_normals(mn);
      if (!dt.empty()) part.add_morph_tangents(mt);
    }
    parts.push_back(part.Finish());
  }
  const auto name = shared.string(in.name);
  const auto file = shared.string(in.source_file);
  const auto p = b.CreateVector(parts);
  std::vector<fb::JointBoundsf> joint_bounds;
  for (const JointBounds& j : in.joint_bounds)
    joint_bounds.emplace_back(to_fb(j.frame), to_fb(j.lo), to_fb(j.hi), j.joint, 0);
  const auto jb = joint_bounds.empty() ? 0 : b.CreateVectorOfStructs(joint_bounds);
  const fb::Boxf bind = to_fb(in.bind_bounds);
  const fb::Boxf fixed = to_fb(in.static_bounds);
  // Version 4: the axes, always written (a reader of an older pack takes glTF's).
  const fb::Vec3f up = to_fb(in.up);
  const fb::Vec3f forward = to_fb(in.forward);
  return fb::CreateMesh(b, name, file, p, in.rig, in.bind_bounds.valid() ? &bind : nullptr,
                        in.static_bounds.valid() ? &fixed : nullptr, jb, &up, &forward);
}

flatbuffers::Offset<fb::TextureRef> write_slot(Builder& b, const TextureSlot& slot) {
  if (slot.texture < 0) return 0;
  const fb::UvTransformf transform(slot.transform.offset[0], slot.transform.offset[1],
                                   slot.transform.rotation, slot.transform.scale[0],
                                   slot.transform.scale[1]);
  return fb::CreateTextureRef(
      b, slot.texture, static_cast<uint8_t>(slot.uv_set), static_cast<fb::Wrap>(slot.wrap_s),
      static_cast<fb::Wrap>(slot.wrap_t), static_cast<fb::Filter>(slot.mag_filter),
      static_cast<fb::Filter>(slot.min_filter), slot.has_transform ? &transform : nullptr,
      slot.source_texture);
}

flatbuffers::Offset<fb::Material> write_material(Builder& b, Shared& shared,
                                                 const CookedMaterial& in) {
  const MaterialInfo& m = in.info;
  const auto name = shared.string(in.name);
  const auto file = shared.string(in.source_file);
  const auto base = write_slot(b, m.base_color_texture);
  const auto mr = write_slot(b, m.metallic_roughness_texture);
  const auto normal = write_slot(b, m.normal_texture);
  const auto occlusion = write_slot(b, m.occlusion_texture);
  const auto emissive = write_slot(b, m.emissive_texture);
  const fb::Vec4f base_color(m.base_color.x, m.base_color.y, m.base_color.z, m.base_color.w);
  const fb::Vec3f emissive_factor = to_fb(m.emissive);
  fb::MaterialBuilder out(b);
  out.add_name(name);
  out.add_source_file(file);
  out.add_source_material(m.source_material);
  out.add_base_color_factor(&base_color);
  out.add_base_color_texture(base);
  out.add_metallic_factor(m.metallic);
  out.add_roughness_factor(m.roughness);
  out.add_metallic_roughness_texture(mr);
  out.add_normal_texture(normal);
  out.add_normal_scale(m.normal_scale);
  out.add_occlusion_texture(occlusion);
  out.add_occlusion_strength(m.occlusion_strength);
  out.add_emissive_factor(&emissive_factor);
  out.add_emissive_texture(emissive);
  out.add_emissive_strength(m.emissive_strength);
  out.add_alpha_mode(static_cast<fb::AlphaMode>(m.alpha_mode));
  out.add_alpha_cutoff(m.alpha_cutoff);
  out.add_double_sided(m.double_sided);
  return out.Finish();
}

flatbuffers::Offset<fb::Texture> write_texture(Builder& b, Shared& shared,
                                               const CookedTexture& in) {
  const auto pixels = shared.stream(in.rgba);
  const auto file = shared.string(in.source_file);
  const auto mime = shared.string(in.mime_type);
  return fb::CreateTexture(b, file, in.source_image, mime, in.width, in.height,
                           static_cast<fb::ColorSpace>(in.color_space), pixels);
}

// `*pixels` is the blob of an earlier sheet with the same atlas (CookedSheet::pixels_of),
// or null to write this sheet's own (then it is set to the blob written).
flatbuffers::Offset<fb::SpriteSheet> write_sheet(Builder& b, Shared& shared, const CookedSheet& in,
                                                 flatbuffers::Offset<fb::Blob>* pixels) {
  const Atlas& atlas = in.sheet.atlas();
  std::vector<fb::PixelRect> frames;
  for (const PixelRect& r : atlas.frames()) frames.emplace_back(r.x, r.y, r.width, r.height);
  std::vector<flatbuffers::Offset<fb::SpriteClip>> clips;
  for (const SpriteClip& c : in.sheet.clips()) {
    std::vector<flatbuffers::Offset<fb::FrameEvent>> events;
    for (const FrameEvent& e : c.events()) {
      events.push_back(fb::CreateFrameEvent(b, shared.string(e.name), e.frame));
    }
    const auto name = shared.string(c.name());
    const auto f = b.CreateVector(c.frames().data(), c.frames().size());
    const auto ev = b.CreateVector(events);
    // Version 7: a timed clip's durations and reverse flag (absent for a clip at fps).
    flatbuffers::Offset<flatbuffers::Vector<uint32_t>> durations;
    if (!c.durations_ms().empty())
      durations = b.CreateVector(c.durations_ms().data(), c.durations_ms().size());
    clips.push_back(fb::CreateSpriteClip(
        b, name, f, c.fps(), static_cast<fb::Playback>(c.playback()), ev, durations, c.reverse()));
  }
  // Version 7: placements when some frame has one, names when some frame has one.
  flatbuffers::Offset<flatbuffers::Vector<const fb::FramePlacementf*>> placements;
  if (atlas.has_placements()) {
    std::vector<fb::FramePlacementf> p;
    for (uint32_t i = 0; i < atlas.frame_count(); ++i) {
      const FramePlacement fp = *atlas.placement(i);
      const PixelRect& t = fp.trimmed;
      p.emplace_back(fp.source.width, fp.source.height, fb::PixelRect(t.x, t.y, t.width, t.height),
                     fp.pivot_x, fp.pivot_y, fp.rotated, uint8_t{0}, uint16_t{0});
    }
    placements = b.CreateVectorOfStructs(p);
  }
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> names;
  bool named = false;
  for (uint32_t i = 0; i < atlas.frame_count(); ++i) named = named || !atlas.name(i).empty();
  if (named) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> n;
    for (uint32_t i = 0; i < atlas.frame_count(); ++i) n.push_back(shared.string(atlas.name(i)));
    names = b.CreateVector(n);
  }
  if (pixels->IsNull()) *pixels = shared.stream(in.rgba);
  const auto file = shared.string(in.source_file);
  const auto f = b.CreateVectorOfStructs(frames);
  const auto c = b.CreateVector(clips);
  return fb::CreateSpriteSheet(b, file, atlas.size().width, atlas.size().height, f, c, *pixels,
                               placements, names);
}

// Version 3: a state machine and its layers, every field as GraphDef holds it. Every
// scalar is stored, defaults included, so that -0.0 (equal to a default of 0) keeps its
// bits.
flatbuffers::Offset<fb::Graph> write_graph(Builder& b, Shared& shared, const GraphDef& in) {
  b.ForceDefaults(true);
  std::vector<flatbuffers::Offset<fb::GraphParameter>> parameters;
  for (const ParameterDef& p : in.parameters) {
    const auto name = shared.string(p.name);
    parameters.push_back(fb::CreateGraphParameter(b, name, static_cast<fb::ParameterKind>(p.kind),
                                                  p.default_value, p.min, p.max));
  }
  std::vector<flatbuffers::Offset<fb::GraphState>> states;
  for (const StateDef& s : in.states) {
    const auto name = shared.string(s.name);
    std::vector<fb::BlendPointf> points;
    for (const BlendPoint& p : s.points) points.emplace_back(p.clip, 0, p.x, p.y);
    const auto pts = points.empty() ? 0 : b.CreateVectorOfStructs(points);
    states.push_back(fb::CreateGraphState(b, name, s.clip, pts, s.x_parameter, s.y_parameter,
                                          s.speed, s.speed_parameter,
                                          static_cast<fb::Playback>(s.playback), s.start));
  }
  std::vector<flatbuffers::Offset<fb::GraphTransition>> transitions;
  for (const TransitionDef& t : in.transitions) {
    std::vector<fb::Conditionf> conditions;
    for (const ConditionDef& c : t.conditions)
      conditions.emplace_back(static_cast<fb::ConditionKind>(c.kind), 0, 0, c.parameter, c.value);
    const auto cs = conditions.empty() ? 0 : b.CreateVectorOfStructs(conditions);
    transitions.push_back(fb::CreateGraphTransition(b, t.from, t.to, cs, t.fade));
  }
  std::vector<flatbuffers::Offset<fb::GraphLayer>> layers;
  for (const LayerDef& l : in.layers) {
    const auto mask = l.mask.empty() ? 0 : b.CreateVector(l.mask);
    layers.push_back(fb::CreateGraphLayer(b, l.clip, static_cast<fb::LayerMode>(l.mode), l.weight,
                                          l.weight_parameter, mask, l.speed,
                                          static_cast<fb::Playback>(l.playback)));
  }
  const auto p = parameters.empty() ? 0 : b.CreateVector(parameters);
  const auto s = states.empty() ? 0 : b.CreateVector(states);
  const auto t = transitions.empty() ? 0 : b.CreateVector(transitions);
  const auto l = layers.empty() ? 0 : b.CreateVector(layers);
  b.ForceDefaults(false);
  return fb::CreateGraph(b, p, s, t, l);
}

// Version 4: root motion, every scalar stored (as graphs are); the tracks as the cooker
// gives them (one per rig clip for accumulate, none for in_place), an empty one without
// samples.
flatbuffers::Offset<fb::RootMotion> write_root_motion(
    Builder& b, const RootMotionConfig& config,
    const std::vector<std::vector<RootMotionSample>>& tracks) {
  static_assert(sizeof(fb::RootMotionSamplei) == sizeof(RootMotionSample));
  std::vector<flatbuffers::Offset<fb::RootMotionTrack>> list;
  for (const std::vector<RootMotionSample>& t : tracks) {
    std::vector<fb::RootMotionSamplei> samples;
    samples.reserve(t.size());
    for (const RootMotionSample& s : t) samples.emplace_back(s.x, s.y, s.z, s.yaw);
    const auto v = samples.empty() ? 0 : b.CreateVectorOfStructs(samples);
    list.push_back(fb::CreateRootMotionTrack(b, v));
  }
  const auto l = list.empty() ? 0 : b.CreateVector(list);
  b.ForceDefaults(true);
  const auto out = fb::CreateRootMotion(b, static_cast<fb::RootMotionPolicy>(config.policy),
                                        config.joint, config.extract, config.rate, l);
  b.ForceDefaults(false);
  return out;
}

// Version 4: IK solvers, field for field IkSolverDef; target and pole absent when the
// definition has none, every scalar stored (a -0.0 keeps its sign bit).
flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::IkSolver>>> write_ik(
    Builder& b, Shared& shared, const std::vector<IkSolverDef>& solvers) {
  std::vector<flatbuffers::Offset<fb::IkSolver>> list;
  for (const IkSolverDef& s : solvers) {
    const auto name = shared.string(s.name);
    const auto joints = b.CreateVector(s.joints);
    const fb::Vec3f target = to_fb(s.target);
    const fb::Vec3f pole = to_fb(s.pole);
    const fb::Vec3f forward = to_fb(s.forward);
    const fb::Vec3f up = to_fb(s.up);
    b.ForceDefaults(true);
    list.push_back(fb::CreateIkSolver(b, name, static_cast<fb::IkKind>(s.kind), joints, s.weight,
                                      s.has_target ? &target : nullptr,
                                      s.has_pole ? &pole : nullptr, s.soften, s.twist, &forward,
                                      &up, s.max_angle, s.iterations, s.hips));
    b.ForceDefaults(false);
  }
  return b.CreateVector(list);
}

flatbuffers::Offset<fb::Object> write_object(Builder& b, Shared& shared, const CookedObject& in) {
  flatbuffers::Offset<fb::Animation> animation = 0;
  if (in.animated) {
    const CookedAnimation& a = in.animation;
    std::vector<flatbuffers::Offset<fb::BlendEntry>> blend;
    for (const BlendEntry& e : a.blend) blend.push_back(fb::CreateBlendEntry(b, e.clip, e.weight));
    std::vector<flatbuffers::Offset<fb::ObjectEvent>> events;
    for (const CookedEvent& e : a.events) {
      events.push_back(fb::CreateObjectEvent(b, shared.string(e.name), e.clip, e.time, e.frame));
    }
    const auto bl = blend.empty() ? 0 : b.CreateVector(blend);
    const auto ev = b.CreateVector(events);
    const auto graph = a.graph ? write_graph(b, shared, *a.graph) : 0;
    // Policy off is written as no root motion (what the reader takes an absent one for).
    const auto root_motion = a.root_motion && a.root_motion->policy != RootMotionPolicy::kOff
                                 ? write_root_motion(b, *a.root_motion, a.root_tracks)
                                 : 0;
    const auto ik = a.ik.empty() ? 0 : write_ik(b, shared, a.ik);
    animation = fb::CreateAnimation(b, a.clip, bl, a.speed, static_cast<fb::Playback>(a.playback),
                                    a.start, ev, a.sprite_sheet, graph, root_motion, ik);
  }
  const auto name = shared.string(in.name);
  const auto material = shared.string(in.material);
  const auto content = shared.string(in.content);
  const fb::Vec3f position = to_fb(in.position);
  const fb::Quatf rotation = to_fb(in.rotation);
  const fb::Vec3f scale = to_fb(in.scale);
  return fb::CreateObject(b, name, in.mesh, material, in.face_camera, content, &position, &rotation,
                          &scale, animation);
}

}  // namespace

std::vector<uint8_t> write_pack(const CookedPack& pack, const PackWriteOptions& options) {
  Builder b(1 << 16);
  b.ForceDefaults(false);
  Shared shared(b, options);
  std::vector<flatbuffers::Offset<fb::Mesh>> meshes;
  for (const CookedMesh& m : pack.meshes) meshes.push_back(write_mesh(b, shared, m));
  std::vector<flatbuffers::Offset<fb::Rig>> rigs;
  for (const CookedRig& r : pack.rigs) rigs.push_back(write_rig(b, shared, r));
  std::vector<flatbuffers::Offset<fb::SpriteSheet>> sheets;
  std::vector<flatbuffers::Offset<fb::Blob>> pixels;  // per sheet: its pixels' blob
  for (const CookedSheet& s : pack.sheets) {
    // A sheet sharing an earlier sheet's atlas points at the same blob: one copy of the
    // pixels however many objects show the atlas.
    const bool reuse = s.pixels_of >= 0 && static_cast<size_t>(s.pixels_of) < pixels.size();
    flatbuffers::Offset<fb::Blob> blob =
        reuse ? pixels[static_cast<size_t>(s.pixels_of)] : flatbuffers::Offset<fb::Blob>();
    sheets.push_back(write_sheet(b, shared, s, &blob));
    pixels.push_back(blob);
  }
  std::vector<flatbuffers::Offset<fb::Object>> objects;
  for (const CookedObject& o : pack.objects) objects.push_back(write_object(b, shared, o));
  const auto m = b.CreateVector(meshes);
  const auto r = b.CreateVector(rigs);
  const auto s = b.CreateVector(sheets);
  const auto o = b.CreateVector(objects);
  std::vector<flatbuffers::Offset<fb::Material>> materials;
  for (const CookedMaterial& mat : pack.materials)
    materials.push_back(write_material(b, shared, mat));
  std::vector<flatbuffers::Offset<fb::Texture>> textures;
  for (const CookedTexture& t : pack.textures) textures.push_back(write_texture(b, shared, t));
  const auto ma = materials.empty() ? 0 : b.CreateVector(materials);
  const auto te = textures.empty() ? 0 : b.CreateVector(textures);
  const auto root = fb::CreateAssetPack(b, kPackFormatVersion, m, r, s, o, ma, te);
  fb::FinishAssetPackBuffer(b, root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

namespace {

// The temporary files not yet renamed or removed, for the signal handler: fixed buffers
// (no allocation, no locks), a slot in use when its flag is set. Slots change only with
// the cleanup signals blocked, so the handler never sees half a path, and a slot is taken
// under g_temp_slots_lock, so two threads writing files at once never take the same one
// (the handler never locks it). A batch cook writes its outputs one scene at a time
// (batch_cook.cpp), so it needs two slots whatever its number of threads.
constexpr int kTempSlots = 16;
constexpr size_t kTempPathMax = 4096;
char g_temp_path[kTempSlots][kTempPathMax];
volatile std::sig_atomic_t g_temp_used[kTempSlots];
std::mutex g_temp_slots_lock;
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// Blocks the cleanup signals for its lifetime.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kCleanupSignals) sigaddset(&set, sig);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

extern "C" void remove_temp_files_and_reraise(int sig) {
  remove_pending_temp_files();
  std::signal(sig, SIG_DFL);  // async-signal-safe (POSIX): then die of the same signal
  std::raise(sig);
}

std::string failure(const std::filesystem::path& path, const char* what, int err) {
  return std::string(what) + " " + path.string() + ": " + error_text(err);
}

}  // namespace

void remove_pending_temp_files() {
  for (int i = 0; i < kTempSlots; ++i) {
    if (g_temp_used[i]) ::unlink(g_temp_path[i]);  // async-signal-safe
  }
}

void install_temp_file_cleanup() {
  for (int sig : kCleanupSignals) {
    struct sigaction action {};
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup
    action.sa_handler = remove_temp_files_and_reraise;
    sigemptyset(&action.sa_mask);
    for (int other : kCleanupSignals) sigaddset(&action.sa_mask, other);
    action.sa_flags = SA_RESETHAND;
    ::sigaction(sig, &action, nullptr);
  }
}

PendingFile::~PendingFile() { discard(); }

std::string PendingFile::write(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  discard();
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  std::string tmp = (dir / ("." + path.filename().string() + ".tmpXXXXXX")).string();
  if (tmp.size() >= kTempPathMax) {
    return "cannot write " + path.string() + ": the path is longer than " +
           std::to_string(kTempPathMax - 1) + " bytes";
  }
  int fd = -1;
  {
    SignalsBlocked blocked;
    const std::lock_guard<std::mutex> lock(g_temp_slots_lock);
    for (int i = 0; i < kTempSlots; ++i) {
      if (!g_temp_used[i]) {
        slot_ = i;
        break;
      }
    }
    if (slot_ < 0) return "cannot write " + path.string() + ": too many files pending at once";
    fd = mkstemp(tmp.data());
    if (fd < 0) {
      const int err = errno;
      slot_ = -1;
      return "cannot create a temporary file in " + dir.string() + ": " + error_text(err);
    }
    std::memcpy(g_temp_path[slot_], tmp.c_str(), tmp.size() + 1);
    g_temp_used[slot_] = 1;
  }
  path_ = path;
  tmp_ = tmp;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      discard();
      return failure(path, "cannot write", err);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    discard();
    return failure(path, "cannot write", err);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    discard();
    return failure(path, "cannot write", err);
  }
  ::chmod(tmp_.c_str(), 0644);
  return {};
}

std::string PendingFile::commit() {
  if (slot_ < 0) return "cannot write " + path_.string() + ": nothing was written";
  SignalsBlocked blocked;
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    g_temp_used[slot_] = 0;
    slot_ = -1;
    return failure(path_, "cannot write", err);
  }
  g_temp_used[slot_] = 0;
  slot_ = -1;
  return {};
}

void PendingFile::discard() {
  if (slot_ < 0) return;
  SignalsBlocked blocked;
  ::unlink(tmp_.c_str());
  g_temp_used[slot_] = 0;
  slot_ = -1;
}

std::string write_file_atomically(const std::filesystem::path& path,
                                  std::span<const uint8_t> bytes) {
  PendingFile file;
  if (std::string err = file.write(path, bytes); !err.empty()) return err;
  return file.commit();
}

}  // namespace animpack
