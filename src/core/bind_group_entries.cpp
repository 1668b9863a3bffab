// SPDX-License-Identifier: MIT
#include "bindery/core/bind_group_entries.hpp"

namespace bindery {

namespace {

WGPUBindGroupLayoutEntry base_layout_entry(uint32_t binding, WGPUShaderStage visibility) {
  WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
  e.binding = binding;
  e.visibility = visibility;
  return e;
}

WGPUBindGroupEntry base_group_entry(uint32_t binding) {
  WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
  e.binding = binding;
  return e;
}

}  // namespace

WGPUBindGroupLayoutEntry buffer_layout_entry(uint32_t binding, WGPUShaderStage visibility,
                                             WGPUBufferBindingType type, bool has_dynamic_offset,
                                             uint64_t min_binding_size) {
  WGPUBindGroupLayoutEntry e = base_layout_entry(binding, visibility);
  e.buffer = WGPU_BUFFER_BINDING_LAYOUT_INIT;
  e.buffer.type = type;
  e.buffer.hasDynamicOffset = has_dynamic_offset;
  e.buffer.minBindingSize = min_binding_size;
  return e;
}

WGPUBindGroupLayoutEntry texture_layout_entry(uint32_t binding, WGPUShaderStage visibility,
                                              WGPUTextureSampleType sample_type,
                                              WGPUTextureViewDimension view_dimension,
                                              bool multisampled) {
  WGPUBindGroupLayoutEntry e = base_layout_entry(binding, visibility);
  e.texture.sampleType = sample_type;
  e.texture.viewDimension = view_dimension;
  e.texture.multisampled = multisampled;
  return e;
}

WGPUBindGroupLayoutEntry storage_texture_layout_entry(uint32_t binding, WGPUShaderStage visibility,
                                                      WGPUTextureFormat format,
                                                      WGPUStorageTextureAccess access,
                                                      WGPUTextureViewDimension view_dimension) {
  WGPUBindGroupLayoutEntry e = base_layout_entry(binding, visibility);
  e.storageTexture.access = access;
  e.storageTexture.format = format;
  e.storageTexture.viewDimension = view_dimension;
  return e;
}

WGPUBindGroupLayoutEntry sampler_layout_entry(uint32_t binding, WGPUShaderStage visibility,
                                              WGPUSamplerBindingType type) {
  WGPUBindGroupLayoutEntry e = base_layout_entry(binding, visibility);
  e.sampler.type = type;
  return e;
}

WGPUBindGroupEntry buffer_group_entry(uint32_t binding, WGPUBuffer buffer, uint64_t offset,
                                      uint64_t size) {
  WGPUBindGroupEntry e = base_group_entry(binding);
  e.buffer = buffer;
  e.offset = offset;
  e.size = size;
  return e;
}

WGPUBindGroupEntry texture_group_entry(uint32_t binding, WGPUTextureView view) {
  WGPUBindGroupEntry e = base_group_entry(binding);
  e.textureView = view;
  return e;
}

WGPUBindGroupEntry sampler_group_entry(uint32_t binding, WGPUSampler sampler) {
  WGPUBindGroupEntry e = base_group_entry(binding);
  e.sampler = sampler;
  return e;
}

}  // namespace bindery
