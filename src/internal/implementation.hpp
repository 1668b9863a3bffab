// SPDX-License-Identifier: MIT
// src/internal/implementation.hpp — the parts of webgpu.h use that differ between WebGPU
// implementations, behind one small internal interface (issue 13; who may include it:
// src/internal/README.md). Exactly one of src/core/implementation/wgpu-native.cpp and
// src/core/implementation/dawn.cpp is compiled into a build (CMake option BINDERY_WEBGPU); everything
// else in bindery calls these functions and plain webgpu.h, and compiles unchanged for both.
//
//   instance + backend   wgpu-native: WGPUInstanceExtras (wgpu.h) chooses the backends;
//                        Dawn: the instance feature TimedWaitAny, the backend chosen per adapter
//                        request (WGPURequestAdapterOptions.backendType).
//   waiting              wgpu-native: wgpuDevicePoll (wgpu.h) with a submission index;
//                        Dawn: futures of wgpuQueueOnSubmittedWorkDone (callback mode
//                        WaitAnyOnly) waited with wgpuInstanceWaitAny, other callbacks
//                        (AllowProcessEvents) run by wgpuInstanceProcessEvents.
//   features             wgpu-native's native features MultiDrawIndirectCount and Immediates
//                        (wgpu.h); Dawn: immediates are core webgpu.h there (maxImmediateSize and
//                        WGSL's immediate_address_space), multi-draw-indirect is an experimental
//                        feature behind the allow_unsafe_apis toggle, which bindery does not set.
//   live objects         wgpu-native: wgpuGenerateReport (wgpu.h); Dawn has no such report.
#pragma once

#include "bindery/core/backend.hpp"
#include "bindery/core/counters.hpp"
#include "bindery/core/features.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/core/limits.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <memory>
#include <span>
#include <vector>

