// SPDX-License-Identifier: MIT
#include "bindery/gpu_driven/depth_pyramid.hpp"

#include "compute_helpers.hpp"
#include "bindery/data/layout_builder.hpp"

#include "bindery/core/error.hpp"
#include "bindery_shaders.hpp"

#include <algorithm>

namespace bindery::gpu_driven {
namespace {

constexpr uint32_t kWorkgroup = 8;  // @workgroup_size(8, 8) of depth_pyramid.wgsl

}  // namespace

uint32_t DepthPyramid::levels_for(uint32_t width, uint32_t height) {
  uint32_t levels = 1;
  while ((std::max(width, height) >> levels) > 0) ++levels;
  return levels;
}

DepthPyramid::DepthPyramid(const Device& device, WGPUTexture depth, uint32_t width,
                           uint32_t height)
    : width_(width), height_(height), levels_(levels_for(width, height)) {
  const CallScope scope(device);
  using namespace detail;
  if (width == 0 || height == 0)
    throw Error(ErrorKind::InvalidArgument,
                "DepthPyramid: the depth texture is " + std::to_string(width) + " x " +
                    std::to_string(height) + " texels; both sides must be at least 1");
  WGPUTextureDescriptor td = WGPU_TEXTURE_DESCRIPTOR_INIT;
  td.label = gpu::sv("depth pyramid");
  td.size = {width, height, 1};
  td.format = WGPUTextureFormat_R32Float;
  td.mipLevelCount = levels_;
  td.usage = WGPUTextureUsage_StorageBinding | WGPUTextureUsage_TextureBinding;
  texture_ = gpu::Texture::acquire(wgpuDeviceCreateTexture(device.get(), &td));
  view_ = gpu::TextureView::acquire(wgpuTextureCreateView(texture_.get(), nullptr));
  for (uint32_t level = 0; level < levels_; ++level) {
    WGPUTextureViewDescriptor vd = WGPU_TEXTURE_VIEW_DESCRIPTOR_INIT;
    vd.baseMipLevel = level;
    vd.mipLevelCount = 1;
    level_views_.push_back(gpu::TextureView::acquire(wgpuTextureCreateView(texture_.get(), &vd)));
  }
  depth_view_ = gpu::TextureView::acquire(wgpuTextureCreateView(depth, nullptr));

  const WGPUShaderStage cs = WGPUShaderStage_Compute;
  const WGPUBindGroupLayoutEntry from_depth[] = {
      texture_layout_entry(0, cs, WGPUTextureSampleType_Depth, WGPUTextureViewDimension_2D),
      storage_texture_layout_entry(1, cs, WGPUTextureFormat_R32Float)};
  const WGPUBindGroupLayoutEntry reduce[] = {
      texture_layout_entry(2, cs, WGPUTextureSampleType_UnfilterableFloat,
                           WGPUTextureViewDimension_2D),
      storage_texture_layout_entry(3, cs, WGPUTextureFormat_R32Float)};
  from_depth_layout_ = create_bind_group_layout(device, "pyramid from depth", from_depth);
  reduce_layout_ = create_bind_group_layout(device, "pyramid reduce", reduce);
  WGPUBindGroupLayout fl[] = {from_depth_layout_.get()};
  WGPUBindGroupLayout rl[] = {reduce_layout_.get()};
  from_depth_pipeline_layout_ = create_pipeline_layout(device, fl, "pyramid from depth");
  reduce_pipeline_layout_ = create_pipeline_layout(device, rl, "pyramid reduce");
  module_ = device.create_shader_module("depth_pyramid.wgsl", shaders::depth_pyramid);
  from_depth_ = make_compute(device, module_.get(), from_depth_pipeline_layout_.get(), "from_depth");
  reduce_ = make_compute(device, module_.get(), reduce_pipeline_layout_.get(), "reduce");
  for (uint32_t level = 0; level < levels_; ++level) {
    if (level == 0) {
      const WGPUBindGroupEntry e[] = {texture_group_entry(0, depth_view_.get()),
                                      texture_group_entry(1, level_views_[0].get())};
      groups_.push_back(create_bind_group(device, "pyramid level 0", from_depth_layout_.get(), e));
    } else {
      const WGPUBindGroupEntry e[] = {texture_group_entry(2, level_views_[level - 1].get()),
                                      texture_group_entry(3, level_views_[level].get())};
      groups_.push_back(create_bind_group(device, "pyramid level", reduce_layout_.get(), e));
    }
  }
  with_context("creating the depth pyramid", [&] { device.check(); });
}

void DepthPyramid::build(WGPUComputePassEncoder pass) const {
  for (uint32_t level = 0; level < levels_; ++level) {
    const uint32_t w = std::max(1u, width_ >> level), h = std::max(1u, height_ >> level);
    wgpuComputePassEncoderSetPipeline(pass, level == 0 ? from_depth_.get() : reduce_.get());
    wgpuComputePassEncoderSetBindGroup(pass, 0, groups_[level].get(), 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass, (w + kWorkgroup - 1) / kWorkgroup,
                                             (h + kWorkgroup - 1) / kWorkgroup, 1);
  }
}

}  // namespace bindery::gpu_driven
