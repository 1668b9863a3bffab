// SPDX-License-Identifier: MIT
// A glTF model's external resources, confined to the model's folder (resource_resolver.hpp).
#include "resource_resolver.hpp"

#include "gltf_json.hpp"

#include "bindery/core/error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <deque>
#include <mutex>
#include <system_error>

namespace bindery {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void refuse(std::string_view uri, std::string_view rule,
                         ErrorKind kind = ErrorKind::ModelLoad) {
  throw Error(kind, fmt::format("uri '{}' {}", gltf::quote_input(uri), rule));
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_control(unsigned char c) {
  return c < 0x20 || c == 0x7f;
}

// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ":" (before any "/").
bool has_scheme(std::string_view uri) {
  if (uri.empty() || !std::isalpha(static_cast<unsigned char>(uri[0]))) return false;
  for (char c : uri.substr(1)) {
    if (c == ':') return true;
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.')
      return false;
  }
  return false;
}

// True when `p` has every component of `dir` and at least one more (both canonical).
bool strictly_under(const fs::path& dir, const fs::path& p) {
  auto d = dir.begin(), q = p.begin();
  for (; d != dir.end(); ++d, ++q) {
    if (d->empty()) continue;  // a trailing separator's empty component
    if (q == p.end() || *d != *q) return false;
  }
  return q != p.end() && !q->empty();
}

constexpr std::string_view kAbove =
    "steps above the model's folder with '..' (bindery refuses every resource path that leaves "
    "the folder, even one that comes back into it; glTF resources must be named inside it)";

constexpr std::string_view kOutside =
    "resolves outside the model's folder (glTF resources must lie in it; no '..' or symbolic "
    "link may lead out of it)";

// True when `p` (lexically normal, absolute) is `dir` or lies under it.
bool under_or_equal(const fs::path& dir, const fs::path& p) {
  return p == dir || strictly_under(dir, p);
}

// The components of `p` as strings, in order.
std::vector<std::string> components(const fs::path& p) {
  std::vector<std::string> out;
  for (const fs::path& c : p) out.push_back(c.string());
  return out;
}

// Walks `relative` (lexically normal, no leading "..") from the canonical folder `dir` one
// component at a time, following symbolic links as the kernel would (a link's target replaces
// it: relative to the link's folder, or absolute), but never looking at anything outside `dir`:
// a `..` at `dir` or an absolute target not under `dir` is refused at once. So whether a file
// outside exists, or what it is, changes nothing. Returns the canonical path of a regular file
// strictly under `dir`.
fs::path walk_inside(const fs::path& dir, const fs::path& relative, std::string_view uri) {
  std::deque<std::string> todo;
  for (const std::string& c : components(relative)) todo.push_back(c);
  fs::path cur = dir;  // canonical, under or equal to dir, throughout
  int links = 0;
  while (!todo.empty()) {
    const std::string c = todo.front();
    todo.pop_front();
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      if (cur == dir) refuse(uri, kAbove);
      cur = cur.parent_path();
      continue;
    }
    const fs::path next = cur / c;
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0)
      refuse(uri, "names no file in the model's folder");
    if (!S_ISLNK(st.st_mode)) {
      cur = next;
      continue;
    }
    if (++links > 40) refuse(uri, "passes more than 40 symbolic links (a loop)");
    std::string target(PATH_MAX, '\0');
    const ssize_t n = ::readlink(next.c_str(), target.data(), target.size());
    if (n <= 0 || size_t(n) >= target.size())
      refuse(uri, "passes a symbolic link that cannot be read", ErrorKind::Io);
    target.resize(size_t(n));
    fs::path t(target);
    if (t.is_absolute()) {
      t = t.lexically_normal();
      if (!under_or_equal(dir, t)) refuse(uri, kOutside);
      cur = dir;
      t = t.lexically_relative(dir);
    }
    const std::vector<std::string> parts = components(t);
    todo.insert(todo.begin(), parts.begin(), parts.end());
  }
  if (cur == dir) refuse(uri, "names the model's folder, not a file", ErrorKind::Io);
  struct stat st {};
  if (::stat(cur.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    refuse(uri, "names something that is not a regular file", ErrorKind::Io);
  return cur;
}

std::mutex observer_mutex;
std::function<void(const fs::path&)> open_observer;

}  // namespace

bool is_data_uri(std::string_view uri) {
  static constexpr std::string_view kData = "data:";
  if (uri.size() < kData.size()) return false;
  for (size_t i = 0; i < kData.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(uri[i])) != kData[i]) return false;
  return true;
}

std::string percent_decode_uri(std::string_view uri) {
  std::string out;
  out.reserve(uri.size());
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      out += uri[i];
      continue;
    }
    const int hi = i + 1 < uri.size() ? hex_value(uri[i + 1]) : -1;
    const int lo = i + 2 < uri.size() ? hex_value(uri[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      refuse(uri, fmt::format("has a '%' at byte {} not followed by two hex digits (RFC 3986 "
                              "percent-encoding)",
                              i));
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

fs::path resolve_model_resource(const fs::path& model_dir, std::string_view uri) {
  // The URI as written: a relative reference without control bytes or backslashes.
  if (has_scheme(uri))
    refuse(uri, "is not a relative URI (it has a scheme; a model's resources are files in its "
                "folder or data: URIs)");
  const std::string decoded = percent_decode_uri(uri);
  if (decoded.empty()) refuse(uri, "is empty (it names no file)");
  if (std::any_of(decoded.begin(), decoded.end(),
                  [](char c) { return is_control(static_cast<unsigned char>(c)); }))
    refuse(uri, "holds a control byte (0x00-0x1f or 0x7f, raw or percent-encoded); a resource "
                "name may not");
  if (decoded.find('\\') != std::string::npos)
    refuse(uri, "holds a backslash (raw or percent-encoded); URIs separate folders with '/'");
  if (decoded.front() == '/')
    refuse(uri, "is an absolute path; a model's resources are named relative to its folder");
  // RFC 3986 §5.2.4: dot segments are removed from the URI's path before it names anything; a
  // `..` left in front leaves the folder, refused without looking at the file system.
  const fs::path relative = fs::path(decoded).lexically_normal();
  if (!relative.empty() && *relative.begin() == "..") refuse(uri, kAbove);
  if (!relative.has_filename())
    refuse(uri, "ends in '/': it names a folder, not a file", ErrorKind::Io);
  std::error_code ec;
  const fs::path dir = fs::canonical(model_dir, ec);
  if (ec) refuse(uri, "cannot be resolved: the model's folder cannot be made canonical");
  return walk_inside(dir, relative, uri);
}

std::vector<unsigned char> read_model_resource(const fs::path& resolved, uint64_t max_bytes) {
  {
    std::lock_guard lock(observer_mutex);
    if (open_observer) open_observer(resolved);
  }
  const int fd = ::open(resolved.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) throw Error(ErrorKind::Io, "could not be opened");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(ErrorKind::Io, "is not a regular file");
  if (uint64_t(st.st_size) > max_bytes)
    throw Error(ErrorKind::Io,
                fmt::format("is {} bytes, more than the {} bindery reads", st.st_size, max_bytes));
  std::vector<unsigned char> bytes(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(ErrorKind::Io, "could not be read to its end");
    done += static_cast<size_t>(n);
  }
  return bytes;
}

void set_resource_open_observer(std::function<void(const fs::path&)> observer) {
  std::lock_guard lock(observer_mutex);
  open_observer = std::move(observer);
}

}  // namespace bindery
