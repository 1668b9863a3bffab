// SPDX-License-Identifier: MIT
// MeshPool: meshes in one vertex and one index buffer, each managed by an OffsetAllocator, with a
// table of MeshRecord per id. See include/bindery/gpu_driven/mesh_pool.hpp (growth policy there).
#include "bindery/gpu_driven/mesh_pool.hpp"

#include "bindery/core/error.hpp"
#include "bindery/wgsl/wgsl_layout.hpp"

#include <fmt/format.h>
#include <meshoptimizer.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace bindery::gpu_driven {

namespace {

constexpr std::string_view kMeshRecordWgsl =
    "struct MeshRecord {\n"
    "  sphere: vec4f,\n"
    "  boxMin: vec4f,\n"
    "  boxMax: vec4f,\n"
    "  indexCount: u32,\n"
    "  firstIndex: u32,\n"
    "  baseVertex: i32,\n"
    "  vertexCount: u32,\n"
    "}\n";

// The element stride of array<MeshRecord> (WGSL §14.4.1: roundUp(AlignOf, SizeOf)), from the
// reflected struct, after checking MeshRecord (C++) against it.
uint32_t reflected_record_stride() {
  const Reflection r = reflect_wgsl(kMeshRecordWgsl);
  r.throw_if_errors();
  const StructLayout& layout = r.struct_layout("MeshRecord");
  check_struct_matches<MeshRecord>(layout);
  const uint32_t stride = (layout.size + layout.align - 1) / layout.align * layout.align;
  if (stride != sizeof(MeshRecord))
    throw Error(ErrorKind::StructMismatch,
                fmt::format("MeshRecord: array stride {} differs from sizeof(MeshRecord) {}", stride,
                            sizeof(MeshRecord)));
  return stride;
}

// How many units of `unit_bytes` the device lets one pool buffer hold, and the limit that says so.
struct Bound {
  uint64_t units = 0;
  std::string limit;
};
Bound growth_bound(const Limits& limits, uint64_t unit_bytes, uint64_t max_units,
                   std::string_view unit_limit, bool storage = true) {
  const bool buffer_smaller =
      !storage || limits.maxBufferSize <= limits.maxStorageBufferBindingSize;
  const uint64_t bytes = buffer_smaller ? limits.maxBufferSize : limits.maxStorageBufferBindingSize;
  Bound b{bytes / unit_bytes,
          fmt::format("{} ({} bytes)",
                      buffer_smaller ? "maxBufferSize" : "maxStorageBufferBindingSize", bytes)};
  if (b.units > max_units) b = {max_units, std::string(unit_limit)};
  return b;
}

void validate_desc(const MeshPoolDesc& desc) {
  const std::string label = escape_for_message(desc.label);
  if (desc.vertex_stride < 12 || desc.vertex_stride % 4 != 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("MeshPool '{}': vertex_stride {} must be a multiple of 4 and at least "
                            "12 (the float32x3 position; writeBuffer moves multiples of 4 bytes)",
                            label, desc.vertex_stride));
  if (desc.initial_vertices == 0 || desc.initial_indices == 0 || desc.initial_ids == 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("MeshPool '{}': initial_vertices ({}), initial_indices ({}) and "
                            "initial_ids ({}) must each be at least 1",
                            label, desc.initial_vertices, desc.initial_indices, desc.initial_ids));
}

}  // namespace

