// SPDX-License-Identifier: MIT
/// @file
/// bindery/encode/render_pass_state.hpp — the redundant-state tracker: RenderStateTracker (the
/// pure decision logic over opaque handles) and RenderPassState / RenderBundleState (the thin
/// webgpu.h layer that issues only what the tracker lets through, counts it, and detects
/// bind-group intruders at run time). bindery/encode/draw_list.hpp shows them with a DrawList.
#pragma once

#include "bindery/encode/bind_group_plan.hpp"
#include "bindery/core/counters.hpp"
#include "bindery/core/limits.hpp"
#include "bindery/data/validation.hpp"

#include <webgpu/webgpu.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace bindery {

/// What to do with a run-time intruder.
enum class IntruderPolicy {
  build_default,  ///< `error` when the library is built without NDEBUG, else `report`
  ignore,         ///< no check
  report,         ///< record it once per binding (RenderStateTracker::intruders())
  error,          ///< record it and throw bindery::Error(ErrorKind::Intruder)
};

/// One intruder found while encoding (the by-frequency note): a binding of a group declared below per-object
/// that changed between two consecutive draws with the same key of its frequency.
struct IntruderReport {
  /// The bind group index (the `group` of set_bind_group, WGSL `@group`).
  uint32_t group = 0;
  std::string binding;  ///< binding name (dynamic offset) or the group's label (bind group)
  /// The frequency the group was declared with (set_bind_group's `declared`).
  Frequency declared = Frequency::frame;
  /// How often the binding was seen to change: the lowest declared frequency above `declared`
  /// among the groups whose key changed between the two draws; Frequency::object when none did.
  Frequency observed = Frequency::object;
  /// One line naming the group, the binding, both frequencies and the unchanged key; also the
  /// message of the Error(Intruder) thrown under IntruderPolicy::error.
  std::string message;
};

/// The pure decision logic of redundant-state elision: each set_* returns true when the call
/// must be issued and false when it is redundant, and counts both in `counters`. Handles are
/// opaque non-null pointers (a WGPUBindGroup, or any unique address in tests).
///
/// Storage is fixed-size and inline: kMaxBindGroups groups, each holding up to
/// kMaxDynamicOffsetsPerGroup dynamic offsets, kMaxVertexBuffers vertex buffer slots. The per-draw
/// path (set_*, draw) allocates nothing and looks nothing up in a map: a handle compare per call,
/// a few bit operations per draw. Intruder reports allocate only when a new one is found.
///
/// Bounds, read once from `limits` (the DEVICE's, WebGPU §3.6.2); without limits only the
/// capacities above apply. Every set_* checks before it records anything:
///   - a null handle: InvalidArgument (wgpu-native aborts the process on one);
///   - group index >= maxBindGroups: TooManyBindGroups;
///   - more dynamic offsets in one setBindGroup than maxDynamicUniformBuffersPerPipelineLayout +
///     maxDynamicStorageBuffersPerPipelineLayout (no pipeline layout can use more):
///     TooManyDynamicOffsets;
///   - vertex buffer slot >= maxVertexBuffers: InvalidArgument;
///   - within the device's limit but beyond the tracker's capacity (a device that reports more
///     than wgpu-native ever does, or no limits given): ImplementationLimit.
class RenderStateTracker {
 public:
  /// Bind groups the tracker holds: wgpu-native's hal caps maxBindGroups at 8 (core default 4).
  static constexpr uint32_t kMaxBindGroups = 8;
  /// Dynamic offsets one group holds: covers maxDynamicUniformBuffersPerPipelineLayout +
  /// maxDynamicStorageBuffersPerPipelineLayout of the devices measured (H200 Vulkan 15 + 16;
  /// core defaults 8 + 4).
  static constexpr uint32_t kMaxDynamicOffsetsPerGroup = 32;
  /// Vertex buffer slots the tracker holds: wgpu-native's hal caps maxVertexBuffers at 16.
  static constexpr uint32_t kMaxVertexBuffers = 16;

