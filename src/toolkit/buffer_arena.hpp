// Private to src/toolkit: what DynamicUniformBuffer and StorageArray share on the GPU side —
// a single-entry bind group layout, one buffer + bind group per chunk, and flush() as
// writeBuffer calls over SlotShadow's upload ranges.
#pragma once

#include "bindery/device.hpp"
#include "bindery/dynamic_uniform_buffer.hpp"
#include "bindery/gpu.hpp"

#include <string>
#include <vector>

namespace bindery::detail {

/// The GPU objects of an arena, one per chunk (references to the owner's members).
struct ArenaChunks {
  std::vector<gpu::Buffer>& buffers;
  std::vector<uint64_t>& sizes;
  std::vector<gpu::BindGroup>& bind_groups;
};

/// What a chunk's buffer and bind group look like.
struct ArenaBinding {
  std::string label;
  WGPUBufferUsage usage = WGPUBufferUsage_None;
  WGPUBindGroupLayout layout = nullptr;
  uint32_t binding = 0;
  BindingKind kind = BindingKind::uniform_buffer;
  uint64_t min_binding_size = 0;
  /// Binding size: the element (dynamic offsets) or 0 for the whole chunk (storage arrays).
  uint64_t element_binding_size = 0;
};

/// createBindGroupLayout with one buffer entry made from `entry`.
gpu::BindGroupLayout create_single_entry_layout(const Device& device, const std::string& label,
                                                const BindingLayoutEntry& entry);

/// The bind group entry of a chunk (offset 0; the element or the whole chunk).
WGPUBindGroupEntry chunk_entry(const std::vector<gpu::Buffer>& buffers,
                               const std::vector<uint64_t>& sizes, const ArenaBinding& b,
                               uint32_t chunk);

/// Drops chunks >= first and creates buffers + bind groups for chunks [first, chunk_count).
void rebuild_chunks(const Device& device, const SlotShadow& shadow, const ArenaBinding& b,
                    uint32_t first, ArenaChunks chunks);

/// Uploads shadow's dirty ranges with Device::write_buffer.
FlushStats flush_shadow(const Device& device, SlotShadow& shadow,
                        const std::vector<gpu::Buffer>& buffers, const FlushPolicy& policy);

/// Throws InvalidArgument when chunk >= count.
void check_chunk(uint32_t chunk, size_t count, const char* call);

}  // namespace bindery::detail