namespace {

// MeshPool::add(const Mesh&)'s rule for bounds that are set (see mesh_pool.hpp).
void check_mesh_bounds(const Mesh& mesh, std::string_view what) {
  const glm::vec3 lo = mesh.bounds_min, hi = mesh.bounds_max;
  const auto box = [&] {
    return fmt::format("({}, {}, {})..({}, {}, {})", lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
  };
  for (int a = 0; a < 3; ++a) {
    if (!std::isfinite(lo[a]) || !std::isfinite(hi[a]))
      throw Error(ErrorKind::MeshBounds,
                  fmt::format("{}: the bounds {} have a corner that is not finite", what, box()));
    if (lo[a] > hi[a])
      throw Error(ErrorKind::MeshBounds,
                  fmt::format("{}: the bounds {} have bounds_min > bounds_max on axis {}", what,
                              box(), "xyz"[a]));
  }
  const glm::vec3 extent = hi - lo;
  const float tolerance = 1e-5f * (1.0f + std::max({extent.x, extent.y, extent.z}));
  for (size_t v = 0; v < mesh.vertices.size(); ++v) {
    const glm::vec3 p = mesh.vertices[v].position;
    for (int a = 0; a < 3; ++a)
      if (!(p[a] >= lo[a] - tolerance && p[a] <= hi[a] + tolerance))
        throw Error(ErrorKind::MeshBounds,
                    fmt::format("{}: vertex {} at ({}, {}, {}) is outside the mesh's bounds {} "
                                "(bounds must contain every vertex, or culling drops visible "
                                "objects; leave both corners at 0 to have them computed)",
                                what, v, p.x, p.y, p.z, box()));
  }
}

}  // namespace

MeshBounds bounds_of_box(glm::vec3 box_min, glm::vec3 box_max) {
  MeshBounds b;
  b.box_min = box_min;
  b.box_max = box_max;
  b.sphere = glm::vec4((box_min + box_max) * 0.5f, glm::length(box_max - box_min) * 0.5f);
  return b;
}

std::string_view MeshPool::wgsl() { return kMeshRecordWgsl; }

MeshPool::MeshPool(const Device& device, const MeshPoolDesc& desc)
    : device_(&device),
      label_(desc.label),
      vertex_stride_(desc.vertex_stride),
      optimize_vertex_cache_(desc.optimize_vertex_cache) {
  validate_desc(desc);
  record_stride_ = reflected_record_stride();
  const Limits& limits = device.limits();
  const std::string label = escape_for_message(label_);
  auto setup = [&](GrowableBuffer& b, std::string_view what, uint64_t unit_bytes,
                   uint64_t initial, uint64_t max_units, std::string_view unit_limit,
                   WGPUBufferUsage usage) {
    const bool storage = (usage & WGPUBufferUsage_Storage) != 0;
    const Bound bound = growth_bound(limits, unit_bytes, max_units, unit_limit, storage);
    if (initial > bound.units)
      throw Error(ErrorKind::BufferTooLarge,
                  fmt::format("MeshPool '{}': {} initial {} exceed the {} a pool buffer may hold "
                              "(bound: {})",
                              label, initial, what, bound.units, bound.limit));
    b.allocator = OffsetAllocator(initial);
    b.unit_bytes = unit_bytes;
    b.max_units = bound.units;
    b.bound = bound.limit;
    b.usage = usage;
    b.label = fmt::format("{} {}", label_, what);
    b.buffer = device.create_buffer(b.label, initial * unit_bytes, usage);
  };
  setup(vertices_, "vertices", vertex_stride_, desc.initial_vertices,
        uint64_t{std::numeric_limits<int32_t>::max()} + 1, "2^31 vertices (baseVertex is an i32)",
        WGPUBufferUsage_Vertex | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc |
            (desc.storage_binding ? WGPUBufferUsage_Storage : WGPUBufferUsage_None));
  setup(indices_, "indices", sizeof(uint32_t), desc.initial_indices,
        std::numeric_limits<uint32_t>::max(), "2^32 - 1 indices (firstIndex is a u32)",
        WGPUBufferUsage_Index | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc |
            (desc.storage_binding ? WGPUBufferUsage_Storage : WGPUBufferUsage_None));
  const Bound ids = growth_bound(limits, record_stride_, std::numeric_limits<uint32_t>::max(),
                                 "2^32 - 1 ids (MeshId is a u32)");
  if (desc.initial_ids > ids.units)
    throw Error(ErrorKind::BufferTooLarge,
                fmt::format("MeshPool '{}': {} initial ids exceed the {} records a mesh table may "
                            "hold (bound: {})",
                            label, desc.initial_ids, ids.units, ids.limit));
  max_records_ = ids.units;
  table_records_ = desc.initial_ids;
  table_ = device.create_buffer(label_ + " mesh table", table_records_ * record_stride_,
                                WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst |
                                    WGPUBufferUsage_CopySrc);
}

MeshPool::MeshPool(MeshPool&&) noexcept = default;
MeshPool& MeshPool::operator=(MeshPool&&) noexcept = default;
MeshPool::~MeshPool() = default;

void MeshPool::write(WGPUBuffer buffer, uint64_t offset, const void* data, uint64_t size) {
  device_->write_buffer(buffer, offset, data, size);
  bytes_uploaded_ += size;
}

void MeshPool::replace_buffer(gpu::Buffer& buffer, const std::string& label, uint64_t old_bytes,
                              uint64_t new_bytes, WGPUBufferUsage usage) {
  const CallScope scope(*device_);
  gpu::Buffer grown = device_->create_buffer(label, new_bytes, usage);
  gpu::CommandEncoder encoder =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device_->get(), nullptr));
  wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), buffer.get(), 0, grown.get(), 0, old_bytes);
  device_->counters().copy_buffer_to_buffer++;
  gpu::CommandBuffer commands =
      gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  const WGPUCommandBuffer raw = commands.get();
  device_->submit(std::span<const WGPUCommandBuffer>(&raw, 1));
  buffer = std::move(grown);  // the old buffer is released; submitted work keeps it alive
  ++generation_;
  ++growths_;
}

