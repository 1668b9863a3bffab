// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/cluster_culling.hpp — the cluster stage of the GPU-driven parts: meshes'
/// cluster hierarchies on the GPU (ClusterGeometry) and, each phase, the cut of every visible
/// instance selected, culled per cluster (frustum, back-facing normal cone, two-phase occlusion)
/// and written as one index buffer that a single drawIndexedIndirect draws (ClusterCulling).
///
/// Stages, joined by explicit lists (shaders/cluster_culling.wgsl):
///   visible instances  (Culling in CullingOutput::instance_list: IndirectDraws::entries_buffer())
///   -> chunks          (instance, first cluster, count <= 8) of the levels that may hold its cut
///   -> visible clusters (slots: instance, cluster, first output triangle), and with occlusion
///      the clusters phase 1 deferred to phase 2 (chunks of one)
///   -> indices         slot << 8 | corner, 3 per triangle, and the DrawIndexedIndirect
/// A frame:
///   compute: culling.phase1(pass); clusters.begin_frame(pass); clusters.build(pass)
///   render:  clusters.draw(pass, pipeline, groups, counters)  // vs_clusters; group() after groups
///   occlusion on: pyramid.build(pass), culling.phase2(pass); clusters.build(pass);
///                 render: clusters.draw()
/// The vertex stage (shaders/gpu_driven_draw.wgsl `vs_clusters`) reads the slot, the cluster and
/// the vertex from group(): no vertex buffer, no indirect-first-instance, one draw per phase
/// whatever the number of clusters, on every WebGPU implementation.
///
/// The cut: a cluster is drawn when its self error projects to at most ClusterCullingDesc::
/// lod_error_px pixels and its parent's to more (cluster_hierarchy.hpp); 0 draws the full-detail
/// triangles. Limits read: maxStorageBuffersPerShaderStage (14 needed), maxStorageBufferBindingSize
/// and maxBufferSize (the output's size), maxComputeWorkgroupsPerDimension.
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/gpu_driven/cluster_hierarchy.hpp"
#include "bindery/gpu_driven/indirect_draws.hpp"
#include "bindery/gpu_driven/mesh_pool.hpp"

#include <glm/glm.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace bindery::gpu_driven {

class DepthPyramid;
class ObjectTable;

/// The cluster hierarchies of a MeshPool's meshes on the GPU: cluster records, level records, a
/// record per mesh id, and the clusters' vertex numbers and packed triangles (the vertices stay
/// the pool's). Meshes without a hierarchy are drawn by no cluster. Not thread-safe.
class ClusterGeometry {
 public:
  /// Hierarchies of meshes of `pool` (which must outlive this object).
  ClusterGeometry(const Device& device, const MeshPool& pool, std::string label = "clusters");

  /// Adds mesh `mesh`'s hierarchy (built from the same vertices and indices the pool holds).
  /// Uploaded by the next prepare(). Throws InvalidArgument for a mesh that is not live in the
  /// pool, that has a hierarchy already, or whose hierarchy names a vertex past the mesh's.
  void add(MeshId mesh, const ClusterHierarchy& hierarchy);
  /// Uploads what add() collected (re-creating the buffers: generation() increases). Returns
  /// whether it did. Throws BufferTooLarge past maxStorageBufferBindingSize.
  bool prepare();

  /// Whether `mesh` has a hierarchy.
  bool contains(MeshId mesh) const;
  /// Whether add() took hierarchies that prepare() has not uploaded yet.
  bool needs_prepare() const { return dirty_; }
  /// Bumped by every prepare() that re-created the buffers.
  uint64_t generation() const { return generation_; }
  /// Clusters of every mesh.
  uint64_t cluster_count() const { return clusters_.size(); }
  /// Triangles of level 0 of `mesh` (0 without a hierarchy).
  uint32_t full_triangles(MeshId mesh) const;
  /// Bytes on the GPU (the four buffers).
  uint64_t bytes() const;

