// The sorted draw list, the redundant-state tracker and the webgpu.h render-pass layer.
// See bindery/draw_list.hpp.
#include "bindery/draw_list.hpp"
#include "bindery/error.hpp"

#include <fmt/format.h>

#include <algorithm>
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

RenderStateTracker::RenderStateTracker(Counters& counters, IntruderPolicy policy)
    : counters_(counters), policy_(policy) {
  if (policy_ == IntruderPolicy::build_default) {
#ifdef NDEBUG
    policy_ = IntruderPolicy::report;
#else
    policy_ = IntruderPolicy::error;
#endif
  }
}

void RenderStateTracker::describe_group(uint32_t group, const BindGroupLayoutDesc& layout) {
  described_[group] = layout;
}

bool RenderStateTracker::set_pipeline(const void* pipeline) {
  if (pipeline_bound_ && pipeline_ == pipeline) {
    ++counters_.set_pipeline_skipped;
    return false;
  }
  pipeline_ = pipeline;
  pipeline_bound_ = true;
  ++counters_.set_pipeline;
  return true;
}

bool RenderStateTracker::set_bind_group(uint32_t group, const void* bind_group,
                                        std::span<const uint32_t> dynamic_offsets,
                                        Frequency declared, uint64_t key) {
  Slot& s = groups_[group];
  s.key = key;
  s.declared = declared;
  if (s.bound && s.bind_group == bind_group &&
      std::equal(s.offsets.begin(), s.offsets.end(), dynamic_offsets.begin(),
                 dynamic_offsets.end())) {
    ++counters_.set_bind_group_skipped;
    return false;
  }
  s.bound = true;
  s.bind_group = bind_group;
  s.offsets.assign(dynamic_offsets.begin(), dynamic_offsets.end());
  ++counters_.set_bind_group;
  return true;
}

bool RenderStateTracker::set_vertex_buffer(uint32_t slot, const void* buffer, uint64_t offset,
                                           uint64_t size) {
  VertexSlot& v = vertex_[slot];
  if (v.bound && v.buffer == buffer && v.offset == offset && v.size == size) {
    ++counters_.set_vertex_buffer_skipped;
    return false;
  }
  v = {true, buffer, offset, size};
  ++counters_.set_vertex_buffer;
  return true;
}

bool RenderStateTracker::set_index_buffer(const void* buffer, uint32_t format, uint64_t offset,
                                          uint64_t size) {
  if (index_.bound && index_.buffer == buffer && index_format_ == format &&
      index_.offset == offset && index_.size == size) {
    ++counters_.set_index_buffer_skipped;
    return false;
  }
  index_ = {true, buffer, offset, size};
  index_format_ = format;
  ++counters_.set_index_buffer;
  return true;
}

void RenderStateTracker::report(uint32_t group, const Slot& slot) {
  // Observed frequency: the lowest declared frequency above this group's among the groups whose
  // key did change since the previous draw; with none, the binding changes on every draw.
  Frequency observed = Frequency::object;
  for (const auto& [g, other] : groups_) {
    if (g != group && other.drawn && other.key != other.drawn_key && other.declared > slot.declared)
      observed = std::min(observed, other.declared);
  }
  auto described = described_.find(group);
  const std::string group_name = described != described_.end() && !described->second.label.empty()
                                     ? described->second.label
                                     : fmt::format("group {}", group);
  std::vector<std::pair<std::string, const char*>> changed;  // (binding name, what changed)
  if (slot.bind_group != slot.drawn_bind_group) changed.emplace_back(group_name, "bind group");
  std::vector<const BindingLayoutEntry*> dynamic;
  if (described != described_.end()) {
    for (const BindingLayoutEntry& e : described->second.entries)
      if (e.has_dynamic_offset) dynamic.push_back(&e);
    std::sort(dynamic.begin(), dynamic.end(),
              [](auto* a, auto* b) { return a->binding < b->binding; });
  }
  for (size_t i = 0; i < std::max(slot.offsets.size(), slot.drawn_offsets.size()); ++i) {
    if (i < slot.offsets.size() && i < slot.drawn_offsets.size() &&
        slot.offsets[i] == slot.drawn_offsets[i])
      continue;
    changed.emplace_back(
        i < dynamic.size() ? dynamic[i]->name : fmt::format("{} dynamic offset {}", group_name, i),
        "dynamic offset");
  }
  for (const auto& change : changed) {
    const std::string& name = change.first;
    const auto& what = change.second;
    const bool seen =
        std::any_of(intruders_.begin(), intruders_.end(),
                    [&](const IntruderReport& r) { return r.group == group && r.binding == name; });
    if (seen) continue;
    IntruderReport r{group, name, slot.declared, observed,
                     fmt::format("intruder: @group({}) '{}' is declared {} but its {} changed "
                                 "between two draws with the same {} key ({}): it changes per {}",
                                 group, name, to_string(slot.declared), what,
                                 to_string(slot.declared), slot.key, to_string(observed))};
    intruders_.push_back(r);
    if (policy_ == IntruderPolicy::error) throw Error(ErrorKind::Intruder, r.message);
  }
}

