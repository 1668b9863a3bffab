// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/dynamic_uniform_buffer.hpp — per-draw data in one uniform buffer addressed by
/// dynamic offsets: one buffer, one bind group and a number that moves at draw time (the
/// dynamic-offsets and offset-alignment notes).
///
/// The part is split in two:
///  - a pure CPU core, tested without a device: SlotLayout (stride and chunk arithmetic) and
///    SlotShadow (the CPU shadow copy of every slot, per-slot dirty marks and the upload plan:
///    ONE range covering everything when most slots changed, coalesced dirty ranges when few did,
///    so moving 3 of 2000 objects uploads about 3 strides, not the whole buffer);
///  - DynamicUniformBuffer, the thin GPU layer: buffers (usage UNIFORM | COPY_DST), the bind
///    group layout entry (type uniform, hasDynamicOffset, minBindingSize = element size), one bind
///    group per chunk whose buffer binding has offset 0 and size = ELEMENT size (not the whole
///    buffer), flush() as queue.writeBuffer calls, growth.
///
/// WebGPU terms: dynamic offset (uint32_t in webgpu.h), stride, minBindingSize, binding window.
/// Limits read (from the DEVICE, via Device::limits()): minUniformBufferOffsetAlignment (stride),
/// maxUniformBufferBindingSize (element size), maxBufferSize (chunking). Because a dynamic offset
/// is a uint32_t, a chunk never extends past the last offset a uint32_t can express, even where
/// maxBufferSize exceeds 4 GiB. Each chunk is its own buffer and bind group; the draw loop reads
/// chunk_of(slot) and switches bind group only when the chunk changes.
#pragma once

#include "bindery/data/buffer_arena.hpp"

namespace bindery {

/// SlotLayout for a dynamic-offset uniform array: stride = dynamic_uniform_stride(element size)
/// (align_to minUniformBufferOffsetAlignment), slots_per_chunk = the most that fit both
/// maxBufferSize and a uint32_t dynamic offset. Throws InvalidArgument (element size 0),
/// NotPowerOfTwo (limit), UniformBindingTooLarge (element > maxUniformBufferBindingSize),
/// BufferTooLarge (one stride > maxBufferSize).
SlotLayout dynamic_uniform_slot_layout(uint64_t element_size_bytes, const Limits& limits);

/// Options for DynamicUniformBuffer. Zero means "the default" where noted.
struct DynamicUniformBufferDesc {
  std::string label =
      "dynamic uniform buffer";  ///< prefix of the buffer, layout and bind group labels
  /// Bytes the shader reads per draw: the WGSL struct's SizeOf (from layout reflection). It is
  /// the layout entry's minBindingSize and the bind group's binding size.
  uint64_t element_size = 0;
  uint32_t slot_count = 0;  ///< number of draws / objects; may be 0 and grow later
  uint32_t binding = 0;     ///< binding number of the per-object entry
  uint32_t visibility = kStageVertex | kStageFragment;  ///< ShaderStage bits
  /// Lent by the caller (not owned; must outlive this object), e.g. the per-object group the
  /// renderer planned; it must hold exactly the entry layout_entry() describes. Null: this
  /// object creates a layout with that single entry.
  WGPUBindGroupLayout bind_group_layout = nullptr;
  FlushPolicy flush_policy{};  ///< when flush() uploads one covering range or coalesces
  /// Usage bits added to UNIFORM | COPY_DST (e.g. WGPUBufferUsage_CopySrc to read the buffers
  /// back in tests or debugging tools).
  WGPUBufferUsage extra_usage = WGPUBufferUsage_None;
};

/// N per-draw elements in uniform buffers at a device-derived stride, bound once per chunk and
/// addressed by dynamic offsets (the dynamic-offsets and offset-alignment notes; issue 4). Typical frame:
///   dub.write(i, object_i)             (or fill slot_data(i), then mark_dirty(i))
///   dub.flush()                        uploads what changed (queue.writeBuffer)
///   for each draw i: if chunk_of(i) changed: setBindGroup(g, bind_group(chunk_of(i)), [off])
///                    else setBindGroup(g, same group, [dynamic_offset(i)])
/// Throws like dynamic_uniform_slot_layout; the GPU objects go through Device (counted there).
class DynamicUniformBuffer : public BufferArena {
 public:
  /// Creates the layout (unless lent), the buffers and one bind group per chunk. Throws like
  /// dynamic_uniform_slot_layout, the validation.hpp kinds for a bad layout entry (e.g.
  /// BindingNumberTooLarge), and WebGPUValidation when the implementation rejects an object.
  DynamicUniformBuffer(const Device& device, const DynamicUniformBufferDesc& desc);

  /// The dynamic offset for setBindGroup when drawing `slot`, bytes (multiple of the stride):
  /// its offset inside its chunk.
  uint32_t dynamic_offset(uint32_t slot) const;
};

}  // namespace bindery
