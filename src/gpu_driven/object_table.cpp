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
#include <cstring>
#include <mutex>

namespace bindery::gpu_driven {

BINDERY_WGSL_STRUCT_CHECK(ObjectRecord, world_rows, mesh, material, flags, user);
static_assert(sizeof(ObjectRecord) == kObjectRecordBytes);
static_assert(kMaxObjectPipeline << kObjectPipelineShift == kObjectPipelineMask);

namespace {

constexpr uint32_t kScatterWorkgroupSize = 64;  // @workgroup_size of object_scatter.wgsl
constexpr uint64_t kIdsHeaderBytes = 4;         // ScatterIndices.count before the ids
constexpr uint32_t kMinScatterCapacity = 256;   // records the scatter source holds at least


// Whether all 16 elements are finite: exponent bits not all ones (integer test, vectorizes).
bool all_finite(const glm::mat4& m) {
  uint32_t bits[16];
  std::memcpy(bits, &m, sizeof(bits));
  uint32_t bad = 0;
  for (uint32_t b : bits) bad |= uint32_t((b & 0x7f800000u) == 0x7f800000u);
  return bad == 0;
}


}  // namespace

// ---- The staging of one frame ---------------------------------------------------------------------
//
// Each id that changes between two flushes gets a slot: its record is written once, straight into
// mapped staging at that slot, and the slot's id word says which object it is (and whether the
// rows go up too). Slots are claimed by writer threads in chunks of kChunkSlots with one atomic
// add, so a thread pays one atomic per 64 objects; the id's own state (epoch, slot) says whether
// it already has a slot this frame, so a second write lands in the same slot. Slots live in
// blocks of growing size: block b holds kFirstBlockSlots << b slots, as
//   [count: u32][ids: slots x u32][to a multiple of 64][records: slots x 64 bytes]
// so that a frame of F moved objects uses O(log F) blocks and flush() records two copies per block
// (count + ids into the scatter ids, records into the scatter records) and one dispatch.
namespace {

constexpr uint32_t kChunkSlots = 64;         // slots a writer claims with one atomic add
constexpr uint32_t kFirstBlockSlots = 4096;  // block b holds kFirstBlockSlots << b slots
constexpr uint32_t kMaxBlocks = 20;          // 4096 * (2^20 - 1) slots: past any table
constexpr uint32_t kWriteRows = 0x80000000u;  // id word: the rows go up too (object_scatter.wgsl)
constexpr uint32_t kUnusedSlot = 0xffffffffu; // id word of a claimed slot left unused (skipped)

struct BlockPos {
  uint32_t block, offset;
};

uint64_t block_first_slot(uint32_t b) { return uint64_t(kFirstBlockSlots) * ((uint64_t(1) << b) - 1); }
uint64_t block_slots(uint32_t b) { return uint64_t(kFirstBlockSlots) << b; }
uint64_t block_records_offset(uint32_t b) { return (kIdsHeaderBytes + 4 * block_slots(b) + 63) & ~uint64_t(63); }
uint64_t block_bytes(uint32_t b) { return block_records_offset(b) + block_slots(b) * kObjectRecordBytes; }

BlockPos block_of(uint32_t slot) {
  const uint32_t b = uint32_t(std::bit_width(slot / kFirstBlockSlots + 1u)) - 1u;
  return {b, uint32_t(slot - block_first_slot(b))};
}

// One writer thread's claimed, not yet used slots [cursor, end) of frame `epoch`.
struct Writer {
  uint32_t epoch = 0, cursor = 0, end = 0;
};

// What the CPU keeps per id, 16 bytes (a scattered id costs one quarter of a cache line): the
// record without its transform (user is always 0: the table never writes it) and the id's slot in
// the frame's staging when its epoch is the current one (16 bits, wrapping: see flush()).
struct IdState {
  uint32_t mesh = 0, material = 0;
  uint16_t flags = 0;  // kObjectLive | pipeline << kObjectPipelineShift: 16 bits
  uint16_t epoch = 0;
  uint32_t slot = 0;
};
static_assert(sizeof(IdState) == 16);
static_assert((kObjectLive | kObjectPipelineMask) <= 0xffffu);
constexpr uint32_t kEpochs = 0x10000;  // IdState::epoch values; 0 is never current

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

struct ObjectTable::State {
  const Device* device = nullptr;
  std::string label;
  uint32_t max_flushes = 8;           // ObjectTableDesc::max_flushes_without_after_submit
  uint32_t flushes_since_submit = 0;  // uploading flushes since the last after_submit()
  uint32_t max_records = 0;  // min(maxStorageBufferBindingSize, maxBufferSize) / 64
  const uint64_t serial = g_table_serial.fetch_add(1);

