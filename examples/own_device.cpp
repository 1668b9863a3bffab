// SPDX-License-Identifier: MIT
// examples/own_device.cpp — bindery's parts on a device the application made with plain webgpu.h
// (callbacks run by wgpuInstanceProcessEvents: wgpu-native and Dawn alike), borrowed through
// Device::adopt with ErrorCapture::bindery_calls: bindery's error scopes bracket only bindery's
// own calls, so the application's uncaptured-error callback keeps the errors of its own. Four triangles' data through
// DynamicUniformBuffer + StructView, drawn with RenderPassState into an OffscreenTarget; prints
// each quadrant centre's colour. Run: example_own_device [out.png]
#include <bindery/bindery.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

constexpr const char* kShader = R"(
struct Draw { offset: vec2f, color: vec4f };
@group(0) @binding(0) var<uniform> d: Draw;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  let corner = array(vec2f(0.0, 1.0), vec2f(-0.87, -0.5), vec2f(0.87, -0.5));
  return vec4f(d.offset + corner[i] * 0.4, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4f { return d.color; })";

template <class T> struct Reply { bool done = false; T value = nullptr; };  // a request's answer
template <class S, class T> void on_reply(S, T value, WGPUStringView, void* reply, void*) {
  *static_cast<Reply<T>*>(reply) = {true, value};
}

int main(int argc, char** argv) try {
  // 1. The application's own instance, adapter and device.
  WGPUInstance instance = wgpuCreateInstance(nullptr);
  Reply<WGPUAdapter> adapter;
  WGPURequestAdapterCallbackInfo acb = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  acb.mode = WGPUCallbackMode_AllowProcessEvents;
  acb.callback = on_reply<WGPURequestAdapterStatus, WGPUAdapter>;
  acb.userdata1 = &adapter;
  wgpuInstanceRequestAdapter(instance, nullptr, acb);
  while (!adapter.done) wgpuInstanceProcessEvents(instance);
  if (!adapter.value) return fmt::print(stderr, "own_device: no adapter\n"), 1;
  WGPUDeviceDescriptor dd = WGPU_DEVICE_DESCRIPTOR_INIT;
  dd.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType, WGPUStringView m,
                                               void*, void*) {
    fmt::print(stderr, "own_device: the application's callback: {}\n", bindery::gpu::sv(m));
  };
  Reply<WGPUDevice> device;
  WGPURequestDeviceCallbackInfo dcb = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  dcb.mode = WGPUCallbackMode_AllowProcessEvents;
  dcb.callback = on_reply<WGPURequestDeviceStatus, WGPUDevice>;
  dcb.userdata1 = &device;
  wgpuAdapterRequestDevice(adapter.value, &dd, dcb);
  while (!device.done) wgpuInstanceProcessEvents(instance);
  if (!device.value) return fmt::print(stderr, "own_device: no device\n"), 1;
  {  // 2. bindery borrows them (AddRef now, Release when `gpu` goes): the parts work as usual.
    using namespace bindery;
    const Device gpu = Device::adopt(instance, adapter.value, device.value,
                                     {.errors = ErrorCapture::bindery_calls});
    const StructLayout layout = reflect_wgsl(kShader).struct_layout("Draw");
    DynamicUniformBuffer draws(gpu, {.element_size = layout.size, .slot_count = 4});
    for (uint32_t i = 0; i < 4; ++i) {
      StructView v(layout, draws.slot_data(i));
      v.set(layout.field("offset"), glm::vec2(i % 2 ? 0.5f : -0.5f, i < 2 ? 0.5f : -0.5f));
      v.set(layout.field("color"), glm::vec4(i == 0 || i == 3, i == 1 || i == 3, i >= 2, 1));
      draws.mark_dirty(i);
    }
    draws.flush();
    OffscreenTarget target(gpu, {.width = 64, .height = 64, .depth_format = {}});
    WGPUBindGroupLayout layouts[] = {draws.bind_group_layout()};
    gpu::PipelineLayout pipeline_layout = create_pipeline_layout(gpu, layouts, "own_device");
    gpu::ShaderModule module = gpu.create_shader_module("own_device", kShader);
    WGPUColorTargetState color_target = WGPU_COLOR_TARGET_STATE_INIT;
    color_target.format = target.color_format();
    WGPUFragmentState fs = WGPU_FRAGMENT_STATE_INIT;
    WGPURenderPipelineDescriptor pd = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
    fs.module = module.get(), fs.entryPoint = gpu::sv("fs"), fs.targets = &color_target;
    fs.targetCount = 1, pd.layout = pipeline_layout.get(), pd.fragment = &fs;
    pd.vertex.module = module.get(), pd.vertex.entryPoint = gpu::sv("vs");
    auto pipeline = gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(gpu.get(), &pd));
    auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(gpu.get(), {}));
    {
      gpu::RenderPassEncoder pass = target.begin_render_pass(encoder.get(), {0, 0, 0, 1});
      RenderPassState state(pass.get(), gpu.counters(), IntruderPolicy::error, &gpu.limits());
      for (uint32_t i = 0; i < 4; ++i) {
        const uint32_t offset = draws.dynamic_offset(i);
        state.set_pipeline(pipeline.get());  // issued once
        state.set_bind_group(0, draws.bind_group(draws.chunk_of(i)), {&offset, 1});
        state.draw(3);
      }
      wgpuRenderPassEncoderEnd(pass.get());
    }
    // The checked finish: an invalid command buffer is thrown here, before any submit (wgpu-native
    // aborts the process on the submit of one); wgpuQueueSubmit of your own would do as well.
    const gpu::CommandBuffer commands = gpu.finish(encoder.get(), "own_device frame");
    const WGPUCommandBuffer raw = commands.get();
    gpu.submit({&raw, 1});
    const Image frame = read_back(gpu, target);
    if (argc > 1) write_png(argv[1], frame);
    for (const auto& [x, y] : {std::pair{16, 16}, {48, 16}, {16, 48}, {48, 48}})
      fmt::print("pixel ({},{}) = {}\n", x, y, fmt::join(frame.pixel(x, y), frame.pixel(x, y) + 3,
                                                         " "));
    fmt::print("draws {}, setPipeline {}\n", gpu.counters().draws, gpu.counters().set_pipeline);
  }  // bindery's objects are gone; the application's device is still the application's
  wgpuDeviceRelease(device.value), wgpuAdapterRelease(adapter.value), wgpuInstanceRelease(instance);
  return 0;
} catch (const bindery::Error& e) {
  return fmt::print(stderr, "own_device: error [{}]: {}\n", to_string(e.kind()), e.what()), 1;
}
