// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/layout_builder.hpp — bind group layouts, bind groups and pipeline layouts created
/// from spans of entries, with one initializer per binding kind (the shape of Dawn's
/// utils::MakeBindGroupLayout; included from bindery/core/bind_group_entries.hpp, the lowest
/// floor): a buffer (type, dynamic offset, minBindingSize), a sampled texture (sample type, view
/// dimension), a storage texture (format, access, view dimension) and a sampler (binding type),
/// and the matching WGPUBindGroupEntry initializers.
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
#include "bindery/core/bind_group_entries.hpp"
#include "bindery/core/device.hpp"

#include <span>
#include <string_view>

namespace bindery {

/// The WebGPU entry of a plain description (binding.hpp): buffers of its kind with its dynamic
/// offset and minBindingSize, textures float and 2D, samplers filtering.
WGPUBindGroupLayoutEntry layout_entry(const BindingLayoutEntry& entry);

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
