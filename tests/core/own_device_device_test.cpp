// SPDX-License-Identifier: MIT
// Device tests of Device::adopt (issue 19, part 3): the application creates instance, adapter and
// device with plain webgpu.h (callbacks run by wgpuInstanceProcessEvents, which wgpu-native and
// Dawn both drive), bindery's parts and render() work on it, the limits bindery reports are the
// device's, errors reach bindery without touching the application's uncaptured-error callback,
// and destroying every bindery object (the Device included) leaves the application's device
// alive and usable.
#include <bindery/device.hpp>
#include <bindery/dynamic_uniform_buffer.hpp>
#include <bindery/core/features.hpp>
#include <bindery/gpu_driven/indirect_draws.hpp>
#include <bindery/gpu_driven/mesh_pool.hpp>
#include <bindery/gpu_driven/object_table.hpp>
#include <bindery/draw_list.hpp>
#include <bindery/image.hpp>
#include <bindery/layout_builder.hpp>
#include <bindery/offscreen.hpp>
#include <bindery/renderer.hpp>
#include <bindery/scene.hpp>
#include <bindery/struct_view.hpp>
#include <bindery/wgsl_layout.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>

#include "support/expect_kind.hpp"

namespace bindery {
namespace {

// What the application's own uncaptured-error callback saw; `forward` (ErrorCapture::forwarded)
// passes each error on to bindery.
struct AppErrors {
  std::atomic<int> count{0};
  const Device* forward = nullptr;
};

template <class T>
struct Reply {
  bool done = false;
  T value = nullptr;
};

// The application's side: instance, adapter and device from plain webgpu.h, released by the
// destructor (the application's references; bindery's borrowed ones are its own).
struct AppDevice {
  WGPUInstance instance = nullptr;
  WGPUAdapter adapter = nullptr;
  WGPUDevice device = nullptr;
  AppErrors errors;
  WGPULimits adapter_limits = WGPU_LIMITS_INIT;

  // `required` limits (null: none, the spec defaults); timestamp-query required where offered,
  // or exactly `features` when given.
  explicit AppDevice(bool require_adapter_alignment,
                     std::optional<std::vector<WGPUFeatureName>> features = std::nullopt) {
    instance = wgpuCreateInstance(nullptr);
    Reply<WGPUAdapter> a;
    WGPURequestAdapterCallbackInfo acb = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
    acb.mode = WGPUCallbackMode_AllowProcessEvents;
    acb.callback = [](WGPURequestAdapterStatus, WGPUAdapter value, WGPUStringView, void* r,
                      void*) { *static_cast<Reply<WGPUAdapter>*>(r) = {true, value}; };
    acb.userdata1 = &a;
    wgpuInstanceRequestAdapter(instance, nullptr, acb);
    while (!a.done) wgpuInstanceProcessEvents(instance);
    adapter = a.value;
    if (!adapter) return;
    wgpuAdapterGetLimits(adapter, &adapter_limits);

    // A limit better than the default where the adapter offers one, so that "the device's
    // limits" and "the spec defaults" differ and the test can tell which bindery read.
    WGPULimits required = WGPU_LIMITS_INIT;
    if (require_adapter_alignment)
      required.minUniformBufferOffsetAlignment = adapter_limits.minUniformBufferOffsetAlignment;
    WGPUDeviceDescriptor desc = WGPU_DEVICE_DESCRIPTOR_INIT;
    desc.requiredLimits = &required;
    const WGPUFeatureName timestamp = WGPUFeatureName_TimestampQuery;
    if (features) {
      desc.requiredFeatureCount = features->size();
      desc.requiredFeatures = features->data();
    } else if (wgpuAdapterHasFeature(adapter, timestamp)) {
      desc.requiredFeatureCount = 1;
      desc.requiredFeatures = &timestamp;
    }
    desc.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType type,
                                                   WGPUStringView message, void* userdata1,
                                                   void*) {
      auto* e = static_cast<AppErrors*>(userdata1);
      e->count++;
      if (e->forward) e->forward->report_error(type, gpu::sv(message));
    };
    desc.uncapturedErrorCallbackInfo.userdata1 = &errors;
    Reply<WGPUDevice> d;
    WGPURequestDeviceCallbackInfo dcb = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
    dcb.mode = WGPUCallbackMode_AllowProcessEvents;
    dcb.callback = [](WGPURequestDeviceStatus, WGPUDevice value, WGPUStringView, void* r, void*) {
      *static_cast<Reply<WGPUDevice>*>(r) = {true, value};
    };
    dcb.userdata1 = &d;
    wgpuAdapterRequestDevice(adapter, &desc, dcb);
    while (!d.done) wgpuInstanceProcessEvents(instance);
    device = d.value;
  }
  AppDevice(const AppDevice&) = delete;
  AppDevice& operator=(const AppDevice&) = delete;
  ~AppDevice() {
    if (device) wgpuDeviceRelease(device);
    if (adapter) wgpuAdapterRelease(adapter);
    if (instance) wgpuInstanceRelease(instance);
  }

