// SPDX-License-Identifier: MIT
// tests/cli/random_input.hpp — seeded random and mutated inputs for the CLI's input formats, and
// the check that bindery answers each with clean output (issue 9 "Errors": `bindery: error: <raw
// text>` with no kind must be impossible). Used by cli_random_input_test.cpp (WGSL, plan JSON) and
// cli_random_input_device_test.cpp (glTF / GLB through `bindery render`).
//
// The rules checked for every run, whatever the input:
//  - the process ends by itself (a 60 s timeout kills a hang: exit 124) and is not killed by a
//    signal or a sanitizer (cli_runner.hpp reports those as 128 + signal; ASan aborts);
//  - exit 0, or exit 1 / 2 with at least one error line;
//  - every stderr line is an error line `bindery: error [Kind]: message` with Kind one of
//    include/bindery/error.hpp's kinds and a non-empty message, or one of the command's known
//    non-error lines (layout's "bindery: FILE: N error(s)" summary, render's "frame i/n"
//    progress); `bindery plan` and `bindery render` print exactly one error line on failure;
//  - `bindery layout` diagnostics on stdout (lines "L:C: error ...") have the form
//    `L:C: error [Kind]: message` with L, C >= 1.
#pragma once

#include "support/cli_runner.hpp"

#include <bindery/core/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace bindery::test {

/// How many inputs per format: BINDERY_TEST_SCALE=small (the sanitizer run) takes a third.
inline int random_input_count(int normal) {
  const char* scale = std::getenv("BINDERY_TEST_SCALE");
  return scale && std::string(scale) == "small" ? (normal + 2) / 3 : normal;
}

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// Every regular file directly in `dir` (relative to the source tree) whose name ends in `ext`.
inline std::vector<std::string> seeds_in(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(BINDERY_SOURCE_DIR) + "/" + dir))
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(read_bytes(e.path()));
  return out;
}

/// Seeded mutations of valid inputs, plus plain random bytes: byte flips, truncation, insertion
/// of tokens that stress parsers (huge and negative numbers, nesting, quotes, NUL, CR, the
/// Unicode line breaks NEL / LS / PS, invalid UTF-8), splices of two seeds, overwriting 4-byte
/// words near the start (GLB header and chunk lengths), and changing one digit (which mostly
/// keeps the input well-formed and moves a count, size or offset).
class Mutator {
 public:
  Mutator(std::vector<std::string> seeds, uint32_t seed) : seeds_(std::move(seeds)), rng_(seed) {}

  std::string next() {
    const int how = pick(10);
    if (how == 0 || seeds_.empty()) return random_bytes(pick(600));
    std::string s = seeds_[pick(static_cast<int>(seeds_.size()))];
    const int rounds = 1 + pick(3);
    for (int r = 0; r < rounds && !s.empty(); ++r) {
      switch (pick(7)) {
        case 0:  // flip a few bytes
          for (int i = 0, n = 1 + pick(8); i < n; ++i)
            s[pick(static_cast<int>(s.size()))] = static_cast<char>(pick(256));
          break;
        case 1:  // truncate
          s.resize(pick(static_cast<int>(s.size())));
          break;
        case 2: {  // insert a token
          static const char* const kTokens[] = {"-1",
                                                "0",
                                                "1e309",
                                                "-1e309",
                                                "4294967296",
                                                "18446744073709551616",
                                                "9999999999",
                                                "null",
                                                "[]",
                                                "{}",
                                                "[[[[[[[[[[[[",
                                                "\"",
                                                "\\u0000",
                                                "" /* a NUL byte */,
                                                "\r",
                                                "\xc2\x85",
                                                "\xe2\x80\xa8",
                                                "\xe2\x80\xa9",
                                                "\xff\xfe",
                                                "//",
                                                "/*",
                                                "@",
                                                ";",
                                                "array<",
                                                ">",
                                                "NaN",
                                                "true",
                                                ",",
                                                ":"};
          const std::string t = kTokens[pick(static_cast<int>(std::size(kTokens)))];
          s.insert(pick(static_cast<int>(s.size()) + 1), t.empty() ? std::string("\0", 1) : t);
          break;
        }
        case 3: {  // splice with another seed
          const std::string& o = seeds_[pick(static_cast<int>(seeds_.size()))];
          s = s.substr(0, pick(static_cast<int>(s.size()) + 1)) +
              o.substr(pick(static_cast<int>(o.size()) + 1));
          break;
        }
        case 4: {  // overwrite a 4-byte word in the first 32 bytes (GLB header / chunk lengths)
          static const uint32_t kWords[] = {0, 1, 3, 0x7fffffff, 0xffffffff, 0xfffffff0, 12, 20};
          const size_t at = 4 * pick(8);
          const uint32_t w = kWords[pick(8)];
          if (at + 4 <= s.size())
            for (int b = 0; b < 4; ++b) s[at + b] = static_cast<char>((w >> (8 * b)) & 0xff);
          break;
        }
        case 5: {  // change one digit: the input usually stays well-formed, the values do not
          std::vector<size_t> digits;
          for (size_t i = 0; i < s.size(); ++i)
            if (s[i] >= '0' && s[i] <= '9') digits.push_back(i);
          if (!digits.empty())
            s[digits[pick(static_cast<int>(digits.size()))]] = static_cast<char>('0' + pick(10));
          break;
        }
        default:  // delete a range
          s.erase(pick(static_cast<int>(s.size())), 1 + pick(32));
          break;
      }
    }
    return s;
  }

