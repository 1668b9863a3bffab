// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/binding.hpp — plain descriptions of bind group layouts, shared by the validation
/// functions (validation.hpp), the bind group planner (bind_group_plan.hpp) and the code that turns
/// them into WGPUBindGroupLayoutDescriptor.
///
/// These mirror GPUBindGroupLayoutEntry (WebGPU §8.1) closely enough to validate the spec's
/// createBindGroupLayout / createPipelineLayout rules without a device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bindery {

/// What a binding holds. The buffer kinds are GPUBufferBindingType; textures and samplers are
/// counted for maxSampledTexturesPerShaderStage / maxSamplersPerShaderStage.
enum class BindingKind {
  uniform_buffer,            ///< "uniform"
  storage_buffer,            ///< "storage" (read-write; not visible to VERTEX)
  read_only_storage_buffer,  ///< "read-only-storage"
  sampled_texture,           ///< texture binding
  sampler,                   ///< sampler binding
};

/// GPUShaderStage flags (same bit values as WebGPU: VERTEX 1, FRAGMENT 2, COMPUTE 4).
enum ShaderStage : uint32_t {
  kStageVertex = 0x1,
  kStageFragment = 0x2,
  kStageCompute = 0x4,
};

/// One GPUBindGroupLayoutEntry. `name` is for error messages only.
struct BindingLayoutEntry {
  uint32_t binding = 0;  ///< the `@binding` number, < maxBindingsPerBindGroup
  BindingKind kind = BindingKind::uniform_buffer;       ///< buffer type, texture or sampler
  uint32_t visibility = kStageVertex | kStageFragment;  ///< ShaderStage bits
  bool has_dynamic_offset = false;                      ///< buffers only
  uint64_t min_binding_size = 0;                        ///< bytes; 0 = "checked at draw"
  std::string name;  ///< the WGSL variable, for messages; not part of the layout
};

/// One GPUBindGroupLayoutDescriptor. Entries may be listed in any order; dynamic offsets apply
/// to the dynamic entries sorted by `binding` (WebGPU §14.2.3 setBindGroup; cases D05).
struct BindGroupLayoutDesc {
  std::string label;                        ///< the layout's label (WebGPU debug label, messages)
  std::vector<BindingLayoutEntry> entries;  ///< the entries, any order, binding numbers unique
};

/// True for the three buffer kinds (uniform, storage, read-only storage).
inline bool is_buffer(BindingKind k) {
  return k == BindingKind::uniform_buffer || k == BindingKind::storage_buffer ||
         k == BindingKind::read_only_storage_buffer;
}
/// True for storage and read-only storage buffers.
inline bool is_storage(BindingKind k) {
  return k == BindingKind::storage_buffer || k == BindingKind::read_only_storage_buffer;
}

}  // namespace bindery
