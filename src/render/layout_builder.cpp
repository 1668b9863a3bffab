// SPDX-License-Identifier: MIT
#include "bindery/layout_builder.hpp"

#include <fmt/format.h>

#include <vector>

namespace bindery {

gpu::BindGroupLayout create_bind_group_layout(const Device& device,
                                              const BindGroupLayoutDesc& desc) {
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
                                           std::string_view label) {
  WGPUPipelineLayoutDescriptor d = WGPU_PIPELINE_LAYOUT_DESCRIPTOR_INIT;
  d.label = gpu::sv(label);
  d.bindGroupLayoutCount = layouts.size();
  d.bindGroupLayouts = layouts.data();
  auto layout = gpu::PipelineLayout::acquire(wgpuDeviceCreatePipelineLayout(device.get(), &d));
  with_context(fmt::format("creating pipeline layout '{}'", label), [&] { device.check(); });
  return layout;
}

}  // namespace bindery