  /// `counters` must outlive the tracker. `limits` (optional, copied): the device's
  /// maxBindGroups, maxDynamicUniformBuffersPerPipelineLayout,
  /// maxDynamicStorageBuffersPerPipelineLayout and maxVertexBuffers bound the calls below.
  explicit RenderStateTracker(Counters& counters,
                              IntruderPolicy policy = IntruderPolicy::build_default,
                              const Limits* limits = nullptr);

  /// Optional: names for group `group`'s bindings in intruder reports; dynamic offsets map to
  /// the layout's dynamic entries sorted by binding number (the cases (docs/REFERENCES.md) D05). Throws like
  /// set_bind_group for a group index out of bounds.
  void describe_group(uint32_t group, const BindGroupLayoutDesc& layout);
  /// Optional, with the device's limits: group `group`'s bind groups from now on are made from
  /// `layout` with the buffer windows `windows` (BufferBindingWindow: binding offset, size and
  /// the buffer's size). set_bind_group then refuses, before anything is issued, a dynamic offset
  /// count other than the layout's dynamic entries (DynamicOffsetCount), an offset that is not a
  /// multiple of its entry's minUniformBufferOffsetAlignment / minStorageBufferOffsetAlignment
  /// (DynamicOffsetAlignment) and a window moved past its buffer's end
  /// (window.offset + window.size + offset > buffer_size: DynamicOffsetOutOfBounds), as
  /// validate_dynamic_offsets() does. Without a description (or without `windows`) only what
  /// the limits alone decide is checked: every offset a multiple of the smaller of the two
  /// alignments. Throws InvalidArgument when a dynamic entry has no window.
  void describe_group(uint32_t group, const BindGroupLayoutDesc& layout,
                      std::span<const BufferBindingWindow> windows);

  /// setPipeline: false (skipped) when `pipeline` is the one bound. Throws InvalidArgument for a
  /// null pipeline (unbound state never equals null, so a null handle is never skipped).
  bool set_pipeline(const void* pipeline);
  /// setBindGroup: false (skipped) when group `group` holds `bind_group` with the same dynamic
  /// offsets (count and values). Throws the bounds errors listed above and, with limits, the
  /// dynamic offset rules (DynamicOffsetAlignment always; DynamicOffsetCount and
  /// DynamicOffsetOutOfBounds for a group described with its windows: see describe_group).
  /// `declared` and `key`: the group's declared frequency and this draw's key of that frequency.
  bool set_bind_group(uint32_t group, const void* bind_group,
                      std::span<const uint32_t> dynamic_offsets, Frequency declared, uint64_t key);
  /// setVertexBuffer: false (skipped) when slot `slot` holds `buffer` at the same `offset` and
  /// `size` (bytes). Throws InvalidArgument for a null buffer or a slot >= the device's
  /// maxVertexBuffers, ImplementationLimit for a slot the device allows but kMaxVertexBuffers does
  /// not (or any slot >= kMaxVertexBuffers without limits).
  bool set_vertex_buffer(uint32_t slot, const void* buffer, uint64_t offset, uint64_t size);
  /// setIndexBuffer: false (skipped) when `buffer` is bound with the same `format` (a
  /// WGPUIndexFormat value, only compared), `offset` and `size` (bytes). Throws InvalidArgument for
  /// a null buffer.
  bool set_index_buffer(const void* buffer, uint32_t format, uint64_t offset, uint64_t size);
  /// Call right before each draw: counts it and runs the intruder check. Throws Intruder under
  /// IntruderPolicy::error.
  void draw();
  /// Forgets all bound state (a new pass; after executeBundles). Intruders found stay.
  void reset();

  /// Intruders found so far, one per (group, binding).
  const std::vector<IntruderReport>& intruders() const { return intruders_; }
  /// The policy in force (build_default resolved).
  IntruderPolicy policy() const { return policy_; }

