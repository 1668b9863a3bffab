// SPDX-License-Identifier: MIT
// `bindery view` against hostile sizes and a display that goes away (issue 25, H4-03, point 4,
// point 7), on Xvfb (tests/support/with_xvfb.sh: a 1024 x 768 screen): --size checked at full
// width and named as typed (X11 window sides are 16-bit, 1..32767, so 65600 x 65584 used to open
// a 64 x 48 window), a script's resize bounded by the screen and maxTextureDimension2D, and an X
// server that exits under the view reported as one bindery line, exit 1.
#include "support/cli_runner.hpp"

#include <bindery/core/device.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

namespace bindery {
namespace {

using test::CliResult;

const std::string kXvfb = std::string(BINDERY_SOURCE_DIR) + "/tests/support/with_xvfb.sh";

#define SKIP_WITHOUT_VIEW()                                                                     \
  do {                                                                                          \
    if (!BINDERY_HAS_VIEW) GTEST_SKIP() << "bindery view is not built (GLFW or ImGui missing)"; \
    if (std::system("command -v Xvfb >/dev/null 2>&1") != 0)                                    \
      GTEST_SKIP() << "Xvfb is not installed (Debian package xvfb): no display to test on";     \
  } while (0)

CliResult view(const std::string& args) {
  return test::run_program("bash " + kXvfb + " " + BINDERY_CLI, "view " + args, 300);
}

void expect_one_error(const CliResult& r, const std::string& kind, const std::string& words) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("bindery: error [" + kind + "]: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  EXPECT_EQ(test::count_lines(r.err), 1u) << r.err;
}

TEST(ViewHostile, SizeIsCheckedAtFullWidthAndNamedAsTyped) {
  SKIP_WITHOUT_VIEW();
  // Beyond X11's 16-bit sides: each as typed, not wrapped (65600 mod 65536 = 64).
  for (const char* size : {"65600x65584", "100000x100000", "65536x65536", "32768x100"}) {
    SCOPED_TRACE(size);
    expect_one_error(view(std::string("--objects 20 --frames 3 --quiet --size ") + size),
                     "TextureSizeOutOfRange", std::string("--size ") + size + ": an X11 window");
  }
  // Within X11 but past the device's maxTextureDimension2D.
  const uint32_t max = Device::create().limits().maxTextureDimension2D;
  const std::string over = std::to_string(max + 1) + "x100";
  expect_one_error(view("--objects 20 --frames 3 --quiet --size " + over), "TextureSizeOutOfRange",
                   "--size " + over + ": each side must be 1.." + std::to_string(max));
}

TEST(ViewHostile, ScriptResizeIsBoundedByTheScreenAndTheSurface) {
  SKIP_WITHOUT_VIEW();
  const std::string script = ::testing::TempDir() + "view_hostile_resize.txt";
  // with_xvfb.sh's screen is 1024 x 768: 1025 wide and 769 high do not fit; 16384 (in the
  // parser's range) neither.
  for (const char* size : {"1025 700", "800 769", "16384 16384"}) {
    SCOPED_TRACE(size);
    std::ofstream(script) << "1 resize " << size << "\n";
    expect_one_error(
        view("--objects 5 --frames 3 --quiet --script " + script), "InvalidArgument",
        std::string("--script line 1: resize ") + size + " exceeds the screen (1024x768)");
  }
  std::ofstream(script) << "1 resize 1024 768\n";
  const CliResult ok = view("--objects 5 --frames 3 --quiet --script " + script);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(ViewHostile, XServerGoingAwayIsOneLine) {
  SKIP_WITHOUT_VIEW();
  // A server of its own, killed while the view runs (100000 frames would take minutes).
  const std::string err = ::testing::TempDir() + "view_hostile_lost.txt";
  const std::string script =
      "for n in $(seq 4500 4600); do [ -e /tmp/.X$n-lock ] || break; done; "
      "Xvfb :$n -screen 0 640x480x24 -nolisten tcp >/dev/null 2>&1 & x=$!; "
      "for i in $(seq 100); do [ -S /tmp/.X11-unix/X$n ] && break; sleep 0.05; done; "
      "DISPLAY=:$n " +
      std::string(BINDERY_CLI) + " view --objects 5 --frames 100000 --quiet >/dev/null 2>" + err +
      " & v=$!; "
      "sleep 3; kill $x; wait $v; echo $?";
  const CliResult r = test::run_program("timeout 120 bash -c", "'" + script + "'", 0);
  std::ifstream in(err);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(r.out, "1\n") << text;
  EXPECT_EQ(text,
            "bindery: error [NoDisplay]: view: the connection to the X server was lost (the server "
            "exited or closed it)\n");
}

}  // namespace
}  // namespace bindery
