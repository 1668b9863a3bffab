// SPDX-License-Identifier: MIT
// The frame-budget search of `bindery bench`, over synthetic monotone costs (no device).
#include "support/expect_kind.hpp"

#include <bindery/render/bench.hpp>

#include <gtest/gtest.h>

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

// Later repeats start at 3/4 of the last result, within [start, max], and may go down to start.
TEST(BenchSearch, RepeatSearchStartsNextToTheLastResult) {
  BudgetSearchOptions o;
  o.start_objects = 1000;
  o.max_objects = 2'000'000;
  EXPECT_EQ(repeat_search_options(o, 20'000).start_objects, 15'000u);
  EXPECT_EQ(repeat_search_options(o, 20'000).min_objects, 1000u);
  EXPECT_EQ(repeat_search_options(o, 0).start_objects, 1000u);
  EXPECT_EQ(repeat_search_options(o, 1100).start_objects, 1000u);  // 825, raised to start
  EXPECT_EQ(repeat_search_options(o, 2'000'000).start_objects, 1'500'000u);
  // From a capped result: 1.5 M within, then the cap itself: two probes.
  o.budget_ms = 1e9;
  const BudgetSearchResult r = find_max_within_budget(linear, repeat_search_options(o, 2'000'000));
  EXPECT_TRUE(r.capped);
  ASSERT_EQ(r.probes.size(), 2u);
  EXPECT_EQ(r.probes[0].objects, 1'500'000u);
  EXPECT_EQ(r.probes[1].objects, 2'000'000u);
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
}

}  // namespace
}  // namespace bindery
