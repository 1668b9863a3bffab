// SPDX-License-Identifier: MIT
/// @file
/// bindery/render/renderer.hpp — the headless renderer behind `bindery render`: draws a Scene with
/// one per-draw-data strategy into an offscreen target, times every frame and reports counters.
///
/// Frame timing (the optimization article's measurements): math_ms = computing world/normal matrices on the CPU
/// (on every core by default); cpu_ms = uploads + command encoding + submit; gpu_ms = the frame's
/// passes between timestamp queries, per pass in gpu_spans (nullopt where the adapter lacks
/// "timestamp-query"); frame_ms = latency from the frame's first CPU work to its GPU work done;
/// interval_ms = the time between the last frame's completion and this one's. With
/// frames_in_flight = K the CPU starts frame N once frame N-K is done on the GPU (the optimization article's
/// "double buffering"), so CPU and GPU work in parallel; K = 1 is the serial loop. A size of 1x1
/// is the article's "render off" mode.
#pragma once

#include "bindery/core/counters.hpp"
#include "bindery/core/device.hpp"
#include "bindery/core/limits.hpp"
#include "bindery/headless/gpu_timer.hpp"
#include "bindery/headless/image.hpp"
#include "bindery/render/scene.hpp"
#include "bindery/render/strategy_info.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bindery {

/// Every strategy, in the order the CLI lists them.
std::span<const StrategyInfo> strategy_catalog();
/// The catalogue row named `name`; throws InvalidArgument listing the valid names.
const StrategyInfo& find_strategy(std::string_view name);
/// Why `strategy` cannot run on `device` for `scene` (a missing feature or limit), or nullopt
/// when it can. Throws InvalidArgument for an unknown name.
std::optional<std::string> strategy_unavailable(const Device& device, const Scene& scene,
                                                std::string_view strategy);

/// Whether RenderOptions::encode_threads > 1 applies to `strategy`: true for the strategies that
/// encode every draw on the CPU each frame through one shared record path (naive, split-uniforms,
/// buffer-offsets, buffer-offsets-mapped, dynamic-offsets, mapped-staging, storage-instancing,
/// immediates); false for render-bundles and bundles-gpu (bundles recorded inside the pass) and
/// gpu-culling and gpu-driven (their own cull and render passes). Throws InvalidArgument for an
/// unknown name.
bool strategy_encodes_in_parallel(std::string_view strategy);

// bindery's own caps (kMaxEncodeThreads, kMaxFramesInFlight, ...) are in core/limits.hpp.

/// Checks an --encode-threads value for `strategy` without a device (what render() checks
/// first): throws InvalidArgument, the message starting with `command`, when `encode_threads` is
/// outside 1..kMaxEncodeThreads or above 1 for a strategy strategy_encodes_in_parallel() says no
/// to, or the strategy is unknown.
void check_encode_threads(std::string_view strategy, int64_t encode_threads,
                          std::string_view command);

struct FrameTiming;

/// The legend of RenderOptions::debug_colors "levels": level l of a cluster hierarchy is drawn in
/// RGB kDebugLevelColors[min(l, 15)] (level 0 = full detail; 15 stands for 15 and up). The same
/// table is shaders/gpu_driven_draw.wgsl's kLevelColors.
inline constexpr std::array<std::array<uint8_t, 3>, 16> kDebugLevelColors = {{{230, 25, 75},
                                                                              {60, 180, 75},
                                                                              {255, 225, 25},
                                                                              {0, 130, 200},
                                                                              {245, 130, 48},
                                                                              {145, 30, 180},
                                                                              {70, 240, 240},
                                                                              {240, 50, 230},
                                                                              {210, 245, 60},
                                                                              {250, 190, 212},
                                                                              {0, 128, 128},
                                                                              {220, 190, 255},
                                                                              {170, 110, 40},
                                                                              {128, 0, 0},
                                                                              {0, 0, 128},
                                                                              {255, 255, 255}}};

