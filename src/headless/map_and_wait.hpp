// SPDX-License-Identifier: MIT
// src/headless/map_and_wait.hpp — mapping a buffer and waiting for it. Private to headless/ (used
// by TextureReadback and BufferReadback).
#pragma once

#include "bindery/core/device.hpp"

#include <webgpu/webgpu.h>

#include <cstdint>

namespace bindery {

/// Maps `buffer` (its first `size` bytes) with `mode` and polls the device until the map is done.
/// Throws WebGPUValidation when the map fails or does not complete.
void map_and_wait(const Device& device, WGPUBuffer buffer, WGPUMapMode mode, uint64_t size);

}  // namespace bindery
