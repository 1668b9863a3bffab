// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/cluster_raster.hpp — the compute rasterizer of the GPU-driven parts: the
/// clusters the cluster stage found small on screen (ClusterCulling::set_compute_raster())
/// rasterized by compute shaders into a visibility buffer (depth and id per pixel), and the
/// resolve's bindings that shade them after the phase's hardware draw.
///
/// A phase with both rasterizers:
///   encoder: raster.clear(encoder)                 // the visibility buffer emptied
///   compute: culling.phase1(pass); clusters.build(pass); raster.rasterize(pass)
///   render:  clusters.draw(pass, ...)               // the hardware clusters, shaded as before
///            raster.resolve(pass, pipeline, groups) // the compute clusters' screen rectangle,
///                                                   // depth-tested: each compute pixel shaded,
///                                                   // its depth written
/// The resolve shades with the hardware path's fragment function (shaders/gpu_driven_draw.wgsl
/// `fs_resolve`), so the two rasterizers give one image; the depth it writes is what the next
/// phase's depth pyramid reads.
///
/// Rungs (RasterRung), chosen per device, the best first:
///   - int64_atomic_max: one 64-bit word per pixel, one atomicMax(depth key << 32 | id) per
///     covered pixel (wgpu-native's ShaderInt64 and ShaderInt64AtomicMinMax; lavapipe and the
///     NVIDIA H200 have them);
///   - core: core WebGPU, two 32-bit words per pixel and two passes over the same clusters:
///     atomicMax of the depth key, then, where the key is the pixel's nearest, atomicMax of the
///     id. Costs a second rasterization of every compute cluster; the same image as the first rung
///     (ties of equal depth go to the larger id in both).
/// 64-bit texture atomics (wgpu-native's TextureInt64Atomic) would be a third rung with the
/// first's cost; bindery does not use it.
///
/// Coverage follows the hardware path's rules (shaders/raster_core.wgsl): pixel centres, 8
/// subpixel bits, the top-left rule, back faces culled, depth interpolated linearly in window
/// space. Alpha-masked materials stay on the hardware path (ClusterCulling's material flags).
/// Limits read: maxStorageBufferBindingSize and maxBufferSize (8 bytes per pixel),
/// maxStorageBuffersPerShaderStage (7 in the raster pass), maxComputeWorkgroupsPerDimension.
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/gpu_driven/cluster_culling.hpp"
#include "bindery/gpu_driven/object_table.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace bindery::gpu_driven {

/// How the compute rasterizer keeps the nearest (depth, id) of a pixel (see the file comment).
enum class RasterRung {
  int64_atomic_max,  ///< one atomicMax on a 64-bit word per covered pixel
  core,              ///< core WebGPU: 32-bit atomics in two passes
};

/// The rung's name as `--raster-rung` and the JSON (`rasterRung`) write it: "int64-atomic-max", "core".
std::string_view to_string(RasterRung rung);
/// The rung named `name` ("int64-atomic-max", "core"), or nullopt.
std::optional<RasterRung> parse_raster_rung(std::string_view name);
/// Why `device` cannot run `rung` (one line), or nullopt (core: always available).
std::optional<std::string> raster_rung_unavailable(const Device& device, RasterRung rung);
/// Why the visibility buffer of a `width` x `height` target does not fit `device` (8 bytes a
/// pixel against maxStorageBufferBindingSize and maxBufferSize; one line), or nullopt.
std::optional<std::string> raster_target_unavailable(const Device& device, uint32_t width,
                                                     uint32_t height);
/// The best rung `device` runs: int64_atomic_max where available, else core.
RasterRung best_raster_rung(const Device& device);

/// The split's area per triangle where compute rasterizing wins on `device`, in pixels of a
/// cluster's screen bound per triangle (ClusterCulling::set_compute_raster()), from the
/// measurements of docs/BENCHMARKS.md ("Compute rasterizer"): 0 (hardware only) where none
/// was measured to win.
float compute_raster_auto_area_px(const Device& device);

/// Options of ClusterRaster.
struct ClusterRasterDesc {
  std::string label = "cluster raster";  ///< prefix of the buffers' labels
  /// The rung; nullopt: best_raster_rung(). A rung the device lacks: StrategyUnavailable.
  std::optional<RasterRung> rung;
};

