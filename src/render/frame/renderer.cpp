// SPDX-License-Identifier: MIT
// The frame loop of `bindery render`: offscreen target, frames in flight (the CPU starts frame N
// once frame N-K is done on the GPU), per-object matrices on every core, per-pass GPU timing with
// timestamp queries read back without stalling, readback of the last frame (rows padded to the
// copy alignment, wgpu-native examples/capture).
#include "bindery/render/renderer.hpp"
#include "bindery/gpu_driven/indirect_draws.hpp"

#include "bindery/headless/offscreen.hpp"

#include "render/strategies/strategy.hpp"

#include <fmt/format.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include "core/implementation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <span>

namespace bindery {

// The public defaults are the renderer's formats; the renderer keeps its own constants for now.
static_assert(kOffscreenColorFormat == strategies::kColorFormat);
static_assert(kOffscreenDepthFormat == strategies::kDepthFormat);

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0, Clock::time_point t1) {
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

constexpr uint32_t kMaxFramesInFlight = 8;

// A Scene is a public struct: check every index and texture before any GPU object is made from
// it, so a bad one is a SceneInput error naming the element instead of a crash or a raw
// validation error from the implementation.
void validate_scene(const Scene& scene, const Limits& limits) {
  for (size_t i = 0; i < scene.meshes.size(); ++i) {
    const Mesh& m = scene.meshes[i];
    if (m.vertices.empty() || m.indices.empty() || m.indices.size() % 3 != 0)
      throw Error(ErrorKind::SceneInput,
                  fmt::format("scene: mesh {} ('{}') needs vertices and whole triangles ({} "
                              "vertices, {} indices)",
                              i, m.name, m.vertices.size(), m.indices.size()));
    for (uint32_t index : m.indices)
      if (index >= m.vertices.size())
        throw Error(ErrorKind::SceneInput,
                    fmt::format("scene: mesh {} ('{}') has index {} >= vertex count {}", i, m.name,
                                index, m.vertices.size()));
    if (m.index16 && m.vertices.size() > 65536)
      throw Error(ErrorKind::SceneInput,
                  fmt::format("scene: mesh {} ('{}') is marked index16 with {} vertices", i, m.name,
                              m.vertices.size()));
  }
  for (size_t i = 0; i < scene.textures.size(); ++i) {
    const TextureData& t = scene.textures[i];
    if (t.width == 0 || t.height == 0 || t.width > limits.maxTextureDimension2D ||
        t.height > limits.maxTextureDimension2D)
      throw Error(ErrorKind::TextureSizeOutOfRange,
                  fmt::format("scene: texture {} ('{}') is {}x{}; each side must be 1..{} "
                              "(maxTextureDimension2D)",
                              i, t.name, t.width, t.height, limits.maxTextureDimension2D));
    uint32_t w = t.width, h = t.height;
    if (t.mips.empty())
      throw Error(ErrorKind::SceneInput,
                  fmt::format("scene: texture {} ('{}') has no mip levels", i, t.name));
    for (size_t level = 0; level < t.mips.size(); ++level) {
      if (t.mips[level].size() != size_t(w) * h * 4)
        throw Error(
            ErrorKind::SceneInput,
            fmt::format("scene: texture {} ('{}') mip {} has {} bytes, {}x{} RGBA8 needs {}", i,
                        t.name, level, t.mips[level].size(), w, h, size_t(w) * h * 4));
      if (level + 1 < t.mips.size() && w == 1 && h == 1)
        throw Error(ErrorKind::SceneInput,
                    fmt::format("scene: texture {} ('{}') has mips past 1x1", i, t.name));
      w = std::max(1u, w / 2);
      h = std::max(1u, h / 2);
    }
  }
  for (size_t i = 0; i < scene.materials.size(); ++i) {
    const Material& m = scene.materials[i];
    if (m.texture >= scene.textures.size())
      throw Error(ErrorKind::SceneInput, fmt::format("scene: material {} names texture {} of {}", i,
                                                     m.texture, scene.textures.size()));
    if (m.sampler >= scene.samplers.size())
      throw Error(ErrorKind::SceneInput, fmt::format("scene: material {} names sampler {} of {}", i,
                                                     m.sampler, scene.samplers.size()));
    if (m.alpha_mode == AlphaMode::mask && !std::isfinite(m.alpha_cutoff))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("scene: material {} has alpha cutoff {}", i, m.alpha_cutoff));
  }
  for (size_t i = 0; i < scene.objects.size(); ++i) {
    const Object& obj = scene.objects[i];
    if (obj.mesh >= scene.meshes.size() || obj.material >= scene.materials.size())
      throw Error(ErrorKind::SceneInput,
                  fmt::format("scene: object {} names mesh {} of {} and material {} of {}", i,
                              obj.mesh, scene.meshes.size(), obj.material, scene.materials.size()));
  }
}

