// SPDX-License-Identifier: MIT
// Tests for `bindery plan` (apps/bindery/cmd_plan.cpp) over the shipped examples/plan/*.json.
// Expected numbers are worked out by hand from seed 001 and shared/cases C01 (see the derivation
// at the top of tests/encode/bind_group_plan_test.cpp):
//   seed_by_frequency      2000 objects, 50 materials, 3 passes, sorted by material:
//                          1 + 50 + 2000 = 2051 calls per pass, 3 x 2051 = 6153 per frame,
//                          1 + 50 + 2000 = 2051 bind groups
//   seed_by_resource_type  3 groups each with per-object data: 3 x 2000 = 6000 and 6000
//   seed_depth_order       material group every draw: 1 + 2000 + 2000 = 4001; bind groups 2051
//   intruder_object_id     object id in the material group: group 1 needs 2000 bind groups and
//                          2000 calls; calls 1 + 2000 + 2000 = 4001; bind groups 1 + 2000 + 1
//   c01_three_materials    1 + 3 + 12 = 16, 36 without a cache, 1 + 3 + 1 = 5 bind groups
//   merge_upward           maxBindGroups 3, 3 passes: frame / pass / material groups,
//                          1 + 1 + 50 = 52 calls; 1 + 3 + 50 = 54 bind groups
// and over tests/data/plan/ (shared/cases/inputs.md G15, G15b; tests/data/plan_windows_test.cpp has
// the arithmetic):
//   storage_array_1m_objects   1,000,000 x 144 bytes > 134,217,728: 2 windows of <= 932,067
//                              objects; the frame group holding the array: 2 bind groups, 2 calls
//   dynamic_arena_2m_objects   2,000,000 x 256 bytes > 268,435,456: 2 buffers of <= 1,048,576
//                              slots; the object group: 2 bind groups
#include "support/cli_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace {

// `bindery plan <args>` (tests/support/cli_runner.hpp).
bindery::test::CliResult run_plan(const std::string& args) {
  return bindery::test::run_cli("plan " + args);
}

std::string example(const std::string& name) {
  return std::string(BINDERY_SOURCE_DIR) + "/examples/plan/" + name;
}

