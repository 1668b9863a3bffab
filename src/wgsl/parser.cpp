// SPDX-License-Identifier: MIT
#include "wgsl/parser.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>

namespace bindery::wgsl {
namespace {

// WGSL §16.1 keyword summary.
constexpr std::string_view kKeywords[] = {
    "alias",   "break",      "case",    "const", "const_assert", "continue", "continuing",
    "default", "diagnostic", "discard", "else",  "enable",       "false",    "fn",
    "for",     "if",         "let",     "loop",  "override",     "requires", "return",
    "struct",  "switch",     "true",    "var",   "while"};

// WGSL §16.2 reserved words.
constexpr std::string_view kReservedWords[] = {"NULL",
                                               "Self",
                                               "abstract",
                                               "active",
                                               "alignas",
                                               "alignof",
                                               "as",
                                               "asm",
                                               "asm_fragment",
                                               "async",
                                               "attribute",
                                               "auto",
                                               "await",
                                               "become",
                                               "cast",
                                               "catch",
                                               "class",
                                               "co_await",
                                               "co_return",
                                               "co_yield",
                                               "coherent",
                                               "column_major",
                                               "common",
                                               "compile",
                                               "compile_fragment",
                                               "concept",
                                               "const_cast",
                                               "consteval",
                                               "constexpr",
                                               "constinit",
                                               "crate",
                                               "debugger",
                                               "decltype",
                                               "delete",
                                               "demote",
                                               "demote_to_helper",
                                               "do",
                                               "dynamic_cast",
                                               "enum",
                                               "explicit",
                                               "export",
                                               "extends",
                                               "extern",
                                               "external",
                                               "fallthrough",
                                               "filter",
                                               "final",
                                               "finally",
                                               "friend",
                                               "from",
                                               "fxgroup",
                                               "get",
                                               "goto",
                                               "groupshared",
                                               "highp",
                                               "impl",
                                               "implements",
                                               "import",
                                               "inline",
                                               "instanceof",
                                               "interface",
                                               "layout",
                                               "lowp",
                                               "macro",
                                               "macro_rules",
                                               "match",
                                               "mediump",
                                               "meta",
                                               "mod",
                                               "module",
                                               "move",
                                               "mut",
                                               "mutable",
                                               "namespace",
                                               "new",
                                               "nil",
                                               "noexcept",
                                               "noinline",
                                               "nointerpolation",
                                               "non_coherent",
                                               "noncoherent",
                                               "noperspective",
                                               "null",
                                               "nullptr",
                                               "of",
                                               "operator",
                                               "package",
                                               "packoffset",
                                               "partition",
                                               "pass",
                                               "patch",
                                               "pixelfragment",
                                               "precise",
                                               "precision",
                                               "premerge",
                                               "priv",
                                               "protected",
                                               "pub",
                                               "public",
                                               "readonly",
                                               "ref",
                                               "regardless",
                                               "register",
                                               "reinterpret_cast",
                                               "require",
                                               "resource",
                                               "restrict",
                                               "self",
                                               "set",
                                               "shared",
                                               "sizeof",
                                               "smooth",
                                               "snorm",
                                               "static",
                                               "static_assert",
                                               "static_cast",
                                               "std",
                                               "subroutine",
                                               "super",
                                               "target",
                                               "template",
                                               "this",
                                               "thread_local",
                                               "throw",
                                               "trait",
                                               "try",
                                               "type",
                                               "typedef",
                                               "typeid",
                                               "typename",
                                               "typeof",
                                               "union",
                                               "unless",
                                               "unorm",
                                               "unsafe",
                                               "unsized",
                                               "use",
                                               "using",
                                               "varying",
                                               "virtual",
                                               "volatile",
                                               "wgsl",
                                               "where",
                                               "with",
                                               "writeonly",
                                               "yield"};

bool is_keyword(std::string_view n) {
  return std::find(std::begin(kKeywords), std::end(kKeywords), n) != std::end(kKeywords);
}

bool is_reserved_word(std::string_view n) {
  return std::find(std::begin(kReservedWords), std::end(kReservedWords), n) !=
         std::end(kReservedWords);
}

constexpr int kMaxTypeDepth = 32;

/// Thrown inside the parser only, caught by parse_module(): the first syntax error ends parsing.
struct SyntaxError {
  ReflectionError error;
};

class Parser {
 public:
  explicit Parser(ModuleAst& m) : m_(m), t_(m.tokens) {}

