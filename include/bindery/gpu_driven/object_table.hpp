// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/object_table.hpp — GPU-resident per-object records (transform, mesh,
/// material, flags) that the application moves, uploaded only where they changed (issue 20,
/// section 1 "Object table").
///
/// A frame:
///   table.set_transform(id, world);           // any number of objects, in any order
///   table.flush(encoder);                      // before any pass that reads table.buffer()
///   ... finish the encoder, device.submit ...
///   table.after_submit();
///
/// flush() uploads nothing when nothing changed (and does no per-object work then); otherwise the
/// changed records are packed into a mapped StagingRing block, copied into a scatter-source
/// storage buffer and written into the table by one compute dispatch (shaders/object_scatter.wgsl),
/// or, when more than ObjectTableDesc::whole_copy_share of the capacity changed, every record goes
/// up in one copyBufferToBuffer. Nothing the GPU may still read is written by the CPU: the staging
/// blocks are only handed out once their previous copy finished, and the scatter source and the
/// table are only written by commands recorded in the frame's encoder (queue-ordered), so any
/// number of frames may be in flight.
///
/// Measured CPU cost of set_transform + flush per moved object: bench/object_table_bench.cpp
/// (`build/bench/object_table_bench --benchmark_counters_tabular=true`, lavapipe, one run;
/// docs/BENCHMARKS.md "Object table: CPU per moved object"); ObjectTableDesc::whole_copy_share
/// gives the figures and the threshold they set. About 13-25 ns when most objects move (in id
/// order); 40-250 ns when a scattered 0.1-10% move in a large table (a cache miss per record).
///
/// Limits read: maxStorageBufferBindingSize and maxBufferSize (the table's largest capacity:
/// BufferTooLarge), maxComputeWorkgroupsPerDimension (the scatter's grid).
/// Counters (Device::counters()): buffers_created / buffer_bytes_created (table, scatter source,
/// staging), copy_buffer_to_buffer and bytes_uploaded (every staging copy, scatter ids included),
/// map_async (staging blocks).
#pragma once

#include "bindery/core/gpu.hpp"
#include "bindery/data/staging_ring.hpp"

#include <glm/glm.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bindery {
class Device;
}

