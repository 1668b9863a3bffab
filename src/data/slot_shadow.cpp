// SPDX-License-Identifier: MIT
// The CPU core of the per-draw data arenas (dynamic_uniform_buffer.hpp): slot/chunk arithmetic,
// the shadow copy, dirty marks and the upload plan. No WebGPU calls here.
#include "bindery/data/align.hpp"
#include "bindery/data/dynamic_uniform_buffer.hpp"
#include "bindery/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string_view>

namespace bindery {

uint32_t SlotLayout::chunk_count(uint32_t slot_count) const {
  if (slot_count == 0) return 0;
  return (slot_count - 1) / slots_per_chunk + 1;
}

uint32_t SlotLayout::slots_in_chunk(uint32_t chunk, uint32_t slot_count) const {
  const uint64_t first = uint64_t(chunk) * slots_per_chunk;
  if (first >= slot_count) return 0;
  return static_cast<uint32_t>(std::min<uint64_t>(slots_per_chunk, slot_count - first));
}

uint64_t SlotLayout::chunk_size_bytes(uint32_t chunk, uint32_t slot_count) const {
  return uint64_t(slots_in_chunk(chunk, slot_count)) * stride;
}

uint64_t SlotLayout::upload_size_bytes() const {
  return align_to(element_size, 4);
}

namespace {

std::string_view binding_limit_name(BindingKind kind) {
  return kind == BindingKind::uniform_buffer ? "maxUniformBufferBindingSize"
                                             : "maxStorageBufferBindingSize";
}

}  // namespace

SlotLayout arena_slot_layout(const ArenaSpec& spec, const Limits& limits) {
  if (!is_buffer(spec.kind))
    throw Error(ErrorKind::InvalidArgument, "arena_slot_layout: the binding kind is not a buffer");
  if (spec.element_size_bytes == 0)
    throw Error(ErrorKind::InvalidArgument, "arena_slot_layout: element size is 0 bytes");
  const bool uniform = spec.kind == BindingKind::uniform_buffer;
  const uint64_t max_binding =
      uniform ? limits.maxUniformBufferBindingSize : limits.maxStorageBufferBindingSize;
  const ErrorKind too_large =
      uniform ? ErrorKind::UniformBindingTooLarge : ErrorKind::StorageBindingTooLarge;
  SlotLayout l;
  l.element_size = spec.element_size_bytes;

  if (spec.addressing == SlotAddressing::dynamic_offset) {
    // The binding window is one element, moved by the dynamic offset.
    if (spec.element_size_bytes > max_binding)
      throw Error(too_large,
                  fmt::format("element size {} bytes exceeds {} ({})", spec.element_size_bytes,
                              binding_limit_name(spec.kind), max_binding));
    // The stride is the device's alignment (a power of two); also keep it a multiple of 4 so
    // every slot can be a writeBuffer target.
    l.stride = align_to(uniform ? dynamic_uniform_stride(spec.element_size_bytes, limits)
                                : dynamic_storage_stride(spec.element_size_bytes, limits),
                        4);
    if (l.stride > limits.maxBufferSize)
      throw Error(ErrorKind::BufferTooLarge,
                  fmt::format("one slot of stride {} bytes exceeds maxBufferSize ({})", l.stride,
                              limits.maxBufferSize));
    // As many slots as fit maxBufferSize, and no more than a uint32_t dynamic offset can reach:
    // the last slot's offset (n - 1) x stride must be <= UINT32_MAX.
    const uint64_t by_buffer = limits.maxBufferSize / l.stride;
    const uint64_t by_offset = uint64_t(UINT32_MAX) / l.stride + 1;
    l.slots_per_chunk =
        static_cast<uint32_t>(std::min({by_buffer, by_offset, uint64_t(UINT32_MAX)}));
    return l;
  }

  l.stride = spec.array_stride_bytes == 0 ? spec.element_size_bytes : spec.array_stride_bytes;
  if (l.stride < spec.element_size_bytes || l.stride % 4 != 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("element size {} bytes with array stride {} bytes: need a stride >= "
                            "the element and a multiple of 4 (binding sizes and writeBuffer work "
                            "in 4-byte units)",
                            spec.element_size_bytes, l.stride));
  // One binding covers a whole chunk: at most the binding limit and maxBufferSize, rounded down
  // to 4 so the binding size stays a multiple of 4.
  const uint64_t window = std::min(max_binding, limits.maxBufferSize) & ~uint64_t(3);
  if (l.stride > window) {
    const bool by_buffer = limits.maxBufferSize < max_binding;
    throw Error(
        by_buffer ? ErrorKind::BufferTooLarge : too_large,
        fmt::format("one element of stride {} bytes exceeds {} ({})", l.stride,
                    by_buffer ? std::string_view("maxBufferSize") : binding_limit_name(spec.kind),
                    by_buffer ? limits.maxBufferSize : max_binding));
  }
  l.slots_per_chunk = static_cast<uint32_t>(std::min<uint64_t>(window / l.stride, UINT32_MAX));
  return l;
}

SlotLayout dynamic_uniform_slot_layout(uint64_t element_size_bytes, const Limits& limits) {
  return with_context("DynamicUniformBuffer slot layout", [&] {
    return arena_slot_layout({.kind = BindingKind::uniform_buffer,
                              .addressing = SlotAddressing::dynamic_offset,
                              .element_size_bytes = element_size_bytes},
                             limits);
  });
}

SlotShadow::SlotShadow(const SlotLayout& layout, uint32_t slot_count) : layout_(layout) {
  if (layout.element_size == 0 || layout.stride < layout.element_size || layout.stride % 4 != 0 ||
      layout.slots_per_chunk == 0) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("SlotShadow: invalid slot layout (element {} bytes, stride {} bytes, "
                            "{} slots per chunk): need element > 0, stride >= element, stride a "
                            "multiple of 4, slots per chunk > 0",
                            layout.element_size, layout.stride, layout.slots_per_chunk));
  }
  resize(slot_count);
  dirty_list_.clear();
  std::fill(dirty_flag_.begin(), dirty_flag_.end(), 0);
  all_dirty_ = false;
}

