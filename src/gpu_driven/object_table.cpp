// SPDX-License-Identifier: MIT
// ObjectTable: GPU-resident object records uploaded where they changed
// (include/bindery/gpu_driven/object_table.hpp, shaders/object_scatter.wgsl).
#include "bindery/gpu_driven/object_table.hpp"

#include "bindery/core/device.hpp"
#include "bindery/core/error.hpp"
#include "bindery/data/align.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery/wgsl/struct_check.hpp"
#include "bindery/wgsl/wgsl_layout.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

namespace bindery::gpu_driven {

BINDERY_WGSL_STRUCT_CHECK(ObjectRecord, world_rows, mesh, material, flags, user);
static_assert(sizeof(ObjectRecord) == kObjectRecordBytes);
static_assert(kMaxObjectPipeline << kObjectPipelineShift == kObjectPipelineMask);

namespace {

constexpr uint32_t kScatterWorkgroupSize = 64;  // @workgroup_size of object_scatter.wgsl
constexpr uint32_t kMaxSkipRanges = 31;        // StagedObjects.skip: unused slot ranges it names
constexpr uint64_t kHeaderBytes = 256;          // StagedObjects' count, skip ranges, before the slots
constexpr uint64_t kSlotBytes = 64;             // one StagedObject
constexpr uint32_t kMinScatterCapacity = 256;   // slots the scatter source holds at least

// Whether all 16 elements are finite: exponent bits not all ones (integer test, vectorizes).
bool all_finite(const glm::mat4& m) {
  uint32_t bits[16];
  std::memcpy(bits, &m, sizeof(bits));
  uint32_t bad = 0;
  for (uint32_t b : bits) bad |= uint32_t((b & 0x7f800000u) == 0x7f800000u);
  return bad == 0;
}

// Whether the fourth row (m[0][3], m[1][3], m[2][3], m[3][3]) is exactly (0, 0, 0, 1), -0 taken
// as 0: the record keeps rows 0..2 only, and the shaders put (0, 0, 0, 1) back.
bool affine(const glm::mat4& m) {
  uint32_t bits[4];
  const float row[4] = {m[0][3], m[1][3], m[2][3], m[3][3]};
  std::memcpy(bits, row, sizeof(bits));
  return ((bits[0] | bits[1] | bits[2]) & 0x7fffffffu) == 0 && bits[3] == 0x3f800000u;
}

}  // namespace

// ---- The staging of one frame ---------------------------------------------------------------------
//
// Each id that changes between two flushes gets a slot: one 64-byte line in mapped staging
// (StagedObject of object_scatter.wgsl: the three rows, the id word, mesh, material, flags), so
// that a moved object is one full-line store, once. The id word says which object it is and what
// goes up: kWriteRows (the rows), kWriteMeta (mesh, material, flags; user becomes 0); a word with
// neither is a slot a writer left unused. Slots are claimed by writer threads in chunks of 64 to
// 1,024 with one atomic add, so a thread pays one atomic per up to 1,024 objects; the id's state
// byte (live, what is staged, the epoch) says whether it already has a slot this frame, and then
// `slot_of` has it, so a second write lands in the same slot. Slots live in blocks of growing
// size: block b holds kFirstBlockSlots << b slots after a 256-byte header (block 0's is the
// frame's StagedHeader: the count and the skip ranges), so that a frame of F moved objects uses
// O(log F) blocks and flush() records one copy per block (and one of the header) and one dispatch.
namespace {

constexpr uint32_t kChunkSlots = 64;         // a writer's first claim of a frame, in slots
constexpr uint32_t kMaxChunkSlots = 1024;    // its largest (below kFirstBlockSlots)
constexpr uint32_t kFirstBlockSlots = 4096;  // block b holds kFirstBlockSlots << b slots
constexpr uint32_t kMaxBlocks = 20;          // 4096 * (2^20 - 1) slots: past any table
constexpr uint32_t kWriteRows = 0x80000000u; // id word: the rows go up (object_scatter.wgsl)
constexpr uint32_t kWriteMeta = 0x40000000u; // id word: mesh, material and flags go up
constexpr uint32_t kIdMask = 0x3fffffffu;    // id word: the object's id
constexpr uint32_t kMaxIds = kIdMask;        // ids the id word can name (0 .. kMaxIds - 1)

struct BlockPos {
  uint32_t block, offset;
};

uint64_t block_first_slot(uint32_t b) { return uint64_t(kFirstBlockSlots) * ((uint64_t(1) << b) - 1); }
uint64_t block_slots(uint32_t b) { return uint64_t(kFirstBlockSlots) << b; }
// A block's bytes: the header and the slots, plus 64 so that they can start on a 64-byte boundary
// of the mapped (or heap) memory whatever its alignment (a mapped range is only promised 8, and a
// line that straddles two cache lines is two partial writes into write-combined memory).
uint64_t block_bytes(uint32_t b) { return 64 + kHeaderBytes + block_slots(b) * kSlotBytes; }
std::byte* align_64(std::byte* p) {
  return p + ((uint64_t(0) - reinterpret_cast<uintptr_t>(p)) & 63u);
}

BlockPos block_of(uint32_t slot) {
  const uint32_t b = uint32_t(std::bit_width(slot / kFirstBlockSlots + 1u)) - 1u;
  return {b, uint32_t(slot - block_first_slot(b))};
}

// One slot in staging, as object_scatter.wgsl's StagedObject reads it.
struct StagedObject {
  glm::vec4 world_rows[3];
  uint32_t word;  // id | kWriteRows | kWriteMeta
  uint32_t mesh, material, flags;
};
static_assert(sizeof(StagedObject) == kSlotBytes);

// The scatter source's header (StagedObjects of object_scatter.wgsl before its slots): the slot
// count and the ranges of slots writers claimed and left unused, which the scatter skips (more
// ranges than fit get their slots' id words zeroed instead).
struct StagedHeader {
  uint32_t count = 0, skip_count = 0;
  uint32_t skip[kMaxSkipRanges][2] = {};  // [begin, end) slot ranges
};
static_assert(sizeof(StagedHeader) == kHeaderBytes);
BINDERY_WGSL_STRUCT_CHECK(StagedObject, world_rows, word, mesh, material, flags);

// One writer thread's claimed, not yet used slots of frame `epoch`: [cursor, end), the first of
// them at `line` in its block, then [rest_begin, rest_end) in the next block when the last chunk
// straddled a block boundary. `chunk` is the size of the thread's next claim: 64 at the start of
// a frame, doubling with every second claim up to kMaxChunkSlots, so that a thread leaves at most
// 63 plus half as many slots unused as it used, and one that writes many takes the atomic (a
// locked add, which also drains the core's pending stores) once per 1,024.
// The registry's part (under State::mutex, or in flush() with no writer running): the thread that
// owns it, whether it is free for another thread, the last uploading flush it wrote in, and
// `lease`, bumped each time flush() frees it, so that a thread's cached pointer to it is stale
// from then on.
struct Writer {
  uint32_t epoch = 0, cursor = 0, end = 0, rest_begin = 0, rest_end = 0, chunk = 0, claims = 0;
  StagedObject* line = nullptr;
  std::thread::id owner;
  bool free = false;
  uint64_t last_flush = 0;
  uint64_t lease = 0;
};
constexpr uint64_t kIdleFlushes = 3;  // a writer unused for this many uploading flushes is freed

// What the CPU keeps per id: one state byte, read by every write (1 MB at a million ids: it stays
// in the core's cache however the ids are scattered), the id's slot (4 bytes, only written by its
// first change of a frame and read by a second one) and its meta (12 bytes, read by
// set_material, set_mesh, meta(); never by set_transform).
constexpr uint8_t kStateLive = 1u;       // the id is a live object
constexpr uint8_t kStateRows = 2u;       // rows staged this epoch
constexpr uint8_t kStateMeta = 4u;       // meta staged this epoch
constexpr uint32_t kEpochShift = 3;      // bits 3..7: the epoch of the staged bits and the slot
constexpr uint32_t kEpochs = 32;         // epoch values 1 .. 31; 0 is never current
struct Meta {
  uint32_t mesh = 0, material = 0, flags = 0;
};

// Tables get a serial that is never reused: the key of the threads' writer caches.
std::atomic<uint64_t> g_table_serial{1};

}  // namespace

DispatchGrid scatter_grid(uint32_t records, uint32_t max_workgroups_per_dimension) {
  const uint32_t groups =
      uint32_t((uint64_t(records) + kScatterWorkgroupSize - 1) / kScatterWorkgroupSize);
  if (groups == 0 || max_workgroups_per_dimension == 0) return {};
  const uint32_t x = std::min(groups, max_workgroups_per_dimension);
  return {x, (groups + x - 1) / x};
}

void world_to_rows(const glm::mat4& m, glm::vec4 rows[3]) {
  for (int r = 0; r < 3; ++r) rows[r] = glm::vec4(m[0][r], m[1][r], m[2][r], m[3][r]);
}

namespace {

// Stores world_to_rows(m) into `line`'s rows (zeros when m is null) from registers: the columns
// loaded as four vectors and transposed, three 16-byte stores. Rows built by scalar stores on the
// stack and then copied as vectors stall on store forwarding (docs/BENCHMARKS.md, "Object table").
inline void store_rows(StagedObject* line, const glm::mat4* m) {
#if defined(__SSE2__)
  __m128 r0 = _mm_setzero_ps(), r1 = r0, r2 = r0;
  if (m) {
    __m128 c3 = _mm_loadu_ps(&(*m)[3][0]);
    r0 = _mm_loadu_ps(&(*m)[0][0]);
    r1 = _mm_loadu_ps(&(*m)[1][0]);
    r2 = _mm_loadu_ps(&(*m)[2][0]);
    _MM_TRANSPOSE4_PS(r0, r1, r2, c3);
  }
  _mm_storeu_ps(&line->world_rows[0].x, r0);
  _mm_storeu_ps(&line->world_rows[1].x, r1);
  _mm_storeu_ps(&line->world_rows[2].x, r2);
#else
  if (m)
    world_to_rows(*m, line->world_rows);
  else
    line->world_rows[0] = line->world_rows[1] = line->world_rows[2] = glm::vec4(0.0f);
#endif
}

// Stores the line's last 16 bytes (id word, mesh, material, flags) as one store.
inline void store_tail(StagedObject* line, uint32_t word, uint32_t mesh, uint32_t material,
                       uint32_t flags) {
#if defined(__SSE2__)
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&line->word),
                   _mm_setr_epi32(int(word), int(mesh), int(material), int(flags)));
#else
  line->word = word;
  line->mesh = mesh;
  line->material = material;
  line->flags = flags;
#endif
}

}  // namespace