namespace bindery::gpu_driven {

/// An object's index in the ObjectTable (its record's index in buffer()); ids of removed objects
/// are reused by later add() calls.
using ObjectId = uint32_t;

/// One object's GPU record (WGSL struct ObjectRecord of ObjectTable::wgsl(), 64 bytes): the world
/// matrix as three rows of a 3x4 affine matrix (row r = (m[0][r], m[1][r], m[2][r], m[3][r]) of
/// the glm column-major mat4; the fourth row is (0, 0, 0, 1)), mesh id, material id, flags
/// (kObjectLive, the pipeline index in bits 8..15) and a value the application chooses.
struct ObjectRecord {
  glm::vec4 world_rows[3];  ///< rows 0..2 of the world matrix
  uint32_t mesh = 0;        ///< the object's mesh (an id of the application's or the mesh pool's)
  uint32_t material = 0;    ///< the object's material (an index into the material array)
  uint32_t flags = 0;       ///< kObjectLive | pipeline << kObjectPipelineShift; 0 when removed
  uint32_t user = 0;        ///< free for the application (0 unless it writes the record itself)
};

/// flags bit 0: the slot holds a live object (removed and never-used slots: flags 0).
inline constexpr uint32_t kObjectLive = 1u;
/// flags bits 8..15 hold the object's pipeline index (bins are (pipeline, mesh)).
inline constexpr uint32_t kObjectPipelineShift = 8u;
/// Mask of the pipeline index in flags.
inline constexpr uint32_t kObjectPipelineMask = 0xff00u;
/// The highest pipeline index a record can hold (flags bits 8..15).
inline constexpr uint32_t kMaxObjectPipeline = 255u;
/// Bytes of one ObjectRecord on the GPU (SizeOf of the WGSL struct).
inline constexpr uint64_t kObjectRecordBytes = 64;

/// The three rows of `world`'s 3x4 affine part, as ObjectRecord::world_rows holds them.
void world_to_rows(const glm::mat4& world, glm::vec4 rows[3]);

/// Workgroups {x, y} of a 2D compute dispatch.
struct DispatchGrid {
  uint32_t x = 0;  ///< workgroups per row (<= the per-dimension limit)
  uint32_t y = 0;  ///< rows
};

/// The scatter's grid for `records` changed records: 64-wide workgroups (object_scatter.wgsl) in
/// rows of at most `max_workgroups_per_dimension` (the device's maxComputeWorkgroupsPerDimension),
/// a second dimension for the rest; {0, 0} for no records. The shader rebuilds the index as
/// id.x + id.y * x * 64 and skips indices past the count. y may exceed the limit only past
/// 64 * limit^2 records (flush() then throws InvalidArgument).
DispatchGrid scatter_grid(uint32_t records, uint32_t max_workgroups_per_dimension);

/// Options for ObjectTable.
struct ObjectTableDesc {
  std::string label = "object table";  ///< prefix of the table's buffer labels
  /// Records the first table buffer holds (>= 1); it doubles when add() needs more.
  uint32_t initial_capacity = 1024;
  /// When more than this share of the records in use changed since the last flush, flush()
  /// uploads every record in one copy instead of scattering ("in use": every id handed out so far,
  /// removed ones included, which is what the whole copy uploads; at most the capacity).
  /// 0: always a whole copy; >= 1: never.
  ///
  /// Measured (CPU ns per moved object, set_transform + flush, one thread, lavapipe on a shared
  /// 2-core AMD EPYC, one run at commit 866dc27 of
  /// `build/bench/object_table_bench --benchmark_counters_tabular=true`; docs/BENCHMARKS.md
  /// "Object table: CPU per moved object"), scatter / whole copy:
  ///   moved      1k objects   10k          100k         1M
  ///   10%        60 / 44      37 / 49      90 / 155     167 / 248
  ///   25%        35 / 29      24 / 31      117 / 96     78 / 106
  ///   50%        25 / 19      24 / 19      43 / 31      32 / 40
  ///   100%       24 / 13      25 / 14      23 / 17      18 / 25
  /// The whole copy wins from 50% moved at up to 100k objects, neither clearly at 25%, the scatter
  /// below; at 1M the scatter stays ahead on the CPU (and it uploads ~68 bytes per moved record
  /// instead of 64 per record of the table, which favours it on the GPU side too). Hence 0.4.
  float whole_copy_share = 0.4f;
  /// How many flush() calls that upload may follow each other without an after_submit() (>= 1):
  /// one per frame in flight is the protocol (flush, submit, after_submit), a few per submit are
  /// allowed; the next one throws FrameProtocol naming the table and the count.
  uint32_t max_flushes_without_after_submit = 8;
};

/// What one ObjectTable::flush() uploaded (bindery::FlushStats is BufferArena::flush()'s).
struct ObjectFlushStats {
  uint32_t records_uploaded = 0;  ///< records copied from staging (changed ones, or all on a whole copy)
  uint64_t bytes = 0;             ///< record bytes copied: records_uploaded * kObjectRecordBytes
  uint64_t index_bytes = 0;       ///< scatter ids copied besides (16-byte header + 4 per record)
  uint32_t scatter_dispatches = 0;  ///< compute dispatches recorded (0 or 1)
  bool whole_copy = false;          ///< every record went up in one copy
  bool grew = false;                ///< buffer() was replaced by a larger one (generation() bumped)
};

/// GPU-resident object records with ids from a free list, uploaded where they changed. Not
/// thread-safe; move-only (the device must outlive it).
class ObjectTable {
 public:
  /// A table of desc.initial_capacity records on `device`, every record zero (flags 0). Builds the
  /// scatter pipeline and checks ObjectRecord against the reflected WGSL struct (StructMismatch).
  /// Throws InvalidArgument when initial_capacity or max_flushes_without_after_submit is 0 or
  /// whole_copy_share is negative or NaN,
  /// BufferTooLarge when the capacity exceeds maxStorageBufferBindingSize or maxBufferSize.
  ObjectTable(const Device& device, const ObjectTableDesc& desc = {});
  ~ObjectTable();
  /// Moves the table; the moved-from table must not be used again.
  ObjectTable(ObjectTable&&) noexcept;
  /// Releases this table, then takes over the other one.
  ObjectTable& operator=(ObjectTable&&) noexcept;

