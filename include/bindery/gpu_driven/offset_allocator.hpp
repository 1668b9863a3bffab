// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/offset_allocator.hpp — a range allocator over [0, capacity) units, the
/// bookkeeping under the mesh pool (one per buffer: vertices, indices).
///
/// Free space is kept as disjoint ranges, indexed twice: by offset (to find and merge neighbours
/// when a range is freed) and by (size, offset) (to find the best fit). allocate() takes the
/// smallest free range that fits, the lowest offset among equal sizes, and hands out its front;
/// free() gives a range back and merges it with a free neighbour on either side, so free space
/// never splinters into adjacent pieces. Every operation is O(log n) in the number of free ranges
/// and allocations. CPU only: no device, no limits read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

namespace bindery::gpu_driven {

/// A range allocator over [0, capacity) units (the unit is the caller's: vertices, indices,
/// bytes): best fit over the free ranges, neighbours coalesced on free. Not thread-safe.
class OffsetAllocator {
 public:
  /// An allocator whose whole [0, capacity) is one free range (none when capacity is 0).
  explicit OffsetAllocator(uint64_t capacity);

  /// The offset of a new range of `size` units taken from the smallest free range that holds it
  /// (lowest offset among equal sizes), or nullopt when no free range is that large. Throws
  /// InvalidArgument when `size` is 0.
  std::optional<uint64_t> allocate(uint64_t size);
  /// Gives back the range allocated at `offset` and merges it with free neighbours. Throws
  /// InvalidArgument when no allocation starts at `offset`.
  void free(uint64_t offset);
  /// Extends the capacity to `new_capacity` units; the added units join a free range that ends at
  /// the old capacity, if any. Allocations keep their offsets. Throws InvalidArgument when
  /// `new_capacity` is below capacity() (equal: nothing changes).
  void grow(uint64_t new_capacity);

  /// Units managed, [0, capacity).
  uint64_t capacity() const { return capacity_; }
  /// Units inside allocations.
  uint64_t used() const { return used_; }
  /// Units of the largest free range (0 when nothing is free): the largest allocate() that
  /// succeeds.
  uint64_t largest_free() const;
  /// Number of disjoint free ranges (after coalescing: no two of them touch).
  size_t free_ranges() const { return free_by_offset_.size(); }
  /// Units of the free range that ends at capacity() (0 when the last unit is allocated): what
  /// grow() merges with.
  uint64_t free_tail() const;
  /// The size of the allocation that starts at `offset`. Throws InvalidArgument when none does.
  uint64_t size_of(uint64_t offset) const;
  /// Number of live allocations.
  size_t allocations() const { return allocated_.size(); }

 private:
  void insert_free(uint64_t offset, uint64_t size);
  void erase_free(std::map<uint64_t, uint64_t>::iterator it);

  uint64_t capacity_ = 0;
  uint64_t used_ = 0;
  std::map<uint64_t, uint64_t> free_by_offset_;         // offset -> size
  std::set<std::pair<uint64_t, uint64_t>> free_by_size_;  // (size, offset)
  std::unordered_map<uint64_t, uint64_t> allocated_;      // offset -> size
};

}  // namespace bindery::gpu_driven
