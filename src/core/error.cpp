// SPDX-License-Identifier: MIT
#include "bindery/core/error.hpp"

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

std::string escape_for_message(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 0xf];
        } else {
          out += ch;
        }
    }
  }
  return out;
}

void rethrow_with_context(const Error& e, std::string_view context) {
  throw Error(e.kind(), "while " + std::string(context) + ": " + e.what());
}

}  // namespace bindery
