// SPDX-License-Identifier: MIT
// read_wgsl_file's `// @include` expansion (the convention of shaders/*.wgsl) and the input-file
// rules: no device needed.
#include "support/expect_kind.hpp"

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

// A directive is a line of its own wherever it is, the first line too; inside a block comment it
// is comment text.
TEST(WgslIncludes, FirstLineIncludesAndCommentedOnesDoNot) {
  write("first.wgsl", "struct First { a: f32 }\n");
  const std::string text = read_wgsl_file(write("line1.wgsl", "// @include first.wgsl\nx\n"), "t");
  EXPECT_EQ(text, "struct First { a: f32 }\n\nx\n");
  const std::string commented =
      "/* outer /* nested */\n// @include first.wgsl\n*/\n// see /* not a block\ny\n";
  EXPECT_EQ(read_wgsl_file(write("commented.wgsl", commented), "t"), commented);
  const std::string after = "/* c */\n// @include first.wgsl\n";
  EXPECT_EQ(read_wgsl_file(write("after.wgsl", after), "t"), "/* c */\nstruct First { a: f32 }\n\n");
}

// The limit is on nesting (8 levels), not on how many files a shader includes side by side.
TEST(WgslIncludes, NineSiblingsLoadNineLevelsDoNot) {
  std::string siblings;
  for (int i = 0; i < 9; ++i) {
    write("sib" + std::to_string(i) + ".wgsl", "const s" + std::to_string(i) + " = 1;\n");
    siblings += "// @include sib" + std::to_string(i) + ".wgsl\n";
  }
  const std::string text = read_wgsl_file(write("siblings.wgsl", siblings), "t");
  for (int i = 0; i < 9; ++i)
    EXPECT_NE(text.find("const s" + std::to_string(i) + " = 1;"), std::string::npos) << i;
  // deep0 includes deep1, ..., deep8 includes deep9: deep9 is 9 levels down.
  for (int i = 0; i < 9; ++i)
    write("deep" + std::to_string(i) + ".wgsl",
          "// @include deep" + std::to_string(i + 1) + ".wgsl\n");
  write("deep9.wgsl", "const bottom = 1;\n");
  EXPECT_KIND(read_wgsl_file(write("deep_top.wgsl", "// @include deep1.wgsl\n"), "t"), Io);
  EXPECT_NE(read_wgsl_file(write("deep_ok.wgsl", "// @include deep2.wgsl\n"), "t").find("bottom"),
            std::string::npos);
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

// Quoted input never carries a control: C0 and DEL, the C1 controls (U+0080-U+009F, whose 8-bit
// CSI 0x9b a terminal obeys) and bytes outside well-formed UTF-8 (RFC 3629) become \xHH; well-
// formed UTF-8 stays.
TEST(EscapeForMessage, KeepsUtf8AndEscapesEveryControl) {
  EXPECT_EQ(escape_for_message("caf\xc3\xa9 \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xf0\x9f\x98\x80");
  EXPECT_EQ(escape_for_message("a\x9b" "31m"), "a\\x9b31m");
  EXPECT_EQ(escape_for_message("\xc2\x9b\xc2\x85"), "\\xc2\\x9b\\xc2\\x85");
  EXPECT_EQ(escape_for_message("\xc2\xa0"), "\xc2\xa0");  // U+00A0, the first after C1
  EXPECT_EQ(escape_for_message("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
  EXPECT_EQ(escape_for_message("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(escape_for_message("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // > U+10FFFF
  EXPECT_EQ(escape_for_message("end\xe2\x82"), "end\\xe2\\x82");    // cut short
  EXPECT_EQ(escape_for_message("\x1b[0m\x7f\\"), "\\x1b[0m\\x7f\\\\");
}

// A value longer than kMaxQuotedBytes (1024) is quoted up to there and its length said; a
// UTF-8 sequence that would straddle the cut is left out whole (a breaker's 100 KB argument made
// a 100 KB error line).
TEST(EscapeForMessage, QuotesLongTextUpTo1024BytesAndSaysItsLength) {
  const std::string exact(1024, 'a');
  EXPECT_EQ(escape_for_message(exact), exact);
  EXPECT_EQ(escape_for_message(std::string(100000, 'b')),
            std::string(1024, 'b') + "... (100000 bytes in all)");
  // 1023 bytes, then "\xc3\xa9" (é) over bytes 1023-1024: cut before it.
  EXPECT_EQ(escape_for_message(std::string(1023, 'c') + "\xc3\xa9"),
            std::string(1023, 'c') + "... (1025 bytes in all)");
}

TEST(InputFiles, OnlyRegularFiles) {
  EXPECT_KIND(read_input_file(temp_dir().string(), "t"), Io);
  EXPECT_KIND(read_input_file("/nonexistent/file", "t"), Io);
  EXPECT_KIND(read_input_file(write("big.txt", std::string(100, 'x')), "t", 10), Io);
}

}  // namespace
}  // namespace bindery
