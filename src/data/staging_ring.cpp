// SPDX-License-Identifier: MIT
// StagingRing: mapped MAP_WRITE | COPY_SRC blocks recycled through mapAsync (staging_ring.hpp).
#include "bindery/data/staging_ring.hpp"

#include "bindery/data/align.hpp"
#include "bindery/core/device.hpp"
#include "bindery/core/error.hpp"

#include <fmt/format.h>

#include <vector>

namespace bindery {

namespace {

enum class BlockState {
  free,     // mapped, in the pool
  in_use,   // acquired, still mapped
  copied,   // unmapped, copies encoded; waiting for after_submit()
  mapping,  // mapAsync in flight
  lost,     // mapAsync failed; the buffer was dropped
};

constexpr uint64_t kDefaultBlockBytes = uint64_t(1) << 20;

}  // namespace

struct StagingRing::Pool {
  struct Block {
    gpu::Buffer buffer;
    uint64_t size = 0;
    BlockState state = BlockState::free;
  };
  std::string label;
  uint64_t block_size = kDefaultBlockBytes;
  std::vector<Block> blocks;
};

namespace {

// Userdata of one mapAsync: the pool may be gone when the callback fires.
struct MapTicket {
  std::weak_ptr<StagingRing::Pool> pool;
  uint32_t id;
};

}  // namespace

StagingRing::StagingRing(const Device& device, const StagingRingDesc& desc)
    : device_(&device), pool_(std::make_shared<Pool>()) {
  pool_->label = desc.label;
  const uint64_t block = desc.block_size == 0 ? kDefaultBlockBytes : desc.block_size;
  if (block > device.limits().maxBufferSize)
    throw Error(ErrorKind::BufferTooLarge,
                fmt::format("StagingRing('{}'): block_size {} exceeds maxBufferSize ({})",
                            desc.label, block, device.limits().maxBufferSize));
  pool_->block_size = align_to(block, 4);
}

StagingRing::~StagingRing() = default;
StagingRing::StagingRing(StagingRing&&) noexcept = default;
StagingRing& StagingRing::operator=(StagingRing&&) noexcept = default;

StagingBlock StagingRing::acquire(uint64_t size_bytes) {
  if (!pool_) throw Error(ErrorKind::InvalidArgument, "StagingRing::acquire: the ring was moved from");
  if (size_bytes == 0) {
    throw Error(ErrorKind::InvalidArgument, fmt::format("StagingRing('{}')::acquire: size 0",
                                                        pool_->label));
  }
  if (size_bytes > device_->limits().maxBufferSize)
    throw Error(ErrorKind::BufferTooLarge,
                fmt::format("StagingRing('{}')::acquire: {} bytes exceed maxBufferSize ({})",
                            pool_->label, size_bytes, device_->limits().maxBufferSize));
  const uint64_t size = align_to(size_bytes, 4);
  auto find_free = [&]() -> int64_t {
    for (size_t i = 0; i < pool_->blocks.size(); ++i) {
      const Pool::Block& b = pool_->blocks[i];
      if (b.state == BlockState::free && b.size >= size) return int64_t(i);
    }
    return -1;
  };
  int64_t id = find_free();
  if (id < 0) {
    device_->poll(false);  // harvest finished maps; does not wait
    id = find_free();
  }
  if (id < 0) {
    Pool::Block b;
    b.size = std::max(size, pool_->block_size);
    b.buffer = device_->create_buffer(
        fmt::format("{} [block {}]", pool_->label, pool_->blocks.size()), b.size,
        WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc, /*mapped_at_creation=*/true);
    pool_->blocks.push_back(std::move(b));
    id = int64_t(pool_->blocks.size() - 1);
  }
  Pool::Block& b = pool_->blocks[size_t(id)];
  void* p = wgpuBufferGetMappedRange(b.buffer.get(), 0, size_t(b.size));
  if (!p) {
    throw Error(ErrorKind::WebGPUValidation,
                fmt::format("StagingRing('{}'): getMappedRange returned null for block {}",
                            pool_->label, id));
  }
  b.state = BlockState::in_use;
  return {uint32_t(id), b.buffer.get(), {static_cast<std::byte*>(p), size_t(b.size)}};
}

void StagingRing::copy(WGPUCommandEncoder encoder, const StagingBlock& block, uint64_t src_offset,
                       WGPUBuffer dst, uint64_t dst_offset, uint64_t size_bytes) {
  const std::string call = fmt::format("StagingRing('{}')::copy", pool_->label);
  if (encoder == nullptr || dst == nullptr)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: the command encoder and the destination buffer must not be null", call));
  if (!(wgpuBufferGetUsage(dst) & WGPUBufferUsage_CopyDst))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: the destination buffer lacks COPY_DST usage (copyBufferToBuffer "
                            "needs it)",
                            call));
  if (block.id >= pool_->blocks.size() || pool_->blocks[block.id].buffer.get() != block.buffer) {
    throw Error(ErrorKind::InvalidArgument, fmt::format("{}: unknown block {}", call, block.id));
  }
  Pool::Block& b = pool_->blocks[block.id];
  if (b.state != BlockState::in_use && b.state != BlockState::copied) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: block {} was not acquired this frame", call, block.id));
  }
  if (src_offset % 4 || dst_offset % 4 || size_bytes % 4) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: copyBufferToBuffer source offset {}, destination offset {} and "
                            "size {} must be multiples of 4",
                            call, src_offset, dst_offset, size_bytes));
  }
  const uint64_t dst_size = dst ? wgpuBufferGetSize(dst) : 0;
  if (src_offset > b.size || size_bytes > b.size - src_offset || dst_offset > dst_size ||
      size_bytes > dst_size - dst_offset) {
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: {} bytes from offset {} of a {}-byte block to offset {} of a "
                            "{}-byte buffer are out of bounds",
                            call, size_bytes, src_offset, b.size, dst_offset, dst_size));
  }
  if (b.state == BlockState::in_use) {
    wgpuBufferUnmap(b.buffer.get());
    b.state = BlockState::copied;
  }
  wgpuCommandEncoderCopyBufferToBuffer(encoder, b.buffer.get(), src_offset, dst, dst_offset,
                                       size_bytes);
  Counters& c = device_->counters();
  c.copy_buffer_to_buffer++;
  c.bytes_uploaded += size_bytes;
}

