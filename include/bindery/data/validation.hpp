// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/validation.hpp — the WebGPU binding rules checked on the CPU, before the
/// implementation sees a call, each failure a bindery::Error naming the call, the value and the
/// limit (e.g. "setBindGroup(2): dynamic offset 320 is not a multiple of
/// minUniformBufferOffsetAlignment (256)").
///
/// What is checked, with the spec step it mirrors (the layout cases (docs/REFERENCES.md) §0 gives the rules):
///   validate_dynamic_offsets   setBindGroup: count, order (by binding number), alignment, bounds
///                              (cases D01, D05, D06; rules 4-6)
///   validate_bind_group_layout createBindGroupLayout: binding numbers, storage vs VERTEX,
///                              per-group slot limits (rule 7; cases M01, M03)
///   validate_pipeline_layout   createPipelineLayout: sums over groups (rule 7; cases M01, M03)
///   validate_buffer_binding    createBindGroup buffer entries (rule 8; cases M04, U01, B03)
///   validate_min_binding_size  createRenderPipeline: layout minBindingSize vs shader (B03)
///   validate_write_buffer      queue.writeBuffer (rule 9; case W01)    } in core/device_checks.hpp
///   resolve_alignment_limit    requestDevice, alignment limits (D02)   } (Device uses them too)
///
/// Every limit comes from the `const Limits&` argument: pass Device::limits() (the DEVICE's
/// limits), or Limits::core_defaults() / compatibility_defaults() in planning and tests.
/// These are pure functions (no device, no allocation beyond the returned values); the bind group
/// planner calls the counting and pipeline-layout functions for its budget checks.
#pragma once

#include "bindery/core/binding.hpp"
#include "bindery/core/device_checks.hpp"
#include "bindery/core/error.hpp"
#include "bindery/core/limits.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace bindery {

/// "The rest of the buffer": same value as WGPU_WHOLE_SIZE. As a binding size it is fixed at
/// createBindGroup time to buffer_size - offset.
inline constexpr uint64_t kWholeSize = UINT64_MAX;

/// One buffer binding of a bind group as setBindGroup sees it: the GPUBufferBinding window and
/// the size of the buffer behind it. Sizes and offsets in bytes.
struct BufferBindingWindow {
  uint32_t binding = 0;         ///< binding number the window belongs to
  uint64_t offset = 0;          ///< GPUBufferBinding.offset
  uint64_t size = kWholeSize;   ///< GPUBufferBinding.size (kWholeSize = to the end of buffer)
  uint64_t buffer_size = 0;     ///< GPUBuffer.size
};

/// Where one dynamic offset went: the binding number and the offset applied to it.
struct AppliedDynamicOffset {
  uint32_t binding = 0;         ///< the dynamic entry's binding number
  uint32_t dynamic_offset = 0;  ///< bytes; uint32_t as in webgpu.h setBindGroup
};

/// Checks setBindGroup(group_index, bg, dynamic_offsets) for a bind group made from `layout`
/// (WebGPU §14.2.3 setBindGroup; the layout cases (docs/REFERENCES.md) rules 4-6, cases D01, D05, D06).
///
/// - The offsets apply to the layout's entries with has_dynamic_offset SORTED BY BINDING NUMBER,
///   not listing order (D05); the count must match exactly (D06): DynamicOffsetCount.
/// - Each offset is a multiple of minUniformBufferOffsetAlignment (uniform) or
///   minStorageBufferOffsetAlignment (storage, read-only-storage): DynamicOffsetAlignment.
/// - Bounds, the STRICT rule Dawn and wgpu enforce:
///     window.offset + window.size + dynamicOffset <= window.buffer_size
///   (a kWholeSize window counts as buffer_size - offset, so with such a binding every non-zero
///   offset fails). The spec text is looser (offset + dynamicOffset + layout.minBindingSize <=
///   buffer.size, the rest checked at draw time); bindery follows the portable strict rule:
///   DynamicOffsetOutOfBounds.
/// `windows` lists the bind group's buffer bindings (any order). Pass an empty span to check
/// count and alignment only; otherwise a dynamic entry without a window is InvalidArgument.
/// Returns the offsets as applied, sorted by binding number.
std::vector<AppliedDynamicOffset> validate_dynamic_offsets(
    uint32_t group_index, const BindGroupLayoutDesc& layout,
    std::span<const uint32_t> dynamic_offsets, std::span<const BufferBindingWindow> windows,
    const Limits& limits);

/// The entries of `layout` that take a dynamic offset, sorted by binding number: the order in
/// which setBindGroup's offsets are applied (case D05). Returns their binding numbers.
std::vector<uint32_t> dynamic_binding_order(const BindGroupLayoutDesc& layout);

/// Per-stage binding counts (one stage of GPUShaderStage).
struct StageBindingCounts {
  uint32_t uniform_buffers = 0;   ///< maxUniformBuffersPerShaderStage
  uint32_t storage_buffers = 0;   ///< maxStorageBuffersPerShaderStage (incl. read-only)
  uint32_t sampled_textures = 0;  ///< maxSampledTexturesPerShaderStage
  uint32_t samplers = 0;          ///< maxSamplersPerShaderStage
};

