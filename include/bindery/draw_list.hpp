// bindery/draw_list.hpp — a sorted draw list and a render-pass encoder that skips redundant state
// changes, counts what it issues and skips, and detects bind-group intruders at run time.
//
// Use:
//   DrawList list;
//   list.add(DrawItem{.pipeline = 0, .material = m, .mesh = 0, .object_slot = i});
//   list.sort(DrawOrder::material);                       // or DrawOrder::depth
//   RenderPassState state(pass_encoder, device.counters());
//   for (const DrawItem& item : list.items()) {
//     state.set_pipeline(pipelines[item.pipeline]);
//     state.set_bind_group(0, frame_bg, {}, Frequency::frame, 0);
//     state.set_bind_group(1, material_bg[item.material], {}, Frequency::material, item.material);
//     uint32_t offset = item.object_slot * stride;
//     state.set_bind_group(2, object_bg, {&offset, 1}, Frequency::object, item.object_slot);
//     state.set_vertex_buffer(0, vertices);  state.set_index_buffer(indices,
//     WGPUIndexFormat_Uint16); state.draw_indexed(index_count);
//   }
//
// Redundant-state elision (WebGPU §17 GPURenderPassEncoder; shared/cases C01 and rule 11):
//   - setPipeline with the bound pipeline, setBindGroup(g) with the same bind group AND the same
//     dynamic offsets, setVertexBuffer(slot) / setIndexBuffer with the same buffer, format, offset
//     and size are skipped; everything made or skipped is added to a bindery::Counters.
//   - Bind groups stay bound across setPipeline (WebGPU keeps them in the pass encoder).
//   - Nothing carries across passes (a new RenderPassState starts empty) and executeBundles clears
//     the pipeline, bind groups, vertex and index buffers (RenderPassState::execute_bundles
//     resets).
//
// Run-time intruders (seed 001, "El error que arruina el reparto"): each setBindGroup carries the
// group's DECLARED frequency and the key of that frequency for the coming draw (material id for a
// material group, 0 for frame data, ...). A group below Frequency::object whose bind group or
// offsets change between two consecutive draws that share its key is an intruder: reported once
// per binding with its declared frequency and the frequency observed (the lowest higher-declared
// group whose key did change, else object). IntruderPolicy::error throws bindery::Error(Intruder).
//
// The decision logic is RenderStateTracker, a pure class over opaque handles (tests need no
// device); RenderPassState is the thin webgpu.h layer that issues what the tracker lets through.
#pragma once

#include "bindery/bind_group_plan.hpp"
#include "bindery/counters.hpp"
#include "bindery/sort_key.hpp"

#include <webgpu/webgpu.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace bindery {

/// One draw: what it binds and where it is. Ids index the caller's own tables.
struct DrawItem {
  uint32_t pipeline = 0;     ///< < 1 << sort_key::kPipelineBits (4096)
  uint32_t material = 0;     ///< < 1 << sort_key::kMaterialBits (1048576)
  uint32_t mesh = 0;         ///< < 1 << sort_key::kMeshBits (1048576)
  uint32_t object_slot = 0;  ///< per-object slot: dynamic offset = slot * stride, or instance index
  float depth = 0.0f;        ///< view-space distance, finite and >= 0 (used by DrawOrder::depth)
};

/// How DrawList::sort orders the items (sort_key.hpp documents both key layouts).
enum class DrawOrder {
  material,  ///< pipeline > material > mesh (default; minimises re-binds)
  depth,     ///< pipeline > depth front to back > material
};

/// A list of draws sorted by a 64-bit key. Sorting is stable: equal keys keep insertion order.
class DrawList {
 public:
  /// Appends a draw. Throws InvalidArgument when an id does not fit its key field or the depth
  /// is negative, NaN or infinite (the message names the field, the value and the maximum).
  void add(const DrawItem& item);
  /// Sorts by the key of `order` (stable).
  void sort(DrawOrder order = DrawOrder::material);
  /// The items, in insertion order until sort() is called, then in key order.
  std::span<const DrawItem> items() const { return items_; }
  size_t size() const { return items_.size(); }
  void clear() { items_.clear(); }
  void reserve(size_t n) { items_.reserve(n); }

  /// The sort key of `item` for `order` (sort_key::material_order / depth_order).
  static uint64_t key(const DrawItem& item, DrawOrder order);

 private:
  std::vector<DrawItem> items_;
};

/// What to do with a run-time intruder.
enum class IntruderPolicy {
  build_default,  ///< `error` when the library is built without NDEBUG, else `report`
  ignore,         ///< no check
  report,         ///< record it once per binding (RenderStateTracker::intruders())
  error,          ///< record it and throw bindery::Error(ErrorKind::Intruder)
};

/// One intruder found while encoding.
struct IntruderReport {
  uint32_t group = 0;
  std::string binding;  ///< binding name (dynamic offset) or the group's label (bind group)
  Frequency declared = Frequency::frame;
  Frequency observed = Frequency::object;
  std::string message;
};

/// The pure decision logic of redundant-state elision: each set_* returns true when the call
/// must be issued and false when it is redundant, and counts both in `counters`. Handles are
/// opaque pointers (a WGPUBindGroup, or any unique address in tests).
class RenderStateTracker {
 public:
  /// `counters` must outlive the tracker.
  explicit RenderStateTracker(Counters& counters,
                              IntruderPolicy policy = IntruderPolicy::build_default);

