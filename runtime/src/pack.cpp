// Pack loading: mmap, FlatBuffers verification, semantic checks (docs/pack-format.md).
#include "animpack/pack.h"

#include <fcntl.h>
#include <lz4.h>
#include <meshoptimizer.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

// The verifier records the furthest byte it checked: the pack's end (trailing bytes refused).
// Only this file verifies packs, and the macro changes no layout, only inline bodies.
#define FLATBUFFERS_TRACK_VERIFIER_BUFFER_SIZE 1
#include "animpack/schema/pack_generated.h"
#include "clip_codec.h"

#if !FLATBUFFERS_LITTLEENDIAN
#error "animpack reads pack data in place and needs a little-endian target"
#endif

namespace animpack {

namespace fb = animpack::schema;

static_assert(sizeof(fb::Trsf) == sizeof(Trs) && sizeof(fb::Mat4f) == sizeof(Mat4));
static_assert(sizeof(JointIndices) == 8);

// One slot per distinct blob data (several parts, sheets or textures may point at one: the
// writer stores identical streams once), found by the data's address: an LZ4 blob is
// decoded once however many tables name it, and what the content checks found is kept,
// so a second part naming a checked blob costs O(1) per stream.
struct Pack::Decoded {
  struct Slot {
    std::unique_ptr<uint64_t[]> words;  // LZ4: the decoded bytes; 8-byte aligned, not zeroed
    uint64_t raw_size = 0;              // every Blob naming this data declares this size
    // Content checks, each run once (the bit set when it has run):
    uint8_t ran = 0;                // kRanU32, kRanU16, kRanFinite
    bool finite = false;            // every float finite
    uint32_t max_u32 = 0;           // the largest uint32 (indices, source vertices)
    uint16_t max_u16 = 0;           // the largest uint16 (joints)
    int64_t sum_checked_with = -1;  // weights1: the weights slot its eight-sum passed with
  };
  static constexpr uint8_t kRanU32 = 1, kRanU16 = 2, kRanFinite = 4;
  std::vector<Slot> slots;
  std::unordered_map<const uint8_t*, uint32_t> slot_of;  // blob data -> slots index
  std::vector<uint8_t> part_checked;                     // part streams passed their range checks
  // Version 6: every clip's decoded key times and values (the clips' channels view them).
  std::vector<std::unique_ptr<float[]>> clip_keys;
  uint64_t clip_key_floats = 0;  // against kMaxClipKeyFloats
  // Values decoded once per stored vector (and the lanes and grid that read it): channels
  // the writer stored once share one decoded copy.
  std::map<std::tuple<const void*, const void*, const void*, uint64_t, uint64_t, int, int>,
           const float*>
      clip_values;
};

namespace {

constexpr uint64_t kLz4MaxRatio = 255;  // an LZ4 block never decodes to more than 255x
// Version 5: a vertex's eight weights (weights and weights1) sum to one within this.
constexpr double kEightWeightSumTolerance = 1e-3;

Error bad(const char* format, ...) __attribute__((format(printf, 1, 2)));
Error bad(const char* format, ...) {
  char text[Error::kMaxMessage];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return Error::make(ErrorCode::kBadPack, "bad pack: %s", text);
}

std::string_view view(const flatbuffers::String* s) {
  return s ? std::string_view(s->c_str(), s->size()) : std::string_view();
}

bool finite(float f) { return std::isfinite(f); }

bool finite(const fb::Vec3f& v) { return finite(v.x()) && finite(v.y()) && finite(v.z()); }
bool finite(const fb::Quatf& q) {
  return finite(q.x()) && finite(q.y()) && finite(q.z()) && finite(q.w());
}

Mat4 to_mat4(const fb::Mat4f& m) {
  Mat4 r;
  for (int i = 0; i < 16; ++i) r.m[i] = m.m()->Get(static_cast<flatbuffers::uoffset_t>(i));
  return r;
}

Trs to_trs(const fb::Trsf& t) {
  Trs r;
  r.translation = {t.translation().x(), t.translation().y(), t.translation().z()};
  r.rotation = {t.rotation().x(), t.rotation().y(), t.rotation().z(), t.rotation().w()};
  r.scale = {t.scale().x(), t.scale().y(), t.scale().z()};
  return r;
}

bool valid_playback(fb::Playback p) { return static_cast<uint8_t>(p) <= 2; }

bool in_unit(float f) { return f >= 0.0f && f <= 1.0f; }  // false for NaN

bool finite(const fb::Mat4f& m) {
  for (flatbuffers::uoffset_t i = 0; i < 16; ++i) {
    if (!finite(m.m()->Get(i))) return false;
  }
  return true;
}

// A box both of whose corners are finite, lo <= hi on every axis.
bool valid_box(const fb::Vec3f& lo, const fb::Vec3f& hi) {
  return finite(lo) && finite(hi) && lo.x() <= hi.x() && lo.y() <= hi.y() && lo.z() <= hi.z();
}

Vec3 to_vec3(const fb::Vec3f& v) { return {v.x(), v.y(), v.z()}; }

// Version 6: meshoptimizer's codecs. A Compression value from 2 on names codec (c - 2) / 2
// (vertex, triangle index, index sequence), under LZ4 when c is odd. The most bytes one byte
// of each codec's data decodes to: the vertex codec spends at least 2 header bits on a
// group of 16 bytes (64 : 1), the triangle codec one byte per 12-byte triangle, the
// sequence codec one byte per 4-byte index.
enum MeshoptCodec : uint8_t { kMeshoptVertex = 0, kMeshoptIndex = 1, kMeshoptSequence = 2 };
constexpr uint64_t kMeshoptMaxRatio[3] = {64, 12, 4};
constexpr uint8_t kLastCompression = 7;
MeshoptCodec meshopt_codec(uint8_t c) { return static_cast<MeshoptCodec>((c - 2) / 2); }
bool under_lz4(uint8_t c) { return c == 1 || (c >= 2 && c % 2 == 1); }

// A blob's sizes against the `expected` raw bytes of `element`-byte elements: raw, LZ4
// (within LZ4's ratio) or (format 6) a meshoptimizer codec for that element size (within
// the codec's ratio, times LZ4's under LZ4), at most kMaxBlobBytes.
bool valid_blob(const fb::Blob& blob, uint64_t expected, uint32_t element) {
  const auto c = static_cast<uint8_t>(blob.compression());
  if (c > kLastCompression || blob.raw_size() != expected || expected > kMaxBlobBytes ||
      !blob.data())
    return false;
  const uint64_t data = blob.data()->size();
  if (c < 2) {
    return blob.element_size() == 0 && (c != 0 || data == expected) &&
           (c != 1 || expected <= data * kLz4MaxRatio);
  }
  const MeshoptCodec codec = meshopt_codec(c);
  const bool fits = codec == kMeshoptVertex ? element % 4 == 0 && element <= 256 : element == 4;
  const uint64_t ratio = kMeshoptMaxRatio[codec] * (under_lz4(c) ? kLz4MaxRatio : 1);
  return fits && blob.element_size() == element && expected % element == 0 &&
         (codec != kMeshoptIndex || expected % 12 == 0) && expected <= data * ratio;
}

// What Pack::Decoded's slot registration found wrong with a blob, or kBlobOk.
enum BlobCheck {
  kBlobOk,
  kBlobBadSize,
  kBlobOverDecoded,
  kBlobSharedOtherSize,
  kBlobOverFile,
  kBlobNewerCodec
};

// A material's texture slot: its texture, uv set, enums and transform; `needs_uv1` is set
// when it samples texcoords1.
Result<void> read_slot(const fb::TextureRef* in, size_t textures, const char* what,
                       flatbuffers::uoffset_t m, TextureSlot* out) {
  if (!in) return ok();
  if (in->texture() < 0 || static_cast<size_t>(in->texture()) >= textures)
    return bad("material %u %s names texture %d of %zu", m, what, in->texture(), textures);
  const auto ws = static_cast<uint8_t>(in->wrap_s()), wt = static_cast<uint8_t>(in->wrap_t());
  const auto mag = static_cast<uint8_t>(in->mag_filter());
  const auto min = static_cast<uint8_t>(in->min_filter());
  if (in->uv_set() > 1 || ws > 2 || wt > 2 || mag > 1 || min > 5)
    return bad("material %u %s: bad uv set, wrap or filter", m, what);
  out->texture = in->texture();
  out->uv_set = in->uv_set();
  out->wrap_s = static_cast<Wrap>(ws);
  out->wrap_t = static_cast<Wrap>(wt);
  out->mag_filter = static_cast<Filter>(mag);
  out->min_filter = static_cast<Filter>(min);
  out->source_texture = in->source_texture();
  if (const fb::UvTransformf* t = in->transform()) {
    if (!(finite(t->offset_u()) && finite(t->offset_v()) && finite(t->rotation()) &&
          finite(t->scale_u()) && finite(t->scale_v()))) {
      return bad("material %u %s: a texture transform is not finite", m, what);
    }
    out->has_transform = true;
    out->transform = {{t->offset_u(), t->offset_v()}, t->rotation(), {t->scale_u(), t->scale_v()}};
  }
  return ok();
}

// Well-formed UTF-8 (no overlongs, surrogates or code points above U+10FFFF), no NUL.
bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned char* end = p + s.size();
  while (p < end) {
    const unsigned char c = *p;
    if (c == 0) return false;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int n = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1Fu;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0Fu;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07u;
    } else {
      return false;
    }
    if (end - p <= n) return false;
    for (int i = 1; i <= n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    static constexpr uint32_t kMin[4] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    p += n + 1;
  }
  return true;
}

// What load() copies out of the file, against what the file can hold: in a pack whose
// tables are not shared every copied element has its own >= 4 bytes and every name its own
// bytes, so a pack that reuses one table many times (FlatBuffers allows it) is refused
// before it multiplies memory.
struct Budget {
  uint64_t limit = 0;
  uint64_t used = 0;
  bool take(uint64_t elements, uint64_t name_bytes = 0) {
    used += elements * 4 + name_bytes;
    return used <= limit;
  }
};

// Version 6 clip keys (docs/pack-format.md, "Clip keys"), decoded into `keys` (at most
// kMaxClipKeyFloats floats over the pack, counted in *floats before each allocation).
struct ClipKeyStore {
  std::vector<std::unique_ptr<float[]>>* keys = nullptr;
  uint64_t* floats = nullptr;
  std::map<std::tuple<const void*, const void*, const void*, uint64_t, uint64_t, int, int>,
           const float*>* values = nullptr;
  float* allocate(uint64_t n) {
    if (n == 0 || n > kMaxClipKeyFloats - *floats) return nullptr;
    *floats += n;
    keys->push_back(std::make_unique<float[]>(static_cast<size_t>(n)));
    return keys->back().get();
  }
};

bool has_v6_fields(const fb::Channel& ch) {
  return ch.track() != 0 || ch.key_bits() != 0 || ch.key_count() != 0 || ch.keys() ||
         ch.codec() != fb::KeyCodec::Raw || ch.data() || ch.lane_min() || ch.lane_bits();
}

bool has_v6_fields(const fb::Clip& c) {
  return c.tracks() || c.compression() != 0 || c.tolerance() != 0 || c.distance() != 0 ||
         c.max_error() != 0 || c.translation_exponent() != 0 || c.rotation_bits() != 0 ||
         c.scale_exponent() != 0 || c.weights_exponent() != 0;
}

// The clip's tracks, decoded (spans into `store`), and their stored bytes.
Result<void> read_tracks(const fb::Clip& in, flatbuffers::uoffset_t r, flatbuffers::uoffset_t c,
                         ClipKeyStore* store, std::vector<std::span<const float>>* tracks,
                         uint64_t* stored) {
  const auto* tin = in.tracks();
  if (!tin) return {};
  for (flatbuffers::uoffset_t t = 0; t < tin->size(); ++t) {
    const fb::TimeTrack* track = tin->Get(t);
    const uint32_t n = track->count();
    if (n == 0) return bad("rig %u clip %u time track %u has no times", r, c, t);
    const auto* times = track->times();
    if (times && times->size() != n)
      return bad("rig %u clip %u time track %u: %u times for a count of %u", r, c, t, times->size(),
                 n);
    if (!times && (!std::isfinite(track->start()) || !std::isfinite(track->step())))
      return bad("rig %u clip %u time track %u: a progression not finite", r, c, t);
    float* out = store->allocate(n);
    if (!out)
      return bad("rig %u clip %u time track %u: %u times, over the pack's %llu key floats", r, c, t,
                 n, static_cast<unsigned long long>(kMaxClipKeyFloats));
    if (times) {
      std::memcpy(out, times->data(), size_t{n} * sizeof(float));
      *stored += uint64_t{n} * 4;
    } else {
      for (uint32_t k = 0; k < n; ++k)
        out[k] = clip_codec::progression_time(track->start(), track->step(), k);
      *stored += 16;
    }
    tracks->push_back({out, n});
  }
  return {};
}

// One version 6 channel's keys: times from its track, values decoded.
Result<void> read_v6_channel(const fb::Channel& ch, const fb::Clip& clip, flatbuffers::uoffset_t r,
                             flatbuffers::uoffset_t c, flatbuffers::uoffset_t k,
                             std::span<const std::span<const float>> tracks, ClipKeyStore* store,
                             Channel* out, uint64_t* stored) {
  if (ch.times() || ch.values())
    return bad("rig %u clip %u channel %u: float keys and format 6 keys both", r, c, k);
  if (!ch.data()) return bad("rig %u clip %u channel %u has no keys", r, c, k);
  if (ch.track() >= tracks.size())
    return bad("rig %u clip %u channel %u: time track %u of %zu", r, c, k, ch.track(),
               tracks.size());
  const std::span<const float> track = tracks[ch.track()];
  // Times: the whole track, or key_count of its times by index (ascending).
  if (ch.key_bits() == 0) {
    if (ch.key_count() != 0 || ch.keys())
      return bad("rig %u clip %u channel %u: key indices without a width", r, c, k);
    out->times = track;
  } else {
    const int bits = ch.key_bits();
    const uint32_t n = ch.key_count();
    const auto* keys = ch.keys();
    if (bits > 32 || n == 0 || !keys || keys->size() != clip_codec::bit_bytes(n, bits))
      return bad(
          "rig %u clip %u channel %u: key indices (%u of %d bits) do not match their %u "
          "bytes",
          r, c, k, n, bits, keys ? keys->size() : 0u);
    float* times = store->allocate(n);
    if (!times)
      return bad("rig %u clip %u channel %u: %u keys, over the pack's %llu key floats", r, c, k, n,
                 static_cast<unsigned long long>(kMaxClipKeyFloats));
    clip_codec::BitReader in({keys->data(), keys->size()});
    int64_t previous = -1;
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t index = 0;
      in.read(bits, &index);  // the size matches: every read succeeds
      if (index >= track.size() || int64_t{index} <= previous)
        return bad("rig %u clip %u channel %u key %u: track index %u (track of %zu, after %lld)", r,
                   c, k, i, index, track.size(), static_cast<long long>(previous));
      previous = index;
      times[i] = track[index];
    }
    out->times = {times, n};
    *stored += keys->size();
  }
  // Values: key count x groups x width floats.
  const size_t keys = out->times.size();
  const uint64_t width = static_cast<uint64_t>(channel_width(*out));
  const uint64_t groups = out->interpolation == Interpolation::kCubicSpline ? 3 : 1;
  const uint64_t n = uint64_t{keys} * groups * width;
  const auto* data = ch.data();
  const bool lossy = clip.compression() == 1;
  const bool lanes = ch.lane_min() || ch.lane_bits();
  int grid = 0;
  switch (out->property) {
    case Property::kTranslation:
      grid = clip.translation_exponent();
      break;
    case Property::kRotation:
      grid = -int{clip.rotation_bits()};
      break;
    case Property::kScale:
      grid = clip.scale_exponent();
      break;
    case Property::kWeights:
      grid = clip.weights_exponent();
      break;
  }
  const auto cache_key = std::make_tuple(
      static_cast<const void*>(data), static_cast<const void*>(ch.lane_min()),
      static_cast<const void*>(ch.lane_bits()), n, groups * width,
      static_cast<int>(ch.codec()) | (static_cast<int>(out->property) << 8) | (lossy ? 1 << 16 : 0),
      grid);
  if (const auto hit = store->values->find(cache_key); hit != store->values->end()) {
    out->values = {hit->second, static_cast<size_t>(n)};
    return {};
  }
  float* values = store->allocate(n);
  if (!values)
    return bad("rig %u clip %u channel %u: %llu values, none or over the pack's %llu key floats", r,
               c, k, static_cast<unsigned long long>(n),
               static_cast<unsigned long long>(kMaxClipKeyFloats));
  switch (ch.codec()) {
    case fb::KeyCodec::Raw:
    case fb::KeyCodec::Planes:
    case fb::KeyCodec::Planes2:
    case fb::KeyCodec::Planes0: {
      if (lossy || lanes)
        return bad("rig %u clip %u channel %u: exact keys in a lossy clip, or lanes", r, c, k);
      if (ch.codec() == fb::KeyCodec::Raw) {
        if (data->size() != n * 4)
          return bad("rig %u clip %u channel %u: %u value bytes for %llu floats", r, c, k,
                     data->size(), static_cast<unsigned long long>(n));
        std::memcpy(values, data->data(), static_cast<size_t>(n) * 4);
      } else {
        // LZ4 into the planes, then undone in place (the floats' own memory is the
        // destination: no second buffer of the decoded size).
        std::unique_ptr<uint8_t[]> raw(new (std::nothrow) uint8_t[static_cast<size_t>(n) * 4]);
        if (!raw) return bad("rig %u clip %u channel %u: out of memory", r, c, k);
        const int got = LZ4_decompress_safe(
            reinterpret_cast<const char*>(data->data()), reinterpret_cast<char*>(raw.get()),
            static_cast<int>(data->size()), static_cast<int>(n * 4));
        if (got < 0 || static_cast<uint64_t>(got) != n * 4)
          return bad("rig %u clip %u channel %u: value planes do not decode to %llu floats", r, c,
                     k, static_cast<unsigned long long>(n));
        clip_codec::planes_to_floats(raw.get(), keys, static_cast<size_t>(groups * width),
                                     ch.codec() == fb::KeyCodec::Planes0  ? 0
                                     : ch.codec() == fb::KeyCodec::Planes ? 1
                                                                          : 2,
                                     values);
      }
      *stored += data->size();
      break;
    }
    case fb::KeyCodec::Lossy: {
      if (!lossy) return bad("rig %u clip %u channel %u: lossy keys in an exact clip", r, c, k);
      if (!ch.lane_min() || !ch.lane_bits())
        return bad("rig %u clip %u channel %u: lossy keys without lanes", r, c, k);
      if (width > 64 && out->property != Property::kWeights)
        return bad("rig %u clip %u channel %u: bad width", r, c, k);
      clip_codec::LossyChannel lc;
      lc.rotation = out->property == Property::kRotation;
      lc.width = static_cast<size_t>(width);
      lc.groups = static_cast<size_t>(groups);
      lc.grid_exponent = grid;
      lc.rotation_bits = clip.rotation_bits();
      lc.lane_min = {ch.lane_min()->data(), ch.lane_min()->size()};
      lc.lane_bits = {ch.lane_bits()->data(), ch.lane_bits()->size()};
      const char* why = "";
      if (!clip_codec::decode_lossy(lc, {data->data(), data->size()}, keys, values, &why))
        return bad("rig %u clip %u channel %u: lossy keys refused (%s)", r, c, k, why);
      *stored += data->size() + uint64_t{ch.lane_min()->size()} * 4 + ch.lane_bits()->size();
      break;
    }
    default:
      return bad("rig %u clip %u channel %u: bad key codec %u", r, c, k,
                 unsigned{static_cast<uint8_t>(ch.codec())});
  }
  out->values = {values, static_cast<size_t>(n)};
  store->values->emplace(cache_key, values);
  return {};
}

