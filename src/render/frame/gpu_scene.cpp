// SPDX-License-Identifier: MIT
// Uploading a Scene's meshes and textures (render/frame/gpu_scene.hpp).
#include "render/frame/gpu_scene.hpp"

#include "bindery/data/scene_gpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>

namespace bindery::strategies {
namespace {

// Every mesh once into one MeshPool sized to hold them all (no growth), and each mesh's ranges
// in its buffers for the strategies that bind a mesh at a time (setVertexBuffer and
// setIndexBuffer at the mesh's offsets, drawIndexed from index 0 of the range).
void upload_meshes(const Device& device, const Scene& scene, GpuScene& g, bool storage,
                   bool optimize_vertex_cache) {
  gpu_driven::MeshPoolDesc d;
  d.label = "scene meshes";
  d.storage_binding = storage;  // else drawn from only: buffers up to maxBufferSize
  d.optimize_vertex_cache = optimize_vertex_cache;
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
  upload_meshes(device, scene, g, options.storage_vertices, options.optimize_vertex_cache);

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

}  // namespace bindery::strategies
