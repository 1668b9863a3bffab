// SPDX-License-Identifier: MIT
// tests/gpu_driven/unit_model.hpp — the CPU model of a range allocator the offset-allocator and
// mesh-pool tests compare with: one bool per unit, the live allocations by offset, and best fit
// worked out from the maximal free runs (the smallest run that holds the size, the lowest offset
// among equal sizes).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace bindery::gpu_driven {

/// One bool per unit (true: inside an allocation), the allocations by offset.
struct UnitModel {
  std::vector<bool> used;
  std::map<uint64_t, uint64_t> allocations;

  struct Run {
    uint64_t offset = 0, size = 0;
  };
  std::vector<Run> free_runs() const {
    std::vector<Run> runs;
    for (uint64_t i = 0; i < used.size();) {
      if (used[i]) {
        ++i;
        continue;
      }
      uint64_t j = i;
      while (j < used.size() && !used[j]) ++j;
      runs.push_back({i, j - i});
      i = j;
    }
    return runs;
  }
  // Best fit: the smallest run that holds `size`, the lowest offset among equal sizes.
  std::optional<uint64_t> best_fit(uint64_t size) const {
    std::optional<Run> best;
    for (const Run& r : free_runs())
      if (r.size >= size && (!best || r.size < best->size)) best = r;
    if (!best) return std::nullopt;
    return best->offset;
  }
  // Marks [offset, offset + size) used and records the allocation.
  void take(uint64_t offset, uint64_t size) {
    for (uint64_t u = offset; u < offset + size; ++u) used[u] = true;
    allocations[offset] = size;
  }
  // Frees the allocation at `offset`.
  void give_back(uint64_t offset) {
    const uint64_t size = allocations.at(offset);
    for (uint64_t u = offset; u < offset + size; ++u) used[u] = false;
    allocations.erase(offset);
  }
  // Units of the free run that ends at the capacity (0 when the last unit is used).
  uint64_t free_tail() const {
    uint64_t n = 0;
    while (n < used.size() && !used[used.size() - 1 - n]) ++n;
    return n;
  }
};

}  // namespace bindery::gpu_driven