void SlotShadow::check_slot(uint32_t slot, const char* call) const {
  if (slot >= slot_count_) {
    throw Error(
        ErrorKind::InvalidArgument,
        fmt::format("{}: slot {} is out of range (slot count {})", call, slot, slot_count_));
  }
}

std::span<std::byte> SlotShadow::slot_data(uint32_t slot) {
  check_slot(slot, "slot_data");
  return {bytes_.data() + uint64_t(slot) * layout_.stride, layout_.element_size};
}

std::span<const std::byte> SlotShadow::slot_data(uint32_t slot) const {
  check_slot(slot, "slot_data");
  return {bytes_.data() + uint64_t(slot) * layout_.stride, layout_.element_size};
}

void SlotShadow::mark_dirty(uint32_t slot) {
  check_slot(slot, "mark_dirty");
  if (all_dirty_ || dirty_flag_[slot]) return;
  dirty_flag_[slot] = 1;
  dirty_list_.push_back(slot);
}

void SlotShadow::mark_dirty_range(uint32_t first, uint32_t last) {
  if (first > last || last > slot_count_) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("mark_dirty_range: slots [{}, {}) are not a range inside the slot "
                            "count {}",
                            first, last, slot_count_));
  }
  if (all_dirty_) return;
  if (first == 0 && last == slot_count_ && last > 0) {
    mark_all_dirty();
    return;
  }
  for (uint32_t s = first; s < last; ++s) {
    if (dirty_flag_[s]) continue;
    dirty_flag_[s] = 1;
    dirty_list_.push_back(s);
  }
}

void SlotShadow::write(uint32_t slot, std::span<const std::byte> bytes, uint64_t offset_bytes) {
  check_slot(slot, "write");
  if (offset_bytes > layout_.element_size || bytes.size() > layout_.element_size - offset_bytes) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("write: slot {}: {} bytes at offset {} exceed the element size {}",
                            slot, bytes.size(), offset_bytes, layout_.element_size));
  }
  if (!bytes.empty()) {
    std::memcpy(bytes_.data() + uint64_t(slot) * layout_.stride + offset_bytes, bytes.data(),
                bytes.size());
  }
  mark_dirty(slot);
}

void SlotShadow::mark_all_dirty() {
  all_dirty_ = slot_count_ > 0;
}

bool SlotShadow::is_dirty(uint32_t slot) const {
  check_slot(slot, "is_dirty");
  return all_dirty_ || dirty_flag_[slot] != 0;
}

uint32_t SlotShadow::dirty_count() const {
  return all_dirty_ ? slot_count_ : static_cast<uint32_t>(dirty_list_.size());
}

