// SPDX-License-Identifier: MIT
// src/render/strategies/pipeline_helpers.hpp — what the strategies share to build their
// pipelines (pipeline_helpers.cpp): reflection of bindery's own shaders, the Vertex buffer layout,
// the scene pipeline and its render bundle encoder, and the bind group budget. Private to render/.
#pragma once

#include "render/frame/frame_context.hpp"

#include "bindery/core/device.hpp"
#include "bindery/wgsl/wgsl_layout.hpp"

#include <cstdint>
#include <string_view>

namespace bindery::strategies {

/// The advice of check_bind_group_budget() for bind groups made per object.
inline constexpr std::string_view kPerObjectGroupsAdvice =
    "use the dynamic-offsets or storage-instancing strategy, or fewer objects";
/// The advice for bind groups made per material (every strategy that binds materials one group
/// each: fewer materials, or a strategy with one material table).
inline constexpr std::string_view kPerMaterialGroupsAdvice =
    "use fewer materials (--materials), or a strategy with one material table (gpu-driven, "
    "gpu-culling)";

/// Throws ImplementationLimit when creating `count` more bind groups would exceed
/// default_max_bind_groups(device.adapter()); `what` names them in the message, `advice` says
/// what fits the run (which count to lower, or which strategy avoids the groups).
void check_bind_group_budget(const Device& device, uint64_t count, std::string_view what,
                             std::string_view advice = kPerObjectGroupsAdvice);

/// Reflects one of bindery's own shaders; any reflection error is a bug here and is thrown.
Reflection reflect_checked(std::string_view wgsl);

/// The interleaved Vertex layout (stride 36: position float32x3 @0, normal float32x3 @12,
/// texcoord float32x2 @24, color unorm8x4 @32; shader locations 0..3).
WGPUVertexBufferLayout vertex_buffer_layout();

/// A render bundle encoder for the scene pipelines' target (kColorFormat, kDepthFormat, one
/// sample): WebGPU §17.1 GPURenderBundleEncoderDescriptor must match the pass's attachments.
gpu::RenderBundleEncoder create_scene_bundle_encoder(const Device& device, const char* label);

/// A render pipeline whose vertex stage places its own vertices in clip space (no vertex buffer,
/// no culling: a rectangle of the screen) for the scene pipelines' target: depth24plus with less
/// and depth writes, one colour target in kColorFormat.
gpu::RenderPipeline create_screen_space_pipeline(const Device& device, WGPUShaderModule module,
                                                 WGPUPipelineLayout layout, const char* label,
                                                 const char* vertex_entry,
                                                 const char* fragment_entry);

/// A render pipeline for `module` (entry points `vertex_entry` / fs) with the article's state:
/// cull back, depth24plus with less, one colour target in kColorFormat; the bindery::Vertex
/// buffer layout unless `pulls_vertices` (a vertex stage that reads its vertices from storage).
gpu::RenderPipeline create_scene_pipeline(const Device& device, WGPUShaderModule module,
                                          WGPUPipelineLayout layout, const char* label,
                                          const char* vertex_entry = "vs",
                                          bool pulls_vertices = false);

}  // namespace bindery::strategies
