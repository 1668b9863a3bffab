// SPDX-License-Identifier: MIT
// examples/clusters.cpp — an application's own high-polygon mesh (a bumped sphere of 81,920
// triangles) built into a cluster hierarchy and drawn as 400 objects with continuous level of
// detail into the application's own render pass: Culling lists the visible objects, ClusterCulling
// selects each one's cut at 1 pixel of error and writes one index buffer, and a single
// drawIndexedIndirect draws it, the vertex stage pulling its vertices from the mesh pool.
// Run: example_clusters [out.png]
#include <bindery/bindery.hpp>
#include <bindery/gpu_driven/cluster_culling.hpp>
#include <bindery/gpu_driven/cluster_hierarchy.hpp>
#include <bindery/gpu_driven/culling.hpp>
#include <bindery/gpu_driven/indirect_draws.hpp>
#include <bindery/gpu_driven/mesh_pool.hpp>
#include <bindery/gpu_driven/object_table.hpp>
#include <fmt/core.h>
#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <map>

// The application's stages: the position and normal of the vertex cluster_vertex() names.
constexpr const char* kStages = R"(
struct Frame { viewProjection: mat4x4f };
@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> objects: array<ObjectRecord>;
struct Out { @builtin(position) position: vec4f, @location(0) normal: vec3f };
@vertex fn vs(@builtin(vertex_index) index: u32) -> Out {
  let cv = cluster_vertex(index);
  let w = cv.vertex * 9u;  // bindery::Vertex: 9 words, position first, then the normal
  let p = vec3f(bitcast<f32>(poolVertices[w]), bitcast<f32>(poolVertices[w + 1u]),
                bitcast<f32>(poolVertices[w + 2u]));
  let n = vec3f(bitcast<f32>(poolVertices[w + 3u]), bitcast<f32>(poolVertices[w + 4u]),
                bitcast<f32>(poolVertices[w + 5u]));
  let o = objects[cv.object];
  return Out(frame.viewProjection * vec4f(object_transform(o, p), 1.0), n);
}
@fragment fn fs(in: Out) -> @location(0) vec4f {
  let light = max(dot(normalize(in.normal), normalize(vec3f(0.4, 1.0, 0.6))), 0.0);
  return vec4f(vec3f(0.15 + 0.85 * light) * vec3f(0.9, 0.7, 0.4), 1.0);
})";

// An icosahedron subdivided 5 times onto the unit sphere, bumped: a closed mesh of 20 * 4^5
// triangles.
bindery::Mesh bumped_sphere() {
  const float t = (1.0f + std::sqrt(5.0f)) / 2.0f;
  std::vector<glm::vec3> p = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t},
                              {0, 1, t},  {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1},
                              {-t, 0, -1}, {-t, 0, 1}};
  std::vector<uint32_t> idx = {0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4,
                               11, 10, 2, 10, 7, 6, 7, 1, 8, 3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8,
                               3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1};
  for (glm::vec3& v : p) v = glm::normalize(v);
  for (int level = 0; level < 6; ++level) {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> mid;
    auto midpoint = [&](uint32_t a, uint32_t b) {
      auto [it, added] = mid.try_emplace(std::minmax(a, b), uint32_t(p.size()));
      if (added) p.push_back(glm::normalize(p[a] + p[b]));
      return it->second;
    };
    std::vector<uint32_t> next;
    for (size_t i = 0; i < idx.size(); i += 3) {
      const uint32_t a = idx[i], b = idx[i + 1], c = idx[i + 2];
      const uint32_t ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
      next.insert(next.end(), {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca});
    }
    idx = std::move(next);
  }
  bindery::Mesh m;
  m.name = "bumped sphere";
  for (const glm::vec3& v : p)
    m.vertices.push_back({v * (1.0f + 0.1f * std::sin(11.0f * v.x) * std::sin(9.0f * v.y)), v});
  m.indices = std::move(idx);
  m.index16 = false;
  m.bounds_min = glm::vec3(-1.1f);
  m.bounds_max = glm::vec3(1.1f);
  return m;
}

