// SPDX-License-Identifier: MIT
// Seed 004's decision tree (data_placement.hpp).
#include "bindery/data/data_placement.hpp"

#include <fmt/format.h>

namespace bindery {

std::string_view to_string(DataPlacement placement) noexcept {
  switch (placement) {
    case DataPlacement::uniform_buffer: return "uniform_buffer";
    case DataPlacement::dynamic_uniform_buffer: return "dynamic_uniform_buffer";
    case DataPlacement::storage_buffer: return "storage_buffer";
  }
  return "unknown";
}

PlacementAdvice choose_data_placement(const DataUsage& usage, uint64_t uniform_budget_bytes) {
  if (!usage.read_uniformly) {
    return {DataPlacement::storage_buffer,
            "invocations read different addresses (divergent index): storage buffer"};
  }
  if (usage.size_grows_with_scene) {
    return {DataPlacement::storage_buffer,
            "size depends on scene data and may grow: storage buffer, even if it fits today"};
  }
  if (usage.size_bytes > uniform_budget_bytes) {
    return {DataPlacement::storage_buffer,
            fmt::format("{} bytes exceed the uniform budget of {} bytes: storage buffer",
                        usage.size_bytes, uniform_budget_bytes)};
  }
  if (usage.changes_per_draw) {
    return {DataPlacement::dynamic_uniform_buffer,
            "small, read uniformly and different per draw: uniform buffer with a dynamic offset"};
  }
  return {DataPlacement::uniform_buffer,
          "small, read uniformly and shared by the draws: plain uniform buffer"};
}

}  // namespace bindery
