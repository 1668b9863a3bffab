// SPDX-License-Identifier: MIT
#include "bindery/core/error.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>

namespace bindery {

std::string_view to_string(ErrorKind kind) noexcept {
  switch (kind) {
#define BINDERY_X(name, meaning) \
  case ErrorKind::name:          \
    return #name;
    BINDERY_ERROR_KINDS(BINDERY_X)
#undef BINDERY_X
  }
  return "Unknown";
}

namespace {

// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong form, no surrogate, at
// most U+10FFFF) of at least two bytes starting at text[i], or 0; a C1 control (U+0080-U+009F)
// counts as not well-formed here, so that its bytes are escaped.
size_t utf8_sequence(std::string_view text, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = b(0);
  const size_t n = lead >= 0xc2 && lead <= 0xdf   ? 2
                   : lead >= 0xe0 && lead <= 0xef ? 3
                   : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                  : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(k) & 0xc0) != 0x80) return 0;
  if ((lead == 0xe0 && b(1) < 0xa0) || (lead == 0xed && b(1) > 0x9f) ||  // overlong, surrogate
      (lead == 0xf0 && b(1) < 0x90) || (lead == 0xf4 && b(1) > 0x8f) ||  // overlong, > U+10FFFF
      (lead == 0xc2 && b(1) <= 0x9f))                                    // C1 control
    return 0;
  return n;
}

// The code point of the well-formed sequence of n bytes at text[i].
uint32_t code_point(std::string_view text, size_t i, size_t n) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  uint32_t cp = n == 2 ? (b(0) & 0x1f) : n == 3 ? (b(0) & 0x0f) : (b(0) & 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (b(k) & 0x3f);
  return cp;
}

// Invisible format characters (Unicode general category Cf) that reorder or hide text on a
// terminal: the soft hyphen, the bidirectional marks, embeddings, overrides and isolates (U+061C,
// U+200E-U+200F, U+202A-U+202E, U+2066-U+2069), zero-width characters (U+200B-U+200D, U+2060-
// U+2064, U+FEFF), U+180E, U+206A-U+206F and the interlinear annotations U+FFF9-U+FFFB.
bool is_format_character(uint32_t cp) {
  return cp == 0xad || cp == 0x61c || cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) ||
         (cp >= 0x2066 && cp <= 0x206f) || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb);
}

// escape_for_message() and escape_controls(): the same but for the backslash.
std::string escape(std::string_view text, bool backslash) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '\\': out += backslash ? "\\\\" : "\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c >= 0x80) {
          if (const size_t n = utf8_sequence(text, i); n > 0) {
            if (const uint32_t cp = code_point(text, i, n); is_format_character(cp))
              out += fmt::format("\\u{{{:04X}}}", cp);  // seen, not obeyed: \u{202E}
            else
              out.append(text.substr(i, n));
            i += n - 1;
            break;
          }
        }
        if (c < 0x20 || c >= 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 0xf];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

}  // namespace

std::string escape_for_message(std::string_view text) {
  if (text.size() <= kMaxQuotedBytes) return escape(text, true);
  // Cut before a UTF-8 sequence that would not fit whole (continuation bytes are 10xxxxxx).
  size_t cut = kMaxQuotedBytes;
  for (int back = 0; back < 3 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80; ++back)
    --cut;
  return escape(text.substr(0, cut), true) + fmt::format("... ({} bytes in all)", text.size());
}

std::string escape_controls(std::string_view text) { return escape(text, false); }

void rethrow_with_context(const Error& e, std::string_view context) {
  // A context around another reads "while A (in B): what", not "while A: while B: what".
  const std::string_view what = e.what();
  constexpr std::string_view kWhile = "while ";
  const size_t colon = what.find(": ");
  if (what.substr(0, kWhile.size()) == kWhile && colon != std::string_view::npos)
    throw Error(e.kind(), fmt::format("while {} (in {}): {}", context,
                                      what.substr(kWhile.size(), colon - kWhile.size()),
                                      what.substr(colon + 2)));
  throw Error(e.kind(), "while " + std::string(context) + ": " + std::string(what));
}

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  size_t best_d = SIZE_MAX;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(typed, c);
    if (d < best_d) best = &c, best_d = d;
  }
  if (!best || best_d > std::max<size_t>(2, typed.size() / 3)) return {};
  return " (did you mean '" + escape_for_message(*best) + "'?)";
}

}  // namespace bindery
