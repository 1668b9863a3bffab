// GPU side shared by DynamicUniformBuffer and StorageArray (buffer_arena.hpp).
#include "buffer_arena.hpp"

#include "bindery/error.hpp"
#include "bindery/validation.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bindery::detail {

namespace {

WGPUBufferBindingType to_wgpu(BindingKind kind) {
  switch (kind) {
    case BindingKind::uniform_buffer: return WGPUBufferBindingType_Uniform;
    case BindingKind::storage_buffer: return WGPUBufferBindingType_Storage;
    case BindingKind::read_only_storage_buffer: return WGPUBufferBindingType_ReadOnlyStorage;
    default: break;
  }
  throw Error(ErrorKind::InvalidArgument, "buffer arena: binding kind is not a buffer");
}

}  // namespace

gpu::BindGroupLayout create_single_entry_layout(const Device& device, const std::string& label,
                                                const BindingLayoutEntry& entry) {
  validate_bind_group_layout({label, {entry}}, device.limits());
  WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
  e.binding = entry.binding;
  e.visibility = static_cast<WGPUShaderStage>(entry.visibility);
  e.buffer = WGPU_BUFFER_BINDING_LAYOUT_INIT;
  e.buffer.type = to_wgpu(entry.kind);
  e.buffer.hasDynamicOffset = entry.has_dynamic_offset;
  e.buffer.minBindingSize = entry.min_binding_size;
  WGPUBindGroupLayoutDescriptor d = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
  d.label = gpu::sv(label);
  d.entryCount = 1;
  d.entries = &e;
  auto layout = gpu::BindGroupLayout::acquire(wgpuDeviceCreateBindGroupLayout(device.get(), &d));
  with_context(fmt::format("creating bind group layout '{}'", label), [&] { device.check(); });
  return layout;
}

WGPUBindGroupEntry chunk_entry(const std::vector<gpu::Buffer>& buffers,
                               const std::vector<uint64_t>& sizes, const ArenaBinding& b,
                               uint32_t chunk) {
  check_chunk(chunk, buffers.size(), "bind_group_entry");
  WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
  e.binding = b.binding;
  e.buffer = buffers[chunk].get();
  e.offset = 0;
  e.size = b.element_binding_size != 0 ? b.element_binding_size : sizes[chunk];
  return e;
}

void rebuild_chunks(const Device& device, const SlotShadow& shadow, const ArenaBinding& b,
                    uint32_t first, ArenaChunks chunks) {
  const uint32_t count = shadow.chunk_count();
  first = std::min<uint32_t>(first, static_cast<uint32_t>(chunks.buffers.size()));
  chunks.buffers.resize(first);
  chunks.sizes.resize(first);
  chunks.bind_groups.resize(first);
  for (uint32_t c = first; c < count; ++c) {
    const uint64_t size = shadow.layout().chunk_size_bytes(c, shadow.slot_count());
    const std::string label = count == 1 ? b.label : fmt::format("{} [chunk {}]", b.label, c);
    chunks.buffers.push_back(device.create_buffer(label, size, b.usage));
    chunks.sizes.push_back(size);
    const WGPUBindGroupEntry e = chunk_entry(chunks.buffers, chunks.sizes, b, c);
    // The same checks createBindGroup makes, before the implementation sees the call.
    validate_buffer_binding({b.binding, b.kind, e.offset, e.size, size, b.min_binding_size, 0},
                            device.limits());
    WGPUBindGroupDescriptor d = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
    d.label = gpu::sv(label);
    d.layout = b.layout;
    d.entryCount = 1;
    d.entries = &e;
    chunks.bind_groups.push_back(device.create_bind_group(d));
    with_context(fmt::format("creating bind group '{}'", label), [&] { device.check(); });
  }
}

FlushStats flush_shadow(const Device& device, SlotShadow& shadow,
                        const std::vector<gpu::Buffer>& buffers, const FlushPolicy& policy) {
  FlushStats stats;
  const std::byte* base = shadow.bytes().data();
  for (const UploadRange& r : shadow.take_upload_ranges(policy)) {
    device.write_buffer(buffers[r.chunk].get(), r.buffer_offset, base + r.shadow_offset,
                        r.size);
    stats.write_buffer_calls++;
    stats.bytes_uploaded += r.size;
  }
  return stats;
}

void check_chunk(uint32_t chunk, size_t count, const char* call) {
  if (chunk >= count) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: chunk {} is out of range (chunk count {})", call, chunk, count));
  }
}

}  // namespace bindery::detail
