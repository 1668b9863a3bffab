// SPDX-License-Identifier: MIT
// reflect_wgsl(): resolves the parsed module-scope declarations into laid-out types, struct
// layouts and bindings, and runs the address-space checks (WGSL §14.4 memory layout,
// §14.4.4 address space layout constraints).
#include "wgsl/parser.hpp"

#include <bindery/wgsl/wgsl_layout.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_set>
#include <unordered_map>

namespace bindery {
namespace {

using wgsl::ModuleAst;
using wgsl::Tok;
using wgsl::Token;
using wgsl::TokRange;
using wgsl::TypeAst;
using TypePtr = std::shared_ptr<const WgslType>;

constexpr int kMaxResolveDepth = 64;
constexpr int kMaxExprDepth = 256;  // grammar levels; about 30 nested parentheses
constexpr uint64_t kMaxSize = std::numeric_limits<uint32_t>::max();

uint64_t round_up(uint64_t align, uint64_t n) { return align == 0 ? n : (n + align - 1) / align * align; }
bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string_view scalar_name(ScalarKind s) {
  switch (s) {
    case ScalarKind::Bool: return "bool";
    case ScalarKind::I32: return "i32";
    case ScalarKind::U32: return "u32";
    case ScalarKind::F32: return "f32";
    case ScalarKind::F16: return "f16";
  }
  return "?";
}
uint32_t scalar_size(ScalarKind s) { return s == ScalarKind::F16 ? 2 : 4; }

/// Error carrying a location, thrown inside the resolver for one declaration and recorded.
struct ResolveError {
  ReflectionError error;
};

/// Host-shareability and address-space layout constraints of a buffer's store type (WGSL
/// §14.4.4). Reports every violation through `report` (line:column of the variable for the
/// store type itself, of the member for struct members).
struct SpaceChecker {
  using Report = std::function<void(uint32_t, uint32_t, ErrorKind, std::string)>;
  bool std_layout = false;
  Report report;
  std::set<std::tuple<const StructLayout*, int, bool>> checked;

  SpaceChecker(bool standard_layout, Report r) : std_layout(standard_layout), report(std::move(r)) {}

  void check(const WgslType& t, BindingSpace space, uint32_t line, uint32_t column, const std::string& where) {
    Token at;
    at.line = line;
    at.column = column;
    check_type(t, space, at, where, true);
  }

  void check_type(const WgslType& t, BindingSpace space, const Token& at, const std::string& where, bool store) {
    bool uniform = space == BindingSpace::Uniform;
    switch (t.kind) {
      case TypeKind::Scalar:
      case TypeKind::Vector:
        if (t.scalar == ScalarKind::Bool)
          report(at.line, at.column, ErrorKind::WgslType,
                 fmt::format("{}: '{}' is not host-shareable (bool has no memory layout in buffers); use u32 instead",
                             where, t.name));
        return;
      case TypeKind::Matrix: return;
      case TypeKind::Atomic:
        if (space != BindingSpace::Storage)
          report(at.line, at.column, ErrorKind::WgslType,
                 fmt::format("{}: '{}' needs var<storage, read_write> (atomics are not allowed in {})", where, t.name,
                             to_string(space)));
        return;
      case TypeKind::Array:
        if (t.is_runtime_array() && uniform)
          report(at.line, at.column, ErrorKind::WgslLayout,
                 fmt::format("{}: runtime-sized '{}' is not allowed in the uniform address space (also with "
                             "uniform_buffer_standard_layout); use var<storage, read> or give it a fixed count",
                             where, t.name));
        else if (t.is_runtime_array() && !store)
          report(at.line, at.column, ErrorKind::WgslType,
                 fmt::format("{}: runtime-sized '{}' may only be a storage buffer's store type or the last member of it",
                             where, t.name));
        if (uniform && !std_layout && t.stride % 16 != 0)
          report(at.line, at.column, ErrorKind::WgslLayout,
                 fmt::format("{}: '{}' has element stride {}; the uniform address space requires an array stride "
                             "that is a multiple of 16 (WGSL does not round it up). Fix: use vec4 packing "
                             "(e.g. array<vec4<{}>, N>), an element struct with @size({}), or a storage buffer",
                             where, t.name, t.stride, scalar_name(innermost_scalar(t)), round_up(16, t.stride)));
        check_type(*t.element, space, at, where, false);
        return;
      case TypeKind::Struct: check_struct(*t.struct_layout, space, store); return;
    }
  }

  static ScalarKind innermost_scalar(const WgslType& t) {
    const WgslType* p = &t;
    while (p->kind == TypeKind::Array) p = p->element.get();
    return p->kind == TypeKind::Struct ? ScalarKind::F32 : p->scalar;
  }