  // CPU side: 16 bytes per id ever handed out (ids.size() is that high-water mark: every one of
  // them has a slot in buffer() once flushed), no transforms.
  std::vector<IdState> ids;
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
  std::vector<std::unique_ptr<Writer>> writers;

  // GPU side.
  uint32_t capacity = 0;
  uint64_t generation = 0;
  gpu::Buffer table;
  std::vector<gpu::Buffer> retired;  // replaced by growth; dropped at after_submit()
  uint32_t scatter_capacity = 0;     // slots the scatter source buffers hold
  gpu::Buffer scatter_ids, scatter_records;
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

  IdState& live_state(std::string_view call, ObjectId id) {
    if (id >= ids.size() || !(ids[id].flags & kObjectLive)) throw_not_live(call, id);
    return ids[id];
  }

  void check_finite(std::string_view call, ObjectId id, const glm::mat4& world) const {
    if (!all_finite(world))
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: object id {}: the world matrix has a non-finite element (NaN "
                              "or infinity)",
                              who(call), id));
  }

  gpu::Buffer create_table_buffer(uint32_t records_count) const {
    return device->create_buffer(
        label, uint64_t(records_count) * kObjectRecordBytes,
        WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc);
  }

  Writer& this_thread_writer();
  uint32_t claim_slot();
  std::byte* block(uint32_t b);
  // Slot `slot`'s id word and record in the frame's staging.
  struct SlotRef {
    uint32_t* id_word;
    ObjectRecord* record;
  };
  SlotRef slot_ref(uint32_t slot) const {
    const BlockPos p = block_of(slot);
    std::byte* base = block_data[p.block].load(std::memory_order_acquire);
    return {reinterpret_cast<uint32_t*>(base + kIdsHeaderBytes) + p.offset,
            reinterpret_cast<ObjectRecord*>(base + block_records_offset(p.block)) + p.offset};
  }
  uint32_t& id_word(uint32_t slot) const { return *slot_ref(slot).id_word; }
  // The id's slot in this frame's staging, claimed on its first change since the last flush
  // (`fresh`: its id word and record are still to be written).
  SlotRef slot_of(IdState& st, bool& fresh) {
    fresh = st.epoch != epoch;
    if (fresh) {
      st.slot = claim_slot();
      st.epoch = uint16_t(epoch);
    }
    return slot_ref(st.slot);
  }
  // Writes the whole record (rows and the id's meta) into its slot: one 64-byte line, once.
  void stage_whole(IdState& st, ObjectId id, const glm::mat4& m) {
    bool fresh = false;
    const SlotRef ref = slot_of(st, fresh);
    ObjectRecord r;
    r.world_rows[0] = glm::vec4(m[0][0], m[1][0], m[2][0], m[3][0]);
    r.world_rows[1] = glm::vec4(m[0][1], m[1][1], m[2][1], m[3][1]);
    r.world_rows[2] = glm::vec4(m[0][2], m[1][2], m[2][2], m[3][2]);
    r.mesh = st.mesh;
    r.material = st.material;
    r.flags = st.flags;
    r.user = 0;
    *ref.record = r;
    *ref.id_word = id | kWriteRows;
  }
  // Writes the id's meta into its slot; the rows go up only if a transform was staged too.
  void stage_meta(IdState& st, ObjectId id) {
    bool fresh = false;
    const SlotRef ref = slot_of(st, fresh);
    if (fresh) *ref.id_word = id;
    ref.record->mesh = st.mesh;
    ref.record->material = st.material;
    ref.record->flags = st.flags;
    ref.record->user = 0;
  }