/// The compute rasterizer over ClusterCulling's raster clusters. All references must outlive it.
class ClusterRaster {
 public:
  /// Throws StrategyUnavailable for a rung the device lacks (raster_rung_unavailable()).
  ClusterRaster(const Device& device, const ObjectTable& objects, const ClusterGeometry& geometry,
                const ClusterCulling& culling, const ClusterRasterDesc& desc = {});

  /// Call once per frame before recording: the visibility buffer sized for `width` x `height`
  /// pixels (BufferTooLarge past maxStorageBufferBindingSize / maxBufferSize) and the groups
  /// re-created when the inputs changed. Returns true when resolve_group() was re-created.
  bool prepare(uint32_t width, uint32_t height);
  /// Records the clearing of the visibility buffer into `encoder` (outside any pass): before each
  /// phase's compute pass.
  void clear(WGPUCommandEncoder encoder) const;
  /// Records the rasterization of the phase's raster clusters into `pass`, after
  /// ClusterCulling::build() in the same or an earlier pass (one or two dispatches, by rung).
  void rasterize(WGPUComputePassEncoder pass) const;
  /// Draws the resolve into `pass` with `pipeline` (vs_resolve / fs_resolve of a module that
  /// includes resolve_wgsl(groups.size() + 1)), `groups` as its first groups, ClusterCulling::group()
  /// next and resolve_group() last: ClusterCulling::resolve_draw(), over the screen rectangle of
  /// the phase's compute clusters, nothing when there are none.
  void resolve(WGPURenderPassEncoder pass, WGPURenderPipeline pipeline,
               std::span<const WGPUBindGroup> groups, const ClusterCulling& culling,
               Counters& counters) const;

  /// The resolve's bind group layout (the target's terms; fragment stage: the raster clusters, the
  /// visibility words; vertex stage: the cluster stage's counts, for the compute clusters' screen
  /// bound) and its group (re-created by prepare() when it returns true).
  WGPUBindGroupLayout resolve_layout() const { return resolve_layout_.get(); }
  /// The bind group of resolve_layout().
  WGPUBindGroup resolve_group() const { return resolve_group_.get(); }
  /// The WGSL the resolve includes for resolve_layout() at group `group`: for the fragment stage
  /// `fn raster_sample(pixel: vec2u) -> RasterSample` (covered, object, cluster, triangle in the
  /// cluster, depth) whatever the rung; for the vertex stage `fn raster_bounds_corner(index: u32)
  /// -> vec4f`, corner 0..5 of the phase's compute rectangle in clip space (two triangles). The
  /// shading is the application's: fetch the triangle's three vertices (ClusterCulling::wgsl()'s
  /// bindings), interpolate them at the pixel and write the depth (`@builtin(frag_depth)`);
  /// shaders/gpu_driven_draw.wgsl's `vs_resolve` / `fs_resolve` are bindery's own, perspective-
  /// correct barycentrics and texture derivatives included. The resolve pipeline: triangle list,
  /// no culling, the pass's colour and depth formats, depth compare less with depth writes.
  static std::string resolve_wgsl(uint32_t group);
  /// The rung in use.
  RasterRung rung() const { return rung_; }
  /// The visibility buffer (STORAGE | COPY_SRC | COPY_DST): per pixel y * width + x, for
  /// int64_atomic_max one little-endian 64-bit word (id low, depth key high); for core the keys
  /// in words [0, N) and the ids in [N, 2N), N = width * height. A key is 0xffffffff minus the
  /// bits of the depth in [0, 1]; 0 is an empty pixel. Ids: raster slot << 7 | triangle.
  WGPUBuffer visibility_buffer() const { return visibility_.get(); }

 private:
  void create_groups();

  const Device& device_;
  const ObjectTable& objects_;
  const ClusterGeometry& geometry_;
  const ClusterCulling& culling_;
  ClusterRasterDesc desc_;
  RasterRung rung_;
  uint32_t width_ = 0, height_ = 0;
  uint64_t objects_generation_ = UINT64_MAX, geometry_generation_ = UINT64_MAX;
  WGPUBuffer raster_slots_ = nullptr, pool_vertices_ = nullptr, object_buffer_ = nullptr;
  gpu::Buffer target_, visibility_;
  gpu::ShaderModule module_;
  gpu::BindGroupLayout layout_, store_layout_, resolve_layout_;
  gpu::PipelineLayout pipeline_layout_;
  gpu::ComputePipeline depth_pass_, id_pass_;
  gpu::BindGroup group_, store_group_, resolve_group_;
};

}  // namespace bindery::gpu_driven
