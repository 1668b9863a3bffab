// SPDX-License-Identifier: MIT
// Device creation, error capture and the checked helpers of bindery::Device.
#include "bindery/core/device.hpp"

#include "bindery/core/device_checks.hpp"
#include "core/implementation.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cctype>
#include <cstring>
#include <mutex>
#include <vector>

namespace bindery {

namespace {

std::string backend_name(WGPUBackendType t) {
  switch (t) {
    case WGPUBackendType_Vulkan:
      return "vulkan";
    case WGPUBackendType_OpenGL:
      return "gl";
    case WGPUBackendType_OpenGLES:
      return "gles";
    case WGPUBackendType_Metal:
      return "metal";
    case WGPUBackendType_D3D12:
      return "d3d12";
    case WGPUBackendType_D3D11:
      return "d3d11";
    case WGPUBackendType_Null:
      return "null";
    case WGPUBackendType_WebGPU:
      return "webgpu";
    default:
      return "undefined";
  }
}

std::string adapter_type_name(WGPUAdapterType t) {
  switch (t) {
    case WGPUAdapterType_DiscreteGPU:
      return "discrete-gpu";
    case WGPUAdapterType_IntegratedGPU:
      return "integrated-gpu";
    case WGPUAdapterType_CPU:
      return "cpu";
    default:
      return "unknown";
  }
}

}  // namespace

Limits to_limits(const WGPULimits& raw) {
  Limits l;
  l.maxTextureDimension2D = raw.maxTextureDimension2D;
  l.maxTextureArrayLayers = raw.maxTextureArrayLayers;
  l.maxBindGroups = raw.maxBindGroups;
  l.maxBindingsPerBindGroup = raw.maxBindingsPerBindGroup;
  l.maxDynamicUniformBuffersPerPipelineLayout = raw.maxDynamicUniformBuffersPerPipelineLayout;
  l.maxDynamicStorageBuffersPerPipelineLayout = raw.maxDynamicStorageBuffersPerPipelineLayout;
  l.maxSampledTexturesPerShaderStage = raw.maxSampledTexturesPerShaderStage;
  l.maxSamplersPerShaderStage = raw.maxSamplersPerShaderStage;
  l.maxStorageBuffersPerShaderStage = raw.maxStorageBuffersPerShaderStage;
  l.maxUniformBuffersPerShaderStage = raw.maxUniformBuffersPerShaderStage;
  l.maxUniformBufferBindingSize = raw.maxUniformBufferBindingSize;
  l.maxStorageBufferBindingSize = raw.maxStorageBufferBindingSize;
  l.minUniformBufferOffsetAlignment = raw.minUniformBufferOffsetAlignment;
  l.minStorageBufferOffsetAlignment = raw.minStorageBufferOffsetAlignment;
  l.maxVertexBuffers = raw.maxVertexBuffers;
  l.maxBufferSize = raw.maxBufferSize;
  l.maxComputeWorkgroupsPerDimension = raw.maxComputeWorkgroupsPerDimension;
  l.maxImmediateSize = raw.maxImmediateSize == WGPU_LIMIT_U32_UNDEFINED ? 0 : raw.maxImmediateSize;
  return l;
}

namespace {

bool mentions_device_loss(std::string_view message) {
  std::string lower(message);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("device is lost") != std::string::npos;
}

}  // namespace

struct Device::State {
  gpu::Instance instance;
  gpu::Adapter adapter;
  gpu::Device device;
  gpu::Queue queue;
  Limits limits;
  Limits adapter_limits;
  AdapterDescription description;
  bool timestamp_query = false;
  bool indirect_first_instance = false;
  bool multi_draw_indirect_count = false;
  bool shader_f16 = false;
  bool immediates = false;
  mutable Counters counters;

  // First uncaptured error / loss, reported by check(). Callbacks may come from any thread.
  mutable std::mutex mutex;
  mutable bool has_error = false;
  mutable ErrorKind error_kind = ErrorKind::WebGPUValidation;
  mutable std::string error_message;
  // Device loss is permanent: once set, check() and every checked helper throw DeviceLost before
  // touching the device again (a lost device's objects are invalid; WebGPU §22.1 "Device loss").
  mutable std::atomic<bool> lost{false};
  mutable std::string lost_message;  // written once, before `lost` is set
  std::atomic<bool> destroying{false};

