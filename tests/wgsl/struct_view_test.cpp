// SPDX-License-Identifier: MIT
// StructView (typed writes at reflected offsets, mat3x3 column padding, f16 conversion, paths and
// type errors) and the C++ struct check (check_struct_matches / BINDERY_WGSL_STRUCT_CHECK).
// Expected byte positions come from layout.md (L01, L04, L11, F01) or from the hand calculation
// in the comment next to them; f16 bit patterns from IEEE 754 binary16.
#include <bindery/wgsl/struct_check.hpp>
#include <bindery/wgsl/struct_view.hpp>
#include <bindery/wgsl/wgsl_layout.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace bindery::test {

// C++ mirrors of the cube shader's structs (seed 003), declared with their field tables.
struct PerObjectUniforms {
  float normalMatrix[12];  // mat3x3<f32>: 3 columns of 16 bytes
  glm::mat4 world;
  glm::vec4 color;
  float shininess;
};
BINDERY_WGSL_STRUCT_CHECK(PerObjectUniforms, normalMatrix, world, color, shininess);

struct Uniforms {
  float normalMatrix[12];
  glm::mat4 viewProjection;
  glm::mat4 world;
  glm::vec4 color;
  glm::vec3 lightWorldPosition;
  float pad0;  // not a WGSL member: vec3 at 192 ends at 204, the next vec3 starts at 208
  glm::vec3 viewWorldPosition;
  float shininess;
};
BINDERY_WGSL_STRUCT_CHECK(Uniforms, normalMatrix, viewProjection, world, color, lightWorldPosition,
                          viewWorldPosition, shininess);

// A typical mistake: glm::mat3 is 36 bytes, the WGSL mat3x3<f32> is 48.
struct PerObjectWrong {
  glm::mat3 normalMatrix;
  glm::mat4 world;
  glm::vec4 color;
  float shininess;
};
BINDERY_WGSL_STRUCT_CHECK(PerObjectWrong, normalMatrix, world, color, shininess);

// layout.md L02: a host mirror with 16-byte vec3s.
struct RWrong {
  glm::vec4 o, d, acc;
  uint32_t n;
};
BINDERY_WGSL_STRUCT_CHECK(RWrong, o, d, acc, n);

namespace {

constexpr const char* kShader = R"(
enable f16;
struct Uniforms {
  normalMatrix: mat3x3f, viewProjection: mat4x4f, world: mat4x4f, color: vec4f,
  lightWorldPosition: vec3f, viewWorldPosition: vec3f, shininess: f32,
}
struct PerObjectUniforms { normalMatrix: mat3x3f, world: mat4x4f, color: vec4f, shininess: f32 }
struct PerObjectWrong { normalMatrix: mat3x3f, world: mat4x4f, color: vec4f, shininess: f32 }
struct RWrong { o: vec3<f32>, d: vec3<f32>, acc: vec3<f32>, n: u32 }
struct M { n: mat3x3<f32>, s: f32 }
struct Q { t: mat3x2<f32>, x: u32, y: u32 }
struct Light { position: vec3f, intensity: f32, color: vec4f }
struct Scene { count: u32, lights: array<Light, 8>, ids: array<vec4<i32>, 2> }
struct H { a: f16, b: f16, v: vec3<f16>, c: f16, d: f16, e: u32 }
struct G { m2: mat2x2<f16>, m3: mat3x3<f16>, m4: mat4x4<f16> }
struct Counter { hits: atomic<u32>, total: atomic<i32> }
struct Point { p: vec3<f32>, w: f32 }
struct Particles { count: u32, items: array<Point> }
)";

const Reflection& reflection() {
  static const Reflection r = reflect_wgsl(kShader);
  return r;
}

std::vector<std::byte> sentinel_bytes(size_t n) { return std::vector<std::byte>(n, std::byte{0xAB}); }

