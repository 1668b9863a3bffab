// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/bind_group_entries.hpp — one initializer per binding kind for
/// WGPUBindGroupLayoutEntry (WebGPU §8.1 GPUBindGroupLayoutEntry: buffer, texture, storage
/// texture, sampler) and WGPUBindGroupEntry (§8.2 GPUBindGroupEntry), on the lowest floor so that
/// every layer builds its bind groups from them (bindery/data/layout_builder.hpp creates the
/// layouts and groups). Plain functions of webgpu.h structs: no device, nothing thrown.
#pragma once

#include <webgpu/webgpu.h>

#include <cstdint>

namespace bindery {

/// A buffer binding (GPUBufferBindingLayout): `type`, `has_dynamic_offset`, `min_binding_size`
/// bytes (0 = checked at draw time), visible to `visibility`.
WGPUBindGroupLayoutEntry buffer_layout_entry(uint32_t binding, WGPUShaderStage visibility,
                                             WGPUBufferBindingType type,
                                             bool has_dynamic_offset = false,
                                             uint64_t min_binding_size = 0);
/// A sampled texture binding (GPUTextureBindingLayout) of `sample_type` and `view_dimension`.
WGPUBindGroupLayoutEntry texture_layout_entry(
    uint32_t binding, WGPUShaderStage visibility,
    WGPUTextureSampleType sample_type = WGPUTextureSampleType_Float,
    WGPUTextureViewDimension view_dimension = WGPUTextureViewDimension_2D,
    bool multisampled = false);
/// A storage texture binding (GPUStorageTextureBindingLayout) of `format`, `access` and
/// `view_dimension`.
WGPUBindGroupLayoutEntry storage_texture_layout_entry(
    uint32_t binding, WGPUShaderStage visibility, WGPUTextureFormat format,
    WGPUStorageTextureAccess access = WGPUStorageTextureAccess_WriteOnly,
    WGPUTextureViewDimension view_dimension = WGPUTextureViewDimension_2D);
/// A sampler binding (GPUSamplerBindingLayout) of `type`.
WGPUBindGroupLayoutEntry sampler_layout_entry(
    uint32_t binding, WGPUShaderStage visibility,
    WGPUSamplerBindingType type = WGPUSamplerBindingType_Filtering);
/// `size` bytes of `buffer` from `offset` at `binding` (WGPU_WHOLE_SIZE: the rest of the buffer).
WGPUBindGroupEntry buffer_group_entry(uint32_t binding, WGPUBuffer buffer, uint64_t offset = 0,
                                      uint64_t size = WGPU_WHOLE_SIZE);
/// `view` at `binding`.
WGPUBindGroupEntry texture_group_entry(uint32_t binding, WGPUTextureView view);
/// `sampler` at `binding`.
WGPUBindGroupEntry sampler_group_entry(uint32_t binding, WGPUSampler sampler);

}  // namespace bindery
