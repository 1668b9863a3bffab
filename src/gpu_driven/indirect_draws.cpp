// SPDX-License-Identifier: MIT
#include "bindery/gpu_driven/indirect_draws.hpp"

#include "compute_helpers.hpp"
#include "bindery/data/layout_builder.hpp"
#include "internal/implementation.hpp"

#include "bindery/core/error.hpp"
#include "bindery/gpu_driven/mesh_pool.hpp"
#include "bindery/gpu_driven/object_table.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace bindery::gpu_driven {
namespace {

constexpr uint32_t kGroup = 64;            // @workgroup_size of reset, write_args, scatter
constexpr uint64_t kArgsBytes = 5 * 4;     // GPUDrawIndexedIndirect
constexpr uint64_t kBinBytes = 16;         // struct Bin
constexpr uint64_t kEntryBytes = 8;        // vec2u (object, slot)
constexpr uint64_t kCountersHeader = 16;   // DrawCounters before drawCounts
constexpr std::array<std::pair<DrawPath, std::string_view>, 4> kNames{{
    {DrawPath::multi_draw_indirect_count, "multi-draw-indirect-count"},
    {DrawPath::multi_draw_indirect, "multi-draw-indirect"},
    {DrawPath::bundle, "bundle"},
    {DrawPath::loop, "loop"},
}};

}  // namespace

std::string_view to_string(DrawPath path) {
  for (const auto& [p, name] : kNames)
    if (p == path) return name;
  return "unknown";
}

std::optional<DrawPath> parse_draw_path(std::string_view name) {
  for (const auto& [p, n] : kNames)
    if (n == name) return p;
  return std::nullopt;
}

namespace {

// Why `path` cannot run on `device` and whether the adapter would have allowed it (the feature
// was not requested), or nullopt.
std::optional<MissingFeature> draw_path_missing(const Device& device, DrawPath path) {
  if (!device.has_indirect_first_instance()) {
    MissingFeature m = describe_missing_feature(device, WGPUFeatureName_IndirectFirstInstance,
                                                "indirect-first-instance");
    m.message = "each bin's instances start at its firstInstance: " + m.message;
    return m;
  }
  switch (path) {
    case DrawPath::multi_draw_indirect_count:
      if (!device.has_multi_draw_indirect_count()) {
        // The implementation's feature for it (wgpu-native's MultiDrawIndirectCount), if any.
        for (const FeatureNeed& n : implementation::native_feature_needs())
          if (n.used_by.find("multi_draw_indirect_count") != std::string::npos)
            return describe_missing_feature(device, n.feature, n.name);
        return MissingFeature{false, std::string(implementation::name()) +
                                         " offers no multi-draw-indirect-count"};
      }
      return std::nullopt;
    case DrawPath::multi_draw_indirect:
      if (!implementation::has_multi_draw_indirect(device.get()))
        return MissingFeature{false, std::string(implementation::name()) +
                                         " offers multi-draw-indirect only behind unsafe APIs, "
                                         "which bindery does not enable"};
      return std::nullopt;
    case DrawPath::bundle:
    case DrawPath::loop:
      return std::nullopt;
  }
  return MissingFeature{false, "unknown draw path"};
}

}  // namespace

std::optional<std::string> draw_path_unavailable(const Device& device, DrawPath path) {
  if (std::optional<MissingFeature> m = draw_path_missing(device, path)) return m->message;
  return std::nullopt;
}

DrawPath best_draw_path(const Device& device) {
  for (const auto& [p, name] : kNames)
    if (!draw_path_unavailable(device, p)) return p;
  return DrawPath::loop;
}

