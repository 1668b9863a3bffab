// bindery/storage_array.hpp — per-draw data as a read-only storage buffer at the NATURAL stride,
// bound once in a low-frequency group and indexed in the shader by @builtin(instance_index)
// (seed 000 "Un storage buffer indexado desde el shader", seed 002 point 3):
//
//   @group(0) @binding(2) var<storage, read> objects : array<Object>;
//   @vertex fn vs(@builtin(instance_index) i : u32, ...) { let m = objects[i].model; ... }
//
// Same CPU core as DynamicUniformBuffer (SlotShadow: shadow copy, dirty marks, coalesced
// uploads), but the stride is the WGSL array stride (128 bytes for two mat4x4f, no padding to
// minUniformBufferOffsetAlignment) and the binding covers the whole array.
//
// Limits read (from the DEVICE): maxStorageBufferBindingSize and maxBufferSize (a chunk holds at
// most as many elements as one binding may cover; more elements make more chunks, each its own
// buffer and bind group: draw the instances of chunk c with firstInstance / instance indices
// from index_in_chunk()), minStorageBufferOffsetAlignment (every binding starts at offset 0 of
// its chunk's buffer, so it is always aligned; checked with validate_buffer_binding anyway).
// Buffers: usage STORAGE | COPY_DST. Layout entry: read-only-storage, no dynamic offset,
// minBindingSize = one element (array stride; a runtime-sized array counts as one element).
#pragma once

#include "bindery/binding.hpp"
#include "bindery/dynamic_uniform_buffer.hpp"
#include "bindery/gpu.hpp"
#include "bindery/limits.hpp"

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
  std::string label = "storage array";
  uint64_t element_size = 0;  ///< WGSL SizeOf(element), bytes
  uint64_t array_stride = 0;  ///< WGSL array stride, bytes (0: element_size)
  uint32_t slot_count = 0;    ///< number of elements (instances); may grow later
  uint32_t binding = 0;       ///< binding number in the layout
  uint32_t visibility = kStageVertex | kStageFragment;  ///< ShaderStage bits
  /// Lent by the caller (not owned; must outlive this object); it must hold exactly the entry
  /// layout_entry() describes. Null: this object creates a layout with that single entry.
  WGPUBindGroupLayout bind_group_layout = nullptr;
  FlushPolicy flush_policy{};
  /// Usage bits added to STORAGE | COPY_DST (e.g. WGPUBufferUsage_CopySrc to read the buffers
  /// back in tests or debugging tools).
  WGPUBufferUsage extra_usage = WGPUBufferUsage_None;
};

/// N elements in read-only storage buffers at the natural stride, one bind group per chunk
/// (usually one), indexed by instance_index. Throws like storage_array_slot_layout; GPU objects
/// go through Device (counted there).
class StorageArray {
 public:
  StorageArray(const Device& device, const StorageArrayDesc& desc);

  uint64_t element_size() const { return shadow_.layout().element_size; }
  /// Bytes between elements: the array stride (no dynamic-offset padding).
  uint64_t stride() const { return shadow_.layout().stride; }
  uint32_t slot_count() const { return shadow_.slot_count(); }
  uint32_t chunk_count() const { return shadow_.chunk_count(); }
  const SlotLayout& slot_layout() const { return shadow_.layout(); }

  /// Which chunk `slot` lives in (0 unless the array exceeds one binding).
  uint32_t chunk_of(uint32_t slot) const;
  /// The index the shader uses for `slot` inside its chunk's array (instance_index).
  uint32_t index_in_chunk(uint32_t slot) const;
  WGPUBindGroup bind_group(uint32_t chunk) const;
  WGPUBuffer buffer(uint32_t chunk) const;
  /// Size of chunk `chunk`'s buffer in bytes (elements in the chunk × stride).
  uint64_t buffer_size(uint32_t chunk) const;
  WGPUBindGroupLayout bind_group_layout() const { return layout_; }
  /// The plain layout entry (read-only-storage, minBindingSize = one element).
  BindingLayoutEntry layout_entry() const;
  /// The bind group entry of chunk `chunk` (offset 0, the whole chunk), for callers that build
  /// their own bind group (e.g. the frame group) around it.
  WGPUBindGroupEntry bind_group_entry(uint32_t chunk) const;

  std::span<std::byte> slot_data(uint32_t slot) { return shadow_.slot_data(slot); }
  void mark_dirty(uint32_t slot) { shadow_.mark_dirty(slot); }
  void write(uint32_t slot, std::span<const std::byte> bytes) { shadow_.write(slot, bytes); }
  template <class T>
  void write_value(uint32_t slot, const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    shadow_.write(slot, std::as_bytes(std::span<const T, 1>(&value, 1)));
  }

  /// Uploads the dirty elements (queue.writeBuffer via Device::write_buffer) and clears the marks.
  FlushStats flush();
  /// Resizes keeping existing data; changed chunks get a new buffer and bind group and are
  /// re-uploaded on the next flush().
  void resize(uint32_t slot_count);

  SlotShadow& shadow() { return shadow_; }
  const SlotShadow& shadow() const { return shadow_; }

 private:
  void rebuild_chunks_from(uint32_t first_chunk);

  const Device* device_;
  std::string label_;
  uint32_t binding_;
  uint32_t visibility_;
  FlushPolicy policy_;
  WGPUBufferUsage extra_usage_;
  gpu::BindGroupLayout owned_layout_;
  WGPUBindGroupLayout layout_ = nullptr;
  SlotShadow shadow_;
  std::vector<gpu::Buffer> buffers_;
  std::vector<uint64_t> buffer_sizes_;
  std::vector<gpu::BindGroup> bind_groups_;
};

}  // namespace bindery
