// SPDX-License-Identifier: MIT
// Uploading a Scene's meshes and textures, and the render pipeline state every strategy shares.
#include "render/strategies/strategy.hpp"

#include <fmt/format.h>

#include <iterator>

namespace bindery::strategies {
namespace {

// Every mesh once into one MeshPool sized to hold them all (no growth), and each mesh's ranges
// in its buffers for the strategies that bind a mesh at a time (setVertexBuffer and
// setIndexBuffer at the mesh's offsets, drawIndexed from index 0 of the range).
void upload_meshes(const Device& device, const Scene& scene, GpuScene& g, bool storage) {
  gpu_driven::MeshPoolDesc d;
  d.label = "scene meshes";
  d.storage_binding = storage;  // else drawn from only: buffers up to maxBufferSize
  uint64_t vertices = 0, indices = 0;
  for (const Mesh& m : scene.meshes) {
    vertices += m.vertices.size();
    indices += m.indices.size();
  }
  d.initial_vertices = std::max<uint64_t>(vertices, 1);
  d.initial_indices = std::max<uint64_t>(indices, 1);
  d.initial_ids = std::max<uint32_t>(static_cast<uint32_t>(scene.meshes.size()), 1);
  g.pool = std::make_unique<gpu_driven::MeshPool>(device, d);
  const uint32_t stride = g.pool->vertex_stride();
  for (uint32_t i = 0; i < scene.meshes.size(); ++i) {
    if (g.pool->add(scene.meshes[i]) != i)
      throw Error(ErrorKind::Internal, "upload_scene: a fresh mesh pool handed out ids out of order");
    const gpu_driven::MeshRange& r = g.pool->range(i);
    GpuMesh gm;
    gm.vertices = g.pool->vertex_buffer();
    gm.indices = g.pool->index_buffer();
    gm.index_format = WGPUIndexFormat_Uint32;
    gm.index_count = r.index_count;
    gm.vertex_offset = uint64_t(r.base_vertex) * stride;
    gm.vertex_bytes = uint64_t(r.vertex_count) * stride;
    gm.index_offset = uint64_t(r.first_index) * 4;
    gm.index_bytes = uint64_t(r.index_count) * 4;
    g.meshes.push_back(gm);
  }
  if (g.pool->stats().growths != 0)
    throw Error(ErrorKind::Internal, "upload_scene: the mesh pool grew although sized to fit");
}

}  // namespace

GpuScene upload_scene(const Device& device, const Scene& scene,
                      const SceneUploadOptions& options) {
  GpuScene g;
  upload_meshes(device, scene, g, options.storage_vertices);

  const std::span<const TextureData> textures =
      options.textures ? std::span<const TextureData>(scene.textures)
                       : std::span<const TextureData>();
  for (const TextureData& t : textures) {
    WGPUTextureDescriptor desc = WGPU_TEXTURE_DESCRIPTOR_INIT;
    std::string label = fmt::format("texture {}", t.name);
    desc.label = gpu::sv(label);
    desc.size = {t.width, t.height, 1};
    desc.format = WGPUTextureFormat_RGBA8Unorm;
    desc.mipLevelCount = static_cast<uint32_t>(t.mips.size());
    desc.usage = WGPUTextureUsage_TextureBinding | WGPUTextureUsage_CopyDst;
    gpu::Texture tex = device.create_texture(desc);
    uint32_t w = t.width, h = t.height;
    for (uint32_t level = 0; level < t.mips.size(); ++level) {
      WGPUTexelCopyTextureInfo dst = WGPU_TEXEL_COPY_TEXTURE_INFO_INIT;
      dst.texture = tex.get();
      dst.mipLevel = level;
      WGPUTexelCopyBufferLayout layout = WGPU_TEXEL_COPY_BUFFER_LAYOUT_INIT;
      layout.bytesPerRow = w * 4;
      layout.rowsPerImage = h;
      WGPUExtent3D size = {w, h, 1};
      wgpuQueueWriteTexture(device.queue(), &dst, t.mips[level].data(), t.mips[level].size(),
                            &layout, &size);
      w = std::max(1u, w / 2);
      h = std::max(1u, h / 2);
    }
    g.views.push_back(gpu::TextureView::acquire(wgpuTextureCreateView(tex.get(), nullptr)));
    g.textures.push_back(std::move(tex));
  }

  // One WebGPU sampler per scene sampler (materials name them); the default is seed 003's:
  // magFilter linear, minFilter linear, mipmapFilter nearest, clamp-to-edge.
  for (const SamplerData& s : scene.samplers) {
    const WGPUSamplerDescriptor sd = sampler_descriptor(s);
    g.samplers.push_back(gpu::Sampler::acquire(wgpuDeviceCreateSampler(device.get(), &sd)));
  }
  with_context("uploading the scene", [&] { device.check(); });
  return g;
}

namespace {
const WGPUVertexAttribute kVertexAttributes[] = {
    {nullptr, WGPUVertexFormat_Float32x3, offsetof(Vertex, position), 0},
    {nullptr, WGPUVertexFormat_Float32x3, offsetof(Vertex, normal), 1},
    {nullptr, WGPUVertexFormat_Float32x2, offsetof(Vertex, texcoord), 2},
    {nullptr, WGPUVertexFormat_Unorm8x4, offsetof(Vertex, color), 3},
};
}  // namespace

void check_bind_group_budget(const Device& device, uint64_t count, std::string_view what,
                             std::string_view advice) {
  const uint64_t budget = default_max_bind_groups(device.adapter());
  if (count > budget)
    throw Error(ErrorKind::ImplementationLimit,
                fmt::format("{}: {} bind groups exceed what {} can hold ({}: each bind group is a "
                            "memory mapping, bounded by vm.max_map_count); {}",
                            what, count, device.adapter().name, budget, advice));
}

Reflection reflect_checked(std::string_view wgsl) {
  Reflection r = reflect_wgsl(wgsl);
  r.throw_if_errors();
  return r;
}

WGPUVertexBufferLayout vertex_buffer_layout() {
  WGPUVertexBufferLayout l = WGPU_VERTEX_BUFFER_LAYOUT_INIT;
  l.stepMode = WGPUVertexStepMode_Vertex;
  l.arrayStride = sizeof(Vertex);
  l.attributeCount = std::size(kVertexAttributes);
  l.attributes = kVertexAttributes;
  return l;
}

gpu::RenderPipeline create_scene_pipeline(const Device& device, WGPUShaderModule module,
                                          WGPUPipelineLayout layout, const char* label,
                                          const char* vertex_entry, bool pulls_vertices) {
  WGPUVertexBufferLayout vbl = vertex_buffer_layout();
  WGPURenderPipelineDescriptor d = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  d.label = gpu::sv(label);
  d.layout = layout;
  d.vertex.module = module;
  d.vertex.entryPoint = gpu::sv(vertex_entry);
  d.vertex.bufferCount = pulls_vertices ? 0 : 1;
  d.vertex.buffers = &vbl;
  d.primitive.topology = WGPUPrimitiveTopology_TriangleList;
  d.primitive.cullMode = WGPUCullMode_Back;
  d.primitive.frontFace = WGPUFrontFace_CCW;
  WGPUDepthStencilState ds = WGPU_DEPTH_STENCIL_STATE_INIT;
  ds.format = kDepthFormat;
  ds.depthWriteEnabled = WGPUOptionalBool_True;
  ds.depthCompare = WGPUCompareFunction_Less;
  d.depthStencil = &ds;
  WGPUColorTargetState target = WGPU_COLOR_TARGET_STATE_INIT;
  target.format = kColorFormat;
  target.writeMask = WGPUColorWriteMask_All;
  WGPUFragmentState fs = WGPU_FRAGMENT_STATE_INIT;
  fs.module = module;
  fs.entryPoint = gpu::sv("fs");
  fs.targetCount = 1;
  fs.targets = &target;
  d.fragment = &fs;
  auto p = gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(device.get(), &d));
  with_context(fmt::format("creating render pipeline '{}'", label), [&] { device.check(); });
  return p;
}

gpu::RenderBundleEncoder create_scene_bundle_encoder(const Device& device, const char* label) {
  const WGPUTextureFormat color = kColorFormat;
  WGPURenderBundleEncoderDescriptor d = WGPU_RENDER_BUNDLE_ENCODER_DESCRIPTOR_INIT;
  d.label = gpu::sv(label);
  d.colorFormatCount = 1;
  d.colorFormats = &color;
  d.depthStencilFormat = kDepthFormat;
  d.sampleCount = 1;
  return gpu::RenderBundleEncoder::acquire(wgpuDeviceCreateRenderBundleEncoder(device.get(), &d));
}

}  // namespace bindery::strategies
