// SPDX-License-Identifier: MIT
// Output failures of the subcommands that need no device (issue 25, H4-04, H4-05): standard output
// on a full device (/dev/full: ENOSPC) or a pipe whose reader has gone (EPIPE; SIGPIPE would end
// bindery silently with 141) is one `[Io]` line naming standard output, exit 1, whatever the
// subcommand and whether its output is a few bytes (seen at the final flush) or megabytes (seen
// at a write in the middle). The device subcommands are in output_failure_device_test.cpp.
#include "support/cli_runner.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace bindery {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::run_cli_closed_pipe;

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path dir = fs::path(::testing::TempDir()) /
                        ("bindery_output_failure_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

// One line `bindery: error [Io]: standard output could not be written: REASON ...` and exit 1.
void expect_io_line(const test::CliResult& r, const std::string& args, const std::string& reason) {
  SCOPED_TRACE(args);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("bindery: error [Io]: standard output could not be written: " + reason, 0),
            0u)
      << r.err;
  EXPECT_EQ(test::count_lines(r.err), 1u) << r.err;
}

// strerror's words for ENOSPC and EPIPE (glibc).
const std::string kFull = "No space left on device";
const std::string kPipe = "Broken pipe";

std::vector<std::string> cpu_commands() {
  const std::string plan = write_file(
      "p.json",
      "{\"bindings\": [{\"name\": \"camera\", \"kind\": \"uniform\", \"size\": 64, \"frequency\": "
      "\"frame\"}], \"stats\": {\"objects\": 4, \"materials\": 1, \"passes\": 1}}");
  const std::string small = write_file("s.wgsl", "struct S { a: f32 }\n");
  // 20,000 members: a layout table of about a megabyte, far beyond stdio's buffer and a pipe's.
  std::string big = "struct Big {\n";
  for (int i = 0; i < 20000; ++i) big += "  m" + std::to_string(i) + ": f32,\n";
  big += "}\n@group(0) @binding(0) var<storage, read> big: Big;\n";
  const std::string large = write_file("big.wgsl", big);
  const std::string seed =
      std::string(BINDERY_SOURCE_DIR) + "/examples/plan/seed_by_frequency.json";
  return {
      "plan " + plan,    "plan --json " + plan,    "plan " + seed,    "plan " + seed + " --json",
      "layout " + small, "layout --json " + small, "layout " + large, "layout --json " + large,
      "--help",          "layout --help",          "--version"};
}

TEST(OutputFailure, FullDeviceIsOneIoLineForEveryCpuSubcommand) {
  for (const std::string& args : cpu_commands()) {
    ASSERT_EQ(run_cli(args + " >/dev/null").exit_code, 0) << args;
    expect_io_line(run_cli(args + " >/dev/full"), args + " >/dev/full", kFull);
  }
}

TEST(OutputFailure, ClosedPipeIsOneIoLineNotSigpipe) {
  for (const std::string& args : cpu_commands())
    expect_io_line(run_cli_closed_pipe(args), args + " | (closed)", kPipe);
}

}  // namespace
}  // namespace bindery
