// SPDX-License-Identifier: MIT
// `bindery view` (issue 21) on an Xvfb display (tests/support/with_xvfb.sh): the presented frame
// is the image `render --png` writes for the same settings; a script that switches strategies,
// changes the object count and resizes the window ends on the image of its final settings; every
// present mode the surface offers runs and one it lacks is refused in one line; no display is one
// line [NoDisplay], exit 1.
#include "support/cli_runner.hpp"

#include <bindery/core/error.hpp>
#include <bindery/headless/image.hpp>
#if BINDERY_HAS_VIEW
#include "apps/bindery/view/view.hpp"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace {

using bindery::test::CliResult;
using bindery::test::count_lines;
using bindery::test::run_cli;
using bindery::test::run_program;

const std::string kXvfb = std::string(BINDERY_SOURCE_DIR) + "/tests/support/with_xvfb.sh";

// Skips the test (with the reason) where the view is not built or Xvfb is missing.
#define SKIP_WITHOUT_VIEW()                                                                     \
  do {                                                                                          \
    if (!BINDERY_HAS_VIEW) GTEST_SKIP() << "bindery view is not built (GLFW or ImGui missing)"; \
    if (std::system("command -v Xvfb >/dev/null 2>&1") != 0)                                    \
      GTEST_SKIP() << "Xvfb is not installed (Debian package xvfb): no display to test on";     \
  } while (0)

CliResult view(const std::string& args) {
  return run_program("bash " + kXvfb + " " + BINDERY_CLI, "view " + args, 300);
}

std::string temp(const std::string& name) {
  return ::testing::TempDir() + "view_test_" + name;
}

void expect_same_image(const std::string& a, const std::string& b) {
  const bindery::Image x = bindery::read_png(a), y = bindery::read_png(b);
  ASSERT_EQ(x.width, y.width);
  ASSERT_EQ(x.height, y.height);
  EXPECT_LE(bindery::max_channel_difference(x, y), 1u) << a << " vs " << b;
}

TEST(ViewCli, PresentedFrameEqualsRenderPng) {
  SKIP_WITHOUT_VIEW();
  for (const std::string strategy : {"naive", "dynamic-offsets", "gpu-driven"}) {
    SCOPED_TRACE(strategy);
    const std::string common =
        "--strategy " + strategy + " --objects 300 --size 160x120 --time 1.25 --frames 3 --quiet";
    const std::string r_png = temp("render_" + strategy + ".png");
    const std::string v_png = temp("view_" + strategy + ".png");
    const CliResult r = run_cli("render " + common + " --png " + r_png + " >/dev/null", 300);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const CliResult v = view(common + " --panel off --png " + v_png);
    ASSERT_EQ(v.exit_code, 0) << v.err;
    expect_same_image(r_png, v_png);
  }
}

TEST(ViewCli, CityAndGltfEqualRenderPng) {
  SKIP_WITHOUT_VIEW();
  std::vector<std::pair<std::string, std::string>> cases = {
      {"city",
       "--scene city --objects 600 --meshes 20 --textures 4 --strategy storage-instancing"}};
  const std::string model = "/usr/share/assimp/models/glTF2/BoxTextured-glTF/BoxTextured.gltf";
  if (std::ifstream(model).good())
    cases.emplace_back("gltf", "--model " + model + " --instances 3 --strategy dynamic-offsets");
  for (const auto& [name, scene] : cases) {
    SCOPED_TRACE(name);
    const std::string common = scene + " --size 160x120 --time 0.75 --frames 3 --quiet";
    const std::string r_png = temp("render_" + name + ".png");
    const std::string v_png = temp("view_" + name + ".png");
    const CliResult r = run_cli("render " + common + " --png " + r_png + " >/dev/null", 300);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const CliResult v = view(common + " --panel off --png " + v_png);
    ASSERT_EQ(v.exit_code, 0) << v.err;
    expect_same_image(r_png, v_png);
  }
}