struct ObjectTable::State {
  const Device* device = nullptr;
  std::string label;
  uint32_t max_flushes = 8;           // ObjectTableDesc::max_flushes_without_after_submit
  uint32_t flushes_since_submit = 0;  // uploading flushes since the last after_submit()
  uint32_t max_records = 0;  // min(maxStorageBufferBindingSize, maxBufferSize) / 64, kMaxIds
  const uint64_t serial = g_table_serial.fetch_add(1);

  // CPU side, per id ever handed out (state.size() is that high-water mark: every one of them has
  // a slot in buffer() once flushed), no transforms.
  std::vector<uint8_t> state;    // kStateLive | kStateRows | kStateMeta | epoch << kEpochShift
  std::vector<uint32_t> slot_of; // the id's slot this epoch (valid when the state's epoch is)
  std::vector<Meta> metas;
  std::vector<ObjectId> free_ids;  // removed ids, reused last-in first-out
  uint32_t live = 0;
  uint32_t id_end = 0;

  // The frame's staging (see above). Writer threads read `epoch`, claim slots from `next_slot`
  // and find block b at `block_data[b]` (mapped staging, or heap memory when no mapped block was
  // reserved for it: flush() copies that into staging).
  uint32_t epoch = 1;  // 1 .. kEpochs - 1
  std::atomic<uint32_t> next_slot{0};
  std::array<std::atomic<std::byte*>, kMaxBlocks> block_data{};
  std::array<StagingBlock, kMaxBlocks> mapped{};  // reserved mapped blocks (data empty: none)
  std::array<std::vector<std::byte>, kMaxBlocks> heap;  // spill blocks, kept for reuse
  uint32_t reserve_blocks = 1;  // blocks after_submit() maps for the next frame
  std::mutex mutex;             // writer registration and spill allocation
  std::vector<std::unique_ptr<Writer>> writers;  // every writer ever made (never destroyed)
  std::vector<Writer*> free_writers;             // freed by flush(), for threads to come
  uint64_t flushes = 0;                          // uploading flushes so far

