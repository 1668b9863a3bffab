// SPDX-License-Identifier: MIT
// The raw floor of `bindery bench --raw-floor` (bench.hpp, compare_raw_floor; issue 10 part 1):
// the dynamic-offsets strategy's frame issued straight on webgpu.h, with the strategy's own GPU
// objects, next to the same frame drawn by bindery's render(), alternating in one process.
//
// The raw loop is what a hand-written renderer that knows its draws are sorted by material would
// do: compare two ids to decide whether group 1 or the mesh buffers change, and issue
// setBindGroup(2) with a dynamic offset and drawIndexed for every object. Everything it needs
// (handles, offsets, index counts, upload ranges) is prepared before its first frame, so its
// per-frame CPU time is the implementation's floor for those calls plus the per-object packing.
#include "bindery/render/bench.hpp"

#include "bindery/headless/offscreen.hpp"
#include "bindery/render/scene.hpp"

#include "render/strategies/by_frequency.hpp"
#include "render/frame/parallel_encode.hpp"
#include "render/strategies/strategy.hpp"

#include <fmt/format.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include "internal/implementation.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

namespace bindery {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One writeBuffer of the per-object values: bytes [shadow_offset, + size) of the CPU copy to
// `buffer` at offset 0 (the first slot of its chunk).
struct ObjectWrite {
  WGPUBuffer buffer = nullptr;
  uint64_t shadow_offset = 0, size = 0;
  uint32_t first_slot = 0, end_slot = 0;  ///< the chunk's slots [first, end)
};

// The raw side: the dynamic-offsets strategy's GPU objects (kept alive by `strategy`) and what the
// raw loop reads per frame.
class RawFloor {
 public:
  RawFloor(const Device& device, const Scene& scene, const MeasureOptions& o)
      : device_(device),
        scene_(scene),
        options_(o),
        gpu_(strategies::upload_scene(
            device, scene,
            {.optimize_vertex_cache = o.render.vertex_order == "optimized"})),
        target_(device, {.width = o.render.width,
                         .height = o.render.height,
                         .color_format = strategies::kColorFormat,
                         .depth_format = strategies::kDepthFormat,
                         .extra_depth_usage = WGPUTextureUsage_TextureBinding,
                         .label = "raw floor target"}),
        arena_(o.render.threads == 0 ? tbb::task_arena::automatic : static_cast<int>(o.render.threads)) {
    if (o.render.encode_threads > 1)
      encode_arena_.emplace(strategies::encode_arena_slots(o.render.encode_threads));
    strategies::StrategyOptions so;
    so.width = o.render.width;
    so.height = o.render.height;
    so.depth_texture = target_.depth();
    strategy_ = strategies::find_strategy_row("dynamic-offsets").make(device, scene, gpu_, so);
    auto* by_frequency = dynamic_cast<strategies::ByFrequencyStrategy*>(strategy_.get());
    if (!by_frequency)
      throw Error(ErrorKind::InvalidArgument,
                  "raw floor: the dynamic-offsets strategy is no longer organised by frequency");
    const float aspect = float(o.render.width) / float(o.render.height);
    view_ = by_frequency->raw_view(
        {scene.view.view_projection(aspect), scene.view.light_world_position, scene.view.eye});

    const SlotLayout& layout = view_.objects->slot_layout();
    const uint32_t n = static_cast<uint32_t>(scene.objects.size());
    stride_ = layout.stride;
    shadow_.assign(size_t(layout.chunk_count(n)) * layout.slots_per_chunk * layout.stride, {});
    for (uint32_t c = 0; c < layout.chunk_count(n); ++c) {
      const uint32_t first = c * layout.slots_per_chunk;
      const uint32_t count = layout.slots_in_chunk(c, n);
      writes_.push_back({view_.objects->buffer(c), uint64_t(first) * layout.stride,
                         uint64_t(count - 1) * layout.stride + layout.upload_size_bytes(), first,
                         first + count});
    }
    max_draws_ = default_max_draws_per_pass(device.adapter());
    clear_ = {scene.view.clear_color.r, scene.view.clear_color.g, scene.view.clear_color.b,
              scene.view.clear_color.a};
  }

  /// Renders 1 + options.frames frames, one frame in flight (each waits until the previous one is
  /// done on the GPU before its maths); returns the median CPU time per draw of the last
  /// options.frames frames (ns) and leaves the last frame's calls in `tally`.
  double run(Counters& tally) {
    const uint32_t n = static_cast<uint32_t>(scene_.objects.size());
    implementation::Submission previous;
    std::vector<double> ns_per_draw;
    for (uint32_t f = 0; f < options_.render.frames + 1; ++f) {
      wait(previous);
      animate(float(f) / 60.0f);
      const Clock::time_point t1 = Clock::now();
      tally = {};
      previous = frame(n, tally);
      const Clock::time_point t2 = Clock::now();
      if (f > 0 && n > 0)
        ns_per_draw.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / n);
    }
    wait(previous);
    with_context("raw floor loop", [&] { device_.check(); });
    return median(ns_per_draw);
  }

