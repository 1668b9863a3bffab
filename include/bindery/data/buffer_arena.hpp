// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/buffer_arena.hpp — what DynamicUniformBuffer and StorageArray share: N equally
/// sized slots of per-draw data in one or more GPU buffers ("chunks"), one bind group per chunk,
/// and a CPU shadow copy with per-slot dirty marks that flush() uploads with queue.writeBuffer.
///
/// The CPU core (SlotLayout, SlotShadow, the upload plan) needs no device and is unit-tested on its
/// own; BufferArena is the GPU layer over it. The two concrete arenas differ only in their slot
/// layout (stride from minUniformBufferOffsetAlignment vs the natural array stride), their buffer
/// usage and binding type, and how a draw addresses a slot (dynamic offset vs instance_index).
/// Limits read: through the SlotLayout builders (dynamic_uniform_buffer.hpp, storage_array.hpp)
/// and Device::create_buffer (maxBufferSize).
#pragma once

#include "bindery/core/binding.hpp"
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

/// How N equally sized slots are laid out in one or more buffers ("chunks"). Bytes.
/// Slot s lives in chunk s / slots_per_chunk at byte (s % slots_per_chunk) * stride.
struct SlotLayout {
  uint64_t element_size = 0;     ///< bytes the shader reads per slot (WGSL SizeOf of the struct)
  uint64_t stride = 0;           ///< bytes between consecutive slots (a multiple of 4)
  uint32_t slots_per_chunk = 0;  ///< most slots one buffer (one binding) may hold

  /// The chunk (buffer) `slot` lives in: slot / slots_per_chunk.
  uint32_t chunk_of(uint32_t slot) const { return slot / slots_per_chunk; }
  /// The slot's index inside its chunk: slot % slots_per_chunk.
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

/// How a draw reaches its slot in an arena chunk.
enum class SlotAddressing {
  /// setBindGroup's dynamic offset moves a one-element binding window over the chunk's buffer
  /// (DynamicUniformBuffer; the dynamic-offsets and offset-alignment notes). Stride: the element aligned to
  /// min{Uniform,Storage}BufferOffsetAlignment; a chunk ends where maxBufferSize or the uint32
  /// dynamic offset stops reaching.
  dynamic_offset,
  /// The binding covers the whole chunk and the shader indexes it (instance_index; StorageArray).
  /// Stride: the WGSL array stride; a chunk is one binding window of at most
  /// max{Uniform,Storage}BufferBindingSize and maxBufferSize.
  array_index,
};

/// What an arena of per-draw slots holds: the input of arena_slot_layout().
struct ArenaSpec {
  BindingKind kind = BindingKind::uniform_buffer;  ///< a buffer kind
  /// How a draw reaches its slot; picks the stride and chunk rules of arena_slot_layout().
  SlotAddressing addressing = SlotAddressing::dynamic_offset;
  uint64_t element_size_bytes = 0;  ///< WGSL SizeOf of one element (what one draw reads)
  uint64_t array_stride_bytes = 0;  ///< array_index only: WGSL array stride (0: the element size)
};

/// THE chunk arithmetic of per-draw arenas, shared by DynamicUniformBuffer, StorageArray and the
/// bind group planner (bind_group_plan.hpp), so that a plan and the renderer split an array into
/// the same buffers and binding windows. Bytes and slot counts:
///  - dynamic_offset: stride = align_to(element, min{Uniform,Storage}BufferOffsetAlignment)
///    (and to 4); slots_per_chunk = min(floor(maxBufferSize / stride),
///    floor(UINT32_MAX / stride) + 1), the second term because a dynamic offset is a uint32 and
///    the last slot's offset (n - 1) x stride must fit it.
///  - array_index: stride = the array stride; slots_per_chunk = floor(W / stride) where
///    W = min(max{Uniform,Storage}BufferBindingSize, maxBufferSize) rounded down to 4.
///  Both are capped at UINT32_MAX.
/// E.g. 144-byte storage elements at the spec defaults: floor(134,217,728 / 144) = 932,067 per
/// window; 256-byte dynamic-offset uniforms: 268,435,456 / 256 = 1,048,576 per buffer.
/// Limits read: those named above. Throws InvalidArgument (element 0, not a buffer kind, stride
/// below the element or not a multiple of 4), NotPowerOfTwo (alignment limit),
/// UniformBindingTooLarge / StorageBindingTooLarge (one element or stride exceeds the binding
/// limit), BufferTooLarge (one stride exceeds maxBufferSize).
SlotLayout arena_slot_layout(const ArenaSpec& spec, const Limits& limits);

/// Ranges SlotShadow::take_upload_ranges() returns: write `size` bytes from shadow offset
/// `shadow_offset` to byte `buffer_offset` of chunk `chunk`'s buffer. Offsets and size are
/// multiples of 4.
struct UploadRange {
  uint32_t chunk = 0;          ///< which chunk's buffer
  uint64_t buffer_offset = 0;  ///< destination offset in that buffer, bytes
  uint64_t size = 0;           ///< bytes to write
  uint64_t shadow_offset = 0;  ///< source offset in SlotShadow::bytes(), bytes
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

  /// The layout the shadow mirrors.
  const SlotLayout& layout() const { return layout_; }
  /// Number of slots.
  uint32_t slot_count() const { return slot_count_; }
  /// Number of chunks the slots span.
  uint32_t chunk_count() const { return layout_.chunk_count(slot_count_); }
  /// Throws InvalidArgument, naming `call`, the slot and the count, when `slot` >= slot_count().
  void check_slot(uint32_t slot, const char* call) const;

