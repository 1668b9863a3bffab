// SPDX-License-Identifier: MIT
// src/gpu_driven/binding_helpers.hpp — one initializer per binding kind for the GPU-driven parts'
// bind group layouts and bind groups, compute pipelines, and 2D dispatch grids (the shape of
// Dawn's utils::MakeBindGroupLayout). Private to bindery.
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/core/gpu.hpp"

#include <cstdint>
#include <span>
#include <string_view>

namespace bindery::gpu_driven::detail {

/// A buffer binding of `type`, visible to `visibility`.
WGPUBindGroupLayoutEntry buffer_entry(uint32_t binding, WGPUBufferBindingType type,
                                      WGPUShaderStage visibility);
/// A sampled texture binding.
WGPUBindGroupLayoutEntry texture_entry(uint32_t binding, WGPUTextureSampleType type,
                                       WGPUTextureViewDimension dimension,
                                       WGPUShaderStage visibility);
/// A write-only r32float 2D storage texture binding.
WGPUBindGroupLayoutEntry storage_texture_entry(uint32_t binding, WGPUShaderStage visibility);

/// The whole of `buffer` at `binding`.
WGPUBindGroupEntry buffer_binding(uint32_t binding, WGPUBuffer buffer);
/// `view` at `binding`.
WGPUBindGroupEntry texture_binding(uint32_t binding, WGPUTextureView view);

/// A bind group layout of `entries`.
gpu::BindGroupLayout make_layout(const Device& device, const char* label,
                                 std::span<const WGPUBindGroupLayoutEntry> entries);
/// A bind group of `layout` with `entries`, through Device::create_bind_group (counted).
gpu::BindGroup make_group(const Device& device, const char* label, WGPUBindGroupLayout layout,
                          std::span<const WGPUBindGroupEntry> entries);
/// A compute pipeline of `module`'s entry point `entry` with `layout`.
gpu::ComputePipeline make_compute(const Device& device, WGPUShaderModule module,
                                  WGPUPipelineLayout layout, const char* entry);

/// Workgroups {x, y} of a 2D dispatch covering `invocations` invocations of `workgroup_size`,
/// in rows of at most `max_x` workgroups (maxComputeWorkgroupsPerDimension); {0, 0} for none.
/// The shader turns (id, num_workgroups) back into id.x + id.y * num_workgroups.x * size.
struct Grid {
  uint32_t x = 0, y = 0;
};
Grid grid_for(uint64_t invocations, uint32_t workgroup_size, uint32_t max_x);

/// Sets `pipeline` and `group` as group 0 on `pass` and dispatches `grid` (nothing when empty).
void dispatch(WGPUComputePassEncoder pass, WGPUComputePipeline pipeline, WGPUBindGroup group,
              Grid grid);

}  // namespace bindery::gpu_driven::detail
