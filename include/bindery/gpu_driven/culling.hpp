// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/culling.hpp — frustum and two-phase occlusion culling over the object
/// table, on the GPU, appending the visible objects to the indirect draws' bins.
///
/// One part with two flags (frustum, occlusion), not two strategies with a frustum test each
/// (Bevy's PreprocessPipelineKey). Shader: shaders/gpu_cull.wgsl. A frame:
///   if (culling.prepare(view_projection)) ...    // before recording; true: buffers were
///                                                // re-created, rebuild bind groups naming them
///   compute pass: culling.phase1(pass)           // counts reset, bins reset, cull, build
///   render pass:  draws.draw(...)                // phase 1's draws
///   occlusion on:
///   compute pass: pyramid.build(pass); culling.phase2(pass)
///   render pass:  draws.draw(...)                // phase 2's draws (load, not clear)
/// Phase 1 draws the objects inside the frustum that were visible last frame; phase 2 tests every
/// object inside the frustum against the depth pyramid of phase 1's depth, remembers its
/// visibility for the next frame, and draws the visible ones phase 1 did not. An object is culled
/// only when its box's nearest depth lies behind the farthest depth under its screen rectangle
/// (widened by a pixel), so the image equals the one without occlusion culling, at any target
/// size. The bounding sphere of each mesh (MeshPool) is transformed by the object's world matrix
/// and scaled by its largest column norm.
///
/// Limits read: maxComputeWorkgroupsPerDimension; buffer sizes through Device::create_buffer.
/// Throws InvalidArgument when occlusion is asked for without a pyramid.
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/core/gpu.hpp"

#include <glm/glm.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bindery::gpu_driven {

class DepthPyramid;
class IndirectDraws;
class MeshPool;
class ObjectTable;

/// What the culling passes write for the visible objects of a phase.
enum class CullingOutput {
  bins,           ///< appended to their (pipeline, mesh) bin, and IndirectDraws::build() run
  instance_list,  ///< listed in IndirectDraws::entries_buffer() (object, 0) with their number
                  ///< first in counters_buffer(); no bins, no build: for ClusterCulling
};

/// Which tests run (shaders/gpu_cull.wgsl's CullFrame.flags) and where the visible objects go.
struct CullingDesc {
  bool frustum = true;    ///< cull objects whose bounding sphere lies outside the frustum
  bool occlusion = true;  ///< two-phase occlusion culling (needs a DepthPyramid)
  CullingOutput output = CullingOutput::bins;  ///< the list the next stage reads
};

/// The object counts of one frame, in pipeline order.
struct CullingStats {
  uint32_t objects = 0;          ///< live objects in the table
  uint32_t after_frustum = 0;    ///< inside the frustum (all live ones with frustum culling off)
  uint32_t after_occlusion = 0;  ///< of those, not occluded
  uint32_t drawn = 0;            ///< appended to a bin (phase 1 + phase 2)
  uint32_t sub_draws = 0;        ///< non-empty bins, summed over the phases: the draws the GPU ran
};

/// Frustum and occlusion culling of an ObjectTable into IndirectDraws.
class Culling {
 public:
  /// Culls `objects` (meshes from `meshes`) into `draws`; `pyramid` may be null when
  /// desc.occlusion is false. All must outlive this object.
  Culling(const Device& device, const ObjectTable& objects, const MeshPool& meshes,
          IndirectDraws& draws, const DepthPyramid* pyramid, const CullingDesc& desc = {});

  /// Sets the frame's view-projection (WebGPU clip space, z in [0, 1]) and calls
  /// IndirectDraws::prepare(); re-creates buffers when the table grew. Call before recording.
  /// Returns what IndirectDraws::prepare() returned.
  bool prepare(const glm::mat4& view_projection);
  /// Records phase 1 into `pass`: the frame's counts reset, the bins reset, the frustum test,
  /// and IndirectDraws::build().
  void phase1(WGPUComputePassEncoder pass) const;
  /// Records phase 2 into `pass` (after the pyramid was built from phase 1's depth): bins reset,
  /// the occlusion test of phase 1's candidates, IndirectDraws::build(). Only with occlusion.
  void phase2(WGPUComputePassEncoder pass) const;
  /// Whether phase 2 runs.
  bool occlusion() const { return desc_.occlusion; }

  /// Bytes copy_stats() copies.
  static constexpr uint64_t kStatsBytes = 16;
  /// Records copies of the frame's counts into `dst` at `offset` (after the frame's passes).
  void copy_stats(WGPUCommandEncoder encoder, WGPUBuffer dst, uint64_t offset) const;
  /// The counts from the kStatsBytes bytes copy_stats() copied; `objects` = live objects.
  static CullingStats read_stats(const std::byte* bytes, uint32_t objects);

 private:
  void create_buffers();
  void create_groups();

  const Device& device_;
  const ObjectTable& objects_;
  const MeshPool& meshes_;
  IndirectDraws& draws_;
  const DepthPyramid* pyramid_;
  CullingDesc desc_;
  uint32_t capacity_ = 0;
  gpu::Buffer frame_, state_, counters_, phase2_dispatch_;
  std::vector<std::byte> frame_bytes_;
  gpu::Texture dummy_pyramid_;
  gpu::TextureView dummy_view_;
  gpu::ShaderModule module_;
  gpu::BindGroupLayout layout_, dispatch_layout_;
  gpu::PipelineLayout pipeline_layout_, phase2_layout_;
  gpu::ComputePipeline begin_frame_, phase1_, begin_phase2_, phase2_;
  gpu::BindGroup group_, dispatch_group_;
};

}  // namespace bindery::gpu_driven
