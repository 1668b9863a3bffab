// SPDX-License-Identifier: MIT
#include "bindery/data/layout_builder.hpp"

#include <fmt/format.h>

#include <vector>

namespace bindery {

gpu::BindGroupLayout create_bind_group_layout(const Device& device,
                                              const BindGroupLayoutDesc& desc) {
  const CallScope scope(device);
  std::vector<WGPUBindGroupLayoutEntry> entries;
  for (const BindingLayoutEntry& e : desc.entries) {
    WGPUBindGroupLayoutEntry w = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
    w.binding = e.binding;
    w.visibility =
        (e.visibility & kStageVertex ? WGPUShaderStage_Vertex : WGPUShaderStage_None) |
        (e.visibility & kStageFragment ? WGPUShaderStage_Fragment : WGPUShaderStage_None) |
        (e.visibility & kStageCompute ? WGPUShaderStage_Compute : WGPUShaderStage_None);
    switch (e.kind) {
      case BindingKind::uniform_buffer:
      case BindingKind::storage_buffer:
      case BindingKind::read_only_storage_buffer:
        w.buffer.type = e.kind == BindingKind::uniform_buffer ? WGPUBufferBindingType_Uniform
                        : e.kind == BindingKind::storage_buffer
                            ? WGPUBufferBindingType_Storage
                            : WGPUBufferBindingType_ReadOnlyStorage;
        w.buffer.hasDynamicOffset = e.has_dynamic_offset;
        w.buffer.minBindingSize = e.min_binding_size;
        break;
      case BindingKind::sampled_texture:
        w.texture.sampleType = WGPUTextureSampleType_Float;
        w.texture.viewDimension = WGPUTextureViewDimension_2D;
        break;
      case BindingKind::sampler:
        w.sampler.type = WGPUSamplerBindingType_Filtering;
        break;
    }
    entries.push_back(w);
  }
  WGPUBindGroupLayoutDescriptor d = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
  d.label = gpu::sv(desc.label);
  d.entryCount = entries.size();
  d.entries = entries.data();
  auto layout = gpu::BindGroupLayout::acquire(wgpuDeviceCreateBindGroupLayout(device.get(), &d));
  with_context(fmt::format("creating bind group layout '{}'", desc.label), [&] { device.check(); });
  return layout;
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