uint32_t SlotShadow::resize(uint32_t slot_count) {
  const uint32_t old_count = slot_count_;
  if (bytes_.size() != 0 && slot_count == old_count) return chunk_count();
  const uint64_t stride = layout_.stride;
  if (slot_count != 0 && stride > SIZE_MAX / slot_count) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("SlotShadow: {} slots of {} bytes do not fit in memory addressing",
                            slot_count, stride));
  }
  try {
    bytes_.resize(uint64_t(slot_count) * stride, std::byte{0});
    dirty_flag_.resize(slot_count, 0);
  } catch (const std::bad_alloc&) {
    throw Error(
        ErrorKind::OutOfMemory,
        fmt::format("SlotShadow: cannot allocate {} slots of {} bytes", slot_count, stride));
  } catch (const std::length_error&) {
    throw Error(
        ErrorKind::OutOfMemory,
        fmt::format("SlotShadow: cannot allocate {} slots of {} bytes", slot_count, stride));
  }
  slot_count_ = slot_count;
  if (slot_count < old_count) {
    std::erase_if(dirty_list_, [&](uint32_t s) { return s >= slot_count; });
    if (slot_count == 0) all_dirty_ = false;
  }
  // Chunks from min(old, new) / slots_per_chunk on changed size (or appeared / disappeared):
  // their buffers are recreated empty, so their slots must be uploaded again.
  const uint32_t first_changed = std::min(old_count, slot_count) / layout_.slots_per_chunk;
  const uint64_t first_slot = uint64_t(first_changed) * layout_.slots_per_chunk;
  for (uint64_t s = first_slot; s < slot_count; ++s) mark_dirty(static_cast<uint32_t>(s));
  return std::min(first_changed, chunk_count());
}

void SlotShadow::add_range(uint32_t first, uint32_t last) {
  // first and last are in the same chunk.
  UploadRange r;
  r.chunk = layout_.chunk_of(first);
  r.buffer_offset = layout_.offset_in_chunk(first);
  r.shadow_offset = uint64_t(first) * layout_.stride;
  r.size = uint64_t(last - first) * layout_.stride + layout_.upload_size_bytes();
  ranges_.push_back(r);
}

const std::vector<UploadRange>& SlotShadow::take_upload_ranges(const FlushPolicy& policy) {
  ranges_.clear();
  const uint32_t n_dirty = dirty_count();
  if (n_dirty == 0) return ranges_;
  const uint32_t spc = layout_.slots_per_chunk;

  if (all_dirty_) {
    for (uint32_t c = 0, n = chunk_count(); c < n; ++c) {
      const uint32_t first = c * spc;
      add_range(first, first + layout_.slots_in_chunk(c, slot_count_) - 1);
    }
  } else if (double(n_dirty) >= policy.full_upload_fraction * double(slot_count_)) {
    // Most slots changed: one range per chunk from its first to its last dirty slot.
    const uint32_t n_chunks = chunk_count();
    std::vector<uint32_t> lo(n_chunks, UINT32_MAX), hi(n_chunks, 0);
    for (uint32_t s : dirty_list_) {
      const uint32_t c = s / spc;
      lo[c] = std::min(lo[c], s);
      hi[c] = std::max(hi[c], s);
    }
    for (uint32_t c = 0; c < n_chunks; ++c) {
      if (lo[c] != UINT32_MAX) add_range(lo[c], hi[c]);
    }
  } else {
    // Few slots changed: coalesce runs of dirty slots (gaps up to merge_gap_slots clean slots),
    // never across a chunk boundary.
    if (!std::is_sorted(dirty_list_.begin(), dirty_list_.end())) {
      std::sort(dirty_list_.begin(), dirty_list_.end());
    }
    uint32_t first = dirty_list_.front(), last = first;
    for (size_t i = 1; i < dirty_list_.size(); ++i) {
      const uint32_t s = dirty_list_[i];
      const bool near = uint64_t(s) - last <= uint64_t(policy.merge_gap_slots) + 1;
      if (near && s / spc == first / spc) {
        last = s;
      } else {
        add_range(first, last);
        first = last = s;
      }
    }
    add_range(first, last);
  }

  for (uint32_t s : dirty_list_) dirty_flag_[s] = 0;
  dirty_list_.clear();
  all_dirty_ = false;
  return ranges_;
}

}  // namespace bindery
