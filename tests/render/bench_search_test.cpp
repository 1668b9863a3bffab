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
