// SPDX-License-Identifier: MIT
// The frame-budget search of `bindery bench`, over synthetic monotone costs (no device).
#include "support/expect_kind.hpp"

#include <bindery/render/bench.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <utility>
#include <vector>

namespace bindery {
namespace {

// Cost 0.01 ms per object: 16.7 ms / 0.01 = 1670 objects fit a 60 fps budget of 16.7 ms.
BudgetProbe linear(uint32_t n) {
  return {n, n * 0.01, 0, 0};
}

TEST(BenchSearch, FindsTheLargestCountWithinPrecision) {
  BudgetSearchOptions o;
  o.budget_ms = 16.7;
  o.start_objects = 100;
  o.precision = 0.01;
  const BudgetSearchResult r = find_max_within_budget(linear, o);
  // Within budget, and the true maximum 1670 is at most 1 % above what was found.
  EXPECT_LE(r.max_objects, 1670u);
  EXPECT_GE(r.max_objects * 1.01, 1670.0);
  EXPECT_FALSE(r.capped);
  // Doubling 100, 200, 400, 800, 1600, 3200 (over), then bisection: every probe is recorded.
  ASSERT_GE(r.probes.size(), 6u);
  EXPECT_EQ(r.probes[0].objects, 100u);
  EXPECT_EQ(r.probes[5].objects, 3200u);
}

TEST(BenchSearch, ZeroWhenTheFirstCountIsOverBudget) {
  BudgetSearchOptions o;
  o.budget_ms = 0.5;  // 100 objects cost 1 ms
  o.start_objects = 100;
  const BudgetSearchResult r = find_max_within_budget(linear, o);
  EXPECT_EQ(r.max_objects, 0u);
  EXPECT_EQ(r.probes.size(), 1u);
}

// A start over budget with a lower bound: halving down to a count within, then bisection.
TEST(BenchSearch, HalvesDownFromAnOverBudgetStart) {
  BudgetSearchOptions o;
  o.budget_ms = 16.7;
  o.start_objects = 3000;  // 30 ms: over
  o.min_objects = 100;
  o.precision = 0.05;
  const BudgetSearchResult r = find_max_within_budget(linear, o);
  ASSERT_GE(r.probes.size(), 2u);
  EXPECT_EQ(r.probes[0].objects, 3000u);
  EXPECT_EQ(r.probes[1].objects, 1500u);  // 15 ms: within, then bisection in 1500..3000
  EXPECT_LE(r.max_objects, 1670u);
  EXPECT_GE(r.max_objects * 1.05, 1670.0);
  for (const BudgetProbe& p : r.probes) EXPECT_GE(p.objects, 1500u);  // never below the bracket
}

TEST(BenchSearch, HalvingStopsAtMinObjects) {
  BudgetSearchOptions o;
  o.budget_ms = 0.5;  // 50 objects would fit; the floor 100 costs 1 ms
  o.start_objects = 800;
  o.min_objects = 100;
  const BudgetSearchResult r = find_max_within_budget(linear, o);
  EXPECT_EQ(r.max_objects, 0u);
  ASSERT_EQ(r.probes.size(), 4u);  // 800, 400, 200, 100
  EXPECT_EQ(r.probes.back().objects, 100u);
}

// Later repeats start at 9/10 of the last result, within [start, max], may go down to start,
// and step by 1.25x.
TEST(BenchSearch, RepeatSearchStartsNextToTheLastResult) {
  BudgetSearchOptions o;
  o.start_objects = 1000;
  o.max_objects = 2'000'000;
  EXPECT_EQ(repeat_search_options(o, 20'000).start_objects, 18'000u);
  EXPECT_EQ(repeat_search_options(o, 20'000).min_objects, 1000u);
  EXPECT_EQ(repeat_search_options(o, 20'000).growth, 1.25);
  EXPECT_EQ(repeat_search_options(o, 0).start_objects, 1000u);
  EXPECT_EQ(repeat_search_options(o, 0).growth, 2.0);  // a first search doubles
  EXPECT_EQ(repeat_search_options(o, 1100).start_objects, 1000u);  // 990, raised to start
  EXPECT_EQ(repeat_search_options(o, 2'000'000).start_objects, 1'800'000u);
  // From a capped result: 1.8 M within, then the cap itself (not 2.25 M): two probes.
  o.budget_ms = 1e9;
  const BudgetSearchResult r = find_max_within_budget(linear, repeat_search_options(o, 2'000'000));
  EXPECT_TRUE(r.capped);
  ASSERT_EQ(r.probes.size(), 2u);
  EXPECT_EQ(r.probes[0].objects, 1'800'000u);
  EXPECT_EQ(r.probes[1].objects, 2'000'000u);
}

// A later search next to the true maximum (1670 at 0.01 ms each in 16.7 ms), worked by hand:
// 1503 (15.03 ms, within), 1878 (1503 x 1.25; 18.78 ms, over), then bisection 1690 (over), 1596,
// 1643 (within), where (1690 - 1643) / 1643 = 2.9% <= 5%: five probes, where the first search
// from 100 takes eleven.
TEST(BenchSearch, RepeatSearchBracketsTheLastResultInFiveProbes) {
  BudgetSearchOptions o;
  o.budget_ms = 16.7;
  o.start_objects = 100;
  o.max_objects = 1'000'000;
  const BudgetSearchResult first = find_max_within_budget(linear, o);
  EXPECT_EQ(first.probes.size(), 11u);  // 100 .. 3200 (6), then 2400, 2000, 1800, 1700, 1650
  EXPECT_EQ(first.max_objects, 1650u);
  const BudgetSearchResult r = find_max_within_budget(linear, repeat_search_options(o, 1670));
  const std::vector<uint32_t> expected = {1503, 1878, 1690, 1596, 1643};
  ASSERT_EQ(r.probes.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(r.probes[i].objects, expected[i]) << i;
  EXPECT_EQ(r.max_objects, 1643u);
  // Over budget at the start (the host got slower): steps down by 1.25x, not halving.
  const BudgetSearchResult slower =
      find_max_within_budget(linear, repeat_search_options(o, 2500));  // starts at 2250
  ASSERT_GE(slower.probes.size(), 3u);
  EXPECT_EQ(slower.probes[0].objects, 2250u);
  EXPECT_EQ(slower.probes[1].objects, 1800u);  // 2250 / 1.25, over
  EXPECT_EQ(slower.probes[2].objects, 1440u);  // 1800 / 1.25, within
}

// A step always moves: growth 1.1 from 2 objects still goes 2, 3, 4 (2.2 and 3.3 round down to
// the count itself; not 2, 2, ...).
TEST(BenchSearch, SmallGrowthStillMovesByOneObject) {
  BudgetSearchOptions o;
  o.budget_ms = 1e9;
  o.start_objects = 2;
  o.max_objects = 4;
  o.growth = kMinSearchGrowth;
  const BudgetSearchResult r = find_max_within_budget(linear, o);
  ASSERT_EQ(r.probes.size(), 3u);
  EXPECT_EQ(r.probes[1].objects, 3u);
  EXPECT_EQ(r.probes[2].objects, 4u);
  EXPECT_TRUE(r.capped);
}

TEST(BenchSearch, CappedAtMaxObjects) {
  BudgetSearchOptions o;
  o.budget_ms = 1e9;
  o.start_objects = 10;
  o.max_objects = 1000;
  const BudgetSearchResult r = find_max_within_budget(linear, o);
  EXPECT_EQ(r.max_objects, 1000u);
  EXPECT_TRUE(r.capped);
  EXPECT_EQ(r.probes.back().objects, 1000u);  // 10, 20, ..., 640, then 1000 (not 1280)
}

TEST(BenchSearch, RejectsBadOptions) {
  BudgetSearchOptions o;
  o.budget_ms = 0;
  EXPECT_KIND(find_max_within_budget(linear, o), InvalidArgument);
  o = {};
  o.start_objects = 0;
  EXPECT_KIND(find_max_within_budget(linear, o), InvalidArgument);
  o = {};
  o.max_objects = 10;
  EXPECT_KIND(find_max_within_budget(linear, o), InvalidArgument);
  o = {};
  o.precision = 1.5;
  EXPECT_KIND(find_max_within_budget(linear, o), InvalidArgument);
  // Steps under 10% (a probe per object from 1: 1.0000001) and factors past 1000 (1e300 overflowed
  // the next count) are refused, as are the non-numbers.
  for (double growth : {1.0, 0.5, 1.0000001, 1.09, 1000.5, 1e300,
                        std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::quiet_NaN()}) {
    o = {};
    o.growth = growth;
    SCOPED_TRACE(growth);
    EXPECT_KIND(find_max_within_budget(linear, o), InvalidArgument);
    EXPECT_KIND(repeat_search_options(o, 100), InvalidArgument);
  }
  // A later search of options the first refuses is refused too (start above max), not clamped
  // into a range the first search would never run.
  o = {};
  o.start_objects = 1000;
  o.max_objects = 500;
  EXPECT_KIND(repeat_search_options(o, 2000), InvalidArgument);
}

// The largest growth still steps to the cap in one probe: 3 x 1000 = 3000 is past max 1000.
TEST(BenchSearch, LargestGrowthStepsToTheCap) {
  BudgetSearchOptions o;
  o.budget_ms = 1e9;
  o.start_objects = 3;
  o.max_objects = 1000;
  o.growth = kMaxSearchGrowth;
  const BudgetSearchResult r = find_max_within_budget(linear, o);
  ASSERT_EQ(r.probes.size(), 2u);
  EXPECT_EQ(r.probes[1].objects, 1000u);
  EXPECT_TRUE(r.capped);
}

// A caller's floor below start_objects stays the floor of later searches: start 250, floor 10,
// 0.01 ms per object in 0.5 ms (50 fit). The first search goes down 250, 125, 62, 31 (within),
// then bisects to 50; the next starts at 45 (9/10 of 50), not at 250, and finds 50 again.
TEST(BenchSearch, RepeatSearchKeepsTheCallersFloor) {
  BudgetSearchOptions o;
  o.budget_ms = 0.5;
  o.start_objects = 250;
  o.min_objects = 10;
  const BudgetSearchResult first = find_max_within_budget(linear, o);
  ASSERT_EQ(first.max_objects, 50u);
  const BudgetSearchOptions next = repeat_search_options(o, first.max_objects);
  EXPECT_EQ(next.start_objects, 45u);
  EXPECT_EQ(next.min_objects, 10u);
  EXPECT_EQ(find_max_within_budget(linear, next).max_objects, 50u);
}

// The guided search (BudgetSearchMode::guided), worked by hand on the linear cost (0.01 ms per
// object, 1670 fit 16.7 ms). From 100 (1 ms): frame time proportional to the count puts the
// budget at 1670, so the search measures floor(1670 x 0.975) = 1628, at most 16 x 100 = 1600
// (16 ms, within); the line through both probes again says 1670: 1628 (within); no count within
// is predicted above it, so it measures the closing count floor(1628 x 1.05) = 1709 (over), and
// (1709 - 1628) / 1628 = 4.98% <= 5%: four probes, where the geometric search takes eleven.
BudgetSearchOptions guided(BudgetSearchOptions o) {
  o.mode = BudgetSearchMode::guided;
  return o;
}

TEST(BenchSearch, GuidedSearchPredictsTheBudgetFromTheFrameTimes) {
  BudgetSearchOptions o = guided({});
  o.budget_ms = 16.7;
  o.start_objects = 100;
  const BudgetSearchResult r = find_max_within_budget(linear, o);
  const std::vector<uint32_t> expected = {100, 1600, 1628, 1709};
  ASSERT_EQ(r.probes.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(r.probes[i].objects, expected[i]) << i;
  EXPECT_EQ(r.max_objects, 1628u);
  EXPECT_FALSE(r.capped);
  // A later search keeps the mode: from 1503 (9/10 of 1670; 15.03 ms) straight to 1628, then
  // 1709: three probes. Over budget at the start (the host got slower, 2250: 22.5 ms), the
  // prediction goes down to 1628 in one step, then 1709.
  const std::vector<std::pair<uint32_t, std::vector<uint32_t>>> repeats = {
      {1670, {1503, 1628, 1709}}, {2500, {2250, 1628, 1709}}};
  for (const auto& [previous, counts] : repeats) {
    const BudgetSearchResult again =
        find_max_within_budget(linear, repeat_search_options(o, previous));
    ASSERT_EQ(again.probes.size(), counts.size()) << previous;
    for (size_t i = 0; i < counts.size(); ++i)
      EXPECT_EQ(again.probes[i].objects, counts[i]) << previous << " " << i;
    EXPECT_EQ(again.max_objects, 1628u);
  }
}

// A host that runs twice as slow from 1600 objects on (0.02 ms each there): 1600 (a step cut to
// 16x, expecting nothing) is over, 32 ms. The line through (100, 1) and (1600, 32) puts the budget
// at 1600 - 15.3 x 1500 / 31 = 859.7: 838 (x 0.975; 8.38 ms, within as predicted), then the
// closing count floor(838 x 1.05) = 879, predicted over but within (8.79 ms): a bisection of
// 879..1600, 1239 (12.39 ms); the line through 879 and 1239 says 1670, above the bracket: 1599
// (within), next to 1600 over. The result is the true largest count, 1599, in six probes.
TEST(BenchSearch, GuidedSearchBisectsAfterAWrongPrediction) {
  BudgetSearchOptions o = guided({});
  o.budget_ms = 16.7;
  o.start_objects = 100;
  const auto two_speeds = [](uint32_t n) { return BudgetProbe{n, n * (n < 1600 ? 0.01 : 0.02)}; };
  const BudgetSearchResult r = find_max_within_budget(two_speeds, o);
  const std::vector<uint32_t> expected = {100, 1600, 838, 879, 1239, 1599};
  ASSERT_EQ(r.probes.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(r.probes[i].objects, expected[i]) << i;
  EXPECT_EQ(r.max_objects, 1599u);
}

// The ends: capped at max_objects (10 -> 160, 16x the most a step moves -> 1000, the cap), and
// nothing within above the floor (budget 0.05 ms, 5 objects would fit, the floor 10 costs 0.1 ms:
// 800 over predicts 5, a step cut to 16x down: 50, over; the line through both says 5 again, below
// the floor: 10, over; nothing is left).
TEST(BenchSearch, GuidedSearchStopsAtTheCapAndTheFloor) {
  BudgetSearchOptions o = guided({});
  o.budget_ms = 1e9;
  o.start_objects = 10;
  o.max_objects = 1000;
  const BudgetSearchResult capped = find_max_within_budget(linear, o);
  EXPECT_TRUE(capped.capped);
  EXPECT_EQ(capped.max_objects, 1000u);
  ASSERT_EQ(capped.probes.size(), 3u);
  EXPECT_EQ(capped.probes[1].objects, 160u);
  o = guided({});
  o.budget_ms = 0.05;
  o.start_objects = 800;
  o.min_objects = 10;
  const BudgetSearchResult none = find_max_within_budget(linear, o);
  EXPECT_EQ(none.max_objects, 0u);
  const std::vector<uint32_t> expected = {800, 50, 10};
  ASSERT_EQ(none.probes.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(none.probes[i].objects, expected[i]) << i;
  o.min_objects = 0;  // no downward search: the start alone
  EXPECT_EQ(find_max_within_budget(linear, o).probes.size(), 1u);
}

// A frame time flat in the count (a frame bound by something else, 15 ms of the 16.67 budget
// whatever the count): from 250 the prediction says 277.8, so 270 (x 0.975, within as predicted),
// then the closing count floor(270 x 1.05) = 283, predicted over but within: with no count over
// yet the search steps by growth (2x) until the cap, 1,000,000: 15 probes, where a search that
// kept trusting the prediction would climb by 8% a probe (over a hundred).
TEST(BenchSearch, GuidedSearchStepsByGrowthWhenTheFrameTimeIsFlat) {
  BudgetSearchOptions o = guided({});
  const BudgetSearchResult r =
      find_max_within_budget([](uint32_t n) { return BudgetProbe{n, 15.0}; }, o);
  std::vector<uint32_t> expected = {250, 270, 283};
  for (uint32_t n = 566; n < 1'000'000; n *= 2) expected.push_back(n);
  expected.push_back(1'000'000);
  ASSERT_EQ(r.probes.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(r.probes[i].objects, expected[i]) << i;
  EXPECT_TRUE(r.capped);
}

// Frame times that alternate between 97% and 99% of the budget (never over) and, in a second
// cost, jump between two speeds 1.6x apart from one count to the next around the true maximum:
// the search still ends within a bound of a few probes per halving (40 here), never creeping up
// by an object a probe.
TEST(BenchSearch, GuidedSearchIsBoundedUnderAdversarialNoise) {
  BudgetSearchOptions o = guided({});
  o.start_objects = 250;
  const auto alternating = [&](uint32_t n) {
    return BudgetProbe{n, o.budget_ms * (n % 2 ? 0.97 : 0.99)};
  };
  const BudgetSearchResult flat = find_max_within_budget(alternating, o);
  EXPECT_TRUE(flat.capped);
  EXPECT_LE(flat.probes.size(), 40u);
  // 0.5 us per object on even counts, 0.8 on odd: the true maximum lies between 20,833 and 33,333.
  const auto two_states = [](uint32_t n) { return BudgetProbe{n, n * (n % 2 ? 0.0008 : 0.0005)}; };
  const BudgetSearchResult jumpy = find_max_within_budget(two_states, o);
  EXPECT_LE(jumpy.probes.size(), 40u);
  EXPECT_GT(jumpy.max_objects, 0u);
  EXPECT_LE(jumpy.probes.back().objects, 33'334u + 33'334u / 20);
}

// Over many linear costs with a fixed part (frame = c0 + c1 x n, the true maximum
// floor((budget - c0) / c1) worked out directly), both modes obey the search's rule: the result
// is within budget and the true maximum at most `precision` above it; the guided mode takes
// fewer probes in all (a fixed pseudo-random sequence of costs, so the test is repeatable).
TEST(BenchSearch, GuidedAndGeometricSearchesObeyTheSameRule) {
  uint64_t state = 12345;
  const auto uniform = [&](double lo, double hi) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * double(state >> 11) / double(1ull << 53);
  };
  size_t probes[2] = {0, 0};
  for (int trial = 0; trial < 200; ++trial) {
    const double c0 = uniform(0, 8), c1 = std::exp(uniform(std::log(1e-6), std::log(1e-2)));
    const auto cost = [&](uint32_t n) { return BudgetProbe{n, c0 + c1 * n}; };
    BudgetSearchOptions o;
    o.budget_ms = 16.7;
    o.start_objects = 100;
    o.max_objects = 100'000'000;
    const double truth = std::floor((o.budget_ms - c0) / c1);
    if (truth < 100 || truth >= o.max_objects) continue;
    for (BudgetSearchMode mode : {BudgetSearchMode::geometric, BudgetSearchMode::guided}) {
      o.mode = mode;
      const BudgetSearchResult r = find_max_within_budget(cost, o);
      SCOPED_TRACE(testing::Message() << "c0 " << c0 << " c1 " << c1 << " mode " << int(mode));
      EXPECT_LE(r.max_objects, truth);
      EXPECT_GE(r.max_objects * (1 + o.precision), truth);
      probes[int(mode)] += r.probes.size();
    }
  }
  EXPECT_LT(probes[1], probes[0]);
  // The totals docs/BENCHMARKS.md quotes (`bench_search_test --gtest_filter=*SameRule*`).
  std::cout << "probes in all: geometric " << probes[0] << ", guided " << probes[1] << "\n";
  EXPECT_GT(probes[0], 0u);
}

}  // namespace
}  // namespace bindery
