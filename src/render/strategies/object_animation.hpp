// SPDX-License-Identifier: MIT
// src/render/object_animation.hpp — the article's animation computed on the GPU, as the
// gpu-driven and bundles-gpu strategies share it (shaders/object_animation.wgsl). Private to
// bindery.
//   ObjectInput:  every object's animation parameters (seed 003: axis, speeds, radius, scale,
//                 the reduced phases i, i * 3.721, i * 9.721), uploaded once at creation into a
//                 read-only storage buffer, 48 bytes per object (the WGSL struct's SizeOf).
//   Dispatch:     one invocation per object in 64-wide workgroups, rows of at most 65,535
//                 workgroups (WebGPU's default maxComputeWorkgroupsPerDimension), a second
//                 dimension for the rest: WGSL linear_index() turns the grid back into an index.
// Reads maxComputeWorkgroupsPerDimension (availability).
#pragma once

#include "strategy.hpp"

#include "bindery/wgsl/struct_check.hpp"

#include <glm/glm.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace bindery::strategies {

/// @workgroup_size of the animating entry points (kWorkgroupSize of object_animation.wgsl).
inline constexpr uint32_t kAnimateWorkgroupSize = 64;
/// Workgroups per grid row (kMaxWorkgroupsX of object_animation.wgsl).
inline constexpr uint32_t kAnimateMaxWorkgroupsX = 65535;

/// C++ mirror of WGSL ObjectInput (object_animation.wgsl); checked against the reflected struct by
/// upload_object_inputs().
struct ObjectInputGpu {
  glm::vec3 axis;
  float speed;
  float radius, rotationSpeed, scale, phase;
  float phaseZ1, phaseZ2;
  uint32_t material, batch;
};
BINDERY_WGSL_STRUCT_CHECK(ObjectInputGpu, axis, speed, radius, rotationSpeed, scale, phase, phaseZ1,
                          phaseZ2, material, batch);

/// Workgroups {x, y} covering `invocations` invocations of kAnimateWorkgroupSize, in rows of at
/// most kAnimateMaxWorkgroupsX (x = 0 when there is nothing to do).
struct AnimateGrid {
  uint32_t x = 0, y = 0;
};
AnimateGrid animate_grid(uint32_t invocations);

/// Why the scene cannot be animated on the GPU, or nullopt: an object that does not follow the
/// article's animation (a static glTF placement), or more workgroups than
/// maxComputeWorkgroupsPerDimension allows in the grid's second dimension.
std::optional<std::string> gpu_animation_unavailable(const Device& device, const Scene& scene);

/// Every object's ObjectInput (batch = the object's mesh) in a read-only storage buffer (STORAGE,
/// written once through a mapping at creation; at least one element). `reflected` is the shader's
/// ObjectInput: throws StructMismatch when it no longer matches ObjectInputGpu, OutOfMemory when
/// the mapping fails. `who` names the strategy in messages.
gpu::Buffer upload_object_inputs(const Device& device, const Scene& scene,
                                 const StructLayout& reflected, std::string_view who);

}  // namespace bindery::strategies
