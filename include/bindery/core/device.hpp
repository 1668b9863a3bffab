// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/device.hpp — one WebGPU adapter + device + queue, created headless, with errors
/// that become C++ exceptions.
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
/// Two ways in: Device::create() makes instance, adapter and device itself (DeviceOptions);
/// Device::adopt() wraps the ones an application already made with plain webgpu.h (AdoptOptions),
/// reads that device's real limits and features, and works with every part and with render().
///
/// Errors: uncaptured validation / out-of-memory errors and device loss are recorded and thrown as
/// bindery::Error (kinds WebGPUValidation, OutOfMemory, DeviceLost) by Device::check(), which
/// bindery calls after creating objects and after each submit. The first error wins; the program
/// never continues silently after one. How they are recorded: a created device's uncaptured-error
/// and device-lost callbacks are bindery's; an adopted device keeps the application's callbacks
/// and the application chooses (ErrorCapture) between bindery's error scopes open all the time
/// (error_scopes, the default: the application's own errors become bindery's too), scopes around
/// bindery's own calls only (bindery_calls: the application's callback keeps the errors of its
/// own calls) and forwarding from its own callbacks (forwarded). Device::finish() is a checked
/// wgpuCommandEncoderFinish for any mode: an invalid command buffer is thrown before a submit
/// (wgpu-native aborts the process when a submit meets one).
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
#include <string_view>
#include <vector>

namespace bindery {

/// Which limits to require when creating the device.
enum class LimitsRequest {
  adapter_best,  ///< require every limit at the adapter's supported value (default)
  spec_default,  ///< require nothing: the device gets the WebGPU spec defaults
};

/// Options for Device::create(). Zero-initialised means "the defaults".
///
/// Error capture: webgpu.h fixes a device's uncaptured-error and device-lost callbacks when the
/// device is created, and Device::create() sets both to bindery's. Errors of the application's own
/// calls on that device (through Device::get()) are then recorded too and thrown by bindery's next
/// check(); an application that wants them itself wraps its calls in wgpuDevicePushErrorScope /
/// wgpuDevicePopErrorScope (an error caught by a scope never reaches the uncaptured-error
/// callback). An application that needs its own callbacks creates the device itself and uses
/// Device::adopt() with ErrorCapture::bindery_calls (its callback then keeps the errors of its
/// own calls; best_features() in bindery/core/features.hpp says which features to request).
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
  /// Features the device must have beyond those bindery requests itself (e.g.
  /// WGPUFeatureName_Float32Filterable for the application's own pipelines). Each one the adapter
  /// lacks: DeviceCreation naming it (WebGPU §4.3 requestDevice: a missing required feature
  /// rejects the request). Read back with Device::has_feature().
  std::vector<WGPUFeatureName> required_features;
  /// requestAdapter's powerPreference (WebGPU §4.2 GPURequestAdapterOptions); HighPerformance by
  /// default, Undefined lets the implementation choose.
  WGPUPowerPreference power_preference = WGPUPowerPreference_HighPerformance;
  /// requestAdapter's compatibleSurface (may be null): only an adapter that can present to this
  /// surface is chosen. Lent for the duration of Device::create() (no AddRef, no Release);
  /// configuring and presenting the surface stays the application's. The surface must come from
  /// an instance of the same backend bindery tries (DeviceOptions::backend).
  WGPUSurface compatible_surface = nullptr;
  /// If set, the adapter and device come from this instance (bindery adds its own reference)
  /// instead of one bindery makes: the instance a compatible_surface was created from. Only
  /// `backend`'s first try is made with it (Vulkan unless `backend` is gl). Make it with
  /// Device::create_instance() so that it has what bindery needs (validation on wgpu-native,
  /// timed waits on Dawn).
  WGPUInstance instance = nullptr;
};

/// Who releases the webgpu.h handles given to Device::adopt().
enum class Ownership {
  /// bindery adds one reference to each handle (wgpuInstanceAddRef, wgpuAdapterAddRef,
  /// wgpuDeviceAddRef) and releases exactly those in ~Device. The application keeps its own
  /// references and releases them when it likes, before or after bindery's Device is gone.
  borrow,
  /// bindery takes over the application's one reference to each handle (no AddRef) and releases
  /// it in ~Device; the application must not release them itself.
  take,
};
// Either way bindery never calls wgpuDeviceDestroy on an adopted device: destroying bindery's
// objects (the Device included) leaves the application's device alive and usable.

