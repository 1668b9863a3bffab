// SPDX-License-Identifier: MIT
// src/render/strategies/strategy.hpp — the interface every per-draw-data strategy implements
// (what it is told when created, what it records each frame; its default frame is strategy.cpp)
// and the registry of strategies (registry.cpp). Private to render/. What a strategy is given
// each frame is render/frame/frame_context.hpp, the scene it draws render/frame/gpu_scene.hpp,
// the helpers its pipelines share pipeline_helpers.hpp; a frame's draws split over several
// threads are render/frame/parallel_encode.hpp.
#pragma once

#include "pipeline_helpers.hpp"
#include "render/frame/frame_context.hpp"
#include "render/frame/gpu_scene.hpp"

#include "bindery/core/device.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery/data/scene_gpu.hpp"
#include "bindery/render/scene.hpp"
#include "bindery/render/strategy_info.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace bindery::strategies {

/// What the renderer tells a strategy when creating it.
struct StrategyOptions {
  bool occlusion = true;
  uint32_t width = 0, height = 0;  ///< the target size
  WGPUTexture depth_texture = nullptr;
  std::string draw_path;  ///< RenderOptions::draw_path
  std::string material_backend;  ///< RenderOptions::material_backend
  bool clusters = false;         ///< RenderOptions::clusters
  float lod_error_px = 1.0f;     ///< RenderOptions::lod_error_px
  std::string rasterizer = "auto";  ///< RenderOptions::rasterizer
  std::string raster_rung;          ///< RenderOptions::raster_rung
  float fov_y_degrees = 60.0f;   ///< the view's vertical field of view (the cut's projection)
  float z_near = 1.0f;           ///< the view's near plane, world units
};

/// One way of getting per-draw data to the shader. Created once per run. Each frame the renderer
/// calls record_frame(), which by default calls upload() once, then encode() over consecutive
/// ranges of the frame's draws, one range per render pass (usually one pass; see
/// RenderOptions::max_draws_per_pass). GPU-driven strategies record their own passes.
class Strategy {
 public:
  virtual ~Strategy() = default;
  /// Writes the frame's data before any draw is encoded: queue.writeBuffer, or copies recorded
  /// into `encoder` ahead of the render passes (mapped staging), or compute passes.
  virtual void upload(const FrameInputs& in, WGPUCommandEncoder encoder) = 0;
  /// Called after the frame's queue.submit (mapped staging returns its blocks here).
  virtual void after_submit() {}
  /// Draw calls per frame, in encode order.
  virtual uint32_t draw_count() const = 0;
  /// Encodes draws [first, last) into `pass`, a pass that starts with no state bound, counting
  /// its calls into `counters`. For a strategy whose row says parallel_encode, encode() must be
  /// safe to call from several threads at once on disjoint ranges, each with its own pass and
  /// its own `counters`: it reads the strategy's objects and mutates nothing shared (no cache
  /// filled lazily, no device.counters(), no writes), RenderOptions::encode_threads.
  virtual void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last,
                      Counters& counters) = 0;
  /// Records the whole frame into ctx.encoder: upload(), then the draws in render passes of at
  /// most ctx.max_draws_per_pass draws (the first clears, the others load), timed as "render".
  virtual void record_frame(FrameContext& ctx);
  /// The draws of record_frame() without the upload: every draw in render passes of at most
  /// ctx.max_draws_per_pass draws through encode() (the first clears, the others load), timed
  /// as "render". For strategies whose record_frame() does more before the draws.
  void record_draw_passes(FrameContext& ctx);
  /// Whether the renderer computes per-object transforms on the CPU for this strategy.
  virtual bool needs_cpu_transforms() const { return true; }
  /// Whether write_transforms() takes the changed transforms straight from the renderer's matrix
  /// threads (issue 30), instead of upload() reading FrameInputs::transforms on one thread.
  virtual bool takes_transforms_from_threads() const { return false; }
  /// Called by the renderer's matrix threads (oneTBB), several at once on disjoint ranges, right
  /// after they computed objects [begin, end) of `all` (the frame's whole array), before upload();
  /// `first_frame` as FrameInputs::first_frame. Must be safe for disjoint ranges at once.
  virtual void write_transforms(std::span<const ObjectTransform> /*all*/, uint32_t /*begin*/,
                                uint32_t /*end*/, bool /*first_frame*/) {}
  /// Stride of per-object data in its GPU buffer, 0 when there is no shared buffer.
  virtual uint64_t object_stride() const { return 0; }
  /// The one channel of GPU statistics, for every strategy that culls on the GPU: per frame,
  /// copy_stats() copies them after the passes and read_stats() decodes them once the frame is
  /// done (RenderReport::visible_objects is the last frame's CullingCounts::drawn).
  /// Bytes of per-frame GPU statistics copy_stats() records (0: none).
  virtual uint64_t stats_bytes() const { return 0; }
  /// Records a copy of this frame's GPU statistics into `dst` at `offset` (after the passes).
  virtual void copy_stats(WGPUCommandEncoder, WGPUBuffer, uint64_t) {}
  /// Decodes the bytes copy_stats() copied, once the frame is done on the GPU.
  virtual std::optional<CullingCounts> read_stats(const std::byte*) const { return std::nullopt; }
  /// RenderReport::cpu_ns_per_moved_object: CPU ns per object moved through an object table.
  virtual std::optional<double> cpu_ns_per_moved_object() const { return std::nullopt; }
  /// Path-specific facts for the report (which draw path ran, ...).
  virtual std::vector<std::pair<std::string, std::string>> notes() const { return {}; }
};

/// One row of the registry (registry.cpp): the public catalogue row, the
/// factory, and the availability check (nullopt = available, else the reason it is not).
struct StrategyRow {
  StrategyInfo info;
  std::unique_ptr<Strategy> (*make)(const Device&, const Scene&, const GpuScene&,
                                    const StrategyOptions&);
  std::optional<std::string> (*unavailable)(const Device&, const Scene&) = nullptr;
  /// Whether RenderOptions::encode_threads > 1 applies: the strategy keeps the default
  /// record_frame() (upload(), then encode() over the draws) and its encode() is safe on several
  /// threads (see Strategy::encode). false for strategies that record their own passes or
  /// record render bundles lazily inside encode().
  bool parallel_encode = false;
  /// Whether the strategy's MaterialTable uploads the scene's textures (as 2D arrays) and so
  /// needs none of GpuScene::textures / views: upload_scene() then leaves them empty.
  bool own_textures = false;
};

/// The registry: every strategy's row, in catalogue order.
std::span<const StrategyRow> strategy_rows();
/// The row named `name`; throws InvalidArgument listing the valid names.
const StrategyRow& find_strategy_row(std::string_view name);

}  // namespace bindery::strategies
