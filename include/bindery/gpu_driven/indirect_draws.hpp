// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/indirect_draws.hpp — indirect draws built on the GPU, one bin per
/// (pipeline, mesh), emitted through the best draw path the device offers.
///
/// A producer on the GPU (Culling, or an application's own compute pass) appends each object to
/// draw to its bin: bin = pipeline * mesh_ids + mesh, where mesh_ids is the mesh pool's id
/// capacity. build() then records three dispatches (shaders/indirect_draws.wgsl): a one-workgroup
/// prefix sum over the bins' counts, each bin's DrawIndexedIndirect arguments (WebGPU §17.2.3,
/// "GPUDrawIndexedIndirect"; every bin, and compacted per pipeline), and the scatter of each
/// appended object into its bin's window of the instance remap that the vertex stage reads as
/// objects[remap[instance_index]]. draw() emits the bins through one rung of a ladder:
///   - multi_draw_indirect_count: one multiDrawIndexedIndirectCount per pipeline over the
///     compacted arguments, the count read on the GPU (wgpu-native's MultiDrawIndirectCount);
///   - multi_draw_indirect: one multiDrawIndexedIndirect per pipeline over every bin, empty ones
///     included (wgpu-native; emulated by a loop in wgpu-core where the feature is absent);
///   - bundle: a render bundle of one drawIndexedIndirect per bin, re-recorded only when the bins
///     or the state change (WebGPU §17.1);
///   - loop: one drawIndexedIndirect per live mesh's bin, every frame.
/// WebGPU itself has no multi-draw; Dawn offers it only behind its unsafe APIs, which bindery does
/// not enable, so Dawn gets `bundle` and `loop`. Every rung draws the same image (tested).
///
/// Needs the "indirect-first-instance" feature (each bin's window starts at its firstInstance).
/// Limits read: maxStorageBufferBindingSize and maxBufferSize (through Device::create_buffer:
/// BufferTooLarge), maxComputeWorkgroupsPerDimension. When the feature or a forced draw path's
/// feature is missing, the constructor throws FeatureNotRequested if the adapter offers it (the
/// device was created without asking: request bindery::best_features(), bindery/core/features.hpp),
/// StrategyUnavailable if the adapter does not offer it either.
#pragma once

#include "bindery/core/counters.hpp"
#include "bindery/core/device.hpp"
#include "bindery/core/features.hpp"
#include "bindery/core/gpu.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bindery::gpu_driven {

class MeshPool;
class ObjectTable;

/// A rung of the draw-path ladder, best first.
enum class DrawPath { multi_draw_indirect_count, multi_draw_indirect, bundle, loop };

/// The rung's name as `--draw-path` takes it: "multi-draw-indirect-count", "multi-draw-indirect",
/// "bundle", "loop".
std::string_view to_string(DrawPath path);
/// The rung named `name` (to_string()'s spelling); nullopt for any other text.
std::optional<DrawPath> parse_draw_path(std::string_view name);
/// Why `device` cannot take `path` (one line: "the device was created without X (the adapter
/// offers it ...)" or "... which the adapter does not offer either"), or nullopt.
std::optional<std::string> draw_path_unavailable(const Device& device, DrawPath path);
/// The best rung `device` takes: the first of the ladder for which draw_path_unavailable() is
/// nullopt.
DrawPath best_draw_path(const Device& device);

/// Options of IndirectDraws.
struct IndirectDrawsDesc {
  std::string label = "indirect draws";  ///< prefix of the buffers' labels
  /// Pipelines the bins are split by (ObjectRecord flags bits 8..15): 1..256.
  uint32_t pipelines = 1;
  /// The draw path; nullopt: best_draw_path(device).
  std::optional<DrawPath> path;
  /// The render pass's attachments, which a render bundle must match (bundle path).
  ///@{
  WGPUTextureFormat color_format = WGPUTextureFormat_RGBA8Unorm;
  WGPUTextureFormat depth_format = WGPUTextureFormat_Depth24Plus;
  ///@}
};

/// The state one pipeline's draws need: draw() sets it (a render bundle records it).
struct DrawState {
  WGPURenderPipeline pipeline = nullptr;  ///< the render pipeline of the draws
  /// Bind groups 0, 1, ... of the pipeline's layout, without dynamic offsets.
  std::span<const WGPUBindGroup> groups;
};

/// The bins of a frame's visible objects and their indirect draws. Buffers follow the object
/// table's and the mesh pool's capacities (prepare() re-creates them when those grew).
class IndirectDraws {
 public:
  /// Bins for `objects`' ids and `meshes`' ids; both must outlive this object.
  IndirectDraws(const Device& device, const ObjectTable& objects, const MeshPool& meshes,
                const IndirectDrawsDesc& desc = {});

