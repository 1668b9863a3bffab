// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/mesh_pool.hpp — any number of meshes in one vertex buffer and one index
/// buffer (one pool per vertex layout), added and removed at any time, each drawn with
/// drawIndexed(index_count, ..., first_index, base_vertex) from the pool's buffers, plus a
/// GPU-resident table of every mesh's draw arguments and bounds for culling and indirect draws.
///
/// Space: one OffsetAllocator over vertices and one over indices (best fit, neighbours coalesced
/// on remove: a removed mesh's ranges are reused by later adds). Ids come from a free list (the
/// lowest free id first), so id_capacity() stays as small as the most meshes ever live at once.
///
/// Uploads go through Device::write_buffer (queue.writeBuffer: queue-ordered, so work submitted
/// before an add or remove keeps reading what it read; counted in Counters::write_buffer_calls
/// and bytes_uploaded).
///
/// Growth policy: when an add does not fit the free ranges of a buffer, that buffer is replaced
/// by one of max(2 x capacity, capacity needed) units (the needed capacity counts a free range at
/// the end of the old buffer), at most what the device's limits allow: bytes <= min(maxBufferSize,
/// maxStorageBufferBindingSize) of Device::limits() (the buffers are bound whole as storage),
/// vertices <= 2^31 (base_vertex is an int32) and indices and ids < 2^32. The old contents are
/// copied with copyBufferToBuffer in a command buffer the pool submits at once, then the old
/// buffer is released (WebGPU implementations keep it alive for work already submitted). Live
/// meshes keep their offsets; generation() increases, so bind groups over the old buffers must be
/// re-created. Buffers never shrink. The mesh table grows the same way, by ids.
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/gpu_driven/offset_allocator.hpp"
#include "bindery/data/scene_data.hpp"
#include "bindery/wgsl/struct_check.hpp"

