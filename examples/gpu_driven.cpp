// SPDX-License-Identifier: MIT
// examples/gpu_driven.cpp — an application's own meshes, materials and textures of three sizes,
// drawn through bindery's GPU-driven parts into the application's own render pass: the mesh pool
// holds the meshes, the object table the objects (a few moved each frame), the material table
// the materials; GpuDrivenScene composes the stages (Culling frustum-culls on the GPU into
// IndirectDraws, which draws every visible object with one call per pipeline where the device has
// multi-draw-indirect), keeps the objects' bind group current and records the frame in one call.
// Run: example_gpu_driven [out.png]
#include <bindery/bindery.hpp>
#include <bindery/gpu_driven/gpu_driven_scene.hpp>
#include <bindery/gpu_driven/material_table.hpp>
#include <bindery/gpu_driven/mesh_pool.hpp>
#include <bindery/gpu_driven/object_table.hpp>
#include <fmt/core.h>
#include <glm/gtc/matrix_transform.hpp>

// The application's shader: its own vertex and fragment stages over the parts' declarations
// (the objects and the remap at group 0, bindings 1 and 2: IndirectDraws::object_wgsl(0, 1)).
constexpr const char* kStages = R"(
struct Frame { viewProjection: mat4x4f };
@group(0) @binding(0) var<uniform> frame: Frame;
struct Out { @builtin(position) position: vec4f, @location(0) uv: vec2f,
             @location(1) @interpolate(flat) material: u32 };
@vertex fn vs(@location(0) p: vec3f, @location(2) uv: vec2f, @builtin(instance_index) i: u32) -> Out {
  let o = objects[remap[i]];
  return Out(frame.viewProjection * vec4f(object_transform(o, p), 1.0), uv, o.material);
}
@fragment fn fs(in: Out) -> @location(0) vec4f {
  let m = materialRecords[in.material];
  return m.color * material_texel(m, in.uv, dpdx(in.uv), dpdy(in.uv));
})";

// A square pyramid (apex = false: a flat tile) of half-width 1, with texture coordinates.
bindery::Mesh pyramid(bool apex) {
  bindery::Mesh m;
  const glm::vec2 c[4] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  for (const glm::vec2& q : c) m.vertices.push_back({{q.x, 0, q.y}, {0, 1, 0}, (q + 1.0f) * 0.5f});
  m.vertices.push_back({{0, apex ? 2.0f : 0.0f, 0}, {0, 1, 0}, {0.5f, 0.5f}});
  m.indices = {0, 4, 1, 1, 4, 2, 2, 4, 3, 3, 4, 0};
  m.bounds_min = {-1, 0, -1};
  m.bounds_max = {1, apex ? 2.0f : 0.0f, 1};
  return m;
}

// A two-colour checkerboard texture of w x h texels with its mips.
bindery::TextureData checker(uint32_t w, uint32_t h, glm::u8vec4 a, glm::u8vec4 b) {
  std::vector<uint8_t> texels;
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const glm::u8vec4 t = ((x / 4 + y / 4) % 2) ? a : b;
      texels.insert(texels.end(), {t.r, t.g, t.b, t.a});
    }
  return bindery::make_texture_with_mips("checker", w, h, std::move(texels));
}