// A version 6 clip's storage fields (ClipStorage), checked.
Result<void> read_storage(const fb::Clip& in, flatbuffers::uoffset_t r, flatbuffers::uoffset_t c,
                          ClipStorage* out) {
  const auto ok = [](float f) { return std::isfinite(f) && f >= 0.0f; };
  if (in.compression() > 1 || !ok(in.tolerance()) || !ok(in.distance()) || !ok(in.max_error()))
    return bad("rig %u clip %u: bad storage (compression %u, tolerance, distance, max error)", r, c,
               unsigned{in.compression()});
  if (in.compression() == 1) {
    const auto grid = [](int e) {
      return e >= clip_codec::kMinGridExponent && e <= clip_codec::kMaxGridExponent;
    };
    if (!grid(in.translation_exponent()) || !grid(in.scale_exponent()) ||
        !grid(in.weights_exponent()) || in.rotation_bits() < clip_codec::kMinRotationBits ||
        in.rotation_bits() > clip_codec::kMaxRotationBits)
      return bad("rig %u clip %u: lossy grids out of range (exponents %d %d %d, rotation bits %u)",
                 r, c, int{in.translation_exponent()}, int{in.scale_exponent()},
                 int{in.weights_exponent()}, unsigned{in.rotation_bits()});
  } else if (in.translation_exponent() != 0 || in.rotation_bits() != 0 ||
             in.scale_exponent() != 0 || in.weights_exponent() != 0 || in.tolerance() != 0 ||
             in.distance() != 0 || in.max_error() != 0) {
    return bad("rig %u clip %u: an exact clip with lossy grids or error", r, c);
  }
  out->compression = in.compression() == 1 ? ClipCompression::kLossy : ClipCompression::kExact;
  out->tolerance = in.tolerance();
  out->distance = in.distance();
  out->max_error = in.max_error();
  return {};
}

// Bytes an Animator (and the ScenePlayer's share for its object) allocates for a rig
// whose largest clip has `events` events: an upper bound of animator.cpp's and
// scene_player.cpp's sizing (kMaxRepeats crossings per mark, both directions).
uint64_t animator_bytes(const Rig& rig, uint64_t events) {
  const uint64_t joints = static_cast<uint64_t>(rig.skeleton().joint_count());
  const uint64_t channels = static_cast<uint64_t>(std::max(1, rig.max_channel_count()));
  const uint64_t capacity = std::max<uint64_t>(16, 2 * kMaxRepeats * events);
  // 16 KiB: the Animator itself (its mixes hold their layers in place).
  return 16384 + joints * (2 * sizeof(Trs) + 3 * sizeof(Mat4)) +
         (channels + joints) * kLayerSlots * 4 + capacity * 128;
}

uint64_t sprite_player_bytes(uint64_t events) {
  return 1024 + (events * kSpriteMaxRepeats + events) * 128;
}

// A sprite player's timed clips' tick tables (version 7): 8 bytes per clip and two per
// frame of a timed clip.
uint64_t sprite_timeline_bytes(const SpriteSheet& sheet) {
  uint64_t n = 8;
  for (const SpriteClip& c : sheet.clips()) n += 8 + uint64_t{c.durations_ms().size()} * 16 + 16;
  return n;
}

// The copy of a rig or sheet a ScenePlayer makes for an object with events of its own.
uint64_t rig_copy_bytes(const Rig& rig) {
  uint64_t n = 256;
  for (const Clip& c : rig.clips()) {
    n += 128 + c.name().size() + c.channels().size() * sizeof(Channel);
    for (const ClipEvent& e : c.events()) n += sizeof(ClipEvent) + e.name.size();
  }
  return n;
}

uint64_t sheet_copy_bytes(const SpriteSheet& sheet) {
  uint64_t n = 256 + uint64_t{sheet.atlas().frame_count()} * 64;
  if (sheet.atlas().has_placements() || !sheet.atlas().name(0).empty()) {  // version 7
    for (uint32_t f = 0; f < sheet.atlas().frame_count(); ++f)
      n += sizeof(FramePlacement) + sizeof(std::string) + sheet.atlas().name(f).size();
  }
  for (const SpriteClip& c : sheet.clips()) {
    n += 128 + c.name().size() + c.frames().size() * 4 + c.durations_ms().size() * 4;
    for (const FrameEvent& e : c.events()) n += sizeof(FrameEvent) + e.name.size();
  }
  return n;
}

// An index that must name one of `count` things, or -1 where `none` allows it.
bool valid_index(int32_t i, size_t count, bool none) {
  return (none && i == -1) || (i >= 0 && static_cast<size_t>(i) < count);
}

