// SPDX-License-Identifier: MIT
// tests/support/cli_runner.hpp — runs the built `bindery` binary (BINDERY_CLI) for CLI tests and
// returns its exit code, stdout and stderr. A process killed by a signal reports 128 + signal, so
// a crash never passes for an ordinary error exit.
#pragma once

#include <array>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace bindery::test {

struct CliResult {
  int exit_code = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs the executable `cli` with `args` through the shell (arguments are not quoted for you).
/// With `timeout_s` > 0 the process is killed after that many seconds (coreutils `timeout`, exit
/// 124), so a hang fails the test instead of stalling it.
inline CliResult run_program(const std::string& cli, const std::string& args, int timeout_s = 0) {
  // One stderr file per process: CTest runs the tests of one file in parallel processes.
  const std::string err_file =
      ::testing::TempDir() + "bindery_cli_stderr_" + std::to_string(getpid()) + ".txt";
  const std::string prefix =
      timeout_s > 0 ? "timeout -k 5 " + std::to_string(timeout_s) + " " : std::string();
  const std::string cmd = prefix + cli + " " + args + " 2>" + err_file;
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  return r;
}

/// Runs this build's `bindery <args>` (BINDERY_CLI), as run_program().
inline CliResult run_cli(const std::string& args, int timeout_s = 0) {
  return run_program(BINDERY_CLI, args, timeout_s);
}

/// Runs `cli` with `args` as run_program(), but with standard output a pipe whose reading end is
/// already closed (a reader that went away, as in `bindery layout big.wgsl | head -c 1`), SIGPIPE
/// at its default in the child: a program that does not ignore it dies of it (exit 141).
/// CliResult::out stays empty.
inline CliResult run_program_closed_pipe(const std::string& cli, const std::string& args,
                                         int timeout_s = 0) {
  const std::string err_file =
      ::testing::TempDir() + "bindery_cli_stderr_pipe_" + std::to_string(getpid()) + ".txt";
  const std::string prefix =
      timeout_s > 0 ? "timeout -k 5 " + std::to_string(timeout_s) + " " : std::string();
  const std::string cmd = prefix + cli + " " + args + " 2>" + err_file;
  CliResult r;
  int fds[2];
  if (pipe(fds) != 0) return r;
  close(fds[0]);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[1]);
    std::signal(SIGPIPE, SIG_DFL);
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  return r;
}

/// run_program_closed_pipe() of this build's `bindery <args>` (BINDERY_CLI).
inline CliResult run_cli_closed_pipe(const std::string& args, int timeout_s = 0) {
  return run_program_closed_pipe(BINDERY_CLI, args, timeout_s);
}

/// Number of '\n'-terminated lines in `s`.
inline size_t count_lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace bindery::test
