// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/layout_builder.hpp — bind group layouts, bind groups and pipeline layouts, with
/// one initializer per binding kind (the shape of Dawn's utils::MakeBindGroupLayout): a buffer
/// (type, dynamic offset, minBindingSize), a sampled texture (sample type, view dimension), a
/// storage texture (format, access, view dimension) and a sampler (binding type), each a
/// WGPUBindGroupLayoutEntry started from WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT; the matching
/// WGPUBindGroupEntry initializers; and the calls that create the objects from spans of them.
/// Also turns bindery's plain BindGroupLayoutDesc (binding.hpp) into a layout. Explicit layouts
/// only: layout 'auto' cannot express hasDynamicOffset and its bind group layouts belong to a
/// single pipeline (cases rule 10).
///
/// @code
///   const WGPUBindGroupLayoutEntry entries[] = {
///       buffer_layout_entry(0, WGPUShaderStage_Compute, WGPUBufferBindingType_Uniform),
///       texture_layout_entry(1, WGPUShaderStage_Compute, WGPUTextureSampleType_Depth)};
///   gpu::BindGroupLayout layout = create_bind_group_layout(device, "cull", entries);
///   const WGPUBindGroupEntry bindings[] = {buffer_group_entry(0, uniforms),
///                                          texture_group_entry(1, depth_view)};
///   gpu::BindGroup group = create_bind_group(device, "cull", layout.get(), bindings);
/// @endcode
#pragma once

#include "bindery/core/binding.hpp"
#include "bindery/core/device.hpp"

#include <span>
#include <string_view>

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
/// The WebGPU entry of a plain description (binding.hpp): buffers of its kind with its dynamic
/// offset and minBindingSize, textures float and 2D, samplers filtering.
WGPUBindGroupLayoutEntry layout_entry(const BindingLayoutEntry& entry);

/// `size` bytes of `buffer` from `offset` at `binding` (WGPU_WHOLE_SIZE: the rest of the buffer).
WGPUBindGroupEntry buffer_group_entry(uint32_t binding, WGPUBuffer buffer, uint64_t offset = 0,
                                      uint64_t size = WGPU_WHOLE_SIZE);
/// `view` at `binding`.
WGPUBindGroupEntry texture_group_entry(uint32_t binding, WGPUTextureView view);
/// `sampler` at `binding`.
WGPUBindGroupEntry sampler_group_entry(uint32_t binding, WGPUSampler sampler);

/// Creates a GPUBindGroupLayout from `desc` (layout_entry() of each entry). Throws
/// WebGPUValidation with the implementation's message if it rejects it.
gpu::BindGroupLayout create_bind_group_layout(const Device& device,
                                              const BindGroupLayoutDesc& desc);
/// Creates a GPUBindGroupLayout labelled `label` of `entries` inside one CallScope; a
/// validation error is reported by the device's next check.
gpu::BindGroupLayout create_bind_group_layout(const Device& device, std::string_view label,
                                              std::span<const WGPUBindGroupLayoutEntry> entries);
/// Creates a bind group of `layout` with `entries`, labelled `label`, through
/// Device::create_bind_group (counted; validation errors reported by the device).
gpu::BindGroup create_bind_group(const Device& device, std::string_view label,
                                 WGPUBindGroupLayout layout,
                                 std::span<const WGPUBindGroupEntry> entries);

/// Creates a GPUPipelineLayout over `layouts` (group i = layouts[i]) with `immediate_size` bytes
/// of immediate data (webgpu.h immediateSize; 0 = none). A non-zero size needs
/// Device::has_immediates() and must be a multiple of 4, at most the device's maxImmediateSize:
/// throws ImmediateSizeTooLarge (naming the limit) or InvalidArgument before calling WebGPU.
gpu::PipelineLayout create_pipeline_layout(const Device& device,
                                           std::span<const WGPUBindGroupLayout> layouts,
                                           std::string_view label, uint32_t immediate_size = 0);

}  // namespace bindery