// Version 3: an object's state machine, read against its rig. Counts against graph.h's
// limits, every index in range, enums known, floats finite, strings UTF-8, masks of one
// weight per joint; the rest (kinds, ranges, names) is GraphDef::validate's.
Result<void> read_graph(const fb::Graph& in, const Rig& rig, flatbuffers::uoffset_t o,
                        Budget* budget, GraphDef* out) {
  const size_t clips = static_cast<size_t>(rig.clip_count());
  const size_t joints = static_cast<size_t>(rig.skeleton().joint_count());
  const auto* parameters = in.parameters();
  const auto* states = in.states();
  const auto* transitions = in.transitions();
  const auto* layers = in.layers();
  const flatbuffers::uoffset_t np = parameters ? parameters->size() : 0;
  const flatbuffers::uoffset_t ns = states ? states->size() : 0;
  const flatbuffers::uoffset_t nt = transitions ? transitions->size() : 0;
  const flatbuffers::uoffset_t nl = layers ? layers->size() : 0;
  if (np > static_cast<flatbuffers::uoffset_t>(kMaxGraphParameters) ||
      ns > static_cast<flatbuffers::uoffset_t>(kMaxGraphStates) ||
      nt > static_cast<flatbuffers::uoffset_t>(kMaxGraphTransitions) ||
      nl > static_cast<flatbuffers::uoffset_t>(kMaxGraphLayers)) {
    return bad(
        "object %u graph: %u parameters, %u states, %u transitions, %u layers; at most "
        "%d, %d, %d, %d",
        o, np, ns, nt, nl, kMaxGraphParameters, kMaxGraphStates, kMaxGraphTransitions,
        kMaxGraphLayers);
  }
  // Each table has at least its 4-byte offset and its 4-byte vtable offset: 2 elements.
  if (!budget->take((uint64_t{np} + ns + nt + nl) * 2 + 1))
    return bad("object %u graph: more than the file holds", o);
  out->parameters.reserve(np);
  for (flatbuffers::uoffset_t i = 0; i < np; ++i) {
    const fb::GraphParameter* p = parameters->Get(i);
    const std::string_view name = view(p->name());
    if (!valid_utf8(name) || !budget->take(0, name.size()))
      return bad("object %u graph parameter %u: the name is not UTF-8 or more than the file holds",
                 o, i);
    const auto kind = static_cast<uint8_t>(p->kind());
    if (kind > 2) return bad("object %u graph parameter %u: bad kind %u", o, i, kind);
    if (!(finite(p->default_value()) && finite(p->min()) && finite(p->max())))
      return bad("object %u graph parameter %u: default, min or max is not finite", o, i);
    out->parameters.push_back({std::string(name), static_cast<ParameterKind>(kind),
                               p->default_value(), p->min(), p->max()});
  }
  out->states.reserve(ns);
  for (flatbuffers::uoffset_t i = 0; i < ns; ++i) {
    const fb::GraphState* in_state = states->Get(i);
    StateDef st;
    const std::string_view name = view(in_state->name());
    if (!valid_utf8(name) || !budget->take(0, name.size()))
      return bad("object %u graph state %u: the name is not UTF-8 or more than the file holds", o,
                 i);
    st.name = std::string(name);
    st.clip = in_state->clip();
    if (!valid_index(st.clip, clips, true))
      return bad("object %u graph state %u plays clip %d of %zu", o, i, st.clip, clips);
    if (const auto* points = in_state->points()) {
      if (points->size() > static_cast<flatbuffers::uoffset_t>(kMaxBlendPoints) ||
          !budget->take(points->size())) {
        return bad("object %u graph state %u: %u blend points, at most %d", o, i, points->size(),
                   kMaxBlendPoints);
      }
      for (const fb::BlendPointf* q : *points) {
        if (q->clip() >= clips)
          return bad("object %u graph state %u: a blend point plays clip %u of %zu", o, i,
                     unsigned{q->clip()}, clips);
        if (!(finite(q->x()) && finite(q->y())))
          return bad("object %u graph state %u: a blend point is not finite", o, i);
        st.points.push_back({q->clip(), q->x(), q->y()});
      }
    }
    st.x_parameter = in_state->x_parameter();
    st.y_parameter = in_state->y_parameter();
    st.speed_parameter = in_state->speed_parameter();
    if (!valid_index(st.x_parameter, np, true) || !valid_index(st.y_parameter, np, true) ||
        !valid_index(st.speed_parameter, np, true)) {
      return bad("object %u graph state %u: a parameter index (x %d, y %d, speed %d) of %u", o, i,
                 st.x_parameter, st.y_parameter, st.speed_parameter, np);
    }
    st.speed = in_state->speed();
    st.start = in_state->start();
    if (!finite(st.speed) || !std::isfinite(st.start))
      return bad("object %u graph state %u: speed or start is not finite", o, i);
    if (!valid_playback(in_state->playback()))
      return bad("object %u graph state %u: bad playback", o, i);
    st.playback = static_cast<Playback>(in_state->playback());
    out->states.push_back(std::move(st));
  }
  out->transitions.reserve(nt);
  for (flatbuffers::uoffset_t i = 0; i < nt; ++i) {
    const fb::GraphTransition* t = transitions->Get(i);
    TransitionDef def;
    def.from = t->from();
    def.to = t->to();
    if (!valid_index(def.from, ns, true) || !valid_index(def.to, ns, false))
      return bad("object %u graph transition %u: from %d to %d of %u states", o, i, def.from,
                 def.to, ns);
    def.fade = t->fade();
    if (!std::isfinite(def.fade)) return bad("object %u graph transition %u: bad fade", o, i);
    if (const auto* conditions = t->conditions()) {
      if (conditions->size() > static_cast<flatbuffers::uoffset_t>(kMaxTransitionConditions) ||
          !budget->take(conditions->size())) {
        return bad("object %u graph transition %u: %u conditions, at most %d", o, i,
                   conditions->size(), kMaxTransitionConditions);
      }
      for (const fb::Conditionf* c : *conditions) {
        const auto kind = static_cast<uint8_t>(c->kind());
        if (kind > 4)
          return bad("object %u graph transition %u: bad condition kind %u", o, i, kind);
        if (!valid_index(c->parameter(), np, true) || !finite(c->value()))
          return bad(
              "object %u graph transition %u: a condition names parameter %d of %u or is "
              "not finite",
              o, i, c->parameter(), np);
        def.conditions.push_back({static_cast<ConditionKind>(kind), c->parameter(), c->value()});
      }
    }
    out->transitions.push_back(std::move(def));
  }
  out->layers.reserve(nl);
  for (flatbuffers::uoffset_t i = 0; i < nl; ++i) {
    const fb::GraphLayer* l = layers->Get(i);
    LayerDef def;
    def.clip = l->clip();
    if (def.clip >= clips)
      return bad("object %u graph layer %u plays clip %u of %zu", o, i, unsigned{def.clip}, clips);
    const auto mode = static_cast<uint8_t>(l->mode());
    if (mode > 1) return bad("object %u graph layer %u: bad mode %u", o, i, mode);
    def.mode = static_cast<LayerMode>(mode);
    def.weight = l->weight();
    def.weight_parameter = l->weight_parameter();
    def.speed = l->speed();
    if (!finite(def.weight) || !finite(def.speed))
      return bad("object %u graph layer %u: weight or speed is not finite", o, i);
    if (!valid_index(def.weight_parameter, np, true))
      return bad("object %u graph layer %u: weight parameter %d of %u", o, i, def.weight_parameter,
                 np);
    if (!valid_playback(l->playback())) return bad("object %u graph layer %u: bad playback", o, i);
    def.playback = static_cast<Playback>(l->playback());
    if (const auto* mask = l->mask()) {
      if (mask->size() != joints || !budget->take(mask->size()))
        return bad("object %u graph layer %u: a mask of %u weights for %zu joints", o, i,
                   mask->size(), joints);
      def.mask.assign(mask->begin(), mask->end());
      for (float w : def.mask) {
        if (!finite(w)) return bad("object %u graph layer %u: a mask weight is not finite", o, i);
      }
    }
    out->layers.push_back(std::move(def));
  }
  return ok();
}

// What a StateMachine (and the overlays its layers add) allocates for `graph`, at most.
uint64_t graph_bytes(const GraphDef& graph, const Rig& rig) {
  const uint64_t joints = static_cast<uint64_t>(rig.skeleton().joint_count());
  return 1024 + graph.parameters.size() * 16 + kMaxBlendPoints * 8 +
         graph.layers.size() * (64 + joints * 4);
}

// Version 4: a mesh axis is finite and unit within 1e-4.
bool unit_axis(const Vec3& v) {
  if (!(finite(v.x) && finite(v.y) && finite(v.z))) return false;
  const double x = v.x, y = v.y, z = v.z;
  const double length = std::sqrt(x * x + y * y + z * z);
  return length >= 1.0 - 1e-4 && length <= 1.0 + 1e-4;
}

double dot_d(const Vec3& a, const Vec3& b) {
  return double{a.x} * b.x + double{a.y} * b.y + double{a.z} * b.z;
}

static_assert(sizeof(fb::RootMotionSamplei) == sizeof(RootMotionSample));

// Version 4: an object's root motion, read against its rig and mesh (whose axes it takes):
// the policy, extract bits, rate and joint, then RootMotionConfig::validate; one track per
// rig clip for kAccumulate (none otherwise), an additive clip's empty, every other shaped
// for its clip (check_root_motion_track). Tracks are views into the file.
Result<void> read_root_motion(const fb::RootMotion& in, const Rig& rig, const MeshInfo& mesh,
                              flatbuffers::uoffset_t o, Budget* budget, RootMotionConfig* config,
                              std::vector<RootMotionTrack>* tracks) {
  const auto policy = static_cast<uint8_t>(in.policy());
  if (policy > 2) return bad("object %u root motion: bad policy %u", o, policy);
  const uint8_t all = kExtractHorizontal | kExtractVertical | kExtractYaw;
  if (in.extract() == 0 || (in.extract() & ~all) != 0)
    return bad("object %u root motion: bad extract bits 0x%x (1 horizontal, 2 vertical, 4 yaw)", o,
               unsigned{in.extract()});
  if (in.rate() < 1 || in.rate() > kMaxRootMotionRate)
    return bad("object %u root motion: rate %d, not in [1, %d]", o, in.rate(), kMaxRootMotionRate);
  const int joints = rig.skeleton().joint_count();
  if (in.joint() < 0 || in.joint() >= joints)
    return bad("object %u root motion: joint %d of %d", o, in.joint(), joints);
  config->policy = static_cast<RootMotionPolicy>(policy);
  config->joint = in.joint();
  config->extract = in.extract();
  config->rate = in.rate();
  config->up = mesh.up;
  config->forward = mesh.forward;
  if (Result<void> r = config->validate(rig.skeleton()); !r)
    return bad("object %u root motion: %s", o, r.error().message());
  const auto* list = in.tracks();
  const flatbuffers::uoffset_t n = list ? list->size() : 0;
  const bool accumulate = config->policy == RootMotionPolicy::kAccumulate;
  const auto clips = static_cast<flatbuffers::uoffset_t>(rig.clip_count());
  if (accumulate ? n != clips : n != 0) {
    return bad("object %u root motion: %u tracks for %u clips (%s: %s)", o, n, clips,
               root_motion_policy_name(config->policy), accumulate ? "one per clip" : "none");
  }
  // Each track is a table: its 4-byte offset and its 4-byte vtable offset.
  if (!budget->take(uint64_t{n} * 2 + 1))
    return bad("object %u root motion: more tracks than the file holds", o);
  tracks->reserve(n);
  for (flatbuffers::uoffset_t c = 0; c < n; ++c) {
    const auto* samples = list->Get(c)->samples();
    RootMotionTrack track;
    if (samples) {
      track.samples = {reinterpret_cast<const RootMotionSample*>(samples->data()), samples->size()};
    }
    const Clip& clip = rig.clips()[c];
    if (clip.additive() != AdditiveReference::kNone && !track.samples.empty())
      return bad("object %u root motion track %u: clip '%.*s' is additive, its track must be empty",
                 o, c, static_cast<int>(std::min<size_t>(clip.name().size(), 40)),
                 clip.name().data());
    if (Result<void> r = check_root_motion_track(clip, *config, track); !r)
      return bad("object %u root motion track %u: %s", o, c, r.error().message());
    tracks->push_back(track);
  }
  return ok();
}

bool finite(const fb::Vec3f* v) { return v == nullptr || finite(*v); }

// Version 4: an object's IK solvers, read against its rig: the count, names, kinds, joint
// lists (in the rig, at most kMaxChainJoints), every float finite and the iteration count
// in range; then IkSet::create's checks (chains, bone lengths, ranges, axes, hips),
// whose kBadIk becomes kBadPack naming the object (its message names the solver).
Result<void> read_ik(const flatbuffers::Vector<flatbuffers::Offset<fb::IkSolver>>& in,
                     const Rig& rig, Vec3 up, flatbuffers::uoffset_t o, Budget* budget,
                     std::vector<IkSolverDef>* out) {
  if (in.size() > static_cast<flatbuffers::uoffset_t>(kMaxIkSolvers))
    return bad("object %u: %u IK solvers, at most %d", o, in.size(), kMaxIkSolvers);
  if (!budget->take(uint64_t{in.size()} * 2 + 1))
    return bad("object %u: more IK solvers than the file holds", o);
  const auto joints = static_cast<uint32_t>(rig.skeleton().joint_count());
  out->reserve(in.size());
  for (flatbuffers::uoffset_t i = 0; i < in.size(); ++i) {
    const fb::IkSolver* s = in.Get(i);
    IkSolverDef def;
    const std::string_view name = view(s->name());
    if (!valid_utf8(name) || !budget->take(0, name.size()))
      return bad("object %u IK solver %u: the name is not UTF-8 or more than the file holds", o, i);
    def.name = std::string(name);
    const auto kind = static_cast<uint8_t>(s->kind());
    if (kind > 3) return bad("object %u IK solver %u: bad kind %u", o, i, kind);
    def.kind = static_cast<IkKind>(kind);
    const auto* list = s->joints();
    const flatbuffers::uoffset_t n = list ? list->size() : 0;
    if (n == 0 || n > static_cast<flatbuffers::uoffset_t>(kMaxChainJoints) || !budget->take(n))
      return bad("object %u IK solver %u: %u joints, 1 to %d", o, i, n, kMaxChainJoints);
    for (const uint16_t j : *list) {
      if (j >= joints)
        return bad("object %u IK solver %u: joint %u of %u", o, i, unsigned{j}, joints);
      def.joints.push_back(j);
    }
    if (!(finite(s->weight()) && finite(s->soften()) && finite(s->twist()) &&
          finite(s->max_angle()) && finite(s->target()) && finite(s->pole()) &&
          finite(s->forward()) && finite(s->up()))) {
      return bad("object %u IK solver %u: a number is not finite", o, i);
    }
    if (s->iterations() < 1 || s->iterations() > kMaxIkIterations)
      return bad("object %u IK solver %u: %d iterations, 1 to %d", o, i, s->iterations(),
                 kMaxIkIterations);
    if (s->hips() < -1 || s->hips() >= static_cast<int32_t>(joints))
      return bad("object %u IK solver %u: hips joint %d of %u", o, i, s->hips(), joints);
    def.weight = s->weight();
    def.has_target = s->target() != nullptr;
    if (def.has_target) def.target = to_vec3(*s->target());
    def.has_pole = s->pole() != nullptr;
    if (def.has_pole) def.pole = to_vec3(*s->pole());
    def.soften = s->soften();
    def.twist = s->twist();
    if (s->forward()) def.forward = to_vec3(*s->forward());
    if (s->up()) def.up = to_vec3(*s->up());
    def.max_angle = s->max_angle();
    def.iterations = s->iterations();
    def.hips = s->hips();
    out->push_back(std::move(def));
  }
  Result<IkSet> set = IkSet::create(&rig.skeleton(), *out, up);
  if (!set) return bad("object %u IK: %s", o, set.error().message());
  return ok();
}

