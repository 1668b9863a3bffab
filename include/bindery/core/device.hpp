// SPDX-License-Identifier: MIT
/// @file
/// bindery/device.hpp — one WebGPU adapter + device + queue, created headless, with errors that
/// become C++ exceptions.
///
/// Device::create() asks the adapter for its limits and, by default, REQUIRES the adapter's best
/// values (LimitsRequest::adapter_best): a device created without requiredLimits keeps the spec
/// defaults (minUniformBufferOffsetAlignment 256) even where the adapter offers 16 or 64
/// (through wgpu-native, lavapipe offers 32 and the H200 64). Everything after creation reads
/// Device::limits(), the DEVICE's limits. The features "timestamp-query" and
/// "indirect-first-instance", and the implementation's multi-draw-indirect-count and immediates
/// (wgpu-native: its native features in wgpu.h; Dawn: immediates through maxImmediateSize, no
/// multi-draw-indirect-count without its unsafe-API toggle), are requested wherever the adapter has
/// them. The implementation (wgpu-native or Dawn) is chosen when bindery is built (CMake option
/// BINDERY_WEBGPU); AdapterDescription names it.
///
/// Errors: uncaptured validation / out-of-memory errors and device loss are recorded by callbacks
/// and thrown as bindery::Error (kinds WebGPUValidation, OutOfMemory, DeviceLost) by
/// Device::check(), which bindery calls after creating objects and after each submit. The first
/// error wins; the program never continues silently after one.
#pragma once

#include "bindery/core/backend.hpp"
#include "bindery/core/counters.hpp"
#include "bindery/core/error.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/core/limits.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace bindery {

/// Which limits to require when creating the device.
enum class LimitsRequest {
  adapter_best,  ///< require every limit at the adapter's supported value (default)
  spec_default,  ///< require nothing: the device gets the WebGPU spec defaults
};

/// Options for Device::create(). Zero-initialised means "the defaults".
struct DeviceOptions {
  Backend backend = Backend::any;                      ///< which backend the implementation may use
  LimitsRequest limits = LimitsRequest::adapter_best;  ///< which limits to require
  /// If set, require exactly this minUniformBufferOffsetAlignment (power of two, not better than
  /// the adapter's: DeviceCreation error otherwise, spec "requestDevice" limit checks).
  std::optional<uint32_t> min_uniform_buffer_offset_alignment;
  /// If set, require exactly this minStorageBufferOffsetAlignment (same rules).
  std::optional<uint32_t> min_storage_buffer_offset_alignment;
  /// Request the "timestamp-query" feature when the adapter has it.
  bool want_timestamp_query = true;
  /// Request the "shader-f16" feature (WGSL `enable f16;`) when the adapter has it; see
  /// Device::has_shader_f16(). Off by default: only the layout verifier needs it.
  bool want_shader_f16 = false;
};

/// What ran: adapter name, backend and driver, for the render report.
struct AdapterDescription {
  std::string name;          ///< e.g. "llvmpipe (LLVM 19.1.7, 256 bits)"
  std::string backend;       ///< "vulkan", "gl", ...
  std::string driver;        ///< driver description, e.g. "Mesa 25.0.7-2~bpo12+1"
  std::string adapter_type;  ///< "cpu", "discrete-gpu", ...
  uint32_t vendor_id = 0;    ///< WGPUAdapterInfo.vendorID (a PCI vendor id on GPUs)
  uint32_t device_id = 0;    ///< WGPUAdapterInfo.deviceID
  /// The WebGPU implementation bindery was built with: "wgpu-native" or "dawn" (CMake option
  /// BINDERY_WEBGPU).
  std::string implementation;
  /// Its revision: wgpu-native's wgpuGetVersion() and the pinned PyPI wheel, or Dawn's pinned
  /// Debian package version and commit.
  std::string implementation_revision;
};

/// A headless WebGPU device. Move-only; owns instance, adapter, device and queue.
class Device {
 public:
  /// Creates instance, adapter and device. Throws AdapterUnavailable when no adapter matches
  /// `options.backend`, DeviceCreation when a required limit cannot be met.
  static Device create(const DeviceOptions& options = {});