  void create_pipeline();
  void grow(WGPUCommandEncoder encoder);
  void ensure_scatter_capacity(uint32_t n);
  uint32_t close_writers(uint32_t claimed, uint32_t& unused);
  void copy_blocks(WGPUCommandEncoder encoder, uint32_t n);
  void reserve_mapped();
  void dispatch(WGPUCommandEncoder encoder, uint32_t n);
};

// This thread's writer of this table: a small per-thread cache keyed by the table's serial (never
// reused, so a destroyed table's entries never match again); a miss registers a new writer under
// the mutex (once per thread and table, or again after three other tables pushed it out).
namespace {
struct WriterEntry {
  uint64_t serial = 0;
  Writer* writer = nullptr;
};
thread_local WriterEntry t_last_writer;  // the one most used: checked first
}  // namespace

Writer& ObjectTable::State::this_thread_writer() {
  if (t_last_writer.serial == serial) return *t_last_writer.writer;
  thread_local std::array<WriterEntry, 4> cache{};
  thread_local uint32_t next = 0;
  for (const WriterEntry& e : cache)
    if (e.serial == serial) {
      t_last_writer = e;
      return *e.writer;
    }
  const std::lock_guard lock(mutex);
  writers.push_back(std::make_unique<Writer>());
  cache[next++ % cache.size()] = {serial, writers.back().get()};
  t_last_writer = {serial, writers.back().get()};
  return *writers.back();
}

uint32_t ObjectTable::State::claim_slot() {
  Writer& w = this_thread_writer();
  if (w.epoch != epoch || w.cursor == w.end) {
    const uint32_t base = next_slot.fetch_add(kChunkSlots, std::memory_order_relaxed);
    if (uint64_t(base) + kChunkSlots > block_first_slot(kMaxBlocks))
      throw Error(ErrorKind::BufferTooLarge,
                  fmt::format("{}: more than {} staged slots in one frame", who("set_transform"),
                              block_first_slot(kMaxBlocks)));
    block(block_of(base).block);  // chunks never straddle blocks (both are multiples of 64)
    w = {epoch, base, base + kChunkSlots};
  }
  return w.cursor++;
}

// Block b of the frame: the reserved mapped block, else heap memory (allocated once under the
// mutex, by the first writer that needs it; flush() copies it into staging).
std::byte* ObjectTable::State::block(uint32_t b) {
  if (std::byte* p = block_data[b].load(std::memory_order_acquire)) return p;
  const std::lock_guard lock(mutex);
  std::byte* p = block_data[b].load(std::memory_order_relaxed);
  if (!p) {
    if (heap[b].empty()) heap[b].resize(block_bytes(b));
    p = heap[b].data();
    block_data[b].store(p, std::memory_order_release);
  }
  return p;
}

void ObjectTable::State::create_pipeline() {
  const CallScope scope(*device);
  const Reflection reflection = reflect_wgsl(shaders::object_scatter);
  reflection.throw_if_errors();
  check_struct_matches<ObjectRecord>(reflection.struct_layout("ObjectRecord"));
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
  const uint64_t needed = ids.size();
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
  uint64_t cap = std::max<uint64_t>(scatter_capacity, kMinScatterCapacity);
  while (cap < n) cap *= 2;
  // At most the table's limit, plus the unused slots writers may leave (n may exceed it by those).
  cap = std::max<uint64_t>(std::min<uint64_t>(cap, max_records), n);
  const WGPUBufferUsage usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst;
  scatter_ids = device->create_buffer(label + " scatter ids",
                                      align_to(kIdsHeaderBytes + 4 * cap, 16), usage);
  scatter_records =
      device->create_buffer(label + " scatter records", cap * kObjectRecordBytes, usage);
  scatter_capacity = uint32_t(cap);
  group = {};
}

// Ends the frame's writers: the slots they claimed and left unused get kUnusedSlot, except the
// ones at the very end of the claimed range, which are not uploaded at all. Returns the slots to
// upload; `unused` counts the kUnusedSlot ones among them.
uint32_t ObjectTable::State::close_writers(uint32_t claimed, uint32_t& unused) {
  uint32_t n = claimed;
  for (const auto& w : writers) {
    if (w->epoch != epoch || w->cursor == w->end) continue;
    if (w->end == claimed) {
      n = w->cursor;
      continue;
    }
    for (uint32_t s = w->cursor; s < w->end; ++s) id_word(s) = kUnusedSlot;
    unused += w->end - w->cursor;
  }
  return n;
}

// Two copies per block of slots [0, n): count + ids into the scatter ids, records into the
// scatter records; a block written in heap memory goes through a staging block first.
void ObjectTable::State::copy_blocks(WGPUCommandEncoder encoder, uint32_t n) {
  std::memcpy(block_data[0].load(std::memory_order_relaxed), &n, sizeof(n));
  for (uint32_t b = 0; b < kMaxBlocks && block_first_slot(b) < n; ++b) {
    const uint64_t first = block_first_slot(b);
    const uint64_t used = std::min<uint64_t>(n - first, block_slots(b));
    const uint64_t ids_begin = b == 0 ? 0 : kIdsHeaderBytes;
    const uint64_t ids_end = kIdsHeaderBytes + 4 * used;
    const uint64_t records_offset = block_records_offset(b);
    StagingBlock staged = mapped[b];
    if (staged.data.empty()) {  // heap: into staging now (frames past the reserved blocks)
      staged = ring.acquire(block_bytes(b));
      const std::byte* src = heap[b].data();
      std::memcpy(staged.data.data() + ids_begin, src + ids_begin, ids_end - ids_begin);
      std::memcpy(staged.data.data() + records_offset, src + records_offset,
                  used * kObjectRecordBytes);
    }
    ring.copy(encoder, staged, ids_begin, scatter_ids.get(), 4 * first + ids_begin,
              align_to(ids_end - ids_begin, 4));
    ring.copy(encoder, staged, records_offset, scatter_records.get(), first * kObjectRecordBytes,
              used * kObjectRecordBytes);
    mapped[b] = {};
  }
}

// Maps blocks 0 .. reserve_blocks - 1 for the next frame's writers (after ring.after_submit(),
// which hands back the blocks this frame left unused).
void ObjectTable::State::reserve_mapped() {
  for (uint32_t b = 0; b < kMaxBlocks; ++b) {
    if (b < reserve_blocks && block_bytes(b) <= device->limits().maxBufferSize) {
      mapped[b] = ring.acquire(block_bytes(b));
      block_data[b].store(mapped[b].data.data(), std::memory_order_relaxed);
    } else {
      mapped[b] = {};
      block_data[b].store(nullptr, std::memory_order_relaxed);
    }
  }
}

void ObjectTable::State::dispatch(WGPUCommandEncoder encoder, uint32_t n) {
  if (!group) {
    const WGPUBindGroupEntry entries[] = {buffer_group_entry(0, scatter_ids.get()),
                                          buffer_group_entry(1, scatter_records.get()),
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
  s.max_records = uint32_t(std::min<uint64_t>(max_bytes / kObjectRecordBytes, UINT32_MAX >> 1));
  if (desc.initial_capacity > s.max_records)
    throw Error(ErrorKind::BufferTooLarge,
                fmt::format("{}: initial_capacity {} records ({} bytes) exceed "
                            "maxStorageBufferBindingSize ({}) or maxBufferSize ({})",
                            s.who("ObjectTable"), desc.initial_capacity,
                            uint64_t(desc.initial_capacity) * kObjectRecordBytes,
                            limits.maxStorageBufferBindingSize, limits.maxBufferSize));
  s.capacity = desc.initial_capacity;
  s.table = s.create_table_buffer(s.capacity);
  s.ids.reserve(s.capacity);
  s.create_pipeline();
  s.reserve_mapped();
}

ObjectTable::~ObjectTable() = default;
ObjectTable::ObjectTable(ObjectTable&&) noexcept = default;
ObjectTable& ObjectTable::operator=(ObjectTable&&) noexcept = default;

ObjectId ObjectTable::add(const glm::mat4& world, uint32_t mesh, uint32_t material,
                          uint32_t pipeline) {
  State& s = *s_;
  const ObjectId next = s.free_ids.empty() ? ObjectId(s.ids.size()) : s.free_ids.back();
  s.check_finite("add", next, world);
  if (pipeline > kMaxObjectPipeline)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: pipeline index {} exceeds {} (flags bits 8..15)", s.who("add"),
                            pipeline, kMaxObjectPipeline));
  if (s.free_ids.empty()) {
    if (s.ids.size() >= s.max_records)
      throw Error(ErrorKind::BufferTooLarge,
                  fmt::format("{}: object {} needs {} bytes of records; "
                              "maxStorageBufferBindingSize is {}, maxBufferSize {}",
                              s.who("add"), next, (uint64_t(next) + 1) * kObjectRecordBytes,
                              s.device->limits().maxStorageBufferBindingSize,
                              s.device->limits().maxBufferSize));
    s.ids.emplace_back();
  } else {
    s.free_ids.pop_back();
  }
  IdState& st = s.ids[next];
  st.mesh = mesh;
  st.material = material;
  st.flags = uint16_t(kObjectLive | (pipeline << kObjectPipelineShift));
  s.stage_whole(st, next, world);
  s.id_end = std::max(s.id_end, next + 1);
  ++s.live;
  return next;
}

void ObjectTable::set_transform(ObjectId id, const glm::mat4& world) {
  State& s = *s_;
  IdState& st = s.live_state("set_transform", id);
  s.check_finite("set_transform", id, world);
  s.stage_whole(st, id, world);
}

void ObjectTable::set_transforms(std::span<const ObjectId> ids, std::span<const glm::mat4> worlds) {
  State& s = *s_;
  if (ids.size() != worlds.size())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: {} ids but {} matrices", s.who("set_transforms"), ids.size(),
                            worlds.size()));
  constexpr size_t kAhead = 32;  // ids prefetched ahead: enough misses in flight to hide latency
  const size_t n = ids.size();
  const size_t known = s.ids.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n && ids[i + kAhead] < known) __builtin_prefetch(&s.ids[ids[i + kAhead]], 1);
    IdState& st = s.live_state("set_transforms", ids[i]);
    s.check_finite("set_transforms", ids[i], worlds[i]);
    s.stage_whole(st, ids[i], worlds[i]);
  }
}

