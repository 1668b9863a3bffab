// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/backend.hpp — the backend a Device may use (DeviceOptions::backend); its own
/// header so that the implementation adapters (src/core/implementation/) need not include
/// device.hpp.
#pragma once

namespace bindery {

/// Which backend the WebGPU implementation may use. `any` tries Vulkan, then GL.
enum class Backend { any, vulkan, gl };

}  // namespace bindery
