// SPDX-License-Identifier: MIT
// The frame loop of `bindery render`: offscreen target, frames in flight (the CPU starts frame N
// once frame N-K is done on the GPU), per-object matrices on every core, per-pass GPU timing with
// timestamp queries read back without stalling, readback of the last frame (rows padded to the
// copy alignment, wgpu-native examples/capture).
#include "bindery/render/renderer.hpp"
#include "bindery/gpu_driven/cluster_culling.hpp"
#include "bindery/gpu_driven/cluster_raster.hpp"
#include "bindery/gpu_driven/indirect_draws.hpp"
#include "bindery/gpu_driven/material_table.hpp"

#include "bindery/headless/offscreen.hpp"

#include "render/frame/parallel_encode.hpp"
#include "render/strategies/strategy.hpp"

#include <fmt/format.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include "internal/implementation.hpp"

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
  double reach = std::max({std::abs(double(scene.view.eye.x)), std::abs(double(scene.view.eye.y)),
                           std::abs(double(scene.view.eye.z))});
  for (size_t i = 0; i < scene.objects.size(); ++i) {
    const Object& obj = scene.objects[i];
    if (obj.mesh >= scene.meshes.size() || obj.material >= scene.materials.size())
      throw Error(ErrorKind::SceneInput,
                  fmt::format("scene: object {} names mesh {} of {} and material {} of {}", i,
                              obj.mesh, scene.meshes.size(), obj.material, scene.materials.size()));
    // How far its bounds can reach: the translation plus the largest column norm times the
    // farthest bound (an animated object's placement is its start: the article's cubes stay
    // within a few hundred units).
    const Mesh& m = scene.meshes[obj.mesh];
    const glm::dmat4 w(obj.placement);
    const double scale = std::max({glm::length(glm::dvec3(w[0])), glm::length(glm::dvec3(w[1])),
                                   glm::length(glm::dvec3(w[2]))});
    const double extent = glm::length(
        glm::max(glm::abs(glm::dvec3(m.bounds_min)), glm::abs(glm::dvec3(m.bounds_max))));
    reach = std::max(reach, std::max({std::abs(w[3].x), std::abs(w[3].y), std::abs(w[3].z)}) +
                                scale * extent);
  }
  if (!(reach <= kMaxWorldCoordinate))
    throw Error(ErrorKind::SceneInput,
                fmt::format("scene: its objects' bounds and the eye reach {:g} world units from "
                            "the origin; bindery draws within +-{:g}, where float32's squared "
                            "distances (lighting, culling, level of detail) do not overflow",
                            reach, kMaxWorldCoordinate));
}

// RenderOptions::debug_colors as the draw frame's debugColors (0 shaded, 1 clusters, 2 levels);
// throws InvalidArgument naming `field` for another value.
uint32_t debug_colors_code(const std::string& value, std::string_view field) {
  if (value == "normal") return 0;
  if (value == "clusters") return 1;
  if (value == "levels") return 2;
  throw Error(ErrorKind::InvalidArgument,
              fmt::format("{} = \"{}\"; valid: normal, clusters, levels", field,
                          escape_for_message(value)));
}