// What a ScenePlayer allocates for an object's root motion (the Animator's first-frame
// values and track views, per clip) and IK set (copies of the definitions, per-solver
// state, scratch locals per joint and FABRIK points), at most.
uint64_t root_motion_bytes(const Rig& rig) {
  return 256 + static_cast<uint64_t>(rig.clip_count()) * (sizeof(Trs) + sizeof(RootMotionTrack));
}

uint64_t ik_bytes(const std::vector<IkSolverDef>& solvers, const Rig& rig) {
  uint64_t n = 1024 + static_cast<uint64_t>(rig.skeleton().joint_count()) * sizeof(Trs) +
               uint64_t{kMaxChainJoints} * sizeof(Vec3);
  for (const IkSolverDef& s : solvers)
    n += sizeof(IkSolverDef) + 128 + s.name.size() + s.joints.size() * 2;
  return n;
}

// Version 5: a rig's morph sets, each bounded before anything is allocated for it (at most
// 65535 sets, kMaxMorphTargets targets, as many default weights as names, UTF-8 names);
// Rig::create checks the rest (kBadMorph: names unique and not empty, weights finite within
// kMaxMorphWeight, the joint in the skeleton, kMaxRigMorphWeights in all).
Result<void> read_morph_sets(const flatbuffers::Vector<flatbuffers::Offset<fb::MorphSet>>& in,
                             flatbuffers::uoffset_t r, uint32_t version, Budget* budget,
                             std::vector<MorphSet>* out, std::vector<int>* nodes) {
  if (version < 5) return bad("rig %u: format %u has no morph sets", r, version);
  if (in.size() > 65535) return bad("rig %u: %u morph sets, at most 65535", r, in.size());
  if (!budget->take(uint64_t{in.size()} * 2 + 1))
    return bad("rig %u: more morph sets than the file holds", r);
  out->reserve(in.size());
  for (flatbuffers::uoffset_t s = 0; s < in.size(); ++s) {
    const fb::MorphSet* set = in.Get(s);
    const auto* names = set->target_names();
    const auto* weights = set->default_weights();
    const flatbuffers::uoffset_t n = names ? names->size() : 0;
    const flatbuffers::uoffset_t w = weights ? weights->size() : 0;
    if (n == 0 || n > kMaxMorphTargets || w != n)
      return bad("rig %u morph set %u: %u target names and %u default weights (1 to %u)", r, s, n,
                 w, kMaxMorphTargets);
    const std::string_view name = view(set->name());
    if (!valid_utf8(name) || !budget->take(n, name.size()))
      return bad("rig %u morph set %u: the name is not UTF-8 or more than the file holds", r, s);
    MorphSet m;
    m.name = std::string(name);
    m.joint = set->joint();
    m.target_names.reserve(n);
    for (flatbuffers::uoffset_t t = 0; t < n; ++t) {
      const std::string_view target = view(names->Get(t));
      if (!valid_utf8(target) || !budget->take(0, target.size()))
        return bad(
            "rig %u morph set %u target %u: the name is not UTF-8 or more than the file "
            "holds",
            r, s, t);
      m.target_names.emplace_back(target);
    }
    m.default_weights.assign(weights->begin(), weights->end());
    nodes->push_back(set->source_node());
    out->push_back(std::move(m));
  }
  return ok();
}

}  // namespace

Pack::Pack() = default;
Pack::Pack(Pack&& other) noexcept { *this = std::move(other); }

Pack& Pack::operator=(Pack&& other) noexcept {
  if (this == &other) return *this;
  if (mapping_) munmap(mapping_, mapping_size_);
  data_ = other.data_;
  size_ = other.size_;
  mapping_ = other.mapping_;
  mapping_size_ = other.mapping_size_;
  owned_ = std::move(other.owned_);
  format_version_ = other.format_version_;
  meshes_ = std::move(other.meshes_);
  parts_ = std::move(other.parts_);
  rigs_ = std::move(other.rigs_);
  sheets_ = std::move(other.sheets_);
  objects_ = std::move(other.objects_);
  materials_ = std::move(other.materials_);
  textures_ = std::move(other.textures_);
  bounds_ = std::move(other.bounds_);
  joint_bounds_ = std::move(other.joint_bounds_);
  decoded_ = std::move(other.decoded_);
  other.data_ = nullptr;
  other.size_ = 0;
  other.mapping_ = nullptr;
  other.mapping_size_ = 0;
  return *this;
}

Pack::~Pack() {
  if (mapping_) munmap(mapping_, mapping_size_);
}

Result<Pack> Pack::open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    return Error::make(ErrorCode::kIo, "cannot open %s: %s", path.c_str(), std::strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error::make(ErrorCode::kIo, "%s is not a regular file", path.c_str());
  }
  if (st.st_size <= 0) {
    ::close(fd);
    return Error::make(ErrorCode::kBadPack, "bad pack: %s is empty", path.c_str());
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxPackBytes) {
    ::close(fd);
    return Error::make(ErrorCode::kBadPack,
                       "bad pack: %s has %lld bytes, packs may have at most %llu", path.c_str(),
                       static_cast<long long>(st.st_size),
                       static_cast<unsigned long long>(kMaxPackBytes));
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) {
    return Error::make(ErrorCode::kIo, "cannot map %s: %s", path.c_str(), std::strerror(errno));
  }
  Pack p;
  p.mapping_ = map;
  p.mapping_size_ = size;
  p.data_ = static_cast<const uint8_t*>(map);
  p.size_ = size;
  if (Result<void> r = p.load(); !r) {
    return Error::make(ErrorCode::kBadPack, "%s: %s", path.c_str(), r.error().message());
  }
  return p;
}

Result<Pack> Pack::from_bytes(std::span<const uint8_t> bytes) {
  if (bytes.size() > kMaxPackBytes) {
    return bad("%zu bytes, packs may have at most %llu", bytes.size(),
               static_cast<unsigned long long>(kMaxPackBytes));
  }
  Pack p;
  // operator new[] aligns to at least 16 bytes, which blob data (force_align 16) needs.
  p.owned_.reset(new uint8_t[bytes.size() + 1]);
  if (!bytes.empty()) std::memcpy(p.owned_.get(), bytes.data(), bytes.size());
  p.data_ = p.owned_.get();
  p.size_ = bytes.size();
  if (Result<void> r = p.load(); !r) return r.error();
  return p;
}

int Pack::joint_source_node(int rig, int joint) const {
  if (rig < 0 || rig >= rig_count()) return -1;
  const auto& nodes = rigs_[static_cast<size_t>(rig)].joint_nodes;
  return joint >= 0 && static_cast<size_t>(joint) < nodes.size() ? nodes[static_cast<size_t>(joint)]
                                                                 : -1;
}

int Pack::morph_source_node(int rig, int set) const {
  if (rig < 0 || rig >= rig_count()) return -1;
  const auto& nodes = rigs_[static_cast<size_t>(rig)].morph_nodes;
  return set >= 0 && static_cast<size_t>(set) < nodes.size() ? nodes[static_cast<size_t>(set)] : -1;
}

int Pack::clip_source_animation(int rig, int clip) const {
  if (rig < 0 || rig >= rig_count()) return -1;
  const auto& anims = rigs_[static_cast<size_t>(rig)].clip_animations;
  return clip >= 0 && static_cast<size_t>(clip) < anims.size() ? anims[static_cast<size_t>(clip)]
                                                               : -1;
}

std::string_view Pack::sprite_source(int sheet) const {
  const auto* root = fb::GetAssetPack(data_);
  if (!root->sprite_sheets() || sheet < 0 ||
      static_cast<flatbuffers::uoffset_t>(sheet) >= root->sprite_sheets()->size()) {
    return {};
  }
  return view(
      root->sprite_sheets()->Get(static_cast<flatbuffers::uoffset_t>(sheet))->source_file());
}

