// What a cooked pack holds (`animpack inspect PACK [--json]`): its meshes and parts,
// materials, textures, rigs with their morph sets and clips, sprite sheets and objects with
// their animation, state machines, root motion and IK, and where its bytes go.
//
//   animpack::Result<animpack::Pack> pack = animpack::Pack::open("scene.anpk");
//   if (!pack) return fail(pack.error());
//   std::fputs(animpack::pack_report_text(*pack, "scene.anpk").c_str(), stdout);
//   animpack::PackSizes sizes = animpack::measure_pack(*pack);   // sizes.vertex_streams.bytes
//
// The pack must have been opened by Pack::open or Pack::from_bytes (so verified): the
// writers index what the pack's checks proved in range. They read the pack in place and
// decode no blob. Names from the pack go through printable() in the text form and are
// JSON-escaped (bytes that are not UTF-8 as U+FFFD) in the JSON form.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "animpack/pack.h"

namespace animpack {

// Bytes the file spends on one kind of data: each vector, string and blob counted once
// however many tables name it (the writer stores identical data once), with its 4-byte
// length prefix (strings: and their terminating NUL).
struct PackSection {
  uint64_t bytes = 0;  // as stored in the file
  uint64_t raw = 0;    // blobs: their decoded size (Blob.raw_size); else == bytes
  uint32_t count = 0;  // the distinct vectors, strings or blobs counted
};

// The bytes of the blobs of one kind stored with one compression.
struct PackCodecSection {
  std::string codec;  // "raw", "lz4", "meshopt_vertex", "meshopt_vertex+lz4",
                      // "meshopt_index", "meshopt_index+lz4", "meshopt_sequence",
                      // "meshopt_sequence+lz4"
  PackSection section;
};

// Where the bytes of a pack go (docs/pack-format.md names the tables). The sections do
// not overlap; `other` is the rest of the file: the FlatBuffers tables and vtables,
// skeletons, inverse binds, bounds, sprite frames, state machines, root motion tracks, IK
// solvers, and the like.
struct PackSizes {
  uint64_t total = 0;  // the file's size
  // Every clip's keys: version 6 time tracks, key indices, codec data and lossy lanes, or
  // (older packs, and raw channels) the times and values arrays.
  PackSection clip_keys;
  // Parts' per-vertex blobs: positions, normals, tangents, joints, weights (both sets),
  // texture coordinates, colours, source vertices and morph deltas; with the split by
  // compression, in the order of the codec names above (only those used).
  PackSection vertex_streams;
  std::vector<PackCodecSection> vertex_codecs;
  // Parts' index blobs.
  PackSection index_streams;
  std::vector<PackCodecSection> index_codecs;
  PackSection textures;      // material textures' pixel blobs
  PackSection atlas_pixels;  // sprite sheets' pixel blobs
  PackSection strings;       // every string (names, source files, mime types, ...)
  uint64_t other = 0;        // total minus the sections above
};

// Measures `pack` (walking its tables once, by address). Allocates a table of the
// addresses seen; never fails on a pack that opened.
PackSizes measure_pack(const Pack& pack);

// The report for people: `pack NAME: format F, N bytes`, then the meshes, materials,
// textures, rigs, sprite sheets and objects one indented line each (docs/cli.md,
// "inspect"), then the `sizes:` block of measure_pack. `name` is printed as given.
std::string pack_report_text(const Pack& pack, std::string_view name);

// The same content as one JSON object (docs/cli.md lists the fields), with a trailing
// newline.
std::string pack_report_json(const Pack& pack, std::string_view name);

}  // namespace animpack