// Errors name the RenderOptions field and its value (the CLI maps fields to its flags:
// apps/bindery/options.hpp). One kind per kind of mistake: a size the device cannot make is
// TextureSizeOutOfRange, any other value outside its range InvalidArgument.
void validate_options(const Device& device, const Scene& scene, const RenderOptions& o) {
  if (!o.draw_path.empty() && !gpu_driven::parse_draw_path(o.draw_path))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::draw_path = \"{}\"; valid: multi-draw-indirect-count, "
                            "multi-draw-indirect, bundle, loop (or empty: the best the device offers)",
                            escape_for_message(o.draw_path)));
  if (o.clusters != "auto" && o.clusters != "on" && o.clusters != "off")
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::clusters = \"{}\"; valid: auto, on, off",
                            escape_for_message(o.clusters)));
  if (o.vertex_order != "optimized" && o.vertex_order != "source")
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::vertex_order = \"{}\"; valid: optimized, source",
                            escape_for_message(o.vertex_order)));
  if (o.rasterizer != "auto" && o.rasterizer != "hardware" && o.rasterizer != "compute")
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::rasterizer = \"{}\"; valid: auto, hardware, compute",
                            escape_for_message(o.rasterizer)));
  if (!o.raster_rung.empty() && !gpu_driven::parse_raster_rung(o.raster_rung))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::raster_rung = \"{}\"; valid: int64-atomic-max, core "
                            "(or empty: the best the device runs)",
                            escape_for_message(o.raster_rung)));
  if (!(o.lod_error_px >= 0.0f && o.lod_error_px <= kMaxLodErrorPx))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::lod_error_px = {} is outside 0..{} pixels",
                            o.lod_error_px, kMaxLodErrorPx));
  debug_colors_code(o.debug_colors, "RenderOptions::debug_colors");
  if (!o.material_backend.empty() && !gpu_driven::parse_material_backend(o.material_backend))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::material_backend = \"{}\"; valid: texture-arrays, "
                            "binding-array (or empty: texture-arrays)",
                            escape_for_message(o.material_backend)));
  const uint32_t max_dim = device.limits().maxTextureDimension2D;
  if (o.width == 0 || o.height == 0 || o.width > max_dim || o.height > max_dim)
    throw Error(ErrorKind::TextureSizeOutOfRange,
                fmt::format("RenderOptions::width x height = {}x{}, valid 1..{} each "
                            "(maxTextureDimension2D)",
                            o.width, o.height, max_dim));
  if (o.frames == 0)
    throw Error(ErrorKind::InvalidArgument, "RenderOptions::frames = 0, valid 1 or more");
  if (o.time_s && !(std::abs(*o.time_s) <= kMaxAnimationTime))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::time_s = {}, valid -{:g}..{:g} (seconds; 32-bit "
                            "angles beyond)",
                            *o.time_s, double(kMaxAnimationTime), double(kMaxAnimationTime)));
  if (!(o.moving >= 0.0 && o.moving <= 1.0))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::moving = {}, valid 0..1", o.moving));
  if (o.frames_in_flight < 1 || o.frames_in_flight > kMaxFramesInFlight)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::frames_in_flight = {}, valid 1..{}",
                            o.frames_in_flight, kMaxFramesInFlight));
  if (o.threads > kMaxMatrixThreads)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::threads = {}, valid 0..{} (0 = every core)", o.threads,
                            kMaxMatrixThreads));
  const strategies::StrategyRow& row = strategies::find_strategy_row(o.strategy);
  check_encode_threads(o.strategy, o.encode_threads, "render");
  if (o.encode_threads > 1 && !implementation::multithreaded_encoding(device.get()))
    throw Error(ErrorKind::ImplementationLimit,
                fmt::format("render: RenderOptions::encode_threads = {} needs command encoders "
                            "recorded on several threads at once, which this {} device does not "
                            "allow (Dawn: the adapter does not offer "
                            "ImplicitDeviceSynchronization); valid 1",
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
                fmt::format("{}: RenderOptions::encode_threads = {}, valid 1..{} (one command "
                            "encoder and render pass per thread; more threads than any host's "
                            "cores gain nothing)",
                            command, encode_threads, kMaxEncodeThreads));
  if (encode_threads > 1 && !row.parallel_encode)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: RenderOptions::encode_threads = {} does not apply to strategy "
                            "{}, which does not encode its draws through the shared per-draw "
                            "path (render bundles, or passes it records itself); valid 1",
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
// enough that scheduling costs nothing next to the maths. With a `sink` (a strategy that takes
// transforms from threads), each thread hands the block it just computed to
// Strategy::write_transforms (the object table's writers, issue 30) while it is in cache.
void animate_objects(const Scene& scene, float t, std::vector<ObjectTransform>& out, uint32_t end,
                     tbb::task_arena& arena, strategies::Strategy* sink, bool first_frame) {
  out.resize(scene.objects.size());
  const std::span<ObjectTransform> all(out);
  const auto block = [&](uint32_t begin, uint32_t stop) {
    scene.animate_range(t, all, begin, stop);
    if (sink) sink->write_transforms(all, begin, stop, first_frame);
  };
  if (arena.max_concurrency() <= 1 || end < 4096) {
    block(0, end);
    return;
  }
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, end, 2048),
                      [&](const tbb::blocked_range<uint32_t>& r) { block(r.begin(), r.end()); });
  });
}

}  // namespace

