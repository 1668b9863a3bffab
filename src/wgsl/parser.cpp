// SPDX-License-Identifier: MIT
#include "wgsl/parser.hpp"

#include <fmt/format.h>

namespace bindery::wgsl {
namespace {

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
    while (cur().is('@')) {
      next();
      uint32_t name = expect_ident("an attribute name after '@'");
      TokRange args;
      if (cur().is('(')) args = skip_balanced('(', ')');
      std::string_view n = t_[name].text;
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
      skip_to_semicolon(kw);
    } else if (k == "struct") {
      kind = DeclKind::Struct;
      parse_struct();
    } else if (k == "alias") {
      kind = DeclKind::Alias;
      next();
      AliasAst a;
      a.name_tok = expect_ident("an alias name");
      expect('=', "in 'alias' declaration");
      a.type = parse_type(0);
      expect(';', "after 'alias' declaration");
      m_.aliases.push_back(std::move(a));
    } else if (k == "const") {
      kind = DeclKind::Const;
      next();
      ConstAst c;
      c.name_tok = expect_ident("a const name");
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
    s.name_tok = expect_ident("a struct name");
    expect('{', fmt::format("to open struct '{}'", t_[s.name_tok].text));
    while (!cur().is('}')) {
      Attrs a = parse_attributes();
      MemberAst mem;
      mem.name_tok = expect_ident(fmt::format("a member name in struct '{}'", t_[s.name_tok].text));
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
    v.name_tok = expect_ident("a variable name");
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
