// SPDX-License-Identifier: MIT
// The counters of the GPU-driven indirect draws (bindery/gpu_driven/indirect_draws.hpp), shared by
// indirect_draws.wgsl and gpu_cull.wgsl, which bind the same buffers. Pulled in with a
// `// @include draw_counters.wgsl` line (cmake/EmbedShaders.cmake).
//
// entries: appended this phase; subDraws: non-empty bins, summed over the frame's phases;
// drawCounts[p]: pipeline p's non-empty bins this phase (multiDrawIndexedIndirectCount's count).
// The culling appends entries from many invocations at once, hence atomics.
struct DrawCounters {
  entries: atomic<u32>,
  subDraws: atomic<u32>,
  pad0: u32,
  pad1: u32,
  drawCounts: array<u32>,
};

// The workgroup counts of a dispatchWorkgroupsIndirect written by a shader.
struct DispatchArgs {
  x: u32,
  y: u32,
  z: u32,
};
