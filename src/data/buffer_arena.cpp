// SPDX-License-Identifier: MIT
// BufferArena: the GPU layer shared by DynamicUniformBuffer and StorageArray (buffer_arena.hpp).
#include "bindery/data/buffer_arena.hpp"

#include "bindery/core/device.hpp"
#include "bindery/core/error.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery/data/validation.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bindery {

namespace {

void check_chunk(uint32_t chunk, size_t count, const char* call) {
  if (chunk >= count) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: chunk {} is out of range (chunk count {})", call, chunk, count));
  }
}

// createBindGroupLayout with the arena's single buffer entry, validated first.
gpu::BindGroupLayout create_single_entry_layout(const Device& device, const std::string& label,
                                                const BindingLayoutEntry& entry) {
  const CallScope scope(device);
  validate_bind_group_layout({label, {entry}}, device.limits());
  if (!is_buffer(entry.kind))
    throw Error(ErrorKind::InvalidArgument, "buffer arena: binding kind is not a buffer");
  const WGPUBindGroupLayoutEntry e = layout_entry(entry);
  auto layout = create_bind_group_layout(device, label, {&e, 1});
  with_context(fmt::format("creating bind group layout '{}'", label), [&] { device.check(); });
  return layout;
}

}  // namespace

BufferArena::BufferArena(const Device& device, Kind kind, const SlotLayout& layout,
                         uint32_t slot_count)
    : device_(&device), kind_(std::move(kind)), shadow_(layout, slot_count) {
  if (kind_.lent_layout) {
    layout_ = kind_.lent_layout;
  } else {
    owned_layout_ = create_single_entry_layout(device, kind_.label, layout_entry());
    layout_ = owned_layout_.get();
  }
  rebuild_chunks_from(0);
}

BufferArena::~BufferArena() = default;

void BufferArena::check_slot(uint32_t slot, const char* call) const {
  shadow_.check_slot(slot, call);
}

BindingLayoutEntry BufferArena::layout_entry() const {
  BindingLayoutEntry e;
  e.binding = kind_.binding;
  e.kind = kind_.binding_kind;
  e.visibility = kind_.visibility;
  e.has_dynamic_offset = kind_.has_dynamic_offset;
  // Dynamic offsets bind one element; a storage array's runtime-sized array counts as one
  // element of its stride.
  e.min_binding_size = kind_.has_dynamic_offset ? element_size() : stride();
  e.name = kind_.label;
  return e;
}

uint32_t BufferArena::chunk_of(uint32_t slot) const {
  check_slot(slot, "chunk_of");
  return slot_layout().chunk_of(slot);
}

WGPUBindGroup BufferArena::bind_group(uint32_t chunk) const {
  check_chunk(chunk, bind_groups_.size(), "bind_group");
  return bind_groups_[chunk].get();
}

WGPUBuffer BufferArena::buffer(uint32_t chunk) const {
  check_chunk(chunk, buffers_.size(), "buffer");
  return buffers_[chunk].get();
}

uint64_t BufferArena::buffer_size(uint32_t chunk) const {
  check_chunk(chunk, buffer_sizes_.size(), "buffer_size");
  return buffer_sizes_[chunk];
}

WGPUBindGroupEntry BufferArena::bind_group_entry(uint32_t chunk) const {
  check_chunk(chunk, buffers_.size(), "bind_group_entry");
  // Dynamic offsets: the element, not the whole buffer (seed 002); storage: the whole chunk.
  return buffer_group_entry(kind_.binding, buffers_[chunk].get(), 0,
                            kind_.has_dynamic_offset ? element_size() : buffer_sizes_[chunk]);
}

FlushStats BufferArena::flush() {
  const CallScope scope(*device_);  // one pair of error scopes for every write below
  FlushStats stats;
  const std::byte* base = shadow_.bytes().data();
  for (const UploadRange& r : shadow_.take_upload_ranges(kind_.flush_policy)) {
    device_->write_buffer(buffers_[r.chunk].get(), r.buffer_offset, base + r.shadow_offset, r.size);
    stats.write_buffer_calls++;
    stats.bytes_uploaded += r.size;
  }
  return stats;
}

void BufferArena::resize(uint32_t slot_count) {
  const uint32_t first = shadow_.resize(slot_count);
  if (first < shadow_.chunk_count() || buffers_.size() != shadow_.chunk_count()) {
    rebuild_chunks_from(first);
  }
}

void BufferArena::rebuild_chunks_from(uint32_t first) {
  const uint32_t count = shadow_.chunk_count();
  first = std::min<uint32_t>(first, static_cast<uint32_t>(buffers_.size()));
  buffers_.resize(first);
  buffer_sizes_.resize(first);
  bind_groups_.resize(first);
  for (uint32_t c = first; c < count; ++c) {
    const uint64_t size = slot_layout().chunk_size_bytes(c, shadow_.slot_count());
    const std::string label =
        count == 1 ? kind_.label : fmt::format("{} [chunk {}]", kind_.label, c);
    buffers_.push_back(device_->create_buffer(label, size, kind_.usage));
    buffer_sizes_.push_back(size);
    const WGPUBindGroupEntry e = bind_group_entry(c);
    // The same checks createBindGroup makes, before the implementation sees the call.
    validate_buffer_binding({kind_.binding, kind_.binding_kind, e.offset, e.size, size,
                             layout_entry().min_binding_size, 0},
                            device_->limits());
    bind_groups_.push_back(create_bind_group(*device_, label, layout_, {&e, 1}));
    with_context(fmt::format("creating bind group '{}'", label), [&] { device_->check(); });
  }
}

}  // namespace bindery
