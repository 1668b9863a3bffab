// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/limits.hpp — the WebGPU limits bindery reads, as a plain value type.
///
/// Every bindery part that depends on a limit takes a `const Limits&` so that CPU-only code and
/// tests can run without a device. At run time the values come from the DEVICE
/// (wgpuDeviceGetLimits via bindery::Device::limits()), never from the adapter and never from a
/// constant: a device created without requiredLimits keeps the spec defaults below even when the
/// adapter offers better ones (seen on lavapipe: adapter 16, device 256).
///
/// Default member values are the WebGPU spec's defaults for core (WebGPU §3.6.2 "Limits").
#pragma once

#include <cstdint>

namespace bindery {

/// The subset of GPUSupportedLimits bindery uses. Sizes in bytes; counts per the spec's scope
/// (per pipeline layout, per shader stage, per bind group).
struct Limits {
  uint32_t maxTextureDimension2D = 8192;    ///< largest width or height of a 2D texture, texels
  uint32_t maxTextureArrayLayers = 256;     ///< layers of a 2D array texture
  uint32_t maxBindGroups = 4;               ///< bind groups per pipeline layout (`@group` < this)
  uint32_t maxBindingsPerBindGroup = 1000;  ///< `@binding` numbers < this
  uint32_t maxDynamicUniformBuffersPerPipelineLayout = 8;  ///< hasDynamicOffset uniform entries
  uint32_t maxDynamicStorageBuffersPerPipelineLayout = 4;  ///< hasDynamicOffset storage entries
  uint32_t maxSampledTexturesPerShaderStage = 16;          ///< texture bindings one stage sees
  uint32_t maxSamplersPerShaderStage = 16;                 ///< sampler bindings one stage sees
  uint32_t maxStorageBuffersPerShaderStage = 8;      ///< storage buffer bindings one stage sees
  uint32_t maxUniformBuffersPerShaderStage = 12;     ///< uniform buffer bindings one stage sees
  uint64_t maxUniformBufferBindingSize = 65536;      ///< bytes one uniform binding may cover
  uint64_t maxStorageBufferBindingSize = 134217728;  ///< bytes one storage binding may cover
  /// Uniform binding offsets and dynamic offsets are multiples of this, bytes (spec default;
  /// devices report their own, e.g. 32 on lavapipe, 64 on the H200).
  uint32_t minUniformBufferOffsetAlignment = 256;
  /// Storage binding offsets and dynamic offsets are multiples of this, bytes (spec default;
  /// devices report their own).
  uint32_t minStorageBufferOffsetAlignment = 256;
  uint32_t maxVertexBuffers = 8;                      ///< vertex buffer slots of a render pipeline
  uint64_t maxBufferSize = 268435456;                 ///< bytes of one buffer
  uint32_t maxComputeWorkgroupsPerDimension = 65535;  ///< dispatchWorkgroups count per dimension
  /// Bytes of immediate data (WGSL `var<immediate>`, setImmediates) a pipeline layout may declare.
  /// 0 without wgpu-native's Immediates feature (WGPUNativeFeature_Immediates, wgpu.h), the value
  /// a device has unless the feature and the limit were both required (lavapipe offers 256). Dawn
  /// has no feature for it: the limit alone, required like the others (lavapipe offers 64).
  uint32_t maxImmediateSize = 0;

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

/// bindery's own caps on run options (not WebGPU limits: those are Limits, read from the device),
/// in one place; render() (render/renderer.hpp), the scenes, bench, soak and the CLI check
/// against these.
///@{
/// Most RenderOptions::encode_threads: past the cores of any host bindery runs on there is
/// nothing to gain, and each draw range adds a render pass that loads and stores the target.
inline constexpr uint32_t kMaxEncodeThreads = 64;
/// Most RenderOptions::frames_in_flight: the frame slots (uniform buffers, staging, query sets)
/// are allocated per frame in flight, and past a few the CPU only adds latency.
inline constexpr uint32_t kMaxFramesInFlight = 8;
/// Most RenderOptions::threads (0 = every core) for the per-object matrices.
inline constexpr uint32_t kMaxMatrixThreads = 1024;
/// Most objects in one scene (cube scene objects, city objects, glTF instances x primitives).
inline constexpr uint32_t kMaxObjects = 10'000'000;
/// Largest magnitude of the animation time (the renderer's time_s, `--time`), seconds: the
/// animation's angles are 32-bit floats (time x speed + phase); past about 1e7 s the CPU's and
/// the GPU's sin and cos of them disagree by whole pixels.
inline constexpr float kMaxAnimationTime = 1.0e6f;
/// Range of CubeSceneOptions::spread, the scale of the cubes' placement radius.
inline constexpr float kMinSpread = 0.01f, kMaxSpread = 1000.0f;
/// The largest pixel error of a cluster cut that `--lod-error` takes (past it a whole object
/// collapses to its root at any distance).
inline constexpr float kMaxLodErrorPx = 1000.0f;
///@}

}  // namespace bindery