int main(int argc, char** argv) try {
  using namespace bindery;
  using namespace bindery::gpu_driven;
  const std::string png = argc > 1 ? argv[1] : "clusters.png";
  check_output_file(png, "clusters: output");
  Device device = Device::create();
  const uint32_t width = 320, height = 240;

  // 1. The mesh into the pool (storage: the vertex stage pulls from it) and its hierarchy.
  const Mesh sphere = bumped_sphere();
  MeshPool meshes(device, {.label = "example meshes", .initial_vertices = sphere.vertices.size(),
                           .initial_indices = sphere.indices.size()});
  const MeshId mesh = meshes.add(sphere);
  const ClusterHierarchy hierarchy = build_cluster_hierarchy(
      std::as_bytes(std::span(sphere.vertices)), uint32_t(sphere.vertices.size()), sizeof(Vertex),
      sphere.indices, {.normal_offset_bytes = 12}, sphere.name);
  ClusterGeometry geometry(device, meshes);
  geometry.add(mesh, hierarchy);

  // 2. 400 objects on a grid that runs from the camera to the horizon.
  ObjectTable objects(device);
  for (uint32_t i = 0; i < 400; ++i)
    objects.add(glm::translate(glm::mat4(1.0f), glm::vec3(float(i % 20) * 3 - 30, 0, -float(i / 20) * 6)),
                mesh, 0);

  // 3. The stages: instance culling (frustum) into a list, then the cluster stage at 1 pixel.
  IndirectDraws draws(device, objects, meshes, {.label = "example draws"});
  Culling culling(device, objects, meshes, draws, nullptr,
                  {.frustum = true, .occlusion = false, .output = CullingOutput::instance_list});
  ClusterCulling clusters(device, objects, geometry, draws, {.lod_error_px = 1.0f});

  // 4. The application's pipeline: group 0 its frame and the objects, group 1 the cluster draw.
  OffscreenTarget target(device, {.width = width, .height = height});
  const std::string wgsl = std::string(ObjectTable::wgsl()) + ClusterCulling::wgsl(1) + kStages;
  gpu::ShaderModule module = device.create_shader_module("example clusters", wgsl);
  const float fov = glm::radians(60.0f), z_near = 0.5f;
  const glm::vec3 eye(0, 6, 10);
  const glm::mat4 view_projection =
      glm::perspectiveRH_ZO(fov, float(width) / float(height), z_near, 500.0f) *
      glm::lookAtRH(eye, glm::vec3(0, 0, -30), glm::vec3(0, 1, 0));
  gpu::Buffer frame = device.create_buffer("frame", 64, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  device.write_buffer(frame.get(), 0, &view_projection, 64);
  WGPUBindGroupLayoutEntry entries[2] = {WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT, WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT};
  entries[0].binding = 0, entries[0].visibility = WGPUShaderStage_Vertex;
  entries[0].buffer.type = WGPUBufferBindingType_Uniform;
  entries[1].binding = 1, entries[1].visibility = WGPUShaderStage_Vertex;
  entries[1].buffer.type = WGPUBufferBindingType_ReadOnlyStorage;
  WGPUBindGroupLayoutDescriptor ld = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
  ld.entryCount = 2, ld.entries = entries;
  auto layout0 = gpu::BindGroupLayout::acquire(wgpuDeviceCreateBindGroupLayout(device.get(), &ld));
  WGPUBindGroupLayout layouts[2] = {layout0.get(), clusters.draw_layout()};
  WGPUPipelineLayoutDescriptor pld = WGPU_PIPELINE_LAYOUT_DESCRIPTOR_INIT;
  pld.bindGroupLayoutCount = 2, pld.bindGroupLayouts = layouts;
  auto pipeline_layout = gpu::PipelineLayout::acquire(wgpuDeviceCreatePipelineLayout(device.get(), &pld));
  WGPURenderPipelineDescriptor pd = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  pd.layout = pipeline_layout.get();
  pd.vertex = {nullptr, module.get(), gpu::sv("vs"), 0, nullptr, 0, nullptr};  // no vertex buffer
  pd.primitive.cullMode = WGPUCullMode_Back;
  WGPUColorTargetState color = {nullptr, target.color_format(), nullptr, WGPUColorWriteMask_All};
  WGPUFragmentState fs = {nullptr, module.get(), gpu::sv("fs"), 0, nullptr, 1, &color};
  pd.fragment = &fs;
  WGPUDepthStencilState depth = WGPU_DEPTH_STENCIL_STATE_INIT;
  depth.format = target.depth_format();
  depth.depthWriteEnabled = WGPUOptionalBool_True;
  depth.depthCompare = WGPUCompareFunction_Less;
  pd.depthStencil = &depth;
  auto pipeline = gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(device.get(), &pd));
  gpu::Buffer stats = device.create_buffer("cluster stats", ClusterCulling::kStatsBytes,
                                           WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc);

  // 5. One frame: flush, prepare, the compute stages, one draw.
  auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
  objects.flush(encoder.get());
  culling.prepare(view_projection);
  geometry.prepare();
  clusters.prepare({view_projection, eye, float(height) * 0.5f / std::tan(fov * 0.5f), z_near});
  WGPUBindGroupEntry e[2] = {WGPU_BIND_GROUP_ENTRY_INIT, WGPU_BIND_GROUP_ENTRY_INIT};
  e[0].binding = 0, e[0].buffer = frame.get(), e[0].size = WGPU_WHOLE_SIZE;
  e[1].binding = 1, e[1].buffer = objects.buffer(), e[1].size = WGPU_WHOLE_SIZE;
  const gpu::BindGroup group0 = device.create_bind_group({nullptr, {}, layout0.get(), 2, e});
  WGPUComputePassEncoder compute = wgpuCommandEncoderBeginComputePass(encoder.get(), nullptr);
  culling.phase1(compute);
  clusters.begin_frame(compute);
  clusters.build(compute);
  wgpuComputePassEncoderEnd(compute);
  wgpuComputePassEncoderRelease(compute);
  {
    gpu::RenderPassEncoder pass = target.begin_render_pass(encoder.get(), {0.6, 0.8, 1.0, 1.0});
    const WGPUBindGroup groups[] = {group0.get()};
    clusters.draw(pass.get(), pipeline.get(), groups, device.counters());
    wgpuRenderPassEncoderEnd(pass.get());
  }
  clusters.copy_stats(encoder.get(), stats.get(), 0);
  auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  const WGPUCommandBuffer raw = commands.get();
  device.submit({&raw, 1});
  objects.after_submit();
  write_png(png, read_back(device, target));
  const ClusterStats s = ClusterCulling::read_stats(
      read_back_buffer(device, stats.get(), 0, ClusterCulling::kStatsBytes).data());
  fmt::print("objects 400, levels {}, clusters {}, drawn {}, triangles {} of {} at full detail, "
             "draw calls {}; wrote {}\n",
             hierarchy.levels.size(), hierarchy.clusters.size(), s.visible, s.triangles_submitted,
             400 * sphere.indices.size() / 3, device.counters().draws, png);
  return 0;
} catch (const bindery::Error& e) {
  fmt::print(stderr, "clusters: error [{}]: {}\n", bindery::to_string(e.kind()), e.what());
  return 1;
}