#include <glm/glm.hpp>

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bindery::gpu_driven {

/// A mesh's index in the pool (and its record's index in mesh_table()).
using MeshId = uint32_t;

/// Object-space bounds of a mesh: an axis-aligned box and a bounding sphere enclosing it (center
/// xyz, radius w: the box's center and half its diagonal).
struct MeshBounds {
  glm::vec3 box_min{0.0f};  ///< smallest x, y, z of the mesh's positions
  glm::vec3 box_max{0.0f};  ///< largest x, y, z of the mesh's positions
  glm::vec4 sphere{0.0f};   ///< center (xyz) and radius (w), enclosing the box
};

/// Where a mesh lives in the pool: the arguments of drawIndexed for it (indices into
/// MeshPool::index_buffer(), read as uint32), and its bounds.
struct MeshRange {
  uint32_t first_index = 0;  ///< firstIndex: the mesh's first index, in indices
  uint32_t index_count = 0;  ///< indexCount: 3 per triangle
  int32_t base_vertex = 0;   ///< baseVertex: the mesh's first vertex, in vertices
  uint32_t vertex_count = 0; ///< vertices the mesh owns from base_vertex on
  MeshBounds bounds;         ///< object-space bounds
};

/// How a MeshPool starts.
struct MeshPoolDesc {
  std::string label = "mesh pool";  ///< prefix of the buffers' labels and of error messages
  /// Bytes per vertex (bindery::Vertex: 36); one pool per vertex layout. A multiple of 4
  /// (queue.writeBuffer and copyBufferToBuffer move multiples of 4 bytes), at least 12 (the
  /// float32x3 position).
  uint32_t vertex_stride = 36;
  uint64_t initial_vertices = 1 << 16;  ///< capacity in vertices, >= 1
  uint64_t initial_indices = 3 << 16;   ///< capacity in uint32 indices, >= 1
  uint32_t initial_ids = 1024;          ///< capacity of mesh_table() in records, >= 1
  /// Whether shaders may read the vertex and index buffers as storage (usage STORAGE). Then a
  /// buffer holds at most maxStorageBufferBindingSize bytes; without, maxBufferSize (what a
  /// pool that is only drawn from can take: vertex and index usage alone).
  bool storage_binding = true;
  /// Whether add() reorders each mesh's triangles for the GPU's post-transform vertex cache
  /// (meshopt_optimizeVertexCache: Tom Forsyth's algorithm as meshoptimizer tunes it) before
  /// uploading them. true (the default): a mesh whose triangles come in a cache-hostile order
  /// (shuffled: about 3 vertices shaded per triangle in a 16-entry FIFO; a subdivided sphere in
  /// subdivision order) is drawn with about 0.7 (issue 28: on the H200 such a sphere cost 2.69 ns
  /// a triangle against 1.30 for a grid in row order). Only the order of whole triangles in the
  /// index range changes: the vertices (their bytes and numbering), the set of triangles, each
  /// triangle's three indices and their rotation (so its winding, hence culling and the image)
  /// stay as given; MeshRange and the bounds are the same either way. Cost: CPU time in add(),
  /// about linear in the mesh, on the calling thread (on an AMD EPYC core with bookworm's
  /// meshoptimizer 0.18: 60-90 ns a triangle for a grid in row order, 110-300 for one shuffled,
  /// so about 0.2-0.6 s for 2 million triangles), and temporary memory freed before add()
  /// returns (about 9 bytes per index and 20 per vertex). false: the indices are uploaded byte
  /// for byte as given (the source order: for meshes already ordered, or to measure the order).
  bool optimize_vertex_cache = true;
};

/// GPU growth statistics and occupancy, for reports and tests.
struct MeshPoolStats {
  uint32_t meshes = 0;           ///< live meshes
  uint64_t vertices_used = 0;    ///< vertices inside live meshes
  uint64_t vertex_capacity = 0;  ///< vertices the vertex buffer holds
  uint64_t indices_used = 0;     ///< indices inside live meshes
  uint64_t index_capacity = 0;   ///< indices the index buffer holds
  uint32_t growths = 0;          ///< buffers replaced by larger ones (vertex, index, table)
  uint64_t bytes_uploaded = 0;   ///< bytes written with queue.writeBuffer (copies not counted)
};

/// C++ mirror of WGSL `MeshRecord` (MeshPool::wgsl()), one per id in MeshPool::mesh_table();
/// checked against the reflected WGSL struct when a MeshPool is created. 64 bytes.
struct MeshRecord {
  glm::vec4 sphere{0.0f};    ///< bounding sphere: center xyz, radius w (object space)
  glm::vec4 boxMin{0.0f};    ///< box corner with the smallest x, y, z (w = 0)
  glm::vec4 boxMax{0.0f};    ///< box corner with the largest x, y, z (w = 0)
  uint32_t indexCount = 0;   ///< MeshRange::index_count; 0 for a removed (or unused) id
  uint32_t firstIndex = 0;   ///< MeshRange::first_index
  int32_t baseVertex = 0;    ///< MeshRange::base_vertex
  uint32_t vertexCount = 0;  ///< MeshRange::vertex_count
};
/// @cond INTERNAL
// The fields check_struct_matches<MeshRecord>() compares with the reflected WGSL struct.
BINDERY_WGSL_STRUCT_CHECK(MeshRecord, sphere, boxMin, boxMax, indexCount, firstIndex, baseVertex,
                          vertexCount);
/// @endcond

/// Meshes packed into one vertex buffer and one uint32 index buffer, with their draw arguments and
/// bounds in a storage buffer. Not thread-safe. Move-only. Reads Device::limits() maxBufferSize
/// and maxStorageBufferBindingSize (growth bound).
class MeshPool {
 public:
  /// Creates the three buffers at desc's capacities. Throws InvalidArgument for a bad desc
  /// (stride not a multiple of 4 or below 12, a capacity of 0), BufferTooLarge when an initial
  /// capacity exceeds the growth bound (naming the limit), StructMismatch if MeshRecord no longer
  /// matches wgsl().
  MeshPool(const Device& device, const MeshPoolDesc& desc = {});
  MeshPool(MeshPool&&) noexcept;             ///< moves the pool; the moved-from one is empty
  MeshPool& operator=(MeshPool&&) noexcept;  ///< releases this pool's buffers, takes `other`'s
  ~MeshPool();                               ///< releases the buffers

  /// Adds a mesh: `vertices` is vertex_count x vertex_stride bytes whose first 12 bytes per vertex
  /// are the float32x3 position (the bounds are computed from them), `indices` a triangle list of
  /// uint32 indices relative to the mesh's first vertex, uploaded with its triangles reordered for
  /// the vertex cache unless MeshPoolDesc::optimize_vertex_cache is false (the vertices are
  /// uploaded as given either way). Grows a buffer when needed (see the
  /// growth policy above). Returns the lowest free id. Throws InvalidArgument (empty vertices or
  /// indices, a byte count not a multiple of vertex_stride, an index count not a multiple of 3, an
  /// index >= vertex_count: the message names the mesh, the position and the value),
  /// BufferTooLarge when the pool would have to grow past the bound (naming the limit).
  MeshId add(std::span<const std::byte> vertices, std::span<const uint32_t> indices,
             std::string_view name = {});
  /// Adds a bindery::Mesh (bindery/data/scene_data.hpp): its vertices and indices, and as the box
  /// its own bounds_min / bounds_max (the sphere: the box's center and half diagonal) when they
  /// are set, else the box of its positions. Bounds are "not set" when both corners are (0, 0, 0),
  /// Mesh's default. Set bounds must contain every vertex position, each coordinate within
  /// 1e-5 x (1 + the box's largest extent) of the box (a box that misses vertices makes culling
  /// drop visible objects): MeshBounds naming the mesh, the first vertex outside and the box, also
  /// for a corner min > max or a non-finite corner. Throws InvalidArgument when vertex_stride is
  /// not sizeof(Vertex) (36), else as add() above.
  MeshId add(const Mesh& mesh);
  /// Removes a mesh: its ranges become free, its record's index_count 0, its id free. Throws
  /// InvalidArgument for an id that is not live (never added, or removed).
  void remove(MeshId id);

  /// The live mesh `id`'s draw arguments and bounds (valid until it is removed). Throws
  /// InvalidArgument for an id that is not live.
  const MeshRange& range(MeshId id) const;
  /// Whether `id` is a live mesh.
  bool contains(MeshId id) const;
  /// One past the highest id ever handed out: the records of mesh_table() that are meaningful.
  uint32_t id_capacity() const;

  /// The vertex buffer (VERTEX | COPY_DST | COPY_SRC | STORAGE), vertex_stride bytes per vertex
  /// (lent; replaced on growth: see generation()).
  WGPUBuffer vertex_buffer() const;
  /// The index buffer (INDEX | COPY_DST | COPY_SRC | STORAGE) of uint32 indices (lent; replaced
  /// on growth).
  WGPUBuffer index_buffer() const;
  /// The mesh table (STORAGE | COPY_DST | COPY_SRC): MeshRecord per id, at least id_capacity()
  /// of them; removed and unused ids have index_count 0 (lent; replaced on growth).
  WGPUBuffer mesh_table() const;
  /// Size of mesh_table() in bytes (its records: bytes / sizeof(MeshRecord)).
  uint64_t mesh_table_size() const;
  /// Increases whenever vertex_buffer(), index_buffer() or mesh_table() is replaced (growth):
  /// re-create bind groups over them then.
  uint64_t generation() const;
  /// Bytes per vertex (MeshPoolDesc::vertex_stride).
  uint32_t vertex_stride() const;
  /// MeshPoolDesc::optimize_vertex_cache: whether add() reorders triangles for the vertex cache.
  bool optimizes_vertex_cache() const;
  /// Occupancy and growth counts.
  MeshPoolStats stats() const;

  /// The WGSL declaration of `struct MeshRecord` matching mesh_table()'s elements, for shaders to
  /// include (e.g. `@group(0) @binding(0) var<storage, read> meshes: array<MeshRecord>;`).
  static std::string_view wgsl();

 private:
  struct Slot {
    MeshRange range;
    bool live = false;
  };
  struct GrowableBuffer {
    gpu::Buffer buffer;
    OffsetAllocator allocator{0};
    uint64_t unit_bytes = 0;   // bytes per unit
    uint64_t max_units = 0;    // growth bound
    std::string bound;         // the limit that sets max_units, for messages
    WGPUBufferUsage usage = WGPUBufferUsage_None;
    std::string label;
  };

  uint64_t allocate_in(GrowableBuffer& b, uint64_t units);
  void grow(GrowableBuffer& b, uint64_t needed_units);
  void replace_buffer(gpu::Buffer& buffer, const std::string& label, uint64_t old_bytes,
                      uint64_t new_bytes, WGPUBufferUsage usage);
  MeshId take_id();
  void write_record(MeshId id);
  void write(WGPUBuffer buffer, uint64_t offset, const void* data, uint64_t size);
  std::string describe_add(std::string_view name) const;
  void validate(std::span<const std::byte> vertices, std::span<const uint32_t> indices,
                std::string_view name) const;
  MeshId add_checked(std::span<const std::byte> vertices, std::span<const uint32_t> indices,
                     const MeshBounds& bounds);

  const Device* device_ = nullptr;
  std::string label_;
  uint32_t vertex_stride_ = 0;
  bool optimize_vertex_cache_ = true;
  GrowableBuffer vertices_, indices_;
  gpu::Buffer table_;
  uint64_t table_records_ = 0;
  uint64_t max_records_ = 0;
  uint32_t record_stride_ = 0;
  std::vector<Slot> slots_;
  std::set<MeshId> free_ids_;
  uint32_t live_ = 0;
  uint64_t generation_ = 0;
  uint32_t growths_ = 0;
  uint64_t bytes_uploaded_ = 0;
};

/// The bounds of a box: the box itself and the sphere at its center with half its diagonal as
/// radius (what the GPU-culling strategies test against).
MeshBounds bounds_of_box(glm::vec3 box_min, glm::vec3 box_max);

}  // namespace bindery::gpu_driven
