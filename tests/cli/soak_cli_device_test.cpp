// SPDX-License-Identifier: MIT
// `bindery soak` and the bench options it shares rules with, through the CLI: a short soak of two
// strategies is flat and its JSON holds the samples worked out from the options; options that
// cannot give a meaningful measurement are one [InvalidArgument] line before any output.
#include "support/cli_runner.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace bindery::test {
namespace {

void expect_invalid_argument(const CliResult& r, const std::string& must_mention) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("bindery: error [InvalidArgument]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(must_mention), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;  // refused before the table header
}

TEST(SoakCli, TwoStrategiesStayFlatAndTheJsonHoldsEverySample) {
  const CliResult r = run_cli(
      "soak --strategies naive,dynamic-offsets --objects 10 --size 8x8 --frames 60 "
      "--check-every 10 --warmup 10",
      300);
  // Objects and per-frame work must be flat; memory may not have settled in 60 frames (under
  // ASan its quarantine holds every freed block), which exits 1 with [SoakDrift] naming only it.
  ASSERT_TRUE(r.exit_code == 0 || r.err.find("[SoakDrift]") != std::string::npos) << r.err;
  const std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  const auto j = nlohmann::json::parse(last);
  ASSERT_EQ(j["results"].size(), 2u);
  for (const auto& result : j["results"]) {
    for (const auto& d : result["drifts"])
      EXPECT_EQ(d["quantity"], "resident bytes (floor)") << result["drifts"].dump();
    EXPECT_EQ(result["flat"].get<bool>(), result["drifts"].empty());
    // One sample after every 10 of 60 frames: 6, after 10, 20, ..., 60 frames.
    ASSERT_EQ(result["samples"].size(), 6u);
    for (size_t i = 0; i < 6; ++i) {
      EXPECT_EQ(result["samples"][i]["frames_done"], 10 * (i + 1));
      EXPECT_EQ(result["samples"][i]["calls"]["draws"], 10);  // one per cube
    }
  }
}

// --frames alone: a sample every 60 / 20 = 3 frames after a warm-up of 60 / 10 = 6 (README's
// rule), so 20 samples at frames 3, 6, ..., 60.
TEST(SoakCli, FramesAloneScaleTheSampling) {
  const CliResult r =
      run_cli("soak --strategies naive --objects 10 --size 8x8 --frames 60", 300);
  ASSERT_TRUE(r.exit_code == 0 || r.err.find("[SoakDrift]") != std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1));
  EXPECT_EQ(j["check_every"], 3);
  EXPECT_EQ(j["warmup"], 6);
  ASSERT_EQ(j["results"].size(), 1u);
  ASSERT_EQ(j["results"][0]["samples"].size(), 20u);
  EXPECT_EQ(j["results"][0]["samples"][19]["frames_done"], 60);
}

// A soak in which no strategy ran measured nothing: an error, not a pass. Immediates needs a
// native feature that --limits default does not ask for (and Dawn does not have).
TEST(SoakCli, NoStrategySoakedIsAnError) {
  const CliResult r = run_cli(
      "soak --strategies immediates --limits default --objects 10 --size 8x8 --frames 60", 300);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count_lines(r.err.substr(r.err.find("bindery: error"))), 1u) << r.err;
  EXPECT_NE(r.err.find("bindery: error [StrategyUnavailable]: soak: none of immediates"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("unavailable"), std::string::npos) << r.out;
}

TEST(SoakCli, AWarmupInsideTheFirstFramesInFlightIsRefused) {
  // 2 frames in flight: frames 0..2 create and record what later frames reuse.
  expect_invalid_argument(run_cli("soak --frames 100 --check-every 10 --warmup 2", 60),
                          "frames_in_flight + 1 = 3");
}

TEST(SoakCli, MoreThanAThousandSamplesAreRefused) {
  expect_invalid_argument(run_cli("soak --frames 2000 --check-every 1", 60), "1000 samples");
}

TEST(SoakCli, AWarmupBeyondTheFramesIsRefusedWithoutOverflow) {
  expect_invalid_argument(run_cli("soak --frames 30 --check-every 10 --warmup 9223372036854775807", 60),
                          "9223372036854775807");
}

}  // namespace
}  // namespace bindery::test
