// SPDX-License-Identifier: MIT
/// @file
/// bindery/layout_builder.hpp — turns bindery's plain BindGroupLayoutDesc (binding.hpp) into
/// WebGPU bind group layouts and pipeline layouts. Explicit layouts only: layout 'auto' cannot
/// express hasDynamicOffset and its bind group layouts belong to a single pipeline (cases rule 10).
#pragma once

#include "bindery/core/binding.hpp"
#include "bindery/core/device.hpp"

#include <span>

namespace bindery {

/// Creates a GPUBindGroupLayout from `desc` (textures: float sample type, 2D; samplers:
/// filtering). Throws WebGPUValidation with the implementation's message if it rejects it.
gpu::BindGroupLayout create_bind_group_layout(const Device& device,
                                              const BindGroupLayoutDesc& desc);

/// Creates a GPUPipelineLayout over `layouts` (group i = layouts[i]) with `immediate_size` bytes
/// of immediate data (webgpu.h immediateSize; 0 = none). A non-zero size needs
/// Device::has_immediates() and must be a multiple of 4, at most the device's maxImmediateSize:
/// throws ImmediateSizeTooLarge (naming the limit) or InvalidArgument before calling WebGPU.
gpu::PipelineLayout create_pipeline_layout(const Device& device,
                                           std::span<const WGPUBindGroupLayout> layouts,
                                           std::string_view label, uint32_t immediate_size = 0);

}  // namespace bindery
