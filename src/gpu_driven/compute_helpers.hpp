// SPDX-License-Identifier: MIT
// src/gpu_driven/compute_helpers.hpp — the GPU-driven parts' compute pipelines and 2D dispatch
// grids. Their bind group layouts and bind groups come from bindery/data/layout_builder.hpp.
// Private to gpu_driven/.
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/core/gpu.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace bindery::gpu_driven::detail {

/// The part of one of bindery's default WGSL files (shaders/*_default.wgsl) that a part hands to
/// applications: from `first` up to `end_marker`, with every `@group(from_group)` made
/// `@group(group)`.
std::string wgsl_block(std::string_view text, std::string_view first, std::string_view end_marker,
                       uint32_t from_group, uint32_t group);

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

/// A 1 x 1 R32Float texture and its view: the stand-in for a depth pyramid binding that the
/// shader never reads (occlusion culling off).
struct StandInPyramid {
  gpu::Texture texture;
  gpu::TextureView view;
};
StandInPyramid stand_in_pyramid(const Device& device, const char* label);

}  // namespace bindery::gpu_driven::detail
