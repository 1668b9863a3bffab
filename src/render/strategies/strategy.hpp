// SPDX-License-Identifier: MIT
// src/render/strategies/strategy.hpp — the interface every per-draw-data strategy implements
// (what it is given each frame, what it records), the registry of strategies, and the helpers
// they share. Private to bindery. The GPU spans are bindery/headless/gpu_timer.hpp; a frame's
// draws split over several threads are render/frame/parallel_encode.hpp.
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/gpu_driven/mesh_pool.hpp"
#include "bindery/headless/gpu_timer.hpp"
#include "bindery/render/renderer.hpp"
#include "bindery/render/scene.hpp"
#include "bindery/wgsl/wgsl_layout.hpp"

#include <glm/glm.hpp>

#include <algorithm>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace bindery::strategies {

/// Colour target and depth formats of the offscreen target.
inline constexpr WGPUTextureFormat kColorFormat = WGPUTextureFormat_RGBA8Unorm;
inline constexpr WGPUTextureFormat kDepthFormat = WGPUTextureFormat_Depth24Plus;

/// A mesh uploaded once: interleaved vertices + indices.
struct GpuMesh {
  WGPUBuffer vertices = nullptr;  ///< the mesh pool's vertex buffer (lent)
  WGPUBuffer indices = nullptr;   ///< the mesh pool's index buffer (lent)
  WGPUIndexFormat index_format = WGPUIndexFormat_Uint32;
  uint32_t index_count = 0;
  uint64_t vertex_offset = 0, vertex_bytes = 0;  ///< the mesh's vertices in `vertices`, bytes
  uint64_t index_offset = 0, index_bytes = 0;    ///< the mesh's indices in `indices`, bytes
};

/// Scene resources every strategy shares.
struct GpuScene {
  /// Every mesh of the scene once (ids = the scene's mesh indices), for every strategy.
  std::unique_ptr<gpu_driven::MeshPool> pool;
  std::vector<GpuMesh> meshes;  ///< each mesh's ranges in the pool's buffers
  std::vector<gpu::Texture> textures;
  std::vector<gpu::TextureView> views;
  std::vector<gpu::Sampler> samplers;  ///< one per Scene::samplers entry
};

/// Uploads meshes (into one MeshPool) and textures (with mips) and creates the scene's samplers.
/// `storage_vertices`: the pool's buffers also bindable as storage (a vertex stage that pulls
/// its vertices: the cluster path), so each at most maxStorageBufferBindingSize bytes.
GpuScene upload_scene(const Device& device, const Scene& scene, bool storage_vertices = false);

/// The WGSL `alphaCutoff` of a material (shaders/cubes_common.wgsl): 0 for AlphaMode::opaque
/// (nothing is discarded), the cutoff for mask, -1 for blend (ordered-dither coverage).
inline float alpha_cutoff_uniform(const Material& m) {
  switch (m.alpha_mode) {
    case AlphaMode::mask:
      return std::max(m.alpha_cutoff, 0.0f);
    case AlphaMode::blend:
      return -1.0f;
    default:
      return 0.0f;
  }
}

/// Values shared by every object in a frame.
struct FrameValues {
  glm::mat4 view_projection;
  glm::vec3 light_world_position;
  glm::vec3 view_world_position;
};

/// What a strategy gets each frame.
struct FrameInputs {
  const std::vector<ObjectTransform>& transforms;  ///< one per scene object (empty when the
                                                   ///< strategy computes them on the GPU)
  const FrameValues& values;
  uint32_t changed_begin = 0, changed_end = 0;  ///< objects whose transforms changed this frame
  bool first_frame = false;
  float time_s = 0;  ///< the animation time of this frame
  /// The renderer's matrix threads already handed this frame's changed transforms to
  /// Strategy::write_transforms() (strategies that take them: takes_transforms_from_threads()).
  bool transforms_written = false;
};

/// The offscreen colour + depth target and how a pass over it begins.
struct FrameTarget {
  WGPUTextureView color = nullptr, depth = nullptr;
  WGPUTexture depth_texture = nullptr;  ///< sampled by depth-pyramid builders
  uint32_t width = 0, height = 0;
  glm::vec4 clear_color{0.0f};
  /// Begins a render pass over the target: clears colour and depth when `clear`, else loads.
  gpu::RenderPassEncoder begin_pass(WGPUCommandEncoder encoder, bool clear,
                                    const WGPUPassTimestampWrites* timestamps) const;
};

/// Everything a strategy records a frame with.
struct FrameContext {
  const FrameInputs& in;
  WGPUCommandEncoder encoder;
  const FrameTarget& target;
  GpuTimer& timer;
  Counters& counters;           ///< where encode() counts the frame's calls (the device's)
  uint32_t max_draws_per_pass;  ///< see RenderOptions::max_draws_per_pass
  uint32_t passes = 0;          ///< render passes recorded (out)
};