/// What RenderOptions::cluster_tuning may change from one frame to the next.
struct ClusterTuning {
  float lod_error_px = 1.0f;           ///< as RenderOptions::lod_error_px
  std::string debug_colors = "normal";  ///< as RenderOptions::debug_colors
};

/// Options of one render run.
struct RenderOptions {
  std::string strategy = "dynamic-offsets";  ///< a strategy_catalog() name
  /// Target size in pixels, each 1..maxTextureDimension2D (render() throws TextureSizeOutOfRange
  /// otherwise); 1x1 is the optimization article's "render off".
  ///@{
  uint32_t width = 640, height = 480;  ///< target size in pixels, each 1..maxTextureDimension2D
  ///@}
  uint32_t frames = 60;                ///< frames to render (>= 1)
  /// Freezes the animation at this time (seconds, |time_s| <= kMaxAnimationTime).
  std::optional<float> time_s;
  double moving = 1.0;                 ///< share of objects that move each frame, 0..1
  bool keep_last_frame = true;         ///< read the last frame back into RenderReport::last_frame
  /// Most draws encoded into one render pass; a frame with more is split into several passes
  /// (the first clears, the rest load). 0 = default_max_draws_per_pass(the device's adapter).
  uint32_t max_draws_per_pass = 0;
  /// Frames the CPU may run ahead of the GPU (1 = serial: each frame waits for the last; 2 =
  /// frame N+1 is computed and encoded while the GPU runs frame N). 1..kMaxFramesInFlight (8).
  uint32_t frames_in_flight = 2;
  /// Occlusion culling with a depth pyramid (two-phase; strategies that cull on the GPU only).
  bool occlusion = true;
  /// The GPU-driven strategies' draw path (bindery/gpu_driven/indirect_draws.hpp):
  /// "multi-draw-indirect-count", "multi-draw-indirect", "bundle" or "loop"; empty: the best
  /// the device offers. A path the device lacks throws StrategyUnavailable; another name,
  /// InvalidArgument.
  std::string draw_path;
  /// The GPU-driven strategies' material backend (bindery/gpu_driven/material_table.hpp):
  /// "texture-arrays" or "binding-array"; empty: texture-arrays. A backend the device lacks throws
  /// StrategyUnavailable (one line: why); another name, InvalidArgument.
  std::string material_backend;
  /// Whether gpu-driven draws through cluster hierarchies with continuous level of detail
  /// (bindery/gpu_driven/cluster_culling.hpp): every mesh built into a hierarchy at start-up, the
  /// cut of each visible object selected on the GPU, one indexed draw per phase. "on" (a device
  /// without the storage bindings it needs throws StrategyUnavailable), "off", or "auto": on where
  /// it wins, when the device can and the scene's objects hold at full detail at least
  /// kClusterAutoTriangles triangles and 4 per pixel of the target (the per-object path's cost
  /// follows the triangles, the cluster path's the pixels). Other values: InvalidArgument.
  std::string clusters = "auto";
  /// The cut's pixel error with clusters: 0 = full detail, at most kMaxLodErrorPx.
  float lod_error_px = 1.0f;
  /// The cluster path's debug colouring, on both rasterizers (the hardware cluster draw and the
  /// compute rasterizer's resolve), unlit so that a pixel's colour names what drew it: "normal"
  /// (shaded), "clusters" (each cluster of each object a colour hashed from the two, every
  /// channel in 96..255) or "levels" (each cluster the colour of its hierarchy level,
  /// kDebugLevelColors). Alpha-masked materials keep their alpha test. Another value than
  /// "normal" in a run that does not take the cluster path (another strategy, clusters "off", or
  /// "auto" choosing the per-object path) throws InvalidArgument; so does an unknown value.
  std::string debug_colors = "normal";
  /// Who rasterizes the cluster path's triangles (bindery/gpu_driven/cluster_raster.hpp):
  /// "hardware" (the render pipeline alone), "compute" (every cluster small enough for the
  /// compute rasterizer: a screen bound of at most 64 pixels a side in front of the near plane,
  /// an opaque material), or "auto": compute for the clusters of at most
  /// compute_raster_auto_area_px() pixels of screen bound per triangle on this device, hardware
  /// for the rest. Other values: InvalidArgument. Only with clusters.
  std::string rasterizer = "auto";
  /// The order of each mesh's triangles in the index buffer every strategy draws from
  /// (gpu_driven::MeshPoolDesc::optimize_vertex_cache): "optimized" (the default: reordered for
  /// the GPU's post-transform vertex cache when the scene is uploaded, meshopt_optimizeVertexCache)
  /// or "source" (as the scene gives them, byte for byte). Same vertices, same triangles with the
  /// same winding, so the same image (up to depth ties between triangles at equal depth); only
  /// how often the vertex stage runs per triangle differs. The cluster path draws from its own
  /// clusters, built from the scene's indices either way. Other values: InvalidArgument.
  std::string vertex_order = "optimized";
  /// The compute rasterizer's rung: "int64-atomic-max", "core", or empty (the best the device
  /// runs). A rung the device lacks throws StrategyUnavailable; another name, InvalidArgument.
  std::string raster_rung;
  /// CPU threads for the per-object matrices (0 = every core; 1 = serial), at most
  /// kMaxMatrixThreads.
  uint32_t threads = 0;
  /// Threads that encode the frame's draws, 1..64 (issue 10 part 4). 1: one command encoder, as
  /// always. N > 1: after the uploads (on the calling thread), the draws are split into N
  /// consecutive ranges of near-equal size (fewer when there are fewer draws), each encoded into
  /// its own command encoder and render passes (the frame's first pass clears, the rest load;
  /// each range still in passes of at most max_draws_per_pass) and finished by one oneTBB task
  /// in an arena of N threads; the command buffers are submitted in draw order in one
  /// queue.submit after the join. Same image as 1 thread; the trackers start afresh in each
  /// range, so pipeline and shared bind groups are set again once per extra pass. Only for
  /// strategies that encode their draws on the CPU each frame (strategy_encodes_in_parallel());
  /// render() refuses N > 1 for the others (InvalidArgument; check_encode_threads()). At most
  /// kMaxEncodeThreads (64).
  uint32_t encode_threads = 1;
  /// Time each frame's passes on the GPU with timestamp queries where the device has them
  /// (FrameTiming::gpu_spans). false: no timestamp writes, resolve or readback per frame (the
  /// raw-floor comparison of bench.hpp, whose raw loop has none).
  bool gpu_timing = true;
  /// Keep every frame's FrameTiming in RenderReport::frames (the default). false keeps only the
  /// last frames_in_flight frames', so the report does not grow with the frame count (long runs:
  /// `bindery soak`); throughput_fps() still covers every frame.
  bool keep_frame_timings = true;
  /// Usage the colour target gets beyond RENDER_ATTACHMENT | COPY_SRC (e.g. TEXTURE_BINDING, so
  /// after_submit can sample it).
  WGPUTextureUsage extra_color_usage = WGPUTextureUsage_None;
  /// The animation time of frame `frame` in seconds; overrides time_s when set (an interactive
  /// view pauses and resumes its clock across runs this way).
  std::function<float(uint32_t frame)> frame_time;
  /// Adjusts the camera of frame `frame`: called with a copy of Scene::view, the frame is drawn
  /// with what it leaves there (an interactive orbit camera; nullptr: Scene::view every frame).
  std::function<void(uint32_t frame, View& view)> camera;
  /// Adjusts the cluster path's pixel error and debug colouring of frame `frame` (an interactive
  /// view's slider and combo): called in runs that take the cluster path only, every frame, with
  /// lod_error_px and debug_colors; the frame is drawn with what it leaves there (checked as the
  /// options are: InvalidArgument). nullptr: the options' values every frame.
  std::function<void(uint32_t frame, ClusterTuning& tuning)> cluster_tuning;
  /// Called right after frame `frame` is submitted, with the colour texture it is drawn into
  /// (complete in queue order: work the caller submits next sees it). Returning false ends the run
  /// after this frame: the frames in flight are drained and the report covers the frames rendered
  /// (`bindery view` blits the texture into a window's surface here and ends the run to switch
  /// strategy, object count or size); a run ended early has no RenderReport::last_frame).
  std::function<bool(uint32_t frame, WGPUTexture color)> after_submit;
  /// Called after each frame with (frame index, frame count), for progress output.
  std::function<void(uint32_t, uint32_t)> on_frame;
  /// Called once frame `frame` is done on the GPU, with its timing and the calls and bytes it
  /// issued, before the next frame is recorded into its slot; every transient object of the
  /// frames before it is released by then. For long-run checks (`bindery soak`, soak.hpp).
  std::function<void(uint32_t frame, const FrameTiming&, const Counters&)> on_frame_done;
};