void ObjectTable::set_material(ObjectId id, uint32_t material) {
  IdState& st = s_->live_state("set_material", id);
  st.material = material;
  s_->stage_meta(st, id);
}

void ObjectTable::set_mesh(ObjectId id, uint32_t mesh) {
  IdState& st = s_->live_state("set_mesh", id);
  st.mesh = mesh;
  s_->stage_meta(st, id);
}

void ObjectTable::remove(ObjectId id) {
  State& s = *s_;
  IdState& st = s.live_state("remove", id);
  st.mesh = st.material = 0;
  st.flags = 0;
  s.stage_whole(st, id, glm::mat4(0.0f));
  s.free_ids.push_back(id);
  --s.live;
  while (s.id_end > 0 && !(s.ids[s.id_end - 1].flags & kObjectLive)) --s.id_end;
}

bool ObjectTable::contains(ObjectId id) const {
  return id < s_->ids.size() && (s_->ids[id].flags & kObjectLive);
}

ObjectMeta ObjectTable::meta(ObjectId id) const {
  const IdState& st = s_->live_state("meta", id);
  return {st.mesh, st.material, st.flags, 0};
}

uint32_t ObjectTable::size() const { return s_->live; }
uint32_t ObjectTable::id_end() const { return s_->id_end; }
uint32_t ObjectTable::capacity() const { return s_->capacity; }

