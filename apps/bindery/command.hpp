// SPDX-License-Identifier: MIT
// apps/bindery/command.hpp — how a `bindery` subcommand plugs into the CLI.
//
// Each apps/bindery/cmd_*.cpp defines one static Registration. Its setup function adds the
// subcommand's options to the CLI11 subcommand and returns the function that runs it (its return
// value is the process exit code). main.cpp catches bindery::Error and prints one line.
#pragma once

#include <CLI/CLI.hpp>

#include <bindery/core/error.hpp>
#include <bindery/core/io.hpp>

#include <fmt/format.h>

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bindery::cli {

/// Runs a parsed subcommand; returns the process exit code.
using Runner = std::function<int()>;
/// Adds options to `sub` (already named and described) and returns its runner.
using Setup = std::function<Runner(CLI::App& sub)>;

struct CommandInfo {
  std::string name;
  std::string description;
  Setup setup;
};

/// Prints `bindery: error [KIND]: MESSAGE` as one line on stderr (stdout flushed first).
void print_error(std::string_view kind, std::string_view message);

/// Formats like fmt::print and writes the text to standard output through write_stdout(): a
/// failed write (closed pipe, full device) throws Io instead of fmt's std::system_error.
template <class... T>
void out(fmt::format_string<T...> format, T&&... args) {
  write_stdout(fmt::format(format, std::forward<T>(args)...));
}

/// All registered subcommands, in registration order.
std::vector<CommandInfo>& registry();

/// Registers a subcommand at static-initialisation time: `static Registration r{...};`.
struct Registration {
  Registration(std::string name, std::string description, Setup setup) {
    registry().push_back({std::move(name), std::move(description), std::move(setup)});
  }
};

}  // namespace bindery::cli
