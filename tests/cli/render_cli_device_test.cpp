// SPDX-License-Identifier: MIT
// `bindery render` end to end: the JSON line, the PNG, and bad input ending in one clear error
// line with a non-zero exit (never a crash: a signal would show as exit code >= 128).
#include "support/cli_runner.hpp"

#include <bindery/headless/image.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>
#include <string>
#include <vector>

namespace {

using bindery::test::CliResult;
using bindery::test::count_lines;
using bindery::test::run_cli;

// One clear error line naming the problem, exit 1 (not a signal, not 0).
void expect_one_error(const CliResult& r, const std::string& must_mention) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(must_mention), std::string::npos) << r.err;
}

TEST(RenderCli, JsonLineReportsDeviceLimitsAndCounters) {
  const std::string png = ::testing::TempDir() + "bindery_cli_frame.png";
  const CliResult r =
      run_cli("render --objects 50 --frames 2 --size 64x48 --time 1 --quiet --png " + png);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  const auto j = nlohmann::json::parse(last);
  EXPECT_EQ(j["objects"], 50);
  EXPECT_EQ(j["strategy"], "dynamic-offsets");
  EXPECT_EQ(j["perFrame"]["draws"], 50);
  // The limits in the JSON are the device's: a power of two, at most the 256 default. wgpu-native
  // never offers less than 32 (it raises smaller driver values); Dawn passes the driver's value
  // through (Vulkan allows down to 1; lavapipe reports 16).
  const uint32_t align = j["limits"]["minUniformBufferOffsetAlignment"];
  const std::string implementation = j["implementation"]["name"];
  const uint32_t floor = implementation == "dawn" ? 1 : 32;
  EXPECT_TRUE(implementation == "dawn" || implementation == "wgpu-native") << implementation;
  EXPECT_TRUE(align >= floor && align <= 256 && (align & (align - 1)) == 0) << align;
  EXPECT_EQ(j["objectStrideBytes"], (112 + align - 1) / align * align);
  const bindery::Image img = bindery::read_png(png);
  EXPECT_EQ(img.width, 64u);
  EXPECT_EQ(img.height, 48u);
}

