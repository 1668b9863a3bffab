// SPDX-License-Identifier: MIT
// Address-space rules of reflect_wgsl() (issue 18, H8 and its relatives in the WebGPU CTS's
// layout_constraints tests): every store type in every address space, the verdict taken from the
// WGSL spec's tables, not from bindery:
//   - "Address Spaces": function and private hold constructible types; workgroup a plain type
//     (atomics included) of fixed footprint; uniform constructible host-shareable types; storage
//     host-shareable types, a runtime-sized array only here; handle only textures and samplers.
//   - "Atomic Types": atomics only in storage with read_write access and in workgroup.
//   - "Host-shareable types": bool (and a vector, array or struct of it) is not host-shareable.
// And the nesting limit (kMaxWgslNestingDepth): deep source is a WgslSyntax error, never a crash.
#include "support/expect_kind.hpp"

#include <bindery/wgsl_layout.hpp>

#include <gtest/gtest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

namespace bindery {
namespace {

enum class Space { Function, Private, Workgroup, Uniform, StorageRead, StorageReadWrite, Handle };

const char* name(Space s) {
  switch (s) {
    case Space::Function: return "function";
    case Space::Private: return "private";
    case Space::Workgroup: return "workgroup";
    case Space::Uniform: return "uniform";
    case Space::StorageRead: return "storage, read";
    case Space::StorageReadWrite: return "storage, read_write";
    case Space::Handle: return "handle";
  }
  return "?";
}

/// The structs the store types below name. Each member layout also passes the uniform rules
/// (no array member, nothing after a struct), so only the address-space rule decides.
constexpr const char* kStructs =
    "struct WithAtomic { a: u32, b: atomic<u32> }\n"
    "struct EndsInRuntimeArray { a: u32, b: array<u32> }\n"
    "struct WithBool { a: u32, b: bool }\n"
    "struct Plain { a: vec4<f32>, b: u32 }\n";

/// What a store type holds, as the spec's rules read it.
struct StoreType {
  const char* wgsl;
  bool runtime_array = false;  ///< is or ends in a runtime-sized array
  bool atomic = false;         ///< holds an atomic
  bool host_shareable = true;  ///< no bool anywhere
  bool handle = false;         ///< a texture or sampler
};

const std::vector<StoreType>& store_types() {
  static const std::vector<StoreType> types = {
      {"u32"},
      {"vec4<f32>"},
      {"bool", false, false, false},
      {"vec3<bool>", false, false, false},
      {"atomic<u32>", false, true},
      {"atomic<i32>", false, true},
      {"array<u32>", true},
      {"array<vec4<u32>, 4>"},
      {"array<atomic<u32>, 4>", false, true},
      {"array<bool, 4>", false, false, false},
      {"Plain"},
      {"WithAtomic", false, true},
      {"EndsInRuntimeArray", true},
      {"WithBool", false, false, false},
      {"texture_2d<f32>", false, false, true, true},
      {"sampler", false, false, true, true},
  };
  return types;
}

/// The spec's verdict for a variable of `t` in `s`.
bool valid_in(const StoreType& t, Space s) {
  if (s == Space::Handle) return t.handle;
  if (t.handle) return false;
  switch (s) {
    case Space::Function:
    case Space::Private: return !t.runtime_array && !t.atomic;
    case Space::Workgroup: return !t.runtime_array;
    case Space::Uniform: return !t.runtime_array && !t.atomic && t.host_shareable;
    case Space::StorageRead: return !t.atomic && t.host_shareable;
    case Space::StorageReadWrite: return t.host_shareable;
    case Space::Handle: break;
  }
  return false;
}

/// The kind bindery reports: a runtime-sized array in uniform breaks an address-space layout
/// rule (WgslLayout, as for every uniform layout rule); every other case is a type not allowed
/// where it is (WgslType).
ErrorKind expected_kind(const StoreType& t, Space s) {
  return s == Space::Uniform && t.runtime_array && !t.atomic && t.host_shareable ? ErrorKind::WgslLayout
                                                                                : ErrorKind::WgslType;
}

std::string module_with(const StoreType& t, Space s) {
  std::string m = kStructs;
  switch (s) {
    case Space::Function:
      return m + fmt::format("fn f() {{\n  var v: {};\n}}\n", t.wgsl);
    case Space::Private:
    case Space::Workgroup:
      return m + fmt::format("var<{}> v: {};\n", name(s), t.wgsl);
    case Space::Uniform:
    case Space::StorageRead:
    case Space::StorageReadWrite:
      return m + fmt::format("@group(0) @binding(0) var<{}> v: {};\n", name(s), t.wgsl);
    case Space::Handle:
      return m + fmt::format("@group(0) @binding(0) var v: {};\n", t.wgsl);
  }
  return m;
}

TEST(WgslAddressSpaces, EveryStoreTypeInEveryAddressSpaceAsTheSpecStates) {
  const Space spaces[] = {Space::Function, Space::Private,          Space::Workgroup,
                          Space::Uniform,  Space::StorageRead,      Space::StorageReadWrite,
                          Space::Handle};
  size_t valid = 0, invalid = 0;
  for (const StoreType& t : store_types()) {
    for (Space s : spaces) {
      const std::string src = module_with(t, s);
      SCOPED_TRACE(src);
      const Reflection r = reflect_wgsl(src);
      if (valid_in(t, s)) {
        ++valid;
        EXPECT_TRUE(r.ok()) << t.wgsl << " in " << name(s) << ": " << r.errors.front().message;
        continue;
      }
      ++invalid;
      ASSERT_FALSE(r.ok()) << t.wgsl << " in " << name(s) << " must be refused";
      bool kind_found = false;
      for (const ReflectionError& e : r.errors) {
        kind_found = kind_found || e.kind == expected_kind(t, s);
        // The position is the variable's (line 5) or a member of the struct it uses.
        EXPECT_GE(e.line, 1u);
        EXPECT_GE(e.column, 1u);
      }
      EXPECT_TRUE(kind_found) << t.wgsl << " in " << name(s) << ": " << r.errors.front().message;
    }
  }
  // The grid holds both verdicts in quantity (16 types x 7 spaces).
  EXPECT_EQ(valid + invalid, 112u);
  EXPECT_GE(valid, 30u);
  EXPECT_GE(invalid, 50u);
}

TEST(WgslAddressSpaces, H8CasesAndTheirPositions) {
  // hostile.md H8: a runtime-sized array in private, an atomic in a function's var.
  Reflection a = reflect_wgsl("var<private> a: array<u32>;\n");
  ASSERT_EQ(a.errors.size(), 1u);
  EXPECT_EQ(a.errors[0].kind, ErrorKind::WgslType);
  EXPECT_EQ(a.errors[0].line, 1u);
  EXPECT_EQ(a.errors[0].column, 14u);  // the variable's name
  Reflection b = reflect_wgsl("fn f() { var a: atomic<u32>; }\n");
  ASSERT_EQ(b.errors.size(), 1u);
  EXPECT_EQ(b.errors[0].kind, ErrorKind::WgslType);
  EXPECT_EQ(b.errors[0].line, 1u);
  EXPECT_EQ(b.errors[0].column, 14u);
  // Through an alias, and var<function> written out, in a nested block and a for loop.
  EXPECT_FALSE(reflect_wgsl("alias A = atomic<u32>;\nvar<private> p: A;\n").ok());
  EXPECT_FALSE(reflect_wgsl("fn f() { if (true) { var<function> a: array<f32>; } }\n").ok());
  EXPECT_TRUE(reflect_wgsl("fn f() { for (var i: u32 = 0u; i < 4u; i++) { } }\n").ok());
  // Inside a function only the function address space.
  const Reflection c = reflect_wgsl("fn f() { var<private> a: u32; }\n");
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].kind, ErrorKind::WgslType);
  // Local arrays may be sized by what bindery does not evaluate (a function-scope const, an
  // override): not an error.
  EXPECT_TRUE(reflect_wgsl("override n = 4u;\nvar<workgroup> w: array<f32, n>;\n"
                           "fn f() { const k = 3; var a: array<f32, k>; }\n")
                  .ok());
  // An inferred type is constructible: nothing to check.
  EXPECT_TRUE(reflect_wgsl("fn f() { var a = 1u; }\n").ok());
  // Access modes and bindings belong to resource variables.
  EXPECT_FALSE(reflect_wgsl("var<private, read_write> a: u32;\n").ok());
  EXPECT_FALSE(reflect_wgsl("@group(0) @binding(0) var<workgroup> a: u32;\n").ok());
}

