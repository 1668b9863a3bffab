// SPDX-License-Identifier: MIT
// The offscreen target's render passes (render/frame/frame_context.hpp). The GPU spans are
// headless/gpu_timer.cpp's.
#include "render/frame/frame_context.hpp"

namespace bindery::strategies {

gpu::RenderPassEncoder FrameTarget::begin_pass(WGPUCommandEncoder encoder, bool clear,
                                               const WGPUPassTimestampWrites* timestamps) const {
  WGPURenderPassColorAttachment ca = WGPU_RENDER_PASS_COLOR_ATTACHMENT_INIT;
  ca.view = color;
  ca.loadOp = clear ? WGPULoadOp_Clear : WGPULoadOp_Load;
  ca.storeOp = WGPUStoreOp_Store;
  ca.clearValue = {clear_color.r, clear_color.g, clear_color.b, clear_color.a};
  WGPURenderPassDepthStencilAttachment da = WGPU_RENDER_PASS_DEPTH_STENCIL_ATTACHMENT_INIT;
  da.view = depth;
  da.depthLoadOp = clear ? WGPULoadOp_Clear : WGPULoadOp_Load;
  da.depthStoreOp = WGPUStoreOp_Store;
  da.depthClearValue = 1.0f;
  WGPURenderPassDescriptor pd = WGPU_RENDER_PASS_DESCRIPTOR_INIT;
  pd.colorAttachmentCount = 1;
  pd.colorAttachments = &ca;
  pd.depthStencilAttachment = &da;
  pd.timestampWrites = timestamps;
  return gpu::RenderPassEncoder::acquire(wgpuCommandEncoderBeginRenderPass(encoder, &pd));
}

}  // namespace bindery::strategies
