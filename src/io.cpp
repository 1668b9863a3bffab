#include "bindery/io.hpp"

#include "bindery/error.hpp"

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