  // Without bindery: writes `words` into a buffer, copies it into a MAP_READ buffer, submits,
  // waits for the map and returns what the GPU copied.
  std::vector<uint32_t> round_trip(const std::vector<uint32_t>& words) {
    const uint64_t size = words.size() * 4;
    WGPUBufferDescriptor bd = WGPU_BUFFER_DESCRIPTOR_INIT;
    bd.size = size;
    bd.usage = WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc;
    WGPUBuffer src = wgpuDeviceCreateBuffer(device, &bd);
    bd.usage = WGPUBufferUsage_CopyDst | WGPUBufferUsage_MapRead;
    WGPUBuffer dst = wgpuDeviceCreateBuffer(device, &bd);
    WGPUQueue queue = wgpuDeviceGetQueue(device);
    wgpuQueueWriteBuffer(queue, src, 0, words.data(), size);
    WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(device, nullptr);
    wgpuCommandEncoderCopyBufferToBuffer(encoder, src, 0, dst, 0, size);
    WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, nullptr);
    wgpuQueueSubmit(queue, 1, &commands);
    struct Mapped {
      bool done = false;
      bool ok = false;
    } mapped;
    WGPUBufferMapCallbackInfo mcb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
    mcb.mode = WGPUCallbackMode_AllowProcessEvents;
    mcb.callback = [](WGPUMapAsyncStatus status, WGPUStringView, void* r, void*) {
      *static_cast<Mapped*>(r) = {true, status == WGPUMapAsyncStatus_Success};
    };
    mcb.userdata1 = &mapped;
    wgpuBufferMapAsync(dst, WGPUMapMode_Read, 0, size, mcb);
    for (int i = 0; i < 1000000 && !mapped.done; ++i) wgpuInstanceProcessEvents(instance);
    std::vector<uint32_t> out;
    if (mapped.ok) {
      out.resize(words.size());
      std::memcpy(out.data(), wgpuBufferGetConstMappedRange(dst, 0, size), size);
      wgpuBufferUnmap(dst);
    }
    wgpuCommandBufferRelease(commands);
    wgpuCommandEncoderRelease(encoder);
    wgpuQueueRelease(queue);
    wgpuBufferRelease(dst);
    wgpuBufferRelease(src);
    return out;
  }
};

constexpr const char* kShader = R"(
struct Draw { offset: vec2f, color: vec4f };
@group(0) @binding(0) var<uniform> d: Draw;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  let corner = array(vec2f(0.0, 1.0), vec2f(-0.87, -0.5), vec2f(0.87, -0.5));
  return vec4f(d.offset + corner[i] * 0.4, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4f { return d.color; })";