 private:
  void animate(float t) {
    transforms_.resize(scene_.objects.size());
    const std::span<ObjectTransform> all(transforms_);
    const uint32_t n = static_cast<uint32_t>(all.size());
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<uint32_t>(0, n, 2048),
                        [&](const tbb::blocked_range<uint32_t>& r) {
                          scene_.animate_range(t, all, r.begin(), r.end());
                        });
    });
  }

  // One frame, every object moved: pack, upload, encode, finish, submit.
  void wait(const implementation::Submission& submission) const {
    implementation::wait(device_.instance(), device_.get(), device_.queue(), submission);
  }

  implementation::Submission frame(uint32_t n, Counters& tally) {
    const WGPUQueue queue = device_.queue();
    wgpuQueueWriteBuffer(queue, view_.frame_buffer, 0, view_.frame_bytes.data(),
                         view_.frame_bytes.size());
    tally.write_buffer_calls++;
    tally.bytes_uploaded += view_.frame_bytes.size();
    for (uint32_t i = 0; i < n; ++i) {
      const ObjectTransform& t = transforms_[i];
      strategies::PerObjectGpu g;
      for (int c = 0; c < 3; ++c) g.normalMatrix[c] = glm::vec4(t.normal[c], 0.0f);
      g.world = t.world;
      std::memcpy(shadow_.data() + size_t(i) * stride_, &g, sizeof(g));
    }
    for (const ObjectWrite& w : writes_) {
      wgpuQueueWriteBuffer(queue, w.buffer, 0, shadow_.data() + w.shadow_offset, w.size);
      tally.write_buffer_calls++;
      tally.bytes_uploaded += w.size;
    }

    // The passes of strategies::plan_draw_passes, one command encoder per range (one range
    // unless encode_threads > 1), submitted in draw order in one submit.
    const uint32_t draws = static_cast<uint32_t>(view_.draws.size());
    const std::vector<strategies::DrawPass> passes =
        strategies::plan_draw_passes(draws, options_.render.encode_threads, max_draws_);
    const size_t ranges = passes.back().range + 1;
    std::vector<WGPUCommandBuffer> commands(ranges);
    if (ranges == 1) {
      commands[0] = record(passes, 0, passes.size(), tally);
    } else {
      const std::vector<size_t> starts = strategies::range_starts(passes);
      std::vector<strategies::TaskCounters> tallies(ranges);
      encode_arena_->execute([&] {
        tbb::parallel_for(
            tbb::blocked_range<size_t>(0, ranges, 1),
            [&](const tbb::blocked_range<size_t>& r) {
              for (size_t i = r.begin(); i != r.end(); ++i)
                commands[i] = record(passes, starts[i], starts[i + 1], tallies[i].counters);
            },
            tbb::simple_partitioner());
      });
      for (const strategies::TaskCounters& t : tallies) tally += t.counters;
    }
    const implementation::Submission index =
        implementation::submit(device_.instance(), queue, commands.size(), commands.data());
    for (WGPUCommandBuffer c : commands) wgpuCommandBufferRelease(c);
    return index;
  }

  // Records passes [begin, end) of `passes` into a new command encoder and finishes it; pass 0
  // of the frame clears, every other loads.
  WGPUCommandBuffer record(const std::vector<strategies::DrawPass>& passes, size_t begin,
                           size_t end, Counters& tally) {
    WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(device_.get(), nullptr);
    for (size_t p = begin; p < end; ++p) {
      const bool clear = p == 0;
      WGPURenderPassColorAttachment ca = WGPU_RENDER_PASS_COLOR_ATTACHMENT_INIT;
      ca.view = target_.color_view();
      ca.loadOp = clear ? WGPULoadOp_Clear : WGPULoadOp_Load;
      ca.storeOp = WGPUStoreOp_Store;
      ca.clearValue = clear_;
      WGPURenderPassDepthStencilAttachment da = WGPU_RENDER_PASS_DEPTH_STENCIL_ATTACHMENT_INIT;
      da.view = target_.depth_view();
      da.depthLoadOp = clear ? WGPULoadOp_Clear : WGPULoadOp_Load;
      da.depthStoreOp = WGPUStoreOp_Store;
      da.depthClearValue = 1.0f;
      WGPURenderPassDescriptor pd = WGPU_RENDER_PASS_DESCRIPTOR_INIT;
      pd.colorAttachmentCount = 1;
      pd.colorAttachments = &ca;
      pd.depthStencilAttachment = &da;
      WGPURenderPassEncoder pass = wgpuCommandEncoderBeginRenderPass(encoder, &pd);
      encode(pass, passes[p].first, passes[p].end, tally);
      wgpuRenderPassEncoderEnd(pass);
      wgpuRenderPassEncoderRelease(pass);
    }
    WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, nullptr);
    wgpuCommandEncoderRelease(encoder);
    return commands;
  }

  // Draws [first, end) into a pass that starts with nothing bound.
  void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t end, Counters& tally) {
    wgpuRenderPassEncoderSetPipeline(pass, view_.pipeline);
    wgpuRenderPassEncoderSetBindGroup(pass, strategies::by_frequency_groups::kFrameGroup,
                                      view_.frame_group, 0, nullptr);
    tally.set_pipeline++;
    tally.set_bind_group++;
    uint32_t material = UINT32_MAX, mesh = UINT32_MAX;
    for (uint32_t i = first; i < end; ++i) {
      const strategies::ByFrequencyStrategy::RawDraw& d = view_.draws[i];
      if (d.material != material) {
        material = d.material;
        wgpuRenderPassEncoderSetBindGroup(pass, strategies::by_frequency_groups::kMaterialGroup,
                                          d.material_group, 0, nullptr);
        tally.set_bind_group++;
      }
      if (d.mesh != mesh) {
        mesh = d.mesh;
        wgpuRenderPassEncoderSetVertexBuffer(pass, 0, d.vertices, d.vertex_offset, d.vertex_bytes);
        wgpuRenderPassEncoderSetIndexBuffer(pass, d.indices, d.index_format, d.index_offset,
                                            d.index_bytes);
        tally.set_vertex_buffer++;
        tally.set_index_buffer++;
      }
      wgpuRenderPassEncoderSetBindGroup(pass, strategies::by_frequency_groups::kObjectGroup,
                                        d.object_group, 1, &d.dynamic_offset);
      wgpuRenderPassEncoderDrawIndexed(pass, d.index_count, 1, 0, 0, 0);
      tally.set_bind_group++;
      tally.draws++;
    }
  }

  const Device& device_;
  const Scene& scene_;
  MeasureOptions options_;
  strategies::GpuScene gpu_;
  OffscreenTarget target_;
  tbb::task_arena arena_;
  std::optional<tbb::task_arena> encode_arena_;     ///< encode_threads slots, when more than one
  std::unique_ptr<strategies::Strategy> strategy_;  ///< owns the GPU objects view_ names
  strategies::ByFrequencyStrategy::RawView view_;
  uint64_t stride_ = 0;
  std::vector<std::byte> shadow_;  ///< every object's values at its slot's offset
  std::vector<ObjectWrite> writes_;
  std::vector<ObjectTransform> transforms_;
  uint32_t max_draws_ = UINT32_MAX;
  WGPUColor clear_{};
};

}  // namespace