  // GPU side.
  uint32_t capacity = 0;
  uint64_t generation = 0;
  gpu::Buffer table;
  std::vector<gpu::Buffer> retired;  // replaced by growth; dropped at after_submit()
  uint32_t scatter_capacity = 0;     // slots the scatter source holds
  gpu::Buffer scatter_header;        // StagedHeader: the count and the skip ranges
  gpu::Buffer scatter_source;        // the slots (StagedObject), at most max_slots
  uint64_t max_slots = 0;  // min(maxStorageBufferBindingSize, maxBufferSize) / 64
  gpu::ShaderModule module;
  gpu::BindGroupLayout group_layout;
  gpu::PipelineLayout pipeline_layout;
  gpu::ComputePipeline pipeline;
  gpu::BindGroup group;  // null when a buffer it names was replaced
  StagingRing ring;

  State(const Device& d, const ObjectTableDesc& desc)
      : device(&d),
        label(desc.label),
        max_flushes(desc.max_flushes_without_after_submit),
        ring(d, StagingRingDesc{desc.label + " staging", 0}) {}

  std::string who(std::string_view call) const {
    return fmt::format("ObjectTable('{}')::{}", escape_for_message(label), call);
  }

  [[noreturn]] void throw_not_live(std::string_view call, ObjectId id) const {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: object id {} is not a live object of the table (id_end {}, {} "
                            "live)",
                            who(call), id, id_end, live));
  }

  bool is_live(ObjectId id) const { return id < state.size() && (state[id] & kStateLive); }
  void check_live(std::string_view call, ObjectId id) const {
    if (!is_live(id)) throw_not_live(call, id);
  }

  // The matrix a record can hold: finite, and affine (ObjectRecord keeps three rows).
  void check_world(std::string_view call, ObjectId id, const glm::mat4& world) const {
    if (!all_finite(world))
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: object id {}: the world matrix has a non-finite element (NaN "
                              "or infinity)",
                              who(call), id));
    if (!affine(world))
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: object id {}: the world matrix's last row is ({}, {}, {}, {}); "
                              "an object's world matrix must be affine, its last row exactly "
                              "(0, 0, 0, 1) (ObjectRecord keeps rows 0..2)",
                              who(call), id, world[0][3], world[1][3], world[2][3], world[3][3]));
  }

  gpu::Buffer create_table_buffer(uint32_t records_count) const {
    return device->create_buffer(
        label, uint64_t(records_count) * kObjectRecordBytes,
        WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc);
  }

  Writer& this_thread_writer();
  StagedObject* claim_slot(uint32_t& slot);
  std::byte* block(uint32_t b);
  // Slot `slot`'s line in the frame's staging.
  StagedObject* line_of(uint32_t slot) const {
    const BlockPos p = block_of(slot);
    std::byte* base = block_data[p.block].load(std::memory_order_acquire);
    return reinterpret_cast<StagedObject*>(base + kHeaderBytes) + p.offset;
  }

  // Stages object `id`'s rows (and with `meta`, its mesh, material and flags): on its first change
  // this epoch a new slot written as one full 64-byte line; after that its slot again, with the
  // id word naming everything staged so far.
  void stage(ObjectId id, const glm::mat4* m, bool meta) {
    uint8_t& st = state[id];
    const uint8_t kinds = uint8_t((m ? kStateRows : 0) | (meta ? kStateMeta : 0));
    const Meta* md = meta ? &metas[id] : nullptr;
    if ((st >> kEpochShift) != epoch) {
      uint32_t slot = 0;
      StagedObject* line = claim_slot(slot);
      slot_of[id] = slot;
      st = uint8_t((st & kStateLive) | kinds | (epoch << kEpochShift));
      // One full line, in four 16-byte stores: write-combined staging takes it in one go.
      store_rows(line, m);
      store_tail(line, id | (m ? kWriteRows : 0) | (meta ? kWriteMeta : 0), md ? md->mesh : 0,
                 md ? md->material : 0, md ? md->flags : 0);
      return;
    }
    StagedObject* line = line_of(slot_of[id]);
    st = uint8_t(st | kinds);
    if (m) store_rows(line, m);
    if (md) {
      line->mesh = md->mesh;
      line->material = md->material;
      line->flags = md->flags;
    }
    line->word = id | ((st & kStateRows) ? kWriteRows : 0) | ((st & kStateMeta) ? kWriteMeta : 0);
  }

  void create_pipeline();
  void grow(WGPUCommandEncoder encoder);
  void ensure_scatter_capacity(uint32_t n);
  uint32_t close_writers(uint32_t claimed, uint32_t& unused, StagedHeader& header);
  void copy_blocks(WGPUCommandEncoder encoder, const StagedHeader& header);
  void reserve_mapped();
  void dispatch(WGPUCommandEncoder encoder, uint32_t n);
};

