// SPDX-License-Identifier: MIT
// The rules Device checks itself (bindery/core/device_checks.hpp).
#include "bindery/core/device_checks.hpp"

#include "bindery/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace bindery {

void validate_write_buffer(uint64_t buffer_offset, uint64_t size, uint64_t buffer_size) {
  if (buffer_offset % 4 != 0) {
    throw Error(ErrorKind::WriteBufferAlignment,
                fmt::format("writeBuffer: bufferOffset {} is not a multiple of 4", buffer_offset));
  }
  if (size % 4 != 0) {
    throw Error(ErrorKind::WriteBufferAlignment,
                fmt::format("writeBuffer: size {} bytes is not a multiple of 4", size));
  }
  if (buffer_offset > buffer_size || size > buffer_size - buffer_offset) {
    throw Error(ErrorKind::WriteBufferOutOfBounds,
                fmt::format("writeBuffer: bufferOffset {} + size {} exceeds the buffer size {}",
                            buffer_offset, size, buffer_size));
  }
}

uint32_t resolve_alignment_limit(std::string_view limit_name, std::optional<uint32_t> requested,
                                 uint32_t adapter_value, uint32_t spec_default) {
  if (!requested) return spec_default;
  const uint32_t r = *requested;
  if (!std::has_single_bit(r)) {
    throw Error(ErrorKind::DeviceCreation,
                fmt::format("requestDevice: requiredLimits.{} = {} is not a power of two",
                            limit_name, r));
  }
  if (r < adapter_value) {
    throw Error(ErrorKind::DeviceCreation,
                fmt::format("requestDevice: requiredLimits.{} = {} is better than the adapter "
                            "supports ({})",
                            limit_name, r, adapter_value));
  }
  return std::min(r, spec_default);
}

}  // namespace bindery
