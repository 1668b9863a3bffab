// SPDX-License-Identifier: MIT
// Invalid WGSL that plain `layout` must refuse (issue 25, H4-06, and relatives): keywords and
// reserved words as names (WGSL §16.1, §16.2), '_' and '__' names (§3.5), an attribute given
// twice (§12), unknown enable-extensions (§4.1.2) and language extensions (§4.1.3), diagnostic
// severities other than error/warning/info/off (§2.3), identifiers outside XID_Start /
// XID_Continue (§3.5). Every case: one WgslSyntax error at the line and column worked out by
// hand (columns in code points), FILE:LINE:COL on the CLI, invisible format characters escaped.
#include "support/cli_runner.hpp"

#include <bindery/core/error.hpp>
#include <bindery/wgsl/wgsl_layout.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace bindery {
namespace {

namespace fs = std::filesystem;

struct Case {
  const char* name;
  std::string source;
  uint32_t line, column;
  const char* words;  ///< part of the message
};

void expect_refused(const Case& c) {
  SCOPED_TRACE(c.name);
  const Reflection r = reflect_wgsl(c.source);
  ASSERT_FALSE(r.errors.empty()) << c.source;
  const ReflectionError& e = r.errors.front();
  EXPECT_EQ(e.kind, ErrorKind::WgslSyntax) << e.message;
  EXPECT_EQ(e.line, c.line) << e.message;
  EXPECT_EQ(e.column, c.column) << e.message;
  EXPECT_NE(e.message.find(c.words), std::string::npos) << e.message;
}

TEST(WgslHostile, KeywordsAndReservedWordsDoNotName) {
  const Case cases[] = {
      // H4-06a: `struct struct` (the name at column 8).
      {"struct struct", "struct struct { a: f32 }\n", 1, 8, "'struct' is a WGSL keyword"},
      {"member Self", "struct A { Self: f32 }\n", 1, 12, "'Self' is a WGSL reserved word"},
      {"member var", "struct A {\n  a: f32,\n  var: u32,\n}\n", 3, 3, "'var' is a WGSL keyword"},
      {"alias fn", "alias fn = f32;\n", 1, 7, "'fn' is a WGSL keyword"},
      {"const while", "const while = 1;\n", 1, 7, "'while' is a WGSL keyword"},
      {"var typedef", "@group(0) @binding(0) var<uniform> typedef: f32;\n", 1, 36,
       "'typedef' is a WGSL reserved word"},
      {"function var target", "fn f() { var target: f32; }\n", 1, 14,
       "'target' is a WGSL reserved word"},
      {"struct _", "struct _ { a: f32 }\n", 1, 8, "'_' alone"},
      {"member __x", "struct A { __x: f32 }\n", 1, 12, "two underscores"},
  };
  for (const Case& c : cases) expect_refused(c);
  // Near misses stay names: a keyword's prefix or suffix, other case, a single leading '_'.
  const Reflection ok = reflect_wgsl(
      "struct Struct { structs: f32, self_: f32, _target: f32, Var: f32, selfie: f32 }\n");
  EXPECT_TRUE(ok.ok()) << (ok.errors.empty() ? "" : ok.errors.front().message);
}

TEST(WgslHostile, AttributesOnceEach) {
  const Case cases[] = {
      {"@size twice", "struct A { @size(8) @size(16) a: f32 }\n", 1, 22, "@size is given twice"},
      {"@align twice", "struct A { @align(8) @align(8) a: f32 }\n", 1, 23, "@align is given twice"},
      {"@binding twice", "@group(0) @binding(0) @binding(1) var<uniform> u: f32;\n", 1, 24,
       "@binding is given twice"},
      {"@group twice", "@group(0) @group(0) @binding(0) var<uniform> u: f32;\n", 1, 12,
       "@group is given twice"},
  };
  for (const Case& c : cases) expect_refused(c);
  EXPECT_TRUE(reflect_wgsl("struct A { @size(8) @align(8) a: f32 }\n").ok());
}

TEST(WgslHostile, ExtensionsAndSeveritiesWgslDefines) {
  const Case cases[] = {
      // H4-06b.
      {"enable wibble", "enable wibble;\nstruct U { a: f32 }\n", 1, 8,
       "'wibble' is not an enable-extension"},
      {"enable second unknown", "enable f16, wibble;\n", 1, 13, "'wibble'"},
      {"requires unknown", "requires nothing_such;\n", 1, 10,
       "'nothing_such' is not a language extension"},
      {"diagnostic fatal", "diagnostic(fatal, derivative_uniformity);\n", 1, 12,
       "needs a severity"},
      {"@diagnostic loud", "@diagnostic(loud, derivative_uniformity) fn f() {}\n", 1, 13,
       "needs a severity"},
  };
  for (const Case& c : cases) expect_refused(c);
  EXPECT_TRUE(reflect_wgsl("enable f16;\nrequires pointer_composite_access;\n"
                           "diagnostic(off, derivative_uniformity);\n"
                           "@diagnostic(warning, derivative_uniformity) fn f() {}\n")
                  .ok());
}

TEST(WgslHostile, IdentifiersAreXid) {
  const Case cases[] = {
      // U+1F600 (an emoji) is neither XID_Start nor XID_Continue; 'x' is column 12, the emoji 13.
      {"emoji", "struct A { x\xF0\x9F\x98\x80: f32 }\n", 1, 13, "U+1F600 is not XID_Continue"},
      // U+200B ZERO WIDTH SPACE first: not XID_Start.
      {"zero width", "struct A { \xE2\x80\x8Bx: f32 }\n", 1, 12, "U+200B is not XID_Start"},
      // U+202E RIGHT-TO-LEFT OVERRIDE inside a name.
      {"bidi override",
       "struct A { a\xE2\x80\xAE"
       "b: f32 }\n",
       1, 13, "U+202E is not XID_Continue"},
      // U+00B7 MIDDLE DOT is XID_Continue but not XID_Start.
      {"middle dot first",
       "struct \xC2\xB7"
       "A { a: f32 }\n",
       1, 8, "U+00B7 is not XID_Start"},
      // A lone continuation byte.
      {"malformed", "struct A\x80 { a: f32 }\n", 1, 9, "not well-formed UTF-8"},
  };
  for (const Case& c : cases) expect_refused(c);
  // XID letters and marks are names: é (U+00E9), Greek, CJK, a combining acute after a letter,
  // the middle dot after one.
  const Reflection ok = reflect_wgsl(
      "struct A { caf\xC3\xA9: f32, \xCE\xB1\xCE\xB2: f32, \xE5\x90\x8D: f32, e\xCC\x81: f32, "
      "l\xC2\xB7l: f32 }\n");
  EXPECT_TRUE(ok.ok()) << (ok.errors.empty() ? "" : ok.errors.front().message);
}

TEST(WgslHostile, CliSaysFileLineColumnAndEscapesFormatCharacters) {
  const fs::path dir = fs::path(::testing::TempDir()) / "bindery_wgsl_hostile_test";
  fs::create_directories(dir);
  const fs::path file = dir / "bidi.wgsl";
  std::ofstream(file) << "struct A {\n  a\xE2\x80\xAE"
                         "b: f32,\n}\n";
  const test::CliResult r = test::run_cli("layout " + file.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;  // a syntax error: layout's exit 2 (README)
  EXPECT_NE(r.out.find(file.string() + ":2:4: error [WgslSyntax]: identifier 'a\\u{202E}b'"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("\xE2\x80\xAE"), std::string::npos) << "the override reached stdout raw";
  EXPECT_EQ(r.err.find("\xE2\x80\xAE"), std::string::npos);
  // The library's escaping: format characters written \u{XXXX}, other UTF-8 kept.
  EXPECT_EQ(escape_for_message("a\xE2\x80\xAE"
                               "b\xC3\xA9\xE2\x81\xA6\xEF\xBB\xBF"),
            "a\\u{202E}b\xC3\xA9\\u{2066}\\u{FEFF}");
}

}  // namespace
}  // namespace bindery