double RenderReport::throughput_fps() const {
  // A run of at most frames_in_flight frames never waits for a frame before the end: every
  // completion is seen in the final drain, moments apart, so the intervals say nothing. Its
  // frames over the loop's wall time instead.
  if (frames_rendered >= 1 && frames_rendered <= frames_in_flight && wall_ms > 0)
    return double(frames_rendered) * 1000.0 / wall_ms;
  // Frames after the first (which creates and uploads everything): their completion intervals
  // add up to the wall time of the steady state.
  if (frames_rendered >= 2 && steady_interval_ms > 0)
    return double(frames_rendered - 1) * 1000.0 / steady_interval_ms;
  double ms = 0;
  for (size_t i = 1; i < frames.size(); ++i) ms += frames[i].interval_ms;
  if (frames.size() < 2 || ms <= 0) return frames.empty() ? 0 : 1000.0 / frames[0].frame_ms;
  return double(frames.size() - 1) * 1000.0 / ms;
}

namespace {

// One render() run, stage by stage: the constructor builds the target, the strategy, the frame
// slots and the report's fixed fields; record_frame() and complete_frame() are the frame loop's
// two halves; finish() fills the rest of the report.
class RenderRun {
 public:
  RenderRun(const Device& device, const Scene& scene, const RenderOptions& options)
      : device_(device),
        scene_(scene),
        o_(options),
        row_(strategies::find_strategy_row(options.strategy)),
        start_(device.counters()),
        // Colour (copied out for the last frame) and depth (also sampled by depth-pyramid
        // builders).
        offscreen_(device, {.width = options.width,
                            .height = options.height,
                            .color_format = strategies::kColorFormat,
                            .depth_format = strategies::kDepthFormat,
                            .extra_color_usage = options.extra_color_usage,
                            .extra_depth_usage = WGPUTextureUsage_TextureBinding,
                            .label = "render target"}),
        k_(options.frames_in_flight),
        keep_(options.keep_frame_timings),
        arena_(options.threads == 0 ? tbb::task_arena::automatic
                                    : static_cast<int>(options.threads)) {
    build_target();
    build_strategy();
    build_slots();
    init_report();
    build_threads_and_inputs();
  }

  uint32_t frames_in_flight() const { return k_; }
  /// Frames this run renders (RenderOptions::frames, fewer once after_submit ended it).
  uint32_t frames() const { return frames_; }
  void record_frame(uint32_t f);
  void complete_frame(uint32_t f);
  RenderReport finish(Clock::time_point loop_start);

 private:
  void build_target();
  void build_strategy();
  void build_slots();
  void init_report();
  void build_threads_and_inputs();
  void read_slot(uint32_t f, FrameSlot& slot);
  void encode_frame(strategies::FrameContext& ctx, std::vector<gpu::CommandBuffer>& ahead);
  FrameTiming& timing_of(uint32_t f) { return report_.frames[keep_ ? f : f % k_]; }

