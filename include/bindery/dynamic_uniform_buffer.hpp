// bindery/dynamic_uniform_buffer.hpp — per-draw data in one uniform buffer addressed by dynamic
// offsets: one buffer, one bind group and a number that moves at draw time (seeds 000, 002).
//
// The part is split in two:
//  - a pure CPU core, tested without a device: SlotLayout (stride and chunk arithmetic) and
//    SlotShadow (the CPU shadow copy of every slot, per-slot dirty marks and the upload plan:
//    ONE range covering everything when most slots changed, coalesced dirty ranges when few did,
//    so moving 3 of 2000 objects uploads about 3 strides, not the whole buffer);
//  - DynamicUniformBuffer, the thin GPU layer: buffers (usage UNIFORM | COPY_DST), the bind
//    group layout entry (type uniform, hasDynamicOffset, minBindingSize = element size), one bind
//    group per chunk whose buffer binding has offset 0 and size = ELEMENT size (not the whole
//    buffer), flush() as queue.writeBuffer calls, growth.
//
// WebGPU terms: dynamic offset (uint32_t in webgpu.h), stride, minBindingSize, binding window.
// Limits read (from the DEVICE, via Device::limits()): minUniformBufferOffsetAlignment (stride),
// maxUniformBufferBindingSize (element size), maxBufferSize (chunking). Because a dynamic offset
// is a uint32_t, a chunk never extends past the last offset a uint32_t can express, even where
// maxBufferSize exceeds 4 GiB. Each chunk is its own buffer and bind group; the draw loop reads
// chunk_of(slot) and switches bind group only when the chunk changes.
#pragma once

#include "bindery/binding.hpp"
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

/// How N equally sized slots are laid out in one or more buffers ("chunks"). Bytes.
/// Slot s lives in chunk s / slots_per_chunk at byte (s % slots_per_chunk) * stride.
struct SlotLayout {
  uint64_t element_size = 0;     ///< bytes the shader reads per slot (WGSL SizeOf of the struct)
  uint64_t stride = 0;           ///< bytes between consecutive slots (a multiple of 4)
  uint32_t slots_per_chunk = 0;  ///< most slots one buffer (one binding) may hold

  uint32_t chunk_of(uint32_t slot) const { return slot / slots_per_chunk; }
  uint32_t index_in_chunk(uint32_t slot) const { return slot % slots_per_chunk; }
  /// Byte offset of `slot` inside its chunk's buffer (the dynamic offset for uniforms).
  uint64_t offset_in_chunk(uint32_t slot) const { return uint64_t(index_in_chunk(slot)) * stride; }
  /// Number of chunks `slot_count` slots need (0 for 0 slots).
  uint32_t chunk_count(uint32_t slot_count) const;
  /// Slots held by chunk `chunk` when there are `slot_count` slots.
  uint32_t slots_in_chunk(uint32_t chunk, uint32_t slot_count) const;
  /// Size of chunk `chunk`'s buffer: slots_in_chunk × stride (a multiple of 4), bytes.
  uint64_t chunk_size_bytes(uint32_t chunk, uint32_t slot_count) const;
  /// Bytes one slot's upload covers: element_size rounded up to 4 (writeBuffer's rule).
  uint64_t upload_size_bytes() const;
};

/// SlotLayout for a dynamic-offset uniform array: stride = dynamic_uniform_stride(element size)
/// (align_to minUniformBufferOffsetAlignment), slots_per_chunk = the most that fit both
/// maxBufferSize and a uint32_t dynamic offset. Throws InvalidArgument (element size 0),
/// NotPowerOfTwo (limit), UniformBindingTooLarge (element > maxUniformBufferBindingSize),
/// BufferTooLarge (one stride > maxBufferSize).
SlotLayout dynamic_uniform_slot_layout(uint64_t element_size_bytes, const Limits& limits);

/// Ranges SlotShadow::take_upload_ranges() returns: write `size` bytes from shadow offset
/// `shadow_offset` to byte `buffer_offset` of chunk `chunk`'s buffer. Offsets and size are
/// multiples of 4.
struct UploadRange {
  uint32_t chunk = 0;
  uint64_t buffer_offset = 0;
  uint64_t size = 0;
  uint64_t shadow_offset = 0;
};

/// When flush() uploads one covering range and when it coalesces.
struct FlushPolicy {
  /// When at least this share of the slots is dirty, upload one range per chunk covering the
  /// first to the last dirty slot (one writeBuffer), else one range per run of dirty slots.
  double full_upload_fraction = 0.5;
  /// Runs of dirty slots separated by at most this many clean slots are merged into one range
  /// (0: only adjacent slots merge). Merging trades bytes for writeBuffer calls.
  uint32_t merge_gap_slots = 0;
};

/// The CPU core of DynamicUniformBuffer and StorageArray: a shadow copy of every slot laid out
/// exactly as in the GPU buffers (slot s at byte s × stride), per-slot dirty marks, and the plan
/// of what to upload. No device needed. Slot indices out of range throw InvalidArgument.
class SlotShadow {
 public:
  /// `slot_count` zero-filled slots, none dirty. Throws InvalidArgument when the layout is empty
  /// or the shadow would not fit in memory addressing, OutOfMemory when allocation fails.
  SlotShadow(const SlotLayout& layout, uint32_t slot_count);

  const SlotLayout& layout() const { return layout_; }
  uint32_t slot_count() const { return slot_count_; }
  uint32_t chunk_count() const { return layout_.chunk_count(slot_count_); }

