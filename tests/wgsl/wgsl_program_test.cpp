// SPDX-License-Identifier: MIT
// Whole WGSL programs and line breaks in bindery's reflector (issue 11 part 3, issue 9 case G03b):
// every WGSL line break kind (LF, VT, FF, CR, CRLF, NEL, LS, PS) ends a `//` comment and counts one
// line in diagnostics; LRM/RLM are blankspace; the modules in tests/data/wgsl/programs/ (every
// global declaration kind, Unicode identifiers) reflect without error with the layouts worked out
// by hand in the comments; constructs the reflector does not evaluate get one error naming the
// construct and its line:column. Expected numbers are hand calculations (WGSL §14.4.1), not
// bindery's output.
#include "support/cli_runner.hpp"

#include <bindery/core/io.hpp>
#include <bindery/wgsl/layout_verify.hpp>
#include <bindery/wgsl/wgsl_layout.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace bindery {
namespace {

using Offsets = std::vector<std::pair<std::string, uint32_t>>;

std::string errors_of(const Reflection& r) {
  std::string s;
  for (const auto& e : r.errors)
    s += std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.message + "\n";
  return s;
}

void expect_struct(const Reflection& r, std::string_view name, uint32_t align, uint32_t size,
                   const Offsets& offsets) {
  const StructLayout* s = r.find_struct(name);
  ASSERT_NE(s, nullptr) << name << "\n" << errors_of(r);
  EXPECT_EQ(s->align, align) << name;
  EXPECT_EQ(s->size, size) << name;
  ASSERT_EQ(s->members.size(), offsets.size()) << name;
  for (size_t i = 0; i < offsets.size(); ++i) {
    EXPECT_EQ(s->members[i].name, offsets[i].first) << name;
    EXPECT_EQ(s->members[i].offset, offsets[i].second) << name << "." << offsets[i].first;
  }
}

void expect_binding(const Reflection& r, std::string_view name, uint32_t group, uint32_t binding,
                    BindingSpace space, uint64_t min_size) {
  const BindingInfo* b = r.find_binding(name);
  ASSERT_NE(b, nullptr) << name;
  EXPECT_EQ(b->group, group) << name;
  EXPECT_EQ(b->binding, binding) << name;
  EXPECT_EQ(b->space, space) << name;
  EXPECT_EQ(b->min_binding_size, min_size) << name;
}

/// Writes `text` byte for byte to a file in the test's temporary folder; returns its path.
std::string write_temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string data(const std::string& rel) {
  return std::string(BINDERY_SOURCE_DIR) + "/tests/data/wgsl/" + rel;
}

// ---- line breaks (issue 9, G03b) ----------------------------------------------------------------

TEST(WgslLineBreaks, G03b_CrOnlyFile) {
  // inputs.md G03b: struct Material (size 32), bindings material (1, 0) and bad (1, 1), one error
  // at 7:36 (array<f32, 4> has stride 4 in the uniform address space), exit 1.
  // The case's file, written here (the repository stands on its own): seven lines, each ended by
  // a lone CR (U+000D, a WGSL line break, WGSL §3.2), none by LF.
  const std::string path = write_temp_file(
      "G03b_cr_only.wgsl",
      "// T2-03b: CR-only line breaks (U+000D is a WGSL line break); valid WGSL.\r"
      "struct Material {\r"
      "  color: vec4<f32>,\r"
      "  roughness: f32,\r"
      "}\r"
      "@group(1) @binding(0) var<uniform> material: Material;\r"
      "@group(1) @binding(1) var<uniform> bad: array<f32, 4>; // line 7: stride 4 in uniform\r");
  const Reflection r = reflect_wgsl(read_wgsl_file(path, "G03b"));
  ASSERT_NE(r.find_struct("Material"), nullptr) << errors_of(r);
  EXPECT_EQ(r.struct_layout("Material").size, 32u);
  ASSERT_NE(r.find_binding("material"), nullptr);
  EXPECT_EQ(r.find_binding("material")->group, 1u);
  EXPECT_EQ(r.find_binding("material")->binding, 0u);
  ASSERT_NE(r.find_binding("bad"), nullptr);
  EXPECT_EQ(r.find_binding("bad")->group, 1u);
  EXPECT_EQ(r.find_binding("bad")->binding, 1u);
  ASSERT_EQ(r.errors.size(), 1u) << errors_of(r);
  EXPECT_EQ(r.errors[0].line, 7u);
  EXPECT_EQ(r.errors[0].column, 36u);
  EXPECT_EQ(r.errors[0].kind, ErrorKind::WgslLayout);
  EXPECT_EQ(test::run_cli("layout " + path).exit_code, 1);
}

class LineBreakKind : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(LineBreakKind, FileWithOnlyThisBreak) {
  // tests/data/wgsl/linebreaks/KIND.wgsl, 7 lines, every break of one kind. By hand:
  // Tint { rgb: vec3<f32> @0 (align 16), gain: f32 @12, steps: u32 @16 } align 16, size 32;
  // line 7 "@group(0) @binding(1) var<uniform> steps: array<u32, 3>;": 'steps' at column 36,
  // stride 4 in uniform -> one WgslLayout error at 7:36; the trailing // comment ends at the break.
  const std::string path = data("linebreaks/" + GetParam().first + ".wgsl");
  const Reflection r = reflect_wgsl(read_wgsl_file(path, "line-break case"));
  expect_struct(r, "Tint", 16, 32, {{"rgb", 0}, {"gain", 12}, {"steps", 16}});
  expect_binding(r, "tint", 0, 0, BindingSpace::Uniform, 32);
  expect_binding(r, "steps", 0, 1, BindingSpace::Uniform, 12);
  ASSERT_EQ(r.errors.size(), 1u) << errors_of(r);
  EXPECT_EQ(r.errors[0].line, 7u);
  EXPECT_EQ(r.errors[0].column, 36u);
  EXPECT_EQ(r.errors[0].kind, ErrorKind::WgslLayout);
  EXPECT_EQ(test::run_cli("layout " + path).exit_code, 1);
}

TEST_P(LineBreakKind, BlockAndLineCommentsCountLines) {
  // Built here with the break under test: a block comment spanning lines 1-3, a line comment on
  // line 4, then the declaration on line 5 with the error at column 36 again.
  const std::string& br = GetParam().second;
  const std::string src = "/* one" + br + "two" + br + "three */ struct S { a: f32 }" + br +
                          "// four, ended by the break" + br +
                          "@group(0) @binding(9) var<uniform> wrong: array<f32, 2>;" + br;
  const Reflection r = reflect_wgsl(src);
  ASSERT_NE(r.find_struct("S"), nullptr) << errors_of(r);
  ASSERT_EQ(r.errors.size(), 1u) << errors_of(r);
  EXPECT_EQ(r.errors[0].line, 5u);
  EXPECT_EQ(r.errors[0].column, 36u);
  // An identifier right before the break ends at it.
  const Reflection tight = reflect_wgsl("struct T { a: f32" + br + "}" + br + "struct U { b: T }");
  EXPECT_TRUE(tight.ok()) << errors_of(tight);
  EXPECT_NE(tight.find_struct("U"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, LineBreakKind,
    ::testing::Values(std::pair<std::string, std::string>{"lf", "\n"},
                      std::pair<std::string, std::string>{"vt", "\v"},
                      std::pair<std::string, std::string>{"ff", "\f"},
                      std::pair<std::string, std::string>{"cr", "\r"},
                      std::pair<std::string, std::string>{"crlf", "\r\n"},
                      std::pair<std::string, std::string>{"nel", "\xC2\x85"},
                      std::pair<std::string, std::string>{"ls", "\xE2\x80\xA8"},
                      std::pair<std::string, std::string>{"ps", "\xE2\x80\xA9"}),
    [](const auto& info) { return info.param.first; });

TEST(WgslLineBreaks, CrLfIsOneBreakAndLfCrIsTwo) {
  // "\r\n" is one line break; "\n\r" is two (LF, then CR not followed by LF).
  EXPECT_EQ(reflect_wgsl("\r\n\r\n@group(0) @binding(0) var<uniform> u: array<f32, 2>;")
                .errors.at(0)
                .line,
            3u);
  EXPECT_EQ(reflect_wgsl("\n\r\n\r@group(0) @binding(0) var<uniform> u: array<f32, 2>;")
                .errors.at(0)
                .line,
            4u);
}

TEST(WgslLineBreaks, MarksAreBlankspaceAndCountOneColumn) {
  // U+200E and U+200F are blankspace (WGSL §3.2): they separate tokens and take one column.
  const Reflection r = reflect_wgsl(
      "struct\xE2\x80\x8ES\xE2\x80\x8F{ a: f32 }\n\xE2\x80\x8F@group(0) @binding(0) var<uniform> "
      "u: array<f32, 2>;");
  ASSERT_NE(r.find_struct("S"), nullptr) << errors_of(r);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].line, 2u);
  EXPECT_EQ(r.errors[0].column, 37u);
}

// ---- whole programs -----------------------------------------------------------------------------

TEST(WgslPrograms, EveryGlobalDeclarationKind) {
  const Reflection r =
      reflect_wgsl(read_wgsl_file(data("programs/every_declaration.wgsl"), "program"));
  EXPECT_TRUE(r.ok()) << errors_of(r);
  // Light: position vec3f @0, range f32 @12, colour vec4 @16; align 16, size 32.
  expect_struct(r, "Light", 16, 32, {{"position", 0}, {"range", 12}, {"colour", 16}});
  // Frame: view_projection @0 (64); lights array<Light, 7> @64, stride 32 -> 288;
  // @align(32) light_count @288; @size(16) exposure @292 -> 308; weights array<vec4f, 10/5 = 2>
  // @roundUp(16, 308) = 320 -> 352; align max(16, 32) = 32; size roundUp(32, 352) = 352.
  expect_struct(r, "Frame", 32, 352,
                {{"view_projection", 0},
                 {"lights", 64},
                 {"light_count", 288},
                 {"exposure", 292},
                 {"weights", 320}});
  EXPECT_EQ(r.struct_layout("Frame").members[1].type->count, 7u);
  EXPECT_EQ(r.struct_layout("Frame").members[3].size, 16u);
  EXPECT_EQ(r.struct_layout("Frame").members[4].type->count, 2u);
  // Particle: position @0, velocity vec3 @16, age @28; size 32.
  expect_struct(r, "Particle", 16, 32, {{"position", 0}, {"velocity", 16}, {"age", 28}});
  // Particles: count @0, dropped @4, items array<Particle> @16; size roundUp(16, 48) = 48.
  expect_struct(r, "Particles", 16, 48, {{"count", 0}, {"dropped", 4}, {"items", 16}});
  // VertexOut: clip vec4 @0, light u32 @16, uv vec2f @24; size 32.
  expect_struct(r, "VertexOut", 16, 32, {{"clip", 0}, {"light", 16}, {"uv", 24}});
  expect_binding(r, "frame", 0, 0, BindingSpace::Uniform, 352);
  expect_binding(r, "particles", 0, 1, BindingSpace::Storage, 48);
  expect_binding(r, "albedo", 1, 0, BindingSpace::Texture, 0);
  expect_binding(r, "albedo_sampler", 1, 1, BindingSpace::Sampler, 0);
  expect_binding(r, "shadow", 1, 2, BindingSpace::Texture, 0);
  expect_binding(r, "shadow_sampler", 1, 3, BindingSpace::ComparisonSampler, 0);
  expect_binding(r, "volume", 1, 4, BindingSpace::Texture, 0);
  expect_binding(r, "layers", 1, 5, BindingSpace::Texture, 0);
  expect_binding(r, "sky", 1, 6, BindingSpace::Texture, 0);
  expect_binding(r, "msaa", 1, 7, BindingSpace::Texture, 0);
  expect_binding(r, "out_image", 2, 0, BindingSpace::StorageTexture, 0);
  expect_binding(r, "history", 2, 1, BindingSpace::StorageTexture, 0);
  expect_binding(r, "counts", 2, 2, BindingSpace::StorageTexture, 0);
  EXPECT_EQ(r.bindings.size(), 13u);  // private and workgroup variables are not bindings
}

TEST(WgslPrograms, UnicodeIdentifiers) {
  const Reflection r =
      reflect_wgsl(read_wgsl_file(data("programs/unicode_identifiers.wgsl"), "program"));
  EXPECT_TRUE(r.ok()) << errors_of(r);
  // Licht: farbe vec3f @0, stärke @12, πδ vec2f @16; size 32. Szene: lichter array<Licht, 3> @0
  // (96 bytes), 名前 @96, Ωmega mat2x3f @roundUp(16, 100) = 112 (32 bytes) -> 144.
  expect_struct(r, "Licht", 16, 32, {{"farbe", 0}, {"stärke", 12}, {"πδ", 16}});
  expect_struct(r, "Szene", 16, 144, {{"lichter", 0}, {"名前", 96}, {"Ωmega", 112}});
  expect_binding(r, "szene", 0, 0, BindingSpace::Uniform, 144);
  expect_binding(r, "ergebnis", 0, 1, BindingSpace::Storage, 4);
}

TEST(WgslPrograms, ConstBuiltinsInArraySizesAndAttributes) {
  // max(3, 5) = 5, min(8, 2) = 2, abs(-4) = 4, clamp(9, 1, 6) = 6.
  const Reflection r = reflect_wgsl(R"(
const N = 3;
struct S {
  a: array<u32, max(N, 5)>,
  @align(min(8, 2) * 8) b: array<u32, abs(-4)>,
  @size(clamp(9, 1, 6) * 4) c: f32,
}
)");
  ASSERT_TRUE(r.ok()) << errors_of(r);
  // a: 5 * 4 = 20 bytes @0; b @roundUp(16, 20) = 32, 16 bytes; c @48, @size(24) -> 72; align 16
  // -> 80.
  expect_struct(r, "S", 16, 80, {{"a", 0}, {"b", 32}, {"c", 48}});
  EXPECT_EQ(r.struct_layout("S").members[0].type->count, 5u);
  EXPECT_EQ(r.struct_layout("S").members[1].type->count, 4u);
}

TEST(WgslPrograms, UnsupportedConstructsNameTheConstructAndPosition) {
  // select() is a valid const builtin that bindery's integer evaluator does not implement: one
  // error at the call, naming it.
  const Reflection r = reflect_wgsl("struct S {\n  a: array<f32, select(1, 2, true)>,\n}\n");
  ASSERT_EQ(r.errors.size(), 1u) << errors_of(r);
  EXPECT_EQ(r.errors[0].line, 2u);
  EXPECT_EQ(r.errors[0].column, 17u);
  EXPECT_NE(r.errors[0].message.find("select"), std::string::npos) << r.errors[0].message;
  // A float const as an array size.
  const Reflection f = reflect_wgsl("const F = 2.5;\nstruct T { a: array<f32, F> }\n");
  ASSERT_EQ(f.errors.size(), 1u) << errors_of(f);
  EXPECT_EQ(f.errors[0].line, 1u);
  EXPECT_EQ(f.errors[0].column, 11u);
  EXPECT_NE(f.errors[0].message.find("2.5"), std::string::npos) << f.errors[0].message;
}

TEST(WgslPrograms, LayoutDeclarationsKeepDirectivesAliasesConstsAndStructsOnly) {
  const std::string d =
      layout_declarations(read_wgsl_file(data("programs/every_declaration.wgsl"), "program"));
  for (const char* kept :
       {"diagnostic(off, derivative_uniformity);",
        "requires readonly_and_readwrite_storage_textures;", "const TILE: u32 = 4u;",
        "alias LightArray = array<Light, LIGHTS>;", "struct Frame {", "struct VertexOut {"})
    EXPECT_NE(d.find(kept), std::string::npos) << kept << "\n" << d;
  for (const char* dropped : {"override", "const_assert", "fn ", "var<", "var albedo"})
    EXPECT_EQ(d.find(dropped), std::string::npos) << dropped << "\n" << d;
  EXPECT_TRUE(layout_declarations("struct {").empty());
}

TEST(WgslPrograms, AddressSpaceErrorsOfAStruct) {
  // L13 (a): q at 8 (not a multiple of 16) and r only 8 bytes after q: errors in uniform, none
  // in storage; atomics: valid in read_write storage only.
  const Reflection r = reflect_wgsl(
      "struct H { hi: f32, lo: f32 }\nstruct A { p: H, q: H, r: H }\nstruct C { n: atomic<u32> "
      "}\n");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(address_space_errors(r.struct_layout("A"), BindingSpace::Uniform).empty());
  EXPECT_TRUE(address_space_errors(r.struct_layout("A"), BindingSpace::Storage).empty());
  EXPECT_TRUE(address_space_errors(r.struct_layout("A"), BindingSpace::Uniform,
                                   {.uniform_buffer_standard_layout = true})
                  .empty());
  EXPECT_TRUE(address_space_errors(r.struct_layout("C"), BindingSpace::Storage).empty());
  EXPECT_FALSE(address_space_errors(r.struct_layout("C"), BindingSpace::ReadOnlyStorage).empty());
  EXPECT_FALSE(address_space_errors(r.struct_layout("C"), BindingSpace::Uniform).empty());
}

}  // namespace
}  // namespace bindery
