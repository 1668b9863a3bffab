// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/staging_ring.hpp — a pool of mapped staging buffers for uploads without an
/// intermediate copy (the optimization article: "mapped transfer buffers with copyBufferToBuffer").
///
/// Each block is a buffer with usage MAP_WRITE | COPY_SRC, created with mappedAtCreation. A frame:
///   StagingBlock b = ring.acquire(bytes);   // already mapped (or newly created): never waits
///   write straight into b.data;             // no intermediate copy
///   ring.copy(encoder, b, 0, dst, dst_offset, bytes);   // unmaps b, encodes copyBufferToBuffer
///                                           // (encode it BEFORE the pass that reads dst)
///   ... finish the encoder, queue.submit ...
///   ring.after_submit();                    // mapAsync(WRITE) on every block copied this frame
/// The mapAsync callback puts the block back in the pool once the GPU is done with it; it fires
/// inside Device::poll() (callback mode AllowProcessEvents; wgpu-native's wgpuDevicePoll or
/// Dawn's wgpuInstanceProcessEvents drives it). acquire() never blocks: when no mapped block fits it polls once without waiting and
/// otherwise creates a new block, so the pool grows to the number of frames in flight.
///
/// Counters (Device::counters()): buffers_created (through Device::create_buffer),
/// copy_buffer_to_buffer and bytes_uploaded (per copy), map_async (per mapAsync).
/// Limits read: maxBufferSize (through Device::create_buffer: BufferTooLarge).
/// Errors: InvalidArgument for misuse (size 0, a block not acquired, copy offsets or sizes not
/// multiples of 4 or out of bounds).
#pragma once

#include "bindery/core/gpu.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace bindery {

class Device;

/// Options for StagingRing.
struct StagingRingDesc {
  std::string label = "staging ring";  ///< prefix of the staging buffers' labels
  /// Smallest block size in bytes (rounded up to 4); a larger acquire() gets a block of its own
  /// size. 0: 1 MiB.
  uint64_t block_size = 0;
};

/// One mapped staging block handed out by StagingRing::acquire().
struct StagingBlock {
  uint32_t id = 0;                ///< index in the pool
  WGPUBuffer buffer = nullptr;    ///< MAP_WRITE | COPY_SRC buffer (lent)
  std::span<std::byte> data;      ///< the mapped range: write here until copy() unmaps it
};

/// Pool state, for reports and tests.
struct StagingRingStats {
  uint32_t blocks = 0;   ///< buffers in the pool (created so far, minus failed maps)
  uint32_t free = 0;     ///< mapped and ready for acquire()
  uint32_t in_use = 0;   ///< acquired or copied, not yet after_submit()
  uint32_t pending = 0;  ///< mapAsync in flight
  uint64_t bytes = 0;    ///< total size of the pool's buffers
};

/// A pool of MAP_WRITE | COPY_SRC staging buffers that are always handed out mapped.
/// Move-only. Destroying it with maps in flight is safe (their callbacks find the pool gone).
class StagingRing {
 public:
  /// An empty pool on `device` (which must outlive it); blocks are created on demand. Throws
  /// BufferTooLarge when block_size exceeds maxBufferSize.
  StagingRing(const Device& device, const StagingRingDesc& desc = {});
  ~StagingRing();
  /// Moves the pool; the moved-from ring throws InvalidArgument when used.
  StagingRing(StagingRing&&) noexcept;
  /// Drops this pool (maps in flight stay safe), then takes over the other one.
  StagingRing& operator=(StagingRing&&) noexcept;

  /// A mapped block of at least `size_bytes` bytes (rounded up to 4): a free one if any fits,
  /// else a new one created mappedAtCreation. Never waits for a map.
  StagingBlock acquire(uint64_t size_bytes);
  /// Encodes copyBufferToBuffer(block, src_offset -> dst, dst_offset, size_bytes), unmapping the
  /// block first if still mapped (block.data is invalid afterwards). Offsets and size must be
  /// multiples of 4 and in bounds of both buffers.
  void copy(WGPUCommandEncoder encoder, const StagingBlock& block, uint64_t src_offset,
            WGPUBuffer dst, uint64_t dst_offset, uint64_t size_bytes);
  /// Call once after the queue.submit that carries this frame's copies: starts mapAsync(WRITE)
  /// on each copied block; blocks acquired but never copied go straight back to the pool.
  void after_submit();

  /// Counts of the pool's blocks by state, and their bytes.
  StagingRingStats stats() const;

  struct Pool;  ///< opaque implementation state (shared with in-flight map callbacks)

 private:
  const Device* device_;
  std::shared_ptr<Pool> pool_;
};

}  // namespace bindery