  void parse() {
    while (!peek().kind_is_end()) parse_declaration();
  }

 private:
  struct Attrs {
    TokRange group, binding, align, size;
  };

  // ---- token helpers ----------------------------------------------------------------------
  struct Peek {
    const Token& t;
    bool kind_is_end() const { return t.kind == Tok::End; }
  };
  Peek peek() const { return {t_[i_]}; }
  const Token& cur() const { return t_[i_]; }
  const Token& next() {
    const Token& t = t_[i_];
    if (t.kind != Tok::End) ++i_;
    return t;
  }
  [[noreturn]] void fail(const Token& at, const std::string& msg) const {
    throw SyntaxError{{at.line, at.column, ErrorKind::WgslSyntax, msg}};
  }
  static std::string describe(const Token& t) {
    if (t.kind == Tok::End) return "end of file";
    return fmt::format("'{}'", t.text);
  }
  void expect(char c, std::string_view context) {
    if (!cur().is(c)) fail(cur(), fmt::format("expected '{}' {}, found {}", c, context, describe(cur())));
    next();
  }
  uint32_t expect_ident(std::string_view what) {
    if (cur().kind != Tok::Ident) fail(cur(), fmt::format("expected {}, found {}", what, describe(cur())));
    uint32_t at = i_;
    next();
    return at;
  }

  /// expect_ident() for a name being declared (struct, member, alias, const, var): WGSL §3.5
  /// forbids a keyword or reserved word (§16.1, §16.2), a lone '_' and a leading "__".
  uint32_t expect_name(std::string_view what) {
    const uint32_t at = expect_ident(what);
    const std::string_view n = t_[at].text;
    if (is_keyword(n))
      fail(t_[at], fmt::format("'{}' is a WGSL keyword and cannot name {} (WGSL §16.1)", n, what));
    if (is_reserved_word(n))
      fail(t_[at],
           fmt::format("'{}' is a WGSL reserved word and cannot name {} (WGSL §16.2)", n, what));
    if (n == "_")
      fail(t_[at], fmt::format("'_' alone cannot name {} (WGSL §3.5 identifiers)", what));
    if (n.substr(0, 2) == "__")
      fail(t_[at], fmt::format("'{}' starts with two underscores, which WGSL identifiers must not "
                               "(§3.5)",
                               n));
    return at;
  }

  /// Skips a bracketed group starting at the current opening token; returns the range inside it.
  TokRange skip_balanced(char open, char close) {
    const Token& start = cur();
    expect(open, "");
    TokRange r{i_, i_};
    int depth = 1;
    while (true) {
      const Token& t = cur();
      if (t.kind == Tok::End) fail(start, fmt::format("'{}' opened here is never closed", open));
      if (t.is(open)) ++depth;
      if (t.is(close) && --depth == 0) break;
      next();
    }
    r.end = i_;
    next();
    return r;
  }

  /// Skips tokens up to and including the next ';' outside brackets.
  void skip_to_semicolon(const Token& decl) {
    int depth = 0;
    while (true) {
      const Token& t = cur();
      if (t.kind == Tok::End) fail(decl, fmt::format("declaration {} never ends (';' missing)", describe(decl)));
      if (t.is('(') || t.is('[') || t.is('{')) ++depth;
      if (t.is(')') || t.is(']') || t.is('}')) {
        if (--depth < 0) fail(t, fmt::format("unbalanced {}", describe(t)));
      }
      next();
      if (depth == 0 && t.is(';')) return;
    }
  }

