// SPDX-License-Identifier: MIT
// implementation.hpp for wgpu-native (webgpu.h + its extensions in wgpu.h): the default build.
#include "internal/implementation.hpp"

#include <webgpu/wgpu.h>

#include <fmt/format.h>

namespace bindery::implementation {

std::string_view name() {
  return "wgpu-native";
}

std::string revision() {
  // wgpuGetVersion: 0xMMmmppbb (major, minor, patch, build), one byte each.
  const uint32_t v = wgpuGetVersion();
  return fmt::format("{}.{}.{}.{} ({})", (v >> 24) & 0xff, (v >> 16) & 0xff, (v >> 8) & 0xff,
                     v & 0xff, BINDERY_WEBGPU_REVISION);
}

std::vector<BackendTry> backend_tries(Backend backend) {
  std::vector<BackendTry> tries;
  if (backend != Backend::gl) tries.push_back({"vulkan", WGPUBackendType_Vulkan});
  if (backend != Backend::vulkan) tries.push_back({"gl", WGPUBackendType_OpenGL});
  return tries;
}

gpu::Instance create_instance(const BackendTry& attempt) {
  WGPUInstanceExtras extras = {};
  extras.chain.sType = static_cast<WGPUSType>(WGPUSType_InstanceExtras);
  extras.backends = attempt.backend == WGPUBackendType_OpenGL ? WGPUInstanceBackend_GL
                                                              : WGPUInstanceBackend_Vulkan;
  extras.flags = WGPUInstanceFlag_Validation;
  WGPUInstanceDescriptor desc = WGPU_INSTANCE_DESCRIPTOR_INIT;
  desc.nextInChain = &extras.chain;
  return gpu::Instance::acquire(wgpuCreateInstance(&desc));
}

void adapter_options(const BackendTry&, WGPURequestAdapterOptions&) {
  // The instance already holds only the one backend (WGPUInstanceExtras.backends).
}

std::vector<FeatureNeed> native_feature_needs() {
  const auto native = [](WGPUNativeFeature f) { return static_cast<WGPUFeatureName>(f); };
  return {
      {native(WGPUNativeFeature_MultiDrawIndirectCount), "wgpu-native MultiDrawIndirectCount",
       "gpu_driven::DrawPath::multi_draw_indirect_count (the best draw path)", false},
      {native(WGPUNativeFeature_Immediates), "wgpu-native Immediates",
       "create_pipeline_layout with immediate data (WGSL var<immediate>)", false},
      {native(WGPUNativeFeature_TextureBindingArray), "wgpu-native TextureBindingArray",
       "gpu_driven::MaterialBackend::binding_array", false},
      {native(WGPUNativeFeature_SampledTextureAndStorageBufferArrayNonUniformIndexing),
       "wgpu-native SampledTextureAndStorageBufferArrayNonUniformIndexing",
       "gpu_driven::MaterialBackend::binding_array", false},
      {native(WGPUNativeFeature_ShaderInt64), "wgpu-native ShaderInt64",
       "gpu_driven::RasterRung::int64_atomic_max (the compute rasterizer's 64-bit visibility)",
       false},
      {native(WGPUNativeFeature_ShaderInt64AtomicMinMax), "wgpu-native ShaderInt64AtomicMinMax",
       "gpu_driven::RasterRung::int64_atomic_max (the compute rasterizer's 64-bit visibility)",
       false},
  };
}

void optional_features(WGPUAdapter adapter, std::vector<WGPUFeatureName>& features) {
  // multiDrawIndexedIndirectCount (wgpu.h): one call for every batch's indirect draw, the count
  // read from a buffer (gpu-driven strategy).
  const auto multi_draw = static_cast<WGPUFeatureName>(WGPUNativeFeature_MultiDrawIndirectCount);
  if (wgpuAdapterHasFeature(adapter, multi_draw)) features.push_back(multi_draw);
  // Immediates (wgpu.h): per-draw data set with setImmediates, read as WGSL var<immediate>
  // (immediates strategy). Its size limit, maxImmediateSize, is required with the other limits;
  // without the feature the device's maxImmediateSize stays 0.
  const auto immediates = static_cast<WGPUFeatureName>(WGPUNativeFeature_Immediates);
  if (wgpuAdapterHasFeature(adapter, immediates)) features.push_back(immediates);
  // Binding arrays of textures indexed non-uniformly (wgpu.h): MaterialTable's binding-array
  // backend. Both or neither.
  const auto arrays = static_cast<WGPUFeatureName>(WGPUNativeFeature_TextureBindingArray);
  const auto non_uniform = static_cast<WGPUFeatureName>(
      WGPUNativeFeature_SampledTextureAndStorageBufferArrayNonUniformIndexing);
  if (wgpuAdapterHasFeature(adapter, arrays) && wgpuAdapterHasFeature(adapter, non_uniform)) {
    features.push_back(arrays);
    features.push_back(non_uniform);
  }
  // 64-bit integers with atomic min/max on storage buffers (wgpu.h): the compute rasterizer's
  // visibility buffer in one atomicMax per pixel (gpu_driven::RasterRung::int64_atomic_max).
  // Both or neither.
  const auto int64 = static_cast<WGPUFeatureName>(WGPUNativeFeature_ShaderInt64);
  const auto int64_max = static_cast<WGPUFeatureName>(WGPUNativeFeature_ShaderInt64AtomicMinMax);
  if (wgpuAdapterHasFeature(adapter, int64) && wgpuAdapterHasFeature(adapter, int64_max)) {
    features.push_back(int64);
    features.push_back(int64_max);
  }
}

std::shared_ptr<void> chain_native_limits(WGPUAdapter adapter, WGPULimits& required) {
  if (!wgpuAdapterHasFeature(adapter,
                             static_cast<WGPUFeatureName>(WGPUNativeFeature_TextureBindingArray)))
    return nullptr;
  WGPUNativeLimits offered = WGPU_NATIVE_LIMITS_INIT;
  WGPULimits adapter_limits = WGPU_LIMITS_INIT;
  adapter_limits.nextInChain = &offered.chain;
  if (wgpuAdapterGetLimits(adapter, &adapter_limits) != WGPUStatus_Success) return nullptr;
  auto chained = std::make_shared<WGPUNativeLimits>();
  *chained = WGPU_NATIVE_LIMITS_INIT;
  chained->maxBindingArrayElementsPerShaderStage = offered.maxBindingArrayElementsPerShaderStage;
  chained->maxBindingArraySamplerElementsPerShaderStage =
      offered.maxBindingArraySamplerElementsPerShaderStage;
  chained->chain.next = required.nextInChain;
  required.nextInChain = &chained->chain;
  return chained;
}

std::optional<std::string> texture_binding_array_unavailable(WGPUDevice device, uint32_t count) {
  if (!wgpuDeviceHasFeature(device,
                            static_cast<WGPUFeatureName>(WGPUNativeFeature_TextureBindingArray)))
    return "the device lacks wgpu-native's TextureBindingArray feature";
  if (!wgpuDeviceHasFeature(
          device, static_cast<WGPUFeatureName>(
                      WGPUNativeFeature_SampledTextureAndStorageBufferArrayNonUniformIndexing)))
    return "the device lacks wgpu-native's SampledTextureAndStorageBufferArrayNonUniformIndexing "
           "feature";
  WGPUNativeLimits native = WGPU_NATIVE_LIMITS_INIT;
  WGPULimits limits = WGPU_LIMITS_INIT;
  limits.nextInChain = &native.chain;
  if (wgpuDeviceGetLimits(device, &limits) != WGPUStatus_Success)
    return "wgpuDeviceGetLimits failed";
  if (count > native.maxBindingArrayElementsPerShaderStage)
    return fmt::format("{} textures in one binding array exceed the device's "
                       "maxBindingArrayElementsPerShaderStage ({})",
                       count, native.maxBindingArrayElementsPerShaderStage);
  return std::nullopt;
}

std::optional<std::string> int64_atomic_max_unavailable(WGPUDevice device) {
  if (!wgpuDeviceHasFeature(device, static_cast<WGPUFeatureName>(WGPUNativeFeature_ShaderInt64)))
    return "the device lacks wgpu-native's ShaderInt64 feature";
  if (!wgpuDeviceHasFeature(
          device, static_cast<WGPUFeatureName>(WGPUNativeFeature_ShaderInt64AtomicMinMax)))
    return "the device lacks wgpu-native's ShaderInt64AtomicMinMax feature";
  return std::nullopt;
}

std::shared_ptr<WGPUChainedStruct> binding_array_layout_chain(uint32_t count) {
  auto extras = std::make_shared<WGPUBindGroupLayoutEntryExtras>();
  extras->chain.next = nullptr;
  extras->chain.sType = static_cast<WGPUSType>(WGPUSType_BindGroupLayoutEntryExtras);
  extras->count = count;
  return std::shared_ptr<WGPUChainedStruct>(extras, &extras->chain);
}

std::shared_ptr<WGPUChainedStruct> binding_array_group_chain(
    std::span<const WGPUTextureView> views) {
  auto extras = std::make_shared<WGPUBindGroupEntryExtras>();
  *extras = {};
  extras->chain.sType = static_cast<WGPUSType>(WGPUSType_BindGroupEntryExtras);
  extras->textureViews = views.data();
  extras->textureViewCount = views.size();
  return std::shared_ptr<WGPUChainedStruct>(extras, &extras->chain);
}

bool has_multi_draw_indirect_count(WGPUInstance, WGPUDevice device) {
  return wgpuDeviceHasFeature(
      device, static_cast<WGPUFeatureName>(WGPUNativeFeature_MultiDrawIndirectCount));
}

bool multithreaded_encoding(WGPUDevice) {
  // wgpu-core's device, queue and resources are Send + Sync; only an encoder and its passes are
  // confined to one thread at a time (wgpu-native PR #354).
  return true;
}

bool has_immediates(WGPUInstance, WGPUDevice device, const Limits&) {
  return wgpuDeviceHasFeature(device, static_cast<WGPUFeatureName>(WGPUNativeFeature_Immediates));
}

void multi_draw_indexed_indirect_count(WGPURenderPassEncoder pass, WGPUBuffer indirect,
                                       uint64_t offset, WGPUBuffer count_buffer,
                                       uint64_t count_offset, uint32_t max_count) {
  wgpuRenderPassEncoderMultiDrawIndexedIndirectCount(pass, indirect, offset, count_buffer,
                                                     count_offset, max_count);
}

bool has_multi_draw_indirect(WGPUDevice) { return true; }

void multi_draw_indexed_indirect(WGPURenderPassEncoder pass, WGPUBuffer indirect, uint64_t offset,
                                 uint32_t count) {
  wgpuRenderPassEncoderMultiDrawIndexedIndirect(pass, indirect, offset, count);
}

Submission submit(WGPUInstance, WGPUQueue queue, uint32_t count,
                  const WGPUCommandBuffer* commands) {
  return {wgpuQueueSubmitForIndex(queue, count, commands), true};
}

void wait(WGPUInstance, WGPUDevice device, WGPUQueue, const Submission& submission) {
  if (!submission.valid) return;
  const WGPUSubmissionIndex index = submission.id;
  wgpuDevicePoll(device, true, &index);
}

void poll(WGPUInstance, WGPUDevice device, WGPUQueue, bool wait) {
  wgpuDevicePoll(device, wait, nullptr);
}

bool struct_align_ignores_member_align() {
  return true;
}

bool applies_language_extensions_without_requires() {
  return false;
}

std::optional<ObjectCounts> live_objects(WGPUInstance instance) {
  // One registry per object type in the instance's hub; numAllocated is the number of objects it
  // holds now (created and not yet freed by the implementation).
  WGPUGlobalReport report{};
  wgpuGenerateReport(instance, &report);
  const WGPUHubReport& hub = report.hub;
  const std::pair<const char*, const WGPURegistryReport*> registries[] = {
      {"adapters", &hub.adapters},
      {"devices", &hub.devices},
      {"queues", &hub.queues},
      {"pipelineLayouts", &hub.pipelineLayouts},
      {"shaderModules", &hub.shaderModules},
      {"bindGroupLayouts", &hub.bindGroupLayouts},
      {"bindGroups", &hub.bindGroups},
      {"commandBuffers", &hub.commandBuffers},
      {"renderBundles", &hub.renderBundles},
      {"renderPipelines", &hub.renderPipelines},
      {"computePipelines", &hub.computePipelines},
      {"pipelineCaches", &hub.pipelineCaches},
      {"querySets", &hub.querySets},
      {"buffers", &hub.buffers},
      {"textures", &hub.textures},
      {"textureViews", &hub.textureViews},
      {"samplers", &hub.samplers}};
  ObjectCounts counts;
  for (const auto& [name, registry] : registries)
    if (registry->numAllocated > 0)
      counts.emplace_back(name, static_cast<int64_t>(registry->numAllocated));
  return counts;
}

}  // namespace bindery::implementation
