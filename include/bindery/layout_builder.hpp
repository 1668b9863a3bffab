// SPDX-License-Identifier: MIT
/// @file
/// bindery/layout_builder.hpp — turns bindery's plain BindGroupLayoutDesc (binding.hpp) into
/// WebGPU bind group layouts and pipeline layouts. Explicit layouts only: layout 'auto' cannot
/// express hasDynamicOffset and its bind group layouts belong to a single pipeline (cases rule 10).
#pragma once

#include "bindery/binding.hpp"
#include "bindery/device.hpp"

#include <span>

namespace bindery {

/// Creates a GPUBindGroupLayout from `desc` (textures: float sample type, 2D; samplers:
/// filtering). Throws WebGPUValidation with the implementation's message if it rejects it.
gpu::BindGroupLayout create_bind_group_layout(const Device& device,
                                              const BindGroupLayoutDesc& desc);

/// Creates a GPUPipelineLayout over `layouts` (group i = layouts[i]).
gpu::PipelineLayout create_pipeline_layout(const Device& device,
                                           std::span<const WGPUBindGroupLayout> layouts,
                                           std::string_view label);

}  // namespace bindery