nlohmann::json plan_json(const std::string& name) {
  const bindery::test::CliResult r = run_plan(example(name) + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(PlanCli, SeedByFrequency) {
  const auto j = plan_json("seed_by_frequency.json");
  EXPECT_EQ(j["set_bind_group_per_pass"], 2051);
  EXPECT_EQ(j["set_bind_group_per_frame"], 6153);
  EXPECT_EQ(j["bind_groups_created"], 2051);
  ASSERT_EQ(j["groups"].size(), 3u);
  EXPECT_EQ(j["groups"][0]["set_bind_group_per_pass"], 1);
  EXPECT_EQ(j["groups"][1]["set_bind_group_per_pass"], 50);
  EXPECT_EQ(j["groups"][2]["set_bind_group_per_pass"], 2000);
  EXPECT_TRUE(j["intruders"].empty());
}

TEST(PlanCli, SeedByResourceType) {
  const auto j = plan_json("seed_by_resource_type.json");
  EXPECT_EQ(j["set_bind_group_per_pass"], 6000);
  EXPECT_EQ(j["bind_groups_created"], 6000);
}

TEST(PlanCli, SeedDepthOrderRebindsMaterialsPerDraw) {
  const auto j = plan_json("seed_depth_order.json");
  EXPECT_EQ(j["groups"][1]["label"], "material");
  EXPECT_EQ(j["groups"][1]["set_bind_group_per_pass"], 2000);
  EXPECT_EQ(j["set_bind_group_per_pass"], 4001);
  EXPECT_EQ(j["bind_groups_created"], 2051);
}

TEST(PlanCli, IntruderIsReportedAndStrictFails) {
  const auto j = plan_json("intruder_object_id.json");
  ASSERT_EQ(j["intruders"].size(), 1u);
  EXPECT_EQ(j["intruders"][0]["binding"], "object_id");
  EXPECT_EQ(j["intruders"][0]["declared"], "material");
  EXPECT_EQ(j["intruders"][0]["observed"], "object");
  EXPECT_EQ(j["groups"][1]["bind_groups_created"], 2000);
  EXPECT_EQ(j["set_bind_group_per_pass"], 4001);
  EXPECT_EQ(j["bind_groups_created"], 2002);

  const bindery::test::CliResult strict =
      run_plan(example("intruder_object_id.json") + " --strict");
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_NE(strict.err.find("[Intruder]"), std::string::npos) << strict.err;
}

TEST(PlanCli, CaseC01) {
  const auto j = plan_json("c01_three_materials.json");
  EXPECT_EQ(j["set_bind_group_per_pass"], 16);
  EXPECT_EQ(j["set_bind_group_per_pass_uncached"], 36);
  EXPECT_EQ(j["bind_groups_created"], 5);
  EXPECT_EQ(j["dynamic_uniform_buffers"], 1);
  EXPECT_EQ(j["groups"].size(), 3u);
  EXPECT_NE(
      j["wgsl"].get<std::string>().find("@group(2) @binding(0) var<uniform> object : Object;"),
      std::string::npos);
}

TEST(PlanCli, MergeUpward) {
  const auto j = plan_json("merge_upward.json");
  ASSERT_EQ(j["groups"].size(), 3u);
  EXPECT_EQ(j["groups"][1]["label"], "pass");
  EXPECT_EQ(j["set_bind_group_per_pass"], 52);
  EXPECT_EQ(j["bind_groups_created"], 54);
  EXPECT_EQ(j["reasons"].size(), 2u);
}

TEST(PlanCli, TextReportShowsTheCounts) {
  const bindery::test::CliResult r = run_plan(example("seed_by_frequency.json"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("setBindGroup per pass: 2051"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bind groups created: 2051"), std::string::npos);
}

TEST(PlanCli, BadInputIsOneLineErrorWithItsKind) {
  const std::string bad =
      ::testing::TempDir() + "plan_cli_bad_" + std::to_string(getpid()) + ".json";
  std::ofstream(bad) << R"({"stats": {"objects": 10, "materials": 2, "passes": 1},
    "bindings": [{"name": "a", "kind": "uniform", "size": 16, "frequency": "sometimes"}]})";
  bindery::test::CliResult r = run_plan(bad);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("[PlanInput]"), std::string::npos) << r.err;

  std::ofstream(bad) << "{ not json";
  r = run_plan(bad);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("[PlanInput]"), std::string::npos) << r.err;

  r = run_plan(::testing::TempDir() + "does_not_exist.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("[Io]"), std::string::npos) << r.err;
}

std::string data(const std::string& name) {
  return std::string(BINDERY_SOURCE_DIR) + "/tests/data/plan/" + name;
}

TEST(PlanCli, CaseG15StorageArrayBeyondOneBinding) {
  const bindery::test::CliResult r = run_plan(data("storage_array_1m_objects.json") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["groups"].size(), 2u);
  const auto& frame = j["groups"][0];
  EXPECT_EQ(frame["bind_groups_created"], 2);
  EXPECT_EQ(frame["set_bind_group_per_pass"], 2);
  EXPECT_EQ(frame["windows"], 2);
  ASSERT_EQ(frame["bindings"].size(), 2u);
  EXPECT_EQ(frame["bindings"][1]["name"], "object");
  EXPECT_EQ(frame["bindings"][1]["objects_per_window"], 932067);
  EXPECT_EQ(frame["bindings"][1]["windows"], 2);
  EXPECT_EQ(j["set_bind_group_per_pass"], 2 + 10);
  EXPECT_EQ(j["bind_groups_created"], 2 + 10);
  // The text report names the split and the limit.
  const bindery::test::CliResult t = run_plan(data("storage_array_1m_objects.json"));
  EXPECT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("maxStorageBufferBindingSize"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("2 windows of <= 932067 objects"), std::string::npos) << t.out;
}

TEST(PlanCli, CaseG15bDynamicArenaBeyondMaxBufferSize) {
  const bindery::test::CliResult r = run_plan(data("dynamic_arena_2m_objects.json") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["groups"].size(), 3u);
  const auto& object = j["groups"][2];
  EXPECT_EQ(object["bind_groups_created"], 2);
  EXPECT_EQ(object["set_bind_group_per_pass"], 2000000);
  EXPECT_EQ(object["bindings"][0]["objects_per_window"], 1048576);
  EXPECT_EQ(object["bindings"][0]["windows"], 2);
  EXPECT_EQ(j["bind_groups_created"], 1 + 10 + 2);
}

TEST(PlanCli, SlotBeyondMaxBufferSizeIsBufferTooLarge) {
  const bindery::test::CliResult r = run_plan(data("dynamic_slot_over_max_buffer_size.json"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(bindery::test::count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("bindery: error [BufferTooLarge]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("maxBufferSize"), std::string::npos) << r.err;
}

}  // namespace