  /// The element_size bytes of `slot` in the shadow copy; write them, then mark_dirty(slot).
  std::span<std::byte> slot_data(uint32_t slot);
  /// The element_size bytes of `slot`, read-only.
  std::span<const std::byte> slot_data(uint32_t slot) const;
  /// Marks `slot` as changed since the last take_upload_ranges().
  void mark_dirty(uint32_t slot);
  /// Marks slots [first, last) as changed: one bounds check for the range, and O(1) when it is
  /// every slot (as mark_all_dirty). Throws InvalidArgument when first > last or last exceeds
  /// the slot count.
  void mark_dirty_range(uint32_t first, uint32_t last);
  /// Copies `bytes` into `slot` at `offset_bytes` and marks it dirty. Throws InvalidArgument when
  /// offset + size exceeds the element size.
  void write(uint32_t slot, std::span<const std::byte> bytes, uint64_t offset_bytes = 0);
  /// Marks every slot dirty (e.g. after the GPU buffers were recreated).
  void mark_all_dirty();
  /// Whether `slot` changed since the last take_upload_ranges().
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
  uint64_t write_buffer_calls = 0;  ///< queue.writeBuffer calls
  uint64_t bytes_uploaded = 0;      ///< bytes those calls wrote
};

/// The GPU layer shared by DynamicUniformBuffer and StorageArray (see the header comment). Slot
/// and chunk indices out of range throw InvalidArgument; GPU objects go through Device (counted
/// there). Not copyable; the concrete arenas are constructed through their own descriptors.
class BufferArena {
 public:
  BufferArena(const BufferArena&) = delete;
  BufferArena& operator=(const BufferArena&) = delete;

  /// Bytes the shader reads per slot (the element size it was created with).
  uint64_t element_size() const { return shadow_.layout().element_size; }
  /// Bytes between slots in the buffers.
  uint64_t stride() const { return shadow_.layout().stride; }
  /// Number of slots (draws / objects).
  uint32_t slot_count() const { return shadow_.slot_count(); }
  /// Number of chunks: buffers, each with its own bind group.
  uint32_t chunk_count() const { return shadow_.chunk_count(); }
  /// Stride and chunking of the slots.
  const SlotLayout& slot_layout() const { return shadow_.layout(); }

  /// Which chunk (buffer + bind group) `slot` lives in; a draw loop switches bind group only
  /// when this changes.
  uint32_t chunk_of(uint32_t slot) const;
  /// The bind group of chunk `chunk` (lent, owned here).
  WGPUBindGroup bind_group(uint32_t chunk) const;
  /// The GPU buffer of chunk `chunk` (lent, owned here).
  WGPUBuffer buffer(uint32_t chunk) const;
  /// Size of chunk `chunk`'s buffer in bytes (slots in the chunk x stride).
  uint64_t buffer_size(uint32_t chunk) const;
  /// The bind group layout: created here, or the one lent in the descriptor.
  WGPUBindGroupLayout bind_group_layout() const { return layout_; }
  /// The plain description of the layout entry, for the bind group planner and validation.hpp.
  BindingLayoutEntry layout_entry() const;
  /// The bind group entry of chunk `chunk` (offset 0; one element for dynamic offsets, the whole
  /// chunk otherwise), for callers that build their own bind group around it.
  WGPUBindGroupEntry bind_group_entry(uint32_t chunk) const;

  /// The shadow bytes of `slot` (element_size bytes); mark_dirty(slot) after writing.
  std::span<std::byte> slot_data(uint32_t slot) { return shadow_.slot_data(slot); }
  /// Marks `slot` for the next flush().
  void mark_dirty(uint32_t slot) { shadow_.mark_dirty(slot); }
  /// Marks slots [first, last) for the next flush() (SlotShadow::mark_dirty_range).
  void mark_dirty_range(uint32_t first, uint32_t last) { shadow_.mark_dirty_range(first, last); }
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

  /// The CPU core: shadow bytes, dirty marks, upload plan.
  SlotShadow& shadow() { return shadow_; }
  /// The CPU core, read-only.
  const SlotShadow& shadow() const { return shadow_; }

 protected:
  /// What distinguishes the concrete arenas.
  struct Kind {
    std::string label;  ///< prefix of the buffer and bind group labels
    BindingKind binding_kind = BindingKind::uniform_buffer;  ///< uniform or read-only storage
    bool has_dynamic_offset = false;                         ///< true for DynamicUniformBuffer
    WGPUBufferUsage usage = WGPUBufferUsage_None;            ///< full usage of the chunk buffers
    uint32_t binding = 0;                                    ///< binding number of the entry
    uint32_t visibility = kStageVertex | kStageFragment;     ///< ShaderStage bits of the entry
    FlushPolicy flush_policy{};  ///< when flush() uploads one range or coalesces
    /// Lent (not owned) layout holding exactly layout_entry(); null: one is created.
    WGPUBindGroupLayout lent_layout = nullptr;
  };
  /// Creates the layout (unless lent) and the buffers and bind groups of every chunk.
  BufferArena(const Device& device, Kind kind, const SlotLayout& layout, uint32_t slot_count);
  ~BufferArena();
  /// Throws InvalidArgument when `slot` >= slot_count(); `call` names the caller.
  void check_slot(uint32_t slot, const char* call) const;

 private:
  void rebuild_chunks_from(uint32_t first_chunk);

  const Device* device_;
  Kind kind_;
  gpu::BindGroupLayout owned_layout_;
  WGPUBindGroupLayout layout_ = nullptr;
  SlotShadow shadow_;
  std::vector<gpu::Buffer> buffers_;
  std::vector<uint64_t> buffer_sizes_;
  std::vector<gpu::BindGroup> bind_groups_;
};

}  // namespace bindery
