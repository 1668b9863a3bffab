// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/gpu_driven_scene.hpp — the GPU-driven stages composed into one scene a
/// renderer takes whole (issue 28 section 1, issue 26 point 4): IndirectDraws, Culling and, with
/// occlusion culling, a DepthPyramid over the application's ObjectTable and MeshPool; the bind
/// group the draws' vertex stage reads (object records + instance remap, with the application's
/// own bindings of that group), re-created when the buffers it names are replaced; the two-phase
/// frame as one call; the frame's counts read back.
///
/// The application keeps its data: the ObjectTable (it adds and moves objects, calls
/// ObjectTable::after_submit() after each submit), the MeshPool, its materials, pipelines and
/// render targets. The scene owns the stages. A frame:
/// @code
///   GpuDrivenScene scene(device, objects, meshes, {.culling = {.occlusion = true},
///                                                  .depth = {depth_texture, w, h}});
///   ... pipeline layout: group 0 = scene.object_layout(), group 1 = the application's
///   TargetPasses targets(color_view, depth_view, {0.1, 0.1, 0.1, 1});
///   scene.record_frame(encoder, view_projection, targets.passes(),
///                      [&](WGPURenderPassEncoder pass, ScenePhase) {
///                        const WGPUBindGroup groups[] = {scene.object_group(), materials};
///                        scene.draws().draw(pass, 0, {pipeline, groups}, device.counters());
///                      });
///   submit; objects.after_submit();
///   CullingStats counts = scene.read_counts();  // waits for the GPU
/// @endcode
/// record_frame() records, in this order (the sequence Culling's header describes):
///   ObjectTable::flush, Culling::prepare (IndirectDraws::prepare), the object group re-created
///   when object_group_generation() changed;
///   compute pass `cull`:    before_cull (the application's producer), Culling::phase1;
///   render pass `phase1`:   the draw callback (ScenePhase::phase1);
///   with occlusion culling:
///   compute pass `pyramid`: DepthPyramid::build (from phase 1's depth);
///   compute pass `cull2`:   Culling::phase2;
///   render pass `phase2`:   the draw callback (ScenePhase::phase2; the pass must load colour and
///                           depth: it draws over phase 1's image);
///   the counts copied into the scene's readback buffer.
/// The image equals the one without occlusion culling (Culling's guarantee): phase 2 draws only
/// objects phase 1 did not.
///
/// What it does NOT do: create the device, the targets, the pipelines or the materials; move
/// objects; submit. The cluster path (ClusterCulling) is not composed here: a renderer that
/// takes it records its stages through the parts this scene lends (draws(), culling(),
/// pyramid()).
///
/// Limits read: those of the parts (IndirectDraws, Culling, DepthPyramid). Needs the
/// "indirect-first-instance" feature (IndirectDraws).
#pragma once

#include "bindery/core/counters.hpp"
#include "bindery/core/device.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/gpu_driven/culling.hpp"
#include "bindery/gpu_driven/depth_pyramid.hpp"
#include "bindery/gpu_driven/indirect_draws.hpp"
#include "bindery/gpu_driven/object_table.hpp"
#include "bindery/headless/offscreen.hpp"

#include <glm/glm.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bindery::gpu_driven {

class MeshPool;

/// The bind group of the draws' vertex stage: the object records at `first_binding` and the
/// instance remap at `first_binding + 1` (IndirectDraws::object_layout_entries()), plus the
/// application's own bindings of the same group (its frame uniform, say).
struct ObjectGroupDesc {
  /// Binding of the object records; the remap is at first_binding + 1 (the WGSL of
  /// IndirectDraws::object_wgsl(group, first_binding) declares both).
  uint32_t first_binding = 0;
  /// Stages that see the records and the remap (ignored when `layout` is given).
  WGPUShaderStage visibility = WGPUShaderStage_Vertex;
  /// The application's layout entries of this group, besides the two above (ignored when
  /// `layout` is given). Their bindings must differ from first_binding and first_binding + 1.
  std::vector<WGPUBindGroupLayoutEntry> extra_layout_entries;
  /// The application's bind group entries of this group (one per extra binding); the buffers,
  /// views and samplers they name must outlive the scene.
  std::vector<WGPUBindGroupEntry> extra_entries;
  /// The layout the group is created with, when the application has one (a shared layout, or
  /// wgpuRenderPipelineGetBindGroupLayout of a pipeline with layout 'auto'; lent, must outlive
  /// the scene); null: the scene creates it from the entries above (object_layout()).
  WGPUBindGroupLayout layout = nullptr;
};

/// The depth texture phase 1 draws into, which the depth pyramid reduces (occlusion culling).
struct DepthTargetDesc {
  /// Depth24plus or depth32float, one sample, with TEXTURE_BINDING usage (lent; must outlive the
  /// scene or the next set_depth_target()).
  WGPUTexture texture = nullptr;
  uint32_t width = 0;   ///< texels
  uint32_t height = 0;  ///< texels
};

