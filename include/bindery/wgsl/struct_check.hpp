// SPDX-License-Identifier: MIT
/// @file
/// bindery/wgsl/struct_check.hpp — verify at start-up that a C++ struct matches a reflected WGSL
/// struct.
///
/// Declare the C++ struct's fields once, next to the struct:
///
///   struct PerObjectUniforms { float normalMatrix[12]; glm::mat4 world; };
///   BINDERY_WGSL_STRUCT_CHECK(PerObjectUniforms, normalMatrix, world);
///
/// and check it against the shader when the pipeline is built:
///
///   bindery::check_struct_matches<PerObjectUniforms>(reflection.struct_layout("PerObjectUniforms"));
///
/// A mismatch throws StructMismatch naming the field, the C++ offset and the WGSL offset (or the
/// two sizes). This is what catches the classic host/shader disagreements of layout.md L02/L03/L04
/// (vec3 followed by a scalar, mat3x3 = 48 bytes, a struct that rounds up to 16). The field names
/// must equal the WGSL member names. BINDERY_HOST_STRUCT(Type, fields...) gives the table as a
/// value for ad-hoc checks. Reads no device limits.
#pragma once

#include <bindery/core/error.hpp>
#include <bindery/wgsl/wgsl_layout.hpp>

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace bindery {

/// One C++ field: its name (= the WGSL member name), offsetof and sizeof in bytes.
struct HostField {
  std::string_view name;   ///< the WGSL member it mirrors
  std::size_t offset = 0;  ///< offsetof in the C++ struct, bytes
  std::size_t size = 0;    ///< sizeof the C++ field, bytes
};

/// A C++ struct's name, sizeof and its declared fields.
template <std::size_t N>
struct HostStruct {
  std::string_view name;            ///< the C++ type's name, for messages
  std::size_t size = 0;             ///< sizeof the C++ struct, bytes
  std::array<HostField, N> fields;  ///< the declared fields, any order
};

/// A HostStruct from its parts (what BINDERY_HOST_STRUCT expands to).
template <std::size_t N>
constexpr HostStruct<N> make_host_struct(std::string_view name, std::size_t size, const std::array<HostField, N>& fields) {
  return {name, size, fields};
}

/// Whether every WGSL member must appear among the C++ fields.
enum class StructCheck {
  Complete,  ///< every WGSL member has a C++ field (default)
  Subset     ///< the C++ fields may name only some WGSL members
};

/// Compares the C++ fields with `wgsl`: every field must name a WGSL member at the same offset,
/// with a size from SizeOf(member type) up to its SizeOfMember (`@size`); with
/// StructCheck::Complete every WGSL member must be listed; sizeof the C++ struct must not exceed
/// SizeOf(S) (writing the whole C++ struct would overrun the WGSL one). Throws StructMismatch
/// naming the field, the C++ offset / size and the WGSL offset / size.
void check_struct_matches(const StructLayout& wgsl, std::string_view host_name, std::size_t host_size,
                          std::span<const HostField> fields, StructCheck mode = StructCheck::Complete);

/// Same, for a table made by BINDERY_HOST_STRUCT.
template <std::size_t N>
void check_struct_matches(const StructLayout& wgsl, const HostStruct<N>& host, StructCheck mode = StructCheck::Complete) {
  check_struct_matches(wgsl, host.name, host.size, std::span<const HostField>(host.fields), mode);
}

/// Same, for a type declared with BINDERY_WGSL_STRUCT_CHECK(T, ...) (found by argument-dependent
/// lookup in T's namespace).
template <class T>
void check_struct_matches(const StructLayout& wgsl, StructCheck mode = StructCheck::Complete) {
  check_struct_matches(wgsl, bindery_host_struct(static_cast<const T*>(nullptr)), mode);
}

}  // namespace bindery

// ---- macros: a field list turned into {name, offsetof, sizeof} entries -------------------------
/// @cond INTERNAL
#define BINDERY_SC_PARENS ()
#define BINDERY_SC_EXPAND(...) BINDERY_SC_EXPAND3(BINDERY_SC_EXPAND3(BINDERY_SC_EXPAND3(BINDERY_SC_EXPAND3(__VA_ARGS__))))
#define BINDERY_SC_EXPAND3(...) BINDERY_SC_EXPAND2(BINDERY_SC_EXPAND2(BINDERY_SC_EXPAND2(BINDERY_SC_EXPAND2(__VA_ARGS__))))
#define BINDERY_SC_EXPAND2(...) BINDERY_SC_EXPAND1(BINDERY_SC_EXPAND1(BINDERY_SC_EXPAND1(BINDERY_SC_EXPAND1(__VA_ARGS__))))
#define BINDERY_SC_EXPAND1(...) __VA_ARGS__
#define BINDERY_SC_FIELD(Type, member) ::bindery::HostField{#member, offsetof(Type, member), sizeof(Type::member)},
#define BINDERY_SC_FOR_EACH(Type, ...) __VA_OPT__(BINDERY_SC_EXPAND(BINDERY_SC_FOR_EACH_HELPER(Type, __VA_ARGS__)))
#define BINDERY_SC_FOR_EACH_HELPER(Type, a1, ...) \
  BINDERY_SC_FIELD(Type, a1) __VA_OPT__(BINDERY_SC_FOR_EACH_AGAIN BINDERY_SC_PARENS(Type, __VA_ARGS__))
#define BINDERY_SC_FOR_EACH_AGAIN() BINDERY_SC_FOR_EACH_HELPER
/// @endcond

/// The field table of C++ struct `Type` for the listed members, as a constexpr
/// bindery::HostStruct<N>: BINDERY_HOST_STRUCT(Uniforms, world, color).
#define BINDERY_HOST_STRUCT(Type, ...) \
  ::bindery::make_host_struct(#Type, sizeof(Type), std::array{BINDERY_SC_FOR_EACH(Type, __VA_ARGS__)})

/// Declares, at namespace scope right after `Type`, the fields that check_struct_matches<Type>()
/// compares with the reflected WGSL struct: BINDERY_WGSL_STRUCT_CHECK(PerObjectUniforms, world,
/// normalMatrix).
#define BINDERY_WGSL_STRUCT_CHECK(Type, ...)                                          \
  [[maybe_unused]] constexpr auto bindery_host_struct(const Type*) {                  \
    return BINDERY_HOST_STRUCT(Type, __VA_ARGS__);                                    \
  }                                                                                   \
  static_assert(true, "BINDERY_WGSL_STRUCT_CHECK needs a semicolon")
