// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/align.hpp — alignment arithmetic for per-draw data: align_to and the strides that
/// dynamic offsets and storage arrays need.
///
/// WebGPU terms: an "alignment" limit (minUniformBufferOffsetAlignment,
/// minStorageBufferOffsetAlignment) is a power of two; the spec default 256 is the worst case and
/// a device may have been created with a smaller one, so strides are always computed from the
/// DEVICE's Limits (bindery::Device::limits()), never from a constant (the dynamic-offsets and offset-alignment notes:
/// "alignTo with bit arithmetic", an 80-byte object at a 256 stride).
///
/// Limits read: minUniformBufferOffsetAlignment, minStorageBufferOffsetAlignment.
/// Errors: NotPowerOfTwo (alignment 0 or not a power of two), InvalidArgument (overflow).
#pragma once

#include "bindery/core/limits.hpp"

#include <cstdint>

namespace bindery {

/// True when `value` is a power of two (1, 2, 4, ...); false for 0.
constexpr bool is_power_of_two(uint64_t value) noexcept {
  return value != 0 && (value & (value - 1)) == 0;
}

namespace detail {
[[noreturn]] void throw_not_power_of_two(uint64_t alignment);
[[noreturn]] void throw_align_overflow(uint64_t size, uint64_t alignment);
}  // namespace detail

/// Rounds `size` (bytes) up to the next multiple of `alignment` (bytes) with bit arithmetic:
/// (size + alignment - 1) & ~(alignment - 1) (the offset-alignment note, alignTo).
/// Throws NotPowerOfTwo when `alignment` is 0 or not a power of two, InvalidArgument when the
/// result does not fit in 64 bits.
constexpr uint64_t align_to(uint64_t size, uint64_t alignment) {
  if (!is_power_of_two(alignment)) detail::throw_not_power_of_two(alignment);
  const uint64_t mask = alignment - 1;
  if (size > UINT64_MAX - mask) detail::throw_align_overflow(size, alignment);
  return (size + mask) & ~mask;
}

/// Stride in bytes between consecutive elements addressed by DYNAMIC OFFSETS into a uniform
/// buffer: align_to(element_size_bytes, limits.minUniformBufferOffsetAlignment).
/// E.g. 128-byte element: 256 at the spec default, 128 on a device created with 64 (the dynamic-offsets note).
/// Throws NotPowerOfTwo when the limit is not a power of two; InvalidArgument when
/// element_size_bytes is 0.
uint64_t dynamic_uniform_stride(uint64_t element_size_bytes, const Limits& limits);

/// Stride in bytes between elements addressed by dynamic offsets into a storage buffer:
/// align_to(element_size_bytes, limits.minStorageBufferOffsetAlignment).
/// (A storage ARRAY indexed by instance_index uses the WGSL array stride instead, no padding.)
/// Throws like dynamic_uniform_stride.
uint64_t dynamic_storage_stride(uint64_t element_size_bytes, const Limits& limits);

}  // namespace bindery
