// SPDX-License-Identifier: MIT
// `bindery bench --repeat` through the CLI on this machine's device (issue 31): the JSON carries
// every repeat of every strategy in the interleaved order worked out from the options, the
// median and range agree with the repeats, each probe measures the frames the options ask for,
// and --quiet leaves stderr empty in render, bench and soak. Counts and order, never timings.
#include "support/cli_runner.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <vector>

namespace bindery::test {
namespace {

nlohmann::json last_json(const std::string& out) {
  const size_t end = out.find_last_not_of('\n');
  const size_t start = out.rfind('\n', end);
  return nlohmann::json::parse(out.substr(start == std::string::npos ? 0 : start + 1));
}

// Three strategies, two repeats, a budget nothing reaches: every first search doubles 10, 20, 40
// and is capped at --max 40; every second one starts at 9/10 of that, 36, then 40 (not 45). --frames 2 with 2 frames in flight (refused before issue 31: the drained
// frames were measured then) measures exactly 2 frames per probe with --probe-ms 0.
// Every probe gets the cluster options: the JSON says what they were, and a compute
// rasterizer whose visibility buffer cannot fit (4097 x 4096 x 8 bytes past lavapipe's 128 MiB
// storage binding) makes the probe "not possible here" with the part's reason, as bench counts
// every capacity limit (over budget, the search goes on).
TEST(BenchCli, ProbesTakeTheClusterOptions) {
  const CliResult ok = run_cli(
      "bench --strategies gpu-driven --clusters on --lod-error 2 --rasterizer hardware --start 2 "
      "--max 4 --repeat 1 --probe-ms 0 --frames 1 --warmup-frames 1 --size 8x8 --quiet",
      300);
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const nlohmann::json j = last_json(ok.out);
  EXPECT_EQ(j["clusters"], "on");
  EXPECT_EQ(j["lodErrorPx"], 2.0);
  EXPECT_EQ(j["rasterizer"], "hardware");
  EXPECT_EQ(j["vertexOrder"], "optimized");  // the default (issue 28)
  const CliResult source = run_cli(
      "bench --strategies dynamic-offsets --vertex-order source --start 2 --max 2 --repeat 1 "
      "--probe-ms 0 --frames 1 --warmup-frames 1 --size 8x8 --quiet",
      300);
  ASSERT_EQ(source.exit_code, 0) << source.err;
  EXPECT_EQ(last_json(source.out)["vertexOrder"], "source");
  const CliResult big = run_cli(
      "bench --strategies gpu-driven --clusters on --rasterizer compute --start 2 --max 2 "
      "--repeat 1 --probe-ms 0 --frames 1 --warmup-frames 1 --size 4097x4096",
      300);
  EXPECT_EQ(big.exit_code, 0) << big.err;
  EXPECT_NE(big.err.find("not possible here (the compute rasterizer's visibility buffer"),
            std::string::npos)
      << big.err;
}

TEST(BenchCli, RepeatsAreInterleavedAndAllInTheJson) {
  const CliResult r = run_cli(
      "bench --strategies dynamic-offsets,naive,storage-instancing --repeat 2 --start 10 "
      "--max 40 --frames 2 --frames-in-flight 2 --warmup-frames 2 --probe-ms 0 --size 8x8 "
      "--budget-ms 100000 --raw-floor --quiet --search geometric",
      600);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // --quiet: no header, no progress
  const nlohmann::json j = last_json(r.out);
  EXPECT_EQ(j["repeat"], 2);
  EXPECT_EQ(j["search"], "geometric");
  EXPECT_EQ(j["warmup_frames"], 2);
  EXPECT_EQ(j["frames_per_probe"], 2);
  EXPECT_EQ(j["max_frames_per_probe"], 2);
  ASSERT_EQ(j["results"].size(), 3u);
  // Slots: repeat 0 = strategies 0 1 2, repeat 1 = 1 2 0; strategy i's order in each repeat.
  const std::vector<std::vector<int>> orders = {{0, 5}, {1, 3}, {2, 4}};
  const std::vector<std::string> names = {"dynamic-offsets", "naive", "storage-instancing"};
  for (size_t i = 0; i < 3; ++i) {
    const nlohmann::json& s = j["results"][i];
    EXPECT_EQ(s["strategy"], names[i]);
    ASSERT_EQ(s["repeats"].size(), 2u) << s;
    for (size_t rep = 0; rep < 2; ++rep) {
      const nlohmann::json& x = s["repeats"][rep];
      EXPECT_EQ(x["repeat"], rep);
      EXPECT_EQ(x["order"], orders[i][rep]) << names[i] << " repeat " << rep;
      EXPECT_EQ(x["max_objects"], 40);
      EXPECT_EQ(x["capped"], true);
      const std::vector<int> counts = rep == 0 ? std::vector<int>{10, 20, 40}
                                               : std::vector<int>{36, 40};
      ASSERT_EQ(x["probes"].size(), counts.size());
      for (size_t p = 0; p < counts.size(); ++p) {
        EXPECT_EQ(x["probes"][p]["objects"], counts[p]);
        EXPECT_EQ(x["probes"][p]["frames"], 2);
      }
      EXPECT_FALSE(x.contains("serial_frame_ms"));  // measured once, at the median's count
    }
    EXPECT_EQ(s["max_objects"], 40);
    EXPECT_EQ(s["max_objects_min"], 40);
    EXPECT_EQ(s["max_objects_max"], 40);
    EXPECT_EQ(s["median_repeat"], 0);  // equal repeats: the first
    EXPECT_TRUE(s.contains("serial_frame_ms"));  // 2 frames in flight: the serial figure too
    EXPECT_EQ(s["capped_repeats"], 2);
    EXPECT_EQ(s["probes"], s["repeats"][0]["probes"]);
  }
  // The raw floor: 5 rounds at the median's 40 objects; the ratio's range is that of its rounds.
  const nlohmann::json& floor = j["results"][0]["raw_floor"];
  EXPECT_EQ(floor["objects"], 40);
  ASSERT_EQ(floor["rounds"].size(), 5u);
  std::vector<double> ratios;
  for (const nlohmann::json& round : floor["rounds"]) ratios.push_back(round["ratio"]);
  EXPECT_EQ(floor["ratio_min"].get<double>(), *std::min_element(ratios.begin(), ratios.end()));
  EXPECT_EQ(floor["ratio_max"].get<double>(), *std::max_element(ratios.begin(), ratios.end()));
  EXPECT_FALSE(j["results"][1].contains("raw_floor"));
  // The table: a range column, 40..40 on every row, and the line saying how it was taken.
  EXPECT_NE(r.out.find("range"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("40..40"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(capped by --max in 2 of 2 searches)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the median of 2 searches per strategy"), std::string::npos) << r.out;
}

// At one frame in flight there is no serial probe (the frames are serial already): the row's
// serial column says "-" (a reviewer found it repeating frame ms, while the last line said a
// probe had been taken), the last line says none, and the JSON has no serial_frame_ms.
TEST(BenchCli, OneFrameInFlightHasNoSerialProbe) {
  const CliResult r = run_cli(
      "bench --strategies naive --frames-in-flight 1 --start 2 --max 4 --repeat 1 --probe-ms 0 "
      "--frames 1 --warmup-frames 1 --size 8x8 --budget-ms 100000 --quiet",
      300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(last_json(r.out)["results"][0].contains("serial_frame_ms"));
  // The row: name, max objects, range, frame ms, serial ms, ...
  const size_t row = r.out.find("\nnaive ");
  ASSERT_NE(row, std::string::npos) << r.out;
  std::istringstream fields(r.out.substr(row + 1, r.out.find('\n', row + 1) - row - 1));
  std::string name, max_objects, range, frame_ms, serial_ms;
  fields >> name >> max_objects >> range >> frame_ms >> serial_ms;
  EXPECT_EQ(max_objects, "4");
  EXPECT_EQ(range, "4..4");
  EXPECT_EQ(serial_ms, "-");
  EXPECT_NE(r.out.find("serial ms none (--frames-in-flight 1"), std::string::npos) << r.out;
}

// The default search is guided: from 10 objects, far under a budget of 100 s, the prediction is
// past the largest step, 16 x 10 = 160, so the next count is the cap, 40; the second repeat starts
// at 36 (9/10 of 40), then the cap.
TEST(BenchCli, TheGuidedSearchIsTheDefault) {
  const CliResult r = run_cli(
      "bench --strategies dynamic-offsets --repeat 2 --start 10 --max 40 --frames 1 "
      "--warmup-frames 1 --probe-ms 0 --size 8x8 --budget-ms 100000 --quiet",
      300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = last_json(r.out);
  EXPECT_EQ(j["search"], "guided");
  const nlohmann::json& repeats = j["results"][0]["repeats"];
  ASSERT_EQ(repeats.size(), 2u);
  const std::vector<std::vector<int>> counts = {{10, 40}, {36, 40}};
  for (size_t rep = 0; rep < 2; ++rep) {
    ASSERT_EQ(repeats[rep]["probes"].size(), counts[rep].size()) << repeats[rep];
    for (size_t p = 0; p < counts[rep].size(); ++p)
      EXPECT_EQ(repeats[rep]["probes"][p]["objects"], counts[rep][p]) << rep << " " << p;
  }
  const CliResult bad = run_cli("bench --search bisect --size 8x8", 60);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--search"), std::string::npos) << bad.err;
}

// --probe-ms: each probe measures at least --frames frames, and stops at the first frame whose
// intervals reach the time asked for (or at the most a probe takes); the reported figures obey it.
TEST(BenchCli, AProbeMeasuresUntilItsFramesAddUp) {
  const CliResult r = run_cli(
      "bench --strategies dynamic-offsets --repeat 1 --start 10 --max 10 --frames 3 "
      "--probe-ms 40 --size 8x8 --budget-ms 100000",
      300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("1 repeat interleaved"), std::string::npos) << r.err;  // not quiet
  const nlohmann::json j = last_json(r.out);
  EXPECT_EQ(j["max_frames_per_probe"], 1000);
  const nlohmann::json& probes = j["results"][0]["repeats"][0]["probes"];
  ASSERT_EQ(probes.size(), 1u);
  for (const nlohmann::json& p : probes) {
    const int frames = p["frames"];
    EXPECT_GE(frames, 3) << p;
    EXPECT_LE(frames, 1000) << p;
    if (frames < 1000) EXPECT_GE(p["measured_ms"].get<double>(), 40.0) << p;
  }
}

TEST(QuietCli, RenderAndSoakPrintNothingOnStderr) {
  const CliResult render = run_cli("render --objects 10 --frames 8 --size 8x8 --quiet", 120);
  ASSERT_EQ(render.exit_code, 0) << render.err;
  EXPECT_EQ(render.err, "");
  // The variation judged over frames 1 .. 8 - 2 - 1: not the first, not the 2 drained.
  const nlohmann::json j = last_json(render.out);
  EXPECT_EQ(j["frameVariation"]["frames"], 5);
  EXPECT_EQ(j["frameVariation"]["factor"], 2.0);
  const bool varies = j["frameVariation"]["intervalMaxOverMin"].get<double>() > 2.0 ||
                      j["frameVariation"]["cpuMaxOverMin"].get<double>() > 2.0;
  EXPECT_EQ(j["frameVariation"]["varies"], varies);
  EXPECT_EQ(render.out.find("frames vary") != std::string::npos, varies) << render.out;
  const CliResult few = run_cli("render --objects 10 --frames 4 --size 8x8 --quiet", 120);
  ASSERT_EQ(few.exit_code, 0) << few.err;
  EXPECT_EQ(last_json(few.out)["frameVariation"]["frames"], 0);  // 1 steady frame: not judged
  EXPECT_EQ(last_json(few.out)["frameVariation"]["varies"], false);

  const CliResult soak = run_cli(
      "soak --strategies dynamic-offsets --objects 10 --frames 12 --check-every 2 --warmup 4 "
      "--memory-window 1 --size 8x8 --tolerance 1 --quiet",
      300);
  ASSERT_EQ(soak.exit_code, 0) << soak.err;
  EXPECT_EQ(soak.err, "");
  EXPECT_EQ(last_json(soak.out)["results"][0]["strategy"], "dynamic-offsets");
}

}  // namespace
}  // namespace bindery::test
