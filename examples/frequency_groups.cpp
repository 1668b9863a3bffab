// SPDX-License-Identifier: MIT
// examples/frequency_groups.cpp — bind groups by frequency of change (seed 001), end to end:
//   reflect the structs -> bindery::plan_bind_groups -> bind group layouts + pipeline layout ->
//   WGSL declarations from the plan -> bind groups -> a draw list sorted by material ->
//   RenderPassState, which skips every setBindGroup whose group did not change.
// The scene is shared/cases C01: 12 squares, 3 materials x 4 objects, one pass. The plan predicts
// 1 (frame) + 3 (material) + 12 (object) = 16 setBindGroup calls and 1 + 3 + 1 = 5 bind groups;
// the encoder's counters show what was issued.
//
//   build/examples/example_frequency_groups [out.png]        (default: frequency_groups.png)
#include <bindery/encode/bind_group_plan.hpp>
#include <bindery/core/device.hpp>
#include <bindery/encode/draw_list.hpp>
#include <bindery/data/dynamic_uniform_buffer.hpp>
#include <bindery/core/io.hpp>
#include <bindery/data/layout_builder.hpp>
#include <bindery/headless/offscreen.hpp>
#include <bindery/wgsl/struct_view.hpp>

#include <cstdio>
#include <string>
#include <vector>

// The structs, one per frequency. The @group/@binding lines come from the plan.
constexpr const char* kStructs = R"(
struct Frame { scale: vec2f, brightness: f32 };
struct Material { color: vec4f };
struct Object { offset: vec2f, size: f32 };
)";
constexpr const char* kBody = R"(
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  let corner = array(vec2f(-1, -1), vec2f(1, -1), vec2f(-1, 1),
                     vec2f(-1, 1), vec2f(1, -1), vec2f(1, 1));
  return vec4f((object.offset + corner[i] * object.size) * camera.scale, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4f {
  return vec4f(material.color.rgb * camera.brightness, 1.0);
}
)";