void validate_options(const Device& device, const Scene& scene, const RenderOptions& o) {
  if (!o.draw_path.empty() && !gpu_driven::parse_draw_path(o.draw_path))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::draw_path = \"{}\"; valid: multi-draw-indirect-count, "
                            "multi-draw-indirect, bundle, loop (or empty: the best the device offers)",
                            escape_for_message(o.draw_path)));
  const uint32_t max_dim = device.limits().maxTextureDimension2D;
  if (o.width == 0 || o.height == 0 || o.width > max_dim || o.height > max_dim)
    throw Error(ErrorKind::TextureSizeOutOfRange,
                fmt::format("render: --size {}x{} is outside 1..{} (maxTextureDimension2D) in "
                            "each dimension",
                            o.width, o.height, max_dim));
  if (o.frames == 0) throw Error(ErrorKind::SceneInput, "render: --frames must be at least 1");
  if (o.time_s && !std::isfinite(*o.time_s))
    throw Error(ErrorKind::SceneInput, fmt::format("render: time {} is not finite", *o.time_s));
  if (!(o.moving >= 0.0 && o.moving <= 1.0))
    throw Error(ErrorKind::SceneInput,
                fmt::format("render: --moving {} is outside [0, 1]", o.moving));
  if (o.frames_in_flight < 1 || o.frames_in_flight > kMaxFramesInFlight)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("render: --frames-in-flight {} is outside 1..{}", o.frames_in_flight,
                            kMaxFramesInFlight));
  const strategies::StrategyRow& row = strategies::find_strategy_row(o.strategy);
  check_encode_threads(o.strategy, o.encode_threads, "render");
  if (o.encode_threads > 1 && !implementation::multithreaded_encoding(device.get()))
    throw Error(ErrorKind::ImplementationLimit,
                fmt::format("render: --encode-threads {} needs command encoders recorded on "
                            "several threads at once, which this {} device does not allow "
                            "(Dawn: the adapter does not offer ImplicitDeviceSynchronization); "
                            "use --encode-threads 1",
                            o.encode_threads, implementation::name()));
  validate_scene(scene, device.limits());
  if (row.unavailable)
    if (std::optional<std::string> why = row.unavailable(device, scene))
      throw Error(ErrorKind::StrategyUnavailable,
                  fmt::format("render: strategy {} cannot draw this scene on {}: {}", o.strategy,
                              device.adapter().name, *why));
}

}  // namespace

void check_encode_threads(std::string_view strategy, int64_t encode_threads,
                          std::string_view command) {
  const strategies::StrategyRow& row = strategies::find_strategy_row(strategy);
  if (encode_threads < 1 || encode_threads > kMaxEncodeThreads)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: --encode-threads {} is outside 1..{} (one command encoder and "
                            "render pass per thread; more threads than any host's cores gain "
                            "nothing)",
                            command, encode_threads, kMaxEncodeThreads));
  if (encode_threads > 1 && !row.parallel_encode)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: --encode-threads {} does not apply to strategy {}, which does "
                            "not encode its draws through the shared per-draw path (render "
                            "bundles, or passes it records itself); use --encode-threads 1",
                            command, encode_threads, strategy));
}

uint32_t default_max_draws_per_pass(const AdapterDescription& adapter) {
  // Mesa lavapipe 25.0 segfaults in its rasterizer thread once one render pass holds more than
  // about 65,100 draws (65,100 ran, 65,200 crashed, both per-draw strategies; seen on this
  // project's CPU machines). Splitting the frame into passes of 50,000 draws avoids it.
  constexpr uint32_t kLavapipeDrawsPerPass = 50'000;
  if (adapter.name.find("llvmpipe") != std::string::npos) return kLavapipeDrawsPerPass;
  return UINT32_MAX;
}

uint64_t default_max_bind_groups(const AdapterDescription& adapter) {
  if (adapter.name.find("llvmpipe") == std::string::npos) return UINT64_MAX;
  constexpr uint64_t kReservedMappings = 5000;  // libraries, heaps, threads, textures
  uint64_t max_map_count = 65530;               // the Linux default
  std::ifstream("/proc/sys/vm/max_map_count") >> max_map_count;
  return max_map_count > kReservedMappings ? max_map_count - kReservedMappings : 0;
}