// Four triangles through DynamicUniformBuffer + StructView + RenderPassState into a 64x64
// OffscreenTarget: triangle i centred on clip-space (+-0.5, +-0.5), i.e. on pixel (16 or 48,
// 16 or 48) (x right, y down), coloured red, green, blue, white.
Image draw_quadrants(const Device& device) {
  const StructLayout layout = reflect_wgsl(kShader).struct_layout("Draw");
  DynamicUniformBuffer draws(device, {.element_size = layout.size, .slot_count = 4});
  const glm::vec4 colors[4] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}, {1, 1, 1, 1}};
  for (uint32_t i = 0; i < 4; ++i) {
    StructView v(layout, draws.slot_data(i));
    v.set(layout.field("offset"), glm::vec2(i % 2 ? 0.5f : -0.5f, i < 2 ? 0.5f : -0.5f));
    v.set(layout.field("color"), colors[i]);
    draws.mark_dirty(i);
  }
  draws.flush();
  OffscreenTarget target(device, {.width = 64, .height = 64, .depth_format = {}});
  WGPUBindGroupLayout layouts[] = {draws.bind_group_layout()};
  gpu::PipelineLayout pipeline_layout = create_pipeline_layout(device, layouts, "own_device");
  gpu::ShaderModule module = device.create_shader_module("own_device", kShader);
  WGPUColorTargetState color_target = WGPU_COLOR_TARGET_STATE_INIT;
  color_target.format = target.color_format();
  WGPUFragmentState fs = WGPU_FRAGMENT_STATE_INIT;
  fs.module = module.get();
  fs.entryPoint = gpu::sv("fs");
  fs.targetCount = 1;
  fs.targets = &color_target;
  WGPURenderPipelineDescriptor pd = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  pd.layout = pipeline_layout.get();
  pd.vertex.module = module.get();
  pd.vertex.entryPoint = gpu::sv("vs");
  pd.fragment = &fs;
  auto pipeline = gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(device.get(), &pd));
  device.check();
  // Sorted by DrawList (one pipeline, material = slot): the order the pass issues them in.
  DrawList list;
  for (uint32_t i = 0; i < 4; ++i) list.add({.pipeline = 0, .material = 3 - i, .mesh = 0});
  list.sort();
  auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), {}));
  {
    gpu::RenderPassEncoder pass = target.begin_render_pass(encoder.get(), {0, 0, 0, 1});
    RenderPassState state(pass.get(), device.counters(), IntruderPolicy::error, &device.limits());
    for (const DrawItem& item : list.items()) {
      const uint32_t slot = 3 - item.material;
      const uint32_t offset = draws.dynamic_offset(slot);
      state.set_pipeline(pipeline.get());
      state.set_bind_group(0, draws.bind_group(draws.chunk_of(slot)), {&offset, 1});
      state.draw(3);
    }
    wgpuRenderPassEncoderEnd(pass.get());
  }
  auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  const WGPUCommandBuffer raw = commands.get();
  device.submit({&raw, 1});
  return read_back(device, target);
}

void expect_quadrants(const Image& frame) {
  ASSERT_EQ(frame.width, 64u);
  const struct {
    uint32_t x, y;
    uint8_t rgb[3];
  } expected[] = {{16, 16, {255, 0, 0}}, {48, 16, {0, 255, 0}}, {16, 48, {0, 0, 255}},
                  {48, 48, {255, 255, 255}}, {32, 2, {0, 0, 0}}};
  for (const auto& e : expected)
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(frame.pixel(e.x, e.y)[c], e.rgb[c]) << "pixel " << e.x << "," << e.y << " c" << c;
}

TEST(OwnDevice, PartsDrawOnTheApplicationsDevice) {
  AppDevice app(true);
  ASSERT_NE(app.device, nullptr);
  {
    const Device device = Device::adopt(app.instance, app.adapter, app.device);
    EXPECT_EQ(device.get(), app.device);
    EXPECT_EQ(device.instance(), app.instance);
    expect_quadrants(draw_quadrants(device));
    EXPECT_EQ(device.counters().draws, 4u);
    EXPECT_EQ(device.counters().set_pipeline, 1u);
  }
  EXPECT_EQ(app.errors.count, 0);
}

