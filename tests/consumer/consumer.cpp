// SPDX-License-Identifier: MIT
// tests/consumer/consumer.cpp — bindery used from outside its repository (built against the
// installed package by tests/consumer/run.sh): four quads, one per quadrant of an offscreen
// target, each with its own colour through a DynamicUniformBuffer whose field offsets come from
// reflect_wgsl; the frame is read back with read_back and each quadrant's centre pixel compared
// with the colour written. The target is 50 x 30: 200 bytes of pixels per row, 256 per row in
// the copy buffer, so the row padding must be dropped for the pixels to land right.
//   consumer [out.png]      exit 0 when every quadrant has its colour
#include <bindery/bindery.hpp>

#include <cstdio>
#include <string>

static_assert(BINDERY_VERSION_MAJOR == 0 && BINDERY_VERSION_MINOR >= 2,
              "built against bindery 0.2");

namespace {
constexpr const char* kShader = R"(
struct Quad { center: vec2f, color: vec4f };
@group(0) @binding(0) var<uniform> quad: Quad;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  let corner = array(vec2f(-1, -1), vec2f(1, -1), vec2f(-1, 1),
                     vec2f(-1, 1), vec2f(1, -1), vec2f(1, 1));
  return vec4f(quad.center + corner[i] * 0.5, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4f { return quad.color; })";

// Quadrant centres in clip space and colours that are exact in RGBA8Unorm (k / 255 × 255 = k).
struct QuadSpec {
  float x, y;
  uint8_t r, g, b;
};
constexpr QuadSpec kQuads[] = {{-0.5f, 0.5f, 51, 0, 0},
                               {0.5f, 0.5f, 0, 102, 0},
                               {-0.5f, -0.5f, 0, 0, 153},
                               {0.5f, -0.5f, 204, 204, 0}};
constexpr uint32_t kWidth = 50, kHeight = 30;
}  // namespace

int main(int argc, char** argv) try {
  using namespace bindery;
  Device device = Device::create();
  Reflection reflection = reflect_wgsl(kShader);
  reflection.throw_if_errors();
  const StructLayout& layout = reflection.struct_layout("Quad");
  DynamicUniformBuffer quads(device, {.element_size = layout.size, .slot_count = 4});
  for (uint32_t i = 0; i < 4; ++i) {
    StructView v(layout, quads.slot_data(i));
    v.set("center", glm::vec2(kQuads[i].x, kQuads[i].y));
    v.set("color", glm::vec4(kQuads[i].r, kQuads[i].g, kQuads[i].b, 255.0f) / 255.0f);
    quads.mark_dirty(i);
  }
  quads.flush();

  OffscreenTarget target(device, {.width = kWidth, .height = kHeight, .depth_format = {}});
  WGPUBindGroupLayout layouts[] = {quads.bind_group_layout()};
  gpu::PipelineLayout pipeline_layout = create_pipeline_layout(device, layouts, "consumer");
  gpu::ShaderModule module = device.create_shader_module("consumer", kShader);
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

  auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), {}));
  {
    gpu::RenderPassEncoder pass = target.begin_render_pass(encoder.get(), {0, 0, 0, 1});
    RenderPassState state(pass.get(), device.counters(), IntruderPolicy::error, &device.limits());
    for (uint32_t i = 0; i < 4; ++i) {
      state.set_pipeline(pipeline.get());
      const uint32_t offset = quads.dynamic_offset(i);
      state.set_bind_group(0, quads.bind_group(quads.chunk_of(i)), {&offset, 1});
      state.draw(6);
    }
    wgpuRenderPassEncoderEnd(pass.get());
  }
  auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  WGPUCommandBuffer raw = commands.get();
  wgpuQueueSubmit(device.queue(), 1, &raw);
  device.check();

  const Image image = read_back(device, target);
  if (argc > 1) write_png(argv[1], image);
  int wrong = 0;
  for (const QuadSpec& q : kQuads) {
    // Clip (x, y) -> pixel: x right, y up in clip space, rows top to bottom in the image.
    const uint32_t px = uint32_t((q.x + 1.0f) * 0.5f * kWidth);
    const uint32_t py = uint32_t((1.0f - q.y) * 0.5f * kHeight);
    const uint8_t* p = image.pixel(px, py);
    if (p[0] != q.r || p[1] != q.g || p[2] != q.b || p[3] != 255) {
      std::fprintf(stderr, "consumer: pixel (%u, %u) is %u %u %u %u, expected %u %u %u 255\n", px,
                   py, p[0], p[1], p[2], p[3], q.r, q.g, q.b);
      ++wrong;
    }
  }
  if (image.width != kWidth || image.height != kHeight) ++wrong;
  std::printf("consumer: bindery %s, %ux%u frame, stride %llu bytes, %s\n", BINDERY_VERSION_STRING,
              image.width, image.height, static_cast<unsigned long long>(quads.stride()),
              wrong ? "WRONG PIXELS" : "quadrant colours ok");
  return wrong ? 1 : 0;
} catch (const bindery::Error& e) {
  std::fprintf(stderr, "consumer: error [%s]: %s\n",
               std::string(bindery::to_string(e.kind())).c_str(), e.what());
  return 1;
}