RawFloorResult compare_raw_floor(const Device& device, const MeasureOptions& o, uint32_t objects,
                                 uint32_t rounds) {
  if (rounds == 0 || rounds > 100)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("raw floor: {} rounds is outside 1..100", rounds));
  if (objects == 0) throw Error(ErrorKind::InvalidArgument, "raw floor: needs at least one object");
  const Scene scene = make_cube_scene({.objects = objects, .seed = o.seed, .spread = o.spread});
  RenderOptions ro;
  ro.strategy = "dynamic-offsets";
  ro.width = o.render.width;
  ro.height = o.render.height;
  ro.frames = o.render.frames + 1;
  ro.keep_last_frame = false;
  // One frame in flight on both sides: a frame's CPU time then never includes waiting for, or
  // sharing the cores with, the previous frame's GPU work. On lavapipe (whose GPU is the same two
  // cores) 2 frames in flight put 16-24 us per draw into both sides' CPU time at 484 cubes, 1x1,
  // where one frame in flight measures under 1 us.
  ro.frames_in_flight = 1;
  ro.threads = o.render.threads;
  ro.encode_threads = o.render.encode_threads;
  ro.gpu_timing = false;
  RawFloor raw(device, scene, o);

  RawFloorResult result;
  result.objects = objects;
  result.frames = o.render.frames;
  auto bindery_side = [&] {
    const RenderReport report = render(device, scene, ro);
    std::vector<double> ns;
    for (size_t i = 1; i < report.frames.size(); ++i)
      ns.push_back(report.frames[i].cpu_ms * 1e6 / objects);
    result.bindery_per_frame = report.per_frame;
    return median(ns);
  };
  std::vector<double> bindery, rawv, ratio;
  for (uint32_t r = 0; r < rounds; ++r) {
    RawFloorRound round;
    if (r % 2 == 0) {
      round.bindery_ns_per_draw = bindery_side();
      round.raw_ns_per_draw = raw.run(result.raw_per_frame);
    } else {
      round.raw_ns_per_draw = raw.run(result.raw_per_frame);
      round.bindery_ns_per_draw = bindery_side();
    }
    result.rounds.push_back(round);
    bindery.push_back(round.bindery_ns_per_draw);
    rawv.push_back(round.raw_ns_per_draw);
    ratio.push_back(round.ratio());
  }
  result.bindery_ns_per_draw = median(bindery);
  result.raw_ns_per_draw = median(rawv);
  result.ratio = median(ratio);
  return result;
}

}  // namespace bindery