void MeshPool::grow(GrowableBuffer& b, uint64_t units) {
  const uint64_t capacity = b.allocator.capacity();
  // A free range at the end of the buffer joins the new space (OffsetAllocator::grow).
  const uint64_t needed = capacity + units - std::min(units, b.allocator.free_tail());
  if (needed > b.max_units)
    throw Error(ErrorKind::BufferTooLarge,
                fmt::format("'{}' would need {} units of {} bytes, more than the {} it may hold "
                            "(bound: {})",
                            escape_for_message(b.label), needed, b.unit_bytes, b.max_units,
                            b.bound));
  const uint64_t grown = std::min(std::max(capacity * 2, needed), b.max_units);
  replace_buffer(b.buffer, b.label, capacity * b.unit_bytes, grown * b.unit_bytes, b.usage);
  b.allocator.grow(grown);
}

uint64_t MeshPool::allocate_in(GrowableBuffer& b, uint64_t units) {
  if (auto offset = b.allocator.allocate(units)) return *offset;
  grow(b, units);
  const auto offset = b.allocator.allocate(units);
  if (!offset)
    throw Error(ErrorKind::Internal,
                fmt::format("MeshPool: {} units do not fit after growth", units));
  return *offset;
}

MeshId MeshPool::take_id() {
  if (!free_ids_.empty()) {
    const MeshId id = *free_ids_.begin();
    free_ids_.erase(free_ids_.begin());
    return id;
  }
  if (slots_.size() >= max_records_)
    throw Error(ErrorKind::BufferTooLarge,
                fmt::format("MeshPool '{}': {} meshes exceed the {} records a mesh table may hold",
                            escape_for_message(label_), slots_.size() + 1, max_records_));
  if (slots_.size() >= table_records_) {
    const uint64_t grown = std::min(table_records_ * 2, max_records_);
    replace_buffer(table_, label_ + " mesh table", table_records_ * record_stride_,
                   grown * record_stride_,
                   WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc);
    table_records_ = grown;
  }
  slots_.emplace_back();
  return static_cast<MeshId>(slots_.size() - 1);
}

void MeshPool::write_record(MeshId id) {
  MeshRecord record;  // zero: a removed id draws nothing
  const Slot& slot = slots_[id];
  if (slot.live) {
    const MeshRange& r = slot.range;
    record.sphere = r.bounds.sphere;
    record.boxMin = glm::vec4(r.bounds.box_min, 0.0f);
    record.boxMax = glm::vec4(r.bounds.box_max, 0.0f);
    record.indexCount = r.index_count;
    record.firstIndex = r.first_index;
    record.baseVertex = r.base_vertex;
    record.vertexCount = r.vertex_count;
  }
  write(table_.get(), uint64_t{id} * record_stride_, &record, sizeof(record));
}

std::string MeshPool::describe_add(std::string_view name) const {
  return fmt::format("MeshPool '{}': add('{}')", escape_for_message(label_),
                     escape_for_message(name));
}

void MeshPool::validate(std::span<const std::byte> vertices, std::span<const uint32_t> indices,
                        std::string_view name) const {
  if (vertices.empty() || vertices.size() % vertex_stride_ != 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: {} vertex bytes are not a non-zero multiple of vertex_stride {}",
                            describe_add(name), vertices.size(), vertex_stride_));
  if (indices.empty() || indices.size() % 3 != 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: {} indices are not a non-zero multiple of 3 (a triangle list)",
                            describe_add(name), indices.size()));
  const uint64_t vertex_count = vertices.size() / vertex_stride_;
  for (size_t i = 0; i < indices.size(); ++i)
    if (indices[i] >= vertex_count)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: index {} at position {} is not below the vertex count {}",
                              describe_add(name), indices[i], i, vertex_count));
}