ObjectFlushStats ObjectTable::flush(WGPUCommandEncoder encoder) {
  const CallScope scope(*s_->device);
  State& s = *s_;
  ObjectFlushStats st;
  const uint32_t claimed = s.next_slot.load(std::memory_order_relaxed);
  const bool grow = s.ids.size() > s.capacity;
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
  const uint32_t n = s.close_writers(claimed, st.unused_slots);
  if (n > 0) {
    s.ensure_scatter_capacity(n);
    s.copy_blocks(encoder, n);
    s.dispatch(encoder, n);
    st.records_uploaded = n;
    st.bytes = uint64_t(n) * kObjectRecordBytes;
    st.index_bytes = kIdsHeaderBytes + 4 * uint64_t(n);
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
  // IdState keeps 16 bits of the epoch: once every 65,535 uploading flushes, every id's epoch
  // goes back to 0 (never current) before the count starts again at 1.
  if (++s.epoch == kEpochs) {
    for (IdState& id : s.ids) id.epoch = 0;
    for (const auto& w : s.writers) w->epoch = 0;
    s.epoch = 1;
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
    std::memcpy(s.heap[b].data(), s.mapped[b].data.data(), block_bytes(b));
    s.block_data[b].store(s.heap[b].data(), std::memory_order_relaxed);
    s.mapped[b] = {};
  }
  s.ring.after_submit();  // maps the copied blocks; reserved ones left unused go back to the pool
  s.retired.clear();
  if (claimed == 0) s.reserve_mapped();
}

WGPUBuffer ObjectTable::buffer() const { return s_->table.get(); }
uint64_t ObjectTable::generation() const { return s_->generation; }
StagingRingStats ObjectTable::staging_stats() const { return s_->ring.stats(); }

std::string_view ObjectTable::wgsl() { return shaders::object_record; }

}  // namespace bindery::gpu_driven
