// A first-fit free list over [0, capacity) in whole units: how the skin store hands out
// per-vertex record ranges. Pure CPU, no GL.
//
//   animpack::gl::FreeList list(1024);
//   animpack::Result<uint32_t> a = list.allocate(300);   // 0
//   animpack::Result<uint32_t> b = list.allocate(300);   // 300
//   (void)list.release(*a, 300);                          // [0, 300) free again
//   if (!list.allocate(800)) list.grow(2048);             // the caller grows its buffer
//
// Freed ranges merge with free neighbours, so releasing everything gives back one range.
#pragma once

#include <cstdint>
#include <vector>

#include "animpack/result.h"

namespace animpack::gl {

class FreeList {
 public:
  explicit FreeList(uint32_t capacity = 0);

  // The lowest offset of a free run of `count` units, now taken. kInvalidArgument for
  // count 0; kSizeMismatch when no free run is long enough (grow() and retry).
  Result<uint32_t> allocate(uint32_t count);
  // Gives [offset, offset + count) back. kInvalidArgument when the range is empty, outside
  // the capacity or not entirely taken (a double release); nothing changes then.
  Result<void> release(uint32_t offset, uint32_t count);
  // Extends the capacity (the new units are free). kInvalidArgument when it would shrink.
  Result<void> grow(uint32_t capacity);

  uint32_t capacity() const { return capacity_; }
  // Units taken.
  uint32_t used() const { return used_; }
  // The number of separate free runs, and the longest.
  uint32_t free_runs() const { return static_cast<uint32_t>(free_.size()); }
  uint32_t largest_free() const;

 private:
  struct Run {
    uint32_t offset = 0, count = 0;
  };
  std::vector<Run> free_;  // sorted by offset, never adjacent
  uint32_t capacity_ = 0;
  uint32_t used_ = 0;
};

}  // namespace animpack::gl
