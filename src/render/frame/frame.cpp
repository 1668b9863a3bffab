// SPDX-License-Identifier: MIT
// The pieces a frame is recorded with: the offscreen target's render passes and the default frame
// of a strategy (upload, then its draws in passes). The GPU spans are headless/gpu_timer.cpp's.
#include "render/frame/parallel_encode.hpp"
#include "render/strategies/strategy.hpp"


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

void Strategy::record_frame(FrameContext& ctx) {
  upload(ctx.in, ctx.encoder);
  record_draw_passes(ctx);
}

void Strategy::record_draw_passes(FrameContext& ctx) {
  const std::vector<DrawPass> passes = plan_draw_passes(draw_count(), 1, ctx.max_draws_per_pass);
  const uint32_t span = ctx.timer.open("render");
  // The first pass clears, the others load (a frame with no draws still clears in one pass).
  for (size_t p = 0; p < passes.size(); ++p) {
    gpu::RenderPassEncoder pass = ctx.target.begin_pass(
        ctx.encoder, p == 0, ctx.timer.writes(span, p == 0, p + 1 == passes.size()));
    encode(pass.get(), passes[p].first, passes[p].end, ctx.counters);
    wgpuRenderPassEncoderEnd(pass.get());
    ctx.passes++;
  }
}

}  // namespace bindery::strategies