  // ---- attributes ---------------------------------------------------------------------------
  Attrs parse_attributes() {
    Attrs a;
    std::vector<std::string_view> seen;
    while (cur().is('@')) {
      next();
      uint32_t name = expect_ident("an attribute name after '@'");
      TokRange args;
      if (cur().is('(')) args = skip_balanced('(', ')');
      std::string_view n = t_[name].text;
      // WGSL §12: an attribute must not be specified more than once per object (@diagnostic may
      // repeat, for different rules).
      if (n != "diagnostic") {
        if (std::find(seen.begin(), seen.end(), n) != seen.end())
          fail(t_[name], fmt::format("attribute @{} is given twice on one declaration; WGSL "
                                     "allows each attribute once (§12)",
                                     n));
        seen.push_back(n);
      } else if (!args.empty()) {
        check_severity(t_[args.begin], "@diagnostic");
      }
      auto take = [&](TokRange& slot) {
        if (args.empty()) fail(t_[name], fmt::format("@{} needs an argument, e.g. @{}(0)", n, n));
        // Allow one trailing comma: @group(0,)
        if (t_[args.end - 1].is(',')) --args.end;
        slot = args;
      };
      if (n == "group") take(a.group);
      else if (n == "binding") take(a.binding);
      else if (n == "align") take(a.align);
      else if (n == "size") take(a.size);
    }
    return a;
  }

  /// WGSL §4.1: `enable` names an enable-extension (§4.1.2) and `requires` a language extension
  /// (§4.1.3) that WGSL defines; any other name is a shader-creation error.
  void check_extension(std::string_view directive, const Token& name) const {
    static constexpr std::string_view kEnable[] = {"f16", "clip_distances", "dual_source_blending",
                                                   "subgroups", "primitive_index"};
    static constexpr std::string_view kRequires[] = {"readonly_and_readwrite_storage_textures",
                                                     "packed_4x8_integer_dot_product",
                                                     "unrestricted_pointer_parameters",
                                                     "pointer_composite_access",
                                                     "uniform_buffer_standard_layout",
                                                     "subgroup_id",
                                                     "subgroup_uniformity",
                                                     "texture_and_sampler_let",
                                                     "texture_formats_tier1",
                                                     "linear_indexing"};
    const bool enable = directive == "enable";
    const auto* first = enable ? std::begin(kEnable) : std::begin(kRequires);
    const auto* last = enable ? std::end(kEnable) : std::end(kRequires);
    if (std::find(first, last, name.text) == last)
      fail(name, fmt::format("'{}' is not {} WGSL defines ({}: {})", name.text,
                             enable ? "an enable-extension" : "a language extension",
                             enable ? "§4.1.2" : "§4.1.3", fmt::join(first, last, ", ")));
  }

  /// A diagnostic's severity (WGSL §2.3): error, warning, info or off.
  void check_severity(const Token& t, std::string_view where) const {
    if (t.kind != Tok::Ident ||
        !(t.text == "error" || t.text == "warning" || t.text == "info" || t.text == "off"))
      fail(t, fmt::format("{} needs a severity, error, warning, info or off, found {} (WGSL "
                          "§2.3)",
                          where, describe(t)));
  }

  // ---- types --------------------------------------------------------------------------------
  static bool has_type_args(std::string_view n) {
    return n == "vec2" || n == "vec3" || n == "vec4" || n == "atomic" ||
           (n.size() == 6 && n.substr(0, 3) == "mat" && n[4] == 'x');
  }