/// A compute pass over ctx.encoder, timed as one GPU span named `name`; ends when destroyed.
class TimedComputePass {
 public:
  TimedComputePass(FrameContext& ctx, std::string_view name) {
    WGPUComputePassDescriptor d = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
    d.timestampWrites = ctx.timer.writes(ctx.timer.open(name), true, true);
    pass_ = wgpuCommandEncoderBeginComputePass(ctx.encoder, &d);
  }
  ~TimedComputePass() {
    wgpuComputePassEncoderEnd(pass_);
    wgpuComputePassEncoderRelease(pass_);
  }
  TimedComputePass(const TimedComputePass&) = delete;
  TimedComputePass& operator=(const TimedComputePass&) = delete;
  WGPUComputePassEncoder get() const { return pass_; }
  /// Sets `pipeline` and `group` (as group 0), then dispatches x * y * 1 workgroups.
  void dispatch(WGPUComputePipeline pipeline, WGPUBindGroup group, uint32_t x, uint32_t y) {
    wgpuComputePassEncoderSetPipeline(pass_, pipeline);
    wgpuComputePassEncoderSetBindGroup(pass_, 0, group, 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass_, x, y, 1);
  }

 private:
  WGPUComputePassEncoder pass_ = nullptr;
};

/// What the renderer tells a strategy when creating it.
struct StrategyOptions {
  bool occlusion = true;
  uint32_t width = 0, height = 0;  ///< the target size
  WGPUTexture depth_texture = nullptr;
  std::string draw_path;  ///< RenderOptions::draw_path
  std::string material_backend;  ///< RenderOptions::material_backend
  bool clusters = false;         ///< RenderOptions::clusters
  float lod_error_px = 1.0f;     ///< RenderOptions::lod_error_px
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

/// One row of the registry (src/render/strategy_registry.cpp): the public catalogue row, the
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
};

/// The registry: every strategy's row, in catalogue order.
std::span<const StrategyRow> strategy_rows();
/// The row named `name`; throws InvalidArgument listing the valid names.
const StrategyRow& find_strategy_row(std::string_view name);

/// The advice of check_bind_group_budget() for bind groups made per object.
inline constexpr std::string_view kPerObjectGroupsAdvice =
    "use the dynamic-offsets or storage-instancing strategy, or fewer objects";
/// The advice for bind groups made per material (every strategy that binds materials one group
/// each: fewer materials, or a strategy with one material table).
inline constexpr std::string_view kPerMaterialGroupsAdvice =
    "use fewer materials (--materials), or a strategy with one material table (gpu-driven, "
    "gpu-culling)";

/// Throws ImplementationLimit when creating `count` more bind groups would exceed
/// default_max_bind_groups(device.adapter()); `what` names them in the message, `advice` says
/// what fits the run (which count to lower, or which strategy avoids the groups).
void check_bind_group_budget(const Device& device, uint64_t count, std::string_view what,
                             std::string_view advice = kPerObjectGroupsAdvice);

/// Reflects one of bindery's own shaders; any reflection error is a bug here and is thrown.
Reflection reflect_checked(std::string_view wgsl);

/// The interleaved Vertex layout (stride 36: position float32x3 @0, normal float32x3 @12,
/// texcoord float32x2 @24, color unorm8x4 @32; shader locations 0..3).
WGPUVertexBufferLayout vertex_buffer_layout();

/// A render bundle encoder for the scene pipelines' target (kColorFormat, kDepthFormat, one
/// sample): WebGPU §17.1 GPURenderBundleEncoderDescriptor must match the pass's attachments.
gpu::RenderBundleEncoder create_scene_bundle_encoder(const Device& device, const char* label);

/// A bind group of `layout` with `entries`, labelled `label`, through Device::create_bind_group
/// (counted; validation errors reported by the device).
gpu::BindGroup create_bind_group(const Device& device, const char* label,
                                 WGPUBindGroupLayout layout,
                                 std::span<const WGPUBindGroupEntry> entries);

/// A render pipeline for `module` (entry points `vertex_entry` / fs) with the article's state:
/// cull back, depth24plus with less, one colour target in kColorFormat; the bindery::Vertex
/// buffer layout unless `pulls_vertices` (a vertex stage that reads its vertices from storage).
gpu::RenderPipeline create_scene_pipeline(const Device& device, WGPUShaderModule module,
                                          WGPUPipelineLayout layout, const char* label,
                                          const char* vertex_entry = "vs",
                                          bool pulls_vertices = false);

}  // namespace bindery::strategies