int main(int argc, char** argv) try {
  using namespace bindery;
  using namespace bindery::gpu_driven;
  const std::string png = argc > 1 ? argv[1] : "gpu_driven.png";
  check_output_file(png, "gpu_driven: output");
  Device device = Device::create();

  // 1. The application's data: two meshes, textures of three sizes, three materials.
  MeshPool meshes(device);
  const MeshId mesh_ids[2] = {meshes.add(pyramid(true)), meshes.add(pyramid(false))};
  const TextureData textures[] = {checker(64, 64, {255, 255, 255, 255}, {40, 40, 40, 255}),
                                  checker(32, 16, {255, 200, 0, 255}, {0, 80, 200, 255}),
                                  checker(24, 40, {200, 0, 0, 255}, {255, 255, 255, 255})};
  Material materials[3];
  for (uint32_t i = 0; i < 3; ++i) materials[i].texture = i;
  const SamplerData samplers[] = {SamplerData{}};
  MaterialTable material_table(device, materials, textures, samplers);

  // 2. 900 objects on a grid: the application keeps their ids and moves them when it likes.
  ObjectTable objects(device);
  std::vector<ObjectId> ids;
  auto place = [](uint32_t i, float lift) {
    return glm::translate(glm::mat4(1.0f), glm::vec3(float(i % 30) * 3 - 45, lift, float(i / 30) * 3 - 45));
  };
  for (uint32_t i = 0; i < 900; ++i) ids.push_back(objects.add(place(i, 0), mesh_ids[i % 2], i % 3));

  // 3. The application's pipeline (layout 'auto'), then the scene over its objects and meshes:
  // frustum culling only here, the objects' group 0 with the application's frame uniform.
  OffscreenTarget target(device, {.width = 320, .height = 240});
  const std::string wgsl =
      IndirectDraws::object_wgsl(0, 1) + material_table.wgsl(1, 0) + kStages;
  gpu::ShaderModule module = device.create_shader_module("example gpu_driven", wgsl);
  const glm::mat4 view_projection =
      glm::perspectiveRH_ZO(glm::radians(60.0f), 320.0f / 240.0f, 1.0f, 500.0f) *
      glm::lookAtRH(glm::vec3(0, 40, 70), glm::vec3(0), glm::vec3(0, 1, 0));
  gpu::Buffer frame = device.create_buffer("frame", 64, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  device.write_buffer(frame.get(), 0, &view_projection, 64);
  WGPURenderPipelineDescriptor pd = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;  // layout 'auto'
  WGPUVertexAttribute attributes[2] = {{nullptr, WGPUVertexFormat_Float32x3, 0, 0},
                                       {nullptr, WGPUVertexFormat_Float32x2, 24, 2}};
  WGPUVertexBufferLayout vertex_layout = {nullptr, WGPUVertexStepMode_Vertex, sizeof(Vertex), 2, attributes};
  pd.vertex = {nullptr, module.get(), gpu::sv("vs"), 0, nullptr, 1, &vertex_layout};
  WGPUColorTargetState color = {nullptr, target.color_format(), nullptr, WGPUColorWriteMask_All};
  WGPUFragmentState fs = {nullptr, module.get(), gpu::sv("fs"), 0, nullptr, 1, &color};
  pd.fragment = &fs;
  WGPUDepthStencilState depth = WGPU_DEPTH_STENCIL_STATE_INIT;
  depth.format = target.depth_format();
  depth.depthWriteEnabled = WGPUOptionalBool_True;
  depth.depthCompare = WGPUCompareFunction_Less;
  pd.depthStencil = &depth;
  auto pipeline = gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(device.get(), &pd));
  auto group_layout = [&](uint32_t g) {
    return gpu::BindGroupLayout::acquire(wgpuRenderPipelineGetBindGroupLayout(pipeline.get(), g));
  };
  const gpu::BindGroupLayout layout0 = group_layout(0), layout1 = group_layout(1);
  const std::vector<WGPUBindGroupEntry> material_entries = material_table.group_entries(0);
  const gpu::BindGroup material_group = device.create_bind_group(
      {nullptr, {}, layout1.get(), material_entries.size(), material_entries.data()});
  GpuDrivenScene scene(device, objects, meshes,
                       {.label = "example scene", .culling = {.frustum = true, .occlusion = false},
                        .object_group = {.first_binding = 1,
                                         .extra_entries = {buffer_group_entry(0, frame.get())},
                                         .layout = layout0.get()}});
  const TargetPasses passes(target.color_view(), target.depth_view(), {0.6, 0.8, 1.0, 1.0});

  // 4. Five frames; each moves ten objects (set_transform, uploaded by the scene's flush).
  for (uint32_t f = 0; f < 5; ++f) {
    for (uint32_t k = 0; k < 10; ++k) objects.set_transform(ids[(f * 97 + k * 89) % 900], place(f * 97 + k * 89, 1.5f));
    auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
    scene.record_frame(encoder.get(), view_projection, passes.passes(), [&](WGPURenderPassEncoder pass, ScenePhase) {
      const WGPUBindGroup groups[] = {scene.object_group(), material_group.get()};
      scene.draws().draw(pass, 0, {pipeline.get(), groups}, device.counters());
    });
    auto commands = device.finish(encoder.get(), "example frame");
    const WGPUCommandBuffer raw = commands.get();
    device.submit({&raw, 1});
    objects.after_submit();
  }
  const CullingStats counts = scene.read_counts();
  write_png(png, read_back(device, target));
  fmt::print("objects {}, meshes 2, texture arrays {}, inside the frustum {}, draw path {}, draw "
             "calls {}; wrote {}\n",
             objects.size(), material_table.classes().size(), counts.after_frustum,
             to_string(scene.draws().path()), device.counters().draws, png);
  return 0;
} catch (const bindery::Error& e) {
  fmt::print(stderr, "gpu_driven: error [{}]: {}\n", bindery::to_string(e.kind()), e.what());
  return 1;
}