/// How errors of an adopted device reach bindery. webgpu.h sets a device's uncaptured-error and
/// device-lost callbacks once, at creation, so bindery cannot install its own on a device it did
/// not create; the application chooses one of these. Whichever it chooses, an application that
/// finishes command encoders itself should finish them with Device::finish() (checked) before
/// its own wgpuQueueSubmit: wgpu-native aborts the process on the submit of an invalid command
/// buffer, and no error mode can turn that abort into an error afterwards.
enum class ErrorCapture {
  /// bindery pushes two error scopes (validation, out-of-memory) in adopt() and, in every check()
  /// on the thread that called adopt(), pops them (an error found is thrown) and pushes new ones;
  /// ~Device pops them. So bindery's scopes are open ALL the time, between bindery's calls too:
  /// every validation or out-of-memory error of the device, the application's own calls' included,
  /// is bindery's (thrown by bindery's next check()) and the application's uncaptured-error
  /// callback never sees one while the Device lives. The gain: nothing of the device goes
  /// unseen, and an invalid command buffer the application finished itself is thrown by the
  /// check() of Device::submit() before it is submitted. Rules: the application pops only scopes
  /// it pushed (its push/pop pairs nest inside bindery's and keep their errors). Implementations
  /// whose scope stack is per thread (Dawn) send errors of calls on other threads (bindery's
  /// parallel encoders) to the uncaptured callback, but an invalid command buffer also fails its
  /// submit, which bindery makes on the adopting thread. Device loss is seen through the errors
  /// of calls on a lost device.
  error_scopes,
  /// bindery pushes its two scopes only around its own calls (a CallScope in each of bindery's
  /// functions that calls WebGPU, on the thread that called adopt()) and pops them before it
  /// returns: errors of the application's own calls reach the application's uncaptured-error
  /// callback, and bindery's check() does not throw them. The cost: an error bindery did not
  /// bracket is the application's callback's, not bindery's: calls bindery makes on other threads
  /// (the renderer's parallel encoders, Dawn), encoding calls bindery makes into the
  /// application's passes (RenderPassState, the GPU-driven draws), whose errors WebGPU reports
  /// at the application's finish, and the submit of a command buffer the application finished
  /// with a plain wgpuCommandEncoderFinish (finish with Device::finish() instead). The other way
  /// round, the application's calls inside a callback bindery makes while its scopes are open
  /// (render()'s RenderOptions::after_submit and camera) are bindery's.
  bindery_calls,
  /// bindery pushes nothing. The application forwards to bindery from its own callbacks:
  /// Device::report_error() from its uncaptured-error callback, Device::report_device_lost() from
  /// its device-lost callback. What it does not forward bindery does not see; what it forwards,
  /// its own errors included, bindery's next check() throws.
  forwarded,
};

/// Options for Device::adopt().
struct AdoptOptions {
  Ownership ownership = Ownership::borrow;             ///< see Ownership
  ErrorCapture errors = ErrorCapture::error_scopes;    ///< see ErrorCapture
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

/// A headless WebGPU device. Move-only; holds one reference to each of instance, adapter, device
/// and queue (its own from create(), or per Ownership from adopt()).
class Device {
 public:
  /// Creates instance, adapter and device. Throws AdapterUnavailable when no adapter matches
  /// `options.backend`, DeviceCreation when a required limit cannot be met.
  static Device create(const DeviceOptions& options = {});
  /// An instance made as Device::create() makes its own for `backend`'s first try, for an
  /// application that creates a surface before the device (DeviceOptions::instance). Throws
  /// AdapterUnavailable when the implementation makes none.
  static gpu::Instance create_instance(Backend backend = Backend::any);
  /// Wraps an instance, adapter and device the application created with plain webgpu.h.
  /// `instance` and `device` must not be null (InvalidArgument); `adapter` may be null (then
  /// adapter_limits() are the device's and adapter() names only the implementation: Dawn has
  /// wgpuDeviceGetAdapterInfo, wgpu-native does not). A strategy that reads the adapter's name
  /// (the lavapipe draw-per-pass and bind-group budgets) then assumes an unknown GPU: pass the
  /// adapter where you have it.
  /// Limits and features are read from the device (wgpuDeviceGetLimits, wgpuDeviceGetFeatures):
  /// whatever the application required is what bindery's parts use. Ownership and error capture
  /// as `options` says (see Ownership, ErrorCapture). bindery waits and runs callbacks through
  /// `instance` (wgpuInstanceProcessEvents; on Dawn wgpuInstanceWaitAny, with or without the
  /// instance's TimedWaitAny feature). Call it on the thread that drives bindery's frames (the
  /// one whose check() cycles the error scopes).
  static Device adopt(WGPUInstance instance, WGPUAdapter adapter, WGPUDevice device,
                      const AdoptOptions& options = {});

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
  /// The adapter (lent; null for a device adopted without one): e.g. for
  /// wgpuSurfaceGetCapabilities.
  WGPUAdapter adapter_handle() const;

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
  /// Whether the device has `feature` (read from the device when it was created or adopted).
  bool has_feature(WGPUFeatureName feature) const;
  /// Records an uncaptured error for check() to throw (kind OutOfMemory for
  /// WGPUErrorType_OutOfMemory, else WebGPUValidation): what an application's uncaptured-error
  /// callback calls under ErrorCapture::forwarded. Thread-safe; the first error wins.
  void report_error(WGPUErrorType type, std::string_view message) const;
  /// Records device loss (permanent, see check()): what an application's device-lost callback
  /// calls under ErrorCapture::forwarded. Reason CallbackCancelled is ignored. Thread-safe.
  void report_device_lost(WGPUDeviceLostReason reason, std::string_view message) const;
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

