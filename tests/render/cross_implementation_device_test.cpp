// SPDX-License-Identifier: MIT
// Cross-implementation images (issue 13): the same cube scene, seed and time rendered by this
// build's `bindery` and by the other WebGPU implementation's `bindery` (wgpu-native vs Dawn, the
// other build's CLI named at configure time by BINDERY_CROSS_CLI), one PNG each, compared here with
// bindery's image tools: every strategy both can run gives the same image, per-channel difference
// at most 1 (rasterisation and depth are spec-defined; the difference allowed is one step of
// 8-bit rounding). A strategy one of them cannot run must say so with StrategyUnavailable.
#include "bindery/headless/image.hpp"
#include "bindery/render/renderer.hpp"
#include "support/cli_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace bindery {
namespace {

using test::CliResult;

// Runs `cli <args>`: this build's CLI or the other implementation's, the same way.
CliResult run_with(const std::string& cli, const std::string& args) {
  return test::run_program(cli, args, 300);
}

std::string implementation_of(const std::string& cli) {
  const CliResult r = run_with(cli, "info");
  EXPECT_EQ(r.exit_code, 0) << cli << " info: " << r.err;
  if (r.exit_code != 0) return "";
  return nlohmann::json::parse(r.out).at("implementation").at("name").get<std::string>();
}

TEST(CrossImplementation, SameImageForEveryStrategyBothRun) {
  const std::string other = BINDERY_CROSS_CLI;
  if (other.empty() || !std::filesystem::exists(other))
    GTEST_SKIP() << "no other implementation's bindery to compare with (configure with "
                    "-DBINDERY_CROSS_CLI=<the other build>/bindery; .ci/run does)";
  const std::string self = BINDERY_CLI;
  const std::string self_impl = implementation_of(self);
  const std::string other_impl = implementation_of(other);
  ASSERT_FALSE(self_impl.empty());
  ASSERT_FALSE(other_impl.empty());
  ASSERT_NE(self_impl, other_impl) << "BINDERY_CROSS_CLI must be the other implementation's build";

  const std::string dir = ::testing::TempDir() + "bindery_cross_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  // 300 cubes (several batches, every object visible somewhere), one frame frozen at t = 1.25 s.
  const std::string scene =
      "render --scene cubes --objects 300 --seed 11 --time 1.25 --frames 1 "
      "--size 160x120 --quiet";
  std::vector<std::string> compared, unavailable;
  for (const StrategyInfo& s : strategy_catalog()) {
    const std::string name(s.name);
    const std::string a = dir + "/" + name + "-" + self_impl + ".png";
    const std::string b = dir + "/" + name + "-" + other_impl + ".png";
    const CliResult ra = run_with(self, scene + " --strategy " + name + " --png " + a);
    const CliResult rb = run_with(other, scene + " --strategy " + name + " --png " + b);
    // Either it rendered, or it said why not with StrategyUnavailable; nothing else.
    for (const auto& [impl, r] : {std::pair{self_impl, ra}, std::pair{other_impl, rb}}) {
      if (r.exit_code != 0)
        EXPECT_NE(r.err.find("[StrategyUnavailable]"), std::string::npos)
            << name << " on " << impl << ": exit " << r.exit_code << ": " << r.err;
    }
    if (ra.exit_code != 0 || rb.exit_code != 0) {
      unavailable.push_back(name);
      continue;
    }
    const Image ia = read_png(a);
    const Image ib = read_png(b);
    ASSERT_EQ(ia.width, 160u);
    ASSERT_EQ(ib.width, 160u);
    // The comparison proves something only if cubes cover a good part of the view (background:
    // the clear colour 0.3 in 8-bit unorm, 76 or 77).
    const uint8_t background[3] = {77, 77, 77};
    const auto box = foreground_box(ia, background, 2);
    ASSERT_TRUE(box.has_value()) << name;
    EXPECT_GT(box->x1 - box->x0, 160u / 3) << name;
    EXPECT_GT(box->y1 - box->y0, 120u / 3) << name;
    EXPECT_LE(max_channel_difference(ia, ib), 1u)
        << name << ": " << self_impl << " and " << other_impl << " differ in "
        << count_differing_pixels(ia, ib, 1) << " pixels (" << a << ", " << b << ")";
    compared.push_back(name);
  }
  std::string list;
  for (const std::string& n : compared) list += n + " ";
  std::string skipped;
  for (const std::string& n : unavailable) skipped += n + " ";
  RecordProperty("compared", list);
  RecordProperty("unavailable_on_one", skipped);
  std::cout << "compared: " << list << "\nunavailable on one of them: " << skipped << "\n";
  // The CPU-encoding strategies need nothing optional: they run on both everywhere.
  EXPECT_GE(compared.size(), strategy_catalog().size() - 2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bindery