// This thread's writer of this table: a small per-thread cache keyed by the table's serial (never
// reused, so a destroyed table's entries never match again) and the writer's lease (bumped when
// flush() freed it); a miss takes the mutex and finds the writer this thread owns, else a freed
// one, else makes one, so that each thread has one writer per table however many tables it
// writes in turn, and the writers of threads that ended are reused.
namespace {
struct WriterEntry {
  uint64_t serial = 0;
  Writer* writer = nullptr;
  uint64_t lease = 0;
};
thread_local WriterEntry t_last_writer;  // the one most used: checked first
}  // namespace

Writer& ObjectTable::State::this_thread_writer() {
  if (t_last_writer.serial == serial && t_last_writer.writer->lease == t_last_writer.lease)
    return *t_last_writer.writer;
  thread_local std::array<WriterEntry, 8> cache{};
  thread_local uint32_t next = 0;
  for (const WriterEntry& e : cache)
    if (e.serial == serial && e.writer->lease == e.lease) {
      t_last_writer = e;
      return *e.writer;
    }
  const std::lock_guard lock(mutex);
  const std::thread::id me = std::this_thread::get_id();
  Writer* w = nullptr;
  for (const auto& candidate : writers)
    if (!candidate->free && candidate->owner == me) w = candidate.get();
  if (!w && !free_writers.empty()) {
    w = free_writers.back();
    free_writers.pop_back();
    w->free = false;
  }
  if (!w) {
    writers.push_back(std::make_unique<Writer>());
    w = writers.back().get();
  }
  w->owner = me;
  const WriterEntry e{serial, w, w->lease};
  cache[next++ % cache.size()] = e;
  t_last_writer = e;
  return *w;
}

// A new slot of this thread's chunk (a new chunk when it is used up or stale): its number in
// `slot`, its line returned.
StagedObject* ObjectTable::State::claim_slot(uint32_t& slot) {
  Writer& w = this_thread_writer();
  if (w.epoch != epoch || w.cursor == w.end) [[unlikely]] {
    if (w.epoch != epoch) {
      w.epoch = epoch;
      w.cursor = w.end = w.rest_begin = w.rest_end = w.claims = 0;
      w.chunk = kChunkSlots;
      w.last_flush = flushes;
    }
    if (w.rest_begin != w.rest_end) {
      w.cursor = w.rest_begin;
      w.end = w.rest_end;
      w.rest_begin = w.rest_end = 0;
    } else {
      const uint32_t base = next_slot.fetch_add(w.chunk, std::memory_order_relaxed);
      if (uint64_t(base) + w.chunk > block_first_slot(kMaxBlocks))
        throw Error(ErrorKind::BufferTooLarge,
                    fmt::format("{}: more than {} staged slots in one frame", who("set_transform"),
                                block_first_slot(kMaxBlocks)));
      const uint32_t boundary = uint32_t(block_first_slot(block_of(base).block + 1));
      w.cursor = base;
      w.end = std::min(base + w.chunk, boundary);
      if (base + w.chunk > boundary) {
        w.rest_begin = boundary;
        w.rest_end = base + w.chunk;
      }
      if (++w.claims % 2 == 0) w.chunk = std::min(w.chunk * 2, kMaxChunkSlots);
    }
    const BlockPos p = block_of(w.cursor);
    w.line = reinterpret_cast<StagedObject*>(block(p.block) + kHeaderBytes) + p.offset;
  }
  slot = w.cursor++;
  return w.line++;
}