void StagingRing::after_submit() {
  for (uint32_t id = 0; id < pool_->blocks.size(); ++id) {
    Pool::Block& b = pool_->blocks[id];
    if (b.state == BlockState::in_use) {
      b.state = BlockState::free;  // never copied: still mapped, reuse as is
      continue;
    }
    if (b.state != BlockState::copied) continue;
    b.state = BlockState::mapping;
    WGPUBufferMapCallbackInfo info = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
    info.mode = WGPUCallbackMode_AllowProcessEvents;
    info.callback = [](WGPUMapAsyncStatus status, WGPUStringView, void* userdata1, void*) {
      auto* ticket = static_cast<MapTicket*>(userdata1);
      if (auto pool = ticket->pool.lock(); pool && ticket->id < pool->blocks.size()) {
        Pool::Block& blk = pool->blocks[ticket->id];
        if (status == WGPUMapAsyncStatus_Success) {
          blk.state = BlockState::free;
        } else {
          blk.state = BlockState::lost;
          blk.buffer.reset();
          blk.size = 0;
        }
      }
      delete ticket;
    };
    info.userdata1 = new MapTicket{pool_, id};
    wgpuBufferMapAsync(b.buffer.get(), WGPUMapMode_Write, 0, size_t(b.size), info);
    device_->counters().map_async++;
  }
}

StagingRingStats StagingRing::stats() const {
  StagingRingStats s;
  if (!pool_) return s;  // moved from: an empty ring
  for (const Pool::Block& b : pool_->blocks) {
    if (b.state == BlockState::lost) continue;
    s.blocks++;
    s.bytes += b.size;
    switch (b.state) {
      case BlockState::free: s.free++; break;
      case BlockState::in_use:
      case BlockState::copied: s.in_use++; break;
      case BlockState::mapping: s.pending++; break;
      case BlockState::lost: break;
    }
  }
  return s;
}

}  // namespace bindery
