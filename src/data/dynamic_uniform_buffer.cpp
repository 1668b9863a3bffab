// SPDX-License-Identifier: MIT
// DynamicUniformBuffer: the GPU layer over SlotShadow (dynamic_uniform_buffer.hpp).
#include "bindery/data/dynamic_uniform_buffer.hpp"

#include <fmt/format.h>

#include "bindery/core/device.hpp"
#include "bindery/core/error.hpp"

namespace bindery {

DynamicUniformBuffer::DynamicUniformBuffer(const Device& device,
                                           const DynamicUniformBufferDesc& desc)
    : BufferArena(device,
                  Kind{desc.label, BindingKind::uniform_buffer, /*has_dynamic_offset=*/true,
                       WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst | desc.extra_usage,
                       desc.binding, desc.visibility, desc.flush_policy, desc.bind_group_layout},
                  with_context(fmt::format("creating DynamicUniformBuffer '{}'", desc.label),
                               [&] {
                                 return dynamic_uniform_slot_layout(desc.element_size,
                                                                    device.limits());
                               }),
                  desc.slot_count) {}

uint32_t DynamicUniformBuffer::dynamic_offset(uint32_t slot) const {
  check_slot(slot, "dynamic_offset");
  return static_cast<uint32_t>(slot_layout().offset_in_chunk(slot));
}

}  // namespace bindery
