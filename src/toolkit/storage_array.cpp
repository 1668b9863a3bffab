// StorageArray: read-only storage at the natural stride, indexed by instance_index
// (storage_array.hpp).
#include "bindery/storage_array.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bindery/device.hpp"
#include "bindery/error.hpp"
#include "buffer_arena.hpp"

namespace bindery {

namespace {

detail::ArenaBinding arena_binding(const std::string& label, WGPUBufferUsage extra_usage,
                                   WGPUBindGroupLayout layout, uint32_t binding, uint64_t stride) {
  detail::ArenaBinding b;
  b.label = label;
  b.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | extra_usage;
  b.layout = layout;
  b.binding = binding;
  b.kind = BindingKind::read_only_storage_buffer;
  b.min_binding_size = stride;
  b.element_binding_size = 0;  // the whole chunk
  return b;
}

}  // namespace

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
    : device_(&device),
      label_(desc.label),
      binding_(desc.binding),
      visibility_(desc.visibility),
      policy_(desc.flush_policy),
      extra_usage_(desc.extra_usage),
      shadow_(with_context(fmt::format("creating StorageArray '{}'", desc.label),
                           [&] {
                             return storage_array_slot_layout(desc.element_size, desc.array_stride,
                                                              device.limits());
                           }),
              desc.slot_count) {
  if (desc.bind_group_layout) {
    layout_ = desc.bind_group_layout;
  } else {
    owned_layout_ = detail::create_single_entry_layout(device, label_, layout_entry());
    layout_ = owned_layout_.get();
  }
  rebuild_chunks_from(0);
}

BindingLayoutEntry StorageArray::layout_entry() const {
  BindingLayoutEntry e;
  e.binding = binding_;
  e.kind = BindingKind::read_only_storage_buffer;
  e.visibility = visibility_;
  e.has_dynamic_offset = false;
  e.min_binding_size = stride();  // a runtime-sized array counts as one element
  e.name = label_;
  return e;
}

uint32_t StorageArray::chunk_of(uint32_t slot) const {
  (void)shadow_.slot_data(slot);  // range check
  return slot_layout().chunk_of(slot);
}

uint32_t StorageArray::index_in_chunk(uint32_t slot) const {
  (void)shadow_.slot_data(slot);
  return slot_layout().index_in_chunk(slot);
}

WGPUBindGroup StorageArray::bind_group(uint32_t chunk) const {
  detail::check_chunk(chunk, bind_groups_.size(), "StorageArray::bind_group");
  return bind_groups_[chunk].get();
}

WGPUBuffer StorageArray::buffer(uint32_t chunk) const {
  detail::check_chunk(chunk, buffers_.size(), "StorageArray::buffer");
  return buffers_[chunk].get();
}

uint64_t StorageArray::buffer_size(uint32_t chunk) const {
  detail::check_chunk(chunk, buffer_sizes_.size(), "StorageArray::buffer_size");
  return buffer_sizes_[chunk];
}

WGPUBindGroupEntry StorageArray::bind_group_entry(uint32_t chunk) const {
  return detail::chunk_entry(buffers_, buffer_sizes_,
                             arena_binding(label_, extra_usage_, layout_, binding_, stride()),
                             chunk);
}

FlushStats StorageArray::flush() {
  return detail::flush_shadow(*device_, shadow_, buffers_, policy_);
}

void StorageArray::resize(uint32_t slot_count) {
  const uint32_t first = shadow_.resize(slot_count);
  if (first < shadow_.chunk_count() || buffers_.size() != shadow_.chunk_count()) {
    rebuild_chunks_from(first);
  }
}

void StorageArray::rebuild_chunks_from(uint32_t first_chunk) {
  detail::rebuild_chunks(*device_, shadow_,
                         arena_binding(label_, extra_usage_, layout_, binding_, stride()),
                         first_chunk, {buffers_, buffer_sizes_, bind_groups_});
}

}  // namespace bindery