namespace {

// A buffer map that completes while the device is polled (frames in flight read their
// timestamps and statistics this way, without waiting at submit time). The callback's state lives
// on the heap: when a run ends early (an error, a lost device) with a map still pending, the
// state is orphaned and the callback, which wgpu-native still calls when the buffer goes away,
// frees it instead of writing into a destroyed frame slot.
class PendingMap {
 public:
  PendingMap() = default;
  PendingMap(const PendingMap&) = delete;
  PendingMap& operator=(const PendingMap&) = delete;
  ~PendingMap() { forget(); }

  bool requested() const { return state_ != nullptr; }
  bool done() const { return state_ && state_->done; }
  bool succeeded() const { return done() && state_->status == WGPUMapAsyncStatus_Success; }

  void request(WGPUBuffer buffer, uint64_t size) {
    forget();
    state_ = new State;
    WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView, void* u1, void*) {
      auto* st = static_cast<State*>(u1);
      if (st->orphaned) {
        delete st;
        return;
      }
      st->done = true;
      st->status = status;
    };
    cb.userdata1 = state_;
    wgpuBufferMapAsync(buffer, WGPUMapMode_Read, 0, size, cb);
  }

  /// Ends this request: frees a completed state, orphans a pending one.
  void forget() {
    if (!state_) return;
    if (state_->done)
      delete state_;
    else
      state_->orphaned = true;
    state_ = nullptr;
  }

 private:
  struct State {
    bool done = false, orphaned = false;
    WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
  };
  State* state_ = nullptr;
};

// Per frame-in-flight state: the readback of its GPU spans and statistics.
struct FrameSlot {
  gpu::Buffer readback;
  PendingMap map;
  std::vector<std::string> span_names;
  implementation::Submission submission;
  uint32_t frame = 0;
  Counters calls;  // the calls and bytes of the frame recorded into this slot
};

// Computes per-object matrices for [0, end) on `threads` threads (oneTBB), in blocks large
// enough that scheduling costs nothing next to the maths.
void animate_objects(const Scene& scene, float t, std::vector<ObjectTransform>& out, uint32_t end,
                     tbb::task_arena& arena) {
  out.resize(scene.objects.size());
  const std::span<ObjectTransform> all(out);
  if (arena.max_concurrency() <= 1 || end < 4096) {
    scene.animate_range(t, all, 0, end);
    return;
  }
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, end, 2048),
                      [&](const tbb::blocked_range<uint32_t>& r) {
                        scene.animate_range(t, all, r.begin(), r.end());
                      });
  });
}

}  // namespace

double RenderReport::throughput_fps() const {
  // Frames after the first (which creates and uploads everything): their completion intervals
  // add up to the wall time of the steady state.
  if (frames_rendered >= 2 && steady_interval_ms > 0)
    return double(frames_rendered - 1) * 1000.0 / steady_interval_ms;
  double ms = 0;
  for (size_t i = 1; i < frames.size(); ++i) ms += frames[i].interval_ms;
  if (frames.size() < 2 || ms <= 0) return frames.empty() ? 0 : 1000.0 / frames[0].frame_ms;
  return double(frames.size() - 1) * 1000.0 / ms;
}