TEST(OwnDevice, LimitsAndFeaturesAreTheDevicesOwn) {
  for (bool better_alignment : {false, true}) {
    AppDevice app(better_alignment);
    ASSERT_NE(app.device, nullptr);
    WGPULimits raw = WGPU_LIMITS_INIT;
    ASSERT_EQ(wgpuDeviceGetLimits(app.device, &raw), WGPUStatus_Success);
    const Device device = Device::adopt(app.instance, app.adapter, app.device);
    const Limits& l = device.limits();
    EXPECT_EQ(l.minUniformBufferOffsetAlignment, raw.minUniformBufferOffsetAlignment);
    EXPECT_EQ(l.minStorageBufferOffsetAlignment, raw.minStorageBufferOffsetAlignment);
    EXPECT_EQ(l.maxUniformBufferBindingSize, raw.maxUniformBufferBindingSize);
    EXPECT_EQ(l.maxStorageBufferBindingSize, raw.maxStorageBufferBindingSize);
    EXPECT_EQ(l.maxBufferSize, raw.maxBufferSize);
    EXPECT_EQ(l.maxBindGroups, raw.maxBindGroups);
    EXPECT_EQ(l.maxTextureDimension2D, raw.maxTextureDimension2D);
    EXPECT_EQ(l.maxDynamicUniformBuffersPerPipelineLayout,
              raw.maxDynamicUniformBuffersPerPipelineLayout);
    // What the application required: the adapter's alignment, or the spec default 256 (WebGPU
    // §3.6.2) when it required none.
    EXPECT_EQ(l.minUniformBufferOffsetAlignment,
              better_alignment ? app.adapter_limits.minUniformBufferOffsetAlignment : 256u);
    EXPECT_EQ(device.adapter_limits().minUniformBufferOffsetAlignment,
              app.adapter_limits.minUniformBufferOffsetAlignment);
    const bool timestamp = wgpuAdapterHasFeature(app.adapter, WGPUFeatureName_TimestampQuery);
    EXPECT_EQ(device.has_timestamp_query(), timestamp);
    EXPECT_EQ(device.has_feature(WGPUFeatureName_TimestampQuery), timestamp);
    // Not required by the application, so not the device's even where the adapter has it.
    EXPECT_FALSE(device.has_shader_f16());
    EXPECT_FALSE(device.has_indirect_first_instance());
  }
}

TEST(OwnDevice, DestroyingBinderysObjectsLeavesTheDeviceUsable) {
  AppDevice app(false);
  ASSERT_NE(app.device, nullptr);
  {
    const Device device = Device::adopt(app.instance, app.adapter, app.device);
    expect_quadrants(draw_quadrants(device));
    gpu::Buffer extra = device.create_buffer("extra", 256, WGPUBufferUsage_Uniform);
  }  // every bindery object, the Device last
  const std::vector<uint32_t> words = {1, 2, 3, 0xdeadbeef, 42, 7, 9, 11};
  EXPECT_EQ(app.round_trip(words), words);
  EXPECT_EQ(app.errors.count, 0);
}

TEST(OwnDevice, TakenOwnershipReleasesTheApplicationsReferences) {
  AppDevice app(false);
  ASSERT_NE(app.device, nullptr);
  // The application hands its references over and keeps one of its own to the device only.
  wgpuDeviceAddRef(app.device);
  {
    const Device device =
        Device::adopt(std::exchange(app.instance, nullptr), std::exchange(app.adapter, nullptr),
                      app.device, {.ownership = Ownership::take});
    expect_quadrants(draw_quadrants(device));
  }
  // The device outlives bindery's Device through the application's extra reference.
  WGPUBufferDescriptor bd = WGPU_BUFFER_DESCRIPTOR_INIT;
  bd.size = 64;
  bd.usage = WGPUBufferUsage_Uniform;
  WGPUBuffer buffer = wgpuDeviceCreateBuffer(app.device, &bd);
  EXPECT_NE(buffer, nullptr);
  EXPECT_EQ(wgpuBufferGetSize(buffer), 64u);
  wgpuBufferRelease(buffer);
  EXPECT_EQ(app.errors.count, 0);
}

