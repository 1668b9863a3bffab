// SPDX-License-Identifier: MIT
// OffsetAllocator: free ranges in two ordered indexes (by offset, by (size, offset)), allocations
// in a hash map. See include/bindery/gpu_driven/offset_allocator.hpp.
#include "bindery/gpu_driven/offset_allocator.hpp"

#include "bindery/core/error.hpp"

#include <fmt/format.h>

namespace bindery::gpu_driven {

OffsetAllocator::OffsetAllocator(uint64_t capacity) : capacity_(capacity) {
  if (capacity > 0) insert_free(0, capacity);
}

void OffsetAllocator::insert_free(uint64_t offset, uint64_t size) {
  free_by_offset_.emplace(offset, size);
  free_by_size_.emplace(size, offset);
}

void OffsetAllocator::erase_free(std::map<uint64_t, uint64_t>::iterator it) {
  free_by_size_.erase({it->second, it->first});
  free_by_offset_.erase(it);
}

std::optional<uint64_t> OffsetAllocator::allocate(uint64_t size) {
  if (size == 0)
    throw Error(ErrorKind::InvalidArgument, "OffsetAllocator::allocate: size 0 (must be >= 1)");
  const auto fit = free_by_size_.lower_bound({size, 0});
  if (fit == free_by_size_.end()) return std::nullopt;
  const uint64_t range_size = fit->first;
  const uint64_t offset = fit->second;
  erase_free(free_by_offset_.find(offset));
  if (range_size > size) insert_free(offset + size, range_size - size);
  allocated_.emplace(offset, size);
  used_ += size;
  return offset;
}

void OffsetAllocator::free(uint64_t offset) {
  const auto a = allocated_.find(offset);
  if (a == allocated_.end())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("OffsetAllocator::free: no allocation starts at offset {}", offset));
  uint64_t begin = offset;
  uint64_t end = offset + a->second;
  used_ -= a->second;
  allocated_.erase(a);
  // The free range after this one starts at `end`; the one before ends at `begin`.
  auto next = free_by_offset_.lower_bound(end);
  if (next != free_by_offset_.end() && next->first == end) {
    end += next->second;
    erase_free(next);
  }
  auto after = free_by_offset_.lower_bound(begin);
  if (after != free_by_offset_.begin()) {
    auto prev = std::prev(after);
    if (prev->first + prev->second == begin) {
      begin = prev->first;
      erase_free(prev);
    }
  }
  insert_free(begin, end - begin);
}

void OffsetAllocator::grow(uint64_t new_capacity) {
  if (new_capacity < capacity_)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("OffsetAllocator::grow: new capacity {} is below the capacity {} (it "
                            "only grows)",
                            new_capacity, capacity_));
  if (new_capacity == capacity_) return;
  uint64_t begin = capacity_;
  if (const uint64_t tail = free_tail(); tail > 0) {
    begin = capacity_ - tail;
    erase_free(free_by_offset_.find(begin));
  }
  insert_free(begin, new_capacity - begin);
  capacity_ = new_capacity;
}

uint64_t OffsetAllocator::largest_free() const {
  return free_by_size_.empty() ? 0 : free_by_size_.rbegin()->first;
}

uint64_t OffsetAllocator::free_tail() const {
  if (free_by_offset_.empty()) return 0;
  const auto& last = *free_by_offset_.rbegin();
  return last.first + last.second == capacity_ ? last.second : 0;
}

uint64_t OffsetAllocator::size_of(uint64_t offset) const {
  const auto a = allocated_.find(offset);
  if (a == allocated_.end())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("OffsetAllocator::size_of: no allocation starts at offset {}", offset));
  return a->second;
}

}  // namespace bindery::gpu_driven
