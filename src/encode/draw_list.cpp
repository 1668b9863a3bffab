// SPDX-License-Identifier: MIT
// The sorted draw list, the redundant-state tracker and the webgpu.h render-pass layer.
// See bindery/draw_list.hpp.
#include "bindery/encode/draw_list.hpp"
#include "bindery/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

namespace bindery {

namespace {
void check_field(const char* field, uint32_t value, unsigned bits) {
  const uint64_t limit = uint64_t{1} << bits;
  if (value >= limit) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("DrawList::add: DrawItem.{} = {} does not fit the {}-bit sort key "
                            "field (maximum {})",
                            field, value, bits, limit - 1));
  }
}
}  // namespace

void DrawList::add(const DrawItem& item) {
  check_field("pipeline", item.pipeline, sort_key::kPipelineBits);
  check_field("material", item.material, sort_key::kMaterialBits);
  check_field("mesh", item.mesh, sort_key::kMeshBits);
  if (!std::isfinite(item.depth) || item.depth < 0.0f) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("DrawList::add: DrawItem.depth = {} must be finite and >= 0 "
                            "(view-space distance)",
                            item.depth));
  }
  items_.push_back(item);
}

uint64_t DrawList::key(const DrawItem& item, DrawOrder order) {
  return order == DrawOrder::material
             ? sort_key::material_order(item.pipeline, item.material, item.mesh)
             : sort_key::depth_order(item.pipeline, item.depth, item.material);
}

void DrawList::sort(DrawOrder order) {
  std::vector<std::pair<uint64_t, uint32_t>> keyed(items_.size());
  for (uint32_t i = 0; i < items_.size(); ++i) keyed[i] = {key(items_[i], order), i};
  std::sort(keyed.begin(), keyed.end());  // (key, insertion index): stable by construction
  std::vector<DrawItem> sorted;
  sorted.reserve(items_.size());
  for (const auto& [k, i] : keyed) sorted.push_back(items_[i]);
  items_ = std::move(sorted);
}

// ---------------------------------------------------------------------------------------------

RenderStateTracker::RenderStateTracker(Counters& counters, IntruderPolicy policy,
                                       const Limits* limits)
    : counters_(counters), policy_(policy) {
  if (policy_ == IntruderPolicy::build_default) {
#ifdef NDEBUG
    policy_ = IntruderPolicy::report;
#else
    policy_ = IntruderPolicy::error;
#endif
  }
  if (limits) {
    limits_ = *limits;
    group_bound_ = std::min(limits->maxBindGroups, kMaxBindGroups);
    const uint64_t dynamic = uint64_t{limits->maxDynamicUniformBuffersPerPipelineLayout} +
                             limits->maxDynamicStorageBuffersPerPipelineLayout;
    offset_bound_ = static_cast<uint32_t>(std::min<uint64_t>(dynamic, kMaxDynamicOffsetsPerGroup));
    vertex_bound_ = std::min(limits->maxVertexBuffers, kMaxVertexBuffers);
  }
  // Without a description the limits alone decide: every dynamic offset is a multiple of the
  // smaller alignment (a uniform or a storage entry's); no window bounds it.
  const uint32_t align =
      limits ? std::min(limits->minUniformBufferOffsetAlignment,
                        limits->minStorageBufferOffsetAlignment)
             : 1;
  for (DynamicRules& r : rules_) {
    r.align_mask.fill(align == 0 ? 0 : align - 1);
    r.max_offset.fill(UINT64_MAX);
  }
}

void RenderStateTracker::describe_group(uint32_t group, const BindGroupLayoutDesc& layout,
                                        std::span<const BufferBindingWindow> windows) {
  describe_group(group, layout);
  std::vector<const BindingLayoutEntry*> dynamic;
  for (const BindingLayoutEntry& e : layout.entries)
    if (e.has_dynamic_offset) dynamic.push_back(&e);
  std::sort(dynamic.begin(), dynamic.end(),
            [](auto* a, auto* b) { return a->binding < b->binding; });  // D05: binding order
  if (dynamic.size() > kMaxDynamicOffsetsPerGroup)
    refuse_bind_group("describe_group", group, &layout, dynamic.size());
  DynamicRules r;
  r.count = static_cast<uint32_t>(dynamic.size());
  for (size_t i = 0; i < dynamic.size(); ++i) {
    const BindingLayoutEntry& e = *dynamic[i];
    const uint32_t align = !limits_            ? 1
                           : is_storage(e.kind) ? limits_->minStorageBufferOffsetAlignment
                                                : limits_->minUniformBufferOffsetAlignment;
    r.align_mask[i] = align == 0 ? 0 : align - 1;
    const auto w = std::find_if(windows.begin(), windows.end(),
                                [&](const BufferBindingWindow& x) { return x.binding == e.binding; });
    if (w == windows.end())
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("describe_group({}): dynamic binding {} ('{}') has no buffer window",
                              group, e.binding, escape_for_message(e.name)));
    const uint64_t size = w->size == kWholeSize
                              ? (w->buffer_size > w->offset ? w->buffer_size - w->offset : 0)
                              : w->size;
    const uint64_t end = w->offset + size;
    r.max_offset[i] = end <= w->buffer_size ? w->buffer_size - end : 0;
  }
  rules_[group] = r;
}

