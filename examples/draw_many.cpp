// examples/draw_many.cpp — the smallest complete use of bindery: N triangles, each with its own
// position and colour, through ONE uniform buffer and ONE bind group with a dynamic offset per
// draw (seed 000). Offsets inside the per-object struct come from reflecting the shader, the
// stride from the device's minUniformBufferOffsetAlignment.
//
//   build/examples/example_draw_many [N] [out.png]     (defaults: 64, draw_many.png; N <= 50000,
//                                                      one render pass: lavapipe crashes past
//                                                      about 65,000 draws in one pass)
#include <bindery/device.hpp>
#include <bindery/draw_list.hpp>
#include <bindery/dynamic_uniform_buffer.hpp>
#include <bindery/image.hpp>
#include <bindery/io.hpp>
#include <bindery/layout_builder.hpp>
#include <bindery/struct_view.hpp>
#include <bindery/wgsl_layout.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr const char* kShader = R"(
struct PerObject {
  offset: vec2f,
  scale: f32,
  color: vec4f,
};
@group(0) @binding(0) var<uniform> obj: PerObject;

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  let corner = array(vec2f(0.0, 1.0), vec2f(-0.87, -0.5), vec2f(0.87, -0.5));
  return vec4f(obj.offset + corner[i] * obj.scale, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4f { return obj.color; }
)";

}  // namespace