RenderReport render(const Device& device, const Scene& scene, const RenderOptions& options) {
  validate_options(device, scene, options);
  const strategies::StrategyRow& row = strategies::find_strategy_row(options.strategy);
  const Counters start = device.counters();

  // Colour (copied out for the last frame) and depth (also sampled by depth-pyramid builders).
  const OffscreenTarget offscreen(device, {.width = options.width,
                                           .height = options.height,
                                           .color_format = strategies::kColorFormat,
                                           .depth_format = strategies::kDepthFormat,
                                           .extra_depth_usage = WGPUTextureUsage_TextureBinding,
                                           .label = "render target"});
  strategies::FrameTarget target;
  target.color = offscreen.color_view();
  target.depth = offscreen.depth_view();
  target.depth_texture = offscreen.depth();
  target.width = options.width;
  target.height = options.height;
  target.clear_color = scene.view.clear_color;

  // Readback of the last frame.
  std::optional<TextureReadback> readback;
  if (options.keep_last_frame) readback.emplace(device, offscreen.color());

  strategies::GpuScene gpu_scene = strategies::upload_scene(device, scene);
  strategies::StrategyOptions so;
  so.occlusion = options.occlusion;
  so.draw_path = options.draw_path;
  so.width = options.width;
  so.height = options.height;
  so.depth_texture = target.depth_texture;
  std::unique_ptr<strategies::Strategy> strategy = row.make(device, scene, gpu_scene, so);
  strategies::GpuTimer timer(device, options.gpu_timing);

  // One readback slot per frame in flight: GPU spans, then the strategy's statistics.
  const uint32_t k = options.frames_in_flight;
  const uint64_t stats_offset = timer.enabled() ? timer.bytes() : 0;
  const uint64_t slot_bytes = stats_offset + strategy->stats_bytes();
  std::vector<FrameSlot> slots(k);
  if (slot_bytes > 0)
    for (FrameSlot& slot : slots)
      slot.readback = device.create_buffer("frame statistics", slot_bytes,
                                           WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);

  RenderReport report;
  report.scene = scene.name;
  report.strategy = options.strategy;
  report.objects = static_cast<uint32_t>(scene.objects.size());
  report.materials = static_cast<uint32_t>(scene.materials.size());
  report.meshes = static_cast<uint32_t>(scene.meshes.size());
  report.textures = static_cast<uint32_t>(scene.textures.size());
  report.width = options.width;
  report.height = options.height;
  report.frames_in_flight = k;
  report.object_stride_bytes = strategy->object_stride();
  report.init = device.counters() - start;
  // Every frame's timing, or a ring of one per frame in flight (frame f at f % k: frame f - k
  // is complete, its timing handed to on_frame_done, before frame f is recorded).
  const bool keep = options.keep_frame_timings;
  report.frames.resize(keep ? options.frames : std::min(options.frames, k));
  auto timing_of = [&](uint32_t f) -> FrameTiming& { return report.frames[keep ? f : f % k]; };
  report.frames_rendered = options.frames;
  const uint32_t max_draws = options.max_draws_per_pass
                                 ? options.max_draws_per_pass
                                 : default_max_draws_per_pass(device.adapter());

  tbb::task_arena arena(options.threads == 0 ? tbb::task_arena::automatic
                                             : static_cast<int>(options.threads));
  report.threads = static_cast<uint32_t>(arena.max_concurrency());
  // The draw-encoding tasks run in their own arena (oneTBB), apart from the matrices' arena, so
  // --threads and --encode-threads are set independently. It has at most as many slots as the
  // machine has cores (oneTBB's default concurrency; asking for more only gets a warning): the
  // draws still go into encode_threads ranges, the cores take them in turn.
  const uint32_t encode_threads = options.encode_threads;
  std::optional<tbb::task_arena> encode_arena;
  if (encode_threads > 1) encode_arena.emplace(strategies::encode_arena_slots(encode_threads));
  report.encode_threads = encode_threads;
  const float aspect = float(options.width) / float(options.height);
  strategies::FrameValues values{scene.view.view_projection(aspect),
                                 scene.view.light_world_position, scene.view.eye};
  std::vector<ObjectTransform> transforms;
  const uint32_t n = static_cast<uint32_t>(scene.objects.size());
  // ceil(moving * n), with a tolerance so that a decimal share such as 0.0015 of 2000 (not exact
  // in binary floating point) gives 3, not 4.
  const uint32_t moving = std::min(n, static_cast<uint32_t>(std::ceil(options.moving * n - 1e-6)));
  report.moving_objects = static_cast<uint32_t>(std::count_if(
      scene.moving.begin(), scene.moving.end(), [&](uint32_t i) { return i < moving; }));
  std::vector<Clock::time_point> starts(options.frames), done(options.frames);

  // Waits until frame `f` is done on the GPU, then reads its spans and statistics.
  auto complete = [&](uint32_t f) {
    FrameSlot& slot = slots[f % k];
    implementation::wait(device.instance(), device.get(), device.queue(), slot.submission);
    if (slot.map.requested()) {
      for (int i = 0; i < 100000 && !slot.map.done(); ++i) {
        wgpuInstanceProcessEvents(device.instance());
        if (!slot.map.done()) device.poll(true);
      }
      device.check();
      if (!slot.map.succeeded())
        throw Error(ErrorKind::WebGPUValidation,
                    fmt::format("frame {}: mapping its statistics failed", f));
      const auto* bytes = static_cast<const std::byte*>(
          wgpuBufferGetConstMappedRange(slot.readback.get(), 0, slot_bytes));
      FrameTiming& timing = timing_of(f);
      if (timer.enabled() && !slot.span_names.empty()) {
        timing.gpu_spans = timer.spans(slot.span_names, reinterpret_cast<const uint64_t*>(bytes));
        double total = 0;
        for (const GpuSpan& span : timing.gpu_spans) total += span.ms;
        timing.gpu_ms = total;
      }
      timing.culling = strategy->read_stats(bytes + stats_offset);
      wgpuBufferUnmap(slot.readback.get());
      slot.map.forget();
    }
    done[f] = Clock::now();
    FrameTiming& timing = timing_of(f);
    timing.frame_ms = ms_since(starts[f], done[f]);
    timing.interval_ms = f == 0 ? timing.frame_ms : ms_since(done[f - 1], done[f]);
    if (f > 0) report.steady_interval_ms += timing.interval_ms;
    if (options.on_frame) options.on_frame(f, options.frames);
    if (options.on_frame_done) options.on_frame_done(f, timing, slot.calls);
  };

  const Clock::time_point loop_start = Clock::now();
  for (uint32_t f = 0; f < options.frames; ++f) {
    // Frame f reuses slot f % k: frame f - k must be done on the GPU first.
    if (f >= k) complete(f - k);
    const bool last = f + 1 == options.frames;
    const Counters before = device.counters();
    const float t = options.time_s ? *options.time_s : float(f) / 60.0f;
    const Clock::time_point t0 = Clock::now();
    starts[f] = t0;

    // Math: the first frame computes every object; later frames only the moving share.
    const uint32_t changed_end = f == 0 ? n : moving;
    if (strategy->needs_cpu_transforms()) animate_objects(scene, t, transforms, changed_end, arena);
    const Clock::time_point t1 = Clock::now();

    strategies::FrameInputs in{transforms, values, 0, changed_end, f == 0, t};
    gpu::CommandEncoder encoder =
        gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
    FrameSlot& slot = slots[f % k];
    timer.begin_frame();
    strategies::FrameContext ctx{in, encoder.get(), target, timer, device.counters(), max_draws};
    // Command buffers submitted before `encoder`'s (which then holds only the readbacks): with
    // encode_threads > 1, the uploads, then one per draw range in draw order.
    std::vector<gpu::CommandBuffer> ahead;
    if (encode_arena) {
      gpu::CommandEncoder uploads =
          gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
      strategy->upload(in, uploads.get());
      ahead.push_back(
          gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(uploads.get(), nullptr)));
      std::vector<gpu::CommandBuffer> draws = strategies::encode_draw_passes_parallel(
          *strategy, device, ctx, *encode_arena, encode_threads);
      for (gpu::CommandBuffer& c : draws) ahead.push_back(std::move(c));
    } else {
      strategy->record_frame(ctx);
    }
    report.passes_per_frame = ctx.passes;
    if (slot.readback) {
      timer.resolve(encoder.get(), slot.readback.get(), 0);
      strategy->copy_stats(encoder.get(), slot.readback.get(), stats_offset);
      slot.span_names = timer.names();
    }
    if (last && readback) readback->record_copy(encoder.get());
    gpu::CommandBuffer commands =
        gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
    std::vector<WGPUCommandBuffer> cmds;
    cmds.reserve(ahead.size() + 1);
    for (const gpu::CommandBuffer& c : ahead) cmds.push_back(c.get());
    cmds.push_back(commands.get());
    // An invalid command buffer must not reach the submit (wgpu-native's wgpuQueueSubmitForIndex
    // aborts the process on a validation error instead of reporting it).
    with_context(fmt::format("recording frame {} ({} strategy)", f, options.strategy),
                 [&] { device.check(); });
    // One submit, in order: queue.submit() runs the command buffers in array order, so each
    // draw range loads what the one before stored.
    slot.submission =
        implementation::submit(device.instance(), device.queue(), cmds.size(), cmds.data());
    slot.frame = f;
    strategy->after_submit();
    if (slot.readback) slot.map.request(slot.readback.get(), slot_bytes);
    const Clock::time_point t2 = Clock::now();
    with_context(fmt::format("frame {} ({} strategy)", f, options.strategy),
                 [&] { device.check(); });

    FrameTiming& timing = timing_of(f);
    if (!keep) timing = FrameTiming{};  // the slot's last frame is complete and reported
    timing.math_ms = ms_since(t0, t1);
    timing.cpu_ms = ms_since(t1, t2);
    report.per_frame = device.counters() - before;
    slot.calls = report.per_frame;
  }
  // Drain: the last k frames.
  for (uint32_t f = options.frames > k ? options.frames - k : 0; f < options.frames; ++f)
    complete(f);
  const Clock::time_point loop_end = Clock::now();
  report.wall_ms = ms_since(loop_start, loop_end);
  // The ring in frame order: the oldest kept frame, frames - k, sits at (frames - k) % k.
  if (!keep && options.frames > k)
    std::rotate(report.frames.begin(), report.frames.begin() + options.frames % k,
                report.frames.end());

  if (readback) report.last_frame = readback->read();
  report.draws_per_frame = static_cast<uint32_t>(report.per_frame.draws);
  report.visible_objects = strategy->visible_objects();
  report.notes = strategy->notes();
  return report;
}

}  // namespace bindery