int main(int argc, char** argv) try {
  using namespace bindery;
  constexpr uint32_t kMaterials = 3, kObjects = 12;
  const std::string png = argc > 1 ? argv[1] : "frequency_groups.png";
  check_output_file(png, "frequency_groups: output");
  Device device = Device::create();

  // 1. Reflect the structs: their sizes are the bindings' sizes (and minBindingSize).
  Reflection structs = reflect_wgsl(kStructs);
  structs.throw_if_errors();
  const StructLayout &frame = structs.struct_layout("Frame"),
                     &material = structs.struct_layout("Material"),
                     &object = structs.struct_layout("Object");

  // 2. Plan: one binding per frequency, the scene's statistics, the DEVICE's limits.
  PlanInput in;
  in.bindings = {{.name = "camera",
                  .size_bytes = frame.size,
                  .frequency = Frequency::frame,
                  .wgsl_type = "Frame"},
                 {.name = "material",
                  .size_bytes = material.size,
                  .frequency = Frequency::material,
                  .wgsl_type = "Material"},
                 {.name = "object",
                  .size_bytes = object.size,
                  .frequency = Frequency::object,
                  .wgsl_type = "Object"}};
  in.stats = {.objects = kObjects, .materials = kMaterials, .passes = 1};
  in.limits = device.limits();
  const BindGroupPlan plan = plan_bind_groups(in);
  const PlannedBinding &camera_at = plan.bindings[0], &material_at = plan.bindings[1],
                       &object_at = plan.bindings[2];

  // 3. The plan's explicit layouts, and its declarations between the structs and the code.
  std::vector<gpu::BindGroupLayout> layouts;
  std::vector<WGPUBindGroupLayout> raw_layouts;
  for (const BindGroupLayoutDesc& desc : plan.pipeline_layout) {
    layouts.push_back(create_bind_group_layout(device, desc));
    raw_layouts.push_back(layouts.back().get());
  }
  gpu::PipelineLayout pipeline_layout = create_pipeline_layout(device, raw_layouts, "groups");
  const std::string wgsl = kStructs + plan.wgsl_declarations() + kBody;
  std::printf("%s", plan.wgsl_declarations().c_str());

  // 4. Bind groups: one for the frame, one per material, one for every object (dynamic offsets).
  auto uniform_group = [&](const PlannedBinding& at, const StructLayout& layout, auto&& fill) {
    std::vector<std::byte> bytes(layout.size);
    fill(StructView(layout, bytes));
    gpu::Buffer buffer = device.create_buffer(at.spec.name, layout.size,
                                              WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    device.write_buffer(buffer.get(), 0, bytes.data(), bytes.size());
    WGPUBindGroupEntry entry = WGPU_BIND_GROUP_ENTRY_INIT;
    entry.binding = at.binding;
    entry.buffer = buffer.get();
    entry.size = layout.size;
    WGPUBindGroupDescriptor d = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
    d.layout = raw_layouts[at.group];
    d.entryCount = 1;
    d.entries = &entry;
    return device.create_bind_group(d);  // holds a reference to the buffer
  };
  gpu::BindGroup frame_group = uniform_group(camera_at, frame, [](StructView v) {
    v.set("scale", glm::vec2(0.25f));
    v.set("brightness", 1.0f);
  });
  std::vector<gpu::BindGroup> material_groups;
  for (uint32_t m = 0; m < kMaterials; ++m)
    material_groups.push_back(uniform_group(material_at, material, [m](StructView v) {
      v.set("color",
            glm::vec4(float(m == 0), float(m == 1), float(m == 2), 1.0f));  // red, green, blue
    }));
  DynamicUniformBuffer objects(device, {.element_size = object.size,
                                        .slot_count = kObjects,
                                        .binding = object_at.binding,
                                        .visibility = object_at.spec.visibility,
                                        .bind_group_layout = raw_layouts[object_at.group]});
  const FieldRef offset = object.field("offset"), size = object.field("size");

  // 5. The scene in creation order (materials interleaved), sorted by material for drawing.
  DrawList list;
  for (uint32_t i = 0; i < kObjects; ++i) {
    StructView(object, objects.slot_data(i))
        .set(offset, glm::vec2(-3.0f + 2.0f * (i % 4), 2.5f - 2.5f * (i / 4)));
    StructView(object, objects.slot_data(i)).set(size, 0.8f);
    objects.mark_dirty(i);
    list.add({.material = i % kMaterials, .object_slot = i});
  }
  objects.flush();
  list.sort(DrawOrder::material);

  // 6. Pipeline, one pass, each draw binds all three groups; the encoder state skips repeats.
  OffscreenTarget target(
      device, {.width = 160, .height = 128, .depth_format = WGPUTextureFormat_Undefined});
  gpu::ShaderModule module = device.create_shader_module("groups", wgsl);
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

  const Counters before = device.counters();
  auto encoder =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
  {
    gpu::RenderPassEncoder pass = target.begin_render_pass(encoder.get(), {0, 0, 0, 1});
    RenderPassState state(pass.get(), device.counters(), IntruderPolicy::error, &device.limits());
    for (const DrawItem& item : list.items()) {
      state.set_pipeline(pipeline.get());
      state.set_bind_group(camera_at.group, frame_group.get(), {}, Frequency::frame, 0);
      state.set_bind_group(material_at.group, material_groups[item.material].get(), {},
                           Frequency::material, item.material);
      const uint32_t dynamic_offset = objects.dynamic_offset(item.object_slot);
      state.set_bind_group(object_at.group, objects.bind_group(objects.chunk_of(item.object_slot)),
                           {&dynamic_offset, 1}, Frequency::object, item.object_slot);
      state.draw(6);
    }
    wgpuRenderPassEncoderEnd(pass.get());
  }
  auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  WGPUCommandBuffer raw = commands.get();
  wgpuQueueSubmit(device.queue(), 1, &raw);
  device.check();
  write_png(png, read_back(device, target));

  // 7. What the plan predicted and what the pass issued.
  const Counters pass = device.counters() - before;
  std::printf("plan: %zu groups, setBindGroup per pass %llu, bind groups %llu\n",
              plan.groups.size(), (unsigned long long)plan.set_bind_group_per_pass,
              (unsigned long long)plan.bind_groups_created);
  std::printf(
      "pass: draws %llu, setBindGroup %llu (skipped %llu), setPipeline %llu (skipped %llu); "
      "bind groups created %llu; wrote %s\n",
      (unsigned long long)pass.draws, (unsigned long long)pass.set_bind_group,
      (unsigned long long)pass.set_bind_group_skipped, (unsigned long long)pass.set_pipeline,
      (unsigned long long)pass.set_pipeline_skipped,
      (unsigned long long)device.counters().bind_groups_created, png.c_str());
  return pass.set_bind_group == plan.set_bind_group_per_pass ? 0 : 1;
} catch (const bindery::Error& e) {
  std::fprintf(stderr, "frequency_groups: error [%s]: %s\n",
               std::string(bindery::to_string(e.kind())).c_str(), e.what());
  return 1;
}