/// Options of GpuDrivenScene, carried whole into the parts.
struct GpuDrivenSceneDesc {
  /// Prefix of the labels of the scene's bind group and readback buffer, and of its errors.
  std::string label = "gpu-driven scene";
  /// The draw path, pipelines and attachment formats (IndirectDraws).
  IndirectDrawsDesc draws;
  /// Frustum and occlusion culling (Culling). record_passes() needs `output` =
  /// CullingOutput::bins; with CullingOutput::instance_list (the cluster path's input, which this
  /// scene does not compose) the application records its passes itself through culling().
  CullingDesc culling = {.frustum = true, .occlusion = false};
  /// The objects' bind group (object_group()).
  ObjectGroupDesc object_group;
  /// The depth target; required (texture, width, height) when culling.occlusion is true, unused
  /// otherwise.
  DepthTargetDesc depth;
  /// Whether record_passes() copies the frame's counts into the scene's own readback buffer
  /// (read_counts()). false: no readback buffer; a renderer with readback slots of its own
  /// (frames in flight) copies them with copy_counts().
  bool read_counts = true;
};

/// Which of the frame's two render passes the draw callback records.
enum class ScenePhase {
  phase1,  ///< the objects visible last frame, inside the frustum (every one inside it without
           ///< occlusion culling); the pass usually clears
  phase2,  ///< the objects phase 2's occlusion test found visible that phase 1 did not draw; the
           ///< pass loads colour and depth
};

/// How each pass of a frame begins. The render pass descriptors point into memory the caller
/// keeps alive during record_frame() (TargetPasses owns it for a colour + depth target); the
/// compute pass descriptors start as WGPU_COMPUTE_PASS_DESCRIPTOR_INIT. Set labels and
/// timestampWrites (GpuTimer::writes) as wanted.
struct ScenePasses {
  WGPURenderPassDescriptor phase1 = WGPU_RENDER_PASS_DESCRIPTOR_INIT;  ///< render pass `phase1`
  /// Render pass `phase2` (occlusion only): every attachment with loadOp Load.
  WGPURenderPassDescriptor phase2 = WGPU_RENDER_PASS_DESCRIPTOR_INIT;
  WGPUComputePassDescriptor cull = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;     ///< culling, phase 1
  WGPUComputePassDescriptor pyramid = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;  ///< the pyramid
  WGPUComputePassDescriptor cull2 = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;    ///< culling, phase 2
};

/// The render pass descriptors of both phases over one colour view and one depth view: phase 1
/// clears colour to `clear_color` and depth to `depth_clear`, phase 2 loads both; both store.
/// Owns the attachments the descriptors point into, so it is neither copied nor moved.
class TargetPasses {
 public:
  /// Passes over `color` (one colour attachment) and `depth` (depth, no stencil; may be null for
  /// a pass without depth, then occlusion culling has nothing to reduce). Views are lent.
  TargetPasses(WGPUTextureView color, WGPUTextureView depth, WGPUColor clear_color,
               float depth_clear = 1.0f);
  TargetPasses(const TargetPasses&) = delete;
  TargetPasses& operator=(const TargetPasses&) = delete;
  /// The descriptors (pointing into this object), compute passes at their defaults.
  ScenePasses passes() const;

 private:
  WGPURenderPassColorAttachment color_[2];
  WGPURenderPassDepthStencilAttachment depth_[2];
  bool has_depth_;
};

/// The draw callback: records the phase's draws into `pass` (typically
/// scene.draws().draw(pass, pipeline, {pipeline, groups}, counters) per pipeline).
using SceneDrawCallback = std::function<void(WGPURenderPassEncoder pass, ScenePhase phase)>;
/// A compute callback: records the application's dispatches into `pass` (before_cull: a producer
/// that writes object records, which the culling then reads).
using SceneComputeCallback = std::function<void(WGPUComputePassEncoder pass)>;

/// IndirectDraws, Culling and the DepthPyramid over an ObjectTable and a MeshPool, with the
/// objects' bind group and the frame's pass sequence. Neither copied nor moved (the parts refer
/// to each other).
class GpuDrivenScene {
 public:
  /// The stages over `objects` and `meshes` (both lent; they must outlive the scene), and the
  /// object group. Throws InvalidArgument naming the GpuDrivenSceneDesc field: culling.occlusion
  /// without depth.texture (or with a zero depth.width/height),
  /// object_group.extra_entries' count differing from extra_layout_entries' (without a layout),
  /// an extra binding equal to first_binding or first_binding + 1; and what the parts throw
  /// (FeatureNotRequested / StrategyUnavailable for the draw path, BufferTooLarge, ...).
  GpuDrivenScene(const Device& device, ObjectTable& objects, const MeshPool& meshes,
                 GpuDrivenSceneDesc desc = {});
  ~GpuDrivenScene();
  GpuDrivenScene(const GpuDrivenScene&) = delete;
  GpuDrivenScene& operator=(const GpuDrivenScene&) = delete;

