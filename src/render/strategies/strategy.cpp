// SPDX-License-Identifier: MIT
// The default frame of a strategy (strategy.hpp): upload, then its draws in render passes.
#include "strategy.hpp"

#include "render/frame/parallel_encode.hpp"

namespace bindery::strategies {

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
