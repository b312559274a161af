// The skin store's free list, on the CPU: first fit, merging, refusals, growth.
#include "animpack/gl/free_list.h"

#include <gtest/gtest.h>

namespace animpack::gl {
namespace {

TEST(FreeList, AllocatesFirstFitAndMergesFreedNeighbours) {
  FreeList list(100);
  EXPECT_EQ(*list.allocate(30), 0u);
  EXPECT_EQ(*list.allocate(30), 30u);
  EXPECT_EQ(*list.allocate(30), 60u);
  EXPECT_EQ(list.used(), 90u);
  ASSERT_TRUE(list.release(30, 30));
  EXPECT_EQ(list.free_runs(), 2u);     // [30, 60) and [90, 100)
  EXPECT_EQ(*list.allocate(10), 30u);  // first fit: the hole, not the tail
  ASSERT_TRUE(list.release(0, 30));    // [30, 40) is still taken between two free runs
  EXPECT_EQ(list.free_runs(), 3u);
  ASSERT_TRUE(list.release(30, 10));  // joins [0, 30), [30, 40) and [40, 60)
  EXPECT_EQ(list.free_runs(), 2u);
  EXPECT_EQ(list.largest_free(), 60u);
  ASSERT_TRUE(list.release(60, 30));
  EXPECT_EQ(list.free_runs(), 1u);
  EXPECT_EQ(list.largest_free(), 100u);
  EXPECT_EQ(list.used(), 0u);
}

TEST(FreeList, RefusesZeroCountsDoubleReleasesAndRangesOutside) {
  FreeList list(10);
  EXPECT_EQ(list.allocate(0).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(list.allocate(11).error().code(), ErrorCode::kSizeMismatch);
  ASSERT_EQ(*list.allocate(4), 0u);
  EXPECT_EQ(list.release(0, 5).error().code(), ErrorCode::kInvalidArgument);  // 4 is free
  EXPECT_EQ(list.release(8, 4).error().code(), ErrorCode::kInvalidArgument);  // outside
  EXPECT_EQ(list.release(0, 0).error().code(), ErrorCode::kInvalidArgument);
  ASSERT_TRUE(list.release(0, 4));
  EXPECT_EQ(list.release(0, 4).error().code(), ErrorCode::kInvalidArgument);  // twice
  EXPECT_EQ(list.used(), 0u);
}

TEST(FreeList, GrowsAtTheEnd) {
  FreeList list;
  EXPECT_EQ(list.allocate(1).error().code(), ErrorCode::kSizeMismatch);
  ASSERT_TRUE(list.grow(8));
  ASSERT_EQ(*list.allocate(6), 0u);
  ASSERT_TRUE(list.grow(16));  // [6, 16) is one run
  EXPECT_EQ(list.free_runs(), 1u);
  EXPECT_EQ(*list.allocate(10), 6u);
  EXPECT_EQ(list.grow(4).error().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace animpack::gl