int main(int argc, char** argv) try {
  using namespace bindery;
  constexpr uint32_t kMaxObjects = 50000;
  if (argc > 3) {
    std::fprintf(stderr, "draw_many: usage: example_draw_many [N] [out.png]\n");
    return 1;
  }
  uint32_t n = 64;
  if (argc > 1) {
    const std::string_view arg = argv[1];
    const auto r = std::from_chars(arg.data(), arg.data() + arg.size(), n);
    if (r.ec != std::errc() || r.ptr != arg.data() + arg.size() || n == 0 || n > kMaxObjects) {
      std::fprintf(stderr, "draw_many: N '%s' must be a whole number in 1..%u\n", argv[1],
                   kMaxObjects);
      return 1;
    }
  }
  const char* png = argc > 2 ? argv[2] : "draw_many.png";
  check_output_file(png, "draw_many: output");
  Device device = Device::create();

  // 1. Reflect the per-object struct: its size is the binding size, its fields the offsets.
  Reflection reflection = reflect_wgsl(kShader);
  reflection.throw_if_errors();
  const StructLayout& layout = reflection.struct_layout("PerObject");
  const FieldRef offset = layout.field("offset"), scale = layout.field("scale"),
                 color = layout.field("color");

  // 2. One buffer of N slots at the device's stride, one bind group with a dynamic offset.
  DynamicUniformBufferDesc desc;
  desc.element_size = layout.size;
  desc.slot_count = n;
  desc.visibility = kStageVertex | kStageFragment;
  DynamicUniformBuffer objects(device, desc);
  std::printf("%u objects, %u bytes each, stride %llu bytes (minUniformBufferOffsetAlignment %u)\n",
              n, layout.size, static_cast<unsigned long long>(objects.stride()),
              device.limits().minUniformBufferOffsetAlignment);

  // 3. Fill every slot through StructView, upload once.
  const uint32_t side = static_cast<uint32_t>(std::ceil(std::sqrt(double(n))));
  for (uint32_t i = 0; i < n; ++i) {
    StructView v(layout, objects.slot_data(i));
    v.set(offset, glm::vec2(-1.0f + (2.0f * (i % side) + 1.0f) / side,
                            1.0f - (2.0f * (i / side) + 1.0f) / side));
    v.set(scale, 0.8f / side);
    v.set(color, glm::vec4(float(i % 7) / 6.0f, float(i % 5) / 4.0f, float(i % 3) / 2.0f, 1.0f));
    objects.mark_dirty(i);
  }
  objects.flush();

  // 4. Pipeline over an explicit layout (layout 'auto' cannot express hasDynamicOffset).
  WGPUBindGroupLayout layouts[] = {objects.bind_group_layout()};
  gpu::PipelineLayout pipeline_layout = create_pipeline_layout(device, layouts, "draw_many");
  gpu::ShaderModule module = device.create_shader_module("draw_many", kShader);
  WGPUColorTargetState target = WGPU_COLOR_TARGET_STATE_INIT;
  target.format = WGPUTextureFormat_RGBA8Unorm;
  WGPUFragmentState fs = WGPU_FRAGMENT_STATE_INIT;
  fs.module = module.get();
  fs.entryPoint = gpu::sv("fs");
  fs.targetCount = 1;
  fs.targets = &target;
  WGPURenderPipelineDescriptor pd = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  pd.layout = pipeline_layout.get();
  pd.vertex.module = module.get();
  pd.vertex.entryPoint = gpu::sv("vs");
  pd.fragment = &fs;
  gpu::RenderPipeline pipeline =
      gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(device.get(), &pd));
  device.check();

  // 5. One pass: set the pipeline once, the bind group with each object's dynamic offset.
  constexpr uint32_t kSize = 256;
  WGPUTextureDescriptor td = WGPU_TEXTURE_DESCRIPTOR_INIT;
  td.size = {kSize, kSize, 1};
  td.format = WGPUTextureFormat_RGBA8Unorm;
  td.usage = WGPUTextureUsage_RenderAttachment | WGPUTextureUsage_CopySrc;
  gpu::Texture target_texture = gpu::Texture::acquire(wgpuDeviceCreateTexture(device.get(), &td));
  gpu::TextureView view =
      gpu::TextureView::acquire(wgpuTextureCreateView(target_texture.get(), nullptr));
  gpu::Buffer readback = device.create_buffer("readback", kSize * kSize * 4,
                                              WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
  gpu::CommandEncoder encoder =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
  WGPURenderPassColorAttachment ca = WGPU_RENDER_PASS_COLOR_ATTACHMENT_INIT;
  ca.view = view.get();
  ca.loadOp = WGPULoadOp_Clear;
  ca.storeOp = WGPUStoreOp_Store;
  ca.clearValue = {0.1, 0.1, 0.1, 1.0};
  WGPURenderPassDescriptor rp = WGPU_RENDER_PASS_DESCRIPTOR_INIT;
  rp.colorAttachmentCount = 1;
  rp.colorAttachments = &ca;
  WGPURenderPassEncoder pass = wgpuCommandEncoderBeginRenderPass(encoder.get(), &rp);
  {
    RenderPassState state(pass, device.counters(), IntruderPolicy::build_default, &device.limits());
    for (uint32_t i = 0; i < n; ++i) {
      state.set_pipeline(pipeline.get());
      const uint32_t dynamic_offset = objects.dynamic_offset(i);
      state.set_bind_group(0, objects.bind_group(objects.chunk_of(i)), {&dynamic_offset, 1});
      state.draw(3);
    }
  }
  wgpuRenderPassEncoderEnd(pass);
  wgpuRenderPassEncoderRelease(pass);
  WGPUTexelCopyTextureInfo src = WGPU_TEXEL_COPY_TEXTURE_INFO_INIT;
  src.texture = target_texture.get();
  WGPUTexelCopyBufferInfo dst = WGPU_TEXEL_COPY_BUFFER_INFO_INIT;
  dst.buffer = readback.get();
  dst.layout.bytesPerRow = kSize * 4;  // 1024: already a multiple of the 256-byte copy alignment
  dst.layout.rowsPerImage = kSize;
  WGPUExtent3D extent = {kSize, kSize, 1};
  wgpuCommandEncoderCopyTextureToBuffer(encoder.get(), &src, &dst, &extent);
  gpu::CommandBuffer commands =
      gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  WGPUCommandBuffer cmd = commands.get();
  wgpuQueueSubmit(device.queue(), 1, &cmd);
  device.check();

  // 6. Read back and write the PNG.
  bool mapped = false;
  WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView, void* done, void*) {
    *static_cast<bool*>(done) = status == WGPUMapAsyncStatus_Success;
  };
  cb.userdata1 = &mapped;
  wgpuBufferMapAsync(readback.get(), WGPUMapMode_Read, 0, kSize * kSize * 4, cb);
  for (int i = 0; i < 1000 && !mapped; ++i) {
    device.poll(true);
    wgpuInstanceProcessEvents(device.instance());
  }
  if (!mapped) throw Error(ErrorKind::WebGPUValidation, "draw_many: readback map failed");
  Image image{kSize, kSize, std::vector<uint8_t>(kSize * kSize * 4)};
  std::memcpy(image.rgba.data(),
              wgpuBufferGetConstMappedRange(readback.get(), 0, image.rgba.size()),
              image.rgba.size());
  wgpuBufferUnmap(readback.get());
  write_png(png, image);
  const Counters& c = device.counters();
  std::printf(
      "draws %llu, setBindGroup %llu, setPipeline %llu (skipped %llu), writeBuffer %llu; "
      "wrote %s\n",
      static_cast<unsigned long long>(c.draws), static_cast<unsigned long long>(c.set_bind_group),
      static_cast<unsigned long long>(c.set_pipeline),
      static_cast<unsigned long long>(c.set_pipeline_skipped),
      static_cast<unsigned long long>(c.write_buffer_calls), png);
  return 0;
} catch (const bindery::Error& e) {
  std::fprintf(stderr, "draw_many: error [%s]: %s\n",
               std::string(bindery::to_string(e.kind())).c_str(), e.what());
  return 1;
}