  /// The buffers (STORAGE): ClusterMesh per mesh id, ClusterLevelRecord, ClusterRecord, words.
  ///@{
  WGPUBuffer mesh_buffer() const { return meshes_buffer_.get(); }
  WGPUBuffer level_buffer() const { return levels_buffer_.get(); }
  WGPUBuffer cluster_buffer() const { return clusters_buffer_.get(); }
  WGPUBuffer word_buffer() const { return words_buffer_.get(); }
  ///@}
  /// The mesh pool whose meshes the hierarchies are of.
  const MeshPool& pool() const { return pool_; }

 private:
  struct MeshEntry {
    glm::vec4 sphere{0.0f};
    uint32_t first_level = 0, level_count = 0, full_triangles = 0;
  };
  const Device& device_;
  const MeshPool& pool_;
  std::string label_;
  std::vector<MeshEntry> meshes_;
  std::vector<std::byte> levels_, clusters_bytes_;
  std::vector<ClusterLevel> level_list_;
  std::vector<uint32_t> clusters_;  // per cluster its mesh (for counts)
  std::vector<uint32_t> words_;
  bool dirty_ = true;
  uint64_t generation_ = 0;
  gpu::Buffer meshes_buffer_, levels_buffer_, clusters_buffer_, words_buffer_;
};

/// Options of ClusterCulling.
struct ClusterCullingDesc {
  std::string label = "cluster culling";  ///< prefix of the buffers' labels
  /// The pixel error of the cut, >= 0 (0: full detail). The default is 1.
  float lod_error_px = 1.0f;
  /// Frustum culling per cluster (by its bounding sphere). The default is on.
  bool frustum = true;
  /// Back-facing clusters culled by their normal cone (Cluster::cone_*, cluster_faces_away()):
  /// for pipelines that cull back faces (cullMode back, frontFace ccw) and the compute rasterizer;
  /// off for a pipeline that draws both sides. The default is on.
  bool cone = true;
  /// Two-phase occlusion culling per cluster against the DepthPyramid given to the constructor
  /// (needs one): phase 1 tests a cluster against the pyramid of the last frame (seen through its
  /// view-projection) and defers what that hides to phase 2, which tests it, and the clusters of
  /// its newly visible instances, against the pyramid of this frame's phase 1. build() must then
  /// run in both phases with the pyramid built between (the Culling protocol). A cluster is
  /// culled only when its sphere's cube lies behind the farthest depth under its screen
  /// rectangle, so the image equals the one without. The default is off.
  bool occlusion = false;
  /// Triangles the output index buffer holds per phase; 0: the full-detail triangles of every
  /// object, at most 128 Mi and what maxStorageBufferBindingSize / maxBufferSize allow (12 bytes
  /// each). Clusters past it are dropped and counted (ClusterStats::dropped).
  uint64_t max_triangles = 0;
};

/// The camera terms of the cut: WebGPU clip space, world units.
struct ClusterView {
  glm::mat4 view_projection{1.0f};  ///< z in [0, 1]
  glm::vec3 eye{0.0f};              ///< camera position
  float pixels_per_unit = 1.0f;     ///< target height / 2 * projection[1][1]
  float z_near = 0.01f;             ///< the near plane's distance, > 0
  glm::uvec2 viewport{1, 1};        ///< the target's size in pixels (the compute rasterizer's split)
};

/// The frame's counts (both phases).
struct ClusterStats {
  uint32_t tested = 0;               ///< cluster-instances tested (after the level pruning)
  uint32_t visible = 0;              ///< clusters in the cut and the frustum
  uint32_t triangles_submitted = 0;  ///< triangles the draws submitted
  uint32_t dropped = 0;              ///< cluster-instances dropped for want of room
  uint32_t triangles_rasterized = 0; ///< triangles given to the compute rasterizer (ClusterRaster)
};

/// Why `device` cannot run the cluster stage (one line), or nullopt.
std::optional<std::string> cluster_culling_unavailable(const Device& device);