  /// How errors reach bindery: AdoptOptions::errors for an adopted device; for a created device,
  /// whose callbacks are bindery's own, ErrorCapture::forwarded (bindery pushes no scope).
  ErrorCapture error_capture() const;

  /// Call and byte counts of everything issued through this device (see counters.hpp).
  Counters& counters() const;

  /// Creates a bind group and counts it (bind_groups_created).
  gpu::BindGroup create_bind_group(const WGPUBindGroupDescriptor& desc) const;
  /// Creates a buffer (checks size against maxBufferSize first: BufferTooLarge).
  gpu::Buffer create_buffer(std::string_view label, uint64_t size, WGPUBufferUsage usage,
                            bool mapped_at_creation = false) const;
  /// Creates a texture of `desc` and counts it (textures_created, texture_bytes_created: every
  /// mip level and layer of a 2D texture at texture_texel_bytes(desc.format)). bindery creates
  /// the scene's textures through it (upload_scene, MaterialTable); render targets and depth
  /// pyramids are not counted.
  gpu::Texture create_texture(const WGPUTextureDescriptor& desc) const;
  /// Creates a WGSL shader module; a compile error is thrown as WebGPUValidation with the
  /// implementation's message.
  gpu::ShaderModule create_shader_module(std::string_view label, std::string_view wgsl) const;
  /// wgpuCommandEncoderFinish of `encoder` inside error scopes of its own (validation,
  /// out-of-memory), in every mode: an encoder whose commands are invalid (e.g. a dynamic offset
  /// that is not a multiple of minUniformBufferOffsetAlignment, WebGPU §17.2.1 setBindGroup) is
  /// thrown here as WebGPUValidation naming `label` and the implementation's message, and never
  /// reaches the application's uncaptured-error callback; what check() had recorded before is
  /// thrown too. Call it on the thread that called adopt() (scopes are per thread on Dawn).
  /// The returned command buffer is valid and may be submitted with Device::submit() or the
  /// application's own wgpuQueueSubmit.
  gpu::CommandBuffer finish(WGPUCommandEncoder encoder, std::string_view label = {}) const;
  /// queue.submit of `commands`, with check() before and after: a recorded error or device loss
  /// is thrown instead of submitting (wgpu-native aborts the process when a submit meets a lost
  /// device). Use it instead of calling wgpuQueueSubmit directly.
  void submit(std::span<const WGPUCommandBuffer> commands) const;
  /// queue.writeBuffer with bindery's checks first (WriteBufferAlignment, WriteBufferOutOfBounds:
  /// offset and size multiples of 4, offset + size <= buffer size; the cases (docs/REFERENCES.md) W01).
  void write_buffer(WGPUBuffer buffer, uint64_t offset, const void* data, uint64_t size) const;

 private:
  friend class CallScope;
  struct State;
  explicit Device(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

/// Brackets a run of bindery's own WebGPU calls for ErrorCapture::bindery_calls: on the thread
/// that adopted the device, pushes the device's two error scopes (validation, out-of-memory) and,
/// when it goes out of scope, pops them and records what they caught (thrown by the next check());
/// a check() while it is open pops, records and pushes again, as under error_scopes. For every
/// other mode, and on other threads, it does nothing. CallScopes nest: only the outermost one of
/// a thread pushes and pops (the inner ones' calls are inside its scopes). bindery's parts open
/// one in each function that calls WebGPU; an application may open one around a run of bindery
/// calls (a frame) to pay one push and pop for all of them, or around calls of its own whose
/// errors it wants bindery to throw. Not copyable or movable.
class CallScope {
 public:
  /// Opens the scopes (see the class comment); `device` must outlive this object.
  explicit CallScope(const Device& device);
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  const Device* device_ = nullptr;  // null when the device's mode brackets nothing here
  bool pushed_ = false;             // the outermost of the nest: pushed, pops in ~CallScope
};

/// Bytes of one texel of `format` for the formats bindery creates (8-bit RGBA/BGRA, R32Float,
/// depth24plus, depth32float: 4; R8: 1; RGBA16Float: 8; RGBA32Float: 16); 0 for any other.
uint32_t texture_texel_bytes(WGPUTextureFormat format);
/// Bytes of a texture of `desc`: for each of its mipLevelCount levels, max(1, width >> level) x
/// max(1, height >> level) x depthOrArrayLayers texels of texture_texel_bytes(desc.format).
uint64_t texture_bytes(const WGPUTextureDescriptor& desc);

/// Converts a webgpu.h WGPULimits into bindery's Limits.
Limits to_limits(const WGPULimits& raw);

}  // namespace bindery
