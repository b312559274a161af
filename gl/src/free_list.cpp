#include "animpack/gl/free_list.h"

#include <algorithm>

namespace animpack::gl {

FreeList::FreeList(uint32_t capacity) : capacity_(capacity) {
  if (capacity > 0) free_.push_back({0, capacity});
}

Result<uint32_t> FreeList::allocate(uint32_t count) {
  if (count == 0) return Error::make(ErrorCode::kInvalidArgument, "allocate: count is 0");
  for (size_t i = 0; i < free_.size(); ++i) {
    Run& run = free_[i];
    if (run.count < count) continue;
    const uint32_t offset = run.offset;
    run.offset += count;
    run.count -= count;
    if (run.count == 0) free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
    used_ += count;
    return offset;
  }
  return Error::make(ErrorCode::kSizeMismatch, "no free run of %u units (largest %u of %u)", count,
                     largest_free(), capacity_);
}

Result<void> FreeList::release(uint32_t offset, uint32_t count) {
  if (count == 0 || offset > capacity_ || count > capacity_ - offset) {
    return Error::make(ErrorCode::kInvalidArgument, "release [%u, +%u) outside [0, %u)", offset,
                       count, capacity_);
  }
  const uint64_t end = uint64_t{offset} + count;
  // The first free run that starts after offset; the one before it must end by offset.
  auto next = std::upper_bound(free_.begin(), free_.end(), offset,
                               [](uint32_t o, const Run& r) { return o < r.offset; });
  const bool overlaps_next = next != free_.end() && next->offset < end;
  const bool overlaps_prev =
      next != free_.begin() && uint64_t{std::prev(next)->offset} + std::prev(next)->count > offset;
  if (overlaps_next || overlaps_prev) {
    return Error::make(ErrorCode::kInvalidArgument, "release [%u, +%u): part of it is already free",
                       offset, count);
  }
  used_ -= count;
  const bool merge_prev =
      next != free_.begin() && std::prev(next)->offset + std::prev(next)->count == offset;
  const bool merge_next = next != free_.end() && next->offset == end;
  if (merge_prev && merge_next) {
    std::prev(next)->count += count + next->count;
    free_.erase(next);
  } else if (merge_prev) {
    std::prev(next)->count += count;
  } else if (merge_next) {
    next->offset = offset;
    next->count += count;
  } else {
    free_.insert(next, Run{offset, count});
  }
  return ok();
}

Result<void> FreeList::grow(uint32_t capacity) {
  if (capacity < capacity_) {
    return Error::make(ErrorCode::kInvalidArgument, "grow to %u below the capacity %u", capacity,
                       capacity_);
  }
  if (capacity == capacity_) return ok();
  const uint32_t added = capacity - capacity_;
  if (!free_.empty() && free_.back().offset + free_.back().count == capacity_) {
    free_.back().count += added;
  } else {
    free_.push_back({capacity_, added});
  }
  capacity_ = capacity;
  return ok();
}

uint32_t FreeList::largest_free() const {
  uint32_t best = 0;
  for (const Run& r : free_) best = std::max(best, r.count);
  return best;
}

}  // namespace animpack::gl
