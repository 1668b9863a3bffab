// SPDX-License-Identifier: MIT
// WGSL memory layout reflection: every L, F, B, U case of /work/shared/cases/layout.md, the WGSL
// spec's worked struct layout examples (§14.4.1), the cube shader of seed 003, the uniform
// address-space checks with line:column, and robustness against garbage input.
// Expected numbers come from layout.md or from a hand calculation in the comment next to them.
#include <bindery/wgsl/wgsl_layout.hpp>

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace bindery {
namespace {

using Offsets = std::vector<std::pair<std::string, uint32_t>>;

Reflection reflect(std::string_view src, bool standard_layout = false) {
  return reflect_wgsl(src, ReflectOptions{.uniform_buffer_standard_layout = standard_layout});
}

std::string errors_of(const Reflection& r) {
  std::string s;
  for (const auto& e : r.errors) s += std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.message + "\n";
  return s;
}

void expect_struct(const Reflection& r, std::string_view name, uint32_t align, uint32_t size, const Offsets& offsets) {
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

bool has_error(const Reflection& r, ErrorKind kind) {
  for (const auto& e : r.errors)
    if (e.kind == kind) return true;
  return false;
}

const ReflectionError* error_at(const Reflection& r, uint32_t line, uint32_t column) {
  for (const auto& e : r.errors)
    if (e.line == line && e.column == column) return &e;
  return nullptr;
}

// ---- layout.md L cases -------------------------------------------------------------------------

TEST(WgslLayoutCases, L01_Vec3Is12BytesBut16Aligned) {
  auto r = reflect(R"(
struct A { p: vec3<f32>, s: f32 }
struct B { p: vec3<f32>, q: vec3<f32> }
struct C { p: vec3<f32>, s: f32, m: mat3x3<f32> }
@group(0) @binding(0) var<uniform> a: A;
@group(0) @binding(1) var<uniform> b: B;
@group(0) @binding(2) var<uniform> c: C;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  expect_struct(r, "A", 16, 16, {{"p", 0}, {"s", 12}});
  expect_struct(r, "B", 16, 32, {{"p", 0}, {"q", 16}});
  expect_struct(r, "C", 16, 64, {{"p", 0}, {"s", 12}, {"m", 16}});
  // m columns at 16, 32, 48: column stride 16.
  FieldRef m = r.struct_layout("C").field("m");
  EXPECT_EQ(m.column_stride, 16u);
  EXPECT_EQ(m.offset + 2u * m.column_stride, 48u);
}

TEST(WgslLayoutCases, L02_ThreeVec3ThenU32) {
  const char* src = R"(
struct R { o: vec3<f32>, d: vec3<f32>, acc: vec3<f32>, n: u32 }
@group(0) @binding(0) var<uniform> u: R;
@group(0) @binding(1) var<storage, read_write> s: R;
)";
  auto r = reflect(src);
  EXPECT_TRUE(r.ok()) << errors_of(r);
  expect_struct(r, "R", 16, 48, {{"o", 0}, {"d", 16}, {"acc", 32}, {"n", 44}});
  // A host mirror with 16-byte vec3s puts n at 48: not what WGSL says.
  EXPECT_NE(r.struct_layout("R").field("n").offset, 48u);
}

TEST(WgslLayoutCases, L03_Vec3AsPaddingDoublesTheStruct) {
  auto r = reflect(R"(
struct P1 { k: f32, pad: vec3<f32> }
struct P2 { k: f32, p0: f32, p1: f32, p2: f32 }
@group(0) @binding(0) var<uniform> a: P1;
@group(0) @binding(1) var<uniform> b: P2;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  expect_struct(r, "P1", 16, 32, {{"k", 0}, {"pad", 16}});
  expect_struct(r, "P2", 4, 16, {{"k", 0}, {"p0", 4}, {"p1", 8}, {"p2", 12}});
  // "A 16-byte binding is too small (needs 32)".
  EXPECT_EQ(r.find_binding(0, 0)->min_binding_size, 32u);
  EXPECT_EQ(r.find_binding(0, 1)->min_binding_size, 16u);
}

TEST(WgslLayoutCases, L04_Mat3x3Is48BytesWithPaddedColumns) {
  auto r = reflect(R"(
struct M { n: mat3x3<f32>, s: f32 }
struct Others { a: mat2x3<f32>, b: mat4x3<f32> }
@group(0) @binding(0) var<uniform> u: M;
@group(0) @binding(1) var<storage> s: M;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  expect_struct(r, "M", 16, 64, {{"n", 0}, {"s", 48}});
  const WgslType& mat3 = *r.struct_layout("M").members[0].type;
  EXPECT_EQ(mat3.name, "mat3x3<f32>");
  EXPECT_EQ(mat3.align, 16u);
  EXPECT_EQ(mat3.size, 48u);
  EXPECT_EQ(mat3.stride, 16u);  // columns at 0, 16, 32
  // s at f32 index 12 = byte 48.
  EXPECT_EQ(r.struct_layout("M").field("s").offset / 4, 12u);
  const auto& o = r.struct_layout("Others");
  EXPECT_EQ(o.members[0].type->size, 32u);   // mat2x3<f32>: 2 columns * 16
  EXPECT_EQ(o.members[0].type->align, 16u);
  EXPECT_EQ(o.members[1].type->size, 64u);   // mat4x3<f32>: 4 columns * 16
  EXPECT_EQ(o.members[1].type->align, 16u);
}

TEST(WgslLayoutCases, L05_Vec3u32PlusTwoU32HasStride32) {
  auto r = reflect(R"(
struct E { v: vec3<u32>, a: u32, b: u32 }
@group(0) @binding(0) var<storage, read> es: array<E>;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  expect_struct(r, "E", 16, 32, {{"v", 0}, {"a", 12}, {"b", 16}});
  const BindingInfo* b = r.find_binding(0, 0);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->space, BindingSpace::ReadOnlyStorage);
  EXPECT_EQ(b->store_type->stride, 32u);
  EXPECT_EQ(b->min_binding_size, 32u);
  EXPECT_EQ(b->runtime_array_length(640), 20u);  // floor(640 / 32)
  // Element 1 starts at byte 32 = u32 index 8.
  EXPECT_EQ(b->store_type->stride * 1 / 4, 8u);
}

TEST(WgslLayoutCases, L06_ArrayOfTwoU32IsNotVec2) {
  const char* structs = R"(
struct X { a: array<u32, 2>, b: u32 }
struct Y { a: vec2<u32>, b: u32 }
)";
  auto storage = reflect(std::string(structs) + R"(
@group(0) @binding(0) var<storage> x: X;
@group(0) @binding(1) var<storage> y: Y;
)");
  EXPECT_TRUE(storage.ok()) << errors_of(storage);
  expect_struct(storage, "X", 4, 12, {{"a", 0}, {"b", 8}});
  EXPECT_EQ(storage.struct_layout("X").members[0].type->stride, 4u);
  expect_struct(storage, "Y", 8, 16, {{"a", 0}, {"b", 8}});

  auto ux = reflect(std::string(structs) + "@group(0) @binding(0) var<uniform> x: X;\n");
  EXPECT_TRUE(has_error(ux, ErrorKind::WgslLayout)) << "array stride 4 in uniform";
  auto uy = reflect(std::string(structs) + "@group(0) @binding(0) var<uniform> y: Y;\n");
  EXPECT_TRUE(uy.ok()) << errors_of(uy);
  // The same numbers in uniform: WGSL never pads, it rejects.
  expect_struct(ux, "X", 4, 12, {{"a", 0}, {"b", 8}});
}

TEST(WgslLayoutCases, L07_ArrayOfVec3HasStride16) {
  auto r = reflect(R"(
@group(0) @binding(0) var<storage> a: array<vec3<f32>, 24>;
@group(0) @binding(1) var<storage> r: array<vec3<f32>>;
@group(0) @binding(2) var<uniform> u: array<vec3<f32>, 24>;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  const BindingInfo* a = r.find_binding(0, 0);
  EXPECT_EQ(a->store_type->align, 16u);
  EXPECT_EQ(a->store_type->stride, 16u);
  EXPECT_EQ(a->min_binding_size, 384u);
  const BindingInfo* rt = r.find_binding("r");
  EXPECT_EQ(rt->store_type->stride, 16u);
  EXPECT_EQ(rt->min_binding_size, 16u);
  EXPECT_EQ(rt->runtime_array_length(100), 6u);  // floor(100 / 16)
  EXPECT_EQ(r.find_binding(0, 2)->min_binding_size, 384u);
}

TEST(WgslLayoutCases, L08_RuntimeAndStride4ArraysInUniform) {
  auto a = reflect("@group(0) @binding(0) var<uniform> u: array<u32>;");
  EXPECT_TRUE(has_error(a, ErrorKind::WgslLayout));
  auto a_std = reflect("@group(0) @binding(0) var<uniform> u: array<u32>;", true);
  EXPECT_TRUE(has_error(a_std, ErrorKind::WgslLayout)) << "runtime arrays stay forbidden in uniform";

  auto b = reflect("@group(0) @binding(0) var<uniform> u: array<u32, 4>;");
  ASSERT_EQ(b.bindings.size(), 1u);
  EXPECT_EQ(b.bindings[0].store_type->align, 4u);
  EXPECT_EQ(b.bindings[0].store_type->stride, 4u);
  EXPECT_EQ(b.bindings[0].min_binding_size, 16u);
  EXPECT_TRUE(has_error(b, ErrorKind::WgslLayout)) << "stride 4 not a multiple of 16";
  auto b_std = reflect("@group(0) @binding(0) var<uniform> u: array<u32, 4>;", true);
  EXPECT_TRUE(b_std.ok()) << errors_of(b_std);
  auto b_req = reflect("requires uniform_buffer_standard_layout;\n@group(0) @binding(0) var<uniform> u: array<u32, 4>;");
  EXPECT_TRUE(b_req.ok()) << errors_of(b_req);

  auto c = reflect("@group(0) @binding(0) var<uniform> u: array<vec4<u32>, 1>;");
  EXPECT_TRUE(c.ok()) << errors_of(c);
  EXPECT_EQ(c.bindings[0].store_type->stride, 16u);
  EXPECT_EQ(c.bindings[0].min_binding_size, 16u);
}

TEST(WgslLayoutCases, L11_MatCx2KeepsAn8ByteColumnStride) {
  auto r = reflect(R"(
struct Q { t: mat3x2<f32>, x: u32, y: u32 }
struct U { q: array<Q, 64> }
struct V { m: array<mat2x2<f32>, 3> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<uniform> v: V;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  const WgslType& m32 = *r.struct_layout("Q").members[0].type;
  EXPECT_EQ(m32.align, 8u);
  EXPECT_EQ(m32.size, 24u);
  EXPECT_EQ(m32.stride, 8u);  // columns at 0, 8, 16
  expect_struct(r, "Q", 8, 32, {{"t", 0}, {"x", 24}, {"y", 28}});
  expect_struct(r, "U", 8, 2048, {{"q", 0}});
  EXPECT_EQ(r.struct_layout("U").members[0].type->stride, 32u);
  const WgslType& varr = *r.struct_layout("V").members[0].type;
  EXPECT_EQ(varr.element->align, 8u);
  EXPECT_EQ(varr.element->size, 16u);
  EXPECT_EQ(varr.element->stride, 8u);  // columns 0, 8
  EXPECT_EQ(varr.stride, 16u);
  EXPECT_EQ(r.struct_layout("V").size, 48u);
}

TEST(WgslLayoutCases, L13_StructMemberVersusVec2InUniform) {
  // Line numbers matter: the errors must point at q (line 3) and r (line 3).
  auto a = reflect(R"(struct H { hi: f32, lo: f32 }
@group(0) @binding(0) var<uniform> u: A;
struct A { p: H, q: H, r: H }
)");
  expect_struct(a, "H", 4, 8, {{"hi", 0}, {"lo", 4}});
  expect_struct(a, "A", 4, 24, {{"p", 0}, {"q", 8}, {"r", 16}});
  EXPECT_TRUE(has_error(a, ErrorKind::WgslLayout));
  // q is at column 18 of line 3: "struct A { p: H, q: H, r: H }".
  const ReflectionError* q = error_at(a, 3, 18);
  ASSERT_NE(q, nullptr) << errors_of(a);
  EXPECT_EQ(q->kind, ErrorKind::WgslLayout);
  EXPECT_NE(error_at(a, 3, 24), nullptr) << "r is only 8 bytes after q\n" << errors_of(a);
  EXPECT_EQ(error_at(a, 3, 12), nullptr) << "p at 0 is fine\n" << errors_of(a);
  // With uniform_buffer_standard_layout, A is valid.
  EXPECT_TRUE(reflect(R"(struct H { hi: f32, lo: f32 }
struct A { p: H, q: H, r: H }
@group(0) @binding(0) var<uniform> u: A;)", true).ok());

  auto b = reflect(R"(
struct B { p: vec2<f32>, q: vec2<f32>, r: vec2<f32> }
@group(0) @binding(0) var<uniform> u: B;)");
  EXPECT_TRUE(b.ok()) << errors_of(b);
  expect_struct(b, "B", 8, 24, {{"p", 0}, {"q", 8}, {"r", 16}});

  auto c = reflect(R"(
struct H { hi: f32, lo: f32 }
struct C { @align(16) p: H, @align(16) q: H, @align(16) r: H }
@group(0) @binding(0) var<uniform> u: C;)");
  EXPECT_TRUE(c.ok()) << errors_of(c);
  expect_struct(c, "C", 16, 48, {{"p", 0}, {"q", 16}, {"r", 32}});
}

// ---- F, B, U cases -----------------------------------------------------------------------------

TEST(WgslLayoutCases, F01_F16ScalarsVectorsAndMatrices) {
  auto r = reflect(R"(enable f16;
struct T { s: f16, v2: vec2<f16>, v3: vec3<f16>, v4: vec4<f16>, m2: mat2x2<f16>, m3: mat3x3<f16>, m4: mat4x4<f16> }
struct H { a: f16, b: f16, v: vec3<f16>, c: f16, d: f16, e: u32 }
struct G { m2: mat2x2<f16>, m3: mat3x3<f16>, m4: mat4x4<f16> }
@group(0) @binding(0) var<uniform> h: H;
@group(0) @binding(1) var<uniform> g: G;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  EXPECT_TRUE(r.f16_enabled);
  const auto& t = r.struct_layout("T").members;
  std::vector<std::pair<uint32_t, uint32_t>> align_size = {{2, 2}, {4, 4}, {8, 6}, {8, 8}, {4, 8}, {8, 24}, {8, 32}};
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].type->align, align_size[i].first) << t[i].type->name;
    EXPECT_EQ(t[i].type->size, align_size[i].second) << t[i].type->name;
  }
  expect_struct(r, "H", 8, 24, {{"a", 0}, {"b", 2}, {"v", 8}, {"c", 14}, {"d", 16}, {"e", 20}});
  expect_struct(r, "G", 8, 64, {{"m2", 0}, {"m3", 8}, {"m4", 32}});
  const auto& g = r.struct_layout("G");
  EXPECT_EQ(g.field("m2").column_stride, 4u);  // columns 0, 4
  EXPECT_EQ(g.field("m3").column_stride, 8u);  // columns 8, 16, 24
  EXPECT_EQ(g.field("m4").column_stride, 8u);  // columns 32, 40, 48, 56
}

TEST(WgslLayoutCases, F01_F16NeedsEnable) {
  auto r = reflect("struct H { a: f16 }\n@group(0) @binding(0) var<uniform> h: H;");
  EXPECT_TRUE(has_error(r, ErrorKind::WgslType));
  EXPECT_NE(error_at(r, 1, 15), nullptr) << errors_of(r);
  EXPECT_TRUE(has_error(reflect("struct H { a: vec3h }"), ErrorKind::WgslType));
}

TEST(WgslLayoutCases, B02_MinimumSizeOfBareVec3AndSmallStructs) {
  auto r = reflect(R"(
struct S1 { d: vec3<f32> }
struct S2 { seed: u32, ext: vec2<u32> }
@group(0) @binding(0) var<uniform> a: vec3<f32>;
@group(0) @binding(1) var<uniform> b: S1;
@group(0) @binding(2) var<uniform> c: S2;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  EXPECT_EQ(r.find_binding("a")->min_binding_size, 12u);
  EXPECT_EQ(r.find_binding("a")->portable_min_binding_size, 16u);
  EXPECT_EQ(r.find_binding("a")->type, "vec3<f32>");
  expect_struct(r, "S1", 16, 16, {{"d", 0}});
  EXPECT_EQ(r.find_binding("b")->min_binding_size, 16u);
  expect_struct(r, "S2", 8, 16, {{"seed", 0}, {"ext", 8}});
  EXPECT_EQ(r.find_binding("c")->min_binding_size, 16u);
  EXPECT_EQ(r.find_binding("c")->portable_min_binding_size, 16u);
}

TEST(WgslLayoutCases, B03_BufferSizedAsSumOfMembers) {
  auto r = reflect(R"(
struct Sc { a: mat4x4<f32>, b: mat4x4<f32>, l: vec3<f32> }
@group(0) @binding(0) var<uniform> sc: Sc;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  expect_struct(r, "Sc", 16, 144, {{"a", 0}, {"b", 64}, {"l", 128}});
  EXPECT_EQ(r.find_binding(0, 0)->min_binding_size, 144u);
  EXPECT_GT(r.find_binding(0, 0)->min_binding_size, 140u);  // the sample's 140-byte buffer is too small
}

TEST(WgslLayoutCases, U01_RuntimeArrayLengthFromBindingSize) {
  auto r = reflect("@group(0) @binding(2) var<storage> t: array<u32>;");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  const BindingInfo* b = r.find_binding(0, 2);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->store_type->stride, 4u);
  EXPECT_EQ(b->min_binding_size, 4u);
  EXPECT_EQ(b->runtime_array_length(4), 1u);
  EXPECT_EQ(b->runtime_array_length(8), 2u);
  try {
    b->runtime_array_length(10);
    ADD_FAILURE() << "10 bytes is not a multiple of 4";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BindingSizeAlignment);
  }
  try {
    b->runtime_array_length(0);
    ADD_FAILURE() << "0 bytes is below the minimum binding size";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::MinBindingSizeTooSmall);
  }
}

TEST(WgslLayoutCases, M04_InstanceMatrixArraySize) {
  // SizeOf = 64 * N.
  for (auto [n, size] : {std::pair{10000u, 640000u}, {1024u, 65536u}, {1025u, 65600u}}) {
    auto r = reflect("struct I { m: array<mat4x4<f32>, " + std::to_string(n) + "> }\n"
                     "@group(0) @binding(0) var<uniform> inst: I;");
    EXPECT_TRUE(r.ok()) << errors_of(r);
    EXPECT_EQ(r.find_binding(0, 0)->min_binding_size, size) << n;
  }
}

TEST(WgslLayoutCases, D01_BareMat4x4Binding) {
  auto r = reflect("@group(1) @binding(0) var<uniform> model: mat4x4<f32>;");
  ASSERT_NE(r.find_binding(1, 0), nullptr);
  EXPECT_EQ(r.find_binding(1, 0)->min_binding_size, 64u);
  EXPECT_EQ(r.find_binding(1, 0)->type, "mat4x4<f32>");
}

// ---- WGSL spec §14.4.1 worked examples ---------------------------------------------------------

TEST(WgslLayoutSpec, StructLayoutExample) {
  // Hand calculation (spec rules):
  //   A: u 0, v 4, w (vec2 align 8) 8, x 16; end 20 -> size roundUp(8, 20) = 24, align 8.
  //   B: a 0 (8 bytes); b vec3 align 16 -> 16, ends 28; c 28; d 32, ends 36; e: A align 8 -> 40,
  //      ends 64; f vec3 -> 64, ends 76; g: array<A, 3> align 8 -> 80, stride 24, size 72, ends 152;
  //      h 152, ends 156 -> size roundUp(16, 156) = 160, align 16.
  auto r = reflect(R"(
struct A { u: f32, v: f32, w: vec2<f32>, x: f32 }
struct B { a: vec2<f32>, b: vec3<f32>, c: f32, d: f32, e: A, f: vec3<f32>, g: array<A, 3>, h: i32 }
@group(0) @binding(0) var<storage, read_write> storage_buffer: B;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  expect_struct(r, "A", 8, 24, {{"u", 0}, {"v", 4}, {"w", 8}, {"x", 16}});
  expect_struct(r, "B", 16, 160,
                {{"a", 0}, {"b", 16}, {"c", 28}, {"d", 32}, {"e", 40}, {"f", 64}, {"g", 80}, {"h", 152}});
  EXPECT_EQ(r.struct_layout("B").field("g").type->stride, 24u);
  EXPECT_EQ(r.struct_layout("B").field("g").size, 72u);
  EXPECT_EQ(r.find_binding(0, 0)->space, BindingSpace::Storage);
  // In uniform, e (a struct at offset 40) breaks RequiredAlignOf = 16 -> error.
  auto u = reflect(R"(
struct A { u: f32, v: f32, w: vec2<f32>, x: f32 }
struct B { a: vec2<f32>, b: vec3<f32>, c: f32, d: f32, e: A, f: vec3<f32>, g: array<A, 3>, h: i32 }
@group(0) @binding(0) var<uniform> uniform_buffer: B;
)");
  EXPECT_TRUE(has_error(u, ErrorKind::WgslLayout));
}

TEST(WgslLayoutSpec, AlignAndSizeAttributesExample) {
  // Hand calculation:
  //   A: u 0, v 4, w 8, @size(16) x 16 -> ends 32; align 8, size 32.
  //   B: a 0; b 16 (ends 28); c 28; d 32 (ends 36); @align(16) e: A -> 48 (ends 80); f 80 (ends 92);
  //      g: array<A, 3> align 8 -> 96, stride roundUp(8, 32) = 32, size 96, ends 192; h 192 (ends 196)
  //      -> size roundUp(16, 196) = 208, align 16.
  //   Uniform: e at 48 (multiple of 16), f 32 bytes after e (roundUp(16, 32) = 32), g at 96,
  //   stride 32: all valid.
  auto r = reflect(R"(
struct A { u: f32, v: f32, w: vec2<f32>, @size(16) x: f32 }
struct B {
  a: vec2<f32>,
  b: vec3<f32>,
  c: f32,
  d: f32,
  @align(16) e: A,
  f: vec3<f32>,
  g: array<A, 3>,
  h: i32
}
@group(0) @binding(0) var<uniform> uniform_buffer: B;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  expect_struct(r, "A", 8, 32, {{"u", 0}, {"v", 4}, {"w", 8}, {"x", 16}});
  EXPECT_EQ(r.struct_layout("A").members[3].size, 16u);
  expect_struct(r, "B", 16, 208,
                {{"a", 0}, {"b", 16}, {"c", 28}, {"d", 32}, {"e", 48}, {"f", 80}, {"g", 96}, {"h", 192}});
  EXPECT_EQ(r.struct_layout("B").members[4].align, 16u);
  EXPECT_EQ(r.struct_layout("B").field("g").type->stride, 32u);
  EXPECT_EQ(r.find_binding(0, 0)->min_binding_size, 208u);
}

TEST(WgslLayoutSpec, RuntimeSizedArrayAsLastMember) {
  // Point: vec3 + f32 -> 16/16. Particles: count u32 at 0, items array<Point> align 16 -> 16,
  // stride 16; one element counts: size roundUp(16, 32) = 32.
  auto r = reflect(R"(
struct Point { p: vec3<f32>, w: f32 }
struct Particles { count: u32, items: array<Point> }
@group(0) @binding(0) var<storage, read_write> ps: Particles;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  expect_struct(r, "Particles", 16, 32, {{"count", 0}, {"items", 16}});
  const BindingInfo* b = r.find_binding(0, 0);
  EXPECT_EQ(b->min_binding_size, 32u);
  EXPECT_EQ(b->runtime_array_length(16 + 16 * 10), 10u);
  EXPECT_EQ(r.struct_layout("Particles").members[1].type->name, "array<Point>");
}

TEST(WgslLayoutSpec, NestedArrays) {
  // Inner array<vec4<f32>, 2>: stride 16, size 32, align 16; outer: stride 32, size 96.
  // inner array<f32, 3>: align 4 size 12; outer array<array<f32,3>,2>: stride 12, size 24.
  auto r = reflect(R"(
struct N { a: array<array<vec4<f32>, 2>, 3>, b: array<array<f32, 3>, 2>, c: u32 }
@group(0) @binding(0) var<storage> n: N;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  const auto& n = r.struct_layout("N");
  EXPECT_EQ(n.members[0].type->name, "array<array<vec4<f32>, 2>, 3>");
  EXPECT_EQ(n.members[0].type->stride, 32u);
  EXPECT_EQ(n.members[0].type->size, 96u);
  EXPECT_EQ(n.members[1].offset, 96u);
  EXPECT_EQ(n.members[1].type->stride, 12u);
  EXPECT_EQ(n.members[1].type->size, 24u);
  EXPECT_EQ(n.members[2].offset, 120u);
  EXPECT_EQ(n.size, 128u);  // roundUp(16, 124)
  EXPECT_EQ(n.resolve("a[2][1]").offset, 2u * 32 + 16);
  EXPECT_EQ(n.resolve("b[1][2]").offset, 96u + 12 + 8);
}

// ---- the article's cube shaders (seed 003) -----------------------------------------------------

constexpr const char* kCubeShader = R"(
      struct Uniforms {
        normalMatrix: mat3x3f,
        viewProjection: mat4x4f,
        world: mat4x4f,
        color: vec4f,
        lightWorldPosition: vec3f,
        viewWorldPosition: vec3f,
        shininess: f32,
      };

      struct Vertex {
        @location(0) position: vec4f,
        @location(1) normal: vec3f,
        @location(2) texcoord: vec2f,
      };

      struct VSOutput {
        @builtin(position) position: vec4f,
        @location(0) normal: vec3f,
        @location(1) surfaceToLight: vec3f,
        @location(2) surfaceToView: vec3f,
        @location(3) texcoord: vec2f,
      };

      @group(0) @binding(0) var diffuseTexture: texture_2d<f32>;
      @group(0) @binding(1) var diffuseSampler: sampler;
      @group(0) @binding(2) var<uniform> uni: Uniforms;

      @vertex fn vs(vert: Vertex) -> VSOutput {
        var vsOut: VSOutput;
        vsOut.position = uni.viewProjection * uni.world * vert.position;
        vsOut.normal = uni.normalMatrix * vert.normal;
        let surfaceWorldPosition = (uni.world * vert.position).xyz;
        vsOut.surfaceToLight = uni.lightWorldPosition - surfaceWorldPosition;
        vsOut.surfaceToView = uni.viewWorldPosition - surfaceWorldPosition;
        vsOut.texcoord = vert.texcoord;
        return vsOut;
      }

      @fragment fn fs(vsOut: VSOutput) -> @location(0) vec4f {
        let normal = normalize(vsOut.normal);
        let surfaceToLightDirection = normalize(vsOut.surfaceToLight);
        let surfaceToViewDirection = normalize(vsOut.surfaceToView);
        let halfVector = normalize(
          surfaceToLightDirection + surfaceToViewDirection);
        let light = dot(normal, surfaceToLightDirection);
        var specular = dot(normal, halfVector);
        specular = select(
            0.0,                           // valor si la condición es falsa
            pow(specular, uni.shininess),  // valor si la condición es verdadera
            specular > 0.0);               // condición
        let diffuse = uni.color * textureSample(diffuseTexture, diffuseSampler, vsOut.texcoord);
        let color = diffuse.rgb * light + specular;
        return vec4f(color, diffuse.a);
      }
)";

TEST(WgslLayoutCube, ArticleUniforms) {
  auto r = reflect(kCubeShader);
  EXPECT_TRUE(r.ok()) << errors_of(r);
  // normalMatrix 0 (48 bytes); viewProjection 48; world 112; color 176; lightWorldPosition 192
  // (12 bytes); viewWorldPosition 208 (align 16); shininess 220; end 224 -> size 224.
  expect_struct(r, "Uniforms", 16, 224,
                {{"normalMatrix", 0}, {"viewProjection", 48}, {"world", 112}, {"color", 176},
                 {"lightWorldPosition", 192}, {"viewWorldPosition", 208}, {"shininess", 220}});
  ASSERT_EQ(r.bindings.size(), 3u);
  EXPECT_EQ(r.find_binding(0, 0)->space, BindingSpace::Texture);
  EXPECT_EQ(r.find_binding(0, 0)->type, "texture_2d<f32>");
  EXPECT_EQ(r.find_binding(0, 1)->space, BindingSpace::Sampler);
  EXPECT_EQ(r.find_binding(0, 2)->space, BindingSpace::Uniform);
  EXPECT_EQ(r.find_binding(0, 2)->type, "Uniforms");
  EXPECT_EQ(r.find_binding(0, 2)->min_binding_size, 224u);
  EXPECT_EQ(r.find_binding(0, 2)->portable_min_binding_size, 224u);
}

TEST(WgslLayoutCube, SplitUniforms) {
  auto r = reflect(R"(
struct GlobalUniforms { viewProjection: mat4x4f, lightWorldPosition: vec3f, viewWorldPosition: vec3f, };
struct MaterialUniforms { color: vec4f, shininess: f32, };
struct PerObjectUniforms { normalMatrix: mat3x3f, world: mat4x4f, color: vec4f, shininess: f32, };
@group(0) @binding(2) var<uniform> obj: PerObjectUniforms;
@group(0) @binding(3) var<uniform> glb: GlobalUniforms;
@group(0) @binding(4) var<uniform> material: MaterialUniforms;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  // 0 / 64 / 80, end 92 -> 96.
  expect_struct(r, "GlobalUniforms", 16, 96, {{"viewProjection", 0}, {"lightWorldPosition", 64}, {"viewWorldPosition", 80}});
  // 0 / 16, end 20 -> 32.
  expect_struct(r, "MaterialUniforms", 16, 32, {{"color", 0}, {"shininess", 16}});
  // 0 / 48 / 112 / 128, end 132 -> 144.
  expect_struct(r, "PerObjectUniforms", 16, 144, {{"normalMatrix", 0}, {"world", 48}, {"color", 112}, {"shininess", 128}});
}

// ---- parsing details ---------------------------------------------------------------------------

TEST(WgslLayoutParse, ConstsAliasesAndDeclarationOrder) {
  // M = 4 * 2 = 8 elements of vec4<f32> -> 128 bytes. Light declared after its use.
  auto r = reflect(R"(
const N = 4;
const M: u32 = N * 2u;
alias Color = vec4f;
struct Scene { lights: array<Light, M>, ambient: Color }
struct Light { color: Color }
@group(0) @binding(0) var<uniform> scene: Scene;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  expect_struct(r, "Scene", 16, 144, {{"lights", 0}, {"ambient", 128}});
  ASSERT_EQ(r.structs.size(), 2u);
  EXPECT_EQ(r.structs[0]->name, "Scene");  // declaration order
  EXPECT_EQ(r.struct_layout("Scene").members[0].type->name, "array<Light, 8>");
  EXPECT_EQ(r.struct_layout("Scene").resolve("lights[3].color").offset, 48u);
}

TEST(WgslLayoutParse, NestedCommentsAndGenerics) {
  auto r = reflect(R"(
/* outer /* inner */ still a comment struct NotHere { x: f32 } */
// struct AlsoNot { y: f32 }
struct S { /* between */ a: array<vec4<f32>,2>, // trailing
  b: atomic<u32> }
@group(0) @binding(0) var<storage, read_write> s: S;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  ASSERT_EQ(r.structs.size(), 1u);
  expect_struct(r, "S", 16, 48, {{"a", 0}, {"b", 32}});
  EXPECT_EQ(r.struct_layout("S").members[0].type->name, "array<vec4<f32>, 2>");
  EXPECT_EQ(r.struct_layout("S").members[1].type->name, "atomic<u32>");
}

TEST(WgslLayoutParse, OpenCommentIsSyntaxErrorAtItsStart) {
  auto r = reflect("struct S { a: f32 }\n  /* never /* closed */\n");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.has_syntax_error());
  EXPECT_EQ(r.errors[0].line, 2u);
  EXPECT_EQ(r.errors[0].column, 3u);
}

TEST(WgslLayoutParse, SyntaxErrorPosition) {
  auto r = reflect("struct S {\n  a: f32\n  b: f32\n}\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, ErrorKind::WgslSyntax);
  EXPECT_EQ(r.errors[0].line, 3u);
  EXPECT_EQ(r.errors[0].column, 3u);
}

TEST(WgslLayoutParse, ColumnsCountCodePoints) {
  // "é" is two bytes in UTF-8 but one column: the bad character '#' is at column 7 of line 2.
  auto r = reflect("//é\n/*é*/ #");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].line, 2u);
  EXPECT_EQ(r.errors[0].column, 7u);
}

TEST(WgslLayoutParse, TexturesSamplersAndStorageTextures) {
  auto r = reflect(R"(
alias T2 = texture_2d<f32>;
@group(1) @binding(0) var t: T2;
@group(1) @binding(1) var s: sampler_comparison;
@group(1) @binding(2) var st: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(3) var d: texture_depth_2d;
var<private> p: f32;
var<workgroup> w: array<f32, 64>;
)");
  EXPECT_TRUE(r.ok()) << errors_of(r);
  ASSERT_EQ(r.bindings.size(), 4u);
  EXPECT_EQ(r.find_binding(1, 0)->space, BindingSpace::Texture);
  EXPECT_EQ(r.find_binding(1, 1)->space, BindingSpace::ComparisonSampler);
  EXPECT_EQ(r.find_binding(1, 2)->space, BindingSpace::StorageTexture);
  EXPECT_EQ(r.find_binding(1, 2)->type, "texture_storage_2d<rgba8unorm, write>");
  EXPECT_EQ(r.find_binding(1, 3)->min_binding_size, 0u);
}

// ---- errors ------------------------------------------------------------------------------------

TEST(WgslLayoutErrors, BoolInABufferIsNotHostShareable) {
  auto r = reflect("struct S { a: u32, flag: bool }\n@group(0) @binding(0) var<storage> s: S;");
  EXPECT_TRUE(has_error(r, ErrorKind::WgslType));
  EXPECT_NE(error_at(r, 1, 20), nullptr) << errors_of(r);
  // bool in a struct that is not in a buffer (e.g. a function-local struct) is fine.
  EXPECT_TRUE(reflect("struct S { a: u32, flag: bool }").ok());
  EXPECT_TRUE(has_error(reflect("@group(0) @binding(0) var<uniform> b: vec2<bool>;"), ErrorKind::WgslType));
}

TEST(WgslLayoutErrors, AtomicsOnlyInReadWriteStorage) {
  EXPECT_TRUE(reflect("@group(0) @binding(0) var<storage, read_write> c: atomic<u32>;").ok());
  EXPECT_TRUE(has_error(reflect("@group(0) @binding(0) var<uniform> c: atomic<u32>;"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("@group(0) @binding(0) var<storage> c: atomic<i32>;"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("struct C { a: atomic<f32> }"), ErrorKind::WgslType));
}

TEST(WgslLayoutErrors, RuntimeArrayPlacement) {
  EXPECT_TRUE(has_error(reflect("struct S { a: array<u32>, b: u32 }"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("struct S { a: array<u32> }\nstruct T { s: S }"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("struct S { a: array<array<u32>, 2> }"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("struct S { a: array<u32> }\n@group(0) @binding(0) var<uniform> s: S;"),
                        ErrorKind::WgslLayout));
}

TEST(WgslLayoutErrors, AlignAndSizeAttributeValues) {
  EXPECT_TRUE(has_error(reflect("struct S { @align(12) a: f32 }"), ErrorKind::WgslLayout));  // not a power of 2
  EXPECT_TRUE(has_error(reflect("struct S { @align(4) a: vec4f }"), ErrorKind::WgslLayout));  // < AlignOf = 16
  EXPECT_TRUE(has_error(reflect("struct S { @size(8) a: vec3f }"), ErrorKind::WgslLayout));   // < SizeOf = 12
  auto ok = reflect("const A = 32;\nstruct S { @align(A) a: f32, @size(A / 2) b: f32 }");
  EXPECT_TRUE(ok.ok()) << errors_of(ok);
  // a: align 32 at 0; b: f32 at 4 with @size(16) -> ends 20; size roundUp(32, 20) = 32.
  expect_struct(ok, "S", 32, 32, {{"a", 0}, {"b", 4}});
  EXPECT_EQ(ok.struct_layout("S").members[1].size, 16u);
}

TEST(WgslLayoutErrors, UniformStructFollowGapNamesTheRule) {
  // H: size 8. p at 0; @align(16) q at 16 (gap 16 >= roundUp(16, 8) = 16); @align(16) s at 32
  // (gap 16 after q): valid.
  auto ok = reflect(R"(struct H { hi: f32, lo: f32 }
struct A { p: H, @align(16) q: H, @align(16) s: f32 }
@group(0) @binding(0) var<uniform> u: A;)");
  EXPECT_TRUE(ok.ok()) << errors_of(ok);
  expect_struct(ok, "A", 16, 48, {{"p", 0}, {"q", 16}, {"s", 32}});
  // Without @align on s: s at 24, only 8 bytes after struct-typed q, 16 required -> one error at s
  // (line 2, column 35). Valid in storage and with uniform_buffer_standard_layout.
  const char* src = R"(struct H { hi: f32, lo: f32 }
struct A { p: H, @align(16) q: H, s: f32 }
@group(0) @binding(0) var<uniform> u: A;)";
  auto bad = reflect(src);
  ASSERT_EQ(bad.errors.size(), 1u) << errors_of(bad);
  EXPECT_EQ(bad.errors[0].kind, ErrorKind::WgslLayout);
  EXPECT_EQ(bad.errors[0].line, 2u);
  EXPECT_EQ(bad.errors[0].column, 35u);
  EXPECT_NE(bad.errors[0].message.find("@size(16)"), std::string::npos) << "names the usual fix";
  EXPECT_TRUE(reflect(src, true).ok());
}

TEST(WgslLayoutErrors, UnknownTypesRecursionAndDuplicates) {
  EXPECT_TRUE(has_error(reflect("struct S { a: float3 }"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("struct A { b: B }\nstruct B { a: A }"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("alias A = B;\nalias B = A;\nstruct S { a: A }"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("const a = b;\nconst b = a;\nstruct S { x: array<f32, a> }"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("struct S { x: array<f32, 0> }"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("struct S { x: array<f32, 1.5> }"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("struct S { x: array<f32, 1/0> }"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("struct S { x: array<vec4f, 1000000000> }"), ErrorKind::WgslLayout));
  EXPECT_TRUE(has_error(reflect("struct S { x: f32, x: f32 }"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("@group(0) var<uniform> u: f32;"), ErrorKind::WgslType));  // no @binding
}

// An alias must name a type even when nothing uses it (WGSL §5.1: every identifier in a
// declaration resolves; module-scope declarations form no cycle).
TEST(WgslLayoutErrors, UnusedAliasesAreResolvedToo) {
  EXPECT_TRUE(has_error(reflect("alias T = U;"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("alias T = array<T, 2>;"), ErrorKind::WgslType));
  EXPECT_TRUE(has_error(reflect("alias A = B;\nalias B = A;"), ErrorKind::WgslType));
  // One fault, one error, whether or not a struct also uses the alias.
  const Reflection used = reflect("alias T = U;\nstruct S { a: T }");
  EXPECT_EQ(used.errors.size(), 1u);
  // Aliases of every kind of type a module may declare stay accepted when unused.
  const Reflection fine = reflect(
      "alias F = f32;\nalias B = bool;\nalias V = vec3<f32>;\nalias M = mat4x4f;\n"
      "alias R = array<f32>;\nalias A = atomic<u32>;\nalias P = ptr<function, f32>;\n"
      "alias T2 = texture_2d<f32>;\nalias TS = texture_storage_2d<rgba8unorm, write>;\n"
      "alias TD = texture_depth_2d;\nalias TM = texture_multisampled_2d<f32>;\n"
      "alias SC = sampler_comparison;\nalias S = sampler;\nalias F2 = F;");
  for (const auto& e : fine.errors) ADD_FAILURE() << e.line << ":" << e.column << " " << e.message;
}

TEST(WgslLayoutErrors, ThrowIfErrorsAndStructLookup) {
  auto r = reflect("@group(0) @binding(0) var<uniform> u: array<u32, 4>;");
  try {
    r.throw_if_errors();
    ADD_FAILURE() << "expected WgslLayout";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::WgslLayout);
  }
  auto ok = reflect("struct S { a: f32 }");
  EXPECT_NO_THROW(ok.throw_if_errors());
  try {
    (void)ok.struct_layout("Missing");
    ADD_FAILURE() << "expected StructViewPath";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::StructViewPath);
  }
  EXPECT_EQ(ok.find_binding(0, 0), nullptr);
}

TEST(WgslLayoutErrors, GarbageNeverCrashes) {
  const std::vector<std::string> inputs = {
      "",
      "struct",
      "struct S {",
      "struct S { a: array<",
      "struct S { a: array<f32, (((((((((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))))))))))> }",
      std::string(10000, '<'),
      std::string(5000, '{'),
      "fn f() { { { }",
      "@@@@@(((",
      "var<uniform> : ;",
      "struct S { a: " + std::string(200, 'a') + "rray<" + " }",
      "struct S { a: array<array<array<array<array<array<array<array<array<array<array<array<array<array<array<"
      "array<array<array<array<array<array<array<array<array<array<array<array<array<array<array<array<array<"
      "array<array<f32>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>> }",
      std::string("\0\xff\xfe struct", 11),
      "const a = -9223372036854775807 - 1 - 1; struct S { x: array<f32, a> }",
      "const a = 99999999999999999999999; struct S { x: array<f32, a> }",
      "const a = 1 << 70; struct S { x: array<f32, a> }",
      "struct S { x: array<f32, ----------------------------------------------------------------------------------"
      "----------------------------------------------------------------------------------------------------1> }",
      "enable f16; struct S { a: mat4x4<f16>, b: mat9x9<f32>, c: vec5f }",
  };
  for (const auto& in : inputs) {
    Reflection r;
    EXPECT_NO_THROW(r = reflect(in)) << in;
    for (const auto& e : r.errors) {
      EXPECT_GE(e.line, 1u);
      EXPECT_GE(e.column, 1u);
      EXPECT_FALSE(e.message.empty());
    }
  }
  // Deeply nested structs: bounded recursion, reported as an error.
  std::string chain;
  for (int i = 0; i < 3000; ++i) chain += "struct S" + std::to_string(i) + " { a: S" + std::to_string(i + 1) + " }\n";
  chain += "struct S3000 { a: f32 }\n";
  Reflection deep;
  EXPECT_NO_THROW(deep = reflect(chain));
  EXPECT_FALSE(deep.ok());
}

// var<immediate> (WGSL language extension immediate_address_space): no binding, its SizeOf is the
// pipeline layout's immediateSize. PerObject = mat3x3f (3 columns of vec3 at a 16-byte stride:
// 48 bytes) + mat4x4f at 48 (64 bytes) = 112 bytes; vec3f alone = 12 bytes.
TEST(WgslLayoutImmediate, SizeOfTheStoreTypeAndNoBinding) {
  auto r = reflect(R"(struct PerObject { normalMatrix: mat3x3f, world: mat4x4f }
@group(0) @binding(0) var<uniform> u: vec4f;
var<immediate> obj: PerObject;
var<immediate> tint: vec3f;)");
  ASSERT_TRUE(r.ok()) << errors_of(r);
  ASSERT_EQ(r.bindings.size(), 1u);  // only u
  ASSERT_EQ(r.immediates.size(), 2u);
  EXPECT_EQ(r.immediates[0].name, "obj");
  EXPECT_EQ(r.immediates[0].type, "PerObject");
  EXPECT_EQ(r.immediates[0].size, 112u);
  EXPECT_EQ(r.immediates[0].line, 3u);
  EXPECT_EQ(r.immediates[0].column, 16u);
  EXPECT_EQ(r.immediates[1].size, 12u);
  ASSERT_NE(r.find_immediate("tint"), nullptr);
  EXPECT_EQ(r.find_immediate("u"), nullptr);
  const std::string j = layout_json(r, -1);
  EXPECT_NE(j.find(R"("immediates":[{"name":"obj","type":"PerObject","size":112},)"),
            std::string::npos)
      << j;
  // Documents without immediate data keep their shape (no "immediates" key).
  EXPECT_EQ(
      layout_json(reflect("@group(0) @binding(0) var<uniform> u: vec4f;"), -1).find("immediates"),
      std::string::npos);
}

TEST(WgslLayoutImmediate, BindingsAccessModesAndTypesAreRefused) {
  for (const char* src :
       {"@group(0) @binding(0) var<immediate> a: f32;", "var<immediate, read> a: f32;",
        "var<immediate> a: array<f32>;", "var<immediate> a: bool;",
        "struct S { a: u32, flag: bool }\nvar<immediate> s: S;",
        "var<immediate> a: atomic<u32>;"}) {
    const Reflection r = reflect(src);
    EXPECT_TRUE(has_error(r, ErrorKind::WgslType)) << src << "\n" << errors_of(r);
  }
  EXPECT_TRUE(has_error(reflect("var<pushy> a: f32;"), ErrorKind::WgslType));
}

TEST(WgslLayoutJson, ShapeAndKeys) {
  auto r = reflect(R"(struct S { a: vec3<f32>, b: array<vec4f, 2> }
@group(0) @binding(1) var<uniform> u: S;
@group(0) @binding(2) var<uniform> bad: array<f32, 2>;)");
  std::string j = layout_json(r, -1);
  EXPECT_NE(j.find(R"({"name":"a","type":"vec3<f32>","offset":0,"size":12,"align":16})"), std::string::npos) << j;
  EXPECT_NE(j.find(R"({"name":"b","type":"array<vec4<f32>, 2>","offset":16,"size":32,"align":16,"stride":16})"),
            std::string::npos) << j;
  EXPECT_NE(j.find(R"("bindings":[{"group":0,"binding":1,"name":"u","space":"uniform","type":"S","minBindingSize":48,"portableMinBindingSize":48})"),
            std::string::npos) << j;
  // array<f32, 2>: stride 4, size 8; portable minimum roundUp(16, 8) = 16.
  EXPECT_NE(j.find(R"("minBindingSize":8,"portableMinBindingSize":16)"), std::string::npos) << j;
  EXPECT_NE(j.find(R"("errors":[{"line":3,"column":36,"message":)"), std::string::npos) << j;
}

}  // namespace
}  // namespace bindery