 private:
  /// What unbound state holds: an address no handle has (handles are never null either).
  static constexpr char kUnbound = 0;
  /// One bind group slot, in two records (its dynamic offsets are in offsets_[group][record]):
  /// record `current` is the state set now. While the group is dirty (a call was issued since the
  /// previous draw) record `current ^ 1` is the state the previous draw used; otherwise that draw
  /// used record `current` too. An issued call on a clean group flips `current` before writing,
  /// so a draw remembers every group's state by clearing dirty_mask_, copying nothing.
  struct Group {
    std::array<const void*, 2> bind_group{&kUnbound, &kUnbound};  ///< &kUnbound: unset
    std::array<uint32_t, 2> offset_count{};
    uint32_t current = 0;  ///< 0 or 1 (not a char type: stores elsewhere cannot alias it)
    Frequency declared = Frequency::object;
  };
  using DynamicOffsets = std::array<uint32_t, kMaxDynamicOffsetsPerGroup>;
  struct BufferBinding {
    const void* buffer = &kUnbound;  ///< &kUnbound: not set since the last reset
    uint64_t offset = 0, size = 0;
  };

  [[noreturn]] void refuse_bind_group(const char* call, uint32_t group, const void* bind_group,
                                      size_t offset_count) const;
  [[noreturn]] void refuse_vertex_buffer(uint32_t slot, const void* buffer) const;
  [[noreturn]] void refuse_dynamic_offsets(uint32_t group,
                                           std::span<const uint32_t> offsets) const;
  /// Whether `offsets` break group `group`'s dynamic offset rules (count, alignment, windows).
  bool breaks_dynamic_rules(uint32_t group, std::span<const uint32_t> offsets) const;
  [[noreturn]] static void refuse_null(const char* call, const char* what);
  /// Intruder check against the previous draw, then remember this draw's state.
  void record_draw();
  /// Whether dirty group `g`'s state differs from what the previous draw used.
  bool changed_since_draw(uint32_t g) const;
  /// Reports the groups in `groups` (bit g = group g) whose state changed under an unchanged key.
  void report_intruders(uint32_t groups);
  void report(uint32_t group);

  Counters& counters_;
  IntruderPolicy policy_;
  // Bounds in force: min(device limit, capacity), or the capacity without limits.
  uint32_t group_bound_ = kMaxBindGroups;
  uint32_t offset_bound_ = kMaxDynamicOffsetsPerGroup;
  uint32_t vertex_bound_ = kMaxVertexBuffers;
  std::optional<Limits> limits_;  ///< a copy of the device's, read only to word a refusal

  const void* pipeline_ = &kUnbound;  ///< &kUnbound: none set since the last reset
  // Bit g = group g: set since the last reset / set at the previous draw / changed (a call that
  // was issued) since the previous draw.
  uint32_t bound_mask_ = 0, drawn_mask_ = 0, dirty_mask_ = 0;
  std::array<Group, kMaxBindGroups> groups_{};
  std::array<std::array<DynamicOffsets, 2>, kMaxBindGroups> offsets_{};  ///< [group][record]
  // Each group's key as set now, and at the previous draw (valid for the groups in drawn_mask_).
  std::array<uint64_t, kMaxBindGroups> keys_{};
  std::array<uint64_t, kMaxBindGroups> drawn_keys_{};
  std::array<BufferBinding, kMaxVertexBuffers> vertex_{};
  BufferBinding index_{};
  uint32_t index_format_ = 0;

  /// The dynamic offset rules per group (describe_group): the count a layout takes (kAnyCount:
  /// not described), per offset its alignment - 1 and the largest offset its window allows.
  static constexpr uint32_t kAnyCount = UINT32_MAX;
  struct DynamicRules {
    uint32_t count = kAnyCount;
    std::array<uint32_t, kMaxDynamicOffsetsPerGroup> align_mask{};
    std::array<uint64_t, kMaxDynamicOffsetsPerGroup> max_offset{};
  };
  std::array<DynamicRules, kMaxBindGroups> rules_{};

  std::array<BindGroupLayoutDesc, kMaxBindGroups> described_{};
  /// Per group, the changes already in intruders_: bit 0 the bind group, bit 1 + i dynamic
  /// offset i. Lets a known intruder be skipped without building its name again.
  std::array<uint64_t, kMaxBindGroups> reported_{};
  std::vector<IntruderReport> intruders_;
};