std::string nested(const std::string& open, const std::string& close, size_t n,
                   const std::string& inner) {
  std::string s;
  s.reserve(n * (open.size() + close.size()) + inner.size());
  for (size_t i = 0; i < n; ++i) s += open;
  s += inner;
  for (size_t i = 0; i < n; ++i) s += close;
  return s;
}

TEST(WgslNesting, DeepSourceIsOneSyntaxErrorAtTheLimit) {
  const size_t limit = kMaxWgslNestingDepth;
  auto body = [](const std::string& expr) { return "fn f() -> f32 { let x = " + expr + "; return x; }\n"; };
  // At the limit: brackets of the function body ({), then parentheses up to the limit.
  const std::string at = body(nested("(", ")", limit - 1, "1.0"));
  EXPECT_TRUE(reflect_wgsl(at).ok());
  EXPECT_FALSE(wgsl_nesting_error(at).has_value());
  // One past it: an error at the token that goes past, line 1.
  const std::string past = body(nested("(", ")", limit, "1.0"));
  const Reflection r = reflect_wgsl(past);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, ErrorKind::WgslSyntax);
  EXPECT_EQ(r.errors[0].line, 1u);
  EXPECT_EQ(r.errors[0].column, 24u + limit);  // "fn f() -> f32 { let x = " is 24 columns
  ASSERT_TRUE(wgsl_nesting_error(past).has_value());
  // hostile.md H7 and relatives: 100,000 levels of each kind, no stack overflow, one error.
  for (const std::string& deep :
       {body(nested("(", ")", 100000, "1.0")), body(nested("a[", "]", 100000, "0")),
        body(nested("-", "", 100000, "1.0")), body(nested("!", "", 100000, "true")),
        "alias A = " + nested("array<", ">", 100000, "f32") + ";\n",
        "const c = " + nested("(", ")", 100000, "1") + ";\n",
        "fn f() " + nested("{", "}", 100000, "") + "\n",
        "struct S { a: " + nested("vec4<", ">", 100000, "f32") + " }\n"}) {
    const Reflection d = reflect_wgsl(deep);
    ASSERT_EQ(d.errors.size(), 1u) << deep.substr(0, 40);
    EXPECT_EQ(d.errors[0].kind, ErrorKind::WgslSyntax) << d.errors[0].message;
    EXPECT_TRUE(wgsl_nesting_error(deep).has_value()) << deep.substr(0, 40);
  }
  // Long but flat source is no nesting: 100,000 comparisons in separate statements, a long sum.
  std::string flat = "fn f() {\n";
  for (int i = 0; i < 1000; ++i) flat += "  let a" + std::to_string(i) + " = 1 < 2;\n";
  flat += "}\nconst s = " + nested("1 + ", "", 1000, "1") + ";\n";
  EXPECT_FALSE(wgsl_nesting_error(flat).has_value());
}

}  // namespace
}  // namespace bindery
