// SPDX-License-Identifier: MIT
// examples/draw_many.cpp — per-draw data, the smallest complete use of bindery: N triangles, each
// with its own position and colour, through ONE uniform buffer and ONE bind group with a dynamic
// offset per draw (seed 000); struct offsets reflected from the shader, the stride from the
// device's minUniformBufferOffsetAlignment. Run: example_draw_many [N=64, <= 50000] [out.png]
#include <bindery/bindery.hpp>  // every public header; a renderer includes only the parts it uses
#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <string_view>

constexpr const char* kShader = R"(
struct PerObject { offset: vec2f, scale: f32, color: vec4f };
@group(0) @binding(0) var<uniform> obj: PerObject;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  let corner = array(vec2f(0.0, 1.0), vec2f(-0.87, -0.5), vec2f(0.87, -0.5));
  return vec4f(obj.offset + corner[i] * obj.scale, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4f { return obj.color; })";

int main(int argc, char** argv) try {
  using namespace bindery;
  const std::string_view arg = argc > 1 ? argv[1] : "64";
  uint32_t n = 0;
  const auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), n);
  if (argc > 3 || ec != std::errc() || end != arg.data() + arg.size() || n == 0 || n > 50000) {
    fmt::print(stderr, "draw_many: usage: example_draw_many [N in 1..50000] [out.png]\n");
    return 1;
  }
  const std::string png = argc > 2 ? argv[2] : "draw_many.png";
  check_output_file(png, "draw_many: output");
  Device device = Device::create();

  // 1. Reflect the per-object struct: its size is the binding size, its fields the offsets.
  Reflection reflection = reflect_wgsl(kShader);
  reflection.throw_if_errors();
  const StructLayout& layout = reflection.struct_layout("PerObject");
  const FieldRef offset = layout.field("offset"), scale = layout.field("scale"),
                 color = layout.field("color");

  // 2. One buffer of N slots at the device's stride, one bind group with a dynamic offset.
  DynamicUniformBuffer objects(device, {.element_size = layout.size, .slot_count = n});
  fmt::print("{} objects, {} bytes each, stride {} bytes (minUniformBufferOffsetAlignment {})\n", n,
             layout.size, objects.stride(), device.limits().minUniformBufferOffsetAlignment);

  // 3. Fill every slot through StructView; flush() uploads them (one writeBuffer per chunk).
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
  OffscreenTarget target(device, {.width = 256, .height = 256, .depth_format = {}});  // no depth
  WGPUBindGroupLayout layouts[] = {objects.bind_group_layout()};
  gpu::PipelineLayout pipeline_layout = create_pipeline_layout(device, layouts, "draw_many");
  gpu::ShaderModule module = device.create_shader_module("draw_many", kShader);
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

  // 5. One pass: the pipeline once, the bind group with each object's dynamic offset.
  auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), {}));
  {  // the pass encoder is released at the end of the block, before the command encoder finishes
    gpu::RenderPassEncoder pass = target.begin_render_pass(encoder.get(), {0.1, 0.1, 0.1, 1.0});
    RenderPassState state(pass.get(), device.counters(), IntruderPolicy::error, &device.limits());
    for (uint32_t i = 0; i < n; ++i) {
      state.set_pipeline(pipeline.get());  // issued once: the same pipeline is skipped
      const uint32_t dynamic_offset = objects.dynamic_offset(i);
      state.set_bind_group(0, objects.bind_group(objects.chunk_of(i)), {&dynamic_offset, 1});
      state.draw(3);
    }
    wgpuRenderPassEncoderEnd(pass.get());
  }
  auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  const WGPUCommandBuffer raw = commands.get();
  device.submit({&raw, 1});  // checks for recorded errors first: nothing invalid is submitted

  // 6. Read the frame back (read_back drops the rows' copy padding) and write the PNG.
  write_png(png, read_back(device, target));
  const Counters& c = device.counters();
  fmt::print("draws {}, setBindGroup {}, setPipeline {} (skipped {}), writeBuffer {}; wrote {}\n",
             c.draws, c.set_bind_group, c.set_pipeline, c.set_pipeline_skipped,
             c.write_buffer_calls, png);
  return 0;
} catch (const bindery::Error& e) {
  fmt::print(stderr, "draw_many: error [{}]: {}\n", bindery::to_string(e.kind()), e.what());
  return 1;
}