static_assert(RenderStateTracker::kMaxBindGroups >= Limits::core_defaults().maxBindGroups,
              "the tracker must hold the core default maxBindGroups");
static_assert(RenderStateTracker::kMaxDynamicOffsetsPerGroup >=
                  Limits::core_defaults().maxDynamicUniformBuffersPerPipelineLayout +
                      Limits::core_defaults().maxDynamicStorageBuffersPerPipelineLayout,
              "the tracker must hold the core default dynamic buffers of a pipeline layout");
static_assert(RenderStateTracker::kMaxVertexBuffers >= Limits::core_defaults().maxVertexBuffers,
              "the tracker must hold the core default maxVertexBuffers");
static_assert(RenderStateTracker::kMaxBindGroups <= 32, "group masks are 32-bit");
static_assert(RenderStateTracker::kMaxDynamicOffsetsPerGroup <= 63, "reported_ masks are 64-bit");

// The per-draw path, inline so that callers (RenderEncoderState, benchmarks) pay no call.

// Unbound state holds &kUnbound, which no handle equals, so a null handle never matches and is
// refused on the issuing path only; a redundant call costs one bounds check and the compares.

inline bool RenderStateTracker::set_pipeline(const void* pipeline) {
  if (pipeline == pipeline_) {
    ++counters_.set_pipeline_skipped;
    return false;
  }
  if (pipeline == nullptr) [[unlikely]]
    refuse_null("set_pipeline", "render pipeline");
  pipeline_ = pipeline;
  ++counters_.set_pipeline;
  return true;
}

inline bool RenderStateTracker::set_bind_group(uint32_t group, const void* bind_group,
                                               std::span<const uint32_t> dynamic_offsets,
                                               Frequency declared, uint64_t key) {
  const size_t count = dynamic_offsets.size();
  if (group >= group_bound_) [[unlikely]]
    refuse_bind_group("set_bind_group", group, bind_group, count);
  if (group >= kMaxBindGroups) __builtin_unreachable();  // group_bound_ <= kMaxBindGroups
  Group& g = groups_[group];
  keys_[group] = key;
  g.declared = declared;
  if (g.bind_group[g.current] == bind_group && g.offset_count[g.current] == count) {
    const DynamicOffsets& now = offsets_[group][g.current];
    size_t i = 0;
    while (i < count && now[i] == dynamic_offsets[i]) ++i;
    if (i == count) {
      ++counters_.set_bind_group_skipped;
      return false;
    }
  }
  if (bind_group == nullptr || count > offset_bound_) [[unlikely]]
    refuse_bind_group("set_bind_group", group, bind_group, count);
  if (breaks_dynamic_rules(group, dynamic_offsets)) [[unlikely]]
    refuse_dynamic_offsets(group, dynamic_offsets);
  const uint32_t bit = 1u << group;
  if ((dirty_mask_ & bit) == 0) g.current ^= 1;  // keep the record the previous draw used
  g.bind_group[g.current] = bind_group;
  g.offset_count[g.current] = static_cast<uint32_t>(count);
  DynamicOffsets& now = offsets_[group][g.current];
  for (size_t i = 0; i < count; ++i) now[i] = dynamic_offsets[i];
  bound_mask_ |= bit;
  dirty_mask_ |= bit;
  ++counters_.set_bind_group;
  return true;
}

inline bool RenderStateTracker::breaks_dynamic_rules(uint32_t group,
                                                     std::span<const uint32_t> offsets) const {
  const DynamicRules& r = rules_[group];
  bool bad = r.count != kAnyCount && r.count != offsets.size();
  for (size_t i = 0; i < offsets.size(); ++i)
    bad |= (offsets[i] & r.align_mask[i]) != 0 || offsets[i] > r.max_offset[i];
  return bad;
}