  const Device& device_;
  const Scene& scene_;
  const RenderOptions& o_;
  bool use_clusters() const;
  bool clusters_ = false;  // the run takes the cluster path
  const strategies::StrategyRow& row_;
  const Counters start_;
  const OffscreenTarget offscreen_;
  strategies::FrameTarget target_;
  std::optional<TextureReadback> readback_;  // the last frame's
  strategies::GpuScene gpu_scene_;
  std::unique_ptr<strategies::Strategy> strategy_;
  std::optional<GpuTimer> timer_;
  // One readback slot per frame in flight: GPU spans, then the strategy's statistics.
  const uint32_t k_;
  uint64_t stats_offset_ = 0;
  uint64_t slot_bytes_ = 0;
  std::vector<FrameSlot> slots_;
  RenderReport report_;
  // Every frame's timing, or a ring of one per frame in flight (frame f at f % k: frame f - k
  // is complete, its timing handed to on_frame_done, before frame f is recorded).
  const bool keep_;
  uint32_t max_draws_ = 0;
  tbb::task_arena arena_;
  std::optional<tbb::task_arena> encode_arena_;
  strategies::FrameValues values_{};
  std::vector<ObjectTransform> transforms_;
  uint32_t n_ = 0;
  uint32_t moving_ = 0;
  uint32_t changing_end_ = 0;  // one past the last animated or Scene::moving object
  float aspect_ = 1.0f;
  // Frames this run renders: options.frames, fewer when after_submit ends it early.
  uint32_t frames_ = 0;
  // Start and done times of the frames not yet complete and of the last one complete: a ring of
  // k + 1 (frame f at f % (k + 1)), so a long run (after_submit ending it) holds no per-frame
  // state.
  std::vector<Clock::time_point> starts_, done_;
  Clock::time_point& starts(uint32_t f) { return starts_[f % (k_ + 1)]; }
  Clock::time_point& done(uint32_t f) { return done_[f % (k_ + 1)]; }
};

void RenderRun::build_target() {
  target_.color = offscreen_.color_view();
  target_.depth = offscreen_.depth_view();
  target_.depth_texture = offscreen_.depth();
  target_.width = o_.width;
  target_.height = o_.height;
  target_.clear_color = scene_.view.clear_color;
  // Readback of the last frame.
  if (o_.keep_last_frame) readback_.emplace(device_, offscreen_.color());
}

// Whether gpu-driven draws through clusters (RenderOptions::clusters; "auto": where it wins).
bool RenderRun::use_clusters() const {
  if (o_.clusters == "off" || o_.strategy != "gpu-driven") return false;
  // The cluster path pulls vertices from the mesh pool bound as storage: its buffers must fit
  // one storage binding.
  uint64_t vertex_bytes = 0, index_bytes = 0;
  for (const Mesh& m : scene_.meshes) {
    vertex_bytes += m.vertices.size() * sizeof(Vertex);
    index_bytes += m.indices.size() * 4;
  }
  const uint64_t binding = device_.limits().maxStorageBufferBindingSize;
  const bool fits = std::max(vertex_bytes, index_bytes) <= binding;
  if (o_.clusters == "on") {
    if (!fits)
      throw Error(ErrorKind::StrategyUnavailable,
                  fmt::format("gpu-driven with clusters pulls its vertices from one storage "
                              "binding: the scene's meshes hold {} bytes of vertices and {} of "
                              "indices, maxStorageBufferBindingSize is {}; use --clusters off",
                              vertex_bytes, index_bytes, binding));
    return true;
  }
  if (!fits || gpu_driven::cluster_culling_unavailable(device_)) return false;
  uint64_t triangles = 0;
  for (const Object& o : scene_.objects) triangles += scene_.meshes[o.mesh].indices.size() / 3;
  return triangles >= kClusterAutoTriangles &&
         triangles >= 4ull * uint64_t(o_.width) * uint64_t(o_.height);
}

void RenderRun::build_strategy() {
  const bool clusters = use_clusters();
  if (!clusters && o_.debug_colors != "normal")
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("RenderOptions::debug_colors = {} colours the cluster path's "
                            "clusters; this run draws per object: {}",
                            o_.debug_colors,
                            o_.strategy != "gpu-driven"
                                ? fmt::format("RenderOptions::strategy = {} (the cluster path is "
                                              "gpu-driven's)",
                                              o_.strategy)
                            : o_.clusters == "off"
                                ? std::string("RenderOptions::clusters = off")
                                : fmt::format("RenderOptions::clusters = auto chose the "
                                              "per-object path for this scene (below {} "
                                              "full-detail triangles or 4 per pixel; "
                                              "RenderOptions::clusters = on takes the cluster "
                                              "path)",
                                              kClusterAutoTriangles)));
  clusters_ = clusters;
  gpu_scene_ = strategies::upload_scene(
      device_, scene_,
      {.storage_vertices = clusters,
       .textures = !row_.own_textures,
       .optimize_vertex_cache = o_.vertex_order == "optimized"});
  // What the pool did (the strategies all draw from its index buffer).
  report_.vertex_order = gpu_scene_.pool->optimizes_vertex_cache() ? "optimized" : "source";
  strategies::StrategyOptions so;
  so.occlusion = o_.occlusion;
  so.draw_path = o_.draw_path;
  so.material_backend = o_.material_backend;
  so.clusters = clusters;
  so.lod_error_px = o_.lod_error_px;
  so.rasterizer = o_.rasterizer;
  so.raster_rung = o_.raster_rung;
  so.fov_y_degrees = scene_.view.fov_y_degrees;
  so.z_near = scene_.view.near_plane;
  so.width = o_.width;
  so.height = o_.height;
  so.depth_texture = target_.depth_texture;
  strategy_ = row_.make(device_, scene_, gpu_scene_, so);
  timer_.emplace(device_, o_.gpu_timing);
}

