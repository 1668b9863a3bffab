// SPDX-License-Identifier: MIT
// src/render/frame/parallel_encode.hpp — a frame's draws in ranges and render passes, and the
// ranges encoded on several threads (RenderOptions::encode_threads). Private to bindery.
#pragma once

#include "render/strategies/strategy.hpp"

#include <tbb/task_arena.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace bindery::strategies {

/// The draws [0, draws) in min(parts, draws) consecutive ranges [first, last) whose sizes differ
/// by at most one (the longer ones first); one empty range {0, 0} when draws == 0. parts 0
/// counts as 1.
std::vector<std::pair<uint32_t, uint32_t>> split_draw_ranges(uint32_t draws, uint32_t parts);

/// One render pass of a frame's draws: draws [first, end) of draw range `range`.
struct DrawPass {
  uint32_t range = 0;  ///< index into split_draw_ranges(draws, parts)
  uint32_t first = 0;  ///< first draw
  uint32_t end = 0;    ///< one past the last draw (end - first <= max_draws_per_pass)
};

/// The render passes a frame's draws are recorded in: split_draw_ranges(draws, parts), each range
/// cut into passes of at most max_draws_per_pass draws (0 counts as 1), in draw order; one pass
/// {0, 0, 0} when draws == 0 (the frame still clears). Exact for every uint32_t input, including
/// max_draws_per_pass = UINT32_MAX ("no limit", the default off lavapipe). parts 0 counts as 1.
std::vector<DrawPass> plan_draw_passes(uint32_t draws, uint32_t parts, uint32_t max_draws_per_pass);

/// Where each draw range's passes begin in `passes` (plan_draw_passes() order, whose ranges are
/// consecutive), then passes.size(): range i's passes are [starts[i], starts[i + 1]).
std::vector<size_t> range_starts(const std::vector<DrawPass>& passes);

/// One encoding task's Counters, alone on its cache line(s): the tracker increments them on every
/// call, and neighbours in one line would bounce it between the cores (false sharing).
struct alignas(64) TaskCounters {
  Counters counters;
};

/// Slots of the arena that encodes `encode_threads` draw ranges: encode_threads, at most oneTBB's
/// default concurrency (the machine's cores; asking oneTBB for more workers only prints a
/// warning), at least 1. The ranges stay encode_threads; the slots take them in turn.
int encode_arena_slots(uint32_t encode_threads);

/// The draws of record_draw_passes() encoded on several threads: the frame's draws are split by
/// split_draw_ranges(draw_count, threads); each range gets its own command encoder, holding that
/// range in render passes of at most ctx.max_draws_per_pass draws (the frame's first pass clears,
/// every other loads), encoded and finished by one oneTBB task in `arena`. Returns the command
/// buffers in draw order, to be submitted in that order after the frame's uploads. Each task
/// counts into its own Counters; they are added to ctx.counters after the join, and ctx.passes
/// grows by the passes recorded. Timed as one "render" span (first pass to last). The strategy's
/// row must say parallel_encode; upload() must already be recorded. Rethrows what a task threw.
std::vector<gpu::CommandBuffer> encode_draw_passes_parallel(Strategy& strategy,
                                                            const Device& device, FrameContext& ctx,
                                                            tbb::task_arena& arena,
                                                            uint32_t threads);

}  // namespace bindery::strategies
