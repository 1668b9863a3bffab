// SPDX-License-Identifier: MIT
// `--scene city` on the command line: render, bench and soak draw it and report its meshes,
// materials, textures and moved objects in their JSON; an option of another scene is refused in
// one line of kind SceneInput before any device is created.
#include "support/cli_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace {

using bindery::test::CliResult;
using bindery::test::count_lines;
using bindery::test::run_cli;

nlohmann::json last_json_line(const CliResult& r) {
  const std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  return nlohmann::json::parse(last);
}

// 200 objects at the default share 0.1: round(20) = 20 cars moved per frame.
TEST(CityCli, RenderReportsTheCity) {
  const CliResult r = run_cli(
      "render --scene city --objects 200 --meshes 10 --materials 5 --textures 8 --frames 2 "
      "--size 32x24 --quiet",
      300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = last_json_line(r);
  EXPECT_EQ(j["scene"], "city");
  EXPECT_EQ(j["objects"], 200);
  EXPECT_EQ(j["meshes"], 10);
  EXPECT_EQ(j["materials"], 5);
  EXPECT_EQ(j["textures"], 8);
  EXPECT_EQ(j["movingObjects"], 20);
  EXPECT_EQ(j["perFrame"]["draws"], 200);
}

// --moving 0.25 of 40 objects = 10 cars in every probe of 40 objects.
TEST(CityCli, BenchAndSoakReportTheCity) {
  const CliResult bench = run_cli(
      "bench --scene city --meshes 6 --textures 9 --moving 0.25 --strategies dynamic-offsets "
      "--start 40 --max 40 --frames 3 --size 8x8 --budget-ms 100000",
      300);
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  const auto b = last_json_line(bench);
  EXPECT_EQ(b["scene"], "city");
  EXPECT_EQ(b["meshes"], 6);
  EXPECT_EQ(b["textures"], 9);
  EXPECT_EQ(b["results"][0]["probes"][0]["objects"], 40);
  EXPECT_EQ(b["results"][0]["probes"][0]["moving_objects"], 10);
  const CliResult soak = run_cli(
      "soak --scene city --objects 40 --meshes 6 --moving 0.25 --strategies dynamic-offsets "
      "--frames 12 --check-every 2 --warmup 4 --memory-window 1 --size 8x8 --tolerance 1",
      300);
  ASSERT_EQ(soak.exit_code, 0) << soak.err;
  const auto s = last_json_line(soak);
  EXPECT_EQ(s["scene"], "city");
  EXPECT_EQ(s["objects"], 40);
  EXPECT_EQ(s["meshes"], 6);
  EXPECT_EQ(s["results"][0]["moving_objects"], 10);
}

TEST(CityCli, OptionsOfAnotherSceneAreRefusedInOneLine) {
  for (const char* args :
       {"render --meshes 5", "render --scene city --spread 2", "render --scene city --instances 2",
        "render --scene city --model x.glb", "render --scene city --meshes 0",
        "render --scene city --textures 1025", "bench --materials 3",
        "bench --scene city --spread 2", "soak --moving 0.5", "soak --scene city --instances 2",
        "soak --scene city --objects 0"}) {
    const CliResult r = run_cli(args, 60);
    EXPECT_EQ(r.exit_code, 1) << args << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << args << ": " << r.err;
    EXPECT_NE(r.err.find("[SceneInput]"), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
