// StorageArray: read-only storage at the natural stride, indexed by instance_index
// (storage_array.hpp).
#include "bindery/storage_array.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bindery/device.hpp"
#include "bindery/error.hpp"

namespace bindery {


SlotLayout storage_array_slot_layout(uint64_t element_size_bytes, uint64_t array_stride_bytes,
                                     const Limits& limits) {
  const uint64_t stride = array_stride_bytes == 0 ? element_size_bytes : array_stride_bytes;
  if (element_size_bytes == 0 || stride < element_size_bytes || stride % 4 != 0) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("StorageArray: element size {} bytes with array stride {} bytes: need "
                            "an element > 0 and a stride >= the element and a multiple of 4 "
                            "(storage binding sizes and writeBuffer work in 4-byte units)",
                            element_size_bytes, stride));
  }
  // One binding covers a whole chunk: at most maxStorageBufferBindingSize (and maxBufferSize),
  // rounded down to 4 so the binding size stays a multiple of 4.
  const uint64_t max_binding =
      std::min(limits.maxStorageBufferBindingSize, limits.maxBufferSize) & ~uint64_t(3);
  if (stride > max_binding) {
    throw Error(ErrorKind::StorageBindingTooLarge,
                fmt::format("StorageArray: one element of stride {} bytes exceeds "
                            "min(maxStorageBufferBindingSize {}, maxBufferSize {})",
                            stride, limits.maxStorageBufferBindingSize, limits.maxBufferSize));
  }
  SlotLayout l;
  l.element_size = element_size_bytes;
  l.stride = stride;
  l.slots_per_chunk = static_cast<uint32_t>(std::min<uint64_t>(max_binding / stride, UINT32_MAX));
  return l;
}

StorageArray::StorageArray(const Device& device, const StorageArrayDesc& desc)
    : BufferArena(device,
                  Kind{desc.label, BindingKind::read_only_storage_buffer,
                       /*has_dynamic_offset=*/false,
                       WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | desc.extra_usage,
                       desc.binding, desc.visibility, desc.flush_policy, desc.bind_group_layout},
                  with_context(fmt::format("creating StorageArray '{}'", desc.label),
                               [&] {
                                 return storage_array_slot_layout(desc.element_size,
                                                                  desc.array_stride,
                                                                  device.limits());
                               }),
                  desc.slot_count) {}

uint32_t StorageArray::index_in_chunk(uint32_t slot) const {
  check_slot(slot, "index_in_chunk");
  return slot_layout().index_in_chunk(slot);
}

}  // namespace bindery
