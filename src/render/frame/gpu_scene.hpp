// SPDX-License-Identifier: MIT
// src/render/frame/gpu_scene.hpp — the scene's resources on the GPU that every strategy shares
// (its meshes in one MeshPool, its textures and samplers) and their upload (gpu_scene.cpp).
// Private to render/.
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/gpu_driven/mesh_pool.hpp"
#include "bindery/render/scene.hpp"

#include <memory>
#include <vector>

namespace bindery::strategies {

/// A mesh uploaded once: interleaved vertices + indices.
struct GpuMesh {
  WGPUBuffer vertices = nullptr;  ///< the mesh pool's vertex buffer (lent)
  WGPUBuffer indices = nullptr;   ///< the mesh pool's index buffer (lent)
  WGPUIndexFormat index_format = WGPUIndexFormat_Uint32;
  uint32_t index_count = 0;
  uint64_t vertex_offset = 0, vertex_bytes = 0;  ///< the mesh's vertices in `vertices`, bytes
  uint64_t index_offset = 0, index_bytes = 0;    ///< the mesh's indices in `indices`, bytes
};

/// Scene resources every strategy shares.
struct GpuScene {
  /// Every mesh of the scene once (ids = the scene's mesh indices), for every strategy.
  std::unique_ptr<gpu_driven::MeshPool> pool;
  std::vector<GpuMesh> meshes;  ///< each mesh's ranges in the pool's buffers
  std::vector<gpu::Texture> textures;
  std::vector<gpu::TextureView> views;
  std::vector<gpu::Sampler> samplers;  ///< one per Scene::samplers entry
};

/// What upload_scene() puts on the GPU besides the meshes.
struct SceneUploadOptions {
  /// The pool's buffers also bindable as storage (a vertex stage that pulls its vertices: the
  /// cluster path), so each at most maxStorageBufferBindingSize bytes.
  bool storage_vertices = false;
  /// Each scene texture (with mips) as a 2D texture and view. false for a strategy whose
  /// MaterialTable uploads them itself (StrategyRow::own_textures): each texture on the GPU once.
  bool textures = true;
  /// Each mesh's triangles reordered for the vertex cache as the pool takes them
  /// (gpu_driven::MeshPoolDesc::optimize_vertex_cache); false: the scene's order, byte for byte.
  bool optimize_vertex_cache = true;
};

/// Uploads meshes (into one MeshPool, their triangles in the order `options` says) and textures
/// (with mips, unless `options.textures` is false) and creates the scene's samplers.
GpuScene upload_scene(const Device& device, const Scene& scene,
                      const SceneUploadOptions& options = {});

}  // namespace bindery::strategies