  void record(ErrorKind kind, std::string message) const {
    // One line: wgpu-native's messages span several ("Validation Error\n\nCaused by:\n ...").
    std::string line;
    for (char c : message) {
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
      if (c == ' ' && !line.empty() && line.back() == ' ') continue;
      line += c;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    message = std::move(line);
    // wgpu-native does not always call the device-lost callback (not for wgpuDeviceDestroy on an
    // idle device); its validation errors then say "Parent device is lost". Those are device loss
    // too, so that the first use after a loss is already DeviceLost and later ones never reach
    // the implementation (some of its entry points, e.g. queue submit, abort on a lost device).
    if (kind == ErrorKind::WebGPUValidation && mentions_device_loss(message))
      kind = ErrorKind::DeviceLost;
    std::lock_guard<std::mutex> lock(mutex);
    if (kind == ErrorKind::DeviceLost) {
      if (lost) return;
      lost_message = std::move(message);
      lost = true;
      return;
    }
    if (has_error) return;
    has_error = true;
    error_kind = kind;
    error_message = std::move(message);
  }

  // Throws DeviceLost when the device was lost; `call` names what was about to run.
  void throw_if_lost(std::string_view call) const {
    if (!lost) return;
    std::lock_guard<std::mutex> lock(mutex);
    throw Error(ErrorKind::DeviceLost, fmt::format("{}: {}", call, lost_message));
  }
};

namespace {

gpu::Adapter request_adapter(WGPUInstance instance, const implementation::BackendTry& attempt) {
  struct Result {
    bool done = false;
    WGPUAdapter adapter = nullptr;
    std::string message;
  } result;
  WGPURequestAdapterOptions options = WGPU_REQUEST_ADAPTER_OPTIONS_INIT;
  options.powerPreference = WGPUPowerPreference_HighPerformance;
  implementation::adapter_options(attempt, options);
  WGPURequestAdapterCallbackInfo cb = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = [](WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message,
                   void* userdata1, void*) {
    auto* r = static_cast<Result*>(userdata1);
    r->done = true;
    if (status == WGPURequestAdapterStatus_Success) r->adapter = adapter;
    r->message = std::string(gpu::sv(message));
  };
  cb.userdata1 = &result;
  wgpuInstanceRequestAdapter(instance, &options, cb);
  for (int i = 0; i < 1000 && !result.done; ++i) wgpuInstanceProcessEvents(instance);
  if (!result.adapter) {
    throw Error(ErrorKind::AdapterUnavailable,
                "requestAdapter: no WebGPU adapter" +
                    (result.message.empty() ? std::string() : " (" + result.message + ")"));
  }
  return gpu::Adapter::acquire(result.adapter);
}

}  // namespace

Device Device::create(const DeviceOptions& options) {
  auto s = std::make_unique<State>();

  // Adapter: Vulkan first (lavapipe on CPU-only machines), then GL (llvmpipe) when allowed.
  std::string failures;
  for (const implementation::BackendTry& attempt : implementation::backend_tries(options.backend)) {
    s->instance = implementation::create_instance(attempt);
    if (!s->instance) continue;
    try {
      s->adapter = request_adapter(s->instance.get(), attempt);
      break;
    } catch (const Error& e) {
      failures += std::string(failures.empty() ? "" : "; ") + std::string(attempt.label) + ": " +
                  e.what();
    }
  }
  if (!s->adapter)
    throw Error(ErrorKind::AdapterUnavailable,
                "no WebGPU adapter found (" + failures +
                    "); on a CPU-only machine run scripts/setup.sh to install Mesa lavapipe");

  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  wgpuAdapterGetInfo(s->adapter.get(), &info);
  s->description.name = std::string(gpu::sv(info.device));
  s->description.driver = std::string(gpu::sv(info.description));
  s->description.backend = backend_name(info.backendType);
  s->description.adapter_type = adapter_type_name(info.adapterType);
  s->description.vendor_id = info.vendorID;
  s->description.device_id = info.deviceID;
  s->description.implementation = std::string(implementation::name());
  s->description.implementation_revision = implementation::revision();
  wgpuAdapterInfoFreeMembers(info);

  WGPULimits adapter_raw = WGPU_LIMITS_INIT;
  if (wgpuAdapterGetLimits(s->adapter.get(), &adapter_raw) != WGPUStatus_Success)
    throw Error(ErrorKind::DeviceCreation, "wgpuAdapterGetLimits failed");
  s->adapter_limits = to_limits(adapter_raw);

  // Required limits: the adapter's best by default (see the header), or nothing.
  WGPULimits required = WGPU_LIMITS_INIT;
  if (options.limits == LimitsRequest::adapter_best) required = adapter_raw;
  required.nextInChain = nullptr;
  // An explicit alignment request follows requestDevice's rules (cases D02): a power of two, not
  // better than the adapter's; device_checks.hpp's resolve_alignment_limit says which value results.
  const Limits defaults = Limits::core_defaults();
  if (options.min_uniform_buffer_offset_alignment)
    required.minUniformBufferOffsetAlignment = resolve_alignment_limit(
        "minUniformBufferOffsetAlignment", options.min_uniform_buffer_offset_alignment,
        adapter_raw.minUniformBufferOffsetAlignment, defaults.minUniformBufferOffsetAlignment);
  if (options.min_storage_buffer_offset_alignment)
    required.minStorageBufferOffsetAlignment = resolve_alignment_limit(
        "minStorageBufferOffsetAlignment", options.min_storage_buffer_offset_alignment,
        adapter_raw.minStorageBufferOffsetAlignment, defaults.minStorageBufferOffsetAlignment);

  std::vector<WGPUFeatureName> features;
  if (options.want_timestamp_query &&
      wgpuAdapterHasFeature(s->adapter.get(), WGPUFeatureName_TimestampQuery))
    features.push_back(WGPUFeatureName_TimestampQuery);
  // GPU-driven draws write firstInstance into indirect arguments (gpu-culling strategy).
  if (wgpuAdapterHasFeature(s->adapter.get(), WGPUFeatureName_IndirectFirstInstance))
    features.push_back(WGPUFeatureName_IndirectFirstInstance);
  // The implementation's multi-draw-indirect-count and immediates features, where it has them
  // (implementation.hpp).
  implementation::optional_features(s->adapter.get(), features);
  if (options.want_shader_f16 && wgpuAdapterHasFeature(s->adapter.get(), WGPUFeatureName_ShaderF16))
    features.push_back(WGPUFeatureName_ShaderF16);

  WGPUDeviceDescriptor desc = WGPU_DEVICE_DESCRIPTOR_INIT;
  desc.label = gpu::sv("bindery device");
  desc.requiredFeatureCount = features.size();
  desc.requiredFeatures = features.data();
  desc.requiredLimits = &required;
  State* raw_state = s.get();
  desc.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType type,
                                                 WGPUStringView message, void* userdata1, void*) {
    auto* st = static_cast<State*>(userdata1);
    ErrorKind kind =
        type == WGPUErrorType_OutOfMemory ? ErrorKind::OutOfMemory : ErrorKind::WebGPUValidation;
    st->record(kind, "WebGPU error: " + std::string(gpu::sv(message)));
  };
  desc.uncapturedErrorCallbackInfo.userdata1 = raw_state;
  desc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  desc.deviceLostCallbackInfo.callback = [](WGPUDevice const*, WGPUDeviceLostReason reason,
                                            WGPUStringView message, void* userdata1, void*) {
    auto* st = static_cast<State*>(userdata1);
    // bindery's own teardown is not a loss; anything else is, including wgpuDeviceDestroy called
    // by the application on the handle it was lent (reason Destroyed).
    if (st->destroying || reason == WGPUDeviceLostReason_CallbackCancelled) return;
    st->record(
        ErrorKind::DeviceLost,
        fmt::format("the device was lost ({}): {}",
                    reason == WGPUDeviceLostReason_Destroyed ? "destroyed" : "unknown reason",
                    gpu::sv(message)));
  };
  desc.deviceLostCallbackInfo.userdata1 = raw_state;

