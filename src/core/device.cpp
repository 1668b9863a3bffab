// SPDX-License-Identifier: MIT
// Device creation, error capture and the checked helpers of bindery::Device.
#include "bindery/core/device.hpp"

#include "bindery/core/device_checks.hpp"
#include "internal/implementation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <mutex>
#include <thread>
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
  std::vector<WGPUFeatureName> features;  // the device's, from wgpuDeviceGetFeatures
  mutable Counters counters;
  // ErrorCapture::error_scopes: whether bindery's scopes are open, on which thread (check()
  // cycles them only there). ErrorCapture::bindery_calls: how many CallScopes are open on that
  // thread (check() cycles the innermost pair while one is).
  ErrorCapture capture = ErrorCapture::forwarded;
  bool scopes_open = false;
  std::thread::id scope_thread;
  mutable int call_scopes = 0;
  mutable std::mutex scope_mutex;

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

  void record_uncaptured(WGPUErrorType type, std::string_view message) const {
    ErrorKind kind =
        type == WGPUErrorType_OutOfMemory ? ErrorKind::OutOfMemory : ErrorKind::WebGPUValidation;
    record(kind, "WebGPU error: " + std::string(message));
  }

  void record_lost(WGPUDeviceLostReason reason, std::string_view message) const {
    // bindery's own teardown is not a loss; anything else is, including wgpuDeviceDestroy called
    // by the application on the handle it was lent (reason Destroyed).
    if (destroying || reason == WGPUDeviceLostReason_CallbackCancelled) return;
    record(ErrorKind::DeviceLost,
           fmt::format("the device was lost ({}): {}",
                       reason == WGPUDeviceLostReason_Destroyed ? "destroyed" : "unknown reason",
                       message));
  }

  // bindery's uncaptured-error and device-lost callbacks, set in the descriptor of a device that
  // Device::create() requests (an adopted device keeps the application's).
  void install_error_callbacks(WGPUDeviceDescriptor& desc) {
    desc.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType type,
                                                   WGPUStringView message, void* userdata1,
                                                   void*) {
      static_cast<const State*>(userdata1)->record_uncaptured(type, gpu::sv(message));
    };
    desc.uncapturedErrorCallbackInfo.userdata1 = this;
    desc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
    desc.deviceLostCallbackInfo.callback = [](WGPUDevice const*, WGPUDeviceLostReason reason,
                                              WGPUStringView message, void* userdata1, void*) {
      static_cast<const State*>(userdata1)->record_lost(reason, gpu::sv(message));
    };
    desc.deviceLostCallbackInfo.userdata1 = this;
  }

  // Limits and features, read from the device: the same for created and adopted devices.
  void read_capabilities() {
    WGPULimits raw = WGPU_LIMITS_INIT;
    if (wgpuDeviceGetLimits(device.get(), &raw) != WGPUStatus_Success)
      throw Error(ErrorKind::DeviceCreation, "wgpuDeviceGetLimits failed");
    limits = to_limits(raw);
    WGPUSupportedFeatures supported = WGPU_SUPPORTED_FEATURES_INIT;
    wgpuDeviceGetFeatures(device.get(), &supported);
    features.assign(supported.features, supported.features + supported.featureCount);
    wgpuSupportedFeaturesFreeMembers(supported);
    timestamp_query = has(WGPUFeatureName_TimestampQuery);
    indirect_first_instance = has(WGPUFeatureName_IndirectFirstInstance);
    multi_draw_indirect_count =
        implementation::has_multi_draw_indirect_count(instance.get(), device.get());
    shader_f16 = has(WGPUFeatureName_ShaderF16);
    immediates = implementation::has_immediates(instance.get(), device.get(), limits);
  }

  bool has(WGPUFeatureName feature) const {
    return std::find(features.begin(), features.end(), feature) != features.end();
  }

  // --- ErrorCapture::error_scopes (adopted devices) ---
  // Not WGPUErrorFilter_Internal: wgpu-native refuses that filter (it panics: "invalid error
  // filter"); internal errors reach the application's uncaptured-error callback.
  static constexpr WGPUErrorFilter kScopeFilters[] = {WGPUErrorFilter_Validation,
                                                      WGPUErrorFilter_OutOfMemory};

  void open_scopes() {
    push_scopes();
    scopes_open = true;
    scope_thread = std::this_thread::get_id();
  }

  void push_scopes() const {
    for (WGPUErrorFilter filter : kScopeFilters) wgpuDevicePushErrorScope(device.get(), filter);
  }

  // Pops bindery's scopes (innermost first) and records what they caught unless `discard`.
  void close_scopes(bool discard) const {
    for (size_t i = 0; i < std::size(kScopeFilters); ++i) {
      const implementation::PoppedScope popped =
          implementation::pop_error_scope(instance.get(), device.get());
      if (!discard && popped.type != WGPUErrorType_NoError)
        record_uncaptured(popped.type, popped.message);
    }
  }

  // check() on the adopting thread: what the scopes caught so far, then fresh scopes.
  // Under bindery_calls only while a CallScope is open (its pair is the innermost).
  void cycle_scopes() const {
    if (std::this_thread::get_id() != scope_thread) return;
    if (!scopes_open && !(capture == ErrorCapture::bindery_calls && call_scopes > 0)) return;
    std::lock_guard<std::mutex> lock(scope_mutex);
    close_scopes(false);
    push_scopes();
  }

  // CallScope: whether this thread brackets bindery's calls on this device.
  bool brackets_calls() const {
    return capture == ErrorCapture::bindery_calls && !lost &&
           std::this_thread::get_id() == scope_thread;
  }
};