void RenderStateTracker::refuse_dynamic_offsets(uint32_t group,
                                                std::span<const uint32_t> offsets) const {
  const DynamicRules& r = rules_[group];
  const BindGroupLayoutDesc& d = described_[group];
  if (r.count != kAnyCount && r.count != offsets.size())
    throw Error(ErrorKind::DynamicOffsetCount,
                fmt::format("set_bind_group({}): {} dynamic offsets given; the layout{} has {} "
                            "dynamic entries",
                            group, offsets.size(),
                            d.label.empty() ? "" : " '" + escape_for_message(d.label) + "'",
                            r.count));
  for (size_t i = 0; i < offsets.size(); ++i) {
    if ((offsets[i] & r.align_mask[i]) != 0) {
      std::string limit = "min(minUniformBufferOffsetAlignment, minStorageBufferOffsetAlignment)";
      if (r.count != kAnyCount && limits_) {
        std::vector<const BindingLayoutEntry*> dynamic;
        for (const BindingLayoutEntry& e : d.entries)
          if (e.has_dynamic_offset) dynamic.push_back(&e);
        std::sort(dynamic.begin(), dynamic.end(),
                  [](auto* a, auto* b) { return a->binding < b->binding; });
        if (i < dynamic.size())
          limit = is_storage(dynamic[i]->kind) ? "minStorageBufferOffsetAlignment"
                                               : "minUniformBufferOffsetAlignment";
      }
      throw Error(ErrorKind::DynamicOffsetAlignment,
                  fmt::format("set_bind_group({}): dynamic offset {} ({}) is not a multiple of "
                              "{} ({})",
                              group, i, offsets[i], limit, uint64_t{r.align_mask[i]} + 1));
    }
    if (offsets[i] > r.max_offset[i])
      throw Error(ErrorKind::DynamicOffsetOutOfBounds,
                  fmt::format("set_bind_group({}): dynamic offset {} ({}) moves the binding "
                              "window past the end of its buffer (at most {} fits: "
                              "window offset + size + dynamic offset <= buffer size)",
                              group, i, offsets[i], r.max_offset[i]));
  }
  throw Error(ErrorKind::Internal, "set_bind_group: dynamic offsets refused without a reason");
}

void RenderStateTracker::refuse_null(const char* call, const char* what) {
  throw Error(
      ErrorKind::InvalidArgument,
      fmt::format("{}: null {} handle (wgpu-native aborts the process on one)", call, what));
}

void RenderStateTracker::refuse_bind_group(const char* call, uint32_t group, const void* bind_group,
                                           size_t offset_count) const {
  if (group >= group_bound_) {
    if (limits_ && group >= limits_->maxBindGroups)
      throw Error(ErrorKind::TooManyBindGroups,
                  fmt::format("{}({}): group index must be below maxBindGroups ({})", call, group,
                              limits_->maxBindGroups));
    throw Error(ErrorKind::ImplementationLimit,
                fmt::format("{}({}): the state tracker holds groups 0 to {} "
                            "(RenderStateTracker::kMaxBindGroups){}",
                            call, group, kMaxBindGroups - 1,
                            limits_ ? fmt::format("; the device allows {}", limits_->maxBindGroups)
                                    : std::string("; no device limits given")));
  }
  if (bind_group == nullptr) refuse_null(call, "bind group");
  const uint64_t allowed = limits_ ? uint64_t{limits_->maxDynamicUniformBuffersPerPipelineLayout} +
                                         limits_->maxDynamicStorageBuffersPerPipelineLayout
                                   : 0;
  if (limits_ && offset_count > allowed)
    throw Error(
        ErrorKind::TooManyDynamicOffsets,
        fmt::format("{}({}): {} dynamic offsets, more than a pipeline layout can use: "
                    "maxDynamicUniformBuffersPerPipelineLayout ({}) + "
                    "maxDynamicStorageBuffersPerPipelineLayout ({}) = {}",
                    call, group, offset_count, limits_->maxDynamicUniformBuffersPerPipelineLayout,
                    limits_->maxDynamicStorageBuffersPerPipelineLayout, allowed));
  throw Error(ErrorKind::ImplementationLimit,
              fmt::format("{}({}): {} dynamic offsets; the state tracker holds {} per group "
                          "(RenderStateTracker::kMaxDynamicOffsetsPerGroup){}",
                          call, group, offset_count, kMaxDynamicOffsetsPerGroup,
                          limits_ ? fmt::format("; the device allows {}", allowed)
                                  : std::string("; no device limits given")));
}