  TypeAst parse_type(int depth) {
    if (depth > kMaxTypeDepth) fail(cur(), fmt::format("type nesting deeper than {} levels", kMaxTypeDepth));
    TypeAst ty;
    ty.full.begin = i_;
    ty.name_tok = expect_ident("a type name");
    std::string_view n = t_[ty.name_tok].text;
    if (cur().is('<')) {
      if (n == "array") {
        next();
        ty.args.push_back(parse_type(depth + 1));
        if (cur().is(',')) {
          next();
          if (!cur().is('>')) {
            // The count expression runs to the '>' that closes the template list; inside
            // parentheses a '>' is a comparison (WGSL §3.9).
            ty.count.begin = i_;
            int parens = 0;
            while (true) {
              const Token& t = cur();
              if (t.kind == Tok::End || t.is(';') || t.is('{') || t.is('}'))
                fail(t, fmt::format("array count of 'array<...>' is not closed by '>', found {}", describe(t)));
              if (t.is('(')) ++parens;
              if (t.is(')') && --parens < 0) fail(t, "unbalanced ')' in array count");
              if (parens == 0 && (t.is('>') || t.is(','))) break;
              next();
            }
            ty.count.end = i_;
            if (ty.count.empty()) fail(cur(), "array count is empty");
            if (cur().is(',')) next();  // trailing comma
          }
        }
        expect('>', "to close 'array<'");
      } else if (has_type_args(n)) {
        next();
        ty.args.push_back(parse_type(depth + 1));
        if (cur().is(',')) next();
        expect('>', fmt::format("to close '{}<'", n));
      } else {
        // A template list this reflector does not interpret (texture_2d<f32>, ptr<...>):
        // skip it, counting nested '<' '>' outside parentheses.
        next();
        int angles = 1, parens = 0;
        while (angles > 0) {
          const Token& t = cur();
          if (t.kind == Tok::End || t.is(';') || t.is('{') || t.is('}'))
            fail(t, fmt::format("template list of '{}' is not closed by '>'", n));
          if (t.is('(')) ++parens;
          if (t.is(')')) --parens;
          if (parens == 0 && t.is('<')) ++angles;
          if (parens == 0 && t.is('>')) --angles;
          next();
        }
      }
    }
    ty.full.end = i_;
    return ty;
  }

  // ---- declarations -------------------------------------------------------------------------
  void parse_declaration() {
    if (cur().is(';')) {
      next();
      return;
    }
    const uint32_t first = i_;
    DeclKind kind = DeclKind::Other;
    parse_declaration_body(kind);
    m_.decls.push_back(DeclSpan{kind, first, i_});
  }

  void parse_declaration_body(DeclKind& kind) {
    Attrs attrs = parse_attributes();
    const Token& kw = cur();
    if (kw.kind != Tok::Ident) fail(kw, fmt::format("expected a module-scope declaration, found {}", describe(kw)));
    std::string_view k = kw.text;
    if (k == "enable" || k == "requires") {
      kind = DeclKind::Directive;
      next();
      while (true) {
        uint32_t name = expect_ident(fmt::format("an extension name after '{}'", k));
        check_extension(k, t_[name]);
        (k == "enable" ? m_.enables : m_.requires_).push_back(name);
        if (cur().is(',')) {
          next();
          if (cur().is(';')) break;
          continue;
        }
        break;
      }
      expect(';', fmt::format("after the '{}' directive", k));
    } else if (k == "diagnostic" || k == "override" || k == "const_assert") {
      if (k == "diagnostic") kind = DeclKind::Directive;
      next();
      if (k == "diagnostic") {
        if (!cur().is('('))
          fail(cur(), fmt::format("expected '(' after 'diagnostic', found {}", describe(cur())));
        check_severity(t_[i_ + 1], "the diagnostic directive");
      }
      skip_to_semicolon(kw);
    } else if (k == "struct") {
      kind = DeclKind::Struct;
      parse_struct();
    } else if (k == "alias") {
      kind = DeclKind::Alias;
      next();
      AliasAst a;
      a.name_tok = expect_name("an alias");
      expect('=', "in 'alias' declaration");
      a.type = parse_type(0);
      expect(';', "after 'alias' declaration");
      m_.aliases.push_back(std::move(a));
    } else if (k == "const") {
      kind = DeclKind::Const;
      next();
      ConstAst c;
      c.name_tok = expect_name("a const");
      if (cur().is(':')) {
        next();
        parse_type(0);
      }
      expect('=', "in 'const' declaration (a const needs an initializer)");
      c.init.begin = i_;
      const Token& start = cur();
      int depth = 0;
      while (!(depth == 0 && cur().is(';'))) {
        const Token& t = cur();
        if (t.kind == Tok::End) fail(start, "const initializer never ends (';' missing)");
        if (t.is('(') || t.is('[')) ++depth;
        if (t.is(')') || t.is(']')) --depth;
        next();
      }
      c.init.end = i_;
      if (c.init.empty()) fail(cur(), "const initializer is empty");
      next();
      m_.consts.push_back(c);
    } else if (k == "var") {
      parse_var(attrs);
    } else if (k == "fn") {
      next();
      // Skip the header (parameters, return type and its attributes) then the body by brace
      // matching: layout needs nothing inside functions.
      while (!cur().is('{')) {
        if (cur().kind == Tok::End || cur().is(';') || cur().is('}'))
          fail(kw, fmt::format("function declared here has no body, found {}", describe(cur())));
        next();
      }
      parse_function_body();
    } else {
      fail(kw, fmt::format("expected a module-scope declaration (struct, alias, const, var, fn, ...), found {}",
                           describe(kw)));
    }
  }

