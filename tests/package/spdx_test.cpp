// SPDX-License-Identifier: MIT
// Licence headers (issue 12): every source file tracked by git carries
// `SPDX-License-Identifier: MIT` in a comment on its first line, or on its second after a shebang.
// Source files: C++ (.cpp .hpp .h .cc .c) and WGSL with `//`; CMake (CMakeLists.txt, .cmake,
// .cmake.in), shell (.sh), Python (.py) and any other file starting with `#!` with `#`.
// Test inputs under tests/data/ and fuzz/corpus/ are data, not source: their bytes, line numbers
// and line breaks are what the tests read, so they are left alone (a script there still counts).
// The rule is tested on hand-made cases first, then applied to `git ls-files`.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view kTag = "SPDX-License-Identifier: MIT";

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

/// The comment marker the SPDX line of `path` must use, or nullopt when the file is not source.
/// `text` is the file's content (only its first two bytes are read, for a shebang).
std::optional<std::string> spdx_comment(std::string_view path, std::string_view text) {
  if (starts_with(path, "tests/data/") || starts_with(path, "fuzz/corpus/")) {
    if (!ends_with(path, ".py") && !ends_with(path, ".sh") && !starts_with(text, "#!"))
      return std::nullopt;
  }
  const std::string_view name = path.substr(path.rfind('/') + 1);
  for (std::string_view ext : {".cpp", ".hpp", ".h", ".cc", ".c", ".wgsl"})
    if (ends_with(name, ext)) return "//";
  if (name == "CMakeLists.txt" || ends_with(name, ".cmake") || ends_with(name, ".cmake.in") ||
      ends_with(name, ".sh") || ends_with(name, ".py") || starts_with(text, "#!"))
    return "#";
  return std::nullopt;
}

/// Whether `text` has "<comment> SPDX-License-Identifier: MIT" as its first line, or its second
/// when the first is a shebang. Lines end at LF; a CR before it is ignored.
bool has_spdx_line(std::string_view text, const std::string& comment) {
  auto line = [&](size_t& pos) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, end - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    pos = end + 1;
    return l;
  };
  size_t pos = 0;
  std::string_view first = line(pos);
  if (starts_with(first, "#!")) first = pos <= text.size() ? line(pos) : std::string_view{};
  return first == comment + " " + std::string(kTag);
}

/// Runs `command`, returns its standard output; nullopt when it exits non-zero.
std::optional<std::string> run(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  return pclose(pipe) == 0 ? std::optional(out) : std::nullopt;
}

TEST(Spdx, WhichFilesAreSource) {
  EXPECT_EQ(spdx_comment("src/device.cpp", "#include"), "//");
  EXPECT_EQ(spdx_comment("include/bindery/gpu.hpp", ""), "//");
  EXPECT_EQ(spdx_comment("shaders/cull.wgsl", ""), "//");
  EXPECT_EQ(spdx_comment("CMakeLists.txt", ""), "#");
  EXPECT_EQ(spdx_comment("cmake/Install.cmake", ""), "#");
  EXPECT_EQ(spdx_comment("cmake/binderyConfig.cmake.in", ""), "#");
  EXPECT_EQ(spdx_comment("scripts/build.sh", ""), "#");
  EXPECT_EQ(spdx_comment("bench/render_report.py", ""), "#");
  EXPECT_EQ(spdx_comment(".ci/run", "#!/usr/bin/env bash\n"), "#");       // no extension, a shebang
  EXPECT_EQ(spdx_comment("tests/data/gltf/make_relatives.py", ""), "#");  // a script in data
  EXPECT_EQ(spdx_comment("tests/data/wgsl/linebreaks/cr.wgsl", ""), std::nullopt);
  EXPECT_EQ(spdx_comment("fuzz/corpus/wgsl/storage_and_uniform.wgsl", ""), std::nullopt);
  EXPECT_EQ(spdx_comment("README.md", "# bindery"), std::nullopt);
  EXPECT_EQ(spdx_comment("LICENSE", "MIT License"), std::nullopt);
  EXPECT_EQ(spdx_comment("tests/data/plan/g15.json", "{"), std::nullopt);
}

TEST(Spdx, LineOneOrAfterTheShebang) {
  EXPECT_TRUE(has_spdx_line("// SPDX-License-Identifier: MIT\n#pragma once\n", "//"));
  EXPECT_TRUE(has_spdx_line("// SPDX-License-Identifier: MIT", "//"));  // no final newline
  EXPECT_TRUE(has_spdx_line("# SPDX-License-Identifier: MIT\r\nproject(x)\r\n", "#"));
  EXPECT_TRUE(has_spdx_line("#!/usr/bin/env bash\n# SPDX-License-Identifier: MIT\nset -e\n", "#"));
  EXPECT_FALSE(has_spdx_line("", "//"));
  EXPECT_FALSE(has_spdx_line("#!/usr/bin/env bash\n", "#"));
  EXPECT_FALSE(has_spdx_line("// The draw list.\n#include <x>\n", "//"));
  // Not near the top: the third line of a file without a shebang.
  EXPECT_FALSE(has_spdx_line("// a\n// b\n// SPDX-License-Identifier: MIT\n", "//"));
  // The wrong comment for the language, another licence, or not a comment at all.
  EXPECT_FALSE(has_spdx_line("# SPDX-License-Identifier: MIT\n", "//"));
  EXPECT_FALSE(has_spdx_line("// SPDX-License-Identifier: Apache-2.0\n", "//"));
  EXPECT_FALSE(has_spdx_line("SPDX-License-Identifier: MIT\n", "#"));
  // A shebang line itself is not the SPDX line.
  EXPECT_FALSE(has_spdx_line("#!/bin/sh # SPDX-License-Identifier: MIT\nexit 0\n", "#"));
}

TEST(Spdx, EveryTrackedSourceFile) {
  const std::string root = BINDERY_SOURCE_DIR;
  if (!run("git -C '" + root + "' rev-parse --is-inside-work-tree >/dev/null 2>&1"))
    GTEST_SKIP() << root << " is not a git checkout: no list of tracked files";
  const std::optional<std::string> listing = run("git -C '" + root + "' ls-files");
  ASSERT_TRUE(listing) << "git ls-files failed in " << root;
  std::istringstream lines(*listing);
  std::vector<std::string> missing;
  size_t checked = 0;
  for (std::string path; std::getline(lines, path);) {
    std::ifstream in(root + "/" + path, std::ios::binary);
    if (!in) continue;  // deleted in the work tree, not yet in the index
    std::string head(512, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    const std::optional<std::string> comment = spdx_comment(path, head);
    if (!comment) continue;
    ++checked;
    if (!has_spdx_line(head, *comment))
      missing.push_back(path + " (needs \"" + *comment + " " + std::string(kTag) + "\")");
  }
  // The repository has well over a hundred source files; far fewer means the listing is wrong.
  EXPECT_GT(checked, 100u);
  std::string list;
  for (const std::string& m : missing) list += "\n  " + m;
  EXPECT_TRUE(missing.empty()) << missing.size() << " source file(s) without an SPDX line:" << list;
}

}  // namespace
