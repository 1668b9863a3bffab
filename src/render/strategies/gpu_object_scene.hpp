// SPDX-License-Identifier: MIT
// src/render/strategies/gpu_object_scene.hpp — the scene as the GPU strategies (gpu-driven,
// gpu-culling, bundles-gpu) hold it: composed of bindery's GPU-driven parts
// (include/bindery/gpu_driven/), so that no strategy keeps a second copy of a mesh, a second
// per-object array or a bind group per material. Private to bindery.
//
//   MeshPool       every mesh of the scene once (ids = the scene's mesh indices): GpuScene's,
//                  the one the CPU strategies draw from too;
//   MaterialTable  every material and texture (2D arrays by size class), indexed by the record;
//   ObjectTable    every object a record (ids = the scene's object indices);
//   producer       who writes the records' transforms each frame: the GPU (the article's
//                  animation, shaders/object_animate.wgsl) or the application's CPU through
//                  ObjectTable::set_transform and one flush;
//   draw pipeline  shaders/gpu_driven_draw.wgsl with the material table's WGSL spliced in; group
//                  kObjectGroup = frame uniform, object records, instance remap (the strategy's),
//                  group kMaterialGroup = the material table.
#pragma once

#include "strategy.hpp"

#include "bindery/gpu_driven/material_table.hpp"
#include "bindery/gpu_driven/mesh_pool.hpp"
#include "bindery/gpu_driven/object_table.hpp"
#include "bindery/wgsl/wgsl_layout.hpp"

#include <array>
#include <atomic>
#include <span>
#include <string>
#include <vector>

namespace bindery::strategies {

using gpu_driven::MaterialTable;
using gpu_driven::MeshPool;
using gpu_driven::ObjectTable;

/// Who writes the object records' transforms each frame.
enum class TransformProducer {
  gpu_when_animated,  ///< the article's animation on the GPU when every object follows it, else
                      ///< the CPU (a glTF or city scene)
  cpu,                ///< always the CPU's matrices (FrameInputs::transforms)
};

/// The scene in the GPU-driven parts, with its transform producer and its draw pipeline.
class GpuObjectScene {
 public:
  /// Bind group indices of the draw pipeline (shaders/gpu_driven_draw.wgsl).
  static constexpr uint32_t kObjectGroup = 0;    ///< frame uniform, object records, remap
  static constexpr uint32_t kMaterialGroup = 1;  ///< the MaterialTable
  /// Bindings of group kObjectGroup (shaders/gpu_driven_draw.wgsl's `frame`, `objects`, `remap`).
  static constexpr uint32_t kFrameBinding = 0, kObjectsBinding = 1, kRemapBinding = 2;
  /// The material table's first binding in group kMaterialGroup: its layout entries, group
  /// entries and WGSL (MaterialTable::wgsl(kMaterialGroup, kMaterialFirstBinding)) all take it.
  static constexpr uint32_t kMaterialFirstBinding = 0;

  /// Every material and object of `scene` into the parts, its meshes from `gpu`'s pool (which
  /// must outlive this object); `label` names the buffers. Throws what the parts throw
  /// (BufferTooLarge, ImplementationLimit, ...).
  GpuObjectScene(const Device& device, const Scene& scene, const GpuScene& gpu, std::string label,
                 TransformProducer producer,
                 gpu_driven::MaterialBackend backend = gpu_driven::MaterialBackend::texture_arrays);

  /// Whether the GPU writes the transforms (the strategy then needs no CPU matrices).
  bool animated_on_gpu() const { return gpu_animation_; }
  uint32_t object_count() const { return object_count_; }

  /// The frame's CPU side: the animation's frame uniform (GPU producer), or set_transform of the
  /// objects whose matrices changed (CPU producer: every changed one on the first frame, after
  /// it only Scene::moving ones), ObjectTable::flush into `encoder`, and the draw frame uniform.
  void upload(const FrameInputs& in, WGPUCommandEncoder encoder);
  /// The objects of [begin, end) whose matrices changed (all on the first frame, Scene::moving
  /// ones after it) into the object table, from the renderer's matrix threads: any number at
  /// once on disjoint ranges (ObjectTable's contract). upload() then only flushes.
  void write_transforms(std::span<const ObjectTransform> all, uint32_t begin, uint32_t end,
                        bool first_frame);
  /// Records the animation's dispatch into `pass` (GPU producer only; nothing otherwise).
  void animate(TimedComputePass& pass) const { animate(pass.get()); }
  void animate(WGPUComputePassEncoder pass) const;
  /// Re-creates the animation's group (GPU producer) when the object table replaced its buffer
  /// since it was made; for strategies whose object group is not refresh_object_group()'s.
  void refresh_animate_group();
  /// After the frame's submit (ObjectTable::after_submit).
  void after_submit() { objects_.after_submit(); }