void RenderRun::build_slots() {
  stats_offset_ = timer_->enabled() ? timer_->bytes() : 0;
  slot_bytes_ = stats_offset_ + strategy_->stats_bytes();
  slots_ = std::vector<FrameSlot>(k_);  // FrameSlot is not movable: no resize()
  if (slot_bytes_ > 0)
    for (FrameSlot& slot : slots_)
      slot.readback = device_.create_buffer("frame statistics", slot_bytes_,
                                            WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
}

void RenderRun::init_report() {
  report_.scene = scene_.name;
  report_.strategy = o_.strategy;
  report_.objects = static_cast<uint32_t>(scene_.objects.size());
  report_.materials = static_cast<uint32_t>(scene_.materials.size());
  report_.meshes = static_cast<uint32_t>(scene_.meshes.size());
  report_.textures = static_cast<uint32_t>(scene_.textures.size());
  report_.width = o_.width;
  report_.height = o_.height;
  report_.frames_in_flight = k_;
  report_.object_stride_bytes = strategy_->object_stride();
  report_.init = device_.counters() - start_;
  report_.frames.resize(keep_ ? o_.frames : std::min(o_.frames, k_));
  report_.frames_rendered = o_.frames;
  max_draws_ = o_.max_draws_per_pass ? o_.max_draws_per_pass
                                     : default_max_draws_per_pass(device_.adapter());
}

void RenderRun::build_threads_and_inputs() {
  report_.threads = static_cast<uint32_t>(arena_.max_concurrency());
  // The draw-encoding tasks run in their own arena (oneTBB), apart from the matrices' arena, so
  // --threads and --encode-threads are set independently. It has at most as many slots as the
  // machine has cores (oneTBB's default concurrency; asking for more only gets a warning): the
  // draws still go into encode_threads ranges, the cores take them in turn.
  if (o_.encode_threads > 1)
    encode_arena_.emplace(strategies::encode_arena_slots(o_.encode_threads));
  report_.encode_threads = o_.encode_threads;
  aspect_ = float(o_.width) / float(o_.height);
  values_ = strategies::FrameValues{scene_.view.view_projection(aspect_),
                                    scene_.view.light_world_position, scene_.view.eye};
  n_ = static_cast<uint32_t>(scene_.objects.size());
  // ceil(moving * n), with a tolerance so that a decimal share such as 0.0015 of 2000 (not exact
  // in binary floating point) gives 3, not 4.
  moving_ = std::min(n_, static_cast<uint32_t>(std::ceil(o_.moving * n_ - 1e-6)));
  report_.moving_objects = static_cast<uint32_t>(std::count_if(
      scene_.moving.begin(), scene_.moving.end(), [&](uint32_t i) { return i < moving_; }));
  // One past the last object whose matrix can change after the first frame (animated, or in
  // Scene::moving): a static glTF scene's 0, so that its frames compute no matrix at all.
  for (uint32_t i = 0; i < n_; ++i)
    if (scene_.objects[i].animated) changing_end_ = i + 1;
  for (uint32_t i : scene_.moving) changing_end_ = std::max(changing_end_, std::min(i + 1, n_));
  frames_ = o_.frames;
  starts_.resize(k_ + 1);
  done_.resize(k_ + 1);
}

// Reads frame `f`'s GPU spans and statistics from its slot once the map is done.
void RenderRun::read_slot(uint32_t f, FrameSlot& slot) {
  for (int i = 0; i < 100000 && !slot.map.done(); ++i) {
    wgpuInstanceProcessEvents(device_.instance());
    if (!slot.map.done()) device_.poll(true);
  }
  device_.check();
  if (!slot.map.succeeded())
    throw Error(ErrorKind::WebGPUValidation,
                fmt::format("frame {}: mapping its statistics failed", f));
  const auto* bytes = static_cast<const std::byte*>(
      wgpuBufferGetConstMappedRange(slot.readback.get(), 0, slot_bytes_));
  FrameTiming& timing = timing_of(f);
  if (timer_->enabled() && !slot.span_names.empty()) {
    timing.gpu_spans = timer_->spans(slot.span_names, reinterpret_cast<const uint64_t*>(bytes));
    double total = 0;
    for (const GpuSpan& span : timing.gpu_spans) total += span.ms;
    timing.gpu_ms = total;
  }
  timing.culling = strategy_->read_stats(bytes + stats_offset_);
  wgpuBufferUnmap(slot.readback.get());
  slot.map.forget();
}

// Waits until frame `f` is done on the GPU, then reads its spans and statistics.
void RenderRun::complete_frame(uint32_t f) {
  FrameSlot& slot = slots_[f % k_];
  implementation::wait(device_.instance(), device_.get(), device_.queue(), slot.submission);
  if (slot.map.requested()) read_slot(f, slot);
  done(f) = Clock::now();
  FrameTiming& timing = timing_of(f);
  timing.frame_ms = ms_since(starts(f), done(f));
  timing.interval_ms = f == 0 ? timing.frame_ms : ms_since(done(f - 1), done(f));
  if (f > 0) report_.steady_interval_ms += timing.interval_ms;
  if (o_.on_frame) o_.on_frame(f, frames_);
  if (o_.on_frame_done) o_.on_frame_done(f, timing, slot.calls);
}

// The frame's uploads and draws: into ctx.encoder, or with encode_threads > 1 into command
// buffers submitted before it (`ahead`: the uploads, then one per draw range in draw order).
void RenderRun::encode_frame(strategies::FrameContext& ctx,
                             std::vector<gpu::CommandBuffer>& ahead) {
  if (!encode_arena_) {
    strategy_->record_frame(ctx);
    return;
  }
  gpu::CommandEncoder uploads =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device_.get(), nullptr));
  strategy_->upload(ctx.in, uploads.get());
  ahead.push_back(gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(uploads.get(), nullptr)));
  std::vector<gpu::CommandBuffer> draws = strategies::encode_draw_passes_parallel(
      *strategy_, device_, ctx, *encode_arena_, o_.encode_threads);
  for (gpu::CommandBuffer& c : draws) ahead.push_back(std::move(c));
}

