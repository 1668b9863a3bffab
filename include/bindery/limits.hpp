// bindery/limits.hpp — the WebGPU limits bindery reads, as a plain value type.
//
// Every bindery part that depends on a limit takes a `const Limits&` so that CPU-only code and
// tests can run without a device. At run time the values come from the DEVICE
// (wgpuDeviceGetLimits via bindery::Device::limits()), never from the adapter and never from a
// constant: a device created without requiredLimits keeps the spec defaults below even when the
// adapter offers better ones (seen on lavapipe: adapter 16, device 256).
//
// Default member values are the WebGPU spec's defaults for core (WebGPU §3.6.2 "Limits").
#pragma once

#include <cstdint>

namespace bindery {

/// The subset of GPUSupportedLimits bindery uses. Sizes in bytes; counts per the spec's scope
/// (per pipeline layout, per shader stage, per bind group).
struct Limits {
  uint32_t maxTextureDimension2D = 8192;
  uint32_t maxTextureArrayLayers = 256;
  uint32_t maxBindGroups = 4;
  uint32_t maxBindingsPerBindGroup = 1000;
  uint32_t maxDynamicUniformBuffersPerPipelineLayout = 8;
  uint32_t maxDynamicStorageBuffersPerPipelineLayout = 4;
  uint32_t maxSampledTexturesPerShaderStage = 16;
  uint32_t maxSamplersPerShaderStage = 16;
  uint32_t maxStorageBuffersPerShaderStage = 8;
  uint32_t maxUniformBuffersPerShaderStage = 12;
  uint64_t maxUniformBufferBindingSize = 65536;
  uint64_t maxStorageBufferBindingSize = 134217728;
  uint32_t minUniformBufferOffsetAlignment = 256;  // spec default; devices report their own
  uint32_t minStorageBufferOffsetAlignment = 256;  // spec default; devices report their own
  uint32_t maxVertexBuffers = 8;
  uint64_t maxBufferSize = 268435456;
  uint32_t maxComputeWorkgroupsPerDimension = 65535;

  /// The spec defaults for core WebGPU (the member initialisers above).
  static constexpr Limits core_defaults() { return Limits{}; }

  /// The defaults of WebGPU compatibility mode where they differ from core
  /// (maxUniformBufferBindingSize 16384, maxStorageBuffersPerShaderStage 4,
  /// maxTextureDimension2D 4096), used for the "16 KiB uniform budget" checks.
  static constexpr Limits compatibility_defaults() {
    Limits l{};
    l.maxUniformBufferBindingSize = 16384;
    l.maxStorageBuffersPerShaderStage = 4;
    l.maxTextureDimension2D = 4096;
    return l;
  }
};

}  // namespace bindery
