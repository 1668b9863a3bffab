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
#include <cmath>
#include <cstring>

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
  float whole_copy_share = 0.4f;
  uint32_t max_flushes = 8;           // ObjectTableDesc::max_flushes_without_after_submit
  uint32_t flushes_since_submit = 0;  // uploading flushes since the last after_submit()
  uint32_t max_records = 0;  // min(maxStorageBufferBindingSize, maxBufferSize) / 64

  // CPU side. records.size() is the high-water mark of ids ever handed out: every one of them
  // has a slot in buffer() once flushed.
  std::vector<ObjectRecord> records;
  std::vector<uint8_t> dirty;       // per record: listed in dirty_ids
  std::vector<ObjectId> dirty_ids;  // each changed id once since the last flush
  std::vector<ObjectId> free_ids;   // removed ids, reused last-in first-out
  uint32_t live = 0;
  uint32_t id_end = 0;

  // GPU side.
  uint32_t capacity = 0;
  uint64_t generation = 0;
  gpu::Buffer table;
  std::vector<gpu::Buffer> retired;  // replaced by growth; dropped at after_submit()
  uint32_t scatter_capacity = 0;     // records the scatter source buffers hold
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
        whole_copy_share(desc.whole_copy_share),
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

  ObjectRecord& live_record(std::string_view call, ObjectId id) {
    if (id >= records.size() || !(records[id].flags & kObjectLive)) throw_not_live(call, id);
    return records[id];
  }

  void check_finite(std::string_view call, ObjectId id, const glm::mat4& world) const {
    if (!all_finite(world))
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: object id {}: the world matrix has a non-finite element (NaN "
                              "or infinity)",
                              who(call), id));
  }

  void mark_dirty(ObjectId id) {
    if (dirty[id]) return;
    dirty[id] = 1;
    dirty_ids.push_back(id);
  }

  gpu::Buffer create_table_buffer(uint32_t records_count) const {
    return device->create_buffer(
        label, uint64_t(records_count) * kObjectRecordBytes,
        WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc);
  }

  void create_pipeline();
  void grow(WGPUCommandEncoder encoder, bool copy_old);
  void ensure_scatter_capacity(uint32_t n);
  void whole_copy(WGPUCommandEncoder encoder, ObjectFlushStats& st);
  void scatter(WGPUCommandEncoder encoder, ObjectFlushStats& st);
  void dispatch(WGPUCommandEncoder encoder, uint32_t n);
};

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

void ObjectTable::State::grow(WGPUCommandEncoder encoder, bool copy_old) {
  const uint64_t needed = records.size();
  uint64_t cap = capacity;
  while (cap < needed) cap *= 2;
  cap = std::min<uint64_t>(cap, max_records);  // add() keeps needed <= max_records
  gpu::Buffer bigger = create_table_buffer(uint32_t(cap));
  if (copy_old) {
    wgpuCommandEncoderCopyBufferToBuffer(encoder, table.get(), 0, bigger.get(), 0,
                                         uint64_t(capacity) * kObjectRecordBytes);
    device->counters().copy_buffer_to_buffer++;
  }
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
  cap = std::min<uint64_t>(cap, max_records);
  const WGPUBufferUsage usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst;
  scatter_ids =
      device->create_buffer(label + " scatter ids", align_to(kIdsHeaderBytes + 4 * cap, 16), usage);
  scatter_records =
      device->create_buffer(label + " scatter records", cap * kObjectRecordBytes, usage);
  scatter_capacity = uint32_t(cap);
  group = {};
}

void ObjectTable::State::whole_copy(WGPUCommandEncoder encoder, ObjectFlushStats& st) {
  const uint64_t bytes = records.size() * kObjectRecordBytes;
  StagingBlock block = ring.acquire(bytes);
  std::memcpy(block.data.data(), records.data(), bytes);
  ring.copy(encoder, block, 0, table.get(), 0, bytes);
  for (ObjectId id : dirty_ids) dirty[id] = 0;
  st.records_uploaded = uint32_t(records.size());
  st.bytes = bytes;
  st.whole_copy = true;
}

void ObjectTable::State::scatter(WGPUCommandEncoder encoder, ObjectFlushStats& st) {
  const uint32_t n = uint32_t(dirty_ids.size());
  ensure_scatter_capacity(n);
  const uint64_t ids_bytes = align_to(kIdsHeaderBytes + 4 * uint64_t(n), 4);
  const uint64_t records_offset = align_to(ids_bytes, 16);
  const uint64_t records_bytes = uint64_t(n) * kObjectRecordBytes;
  StagingBlock block = ring.acquire(records_offset + records_bytes);
  std::byte* base = block.data.data();
  std::memcpy(base, &n, sizeof(n));
  std::memcpy(base + kIdsHeaderBytes, dirty_ids.data(), 4 * uint64_t(n));
  std::byte* out = base + records_offset;
  const ObjectRecord* src = records.data();
  uint8_t* marks = dirty.data();
  for (uint32_t i = 0; i < n; ++i) {
    const ObjectId id = dirty_ids[i];
    std::memcpy(out + uint64_t(i) * kObjectRecordBytes, &src[id], kObjectRecordBytes);
    marks[id] = 0;
  }
  ring.copy(encoder, block, 0, scatter_ids.get(), 0, ids_bytes);
  ring.copy(encoder, block, records_offset, scatter_records.get(), 0, records_bytes);
  dispatch(encoder, n);
  st.records_uploaded = n;
  st.bytes = records_bytes;
  st.index_bytes = ids_bytes;
  st.scatter_dispatches = 1;
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
  s.max_records = uint32_t(std::min<uint64_t>(max_bytes / kObjectRecordBytes, UINT32_MAX));
  if (desc.initial_capacity > s.max_records)
    throw Error(ErrorKind::BufferTooLarge,
                fmt::format("{}: initial_capacity {} records ({} bytes) exceed "
                            "maxStorageBufferBindingSize ({}) or maxBufferSize ({})",
                            s.who("ObjectTable"), desc.initial_capacity,
                            uint64_t(desc.initial_capacity) * kObjectRecordBytes,
                            limits.maxStorageBufferBindingSize, limits.maxBufferSize));
  s.capacity = desc.initial_capacity;
  s.table = s.create_table_buffer(s.capacity);
  s.records.reserve(s.capacity);
  s.dirty.reserve(s.capacity);
  s.dirty_ids.reserve(s.capacity);
  s.create_pipeline();
}