  /// Moves the device; the moved-from Device must not be used again.
  Device(Device&&) noexcept;
  /// Releases this device, then takes over the other one.
  Device& operator=(Device&&) noexcept;
  ~Device();

  /// The webgpu.h device (lent; owned by this object).
  WGPUDevice get() const;
  /// The device's queue (lent).
  WGPUQueue queue() const;
  /// The instance the adapter came from (lent; wgpuInstanceProcessEvents).
  WGPUInstance instance() const;

  /// The DEVICE's limits (what validation uses), not the adapter's.
  const Limits& limits() const;
  /// The adapter's supported limits (what could have been required).
  const Limits& adapter_limits() const;
  /// Name, backend and driver of the adapter.
  const AdapterDescription& adapter() const;
  /// Whether the device has "timestamp-query" (requested when DeviceOptions asks and the adapter
  /// offers it).
  bool has_timestamp_query() const;
  /// Whether the device has "indirect-first-instance" (requested whenever the adapter offers
  /// it): indirect draws may then start at a non-zero firstInstance.
  bool has_indirect_first_instance() const;
  /// Whether the device can draw many indexed-indirect draws with one call, the count read from a
  /// buffer: wgpu-native's MultiDrawIndirectCount feature (wgpu.h; requested whenever the adapter
  /// offers it). Always false on Dawn (its multi-draw-indirect needs the allow_unsafe_apis toggle).
  bool has_multi_draw_indirect_count() const;
  /// Whether the device has "shader-f16" (requested with DeviceOptions::want_shader_f16 when the
  /// adapter offers it): WGSL modules may then `enable f16;`.
  bool has_shader_f16() const;

  /// Whether the device takes immediate data: wgpu-native's Immediates feature (wgpu.h
  /// WGPUNativeFeature_Immediates; requested whenever the adapter offers it), on Dawn a non-zero
  /// maxImmediateSize and WGSL's immediate_address_space. Pipeline layouts may then declare up to
  /// limits().maxImmediateSize bytes of immediate data, set per draw with
  /// wgpuRenderPassEncoderSetImmediates and read in WGSL as `var<immediate>`.
  bool has_immediates() const;
  /// Throws the first recorded uncaptured error, if any, then clears it. Device loss (including
  /// wgpuDeviceDestroy on this device's handle by anyone but this object) is permanent: every
  /// later check() and every create_* / write_buffer call throws DeviceLost without touching the
  /// device again.
  void check() const;
  /// Whether the device was lost (see check()).
  bool is_lost() const;
  /// Processes callbacks; with wait=true blocks until submitted work is done (never on a lost
  /// device, which finishes nothing).
  void poll(bool wait) const;

  /// Call and byte counts of everything issued through this device (see counters.hpp).
  Counters& counters() const;

  /// Creates a bind group and counts it (bind_groups_created).
  gpu::BindGroup create_bind_group(const WGPUBindGroupDescriptor& desc) const;
  /// Creates a buffer (checks size against maxBufferSize first: BufferTooLarge).
  gpu::Buffer create_buffer(std::string_view label, uint64_t size, WGPUBufferUsage usage,
                            bool mapped_at_creation = false) const;
  /// Creates a WGSL shader module; a compile error is thrown as WebGPUValidation with the
  /// implementation's message.
  gpu::ShaderModule create_shader_module(std::string_view label, std::string_view wgsl) const;
  /// queue.submit of `commands`, with check() before and after: a recorded error or device loss
  /// is thrown instead of submitting (wgpu-native aborts the process when a submit meets a lost
  /// device). Use it instead of calling wgpuQueueSubmit directly.
  void submit(std::span<const WGPUCommandBuffer> commands) const;
  /// queue.writeBuffer with bindery's checks first (WriteBufferAlignment, WriteBufferOutOfBounds:
  /// offset and size multiples of 4, offset + size <= buffer size; the cases (docs/REFERENCES.md) W01).
  void write_buffer(WGPUBuffer buffer, uint64_t offset, const void* data, uint64_t size) const;

 private:
  struct State;
  explicit Device(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

/// Converts a webgpu.h WGPULimits into bindery's Limits.
Limits to_limits(const WGPULimits& raw);

}  // namespace bindery
