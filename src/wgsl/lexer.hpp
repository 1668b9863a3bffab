// SPDX-License-Identifier: MIT
// src/wgsl/lexer.hpp — private: the WGSL tokenizer used by reflect_wgsl().
//
// Splits WGSL source into identifiers, numeric literals and one-character punctuation, skipping
// blankspace, line comments and nested block comments (WGSL §3.2–3.3). `<`, `>` are always single
// tokens: the parser decides template lists versus shifts from adjacency (WGSL §3.9 template
// disambiguation, simplified to what module-scope declarations need). Positions are 1-based
// line and column in Unicode code points; lines count WGSL line breaks (LF, VT, FF, CR not
// followed by LF, CRLF, NEL, LS, PS), each of which also ends a line comment, and U+200E / U+200F
// are blankspace.
#pragma once

#include <bindery/wgsl/wgsl_layout.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace bindery::wgsl {

enum class Tok : uint8_t { Ident, Int, Float, Punct, End };

struct Token {
  Tok kind = Tok::End;
  std::string_view text;  ///< view into the source (Punct: one character; End: empty)
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t pos = 0;  ///< byte offset in the source (adjacency test for `>>`, `<<`, `>=`)

  bool is(char c) const noexcept { return kind == Tok::Punct && text.size() == 1 && text[0] == c; }
  bool is_ident(std::string_view s) const noexcept { return kind == Tok::Ident && text == s; }
};

struct LexResult {
  std::vector<Token> tokens;  ///< always ends with one Tok::End token
  std::optional<ReflectionError> error;  ///< first lexical error (unknown character, open comment)
  bool too_deep = false;  ///< `error` is the nesting limit (kMaxWgslNestingDepth)
};

/// Tokenizes `source`. Never throws; stops at the first lexical error.
LexResult lex(std::string_view source);

}  // namespace bindery::wgsl
