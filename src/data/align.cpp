// SPDX-License-Identifier: MIT
// Alignment arithmetic (align.hpp): the out-of-line error paths and the limit-derived strides.
#include "bindery/data/align.hpp"

#include "bindery/core/error.hpp"

#include <fmt/format.h>

namespace bindery {

namespace detail {

void throw_not_power_of_two(uint64_t alignment) {
  throw Error(ErrorKind::NotPowerOfTwo,
              fmt::format("align_to: alignment {} is not a power of two", alignment));
}

void throw_align_overflow(uint64_t size, uint64_t alignment) {
  throw Error(ErrorKind::InvalidArgument,
              fmt::format("align_to: size {} rounded up to a multiple of {} overflows 64 bits",
                          size, alignment));
}

}  // namespace detail

namespace {

uint64_t stride_for(uint64_t element_size_bytes, uint64_t alignment, const char* caller,
                    const char* limit_name) {
  if (element_size_bytes == 0) {
    throw Error(ErrorKind::InvalidArgument, fmt::format("{}: element size is 0 bytes", caller));
  }
  if (!is_power_of_two(alignment)) {
    throw Error(ErrorKind::NotPowerOfTwo,
                fmt::format("{}: {} ({}) is not a power of two", caller, limit_name, alignment));
  }
  return align_to(element_size_bytes, alignment);
}

}  // namespace

uint64_t dynamic_uniform_stride(uint64_t element_size_bytes, const Limits& limits) {
  return stride_for(element_size_bytes, limits.minUniformBufferOffsetAlignment,
                    "dynamic_uniform_stride", "minUniformBufferOffsetAlignment");
}

uint64_t dynamic_storage_stride(uint64_t element_size_bytes, const Limits& limits) {
  return stride_for(element_size_bytes, limits.minStorageBufferOffsetAlignment,
                    "dynamic_storage_stride", "minStorageBufferOffsetAlignment");
}

}  // namespace bindery
