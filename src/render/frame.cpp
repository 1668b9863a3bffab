// SPDX-License-Identifier: MIT
// The pieces a frame is recorded with: the offscreen target's render passes, named GPU spans by
// timestamp queries, and the default frame of a strategy (upload, then its draws in passes).
#include "strategy.hpp"

#include <fmt/format.h>

namespace bindery::strategies {

GpuTimer::GpuTimer(const Device& device, bool enable) {
  if (!enable || !device.has_timestamp_query()) return;
  WGPUQuerySetDescriptor qd = WGPU_QUERY_SET_DESCRIPTOR_INIT;
  qd.label = gpu::sv("frame timestamps");
  qd.type = WGPUQueryType_Timestamp;
  qd.count = kMaxSpans * 2;
  queries_ = gpu::QuerySet::acquire(wgpuDeviceCreateQuerySet(device.get(), &qd));
  resolve_ = device.create_buffer("timestamp resolve", bytes(),
                                  WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc);
}

uint32_t GpuTimer::open(std::string_view name) {
  if (!enabled() || names_.size() >= kMaxSpans) return kMaxSpans;
  names_.emplace_back(name);
  return static_cast<uint32_t>(names_.size() - 1);
}

const WGPUPassTimestampWrites* GpuTimer::writes(uint32_t span, bool first_pass, bool last_pass) {
  if (!enabled() || span >= kMaxSpans || !(first_pass || last_pass)) return nullptr;
  // One descriptor per (span, first/last-ness) is enough: a pass that is both gets both indices.
  WGPUPassTimestampWrites& w = writes_[span * 2 + (first_pass ? 0 : 1)];
  w = WGPU_PASS_TIMESTAMP_WRITES_INIT;
  w.querySet = queries_.get();
  w.beginningOfPassWriteIndex = first_pass ? span * 2 : WGPU_QUERY_SET_INDEX_UNDEFINED;
  w.endOfPassWriteIndex = last_pass ? span * 2 + 1 : WGPU_QUERY_SET_INDEX_UNDEFINED;
  return &w;
}

void GpuTimer::resolve(WGPUCommandEncoder encoder, WGPUBuffer dst, uint64_t offset) {
  if (!enabled() || names_.empty()) return;
  const uint32_t count = static_cast<uint32_t>(names_.size()) * 2;
  wgpuCommandEncoderResolveQuerySet(encoder, queries_.get(), 0, count, resolve_.get(), 0);
  wgpuCommandEncoderCopyBufferToBuffer(encoder, resolve_.get(), 0, dst, offset,
                                       uint64_t(count) * sizeof(uint64_t));
}

std::vector<GpuSpan> GpuTimer::spans(const std::vector<std::string>& names,
                                     const uint64_t* ts) const {
  std::vector<GpuSpan> out;
  for (size_t i = 0; i < names.size(); ++i) {
    const uint64_t begin = ts[i * 2], end = ts[i * 2 + 1];
    // webgpu.h: timestamps are nanoseconds; an end before its begin (a reset counter) is dropped.
    if (end >= begin) out.push_back({names[i], double(end - begin) / 1e6});
  }
  return out;
}

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
  const uint32_t draws = draw_count(), max_draws = ctx.max_draws_per_pass;
  const uint32_t span = ctx.timer.open("render");
  // One pass of at most max_draws draws at a time; the first clears, the others load (a frame
  // with no draws still clears in one pass).
  for (uint32_t first = 0; first < draws || first == 0; first += max_draws) {
    const uint32_t end = std::min(draws, first + std::min(max_draws, draws - first));
    gpu::RenderPassEncoder pass = ctx.target.begin_pass(
        ctx.encoder, first == 0, ctx.timer.writes(span, first == 0, end == draws));
    encode(pass.get(), first, end);
    wgpuRenderPassEncoderEnd(pass.get());
    ctx.passes++;
    if (draws == 0 || end == draws) break;
  }
}

}  // namespace bindery::strategies