namespace {

// --- Device::create's stages ------------------------------------------------------------------

gpu::Adapter request_adapter(WGPUInstance instance, const implementation::BackendTry& attempt,
                             const DeviceOptions& device_options) {
  struct Result {
    bool done = false;
    WGPUAdapter adapter = nullptr;
    std::string message;
  } result;
  WGPURequestAdapterOptions options = WGPU_REQUEST_ADAPTER_OPTIONS_INIT;
  options.powerPreference = device_options.power_preference;
  options.compatibleSurface = device_options.compatible_surface;
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
  implementation::wait_until(instance, result.done, 1000);
  if (!result.adapter) {
    throw Error(ErrorKind::AdapterUnavailable,
                "requestAdapter: no WebGPU adapter" +
                    (result.message.empty() ? std::string() : " (" + result.message + ")"));
  }
  return gpu::Adapter::acquire(result.adapter);
}

// Vulkan first (lavapipe on CPU-only machines), then GL (llvmpipe) when allowed.
void find_adapter(const DeviceOptions& options, gpu::Instance& instance, gpu::Adapter& adapter) {
  std::string failures;
  for (const implementation::BackendTry& attempt : implementation::backend_tries(options.backend)) {
    if (options.instance) {
      // The application's instance (its surface's): only the first try, with that instance.
      instance = gpu::Instance::share(options.instance);
      adapter = request_adapter(instance.get(), attempt, options);
      return;
    }
    instance = implementation::create_instance(attempt);
    if (!instance) continue;
    try {
      adapter = request_adapter(instance.get(), attempt, options);
      return;
    } catch (const Error& e) {
      failures += std::string(failures.empty() ? "" : "; ") + std::string(attempt.label) + ": " +
                  e.what();
    }
  }
  throw Error(ErrorKind::AdapterUnavailable,
              "no WebGPU adapter found (" + failures +
                  "); on a CPU-only machine run scripts/setup.sh to install Mesa lavapipe");
}

AdapterDescription describe_adapter(const WGPUAdapterInfo& info) {
  AdapterDescription d;
  d.name = std::string(gpu::sv(info.device));
  d.driver = std::string(gpu::sv(info.description));
  d.backend = backend_name(info.backendType);
  d.adapter_type = adapter_type_name(info.adapterType);
  d.vendor_id = info.vendorID;
  d.device_id = info.deviceID;
  d.implementation = std::string(implementation::name());
  d.implementation_revision = implementation::revision();
  return d;
}

AdapterDescription describe_adapter(WGPUAdapter adapter) {
  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  wgpuAdapterGetInfo(adapter, &info);
  AdapterDescription d = describe_adapter(info);
  wgpuAdapterInfoFreeMembers(info);
  return d;
}

// Required limits: the adapter's best by default (see the header), or nothing.
WGPULimits required_limits(const DeviceOptions& options, const WGPULimits& adapter_raw) {
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
  return required;
}

std::vector<WGPUFeatureName> required_features(const DeviceOptions& options,
                                               WGPUAdapter adapter) {
  std::vector<WGPUFeatureName> features;
  for (WGPUFeatureName f : options.required_features) {
    if (!wgpuAdapterHasFeature(adapter, f))
      throw Error(ErrorKind::DeviceCreation,
                  fmt::format("DeviceOptions::required_features: the adapter lacks feature {:#x}",
                              uint32_t(f)));
    features.push_back(f);
  }
  auto want = [&](WGPUFeatureName f) {
    if (wgpuAdapterHasFeature(adapter, f) &&
        std::find(features.begin(), features.end(), f) == features.end())
      features.push_back(f);
  };
  if (options.want_timestamp_query) want(WGPUFeatureName_TimestampQuery);
  // GPU-driven draws write firstInstance into indirect arguments (gpu-culling strategy).
  want(WGPUFeatureName_IndirectFirstInstance);
  // The implementation's multi-draw-indirect-count and immediates features, where it has them
  // (implementation.hpp).
  std::vector<WGPUFeatureName> optional;
  implementation::optional_features(adapter, optional);
  for (WGPUFeatureName f : optional) want(f);
  if (options.want_shader_f16) want(WGPUFeatureName_ShaderF16);
  return features;
}

}  // namespace