TEST(OwnDevice, ErrorScopesCatchBinderysErrorsNotTheApplications) {
  AppDevice app(false);
  ASSERT_NE(app.device, nullptr);
  {
    const Device device = Device::adopt(app.instance, app.adapter, app.device);
    // An invalid shader (WGSL §: an undeclared identifier) is a validation error of bindery's call.
    EXPECT_KIND(device.create_shader_module("broken", "fn f() -> f32 { return nope; }"),
                WebGPUValidation);
    EXPECT_EQ(app.errors.count, 0);  // caught by bindery's scope, not the application's callback
    expect_quadrants(draw_quadrants(device));  // and the device goes on
  }
  // bindery's scopes are gone with it: the application's next error is the application's.
  WGPUBufferDescriptor bd = WGPU_BUFFER_DESCRIPTOR_INIT;
  bd.size = 64;
  bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_Uniform;  // invalid (WebGPU §5.1.2)
  WGPUBuffer buffer = wgpuDeviceCreateBuffer(app.device, &bd);
  for (int i = 0; i < 1000 && app.errors.count == 0; ++i) wgpuInstanceProcessEvents(app.instance);
  EXPECT_EQ(app.errors.count, 1);
  if (buffer) wgpuBufferRelease(buffer);
}

TEST(OwnDevice, ForwardedErrorsReachCheck) {
  AppDevice app(false);
  ASSERT_NE(app.device, nullptr);
  {
    const Device device = Device::adopt(app.instance, app.adapter, app.device,
                                        {.errors = ErrorCapture::forwarded});
    app.errors.forward = &device;
    WGPUBufferDescriptor bd = WGPU_BUFFER_DESCRIPTOR_INIT;
    bd.size = 64;
    bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_Uniform;  // invalid (WebGPU §5.1.2)
    WGPUBuffer buffer = wgpuDeviceCreateBuffer(device.get(), &bd);
    for (int i = 0; i < 1000 && app.errors.count == 0; ++i)
      wgpuInstanceProcessEvents(app.instance);
    EXPECT_EQ(app.errors.count, 1);
    EXPECT_KIND(device.check(), WebGPUValidation);
    if (buffer) wgpuBufferRelease(buffer);
    app.errors.forward = nullptr;
  }
}

TEST(OwnDevice, RenderRunsOnAnAdoptedDeviceAndMatchesACreatedOne) {
  const Scene scene = make_cube_scene({.objects = 200, .seed = 3});
  RenderOptions o;
  o.width = 128;
  o.height = 96;
  o.frames = 2;
  o.keep_last_frame = true;
  const RenderReport created = render(Device::create(), scene, o);
  AppDevice app(true);
  ASSERT_NE(app.device, nullptr);
  RenderReport adopted;
  {
    const Device device = Device::adopt(app.instance, app.adapter, app.device);
    adopted = render(device, scene, o);
  }
  EXPECT_EQ(adopted.draws_per_frame, 200u);  // dynamic-offsets: one draw per object
  ASSERT_TRUE(created.last_frame && adopted.last_frame);
  EXPECT_EQ(count_differing_pixels(*created.last_frame, *adopted.last_frame, 1), 0u);
  EXPECT_EQ(app.errors.count, 0);
  EXPECT_EQ(app.round_trip({5, 6, 7, 8}), (std::vector<uint32_t>{5, 6, 7, 8}));
}