// Block b of the frame: the reserved mapped block, else heap memory (allocated once under the
// mutex, by the first writer that needs it; flush() copies it into staging).
std::byte* ObjectTable::State::block(uint32_t b) {
  if (std::byte* p = block_data[b].load(std::memory_order_acquire)) return p;
  const std::lock_guard lock(mutex);
  std::byte* p = block_data[b].load(std::memory_order_relaxed);
  if (!p) {
    if (heap[b].empty()) heap[b].resize(block_bytes(b));
    p = align_64(heap[b].data());
    block_data[b].store(p, std::memory_order_release);
  }
  return p;
}

void ObjectTable::State::create_pipeline() {
  const CallScope scope(*device);
  const Reflection reflection = reflect_wgsl(shaders::object_scatter);
  reflection.throw_if_errors();
  check_struct_matches<ObjectRecord>(reflection.struct_layout("ObjectRecord"));
  check_struct_matches<StagedObject>(reflection.struct_layout("StagedObject"));
  const StructLayout& header = reflection.struct_layout("StagedHeader");
  const StructMember* skip = header.find_member("skip");
  if (header.size != kHeaderBytes || !skip || skip->offset != offsetof(StagedHeader, skip) ||
      skip->size != sizeof(StagedHeader::skip))
    throw Error(ErrorKind::StructMismatch,
                who("ObjectTable") + ": object_scatter.wgsl's StagedHeader differs from the "
                                     "header the CPU writes (skip ranges at byte 8, 256 bytes)");
  module = device->create_shader_module("object_scatter.wgsl", shaders::object_scatter);
  const WGPUBindGroupLayoutEntry entries[] = {
      buffer_layout_entry(0, WGPUShaderStage_Compute, WGPUBufferBindingType_ReadOnlyStorage),
      buffer_layout_entry(1, WGPUShaderStage_Compute, WGPUBufferBindingType_ReadOnlyStorage),
      buffer_layout_entry(2, WGPUShaderStage_Compute, WGPUBufferBindingType_Storage),
  };
  group_layout = create_bind_group_layout(*device, "object scatter", entries);
  WGPUBindGroupLayout layouts[] = {group_layout.get()};
  WGPUPipelineLayoutDescriptor pd = WGPU_PIPELINE_LAYOUT_DESCRIPTOR_INIT;
  pd.label = gpu::sv("object scatter");
  pd.bindGroupLayoutCount = 1;
  pd.bindGroupLayouts = layouts;
  pipeline_layout =
      gpu::PipelineLayout::acquire(wgpuDeviceCreatePipelineLayout(device->get(), &pd));
  WGPUComputePipelineDescriptor cd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  cd.label = gpu::sv("object scatter");
  cd.layout = pipeline_layout.get();
  cd.compute.module = module.get();
  cd.compute.entryPoint = gpu::sv("scatter");
  pipeline = gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(device->get(), &cd));
  device->check();
}

void ObjectTable::State::grow(WGPUCommandEncoder encoder) {
  const uint64_t needed = state.size();
  uint64_t cap = capacity;
  while (cap < needed) cap *= 2;
  cap = std::min<uint64_t>(cap, max_records);  // add() keeps needed <= max_records
  gpu::Buffer bigger = create_table_buffer(uint32_t(cap));
  wgpuCommandEncoderCopyBufferToBuffer(encoder, table.get(), 0, bigger.get(), 0,
                                       uint64_t(capacity) * kObjectRecordBytes);
  device->counters().copy_buffer_to_buffer++;
  retired.push_back(std::move(table));
  table = std::move(bigger);
  capacity = uint32_t(cap);
  ++generation;
  group = {};
}

void ObjectTable::State::ensure_scatter_capacity(uint32_t n) {
  if (n <= scatter_capacity) return;
  // Slots past the binding limit: only the unused slots of writer threads can take a frame there
  // (the ids alone fit: max_records <= max_slots).
  if (n > max_slots)
    throw Error(ErrorKind::BufferTooLarge,
                fmt::format("{}: {} slots staged this frame exceed the {} that "
                            "maxStorageBufferBindingSize ({}) and maxBufferSize ({}) let the "
                            "scatter source hold (the changed ids plus the slots writer threads "
                            "claimed and left unused): nothing was uploaded; fewer writer threads "
                            "for a change of nearly every object",
                            who("flush"), n, max_slots,
                            device->limits().maxStorageBufferBindingSize,
                            device->limits().maxBufferSize));
  uint64_t cap = std::max<uint64_t>(scatter_capacity, kMinScatterCapacity);
  while (cap < n) cap *= 2;
  cap = std::min(cap, max_slots);
  scatter_source = device->create_buffer(label + " scatter source", cap * kSlotBytes,
                                         WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst);
  scatter_capacity = uint32_t(cap);
  group = {};
}

