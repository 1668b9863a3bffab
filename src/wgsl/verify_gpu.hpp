// SPDX-License-Identifier: MIT
// src/wgsl/verify_gpu.hpp — private to src/wgsl/ (the layout verifier, layout_verify.hpp): what
// the verifier asks of the device: a validation error scope and its message (on one line), a
// shader module, and a buffer's bytes read back.
#pragma once

#include <bindery/core/device.hpp>
#include <bindery/core/gpu.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bindery::wgsl::verify {

/// The implementation's multi-line message reduced to its error lines, on one line.
std::string one_line(std::string_view message);

/// A validation error scope pushed on `d` at construction, popped by pop_raw() or pop().
struct Scope {
  const Device& d;
  explicit Scope(const Device& device);
  /// Pops the scope: the error message as the implementation wrote it, or empty. Throws
  /// DeviceLost when the implementation never reports the scope's result.
  std::string pop_raw();
  /// Pops the scope: the error message on one line, or empty.
  std::string pop() { return one_line(pop_raw()); }
};

/// The shader module of `wgsl` (label "bindery layout verification").
gpu::ShaderModule create_module(const Device& d, std::string_view wgsl);

/// The first `size` bytes of `src` (CopySrc usage), copied to a mappable buffer and mapped.
/// Throws WebGPUValidation when the map fails.
std::vector<std::byte> read_back(const Device& d, WGPUBuffer src, uint64_t size);

}  // namespace bindery::wgsl::verify