  /// Re-creates group kObjectGroup with `remap` as its binding 2 when `force`, or when the object
  /// table replaced its buffer since the last call.
  void refresh_object_group(WGPUBuffer remap, bool force);
  /// Bind groups 0, 1 of the draw pipeline.
  std::array<WGPUBindGroup, 2> groups() const {
    return {object_group_.get(), material_group_.get()};
  }
  /// Bind groups 0, 1 with `object_group` (of object_layout(), made elsewhere) as group 0.
  std::array<WGPUBindGroup, 2> groups(WGPUBindGroup object_group) const {
    return {object_group, material_group_.get()};
  }
  /// The layout of group kObjectGroup, and the frame uniform it holds at kFrameBinding, for a
  /// GpuDrivenScene that makes the group (lent).
  WGPUBindGroupLayout object_layout() const { return object_layout_.get(); }
  WGPUBuffer frame_buffer() const { return frame_.get(); }
  WGPURenderPipeline pipeline() const { return pipeline_.get(); }
  /// Creates the cluster path's pipeline (gpu_driven_draw.wgsl's vs_clusters), whose group 2 has
  /// `cluster_layout` (ClusterCulling::draw_layout()).
  void create_cluster_pipeline(WGPUBindGroupLayout cluster_layout);
  WGPURenderPipeline cluster_pipeline() const { return cluster_pipeline_.get(); }
  /// The draw frame's debugColors from the next upload() on (RenderOptions::debug_colors: 0
  /// shaded, 1 clusters, 2 levels); only the cluster path's stages read it.
  void set_debug_colors(uint32_t mode) { debug_colors_ = mode; }
  // The compute rasterizer's resolve (vs_resolve / fs_resolve): groups objects, materials, the
  // cluster draw's, the resolve's; depth-tested, writing depth.
  void create_resolve_pipeline(WGPUBindGroupLayout cluster_layout,
                               WGPUBindGroupLayout resolve_layout);
  WGPURenderPipeline resolve_pipeline() const { return resolve_pipeline_.get(); }

  const MeshPool& meshes() const { return meshes_; }
  ObjectTable& objects() { return objects_; }
  const ObjectTable& objects() const { return objects_; }
  const MaterialTable& materials() const { return materials_; }
  /// Object records copied from staging since creation (ObjectTable::flush's counts).
  uint64_t records_uploaded() const { return records_uploaded_; }
  /// CPU ns per object moved (set_transform + flush) over the frames after the first, or nullopt
  /// (GPU producer, or nothing moved after the first frame).
  std::optional<double> cpu_ns_per_moved_object() const;

 private:
  void add_objects(const Scene& scene);
  void create_animation(const Scene& scene);
  void create_animate_group();
  void create_draw_pipeline();
  void write_frame(const FrameValues& values);

  const Device& device_;
  std::string label_;
  uint32_t object_count_;
  bool gpu_animation_;
  std::vector<uint32_t> moving_;  // Scene::moving: the objects whose transform changes with time
  const MeshPool& meshes_;
  MaterialTable materials_;
  ObjectTable objects_;
  uint64_t object_generation_ = 0, animate_generation_ = 0, records_uploaded_ = 0;
  uint64_t moved_after_first_ = 0;   // set_transform calls after the first frame
  double move_ns_after_first_ = 0;   // their CPU time with the flushes, ns
  // This frame's set_transform calls from write_transforms() and their CPU ns summed over the
  // threads (after the first frame), taken by upload().
  std::atomic<uint64_t> thread_moved_{0}, thread_move_ns_{0};
  WGPUBuffer remap_ = nullptr;
  StructLayout frame_layout_;
  uint32_t debug_colors_ = 0;
  std::vector<std::byte> frame_bytes_;
  gpu::Buffer frame_, inputs_, animate_frame_;
  gpu::BindGroupLayout object_layout_, material_layout_, animate_layout_;
  gpu::BindGroup object_group_, material_group_, animate_group_;
  gpu::PipelineLayout pipeline_layout_, animate_pipeline_layout_;
  gpu::ShaderModule module_, animate_module_;
  gpu::RenderPipeline pipeline_, cluster_pipeline_, resolve_pipeline_;
  gpu::PipelineLayout cluster_pipeline_layout_, resolve_pipeline_layout_;
  gpu::ComputePipeline animate_;
};

/// Why the object records of `scene` do not fit one storage binding of `device`
/// (maxStorageBufferBindingSize, maxBufferSize), or nullopt.
std::optional<std::string> object_records_unavailable(const Device& device, const Scene& scene);

}  // namespace bindery::strategies