inline bool RenderStateTracker::set_vertex_buffer(uint32_t slot, const void* buffer,
                                                  uint64_t offset, uint64_t size) {
  if (slot >= vertex_bound_) [[unlikely]]
    refuse_vertex_buffer(slot, buffer);
  if (slot >= kMaxVertexBuffers) __builtin_unreachable();  // vertex_bound_ <= kMaxVertexBuffers
  BufferBinding& v = vertex_[slot];
  if (v.buffer == buffer && v.offset == offset && v.size == size) {
    ++counters_.set_vertex_buffer_skipped;
    return false;
  }
  if (buffer == nullptr) [[unlikely]]
    refuse_vertex_buffer(slot, buffer);
  v = {buffer, offset, size};
  ++counters_.set_vertex_buffer;
  return true;
}

inline bool RenderStateTracker::set_index_buffer(const void* buffer, uint32_t format,
                                                 uint64_t offset, uint64_t size) {
  if (index_.buffer == buffer && index_format_ == format && index_.offset == offset &&
      index_.size == size) {
    ++counters_.set_index_buffer_skipped;
    return false;
  }
  if (buffer == nullptr) [[unlikely]]
    refuse_null("set_index_buffer", "index buffer");
  index_ = {buffer, offset, size};
  index_format_ = format;
  ++counters_.set_index_buffer;
  return true;
}

inline void RenderStateTracker::draw() {
  ++counters_.draws;
  if (policy_ != IntruderPolicy::ignore) record_draw();
  dirty_mask_ = 0;
}

inline bool RenderStateTracker::changed_since_draw(uint32_t g) const {
  const Group& s = groups_[g];
  const uint32_t now = s.current, before = s.current ^ 1u;
  if (s.bind_group[now] != s.bind_group[before] || s.offset_count[now] != s.offset_count[before])
    return true;
  for (uint32_t i = 0; i < s.offset_count[now]; ++i)
    if (offsets_[g][now][i] != offsets_[g][before][i]) return true;
  return false;
}

inline void RenderStateTracker::record_draw() {
  // Only a group changed by an issued call since the previous draw can differ from what that
  // draw used; it is a suspect when it was drawn, is declared below per-object and kept its key.
  uint32_t suspects = 0;
  for (uint32_t m = dirty_mask_ & drawn_mask_; m != 0; m &= m - 1) {
    const uint32_t g = static_cast<uint32_t>(std::countr_zero(m));
    if (groups_[g].declared < Frequency::object && keys_[g] == drawn_keys_[g] &&
        changed_since_draw(g))
      suspects |= 1u << g;
  }
  if (suspects != 0) [[unlikely]]
    report_intruders(suspects);  // may throw: then nothing below is remembered
  // Key by key, not as one block: the keys were just written one by one, and a wide load over
  // several pending narrow stores cannot be forwarded from the store buffer (it stalls).
  for (uint32_t m = bound_mask_; m != 0; m &= m - 1) {
    const int g = std::countr_zero(m);
    drawn_keys_[g] = keys_[g];
  }
  drawn_mask_ = bound_mask_;
}

/// A render pass encoder or a render bundle encoder (borrowed, not owned) behind a
/// RenderStateTracker: issues only the state changes the tracker lets through and counts
/// everything into `counters`. Use the aliases RenderPassState (a pass) and RenderBundleState
/// (recording a render bundle: WebGPU §17.2, a bundle inherits no state and starts empty).
template <class Encoder>
class RenderEncoderState {
 public:
  /// Throws InvalidArgument for a null encoder. `limits`: as for RenderStateTracker (pass
  /// Device::limits() to have group indices, dynamic offset counts and vertex buffer slots
  /// checked against the device's limits; without, only the tracker's capacities apply).
  RenderEncoderState(Encoder encoder, Counters& counters,
                     IntruderPolicy policy = IntruderPolicy::build_default,
                     const Limits* limits = nullptr);

  // Every call below throws before anything reaches the encoder (wgpu-native aborts the process
  // on such calls): InvalidArgument for a null pipeline, buffer or bundle, and the bounds errors
  // of RenderStateTracker (TooManyBindGroups, TooManyDynamicOffsets, InvalidArgument for a vertex
  // buffer slot, ImplementationLimit).