/// The binding slots a set of bind group layouts uses, counted as the spec counts them
/// (the layout cases (docs/REFERENCES.md) rule 7): a dynamic entry counts ONCE whatever its visibility; a
/// per-stage count counts an entry once in each stage of its visibility.
struct BindingUsage {
  uint32_t dynamic_uniform_buffers = 0;  ///< maxDynamicUniformBuffersPerPipelineLayout
  uint32_t dynamic_storage_buffers = 0;  ///< maxDynamicStorageBuffersPerPipelineLayout
                                         ///< ("storage" and "read-only-storage", as the CTS does)
  StageBindingCounts vertex;             ///< slots the VERTEX stage sees
  StageBindingCounts fragment;           ///< slots the FRAGMENT stage sees
  StageBindingCounts compute;            ///< slots the COMPUTE stage sees
};

/// Counts the slots one bind group layout uses (no limit checks).
BindingUsage count_binding_usage(const BindGroupLayoutDesc& layout);
/// Counts the slots a pipeline layout made of `groups` uses: the sum over its groups.
BindingUsage count_binding_usage(std::span<const BindGroupLayoutDesc> groups);

/// Checks createBindGroupLayout(layout) (WebGPU §8.1.1; rule 7; cases M01, M03):
/// binding < maxBindingsPerBindGroup (BindingNumberTooLarge); binding numbers unique and
/// has_dynamic_offset only on buffers, visibility only VERTEX|FRAGMENT|COMPUTE bits
/// (InvalidArgument); a read-write "storage" buffer not visible to VERTEX
/// (StorageVisibleToVertex); this group's own counts within maxDynamicUniformBuffers-
/// PerPipelineLayout, maxDynamicStorageBuffersPerPipelineLayout and the per-stage limits
/// (TooManyDynamicUniformBuffers, TooManyDynamicStorageBuffers, TooManyUniformBuffersPerStage,
/// TooManyStorageBuffersPerStage, TooManySampledTexturesPerStage, TooManySamplersPerStage).
void validate_bind_group_layout(const BindGroupLayoutDesc& layout, const Limits& limits);

/// Checks createPipelineLayout(groups) (WebGPU §8.3; rule 7; cases M01, M03): each group as
/// validate_bind_group_layout, groups.size() <= maxBindGroups (TooManyBindGroups), and the SUMS
/// over all groups within the dynamic and per-stage limits (same kinds as above).
/// Returns the usage it counted, for budget reports.
BindingUsage validate_pipeline_layout(std::span<const BindGroupLayoutDesc> groups,
                                      const Limits& limits);

/// One buffer entry of createBindGroup together with what it is checked against.
struct BufferBindingDesc {
  uint32_t binding = 0;                            ///< the entry's binding number, for messages
  BindingKind kind = BindingKind::uniform_buffer;  ///< must be a buffer kind
  uint64_t offset = 0;                             ///< GPUBufferBinding.offset, bytes
  uint64_t size = kWholeSize;                      ///< GPUBufferBinding.size, bytes
  uint64_t buffer_size = 0;                        ///< GPUBuffer.size, bytes
  uint64_t layout_min_binding_size = 0;            ///< the layout entry's minBindingSize (0 = none)
  uint64_t shader_min_binding_size = 0;  ///< SizeOf(store type) from reflection (0 = unknown)
};

/// Options of validate_buffer_binding.
struct BufferBindingOptions {
  /// Also hold uniform bindings to the compatibility-mode budget
  /// (Limits::compatibility_defaults().maxUniformBufferBindingSize, 16 KiB; the uniform-buffer note, case M04).
  bool compatibility_uniform_budget = false;
};

/// Checks one buffer entry of createBindGroup (WebGPU §8.2.1; rule 8; cases M04, U01, B03):
/// offset a multiple of min{Uniform,Storage}BufferOffsetAlignment (BindingOffsetAlignment);
/// offset + size <= buffer_size (BindingOutOfBounds); uniform size <= maxUniformBufferBindingSize
/// (and the compatibility budget when asked) (UniformBindingTooLarge); storage size a multiple
/// of 4 (BindingSizeAlignment) and <= maxStorageBufferBindingSize (StorageBindingTooLarge);
/// effective size >= layout_min_binding_size and >= shader_min_binding_size
/// (MinBindingSizeTooSmall). A non-buffer kind is InvalidArgument.
/// Returns the effective binding size in bytes (kWholeSize resolved).
uint64_t validate_buffer_binding(const BufferBindingDesc& binding, const Limits& limits,
                                 const BufferBindingOptions& options = {});

/// Checks a layout entry against the shader's minimum binding size (createRenderPipeline /
/// createComputePipeline; case B03; rule 3): a non-zero entry.min_binding_size must be
/// >= shader_min_binding_size (MinBindingSizeTooSmall). 0 defers the check to draw time.
void validate_min_binding_size(const BindingLayoutEntry& entry, uint64_t shader_min_binding_size);

}  // namespace bindery
