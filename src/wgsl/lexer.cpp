#include "wgsl/lexer.hpp"

#include <fmt/format.h>

namespace bindery::wgsl {
namespace {

bool is_ident_start(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80; }
bool is_ident_char(unsigned char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_hex(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

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

constexpr std::string_view kPunct = "@(){}[],;:=+-*/%&|^~!.<>";

}  // namespace

LexResult lex(std::string_view src) {
  LexResult out;
  uint32_t line = 1, column = 1;
  size_t i = 0;
  // Advances over src[i], keeping line and column (code points: UTF-8 continuation bytes do not
  // start a new column).
  auto advance = [&] {
    unsigned char c = static_cast<unsigned char>(src[i]);
    if (c == '\n') {
      ++line;
      column = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++column;
    }
    ++i;
  };
  auto fail = [&](uint32_t l, uint32_t c, std::string msg) {
    out.error = ReflectionError{l, c, ErrorKind::WgslSyntax, std::move(msg)};
  };

  while (i < src.size()) {
    unsigned char c = static_cast<unsigned char>(src[i]);
    // Blankspace (WGSL §3.2; the non-ASCII blankspace code points are rare and treated as ident
    // bytes, which later fails as an unknown name rather than crashing).
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      advance();
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      while (i < src.size() && src[i] != '\n') advance();
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
    if (is_digit(c) || (c == '.' && i + 1 < src.size() && is_digit(static_cast<unsigned char>(src[i + 1])))) {
      bool hex = c == '0' && i + 1 < src.size() && (src[i + 1] == 'x' || src[i + 1] == 'X');
      if (hex) {
        advance();
        advance();
      }
      while (i < src.size()) {
        unsigned char d = static_cast<unsigned char>(src[i]);
        if (is_ident_char(d) || d == '.') {
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
      while (i < src.size() && is_ident_char(static_cast<unsigned char>(src[i]))) advance();
      t.text = src.substr(start, i - start);
      t.kind = Tok::Ident;
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
