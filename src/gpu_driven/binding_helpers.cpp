// SPDX-License-Identifier: MIT
#include "binding_helpers.hpp"

#include <algorithm>

namespace bindery::gpu_driven::detail {

WGPUBindGroupLayoutEntry buffer_entry(uint32_t binding, WGPUBufferBindingType type,
                                      WGPUShaderStage visibility) {
  WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
  e.binding = binding;
  e.visibility = visibility;
  e.buffer.type = type;
  return e;
}

WGPUBindGroupLayoutEntry texture_entry(uint32_t binding, WGPUTextureSampleType type,
                                       WGPUTextureViewDimension dimension,
                                       WGPUShaderStage visibility) {
  WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
  e.binding = binding;
  e.visibility = visibility;
  e.texture.sampleType = type;
  e.texture.viewDimension = dimension;
  return e;
}

WGPUBindGroupLayoutEntry storage_texture_entry(uint32_t binding, WGPUShaderStage visibility) {
  WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
  e.binding = binding;
  e.visibility = visibility;
  e.storageTexture.access = WGPUStorageTextureAccess_WriteOnly;
  e.storageTexture.format = WGPUTextureFormat_R32Float;
  e.storageTexture.viewDimension = WGPUTextureViewDimension_2D;
  return e;
}

WGPUBindGroupEntry buffer_binding(uint32_t binding, WGPUBuffer buffer) {
  WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
  e.binding = binding;
  e.buffer = buffer;
  e.size = WGPU_WHOLE_SIZE;
  return e;
}

WGPUBindGroupEntry texture_binding(uint32_t binding, WGPUTextureView view) {
  WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
  e.binding = binding;
  e.textureView = view;
  return e;
}

gpu::BindGroupLayout make_layout(const Device& device, const char* label,
                                 std::span<const WGPUBindGroupLayoutEntry> entries) {
  const CallScope scope(device);
  WGPUBindGroupLayoutDescriptor d = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
  d.label = gpu::sv(label);
  d.entryCount = entries.size();
  d.entries = entries.data();
  return gpu::BindGroupLayout::acquire(wgpuDeviceCreateBindGroupLayout(device.get(), &d));
}

gpu::BindGroup make_group(const Device& device, const char* label, WGPUBindGroupLayout layout,
                          std::span<const WGPUBindGroupEntry> entries) {
  WGPUBindGroupDescriptor d = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  d.label = gpu::sv(label);
  d.layout = layout;
  d.entryCount = entries.size();
  d.entries = entries.data();
  return device.create_bind_group(d);
}

gpu::ComputePipeline make_compute(const Device& device, WGPUShaderModule module,
                                  WGPUPipelineLayout layout, const char* entry) {
  const CallScope scope(device);
  WGPUComputePipelineDescriptor d = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  d.label = gpu::sv(entry);
  d.layout = layout;
  d.compute.module = module;
  d.compute.entryPoint = gpu::sv(entry);
  return gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(device.get(), &d));
}

Grid grid_for(uint64_t invocations, uint32_t workgroup_size, uint32_t max_x) {
  const uint64_t groups = (invocations + workgroup_size - 1) / workgroup_size;
  if (groups == 0) return {};
  max_x = std::max(max_x, 1u);
  return {static_cast<uint32_t>(std::min<uint64_t>(groups, max_x)),
          static_cast<uint32_t>((groups + max_x - 1) / max_x)};
}

void dispatch(WGPUComputePassEncoder pass, WGPUComputePipeline pipeline, WGPUBindGroup group,
              Grid grid) {
  if (grid.x == 0) return;
  wgpuComputePassEncoderSetPipeline(pass, pipeline);
  wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, grid.x, grid.y, 1);
}

}  // namespace bindery::gpu_driven::detail
