// SPDX-License-Identifier: MIT
// read_wgsl_file's `// @include` expansion (the convention of shaders/*.wgsl) and the input-file
// rules: no device needed.
#include "expect_kind.hpp"

#include <bindery/core/io.hpp>
#include <bindery/wgsl/wgsl_layout.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace bindery {
namespace {

std::filesystem::path temp_dir() {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("bindery_io_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

std::string write(const std::string& name, const std::string& text) {
  const auto path = temp_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(WgslIncludes, ExpandsIntoOneModule) {
  write("common.wgsl", "struct S { a: vec3f, b: f32 }\n");
  const std::string main = write("main.wgsl", "// top\n// @include common.wgsl\n"
                                              "@group(0) @binding(0) var<uniform> u: S;\n");
  const std::string text = read_wgsl_file(main, "test");
  EXPECT_NE(text.find("struct S"), std::string::npos);
  EXPECT_EQ(text.find("@include"), std::string::npos);
  const Reflection r = reflect_wgsl(text);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.struct_layout("S").size, 16u);  // vec3f (12, align 16) + f32 at 12 = 16
}

TEST(WgslIncludes, ShippedShadersReflect) {
  // Every strategy shader includes cubes_common.wgsl; PerObjectUniforms there is
  // mat3x3f (48) + mat4x4f (64) = 112 bytes.
  const std::string dir = std::string(BINDERY_SOURCE_DIR) + "/shaders/";
  for (const char* name : {"cubes_by_frequency.wgsl", "cubes_storage.wgsl", "cubes_naive.wgsl"}) {
    const Reflection r = reflect_wgsl(read_wgsl_file(dir + name, "shader"));
    ASSERT_TRUE(r.ok()) << name;
    EXPECT_EQ(r.struct_layout("PerObjectUniforms").size, 112u) << name;
  }
}

TEST(WgslIncludes, BadIncludesAreIoErrors) {
  EXPECT_KIND(read_wgsl_file(write("missing.wgsl", "x\n// @include nowhere.wgsl\n"), "t"), Io);
  EXPECT_KIND(read_wgsl_file(write("escape.wgsl", "x\n// @include ../etc.wgsl\n"), "t"), Io);
  EXPECT_KIND(read_wgsl_file(write("self.wgsl", "x\n// @include self.wgsl\n"), "t"), Io);
}

TEST(InputFiles, OnlyRegularFiles) {
  EXPECT_KIND(read_input_file(temp_dir().string(), "t"), Io);
  EXPECT_KIND(read_input_file("/nonexistent/file", "t"), Io);
  EXPECT_KIND(read_input_file(write("big.txt", std::string(100, 'x')), "t", 10), Io);
}

}  // namespace
}  // namespace bindery
