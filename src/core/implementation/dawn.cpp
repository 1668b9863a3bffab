// SPDX-License-Identifier: MIT
// implementation.hpp for Dawn (Chromium's WebGPU implementation; Debian's libwebgpu-dawn0 with
// its own webgpu.h): the -DBINDERY_WEBGPU=dawn build. Plain webgpu.h only: Dawn's event model
// (futures, callback modes, wgpuInstanceWaitAny / wgpuInstanceProcessEvents) replaces
// wgpu-native's wgpuDevicePoll.
#include "internal/implementation.hpp"

#include <webgpu/webgpu.h>

#include <mutex>
#include <thread>
#include <unordered_set>

namespace bindery::implementation {

std::string_view name() {
  return "dawn";
}

std::string revision() {
  return BINDERY_WEBGPU_REVISION;  // the pinned Debian package version and Dawn commit
}

std::vector<BackendTry> backend_tries(Backend backend) {
  std::vector<BackendTry> tries;
  if (backend != Backend::gl) tries.push_back({"vulkan", WGPUBackendType_Vulkan});
  if (backend != Backend::vulkan) tries.push_back({"gl", WGPUBackendType_OpenGL});
  return tries;
}

gpu::Instance create_instance(const BackendTry&) {
  // TimedWaitAny: wgpuInstanceWaitAny may block (wait() below); without it only a zero timeout
  // is allowed.
  const WGPUInstanceFeatureName required = WGPUInstanceFeatureName_TimedWaitAny;
  WGPUInstanceDescriptor desc = WGPU_INSTANCE_DESCRIPTOR_INIT;
  desc.requiredFeatureCount = 1;
  desc.requiredFeatures = &required;
  return gpu::Instance::acquire(wgpuCreateInstance(&desc));
}

void adapter_options(const BackendTry& attempt, WGPURequestAdapterOptions& options) {
  options.backendType = attempt.backend;
}

std::vector<FeatureNeed> native_feature_needs() {
  return {{WGPUFeatureName_ImplicitDeviceSynchronization, "implicit-device-synchronization",
           "command encoders recorded on several threads (render()'s encode_threads > 1)", false}};
}

void optional_features(WGPUAdapter adapter, std::vector<WGPUFeatureName>& features) {
  // Immediates are core webgpu.h in Dawn (no feature: maxImmediateSize, required with the other
  // limits, and the WGSL language feature immediate_address_space). Multi-draw-indirect
  // (WGPUFeatureName_MultiDrawIndirect) is offered only behind the allow_unsafe_apis toggle,
  // which bindery does not set: gpu-driven draws its batches one indirect call each.
  // ImplicitDeviceSynchronization makes Dawn's device methods safe from several threads (a
  // device lock): what --encode-threads N > 1 needs.
  if (wgpuAdapterHasFeature(adapter, WGPUFeatureName_ImplicitDeviceSynchronization))
    features.push_back(WGPUFeatureName_ImplicitDeviceSynchronization);
}

// Binding arrays of textures are not part of webgpu.h; Dawn's bindless work is experimental and
// not among the features bindery requests, so MaterialTable keeps its 2D-array backend on Dawn.
std::shared_ptr<void> chain_native_limits(WGPUAdapter, WGPULimits&) {
  return nullptr;
}

std::optional<std::string> texture_binding_array_unavailable(WGPUDevice, uint32_t) {
  return "webgpu.h has no binding arrays of textures; bindery uses wgpu-native's (wgpu.h), and "
         "Dawn's are not part of the API bindery builds on";
}

std::shared_ptr<WGPUChainedStruct> binding_array_layout_chain(uint32_t) {
  return nullptr;
}

std::optional<std::string> int64_atomic_max_unavailable(WGPUDevice) {
  return "webgpu.h has no 64-bit integers in WGSL; bindery uses wgpu-native's ShaderInt64 and "
         "ShaderInt64AtomicMinMax (wgpu.h)";
}

std::shared_ptr<WGPUChainedStruct> binding_array_group_chain(std::span<const WGPUTextureView>) {
  return nullptr;
}

bool multithreaded_encoding(WGPUDevice device) {
  return wgpuDeviceHasFeature(device, WGPUFeatureName_ImplicitDeviceSynchronization);
}

bool has_multi_draw_indirect_count(WGPUInstance, WGPUDevice) {
  return false;
}

bool has_immediates(WGPUInstance instance, WGPUDevice, const Limits& limits) {
  return limits.maxImmediateSize > 0 &&
         wgpuInstanceHasWGSLLanguageFeature(instance,
                                            WGPUWGSLLanguageFeatureName_ImmediateAddressSpace);
}

void multi_draw_indexed_indirect_count(WGPURenderPassEncoder pass, WGPUBuffer indirect,
                                       uint64_t offset, WGPUBuffer count_buffer,
                                       uint64_t count_offset, uint32_t max_count) {
  // Never reached while has_multi_draw_indirect_count() is false; Dawn's call, should it be.
  wgpuRenderPassEncoderMultiDrawIndexedIndirect(pass, indirect, offset, max_count, count_buffer,
                                                count_offset);
}

bool has_multi_draw_indirect(WGPUDevice) { return false; }

void multi_draw_indexed_indirect(WGPURenderPassEncoder pass, WGPUBuffer indirect, uint64_t offset,
                                 uint32_t count) {
  // Never reached while has_multi_draw_indirect() is false (Dawn's MultiDrawIndirect feature
  // needs the allow_unsafe_apis toggle); Dawn's call, should it be.
  wgpuRenderPassEncoderMultiDrawIndexedIndirect(pass, indirect, offset, count, nullptr, 0);
}

namespace {

// A future completed when everything submitted to `queue` so far is done; waited for with
// wgpuInstanceWaitAny (callback mode WaitAnyOnly: the callback runs inside that call).
WGPUFuture work_done(WGPUQueue queue) {
  WGPUQueueWorkDoneCallbackInfo info = WGPU_QUEUE_WORK_DONE_CALLBACK_INFO_INIT;
  info.mode = WGPUCallbackMode_WaitAnyOnly;
  info.callback = [](WGPUQueueWorkDoneStatus, WGPUStringView, void*, void*) {};
  return wgpuQueueOnSubmittedWorkDone(queue, info);
}

// Instances seen without the TimedWaitAny feature (an application's, given to Device::adopt):
// their waits poll with a zero timeout instead of blocking.
bool lacks_timed_wait(WGPUInstance instance, bool mark) {
  static std::mutex mutex;
  static std::unordered_set<WGPUInstance> untimed;
  std::lock_guard<std::mutex> lock(mutex);
  if (mark) untimed.insert(instance);
  return untimed.count(instance) != 0;
}

void wait_future(WGPUInstance instance, WGPUFuture future) {
  WGPUFutureWaitInfo info = {future, false};
  if (lacks_timed_wait(instance, false) ||
      wgpuInstanceWaitAny(instance, 1, &info, UINT64_MAX) != WGPUWaitStatus_Success) {
    lacks_timed_wait(instance, true);
    while (!info.completed) {
      if (wgpuInstanceWaitAny(instance, 1, &info, 0) == WGPUWaitStatus_Error) break;
      if (!info.completed) std::this_thread::yield();
    }
  }
  wgpuInstanceProcessEvents(instance);  // callbacks (AllowProcessEvents) that are now ready
}

}  // namespace

Submission submit(WGPUInstance, WGPUQueue queue, uint32_t count,
                  const WGPUCommandBuffer* commands) {
  wgpuQueueSubmit(queue, count, commands);
  return {work_done(queue).id, true};
}

void wait(WGPUInstance instance, WGPUDevice, WGPUQueue, const Submission& submission) {
  if (!submission.valid) return;
  wait_future(instance, WGPUFuture{submission.id});
}

void poll(WGPUInstance instance, WGPUDevice, WGPUQueue queue, bool wait) {
  if (wait)
    wait_future(instance, work_done(queue));
  else
    wgpuInstanceProcessEvents(instance);
}

bool struct_align_ignores_member_align() {
  return false;
}

bool applies_language_extensions_without_requires() {
  return true;
}

std::optional<ObjectCounts> live_objects(WGPUInstance) {
  return std::nullopt;  // Dawn has no report of the objects it holds
}

}  // namespace bindery::implementation