/// The cluster stage over the visible instances of `draws` (its entries, written by Culling in
/// CullingOutput::instance_list). All references must outlive this object.
class ClusterCulling {
 public:
  /// Throws StrategyUnavailable (cluster_culling_unavailable()), InvalidArgument for a negative or
  /// non-finite lod_error_px, BufferTooLarge.
  /// `pyramid` (may be null without desc.occlusion; InvalidArgument otherwise) must outlive it.
  ClusterCulling(const Device& device, const ObjectTable& objects, const ClusterGeometry& geometry,
                 const IndirectDraws& draws, const ClusterCullingDesc& desc = {},
                 const DepthPyramid* pyramid = nullptr);

  /// Call once per frame before recording, after ClusterGeometry::prepare(): the view, and
  /// buffers and groups re-created when the inputs grew. Returns true when group() was
  /// re-created. Throws FrameProtocol when the geometry holds hierarchies it has not uploaded
  /// (ClusterGeometry::prepare() not called since its last add()).
  bool prepare(const ClusterView& view);
  /// Sets the pixel error of the cut (>= 0, finite; InvalidArgument otherwise).
  void set_lod_error(float px);
  /// The pixel error of the cut (ClusterCullingDesc::lod_error_px, or set_lod_error()'s).
  float lod_error() const { return desc_.lod_error_px; }

  /// Records the frame's start into `pass` (the counts of ClusterStats reset).
  void begin_frame(WGPUComputePassEncoder pass) const;
  /// Records the stage for the phase's visible instances into `pass`, after the instance culling:
  /// the first call after begin_frame() records phase 1, the next phase 2.
  void build(WGPUComputePassEncoder pass) const;
  /// Draws the phase's clusters into `pass` with `pipeline` (vertex entry vs_clusters), `groups`
  /// as groups 0.. and group() after them: one drawIndexedIndirect.
  void draw(WGPURenderPassEncoder pass, WGPURenderPipeline pipeline,
            std::span<const WGPUBindGroup> groups, Counters& counters) const;

  /// The draw's bind group layout (vertex stage: slots, cluster records, words, the pool's
  /// vertex buffer: gpu_driven_draw.wgsl's group 2) and the group.
  WGPUBindGroupLayout draw_layout() const { return draw_layout_.get(); }
  /// The frame's terms (UNIFORM: shaders/cluster_records.wgsl's ClusterFrame), written by
  /// prepare(); the compute rasterizer reads the same.
  WGPUBuffer frame_buffer() const { return frame_.get(); }
  /// The draw's bind group of draw_layout() (re-created by prepare() when it returns true).
  WGPUBindGroup group() const { return draw_group_.get(); }
  /// The WGSL a vertex stage of the draw includes, for draw_layout() at group `group`: the
  /// bindings (clusterSlots, clusterRecords, clusterWords, poolVertices: the pool's vertex buffer
  /// as u32 words) and `fn cluster_vertex(index: u32) -> ClusterVertex`, which turns the draw's
  /// `@builtin(vertex_index)` into the object's id (ObjectTable) and the vertex's index in the pool
  /// (its first word at vertex * vertex_stride / 4).
  static std::string wgsl(uint32_t group);
  /// The phase's visible clusters (STORAGE | COPY_SRC): a vec4u each, (object id, cluster index,
  /// first output triangle, 0), the cluster index counting every mesh's clusters in the order
  /// ClusterGeometry::add() took them; the first ClusterStats::visible of the last phase are
  /// valid (replaced when the object table grows).
  WGPUBuffer visible_clusters_buffer() const { return slots_.get(); }
  /// Triangles the output holds per phase.
  uint64_t max_triangles() const { return max_triangles_; }

