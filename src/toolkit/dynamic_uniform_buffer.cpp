// DynamicUniformBuffer: the GPU layer over SlotShadow (dynamic_uniform_buffer.hpp).
#include "bindery/dynamic_uniform_buffer.hpp"

#include <fmt/format.h>

#include "bindery/device.hpp"
#include "bindery/error.hpp"
#include "buffer_arena.hpp"

namespace bindery {

namespace {

detail::ArenaBinding arena_binding(const std::string& label, WGPUBufferUsage extra_usage,
                                   WGPUBindGroupLayout layout, uint32_t binding,
                                   uint64_t element_size) {
  detail::ArenaBinding b;
  b.label = label;
  b.usage = WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst | extra_usage;
  b.layout = layout;
  b.binding = binding;
  b.kind = BindingKind::uniform_buffer;
  b.min_binding_size = element_size;
  b.element_binding_size = element_size;  // the element, not the whole buffer (seed 002)
  return b;
}

}  // namespace

DynamicUniformBuffer::DynamicUniformBuffer(const Device& device,
                                           const DynamicUniformBufferDesc& desc)
    : device_(&device),
      label_(desc.label),
      binding_(desc.binding),
      visibility_(desc.visibility),
      policy_(desc.flush_policy),
      extra_usage_(desc.extra_usage),
      shadow_(with_context(
                  fmt::format("creating DynamicUniformBuffer '{}'", desc.label),
                  [&] { return dynamic_uniform_slot_layout(desc.element_size, device.limits()); }),
              desc.slot_count) {
  if (desc.bind_group_layout) {
    layout_ = desc.bind_group_layout;
  } else {
    owned_layout_ = detail::create_single_entry_layout(device, label_, layout_entry());
    layout_ = owned_layout_.get();
  }
  rebuild_chunks_from(0);
}

BindingLayoutEntry DynamicUniformBuffer::layout_entry() const {
  BindingLayoutEntry e;
  e.binding = binding_;
  e.kind = BindingKind::uniform_buffer;
  e.visibility = visibility_;
  e.has_dynamic_offset = true;
  e.min_binding_size = element_size();
  e.name = label_;
  return e;
}

uint32_t DynamicUniformBuffer::dynamic_offset(uint32_t slot) const {
  (void)shadow_.slot_data(slot);  // range check
  return static_cast<uint32_t>(slot_layout().offset_in_chunk(slot));
}

uint32_t DynamicUniformBuffer::chunk_of(uint32_t slot) const {
  (void)shadow_.slot_data(slot);
  return slot_layout().chunk_of(slot);
}

WGPUBindGroup DynamicUniformBuffer::bind_group(uint32_t chunk) const {
  detail::check_chunk(chunk, bind_groups_.size(), "DynamicUniformBuffer::bind_group");
  return bind_groups_[chunk].get();
}

WGPUBuffer DynamicUniformBuffer::buffer(uint32_t chunk) const {
  detail::check_chunk(chunk, buffers_.size(), "DynamicUniformBuffer::buffer");
  return buffers_[chunk].get();
}

uint64_t DynamicUniformBuffer::buffer_size(uint32_t chunk) const {
  detail::check_chunk(chunk, buffer_sizes_.size(), "DynamicUniformBuffer::buffer_size");
  return buffer_sizes_[chunk];
}

WGPUBindGroupEntry DynamicUniformBuffer::bind_group_entry(uint32_t chunk) const {
  return detail::chunk_entry(buffers_, buffer_sizes_,
                             arena_binding(label_, extra_usage_, layout_, binding_, element_size()),
                             chunk);
}

FlushStats DynamicUniformBuffer::flush() {
  return detail::flush_shadow(*device_, shadow_, buffers_, policy_);
}

void DynamicUniformBuffer::resize(uint32_t slot_count) {
  const uint32_t first = shadow_.resize(slot_count);
  if (first < shadow_.chunk_count() || buffers_.size() != shadow_.chunk_count()) {
    rebuild_chunks_from(first);
  }
}

void DynamicUniformBuffer::rebuild_chunks_from(uint32_t first_chunk) {
  detail::rebuild_chunks(*device_, shadow_,
                         arena_binding(label_, extra_usage_, layout_, binding_, element_size()),
                         first_chunk, {buffers_, buffer_sizes_, bind_groups_});
}

}  // namespace bindery
