// The skin store (internal): one shader storage buffer holding every skinned mesh's
// per-vertex records, then every posed instance's palettes.
//
// Layout in 16-byte units: records first, two units per vertex (joints packed as 16-bit
// pairs, then the four weights' bits; a mesh with eight influences takes two record slots
// per vertex, the second set's two units after the first's), record_capacity() of them; then the
// palettes, four units (columns) per matrix. Records are allocated with a FreeList; when
// it has no room the buffer is remade larger, the records copied on the GPU and the
// palettes written again from their CPU copy. Palettes are rewritten whole by
// set_palettes() (each frame's set_poses).
#pragma once

#include <glad/gl.h>

#include <cstdint>
#include <span>
#include <vector>

#include "animpack/gl/free_list.h"
#include "animpack/math.h"
#include "animpack/result.h"
#include "animpack/skinning.h"

namespace animpack::gl {

class SkinStore {
 public:
  static constexpr uint32_t kRecordBytes = 32;
  static constexpr uint32_t kMatrixBytes = 64;

  SkinStore() = default;
  SkinStore(const SkinStore&) = delete;
  SkinStore& operator=(const SkinStore&) = delete;
  ~SkinStore();

  // Makes the buffer (a few palettes' worth). max_bytes: GL_MAX_SHADER_STORAGE_BLOCK_SIZE.
  void init(uint64_t max_bytes);
  // Deletes the buffer (the context must be current).
  void destroy();

  // Whether the records of `vertices` more vertices, or `matrices` palette matrices, fit
  // under the block size limit (checked before any GL call).
  bool fits_records(uint64_t vertices) const;
  bool fits_palettes(uint64_t matrices) const;
  // Takes room for the records of `joints.size()` vertices (twice that with joints1 and
  // weights1, eight influences) and writes them; returns the first record slot.
  // Preconditions: fits_records(the slots), sizes equal (joints1 and weights1 empty or as
  // long as joints).
  uint32_t add_records(std::span<const JointIndices> joints, std::span<const Vec4> weights,
                       std::span<const JointIndices> joints1 = {},
                       std::span<const Vec4> weights1 = {});
  // Frees record slots taken by add_records (count: the slots, 2 per vertex for eight).
  void release_records(uint32_t first, uint32_t count);
  // Replaces the palettes. Preconditions: fits_palettes(matrices.size()).
  void set_palettes(std::span<const Mat4> matrices);

  GLuint buffer() const { return buffer_; }
  // The first unit of record slot `first` and of palette matrix `matrix`.
  int record_unit(uint32_t first) const { return static_cast<int>(2 * first); }
  int palette_unit(uint32_t matrix) const {
    return static_cast<int>(2 * records_.capacity() + 4 * matrix);
  }
  uint32_t record_capacity() const { return records_.capacity(); }
  uint32_t records_used() const { return records_.used(); }
  uint32_t free_runs() const { return records_.free_runs(); }
  uint32_t palette_matrices() const { return static_cast<uint32_t>(palettes_.size()); }
  uint64_t buffer_bytes() const { return buffer_bytes_; }

 private:
  // Remakes the buffer for these capacities, keeping the records and palettes.
  void resize(uint32_t record_capacity, uint32_t palette_capacity);

  GLuint buffer_ = 0;
  uint64_t buffer_bytes_ = 0;
  uint64_t max_bytes_ = 0;
  FreeList records_;
  uint32_t palette_capacity_ = 0;
  std::vector<Mat4> palettes_;  // the CPU copy, rewritten after a resize
};

}  // namespace animpack::gl