  struct Result {
    bool done = false;
    WGPUDevice device = nullptr;
    std::string message;
  } result;
  WGPURequestDeviceCallbackInfo cb = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = [](WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
                   void* userdata1, void*) {
    auto* r = static_cast<Result*>(userdata1);
    r->done = true;
    if (status == WGPURequestDeviceStatus_Success) r->device = device;
    r->message = std::string(gpu::sv(message));
  };
  cb.userdata1 = &result;
  wgpuAdapterRequestDevice(s->adapter.get(), &desc, cb);
  for (int i = 0; i < 1000 && !result.done; ++i) wgpuInstanceProcessEvents(s->instance.get());
  if (!result.device)
    throw Error(ErrorKind::DeviceCreation, "requestDevice failed: " + result.message);
  s->device = gpu::Device::acquire(result.device);
  s->queue = gpu::Queue::acquire(wgpuDeviceGetQueue(s->device.get()));

  WGPULimits device_raw = WGPU_LIMITS_INIT;
  wgpuDeviceGetLimits(s->device.get(), &device_raw);
  s->limits = to_limits(device_raw);
  s->timestamp_query = wgpuDeviceHasFeature(s->device.get(), WGPUFeatureName_TimestampQuery);
  s->indirect_first_instance =
      wgpuDeviceHasFeature(s->device.get(), WGPUFeatureName_IndirectFirstInstance);
  s->multi_draw_indirect_count =
      implementation::has_multi_draw_indirect_count(s->instance.get(), s->device.get());
  s->shader_f16 = wgpuDeviceHasFeature(s->device.get(), WGPUFeatureName_ShaderF16);
  s->immediates = implementation::has_immediates(s->instance.get(), s->device.get(), s->limits);
  return Device(std::move(s));
}

Device::Device(std::unique_ptr<State> state) : s_(std::move(state)) {}
Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&&) noexcept = default;
Device::~Device() {
  if (!s_) return;
  s_->destroying = true;
  if (s_->device && !s_->lost) {
    implementation::poll(s_->instance.get(), s_->device.get(), s_->queue.get(), true);
  }
  // Members release in reverse order: queue, device, adapter, instance.
}

