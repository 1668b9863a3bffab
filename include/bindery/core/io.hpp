// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/io.hpp — reading the input files bindery's tools take (WGSL shaders, scene JSON):
/// regular files only, with a size cap, so a FIFO, a directory or /dev/zero is an error rather
/// than a hang or an unbounded read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bindery {

/// The default cap for read_input_file: 64 MiB.
inline constexpr uint64_t kMaxInputFileBytes = 64ull << 20;

/// Reads the whole of `path`. Throws Io naming `what` and the path when it does not exist, is not
/// a regular file (directory, FIFO, device), is larger than `max_bytes`, or cannot be read.
std::string read_input_file(const std::string& path, std::string_view what,
                            uint64_t max_bytes = kMaxInputFileBytes);

/// Reads a WGSL file like read_input_file and replaces each line `// @include NAME` (NAME: letters,
/// digits, '_', '.', '-'; a file in the same folder) with that file's text, at most 8 levels deep:
/// the convention bindery's own shaders use (WGSL has no includes; cmake/EmbedShaders.cmake
/// expands them the same way). Throws Io for a missing include or deeper nesting.
std::string read_wgsl_file(const std::string& path, std::string_view what);

/// Checks that `path` can be written as an output file without touching it: an existing path
/// must be a regular file (a pipe would block the writer) that is writable; a new one needs a
/// writable parent folder. Throws Io naming `what` and the path otherwise.
void check_output_file(const std::string& path, std::string_view what);

/// Writes `text` to standard output (stdio's stdout, buffered as usual). Throws Io "standard
/// output could not be written: REASON" when stdio reports the write failed: a closed pipe (EPIPE,
/// once SIGPIPE is ignored as the CLI does), a full device (ENOSPC), so that a command stops at
/// the first write that fails. A failure stdio only sees at the final flush is the caller's to
/// check (the CLI checks it before exit).
void write_stdout(std::string_view text);

/// The reason of write_stdout()'s and the CLI's final check's [Io] line for errno value `error`:
/// "standard output could not be written: <strerror> (a closed pipe or a full device)".
std::string stdout_failure_message(int error);

}  // namespace bindery