// Ends the frame's writers: the slots they claimed and left unused are named in `header`'s skip
// ranges (past kMaxSkipRanges, their id words are zeroed), except the ones at the very end of the
// claimed range, which are not uploaded at all. Returns the slots to upload; `unused` counts the
// skipped ones among them.
uint32_t ObjectTable::State::close_writers(uint32_t claimed, uint32_t& unused, StagedHeader& header) {
  uint32_t n = claimed;
  for (const auto& w : writers) {
    if (w->epoch != epoch) continue;
    // The unused slots are one run: a straddling chunk's rest starts where [cursor, end) ends.
    const uint32_t begin = w->cursor;
    const uint32_t end = w->rest_begin != w->rest_end ? w->rest_end : w->end;
    if (begin == end) continue;
    if (end == claimed) {
      n = begin;
      continue;
    }
    if (header.skip_count < kMaxSkipRanges) {
      header.skip[header.skip_count][0] = begin;
      header.skip[header.skip_count][1] = end;
      ++header.skip_count;
    } else {
      for (uint32_t s = begin; s < end; ++s) line_of(s)->word = 0;
    }
    unused += end - begin;
  }
  header.count = n;
  return n;
}

// One copy per block of slots [0, n) into the scatter source, and block 0's header into the
// scatter header; a block written in heap memory goes through a staging block first.
// block_data[b] is the block's 64-byte aligned start in its memory.
void ObjectTable::State::copy_blocks(WGPUCommandEncoder encoder, const StagedHeader& header) {
  const uint32_t n = header.count;
  std::memcpy(block_data[0].load(std::memory_order_relaxed), &header, sizeof(header));
  for (uint32_t b = 0; b < kMaxBlocks && block_first_slot(b) < n; ++b) {
    const uint64_t first = block_first_slot(b);
    const uint64_t used = std::min<uint64_t>(n - first, block_slots(b));
    const uint64_t begin = b == 0 ? 0 : kHeaderBytes;  // block 0 carries the header
    const uint64_t end = kHeaderBytes + used * kSlotBytes;  // the slots: [kHeaderBytes, end)
    std::byte* start = block_data[b].load(std::memory_order_relaxed);
    StagingBlock staged = mapped[b];
    if (staged.data.empty()) {  // heap: into staging now (frames past the reserved blocks)
      staged = ring.acquire(block_bytes(b));
      std::byte* to = align_64(staged.data.data());
      std::memcpy(to + begin, start + begin, end - begin);
      start = to;
    }
    const uint64_t at = uint64_t(start - staged.data.data());
    if (b == 0) ring.copy(encoder, staged, at, scatter_header.get(), 0, kHeaderBytes);
    ring.copy(encoder, staged, at + kHeaderBytes, scatter_source.get(), first * kSlotBytes,
              end - kHeaderBytes);
    mapped[b] = {};
  }
}

// Maps blocks 0 .. reserve_blocks - 1 for the next frame's writers (after ring.after_submit(),
// which hands back the blocks this frame left unused).
void ObjectTable::State::reserve_mapped() {
  for (uint32_t b = 0; b < kMaxBlocks; ++b) {
    if (b < reserve_blocks && block_bytes(b) <= device->limits().maxBufferSize) {
      mapped[b] = ring.acquire(block_bytes(b));
      block_data[b].store(align_64(mapped[b].data.data()), std::memory_order_relaxed);
    } else {
      mapped[b] = {};
      block_data[b].store(nullptr, std::memory_order_relaxed);
    }
  }
}

void ObjectTable::State::dispatch(WGPUCommandEncoder encoder, uint32_t n) {
  if (!group) {
    const WGPUBindGroupEntry entries[] = {buffer_group_entry(0, scatter_header.get()),
                                          buffer_group_entry(1, scatter_source.get()),
                                          buffer_group_entry(2, table.get())};
    group = create_bind_group(*device, "object scatter", group_layout.get(), entries);
  }
  const uint32_t max_x = device->limits().maxComputeWorkgroupsPerDimension;
  const auto [x, y] = scatter_grid(n, max_x);
  if (y > max_x)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: {} changed records need {} x {} workgroups, more than "
                            "maxComputeWorkgroupsPerDimension ({}) allows",
                            who("flush"), n, x, y, max_x));
  WGPUComputePassDescriptor pd = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
  pd.label = gpu::sv("object scatter");
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &pd);
  wgpuComputePassEncoderSetPipeline(pass, pipeline.get());
  wgpuComputePassEncoderSetBindGroup(pass, 0, group.get(), 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, x, y, 1);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
}

// ---- ObjectTable ---------------------------------------------------------------------------------