// The application's own recording: a render pass whose one setBindGroup has dynamic offset 4,
// not a multiple of minUniformBufferOffsetAlignment (at least 16 on every adapter, WebGPU §3.6.2;
// §17.2.1 setBindGroup: a validation error of the encoder). Plain webgpu.h on bindery's objects.
struct MisalignedPass {
  DynamicUniformBuffer draws;
  OffscreenTarget target;
  gpu::CommandEncoder encoder;
  explicit MisalignedPass(const Device& device)
      : draws(device, {.element_size = 32, .slot_count = 4}),
        target(device, {.width = 8, .height = 8, .depth_format = {}}),
        encoder(gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), {}))) {
    draws.flush();
    gpu::RenderPassEncoder pass = target.begin_render_pass(encoder.get(), {0, 0, 0, 1});
    const uint32_t offset = 4;
    wgpuRenderPassEncoderSetBindGroup(pass.get(), 0, draws.bind_group(0), 1, &offset);
    wgpuRenderPassEncoderEnd(pass.get());
  }
};

void wait_for_errors(AppDevice& app, int count) {
  for (int i = 0; i < 1000 && app.errors.count < count; ++i)
    wgpuInstanceProcessEvents(app.instance);
}

TEST(OwnDevice, BinderyCallsLeaveTheApplicationsErrorsToItsCallback) {
  AppDevice app(false);
  ASSERT_NE(app.device, nullptr);
  {
    const Device device = Device::adopt(app.instance, app.adapter, app.device,
                                        {.errors = ErrorCapture::bindery_calls});
    EXPECT_EQ(device.error_capture(), ErrorCapture::bindery_calls);
    // bindery's own error is bindery's, thrown where it happened ...
    EXPECT_KIND(device.create_shader_module("broken", "fn f() -> f32 { return nope; }"),
                WebGPUValidation);
    expect_quadrants(draw_quadrants(device));
    EXPECT_EQ(app.errors.count, 0);
    // ... and the application's own invalid call (WebGPU §5.1.2: MAP_READ with UNIFORM) is its
    // callback's, not bindery's.
    WGPUBufferDescriptor bd = WGPU_BUFFER_DESCRIPTOR_INIT;
    bd.size = 64;
    bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_Uniform;
    WGPUBuffer buffer = wgpuDeviceCreateBuffer(app.device, &bd);
    wait_for_errors(app, 1);
    EXPECT_EQ(app.errors.count, 1);
    EXPECT_NO_THROW(device.check());
    if (buffer) wgpuBufferRelease(buffer);
    // The application finishes its invalid pass itself: the error is its callback's (so it knows
    // not to submit: wgpu-native would abort the process), and bindery does not throw it.
    {
      MisalignedPass own(device);
      const int before = app.errors.count;
      auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(own.encoder.get(), {}));
      wait_for_errors(app, before + 1);
      EXPECT_EQ(app.errors.count, before + 1);
      EXPECT_NO_THROW(device.check());
    }
    // The same pass through the checked finish: thrown before any submit.
    {
      MisalignedPass own(device);
      EXPECT_KIND(device.finish(own.encoder.get(), "misaligned"), WebGPUValidation);
    }
    // The application submits a valid command buffer itself; bindery goes on.
    const std::vector<uint32_t> words = {3, 1, 4, 1, 5, 9, 2, 6};
    EXPECT_EQ(app.round_trip(words), words);
    const int seen = app.errors.count;
    expect_quadrants(draw_quadrants(device));
    // The whole renderer too: render() brackets its frames, and none of its calls is the
    // application's callback's.
    RenderOptions o;
    o.width = 64;
    o.height = 48;
    o.frames = 2;
    EXPECT_EQ(render(device, make_cube_scene({.objects = 50, .seed = 5}), o).draws_per_frame, 50u);
    EXPECT_NO_THROW(device.check());
    EXPECT_EQ(app.errors.count, seen);
  }
}