  void check_struct(const StructLayout& s, BindingSpace space, bool store) {
    bool uniform = space == BindingSpace::Uniform;
    if (!checked.insert({&s, static_cast<int>(space), store}).second) return;
    for (size_t i = 0; i < s.members.size(); ++i) {
      const StructMember& m = s.members[i];
      Token at;
      at.line = m.line;
      at.column = m.column;
      std::string where = fmt::format("struct '{}' member '{}'", s.name, m.name);
      bool last = i + 1 == s.members.size();
      check_type(*m.type, space, at, where, store && last);
      if (!uniform || std_layout) continue;
      const WgslType& t = *m.type;
      if (t.kind == TypeKind::Struct || t.kind == TypeKind::Array) {
        uint64_t required = round_up(16, t.align);
        if (m.offset % required != 0)
          report(m.line, m.column, ErrorKind::WgslLayout,
                 fmt::format("{}: in the uniform address space a {}-typed member must start at a multiple of "
                             "RequiredAlignOf({}, uniform) = roundUp(16, {}) = {}; its offset is {}. "
                             "Fix: add @align({}) to '{}'",
                             where, t.kind == TypeKind::Struct ? "struct" : "array", t.name, t.align, required, m.offset,
                             required, m.name));
      }
      if (t.kind == TypeKind::Struct && !last) {
        const StructMember& n = s.members[i + 1];
        uint64_t required = round_up(16, t.size);
        uint64_t gap = n.offset - m.offset;
        if (gap < required)
          report(n.line, n.column, ErrorKind::WgslLayout,
                 fmt::format("struct '{}' member '{}': in the uniform address space the member after struct-typed "
                             "member '{}' ({}, size {}) must start at least roundUp(16, {}) = {} bytes after it; it "
                             "starts {} bytes after it (offset {}). Fix: add @size({}) to '{}' or @align(16) to '{}'",
                             s.name, n.name, m.name, t.name, t.size, t.size, required, gap, n.offset, required, m.name,
                             n.name));
      }
    }
  }

};

class Resolver {
 public:
  Resolver(const ModuleAst& m, const ReflectOptions& opt, Reflection& out) : m_(m), t_(m.tokens), out_(out) {
    std_layout_ = opt.uniform_buffer_standard_layout;
    for (uint32_t e : m.enables)
      if (t_[e].text == "f16") out_.f16_enabled = true;
    for (uint32_t r : m.requires_)
      if (t_[r].text == "uniform_buffer_standard_layout") std_layout_ = true;
    space_checker_.std_layout = std_layout_;
    index_declarations();
  }

  void run() {
    struct_state_.assign(m_.structs.size(), State::Unvisited);
    struct_result_.assign(m_.structs.size(), nullptr);
    struct_type_.assign(m_.structs.size(), nullptr);
    for (size_t i = 0; i < m_.structs.size(); ++i) {
      guarded([&] { resolve_struct(i, 0); });
      if (struct_result_[i]) out_.structs.push_back(struct_result_[i]);
    }
    for (const auto& v : m_.vars) guarded([&] { resolve_var(v); });
    for (const auto& v : m_.function_vars) guarded([&] { resolve_function_var(v); });
    // Every alias must name a type, used or not (WGSL §5.1, §4: a declaration's identifiers
    // resolve and module-scope declarations form no cycle); those in use resolved above. A
    // texture, sampler or pointer type is no data type: its parameters are checked where a
    // variable has it (resolve_var), so for those only the chain is followed.
    for (size_t i = 0; i < m_.aliases.size(); ++i)
      guarded([&] {
        const std::string_view named = t_[unalias(m_.aliases[i].type).name_tok].text;
        if (!is_handle_type_name(named) && named != "ptr")
          resolve_alias(i, m_.aliases[i].name_tok, 0);
      });
  }

  /// The type alias `idx` names; `at` is the token that refers to it (for the cycle error).
  TypePtr resolve_alias(size_t idx, uint32_t at, int depth) {
    if (auto it = alias_types_.find(idx); it != alias_types_.end()) return it->second;
    if (alias_busy_.count(idx))
      fail(at, ErrorKind::WgslType, fmt::format("alias '{}' refers to itself", t_[at].text));
    alias_busy_.insert(idx);
    TypePtr t;
    try {
      t = resolve_type(m_.aliases[idx].type, depth + 1);
    } catch (...) {
      alias_busy_.erase(idx);
      throw;
    }
    alias_busy_.erase(idx);
    alias_types_[idx] = t;
    return t;
  }

 private:
  enum class State { Unvisited, InProgress, Done, Failed };

  // ---- errors -----------------------------------------------------------------------------
  [[noreturn]] void fail(const Token& at, ErrorKind kind, std::string msg) const {
    throw ResolveError{{at.line, at.column, kind, std::move(msg)}};
  }
  [[noreturn]] void fail(uint32_t tok, ErrorKind kind, std::string msg) const { fail(t_[tok], kind, std::move(msg)); }
  void report(uint32_t line, uint32_t column, ErrorKind kind, std::string msg) {
    if (msg.empty()) return;  // follow-up of an error already reported (a member's struct failed)
    if (seen_.insert({line, column, msg}).second) out_.errors.push_back({line, column, kind, std::move(msg)});
  }
  template <class F>
  void guarded(F&& f) {
    try {
      f();
    } catch (const ResolveError& e) {
      report(e.error.line, e.error.column, e.error.kind, e.error.message);
    }
  }

  void index_declarations() {
    auto declare = [&](uint32_t name_tok, char what, size_t index) {
      std::string_view n = t_[name_tok].text;
      auto [it, fresh] = names_.emplace(n, std::pair<char, size_t>{what, index});
      if (!fresh) {
        report(t_[name_tok].line, t_[name_tok].column, ErrorKind::WgslType,
               fmt::format("'{}' is declared twice at module scope", n));
      }
    };
    for (size_t i = 0; i < m_.structs.size(); ++i) declare(m_.structs[i].name_tok, 's', i);
    for (size_t i = 0; i < m_.aliases.size(); ++i) declare(m_.aliases[i].name_tok, 'a', i);
    for (size_t i = 0; i < m_.consts.size(); ++i) declare(m_.consts[i].name_tok, 'c', i);
    for (size_t i = 0; i < m_.vars.size(); ++i) declare(m_.vars[i].name_tok, 'v', i);
  }
  const std::pair<char, size_t>* lookup(std::string_view name) const {
    auto it = names_.find(name);
    return it == names_.end() ? nullptr : &it->second;
  }

  // ---- constant integer expressions ---------------------------------------------------------
  /// Evaluates tokens [r.begin, r.end) as a constant integer expression: integer literals, const
  /// names, i32()/u32() conversions, min/max/abs/clamp, unary - ~, * / % + - << >> & ^ |,
  /// parentheses.
  int64_t eval(TokRange r, std::string_view what, int depth) {
    ExprParser p{*this, r, what, depth};
    int64_t v = p.parse_bitor(0);
    if (p.i != r.end) fail(p.i, ErrorKind::WgslType, fmt::format("{}: unexpected '{}' in constant expression", what, t_[p.i].text));
    return v;
  }