  /// A new live object (id from the free list, else id_end()); uploaded at the next flush. Throws
  /// InvalidArgument for a non-finite matrix or a pipeline above kMaxObjectPipeline,
  /// BufferTooLarge when the table would outgrow maxStorageBufferBindingSize or maxBufferSize.
  ObjectId add(const glm::mat4& world, uint32_t mesh, uint32_t material, uint32_t pipeline = 0);
  /// Moves object `id`. InvalidArgument (naming the id) when it is not live or the matrix is not
  /// finite. No allocation, no lookup: a dirty bit per record and a list of dirty ids.
  void set_transform(ObjectId id, const glm::mat4& world);
  /// Changes object `id`'s material. InvalidArgument (naming the id) when it is not live.
  void set_material(ObjectId id, uint32_t material);
  /// Changes object `id`'s mesh. InvalidArgument (naming the id) when it is not live.
  void set_mesh(ObjectId id, uint32_t mesh);
  /// Removes object `id`: its record becomes all zero (flags 0) on the GPU at the next flush and
  /// the id is reused by a later add(). InvalidArgument (naming the id) when it is not live.
  void remove(ObjectId id);
  /// Whether `id` is a live object.
  bool contains(ObjectId id) const;
  /// The CPU copy of object `id`'s record (valid until the next add()). InvalidArgument when `id`
  /// is not live.
  const ObjectRecord& record(ObjectId id) const;
  /// Live objects.
  uint32_t size() const;
  /// One past the highest live id: culling dispatches cover [0, id_end()) (removed slots in it
  /// have flags 0).
  uint32_t id_end() const;
  /// Records buffer() holds. add() past it makes the next flush() grow the buffer.
  uint32_t capacity() const;

  /// Records this frame's upload into `encoder` (before any pass that reads buffer()): nothing when
  /// nothing changed (no per-object CPU work at all); else the changed records packed into a
  /// mapped StagingRing block, copied into a scatter-source storage buffer and scattered by one
  /// compute dispatch; or one whole copy when more than whole_copy_share of the capacity changed.
  /// When add() went past capacity(), first a buffer of twice the capacity (repeated until the ids
  /// fit, at most the limits) with the old records copied over, and generation() bumped.
  /// Throws FrameProtocol when desc.max_flushes_without_after_submit flushes have uploaded since
  /// the last after_submit() (each one holds its staging block until after_submit() hands it
  /// back: a forgotten after_submit() grows staging memory every frame).
  ObjectFlushStats flush(WGPUCommandEncoder encoder);
  /// Call after the queue submit that carries flush()'s commands: starts the staging blocks' maps
  /// (they return to the ring when the GPU is done) and drops buffers replaced by growth.
  void after_submit();
  /// The table: STORAGE | COPY_DST | COPY_SRC, capacity() records (lent; replaced on growth).
  WGPUBuffer buffer() const;
  /// Increases each time buffer() is replaced (growth): re-create bind groups that use it then.
  uint64_t generation() const;
  /// The staging ring's state (blocks, free, in use), for reports and tests.
  StagingRingStats staging_stats() const;

  /// WGSL declaration of struct ObjectRecord, the flag constants (kObjectLive,
  /// kObjectPipelineShift, kObjectPipelineMask) and helpers object_is_live(), object_pipeline(),
  /// object_world() (the 4x4 world matrix), object_transform() (an object-space point to world
  /// space, without building the matrix) and object_max_scale() (the largest column norm: how
  /// much a radius grows), for shaders to include (shaders/object_record.wgsl).
  static std::string_view wgsl();

  struct State;  ///< opaque implementation state

 private:
  std::unique_ptr<State> s_;
};

}  // namespace bindery::gpu_driven
