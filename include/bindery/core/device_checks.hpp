// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/device_checks.hpp — the two WebGPU rules Device itself checks before calling
/// webgpu.h: queue.writeBuffer's alignment and bounds, and the alignment limits requested at
/// requestDevice. bindery/data/validation.hpp includes this header and holds the other rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace bindery {

/// Checks queue.writeBuffer(buffer, buffer_offset, data, size) (WebGPU §19.2 writeBuffer;
/// rule 9; case W01): buffer_offset and size multiples of 4 (WriteBufferAlignment) and
/// buffer_offset + size <= buffer_size (WriteBufferOutOfBounds). Bytes.
void validate_write_buffer(uint64_t buffer_offset, uint64_t size, uint64_t buffer_size);

/// Resolves what an alignment-class limit (minUniformBufferOffsetAlignment,
/// minStorageBufferOffsetAlignment) will be on a device requested with `requested`
/// (requestDevice, WebGPU §4.3; case D02): absent -> `spec_default`; the request must be a power
/// of two and not better (smaller) than `adapter_value`, else DeviceCreation; a request worse
/// (larger) than the default leaves the default. `limit_name` is for the message.
uint32_t resolve_alignment_limit(std::string_view limit_name, std::optional<uint32_t> requested,
                                 uint32_t adapter_value, uint32_t spec_default);

}  // namespace bindery
