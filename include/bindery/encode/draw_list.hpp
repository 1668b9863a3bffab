// SPDX-License-Identifier: MIT
/// @file
/// bindery/encode/draw_list.hpp — a sorted draw list; with it (included here) the render-pass
/// encoder of bindery/encode/render_pass_state.hpp that skips redundant state changes, counts
/// what it issues and skips, and detects bind-group intruders at run time.
///
/// Use:
/// @code
///   DrawList list;
///   list.add(DrawItem{.pipeline = 0, .material = m, .mesh = 0, .object_slot = i});
///   list.sort(DrawOrder::material);                       // or DrawOrder::depth
///   RenderPassState state(pass_encoder, device.counters());
///   for (const DrawItem& item : list.items()) {
///     state.set_pipeline(pipelines[item.pipeline]);
///     state.set_bind_group(0, frame_bg, {}, Frequency::frame, 0);
///     state.set_bind_group(1, material_bg[item.material], {}, Frequency::material, item.material);
///     uint32_t offset = item.object_slot * stride;
///     state.set_bind_group(2, object_bg, {&offset, 1}, Frequency::object, item.object_slot);
///     state.set_vertex_buffer(0, vertices);
///     state.set_index_buffer(indices, WGPUIndexFormat_Uint16);
///     state.draw_indexed(index_count);
///   }
/// @endcode
///
/// Redundant-state elision (WebGPU §17 GPURenderPassEncoder; the cases (docs/REFERENCES.md) C01 and rule 11):
///   - setPipeline with the bound pipeline, setBindGroup(g) with the same bind group AND the same
///     dynamic offsets, setVertexBuffer(slot) / setIndexBuffer with the same buffer, format, offset
///     and size are skipped; everything made or skipped is added to a bindery::Counters.
///   - Bind groups stay bound across setPipeline (WebGPU keeps them in the pass encoder).
///   - Nothing carries across passes (a new RenderPassState starts empty) and executeBundles clears
///     the pipeline, bind groups, vertex and index buffers (RenderPassState::execute_bundles
///     resets).
///
/// Run-time intruders (the by-frequency note, "El error que arruina el reparto"): each setBindGroup carries the
/// group's DECLARED frequency and the key of that frequency for the coming draw (material id for a
/// material group, 0 for frame data, ...). A group below Frequency::object whose bind group or
/// offsets change between two consecutive draws that share its key is an intruder: reported once
/// per binding with its declared frequency and the frequency observed (the lowest higher-declared
/// group whose key did change, else object). IntruderPolicy::error throws bindery::Error(Intruder).
///
/// The decision logic is RenderStateTracker, a pure class over opaque handles (tests need no
/// device); RenderPassState is the thin webgpu.h layer that issues what the tracker lets through.
/// The tracker keeps fixed-size inline state bounded by the device's maxBindGroups, dynamic buffer
/// and maxVertexBuffers limits (it refuses anything beyond them) and costs a few ns per draw
/// (bench/tracker_bench.cpp, docs/BENCHMARKS.md).
#pragma once

#include "bindery/encode/bind_group_plan.hpp"
#include "bindery/encode/render_pass_state.hpp"
#include "bindery/core/counters.hpp"
#include "bindery/core/limits.hpp"
#include "bindery/encode/sort_key.hpp"
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
  /// Number of draws added since construction or the last clear().
  size_t size() const { return items_.size(); }
  /// Removes every draw (the capacity stays, so a per-frame list allocates once).
  void clear() { items_.clear(); }
  /// Reserves room for `n` draws (std::vector::reserve; may throw std::bad_alloc).
  void reserve(size_t n) { items_.reserve(n); }

  /// The sort key of `item` for `order` (sort_key::material_order / depth_order).
  static uint64_t key(const DrawItem& item, DrawOrder order);

 private:
  std::vector<DrawItem> items_;
};

}  // namespace bindery
