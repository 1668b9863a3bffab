// SPDX-License-Identifier: MIT
// bindery/gpu_driven/offset_allocator.hpp on the CPU: hand-worked cases (coalescing on each side,
// best fit, grow merging a free tail, errors) and randomized sequences checked after every step
// against a model that keeps one bool per unit and predicts, from the maximal free runs, the
// offset best fit must return.
#include "support/expect_kind.hpp"
#include "unit_model.hpp"
#include "bindery/gpu_driven/offset_allocator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <vector>

namespace bindery::gpu_driven {
namespace {

// Fills [0, capacity) with allocations of `sizes` in order (each must land right after the last).
std::vector<uint64_t> fill(OffsetAllocator& a, const std::vector<uint64_t>& sizes) {
  std::vector<uint64_t> offsets;
  uint64_t expected = 0;
  for (uint64_t s : sizes) {
    const auto o = a.allocate(s);
    EXPECT_EQ(o, std::optional<uint64_t>(expected));
    offsets.push_back(expected);
    expected += s;
  }
  return offsets;
}

TEST(OffsetAllocator, StartsAsOneFreeRange) {
  OffsetAllocator a(100);
  EXPECT_EQ(a.capacity(), 100u);
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(a.largest_free(), 100u);
  EXPECT_EQ(a.free_ranges(), 1u);
  EXPECT_EQ(a.free_tail(), 100u);
  OffsetAllocator empty(0);
  EXPECT_EQ(empty.free_ranges(), 0u);
  EXPECT_EQ(empty.largest_free(), 0u);
  EXPECT_EQ(empty.allocate(1), std::nullopt);
}

// [0,10) [10,30) [30,60) [60,100) allocated; the middle two freed in each order, then both sides.
TEST(OffsetAllocator, CoalescesWithLeftNeighbour) {
  OffsetAllocator a(100);
  const auto o = fill(a, {10, 20, 30, 40});
  EXPECT_EQ(a.free_ranges(), 0u);
  a.free(o[1]);  // [10,30) free
  a.free(o[2]);  // [30,60) joins its left neighbour: [10,60)
  EXPECT_EQ(a.free_ranges(), 1u);
  EXPECT_EQ(a.largest_free(), 50u);
  EXPECT_EQ(a.used(), 50u);
  EXPECT_EQ(a.allocate(50), std::optional<uint64_t>(10));
}

TEST(OffsetAllocator, CoalescesWithRightNeighbour) {
  OffsetAllocator a(100);
  const auto o = fill(a, {10, 20, 30, 40});
  a.free(o[2]);  // [30,60)
  a.free(o[1]);  // [10,30) joins its right neighbour: [10,60)
  EXPECT_EQ(a.free_ranges(), 1u);
  EXPECT_EQ(a.largest_free(), 50u);
  EXPECT_EQ(a.allocate(50), std::optional<uint64_t>(10));
}

TEST(OffsetAllocator, CoalescesWithBothNeighbours) {
  OffsetAllocator a(100);
  const auto o = fill(a, {10, 20, 30, 40});
  a.free(o[0]);  // [0,10)
  a.free(o[2]);  // [30,60)
  EXPECT_EQ(a.free_ranges(), 2u);
  a.free(o[1]);  // [10,30) joins both: [0,60)
  EXPECT_EQ(a.free_ranges(), 1u);
  EXPECT_EQ(a.largest_free(), 60u);
  a.free(o[3]);  // everything: one range [0,100)
  EXPECT_EQ(a.free_ranges(), 1u);
  EXPECT_EQ(a.largest_free(), 100u);
  EXPECT_EQ(a.used(), 0u);
}

// Free ranges of 10 @0, 20 @15, 30 @40, 25 @75 (sizes 5 stay allocated between them).
TEST(OffsetAllocator, BestFitTakesTheSmallestRangeThatFits) {
  OffsetAllocator a(100);
  const auto o = fill(a, {10, 5, 20, 5, 30, 5, 25});
  a.free(o[0]);
  a.free(o[2]);
  a.free(o[4]);
  a.free(o[6]);
  EXPECT_EQ(a.free_ranges(), 4u);
  EXPECT_EQ(a.largest_free(), 30u);
  EXPECT_EQ(a.allocate(18), std::optional<uint64_t>(15));  // 20 @15; 2 left at 33
  EXPECT_EQ(a.allocate(21), std::optional<uint64_t>(75));  // 25 @75 (not 30 @40)
  EXPECT_EQ(a.allocate(26), std::optional<uint64_t>(40));  // 30 @40
  EXPECT_EQ(a.allocate(2), std::optional<uint64_t>(33));   // the 2 left at 33 (exact fit)
  EXPECT_EQ(a.allocate(10), std::optional<uint64_t>(0));   // the 10 @0
  // Left: 4 @96 and 4 @66: equal sizes, the lower offset first.
  EXPECT_EQ(a.free_ranges(), 2u);
  EXPECT_EQ(a.allocate(3), std::optional<uint64_t>(66));
  EXPECT_EQ(a.size_of(66), 3u);
}

TEST(OffsetAllocator, FailsWhenNoSingleRangeFits) {
  OffsetAllocator a(30);
  const auto o = fill(a, {10, 10, 10});
  a.free(o[0]);
  a.free(o[2]);
  EXPECT_EQ(a.used(), 10u);  // 20 free in total, but 10 + 10 apart
  EXPECT_EQ(a.allocate(11), std::nullopt);
  EXPECT_EQ(a.allocate(10), std::optional<uint64_t>(0));
}

TEST(OffsetAllocator, GrowMergesAFreeTail) {
  OffsetAllocator a(10);
  EXPECT_EQ(a.allocate(6), std::optional<uint64_t>(0));
  EXPECT_EQ(a.free_tail(), 4u);
  a.grow(20);  // [6,10) and [10,20) are one range
  EXPECT_EQ(a.capacity(), 20u);
  EXPECT_EQ(a.free_ranges(), 1u);
  EXPECT_EQ(a.largest_free(), 14u);
  EXPECT_EQ(a.allocate(14), std::optional<uint64_t>(6));
  EXPECT_EQ(a.free_tail(), 0u);
  a.grow(25);  // nothing free at the end: a new range [20,25)
  EXPECT_EQ(a.free_ranges(), 1u);
  EXPECT_EQ(a.largest_free(), 5u);
  a.free(0);  // [0,6) stays apart from [20,25)
  EXPECT_EQ(a.free_ranges(), 2u);
  a.grow(25);  // same capacity: no change
  EXPECT_EQ(a.free_ranges(), 2u);
  EXPECT_EQ(a.size_of(6), 14u);
}

TEST(OffsetAllocator, RejectsBadArguments) {
  OffsetAllocator a(10);
  EXPECT_KIND(a.allocate(0), InvalidArgument);
  EXPECT_KIND(a.free(0), InvalidArgument);  // nothing allocated
  ASSERT_EQ(a.allocate(4), std::optional<uint64_t>(0));
  EXPECT_KIND(a.free(1), InvalidArgument);  // inside an allocation, not its start
  EXPECT_KIND(a.size_of(4), InvalidArgument);
  EXPECT_KIND(a.grow(9), InvalidArgument);
  a.free(0);
  EXPECT_KIND(a.free(0), InvalidArgument);  // freed twice
}

void expect_matches(const OffsetAllocator& a, const UnitModel& m) {
  const auto runs = m.free_runs();
  uint64_t used = 0, largest = 0;
  for (bool u : m.used) used += u;
  for (const auto& r : runs) largest = std::max(largest, r.size);
  ASSERT_EQ(a.capacity(), m.used.size());
  ASSERT_EQ(a.used(), used);
  ASSERT_EQ(a.free_ranges(), runs.size());  // coalesced: maximal runs only
  ASSERT_EQ(a.largest_free(), largest);
  ASSERT_EQ(a.allocations(), m.allocations.size());
}

void random_sequence(uint32_t seed) {
  std::mt19937 rng(seed);
  OffsetAllocator a(256);
  UnitModel m;
  m.used.assign(256, false);
  for (int op = 0; op < 10000; ++op) {
    const uint32_t pick = rng() % 100;
    if (pick < 55) {
      const uint64_t size = (rng() % 8 == 0) ? 1 + rng() % 200 : 1 + rng() % 24;
      const auto expected = m.best_fit(size);
      const auto got = a.allocate(size);
      ASSERT_EQ(got, expected) << "seed " << seed << " op " << op << " size " << size;
      if (got) {
        ASSERT_LE(*got + size, m.used.size());
        for (uint64_t u = *got; u < *got + size; ++u) {
          ASSERT_FALSE(m.used[u]);  // no overlap with a live allocation
          m.used[u] = true;
        }
        m.allocations[*got] = size;
      }
    } else if (pick < 98) {
      if (m.allocations.empty()) continue;
      auto it = m.allocations.begin();
      std::advance(it, rng() % m.allocations.size());
      ASSERT_EQ(a.size_of(it->first), it->second);
      a.free(it->first);
      for (uint64_t u = it->first; u < it->first + it->second; ++u) m.used[u] = false;
      m.allocations.erase(it);
    } else if (m.used.size() < 4096) {
      const uint64_t grown = m.used.size() + 1 + rng() % 128;
      a.grow(grown);
      m.used.resize(grown, false);
    }
    ASSERT_NO_FATAL_FAILURE(expect_matches(a, m)) << "seed " << seed << " op " << op;
  }
  for (const auto& [offset, size] : m.allocations) a.free(offset);
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(a.free_ranges(), 1u);
  EXPECT_EQ(a.largest_free(), a.capacity());
  EXPECT_EQ(a.allocate(a.capacity()), std::optional<uint64_t>(0));
}

TEST(OffsetAllocator, RandomSequencesMatchTheModel) {
  for (uint32_t seed : {1u, 2u, 3u, 20u}) {
    SCOPED_TRACE(seed);
    random_sequence(seed);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace bindery::gpu_driven
