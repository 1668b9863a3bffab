// SPDX-License-Identifier: MIT
// src/wgsl/parser.hpp — private: the module-scope WGSL parser used by reflect_wgsl().
//
// Recursive descent over the declarations that matter for memory layout: enable / requires,
// struct (with @align / @size), alias, const, var (with @group / @binding). Function bodies,
// override, const_assert and diagnostic directives are skipped by bracket matching, except the
// `var` declarations in function bodies (their address space and type are checked). Expressions
// (array counts, attribute arguments, const initialisers) are kept as token ranges and evaluated
// later by the resolver. Nesting depth is bounded so arbitrary input cannot exhaust the stack.
#pragma once

#include "wgsl/lexer.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace bindery::wgsl {

/// Half-open range of token indices [begin, end).
struct TokRange {
  uint32_t begin = 0;
  uint32_t end = 0;
  bool empty() const noexcept { return begin >= end; }
};

/// A type as written: `name`, or `name<args>`; for array, args[0] is the element type and
/// `count` the element-count expression (empty for a runtime-sized array).
struct TypeAst {
  uint32_t name_tok = 0;
  std::vector<TypeAst> args;
  TokRange count;
  TokRange full;  ///< all tokens of the type (for printing texture types)
};

struct MemberAst {
  uint32_t name_tok = 0;
  TypeAst type;
  TokRange align;  ///< @align(expr) argument, empty when absent
  TokRange size;   ///< @size(expr) argument, empty when absent
};

struct StructAst {
  uint32_t name_tok = 0;
  std::vector<MemberAst> members;
};

struct AliasAst {
  uint32_t name_tok = 0;
  TypeAst type;
};

struct ConstAst {
  uint32_t name_tok = 0;
  TokRange init;
};

struct VarAst {
  uint32_t var_tok = 0;
  uint32_t name_tok = 0;
  std::optional<uint32_t> space_tok;   ///< address space in var<...>
  std::optional<uint32_t> access_tok;  ///< access mode in var<space, access>
  std::optional<TypeAst> type;
  TokRange group, binding;  ///< @group / @binding arguments, empty when absent
};

/// What a module-scope declaration is, for DeclSpan.
enum class DeclKind : uint8_t { Directive, Alias, Const, Struct, Other };

/// One module-scope declaration or directive as tokens [first, end): its attributes included,
/// its closing ';' or '}' included.
struct DeclSpan {
  DeclKind kind = DeclKind::Other;
  uint32_t first = 0;
  uint32_t end = 0;
};

/// The module-scope declarations reflect_wgsl() needs, in source order per kind.
struct ModuleAst {
  std::vector<Token> tokens;
  std::vector<StructAst> structs;
  std::vector<AliasAst> aliases;
  std::vector<ConstAst> consts;
  std::vector<VarAst> vars;
  /// Every `var` declared inside a function body (function address space unless it names
  /// another, which is an error), in source order; group and binding stay empty.
  std::vector<VarAst> function_vars;
  std::vector<uint32_t> enables;   ///< tokens naming enabled extensions
  std::vector<uint32_t> requires_; ///< tokens naming required language extensions
  std::vector<DeclSpan> decls;     ///< every directive and declaration, in source order
};

/// Parses `source`. Syntax errors are appended to `errors` (parsing stops at the first one; what
/// was parsed before it is kept).
ModuleAst parse_module(std::string_view source, std::vector<ReflectionError>& errors);

}  // namespace bindery::wgsl
