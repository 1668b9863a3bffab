// src/render/strategy.hpp — the interface every per-draw-data strategy implements, and the GPU
// resources all of them share (meshes, textures, sampler). Private to bindery.
#pragma once

#include "bindery/device.hpp"
#include "bindery/renderer.hpp"
#include "bindery/scene.hpp"
#include "bindery/wgsl_layout.hpp"

#include <glm/glm.hpp>

#include <algorithm>

#include <memory>
#include <optional>
#include <vector>

namespace bindery::strategies {

/// Colour target and depth formats of the offscreen target.
inline constexpr WGPUTextureFormat kColorFormat = WGPUTextureFormat_RGBA8Unorm;
inline constexpr WGPUTextureFormat kDepthFormat = WGPUTextureFormat_Depth24Plus;

/// A mesh uploaded once: interleaved vertices + indices.
struct GpuMesh {
  gpu::Buffer vertices;
  gpu::Buffer indices;
  WGPUIndexFormat index_format = WGPUIndexFormat_Uint16;
  uint32_t index_count = 0;
  uint64_t vertex_bytes = 0, index_bytes = 0;
};

/// Scene resources every strategy shares.
struct GpuScene {
  std::vector<GpuMesh> meshes;
  std::vector<gpu::Texture> textures;
  std::vector<gpu::TextureView> views;
  std::vector<gpu::Sampler> samplers;  ///< one per Scene::samplers entry
};

/// Uploads meshes and textures (with mips) and creates the scene's samplers.
GpuScene upload_scene(const Device& device, const Scene& scene);

/// The WGSL `alphaCutoff` of a material (shaders/cubes_common.wgsl): 0 for AlphaMode::opaque
/// (nothing is discarded), the cutoff for mask, -1 for blend (ordered-dither coverage).
inline float alpha_cutoff_uniform(const Material& m) {
  switch (m.alpha_mode) {
    case AlphaMode::mask:
      return std::max(m.alpha_cutoff, 0.0f);
    case AlphaMode::blend:
      return -1.0f;
    default:
      return 0.0f;
  }
}

/// Values shared by every object in a frame.
struct FrameValues {
  glm::mat4 view_projection;
  glm::vec3 light_world_position;
  glm::vec3 view_world_position;
};

/// What a strategy gets each frame.
struct FrameInputs {
  const std::vector<ObjectTransform>& transforms;  ///< one per scene object
  const FrameValues& values;
  uint32_t changed_begin = 0, changed_end = 0;  ///< objects whose transforms changed this frame
  bool first_frame = false;
};

/// One way of getting per-draw data to the shader. Created once per run. Each frame the renderer
/// calls upload() once, then encode() over consecutive ranges of the frame's draws, one range per
/// render pass (usually one pass; see RenderOptions::max_draws_per_pass).
class Strategy {
 public:
  virtual ~Strategy() = default;
  /// Writes the frame's data before any draw is encoded: queue.writeBuffer, or copies recorded
  /// into `encoder` ahead of the render passes (mapped staging).
  virtual void upload(const FrameInputs& in, WGPUCommandEncoder encoder) = 0;
  /// Called after the frame's queue.submit (mapped staging returns its blocks here).
  virtual void after_submit() {}
  /// Draw calls per frame, in encode order.
  virtual uint32_t draw_count() const = 0;
  /// Encodes draws [first, last) into `pass`, a pass that starts with no state bound.
  virtual void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last) = 0;
  /// Stride of per-object data in its GPU buffer, 0 when there is no shared buffer.
  virtual uint64_t object_stride() const { return 0; }
  /// Objects the GPU found visible in the last submitted frame (GPU-driven strategies; reads
  /// back and waits), nullopt for strategies that draw every object.
  virtual std::optional<uint32_t> visible_objects() { return std::nullopt; }
};

std::unique_ptr<Strategy> make_naive_strategy(const Device& device, const Scene& scene,
                                              const GpuScene& gpu);
std::unique_ptr<Strategy> make_dynamic_offsets_strategy(const Device& device, const Scene& scene,
                                                        const GpuScene& gpu);
std::unique_ptr<Strategy> make_render_bundles_strategy(const Device& device, const Scene& scene,
                                                       const GpuScene& gpu);
std::unique_ptr<Strategy> make_gpu_culling_strategy(const Device& device, const Scene& scene,
                                                    const GpuScene& gpu);
std::unique_ptr<Strategy> make_mapped_staging_strategy(const Device& device, const Scene& scene,
                                                       const GpuScene& gpu);

std::unique_ptr<Strategy> make_storage_instancing_strategy(const Device& device, const Scene& scene,
                                                           const GpuScene& gpu);

/// Throws ImplementationLimit when creating `count` more bind groups would exceed
/// default_max_bind_groups(device.adapter()); `what` names them in the message.
void check_bind_group_budget(const Device& device, uint64_t count, std::string_view what);

/// Maps `buffer` (its first `size` bytes) with `mode` and polls the device until the map is done.
/// Throws WebGPUValidation when the map fails or does not complete.
void map_and_wait(const Device& device, WGPUBuffer buffer, WGPUMapMode mode, uint64_t size);

/// Reflects one of bindery's own shaders; any reflection error is a bug here and is thrown.
Reflection reflect_checked(std::string_view wgsl);

/// The interleaved Vertex layout (stride 36: position float32x3 @0, normal float32x3 @12,
/// texcoord float32x2 @24, color unorm8x4 @32; shader locations 0..3).
WGPUVertexBufferLayout vertex_buffer_layout();

/// A render pipeline for `module` (entry points vs / fs) with the article's state: cull back,
/// depth24plus with less, one colour target in kColorFormat.
gpu::RenderPipeline create_scene_pipeline(const Device& device, WGPUShaderModule module,
                                          WGPUPipelineLayout layout, const char* label);

}  // namespace bindery::strategies