  /// The element_size bytes of `slot` in the shadow copy; write them, then mark_dirty(slot).
  std::span<std::byte> slot_data(uint32_t slot);
  std::span<const std::byte> slot_data(uint32_t slot) const;
  /// Marks `slot` as changed since the last take_upload_ranges().
  void mark_dirty(uint32_t slot);
  /// Copies `bytes` into `slot` at `offset_bytes` and marks it dirty. Throws InvalidArgument when
  /// offset + size exceeds the element size.
  void write(uint32_t slot, std::span<const std::byte> bytes, uint64_t offset_bytes = 0);
  /// Marks every slot dirty (e.g. after the GPU buffers were recreated).
  void mark_all_dirty();
  bool is_dirty(uint32_t slot) const;
  /// Number of dirty slots.
  uint32_t dirty_count() const;

  /// Resizes to `slot_count` slots; kept slots keep their bytes, new slots are zero. Returns the
  /// first chunk whose buffer size changed (its buffer and those after must be recreated); the
  /// slots of those chunks are marked dirty because a recreated buffer is empty. Returns
  /// chunk_count() when nothing changed.
  uint32_t resize(uint32_t slot_count);

  /// The upload plan for everything dirty, following `policy`; clears the dirty marks. The
  /// returned vector is reused by the next call. Ranges never cross a chunk boundary and come in
  /// increasing (chunk, offset) order.
  const std::vector<UploadRange>& take_upload_ranges(const FlushPolicy& policy = {});

  /// The whole shadow copy (slot_count × stride bytes, rounded up to 4).
  std::span<const std::byte> bytes() const { return {bytes_.data(), bytes_.size()}; }

 private:
  void check_slot(uint32_t slot, const char* call) const;
  void add_range(uint32_t first, uint32_t last);

  SlotLayout layout_;
  uint32_t slot_count_ = 0;
  std::vector<std::byte> bytes_;
  std::vector<uint8_t> dirty_flag_;
  std::vector<uint32_t> dirty_list_;
  bool all_dirty_ = false;
  std::vector<UploadRange> ranges_;
};

/// What one flush() issued.
struct FlushStats {
  uint64_t write_buffer_calls = 0;
  uint64_t bytes_uploaded = 0;
};

/// Options for DynamicUniformBuffer. Zero means "the default" where noted.
struct DynamicUniformBufferDesc {
  std::string label = "dynamic uniform buffer";
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
  FlushPolicy flush_policy{};
  /// Usage bits added to UNIFORM | COPY_DST (e.g. WGPUBufferUsage_CopySrc to read the buffers
  /// back in tests or debugging tools).
  WGPUBufferUsage extra_usage = WGPUBufferUsage_None;
};

/// N per-draw elements in uniform buffers at a device-derived stride, bound once per chunk and
/// addressed by dynamic offsets (seeds 000, 002; issue 4). Typical frame:
///   dub.write(i, object_i)             (or fill slot_data(i), then mark_dirty(i))
///   dub.flush()                        uploads what changed (queue.writeBuffer)
///   for each draw i: if chunk_of(i) changed: setBindGroup(g, bind_group(chunk_of(i)), [off])
///                    else setBindGroup(g, same group, [dynamic_offset(i)])
/// Throws like dynamic_uniform_slot_layout; the GPU objects go through Device (counted there).
class DynamicUniformBuffer {
 public:
  DynamicUniformBuffer(const Device& device, const DynamicUniformBufferDesc& desc);

  uint64_t element_size() const { return shadow_.layout().element_size; }
  /// Bytes between slots: align_to(element size, the device's minUniformBufferOffsetAlignment).
  uint64_t stride() const { return shadow_.layout().stride; }
  uint32_t slot_count() const { return shadow_.slot_count(); }
  uint32_t chunk_count() const { return shadow_.chunk_count(); }
  const SlotLayout& slot_layout() const { return shadow_.layout(); }

  /// The dynamic offset for setBindGroup when drawing `slot`, bytes (multiple of the stride).
  uint32_t dynamic_offset(uint32_t slot) const;
  /// Which chunk (buffer + bind group) `slot` lives in; the draw loop switches bind group only
  /// when this changes.
  uint32_t chunk_of(uint32_t slot) const;
  WGPUBindGroup bind_group(uint32_t chunk) const;
  WGPUBuffer buffer(uint32_t chunk) const;
  /// Size of chunk `chunk`'s buffer in bytes (slots in the chunk × stride).
  uint64_t buffer_size(uint32_t chunk) const;
  WGPUBindGroupLayout bind_group_layout() const { return layout_; }
  /// The plain description of the layout entry (uniform, hasDynamicOffset, minBindingSize =
  /// element size), for the bind group planner and validation.hpp.
  BindingLayoutEntry layout_entry() const;
  /// The bind group entry of chunk `chunk` (offset 0, size = element size), for callers that
  /// build their own bind group around it.
  WGPUBindGroupEntry bind_group_entry(uint32_t chunk) const;

  /// The shadow bytes of `slot` (element_size bytes); mark_dirty(slot) after writing.
  std::span<std::byte> slot_data(uint32_t slot) { return shadow_.slot_data(slot); }
  void mark_dirty(uint32_t slot) { shadow_.mark_dirty(slot); }
  /// Copies `bytes` into `slot` and marks it dirty (InvalidArgument if larger than the element).
  void write(uint32_t slot, std::span<const std::byte> bytes) { shadow_.write(slot, bytes); }
  /// Copies a trivially copyable value into `slot` (its size must not exceed the element size).
  template <class T>
  void write_value(uint32_t slot, const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    shadow_.write(slot, std::as_bytes(std::span<const T, 1>(&value, 1)));
  }

  /// Uploads the dirty slots with queue.writeBuffer (through Device::write_buffer, which counts
  /// write_buffer_calls and bytes_uploaded) and clears the marks.
  FlushStats flush();
  /// Resizes to `slot_count` slots keeping existing data: chunks whose size changes get a new
  /// buffer and bind group (counted as created) and are re-uploaded on the next flush().
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