void RenderRun::record_frame(uint32_t f) {
  const bool last = f + 1 == frames_;
  const Counters before = device_.counters();
  const float t = o_.frame_time ? o_.frame_time(f)
                  : o_.time_s   ? *o_.time_s
                                : float(f) / 60.0f;
  const Clock::time_point t0 = Clock::now();
  starts(f) = t0;

  // Math: the first frame computes every object; later frames only the moving share of the
  // objects that can change.
  const uint32_t changed_end = f == 0 ? n_ : std::min(moving_, changing_end_);
  const bool threads_write = strategy_->needs_cpu_transforms() &&
                             strategy_->takes_transforms_from_threads();
  if (strategy_->needs_cpu_transforms())
    animate_objects(scene_, t, transforms_, changed_end, arena_,
                    threads_write ? strategy_.get() : nullptr, f == 0);
  const Clock::time_point t1 = Clock::now();

  if (o_.camera) {
    View view = scene_.view;
    o_.camera(f, view);
    values_ = {view.view_projection(aspect_), view.light_world_position, view.eye};
  }
  strategies::FrameInputs in{transforms_, values_, 0, changed_end, f == 0, t, threads_write};
  in.lod_error_px = o_.lod_error_px;
  in.debug_colors = debug_colors_code(o_.debug_colors, "RenderOptions::debug_colors");
  if (clusters_ && o_.cluster_tuning) {
    ClusterTuning tuning{o_.lod_error_px, o_.debug_colors};
    o_.cluster_tuning(f, tuning);
    if (!(tuning.lod_error_px >= 0.0f && tuning.lod_error_px <= kMaxLodErrorPx))
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("RenderOptions::cluster_tuning: frame {}'s lod_error_px {} is "
                              "outside 0..{} pixels",
                              f, tuning.lod_error_px, kMaxLodErrorPx));
    in.lod_error_px = tuning.lod_error_px;
    in.debug_colors =
        debug_colors_code(tuning.debug_colors, "RenderOptions::cluster_tuning's debug_colors");
  }
  gpu::CommandEncoder encoder =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device_.get(), nullptr));
  FrameSlot& slot = slots_[f % k_];
  timer_->begin_frame();
  strategies::FrameContext ctx{in, encoder.get(), target_, *timer_, device_.counters(),
                               max_draws_};
  // Command buffers submitted before `encoder`'s (which then holds only the readbacks).
  std::vector<gpu::CommandBuffer> ahead;
  encode_frame(ctx, ahead);
  report_.passes_per_frame = ctx.passes;
  if (slot.readback) {
    timer_->resolve(encoder.get(), slot.readback.get(), 0);
    strategy_->copy_stats(encoder.get(), slot.readback.get(), stats_offset_);
    slot.span_names = timer_->names();
  }
  if (last && readback_) readback_->record_copy(encoder.get());
  gpu::CommandBuffer commands =
      gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  std::vector<WGPUCommandBuffer> cmds;
  cmds.reserve(ahead.size() + 1);
  for (const gpu::CommandBuffer& c : ahead) cmds.push_back(c.get());
  cmds.push_back(commands.get());
  // An invalid command buffer must not reach the submit (wgpu-native's wgpuQueueSubmitForIndex
  // aborts the process on a validation error instead of reporting it).
  with_context(fmt::format("recording frame {} ({} strategy)", f, o_.strategy),
               [&] { device_.check(); });
  // One submit, in order: queue.submit() runs the command buffers in array order, so each
  // draw range loads what the one before stored.
  slot.submission =
      implementation::submit(device_.instance(), device_.queue(), cmds.size(), cmds.data());
  slot.frame = f;
  strategy_->after_submit();
  if (slot.readback) slot.map.request(slot.readback.get(), slot_bytes_);
  const Clock::time_point t2 = Clock::now();
  with_context(fmt::format("frame {} ({} strategy)", f, o_.strategy), [&] { device_.check(); });

  FrameTiming& timing = timing_of(f);
  if (!keep_) timing = FrameTiming{};  // the slot's last frame is complete and reported
  timing.math_ms = ms_since(t0, t1);
  timing.cpu_ms = ms_since(t1, t2);
  report_.per_frame = device_.counters() - before;
  slot.calls = report_.per_frame;
  // Outside the frame's timing and counters: what the caller does with the finished frame.
  if (o_.after_submit && !o_.after_submit(f, offscreen_.color()) && f + 1 < frames_)
    frames_ = f + 1;  // the caller ends the run here
}