  /// The CPU side of a frame, recorded into `encoder` before any pass: ObjectTable::flush (nothing
  /// when the application already flushed this frame), Culling::prepare(view_projection) (which
  /// re-creates the draws' buffers when the table or the pool grew), and the object group
  /// re-created when IndirectDraws::object_group_generation() changed. `view_projection`: WebGPU
  /// clip space, z in [0, 1]. Returns what the flush uploaded.
  ObjectFlushStats prepare(WGPUCommandEncoder encoder, const glm::mat4& view_projection);
  /// The passes of a frame after prepare() (file comment): `cull`, `phase1`, and with occlusion
  /// `pyramid`, `cull2`, `phase2`, then the counts' copy into the readback buffer. `draw` is
  /// called once per render pass, inside it; `before_cull` (may be empty) inside `cull` before
  /// Culling::phase1. Throws InvalidArgument when `draw` is empty, desc.culling.output is not
  /// CullingOutput::bins, or occlusion is on and passes.phase2 clears an attachment or has none.
  void record_passes(WGPUCommandEncoder encoder, const ScenePasses& passes,
                     const SceneDrawCallback& draw, const SceneComputeCallback& before_cull = {});
  /// prepare() then record_passes(): the whole frame in one call.
  ObjectFlushStats record_frame(WGPUCommandEncoder encoder, const glm::mat4& view_projection,
                                const ScenePasses& passes, const SceneDrawCallback& draw,
                                const SceneComputeCallback& before_cull = {});

  /// Records a copy of the frame's counts (Culling::kStatsBytes bytes) into `dst` (COPY_DST) at
  /// `offset` (a multiple of 4), for a renderer with readback slots of its own (frames in
  /// flight); decode them with counts_from(). record_passes() does this into the scene's own
  /// buffer already.
  void copy_counts(WGPUCommandEncoder encoder, WGPUBuffer dst, uint64_t offset) const;
  /// The counts of Culling::kStatsBytes bytes copy_counts() copied, `objects` = live objects.
  static CullingStats counts_from(const std::byte* bytes, uint32_t objects);
  /// The counts of the last frame record_passes() recorded, once its commands were submitted:
  /// maps the scene's readback buffer (waits, polling the device), decodes, unmaps; `objects` is
  /// the table's live count when that frame was recorded. Zero counts before the first frame.
  /// Throws InvalidArgument when desc.read_counts is false, WebGPUValidation when the map fails
  /// or a device error was recorded meanwhile.
  CullingStats read_counts() const;

  /// Replaces the depth target (a resized window): a new pyramid over `depth` and a new culling
  /// stage reading it (the visibility history restarts: the next phase 1 draws what a first frame
  /// draws, phase 2 the rest, so the image is unchanged). Throws InvalidArgument when occlusion is
  /// off, or as the constructor for the fields of `depth`.
  void set_depth_target(const DepthTargetDesc& depth);

  /// The objects' bind group (lent; re-created by prepare() when the buffers it names were
  /// replaced: take it again each frame, inside the draw callback).
  WGPUBindGroup object_group() const { return object_group_.get(); }
  /// Its layout: desc.object_group.layout, or the one the scene created (lent).
  WGPUBindGroupLayout object_layout() const { return object_layout_; }
  /// Times the object group was created (1 after construction).
  uint64_t object_group_rebuilds() const { return object_group_rebuilds_; }

  /// The stages (lent), for what the frame call does not cover: draws().draw() in the callback,
  /// draws().path() for reports, culling() and pyramid() for a pass sequence of one's own.
  ///@{
  IndirectDraws& draws() { return *draws_; }
  const IndirectDraws& draws() const { return *draws_; }
  Culling& culling() { return *culling_; }
  const Culling& culling() const { return *culling_; }
  /// Null without occlusion culling.
  const DepthPyramid* pyramid() const { return pyramid_.get(); }
  ///@}
  /// Whether phase 2 runs (desc.culling.occlusion).
  bool occlusion() const { return desc_.culling.occlusion; }
  /// The options the scene was created with.
  const GpuDrivenSceneDesc& desc() const { return desc_; }

 private:
  void create_culling();
  void refresh_object_group();

  const Device& device_;
  ObjectTable& objects_;
  const MeshPool& meshes_;
  GpuDrivenSceneDesc desc_;
  std::unique_ptr<DepthPyramid> pyramid_;
  std::unique_ptr<IndirectDraws> draws_;
  std::unique_ptr<Culling> culling_;
  gpu::BindGroupLayout own_layout_;
  WGPUBindGroupLayout object_layout_ = nullptr;
  gpu::BindGroup object_group_;
  uint64_t object_generation_ = 0, object_group_rebuilds_ = 0;
  std::optional<BufferReadback> counts_;
  uint32_t counted_objects_ = 0;
  bool counted_ = false;
};

}  // namespace bindery::gpu_driven
