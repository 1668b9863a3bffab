// SPDX-License-Identifier: MIT
// plan_draw_passes / split_draw_ranges (src/render/strategy.hpp): how a frame's draws are cut
// into encoding ranges (--encode-threads) and render passes (max_draws_per_pass). Expected passes
// are worked out by hand; the last test checks the covering rules on a grid of inputs, including
// max_draws_per_pass = UINT32_MAX, the default on every adapter but lavapipe (the H200's), where
// `first + max_draws` wraps: the fault that lost every range but the first on the H200.
#include "render/frame/parallel_encode.hpp"
#include "render/strategies/strategy.hpp"

#include <gtest/gtest.h>
#include <tbb/info.h>

#include <cstdint>
#include <tuple>
#include <vector>

namespace bindery::strategies {

bool operator==(const DrawPass& a, const DrawPass& b) {
  return std::tie(a.range, a.first, a.end) == std::tie(b.range, b.first, b.end);
}
void PrintTo(const DrawPass& p, std::ostream* os) {
  *os << "{range " << p.range << ", [" << p.first << ", " << p.end << ")}";
}

namespace {

using Passes = std::vector<DrawPass>;
constexpr uint32_t kNoLimit = UINT32_MAX;

TEST(SplitDrawRanges, EqualPartsLongerFirst) {
  using R = std::vector<std::pair<uint32_t, uint32_t>>;
  EXPECT_EQ(split_draw_ranges(600, 2), (R{{0, 300}, {300, 600}}));
  // 7 = 3 + 2 + 2: the one longer range comes first.
  EXPECT_EQ(split_draw_ranges(7, 3), (R{{0, 3}, {3, 5}, {5, 7}}));
  // More parts than draws: one range per draw.
  EXPECT_EQ(split_draw_ranges(2, 3), (R{{0, 1}, {1, 2}}));
  EXPECT_EQ(split_draw_ranges(0, 4), (R{{0, 0}}));
}

TEST(PlanDrawPasses, NoLimitGivesOnePassPerRange) {
  // The H200 case: 600 draws on 2 and 3 threads, no per-pass limit.
  EXPECT_EQ(plan_draw_passes(600, 2, kNoLimit), (Passes{{0, 0, 300}, {1, 300, 600}}));
  EXPECT_EQ(plan_draw_passes(600, 3, kNoLimit),
            (Passes{{0, 0, 200}, {1, 200, 400}, {2, 400, 600}}));
  EXPECT_EQ(plan_draw_passes(600, 1, kNoLimit), (Passes{{0, 0, 600}}));
  // Near the top of uint32_t: first + max_draws would wrap for both passes of the second range.
  const uint32_t most = UINT32_MAX;  // draws = 4,294,967,295: ranges of 2,147,483,648 and ...647
  EXPECT_EQ(plan_draw_passes(most, 2, kNoLimit),
            (Passes{{0, 0, 2147483648u}, {1, 2147483648u, most}}));
  EXPECT_EQ(plan_draw_passes(most, 1, most - 1), (Passes{{0, 0, most - 1}, {0, most - 1, most}}));
}

TEST(PlanDrawPasses, EachRangeIsCutAtTheLimit) {
  // One range of 600 in passes of 250: 250 + 250 + 100.
  EXPECT_EQ(plan_draw_passes(600, 1, 250), (Passes{{0, 0, 250}, {0, 250, 500}, {0, 500, 600}}));
  // Two ranges of 300, each 250 + 50.
  EXPECT_EQ(plan_draw_passes(600, 2, 250),
            (Passes{{0, 0, 250}, {0, 250, 300}, {1, 300, 550}, {1, 550, 600}}));
  // lavapipe's 50,000 per pass: 120,000 draws on one thread are 3 passes.
  EXPECT_EQ(plan_draw_passes(120000, 1, 50000),
            (Passes{{0, 0, 50000}, {0, 50000, 100000}, {0, 100000, 120000}}));
  // A limit of 0 counts as 1: one pass per draw.
  EXPECT_EQ(plan_draw_passes(3, 1, 0), (Passes{{0, 0, 1}, {0, 1, 2}, {0, 2, 3}}));
}

TEST(RangeStarts, EachRangesFirstPassThenTheEnd) {
  using S = std::vector<size_t>;
  // Two ranges of 300 in passes of 250: range 0 is passes 0-1, range 1 passes 2-3.
  EXPECT_EQ(range_starts(plan_draw_passes(600, 2, 250)), (S{0, 2, 4}));
  // Three ranges, one pass each.
  EXPECT_EQ(range_starts(plan_draw_passes(600, 3, kNoLimit)), (S{0, 1, 2, 3}));
  // No draws: one range of one empty pass.
  EXPECT_EQ(range_starts(plan_draw_passes(0, 4, 10)), (S{0, 1}));
  EXPECT_EQ(range_starts({}), (S{0}));
}

TEST(PlanDrawPasses, ZeroPartsCountAsOne) {
  EXPECT_EQ(split_draw_ranges(10, 0), (std::vector<std::pair<uint32_t, uint32_t>>{{0, 10}}));
  EXPECT_EQ(plan_draw_passes(10, 0, 5), (Passes{{0, 0, 5}, {0, 5, 10}}));
}

TEST(EncodeArenaSlots, AtMostTheCoresAtLeastOne) {
  const int cores = std::max(1, tbb::info::default_concurrency());
  EXPECT_EQ(encode_arena_slots(1), 1);
  EXPECT_EQ(encode_arena_slots(0), 1);
  EXPECT_EQ(encode_arena_slots(64), std::min(64, cores));
  EXPECT_EQ(encode_arena_slots(UINT32_MAX), cores);
}

TEST(PlanDrawPasses, NoDrawsIsOneEmptyPassThatStillClears) {
  EXPECT_EQ(plan_draw_passes(0, 1, kNoLimit), (Passes{{0, 0, 0}}));
  EXPECT_EQ(plan_draw_passes(0, 8, 10), (Passes{{0, 0, 0}}));
}

TEST(PlanDrawPasses, PassesCoverEveryDrawOnceInOrderWithinTheLimit) {
  for (uint32_t draws : {1u, 2u, 5u, 599u, 600u, 65101u})
    for (uint32_t parts : {1u, 2u, 3u, 7u, 64u})
      for (uint32_t limit : {1u, 2u, 250u, 50000u, kNoLimit - 1, kNoLimit}) {
        SCOPED_TRACE(testing::Message()
                     << draws << " draws, " << parts << " parts, limit " << limit);
        const Passes passes = plan_draw_passes(draws, parts, limit);
        const auto ranges = split_draw_ranges(draws, parts);
        ASSERT_FALSE(passes.empty());
        uint32_t next = 0, range = 0;
        for (const DrawPass& p : passes) {
          ASSERT_EQ(p.first, next);  // contiguous, in draw order
          ASSERT_GT(p.end, p.first);
          ASSERT_LE(p.end - p.first, limit);
          ASSERT_GE(p.range, range);  // ranges in order, each pass inside its range
          range = p.range;
          ASSERT_LT(p.range, ranges.size());
          ASSERT_GE(p.first, ranges[p.range].first);
          ASSERT_LE(p.end, ranges[p.range].second);
          next = p.end;
        }
        EXPECT_EQ(next, draws);
        EXPECT_EQ(range + 1, ranges.size());
      }
}

}  // namespace
}  // namespace bindery::strategies