/// RenderOptions::clusters "auto" turns clusters on from this many full-detail triangles (and 4
/// per pixel): about where, on the H200, the cluster stage's fixed cost (about 1 ms) equals what
/// the triangles it removes cost the graphics pipeline (about 1.3 ns each).
inline constexpr uint64_t kClusterAutoTriangles = 4'000'000;

// GpuSpan (one named pass of a frame, by timestamp queries) is in headless/gpu_timer.hpp.

/// Timings of one frame in milliseconds. With frames in flight the CPU of frame N+1 overlaps the
/// GPU of frame N, so frame_ms (latency) can exceed interval_ms (what throughput is made of).
struct FrameTiming {
  double math_ms = 0;      ///< per-object matrices on the CPU
  double cpu_ms = 0;       ///< uploads + encoding + submit
  double frame_ms = 0;     ///< latency: this frame's first CPU work to its GPU work done
  double interval_ms = 0;  ///< the last frame's GPU work done to this one's (throughput; frame
                           ///< 0: its latency)
  std::optional<double> gpu_ms;  ///< sum of the frame's GPU spans (nullopt: no timestamps)
  /// The frame's timed passes in the order opened; empty without "timestamp-query".
  std::vector<GpuSpan> gpu_spans;
  /// What the GPU counted in this frame (the gpu-driven strategy); nullopt for the others.
  std::optional<CullingCounts> culling;
};