ObjectTable::ObjectTable(const Device& device, const ObjectTableDesc& desc)
    : s_(std::make_unique<State>(device, desc)) {
  State& s = *s_;
  if (desc.initial_capacity == 0)
    throw Error(ErrorKind::InvalidArgument, s.who("ObjectTable") + ": initial_capacity is 0");
  if (!(desc.whole_copy_share >= 0.0f))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: whole_copy_share {} is not a share >= 0", s.who("ObjectTable"),
                            desc.whole_copy_share));
  if (desc.max_flushes_without_after_submit == 0)
    throw Error(ErrorKind::InvalidArgument,
                s.who("ObjectTable") + ": max_flushes_without_after_submit is 0 (at least 1)");
  const Limits& limits = device.limits();
  const uint64_t max_bytes = std::min(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
  s.max_records = uint32_t(std::min<uint64_t>(max_bytes / kObjectRecordBytes, kMaxIds));
  s.max_slots = max_bytes / kSlotBytes;
  if (desc.initial_capacity > s.max_records)
    throw Error(ErrorKind::BufferTooLarge,
                fmt::format("{}: initial_capacity {} records ({} bytes) exceed "
                            "maxStorageBufferBindingSize ({}) or maxBufferSize ({})",
                            s.who("ObjectTable"), desc.initial_capacity,
                            uint64_t(desc.initial_capacity) * kObjectRecordBytes,
                            limits.maxStorageBufferBindingSize, limits.maxBufferSize));
  s.capacity = desc.initial_capacity;
  s.table = s.create_table_buffer(s.capacity);
  s.state.reserve(s.capacity);
  s.slot_of.reserve(s.capacity);
  s.metas.reserve(s.capacity);
  s.create_pipeline();
  s.scatter_header = device.create_buffer(s.label + " scatter header", kHeaderBytes,
                                          WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst);
  s.reserve_mapped();
}

ObjectTable::~ObjectTable() = default;
ObjectTable::ObjectTable(ObjectTable&&) noexcept = default;
ObjectTable& ObjectTable::operator=(ObjectTable&&) noexcept = default;

ObjectId ObjectTable::add(const glm::mat4& world, uint32_t mesh, uint32_t material,
                          uint32_t pipeline) {
  State& s = *s_;
  const ObjectId next = s.free_ids.empty() ? ObjectId(s.state.size()) : s.free_ids.back();
  s.check_world("add", next, world);
  if (pipeline > kMaxObjectPipeline)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: pipeline index {} exceeds {} (flags bits 8..15)", s.who("add"),
                            pipeline, kMaxObjectPipeline));
  if (s.free_ids.empty()) {
    if (s.state.size() >= s.max_records)
      throw Error(ErrorKind::BufferTooLarge,
                  fmt::format("{}: object {} needs {} bytes of records; "
                              "maxStorageBufferBindingSize is {}, maxBufferSize {}",
                              s.who("add"), next, (uint64_t(next) + 1) * kObjectRecordBytes,
                              s.device->limits().maxStorageBufferBindingSize,
                              s.device->limits().maxBufferSize));
    s.state.push_back(0);
    s.slot_of.push_back(0);
    s.metas.emplace_back();
  } else {
    s.free_ids.pop_back();
  }
  s.metas[next] = {mesh, material, kObjectLive | (pipeline << kObjectPipelineShift)};
  s.state[next] |= kStateLive;
  s.stage(next, &world, true);
  s.id_end = std::max(s.id_end, next + 1);
  ++s.live;
  return next;
}

void ObjectTable::set_transform(ObjectId id, const glm::mat4& world) {
  State& s = *s_;
  s.check_live("set_transform", id);
  s.check_world("set_transform", id, world);
  s.stage(id, &world, false);
}

void ObjectTable::set_transforms(std::span<const ObjectId> ids, std::span<const glm::mat4> worlds) {
  State& s = *s_;
  if (ids.size() != worlds.size())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: {} ids but {} matrices", s.who("set_transforms"), ids.size(),
                            worlds.size()));
  constexpr size_t kAhead = 16;  // ids prefetched ahead: their slot words, written on a first change
  const size_t n = ids.size();
  const size_t known = s.state.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n && ids[i + kAhead] < known) {
      __builtin_prefetch(&s.state[ids[i + kAhead]], 1);
      __builtin_prefetch(&s.slot_of[ids[i + kAhead]], 1);
    }
    s.check_live("set_transforms", ids[i]);
    s.check_world("set_transforms", ids[i], worlds[i]);
    s.stage(ids[i], &worlds[i], false);
  }
}

void ObjectTable::set_material(ObjectId id, uint32_t material) {
  s_->check_live("set_material", id);
  s_->metas[id].material = material;
  s_->stage(id, nullptr, true);
}

void ObjectTable::set_mesh(ObjectId id, uint32_t mesh) {
  s_->check_live("set_mesh", id);
  s_->metas[id].mesh = mesh;
  s_->stage(id, nullptr, true);
}

void ObjectTable::remove(ObjectId id) {
  State& s = *s_;
  s.check_live("remove", id);
  s.metas[id] = {};
  const glm::mat4 zero(0.0f);
  s.stage(id, &zero, true);
  s.state[id] = uint8_t(s.state[id] & ~kStateLive);
  s.free_ids.push_back(id);
  --s.live;
  while (s.id_end > 0 && !(s.state[s.id_end - 1] & kStateLive)) --s.id_end;
}