  struct ExprParser {
    Resolver& R;
    TokRange r;
    std::string_view what;
    int depth;
    uint32_t i = r.begin;

    const Token& tok() const { return R.t_[i < r.end ? i : r.end]; }
    bool at(char c) const { return i < r.end && R.t_[i].is(c); }
    /// A two-character operator made of adjacent tokens, e.g. '<' '<'.
    bool at2(char a, char b) const {
      return i + 1 < r.end && R.t_[i].is(a) && R.t_[i + 1].is(b) && R.t_[i + 1].pos == R.t_[i].pos + 1;
    }
    [[noreturn]] void bad(const std::string& msg) const {
      const Token& t = i < r.end ? R.t_[i] : R.t_[r.end > r.begin ? r.end - 1 : r.begin];
      R.fail(t, ErrorKind::WgslType, fmt::format("{}: {}", what, msg));
    }
    void enter(int level) const {
      if (depth + level > kMaxExprDepth) bad("expression nested too deeply");
    }
    int64_t checked(bool overflow, int64_t v) const {
      if (overflow) bad("integer overflow in constant expression");
      return v;
    }
    int64_t parse_bitor(int level) {
      enter(level);
      int64_t v = parse_bitxor(level + 1);
      while (at('|') && !at2('|', '|')) {
        ++i;
        v |= parse_bitxor(level + 1);
      }
      return v;
    }
    int64_t parse_bitxor(int level) {
      int64_t v = parse_bitand(level + 1);
      while (at('^')) {
        ++i;
        v ^= parse_bitand(level + 1);
      }
      return v;
    }
    int64_t parse_bitand(int level) {
      int64_t v = parse_shift(level + 1);
      while (at('&') && !at2('&', '&')) {
        ++i;
        v &= parse_shift(level + 1);
      }
      return v;
    }
    int64_t parse_shift(int level) {
      int64_t v = parse_add(level + 1);
      while (at2('<', '<') || at2('>', '>')) {
        bool left = R.t_[i].is('<');
        i += 2;
        int64_t s = parse_add(level + 1);
        if (s < 0 || s > 62) bad(fmt::format("shift by {} is out of range", s));
        if (left) {
          if (v < 0 || v > (std::numeric_limits<int64_t>::max() >> s)) bad("integer overflow in '<<'");
          v <<= s;
        } else {
          v >>= s;
        }
      }
      return v;
    }
    int64_t parse_add(int level) {
      int64_t v = parse_mul(level + 1);
      while (at('+') || at('-')) {
        bool plus = R.t_[i].is('+');
        ++i;
        int64_t w = parse_mul(level + 1);
        int64_t res = 0;
        bool overflow = plus ? __builtin_add_overflow(v, w, &res) : __builtin_sub_overflow(v, w, &res);
        v = checked(overflow, res);
      }
      return v;
    }
    int64_t parse_mul(int level) {
      int64_t v = parse_unary(level + 1);
      while (at('*') || at('/') || at('%')) {
        char op = R.t_[i].text[0];
        ++i;
        int64_t w = parse_unary(level + 1);
        if (op == '*') {
          int64_t res = 0;
          bool overflow = __builtin_mul_overflow(v, w, &res);
          v = checked(overflow, res);
        } else {
          if (w == 0) bad("division by zero in constant expression");
          if (v == std::numeric_limits<int64_t>::min() && w == -1) bad("integer overflow in division");
          v = op == '/' ? v / w : v % w;
        }
      }
      return v;
    }
    int64_t parse_unary(int level) {
      enter(level);
      if (at('-')) {
        ++i;
        int64_t v = parse_unary(level + 1);
        if (v == std::numeric_limits<int64_t>::min()) bad("integer overflow in negation");
        return -v;
      }
      if (at('~')) {
        ++i;
        return ~parse_unary(level + 1);
      }
      return parse_primary(level + 1);
    }
    int64_t parse_primary(int level) {
      enter(level);
      if (i >= r.end) bad("expression ends early");
      const Token& t = R.t_[i];
      if (t.is('(')) {
        ++i;
        int64_t v = parse_bitor(level + 1);
        if (!at(')')) bad("expected ')'");
        ++i;
        return v;
      }
      if (t.kind == Tok::Int) {
        ++i;
        return parse_int_literal(t);
      }
      if (t.kind == Tok::Float) bad(fmt::format("'{}' is not an integer", t.text));
      if (t.kind == Tok::Ident) {
        ++i;
        if ((t.text == "min" || t.text == "max" || t.text == "abs" || t.text == "clamp") && at('(')) {
          // The integer builtins a const expression commonly uses in array sizes and attributes
          // (WGSL §17.5: abs, clamp, max, min).
          ++i;
          std::vector<int64_t> args;
          while (true) {
            args.push_back(parse_bitor(level + 1));
            if (at(',')) {
              ++i;
              if (at(')')) break;
              continue;
            }
            break;
          }
          if (!at(')')) bad(fmt::format("expected ')' to close {}(...)", t.text));
          ++i;
          const size_t want = t.text == "abs" ? 1 : t.text == "clamp" ? 3 : 2;
          if (args.size() != want)
            bad(fmt::format("{}() takes {} argument(s), {} given", t.text, want, args.size()));
          if (t.text == "min") return std::min(args[0], args[1]);
          if (t.text == "max") return std::max(args[0], args[1]);
          if (t.text == "clamp") return std::min(std::max(args[0], args[1]), args[2]);
          if (args[0] == std::numeric_limits<int64_t>::min()) bad("integer overflow in abs()");
          return args[0] < 0 ? -args[0] : args[0];
        }
        if ((t.text == "i32" || t.text == "u32") && at('(')) {
          ++i;
          int64_t v = parse_bitor(level + 1);
          if (at(',')) ++i;
          if (!at(')')) bad("expected ')'");
          ++i;
          if (t.text == "u32" && (v < 0 || v > 0xFFFFFFFFll)) bad(fmt::format("{} does not fit in u32", v));
          if (t.text == "i32" && (v < INT32_MIN || v > INT32_MAX)) bad(fmt::format("{} does not fit in i32", v));
          return v;
        }
        if (at('(') && !R.lookup(t.text)) {
          --i;  // report at the function's name
          bad(fmt::format("'{}(...)' is not evaluated by bindery's reflector: constant expressions here may use "
                          "integer literals, consts, i32(), u32(), min(), max(), abs(), clamp() and integer "
                          "operators",
                          t.text));
        }
        return R.const_value(t, what, depth + level);
      }
      bad(fmt::format("unexpected '{}' in constant expression", t.text));
    }
    int64_t parse_int_literal(const Token& t) const {
      std::string_view s = t.text;
      char suffix = 0;
      if (s.back() == 'i' || s.back() == 'u') {
        suffix = s.back();
        s.remove_suffix(1);
      }
      int base = 10;
      if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
      }
      uint64_t v = 0;
      for (char c : s) {
        int d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
        if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - d) / base)
          R.fail(t, ErrorKind::WgslType, fmt::format("{}: literal {} is too large", what, t.text));
        v = v * base + d;
      }
      if (suffix == 'u' && v > 0xFFFFFFFFull) R.fail(t, ErrorKind::WgslType, fmt::format("{}: {} does not fit in u32", what, t.text));
      if (suffix == 'i' && v > 0x7FFFFFFFull) R.fail(t, ErrorKind::WgslType, fmt::format("{}: {} does not fit in i32", what, t.text));
      return static_cast<int64_t>(v);
    }
  };

  int64_t const_value(const Token& name, std::string_view what, int depth) {
    const auto* d = lookup(name.text);
    if (!d || d->first != 'c')
      fail(name, ErrorKind::WgslType,
           fmt::format("{}: '{}' is not a module-scope const (array sizes and attribute values must be "
                       "constant integer expressions)",
                       what, name.text));
    size_t idx = d->second;
    if (auto it = const_values_.find(idx); it != const_values_.end()) return it->second;
    if (const_busy_.count(idx)) fail(name, ErrorKind::WgslType, fmt::format("const '{}' depends on itself", name.text));
    if (depth > kMaxExprDepth) fail(name, ErrorKind::WgslType, fmt::format("{}: const '{}' nested too deeply", what, name.text));
    const_busy_.insert(idx);
    int64_t v = eval(m_.consts[idx].init, fmt::format("const '{}'", name.text), depth + 1);
    const_busy_.erase(idx);
    const_values_[idx] = v;
    return v;
  }

  // ---- types --------------------------------------------------------------------------------
  TypePtr make_scalar(ScalarKind s) {
    auto t = std::make_shared<WgslType>();
    t->kind = TypeKind::Scalar;
    t->scalar = s;
    t->size = t->align = scalar_size(s);
    t->name = std::string(scalar_name(s));
    t->host_shareable = s != ScalarKind::Bool;
    return t;
  }
  static uint32_t vec_align(uint32_t n, ScalarKind s) { return (n == 2 ? 2 : 4) * scalar_size(s); }
  TypePtr make_vector(uint32_t n, ScalarKind s) {
    auto t = std::make_shared<WgslType>();
    t->kind = TypeKind::Vector;
    t->scalar = s;
    t->rows = n;
    t->size = n * scalar_size(s);
    t->align = vec_align(n, s);
    t->name = fmt::format("vec{}<{}>", n, scalar_name(s));
    t->host_shareable = s != ScalarKind::Bool;
    return t;
  }
  TypePtr make_matrix(uint32_t c, uint32_t r, ScalarKind s) {
    auto t = std::make_shared<WgslType>();
    t->kind = TypeKind::Matrix;
    t->scalar = s;
    t->columns = c;
    t->rows = r;
    t->align = vec_align(r, s);
    t->stride = t->align;  // column stride = roundUp(AlignOf(vecR), SizeOf(vecR)) = AlignOf(vecR)
    t->size = c * t->stride;
    t->name = fmt::format("mat{}x{}<{}>", c, r, scalar_name(s));
    return t;
  }
  TypePtr make_atomic(ScalarKind s) {
    auto t = std::make_shared<WgslType>();
    t->kind = TypeKind::Atomic;
    t->scalar = s;
    t->size = t->align = 4;
    t->name = fmt::format("atomic<{}>", scalar_name(s));
    return t;
  }

  void require_f16(uint32_t tok) {
    if (!out_.f16_enabled)
      fail(tok, ErrorKind::WgslType, fmt::format("'{}' uses f16, which needs 'enable f16;' at the top of the shader "
                                                 "(and the device feature \"shader-f16\")",
                                                 t_[tok].text));
  }

  /// The scalar named by a vec/mat/atomic template argument.
  ScalarKind scalar_arg(const TypeAst& outer, int depth) {
    if (outer.args.empty()) fail(outer.name_tok, ErrorKind::WgslType, fmt::format("'{}' needs a component type, e.g. {}<f32>", t_[outer.name_tok].text, t_[outer.name_tok].text));
    TypePtr c = resolve_type(outer.args[0], depth + 1);
    if (c->kind != TypeKind::Scalar)
      fail(outer.args[0].name_tok, ErrorKind::WgslType,
           fmt::format("'{}<{}>': the component type must be a scalar", t_[outer.name_tok].text, c->name));
    return c->scalar;
  }

  static bool is_handle_type_name(std::string_view n) {
    return n.rfind("texture_", 0) == 0 || n == "sampler" || n == "sampler_comparison";
  }

  /// Follows aliases from `ty` to the type expression they finally name.
  const TypeAst& unalias(const TypeAst& ty, int depth = 0) {
    if (depth > kMaxResolveDepth) fail(ty.name_tok, ErrorKind::WgslType, "alias chain too long (or cyclic)");
    const auto* d = lookup(t_[ty.name_tok].text);
    if (d && d->first == 'a' && ty.args.empty() && ty.count.empty()) return unalias(m_.aliases[d->second].type, depth + 1);
    return ty;
  }

  TypePtr resolve_type(const TypeAst& ty, int depth) {
    const Token& nt = t_[ty.name_tok];
    if (depth > kMaxResolveDepth) fail(nt, ErrorKind::WgslType, "types nested too deeply");
    std::string_view n = nt.text;

    // User declarations shadow predeclared names (WGSL §5.1).
    if (const auto* d = lookup(n)) {
      if (d->first == 's') {
        resolve_struct(d->second, depth + 1);
        if (!struct_result_[d->second]) fail(nt, ErrorKind::WgslType, std::string());
        return struct_type_[d->second];
      }
      if (d->first == 'a') return resolve_alias(d->second, ty.name_tok, depth);
      fail(nt, ErrorKind::WgslType, fmt::format("'{}' is a {}, not a type", n, d->first == 'c' ? "const" : "variable"));
    }

    if (n == "bool") return make_scalar(ScalarKind::Bool);
    if (n == "i32") return make_scalar(ScalarKind::I32);
    if (n == "u32") return make_scalar(ScalarKind::U32);
    if (n == "f32") return make_scalar(ScalarKind::F32);
    if (n == "f16") {
      require_f16(ty.name_tok);
      return make_scalar(ScalarKind::F16);
    }
    auto suffix_scalar = [&](char c, ScalarKind& s) {
      switch (c) {
        case 'i': s = ScalarKind::I32; return true;
        case 'u': s = ScalarKind::U32; return true;
        case 'f': s = ScalarKind::F32; return true;
        case 'h': s = ScalarKind::F16; require_f16(ty.name_tok); return true;
      }
      return false;
    };
    // vecN<T> and the predeclared aliases vec3f, vec4h, vec2i, ...
    if (n.size() >= 4 && n.substr(0, 3) == "vec" && n[3] >= '2' && n[3] <= '4' && n.size() <= 5) {
      uint32_t dim = static_cast<uint32_t>(n[3] - '0');
      ScalarKind s;
      if (n.size() == 5) {
        if (!suffix_scalar(n[4], s)) fail(nt, ErrorKind::WgslType, fmt::format("unknown type '{}'", n));
        if (!ty.args.empty()) fail(nt, ErrorKind::WgslType, fmt::format("'{}' takes no template arguments", n));
      } else {
        s = scalar_arg(ty, depth);
      }
      return make_vector(dim, s);
    }
    // matCxR<T> and the predeclared aliases mat3x3f, mat4x4h, ...
    if (n.size() >= 6 && n.size() <= 7 && n.substr(0, 3) == "mat" && n[3] >= '2' && n[3] <= '4' && n[4] == 'x' &&
        n[5] >= '2' && n[5] <= '4') {
      uint32_t c = static_cast<uint32_t>(n[3] - '0'), r = static_cast<uint32_t>(n[5] - '0');
      ScalarKind s;
      if (n.size() == 7) {
        if (!suffix_scalar(n[6], s)) fail(nt, ErrorKind::WgslType, fmt::format("unknown type '{}'", n));
        if (!ty.args.empty()) fail(nt, ErrorKind::WgslType, fmt::format("'{}' takes no template arguments", n));
      } else {
        s = scalar_arg(ty, depth);
      }
      if (s != ScalarKind::F32 && s != ScalarKind::F16)
        fail(nt, ErrorKind::WgslType, fmt::format("'{}<{}>': matrix components must be f32 or f16", n, scalar_name(s)));
      return make_matrix(c, r, s);
    }
    if (n == "atomic") {
      ScalarKind s = scalar_arg(ty, depth);
      if (s != ScalarKind::I32 && s != ScalarKind::U32)
        fail(nt, ErrorKind::WgslType, fmt::format("'atomic<{}>': atomics hold i32 or u32 only", scalar_name(s)));
      return make_atomic(s);
    }
    if (n == "array") return resolve_array(ty, depth);
    if (is_handle_type_name(n))
      fail(nt, ErrorKind::WgslType,
           fmt::format("'{}' is a texture or sampler type: it cannot be a struct member, array element or buffer "
                       "store type",
                       n));
    fail(nt, ErrorKind::WgslType, fmt::format("unknown type '{}'", n));
  }

  TypePtr resolve_array(const TypeAst& ty, int depth) {
    const Token& nt = t_[ty.name_tok];
    if (ty.args.empty()) fail(nt, ErrorKind::WgslType, "'array' needs an element type: array<T, N> or array<T>");
    TypePtr e = resolve_type(ty.args[0], depth + 1);
    if (e->is_runtime_array() || (e->kind == TypeKind::Struct && ends_in_runtime_array(*e)))
      fail(ty.args[0].name_tok, ErrorKind::WgslType,
           fmt::format("array element type '{}' has no fixed size (it is or ends in a runtime-sized array)", e->name));
    auto t = std::make_shared<WgslType>();
    t->kind = TypeKind::Array;
    t->element = e;
    t->align = e->align;
    t->stride = static_cast<uint32_t>(round_up(e->align, e->size));
    t->host_shareable = e->host_shareable;
    if (ty.count.empty()) {
      t->count = 0;
      t->size = t->stride;  // one element: the minBindingSize contribution (WGSL §14.4.2)
      t->name = fmt::format("array<{}>", e->name);
    } else {
      int64_t n = eval(ty.count, fmt::format("array<{}, ...> element count", e->name), 0);
      if (n <= 0)
        fail(ty.count.begin, ErrorKind::WgslType, fmt::format("array<{}, {}>: the element count must be greater than 0", e->name, n));
      uint64_t size = static_cast<uint64_t>(n) * t->stride;
      if (static_cast<uint64_t>(n) > kMaxSize || size > kMaxSize)
        fail(ty.count.begin, ErrorKind::WgslLayout,
             fmt::format("array<{}, {}> is {} bytes, more than this reflector supports ({})", e->name, n, size, kMaxSize));
      t->count = static_cast<uint32_t>(n);
      t->size = static_cast<uint32_t>(size);
      t->name = fmt::format("array<{}, {}>", e->name, n);
    }
    return t;
  }

  static bool ends_in_runtime_array(const WgslType& t) {
    if (t.kind != TypeKind::Struct || !t.struct_layout || t.struct_layout->members.empty()) return false;
    return t.struct_layout->members.back().type->is_runtime_array();
  }

  // ---- structs ------------------------------------------------------------------------------
  // A member's alignment: AlignOf(its type), or its @align checked against it.
  template <class MemberAst>
  uint64_t member_align(const MemberAst& ma, const WgslType& ty, const std::string& where) {
    if (ma.align.empty()) return ty.align;
    int64_t a = eval(ma.align, fmt::format("{}: @align", where), 0);
    if (!is_pow2(a))
      fail(ma.align.begin, ErrorKind::WgslLayout, fmt::format("{}: @align({}) must be a positive power of two", where, a));
    if (a % ty.align != 0)
      fail(ma.align.begin, ErrorKind::WgslLayout,
           fmt::format("{}: @align({}) must be a multiple of AlignOf({}) = {}", where, a, ty.name, ty.align));
    return static_cast<uint64_t>(a);
  }

  // A member's size: SizeOf(its type), or its @size checked against it.
  template <class MemberAst>
  uint64_t member_size(const MemberAst& ma, const WgslType& ty, const std::string& where) {
    if (ma.size.empty()) return ty.size;
    if (ty.is_runtime_array())
      fail(ma.size.begin, ErrorKind::WgslLayout, fmt::format("{}: @size cannot be applied to a runtime-sized array", where));
    int64_t z = eval(ma.size, fmt::format("{}: @size", where), 0);
    if (z < static_cast<int64_t>(ty.size))
      fail(ma.size.begin, ErrorKind::WgslLayout,
           fmt::format("{}: @size({}) is smaller than SizeOf({}) = {}", where, z, ty.name, ty.size));
    if (z > static_cast<int64_t>(kMaxSize)) fail(ma.size.begin, ErrorKind::WgslLayout, fmt::format("{}: @size({}) is too large", where, z));
    return static_cast<uint64_t>(z);
  }

  void resolve_struct(size_t idx, int depth) {
    const auto& s = m_.structs[idx];
    const Token& nt = t_[s.name_tok];
    switch (struct_state_[idx]) {
      case State::Done:
      case State::Failed: return;
      case State::InProgress:
        fail(nt, ErrorKind::WgslType, fmt::format("struct '{}' contains itself (recursive structs are not allowed)", nt.text));
      case State::Unvisited: break;
    }
    if (depth > kMaxResolveDepth) fail(nt, ErrorKind::WgslType, "structs nested too deeply");
    struct_state_[idx] = State::InProgress;
    auto layout = std::make_shared<StructLayout>();
    layout->name = std::string(nt.text);
    layout->line = nt.line;
    layout->column = nt.column;
    bool failed = false;
    if (s.members.empty()) {
      report(nt.line, nt.column, ErrorKind::WgslType, fmt::format("struct '{}' has no members", nt.text));
      failed = true;
    }
    uint64_t offset = 0, max_align = 1;
    bool host_shareable = true;
    std::unordered_set<std::string_view> member_names;  // linear, not quadratic, in members
    for (size_t m = 0; m < s.members.size(); ++m) {
      const auto& ma = s.members[m];
      const Token& mt = t_[ma.name_tok];
      try {
        if (!member_names.insert(mt.text).second)
          fail(mt, ErrorKind::WgslType, fmt::format("struct '{}' declares member '{}' twice", nt.text, mt.text));
        TypePtr ty = resolve_type(ma.type, depth + 1);
        std::string where = fmt::format("struct '{}' member '{}'", nt.text, mt.text);
        if (ty->is_runtime_array() && m + 1 != s.members.size())
          fail(mt, ErrorKind::WgslType, fmt::format("{}: a runtime-sized array ({}) must be the last member", where, ty->name));
        if (ty->kind == TypeKind::Struct && ends_in_runtime_array(*ty))
          fail(mt, ErrorKind::WgslType,
               fmt::format("{}: struct '{}' ends in a runtime-sized array and can only be a buffer's store type, "
                           "not a member",
                           where, ty->name));
        const uint64_t align = member_align(ma, *ty, where), size = member_size(ma, *ty, where);
        offset = round_up(align, offset);
        if (offset + size > kMaxSize)
          fail(mt, ErrorKind::WgslLayout, fmt::format("{}: struct '{}' is larger than {} bytes", where, nt.text, kMaxSize));
        StructMember member;
        member.name = std::string(mt.text);
        member.type = ty;
        member.offset = static_cast<uint32_t>(offset);
        member.size = static_cast<uint32_t>(size);
        member.align = static_cast<uint32_t>(align);
        member.align_attribute = ma.align.empty() ? 0 : static_cast<uint32_t>(align);
        member.size_attribute = ma.size.empty() ? 0 : static_cast<uint32_t>(size);
        member.line = mt.line;
        member.column = mt.column;
        layout->members.push_back(std::move(member));
        offset += size;
        max_align = std::max(max_align, align);
        host_shareable = host_shareable && ty->host_shareable;
      } catch (const ResolveError& e) {
        report(e.error.line, e.error.column, e.error.kind, e.error.message);
        failed = true;
      }
    }
    if (failed) {
      struct_state_[idx] = State::Failed;
      return;
    }
    layout->align = static_cast<uint32_t>(max_align);
    uint64_t size = round_up(max_align, offset);
    if (size > kMaxSize) {
      report(nt.line, nt.column, ErrorKind::WgslLayout, fmt::format("struct '{}' is larger than {} bytes", nt.text, kMaxSize));
      struct_state_[idx] = State::Failed;
      return;
    }
    layout->size = static_cast<uint32_t>(size);
    auto type = std::make_shared<WgslType>();
    type->kind = TypeKind::Struct;
    type->struct_layout = layout;
    type->align = layout->align;
    type->size = layout->size;
    type->name = layout->name;
    type->host_shareable = host_shareable;
    struct_type_[idx] = type;
    struct_result_[idx] = layout;
    struct_state_[idx] = State::Done;
  }

  // ---- variables and address-space checks ---------------------------------------------------
  void resolve_var(const wgsl::VarAst& v) {
    const Token& name = t_[v.name_tok];
    std::string_view space = v.space_tok ? t_[*v.space_tok].text : std::string_view{};
    if (space == "private" || space == "workgroup") return resolve_unbound_var(v, space);
    if (space == "immediate") return resolve_immediate(v);
    if (!space.empty() && space != "uniform" && space != "storage")
      fail(*v.space_tok, ErrorKind::WgslType,
           fmt::format("var '{}': unknown or not module-scope address space '{}' (uniform, "
                       "storage, immediate, private, workgroup)",
                       name.text, space));
    if (!v.type) fail(name, ErrorKind::WgslType, fmt::format("var '{}' needs a type", name.text));

    BindingInfo b;
    b.name = std::string(name.text);
    b.line = name.line;
    b.column = name.column;
    std::string where = fmt::format("var<{}> '{}'", space.empty() ? "handle" : space, name.text);

    if (space.empty()) {
      const TypeAst& ty = unalias(*v.type);
      std::string_view tn = t_[ty.name_tok].text;
      if (!is_handle_type_name(tn) || lookup(tn))
        fail(name, ErrorKind::WgslType,
             fmt::format("var '{}': a module-scope variable without an address space must be a texture or "
                         "sampler (found '{}')",
                         name.text, tn));
      if (tn == "sampler") b.space = BindingSpace::Sampler;
      else if (tn == "sampler_comparison") b.space = BindingSpace::ComparisonSampler;
      else if (tn == "texture_external") b.space = BindingSpace::ExternalTexture;
      else if (tn.rfind("texture_storage_", 0) == 0) b.space = BindingSpace::StorageTexture;
      else b.space = BindingSpace::Texture;
      b.type = token_text(ty.full);
    } else {
      if (space == "uniform") {
        if (v.access_tok)
          fail(*v.access_tok, ErrorKind::WgslType, fmt::format("{}: the uniform address space takes no access mode", where));
        b.space = BindingSpace::Uniform;
      } else {
        std::string_view access = v.access_tok ? t_[*v.access_tok].text : "read";
        if (access == "read") b.space = BindingSpace::ReadOnlyStorage;
        else if (access == "read_write") b.space = BindingSpace::Storage;
        else
          fail(*v.access_tok, ErrorKind::WgslType,
               fmt::format("{}: access mode '{}' is not allowed for storage (read or read_write)", where, access));
      }
      TypePtr st = resolve_type(*v.type, 0);
      b.store_type = st;
      b.type = st->name;
      b.min_binding_size = st->size;
      b.portable_min_binding_size = b.space == BindingSpace::Uniform ? round_up(16, st->size) : st->size;
      space_checker_.check(*st, b.space, name.line, name.column, where);
    }

    if (v.group.empty() || v.binding.empty())
      fail(name, ErrorKind::WgslType, fmt::format("{}: a resource variable needs both @group(g) and @binding(b)", where));
    int64_t g = eval(v.group, fmt::format("{}: @group", where), 0);
    int64_t bi = eval(v.binding, fmt::format("{}: @binding", where), 0);
    if (g < 0 || g > 0xFFFFFFFFll) fail(v.group.begin, ErrorKind::WgslType, fmt::format("{}: @group({}) is out of range", where, g));
    if (bi < 0 || bi > 0xFFFFFFFFll) fail(v.binding.begin, ErrorKind::WgslType, fmt::format("{}: @binding({}) is out of range", where, bi));
    b.group = static_cast<uint32_t>(g);
    b.binding = static_cast<uint32_t>(bi);
    out_.bindings.push_back(std::move(b));
  }

  // ---- variables that are not bound resources (WGSL "Address Spaces") ---------------------
  /// What a store type holds that an address space may forbid: a runtime-sized array (itself or
  /// a struct's last member), an atomic, a texture or sampler; the first of each, as written.
  struct StoreParts {
    std::string runtime_array, atomic, handle;
  };

  void collect_parts(const WgslType& t, StoreParts& p) const {
    if (t.is_runtime_array() && p.runtime_array.empty()) p.runtime_array = t.name;
    if (t.kind == TypeKind::Atomic && p.atomic.empty()) p.atomic = t.name;
    if (t.kind == TypeKind::Array) collect_parts(*t.element, p);
    if (t.kind == TypeKind::Struct)
      for (const auto& m : t.struct_layout->members) collect_parts(*m.type, p);
  }

  /// Walks the type as written (array counts are not evaluated: a function-scope const or an
  /// override may size a local array); structs are read from their resolved layout.
  void collect_parts(const TypeAst& written, StoreParts& p, int depth) {
    if (depth > kMaxResolveDepth) return;
    const TypeAst& ty = unalias(written);
    const std::string_view n = t_[ty.name_tok].text;
    if (const auto* d = lookup(n)) {
      if (d->first == 's' && struct_type_[d->second]) collect_parts(*struct_type_[d->second], p);
      return;  // a struct that failed is reported where it is declared
    }
    if (n == "array" && ty.count.empty() && p.runtime_array.empty()) p.runtime_array = token_text(ty.full);
    if (n == "atomic" && p.atomic.empty()) p.atomic = token_text(ty.full);
    if (is_handle_type_name(n) && p.handle.empty()) p.handle = std::string(n);
    if (n == "array" && !ty.args.empty()) collect_parts(ty.args[0], p, depth + 1);
  }

  /// var<private>, var<workgroup> and a function's var: the store type must be constructible
  /// (function, private) or a plain type (workgroup, which also holds atomics); neither holds a
  /// runtime-sized array or a handle type.
  void check_unbound_store(const wgsl::VarAst& v, std::string_view space) {
    const Token& name = t_[v.name_tok];
    const std::string where = fmt::format("var<{}> '{}'", space, name.text);
    if (v.access_tok)
      fail(*v.access_tok, ErrorKind::WgslType,
           fmt::format("{}: only var<storage> takes an access mode", where));
    if (!v.group.empty() || !v.binding.empty())
      fail(name, ErrorKind::WgslType,
           fmt::format("{}: @group and @binding belong to resource variables (uniform, storage, "
                       "handle)",
                       where));
    if (!v.type) return;  // inferred from its initializer: a constructible type
    StoreParts p;
    collect_parts(*v.type, p, 0);
    if (!p.handle.empty())
      report(name.line, name.column, ErrorKind::WgslType,
             fmt::format("{}: '{}' is a texture or sampler type, which only a module-scope var "
                         "without an address space (the handle address space) can hold",
                         where, p.handle));
    if (!p.runtime_array.empty())
      report(name.line, name.column, ErrorKind::WgslType,
             fmt::format("{}: runtime-sized '{}' is allowed only in the storage address space "
                         "(WGSL \"Address Spaces\": the store type of var<{}> must have a fixed "
                         "size)",
                         where, p.runtime_array, space));
    if (!p.atomic.empty() && space != "workgroup")
      report(name.line, name.column, ErrorKind::WgslType,
             fmt::format("{}: '{}' is allowed only in var<storage, read_write> and "
                         "var<workgroup> (WGSL \"Atomic Types\")",
                         where, p.atomic));
  }

  void resolve_unbound_var(const wgsl::VarAst& v, std::string_view space) {
    check_unbound_store(v, space);
  }

  void resolve_function_var(const wgsl::VarAst& v) {
    if (v.space_tok && t_[*v.space_tok].text != "function")
      fail(*v.space_tok, ErrorKind::WgslType,
           fmt::format("var '{}' inside a function: only the function address space is allowed "
                       "there, found '{}' (module-scope variables hold the others)",
                       t_[v.name_tok].text, t_[*v.space_tok].text));
    check_unbound_store(v, "function");
  }

  // var<immediate>: no binding, no access mode, a fixed-size host-shareable store type (checked
  // like a read-only buffer, which also refuses atomics and bool).
  void resolve_immediate(const wgsl::VarAst& v) {
    const Token& name = t_[v.name_tok];
    const std::string where = fmt::format("var<immediate> '{}'", name.text);
    if (v.access_tok)
      fail(*v.access_tok, ErrorKind::WgslType,
           fmt::format("{}: the immediate address space takes no access mode", where));
    if (!v.group.empty() || !v.binding.empty())
      fail(name, ErrorKind::WgslType,
           fmt::format("{}: immediate data has no @group or @binding", where));
    if (!v.type) fail(name, ErrorKind::WgslType, fmt::format("var '{}' needs a type", name.text));
    TypePtr st = resolve_type(*v.type, 0);
    if (st->kind == TypeKind::Array && st->is_runtime_array())
      fail(name, ErrorKind::WgslType,
           fmt::format("{}: a runtime-sized array has no fixed size for immediate data", where));
    space_checker_.check_type(*st, BindingSpace::ReadOnlyStorage, name, where, false);
    ImmediateInfo info;
    info.name = std::string(name.text);
    info.type = st->name;
    info.store_type = st;
    info.size = st->size;
    info.line = name.line;
    info.column = name.column;
    out_.immediates.push_back(std::move(info));
  }

  std::string token_text(TokRange r) const {
    std::string s;
    for (uint32_t k = r.begin; k < r.end; ++k) {
      s += t_[k].text;
      if (t_[k].is(',')) s += ' ';
    }
    return s;
  }

  const ModuleAst& m_;
  const std::vector<Token>& t_;
  Reflection& out_;
  bool std_layout_ = false;
  std::unordered_map<std::string_view, std::pair<char, size_t>> names_;
  std::vector<State> struct_state_;
  std::vector<std::shared_ptr<StructLayout>> struct_result_;
  std::vector<TypePtr> struct_type_;
  std::map<size_t, TypePtr> alias_types_;
  std::set<size_t> alias_busy_;
  std::map<size_t, int64_t> const_values_;
  std::set<size_t> const_busy_;
  SpaceChecker space_checker_{false, [this](uint32_t line, uint32_t column, ErrorKind kind, std::string msg) {
                                report(line, column, kind, std::move(msg));
                              }};
  std::set<std::tuple<uint32_t, uint32_t, std::string>> seen_;
};

}  // namespace