  /// Call once per frame before recording: re-creates the buffers and bind groups when the
  /// object table or the mesh pool grew or replaced a buffer. Returns true when it did (a bind
  /// group holding remap() must then be re-created).
  bool prepare();

  /// Records the start of a phase into `pass`: every bin emptied.
  void reset(WGPUComputePassEncoder pass) const;
  /// Records the phase's prefix sum, arguments and scatter into `pass`, after the producer.
  void build(WGPUComputePassEncoder pass) const;
  /// Emits the bins of pipeline `pipeline` into `pass` through path() with `state`, and binds the
  /// mesh pool's vertex and index buffers. Counts its calls into `counters`.
  void draw(WGPURenderPassEncoder pass, uint32_t pipeline, const DrawState& state,
            Counters& counters);

  /// The rung draw() uses.
  DrawPath path() const { return path_; }
  /// Bins: pipelines * bin_stride().
  uint32_t bins() const { return pipelines_ * stride_; }
  /// Mesh ids per pipeline (the mesh pool's id capacity when prepare() last ran).
  uint32_t bin_stride() const { return stride_; }

  /// The arguments: [0, bins()) every bin's DrawIndexedIndirect (20 bytes each), then
  /// [bins(), 2 bins()) the non-empty ones compacted per pipeline (pipeline p's from
  /// bins() + p * bin_stride()). STORAGE | INDIRECT | COPY_SRC.
  WGPUBuffer args_buffer() const { return args_.get(); }
  /// Byte offset of pipeline p's draw count (a u32) in counters_buffer().
  static uint64_t draw_count_offset(uint32_t pipeline) { return 16 + 4ull * pipeline; }
  /// The buffers a producer appends into (shaders/gpu_cull.wgsl's bindings 5..7) and the remap
  /// the vertex stage reads.
  ///@{
  WGPUBuffer bins_buffer() const { return bins_.get(); }
  WGPUBuffer entries_buffer() const { return entries_.get(); }
  WGPUBuffer counters_buffer() const { return counters_.get(); }
  WGPUBuffer remap_buffer() const { return remap_.get(); }
  ///@}
  /// Byte offset of DrawCounters::subDraws in counters_buffer() (non-empty bins of the frame).
  static constexpr uint64_t kSubDrawsOffset = 4;

  /// The group every vertex stage of these draws reads (issue 26), like MaterialTable's: the
  /// object table's records at `first_binding` and the remap (instance -> object id) at
  /// `first_binding + 1`, both read-only storage, visible to `visibility`.
  static std::vector<WGPUBindGroupLayoutEntry> object_layout_entries(
      uint32_t first_binding, WGPUShaderStage visibility = WGPUShaderStage_Vertex);
  /// The bind group entries of object_layout_entries() for this table and these draws. Make the
  /// group again when object_group_generation() changed (after ObjectTable::flush() grew the
  /// table, or prepare() replaced the remap).
  std::vector<WGPUBindGroupEntry> object_group_entries(uint32_t first_binding) const;
  /// Changes whenever object_group_entries() would name other buffers.
  uint64_t object_group_generation() const;
  /// The WGSL a vertex stage includes for object_layout_entries() at `group`: struct
  /// ObjectRecord and its functions (ObjectTable::wgsl()), `objects: array<ObjectRecord>` and
  /// `remap: array<u32>`; a draw's object is `objects[remap[instance_index]]`.
  static std::string object_wgsl(uint32_t group, uint32_t first_binding);

 private:
  void create_buffers();
  void create_groups();
  void record_bundle(uint32_t pipeline, const DrawState& state);

  const Device& device_;
  const ObjectTable& objects_;
  const MeshPool& meshes_;
  IndirectDrawsDesc desc_;
  DrawPath path_;
  uint32_t pipelines_, stride_ = 0, object_capacity_ = 0;
  uint64_t objects_generation_ = 0, meshes_generation_ = 0, remap_serial_ = 0;
  gpu::Buffer params_, bins_, args_, entries_, remap_, counters_, scatter_dispatch_;
  gpu::ShaderModule module_;
  gpu::BindGroupLayout layout_, dispatch_layout_;
  gpu::PipelineLayout pipeline_layout_, scan_pipeline_layout_;
  gpu::ComputePipeline reset_, scan_, args_pipeline_, scatter_;
  gpu::BindGroup group_, dispatch_group_;
  struct Bundle {
    gpu::RenderBundle bundle;
    WGPURenderPipeline pipeline = nullptr;
    std::vector<WGPUBindGroup> groups;
    uint32_t stride = 0;
    WGPUBuffer args = nullptr, vertices = nullptr, indices = nullptr;
  };
  std::vector<Bundle> bundles_;
};

}  // namespace bindery::gpu_driven