/// The result of a render run.
struct RenderReport {
  /// Scene::name of the scene drawn.
  std::string scene;
  /// RenderOptions::strategy as run.
  std::string strategy;
  /// Scene objects; draws of the last frame (per_frame.draws: an indirect or multi-draw indirect
  /// call counts one, a replayed render bundle its draws); target size in pixels.
  ///@{
  uint32_t objects = 0, draws_per_frame = 0, width = 0, height = 0;
  ///@}
  uint32_t frames_in_flight = 1;  ///< as run
  uint32_t threads = 1;           ///< CPU threads used for per-object matrices
  uint32_t encode_threads = 1;    ///< RenderOptions::encode_threads as run
  /// RenderOptions::vertex_order as run: the order of the mesh pool's triangles
  /// (gpu_driven::MeshPool::optimizes_vertex_cache()), "optimized" or "source".
  std::string vertex_order = "optimized";
  double wall_ms = 0;             ///< the whole frame loop, first frame start to last GPU done
  /// Path-specific facts for the JSON report (e.g. {"indirect", "multiDrawIndexedIndirectCount"}).
  std::vector<std::pair<std::string, std::string>> notes;
  /// Scene materials.
  uint32_t materials = 0;
  /// Scene meshes and textures (unique: each uploaded once).
  ///@{
  uint32_t meshes = 0, textures = 0;
  ///@}
  /// Objects of Scene::moving the run recomputes and uploads every frame after the first (those
  /// within RenderOptions::moving's share): every cube at moving 1, a glTF scene's 0, the city's
  /// cars when moving = Scene::moving_share().
  uint32_t moving_objects = 0;
  /// CPU nanoseconds per object the application moved through the object table
  /// (ObjectTable::set_transform + its share of flush), over the frames after the first; the
  /// matrix threads call set_transform (issue 30), so it is their CPU time summed over the
  /// threads plus the flush; for the
  /// strategies that keep objects in an ObjectTable and move them from the CPU (gpu-driven and
  /// gpu-culling on a scene the GPU does not animate); nullopt otherwise or when nothing moved.
  std::optional<double> cpu_ns_per_moved_object;
  uint64_t object_stride_bytes = 0;  ///< per-object data stride in the GPU buffer (0 if n/a)
  uint32_t passes_per_frame = 1;     ///< render passes per frame (see max_draws_per_pass)
  /// Objects the GPU found visible and drew in the last frame (strategies that cull on the GPU:
  /// CullingCounts::drawn of the last frame's FrameTiming::culling; nullopt for the others).
  std::optional<uint32_t> visible_objects;
  /// Frames per second of wall time over the frames after the first (which uploads everything):
  /// from frames_rendered and steady_interval_ms, or from `frames` where those are 0. A run of
  /// at most frames_in_flight frames sees every completion only at its end: frames_rendered
  /// over wall_ms.
  double throughput_fps() const;
  Counters init;       ///< creation: buffers, bind groups, initial uploads
  Counters per_frame;  ///< the last frame's calls and bytes
  /// One timing per frame rendered (RenderOptions::frames), in frame order; with
  /// RenderOptions::keep_frame_timings false only the last frames_in_flight frames', in order.
  std::vector<FrameTiming> frames;
  uint32_t frames_rendered = 0;     ///< frames the run rendered (RenderOptions::frames)
  double steady_interval_ms = 0;    ///< sum of interval_ms over the frames after the first
  /// The last frame's colour target, read back (width x height RGBA8), when
  /// RenderOptions::keep_last_frame; nullopt otherwise.
  std::optional<Image> last_frame;
};

