// SPDX-License-Identifier: MIT
// What the package promises about itself: the version in bindery/version.hpp is the CMake
// project version (passed in by tests/CMakeLists.txt) and the newest CHANGELOG.md heading, and
// the umbrella header bindery/bindery.hpp includes every public header.
#include "bindery/bindery.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

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

TEST(Package, UmbrellaHeaderIncludesEveryPublicHeader) {
  const std::filesystem::path dir = std::filesystem::path(BINDERY_SOURCE_DIR) / "include/bindery";
  const std::string umbrella = read_text(dir / "bindery.hpp");
  std::set<std::string> included;
  const std::regex include_line(R"(#include "bindery/([a-z0-9_]+\.hpp)\")");
  for (auto it = std::sregex_iterator(umbrella.begin(), umbrella.end(), include_line);
       it != std::sregex_iterator(); ++it)
    included.insert((*it)[1].str());
  size_t headers = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".hpp" || name == "bindery.hpp") continue;
    ++headers;
    EXPECT_TRUE(included.count(name)) << "bindery/bindery.hpp does not include " << name;
  }
  EXPECT_EQ(included.size(), headers) << "bindery/bindery.hpp includes a header that is gone";
}

}  // namespace
}  // namespace bindery