IndirectDraws::IndirectDraws(const Device& device, const ObjectTable& objects,
                             const MeshPool& meshes, const IndirectDrawsDesc& desc)
    : device_(device), objects_(objects), meshes_(meshes), desc_(desc), pipelines_(desc.pipelines) {
  const CallScope scope(device);
  using namespace detail;
  if (desc.pipelines == 0 || desc.pipelines > 256)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("IndirectDrawsDesc::pipelines = {}, valid 1..256 (ObjectRecord flags "
                            "bits 8..15)",
                            desc.pipelines));
  path_ = desc.path ? *desc.path : best_draw_path(device);
  if (std::optional<MissingFeature> why = draw_path_missing(device, path_))
    throw Error(why->adapter_offers ? ErrorKind::FeatureNotRequested
                                    : ErrorKind::StrategyUnavailable,
                fmt::format("IndirectDraws: draw path {}: {}", to_string(path_), why->message));
  const WGPUShaderStage cs = WGPUShaderStage_Compute;
  const WGPUBindGroupLayoutEntry entries[] = {
      buffer_layout_entry(0, cs, WGPUBufferBindingType_Uniform),
      buffer_layout_entry(1, cs, WGPUBufferBindingType_ReadOnlyStorage),
      buffer_layout_entry(2, cs, WGPUBufferBindingType_ReadOnlyStorage),
      buffer_layout_entry(3, cs, WGPUBufferBindingType_Storage),
      buffer_layout_entry(4, cs, WGPUBufferBindingType_Storage),
      buffer_layout_entry(5, cs, WGPUBufferBindingType_ReadOnlyStorage),
      buffer_layout_entry(6, cs, WGPUBufferBindingType_Storage),
      buffer_layout_entry(7, cs, WGPUBufferBindingType_Storage),
  };
  layout_ = create_bind_group_layout(device, "indirect draws", entries);
  const WGPUBindGroupLayoutEntry dispatch[] = {
      buffer_layout_entry(0, cs, WGPUBufferBindingType_Storage)};
  dispatch_layout_ = create_bind_group_layout(device, "indirect draws: scatter dispatch", dispatch);
  WGPUBindGroupLayout one[] = {layout_.get()};
  WGPUBindGroupLayout two[] = {layout_.get(), dispatch_layout_.get()};
  pipeline_layout_ = create_pipeline_layout(device, one, "indirect draws");
  scan_pipeline_layout_ = create_pipeline_layout(device, two, "indirect draws: scan");
  module_ = device.create_shader_module("indirect_draws.wgsl", shaders::indirect_draws);
  reset_ = make_compute(device, module_.get(), pipeline_layout_.get(), "reset");
  scan_ = make_compute(device, module_.get(), scan_pipeline_layout_.get(), "scan");
  args_pipeline_ = make_compute(device, module_.get(), pipeline_layout_.get(), "write_args");
  scatter_ = make_compute(device, module_.get(), pipeline_layout_.get(), "scatter");
  params_ = device.create_buffer("indirect draws: params", 16,
                                 WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  scatter_dispatch_ = device.create_buffer("indirect draws: scatter dispatch", 12,
                                           WGPUBufferUsage_Storage | WGPUBufferUsage_Indirect);
  counters_ = device.create_buffer(
      "indirect draws: counters", kCountersHeader + 4ull * pipelines_,
      WGPUBufferUsage_Storage | WGPUBufferUsage_Indirect | WGPUBufferUsage_CopySrc);
  prepare();
  with_context("creating the indirect draws", [&] { device.check(); });
}

std::vector<WGPUBindGroupLayoutEntry> IndirectDraws::object_layout_entries(
    uint32_t first_binding, WGPUShaderStage visibility) {
  return {buffer_layout_entry(first_binding, visibility, WGPUBufferBindingType_ReadOnlyStorage),
          buffer_layout_entry(first_binding + 1, visibility,
                              WGPUBufferBindingType_ReadOnlyStorage)};
}

std::vector<WGPUBindGroupEntry> IndirectDraws::object_group_entries(uint32_t first_binding) const {
  return {buffer_group_entry(first_binding, objects_.buffer()),
          buffer_group_entry(first_binding + 1, remap_.get())};
}

uint64_t IndirectDraws::object_group_generation() const {
  return objects_.generation() + (remap_serial_ << 32);
}

std::string IndirectDraws::object_wgsl(uint32_t group, uint32_t first_binding) {
  return std::string(ObjectTable::wgsl()) +
         fmt::format("\n@group({0}) @binding({1}) var<storage, read> objects: array<ObjectRecord>;\n"
                     "@group({0}) @binding({2}) var<storage, read> remap: array<u32>;\n",
                     group, first_binding, first_binding + 1);
}

bool IndirectDraws::prepare() {
  const uint32_t stride = std::max(meshes_.id_capacity(), 1u);
  const uint32_t capacity = std::max(objects_.capacity(), 1u);
  const bool resized = stride != stride_ || capacity != object_capacity_;
  const bool moved = objects_.generation() != objects_generation_ ||
                     meshes_.generation() != meshes_generation_;
  if (!resized && !moved && group_) return false;
  if (resized || !bins_) {
    stride_ = stride;
    object_capacity_ = capacity;
    create_buffers();
  }
  objects_generation_ = objects_.generation();
  meshes_generation_ = meshes_.generation();
  create_groups();
  return true;
}