bool ObjectTable::contains(ObjectId id) const { return s_->is_live(id); }

ObjectMeta ObjectTable::meta(ObjectId id) const {
  s_->check_live("meta", id);
  const Meta& m = s_->metas[id];
  return {m.mesh, m.material, m.flags, 0};
}

uint32_t ObjectTable::size() const { return s_->live; }
uint32_t ObjectTable::id_end() const { return s_->id_end; }
uint32_t ObjectTable::capacity() const { return s_->capacity; }

ObjectFlushStats ObjectTable::flush(WGPUCommandEncoder encoder) {
  const CallScope scope(*s_->device);
  State& s = *s_;
  ObjectFlushStats st;
  const uint32_t claimed = s.next_slot.load(std::memory_order_relaxed);
  const bool grow = s.state.size() > s.capacity;
  if (claimed == 0 && !grow) return st;  // nothing changed: no per-object work at all
  if (s.flushes_since_submit >= s.max_flushes)
    throw Error(ErrorKind::FrameProtocol,
                fmt::format("{}: {} flushes have uploaded since the last after_submit() (at most "
                            "{}, ObjectTableDesc::max_flushes_without_after_submit): call "
                            "after_submit() after each queue submit that carries flush()'s "
                            "commands, or the staging blocks ({} held now) are never handed back",
                            s.who("flush"), s.flushes_since_submit, s.max_flushes,
                            s.ring.stats().blocks));
  s.flushes_since_submit++;
  if (grow) {
    s.grow(encoder);
    st.grew = true;
  }
  StagedHeader header;
  const uint32_t n = s.close_writers(claimed, st.unused_slots, header);
  if (n > 0) {
    s.ensure_scatter_capacity(n);
    s.copy_blocks(encoder, header);
    s.dispatch(encoder, n);
    st.records_uploaded = n;
    st.bytes = uint64_t(n) * kSlotBytes;
    st.index_bytes = kHeaderBytes;
    st.scatter_dispatches = 1;
  }
  // The next frame: a new epoch (every id's slot and every writer's chunk are stale), and as many
  // mapped blocks as this frame used, reserved at after_submit(); until then writes go to heap.
  uint32_t used_blocks = 0;
  while (used_blocks < kMaxBlocks && block_first_slot(used_blocks) < n) ++used_blocks;
  s.reserve_blocks = std::max(1u, used_blocks);
  for (uint32_t b = 0; b < kMaxBlocks; ++b) {
    s.mapped[b] = {};  // copied or (unused) handed back by the ring at after_submit()
    s.block_data[b].store(nullptr, std::memory_order_relaxed);
  }
  s.next_slot.store(0, std::memory_order_relaxed);
  // The state byte keeps 5 bits of the epoch: once every 31 uploading flushes, every id's staged
  // bits and epoch go back to 0 (never current) before the count starts again at 1 (one pass over
  // a byte per id: about 1 MB at a million ids, vectorized).
  if (++s.epoch == kEpochs) {
    for (uint8_t& b : s.state) b = uint8_t(b & kStateLive);
    for (const auto& w : s.writers) w->epoch = 0;
    s.epoch = 1;
  }
  // Writers no thread used for kIdleFlushes uploading flushes are freed (their threads may have
  // ended; one that did not finds its cached pointer stale by the lease and registers again).
  ++s.flushes;
  for (const auto& w : s.writers)
    if (!w->free && s.flushes - w->last_flush > kIdleFlushes) {
      w->free = true;
      ++w->lease;
      s.free_writers.push_back(w.get());
    }
  return st;
}

void ObjectTable::after_submit() {
  State& s = *s_;
  s.flushes_since_submit = 0;
  // Writes made since the last flush stay: the ring hands back reserved blocks it did not copy,
  // so what they hold moves to heap blocks first (only when after_submit() came between writes
  // and their flush, not in the usual flush, submit, after_submit order).
  const uint32_t claimed = s.next_slot.load(std::memory_order_relaxed);
  for (uint32_t b = 0; claimed > 0 && b < kMaxBlocks; ++b) {
    if (s.mapped[b].data.empty()) continue;
    s.heap[b].resize(block_bytes(b));
    std::byte* to = align_64(s.heap[b].data());
    std::memcpy(to, s.block_data[b].load(std::memory_order_relaxed), block_bytes(b) - 64);
    s.block_data[b].store(to, std::memory_order_relaxed);
    s.mapped[b] = {};
  }
  // Writers with slots left in their chunk write on into the blocks' new place.
  for (const auto& w : s.writers)
    if (claimed > 0 && w->epoch == s.epoch && w->cursor < w->end) w->line = s.line_of(w->cursor);
  s.ring.after_submit();  // maps the copied blocks; reserved ones left unused go back to the pool
  s.retired.clear();
  if (claimed == 0) s.reserve_mapped();
}

WGPUBuffer ObjectTable::buffer() const { return s_->table.get(); }
uint64_t ObjectTable::generation() const { return s_->generation; }
StagingRingStats ObjectTable::staging_stats() const { return s_->ring.stats(); }

std::string_view ObjectTable::wgsl() { return shaders::object_record; }

}  // namespace bindery::gpu_driven