float f32_at(const std::vector<std::byte>& b, size_t index) {
  float v;
  std::memcpy(&v, b.data() + 4 * index, 4);
  return v;
}
uint16_t u16_at(const std::vector<std::byte>& b, size_t byte_offset) {
  uint16_t v;
  std::memcpy(&v, b.data() + byte_offset, 2);
  return v;
}

template <class F>
ErrorKind kind_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no bindery::Error thrown";
  return ErrorKind::InvalidArgument;
}

TEST(StructView, ReflectionOfTheTestShaderIsClean) {
  EXPECT_TRUE(reflection().ok()) << (reflection().errors.empty() ? "" : reflection().errors[0].message);
}

TEST(StructView, Mat3x3ColumnsLandOn16ByteStrides) {
  // layout.md L04: column c element r at f32 index 4c + r; 3, 7, 11 are padding; s at index 12.
  const StructLayout& m = reflection().struct_layout("M");
  auto bytes = sentinel_bytes(m.size);
  StructView v(m, bytes);
  glm::mat3 n;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) n[c][r] = static_cast<float>(10 * c + r + 1);
  v.set("n", n);
  v.set("s", 7.5f);
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) EXPECT_EQ(f32_at(bytes, 4 * c + r), 10.0f * c + r + 1) << c << "," << r;
  for (size_t pad : {3u, 7u, 11u}) EXPECT_EQ(static_cast<unsigned>(bytes[4 * pad]), 0xABu) << "padding untouched";
  EXPECT_EQ(f32_at(bytes, 12), 7.5f);
  EXPECT_EQ(v.get<glm::mat3>("n"), n);
}

TEST(StructView, CubeUniformsAtReflectedOffsets) {
  const StructLayout& u = reflection().struct_layout("Uniforms");
  std::vector<std::byte> bytes(u.size);
  StructView v(u, bytes);
  // Pre-resolved handles, as a per-object hot loop uses them.
  const FieldRef world = u.field("world"), shininess = u.field("shininess"), eye = u.field("viewWorldPosition");
  glm::mat4 w(1.0f);
  w[3] = glm::vec4(5, 6, 7, 1);
  v.set(world, w);
  v.set(shininess, 32.0f);
  v.set(eye, glm::vec3(1, 2, 3));
  // world at 112 = f32 index 28; its column 3 at index 28 + 12 = 40.
  EXPECT_EQ(f32_at(bytes, 40), 5.0f);
  EXPECT_EQ(f32_at(bytes, 43), 1.0f);
  // viewWorldPosition at 208 = index 52; shininess at 220 = index 55.
  EXPECT_EQ(f32_at(bytes, 52), 1.0f);
  EXPECT_EQ(f32_at(bytes, 54), 3.0f);
  EXPECT_EQ(f32_at(bytes, 55), 32.0f);
}

TEST(StructView, ArrayElementsAndNestedPaths) {
  // Light: position 0 (vec3), intensity 12, color 16; size 32. Scene: count 0; lights align 16 ->
  // 16, stride 32, 8 elements -> ends 272; ids: array<vec4<i32>, 2> at 272.
  const StructLayout& s = reflection().struct_layout("Scene");
  EXPECT_EQ(s.resolve("lights[3].color").offset, 16u + 3 * 32 + 16);
  EXPECT_EQ(s.resolve("lights[0].intensity").offset, 28u);
  EXPECT_EQ(s.resolve("ids[1]").offset, 272u + 16);
  auto bytes = sentinel_bytes(s.size);
  StructView v(s, bytes);
  v.set("lights[3].color", glm::vec4(0.25f, 0.5f, 0.75f, 1.0f));
  v.set("ids[1]", glm::ivec4(-1, 2, -3, 4));
  v.set("count", 8u);
  EXPECT_EQ(f32_at(bytes, (16 + 3 * 32 + 16) / 4 + 2), 0.75f);
  EXPECT_EQ(v.get<glm::ivec4>("ids[1]"), glm::ivec4(-1, 2, -3, 4));
  EXPECT_EQ(v.get<uint32_t>("count"), 8u);
  // FieldRef::element / member: the same offsets without parsing.
  FieldRef lights = s.field("lights");
  EXPECT_EQ(lights.element(5).member("intensity").offset, 16u + 5 * 32 + 12);
}