  void parse_struct() {
    next();  // struct
    StructAst s;
    s.name_tok = expect_name("a struct");
    expect('{', fmt::format("to open struct '{}'", t_[s.name_tok].text));
    while (!cur().is('}')) {
      Attrs a = parse_attributes();
      MemberAst mem;
      mem.name_tok = expect_name(fmt::format("a member of struct '{}'", t_[s.name_tok].text));
      expect(':', fmt::format("after member '{}'", t_[mem.name_tok].text));
      mem.type = parse_type(0);
      mem.align = a.align;
      mem.size = a.size;
      s.members.push_back(std::move(mem));
      if (cur().is(',')) {
        next();
        continue;
      }
      if (!cur().is('}'))
        fail(cur(), fmt::format("expected ',' or '}}' after member '{}' of struct '{}', found {}",
                                t_[s.members.back().name_tok].text, t_[s.name_tok].text, describe(cur())));
    }
    next();  // }
    m_.structs.push_back(std::move(s));
  }

  /// Walks a function body by brace matching; records every `var` declared in it (WGSL §7.3: a
  /// function-scope variable) with its address space and type, leaving initializers to the walk.
  void parse_function_body() {
    const Token& start = cur();
    expect('{', "");
    int depth = 1;
    while (true) {
      const Token& t = cur();
      if (t.kind == Tok::End) fail(start, "'{' opened here is never closed");
      if (t.is_ident("var")) {
        VarAst v;
        parse_var_header(v);
        m_.function_vars.push_back(std::move(v));
        continue;
      }
      if (t.is('{')) ++depth;
      if (t.is('}') && --depth == 0) break;
      next();
    }
    next();
  }

  /// `var` [`<` space [`,` access] `>`] name [`:` type]; the current token is `var`.
  void parse_var_header(VarAst& v) {
    v.var_tok = i_;
    next();  // var
    if (cur().is('<')) {
      next();
      v.space_tok = expect_ident("an address space in 'var<...>'");
      if (cur().is(',')) {
        next();
        if (!cur().is('>')) v.access_tok = expect_ident("an access mode (read, read_write)");
        if (cur().is(',')) next();
      }
      expect('>', "to close 'var<'");
    }
    v.name_tok = expect_name("a variable");
    if (cur().is(':')) {
      next();
      v.type = parse_type(0);
    }
  }

  void parse_var(const Attrs& attrs) {
    VarAst v;
    parse_var_header(v);
    v.group = attrs.group;
    v.binding = attrs.binding;
    if (cur().is('=')) skip_to_semicolon(t_[v.var_tok]);
    else expect(';', fmt::format("after variable '{}'", t_[v.name_tok].text));
    m_.vars.push_back(std::move(v));
  }

  ModuleAst& m_;
  const std::vector<Token>& t_;
  uint32_t i_ = 0;
};

}  // namespace

ModuleAst parse_module(std::string_view source, std::vector<ReflectionError>& errors) {
  ModuleAst m;
  LexResult lexed = lex(source);
  m.tokens = std::move(lexed.tokens);
  if (lexed.error) {
    errors.push_back(*lexed.error);
    return m;
  }
  try {
    Parser(m).parse();
  } catch (const SyntaxError& e) {
    errors.push_back(e.error);
  }
  return m;
}

}  // namespace bindery::wgsl