MeshId MeshPool::add(std::span<const std::byte> vertices, std::span<const uint32_t> indices,
                     std::string_view name) {
  validate(vertices, indices, name);
  const uint64_t vertex_count = vertices.size() / vertex_stride_;
  glm::vec3 lo(std::numeric_limits<float>::max()), hi(std::numeric_limits<float>::lowest());
  for (uint64_t v = 0; v < vertex_count; ++v) {
    glm::vec3 p;
    std::memcpy(&p, vertices.data() + v * vertex_stride_, sizeof(p));
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  return with_context(describe_add(name),
                      [&] { return add_checked(vertices, indices, bounds_of_box(lo, hi)); });
}

MeshId MeshPool::add(const Mesh& mesh) {
  if (vertex_stride_ != sizeof(Vertex))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("MeshPool '{}': add(Mesh '{}') needs vertex_stride {} (bindery::Vertex), "
                            "the pool's is {}",
                            escape_for_message(label_), escape_for_message(mesh.name),
                            sizeof(Vertex), vertex_stride_));
  const std::span<const std::byte> bytes = std::as_bytes(std::span(mesh.vertices));
  validate(bytes, mesh.indices, mesh.name);
  const glm::vec3 zero(0.0f);
  if (mesh.bounds_min == zero && mesh.bounds_max == zero)
    return add(bytes, mesh.indices, mesh.name);  // not set: the box of the positions
  check_mesh_bounds(mesh, describe_add(mesh.name));
  return with_context(describe_add(mesh.name), [&] {
    return add_checked(bytes, mesh.indices, bounds_of_box(mesh.bounds_min, mesh.bounds_max));
  });
}

MeshId MeshPool::add_checked(std::span<const std::byte> vertices,
                             std::span<const uint32_t> indices, const MeshBounds& bounds) {
  const uint64_t vertex_count = vertices.size() / vertex_stride_;
  // MeshPoolDesc::optimize_vertex_cache: whole triangles reordered, each one's three indices
  // copied as they are (rotation and winding kept), before anything is allocated. The indices
  // were checked below vertex_count (meshopt asserts it).
  std::vector<uint32_t> reordered;
  if (optimize_vertex_cache_) {
    reordered.resize(indices.size());
    meshopt_optimizeVertexCache(reordered.data(), indices.data(), indices.size(),
                                size_t(vertex_count));
    indices = reordered;
  }
  const uint64_t first_vertex = allocate_in(vertices_, vertex_count);
  uint64_t first_index = 0;
  try {
    first_index = allocate_in(indices_, indices.size());
  } catch (...) {
    vertices_.allocator.free(first_vertex);
    throw;
  }
  MeshId id = 0;
  try {
    id = take_id();
  } catch (...) {
    vertices_.allocator.free(first_vertex);
    indices_.allocator.free(first_index);
    throw;
  }
  write(vertices_.buffer.get(), first_vertex * vertex_stride_, vertices.data(), vertices.size());
  write(indices_.buffer.get(), first_index * sizeof(uint32_t), indices.data(),
        indices.size_bytes());
  Slot& slot = slots_[id];
  slot.live = true;
  slot.range.first_index = static_cast<uint32_t>(first_index);
  slot.range.index_count = static_cast<uint32_t>(indices.size());
  slot.range.base_vertex = static_cast<int32_t>(first_vertex);
  slot.range.vertex_count = static_cast<uint32_t>(vertex_count);
  slot.range.bounds = bounds;
  ++live_;
  write_record(id);
  return id;
}

void MeshPool::remove(MeshId id) {
  if (!contains(id))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("MeshPool '{}': remove({}): no live mesh has this id",
                            escape_for_message(label_), id));
  Slot& slot = slots_[id];
  vertices_.allocator.free(static_cast<uint64_t>(slot.range.base_vertex));
  indices_.allocator.free(slot.range.first_index);
  slot = Slot{};
  --live_;
  free_ids_.insert(id);
  write_record(id);
}

const MeshRange& MeshPool::range(MeshId id) const {
  if (!contains(id))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("MeshPool '{}': range({}): no live mesh has this id",
                            escape_for_message(label_), id));
  return slots_[id].range;
}

bool MeshPool::contains(MeshId id) const { return id < slots_.size() && slots_[id].live; }
uint32_t MeshPool::id_capacity() const { return static_cast<uint32_t>(slots_.size()); }
WGPUBuffer MeshPool::vertex_buffer() const { return vertices_.buffer.get(); }
WGPUBuffer MeshPool::index_buffer() const { return indices_.buffer.get(); }
WGPUBuffer MeshPool::mesh_table() const { return table_.get(); }
uint64_t MeshPool::mesh_table_size() const { return table_records_ * record_stride_; }
uint64_t MeshPool::generation() const { return generation_; }
uint32_t MeshPool::vertex_stride() const { return vertex_stride_; }
bool MeshPool::optimizes_vertex_cache() const { return optimize_vertex_cache_; }

MeshPoolStats MeshPool::stats() const {
  MeshPoolStats s;
  s.meshes = live_;
  s.vertices_used = vertices_.allocator.used();
  s.vertex_capacity = vertices_.allocator.capacity();
  s.indices_used = indices_.allocator.used();
  s.index_capacity = indices_.allocator.capacity();
  s.growths = growths_;
  s.bytes_uploaded = bytes_uploaded_;
  return s;
}

}  // namespace bindery::gpu_driven