namespace bindery::implementation {

/// "wgpu-native" or "dawn".
std::string_view name();
/// The implementation's revision: wgpu-native's wgpuGetVersion() and the pinned PyPI wheel;
/// Dawn's pinned Debian package version and commit.
std::string revision();

/// One attempt at finding an adapter: a backend the implementation may use.
struct BackendTry {
  std::string_view label;  ///< "vulkan" or "gl", for the error message when nothing is found
  WGPUBackendType backend = WGPUBackendType_Undefined;  ///< the backend asked for
};
/// The attempts for DeviceOptions::backend, in order (Vulkan first, then GL where allowed).
std::vector<BackendTry> backend_tries(Backend backend);
/// Creates an instance for `attempt` (validation on). A null instance means "not available".
gpu::Instance create_instance(const BackendTry& attempt);
/// Fills the implementation-specific parts of the adapter request for `attempt`.
void adapter_options(const BackendTry& attempt, WGPURequestAdapterOptions& options);

/// The implementation's own features among feature_needs() (bindery/core/features.hpp), the
/// ones optional_features() requests: wgpu-native's native features (wgpu.h), Dawn's
/// ImplicitDeviceSynchronization.
std::vector<FeatureNeed> native_feature_needs();
/// Optional features bindery requests where the adapter has them: the implementation's
/// multi-draw-indirect-count and immediates features (added to `features` when offered).
void optional_features(WGPUAdapter adapter, std::vector<WGPUFeatureName>& features);
/// Whether command encoders of `device` may be recorded on several threads at once (webgpu.h's
/// multithreading: wgpu-native always; Dawn only with its ImplicitDeviceSynchronization feature,
/// which optional_features() requests where the adapter offers it).
bool multithreaded_encoding(WGPUDevice device);
/// Whether the device can draw many indexed-indirect draws with one call whose count is read from
/// a buffer (multi_draw_indexed_indirect_count()).
bool has_multi_draw_indirect_count(WGPUInstance instance, WGPUDevice device);
/// Whether the device takes immediate data (setImmediates, WGSL var<immediate>); `limits` are the
/// device's (maxImmediateSize must be non-zero).
bool has_immediates(WGPUInstance instance, WGPUDevice device, const Limits& limits);
/// Draws up to `max_count` indexed-indirect draws from `indirect` at `offset`, the count read as a
/// u32 from `count_buffer` at `count_offset`. Only where has_multi_draw_indirect_count().
void multi_draw_indexed_indirect_count(WGPURenderPassEncoder pass, WGPUBuffer indirect,
                                       uint64_t offset, WGPUBuffer count_buffer,
                                       uint64_t count_offset, uint32_t max_count);

/// Whether multi_draw_indexed_indirect() can be called on `device` (wgpu-native: always, a loop
/// inside wgpu-core where the adapter lacks multi-draw; Dawn: only behind its unsafe APIs, which
/// bindery does not enable, so never).
bool has_multi_draw_indirect(WGPUDevice device);
/// Draws `count` indexed-indirect draws from `indirect` at `offset` (20 bytes apart). Only where
/// has_multi_draw_indirect().
void multi_draw_indexed_indirect(WGPURenderPassEncoder pass, WGPUBuffer indirect, uint64_t offset,
                                 uint32_t count);

/// Binding arrays of sampled textures indexed by non-uniform values (wgpu.h's TextureBindingArray
/// and SampledTextureAndStorageBufferArrayNonUniformIndexing features, and its native limit
/// maxBindingArrayElementsPerShaderStage): MaterialTable's binding-array backend.
///@{
/// Chains the implementation's own limits to `required` (requestDevice) where binding arrays are
/// offered: the adapter's maxBindingArrayElementsPerShaderStage. The returned object owns the
/// chained struct; keep it until the device is requested. Null when nothing is chained.
std::shared_ptr<void> chain_native_limits(WGPUAdapter adapter, WGPULimits& required);
/// Why `device` cannot bind an array of `count` sampled textures indexed non-uniformly (one line:
/// the missing feature or the limit), or nullopt.
std::optional<std::string> texture_binding_array_unavailable(WGPUDevice device, uint32_t count);
/// A chained struct that makes a bind group layout entry an array of `count` bindings (wgpu.h's
/// WGPUBindGroupLayoutEntryExtras). Owns it; null where the implementation has none.
std::shared_ptr<WGPUChainedStruct> binding_array_layout_chain(uint32_t count);
/// Why `device` cannot run 64-bit atomic max on storage buffers (WGSL `atomic<u64>` with
/// atomicMax: wgpu-native's ShaderInt64 and ShaderInt64AtomicMinMax, wgpu.h), or nullopt.
std::optional<std::string> int64_atomic_max_unavailable(WGPUDevice device);
/// A chained struct that binds `views` (which must outlive it) to a binding-array entry of a bind
/// group (wgpu.h's WGPUBindGroupEntryExtras). Null where the implementation has none.
std::shared_ptr<WGPUChainedStruct> binding_array_group_chain(std::span<const WGPUTextureView> views);
///@}

/// A submitted batch of command buffers that can be waited for.
struct Submission {
  uint64_t id = 0;  ///< wgpu-native: the submission index; Dawn: the work-done future's id
  bool valid = false;
};
/// queue.submit of `commands`, returning what wait() needs to wait for this submission.
Submission submit(WGPUInstance instance, WGPUQueue queue, uint32_t count,
                  const WGPUCommandBuffer* commands);
/// Blocks until `submission` is done on the GPU (and runs the callbacks that became ready).
void wait(WGPUInstance instance, WGPUDevice device, WGPUQueue queue, const Submission& submission);
/// Runs ready callbacks; with `wait`, first blocks until all submitted work is done.
void poll(WGPUInstance instance, WGPUDevice device, WGPUQueue queue, bool wait);

/// Rounds wait_until() runs by default before it gives up on a callback.
inline constexpr int kWaitRounds = 100000;
/// The one wait-and-poll loop of bindery, for a callback of mode AllowProcessEvents that sets
/// `done`: up to `rounds` times, calls `poll` (a device poll, or nothing) and then
/// wgpuInstanceProcessEvents(instance), stopping as soon as `done` is true. Bounded, so a callback
/// that never comes ends in the caller's error instead of a hang. Returns `done`.
template <class Poll>
bool wait_until(WGPUInstance instance, const bool& done, int rounds, Poll&& poll) {
  for (int i = 0; i < rounds && !done; ++i) {
    poll();
    wgpuInstanceProcessEvents(instance);
  }
  return done;
}
/// wait_until() without a device poll: events only.
inline bool wait_until(WGPUInstance instance, const bool& done, int rounds = kWaitRounds) {
  return wait_until(instance, done, rounds, [] {});
}

/// What popErrorScope reported: whether it answered within wait_until()'s rounds with status
/// Success, the error type and its message.
struct PoppedScope {
  bool answered = false;
  WGPUErrorType type = WGPUErrorType_NoError;
  std::string message;
};
/// Pops the innermost error scope of `device` and waits for its answer (wait_until()).
PoppedScope pop_error_scope(WGPUInstance instance, WGPUDevice device);

/// Whether the implementation's WGSL compiler leaves @align out of a struct's alignment
/// (gfx-rs/wgpu#4377: naga, wgpu-native) instead of following WGSL §14.4.1 (Dawn's Tint).
bool struct_align_ignores_member_align();
/// Whether the WGSL language extensions the implementation supports apply to every module, with or
/// without a `requires` directive (WGSL §4.1.3; Dawn: e.g. uniform_buffer_standard_layout), rather
/// than only where the module names them (wgpu-native).
bool applies_language_extensions_without_requires();

/// The objects the implementation holds now, per type (wgpu-native: wgpuGenerateReport); nullopt
/// where the implementation has no such report (Dawn).
std::optional<ObjectCounts> live_objects(WGPUInstance instance);

}  // namespace bindery::implementation