namespace {

WGPUDevice request_device(WGPUInstance instance, WGPUAdapter adapter,
                          const WGPUDeviceDescriptor& desc) {
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
  wgpuAdapterRequestDevice(adapter, &desc, cb);
  implementation::wait_until(instance, result.done, 1000);
  if (!result.device)
    throw Error(ErrorKind::DeviceCreation, "requestDevice failed: " + result.message);
  return result.device;
}

}  // namespace

gpu::Instance Device::create_instance(Backend backend) {
  const std::vector<implementation::BackendTry> tries = implementation::backend_tries(backend);
  gpu::Instance instance;
  if (!tries.empty()) instance = implementation::create_instance(tries.front());
  if (!instance)
    throw Error(ErrorKind::AdapterUnavailable,
                fmt::format("{} made no WebGPU instance", implementation::name()));
  return instance;
}

Device Device::create(const DeviceOptions& options) {
  auto s = std::make_unique<State>();
  find_adapter(options, s->instance, s->adapter);
  s->description = describe_adapter(s->adapter.get());

  WGPULimits adapter_raw = WGPU_LIMITS_INIT;
  if (wgpuAdapterGetLimits(s->adapter.get(), &adapter_raw) != WGPUStatus_Success)
    throw Error(ErrorKind::DeviceCreation, "wgpuAdapterGetLimits failed");
  s->adapter_limits = to_limits(adapter_raw);
  WGPULimits limits = required_limits(options, adapter_raw);
  const std::vector<WGPUFeatureName> features = required_features(options, s->adapter.get());
  // The implementation's own limits (wgpu-native: binding-array sizes) where it offers them.
  const std::shared_ptr<void> native_limits =
      options.limits == LimitsRequest::adapter_best
          ? implementation::chain_native_limits(s->adapter.get(), limits)
          : nullptr;

  WGPUDeviceDescriptor desc = WGPU_DEVICE_DESCRIPTOR_INIT;
  desc.label = gpu::sv("bindery device");
  desc.requiredFeatureCount = features.size();
  desc.requiredFeatures = features.data();
  desc.requiredLimits = &limits;
  s->install_error_callbacks(desc);
  s->device = gpu::Device::acquire(request_device(s->instance.get(), s->adapter.get(), desc));
  s->queue = gpu::Queue::acquire(wgpuDeviceGetQueue(s->device.get()));
  s->read_capabilities();
  return Device(std::move(s));
}

