// SPDX-License-Identifier: MIT
#include "bindery/gpu_driven/culling.hpp"

#include "compute_helpers.hpp"
#include "bindery/data/layout_builder.hpp"

#include "bindery/core/error.hpp"
#include "bindery/gpu_driven/depth_pyramid.hpp"
#include "bindery/gpu_driven/indirect_draws.hpp"
#include "bindery/gpu_driven/mesh_pool.hpp"
#include "bindery/gpu_driven/object_table.hpp"
#include "bindery/wgsl/struct_view.hpp"
#include "bindery/wgsl/wgsl_layout.hpp"
#include "bindery_shaders.hpp"

#include <algorithm>
#include <cstring>

namespace bindery::gpu_driven {
namespace {

constexpr uint32_t kGroup = 64;             // @workgroup_size of cull_phase1 / cull_phase2
constexpr uint64_t kCountersBytes = 16;     // CullCounters
constexpr uint64_t kCountsOffset = 4;       // afterFrustum, afterOcclusion, drawn: 12 bytes
constexpr uint32_t kFrustumFlag = 1, kOcclusionFlag = 2, kListFlag = 4;

const StructLayout& cull_frame_layout() {
  static const Reflection reflection = [] {
    Reflection r = reflect_wgsl(shaders::gpu_cull);
    r.throw_if_errors();
    return r;
  }();
  return reflection.struct_layout("CullFrame");
}

}  // namespace

Culling::Culling(const Device& device, const ObjectTable& objects, const MeshPool& meshes,
                 IndirectDraws& draws, const DepthPyramid* pyramid, const CullingDesc& desc)
    : device_(device),
      objects_(objects),
      meshes_(meshes),
      draws_(draws),
      pyramid_(pyramid),
      desc_(desc) {
  const CallScope scope(device);
  using namespace detail;
  if (desc.occlusion && !pyramid)
    throw Error(ErrorKind::InvalidArgument,
                "Culling: CullingDesc::occlusion needs a DepthPyramid (pyramid is null)");
  const WGPUShaderStage cs = WGPUShaderStage_Compute;
  const WGPUBindGroupLayoutEntry entries[] = {
      buffer_layout_entry(0, cs, WGPUBufferBindingType_Uniform),
      buffer_layout_entry(1, cs, WGPUBufferBindingType_ReadOnlyStorage),
      buffer_layout_entry(2, cs, WGPUBufferBindingType_ReadOnlyStorage),
      buffer_layout_entry(3, cs, WGPUBufferBindingType_Storage),
      buffer_layout_entry(4, cs, WGPUBufferBindingType_Storage),
      buffer_layout_entry(5, cs, WGPUBufferBindingType_Storage),
      buffer_layout_entry(6, cs, WGPUBufferBindingType_Storage),
      buffer_layout_entry(7, cs, WGPUBufferBindingType_Storage),
      texture_layout_entry(8, cs, WGPUTextureSampleType_UnfilterableFloat,
                           WGPUTextureViewDimension_2D),
  };
  layout_ = create_bind_group_layout(device, "culling", entries);
  const WGPUBindGroupLayoutEntry dispatch[] = {
      buffer_layout_entry(0, cs, WGPUBufferBindingType_Storage)};
  dispatch_layout_ = create_bind_group_layout(device, "culling: phase 2 dispatch", dispatch);
  WGPUBindGroupLayout one[] = {layout_.get()};
  WGPUBindGroupLayout two[] = {layout_.get(), dispatch_layout_.get()};
  pipeline_layout_ = create_pipeline_layout(device, one, "culling");
  phase2_layout_ = create_pipeline_layout(device, two, "culling: begin phase 2");
  module_ = device.create_shader_module("gpu_cull.wgsl", shaders::gpu_cull);
  begin_frame_ = make_compute(device, module_.get(), pipeline_layout_.get(), "begin_frame");
  phase1_ = make_compute(device, module_.get(), pipeline_layout_.get(), "cull_phase1");
  begin_phase2_ = make_compute(device, module_.get(), phase2_layout_.get(), "begin_phase2");
  phase2_ = make_compute(device, module_.get(), pipeline_layout_.get(), "cull_phase2");

  frame_bytes_.resize(cull_frame_layout().size);
  frame_ = device.create_buffer("culling: frame", frame_bytes_.size(),
                                WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  counters_ = device.create_buffer("culling: counters", kCountersBytes,
                                   WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc);
  phase2_dispatch_ = device.create_buffer("culling: phase 2 dispatch", 12,
                                          WGPUBufferUsage_Storage | WGPUBufferUsage_Indirect);
  if (!pyramid_) {
    // A 1 x 1 stand-in for the pyramid binding, never read without occlusion culling.
    detail::StandInPyramid p = detail::stand_in_pyramid(device, "culling: no pyramid");
    dummy_pyramid_ = std::move(p.texture);
    dummy_view_ = std::move(p.view);
  }
  const WGPUBindGroupEntry d[] = {buffer_group_entry(0, phase2_dispatch_.get())};
  dispatch_group_ =
      create_bind_group(device, "culling: phase 2 dispatch", dispatch_layout_.get(), d);
  prepare(glm::mat4(1.0f));
  with_context("creating the culling passes", [&] { device.check(); });
}

void Culling::create_buffers() {
  capacity_ = std::max(objects_.capacity(), 1u);
  // Visibility last frame for every id, then room for as many phase 2 candidates.
  state_ = device_.create_buffer("culling: visibility and candidates", 2ull * capacity_ * 4,
                                 WGPUBufferUsage_Storage);
}

void Culling::create_groups() {
  using namespace detail;
  const WGPUBindGroupEntry e[] = {
      buffer_group_entry(0, frame_.get()),
      buffer_group_entry(1, objects_.buffer()),
      buffer_group_entry(2, meshes_.mesh_table()),
      buffer_group_entry(3, state_.get()),
      buffer_group_entry(4, counters_.get()),
      buffer_group_entry(5, draws_.bins_buffer()),
      buffer_group_entry(6, draws_.entries_buffer()),
      buffer_group_entry(7, draws_.counters_buffer()),
      texture_group_entry(8, pyramid_ ? pyramid_->view() : dummy_view_.get()),
  };
  group_ = create_bind_group(device_, "culling", layout_.get(), e);
}

bool Culling::prepare(const glm::mat4& view_projection) {
  const bool draws_changed = draws_.prepare();
  const bool grown = std::max(objects_.capacity(), 1u) != capacity_;
  if (grown || !state_) create_buffers();
  if (grown || draws_changed || !group_) create_groups();
  const StructLayout& layout = cull_frame_layout();
  StructView v(layout, std::span<std::byte>(frame_bytes_));
  const float w = pyramid_ ? float(pyramid_->width()) : 1.0f;
  const float h = pyramid_ ? float(pyramid_->height()) : 1.0f;
  v.set(layout.field("viewProjection"), view_projection);
  v.set(layout.field("targetSize"), glm::vec2(w, h));
  v.set(layout.field("objectEnd"), objects_.id_end());
  v.set(layout.field("binStride"), draws_.bin_stride());
  v.set(layout.field("pyramidLevels"), pyramid_ ? pyramid_->levels() : 1u);
  v.set(layout.field("flags"), (desc_.frustum ? kFrustumFlag : 0u) |
                                   (desc_.occlusion ? kOcclusionFlag : 0u) |
                                   (desc_.output == CullingOutput::instance_list ? kListFlag : 0u));
  v.set(layout.field("candidateBase"), capacity_);
  device_.write_buffer(frame_.get(), 0, frame_bytes_.data(), frame_bytes_.size());
  return draws_changed;
}

void Culling::phase1(WGPUComputePassEncoder pass) const {
  wgpuComputePassEncoderSetPipeline(pass, begin_frame_.get());
  wgpuComputePassEncoderSetBindGroup(pass, 0, group_.get(), 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
  draws_.reset(pass);
  const detail::Grid grid = detail::grid_for(objects_.id_end(), kGroup,
                                             device_.limits().maxComputeWorkgroupsPerDimension);
  detail::dispatch(pass, phase1_.get(), group_.get(), grid);
  if (desc_.output == CullingOutput::bins) draws_.build(pass);
}

void Culling::phase2(WGPUComputePassEncoder pass) const {
  if (!desc_.occlusion) return;
  draws_.reset(pass);
  wgpuComputePassEncoderSetPipeline(pass, begin_phase2_.get());
  wgpuComputePassEncoderSetBindGroup(pass, 0, group_.get(), 0, nullptr);
  wgpuComputePassEncoderSetBindGroup(pass, 1, dispatch_group_.get(), 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
  wgpuComputePassEncoderSetPipeline(pass, phase2_.get());
  wgpuComputePassEncoderDispatchWorkgroupsIndirect(pass, phase2_dispatch_.get(), 0);
  if (desc_.output == CullingOutput::bins) draws_.build(pass);
}

void Culling::copy_stats(WGPUCommandEncoder encoder, WGPUBuffer dst, uint64_t offset) const {
  wgpuCommandEncoderCopyBufferToBuffer(encoder, counters_.get(), kCountsOffset, dst, offset, 12);
  wgpuCommandEncoderCopyBufferToBuffer(encoder, draws_.counters_buffer(),
                                       IndirectDraws::kSubDrawsOffset, dst, offset + 12, 4);
}

CullingStats Culling::read_stats(const std::byte* bytes, uint32_t objects) {
  uint32_t v[4];
  std::memcpy(v, bytes, sizeof(v));
  return CullingStats{objects, v[0], v[1], v[2], v[3]};
}

}  // namespace bindery::gpu_driven
