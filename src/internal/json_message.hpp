// SPDX-License-Identifier: MIT
// src/internal/json_message.hpp — nlohmann_json's exception text without its
// "[json.exception.KIND.N] " prefix, for bindery's own error lines (plan and glTF input).
// Internal: see src/internal/README.md for who may include it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace bindery {

/// e.what() without the leading "[json.exception.KIND.N] " (unchanged when there is none).
inline std::string json_message(const nlohmann::json::exception& e) {
  std::string what = e.what();
  if (const size_t at = what.find("] "); !what.empty() && what[0] == '[' && at != what.npos)
    what.erase(0, at + 2);
  return what;
}

}  // namespace bindery