  /// Optional: names for group `group`'s bindings in intruder reports; dynamic offsets map to
  /// the layout's dynamic entries sorted by binding number (shared/cases D05).
  void describe_group(uint32_t group, const BindGroupLayoutDesc& layout);

  bool set_pipeline(const void* pipeline);
  /// `declared` and `key`: the group's declared frequency and this draw's key of that frequency.
  bool set_bind_group(uint32_t group, const void* bind_group,
                      std::span<const uint32_t> dynamic_offsets, Frequency declared, uint64_t key);
  bool set_vertex_buffer(uint32_t slot, const void* buffer, uint64_t offset, uint64_t size);
  bool set_index_buffer(const void* buffer, uint32_t format, uint64_t offset, uint64_t size);
  /// Call right before each draw: counts it and runs the intruder check. Throws Intruder under
  /// IntruderPolicy::error.
  void draw();
  /// Forgets all bound state (a new pass; after executeBundles).
  void reset();

  /// Intruders found so far, one per (group, binding).
  const std::vector<IntruderReport>& intruders() const { return intruders_; }
  /// The policy in force (build_default resolved).
  IntruderPolicy policy() const { return policy_; }

 private:
  struct Slot {
    bool bound = false;
    const void* bind_group = nullptr;
    std::vector<uint32_t> offsets;
    Frequency declared = Frequency::object;
    uint64_t key = 0;
    // The state the previous draw used (valid when `drawn`).
    bool drawn = false;
    const void* drawn_bind_group = nullptr;
    std::vector<uint32_t> drawn_offsets;
    uint64_t drawn_key = 0;
  };
  struct VertexSlot {
    bool bound = false;
    const void* buffer = nullptr;
    uint64_t offset = 0, size = 0;
  };
  void report(uint32_t group, const Slot& slot);

  Counters& counters_;
  IntruderPolicy policy_;
  const void* pipeline_ = nullptr;
  bool pipeline_bound_ = false;
  std::map<uint32_t, Slot> groups_;
  std::map<uint32_t, VertexSlot> vertex_;
  VertexSlot index_;
  uint32_t index_format_ = 0;
  std::map<uint32_t, BindGroupLayoutDesc> described_;
  std::vector<IntruderReport> intruders_;
};

/// A render pass encoder or a render bundle encoder (borrowed, not owned) behind a
/// RenderStateTracker: issues only the state changes the tracker lets through and counts
/// everything into `counters`. Use the aliases RenderPassState (a pass) and RenderBundleState
/// (recording a render bundle: WebGPU §17.2, a bundle inherits no state and starts empty).
template <class Encoder>
class RenderEncoderState {
 public:
  /// Throws InvalidArgument for a null encoder. Without `limits`, group indices are not checked
  /// against maxBindGroups (pass Device::limits() to have them checked).
  RenderEncoderState(Encoder encoder, Counters& counters,
                     IntruderPolicy policy = IntruderPolicy::build_default,
                     const Limits* limits = nullptr);

  // Every call below throws InvalidArgument for a null pipeline, buffer or bundle, and
  // TooManyBindGroups for a group index >= maxBindGroups (when limits were given), before
  // anything reaches the encoder: wgpu-native aborts the process on such calls.

  void set_pipeline(WGPURenderPipeline pipeline);
  /// setBindGroup(group, bind_group, dynamic_offsets) unless redundant. `declared` / `key`: see
  /// RenderStateTracker::set_bind_group (defaults: per-object, no intruder check).
  void set_bind_group(uint32_t group, WGPUBindGroup bind_group,
                      std::span<const uint32_t> dynamic_offsets = {},
                      Frequency declared = Frequency::object, uint64_t key = 0);
  void set_vertex_buffer(uint32_t slot, WGPUBuffer buffer, uint64_t offset = 0,
                         uint64_t size = WGPU_WHOLE_SIZE);
  void set_index_buffer(WGPUBuffer buffer, WGPUIndexFormat format, uint64_t offset = 0,
                        uint64_t size = WGPU_WHOLE_SIZE);
  void draw(uint32_t vertex_count, uint32_t instance_count = 1, uint32_t first_vertex = 0,
            uint32_t first_instance = 0);
  void draw_indexed(uint32_t index_count, uint32_t instance_count = 1, uint32_t first_index = 0,
                    int32_t base_vertex = 0, uint32_t first_instance = 0);
  /// drawIndexedIndirect with the 20-byte arguments at `offset` (a multiple of 4) of
  /// `indirect_buffer` (usage INDIRECT). Counted as one draw.
  void draw_indexed_indirect(WGPUBuffer indirect_buffer, uint64_t offset);
  /// Passes only: executeBundles, then forgets all state (WebGPU clears it; cases rule 11).
  /// Counts one execute_bundles call.
  void execute_bundles(std::span<const WGPURenderBundle> bundles) requires
      std::is_same_v<Encoder, WGPURenderPassEncoder>;

  RenderStateTracker& tracker() { return tracker_; }
  Encoder get() const { return encoder_; }

 private:
  Encoder encoder_;
  Counters* counters_;
  const Limits* limits_;
  RenderStateTracker tracker_;
};

using RenderPassState = RenderEncoderState<WGPURenderPassEncoder>;
using RenderBundleState = RenderEncoderState<WGPURenderBundleEncoder>;

extern template class RenderEncoderState<WGPURenderPassEncoder>;
extern template class RenderEncoderState<WGPURenderBundleEncoder>;

}  // namespace bindery