TEST(ViewCli, ScriptSwitchesStrategiesCountAndSize) {
  SKIP_WITHOUT_VIEW();
  const std::string script = temp("script.txt");
  std::ofstream(script) << "# frame action values\n"
                           "2 strategy naive\n"
                           "4 objects 150\n"
                           "5 strategy gpu-driven\n"
                           "7 resize 200 140\n"
                           "9 strategy storage-instancing\n"
                           "10 spread 2.5\n"
                           "10 pause\n"
                           "11 panel off\n";
  const std::string v_png = temp("script_view.png");
  const CliResult v = view(
      "--objects 400 --size 160x120 --time 0.5 --frames 13 "
      "--script " +
      script + " --png " + v_png);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.err.find("13 frames presented"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("strategy storage-instancing, 150 objects"), std::string::npos) << v.err;
  // Seven runs (start, naive, 150 objects, gpu-driven, the resize, storage-instancing, spread
  // 2.5), the panel drawn until frame 11, each run leaving no object behind.
  EXPECT_NE(v.err.find("7 runs (0 refused)"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("handles left over: none"), std::string::npos) << v.err;
  const std::string r_png = temp("script_render.png");
  const CliResult r = run_cli(
      "render --strategy storage-instancing --objects 150 --spread 2.5 --size 200x140 "
      "--time 0.5 --frames 2 --quiet --png " +
          r_png + " >/dev/null",
      300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_same_image(r_png, v_png);
}

TEST(ViewCli, RefusedSwitchKeepsTheRunningStrategy) {
  SKIP_WITHOUT_VIEW();
  // With the spec's default limits (maxImmediateSize 0) `immediates` is StrategyUnavailable: the
  // switch is refused, said once, and the view goes on with the strategy that ran.
  const std::string script = temp("refused_script.txt");
  std::ofstream(script) << "2 strategy immediates\n";
  const CliResult v =
      view("--objects 100 --size 96x64 --frames 6 --limits default --script " + script);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.err.find("immediates refused:"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("6 frames presented"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("strategy dynamic-offsets"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("(1 refused)"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("handles left over: none"), std::string::npos) << v.err;
}

TEST(ViewCli, OrbitMovesTheCameraResetRestoresIt) {
  SKIP_WITHOUT_VIEW();
  const std::string common = "--objects 300 --size 128x96 --time 2 --frames 6 --panel off ";
  const std::string r_png = temp("orbit_render.png");
  const CliResult r = run_cli("render " + common.substr(0, common.find(" --panel")) +
                                  " --quiet --png " + r_png + " >/dev/null",
                              300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string moved = temp("orbit_moved.txt"), reset = temp("orbit_reset.txt");
  std::ofstream(moved) << "1 orbit 40 -15\n2 zoom 0.8\n";
  std::ofstream(reset) << "1 orbit 40 -15\n2 zoom 0.8\n4 camera reset\n";
  const std::string moved_png = temp("orbit_moved.png"), reset_png = temp("orbit_reset.png");
  CliResult v = view(common + "--script " + moved + " --png " + moved_png);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_GT(bindery::max_channel_difference(bindery::read_png(r_png), bindery::read_png(moved_png)),
            32u)
      << "the orbit did not move the camera";
  v = view(common + "--script " + reset + " --png " + reset_png);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  expect_same_image(r_png, reset_png);
}

// A script's quit ends the run as esc does: the next presented frame is the last, and --png
// writes it (with no --frames, quit is the only end).
TEST(ViewCli, ScriptQuitWritesTheLastPresentedFrame) {
  SKIP_WITHOUT_VIEW();
  const std::string common = "--objects 300 --size 128x96 --time 2 --quiet ";
  const std::string r_png = temp("quit_render.png"), v_png = temp("quit_view.png");
  const CliResult r = run_cli("render " + common + "--frames 3 --png " + r_png + " >/dev/null", 300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string script = temp("quit.txt");
  std::ofstream(script) << "4 quit\n";
  std::remove(v_png.c_str());
  const CliResult v = view(common + "--panel off --script " + script + " --png " + v_png);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  expect_same_image(r_png, v_png);
}

// A window larger than the device's maxTextureDimension2D is one line and exit 1, before the
// surface is configured (wgpu-native aborts the process inside wgpuSurfaceConfigure); so is an
// empty --png. A script raising the count past what the strategy holds is refused once, the
// run's settings go back and the frames go on to --frames.
TEST(ViewCli, OversizedWindowEmptyPngAndOversizedCountAreHandled) {
  SKIP_WITHOUT_VIEW();
  CliResult v = view("--objects 10 --size 20000x20 --frames 2");
  EXPECT_EQ(v.exit_code, 1) << v.err;
  EXPECT_EQ(count_lines(v.err), 1u) << v.err;
  EXPECT_NE(v.err.find("[TextureSizeOutOfRange]"), std::string::npos) << v.err;
  v = view("--objects 10 --size 64x48 --frames 2 --png ''");
  EXPECT_EQ(v.exit_code, 1) << v.err;
  EXPECT_NE(v.err.find("[Io]"), std::string::npos) << v.err;
  const std::string script = temp("too_many.txt");
  std::ofstream(script) << "2 objects 10000000\n";
  v = view("--objects 10 --size 64x48 --frames 8 --strategy gpu-driven --script " + script);
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.err.find("8 frames presented"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("(1 refused)"), std::string::npos) << v.err;
}

// The cluster path's controls at 320x240 (issue 26, issue 28): --debug-colors levels at
// --lod-error 0 presents level 0's colour of README's legend on every covered pixel, on both
// rasterizers; the script's lod-error and debug-colors (the panel's slider and combo) end on the
// image `render` draws with those flags; a switch to a strategy without clusters is not refused
// for them; the panel stays within 60% x 75% of the window and covers at most 40% of it.
TEST(ViewCli, DebugColorsAndPixelErrorAt320x240) {
  SKIP_WITHOUT_VIEW();
  const std::string base =
      "--strategy gpu-driven --clusters on --objects 300 --size 320x240 --time 1 ";
  const std::string common = base + "--quiet ";
  for (const std::string rasterizer : {"hardware", "compute"}) {
    SCOPED_TRACE(rasterizer);
    const std::string v_png = temp("levels_" + rasterizer + ".png");
    const CliResult v = view(common + "--rasterizer " + rasterizer +
                             " --debug-colors levels --lod-error 0 --frames 3 --panel off --png " +
                             v_png);
    ASSERT_EQ(v.exit_code, 0) << v.err;
    const bindery::Image img = bindery::read_png(v_png);
    ASSERT_EQ(img.width, 320u);
    uint64_t covered = 0, level0 = 0;
    for (size_t p = 0; p < size_t(img.width) * img.height; ++p) {
      const uint8_t* c = &img.rgba[p * 4];
      if (std::abs(c[0] - 77) <= 1 && std::abs(c[1] - 77) <= 1 && std::abs(c[2] - 77) <= 1)
        continue;  // the clear colour
      ++covered;
      level0 += c[0] == 230 && c[1] == 25 && c[2] == 75;
    }
    EXPECT_GT(covered, 1000u);
    EXPECT_EQ(level0, covered);
  }
  // The panel's settings by script, against render's flags.
  const std::string script = temp("lod_script.txt");
  std::ofstream(script) << "1 debug-colors clusters\n2 lod-error 8\n3 debug-colors levels\n";
  const std::string v_png = temp("lod_view.png"), r_png = temp("lod_render.png");
  CliResult v = view(common + "--frames 5 --panel off --script " + script + " --png " + v_png);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  const CliResult r = run_cli("render " + common +
                                  "--frames 3 --debug-colors levels --lod-error 8 --png " + r_png +
                                  " >/dev/null",
                              300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_same_image(r_png, v_png);
  // A switch to a strategy without clusters goes on with the debug colours chosen.
  std::ofstream(script) << "2 strategy naive\n";
  v = view(base + "--frames 4 --debug-colors clusters --script " + script);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.err.find("2 runs (0 refused)"), std::string::npos) << v.err;
  // The panel (with its cluster controls) against no panel: where the surface texture is read
  // back, the pixels it changes.
  const std::string on_png = temp("panel_on.png"), off_png = temp("panel_off.png");
  const std::string still = common + "--frames 3 --debug-colors levels ";
  const CliResult on = run_program("bash " + kXvfb + " " + BINDERY_CLI,
                                   "view " + still + "--png " + on_png, 300);
  ASSERT_EQ(on.exit_code, 0) << on.err;
  if (on.out.find("the presented surface texture") == std::string::npos) {
    std::cout << "[ note ] the surface is not read back here: the panel's size is not checked\n";
    return;
  }
  v = view(still + "--panel off --png " + off_png);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  const bindery::Image a = bindery::read_png(on_png), b = bindery::read_png(off_png);
  ASSERT_EQ(a.width, b.width);
  uint32_t right = 0, bottom = 0;
  uint64_t changed = 0;
  for (uint32_t y = 0; y < a.height; ++y)
    for (uint32_t x = 0; x < a.width; ++x) {
      const size_t p = (size_t(y) * a.width + x) * 4;
      if (std::equal(&a.rgba[p], &a.rgba[p + 3], &b.rgba[p])) continue;
      ++changed;
      right = std::max(right, x + 1);
      bottom = std::max(bottom, y + 1);
    }
  EXPECT_GT(changed, 0u) << "no panel drawn";
  EXPECT_LE(changed, uint64_t(320) * 240 * 4 / 10);
  // At (4, 4), at most 60% x 75% of the window.
  EXPECT_LE(right, 4u + 192u);
  EXPECT_LE(bottom, 4u + 180u);
}

// The cluster options the view refuses before a window: --debug-colors with --clusters off, a
// script's debug-colors that is none of the three, a lod-error past kMaxLodErrorPx; with a window,
// --debug-colors where the first run does not take the cluster path.
TEST(ViewCli, DebugColorsRefusals) {
  if (!BINDERY_HAS_VIEW) GTEST_SKIP() << "bindery view is not built (GLFW or ImGui missing)";
  const std::string script = temp("bad_debug.txt");
  CliResult r = run_program(std::string("env -u DISPLAY ") + BINDERY_CLI,
                            "view --strategy gpu-driven --clusters off --debug-colors levels", 60);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("[InvalidArgument]: view: --debug-colors"), std::string::npos) << r.err;
  for (const auto& [line, message] :
       {std::pair<const char*, const char*>{"1 debug-colors rainbow\n",
                                            "line 1: debug-colors 'rainbow' is not one of"},
        {"1 lod-error 2000\n", "line 1: lod-error needs a number in 0..1000"}}) {
    std::ofstream(script) << line;
    r = run_program(std::string("env -u DISPLAY ") + BINDERY_CLI, "view --script " + script, 60);
    EXPECT_EQ(r.exit_code, 1) << line;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  if (std::system("command -v Xvfb >/dev/null 2>&1") != 0) return;
  r = view("--strategy naive --objects 20 --size 320x240 --frames 2 --debug-colors levels");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("[InvalidArgument]: view: --debug-colors levels"), std::string::npos) << r.err;
}

TEST(ViewCli, EveryOfferedPresentModeRunsOthersAreRefused) {
  SKIP_WITHOUT_VIEW();
  // fifo is always offered (WebGPU: every surface supports it); its summary names the others.
  const CliResult fifo = view("--objects 50 --size 64x48 --frames 4 --present-mode fifo");
  ASSERT_EQ(fifo.exit_code, 0) << fifo.err;
  const std::string key = "the surface offers ";
  const size_t at = fifo.err.find(key);
  ASSERT_NE(at, std::string::npos) << fifo.err;
  const std::string offered =
      fifo.err.substr(at + key.size(), fifo.err.find('\n', at) - at - key.size());
  int refused = 0;
  for (const std::string mode : {"fifo", "fifo-relaxed", "mailbox", "immediate"}) {
    SCOPED_TRACE(mode);
    const bool offers = (", " + offered + ",").find(", " + mode + ",") != std::string::npos;
    const CliResult v = view("--objects 50 --size 64x48 --frames 4 --present-mode " + mode);
    if (offers) {
      EXPECT_EQ(v.exit_code, 0) << v.err;
      EXPECT_NE(v.err.find("4 frames presented (" + mode + ","), std::string::npos) << v.err;
      continue;
    }
    ++refused;
    EXPECT_EQ(v.exit_code, 1);
    EXPECT_EQ(count_lines(v.err), 1u) << v.err;
    EXPECT_NE(v.err.find("[PresentModeUnsupported]"), std::string::npos) << v.err;
    EXPECT_NE(v.err.find("this surface offers " + offered), std::string::npos) << v.err;
  }
  RecordProperty("offered", offered);
  if (refused == 0)
    std::cout << "[ note ] the surface offers every mode (" << offered
              << "): no refusal to check here\n";
}

#if BINDERY_HAS_VIEW
// Where the surface offers every mode (lavapipe on Xvfb offers all four) the refusal is checked
// here, on the capabilities a surface with fewer modes would report.
TEST(ViewPresentMode, RefusalNamesTheOfferedModes) {
  using bindery::view::pick_present_mode;
  const std::vector<WGPUPresentMode> fifo_only = {WGPUPresentMode_Fifo};
  EXPECT_EQ(pick_present_mode("fifo", fifo_only), WGPUPresentMode_Fifo);
  try {
    pick_present_mode("mailbox", fifo_only);
    ADD_FAILURE() << "mailbox accepted on a fifo-only surface";
  } catch (const bindery::Error& e) {
    EXPECT_EQ(e.kind(), bindery::ErrorKind::PresentModeUnsupported);
    EXPECT_EQ(std::string(e.what()), "view: --present-mode mailbox: this surface offers fifo");
  }
  const std::vector<WGPUPresentMode> two = {WGPUPresentMode_Fifo, WGPUPresentMode_Immediate};
  EXPECT_EQ(pick_present_mode("immediate", two), WGPUPresentMode_Immediate);
  try {
    pick_present_mode("vsync", two);
    ADD_FAILURE() << "an unknown name accepted";
  } catch (const bindery::Error& e) {
    EXPECT_EQ(e.kind(), bindery::ErrorKind::InvalidArgument);
  }
}
#endif

TEST(ViewCli, NoDisplayIsOneLineExitOne) {
  if (!BINDERY_HAS_VIEW) GTEST_SKIP() << "bindery view is not built (GLFW or ImGui missing)";
  CliResult r = run_program(std::string("env -u DISPLAY ") + BINDERY_CLI, "view --frames 1", 60);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("error [NoDisplay]"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  // A display that is not there (no server on :4999) is the same error.
  r = run_program(std::string("env DISPLAY=:4999 ") + BINDERY_CLI, "view --frames 1", 60);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("error [NoDisplay]"), std::string::npos) << r.err;
}

TEST(ViewCli, BadScriptIsRefusedBeforeAWindow) {
  if (!BINDERY_HAS_VIEW) GTEST_SKIP() << "bindery view is not built (GLFW or ImGui missing)";
  const std::string script = temp("bad_script.txt");
  std::ofstream(script) << "3 strategy naive\n1 objects 10\n";
  const CliResult r =
      run_program(std::string("env -u DISPLAY ") + BINDERY_CLI, "view --script " + script, 60);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("[InvalidArgument]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
  // A spread where the scene has none (the city places its own buildings).
  std::ofstream(script) << "1 spread 2\n";
  const CliResult city = run_program(std::string("env -u DISPLAY ") + BINDERY_CLI,
                                     "view --scene city --script " + script, 60);
  EXPECT_EQ(city.exit_code, 1);
  EXPECT_EQ(count_lines(city.err), 1u) << city.err;
  EXPECT_NE(city.err.find("line 1: spread places the cubes only"), std::string::npos) << city.err;
  // Extra or missing values are refused, not read in part; the city has at least one object.
  const std::pair<const char*, const char*> lines[] = {
      {"0 pause 5\n", "line 1: pause takes 0 values, not 1"},
      {"0 objects 5 6\n", "line 1: objects takes 1 value, not 2"},
      {"0 resize 10 10 10\n", "line 1: resize takes 2 values, not 3"},
      {"0 quit now\n", "line 1: quit takes 0 values, not 1"}};
  for (const auto& [line, message] : lines) {
    std::ofstream(script) << line;
    const CliResult r = run_program(std::string("env -u DISPLAY ") + BINDERY_CLI,
                                    "view --script " + script, 60);
    EXPECT_EQ(r.exit_code, 1) << line;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  std::ofstream(script) << "0 objects 0\n";
  const CliResult none = run_program(std::string("env -u DISPLAY ") + BINDERY_CLI,
                                     "view --scene city --script " + script, 60);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("objects 0 is below this scene's least, 1"), std::string::npos)
      << none.err;
  // --moving as render refuses it (tests/cli/hostile_cli_test.cpp), for the cubes and the city.
  for (const char* args : {"view --moving 1.5", "view --scene city --moving -1"}) {
    const CliResult m = run_program(std::string("env -u DISPLAY ") + BINDERY_CLI, args, 60);
    EXPECT_EQ(m.exit_code, 1) << args;
    EXPECT_EQ(count_lines(m.err), 1u) << m.err;
    EXPECT_NE(m.err.find("[SceneInput]: view: --moving"), std::string::npos) << m.err;
  }
}

}  // namespace
