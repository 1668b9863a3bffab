// SPDX-License-Identifier: MIT
#include "bindery/error.hpp"

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

void rethrow_with_context(const Error& e, std::string_view context) {
  throw Error(e.kind(), "while " + std::string(context) + ": " + e.what());
}

}  // namespace bindery
