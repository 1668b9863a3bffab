// SPDX-License-Identifier: MIT
// Output failures of the subcommands that open a device (issue 25, H4-04, H4-05): info, render,
// bench, soak, layout --verify and view (on Xvfb, where built) with standard output on /dev/full
// (ENOSPC) or a pipe whose reader has gone (EPIPE): one `[Io]` line, exit 1, never SIGPIPE's 141.
#include "support/cli_runner.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace bindery {
namespace {

namespace fs = std::filesystem;

void expect_io_line(const test::CliResult& r, const std::string& args, const std::string& reason) {
  SCOPED_TRACE(args);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string line = "bindery: error [Io]: standard output could not be written: " + reason;
  EXPECT_NE(r.err.find(line), std::string::npos) << r.err;
  // The one error line; progress lines on stderr are not errors.
  EXPECT_EQ(r.err.find("error ["), r.err.rfind("error [")) << r.err;
}

std::vector<std::string> device_commands() {
  const fs::path dir = fs::path(::testing::TempDir()) /
                        ("bindery_output_failure_device_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string shader = (dir / "s.wgsl").string();
  std::ofstream(shader) << "struct S { a: f32, b: vec3f }\n"
                           "@group(0) @binding(0) var<storage, read> s: S;\n";
  return {"info",
          "info --limits default",
          "render --objects 10 --frames 1 --size 16x16 --quiet",
          "render --objects 10 --frames 1 --size 16x16",
          "bench --strategies naive --start 10 --max 20 --size 16x16 --frames 3",
          "soak --strategies naive --objects 10 --size 8x8 --frames 20",
          "layout --verify " + shader};
}

TEST(OutputFailureDevice, FullDeviceIsOneIoLine) {
  for (const std::string& args : device_commands())
    expect_io_line(test::run_cli(args + " >/dev/full", 300), args + " >/dev/full",
                   "No space left on device");
}

TEST(OutputFailureDevice, ClosedPipeIsOneIoLineNotSigpipe) {
  for (const std::string& args : device_commands())
    expect_io_line(test::run_cli_closed_pipe(args, 300), args + " | (closed)", "Broken pipe");
}

TEST(OutputFailureDevice, ViewWithPngIsOneIoLine) {
#if !BINDERY_HAS_VIEW
  GTEST_SKIP() << "bindery view is not built here";
#else
  if (std::system("command -v Xvfb >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "Xvfb is not installed (Debian package xvfb): no display to test on";
  const std::string png =
      (fs::path(::testing::TempDir()) /
       ("bindery_output_failure_view_" + std::to_string(getpid()) + ".png"))
          .string();
  const std::string xvfb = std::string(BINDERY_SOURCE_DIR) + "/tests/support/with_xvfb.sh";
  const std::string args = "view --objects 5 --frames 2 --quiet --png " + png;
  expect_io_line(test::run_program("bash " + xvfb + " " + BINDERY_CLI, args + " >/dev/full", 300),
                 args + " >/dev/full", "No space left on device");
  expect_io_line(test::run_program_closed_pipe("bash " + xvfb + " " + BINDERY_CLI, args, 300),
                 args + " | (closed)", "Broken pipe");
#endif
}

}  // namespace
}  // namespace bindery
