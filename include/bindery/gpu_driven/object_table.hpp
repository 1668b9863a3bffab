// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/object_table.hpp — GPU-resident per-object records (transform, mesh,
/// material, flags) that the application moves, uploaded only where they changed (issue 20,
/// section 1 "Object table").
///
/// A frame:
///   table.set_transform(id, world);           // any number of objects, in any order, from any
///                                              // number of threads (see "Threads" below)
///   gpu::CommandEncoder encoder = gpu::CommandEncoder::acquire(
///       wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
///   table.flush(encoder.get());                // before any pass that reads table.buffer()
///   ... finish the encoder, device.submit ...
///   table.after_submit();
/// (To check what the GPU holds, e.g. in a test: read_back_buffer() of
/// bindery/headless/offscreen.hpp on table.buffer(), kObjectRecordBytes per id.)
///
/// Write path (issue 30): the CPU keeps no image of the table. Per id it keeps one state byte
/// (live, what is staged this frame, a 5-bit frame count: 1 MB at a million ids, the only per-id
/// data set_transform reads), the id's staging slot (4 bytes, written by its first change of a
/// frame, read by a second one) and its mesh, material and flags (12 bytes, read by set_material,
/// set_mesh and meta(), never by set_transform). The first change of an id since the last flush
/// claims a slot in mapped staging: one 64-byte line holding the three rows, the id and what goes
/// up (the rows, the meta, or both), written with one full-line store, so a moved object is 64
/// bytes written once; a second write of the id before the flush lands in the same slot, so each
/// changed id is uploaded once, with its last value. Slots are claimed in chunks (StagingRing
/// blocks; chunks of 64 slots at a frame's start, doubling every second claim up to 1,024, one
/// atomic add each).
/// flush() records one copy per staging block (block b holds 4096 << b slots, so F changed
/// records take O(log F) blocks; block 0 begins with a 256-byte header holding the count and the
/// ranges of slots writer threads left unused, which the scatter skips) into the
/// scatter source, then one compute dispatch (shaders/object_scatter.wgsl) writes them into the
/// table: its cost does not depend on the table's size, and it uploads nothing (and does no
/// per-object work) when nothing changed. There is no whole-table copy: with the records already
/// packed in staging, the scatter is one pass whatever share moved (measured in
/// docs/BENCHMARKS.md). Staging is write-only for the CPU (on a discrete GPU it is usually
/// write-combined memory, very slow to read back). Frames in
/// flight: the blocks writers fill are the ones after_submit() mapped for the next frame (as many
/// as the last frame used); writes past them, or before after_submit(), go to heap blocks that
/// flush() copies into staging. Nothing the GPU may still read is written by the CPU: staging
/// blocks are only handed out once their previous copy finished, and the scatter source and the
/// table are only written by commands recorded in the frame's encoder (queue-ordered), so any
/// number of frames may be in flight.
///
/// Threads: set_transform(), set_transforms(), set_material() and set_mesh() may be called from
/// any number of threads at once between two flushes, each id from one thread at a time (calls
/// for the same id from two threads must be ordered, as the tasks of a parallel loop over
/// disjoint ids are; a write of an id racing another write of it is a data race). No lock is
/// taken per object: each thread claims its chunks with one atomic add (a thread-local writer,
/// registered once per thread and table under a mutex); a thread that needs a staging block
/// nobody reserved takes the mutex once per block. Everything else (add, remove, flush,
/// after_submit, contains, meta, size, the constructor and destructor) is for one thread at a
/// time, with no writer running, and the writers' calls must happen-before the flush (joined
/// threads, a finished parallel loop). Each writer thread but the one whose chunk is the last
/// claimed may leave claimed slots unused: at most 1,023, and at most 63 plus half as many as it
/// used; they are uploaded and skipped by the scatter (ObjectFlushStats::unused_slots), named as
/// ranges in the header (past 31 writers, by id words zeroed in staging). A writer no thread
/// used for three uploading flushes is freed for later threads (threads may come and go).
///
/// Measured CPU cost per moved object: bench/object_table_bench.cpp (docs/BENCHMARKS.md "Object
/// table: CPU per moved object").
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
#include <span>
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
  /// Kept for source compatibility and ignored since issue 30 (checked: >= 0): there is no
  /// whole-table copy, because the CPU keeps no image of the table; the scatter of the records
  /// packed in staging is one pass whatever share moved (docs/BENCHMARKS.md "Object table: CPU
  /// per moved object" has the measurement that replaced the threshold).
  float whole_copy_share = 0.4f;
  /// How many flush() calls that upload may follow each other without an after_submit() (>= 1):
  /// one per frame in flight is the protocol (flush, submit, after_submit), a few per submit are
  /// allowed; the next one throws FrameProtocol naming the table and the count.
  uint32_t max_flushes_without_after_submit = 8;
};