Device Device::adopt(WGPUInstance instance, WGPUAdapter adapter, WGPUDevice device,
                     const AdoptOptions& options) {
  if (instance == nullptr || device == nullptr)
    throw Error(ErrorKind::InvalidArgument, "Device::adopt: instance and device must not be null");
  auto s = std::make_unique<State>();
  const bool borrow = options.ownership == Ownership::borrow;
  s->instance = borrow ? gpu::Instance::share(instance) : gpu::Instance::acquire(instance);
  s->adapter = borrow ? gpu::Adapter::share(adapter) : gpu::Adapter::acquire(adapter);
  s->device = borrow ? gpu::Device::share(device) : gpu::Device::acquire(device);
  s->queue = gpu::Queue::acquire(wgpuDeviceGetQueue(device));
  s->read_capabilities();
  if (adapter) {
    s->description = describe_adapter(adapter);
    WGPULimits adapter_raw = WGPU_LIMITS_INIT;
    s->adapter_limits = wgpuAdapterGetLimits(adapter, &adapter_raw) == WGPUStatus_Success
                            ? to_limits(adapter_raw)
                            : s->limits;
  } else {
    // No wgpuDeviceGetAdapterInfo: wgpu-native does not implement it (it panics).
    s->description.name = "unknown (adopted without its adapter)";
    s->description.implementation = std::string(implementation::name());
    s->description.implementation_revision = implementation::revision();
    s->adapter_limits = s->limits;
  }
  s->capture = options.errors;
  s->scope_thread = std::this_thread::get_id();
  if (options.errors == ErrorCapture::error_scopes) s->open_scopes();
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
  // An adopted device's stack of error scopes is left as the application had it.
  if (s_->scopes_open) s_->close_scopes(true);
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
WGPUAdapter Device::adapter_handle() const {
  return s_->adapter.get();
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

bool Device::has_feature(WGPUFeatureName feature) const {
  return s_->has(feature);
}
void Device::report_error(WGPUErrorType type, std::string_view message) const {
  s_->record_uncaptured(type, message);
}
void Device::report_device_lost(WGPUDeviceLostReason reason, std::string_view message) const {
  s_->record_lost(reason, message);
}

ErrorCapture Device::error_capture() const {
  return s_->capture;
}

// Only the outermost CallScope of a thread's nest pushes and pops: the inner ones' calls are
// inside its scopes already (and a check() inside cycles them), so a loop of bindery calls (a
// flush's writeBuffer per chunk) costs no pop each.
CallScope::CallScope(const Device& device) {
  const Device::State& s = *device.s_;
  if (!s.brackets_calls()) return;
  std::lock_guard<std::mutex> lock(s.scope_mutex);
  pushed_ = s.call_scopes == 0;
  if (pushed_) s.push_scopes();
  s.call_scopes++;
  device_ = &device;
}

CallScope::~CallScope() {
  if (!device_) return;
  const Device::State& s = *device_->s_;
  std::lock_guard<std::mutex> lock(s.scope_mutex);
  // Recorded for the next check(); nothing to learn from a lost device.
  if (pushed_) s.close_scopes(s.lost);
  s.call_scopes--;
}

gpu::CommandBuffer Device::finish(WGPUCommandEncoder encoder, std::string_view label) const {
  s_->throw_if_lost("finish");
  if (encoder == nullptr)
    throw Error(ErrorKind::InvalidArgument, "Device::finish: the encoder must not be null");
  std::unique_lock<std::mutex> lock(s_->scope_mutex);
  s_->push_scopes();
  WGPUCommandBufferDescriptor desc = WGPU_COMMAND_BUFFER_DESCRIPTOR_INIT;
  desc.label = gpu::sv(label);
  auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder, &desc));
  s_->close_scopes(false);
  lock.unlock();
  with_context(fmt::format("finishing command encoder '{}'", label), [&] { check(); });
  return commands;
}

void Device::check() const {
  s_->cycle_scopes();
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
  const CallScope scope(*this);
  auto group = gpu::BindGroup::acquire(wgpuDeviceCreateBindGroup(s_->device.get(), &desc));
  s_->throw_if_lost("createBindGroup");
  return group;
}

void Device::submit(std::span<const WGPUCommandBuffer> commands) const {
  // Errors first: wgpu-native aborts the process when a submit meets a lost device.
  const CallScope scope(*this);
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
  const CallScope scope(*this);
  auto buffer = gpu::Buffer::acquire(wgpuDeviceCreateBuffer(s_->device.get(), &desc));
  check();
  return buffer;
}

uint32_t texture_texel_bytes(WGPUTextureFormat format) {
  switch (format) {
    case WGPUTextureFormat_R8Unorm:
      return 1;
    case WGPUTextureFormat_RGBA8Unorm:
    case WGPUTextureFormat_RGBA8UnormSrgb:
    case WGPUTextureFormat_BGRA8Unorm:
    case WGPUTextureFormat_BGRA8UnormSrgb:
    case WGPUTextureFormat_R32Float:
    case WGPUTextureFormat_Depth24Plus:
    case WGPUTextureFormat_Depth32Float:
      return 4;
    case WGPUTextureFormat_RGBA16Float:
      return 8;
    case WGPUTextureFormat_RGBA32Float:
      return 16;
    default:
      return 0;
  }
}

uint64_t texture_bytes(const WGPUTextureDescriptor& desc) {
  uint64_t texels = 0;
  for (uint32_t level = 0; level < desc.mipLevelCount; ++level)
    texels += uint64_t(std::max(1u, desc.size.width >> level)) *
              std::max(1u, desc.size.height >> level) * desc.size.depthOrArrayLayers;
  return texels * texture_texel_bytes(desc.format);
}

gpu::Texture Device::create_texture(const WGPUTextureDescriptor& desc) const {
  s_->throw_if_lost("createTexture");
  s_->counters.textures_created++;
  s_->counters.texture_bytes_created += texture_bytes(desc);
  const CallScope scope(*this);
  return gpu::Texture::acquire(wgpuDeviceCreateTexture(s_->device.get(), &desc));
}

gpu::ShaderModule Device::create_shader_module(std::string_view label,
                                               std::string_view wgsl) const {
  s_->throw_if_lost(fmt::format("createShaderModule('{}')", label));
  WGPUShaderSourceWGSL source = WGPU_SHADER_SOURCE_WGSL_INIT;
  source.code = gpu::sv(wgsl);
  WGPUShaderModuleDescriptor desc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  desc.label = gpu::sv(label);
  desc.nextInChain = &source.chain;
  const CallScope scope(*this);
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
  const CallScope scope(*this);
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