void IndirectDraws::create_buffers() {
  const uint64_t bins = uint64_t(pipelines_) * stride_;
  bins_ = device_.create_buffer(desc_.label + ": bins", (bins + 1) * kBinBytes,
                                WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc);
  args_ = device_.create_buffer(desc_.label + ": arguments", 2 * bins * kArgsBytes,
                                WGPUBufferUsage_Storage | WGPUBufferUsage_Indirect |
                                    WGPUBufferUsage_CopySrc);
  entries_ = device_.create_buffer(desc_.label + ": entries", object_capacity_ * kEntryBytes,
                                   WGPUBufferUsage_Storage);
  remap_ = device_.create_buffer(desc_.label + ": instance remap", object_capacity_ * 4ull,
                                 WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc);
  ++remap_serial_;  // object_group_generation(): the remap was replaced
  const uint32_t params[4] = {static_cast<uint32_t>(bins), stride_, pipelines_, 0};
  device_.write_buffer(params_.get(), 0, params, sizeof(params));
}

void IndirectDraws::create_groups() {
  using namespace detail;
  const WGPUBindGroupEntry e[] = {
      buffer_group_entry(0, params_.get()),        buffer_group_entry(1, objects_.buffer()),
      buffer_group_entry(2, meshes_.mesh_table()), buffer_group_entry(3, bins_.get()),
      buffer_group_entry(4, args_.get()),          buffer_group_entry(5, entries_.get()),
      buffer_group_entry(6, remap_.get()),         buffer_group_entry(7, counters_.get()),
  };
  group_ = create_bind_group(device_, "indirect draws", layout_.get(), e);
  const WGPUBindGroupEntry d[] = {buffer_group_entry(0, scatter_dispatch_.get())};
  dispatch_group_ =
      create_bind_group(device_, "indirect draws: scatter dispatch", dispatch_layout_.get(), d);
}

void IndirectDraws::reset(WGPUComputePassEncoder pass) const {
  const detail::Grid grid = detail::grid_for(uint64_t(bins()) + 1, kGroup,
                                             device_.limits().maxComputeWorkgroupsPerDimension);
  detail::dispatch(pass, reset_.get(), group_.get(), grid);
}