/// What one ObjectTable::flush() uploaded (bindery::FlushStats is BufferArena::flush()'s).
struct ObjectFlushStats {
  /// Slots copied from staging: one per id changed since the last flush, plus unused_slots.
  uint32_t records_uploaded = 0;
  uint64_t bytes = 0;             ///< slot bytes copied: records_uploaded * 64 (ids inside)
  uint64_t index_bytes = 0;       ///< bytes copied besides: the 256-byte header (count, skips)
  uint32_t scatter_dispatches = 0;  ///< compute dispatches recorded (0 or 1)
  /// Slots among records_uploaded that writer threads claimed and left unused (skipped by the
  /// scatter): per writer thread but the last one at most 1,023 and at most 63 plus half as many
  /// as it used; 0 with one thread.
  uint32_t unused_slots = 0;
  bool whole_copy = false;          ///< always false since issue 30 (no whole-table copy)
  bool grew = false;                ///< buffer() was replaced by a larger one (generation() bumped)
};

/// What the CPU keeps of one object: its record without the transform (ObjectTable::meta()).
struct ObjectMeta {
  uint32_t mesh = 0;      ///< ObjectRecord::mesh
  uint32_t material = 0;  ///< ObjectRecord::material
  uint32_t flags = 0;     ///< ObjectRecord::flags
  uint32_t user = 0;      ///< ObjectRecord::user
};

/// GPU-resident object records with ids from a free list, uploaded where they changed.
/// set_transform, set_material and set_mesh may be called from many threads at once (see the
/// file comment, "Threads"); the rest from one thread. Move-only (the device must outlive it).
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
  /// InvalidArgument for a non-finite matrix, one whose last row is not exactly (0, 0, 0, 1), or
  /// a pipeline above kMaxObjectPipeline,
  /// BufferTooLarge when the table would outgrow maxStorageBufferBindingSize or maxBufferSize.
  ObjectId add(const glm::mat4& world, uint32_t mesh, uint32_t material, uint32_t pipeline = 0);
  /// Moves object `id`: writes its rows once into this frame's mapped staging (the same slot
  /// again when `id` already changed since the last flush). Thread-safe for distinct ids (file
  /// comment, "Threads"); no lock, one atomic add per chunk of 64 to 1,024 newly changed ids per
  /// thread.
  /// InvalidArgument (naming the id) when it is not live or the matrix is not finite or not
  /// affine (last row exactly (0, 0, 0, 1)).
  void set_transform(ObjectId id, const glm::mat4& world);
  /// set_transform(ids[i], worlds[i]) for every i, with the per-id state and slot of the ids 16
  /// ahead prefetched: scattered ids in a large table then cost a memory access each that overlaps the
  /// others instead of a cache miss in turn (docs/BENCHMARKS.md). Thread-safe like
  /// set_transform(). InvalidArgument when the spans' sizes differ, or as set_transform() for the
  /// first id that is not live or whose matrix is not finite or not affine (the ones before it
  /// are staged).
  void set_transforms(std::span<const ObjectId> ids, std::span<const glm::mat4> worlds);
  /// Changes object `id`'s material (the transform on the GPU stays unless set_transform() moves
  /// it too). Thread-safe like set_transform(). InvalidArgument (naming the id) when not live.
  void set_material(ObjectId id, uint32_t material);
  /// Changes object `id`'s mesh, like set_material(). InvalidArgument (naming the id) when it is
  /// not live.
  void set_mesh(ObjectId id, uint32_t mesh);
  /// Removes object `id`: its record becomes all zero (flags 0) on the GPU at the next flush and
  /// the id is reused by a later add(). InvalidArgument (naming the id) when it is not live.
  void remove(ObjectId id);
  /// Whether `id` is a live object.
  bool contains(ObjectId id) const;
  /// Object `id`'s mesh, material, flags and user value (the CPU keeps no transforms: the GPU
  /// record has them). InvalidArgument when `id` is not live.
  ObjectMeta meta(ObjectId id) const;
  /// Live objects.
  uint32_t size() const;
  /// One past the highest live id: culling dispatches cover [0, id_end()) (removed slots in it
  /// have flags 0).
  uint32_t id_end() const;
  /// Records buffer() holds. add() past it makes the next flush() grow the buffer.
  uint32_t capacity() const;

  /// Records this frame's upload into `encoder` (before any pass that reads buffer()): nothing when
  /// nothing changed (no per-object CPU work at all); else, per staging block, a copy of the
  /// slots' ids and one of their records into the scatter source, and one compute dispatch that
  /// writes them into the table (CPU cost independent of the table's size). No writer may run
  /// during flush(); their calls must happen-before it.
  /// When add() went past capacity(), first a buffer of twice the capacity (repeated until the ids
  /// fit, at most the limits) with the old records copied over, and generation() bumped.
  /// Throws FrameProtocol when desc.max_flushes_without_after_submit flushes have uploaded since
  /// the last after_submit() (each one holds its staging block until after_submit() hands it
  /// back: a forgotten after_submit() grows staging memory every frame).
  ObjectFlushStats flush(WGPUCommandEncoder encoder);
  /// Call after the queue submit that carries flush()'s commands: starts the staging blocks' maps
  /// (they return to the ring when the GPU is done), drops buffers replaced by growth and maps
  /// the staging blocks the next frame's writers fill (as many as the last upload used).
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