  /// Sends the visible clusters that are small on screen to the compute rasterizer (ClusterRaster)
  /// instead of the index buffer: a cluster goes there when the box bounding the projection of
  /// its sphere's cube lies in front of the near plane, spans at most 64 pixels a side, and has at
  /// most `max_area_px` pixels of that box per triangle; 0 (the default) sends none. Clusters of
  /// objects whose material has bit 0 set in `material_flags` (indexed by the object's material;
  /// alpha-masked materials) always stay on the hardware path. Throws InvalidArgument for a
  /// negative or non-finite area.
  void set_compute_raster(float max_area_px, std::span<const uint32_t> material_flags);
  /// The area per triangle of set_compute_raster() (0: none).
  float compute_raster_area() const { return raster_max_area_px_; }
  /// The clusters of the compute rasterizer (STORAGE | COPY_SRC): (object id, cluster index)
  /// each, u32 x 2;
  /// dispatched by raster_dispatch() with a workgroup each.
  WGPUBuffer raster_clusters_buffer() const { return raster_slots_.get(); }
  /// The phase's count of raster_clusters_buffer() entries is where ClusterCulling's counts keep
  /// it; this buffer (STORAGE, u32 words) holds it at word 3.
  WGPUBuffer counts_buffer() const { return counts_.get(); }
  /// Records the compute rasterizer's dispatch into `pass` (its pipeline and groups set): a grid
  /// of at most 65,535 x N workgroups, one per raster cluster (linear index x + y * 65,535),
  /// after build().
  void raster_dispatch(WGPUComputePassEncoder pass) const;
  /// Records the resolve's draw into `pass` (its pipeline and groups set): a DrawIndirect of 6
  /// vertices, one instance when the phase sent any cluster to compute, none otherwise. The
  /// vertex stage reads the phase's compute clusters' screen bound from counts_buffer() (u32
  /// words 9..12: min x, min y, max x, max y in pixels) and covers that rectangle.
  void resolve_draw(WGPURenderPassEncoder pass) const;

  /// Bytes copy_stats() copies.
  static constexpr uint64_t kStatsBytes = 20;
  /// Records copies of the frame's counts into `dst` at `offset` (after the frame's passes).
  void copy_stats(WGPUCommandEncoder encoder, WGPUBuffer dst, uint64_t offset) const;
  /// The counts from the kStatsBytes bytes copy_stats() copied.
  static ClusterStats read_stats(const std::byte* bytes);

 private:
  void create_buffers();
  void create_groups();

  const Device& device_;
  const ObjectTable& objects_;
  const ClusterGeometry& geometry_;
  const IndirectDraws& draws_;
  ClusterCullingDesc desc_;
  const DepthPyramid* pyramid_;
  glm::mat4 previous_view_projection_{1.0f};
  glm::uvec2 previous_viewport_{0, 0};
  bool have_previous_ = false;
  gpu::Texture dummy_pyramid_;
  gpu::TextureView dummy_view_;
  uint64_t max_triangles_ = 0, max_slots_ = 0, max_chunks_ = 0, max_raster_slots_ = 0;
  float raster_max_area_px_ = 0.0f;
  bool material_flags_changed_ = false;
  uint32_t object_capacity_ = 0;
  uint64_t geometry_generation_ = UINT64_MAX, objects_generation_ = UINT64_MAX;
  WGPUBuffer entries_ = nullptr, pool_vertices_ = nullptr;
  std::vector<std::byte> frame_bytes_;
  gpu::Buffer frame_, chunks_, slots_, counts_, indices_, indirect_, raster_slots_,
      material_flags_;
  gpu::ShaderModule module_;
  gpu::BindGroupLayout layout_, indirect_layout_, draw_layout_;
  gpu::PipelineLayout pipeline_layout_, indirect_pipeline_layout_;
  gpu::ComputePipeline begin_frame_, begin_phase_, instances_, begin_test_, test_, finalize_,
      emit_;
  gpu::BindGroup group_[2], indirect_group_, draw_group_;  // group_: per phase
  gpu::Buffer phase_[2];                                   // ClusterPhase: 1, 2
  mutable uint32_t builds_ = 0;  // build() calls since begin_frame(): the phase recorded
};

}  // namespace bindery::gpu_driven