int Pack::find_object(std::string_view name) const {
  for (size_t i = 0; i < objects_.size(); ++i) {
    if (objects_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Result<void> Pack::load() {
  if (size_ < 8 || size_ > kMaxPackBytes) return bad("size %zu is not a pack's", size_);
  if (!fb::AssetPackBufferHasIdentifier(data_)) return bad("no ANPK identifier");
  flatbuffers::Verifier verifier(data_, size_, /*max_depth=*/64, /*max_tables=*/10000000);
  if (!fb::VerifyAssetPackBuffer(verifier)) return bad("the FlatBuffers verifier refused it");
  // The buffer ends at the furthest byte the verifier checked; the writer pads it to 16
  // bytes with zeros. Anything more is not part of the pack.
  const size_t end = verifier.GetComputedSize();
  if (end == 0 || end > size_ || size_ - end >= 16 ||
      std::any_of(data_ + end, data_ + size_, [](uint8_t b) { return b != 0; })) {
    return bad("%zu bytes follow the pack's %zu", size_ - std::min(end, size_), end);
  }
  Budget budget{size_};
  uint64_t decoded_bytes = 0;  // LZ4 blobs' raw sizes, all together (each distinct data once)
  decoded_ = std::make_unique<Decoded>();
  // Gives a blob's data its slot: the first Blob naming the data is checked against
  // `expected` (valid_blob) and an LZ4 one adds its raw size to decoded_bytes; another Blob
  // naming the same data (the writer shares identical streams) must be as valid and declare
  // the same raw size, and adds nothing. Each distinct data costs 2 elements of rule 8 (its
  // vector's length and its table's offset are at least 8 bytes of the file).
  // `element`: the stream's element size (1 for pixels). Version 6: a meshopt codec or an
  // element size in an older pack is refused.
  const auto note_blob = [&](const fb::Blob& b, uint64_t expected, uint32_t element) -> BlobCheck {
    if (format_version_ < 6 && (static_cast<uint8_t>(b.compression()) >= 2 || b.element_size()))
      return kBlobNewerCodec;
    if (!valid_blob(b, expected, element)) return kBlobBadSize;
    const auto [it, added] = decoded_->slot_of.try_emplace(
        b.data()->data(), static_cast<uint32_t>(decoded_->slots.size()));
    if (!added) {
      return decoded_->slots[it->second].raw_size == expected ? kBlobOk : kBlobSharedOtherSize;
    }
    if (!budget.take(2)) return kBlobOverFile;
    decoded_->slots.emplace_back().raw_size = expected;
    if (b.compression() != fb::Compression::None &&
        (decoded_bytes += expected) > kMaxDecodedBytes) {
      return kBlobOverDecoded;
    }
    return kBlobOk;
  };
  const auto blob_problem = [](BlobCheck c) -> const char* {
    switch (c) {
      case kBlobOverDecoded:
        return "the compressed blobs decode to more than 2 GiB (kMaxDecodedBytes)";
      case kBlobNewerCodec:
        return "a blob names a format 6 codec (meshoptimizer) or element size";
      case kBlobSharedOtherSize:
        return "a blob's data is shared with a blob of another raw size";
      case kBlobOverFile:
        return "more blobs than the file holds";
      default:
        return "a blob does not hold its stream";
    }
  };
  const fb::AssetPack* root = fb::GetAssetPack(data_);
  format_version_ = root->format_version();
  if (format_version_ < kOldestPackFormatVersion || format_version_ > kPackFormatVersion) {
    return bad("format version %u, this runtime reads %u to %u (rebuild the pack)", format_version_,
               kOldestPackFormatVersion, kPackFormatVersion);
  }

  // Textures: sizes against their blobs (pixels decoded on first use).
  if (const auto* textures = root->textures()) {
    if (!budget.take(uint64_t{textures->size()} * 8))
      return bad("more textures than the file holds");
    for (flatbuffers::uoffset_t t = 0; t < textures->size(); ++t) {
      const fb::Texture* in = textures->Get(t);
      TextureInfo info;
      info.width = in->width();
      info.height = in->height();
      info.source_file = view(in->source_file());
      info.source_image = in->source_image();
      info.mime_type = view(in->mime_type());
      const auto cs = static_cast<uint8_t>(in->color_space());
      if (cs > 1) return bad("texture %u: bad colour space", t);
      info.color_space = static_cast<ColorSpace>(cs);
      if (!valid_utf8(info.source_file) || !valid_utf8(info.mime_type))
        return bad("texture %u: a string is not UTF-8", t);
      if (info.width == 0 || info.height == 0 || info.width > kMaxTextureSide ||
          info.height > kMaxTextureSide) {
        return bad("texture %u is %ux%u, at most %u on a side", t, info.width, info.height,
                   kMaxTextureSide);
      }
      const BlobCheck pixels =
          in->pixels() ? note_blob(*in->pixels(), uint64_t{info.width} * info.height * 4, 1)
                       : kBlobBadSize;
      if (pixels == kBlobBadSize)
        return bad("texture %u: pixels do not hold %ux%u RGBA8", t, info.width, info.height);
      if (pixels != kBlobOk) return bad("texture %u: %s", t, blob_problem(pixels));
      textures_.push_back(info);
    }
  }

  // Materials: texture slots, enums and factor ranges.
  if (const auto* materials = root->materials()) {
    if (!budget.take(uint64_t{materials->size()} * 16))
      return bad("more materials than the file holds");
    for (flatbuffers::uoffset_t m = 0; m < materials->size(); ++m) {
      const fb::Material* in = materials->Get(m);
      MaterialInfo info;
      info.name = view(in->name());
      info.source_file = view(in->source_file());
      info.source_material = in->source_material();
      if (!valid_utf8(info.name) || !valid_utf8(info.source_file))
        return bad("material %u: a string is not UTF-8", m);
      if (const fb::Vec4f* c = in->base_color_factor())
        info.base_color = {c->x(), c->y(), c->z(), c->w()};
      if (const fb::Vec3f* e = in->emissive_factor()) info.emissive = to_vec3(*e);
      info.metallic = in->metallic_factor();
      info.roughness = in->roughness_factor();
      info.normal_scale = in->normal_scale();
      info.occlusion_strength = in->occlusion_strength();
      info.emissive_strength = in->emissive_strength();
      info.alpha_cutoff = in->alpha_cutoff();
      info.double_sided = in->double_sided();
      const auto mode = static_cast<uint8_t>(in->alpha_mode());
      if (mode > 2) return bad("material %u: bad alpha mode", m);
      info.alpha_mode = static_cast<AlphaMode>(mode);
      const Vec4& bc = info.base_color;
      if (!(in_unit(bc.x) && in_unit(bc.y) && in_unit(bc.z) && in_unit(bc.w) &&
            in_unit(info.metallic) && in_unit(info.roughness) && in_unit(info.occlusion_strength) &&
            in_unit(info.emissive.x) && in_unit(info.emissive.y) && in_unit(info.emissive.z) &&
            finite(info.normal_scale) && finite(info.emissive_strength) &&
            info.emissive_strength >= 0.0f && finite(info.alpha_cutoff) &&
            info.alpha_cutoff >= 0.0f)) {
        return bad("material %u: a factor is out of its range", m);
      }
      const size_t nt = textures_.size();
      Result<void> r =
          read_slot(in->base_color_texture(), nt, "base colour", m, &info.base_color_texture);
      if (r)
        r = read_slot(in->metallic_roughness_texture(), nt, "metallic-roughness", m,
                      &info.metallic_roughness_texture);
      if (r) r = read_slot(in->normal_texture(), nt, "normal", m, &info.normal_texture);
      if (r) r = read_slot(in->occlusion_texture(), nt, "occlusion", m, &info.occlusion_texture);
      if (r) r = read_slot(in->emissive_texture(), nt, "emissive", m, &info.emissive_texture);
      if (!r) return r.error();
      materials_.push_back(info);
    }
  }

  // A pack of versions 1 to 5 carrying version 6 clip keys, refused once every other check
  // (and its own version's) has had its say.
  char v6_in_old[128] = "";
  // Rigs: skeletons and clips, keys viewed in place (version 6: decoded).
  if (const auto* rigs = root->rigs()) {
    for (flatbuffers::uoffset_t r = 0; r < rigs->size(); ++r) {
      const fb::Rig* in = rigs->Get(r);
      const auto* joints = in->joints();
      const auto* ibms = in->inverse_binds();
      if (!joints || !ibms || !in->root())
        return bad("rig %u lacks joints, inverse binds or root", r);
      if (ibms->size() != joints->size()) {
        return bad("rig %u has %u inverse binds for %u joints", r, ibms->size(), joints->size());
      }
      if (!budget.take(uint64_t{joints->size()} * 2 + 1))
        return bad("rig %u: more joints than the file holds", r);
      RigEntry entry;
      entry.node_rig = in->node_rig();
      std::vector<Joint> js;
      std::vector<Mat4> inverse_binds;
      js.reserve(joints->size());
      for (flatbuffers::uoffset_t j = 0; j < joints->size(); ++j) {
        const fb::Joint* jin = joints->Get(j);
        if (!jin->rest()) return bad("rig %u joint %u has no rest pose", r, j);
        if (!valid_utf8(view(jin->name())) || !budget.take(0, view(jin->name()).size()))
          return bad("rig %u joint %u: a bad name", r, j);
        js.push_back(Joint{std::string(view(jin->name())), jin->parent(), to_trs(*jin->rest())});
        inverse_binds.push_back(to_mat4(*ibms->Get(j)));
        entry.joint_nodes.push_back(jin->source_node());
      }
      Result<Skeleton> skeleton =
          Skeleton::create(std::move(js), std::move(inverse_binds), to_mat4(*in->root()));
      if (!skeleton) return bad("rig %u: %s", r, skeleton.error().message());
      std::vector<Clip> clips;
      if (const auto* cin = in->clips()) {
        for (flatbuffers::uoffset_t c = 0; c < cin->size(); ++c) {
          const fb::Clip* clip_in = cin->Get(c);
          const std::string_view clip_name = view(clip_in->name());
          const auto* channels_in = clip_in->channels();
          const auto* events_in = clip_in->events();
          if (!valid_utf8(clip_name) ||
              !budget.take(1 + (channels_in ? channels_in->size() : 0) +
                               (events_in ? uint64_t{events_in->size()} * 2 : 0),
                           clip_name.size())) {
            return bad("rig %u clip %u: a bad name or more than the file holds", r, c);
          }
          Clip clip{std::string(clip_name)};
          // Version 6: keys decoded once into memory the pack owns (docs/pack-format.md,
          // "Clip keys"); older packs' keys are viewed in place.
          const bool v6_clip = has_v6_fields(*clip_in);
          if (v6_clip && format_version_ < 6 && v6_in_old[0] == 0)
            std::snprintf(v6_in_old, sizeof v6_in_old,
                          "rig %u clip %u: format %u has no clip key storage", r, c,
                          format_version_);
          ClipStorage storage;
          std::vector<std::span<const float>> tracks;
          ClipKeyStore store{&decoded_->clip_keys, &decoded_->clip_key_floats,
                             &decoded_->clip_values};
          if (v6_clip) {
            if (Result<void> s = read_storage(*clip_in, r, c, &storage); !s) return s.error();
            if (Result<void> t =
                    read_tracks(*clip_in, r, c, &store, &tracks, &storage.stored_bytes);
                !t)
              return t.error();
          }
          if (const auto* channels = clip_in->channels()) {
            for (flatbuffers::uoffset_t k = 0; k < channels->size(); ++k) {
              const fb::Channel* ch = channels->Get(k);
              const bool v6_channel = has_v6_fields(*ch);
              if (v6_channel && format_version_ < 6 && v6_in_old[0] == 0)
                std::snprintf(v6_in_old, sizeof v6_in_old,
                              "rig %u clip %u channel %u: format %u has no clip key storage", r, c,
                              k, format_version_);
              if (!v6_channel && (!ch->times() || !ch->values()))
                return bad("rig %u clip %u channel %u has no keys", r, c, k);
              const auto prop = static_cast<uint8_t>(ch->property());
              const auto interp = static_cast<uint8_t>(ch->interpolation());
              if (prop > 3 || interp > 2)
                return bad("rig %u clip %u channel %u: bad enum", r, c, k);
              // Version 5: Weights channels, with their width (checked against the rig's
              // morph sets by Rig::create); no other channel has a width.
              const bool weights = prop == static_cast<uint8_t>(Property::kWeights);
              if ((weights || ch->width() != 0) && format_version_ < 5)
                return bad("rig %u clip %u channel %u: format %u has no weights channels", r, c, k,
                           format_version_);
              if (!weights && ch->width() != 0)
                return bad("rig %u clip %u channel %u: width %u on a %s channel", r, c, k,
                           unsigned{ch->width()}, property_name(static_cast<Property>(prop)));
              if (v6_channel) {
                Channel decoded{ch->joint(),
                                static_cast<Property>(prop),
                                static_cast<Interpolation>(interp),
                                {},
                                {},
                                ch->width()};
                if (Result<void> d = read_v6_channel(*ch, *clip_in, r, c, k, tracks, &store,
                                                     &decoded, &storage.stored_bytes);
                    !d)
                  return d.error();
                clip.add_channel_view(decoded);
                continue;
              }
              clip.add_channel_view(Channel{ch->joint(),
                                            static_cast<Property>(prop),
                                            static_cast<Interpolation>(interp),
                                            {ch->times()->data(), ch->times()->size()},
                                            {ch->values()->data(), ch->values()->size()},
                                            ch->width()});
            }
          }
          if (v6_clip) clip.set_storage(storage);
          if (const auto* events = clip_in->events()) {
            if (events->size() > kMaxClipEvents)
              return bad("rig %u clip %u: %u events, at most %u", r, c, events->size(),
                         kMaxClipEvents);
            // In time order, so that each add_event appends (linear, not quadratic).
            std::vector<flatbuffers::uoffset_t> order(events->size());
            for (flatbuffers::uoffset_t e = 0; e < events->size(); ++e) {
              const std::string_view name = view(events->Get(e)->name());
              if (!valid_utf8(name) || !budget.take(0, name.size()))
                return bad("rig %u clip %u event %u: a bad name", r, c, e);
              if (!std::isfinite(events->Get(e)->time()))
                return bad("rig %u clip %u event %u: the time is not finite", r, c, e);
              order[e] = e;
            }
            std::stable_sort(order.begin(), order.end(),
                             [&](flatbuffers::uoffset_t x, flatbuffers::uoffset_t y) {
                               return events->Get(x)->time() < events->Get(y)->time();
                             });
            for (const flatbuffers::uoffset_t e : order)
              clip.add_event(std::string(view(events->Get(e)->name())), events->Get(e)->time());
          }
          const auto additive = static_cast<uint8_t>(clip_in->additive());
          if (additive > 2) return bad("rig %u clip %u: bad additive reference %u", r, c, additive);
          clip.set_additive(static_cast<AdditiveReference>(additive));
          // An additive clip keeps its source's duration when the channels that add
          // nothing (keyed latest, perhaps) were left out: its keys may end before it.
          if (additive != 0 && std::isfinite(clip_in->duration()) &&
              clip_in->duration() > clip.duration() && clip_in->duration() <= kMaxClipSeconds) {
            clip.extend_duration(clip_in->duration());
          }
          if (clip.duration() != clip_in->duration()) {
            return bad("rig %u clip %u: duration %g, keys end at %g", r, c,
                       static_cast<double>(clip_in->duration()),
                       static_cast<double>(clip.duration()));
          }
          entry.clip_animations.push_back(clip_in->source_animation());
          clips.push_back(std::move(clip));
        }
      }
      std::vector<MorphSet> morph_sets;
      if (const auto* sets = in->morph_sets()) {
        if (Result<void> m = read_morph_sets(*sets, r, format_version_, &budget, &morph_sets,
                                             &entry.morph_nodes);
            !m) {
          return m.error();
        }
      }
      // One weights channel per morph set in a clip (the Animator samples each set once).
      std::vector<uint32_t> seen(morph_sets.size(), UINT32_MAX);
      for (uint32_t c = 0; c < clips.size(); ++c) {
        for (const Channel& ch : clips[c].channels()) {
          if (ch.property != Property::kWeights || ch.joint >= seen.size()) continue;
          if (seen[ch.joint] == c)
            return bad("rig %u clip %u: two weights channels on morph set %u", r, c,
                       unsigned{ch.joint});
          seen[ch.joint] = c;
        }
      }
      Result<Rig> rig = Rig::create(std::move(*skeleton), std::move(clips), std::move(morph_sets));
      if (!rig) return bad("rig %u: %s", r, rig.error().message());
      if (animator_bytes(*rig, static_cast<uint64_t>(rig->max_event_count())) > kMaxPlayBytes)
        return bad("rig %u: an animator would need more than %llu bytes", r,
                   static_cast<unsigned long long>(kMaxPlayBytes));
      entry.rig = std::move(*rig);
      rigs_.push_back(std::move(entry));
    }
  }

  // Meshes and parts: blob sizes against counts (contents checked when decoded).
  std::vector<size_t> joint_bound_counts;  // per mesh
  if (const auto* meshes = root->meshes()) {
    for (flatbuffers::uoffset_t m = 0; m < meshes->size(); ++m) {
      const fb::Mesh* in = meshes->Get(m);
      MeshInfo info;
      info.name = view(in->name());
      info.source_file = view(in->source_file());
      info.rig = in->rig();
      if (!valid_utf8(info.name) || !valid_utf8(info.source_file))
        return bad("mesh %u: a name is not UTF-8", m);
      if (!budget.take((in->parts() ? uint64_t{in->parts()->size()} * 8 : 0) + 1))
        return bad("mesh %u: more parts than the file holds", m);
      if (info.rig < -1 || info.rig >= rig_count()) return bad("mesh %u names rig %d", m, info.rig);
      info.first_part = static_cast<int>(parts_.size());
      const int joint_count =
          info.rig >= 0 ? rigs_[static_cast<size_t>(info.rig)].rig.skeleton().joint_count() : 0;
      if (const auto* parts = in->parts()) {
        for (flatbuffers::uoffset_t p = 0; p < parts->size(); ++p) {
          const fb::Part* part = parts->Get(p);
          PartInfo pi;
          pi.mesh = static_cast<int>(m);
          pi.source_node = part->source_node();
          pi.source_mesh = part->source_mesh();
          pi.source_primitive = part->source_primitive();
          pi.joint = part->joint();
          pi.vertex_count = part->vertex_count();
          pi.index_count = part->index_count();
          pi.skinned = part->joints() != nullptr;
          pi.material = part->material();
          pi.normals_generated = part->normals_generated();
          pi.tangents_generated = part->tangents_generated();
          if (pi.joint < -1 || pi.joint >= joint_count)
            return bad("mesh %u part %u names joint %d", m, p, pi.joint);
          if (pi.material < -1 || pi.material >= static_cast<int>(materials_.size()))
            return bad("mesh %u part %u names material %d", m, p, pi.material);
          if (pi.material >= 0) {
            // Every texture the material samples reads a uv set the part has; a normal
            // map needs normals and tangents.
            const MaterialInfo& mat = materials_[static_cast<size_t>(pi.material)];
            for (const TextureSlot* slot :
                 {&mat.base_color_texture, &mat.metallic_roughness_texture, &mat.normal_texture,
                  &mat.occlusion_texture, &mat.emissive_texture}) {
              if (slot->texture >= 0 &&
                  !(slot->uv_set == 0 ? part->texcoords0() : part->texcoords1())) {
                return bad("mesh %u part %u: material %d samples texcoords%d, which it lacks", m, p,
                           pi.material, slot->uv_set);
              }
            }
            if (mat.normal_texture.texture >= 0 && !(part->normals() && part->tangents())) {
              return bad("mesh %u part %u: material %d has a normal map, the part no tangents", m,
                         p, pi.material);
            }
          }
          if (pi.skinned && (!part->weights() || info.rig < 0)) {
            return bad("mesh %u part %u has joints without weights or rig", m, p);
          }
          if (!part->positions() || !part->indices() || !part->source_vertices()) {
            return bad("mesh %u part %u lacks positions, indices or source vertices", m, p);
          }
          if (pi.index_count % 3 != 0)
            return bad("mesh %u part %u: %u indices are not triangles", m, p, pi.index_count);
          const uint64_t n = pi.vertex_count;
          // Version 5: influences 5 to 8, and morph targets of a set of the mesh's rig.
          const bool v5_fields = part->joints1() || part->weights1() || part->morph_set() != -1 ||
                                 part->morph_targets() != 0 || part->morph_positions() ||
                                 part->morph_normals() || part->morph_tangents();
          if (v5_fields && format_version_ < 5)
            return bad("mesh %u part %u: format %u has no morph targets or eight influences", m, p,
                       format_version_);
          if ((part->joints1() != nullptr) != (part->weights1() != nullptr) ||
              (part->joints1() && !pi.skinned)) {
            return bad("mesh %u part %u: joints1 and weights1 come together, on a skinned part", m,
                       p);
          }
          pi.eight_influences = part->joints1() != nullptr;
          pi.morph_set = part->morph_set();
          pi.morph_targets = part->morph_targets();
          const size_t sets =
              info.rig >= 0 ? rigs_[static_cast<size_t>(info.rig)].rig.morph_sets().size() : 0;
          if (pi.morph_set < -1 || (pi.morph_set >= 0 && static_cast<size_t>(pi.morph_set) >= sets))
            return bad("mesh %u part %u names morph set %d of %zu in its rig", m, p, pi.morph_set,
                       sets);
          const uint32_t want_targets =
              pi.morph_set >= 0 ? rigs_[static_cast<size_t>(info.rig)]
                                      .rig.morph_sets()[static_cast<size_t>(pi.morph_set)]
                                      .size()
                                : 0;
          if (pi.morph_targets != want_targets)
            return bad("mesh %u part %u: %u morph targets, its morph set %d has %u", m, p,
                       pi.morph_targets, pi.morph_set, want_targets);
          if (pi.morph_set < 0 &&
              (part->morph_positions() || part->morph_normals() || part->morph_tangents()))
            return bad("mesh %u part %u: morph deltas without a morph set", m, p);
          const uint64_t deltas = uint64_t{pi.morph_targets} * n * 12;  // <= 256 x 2^32 x 12
          const struct {
            const fb::Blob* blob;
            uint64_t size;
            uint32_t element;  // bytes
            const char* name;
          } expect[] = {{part->positions(), n * 12, 12, "positions"},
                        {part->normals(), n * 12, 12, "normals"},
                        {part->tangents(), n * 16, 16, "tangents"},
                        {part->joints(), n * 8, 8, "joints"},
                        {part->weights(), n * 16, 16, "weights"},
                        {part->indices(), uint64_t{pi.index_count} * 4, 4, "indices"},
                        {part->source_vertices(), n * 4, 4, "source vertices"},
                        {part->texcoords0(), n * 8, 8, "texcoords0"},
                        {part->texcoords1(), n * 8, 8, "texcoords1"},
                        {part->colors(), n * 16, 16, "colors"},
                        {part->joints1(), n * 8, 8, "joints1"},
                        {part->weights1(), n * 16, 16, "weights1"},
                        {part->morph_positions(), deltas, 12, "morph positions"},
                        {part->morph_normals(), deltas, 12, "morph normals"},
                        {part->morph_tangents(), deltas, 12, "morph tangents"}};
          for (const auto& e : expect) {
            if (!e.blob) continue;
            const BlobCheck check = note_blob(*e.blob, e.size, e.element);
            if (check == kBlobBadSize)
              return bad("mesh %u part %u: the %s blob does not hold %llu bytes", m, p, e.name,
                         static_cast<unsigned long long>(e.size));
            if (check == kBlobNewerCodec)
              return bad("mesh %u part %u: the %s blob: %s in format %u", m, p, e.name,
                         blob_problem(check), format_version_);
            if (check != kBlobOk) return bad("mesh %u part %u: %s", m, p, blob_problem(check));
          }
          parts_.push_back(pi);
        }
      }
      info.part_count = static_cast<int>(parts_.size()) - info.first_part;
      // Bounds (version 2): finite boxes, joints of the mesh's rig, ascending.
      MeshBounds bounds;
      if (const fb::Boxf* box = in->bounds()) {
        if (!valid_box(box->lo(), box->hi())) return bad("mesh %u: bad bounds", m);
        bounds.bind = {to_vec3(box->lo()), to_vec3(box->hi())};
      }
      if (const fb::Boxf* box = in->static_bounds()) {
        if (!valid_box(box->lo(), box->hi())) return bad("mesh %u: bad static bounds", m);
        bounds.fixed = {to_vec3(box->lo()), to_vec3(box->hi())};
      }
      if (const auto* jb = in->joint_bounds()) {
        if (!budget.take(uint64_t{jb->size()} * 24))
          return bad("mesh %u: more joint bounds than the file holds", m);
        for (flatbuffers::uoffset_t k = 0; k < jb->size(); ++k) {
          const fb::JointBoundsf* j = jb->Get(k);
          if (j->joint() >= joint_count || (k > 0 && j->joint() <= jb->Get(k - 1)->joint()) ||
              !finite(j->frame()) || !valid_box(j->lo(), j->hi())) {
            return bad(
                "mesh %u joint bounds %u: a joint outside the rig, out of order, or a "
                "bad box",
                m, k);
          }
          joint_bounds_.push_back(
              {j->joint(), to_mat4(j->frame()), to_vec3(j->lo()), to_vec3(j->hi())});
        }
      }
      if ((in->static_bounds() || in->joint_bounds()) && !in->bounds())
        return bad("mesh %u: joint or static bounds without bounds", m);
      // Axes (version 4): unit and perpendicular; absent, glTF's +Y up and +Z forward.
      if (in->up()) info.up = to_vec3(*in->up());
      if (in->forward()) info.forward = to_vec3(*in->forward());
      if (!unit_axis(info.up) || !unit_axis(info.forward))
        return bad("mesh %u: the up or forward axis is not finite and unit", m);
      if (std::fabs(dot_d(info.up, info.forward)) > 1e-4)
        return bad("mesh %u: the up and forward axes are not perpendicular", m);
      bounds_.push_back(bounds);
      joint_bound_counts.push_back(in->joint_bounds() ? in->joint_bounds()->size() : 0);
      meshes_.push_back(info);
    }
  }
  // The joint bounds are all read: point each mesh at its share.
  for (size_t m = 0, first = 0; m < bounds_.size(); first += joint_bound_counts[m++])
    bounds_[m].joints =
        std::span<const JointBounds>(joint_bounds_).subspan(first, joint_bound_counts[m]);

  // Sprite sheets: the atlas and clips go through the runtime's own checks.
  if (const auto* sheets = root->sprite_sheets()) {
    for (flatbuffers::uoffset_t s = 0; s < sheets->size(); ++s) {
      const fb::SpriteSheet* in = sheets->Get(s);
      if (!in->frames() || !in->pixels()) return bad("sprite sheet %u lacks frames or pixels", s);
      if (in->width() == 0 || in->height() == 0 || in->width() > kMaxSpriteSide ||
          in->height() > kMaxSpriteSide) {
        return bad("sprite sheet %u is %ux%u, at most %u on a side", s, in->width(), in->height(),
                   kMaxSpriteSide);
      }
      if (!valid_utf8(view(in->source_file())))
        return bad("sprite sheet %u: the source file is not UTF-8", s);
      if (!budget.take(uint64_t{in->frames()->size()} * 4 + 1))
        return bad("sprite sheet %u: more frames than the file holds", s);
      // Version 7: placements and frame names, one per frame, through Atlas::create.
      const auto* placements = in->placements();
      const auto* names = in->frame_names();
      if ((placements || names) && format_version_ < 7)
        return bad("sprite sheet %u: format %u has no frame placements or names", s,
                   format_version_);
      const uint32_t frame_count = in->frames()->size();
      if (placements && placements->size() != frame_count)
        return bad("sprite sheet %u: %u placements for %u frames", s, placements->size(),
                   frame_count);
      if (names && names->size() != frame_count)
        return bad("sprite sheet %u: %u frame names for %u frames", s, names->size(), frame_count);
      std::vector<AtlasFrame> atlas_frames(frame_count);
      for (uint32_t f = 0; f < frame_count; ++f) {
        const fb::PixelRect* r = in->frames()->Get(f);
        AtlasFrame& out = atlas_frames[f];
        out.rect = {r->x(), r->y(), r->width(), r->height()};
        if (placements) {
          const fb::FramePlacementf* p = placements->Get(f);
          if (p->padding0() != 0 || p->padding1() != 0)
            return bad("sprite sheet %u frame %u: placement padding is not zero", s, f);
          const fb::PixelRect& t = p->trimmed();
          out.placement.source = {p->source_width(), p->source_height()};
          out.placement.trimmed = {t.x(), t.y(), t.width(), t.height()};
          out.placement.rotated = p->rotated();
          out.placement.pivot_x = p->pivot_x();
          out.placement.pivot_y = p->pivot_y();
        } else {
          out.placement.source = {r->width(), r->height()};
          out.placement.trimmed = {0, 0, r->width(), r->height()};
          out.placement.pivot_x = static_cast<float>(r->width()) * 0.5f;
          out.placement.pivot_y = static_cast<float>(r->height()) * 0.5f;
        }
        if (names) {
          const std::string_view name = view(names->Get(f));
          if (!valid_utf8(name) || !budget.take(1, name.size()))
            return bad("sprite sheet %u frame %u: a bad name or more than the file holds", s, f);
          out.name = std::string(name);
        }
      }
      Result<Atlas> atlas = Atlas::create({in->width(), in->height()}, std::move(atlas_frames));
      if (!atlas) return bad("sprite sheet %u: %s", s, atlas.error().message());
      std::vector<SpriteClip> clips;
      if (const auto* cin = in->clips()) {
        for (flatbuffers::uoffset_t c = 0; c < cin->size(); ++c) {
          const fb::SpriteClip* clip = cin->Get(c);
          if (!valid_playback(clip->playback()))
            return bad("sprite sheet %u clip %u: bad playback", s, c);
          const std::string_view clip_name = view(clip->name());
          const auto* durations = clip->durations_ms();  // version 7
          if ((durations || clip->reverse()) && format_version_ < 7)
            return bad("sprite sheet %u clip %u: format %u has no timed or reversed clips", s, c,
                       format_version_);
          if (clip->reverse() && !durations)
            return bad("sprite sheet %u clip %u: reversed without durations", s, c);
          if (!valid_utf8(clip_name) ||
              !budget.take(1 + (clip->frames() ? clip->frames()->size() : 0) +
                               (durations ? durations->size() : 0) +
                               (clip->events() ? uint64_t{clip->events()->size()} * 2 : 0),
                           clip_name.size())) {
            return bad("sprite sheet %u clip %u: a bad name or more than the file holds", s, c);
          }
          std::vector<uint32_t> frames;
          if (clip->frames()) frames.assign(clip->frames()->begin(), clip->frames()->end());
          std::vector<FrameEvent> events;
          if (clip->events()) {
            if (clip->events()->size() > kMaxClipEvents)
              return bad("sprite sheet %u clip %u: %u events, at most %u", s, c,
                         clip->events()->size(), kMaxClipEvents);
            for (const fb::FrameEvent* e : *clip->events()) {
              const std::string_view name = view(e->name());
              if (!valid_utf8(name) || !budget.take(0, name.size()))
                return bad("sprite sheet %u clip %u: an event name is not UTF-8", s, c);
              events.push_back({std::string(name), e->frame()});
            }
          }
          Result<SpriteClip> sc =
              durations
                  ? SpriteClip::create_timed(
                        std::string(clip_name), std::move(frames),
                        std::vector<uint32_t>(durations->begin(), durations->end()),
                        static_cast<Playback>(clip->playback()), clip->reverse(), std::move(events))
                  : SpriteClip::create(std::string(clip_name), std::move(frames), clip->fps(),
                                       static_cast<Playback>(clip->playback()), std::move(events));
          if (!sc) return bad("sprite sheet %u clip %u: %s", s, c, sc.error().message());
          clips.push_back(std::move(*sc));
        }
      }
      Result<SpriteSheet> sheet = SpriteSheet::create(std::move(*atlas), std::move(clips));
      if (!sheet) return bad("sprite sheet %u: %s", s, sheet.error().message());
      const uint64_t pixels = uint64_t{in->width()} * in->height() * 4;
      const BlobCheck check = note_blob(*in->pixels(), pixels, 1);
      if (check == kBlobBadSize)
        return bad("sprite sheet %u: pixels do not hold %ux%u RGBA8", s, in->width(), in->height());
      if (check != kBlobOk) return bad("sprite sheet %u: %s", s, blob_problem(check));
      sheets_.push_back(std::move(*sheet));
    }
  }

  // Objects and their animation.
  uint64_t play_bytes = 0;  // what ScenePlayer::create allocates, at most
  if (const auto* objects = root->objects()) {
    for (flatbuffers::uoffset_t o = 0; o < objects->size(); ++o) {
      const fb::Object* in = objects->Get(o);
      ObjectInfo info;
      info.name = view(in->name());
      info.mesh = in->mesh();
      info.material = view(in->material());
      info.face_camera = in->face_camera();
      info.content = view(in->content());
      if (!valid_utf8(info.name) || !valid_utf8(info.material) || !valid_utf8(info.content))
        return bad("object %u: a string is not UTF-8", o);
      if (!budget.take(4)) return bad("object %u: more objects than the file holds", o);
      if (info.mesh < -1 || info.mesh >= static_cast<int>(meshes_.size()))
        return bad("object %u names mesh %d", o, info.mesh);
      if (in->position())
        info.position = {in->position()->x(), in->position()->y(), in->position()->z()};
      if (in->rotation())
        info.rotation = {in->rotation()->x(), in->rotation()->y(), in->rotation()->z(),
                         in->rotation()->w()};
      if (in->scale()) info.scale = {in->scale()->x(), in->scale()->y(), in->scale()->z()};
      if ((in->position() && !finite(*in->position())) ||
          (in->rotation() && !finite(*in->rotation())) || (in->scale() && !finite(*in->scale()))) {
        return bad("object %u has a non-finite transform", o);
      }
      if (const fb::Animation* a = in->animation()) {
        info.animated = true;
        ObjectAnimationInfo& anim = info.animation;
        anim.clip = a->clip();
        anim.speed = a->speed();
        anim.start = a->start();
        anim.sprite_sheet = a->sprite_sheet();
        if (!valid_playback(a->playback())) return bad("object %u: bad playback", o);
        anim.playback = static_cast<Playback>(a->playback());
        if (!(std::isfinite(anim.speed) && anim.speed >= 0.0f))
          return bad("object %u: bad speed", o);
        if (!(std::isfinite(anim.start) && anim.start >= 0.0f))
          return bad("object %u: bad start", o);
        int clip_count = 0;
        const Rig* rig = nullptr;
        const SpriteSheet* sheet = nullptr;
        if (anim.sprite_sheet >= 0) {
          if (anim.sprite_sheet >= static_cast<int>(sheets_.size()))
            return bad("object %u names sprite sheet %d", o, anim.sprite_sheet);
          sheet = &sheets_[static_cast<size_t>(anim.sprite_sheet)];
          clip_count = static_cast<int>(sheet->clips().size());
        } else if (anim.sprite_sheet != -1) {
          return bad("object %u names sprite sheet %d", o, anim.sprite_sheet);
        } else if (info.mesh >= 0 && meshes_[static_cast<size_t>(info.mesh)].rig >= 0) {
          rig = &rigs_[static_cast<size_t>(meshes_[static_cast<size_t>(info.mesh)].rig)].rig;
          clip_count = rig->clip_count();
        }
        if (anim.clip < -1 || anim.clip >= clip_count)
          return bad("object %u plays clip %d of %d", o, anim.clip, clip_count);
        if (const auto* blend = a->blend()) {
          if (sheet || blend->size() > static_cast<flatbuffers::uoffset_t>(kMaxLayers))
            return bad("object %u: bad blend", o);
          if (!budget.take(blend->size())) return bad("object %u: bad blend", o);
          for (const fb::BlendEntry* b : *blend) {
            if (b->clip() >= clip_count || !(std::isfinite(b->weight()) && b->weight() > 0.0f)) {
              return bad("object %u blends clip %u by %g", o, unsigned{b->clip()},
                         static_cast<double>(b->weight()));
            }
            anim.blend.push_back({b->clip(), b->weight()});
          }
        }
        if (const auto* events = a->events()) {
          if (events->size() > kMaxClipEvents || !budget.take(uint64_t{events->size()} * 2))
            return bad("object %u: %u events, at most %u", o, events->size(), kMaxClipEvents);
          for (const fb::ObjectEvent* e : *events) {
            if (!valid_utf8(view(e->name())))
              return bad("object %u: an event name is not UTF-8", o);
            if (e->clip() >= clip_count)
              return bad("object %u: an event names clip %u", o, unsigned{e->clip()});
            if (rig) {
              const float d = rig->clips()[e->clip()].duration();
              if (!(std::isfinite(e->time()) && e->time() >= 0.0f && e->time() <= d)) {
                return bad("object %u: an event at %g is outside its clip", o,
                           static_cast<double>(e->time()));
              }
            } else if (sheet && e->frame() >= sheet->clips()[e->clip()].frames().size()) {
              return bad("object %u: an event names frame %u", o, e->frame());
            }
            anim.events.push_back({view(e->name()), e->clip(), e->time(), e->frame()});
          }
        }
        if (sheet) {
          play_bytes += sprite_player_bytes(sheet->max_event_count() + anim.events.size()) +
                        sprite_timeline_bytes(*sheet);
          if (!anim.events.empty()) play_bytes += sheet_copy_bytes(*sheet);
        }
        if (const fb::Graph* graph = a->graph()) {
          // Version 3: a state machine plays a rig's clips, so only a skeletal object
          // whose mesh has a rig may have one.
          if (sheet) return bad("object %u: a graph on a sprite object", o);
          if (!rig) return bad("object %u: a graph on an object without a rig", o);
          GraphDef def;
          if (Result<void> r = read_graph(*graph, *rig, o, &budget, &def); !r) return r.error();
          if (Result<void> r = def.validate(*rig); !r)
            return bad("object %u graph: %s", o, r.error().message());
          play_bytes += graph_bytes(def, *rig);
          anim.graph = std::move(def);
        }
        // Version 4: root motion and IK move a rig's joints, so only a skeletal object
        // whose mesh has a rig may have them.
        const auto* solvers = a->ik();
        if ((a->root_motion() || (solvers && solvers->size() > 0)) && !rig) {
          return bad("object %u: %s on %s", o, a->root_motion() ? "root motion" : "IK",
                     sheet ? "a sprite object" : "an object without a rig");
        }
        if (const fb::RootMotion* rm = a->root_motion()) {
          RootMotionConfig config;
          if (Result<void> r = read_root_motion(*rm, *rig, meshes_[static_cast<size_t>(info.mesh)],
                                                o, &budget, &config, &anim.root_tracks);
              !r) {
            return r.error();
          }
          play_bytes += root_motion_bytes(*rig);
          anim.root_motion = config;
        }
        if (solvers && solvers->size() > 0) {
          if (Result<void> r = read_ik(*solvers, *rig, meshes_[static_cast<size_t>(info.mesh)].up,
                                       o, &budget, &anim.ik);
              !r) {
            return r.error();
          }
          play_bytes += ik_bytes(anim.ik, *rig);
        }
      }
      play_bytes += 512;
      const bool sprite = info.animated && info.animation.sprite_sheet >= 0;
      const int mesh_rig = info.mesh >= 0 ? meshes_[static_cast<size_t>(info.mesh)].rig : -1;
      if (!sprite && mesh_rig >= 0) {
        const Rig& rig = rigs_[static_cast<size_t>(mesh_rig)].rig;
        const uint64_t events = info.animation.events.size();
        play_bytes += animator_bytes(rig, static_cast<uint64_t>(rig.max_event_count()) + events);
        if (events > 0) play_bytes += rig_copy_bytes(rig);
      }
      if (play_bytes > kMaxPlayBytes) {
        return bad("object %u: playing the scene would need more than %llu bytes", o,
                   static_cast<unsigned long long>(kMaxPlayBytes));
      }
      objects_.push_back(std::move(info));
    }
  }

  if (v6_in_old[0] != 0) return bad("%s", v6_in_old);
  decoded_->part_checked.assign(parts_.size(), 0);
  return ok();
}

namespace {

// Version 6: a meshoptimizer-coded blob (load() checked its codec, element size and ratio)
// decoded into `out`, `expected` bytes; first out of LZ4 into a scratch buffer of at most
// the codec's worst-case size (and at most 255 x the LZ4 data) when under LZ4. The
// decoders refuse data that does not hold exactly `expected` bytes' worth of elements and
// never read past `size` bytes or write past `expected`.
Result<void> decode_meshopt(const fb::Blob& b, uint64_t expected, void* out, const char* what) {
  const auto c = static_cast<uint8_t>(b.compression());
  const MeshoptCodec codec = meshopt_codec(c);
  const size_t element = b.element_size();
  const size_t count = static_cast<size_t>(expected / element);
  const uint8_t* data = b.data()->data();
  size_t size = b.data()->size();
  std::unique_ptr<uint8_t[]> scratch;
  if (under_lz4(c)) {
    // Every encoder's bound for `count` elements (indices of up to 2^32 vertices).
    const size_t bound = codec == kMeshoptVertex ? meshopt_encodeVertexBufferBound(count, element)
                         : codec == kMeshoptIndex
                             ? meshopt_encodeIndexBufferBound(count, size_t{1} << 32)
                             : meshopt_encodeIndexSequenceBound(count, size_t{1} << 32);
    const uint64_t cap = std::min<uint64_t>(
        {bound, uint64_t{size} * kLz4MaxRatio, uint64_t{std::numeric_limits<int>::max()}});
    scratch.reset(new uint8_t[static_cast<size_t>(cap)]);
    const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(data),
                                        reinterpret_cast<char*>(scratch.get()),
                                        static_cast<int>(size), static_cast<int>(cap));
    if (got <= 0) return bad("%s: the LZ4 layer of a meshoptimizer blob does not decode", what);
    data = scratch.get();
    size = static_cast<size_t>(got);
  }
  const int rc = codec == kMeshoptVertex
                     ? meshopt_decodeVertexBuffer(out, count, element, data, size)
                 : codec == kMeshoptIndex ? meshopt_decodeIndexBuffer(out, count, 4, data, size)
                                          : meshopt_decodeIndexSequence(out, count, 4, data, size);
  if (rc != 0) {
    static const char* const kNames[] = {"vertex", "index", "index sequence"};
    return bad("%s: malformed meshoptimizer %s data (error %d) for %llu bytes", what, kNames[codec],
               rc, static_cast<unsigned long long>(expected));
  }
  return ok();
}

}  // namespace

Result<std::span<const uint8_t>> Pack::blob(const void* blob_ptr, uint64_t expected,
                                            const char* what) const {
  const auto* b = static_cast<const fb::Blob*>(blob_ptr);
  if (!b) return std::span<const uint8_t>();
  if (b->compression() == fb::Compression::None) {
    return std::span<const uint8_t>(b->data()->data(), b->data()->size());
  }
  // load() gave every blob it accepted a slot (an LZ4 blob's data decodes to `expected`).
  const auto it = decoded_->slot_of.find(b->data()->data());
  if (it == decoded_->slot_of.end()) return bad("%s: a blob load() did not check", what);
  Decoded::Slot& cache = decoded_->slots[it->second];
  if (!cache.words && expected > 0) {
    // expected <= kMaxBlobBytes and <= 255 x the LZ4 data (load() checked both).
    cache.words.reset(new uint64_t[(expected + 7) / 8]);
    const auto c = static_cast<uint8_t>(b->compression());
    if (c == 1) {
      const int got =
          LZ4_decompress_safe(reinterpret_cast<const char*>(b->data()->data()),
                              reinterpret_cast<char*>(cache.words.get()),
                              static_cast<int>(b->data()->size()), static_cast<int>(expected));
      if (got < 0 || static_cast<uint64_t>(got) != expected) {
        cache.words.reset();
        return bad("%s does not decode to %llu bytes", what,
                   static_cast<unsigned long long>(expected));
      }
    } else if (Result<void> r = decode_meshopt(*b, expected, cache.words.get(), what); !r) {
      cache.words.reset();
      return r.error();
    }
  }
  return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(cache.words.get()), expected);
}

namespace {

// The content checks of part_streams, each run once per distinct blob (Pack::Decoded):
// what one found is kept in the blob's slot, so every other part naming it costs O(1).
template <typename Slot>
uint32_t max_u32(Slot& slot, std::span<const uint32_t> v, uint8_t bit) {
  if (!(slot.ran & bit)) {
    uint32_t m = 0;
    for (const uint32_t x : v) m = std::max(m, x);
    slot.max_u32 = m;
    slot.ran |= bit;
  }
  return slot.max_u32;
}

template <typename Slot>
uint16_t max_u16(Slot& slot, std::span<const JointIndices> v, uint8_t bit) {
  if (!(slot.ran & bit)) {
    uint16_t m = 0;
    for (const JointIndices& j : v)
      for (const uint16_t k : j.j) m = std::max(m, k);
    slot.max_u16 = m;
    slot.ran |= bit;
  }
  return slot.max_u16;
}

template <typename Slot>
bool all_finite(Slot& slot, std::span<const uint8_t> bytes, uint8_t bit) {
  if (!(slot.ran & bit)) {
    bool ok = true;
    const size_t n = bytes.size() / 4;
    for (size_t i = 0; i < n && ok; ++i) {
      float f;
      std::memcpy(&f, bytes.data() + i * 4, 4);
      ok = finite(f);
    }
    slot.finite = ok;
    slot.ran |= bit;
  }
  return slot.finite;
}

template <typename T>
std::span<const T> as(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
}

}  // namespace

Result<PartStreams> Pack::part_streams(int part) const {
  if (part < 0 || static_cast<size_t>(part) >= parts_.size()) {
    return Error::make(ErrorCode::kInvalidArgument, "no part %d", part);
  }
  const PartInfo& info = parts_[static_cast<size_t>(part)];
  const fb::AssetPack* root = fb::GetAssetPack(data_);
  const fb::Part* p = root->meshes()
                          ->Get(static_cast<flatbuffers::uoffset_t>(info.mesh))
                          ->parts()
                          ->Get(static_cast<flatbuffers::uoffset_t>(
                              part - meshes_[static_cast<size_t>(info.mesh)].first_part));
  const uint64_t n = info.vertex_count;
  const uint64_t deltas = uint64_t{info.morph_targets} * n * 12;
  PartStreams s;
  const struct {
    const fb::Blob* blob;
    uint64_t bytes;
    const char* what;
  } streams[] = {{p->positions(), n * 12, "positions"},
                 {p->normals(), n * 12, "normals"},
                 {p->tangents(), n * 16, "tangents"},
                 {p->joints(), n * 8, "joints"},
                 {p->weights(), n * 16, "weights"},
                 {p->indices(), uint64_t{info.index_count} * 4, "indices"},
                 {p->source_vertices(), n * 4, "source vertices"},
                 {p->texcoords0(), n * 8, "texcoords0"},
                 {p->texcoords1(), n * 8, "texcoords1"},
                 {p->colors(), n * 16, "colors"},
                 {p->joints1(), n * 8, "joints1"},
                 {p->weights1(), n * 16, "weights1"},
                 {p->morph_positions(), deltas, "morph positions"},
                 {p->morph_normals(), deltas, "morph normals"},
                 {p->morph_tangents(), deltas, "morph tangents"}};
  constexpr size_t kStreams = sizeof streams / sizeof streams[0];
  std::span<const uint8_t> bytes[kStreams];
  for (size_t k = 0; k < kStreams; ++k) {
    Result<std::span<const uint8_t>> r = blob(streams[k].blob, streams[k].bytes, streams[k].what);
    if (!r) {
      // Name the mesh and part (mesh-relative, as load() does) with the stream.
      return bad("mesh %d part %d: %s", info.mesh,
                 part - meshes_[static_cast<size_t>(info.mesh)].first_part,
                 r.error().message() +
                     (std::strncmp(r.error().message(), "bad pack: ", 10) == 0 ? 10 : 0));
    }
    bytes[k] = *r;
  }
  s.positions = as<Vec3>(bytes[0]);
  s.normals = as<Vec3>(bytes[1]);
  s.tangents = as<Vec4>(bytes[2]);
  s.joints = as<JointIndices>(bytes[3]);
  s.weights = as<Vec4>(bytes[4]);
  s.indices = as<uint32_t>(bytes[5]);
  s.source_vertices = as<uint32_t>(bytes[6]);
  s.texcoords0 = as<Vec2>(bytes[7]);
  s.texcoords1 = as<Vec2>(bytes[8]);
  s.colors = as<Vec4>(bytes[9]);
  s.joints1 = as<JointIndices>(bytes[10]);
  s.weights1 = as<Vec4>(bytes[11]);
  s.morph.targets = info.morph_targets;
  s.morph.positions = as<Vec3>(bytes[12]);
  s.morph.normals = as<Vec3>(bytes[13]);
  s.morph.tangents = as<Vec3>(bytes[14]);

  if (!decoded_->part_checked[static_cast<size_t>(part)]) {
    const auto slot = [&](size_t k) -> Decoded::Slot& {
      return decoded_->slots[decoded_->slot_of.find(streams[k].blob->data()->data())->second];
    };
    if (!s.indices.empty() && max_u32(slot(5), s.indices, Decoded::kRanU32) >= n) {
      return bad("part %d: an index of %llu vertices is out of range (largest %u)", part,
                 static_cast<unsigned long long>(n), slot(5).max_u32);
    }
    // The cooker writes each vertex's index in its source accessor, which has as many
    // vertices as the part: a larger one would make a reader size its output by it.
    if (!s.source_vertices.empty() && max_u32(slot(6), s.source_vertices, Decoded::kRanU32) >= n) {
      return bad("part %d: source vertex %u of %llu vertices", part, slot(6).max_u32,
                 static_cast<unsigned long long>(n));
    }
    const int rig = meshes_[static_cast<size_t>(info.mesh)].rig;
    const size_t joints =
        rig >= 0 ? static_cast<size_t>(rigs_[static_cast<size_t>(rig)].rig.skeleton().joint_count())
                 : 0;
    for (const size_t k : {size_t{3}, size_t{10}}) {  // joints, joints1
      const auto list = k == 3 ? s.joints : s.joints1;
      if (!list.empty() && max_u16(slot(k), list, Decoded::kRanU16) >= joints)
        return bad("part %d: %s names joint %u of %zu", part, streams[k].what,
                   unsigned{slot(k).max_u16}, joints);
    }
    // Every float of these streams finite (normals and tangents are renormalised).
    for (const size_t k : {size_t{4}, size_t{0}, size_t{7}, size_t{8}, size_t{9}, size_t{11},
                           size_t{12}, size_t{13}, size_t{14}}) {
      if (!bytes[k].empty() && !all_finite(slot(k), bytes[k], Decoded::kRanFinite))
        return bad("part %d: a value of its %s is not finite", part, streams[k].what);
    }
    // Version 5: a vertex's eight weights sum to one (the four alone are used as given).
    if (!s.weights1.empty()) {
      const int64_t with = decoded_->slot_of.find(streams[4].blob->data()->data())->second;
      Decoded::Slot& w1 = slot(11);
      if (w1.sum_checked_with != with) {
        for (size_t v = 0; v < s.weights1.size(); ++v) {
          const Vec4& a = s.weights[v];
          const Vec4& b = s.weights1[v];
          const double sum = double{a.x} + a.y + a.z + a.w + b.x + b.y + b.z + b.w;
          if (!(std::fabs(sum - 1.0) <= kEightWeightSumTolerance))
            return bad("part %d vertex %zu: the eight weights sum to %g, not 1", part, v, sum);
        }
        w1.sum_checked_with = with;
      }
    }
    decoded_->part_checked[static_cast<size_t>(part)] = 1;
  }
  return s;
}

Result<std::span<const uint8_t>> Pack::sprite_pixels(int sheet) const {
  if (sheet < 0 || static_cast<size_t>(sheet) >= sheets_.size()) {
    return Error::make(ErrorCode::kInvalidArgument, "no sprite sheet %d", sheet);
  }
  const fb::SpriteSheet* in =
      fb::GetAssetPack(data_)->sprite_sheets()->Get(static_cast<flatbuffers::uoffset_t>(sheet));
  return blob(in->pixels(), uint64_t{in->width()} * in->height() * 4, "sprite pixels");
}

uint64_t Pack::shared_bytes() const {
  // Every vector, string and blob data a table names, by address: a second name of one
  // address is a copy the writer did not store.
  std::unordered_map<const void*, uint8_t> seen;
  uint64_t saved = 0;
  const auto note = [&](const void* at, uint64_t bytes) {
    if (at && !seen.emplace(at, 0).second) saved += bytes;
  };
  const auto str = [&](const flatbuffers::String* x) {
    if (x) note(x, uint64_t{x->size()} + 5);
  };
  const auto vec = [&](const auto* v) {
    if (v) note(v, uint64_t{v->size()} * sizeof(*v->data()) + 4);
  };
  const auto blob = [&](const fb::Blob* b) {
    if (b && b->data()) note(b->data(), uint64_t{b->data()->size()} + 4);
  };
  const fb::AssetPack* root = fb::GetAssetPack(data_);
  if (const auto* rigs = root->rigs()) {
    for (const fb::Rig* r : *rigs) {
      for (const fb::Joint* j : *r->joints()) str(j->name());
      vec(r->inverse_binds());
      if (const auto* clips = r->clips()) {
        for (const fb::Clip* c : *clips) {
          str(c->name());
          if (c->channels()) {
            for (const fb::Channel* ch : *c->channels()) {
              vec(ch->times());
              vec(ch->values());
              vec(ch->keys());  // version 6
              vec(ch->data());
              vec(ch->lane_min());
              vec(ch->lane_bits());
            }
          }
          if (c->tracks())
            for (const fb::TimeTrack* t : *c->tracks()) vec(t->times());
          if (c->events())
            for (const fb::ClipEvent* e : *c->events()) str(e->name());
        }
      }
      if (const auto* sets = r->morph_sets()) {
        for (const fb::MorphSet* m : *sets) {
          str(m->name());
          for (const flatbuffers::String* t : *m->target_names()) str(t);
          vec(m->default_weights());
        }
      }
    }
  }
  if (const auto* meshes = root->meshes()) {
    for (const fb::Mesh* m : *meshes) {
      str(m->name());
      str(m->source_file());
      if (!m->parts()) continue;
      for (const fb::Part* p : *m->parts()) {
        for (const fb::Blob* b :
             {p->positions(), p->normals(), p->tangents(), p->joints(), p->weights(), p->indices(),
              p->source_vertices(), p->texcoords0(), p->texcoords1(), p->colors(), p->joints1(),
              p->weights1(), p->morph_positions(), p->morph_normals(), p->morph_tangents()}) {
          blob(b);
        }
      }
    }
  }
  if (const auto* sheets = root->sprite_sheets()) {
    for (const fb::SpriteSheet* sh : *sheets) {
      str(sh->source_file());
      blob(sh->pixels());
      if (const auto* names = sh->frame_names())  // version 7
        for (const flatbuffers::String* n : *names) str(n);
    }
  }
  if (const auto* textures = root->textures()) {
    for (const fb::Texture* t : *textures) {
      str(t->source_file());
      str(t->mime_type());
      blob(t->pixels());
    }
  }
  if (const auto* materials = root->materials()) {
    for (const fb::Material* m : *materials) {
      str(m->name());
      str(m->source_file());
    }
  }
  if (const auto* objects = root->objects()) {
    for (const fb::Object* o : *objects) {
      str(o->name());
      str(o->material());
      str(o->content());
    }
  }
  return saved;
}

const MaterialInfo& Pack::material(int index) const {
  static const MaterialInfo kDefault;
  return index >= 0 && static_cast<size_t>(index) < materials_.size()
             ? materials_[static_cast<size_t>(index)]
             : kDefault;
}

Result<std::span<const uint8_t>> Pack::texture_pixels(int texture) const {
  if (texture < 0 || static_cast<size_t>(texture) >= textures_.size()) {
    return Error::make(ErrorCode::kInvalidArgument, "no texture %d", texture);
  }
  const fb::Texture* in =
      fb::GetAssetPack(data_)->textures()->Get(static_cast<flatbuffers::uoffset_t>(texture));
  return blob(in->pixels(), uint64_t{in->width()} * in->height() * 4, "texture pixels");
}

}  // namespace animpack
