// SPDX-License-Identifier: MIT
// bindery — the command-line tool. Subcommands live in apps/bindery/cmd_*.cpp.
#include "command.hpp"

#include <bindery/core/error.hpp>
#include <bindery/core/version.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>

namespace bindery::cli {
std::vector<CommandInfo>& registry() {
  static std::vector<CommandInfo> commands;
  return commands;
}
}  // namespace bindery::cli

int main(int argc, char** argv) {
  using namespace bindery::cli;
  CLI::App app{"bindery: per-draw data for WebGPU renderers that draw thousands of objects"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "bindery " BINDERY_VERSION_STRING);

  auto& commands = registry();
  std::sort(commands.begin(), commands.end(),
            [](const CommandInfo& a, const CommandInfo& b) { return a.name < b.name; });
  std::vector<std::pair<CLI::App*, Runner>> runners;
  for (auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    runners.emplace_back(sub, c.setup(*sub));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version (CLI::CallForHelp is a CLI::Success)
  } catch (const CLI::ParseError& e) {
    // A command-line usage error: one line like every other error, exit 2.
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::string help = "bindery --help";
    for (const CLI::App* sub : app.get_subcommands())
      if (sub->parsed()) help = "bindery " + sub->get_name() + " --help";
    std::fprintf(stderr, "bindery: error [InvalidArgument]: %s (see '%s')\n", what.c_str(),
                 help.c_str());
    return 2;
  }

  try {
    for (auto& [sub, run] : runners) {
      if (sub->parsed()) return run();
    }
  } catch (const bindery::Error& e) {
    std::fflush(stdout);  // what the command printed comes before its error line
    std::fprintf(stderr, "bindery: error [%s]: %s\n",
                 std::string(bindery::to_string(e.kind())).c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    // A fault bindery did not turn into a bindery::Error at a boundary: still one line with a kind.
    std::fprintf(stderr, "bindery: error [Internal]: %s\n", e.what());
    return 1;
  }
  return 1;
}