void RenderStateTracker::draw() {
  ++counters_.draws;
  if (policy_ != IntruderPolicy::ignore) {
    for (const auto& [g, s] : groups_) {
      const bool state_changed = s.bind_group != s.drawn_bind_group || s.offsets != s.drawn_offsets;
      if (s.drawn && s.declared < Frequency::object && state_changed && s.key == s.drawn_key)
        report(g, s);
    }
  }
  for (auto& [g, s] : groups_) {
    s.drawn = s.bound;
    s.drawn_bind_group = s.bind_group;
    s.drawn_offsets = s.offsets;
    s.drawn_key = s.key;
  }
}

void RenderStateTracker::reset() {
  pipeline_bound_ = false;
  pipeline_ = nullptr;
  groups_.clear();
  vertex_.clear();
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
};

}  // namespace

template <class E>
RenderEncoderState<E>::RenderEncoderState(E encoder, Counters& counters, IntruderPolicy policy,
                                          const Limits* limits)
    : encoder_(encoder), counters_(&counters), limits_(limits), tracker_(counters, policy) {
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

template <class E>
void RenderEncoderState<E>::set_pipeline(WGPURenderPipeline pipeline) {
  require_handle(pipeline, EncoderCalls<E>::kName, "set_pipeline");
  if (tracker_.set_pipeline(pipeline)) EncoderCalls<E>::set_pipeline(encoder_, pipeline);
}

template <class E>
void RenderEncoderState<E>::set_bind_group(uint32_t group, WGPUBindGroup bind_group,
                                           std::span<const uint32_t> dynamic_offsets,
                                           Frequency declared, uint64_t key) {
  require_handle(bind_group, EncoderCalls<E>::kName, "set_bind_group");
  if (limits_ && group >= limits_->maxBindGroups)
    throw Error(ErrorKind::TooManyBindGroups,
                fmt::format("{}::set_bind_group({}): group index must be below maxBindGroups ({})",
                            EncoderCalls<E>::kName, group, limits_->maxBindGroups));
  if (tracker_.set_bind_group(group, bind_group, dynamic_offsets, declared, key)) {
    EncoderCalls<E>::set_bind_group(encoder_, group, bind_group, dynamic_offsets.size(),
                                    dynamic_offsets.empty() ? nullptr : dynamic_offsets.data());
  }
}

template <class E>
void RenderEncoderState<E>::set_vertex_buffer(uint32_t slot, WGPUBuffer buffer, uint64_t offset,
                                              uint64_t size) {
  require_handle(buffer, EncoderCalls<E>::kName, "set_vertex_buffer");
  if (limits_ && slot >= limits_->maxVertexBuffers)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}::set_vertex_buffer({}): slot must be below maxVertexBuffers ({})",
                            EncoderCalls<E>::kName, slot, limits_->maxVertexBuffers));
  if (tracker_.set_vertex_buffer(slot, buffer, offset, size))
    EncoderCalls<E>::set_vertex_buffer(encoder_, slot, buffer, offset, size);
}

template <class E>
void RenderEncoderState<E>::set_index_buffer(WGPUBuffer buffer, WGPUIndexFormat format,
                                             uint64_t offset, uint64_t size) {
  require_handle(buffer, EncoderCalls<E>::kName, "set_index_buffer");
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
