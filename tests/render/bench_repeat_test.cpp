// SPDX-License-Identifier: MIT
// The repeat and interleave logic of `bindery bench --repeat` (issue 31), without a device: the
// order of the searches (interleaved_schedule), the summary of repeats (spread_of), the probe
// length rule (probe_long_enough), the steadiness check (cpu_fits_interval), and the CLI's
// refusal of the new options before any device exists. Counts and order, never timings.
#include "support/cli_runner.hpp"
#include "support/expect_kind.hpp"

#include <bindery/render/bench.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace bindery {
namespace {

TEST(BenchRepeat, ThreeStrategiesThreeRepeatsInTheirOrder) {
  // Repeat r starts at strategy r and wraps: 0 1 2 | 1 2 0 | 2 0 1.
  const std::vector<BenchSlot> want = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2},
                                       {1, 0}, {2, 2}, {2, 0}, {2, 1}};
  EXPECT_EQ(interleaved_schedule(3, 3), want);
}

TEST(BenchRepeat, TwoStrategiesFourRepeatsAlternateTheFirst) {
  const std::vector<BenchSlot> want = {{0, 0}, {0, 1}, {1, 1}, {1, 0},
                                       {2, 0}, {2, 1}, {3, 1}, {3, 0}};
  EXPECT_EQ(interleaved_schedule(2, 4), want);
}

TEST(BenchRepeat, OneRepeatIsTheListInOrder) {
  const std::vector<BenchSlot> want = {{0, 0}, {0, 1}, {0, 2}, {0, 3}};
  EXPECT_EQ(interleaved_schedule(4, 1), want);
}

// Every strategy once per repeat, the repeats one after another, each strategy R times in all
// and first in repeat r exactly when r % S is its index.
TEST(BenchRepeat, EveryStrategyOncePerRepeatAndRepeatsInSequence) {
  for (uint32_t s : {1u, 2u, 5u, 11u})
    for (uint32_t r : {1u, 3u, 7u}) {
      const std::vector<BenchSlot> slots = interleaved_schedule(s, r);
      ASSERT_EQ(slots.size(), size_t(s) * r) << s << " x " << r;
      std::vector<uint32_t> times(s, 0);
      for (uint32_t rep = 0; rep < r; ++rep) {
        std::vector<bool> seen(s, false);
        for (uint32_t i = 0; i < s; ++i) {
          const BenchSlot& slot = slots[size_t(rep) * s + i];
          EXPECT_EQ(slot.repeat, rep);
          ASSERT_LT(slot.strategy, s);
          EXPECT_FALSE(seen[slot.strategy]) << "strategy " << slot.strategy << " twice";
          seen[slot.strategy] = true;
          ++times[slot.strategy];
        }
        EXPECT_EQ(slots[size_t(rep) * s].strategy, rep % s);
      }
      for (uint32_t t : times) EXPECT_EQ(t, r);
    }
}

TEST(BenchRepeat, NoStrategiesNoSlotsAndRepeatsOutOfRangeRefused) {
  EXPECT_TRUE(interleaved_schedule(0, 3).empty());
  EXPECT_EQ(interleaved_schedule(1, kMaxBenchRepeats).size(), size_t(kMaxBenchRepeats));
  EXPECT_KIND(interleaved_schedule(3, 0), InvalidArgument);
  EXPECT_KIND(interleaved_schedule(3, kMaxBenchRepeats + 1), InvalidArgument);
}

TEST(BenchRepeat, SpreadIsTheLowerMedianAndTheExtremes) {
  const Spread odd = spread_of({58000, 35000, 62000});
  EXPECT_EQ(odd.median, 58000);
  EXPECT_EQ(odd.min, 35000);
  EXPECT_EQ(odd.max, 62000);
  EXPECT_EQ(odd.median_index, 0u);
  // Even count: sorted 35000 40000 62000 64000, the lower middle is 40000 (index 3).
  const Spread even = spread_of({62000, 64000, 35000, 40000});
  EXPECT_EQ(even.median, 40000);
  EXPECT_EQ(even.median_index, 3u);
  EXPECT_EQ(even.min, 35000);
  EXPECT_EQ(even.max, 64000);
  // Equal values: the first of them.
  const Spread equal = spread_of({1.0, 5.0, 5.0, 5.0});
  EXPECT_EQ(equal.median, 5.0);
  EXPECT_EQ(equal.median_index, 1u);
  const Spread one = spread_of({7.5});
  EXPECT_EQ(one.median, 7.5);
  EXPECT_EQ(one.min, 7.5);
  EXPECT_EQ(one.max, 7.5);
  const Spread none = spread_of({});
  EXPECT_EQ(none.median, 0);
  EXPECT_EQ(none.median_index, 0u);
}

TEST(BenchRepeat, MaxOverMin) {
  EXPECT_EQ(max_over_min({}), 0);
  EXPECT_EQ(max_over_min({3}), 0);
  EXPECT_EQ(max_over_min({2, 8, 4}), 4);
  EXPECT_EQ(max_over_min({0, 3}), 0);  // no positive fastest frame: nothing to compare
}

TEST(BenchRepeat, ProbeLengthNeedsFramesAndTimeUnlessAtTheMost) {
  const ProbeLength timed{.min_frames = 5, .max_frames = 1000, .min_ms = 200};
  EXPECT_FALSE(probe_long_enough(timed, 4, 500));  // too few frames, however long
  EXPECT_FALSE(probe_long_enough(timed, 5, 199));
  EXPECT_TRUE(probe_long_enough(timed, 5, 200));
  EXPECT_FALSE(probe_long_enough(timed, 999, 10));
  EXPECT_TRUE(probe_long_enough(timed, 1000, 10));  // the most a probe takes
  const ProbeLength fixed{.min_frames = 3, .max_frames = 3, .min_ms = 0};
  EXPECT_FALSE(probe_long_enough(fixed, 2, 1e9));
  EXPECT_TRUE(probe_long_enough(fixed, 3, 0));
}

TEST(BenchRepeat, CpuFitsIntervalWithinTheFactor) {
  BudgetProbe p;
  p.frame_ms = 10;
  p.math_ms = 1;
  p.cpu_ms = 11;  // 12 <= 10 * 1.25
  EXPECT_TRUE(cpu_fits_interval(p, 1.25));
  p.cpu_ms = 12;  // 13 > 12.5
  EXPECT_FALSE(cpu_fits_interval(p, 1.25));
  // The case of the issue: 125 ms of CPU per frame beside 14.9 ms between frames.
  p = {};
  p.frame_ms = 14.9;
  p.cpu_ms = 125;
  EXPECT_FALSE(cpu_fits_interval(p));
}

// The new options are refused in one [InvalidArgument] line naming the flag, before a device.
TEST(BenchRepeat, CliRefusesOptionsOutOfRange) {
  for (const char* args : {"bench --repeat 0", "bench --repeat 101", "bench --warmup-frames 0",
                           "bench --warmup-frames 1001", "bench --probe-ms -1",
                           "bench --probe-ms 60001", "bench --probe-ms nan"}) {
    const test::CliResult r = test::run_cli(args, 60);
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.err;
    EXPECT_EQ(test::count_lines(r.err), 1u) << args << ": " << r.err;
    EXPECT_NE(r.err.find("bindery: error [InvalidArgument]"), std::string::npos)
        << args << ": " << r.err;
    const std::string flag = std::string(args).substr(6, std::string(args).find(' ', 6) - 6);
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

}  // namespace
}  // namespace bindery
