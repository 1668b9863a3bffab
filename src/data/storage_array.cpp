// SPDX-License-Identifier: MIT
// StorageArray: read-only storage at the natural stride, indexed by instance_index
// (storage_array.hpp).
#include "bindery/data/storage_array.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bindery/core/device.hpp"
#include "bindery/core/error.hpp"

namespace bindery {

SlotLayout storage_array_slot_layout(uint64_t element_size_bytes, uint64_t array_stride_bytes,
                                     const Limits& limits) {
  return with_context("StorageArray slot layout", [&] {
    return arena_slot_layout({.kind = BindingKind::read_only_storage_buffer,
                              .addressing = SlotAddressing::array_index,
                              .element_size_bytes = element_size_bytes,
                              .array_stride_bytes = array_stride_bytes},
                             limits);
  });
}

StorageArray::StorageArray(const Device& device, const StorageArrayDesc& desc)
    : BufferArena(device,
                  Kind{desc.label, BindingKind::read_only_storage_buffer,
                       /*has_dynamic_offset=*/false,
                       WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | desc.extra_usage,
                       desc.binding, desc.visibility, desc.flush_policy, desc.bind_group_layout},
                  with_context(fmt::format("creating StorageArray '{}'", desc.label),
                               [&] {
                                 return storage_array_slot_layout(
                                     desc.element_size, desc.array_stride, device.limits());
                               }),
                  desc.slot_count) {}

uint32_t StorageArray::index_in_chunk(uint32_t slot) const {
  check_slot(slot, "index_in_chunk");
  return slot_layout().index_in_chunk(slot);
}

}  // namespace bindery
