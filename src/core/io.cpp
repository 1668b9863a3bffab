// SPDX-License-Identifier: MIT
#include "bindery/core/io.hpp"

#include "bindery/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace bindery {

std::string read_input_file(const std::string& path, std::string_view what, uint64_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    throw Error(ErrorKind::Io, fmt::format("{} '{}': no such file", what, escape_for_message(path)));
  if (!fs::is_regular_file(st))
    throw Error(ErrorKind::Io, fmt::format("{} '{}' is not a regular file (a directory, pipe or "
                                           "device cannot be read as one)",
                                           what, escape_for_message(path)));
  const uint64_t size = fs::file_size(path, ec);
  if (ec) throw Error(ErrorKind::Io, fmt::format("{} '{}': cannot read its size", what, escape_for_message(path)));
  if (size > max_bytes)
    throw Error(ErrorKind::Io, fmt::format("{} '{}' is {} bytes, more than the {} bytes allowed",
                                           what, escape_for_message(path), size, max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, fmt::format("{} '{}': cannot open", what, escape_for_message(path)));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::Io, fmt::format("{} '{}': read failed", what, escape_for_message(path)));
  return s.str();
}

namespace {

/// The file `// @include NAME` names: NAME as written must be a plain file name (letters,
/// digits, '_', '.', '-'; no '/', no '..') and must resolve, symbolic links followed, to a file
/// whose folder is the shader's folder itself. Throws Io naming the include as written, never
/// the file it resolves to or anything in it.
std::filesystem::path resolve_include(const std::filesystem::path& dir, const std::string& name,
                                      const std::string& path, std::string_view what) {
  namespace fs = std::filesystem;
  auto refuse = [&](std::string_view why) {
    return Error(ErrorKind::Io,
                 fmt::format("{} '{}': '// @include {}' {}", what, escape_for_message(path),
                             escape_for_message(name), why));
  };
  if (name.empty() ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
          std::string::npos ||
      name.find("..") != std::string::npos)
    throw refuse("is not a file name of this folder (letters, digits, '_', '.', '-'; no '/' or "
                 "'..')");
  std::error_code ec;
  const fs::path folder = fs::canonical(dir.empty() ? fs::path(".") : dir, ec);
  if (ec) throw refuse("cannot be resolved: the shader's folder cannot be resolved");
  const fs::path target = fs::canonical(folder / name, ec);
  if (ec) throw refuse("names no file in the shader's folder");
  if (target.parent_path() != folder)
    throw refuse("resolves outside the shader's folder (a symbolic link to elsewhere): an "
                 "include must be a file of the shader's own folder");
  return target;
}

// Whether `pos` of WGSL `text` lies inside a block comment (/* */, which nests in WGSL; a line
// comment's "/*" opens nothing).
bool inside_block_comment(const std::string& text, size_t pos) {
  int depth = 0;
  for (size_t i = 0; i + 1 < text.size() && i < pos; ++i) {
    if (depth == 0 && text[i] == '/' && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string::npos || i >= pos) return false;
    } else if (text[i] == '/' && text[i + 1] == '*') {
      ++depth;
      ++i;
    } else if (depth > 0 && text[i] == '*' && text[i + 1] == '/') {
      --depth;
      ++i;
    }
  }
  return depth > 0;
}

constexpr int kMaxIncludeDepth = 8;

// `text` (the shader `path`'s, or a file it includes `depth` levels down) with each directive
// line replaced by the expansion of the file it names; the expansion is refused past
// kMaxInputFileBytes (files that include each other many times over).
std::string expand_includes(const std::string& source, const std::filesystem::path& dir,
                            const std::string& path, std::string_view what, int depth) {
  constexpr std::string_view kDirective = "\n// @include ";
  // A directive is a line of its own, the first line included: the text gets a leading newline
  // while it is searched.
  const std::string text = "\n" + source;
  std::string out;
  size_t copied = 0;
  for (size_t at = text.find(kDirective); at != std::string::npos;
       at = text.find(kDirective, at + 1)) {
    if (inside_block_comment(text, at)) continue;
    const size_t name_at = at + kDirective.size();
    const size_t end = std::min(text.find('\n', name_at), text.size());
    std::string name = text.substr(name_at, end - name_at);
    while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
    const std::filesystem::path target = resolve_include(dir, name, path, what);
    if (depth >= kMaxIncludeDepth)
      throw Error(ErrorKind::Io, fmt::format("{} '{}': more than {} nested // @include lines", what,
                                             escape_for_message(path), kMaxIncludeDepth));
    std::string included;
    try {
      included = read_input_file(target.string(), "included shader");
    } catch (const Error&) {
      // Its reason would name the resolved file: name the include as written instead.
      throw Error(ErrorKind::Io, fmt::format("{} '{}': '// @include {}' cannot be read as a "
                                             "regular file of at most {} bytes",
                                             what, escape_for_message(path),
                                             escape_for_message(name), kMaxInputFileBytes));
    }
    out.append(text, copied, at + 1 - copied);  // up to the directive's line
    out += expand_includes(included, dir, path, what, depth + 1);
    if (out.size() > kMaxInputFileBytes)
      throw Error(ErrorKind::Io, fmt::format("{} '{}': its // @include lines expand to more than "
                                             "{} bytes",
                                             what, escape_for_message(path), kMaxInputFileBytes));
    copied = end;  // the directive's newline stays
    at = end - 1;
  }
  out.append(text, copied);
  return out.substr(1);
}

}  // namespace

std::string read_wgsl_file(const std::string& path, std::string_view what) {
  return expand_includes(read_input_file(path, what), std::filesystem::path(path).parent_path(),
                         path, what, 0);
}

void check_output_file(const std::string& path, std::string_view what) {
  namespace fs = std::filesystem;
  if (path.empty()) throw Error(ErrorKind::Io, fmt::format("{}: the file name is empty", what));
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st)) {
    if (!fs::is_regular_file(st))
      throw Error(ErrorKind::Io,
                  fmt::format("{} '{}' exists and is not a regular file", what, escape_for_message(path)));
    if (access(path.c_str(), W_OK) != 0)
      throw Error(ErrorKind::Io, fmt::format("{} '{}' is not writable", what, escape_for_message(path)));
    return;
  }
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec) || access(parent.c_str(), W_OK) != 0)
    throw Error(ErrorKind::Io, fmt::format("{} '{}': folder '{}' does not exist or is not writable",
                                           what, escape_for_message(path), escape_for_message(parent.string())));
}

std::string stdout_failure_message(int error) {
  return fmt::format("standard output could not be written: {} (a closed pipe or a full device)",
                     error != 0 ? std::strerror(error) : "stdio reported an error");
}

void write_stdout(std::string_view text) {
  if (text.empty()) return;
  errno = 0;
  const size_t n = std::fwrite(text.data(), 1, text.size(), stdout);
  if (n != text.size() || std::ferror(stdout)) {
    const int error = errno;
    throw Error(ErrorKind::Io, stdout_failure_message(error));
  }
}

}  // namespace bindery