TEST(StructView, Mat3x2KeepsTightColumns) {
  // layout.md L11: mat3x2<f32> columns at 0, 8, 16; x at 24.
  const StructLayout& q = reflection().struct_layout("Q");
  std::vector<std::byte> bytes(q.size);
  StructView v(q, bytes);
  glm::mat3x2 t(1, 2, 3, 4, 5, 6);
  v.set("t", t);
  v.set("x", 9u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(f32_at(bytes, i), static_cast<float>(i + 1));
  uint32_t x;
  std::memcpy(&x, bytes.data() + 24, 4);
  EXPECT_EQ(x, 9u);
}

TEST(StructView, F16Fields) {
  // layout.md F01: H: a 0, b 2, v 8 (vec3<f16>), c 14, d 16, e 20.
  const StructLayout& h = reflection().struct_layout("H");
  auto bytes = sentinel_bytes(h.size);
  StructView v(h, bytes);
  v.set("a", 1.0f);                       // binary16 1.0 = 0x3C00
  v.set("b", uint16_t{0x4248});           // raw bits (3.140625)
  v.set("v", glm::vec3(2.0f, -2.0f, 0.5f));  // 0x4000, 0xC000, 0x3800
  v.set("d", 65504.0f);                   // largest finite half: 0x7BFF
  EXPECT_EQ(u16_at(bytes, 0), 0x3C00);
  EXPECT_EQ(u16_at(bytes, 2), 0x4248);
  EXPECT_EQ(u16_at(bytes, 8), 0x4000);
  EXPECT_EQ(u16_at(bytes, 10), 0xC000);
  EXPECT_EQ(u16_at(bytes, 12), 0x3800);
  EXPECT_EQ(static_cast<unsigned>(bytes[14]), 0xABu) << "c untouched";
  EXPECT_EQ(u16_at(bytes, 16), 0x7BFF);
  EXPECT_EQ(v.get<float>("b"), 3.140625f);
  // G: m3 = mat3x3<f16> at 8, columns 8 bytes apart: column c row r at 8 + 8c + 2r.
  const StructLayout& g = reflection().struct_layout("G");
  std::vector<std::byte> gb(g.size);
  StructView gv(g, gb);
  glm::mat3 m3(1, 2, 3, 4, 5, 6, 7, 8, 9);
  gv.set("m3", m3);
  EXPECT_EQ(u16_at(gb, 8 + 8 * 1 + 2 * 2), float_to_f16(6.0f));
  EXPECT_EQ(u16_at(gb, 8 + 8 * 2 + 2 * 0), float_to_f16(7.0f));
  EXPECT_EQ(gv.get<glm::mat3>("m3"), m3);
}

TEST(StructView, F16Conversion) {
  EXPECT_EQ(float_to_f16(0.0f), 0x0000);
  EXPECT_EQ(float_to_f16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_f16(1.0f), 0x3C00);
  EXPECT_EQ(float_to_f16(-2.0f), 0xC000);
  EXPECT_EQ(float_to_f16(0.1f), 0x2E66);        // 0.0999755859375
  EXPECT_EQ(float_to_f16(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_f16(65520.0f), 0x7C00);    // halfway to 65536 rounds to even: infinity
  EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie -> even
  EXPECT_EQ(float_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie -> even (up)
  EXPECT_EQ(float_to_f16(INFINITY), 0x7C00);
  uint16_t nan = float_to_f16(NAN);
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  EXPECT_EQ(f16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(f16_to_float(0xFBFF), -65504.0f);
}

TEST(StructView, AtomicsTakeTheirScalar) {
  const StructLayout& c = reflection().struct_layout("Counter");
  std::vector<std::byte> bytes(c.size);
  StructView v(c, bytes);
  v.set("hits", 3u);
  v.set("total", -4);
  EXPECT_EQ(v.get<uint32_t>("hits"), 3u);
  EXPECT_EQ(v.get<int32_t>("total"), -4);
  EXPECT_EQ(kind_of([&] { v.set("hits", 1.0f); }), ErrorKind::StructViewType);
}

TEST(StructView, WrongTypesThrowStructViewType) {
  const StructLayout& u = reflection().struct_layout("Uniforms");
  std::vector<std::byte> bytes(u.size);
  StructView v(u, bytes);
  EXPECT_EQ(kind_of([&] { v.set("world", glm::vec4(1.0f)); }), ErrorKind::StructViewType);
  EXPECT_EQ(kind_of([&] { v.set("normalMatrix", glm::mat4(1.0f)); }), ErrorKind::StructViewType);
  EXPECT_EQ(kind_of([&] { v.set("shininess", 1); }), ErrorKind::StructViewType);   // int32 into f32
  EXPECT_EQ(kind_of([&] { v.set("color", glm::vec3(1.0f)); }), ErrorKind::StructViewType);
  EXPECT_EQ(kind_of([&] { v.set("color", glm::uvec4(1u)); }), ErrorKind::StructViewType);
  EXPECT_EQ(kind_of([&] { v.set("shininess", uint16_t{1}); }), ErrorKind::StructViewType);  // raw f16 into f32
  EXPECT_EQ(kind_of([&] { (void)v.get<glm::mat3>("world"); }), ErrorKind::StructViewType);
  const StructLayout& s = reflection().struct_layout("Scene");
  std::vector<std::byte> sb(s.size);
  StructView sv(s, sb);
  EXPECT_EQ(kind_of([&] { sv.set("lights", glm::vec4(1.0f)); }), ErrorKind::StructViewType);  // an array
  EXPECT_EQ(kind_of([&] { sv.set("lights[0]", 1.0f); }), ErrorKind::StructViewType);          // a struct
}

TEST(StructView, BadPathsThrowStructViewPath) {
  const StructLayout& s = reflection().struct_layout("Scene");
  std::vector<std::byte> bytes(s.size);
  StructView v(s, bytes);
  for (const char* path : {"nope", "lights[8].color", "lights[x]", "lights[3", "lights[3].nope", "count.x", "count[0]",
                           "", ".count", "lights[3]..color", "lights[99999999999]", "lights[-1]"}) {
    EXPECT_EQ(kind_of([&] { v.set(path, 1.0f); }), ErrorKind::StructViewPath) << path;
  }
}

TEST(StructView, RuntimeArrayBoundedByTheSpan) {
  // Particles: count 0, items at 16 with stride 16. 16 + 4 * 16 = 80 bytes hold 4 elements.
  const StructLayout& p = reflection().struct_layout("Particles");
  EXPECT_EQ(p.size, 32u);
  std::vector<std::byte> bytes(80);
  StructView v(p, bytes);
  v.set("items[3].p", glm::vec3(1, 2, 3));
  EXPECT_EQ(f32_at(bytes, (16 + 48) / 4 + 1), 2.0f);
  EXPECT_EQ(kind_of([&] { v.set("items[4].w", 1.0f); }), ErrorKind::StructViewPath);
  std::vector<std::byte> small(16);
  EXPECT_EQ(kind_of([&] { StructView(p, small); }), ErrorKind::InvalidArgument);
}

TEST(StructView, SetBytesChecksTheSize) {
  const StructLayout& s = reflection().struct_layout("Scene");
  std::vector<std::byte> bytes(s.size);
  StructView v(s, bytes);
  std::vector<std::byte> light(32, std::byte{1});
  v.set_bytes(s.resolve("lights[2]"), light);
  EXPECT_EQ(static_cast<int>(bytes[16 + 64]), 1);
  EXPECT_EQ(static_cast<int>(bytes[16 + 63]), 0);
  std::vector<std::byte> wrong(16);
  EXPECT_EQ(kind_of([&] { v.set_bytes(s.resolve("lights[2]"), wrong); }), ErrorKind::StructViewType);
}

// ---- C++ struct check --------------------------------------------------------------------------

TEST(StructCheck, CubeStructsMatch) {
  EXPECT_NO_THROW(check_struct_matches<PerObjectUniforms>(reflection().struct_layout("PerObjectUniforms")));
  EXPECT_NO_THROW(check_struct_matches<Uniforms>(reflection().struct_layout("Uniforms")));
  constexpr auto table = BINDERY_HOST_STRUCT(Uniforms, world, shininess);
  static_assert(table.fields[1].offset == 220);  // offsetof computed at compile time
  EXPECT_NO_THROW(check_struct_matches(reflection().struct_layout("Uniforms"), table, StructCheck::Subset));
}

TEST(StructCheck, MismatchesThrowStructMismatch) {
  // glm::mat3 normalMatrix: C++ size 36 != 48.
  EXPECT_EQ(kind_of([] { check_struct_matches<PerObjectWrong>(reflection().struct_layout("PerObjectWrong")); }),
            ErrorKind::StructMismatch);
  // L02: o, d, acc as vec4: d at C++ 16 = WGSL 16 but sizes 16 vs 12 ...
  EXPECT_EQ(kind_of([] { check_struct_matches<RWrong>(reflection().struct_layout("RWrong")); }),
            ErrorKind::StructMismatch);
  // ... and with only n listed, the offset mismatch 48 vs 44 is reported.
  try {
    check_struct_matches(reflection().struct_layout("RWrong"), BINDERY_HOST_STRUCT(RWrong, n), StructCheck::Subset);
    ADD_FAILURE() << "n: C++ 48, WGSL 44";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::StructMismatch);
    EXPECT_NE(std::string(e.what()).find("C++ offset 48, WGSL offset 44"), std::string::npos) << e.what();
  }
  // A WGSL member with no C++ field (Complete mode).
  EXPECT_EQ(kind_of([] {
              check_struct_matches(reflection().struct_layout("Uniforms"), BINDERY_HOST_STRUCT(Uniforms, world));
            }),
            ErrorKind::StructMismatch);
  // A C++ field with no WGSL member.
  EXPECT_EQ(kind_of([] {
              check_struct_matches(reflection().struct_layout("Uniforms"), BINDERY_HOST_STRUCT(Uniforms, pad0),
                                   StructCheck::Subset);
            }),
            ErrorKind::StructMismatch);
  // The C++ struct is larger than the WGSL one (224 > 144).
  EXPECT_EQ(kind_of([] {
              check_struct_matches(reflection().struct_layout("PerObjectUniforms"),
                                   BINDERY_HOST_STRUCT(Uniforms, normalMatrix), StructCheck::Subset);
            }),
            ErrorKind::StructMismatch);
}

}  // namespace
}  // namespace bindery::test

namespace bindery {
namespace {

// A FieldRef that was never resolved, or one whose size understates what a write touches, must
// not write outside the view (found by adversarial testing).
TEST(StructViewMisuse, UnresolvedOrUnderstatedFieldRefsThrow) {
  std::vector<std::byte> bytes(4);
  Reflection r = reflect_wgsl("struct S { x: f32 }");
  ASSERT_TRUE(r.ok());
  StructView v(r.struct_layout("S"), bytes);
  FieldRef unresolved;
  try {
    v.set(unresolved, 1.0f);
    FAIL() << "unresolved FieldRef accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::StructViewPath);
  }
  FieldRef shifted = r.struct_layout("S").field("x");
  shifted.offset = 4;  // f32 at byte 4 of a 4-byte view: bytes [4, 8) are outside
  shifted.size = 0;
  try {
    v.set(shifted, 1.0f);
    FAIL() << "out-of-bounds FieldRef accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::StructViewPath);
  }
}

}  // namespace
}  // namespace bindery
