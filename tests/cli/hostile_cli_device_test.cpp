// SPDX-License-Identifier: MIT
// The CLI under hostile input where a device is involved (issue 18; ../shared/cases/hostile.md
// H7, H8, H10 and relatives): `layout --verify` hands nothing nested deeper than bindery's limit
// to the implementation and exits by plain `layout`'s contract; `render` reports lost standard
// output and removes a PNG it could not complete. Inputs are written here.
#include "support/cli_runner.hpp"

#include <bindery/wgsl_layout.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace bindery {
namespace {

namespace fs = std::filesystem;
using test::run_cli;

fs::path fresh_dir() {
  const fs::path d = fs::path(::testing::TempDir()) /
                     ("bindery_hostile_dev_" + std::to_string(getpid()) + "_" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

std::string last_line(const std::string& out) {
  const size_t end = out.find_last_not_of('\n');
  if (end == std::string::npos) return {};
  const size_t start = out.rfind('\n', end);
  return out.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

TEST(HostileCliDevice, H7DeepModuleIsNotHandedToTheImplementation) {
  const fs::path d = fresh_dir();
  for (const size_t depth : {size_t{3000}, size_t{100000}}) {
    const std::string shader = write(
        d / "H7.wgsl", "struct S { a: f32 }\n@group(0) @binding(0) var<storage> s: S;\n"
                       "fn f() -> f32 { let x = " + std::string(depth, '(') + "1.0" +
                           std::string(depth, ')') + "; return x; }\n");
    const test::CliResult r = run_cli("layout " + shader + " --verify", 120);
    EXPECT_EQ(r.exit_code, 2) << depth << "\n" << r.err;  // a crash would be 128 + signal
    EXPECT_EQ(test::count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("bindery: error [WgslSyntax]"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("verify "), std::string::npos) << "no device was to be used";
  }
  // At the limit it is verified as usual.
  const size_t ok_depth = kMaxWgslNestingDepth - 1;  // the function body's '{' is one level
  const std::string shader =
      write(d / "ok.wgsl", "fn f() -> f32 { let x = " + std::string(ok_depth, '(') + "1.0" +
                               std::string(ok_depth, ')') + "; return x; }\n");
  const test::CliResult r = run_cli("layout " + shader + " --verify", 120);
  // bindery itself accepts it (no WgslSyntax). wgpu-native compiles it: exit 0. Dawn's parser
  // stops at a recursion depth of its own below 256 and refuses it: the verdicts disagree, which
  // the --verify contract reports as exit 1 with the implementation's refusal, never a crash.
  const bool refused_by_implementation =
      r.exit_code == 1 && (r.out + r.err).find("recursive depth") != std::string::npos;
  EXPECT_TRUE(r.exit_code == 0 || refused_by_implementation) << r.out << r.err;
  EXPECT_EQ(r.err.find("Syntax"), std::string::npos) << r.err;
  fs::remove_all(d);
}

TEST(HostileCliDevice, VerifyExitsOneOnLayoutErrorsAlthoughTheImplementationAgrees) {
  const fs::path d = fresh_dir();
  // H8 and H8b: WGSL forbids both; the implementation refuses them too, so the verdicts agree,
  // but the module has errors: exit 1 as plain `layout`, and the last line says so.
  for (const std::string& src :
       {std::string("var<private> a: array<u32>;\n"),
        std::string("fn f() { var a: atomic<u32>; }\n"),
        std::string("struct X {\n  a: array<u32, 2>,\n}\n@group(0) @binding(0) var<uniform> u: X;\n")}) {
    const std::string shader = write(d / "bad.wgsl", src);
    const test::CliResult plain = run_cli("layout " + shader);
    const test::CliResult v = run_cli("layout " + shader + " --verify", 120);
    EXPECT_EQ(plain.exit_code, 1) << src;
    EXPECT_EQ(v.exit_code, 1) << src << v.out << v.err;
    EXPECT_NE(last_line(v.out).find("FAILED"), std::string::npos) << v.out;
    EXPECT_NE(v.out.find(shader + ":"), std::string::npos) << v.out;  // FILE:LINE:COL
    EXPECT_NE(v.out.find(": agree\n"), std::string::npos) << v.out;
  }
  const std::string clean = write(d / "clean.wgsl", "struct S { a: vec4<f32> }\n");
  const test::CliResult c = run_cli("layout " + clean + " --verify", 120);
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_NE(last_line(c.out).find("verified"), std::string::npos) << c.out;
  fs::remove_all(d);
}

TEST(HostileCliDevice, ImplementationDiagnosticIsShownOnceOverIndentedLines) {
  const fs::path d = fresh_dir();
  const std::string shader = write(d / "bad.wgsl", "fn f() { var a: atomic<u32>; }\n");
  const test::CliResult v = run_cli("layout " + shader + " --verify", 120);
  const size_t at = v.out.find("  implementation: ");
  ASSERT_NE(at, std::string::npos) << v.out;
  EXPECT_EQ(v.out.find("  implementation: ", at + 1), std::string::npos) << "printed twice: " << v.out;
  fs::remove_all(d);
}

TEST(HostileCliDevice, H10RenderWithLostStandardOutputIsAnIoError) {
  for (const std::string& redirect : {std::string(" >/dev/full"), std::string(" >&-")}) {
    const test::CliResult r =
        run_cli("render --objects 10 --frames 1 --size 16x16 --quiet" + redirect, 120);
    EXPECT_EQ(r.exit_code, 1) << redirect << r.err;
    EXPECT_NE(r.err.find("bindery: error [Io]: standard output could not be written"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(test::count_lines(r.err), 1u) << r.err;
  }
}

}  // namespace
}  // namespace bindery