std::vector<ReflectionError> address_space_errors(const StructLayout& store_type, BindingSpace space,
                                                 const ReflectOptions& options) {
  std::vector<ReflectionError> errors;
  std::set<std::tuple<uint32_t, uint32_t, std::string>> seen;
  SpaceChecker checker{options.uniform_buffer_standard_layout,
                       [&](uint32_t line, uint32_t column, ErrorKind kind, std::string msg) {
                         if (seen.insert({line, column, msg}).second)
                           errors.push_back({line, column, kind, std::move(msg)});
                       }};
  checker.check_struct(store_type, space, true);
  std::stable_sort(errors.begin(), errors.end(), [](const ReflectionError& a, const ReflectionError& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return errors;
}

Reflection reflect_wgsl(std::string_view source, const ReflectOptions& options) {
  Reflection out;
  std::vector<ReflectionError> syntax;
  wgsl::ModuleAst m = wgsl::parse_module(source, syntax);
  if (!syntax.empty()) {
    // A module that does not parse is not reflected further: its declarations may be cut short.
    out.errors = std::move(syntax);
    return out;
  }
  Resolver r(m, options, out);
  r.run();
  std::stable_sort(out.errors.begin(), out.errors.end(), [](const ReflectionError& a, const ReflectionError& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return out;
}

}  // namespace bindery