void RenderStateTracker::refuse_vertex_buffer(uint32_t slot, const void* buffer) const {
  if (slot < vertex_bound_ && buffer == nullptr) refuse_null("set_vertex_buffer", "vertex buffer");
  if (limits_ && slot >= limits_->maxVertexBuffers)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("set_vertex_buffer({}): slot must be below maxVertexBuffers ({})", slot,
                            limits_->maxVertexBuffers));
  throw Error(ErrorKind::ImplementationLimit,
              fmt::format("set_vertex_buffer({}): the state tracker holds slots 0 to {} "
                          "(RenderStateTracker::kMaxVertexBuffers){}",
                          slot, kMaxVertexBuffers - 1,
                          limits_ ? fmt::format("; the device allows {}", limits_->maxVertexBuffers)
                                  : std::string("; no device limits given")));
}

void RenderStateTracker::describe_group(uint32_t group, const BindGroupLayoutDesc& layout) {
  if (group >= group_bound_) refuse_bind_group("describe_group", group, &layout, 0);
  described_[group] = layout;
  reported_[group] = 0;  // binding names may differ now: look them up again
}

void RenderStateTracker::report_intruders(uint32_t groups) {
  for (uint32_t m = groups; m != 0; m &= m - 1) report(static_cast<uint32_t>(std::countr_zero(m)));
}

void RenderStateTracker::report(uint32_t group) {
  // A suspect is dirty: record `current` is its state now, `current ^ 1` the previous draw's.
  const Group& gs = groups_[group];
  const Frequency declared = gs.declared;
  const uint32_t now = gs.current, before = gs.current ^ 1u;
  const DynamicOffsets& s = offsets_[group][now];
  const DynamicOffsets& d = offsets_[group][before];
  const uint32_t s_count = gs.offset_count[now], d_count = gs.offset_count[before];
  // What changed since the previous draw: bit 0 the bind group, bit 1 + i dynamic offset i.
  uint64_t changes = gs.bind_group[now] != gs.bind_group[before] ? 1 : 0;
  for (uint32_t i = 0; i < std::max(s_count, d_count); ++i) {
    if (i < s_count && i < d_count && s[i] == d[i]) continue;
    changes |= uint64_t{2} << i;
  }
  if ((changes & ~reported_[group]) == 0) return;  // all reported before: nothing to build

  // Observed frequency: the lowest declared frequency above this group's among the groups whose
  // key did change since the previous draw; with none, the binding changes on every draw.
  Frequency observed = Frequency::object;
  for (uint32_t m = bound_mask_ & drawn_mask_; m != 0; m &= m - 1) {
    const int g = std::countr_zero(m);
    if (static_cast<uint32_t>(g) != group && keys_[g] != drawn_keys_[g] &&
        groups_[g].declared > declared)
      observed = std::min(observed, groups_[g].declared);
  }
  const BindGroupLayoutDesc& described = described_[group];
  const std::string group_name =
      !described.label.empty() ? described.label : fmt::format("group {}", group);
  std::vector<const BindingLayoutEntry*> dynamic;
  for (const BindingLayoutEntry& e : described.entries)
    if (e.has_dynamic_offset) dynamic.push_back(&e);
  std::sort(dynamic.begin(), dynamic.end(),
            [](auto* a, auto* b) { return a->binding < b->binding; });

  for (uint64_t m = changes & ~reported_[group]; m != 0; m &= m - 1) {
    const int bit = std::countr_zero(m);
    reported_[group] |= uint64_t{1} << bit;
    const size_t i = static_cast<size_t>(bit - 1);  // dynamic offset index when bit > 0
    const std::string name = bit == 0 ? group_name
                             : i < dynamic.size()
                                 ? dynamic[i]->name
                                 : fmt::format("{} dynamic offset {}", group_name, i);
    const char* what = bit == 0 ? "bind group" : "dynamic offset";
    const bool seen =
        std::any_of(intruders_.begin(), intruders_.end(),
                    [&](const IntruderReport& r) { return r.group == group && r.binding == name; });
    if (seen) continue;
    IntruderReport r{group, name, declared, observed,
                     fmt::format("intruder: @group({}) '{}' is declared {} but its {} changed "
                                 "between two draws with the same {} key ({}): it changes per {}",
                                 group, name, to_string(declared), what, to_string(declared),
                                 keys_[group], to_string(observed))};
    intruders_.push_back(r);
    if (policy_ == IntruderPolicy::error) throw Error(ErrorKind::Intruder, r.message);
  }
}

