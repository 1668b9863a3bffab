// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/storage_array.hpp — per-draw data as a read-only storage buffer at the NATURAL
/// stride, bound once in a low-frequency group and indexed in the shader by
/// `@builtin(instance_index)` (the dynamic-offsets note "Un storage buffer indexado desde el
/// shader", the offset-alignment note point 3):
///
/// @code
///   @group(0) @binding(2) var<storage, read> objects : array<Object>;
///   @vertex fn vs(@builtin(instance_index) i : u32, ...) { let m = objects[i].model; ... }
/// @endcode
///
/// Same CPU core as DynamicUniformBuffer (SlotShadow: shadow copy, dirty marks, coalesced
/// uploads), but the stride is the WGSL array stride (128 bytes for two mat4x4f, no padding to
/// minUniformBufferOffsetAlignment) and the binding covers the whole array.
///
/// Limits read (from the DEVICE): maxStorageBufferBindingSize and maxBufferSize (a chunk holds at
/// most as many elements as one binding may cover; more elements make more chunks, each its own
/// buffer and bind group: draw the instances of chunk c with firstInstance / instance indices
/// from index_in_chunk()), minStorageBufferOffsetAlignment (every binding starts at offset 0 of
/// its chunk's buffer, so it is always aligned; checked with validate_buffer_binding anyway).
/// Buffers: usage STORAGE | COPY_DST. Layout entry: read-only-storage, no dynamic offset,
/// minBindingSize = one element (array stride; a runtime-sized array counts as one element).
#pragma once

#include "bindery/core/binding.hpp"
#include "bindery/data/buffer_arena.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/core/limits.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace bindery {

class Device;

/// SlotLayout for a storage array: stride = `array_stride_bytes` (the WGSL array stride, a
/// multiple of 4; 0 = element_size_bytes), slots_per_chunk = floor(min(maxStorageBufferBinding-
/// Size, maxBufferSize) / stride). Throws InvalidArgument (element 0, stride < element, stride not
/// a multiple of 4), StorageBindingTooLarge (one element exceeds the binding limit).
SlotLayout storage_array_slot_layout(uint64_t element_size_bytes, uint64_t array_stride_bytes,
                                     const Limits& limits);

/// Options for StorageArray. Zero means "the default" where noted.
struct StorageArrayDesc {
  std::string label = "storage array";  ///< prefix of the buffer, layout and bind group labels
  uint64_t element_size = 0;  ///< WGSL SizeOf(element), bytes
  uint64_t array_stride = 0;  ///< WGSL array stride, bytes (0: element_size)
  uint32_t slot_count = 0;    ///< number of elements (instances); may grow later
  uint32_t binding = 0;       ///< binding number in the layout
  uint32_t visibility = kStageVertex | kStageFragment;  ///< ShaderStage bits
  /// Lent by the caller (not owned; must outlive this object); it must hold exactly the entry
  /// layout_entry() describes. Null: this object creates a layout with that single entry.
  WGPUBindGroupLayout bind_group_layout = nullptr;
  FlushPolicy flush_policy{};  ///< when flush() uploads one covering range or coalesces
  /// Usage bits added to STORAGE | COPY_DST (e.g. WGPUBufferUsage_CopySrc to read the buffers
  /// back in tests or debugging tools).
  WGPUBufferUsage extra_usage = WGPUBufferUsage_None;
};

/// N elements in read-only storage buffers at the natural stride, one bind group per chunk
/// (usually one), indexed by instance_index. Throws like storage_array_slot_layout; GPU objects
/// go through Device (counted there).
class StorageArray : public BufferArena {
 public:
  /// Creates the layout (unless lent), the buffers and one bind group per chunk. Throws like
  /// storage_array_slot_layout, the validation.hpp kinds for a bad layout entry, and
  /// WebGPUValidation when the implementation rejects an object.
  StorageArray(const Device& device, const StorageArrayDesc& desc);

  /// The index the shader uses for `slot` inside its chunk's array (instance_index).
  uint32_t index_in_chunk(uint32_t slot) const;
};

}  // namespace bindery
