// SPDX-License-Identifier: MIT
#include "wgsl/lexer.hpp"

#include "wgsl/xid_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

namespace bindery::wgsl {
namespace {

bool is_ident_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool is_ident_char(unsigned char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}
bool is_digit(unsigned char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(unsigned char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/// Decimal or hexadecimal integer literal with an optional i/u suffix (WGSL §3.4 int_literal).
bool is_int_literal(std::string_view t) {
  if (!t.empty() && (t.back() == 'i' || t.back() == 'u')) t.remove_suffix(1);
  if (t.empty()) return false;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    for (size_t i = 2; i < t.size(); ++i)
      if (!is_hex(t[i])) return false;
    return true;
  }
  if (t.size() > 1 && t[0] == '0') return false;  // no leading zeros
  for (char c : t)
    if (!is_digit(c)) return false;
  return true;
}

bool in_table(const CodePointRange* first, const CodePointRange* last, uint32_t cp) {
  const CodePointRange* it = std::upper_bound(
      first, last, cp, [](uint32_t v, const CodePointRange& r) { return v < r.first; });
  return it != first && cp <= std::prev(it)->last;
}

bool xid_start(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  return in_table(std::begin(kXidStart), std::end(kXidStart), cp);
}

bool xid_continue(uint32_t cp) {
  if (cp < 0x80)
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
           cp == '_';
  return in_table(std::begin(kXidContinue), std::end(kXidContinue), cp);
}

/// Decodes the UTF-8 code point at text[i] (advancing i), or nullopt for malformed UTF-8
/// (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF).
std::optional<uint32_t> next_code_point(std::string_view text, size_t& i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = b(i);
  size_t n = c < 0x80             ? 1
             : (c & 0xE0) == 0xC0 ? 2
             : (c & 0xF0) == 0xE0 ? 3
             : (c & 0xF8) == 0xF0 ? 4
                                  : 0;
  if (n == 0 || i + n > text.size()) return std::nullopt;
  uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
  i += n;
  return cp;
}

/// Why the identifier `text` is not a WGSL ident_pattern_token (§3.5: XID_Start XID_Continue*,
/// or '_' XID_Continue+), with the 0-based code point index of the offending character, or
/// nullopt when it is one.
std::optional<std::pair<uint32_t, std::string>> identifier_fault(std::string_view text) {
  size_t i = 0;
  uint32_t index = 0;
  while (i < text.size()) {
    const std::optional<uint32_t> cp = next_code_point(text, i);
    if (!cp) return std::pair{index, std::string("is not well-formed UTF-8")};
    const bool first = index == 0;
    const bool ok = first ? (xid_start(*cp) || *cp == '_') : xid_continue(*cp);
    if (!ok)
      return std::pair{index, fmt::format("U+{:04X} is not {} (WGSL identifiers are XID_Start "
                                          "XID_Continue*, or '_' XID_Continue+; §3.5)",
                                          *cp, first ? "XID_Start" : "XID_Continue")};
    ++index;
  }
  return std::nullopt;
}

constexpr std::string_view kPunct = "@(){}[],;:=+-*/%&|^~!.<>";

/// Length in bytes of the WGSL line break starting at src[i], 0 when there is none (WGSL §3.2
/// "line break": LF, VT, FF, CR not followed by LF, CRLF, NEL U+0085, LS U+2028, PS U+2029).
size_t line_break_at(std::string_view src, size_t i) {
  const auto b = [&](size_t k) { return k < src.size() ? static_cast<unsigned char>(src[k]) : 0u; };
  switch (b(i)) {
    case '\n':
    case '\v':
    case '\f':
      return 1;
    case '\r':
      return b(i + 1) == '\n' ? 2 : 1;
    case 0xC2:
      return b(i + 1) == 0x85 ? 2 : 0;  // NEL
    case 0xE2:
      return b(i + 1) == 0x80 && (b(i + 2) == 0xA8 || b(i + 2) == 0xA9) ? 3 : 0;  // LS, PS
    default:
      return 0;
  }
}

/// Length in bytes of blankspace that is not a line break at src[i] (space, tab, U+200E
/// left-to-right mark, U+200F right-to-left mark; WGSL §3.2), 0 when there is none.
size_t blank_at(std::string_view src, size_t i) {
  const auto b = [&](size_t k) { return k < src.size() ? static_cast<unsigned char>(src[k]) : 0u; };
  if (b(i) == ' ' || b(i) == '\t') return 1;
  if (b(i) == 0xE2 && b(i + 1) == 0x80 && (b(i + 2) == 0x8E || b(i + 2) == 0x8F)) return 3;
  return 0;
}

/// The nesting depth at each token (kMaxWgslNestingDepth): open brackets, open template lists
/// (a '<' right after an identifier, closed by '>' and forgotten at ';', '{', '}') and the run of
/// prefix operators ('-' '!' '~' '&' '*') in a row. Counting happens in the lexer so that every
/// consumer of the tokens (bindery's parser, the implementation's compiler under --verify) sees
/// bounded nesting; a '<' that is a comparison only overcounts until the statement ends.
class NestingMeter {
 public:
  /// Adds `t` (after `prev`, null for the first token); false when the depth exceeds the limit.
  bool add(const Token& t, const Token* prev) {
    if (t.kind != Tok::Punct) {
      prefix_run_ = 0;
      return true;
    }
    const char c = t.text[0];
    if (c == '-' || c == '!' || c == '~' || c == '&' || c == '*') {
      ++prefix_run_;
    } else {
      prefix_run_ = 0;
    }
    if (c == '(' || c == '[' || c == '{') ++brackets_;
    if ((c == ')' || c == ']' || c == '}') && brackets_ > 0) --brackets_;
    if (c == ';' || c == '{' || c == '}') templates_ = 0;
    if (c == '<' && prev && prev->kind == Tok::Ident) ++templates_;
    if (c == '>' && templates_ > 0) --templates_;
    return uint64_t{brackets_} + templates_ + prefix_run_ <= kMaxWgslNestingDepth;
  }

 private:
  uint32_t brackets_ = 0, templates_ = 0, prefix_run_ = 0;
};

}  // namespace

LexResult lex(std::string_view src) {
  LexResult out;
  NestingMeter nesting;
  uint32_t line = 1, column = 1;
  size_t i = 0;
  // Advances over src[i], keeping line and column (columns count code points: UTF-8 continuation
  // bytes do not start a new column; lines count WGSL line breaks, a CRLF pair being one).
  auto advance = [&] {
    if (size_t n = line_break_at(src, i)) {
      i += n;
      ++line;
      column = 1;
      return;
    }
    unsigned char c = static_cast<unsigned char>(src[i]);
    if ((c & 0xC0) != 0x80) ++column;
    ++i;
  };
  auto fail = [&](uint32_t l, uint32_t c, std::string msg) {
    out.error = ReflectionError{l, c, ErrorKind::WgslSyntax, std::move(msg)};
  };

  while (i < src.size()) {
    unsigned char c = static_cast<unsigned char>(src[i]);
    // Blankspace and line breaks (WGSL §3.2).
    if (line_break_at(src, i)) {
      advance();
      continue;
    }
    if (size_t n = blank_at(src, i)) {
      column += 1;
      i += n;
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      // A line comment ends at any line break (WGSL §3.3), which is not part of it.
      while (i < src.size() && !line_break_at(src, i)) advance();
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      // Block comments nest (WGSL §3.3).
      uint32_t l0 = line, c0 = column;
      advance();
      advance();
      int depth = 1;
      while (i < src.size() && depth > 0) {
        if (src[i] == '/' && i + 1 < src.size() && src[i + 1] == '*') {
          advance();
          advance();
          ++depth;
        } else if (src[i] == '*' && i + 1 < src.size() && src[i + 1] == '/') {
          advance();
          advance();
          --depth;
        } else {
          advance();
        }
      }
      if (depth > 0) {
        fail(l0, c0, "block comment opened here is never closed ('*/' missing)");
        break;
      }
      continue;
    }

    Token t;
    t.line = line;
    t.column = column;
    t.pos = static_cast<uint32_t>(i);
    size_t start = i;
    if (is_digit(c) ||
        (c == '.' && i + 1 < src.size() && is_digit(static_cast<unsigned char>(src[i + 1])))) {
      bool hex = c == '0' && i + 1 < src.size() && (src[i + 1] == 'x' || src[i + 1] == 'X');
      if (hex) {
        advance();
        advance();
      }
      while (i < src.size()) {
        unsigned char d = static_cast<unsigned char>(src[i]);
        if ((is_ident_char(d) || d == '.') && !line_break_at(src, i) && !blank_at(src, i)) {
          advance();
        } else if ((d == '+' || d == '-') && i > start) {
          char prev = src[i - 1];
          bool exp = hex ? (prev == 'p' || prev == 'P') : (prev == 'e' || prev == 'E');
          if (!exp) break;
          advance();
        } else {
          break;
        }
      }
      t.text = src.substr(start, i - start);
      t.kind = is_int_literal(t.text) ? Tok::Int : Tok::Float;
    } else if (is_ident_start(c)) {
      while (i < src.size() && is_ident_char(static_cast<unsigned char>(src[i])) &&
             !line_break_at(src, i) && !blank_at(src, i))
        advance();
      t.text = src.substr(start, i - start);
      t.kind = Tok::Ident;
      if (std::any_of(t.text.begin(), t.text.end(), [](char ch) { return (ch & 0x80) != 0; })) {
        if (auto fault = identifier_fault(t.text)) {
          fail(t.line, t.column + fault->first,
               fmt::format("identifier '{}': character {} {}", t.text, fault->first + 1,
                           fault->second));
          break;
        }
      }
    } else if (kPunct.find(static_cast<char>(c)) != std::string_view::npos && c != 0) {
      advance();
      t.text = src.substr(start, 1);
      t.kind = Tok::Punct;
    } else {
      fail(line, column,
           c >= 0x20 && c < 0x7F ? fmt::format("unexpected character '{}'", static_cast<char>(c))
                                 : fmt::format("unexpected byte 0x{:02X}", c));
      break;
    }
    if (!nesting.add(t, out.tokens.empty() ? nullptr : &out.tokens.back())) {
      fail(t.line, t.column,
           fmt::format("nesting deeper than {} levels (brackets '(' '[' '{{', template lists and "
                       "prefix operators count together): bindery's limit, so that no parser, "
                       "its own or a shader compiler's, can exhaust its stack",
                       kMaxWgslNestingDepth));
      out.too_deep = true;
      break;
    }
    out.tokens.push_back(t);
  }
  Token end;
  end.kind = Tok::End;
  end.line = line;
  end.column = column;
  end.pos = static_cast<uint32_t>(i);
  out.tokens.push_back(end);
  return out;
}

}  // namespace bindery::wgsl

namespace bindery {

std::optional<ReflectionError> wgsl_nesting_error(std::string_view source) {
  wgsl::LexResult lexed = wgsl::lex(source);
  if (lexed.too_deep) return lexed.error;
  return std::nullopt;
}

}  // namespace bindery
