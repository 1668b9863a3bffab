// SPDX-License-Identifier: MIT
// `bindery layout FILE.wgsl [--json]`: the fixed JSON shape of issue 3 (exact keys), exit codes
// 0 / 1 / 2, and offsets for structs the tool has never seen (hand-computed in the comments).
#include "support/cli_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {

using bindery::test::CliResult;
using bindery::test::run_cli;

std::string write_temp(const std::string& name, const std::string& text) {
  auto dir = std::filesystem::temp_directory_path() /
             ("bindery_layout_cli_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

// Keys in document order (ordered_json keeps the order the tool printed).
std::vector<std::string> keys_of(const nlohmann::ordered_json& j) {
  std::vector<std::string> k;
  for (auto it = j.begin(); it != j.end(); ++it) k.push_back(it.key());
  return k;
}

using Keys = std::vector<std::string>;

TEST(LayoutCli, JsonShapeAndValuesForANewStruct) {
  // Hand calculation:
  //   Never: a vec2<f32> 0 (align 8); b vec3<f32> 16 (align 16); c f32 28; d array<vec4<u32>, 3> 32,
  //   stride 16, size 48 -> 80; e mat2x2<f32> 80 (align 8, size 16) -> 96; size 96, align 16.
  //   var<uniform> n: minBindingSize 96, portable 96.
  //   var<uniform> v: vec2<f32>: minBindingSize 8, portable roundUp(16, 8) = 16.
  std::string path = write_temp("never.wgsl", R"(struct Never {
  a: vec2<f32>,
  b: vec3<f32>,
  c: f32,
  d: array<vec4<u32>, 3>,
  e: mat2x2<f32>,
}
@group(2) @binding(5) var<uniform> n: Never;
@group(2) @binding(6) var<uniform> v: vec2f;
)");
  CliResult r = run_cli("layout --json " + path);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::ordered_json::parse(r.out);
  EXPECT_EQ(keys_of(j), (Keys{"structs", "bindings", "errors"}));
  ASSERT_EQ(j["structs"].size(), 1u);
  const auto& s = j["structs"][0];
  EXPECT_EQ(keys_of(s), (Keys{"name", "size", "align", "members"}));
  EXPECT_EQ(s["name"], "Never");
  EXPECT_EQ(s["size"], 96);
  EXPECT_EQ(s["align"], 16);
  const auto& m = s["members"];
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(keys_of(m[0]), (Keys{"name", "type", "offset", "size", "align"}));
  EXPECT_EQ(keys_of(m[3]), (Keys{"name", "type", "offset", "size", "align", "stride"}));
  std::vector<std::tuple<std::string, std::string, int, int, int>> expected = {
      {"a", "vec2<f32>", 0, 8, 8},
      {"b", "vec3<f32>", 16, 12, 16},
      {"c", "f32", 28, 4, 4},
      {"d", "array<vec4<u32>, 3>", 32, 48, 16},
      {"e", "mat2x2<f32>", 80, 16, 8},
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    auto [name, type, offset, size, align] = expected[i];
    EXPECT_EQ(m[i]["name"], name);
    EXPECT_EQ(m[i]["type"], type);
    EXPECT_EQ(m[i]["offset"], offset) << name;
    EXPECT_EQ(m[i]["size"], size) << name;
    EXPECT_EQ(m[i]["align"], align) << name;
  }
  EXPECT_EQ(m[3]["stride"], 16);
  ASSERT_EQ(j["bindings"].size(), 2u);
  const auto& b = j["bindings"][0];
  EXPECT_EQ(keys_of(b), (Keys{"group", "binding", "name", "space", "type", "minBindingSize", "portableMinBindingSize"}));
  EXPECT_EQ(b["group"], 2);
  EXPECT_EQ(b["binding"], 5);
  EXPECT_EQ(b["name"], "n");
  EXPECT_EQ(b["space"], "uniform");
  EXPECT_EQ(b["type"], "Never");
  EXPECT_EQ(b["minBindingSize"], 96);
  EXPECT_EQ(b["portableMinBindingSize"], 96);
  EXPECT_EQ(j["bindings"][1]["type"], "vec2<f32>");
  EXPECT_EQ(j["bindings"][1]["minBindingSize"], 8);
  EXPECT_EQ(j["bindings"][1]["portableMinBindingSize"], 16);
  EXPECT_TRUE(j["errors"].empty());
}

TEST(LayoutCli, UniformViolationsExitOneWithLineAndColumn) {
  // X.a: array<u32, 2> has stride 4: not a multiple of 16 in uniform (layout.md L06). The error
  // points at member 'a' on line 2, column 3.
  std::string path = write_temp("l06.wgsl", "struct X {\n  a: array<u32, 2>,\n  b: u32,\n}\n"
                                            "@group(0) @binding(0) var<uniform> x: X;\n");
  CliResult r = run_cli("layout --json " + path);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  auto j = nlohmann::ordered_json::parse(r.out);
  ASSERT_EQ(j["errors"].size(), 1u) << r.out;
  EXPECT_EQ(keys_of(j["errors"][0]), (Keys{"line", "column", "message"}));
  EXPECT_EQ(j["errors"][0]["line"], 2);
  EXPECT_EQ(j["errors"][0]["column"], 3);
  // The layout is still reported, unpadded: a 0 (stride 4), b 8, size 12.
  EXPECT_EQ(j["structs"][0]["members"][1]["offset"], 8);
  EXPECT_EQ(j["structs"][0]["size"], 12);
  // With the language extension it is valid.
  EXPECT_EQ(run_cli("layout --standard-layout " + path).exit_code, 0);
  // Same exit code for the table output.
  EXPECT_EQ(run_cli("layout " + path).exit_code, 1);
}

TEST(LayoutCli, UnreadableOrUnparsableExitTwo) {
  EXPECT_EQ(run_cli("layout /nonexistent/bindery/shader.wgsl").exit_code, 2);
  EXPECT_EQ(run_cli("layout " + std::filesystem::temp_directory_path().string()).exit_code, 2);
  std::string bad = write_temp("syntax.wgsl", "struct S {\n  a: f32\n  b: f32\n}\n");
  CliResult r = run_cli("layout --json " + bad);
  EXPECT_EQ(r.exit_code, 2);
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["errors"].size(), 1u);
  EXPECT_EQ(j["errors"][0]["line"], 3);
  EXPECT_EQ(j["errors"][0]["column"], 3);
  std::string garbage = write_temp("garbage.wgsl", std::string("\x00\x01\xff\xfe{{{<<<", 10));
  EXPECT_EQ(run_cli("layout " + garbage).exit_code, 2);
}