 private:
  int pick(int n) { return n <= 0 ? 0 : std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string random_bytes(int n) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(pick(256));
    return s;
  }

  std::vector<std::string> seeds_;
  std::mt19937 rng_;
};

/// Every error kind's name (include/bindery/error.hpp's X-macro list).
inline const std::set<std::string>& error_kind_names() {
  static const std::set<std::string> names = {
#define BINDERY_X(name, meaning) #name,
      BINDERY_ERROR_KINDS(BINDERY_X)
#undef BINDERY_X
  };
  return names;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

enum class CliCommand { layout, plan, render };

/// Writes `input` to a file named `name` in a per-process folder and runs `bindery <command>` on
/// it; checks the rules at the top of this file. Failures name the kept input file. Returns the
/// exit code.
inline int run_and_check(CliCommand command, const std::string& name, const std::string& input) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("bindery_random_input_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << input;
  std::string args;
  switch (command) {
    case CliCommand::layout:
      args = "layout '" + path + "'";
      break;
    case CliCommand::plan:
      args = "plan '" + path + "'";
      break;
    case CliCommand::render:
      args = "render --model '" + path + "' --frames 1 --size 8x8 --quiet";
      break;
  }
  const CliResult r = run_cli(args, 60);
  SCOPED_TRACE("input kept in " + path + "\nstderr:\n" + r.err);
  if (r.exit_code != 0 && r.exit_code != 1 && r.exit_code != 2) {
    ADD_FAILURE() << "exit " << r.exit_code << " (124: timeout; >128: killed by a signal)";
    return r.exit_code;
  }
  static const std::regex kError(R"(bindery: error \[([A-Za-z]+)\]: \S.*)");
  static const std::regex kLayoutSummary(R"(bindery: .*: [0-9]+ error\(s\))");
  static const std::regex kProgress(R"(frame [0-9]+/[0-9]+)");
  size_t errors = 0;
  for (const std::string& line : lines_of(r.err)) {
    std::smatch m;
    if (std::regex_match(line, m, kError)) {
      EXPECT_EQ(error_kind_names().count(m[1].str()), 1u) << "unknown kind in: " << line;
      ++errors;
    } else {
      const bool known =
          (command == CliCommand::layout && std::regex_match(line, kLayoutSummary)) ||
          (command == CliCommand::render && std::regex_match(line, kProgress));
      EXPECT_TRUE(known) << "stderr line of no known form: '" << line << "'";
    }
  }
  size_t diagnostics = 0;
  if (command == CliCommand::layout) {
    static const std::regex kDiagStart(R"([0-9]+:[0-9]+: error.*)");
    static const std::regex kDiag(R"(([0-9]+):([0-9]+): error \[([A-Za-z]+)\]: \S.*)");
    // Compiler style since issue 18: FILE:LINE:COL: error [Kind]: message.
    for (std::string line : lines_of(r.out)) {
      if (line.rfind(path + ":", 0) != 0) {
        EXPECT_FALSE(std::regex_match(line, kDiagStart)) << "diagnostic without the file: " << line;
        continue;
      }
      line = line.substr(path.size() + 1);
      if (!std::regex_match(line, kDiagStart)) continue;
      std::smatch m;
      if (!std::regex_match(line, m, kDiag)) {
        ADD_FAILURE() << "diagnostic of the wrong form: '" << line << "'";
        continue;
      }
      EXPECT_GE(std::stoll(m[1].str()), 1) << line;
      EXPECT_GE(std::stoll(m[2].str()), 1) << line;
      EXPECT_EQ(error_kind_names().count(m[3].str()), 1u) << "unknown kind in: " << line;
      ++diagnostics;
    }
  }
  if (r.exit_code == 0) {
    EXPECT_EQ(errors, 0u);
  } else if (command == CliCommand::layout) {
    EXPECT_GE(errors + diagnostics, 1u) << "exit " << r.exit_code << " without an error line";
  } else {
    EXPECT_EQ(errors, 1u) << "exit " << r.exit_code << ": expected exactly one error line";
  }
  if (!::testing::Test::HasFailure()) std::filesystem::remove(path);
  return r.exit_code;
}

/// Runs `count` inputs from `mutator` through `command` and prints how many ended with each exit
/// code (the share accepted shows how far past the parsers the inputs get). At least one must be
/// rejected, or the inputs did not test the error paths at all.
inline void run_many(CliCommand command, const std::string& name, Mutator& mutator, int count) {
  int by_exit[3] = {0, 0, 0};
  for (int i = 0; i < count && !::testing::Test::HasFailure(); ++i) {
    const int code = run_and_check(command, name, mutator.next());
    if (code >= 0 && code <= 2) ++by_exit[code];
  }
  std::printf("%d inputs: exit 0: %d, exit 1: %d, exit 2: %d\n", count, by_exit[0], by_exit[1],
              by_exit[2]);
  if (!::testing::Test::HasFailure()) {
    EXPECT_GT(by_exit[1] + by_exit[2], 0);
  }
}

}  // namespace bindery::test