TEST(RenderCli, RenderOffMode1x1Works) {
  const CliResult r = run_cli("render --objects 20 --frames 1 --size 1x1 --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// --draw-path and --material-backend belong to gpu-driven and gpu-culling: with another strategy
// they are refused in one line naming the option and the strategy, not silently ignored.
TEST(RenderCli, GpuDrivenOptionsWithAnotherStrategyAreRefused) {
  for (const char* option : {"--draw-path loop", "--material-backend binding-array"}) {
    const CliResult r = run_cli(std::string("render --objects 20 --frames 1 --size 8x8 --quiet ") +
                                "--strategy dynamic-offsets " + option);
    EXPECT_EQ(r.exit_code, 1) << option;
    EXPECT_NE(r.err.find("[InvalidArgument]"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(std::string(option).substr(0, std::string(option).find(' '))),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("dynamic-offsets"), std::string::npos) << r.err;
  }
  const CliResult ok = run_cli(
      "render --objects 20 --frames 1 --size 8x8 --quiet --strategy gpu-culling --draw-path loop");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  // bench and soak the same, for a list that holds neither; --occlusion belongs to gpu-driven
  // alone (gpu-culling culls by the frustum only), given on or off.
  for (const char* args :
       {"bench --strategies naive,dynamic-offsets --draw-path bundle",
        "soak --strategies naive --material-backend texture-arrays",
        "render --strategy gpu-culling --occlusion on", "render --strategy naive --occlusion off",
        "bench --strategies gpu-culling --occlusion off"}) {
    const CliResult r = run_cli(std::string(args) + " --frames 1 --size 8x8", 60);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_EQ(count_lines(r.err), 1u) << args << ": " << r.err;
    EXPECT_NE(r.err.find("[InvalidArgument]"), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find(" applies to gpu-driven"), std::string::npos) << args << ": " << r.err;
  }
}

// --debug-colors colours the cluster path: refused in one line with another strategy, with
// --clusters off and where --clusters auto chooses the per-object path; on the cluster path the
// JSON names it and, with levels at --lod-error 0, every covered pixel is level 0's colour of
// README's legend (230, 25, 75).
TEST(RenderCli, DebugColorsNeedTheClusterPath) {
  const std::pair<const char*, const char*> refused[] = {
      {"--strategy naive --debug-colors levels", "apply to gpu-driven"},
      {"--strategy gpu-driven --clusters off --debug-colors clusters", "--clusters off"},
      {"--strategy gpu-driven --debug-colors levels", "--clusters auto chose the per-object path"}};
  for (const auto& [args, why] : refused) {
    const CliResult r =
        run_cli(std::string("render --objects 20 --frames 1 --size 8x8 --quiet ") + args, 60);
    expect_one_error(r, "--debug-colors");
    EXPECT_NE(r.err.find("[InvalidArgument]"), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << args << ": " << r.err;
  }
  const CliResult bad = run_cli("render --objects 20 --frames 1 --size 8x8 --quiet --strategy "
                                "gpu-driven --clusters on --debug-colors rainbow",
                                60);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--debug-colors"), std::string::npos) << bad.err;
  const std::string png = ::testing::TempDir() + "bindery_cli_levels.png";
  const CliResult r = run_cli(
      "render --strategy gpu-driven --clusters on --objects 200 --frames 2 --size 96x64 --time 1 "
      "--debug-colors levels --lod-error 0 --quiet --png " +
          png,
      120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  const auto j = nlohmann::json::parse(last);
  EXPECT_EQ(j["debugColors"], "levels");
  EXPECT_EQ(j["lodErrorPx"], 0);
  const bindery::Image img = bindery::read_png(png);
  uint64_t covered = 0, level0 = 0;
  for (size_t p = 0; p < size_t(img.width) * img.height; ++p) {
    const uint8_t* c = &img.rgba[p * 4];
    if (std::abs(c[0] - 77) <= 1 && std::abs(c[1] - 77) <= 1 && std::abs(c[2] - 77) <= 1)
      continue;  // the clear colour
    ++covered;
    level0 += c[0] == 230 && c[1] == 25 && c[2] == 75;
  }
  EXPECT_GT(covered, 100u);
  EXPECT_EQ(level0, covered);
}

TEST(RenderCli, ClusterOptionsAreRefusedOffTheClusterPathAndWarnedWhenAutoLeavesThem) {
  // --rasterizer and --raster-rung belong to the cluster path: refused with --clusters off and
  // with another strategy, one line each.
  for (const char* args : {"--strategy gpu-driven --clusters off --rasterizer compute",
                           "--strategy gpu-driven --clusters off --raster-rung core",
                           "--strategy gpu-driven --clusters on --rasterizer hardware "
                           "--raster-rung core",
                           "--strategy naive --rasterizer compute"}) {
    const CliResult r =
        run_cli(std::string("render --objects 20 --frames 1 --size 8x8 --quiet ") + args, 60);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_EQ(count_lines(r.err), 1u) << args << ": " << r.err;
    EXPECT_NE(r.err.find("[InvalidArgument]"), std::string::npos) << args << ": " << r.err;
  }
  // 20 cubes are far below --clusters auto's threshold: the options change nothing, and the run
  // says so (once), where --clusters on takes them silently.
  const CliResult auto_off = run_cli(
      "render --objects 20 --frames 1 --size 8x8 --quiet --strategy gpu-driven --lod-error 2 "
      "--rasterizer compute",
      60);
  EXPECT_EQ(auto_off.exit_code, 0) << auto_off.err;
  EXPECT_EQ(count_lines(auto_off.err), 1u) << auto_off.err;
  EXPECT_NE(auto_off.err.find("warning: --lod-error and --rasterizer/--raster-rung had no effect: "
                              "--clusters auto chose the per-object path"),
            std::string::npos)
      << auto_off.err;
  const CliResult on = run_cli(
      "render --objects 20 --frames 1 --size 8x8 --quiet --strategy gpu-driven --clusters on "
      "--lod-error 2 --rasterizer compute",
      60);
  EXPECT_EQ(on.exit_code, 0) << on.err;
  EXPECT_EQ(on.err, "");
  EXPECT_NE(on.out.find("\"rasterizer\":\"compute\""), std::string::npos);
  // The other way: 40 engines (4.9 million triangles) at 8x8 make auto choose clusters, where
  // --draw-path changes nothing.
  const std::string engine =
      "/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb";
  if (!std::filesystem::exists(engine)) return;
  const CliResult auto_on = run_cli("render --model " + engine +
                                        " --instances 40 --frames 1 --size 8x8 --quiet "
                                        "--strategy gpu-driven --draw-path loop",
                                    120);
  EXPECT_EQ(auto_on.exit_code, 0) << auto_on.err;
  EXPECT_NE(auto_on.err.find("warning: --draw-path had no effect: --clusters auto chose the "
                             "cluster path"),
            std::string::npos)
      << auto_on.err;
}

// --vertex-order (issue 28): the JSON says the order drawn (optimized by default); the per-object
// path draws the same image with both (the triangles and their winding are the scene's); another
// value is one usage line naming the option and its values, exit 2.
TEST(RenderCli, VertexOrderIsReportedAndKeepsTheImage) {
  std::vector<bindery::Image> images;
  for (const char* order : {"", "optimized", "source"}) {
    const std::string png = ::testing::TempDir() + "bindery_vertex_order.png";
    const std::string flag = *order ? std::string(" --vertex-order ") + order : std::string();
    const CliResult r =
        run_cli("render --objects 200 --frames 3 --size 64x48 --time 1 --quiet --strategy "
                "gpu-driven --clusters off --png " + png + flag,
                60);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
    const auto j = nlohmann::json::parse(last);
    EXPECT_EQ(j["vertexOrder"], *order ? order : "optimized") << order;
    if (*order) images.push_back(bindery::read_png(png));
  }
  ASSERT_EQ(images.size(), 2u);
  EXPECT_EQ(bindery::count_differing_pixels(images[0], images[1], 0), 0u);
  for (const char* args : {"render --vertex-order shuffled", "bench --vertex-order ''"}) {
    const CliResult r = run_cli(std::string(args) + " --frames 1 --size 8x8", 60);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(count_lines(r.err), 1u) << args << ": " << r.err;
    EXPECT_NE(r.err.find("[InvalidArgument]"), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find("--vertex-order"), std::string::npos) << args << ": " << r.err;
  }
}

TEST(RenderCli, BadModelPath) {
  expect_one_error(run_cli("render --scene gltf --model /nonexistent/model.glb --frames 1"),
                   "/nonexistent/model.glb");
}

TEST(RenderCli, MalformedGltf) {
  const std::string path = ::testing::TempDir() + "bindery_malformed.gltf";
  std::ofstream(path)
      << "{ \"asset\": { \"version\": \"2.0\" }, \"meshes\": [ { \"primitives\": [ "
         "{ \"attributes\": { \"POSITION\": 7 } } ] } ], \"nodes\": [ { \"mesh\": 0 } ] }";
  expect_one_error(run_cli("render --scene gltf --model " + path + " --frames 1"), "glTF");
}

TEST(RenderCli, GltfIndexOutOfRange) {
  // A real malformed model from Debian's assimp-testmodels.
  const char* model = "/usr/share/assimp/models/glTF2/IndexOutOfRange/IndexOutOfRange.gltf";
  if (!std::filesystem::exists(model)) GTEST_SKIP();
  const CliResult r = run_cli(std::string("render --scene gltf --frames 1 --model ") + model);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
}

// Issue 9: glTF input never ends in a kindless "bindery: error: <raw text>". Each broken file
// gives one "bindery: error [Kind]: render: glTF '<file>' ..." line, exit 1: a required extension named
// first, points/lines only, a truncated GLB (12-byte header of 20 promised), bytes that are not
// JSON, a JSON array, a texture whose image bytes are not an image.
TEST(RenderCli, GltfErrorsAlwaysHaveAKind) {
  const std::string data = std::string(BINDERY_SOURCE_DIR) + "/tests/data/gltf/relatives/";
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + name, std::ios::binary) << bytes;
    return dir + name;
  };
  const std::pair<std::string, std::string> cases[] = {
      {data + "unknown_required_extension.gltf", "[UnsupportedExtension]"},
      {data + "quad_lines_only.gltf", "[ModelLoad]"},
      {write("bindery_truncated.glb", std::string("glTF\x02\0\0\0\x40\0\0\0", 12)), "[ModelLoad]"},
      {write("bindery_garbage.gltf", "\x7f\x45\x4c\x46 not json"), "[ModelLoad]"},
      {write("bindery_array.gltf", "[1, 2, 3]"), "[ModelLoad]"},
      {write("bindery_bad_image.gltf",
             R"({"asset": {"version": "2.0"}, "images": [{"uri": "data:image/png;base64,AAAA"}]})"),
       "[ModelLoad]"}};
  for (const auto& [path, kind] : cases) {
    const CliResult r = run_cli("render --frames 1 --size 8x8 --quiet --model " + path);
    SCOPED_TRACE(path);
    expect_one_error(r, "bindery: error " + kind + ": render: glTF '" + path + "'");
  }
  // A valid file with points next to its triangles renders, with one warning line naming them.
  const CliResult ok = run_cli("render --frames 1 --size 8x8 --quiet --model " + data +
                               "quad_points_and_triangles.gltf");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(count_lines(ok.err), 1u) << ok.err;
  EXPECT_NE(ok.err.find("bindery: warning: glTF"), std::string::npos) << ok.err;
  EXPECT_NE(ok.err.find("POINTS"), std::string::npos) << ok.err;
}

TEST(RenderCli, ZeroSize) {
  expect_one_error(run_cli("render --size 0x0 --frames 1"), "0x0");
}

TEST(RenderCli, MalformedSize) {
  expect_one_error(run_cli("render --size big --frames 1"), "big");
}

TEST(RenderCli, NegativeObjects) {
  expect_one_error(run_cli("render --objects -1 --frames 1"), "-1");
}

// Numbers are read as written in decimal: CLI11 alone reads 010 as octal 8, 0x10 as 16 and
// 1e-400 as 0; each is one usage error (exit 2, as every command-line usage error) naming the
// option, the value and the rule (the breaker's findings).
TEST(RenderCli, NumbersAreDecimalAsWritten) {
  const std::pair<const char*, const char*> cases[] = {
      {"render --objects 010 --frames 1", "--objects '010': a whole number is written in decimal"},
      {"bench --start 010 --max 010 --size 8x8", "--start '010'"},
      {"bench --repeat 08 --size 8x8", "--repeat '08'"},
      {"bench --budget-ms 0x10 --size 8x8", "--budget-ms '0x10': a number is written in decimal"},
      {"bench --probe-ms 1e-400 --size 8x8", "--probe-ms '1e-400': the number is out of the range"},
      {"bench --budget-ms 1e400 --size 8x8", "--budget-ms '1e400'"},
      // Hexadecimal whole numbers break the decimal rule, not the leading-zero one.
      {"render --objects 0x10 --frames 1", "--objects '0x10': a number is written in decimal"},
      // Of an option given twice, the message quotes the value that broke the rule.
      {"render --objects 5 --objects 010 --frames 1", "--objects '010': a whole number"},
      {"render --objects=0x10 --objects 5 --frames 1", "--objects '0x10'"}};
  for (const auto& [args, words] : cases) {
    SCOPED_TRACE(args);
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  }
  // Plain decimal still reads, a sign and an exponent too.
  const CliResult ok = run_cli("render --objects 10 --frames 1 --size 8x8 --quiet --spread +1.5e0");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(RenderCli, UnknownStrategy) {
  expect_one_error(run_cli("render --strategy fastest --frames 1"), "fastest");
}

// An error found after parsing, in the library's words too, is led by the subcommand's name like
// the parser's: one line "bindery: error [Kind]: render: ...", and both size errors read alike.
TEST(RenderCli, ErrorsAfterParsingNameTheSubcommand) {
  const std::pair<const char*, const char*> cases[] = {
      {"render --strategy fastest --frames 1", "[InvalidArgument]: render: unknown strategy"},
      {"bench --strategies fastest --size 8x8", "[InvalidArgument]: bench: "},
      {"render --size 99999x1 --frames 1 --quiet", "[TextureSizeOutOfRange]: render: --size 99999x1, valid 1.."},
      {"render --size 0x8 --frames 1", "[TextureSizeOutOfRange]: render: --size 0x8, valid 1.."}};
  for (const auto& [args, words] : cases) {
    SCOPED_TRACE(args);
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind(std::string("bindery: error ") + words, 0), 0u) << r.err;
  }
}

TEST(RenderCli, UnalignableUniformAlignment) {
  // cases D02 (e): 48 is not a power of two.
  expect_one_error(run_cli("render --uniform-alignment 48 --frames 1"), "48");
}

}  // namespace