void RenderStateTracker::reset() {
  pipeline_ = &kUnbound;
  for (Group& g : groups_) g.bind_group = {&kUnbound, &kUnbound};
  bound_mask_ = drawn_mask_ = dirty_mask_ = 0;
  for (BufferBinding& v : vertex_) v.buffer = &kUnbound;
  index_ = {};
  index_format_ = 0;
}

// ---------------------------------------------------------------------------------------------

namespace {

// The webgpu.h entry points of each encoder type, so one implementation serves both.
template <class E>
struct EncoderCalls;

template <>
struct EncoderCalls<WGPURenderPassEncoder> {
  static constexpr const char* kName = "RenderPassState";
  static constexpr auto set_pipeline = wgpuRenderPassEncoderSetPipeline;
  static constexpr auto set_bind_group = wgpuRenderPassEncoderSetBindGroup;
  static constexpr auto set_vertex_buffer = wgpuRenderPassEncoderSetVertexBuffer;
  static constexpr auto set_index_buffer = wgpuRenderPassEncoderSetIndexBuffer;
  static constexpr auto draw = wgpuRenderPassEncoderDraw;
  static constexpr auto draw_indexed = wgpuRenderPassEncoderDrawIndexed;
  static constexpr auto draw_indexed_indirect = wgpuRenderPassEncoderDrawIndexedIndirect;
  static constexpr auto set_immediates = wgpuRenderPassEncoderSetImmediates;
};

template <>
struct EncoderCalls<WGPURenderBundleEncoder> {
  static constexpr const char* kName = "RenderBundleState";
  static constexpr auto set_pipeline = wgpuRenderBundleEncoderSetPipeline;
  static constexpr auto set_bind_group = wgpuRenderBundleEncoderSetBindGroup;
  static constexpr auto set_vertex_buffer = wgpuRenderBundleEncoderSetVertexBuffer;
  static constexpr auto set_index_buffer = wgpuRenderBundleEncoderSetIndexBuffer;
  static constexpr auto draw = wgpuRenderBundleEncoderDraw;
  static constexpr auto draw_indexed = wgpuRenderBundleEncoderDrawIndexed;
  static constexpr auto draw_indexed_indirect = wgpuRenderBundleEncoderDrawIndexedIndirect;
  static constexpr auto set_immediates = wgpuRenderBundleEncoderSetImmediates;
};

}  // namespace

template <class E>
RenderEncoderState<E>::RenderEncoderState(E encoder, Counters& counters, IntruderPolicy policy,
                                          const Limits* limits)
    : encoder_(encoder),
      counters_(&counters),
      max_immediate_size_(limits ? limits->maxImmediateSize : UINT32_MAX),
      tracker_(counters, policy, limits) {
  if (!encoder_)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: null encoder", EncoderCalls<E>::kName));
}

namespace {
void require_handle(const void* handle, const char* state, const char* call) {
  if (handle == nullptr)
    throw Error(ErrorKind::InvalidArgument, fmt::format("{}::{}: null handle", state, call));
}
}  // namespace

// The tracker refuses null handles and out-of-range indices before anything is issued.

template <class E>
void RenderEncoderState<E>::set_pipeline(WGPURenderPipeline pipeline) {
  if (tracker_.set_pipeline(pipeline)) EncoderCalls<E>::set_pipeline(encoder_, pipeline);
}

