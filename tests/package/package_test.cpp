// SPDX-License-Identifier: MIT
// What the package promises about itself: the version in bindery/version.hpp is the CMake
// project version (passed in by tests/CMakeLists.txt) and the newest CHANGELOG.md heading, and
// the umbrella headers bindery/bindery.hpp (the parts) and bindery/render.hpp (the renderer)
// include every public header of their folders.
#include "bindery/bindery.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace bindery {
namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Package, VersionHeaderMatchesTheCMakeProject) {
  EXPECT_EQ(BINDERY_VERSION_MAJOR, BINDERY_PROJECT_VERSION_MAJOR);
  EXPECT_EQ(BINDERY_VERSION_MINOR, BINDERY_PROJECT_VERSION_MINOR);
  EXPECT_EQ(BINDERY_VERSION_PATCH, BINDERY_PROJECT_VERSION_PATCH);
  EXPECT_STREQ(BINDERY_VERSION_STRING, BINDERY_PROJECT_VERSION);
  EXPECT_STREQ(kVersionString, BINDERY_PROJECT_VERSION);
  EXPECT_EQ(kVersion, BINDERY_PROJECT_VERSION_MAJOR * 10000 + BINDERY_PROJECT_VERSION_MINOR * 100 +
                          BINDERY_PROJECT_VERSION_PATCH);
}

TEST(Package, NewestChangelogEntryIsThisVersion) {
  const std::string text = read_text(std::filesystem::path(BINDERY_SOURCE_DIR) / "CHANGELOG.md");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"((^|\n)## ([0-9]+\.[0-9]+\.[0-9]+))")))
      << "CHANGELOG.md has no '## X.Y.Z' heading";
  EXPECT_EQ(m[2].str(), BINDERY_PROJECT_VERSION);
}

// The headers an umbrella includes, as "LAYER/NAME.hpp".
std::set<std::string> umbrella_includes(const std::filesystem::path& umbrella) {
  const std::string text = read_text(umbrella);
  std::set<std::string> included;
  const std::regex include_line(R"(#include "bindery/([a-z_]+/[a-z0-9_]+\.hpp)\")");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), include_line);
       it != std::sregex_iterator(); ++it)
    included.insert((*it)[1].str());
  return included;
}

// bindery/bindery.hpp includes every header of the parts' folders and nothing of render/;
// bindery/render.hpp every header of render/ (docs/ARCHITECTURE.md).
TEST(Package, UmbrellaHeaderIncludesEveryPublicHeader) {
  const std::filesystem::path dir = std::filesystem::path(BINDERY_SOURCE_DIR) / "include/bindery";
  const std::vector<std::pair<std::string, std::vector<std::string>>> umbrellas = {
      {"bindery.hpp", {"core", "wgsl", "data", "encode", "headless", "gpu_driven"}},
      {"render.hpp", {"render"}}};
  for (const auto& [umbrella, layers] : umbrellas) {
    const std::set<std::string> included = umbrella_includes(dir / umbrella);
    size_t headers = 0;
    for (const std::string& layer : layers)
      for (const auto& entry : std::filesystem::directory_iterator(dir / layer)) {
        const std::string name = layer + "/" + entry.path().filename().string();
        if (entry.path().extension() != ".hpp") continue;
        ++headers;
        EXPECT_TRUE(included.count(name)) << "bindery/" << umbrella << " does not include " << name;
      }
    EXPECT_EQ(included.size(), headers)
        << "bindery/" << umbrella << " includes a header that is gone or of another layer";
  }
}

}  // namespace
}  // namespace bindery