RenderReport RenderRun::finish(Clock::time_point loop_start) {
  const Clock::time_point loop_end = Clock::now();
  report_.wall_ms = ms_since(loop_start, loop_end);
  // The ring in frame order: the oldest kept frame, frames - k, sits at (frames - k) % k.
  report_.frames_rendered = frames_;
  if (keep_ || frames_ < k_) report_.frames.resize(std::min<size_t>(report_.frames.size(), frames_));
  if (!keep_ && frames_ > k_)
    std::rotate(report_.frames.begin(), report_.frames.begin() + frames_ % k_,
                report_.frames.end());
  // An early end (after_submit) recorded no copy of its last frame.
  if (readback_ && frames_ == o_.frames) report_.last_frame = readback_->read();
  report_.draws_per_frame = static_cast<uint32_t>(report_.per_frame.draws);
  if (!report_.frames.empty() && report_.frames.back().culling)
    report_.visible_objects = report_.frames.back().culling->drawn;
  report_.notes = strategy_->notes();
  report_.cpu_ns_per_moved_object = strategy_->cpu_ns_per_moved_object();
  return std::move(report_);
}

}  // namespace

RenderReport render(const Device& device, const Scene& scene, const RenderOptions& options) {
  const CallScope scope(device);
  validate_options(device, scene, options);
  RenderRun run(device, scene, options);
  const uint32_t k = run.frames_in_flight();
  const Clock::time_point loop_start = Clock::now();
  for (uint32_t f = 0; f < run.frames(); ++f) {
    // Frame f reuses slot f % k: frame f - k must be done on the GPU first.
    if (f >= k) run.complete_frame(f - k);
    run.record_frame(f);
  }
  // Drain: the last k frames (of those rendered: after_submit may end the run early).
  const uint32_t frames = run.frames();
  for (uint32_t f = frames > k ? frames - k : 0; f < frames; ++f) run.complete_frame(f);
  return run.finish(loop_start);
}

}  // namespace bindery