/// The draws per render pass bindery allows on `adapter` by default: 50,000 on Mesa lavapipe
/// (whose rasterizer crashes past about 65,100 draws in one pass), unlimited elsewhere.
uint32_t default_max_draws_per_pass(const AdapterDescription& adapter);

/// The most bind groups bindery creates on `adapter` in one run: on Mesa lavapipe each bind group
/// holds a memory mapping and the process crashes near vm.max_map_count (65530 by default; seen
/// here at about 65,200 bind groups), so the budget is /proc/sys/vm/max_map_count minus 5000 for
/// everything else; unlimited elsewhere.
uint64_t default_max_bind_groups(const AdapterDescription& adapter);

/// Renders `scene` with `options` on `device`. Before touching the device it throws
/// TextureSizeOutOfRange for a size outside 1..maxTextureDimension2D (or a scene texture so),
/// SceneInput for a scene whose indices, mips or material references are inconsistent,
/// InvalidArgument for an option outside its range (frames == 0, |time_s| > kMaxAnimationTime,
/// moving outside [0, 1], frames_in_flight outside 1..kMaxFramesInFlight, threads above
/// kMaxMatrixThreads, encode_threads outside 1..kMaxEncodeThreads or above 1 for a strategy that
/// strategy_encodes_in_parallel() says no to, an unknown draw_path or strategy), the message
/// naming the field and value ("RenderOptions::frames_in_flight = 9, valid 1..8"),
/// StrategyUnavailable when strategy_unavailable() names a reason; then whatever the device
/// reports (WebGPUValidation, DeviceLost, ...).
RenderReport render(const Device& device, const Scene& scene, const RenderOptions& options);

}  // namespace bindery