WGPUDevice Device::get() const {
  return s_->device.get();
}
WGPUQueue Device::queue() const {
  return s_->queue.get();
}
WGPUInstance Device::instance() const {
  return s_->instance.get();
}
const Limits& Device::limits() const {
  return s_->limits;
}
const Limits& Device::adapter_limits() const {
  return s_->adapter_limits;
}
const AdapterDescription& Device::adapter() const {
  return s_->description;
}
bool Device::has_timestamp_query() const {
  return s_->timestamp_query;
}
bool Device::has_indirect_first_instance() const {
  return s_->indirect_first_instance;
}
bool Device::has_multi_draw_indirect_count() const {
  return s_->multi_draw_indirect_count;
}
bool Device::has_shader_f16() const {
  return s_->shader_f16;
}
bool Device::has_immediates() const {
  return s_->immediates;
}
Counters& Device::counters() const {
  return s_->counters;
}

void Device::check() const {
  s_->throw_if_lost("check");
  std::unique_lock<std::mutex> lock(s_->mutex);
  if (!s_->has_error) return;
  s_->has_error = false;
  ErrorKind kind = s_->error_kind;
  std::string message = std::move(s_->error_message);
  lock.unlock();
  throw Error(kind, message);
}

void Device::poll(bool wait) const {
  // A lost device finishes nothing: waiting on it could block for ever.
  implementation::poll(s_->instance.get(), s_->device.get(), s_->queue.get(), wait && !s_->lost);
}

bool Device::is_lost() const {
  return s_->lost;
}

gpu::BindGroup Device::create_bind_group(const WGPUBindGroupDescriptor& desc) const {
  s_->throw_if_lost("createBindGroup");
  s_->counters.bind_groups_created++;
  auto group = gpu::BindGroup::acquire(wgpuDeviceCreateBindGroup(s_->device.get(), &desc));
  s_->throw_if_lost("createBindGroup");
  return group;
}

void Device::submit(std::span<const WGPUCommandBuffer> commands) const {
  // Errors first: wgpu-native aborts the process when a submit meets a lost device.
  check();
  wgpuQueueSubmit(s_->queue.get(), commands.size(), commands.data());
  check();
}