ObjectTable::~ObjectTable() = default;
ObjectTable::ObjectTable(ObjectTable&&) noexcept = default;
ObjectTable& ObjectTable::operator=(ObjectTable&&) noexcept = default;

ObjectId ObjectTable::add(const glm::mat4& world, uint32_t mesh, uint32_t material,
                          uint32_t pipeline) {
  State& s = *s_;
  const ObjectId next = s.free_ids.empty() ? ObjectId(s.records.size()) : s.free_ids.back();
  s.check_finite("add", next, world);
  if (pipeline > kMaxObjectPipeline)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: pipeline index {} exceeds {} (flags bits 8..15)", s.who("add"),
                            pipeline, kMaxObjectPipeline));
  if (s.free_ids.empty()) {
    if (s.records.size() >= s.max_records)
      throw Error(ErrorKind::BufferTooLarge,
                  fmt::format("{}: object {} needs {} bytes of records; "
                              "maxStorageBufferBindingSize is {}, maxBufferSize {}",
                              s.who("add"), next, (uint64_t(next) + 1) * kObjectRecordBytes,
                              s.device->limits().maxStorageBufferBindingSize,
                              s.device->limits().maxBufferSize));
    s.records.emplace_back();
    s.dirty.push_back(0);
    if (s.dirty_ids.capacity() < s.records.capacity()) s.dirty_ids.reserve(s.records.capacity());
  } else {
    s.free_ids.pop_back();
  }
  ObjectRecord& r = s.records[next];
  world_to_rows(world, r.world_rows);
  r.mesh = mesh;
  r.material = material;
  r.flags = kObjectLive | (pipeline << kObjectPipelineShift);
  r.user = 0;
  s.mark_dirty(next);
  s.id_end = std::max(s.id_end, next + 1);
  ++s.live;
  return next;
}

void ObjectTable::set_transform(ObjectId id, const glm::mat4& world) {
  State& s = *s_;
  ObjectRecord& r = s.live_record("set_transform", id);
  s.check_finite("set_transform", id, world);
  world_to_rows(world, r.world_rows);
  s.mark_dirty(id);
}

void ObjectTable::set_material(ObjectId id, uint32_t material) {
  s_->live_record("set_material", id).material = material;
  s_->mark_dirty(id);
}

void ObjectTable::set_mesh(ObjectId id, uint32_t mesh) {
  s_->live_record("set_mesh", id).mesh = mesh;
  s_->mark_dirty(id);
}

void ObjectTable::remove(ObjectId id) {
  State& s = *s_;
  s.live_record("remove", id) = ObjectRecord{};
  s.mark_dirty(id);
  s.free_ids.push_back(id);
  --s.live;
  while (s.id_end > 0 && !(s.records[s.id_end - 1].flags & kObjectLive)) --s.id_end;
}

bool ObjectTable::contains(ObjectId id) const {
  return id < s_->records.size() && (s_->records[id].flags & kObjectLive);
}

const ObjectRecord& ObjectTable::record(ObjectId id) const {
  return s_->live_record("record", id);
}

uint32_t ObjectTable::size() const { return s_->live; }
uint32_t ObjectTable::id_end() const { return s_->id_end; }
uint32_t ObjectTable::capacity() const { return s_->capacity; }

ObjectFlushStats ObjectTable::flush(WGPUCommandEncoder encoder) {
  const CallScope scope(*s_->device);
  State& s = *s_;
  ObjectFlushStats st;
  const bool grow = s.records.size() > s.capacity;
  if (s.dirty_ids.empty() && !grow) return st;
  if (s.flushes_since_submit >= s.max_flushes)
    throw Error(ErrorKind::FrameProtocol,
                fmt::format("{}: {} flushes have uploaded since the last after_submit() (at most "
                            "{}, ObjectTableDesc::max_flushes_without_after_submit): call "
                            "after_submit() after each queue submit that carries flush()'s "
                            "commands, or the staging blocks ({} held now) are never handed back",
                            s.who("flush"), s.flushes_since_submit, s.max_flushes,
                            s.ring.stats().blocks));
  s.flushes_since_submit++;
  // A whole copy uploads every record ever handed out; scattering, the changed ones only.
  const bool whole = double(s.dirty_ids.size()) > double(s.whole_copy_share) * double(s.records.size());
  if (grow) {
    s.grow(encoder, /*copy_old=*/!whole);
    st.grew = true;
  }
  if (whole)
    s.whole_copy(encoder, st);
  else
    s.scatter(encoder, st);
  s.dirty_ids.clear();
  return st;
}

void ObjectTable::after_submit() {
  s_->flushes_since_submit = 0;
  s_->ring.after_submit();
  s_->retired.clear();
}

WGPUBuffer ObjectTable::buffer() const { return s_->table.get(); }
uint64_t ObjectTable::generation() const { return s_->generation; }
StagingRingStats ObjectTable::staging_stats() const { return s_->ring.stats(); }

std::string_view ObjectTable::wgsl() { return shaders::object_record; }

}  // namespace bindery::gpu_driven