TEST(LayoutCli, ExampleShaders) {
  std::string dir = std::string(BINDERY_SOURCE_DIR) + "/examples/shaders/";
  CliResult ok = run_cli("layout --json " + dir + "layout_demo.wgsl");
  ASSERT_EQ(ok.exit_code, 0) << ok.out;
  auto j = nlohmann::json::parse(ok.out);
  // Frame: viewProjection 0, normalMatrix 64, lights 112 (stride 32), lightCount 240, size 256.
  const auto& frame = j["structs"][1];
  EXPECT_EQ(frame["name"], "Frame");
  EXPECT_EQ(frame["size"], 256);
  EXPECT_EQ(frame["members"][2]["offset"], 112);
  EXPECT_EQ(frame["members"][2]["stride"], 32);
  EXPECT_EQ(frame["members"][3]["offset"], 240);
  // instances: runtime-sized array<mat4x4f> counted as one element.
  EXPECT_EQ(j["bindings"][2]["space"], "read-only-storage");
  EXPECT_EQ(j["bindings"][2]["minBindingSize"], 64);
  EXPECT_EQ(run_cli("layout " + dir + "layout_uniform_errors.wgsl").exit_code, 1);
  // The table names sizes and the tail padding.
  CliResult table = run_cli("layout " + dir + "layout_demo.wgsl");
  EXPECT_NE(table.out.find("struct Frame  size 256  align 16"), std::string::npos) << table.out;
}

}  // namespace
