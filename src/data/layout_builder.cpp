// SPDX-License-Identifier: MIT
#include "bindery/data/layout_builder.hpp"

#include <fmt/format.h>

#include <vector>

namespace bindery {

namespace {

WGPUShaderStage to_wgpu_stages(uint32_t visibility) {
  return (visibility & kStageVertex ? WGPUShaderStage_Vertex : WGPUShaderStage_None) |
         (visibility & kStageFragment ? WGPUShaderStage_Fragment : WGPUShaderStage_None) |
         (visibility & kStageCompute ? WGPUShaderStage_Compute : WGPUShaderStage_None);
}

WGPUBufferBindingType to_wgpu_buffer_type(BindingKind kind) {
  return kind == BindingKind::uniform_buffer   ? WGPUBufferBindingType_Uniform
         : kind == BindingKind::storage_buffer ? WGPUBufferBindingType_Storage
                                               : WGPUBufferBindingType_ReadOnlyStorage;
}

}  // namespace





WGPUBindGroupLayoutEntry layout_entry(const BindingLayoutEntry& entry) {
  const WGPUShaderStage stages = to_wgpu_stages(entry.visibility);
  switch (entry.kind) {
    case BindingKind::sampled_texture:
      return texture_layout_entry(entry.binding, stages);
    case BindingKind::sampler:
      return sampler_layout_entry(entry.binding, stages);
    default:
      return buffer_layout_entry(entry.binding, stages, to_wgpu_buffer_type(entry.kind),
                                 entry.has_dynamic_offset, entry.min_binding_size);
  }
}




gpu::BindGroupLayout create_bind_group_layout(const Device& device,
                                              const BindGroupLayoutDesc& desc) {
  const CallScope scope(device);
  std::vector<WGPUBindGroupLayoutEntry> entries;
  for (const BindingLayoutEntry& e : desc.entries) entries.push_back(layout_entry(e));
  auto layout = create_bind_group_layout(device, desc.label, entries);
  with_context(fmt::format("creating bind group layout '{}'", desc.label), [&] { device.check(); });
  return layout;
}

gpu::BindGroupLayout create_bind_group_layout(const Device& device, std::string_view label,
                                              std::span<const WGPUBindGroupLayoutEntry> entries) {
  const CallScope scope(device);
  WGPUBindGroupLayoutDescriptor d = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
  d.label = gpu::sv(label);
  d.entryCount = entries.size();
  d.entries = entries.data();
  return gpu::BindGroupLayout::acquire(wgpuDeviceCreateBindGroupLayout(device.get(), &d));
}

gpu::BindGroup create_bind_group(const Device& device, std::string_view label,
                                 WGPUBindGroupLayout layout,
                                 std::span<const WGPUBindGroupEntry> entries) {
  WGPUBindGroupDescriptor d = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  d.label = gpu::sv(label);
  d.layout = layout;
  d.entryCount = entries.size();
  d.entries = entries.data();
  return device.create_bind_group(d);
}

gpu::PipelineLayout create_pipeline_layout(const Device& device,
                                           std::span<const WGPUBindGroupLayout> layouts,
                                           std::string_view label, uint32_t immediate_size) {
  const CallScope scope(device);
  if (immediate_size % 4 != 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("pipeline layout '{}': immediateSize {} is not a multiple of 4", label,
                            immediate_size));
  if (immediate_size > 0 && !device.has_immediates())
    throw Error(ErrorKind::ImmediateSizeTooLarge,
                fmt::format("pipeline layout '{}': immediateSize {} needs wgpu-native's Immediates "
                            "feature, which this device lacks (maxImmediateSize 0)",
                            label, immediate_size));
  if (immediate_size > device.limits().maxImmediateSize)
    throw Error(ErrorKind::ImmediateSizeTooLarge,
                fmt::format("pipeline layout '{}': immediateSize {} exceeds the device's "
                            "maxImmediateSize ({})",
                            label, immediate_size, device.limits().maxImmediateSize));
  WGPUPipelineLayoutDescriptor d = WGPU_PIPELINE_LAYOUT_DESCRIPTOR_INIT;
  d.label = gpu::sv(label);
  d.bindGroupLayoutCount = layouts.size();
  d.bindGroupLayouts = layouts.data();
  d.immediateSize = immediate_size;
  auto layout = gpu::PipelineLayout::acquire(wgpuDeviceCreatePipelineLayout(device.get(), &d));
  with_context(fmt::format("creating pipeline layout '{}'", label), [&] { device.check(); });
  return layout;
}

}  // namespace bindery