template <class E>
void RenderEncoderState<E>::set_bind_group(uint32_t group, WGPUBindGroup bind_group,
                                           std::span<const uint32_t> dynamic_offsets,
                                           Frequency declared, uint64_t key) {
  if (tracker_.set_bind_group(group, bind_group, dynamic_offsets, declared, key)) {
    EncoderCalls<E>::set_bind_group(encoder_, group, bind_group, dynamic_offsets.size(),
                                    dynamic_offsets.empty() ? nullptr : dynamic_offsets.data());
  }
}

template <class E>
void RenderEncoderState<E>::set_vertex_buffer(uint32_t slot, WGPUBuffer buffer, uint64_t offset,
                                              uint64_t size) {
  if (tracker_.set_vertex_buffer(slot, buffer, offset, size))
    EncoderCalls<E>::set_vertex_buffer(encoder_, slot, buffer, offset, size);
}

template <class E>
void RenderEncoderState<E>::set_index_buffer(WGPUBuffer buffer, WGPUIndexFormat format,
                                             uint64_t offset, uint64_t size) {
  if (tracker_.set_index_buffer(buffer, static_cast<uint32_t>(format), offset, size))
    EncoderCalls<E>::set_index_buffer(encoder_, buffer, format, offset, size);
}

template <class E>
void RenderEncoderState<E>::draw(uint32_t vertex_count, uint32_t instance_count,
                                 uint32_t first_vertex, uint32_t first_instance) {
  tracker_.draw();
  EncoderCalls<E>::draw(encoder_, vertex_count, instance_count, first_vertex, first_instance);
}

template <class E>
void RenderEncoderState<E>::draw_indexed(uint32_t index_count, uint32_t instance_count,
                                         uint32_t first_index, int32_t base_vertex,
                                         uint32_t first_instance) {
  tracker_.draw();
  EncoderCalls<E>::draw_indexed(encoder_, index_count, instance_count, first_index, base_vertex,
                                first_instance);
}

template <class E>
void RenderEncoderState<E>::set_immediates(uint32_t offset, std::span<const std::byte> data) {
  const uint64_t size = data.size();
  if (size == 0 || offset % 4 != 0 || size % 4 != 0) [[unlikely]]
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: setImmediates needs an offset and a non-zero size that are "
                            "multiples of 4 (got offset {}, size {})",
                            EncoderCalls<E>::kName, offset, size));
  if (offset + size > max_immediate_size_) [[unlikely]]
    throw Error(ErrorKind::ImmediateSizeTooLarge,
                fmt::format("{}: setImmediates of {} bytes at offset {} exceeds the device's "
                            "maxImmediateSize ({})",
                            EncoderCalls<E>::kName, size, offset, max_immediate_size_));
  EncoderCalls<E>::set_immediates(encoder_, offset, data.data(), data.size());
  ++counters_->set_immediates;
  counters_->immediate_bytes += size;
}

template <class E>
void RenderEncoderState<E>::draw_indexed_indirect(WGPUBuffer indirect_buffer, uint64_t offset) {
  if (indirect_buffer == nullptr || offset % 4 != 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: drawIndexedIndirect needs a buffer and an offset that is a "
                            "multiple of 4 (got {})",
                            EncoderCalls<E>::kName, offset));
  tracker_.draw();
  EncoderCalls<E>::draw_indexed_indirect(encoder_, indirect_buffer, offset);
}

template <class E>
void RenderEncoderState<E>::execute_bundles(
    std::span<const WGPURenderBundle> bundles) requires std::is_same_v<E, WGPURenderPassEncoder> {
  // The requires-clause keeps callers to render passes; `if constexpr` keeps the explicit
  // instantiation for render bundle encoders (clang instantiates constrained members there) from
  // compiling a pass-only call.
  if constexpr (std::is_same_v<E, WGPURenderPassEncoder>) {
    for (WGPURenderBundle b : bundles) require_handle(b, EncoderCalls<E>::kName, "execute_bundles");
    wgpuRenderPassEncoderExecuteBundles(encoder_, bundles.size(), bundles.data());
    counters_->execute_bundles++;
    tracker_.reset();
  }
}

template class RenderEncoderState<WGPURenderPassEncoder>;
template class RenderEncoderState<WGPURenderBundleEncoder>;

}  // namespace bindery