void IndirectDraws::build(WGPUComputePassEncoder pass) const {
  wgpuComputePassEncoderSetPipeline(pass, scan_.get());
  wgpuComputePassEncoderSetBindGroup(pass, 0, group_.get(), 0, nullptr);
  wgpuComputePassEncoderSetBindGroup(pass, 1, dispatch_group_.get(), 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
  const detail::Grid grid =
      detail::grid_for(bins(), kGroup, device_.limits().maxComputeWorkgroupsPerDimension);
  detail::dispatch(pass, args_pipeline_.get(), group_.get(), grid);
  wgpuComputePassEncoderSetPipeline(pass, scatter_.get());
  wgpuComputePassEncoderDispatchWorkgroupsIndirect(pass, scatter_dispatch_.get(), 0);
}

namespace {

// Sets the pipeline, the bind groups and the mesh pool's buffers on a pass or a bundle encoder.
template <class Encoder, class SetPipeline, class SetGroup, class SetVertex, class SetIndex>
void set_state(Encoder encoder, const DrawState& state, const MeshPool& meshes, Counters& c,
               SetPipeline set_pipeline, SetGroup set_group, SetVertex set_vertex,
               SetIndex set_index) {
  set_pipeline(encoder, state.pipeline);
  c.set_pipeline++;
  for (uint32_t g = 0; g < state.groups.size(); ++g) {
    set_group(encoder, g, state.groups[g], 0, nullptr);
    c.set_bind_group++;
  }
  set_vertex(encoder, 0, meshes.vertex_buffer(), 0, WGPU_WHOLE_SIZE);
  set_index(encoder, meshes.index_buffer(), WGPUIndexFormat_Uint32, 0, WGPU_WHOLE_SIZE);
  c.set_vertex_buffer++;
  c.set_index_buffer++;
}

}  // namespace

void IndirectDraws::draw(WGPURenderPassEncoder pass, uint32_t pipeline, const DrawState& state,
                         Counters& counters) {
  if (pipeline >= pipelines_)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("IndirectDraws::draw: pipeline {} >= IndirectDrawsDesc::pipelines ({})",
                            pipeline, pipelines_));
  const uint64_t first_bin = uint64_t(pipeline) * stride_;
  if (path_ == DrawPath::bundle) {
    if (bundles_.size() < pipelines_) bundles_.resize(pipelines_);
    const Bundle& b = bundles_[pipeline];
    const bool stale = !b.bundle || b.pipeline != state.pipeline || b.stride != stride_ ||
                       b.args != args_.get() || b.vertices != meshes_.vertex_buffer() ||
                       b.indices != meshes_.index_buffer() ||
                       !std::equal(b.groups.begin(), b.groups.end(), state.groups.begin(),
                                   state.groups.end());
    if (stale) record_bundle(pipeline, state);
    WGPURenderBundle bundle = bundles_[pipeline].bundle.get();
    wgpuRenderPassEncoderExecuteBundles(pass, 1, &bundle);
    counters.execute_bundles++;
    return;
  }
  set_state(pass, state, meshes_, counters, wgpuRenderPassEncoderSetPipeline,
            wgpuRenderPassEncoderSetBindGroup, wgpuRenderPassEncoderSetVertexBuffer,
            wgpuRenderPassEncoderSetIndexBuffer);
  switch (path_) {
    case DrawPath::multi_draw_indirect_count:
      implementation::multi_draw_indexed_indirect_count(
          pass, args_.get(), (uint64_t(bins()) + first_bin) * kArgsBytes, counters_.get(),
          kCountersHeader + 4ull * pipeline, stride_);
      counters.draws++;
      break;
    case DrawPath::multi_draw_indirect:
      implementation::multi_draw_indexed_indirect(pass, args_.get(), first_bin * kArgsBytes,
                                                  stride_);
      counters.draws++;
      break;
    default:
      for (uint32_t m = 0; m < stride_; ++m) {
        if (!meshes_.contains(m)) continue;
        wgpuRenderPassEncoderDrawIndexedIndirect(pass, args_.get(),
                                                 (first_bin + m) * kArgsBytes);
        counters.draws++;
      }
  }
}

void IndirectDraws::record_bundle(uint32_t pipeline, const DrawState& state) {
  const CallScope scope(device_);
  WGPURenderBundleEncoderDescriptor d = WGPU_RENDER_BUNDLE_ENCODER_DESCRIPTOR_INIT;
  d.label = gpu::sv(desc_.label);
  d.colorFormatCount = 1;
  d.colorFormats = &desc_.color_format;
  d.depthStencilFormat = desc_.depth_format;
  d.sampleCount = 1;
  WGPURenderBundleEncoder encoder = wgpuDeviceCreateRenderBundleEncoder(device_.get(), &d);
  Counters& c = device_.counters();
  set_state(encoder, state, meshes_, c, wgpuRenderBundleEncoderSetPipeline,
            wgpuRenderBundleEncoderSetBindGroup, wgpuRenderBundleEncoderSetVertexBuffer,
            wgpuRenderBundleEncoderSetIndexBuffer);
  const uint64_t first_bin = uint64_t(pipeline) * stride_;
  // Every bin, removed meshes' too (their arguments draw nothing): the bundle then depends only
  // on the buffers, the state and the bin count, not on which meshes are live.
  for (uint32_t m = 0; m < stride_; ++m) {
    wgpuRenderBundleEncoderDrawIndexedIndirect(encoder, args_.get(), (first_bin + m) * kArgsBytes);
    c.draws++;
  }
  WGPURenderBundleDescriptor bd = WGPU_RENDER_BUNDLE_DESCRIPTOR_INIT;
  Bundle& b = bundles_[pipeline];
  b.bundle = gpu::RenderBundle::acquire(wgpuRenderBundleEncoderFinish(encoder, &bd));
  wgpuRenderBundleEncoderRelease(encoder);
  b.pipeline = state.pipeline;
  b.groups.assign(state.groups.begin(), state.groups.end());
  b.stride = stride_;
  b.args = args_.get();
  b.vertices = meshes_.vertex_buffer();
  b.indices = meshes_.index_buffer();
}

}  // namespace bindery::gpu_driven
