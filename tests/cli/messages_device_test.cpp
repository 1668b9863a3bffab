// SPDX-License-Identifier: MIT
// Messages that must fit the run (issue 25, point 10, H4-10): the bind-group limit of a run whose
// groups come from its materials advises fewer materials or a strategy with one material table,
// never the strategy already running.
#include "support/cli_runner.hpp"

#include <gtest/gtest.h>

#include <string>

namespace bindery {
namespace {

TEST(MessagesDevice, BindGroupLimitAdviceFitsTheRun) {
  for (const char* strategy : {"dynamic-offsets", "storage-instancing"}) {
    SCOPED_TRACE(strategy);
    const test::CliResult r =
        test::run_cli(std::string("render --scene city --strategy ") + strategy +
                          " --materials 100000 --objects 200000 --size 64x48 --frames 1 --quiet",
                      300);
    if (r.exit_code == 0)
      GTEST_SKIP() << "this adapter holds the city's material groups (no limit to report)";
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("[ImplementationLimit]: render: material groups"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("fewer materials (--materials)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("one material table (gpu-driven, gpu-culling)"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find(std::string("use the ") + strategy), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("or storage-instancing strategy"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace bindery
