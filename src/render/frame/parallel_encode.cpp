// SPDX-License-Identifier: MIT
// A frame's draws in ranges and render passes, and the ranges encoded on several threads, one
// command encoder each (render/frame/parallel_encode.hpp).
#include "render/frame/parallel_encode.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>

namespace bindery::strategies {

std::vector<std::pair<uint32_t, uint32_t>> split_draw_ranges(uint32_t draws, uint32_t parts) {
  if (draws == 0) return {{0, 0}};
  parts = std::max(parts, 1u);
  const uint32_t n = std::min(parts, draws), q = draws / n, longer = draws % n;
  std::vector<std::pair<uint32_t, uint32_t>> out;
  out.reserve(n);
  uint32_t first = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t last = first + q + (i < longer ? 1 : 0);
    out.emplace_back(first, last);
    first = last;
  }
  return out;
}

std::vector<size_t> range_starts(const std::vector<DrawPass>& passes) {
  const size_t ranges = passes.empty() ? 0 : passes.back().range + 1;
  std::vector<size_t> starts(ranges + 1, passes.size());
  for (size_t p = passes.size(); p-- > 0;) starts[passes[p].range] = p;
  return starts;
}

int encode_arena_slots(uint32_t encode_threads) {
  const uint32_t cores = static_cast<uint32_t>(std::max(1, tbb::info::default_concurrency()));
  return static_cast<int>(std::clamp(encode_threads, 1u, cores));
}

std::vector<DrawPass> plan_draw_passes(uint32_t draws, uint32_t parts,
                                       uint32_t max_draws_per_pass) {
  const uint32_t max_draws = std::max(1u, max_draws_per_pass);
  const std::vector<std::pair<uint32_t, uint32_t>> ranges = split_draw_ranges(draws, parts);
  std::vector<DrawPass> out;
  for (uint32_t r = 0; r < ranges.size(); ++r) {
    const auto [begin, end] = ranges[r];
    // Counted by what is left (end - first), never by first + max_draws: that sum wraps for
    // max_draws near UINT32_MAX and would end the pass before it begins.
    uint32_t first = begin;
    do {
      const uint32_t last = first + std::min(max_draws, end - first);
      out.push_back({r, first, last});
      first = last;
    } while (first < end);
  }
  return out;
}

// Why encoding on several threads is correct (webgpu.h, wgpu-native):
// - webgpu.h (webgpu-headers' Multithreading article) lets an implementation support
//   multithreading; where it does, objects are usable from any thread except APIs documented as
//   not thread-safe, and encoders are the documented exception. wgpu-native supports it: its
//   device, queue, buffers, bind groups and pipelines wrap wgpu-core objects that are Send + Sync
//   (wgpuDeviceCreateCommandEncoder and wgpuCommandEncoderFinish may run on several threads at
//   once, each on its own encoder), while its render pass / compute pass / render bundle encoders
//   are deliberately not thread-safe (wgpu-native PR #354): one encoder, one thread at a time.
//   Dawn's device is thread-safe only with its ImplicitDeviceSynchronization feature (a lock per
//   device), which bindery requests where offered and requires for more than one thread.
//   Here each oneTBB task creates, records and finishes its own command encoder and the passes
//   begun from it; no other thread touches them until the join.
// - queue.submit() runs its command buffers in array order: the one submit, on
//   the recording thread after the join, lists the uploads, then the ranges in draw order, so
//   range i's passes load what range i-1's stored.
// - Error scopes are thread-local in webgpu.h; bindery uses none on this path: errors reach
//   Device's uncaptured-error callback, which may run on any thread and records under a mutex,
//   and device.check() runs on the recording thread before the submit.
// - bindery's own state: each task's RenderPassState counts into the task's Counters (Device's
//   counters are a plain struct, summed here after the join); the strategies marked
//   parallel_encode only read their pipelines, bind groups, meshes and draw lists in encode()
//   (DynamicUniformBuffer and the material and frame groups through const getters, no cache
//   filled lazily); the timestamp writes are taken from the GpuTimer (which mutates its table)
//   before the tasks start.
std::vector<gpu::CommandBuffer> encode_draw_passes_parallel(Strategy& strategy,
                                                            const Device& device, FrameContext& ctx,
                                                            tbb::task_arena& arena,
                                                            uint32_t threads) {
  const std::vector<DrawPass> passes =
      plan_draw_passes(strategy.draw_count(), threads, ctx.max_draws_per_pass);
  const std::vector<size_t> starts = range_starts(passes);
  const size_t n = starts.size() - 1;
  const size_t total = passes.size();
  const uint32_t span = ctx.timer.open("render");
  const WGPUPassTimestampWrites* first_writes = ctx.timer.writes(span, true, total == 1);
  const WGPUPassTimestampWrites* last_writes =
      total > 1 ? ctx.timer.writes(span, false, true) : nullptr;

  std::vector<gpu::CommandBuffer> commands(n);
  std::vector<TaskCounters> counts(n);
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, n, 1),
        [&](const tbb::blocked_range<size_t>& r) {
          for (size_t i = r.begin(); i != r.end(); ++i) {
            gpu::CommandEncoder encoder =
                gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
            for (size_t p = starts[i]; p < starts[i + 1]; ++p) {
              const bool frame_first = p == 0, frame_last = p + 1 == total;
              gpu::RenderPassEncoder pass = ctx.target.begin_pass(
                  encoder.get(), frame_first,
                  frame_first ? first_writes : (frame_last ? last_writes : nullptr));
              strategy.encode(pass.get(), passes[p].first, passes[p].end, counts[i].counters);
              wgpuRenderPassEncoderEnd(pass.get());
            }
            commands[i] =
                gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
          }
        },
        tbb::simple_partitioner());
  });
  for (const TaskCounters& c : counts) ctx.counters += c.counters;
  ctx.passes += static_cast<uint32_t>(total);
  return commands;
}

}  // namespace bindery::strategies
