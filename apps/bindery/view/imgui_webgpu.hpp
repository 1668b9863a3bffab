// SPDX-License-Identifier: MIT
// apps/bindery/view/imgui_webgpu.hpp — a Dear ImGui renderer on webgpu.h (bindery's own: one
// pipeline, vertex and index buffers grown as needed, the font atlas texture, a scissor per draw
// command).
#pragma once

#include <bindery/core/device.hpp>
#include <bindery/core/gpu.hpp>

struct ImDrawData;

namespace bindery::view {

/// Draws ImGui's draw data into a render pass whose colour target has `format`. Create it after
/// ImGui::CreateContext() and the fonts are set (the atlas is uploaded here).
class ImGuiRenderer {
 public:
  /// Builds the pipeline for `format` and uploads the font atlas; sets the atlas's texture id.
  ImGuiRenderer(const Device& device, WGPUTextureFormat format);
  /// Uploads `data`'s vertices and indices (queue.writeBuffer) and records its draws into `pass`
  /// (a render pass on a `format` target of `data`'s framebuffer size); nothing for empty data.
  void draw(const ImDrawData& data, WGPURenderPassEncoder pass);

 private:
  void reserve(gpu::Buffer& buffer, uint64_t& capacity, uint64_t bytes, WGPUBufferUsage usage,
               const char* label);
  const Device& device_;
  gpu::RenderPipeline pipeline_;
  gpu::Buffer uniforms_, vertices_, indices_;
  uint64_t vertex_capacity_ = 0, index_capacity_ = 0;
  gpu::Texture font_;
  gpu::TextureView font_view_;
  gpu::Sampler sampler_;
  gpu::BindGroup bind_group_;
};

}  // namespace bindery::view