  /// setPipeline(pipeline) unless it is the pipeline bound (RenderStateTracker::set_pipeline).
  void set_pipeline(WGPURenderPipeline pipeline);
  /// setBindGroup(group, bind_group, dynamic_offsets) unless redundant. `declared` / `key`: see
  /// RenderStateTracker::set_bind_group (defaults: per-object, no intruder check).
  void set_bind_group(uint32_t group, WGPUBindGroup bind_group,
                      std::span<const uint32_t> dynamic_offsets = {},
                      Frequency declared = Frequency::object, uint64_t key = 0);
  /// setVertexBuffer(slot, buffer, offset, size) unless redundant; offset and size in bytes
  /// (WGPU_WHOLE_SIZE: to the end of the buffer).
  void set_vertex_buffer(uint32_t slot, WGPUBuffer buffer, uint64_t offset = 0,
                         uint64_t size = WGPU_WHOLE_SIZE);
  /// setIndexBuffer(buffer, format, offset, size) unless redundant; offset and size in bytes.
  void set_index_buffer(WGPUBuffer buffer, WGPUIndexFormat format, uint64_t offset = 0,
                        uint64_t size = WGPU_WHOLE_SIZE);
  /// draw(...) (WebGPU GPURenderCommandsMixin.draw): counts one draw and runs the intruder
  /// check first (RenderStateTracker::draw; throws Intruder under IntruderPolicy::error).
  void draw(uint32_t vertex_count, uint32_t instance_count = 1, uint32_t first_vertex = 0,
            uint32_t first_instance = 0);
  /// drawIndexed(...) with the index buffer set: counted and checked like draw().
  void draw_indexed(uint32_t index_count, uint32_t instance_count = 1, uint32_t first_index = 0,
                    int32_t base_vertex = 0, uint32_t first_instance = 0);
  /// setImmediates(offset, data): immediate data for the following draws (wgpu-native's
  /// Immediates feature, WGSL var<immediate>), issued every time (no elision: per-draw data
  /// differs per draw). Counts set_immediates and immediate_bytes. Throws InvalidArgument when
  /// `offset` or the size is not a multiple of 4 or the data is empty, ImmediateSizeTooLarge when
  /// offset + size exceeds the maxImmediateSize of the limits given to the constructor.
  void set_immediates(uint32_t offset, std::span<const std::byte> data);
  /// drawIndexedIndirect with the 20-byte arguments at `offset` (a multiple of 4) of
  /// `indirect_buffer` (usage INDIRECT). Counted as one draw.
  void draw_indexed_indirect(WGPUBuffer indirect_buffer, uint64_t offset);
  /// Passes only: executeBundles, then forgets all state (WebGPU clears it; cases rule 11).
  /// Counts one execute_bundles call.
  void execute_bundles(std::span<const WGPURenderBundle> bundles) requires
      std::is_same_v<Encoder, WGPURenderPassEncoder>;

  /// The tracker behind this encoder: its intruders() and policy(), or reset() after state was
  /// changed on the raw encoder behind bindery's back.
  RenderStateTracker& tracker() { return tracker_; }
  /// The borrowed encoder, for calls this class does not wrap (still owned by the caller).
  Encoder get() const { return encoder_; }

 private:
  Encoder encoder_;
  Counters* counters_;
  uint32_t max_immediate_size_ = UINT32_MAX;  ///< the device's maxImmediateSize when given
  RenderStateTracker tracker_;
};

/// A render pass encoder behind the tracker (WebGPU §17 GPURenderPassEncoder).
using RenderPassState = RenderEncoderState<WGPURenderPassEncoder>;
/// A render bundle encoder behind the tracker (WebGPU §17.2 GPURenderBundleEncoder); starts empty,
/// like the bundle it records.
using RenderBundleState = RenderEncoderState<WGPURenderBundleEncoder>;

extern template class RenderEncoderState<WGPURenderPassEncoder>;
extern template class RenderEncoderState<WGPURenderBundleEncoder>;

}  // namespace bindery
