// SPDX-License-Identifier: MIT
#include "bindery/core/io.hpp"

#include "bindery/core/error.hpp"

#include <fmt/format.h>

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
    throw Error(ErrorKind::Io, fmt::format("{} '{}': no such file", what, path));
  if (!fs::is_regular_file(st))
    throw Error(ErrorKind::Io, fmt::format("{} '{}' is not a regular file (a directory, pipe or "
                                           "device cannot be read as one)",
                                           what, path));
  const uint64_t size = fs::file_size(path, ec);
  if (ec) throw Error(ErrorKind::Io, fmt::format("{} '{}': cannot read its size", what, path));
  if (size > max_bytes)
    throw Error(ErrorKind::Io, fmt::format("{} '{}' is {} bytes, more than the {} bytes allowed",
                                           what, path, size, max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, fmt::format("{} '{}': cannot open", what, path));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::Io, fmt::format("{} '{}': read failed", what, path));
  return s.str();
}

std::string read_wgsl_file(const std::string& path, std::string_view what) {
  namespace fs = std::filesystem;
  constexpr std::string_view kDirective = "\n// @include ";
  constexpr int kMaxIncludes = 8;
  const fs::path dir = fs::path(path).parent_path();
  std::string text = read_input_file(path, what);
  for (int level = 0;; ++level) {
    const size_t at = text.find(kDirective);
    if (at == std::string::npos) return text;
    const size_t name_at = at + kDirective.size();
    const size_t end = text.find('\n', name_at);
    std::string name = text.substr(name_at, end == std::string::npos ? std::string::npos : end - name_at);
    while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
    if (name.empty() ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
            std::string::npos ||
        name.find("..") != std::string::npos)
      throw Error(ErrorKind::Io, fmt::format("{} '{}': '// @include {}' is not a file name of this "
                                             "folder",
                                             what, path, name));
    if (level >= kMaxIncludes)
      throw Error(ErrorKind::Io, fmt::format("{} '{}': more than {} nested // @include lines", what,
                                             path, kMaxIncludes));
    const std::string included = read_input_file((dir / name).string(), "included shader");
    text.replace(at + 1, (end == std::string::npos ? text.size() : end) - (at + 1), included);
  }
}

void check_output_file(const std::string& path, std::string_view what) {
  namespace fs = std::filesystem;
  if (path.empty()) throw Error(ErrorKind::Io, fmt::format("{}: the file name is empty", what));
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st)) {
    if (!fs::is_regular_file(st))
      throw Error(ErrorKind::Io,
                  fmt::format("{} '{}' exists and is not a regular file", what, path));
    if (access(path.c_str(), W_OK) != 0)
      throw Error(ErrorKind::Io, fmt::format("{} '{}' is not writable", what, path));
    return;
  }
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec) || access(parent.c_str(), W_OK) != 0)
    throw Error(ErrorKind::Io, fmt::format("{} '{}': folder '{}' does not exist or is not writable",
                                           what, path, parent.string()));
}

}  // namespace bindery