TEST(OwnDevice, CheckedFinishThrowsAnInvalidCommandBufferInEveryMode) {
  for (ErrorCapture mode :
       {ErrorCapture::error_scopes, ErrorCapture::bindery_calls, ErrorCapture::forwarded}) {
    AppDevice app(false);
    ASSERT_NE(app.device, nullptr);
    {
      const Device device = Device::adopt(app.instance, app.adapter, app.device, {.errors = mode});
      MisalignedPass own(device);
      EXPECT_KIND(device.finish(own.encoder.get(), "misaligned"), WebGPUValidation);
      EXPECT_NO_THROW(device.check());  // thrown once, by finish
      // A valid encoder finishes, and the application submits it itself.
      auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(app.device, {}));
      const gpu::CommandBuffer commands = device.finish(encoder.get(), "empty");
      const WGPUCommandBuffer raw = commands.get();
      wgpuQueueSubmit(device.queue(), 1, &raw);
      EXPECT_NO_THROW(device.check());
    }
  }
  // On a device bindery created, too.
  const Device device = Device::create();
  MisalignedPass own(device);
  EXPECT_KIND(device.finish(own.encoder.get(), "misaligned"), WebGPUValidation);
  EXPECT_KIND(device.finish(nullptr), InvalidArgument);
}

// Issue 26: a device created without indirect-first-instance was told "llvmpipe does not offer
// it" although the adapter does; now the part says the device was created without it, with a
// kind of its own, and best_features() lists what to request.
TEST(OwnDevice, FeaturesThePartsNeedAreData) {
  AppDevice app(false);  // requires timestamp-query only
  ASSERT_NE(app.device, nullptr);
  const bool offers = wgpuAdapterHasFeature(app.adapter, WGPUFeatureName_IndirectFirstInstance);
  const std::vector<WGPUFeatureName> best = best_features(app.adapter);
  const std::vector<FeatureNeed> needs = feature_needs();
  bool listed = false;
  for (const FeatureNeed& n : needs) {
    const bool in_best = std::find(best.begin(), best.end(), n.feature) != best.end();
    EXPECT_EQ(in_best, bool(wgpuAdapterHasFeature(app.adapter, n.feature))) << n.name;
    EXPECT_FALSE(n.used_by.empty()) << n.name;
    if (n.feature == WGPUFeatureName_IndirectFirstInstance) listed = n.required;
  }
  EXPECT_TRUE(listed) << "indirect-first-instance is not listed as required";
  EXPECT_KIND(best_features(nullptr), InvalidArgument);
  {
    const Device device = Device::adopt(app.instance, app.adapter, app.device);
    gpu_driven::MeshPool meshes(device);
    gpu_driven::ObjectTable objects(device);
    try {
      gpu_driven::IndirectDraws draws(device, objects, meshes);
      ADD_FAILURE() << "IndirectDraws without indirect-first-instance was built";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), offers ? ErrorKind::FeatureNotRequested : ErrorKind::StrategyUnavailable)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("created without indirect-first-instance"),
                std::string::npos)
          << e.what();
      if (offers) EXPECT_NE(std::string(e.what()).find("offers it"), std::string::npos);
    }
  }
  if (!offers) GTEST_SKIP() << "the adapter lacks indirect-first-instance";
  // Requested as best_features() says: the same best draw path as on bindery's own device.
  AppDevice full(false, best);
  ASSERT_NE(full.device, nullptr);
  const Device device = Device::adopt(full.instance, full.adapter, full.device);
  for (WGPUFeatureName f : best) EXPECT_TRUE(device.has_feature(f)) << f;
  gpu_driven::MeshPool meshes(device);
  gpu_driven::ObjectTable objects(device);
  const gpu_driven::IndirectDraws draws(device, objects, meshes);
  EXPECT_EQ(draws.path(), gpu_driven::best_draw_path(Device::create()));
}

TEST(OwnDevice, NullHandlesAreRefused) {
  EXPECT_KIND(Device::adopt(nullptr, nullptr, nullptr), InvalidArgument);
}

}  // namespace
}  // namespace bindery