gpu::Buffer Device::create_buffer(std::string_view label, uint64_t size, WGPUBufferUsage usage,
                                  bool mapped_at_creation) const {
  s_->throw_if_lost(fmt::format("createBuffer('{}')", label));
  if (size > s_->limits.maxBufferSize)
    throw Error(ErrorKind::BufferTooLarge,
                fmt::format("createBuffer('{}'): size {} exceeds maxBufferSize ({})", label, size,
                            s_->limits.maxBufferSize));
  // WebGPU §5.1.2 createBuffer: usage must be non-zero and known; MAP_READ combines only with
  // COPY_DST and MAP_WRITE only with COPY_SRC.
  constexpr WGPUBufferUsage kKnownUsage = WGPUBufferUsage_MapRead | WGPUBufferUsage_MapWrite |
                                          WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst |
                                          WGPUBufferUsage_Index | WGPUBufferUsage_Vertex |
                                          WGPUBufferUsage_Uniform | WGPUBufferUsage_Storage |
                                          WGPUBufferUsage_Indirect | WGPUBufferUsage_QueryResolve;
  if (usage == WGPUBufferUsage_None || (usage & ~kKnownUsage) != 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("createBuffer('{}'): usage {:#x} is empty or has unknown bits", label,
                            uint64_t(usage)));
  if ((usage & WGPUBufferUsage_MapRead) &&
      (usage & ~(WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst)))
    throw Error(
        ErrorKind::InvalidArgument,
        fmt::format("createBuffer('{}'): MAP_READ combines only with COPY_DST (usage {:#x})", label,
                    uint64_t(usage)));
  if ((usage & WGPUBufferUsage_MapWrite) &&
      (usage & ~(WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc)))
    throw Error(
        ErrorKind::InvalidArgument,
        fmt::format("createBuffer('{}'): MAP_WRITE combines only with COPY_SRC (usage {:#x})",
                    label, uint64_t(usage)));
  if (mapped_at_creation && size % 4 != 0)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("createBuffer('{}'): mappedAtCreation needs a size that is a multiple "
                            "of 4, got {}",
                            label, size));
  WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
  desc.label = gpu::sv(label);
  desc.size = size;
  desc.usage = usage;
  desc.mappedAtCreation = mapped_at_creation;
  s_->counters.buffers_created++;
  s_->counters.buffer_bytes_created += size;
  auto buffer = gpu::Buffer::acquire(wgpuDeviceCreateBuffer(s_->device.get(), &desc));
  check();
  return buffer;
}

gpu::ShaderModule Device::create_shader_module(std::string_view label,
                                               std::string_view wgsl) const {
  s_->throw_if_lost(fmt::format("createShaderModule('{}')", label));
  WGPUShaderSourceWGSL source = WGPU_SHADER_SOURCE_WGSL_INIT;
  source.code = gpu::sv(wgsl);
  WGPUShaderModuleDescriptor desc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  desc.label = gpu::sv(label);
  desc.nextInChain = &source.chain;
  auto module = gpu::ShaderModule::acquire(wgpuDeviceCreateShaderModule(s_->device.get(), &desc));
  with_context(fmt::format("creating shader module '{}'", label), [&] { check(); });
  return module;
}

void Device::write_buffer(WGPUBuffer buffer, uint64_t offset, const void* data,
                          uint64_t size) const {
  s_->throw_if_lost("writeBuffer");
  if (buffer == nullptr || (data == nullptr && size > 0))
    throw Error(ErrorKind::InvalidArgument,
                "writeBuffer: the buffer and the data must not be null");
  if (!(wgpuBufferGetUsage(buffer) & WGPUBufferUsage_CopyDst))
    throw Error(ErrorKind::InvalidArgument,
                "writeBuffer: the destination buffer was not created with COPY_DST usage");
  validate_write_buffer(offset, size, wgpuBufferGetSize(buffer));
  wgpuQueueWriteBuffer(s_->queue.get(), buffer, offset, data, size);
  s_->counters.write_buffer_calls++;
  s_->counters.bytes_uploaded += size;
  s_->throw_if_lost("writeBuffer");
}

namespace gpu {
std::array<std::string_view, kHandleTypeCount> handle_type_names() noexcept {
  // The order of the BINDERY_GPU_HANDLE lines in gpu.hpp (their indices).
  return {"Instance",        "Adapter",           "Device",         "Queue",
          "Buffer",          "Texture",           "TextureView",    "Sampler",
          "ShaderModule",    "BindGroupLayout",   "BindGroup",      "PipelineLayout",
          "RenderPipeline",  "ComputePipeline",   "CommandEncoder", "CommandBuffer",
          "RenderPassEncoder", "ComputePassEncoder", "RenderBundle", "RenderBundleEncoder",
          "QuerySet"};
}
}  // namespace gpu

}  // namespace bindery
